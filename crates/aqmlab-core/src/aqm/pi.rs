//! PI controller AQM (Hollot, Misra, Towsley & Gong, "On Designing Improved Controllers for AQM Routers
//! Supporting TCP Flows", INFOCOM 2001), as ns-2.35's `Queue/PI` implements it (docs/aqm.md#pi).
//!
//! ns-2 behaviours reproduced:
//! - Periodic update every `1/w` seconds, independent of arrivals (`calculate_p`, `PICalcTimer`):
//!   `p ← clip[0,1]( a·(q − qref) − b·(q_old − qref) + p )`, `q_old` the previous sample. ns-2 also runs
//!   the update once at reset (t = 0, empty queue), so the first timed update is at t = 1/w.
//! - With `queue_in_bytes`, `q = bytes_waiting / mean_pktsize` (qref stays in packets) and the limit is
//!   `limit · mean_pktsize` bytes.
//! - Overflow test first, on the queue before the arrival: `q ≥ limit` → forced drop of the arrival.
//! - Otherwise a decision on **every** arrival, even into an empty queue: `u ≤ p'` with
//!   `p' = min(1, p·size/mean_pktsize)` under `bytes`, else `p' = p` (`drop_early`). Unlike RED the
//!   scaling applies even at p = 1.
//! - ECN (`setbit_`): a selected ECT packet is always marked, never early-dropped; a selected non-ECT
//!   packet is dropped (`NotEct`).

use super::fifo::{Fifo, FifoAqm, FifoQueue};
use super::{Buffer, DropReason, LinkInfo, QueueEnv, buffer_limit, queue_unit};
use crate::net::PacketId;
use crate::scenario::units::Bytes;
use crate::sim::time::secs;
use crate::sim::Time;

aqm_config! {
    #[discipline(FifoQueue<Pi>)]
    #[buffer(|c| Buffer::ns2(c.limit, c.queue_in_bytes, c.mean_pktsize.0))]
    pub struct Config {
        /// Buffer in packets (ns-2 `limit_`, 50); `limit · mean_pktsize` bytes with `queue_in_bytes`.
        #[default(50)]
        #[check(ns2_limit)]
        pub limit: u32,
        /// Queue and limit measured in bytes, converted to packets for the controller
        /// (ns-2 `queue_in_bytes_`, false).
        pub queue_in_bytes: bool,
        /// Probability scaled by `size / mean_pktsize` per packet (ns-2 `bytes_`, false).
        pub bytes: bool,
        /// Bytes per packet for the conversions (ns-2 `mean_pktsize_`, 500).
        #[default(Bytes(500))]
        #[check(size)]
        pub mean_pktsize: Bytes,
        /// Gain on the current error (ns-2 `a_`, 1.822e-5).
        #[default(0.00001822)]
        #[check(nonnegative)]
        pub a: f64,
        /// Gain on the previous error (ns-2 `b_`, 1.816e-5).
        #[default(0.00001816)]
        #[check(nonnegative)]
        pub b: f64,
        /// Sampling frequency in Hz (ns-2 `w_`, 170).
        #[default(170.0)]
        #[check(|c| c.w.is_finite() && c.w > 0.0 && c.w <= 1e9, "a sampling frequency in (0, 1e9] Hz")]
        pub w: f64,
        /// Target queue in packets (ns-2 `qref_`, 50).
        #[default(50.0)]
        #[check(nonnegative)]
        pub qref: f64,
        /// Mark ECT packets instead of dropping them (ns-2 `setbit_`, false).
        #[serde(alias = "setbit")]
        pub ecn: bool,
    }
}

pub struct Pi {
    cfg: Config,
    limit: u64,
    period: Time,
    /// Current probability (ns-2 `prob_`).
    p: f64,
    /// Queue at the previous sample, in the queue's unit (ns-2 `qold`).
    q_old: u64,
}

impl FifoAqm for Pi {
    type Config = Config;

    fn new(cfg: Config, _link: LinkInfo) -> Self {
        let mut pi = Pi {
            limit: buffer_limit(cfg.limit, cfg.queue_in_bytes, cfg.mean_pktsize.0),
            period: secs(1.0 / cfg.w),
            p: 0.0,
            q_old: 0,
            cfg,
        };
        pi.update(&Fifo::default()); // ns-2's reset() samples the empty queue at t = 0
        pi
    }

