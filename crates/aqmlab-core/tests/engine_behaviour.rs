//! Whole-simulation checks of the engine against independent expectations: queueing theory (M/D/1),
//! TCP's textbook dynamics, fairness, ECN semantics, determinism and scenario errors.

mod common;

use aqmlab_core::{load, run, RunResult};
use common::{link, link_table, simulate, LARGE_DROPTAIL};

/// S -A- R chain: access 100 Mb/s 1 ms, bottleneck A->B `rate` with `delay`, then B -> R.
fn chain(
    rate: &str,
    delay: &str,
    queue: &str,
    extra_link: &str,
    tcp: &str,
    flows: &str,
    duration: u32,
) -> String {
    let access = link_table("S", "A", "100Mbps", "1ms", LARGE_DROPTAIL);
    let bottleneck = link_table("A", "B", rate, delay, queue);
    let egress = link_table("B", "R", "100Mbps", "1ms", LARGE_DROPTAIL);
    format!(
        r#"
duration = {duration}
[measure]
warmup = 5
sample_links = ["A->B"]
trace_cwnd = [0]
[tcp]
{tcp}
{access}{bottleneck}{extra_link}
{egress}{flows}
"#
    )
}

const ONE_BULK: &str = "[[flows]]\nname = \"bulk\"\nkind = \"tcp_bulk\"\nsrc = \"S\"\ndst = \"R\"\n";

/// Times and values of the congestion-window trace of flow 0.
fn cwnd_trace(r: &RunResult) -> Vec<(f64, f64)> {
    let t = &r.cwnd_trace;
    (0..t.t.len()).filter(|&i| t.flow[i] == 0).map(|i| (t.t[i], t.cwnd[i])).collect()
}

/// Times at which flow 0's retransmission timer expired.
fn timeout_times(r: &RunResult) -> Vec<f64> {
    let t = &r.cwnd_trace;
    let rows: Vec<usize> = (0..t.t.len()).filter(|&i| t.flow[i] == 0).collect();
    rows.windows(2).filter(|w| t.timeouts[w[1]] > t.timeouts[w[0]]).map(|w| t.t[w[1]]).collect()
}

/// One bulk transfer of `bytes` over a 10 Mb/s bottleneck of `delay` with a large buffer, measured from
/// t = 0, the A->B packets numbered in `lost` (a TOML list) lost.
fn transfer_with_losses(delay: &str, lost: &str, tcp: &str, bytes: u32) -> RunResult {
    let text = chain(
        "10Mbps",
        delay,
        "{ kind = \"droptail\", limit = 1000 }",
        &format!("loss_ab = {{ list = {lost} }}"),
        tcp,
        &format!("{ONE_BULK}bytes = {bytes}\n"),
        20,
    );
    simulate(&text.replace("warmup = 5", "warmup = 0"))
}

