//! The scenario format: a TOML file parsed into typed structures, with overrides (`--set key=value`)
//! and errors that name the file, the line, the field path and what was expected.
//!
//! See `scenarios/example.toml` for an annotated example of every table.

pub mod build;
pub mod error;
pub mod every_error;
pub mod flow_group;
pub mod locate;
pub mod tagged;
pub mod units;

pub use error::ScenarioError;
pub use flow_group::FlowGroup;

use crate::aqm::QueueConfig;
use serde::Deserialize;
use std::collections::BTreeMap;
use units::{Duration, Rate};

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    /// Short name used in summaries and file names.
    #[serde(default)]
    pub name: String,
    #[serde(default)]
    pub description: String,
    /// Run seed: every random stream is derived from it and the component's name.
    #[serde(default = "default_seed")]
    pub seed: u64,
    /// Simulated time.
    pub duration: Duration,
    #[serde(default)]
    pub measure: Measure,
    /// TCP options shared by every flow group (each group may override fields in its own `tcp`).
    #[serde(default)]
    pub tcp: Option<toml::Table>,
    #[serde(default)]
    pub nodes: Vec<NodeSpec>,
    #[serde(default)]
    pub links: Vec<LinkSpec>,
    /// A dumbbell builder: `pairs` hosts on each side of one bottleneck.
    pub dumbbell: Option<Dumbbell>,
    /// A parking-lot builder: routers in a chain, with groups of hosts on them.
    pub parking_lot: Option<ParkingLot>,
    /// Explicit routes; every other path is the shortest path in hops.
    #[serde(default)]
    pub routes: Vec<RouteSpec>,
    #[serde(default)]
    pub flows: Vec<FlowGroup>,
    /// PackMime-HTTP generators: web traffic between client and server clouds.
    #[serde(default)]
    pub http: Vec<HttpSpec>,
    /// Closed-loop web users: each requests a page, waits for it, thinks, and requests the next.
    #[serde(default)]
    pub web_users: Vec<WebUsersSpec>,
    /// Nodes that delay each flow by its own amount (ns-2 DelayBox).
    #[serde(default)]
    pub delaybox: Vec<DelayBoxSpec>,
    /// Ends the run before `duration` once enough request/response pairs have completed.
    pub stop: Option<StopSpec>,
}

fn default_seed() -> u64 {
    1
}

/// What to measure, and from when.
#[derive(Clone, Debug, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Measure {
    /// Nothing before this time is counted (warm-up).
    pub warmup: Duration,
    /// Interval of the queue-length samples.
    pub sample_interval: Duration,
    /// Link directions (`"A->B"`) whose queue is sampled; `["all"]` samples every link.
    pub sample_links: Vec<String>,
    /// Flow ids whose congestion window is traced at every change.
    pub trace_cwnd: Vec<u32>,
    /// Keep a record of every completed request/response pair (written to Parquet in batches).
    pub pair_records: bool,
    /// Record the bytes delivered to every flow per `sample_interval` (written to Parquet in batches).
    pub flow_series: bool,
    /// Record, per `[[web_users]]` generator, the users fetching a page and thinking per `sample_interval`.
    pub user_series: bool,
    /// Link directions (`"A->B"`) whose departures are written to `pcap/<link>.pcap` (headers only).
    pub pcap: Vec<String>,
    /// Length of the windows of the windowed statistics (`window_links`, `window_responses`): from the
    /// warm-up on, every window's link counters and response-time quantiles (default: none).
    pub window: Option<Duration>,
}

