//! Whole-simulation checks of the AQMs against their own targets and equations: PI and PIE hold their
//! reference queue/delay, Adaptive RED keeps its average in its target band, CoDel and COBALT keep the
//! standing sojourn near their target, byte-mode RED selects packets in proportion to their size,
//! PI/REM with ECN never early-drop an ECN-capable packet, DualPI2 holds DCTCP under its step and
//! CUBIC near its target at comparable rates, FQ-PIE holds PIE's target while sharing the link evenly, and
//! FQ-CoDel's L4S mode holds one TCP Prague flow at its step.
//!
//! Every expectation comes from the algorithm's definition (reference queue, target delay, band, size
//! ratio), never from an earlier aqmlab run. Durations are kept short (a few seconds of wall time each
//! in the test profile).

mod common;

use aqmlab_core::metrics::{ClassCounters, LinkRow};
use aqmlab_core::RunResult;
use common::{link, link_table, simulate, LARGE_DROPTAIL};

fn class<'a>(r: &'a RunResult, link: &str, class: &str) -> &'a ClassCounters {
    r.link_classes
        .iter()
        .find(|c| c.link == link && c.class == class)
        .map(|c| &c.counters)
        .unwrap_or_else(|| panic!("no class {class} at {link}"))
}

/// A value of the discipline's end state (`queue_state` reads `name=value name=value ...`).
fn state(row: &LinkRow, key: &str) -> f64 {
    row.queue_state
        .split_whitespace()
        .find_map(|kv| kv.strip_prefix(key).and_then(|v| v.strip_prefix('=')))
        .and_then(|v| v.parse().ok())
        .unwrap_or_else(|| panic!("no `{key}` in queue state `{}`", row.queue_state))
}

/// BENCH-DUMBBELL-style load: `pairs` long-lived NewReno flows with base RTTs spread over 20..200 ms
/// (access delays 0..45 ms), 1500-byte packets, flows starting over the first second. The reverse
/// bottleneck is a large drop-tail queue so only the forward queue is under test.
fn dumbbell(pairs: u32, rate: &str, queue: &str, duration: u32, warmup: u32, tcp: &str) -> String {
    format!(
        r#"
duration = {duration}
[measure]
warmup = {warmup}
sample_links = ["A->B"]
[tcp]
mss = 1460
max_window = 1000
{tcp}
[dumbbell]
pairs = {pairs}
bottleneck_rate = "{rate}"
bottleneck_delay = "10ms"
queue = {queue}
reverse_queue = {{ kind = "droptail", limit = 10000 }}
access_rate = "1Gbps"
access_delay = {{ from = "0ms", to = "45ms" }}
access_queue = {{ kind = "droptail", limit = 10000 }}
[[flows]]
name = "bulk"
kind = "tcp_bulk"
between = "dumbbell"
start = {{ spread = "1s" }}
"#
    )
}

/// Seconds a 1500-byte packet takes on a 100 Mb/s link.
const PKT_TIME_100M: f64 = 1500.0 * 8.0 / 100e6;

/// Mean queueing delay in seconds implied by the time-weighted mean backlog in bytes (Little's law with
/// the link as the server: every waiting byte leaves at the line rate).
fn mean_delay(row: &LinkRow) -> f64 {
    row.q_mean_bytes * 8.0 / row.rate_bps as f64
}

#[test]
fn pi_holds_the_mean_queue_at_qref_under_100_flows() {
    // PI's integral action drives the mean error q − q_ref to zero: summing the update
    // p ← p + a(q − qref) − b(q_old − qref) over K samples gives
    // Σ(q − qref) = (Δp − b·Δq) / (a − b), and Δp ≤ 1 is small, so the long-run mean sits at q_ref.
    // ±25 % covers the transient left in a 40-s window (a − b = 6e-8 makes the integral slow).
    let qref = 150.0;
    let queue = format!("{{ kind = \"pi\", limit = 1000, qref = {qref}, w = 170.0 }}");
    let r = simulate(&dumbbell(100, "100Mbps", &queue, 50, 10, ""));
    let b = link(&r, "A->B");
    let q = b.q_mean_pkts;
    eprintln!(
        "PI: mean queue {q:.1} (q_ref {qref}), sampled {:.1}, util {:.4}",
        b.q_sample_mean_pkts, b.utilization
    );
    assert!((q - qref).abs() <= 0.25 * qref, "PI mean queue {q:.1}, q_ref {qref}");
    assert!(b.utilization > 0.97, "a queue held at {qref} packets never empties: util {}", b.utilization);
    assert_eq!(b.counters.drops_overflow, 0, "the controller, not the 1000-packet buffer, must drop");
    assert!(b.counters.drops_early > 0);
}

