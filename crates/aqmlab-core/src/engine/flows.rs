//! Flows: TCP connections with their applications, UDP sources, PackMime generators and the per-flow
//! delays of DelayBoxes.

use super::{Event, Simulation};
use crate::metrics::one_way::OneWayDelay;
use crate::net::{PacketId, Proto};
use crate::scenario::build::{
    DelayBoxModel, DelayDist, FlowModel, HttpModel, HttpSource, Placement, Traffic,
};
use crate::scenario::DelayDirection;
use crate::sim::{rng, time, Rng, Time};
use crate::tcp::endpoint::{TcpIo, TimerKind};
use crate::tcp::{Endpoint, Role, TcpStats};
use crate::traffic::app::Application;
use crate::traffic::http::HttpConnection;
use crate::traffic::http_trace::TracedConnection;
use crate::traffic::packmime::Pair;
use crate::traffic::packmime::{
    ConnectionPlanner, FlowArrivals, HttpVersion, RequestSizes, ResponseSizes, RttModel, RttSide,
    ServerDelay, ThinkTimeScope,
};
use crate::traffic::udp::UdpSource;
use rand::Rng as _;

pub(super) struct TcpConn {
    pub ends: [Endpoint; 2],
    pub app: Box<dyn Application>,
    /// When the application's timer is due.
    pub app_timer: Option<Time>,
    /// Counters at the end of the warm-up, to window the statistics.
    pub at_warmup: [TcpStats; 2],
}

/// Boxed, so that the flow table stays small: every delivered packet and timer reads its flow's
/// generation, and at a thousand flows the table's cache lines matter.
pub(super) enum FlowState {
    /// `cfg` indexes `Model::tcp_configs`; it sits beside the pointer so that finding an endpoint's
    /// configuration does not touch another cache line of the connection. So does `app_reads_data`
    /// (`Application::reads_data`): a bulk sink's data need not touch the application's line.
    Tcp {
        cfg: u16,
        app_reads_data: bool,
        conn: Box<TcpConn>,
    },
    Udp(Box<UdpSource>),
    Free,
}

/// The delays a DelayBox applies to one flow: (the box's node, delay of initiator→responder packets,
/// delay of responder→initiator packets). A node may hold several boxes serving different hosts (each
/// with its own distribution); a flow meets at most one per end.
type FlowDelay = (u32, Option<Time>, Option<Time>);

/// `Flow::user` of a connection that carries no web user's object.
pub(super) const NO_USER: u32 = u32::MAX;

const _: () = assert!(std::mem::size_of::<Flow>() == 64, "a flow is one cache line");

#[repr(align(64))]
pub(super) struct Flow {
    pub gen: u32,
    pub class: u16,
    /// Route of the initiator's packets (UDP sources send on it).
    pub route: u32,
    /// Serial number of the connection in the run (for pair records).
    pub serial: u64,
    /// PackMime generator that opened it.
    pub generator: Option<u32>,
    /// The web user whose object this connection carries (`NO_USER`: none).
    pub user: u32,
    /// At most two DelayBoxes act on a flow: the one serving its source and the one serving its
    /// destination (each host is served by one box). None when no box serves either end.
    delays: Option<Box<[Option<FlowDelay>; 2]>>,
    pub state: FlowState,
}

impl Flow {
    /// The DelayBox delay at `node` for a packet of this flow, if a box there holds it.
    pub fn delay_at(&self, node: u32, from_responder: bool) -> Option<Time> {
        self.delays
            .iter()
            .flat_map(|d| d.iter())
            .flatten()
            .find(|d| d.0 == node)
            .and_then(|&(_, fwd, rev)| if from_responder { rev } else { fwd })
    }
}

/// What the `flows` table reports of a static flow besides its endpoints' counters.
pub(super) struct FlowMeasures {
    pub delay: OneWayDelay,
    /// The size of a finite `tcp_bulk` transfer (0: none) and when its last byte was delivered.
    pub transfer_bytes: u64,
    pub transfer_end: Option<Time>,
}

