//! FQ-CoDel — FlowQueue-CoDel (Hoeiland-Joergensen, McKenney, Taht, Gettys, Dumazet; RFC 8290), with the
//! Linux `sch_fq_codel` / ns-3 `FqCoDelQueueDisc` choices where the RFC leaves them open
//! (docs/aqm.md#fq-codel-scheduling): the flow-queue scheduler of [`super::flow_queue`] with a CoDel
//! ([`Codel`], shared with `codel.rs`) in each bucket.
//!
//! CoDel drops and marks at dequeue only; a bucket has no limit of its own (Linux: the scheduler's total
//! `limit` and its fattest-bucket drop govern the buffer). CoDel's MAXPACKET guard uses the bucket's own
//! backlog (as ns-3's per-flow CoDel child queues; Linux passes the whole qdisc backlog). `ce_threshold`
//! and `l4s` are each bucket's CoDel's (ns-3 passes `CeThreshold` and `UseL4s` to its child CoDel
//! queues; [`super::l4s`]). Not reproduced: `memory_limit`.
//!
//! Defaults: flows 1024, quantum 1514 B, limit 10240 packets, drop_batch 64, target 5 ms, interval
//! 100 ms, MAXPACKET 1500 B, ECN on (Linux and ns-3 defaults).

use super::codel::{self, Codel};
use crate::scenario::units::{Bytes, Seconds};

