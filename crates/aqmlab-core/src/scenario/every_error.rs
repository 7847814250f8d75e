//! Every error of a scenario, not only the first (`aqmlab validate`).
//!
//! The scenario is cut into units: each top-level key (`duration`, `[measure]`, `[dumbbell]`, ...) and
//! each entry of an array of tables (`links[2]`, `flows[0]`, ...). Each unit is read alone by
//! [`super::parse`], in a copy of the text where every other line is blanked out (spaces, newlines
//! kept), so the errors keep their lines and messages; only an entry's index, 0 when alone, is put
//! back. The model is then built from the units that read, leaving out each unit the builder rejects
//! in turn, until it builds. A unit left out can make others look wrong (a link's nodes, a group's
//! flow ids and classes), so the builder's checks stop at the first error in the network, and the
//! checks of traced flows and the `[stop]` class are not made once a traffic entry is left out.

use super::{build, parse, ScenarioError};
use crate::estimate::{Estimate, Limit};
use std::ops::Range;
use toml_edit::{ImDocument, Item, Table};

/// Sections whose entries name the nodes and links every other section refers to.
const NETWORK: &[&str] = &["nodes", "links", "dumbbell", "parking_lot", "routes", "tcp"];
/// Sections that number flows and classes.
const TRAFFIC: &[&str] = &["flows", "http", "web_users"];
/// Checks that refer to flow ids or classes of the traffic sections.
const TRAFFIC_REFERENCES: &[&str] = &["measure.trace_cwnd", "stop.class"];

/// Every error and warning of a scenario `text` whose first error, as [`parse`] and
/// [`build::build`] report it, is `first` (kept as it is, so `aqmlab run` and `aqmlab validate` say the
/// same). No part is built whose tables would exceed `limit` (see [`Estimate::of_scenario`]; `streamed`
/// as there): its estimate is the error, so a billion flows are refused here too without allocating.
pub fn every_error(
    text: &str,
    file: &str,
    first: ScenarioError,
    limit: Limit,
    streamed: bool,
) -> (Vec<ScenarioError>, Vec<ScenarioError>) {
    let Some(units) = units(text) else { return (vec![first], Vec::new()) };
    let mut errors = Vec::new();
    let mut left_out: Vec<&Unit> = Vec::new();
    for unit in &units {
        if let Err(e) = parse(&unit.alone(text), file) {
            // Alone, a unit that reads well lacks only `duration`, which is another unit's.
            if unit.key == "duration" || !is_missing_duration(&e) {
                errors.push(unit.renumber(e));
                left_out.push(unit);
            }
        }
    }
    if !units.iter().any(|u| u.key == "duration") && !is_missing_duration(&first) {
        // Every unit read alone is fine without it, so it is said once here, at the field it names.
        let missing = parse(&Unit::keep(text, &[]), file).err();
        errors.extend(missing.map(|e| ScenarioError { path: "duration".into(), ..e }));
    }
    let warnings = build_errors(text, file, &units, &mut left_out, &mut errors, (limit, streamed));
    // `first` replaces the error of its own unit, which reading the unit alone may locate differently.
    match errors.iter().position(|e| unit_path(&e.path) == unit_path(&first.path)) {
        Some(i) => errors[i] = first,
        None => errors.insert(0, first),
    }
    (errors, warnings)
}

/// The builder's errors, after those of reading (`errors`, whose units are `left_out`): each unit it
/// rejects is left out in turn. Returns the warnings of the model that finally builds.
fn build_errors<'u>(
    text: &str,
    file: &str,
    units: &'u [Unit],
    left_out: &mut Vec<&'u Unit>,
    errors: &mut Vec<ScenarioError>,
    (limit, streamed): (Limit, bool),
) -> Vec<ScenarioError> {
    loop {
        if left_out.iter().any(|u| NETWORK.contains(&u.key.as_str())) {
            return Vec::new();
        }
        let kept: Vec<&Unit> =
            units.iter().filter(|u| !left_out.iter().any(|o| std::ptr::eq(*o, *u))).collect();
        let rest = Unit::keep(text, &kept);
        let renumber = |e: ScenarioError| renumber_kept(e, &kept);
        let Ok(s) = parse(&rest, file) else { return Vec::new() };
        if let Err(e) = Estimate::of_scenario(&s, streamed).check(limit, &rest, file) {
            errors.push(renumber(e));
            return Vec::new();
        }
        let e = match build::build(&s, &rest, file) {
            Ok(model) => return model.warnings.into_iter().map(renumber).collect(),
            Err(e) => renumber(e),
        };
        let traffic_left_out = left_out.iter().any(|u| TRAFFIC.contains(&u.key.as_str()));
        if traffic_left_out && TRAFFIC_REFERENCES.iter().any(|r| e.path.starts_with(r)) {
            return Vec::new();
        }
        let unit = units.iter().find(|u| u.path() == unit_path(&e.path));
        errors.push(e);
        match unit {
            Some(u) if !left_out.iter().any(|o| std::ptr::eq(*o, u)) => left_out.push(u),
            _ => return Vec::new(), // an error of no one unit (`links`: none at all): nothing to leave out
        }
    }
}

