//! One end of a TCP connection: sender (NewReno, RTO, ECN) and receiver (delayed ACKs, reassembly).
//!
//! The endpoint never touches the network: it creates packets into [`TcpIo::out`] and asks for timers
//! through [`TcpIo::timers`]; the engine routes the packets and schedules the events.

use super::rtt::RttEstimator;
use super::timer::{LazyTimer, TimerOutcome};
use super::{TcpConfig, HEADER_BYTES};
use crate::net::{flags, Ecn, Packet, PacketArena, PacketId, Proto};
use crate::sim::Time;
use std::num::NonZeroU64;

/// Which timer of an endpoint an event belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TimerKind {
    Retransmit,
    DelayedAck,
}

/// What an endpoint needs from the engine while it handles one event.
pub struct TcpIo<'a> {
    pub now: Time,
    pub packets: &'a mut PacketArena,
    /// Packets to inject at this endpoint's node, in order.
    pub out: &'a mut Vec<PacketId>,
    /// Timer events to schedule.
    pub timers: &'a mut Vec<(TimerKind, Time)>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    Initiator,
    Responder,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    Idle,
    SynSent,
    SynReceived,
    Established,
}

/// The congestion action that last changed the window (ns-2 `last_cwnd_action_`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum CwndAction {
    None,
    Dupack,
    Timeout,
    Ecn,
    Exited,
}

/// Counters of one endpoint.
#[derive(Clone, Debug, Default)]
pub struct TcpStats {
    /// Segments sent (data, control and pure ACKs).
    pub segments_sent: u64,
    /// Data or SYN/FIN segments sent again.
    pub retransmits: u64,
    pub timeouts: u64,
    pub fast_retransmits: u64,
    /// Window reductions caused by ECN-Echo.
    pub ecn_reductions: u64,
    /// Payload bytes delivered in order to the application.
    pub bytes_delivered: u64,
}

/// What receiving one packet meant for the application.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Delivery {
    /// The handshake completed with this packet.
    pub established: bool,
    /// Payload bytes newly delivered in order.
    pub bytes: u64,
    /// The peer's FIN was delivered (all its data has arrived).
    pub fin: bool,
}

/// Fields are laid out in the order written (`repr(C)`), one cache line per group, by when they are
/// touched: with a thousand connections the endpoints fall out of cache, and each line a segment
/// touches is a miss. A receiver handling data reads lines 0 and 2; a sender handling an ACK lines 0
/// to 3.
#[repr(C, align(64))]
pub struct Endpoint {
    // Line 0: every segment sent or received.
    state: State,
    pub role: Role,
    ecn_ok: bool,
    closing: bool,
    ece_pending: bool,
    fin_delivered: bool,
    first_partial: bool,
    cwr_pending: bool,
    /// Fields stamped on every packet this endpoint sends.
    flow: u32,
    route: u32,
    class: u16,
    last_action: CwndAction,
    unacked_segments: u32,
    rcv_nxt: u64,
    snd_una: u64,
    snd_nxt: u64,
    /// One past the last byte the application has written (data starts at sequence 1).
    app_end: u64,
    dupacks: u32,

    // Line 1: the sender's window.
    snd_max: u64,
    pub cwnd: f64,
    pub ssthresh: f64,
    dupwnd: f64,
    recover: u64,
    /// The segment being timed for an RTT sample: (sequence it must be acked past, send time).
    timing: Option<(u64, Time)>,

    // Line 2: the timers (every segment sent cancels the delayed ACK), the counters every segment
    // moves, and what the receiver checks on every segment.
    rto_timer: LazyTimer,
    delack_timer: LazyTimer,
    segments_sent: u64,
    bytes_delivered: u64,
    /// The end of the peer's FIN (which takes sequence number `end`), once it has arrived.
    peer_fin: Option<NonZeroU64>,
    ooo: OutOfOrder,

    // Line 3: the sender's RTT estimate.
    rtt: RttEstimator,

    // Line 4: counters of rare events.
    retransmits: u64,
    timeouts: u64,
    fast_retransmits: u64,
    ecn_reductions: u64,
}