    fn enqueue(&mut self, pkt: PacketId, fifo: &mut Fifo, env: &mut QueueEnv) {
        if fifo.occupancy(self.cfg.queue_in_bytes) >= self.limit {
            env.drop(pkt, DropReason::Overflow);
            return;
        }
        let selected = env.selects(self.p, self.cfg.bytes, env.size(pkt), self.cfg.mean_pktsize.0);
        if selected && !env.mark_or_drop(pkt, self.cfg.ecn) {
            return;
        }
        fifo.push(pkt, env.packets, env.now);
    }

    fn update_period(&self) -> Option<Time> {
        Some(self.period)
    }

    /// One controller step on the current queue.
    fn update(&mut self, fifo: &Fifo) {
        let q = fifo.occupancy(self.cfg.queue_in_bytes);
        let unit = queue_unit(self.cfg.queue_in_bytes, self.cfg.mean_pktsize.0);
        let (a, b, qref) = (self.cfg.a, self.cfg.b, self.cfg.qref);
        let p = a * (q as f64 / unit - qref) - b * (self.q_old as f64 / unit - qref) + self.p;
        self.p = p.clamp(0.0, 1.0);
        self.q_old = q;
    }

    fn state(&self, out: &mut Vec<(&'static str, f64)>) {
        out.extend([("p", self.p), ("q_old", self.q_old as f64)]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::aqm::QueueDisc;
    use crate::aqm::testutil::{assert_rejected, one_bad_field, near_binomial, Harness};
    use crate::aqm::QueueAction;
    use crate::net::Ecn;

    const RATE: u64 = 15_000_000;

    /// Sets the queue to `n` packets of `size` bytes, bypassing the algorithm.
    fn set_queue(q: &mut FifoQueue<Pi>, h: &mut Harness, n: usize, size: u32) {
        while q.fifo.len() > n {
            q.fifo.pop(&h.packets);
        }
        while q.fifo.len() < n {
            let id = h.packet(size, Ecn::NotEct);
            q.fifo.push(id, &mut h.packets, h.now);
        }
    }

    /// Runs the timer that is due and checks it re-arms one period later.
    fn tick(q: &mut FifoQueue<Pi>, h: &mut Harness) -> f64 {
        let next = q.on_timer(&mut h.env()).unwrap();
        assert_eq!(next, h.now + q.aqm.period);
        h.now = next;
        q.aqm.p
    }

    /// Offers `n` packets of `size` bytes (each leaves again if stored); returns (dropped, marked).
    fn offer(q: &mut FifoQueue<Pi>, h: &mut Harness, n: usize, size: u32, ecn: Ecn) -> (usize, usize) {
        let (mut dropped, mut marked) = (0, 0);
        for _ in 0..n {
            match h.arrive(q, size, ecn) {
                Some(QueueAction::Dropped(..)) => dropped += 1,
                Some(QueueAction::Marked(_)) => {
                    marked += 1;
                    h.depart(q);
                }
                None => {
                    h.depart(q);
                }
            }
        }
        (dropped, marked)
    }

    #[test]
    fn p_follows_the_update_equation_every_sample() {
        let mut h = Harness::new(RATE, 0);
        let mut q = FifoQueue::new(Pi::new(Config::default(), h.link));
        let (a, b, qref) = (0.00001822, 0.00001816, 50.0);
        assert_eq!(q.aqm.p, 0.0); // the t = 0 sample: a·(0 − 50) − b·(0 − 50) < 0, clipped
        assert_eq!(q.first_timer(), Some(secs(1.0 / 170.0)));
        h.now = q.first_timer().unwrap();
        let (mut p, mut q_old) = (0.0f64, 0.0);
        for n in [0, 80, 120, 120, 10, 0, 0, 0] {
            set_queue(&mut q, &mut h, n, 1000);
            p = (a * (n as f64 - qref) - b * (q_old - qref) + p).clamp(0.0, 1.0);
            q_old = n as f64;
            assert_eq!(tick(&mut q, &mut h), p, "sample with q = {n}");
        }
        assert_eq!(p, 0.0); // the empty-queue samples drive p back to the lower clip
                            // The upper clip with large gains.
        let mut q = FifoQueue::new(Pi::new(Config { a: 0.01, b: 0.005, ..Default::default() }, h.link));
        set_queue(&mut q, &mut h, 200, 1000);
        assert_eq!(tick(&mut q, &mut h), 1.0); // 0.01·150 + 0.005·50 = 1.75
        set_queue(&mut q, &mut h, 0, 1000);
        assert_eq!(tick(&mut q, &mut h), (0.01f64 * -50.0 - 0.005 * 150.0 + 1.0).clamp(0.0, 1.0));
    }

    #[test]
    fn queue_in_bytes_measures_in_mean_size_packets() {
        let mut h = Harness::new(RATE, 0);
        let mut q = FifoQueue::new(Pi::new(Config { queue_in_bytes: true, limit: 200, ..Default::default() }, h.link));
        let (a, b) = (0.00001822, 0.00001816);
        set_queue(&mut q, &mut h, 30, 1500); // 45 000 B = 90 mean-size packets
        let p1 = a * (90.0 - 50.0) - b * (0.0 - 50.0);
        assert_eq!(tick(&mut q, &mut h), p1);
        assert_eq!(q.aqm.q_old, 45_000);
        set_queue(&mut q, &mut h, 20, 1500); // 60 packets
        assert_eq!(tick(&mut q, &mut h), a * (60.0 - 50.0) - b * (90.0 - 50.0) + p1);
    }

    #[test]
    fn overflow_is_tested_before_the_decision() {
        let mut h = Harness::new(RATE, 0);
        let mut q = FifoQueue::new(Pi::new(Config { limit: 3, ..Default::default() }, h.link));
        for _ in 0..3 {
            assert!(h.arrive(&mut q, 1000, Ecn::NotEct).is_none());
        }
        q.aqm.p = 1.0; // even with p = 1 a full buffer is an overflow, not an early drop
        assert_eq!(h.arrival_dropped(&mut q, 1000, Ecn::Ect0), Some(DropReason::Overflow));
        assert_eq!(q.len_packets(), 3);
        // Bytes: 2 × 500 = 1000 B; accepted while fewer bytes wait.
        let mut q = FifoQueue::new(Pi::new(Config { limit: 2, queue_in_bytes: true, ..Default::default() }, h.link));
        assert!(h.arrive(&mut q, 600, Ecn::NotEct).is_none());
        assert!(h.arrive(&mut q, 600, Ecn::NotEct).is_none());
        assert_eq!(h.arrival_dropped(&mut q, 40, Ecn::NotEct), Some(DropReason::Overflow));
    }

    #[test]
    fn decision_on_every_arrival_even_into_an_empty_queue() {
        let mut h = Harness::new(RATE, 0);
        let mut q = FifoQueue::new(Pi::new(Config::default(), h.link));
        q.aqm.p = 1.0;
        assert_eq!(h.arrival_dropped(&mut q, 1000, Ecn::Ect0), Some(DropReason::Early));
        let mut q = FifoQueue::new(Pi::new(Config { ecn: true, ..Default::default() }, h.link));
        q.aqm.p = 1.0;
        assert!(matches!(h.arrive(&mut q, 1000, Ecn::Ect0), Some(QueueAction::Marked(_))));
        assert_eq!(q.len_packets(), 1);
        assert_eq!(h.arrival_dropped(&mut q, 40, Ecn::NotEct), Some(DropReason::NotEct));
        assert_eq!(q.len_packets(), 1);
    }

    #[test]
    fn ecn_never_early_drops_ect() {
        let mut h = Harness::new(RATE, 0);
        let mut q = FifoQueue::new(Pi::new(Config { ecn: true, ..Default::default() }, h.link));
        q.aqm.p = 0.3;
        let n = 20_000;
        let (dropped, marked) = offer(&mut q, &mut h, n, 1000, Ecn::Ect0);
        assert_eq!(dropped, 0);
        assert!(near_binomial(marked, n, 0.3), "{marked} marks");
        let (dropped, marked) = offer(&mut q, &mut h, n, 40, Ecn::NotEct);
        assert_eq!(marked, 0);
        assert!(near_binomial(dropped, n, 0.3), "{dropped} drops");
    }

    #[test]
    fn byte_mode_scales_probability_by_size_even_at_one() {
        let mut h = Harness::new(RATE, 0);
        let mut q = FifoQueue::new(Pi::new(Config { bytes: true, ..Default::default() }, h.link));
        let n = 50_000;
        for (p, size, want) in [(0.25, 40, 0.25 * 40.0 / 500.0), (0.25, 1500, 0.75), (1.0, 40, 40.0 / 500.0)]
        {
            q.aqm.p = p;
            let (dropped, _) = offer(&mut q, &mut h, n, size, Ecn::NotEct);
            assert!(near_binomial(dropped, n, want), "p {p}, {size} B: {dropped} drops, want {}", n as f64 * want);
        }
    }

    #[test]
    fn validate_rejects_nonsense() {
        assert_rejected(one_bad_field![
            limit: 0, mean_pktsize: Bytes(0), a: -1.0, b: f64::INFINITY, w: 0.0, qref: -5.0,
        ]);
    }
}
