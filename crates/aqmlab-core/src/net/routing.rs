//! Static routing: shortest paths in hops over the link graph, ties broken by the lowest link index so
//! routes are the same on every run.
//!
//! Hosts usually hang off a router by one link each way, and a network of N host pairs asks for 2N
//! routes. A path from a node with a single outgoing link must start with that link, and a path to a
//! node with a single incoming link must end with it, so those ends are peeled off first and the
//! breadth-first search runs only between the routers left, once per router pair. This gives exactly
//! the path the search from the host itself would find.

use std::cell::RefCell;
use std::collections::{HashMap, VecDeque};

/// Ends a route in the model's route table (`Model::routes`).
pub const ROUTE_END: u32 = u32::MAX;

/// The links of a path, or None when there is none.
type Path = Option<Vec<u32>>;

/// Directed adjacency: for each node, the outgoing (link, next node) pairs in link order.
pub struct Graph {
    out: Vec<Vec<(u32, u32)>>,
    /// For each node, its incoming (link, previous node) when it has exactly one.
    only_in: Vec<Option<(u32, u32)>>,
    /// Searches done so far, by (from, to).
    searched: RefCell<HashMap<(u32, u32), Path>>,
}

impl Graph {
    pub fn new(nodes: usize, links: impl Iterator<Item = (u32, u32)>) -> Self {
        let mut out = vec![Vec::new(); nodes];
        let mut into = vec![Vec::new(); nodes];
        for (id, (from, to)) in links.enumerate() {
            out[from as usize].push((id as u32, to));
            into[to as usize].push((id as u32, from));
        }
        let only_in = into.iter().map(|v| if v.len() == 1 { Some(v[0]) } else { None }).collect();
        Graph { out, only_in, searched: RefCell::default() }
    }

    /// Links of a shortest path from `src` to `dst` (empty when src == dst), or None if unreachable.
    pub fn shortest_path(&self, src: u32, dst: u32) -> Option<Vec<u32>> {
        let n = self.out.len();
        let (mut from, mut head) = (src, Vec::new());
        while from != dst && self.out[from as usize].len() == 1 && head.len() < n {
            let (link, next) = self.out[from as usize][0];
            head.push(link);
            from = next;
        }
        let (mut to, mut tail) = (dst, Vec::new());
        while to != from && tail.len() < n {
            let Some((link, prev)) = self.only_in[to as usize] else { break };
            tail.push(link);
            to = prev;
        }
        let middle =
            self.searched.borrow_mut().entry((from, to)).or_insert_with(|| self.search(from, to)).clone()?;
        head.extend(middle);
        head.extend(tail.iter().rev());
        Some(head)
    }

    /// Breadth-first search from `src` to `dst`.
    fn search(&self, src: u32, dst: u32) -> Option<Vec<u32>> {
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

    #[test]
    fn peeling_single_link_ends_finds_the_searched_path() {
        // Random router meshes with hosts on one link each way (some on two routers, some chains of
        // single links): every route equals the plain search's, unreachable pairs included.
        use rand::{Rng, SeedableRng};
        let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(3);
        for _ in 0..40 {
            let (routers, hosts) = (rng.gen_range(1..6u32), rng.gen_range(1..12u32));
            let mut links = Vec::new();
            for _ in 0..rng.gen_range(0..10) {
                let (a, b) = (rng.gen_range(0..routers), rng.gen_range(0..routers));
                links.push((a, b));
            }
            for h in routers..routers + hosts {
                let r = rng.gen_range(0..routers);
                links.push((h, r));
                links.push((r, h));
                if rng.gen_bool(0.2) {
                    links.push((h, rng.gen_range(0..routers)));
                }
            }
            let n = (routers + hosts) as usize;
            let g = Graph::new(n, links.iter().copied());
            for src in 0..n as u32 {
                for dst in 0..n as u32 {
                    assert_eq!(g.shortest_path(src, dst), g.search(src, dst), "{links:?} {src}->{dst}");
                }
            }
        }
    }
}
