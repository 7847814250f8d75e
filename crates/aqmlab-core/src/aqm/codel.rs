//! CoDel — Controlled Delay (Nichols, Jacobson, McGregor, Iyengar; RFC 8289), following the RFC's
//! Appendix pseudocode (docs/aqm.md#codel-state-machine).
//!
//! Packets are timestamped on enqueue (`Fifo::push`). At dequeue the head's sojourn time is compared
//! with `target`: once it has stayed at or above `target` for `interval` (and more than one `mtu` of
//! bytes remains queued — the RFC's MAXPACKET guard), CoDel enters the dropping state, drops the head and
//! schedules the next drop at `interval / sqrt(count)` later, `count` growing by one per drop. It leaves
//! the dropping state as soon as a dequeued packet's sojourn falls below `target` (or the backlog falls to
//! one MTU). On re-entry within `16 * interval` of the last scheduled drop, `count` restarts from the
//! number of drops of the previous cycle (`count - lastcount`, when above 1) instead of 1 — the Linux rule
//! the RFC pseudocode adopts.
//!
//! With `ecn` on, an ECN-capable head is marked and delivered instead of dropped (as Linux and ns-3 do:
//! a mark ends the dequeue, the drop schedule advances exactly as for a drop); a non-ECT head is dropped
//! (`NotEct`). Without ECN the drops are `Early`. An arrival finding `limit` packets waiting is tail-dropped
//! (`Overflow`).
//!
//! `ce_threshold` and `l4s` are ns-3's (`CeThreshold`, `UseL4s`; [`super::l4s`]): with `l4s` an ECT(1) or
//! CE head is marked if its sojourn exceeds the threshold and sent without touching the state machine;
//! without, and with `ecn` on, the packet the state machine sends is marked above the threshold unless
//! it has just been marked (Linux's `ce_threshold`, which also marks with `ecn` off and marks twice).
//!
//! Deviations: the control law uses an exact `sqrt` (Linux uses a Newton-iteration reciprocal square
//! root), rounded to the nearest nanosecond. Packet-mode limit only.
//!
//! Defaults: target 5 ms, interval 100 ms, MAXPACKET = one MTU = 1500 bytes (ns-3 `MinBytes`), limit 1000
//! packets (Linux `codel` default; the RFC leaves the buffer to the implementation), ECN off.
//!
//! [`Codel`] is also the AQM of each FQ-CoDel bucket.

use super::config::FieldChecks;
use super::fifo::{Fifo, FifoAqm, FifoQueue};
use super::l4s::{self, CeThreshold};
use super::{Buffer, DisciplineConfig, DropReason, LinkInfo, QueueEnv, check};
use crate::net::PacketId;
use crate::scenario::units::{Bytes, Seconds};
use crate::sim::time::secs;
use crate::sim::Time;

aqm_config! {
    pub struct Config {
        /// Acceptable standing sojourn time, seconds (TARGET, 0.005).
        #[default(Seconds(0.005))]
        #[check(positive_secs)]
        pub target: Seconds,
        /// Sliding window over which the sojourn must stay above target, seconds (INTERVAL, 0.1).
        #[default(Seconds(0.1))]
        #[check(positive_secs)]
        pub interval: Seconds,
        /// MAXPACKET: no drop while at most this many bytes are queued (one MTU, 1500).
        #[default(Bytes(1500))]
        #[check(size)]
        pub mtu: Bytes,
        /// Buffer size in packets (1000); arrivals beyond it are tail-dropped.
        #[default(1000)]
        pub limit: u32,
        /// Mark ECN-capable packets instead of dropping them.
        pub ecn: bool,
        /// Sojourn above which a dequeued packet is CE-marked (ns-3 `CeThreshold`; absent: off): with
        /// `l4s`, ECT(1) and CE packets; without, every ECN-capable packet when `ecn` is on.
        pub ce_threshold: Option<Seconds>,
        /// L4S mode (ns-3 `UseL4s`): ECT(1) and CE packets are marked above `ce_threshold` and bypass
        /// the control law.
        pub l4s: bool,
    }
}