impl Default for Measure {
    fn default() -> Self {
        Measure {
            warmup: Duration(0),
            sample_interval: Duration::from_secs(0.01),
            sample_links: Vec::new(),
            trace_cwnd: Vec::new(),
            pair_records: false,
            flow_series: false,
            user_series: false,
            pcap: Vec::new(),
            window: None,
        }
    }
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NodeSpec {
    pub name: String,
}

/// A full-duplex point-to-point link: two directions with the same rate and delay, each with a queue.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LinkSpec {
    pub a: String,
    pub b: String,
    pub rate: Rate,
    pub delay: Duration,
    /// Queue of both directions, unless `queue_ab` / `queue_ba` say otherwise (default drop-tail 50).
    pub queue: Option<QueueConfig>,
    pub queue_ab: Option<QueueConfig>,
    pub queue_ba: Option<QueueConfig>,
    /// Error models of the a→b and b→a directions (none by default).
    pub loss_ab: Option<crate::net::loss::LossSpec>,
    pub loss_ba: Option<crate::net::loss::LossSpec>,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Dumbbell {
    /// Sender/receiver host pairs: left hosts `{left}0..`, right hosts `{right}0..`.
    pub pairs: u32,
    #[serde(default = "default_left")]
    pub left: String,
    #[serde(default = "default_right")]
    pub right: String,
    /// Router names (left, right).
    #[serde(default = "default_routers")]
    pub routers: [String; 2],
    pub bottleneck_rate: Rate,
    pub bottleneck_delay: Duration,
    /// Queue of the left→right bottleneck direction.
    #[serde(default)]
    pub queue: QueueConfig,
    /// Queue of the right→left direction (default: same as `queue`).
    pub reverse_queue: Option<QueueConfig>,
    pub access_rate: Rate,
    /// One-way delay of each access link: a duration, or `{ from, to }` spread linearly over the pairs.
    pub access_delay: Spread,
    /// Queue of the access links (default drop-tail 1000, which never drops at these rates).
    pub access_queue: Option<QueueConfig>,
}

/// A parking lot (a chain): routers in a line joined hop by hop, and groups of hosts on the routers.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ParkingLot {
    /// The routers in chain order: a number N (`R0`..`R{N-1}`) or their names.
    pub routers: Routers,
    /// Rate and one-way delay of every hop.
    pub rate: Rate,
    pub delay: Duration,
    /// Queue of every hop direction (default drop-tail 50, as a link's).
    #[serde(default)]
    pub queue: QueueConfig,
    /// Queues of single hop directions, by name: `"R1->R2" = { kind = "pi" }`.
    #[serde(default)]
    pub queues: BTreeMap<String, QueueConfig>,
    /// Host groups, each on one router.
    #[serde(default)]
    pub hosts: Vec<HostGroup>,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(untagged, expecting = "a number of routers (8: R0..R7) or a list of router names")]
pub enum Routers {
    Count(u32),
    Names(Vec<String>),
}

/// `[[parking_lot.hosts]]`: hosts each linked to `router`.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HostGroup {
    /// The group's name (`between = "parking_lot:A->B"`); with `count`, hosts are `{name}0..`.
    #[serde(default)]
    pub name: String,
    /// Number of hosts, named after the group...
    pub count: Option<u32>,
    /// ...or their names.
    pub names: Option<Vec<String>>,
    pub router: String,
    /// Rate, one-way delay and queue of each host's link.
    pub rate: Rate,
    pub delay: Duration,
    /// Default drop-tail 1000, as the dumbbell's access links.
    pub queue: Option<QueueConfig>,
}

fn default_left() -> String {
    "S".into()
}
fn default_right() -> String {
    "R".into()
}
fn default_routers() -> [String; 2] {
    ["A".into(), "B".into()]
}

/// A duration that may vary linearly with the index of a host or flow.
#[derive(Clone, Debug, Deserialize)]
#[serde(untagged, expecting = "a duration (\"10ms\") or { from = \"10ms\", to = \"50ms\" }")]
pub enum Spread {
    Fixed(Duration),
    Linear { from: Duration, to: Duration },
}

impl Spread {
    /// The value for item `i` of `n`.
    pub fn at(&self, i: u32, n: u32) -> Duration {
        match self {
            Spread::Fixed(d) => *d,
            Spread::Linear { from, to } => {
                if n <= 1 {
                    *from
                } else {
                    let f = i as f64 / (n - 1) as f64;
                    Duration(from.0 + ((to.0 as f64 - from.0 as f64) * f).round() as u64)
                }
            }
        }
    }
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RouteSpec {
    pub from: String,
    pub to: String,
    /// Nodes in order, from `from` to `to` inclusive.
    pub path: Vec<String>,
}

/// One or several node names; flow `i` of a group uses entry `i mod len`.
#[derive(Clone, Debug, Deserialize)]
#[serde(untagged, expecting = "a node name (\"h1\") or a list of node names ([\"h1\", \"h2\"])")]
pub enum NodeSel {
    One(String),
    Many(Vec<String>),
}

impl NodeSel {
    pub fn names(&self) -> Vec<String> {
        match self {
            NodeSel::One(s) => vec![s.clone()],
            NodeSel::Many(v) => v.clone(),
        }
    }
}

/// A PackMime-HTTP generator (ns-2 `PackMimeHTTP`): new connections arrive at `rate` per second from
/// the client cloud to the server cloud, each carrying request/response pairs.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HttpSpec {
    #[serde(default)]
    pub name: String,
    /// Client nodes (connections are assigned round-robin over the client × server pairs).
    pub clients: NodeSel,
    pub servers: NodeSel,
    /// New connections per second (or `trace`).
    pub rate: Option<f64>,
    /// Replay the connections of this file instead of drawing them (docs/traffic.md#replaying-a-connection-trace);
    /// relative to the scenario file.
    pub trace: Option<String>,
    /// "1.1" (persistent connections, study W) or "1.0" (one pair per connection).
    #[serde(default = "default_http_version")]
    pub version: String,
    /// Long-range-dependent connection arrivals and request sizes, as ns-2 (false: i.i.d.).
    #[serde(default = "default_true")]
    pub lrd: bool,
    #[serde(default)]
    pub start: Duration,
    pub stop: Option<Duration>,
    /// Traffic class (default: the generator's name).
    pub class: Option<String>,
    /// TCP options overriding the top-level `[tcp]` table.
    pub tcp: Option<toml::Table>,
}

