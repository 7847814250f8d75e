//! `[[delaybox]]`: the hosts each box serves and its per-flow delay distribution.

use super::{Builder, DelayBoxModel, DelayDist};
use crate::scenario::{DelaySpec, RttSideSpec, ScenarioError};
use crate::traffic::empirical::EmpiricalCdf;

impl Builder<'_> {
    pub(super) fn delayboxes(&mut self) -> Result<Vec<DelayBoxModel>, ScenarioError> {
        let mut delayboxes: Vec<DelayBoxModel> = Vec::new();
        let mut served_by: Vec<Option<usize>> = vec![None; self.net.nodes.len()];
        for (b, spec) in self.s.delaybox.iter().enumerate() {
            let path = format!("delaybox[{b}]");
            let node = self.node(&spec.node, &format!("{path}.node"))?;
            let served: Vec<u32> = match &spec.serves {
                Some(sel) => sel
                    .names()
                    .iter()
                    .map(|n| self.node(n, &format!("{path}.serves")))
                    .collect::<Result<_, _>>()?,
                None => (0..self.net.nodes.len() as u32)
                    .filter(|&v| {
                        self.net.graph.link_between(node, v).is_some() && self.net.graph.degree(v) == 1
                    })
                    .collect(),
            };
            if served.is_empty() {
                return Err(match spec.serves {
                    Some(_) => self.cx.err(format!("{path}.serves"), "at least one host to serve"),
                    None => self.cx.err(
                        format!("{path}.node"),
                        format!(
                            "a node linked to hosts (nodes with no other link); `{}` has none, so the box would \
                             delay nothing (name its hosts with `serves`)",
                            spec.node
                        ),
                    ),
                });
            }
            let mut serves = vec![false; self.net.nodes.len()];
            for v in served {
                if let Some(other) = served_by[v as usize] {
                    return Err(self.cx.err(
                        format!("{path}.serves"),
                        format!(
                            "hosts served by one DelayBox only; `{}` is also served by delaybox[{other}]",
                            self.net.nodes[v as usize]
                        ),
                    ));
                }
                served_by[v as usize] = Some(b);
                serves[v as usize] = true;
            }
            let delay = match &spec.delay {
                DelaySpec::Constant { value } => {
                    self.cx.within_run(&format!("{path}.delay.value"), *value)?;
                    DelayDist::Constant(value.0)
                }
                DelaySpec::UniformMs { low_ms, high_ms } => {
                    if low_ms > high_ms {
                        return Err(self.cx.err(format!("{path}.delay.high_ms"), "high_ms >= low_ms"));
                    }
                    DelayDist::UniformMs(*low_ms, *high_ms)
                }
                DelaySpec::PackmimeRtt { side, rate } => {
                    if !(rate.is_finite() && *rate > 0.0) {
                        return Err(self
                            .cx
                            .err(format!("{path}.delay.rate"), "the PackMime connection rate (positive)"));
                    }
                    DelayDist::PackmimeRtt { client: *side == RttSideSpec::Client, rate: *rate }
                }
                // Delays in ns.
                DelaySpec::Empirical { file } => DelayDist::Empirical(
                    EmpiricalCdf::read(file, self.cx.file, "delay_ms", 1e6)
                        .map_err(|m| self.cx.err(format!("{path}.delay.file"), m))?,
                ),
            };
            let per_direction = spec.per_direction;
            delayboxes.push(DelayBoxModel { node, serves, delay, direction: spec.direction, per_direction });
        }
        Ok(delayboxes)
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_scenarios::{model, refused, two_hosts};
    use super::super::DelayDist;

    fn boxes(b: &str) -> String {
        two_hosts(&format!("[[delaybox]]\nnode = \"r\"\n{b}"))
    }

    #[test]
    fn a_box_serves_the_hosts_linked_to_its_node_by_default() {
        let m = model(&boxes("delay = { kind = \"uniform_ms\", low_ms = 10, high_ms = 150 }\n"));
        let d = &m.delayboxes[0];
        assert_eq!((d.node, d.serves.as_slice()), (1, &[true, false, true][..]));
        assert!(matches!(d.delay, DelayDist::UniformMs(10, 150)));
        let m = model(&boxes("serves = \"h2\"\ndelay = { kind = \"constant\", value = \"5ms\" }\n"));
        assert_eq!(m.delayboxes[0].serves, [false, false, true]);
        assert!(matches!(m.delayboxes[0].delay, DelayDist::Constant(5_000_000)));
    }

    #[test]
    fn delay_errors_name_the_field() {
        let e = refused(
            &boxes("delay = { kind = \"uniform_ms\", low_ms = 10, high_ms = 5 }\n"),
            "delaybox[0].delay.high_ms",
        );
        assert_eq!(e.line, Some(14), "{e}");
        refused(&boxes("delay = { kind = \"constant\", value = \"10s\" }\n"), "delaybox[0].delay.value");
        refused(
            &boxes("delay = { kind = \"empirical\", file = \"no-such.csv\" }\n"),
            "delaybox[0].delay.file",
        );
        let twice =
            "[[delaybox]]\nnode = \"r\"\nserves = \"h1\"\ndelay = { kind = \"constant\", value = \"1ms\" }\n";
        let e = refused(&two_hosts(&[twice, twice].concat()), "delaybox[1].serves");
        assert!(e.message.contains("also served by delaybox[0]"), "{e}");
    }
}