const _: () = {
    use std::mem::offset_of;
    assert!(offset_of!(Endpoint, snd_max) == 64, "line 1 starts with snd_max");
    assert!(offset_of!(Endpoint, rto_timer) == 128, "line 2 starts with the timers");
    assert!(offset_of!(Endpoint, rtt) == 192, "line 3 is the RTT estimate");
    assert!(offset_of!(Endpoint, retransmits) == 256, "line 4 starts with the rare counters");
    assert!(std::mem::size_of::<Endpoint>() == 320, "five lines");
};

/// The receiver's out-of-order byte ranges [start, end), sorted, disjoint and not touching. The list
/// is allocated only while it holds any: the receiver checks it on every segment, and the pointer
/// alone shares a cache line with what that segment touches anyway.
#[derive(Default)]
#[allow(clippy::box_collection)] // the box makes it one 8-byte pointer, where a `Vec` takes 24
struct OutOfOrder(Option<Box<Vec<(u64, u64)>>>);

impl OutOfOrder {
    fn is_empty(&self) -> bool {
        self.0.is_none()
    }

    #[cfg(test)]
    fn ranges(&self) -> &[(u64, u64)] {
        self.0.as_deref().map_or(&[], Vec::as_slice)
    }

    fn insert(&mut self, start: u64, end: u64) {
        let ranges = self.0.get_or_insert_with(Box::default);
        // The ranges that overlap or touch [start, end) are consecutive: from the first that ends at or
        // after `start` to the last that starts at or before `end`. They become one, in place.
        let i = ranges.partition_point(|&(_, e)| e < start);
        let j = i + ranges[i..].partition_point(|&(s, _)| s <= end);
        if i == j {
            ranges.insert(i, (start, end));
        } else {
            ranges[i] = (start.min(ranges[i].0), end.max(ranges[j - 1].1));
            ranges.drain(i + 1..j);
        }
    }

    /// Takes out the ranges that in-order data up to `next` (exclusive) reaches; returns where the
    /// in-order data then ends.
    fn advance(&mut self, mut next: u64) -> u64 {
        let Some(ranges) = self.0.as_mut() else { return next };
        let reached = ranges.iter().take_while(|&&(s, _)| s <= next).count();
        if reached > 0 {
            next = next.max(ranges[reached - 1].1);
            ranges.drain(..reached);
            if ranges.is_empty() {
                self.0 = None;
            }
        }
        next
    }
}

impl Endpoint {
    /// `boot_offset` is the phase of this endpoint's RTT clock in [0, tick), drawn by the caller.
    pub fn new(role: Role, cfg: &TcpConfig, flow: u32, class: u16, route: u32, boot_offset: Time) -> Self {
        Endpoint {
            role,
            state: State::Idle,
            flow,
            class,
            route,
            ecn_ok: false,
            snd_una: 0,
            snd_nxt: 0,
            snd_max: 0,
            app_end: 1,
            closing: false,
            cwnd: cfg.init_cwnd,
            ssthresh: cfg.max_window as f64,
            dupwnd: 0.0,
            dupacks: 0,
            recover: 0,
            last_action: CwndAction::None,
            first_partial: false,
            cwr_pending: false,
            timing: None,
            rtt: RttEstimator::new(cfg.tick.0, boot_offset, cfg.initial_rto.0, cfg.min_rto.0, cfg.max_rto.0),
            rto_timer: LazyTimer::default(),
            rcv_nxt: 0,
            ooo: OutOfOrder::default(),
            peer_fin: None,
            fin_delivered: false,
            unacked_segments: 0,
            ece_pending: false,
            delack_timer: LazyTimer::default(),
            segments_sent: 0,
            bytes_delivered: 0,
            retransmits: 0,
            timeouts: 0,
            fast_retransmits: 0,
            ecn_reductions: 0,
        }
    }

    pub fn stats(&self) -> TcpStats {
        TcpStats {
            segments_sent: self.segments_sent,
            retransmits: self.retransmits,
            timeouts: self.timeouts,
            fast_retransmits: self.fast_retransmits,
            ecn_reductions: self.ecn_reductions,
            bytes_delivered: self.bytes_delivered,
        }
    }

    pub fn is_established(&self) -> bool {
        self.state == State::Established
    }

    /// True when this side's FIN has been acknowledged and the peer's FIN delivered.
    pub fn is_closed(&self) -> bool {
        self.fin_delivered && self.closing && self.snd_una > self.app_end
    }

