//! The parking lot: routers in a chain, hop i joining router i and router i+1, and groups of hosts each
//! hanging off one router.

use super::{access_queue, checked, link, Topology};
use crate::aqm::QueueConfig;
use crate::scenario::units::Duration;
use crate::scenario::{HostGroup, LinkSpec, ParkingLot, Routers};
use std::collections::HashSet;

impl ParkingLot {
    /// The router names in chain order.
    fn router_names(&self) -> Vec<String> {
        match &self.routers {
            Routers::Count(n) => (0..*n).map(|i| format!("R{i}")).collect(),
            Routers::Names(names) => names.clone(),
        }
    }

    /// The number of hops, without naming the routers (the estimate is made before anything is built).
    fn hop_count(&self) -> u64 {
        let routers = match &self.routers {
            Routers::Count(n) => *n as u64,
            Routers::Names(names) => names.len() as u64,
        };
        routers.saturating_sub(1)
    }

    /// The queue of hop direction `from->to`.
    fn hop_queue(&self, from: &str, to: &str) -> QueueConfig {
        self.queues.get(&format!("{from}->{to}")).unwrap_or(&self.queue).clone()
    }

    /// The router list, checked: at least two, no name twice.
    fn checked_routers(&self) -> Result<Vec<String>, (String, String)> {
        let routers = self.router_names();
        if routers.len() < 2 {
            return Err(("routers".into(), format!("at least 2 routers, found {}", routers.len())));
        }
        let mut seen = HashSet::new();
        if let Some(twice) = routers.iter().find(|r| !seen.insert(r.as_str())) {
            return Err(("routers".into(), format!("distinct router names; `{twice}` is there twice")));
        }
        Ok(routers)
    }

    /// The group named `name`, for `between`.
    fn group(&self, name: &str) -> Result<&HostGroup, String> {
        self.hosts.iter().find(|h| h.name == name).ok_or_else(|| {
            let names: Vec<&str> =
                self.hosts.iter().filter(|h| !h.name.is_empty()).map(|h| h.name.as_str()).collect();
            format!("the name of a `[[parking_lot.hosts]]` group ({}), found `{name}`", names.join(", "))
        })
    }

    /// The two groups of `between = "parking_lot:A->B"`, which must be as large.
    fn pair_groups(&self, spec: &str) -> Result<(&HostGroup, &HostGroup), String> {
        let (a, b) = spec.split_once("->").ok_or_else(|| {
            format!(
                "\"parking_lot:A->B\" (host i of group A to host i of group B), found \"parking_lot:{spec}\""
            )
        })?;
        let (a, b) = (self.group(a)?, self.group(b)?);
        if a.size() != b.size() {
            return Err(format!(
                "two groups as large: `{}` has {} hosts, `{}` {}",
                a.name,
                a.size(),
                b.name,
                b.size()
            ));
        }
        Ok((a, b))
    }
}

impl HostGroup {
    fn size(&self) -> u64 {
        match &self.names {
            Some(names) => names.len() as u64,
            None => self.count.unwrap_or(0) as u64,
        }
    }

    /// Its hosts: `names`, or `{name}0..{name}{count-1}`.
    fn host_names(&self) -> Vec<String> {
        match &self.names {
            Some(names) => names.clone(),
            None => (0..self.count.unwrap_or(0)).map(|i| format!("{}{i}", self.name)).collect(),
        }
    }

    /// `count` or `names`, exactly one, and at least one host.
    fn check(&self) -> Result<(), (&'static str, String)> {
        match (&self.names, self.count) {
            (Some(_), Some(_)) => {
                Err(("names", "either `count` (hosts `{name}0..`) or `names`, not both".into()))
            }
            (None, None) => Err(("count", "a number of hosts (`count`) or their `names`".into())),
            (Some(names), None) if names.is_empty() => Err(("names", "at least 1 host".into())),
            (None, Some(0)) => Err(("count", "at least 1 host".into())),
            (None, Some(_)) if self.name.is_empty() => {
                Err(("name", "a name: the group's hosts are `{name}0..{name}{count-1}`".into()))
            }
            _ => Ok(()),
        }
    }
}

