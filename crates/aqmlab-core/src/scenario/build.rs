//! Resolves a parsed scenario into a `Model`: numbered nodes and link directions, routes, flows with
//! their start times and TCP options. Every semantic error (unknown node, missing route, bad parameter)
//! is reported with the field path and its line in the file.

use super::{
    locate, units::Duration, DelayDirection, DelaySpec, DistSpec, FlowGroup, FlowKind, NodeSel, Pairing,
    RttSideSpec, Scenario, ScenarioError, Spread, StartSpec,
};
use crate::aqm::{LinkInfo, QueueConfig};
use crate::net::loss::LossSpec;
use crate::net::routing::Graph;
use crate::net::routing::ROUTE_END;
use crate::sim::{rng, Time};
use crate::tcp::TcpConfig;
use crate::traffic::web_users::{self, Dist};
use rand::Rng as _;
use std::collections::HashMap;

/// One direction of a link.
#[derive(Clone, Debug)]
pub struct LinkModel {
    /// `"A->B"`.
    pub name: String,
    pub from: u32,
    pub to: u32,
    pub info: LinkInfo,
    pub queue: QueueConfig,
    pub loss: Option<LossSpec>,
}

#[derive(Clone, Debug)]
pub enum FlowModelKind {
    TcpBulk { tcp: u16, bytes: Option<u64> },
    TcpFiles { tcp: u16, rate: f64, mean: f64, shape: f64 },
    Udp { size: u32, interval: Time, poisson: bool, stop: Time },
}

/// One direction pair a generator can place a connection on.
#[derive(Clone, Copy, Debug)]
pub struct Placement {
    pub client: u32,
    pub server: u32,
    /// Route client → server and server → client.
    pub route: u32,
    pub reverse_route: u32,
}

#[derive(Clone, Debug)]
pub struct HttpModel {
    pub name: String,
    /// Names the generator's random streams (`http/{stream}`, `tcp/{stream}/{serial}`): its name, or
    /// `{name}/{k}` if an earlier group or generator has that name (see [`FlowModel::name`]).
    pub stream: String,
    pub class: u16,
    pub tcp: u16,
    pub placements: Vec<Placement>,
    pub rate: f64,
    pub persistent: bool,
    pub lrd: bool,
    pub start: Time,
    pub stop: Time,
}

/// Where a `[[web_users]]` generator's sizes come from.
#[derive(Clone, Debug, PartialEq)]
pub enum SizeSpec {
    Dist(Dist),
    /// PackMime-HTTP's sampler (response sizes at this connection rate, or request sizes).
    Packmime(f64),
}

/// A closed-loop web-user generator (docs/traffic.md#closed-loop-web-users).
#[derive(Clone, Debug)]
pub struct WebUsersModel {
    pub name: String,
    /// Names the generator's random streams (`web_users/{stream}`, `tcp/{stream}/{serial}`), as
    /// [`HttpModel::stream`].
    pub stream: String,
    pub class: u16,
    pub page_class: u16,
    pub tcp: u16,
    /// Client and server nodes; `placements[c * servers + s]` joins client c to server s.
    pub clients: u32,
    pub servers: u32,
    pub placements: Vec<Placement>,
    pub users: u32,
    pub parallel: u32,
    pub think: Dist,
    pub objects: Dist,
    pub pages_per_server: Dist,
    pub response: SizeSpec,
    pub request: SizeSpec,
    pub start: Time,
    pub stop: Time,
}

#[derive(Clone, Debug)]
pub enum DelayDist {
    Constant(Time),
    UniformMs(u32, u32),
    PackmimeRtt {
        client: bool,
        rate: f64,
    },
    /// (delay in ns, cumulative probability) knots, increasing.
    Empirical(Vec<(f64, f64)>),
}

#[derive(Clone, Debug)]
pub struct DelayBoxModel {
    pub node: u32,
    /// Per node: whether this box serves flows to or from it.
    pub serves: Vec<bool>,
    pub delay: DelayDist,
    pub direction: DelayDirection,
    pub per_direction: bool,
}

#[derive(Clone, Debug)]
pub struct FlowModel {
    /// `group/index`: names the flow's random streams, so adding or reordering groups leaves every
    /// other flow's random numbers unchanged. Flow groups and HTTP generators share the `tcp/` streams,
    /// so a group or generator whose name an earlier one already has is keyed `{name}/{k}` instead
    /// (k = 1, 2, …): the first keeps its name, and scenarios with distinct names draw as before.
    pub name: String,
    pub group: String,
    pub class: u16,
    pub src: u32,
    pub dst: u32,
    /// Route of packets src → dst and of packets dst → src (ACKs).
    pub route: u32,
    pub reverse_route: u32,
    pub start: Time,
    pub kind: FlowModelKind,
}

