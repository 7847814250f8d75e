//! Benchmark driver: runs a scenario file and prints wall time, peak RSS and link forwards per second.
//!
//! `aqmlab-bench SCENARIO.toml [--link=A->B] [key=value ...]` — overrides as in `aqmlab run --set`. The
//! bottleneck (the link direction named by `--link`, else the busiest one) also reports its arrivals, drops by reason and marks, and the flows' TCP loss-recovery
//! totals (whole run), for `validation/compare_ns2.py`.

use std::time::Instant;

fn peak_rss_mb() -> f64 {
    // VmHWM in /proc/self/status is the peak resident set size in kB (Linux).
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| s.lines().find(|l| l.starts_with("VmHWM:")).map(str::to_owned))
        .and_then(|l| l.split_whitespace().nth(1).and_then(|v| v.parse::<f64>().ok()))
        .map_or(f64::NAN, |kb| kb / 1024.0)
}

fn main() {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let link = args.iter().position(|a| a.starts_with("--link=")).map(|i| args.remove(i)[7..].to_string());
    let Some(path) = args.first() else {
        eprintln!("usage: aqmlab-bench SCENARIO.toml [--link=A->B] [key=value ...]");
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
    let bottleneck = match &link {
        Some(name) => r.links.iter().find(|l| l.link == *name).unwrap_or_else(|| {
            eprintln!("--link={name}: no such link direction");
            std::process::exit(2)
        }),
        None => r.links.iter().max_by(|a, b| a.utilization.total_cmp(&b.utilization)).expect("a link"),
    };
    let goodput: f64 = r.flows.iter().map(|f| f.goodput_bps).sum();
    println!(
        "{{\"simulator\": \"aqmlab\", \"scenario\": \"{}\", \"flows\": {}, \"wall_s\": {:.3}, \"peak_rss_mb\": {:.1}, \
\"events\": {}, \"link_forwards\": {}, \"forwards_per_s\": {:.0}, \"goodput_mbps\": {:.3}, \"bottleneck\": \"{}\", \
\"drops\": {}, \"utilization\": {:.4}, \"q_mean_pkts\": {:.2}, \"q_std_pkts\": {:.2}, \
\"arrivals\": {}, \"drops_overflow\": {}, \"drops_early\": {}, \"marks\": {}, \"q_time_mean_pkts\": {:.2}, \"q_samples\": {}, \"tcp_timeouts\": {}, \"tcp_fast_retransmits\": {}, \
\"tcp_retransmits\": {}}}",
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
        bottleneck.q_samples,
        r.flows.iter().map(|f| f.timeouts).sum::<u64>(),
        r.flows.iter().map(|f| f.fast_retransmits).sum::<u64>(),
        r.flows.iter().map(|f| f.retransmits).sum::<u64>(),
    );
    if std::env::var_os("AQMLAB_BENCH_CLASSES").is_some() {
        // Diagnostics: per traffic class, goodput in the window and loss-recovery totals (whole run).
        let mut classes: Vec<&str> = r.flows.iter().map(|f| f.class.as_str()).collect();
        classes.dedup();
        for c in classes {
            let fl: Vec<_> = r.flows.iter().filter(|f| f.class == c).collect();
            eprintln!(
                "{{\"class\": \"{c}\", \"flows\": {}, \"goodput_mbps\": {:.3}, \"packets_sent\": {}, \"timeouts\": {}, \"fast_retransmits\": {}, \"retransmits\": {}}}",
                fl.len(),
                fl.iter().map(|f| f.goodput_bps).sum::<f64>() / 1e6,
                fl.iter().map(|f| f.packets_sent).sum::<u64>(),
                fl.iter().map(|f| f.timeouts).sum::<u64>(),
                fl.iter().map(|f| f.fast_retransmits).sum::<u64>(),
                fl.iter().map(|f| f.retransmits).sum::<u64>(),
            );
        }
    }
}