#[test]
fn pie_holds_the_mean_queueing_delay_near_its_15_ms_target() {
    // PIE steers the queueing delay to QDELAY_REF = 15 ms (RFC 8033 §4.2: p moves by
    // α(qdelay − ref) + β(qdelay − qdelay_old) each T_UPDATE, so in steady state qdelay ≈ ref).
    let target = 0.015;
    let r = simulate(&dumbbell(100, "100Mbps", "{ kind = \"pie\", limit = 1000 }", 40, 10, ""));
    let b = link(&r, "A->B");
    let d = mean_delay(b);
    eprintln!(
        "PIE: mean queueing delay {:.2} ms ({:.1} pkts), util {:.4}",
        d * 1e3,
        b.q_mean_pkts,
        b.utilization
    );
    assert!((d - target).abs() <= 0.25 * target, "PIE mean delay {:.2} ms, target 15 ms", d * 1e3);
    assert!(b.utilization > 0.95, "util {}", b.utilization);
    assert_eq!(b.counters.drops_overflow, 0);
}

#[test]
fn adaptive_red_keeps_the_average_in_its_target_band() {
    // ARED (Floyd, Gummadi & Shenker 2001) moves max_p every `interval` until the average queue lies
    // in [min_th + 0.4(max_th − min_th), min_th + 0.6(max_th − min_th)]; with 100/300 that is 180..220.
    let (min_th, max_th) = (100.0, 300.0);
    let queue = format!(
        "{{ kind = \"red\", adaptive = true, limit = 1000, queue_in_bytes = false, bytes = false, \
         mean_pktsize = 1500, thresh = {min_th}, maxthresh = {max_th}, q_weight = 0.002 }}"
    );
    let r = simulate(&dumbbell(100, "100Mbps", &queue, 45, 15, ""));
    let b = link(&r, "A->B");
    let (lo, hi) = (min_th + 0.4 * (max_th - min_th), min_th + 0.6 * (max_th - min_th));
    let (q, avg, max_p) = (b.q_mean_pkts, state(b, "avg"), state(b, "max_p"));
    eprintln!("ARED: mean queue {q:.1}, final avg {avg:.1}, band [{lo}, {hi}], max_p {max_p:.4}");
    // The time-weighted mean is the average the EWMA tracks; allow the band plus 5 % of its centre for
    // the EWMA's lag and the AIMD steps around the band edges.
    let slack = 0.05 * (lo + hi) / 2.0;
    assert!(q >= lo - slack && q <= hi + slack, "ARED mean queue {q:.1} outside [{lo}, {hi}]");
    // max_p stays within [bottom, top]: bottom = min(0.01, 80 kb/s / C) = 8e-4 at 100 Mb/s, top = 0.5
    // (a decrease may take it at most one β-step below bottom, an increase one α-step above top).
    let (bottom, top) = (f64::min(0.01, 80_000.0 / 100e6), 0.5);
    assert!(max_p >= 0.9 * bottom && max_p <= top + 0.01, "max_p {max_p}");
    // The initial 0.1 is too aggressive for 100 flows here, so ARED must actually have moved it.
    assert!((max_p - 0.1).abs() > 1e-9, "max_p never adapted");
    assert_eq!(b.counters.drops_overflow, 0);
}

