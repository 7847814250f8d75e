//! PIE — Proportional Integral controller Enhanced (Pan, Natarajan, Baker, White; RFC 8033), with ns-3's
//! `PieQueueDisc` choices where the RFC leaves them open (docs/aqm.md#pie).
//!
//! **Every `t_update`** (a timer) the drop probability follows the queueing delay:
//!
//! ```text
//! p = alpha (qdelay - qdelay_ref) + beta (qdelay - qdelay_old)            (alpha, beta in 1/s)
//! p /= 2048, 512, 128, 32, 8, 2 or 1 as drop_prob < 1e-6, 1e-5, 1e-4, 1e-3, 1e-2, 0.1 or above (auto-tuning)
//! if cap_drop_adjustment and drop_prob >= 0.1 and p > 0.02: p = 0.02      (RFC §5.5)
//! drop_prob += p;  if qdelay == 0 and qdelay_old == 0: drop_prob *= 0.98  (decay);  clip to [0, 1]
//! if drop_prob == 0 and qdelay < ref/2 and qdelay_old < ref/2: burst_allowance = max_burst
//! burst_allowance = max(0, burst_allowance - t_update);  qdelay_old = qdelay
//! ```
//! The burst re-arm comes before the decrement, in the order of RFC 8033 §4.4 (so the allowance reads
//! `max_burst - t_update` after a calm update); it starts at `max_burst`.
//!
//! **Queueing delay**: by default the sojourn time of the last dequeued packet, and 0 once a departure
//! leaves the queue empty (ns-3 `UseDequeueRateEstimator false`; the RFC's recommended timestamps). With
//! `dq_rate_estimator`, `qdelay = queue_bytes / avg_dq_rate`, measured over cycles of `dq_threshold`
//! bytes dequeued, a cycle opening at a departure that leaves at least `dq_threshold` bytes queued (that
//! departure is not counted; RFC 8033 Appendix B) and successive cycle rates averaged 50/50 (ns-3);
//! qdelay is 0 until the first cycle completes.
//!
//! **Arrival**: dropped (`Overflow`) if the buffer is full (`len + 1 > limit`; bytes mode
//! `bytes + size > limit * mean_pktsize`). Otherwise no random drop while `burst_allowance > 0`, nor if
//! `qdelay_old < ref/2 and drop_prob < 0.2`, nor with fewer than 2 packets queued (bytes mode: fewer
//! than `2 * mean_pktsize` bytes). Else the packet is selected if `u <= drop_prob` (bytes mode:
//! `drop_prob * size / mean_pktsize`). A selected packet is marked when `ecn` is on and
//! `drop_prob <= mark_ecnth` (RFC 8033 §5.1; ns-3 tests `<`), dropped `NotEct` if it cannot be marked,
//! and dropped `Early` above the threshold. With `derandomize` (RFC §5.4): `accu_prob += drop_prob`
//! (reset when `drop_prob` is 0 and after every drop), never drop while `accu_prob < 0.85`, always drop
//! when it reaches 8.5, otherwise the random test.
//!
//! **L4S mode** (`l4s` with `ce_threshold`, ns-3 `UseL4s` and `CeThreshold`; [`super::l4s`]): an ECT(1)
//! or CE arrival skips the random test (not the buffer limit); at departure such a packet is marked
//! if its sojourn exceeds the threshold and skips the delay and rate measurement.
//!
//! Not reproduced: ns-3's inherited ns-2 burst state machine (which zeroes drop_prob while the allowance
//! lasts — the RFC does not), the RFC's optional `active_` switch, and ns-3's reset of the rate estimate
//! when uncongested.
//!
//! Defaults: qdelay_ref 15 ms, t_update 15 ms, alpha 0.125, beta 1.25, max_burst 150 ms (RFC 8033; ns-3
//! uses 15 ms), dq_threshold 16384 B, mark_ecnth 0.1, ECN off, cap on, derandomisation off, timestamps,
//! packet mode with mean_pktsize 1000 B (ns-3). **limit 1000 packets**: the RFC leaves the buffer to the
//! implementation; 1000 is the Linux `sch_pie` default, large enough that PIE's delay control and not
//! tail drop governs the queue (ns-3's 25 packets would make PIE a drop-tail queue at study link speeds).

