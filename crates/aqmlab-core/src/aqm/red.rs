//! RED (Floyd & Jacobson, "Random Early Detection Gateways for Congestion Avoidance", IEEE/ACM ToN 1993)
//! with gentle mode (Floyd 2000) and Adaptive RED (Floyd, Gummadi & Shenker, ICSI 2001), as ns-2.35's
//! `Queue/RED` implements them (docs/aqm.md#red, docs/aqm.md#adaptive-red).
//!
//! ns-2 behaviours reproduced:
//! - EWMA of the queue on **every arrival**, before the decision, with the idle-time correction
//!   `avg ← avg·(1−w_q)^(m+1) + w_q·q`, `m = floor(ptc·(now − idle_since))` for the first arrival after
//!   `dequeue` found the queue empty (`estimator`, `enque`). The queue starts idle at t = 0.
//! - Drop probability `p_b` from the linear region and the gentle line `v_c·avg + v_d`, whose
//!   coefficients are fixed at start from the *initial* max_p (the Adaptive RED quirk of
//!   docs/aqm.md#adaptive-red: `calculate_p_new`, `reset`).
//! - Count correction with and without `wait`, count in mean-size packets of bytes under `bytes`, and the
//!   per-packet scaling `p_a·size/mean_pktsize` applied only while `p_a < 1` (`modify_p`).
//! - Counting rules: `count`/`count_bytes` grow on every arrival; the early branch needs `avg ≥ min_th`
//!   and more than one packet (one byte with `queue_in_bytes`) waiting; the first arrival above
//!   `min_th` (flag `old`) restarts the count and is never dropped; early drops, marks and forced drops
//!   reset the count (`enque`, `drop_early`).
//! - ECN: a selected packet is marked iff `ecn` (ns-2 `setbit_`), it is ECT, and `p_b < mark_p` or
//!   `!use_mark_p`; otherwise it is dropped (`NotEct` when only the ECT test failed).
//! - Forced drop of the arrival when `q ≥ limit` before enqueueing (bytes: `qbytes ≥ limit·mean_pktsize`),
//!   and, only with `use_mark_p = false`, when `avg ≥ max_th` (gentle: `2·max_th`).
//! - Automatic parameters from the link (`initialize_params`): `thresh = 0`, `maxthresh = 0`,
//!   `q_weight ∈ {0, −1, −2}`, `bottom = 0`; thresholds scaled by `mean_pktsize` in byte mode.
//! - Adaptive RED (`adaptive = true`): `updateMaxP` runs inside the estimator on arrivals once
//!   `now > lastset + interval`; `lastset` moves only when max_p changes.
//!
//! Not reproduced: forced-drop victims other than the arrival (`drop_front_`, `drop_rand_`), `cautious_`,
//! `feng_adaptive_`, `ns1_compat_`. When an arrival finds the buffer full the early test is skipped
//! (ns-2 runs it, may set CE or reset the count, then drops the packet anyway: same outcome, one fewer
//! random draw). The idle decay uses `powi` instead of ns-2's multiplication loop (equal up to rounding).

use super::fifo::{Fifo, FifoAqm, FifoQueue};
use super::{Buffer, DisciplineConfig, DropReason, LinkInfo, QueueEnv, buffer_limit, byte_scaled, queue_unit};
use crate::net::PacketId;
use crate::scenario::units::{Bytes, Seconds};
use crate::sim::time::to_secs;
use crate::sim::Time;