/// Closed-loop web users (docs/traffic.md#closed-loop-web-users): `users` users on the client nodes,
/// each looping page → think → page over one TCP connection per object (HTTP/1.0) or, for a share of
/// the pages, over persistent connections (HTTP/1.1).
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WebUsersSpec {
    #[serde(default)]
    pub name: String,
    /// Client nodes: user i browses from entry i mod length.
    pub clients: NodeSel,
    /// Server nodes: each run of pages goes to one of them, chosen uniformly.
    pub servers: NodeSel,
    /// Number of users.
    pub users: u32,
    /// Connections open at once for a page's embedded objects (default 4).
    pub parallel: Option<u32>,
    /// Probability that a page's objects go over up to `parallel` persistent connections (default 0).
    pub persistent: Option<f64>,
    /// Seconds between the end of a page and the next request (default SURGE's Pareto, k 1 s, α 1.5).
    pub think_time: Option<DistSpec>,
    /// Objects on a page, the top-level one included, rounded down (default SURGE's Pareto, k 1, α 2.43).
    pub objects_per_page: Option<DistSpec>,
    /// Consecutive pages from one server, rounded down (default 1: every page picks a server afresh).
    pub pages_per_server: Option<DistSpec>,
    /// Response bytes (default `{ kind = "surge" }`; also `{ kind = "packmime", rate = R }`).
    pub response_size: Option<DistSpec>,
    /// Request bytes (default `{ kind = "packmime" }`, PackMime's request-size marginal).
    pub request_size: Option<DistSpec>,
    /// Users start after a first think time drawn from `start`; no page starts at or after `stop`.
    #[serde(default)]
    pub start: Duration,
    pub stop: Option<Duration>,
    /// Traffic class of the request/response pairs (default: the generator's name).
    pub class: Option<String>,
    /// Traffic class of the page records (default: `{class}.page`).
    pub page_class: Option<String>,
    /// TCP options overriding the top-level `[tcp]` table.
    pub tcp: Option<toml::Table>,
}

/// A distribution of a `[[web_users]]` quantity: seconds, bytes or a count.
#[derive(Clone, Debug, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum DistSpec {
    Constant {
        value: f64,
    },
    Exponential {
        mean: f64,
    },
    Pareto {
        scale: f64,
        shape: f64,
    },
    Lognormal {
        mu: f64,
        sigma: f64,
    },
    Weibull {
        scale: f64,
        shape: f64,
    },
    /// A lognormal body below `cutoff` and a Pareto tail above it (continuous at `cutoff`).
    LognormalPareto {
        mu: f64,
        sigma: f64,
        cutoff: f64,
        shape: f64,
    },
    /// SURGE's response sizes: `lognormal_pareto` with mu 9.357, sigma 1.318, cutoff 133000, shape 1.1.
    Surge {},
    /// PackMime-HTTP's response sizes (at connection rate `rate`) or request sizes (i.i.d.).
    Packmime {
        rate: Option<f64>,
    },
    /// A CSV file of `value,cumulative_probability` lines, relative to the scenario file.
    Empirical {
        file: String,
    },
}

fn default_http_version() -> String {
    "1.1".into()
}
fn default_true() -> bool {
    true
}