    /// Bytes written by the application and not yet acknowledged.
    pub fn unacked_bytes(&self) -> u64 {
        self.app_end.saturating_sub(self.snd_una.max(1))
    }

    pub fn srtt_secs(&self) -> f64 {
        self.rtt.srtt_secs()
    }

    /// Starts the handshake (initiator).
    pub fn connect(&mut self, cfg: &TcpConfig, io: &mut TcpIo) {
        debug_assert_eq!(self.role, Role::Initiator);
        self.state = State::SynSent;
        self.send_syn(cfg, io);
    }

    /// Queues `bytes` more application data for sending.
    pub fn write(&mut self, cfg: &TcpConfig, bytes: u64, io: &mut TcpIo) {
        debug_assert!(!self.closing, "write after close");
        self.app_end += bytes;
        if self.state == State::Established {
            self.send_much(cfg, io);
        }
    }

    /// Closes the sending direction: a FIN follows the data already written.
    pub fn close(&mut self, cfg: &TcpConfig, io: &mut TcpIo) {
        if self.closing {
            return;
        }
        self.closing = true;
        if self.state == State::Established {
            self.send_much(cfg, io);
        }
    }

    /// Handles a timer event of this endpoint.
    pub fn on_timer(&mut self, cfg: &TcpConfig, kind: TimerKind, io: &mut TcpIo) {
        let timer = match kind {
            TimerKind::Retransmit => &mut self.rto_timer,
            TimerKind::DelayedAck => &mut self.delack_timer,
        };
        match timer.on_event(io.now) {
            TimerOutcome::Ignore => {}
            TimerOutcome::Reschedule(t) => io.timers.push((kind, t)),
            TimerOutcome::Fire => match kind {
                TimerKind::Retransmit => self.on_rto(cfg, io),
                TimerKind::DelayedAck => {
                    if self.unacked_segments > 0 {
                        self.send_ack(io);
                    }
                }
            },
        }
    }

    /// Handles a packet from the peer.
    pub fn on_packet(&mut self, cfg: &TcpConfig, pkt: &Packet, io: &mut TcpIo) -> Delivery {
        let mut d = Delivery::default();
        if pkt.has(flags::SYN) {
            self.on_syn(cfg, pkt, io, &mut d);
            return d;
        }
        if self.state == State::SynReceived && pkt.has(flags::ACK) && pkt.ack >= 1 {
            self.state = State::Established;
            self.snd_una = 1;
            self.snd_nxt = self.snd_nxt.max(1);
            self.rto_timer.cancel();
            self.take_rtt_sample(1, io.now);
            d.established = true;
        }
        if self.state != State::Established {
            return d; // stray segment before the handshake
        }
        let sent_before = io.out.len();
        if pkt.has(flags::ACK) {
            let pure = pkt.payload == 0 && !pkt.has(flags::FIN);
            self.on_ack(cfg, pkt.ack, pkt.has(flags::ECE), pure, io);
        }
        let mut ack_now = false;
        if pkt.payload > 0 || pkt.has(flags::FIN) {
            if pkt.has(flags::CWR) {
                self.ece_pending = false;
            }
            if pkt.ecn == Ecn::Ce {
                self.ece_pending = true;
            }
            ack_now = self.receive(cfg, pkt, io, &mut d);
        }
        if d.established && self.app_end > self.snd_nxt {
            self.send_much(cfg, io);
        }
        let piggybacked = io.out[sent_before..].iter().any(|&id| io.packets.get(id).payload > 0);
        if ack_now && !piggybacked {
            self.send_ack(io);
        }
        d
    }

    // ----- handshake -------------------------------------------------------------------------------

    fn send_syn(&mut self, cfg: &TcpConfig, io: &mut TcpIo) {
        let mut f = flags::SYN;
        if cfg.ecn {
            f |= flags::ECE | flags::CWR;
        }
        if self.snd_max > 0 {
            self.retransmits += 1;
        } else {
            self.timing = Some((1, io.now));
        }
        self.snd_nxt = 1;
        self.snd_max = 1;
        self.emit(0, 0, f, Ecn::NotEct, io);
        self.arm_rto(io);
    }

