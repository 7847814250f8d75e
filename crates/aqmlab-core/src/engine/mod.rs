//! The simulation: links, flows and the event loop that drives them.
//!
//! - [`links`]: transmission, propagation, queue disciplines and DelayBoxes;
//! - [`flows`]: TCP connections and their applications, UDP sources, PackMime generators;
//! - [`series`]: the per-flow throughput series;
//! - [`pcap`]: packet captures of chosen link directions;
//! - [`windows`]: the windowed statistics (`measure.window`);
//! - [`results`]: the tables a run returns.
//!
//! Flows live in slots; a slot freed by a finished connection is reused with a new generation number,
//! and packets or timers of the old connection are recognised by their generation and discarded.

mod flows;
mod links;
pub mod pcap;
mod results;
mod series;
mod web;
mod windows;

const _: () = assert!(std::mem::size_of::<Event>() == 8, "keep events small (see Event)");

use crate::aqm::FifoBuffer;
use crate::metrics::response::{PairColumns, ResponseHistogram};
use crate::metrics::sojourn::Sojourn;
use crate::metrics::{
    AqmSamples, ClassCounters, CwndTrace, FlowSeries, QueueLength, QueueSamples, Sums, WindowLinks,
    WindowResponses,
};
use crate::net::loss::LossModel;
use crate::net::packet::NO_PACKET;
use crate::net::{PacketArena, PacketId};
use crate::scenario::build::Model;
use crate::sim::{rng, EventQueue, Rng, Time};
use crate::tcp::endpoint::TimerKind;
use crate::traffic::app::{AppCtx, PairRecord};
use flows::{DelayBox, Flow, FlowMeasures, Generator};
use links::queue_len;

pub use crate::metrics::RunResult;

/// Eight bytes, so a queue entry with its time is sixteen: the event queue moves entries around and its
/// speed depends on their size. Timer events carry the low 16 bits of their flow slot's generation
/// (a slot is not reused 65 536 times within one timer's lifetime, and the timers check their own
/// deadlines besides).
#[derive(Clone, Copy, Debug)]
enum Event {
    /// Link `l`'s wire is free and a packet waits (links that ask their discipline on demand).
    TxDone(u32),
    /// The first of link `l`'s in-flight packets reaches the far node.
    Arrival(u32),
    /// Periodic update of link `l`'s queue discipline.
    QueueTimer(u32),
    /// A TCP timer of flow slot `f` (generation `g`): the endpoint and kind [`flows::timer_code`]
    /// packs.
    Tcp {
        f: u32,
        g: u16,
        timer: u8,
    },
    /// The application timer of flow slot `f` (generation `g`).
    App {
        f: u32,
        g: u16,
    },
    /// A packet held by a DelayBox continues on its route.
    Release(PacketId),
    FlowStart(u32),
    UdpSend(u32),
    /// PackMime generator `g` opens a connection.
    Connect(u32),
    /// Web user `u` takes its next step (see `web`).
    WebUser(u32),
    Sample,
    WarmupEnd,
}

