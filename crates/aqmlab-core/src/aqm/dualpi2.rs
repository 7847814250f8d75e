//! DualPI2 — the DualQ Coupled AQM of RFC 9332 (Appendix A's PI2 example), with Linux `sch_dualpi2`'s
//! choices where the RFC leaves them open (docs/aqm.md#dualpi2).
//!
//! **Two FIFOs** share one buffer of `limit` packets: an arrival that finds `limit` packets waiting is
//! dropped (`Overflow`); otherwise an ECT(1) or CE packet (RFC 9331's L4S identifier, [`super::l4s`])
//! joins the L queue and every other packet the C queue.
//!
//! **Every `t_update`** the base probability follows the C queue's delay (RFC 9332's `cq.time()`: the
//! sojourn of the packet at its head, 0 when it is empty; Linux takes the larger of the two heads'):
//!
//! ```text
//! p' += alpha (qdelay - target) + beta (qdelay - qdelay_old);  clip p' to [0, 1];  qdelay_old = qdelay
//! p_C = p'^2        (Classic, the square: selected when two uniform draws both fall below p')
//! p_CL = min(k p', 1)   (coupled L4S probability)
//! ```
//!
//! **Scheduler**: time-shifted FIFO (RFC 9332 §A.1, as ns-3's port of its draft-10 pseudocode reads it):
//! the L queue is served while its head's sojourn plus `tshift` exceeds the C head's sojourn.
//!
//! **Departure** (drops at dequeue, Linux's default): no probabilistic mark or drop while the waiting
//! bytes (the departing packet excluded) are below 2 `mtu` (Linux). A C packet selected with p_C is
//! marked if ECN-capable, dropped (`NotEct`) if not, and dropped (`Early`) whatever its ECN under
//! overload, `p_C >= p_Cmax = min(1/k^2, 1)` (RFC 9332 §A.1). An L packet is marked with
//! `p_L = max(step, p_CL)`: always when its sojourn exceeds `step_thresh` (the native step AQM), else
//! with p_CL; under overload (where p_CL is 1) it is first offered the Classic drop with p_C (Linux
//! `drop_on_overload`) and marked if it survives.
//!
//! Defaults: target 15 ms, t_update 16 ms, alpha 0.16 Hz, beta 3.2 Hz, k 2, step_thresh 1 ms (RFC 9332
//! and Linux); tshift 50 ms (ns-3's draft-10 port); limit 10000 packets and mtu 1500 B (Linux).

use super::fifo::Fifo;
use super::l4s::CeThreshold;
use super::{Buffer, Discipline, DropReason, LinkInfo, QueueDisc, QueueEnv};
use crate::net::PacketId;
use crate::scenario::units::{Bytes, Seconds};
use crate::sim::time::{secs, to_secs};
use crate::sim::Time;

aqm_config! {
    #[discipline(DualPi2)]
    #[buffer(|c| Buffer::Packets(c.limit as u64))]
    pub struct Config {
        /// Packets both queues hold together (10000, Linux).
        #[default(10_000)]
        #[check(at_least_one)]
        pub limit: u32,
        /// Target queueing delay of the C queue, seconds (0.015).
        #[default(Seconds(0.015))]
        #[check(positive_secs)]
        pub target: Seconds,
        /// Period of the probability update, seconds (Tupdate, 0.016).
        #[default(Seconds(0.016))]
        #[check(positive_secs)]
        pub t_update: Seconds,
        /// Integral gain, 1/s (0.16).
        #[default(0.16)]
        #[check(nonnegative)]
        pub alpha: f64,
        /// Proportional gain, 1/s (3.2).
        #[default(3.2)]
        #[check(nonnegative)]
        pub beta: f64,
        /// Coupling factor k between the L and C probabilities (2).
        #[default(2.0)]
        #[check(positive)]
        pub coupling: f64,
        /// Sojourn above which an L packet is always marked, seconds (0.001).
        #[default(Seconds(0.001))]
        #[check(nonnegative_secs)]
        pub step_thresh: Seconds,
        /// Time shift of the scheduler: how much longer the C head may wait than the L head, seconds
        /// (0.050).
        #[default(Seconds(0.050))]
        #[check(nonnegative_secs)]
        pub tshift: Seconds,
        /// Maximum packet size: no probabilistic signal while under 2 mtu wait (1500).
        #[default(Bytes(1500))]
        #[check(size)]
        pub mtu: Bytes,
    }
}