    fn on_syn(&mut self, cfg: &TcpConfig, pkt: &Packet, io: &mut TcpIo, d: &mut Delivery) {
        match (self.role, self.state) {
            (Role::Responder, State::Idle | State::SynReceived) => {
                // A first SYN, or a retransmitted one because our SYN-ACK was lost: (re)send SYN-ACK.
                self.rcv_nxt = 1;
                self.ecn_ok = cfg.ecn && pkt.has(flags::ECE) && pkt.has(flags::CWR);
                if self.state == State::SynReceived {
                    self.retransmits += 1;
                    self.timing = None;
                } else {
                    self.timing = Some((1, io.now));
                }
                self.state = State::SynReceived;
                self.snd_nxt = 1;
                self.snd_max = 1;
                let f = flags::SYN | flags::ACK | if self.ecn_ok { flags::ECE } else { 0 };
                self.emit(0, 0, f, Ecn::NotEct, io);
                self.arm_rto(io);
            }
            (Role::Initiator, State::SynSent) if pkt.has(flags::ACK) && pkt.ack == 1 => {
                self.rcv_nxt = 1;
                self.ecn_ok = cfg.ecn && pkt.has(flags::ECE);
                self.state = State::Established;
                self.snd_una = 1;
                self.rto_timer.cancel();
                self.take_rtt_sample(1, io.now);
                d.established = true;
                let before = io.out.len();
                self.send_much(cfg, io);
                if io.out.len() == before {
                    self.send_ack(io);
                }
            }
            (Role::Initiator, State::Established) => self.send_ack(io), // duplicate SYN-ACK: our ACK was lost
            _ => {}
        }
    }

    // ----- sender ----------------------------------------------------------------------------------

    /// Effective window in segments: `min(cwnd + dupwnd, max_window)` (ns-2 `window()`).
    fn window(&self, cfg: &TcpConfig) -> f64 {
        (self.cwnd + self.dupwnd).min(cfg.max_window as f64)
    }

    /// Sends new data (and the FIN) as far as the window allows.
    fn send_much(&mut self, cfg: &TcpConfig, io: &mut TcpIo) {
        if self.snd_nxt > self.app_end || (self.snd_nxt == self.app_end && !self.closing) {
            return; // no data and no FIN to send (a receiver's usual case)
        }
        // The window is never negative, so truncation is its floor.
        let allowed = (self.window(cfg) as u64).max(1) * cfg.mss as u64;
        let mut sent = 0;
        while self.snd_nxt <= self.app_end {
            let len = (self.app_end - self.snd_nxt).min(cfg.mss as u64);
            let fin = self.closing && self.snd_nxt + len == self.app_end;
            if len == 0 && !fin {
                break;
            }
            if len > 0 && self.snd_nxt - self.snd_una + len > allowed {
                break;
            }
            if cfg.nagle && len > 0 && len < cfg.mss as u64 && self.snd_nxt > self.snd_una {
                break; // Nagle: the partial segment waits for the outstanding data's ACK
            }
            self.send_segment(self.snd_nxt, cfg, io);
            sent += 1;
            if cfg.max_burst > 0 && sent >= cfg.max_burst {
                break;
            }
        }
    }

    /// Sends the segment starting at `seq` (new data, a retransmission, or the FIN) and advances
    /// `snd_nxt` past it when it is the next one in sequence.
    fn send_segment(&mut self, seq: u64, cfg: &TcpConfig, io: &mut TcpIo) {
        let len = self.app_end.saturating_sub(seq).min(cfg.mss as u64);
        let fin = self.closing && seq + len == self.app_end;
        let end = seq + len + fin as u64;
        let mut f = flags::ACK | if fin { flags::FIN } else { 0 };
        let ecn = if self.ecn_ok && len > 0 { Ecn::Ect0 } else { Ecn::NotEct };
        if seq < self.snd_max {
            self.retransmits += 1;
        } else {
            if self.cwr_pending && len > 0 {
                f |= flags::CWR;
                self.cwr_pending = false;
            }
            if self.timing.is_none() {
                self.timing = Some((end, io.now));
            }
        }
        self.emit(seq, len as u32, f, ecn, io);
        if seq == self.snd_nxt {
            self.snd_nxt = end;
        }
        self.snd_max = self.snd_max.max(end);
        if !self.rto_timer.is_armed() {
            self.arm_rto(io);
        }
    }