use super::fifo::{Fifo, FifoAqm, FifoQueue};
use super::l4s::{self, CeThreshold};
use super::{Buffer, DropReason, LinkInfo, QueueEnv};
use crate::net::PacketId;
use crate::scenario::units::{Bytes, Seconds};
use crate::sim::time::{secs, to_secs};
use crate::sim::Time;
use std::sync::Arc;

aqm_config! {
    #[discipline(FifoQueue<Pie>)]
    #[buffer(|c| Buffer::ns2(c.limit, c.bytes, c.mean_pktsize.0))]
    pub struct Config {
        /// Buffer size in packets (1000); in bytes mode `limit * mean_pktsize` bytes.
        #[default(1000)]
        #[check(at_least_one)]
        pub limit: u32,
        /// Target queueing delay, seconds (QDELAY_REF, 0.015).
        #[default(Seconds(0.015))]
        #[check(positive_secs)]
        pub qdelay_ref: Seconds,
        /// Period of the drop-probability update, seconds (T_UPDATE, 0.015).
        #[default(Seconds(0.015))]
        #[check(positive_secs)]
        pub t_update: Seconds,
        /// Integral gain, 1/s (0.125).
        #[default(0.125)]
        #[check(nonnegative)]
        pub alpha: f64,
        /// Proportional gain, 1/s (1.25).
        #[default(1.25)]
        #[check(nonnegative)]
        pub beta: f64,
        /// Burst allowance, seconds (MAX_BURST, 0.15).
        #[default(Seconds(0.15))]
        #[check(nonnegative_secs)]
        pub max_burst: Seconds,
        /// Estimate the delay from the departure rate instead of timestamps.
        pub dq_rate_estimator: bool,
        /// Bytes per departure-rate measurement cycle (DQ_THRESHOLD, 16384).
        #[default(Bytes(16384))]
        #[check(size)]
        pub dq_threshold: Bytes,
        /// Mark ECN-capable packets instead of dropping them while `drop_prob <= mark_ecnth`.
        pub ecn: bool,
        /// Drop probability above which ECN-capable packets are dropped, not marked (0.1).
        #[default(0.1)]
        #[check(probability)]
        pub mark_ecnth: f64,
        /// Limit the per-update increase to 0.02 once drop_prob >= 0.1 (RFC 8033 §5.5; on).
        #[default(true)]
        pub cap_drop_adjustment: bool,
        /// De-randomise drops with the accumulated probability (RFC 8033 §5.4; off).
        pub derandomize: bool,
        /// Bytes mode: limit in bytes and per-packet probability scaled by size / mean_pktsize.
        pub bytes: bool,
        /// Mean packet size for bytes mode (MEAN_PKTSIZE, 1000).
        #[default(Bytes(1000))]
        #[check(size)]
        pub mean_pktsize: Bytes,
        /// With `l4s`: sojourn above which an L4S packet is CE-marked at dequeue (ns-3 `CeThreshold`).
        #[check(|c| l4s::validate(c.ce_threshold, c.l4s))]
        // ns-3's PIE reads CeThreshold only in L4S mode: refuse a threshold that would do nothing.
        #[check(
            |c| c.l4s || c.ce_threshold.is_none(),
            "no threshold without l4s = true (PIE marks only L4S packets at it)"
        )]
        pub ce_threshold: Option<Seconds>,
        /// L4S mode (ns-3 `UseL4s`): ECT(1) and CE packets skip the random test at arrival and the delay
        /// measurement at departure, and are marked above `ce_threshold`.
        pub l4s: bool,
    }
}

/// The RFC's auto-tuning: the divisor of the controller output at the current drop probability.
fn autotune_divisor(drop_prob: f64) -> f64 {
    [(1e-6, 2048.0), (1e-5, 512.0), (1e-4, 128.0), (1e-3, 32.0), (1e-2, 8.0), (0.1, 2.0)]
        .into_iter()
        .find(|(below, _)| drop_prob < *below)
        .map_or(1.0, |(_, d)| d)
}

