//! Scenarios that used to be accepted silently, or rejected with a message naming no field: each is now
//! a located error (file, line, field path, what was expected) or a located warning.

mod common;

use aqmlab_core::{load, run, Model, ScenarioError};
use common::link_table;

/// h1 — r — h2, 1 ms per link, with one UDP flow h1 → h2; `extra` is appended as is.
fn scenario(extra: &str) -> String {
    let links = link_table("h1", "r", "10Mbps", "1ms", "") + &link_table("r", "h2", "10Mbps", "1ms", "");
    format!(
        r#"duration = "10s"
{links}[[flows]]
kind = "udp_cbr"
src = "h1"
dst = "h2"
rate = "1Mbps"
{extra}"#
    )
}

/// The scenario with `fields` added to the first link.
fn first_link_with(fields: &str) -> String {
    scenario("").replacen("delay = \"1ms\"\n", &format!("delay = \"1ms\"\n{fields}"), 1)
}

fn load_text(text: &str, overrides: &[&str]) -> Result<Model, ScenarioError> {
    let ov: Vec<String> = overrides.iter().map(|s| s.to_string()).collect();
    load(text, "s.toml", &ov, None)
}

/// The error of `text`, checked to name the file, `path` and its `line`, and to contain `expected`.
fn error(text: &str, overrides: &[&str], path: &str, line: usize, expected: &str) {
    let e = load_text(text, overrides).expect_err("the scenario is rejected");
    assert_eq!((e.file.as_str(), e.path.as_str(), e.line), ("s.toml", path, Some(line)), "{e}");
    assert!(e.message.contains(expected), "{e}");
}

fn line_of(text: &str, needle: &str) -> usize {
    text.lines().position(|l| l.contains(needle)).expect("needle in text") + 1
}

#[test]
fn a_second_link_between_the_same_nodes_is_refused() {
    let text = scenario("[[links]]\na = \"r\"\nb = \"h1\"\nrate = \"5Mbps\"\ndelay = \"1ms\"\n");
    error(&text, &[], "links[2]", 17, "links[0] already joins them");
}

#[test]
fn queue_with_a_directional_queue_is_refused() {
    let text = first_link_with("queue = { kind = \"red\" }\nqueue_ab = { kind = \"pie\" }\n");
    error(&text, &[], "links[0].queue", 7, "not both");
    // The same through --set on a link that has directional queues.
    let text = first_link_with("queue_ab = { kind = \"pie\" }\n");
    let e = load_text(&text, &["links.0.queue={kind=\"pie\"}"]).unwrap_err();
    assert_eq!(e.path, "links[0].queue", "{e}");
}

#[test]
fn a_delaybox_serving_no_host_is_refused() {
    // h1's only neighbour, r, has another link: no host hangs off h1.
    let text = scenario("[[delaybox]]\nnode = \"h1\"\ndelay = { kind = \"constant\", value = \"5ms\" }\n");
    error(&text, &[], "delaybox[0].node", line_of(&text, "node = \"h1\""), "delay nothing");
    let text =
        scenario("[[delaybox]]\nnode = \"r\"\nserves = []\ndelay = { kind = \"constant\", value = 0 }\n");
    error(&text, &[], "delaybox[0].serves", line_of(&text, "serves"), "at least one host");
}

#[test]
fn rates_out_of_range_are_refused_not_clamped() {
    let text = scenario("").replacen("rate = \"10Mbps\"", "rate = 1e30", 1);
    error(&text, &[], "links[0].rate", 5, "at most 1e13 bit/s");
    let text = scenario("").replacen("rate = \"10Mbps\"", "rate = 0.4", 1);
    error(&text, &[], "links[0].rate", 5, "at least 1 bit/s");
    let text = scenario("").replace("rate = \"1Mbps\"", "rate = \"0.3bps\"");
    error(&text, &[], "flows[0].rate", line_of(&text, "0.3bps"), "at least 1 bit/s");
}

#[test]
fn delays_as_long_as_the_run_are_refused() {
    let text = scenario("").replacen("delay = \"1ms\"", "delay = 1e9", 1);
    error(&text, &[], "links[0].delay", 6, "shorter than the run (duration = 10 s)");
    let text = scenario("[[delaybox]]\nnode = \"r\"\ndelay = { kind = \"constant\", value = \"1h\" }\n");
    error(&text, &[], "delaybox[0].delay.value", line_of(&text, "1h"), "shorter than the run");
    // Beyond the clock's range a duration is refused when parsed.
    let text = scenario("").replacen("delay = \"1ms\"", "delay = 1e12", 1);
    error(&text, &[], "links[0].delay", 6, "at most 1e9 s");
}

