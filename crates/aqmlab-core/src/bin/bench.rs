//! Benchmark driver: runs a scenario file and prints one JSON line with wall time, peak RSS and link
//! forwards per second, plus what the validation scripts compare with ns-2.
//!
//! `aqmlab-bench SCENARIO.toml [--link=A->B] [--links] [--out=DIR] [key=value ...]` — overrides as in
//! `aqmlab run --set`; `--out` writes the result tables into `DIR` as `aqmlab run` does (the same
//! `<table>.parquet` files, without `summary.json` and packet captures).
//! The bottleneck (the link direction named by `--link`, else the busiest one) reports its arrivals,
//! drops by reason, marks and queue statistics; the flows' TCP loss-recovery totals are for the
//! measurement window. Web runs also get `pairs` (completed pairs started after the warm-up),
//! `responses` (per class) and `generators`; `--links` adds every link direction's utilization, drops
//! and arrivals (left out by default: at BENCH-DUMBBELL-1000 writing them costs more than a tenth of
//! a short run's instructions, and the speed benchmark times the whole process). With
//! `measure.pair_records = true`, `AQMLAB_BENCH_PAIRS=FILE` writes the completed pairs as CSV (with
//! `--out`, they are in `DIR/pairs.parquet` instead).

use serde_json::json;
use std::time::Instant;

fn peak_rss_mb() -> f64 {
    // VmHWM in /proc/self/status is the peak resident set size in kB (Linux).
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| s.lines().find(|l| l.starts_with("VmHWM:")).map(str::to_owned))
        .and_then(|l| l.split_whitespace().nth(1).and_then(|v| v.parse::<f64>().ok()))
        .map_or(f64::NAN, |kb| kb / 1024.0)
}

fn fail(msg: &str) -> ! {
    eprintln!("{msg}");
    std::process::exit(2)
}

fn write_pairs(file: &str, p: &aqmlab_core::metrics::response::PairColumns) {
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
    if let Err(e) = std::fs::write(file, out) {
        fail(&format!("{file}: {e}"));
    }
}

fn main() {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let link = args.iter().position(|a| a.starts_with("--link=")).map(|i| args.remove(i)[7..].to_string());
    let all_links = args.iter().position(|a| a == "--links").map(|i| args.remove(i)).is_some();
    let out = args.iter().position(|a| a.starts_with("--out=")).map(|i| args.remove(i)[6..].to_string());
    let Some(path) = args.first() else {
        fail("usage: aqmlab-bench SCENARIO.toml [--link=A->B] [--links] [--out=DIR] [key=value ...]")
    };
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| fail(&format!("{path}: {e}")));
    let model = aqmlab_core::load(&text, path, &args[1..], None).unwrap_or_else(|e| fail(&e.to_string()));
    let t0 = Instant::now();
    let r = match &out {
        Some(dir) => std::fs::create_dir_all(dir)
            .and_then(|()| aqmlab_core::run_into(model, None, dir.as_ref(), &mut |_, _| {}))
            .unwrap_or_else(|e| fail(&format!("{dir}: {e}"))),
        None => aqmlab_core::run(model, None),
    };
    let wall = t0.elapsed().as_secs_f64();
    if let Ok(file) = std::env::var("AQMLAB_BENCH_PAIRS") {
        write_pairs(&file, &r.pairs);
    }
    let b = match &link {
        Some(name) => r
            .links
            .iter()
            .find(|l| l.link == *name)
            .unwrap_or_else(|| fail(&format!("--link={name}: no such link direction"))),
        None => r.links.iter().max_by(|a, b| a.utilization.total_cmp(&b.utilization)).expect("a link"),
    };
    let sum = |f: fn(&aqmlab_core::metrics::FlowRow) -> u64| r.flows.iter().map(f).sum::<u64>();
    let mut line = json!({
        "simulator": "aqmlab",
        "scenario": r.summary.name,
        "flows": r.summary.flows,
        "wall_s": wall,
        "peak_rss_mb": peak_rss_mb(),
        "events": r.summary.events,
        "link_forwards": r.summary.link_forwards,
        "forwards_per_s": r.summary.link_forwards as f64 / wall,
        "goodput_mbps": r.flows.iter().map(|f| f.goodput_bps).sum::<f64>() / 1e6,
        "bottleneck": b.link,
        "drops": b.drops,
        "utilization": b.utilization,
        "q_mean_pkts": b.q_sample_mean_pkts,
        "q_std_pkts": b.q_sample_std_pkts,
        "q_samples": b.q_samples,
        "q_time_mean_pkts": b.q_mean_pkts,
        "arrivals": b.counters.arrivals,
        "drops_overflow": b.counters.drops_overflow,
        "drops_early": b.counters.drops_early + b.counters.drops_not_ect,
        "marks": b.counters.marks,
        "tcp_timeouts": sum(|f| f.timeouts),
        "tcp_fast_retransmits": sum(|f| f.fast_retransmits),
        "tcp_retransmits": sum(|f| f.retransmits),
        "pairs": r.responses.iter().map(|x| x.pairs).sum::<u64>(),
        "responses": r.responses,
        "generators": r.generators,
        "end_s": r.summary.end_s,
        "ended_by": r.summary.ended_by,
        "packets_peak": r.summary.packets_peak,
        "flow_slots": r.summary.flow_slots,
        "connections": r.summary.flows,
    });
    if all_links {
        line["links"] = r
            .links
            .iter()
            .map(|l| {
                json!({
                    "link": l.link, "utilization": l.utilization, "drops": l.drops,
                    "arrivals": l.counters.arrivals,
                })
            })
            .collect();
    }
    println!("{line}");
}