impl DisciplineConfig for Config {
    type Discipline = FifoQueue<Codel>;

    fn buffer(&self) -> Buffer {
        Buffer::Packets(self.limit as u64)
    }

    /// The control law's fields, then the L4S settings, then the buffer.
    fn validate(&self) -> Result<(), (String, String)> {
        self.check_fields()?;
        l4s::validate(self.ce_threshold, self.l4s)?;
        check::at_least_one("limit", self.limit)
    }
}

impl Config {
    fn params(&self) -> CodelParams {
        let ce = CeThreshold::new(self.ce_threshold, self.l4s);
        CodelParams::new(self.target, self.interval, self.mtu, self.ecn, ce)
    }
}

/// CoDel's constants in simulation units.
#[derive(Clone, Copy, Debug)]
struct CodelParams {
    pub target: Time,
    pub interval: Time,
    pub mtu: u64,
    pub ecn: bool,
    pub ce: CeThreshold,
}

impl CodelParams {
    pub fn new(target: Seconds, interval: Seconds, mtu: Bytes, ecn: bool, ce: CeThreshold) -> Self {
        CodelParams { target: secs(target.0), interval: secs(interval.0), mtu: mtu.0, ecn, ce }
    }

    /// `t + interval / sqrt(count)`.
    fn control_law(&self, t: Time, count: u32) -> Time {
        t + (self.interval as f64 / (count as f64).sqrt()).round() as Time
    }
}

/// The CoDel state of one queue (RFC 8289 Appendix variables).
#[derive(Clone, Debug, Default)]
struct CodelState {
    /// When the sojourn has been above target for an interval (None: below target).
    first_above_time: Option<Time>,
    /// Time of the next scheduled drop while dropping.
    drop_next: Time,
    /// Drops (or marks) since entering the dropping state, seeded on re-entry.
    count: u32,
    /// `count` when the dropping state was last entered.
    lastcount: u32,
    dropping: bool,
}

impl CodelState {
    /// Pops the head of `fifo` and says whether CoDel may drop it (the RFC's `dodequeue`).
    fn pop(&mut self, p: &CodelParams, fifo: &mut Fifo, env: &mut QueueEnv) -> (Option<PacketId>, bool) {
        let pkt = fifo.pop(env.packets);
        (pkt, self.ok_to_drop(p, pkt, fifo, env))
    }

    /// Whether CoDel may drop `pkt`, just popped from `fifo` (ns-3 `OkToDrop`).
    fn ok_to_drop(&mut self, p: &CodelParams, pkt: Option<PacketId>, fifo: &Fifo, env: &QueueEnv) -> bool {
        let Some(pkt) = pkt else {
            self.first_above_time = None;
            return false;
        };
        let sojourn = env.now - env.packets.get(pkt).enqueued_at;
        let mut ok_to_drop = false;
        if sojourn < p.target || fifo.bytes() <= p.mtu {
            self.first_above_time = None;
        } else {
            match self.first_above_time {
                None => self.first_above_time = Some(env.now + p.interval),
                Some(t) => ok_to_drop = env.now >= t,
            }
        }
        ok_to_drop
    }

    /// The next packet to send from `fifo`, dropping (or marking) heads as the control law says, then
    /// marking against `ce_threshold` (ns-3 `CoDelQueueDisc::DoDequeue`).
    pub fn dequeue(&mut self, p: &CodelParams, fifo: &mut Fifo, env: &mut QueueEnv) -> Option<PacketId> {
        let head = fifo.pop(env.packets);
        if let Some(pkt) = head.filter(|&pkt| p.ce.holds_l4s(pkt, env)) {
            // L4S: the threshold alone decides, and the control law's state does not see the packet.
            p.ce.mark_above(pkt, env);
            return head;
        }
        let ok_to_drop = self.ok_to_drop(p, head, fifo, env);
        let (pkt, marked) = self.control_law_dequeue(p, head, ok_to_drop, fifo, env);
        if let Some(pkt) = pkt.filter(|_| !marked && p.ecn && !p.ce.l4s) {
            // Linux's ce_threshold, which ns-3 applies only with ECN on and without a second mark.
            p.ce.mark_above(pkt, env);
        }
        pkt
    }

