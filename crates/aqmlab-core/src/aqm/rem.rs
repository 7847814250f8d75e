//! REM — Random Exponential Marking (Athuraliya, Li, Low & Yin, "REM: Active Queue Management",
//! IEEE Network 15(3), 2001), as ns-2.35's `Queue/REM` implements it (docs/aqm.md#rem).
//!
//! ns-2 behaviours reproduced:
//! - Price update every `pupdtime` seconds on a timer (`run_updaterule`, first at t = pupdtime):
//!   `in_avg ← (1−inw)·in_avg + inw·in`, `price ← max(0, price + γ·(in_avg + α·(q − qref) − c))`,
//!   `prob = 1 − φ^(−price)`, where `in` counts **every** arrival of the period, including those then
//!   dropped, and `q` is the queue at the update.
//! - The capacity per period `c = pupdtime · bw / (8 · mean_pktsize)` uses `mean_pktsize` (1000 B) even
//!   in packet mode, so with 1500-byte packets the link looks 1.5× faster than it is.
//! - ns-2 hard-codes α = 0.1; here it is the parameter `alpha` (default 0.1).
//! - Byte mode (`queue_in_bytes`, ns-2 `qib_`): arrivals counted in bytes and converted with
//!   `/mean_pktsize`, queue and limit in bytes, probability scaled by `size / mean_pktsize`.
//! - Drop mode (default): enqueue, then drop the arrival if `q_after ≥ limit` (overflow), else drop it
//!   early with probability `prob`.
//! - Mark mode (`ecn`, ns-2 `markpkts_`): no early test at arrival; each departing packet is marked with
//!   probability `prob` if it is ECT. Non-ECT packets are never early-dropped (nor marked).

use super::fifo::{Fifo, FifoAqm, FifoQueue};
use super::{Buffer, DropReason, LinkInfo, QueueEnv, buffer_limit, queue_unit};
use crate::net::PacketId;
use crate::scenario::units::{Bytes, Seconds};
use crate::sim::time::secs;
use crate::sim::Time;

aqm_config! {
    #[discipline(FifoQueue<Rem>)]
    #[buffer(|c| Buffer::ns2(c.limit, c.queue_in_bytes, c.mean_pktsize.0))]
    pub struct Config {
        /// Buffer in packets (ns-2 `limit_`, 50); `limit · mean_pktsize` bytes in byte mode.
        #[default(50)]
        #[check(ns2_limit)]
        pub limit: u32,
        /// Byte mode: arrivals, queue and limit in bytes, probability scaled by size (ns-2 `qib_`, false).
        #[serde(alias = "qib")]
        pub queue_in_bytes: bool,
        /// Bytes per packet for the capacity and the conversions (ns-2 `mean_pktsize_`, 1000).
        #[default(Bytes(1000))]
        #[check(size)]
        pub mean_pktsize: Bytes,
        /// Price step size γ (ns-2 `gamma_`, 0.001).
        #[default(0.001)]
        #[check(nonnegative)]
        pub gamma: f64,
        /// Base φ of the marking probability (ns-2 `phi_`, 1.001).
        #[default(1.001)]
        #[check(|c| c.phi.is_finite() && c.phi > 1.0, "a base > 1")]
        pub phi: f64,
        /// Target backlog b* in packets (ns-2 `pbo_`, 20).
        #[serde(alias = "pbo")]
        #[default(20.0)]
        #[check(nonnegative)]
        pub qref: f64,
        /// Price update period in seconds (ns-2 `pupdtime_`, 0.002).
        #[default(Seconds(0.002))]
        #[check(
            |c| c.pupdtime.0.is_finite() && c.pupdtime.0 >= 1e-9,
            "an update period of at least 1 ns, in seconds"
        )]
        pub pupdtime: Seconds,
        /// EWMA weight of the input-rate estimate; 1 = no smoothing (ns-2 `inw_`, 1).
        #[default(1.0)]
        #[check(fraction)]
        pub inw: f64,
        /// Weight α of the backlog term (hard-coded 0.1 in ns-2).
        #[default(0.1)]
        #[check(nonnegative)]
        pub alpha: f64,
        /// Mark ECT packets at dequeue instead of dropping at arrival (ns-2 `markpkts_`, false).
        #[serde(alias = "markpkts")]
        pub ecn: bool,
    }
}

pub struct Rem {
    cfg: Config,
    limit: u64,
    period: Time,
    /// Mean-size packets the link can send per update period.
    capacity: f64,
    /// Size of the queue's unit in bytes: `mean_pktsize` in byte mode, else 1 packet.
    unit: f64,
    /// Arrivals since the last update, in the queue's unit (ns-2 `v_count`).
    arrivals: f64,
    in_avg: f64,
    price: f64,
    prob: f64,
}

impl Rem {
    /// True with the (byte-scaled) marking probability for a packet of `size` bytes.
    fn selected(&self, size: u32, env: &mut QueueEnv) -> bool {
        env.selects(self.prob, self.cfg.queue_in_bytes, size, self.cfg.mean_pktsize.0)
    }
}

impl FifoAqm for Rem {
    type Config = Config;

