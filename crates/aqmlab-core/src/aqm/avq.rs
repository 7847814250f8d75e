//! AVQ — Adaptive Virtual Queue (Kunniyur & Srikant, "Analysis and Design of an Adaptive Virtual Queue
//! (AVQ) Algorithm for Active Queue Management", SIGCOMM 2001), as ns-2.35's `Queue/Vq` implements it
//! (docs/aqm.md#avq-virtual-queue).
//!
//! Per arrival of a packet of size b (bytes in byte mode, else 1):
//! - the virtual queue drains at the virtual capacity C̃ since the previous arrival, then takes b:
//!   `VQ ← max(0, VQ − C̃·(now − t_vq)) + b`;
//! - virtual overflow `VQ > buflim · limit` (bytes: `· mean_pktsize`) removes b from the VQ again and
//!   either marks the arrival if it is ECT (mark mode, ns-2 `markpkts_`; a non-ECT packet is left
//!   alone) or drops it (drop mode), in which case this arrival does **not** adapt C̃ and `t_adapt`
//!   is not advanced;
//! - otherwise C̃ adapts as a token bucket: `C̃ ← clip[0, C](C̃ + α·γ·C·(now − t_adapt) − α·b)`;
//! - real overflow `q_after > limit` (bytes: `> limit · mean_pktsize`) drops the arrival.
//!
//! ns-2 behaviours reproduced: byte mode by default with `mean_pktsize` 1000 (so the default buffer is
//! 50 000 B), `C = bw/8` B/s (packet mode `bw/(8·mean_pktsize)` packets/s), `C̃ = ecnlim·C` and both clocks
//! started at the first arrival, α = 0.15 (hard-coded `alpha2` in ns-2, the parameter `alpha` here).
//! Not reproduced: `markfront_` and `drop_front_` (victims other than the arrival). When an arrival both
//! overflows the virtual queue in mark mode and the real buffer, ns-2 sets CE and then drops it; here it
//! is only reported as an overflow drop.

use super::fifo::{Fifo, FifoAqm, FifoQueue};
use super::{Buffer, DropReason, LinkInfo, QueueEnv, buffer_limit};
use crate::net::PacketId;
use crate::scenario::units::Bytes;
use crate::sim::time::to_secs;
use crate::sim::Time;

aqm_config! {
    #[discipline(FifoQueue<Avq>)]
    #[buffer(|c| Buffer::ns2(c.limit, c.queue_in_bytes, c.mean_pktsize.0))]
    pub struct Config {
        /// Buffer in packets (ns-2 `limit_`, 50); `limit · mean_pktsize` bytes in byte mode.
        #[default(50)]
        #[check(ns2_limit)]
        pub limit: u32,
        /// Queues and capacities in bytes (ns-2 `queue_in_bytes_`, true).
        #[default(true)]
        pub queue_in_bytes: bool,
        /// Bytes per packet for the limit and the packet-mode capacity (ns-2 `mean_pktsize_`, 1000).
        #[default(Bytes(1000))]
        #[check(size)]
        pub mean_pktsize: Bytes,
        /// Desired utilisation γ (ns-2 `gamma_`, 0.98).
        #[default(0.98)]
        #[check(fraction)]
        pub gamma: f64,
        /// Adaptation gain α (ns-2 hard-coded `alpha2`, 0.15).
        #[default(0.15)]
        #[check(nonnegative)]
        pub alpha: f64,
        /// Initial virtual capacity as a fraction of the link's (ns-2 `ecnlim_`, 0.8).
        #[default(0.8)]
        #[check(fraction)]
        pub ecnlim: f64,
        /// Virtual buffer as a fraction of the real one (ns-2 `buflim_`, 1.0).
        #[default(1.0)]
        #[check(positive)]
        pub buflim: f64,
        /// Mark ECT arrivals on virtual overflow instead of dropping them (ns-2 `markpkts_`, false).
        #[serde(alias = "markpkts")]
        pub ecn: bool,
    }
}

pub struct Avq {
    cfg: Config,
    /// Real buffer, and virtual buffer `buflim · limit`, in the queue's unit.
    limit: u64,
    vq_limit: f64,
    /// Link capacity C and virtual capacity C̃, in the queue's unit per second.
    capacity: f64,
    virtual_capacity: f64,
    vq: f64,
    /// Last virtual-queue drain and last adaptation; both start at the first arrival.
    t_vq: Time,
    t_adapt: Time,
    started: bool,
}

impl FifoAqm for Avq {
    type Config = Config;

