//! Benchmark driver: runs a scenario file and prints wall time, peak RSS and link forwards per second.
//!
//! `aqmlab-bench SCENARIO.toml [key=value ...]` — overrides as in `aqmlab run --set`. The bottleneck (the
//! busiest link) also reports its arrivals, drops by reason and marks, and the flows' TCP loss-recovery
//! totals (whole run), for `validation/compare_ns2.py`. Web runs also get `pairs` (completed pairs
//! started after the warm-up), `responses` (per class: pairs, incomplete, mean and p10/p50/p90/p99 response
//! time), `generators` (connections started/finished/open, pairs planned) and every link's utilization.

use std::time::Instant;

fn peak_rss_mb() -> f64 {
    // VmHWM in /proc/self/status is the peak resident set size in kB (Linux).
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| s.lines().find(|l| l.starts_with("VmHWM:")).map(str::to_owned))
        .and_then(|l| l.split_whitespace().nth(1).and_then(|v| v.parse::<f64>().ok()))
        .map_or(f64::NAN, |kb| kb / 1024.0)
}

/// Web-traffic and per-link fields: response-time quantiles per class, generator counts, every link
/// direction's utilization/drops/arrivals, and run-level facts (end time, peak packets, flow slots).
fn extras(r: &aqmlab_core::metrics::RunResult) -> String {
    let links: Vec<serde_json::Value> = r
        .links
        .iter()
        .map(|l| {
            serde_json::json!({
                "link": l.link,
                "utilization": l.utilization,
                "drops": l.drops,
                "arrivals": l.counters.arrivals,
            })
        })
        .collect();
    let pairs: u64 = r.responses.iter().map(|x| x.pairs).sum();
    format!(
        "\"pairs\": {}, \"responses\": {}, \"generators\": {}, \"links\": {}, \"end_s\": {:.3}, \
\"ended_by\": \"{}\", \"packets_peak\": {}, \"flow_slots\": {}, \"connections\": {}",
        pairs,
        serde_json::to_string(&r.responses).unwrap_or_else(|_| "[]".into()),
        serde_json::to_string(&r.generators).unwrap_or_else(|_| "[]".into()),
        serde_json::Value::Array(links),
        r.summary.end_s,
        r.summary.ended_by,
        r.summary.packets_peak,
        r.summary.flow_slots,
        r.summary.flows,
    )
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(path) = args.first() else {
        eprintln!("usage: aqmlab-bench SCENARIO.toml [key=value ...]");
        std::process::exit(2);
    };
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| {
        eprintln!("{path}: {e}");
        std::process::exit(2)
    });
    let model = aqmlab_core::load(&text, path, &args[1..], None).unwrap_or_else(|e| {
        eprintln!("{e}");
        std::process::exit(2)
    });
    let t0 = Instant::now();
    let r = aqmlab_core::run(model, None);
    let wall = t0.elapsed().as_secs_f64();
    // With measure.pair_records = true, AQMLAB_BENCH_PAIRS=FILE writes the completed pairs as CSV.
    if let Ok(file) = std::env::var("AQMLAB_BENCH_PAIRS") {
        let p = &r.pairs;
        let mut out = String::from("connection,index,start_s,response_time_s,request_bytes,response_bytes\n");
        for i in 0..p.len() {
            out.push_str(&format!(
                "{},{},{:.6},{:.6},{},{}\n",
                p.connection[i],
                p.index[i],
                p.start_s[i],
                p.response_time_s[i],
                p.request_bytes[i],
                p.response_bytes[i]
            ));
        }
        if let Err(e) = std::fs::write(&file, out) {
            eprintln!("{file}: {e}");
        }
    }
    let bottleneck = r.links.iter().max_by(|a, b| a.utilization.total_cmp(&b.utilization)).expect("a link");
    let goodput: f64 = r.flows.iter().map(|f| f.goodput_bps).sum();
    println!(
        "{{\"simulator\": \"aqmlab\", \"scenario\": \"{}\", \"flows\": {}, \"wall_s\": {:.3}, \"peak_rss_mb\": {:.1}, \
\"events\": {}, \"link_forwards\": {}, \"forwards_per_s\": {:.0}, \"goodput_mbps\": {:.3}, \"bottleneck\": \"{}\", \
\"drops\": {}, \"utilization\": {:.4}, \"q_mean_pkts\": {:.2}, \"q_std_pkts\": {:.2}, \
\"arrivals\": {}, \"drops_overflow\": {}, \"drops_early\": {}, \"marks\": {}, \"q_time_mean_pkts\": {:.2}, \"tcp_timeouts\": {}, \"tcp_fast_retransmits\": {}, \
\"tcp_retransmits\": {}, {}}}",
        r.summary.name,
        r.summary.flows,
        wall,
        peak_rss_mb(),
        r.summary.events,
        r.summary.link_forwards,
        r.summary.link_forwards as f64 / wall,
        goodput / 1e6,
        bottleneck.link,
        bottleneck.drops,
        bottleneck.utilization,
        bottleneck.q_sample_mean_pkts,
        bottleneck.q_sample_std_pkts,
        bottleneck.counters.arrivals,
        bottleneck.counters.drops_overflow,
        bottleneck.counters.drops_early + bottleneck.counters.drops_not_ect,
        bottleneck.counters.marks,
        bottleneck.q_mean_pkts,
        r.flows.iter().map(|f| f.timeouts).sum::<u64>(),
        r.flows.iter().map(|f| f.fast_retransmits).sum::<u64>(),
        r.flows.iter().map(|f| f.retransmits).sum::<u64>(),
        extras(&r),
    );
}