    /// The RFC's dequeue from the popped head `pkt` on: the packet to send and whether it was marked.
    fn control_law_dequeue(
        &mut self,
        p: &CodelParams,
        mut pkt: Option<PacketId>,
        ok_to_drop: bool,
        fifo: &mut Fifo,
        env: &mut QueueEnv,
    ) -> (Option<PacketId>, bool) {
        let now = env.now;
        let mut marked = false;
        if self.dropping {
            if !ok_to_drop {
                self.dropping = false;
            }
            while self.dropping && now >= self.drop_next {
                let head = pkt.expect("ok_to_drop implies a packet");
                self.count += 1;
                if env.mark_or_drop(head, p.ecn) {
                    // Marked: it is sent, and the next mark is scheduled as after a drop.
                    self.drop_next = p.control_law(self.drop_next, self.count);
                    return (pkt, true);
                }
                let (next, ok) = self.pop(p, fifo, env);
                pkt = next;
                if ok {
                    self.drop_next = p.control_law(self.drop_next, self.count);
                } else {
                    self.dropping = false;
                }
            }
        } else if ok_to_drop {
            let head = pkt.expect("ok_to_drop implies a packet");
            marked = env.mark_or_drop(head, p.ecn);
            if !marked {
                pkt = self.pop(p, fifo, env).0;
            }
            self.dropping = true;
            let delta = self.count.saturating_sub(self.lastcount);
            let recent = (now as i128 - self.drop_next as i128) < 16 * p.interval as i128;
            self.count = if delta > 1 && recent { delta } else { 1 };
            self.drop_next = p.control_law(now, self.count);
            self.lastcount = self.count;
        }
        (pkt, marked)
    }

    pub fn state(&self) -> [(&'static str, f64); 3] {
        [
            ("count", self.count as f64),
            ("dropping", self.dropping as u8 as f64),
            ("drop_next", self.drop_next as f64),
        ]
    }
}

#[derive(Clone)]
pub struct Codel {
    limit: usize,
    params: CodelParams,
    state: CodelState,
}

impl FifoAqm for Codel {
    type Config = Config;

    fn new(cfg: Config, _link: LinkInfo) -> Self {
        Codel {
            limit: cfg.limit as usize,
            params: cfg.params(),
            state: CodelState::default(),
        }
    }

    fn enqueue(&mut self, pkt: PacketId, fifo: &mut Fifo, env: &mut QueueEnv) {
        if fifo.len() >= self.limit {
            env.drop(pkt, DropReason::Overflow);
        } else {
            fifo.push(pkt, env.packets, env.now);
        }
    }

    fn dequeue(&mut self, fifo: &mut Fifo, env: &mut QueueEnv) -> Option<PacketId> {
        self.state.dequeue(&self.params, fifo, env)
    }

    /// CoDel drops at the head when it dequeues.
    fn departs_in_arrival_order(&self) -> bool {
        false
    }

