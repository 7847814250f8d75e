//! BLUE (Feng, Kandlur, Saha, Shin; UM CSE-TR-387-99, 1999; IEEE/ACM ToN 10(4), 2002), as the widely
//! circulated ns-2 port `Queue/Blue` behaves (Feng's ns-1.1 code ported to ns-2.1b8 by S. Thulasidasan,
//! LANL; docs/aqm.md#blue-paper-and-port).
//!
//! One marking probability `p_m` applies to every arriving packet:
//! - **Arrival:** draw `u`; if `u <= p_m` the packet is marked when `ecn` is on and it is ECN-capable,
//!   otherwise dropped (`Early`; `NotEct` when `ecn` is on). A marked packet continues. It is then
//!   enqueued, and if the queue now holds `limit` or more waiting packets the arrival is dropped
//!   (`Overflow`) and `p_m += increment`, at most once per `ihold` (strictly more than `ihold` since the
//!   last increase). So at most `limit - 1` packets wait (docs/aqm.md#buffer-overflow). As in the port, a
//!   packet marked by the early test can still be lost to overflow (it then counts as a mark and an
//!   overflow drop).
//! - **Link idle** (`dequeue` finds the queue empty): `p_m -= decrement`, at most once per `dhold`.
//!
//! `p_m` stays in [0, 1]; both hold timers start at time 0, as the port's `reset()` sets them. The
//! port's variant switches (`ialgorithm`, `dalgorithm`) and its unused `bytes` flag are not reproduced:
//! packet mode, plain additive steps only.
//!
//! Defaults: increment 0.0025, decrement 0.00025, hold times 100 ms (the port's example script, also
//! ns-3's BLUE defaults), limit 50 packets (ns-2 `Queue set limit_ 50`), ECN off (`setbit false`).

use super::fifo::{Fifo, FifoAqm, FifoQueue};
use super::{Buffer, DropReason, LinkInfo, QueueEnv};
use crate::net::PacketId;
use crate::scenario::units::Seconds;
use crate::sim::time::secs;
use crate::sim::Time;

aqm_config! {
    #[discipline(FifoQueue<Blue>)]
    #[buffer(|c| Buffer::Packets(c.limit as u64))]
    pub struct Config {
        /// Buffer size in packets (ns-2 `limit_`, 50); at most `limit - 1` packets wait.
        #[default(50)]
        #[check(at_least_one)]
        pub limit: u32,
        /// Added to `p_m` on a buffer overflow (d1, 0.0025).
        #[default(0.0025)]
        #[check(probability)]
        pub increment: f64,
        /// Subtracted from `p_m` when the link goes idle (d2, 0.00025).
        #[default(0.00025)]
        #[check(probability)]
        pub decrement: f64,
        /// Minimum time between two increases, seconds (`ihold-time`, 0.1).
        #[default(Seconds(0.1))]
        #[check(nonnegative_secs)]
        pub ihold: Seconds,
        /// Minimum time between two decreases, seconds (`dhold-time`, 0.1).
        #[default(Seconds(0.1))]
        #[check(nonnegative_secs)]
        pub dhold: Seconds,
        /// Mark ECN-capable packets instead of dropping them (`setbit`).
        pub ecn: bool,
    }
}

pub struct Blue {
    cfg: Config,
    ihold: Time,
    dhold: Time,
    p_m: f64,
    last_increase: Time,
    last_decrease: Time,
}

impl Blue {
    fn increase(&mut self, now: Time) {
        if now - self.last_increase > self.ihold {
            self.last_increase = now;
            self.p_m = (self.p_m + self.cfg.increment).min(1.0);
        }
    }

    fn decrease(&mut self, now: Time) {
        if now - self.last_decrease > self.dhold {
            self.last_decrease = now;
            self.p_m = (self.p_m - self.cfg.decrement).max(0.0);
        }
    }
}

impl FifoAqm for Blue {
    type Config = Config;

    fn new(cfg: Config, _link: LinkInfo) -> Self {
        Blue {
            ihold: secs(cfg.ihold.0),
            dhold: secs(cfg.dhold.0),
            cfg,
            p_m: 0.0,
            last_increase: 0,
            last_decrease: 0,
        }
    }

    fn enqueue(&mut self, pkt: PacketId, fifo: &mut Fifo, env: &mut QueueEnv) {
        if env.uniform() <= self.p_m && !env.mark_or_drop(pkt, self.cfg.ecn) {
            return;
        }
        fifo.push(pkt, env.packets, env.now);
        if fifo.len() >= self.cfg.limit as usize {
            self.increase(env.now);
            let victim = fifo.pop_tail(env.packets).expect("just pushed");
            env.drop(victim, DropReason::Overflow);
        }
    }

