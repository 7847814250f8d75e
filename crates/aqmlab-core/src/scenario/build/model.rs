//! The model a scenario resolves to: numbered nodes and link directions, routes, flows and generators
//! with their parameters checked, ready for the engine.

use super::ScenarioError;
use crate::aqm::{LinkInfo, QueueConfig};
use crate::net::loss::LossSpec;
use crate::scenario::DelayDirection;
use crate::sim::Time;
use crate::tcp::TcpConfig;
use crate::traffic::app::AppModel;
use crate::traffic::empirical::EmpiricalCdf;
use crate::traffic::http_trace::TracedConnection;
use crate::traffic::udp::UdpModel;
use crate::traffic::web_users::Dist;
use std::sync::Arc;

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

/// What a flow sends: what its group's kind (`scenario/flow_group.rs`) makes of the group's fields.
#[derive(Clone, Debug)]
pub enum Traffic {
    /// A TCP connection (`tcp` indexes `Model::tcp_configs`) driven by the application `app` opens.
    Tcp {
        tcp: u16,
        app: Arc<dyn AppModel>,
    },
    Udp(UdpModel),
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
    pub source: HttpSource,
    pub start: Time,
    pub stop: Time,
}

/// Where an `[[http]]` generator's connections come from.
#[derive(Clone, Debug)]
pub enum HttpSource {
    /// Drawn from PackMime-HTTP at `rate` new connections per second.
    Packmime { rate: f64, persistent: bool, lrd: bool },
    /// Replayed from a trace file, in its order.
    Trace(Vec<TracedConnection>),
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
    /// Probability that a page's objects go over persistent connections.
    pub persistent: f64,
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
    /// Delays in ns.
    Empirical(EmpiricalCdf),
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
    pub traffic: Traffic,
}

#[derive(Clone, Debug)]
pub struct Model {
    pub name: String,
    pub seed: u64,
    pub duration: Time,
    pub warmup: Time,
    pub sample_interval: Time,
    /// Length of the windows of `window_links` and `window_responses` (`measure.window`), if any.
    pub window: Option<Time>,
    pub nodes: Vec<String>,
    pub links: Vec<LinkModel>,
    /// Every route's link directions in turn, each route followed by [`ROUTE_END`](crate::net::routing::ROUTE_END); a route is named
    /// by the index of its first entry, and a packet moves along it one entry per hop.
    pub routes: Vec<u32>,
    pub tcp_configs: Vec<TcpConfig>,
    pub classes: Vec<String>,
    pub flows: Vec<FlowModel>,
    pub sample_links: Vec<u32>,
    /// Link directions whose departures are captured to pcap files (`measure.pcap`).
    pub pcap_links: Vec<u32>,
    pub trace_cwnd: Vec<u32>,
    pub http: Vec<HttpModel>,
    pub web_users: Vec<WebUsersModel>,
    pub delayboxes: Vec<DelayBoxModel>,
    /// Stop once this many pairs (of this class, or any) have completed.
    pub stop_after: Option<(Option<u16>, u64)>,
    pub pair_records: bool,
    /// Sample every flow's delivered bytes at `sample_interval` (`measure.flow_series`).
    pub flow_series: bool,
    /// Sample the web users' phases at `sample_interval` (`measure.user_series`).
    pub user_series: bool,
    /// Settings that are legal but probably not meant (a flow starting after the end), located like
    /// errors; reported by `validate` and kept in the run's summary.
    pub warnings: Vec<ScenarioError>,
}