/// What reading a unit alone says when the unit is fine.
fn is_missing_duration(e: &ScenarioError) -> bool {
    e.message == "missing field `duration`"
}

/// One top-level key, or one entry of an array of tables, and the lines it is written on.
struct Unit {
    key: String,
    /// The entry's index, for an entry of an array of tables.
    index: Option<usize>,
    /// Byte ranges of its lines.
    lines: Vec<Range<usize>>,
}

impl Unit {
    /// `links[2]`, or `dumbbell`.
    fn path(&self) -> String {
        match self.index {
            Some(i) => format!("{}[{i}]", self.key),
            None => self.key.clone(),
        }
    }

    /// The text with only this unit's lines: the other lines are spaces, so lines and offsets stay.
    fn alone(&self, text: &str) -> String {
        Unit::keep(text, &[self])
    }

    /// The text with only the lines of `units`.
    fn keep(text: &str, units: &[&Unit]) -> String {
        let kept = |at: usize| units.iter().any(|u| u.lines.iter().any(|r| r.contains(&at)));
        let mut out = String::with_capacity(text.len());
        let mut at = 0;
        for line in text.split_inclusive('\n') {
            if kept(at) {
                out.push_str(line);
            } else {
                // A space per byte keeps the offsets of what follows.
                out.extend(line.bytes().map(|b| if b == b'\n' { '\n' } else { ' ' }));
            }
            at += line.len();
        }
        out
    }

    /// An error of this unit read alone, where an entry is the array's first: its own index put back.
    fn renumber(&self, e: ScenarioError) -> ScenarioError {
        match self.index {
            Some(i) => with_index(e, &self.key, 0, i),
            None => e,
        }
    }
}

/// An error in a text of the `kept` units only, where the entries of an array are numbered anew:
/// with the entries' indices in the whole text.
fn renumber_kept(e: ScenarioError, kept: &[&Unit]) -> ScenarioError {
    let Some((key, index)) = entry_of(&e.path) else { return e };
    match kept.iter().filter(|u| u.key == key).nth(index).and_then(|u| u.index) {
        Some(original) => with_index(e, &key, index, original),
        None => e,
    }
}

fn with_index(e: ScenarioError, key: &str, from: usize, to: usize) -> ScenarioError {
    let old = format!("{key}[{from}]");
    match e.path.strip_prefix(&old) {
        Some(rest) => ScenarioError { path: format!("{key}[{to}]{rest}"), ..e },
        None => e,
    }
}

/// `("links", 2)` for `links[2].rate`.
fn entry_of(path: &str) -> Option<(String, usize)> {
    let (key, rest) = path.split_once('[')?;
    let index = rest.split_once(']')?.0.parse().ok()?;
    Some((key.to_string(), index))
}

/// The unit a field path is in: `links[2]` for `links[2].queue.limit`, `measure` for `measure.warmup`.
fn unit_path(path: &str) -> String {
    let end = path.find('.').unwrap_or(path.len());
    let head = &path[..end];
    match head.find(']') {
        Some(close) => head[..=close].to_string(),
        None => head.to_string(),
    }
}

/// The units of a TOML text, in the order written; None if it is not TOML.
fn units(text: &str) -> Option<Vec<Unit>> {
    let doc = ImDocument::parse(text).ok()?;
    let root = doc.as_table();
    let line_of = |r: Range<usize>| {
        let start = text[..r.start.min(text.len())].rfind('\n').map_or(0, |i| i + 1);
        let end = text[r.end.min(text.len())..].find('\n').map_or(text.len(), |i| r.end + i + 1);
        start..end
    };
    let mut units = Vec::new();
    for (key, item) in root.iter() {
        let key_span = root.key(key).and_then(|k| k.span());
        match item {
            Item::ArrayOfTables(entries) => {
                for (i, t) in entries.iter().enumerate() {
                    let mut spans = Vec::new();
                    table_spans(t, &mut spans);
                    let lines = spans.into_iter().map(line_of).collect();
                    units.push(Unit { key: key.to_string(), index: Some(i), lines });
                }
            }
            _ => {
                let mut spans: Vec<Range<usize>> = key_span.into_iter().collect();
                item_spans(item, &mut spans);
                let lines = spans.into_iter().map(line_of).collect();
                units.push(Unit { key: key.to_string(), index: None, lines });
            }
        }
    }
    units.sort_by_key(|u| u.lines.iter().map(|r| r.start).min());
    Some(units)
}

/// The spans of an item and everything in it (headers, keys and values).
fn item_spans(item: &Item, out: &mut Vec<Range<usize>>) {
    match item {
        Item::Value(v) => out.extend(v.span()),
        Item::Table(t) => table_spans(t, out),
        Item::ArrayOfTables(a) => a.iter().for_each(|t| table_spans(t, out)),
        Item::None => {}
    }
}

