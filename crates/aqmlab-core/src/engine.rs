//! The simulation: links, flows and the event loop that drives them.
//!
//! A link direction transmits one packet at a time; the packet on the wire is not in the queue (ns-2's
//! convention). A packet taken off the queue goes straight into the link's in-flight FIFO with its
//! arrival time (end of transmission + propagation); only the FIFO's head has an `Arrival` event. A
//! `TxDone` event is scheduled only when another packet is waiting to follow: when the queue is empty the
//! link just records when the wire becomes free, and the discipline is told the link went idle (a
//! `dequeue` returning `None`, at that time) when the next packet arrives. Most links in a network are
//! uncongested, so this saves an event for most packet forwards. Nodes forward in zero time along the
//! packet's precomputed route.

use crate::aqm::{QueueAction, QueueDisc, QueueEnv};
use crate::metrics::{
    mean_std, CwndTrace, FlowRow, LinkClassRow, LinkMetrics, LinkRow, QueueSamples, RunResult, Summary,
};
use crate::net::loss::LossModel;
use crate::net::{PacketArena, PacketId, Proto};
use crate::scenario::build::{FlowModelKind, Model};
use crate::sim::{rng, time, EventQueue, Rng, Time};
use crate::tcp::endpoint::{TcpIo, TimerKind};
use crate::tcp::{Endpoint, Role, TcpStats};
use crate::traffic::udp::UdpSource;
use rand::Rng as _;
use std::collections::VecDeque;

#[derive(Clone, Copy, Debug)]
enum Event {
    /// The packet on link `l`'s wire has been transmitted.
    TxDone(u32),
    /// The head of link `l`'s in-flight FIFO reaches the far node.
    Arrival(u32),
    /// Periodic update of link `l`'s queue discipline.
    QueueTimer(u32),
    /// A TCP timer of flow `f`, endpoint `side` (0 initiator, 1 responder).
    Tcp(u32, u8, TimerKind),
    FlowStart(u32),
    UdpSend(u32),
    Sample,
    WarmupEnd,
}

struct Link {
    queue: Box<dyn QueueDisc>,
    info: crate::aqm::LinkInfo,
    loss: Option<LossModel>,
    /// The wire is busy transmitting until this time.
    busy_until: Time,
    /// A `TxDone` event is scheduled for `busy_until`.
    tx_pending: bool,
    /// The queue emptied at the last transmission start and has not yet been asked for a packet at
    /// `busy_until`, the instant the link went idle.
    idle_unreported: bool,
    in_flight: VecDeque<(Time, PacketId)>,
    rng: Rng,
    metrics: LinkMetrics,
}

struct TcpConn {
    cfg: u16,
    ends: [Endpoint; 2],
    bytes: Option<u64>,
    /// Receiver stats at the end of the warm-up, to window the counters.
    at_warmup: [TcpStats; 2],
}

enum FlowState {
    Tcp(Box<TcpConn>),
    Udp(UdpSource),
}

/// Called with the simulated time every so often; returning false stops the run.
pub type Progress<'a> = &'a mut dyn FnMut(Time) -> bool;

pub struct Simulation {
    model: Model,
    now: Time,
    events: EventQueue<Event>,
    packets: PacketArena,
    links: Vec<Link>,
    flows: Vec<FlowState>,
    measuring: bool,
    samples: QueueSamples,
    cwnd_trace: CwndTrace,
    traced: Vec<bool>,
    event_count: u64,
    // Scratch buffers reused by every event.
    actions: Vec<QueueAction>,
    tcp_out: Vec<PacketId>,
    tcp_timers: Vec<(TimerKind, Time)>,
}