#[test]
fn one_flow_fills_a_bdp_buffer_with_slow_start_then_sawtooth() {
    // RTT = 2·(1 + 20 + 1) ms = 44 ms; BDP = 10 Mb/s · 44 ms = 36.7 packets of 1500 B.
    // ns-2 drop-tail holds limit − 1 waiting packets: limit 38 gives a BDP-sized buffer.
    let text =
        chain("10Mbps", "20ms", "{ kind = \"droptail\", limit = 38 }", "", "max_window = 1000", ONE_BULK, 60);
    let r = simulate(&text);
    let bottleneck = link(&r, "A->B");
    assert!(bottleneck.utilization >= 0.95, "utilization {}", bottleneck.utilization);
    assert_eq!(r.flows[0].timeouts, 0);

    let trace = cwnd_trace(&r);
    // Slow start: until the first decrease every change is +1 segment per ACK.
    let first_drop = trace.windows(2).position(|w| w[1].1 < w[0].1).expect("a window reduction");
    assert!(first_drop > 20, "slow start should run for a while ({first_drop} steps)");
    for w in trace[..=first_drop].windows(2) {
        assert!((w[1].1 - w[0].1 - 1.0).abs() < 1e-9, "slow start steps are +1: {w:?}");
    }
    // Then a sawtooth: repeated halvings (to floor(w/2)) separated by linear growth. (The slow-start
    // overshoot loses many packets in one window and may end in a timeout, as in ns-2; the steady
    // state is judged after the 5 s warm-up, where no timeout may happen.)
    let reductions: Vec<(f64, f64)> =
        trace.windows(2).filter(|w| w[1].1 < w[0].1 && w[1].0 >= 5.0).map(|w| (w[0].1, w[1].1)).collect();
    assert!(reductions.len() >= 5, "expected a sawtooth, found {} reductions", reductions.len());
    for &(before, after) in &reductions {
        let expected = (before.floor() / 2.0).floor().max(1.0);
        assert!((after - expected).abs() <= 1.0, "halving {before} -> {after}: {reductions:?}");
    }
    // Between reductions the growth is congestion avoidance: increments of 1/cwnd.
    let steady: Vec<(f64, f64)> = trace.iter().copied().filter(|&(t, _)| t >= 5.0).collect();
    let avoidance_steps = steady.windows(2).filter(|w| w[1].1 > w[0].1).map(|w| w[1].1 - w[0].1);
    for step in avoidance_steps {
        assert!(step < 0.5, "congestion-avoidance step {step} is too large");
    }
}

#[test]
fn a_single_loss_is_repaired_by_fast_retransmit_without_timeout() {
    let r = transfer_with_losses("20ms", "[100]", "max_window = 64", 1_000_000);
    let f = &r.flows[0];
    assert_eq!(f.fast_retransmits, 1);
    assert_eq!(f.retransmits, 1);
    assert_eq!(f.timeouts, 0);
    assert_eq!(link(&r, "A->B").counters.drops_error, 1);
}

#[test]
fn a_lost_window_needs_a_timeout_that_backs_off() {
    // Window of 4 segments; packets 21-24 (a whole window) and 25 (its first retransmission) are lost,
    // so no duplicate ACK can come back: the first RTO fires, the retransmission is lost, and the
    // second RTO fires after twice the (min-clamped, 200 ms) timeout.
    let r =
        transfer_with_losses("2ms", "[21, 22, 23, 24, 25]", "max_window = 4\nmin_rto = \"200ms\"", 200_000);
    let f = &r.flows[0];
    assert_eq!(f.timeouts, 2, "{f:?}");
    assert_eq!(f.fast_retransmits, 0);
    let times = timeout_times(&r);
    assert_eq!(times.len(), 2);
    // The second timeout follows the first by twice the 200 ms minimum RTO.
    let gap = times[1] - times[0];
    assert!((gap - 0.4).abs() < 0.011, "backed-off timeout after {gap} s, expected 0.4 s");
    assert!(r.flows[0].bytes_delivered == 200_000, "all data delivered: {}", r.flows[0].bytes_delivered);
}

#[test]
fn poisson_udp_into_drop_tail_matches_md1_mean_queue() {
    // 1000-byte datagrams on 10 Mb/s: service time D = 0.8 ms. Poisson arrivals at 8 Mb/s: ρ = 0.8.
    // Pollaczek–Khinchine for M/D/1, mean number waiting: Lq = ρ² / (2(1 − ρ)) = 1.6.
    let flows =
        "[[flows]]\nkind = \"udp_poisson\"\nsrc = \"S\"\ndst = \"R\"\nrate = \"8Mbps\"\npacket_size = 1000\n";
    let text = chain("10Mbps", "1ms", "{ kind = \"droptail\", limit = 100000 }", "", "", flows, 1500);
    let r = simulate(&text);
    let q = link(&r, "A->B").q_mean_pkts;
    let rho: f64 = 0.8;
    let lq = rho * rho / (2.0 * (1.0 - rho));
    assert!((q - lq).abs() / lq < 0.05, "mean queue {q}, M/D/1 predicts {lq}");
    // Mean wait in the queue: W = ρ / (2μ(1 − ρ)) with μ = 1/D = 1250 packets/s, 1.6 ms.
    let mu = 1.0 / 0.8e-3;
    let w = rho / (2.0 * mu * (1.0 - rho));
    let sojourn = link(&r, "A->B").sojourn_mean_s;
    assert!((sojourn - w).abs() / w < 0.05, "mean queueing delay {sojourn} s, M/D/1 predicts {w} s");
    let util = link(&r, "A->B").utilization;
    assert!((util - rho).abs() < 0.01, "utilization {util}");
}

