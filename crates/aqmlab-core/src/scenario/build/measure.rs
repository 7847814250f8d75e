//! The run's length and what is measured: `duration`, `[measure]` (warm-up, windows, sampled links,
//! traced flows) and `[stop]`.

use super::{Builder, Ctx};
use crate::scenario::units::Duration;
use crate::scenario::{Scenario, ScenarioError};

/// The run's length, warm-up, sampling interval and statistics window.
pub(super) fn check_run(s: &Scenario, cx: &Ctx) -> Result<(), ScenarioError> {
    if s.duration.0 == 0 {
        return Err(cx.err("duration", "a positive duration"));
    }
    if s.measure.warmup >= s.duration {
        return Err(cx.err("measure.warmup", "a warm-up shorter than the duration"));
    }
    if s.measure.sample_interval.0 == 0 {
        return Err(cx.err("measure.sample_interval", "a positive interval"));
    }
    if let Some(window) = s.measure.window {
        let measured = Duration(s.duration.0 - s.measure.warmup.0);
        if window.0 == 0 || window > measured {
            return Err(cx.err(
                "measure.window",
                format!(
                    "a positive duration no longer than the measured period (duration - warmup = {} s), \
                     found {} s",
                    measured.secs(),
                    window.secs()
                ),
            ));
        }
    }
    Ok(())
}

impl Builder<'_> {
    /// `[stop]`: (the class counted, or every class; the number of pairs).
    pub(super) fn stop_after(&self) -> Result<Option<(Option<u16>, u64)>, ScenarioError> {
        let Some(st) = &self.s.stop else { return Ok(None) };
        if st.after_pairs == 0 {
            return Err(self.cx.err("stop.after_pairs", "a positive number of pairs"));
        }
        let class = match &st.class {
            None => None,
            Some(c) => Some(self.classes.iter().position(|x| x == c).ok_or_else(|| {
                self.cx.err(
                    "stop.class",
                    format!(
                        "a traffic class of this scenario ({}); `{c}` is not one",
                        self.classes.join(", ")
                    ),
                )
            })? as u16),
        };
        Ok(Some((class, st.after_pairs)))
    }

    /// The link directions whose queues are sampled.
    pub(super) fn sample_links(&self) -> Result<Vec<u32>, ScenarioError> {
        self.link_directions("measure.sample_links", &self.s.measure.sample_links)
    }

    /// The link directions whose departures are captured to pcap files.
    pub(super) fn pcap_links(&self) -> Result<Vec<u32>, ScenarioError> {
        let mut links = self.link_directions("measure.pcap", &self.s.measure.pcap)?;
        // One file per direction: a name listed twice is captured once.
        links.sort_unstable();
        links.dedup();
        Ok(links)
    }

    /// The link directions `names` (the setting `field`) lists by name, or every one for `"all"`.
    fn link_directions(&self, field: &str, names: &[String]) -> Result<Vec<u32>, ScenarioError> {
        let links = &self.net.links;
        let mut listed = Vec::new();
        for (i, name) in names.iter().enumerate() {
            if name == "all" {
                return Ok((0..links.len() as u32).collect());
            }
            let index = links.iter().position(|l| l.name == *name).ok_or_else(|| {
                self.cx.err(
                    format!("{field}[{i}]"),
                    format!("a link direction such as `{}`; `{name}` is not one", links[0].name),
                )
            })?;
            listed.push(index as u32);
        }
        Ok(listed)
    }

    /// Every traced flow exists (`flows` of them do).
    pub(super) fn check_trace_cwnd(&self, flows: usize) -> Result<(), ScenarioError> {
        for (i, &f) in self.s.measure.trace_cwnd.iter().enumerate() {
            if f as usize >= flows {
                let expected = if flows == 0 {
                    "the id of a [[flows]] connection, but there are none ([[http]] and [[web_users]] \
                     connections are not traced)"
                        .to_string()
                } else {
                    format!("a flow id below {flows}")
                };
                return Err(self.cx.err(format!("measure.trace_cwnd[{i}]"), expected));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_scenarios::{error, model, refused, two_hosts};

    const FLOW: &str = "[[flows]]\nname = \"bulk\"\nkind = \"tcp_bulk\"\nsrc = \"h1\"\ndst = \"h2\"\n";

    #[test]
    fn the_run_needs_a_warm_up_shorter_than_its_duration() {
        let e = refused(&two_hosts("[measure]\nwarmup = \"10s\"\n"), "measure.warmup");
        assert_eq!(e.line, Some(13), "{e}");
        refused(&two_hosts("").replace("\"10s\"", "0"), "duration");
    }

    #[test]
    fn sampled_links_are_named_directions_or_all() {
        let m = model(&two_hosts("[measure]\nsample_links = [\"r->h2\", \"h1->r\"]\n"));
        assert_eq!(m.sample_links, [2, 0]);
        let m = model(&two_hosts("[measure]\nsample_links = [\"all\"]\n"));
        assert_eq!(m.sample_links, [0, 1, 2, 3]);
        refused(&two_hosts("[measure]\nsample_links = [\"h1->h2\"]\n"), "measure.sample_links[0]");
        let m = model(&two_hosts("[measure]\npcap = [\"r->h2\", \"h1->r\", \"r->h2\"]\n"));
        assert_eq!(m.pcap_links, [0, 2], "sorted, each once");
        let e = refused(&two_hosts("[measure]\npcap = [\"h1->r\", \"h1->h2\"]\n"), "measure.pcap[1]");
        assert_eq!(e.line, Some(13), "{e}");
        assert!(e.message.contains("such as `h1->r`"), "{e}");
    }

    #[test]
    fn traced_flows_and_the_stop_class_must_exist() {
        let e = error(&two_hosts(&format!("[measure]\ntrace_cwnd = [1]\n{FLOW}")));
        assert_eq!((e.path.as_str(), e.message.as_str()), ("measure.trace_cwnd[0]", "a flow id below 1"));
        let e = error(&two_hosts("[measure]\ntrace_cwnd = [0]\n"));
        assert!(e.message.contains("there are none"), "{e}");
        let m = model(&two_hosts(&format!("{FLOW}[stop]\nafter_pairs = 5\nclass = \"bulk\"\n")));
        assert_eq!(m.stop_after, Some((Some(0), 5)));
        let e =
            refused(&two_hosts(&format!("{FLOW}[stop]\nafter_pairs = 5\nclass = \"web\"\n")), "stop.class");
        assert!(e.message.contains("(bulk); `web` is not one"), "{e}");
    }
}
