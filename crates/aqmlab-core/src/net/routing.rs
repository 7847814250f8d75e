//! Static routing: shortest paths in hops over the link graph, ties broken by the lowest link index so
//! routes are the same on every run.

use std::collections::VecDeque;

/// Directed adjacency: for each node, the outgoing (link, next node) pairs in link order.
pub struct Graph {
    out: Vec<Vec<(u32, u32)>>,
}

impl Graph {
    pub fn new(nodes: usize, links: impl Iterator<Item = (u32, u32)>) -> Self {
        let mut out = vec![Vec::new(); nodes];
        for (id, (from, to)) in links.enumerate() {
            out[from as usize].push((id as u32, to));
        }
        Graph { out }
    }

    /// Links of a shortest path from `src` to `dst` (empty when src == dst), or None if unreachable.
    pub fn shortest_path(&self, src: u32, dst: u32) -> Option<Vec<u32>> {
        let n = self.out.len();
        let mut via: Vec<Option<(u32, u32)>> = vec![None; n]; // (link, previous node)
        let mut seen = vec![false; n];
        let mut queue = VecDeque::from([src]);
        seen[src as usize] = true;
        while let Some(u) = queue.pop_front() {
            if u == dst {
                break;
            }
            for &(link, v) in &self.out[u as usize] {
                if !seen[v as usize] {
                    seen[v as usize] = true;
                    via[v as usize] = Some((link, u));
                    queue.push_back(v);
                }
            }
        }
        if !seen[dst as usize] {
            return None;
        }
        let mut path = Vec::new();
        let mut v = dst;
        while v != src {
            let (link, u) = via[v as usize].expect("reached nodes have a predecessor");
            path.push(link);
            v = u;
        }
        path.reverse();
        Some(path)
    }

    /// Number of links leaving `v`.
    pub fn degree(&self, v: u32) -> usize {
        self.out[v as usize].len()
    }

    /// The link from `a` to `b`, if any (the lowest-numbered one).
    pub fn link_between(&self, a: u32, b: u32) -> Option<u32> {
        self.out[a as usize].iter().find(|&&(_, v)| v == b).map(|&(l, _)| l)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bfs_prefers_fewest_hops_then_lowest_link() {
        // 0 -> 1 -> 3 and 0 -> 2 -> 3, plus a direct long way 0 -> 4 -> 5 -> 3.
        let links = [(0, 1), (1, 3), (0, 2), (2, 3), (0, 4), (4, 5), (5, 3)];
        let g = Graph::new(6, links.iter().copied());
        assert_eq!(g.shortest_path(0, 3), Some(vec![0, 1]));
        assert_eq!(g.shortest_path(3, 0), None);
        assert_eq!(g.shortest_path(2, 2), Some(vec![]));
    }
}
