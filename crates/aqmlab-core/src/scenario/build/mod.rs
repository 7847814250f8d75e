//! Resolves a parsed scenario into a [`Model`]. Every semantic error (unknown node, missing route, bad
//! parameter) is reported with the field path and its line in the file.
//!
//! One builder per section, each in a file of its own, run in this order (node, route, TCP
//! configuration, class and stream numbers follow it): `links` (nodes and link directions), `routes`,
//! `tcp` (the configurations groups share), `flows`, `http`, `web_users`, `delaybox`, `measure` (and
//! `[stop]`). The model's types are in `model.rs`.

mod delaybox;
mod flows;
mod http;
mod links;
mod measure;
mod model;
mod routes;
mod tcp;
mod web_users;

pub use flows::GroupCx;
pub use model::*;

use super::{locate, units::Duration, Scenario, ScenarioError};
use crate::sim::rng::StreamNames;

/// Locates errors in the scenario text.
struct Ctx<'a> {
    text: &'a str,
    file: &'a str,
    duration: Duration,
}

impl Ctx<'_> {
    fn err(&self, path: impl Into<String>, message: impl Into<String>) -> ScenarioError {
        let path = path.into();
        ScenarioError {
            file: self.file.into(),
            line: locate::line_of(self.text, &path),
            path,
            message: message.into(),
        }
    }

    /// A packet on a link or in a DelayBox for the whole run never arrives: no result would mean anything.
    fn within_run(&self, path: &str, delay: Duration) -> Result<(), ScenarioError> {
        if delay >= self.duration {
            return Err(self.err(
                path,
                format!(
                    "a delay shorter than the run (duration = {} s), found {} s",
                    self.duration.secs(),
                    delay.secs()
                ),
            ));
        }
        Ok(())
    }
}

/// What the sections after the network share while they add flows and generators.
struct Builder<'a> {
    s: &'a Scenario,
    cx: Ctx<'a>,
    net: links::Network,
    routes: routes::Routes,
    tcp: tcp::TcpConfigs,
    classes: Vec<String>,
    /// Names of the flow groups' and generators' random streams (see [`FlowModel::name`]).
    streams: StreamNames,
    warnings: Vec<ScenarioError>,
}

impl Builder<'_> {
    /// The number of node `name`, written at `path`.
    fn node(&self, name: &str, path: &str) -> Result<u32, ScenarioError> {
        self.net.node(name, path, &self.cx)
    }

    /// The nodes of two ends that must differ: `from` (the `role`, "source" or "client") written at
    /// `from_path`, `to` at `to_path`.
    fn two_ends(
        &self,
        (from, from_path): (&str, &str),
        (to, to_path): (&str, &str),
        role: &str,
    ) -> Result<(u32, u32), ScenarioError> {
        let (a, b) = (self.node(from, from_path)?, self.node(to, to_path)?);
        if a == b {
            return Err(self.cx.err(to_path, format!("a node other than the {role} `{from}`")));
        }
        Ok((a, b))
    }

    /// The number of traffic class `name`, numbered in order of first use.
    fn class(&mut self, name: String) -> u16 {
        match self.classes.iter().position(|c| *c == name) {
            Some(c) => c as u16,
            None => {
                self.classes.push(name);
                (self.classes.len() - 1) as u16
            }
        }
    }
}