#[test]
fn ten_equal_rtt_flows_share_fairly() {
    let text = r#"
duration = 60
[measure]
warmup = 10
[tcp]
max_window = 1000
[dumbbell]
pairs = 10
bottleneck_rate = "20Mbps"
bottleneck_delay = "10ms"
queue = { kind = "droptail", limit = 60 }
access_rate = "100Mbps"
access_delay = "5ms"
[[flows]]
kind = "tcp_bulk"
between = "dumbbell"
start = { uniform = ["0s", "1s"] }
"#;
    let r = simulate(text);
    let x: Vec<f64> = r.flows.iter().map(|f| f.goodput_bps).collect();
    let jain = x.iter().sum::<f64>().powi(2) / (x.len() as f64 * x.iter().map(|v| v * v).sum::<f64>());
    assert!(jain >= 0.9, "Jain index {jain}: {x:?}");
    assert!(x.iter().sum::<f64>() > 0.9 * 20e6 * 1460.0 / 1500.0);
}

#[test]
fn ce_marks_halve_the_window_once_per_rtt_without_retransmission() {
    // CoDel with ECN marks (never drops ECT data) on a buffer that cannot overflow.
    let text = chain(
        "10Mbps",
        "20ms",
        "{ kind = \"codel\", ecn = true, limit = 10000 }",
        "",
        "max_window = 1000\necn = true",
        ONE_BULK,
        30,
    );
    let r = simulate(&text);
    let f = &r.flows[0];
    let bottleneck = link(&r, "A->B");
    assert_eq!(f.retransmits, 0, "{f:?}");
    assert_eq!(f.timeouts, 0);
    assert_eq!(bottleneck.drops, 0);
    assert!(f.ecn_reductions >= 5, "{f:?}");
    assert!(bottleneck.counters.marks >= f.ecn_reductions);
    let trace = cwnd_trace(&r);
    let cuts: Vec<(f64, f64, f64)> =
        trace.windows(2).filter(|w| w[1].1 < w[0].1).map(|w| (w[1].0, w[0].1, w[1].1)).collect();
    for &(_, before, after) in &cuts {
        let expected = (before.floor() / 2.0).floor().max(1.0);
        assert!((after - expected).abs() <= 1.0, "ECN halving {before} -> {after}");
    }
    let base_rtt = 0.044;
    for w in cuts.windows(2) {
        assert!(w[1].0 - w[0].0 >= base_rtt, "two reductions within one RTT: {w:?}");
    }
}

/// One bulk flow over a 200-ms RTT with random loss `p` on the bottleneck and no queue limit in reach:
/// its goodput in Mb/s with controller `cc`.
fn goodput_under_random_loss(cc: &str, p: f64) -> f64 {
    let text = chain(
        "100Mbps",
        "98ms",
        "{ kind = \"droptail\", limit = 100000 }",
        &format!("loss_ab = {{ rate = {p} }}"),
        &format!("max_window = 100000\ncc = \"{cc}\""),
        ONE_BULK,
        600,
    );
    simulate(&text).flows[0].goodput_bps / 1e6
}