#[test]
fn codel_keeps_the_standing_sojourn_near_5_ms() {
    // CoDel (RFC 8289) drops while the minimum sojourn over an interval exceeds TARGET = 5 ms, so the
    // standing queue is of the order of 5 ms. 20 flows: with many more flows than that, CoDel's
    // control law (one more drop per interval/sqrt(count)) is known to lag and the standing delay
    // rises above target (about 17 ms with 100 flows on this dumbbell).
    let run_with = |queue: &str| simulate(&dumbbell(20, "100Mbps", queue, 40, 10, ""));
    let r = run_with("{ kind = \"codel\", limit = 1000 }");
    let b = link(&r, "A->B");
    let d = b.q_mean_pkts * PKT_TIME_100M;
    eprintln!("CoDel: mean sojourn {:.2} ms ({:.1} pkts), util {:.4}", d * 1e3, b.q_mean_pkts, b.utilization);
    assert!((0.002..=0.012).contains(&d), "CoDel mean sojourn {:.2} ms", d * 1e3);
    assert!(b.utilization > 0.9, "util {}", b.utilization);
    assert_eq!(b.counters.drops_overflow, 0);
    // The same load through a drop-tail queue of the same size stands far higher (tens to hundreds of ms).
    let dt = run_with("{ kind = \"droptail\", limit = 1000 }");
    let d_dt = link(&dt, "A->B").q_mean_pkts * PKT_TIME_100M;
    eprintln!("drop-tail: mean sojourn {:.2} ms", d_dt * 1e3);
    assert!(d_dt > 5.0 * d, "drop-tail {:.1} ms vs CoDel {:.1} ms", d_dt * 1e3, d * 1e3);
}

#[test]
fn cobalt_keeps_the_standing_sojourn_near_5_ms_as_codel_does() {
    // COBALT's CoDel half has CoDel's target and interval, so on CoDel's load above the standing
    // sojourn is of the order of 5 ms too. Its BLUE half moves only on a buffer overflow, a head older
    // than 400 ms or an idle link, so with a 1000-packet buffer p_drop stays 0 and the two differ only
    // in the CoDel state machines (COBALT decays `count` instead of CoDel's re-entry rule).
    let r = simulate(&dumbbell(20, "100Mbps", "{ kind = \"cobalt\", limit = 1000 }", 30, 10, ""));
    let b = link(&r, "A->B");
    let d = b.q_mean_pkts * PKT_TIME_100M;
    eprintln!(
        "COBALT: mean sojourn {:.2} ms ({:.1} pkts), util {:.4}",
        d * 1e3,
        b.q_mean_pkts,
        b.utilization
    );
    assert!((0.002..=0.012).contains(&d), "COBALT mean sojourn {:.2} ms", d * 1e3);
    assert!(b.utilization > 0.9, "util {}", b.utilization);
    assert_eq!(b.counters.drops_overflow, 0);
    assert!(b.counters.drops_early > 0);
    assert_eq!(state(b, "p_drop"), 0.0);
    let codel = simulate(&dumbbell(20, "100Mbps", "{ kind = \"codel\", limit = 1000 }", 30, 10, ""));
    let d_codel = link(&codel, "A->B").q_mean_pkts * PKT_TIME_100M;
    eprintln!("CoDel: mean sojourn {:.2} ms", d_codel * 1e3);
    assert!(
        (d - d_codel).abs() <= 0.5 * d_codel,
        "COBALT {:.2} ms vs CoDel {:.2} ms",
        d * 1e3,
        d_codel * 1e3
    );
    // A 50-packet buffer overflows, which turns BLUE on; its draws come from the run's seeded stream,
    // so the same scenario gives the same results.
    let small = dumbbell(20, "100Mbps", "{ kind = \"cobalt\", limit = 50 }", 15, 5, "");
    let (a, b) = (simulate(&small), simulate(&small));
    assert!(link(&a, "A->B").counters.drops_overflow > 0);
    let json = |r: &RunResult| serde_json::to_string(r).unwrap();
    assert_eq!(json(&a), json(&b));
}