/// The wire of one link direction: everything a packet forward touches, in one cache line (the rate,
/// the far node and the discipline stay in the model and in `LinkQueue`).
#[repr(align(64))]
struct Link {
    /// Non-FIFO links: the wire is busy transmitting until this time. Plain-FIFO links: the last
    /// accepted packet's transmission ends at this time.
    busy_until: Time,
    /// Propagation delay.
    delay: Time,
    /// Plain-FIFO and in-order links: accepted packets whose transmission has not started by the last
    /// catch-up, and their bytes (for in-order links, what the discipline holds).
    waiting_bytes: u64,
    waiting: u32,
    /// Plain-FIFO and in-order links: the first accepted packet whose transmission has not started by
    /// the last catch-up (the waiting packets are the tail of the in-flight list from it on), and when
    /// its transmission starts.
    first_waiting: PacketId,
    first_waiting_start: Time,
    /// Plain-FIFO links: the buffer limit, in packets or bytes as `departures` says.
    fifo_limit: u64,
    /// Nanoseconds per byte when the rate divides 8 × 10⁹ (transmission times are then a product,
    /// exactly the quotient `time::tx_time` gives), else 0.
    ns_per_byte: u32,
    /// Packets accepted for transmission and not yet at the far end, oldest first, linked through
    /// `Packet::next_on_link`. Only the first has an `Arrival` event.
    first_in_flight: PacketId,
    last_in_flight: PacketId,
    departures: Departures,
    /// The link has an error model (kept here so that other links never touch their `LinkQueue` on
    /// the way through).
    lossy: bool,
    /// Links that ask their discipline on demand: a packet waits and its transmission start is due at
    /// `busy_until` (`links::catch_up` makes it; a captured link also has a `TxDone` event then).
    tx_pending: bool,
    /// The queue emptied at the last transmission start and has not yet been asked for a packet at
    /// `busy_until`, the instant the link went idle.
    idle_unreported: bool,
}

const _: () = assert!(std::mem::size_of::<Link>() == 64, "a link's wire state is one cache line");

/// How a link decides when its packets leave.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Departures {
    /// A drop-tail buffer the link runs itself (`QueueDisc::plain_fifo`): departure times are fixed
    /// at acceptance and the discipline is never called.
    PlainFifo { in_bytes: bool },
    /// The discipline sends in arrival order (`QueueDisc::departs_in_arrival_order`): departure times
    /// are fixed at acceptance and the discipline is asked for each packet at its start time.
    InOrder,
    /// The discipline is asked for the next packet whenever the wire becomes free.
    OnDemand,
}

impl Link {
    /// Whether departure times are fixed when a packet is accepted (see `links`).
    fn fixes_departures(&self) -> bool {
        self.departures != Departures::OnDemand
    }

    /// The plain-FIFO buffer this link runs itself, if it does.
    fn fifo(&self) -> Option<FifoBuffer> {
        match self.departures {
            Departures::PlainFifo { in_bytes } => Some(FifoBuffer { limit: self.fifo_limit, in_bytes }),
            _ => None,
        }
    }
}

/// The counters every packet forward updates, kept apart from the rarer ones so that with thousands
/// of links they stay in cache: two to a cache line.
#[derive(Clone, Copy, Default)]
#[repr(align(32))]
struct Traffic {
    arrivals: u64,
    arrival_bytes: u64,
    departures: u64,
    departure_bytes: u64,
}

/// The queue of one link direction, its error model, its queue-length integrals and its packets'
/// queueing delays.
struct LinkQueue {
    disc: Box<dyn crate::aqm::QueueDisc>,
    loss: Option<LossModel>,
    rng: Rng,
    length: QueueLength,
    sojourn: Sojourn,
    /// The link's capture in `Simulation::captures`, or `pcap::NO_CAPTURE` (kept here, beside the
    /// queueing delays every departure updates, rather than in the full `Link` cache line).
    pcap: u32,
}

/// Called with the simulated time every so often; returning false stops the run.
pub type Progress<'a> = &'a mut dyn FnMut(Time) -> bool;