/// A DelayBox: every packet of a flow whose source or destination host it serves is held for the
/// flow's own delay, drawn once per flow. A node may hold several boxes (e.g. one for its client
/// hosts, one for its server hosts) as long as each host is served by one box only.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DelayBoxSpec {
    pub node: String,
    /// Hosts whose flows are delayed (default: the nodes linked to `node` that have no other link).
    pub serves: Option<NodeSel>,
    pub delay: DelaySpec,
    /// Which packets of a served flow are delayed.
    #[serde(default)]
    pub direction: DelayDirection,
    /// Draw the two directions' delays independently. ns-2.35's DelayBox does not (its `symmetric_`
    /// default gives the SYN-ACK's direction the SYN's delay), so scenarios mirroring ns-2 leave it off.
    #[serde(default)]
    pub per_direction: bool,
}

#[derive(Clone, Copy, Debug, Deserialize, Default, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum DelayDirection {
    /// Packets to and from the served host (ns-2's symmetric DelayBox).
    #[default]
    Both,
    /// Only packets sent by the served host (study L's dummynet on the browsers).
    FromServed,
    /// Only packets sent to the served host.
    ToServed,
}

/// The per-flow delay distribution of a DelayBox.
#[derive(Clone, Debug, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum DelaySpec {
    Constant {
        value: Duration,
    },
    /// Whole milliseconds, uniform on [low_ms, high_ms] (study L: 10..150).
    UniformMs {
        low_ms: u32,
        high_ms: u32,
    },
    /// PackMime's RTT model (ns-2 `PackMimeHTTPXmit`), half applied at each of the two boxes of a flow.
    PackmimeRtt {
        side: RttSideSpec,
        rate: f64,
    },
    /// An empirical CDF: a CSV file of `delay_ms,cumulative_probability` lines, relative to the scenario.
    Empirical {
        file: String,
    },
}

#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum RttSideSpec {
    Client,
    Server,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StopSpec {
    /// Stop after this many request/response pairs started after the warm-up have completed...
    pub after_pairs: u64,
    /// ...counting only this traffic class (default: every class).
    pub class: Option<String>,
}

/// Applies `key=value` overrides to a TOML document. Keys are dotted paths; array elements are
/// numbers (`flows.0.tcp.ecn=true`). Values are TOML (`3`, `"red"`, `{ kind = "pi" }`); anything that
/// does not parse as TOML is taken as a string.
pub fn apply_overrides(text: &str, overrides: &[String], file: &str) -> Result<String, ScenarioError> {
    if overrides.is_empty() {
        return Ok(text.to_string());
    }
    let mut doc: toml_edit::DocumentMut = text.parse().map_err(|e: toml_edit::TomlError| ScenarioError {
        file: file.into(),
        line: e.span().map(|s| text[..s.start].matches('\n').count() + 1),
        path: String::new(),
        message: toml_message(e.message()),
    })?;
    for ov in overrides {
        let err =
            |m: String| ScenarioError { file: "--set".into(), line: None, path: ov.clone(), message: m };
        let (key, value) = ov.split_once('=').ok_or_else(|| err("expected key=value".into()))?;
        let value: toml_edit::Value =
            value.trim().parse().unwrap_or_else(|_| toml_edit::Value::from(value.trim()));
        let parts: Vec<&str> = key.trim().split('.').collect();
        let mut item = doc.as_item_mut();
        for (i, part) in parts.iter().enumerate() {
            let last = i + 1 == parts.len();
            if let Ok(idx) = part.parse::<usize>() {
                let len = match &*item {
                    toml_edit::Item::ArrayOfTables(a) => a.len(),
                    toml_edit::Item::Value(toml_edit::Value::Array(a)) => a.len(),
                    _ => return Err(err(format!("`{part}` indexes something that is not an array"))),
                };
                if idx >= len {
                    return Err(err(format!("index {idx} is out of range (the array has {len} entries)")));
                }
                item = &mut item[idx];
            } else {
                if !item.is_table_like() {
                    return Err(err(format!("`{part}` is inside a value that is not a table")));
                }
                if item.get(part).is_none() {
                    item[part] = if last { toml_edit::Item::None } else { toml_edit::table() };
                }
                item = &mut item[part];
            }
            if last {
                *item = toml_edit::Item::Value(value.clone());
            }
        }
    }
    Ok(doc.to_string())
}