aqm_config! {
    pub struct Config {
        /// Buffer in packets (ns-2 `limit_`, 50); `limit · mean_pktsize` bytes with `queue_in_bytes`.
        #[default(50)]
        #[check(ns2_limit)]
        pub limit: u32,
        /// Queue, thresholds and limit measured in bytes (ns-2 `queue_in_bytes_`, true).
        #[default(true)]
        pub queue_in_bytes: bool,
        /// Probability scaled by `size / mean_pktsize`, count kept in bytes (ns-2 `bytes_`, true).
        #[default(true)]
        pub bytes: bool,
        /// Mean packet size in bytes for the conversions and `ptc` (ns-2 `mean_pktsize_`, 500).
        #[default(Bytes(500))]
        #[check(size)]
        pub mean_pktsize: Bytes,
        /// min_th in packets; 0 = `max(5, targetdelay·ptc/2)` (ns-2 `thresh_`, 0).
        #[check(nonnegative)]
        pub thresh: f64,
        /// max_th in packets; 0 = `3·min_th` (ns-2 `maxthresh_`, 0).
        #[check(nonnegative)]
        #[check(|c| c.maxthresh == 0.0 || c.thresh == 0.0 || c.maxthresh > c.thresh, "greater than thresh")]
        pub maxthresh: f64,
        /// EWMA weight w_q; 0, −1, −2 select ns-2's automatic rules (ns-2 `q_weight_`, −1).
        #[default(-1.0)]
        #[check(
            |c| [0.0, -1.0, -2.0].contains(&c.q_weight) || (c.q_weight > 0.0 && c.q_weight <= 1.0),
            "a weight in (0, 1], or 0 / -1 / -2 for ns-2's automatic rules"
        )]
        pub q_weight: f64,
        /// Uniform inter-drop gaps on [1/p, 2/p] (ns-2 `wait_`, true).
        #[default(true)]
        pub wait: bool,
        /// Initial max_p = 1/linterm (ns-2 `linterm_`, 10).
        #[default(10.0)]
        #[check(|c| c.linterm.is_finite() && c.linterm >= 1.0, "a number >= 1 (max_p <= 1)")]
        pub linterm: f64,
        /// ECT packets are marked only while p_b < mark_p (ns-2 `mark_p_`, 0.1).
        #[default(0.1)]
        #[check(probability)]
        pub mark_p: f64,
        /// Apply the `mark_p` rule (ns-2 `use_mark_p_`, true).
        #[default(true)]
        pub use_mark_p: bool,
        /// Mark ECT packets instead of dropping them (ns-2 `setbit_`, false).
        #[serde(alias = "setbit")]
        pub ecn: bool,
        /// p_b rises from max_p to 1 between max_th and 2·max_th (ns-2 `gentle_`, true).
        #[default(true)]
        pub gentle: bool,
        /// Adaptive RED: adapt max_p on arrivals (ns-2 `adaptive_`, false).
        pub adaptive: bool,
        /// ARED additive increase, capped at max_p/4 (ns-2 `alpha_`, 0.01).
        #[default(0.01)]
        #[check(fraction)]
        pub alpha: f64,
        /// ARED multiplicative decrease (ns-2 `beta_`, 0.9).
        #[default(0.9)]
        #[check(|c| c.beta > 0.0 && c.beta < 1.0, "a factor in (0, 1)")]
        pub beta: f64,
        /// ARED minimum time between max_p changes, seconds (ns-2 `interval_`, 0.5).
        #[default(Seconds(0.5))]
        #[check(nonnegative_secs)]
        pub interval: Seconds,
        /// Target queueing delay for the automatic thresholds, seconds (ns-2 `targetdelay_`, 0.005).
        #[default(Seconds(0.005))]
        #[check(positive_secs)]
        pub targetdelay: Seconds,
        /// ARED upper bound for max_p (ns-2 `top_`, 0.5).
        #[default(0.5)]
        #[check(fraction)]
        pub top: f64,
        /// ARED lower bound for max_p; 0 = `min(0.01, 80000/bw)` (ns-2 `bottom_`, 0).
        #[check(|c| c.bottom >= 0.0 && c.bottom < c.top, "a probability in [0, top) (0 = automatic)")]
        pub bottom: f64,
    }
}

impl DisciplineConfig for Config {
    type Discipline = FifoQueue<Red>;

    fn buffer(&self) -> Buffer {
        Buffer::ns2(self.limit, self.queue_in_bytes, self.mean_pktsize.0)
    }

    fn variant_name(&self) -> Option<&'static str> {
        self.adaptive.then_some("ared")
    }
}

pub struct Red {
    cfg: Config,
    /// Link capacity in mean-size packets per second (ns-2 `ptc`).
    ptc: f64,
    w_q: f64,
    /// Thresholds and hard limit in the queue's unit (bytes with `queue_in_bytes`).
    min_th: f64,
    max_th: f64,
    limit: u64,
    /// ARED lower bound for max_p after the automatic rule.
    bottom: f64,
    /// Linear region `p_b = (v_a·avg + v_b)·max_p` and gentle line `p_b = v_c·avg + v_d` (ns-2 names).
    v_a: f64,
    v_b: f64,
    v_c: f64,
    v_d: f64,
    /// Current max_p (ns-2 `cur_max_p`), moved by ARED.
    max_p: f64,
    avg: f64,
    /// Probability before (`p_b`, ns-2 `v_prob1`) and after (`p_a`, `v_prob`) the count correction.
    p_b: f64,
    p_a: f64,
    count: u64,
    count_bytes: u64,
    /// `avg` was already at or above min_th at the previous arrival (ns-2 `old`).
    old: bool,
    idle: bool,
    idle_since: Time,
    /// Last time ARED changed max_p, seconds (ns-2 `lastset`).
    lastset: f64,
}

impl Red {
    /// EWMA update for one arrival that found `q` waiting, after `m` virtual idle-period arrivals; then
    /// ARED's max_p adaptation, which ns-2 runs inside the estimator.
    fn update_avg(&mut self, q: f64, m: u64, now: f64) {
        let keep = 1.0 - self.w_q;
        let decayed = self.avg * keep.powi(i32::try_from(m).unwrap_or(i32::MAX));
        self.avg = decayed * keep + self.w_q * q;
        if self.cfg.adaptive && now > self.lastset + self.cfg.interval.0 {
            self.update_max_p(now);
        }
    }

