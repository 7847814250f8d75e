//! Topology builders that expand a compact description into nodes and links. Each is a table of the
//! scenario (`[dumbbell]`, `[parking_lot]`) implementing [`Topology`], listed in [`builders`]; README's
//! "How to add a topology builder" walks through one.

pub mod dumbbell;
pub mod parking_lot;

use crate::aqm::{droptail, QueueConfig};
use crate::scenario::units::{Duration, Rate};
use crate::scenario::{LinkSpec, Scenario};

/// What the network, `between` and the resource estimate ask of a builder's table. Fields are named
/// relative to the table (`hosts[2].queue`); the caller puts the table's key in front.
pub trait Topology {
    /// Its links in a fixed order (link and node order can change results), each with the field that
    /// makes it, or the field at fault and what was expected.
    fn links(&self) -> Result<Vec<(String, LinkSpec)>, (String, String)>;
    /// Its one-way delays with their fields, each to be shorter than the run.
    fn delays(&self) -> Vec<(String, Duration)>;
    /// How many links [`Topology::links`] makes, without making them.
    fn link_count(&self) -> u64;
    /// The field that sets how many links it makes.
    fn size_field(&self) -> &'static str;
    /// The field that sets the queue of its link number `link`.
    fn queue_field(&self, link: u64) -> String;
    /// The (source, destination) hosts of `between = "{key}:{spec}"` (`"{key}"`: `spec` is empty), or
    /// what was expected.
    fn host_pairs(&self, spec: &str) -> Result<Vec<(String, String)>, String>;
    /// How many pairs [`Topology::host_pairs`] gives, and the field that sets it, without making them.
    fn pair_count(&self, spec: &str) -> Result<(u64, String), String>;
}

/// The scenario's builders with their keys, in the order their links follow the `[[links]]`.
pub fn builders(s: &Scenario) -> Vec<(&'static str, &dyn Topology)> {
    let mut found: Vec<(&'static str, &dyn Topology)> = Vec::new();
    if let Some(d) = &s.dumbbell {
        found.push(("dumbbell", d));
    }
    if let Some(p) = &s.parking_lot {
        found.push(("parking_lot", p));
    }
    found
}

/// The builder and the spec `between` names: `"dumbbell"` or `"parking_lot:A->B"`.
pub fn between<'a>(s: &'a Scenario, between: &'a str) -> Result<(&'a dyn Topology, &'a str), String> {
    let (key, spec) = between.split_once(':').unwrap_or((between, ""));
    let builder = builders(s).into_iter().find(|(k, _)| *k == key).map(|(_, t)| (t, spec));
    builder.ok_or_else(|| match key {
        "dumbbell" | "parking_lot" => format!("a [{key}] table to place flows on"),
        _ => format!("\"dumbbell\" or \"parking_lot:GROUP->GROUP\", found {between:?}"),
    })
}

/// A link with a queue of its own in each direction.
fn link(a: &str, b: &str, (rate, delay): (Rate, Duration), (ab, ba): (QueueConfig, QueueConfig)) -> LinkSpec {
    LinkSpec {
        a: a.into(),
        b: b.into(),
        rate,
        delay,
        queue: None,
        queue_ab: Some(ab),
        queue_ba: Some(ba),
        loss_ab: None,
        loss_ba: None,
    }
}

/// The queue of a link to a host: drop-tail 1000, which never drops at the rates of these builders.
fn access_queue() -> QueueConfig {
    QueueConfig::DropTail(droptail::Config { limit: 1000, ..Default::default() })
}

/// Checks `queue`, naming a field at fault inside `field`.
fn checked(field: &str, queue: &QueueConfig) -> Result<(), (String, String)> {
    queue.validate().map_err(|(f, expected)| (format!("{field}.{f}"), expected))
}