impl Simulation {
    pub fn new(model: Model) -> Self {
        let classes = model.classes.len();
        let links = model
            .links
            .iter()
            .map(|l| Link {
                queue: l.queue.build(l.info),
                info: l.info,
                loss: l.loss.as_ref().map(LossModel::new),
                busy_until: 0,
                tx_pending: false,
                idle_unreported: false,
                in_flight: VecDeque::new(),
                rng: rng::stream(model.seed, &format!("queue/{}", l.name)),
                metrics: LinkMetrics::new(classes),
            })
            .collect();
        let flows = model
            .flows
            .iter()
            .enumerate()
            .map(|(id, f)| {
                let id = id as u32;
                match &f.kind {
                    FlowModelKind::TcpBulk { tcp, bytes } => {
                        let cfg = &model.tcp_configs[*tcp as usize];
                        let mut r = rng::stream(model.seed, &format!("tcp/{id}"));
                        let mut phase = || if cfg.tick.0 > 0 { r.gen_range(0..cfg.tick.0) } else { 0 };
                        let ends = [
                            Endpoint::new(Role::Initiator, cfg, id, f.class, f.route, phase()),
                            Endpoint::new(Role::Responder, cfg, id, f.class, f.reverse_route, phase()),
                        ];
                        FlowState::Tcp(Box::new(TcpConn {
                            cfg: *tcp,
                            ends,
                            bytes: *bytes,
                            at_warmup: Default::default(),
                        }))
                    }
                    FlowModelKind::Udp { size, interval, poisson, stop } => FlowState::Udp(UdpSource::new(
                        *size,
                        *interval,
                        *poisson,
                        *stop,
                        rng::stream(model.seed, &format!("udp/{id}")),
                    )),
                }
            })
            .collect();
        let mut traced = vec![false; model.flows.len()];
        for &f in &model.trace_cwnd {
            traced[f as usize] = true;
        }
        let mut sim = Simulation {
            now: 0,
            events: EventQueue::default(),
            packets: PacketArena::default(),
            links,
            flows,
            measuring: false,
            samples: QueueSamples::default(),
            cwnd_trace: CwndTrace::default(),
            traced,
            event_count: 0,
            actions: Vec::new(),
            tcp_out: Vec::new(),
            tcp_timers: Vec::new(),
            model,
        };
        for (i, f) in sim.model.flows.iter().enumerate() {
            sim.events.schedule(f.start, Event::FlowStart(i as u32));
        }
        for (i, l) in sim.links.iter().enumerate() {
            if let Some(t) = l.queue.first_timer() {
                sim.events.schedule(t, Event::QueueTimer(i as u32));
            }
        }
        sim.events.schedule(sim.model.warmup, Event::WarmupEnd);
        sim
    }

    /// Runs to the scenario's end (or until `progress` returns false) and returns the results.
    pub fn run(mut self, progress: Option<Progress>) -> RunResult {
        let end = self.model.duration;
        let mut progress = progress;
        let report_every = (end / 200).max(1);
        let mut next_report = report_every;
        let mut interrupted = false;
        while let Some(t) = self.events.peek_time() {
            if t > end {
                break;
            }
            let (t, ev) = self.events.pop().expect("peeked");
            self.now = t;
            self.event_count += 1;
            self.handle(ev);
            if t >= next_report {
                next_report = t + report_every;
                if let Some(cb) = progress.as_mut() {
                    if !cb(t) {
                        interrupted = true;
                        break;
                    }
                }
            }
        }
        if !interrupted {
            self.now = end;
        }
        self.results(interrupted)
    }

    fn handle(&mut self, ev: Event) {
        match ev {
            Event::TxDone(l) => self.tx_done(l),
            Event::Arrival(l) => self.arrival(l),
            Event::QueueTimer(l) => self.queue_timer(l),
            Event::Tcp(f, side, kind) => self.tcp_timer(f, side, kind),
            Event::FlowStart(f) => self.flow_start(f),
            Event::UdpSend(f) => self.udp_send(f),
            Event::Sample => self.sample(),
            Event::WarmupEnd => self.warmup_end(),
        }
    }

    // ----- links -----------------------------------------------------------------------------------