/// A batch of rows of a table that streams to a [`RecordSink`].
#[derive(Clone, Copy, Debug)]
pub enum Batch<'a> {
    /// Completed request/response pairs (with `measure.pair_records`).
    Pairs(&'a PairColumns),
    QueueSamples(&'a QueueSamples),
    /// The sampled links' discipline state, taken with the queue samples.
    AqmSamples(&'a AqmSamples),
    CwndTrace(&'a CwndTrace),
    /// The per-flow throughput series (with `measure.flow_series`).
    FlowSeries(&'a FlowSeries),
    /// Link directions' counters per statistics window (with `measure.window`).
    WindowLinks(&'a WindowLinks),
    /// Classes' completed pairs and response times per statistics window (with `measure.window`).
    WindowResponses(&'a WindowResponses),
    /// Records of link direction `link`'s capture (`measure.pcap`), to append to its pcap file: the
    /// first batch of each starts with the file header.
    Pcap {
        link: &'a str,
        bytes: &'a [u8],
    },
}

/// Receives the rows of the tables that grow with the run's length (pair records, queue and AQM samples, the
/// window trace, the flow series, the windowed statistics, packet captures) in batches of at most
/// [`RECORD_BATCH`] rows, so that they are never all in memory; the result's columns of these tables are
/// then empty.
pub type RecordSink<'a> = &'a mut dyn FnMut(Batch<'_>);

/// Rows handed to the sink at once.
pub const RECORD_BATCH: usize = 65_536;

pub struct Simulation<'s> {
    model: Model,
    now: Time,
    events: EventQueue<Event>,
    packets: PacketArena,
    links: Vec<Link>,
    queues: Vec<LinkQueue>,
    /// Packets put on a wire by any link over the whole run (for the speed benchmark).
    forwards: u64,
    /// Per link and class (`l * class_count + class`): what every forward counts in the window...
    link_traffic: Vec<Traffic>,
    /// ...and the rest of the link's counters (drops and marks; their traffic fields stay 0 until
    /// the results take them from `link_traffic`).
    link_counters: Vec<ClassCounters>,
    class_count: usize,
    /// Whether a node holds a DelayBox.
    delay_nodes: Vec<bool>,
    delayboxes: Vec<DelayBox>,
    flows: Vec<Flow>,
    free_slots: Vec<u32>,
    generators: Vec<Generator>,
    /// `[[web_users]]` generators and all their users.
    web: Vec<web::WebGenerator>,
    users: Vec<crate::traffic::web_users::User>,
    /// The web users' phases over time (with `measure.user_series`).
    user_series: crate::metrics::UserSeries,
    connections_opened: u64,
    measuring: bool,
    stop_requested: bool,
    /// Per class: (packets, bytes) sent by sources in the window.
    class_sent: Vec<(u64, u64)>,
    responses: Vec<ResponseHistogram>,
    pairs_done: u64,
    pairs: PairColumns,
    sink: Option<RecordSink<'s>>,
    samples: QueueSamples,
    aqm_samples: AqmSamples,
    /// Reused at every sample for a discipline's state, so sampling allocates nothing.
    aqm_state: Vec<(&'static str, f64)>,
    /// Per link direction: its samples' count, sum and sum of squares (the samples may have gone to
    /// the sink).
    sample_sums: Vec<Sums>,
    cwnd_trace: CwndTrace,
    /// Per static flow slot (never reused): whether its window is traced. Checked on every TCP event.
    traced: Vec<bool>,
    /// Per static flow slot: its one-way delays and finite transfer, for the `flows` table.
    flow_measures: Vec<FlowMeasures>,
    series: series::FlowSeriesState,
    /// The end of the current statistics window (`Time::MAX` without `measure.window`): checked before
    /// every event.
    window_end: Time,
    windows: windows::Windows,
    /// The captured link directions (`measure.pcap`; only with a sink).
    captures: Vec<pcap::Capture>,
    event_count: u64,
    // Scratch buffers reused by every event.
    actions: Vec<crate::aqm::QueueAction>,
    tcp_out: Vec<PacketId>,
    tcp_timers: Vec<(TimerKind, Time)>,
    app_cx: AppCtx,
}

/// The random stream of each of `model`'s DelayBoxes, in the order of its `[[delaybox]]` list: the
/// first box on a node draws from `delaybox/{node}`, the k-th further box on it from
/// `delaybox/{node}/{k}`, so that boxes sharing a node draw independent delays.
fn delaybox_stream_names(model: &Model) -> Vec<String> {
    let mut names = rng::StreamNames::default();
    // A node's first box keeps `delaybox/{node}`: scenarios with one box per node draw as before.
    model
        .delayboxes
        .iter()
        .map(|d| names.claim(format!("delaybox/{}", model.nodes[d.node as usize])))
        .collect()
}

impl<'s> Simulation<'s> {
    pub fn new(model: Model, sink: Option<RecordSink<'s>>) -> Self {
        let classes = model.classes.len();
        let mut links = Vec::with_capacity(model.links.len());
        let mut queues = Vec::with_capacity(model.links.len());
        for l in &model.links {
            let disc = l.queue.build(l.info);
            let fifo = disc.plain_fifo();
            let departures = match fifo {
                Some(b) => Departures::PlainFifo { in_bytes: b.in_bytes },
                None if disc.departs_in_arrival_order() => Departures::InOrder,
                None => Departures::OnDemand,
            };
            let bits_ns = 8 * crate::sim::time::NS_PER_SEC;
            links.push(Link {
                busy_until: 0,
                delay: l.info.delay,
                ns_per_byte: if bits_ns.is_multiple_of(l.info.rate_bps) {
                    u32::try_from(bits_ns / l.info.rate_bps).unwrap_or(0)
                } else {
                    0
                },
                fifo_limit: fifo.map_or(0, |b| b.limit),
                departures,
                waiting_bytes: 0,
                waiting: 0,
                first_waiting: NO_PACKET,
                first_waiting_start: 0,
                first_in_flight: NO_PACKET,
                last_in_flight: NO_PACKET,
                lossy: l.loss.is_some(),
                tx_pending: false,
                idle_unreported: false,
            });
            queues.push(LinkQueue {
                disc,
                loss: l
                    .loss
                    .as_ref()
                    .map(|spec| LossModel::new(spec, rng::stream(model.seed, &format!("loss/{}", l.name)))),
                rng: rng::stream(model.seed, &format!("queue/{}", l.name)),
                length: QueueLength::default(),
                sojourn: Sojourn::default(),
                pcap: pcap::NO_CAPTURE,
            });
        }
        let mut delay_nodes = vec![false; model.nodes.len()];
        for d in &model.delayboxes {
            delay_nodes[d.node as usize] = true;
        }
        let delayboxes = model
            .delayboxes
            .iter()
            .zip(delaybox_stream_names(&model))
            .map(|(d, name)| DelayBox::new(d, rng::stream(model.seed, &name)))
            .collect();
        let generators = model
            .http
            .iter()
            .map(|h| Generator::new(h, rng::stream(model.seed, &format!("http/{}", h.stream))))
            .collect();
        // Captures go only to a sink, so that they are never all in memory.
        let captures: Vec<pcap::Capture> = if sink.is_some() {
            model.pcap_links.iter().map(|&l| pcap::Capture::new(l)).collect()
        } else {
            Vec::new()
        };
        for (c, capture) in captures.iter().enumerate() {
            queues[capture.link as usize].pcap = c as u32;
        }
        let mut sim = Simulation {
            now: 0,
            events: EventQueue::default(),
            packets: PacketArena::default(),
            link_traffic: vec![Traffic::default(); links.len() * classes.max(1)],
            link_counters: vec![ClassCounters::default(); links.len() * classes.max(1)],
            class_count: classes.max(1),
            links,
            queues,
            forwards: 0,
            delay_nodes,
            delayboxes,
            flows: Vec::new(),
            free_slots: Vec::new(),
            generators,
            web: Vec::new(),
            users: Vec::new(),
            user_series: Default::default(),
            connections_opened: 0,
            measuring: false,
            stop_requested: false,
            class_sent: vec![(0, 0); classes.max(1)],
            responses: vec![ResponseHistogram::default(); classes.max(1)],
            pairs_done: 0,
            pairs: PairColumns::default(),
            sink,
            samples: QueueSamples::default(),
            aqm_samples: AqmSamples::default(),
            aqm_state: Vec::new(),
            sample_sums: vec![Sums::default(); model.links.len()],
            cwnd_trace: CwndTrace::default(),
            traced: (0..model.flows.len() as u32).map(|f| model.trace_cwnd.contains(&f)).collect(),
            flow_measures: model.flows.iter().map(FlowMeasures::new).collect(),
            series: series::FlowSeriesState::new(model.flows.len()),
            window_end: windows::Windows::first_end(&model),
            windows: windows::Windows::new(&model),
            captures,
            event_count: 0,
            actions: Vec::new(),
            tcp_out: Vec::new(),
            tcp_timers: Vec::new(),
            app_cx: AppCtx::default(),
            model,
        };
        // First of the events at the warm-up's end, so that a packet sent then (at t = 0 without a
        // warm-up) is counted.
        sim.events.schedule(sim.model.warmup, Event::WarmupEnd);
        sim.create_static_flows();
        sim.create_web_users();
        for (i, q) in sim.queues.iter().enumerate() {
            if let Some(t) = q.disc.first_timer() {
                sim.events.schedule(t, Event::QueueTimer(i as u32));
            }
        }
        for (g, h) in sim.model.http.iter().enumerate() {
            if let Some(at) = sim.generators[g].first_connection(h.start) {
                sim.events.schedule(at, Event::Connect(g as u32));
            }
        }
        sim
    }

    /// Runs to the scenario's end (or its stop condition, or until `progress` returns false).
    pub fn run(mut self, progress: Option<Progress>) -> RunResult {
        let end = self.model.duration;
        let mut progress = progress;
        let report_every = (end / 200).max(1);
        let mut next_report = report_every;
        let mut ended_by = "duration";
        while let Some((t, ev)) = self.events.pop_until(end) {
            if t > self.window_end {
                self.close_windows_before(t);
            }
            self.now = t;
            self.event_count += 1;
            self.handle(ev);
            if self.stop_requested {
                ended_by = "pairs";
                break;
            }
            if t >= next_report {
                next_report = t + report_every;
                if let Some(cb) = progress.as_mut() {
                    if !cb(t) {
                        ended_by = "interrupted";
                        break;
                    }
                }
            }
        }
        if ended_by == "duration" {
            self.now = end;
        }
        // Before the links are caught up to the end, which the windows ending earlier must not see.
        self.close_last_windows();
        self.catch_up_all();
        if self.model.flow_series && self.now > self.series.at {
            self.sample_flows(); // the last, shorter interval
        }
        self.flush_records();
        self.flush_samples();
        self.flush_cwnd_trace();
        self.flush_flow_series();
        self.flush_windows();
        self.flush_captures();
        self.results(ended_by)
    }

    fn handle(&mut self, ev: Event) {
        match ev {
            Event::TxDone(l) => self.tx_done(l),
            Event::Arrival(l) => self.arrival(l),
            Event::QueueTimer(l) => self.queue_timer(l),
            Event::Tcp { f, g, timer } => self.tcp_timer(f, g, timer),
            Event::App { f, g } => self.app_timer(f, g),
            Event::Release(p) => self.route_onward(p),
            Event::FlowStart(f) => self.flow_start(f),
            Event::UdpSend(f) => self.udp_send(f),
            Event::Connect(g) => self.connect(g),
            Event::WebUser(u) => self.web_user(u),
            Event::Sample => self.sample(),
            Event::WarmupEnd => self.warmup_end(),
        }
    }

    /// Counts a completed pair, or a web user's page (`page`), and keeps its record if asked to. A page
    /// ends the run through `[stop]` only when that names the page class; a pair also when it names none.
    fn record_response(&mut self, r: &PairRecord, page: bool) {
        if r.start < self.model.warmup {
            return;
        }
        self.count_response(r);
        if self.model.pair_records {
            self.pairs.push(r);
            if self.sink.is_some() && self.pairs.len() >= RECORD_BATCH {
                self.flush_records();
            }
        }
        if let Some((class, k)) = self.model.stop_after {
            if class.map_or(!page, |c| c == r.class) {
                self.pairs_done += 1;
                self.stop_requested |= self.pairs_done >= k;
            }
        }
    }

    /// Adds a pair (or page) started after the warm-up to its class's response times, and to the
    /// current statistics window's.
    fn count_response(&mut self, r: &PairRecord) {
        let secs = crate::sim::time::to_secs(r.end - r.start);
        self.responses[r.class as usize].add(secs, r.request_bytes, r.response_bytes);
        if let Some(window) = self.windows.pairs.get_mut(r.class as usize) {
            window.add(secs, r.request_bytes, r.response_bytes);
        }
    }

    fn flush_records(&mut self) {
        if let Some(sink) = self.sink.as_mut() {
            if !self.pairs.is_empty() {
                sink(Batch::Pairs(&self.pairs));
                self.pairs = PairColumns::default();
            }
        }
    }

    fn flush_samples(&mut self) {
        if let Some(sink) = self.sink.as_mut() {
            if !self.samples.is_empty() {
                sink(Batch::QueueSamples(&self.samples));
                self.samples = QueueSamples::default();
            }
            if !self.aqm_samples.is_empty() {
                sink(Batch::AqmSamples(&self.aqm_samples));
                self.aqm_samples = AqmSamples::default();
            }
        }
    }

    pub(super) fn flush_cwnd_trace(&mut self) {
        if let Some(sink) = self.sink.as_mut() {
            if !self.cwnd_trace.is_empty() {
                sink(Batch::CwndTrace(&self.cwnd_trace.take_rows()));
            }
        }
    }

    fn warmup_end(&mut self) {
        // Transmissions started by now belong before the window (see `catch_up`).
        self.catch_up_all();
        self.measuring = true;
        for (l, q) in self.queues.iter_mut().enumerate() {
            let (packets, bytes) = queue_len(&self.links[l], q);
            q.length.set(self.now, [packets, bytes]);
            q.length.restart(self.now);
        }
        self.snapshot_flows_at_warmup();
        if !self.model.sample_links.is_empty() || self.model.flow_series || self.model.user_series {
            self.sample();
        }
    }

    fn sample(&mut self) {
        let t = crate::sim::time::to_secs(self.now);
        for i in 0..self.model.sample_links.len() {
            let l = self.model.sample_links[i];
            self.catch_up(l, self.now);
            let (packets, bytes) = queue_len(&self.links[l as usize], &self.queues[l as usize]);
            self.samples.link.push(l);
            self.samples.t.push(t);
            self.samples.q_pkts.push(packets as u32);
            self.samples.q_bytes.push(bytes);
            self.samples.sojourn_s.push(crate::sim::time::to_secs(self.queues[l as usize].sojourn.last));
            self.sample_sums[l as usize].add(packets as f64);
            // Drop-tail's state is empty: no rows.
            self.aqm_state.clear();
            self.queues[l as usize].disc.state(&mut self.aqm_state);
            for &(variable, value) in &self.aqm_state {
                self.aqm_samples.link.push(l);
                self.aqm_samples.t.push(t);
                self.aqm_samples.variable.push(variable);
                self.aqm_samples.value.push(value);
            }
        }
        if self.sink.is_some() && self.samples.len().max(self.aqm_samples.len()) >= RECORD_BATCH {
            self.flush_samples();
        }
        if self.model.flow_series {
            self.sample_flows();
        }
        if self.model.user_series {
            self.sample_users();
        }
        let next = self.now + self.model.sample_interval;
        if next <= self.model.duration {
            self.events.schedule(next, Event::Sample);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Runs `model`, with departures fixed at acceptance where the discipline allows it or, with
    /// `on_demand`, with every link asking its discipline for the next packet when the wire is free.
    fn run_links(model: Model, on_demand: bool) -> RunResult {
        let mut sim = Simulation::new(model, None);
        if on_demand {
            for l in &mut sim.links {
                l.departures = Departures::OnDemand;
            }
        }
        sim.run(None)
    }

    /// A result row as JSON, to compare rows whole (also in the capture's tests).
    pub(super) fn json<T: serde::Serialize>(v: &T) -> serde_json::Value {
        serde_json::to_value(v).expect("result rows serialise")
    }

    /// The bench dumbbell (scenarios/bench-dumbbell.toml) followed by `extra`, with `overrides` applied;
    /// one that does not load fails the test with its located error (also in the capture's tests).
    pub(super) fn bench_dumbbell(extra: &str, overrides: &[&str]) -> Model {
        let text = format!("{}{extra}", include_str!("../../../../scenarios/bench-dumbbell.toml"));
        let overrides: Vec<String> = overrides.iter().map(|o| o.to_string()).collect();
        crate::load(&text, "bench-dumbbell.toml", &overrides, None).unwrap_or_else(|e| panic!("{e}"))
    }

    /// A link that fixes departure times at acceptance and takes packets off its queue lazily must give
    /// exactly what asking the discipline at every transmission gives: same drops, marks, departures,
    /// queue integrals, samples and per-flow results. Checked with drop-tail (run by the link itself,
    /// in packets and in bytes) and with in-order AQMs, on a bottleneck shared by TCP flows and
    /// Poisson UDP.
    #[test]
    fn departures_fixed_at_acceptance_match_the_discipline_path_exactly() {
        let udp = "\n[[flows]]\nname = \"poisson\"\nkind = \"udp_poisson\"\nsrc = \"S0\"\n\
                   dst = \"R0\"\nrate = \"20Mbps\"\npacket_size = 1000\n";
        for queue in [
            r#"dumbbell.queue={kind="droptail", limit=60}"#,
            r#"dumbbell.queue={kind="droptail", limit=60, bytes=true, mean_pktsize=1000}"#,
            r#"dumbbell.queue={kind="red", limit=60, thresh=5, maxthresh=15}"#,
            r#"dumbbell.queue={kind="pi", limit=60, qref=10}"#,
            r#"dumbbell.queue={kind="rem", limit=60, ecn=true}"#,
            r#"dumbbell.queue={kind="blue", limit=60}"#,
            r#"dumbbell.queue={kind="pie", limit=60}"#,
        ] {
            let model = bench_dumbbell(
                udp,
                &["dumbbell.pairs=8", "duration=\"12s\"", "measure.warmup=\"2s\"", queue],
            );
            let (own, disc) = (run_links(model.clone(), false), run_links(model, true));
            let bottleneck = own.links.iter().find(|l| l.link == "A->B").unwrap();
            assert!(
                bottleneck.drops + bottleneck.counters.marks > 50,
                "{queue}: congested ({} drops, {} marks)",
                bottleneck.drops,
                bottleneck.counters.marks
            );
            assert_eq!(json(&own.links), json(&disc.links), "{queue}");
            assert_eq!(json(&own.flows), json(&disc.flows), "{queue}");
            assert_eq!(own.queue_samples.q_pkts, disc.queue_samples.q_pkts, "{queue}");
            assert_eq!(own.summary.link_forwards, disc.summary.link_forwards, "{queue}");
        }
    }
}

#[cfg(test)]
mod sink_tests {
    use super::tests::{bench_dumbbell, json};
    use super::*;

    /// Batches of a column table, as JSON (`{column: [values]}`), joined into one table.
    fn joined(batches: &[serde_json::Value]) -> serde_json::Value {
        let mut table = serde_json::Map::new();
        for batch in batches {
            for (column, values) in batch.as_object().expect("a column table") {
                let all =
                    table.entry(column.as_str()).or_insert_with(|| serde_json::Value::Array(Vec::new()));
                all.as_array_mut()
                    .expect("a column")
                    .extend(values.as_array().expect("a column").iter().cloned());
            }
        }
        serde_json::Value::Object(table)
    }

    /// With a record sink, queue samples, AQM samples, window-trace, flow-series and window-link rows come
    /// in batches of at most [`RECORD_BATCH`] rows and, put together, are exactly what a run without a
    /// sink returns; the result's own columns are empty.
    #[test]
    fn streamed_samples_and_trace_equal_the_in_memory_tables() {
        let model = bench_dumbbell(
            "",
            &[
                "dumbbell.pairs=4",
                "duration=\"8s\"",
                "measure.warmup=\"1s\"",
                "measure.sample_interval=\"1ms\"",
                "measure.sample_links=[\"all\"]",
                "measure.trace_cwnd=[0, 3]",
                "measure.flow_series=true",
                // 18 link directions in 7000 windows: more than one batch.
                "measure.window=\"1ms\"",
                // RED's five variables on both bottleneck directions: more than one batch of AQM samples.
                r#"dumbbell.queue={kind="red", limit=1000}"#,
            ],
        );
        let whole = crate::run(model.clone(), None);
        assert!(whole.aqm_samples.len() > RECORD_BATCH, "more than one batch");
        assert!(whole.queue_samples.len() > RECORD_BATCH, "more than one batch");
        assert!(!whole.cwnd_trace.is_empty());
        assert_eq!(whole.flow_series.len(), 4 * 7000, "4 flows, every 1 ms after the warm-up");
        assert!(whole.window_links.len() > RECORD_BATCH, "more than one batch");
        assert!(whole.window_responses.is_empty(), "bulk transfers complete no pairs");
        let (mut samples, mut aqm, mut trace, mut series) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
        let mut windows = Vec::new();
        let mut batches = 0;
        let mut sink = |b: Batch| {
            batches += 1;
            match b {
                Batch::QueueSamples(q) => {
                    assert!(q.len() <= RECORD_BATCH + model.sample_links.len());
                    samples.push(json(&q));
                }
                Batch::AqmSamples(a) => {
                    assert!(a.len() <= RECORD_BATCH + 5 * model.sample_links.len());
                    aqm.push(json(&a));
                }
                Batch::CwndTrace(c) => {
                    assert!(c.len() <= RECORD_BATCH);
                    trace.push(json(&c));
                }
                Batch::FlowSeries(s) => {
                    assert!(s.len() <= RECORD_BATCH + model.flows.len());
                    series.push(json(&s));
                }
                Batch::WindowLinks(w) => {
                    assert!(w.len() <= RECORD_BATCH + model.links.len());
                    windows.push(json(&w));
                }
                Batch::Pairs(_) | Batch::Pcap { .. } | Batch::WindowResponses(_) => {
                    panic!("no pair records or captures asked for, and no pairs complete")
                }
            }
        };
        let streamed = crate::run_with_sink(model.clone(), None, &mut sink);
        assert!(batches > 2, "{batches} batches");
        assert!(streamed.queue_samples.is_empty() && streamed.cwnd_trace.is_empty());
        assert!(streamed.flow_series.is_empty());
        assert_eq!(joined(&samples), json(&whole.queue_samples));
        assert!(streamed.aqm_samples.is_empty());
        assert_eq!(joined(&aqm), json(&whole.aqm_samples));
        assert_eq!(joined(&trace), json(&whole.cwnd_trace));
        assert_eq!(joined(&series), json(&whole.flow_series));
        assert!(streamed.window_links.is_empty());
        assert_eq!(joined(&windows), json(&whole.window_links));
        assert_eq!(json(&streamed.flows), json(&whole.flows));
        // The links' sample statistics come from running sums, not from the (streamed) samples.
        assert!(whole.links.iter().all(|l| l.q_samples == 7001), "every link sampled");
        assert_eq!(json(&streamed.links), json(&whole.links));
    }
}
