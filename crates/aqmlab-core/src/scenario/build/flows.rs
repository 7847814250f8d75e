//! `[[flows]]`: each group's flows with their ends, routes, start times and traffic. Where and when the
//! flows run is the same for every kind of group; what they send is the kind's own
//! ([`crate::scenario::flow_group::GroupKind`]).

use super::tcp::TcpConfigs;
use super::{Builder, Ctx, FlowModel};
use crate::scenario::flow_group::{GroupCommon, Pairing, StartSpec};
use crate::scenario::{NodeSel, ScenarioError};
use crate::sim::{rng, Time};
use crate::topology;
use rand::Rng as _;

/// What a kind of group may ask of the builder while it checks its own fields.
pub struct GroupCx<'a> {
    cx: &'a Ctx<'a>,
    tcp: &'a mut TcpConfigs,
    /// The group's path, `flows[2]`.
    path: &'a str,
}

impl GroupCx<'_> {
    /// An error in the group's field `field`.
    pub fn err(&self, field: &str, message: impl Into<String>) -> ScenarioError {
        self.cx.err(format!("{}.{field}", self.path), message)
    }

    /// The TCP configuration of the group's flows, with the group's own `tcp` table.
    pub fn tcp(&mut self, own: &Option<toml::Table>) -> Result<u16, ScenarioError> {
        self.tcp.id(own, self.path, self.cx)
    }

    /// The end of the run.
    pub fn duration(&self) -> Time {
        self.cx.duration.0
    }
}