    /// Offers a packet to link `l`'s queue and starts transmitting if the wire is free.
    fn enqueue(&mut self, l: u32, pkt: PacketId) {
        let link = &mut self.links[l as usize];
        if self.measuring {
            let p = self.packets.get(pkt);
            let c = &mut link.metrics.by_class[p.class as usize];
            c.arrivals += 1;
            c.arrival_bytes += p.size as u64;
        }
        if let Some(loss) = &mut link.loss {
            let p = self.packets.get(pkt);
            if loss.lose(p.payload, &mut link.rng) {
                if self.measuring {
                    let c = &mut link.metrics.by_class[p.class as usize];
                    c.drops_error += 1;
                    c.drop_bytes += p.size as u64;
                }
                self.packets.free(pkt);
                return;
            }
        }
        let wire_free = self.now >= link.busy_until && !link.tx_pending;
        if wire_free && link.idle_unreported {
            // The link went idle at `busy_until`: let the discipline see that instant first.
            link.idle_unreported = false;
            let at = link.busy_until;
            let idle = self.dequeue(l, at);
            debug_assert!(idle.is_none(), "a packet waited while the link was idle");
        }
        let link = &mut self.links[l as usize];
        let mut env = QueueEnv {
            now: self.now,
            link: link.info,
            packets: &mut self.packets,
            rng: &mut link.rng,
            actions: &mut self.actions,
        };
        link.queue.enqueue(pkt, &mut env);
        self.settle_actions(l);
        let link = &mut self.links[l as usize];
        if wire_free {
            self.start_tx(l);
        } else {
            if !link.tx_pending {
                link.tx_pending = true;
                self.events.schedule(link.busy_until, Event::TxDone(l));
            }
            self.record_queue(l);
        }
    }

    /// Asks link `l`'s discipline for its next packet at time `at`.
    fn dequeue(&mut self, l: u32, at: Time) -> Option<PacketId> {
        let link = &mut self.links[l as usize];
        let mut env = QueueEnv {
            now: at,
            link: link.info,
            packets: &mut self.packets,
            rng: &mut link.rng,
            actions: &mut self.actions,
        };
        let next = link.queue.dequeue(&mut env);
        self.settle_actions(l);
        next
    }

    /// The wire is free now: put the next waiting packet on it, if any.
    fn start_tx(&mut self, l: u32) {
        let next = self.dequeue(l, self.now);
        let link = &mut self.links[l as usize];
        if let Some(p) = next {
            let pk = self.packets.get(p);
            if self.measuring {
                let c = &mut link.metrics.by_class[pk.class as usize];
                c.departures += 1;
                c.departure_bytes += pk.size as u64;
            }
            link.metrics.forwards += 1;
            link.busy_until = self.now + time::tx_time(pk.size, link.info.rate_bps);
            let arrives = link.busy_until + link.info.delay;
            link.in_flight.push_back((arrives, p));
            if link.in_flight.len() == 1 {
                self.events.schedule(arrives, Event::Arrival(l));
            }
            if link.queue.len_packets() > 0 {
                link.tx_pending = true;
                self.events.schedule(link.busy_until, Event::TxDone(l));
            } else {
                link.idle_unreported = true;
            }
        }
        self.record_queue(l);
    }

    /// Counts and frees the packets a discipline dropped, and counts its marks.
    fn settle_actions(&mut self, l: u32) {
        if self.actions.is_empty() {
            return;
        }
        let link = &mut self.links[l as usize];
        for a in self.actions.drain(..) {
            match a {
                QueueAction::Dropped(p, reason) => {
                    if self.measuring {
                        let pk = self.packets.get(p);
                        link.metrics.by_class[pk.class as usize].count_drop(reason, pk.size);
                    }
                    self.packets.free(p);
                }
                QueueAction::Marked(p) => {
                    if self.measuring {
                        link.metrics.by_class[self.packets.get(p).class as usize].marks += 1;
                    }
                }
            }
        }
    }

    fn record_queue(&mut self, l: u32) {
        let link = &mut self.links[l as usize];
        link.metrics.q_pkts.set(self.now, link.queue.len_packets() as f64);
        link.metrics.q_bytes.set(self.now, link.queue.len_bytes() as f64);
    }

