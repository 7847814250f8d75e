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

pub use engine::{Progress, Simulation};
pub use metrics::RunResult;
pub use scenario::build::Model;
pub use scenario::ScenarioError;

/// Parses scenario `text` (from `file`, for messages), applies `key=value` overrides and an optional
/// seed, and checks everything a run needs.
pub fn load(text: &str, file: &str, overrides: &[String], seed: Option<u64>) -> Result<Model, ScenarioError> {
    let text = scenario::apply_overrides(text, overrides, file)?;
    let mut s = scenario::parse(&text, file)?;
    if let Some(seed) = seed {
        s.seed = seed;
    }
    scenario::build::build(&s, &text, file)
}

/// Simulates a model; `progress` is called with the simulated time every 0.5% of the run.
pub fn run(model: Model, progress: Option<Progress>) -> RunResult {
    Simulation::new(model).run(progress)
}