impl Builder<'_> {
    pub(super) fn flows(&mut self) -> Result<Vec<FlowModel>, ScenarioError> {
        let mut flows = Vec::new();
        for (g, group) in self.s.flows.iter().enumerate() {
            let path = format!("flows[{g}]");
            let common = group.common();
            let name = if common.name.is_empty() { format!("group{g}") } else { common.name.clone() };
            let class = self.class(common.class.clone().unwrap_or_else(|| name.clone()));
            let pairs = self.endpoints(&common, &path)?;
            let count = match (common.count, &common.between) {
                (Some(0), _) => return Err(self.cx.err(format!("{path}.count"), "at least 1 flow")),
                (Some(c), _) => c,
                (None, Some(_)) => pairs.len() as u32,
                (None, None) => 1,
            };
            let traffic = group.traffic(&mut GroupCx { cx: &self.cx, tcp: &mut self.tcp, path: &path })?;
            let key = self.streams.claim(name.clone());
            let mut start_rng = rng::stream(self.s.seed, &format!("group/{key}/start"));
            for i in 0..count {
                let (src_name, dst_name) = &pairs[i as usize % pairs.len()];
                let (src_path, dst_path) = (format!("{path}.src"), format!("{path}.dst"));
                let (src, dst) = self.two_ends((src_name, &src_path), (dst_name, &dst_path), "source")?;
                let start = match &common.start {
                    StartSpec::At(d) => d.0,
                    StartSpec::Spread { spread } => (spread.0 as u128 * i as u128 / count as u128) as Time,
                    StartSpec::Uniform { uniform: [lo, hi] } => {
                        if hi < lo {
                            return Err(self.cx.err(
                                format!("{path}.start.uniform"),
                                "[earliest, latest] with earliest <= latest",
                            ));
                        }
                        lo.0 + (start_rng.gen::<f64>() * (hi.0 - lo.0) as f64) as Time
                    }
                };
                flows.push(FlowModel {
                    name: format!("{key}/{i}"),
                    group: name.clone(),
                    class,
                    src,
                    dst,
                    route: self.route(src, dst, &dst_path)?,
                    reverse_route: self.route(dst, src, &src_path)?,
                    start,
                    traffic: traffic.clone(),
                });
            }
            let late =
                flows.iter().rev().take(count as usize).filter(|f| f.start >= self.s.duration.0).count();
            if late > 0 {
                self.warnings.push(self.cx.err(
                    format!("{path}.start"),
                    format!(
                        "{late} of the group's {count} flows start at or after the end of the run (duration = \
                         {} s) and send nothing",
                        self.s.duration.secs()
                    ),
                ));
            }
        }
        Ok(flows)
    }

    /// The (src, dst) node names a group's flows cycle through.
    fn endpoints(&self, g: &GroupCommon, path: &str) -> Result<Vec<(String, String)>, ScenarioError> {
        let cx = &self.cx;
        if let Some(between) = &g.between {
            let pairs = topology::between(self.s, between)
                .and_then(|(builder, spec)| builder.host_pairs(spec))
                .map_err(|expected| cx.err(format!("{path}.between"), expected))?;
            return Ok(pairs.into_iter().map(|(a, b)| if g.reverse { (b, a) } else { (a, b) }).collect());
        }
        let src = g
            .src
            .as_ref()
            .map(NodeSel::names)
            .ok_or_else(|| cx.err(format!("{path}.src"), "a source node (or `between`)"))?;
        let dst = g
            .dst
            .as_ref()
            .map(NodeSel::names)
            .ok_or_else(|| cx.err(format!("{path}.dst"), "a destination node (or `between`)"))?;
        if src.is_empty() || dst.is_empty() {
            return Err(cx.err(format!("{path}.src"), "at least one source and one destination node"));
        }
        Ok(match g.pairing {
            Pairing::Zip => {
                let n = src.len().max(dst.len());
                (0..n).map(|i| (src[i % src.len()].clone(), dst[i % dst.len()].clone())).collect()
            }
            Pairing::Cross => {
                src.iter().flat_map(|a| dst.iter().map(move |b| (a.clone(), b.clone()))).collect()
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_scenarios::{error, model, refused, two_hosts};
    use super::super::Traffic;

    fn group(fields: &str) -> String {
        format!("[[flows]]\nsrc = [\"h1\", \"h2\"]\ndst = [\"h2\", \"h1\"]\n{fields}")
    }

    #[test]
    fn flows_cycle_through_their_ends_and_take_their_kinds_traffic() {
        let text = two_hosts(&group(
            "name = \"up\"\nkind = \"udp_poisson\"\ncount = 3\nrate = \"1Mbps\"\npacket_size = \"500B\"\n\
             start = { spread = \"3s\" }\n",
        ));
        let m = model(&text);
        let ends: Vec<(&str, &str)> = m
            .flows
            .iter()
            .map(|f| (m.nodes[f.src as usize].as_str(), m.nodes[f.dst as usize].as_str()))
            .collect();
        assert_eq!(ends, [("h1", "h2"), ("h2", "h1"), ("h1", "h2")]);
        let names: Vec<&str> = m.flows.iter().map(|f| f.name.as_str()).collect();
        assert_eq!(names, ["up/0", "up/1", "up/2"]);
        let starts: Vec<u64> = m.flows.iter().map(|f| f.start).collect();
        assert_eq!(starts, [0, 1_000_000_000, 2_000_000_000]);
        let Traffic::Udp(u) = &m.flows[0].traffic else { panic!("UDP traffic") };
        assert_eq!((u.size, u.interval, u.poisson, u.stop), (500, 4_000_000, true, 10_000_000_000));
        assert_eq!(m.classes, ["up"]);
    }

    #[test]
    fn cross_pairing_takes_every_combination() {
        let h3 = "[[links]]\na = \"r\"\nb = \"h3\"\nrate = \"1Mbps\"\ndelay = \"1ms\"\n";
        let text = |pairing: &str| {
            two_hosts(&format!(
                "{h3}[[flows]]\nkind = \"tcp_bulk\"\nsrc = [\"h1\", \"h2\"]\ndst = [\"r\", \"h3\"]\n\
                 pairing = \"{pairing}\"\ncount = 4\n"
            ))
        };
        let ends = |pairing: &str| {
            let m = model(&text(pairing));
            let name = |n: u32| m.nodes[n as usize].clone();
            m.flows.iter().map(|f| format!("{}-{}", name(f.src), name(f.dst))).collect::<Vec<_>>()
        };
        assert_eq!(ends("cross"), ["h1-r", "h1-h3", "h2-r", "h2-h3"]);
        assert_eq!(ends("zip"), ["h1-r", "h2-h3", "h1-r", "h2-h3"]);
    }

    #[test]
    fn group_errors_name_the_field() {
        let e = refused(&two_hosts(&group("kind = \"tcp_bulk\"\ncount = 0\n")), "flows[0].count");
        assert_eq!(e.line, Some(16), "{e}");
        refused(&two_hosts("[[flows]]\nkind = \"tcp_bulk\"\nsrc = \"h1\"\ndst = \"h1\"\n"), "flows[0].dst");
        let e = error(&two_hosts(&group("kind = \"tcp_files\"\nfile_rate = 1\nfile_shape = 0.5\n")));
        assert_eq!(
            (e.path.as_str(), e.message.as_str()),
            ("flows[0].file_shape", "a Pareto shape above 1 (finite mean)")
        );
        refused(&two_hosts(&group("kind = \"udp_cbr\"\n")), "flows[0].rate");
        refused(&two_hosts(&group("kind = \"tcp_bulk\"\nbetween = \"dumbbell\"\n")), "flows[0].between");
    }
}