/// Parses scenario text; `file` is used in error messages.
pub fn parse(text: &str, file: &str) -> Result<Scenario, ScenarioError> {
    let first = match deserialize(text) {
        Ok(s) => return Ok(s),
        Err(e) => e,
    };
    // A table tagged by `kind` (`tagged.rs`) reads the fields written before `kind` with the table's path
    // only: read again with `kind` first in every table, each field is read with its own path. The
    // paths are the same in both texts, so lines are looked up in `text`.
    let (kind_first, (path, inner)) = match locate::kind_first(text).map(|t| (deserialize(&t), t)) {
        Some((Err(e), t)) => (Some(t), e),
        _ => (None, first),
    };
    let searched = kind_first.as_deref().unwrap_or(text);
    // A table tagged by serde (`delay = { kind = "uniform_ms", low_ms = -3 }`) is read whole before its
    // fields, so its errors carry the table's path only: the field at fault is the one whose removal
    // clears it.
    let at_fault = locate::without_each_key(searched, &path)
        .into_iter()
        .find(|(key, rest)| key != "kind" && deserialize(rest).err().is_none_or(|(other, _)| other != path));
    let (path, line) = match at_fault {
        Some((key, _)) => {
            let path = if path == "." { key } else { format!("{path}.{key}") };
            let line = locate::line_of(text, &path);
            (path, line)
        }
        None => {
            let span_line =
                || inner.span().map(|s| text[..s.start.min(text.len())].matches('\n').count() + 1);
            let line = match kind_first {
                Some(_) => locate::line_of(text, &path),
                None => span_line().or_else(|| locate::line_of(text, &path)),
            };
            let path = match path.as_str() {
                // A top-level field that is missing is named by the message, not by any line.
                "." => missing_field(inner.message())
                    .or_else(|| line.and_then(|l| locate::path_on_line(text, l)))
                    .unwrap_or_default(),
                _ => path,
            };
            (path, line)
        }
    };
    Err(ScenarioError { file: file.into(), line, path, message: toml_message(inner.message()) })
}

/// `X` of serde's "missing field `X`".
fn missing_field(message: &str) -> Option<String> {
    message.trim().strip_prefix("missing field `")?.strip_suffix('`').map(str::to_string)
}

/// The TOML parser's message, or what was expected where it gives none (`key =` with no value).
fn toml_message(message: &str) -> String {
    match message.trim() {
        "" => "a value (a number, a quoted string such as \"10ms\", an array or an inline table)".into(),
        m => m.to_string(),
    }
}

/// The scenario, or the path of the field at fault and the error.
fn deserialize(text: &str) -> Result<Scenario, (String, toml::de::Error)> {
    serde_path_to_error::deserialize(toml::Deserializer::new(text))
        .map_err(|e| (e.path().to_string(), e.into_inner()))
}

#[cfg(test)]
mod tests {
    use super::*;

    const MINIMAL: &str = r#"
duration = "1s"
[[links]]
a = "x"
b = "y"
rate = "10Mbps"
delay = "1ms"
"#;

    /// The error `parse` gives for `text`, which must say `message`.
    fn refused(text: &str, message: &str) -> ScenarioError {
        let e = parse(text, "m.toml").unwrap_err();
        assert!(e.message.contains(message), "{e}");
        e
    }

    #[test]
    fn parses_a_minimal_scenario() {
        let s = parse(MINIMAL, "m.toml").unwrap();
        assert_eq!(s.duration.0, 1_000_000_000);
        assert_eq!(s.links[0].rate.0, 10_000_000);
        assert_eq!(s.seed, 1);
    }

    #[test]
    fn unknown_field_names_file_line_and_path() {
        let e = refused(&format!("{MINIMAL}colour = \"blue\"\n"), "unknown field `colour`");
        assert_eq!((e.file.as_str(), e.line), ("m.toml", Some(8)));
        assert!(e.message.contains("expected one of"), "{e}");
    }

    #[test]
    fn wrong_type_is_reported_with_path() {
        let e = refused(&MINIMAL.replace("\"10Mbps\"", "true"), "rate");
        assert_eq!((e.path.as_str(), e.line), ("links[0].rate", Some(6)));
    }

