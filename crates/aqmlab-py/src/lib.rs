//! Python bindings: the module `aqmlab._core`. Scenarios go in as TOML text; a run writes its result
//! tables as Parquet files (`aqmlab_core::tables`, the one definition of their columns) and returns its
//! summary as JSON; no Python runs during a simulation except the optional progress callback, a few
//! hundred times per run, and the packet captures' writer.

// pyo3 0.22's #[pyfunction] expansion converts PyErr into PyErr, which newer clippy flags.
#![allow(clippy::useless_conversion)]

use arrow_array::{Array, Float64Array, Int64Array, RecordBatch, StringArray};
use pyo3::exceptions::{PyKeyboardInterrupt, PyOSError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict};
use std::path::PathBuf;
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

/// A table's columns as Python lists, `{column: [values]}`: Utf8 as str, Int64 as int, Float64 as float.
fn columns<'py>(py: Python<'py>, batch: &RecordBatch) -> PyResult<Bound<'py, PyDict>> {
    let dict = PyDict::new_bound(py);
    for (field, array) in batch.schema().fields().iter().zip(batch.columns()) {
        let any = array.as_any();
        let values = if let Some(a) = any.downcast_ref::<StringArray>() {
            a.iter().map(Option::unwrap_or_default).collect::<Vec<_>>().into_py(py)
        } else if let Some(a) = any.downcast_ref::<Int64Array>() {
            a.values().to_vec().into_py(py)
        } else if let Some(a) = any.downcast_ref::<Float64Array>() {
            a.values().to_vec().into_py(py)
        } else {
            unreachable!("{}: the tables have string, integer and float columns", field.name())
        };
        dict.set_item(field.name(), values)?;
    }
    Ok(dict)
}

/// Runs a scenario, writing its result tables into folder `out` as `<table>.parquet` (the tables that
/// grow with the run's length as it goes), and returns `(summary_json, tables)`: the run's summary, and
/// the tables written at its end (links, flows, classes, ...) as `{table: {column: [values]}}`, for
/// callers that print them without reading the files. `progress(sim_time_s)` is called every 0.5% of
/// the simulated time; Ctrl-C stops the run and raises KeyboardInterrupt. With `measure.pcap`,
/// `pcap(link, bytes)` receives the bytes to append to each captured link direction's pcap file.
/// Refused as `validate` refuses it when over `max_memory` or `disk_free`; a table that cannot be
/// written raises OSError.
#[pyfunction]
#[pyo3(signature = (text, file, out, overrides = Vec::new(), seed = None, progress = None, pcap = None, max_memory = None, disk_free = None))]
#[allow(clippy::too_many_arguments)]
fn run<'py>(
    py: Python<'py>,
    text: &str,
    file: &str,
    out: PathBuf,
    overrides: Vec<String>,
    seed: Option<u64>,
    progress: Option<PyObject>,
    pcap: Option<PyObject>,
    max_memory: Option<u64>,
    disk_free: Option<u64>,
) -> PyResult<(String, Bound<'py, PyDict>)> {
    let limit = limit(max_memory, disk_free);
    let (model, _) =
        aqmlab_core::load_checked(text, file, &overrides, seed, limit, true).map_err(scenario_error)?;
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
        let mut on_pcap = |link: &str, bytes: &[u8]| {
            if let Some(sink) = &pcap {
                Python::with_gil(|py| {
                    if let Err(e) = sink.call1(py, (link, PyBytes::new_bound(py, bytes))) {
                        failure.lock().expect("not poisoned").get_or_insert(e);
                    }
                });
            }
        };
        aqmlab_core::run_into(model, Some(&mut on_progress), &out, &mut on_pcap)
    });
    if let Some(e) = failure.into_inner().expect("not poisoned") {
        return Err(e);
    }
    let result = result.map_err(|e| PyOSError::new_err(e.to_string()))?;
    if result.summary.interrupted {
        return Err(PyKeyboardInterrupt::new_err("run interrupted"));
    }
    let tables = PyDict::new_bound(py);
    for (name, batch) in aqmlab_core::tables::end_of_run(&result) {
        tables.set_item(name, columns(py, &batch)?)?;
    }
    let summary = serde_json::to_string(&result.summary).map_err(|e| PyValueError::new_err(e.to_string()))?;
    Ok((summary, tables))
}

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add_function(wrap_pyfunction!(run, m)?)?;
    m.add_function(wrap_pyfunction!(validate, m)?)?;
    m.add_function(wrap_pyfunction!(resolve, m)?)?;
    Ok(())
}