    fn new(cfg: Config, link: LinkInfo) -> Self {
        let limit = buffer_limit(cfg.limit, cfg.queue_in_bytes, cfg.mean_pktsize.0);
        let capacity = if cfg.queue_in_bytes {
            link.rate_bps as f64 / 8.0
        } else {
            link.packets_per_sec(cfg.mean_pktsize.0 as f64)
        };
        Avq {
            limit,
            vq_limit: cfg.buflim * limit as f64,
            capacity,
            virtual_capacity: capacity * cfg.ecnlim,
            vq: 0.0,
            t_vq: 0,
            t_adapt: 0,
            started: false,
            cfg,
        }
    }

    fn enqueue(&mut self, pkt: PacketId, fifo: &mut Fifo, env: &mut QueueEnv) {
        let now = env.now;
        if !std::mem::replace(&mut self.started, true) {
            (self.t_vq, self.t_adapt) = (now, now);
        }
        let amount = if self.cfg.queue_in_bytes { env.size(pkt) as u64 } else { 1 };
        let b = amount as f64;
        let real_overflow = fifo.occupancy(self.cfg.queue_in_bytes) + amount > self.limit;

        self.vq = (self.vq - self.virtual_capacity * to_secs(now - self.t_vq)).max(0.0) + b;
        self.t_vq = now;
        if self.vq > self.vq_limit {
            self.vq = (self.vq - b).max(0.0);
            if !self.cfg.ecn {
                env.drop(pkt, DropReason::Early);
                return;
            }
            if !real_overflow {
                env.mark_if_capable(pkt);
            }
        }

        let (alpha, c) = (self.cfg.alpha, self.capacity);
        let grown =
            self.virtual_capacity + alpha * self.cfg.gamma * c * to_secs(now - self.t_adapt) - alpha * b;
        self.virtual_capacity = grown.clamp(0.0, c);
        self.t_adapt = now;

        if real_overflow {
            env.drop(pkt, DropReason::Overflow);
        } else {
            fifo.push(pkt, env.packets, now);
        }
    }