#[test]
fn byte_mode_red_drops_small_packets_in_proportion_to_their_size() {
    // Unresponsive UDP at 101 % of a 10 Mb/s link: RED in byte mode (ns-2 `bytes_`) selects each packet
    // with probability p_a·size/mean_pktsize, and its count correction counts bytes, so the drop
    // hazard per byte is the same for both sizes and the per-packet drop rates of 40-byte and
    // 1500-byte packets should stand in the ratio 40/1500.
    let red = "{ kind = \"red\", queue_in_bytes = true, bytes = true, mean_pktsize = 500, thresh = 20, \
               maxthresh = 60, q_weight = 0.002, limit = 1000 }";
    let links = link_table("S", "A", "100Mbps", "1ms", "{ kind = \"droptail\", limit = 10000 }")
        + &link_table("A", "B", "10Mbps", "5ms", red);
    let text = format!(
        r#"
duration = 110
[measure]
warmup = 10
{links}[[flows]]
name = "large"
kind = "udp_poisson"
src = "S"
dst = "B"
rate = "8.9Mbps"
packet_size = 1500
[[flows]]
name = "small"
kind = "udp_poisson"
src = "S"
dst = "B"
rate = "1.2Mbps"
packet_size = 40
"#
    );
    let r = simulate(&text);
    let b = link(&r, "A->B");
    let (small, large) = (class(&r, "A->B", "small"), class(&r, "A->B", "large"));
    let rate = |c: &ClassCounters| c.drops_early as f64 / c.arrivals as f64;
    let (ps, pl) = (rate(small), rate(large));
    let ratio = ps / pl;
    let want = 40.0 / 1500.0;
    eprintln!(
        "byte RED: 40 B drop rate {ps:.5} ({} drops), 1500 B {pl:.5} ({} drops), ratio {ratio:.4} vs {want:.4}",
        small.drops_early, large.drops_early
    );
    assert_eq!(b.counters.drops_overflow, 0, "RED, not the buffer, must drop");
    assert!(large.drops_early > 500 && small.drops_early > 50, "too few drops to judge");
    // Tolerance: Poisson noise of ~100 small-packet drops is ±10 % (1σ). ns-2 adds the arrival's own
    // bytes to the count before its test, so a 1500-byte arrival sees a count 3 units higher than a
    // 40-byte one would (p_b/(2 − (n+3)p_b) instead of p_b/(2 − n·p_b)), which lowers the ratio by
    // up to a few tens of percent; arrivals selected at p = 1 are dropped unscaled, which raises it.
    assert!(ratio > 0.6 * want && ratio < 1.25 * want, "ratio {ratio:.4}, size ratio {want:.4}");
}

/// ECN-capable flows through a large buffer, where the AQM must signal congestion by marks only: the
/// run and the counters of its bulk class at the bottleneck, checked to hold marks.
fn ecn_run(aqm: &str, queue: &str) -> (RunResult, ClassCounters) {
    let r = simulate(&dumbbell(50, "50Mbps", queue, 30, 5, "ecn = true"));
    let bulk = class(&r, "A->B", "bulk").clone();
    eprintln!(
        "{aqm}+ECN: marks {}, early {}, not-ECT {}, overflow {}",
        bulk.marks, bulk.drops_early, bulk.drops_not_ect, bulk.drops_overflow
    );
    assert!(bulk.marks > 100, "marks {}", bulk.marks);
    (r, bulk)
}

#[test]
fn pi_with_ecn_marks_ect_data_and_never_early_drops_it() {
    // ns-2 PI with setbit_: a selected ECT packet is marked; only non-ECT packets (here the SYNs, one
    // per flow plus retransmissions) can be dropped early, as `drops_not_ect`.
    let (r, bulk) = ecn_run("PI", "{ kind = \"pi\", ecn = true, limit = 5000, qref = 50.0 }");
    let b = link(&r, "A->B");
    assert_eq!(bulk.drops_early, 0);
    assert_eq!(bulk.drops_overflow, 0);
    let syns: u64 = r.flows.iter().map(|f| 1 + f.timeouts).sum();
    assert!(bulk.drops_not_ect <= syns, "not-ECT drops {} > SYN budget {syns}", bulk.drops_not_ect);
    assert!(r.flows.iter().map(|f| f.ecn_reductions).sum::<u64>() > 0);
    assert!(b.utilization > 0.9);
}

#[test]
fn rem_in_mark_mode_never_drops_early() {
    // ns-2 REM with markpkts_: departing packets are marked with probability 1 − φ^(−price) if ECT; no
    // packet is ever dropped early, ECT or not. Only the buffer could drop, and it is large.
    let (r, _) = ecn_run("REM", "{ kind = \"rem\", ecn = true, limit = 5000 }");
    let b = link(&r, "A->B");
    assert_eq!(b.counters.drops_early + b.counters.drops_not_ect + b.counters.drops_overflow, 0);
    assert!(b.utilization > 0.9);
}

/// A [`dumbbell`] with base RTTs of 2 to 10 ms: a 1-ms bottleneck and access delays of 0 to 2 ms.
fn short_rtts(dumbbell: String) -> String {
    dumbbell
        .replace("bottleneck_delay = \"10ms\"", "bottleneck_delay = \"1ms\"")
        .replace("to = \"45ms\"", "to = \"2ms\"")
}

