//! Python bindings: the module `aqmlab._core`. Scenarios go in as TOML text, results come out as JSON
//! text that the Python side turns into tables; no Python runs during a simulation except the optional
//! progress callback, a few hundred times per run.

// pyo3 0.22's #[pyfunction] expansion converts PyErr into PyErr, which newer clippy flags.
#![allow(clippy::useless_conversion)]

use pyo3::exceptions::{PyKeyboardInterrupt, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use std::sync::Mutex;

fn scenario_error(e: aqmlab_core::ScenarioError) -> PyErr {
    PyValueError::new_err(e.to_string())
}

/// The first error, as `run` raises it, with every error of the scenario as its `errors` and the
/// warnings of the parts that build as its `warnings` (lists of strings).
fn every_error(
    py: Python<'_>,
    errors: Vec<aqmlab_core::ScenarioError>,
    warnings: Vec<aqmlab_core::ScenarioError>,
) -> PyErr {
    let texts = |v: Vec<aqmlab_core::ScenarioError>| v.iter().map(ToString::to_string).collect::<Vec<_>>();
    let errors = texts(errors);
    let err = PyValueError::new_err(errors[0].clone());
    let value = err.value_bound(py);
    if let Err(e) = value.setattr("errors", errors).and_then(|()| value.setattr("warnings", texts(warnings)))
    {
        return e;
    }
    err
}

/// The memory limit of a run: `max_memory` bytes, or half of the machine's memory; the streamed tables'
/// files must fit in `disk_free` bytes.
fn limit(max_memory: Option<u64>, disk_free: Option<u64>) -> aqmlab_core::Limit {
    let limit = max_memory.map_or_else(aqmlab_core::Limit::machine_default, aqmlab_core::Limit::given);
    aqmlab_core::Limit { disk_free, ..limit }
}

/// Parses and checks a scenario; returns a JSON description of the resolved model (nodes, links, flows),
/// its resource estimate (for a run through `run` with `records`, which streams the long tables) and
/// its warnings. A scenario whose tables would need more memory than `max_memory` bytes (default half
/// of the machine's), or whose streamed tables more than `disk_free` bytes, is refused. A refusal is a
/// ValueError with the first error (as `run` says it) and every error in its `errors` attribute.
#[pyfunction]
#[pyo3(signature = (text, file, overrides = Vec::new(), seed = None, max_memory = None, disk_free = None))]
fn validate(
    text: &str,
    file: &str,
    overrides: Vec<String>,
    seed: Option<u64>,
    max_memory: Option<u64>,
    disk_free: Option<u64>,
) -> PyResult<String> {
    let limit = limit(max_memory, disk_free);
    let (m, estimate) = aqmlab_core::check(text, file, &overrides, seed, limit, true)
        .map_err(|(errors, warnings)| Python::with_gil(|py| every_error(py, errors, warnings)))?;
    let desc = serde_json::json!({
        "name": m.name,
        "seed": m.seed,
        "duration_s": m.duration as f64 * 1e-9,
        "warmup_s": m.warmup as f64 * 1e-9,
        "nodes": m.nodes.len(),
        "links": m.links.iter().map(|l| serde_json::json!({
            "link": l.name, "rate_bps": l.info.rate_bps, "delay_s": l.info.delay as f64 * 1e-9,
            "queue": l.queue.name(),
        })).collect::<Vec<_>>(),
        "flows": m.flows.len(),
        "classes": m.classes,
        "warnings": m.warnings.iter().map(ToString::to_string).collect::<Vec<_>>(),
        "estimate": estimate,
        "max_memory": limit.bytes,
    });
    Ok(desc.to_string())
}

/// The scenario text with overrides and seed applied, as a run with these arguments simulates it.
#[pyfunction]
#[pyo3(signature = (text, file, overrides = Vec::new(), seed = None))]
fn resolve(text: &str, file: &str, overrides: Vec<String>, seed: Option<u64>) -> PyResult<String> {
    aqmlab_core::resolve(text, file, &overrides, seed).map_err(scenario_error)
}

/// Runs a scenario and returns its results as JSON. `progress(sim_time_s)` is called every 0.5% of the
/// simulated time; Ctrl-C stops the run and raises KeyboardInterrupt. With `records`,
/// `records(table, batch_json)` receives the rows of the tables that grow with the run's length —
/// `"queue_samples"`, `"cwnd_trace"`, `"flow_series"` and, with `measure.pair_records`, `"pairs"` — in
/// column-wise batches as the run goes (without it they come back in the result), and, with
/// `measure.pcap`, `records("pcap", (link, bytes))` the bytes to append to each captured link
/// direction's pcap file (without `records` nothing is captured). Refused as
/// `validate` refuses it when over `max_memory` or `disk_free`.
#[pyfunction]
#[pyo3(signature = (text, file, overrides = Vec::new(), seed = None, progress = None, records = None, max_memory = None, disk_free = None))]
#[allow(clippy::too_many_arguments)]
fn run(
    py: Python<'_>,
    text: &str,
    file: &str,
    overrides: Vec<String>,
    seed: Option<u64>,
    progress: Option<PyObject>,
    records: Option<PyObject>,
    max_memory: Option<u64>,
    disk_free: Option<u64>,
) -> PyResult<String> {
    let streamed = records.is_some();
    let limit = limit(max_memory, disk_free);
    let (model, _) =
        aqmlab_core::load_checked(text, file, &overrides, seed, limit, streamed).map_err(scenario_error)?;
    let failure: Mutex<Option<PyErr>> = Mutex::new(None);
    let result = py.allow_threads(|| {
        let mut on_progress = |t: u64| -> bool {
            Python::with_gil(|py| {
                if failure.lock().expect("not poisoned").is_some() {
                    return false;
                }
                let outcome = py.check_signals().and_then(|()| match &progress {
                    Some(p) => p.call1(py, (t as f64 * 1e-9,)).map(drop),
                    None => Ok(()),
                });
                match outcome {
                    Ok(()) => true,
                    Err(e) => {
                        *failure.lock().expect("not poisoned") = Some(e);
                        false
                    }
                }
            })
        };
        match &records {
            Some(sink) => {
                let mut on_records = |batch: aqmlab_core::Batch| {
                    let (table, json) = match batch {
                        aqmlab_core::Batch::Pairs(b) => ("pairs", serde_json::to_string(b)),
                        aqmlab_core::Batch::QueueSamples(b) => ("queue_samples", serde_json::to_string(b)),
                        aqmlab_core::Batch::CwndTrace(b) => ("cwnd_trace", serde_json::to_string(b)),
                        aqmlab_core::Batch::FlowSeries(b) => ("flow_series", serde_json::to_string(b)),
                        aqmlab_core::Batch::Pcap { link, bytes } => {
                            // Raw bytes, not JSON: `records("pcap", (link, bytes))`.
                            Python::with_gil(|py| {
                                let batch = (link, PyBytes::new_bound(py, bytes));
                                if let Err(e) = sink.call1(py, ("pcap", batch)) {
                                    failure.lock().expect("not poisoned").get_or_insert(e);
                                }
                            });
                            return;
                        }
                    };
                    let json = json.expect("a batch serialises");
                    Python::with_gil(|py| {
                        if let Err(e) = sink.call1(py, (table, json)) {
                            failure.lock().expect("not poisoned").get_or_insert(e);
                        }
                    })
                };
                aqmlab_core::run_with_sink(model, Some(&mut on_progress), &mut on_records)
            }
            None => aqmlab_core::run(model, Some(&mut on_progress)),
        }
    });
    if let Some(e) = failure.into_inner().expect("not poisoned") {
        return Err(e);
    }
    if result.summary.interrupted {
        return Err(PyKeyboardInterrupt::new_err("run interrupted"));
    }
    serde_json::to_string(&result).map_err(|e| PyValueError::new_err(e.to_string()))
}

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add_function(wrap_pyfunction!(run, m)?)?;
    m.add_function(wrap_pyfunction!(validate, m)?)?;
    m.add_function(wrap_pyfunction!(resolve, m)?)?;
    Ok(())
}