    fn state(&self, out: &mut Vec<(&'static str, f64)>) {
        out.extend([("virtual_capacity", self.virtual_capacity), ("vq", self.vq)]);
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
    use crate::sim::time::secs;

    /// 8 Mb/s: C = 1e6 B/s in byte mode, 1000 packets/s in packet mode.
    const RATE: u64 = 8_000_000;
    const US: Time = 1000;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() <= 1e-9 * b.abs().max(1.0)
    }

    /// The paper's/ns-2's per-arrival rules, written out for checking: (vq, C̃) after an accepted arrival.
    fn expected(vq: f64, ct: f64, dt_vq: f64, dt_adapt: f64, b: f64, c: f64) -> (f64, f64) {
        let vq = f64::max(0.0, vq - ct * dt_vq) + b;
        let ct = (ct + 0.15 * 0.98 * c * dt_adapt - 0.15 * b).clamp(0.0, c);
        (vq, ct)
    }

    #[test]
    fn virtual_capacity_follows_the_token_bucket() {
        let mut h = Harness::new(RATE, 0);
        let mut q = FifoQueue::new(Avq::new(Config::default(), h.link));
        let c = 1e6;
        assert_eq!((q.aqm.capacity, q.aqm.virtual_capacity, q.aqm.limit), (c, 0.8e6, 50_000));
        let (mut vq, mut ct, mut last) = (0.0, 0.8e6, secs(0.010));
        // (time µs, size); departures in between do not touch the virtual queue.
        for (t, size) in [(10_000, 1000), (11_000, 1500), (11_100, 40), (11_500, 1500), (30_000, 1000)] {
            h.now = t * US;
            assert!(h.arrive(&mut q, size, Ecn::NotEct).is_none());
            h.depart(&mut q);
            let dt = to_secs(h.now - last);
            (vq, ct) = expected(vq, ct, dt, dt, size as f64, c);
            last = h.now;
            assert!(close(q.aqm.vq, vq) && close(q.aqm.virtual_capacity, ct), "t {t} µs: {:?}", state_of(&q));
        }
        // A long quiet spell fills the bucket up to C.
        h.now = secs(10.0);
        h.arrive(&mut q, 1000, Ecn::NotEct);
        assert_eq!(q.aqm.virtual_capacity, c);
    }

    #[test]
    fn virtual_overflow_drops_and_skips_adaptation() {
        let mut h = Harness::new(RATE, 0);
        let mut q = FifoQueue::new(Avq::new(Config { limit: 3, ..Default::default() }, h.link)); // 3000 B both queues
        let c = 1e6;
        h.now = secs(0.001);
        for _ in 0..3 {
            assert!(h.arrive(&mut q, 1000, Ecn::Ect0).is_none());
        }
        let ct = 0.8e6 - 3.0 * 0.15 * 1000.0;
        assert!(close(q.aqm.vq, 3000.0) && close(q.aqm.virtual_capacity, ct));
        // 0.1 ms later the VQ has drained only ~80 B: 3920 B > 3000 B, the arrival is dropped.
        h.now = secs(0.0011);
        assert_eq!(h.arrival_dropped(&mut q, 1000, Ecn::Ect0), Some(DropReason::Early));
        let vq = 3000.0 - ct * 0.0001;
        assert!(close(q.aqm.vq, vq) && close(q.aqm.virtual_capacity, ct));
        assert_eq!(q.len_packets(), 3);
        // The next accepted arrival integrates the adaptation from 1 ms, not from 1.1 ms.
        h.depart(&mut q);
        h.now = secs(0.003);
        assert!(h.arrive(&mut q, 500, Ecn::Ect0).is_none());
        let (vq, ct) = expected(vq, ct, 0.0019, 0.002, 500.0, c);
        assert!(close(q.aqm.vq, vq) && close(q.aqm.virtual_capacity, ct), "{:?} vs {vq} {ct}", state_of(&q));
    }

    #[test]
    fn real_overflow_when_more_than_limit_waits() {
        let mut h = Harness::new(RATE, 0);
        let mut q = FifoQueue::new(Avq::new(Config { limit: 3, buflim: 2.0, ..Default::default() }, h.link));
        for _ in 0..3 {
            assert!(h.arrive(&mut q, 1000, Ecn::NotEct).is_none());
        }
        assert_eq!(h.arrival_dropped(&mut q, 1000, Ecn::NotEct), Some(DropReason::Overflow));
        assert_eq!(q.len_bytes(), 3000);
        // That arrival was not a virtual drop, so it adapted C̃ (and stays in the VQ).
        assert!(close(q.aqm.virtual_capacity, 0.8e6 - 4.0 * 150.0));
        assert!(close(q.aqm.vq, 4000.0));
    }

    #[test]
    fn mark_mode_marks_ect_leaves_non_ect_and_keeps_adapting() {
        let mut h = Harness::new(RATE, 0);
        let mut q = FifoQueue::new(Avq::new(Config { limit: 3, buflim: 0.5, ecn: true, ..Default::default() }, h.link));
        assert!(h.arrive(&mut q, 1000, Ecn::Ect0).is_none()); // VQ 1000 ≤ 1500
        assert!(matches!(h.arrive(&mut q, 1000, Ecn::Ect0), Some(QueueAction::Marked(_))));
        assert!(h.arrive(&mut q, 1000, Ecn::NotEct).is_none()); // selected but not ECT: left alone
        assert!(h.actions.is_empty());
        assert_eq!(q.len_packets(), 3);
        assert!(close(q.aqm.vq, 1000.0));
        assert!(close(q.aqm.virtual_capacity, 0.8e6 - 3.0 * 150.0));
        // Virtual and real overflow at once: only the overflow drop is reported.
        assert_eq!(h.arrival_dropped(&mut q, 1000, Ecn::Ect0), Some(DropReason::Overflow));
        assert_eq!(h.actions.len(), 1);
    }

    #[test]
    fn packet_mode_counts_packets() {
        let mut h = Harness::new(RATE, 0);
        let mut q = FifoQueue::new(Avq::new(Config { queue_in_bytes: false, ..Default::default() }, h.link));
        assert_eq!((q.aqm.capacity, q.aqm.limit, q.aqm.vq_limit), (1000.0, 50, 50.0));
        h.now = secs(0.5);
        h.arrive(&mut q, 1500, Ecn::NotEct);
        h.now = secs(0.502);
        h.arrive(&mut q, 40, Ecn::NotEct);
        let (vq, ct) = expected(1.0, 800.0 - 0.15, 0.002, 0.002, 1.0, 1000.0);
        assert!(close(q.aqm.vq, vq) && close(q.aqm.virtual_capacity, ct));
    }

    #[test]
    fn validate_rejects_nonsense() {
        assert_rejected(one_bad_field![
            limit: 0, mean_pktsize: Bytes(0), gamma: 1.5, alpha: f64::NAN, ecnlim: 0.0, buflim: -1.0,
        ]);
    }
}