    fn on_ack(&mut self, cfg: &TcpConfig, ack: u64, ece: bool, pure: bool, io: &mut TcpIo) {
        let ece = ece && self.ecn_ok;
        if ece {
            self.on_ecn_echo(ack, cfg);
        }
        if ack > self.snd_una {
            let partial = self.last_action == CwndAction::Dupack && ack < self.recover;
            if partial {
                self.on_partial_ack(ack, cfg, io);
            } else {
                self.on_new_ack(ack, ece, cfg, io);
            }
        } else if ack == self.snd_una && pure && self.snd_max > self.snd_una {
            self.on_dupack(cfg, io);
        }
        if self.dupacks == 0 || self.dupacks >= cfg.dupack_threshold {
            self.send_much(cfg, io);
        }
    }

    fn on_new_ack(&mut self, ack: u64, ece: bool, cfg: &TcpConfig, io: &mut TcpIo) {
        if self.dupwnd > 0.0 {
            self.dupwnd = 0.0;
            if self.last_action == CwndAction::Dupack {
                self.last_action = CwndAction::Exited;
            }
        }
        self.first_partial = false;
        self.dupacks = 0;
        self.take_rtt_sample(ack, io.now);
        self.snd_una = ack;
        self.snd_nxt = self.snd_nxt.max(ack);
        if !ece {
            self.cwnd += if self.cwnd < self.ssthresh { 1.0 } else { 1.0 / self.cwnd };
        }
        self.restart_or_cancel_rto(cfg, io);
    }

    /// A partial ACK during fast recovery: deflate the window by what was acked, retransmit the next
    /// hole, and restart the timer only on the first one (ns-2 `partialnewack_helper`).
    fn on_partial_ack(&mut self, ack: u64, cfg: &TcpConfig, io: &mut TcpIo) {
        if !self.first_partial {
            self.first_partial = true;
            self.arm_rto(io);
        }
        let acked_segments = (ack - self.snd_una).div_ceil(cfg.mss as u64) as f64;
        if self.dupwnd > acked_segments {
            self.dupwnd -= acked_segments - 1.0;
        } else {
            self.cwnd = (self.cwnd - (acked_segments - self.dupwnd)).max(1.0);
            self.dupwnd = 0.0;
        }
        if matches!(self.timing, Some((end, _)) if ack >= end) {
            self.timing = None;
            self.rtt.backoff = 1;
        }
        self.snd_una = ack;
        self.snd_nxt = self.snd_nxt.max(ack);
        self.send_segment(self.snd_una, cfg, io);
    }

    fn on_dupack(&mut self, cfg: &TcpConfig, io: &mut TcpIo) {
        self.dupacks += 1;
        let k = cfg.dupack_threshold;
        if self.dupacks == k {
            self.fast_retransmit(cfg, io);
            self.dupwnd = k as f64;
        } else if self.dupacks > k {
            self.dupwnd += 1.0;
        } else if cfg.limited_transmit {
            // One new segment beyond cwnd per early duplicate ACK (RFC 3042, ns-2 `send_one`).
            let len = self.app_end.saturating_sub(self.snd_nxt).min(cfg.mss as u64);
            let outstanding = self.snd_nxt - self.snd_una + len;
            let limit = (self.cwnd + self.dupacks as f64).min(cfg.max_window as f64) * cfg.mss as f64;
            if len > 0 && outstanding as f64 <= limit {
                self.send_segment(self.snd_nxt, cfg, io);
            }
        }
    }

    /// The third duplicate ACK (ns-2 NewReno `dupack_action`).
    fn fast_retransmit(&mut self, cfg: &TcpConfig, io: &mut TcpIo) {
        let recovered = self.snd_una > self.recover;
        if !recovered {
            if self.ecn_ok && self.last_action == CwndAction::Ecn {
                // The window was already halved for ECN in this window: retransmit without halving.
                self.last_action = CwndAction::Dupack;
                self.timing = None;
                self.arm_rto(io);
                self.send_segment(self.snd_una, cfg, io);
            }
            return; // "careful" NewReno: no second fast retransmit in one window
        }
        self.recover = self.snd_max;
        self.last_action = CwndAction::Dupack;
        self.timing = None;
        self.halve(cfg);
        self.fast_retransmits += 1;
        self.arm_rto(io);
        self.send_segment(self.snd_una, cfg, io);
    }