impl FlowMeasures {
    pub fn new(f: &FlowModel) -> Self {
        let transfer_bytes = match &f.traffic {
            Traffic::Tcp { app, .. } => app.bytes().unwrap_or(0),
            Traffic::Udp(_) => 0,
        };
        FlowMeasures { delay: OneWayDelay::default(), transfer_bytes, transfer_end: None }
    }
}

/// A DelayBox with its delay distribution's state.
pub(super) struct DelayBox {
    node: u32,
    serves: Vec<bool>,
    direction: DelayDirection,
    per_direction: bool,
    dist: DelayDist,
    rtt: Option<RttModel>,
    rng: Rng,
}

impl DelayBox {
    pub fn new(m: &DelayBoxModel, mut rng: Rng) -> Self {
        let rtt = match m.delay {
            DelayDist::PackmimeRtt { client, rate } => {
                let side = if client { RttSide::Client } else { RttSide::Server };
                Some(RttModel::new(rate, side, true, &mut rng))
            }
            _ => None,
        };
        DelayBox {
            node: m.node,
            serves: m.serves.clone(),
            direction: m.direction,
            per_direction: m.per_direction,
            dist: m.delay.clone(),
            rtt,
            rng,
        }
    }

    fn draw(&mut self) -> Time {
        match &self.dist {
            DelayDist::Constant(d) => *d,
            DelayDist::UniformMs(lo, hi) => self.rng.gen_range(*lo..=*hi) as Time * time::NS_PER_MS,
            DelayDist::PackmimeRtt { .. } => {
                time::secs(self.rtt.as_mut().expect("RTT model").next_delay(&mut self.rng))
            }
            DelayDist::Empirical(cdf) => cdf.quantile(self.rng.gen()).round() as Time,
        }
    }

    /// The delays this box gives a new flow from `src` to `dst` (forward, reverse), if it serves either
    /// end: one draw for both directions, or one per direction with `per_direction`.
    fn delay_for(&mut self, src: u32, dst: u32) -> Option<(Option<Time>, Option<Time>)> {
        let (s, d) = (self.serves[src as usize], self.serves[dst as usize]);
        if !s && !d {
            return None;
        }
        // Forward packets travel src → dst; reverse ones dst → src.
        let (fwd, rev) = match self.direction {
            DelayDirection::Both => (true, true),
            DelayDirection::FromServed => (s, d),
            DelayDirection::ToServed => (d, s),
        };
        let d = self.draw();
        let d_rev = if self.per_direction { self.draw() } else { d };
        Some((fwd.then_some(d), rev.then_some(d_rev)))
    }
}

/// Retransmissions and timeouts of a generator's connections, both ends, over the whole run: summed as
/// connections close, plus the open ones' at the end.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct ConnectionTcp {
    pub retransmits: u64,
    pub timeouts: u64,
    pub timeouts_after_ecn: u64,
}

impl ConnectionTcp {
    pub fn add(&mut self, conn: &TcpConn) {
        for s in conn.ends.iter().map(Endpoint::stats) {
            self.retransmits += s.retransmits;
            self.timeouts += s.timeouts;
            self.timeouts_after_ecn += s.timeouts_after_ecn;
        }
    }
}

/// Where a new connection's endpoints sit: its slot, class and the routes of both directions.
#[derive(Clone, Copy)]
struct Ends {
    slot: u32,
    class: u16,
    route: u32,
    reverse_route: u32,
}

/// An HTTP generator: opens connections at PackMime-HTTP's arrival process, or replays a trace.
pub(super) struct Generator {
    placements: Vec<Placement>,
    next_placement: usize,
    class: u16,
    tcp: u16,
    stop: Time,
    source: ConnectionSource,
    rng: Rng,
    pub started: u64,
    pub finished: u64,
    pub pairs_planned: u64,
    /// Of the connections closed so far.
    pub tcp_counts: ConnectionTcp,
}