    fn dequeue(&mut self, fifo: &mut Fifo, env: &mut QueueEnv) -> Option<PacketId> {
        let pkt = fifo.pop(env.packets);
        if pkt.is_none() {
            self.decrease(env.now);
        }
        pkt
    }

    fn state(&self, out: &mut Vec<(&'static str, f64)>) {
        out.extend([("p_m", self.p_m)]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::aqm::QueueDisc;
    use crate::aqm::testutil::{assert_rejected, one_bad_field, on_10_mbps, Harness};
    use crate::aqm::QueueAction;
    use crate::net::Ecn;
    use crate::sim::time::NS_PER_MS;

    fn blue(cfg: Config) -> (Harness, FifoQueue<Blue>) {
        on_10_mbps(cfg)
    }

    #[test]
    fn overflow_raises_p_m_at_most_once_per_ihold() {
        // ECT arrivals with ECN on: the early test can only mark, so every arrival reaches the overflow test.
        let (mut h, mut q) = blue(Config { limit: 3, ecn: true, ..Default::default() });
        h.arrive(&mut q, 500, Ecn::Ect0);
        h.arrive(&mut q, 500, Ecn::Ect0);
        assert_eq!(q.len_packets(), 2);
        let mut expected = 0.0;
        // (time in ms, whether now - last_increase > 100 ms)
        for (t_ms, raises) in [(50, false), (150, true), (200, false), (250, false), (251, true), (400, true)]
        {
            h.now = t_ms * NS_PER_MS;
            let id = h.packets.capacity_used() as PacketId;
            h.arrive(&mut q, 500, Ecn::Ect0);
            assert!(h.actions.contains(&QueueAction::Dropped(id, DropReason::Overflow)), "t = {t_ms} ms");
            if raises {
                expected += 0.0025;
            }
            assert!((q.aqm.p_m - expected).abs() < 1e-12, "t = {t_ms} ms: p_m {} != {expected}", q.aqm.p_m);
        }
        assert_eq!(q.len_packets(), 2, "at most limit - 1 wait");
    }

    #[test]
    fn idle_link_lowers_p_m_at_most_once_per_dhold_and_stops_at_zero() {
        let (mut h, mut q) = blue(Config::default());
        q.aqm.p_m = 0.01;
        let mut expected = 0.01;
        for (t_ms, lowers) in [(50, false), (110, true), (200, false), (211, true), (400, true)] {
            h.now = t_ms * NS_PER_MS;
            assert_eq!(h.depart(&mut q), None);
            if lowers {
                expected -= 0.00025;
            }
            assert!((q.aqm.p_m - expected).abs() < 1e-12, "t = {t_ms} ms");
        }
        // A departure that finds a packet is not an idle event.
        h.arrive(&mut q, 500, Ecn::NotEct);
        h.now = 1000 * NS_PER_MS;
        assert!(h.depart(&mut q).is_some());
        assert!((q.aqm.p_m - expected).abs() < 1e-12);
        q.aqm.p_m = 0.0001;
        assert_eq!(h.depart(&mut q), None);
        assert_eq!(q.aqm.p_m, 0.0);
    }

    #[test]
    fn early_test_drops_or_marks_every_arrival_when_p_m_is_one() {
        let (mut h, mut q) = blue(Config::default());
        q.aqm.p_m = 1.0;
        assert_eq!(h.arrival_dropped(&mut q, 500, Ecn::Ect0), Some(DropReason::Early));
        assert_eq!(q.len_packets(), 0);

        let (mut h, mut q) = blue(Config { ecn: true, ..Default::default() });
        q.aqm.p_m = 1.0;
        assert!(matches!(h.arrive(&mut q, 500, Ecn::Ect0), Some(QueueAction::Marked(_))));
        assert_eq!(q.len_packets(), 1, "a marked packet is queued");
        assert_eq!(h.arrival_dropped(&mut q, 40, Ecn::NotEct), Some(DropReason::NotEct));
        assert_eq!(q.len_packets(), 1);
    }

    #[test]
    fn no_early_action_when_p_m_is_zero() {
        let (mut h, mut q) = blue(Config { limit: 5, ..Default::default() });
        let verdicts: Vec<_> = (0..5).map(|_| h.arrive(&mut q, 500, Ecn::NotEct)).collect();
        assert!(verdicts[..4].iter().all(|v| v.is_none()));
        assert!(matches!(verdicts[4], Some(QueueAction::Dropped(4, DropReason::Overflow))));
        assert_eq!(h.depart(&mut q), Some(0));
    }

    #[test]
    fn validate_rejects_nonsense() {
        assert_rejected(one_bad_field![
            limit: 0, increment: 2.0, decrement: -0.1, ihold: Seconds(-1.0), dhold: Seconds(f64::NAN),
        ]);
    }
}
