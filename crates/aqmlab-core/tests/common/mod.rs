//! What the whole-simulation tests share: running a scenario text, finding a link's row in the
//! results, and writing the `[[links]]` tables of the networks they build.
// Each test file is its own crate and uses only some of these.
#![allow(dead_code)]

use aqmlab_core::metrics::LinkRow;
use aqmlab_core::{load, run, RunResult};

/// Runs a scenario text; one that does not load fails the test with its located error.
pub fn simulate(text: &str) -> RunResult {
    run(load(text, "test.toml", &[], None).unwrap_or_else(|e| panic!("{e}")), None)
}

/// The bench dumbbell (scenarios/bench-dumbbell.toml) followed by `extra`, with `overrides` applied: a
/// scenario text, as `aqmlab run --set` would run it.
pub fn bench_dumbbell(extra: &str, overrides: &[&str]) -> String {
    let text = format!("{}{extra}", include_str!("../../../../scenarios/bench-dumbbell.toml"));
    let overrides: Vec<String> = overrides.iter().map(|o| o.to_string()).collect();
    aqmlab_core::resolve(&text, "bench-dumbbell.toml", &overrides, None).unwrap_or_else(|e| panic!("{e}"))
}

/// The row of link direction `name` (`"A->B"`).
pub fn link<'a>(r: &'a RunResult, name: &str) -> &'a LinkRow {
    r.links.iter().find(|l| l.link == name).unwrap_or_else(|| panic!("no link {name}"))
}

/// A `[[links]]` table joining `a` and `b`; `queue` is the inline table of its queue, or "" for the
/// default one. Lines written after it add fields to the same link.
pub fn link_table(a: &str, b: &str, rate: &str, delay: &str, queue: &str) -> String {
    let queue = if queue.is_empty() { String::new() } else { format!("queue = {queue}\n") };
    format!("[[links]]\na = \"{a}\"\nb = \"{b}\"\nrate = \"{rate}\"\ndelay = \"{delay}\"\n{queue}")
}

/// The queue of the links that are never the bottleneck under test.
pub const LARGE_DROPTAIL: &str = "{ kind = \"droptail\", limit = 1000 }";