const DUMBBELL: &str = r#"duration = "10s"
[dumbbell]
pairs = 3
bottleneck_rate = "10Mbps"
bottleneck_delay = "10ms"
access_rate = "100Mbps"
access_delay = { from = "30ms", to = "10ms" }
"#;

#[test]
fn a_decreasing_access_delay_spread_is_refused() {
    error(DUMBBELL, &[], "dumbbell.access_delay.to", 7, "at least `from` (0.03 s)");
    let ok = DUMBBELL.replace("to = \"10ms\"", "to = \"50ms\"");
    let m = load_text(&ok, &[]).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(m.links[0].info.delay, 30_000_000);
    error(&ok, &["dumbbell.bottleneck_delay=20"], "dumbbell.bottleneck_delay", 5, "shorter than the run");
}

#[test]
fn flows_and_generators_starting_after_the_end_are_warned_about() {
    let text = scenario("count = 4\nstart = { spread = \"20s\" }\n");
    let m = load_text(&text, &[]).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(m.warnings.len(), 1);
    let w = &m.warnings[0];
    assert_eq!((w.path.as_str(), w.line), ("flows[0].start", Some(line_of(&text, "spread"))), "{w}");
    assert!(w.message.contains("2 of the group's 4 flows start at or after the end"), "{w}");
    let text = scenario("[[http]]\nclients = \"h1\"\nservers = \"h2\"\nrate = 1\nstart = \"10s\"\n");
    let m = load_text(&text, &[]).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(m.warnings.len(), 1);
    assert_eq!(m.warnings[0].path, "http[0].start");
    // Warnings reach the run's summary.
    let r = run(load_text(&scenario("start = \"11s\"\n"), &[]).unwrap(), None);
    assert_eq!(r.summary.warnings.len(), 1, "{:?}", r.summary.warnings);
    assert!(r.summary.warnings[0].starts_with("s.toml:17: flows[0].start: "), "{:?}", r.summary.warnings);
    assert!(load_text(&scenario(""), &[]).unwrap().warnings.is_empty());
}

#[test]
fn an_unknown_start_key_is_named_with_the_accepted_forms() {
    let text = scenario("start = { sprad = \"1s\" }\n");
    error(&text, &[], "flows[0].start", 17, "`sprad` is neither `spread` nor `uniform`");
    error(&text, &[], "flows[0].start", 17, "{ uniform = [\"0s\", \"1s\"] }");
    // Errors inside a form keep their path; every form still parses.
    let text = scenario("start = { spread = \"-1s\" }\n");
    error(&text, &[], "flows[0].start.spread", 17, "non-negative duration");
    for (start, first) in [("\"2s\"", 2_000_000_000), ("1.5", 1_500_000_000), ("{ spread = \"1s\" }", 0)] {
        let m = load_text(&scenario(&format!("start = {start}\n")), &[]).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(m.flows[0].start, first, "{start}");
    }
    let m = load_text(&scenario("count = 2\nstart = { uniform = [\"1s\", \"2s\"] }\n"), &[]).unwrap();
    assert!(m.flows.iter().all(|f| (1_000_000_000..2_000_000_000).contains(&f.start)));
}

#[test]
fn a_bad_field_inside_a_queue_table_is_named() {
    let text = first_link_with("queue = { kind = \"droptail\", limit = -3 }\n");
    error(&text, &[], "links[0].queue.limit", 7, "invalid value: integer `-3`");
    let text = first_link_with("[links.queue_ab]\nkind = \"red\"\nlimit = -3\n");
    error(&text, &[], "links[0].queue_ab.limit", 9, "invalid value");
    // An unknown kind names `kind`.
    let text = first_link_with("queue = { kind = \"nope\" }\n");
    error(&text, &[], "links[0].queue.kind", 7, "unknown variant `nope`");
}

#[test]
fn a_bad_seed_names_the_field() {
    error(&scenario("").replace("duration", "seed = -1\nduration"), &[], "seed", 1, "expected u64");
    // Beyond TOML's 64-bit integers it is a syntax error, which serde reports without a path.
    let huge = scenario("").replace("duration", "seed = 99999999999999999999\nduration");
    error(&huge, &[], "seed", 1, "number too large");
    let huge = scenario("")
        .replace("delay = \"1ms\"\n[[links]]", "delay = \"1ms\"\n[[links]]\nqueue = { limit = 1e999999 }");
    error(&huge, &[], "links[1].queue", 8, "invalid floating-point number");
    // The line of a --set value is that of the edited document.
    error(&scenario(""), &["seed=1e30"], "seed", 2, "expected u64");
}