    /// ssthresh = cwnd = floor(min(cwnd, max_window)) / 2, ssthresh at least 2 (ns-2 `slowdown`).
    fn halve(&mut self, cfg: &TcpConfig) {
        let half = (self.cwnd.min(cfg.max_window as f64).floor() / 2.0).floor();
        self.ssthresh = half.max(2.0);
        self.cwnd = half.max(1.0);
        if self.ecn_ok {
            self.cwr_pending = true;
        }
    }

    fn on_ecn_echo(&mut self, ack: u64, cfg: &TcpConfig) {
        if ack > self.recover || self.last_action == CwndAction::Timeout {
            self.recover = self.snd_max;
            self.last_action = CwndAction::Ecn;
            self.halve(cfg);
            self.ecn_reductions += 1;
        }
    }

    fn on_rto(&mut self, cfg: &TcpConfig, io: &mut TcpIo) {
        if self.state == State::Established && self.snd_una >= self.snd_max {
            // Idle: only slow-start restart keeps the timer running with nothing outstanding.
            self.cwnd = 1.0;
            self.last_action = CwndAction::Timeout;
            return self.restart_or_cancel_rto(cfg, io);
        }
        self.timeouts += 1;
        self.rtt.back_off();
        match self.state {
            State::SynSent => return self.send_syn(cfg, io),
            State::SynReceived => {
                self.retransmits += 1;
                let f = flags::SYN | flags::ACK | if self.ecn_ok { flags::ECE } else { 0 };
                self.timing = None;
                self.emit(0, 0, f, Ecn::NotEct, io);
                return self.arm_rto(io);
            }
            State::Idle => return,
            State::Established => {}
        }
        self.recover = self.snd_max;
        self.last_action = CwndAction::Timeout;
        let half = (self.cwnd.min(cfg.max_window as f64).floor() / 2.0).floor();
        self.ssthresh = half.max(2.0);
        self.cwnd = 1.0;
        self.dupwnd = 0.0;
        self.dupacks = 0;
        self.first_partial = false;
        self.timing = None;
        self.snd_nxt = self.snd_una; // go back N
        self.arm_rto(io);
        self.send_much(cfg, io);
    }

    fn take_rtt_sample(&mut self, ack: u64, now: Time) {
        if let Some((end, sent)) = self.timing {
            if ack >= end {
                self.rtt.sample(now - sent, now);
                self.rtt.backoff = 1;
                self.timing = None;
            }
        }
    }

    fn arm_rto(&mut self, io: &mut TcpIo) {
        if let Some(t) = self.rto_timer.arm(io.now + self.rtt.timeout()) {
            io.timers.push((TimerKind::Retransmit, t));
        }
    }

    /// After an ACK: the timer runs while data is outstanding, and (slow-start restart) while this
    /// side may still send, so that idleness is noticed.
    fn restart_or_cancel_rto(&mut self, cfg: &TcpConfig, io: &mut TcpIo) {
        let finished = self.closing && self.snd_una > self.app_end;
        if self.snd_una < self.snd_max || (cfg.slow_start_restart && !finished) {
            self.arm_rto(io);
        } else {
            self.rto_timer.cancel();
        }
    }

    // ----- receiver --------------------------------------------------------------------------------