    /// ARED's AIMD step toward the middle 20 % of [min_th, max_th] (ns-2 `updateMaxP`).
    fn update_max_p(&mut self, now: f64) {
        let part = 0.4 * (self.max_th - self.min_th);
        if self.avg < self.min_th + part && self.max_p > self.bottom {
            self.max_p *= self.cfg.beta;
            self.lastset = now;
        } else if self.avg > self.max_th - part && self.cfg.top > self.max_p {
            self.max_p += f64::min(self.cfg.alpha, 0.25 * self.max_p);
            self.lastset = now;
        }
    }

    /// Drop probability before the count correction, for an average at or above min_th.
    fn prob_b(&self, avg: f64) -> f64 {
        let p = if avg < self.max_th {
            (self.v_a * avg + self.v_b) * self.max_p
        } else if self.cfg.gentle {
            self.v_c * avg + self.v_d
        } else {
            1.0
        };
        p.min(1.0)
    }

    /// The count correction and byte scaling of `p_b` for an arrival of `size` bytes (ns-2 `modify_p`).
    fn prob_a(&self, p_b: f64, size: u32) -> f64 {
        let count = if self.cfg.bytes {
            (self.count_bytes / self.cfg.mean_pktsize.0) as f64
        } else {
            self.count as f64
        };
        let cp = count * p_b;
        let p = if self.cfg.wait {
            if cp < 1.0 {
                0.0
            } else if cp < 2.0 {
                p_b / (2.0 - cp)
            } else {
                1.0
            }
        } else if cp < 1.0 {
            p_b / (1.0 - cp)
        } else {
            1.0
        };
        if self.cfg.bytes && p < 1.0 {
            byte_scaled(p, size, self.cfg.mean_pktsize.0)
        } else {
            p.min(1.0)
        }
    }

    /// The average at which ns-2 drops without randomisation when `use_mark_p` is off.
    fn hard_drop_avg(&self) -> f64 {
        if self.cfg.gentle {
            2.0 * self.max_th
        } else {
            self.max_th
        }
    }

    fn reset_count(&mut self) {
        self.count = 0;
        self.count_bytes = 0;
    }
}

impl FifoAqm for Red {
    type Config = Config;

    fn new(cfg: Config, link: LinkInfo) -> Self {
        let ptc = link.packets_per_sec(cfg.mean_pktsize.0 as f64);
        let w_q = match cfg.q_weight {
            0.0 => 1.0 - (-1.0 / ptc).exp(),
            -1.0 => {
                let rtt = f64::max(0.1, 3.0 * (to_secs(link.delay) + 1.0 / ptc));
                1.0 - (-1.0 / (10.0 * rtt * ptc)).exp()
            }
            -2.0 => 1.0 - (-10.0 / ptc).exp(),
            w => w,
        };
        let min_pkts =
            if cfg.thresh == 0.0 { f64::max(5.0, cfg.targetdelay.0 * ptc / 2.0) } else { cfg.thresh };
        let max_pkts = if cfg.maxthresh == 0.0 { 3.0 * min_pkts } else { cfg.maxthresh };
        let unit = queue_unit(cfg.queue_in_bytes, cfg.mean_pktsize.0);
        let (min_th, max_th) = (min_pkts * unit, max_pkts * unit);
        let bottom =
            if cfg.bottom == 0.0 { f64::min(0.01, 80_000.0 / link.rate_bps as f64) } else { cfg.bottom };
        let th_diff = if max_th == min_th { 1.0 } else { max_th - min_th };
        let max_p = 1.0 / cfg.linterm;
        Red {
            ptc,
            w_q,
            min_th,
            max_th,
            limit: buffer_limit(cfg.limit, cfg.queue_in_bytes, cfg.mean_pktsize.0),
            bottom,
            v_a: 1.0 / th_diff,
            v_b: -min_th / th_diff,
            v_c: (1.0 - max_p) / max_th,
            v_d: 2.0 * max_p - 1.0,
            max_p,
            avg: 0.0,
            p_b: 0.0,
            p_a: 0.0,
            count: 0,
            count_bytes: 0,
            old: false,
            idle: true,
            idle_since: 0,
            lastset: 0.0,
            cfg,
        }
    }