enum ConnectionSource {
    Packmime {
        arrivals: FlowArrivals,
        planner: Box<ConnectionPlanner>,
        server_delay: ServerDelay,
    },
    /// The trace's connections not yet opened, the next one last.
    Trace(Vec<TracedConnection>),
}

impl ConnectionSource {
    /// The next connection's pairs and server delays, and when the one after it opens (None: never).
    fn next(&mut self, now: Time, rng: &mut Rng) -> Option<(Vec<Pair>, Vec<f64>, Option<Time>)> {
        match self {
            ConnectionSource::Packmime { arrivals, planner, server_delay } => {
                let plan = planner.plan(rng);
                let delays = plan.iter().map(|_| server_delay.sample(rng)).collect();
                let gap = time::secs(arrivals.next_gap(rng)).max(1);
                Some((plan, delays, Some(now + gap)))
            }
            ConnectionSource::Trace(rest) => {
                let c = rest.pop()?;
                Some((c.pairs, c.server_delays, rest.last().map(|n| n.start)))
            }
        }
    }

    /// When the first connection opens, given the generator's start.
    fn first(&self, start: Time) -> Option<Time> {
        match self {
            ConnectionSource::Packmime { .. } => Some(start),
            ConnectionSource::Trace(rest) => rest.last().map(|c| c.start.max(start)),
        }
    }
}

impl Generator {
    pub fn new(h: &HttpModel, mut rng: Rng) -> Self {
        let source = match &h.source {
            HttpSource::Packmime { rate, persistent, lrd } => {
                let version = if *persistent { HttpVersion::Http11 } else { HttpVersion::Http10 };
                let arrivals = FlowArrivals::new(*rate, *lrd, &mut rng);
                let requests = RequestSizes::new(*rate, *lrd, &mut rng);
                let planner = ConnectionPlanner::new(
                    version,
                    ThinkTimeScope::PerConnection,
                    requests,
                    ResponseSizes::new(*rate),
                );
                ConnectionSource::Packmime { arrivals, planner: Box::new(planner), server_delay: ServerDelay }
            }
            HttpSource::Trace(conns) => ConnectionSource::Trace(conns.iter().rev().cloned().collect()),
        };
        Generator {
            placements: h.placements.clone(),
            next_placement: 0,
            class: h.class,
            tcp: h.tcp,
            stop: h.stop,
            source,
            rng,
            started: 0,
            finished: 0,
            pairs_planned: 0,
            tcp_counts: ConnectionTcp::default(),
        }
    }

    /// When the generator opens its first connection (None: never).
    pub fn first_connection(&self, start: Time) -> Option<Time> {
        self.source.first(start)
    }
}