#[test]
fn cubic_follows_its_response_function_and_outgrows_reno_at_long_rtts() {
    // RFC 9438 §5 (deterministic loss p): CUBIC's average window is (C(3+β)/(4(1−β)))^¼ · RTT^¾ / p^¾
    // = 1.0538 · 0.2^0.75 · 0.001^−0.75 = 56.0 segments, above the Reno-friendly 1.22/√p = 38.6; at
    // 1460 B per 200 ms that is 3.27 Mb/s of goodput. Random loss spreads the epochs, so within 25 %.
    let (c, beta, rtt, p) = (0.4f64, 0.7f64, 0.2f64, 1e-3f64);
    let w = (c * (3.0 + beta) / (4.0 * (1.0 - beta))).powf(0.25) * rtt.powf(0.75) / p.powf(0.75);
    let expected = w * 1460.0 * 8.0 / rtt / 1e6;
    let cubic = goodput_under_random_loss("cubic", p);
    eprintln!("CUBIC {cubic:.2} Mb/s against {expected:.2}");
    assert!((cubic / expected - 1.0).abs() < 0.25, "CUBIC {cubic:.2} Mb/s against {expected:.2}");
    // NewReno on the same path stays near the Mathis law, well below CUBIC.
    let reno = goodput_under_random_loss("newreno", p);
    assert!(cubic > 1.2 * reno, "CUBIC {cubic:.2} Mb/s, NewReno {reno:.2}");
}

/// RED as a step marker (`thresh = K`, `maxthresh = K + 1`, instantaneous queue, max_p 1, no count
/// spacing): an arrival that finds more than K packets waiting is marked, up to 2(K + 1) (gentle RED's
/// forced drops), as the DCTCP studies on ns-2 configure it.
fn step_marking(k: u32) -> String {
    format!(
        "{{ kind = \"red\", queue_in_bytes = false, bytes = false, thresh = {k}, maxthresh = {}, \
         q_weight = 1, linterm = 1, wait = false, use_mark_p = false, ecn = true, limit = 1000 }}",
        k + 1
    )
}

/// Two bulk flows with controller `cc` and ECN over the 50 Mb/s bottleneck of a 24-ms path (BDP 100
/// packets of 1500 B) that marks above `k` packets; 10 s measured after 5 s.
fn two_flows_step_marked(cc: &str, k: u32) -> RunResult {
    let flows = format!("{ONE_BULK}count = 2\n");
    let tcp = format!("max_window = 1000\necn = true\ncc = \"{cc}\"");
    simulate(&chain("50Mbps", "10ms", &step_marking(k), "", &tcp, &flows, 15))
}

#[test]
fn dctcp_holds_the_queue_near_k_at_full_utilisation_where_newreno_cannot() {
    // Alizadeh et al. (SIGCOMM 2010 §3.3; SIGMETRICS 2011) for N synchronised flows over a path of
    // C·RTT packets marking above K: the queue peaks at Q_max = K + N and the sawtooth's amplitude is
    // A = ½·√(2N(C·RTT + K)), so the queue stays in [K + N − A, K + N] and, with K above C·RTT/7, never
    // empties; a sawtooth spread evenly over that range has a deviation of A/√12. Here C·RTT = 100,
    // K = 20, N = 2: A = 11.0, the queue in [11, 22], deviation 3.2.
    let (k, n, bdp) = (20.0, 2.0, 100.0);
    let amplitude = 0.5 * f64::sqrt(2.0 * n * (bdp + k));
    let r = two_flows_step_marked("dctcp", k as u32);
    let q = link(&r, "A->B");
    let shown = format!(
        "utilisation {:.4}, queue {:.2} ± {:.2} (max {}), marks {}, drops {}",
        q.utilization, q.q_mean_pkts, q.q_std_pkts, q.q_max_pkts, q.counters.marks, q.drops
    );
    eprintln!("DCTCP: {shown}");
    // Measured: utilisation 1.0000, queue 17.95 ± 2.69 (max 25), 6042 marks, no drop. Growing by ns-2's
    // per-ACK rule (half a segment per RTT behind delayed ACKs) it drew 4202 marks: the marked fraction
    // goes as √(2·growth/W) (Alizadeh et al.), and 6042 / 4202 = 1.44 ≈ √2.
    assert!(q.utilization > 0.99, "DCTCP: {shown}");
    assert!((k + n - amplitude..=k + n).contains(&q.q_mean_pkts), "DCTCP: {shown}");
    assert!(q.q_std_pkts < amplitude / 12f64.sqrt(), "DCTCP: {shown}");
    assert!(q.q_max_pkts <= 2.0 * (k + 1.0) && q.drops == 0, "DCTCP: {shown}");
    for f in &r.flows {
        assert_eq!((f.retransmits, f.timeouts), (0, 0), "{f:?}");
        assert!(f.ecn_reductions > 10, "{f:?}");
        assert!((f.goodput_bps / 1e6 - 24.3).abs() < 2.5, "about half of the link each: {f:?}");
    }
    // NewReno halves on the same marks: twice C·RTT + K = 120 halved is 60, well below C·RTT, so the
    // link idles after each cut (measured: utilisation 0.8669, queue 4.50 ± 6.49).
    let r = two_flows_step_marked("newreno", k as u32);
    let reno = link(&r, "A->B");
    let shown_reno = format!(
        "utilisation {:.4}, queue {:.2} ± {:.2}",
        reno.utilization, reno.q_mean_pkts, reno.q_std_pkts
    );
    assert!(reno.utilization < 0.95 && reno.utilization < q.utilization - 0.05, "NewReno: {shown_reno}");
    assert!(reno.q_std_pkts > 2.0 * q.q_std_pkts, "NewReno {shown_reno}, DCTCP {shown}");
}