/// The bottleneck's sojourn, utilisation, marks and drops, for messages.
fn shown(r: &RunResult) -> String {
    let b = link(r, "A->B");
    format!(
        "mean sojourn {:.3} ms (p99 {:.3}), util {:.4}, marks {}, drops {}",
        b.sojourn_mean_s * 1e3,
        b.sojourn_p99_s * 1e3,
        b.utilization,
        b.counters.marks,
        b.drops
    )
}

#[test]
fn l4s_fq_codel_holds_ect1_dctcp_near_ce_threshold_where_classic_codel_holds_its_target() {
    // ns-3's L4S mode (`UseL4s`, `CeThreshold`): each ECT(1) packet that waited over ce_threshold is
    // marked at once, the shallow step marking DCTCP is built for, so the sojourn stays near the
    // threshold. DCTCP keeps the link busy when the step is above about C·RTT/7 (Alizadeh et al.), so
    // the base RTTs here are 2 to 10 ms (1 ms of queue at 100 Mb/s is C·7 ms / 7).
    let short = |queue: &str, codepoint: &str| {
        let dctcp = format!("ecn = true\ncc = \"dctcp\"\necn_codepoint = \"{codepoint}\"");
        short_rtts(dumbbell(10, "100Mbps", queue, 20, 5, &dctcp))
    };
    let sojourn = |r: &RunResult| link(r, "A->B").sojourn_mean_s;
    let json = |r: &RunResult| serde_json::to_string(r).unwrap();
    let l4s = "{ kind = \"fq_codel\", l4s = true, ce_threshold = \"1ms\" }";
    let r = simulate(&short(l4s, "ect1"));
    let b = link(&r, "A->B");
    // Measured: mean sojourn 0.834 ms (p99 3.612), util 0.9940, 40886 marks, no drop.
    eprintln!("FQ-CoDel L4S, ECT(1): {}", shown(&r));
    assert!((0.0005..=0.002).contains(&b.sojourn_mean_s), "FQ-CoDel L4S: {}", shown(&r));
    assert!(b.utilization > 0.9, "FQ-CoDel L4S: {}", shown(&r));
    assert!(b.counters.marks > 0 && b.drops == 0, "FQ-CoDel L4S: {}", shown(&r));
    assert_eq!(json(&r), json(&simulate(&short(l4s, "ect1"))), "deterministic");
    // ECT(0) through the same queue meets each bucket's classic CoDel instead (measured 10.47 ms).
    let ect0 = simulate(&short(l4s, "ect0"));
    eprintln!("FQ-CoDel L4S, ECT(0): {}", shown(&ect0));
    assert!(sojourn(&ect0) > 3.0 * sojourn(&r), "ECT(0) {} against ECT(1) {}", shown(&ect0), shown(&r));
    // Classic CoDel drops DCTCP's packets, which DCTCP answers as NewReno does, so the sojourn is of
    // the order of the 5 ms target (as `codel_keeps_the_standing_sojourn_near_5_ms`; measured 9.62 ms).
    // Not an L4S queue, it treats ECT(1) and ECT(0) alike: the results are the same.
    let codel = "{ kind = \"codel\", limit = 1000 }";
    let classic = simulate(&short(codel, "ect1"));
    eprintln!("CoDel: {}", shown(&classic));
    assert!((0.002..=0.012).contains(&sojourn(&classic)), "CoDel: {}", shown(&classic));
    assert!(sojourn(&classic) > 5.0 * sojourn(&r), "CoDel {} against L4S {}", shown(&classic), shown(&r));
    assert_eq!(json(&classic), json(&simulate(&short(codel, "ect0"))), "ECT(1) is ECT(0) to CoDel");
    // Marking instead, CoDel's sparse marks meet DCTCP's cuts of alpha/2: the queue stands well above
    // the target (measured 45.8 ms), the mismatch RFC 9331's ECT(1) identifier exists to avoid.
    let marking = simulate(&short("{ kind = \"codel\", ecn = true, limit = 1000 }", "ect1"));
    eprintln!("CoDel with ECN: {}", shown(&marking));
    assert!(sojourn(&marking) > 0.010, "CoDel with ECN: {}", shown(&marking));
}