impl Simulation<'_> {
    pub(super) fn create_static_flows(&mut self) {
        for i in 0..self.model.flows.len() {
            let f = &self.model.flows[i];
            let stream = |kind: &str| rng::stream(self.model.seed, &format!("{kind}/{}", f.name));
            let ends =
                Ends { slot: i as u32, class: f.class, route: f.route, reverse_route: f.reverse_route };
            let state = match &f.traffic {
                Traffic::Tcp { tcp, app } => self.tcp_state(*tcp, ends, &f.name, app.open(&stream)),
                Traffic::Udp(u) => FlowState::Udp(Box::new(UdpSource::new(u, stream("udp")))),
            };
            let (src, dst, route, class, start) = (f.src, f.dst, f.route, f.class, f.start);
            let slot = self.add_flow(src, dst, route, class, None, state);
            debug_assert_eq!(slot as usize, i);
            self.events.schedule(start, Event::FlowStart(slot));
        }
    }

    /// A new connection; `name` names its random stream (`group/index` or `generator/serial`, with a
    /// group or generator keyed by its name, or by `{name}/{k}` if an earlier one has that name).
    fn tcp_state(&self, cfg: u16, e: Ends, name: &str, app: Box<dyn Application>) -> FlowState {
        let c = &self.model.tcp_configs[cfg as usize];
        let mut r = rng::stream(self.model.seed, &format!("tcp/{name}"));
        let mut phase = || if c.tick.0 > 0 { r.gen_range(0..c.tick.0) } else { 0 };
        let ends = [
            Endpoint::new(Role::Initiator, c, e.slot, e.class, e.route, phase()),
            Endpoint::new(Role::Responder, c, e.slot, e.class, e.reverse_route, phase()),
        ];
        let app_reads_data = app.reads_data();
        let conn = Box::new(TcpConn { ends, app, app_timer: None, at_warmup: Default::default() });
        FlowState::Tcp { cfg, app_reads_data, conn }
    }

    /// The slot the next `add_flow` will use.
    fn next_slot(&self) -> u32 {
        self.free_slots.last().copied().unwrap_or(self.flows.len() as u32)
    }

    /// Puts a flow in slot `next_slot()` and draws its DelayBox delays.
    fn add_flow(
        &mut self,
        src: u32,
        dst: u32,
        route: u32,
        class: u16,
        generator: Option<u32>,
        state: FlowState,
    ) -> u32 {
        let mut delays = [None; 2];
        let mut n = 0;
        for bx in self.delayboxes.iter_mut() {
            if let Some((fwd, rev)) = bx.delay_for(src, dst) {
                delays[n] = Some((bx.node, fwd, rev));
                n += 1;
            }
        }
        let delays = (n > 0).then(|| Box::new(delays));
        let serial = self.connections_opened;
        self.connections_opened += 1;
        let flow = |gen| Flow { gen, class, route, serial, generator, user: NO_USER, delays, state };
        match self.free_slots.pop() {
            Some(s) => {
                let gen = self.flows[s as usize].gen + 1;
                self.flows[s as usize] = flow(gen);
                s
            }
            None => {
                self.flows.push(flow(0));
                (self.flows.len() - 1) as u32
            }
        }
    }

    pub(super) fn flow_start(&mut self, f: u32) {
        match &self.flows[f as usize].state {
            FlowState::Tcp { .. } => self.open_tcp(f),
            FlowState::Udp(_) => self.udp_send(f),
            FlowState::Free => {}
        }
    }

    /// Starts a connection's application and its handshake.
    fn open_tcp(&mut self, f: u32) {
        let flow = &mut self.flows[f as usize];
        let FlowState::Tcp { conn, .. } = &mut flow.state else { return };
        self.app_cx.reset(self.now, flow.class, flow.serial);
        conn.app.start(&mut self.app_cx);
        self.apply_app(f);
        self.with_endpoint(f, 0, |e, cfg, io| e.connect(cfg, io));
    }

    /// Calls endpoint `side` of TCP flow `f`, then injects its packets and schedules its timers.
    fn with_endpoint<R>(
        &mut self,
        f: u32,
        side: usize,
        call: impl FnOnce(&mut Endpoint, &crate::tcp::TcpConfig, &mut TcpIo) -> R,
    ) -> Option<R> {
        let FlowState::Tcp { cfg, conn, .. } = &mut self.flows[f as usize].state else { return None };
        let cfg = &self.model.tcp_configs[*cfg as usize];
        let mut io = TcpIo {
            now: self.now,
            packets: &mut self.packets,
            out: &mut self.tcp_out,
            timers: &mut self.tcp_timers,
        };
        let out = call(&mut conn.ends[side], cfg, &mut io);
        self.flush_tcp(f, side as u8);
        Some(out)
    }

    /// Carries out what the application asked for in `app_cx`.
    fn apply_app(&mut self, f: u32) {
        if self.app_cx.is_empty() {
            return;
        }
        let records = std::mem::take(&mut self.app_cx.records);
        for r in &records {
            self.record_response(r, false);
        }
        let user = self.flows[f as usize].user;
        if user != NO_USER && !records.is_empty() {
            self.web_objects_done(user, &records);
        }
        self.app_cx.records = records;
        let gen = self.flows[f as usize].gen;
        if let Some(at) = self.app_cx.timer.take() {
            if let FlowState::Tcp { conn, .. } = &mut self.flows[f as usize].state {
                conn.app_timer = Some(at);
            }
            self.events.schedule(at, Event::App { f, g: gen as u16 });
        }
        for side in 0..2 {
            let writes: u64 = self.app_cx.writes.iter().filter(|w| w.0 == side).map(|w| w.1).sum();
            let close = self.app_cx.closes.contains(&side);
            if writes == 0 && !close {
                continue;
            }
            self.with_endpoint(f, side, |e, cfg, io| match (writes > 0, close) {
                (true, true) => e.write_last(cfg, writes, io),
                (true, false) => e.write(cfg, writes, io),
                _ => e.close(cfg, io),
            });
        }
    }

    pub(super) fn app_timer(&mut self, f: u32, g: u16) {
        let flow = &mut self.flows[f as usize];
        if flow.gen as u16 != g {
            return;
        }
        let FlowState::Tcp { conn, .. } = &mut flow.state else { return };
        if conn.app_timer != Some(self.now) {
            return;
        }
        conn.app_timer = None;
        self.app_cx.reset(self.now, flow.class, flow.serial);
        conn.app.timer(&mut self.app_cx);
        self.apply_app(f);
        self.retire_if_closed(f);
    }

    /// A packet reached its destination host.
    pub(super) fn deliver(&mut self, p: PacketId) {
        let pkt = self.packets.get(p).clone();
        self.packets.free(p);
        let f = pkt.flow;
        let flow = &mut self.flows[f as usize];
        if flow.gen != pkt.flow_gen {
            return; // a late packet of a connection that has finished
        }
        let (class, serial) = (flow.class, flow.serial);
        // Static flows send their data from the initiator (the flows table's source).
        if self.measuring && pkt.payload() > 0 && !pkt.from_responder() {
            if let Some(m) = self.flow_measures.get_mut(f as usize) {
                m.delay.add(self.now - pkt.sent_at);
            }
        }
        match (&mut flow.state, pkt.proto()) {
            (&mut FlowState::Tcp { app_reads_data, .. }, Proto::Tcp) => {
                let side = if pkt.from_responder() { 0 } else { 1 };
                let d =
                    self.with_endpoint(f, side, |e, cfg, io| e.on_packet(cfg, &pkt, io)).expect("TCP flow");
                if d.bytes > 0 && side == 1 {
                    self.note_transfer_end(f);
                }
                if (d.bytes > 0 && app_reads_data) || d.fin {
                    let FlowState::Tcp { conn, .. } = &mut self.flows[f as usize].state else { return };
                    self.app_cx.reset(self.now, class, serial);
                    if d.bytes > 0 {
                        conn.app.delivered(side, d.bytes, &mut self.app_cx);
                    }
                    if d.fin {
                        conn.app.peer_closed(side, &mut self.app_cx);
                    }
                    self.apply_app(f);
                }
                self.retire_if_closed(f);
            }
            (FlowState::Udp(u), Proto::Udp) if self.measuring => {
                u.received += 1;
                u.bytes_received += pkt.size as u64;
            }
            _ => {}
        }
    }

    /// Notes when the last byte of static flow `f`'s finite transfer reached the receiver.
    fn note_transfer_end(&mut self, f: u32) {
        let Some(m) = self.flow_measures.get_mut(f as usize) else { return };
        if m.transfer_bytes == 0 || m.transfer_end.is_some() {
            return;
        }
        let FlowState::Tcp { conn, .. } = &self.flows[f as usize].state else { return };
        if conn.ends[1].stats().bytes_delivered >= m.transfer_bytes {
            m.transfer_end = Some(self.now);
        }
    }

    /// Frees the slot of a connection both of whose ends have closed.
    fn retire_if_closed(&mut self, f: u32) {
        let flow = &mut self.flows[f as usize];
        let FlowState::Tcp { conn, .. } = &flow.state else { return };
        let generated = flow.generator.is_some() || flow.user != NO_USER;
        if !(generated && conn.ends[0].is_closed() && conn.ends[1].is_closed()) {
            return; // static flows keep their slot for the results table
        }
        if let Some(g) = flow.generator {
            let g = &mut self.generators[g as usize];
            g.finished += 1;
            g.tcp_counts.add(conn);
        }
        if flow.user != NO_USER {
            let g = &mut self.web[self.users[flow.user as usize].generator as usize];
            g.finished += 1;
            g.tcp_counts.add(conn);
        }
        flow.state = FlowState::Free;
        self.free_slots.push(f);
    }

    /// Injects the packets and schedules the timers an endpoint produced.
    pub(super) fn flush_tcp(&mut self, f: u32, side: u8) {
        let flow = &self.flows[f as usize];
        let g = flow.gen;
        for (kind, t) in self.tcp_timers.drain(..) {
            self.events.schedule(t, Event::Tcp { f, g: g as u16, timer: timer_code(side, kind) });
        }
        if self.traced.get(f as usize).copied().unwrap_or(false) {
            if let FlowState::Tcp { conn, .. } = &flow.state {
                let e = &conn.ends[0];
                self.cwnd_trace.record(f, self.now, e.cwnd(), e.ssthresh(), e.stats().timeouts);
                if self.sink.is_some() && self.cwnd_trace.len() >= super::RECORD_BATCH {
                    self.flush_cwnd_trace();
                }
            }
        }
        let mut out = std::mem::take(&mut self.tcp_out);
        for p in out.drain(..) {
            self.packets.get_mut(p).flow_gen = g;
            self.inject(p);
        }
        self.tcp_out = out;
    }

    /// Sends a packet created at its source onto the first link of its route.
    fn inject(&mut self, p: PacketId) {
        let pkt = self.packets.get(p);
        if self.measuring {
            let c = &mut self.class_sent[pkt.class as usize];
            c.0 += 1;
            c.1 += pkt.size as u64;
        }
        self.route_onward(p);
    }

    pub(super) fn tcp_timer(&mut self, f: u32, g: u16, timer: u8) {
        if self.flows[f as usize].gen as u16 == g {
            let (side, kind) = timer_of_code(timer);
            self.with_endpoint(f, side, |e, cfg, io| e.on_timer(cfg, kind, io));
        }
    }

    pub(super) fn udp_send(&mut self, f: u32) {
        let flow = &mut self.flows[f as usize];
        let (class, route, gen) = (flow.class, flow.route, flow.gen);
        let FlowState::Udp(u) = &mut flow.state else { return };
        if self.now >= u.stop {
            return;
        }
        let p = u.make_packet(f, class, route, self.now, &mut self.packets);
        self.packets.get_mut(p).flow_gen = gen;
        let next = u.next_send(self.now);
        self.events.schedule(next, Event::UdpSend(f));
        self.inject(p);
    }

    /// PackMime generator `g` opens its next connection and schedules the one after.
    pub(super) fn connect(&mut self, g: u32) {
        let gen = &mut self.generators[g as usize];
        if self.now >= gen.stop {
            return;
        }
        let Some((plan, delays, next)) = gen.source.next(self.now, &mut gen.rng) else { return };
        let place = gen.placements[gen.next_placement % gen.placements.len()];
        gen.next_placement += 1;
        let name = format!("{}/{}", self.model.http[g as usize].stream, gen.started);
        gen.started += 1;
        gen.pairs_planned += plan.len() as u64;
        let (class, tcp) = (gen.class, gen.tcp);
        if let Some(at) = next {
            self.events.schedule(at, Event::Connect(g));
        }
        let slot = self.next_slot();
        let ends = Ends { slot, class, route: place.route, reverse_route: place.reverse_route };
        let state = self.tcp_state(tcp, ends, &name, Box::new(HttpConnection::new(plan, delays)));
        let f = self.add_flow(place.client, place.server, place.route, class, Some(g), state);
        debug_assert_eq!(f, slot);
        self.open_tcp(f);
    }

    /// Web user `u` opens a connection for the next `objects` objects of its page: one (HTTP/1.0) or
    /// several requested in sequence (persistent); the server answers at once (no server delay).
    pub(super) fn open_web_connection(&mut self, u: u32, objects: u32) {
        let user = &mut self.users[u as usize];
        user.requesting(objects);
        let g = user.generator as usize;
        let m = &self.model.web_users[g];
        let place = m.placements[(user.client * m.servers + user.server) as usize];
        let gen = &mut self.web[g];
        let pairs: Vec<Pair> = (0..objects)
            .map(|_| {
                let (request, response) = gen.next_object();
                Pair { request, response, gap: 0.0 }
            })
            .collect();
        let name = format!("{}/{}", m.stream, gen.next_connection());
        let (class, tcp) = (m.class, m.tcp);
        let slot = self.next_slot();
        let ends = Ends { slot, class, route: place.route, reverse_route: place.reverse_route };
        let app = Box::new(HttpConnection::new(pairs, vec![0.0; objects as usize]));
        let state = self.tcp_state(tcp, ends, &name, app);
        let f = self.add_flow(place.client, place.server, place.route, class, None, state);
        debug_assert_eq!(f, slot);
        self.flows[f as usize].user = u;
        self.open_tcp(f);
    }

    pub(super) fn snapshot_flows_at_warmup(&mut self) {
        for f in &mut self.flows {
            match &mut f.state {
                FlowState::Tcp { conn, .. } => conn.at_warmup = [conn.ends[0].stats(), conn.ends[1].stats()],
                FlowState::Udp(u) => u.sent_at_warmup = u.sent,
                FlowState::Free => {}
            }
        }
    }
}