    /// Accepts a data/FIN segment; returns true when it must be acknowledged at once.
    fn receive(&mut self, cfg: &TcpConfig, pkt: &Packet, io: &mut TcpIo, d: &mut Delivery) -> bool {
        let start = pkt.seq;
        let end = start + pkt.payload as u64;
        if pkt.has(flags::FIN) {
            self.peer_fin = NonZeroU64::new(end);
        }
        if start > self.rcv_nxt {
            self.ooo.insert(start, end);
            return true; // out of order: duplicate ACK now
        }
        if end <= self.rcv_nxt && (self.fin_delivered || !pkt.has(flags::FIN)) {
            return true; // old duplicate
        }
        let filled_gap = !self.ooo.is_empty();
        let before = self.rcv_nxt;
        self.rcv_nxt = self.ooo.advance(self.rcv_nxt.max(end));
        d.bytes = self.rcv_nxt - before;
        self.bytes_delivered += d.bytes;
        if self.peer_fin.map(NonZeroU64::get) == Some(self.rcv_nxt) && !self.fin_delivered {
            self.rcv_nxt += 1;
            self.fin_delivered = true;
            d.fin = true;
            return true;
        }
        if filled_gap || !cfg.delayed_ack {
            return true;
        }
        self.unacked_segments += 1;
        if self.unacked_segments >= cfg.ack_every {
            return true;
        }
        if !self.delack_timer.is_armed() {
            if let Some(t) = self.delack_timer.arm(io.now + cfg.delack_timeout.0) {
                io.timers.push((TimerKind::DelayedAck, t));
            }
        }
        false
    }

    fn send_ack(&mut self, io: &mut TcpIo) {
        self.emit(self.snd_nxt, 0, flags::ACK, Ecn::NotEct, io);
    }

    /// Creates one packet; every packet carries the cumulative ACK, which also serves any pending
    /// delayed ACK.
    fn emit(&mut self, seq: u64, payload: u32, mut f: u8, ecn: Ecn, io: &mut TcpIo) {
        if self.ece_pending && f & flags::SYN == 0 {
            f |= flags::ECE;
        }
        if f & flags::ACK != 0 {
            self.unacked_segments = 0;
            self.delack_timer.cancel();
        }
        self.segments_sent += 1;
        let id = io.packets.alloc(Packet {
            size: payload + HEADER_BYTES,
            payload,
            proto: Proto::Tcp,
            ecn,
            flags: f,
            from_responder: self.role == Role::Responder,
            flow: self.flow,
            flow_gen: 0, // stamped by the engine
            class: self.class,
            next_hop: self.route,
            seq,
            ack: self.rcv_nxt,
            enqueued_at: io.now,
            next_on_link: crate::net::packet::NO_PACKET,
            next_arrives: 0,
        });
        io.out.push(id);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Two endpoints joined by a lossless wire; packets are handed over by hand.
    struct Pair {
        cfg: TcpConfig,
        ends: [Endpoint; 2],
        packets: PacketArena,
        now: Time,
        /// Timers the last calls asked for.
        timers: Vec<(TimerKind, Time)>,
    }

    impl Pair {
        fn new(cfg: TcpConfig) -> Self {
            let ends = [
                Endpoint::new(Role::Initiator, &cfg, 0, 0, 0, 0),
                Endpoint::new(Role::Responder, &cfg, 0, 0, 1, 0),
            ];
            Pair { cfg, ends, packets: PacketArena::default(), now: 0, timers: Vec::new() }
        }

        /// Runs `f` on endpoint `side` and returns the packets it sent.
        fn call(
            &mut self,
            side: usize,
            f: impl FnOnce(&mut Endpoint, &TcpConfig, &mut TcpIo),
        ) -> Vec<Packet> {
            let mut out = Vec::new();
            let mut io =
                TcpIo { now: self.now, packets: &mut self.packets, out: &mut out, timers: &mut self.timers };
            f(&mut self.ends[side], &self.cfg, &mut io);
            out.iter().map(|&id| self.packets.get(id).clone()).collect()
        }

        fn deliver(&mut self, to: usize, pkts: &[Packet]) -> Vec<Packet> {
            let mut replies = Vec::new();
            for p in pkts {
                replies.extend(self.call(to, |e, cfg, io| {
                    e.on_packet(cfg, p, io);
                }));
            }
            replies
        }
    }

    /// The out-of-order list stays sorted, disjoint and not touching, and covers exactly the bytes of
    /// the ranges inserted; in-order data reaching up to a byte then continues to the first byte not
    /// covered, and the list keeps only what lies beyond (both checked against a byte map).
    #[test]
    fn out_of_order_ranges_merge_into_what_they_cover() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand::rngs::StdRng::seed_from_u64(3);
        for _ in 0..200 {
            let mut e = Endpoint::new(Role::Responder, &TcpConfig::default(), 0, 0, 0, 0);
            let mut covered = [false; 200];
            let listed =
                |e: &Endpoint, b: usize| e.ooo.ranges().iter().any(|&(s, t)| s <= b as u64 && (b as u64) < t);
            for _ in 0..rng.gen_range(1..30) {
                let start = rng.gen_range(0..190u64);
                let end = start + rng.gen_range(1..10);
                e.ooo.insert(start, end);
                covered[start as usize..end as usize].fill(true);
                let ranges = e.ooo.ranges();
                assert!(ranges.windows(2).all(|w| w[0].1 < w[1].0), "{ranges:?}");
                assert!((0..200).all(|b| covered[b] == listed(&e, b)), "{ranges:?}");
            }
            let next = rng.gen_range(0..200);
            let expected = (next..200).find(|&b| !covered[b]).unwrap_or(200);
            assert_eq!(e.ooo.advance(next as u64), expected as u64);
            assert!(e.ooo.ranges().iter().all(|&(s, _)| s > expected as u64));
            assert!((expected..200).all(|b| covered[b] == listed(&e, b)));
            assert_eq!(e.ooo.is_empty(), !covered[expected..].contains(&true));
        }
    }