#[test]
fn dualpi2_keeps_dctcp_in_the_l_queue_near_1_ms_and_cubic_near_the_15_ms_target() {
    // One DCTCP flow sending ECT(1) and one CUBIC flow sending ECT(0), same paths (base RTT 10 ms),
    // over a 40 Mb/s DualPI2 bottleneck. A flow's queueing delay is its mean one-way delay minus its
    // minimum (the access links are fast and never queue).
    let access = |a: &str, b: &str| link_table(a, b, "1Gbps", "1ms", LARGE_DROPTAIL);
    let text = format!(
        r#"
duration = 20
[measure]
warmup = 5
sample_links = ["A->B"]
[tcp]
mss = 1460
max_window = 1000
ecn = true
{}{}{}{}{}
[[flows]]
name = "dctcp"
kind = "tcp_bulk"
src = "S1"
dst = "R1"
class = "dctcp"
tcp = {{ cc = "dctcp", ecn_codepoint = "ect1" }}
[[flows]]
name = "cubic"
kind = "tcp_bulk"
src = "S2"
dst = "R2"
class = "cubic"
tcp = {{ cc = "cubic" }}
"#,
        access("S1", "A"),
        access("S2", "A"),
        link_table("A", "B", "40Mbps", "2ms", "{ kind = \"dualpi2\" }"),
        access("B", "R1"),
        access("B", "R2"),
    );
    let r = simulate(&text);
    let flow = |name: &str| r.flows.iter().find(|f| f.group == name).unwrap();
    let (dctcp, cubic) = (flow("dctcp"), flow("cubic"));
    let queueing = |f: &aqmlab_core::metrics::FlowRow| f.owd_mean_s - f.owd_min_s;
    let b = link(&r, "A->B");
    let ratio = dctcp.goodput_bps / cubic.goodput_bps;
    // A window is rate × RTT, the RTT the base one plus the flow's own queue.
    let rtt = |f: &aqmlab_core::metrics::FlowRow| 2.0 * f.owd_min_s + queueing(f);
    let windows = ratio * rtt(dctcp) / rtt(cubic);
    let shown = format!(
        "L delay {:.3} ms, C delay {:.3} ms, DCTCP {:.2} Mb/s, CUBIC {:.2} Mb/s (ratio {ratio:.3}, windows \
         {windows:.3}), util {:.4}, marks dctcp {} cubic {}, drops {}, state {}",
        queueing(dctcp) * 1e3,
        queueing(cubic) * 1e3,
        dctcp.goodput_bps / 1e6,
        cubic.goodput_bps / 1e6,
        b.utilization,
        class(&r, "A->B", "dctcp").marks,
        class(&r, "A->B", "cubic").marks,
        b.drops,
        b.queue_state,
    );
    // Measured: L delay 0.179 ms, C delay 15.0 ms, DCTCP 27.81 Mb/s, CUBIC 11.12 Mb/s (ratio 2.50,
    // windows 0.94), utilisation 1.0, no drop.
    eprintln!("DualPI2: {shown}");
    // Every L packet that waited over the 1-ms step is marked and the L queue is served first, so
    // its mean delay stays under the step.
    assert!(queueing(dctcp) > 0.0 && queueing(dctcp) < 0.001, "{shown}");
    // PI2 drives the C head's sojourn to the 15 ms target; the mean over CUBIC's packets lies below
    // the head's sojourn at the updates (the queue is younger behind the head), hence target/2..1.5 target.
    assert!((0.0075..=0.0225).contains(&queueing(cubic)), "{shown}");
    // RFC 9332's coupling (p_C = (p_CL/k)², k = 2) balances the windows of a scalable and a classic
    // flow: rates within a factor 2 at equal RTTs. At this short base RTT the classic flow's RTT carries
    // the C queue's 15 ms and the scalable one's hardly any queue, so its rate is lower by that factor.
    assert!((0.5..=2.0).contains(&windows), "{shown}");
    assert!(b.utilization > 0.95 && b.drops == 0, "{shown}");
    assert!(class(&r, "A->B", "dctcp").marks > 0 && class(&r, "A->B", "cubic").marks > 0, "{shown}");
}