fn random_start_scenario() -> String {
    r#"
duration = 20
[measure]
warmup = 2
sample_links = ["A->B"]
[dumbbell]
pairs = 5
bottleneck_rate = "10Mbps"
bottleneck_delay = "10ms"
queue = { kind = "red", thresh = 5, maxthresh = 15, queue_in_bytes = false, bytes = false, limit = 50 }
access_rate = "100Mbps"
access_delay = { from = "1ms", to = "20ms" }
[[flows]]
kind = "tcp_bulk"
between = "dumbbell"
start = { uniform = ["0s", "2s"] }
"#
    .to_string()
}

#[test]
fn same_seed_same_results_different_seed_different_results() {
    let text = random_start_scenario();
    let a = serde_json::to_string(&run(load(&text, "t", &[], Some(3)).unwrap(), None)).unwrap();
    let b = serde_json::to_string(&run(load(&text, "t", &[], Some(3)).unwrap(), None)).unwrap();
    let c = serde_json::to_string(&run(load(&text, "t", &[], Some(4)).unwrap(), None)).unwrap();
    assert_eq!(a, b);
    assert_ne!(a, c);
}

#[test]
fn malformed_scenarios_give_located_errors() {
    let good = chain("10Mbps", "20ms", "{ kind = \"droptail\" }", "", "", ONE_BULK, 10);
    let cases: Vec<(String, &str, &str)> = vec![
        (good.replace("[measure]", "[measure]\nwarmpu = 3"), "measure.warmpu", "unknown field `warmpu`"),
        (good.replace("duration = 10", "duration = true"), "duration", "a duration"),
        (good.replace("dst = \"R\"", "dst = \"Q\""), "flows[0].dst", "`Q` is not a node"),
        (good.replace("rate = \"10Mbps\"", "rate = \"-10Mbps\""), "links[1].rate", "a positive rate"),
        (
            format!("{good}\n[[links]]\na = \"X\"\nb = \"Y\"\nrate = \"1Mbps\"\ndelay = 0\n[[flows]]\nkind = \"tcp_bulk\"\nsrc = \"S\"\ndst = \"X\"\n"),
            "flows[1].dst",
            "no route",
        ),
        (good.replace("kind = \"droptail\" }", "kind = \"droptail\", limit = 0 }"), "links[1].queue.limit", "at least 1"),
        (
            good.replace("kind = \"droptail\" }", "kind = \"fq_codel\", l4s = true }"),
            "links[1].queue.ce_threshold",
            "l4s = true marks against it",
        ),
        (
            good.replace("kind = \"droptail\" }", "kind = \"pie\", ce_threshold = \"1ms\" }"),
            "links[1].queue.ce_threshold",
            "without l4s = true",
        ),
    ];
    for (text, path, message) in cases {
        let e = load(&text, "bad.toml", &[], None).expect_err(path);
        assert_eq!(e.file, "bad.toml");
        assert!(e.line.is_some(), "no line for {path}: {e}");
        assert!(e.path.starts_with(path.split('.').next().unwrap()), "path {} for {path}", e.path);
        assert!(e.to_string().contains(message), "{e} should mention {message}");
        let shown = e.to_string();
        assert!(shown.starts_with("bad.toml:"), "{shown}");
    }
}