impl Topology for ParkingLot {
    /// The hops first (both directions `queue`, or the direction's entry in `queues`), then each group's
    /// hosts in order, host → router.
    fn links(&self) -> Result<Vec<(String, LinkSpec)>, (String, String)> {
        let routers = self.checked_routers()?;
        checked("queue", &self.queue)?;
        let hops: HashSet<String> = routers
            .windows(2)
            .flat_map(|w| [format!("{}->{}", w[0], w[1]), format!("{}->{}", w[1], w[0])])
            .collect();
        for (hop, q) in &self.queues {
            if !hops.contains(hop) {
                return Err((
                    format!("queues.{hop}"),
                    format!(
                        "a hop direction of the chain ({}->{}, {}->{}, ...)",
                        routers[0], routers[1], routers[1], routers[0]
                    ),
                ));
            }
            checked(&format!("queues.{hop}"), q)?;
        }
        let mut links: Vec<(String, LinkSpec)> = routers
            .windows(2)
            .map(|w| {
                let queues = (self.hop_queue(&w[0], &w[1]), self.hop_queue(&w[1], &w[0]));
                ("routers".to_string(), link(&w[0], &w[1], (self.rate, self.delay), queues))
            })
            .collect();
        let mut names = HashSet::new();
        for (g, h) in self.hosts.iter().enumerate() {
            let path = format!("hosts[{g}]");
            h.check().map_err(|(f, expected)| (format!("{path}.{f}"), expected))?;
            if !h.name.is_empty() && !names.insert(h.name.as_str()) {
                return Err((
                    format!("{path}.name"),
                    format!("a group name no other group has, found `{}`", h.name),
                ));
            }
            if !routers.contains(&h.router) {
                return Err((
                    format!("{path}.router"),
                    format!("one of the routers ({}), found `{}`", routers.join(", "), h.router),
                ));
            }
            let queue = h.queue.clone().unwrap_or_else(access_queue);
            checked(&format!("{path}.queue"), &queue)?;
            for host in h.host_names() {
                let queues = (queue.clone(), queue.clone());
                links.push((path.clone(), link(&host, &h.router, (h.rate, h.delay), queues)));
            }
        }
        Ok(links)
    }

    fn delays(&self) -> Vec<(String, Duration)> {
        let hosts = self.hosts.iter().enumerate().map(|(g, h)| (format!("hosts[{g}].delay"), h.delay));
        std::iter::once(("delay".to_string(), self.delay)).chain(hosts).collect()
    }

    fn link_count(&self) -> u64 {
        self.hosts.iter().map(HostGroup::size).fold(self.hop_count(), u64::saturating_add)
    }

    fn size_field(&self) -> &'static str {
        "hosts"
    }

    fn queue_field(&self, link: u64) -> String {
        let mut first = self.hop_count();
        if link < first {
            return "queue".into();
        }
        for (g, h) in self.hosts.iter().enumerate() {
            first = first.saturating_add(h.size());
            if link < first {
                return format!("hosts[{g}].queue");
            }
        }
        "hosts".into()
    }

    /// `"A->B"`: host i of group A to host i of group B.
    fn host_pairs(&self, spec: &str) -> Result<Vec<(String, String)>, String> {
        let (a, b) = self.pair_groups(spec)?;
        Ok(a.host_names().into_iter().zip(b.host_names()).collect())
    }

    fn pair_count(&self, spec: &str) -> Result<(u64, String), String> {
        let (a, _) = self.pair_groups(spec)?;
        let g = self.hosts.iter().position(|h| std::ptr::eq(h, a)).unwrap_or(0);
        Ok((a.size(), format!("hosts[{g}]")))
    }
}

#[cfg(test)]
mod tests {
    use crate::scenario::build::Model;

    fn model(text: &str) -> Model {
        crate::load(text, "test.toml", &[], None).unwrap_or_else(|e| panic!("{e}"))
    }