    fn enqueue(&mut self, pkt: PacketId, fifo: &mut Fifo, env: &mut QueueEnv) {
        let size = env.size(pkt);
        let m = if std::mem::take(&mut self.idle) {
            (self.ptc * to_secs(env.now.saturating_sub(self.idle_since))) as u64
        } else {
            0
        };
        let qlen = fifo.occupancy(self.cfg.queue_in_bytes);
        self.update_avg(qlen as f64, m, to_secs(env.now));
        self.count += 1;
        self.count_bytes += size as u64;

        let overflow = qlen >= self.limit;
        let mut forced = false;
        if self.avg >= self.min_th && qlen > 1 {
            self.p_b = self.prob_b(self.avg);
            if !self.cfg.use_mark_p && self.avg >= self.hard_drop_avg() {
                forced = true;
            } else if !self.old {
                self.old = true;
                self.count = 1;
                self.count_bytes = size as u64;
            } else if !overflow {
                self.p_a = self.prob_a(self.p_b, size);
                if env.uniform() <= self.p_a {
                    self.reset_count();
                    let may_mark = self.cfg.ecn && (!self.cfg.use_mark_p || self.p_b < self.cfg.mark_p);
                    if !env.mark_or_drop(pkt, may_mark) {
                        return;
                    }
                }
            }
        } else {
            self.p_b = 0.0;
            self.p_a = 0.0;
            self.old = false;
        }

        if overflow || forced {
            self.reset_count();
            env.drop(pkt, if overflow { DropReason::Overflow } else { DropReason::Early });
        } else {
            fifo.push(pkt, env.packets, env.now);
        }
    }

    fn dequeue(&mut self, fifo: &mut Fifo, env: &mut QueueEnv) -> Option<PacketId> {
        let p = fifo.pop(env.packets);
        self.idle = p.is_none();
        if self.idle {
            self.idle_since = env.now;
        }
        p
    }

