//! aqmlab-core: a packet-level discrete-event simulator for active queue management studies.
//!
//! Time is an integer count of nanoseconds; every random number comes from a stream derived from the run
//! seed and the component that uses it; packets live in a slab. See `README.md` for the scenario format.
//!
//! Entry points: [`load`] parses and checks a scenario, [`run`] simulates it.

pub mod aqm;
pub mod engine;
pub mod metrics;
pub mod net;
pub mod scenario;
pub mod sim;
pub mod tcp;
pub mod topology;
pub mod traffic;

pub use engine::{Progress, RecordSink, Simulation};
pub use metrics::RunResult;
pub use scenario::build::Model;
pub use scenario::ScenarioError;

/// The scenario text with `key=value` overrides and an optional seed applied: exactly what a run with
/// these arguments simulates (comments and layout of untouched parts are kept).
pub fn resolve(
    text: &str,
    file: &str,
    overrides: &[String],
    seed: Option<u64>,
) -> Result<String, ScenarioError> {
    let mut all = overrides.to_vec();
    if let Some(seed) = seed {
        all.push(format!("seed={seed}"));
    }
    scenario::apply_overrides(text, &all, file)
}

/// Parses scenario `text` (from `file`, for messages), applies `key=value` overrides and an optional
/// seed, and checks everything a run needs.
pub fn load(text: &str, file: &str, overrides: &[String], seed: Option<u64>) -> Result<Model, ScenarioError> {
    let text = resolve(text, file, overrides, seed)?;
    let s = scenario::parse(&text, file)?;
    scenario::build::build(&s, &text, file)
}

/// Simulates a model; `progress` is called with the simulated time every 0.5% of the run. Pair
/// records (with `measure.pair_records`) are returned in the result.
pub fn run(model: Model, progress: Option<Progress>) -> RunResult {
    Simulation::new(model, None).run(progress)
}

/// As [`run`], but completed pairs go to `sink` in batches instead of accumulating in memory.
pub fn run_with_sink(model: Model, progress: Option<Progress>, sink: RecordSink) -> RunResult {
    Simulation::new(model, Some(sink)).run(progress)
}