    fn tx_done(&mut self, l: u32) {
        self.links[l as usize].tx_pending = false;
        self.start_tx(l);
    }

    fn arrival(&mut self, l: u32) {
        let link = &mut self.links[l as usize];
        let (_, p) = link.in_flight.pop_front().expect("Arrival with nothing in flight");
        if let Some(&(next, _)) = link.in_flight.front() {
            self.events.schedule(next, Event::Arrival(l));
        }
        self.forward(p);
    }

    /// A packet reached the end of a link: deliver it or send it on along its route.
    fn forward(&mut self, p: PacketId) {
        let pkt = self.packets.get_mut(p);
        pkt.hop += 1;
        let route = &self.model.routes[pkt.route as usize];
        if (pkt.hop as usize) < route.len() {
            let next = route[pkt.hop as usize];
            self.enqueue(next, p);
        } else {
            self.deliver(p);
        }
    }

    /// Sends a packet created at its source onto the first link of its route.
    fn inject(&mut self, p: PacketId) {
        let pkt = self.packets.get(p);
        match self.model.routes[pkt.route as usize].first() {
            Some(&first) => self.enqueue(first, p),
            None => self.deliver(p),
        }
    }

    fn queue_timer(&mut self, l: u32) {
        let link = &mut self.links[l as usize];
        let mut env = QueueEnv {
            now: self.now,
            link: link.info,
            packets: &mut self.packets,
            rng: &mut link.rng,
            actions: &mut self.actions,
        };
        let next = link.queue.on_timer(&mut env);
        self.settle_actions(l);
        if let Some(t) = next {
            self.events.schedule(t, Event::QueueTimer(l));
        }
    }

    // ----- flows -----------------------------------------------------------------------------------

    fn deliver(&mut self, p: PacketId) {
        let pkt = self.packets.get(p).clone();
        self.packets.free(p);
        let f = pkt.flow;
        match (&mut self.flows[f as usize], pkt.proto) {
            (FlowState::Tcp(conn), Proto::Tcp) => {
                let side = if pkt.from_responder { 0 } else { 1 };
                let cfg = &self.model.tcp_configs[conn.cfg as usize];
                let mut io = TcpIo {
                    now: self.now,
                    packets: &mut self.packets,
                    out: &mut self.tcp_out,
                    timers: &mut self.tcp_timers,
                };
                let d = conn.ends[side].on_packet(cfg, &pkt, &mut io);
                if d.fin && side == 1 {
                    // Bulk receiver: close our side once the sender has closed its.
                    conn.ends[1].close(cfg, &mut io);
                }
                self.flush_tcp(f, side as u8);
            }
            (FlowState::Udp(u), Proto::Udp) => {
                if self.measuring {
                    u.received += 1;
                    u.bytes_received += pkt.size as u64;
                }
            }
            _ => unreachable!("packet protocol does not match its flow"),
        }
    }

    /// Injects the packets and schedules the timers an endpoint produced.
    fn flush_tcp(&mut self, f: u32, side: u8) {
        for (kind, t) in self.tcp_timers.drain(..) {
            self.events.schedule(t, Event::Tcp(f, side, kind));
        }
        if self.traced[f as usize] {
            if let FlowState::Tcp(c) = &self.flows[f as usize] {
                let e = &c.ends[0];
                self.cwnd_trace.record(f, self.now, e.cwnd, e.ssthresh, e.stats.timeouts);
            }
        }
        let mut out = std::mem::take(&mut self.tcp_out);
        for p in out.drain(..) {
            self.inject(p);
        }
        self.tcp_out = out;
    }

    fn tcp_timer(&mut self, f: u32, side: u8, kind: TimerKind) {
        if let FlowState::Tcp(conn) = &mut self.flows[f as usize] {
            let cfg = &self.model.tcp_configs[conn.cfg as usize];
            let mut io = TcpIo {
                now: self.now,
                packets: &mut self.packets,
                out: &mut self.tcp_out,
                timers: &mut self.tcp_timers,
            };
            conn.ends[side as usize].on_timer(cfg, kind, &mut io);
            self.flush_tcp(f, side);
        }
    }