/// The departure-rate estimator's measurement cycle.
#[derive(Clone, Default)]
struct RateEstimator {
    measuring: bool,
    start: Time,
    count: u64,
    /// Bytes per second, 0 until the first cycle completes.
    avg_rate: f64,
}

impl RateEstimator {
    fn on_departure(&mut self, now: Time, size: u32, queued_bytes: u64, threshold: u64) {
        if self.measuring {
            self.count += size as u64;
            if self.count >= threshold {
                if now > self.start {
                    let rate = self.count as f64 / to_secs(now - self.start);
                    self.avg_rate =
                        if self.avg_rate == 0.0 { rate } else { 0.5 * self.avg_rate + 0.5 * rate };
                }
                self.measuring = false;
            }
        }
        if !self.measuring && queued_bytes >= threshold {
            *self = RateEstimator { measuring: true, start: now, count: 0, avg_rate: self.avg_rate };
        }
    }
}

/// Cloning shares the configuration: FQ-PIE's buckets (one clone each) then hold only their own state,
/// 128 bytes instead of 216, so that the buckets the scheduler and the timer visit take fewer cache lines.
#[derive(Clone)]
pub struct Pie {
    cfg: Arc<Config>,
    ce: CeThreshold,
    qdelay_ref: Time,
    t_update: Time,
    max_burst: Time,
    drop_prob: f64,
    /// Latest delay estimate (timestamps: last departure's sojourn).
    qdelay: Time,
    qdelay_old: Time,
    burst_allowance: Time,
    accu_prob: f64,
    rate: RateEstimator,
}

impl Pie {
    fn full(&self, fifo: &Fifo, size: u32) -> bool {
        if self.cfg.bytes {
            fifo.bytes() + size as u64 > self.cfg.limit as u64 * self.cfg.mean_pktsize.0
        } else {
            fifo.len() + 1 > self.cfg.limit as usize
        }
    }

    /// RFC 8033 `drop_early`: whether the random test selects this arrival.
    fn drop_early(&mut self, fifo: &Fifo, size: u32, env: &mut QueueEnv) -> bool {
        if 2 * self.qdelay_old < self.qdelay_ref && self.drop_prob < 0.2 {
            return false;
        }
        let few = if self.cfg.bytes {
            fifo.bytes() < 2 * self.cfg.mean_pktsize.0
        } else {
            fifo.len() < 2
        };
        if few {
            return false;
        }
        if self.cfg.derandomize {
            if self.drop_prob == 0.0 {
                self.accu_prob = 0.0;
            }
            self.accu_prob += self.drop_prob;
            if self.accu_prob < 0.85 {
                return false;
            }
            if self.accu_prob >= 8.5 {
                return true;
            }
        }
        env.selects(self.drop_prob, self.cfg.bytes, size, self.cfg.mean_pktsize.0)
    }
}

impl FifoAqm for Pie {
    type Config = Config;

    fn new(cfg: Config, _link: LinkInfo) -> Self {
        Pie {
            qdelay_ref: secs(cfg.qdelay_ref.0),
            t_update: secs(cfg.t_update.0),
            max_burst: secs(cfg.max_burst.0),
            burst_allowance: secs(cfg.max_burst.0),
            ce: CeThreshold::new(cfg.ce_threshold, cfg.l4s),
            cfg: Arc::new(cfg),
            drop_prob: 0.0,
            qdelay: 0,
            qdelay_old: 0,
            accu_prob: 0.0,
            rate: RateEstimator::default(),
        }
    }

    fn enqueue(&mut self, pkt: PacketId, fifo: &mut Fifo, env: &mut QueueEnv) {
        let size = env.size(pkt);
        if self.full(fifo, size) {
            env.drop(pkt, DropReason::Overflow);
            self.accu_prob = 0.0;
            return;
        }
        // ns-3 `PieQueueDisc::DoEnqueue`: an L4S arrival is not offered to the random test.
        let l4s = self.ce.holds_l4s(pkt, env);
        if self.burst_allowance == 0 && !l4s && self.drop_early(fifo, size, env) {
            let kept = if self.cfg.ecn && self.drop_prob <= self.cfg.mark_ecnth {
                env.mark_or_drop(pkt, true)
            } else {
                env.drop(pkt, DropReason::Early);
                false
            };
            if !kept {
                self.accu_prob = 0.0;
                return;
            }
        }
        fifo.push(pkt, env.packets, env.now);
    }