#[test]
fn fq_pie_holds_the_sojourn_near_15_ms_and_shares_the_link_evenly() {
    // FQ-PIE: each bucket's PIE steers its own flow's queueing delay to QDELAY_REF = 15 ms (as
    // `pie_holds_the_mean_queueing_delay_near_its_15_ms_target`), and a packet's sojourn is the delay of
    // its own bucket, so the link's mean sojourn sits near 15 ms. DRR gives every backlogged flow an
    // equal share whatever its RTT, so Jain's index of the goodputs is near 1; it falls short of 1 only
    // when a flow's cut after a drop empties its bucket for a while. Four CUBIC flows, base RTTs 20 to
    // 40 ms, 8 s measured: ±30 % on the delay for a short window of few flows.
    let run_with = |queue: &str| {
        let text = dumbbell(4, "20Mbps", queue, 12, 4, "cc = \"cubic\"");
        simulate(&text.replace("to = \"45ms\"", "to = \"10ms\""))
    };
    let jain = |r: &RunResult| {
        let x: Vec<f64> = r.flows.iter().map(|f| f.goodput_bps).collect();
        x.iter().sum::<f64>().powi(2) / (x.len() as f64 * x.iter().map(|v| v * v).sum::<f64>())
    };
    let r = run_with("{ kind = \"fq_pie\" }");
    let b = link(&r, "A->B");
    // Measured: mean sojourn 15.87 ms, util 0.9961, goodputs 5.11, 5.46, 4.74, 4.58 Mb/s, Jain 0.9953.
    eprintln!(
        "FQ-PIE: mean sojourn {:.2} ms, util {:.4}, Jain {:.4}, early drops {}",
        b.sojourn_mean_s * 1e3,
        b.utilization,
        jain(&r),
        b.counters.drops_early
    );
    assert_eq!(r.flows.len(), 4);
    assert!((b.sojourn_mean_s - 0.015).abs() <= 0.3 * 0.015, "FQ-PIE mean sojourn {}", b.sojourn_mean_s);
    assert!(jain(&r) > 0.98, "Jain {}", jain(&r));
    assert!(b.utilization > 0.95, "util {}", b.utilization);
    assert!(b.counters.drops_early > 0);
    assert_eq!(b.counters.drops_overflow, 0, "PIE, not the 10240-packet buffer, drops");
    // One PIE over all flows lets the shorter RTTs take more (measured Jain 0.9035).
    let single = run_with("{ kind = \"pie\", limit = 10240 }");
    eprintln!("PIE: Jain {:.4}", jain(&single));
    assert!(jain(&single) < jain(&r), "PIE {} against FQ-PIE {}", jain(&single), jain(&r));
}

#[test]
fn l4s_fq_codel_holds_one_prague_flow_near_ce_threshold_at_full_rate() {
    // One TCP Prague flow (ECT(1), paced, DCTCP's response) through ns-3's L4S mode of FQ-CoDel with
    // a 1-ms step: the sojourn stays near the threshold and the link stays busy. Base RTT 2 to 10 ms,
    // below Prague's 25-ms target, so its growth is RTT-independent; tick 0 gives it an exact srtt, as
    // Linux's microseconds do.
    let prague = |extra: &str| {
        let tcp = format!("ecn = true\ncc = \"prague\"\necn_codepoint = \"ect1\"\ntick = 0\n{extra}");
        short_rtts(dumbbell(
            1,
            "100Mbps",
            "{ kind = \"fq_codel\", l4s = true, ce_threshold = \"1ms\" }",
            6,
            2,
            &tcp,
        ))
    };
    let r = simulate(&prague(""));
    let b = link(&r, "A->B");
    // Measured: mean sojourn 0.909 ms (p99 1.091), util 1.0000, 570 marks, no drop.
    eprintln!("Prague: {}", shown(&r));
    assert!((0.0005..=0.0015).contains(&b.sojourn_mean_s), "Prague: {}", shown(&r));
    assert!(b.sojourn_p99_s < 0.002, "Prague: {}", shown(&r));
    assert!(b.utilization > 0.9, "Prague: {}", shown(&r));
    assert!(b.counters.marks > 0 && b.drops == 0, "Prague: {}", shown(&r));
    // Without RTT independence the window grows one segment per RTT instead of (srtt/25 ms)², at
    // most 0.2 of that here (srtt at most 10 ms of base RTT and 1 ms of queue): the flow reaches the
    // step at least 5 times as often. Measured: 8139 marks.
    let reno_growth = simulate(&prague("prague_rtt_target = 0"));
    eprintln!("Prague without RTT independence: {}", shown(&reno_growth));
    assert!(link(&reno_growth, "A->B").counters.marks > 5 * b.counters.marks, "{}", shown(&reno_growth));
}