    /// The scenario of README's "How to add a topology builder".
    fn readme_example() -> &'static str {
        let readme = include_str!("../../../../README.md");
        let section = readme.split("## How to add a topology builder").nth(1).expect("the section");
        section.split("```toml\n").nth(1).and_then(|b| b.split("```").next()).expect("a TOML block")
    }

    /// Each link direction as `from->to queue-kind`, and each flow as `src->dst`.
    fn described(m: &Model) -> (Vec<String>, Vec<String>) {
        let name = |n: u32| m.nodes[n as usize].as_str();
        let links = m.links.iter().map(|l| format!("{} {}", l.name, l.queue.name())).collect();
        let flows = m.flows.iter().map(|f| format!("{}->{}", name(f.src), name(f.dst))).collect();
        (links, flows)
    }

    #[test]
    fn a_three_router_lot_gives_its_hops_then_its_hosts() {
        let m = model(readme_example());
        assert_eq!(m.nodes, ["R0", "R1", "R2", "src0", "src1", "a", "b"]);
        let (links, flows) = described(&m);
        let expected = [
            "R0->R1 droptail",
            "R1->R0 droptail",
            "R1->R2 pi",
            "R2->R1 droptail",
            "src0->R0 droptail",
            "R0->src0 droptail",
            "src1->R0 droptail",
            "R0->src1 droptail",
            "a->R2 droptail",
            "R2->a droptail",
            "b->R2 droptail",
            "R2->b droptail",
        ];
        assert_eq!(links, expected);
        assert_eq!(flows, ["src0->a", "src1->b"]);
        let delays: Vec<u64> = m.links.iter().step_by(2).map(|l| l.info.delay / 1_000_000).collect();
        assert_eq!(delays, [1, 1, 5, 5, 5, 5]);
    }

    /// The builder's model is the one of its links written out in its order (study W's results depend
    /// on it: node and link order number the nodes, links and random streams).
    #[test]
    fn a_lot_builds_the_model_of_its_links_written_out() {
        let link = |a: &str, b: &str, rest: &str| {
            format!("[[links]]\na = \"{a}\"\nb = \"{b}\"\nrate = \"10Mbps\"\ndelay = \"1ms\"\n{rest}")
        };
        let pi = "queue_ab = { kind = \"pi\", qref = 20 }\nqueue_ba = { kind = \"droptail\", limit = 100 }\n";
        let dt = "queue = { kind = \"droptail\", limit = 100 }\n";
        let host = "rate = \"100Mbps\"\ndelay = \"5ms\"\nqueue = { kind = \"droptail\", limit = 1000 }\n";
        let written = [
            "duration = \"10s\"\n".to_string(),
            link("R0", "R1", dt),
            link("R1", "R2", pi),
            link("src0", "R0", host).replace("rate = \"10Mbps\"\ndelay = \"1ms\"\n", ""),
            link("src1", "R0", host).replace("rate = \"10Mbps\"\ndelay = \"1ms\"\n", ""),
            link("a", "R2", host).replace("rate = \"10Mbps\"\ndelay = \"1ms\"\n", ""),
            link("b", "R2", host).replace("rate = \"10Mbps\"\ndelay = \"1ms\"\n", ""),
            "[[flows]]\nkind = \"tcp_bulk\"\nsrc = [\"src0\", \"src1\"]\ndst = [\"a\", \"b\"]\ncount = 2\n"
                .to_string(),
        ]
        .concat();
        let (lot, links) = (model(readme_example()), model(&written));
        assert_eq!(lot.nodes, links.nodes);
        assert_eq!(format!("{:?}", lot.links), format!("{:?}", links.links));
        assert_eq!(format!("{:?}", lot.flows), format!("{:?}", links.flows));
    }

    #[test]
    fn errors_name_the_field() {
        let error = |from: &str, to: &str| {
            let text = readme_example().replacen(from, to, 1);
            assert_ne!(text, readme_example(), "{from}");
            crate::load(&text, "test.toml", &[], None).expect_err("a scenario error")
        };
        let cases = [
            ("routers = 3", "routers = 1", "parking_lot.routers", 4, "at least 2 routers"),
            ("routers = 3", "routers = [\"A\", \"A\"]", "parking_lot.routers", 4, "distinct router names"),
            ("routers = 3", "routers = \"R0\"", "parking_lot.routers", 4, "a number of routers"),
            ("delay = \"1ms\"", "delay = \"1ms\"\ncolour = 1", "parking_lot.colour", 7, "unknown field"),
            ("\"R1->R2\"", "\"R0->R2\"", "parking_lot.queues.R0->R2", 8, "a hop direction"),
            ("qref = 20", "qref = -1", "parking_lot.queues.R1->R2.qref", 8, ""),
            ("router = \"R0\"", "router = \"R9\"", "parking_lot.hosts[0].router", 13, "one of the routers"),
            ("count = 2", "count = 0", "parking_lot.hosts[0].count", 12, "at least 1 host"),
            ("count = 2", "count = 2\nnames = [\"x\"]", "parking_lot.hosts[0].names", 13, "not both"),
            ("name = \"sink\"", "name = \"src\"", "parking_lot.hosts[1].name", 18, "no other group"),
            (
                "names = [\"a\", \"b\"]",
                "names = [\"a\", \"R1\"]",
                "parking_lot.hosts[1]",
                17,
                "already joins",
            ),
            ("delay = \"5ms\"", "delay = \"50s\"", "parking_lot.hosts[0].delay", 15, "shorter than the run"),
            ("src->sink", "src->nobody", "flows[0].between", 26, "group (src, sink), found `nobody`"),
            ("src->sink", "src", "flows[0].between", 26, "\"parking_lot:A->B\""),
            ("names = [\"a\", \"b\"]", "names = [\"a\"]", "flows[0].between", 26, "two groups as large"),
        ];
        for (from, to, path, line, message) in cases {
            let e = error(from, to);
            assert_eq!((e.path.as_str(), e.line), (path, Some(line)), "{to}: {e}");
            assert!(e.message.contains(message), "{to}: {e}");
        }
    }
}