    #[test]
    fn queue_errors_name_the_field() {
        let with_queue = |q: &str| parse(&format!("{MINIMAL}queue = {q}\n"), "m.toml");
        let cases = [
            (r#"{ kind = "codel", target = "5 parsecs" }"#, "links[0].queue.target", "a duration unit"),
            (
                r#"{ kind = "blue", ihold = true }"#,
                "links[0].queue.ihold",
                "invalid type: boolean `true`, expected a duration",
            ),
            (r#"{ kind = "pie", mean_pktsize = "big" }"#, "links[0].queue.mean_pktsize", "a size like"),
            (
                r#"{ kind = "sfq" }"#,
                "links[0].queue.kind",
                "unknown variant `sfq`, expected one of `droptail`",
            ),
            (
                r#"{ kind = "red", bogus = 1 }"#,
                "links[0].queue.bogus",
                "unknown field `bogus`, expected one of",
            ),
            (r#"{ limit = 5 }"#, "links[0].queue", "missing field `kind`"),
            // Fields before `kind` are read once the kind is known, with the table's path only; `parse`
            // then finds the field at fault by leaving each key out.
            (r#"{ bogus = 1, kind = "red" }"#, "links[0].queue.bogus", "unknown field `bogus`"),
        ];
        for (queue, path, message) in cases {
            let e = with_queue(queue).unwrap_err();
            assert_eq!((e.path.as_str(), e.line), (path, Some(8)), "{queue}: {e}");
            assert!(e.message.starts_with(message), "{queue}: {e}");
        }
        let s = with_queue(r#"{ limit = 30, kind = "codel", target = "10ms" }"#).unwrap();
        let Some(crate::aqm::QueueConfig::Codel(c)) = &s.links[0].queue else { panic!("not CoDel") };
        assert_eq!((c.limit, c.target.0), (30, 0.01));
    }

    #[test]
    fn negative_rate_is_rejected() {
        let e = refused(&MINIMAL.replace("\"10Mbps\"", "\"-10Mbps\""), "positive rate");
        assert_eq!(e.path, "links[0].rate");
    }

    /// Found by `tests/scenario_fuzz.rs`: a key with no value (a file cut after `=`) gave an empty message.
    #[test]
    fn a_key_without_a_value_says_what_was_expected() {
        let text = format!("{MINIMAL}seed =");
        let e = refused(&text, "a value");
        // The last table is `[[links]]`, so the key belongs to it.
        assert_eq!((e.line, e.path.as_str()), (Some(8), "links[0].seed"), "{e}");
        let e = apply_overrides(&text, &["seed=2".into()], "m.toml").unwrap_err();
        assert_eq!(e.line, Some(8), "{e}");
        assert!(e.message.contains("a value"), "{e}");
    }

    /// Found by `tests/scenario_fuzz.rs`: node selections and delay spreads of the wrong shape said only
    /// "data did not match any variant of untagged enum".
    #[test]
    fn node_selections_and_spreads_of_the_wrong_shape_say_what_was_expected() {
        let text = format!("{MINIMAL}[[flows]]\nkind = \"udp_cbr\"\nsrc = 1\ndst = \"y\"\nrate = 1\n");
        let e = refused(&text, "a node name (\"h1\") or a list of node names");
        assert_eq!((e.line, e.path.as_str()), (Some(10), "flows[0].src"), "{e}");
        let text = "duration = \"1s\"\n[dumbbell]\npairs = 1\nbottleneck_rate = 1\nbottleneck_delay = 0\n\
                    access_rate = 1\naccess_delay = { from = \"1ms\" }\n";
        let e = refused(text, "a duration (\"10ms\") or { from");
        assert_eq!((e.line, e.path.as_str()), (Some(7), "dumbbell.access_delay"), "{e}");
    }

    #[test]
    fn overrides_set_nested_values_and_array_elements() {
        let text = apply_overrides(
            MINIMAL,
            &["links.0.rate=\"20Mbps\"".into(), "seed=7".into(), "measure.warmup=2".into()],
            "m.toml",
        )
        .unwrap();
        let s = parse(&text, "m.toml").unwrap();
        assert_eq!(s.links[0].rate.0, 20_000_000);
        assert_eq!(s.seed, 7);
        assert_eq!(s.measure.warmup.0, 2_000_000_000);
        let e = apply_overrides(MINIMAL, &["links.3.rate=1".into()], "m.toml").unwrap_err();
        assert!(e.message.contains("out of range"));
        // A bare word is a string.
        let t = apply_overrides(MINIMAL, &["name=bench".into()], "m.toml").unwrap();
        assert_eq!(parse(&t, "m.toml").unwrap().name, "bench");
    }
}