    fn flow_start(&mut self, f: u32) {
        match &mut self.flows[f as usize] {
            FlowState::Tcp(conn) => {
                let cfg = &self.model.tcp_configs[conn.cfg as usize];
                let mut io = TcpIo {
                    now: self.now,
                    packets: &mut self.packets,
                    out: &mut self.tcp_out,
                    timers: &mut self.tcp_timers,
                };
                let client = &mut conn.ends[0];
                client.write(cfg, conn.bytes.unwrap_or(u64::MAX / 4), &mut io);
                if conn.bytes.is_some() {
                    client.close(cfg, &mut io);
                }
                client.connect(cfg, &mut io);
                self.flush_tcp(f, 0);
            }
            FlowState::Udp(_) => self.udp_send(f),
        }
    }

    fn udp_send(&mut self, f: u32) {
        let flow = &self.model.flows[f as usize];
        let FlowState::Udp(u) = &mut self.flows[f as usize] else { unreachable!("UdpSend for a TCP flow") };
        if self.now >= u.stop {
            return;
        }
        let p = u.make_packet(f, flow.class, flow.route, self.now, &mut self.packets);
        let next = u.next_send(self.now);
        self.events.schedule(next, Event::UdpSend(f));
        self.inject(p);
    }

    // ----- measurement -----------------------------------------------------------------------------

    fn warmup_end(&mut self) {
        self.measuring = true;
        for l in &mut self.links {
            l.metrics.q_pkts.restart(self.now);
            l.metrics.q_bytes.restart(self.now);
        }
        for f in &mut self.flows {
            match f {
                FlowState::Tcp(c) => c.at_warmup = [c.ends[0].stats.clone(), c.ends[1].stats.clone()],
                FlowState::Udp(u) => u.sent_at_warmup = u.sent,
            }
        }
        if !self.model.sample_links.is_empty() {
            self.sample();
        }
    }

    fn sample(&mut self) {
        let t = time::to_secs(self.now);
        for &l in &self.model.sample_links {
            let q = &self.links[l as usize].queue;
            self.samples.link.push(l);
            self.samples.t.push(t);
            self.samples.q_pkts.push(q.len_packets() as u32);
            self.samples.q_bytes.push(q.len_bytes());
        }
        let next = self.now + self.model.sample_interval;
        if next <= self.model.duration {
            self.events.schedule(next, Event::Sample);
        }
    }