    fn new(cfg: Config, link: LinkInfo) -> Self {
        Rem {
            limit: buffer_limit(cfg.limit, cfg.queue_in_bytes, cfg.mean_pktsize.0),
            period: secs(cfg.pupdtime.0),
            capacity: cfg.pupdtime.0 * link.packets_per_sec(cfg.mean_pktsize.0 as f64),
            unit: queue_unit(cfg.queue_in_bytes, cfg.mean_pktsize.0),
            arrivals: 0.0,
            in_avg: 0.0,
            price: 0.0,
            prob: 0.0,
            cfg,
        }
    }

    fn enqueue(&mut self, pkt: PacketId, fifo: &mut Fifo, env: &mut QueueEnv) {
        let size = env.size(pkt);
        let amount = if self.cfg.queue_in_bytes { size as u64 } else { 1 };
        self.arrivals += amount as f64;
        if fifo.occupancy(self.cfg.queue_in_bytes) + amount >= self.limit {
            env.drop(pkt, DropReason::Overflow);
        } else if !self.cfg.ecn && self.selected(size, env) {
            env.drop(pkt, DropReason::Early);
        } else {
            fifo.push(pkt, env.packets, env.now);
        }
    }

    fn dequeue(&mut self, fifo: &mut Fifo, env: &mut QueueEnv) -> Option<PacketId> {
        let pkt = fifo.pop(env.packets)?;
        if self.cfg.ecn && self.selected(env.size(pkt), env) {
            env.mark_if_capable(pkt);
        }
        Some(pkt)
    }

    fn update_period(&self) -> Option<Time> {
        Some(self.period)
    }

    /// The price update (ns-2 `run_updaterule`).
    fn update(&mut self, fifo: &Fifo) {
        let c = &self.cfg;
        self.in_avg = self.in_avg * (1.0 - c.inw) + c.inw * self.arrivals / self.unit;
        let queued = fifo.occupancy(c.queue_in_bytes) as f64 / self.unit;
        let price = self.price + c.gamma * (self.in_avg + c.alpha * (queued - c.qref) - self.capacity);
        self.price = price.max(0.0);
        self.prob = 1.0 - c.phi.powf(-self.price);
        self.arrivals = 0.0;
    }