    fn dequeue(&mut self, fifo: &mut Fifo, env: &mut QueueEnv) -> Option<PacketId> {
        let pkt = fifo.pop(env.packets)?;
        if self.ce.holds_l4s(pkt, env) {
            // ns-3 `PieQueueDisc::DoDequeue`: marked above the threshold, and not measured, so that
            // the drop probability follows the classic traffic's delay.
            self.ce.mark_above(pkt, env);
            return Some(pkt);
        }
        if self.cfg.dq_rate_estimator {
            let threshold = self.cfg.dq_threshold.0;
            self.rate.on_departure(env.now, env.size(pkt), fifo.bytes(), threshold);
        } else if fifo.is_empty() {
            self.qdelay = 0;
        } else {
            self.qdelay = env.now - env.packets.get(pkt).enqueued_at;
        }
        Some(pkt)
    }

    fn update_period(&self) -> Option<Time> {
        Some(self.t_update)
    }

    /// RFC 8033 `calculate_drop_prob`.
    fn update(&mut self, fifo: &Fifo) {
        if self.cfg.dq_rate_estimator {
            self.qdelay = if self.rate.avg_rate > 0.0 {
                secs(fifo.bytes() as f64 / self.rate.avg_rate)
            } else {
                0
            };
        }
        let (qdelay, old, target) =
            (to_secs(self.qdelay), to_secs(self.qdelay_old), to_secs(self.qdelay_ref));
        let mut p = self.cfg.alpha * (qdelay - target) + self.cfg.beta * (qdelay - old);
        p /= autotune_divisor(self.drop_prob);
        if self.cfg.cap_drop_adjustment && self.drop_prob >= 0.1 && p > 0.02 {
            p = 0.02;
        }
        let mut prob = self.drop_prob + p;
        if self.qdelay == 0 && self.qdelay_old == 0 {
            prob *= 0.98;
        }
        self.drop_prob = prob.clamp(0.0, 1.0);

        let calm = 2 * self.qdelay < self.qdelay_ref && 2 * self.qdelay_old < self.qdelay_ref;
        if self.drop_prob == 0.0 && calm {
            self.burst_allowance = self.max_burst;
        }
        self.burst_allowance = self.burst_allowance.saturating_sub(self.t_update);
        self.qdelay_old = self.qdelay;
    }

    /// With no packet, no delay now or at the last update and no drop probability, `update` keeps
    /// `drop_prob` at 0 (its step is `-alpha · qdelay_ref` at most, then clamped), re-arms the burst
    /// allowance (calm: both delays below half the reference) and takes one period off it: a fixed point
    /// once the allowance stands at `max_burst - t_update`.
    fn at_rest(&self, fifo: &Fifo) -> bool {
        fifo.is_empty()
            && self.drop_prob == 0.0
            && self.qdelay == 0
            && self.qdelay_old == 0
            && self.qdelay_ref > 0
            && self.burst_allowance == self.max_burst.saturating_sub(self.t_update)
    }

