//! Routes: `[[routes]]` override the shortest path (in hops) of their (from, to) pair; every route a
//! flow or generator uses is numbered in order of first use.

use super::links::Network;
use super::{Builder, Ctx, Placement};
use crate::net::routing::ROUTE_END;
use crate::scenario::{Scenario, ScenarioError};
use std::collections::HashMap;

pub(super) struct Routes {
    /// The link directions of each explicit route, by (from, to).
    explicit: HashMap<(u32, u32), Vec<u32>>,
    /// `Model::routes`: each route's link directions, then `ROUTE_END`.
    pub table: Vec<u32>,
    /// Where each (src, dst) route starts in `table`.
    ids: HashMap<(u32, u32), u32>,
}

impl Routes {
    /// Checks the explicit routes.
    pub fn new(s: &Scenario, net: &Network, cx: &Ctx) -> Result<Self, ScenarioError> {
        let mut explicit = HashMap::new();
        for (i, r) in s.routes.iter().enumerate() {
            let path = format!("routes[{i}]");
            if r.path.len() < 2 || r.path.first() != Some(&r.from) || r.path.last() != Some(&r.to) {
                return Err(cx.err(
                    format!("{path}.path"),
                    "a list of nodes starting with `from` and ending with `to`",
                ));
            }
            let mut hops = Vec::new();
            for (k, w) in r.path.windows(2).enumerate() {
                let a = net.node(&w[0], &format!("{path}.path[{k}]"), cx)?;
                let b = net.node(&w[1], &format!("{path}.path[{}]", k + 1), cx)?;
                hops.push(net.graph.link_between(a, b).ok_or_else(|| {
                    cx.err(
                        format!("{path}.path[{}]", k + 1),
                        format!("a neighbour of `{}`; no link joins it to `{}`", w[0], w[1]),
                    )
                })?);
            }
            let ends = (
                net.node(&r.from, &format!("{path}.from"), cx)?,
                net.node(&r.to, &format!("{path}.to"), cx)?,
            );
            explicit.insert(ends, hops);
        }
        Ok(Routes { explicit, table: Vec::new(), ids: HashMap::new() })
    }

    /// The route from `src` to `dst`, numbered on first use; `path` is the field that asks for it.
    pub fn id(
        &mut self,
        net: &Network,
        cx: &Ctx,
        src: u32,
        dst: u32,
        path: &str,
    ) -> Result<u32, ScenarioError> {
        if let Some(&id) = self.ids.get(&(src, dst)) {
            return Ok(id);
        }
        let hops = match self.explicit.get(&(src, dst)) {
            Some(h) => h.clone(),
            None => net.graph.shortest_path(src, dst).ok_or_else(|| {
                let (from, to) = (&net.nodes[src as usize], &net.nodes[dst as usize]);
                cx.err(
                    path,
                    format!(
                        "a destination reachable from `{from}`; there is no route to `{to}` (add links or a \
                         [[routes]] entry)"
                    ),
                )
            })?,
        };
        let id = self.table.len() as u32;
        self.table.extend(hops);
        self.table.push(ROUTE_END);
        self.ids.insert((src, dst), id);
        Ok(id)
    }
}

impl Builder<'_> {
    pub(super) fn route(&mut self, src: u32, dst: u32, path: &str) -> Result<u32, ScenarioError> {
        self.routes.id(&self.net, &self.cx, src, dst, path)
    }

    /// Every client with every server of a web generator (`[[http]]`, `[[web_users]]`, at `path`),
    /// routed both ways.
    pub(super) fn placements(
        &mut self,
        clients: &[String],
        servers: &[String],
        path: &str,
    ) -> Result<Vec<Placement>, ScenarioError> {
        let mut placements = Vec::new();
        for c in clients {
            for sv in servers {
                let (clients_path, servers_path) = (format!("{path}.clients"), format!("{path}.servers"));
                let (client, server) = self.two_ends((c, &clients_path), (sv, &servers_path), "client")?;
                placements.push(Placement {
                    client,
                    server,
                    route: self.route(client, server, &servers_path)?,
                    reverse_route: self.route(server, client, &clients_path)?,
                });
            }
        }
        Ok(placements)
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_scenarios::{model, refused, two_hosts};
    use crate::net::routing::ROUTE_END;

    /// h1 — r — h2 plus a direct h1 — h2 link: the shortest path skips r unless a route says otherwise.
    fn triangle(rest: &str) -> String {
        two_hosts(&format!("[[links]]\na = \"h1\"\nb = \"h2\"\nrate = \"1Mbps\"\ndelay = \"1ms\"\n{rest}"))
    }

    const FLOW: &str = "[[flows]]\nkind = \"udp_cbr\"\nsrc = \"h1\"\ndst = \"h2\"\nrate = \"1Mbps\"\n";

    #[test]
    fn routes_are_numbered_in_order_of_use_and_shared() {
        let m = model(&triangle(&format!("{FLOW}{FLOW}")));
        // h1->h2 is link direction 4; h2->h1 is 5.
        assert_eq!(m.routes, [4, ROUTE_END, 5, ROUTE_END]);
        assert_eq!((m.flows[0].route, m.flows[0].reverse_route), (0, 2));
        assert_eq!((m.flows[1].route, m.flows[1].reverse_route), (0, 2), "one entry per (src, dst)");
    }

    #[test]
    fn an_explicit_route_overrides_the_shortest_path() {
        let route = "[[routes]]\nfrom = \"h1\"\nto = \"h2\"\npath = [\"h1\", \"r\", \"h2\"]\n";
        let m = model(&triangle(&format!("{route}{FLOW}")));
        assert_eq!(m.routes, [0, 2, ROUTE_END, 5, ROUTE_END]);
        refused(&triangle(&route.replace("[\"h1\", \"r\", \"h2\"]", "[\"r\", \"h2\"]")), "routes[0].path");
        refused(&triangle(&route.replace("\"r\"", "\"x\"")), "routes[0].path[1]");
    }

    #[test]
    fn an_unreachable_destination_names_the_flow_field() {
        let island = "[[nodes]]\nname = \"h3\"\n";
        let e = refused(
            &two_hosts(&format!("{island}{}", FLOW.replace("dst = \"h2\"", "dst = \"h3\""))),
            "flows[0].dst",
        );
        assert!(e.message.contains("there is no route to `h3`"), "{e}");
    }
}
