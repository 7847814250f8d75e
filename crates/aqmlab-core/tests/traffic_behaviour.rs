//! Whole-simulation checks of the traffic models: PackMime-HTTP connections and response times,
//! DelayBox per-flow delays, Pareto file transfers, stop conditions and bounded memory.

mod common;

use aqmlab_core::{load, run};
use common::{link_table, simulate, LARGE_DROPTAIL};

/// client — R0 — R1 — server, 1 ms per link; `boxes` adds DelayBox tables; `traffic` the flows.
fn network(rate: &str, boxes: &str, traffic: &str, duration: u32) -> String {
    let links = [("client", "R0", "1Gbps"), ("R0", "R1", rate), ("R1", "server", "1Gbps")]
        .map(|(a, b, rate)| link_table(a, b, rate, "1ms", LARGE_DROPTAIL))
        .concat();
    format!(
        r#"
duration = {duration}
[measure]
warmup = 0
pair_records = true
[tcp]
max_window = 64
tick = 0
{links}{boxes}
{traffic}
"#
    )
}

const HTTP: &str =
    "[[http]]\nname = \"web\"\nclients = \"client\"\nservers = \"server\"\nrate = 20\nlrd = false\n";

#[test]
fn http_response_times_are_bounded_by_round_trips_and_server_delay() {
    // Constant per-flow delays: 10 ms at R0 and 20 ms at R1, each way: base RTT = 2·(3 + 10 + 20) ms.
    let boxes = "[[delaybox]]\nnode = \"R0\"\ndelay = { kind = \"constant\", value = \"10ms\" }\n\
                 [[delaybox]]\nnode = \"R1\"\ndelay = { kind = \"constant\", value = \"20ms\" }\n";
    let r = simulate(&network("1Gbps", boxes, HTTP, 60));
    let rtt = 0.066;
    let p = &r.pairs;
    assert!(p.len() > 500, "{} pairs", p.len());
    let mut checked = 0;
    for i in 0..p.len() {
        let (rt, req, resp) = (p.response_time_s[i], p.request_bytes[i], p.response_bytes[i]);
        // Small exchanges on an idle 1 Gb/s path: one RTT for the request/response, plus one for the
        // handshake on a connection's first pair, plus a server delay of at most 0.1 s.
        if req <= 1460 && resp <= 1460 {
            let rtts = if p.index[i] == 0 { 2.0 } else { 1.0 };
            assert!(rt >= rtts * rtt - 1e-6, "pair {i}: {rt} s < {rtts} RTT");
            assert!(rt <= rtts * rtt + 0.1 + 0.002, "pair {i}: {rt} s");
            checked += 1;
        }
    }
    assert!(checked > 100);
    // Every completed pair is in the histogram too.
    assert_eq!(r.responses[0].pairs as usize, p.len());
}

#[test]
fn packmime_connections_carry_about_1_2_pairs_and_finish() {
    let r = simulate(&network("100Mbps", "", HTTP, 300));
    let g = &r.generators[0];
    let per_conn = g.pairs_planned as f64 / g.connections_started as f64;
    assert!((1.1..1.3).contains(&per_conn), "{per_conn} pairs per connection");
    // 20 connections/s for 300 s, i.i.d. Weibull gaps with mean 1/20 s.
    assert!((5400..6600).contains(&g.connections_started), "{}", g.connections_started);
    assert!(g.connections_open < 50, "{} still open", g.connections_open);
    // Slots of finished connections are reused: memory follows the open connections, not the total.
    assert!(r.summary.flow_slots < 200, "{} slots for {} connections", r.summary.flow_slots, r.summary.flows);
    // Responses: ns-2.35 measures mean ≈ 7.0 kB and median ≈ 0.88 kB; the tail makes the mean noisy.
    let resp: Vec<u64> = r.pairs.response_bytes.clone();
    let mut sorted = resp.clone();
    sorted.sort_unstable();
    let median = sorted[sorted.len() / 2] as f64;
    assert!((700.0..1100.0).contains(&median), "median response {median}");
}

#[test]
fn uniform_delaybox_gives_each_flow_its_own_integer_delay() {
    // 200 tiny transfers; the box at R0 delays packets sent by the client only (study L's dummynet).
    let boxes = "[[delaybox]]\nnode = \"R0\"\ndirection = \"from_served\"\ndelay = { kind = \"uniform_ms\", low_ms = 10, high_ms = 150 }\n";
    let flows = "[[flows]]\nkind = \"tcp_bulk\"\ncount = 200\nsrc = \"client\"\ndst = \"server\"\nbytes = 20000\nstart = { spread = \"10s\" }\n";
    let r = simulate(&network("1Gbps", boxes, flows, 20));
    let base = 0.006;
    let extra: Vec<f64> = r.flows.iter().map(|f| (f.srtt_s - base) * 1e3).collect();
    for e in &extra {
        assert!((9.9..=150.1).contains(e), "added delay {e} ms");
    }
    let mean = extra.iter().sum::<f64>() / extra.len() as f64;
    assert!((70.0..90.0).contains(&mean), "mean added delay {mean} ms (uniform 10..150: 80)");
    let distinct: std::collections::BTreeSet<i64> = extra.iter().map(|e| e.round() as i64).collect();
    assert!(distinct.len() > 60, "{} distinct delays", distinct.len());
}