    fn state(&self, out: &mut Vec<(&'static str, f64)>) {
        out.extend([
            ("drop_prob", self.drop_prob),
            ("qdelay", to_secs(self.qdelay)),
            ("burst_allowance", to_secs(self.burst_allowance)),
            ("avg_dq_rate", self.rate.avg_rate),
        ]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::aqm::QueueDisc;
    use crate::aqm::testutil::{assert_rejected, one_bad_field, on_10_mbps, Harness, MS};
    use crate::aqm::QueueAction;
    use crate::net::Ecn;


    fn pie(cfg: Config) -> (Harness, FifoQueue<Pie>) {
        on_10_mbps(cfg)
    }

    /// Puts PIE past its burst allowance with drop probability `p` and an old delay (1 s) above the
    /// low-delay safeguard: arrivals then face the random test unless the queue holds under 2 packets.
    fn drop_randomly_at(q: &mut FifoQueue<Pie>, p: f64) {
        q.aqm.burst_allowance = 0;
        q.aqm.qdelay_old = secs(1.0);
        q.aqm.drop_prob = p;
    }

    /// Makes the last departure's sojourn `d` (timestamps): empty the queue, then two arrivals and one
    /// departure `d` later (fewer than 2 packets queued, so the arrivals are never dropped early).
    fn set_qdelay(h: &mut Harness, q: &mut FifoQueue<Pie>, d: Time) {
        while h.depart(q).is_some() {}
        h.now += 10_000 * MS;
        let n = if d > 0 { 2 } else { 1 };
        for _ in 0..n {
            assert!(h.arrive(q, 1000, Ecn::NotEct).is_none());
        }
        h.now += d;
        h.depart(q);
        assert_eq!(q.aqm.qdelay, d);
    }

    fn update(h: &mut Harness, q: &mut FifoQueue<Pie>) {
        assert_eq!(q.on_timer(&mut h.env()), Some(h.now + 15 * MS));
    }

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() <= 1e-12 * b.abs().max(1e-12)
    }

    #[test]
    fn drop_prob_follows_the_delay_with_autotuning_and_cap() {
        let (mut h, mut q) = pie(Config::default());
        let (alpha, beta, target) = (0.125, 1.25, 0.015);
        // (qdelay in s, divisor the RFC's table gives at the current drop_prob, capped?)
        let steps = [(2.0, 2048.0, false), (2.0, 8.0, false), (2.0, 2.0, false), (2.0, 1.0, true)];
        let (mut expected, mut old) = (0.0, 0.0);
        for (i, (qdelay, divisor, capped)) in steps.into_iter().enumerate() {
            set_qdelay(&mut h, &mut q, secs(qdelay));
            update(&mut h, &mut q);
            let p = (alpha * (qdelay - target) + beta * (qdelay - old)) / divisor;
            expected += if capped { 0.02 } else { p };
            old = qdelay;
            assert!(close(q.aqm.drop_prob, expected), "step {i}: {} != {expected}", q.aqm.drop_prob);
        }
        // By hand: 2.748125/2048, then + 0.248125/8, + 0.248125/2, + 0.02 (cap).
        assert!(close(q.aqm.drop_prob, 2.748125 / 2048.0 + 0.248125 / 8.0 + 0.248125 / 2.0 + 0.02));
        // A large fall in delay drives the probability to 0 (clipped).
        set_qdelay(&mut h, &mut q, 40 * MS);
        update(&mut h, &mut q);
        assert_eq!(q.aqm.drop_prob, 0.0);
    }

    #[test]
    fn autotuning_divisor_at_each_level() {
        // qdelay = qdelay_old = 20 ms: p = 0.125 * (0.020 - 0.015) = 0.000625 before scaling.
        for (start, divisor) in
            [(0.0, 2048.0), (5e-6, 512.0), (5e-5, 128.0), (5e-4, 32.0), (5e-3, 8.0), (0.05, 2.0), (0.5, 1.0)]
        {
            let (mut h, mut q) = pie(Config::default());
            set_qdelay(&mut h, &mut q, 20 * MS);
            q.aqm.qdelay_old = 20 * MS;
            q.aqm.drop_prob = start;
            update(&mut h, &mut q);
            assert!(close(q.aqm.drop_prob, start + 0.000625 / divisor), "from {start}");
        }
    }

    #[test]
    fn drop_prob_decays_when_the_queue_stays_empty() {
        let (mut h, mut q) = pie(Config::default());
        q.aqm.drop_prob = 0.5;
        // qdelay = qdelay_old = 0: p = -0.125 * 0.015 = -0.001875 (divisor 1 above 0.1), then * 0.98.
        let mut expected = 0.5;
        for _ in 0..3 {
            update(&mut h, &mut q);
            expected = (expected - 0.001875) * 0.98;
            assert!(close(q.aqm.drop_prob, expected));
        }
        // Below 0.1 the small negative term is divided too: (p - 0.001875 / 2) * 0.98.
        q.aqm.drop_prob = 0.05;
        update(&mut h, &mut q);
        assert!(close(q.aqm.drop_prob, (0.05 - 0.001875 / 2.0) * 0.98));
    }

    #[test]
    fn burst_allowance_is_rearmed_when_calm_and_spent_under_congestion() {
        let (mut h, mut q) = pie(Config::default());
        assert_eq!(q.aqm.burst_allowance, 150 * MS);
        // Calm update: re-armed to 150 ms, then decremented.
        update(&mut h, &mut q);
        assert_eq!(q.aqm.burst_allowance, 135 * MS);
        // Congested: 15 ms less per update, down to 0 after 9 updates.
        set_qdelay(&mut h, &mut q, 100 * MS);
        for k in 1..=9 {
            update(&mut h, &mut q);
            assert_eq!(q.aqm.burst_allowance, (135 - 15 * k) * MS);
        }
        assert!(q.aqm.drop_prob > 0.0);
        update(&mut h, &mut q);
        assert_eq!(q.aqm.burst_allowance, 0);
    }

    #[test]
    fn no_random_drop_during_the_burst_allowance() {
        let (mut h, mut q) = pie(Config::default());
        h.arrive_n(&mut q, 3, 1000, Ecn::NotEct);
        q.aqm.drop_prob = 1.0;
        q.aqm.qdelay_old = secs(1.0);
        assert!(q.aqm.burst_allowance > 0);
        assert!(h.arrive(&mut q, 1000, Ecn::NotEct).is_none());
        q.aqm.burst_allowance = 0;
        assert_eq!(h.arrival_dropped(&mut q, 1000, Ecn::NotEct), Some(DropReason::Early));
    }

    #[test]
    fn safeguards_keep_pie_work_conserving() {
        let (mut h, mut q) = pie(Config::default());
        drop_randomly_at(&mut q, 1.0);
        // Fewer than 2 packets queued: never dropped.
        assert!(h.arrive(&mut q, 1000, Ecn::NotEct).is_none());
        assert!(h.arrive(&mut q, 1000, Ecn::NotEct).is_none());
        assert!(h.arrive(&mut q, 1000, Ecn::NotEct).is_some());
        // Low delay (qdelay_old < 7.5 ms) and drop_prob < 0.2: never dropped.
        q.aqm.qdelay_old = 7 * MS;
        q.aqm.drop_prob = 0.19;
        for _ in 0..200 {
            assert!(h.arrive(&mut q, 1000, Ecn::NotEct).is_none());
        }
        // ... but at drop_prob 0.2 the random test runs.
        q.aqm.drop_prob = 0.2;
        let drops = (0..200).filter(|_| h.arrive(&mut q, 1000, Ecn::NotEct).is_some()).count();
        assert!(drops > 10 && drops < 80, "{drops}");
    }

    #[test]
    fn full_buffer_drops_even_at_zero_probability() {
        let (mut h, mut q) = pie(Config { limit: 3, ..Default::default() });
        for _ in 0..3 {
            assert!(h.arrive(&mut q, 1000, Ecn::NotEct).is_none());
        }
        assert_eq!(h.arrive(&mut q, 1000, Ecn::NotEct), Some(QueueAction::Dropped(3, DropReason::Overflow)));
        assert_eq!(q.len_packets(), 3);
    }

    #[test]
    fn ecn_marks_up_to_mark_ecnth_and_drops_above() {
        let (mut h, mut q) = pie(Config { ecn: true, ..Default::default() });
        h.arrive_n(&mut q, 2, 1000, Ecn::Ect0);
        drop_randomly_at(&mut q, 0.1);
        let verdicts: Vec<_> = (0..300).filter_map(|_| h.arrive(&mut q, 1000, Ecn::Ect0)).collect();
        assert!(verdicts.len() > 10, "about 10 % selected");
        assert!(verdicts.iter().all(|v| matches!(v, QueueAction::Marked(_))));
        assert_eq!(q.len_packets(), 302);
        // Non-ECT packets selected at the same probability are dropped as not ECN-capable.
        let verdicts: Vec<_> = (0..300).filter_map(|_| h.arrive(&mut q, 40, Ecn::NotEct)).collect();
        assert!(!verdicts.is_empty());
        assert!(verdicts.iter().all(|v| matches!(v, QueueAction::Dropped(_, DropReason::NotEct))));
        // Above the threshold ECT packets are dropped.
        q.aqm.drop_prob = 1.0;
        assert_eq!(h.arrival_dropped(&mut q, 1000, Ecn::Ect0), Some(DropReason::Early));
    }

    #[test]
    fn timestamps_give_the_last_sojourn_and_zero_when_empty() {
        let (mut h, mut q) = pie(Config::default());
        h.arrive(&mut q, 1000, Ecn::NotEct);
        h.now = 3 * MS;
        h.arrive(&mut q, 1000, Ecn::NotEct);
        h.now = 10 * MS;
        h.depart(&mut q);
        assert_eq!(q.aqm.qdelay, 10 * MS);
        h.depart(&mut q);
        assert_eq!(q.aqm.qdelay, 0, "queue empty after the departure");
    }

    #[test]
    fn dequeue_rate_estimator_measures_cycles_of_dq_threshold_bytes() {
        let (mut h, mut q) = pie(Config { dq_rate_estimator: true, ..Default::default() });
        h.arrive_n(&mut q, 30, 1000, Ecn::NotEct);
        // One departure per ms. At 1 ms 29000 B remain (>= 16384): a cycle opens. Departures at 2..=18 ms
        // count 17 * 1000 = 17000 >= 16384 bytes over 17 ms: 1e6 B/s. 12000 B remain: no new cycle.
        for t in 1..=18 {
            h.now = t * MS;
            h.depart(&mut q);
        }
        assert!(close(q.aqm.rate.avg_rate, 17000.0 / 0.017));
        assert!(!q.aqm.rate.measuring);
        update(&mut h, &mut q);
        assert_eq!(q.aqm.qdelay, 12 * MS, "12000 B at 1e6 B/s");
        assert!(close(q.aqm.drop_prob, (0.125 * (0.012 - 0.015) + 1.25 * 0.012) / 2048.0));
        // Second cycle at half the speed: 500000 B/s, averaged 50/50 with the first.
        h.arrive_n(&mut q, 20, 1000, Ecn::NotEct);
        for k in 0..=17 {
            h.now = (19 + 2 * k) * MS;
            h.depart(&mut q);
        }
        assert!(close(q.aqm.rate.avg_rate, 0.5 * 1e6 + 0.5 * (17000.0 / 0.034)));
    }

    #[test]
    fn derandomisation_spaces_drops_by_accumulated_probability() {
        let (mut h, mut q) = pie(Config { derandomize: true, ..Default::default() });
        h.arrive_n(&mut q, 2, 1000, Ecn::NotEct);
        drop_randomly_at(&mut q, 0.1);
        // accu_prob = 0.1 .. 0.8 < 0.85: the first 8 arrivals are never dropped.
        for _ in 0..8 {
            assert!(h.arrive(&mut q, 1000, Ecn::NotEct).is_none());
        }
        assert!(close(q.aqm.accu_prob, 0.8));
        // Reaching 8.5 always drops, and the drop resets the sum.
        q.aqm.accu_prob = 8.45;
        assert!(h.arrive(&mut q, 1000, Ecn::NotEct).is_some());
        assert_eq!(q.aqm.accu_prob, 0.0);
        assert!(h.arrive(&mut q, 1000, Ecn::NotEct).is_none());
    }

    #[test]
    fn bytes_mode_limits_bytes_and_scales_the_probability() {
        let cfg = Config { bytes: true, limit: 4, mean_pktsize: Bytes(1000), ..Default::default() };
        let (mut h, mut q) = pie(cfg);
        // 4000-byte buffer: 1000 + 1500 + 1000 = 3500; 600 more would exceed, 500 fits exactly.
        for size in [1000, 1500, 1000] {
            assert!(h.arrive(&mut q, size, Ecn::NotEct).is_none());
        }
        assert_eq!(h.arrival_dropped(&mut q, 600, Ecn::NotEct), Some(DropReason::Overflow));
        assert!(h.arrive(&mut q, 500, Ecn::NotEct).is_none());
        assert_eq!(q.len_bytes(), 4000);
        // drop_prob 0.5 scaled by 40/1000 for small packets: rarely selected; by 2000/1000 = 1: always.
        let (mut h, mut q) = pie(Config { bytes: true, ..Default::default() });
        h.arrive(&mut q, 1500, Ecn::NotEct);
        drop_randomly_at(&mut q, 0.5);
        assert!(h.arrive(&mut q, 2000, Ecn::NotEct).is_none(), "1500 B < 2 * mean_pktsize queued");
        assert!(h.arrive(&mut q, 2000, Ecn::NotEct).is_some());
        let small = (0..500).filter(|_| h.arrive(&mut q, 40, Ecn::NotEct).is_some()).count();
        assert!(small > 0 && small < 30, "{small} of 500 at p = 0.02");
    }

    #[test]
    fn validate_rejects_nonsense() {
        assert_rejected(one_bad_field![
            limit: 0, qdelay_ref: Seconds(0.0), t_update: Seconds(-0.015), alpha: -1.0,
            max_burst: Seconds(f64::NAN), dq_threshold: Bytes(0), mark_ecnth: 1.5, mean_pktsize: Bytes(0),
            ce_threshold: Some(Seconds(0.001)),
        ]);
        assert_rejected([
            ("ce_threshold", Config { l4s: true, ..Default::default() }),
            ("ce_threshold", Config { ce_threshold: Some(Seconds(-0.001)), ..l4s() }),
        ]);
    }

    fn l4s() -> Config {
        Config { ce_threshold: Some(Seconds(0.001)), l4s: true, ..Default::default() }
    }

    #[test]
    fn l4s_arrivals_skip_the_random_test_and_others_face_it_unchanged() {
        let (mut h, mut q) = pie(l4s());
        h.arrive_n(&mut q, 2, 1000, Ecn::NotEct);
        drop_randomly_at(&mut q, 1.0);
        for _ in 0..100 {
            assert!(h.arrive(&mut q, 1000, Ecn::Ect1).is_none());
            assert!(h.arrive(&mut q, 1000, Ecn::Ce).is_none());
        }
        assert_eq!(h.arrival_dropped(&mut q, 1000, Ecn::Ect0), Some(DropReason::Early));
        assert_eq!(h.arrival_dropped(&mut q, 1000, Ecn::NotEct), Some(DropReason::Early));
        // The buffer still holds: a full queue drops L4S arrivals too.
        let (mut h, mut q) = pie(Config { limit: 1, ..l4s() });
        h.arrive(&mut q, 1000, Ecn::Ect1);
        assert_eq!(h.arrival_dropped(&mut q, 1000, Ecn::Ect1), Some(DropReason::Overflow));
    }

    #[test]
    fn l4s_departures_are_marked_above_ce_threshold_and_not_measured() {
        let (mut h, mut q) = pie(l4s());
        for ecn in [Ecn::NotEct, Ecn::Ect1, Ecn::Ect1, Ecn::NotEct] {
            h.arrive(&mut q, 1000, ecn);
        }
        h.now = 3 * MS;
        h.depart(&mut q);
        assert_eq!(q.aqm.qdelay, 3 * MS);
        h.now = 4 * MS;
        assert_eq!(h.depart(&mut q), Some(1));
        assert_eq!(h.actions, vec![QueueAction::Marked(1)], "4 ms > 1 ms: marked and sent");
        assert_eq!(q.aqm.qdelay, 3 * MS, "not a delay sample");
        // Below the threshold: sent unmarked.
        h.depart(&mut q);
        h.depart(&mut q);
        h.arrive(&mut q, 1000, Ecn::Ect1);
        h.now += MS / 2;
        assert_eq!(h.depart(&mut q), Some(4));
        assert!(h.actions.is_empty());
        assert_eq!(h.packets.get(4).ecn, Ecn::Ect1);
    }
}