fq_config! {
    #[buckets(Codel)]
    // Each bucket's CoDel has no limit of its own.
    #[bucket(|c| codel::Config { limit: u32::MAX })]
    pub struct Config {
        /// CoDel target, seconds (0.005).
        #[default(Seconds(0.005))]
        pub target: Seconds,
        /// CoDel interval, seconds (0.1).
        #[default(Seconds(0.1))]
        pub interval: Seconds,
        /// CoDel MAXPACKET, bytes (1500).
        #[default(Bytes(1500))]
        pub mtu: Bytes,
        /// Mark ECN-capable packets instead of dropping them (on).
        #[default(true)]
        pub ecn: bool,
        /// Each bucket's CoDel `ce_threshold` (ns-3 `CeThreshold`; absent: off).
        pub ce_threshold: Option<Seconds>,
        /// Each bucket's CoDel L4S mode (ns-3 `UseL4s`; needs `ce_threshold`).
        pub l4s: bool,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::aqm::flow_queue::testutil::{arrive, arrive_n, assert_byte_shares_stay_even, fq, next_flow, A, B, C};
    use crate::aqm::flow_queue::{mix32, List};
    use crate::aqm::testutil::{assert_rejected, one_bad_field, MS};
    use crate::aqm::{DropReason, QueueAction, QueueDisc};
    use crate::net::{Ecn, PacketId};


    #[test]
    fn hashing_is_fixed_and_spreads_flows() {
        let (_, q) = fq(Config::default());
        assert_eq!(mix32(0), 0);
        assert_eq!(q.bucket(A), q.bucket(A));
        let mut used = std::collections::HashSet::new();
        for f in 0..1024 {
            used.insert(q.bucket(f));
        }
        // 1024 flows into 1024 buckets: about 1 - 1/e of the buckets are hit.
        assert!(used.len() > 600 && used.len() < 700, "{}", used.len());
    }

    #[test]
    fn drr_gives_equal_byte_shares_to_1500_and_500_byte_flows() {
        let (mut h, mut q) = fq(Config::default());
        arrive_n(&mut h, &mut q, 1000, A, 1500, Ecn::NotEct);
        arrive_n(&mut h, &mut q, 3000, B, 500, Ecn::NotEct);
        // Quantum 1514: A sends 1500 (deficit 14), 1500 (-1486), then B four times
        // (1014, 514, 14, -486); from then on each round is one A packet and three B packets.
        let first: Vec<u32> = (0..15).map(|_| next_flow(&mut h, &mut q)).collect();
        assert_eq!(first, [A, A, B, B, B, B, A, B, B, B, A, B, B, B, A]);
        assert_byte_shares_stay_even(&mut h, &mut q, 2500, (5 * 1500, 10 * 500));
        assert!(h.actions.is_empty(), "no sojourn, no CoDel action");
        assert_eq!(q.len_packets(), 4000 - 2515);
    }

    #[test]
    fn a_new_sparse_flow_is_served_before_backlogged_flows() {
        let (mut h, mut q) = fq(Config::default());
        arrive_n(&mut h, &mut q, 10, A, 1500, Ecn::NotEct);
        for _ in 0..3 {
            h.depart(&mut q);
        }
        assert_eq!((q.new_flows.len(), q.old_flows.len()), (0, 1), "A has used its first quantum");
        let (c, _) = arrive(&mut h, &mut q, C, 100, Ecn::NotEct);
        assert_eq!(h.depart(&mut q), Some(c));
        assert_eq!(next_flow(&mut h, &mut q), A);
        // C emptied: moved through old_flows, then removed.
        assert_eq!((q.new_flows.len(), q.old_flows.len()), (0, 1));
        assert!(q.buckets[q.bucket(C)].list == List::Idle);
    }

    #[test]
    fn overflow_drops_half_the_fattest_flow_from_its_head() {
        let (mut h, mut q) = fq(Config { limit: 10, ..Default::default() });
        let a: Vec<PacketId> = (0..6).map(|_| arrive(&mut h, &mut q, A, 1500, Ecn::NotEct).0).collect();
        arrive_n(&mut h, &mut q, 4, B, 500, Ecn::NotEct);
        assert!(h.actions.is_empty());
        // The 11th packet (B's) overflows; A holds 9000 B: drop 1500, 3000, 4500 >= 9000 / 2, stop.
        let (last, _) = arrive(&mut h, &mut q, B, 500, Ecn::NotEct);
        let expected: Vec<_> =
            a[..3].iter().map(|p| QueueAction::Dropped(*p, DropReason::Overflow)).collect();
        assert_eq!(h.actions, expected);
        assert_eq!(q.len_packets(), 8);
        assert_eq!(q.len_bytes(), 3 * 1500 + 5 * 500);
        assert_eq!(q.buckets[q.bucket(B)].fifo.len(), 5, "the arrival {last} is kept");
    }

    #[test]
    fn overflow_batch_is_capped_by_drop_batch() {
        let (mut h, mut q) = fq(Config { limit: 10, drop_batch: 2, ..Default::default() });
        arrive_n(&mut h, &mut q, 10, A, 1500, Ecn::NotEct);
        arrive(&mut h, &mut q, B, 500, Ecn::NotEct);
        assert_eq!(h.actions.len(), 2);
        assert_eq!(q.len_packets(), 9);
    }

    #[test]
    fn per_flow_codel_marks_ect_packets_by_default() {
        let (mut h, mut q) = fq(Config::default());
        arrive_n(&mut h, &mut q, 400, A, 1500, Ecn::Ect0);
        let mut marks = Vec::new();
        for t in 1..300 {
            h.now = t * MS;
            let p = h.depart(&mut q).unwrap();
            marks.extend(h.actions.iter().map(|a| (t, *a, p)));
        }
        // Same schedule as a lone CoDel queue (see codel.rs): 105, 205, 275.7 -> 276 ms.
        let times: Vec<u64> = marks.iter().map(|m| m.0).collect();
        assert_eq!(times, vec![105, 205, 276]);
        assert!(marks.iter().all(|(_, a, p)| *a == QueueAction::Marked(*p)));
        assert_eq!(q.len_packets(), 400 - 299);
    }

    #[test]
    fn l4s_marks_an_ect1_flow_above_ce_threshold_beside_a_classic_flow() {
        // A ECT(1) and B not ECN-capable, 300 packets each at t = 0, one departure per ms. ns-3 gives
        // each bucket's CoDel `CeThreshold` and `UseL4s`: A is marked past 1 ms and never dropped, B
        // follows the control law (dropped as not ECN-capable; ECN is on by default).
        let cfg = Config { ce_threshold: Some(Seconds(0.001)), l4s: true, ..Default::default() };
        let (mut h, mut q) = fq(cfg.clone());
        for _ in 0..300 {
            arrive(&mut h, &mut q, A, 1500, Ecn::Ect1);
            arrive(&mut h, &mut q, B, 1500, Ecn::NotEct);
        }
        let (mut marked, mut dropped, mut sent_a) = (0, Vec::new(), 0);
        for t in 1..400 {
            h.now = t * MS;
            let p = h.depart(&mut q).unwrap();
            sent_a += (h.packets.get(p).flow == A) as usize;
            for a in &h.actions {
                match *a {
                    QueueAction::Marked(m) => {
                        assert_eq!((m, h.packets.get(m).flow), (p, A), "only A's sent packet");
                        marked += 1;
                    }
                    QueueAction::Dropped(d, why) => {
                        assert_eq!((h.packets.get(d).flow, why), (B, DropReason::NotEct));
                        dropped.push(t);
                    }
                }
            }
        }
        assert_eq!(marked, sent_a - 1, "every A packet but the first (sent at 1 ms) waited over 1 ms");
        // B departs every other ms (2, 4, 6, ...): its sojourn passes 5 ms at 6 ms, first drop 100 ms later.
        assert_eq!(dropped[0], 106, "B's CoDel runs its control law");
        // B's packets in ECT(0) are marked by the control law only, not by the threshold.
        let (mut h, mut q) = fq(cfg);
        arrive_n(&mut h, &mut q, 300, B, 1500, Ecn::Ect0);
        let marks: Vec<u64> = (1..300)
            .filter(|&t| {
                h.now = t * MS;
                h.depart(&mut q);
                !h.actions.is_empty()
            })
            .collect();
        assert_eq!(marks, [105, 205, 276]);
    }

    #[test]
    fn validate_rejects_nonsense() {
        assert_rejected(one_bad_field![
            flows: 0, quantum: Bytes(0), limit: 0, drop_batch: 0, target: Seconds(-0.005), mtu: Bytes(0),
            ce_threshold: Some(Seconds(f64::NAN)),
        ]);
        assert_rejected([
            ("ce_threshold", Config { l4s: true, ..Default::default() }),
        ]);
    }
}
