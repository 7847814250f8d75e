//! Prints `N` successive draws of one PackMime-HTTP sampler, one per line, for
//! `validation/compare_packmime_samplers.py`, which sets them beside ns-2.35's random variables
//! drawn the same way (`validation/ns2/packmime_samples.tcl`).
//!
//!     cargo run --release --example packmime_samples -- KIND RATE N SEED
//!
//! KIND: `arrivals` (gaps between connection starts, s), `requests`, `responses` (bytes),
//! `rtt_client`, `rtt_server` (DelayBox delays, ms, as ns-2's `PackMimeHTTPXmit`).

use aqmlab_core::sim::rng::stream;
use aqmlab_core::traffic::packmime::{FlowArrivals, RequestSizes, ResponseSizes, RttModel, RttSide};
use std::io::{BufWriter, Write};
use std::process::exit;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let usage = "usage: packmime_samples arrivals|requests|responses|rtt_client|rtt_server RATE N SEED";
    let [kind, rate, n, seed] = args.as_slice() else {
        eprintln!("{usage}");
        exit(2)
    };
    let (Ok(rate), Ok(n), Ok(seed)) = (rate.parse::<f64>(), n.parse::<usize>(), seed.parse::<u64>()) else {
        eprintln!("{usage}");
        exit(2)
    };
    let mut rng = stream(seed, &format!("packmime_samples/{kind}"));
    let mut draw: Box<dyn FnMut(&mut _) -> f64> = match kind.as_str() {
        "arrivals" => {
            let mut s = FlowArrivals::new(rate, true, &mut rng);
            Box::new(move |r| s.next_gap(r))
        }
        "requests" => {
            let mut s = RequestSizes::new(rate, true, &mut rng);
            Box::new(move |r| s.next(r) as f64)
        }
        "responses" => {
            let mut s = ResponseSizes::new(rate);
            Box::new(move |r| s.next(r) as f64)
        }
        "rtt_client" | "rtt_server" => {
            let side = if kind == "rtt_client" { RttSide::Client } else { RttSide::Server };
            let mut s = RttModel::new(rate, side, true, &mut rng);
            Box::new(move |r| s.next_delay(r) * 1e3)
        }
        _ => {
            eprintln!("{usage}");
            exit(2)
        }
    };
    let mut out = BufWriter::new(std::io::stdout().lock());
    for _ in 0..n {
        writeln!(out, "{}", draw(&mut rng)).expect("stdout");
    }
}