#[test]
fn two_delayboxes_on_one_router_delay_their_hosts_flows_independently() {
    // Hosts a and b on R0, each served by its own box there (study W's client and server boxes);
    // 200 tiny transfers from each. Flow i of each group is the i-th draw of its box: were the boxes
    // to share a random stream, the two groups would get the same delays flow for flow.
    let links = [("a", "R0"), ("b", "R0"), ("R0", "R1"), ("R1", "server")]
        .map(|(a, b)| link_table(a, b, "1Gbps", "1ms", ""))
        .concat();
    let hosts = ["a", "b"];
    let boxes = hosts.map(|host| {
        format!(
            "[[delaybox]]\nnode = \"R0\"\nserves = \"{host}\"\ndirection = \"from_served\"\n\
             delay = {{ kind = \"uniform_ms\", low_ms = 10, high_ms = 150 }}\n"
        )
    });
    let flows = hosts.map(|host| {
        format!(
            "[[flows]]\nname = \"from_{host}\"\nkind = \"tcp_bulk\"\ncount = 200\nsrc = \"{host}\"\n\
             dst = \"server\"\nbytes = 20000\nstart = {{ spread = \"10s\" }}\n"
        )
    });
    let (boxes, flows) = (boxes.concat(), flows.concat());
    let text = format!(
        r#"
duration = 20
[measure]
warmup = 0
[tcp]
tick = 0
{links}{boxes}{flows}"#
    );
    let r = simulate(&text);
    let added = |group: &str| -> Vec<f64> {
        r.flows.iter().filter(|f| f.group == group).map(|f| ((f.srtt_s - 0.006) * 1e3).round()).collect()
    };
    let (a, b) = (added("from_a"), added("from_b"));
    assert_eq!((a.len(), b.len()), (200, 200));
    assert!(a.iter().chain(&b).all(|d| (10.0..=150.0).contains(d)), "{a:?} {b:?}");
    let same = a.iter().zip(&b).filter(|(x, y)| x == y).count();
    assert!(same < 12, "{same} of 200 flow pairs got the same delay");
    let n = a.len() as f64;
    let (ma, mb) = (a.iter().sum::<f64>() / n, b.iter().sum::<f64>() / n);
    let cov: f64 = a.iter().zip(&b).map(|(x, y)| (x - ma) * (y - mb)).sum();
    let var = |v: &[f64], m: f64| v.iter().map(|x| (x - m) * (x - m)).sum::<f64>();
    let corr = cov / (var(&a, ma) * var(&b, mb)).sqrt();
    assert!(corr.abs() < 0.2, "correlation {corr} between the two boxes' delays");
}

#[test]
fn stop_after_k_pairs_ends_the_run() {
    let text = network("100Mbps", "", HTTP, 1000) + "[stop]\nafter_pairs = 300\nclass = \"web\"\n";
    let r = simulate(&text);
    assert_eq!(r.summary.ended_by, "pairs");
    assert_eq!(r.responses[0].pairs, 300);
    assert!(r.summary.end_s < 100.0, "stopped at {}", r.summary.end_s);
}

#[test]
fn pareto_files_complete_with_the_configured_mean_size() {
    let flows = "[[flows]]\nname = \"files\"\nkind = \"tcp_files\"\ncount = 4\nsrc = \"client\"\ndst = \"server\"\nfile_rate = 10\nfile_mean = \"50kB\"\nfile_shape = 1.3\n";
    let r = simulate(&network("100Mbps", "", flows, 200));
    let n = r.pairs.len();
    // 4 connections × 10 files/s × 200 s ≈ 8000 files.
    assert!((7000..9000).contains(&n), "{n} files");
    // Pareto(shape 1.3) with mean 50 kB: scale 11 538 B is the minimum; the median is scale·2^(1/1.3).
    let mut sizes = r.pairs.response_bytes.clone();
    sizes.sort_unstable();
    assert!(sizes[0] >= 11_538, "smallest file {}", sizes[0]);
    let median = sizes[n / 2] as f64;
    let expected = 50_000.0 * 0.3 / 1.3 * 2f64.powf(1.0 / 1.3);
    assert!((median / expected - 1.0).abs() < 0.05, "median {median} vs {expected}");
    assert!(r.flows.iter().all(|f| f.kind == "tcp"));
}