    #[test]
    fn nagle_holds_a_partial_segment_until_the_outstanding_data_is_acked() {
        for nagle in [false, true] {
            let cfg = TcpConfig { nagle, delayed_ack: false, ..TcpConfig::default() };
            let mut p = Pair::new(cfg);
            let syn = p.call(0, |e, cfg, io| e.connect(cfg, io));
            let syn_ack = p.deliver(1, &syn);
            // The initiator writes one full segment and a 100-byte tail once the handshake is done.
            let ack = p.deliver(0, &syn_ack);
            let _ = p.deliver(1, &ack);
            let data = p.call(0, |e, cfg, io| e.write(cfg, 1560, io));
            let sizes: Vec<u32> = data.iter().map(|d| d.payload).collect();
            if nagle {
                assert_eq!(sizes, vec![1460], "the tail waits");
                let acks = p.deliver(1, &data);
                let tail = p.deliver(0, &acks);
                assert_eq!(tail.iter().map(|d| d.payload).collect::<Vec<_>>(), vec![100]);
            } else {
                assert_eq!(sizes, vec![1460, 100]);
            }
        }
    }

    #[test]
    fn an_idle_sender_restarts_from_one_segment() {
        for restart in [true, false] {
            let cfg = TcpConfig { slow_start_restart: restart, delayed_ack: false, ..TcpConfig::default() };
            let mut p = Pair::new(cfg);
            let syn = p.call(0, |e, cfg, io| e.connect(cfg, io));
            let syn_ack = p.deliver(1, &syn);
            let ack = p.deliver(0, &syn_ack);
            let _ = p.deliver(1, &ack);
            // Ten segments, exchanged until everything is acknowledged: cwnd grows in slow start.
            let mut data = p.call(0, |e, cfg, io| e.write(cfg, 10 * 1460, io));
            while !data.is_empty() {
                p.now += 10_000_000;
                let acks = p.deliver(1, &data);
                data = p.deliver(0, &acks);
            }
            let (cwnd, ssthresh) = (p.ends[0].cwnd, p.ends[0].ssthresh);
            assert!(cwnd > 5.0);
            // Fire the sender's retransmission timer events in time order, as the engine would.
            let mut fired = 0;
            while let Some(i) = (0..p.timers.len())
                .filter(|&i| p.timers[i].0 == TimerKind::Retransmit)
                .min_by_key(|&i| p.timers[i].1)
            {
                let (_, at) = p.timers.swap_remove(i);
                p.now = p.now.max(at);
                let sent = p.call(0, |e, cfg, io| e.on_timer(cfg, TimerKind::Retransmit, io));
                assert!(sent.is_empty(), "nothing to retransmit");
                fired += 1;
                if p.ends[0].cwnd == 1.0 || fired > 5 {
                    break;
                }
            }
            if restart {
                // With nothing outstanding the timer still expires, and the window restarts from one.
                assert_eq!(p.ends[0].cwnd, 1.0);
                assert_eq!(p.ends[0].ssthresh, ssthresh);
            } else {
                assert_eq!(p.ends[0].cwnd, cwnd, "an idle connection keeps its window");
            }
            assert_eq!(p.ends[0].stats().timeouts, 0);
        }
    }
}