    fn state(&self, out: &mut Vec<(&'static str, f64)>) {
        out.extend([("price", self.price), ("p", self.prob), ("in_avg", self.in_avg)]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::aqm::QueueDisc;
    use crate::aqm::testutil::{assert_rejected, one_bad_field, near_binomial, Harness};
    use crate::aqm::QueueAction;
    use crate::net::Ecn;

    /// 8 Mb/s with 1000-byte mean packets: 1000 packets/s, c = 2 packets per 2 ms period.
    const RATE: u64 = 8_000_000;

    /// One update period: `arrive` packets of `size` bytes, then `depart` departures, then the timer.
    fn period(q: &mut FifoQueue<Rem>, h: &mut Harness, arrive: usize, depart: usize, size: u32) {
        h.arrive_n(q, arrive, size, Ecn::NotEct);
        for _ in 0..depart {
            h.depart(q);
        }
        h.now = q.on_timer(&mut h.env()).unwrap();
    }

    #[test]
    fn capacity_uses_mean_pktsize_even_in_packet_mode() {
        let h = Harness::new(100_000_000, 0);
        let q = FifoQueue::new(Rem::new(Config::default(), h.link));
        assert_eq!(q.aqm.capacity, 0.002 * 100e6 / 8000.0); // 25 "packets" per period
        assert_eq!(q.first_timer(), Some(secs(0.002)));
    }

    #[test]
    fn price_follows_the_update_rule() {
        let mut h = Harness::new(RATE, 0);
        let mut q = FifoQueue::new(Rem::new(Config { ecn: true, limit: 1000, ..Default::default() }, h.link));
        h.now = q.first_timer().unwrap();
        let (gamma, alpha, qref, c) = (0.001, 0.1, 20.0, 2.0);
        let mut price = 0.0f64;
        let mut queue = 0.0;
        // (arrivals, departures) per period; mark mode so nothing is dropped early.
        for (arrive, depart) in [
            (10, 0),
            (30, 0),
            (0, 40),
            (5, 0),
            (0, 0),
            (0, 5),
            (0, 0),
            (0, 0),
            (0, 0),
            (0, 0),
            (0, 0),
            (0, 0),
            (0, 0),
        ] {
            period(&mut q, &mut h, arrive, depart, 1500);
            queue += arrive as f64 - depart as f64;
            price = (price + gamma * (arrive as f64 + alpha * (queue - qref) - c)).max(0.0);
            assert_eq!(q.aqm.price, price, "period with {arrive} in, {depart} out");
            assert_eq!(q.aqm.prob, 1.0 - 1.001f64.powf(-price));
        }
        assert_eq!(price, 0.0); // the empty periods drove the price back to zero
        assert_eq!(q.aqm.arrivals, 0.0);
    }

    #[test]
    fn arrivals_count_includes_dropped_packets() {
        let mut h = Harness::new(RATE, 0);
        let mut q = FifoQueue::new(Rem::new(Config { limit: 5, ..Default::default() }, h.link));
        // Price 0: prob 0, so only overflow drops: 4 packets stored (q_after ≥ 5 drops), 6 dropped.
        period(&mut q, &mut h, 10, 0, 1000);
        assert_eq!(q.len_packets(), 4);
        assert_eq!(q.aqm.price, 0.001 * (10.0 + 0.1 * (4.0 - 20.0) - 2.0));
    }

    #[test]
    fn byte_mode_and_input_smoothing() {
        let mut h = Harness::new(RATE, 0);
        let mut q =
            FifoQueue::new(Rem::new(Config { queue_in_bytes: true, inw: 0.5, ecn: true, ..Default::default() }, h.link));
        period(&mut q, &mut h, 10, 0, 1500); // 15 000 B in, 15 000 B = 15 mean-size packets waiting
        let in1 = 0.5 * 15_000.0 / 1000.0;
        let p1 = 0.001 * (in1 + 0.1 * (15.0 - 20.0) - 2.0);
        assert_eq!((q.aqm.in_avg, q.aqm.price), (in1, p1));
        period(&mut q, &mut h, 0, 2, 1500); // nothing in, 12 000 B waiting
        let in2 = in1 * 0.5;
        assert_eq!(q.aqm.in_avg, in2);
        assert_eq!(q.aqm.price, (p1 + 0.001 * (in2 + 0.1 * (12.0 - 20.0) - 2.0)).max(0.0));
    }

    #[test]
    fn overflow_test_after_enqueue_holds_limit_minus_one() {
        let mut h = Harness::new(RATE, 0);
        let mut q = FifoQueue::new(Rem::new(Config { limit: 3, ..Default::default() }, h.link));
        let v: Vec<_> = (0..3).map(|_| h.arrive(&mut q, 1000, Ecn::NotEct)).collect();
        assert_eq!(v[..2], [None, None]);
        assert!(matches!(v[2], Some(QueueAction::Dropped(_, DropReason::Overflow))));
        // Bytes: limit 2 × 1000 = 2000 B; dropped when the bytes after enqueueing reach it.
        let mut q = FifoQueue::new(Rem::new(Config { limit: 2, queue_in_bytes: true, ..Default::default() }, h.link));
        assert!(h.arrive(&mut q, 1000, Ecn::NotEct).is_none());
        assert!(h.arrive(&mut q, 900, Ecn::NotEct).is_none());
        assert_eq!(h.arrival_dropped(&mut q, 100, Ecn::NotEct), Some(DropReason::Overflow));
        assert_eq!(q.len_bytes(), 1900);
    }

    #[test]
    fn drop_mode_drops_arrivals_with_byte_scaled_probability() {
        let mut h = Harness::new(RATE, 0);
        let mut q = FifoQueue::new(Rem::new(Config::default(), h.link));
        q.aqm.prob = 1.0;
        assert_eq!(h.arrival_dropped(&mut q, 40, Ecn::Ect0), Some(DropReason::Early));
        let mut q = FifoQueue::new(Rem::new(Config { queue_in_bytes: true, ..Default::default() }, h.link));
        q.aqm.prob = 0.5;
        let n = 50_000;
        for (size, want) in [(40, 0.5 * 40.0 / 1000.0), (1500, 0.75)] {
            let mut dropped = 0;
            for _ in 0..n {
                if h.arrive(&mut q, size, Ecn::NotEct).is_some() {
                    dropped += 1;
                } else {
                    h.depart(&mut q);
                }
            }
            assert!(near_binomial(dropped, n, want), "{size} B: {dropped} drops");
        }
    }

    #[test]
    fn mark_mode_marks_ect_at_dequeue_and_never_drops_non_ect() {
        let mut h = Harness::new(RATE, 0);
        let mut q = FifoQueue::new(Rem::new(Config { ecn: true, limit: 1000, ..Default::default() }, h.link));
        q.aqm.prob = 0.3;
        let n = 20_000;
        for ecn in [Ecn::Ect0, Ecn::NotEct] {
            let mut marked = 0;
            for _ in 0..n {
                assert!(h.arrive(&mut q, 1000, ecn).is_none(), "no action at arrival");
                let id = h.depart(&mut q).unwrap();
                match h.actions[..] {
                    [] => {}
                    [QueueAction::Marked(m)] if m == id => {
                        marked += 1;
                        assert_eq!(h.packets.get(id).ecn, Ecn::Ce);
                    }
                    _ => panic!("unexpected {:?}", h.actions),
                }
            }
            let want = if ecn == Ecn::Ect0 { 0.3 } else { 0.0 };
            assert!(near_binomial(marked, n, want), "{ecn:?}: {marked} marks");
        }
    }

    #[test]
    fn validate_rejects_nonsense() {
        assert_rejected(one_bad_field![
            limit: 0, mean_pktsize: Bytes(0), gamma: -0.1, phi: 1.0, qref: f64::NAN, pupdtime: Seconds(0.0),
            inw: 0.0, alpha: -1.0,
        ]);
    }
}