    fn state(&self, out: &mut Vec<(&'static str, f64)>) {
        out.extend(self.state.state());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::aqm::QueueDisc;
    use crate::aqm::testutil::{assert_rejected, one_bad_field, Harness, MS};
    use crate::aqm::QueueAction;
    use crate::net::Ecn;


    /// Dequeues once per millisecond over `[from_ms, to_ms)` and returns the instants (ms) at which
    /// CoDel dropped or marked, with the action.
    fn run(h: &mut Harness, q: &mut FifoQueue<Codel>, from_ms: u64, to_ms: u64) -> Vec<(u64, QueueAction)> {
        let mut events = Vec::new();
        for t in from_ms..to_ms {
            h.now = t * MS;
            assert!(h.depart(q).is_some());
            events.extend(h.actions.iter().map(|a| (t, *a)));
        }
        events
    }

    fn standing_queue(n: usize, ecn: Ecn, cfg: Config) -> (Harness, FifoQueue<Codel>) {
        let mut h = Harness::new(10_000_000, 0);
        let mut q = FifoQueue::new(Codel::new(cfg, h.link));
        for _ in 0..n {
            assert!(h.arrive(&mut q, 1500, ecn).is_none());
        }
        (h, q)
    }

    /// 100 ms / sqrt(n), in ns, as the control law rounds it.
    fn step(n: u32) -> Time {
        (100.0 * MS as f64 / (n as f64).sqrt()).round() as Time
    }

    #[test]
    fn drops_follow_interval_over_sqrt_count_on_a_standing_queue() {
        // 1000 packets queued at t = 0, one departure per ms from 1 ms: the head's sojourn is `now`.
        let (mut h, mut q) = standing_queue(1000, Ecn::NotEct, Config::default());
        let events = run(&mut h, &mut q, 1, 600);
        // Sojourn first >= 5 ms at t = 5 ms, so first_above = 105 ms: the first drop happens there and
        // schedules the next at 105 + 100/sqrt(1); then drop_next += 100/sqrt(count) with count = 2, 3, ...
        let mut expected = vec![105];
        let mut next = 205 * MS;
        for count in 2..=10 {
            if next >= 600 * MS {
                break;
            }
            expected.push(next.div_ceil(MS)); // the first 1 ms departure at or after drop_next
            next += step(count);
        }
        assert_eq!(&expected[..5], &[105, 205, 276, 334, 384]);
        let times: Vec<u64> = events.iter().map(|e| e.0).collect();
        assert_eq!(times, expected);
        assert!(events.iter().all(|e| matches!(e.1, QueueAction::Dropped(_, DropReason::Early))));
        assert_eq!(q.aqm.state.count as usize, expected.len());
        // The first drop is the head at 105 ms: packet 104 (packets 0..=103 left at 1..=104 ms).
        assert_eq!(events[0].1, QueueAction::Dropped(104, DropReason::Early));
    }

    #[test]
    fn reentry_within_16_intervals_resumes_the_previous_drop_rate() {
        let (mut h, mut q) = standing_queue(500, Ecn::NotEct, Config::default());
        // Drops at 105, 205, 276, 334 ms: count = 4, lastcount = 1, drop_next = 334.4 + 50 = 384.4 ms.
        let events = run(&mut h, &mut q, 1, 350);
        assert_eq!(events.len(), 4);
        let drop_next = 205 * MS + step(2) + step(3) + step(4);
        assert_eq!(q.aqm.state.drop_next, drop_next);
        // Drain at 350 ms: the queue ends with one MTU or less, which leaves the dropping state.
        h.now = 350 * MS;
        while h.depart(&mut q).is_some() {}
        assert!(!q.aqm.state.dropping);
        // A fresh standing queue from 350 ms: sojourn reaches 5 ms at 355 ms, so entry at 455 ms with
        // count = delta = 4 - 1 = 3 (455 - 384.4 ms < 1.6 s), next drop at 455 + 100/sqrt(3) ms.
        h.arrive_n(&mut q, 300, 1500, Ecn::NotEct);
        let events = run(&mut h, &mut q, 351, 600);
        let entry = 455 * MS;
        let second = entry + step(3);
        let third = second + step(4);
        let times: Vec<u64> = events.iter().map(|e| e.0).collect();
        assert_eq!(times, vec![455, second.div_ceil(MS), third.div_ceil(MS)]);
        assert_eq!(&times[1..], &[513, 563]);
        assert_eq!(q.aqm.state.lastcount, 3);
    }

    #[test]
    fn reentry_after_16_intervals_restarts_count_at_one() {
        let (mut h, mut q) = standing_queue(500, Ecn::NotEct, Config::default());
        run(&mut h, &mut q, 1, 350);
        h.now = 350 * MS;
        while h.depart(&mut q).is_some() {}
        // Refill 2 s later: entry at 2350 + 5 + 100 ms, more than 16 intervals after drop_next.
        h.now = 2350 * MS;
        h.arrive_n(&mut q, 300, 1500, Ecn::NotEct);
        let events = run(&mut h, &mut q, 2351, 2600);
        let times: Vec<u64> = events.iter().map(|e| e.0).collect();
        assert_eq!(times, vec![2455, 2555]);
    }

    #[test]
    fn ecn_marks_the_head_and_delivers_it() {
        let cfg = Config { ecn: true, ..Default::default() };
        let (mut h, mut q) = standing_queue(1000, Ecn::Ect0, cfg);
        let mut marked = Vec::new();
        for t in 1..300 {
            h.now = t * MS;
            let pkt = h.depart(&mut q).unwrap();
            for a in &h.actions {
                assert_eq!(*a, QueueAction::Marked(pkt), "the marked packet is the one sent");
                marked.push(t);
            }
        }
        assert_eq!(marked, vec![105, 205, 276]);
        assert_eq!(q.len_packets(), 1000 - 299, "nothing dropped");
        assert_eq!(h.packets.get(104).ecn, Ecn::Ce);
    }

    #[test]
    fn non_ect_head_is_dropped_when_ecn_is_on() {
        let cfg = Config { ecn: true, ..Default::default() };
        let (mut h, mut q) = standing_queue(300, Ecn::NotEct, cfg);
        let events = run(&mut h, &mut q, 1, 110);
        assert_eq!(events, vec![(105, QueueAction::Dropped(104, DropReason::NotEct))]);
    }

    #[test]
    fn no_drop_with_one_mtu_or_less_queued() {
        // Two packets, sojourn far above target: after popping one, 1500 bytes <= MAXPACKET remain.
        let (mut h, mut q) = standing_queue(2, Ecn::NotEct, Config::default());
        h.now = 1000 * MS;
        assert_eq!(h.depart(&mut q), Some(0));
        assert_eq!(q.aqm.state.first_above_time, None);
        assert_eq!(h.depart(&mut q), Some(1));
        assert_eq!(h.depart(&mut q), None);
        assert!(h.actions.is_empty());
    }

    #[test]
    fn overflow_is_a_tail_drop_at_limit() {
        let (mut h, mut q) = standing_queue(3, Ecn::NotEct, Config { limit: 3, ..Default::default() });
        assert_eq!(h.arrive(&mut q, 1500, Ecn::NotEct), Some(QueueAction::Dropped(3, DropReason::Overflow)));
        assert_eq!(q.len_packets(), 3);
    }

    fn l4s() -> Config {
        Config { ce_threshold: Some(Seconds(0.001)), l4s: true, ..Default::default() }
    }

    #[test]
    fn l4s_marks_an_ect1_packet_only_when_its_sojourn_exceeds_ce_threshold() {
        let (mut h, mut q) = standing_queue(3, Ecn::Ect1, l4s());
        h.now = MS / 2;
        assert_eq!(h.depart(&mut q), Some(0));
        h.now = MS;
        assert_eq!(h.depart(&mut q), Some(1), "exactly at the threshold: not above it");
        assert!(h.actions.is_empty());
        h.now = MS + 1;
        assert_eq!(h.depart(&mut q), Some(2));
        assert_eq!(h.actions, vec![QueueAction::Marked(2)], "marked and sent");
        assert_eq!(h.packets.get(2).ecn, Ecn::Ce);
        assert_eq!((h.packets.get(0).ecn, h.packets.get(1).ecn), (Ecn::Ect1, Ecn::Ect1));
    }

    #[test]
    fn l4s_packets_bypass_the_control_law() {
        // A standing ECT(1) queue far above target for 600 ms: every packet above 1 ms is marked, none
        // is dropped, and CoDel never starts counting (ns-3 returns before `OkToDrop`).
        let (mut h, mut q) = standing_queue(1000, Ecn::Ect1, l4s());
        let events = run(&mut h, &mut q, 1, 600);
        let marked: Vec<u64> = (2..600).collect();
        assert_eq!(events.iter().map(|e| e.0).collect::<Vec<_>>(), marked);
        assert!(events.iter().all(|e| matches!(e.1, QueueAction::Marked(_))));
        assert_eq!((q.aqm.state.count, q.aqm.state.dropping), (0, false));
        assert_eq!(q.aqm.state.first_above_time, None);
    }

    #[test]
    fn ect0_and_not_ect_packets_follow_the_classic_law_in_l4s_mode() {
        for (ecn, marking) in [(Ecn::NotEct, false), (Ecn::NotEct, true), (Ecn::Ect0, true), (Ecn::Ect0, false)] {
            let classic = Config { ecn: marking, ..Default::default() };
            let (mut h, mut q) = standing_queue(1000, ecn, classic.clone());
            let expected = run(&mut h, &mut q, 1, 600);
            let (mut h, mut q) = standing_queue(1000, ecn, Config { ecn: marking, ..l4s() });
            assert_eq!(run(&mut h, &mut q, 1, 600), expected, "{ecn:?}, ecn = {marking}");
            let times: Vec<u64> = expected.iter().take(3).map(|e| e.0).collect();
            assert_eq!(times, [105, 205, 276], "{ecn:?}, ecn = {marking}");
        }
    }

    #[test]
    fn ce_threshold_without_l4s_marks_every_ect_packet_above_it_once_with_ecn_on() {
        // ns-3 (and Linux's ce_threshold): ECT(0) above 1 ms is marked at every departure, the control
        // law's own marks (105, 205, 276 ms) included, but never twice.
        let cfg = Config { ecn: true, ce_threshold: Some(Seconds(0.001)), ..Default::default() };
        let (mut h, mut q) = standing_queue(1000, Ecn::Ect0, cfg.clone());
        let events = run(&mut h, &mut q, 1, 300);
        assert_eq!(events.iter().map(|e| e.0).collect::<Vec<_>>(), (2..300).collect::<Vec<_>>());
        assert!(events.iter().all(|e| matches!(e.1, QueueAction::Marked(_))));
        assert_eq!(q.aqm.state.count, 3, "the control law ran as without the threshold");
        // Non-ECT packets are neither marked nor dropped by the threshold.
        let (mut h, mut q) = standing_queue(300, Ecn::NotEct, cfg);
        assert_eq!(run(&mut h, &mut q, 1, 110), vec![(105, QueueAction::Dropped(104, DropReason::NotEct))]);
        // ns-3 applies the threshold only with ECN on.
        let cfg = Config { ce_threshold: Some(Seconds(0.001)), ..Default::default() };
        let (mut h, mut q) = standing_queue(300, Ecn::Ect0, cfg);
        assert_eq!(run(&mut h, &mut q, 1, 110), vec![(105, QueueAction::Dropped(104, DropReason::Early))]);
    }

    #[test]
    fn validate_rejects_nonsense() {
        assert_rejected(one_bad_field![
            target: Seconds(0.0), interval: Seconds(-1.0), mtu: Bytes(0), limit: 0,
            ce_threshold: Some(Seconds(-0.001)),
        ]);
        assert_rejected([
            ("ce_threshold", Config { l4s: true, ..Default::default() }),
        ]);
    }
}
