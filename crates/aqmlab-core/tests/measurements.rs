//! The delay and throughput measurements checked against hand arithmetic: queueing delay (sojourn) per
//! link direction, one-way delay and jitter per flow, a finite transfer's completion time, and the
//! per-flow throughput series.

mod common;

use aqmlab_core::metrics::FlowRow;
use aqmlab_core::RunResult;
use common::{link, link_table, simulate};

fn flow<'a>(r: &'a RunResult, name: &str) -> &'a FlowRow {
    r.flows.iter().find(|f| f.group == name).unwrap()
}

/// A table as JSON, to compare results.
fn json<T: serde::Serialize>(v: &T) -> serde_json::Value {
    serde_json::to_value(v).expect("serialises")
}

/// Transmission time of `bytes` at `bps`, in seconds.
fn tx(bytes: f64, bps: f64) -> f64 {
    bytes * 8.0 / bps
}

/// `a` and `b` equal to the last few bits (the engine sums nanoseconds exactly; the expectation here
/// adds seconds as floats).
fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-12 * b.abs().max(1e-3)
}

/// Hosts S1 and S2 on router A (100 Mb/s, 1 ms), A to R at 10 Mb/s, 2 ms, with `queue`; `flows` and
/// `measure` appended.
fn two_senders(queue: &str, measure: &str, flows: &str) -> String {
    let senders = link_table("S1", "A", "100Mbps", "1ms", "") + &link_table("S2", "A", "100Mbps", "1ms", "");
    let bottleneck = link_table("A", "R", "10Mbps", "2ms", queue);
    format!(
        r#"
duration = "1s"
[measure]
{measure}
{senders}{bottleneck}{flows}
"#
    )
}

/// One 1000-byte datagram at t = 0 from `src`.
fn one_datagram(name: &str, src: &str) -> String {
    format!(
        "[[flows]]\nname = \"{name}\"\nkind = \"udp_cbr\"\nsrc = \"{src}\"\ndst = \"R\"\nrate = \"1Mbps\"\n\
         packet_size = 1000\nstop = \"1ns\"\n"
    )
}

/// A packet on an idle path waits nowhere, and its one-way delay is the sum of transmission and
/// propagation times, with no jitter; a constant-rate flow on that path is the same packet after packet.
#[test]
fn an_uncongested_path_adds_transmission_and_propagation_only() {
    let cbr = "[[flows]]\nname = \"cbr\"\nkind = \"udp_cbr\"\nsrc = \"S1\"\ndst = \"R\"\nrate = \"1Mbps\"\n\
               packet_size = 1000\n";
    for flows in [one_datagram("one", "S1"), cbr.to_string()] {
        let r = simulate(&two_senders("{ kind = \"droptail\" }", "warmup = 0", &flows));
        let f = &r.flows[0];
        // 1000 bytes: 80 µs at 100 Mb/s, 800 µs at 10 Mb/s; 1 ms + 2 ms of propagation.
        let owd = tx(1000.0, 1e8) + 1e-3 + tx(1000.0, 1e7) + 2e-3;
        assert!(f.bytes_delivered > 0 && close(f.owd_mean_s, owd), "{f:?}");
        assert_eq!((f.owd_min_s, f.owd_max_s), (f.owd_mean_s, f.owd_mean_s), "{f:?}");
        assert_eq!(f.jitter_s, 0.0);
        for name in ["S1->A", "A->R"] {
            let l = link(&r, name);
            assert!(l.counters.departures > 0, "{name}");
            assert_eq!(
                [l.sojourn_mean_s, l.sojourn_p50_s, l.sojourn_p90_s, l.sojourn_p99_s, l.sojourn_max_s],
                [0.0; 5],
                "{name}"
            );
        }
        assert!(link(&r, "S2->A").sojourn_mean_s.is_nan(), "nothing sent there");
    }
}

/// Two datagrams reach A at the same instant: one is sent at once, the other waits one transmission
/// time (800 µs at 10 Mb/s), whatever the discipline (drop-tail is run by the link itself, RED sends
/// in arrival order, CoDel is asked at every transmission).
#[test]
fn a_packet_behind_another_waits_one_transmission_time() {
    let flows = one_datagram("first", "S1") + &one_datagram("second", "S2");
    let measure = "warmup = 0\nsample_links = [\"A->R\"]\nsample_interval = \"1ms\"";
    for queue in ["{ kind = \"droptail\" }", "{ kind = \"red\" }", "{ kind = \"codel\" }"] {
        let r = simulate(&two_senders(queue, measure, &flows));
        let l = link(&r, "A->R");
        let wait = tx(1000.0, 1e7);
        assert_eq!(l.counters.departures, 2, "{queue}");
        assert!(close(l.sojourn_mean_s, wait / 2.0) && close(l.sojourn_max_s, wait), "{queue}: {l:?}");
        assert_eq!(l.sojourn_p50_s, 0.0, "{queue}: half of the packets did not wait");
        assert!(l.sojourn_p99_s <= l.sojourn_max_s && l.sojourn_p99_s > wait / 1.024, "{queue}: {l:?}");
        // The later datagram's one-way delay is one transmission time longer.
        let (a, b) = (flow(&r, "first").owd_mean_s, flow(&r, "second").owd_mean_s);
        assert!(close((a - b).abs(), wait), "{queue}: {a} {b}");
        // Both reach A at 1.08 ms and the second starts at 1.88 ms: the sample at 1 ms has seen no
        // transmission, the one at 2 ms the second packet's wait.
        let s = &r.queue_samples;
        assert_eq!((s.t[1], s.sojourn_s[1]), (1e-3, 0.0), "{queue}");
        assert!(s.t[2] == 2e-3 && close(s.sojourn_s[2], wait), "{queue}: {:?}", s.sojourn_s);
    }
}