pub struct DualPi2 {
    l: Fifo,
    c: Fifo,
    limit: usize,
    target: f64,
    t_update: Time,
    tshift: Time,
    alpha: f64,
    beta: f64,
    k: f64,
    /// min(1/k^2, 1): the Classic probability from which ECN-capable packets are dropped too.
    p_cmax: f64,
    /// Classifier (L4S identifier) and the L queue's step threshold.
    step: CeThreshold,
    /// 2 mtu: the waiting bytes below which no packet is marked or dropped by probability.
    min_backlog: u64,
    /// The base probability p'.
    p: f64,
    /// C-queue delay at the previous update, seconds.
    qdelay_old: f64,
}

impl Discipline<Config> for DualPi2 {
    fn build(cfg: Config, _link: LinkInfo) -> Self {
        DualPi2 {
            l: Fifo::default(),
            c: Fifo::default(),
            limit: cfg.limit as usize,
            target: cfg.target.0,
            t_update: secs(cfg.t_update.0),
            tshift: secs(cfg.tshift.0),
            alpha: cfg.alpha,
            beta: cfg.beta,
            k: cfg.coupling,
            p_cmax: (1.0 / (cfg.coupling * cfg.coupling)).min(1.0),
            step: CeThreshold::new(Some(cfg.step_thresh), true),
            min_backlog: 2 * cfg.mtu.0,
            p: 0.0,
            qdelay_old: 0.0,
        }
    }
}

/// The sojourn of the packet at the head of `q` (RFC 9332's `time()`), 0 when `q` is empty.
fn head_sojourn(q: &Fifo, env: &QueueEnv) -> Time {
    q.head().map_or(0, |h| env.now - env.packets.get(h).enqueued_at)
}

impl DualPi2 {
    fn p_c(&self) -> f64 {
        self.p * self.p
    }

    fn p_cl(&self) -> f64 {
        (self.k * self.p).min(1.0)
    }

    /// Selection with p_C = p'^2: two independent draws both below p' (RFC 9332's squared test).
    fn classic_selected(&self, env: &mut QueueEnv) -> bool {
        env.uniform() < self.p && env.uniform() < self.p
    }

    /// Whether the time-shifted FIFO serves the L queue; None when both queues are empty.
    fn serve_l(&self, env: &QueueEnv) -> Option<bool> {
        match (self.l.is_empty(), self.c.is_empty()) {
            (true, true) => None,
            (false, true) => Some(true),
            (true, false) => Some(false),
            (false, false) => {
                Some(head_sojourn(&self.l, env) + self.tshift > head_sojourn(&self.c, env))
            }
        }
    }

    /// The L queue's verdict on a departing packet; false if it was dropped.
    fn l_departure(&mut self, pkt: PacketId, signalled: bool, env: &mut QueueEnv) -> bool {
        let overload = self.p_c() >= self.p_cmax;
        if signalled && overload && self.classic_selected(env) {
            env.drop(pkt, DropReason::Early);
            return false;
        }
        if self.step.waited_over(pkt, env) || (signalled && env.uniform() < self.p_cl()) {
            env.mark_if_capable(pkt);
        }
        true
    }

    /// The C queue's verdict on a departing packet; false if it was dropped.
    fn c_departure(&mut self, pkt: PacketId, signalled: bool, env: &mut QueueEnv) -> bool {
        if !(signalled && self.classic_selected(env)) {
            return true;
        }
        // Under overload ECN-capable packets are dropped too ("Early"); otherwise a non-ECT one is.
        env.mark_or_drop(pkt, self.p_c() < self.p_cmax)
    }
}

impl QueueDisc for DualPi2 {
    fn enqueue(&mut self, pkt: PacketId, env: &mut QueueEnv) {
        if self.l.len() + self.c.len() >= self.limit {
            env.drop(pkt, DropReason::Overflow);
            return;
        }
        let q = if self.step.holds_l4s(pkt, env) { &mut self.l } else { &mut self.c };
        q.push(pkt, env.packets, env.now);
    }

    fn dequeue(&mut self, env: &mut QueueEnv) -> Option<PacketId> {
        loop {
            let from_l = self.serve_l(env)?;
            let q = if from_l { &mut self.l } else { &mut self.c };
            let pkt = q.pop(env.packets).expect("the scheduler picked a queue that holds a packet");
            let signalled = self.l.bytes() + self.c.bytes() >= self.min_backlog;
            let kept = if from_l {
                self.l_departure(pkt, signalled, env)
            } else {
                self.c_departure(pkt, signalled, env)
            };
            if kept {
                return Some(pkt);
            }
        }
    }

    fn len_packets(&self) -> usize {
        self.l.len() + self.c.len()
    }

    fn len_bytes(&self) -> u64 {
        self.l.bytes() + self.c.bytes()
    }

    fn first_timer(&self) -> Option<Time> {
        Some(self.t_update)
    }

