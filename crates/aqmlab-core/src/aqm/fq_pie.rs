//! FQ-PIE — FlowQueue-PIE (Ramakrishnan, Bhasi, Saicharan, Monis, Patil, Tahiliani; Linux `sch_fq_pie`,
//! ns-3 `FqPieQueueDisc`; docs/aqm.md#fq_pie): the flow-queue scheduler of [`super::flow_queue`] with a
//! PIE ([`Pie`], shared with `pie.rs`) in each bucket.
//!
//! Each bucket's PIE decides at enqueue from its own drop probability, delay estimate, burst allowance
//! and backlog, and measures its own delay at dequeue (timestamps by default); one timer updates every
//! bucket's probability each `t_update` (Linux; ns-3 gives each bucket's PIE its own timer, started
//! when the bucket receives its first packet). A bucket's PIE has the scheduler's total `limit` as its
//! own buffer (ns-3 gives each child `MaxSize`), so only a bucket holding the whole buffer tail-drops;
//! otherwise an overflow drops from the fattest bucket, as FQ-CoDel (ns-3 `FqPieDrop`; Linux drops the
//! arrival once `limit` packets wait). `ce_threshold` and `l4s` are each bucket's PIE's (ns-3 passes
//! `CeThreshold` and `UseL4s` to its children; [`super::l4s`]).
//!
//! Defaults are Linux's: flows 1024, limit 10240 packets, quantum 1514 B, qdelay_ref (`target`) 15 ms,
//! t_update (`tupdate`) 15 ms, alpha 0.125, beta 1.25, max_burst 150 ms, mark_ecnth 0.1 (`ecn_prob`
//! 10 %), ECN off, timestamps (no dequeue-rate estimator), derandomisation on (Linux's PIE always
//! accumulates), plus ns-3's drop_batch 64. ns-3 differs in ECN (on) and derandomisation (off).
//! Packet mode only (Linux's `bytemode` and `memory_limit` are not reproduced).

use super::pie::{self, Pie};
use crate::scenario::units::{Bytes, Seconds};