/// Finite transfers on an idle 10 Mb/s, 5 ms path, without delayed ACKs, initial window 2. One full
/// window (2 segments): the handshake (SYN, SYN-ACK: 40-byte packets), then both segments back to
/// back. Six segments: the first ACK comes back one segment and a round trip later and lets 2 more go
/// (cwnd 3), the second, one segment later, 2 more (cwnd 4); the link is never idle after that.
#[test]
fn a_finite_transfer_completes_after_the_handshake_and_slow_start() {
    let (rate, d, seg) = (1e7, 5e-3, 1500.0);
    let (t40, t1500) = (tx(40.0, rate), tx(seg, rate));
    for (segments, expected) in [
        (2, 2.0 * (t40 + d) + 2.0 * t1500 + d),
        (6, 2.0 * (t40 + d) + (t1500 + 2.0 * d + t40) + 4.0 * t1500 + d),
    ] {
        let text = format!(
            "duration = \"2s\"\n[tcp]\nmss = 1460\ndelayed_ack = false\n[[links]]\na = \"S\"\n\
             b = \"R\"\nrate = \"10Mbps\"\ndelay = \"5ms\"\n[[flows]]\nname = \"file\"\nkind = \"tcp_bulk\"\n\
             src = \"S\"\ndst = \"R\"\nstart = \"0.1s\"\nbytes = {}\n",
            segments * 1460
        );
        let r = simulate(&text);
        let f = flow(&r, "file");
        assert_eq!((f.transfer_bytes, f.bytes_delivered), (segments * 1460, segments * 1460));
        assert!(close(f.fct_s, expected), "{segments} segments: {} s, expected {expected} s", f.fct_s);
        assert!(close(f.transfer_end_s, f.start_s + f.fct_s));
    }
    // A transfer that cannot finish within the run has no end.
    let text = "duration = \"1s\"\n[[links]]\na = \"S\"\nb = \"R\"\nrate = \"1Mbps\"\ndelay = \"5ms\"\n\
                [[flows]]\nkind = \"tcp_bulk\"\nsrc = \"S\"\ndst = \"R\"\nbytes = \"1MB\"\n";
    let f = &simulate(text).flows[0];
    assert!(f.transfer_bytes == 1_000_000 && f.transfer_end_s.is_nan() && f.fct_s.is_nan(), "{f:?}");
}

/// The throughput series: one row per flow and interval after the warm-up plus a last, shorter one at
/// the end; per flow, the rows add up to the flow's delivered bytes. Turning it on changes nothing else.
#[test]
fn the_flow_series_adds_up_to_the_delivered_bytes() {
    let links = link_table("S", "A", "100Mbps", "1ms", "")
        + &link_table("A", "R", "10Mbps", "10ms", "{ kind = \"red\", limit = 30 }");
    let text = format!(
        r#"
duration = "3.005s"
[measure]
warmup = "1s"
sample_interval = "10ms"
{links}[[flows]]
kind = "tcp_bulk"
src = "S"
dst = "R"
count = 2
[[flows]]
kind = "udp_poisson"
src = "S"
dst = "R"
rate = "2Mbps"
"#
    );
    let off = simulate(&text);
    let on = simulate(&text.replace("sample_interval", "flow_series = true\nsample_interval"));
    assert!(off.flow_series.is_empty());
    let s = &on.flow_series;
    for f in &on.flows {
        let rows: Vec<usize> = (0..s.len()).filter(|&i| s.flow[i] == f.flow).collect();
        assert_eq!(rows.len(), 201, "200 intervals of 10 ms and 5 ms at the end");
        assert_eq!((s.t[rows[0]], s.t[rows[200]]), (1.01, 3.005));
        let sum: u64 = rows.iter().map(|&i| s.bytes_delivered[i]).sum();
        assert!(f.bytes_delivered > 100_000 && sum == f.bytes_delivered, "flow {}: {sum} {f:?}", f.flow);
    }
    assert_eq!(json(&on.links), json(&off.links));
    assert_eq!(json(&on.flows), json(&off.flows));
}