#[test]
fn tcp_recovery_and_cc_are_read_from_tcp_tables_and_bad_values_are_located() {
    use aqmlab_core::tcp::{cc::ControllerKind, EcnCodepoint, Recovery, TcpConfig};
    let with_tcp =
        |tcp: &str, flows: &str| chain("10Mbps", "20ms", "{ kind = \"droptail\" }", "", tcp, flows, 10);
    let config = |text: &str| -> TcpConfig {
        load(text, "t.toml", &[], None).unwrap_or_else(|e| panic!("{e}")).tcp_configs[0].clone()
    };
    assert_eq!(config(&with_tcp("", ONE_BULK)).recovery, Recovery::OneWay);
    assert_eq!(config(&with_tcp("recovery = \"one_way\"", ONE_BULK)).recovery, Recovery::OneWay);
    assert_eq!(config(&with_tcp("recovery = \"full_tcp\"", ONE_BULK)).recovery, Recovery::FullTcp);
    let own = |field: &str, value: &str| format!("{ONE_BULK}tcp = {{ {field} = {value} }}\n");
    assert_eq!(config(&with_tcp("", &own("recovery", "\"full_tcp\""))).recovery, Recovery::FullTcp);
    assert_eq!(config(&with_tcp("", ONE_BULK)).cc, ControllerKind::NewReno);
    assert_eq!(config(&with_tcp("cc = \"newreno\"", ONE_BULK)).cc, ControllerKind::NewReno);
    assert_eq!(config(&with_tcp("", &own("cc", "\"newreno\""))).cc, ControllerKind::NewReno);
    assert_eq!(config(&with_tcp("", &own("cc", "\"cubic\""))).cc, ControllerKind::Cubic);
    let dctcp = config(&with_tcp("ecn = true", &own("cc", "\"dctcp\"")));
    assert_eq!((dctcp.cc, dctcp.dctcp_g), (ControllerKind::Dctcp, 1.0 / 16.0));
    assert_eq!(config(&with_tcp("ecn = true\ncc = \"dctcp\"\ndctcp_g = 0.5", ONE_BULK)).dctcp_g, 0.5);
    let l4s = "ecn = true\necn_codepoint = \"ect1\"";
    let prague = config(&with_tcp(l4s, &own("cc", "\"prague\"")));
    assert_eq!(
        (prague.cc, prague.pacing, prague.prague_rtt_target.secs()),
        (ControllerKind::Prague, None, 0.025)
    );
    let options = format!("{l4s}\ncc = \"prague\"\npacing = false\nprague_rtt_target = \"5ms\"");
    let prague = config(&with_tcp(&options, ONE_BULK));
    assert_eq!((prague.pacing, prague.prague_rtt_target.secs()), (Some(false), 0.005));
    assert_eq!(config(&with_tcp("pacing = true", ONE_BULK)).pacing, Some(true));
    assert_eq!(config(&with_tcp("", ONE_BULK)).ecn_codepoint, EcnCodepoint::Ect0);
    let ect1 = config(&with_tcp("ecn = true", &own("ecn_codepoint", "\"ect1\"")));
    assert_eq!(ect1.ecn_codepoint, EcnCodepoint::Ect1);
    let ect1_needs_ecn = "\"ect1\" is an ECN codepoint: it needs ecn = true";
    let unknown_codepoint = "unknown variant `ce`, expected `ect0` or `ect1`";
    let needs_ecn = "\"dctcp\" reacts to ECN marks: it needs ecn = true";
    let gain = "a gain in (0, 1]";
    let unknown = "unknown variant `fulltcp`, expected `one_way` or `full_tcp`";
    let unknown_cc = "unknown variant `vegas`, expected one of `newreno`, `cubic`, `dctcp`, `prague`";
    let prague_needs_ecn = "\"prague\" reacts to ECN marks: it needs ecn = true";
    let prague_needs_ect1 = "\"prague\" is an L4S sender: it needs ecn_codepoint = \"ect1\"";
    let not_a_string = "invalid type: integer `1`, expected a string";
    let cases = [
        (with_tcp("recovery = \"fulltcp\"", ONE_BULK), "tcp.recovery", unknown),
        (with_tcp("recovery = 1", ONE_BULK), "tcp.recovery", not_a_string),
        (with_tcp("", &own("recovery", "\"fulltcp\"")), "flows[0].tcp.recovery", unknown),
        (with_tcp("cc = \"vegas\"", ONE_BULK), "tcp.cc", unknown_cc),
        (with_tcp("cc = 1", ONE_BULK), "tcp.cc", not_a_string),
        (with_tcp("", &own("cc", "\"vegas\"")), "flows[0].tcp.cc", unknown_cc),
        (with_tcp("cc = \"dctcp\"", ONE_BULK), "tcp.cc", needs_ecn),
        (with_tcp("", &own("cc", "\"dctcp\"")), "flows[0].tcp.cc", needs_ecn),
        (with_tcp("cc = \"prague\"", ONE_BULK), "tcp.cc", prague_needs_ecn),
        (with_tcp("ecn = true\ncc = \"prague\"", ONE_BULK), "tcp.ecn_codepoint", prague_needs_ect1),
        (with_tcp("ecn = true", &own("cc", "\"prague\"")), "flows[0].tcp.ecn_codepoint", prague_needs_ect1),
        (with_tcp("ecn = true\ncc = \"dctcp\"\ndctcp_g = 0", ONE_BULK), "tcp.dctcp_g", gain),
        (with_tcp("dctcp_g = 1.5", ONE_BULK), "tcp.dctcp_g", gain),
        (with_tcp("ecn_codepoint = \"ect1\"", ONE_BULK), "tcp.ecn_codepoint", ect1_needs_ecn),
        (with_tcp("", &own("ecn_codepoint", "\"ect1\"")), "flows[0].tcp.ecn_codepoint", ect1_needs_ecn),
        (with_tcp("ecn = true\necn_codepoint = \"ce\"", ONE_BULK), "tcp.ecn_codepoint", unknown_codepoint),
    ];
    for (text, path, message) in cases {
        let e = load(&text, "bad.toml", &[], None).expect_err(path);
        assert_eq!((e.path.as_str(), e.message.as_str()), (path, message));
        assert!(e.line.is_some(), "no line for {path}: {e}");
    }
}

/// Without a warm-up the measurement starts before anything is sent: a flow's first datagram, sent at
/// t = 0, is counted by the flow, its class and the first link, as it is in the bytes delivered.
#[test]
fn packets_sent_at_time_zero_are_counted_without_a_warm_up() {
    let udp = "[[flows]]\nname = \"cbr\"\nkind = \"udp_cbr\"\nsrc = \"S\"\ndst = \"R\"\nrate = \"800kbps\"\n\
               packet_size = 1000\nstop = \"0.5s\"\n";
    let text =
        chain("10Mbps", "1ms", "{ kind = \"droptail\" }", "", "", udp, 1).replace("warmup = 5", "warmup = 0");
    let r = simulate(&text);
    // 100 datagrams per second for 0.5 s, the first at t = 0, every one delivered by the end.
    let f = &r.flows[0];
    assert_eq!((f.packets_sent, f.bytes_delivered), (50, 50_000), "{f:?}");
    assert_eq!(r.classes[0].packets_sent, 50);
    assert_eq!(link(&r, "S->A").counters.arrivals, 50);
}
