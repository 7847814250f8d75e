//! aqmlab-core: a packet-level discrete-event simulator for active queue management studies.
//!
//! Time is an integer count of nanoseconds; every random number comes from a stream derived from the run
//! seed and the component that uses it; packets live in a slab. See `README.md` for the scenario format.
//!
//! Entry points: [`load`] parses and checks a scenario, [`run`] simulates it.

pub mod aqm;
pub mod engine;
pub mod estimate;
pub mod metrics;
pub mod net;
pub mod scenario;
pub mod sim;
pub mod tables;
pub mod tcp;
pub mod topology;
pub mod traffic;

pub use engine::{Batch, Progress, RecordSink, Simulation};
pub use estimate::{Estimate, Limit};
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
/// seed, and checks everything a run needs, including that its tables fit in half of the machine's
/// memory (see [`load_checked`]).
pub fn load(text: &str, file: &str, overrides: &[String], seed: Option<u64>) -> Result<Model, ScenarioError> {
    load_checked(text, file, overrides, seed, Limit::machine_default(), false).map(|(m, _)| m)
}

/// As [`load`], with the run's resource estimate, refused (a located error naming the setting to
/// change) when its in-memory tables would need more than `limit`. The flows, link directions and
/// queue samples are counted before the model is built, so a scenario of a billion flows is refused
/// without allocating them. With `streamed` (the run will go through [`run_with_sink`]), queue samples
/// and the window trace count one batch in memory and their files against `limit.disk_free`.
pub fn load_checked(
    text: &str,
    file: &str,
    overrides: &[String],
    seed: Option<u64>,
    limit: Limit,
    streamed: bool,
) -> Result<(Model, Estimate), ScenarioError> {
    let text = resolve(text, file, overrides, seed)?;
    let s = scenario::parse(&text, file)?;
    Estimate::of_scenario(&s, streamed).check(limit, &text, file)?;
    let mut model = scenario::build::build(&s, &text, file)?;
    let estimate = Estimate::of_model(&s, &model, streamed);
    estimate.check(limit, &text, file)?;
    model.warnings.extend(estimate.disk_warning(limit, &text, file));
    Ok((model, estimate))
}

/// What `aqmlab validate` reports: the model and its estimate as [`load_checked`] gives them, or else
/// every error of the scenario (the first as [`load_checked`] reports it) and every warning of the
/// parts that build (see [`scenario::every_error`]).
pub fn check(
    text: &str,
    file: &str,
    overrides: &[String],
    seed: Option<u64>,
    limit: Limit,
    streamed: bool,
) -> Result<(Model, Estimate), (Vec<ScenarioError>, Vec<ScenarioError>)> {
    load_checked(text, file, overrides, seed, limit, streamed).map_err(|first| {
        match resolve(text, file, overrides, seed) {
            Ok(text) => scenario::every_error::every_error(&text, file, first, limit, streamed),
            Err(_) => (vec![first], Vec::new()),
        }
    })
}

/// Simulates a model; `progress` is called with the simulated time every 0.5% of the run. Pair
/// records (with `measure.pair_records`), queue samples, the window trace and the windowed statistics
/// (with `measure.window`) are returned in the result.
pub fn run(model: Model, progress: Option<Progress>) -> RunResult {
    Simulation::new(model, None).run(progress)
}

/// As [`run`], but completed pairs, queue samples, window-trace rows and the windowed statistics go to
/// `sink` in batches instead of accumulating in memory (the result's columns of these tables are empty).
pub fn run_with_sink(model: Model, progress: Option<Progress>, sink: RecordSink) -> RunResult {
    Simulation::new(model, Some(sink)).run(progress)
}

/// As [`run`], writing every result table into folder `dir` as `<table>.parquet` (see [`tables`]):
/// the tables that grow with the run's length as it goes, the others at its end. `pcap(link, bytes)`
/// gets the captures' bytes (`measure.pcap`; see [`Batch::Pcap`]). A failure to write stops the run
/// and is returned.
pub fn run_into(
    model: Model,
    mut progress: Option<Progress>,
    dir: &std::path::Path,
    pcap: &mut dyn FnMut(&str, &[u8]),
) -> std::io::Result<RunResult> {
    let mut files = tables::folder::TableFiles::create(dir, &model)?;
    let failure = std::cell::RefCell::new(None);
    let mut on_progress = |t| failure.borrow().is_none() && progress.as_mut().is_none_or(|p| p(t));
    let mut on_batch = |batch: Batch| match batch {
        Batch::Pcap { link, bytes } => pcap(link, bytes),
        batch => {
            if let Err(e) = files.append(batch) {
                failure.borrow_mut().get_or_insert(e);
            }
        }
    };
    let result = run_with_sink(model, Some(&mut on_progress), &mut on_batch);
    if let Some(e) = failure.into_inner() {
        return Err(e);
    }
    files.finish(&result)?;
    Ok(result)
}