/// Packs an endpoint and a timer kind into the byte a timer event carries: `side << 1 | delayed ACK`
/// for the timers every connection has, `4 | side` for pacing's.
pub(super) fn timer_code(side: u8, kind: TimerKind) -> u8 {
    match kind {
        TimerKind::Retransmit => side << 1,
        TimerKind::DelayedAck => side << 1 | 1,
        TimerKind::Pacing => 4 | side,
    }
}

/// The endpoint and timer kind of a [`timer_code`].
fn timer_of_code(code: u8) -> (usize, TimerKind) {
    match (code & 4 != 0, code & 1) {
        (true, side) => (side as usize, TimerKind::Pacing),
        (false, 0) => ((code >> 1) as usize, TimerKind::Retransmit),
        (false, _) => ((code >> 1) as usize, TimerKind::DelayedAck),
    }
}

#[cfg(test)]
mod tests {
    use super::super::{delaybox_stream_names, Simulation};
    use super::DelayBox;
    use crate::scenario::build::{DelayBoxModel, Model};
    use crate::sim::rng;

    /// Hosts a, b and c on router R0, host s on router R1; `boxes` adds `[[delaybox]]` tables.
    fn model(boxes: &str) -> Model {
        let link = |a: &str, b: &str| {
            format!("[[links]]\na = \"{a}\"\nb = \"{b}\"\nrate = \"1Gbps\"\ndelay = \"1ms\"\n")
        };
        let links: String = [("a", "R0"), ("b", "R0"), ("c", "R0"), ("R0", "R1"), ("R1", "s")]
            .iter()
            .map(|(a, b)| link(a, b))
            .collect();
        let text = format!("duration = \"10s\"\n[measure]\nwarmup = 0\n{links}{boxes}");
        crate::load(&text, "test.toml", &[], None).unwrap_or_else(|e| panic!("{e}"))
    }