    fn state(&self, out: &mut Vec<(&'static str, f64)>) {
        out.extend([
            ("avg", self.avg),
            ("p_b", self.p_b),
            ("p_a", self.p_a),
            ("max_p", self.max_p),
            ("count", self.count as f64),
        ]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::aqm::QueueDisc;
    use crate::aqm::state_of;
    use crate::aqm::testutil::{assert_rejected, one_bad_field, Harness};
    use crate::aqm::QueueAction;
    use crate::net::Ecn;
    use crate::sim::time::{secs, NS_PER_MS};

    const MBPS: u64 = 1_000_000;

    /// Packet mode (both byte switches off), explicit thresholds and weight.
    fn pkt_cfg(thresh: f64, maxthresh: f64, q_weight: f64) -> Config {
        Config {
            queue_in_bytes: false,
            bytes: false,
            thresh,
            maxthresh,
            q_weight,
            limit: 1000,
            ..Default::default()
        }
    }

    /// Puts `n` packets straight into the FIFO, bypassing the algorithm.
    fn fill(q: &mut FifoQueue<Red>, h: &mut Harness, n: usize, size: u32) {
        for _ in 0..n {
            let id = h.packet(size, Ecn::NotEct);
            q.fifo.push(id, &mut h.packets, h.now);
        }
    }

    fn close(a: f64, b: f64, rel: f64) -> bool {
        (a - b).abs() <= rel * b.abs().max(1e-300)
    }

    #[test]
    fn auto_params_study_c_link() {
        // 100 Mb/s, 65 ms, all ns-2 defaults (byte mode, mean_pktsize 500, limit 90).
        let h = Harness::new(100 * MBPS, 65 * NS_PER_MS);
        let q = FifoQueue::new(Red::new(Config { limit: 90, ..Default::default() }, h.link));
        assert_eq!(q.aqm.ptc, 25_000.0);
        // min_th = max(5, 0.005·25000/2) = 62.5 packets = 31 250 B; max_th = 3·min_th.
        assert!(close(q.aqm.min_th, 31_250.0, 1e-12));
        assert!(close(q.aqm.max_th, 93_750.0, 1e-12));
        let rtt: f64 = 3.0 * (0.065 + 1.0 / 25_000.0);
        assert!(close(q.aqm.w_q, 1.0 - (-1.0 / (10.0 * rtt * 25_000.0)).exp(), 1e-12));
        assert!((q.aqm.w_q - 2.05e-5).abs() < 0.005e-5);
        assert_eq!(q.aqm.limit, 45_000);
        assert!(close(q.aqm.bottom, 0.0008, 1e-12));
        assert!(close(q.aqm.max_p, 0.1, 1e-15));
    }

    #[test]
    fn auto_params_study_w_ared() {
        let h = Harness::new(10 * MBPS, NS_PER_MS);
        let cfg = Config { adaptive: true, targetdelay: Seconds(0.01), limit: 200, ecn: true, ..Default::default() };
        let q = FifoQueue::new(Red::new(cfg, h.link));
        assert_eq!(q.aqm.ptc, 2500.0);
        assert!(close(q.aqm.min_th, 6250.0, 1e-12));
        assert!(close(q.aqm.max_th, 18_750.0, 1e-12));
        // RTT = max(0.1, 3·(0.001 + 0.0004)) = 0.1 s, so w_q = 1 − exp(−1/2500).
        assert!(close(q.aqm.w_q, 1.0 - (-1.0f64 / 2500.0).exp(), 1e-12));
        assert!((q.aqm.w_q - 4.0e-4).abs() < 0.01e-4);
        assert!(close(q.aqm.bottom, 0.008, 1e-12));
        assert_eq!(q.aqm.limit, 100_000);
    }

    #[test]
    fn other_weight_rules_and_explicit_thresholds() {
        let h = Harness::new(MBPS, 10 * NS_PER_MS);
        let ptc: f64 = 250.0;
        let q0 = FifoQueue::new(Red::new(Config { q_weight: 0.0, ..Default::default() }, h.link));
        assert!(close(q0.aqm.w_q, 1.0 - (-1.0 / ptc).exp(), 1e-12));
        let q2 = FifoQueue::new(Red::new(Config { q_weight: -2.0, ..Default::default() }, h.link));
        assert!(close(q2.aqm.w_q, 1.0 - (-10.0 / ptc).exp(), 1e-12));
        // Slow link: targetdelay·ptc/2 = 0.625 < 5, so min_th = 5 packets; bottom = min(0.01, 0.08).
        assert!(close(q0.aqm.min_th, 5.0 * 500.0, 1e-12) && close(q0.aqm.max_th, 15.0 * 500.0, 1e-12));
        assert_eq!(q0.aqm.bottom, 0.01);
        let qp = FifoQueue::new(Red::new(pkt_cfg(7.0, 0.0, 0.002), h.link));
        assert_eq!((qp.aqm.min_th, qp.aqm.max_th, qp.aqm.w_q, qp.aqm.limit), (7.0, 21.0, 0.002, 1000));
    }

    #[test]
    fn ewma_on_every_arrival_with_idle_correction() {
        // ptc = 8e6 / (8·500) = 2000 packets/s.
        let mut h = Harness::new(8 * MBPS, 0);
        let mut q = FifoQueue::new(Red::new(pkt_cfg(100.0, 300.0, 0.1), h.link));
        let w = 0.1;
        let mut avg = 0.0;
        for k in 0..10 {
            h.arrive(&mut q, 500, Ecn::NotEct);
            avg = avg * (1.0 - w) + w * k as f64;
            assert!(close(q.aqm.avg, avg, 1e-12), "arrival {k}: {} vs {avg}", q.aqm.avg);
        }
        h.now = NS_PER_MS;
        for _ in 0..10 {
            assert!(h.depart(&mut q).is_some());
        }
        assert!(h.depart(&mut q).is_none()); // the link goes idle at 1 ms
        h.now = NS_PER_MS + secs(0.0103);
        h.arrive(&mut q, 500, Ecn::NotEct);
        // m = floor(2000 · 0.0103) = 20 packets could have been sent while idle.
        avg *= (1.0 - w).powi(21);
        assert!(close(q.aqm.avg, avg, 1e-12), "{} vs {avg}", q.aqm.avg);
        // The flag is cleared: the next arrival is an ordinary update (one packet waiting).
        h.now += secs(0.0103);
        h.arrive(&mut q, 500, Ecn::NotEct);
        avg = avg * (1.0 - w) + w;
        assert!(close(q.aqm.avg, avg, 1e-12));
    }

    #[test]
    fn probability_curve_linear_gentle_and_hard() {
        let h = Harness::new(10 * MBPS, 0);
        let q = FifoQueue::new(Red::new(pkt_cfg(5.0, 15.0, 0.002), h.link));
        assert!(q.aqm.prob_b(5.0).abs() < 1e-15);
        assert!(close(q.aqm.prob_b(10.0), 0.1 * 5.0 / 10.0, 1e-12));
        assert!(close(q.aqm.prob_b(15.0), 0.1, 1e-12));
        assert!(close(q.aqm.prob_b(22.5), 0.1 + 0.9 * 7.5 / 15.0, 1e-12));
        assert_eq!(q.aqm.prob_b(30.0), 1.0);
        assert_eq!(q.aqm.prob_b(45.0), 1.0);
        let hard = FifoQueue::new(Red::new(Config { gentle: false, ..pkt_cfg(5.0, 15.0, 0.002) }, h.link));
        assert!(close(hard.aqm.prob_b(14.9), 0.1 * 9.9 / 10.0, 1e-12));
        assert_eq!(hard.aqm.prob_b(15.0), 1.0);
    }

    #[test]
    fn count_correction_with_and_without_wait_and_in_bytes() {
        let h = Harness::new(10 * MBPS, 0);
        let mut q = FifoQueue::new(Red::new(pkt_cfg(5.0, 15.0, 0.002), h.link));
        let pb = 0.05;
        let cases = [(10, 0.0), (20, pb / (2.0 - 20.0 * pb)), (30, pb / (2.0 - 30.0 * pb)), (40, 1.0)];
        for (count, want) in cases {
            q.aqm.count = count;
            assert!(close(q.aqm.prob_a(pb, 500), want, 1e-12), "wait, count {count}");
        }
        q.aqm.cfg.wait = false;
        q.aqm.count = 10;
        assert!(close(q.aqm.prob_a(pb, 500), pb / (1.0 - 10.0 * pb), 1e-12));
        q.aqm.count = 20;
        assert_eq!(q.aqm.prob_a(pb, 500), 1.0);
        // Byte mode: count = floor(count_bytes / 500), then p·size/500 while p < 1.
        q.aqm.cfg.bytes = true;
        q.aqm.count = 0;
        q.aqm.count_bytes = 10_499; // 20 mean-size packets
        assert!(close(q.aqm.prob_a(pb, 40), pb / (1.0 - 20.0 * pb) * 40.0 / 500.0, 1e-12));
        assert!(close(q.aqm.prob_a(pb, 1500), (pb / (1.0 - 20.0 * pb) * 3.0).min(1.0), 1e-12));
        // Once the count correction reaches 1, ns-2 no longer scales: a 40-byte packet goes too.
        q.aqm.count_bytes = 20_000;
        assert_eq!(q.aqm.prob_a(pb, 40), 1.0);
    }

    #[test]
    fn old_flag_restarts_count_and_spares_first_packet_above_min_th() {
        // w_q = 1 makes avg equal the queue seen at each arrival; non-gentle with p_b = 1 at max_th.
        let mut h = Harness::new(10 * MBPS, 0);
        let mut q = FifoQueue::new(Red::new(Config { gentle: false, ..pkt_cfg(2.0, 3.0, 1.0) }, h.link));
        for k in 0..3 {
            assert!(h.arrive(&mut q, 500, Ecn::NotEct).is_none(), "arrival with q = {k}");
        }
        // The third arrival (avg = 2 = min_th, first time) restarted the count and was kept.
        assert!(q.aqm.old);
        assert_eq!(q.aqm.count, 1);
        // avg = 3 = max_th: p_b = 1, count 2 → p_a = 1: early drop of the arrival.
        assert_eq!(h.arrival_dropped(&mut q, 500, Ecn::NotEct), Some(DropReason::Early));
        assert_eq!(q.aqm.count, 0);
        assert_eq!(state_of(&q)[1], ("p_b", 1.0));
        // count 1 after the drop: p_a = 1/(2 − 1) = 1 again.
        assert_eq!(h.arrival_dropped(&mut q, 500, Ecn::NotEct), Some(DropReason::Early));
        // Below min_th the flag clears; the next crossing is spared again.
        h.depart(&mut q);
        h.depart(&mut q);
        assert!(h.arrive(&mut q, 500, Ecn::NotEct).is_none()); // avg 1
        assert!(!q.aqm.old);
        assert!(h.arrive(&mut q, 500, Ecn::NotEct).is_none()); // avg 2: first above min_th again
        assert!(q.aqm.old);
    }

    fn reason(a: QueueAction) -> Option<DropReason> {
        match a {
            QueueAction::Dropped(_, r) => Some(r),
            QueueAction::Marked(_) => None,
        }
    }

    /// Index of the first early drop in a stream of arrivals (no departures), w_q = 1, p_b = 1 above
    /// a tiny max_th: only the `q > 1` guard and the `old` flag delay it.
    fn first_drop(queue_in_bytes: bool) -> usize {
        let mut h = Harness::new(10 * MBPS, 0);
        let cfg = Config { gentle: false, queue_in_bytes, ..pkt_cfg(0.01, 0.02, 1.0) };
        let mut q = FifoQueue::new(Red::new(cfg, h.link));
        (0..10).find(|_| h.arrive(&mut q, 40, Ecn::NotEct).is_some()).unwrap()
    }

    #[test]
    fn early_branch_needs_more_than_one_packet_or_byte_waiting() {
        // Packets: the arrival seeing 1 packet is not tested, the one seeing 2 sets `old`, the one
        // seeing 3 is dropped. Bytes: 40 B waiting is already "more than one byte".
        assert_eq!(first_drop(false), 3);
        assert_eq!(first_drop(true), 2);
    }

    #[test]
    fn forced_drop_when_buffer_full_before_enqueue() {
        let mut h = Harness::new(10 * MBPS, 0);
        let mut q = FifoQueue::new(Red::new(Config { limit: 5, ..pkt_cfg(1000.0, 3000.0, 0.002) }, h.link));
        for _ in 0..5 {
            assert!(h.arrive(&mut q, 500, Ecn::Ect0).is_none());
        }
        q.aqm.count = 7;
        assert_eq!(h.arrival_dropped(&mut q, 500, Ecn::Ect0), Some(DropReason::Overflow));
        assert_eq!((q.len_packets(), q.aqm.count), (5, 0));
        // Byte mode: 3 × 500 = 1500 B; an arrival is accepted while fewer bytes wait, even if it overshoots.
        let mut qb =
            FifoQueue::new(Red::new(Config { limit: 3, queue_in_bytes: true, ..pkt_cfg(1000.0, 3000.0, 0.002) }, h.link));
        for size in [1000, 400, 1000] {
            assert!(h.arrive(&mut qb, size, Ecn::NotEct).is_none());
        }
        assert_eq!(h.arrival_dropped(&mut qb, 40, Ecn::NotEct), Some(DropReason::Overflow));
        assert_eq!(qb.len_bytes(), 2400);
    }

    #[test]
    fn ecn_marks_ect_only_below_mark_p() {
        let mut h = Harness::new(10 * MBPS, 0);
        let mut q = FifoQueue::new(Red::new(Config { ecn: true, ..pkt_cfg(5.0, 15.0, 1.0) }, h.link));
        q.aqm.old = true;
        fill(&mut q, &mut h, 10, 500); // avg = 10: p_b = 0.05 < mark_p
        fn force(q: &mut FifoQueue<Red>, h: &mut Harness, ecn: Ecn) -> Option<QueueAction> {
            q.aqm.count = 1000; // count·p_b ≥ 2: p_a = 1
            h.arrive(q, 500, ecn)
        }
        assert!(matches!(force(&mut q, &mut h, Ecn::Ect0), Some(QueueAction::Marked(_))));
        assert_eq!(q.aqm.count, 0);
        assert_eq!(q.len_packets(), 11);
        assert_eq!(force(&mut q, &mut h, Ecn::NotEct).map(reason), Some(Some(DropReason::NotEct)));
        // avg = 20 (gentle region): p_b = 0.1 + 0.9·5/15 = 0.4 ≥ mark_p, so ECT is dropped.
        fill(&mut q, &mut h, 9, 500);
        assert_eq!(force(&mut q, &mut h, Ecn::Ect0).map(reason), Some(Some(DropReason::Early)));
        assert!(close(q.aqm.p_b, 0.4, 1e-12));
        // Without the mark_p rule ECT is marked there.
        q.aqm.cfg.use_mark_p = false;
        assert!(matches!(force(&mut q, &mut h, Ecn::Ect1), Some(QueueAction::Marked(_))));
    }

    #[test]
    fn without_use_mark_p_avg_above_twice_max_th_drops_even_ect() {
        let mut h = Harness::new(10 * MBPS, 0);
        let mut q = FifoQueue::new(Red::new(Config { ecn: true, use_mark_p: false, ..pkt_cfg(2.0, 3.0, 1.0) }, h.link));
        // Below 2·max_th every selected ECT packet is marked and kept, so the queue grows by one each time.
        for k in 0..6 {
            assert!(!matches!(h.arrive(&mut q, 500, Ecn::Ect0), Some(QueueAction::Dropped(..))), "q = {k}");
        }
        assert_eq!(h.arrival_dropped(&mut q, 500, Ecn::Ect0), Some(DropReason::Early));
        assert_eq!(q.len_packets(), 6);
    }

    /// Expected arrivals per early drop at constant p_b, from the count correction (packet mode).
    fn expected_gap(pb: f64, wait: bool) -> f64 {
        let (mut survive, mut gap) = (1.0, 0.0);
        for n in 1.. {
            gap += survive; // P(N ≥ n)
            let cp = n as f64 * pb;
            let pa = match (wait, cp) {
                (true, c) if c < 1.0 => 0.0,
                (true, c) if c < 2.0 => pb / (2.0 - c),
                (false, c) if c < 1.0 => pb / (1.0 - c),
                _ => 1.0,
            };
            survive *= 1.0 - pa.min(1.0);
            if survive == 0.0 {
                break;
            }
        }
        gap
    }

    #[test]
    fn constant_average_drops_at_rate_implied_by_count() {
        for wait in [true, false] {
            let mut h = Harness::new(10 * MBPS, 0);
            let mut q = FifoQueue::new(Red::new(Config { wait, ..pkt_cfg(5.0, 15.0, 1.0) }, h.link));
            fill(&mut q, &mut h, 10, 500); // avg stays 10: p_b = 0.05
            q.aqm.old = true;
            let n = 200_000;
            let mut drops = 0;
            for _ in 0..n {
                if h.arrive(&mut q, 500, Ecn::NotEct).is_some() {
                    drops += 1;
                } else {
                    h.depart(&mut q);
                }
            }
            let want = n as f64 / expected_gap(0.05, wait);
            assert!(close(drops as f64, want, 0.03), "wait {wait}: {drops} drops, expected {want:.0}");
        }
    }

    #[test]
    fn byte_mode_selects_small_packets_by_size_ratio() {
        let mut h = Harness::new(10 * MBPS, 0);
        let cfg =
            Config { wait: false, thresh: 10.0, maxthresh: 30.0, q_weight: 1e-12, ..Default::default() };
        let mut q = FifoQueue::new(Red::new(cfg, h.link));
        fill(&mut q, &mut h, 4, 1000);
        q.aqm.old = true;
        let n = 200_000;
        let mut dropped = [0u32; 2];
        for i in 0..2 * n {
            let size = [40, 1500][i % 2];
            // avg 10 000 B: p_b = 0.1·(10000 − 5000)/10000 = 0.05; count 4 mean-size packets: p_a = 0.0625.
            q.aqm.avg = 10_000.0;
            q.aqm.count_bytes = 2000 - size as u64;
            if h.arrive(&mut q, size, Ecn::NotEct).is_some() {
                dropped[i % 2] += 1;
            } else {
                h.depart(&mut q);
            }
        }
        let pa = 0.05 / (1.0 - 4.0 * 0.05);
        let (small, large) = (dropped[0] as f64 / n as f64, dropped[1] as f64 / n as f64);
        assert!(close(small, pa * 40.0 / 500.0, 0.12), "40 B: {small}");
        assert!(close(large, pa * 1500.0 / 500.0, 0.03), "1500 B: {large}");
        assert!(close(small / large, 40.0 / 1500.0, 0.12));
    }

    /// One arrival and departure at `t` seconds with the average forced to `avg` (w_q ≈ 0, at most one
    /// packet waiting, so no early drop can happen).
    fn ared_step(q: &mut FifoQueue<Red>, h: &mut Harness, t: f64, avg: f64) -> f64 {
        h.now = secs(t);
        q.aqm.avg = avg;
        h.arrive(q, 500, Ecn::NotEct);
        h.depart(q);
        q.aqm.max_p
    }

    fn ared() -> (FifoQueue<Red>, Harness) {
        let h = Harness::new(10 * MBPS, 0);
        let cfg = Config { adaptive: true, bottom: 0.01, ..pkt_cfg(5.0, 15.0, 1e-12) };
        (FifoQueue::new(Red::new(cfg, h.link)), h)
    }

    #[test]
    fn ared_adapts_max_p_on_arrivals_respecting_interval() {
        let (mut q, mut h) = ared();
        // Band: min_th + 0.4·10 = 9 .. max_th − 4 = 11.
        assert_eq!(ared_step(&mut q, &mut h, 0.3, 2.0), 0.1); // 0.3 ≤ lastset + interval
        let mut want = 0.1 * 0.9;
        assert_eq!(ared_step(&mut q, &mut h, 0.6, 2.0), want);
        assert_eq!(ared_step(&mut q, &mut h, 0.9, 2.0), want); // 0.9 ≤ 0.6 + 0.5
        assert_eq!(ared_step(&mut q, &mut h, 1.2, 10.0), want); // in band: no change, lastset stays
        want += f64::min(0.01, want / 4.0);
        assert_eq!(ared_step(&mut q, &mut h, 1.3, 12.0), want); // 1.3 > 0.6 + 0.5
        assert_eq!(ared_step(&mut q, &mut h, 1.5, 12.0), want);
        want += 0.01;
        assert_eq!(ared_step(&mut q, &mut h, 1.9, 12.0), want);
        // Small max_p: the increase is max_p/4.
        q.aqm.max_p = 0.02;
        assert_eq!(ared_step(&mut q, &mut h, 2.5, 12.0), 0.025);
    }

    #[test]
    fn ared_max_p_stays_within_bottom_and_top() {
        let (mut q, mut h) = ared();
        q.aqm.max_p = 0.012;
        let mut want = 0.012;
        for k in 1..=5 {
            if want > 0.01 {
                want *= 0.9;
            }
            assert_eq!(ared_step(&mut q, &mut h, 0.6 * k as f64, 2.0), want);
        }
        assert!((0.009..0.01).contains(&want));
        q.aqm.max_p = 0.48;
        let mut want = 0.48;
        for k in 6..=12 {
            if want < 0.5 {
                want += f64::min(0.01, want / 4.0);
            }
            assert_eq!(ared_step(&mut q, &mut h, 0.6 * k as f64, 12.0), want);
        }
        assert!((0.5..0.51).contains(&want));
    }

    #[test]
    fn ared_gentle_line_keeps_initial_max_p() {
        let (mut q, _) = ared();
        q.aqm.max_p = 0.3;
        assert!(close(q.aqm.prob_b(10.0), 0.3 * 0.5, 1e-12));
        assert!(close(q.aqm.prob_b(14.99), 0.3 * 9.99 / 10.0, 1e-12));
        // At and above max_th the line still starts from the initial 0.1: p_b drops from ~0.3 to 0.1.
        assert!(close(q.aqm.prob_b(15.0), 0.1, 1e-12));
        assert!(close(q.aqm.prob_b(20.0), 0.1 + 0.9 * 5.0 / 15.0, 1e-12));
    }

    #[test]
    fn validate_rejects_nonsense() {
        assert_rejected(one_bad_field![
            limit: 0, mean_pktsize: Bytes(0), thresh: -1.0, q_weight: 1.5, q_weight: -3.0, linterm: 0.5,
            mark_p: 1.5, beta: 1.0, interval: Seconds(f64::NAN), targetdelay: Seconds(0.0), bottom: 0.6,
        ]);
        assert_rejected([
            ("maxthresh", Config { thresh: 10.0, maxthresh: 5.0, ..Default::default() }),
        ]);
    }
}