    fn on_timer(&mut self, env: &mut QueueEnv) -> Option<Time> {
        let qdelay = to_secs(head_sojourn(&self.c, env));
        let delta = self.alpha * (qdelay - self.target) + self.beta * (qdelay - self.qdelay_old);
        self.p = (self.p + delta).clamp(0.0, 1.0);
        self.qdelay_old = qdelay;
        Some(env.now + self.t_update)
    }

    fn state(&self, out: &mut Vec<(&'static str, f64)>) {
        out.extend([
            ("p", self.p),
            ("p_c", self.p_c()),
            ("p_cl", self.p_cl()),
            ("l_len", self.l.len() as f64),
            ("c_len", self.c.len() as f64),
        ]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::aqm::testutil::{assert_rejected, one_bad_field, near_binomial, on_10_mbps, Harness, MS};
    use crate::aqm::{state_of, DisciplineConfig, QueueAction};
    use crate::net::Ecn;


    fn dualpi2(cfg: Config) -> (Harness, DualPi2) {
        on_10_mbps(cfg)
    }

    fn state(q: &DualPi2, key: &str) -> f64 {
        state_of(q).into_iter().find(|(k, _)| *k == key).unwrap().1
    }

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() <= 1e-12 * b.abs().max(1.0)
    }

    fn update(h: &mut Harness, q: &mut DualPi2) {
        assert_eq!(q.on_timer(&mut h.env()), Some(h.now + 16 * MS));
    }

    /// Departs `n` packets and counts what happened to them: (marked, dropped early, dropped not-ECT).
    fn depart_counting(h: &mut Harness, q: &mut DualPi2, n: usize) -> (usize, usize, usize) {
        let (mut marks, mut early, mut not_ect) = (0, 0, 0);
        let mut sent = 0;
        while sent < n {
            let pkt = h.depart(q);
            for a in &h.actions {
                match a {
                    QueueAction::Marked(_) => marks += 1,
                    QueueAction::Dropped(_, DropReason::Early) => early += 1,
                    QueueAction::Dropped(_, DropReason::NotEct) => not_ect += 1,
                    QueueAction::Dropped(_, DropReason::Overflow) => panic!("no overflow at departure"),
                }
            }
            sent += h.actions.iter().filter(|a| matches!(a, QueueAction::Dropped(..))).count();
            sent += usize::from(pkt.is_some());
        }
        (marks, early, not_ect)
    }

    #[test]
    fn ect1_and_ce_join_the_l_queue_and_the_rest_the_c_queue() {
        let (mut h, mut q) = dualpi2(Config::default());
        for ecn in [Ecn::NotEct, Ecn::Ect0, Ecn::Ect1, Ecn::Ce, Ecn::Ect0] {
            assert!(h.arrive(&mut q, 1000, ecn).is_none());
        }
        assert_eq!((state(&q, "l_len"), state(&q, "c_len")), (2.0, 3.0));
        assert_eq!((q.len_packets(), q.len_bytes()), (5, 5000));
        // All arrived at once: the L queue goes first, in order, then the C queue.
        let order: Vec<_> = (0..5).map(|_| h.depart(&mut q).unwrap()).collect();
        assert_eq!(order, vec![2, 3, 0, 1, 4]);
        assert!(h.depart(&mut q).is_none());
    }

    #[test]
    fn pi2_update_follows_a_hand_computed_trace_of_the_c_queue_delay() {
        let (mut h, mut q) = dualpi2(Config::default());
        assert_eq!(q.first_timer(), Some(16 * MS));
        // A C packet waits from t = 0: the C head's sojourn is 16 ms, then 32 ms.
        h.arrive(&mut q, 1000, Ecn::NotEct);
        // p' = 0.16 (0.016 - 0.015) + 3.2 (0.016 - 0)     = 0.00016 + 0.0512 = 0.05136
        // p' += 0.16 (0.032 - 0.015) + 3.2 (0.032 - 0.016) = 0.00272 + 0.0512 -> 0.10528
        // (sent at 40 ms; queue empty, qdelay 0)
        // p' += 0.16 (0 - 0.015) + 3.2 (0 - 0.032)         = -0.0024 - 0.1024 -> 0.00048
        // p' += 0.16 (0 - 0.015) + 0                       = -0.0024 -> clipped to 0
        let expected = [0.05136, 0.10528, 0.00048, 0.0];
        for (i, want) in expected.into_iter().enumerate() {
            h.now = 16 * MS * (i as u64 + 1);
            if i == 2 {
                assert!(h.depart(&mut q).is_some());
            }
            update(&mut h, &mut q);
            assert!(close(q.p, want), "update {i}: p' = {} != {want}", q.p);
        }
        // The L queue's delay is not the controller's input (RFC 9332 reads the C queue).
        h.arrive(&mut q, 1000, Ecn::Ect1);
        h.now += 500 * MS;
        update(&mut h, &mut q);
        update(&mut h, &mut q);
        assert_eq!(q.p, 0.0);
    }

    #[test]
    fn p_c_is_the_square_and_p_cl_is_k_times_the_base_probability() {
        let (_, mut q) = dualpi2(Config::default());
        for (p, p_c, p_cl) in [(0.1, 0.01, 0.2), (0.3, 0.09, 0.6), (0.5, 0.25, 1.0), (0.8, 0.64, 1.0)] {
            q.p = p;
            assert!(close(state(&q, "p_c"), p_c) && close(state(&q, "p_cl"), p_cl), "p' = {p}");
        }
        let (_, mut q) = dualpi2(Config { coupling: 1.5, ..Default::default() });
        q.p = 0.4;
        assert!(close(state(&q, "p_cl"), 0.6));
    }

    /// Departures of `N` packets of codepoint `ecn` at base probability `p` from a fresh queue (with 10
    /// more behind them, so the 2-mtu rule never applies; no sojourn, so no step marks), counted as
    /// [`depart_counting`] does.
    fn departures_at(cfg: Config, p: f64, ecn: Ecn) -> (usize, usize, usize) {
        let (mut h, mut q) = dualpi2(cfg);
        q.p = p;
        for _ in 0..N + 10 {
            h.arrive(&mut q, 1000, ecn);
        }
        depart_counting(&mut h, &mut q, N)
    }

    const N: usize = 2000;

    #[test]
    fn departures_are_marked_at_p_c_in_the_c_queue_and_p_cl_in_the_l_queue() {
        // p' = 0.3: p_C = 0.09 (below p_Cmax = 0.25), p_CL = 0.6.
        let (marks, early, not_ect) = departures_at(Config::default(), 0.3, Ecn::Ect0);
        assert!(near_binomial(marks, N, 0.09) && early + not_ect == 0, "{marks} of {N} ECT(0) at 0.09");
        // Non-ECT packets selected at the same rate are dropped.
        let (marks, early, not_ect) = departures_at(Config::default(), 0.3, Ecn::NotEct);
        assert!(near_binomial(not_ect, N, 0.09) && marks + early == 0, "{not_ect} of {N} not-ECT dropped");
        let (marks, early, not_ect) = departures_at(Config::default(), 0.3, Ecn::Ect1);
        assert!(near_binomial(marks, N, 0.6) && early + not_ect == 0, "{marks} of {N} ECT(1) at 0.6");
    }

    #[test]
    fn no_probabilistic_signal_below_two_mtu_of_backlog() {
        let (mut h, mut q) = dualpi2(Config::default());
        q.p = 1.0;
        // 1500 + 1499 bytes: after the first departure 1499 < 3000 bytes wait.
        h.arrive(&mut q, 1500, Ecn::NotEct);
        h.arrive(&mut q, 1499, Ecn::Ect1);
        assert_eq!(h.depart(&mut q), Some(1));
        assert!(h.actions.is_empty());
        assert_eq!(h.depart(&mut q), Some(0));
        assert!(h.actions.is_empty());
        // 3000 bytes behind it: selected (p' = 1, overload): dropped.
        h.arrive_n(&mut q, 3, 1500, Ecn::NotEct);
        h.depart(&mut q);
        assert_eq!(h.actions, vec![QueueAction::Dropped(2, DropReason::Early)]);
    }

    #[test]
    fn l_packets_are_marked_above_the_1_ms_step_whatever_the_probability() {
        let (mut h, mut q) = dualpi2(Config::default());
        h.arrive_n(&mut q, 3, 1000, Ecn::Ect1);
        h.now = MS;
        assert_eq!(h.depart(&mut q), Some(0));
        assert!(h.actions.is_empty(), "1 ms is not above the threshold");
        h.now = MS + 1;
        assert_eq!(h.depart(&mut q), Some(1));
        assert_eq!(h.actions, vec![QueueAction::Marked(1)]);
        assert_eq!(h.packets.get(1).ecn, Ecn::Ce);
        // Also a lone packet (the 2-mtu rule is for the probabilistic signal only), and CE again.
        h.arrive(&mut q, 1000, Ecn::Ce);
        h.now += 2 * MS;
        h.depart(&mut q);
        assert_eq!(h.actions, vec![QueueAction::Marked(2)]);
        h.depart(&mut q);
        assert_eq!(h.actions, vec![QueueAction::Marked(3)]);
        // A C packet that waited as long is not step-marked.
        h.arrive(&mut q, 1000, Ecn::Ect0);
        h.now += 10 * MS;
        assert_eq!(h.depart(&mut q), Some(4));
        assert!(h.actions.is_empty());
    }

    #[test]
    fn time_shifted_fifo_serves_l_unless_c_waited_tshift_longer() {
        // (C arrival, L arrival, departure) in ms, and whether L is served first (tshift 50 ms).
        // Sojourns C 60, L 15: 15 + 50 > 60 -> L.  C 65, L 5: 5 + 50 < 65 -> C.
        // C 60, L 10: 10 + 50 = 60, not above -> C (ties go to C, as in ns-3's port).
        for (c_at, l_at, at, l_first) in [(0, 45, 60, true), (0, 60, 65, false), (0, 50, 60, false)] {
            let (mut h, mut q) = dualpi2(Config::default());
            h.now = c_at * MS;
            h.arrive(&mut q, 1000, Ecn::NotEct);
            h.now = l_at * MS;
            h.arrive(&mut q, 1000, Ecn::Ect1);
            h.now = at * MS;
            let first = h.depart(&mut q).unwrap();
            assert_eq!(first == 1, l_first, "C at {c_at}, L at {l_at}, sent at {at}");
            assert_eq!(h.depart(&mut q), Some(1 - first));
        }
        // tshift = 0 is a plain FIFO over both queues.
        let (mut h, mut q) = dualpi2(Config { tshift: Seconds(0.0), ..Default::default() });
        h.arrive(&mut q, 1000, Ecn::NotEct);
        h.now = MS;
        h.arrive(&mut q, 1000, Ecn::Ect1);
        h.now = 2 * MS;
        assert_eq!(h.depart(&mut q), Some(0));
    }

    #[test]
    fn the_shared_buffer_drops_the_arrival_when_full() {
        let (mut h, mut q) = dualpi2(Config { limit: 3, ..Default::default() });
        for ecn in [Ecn::NotEct, Ecn::Ect1, Ecn::Ect0] {
            assert!(h.arrive(&mut q, 1000, ecn).is_none());
        }
        assert_eq!(h.arrival_dropped(&mut q, 1000, Ecn::Ect1), Some(DropReason::Overflow));
        assert_eq!(h.arrival_dropped(&mut q, 1000, Ecn::NotEct), Some(DropReason::Overflow));
        assert_eq!(q.len_packets(), 3);
        h.depart(&mut q);
        assert!(h.arrive(&mut q, 1000, Ecn::Ect1).is_none());
    }

    #[test]
    fn overload_drops_ecn_capable_packets_at_p_c() {
        // p' = 0.6: p_C = 0.36 >= p_Cmax = 0.25. C: ECT(0) packets selected are dropped, not marked.
        let (marks, early, not_ect) = departures_at(Config::default(), 0.6, Ecn::Ect0);
        assert!(near_binomial(early, N, 0.36) && marks + not_ect == 0, "{early} of {N} dropped at 0.36");
        // L: dropped at p_C as well, and every survivor marked (p_CL = 1).
        let (marks, early, not_ect) = departures_at(Config::default(), 0.6, Ecn::Ect1);
        assert!(near_binomial(early, N, 0.36) && not_ect == 0, "{early} of {N} L packets dropped");
        assert_eq!(marks + early, N, "every L packet kept is marked");
        // Just below overload (p' = 0.49, p_C = 0.2401 < 0.25) ECT(0) is marked again.
        let (marks, early, not_ect) = departures_at(Config::default(), 0.49, Ecn::Ect0);
        assert!(near_binomial(marks, N, 0.2401) && early + not_ect == 0, "{marks} of {N} marked");
        // p_Cmax = min(1/k^2, 1): with k = 4 it is 1/16, so p' = 0.3 (p_C = 0.09) is overload.
        let (marks, early, _) = departures_at(Config { coupling: 4.0, ..Default::default() }, 0.3, Ecn::Ect0);
        assert!(near_binomial(early, N, 0.09) && marks == 0, "{early} of {N} dropped with k = 4");
    }

    #[test]
    fn validate_rejects_nonsense() {
        assert_rejected(one_bad_field![
            limit: 0, target: Seconds(0.0), t_update: Seconds(f64::NAN), alpha: -0.1, beta: f64::INFINITY,
            coupling: 0.0, step_thresh: Seconds(-0.001), tshift: Seconds(-1.0), mtu: Bytes(0),
        ]);
        assert_eq!(Config::default().buffer(), Buffer::Packets(10_000));
    }
}
