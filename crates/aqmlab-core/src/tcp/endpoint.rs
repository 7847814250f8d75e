//! One end of a TCP connection: sender (NewReno fast recovery, RTO, ECN, pacing) and receiver (delayed
//! ACKs, reassembly, ECN-Echo: RFC 3168's, or DCTCP's with `cc = "dctcp"` or `"prague"`). The window
//! arithmetic is the congestion controller's ([`super::cc`]).
//!
//! The endpoint never touches the network: it creates packets into [`TcpIo::out`] and asks for timers
//! through [`TcpIo::timers`]; the engine routes the packets and schedules the events.

use super::cc::{Ack, AnyController, EcnFeedback};
use super::rtt::RttEstimator;
use super::timer::{LazyTimer, TimerOutcome};
use super::{Recovery, TcpConfig, HEADER_BYTES};
use crate::net::{flags, Ecn, Packet, PacketArena, PacketId};
use crate::sim::Time;
use std::num::NonZeroU64;

/// Segments sent per ACK during fast recovery: with `recovery = full_tcp` from a partial ACK until
/// recovery ends (ns-2 `Agent/TCP/FullTcp/Newreno`'s `recov_maxburst_`), with `one_way` on every ACK
/// that finds three or more duplicates counted, partial ACKs included (ns-2 `Agent/TCP/Newreno`'s
/// `send_much(0, 0, 2)`).
const RECOV_MAXBURST: u32 = 2;

/// `last_data_sent` before any data has left.
const NEVER: Time = Time::MAX;

/// Which timer of an endpoint an event belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TimerKind {
    Retransmit,
    DelayedAck,
    /// Releases the next paced segment (docs/tcp.md#pacing).
    Pacing,
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
    /// The timeouts among them that followed an ECN reduction and left ssthresh alone; ns-2's
    /// `nrexmit_` leaves them out (TcpAgent::timeout counts only the timeouts that halve ssthresh).
    pub timeouts_after_ecn: u64,
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
/// to 3, and line 4 too when it paces.
#[repr(C, align(64))]
pub struct Endpoint {
    // Line 0: every segment sent or received.
    state: State,
    pub role: Role,
    ecn_ok: bool,
    closing: bool,
    /// The receiver sets ECN-Echo on what it sends. RFC 3168: from a CE segment until a CWR one;
    /// DCTCP: the CE state of the last data segment (RFC 8257's `DCTCP.CE`).
    ece_pending: bool,
    fin_delivered: bool,
    first_partial: bool,
    cwr_pending: bool,
    /// Fields stamped on every packet this endpoint sends.
    flow: u32,
    route: u32,
    class: u16,
    last_action: CwndAction,
    /// `recovery = full_tcp`: an ACK is owed to the peer (ns-2 FullTcp's `TF_ACKNOW` left set by a
    /// duplicate SYN it ignored): the next segment received that sends nothing sends a pure ACK.
    ack_owed: bool,
    /// What this side has received in order since it last sent an ACK: segments, or with
    /// `recovery = full_tcp` bytes (ns-2 FullTcp's `rcv_nxt_ - last_ack_sent_`).
    unacked: u32,
    rcv_nxt: u64,
    snd_una: u64,
    snd_nxt: u64,
    /// One past the last byte the application has written (data starts at sequence 1).
    app_end: u64,
    dupacks: u32,
    /// A reduction for ECN-Echo found cwnd at one segment or less (ns-2 `ecn_backoff_`): the next such
    /// reduction, before an ACK without ECN-Echo, backs the retransmission timer off.
    ecn_backoff: bool,
    /// `recovery = full_tcp`: in fast recovery, from the third duplicate ACK to the ACK that ends it or
    /// a timeout (ns-2 FullTcp `fastrecov_`).
    fast_recovery: bool,
    /// `recovery = full_tcp`: at most [`RECOV_MAXBURST`] segments per ACK, from a partial ACK until an
    /// ACK that is not partial (ns-2 NewRenoFullTcpAgent `save_maxburst_ >= 0`).
    recovery_burst: bool,
    /// New data leaves no faster than the pacing rate (`tcp.pacing`, else the controller's wish).
    paced: bool,

    // Line 1: the sender's window.
    snd_max: u64,
    /// The congestion controller: 24 bytes (NewReno's cwnd and ssthresh and the enum's tag; a
    /// controller with more state keeps it behind a pointer).
    cc: AnyController,
    dupwnd: f64,
    recover: u64,
    /// The segment being timed for an RTT sample: (sequence it must be acked past, send time).
    /// Sequence numbers start at 1, so the option takes no space of its own (16 bytes, where the
    /// controller takes 24).
    timing: Option<(NonZeroU64, Time)>,

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