    fn uniform_box(node: &str, serves: &str) -> String {
        format!(
            "[[delaybox]]\nnode = \"{node}\"\nserves = \"{serves}\"\n\
             delay = {{ kind = \"uniform_ms\", low_ms = 10, high_ms = 150 }}\n"
        )
    }

    fn node(m: &Model, name: &str) -> u32 {
        m.nodes.iter().position(|n| n == name).expect("a node") as u32
    }

    /// The forward delays (ms) box `bx` gives `n` new flows from `src` to `dst`.
    fn draws(bx: &mut DelayBox, src: u32, dst: u32, n: usize) -> Vec<f64> {
        (0..n)
            .map(|_| {
                let (fwd, _) = bx.delay_for(src, dst).expect("the box serves the source");
                fwd.expect("both directions delayed") as f64 / crate::sim::time::NS_PER_MS as f64
            })
            .collect()
    }

    fn correlation(x: &[f64], y: &[f64]) -> f64 {
        let n = x.len() as f64;
        let (mx, my) = (x.iter().sum::<f64>() / n, y.iter().sum::<f64>() / n);
        let cov: f64 = x.iter().zip(y).map(|(a, b)| (a - mx) * (b - my)).sum();
        let vx: f64 = x.iter().map(|a| (a - mx) * (a - mx)).sum();
        let vy: f64 = y.iter().map(|b| (b - my) * (b - my)).sum();
        cov / (vx * vy).sqrt()
    }