    fn results(self, interrupted: bool) -> RunResult {
        let m = &self.model;
        let window = time::to_secs(self.now.saturating_sub(m.warmup)).max(f64::MIN_POSITIVE);
        let mut links = Vec::new();
        let mut link_classes = Vec::new();
        for (i, (l, lm)) in self.links.iter().zip(&m.links).enumerate() {
            let total = l.metrics.total();
            let (q_mean, q_std, q_max) = l.metrics.q_pkts.stats(self.now);
            let (qb_mean, qb_std, _) = l.metrics.q_bytes.stats(self.now);
            let (s_mean, s_std, s_n) = mean_std(
                self.samples
                    .link
                    .iter()
                    .zip(&self.samples.q_pkts)
                    .filter(|(&sl, _)| sl == i as u32)
                    .map(|(_, &q)| q as f64),
            );
            let drops = total.drops();
            links.push(LinkRow {
                link: lm.name.clone(),
                from: m.nodes[lm.from as usize].clone(),
                to: m.nodes[lm.to as usize].clone(),
                queue: lm.queue.name().to_string(),
                rate_bps: lm.info.rate_bps,
                delay_s: time::to_secs(lm.info.delay),
                drops,
                loss_rate: ratio(drops, total.arrivals),
                utilization: total.departure_bytes as f64 * 8.0 / (lm.info.rate_bps as f64 * window),
                counters: total,
                q_mean_pkts: q_mean,
                q_std_pkts: q_std,
                q_max_pkts: q_max,
                q_mean_bytes: qb_mean,
                q_std_bytes: qb_std,
                q_sample_mean_pkts: s_mean,
                q_sample_std_pkts: s_std,
                q_samples: s_n,
                queue_state: l
                    .queue
                    .state()
                    .iter()
                    .map(|(k, v)| format!("{k}={v:.6}"))
                    .collect::<Vec<_>>()
                    .join(" "),
            });
            for (c, counters) in l.metrics.by_class.iter().enumerate() {
                if counters.arrivals == 0 {
                    continue;
                }
                link_classes.push(LinkClassRow {
                    link: lm.name.clone(),
                    class: m.classes.get(c).cloned().unwrap_or_default(),
                    drops: counters.drops(),
                    loss_rate: ratio(counters.drops(), counters.arrivals),
                    counters: counters.clone(),
                });
            }
        }
        let flows = self
            .flows
            .iter()
            .zip(&m.flows)
            .enumerate()
            .map(|(i, (state, fm))| {
                let mut row = FlowRow {
                    flow: i as u32,
                    group: fm.group.clone(),
                    class: m.classes[fm.class as usize].clone(),
                    kind: String::new(),
                    src: m.nodes[fm.src as usize].clone(),
                    dst: m.nodes[fm.dst as usize].clone(),
                    start_s: time::to_secs(fm.start),
                    bytes_delivered: 0,
                    goodput_bps: 0.0,
                    packets_sent: 0,
                    retransmits: 0,
                    timeouts: 0,
                    fast_retransmits: 0,
                    ecn_reductions: 0,
                    srtt_s: f64::NAN,
                    cwnd: f64::NAN,
                };
                match state {
                    FlowState::Tcp(c) => {
                        let (snd, rcv) = (&c.ends[0], &c.ends[1]);
                        let (s0, r0) = (&c.at_warmup[0], &c.at_warmup[1]);
                        row.kind = "tcp".into();
                        row.bytes_delivered = rcv.stats.bytes_delivered - r0.bytes_delivered;
                        row.packets_sent = snd.stats.segments_sent - s0.segments_sent;
                        row.retransmits = snd.stats.retransmits - s0.retransmits;
                        row.timeouts = snd.stats.timeouts - s0.timeouts;
                        row.fast_retransmits = snd.stats.fast_retransmits - s0.fast_retransmits;
                        row.ecn_reductions = snd.stats.ecn_reductions - s0.ecn_reductions;
                        row.srtt_s = snd.srtt_secs();
                        row.cwnd = snd.cwnd;
                    }
                    FlowState::Udp(u) => {
                        row.kind = "udp".into();
                        row.bytes_delivered = u.bytes_received;
                        row.packets_sent = u.sent - u.sent_at_warmup;
                    }
                }
                row.goodput_bps = row.bytes_delivered as f64 * 8.0 / window;
                row
            })
            .collect();
        RunResult {
            summary: Summary {
                name: m.name.clone(),
                seed: m.seed,
                duration_s: time::to_secs(m.duration),
                warmup_s: time::to_secs(m.warmup),
                aqmlab_version: env!("CARGO_PKG_VERSION").to_string(),
                events: self.event_count,
                link_forwards: self.links.iter().map(|l| l.metrics.forwards).sum(),
                packets_peak: self.packets.capacity_used() as u64,
                flows: m.flows.len() as u64,
                interrupted,
                end_s: time::to_secs(self.now),
            },
            links,
            link_classes,
            flows,
            sample_link_names: m.links.iter().map(|l| l.name.clone()).collect(),
            queue_samples: self.samples,
            cwnd_trace: self.cwnd_trace,
        }
    }
}

fn ratio(a: u64, b: u64) -> f64 {
    if b == 0 {
        0.0
    } else {
        a as f64 / b as f64
    }
}