#[test]
fn empirical_delaybox_follows_its_cdf_file() {
    // Delays 20 ms or 60 ms with probability 1/2 each (a steep CDF between knots), one way.
    let dir = std::env::temp_dir().join(format!("aqmlab-cdf-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("delays.csv"), "# delay_ms,probability\n20,0\n20,0.5\n60,0.5\n60,1\n").unwrap();
    let boxes = "[[delaybox]]\nnode = \"R0\"\ndirection = \"from_served\"\ndelay = { kind = \"empirical\", file = \"delays.csv\" }\n";
    let flows = "[[flows]]\nkind = \"tcp_bulk\"\ncount = 100\nsrc = \"client\"\ndst = \"server\"\nbytes = 5000\nstart = { spread = \"5s\" }\n";
    let text = network("1Gbps", boxes, flows, 10);
    let model =
        load(&text, dir.join("s.toml").to_str().unwrap(), &[], None).unwrap_or_else(|e| panic!("{e}"));
    let r = run(model, None);
    let extra: Vec<f64> = r.flows.iter().map(|f| ((f.srtt_s - 0.006) * 1e3).round()).collect();
    assert!(extra.iter().all(|&e| e == 20.0 || e == 60.0), "{extra:?}");
    let short = extra.iter().filter(|&&e| e == 20.0).count();
    std::fs::remove_dir_all(&dir).unwrap();
    assert!((30..70).contains(&short), "{short} of 100 flows drew 20 ms");
}

#[test]
fn per_direction_delaybox_draws_each_direction_separately() {
    // Whole-millisecond delays each way: one draw adds 2d (even), two draws add d1 + d2 (often odd).
    let flows = "[[flows]]\nkind = \"tcp_bulk\"\ncount = 60\nsrc = \"client\"\ndst = \"server\"\nbytes = 5000\nstart = { spread = \"5s\" }\n";
    let added = |per_direction: bool| -> Vec<i64> {
        let boxes = format!(
            "[[delaybox]]\nnode = \"R0\"\nper_direction = {per_direction}\ndelay = {{ kind = \"uniform_ms\", low_ms = 10, high_ms = 150 }}\n"
        );
        let r = simulate(&network("1Gbps", &boxes, flows, 10));
        r.flows.iter().map(|f| ((f.srtt_s - 0.006) * 1e3).round() as i64).collect()
    };
    assert!(added(false).iter().all(|d| d % 2 == 0 && (20..=300).contains(d)));
    let independent = added(true);
    assert!(independent.iter().filter(|d| *d % 2 == 1).count() > 15, "{independent:?}");
    assert!(independent.iter().all(|d| (20..=300).contains(d)));
}

/// A generator counts its connections' retransmissions and timeouts (generators table): none on an idle
/// path; one replayed connection (a 300-byte request, a two-segment response) whose last response
/// segment is lost has nothing to raise duplicate ACKs, so it retransmits once, after one timeout.
#[test]
fn generators_count_their_connections_retransmissions_and_timeouts() {
    let r = simulate(&network("1Gbps", "", HTTP, 30));
    let g = &r.generators[0];
    assert!(g.connections_started > 500);
    assert_eq!((g.retransmits, g.timeouts, g.timeouts_after_ecn), (0, 0, 0));

    let trace = std::env::temp_dir().join(format!("aqmlab-one-connection-{}.txt", std::process::id()));
    std::fs::write(&trace, "0.1 300 2000 0\n").unwrap();
    let links = [
        link_table("client", "R0", "1Gbps", "1ms", LARGE_DROPTAIL),
        // R1 -> R0 loses its second data packet: the response's last segment.
        link_table("R0", "R1", "10Mbps", "1ms", LARGE_DROPTAIL) + "loss_ba = { list = [2] }\n",
        link_table("R1", "server", "1Gbps", "1ms", LARGE_DROPTAIL),
    ]
    .concat();
    let text = format!(
        "duration = 10\n[tcp]\nrecovery = \"full_tcp\"\n{links}[[http]]\nclients = \"client\"\nservers = \"server\"\n\
         trace = \"{}\"\n",
        trace.display()
    );
    let r = simulate(&text);
    std::fs::remove_file(&trace).unwrap();
    let g = &r.generators[0];
    assert_eq!((g.connections_started, g.connections_finished), (1, 1));
    assert_eq!((g.retransmits, g.timeouts), (1, 1));
    assert_eq!(r.responses[0].pairs, 1);
}