/// Builds the model; `text` and `file` locate errors.
pub fn build(s: &Scenario, text: &str, file: &str) -> Result<Model, ScenarioError> {
    let cx = Ctx { text, file, duration: s.duration };
    measure::check_run(s, &cx)?;
    let net = links::network(s, &cx)?;
    let routes = routes::Routes::new(s, &net, &cx)?;
    let tcp = tcp::TcpConfigs::new(&s.tcp, &cx)?;
    let mut b = Builder {
        s,
        cx,
        net,
        routes,
        tcp,
        classes: Vec::new(),
        streams: StreamNames::default(),
        warnings: Vec::new(),
    };
    let flows = b.flows()?;
    let http = b.http()?;
    let web_users = b.web_users()?;
    let delayboxes = b.delayboxes()?;
    let stop_after = b.stop_after()?;
    let sample_links = b.sample_links()?;
    let pcap_links = b.pcap_links()?;
    b.check_trace_cwnd(flows.len())?;
    Ok(Model {
        name: s.name.clone(),
        seed: s.seed,
        duration: s.duration.0,
        warmup: s.measure.warmup.0,
        sample_interval: s.measure.sample_interval.0,
        window: s.measure.window.map(|w| w.0),
        nodes: b.net.nodes,
        links: b.net.links,
        routes: b.routes.table,
        tcp_configs: b.tcp.configs,
        classes: b.classes,
        flows,
        sample_links,
        pcap_links,
        trace_cwnd: s.measure.trace_cwnd.clone(),
        http,
        web_users,
        delayboxes,
        stop_after,
        pair_records: s.measure.pair_records,
        flow_series: s.measure.flow_series,
        user_series: s.measure.user_series,
        warnings: b.warnings,
    })
}

/// Test helpers: small scenarios built whole, each builder's section checked in its own tests.
#[cfg(test)]
mod test_scenarios {
    use super::{Model, ScenarioError};

    /// `duration = "10s"`, the hosts h1 — r — h2 (1 ms, 10 Mb/s links), and `rest`.
    pub fn two_hosts(rest: &str) -> String {
        let link = |a: &str, b: &str| {
            format!("[[links]]\na = \"{a}\"\nb = \"{b}\"\nrate = \"10Mbps\"\ndelay = \"1ms\"\n")
        };
        format!("duration = \"10s\"\n{}{}{rest}", link("h1", "r"), link("r", "h2"))
    }

    pub fn model(text: &str) -> Model {
        crate::load(text, "test.toml", &[], None).unwrap_or_else(|e| panic!("{e}"))
    }

    pub fn error(text: &str) -> ScenarioError {
        crate::load(text, "test.toml", &[], None).expect_err("a scenario error")
    }

    /// The error `text` gives, which must be at `path`.
    pub fn refused(text: &str, path: &str) -> ScenarioError {
        let e = error(text);
        assert_eq!(e.path, path, "{e}");
        e
    }
}

#[cfg(test)]
mod tests {
    /// Flow groups and HTTP generators share the `tcp/` streams: one whose name an earlier one has is
    /// keyed `{name}/{k}`, so that no two of them draw from the same streams.
    #[test]
    fn groups_and_generators_sharing_a_name_get_streams_of_their_own() {
        let group = |name: &str| {
            format!("[[flows]]\nname = \"{name}\"\nkind = \"udp_poisson\"\nsrc = \"h1\"\ndst = \"h2\"\nrate = \"1Mbps\"\ncount = 2\n")
        };
        let http = |name: &str| {
            format!("[[http]]\nname = \"{name}\"\nclients = \"h1\"\nservers = \"h2\"\nrate = 5\n")
        };
        let text = [
            "duration = \"10s\"\n[measure]\nwarmup = 0\n".to_string(),
            "[[links]]\na = \"h1\"\nb = \"h2\"\nrate = \"10Mbps\"\ndelay = \"1ms\"\n".to_string(),
            group("x"),
            group("y"),
            group("x"),
            http("x"),
            http("web"),
        ]
        .concat();
        let m = crate::load(&text, "test.toml", &[], None).unwrap_or_else(|e| panic!("{e}"));
        let flows: Vec<&str> = m.flows.iter().map(|f| f.name.as_str()).collect();
        assert_eq!(flows, ["x/0", "x/1", "y/0", "y/1", "x/1/0", "x/1/1"]);
        assert!(m.flows.iter().all(|f| f.group == "x" || f.group == "y"), "groups keep their names");
        let http: Vec<(&str, &str)> = m.http.iter().map(|h| (h.name.as_str(), h.stream.as_str())).collect();
        assert_eq!(http, [("x", "x/2"), ("web", "web")]);
    }
}