    // Line 4: counters of rare events, FullTcp's idle clock, and pacing's state (touched by paced
    // senders and FullTcp senders only).
    retransmits: u64,
    timeouts: u64,
    fast_retransmits: u64,
    timeouts_after_ecn: u32,
    ecn_reductions: u32,
    /// `recovery = full_tcp` with slow-start restart: when the last data segment left ([`NEVER`] before
    /// the first; ns-2 FullTcp's `last_send_time_`).
    last_data_sent: Time,
    /// Pacing (only when `paced`): the timer that releases the next segment, and when it may leave.
    pace_timer: LazyTimer,
    pace_next: Time,
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
        let cc = cfg.cc.build(cfg);
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
            paced: cfg.pacing.unwrap_or_else(|| cc.wants_pacing()),
            cc,
            dupwnd: 0.0,
            dupacks: 0,
            ecn_backoff: false,
            fast_recovery: false,
            recovery_burst: false,
            recover: 0,
            last_action: CwndAction::None,
            ack_owed: false,
            first_partial: false,
            cwr_pending: false,
            timing: None,
            rtt: RttEstimator::new(cfg.tick.0, boot_offset, cfg.initial_rto.0, cfg.min_rto.0, cfg.max_rto.0),
            rto_timer: LazyTimer::default(),
            rcv_nxt: 0,
            ooo: OutOfOrder::default(),
            peer_fin: None,
            fin_delivered: false,
            unacked: 0,
            ece_pending: false,
            delack_timer: LazyTimer::default(),
            segments_sent: 0,
            bytes_delivered: 0,
            retransmits: 0,
            timeouts: 0,
            timeouts_after_ecn: 0,
            last_data_sent: NEVER,
            fast_retransmits: 0,
            ecn_reductions: 0,
            pace_timer: LazyTimer::default(),
            pace_next: 0,
        }
    }

    pub fn stats(&self) -> TcpStats {
        TcpStats {
            segments_sent: self.segments_sent,
            retransmits: self.retransmits,
            timeouts: self.timeouts,
            timeouts_after_ecn: self.timeouts_after_ecn as u64,
            fast_retransmits: self.fast_retransmits,
            ecn_reductions: self.ecn_reductions as u64,
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

    /// The congestion window, segments (without fast recovery's inflation).
    pub fn cwnd(&self) -> f64 {
        self.cc.cwnd()
    }

    pub fn ssthresh(&self) -> f64 {
        self.cc.ssthresh()
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
        self.append(cfg, bytes, io);
    }

    fn append(&mut self, cfg: &TcpConfig, bytes: u64, io: &mut TcpIo) {
        self.app_end += bytes;
        if self.state == State::Established {
            self.send_much(cfg, io);
        }
    }

    /// Queues the last `bytes` of application data and closes. With `recovery = full_tcp` this is ns-2
    /// FullTcp's `sendmsg(bytes, "MSG_EOF")`: the FIN rides on the segment that empties the buffer if
    /// nothing is outstanding when it leaves, else it follows alone once everything is acknowledged
    /// (`close_on_empty_`); otherwise it is `write` then `close`.
    pub fn write_last(&mut self, cfg: &TcpConfig, bytes: u64, io: &mut TcpIo) {
        if cfg.recovery != Recovery::FullTcp {
            self.write(cfg, bytes, io);
            return self.close(cfg, io);
        }
        debug_assert!(!self.closing, "write after close");
        self.closing = true;
        self.append(cfg, bytes, io);
    }

    /// Whether the segment `[seq, seq + len)` carries the FIN: it ends the data of a closing side and,
    /// with `recovery = full_tcp`, nothing is outstanding or the FIN has been sent before.
    fn carries_fin(&self, seq: u64, len: u64, cfg: &TcpConfig) -> bool {
        self.closing
            && seq + len == self.app_end
            && (cfg.recovery != Recovery::FullTcp
                || self.snd_una == self.snd_max
                || self.snd_max > self.app_end)
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
            TimerKind::Pacing => &mut self.pace_timer,
        };
        match timer.on_event(io.now) {
            TimerOutcome::Ignore => {}
            TimerOutcome::Reschedule(t) => io.timers.push((kind, t)),
            TimerOutcome::Fire => match kind {
                TimerKind::Retransmit => self.on_rto(cfg, io),
                TimerKind::DelayedAck => {
                    if self.unacked > 0 {
                        self.send_ack(cfg, io);
                    }
                }
                TimerKind::Pacing => self.send_much(cfg, io),
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
            if cfg.recovery == Recovery::FullTcp {
                self.cc.set_cwnd(cfg.init_cwnd); // FullTcpAgent::recv: `cwnd_ = initial_window()`
            }
            self.state = State::Established;
            self.snd_una = 1;
            self.snd_nxt = self.snd_nxt.max(1);
            self.rto_timer.cancel();
            self.take_rtt_sample(1, io.now, false, cfg);
            d.established = true;
        }
        if self.state != State::Established {
            return d; // stray segment before the handshake
        }
        let sent_before = io.out.len();
        let carries_data = pkt.payload() > 0 || pkt.has(flags::FIN);
        // RFC 3168's echo: ECN-Echo from a CE segment until a CWR one. FullTcp reads both on every
        // segment, pure ACKs too, before the segment's ACK is processed (FullTcpAgent::recv).
        if !cfg.cc.echoes_each_mark() && (carries_data || cfg.recovery == Recovery::FullTcp) {
            if pkt.has(flags::CWR) {
                self.ece_pending = false;
            }
            if pkt.ecn == Ecn::Ce {
                self.ece_pending = true;
            }
        }
        if pkt.has(flags::ACK) {
            let pure = !carries_data;
            self.on_ack(cfg, pkt.ack, pkt.has(flags::ECE), pure, io);
        }
        let mut ack_now = false;
        if carries_data {
            if cfg.cc.echoes_each_mark() {
                self.dctcp_ce_state(pkt.ecn == Ecn::Ce, cfg, io);
            }
            ack_now = self.receive(cfg, pkt, io, &mut d);
        }
        if d.established && self.app_end > self.snd_nxt {
            self.send_much(cfg, io);
        }
        let piggybacked = io.out[sent_before..].iter().any(|&id| io.packets.get(id).payload() > 0);
        // Any segment sent here carried an owed ACK (`emit` settles it).
        if (ack_now && !piggybacked) || self.ack_owed {
            self.send_ack(cfg, io);
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
            // Karn: a retransmitted SYN times nothing (ns-2 starts timing only above maxseq_ and its
            // timeout stops the running one), so the handshake gives no RTT sample.
            self.retransmits += 1;
            self.timing = None;
        } else {
            self.timing = Some((NonZeroU64::MIN, io.now));
        }
        self.snd_nxt = 1;
        self.snd_max = 1;
        self.emit(0, 0, f, Ecn::NotEct, io);
        self.arm_rto(io);
    }

    fn on_syn(&mut self, cfg: &TcpConfig, pkt: &Packet, io: &mut TcpIo, d: &mut Delivery) {
        match (self.role, self.state) {
            // ns-2 FullTcp ignores a duplicate SYN once it has answered one: its own timer resends the
            // SYN-ACK (FullTcpAgent::recv, "We should just ignore the duplicate SYN"), but trimming the SYN
            // leaves `TF_ACKNOW` set, so an ACK is owed.
            (Role::Responder, State::SynReceived | State::Established)
                if cfg.recovery == Recovery::FullTcp =>
            {
                self.ack_owed = true;
            }
            (Role::Responder, State::Idle | State::SynReceived) => {
                // A first SYN, or a retransmitted one because our SYN-ACK was lost: (re)send SYN-ACK.
                self.rcv_nxt = 1;
                self.ecn_ok = cfg.ecn && pkt.has(flags::ECE) && pkt.has(flags::CWR);
                if self.state == State::SynReceived {
                    self.retransmits += 1;
                    self.timing = None;
                } else {
                    self.timing = Some((NonZeroU64::MIN, io.now));
                }
                self.state = State::SynReceived;
                self.snd_nxt = 1;
                self.snd_max = 1;
                let f = flags::SYN | flags::ACK | if self.ecn_ok { flags::ECE } else { 0 };
                self.emit(0, 0, f, Ecn::NotEct, io);
                self.arm_rto(io);
            }
            (Role::Initiator, State::SynSent) if pkt.has(flags::ACK) && pkt.ack == 1 => {
                if cfg.recovery == Recovery::FullTcp {
                    self.cc.set_cwnd(cfg.init_cwnd); // FullTcpAgent::recv: `cwnd_ = initial_window()`
                }
                self.rcv_nxt = 1;
                self.ecn_ok = cfg.ecn && pkt.has(flags::ECE);
                self.state = State::Established;
                self.snd_una = 1;
                self.rto_timer.cancel();
                self.take_rtt_sample(1, io.now, false, cfg);
                d.established = true;
                let before = io.out.len();
                if cfg.recovery == Recovery::FullTcp {
                    // ns-2's FullTcp acknowledges the SYN-ACK with a pure ACK before any data, as the
                    // connect() of a socket API completes before the first write.
                    self.send_ack(cfg, io);
                }
                self.send_much(cfg, io);
                if io.out.len() == before {
                    self.send_ack(cfg, io);
                }
            }
            (Role::Initiator, State::Established) => self.send_ack(cfg, io), // duplicate SYN-ACK: our ACK was lost
            _ => {}
        }
    }

    // ----- sender ----------------------------------------------------------------------------------

    /// Effective window in segments: `min(cwnd + dupwnd, max_window)` (ns-2 `window()`).
    fn window(&self, cfg: &TcpConfig) -> f64 {
        (self.cc.cwnd() + self.dupwnd).min(cfg.max_window as f64)
    }

    /// Sends new data (and the FIN) as far as the window and the burst limit allow.
    fn send_much(&mut self, cfg: &TcpConfig, io: &mut TcpIo) {
        let max_burst = if self.recovery_burst { RECOV_MAXBURST } else { cfg.max_burst };
        self.send_up_to(max_burst, cfg, io);
    }

    /// Sends new data (and the FIN) as far as the window allows, at most `max_burst` segments (0: no
    /// limit).
    fn send_up_to(&mut self, max_burst: u32, cfg: &TcpConfig, io: &mut TcpIo) {
        if self.snd_nxt > self.app_end || (self.snd_nxt == self.app_end && !self.closing) {
            return; // no data and no FIN to send (a receiver's usual case)
        }
        if cfg.recovery == Recovery::FullTcp
            && cfg.slow_start_restart
            && self.snd_una == self.snd_max
            && self.snd_nxt < self.app_end
            && self.last_data_sent != NEVER
            && self.window(cfg) >= 1.0
            && self.rtt.idle_longer_than_rto(self.last_data_sent, io.now)
        {
            // FullTcp's slow-start restart (foutput, idle_restart): new data after an idle period
            // longer than the RTO since the last data sent starts again from the initial window,
            // ssthresh kept; `slowdown` sets `cong_action_`. foutput runs only for a segment the window
            // lets out, so a window below one segment (an ECN reduction's) waits for the timer.
            self.cc.set_cwnd(cfg.init_cwnd.floor());
            if self.ecn_ok {
                self.cwr_pending = true;
            }
        }
        // The window is never negative, so truncation is its floor (ns-2 `int(cwnd_)`): below one
        // segment, after an ECN reduction of a one-segment window, no data goes until the timer expires.
        let allowed = self.window(cfg) as u64 * cfg.mss as u64;
        let mut sent = 0;
        while self.snd_nxt <= self.app_end {
            let len = (self.app_end - self.snd_nxt).min(cfg.mss as u64);
            if len == 0 && !self.carries_fin(self.snd_nxt, 0, cfg) {
                break;
            }
            if len > 0 && self.snd_nxt - self.snd_una + len > allowed {
                break;
            }
            if cfg.nagle && len > 0 && len < cfg.mss as u64 && self.snd_nxt > self.snd_una {
                break; // Nagle: the partial segment waits for the outstanding data's ACK
            }
            if self.paced {
                if io.now < self.pace_next {
                    if let Some(t) = self.pace_timer.arm(self.pace_next) {
                        io.timers.push((TimerKind::Pacing, t));
                    }
                    break;
                }
                self.pace_next = io.now + self.pacing_gap(len, cfg);
            }
            self.send_segment(self.snd_nxt, cfg, io);
            sent += 1;
            if max_burst > 0 && sent >= max_burst {
                break;
            }
        }
    }

    /// How long after `len` payload bytes leave the next segment may follow: `len / rate`, rate =
    /// gain·max(cwnd, segments in flight)·mss/srtt, gain 2 below half of ssthresh and the
    /// controller's (Linux's `tcp_update_pacing_rate`). Before the first RTT sample there is no rate
    /// and nothing is held (Linux leaves the rate undivided then).
    fn pacing_gap(&self, len: u64, cfg: &TcpConfig) -> Time {
        let srtt = self.rtt.srtt_secs();
        if srtt == 0.0 {
            return 0;
        }
        let mss = cfg.mss as f64;
        let cwnd = self.cc.cwnd();
        let gain = if cwnd < self.cc.ssthresh() / 2.0 { 2.0 } else { self.cc.pacing_ca_gain() };
        let window = cwnd.max((self.snd_nxt - self.snd_una) as f64 / mss);
        crate::sim::time::secs(len as f64 * srtt / (gain * window * mss))
    }

    /// Sends the segment starting at `seq` (new data, a retransmission, or the FIN) and advances
    /// `snd_nxt` past it when it is the next one in sequence.
    fn send_segment(&mut self, seq: u64, cfg: &TcpConfig, io: &mut TcpIo) {
        let len = self.app_end.saturating_sub(seq).min(cfg.mss as u64);
        let fin = self.carries_fin(seq, len, cfg);
        let end = seq + len + fin as u64;
        let mut f = flags::ACK | if fin { flags::FIN } else { 0 };
        let ecn = if self.ecn_ok && len > 0 { cfg.ecn_codepoint.ecn() } else { Ecn::NotEct };
        if self.cwr_pending && len > 0 {
            // CWR goes on the first data segment after a window reduction, a retransmission included
            // (ns-2 `SetCWRonRetransmit_` true: TcpAgent::output, FullTcpAgent::foutput).
            f |= flags::CWR;
            self.cwr_pending = false;
        }
        if seq < self.snd_max {
            self.retransmits += 1;
        } else if self.timing.is_none() {
            self.timing = NonZeroU64::new(end).map(|end| (end, io.now));
        }
        // With nothing outstanding the timer (still running for slow-start restart) restarts from
        // this segment (ns-2 TcpAgent::output: "if no outstanding data, be sure to set rtx timer again").
        let quiet = self.snd_una >= self.snd_max;
        self.emit(seq, len as u32, f, ecn, io);
        if len > 0 && cfg.recovery == Recovery::FullTcp {
            self.last_data_sent = io.now;
        }
        if seq == self.snd_nxt {
            self.snd_nxt = end;
        }
        self.snd_max = self.snd_max.max(end);
        if quiet || !self.rto_timer.is_armed() {
            self.arm_rto(io);
        }
    }

    fn on_ack(&mut self, cfg: &TcpConfig, ack: u64, ece: bool, pure: bool, io: &mut TcpIo) {
        let ece = ece && self.ecn_ok;
        if ack > self.snd_una {
            // Every ACK of new data, before the reaction to it (DCTCP's estimator; others ignore it).
            let bytes = ack - self.snd_una;
            self.cc.on_ecn_feedback(&EcnFeedback { bytes, ece, ack, snd_max: self.snd_max });
        }
        let full_tcp = cfg.recovery == Recovery::FullTcp;
        if ece && !full_tcp {
            // One-way: ECN-Echo counts on every ACK, duplicates included, before anything else
            // (NewRenoTcpAgent::recv).
            self.on_ecn_echo(ack, cfg);
        }
        let mut fast_retransmitted = false;
        if ack > self.snd_una {
            if full_tcp {
                if self.fast_recovery && ack < self.recover {
                    self.on_partial_ack_full_tcp(ack, ece, cfg, io);
                } else {
                    self.on_new_ack(ack, ece, cfg, io);
                }
                if ece {
                    // FullTcpAgent::recv: ECN-Echo counts only on an ACK of new data, after newack()
                    // and the (partial) ACK action, and a window below one segment re-arms the timer.
                    self.on_ecn_echo(ack, cfg);
                    if self.cc.cwnd() < 1.0 {
                        self.arm_rto(io);
                    }
                }
            } else {
                let partial = self.last_action == CwndAction::Dupack && ack < self.recover;
                if partial {
                    self.on_partial_ack(ack, cfg, io);
                } else {
                    self.on_new_ack(ack, ece, cfg, io);
                }
            }
        } else if ack == self.snd_una && pure && self.snd_max > self.snd_una {
            self.on_dupack(cfg, io);
            fast_retransmitted = self.dupacks == cfg.dupack_threshold;
        }
        // FullTcpAgent::recv sends nothing more on the duplicate ACK that calls dupack_action().
        let hold = full_tcp && fast_retransmitted;
        if self.dupacks >= cfg.dupack_threshold && !full_tcp {
            // NewRenoTcpAgent::recv: in recovery (a partial ACK leaves the duplicates counted) at
            // most two segments per ACK; the inflated window's rest leaves when recovery ends.
            self.send_up_to(RECOV_MAXBURST, cfg, io);
        } else if !hold && (self.dupacks == 0 || self.dupacks >= cfg.dupack_threshold) {
            self.send_much(cfg, io);
        }
    }

    fn on_new_ack(&mut self, ack: u64, ece: bool, cfg: &TcpConfig, io: &mut TcpIo) {
        if cfg.recovery == Recovery::FullTcp {
            // The ACK that ends recovery: NewRenoFullTcpAgent::ack_action lifts the burst limit, and
            // FullTcpAgent::pack_action (`reno_fastrecov_`) cuts a window inflated above ssthresh to
            // ssthresh. FullTcp has no EXITED action: `last_action` stays Dupack.
            self.recovery_burst = false;
            if self.fast_recovery {
                let inflated = self.cc.cwnd() + self.dupwnd;
                let ssthresh = self.cc.ssthresh();
                self.cc.set_cwnd(if inflated > ssthresh { ssthresh } else { inflated });
                self.fast_recovery = false;
            }
            self.dupwnd = 0.0;
        } else if self.dupwnd > 0.0 {
            self.dupwnd = 0.0;
            if self.last_action == CwndAction::Dupack {
                self.last_action = CwndAction::Exited;
            }
        }
        self.first_partial = false;
        self.dupacks = 0;
        // An RTT sample ends the timer backoff, except on an ECN-Echo ACK while a one-segment window is
        // being backed off for ECN (TcpAgent::newack, FullTcpAgent::newack).
        self.take_rtt_sample(ack, io.now, self.ecn_backoff && ece, cfg);
        let segments = (ack - self.snd_una) as f64 / cfg.mss as f64;
        self.snd_una = ack;
        self.snd_nxt = self.snd_nxt.max(ack);
        if !ece {
            self.cc.on_ack(&Ack { now: io.now, segments, srtt: self.rtt.srtt_secs() });
            self.ecn_backoff = false; // TcpAgent::recv_newack_helper
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
            let deflated = (self.cc.cwnd() - (acked_segments - self.dupwnd)).max(1.0);
            self.cc.set_cwnd(deflated);
            // ns-2 leaves dupwnd_ at 1 "to flag the fast recovery phase": one more segment may go,
            // and the ACK that ends recovery sees it (last action EXITED).
            self.dupwnd = 1.0;
        }
        if matches!(self.timing, Some((end, _)) if ack >= end.get()) {
            self.timing = None;
            self.rtt.backoff = 1;
        }
        self.snd_una = ack;
        self.snd_nxt = self.snd_nxt.max(ack);
        self.send_segment(self.snd_una, cfg, io);
    }

    /// A partial ACK with `recovery = full_tcp`: FullTcpAgent::newack (an RTT sample, the timer
    /// restarted on every partial ACK), then NewRenoFullTcpAgent::pack_action: fast_retransmit() sends
    /// the next hole and moves `recover` to the highest sequence sent, cwnd becomes ssthresh (the
    /// inflation is gone, duplicate ACKs keep counting), and at most [`RECOV_MAXBURST`] segments go per
    /// ACK until recovery ends. No window growth (`open_cwnd_on_pack_` false).
    fn on_partial_ack_full_tcp(&mut self, ack: u64, ece: bool, cfg: &TcpConfig, io: &mut TcpIo) {
        self.take_rtt_sample(ack, io.now, self.ecn_backoff && ece, cfg);
        if !ece {
            self.ecn_backoff = false;
        }
        self.snd_una = ack;
        self.snd_nxt = self.snd_nxt.max(ack);
        self.arm_rto(io);
        self.recover = self.snd_max;
        self.last_action = CwndAction::Dupack;
        let ssthresh = self.cc.ssthresh();
        self.cc.set_cwnd(ssthresh);
        self.dupwnd = 0.0;
        self.recovery_burst = true;
        self.send_segment(self.snd_una, cfg, io);
    }

    fn on_dupack(&mut self, cfg: &TcpConfig, io: &mut TcpIo) {
        self.dupacks += 1;
        let k = cfg.dupack_threshold;
        if self.dupacks == k {
            if cfg.recovery == Recovery::FullTcp {
                self.dupack_action_full_tcp(cfg, io);
            } else {
                self.fast_retransmit(cfg, io);
            }
        } else if self.dupacks > k {
            // Recovery inflates the window by one per further duplicate (ns-2 one-way `++dupwnd_`,
            // FullTcp `extra_ack()`: `cwnd_++`). The one-way agent (`exitFastRetrans_` true) does so
            // only in a fast recovery it started: duplicates it declined to act on (after a timeout,
            // go-back-N resends data the receiver holds) open nothing.
            if cfg.recovery == Recovery::FullTcp || self.last_action == CwndAction::Dupack {
                self.dupwnd += 1.0;
            }
        } else if cfg.limited_transmit {
            // One new segment beyond cwnd per early duplicate ACK (RFC 3042, ns-2 `send_one`).
            let len = self.app_end.saturating_sub(self.snd_nxt).min(cfg.mss as u64);
            let outstanding = self.snd_nxt - self.snd_una + len;
            let limit = (self.cc.cwnd() + self.dupacks as f64).min(cfg.max_window as f64) * cfg.mss as f64;
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
                self.dupwnd = cfg.dupack_threshold as f64;
            }
            return; // "careful" NewReno: no second fast retransmit in one window, no inflation
        }
        self.recover = self.snd_max;
        self.last_action = CwndAction::Dupack;
        self.timing = None;
        self.cut_window_for_loss(cfg);
        self.fast_retransmits += 1;
        self.arm_rto(io);
        self.send_segment(self.snd_una, cfg, io);
        self.dupwnd = cfg.dupack_threshold as f64;
    }

    /// The third duplicate ACK with `recovery = full_tcp` (ns-2 FullTcpAgent::dupack_action).
    fn dupack_action_full_tcp(&mut self, cfg: &TcpConfig, io: &mut TcpIo) {
        self.fast_recovery = true; // set even when nothing is retransmitted
        let recovered = self.snd_una > self.recover;
        // FullTcp never records EXITED: after a fast recovery `last_cwnd_action_` is still DUPACK, and a
        // new fast retransmit may start at once.
        let after_fast_recovery = matches!(self.last_action, CwndAction::Dupack | CwndAction::Exited);
        if recovered || after_fast_recovery {
            // full_reno_action: halve, fast_retransmit(), cwnd = ssthresh + dupacks.
            self.cut_window_for_loss(cfg);
            let ssthresh = self.cc.ssthresh();
            self.cc.set_cwnd(ssthresh);
            self.dupwnd = cfg.dupack_threshold as f64;
            self.recover = self.snd_max;
            self.last_action = CwndAction::Dupack;
            self.timing = None;
            self.fast_retransmits += 1;
            self.arm_rto(io);
            self.send_segment(self.snd_una, cfg, io);
        } else if self.ecn_ok && self.last_action == CwndAction::Ecn {
            // Soon after an ECN reduction: slowdown(CLOSE_CWND_HALF) halves cwnd again (unrounded,
            // ssthresh kept) and fast_retransmit() sends the hole, with no inflation.
            let half = self.window(cfg) / 2.0;
            self.cc.set_cwnd(half);
            self.cwr_pending = true;
            self.recover = self.snd_max;
            self.last_action = CwndAction::Dupack;
            self.timing = None;
            self.arm_rto(io);
            self.send_segment(self.snd_una, cfg, io);
        }
        // Otherwise "careful" NewReno (`bug_fix_`): no second fast retransmit in one window.
    }

    /// The controller's cut for a loss found by duplicate ACKs (fast retransmit).
    fn cut_window_for_loss(&mut self, cfg: &TcpConfig) {
        self.cc.on_loss(cfg);
        if self.ecn_ok {
            self.cwr_pending = true;
        }
    }

    /// ECN-Echo (ns-2 TcpAgent::ecn, used by both agents): at most once per window of data, or on the
    /// first ECN-Echo after a timeout.
    fn on_ecn_echo(&mut self, ack: u64, cfg: &TcpConfig) {
        if ack > self.recover || self.last_action == CwndAction::Timeout {
            self.recover = self.snd_max;
            self.last_action = CwndAction::Ecn;
            // `ecn_backoff_`: a second reduction of a window of one segment or less, with no ACK
            // without ECN-Echo between them, doubles the retransmission timer.
            if self.cc.cwnd() <= 1.0 {
                if self.ecn_backoff {
                    self.rtt.back_off();
                } else {
                    self.ecn_backoff = true;
                }
            } else {
                self.ecn_backoff = false;
            }
            // ns-2 halves windowd(), the window the sender uses: min(cwnd + dupwnd, max_window).
            let window = self.window(cfg);
            self.cc.on_ecn_echo(window);
            self.cwr_pending = true;
            self.ecn_reductions += 1;
        }
    }

    fn on_rto(&mut self, cfg: &TcpConfig, io: &mut TcpIo) {
        if self.state == State::Established && self.snd_una >= self.snd_max {
            // Idle: the timer runs with nothing outstanding for slow-start restart, or while an ECN
            // reduction holds the window below one segment (ns-2 TcpAgent::timeout with
            // `restart_bugfix_`: cwnd 1, ssthresh kept, no backoff, then send_much()).
            let stalled = self.cc.cwnd() < 1.0;
            self.cc.on_timeout(false, cfg);
            self.last_action = CwndAction::Timeout;
            if self.ecn_ok {
                self.cwr_pending = true; // every slowdown() sets `cong_action_`
            }
            self.restart_or_cancel_rto(cfg, io);
            if stalled {
                self.send_much(cfg, io);
            }
            return;
        }
        self.timeouts += 1;
        self.rtt.back_off();
        if cfg.recovery == Recovery::FullTcp && matches!(self.state, State::SynSent | State::SynReceived) {
            // FullTcpAgent::timeout_action in the handshake too: ssthresh half the window, at least 2
            // (cwnd restarts from the initial window once established), and `cong_action_`, so CWR goes
            // on the first segment after it (the SYN-ACK itself never carries it).
            self.cc.on_timeout(true, cfg);
            self.last_action = CwndAction::Timeout;
            self.cwr_pending = cfg.ecn;
        }
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
        if cfg.recovery == Recovery::FullTcp && self.dupwnd > 0.0 {
            // FullTcp keeps recovery's inflation in cwnd_ itself (ssthresh + dupacks, +1 per further
            // duplicate), so a timeout in recovery halves the inflated window.
            let inflated = self.cc.cwnd() + self.dupwnd;
            self.cc.set_cwnd(inflated);
        }
        if self.ecn_ok && self.last_action == CwndAction::Ecn {
            // The last reduction was ECN's: ssthresh is not cut again, cwnd = 1. One-way
            // (TcpAgent::timeout) then records a timeout, so only the first timer after an ECN reduction
            // is spared; FullTcp (FullTcpAgent::timeout_action) keeps ECN as the last action, sparing
            // every timeout until a fast retransmit or another ECN reduction.
            self.timeouts_after_ecn += 1;
            self.cc.on_timeout(false, cfg);
            if cfg.recovery == Recovery::OneWay {
                self.last_action = CwndAction::Timeout;
            }
        } else {
            self.last_action = CwndAction::Timeout;
            self.cc.on_timeout(true, cfg);
        }
        if self.ecn_ok {
            self.cwr_pending = true; // every slowdown() sets `cong_action_`
        }
        self.dupwnd = 0.0;
        self.dupacks = 0;
        self.fast_recovery = false;
        self.first_partial = false;
        self.timing = None;
        self.snd_nxt = self.snd_una; // go back N
        self.arm_rto(io);
        self.send_much(cfg, io);
    }

    /// Takes an RTT sample when `ack` covers the timed segment; the sample ends the timer backoff
    /// unless `hold_backoff`. FullTcp ends it on every new ACK, sample or not (FullTcpAgent::newack),
    /// the one-way agent only with a sample (TcpAgent::newack).
    fn take_rtt_sample(&mut self, ack: u64, now: Time, hold_backoff: bool, cfg: &TcpConfig) {
        let mut ends_backoff = cfg.recovery == Recovery::FullTcp;
        if let Some((end, sent)) = self.timing {
            if ack >= end.get() {
                self.rtt.sample(now - sent, now);
                ends_backoff = true;
                self.timing = None;
            }
        }
        if ends_backoff && !hold_backoff {
            self.rtt.backoff = 1;
        }
    }

    fn arm_rto(&mut self, io: &mut TcpIo) {
        if let Some(t) = self.rto_timer.arm(io.now + self.rtt.timeout()) {
            io.timers.push((TimerKind::Retransmit, t));
        }
    }

    /// After an ACK: the timer runs while data is outstanding, and (slow-start restart) while this
    /// side may still send, so that idleness is noticed, or while a window below one segment waits for
    /// it (ns-2 TcpAgent::newtimer's `cwnd_ < 1`).
    fn restart_or_cancel_rto(&mut self, cfg: &TcpConfig, io: &mut TcpIo) {
        let finished = self.closing && self.snd_una > self.app_end;
        // FullTcp stops the timer once everything is acknowledged and notices idleness when it next
        // sends (`send_up_to`).
        let idle_timer = cfg.slow_start_restart && cfg.recovery != Recovery::FullTcp;
        if self.snd_una < self.snd_max || ((idle_timer || self.cc.cwnd() < 1.0) && !finished) {
            self.arm_rto(io);
        } else {
            self.rto_timer.cancel();
        }
    }

    // ----- receiver --------------------------------------------------------------------------------

    /// Accepts a data/FIN segment; returns true when it must be acknowledged at once.
    fn receive(&mut self, cfg: &TcpConfig, pkt: &Packet, io: &mut TcpIo, d: &mut Delivery) -> bool {
        let start = pkt.seq;
        let end = start + pkt.payload() as u64;
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
        let at = if cfg.recovery == Recovery::FullTcp {
            // ns-2's FullTcp counts bytes (`need_send`: `segsperack_` full segments' worth), so a short
            // segment waits; its delayed-ACK timer ticks on a global grid of `interval_` from time 0.
            self.unacked = self.unacked.saturating_add(d.bytes.min(u32::MAX as u64) as u32);
            if self.unacked >= cfg.ack_every.saturating_mul(cfg.mss) {
                return true;
            }
            let tick = cfg.delack_timeout.0.max(1);
            (io.now / tick + 1) * tick
        } else {
            self.unacked += 1;
            if self.unacked >= cfg.ack_every {
                return true;
            }
            io.now + cfg.delack_timeout.0
        };
        if !self.delack_timer.is_armed() {
            if let Some(t) = self.delack_timer.arm(at) {
                io.timers.push((TimerKind::DelayedAck, t));
            }
        }
        false
    }

    /// DCTCP's receiver (RFC 8257 §3.2): ECN-Echo goes on exactly the ACKs that cover CE-marked data,
    /// and CWR is ignored. The state is the last data segment's CE; when it changes while an ACK is
    /// being delayed, that ACK leaves at once with the old state, so that no ACK covers segments of
    /// both states. Called before the segment is accepted: the ACK is for the data before it.
    fn dctcp_ce_state(&mut self, ce: bool, cfg: &TcpConfig, io: &mut TcpIo) {
        if ce != self.ece_pending {
            if self.unacked > 0 {
                self.send_ack(cfg, io);
            }
            self.ece_pending = ce;
        }
    }

    fn send_ack(&mut self, cfg: &TcpConfig, io: &mut TcpIo) {
        let mut f = flags::ACK;
        if cfg.recovery == Recovery::FullTcp && self.cwr_pending && self.ecn_ok {
            // FullTcpAgent::foutput puts CWR on the first segment of any kind after a reduction.
            f |= flags::CWR;
            self.cwr_pending = false;
        }
        self.emit(self.snd_nxt, 0, f, Ecn::NotEct, io);
    }

    /// Creates one packet; every packet carries the cumulative ACK, which also serves any pending
    /// delayed ACK.
    fn emit(&mut self, seq: u64, payload: u32, mut f: u8, ecn: Ecn, io: &mut TcpIo) {
        if self.ece_pending && f & flags::SYN == 0 {
            f |= flags::ECE;
        }
        if f & flags::ACK != 0 {
            self.unacked = 0;
            self.delack_timer.cancel();
            self.ack_owed = false;
        }
        self.segments_sent += 1;
        let id = io.packets.alloc(Packet {
            size: payload + HEADER_BYTES,
            ecn,
            flags: if self.role == Role::Responder { f | flags::FROM_RESPONDER } else { f },
            flow: self.flow,
            flow_gen: 0, // stamped by the engine
            class: self.class,
            next_hop: self.route,
            seq,
            ack: self.rcv_nxt,
            enqueued_at: io.now,
            sent_at: io.now,
            next_on_link: crate::net::packet::NO_PACKET,
            next_arrives: 0,
        });
        io.out.push(id);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::units::Duration;
    use crate::sim::time;
    use crate::tcp::cc::dctcp::Dctcp;
    use crate::tcp::cc::newreno::NewReno;
    use crate::tcp::cc::prague::Prague;
    use crate::tcp::cc::{Controller, ControllerKind};
    use crate::tcp::EcnCodepoint;

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

        /// A pair whose handshake is done.
        fn established(cfg: TcpConfig) -> Self {
            let mut p = Pair::new(cfg);
            let syn = p.call(0, |e, cfg, io| e.connect(cfg, io));
            let syn_ack = p.deliver(1, &syn);
            let ack = p.deliver(0, &syn_ack);
            let _ = p.deliver(1, &ack);
            p
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
            let sizes: Vec<u32> = data.iter().map(|d| d.payload()).collect();
            if nagle {
                assert_eq!(sizes, vec![1460], "the tail waits");
                let acks = p.deliver(1, &data);
                let tail = p.deliver(0, &acks);
                assert_eq!(tail.iter().map(|d| d.payload()).collect::<Vec<_>>(), vec![100]);
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
            let (cwnd, ssthresh) = (p.ends[0].cwnd(), p.ends[0].ssthresh());
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
                if p.ends[0].cwnd() == 1.0 || fired > 5 {
                    break;
                }
            }
            if restart {
                // With nothing outstanding the timer still expires, and the window restarts from one.
                assert_eq!(p.ends[0].cwnd(), 1.0);
                assert_eq!(p.ends[0].ssthresh(), ssthresh);
            } else {
                assert_eq!(p.ends[0].cwnd(), cwnd, "an idle connection keeps its window");
            }
            assert_eq!(p.ends[0].stats().timeouts, 0);
        }
    }

    const MSS: u64 = 1460;

    /// Segment `i` of a transfer (numbered from 0) starts at this sequence number.
    fn seg(i: u64) -> u64 {
        1 + i * MSS
    }

    /// The segment a sequence number starts (or an ACK asks for).
    fn seg_no(seq: u64) -> u64 {
        (seq - 1) / MSS
    }

    fn segs(pkts: &[Packet]) -> Vec<u64> {
        pkts.iter().filter(|p| p.payload() > 0).map(|p| seg_no(p.seq)).collect()
    }

    /// A connection whose sender has just sent a window of `cwnd` segments (0 to cwnd − 1) of an
    /// unlimited transfer, in congestion avoidance; every segment is ACKed at once, `max_window` 100.
    fn sender_with_window(cfg: TcpConfig, cwnd: f64) -> (Pair, Vec<Packet>) {
        sender_with(cfg, cwnd, |_| AnyController::NewReno(NewReno::in_congestion_avoidance(cwnd)))
    }

    /// [`sender_with_window`] with the controller `cc` makes from the configuration.
    fn sender_with(
        cfg: TcpConfig,
        cwnd: f64,
        cc: impl FnOnce(&TcpConfig) -> AnyController,
    ) -> (Pair, Vec<Packet>) {
        let cfg = TcpConfig { delayed_ack: false, max_window: 100, mss: MSS as u32, ..cfg };
        let mut p = Pair::established(cfg);
        p.ends[0].cc = cc(&p.cfg);
        let data = p.call(0, |e, cfg, io| e.write(cfg, 10_000 * MSS, io));
        assert_eq!(segs(&data), (0..cwnd as u64).collect::<Vec<_>>());
        (p, data)
    }

    /// What the sender did on one ACK.
    #[derive(Debug)]
    struct Step {
        /// The segment the ACK asks for next.
        ack: u64,
        cwnd: f64,
        ssthresh: f64,
        /// Segments sent in response, in order.
        sent: Vec<u64>,
    }

    /// Carries `queue` to the receiver in order, losing the first transmission of each segment in
    /// `lost`; each ACK reaches the sender at once and what it sends joins the end of the queue. Stops
    /// after the first ACK for segment `until` or later.
    fn run_fifo(p: &mut Pair, queue: Vec<Packet>, lost: &[u64], until: u64) -> Vec<Step> {
        let mut queue: std::collections::VecDeque<Packet> = queue.into();
        let mut to_lose: Vec<u64> = lost.to_vec();
        let mut steps = Vec::new();
        while let Some(pkt) = queue.pop_front() {
            p.now += 1_000_000;
            if let Some(i) = to_lose.iter().position(|&l| l == seg_no(pkt.seq)) {
                to_lose.swap_remove(i);
                continue;
            }
            for ack in p.deliver(1, &[pkt]) {
                let sent = p.deliver(0, std::slice::from_ref(&ack));
                let e = &p.ends[0];
                steps.push(Step {
                    ack: seg_no(ack.ack),
                    cwnd: e.cwnd(),
                    ssthresh: e.ssthresh(),
                    sent: segs(&sent),
                });
                queue.extend(sent);
                if seg_no(ack.ack) >= until {
                    return steps;
                }
            }
        }
        steps
    }

    /// Runs the sender's timer events up to its retransmission deadline and returns what the expiry
    /// sent.
    fn fire_rto(p: &mut Pair) -> Vec<Packet> {
        let deadline = p.ends[0].rto_timer.deadline().expect("the retransmission timer runs");
        let mut sent = Vec::new();
        while p.ends[0].rto_timer.deadline() == Some(deadline) {
            let i = (0..p.timers.len())
                .filter(|&i| p.timers[i].0 == TimerKind::Retransmit)
                .min_by_key(|&i| p.timers[i].1)
                .expect("an event for the timer");
            let (_, at) = p.timers.swap_remove(i);
            p.now = p.now.max(at);
            sent = p.call(0, |e, cfg, io| e.on_timer(cfg, TimerKind::Retransmit, io));
        }
        assert_eq!(p.now, deadline);
        sent
    }

    /// ns-2 `ecnto.tcl`: after an ECN reduction from 20 to 10 the whole window is lost. The first
    /// timeout keeps ssthresh 10 in both ns-2 agents (aqmlab used to cut it to 5); the one-way agent
    /// cuts it at the second timeout (to 2, from cwnd 1), FullTcp at none while ECN was its last action.
    #[test]
    fn timeouts_after_an_ecn_reduction_keep_ssthresh_as_ns2_does() {
        for recovery in [Recovery::OneWay, Recovery::FullTcp] {
            let (mut p, data) =
                sender_with_window(TcpConfig { ecn: true, recovery, ..TcpConfig::default() }, 20.0);
            assert!(p.ends[0].ecn_ok);
            // Segment 0 arrives marked; its ACK carries ECN-Echo. The other 19 are lost.
            let marked = Packet { ecn: Ecn::Ce, ..data[0].clone() };
            let ack = p.deliver(1, &[marked]);
            assert!(ack[0].has(flags::ECE));
            let sent = p.deliver(0, &ack);
            assert!(sent.is_empty(), "19 segments outstanding, window 10");
            assert_eq!((p.ends[0].cwnd(), p.ends[0].ssthresh()), (10.0, 10.0), "{recovery:?}");
            assert_eq!(p.ends[0].stats().ecn_reductions, 1);

            let rtx = fire_rto(&mut p);
            assert_eq!(segs(&rtx), vec![1], "go back N with cwnd 1");
            assert!(rtx[0].has(flags::CWR), "CWR rides on the retransmission (SetCWRonRetransmit_)");
            assert_eq!((p.ends[0].cwnd(), p.ends[0].ssthresh()), (1.0, 10.0), "{recovery:?}: first timeout");

            let rtx = fire_rto(&mut p);
            assert_eq!(segs(&rtx), vec![1]);
            assert!(rtx[0].has(flags::CWR), "every timeout's slowdown() sets cong_action_");
            let second = if recovery == Recovery::OneWay { 2.0 } else { 10.0 };
            assert_eq!(
                (p.ends[0].cwnd(), p.ends[0].ssthresh()),
                (1.0, second),
                "{recovery:?}: second timeout"
            );

            let _ = fire_rto(&mut p);
            assert_eq!(p.ends[0].ssthresh(), second, "{recovery:?}: third timeout");
            assert_eq!(p.ends[0].stats().timeouts, 3);
            let spared = if recovery == Recovery::OneWay { 1 } else { 3 };
            assert_eq!(p.ends[0].stats().timeouts_after_ecn, spared, "{recovery:?}");
        }
        // Without ECN the first timeout halves as before: floor(20 / 2) = 10 from a full window of 20.
        let (mut p, _) = sender_with_window(TcpConfig::default(), 20.0);
        let rtx = fire_rto(&mut p);
        assert!(!rtx[0].has(flags::CWR));
        assert_eq!((p.ends[0].cwnd(), p.ends[0].ssthresh()), (1.0, 10.0));
    }

    /// TcpAgent::ecn with `precisionReduce_`: cwnd is halved without rounding (31 → 15.5, ssthresh 15);
    /// a window of one segment becomes half a segment (ssthresh 2), so nothing is sent until the timer
    /// expires; a second such reduction with no ACK without ECN-Echo between doubles the timer
    /// (`ecn_backoff_`).
    #[test]
    fn ecn_halves_cwnd_without_rounding_and_half_a_segment_waits_for_the_timer() {
        let cfg = TcpConfig { ecn: true, ..TcpConfig::default() };
        let (mut p, data) = sender_with_window(cfg.clone(), 31.0);
        let ack = p.deliver(1, &[Packet { ecn: Ecn::Ce, ..data[0].clone() }]);
        let _ = p.deliver(0, &ack);
        assert_eq!((p.ends[0].cwnd(), p.ends[0].ssthresh()), (15.5, 15.0));

        let (mut p, data) = sender_with_window(TcpConfig { slow_start_restart: false, ..cfg }, 1.0);
        let ack = p.deliver(1, &[Packet { ecn: Ecn::Ce, ..data[0].clone() }]);
        let sent = p.deliver(0, &ack);
        let rto = p.ends[0].rtt.timeout();
        assert_eq!((p.ends[0].cwnd(), p.ends[0].ssthresh()), (0.5, 2.0));
        assert!(sent.is_empty(), "window int(0.5) = 0 with data waiting");
        assert!(p.ends[0].ecn_backoff);
        // Nothing is outstanding, and the timer still runs (TcpAgent::newtimer's `cwnd_ < 1`).
        assert_eq!(p.ends[0].rto_timer.deadline(), Some(p.now + rto));
        let sent = fire_rto(&mut p);
        assert_eq!(segs(&sent), vec![1], "cwnd 1 again: the next segment, carrying CWR");
        assert!(sent[0].has(flags::CWR));
        assert_eq!((p.ends[0].cwnd(), p.ends[0].ssthresh(), p.ends[0].stats().timeouts), (1.0, 2.0, 0));
        // Marked again: the first ECN-Echo after a timeout reduces at once, and doubles the timer.
        let ack = p.deliver(1, &[Packet { ecn: Ecn::Ce, ..sent[0].clone() }]);
        let sent = p.deliver(0, &ack);
        assert!(sent.is_empty());
        assert_eq!((p.ends[0].cwnd(), p.ends[0].ssthresh(), p.ends[0].rtt.backoff), (0.5, 2.0, 2));
        assert_eq!(p.ends[0].stats().ecn_reductions, 2);
        assert_eq!(p.ends[0].rto_timer.deadline(), Some(p.now + 2 * rto), "no sample ends this backoff");
        // An ACK without ECN-Echo ends the ECN backoff.
        let sent = fire_rto(&mut p);
        let ack = p.deliver(1, &sent);
        assert!(!ack[0].has(flags::ECE), "the CWR on segment 2 stopped the echo");
        let _ = p.deliver(0, &ack);
        assert!(!p.ends[0].ecn_backoff);
        assert_eq!(p.ends[0].rtt.backoff, 1);
    }

    /// FullTcp sees ECN-Echo soon before three duplicate ACKs: dupack_action halves cwnd again
    /// (slowdown(CLOSE_CWND_HALF): 10 → 5, ssthresh 10) and retransmits with no inflation; the next
    /// partial ACK sets cwnd to ssthresh. The one-way agent retransmits without halving and inflates.
    #[test]
    fn full_tcp_halves_again_on_duplicate_acks_after_an_ecn_reduction() {
        for recovery in [Recovery::OneWay, Recovery::FullTcp] {
            let (mut p, data) =
                sender_with_window(TcpConfig { ecn: true, recovery, ..TcpConfig::default() }, 20.0);
            let ack = p.deliver(1, &[Packet { ecn: Ecn::Ce, ..data[0].clone() }]);
            let _ = p.deliver(0, &ack);
            assert_eq!((p.ends[0].cwnd(), p.ends[0].ssthresh()), (10.0, 10.0));
            // Segment 1 is lost; 2, 3 and 4 bring three duplicate ACKs (still echoing ECN).
            let dupacks = p.deliver(1, &data[2..5]);
            assert!(dupacks.iter().all(|a| a.ack == seg(1) && a.has(flags::ECE)));
            let sent = p.deliver(0, &dupacks);
            assert_eq!(segs(&sent), vec![1]);
            assert!(sent[0].has(flags::CWR));
            let e = &p.ends[0];
            match recovery {
                Recovery::FullTcp => assert_eq!((e.cwnd(), e.dupwnd, e.ssthresh()), (5.0, 0.0, 10.0)),
                Recovery::OneWay => assert_eq!((e.cwnd(), e.dupwnd, e.ssthresh()), (10.0, 3.0, 10.0)),
            }
            assert_eq!(e.stats().ecn_reductions, 1, "ECN-Echo on duplicate ACKs changes nothing more");
            // The retransmission fills the hole up to segment 5: a partial ACK.
            let ack = p.deliver(1, &sent);
            assert_eq!(ack[0].ack, seg(5));
            let sent = p.deliver(0, &ack);
            assert_eq!(segs(&sent)[0], 5, "the next hole");
            if recovery == Recovery::FullTcp {
                assert_eq!(p.ends[0].cwnd(), 10.0, "NewRenoFullTcpAgent::pack_action: cwnd = ssthresh");
            }
        }
    }

    /// Three losses (segments 0, 10, 20) in a window of 30. Both agents halve to ssthresh 15 and send
    /// one new segment per duplicate ACK once the inflated window passes the 30 outstanding (duplicate
    /// ACKs 16 to 27: segments 30 to 41).
    /// FullTcp: each partial ACK retransmits the next hole and sets cwnd to ssthresh, 15, below the 32
    /// and 22 segments outstanding, so nothing else goes until the ACK that ends recovery (for segment
    /// 42, with nothing outstanding): cwnd 15 + 1/15 sends 15 segments at once.
    /// One-way: partial ACKs deflate the inflated window by the data acked less one, which keeps one new
    /// segment going per ACK; no ACK releases more than 2 segments.
    #[test]
    fn full_tcp_recovery_sets_cwnd_to_ssthresh_and_bursts_when_it_ends() {
        let cfg = TcpConfig { limited_transmit: false, ..TcpConfig::default() };
        let (mut p, data) =
            sender_with_window(TcpConfig { recovery: Recovery::FullTcp, ..cfg.clone() }, 30.0);
        let steps = run_fifo(&mut p, data, &[0, 10, 20], 42);
        assert_eq!(steps.len(), 27 + 12 + 3, "27 + 12 duplicate ACKs, 2 partial ACKs, 1 full ACK");
        assert!(steps[..2].iter().all(|s| s.sent.is_empty()));
        assert_eq!((steps[2].sent.clone(), steps[2].cwnd, steps[2].ssthresh), (vec![0], 15.0, 15.0));
        assert!(steps[3..15].iter().all(|s| s.sent.is_empty()));
        assert_eq!(
            steps[15..27].iter().map(|s| s.sent.clone()).collect::<Vec<_>>(),
            (30..42).map(|i| vec![i]).collect::<Vec<_>>()
        );
        // Partial ACK for 10: the retransmission only, cwnd = ssthresh.
        assert_eq!((steps[27].ack, steps[27].sent.clone(), steps[27].cwnd), (10, vec![10], 15.0));
        assert_eq!(p.ends[0].recover, seg(42), "recover moved to the highest sequence sent");
        // Segments 30..41 bring 12 duplicate ACKs: the window grows to 27, below the 32 outstanding.
        assert!(steps[28..40].iter().all(|s| s.ack == 10 && s.sent.is_empty()));
        assert_eq!((steps[40].ack, steps[40].sent.clone(), steps[40].cwnd), (20, vec![20], 15.0));
        // Recovery ends: cwnd = ssthresh, +1/15, and 15 segments leave together.
        let last = &steps[41];
        assert_eq!(last.ack, 42);
        assert!((last.cwnd - (15.0 + 1.0 / 15.0)).abs() < 1e-12);
        assert_eq!(last.sent, (42..57).collect::<Vec<_>>());

        let (mut p, data) = sender_with_window(cfg, 30.0);
        let steps = run_fifo(&mut p, data, &[0, 10, 20], 55);
        assert_eq!((steps[2].sent.clone(), steps[2].cwnd, steps[2].ssthresh), (vec![0], 15.0, 15.0));
        // Partial ACK for 10: dupwnd 27 − (10 − 1) = 18, window 33 over 32 outstanding: one new segment.
        assert_eq!((steps[27].ack, steps[27].sent.clone(), steps[27].cwnd), (10, vec![10, 42], 15.0));
        assert_eq!(steps[40].ack, 20);
        assert_eq!(steps[40].sent, vec![20, 55]);
        let last = steps.last().unwrap();
        assert_eq!((last.ack, last.sent.clone()), (55, vec![69]));
        assert_eq!(steps.iter().map(|s| s.sent.len()).max(), Some(2));
    }

    /// A lost SYN: the retransmitted one times nothing (Karn), so the connection keeps the initial 3 s
    /// timeout; the one-way agent keeps its backoff (6 s) until a sample, FullTcp ends it on the SYN-ACK
    /// (3 s). Before, the first SYN's timing survived and the handshake gave a 3 s sample: 9 s.
    #[test]
    fn a_retransmitted_syn_gives_no_rtt_sample() {
        for (recovery, timeout_s) in [(Recovery::OneWay, 6.0), (Recovery::FullTcp, 3.0)] {
            let mut p = Pair::new(TcpConfig { recovery, ..TcpConfig::default() });
            let _lost = p.call(0, |e, cfg, io| e.connect(cfg, io));
            let syn = fire_rto(&mut p);
            assert!(syn[0].has(flags::SYN));
            let syn_ack = p.deliver(1, &syn);
            let _ = p.deliver(0, &syn_ack);
            assert_eq!(p.ends[0].state, State::Established);
            assert_eq!(crate::sim::time::to_secs(p.ends[0].rtt.timeout()), timeout_s, "{recovery:?}");
        }
    }

    /// A lost SYN-ACK: the initiator's retransmitted SYN gets a second SYN-ACK from the one-way model's
    /// responder (and a restarted timer). ns-2 FullTcp ignores it and waits for its own timer, but owes
    /// an ACK (`TF_ACKNOW`), which goes out on the next segment it receives, with CWR: the timeout in the
    /// handshake was a slowdown (ssthresh 2 from the initial window of 2, cwnd back to it once
    /// established). Found by the ECN replay of validation/compare_http_replay.py.
    #[test]
    fn a_duplicate_syn_is_answered_unless_full_tcp() {
        for (recovery, answered) in [(Recovery::OneWay, true), (Recovery::FullTcp, false)] {
            let mut p = Pair::new(TcpConfig { recovery, ecn: true, ..TcpConfig::default() });
            let syn = p.call(0, |e, cfg, io| e.connect(cfg, io));
            let _lost_syn_ack = p.deliver(1, &syn);
            let deadline = p.ends[1].rto_timer.deadline().expect("the SYN-ACK is timed");
            p.now += 2_000_000_000; // the initiator's SYN again, before the responder's timer
            let reply = p.deliver(1, &syn);
            assert_eq!(
                reply.iter().any(|r| r.has(flags::SYN) && r.has(flags::ACK)),
                answered,
                "{recovery:?}"
            );
            if answered {
                continue;
            }
            assert!(reply.is_empty());
            assert_eq!(p.ends[1].rto_timer.deadline(), Some(deadline), "the responder's timer stands");
            p.now = deadline;
            let syn_ack = p.call(1, |e, cfg, io| e.on_timer(cfg, TimerKind::Retransmit, io));
            assert!(syn_ack[0].has(flags::SYN) && syn_ack[0].has(flags::ACK), "its own timer resends");
            // A SYN that crossed the timer's SYN-ACK: ignored again, and now an ACK is owed.
            assert!(p.deliver(1, &syn).is_empty());
            let ack = p.deliver(0, &syn_ack);
            assert_eq!(ack.len(), 1, "the initiator's pure ACK, no data to send");
            let owed = p.deliver(1, &ack);
            assert_eq!(owed.len(), 1, "the owed ACK");
            assert!(owed[0].payload() == 0 && owed[0].has(flags::CWR), "a pure ACK with CWR");
            assert_eq!((p.ends[1].cwnd(), p.ends[1].ssthresh()), (2.0, 2.0));
        }
    }

    /// FullTcp inflates cwnd_ itself in recovery, so a timeout there halves the inflated window: segment
    /// 0 of 20 lost, 19 duplicate ACKs make the window cwnd 10 + dupwnd 19 (3 on the third, +1 on each
    /// of the other 16) = 29, and the timeout sets ssthresh to 14 (before, aqmlab halved the 10 to 5).
    #[test]
    fn full_tcp_timeout_in_recovery_halves_the_inflated_window() {
        let cfg = TcpConfig { limited_transmit: false, recovery: Recovery::FullTcp, ..TcpConfig::default() };
        let (mut p, data) = sender_with_window(cfg, 20.0);
        for pkt in &data[1..20] {
            let acks = p.deliver(1, std::slice::from_ref(pkt));
            let _ = p.deliver(0, &acks);
        }
        assert_eq!((p.ends[0].cwnd() + p.ends[0].dupwnd, p.ends[0].ssthresh()), (29.0, 10.0));
        let _ = fire_rto(&mut p);
        assert_eq!((p.ends[0].cwnd(), p.ends[0].ssthresh()), (1.0, 14.0));
    }

    /// ns-2 FullTcp's connection life, found by replaying HTTP connections in both simulators
    /// (validation/compare_http_replay.py): a pure ACK of the SYN-ACK before the first data
    /// (`tcp-full.cc`: "special to ns: generate pure ACK here"); a short segment is acknowledged by the
    /// delayed-ACK timer, which ticks on a 100-ms grid from time 0, while a full segment's worth of bytes
    /// is acknowledged at once (`need_send`); the FIN of `sendmsg(n, "MSG_EOF")` rides on the segment that
    /// empties the buffer only if nothing is outstanding then, else it follows alone once all is ACKed.
    #[test]
    fn full_tcp_opens_acknowledges_and_closes_as_ns2() {
        let cfg =
            TcpConfig { recovery: Recovery::FullTcp, mss: MSS as u32, ack_every: 1, ..TcpConfig::default() };
        let mut p = Pair::new(cfg.clone());
        let syn = p.call(0, |e, cfg, io| {
            e.connect(cfg, io);
            e.write(cfg, 300, io);
        });
        let syn_ack = p.deliver(1, &syn);
        let sent = p.deliver(0, &syn_ack);
        assert_eq!(
            sent.iter().map(|s| s.payload()).collect::<Vec<_>>(),
            [0, 300],
            "pure ACK, then the request"
        );
        // The 300-byte request waits for the grid: received at 0.25 s, acknowledged at 0.3 s.
        p.timers.clear();
        p.now = time::secs(0.25);
        assert!(p.deliver(1, &sent).is_empty());
        assert_eq!(p.timers, [(TimerKind::DelayedAck, time::secs(0.3))]);
        // A one-segment response with MSG_EOF, nothing outstanding: the FIN rides on it.
        let rsp = p.call(1, |e, cfg, io| e.write_last(cfg, 500, io));
        assert_eq!((rsp.len(), rsp[0].payload(), rsp[0].has(flags::FIN)), (1, 500, true));
        // Three segments: data alone, then the FIN once everything is acknowledged.
        let mut p = Pair::established(cfg);
        let first = p.call(1, |e, cfg, io| e.write_last(cfg, 3 * MSS, io));
        let acks = p.deliver(0, &first);
        assert_eq!((first.len(), acks.len()), (2, 2), "initial window 2; a full segment is ACKed at once");
        let last = p.deliver(1, &acks);
        assert_eq!((last.len(), last[0].payload(), last[0].has(flags::FIN)), (1, MSS as u32, false));
        let ack = p.deliver(0, &last);
        let fin = p.deliver(1, &ack);
        assert_eq!(
            (fin.len(), fin[0].payload(), fin[0].has(flags::FIN)),
            (1, 0, true),
            "FIN once all is ACKed"
        );
    }

    /// FullTcp's slow-start restart: its timer stops once everything is acknowledged, and new data after
    /// an idle time (in whole ticks) longer than the RTO before clamping (here 3 ticks, 30 ms) starts
    /// from the initial window of 2; after a shorter pause the window stays. The restart happens only
    /// when its output runs (foutput), i.e. for a segment the window lets out: a window below one
    /// segment, left by an ECN reduction, still waits for the timer however long the pause (aqmlab used
    /// to restart it at the next write and send at once), while a window of one restarts to two.
    #[test]
    fn full_tcp_restarts_from_the_initial_window_after_idleness() {
        for (pause, cwnd, sent_after) in
            [(1.0, None, 2), (0.02, None, 3), (1.0, Some(0.5), 0), (1.0, Some(1.0), 2)]
        {
            let cfg = TcpConfig { recovery: Recovery::FullTcp, mss: MSS as u32, ..TcpConfig::default() };
            let mut p = Pair::established(cfg);
            let data = p.call(1, |e, cfg, io| e.write(cfg, 2 * MSS, io));
            p.timers.clear();
            let acks = p.deliver(0, &data);
            assert!(p.deliver(1, &acks).is_empty());
            assert_eq!(p.ends[1].cwnd(), 3.0, "one ACK for two segments");
            assert!(!p.ends[1].rto_timer.is_armed(), "nothing outstanding: no timer");
            if let Some(cwnd) = cwnd {
                p.ends[1].cc.set_cwnd(cwnd);
            }
            p.now += time::secs(pause);
            let more = p.call(1, |e, cfg, io| e.write(cfg, 10 * MSS, io));
            assert_eq!(more.len(), sent_after, "pause {pause} s, cwnd {cwnd:?}");
        }
    }

    /// A one-way sender keeps its timer running once everything is acknowledged (slow-start restart);
    /// data it then sends restarts the timer from that segment, as ns-2's `TcpAgent::output` does. Before,
    /// the idle timer's earlier deadline stayed and fired soon after the new data left: on an idle
    /// 1 Gb/s path persistent HTTP connections counted 33 timeouts in 30 s.
    #[test]
    fn data_after_idleness_restarts_the_running_timer() {
        let cfg = TcpConfig { delayed_ack: false, mss: MSS as u32, ..TcpConfig::default() };
        let mut p = Pair::established(cfg);
        let data = p.call(0, |e, cfg, io| e.write(cfg, MSS, io));
        let acks = p.deliver(1, &data);
        let _ = p.deliver(0, &acks);
        let idle_deadline = p.ends[0].rto_timer.deadline().expect("the idle timer runs");
        p.now = idle_deadline - time::secs(0.01);
        let _ = p.call(0, |e, cfg, io| e.write(cfg, MSS, io));
        assert_eq!(p.ends[0].rto_timer.deadline(), Some(p.now + p.ends[0].rtt.timeout()));
    }

    /// After a timeout the receiver's duplicates of go-back-N data bring duplicate ACKs below `recover`:
    /// "careful" NewReno neither retransmits on the third nor inflates the window on any of them
    /// (ns-2 `exitFastRetrans_`), so a window of one sends nothing more until new data is acked
    /// (before, each opened one more segment and this run sent 1 to 9).
    #[test]
    fn declined_fast_retransmit_does_not_inflate_the_window() {
        let (mut p, data) = sender_with_window(TcpConfig::default(), 10.0);
        let resent = fire_rto(&mut p);
        assert_eq!(segs(&resent), vec![0]);
        assert_eq!(p.ends[0].cwnd(), 1.0);
        // The first flight was late, not lost: 1..9 arrive out of order, 9 duplicate ACKs for 0.
        let mut sent_on_dupacks = Vec::new();
        for pkt in &data[1..10] {
            let acks = p.deliver(1, std::slice::from_ref(pkt));
            assert_eq!(acks.iter().map(|a| seg_no(a.ack)).collect::<Vec<_>>(), vec![0]);
            sent_on_dupacks.extend(segs(&p.deliver(0, &acks)));
        }
        // Limited Transmit goes on with go-back-N on the first two; the other seven open nothing.
        assert_eq!(sent_on_dupacks, vec![1, 2]);
        assert_eq!((p.ends[0].dupwnd, p.ends[0].stats().fast_retransmits), (0.0, 0));
    }

    /// ns-2.35's own trace (Agent/TCP/Newreno, window_ 30, packets 108 and 132 of a full window lost):
    /// the 28 duplicate ACKs send only the retransmission, as the window is capped at 30 outstanding;
    /// the partial ACK deflates dupwnd to 28 − (24 − 1) = 5, window 20 over 6 outstanding, yet
    /// `send_much(0, 0, 2)` lets the retransmission and 2 new segments go; the ACK that ends recovery
    /// sends cwnd 15 + 1/15 less the 2 outstanding: 13 segments at once.
    #[test]
    fn one_way_recovery_sends_at_most_two_new_segments_per_ack() {
        let (mut p, data) = sender_with_window(TcpConfig::default(), 30.0);
        p.cfg.max_window = 30;
        let steps = run_fifo(&mut p, data, &[0, 24], 30);
        assert_eq!(steps.len(), 28 + 2, "28 duplicate ACKs, a partial ACK, the ACK that ends recovery");
        let on_dupacks: Vec<u64> = steps[..28].iter().flat_map(|s| s.sent.clone()).collect();
        assert_eq!(on_dupacks, vec![0]);
        assert_eq!((steps[28].ack, steps[28].sent.clone()), (24, vec![24, 30, 31]));
        assert_eq!((steps[29].ack, steps[29].sent.clone()), (30, (32..45).collect::<Vec<_>>()));
    }

    /// Losses of the first four segments and the last one of a window of `w` (FullTcp; ssthresh
    /// h = w/2). The w − 5 duplicate ACKs send new segments w to e − 1, e = w + (w − 5 − h), once the
    /// inflated window passes w. Partial ACKs for 1, 2 and 3 send only the retransmission; the one for
    /// w − 1 leaves e − (w − 1) = h − 4 segments outstanding under cwnd h, room for 4, but
    /// `recov_maxburst_` lets 2 go. The ACK that ends recovery finds 2 outstanding and sends
    /// int(h + 1/h) − 2. For w = 60 this is ns-2's own trace: `rec.tcl full "60 61 62 63 119"`
    /// (packets 58-61 and 117 lost) sends R117, 143, 144 at one instant and 28 segments at the next.
    #[test]
    fn full_tcp_recovery_sends_at_most_two_segments_per_ack_until_it_ends() {
        let cfg = TcpConfig { limited_transmit: false, recovery: Recovery::FullTcp, ..TcpConfig::default() };
        for (w, new, exit_burst) in [(30, 40..42, 42..55), (60, 85..87, 87..115)] {
            let h = w / 2;
            let (mut p, data) = sender_with_window(cfg.clone(), w as f64);
            let recovery_end = new.start;
            let steps = run_fifo(&mut p, data, &[0, 1, 2, 3, w - 1], recovery_end);
            // w − 5 duplicate ACKs: the retransmission of 0 on the third, new segments on the last w − 5 − h.
            let on_dupacks = [vec![0], (w..recovery_end).collect()].concat();
            assert_eq!(
                steps[..w as usize - 5].iter().flat_map(|s| s.sent.clone()).collect::<Vec<_>>(),
                on_dupacks
            );
            assert_eq!(recovery_end - w, w - 5 - h);
            let partial: Vec<(u64, Vec<u64>)> = steps[w as usize - 5..]
                .iter()
                .filter(|s| !s.sent.is_empty() && s.sent[0] < w)
                .map(|s| (s.ack, s.sent.clone()))
                .collect();
            let late = [vec![w - 1], new.clone().collect()].concat();
            assert_eq!(partial, vec![(1, vec![1]), (2, vec![2]), (3, vec![3]), (w - 1, late)], "w = {w}");
            assert!(steps[2..steps.len() - 1].iter().all(|s| s.cwnd == h as f64 && s.ssthresh == h as f64));
            // From the first partial ACK to the end of recovery: at most 2 new segments per ACK.
            let first_partial = w as usize - 5;
            let most_new = steps[first_partial..steps.len() - 1]
                .iter()
                .map(|s| s.sent.iter().filter(|&&i| i >= w).count())
                .max();
            assert_eq!(most_new, Some(2));
            let last = steps.last().unwrap();
            assert_eq!((last.ack, last.sent.clone()), (recovery_end, exit_burst.collect::<Vec<_>>()));
        }
    }

    fn dctcp() -> TcpConfig {
        TcpConfig { ecn: true, cc: ControllerKind::Dctcp, ..TcpConfig::default() }
    }

    /// The ACKs a receiver sends for `marks.len()` segments in order, segment i CE-marked iff
    /// `marks[i]`: (segment acknowledged next, ECN-Echo).
    fn acks_for_marks(cfg: TcpConfig, marks: &[bool]) -> Vec<(u64, bool)> {
        let (mut p, data) = sender_with_window(cfg, marks.len() as f64);
        p.cfg.delayed_ack = true; // the receiver's only (sender_with_window ACKs every segment)
        let mut acks = Vec::new();
        let codepoint = p.cfg.ecn_codepoint.ecn();
        for (pkt, &ce) in data.iter().zip(marks) {
            let ecn = if ce { Ecn::Ce } else { pkt.ecn };
            assert_eq!(pkt.ecn, codepoint, "data carries the configured codepoint");
            p.now += 1_000_000;
            let sent = p.deliver(1, &[Packet { ecn, ..pkt.clone() }]);
            acks.extend(sent.iter().map(|a| (seg_no(a.ack), a.has(flags::ECE))));
        }
        acks
    }

    /// RFC 8257 §3.2 with delayed ACKs (every second segment): a change of CE state sends the ACK
    /// being delayed at once, for the old state, so that each ACK covers segments of one state and
    /// carries ECN-Echo exactly when they were marked. The RFC 3168 receiver of other controllers
    /// echoes from the first mark on (the sender's CWR only rides on data after a cut).
    #[test]
    fn the_dctcp_receiver_echoes_ce_on_exactly_the_acks_that_cover_it() {
        let (n, c) = (false, true);
        let marks = [n, c, c, n, n, c, n, n, c, c, c, n];
        // 0 waits; 1 changes the state: ACK for 0 (unmarked) at once; 1 and 2 ACKed together, marked;
        // 3 changes the state with nothing delayed; 3 and 4 unmarked; 5 waits and 6 flushes it, marked;
        // 6 and 7 unmarked; 8 changes with nothing delayed; 8 and 9, then 10 marked (flushed by 11).
        let expected = [(1, n), (3, c), (5, n), (6, c), (8, n), (10, c), (11, c)];
        let acks = acks_for_marks(dctcp(), &marks);
        assert_eq!(acks, expected);
        // Every ACK covers segments of one CE state, the one it echoes.
        let mut from = 0;
        for &(to, ece) in &acks {
            assert!(marks[from as usize..to as usize].iter().all(|&m| m == ece), "{from}..{to}");
            from = to;
        }
        // Without delayed ACKs: ECN-Echo = the segment's CE.
        let every = acks_for_marks(TcpConfig { ack_every: 1, ..dctcp() }, &marks);
        assert_eq!(every, marks.iter().enumerate().map(|(i, &m)| (i as u64 + 1, m)).collect::<Vec<_>>());
        // The RFC 3168 receiver latches ECN-Echo from segment 1 on (no CWR arrives), and ACKs every
        // second segment whatever its mark.
        let latched = acks_for_marks(TcpConfig { ecn: true, ..TcpConfig::default() }, &marks);
        assert_eq!(latched, [(2, c), (4, c), (6, c), (8, c), (10, c), (12, c)]);
        // ECT(1) data (L4S) is echoed exactly as ECT(0) data, by either receiver.
        let ect1 = TcpConfig { ecn_codepoint: EcnCodepoint::Ect1, ..dctcp() };
        assert_eq!(acks_for_marks(ect1, &marks), expected);
        let ect1 = TcpConfig { ecn: true, ecn_codepoint: EcnCodepoint::Ect1, ..TcpConfig::default() };
        assert_eq!(acks_for_marks(ect1, &marks), latched);
        // Prague's receiver is DCTCP's (its sender unpaced, so that the window leaves at once).
        assert_eq!(acks_for_marks(TcpConfig { pacing: Some(false), ..prague() }, &marks), expected);
    }

    fn alpha(e: &Endpoint) -> f64 {
        match &e.cc {
            AnyController::Dctcp(d) => d.alpha(),
            AnyController::Prague(d) => d.alpha(),
            _ => panic!("a DCTCP or Prague sender"),
        }
    }

    fn prague() -> TcpConfig {
        TcpConfig {
            ecn: true,
            ecn_codepoint: EcnCodepoint::Ect1,
            cc: ControllerKind::Prague,
            ..TcpConfig::default()
        }
    }

    /// A DCTCP sender with a window of 20 (every segment ACKed at once, alpha starting at 1). Segments
    /// 0 to 3 of the first window are marked: the first ECN-Echo ACK updates alpha (a window of one
    /// ACK, F = 1: alpha stays 1) and then halves the window, 20 → 10; the other marks of that window
    /// cut nothing more, and unmarked ACKs open cwnd by 1/cwnd. The ACK of segment 19 ends the next
    /// window, ACKs 1 to 19, three of them marked: alpha = 15/16 + (3/19)/16. The first mark after
    /// that cuts cwnd (not opened by its ACK) to cwnd·(1 − alpha/2).
    /// A Prague sender (unpaced, without RTT independence, which would change the growth) does the
    /// same: its first ACK is marked, so its alpha starts to move at once, as DCTCP's.
    #[test]
    fn a_dctcp_or_prague_sender_cuts_once_per_window_in_proportion_to_alpha() {
        let g = 1.0 / 16.0;
        let prague =
            TcpConfig { pacing: Some(false), prague_rtt_target: Duration::from_secs(0.0), ..prague() };
        let senders: [(TcpConfig, Build); 2] = [
            (dctcp(), |cfg| AnyController::Dctcp(Dctcp::in_congestion_avoidance(20.0, cfg))),
            (prague, |cfg| AnyController::Prague(Prague::in_congestion_avoidance(20.0, cfg))),
        ];
        for (cfg, cc) in senders {
            let (p, trace) = run_marked(TcpConfig { dctcp_g: g, ..cfg }, cc);
            assert_eq!(trace[0].3, 10.0, "alpha 1: the first cut halves");
            assert_eq!(trace[0].4, 1.0);
            // Marks 1 to 3: no cut, no growth; unmarked ACKs: +1/cwnd.
            assert!(trace[1..4].iter().all(|&(_, _, before, after, _)| before == after));
            let grown = (4..20).fold(10.0, |w: f64, _| w + 1.0 / w);
            assert!((trace[19].3 - grown).abs() < 1e-12, "{} against {grown}", trace[19].3);
            let alpha_1 = (1.0 - g) + g * 3.0 / 19.0;
            assert_eq!(trace[19].4, alpha_1, "the window of ACKs 1 to 19");
            assert!(trace[1..19].iter().all(|t| t.4 == 1.0), "alpha moves once per window");
            let cut = &trace[30];
            assert!(cut.1);
            assert!((cut.3 - cut.2 * (1.0 - cut.4 / 2.0)).abs() < 1e-12, "{cut:?}");
            assert!(cut.3 > cut.2 / 2.0, "alpha < 1 cuts less than half: {cut:?}");
            assert_eq!(cut.4, (1.0 - g) * alpha_1, "one more window, ACKs 20 to 29, none marked");
            assert_eq!(p.ends[0].ssthresh(), cut.3);
            assert_eq!(p.ends[0].stats().ecn_reductions, 2);
        }
    }

    /// Makes a sender's controller from the configuration.
    type Build = fn(&TcpConfig) -> AnyController;

    /// (segment, ECN-Echo, cwnd before, cwnd after, alpha after) of one ACK.
    type MarkedAck = (u64, bool, f64, f64, f64);

    /// Segments 0 to 30 of a sender with a window of 20 and controller `cc`, every ACK at once,
    /// segments 0 to 3 and 30 CE-marked; per ACK: (segment, ECN-Echo, cwnd before, cwnd after, alpha
    /// after).
    fn run_marked(cfg: TcpConfig, cc: Build) -> (Pair, Vec<MarkedAck>) {
        let (mut p, data) = sender_with(cfg, 20.0, cc);
        let marked = |i: u64| i < 4 || i == 30;
        let mut queue: std::collections::VecDeque<Packet> = data.into();
        let mut trace = Vec::new(); // (segment, ECN-Echo, cwnd before, cwnd after, alpha after)
        while let Some(pkt) = queue.pop_front() {
            let i = seg_no(pkt.seq);
            if i > 30 {
                break;
            }
            p.now += 1_000_000;
            let ecn = if marked(i) { Ecn::Ce } else { pkt.ecn };
            let ack = p.deliver(1, &[Packet { ecn, ..pkt }]);
            let before = p.ends[0].cwnd();
            queue.extend(p.deliver(0, &ack));
            trace.push((i, ack[0].has(flags::ECE), before, p.ends[0].cwnd(), alpha(&p.ends[0])));
        }
        assert!(trace.iter().all(|&(i, ece, ..)| ece == marked(i)));
        (p, trace)
    }

    /// A connection whose handshake took `rtt` (tick 0: srtt exactly `rtt`), then the sender's
    /// controller `cc` and 100 segments to send; returns each data segment's departure time, the
    /// sender's pacing timer fired as it asks.
    fn departures(cfg: TcpConfig, cc: AnyController, rtt: Time) -> Vec<Time> {
        let cfg = TcpConfig { delayed_ack: false, max_window: 100, tick: Duration::from_secs(0.0), ..cfg };
        let mut p = Pair::new(cfg);
        let syn = p.call(0, |e, cfg, io| e.connect(cfg, io));
        p.now = rtt / 2;
        let syn_ack = p.deliver(1, &syn);
        p.now = rtt;
        let _ = p.deliver(0, &syn_ack);
        assert_eq!(p.ends[0].srtt_secs(), crate::sim::time::to_secs(rtt));
        p.ends[0].cc = cc;
        p.timers.clear();
        let mut times = Vec::new();
        let mut sent = p.call(0, |e, cfg, io| e.write(cfg, 100 * MSS, io));
        loop {
            times.extend(sent.iter().filter(|s| s.payload() > 0).map(|_| p.now));
            let Some(i) = p.timers.iter().position(|&(kind, _)| kind == TimerKind::Pacing) else { break };
            let (_, at) = p.timers.swap_remove(i);
            p.now = at;
            sent = p.call(0, |e, cfg, io| e.on_timer(cfg, TimerKind::Pacing, io));
        }
        times
    }

    /// With pacing, a window's segments leave `srtt·size/(gain·cwnd·mss)` apart, gain 2 below half of
    /// ssthresh (here 100), else the controller's: 1.2 for NewReno, 1 for Prague. Once the window is
    /// out nothing more is scheduled (the ACKs release the rest). Prague paces unless told not to;
    /// without pacing, or without an RTT sample, the window leaves at once.
    #[test]
    fn paced_segments_leave_a_size_over_the_rate_apart() {
        let reno = |cwnd: f64| AnyController::NewReno(NewReno::in_congestion_avoidance(cwnd));
        let prague_at = |cwnd: f64| AnyController::Prague(Prague::in_congestion_avoidance(cwnd, &prague()));
        let slow_start = || {
            let mut cc =
                NewReno::new(&TcpConfig { init_cwnd: 10.0, max_window: 100, ..TcpConfig::default() });
            cc.on_ack(&Ack { now: 0, segments: 1.0, srtt: 0.0 }); // 11 segments, ssthresh 100
            AnyController::NewReno(cc)
        };
        let paced = TcpConfig { pacing: Some(true), ..TcpConfig::default() };
        // 20 ms / (gain·cwnd) apart, by hand: 20/(2·11) = 0.909091 ms; 20/(1.2·10) = 1.666667 ms;
        // 20/(1·10) = 2 ms.
        for (cfg, cc, n, gap) in [
            (paced.clone(), slow_start(), 11, 909_091),
            (paced.clone(), reno(10.0), 10, 1_666_667),
            (prague(), prague_at(10.0), 10, 2_000_000),
        ] {
            let start = 20_000_000;
            let times = departures(cfg, cc, start);
            assert_eq!(times, (0..n).map(|k| start + k * gap).collect::<Vec<_>>());
        }
        // Unpaced: the window leaves at once, as before pacing existed.
        for (cfg, cc) in [
            (TcpConfig::default(), reno(10.0)),
            (TcpConfig { pacing: Some(false), ..paced.clone() }, reno(10.0)),
            (TcpConfig { pacing: Some(false), ..prague() }, prague_at(10.0)),
        ] {
            assert_eq!(departures(cfg, cc, 20_000_000), vec![20_000_000; 10]);
        }
        // Before the first RTT sample there is no rate, and nothing waits.
        let fresh = Endpoint::new(Role::Initiator, &prague(), 0, 0, 0, 0);
        assert!(fresh.paced);
        assert_eq!(fresh.pacing_gap(MSS, &prague()), 0);
    }
}