fq_config! {
    #[buckets(Pie)]
    // Each bucket's PIE, in packet mode, has the whole buffer as its limit.
    #[bucket(|c| pie::Config { limit: c.limit, ..pie::Config::default() })]
    pub struct Config {
        /// Each bucket's target queueing delay, seconds (0.015).
        #[serde(alias = "target")]
        #[default(Seconds(0.015))]
        pub qdelay_ref: Seconds,
        /// Period of the drop-probability update, seconds (0.015).
        #[serde(alias = "tupdate")]
        #[default(Seconds(0.015))]
        pub t_update: Seconds,
        /// Integral gain, 1/s (0.125).
        #[default(0.125)]
        pub alpha: f64,
        /// Proportional gain, 1/s (1.25).
        #[default(1.25)]
        pub beta: f64,
        /// Burst allowance, seconds (0.15).
        #[default(Seconds(0.15))]
        pub max_burst: Seconds,
        /// Estimate each bucket's delay from its departure rate instead of timestamps (off).
        pub dq_rate_estimator: bool,
        /// Bytes per departure-rate measurement cycle (16384).
        #[default(Bytes(16384))]
        pub dq_threshold: Bytes,
        /// Mark ECN-capable packets instead of dropping them while the bucket's probability is at most
        /// `mark_ecnth` (off).
        pub ecn: bool,
        /// Drop probability above which ECN-capable packets are dropped, not marked (0.1).
        #[default(0.1)]
        pub mark_ecnth: f64,
        /// Limit the per-update increase to 0.02 once the probability is 0.1 or more (on).
        #[default(true)]
        pub cap_drop_adjustment: bool,
        /// De-randomise drops with the accumulated probability (on, as Linux).
        #[default(true)]
        pub derandomize: bool,
        /// With `l4s`: sojourn above which an L4S packet is CE-marked at dequeue (ns-3 `CeThreshold`).
        pub ce_threshold: Option<Seconds>,
        /// Each bucket's PIE in L4S mode (ns-3 `UseL4s`; needs `ce_threshold`).
        pub l4s: bool,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::aqm::fifo::FifoAqm;
    use crate::aqm::flow_queue::testutil::{arrive, arrive_n, assert_byte_shares_stay_even, fq, next_flow, A, B, C};
    use crate::aqm::flow_queue::FlowQueues;
    use crate::aqm::testutil::{assert_rejected, one_bad_field, MS};
    use crate::aqm::{DropReason, QueueAction, QueueConfig, QueueDisc};
    use crate::net::Ecn;


    /// A value of the PIE state of `flow`'s bucket.
    fn pie_state(q: &FlowQueues<Pie>, flow: u32, key: &str) -> f64 {
        let mut out = Vec::new();
        q.buckets[q.bucket(flow)].aqm.state(&mut out);
        out.into_iter().find(|(k, _)| *k == key).expect("a PIE state value").1
    }

    #[test]
    fn idle_buckets_leave_the_update_list_at_rest_and_rejoin_on_arrival() {
        let (mut h, mut q) = fq(Config::default());
        let state = |q: &FlowQueues<Pie>, flow: u32| {
            let mut out = Vec::new();
            q.buckets[q.bucket(flow)].aqm.state(&mut out);
            out
        };
        assert_eq!(q.restless.len(), 1024);
        // One update brings every unused bucket to PIE's rest point: probability 0, both delays 0, the
        // burst allowance re-armed to 150 ms and one 15-ms period taken off.
        q.on_timer(&mut h.env());
        assert!(q.restless.is_empty());
        assert_eq!(pie_state(&q, C, "burst_allowance"), 0.135);
        // At rest an update changes nothing: skipping it is exact.
        let before = state(&q, C);
        let c = q.bucket(C);
        let b = &mut q.buckets[c];
        b.aqm.update(&b.fifo);
        assert_eq!(state(&q, C), before);
        // An arrival puts its bucket back on the list. A bucket emptied again rests after the next update
        // (its PIE's delay is 0 once its queue empties); one still backlogged stays on the list.
        arrive(&mut h, &mut q, A, 1500, Ecn::NotEct);
        assert_eq!(next_flow(&mut h, &mut q), A);
        arrive(&mut h, &mut q, B, 1500, Ecn::NotEct);
        arrive(&mut h, &mut q, B, 1500, Ecn::NotEct);
        h.now += 5 * MS;
        assert_eq!(next_flow(&mut h, &mut q), B);
        assert_eq!(q.restless, [q.bucket(A), q.bucket(B)]);
        q.on_timer(&mut h.env());
        assert_eq!(q.restless, [q.bucket(B)]);
        assert_eq!(pie_state(&q, B, "qdelay"), 0.005);
    }

    #[test]
    fn a_sparse_flow_overtakes_a_backlogged_one() {
        let (mut h, mut q) = fq(Config::default());
        arrive_n(&mut h, &mut q, 20, A, 1500, Ecn::NotEct);
        // A spends its first quantum on two packets and goes to old_flows; C then arrives as a new flow
        // with one packet queued behind A's 16, and still leaves next.
        let sent: Vec<u32> = (0..4).map(|_| next_flow(&mut h, &mut q)).collect();
        assert_eq!(sent, [A, A, A, A]);
        let (c, _) = arrive(&mut h, &mut q, C, 64, Ecn::NotEct);
        assert_eq!(q.len_packets(), 17);
        assert_eq!(h.depart(&mut q), Some(c));
        assert_eq!(next_flow(&mut h, &mut q), A);
        assert_eq!((q.new_flows.len(), q.old_flows.len()), (0, 1), "C left the lists once empty");
        assert!(h.actions.is_empty(), "within the burst allowance nothing is dropped");
    }

    #[test]
    fn drr_shares_bytes_equally_between_1500_and_300_byte_flows() {
        let (mut h, mut q) = fq(Config::default());
        for _ in 0..400 {
            arrive(&mut h, &mut q, A, 1500, Ecn::NotEct);
            arrive_n(&mut h, &mut q, 5, B, 300, Ecn::NotEct);
        }
        // Quantum 1514 B: A's first round is 1500 + 1500 B (deficit -1486), B's six 300-B packets
        // (1514 - 1800 = -286); each later round A has 28 B, then 42, ... of credit and B 1228, ...
        let first: Vec<u32> = (0..8).map(|_| next_flow(&mut h, &mut q)).collect();
        assert_eq!(first, [A, A, B, B, B, B, B, B]);
        assert_byte_shares_stay_even(&mut h, &mut q, 1500, (3000, 1800));
        assert!(h.actions.is_empty());
    }

    #[test]
    fn each_bucket_runs_its_own_pie() {
        let (mut h, mut q) = fq(Config::default());
        assert_eq!(q.first_timer(), Some(15 * MS));
        arrive_n(&mut h, &mut q, 20, A, 1500, Ecn::NotEct);
        arrive(&mut h, &mut q, B, 1500, Ecn::NotEct);
        h.now = 30 * MS;
        let sent: Vec<u32> = (0..3).map(|_| next_flow(&mut h, &mut q)).collect();
        assert_eq!(sent, [A, A, B]);
        // A's last departure waited 30 ms and A is still backlogged; B's left B empty (qdelay 0).
        assert!((pie_state(&q, A, "qdelay") - 0.030).abs() < 1e-15);
        assert_eq!(pie_state(&q, B, "qdelay"), 0.0);
        assert_eq!(q.on_timer(&mut h.env()), Some(45 * MS));
        // RFC 8033: p = alpha (qdelay - ref) + beta (qdelay - qdelay_old), divided by 2048 at drop_prob 0.
        let p_a = (0.125 * (0.030 - 0.015) + 1.25 * (0.030 - 0.0)) / 2048.0;
        assert!((pie_state(&q, A, "drop_prob") - p_a).abs() < 1e-15);
        assert!((p_a - 0.039375 / 2048.0).abs() < 1e-15);
        // B's p is negative (-0.125 * 0.015 / 2048) and clipped; an unused bucket decays the same way.
        assert_eq!(pie_state(&q, B, "drop_prob"), 0.0);
        assert_eq!(pie_state(&q, C, "drop_prob"), 0.0);
        // A stays backlogged, its head older at each update: its probability keeps rising, while B,
        // sending one packet at a time, stays at 0.
        let mut last = p_a;
        for k in 1..=10 {
            h.now += 15 * MS;
            arrive(&mut h, &mut q, B, 1500, Ecn::NotEct);
            assert_eq!((next_flow(&mut h, &mut q), next_flow(&mut h, &mut q)), (B, A));
            q.on_timer(&mut h.env());
            let p = pie_state(&q, A, "drop_prob");
            assert!(p > last, "update {k}: {p} after {last}");
            last = p;
            assert_eq!(pie_state(&q, B, "drop_prob"), 0.0);
        }
    }

    #[test]
    fn ecn_marks_the_backlogged_flow_up_to_mark_ecnth_then_drops() {
        let (mut h, mut q) = fq(Config { ecn: true, ..Default::default() });
        arrive_n(&mut h, &mut q, 40, A, 1500, Ecn::Ect0);
        // Each ms one A and one B packet arrive and both leave: A's queue stands at 40 packets (40 ms),
        // B's is empty between its packets. An update every 15 ms, until A's probability passes 0.1.
        let (mut marks, mut drops) = (0, 0);
        for t in 1..=3000 {
            h.now = t * MS;
            let before = pie_state(&q, A, "drop_prob");
            for flow in [A, B] {
                let (pkt, action) = arrive(&mut h, &mut q, flow, 1500, Ecn::Ect0);
                match action {
                    None => {}
                    Some(QueueAction::Marked(p)) if before <= 0.1 => {
                        assert_eq!((p, flow), (pkt, A));
                        marks += 1;
                    }
                    Some(QueueAction::Dropped(p, DropReason::Early)) if before > 0.1 => {
                        assert_eq!((p, flow), (pkt, A));
                        drops += 1;
                    }
                    other => panic!("{other:?} at {t} ms, drop_prob {before}"),
                }
            }
            h.depart(&mut q);
            h.depart(&mut q);
            if t % 15 == 0 {
                q.on_timer(&mut h.env());
            }
            if drops > 0 {
                break;
            }
        }
        assert!(marks > 0 && drops == 1, "{marks} marks, {drops} drops");
        assert_eq!(pie_state(&q, B, "drop_prob"), 0.0);
    }

    #[test]
    fn overflow_drops_from_the_fattest_flow_in_bytes() {
        let (mut h, mut q) = fq(Config { limit: 8, ..Default::default() });
        let a: Vec<_> = (0..3).map(|_| arrive(&mut h, &mut q, A, 1500, Ecn::NotEct).0).collect();
        arrive_n(&mut h, &mut q, 5, B, 500, Ecn::NotEct);
        // The 9th packet overflows. A has fewer packets than B but more bytes (4500 against 2500): its
        // head goes, 1500 B, then 3000 B >= 4500 / 2, and the drops stop.
        let (c, _) = arrive(&mut h, &mut q, C, 100, Ecn::NotEct);
        let dropped = a[..2].iter().map(|&p| QueueAction::Dropped(p, DropReason::Overflow));
        assert_eq!(h.actions, dropped.collect::<Vec<_>>());
        assert_eq!((q.len_packets(), q.len_bytes()), (7, 1500 + 5 * 500 + 100));
        assert_eq!(h.depart(&mut q), Some(a[2]), "A was first on new_flows");
        assert_eq!(next_flow(&mut h, &mut q), B);
        assert!(q.buckets[q.bucket(C)].fifo.head() == Some(c));
        // A flow holding the whole buffer meets its own PIE's limit (ns-3's child MaxSize): the arrival
        // is dropped, not the head.
        let (mut h, mut q) = fq(Config { limit: 3, ..Default::default() });
        let held: Vec<_> = (0..3).map(|_| arrive(&mut h, &mut q, A, 1500, Ecn::NotEct)).collect();
        assert!(held.iter().all(|(_, action)| action.is_none()));
        let (late, action) = arrive(&mut h, &mut q, A, 1500, Ecn::NotEct);
        assert_eq!(action, Some(QueueAction::Dropped(late, DropReason::Overflow)));
        assert_eq!(h.depart(&mut q), Some(held[0].0));
    }

    #[test]
    fn l4s_packets_are_marked_above_ce_threshold_in_their_bucket() {
        let cfg = Config { ce_threshold: Some(Seconds(0.001)), l4s: true, ..Default::default() };
        let (mut h, mut q) = fq(cfg);
        let (a, _) = arrive(&mut h, &mut q, A, 1500, Ecn::Ect1);
        let (b, _) = arrive(&mut h, &mut q, B, 1500, Ecn::Ect0);
        h.now = 2 * MS;
        assert_eq!(h.depart(&mut q), Some(a));
        assert_eq!(h.actions, [QueueAction::Marked(a)], "ECT(1) waited 2 ms > 1 ms");
        assert_eq!(h.depart(&mut q), Some(b));
        assert!(h.actions.is_empty(), "ECT(0) is left to the classic law");
        assert_eq!(pie_state(&q, B, "qdelay"), 0.0);
    }

    #[test]
    fn linux_names_parse_and_validate_rejects_nonsense() {
        let cfg: QueueConfig = toml::from_str("kind = \"fq_pie\"\ntarget = \"20ms\"\ntupdate = \"30ms\"").unwrap();
        let QueueConfig::FqPie(cfg) = cfg else { panic!("not FQ-PIE") };
        assert_eq!((cfg.qdelay_ref.0, cfg.t_update.0), (0.020, 0.030));
        assert_rejected(one_bad_field![
            flows: 0, quantum: Bytes(0), limit: 0, drop_batch: 0, qdelay_ref: Seconds(0.0),
            t_update: Seconds(-0.015), alpha: f64::NAN, max_burst: Seconds(-1.0), mark_ecnth: 1.5,
            ce_threshold: Some(Seconds(0.001)),
        ]);
        assert_rejected([
            ("ce_threshold", Config { l4s: true, ..Default::default() }),
        ]);
    }
}