#[derive(Clone, Debug)]
pub struct Model {
    pub name: String,
    pub seed: u64,
    pub duration: Time,
    pub warmup: Time,
    pub sample_interval: Time,
    pub nodes: Vec<String>,
    pub links: Vec<LinkModel>,
    /// Every route's link directions in turn, each route followed by [`ROUTE_END`]; a route is named
    /// by the index of its first entry, and a packet moves along it one entry per hop.
    pub routes: Vec<u32>,
    pub tcp_configs: Vec<TcpConfig>,
    pub classes: Vec<String>,
    pub flows: Vec<FlowModel>,
    pub sample_links: Vec<u32>,
    pub trace_cwnd: Vec<u32>,
    pub http: Vec<HttpModel>,
    pub web_users: Vec<WebUsersModel>,
    pub delayboxes: Vec<DelayBoxModel>,
    /// Stop once this many pairs (of this class, or any) have completed.
    pub stop_after: Option<(Option<u16>, u64)>,
    pub pair_records: bool,
    /// Settings that are legal but probably not meant (a flow starting after the end), located like
    /// errors; reported by `validate` and kept in the run's summary.
    pub warnings: Vec<ScenarioError>,
}

struct Ctx<'a> {
    text: &'a str,
    file: &'a str,
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
}

/// Builds the model; `text` and `file` locate errors.
pub fn build(s: &Scenario, text: &str, file: &str) -> Result<Model, ScenarioError> {
    let cx = Ctx { text, file };
    if s.duration.0 == 0 {
        return Err(cx.err("duration", "a positive duration"));
    }
    if s.measure.warmup >= s.duration {
        return Err(cx.err("measure.warmup", "a warm-up shorter than the duration"));
    }
    if s.measure.sample_interval.0 == 0 {
        return Err(cx.err("measure.sample_interval", "a positive interval"));
    }
    // A packet on a link or in a DelayBox for the whole run never arrives: no result would mean anything.
    let within_run = |path: &str, delay: Duration| {
        if delay >= s.duration {
            return Err(cx.err(
                path,
                format!(
                    "a delay shorter than the run (duration = {} s), found {} s",
                    s.duration.secs(),
                    delay.secs()
                ),
            ));
        }
        Ok(())
    };
    for (i, l) in s.links.iter().enumerate() {
        within_run(&format!("links[{i}].delay"), l.delay)?;
    }
    let mut warnings = Vec::new();

    // Nodes: declared ones first, then in order of first mention by a link.
    let mut nodes: Vec<String> = Vec::new();
    let mut index: HashMap<String, u32> = HashMap::new();
    let mut add_node = |name: &str, nodes: &mut Vec<String>| -> u32 {
        *index.entry(name.to_string()).or_insert_with(|| {
            nodes.push(name.to_string());
            (nodes.len() - 1) as u32
        })
    };
    for n in &s.nodes {
        add_node(&n.name, &mut nodes);
    }
    let mut specs: Vec<(String, super::LinkSpec)> =
        s.links.iter().enumerate().map(|(i, l)| (format!("links[{i}]"), l.clone())).collect();
    if let Some(d) = &s.dumbbell {
        if d.pairs == 0 {
            return Err(cx.err("dumbbell.pairs", "at least 1 pair of hosts"));
        }
        within_run("dumbbell.bottleneck_delay", d.bottleneck_delay)?;
        match d.access_delay {
            Spread::Fixed(delay) => within_run("dumbbell.access_delay", delay)?,
            Spread::Linear { from, to } => {
                if to < from {
                    return Err(cx.err(
                        "dumbbell.access_delay.to",
                        format!(
                            "a delay at least `from` ({} s): the spread rises from the first pair's delay to \
                             the last's, found {} s",
                            from.secs(),
                            to.secs()
                        ),
                    ));
                }
                within_run("dumbbell.access_delay.to", to)?;
            }
        }
        specs.extend(d.links().into_iter().map(|l| ("dumbbell".to_string(), l)));
    }
    if specs.is_empty() {
        return Err(cx.err("links", "at least one link (a [[links]] table or a [dumbbell])"));
    }

    let mut links = Vec::with_capacity(specs.len() * 2);
    let mut joined_by: HashMap<(u32, u32), &str> = HashMap::new();
    for (path, l) in &specs {
        if l.a == l.b {
            return Err(
                cx.err(format!("{path}.b"), format!("a node other than `{}` (a link joins two nodes)", l.a))
            );
        }
        let a = add_node(&l.a, &mut nodes);
        let b = add_node(&l.b, &mut nodes);
        if let Some(first) = joined_by.insert((a.min(b), a.max(b)), path) {
            return Err(cx.err(
                path.as_str(),
                format!("one link between `{}` and `{}`; {first} already joins them", l.a, l.b),
            ));
        }
        if l.queue.is_some() && (l.queue_ab.is_some() || l.queue_ba.is_some()) {
            return Err(cx.err(
                format!("{path}.queue"),
                "either `queue` (both directions) or `queue_ab`/`queue_ba`, not both: `queue` would not \
                 apply to a direction they set",
            ));
        }
        let info = LinkInfo { rate_bps: l.rate.0, delay: l.delay.0 };
        let default_q = l.queue.clone().unwrap_or_default();
        let directions = [
            (a, b, &l.queue_ab, "queue_ab", &l.loss_ab, "loss_ab"),
            (b, a, &l.queue_ba, "queue_ba", &l.loss_ba, "loss_ba"),
        ];
        for (from, to, q, field, loss, loss_field) in directions {
            if let Some(Err((f, expected))) = loss.as_ref().map(LossSpec::validate) {
                return Err(cx.err(format!("{path}.{loss_field}.{f}"), expected));
            }
            let queue = q.clone().unwrap_or_else(|| default_q.clone());
            if let Err((f, expected)) = queue.validate() {
                let field = if q.is_some() { field } else { "queue" };
                return Err(cx.err(format!("{path}.{field}.{f}"), expected));
            }
            links.push(LinkModel {
                name: format!("{}->{}", nodes[from as usize], nodes[to as usize]),
                from,
                to,
                info,
                queue,
                loss: loss.clone(),
            });
        }
    }
    let graph = Graph::new(nodes.len(), links.iter().map(|l| (l.from, l.to)));
    let node_id = |name: &str, path: &str| -> Result<u32, ScenarioError> {
        index.get(name).copied().ok_or_else(|| {
            cx.err(
                path,
                format!("a node name; `{name}` is not a node of this scenario (nodes: {})", preview(&nodes)),
            )
        })
    };

    // Explicit routes override shortest paths for their (from, to) pair.
    let mut explicit: HashMap<(u32, u32), Vec<u32>> = HashMap::new();
    for (i, r) in s.routes.iter().enumerate() {
        let path = format!("routes[{i}]");
        if r.path.len() < 2 || r.path.first() != Some(&r.from) || r.path.last() != Some(&r.to) {
            return Err(
                cx.err(format!("{path}.path"), "a list of nodes starting with `from` and ending with `to`")
            );
        }
        let mut hops = Vec::new();
        for (k, w) in r.path.windows(2).enumerate() {
            let a = node_id(&w[0], &format!("{path}.path[{k}]"))?;
            let b = node_id(&w[1], &format!("{path}.path[{}]", k + 1))?;
            hops.push(graph.link_between(a, b).ok_or_else(|| {
                cx.err(
                    format!("{path}.path[{}]", k + 1),
                    format!("a neighbour of `{}`; no link joins it to `{}`", w[0], w[1]),
                )
            })?);
        }
        explicit.insert(
            (node_id(&r.from, &format!("{path}.from"))?, node_id(&r.to, &format!("{path}.to"))?),
            hops,
        );
    }
    let mut routes: Vec<u32> = Vec::new();
    let mut route_ids: HashMap<(u32, u32), u32> = HashMap::new();
    let mut route = |src: u32, dst: u32, path: &str| -> Result<u32, ScenarioError> {
        if let Some(&id) = route_ids.get(&(src, dst)) {
            return Ok(id);
        }
        let hops = match explicit.get(&(src, dst)) {
            Some(h) => h.clone(),
            None => graph.shortest_path(src, dst).ok_or_else(|| {
                cx.err(path, format!("a destination reachable from `{}`; there is no route to `{}` (add links or a [[routes]] entry)", nodes[src as usize], nodes[dst as usize]))
            })?,
        };
        let id = routes.len() as u32;
        routes.extend(hops);
        routes.push(ROUTE_END);
        route_ids.insert((src, dst), id);
        Ok(id)
    };

    // TCP options: the top-level table, overridden field by field by each group's; equal
    // configurations share one entry.
    let base_tcp = s.tcp.clone().unwrap_or_default();
    // The shared table alone must be valid, so its errors point at `tcp.<field>`, not at a group.
    let base: TcpConfig =
        serde_path_to_error::deserialize(toml::Value::Table(base_tcp.clone())).map_err(|e| {
            let field = e.path().to_string();
            cx.err(format!("tcp.{field}"), e.into_inner().message().trim().to_string())
        })?;
    if let Err((f, expected)) = base.validate() {
        return Err(cx.err(format!("tcp.{f}"), expected));
    }
    let mut tcp_configs: Vec<TcpConfig> = Vec::new();
    let tcp_config = |own: &Option<toml::Table>, path: &str, configs: &mut Vec<TcpConfig>| {
        let mut table = base_tcp.clone();
        if let Some(t) = own {
            table.extend(t.clone());
        }
        let cfg: TcpConfig = serde_path_to_error::deserialize(toml::Value::Table(table)).map_err(|e| {
            let field = e.path().to_string();
            cx.err(format!("{path}.tcp.{field}"), e.into_inner().message().trim().to_string())
        })?;
        if let Err((f, expected)) = cfg.validate() {
            return Err(cx.err(format!("{path}.tcp.{f}"), expected));
        }
        Ok::<u16, ScenarioError>(match configs.iter().position(|c| *c == cfg) {
            Some(i) => i as u16,
            None => {
                configs.push(cfg);
                (configs.len() - 1) as u16
            }
        })
    };
    let mut classes: Vec<String> = Vec::new();
    let class_id = |name: String, classes: &mut Vec<String>| -> u16 {
        match classes.iter().position(|c| *c == name) {
            Some(c) => c as u16,
            None => {
                classes.push(name);
                (classes.len() - 1) as u16
            }
        }
    };
    let mut flows = Vec::new();
    let mut stream_keys = rng::StreamNames::default();
    for (g, group) in s.flows.iter().enumerate() {
        let path = format!("flows[{g}]");
        let name = if group.name.is_empty() { format!("group{g}") } else { group.name.clone() };
        let class = class_id(group.class.clone().unwrap_or_else(|| name.clone()), &mut classes);
        let pairs = endpoints(group, s, &path, &cx)?;
        let count = match (group.count, &group.between) {
            (Some(0), _) => return Err(cx.err(format!("{path}.count"), "at least 1 flow")),
            (Some(c), _) => c,
            (None, Some(_)) => pairs.len() as u32,
            (None, None) => 1,
        };
        let kind = match group.kind {
            FlowKind::TcpBulk => FlowModelKind::TcpBulk {
                tcp: tcp_config(&group.tcp, &path, &mut tcp_configs)?,
                bytes: group.bytes.map(|b| b.0),
            },
            FlowKind::TcpFiles => {
                let rate = group.file_rate.filter(|r| r.is_finite() && *r > 0.0).ok_or_else(|| {
                    cx.err(format!("{path}.file_rate"), "a positive number of files per second")
                })?;
                let shape = group.file_shape.unwrap_or(1.3);
                if !(shape > 1.0 && shape.is_finite()) {
                    return Err(cx.err(format!("{path}.file_shape"), "a Pareto shape above 1 (finite mean)"));
                }
                let mean = group.file_mean.map(|b| b.0).unwrap_or(50_000);
                if mean == 0 {
                    return Err(cx.err(format!("{path}.file_mean"), "a positive mean file size"));
                }
                FlowModelKind::TcpFiles {
                    tcp: tcp_config(&group.tcp, &path, &mut tcp_configs)?,
                    rate,
                    mean: mean as f64,
                    shape,
                }
            }
            FlowKind::UdpCbr | FlowKind::UdpPoisson => {
                let rate = group
                    .rate
                    .ok_or_else(|| cx.err(format!("{path}.rate"), "a sending rate for a UDP flow group"))?;
                let size = group.packet_size.map(|b| b.0).unwrap_or(1000);
                if size == 0 || size > 65_535 {
                    return Err(
                        cx.err(format!("{path}.packet_size"), "a datagram size between 1 and 65535 bytes")
                    );
                }
                FlowModelKind::Udp {
                    size: size as u32,
                    interval: crate::sim::time::tx_time(size as u32, rate.0),
                    poisson: group.kind == FlowKind::UdpPoisson,
                    stop: group.stop.map(|d| d.0).unwrap_or(s.duration.0),
                }
            }
        };
        let key = stream_keys.claim(name.clone());
        let mut start_rng = rng::stream(s.seed, &format!("group/{key}/start"));
        for i in 0..count {
            let (src_name, dst_name) = &pairs[i as usize % pairs.len()];
            let src = node_id(src_name, &format!("{path}.src"))?;
            let dst = node_id(dst_name, &format!("{path}.dst"))?;
            if src == dst {
                return Err(
                    cx.err(format!("{path}.dst"), format!("a node other than the source `{src_name}`"))
                );
            }
            let start = match &group.start {
                StartSpec::At(d) => d.0,
                StartSpec::Spread { spread } => (spread.0 as u128 * i as u128 / count as u128) as Time,
                StartSpec::Uniform { uniform: [lo, hi] } => {
                    if hi < lo {
                        return Err(cx.err(
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
                route: route(src, dst, &format!("{path}.dst"))?,
                reverse_route: route(dst, src, &format!("{path}.src"))?,
                start,
                kind: kind.clone(),
            });
        }
        let late = flows.iter().rev().take(count as usize).filter(|f| f.start >= s.duration.0).count();
        if late > 0 {
            warnings.push(cx.err(
                format!("{path}.start"),
                format!(
                    "{late} of the group's {count} flows start at or after the end of the run (duration = {} \
                     s) and send nothing",
                    s.duration.secs()
                ),
            ));
        }
    }

    // Every client with every server of a web generator (`[[http]]`, `[[web_users]]`), routed both ways.
    let mut placements_between =
        |clients: &[String], servers: &[String], path: &str| -> Result<Vec<Placement>, ScenarioError> {
            let mut placements = Vec::new();
            for c in clients {
                for sv in servers {
                    let client = node_id(c, &format!("{path}.clients"))?;
                    let server = node_id(sv, &format!("{path}.servers"))?;
                    if client == server {
                        return Err(
                            cx.err(format!("{path}.servers"), format!("a node other than the client `{c}`"))
                        );
                    }
                    placements.push(Placement {
                        client,
                        server,
                        route: route(client, server, &format!("{path}.servers"))?,
                        reverse_route: route(server, client, &format!("{path}.clients"))?,
                    });
                }
            }
            Ok(placements)
        };

    let mut http = Vec::new();
    for (g, spec) in s.http.iter().enumerate() {
        let path = format!("http[{g}]");
        let name = if spec.name.is_empty() { format!("http{g}") } else { spec.name.clone() };
        if !(spec.rate.is_finite() && spec.rate > 0.0) {
            return Err(cx.err(format!("{path}.rate"), "a positive number of new connections per second"));
        }
        let persistent = match spec.version.as_str() {
            "1.1" => true,
            "1.0" => false,
            v => return Err(cx.err(format!("{path}.version"), format!("\"1.0\" or \"1.1\", found {v:?}"))),
        };
        let placements = placements_between(&spec.clients.names(), &spec.servers.names(), &path)?;
        if placements.is_empty() {
            return Err(cx.err(format!("{path}.clients"), "at least one client and one server node"));
        }
        if spec.start >= s.duration {
            warnings.push(cx.err(
                format!("{path}.start"),
                format!(
                    "the generator starts at or after the end of the run (duration = {} s) and opens no \
                     connection",
                    s.duration.secs()
                ),
            ));
        }
        http.push(HttpModel {
            class: class_id(spec.class.clone().unwrap_or_else(|| name.clone()), &mut classes),
            stream: stream_keys.claim(name.clone()),
            name,
            tcp: tcp_config(&spec.tcp, &path, &mut tcp_configs)?,
            placements,
            rate: spec.rate,
            persistent,
            lrd: spec.lrd,
            start: spec.start.0,
            stop: spec.stop.map(|d| d.0).unwrap_or(s.duration.0),
        });
    }

    let mut web_users = Vec::new();
    for (g, spec) in s.web_users.iter().enumerate() {
        let path = format!("web_users[{g}]");
        let name = if spec.name.is_empty() { format!("web_users{g}") } else { spec.name.clone() };
        if spec.users == 0 {
            return Err(cx.err(format!("{path}.users"), "at least 1 user"));
        }
        let parallel = spec.parallel.unwrap_or(web_users::DEFAULT_PARALLEL);
        if parallel == 0 {
            return Err(cx.err(format!("{path}.parallel"), "at least 1 connection"));
        }
        let (clients, servers) = (spec.clients.names(), spec.servers.names());
        if clients.is_empty() {
            return Err(cx.err(format!("{path}.clients"), "at least one client node"));
        }
        if servers.is_empty() {
            return Err(cx.err(format!("{path}.servers"), "at least one server node"));
        }
        let placements = placements_between(&clients, &servers, &path)?;
        let dist = |field: &str, spec: &Option<DistSpec>, default: Dist| match spec {
            None => Ok(default),
            Some(DistSpec::Surge {} | DistSpec::Packmime { .. }) => Err(cx.err(
                format!("{path}.{field}.kind"),
                "constant, exponential, pareto, lognormal, weibull or lognormal_pareto (`surge` and \
                 `packmime` are size models)",
            )),
            Some(d) => match web_dist(d, &format!("{path}.{field}"), &cx)? {
                SizeSpec::Dist(d) => Ok(d),
                SizeSpec::Packmime(_) => unreachable!("checked above"),
            },
        };
        let think = dist(
            "think_time",
            &spec.think_time,
            Dist::Pareto { scale: web_users::SURGE_THINK_SCALE, shape: web_users::SURGE_THINK_SHAPE },
        )?;
        let objects = dist(
            "objects_per_page",
            &spec.objects_per_page,
            Dist::Pareto { scale: web_users::SURGE_OBJECTS_SCALE, shape: web_users::SURGE_OBJECTS_SHAPE },
        )?;
        let pages_per_server = dist("pages_per_server", &spec.pages_per_server, Dist::Constant(1.0))?;
        let response = match &spec.response_size {
            None => SizeSpec::Dist(Dist::surge_sizes()),
            Some(d) => web_dist(d, &format!("{path}.response_size"), &cx)?,
        };
        if let (SizeSpec::Packmime(r), Some(DistSpec::Packmime { rate: None })) =
            (&response, &spec.response_size)
        {
            debug_assert!(r.is_nan());
            return Err(cx.err(
                format!("{path}.response_size.rate"),
                "PackMime's connection rate (its response sizes depend on it), e.g. { kind = \"packmime\", \
                 rate = 15 }",
            ));
        }
        let request = match &spec.request_size {
            None => SizeSpec::Packmime(1.0),
            Some(d) => match web_dist(d, &format!("{path}.request_size"), &cx)? {
                // With i.i.d. drivers the request-size marginal does not depend on the rate.
                SizeSpec::Packmime(_) => SizeSpec::Packmime(1.0),
                other => other,
            },
        };
        if spec.start >= s.duration {
            warnings.push(cx.err(
                format!("{path}.start"),
                format!(
                    "the users start at or after the end of the run (duration = {} s) and request nothing",
                    s.duration.secs()
                ),
            ));
        }
        let class = class_id(spec.class.clone().unwrap_or_else(|| name.clone()), &mut classes);
        let page_class_name =
            spec.page_class.clone().unwrap_or_else(|| format!("{}.page", classes[class as usize]));
        if page_class_name == classes[class as usize] {
            return Err(cx.err(
                format!("{path}.page_class"),
                format!("a class other than the pairs' class `{page_class_name}`"),
            ));
        }
        web_users.push(WebUsersModel {
            class,
            page_class: class_id(page_class_name, &mut classes),
            stream: stream_keys.claim(name.clone()),
            name,
            tcp: tcp_config(&spec.tcp, &path, &mut tcp_configs)?,
            clients: clients.len() as u32,
            servers: servers.len() as u32,
            placements,
            users: spec.users,
            parallel,
            think,
            objects,
            pages_per_server,
            response,
            request,
            start: spec.start.0,
            stop: spec.stop.map(|d| d.0).unwrap_or(s.duration.0),
        });
    }

    let mut delayboxes: Vec<DelayBoxModel> = Vec::new();
    let mut served_by: Vec<Option<usize>> = vec![None; nodes.len()];
    for (b, spec) in s.delaybox.iter().enumerate() {
        let path = format!("delaybox[{b}]");
        let node = node_id(&spec.node, &format!("{path}.node"))?;
        let served: Vec<u32> = match &spec.serves {
            Some(sel) => {
                sel.names().iter().map(|n| node_id(n, &format!("{path}.serves"))).collect::<Result<_, _>>()?
            }
            None => (0..nodes.len() as u32)
                .filter(|&v| graph.link_between(node, v).is_some() && graph.degree(v) == 1)
                .collect(),
        };
        if served.is_empty() {
            return Err(match spec.serves {
                Some(_) => cx.err(format!("{path}.serves"), "at least one host to serve"),
                None => cx.err(
                    format!("{path}.node"),
                    format!(
                        "a node linked to hosts (nodes with no other link); `{}` has none, so the box would \
                         delay nothing (name its hosts with `serves`)",
                        spec.node
                    ),
                ),
            });
        }
        let mut serves = vec![false; nodes.len()];
        for v in served {
            if let Some(other) = served_by[v as usize] {
                return Err(cx.err(
                    format!("{path}.serves"),
                    format!(
                        "hosts served by one DelayBox only; `{}` is also served by delaybox[{other}]",
                        nodes[v as usize]
                    ),
                ));
            }
            served_by[v as usize] = Some(b);
            serves[v as usize] = true;
        }
        let delay = match &spec.delay {
            DelaySpec::Constant { value } => {
                within_run(&format!("{path}.delay.value"), *value)?;
                DelayDist::Constant(value.0)
            }
            DelaySpec::UniformMs { low_ms, high_ms } => {
                if low_ms > high_ms {
                    return Err(cx.err(format!("{path}.delay.high_ms"), "high_ms >= low_ms"));
                }
                DelayDist::UniformMs(*low_ms, *high_ms)
            }
            DelaySpec::PackmimeRtt { side, rate } => {
                if !(rate.is_finite() && *rate > 0.0) {
                    return Err(
                        cx.err(format!("{path}.delay.rate"), "the PackMime connection rate (positive)")
                    );
                }
                DelayDist::PackmimeRtt { client: *side == RttSideSpec::Client, rate: *rate }
            }
            DelaySpec::Empirical { file } => DelayDist::Empirical(
                read_cdf(file, cx.file).map_err(|m| cx.err(format!("{path}.delay.file"), m))?,
            ),
        };
        let per_direction = spec.per_direction;
        delayboxes.push(DelayBoxModel { node, serves, delay, direction: spec.direction, per_direction });
    }

    let stop_after = match &s.stop {
        None => None,
        Some(st) => {
            if st.after_pairs == 0 {
                return Err(cx.err("stop.after_pairs", "a positive number of pairs"));
            }
            let class = match &st.class {
                None => None,
                Some(c) => Some(classes.iter().position(|x| x == c).ok_or_else(|| {
                    cx.err(
                        "stop.class",
                        format!(
                            "a traffic class of this scenario ({}); `{c}` is not one",
                            classes.join(", ")
                        ),
                    )
                })? as u16),
            };
            Some((class, st.after_pairs))
        }
    };

    let link_index = |name: &str, path: &str| -> Result<u32, ScenarioError> {
        links.iter().position(|l| l.name == name).map(|i| i as u32).ok_or_else(|| {
            cx.err(path, format!("a link direction such as `{}`; `{name}` is not one", links[0].name))
        })
    };
    let mut sample_links = Vec::new();
    for (i, name) in s.measure.sample_links.iter().enumerate() {
        if name == "all" {
            sample_links = (0..links.len() as u32).collect();
            break;
        }
        sample_links.push(link_index(name, &format!("measure.sample_links[{i}]"))?);
    }
    for (i, &f) in s.measure.trace_cwnd.iter().enumerate() {
        if f as usize >= flows.len() {
            return Err(
                cx.err(format!("measure.trace_cwnd[{i}]"), format!("a flow id below {}", flows.len()))
            );
        }
    }

    Ok(Model {
        name: s.name.clone(),
        seed: s.seed,
        duration: s.duration.0,
        warmup: s.measure.warmup.0,
        sample_interval: s.measure.sample_interval.0,
        nodes,
        links,
        routes,
        tcp_configs,
        classes,
        flows,
        sample_links,
        trace_cwnd: s.measure.trace_cwnd.clone(),
        http,
        web_users,
        delayboxes,
        stop_after,
        pair_records: s.measure.pair_records,
        warnings,
    })
}

/// A `[[web_users]]` distribution, its parameters checked (`path` is the distribution's table). A
/// `packmime` size without a rate gives `SizeSpec::Packmime(NaN)`; the caller decides whether it needs one.
fn web_dist(d: &DistSpec, path: &str, cx: &Ctx) -> Result<SizeSpec, ScenarioError> {
    let positive = |field: &str, v: f64| {
        if v.is_finite() && v > 0.0 {
            Ok(v)
        } else {
            Err(cx.err(format!("{path}.{field}"), format!("a positive number, found {v}")))
        }
    };
    let finite = |field: &str, v: f64| {
        if v.is_finite() {
            Ok(v)
        } else {
            Err(cx.err(format!("{path}.{field}"), format!("a finite number, found {v}")))
        }
    };
    Ok(SizeSpec::Dist(match *d {
        DistSpec::Constant { value } => {
            if !(value.is_finite() && value >= 0.0) {
                return Err(cx.err(format!("{path}.value"), format!("a number ≥ 0, found {value}")));
            }
            Dist::Constant(value)
        }
        DistSpec::Exponential { mean } => Dist::Exponential { mean: positive("mean", mean)? },
        DistSpec::Pareto { scale, shape } => {
            Dist::Pareto { scale: positive("scale", scale)?, shape: positive("shape", shape)? }
        }
        DistSpec::Lognormal { mu, sigma } => {
            Dist::Lognormal { mu: finite("mu", mu)?, sigma: positive("sigma", sigma)? }
        }
        DistSpec::Weibull { scale, shape } => {
            Dist::Weibull { scale: positive("scale", scale)?, shape: positive("shape", shape)? }
        }
        DistSpec::LognormalPareto { mu, sigma, cutoff, shape } => {
            let (mu, sigma) = (finite("mu", mu)?, positive("sigma", sigma)?);
            let (cutoff, shape) = (positive("cutoff", cutoff)?, positive("shape", shape)?);
            if cutoff.ln() < mu {
                return Err(cx.err(
                    format!("{path}.cutoff"),
                    format!(
                        "a cutoff at or above the body's median e^mu = {:.0}, found {cutoff} (the tail then \
                         holds at most half of the mass)",
                        mu.exp()
                    ),
                ));
            }
            Dist::LognormalPareto { mu, sigma, cutoff, shape }
        }
        DistSpec::Surge {} => Dist::surge_sizes(),
        DistSpec::Packmime { rate } => {
            return Ok(SizeSpec::Packmime(match rate {
                Some(r) => positive("rate", r)?,
                None => f64::NAN,
            }))
        }
    }))
}

/// Reads an empirical CDF: lines `delay_ms,cumulative_probability`, probabilities increasing to 1.
/// `relative_to` is the scenario file, whose folder relative paths start from.
fn read_cdf(file: &str, relative_to: &str) -> Result<Vec<(f64, f64)>, String> {
    let path = std::path::Path::new(relative_to).parent().unwrap_or(std::path::Path::new(".")).join(file);
    let text = std::fs::read_to_string(&path)
        .map_err(|e| format!("a readable CDF file; {}: {e}", path.display()))?;
    let mut knots: Vec<(f64, f64)> = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let bad = || format!("lines `delay_ms,probability`; {}:{} is {line:?}", path.display(), i + 1);
        let (v, p) = line.split_once(',').ok_or_else(bad)?;
        let (v, p): (f64, f64) = (v.trim().parse().map_err(|_| bad())?, p.trim().parse().map_err(|_| bad())?);
        let v = v * 1e6; // ms -> ns
        if !(0.0..=1.0).contains(&p) || v < 0.0 || knots.last().is_some_and(|&(lv, lp)| v < lv || p < lp) {
            return Err(format!(
                "non-decreasing delays and probabilities in [0, 1]; {}:{}",
                path.display(),
                i + 1
            ));
        }
        knots.push((v, p));
    }
    if knots.last().map(|k| k.1) != Some(1.0) {
        return Err(format!("a CDF ending at probability 1 ({})", path.display()));
    }
    Ok(knots)
}

/// The (src, dst) node names a group's flows cycle through.
fn endpoints(
    g: &FlowGroup,
    s: &Scenario,
    path: &str,
    cx: &Ctx,
) -> Result<Vec<(String, String)>, ScenarioError> {
    if let Some(between) = &g.between {
        let d = match (between.as_str(), &s.dumbbell) {
            ("dumbbell", Some(d)) => d,
            ("dumbbell", None) => {
                return Err(cx.err(format!("{path}.between"), "a [dumbbell] table to place flows on"))
            }
            _ => return Err(cx.err(format!("{path}.between"), format!("\"dumbbell\", found {between:?}"))),
        };
        return Ok((0..d.pairs)
            .map(|i| {
                let (l, r) = (d.left_host(i), d.right_host(i));
                if g.reverse {
                    (r, l)
                } else {
                    (l, r)
                }
            })
            .collect());
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
        Pairing::Cross => src.iter().flat_map(|a| dst.iter().map(move |b| (a.clone(), b.clone()))).collect(),
    })
}

fn preview(nodes: &[String]) -> String {
    let mut s: Vec<&str> = nodes.iter().take(8).map(String::as_str).collect();
    if nodes.len() > 8 {
        s.push("…");
    }
    s.join(", ")
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