    #[test]
    fn delayboxes_sharing_a_node_get_streams_of_their_own() {
        let boxes =
            [uniform_box("R0", "a"), uniform_box("R0", "b"), uniform_box("R1", "s"), uniform_box("R0", "c")];
        let m = model(&boxes.concat());
        assert_eq!(
            delaybox_stream_names(&m),
            ["delaybox/R0", "delaybox/R0/1", "delaybox/R1", "delaybox/R0/2"]
        );
        // One box per node: every box keeps the name it always had.
        let m = model(&[uniform_box("R0", "a"), uniform_box("R1", "s")].concat());
        assert_eq!(delaybox_stream_names(&m), ["delaybox/R0", "delaybox/R1"]);
    }

    /// Two boxes on R0, one serving host a and one serving host b, with the same distribution: the
    /// boxes the engine builds must draw unrelated delay sequences (with one stream per node, as before
    /// the fix, they drew the very same sequence).
    #[test]
    fn two_delayboxes_on_one_node_draw_independent_delays() {
        let m = model(&[uniform_box("R0", "a"), uniform_box("R0", "b")].concat());
        let (a, b, s) = (node(&m, "a"), node(&m, "b"), node(&m, "s"));
        let seed = m.seed;
        let (first, second) = (m.delayboxes[0].clone(), m.delayboxes[1].clone());
        let mut sim = Simulation::new(m, None);
        let n = 400;
        let from_a = draws(&mut sim.delayboxes[0], a, s, n);
        let from_b = draws(&mut sim.delayboxes[1], b, s, n);
        for d in from_a.iter().chain(&from_b) {
            assert!((10.0..=150.0).contains(d) && d.fract() == 0.0, "delay {d} ms");
        }
        let same = from_a.iter().zip(&from_b).filter(|(x, y)| x == y).count();
        // Independent uniform draws over 141 values agree about n/141 ≈ 3 times.
        assert!(same < 15, "{same} of {n} draws equal");
        let r = correlation(&from_a, &from_b);
        assert!(r.abs() < 0.15, "correlation {r} between the two boxes' delays");

        // The first box still draws from `delaybox/R0`, exactly as before; that very stream in the
        // second box would repeat the first box's delays draw for draw.
        let old = |spec: &DelayBoxModel| DelayBox::new(spec, rng::stream(seed, "delaybox/R0"));
        assert_eq!(draws(&mut old(&first), a, s, n), from_a);
        assert_eq!(draws(&mut old(&second), b, s, n), from_a);
    }
}