fn table_spans(t: &Table, out: &mut Vec<Range<usize>>) {
    out.extend(t.span());
    for (key, item) in t.iter() {
        out.extend(t.key(key).and_then(|k| k.span()));
        item_spans(item, out);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all(text: &str) -> Vec<String> {
        every_error(text, "m.toml", first(text), Limit::machine_default(), true)
            .0
            .iter()
            .map(ToString::to_string)
            .collect()
    }

    /// h1 — r — h2, each link on lines 2-6 and 7-11, with `rest` after them.
    fn two_links(rest: &str) -> String {
        let link = |a: &str, b: &str| {
            format!("[[links]]\na = \"{a}\"\nb = \"{b}\"\nrate = \"10Mbps\"\ndelay = \"1ms\"\n")
        };
        format!("duration = \"10s\"\n{}{}{rest}", link("h1", "r"), link("r", "h2"))
    }

    const UDP: &str = "[[flows]]\nkind = \"udp_cbr\"\nsrc = \"h1\"\ndst = \"h2\"\nrate = \"1Mbps\"\n";

    #[test]
    fn mistakes_in_three_entries_are_three_located_errors() {
        let text = two_links(&UDP.replace("1Mbps", "fast"))
            .replacen("\"10Mbps\"", "\"-10Mbps\"", 1)
            .replacen("delay = \"1ms\"\n[[flows]]", "delay = \"1ms\"\ncolour = 1\n[[flows]]", 1);
        let errors = all(&text);
        assert_eq!(errors.len(), 3, "{errors:#?}");
        assert!(errors[0].starts_with("m.toml:5: links[0].rate: a positive rate"), "{errors:#?}");
        assert!(errors[1].starts_with("m.toml:12: links[1].colour: unknown field `colour`"), "{errors:#?}");
        assert!(errors[2].starts_with("m.toml:17: flows[0].rate: "), "{errors:#?}");
    }

    #[test]
    fn the_builder_checks_what_reads_and_leaves_out_what_it_rejects() {
        let text = two_links(&format!(
            "[measure]\nsample_interval = \"soon\"\n{}{}{}",
            UDP.replace("1Mbps", "fast"),
            UDP.replace("\"h2\"", "\"h9\""),
            UDP.replacen("rate", "start = \"20s\"\nrate", 1),
        ));
        let (errors, warnings) = every_error(&text, "m.toml", first(&text), Limit::machine_default(), true);
        let errors: Vec<String> = errors.iter().map(ToString::to_string).collect();
        assert_eq!(errors.len(), 3, "{errors:#?}");
        assert!(errors[0].starts_with("m.toml:13: measure.sample_interval: "), "{errors:#?}");
        assert!(errors[1].starts_with("m.toml:18: flows[0].rate: "), "{errors:#?}");
        assert!(errors[2].starts_with("m.toml:22: flows[1].dst: a node name; `h9`"), "{errors:#?}");
        assert_eq!(warnings.len(), 1, "{warnings:#?}");
        assert!(warnings[0].to_string().starts_with("m.toml:28: flows[2].start: "), "{warnings:#?}");
    }

    #[test]
    fn a_part_too_large_for_memory_is_refused_not_built() {
        // A billion flows would take terabytes to build: after the first error, checking the rest must
        // stop at their estimate.
        let flows = UDP.replacen("rate", "count = 1000000000\nrate", 1);
        let text = two_links(&format!("[measure]\nsample_interval = \"soon\"\n{flows}"));
        let limit = Limit { bytes: 1 << 30, given: true, disk_free: None };
        let (errors, _) = every_error(&text, "m.toml", first(&text), limit, true);
        let errors: Vec<String> = errors.iter().map(ToString::to_string).collect();
        assert_eq!(errors.len(), 2, "{errors:#?}");
        assert!(errors[0].starts_with("m.toml:13: measure.sample_interval: "), "{errors:#?}");
        assert!(
            errors[1].starts_with("m.toml:18: flows[0].count: a run within the memory limit"),
            "{errors:#?}"
        );
    }

    #[test]
    fn one_mistake_is_the_first_error_unchanged() {
        let text = two_links(UDP).replacen("\"10Mbps\"", "\"-10Mbps\"", 1);
        let (errors, _) = every_error(&text, "m.toml", first(&text), Limit::machine_default(), true);
        assert_eq!(errors, [first(&text)]);
        let text = two_links(&UDP.replace("\"h2\"", "\"h9\""));
        let (errors, _) = every_error(&text, "m.toml", first(&text), Limit::machine_default(), true);
        assert_eq!(errors, [first(&text)]);
        let text = "[[links]]\na = \"x\"\nb = \"y\"\nrate = 1\ndelay = 0\n";
        let (errors, _) = every_error(text, "m.toml", first(text), Limit::machine_default(), true);
        assert_eq!(errors, [first(text)], "a missing duration");
    }

    fn first(text: &str) -> ScenarioError {
        parse(text, "m.toml").and_then(|s| build::build(&s, text, "m.toml").map(drop)).unwrap_err()
    }
}
