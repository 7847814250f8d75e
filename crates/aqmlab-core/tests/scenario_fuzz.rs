//! Property test of the scenario parser and model builder (issue 16, item 5): the shipped scenarios,
//! mutated at random (a value replaced by a number, a unit string or a table; a line deleted or
//! duplicated; the text truncated), never make `parse` or `build` panic, and every rejection is a
//! located error: it names the file, says what was expected, and has a line or a field path.
//!
//! `make test` runs `CASES` cases; `PROPTEST_CASES=20000` (`make fuzz`) runs more.
//!
//! Memory: the builder allocates per flow (`count`) and per host pair (`dumbbell.pairs`) with no bound
//! of its own yet (issue 16, item 2: a resource estimate before running): 200,000 flows peak at about
//! 90 MB, so `count = 1000000000` would ask for hundreds of GB. The integers the strategy writes are therefore either small (at most
//! `MAX_SMALL_INT`, well under 100 MB of model) or out of every integer field's range (above
//! `u32::MAX`, negative, or floats), which the parser must refuse; integers in (MAX_SMALL_INT,
//! u32::MAX] are left out on purpose.

mod common;

use aqmlab_core::scenario::every_error::every_error;
use aqmlab_core::scenario::{self, build};
use aqmlab_core::{Limit, ScenarioError};
use common::link_table;
use proptest::prelude::*;
use proptest::test_runner::{Config, FileFailurePersistence};

/// Cases run by `cargo test` unless `PROPTEST_CASES` says otherwise: well under a second in a debug
/// build. Each run draws new cases (proptest's random seed); a failure prints the mutated text.
const CASES: u32 = 256;

/// Largest in-range integer written into a scenario: 1000 pairs or flows build in well under a
/// second and a few MB (see the module comment).
const MAX_SMALL_INT: i64 = 1000;

/// The scenarios mutated: every shipped one, plus the small three-node one of the other tests.
fn seeds() -> &'static [(String, String)] {
    static SEEDS: std::sync::OnceLock<Vec<(String, String)>> = std::sync::OnceLock::new();
    SEEDS.get_or_init(read_seeds)
}

fn read_seeds() -> Vec<(String, String)> {
    // The user-facing scenarios and the studies' (package data of the Python package).
    let repo = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut files = Vec::new();
    let mut dirs = vec![repo.join("scenarios"), repo.join("python/aqmlab/studies/scenarios")];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).expect("scenarios folder") {
            let p = entry.expect("entry").path();
            if p.is_dir() {
                dirs.push(p);
            } else if p.extension().is_some_and(|e| e == "toml") {
                files.push(p);
            }
        }
    }
    files.sort();
    let mut out: Vec<(String, String)> = files
        .into_iter()
        .map(|p| (p.display().to_string(), std::fs::read_to_string(&p).expect("readable scenario")))
        .collect();
    assert!(out.len() >= 5, "the shipped scenarios are found: {out:?}");
    out.push(("small.toml".into(), small()));
    out
}

/// h1 — r — h2 with one UDP flow, as in `scenario_checks.rs`, with a few optional tables.
fn small() -> String {
    let links = link_table("h1", "r", "10Mbps", "1ms", "{ kind = \"red\", limit = 100 }")
        + &link_table("r", "h2", "10Mbps", "1ms", "");
    format!(
        r#"duration = "10s"
[measure]
warmup = "1s"
sample_links = ["h1->r"]
trace_cwnd = [0]
{links}[[flows]]
kind = "udp_cbr"
src = "h1"
dst = "h2"
rate = "1Mbps"
start = {{ uniform = ["0s", "1s"] }}
[[flows]]
kind = "tcp_bulk"
src = ["h1", "h2"]
dst = ["h2", "h1"]
count = 3
[stop]
after_pairs = 10
"#
    )
}

/// A value to write in place of another: numbers, unit strings, and other TOML types.
fn value() -> impl Strategy<Value = String> {
    let fixed = prop::sample::select(vec![
        // Integers out of range of every integer field, or at its edges.
        "-1",
        "0",
        "1",
        "2",
        "-9223372036854775808",
        "9223372036854775807",
        "4294967296",
        "18446744073709551615",
        "99999999999999999999",
        // Floats.
        "1e30",
        "-1e30",
        "1e308",
        "1e-30",
        "0.0",
        "-0.0",
        "0.5",
        "nan",
        "inf",
        "-inf",
        // Unit strings, good and bad.
        "\"5ms\"",
        "\"-1s\"",
        "\"0s\"",
        "\"1ns\"",
        "\"1e9s\"",
        "\"1e10s\"",
        "\"1e3ms\"",
        "\"2min\"",
        "\"1e30Gbps\"",
        "\"0bps\"",
        "\"0.5bps\"",
        "\"1e13bps\"",
        "\"10Mbps\"",
        "\"1500B\"",
        "\"0B\"",
        "\"-5KiB\"",
        "\"1e30GB\"",
        "\"NaN\"",
        "\"inf\"",
        "\"abc\"",
        "\"\"",
        "\"µs\"",
        "\"e\"",
        "\"all\"",
        "\"dumbbell\"",
        "\"h1\"",
        "\"A->B\"",
        // Other types and tables of the scenario format.
        "true",
        "[]",
        "{}",
        "[1, 2]",
        "[\"h1\", \"h2\"]",
        "1979-05-27T07:32:00Z",
        "{ from = \"1ms\", to = \"0s\" }",
        "{ spread = \"1s\" }",
        "{ sprad = \"1s\" }",
        "{ uniform = [\"2s\", \"1s\"] }",
        "{ uniform = [\"0s\"] }",
        "{ kind = \"red\", limit = -3 }",
        "{ kind = \"red\", limit = 0 }",
        "{ kind = \"pie\" }",
        "{ kind = \"codel\", target = 0 }",
        "{ kind = \"fq_codel\" }",
        "{ kind = \"fq_pie\", quantum = 0 }",
        "{ kind = \"cobalt\" }",
        "{ kind = \"dualpi2\", coupling = 0 }",
        "{ kind = \"codel\", l4s = true }",
        "{ kind = \"pi\", limit = 1 }",
        "{ kind = \"rem\" }",
        "{ kind = \"avq\" }",
        "{ kind = \"blue\" }",
        "{ kind = \"an_aqm\" }",
        "{ kind = \"droptail\", limit = 0 }",
        "{ kind = \"nope\" }",
    ])
    .prop_map(str::to_string);
    prop_oneof![
        4 => fixed,
        1 => (-MAX_SMALL_INT..=MAX_SMALL_INT).prop_map(|i| i.to_string()),
        1 => any::<f64>().prop_map(|f| format!("{f:?}")),
        1 => ("-?[0-9]{1,3}(\\.[0-9])?(e[0-9]{1,2})?", prop::sample::select(vec![
            "", "s", "ms", "us", "ns", "min", "h", "bps", "kbps", "Mbps", "Gbps", "Mb/s", "B", "KiB", "MB", "x",
        ]))
            .prop_map(|(n, u)| format!("\"{n}{u}\"")),
        1 => "[a-zA-Z0-9 ._>-]{0,8}".prop_map(|s| format!("\"{s}\"")),
    ]
}

#[derive(Clone, Debug)]
enum Mutation {
    /// Replace the `n`-th value token (a quoted string, number or word after `=`, `[` or `,`).
    Token(usize, String),
    /// Replace everything after the `=` of the `n`-th `key = value` line.
    RightHandSide(usize, String),
    DeleteLine(usize),
    DuplicateLine(usize),
    /// Cut the text at a byte (rounded down to a character boundary).
    Truncate(usize),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        6 => (any::<usize>(), value()).prop_map(|(n, v)| Mutation::Token(n, v)),
        2 => (any::<usize>(), value()).prop_map(|(n, v)| Mutation::RightHandSide(n, v)),
        1 => any::<usize>().prop_map(Mutation::DeleteLine),
        1 => any::<usize>().prop_map(Mutation::DuplicateLine),
        1 => any::<usize>().prop_map(Mutation::Truncate),
    ]
}

/// Byte ranges of the value tokens of `text` outside comments: quoted strings, and bare words and
/// numbers that follow `=`, `[` or `,`.
fn value_tokens(text: &str) -> Vec<(usize, usize)> {
    let mut tokens = Vec::new();
    let mut offset = 0;
    for line in text.split_inclusive('\n') {
        let b = line.as_bytes();
        let mut i = 0;
        let mut after_sep = false;
        while i < b.len() {
            match b[i] {
                b'#' => break,
                b'"' => {
                    let end = line[i + 1..].find('"').map_or(b.len(), |e| i + 1 + e + 1);
                    tokens.push((offset + i, offset + end));
                    i = end;
                    after_sep = false;
                    continue;
                }
                b'=' | b'[' | b',' => after_sep = true,
                c if after_sep && (c.is_ascii_alphanumeric() || c == b'-' || c == b'+' || c == b'.') => {
                    let end = line[i..]
                        .find(|c: char| !(c.is_ascii_alphanumeric() || "-+._:".contains(c)))
                        .map_or(b.len(), |e| i + e);
                    tokens.push((offset + i, offset + end));
                    i = end;
                    after_sep = false;
                    continue;
                }
                c if !c.is_ascii_whitespace() => after_sep = false,
                _ => {}
            }
            i += 1;
        }
        offset += line.len();
    }
    tokens
}

fn mutate(text: &str, m: &Mutation) -> String {
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    match m {
        Mutation::Token(n, v) => {
            let tokens = value_tokens(text);
            match tokens.get(n % tokens.len().max(1)) {
                Some(&(a, b)) => format!("{}{v}{}", &text[..a], &text[b..]),
                None => text.to_string(),
            }
        }
        Mutation::RightHandSide(n, v) => {
            let assignments: Vec<usize> = (0..lines.len())
                .filter(|&i| {
                    let l = lines[i].trim_start();
                    !l.starts_with(['#', '[']) && l.contains('=')
                })
                .collect();
            let Some(&at) = assignments.get(n % assignments.len().max(1)) else {
                return text.to_string();
            };
            let mut out: Vec<String> = lines.iter().map(|l| l.to_string()).collect();
            let (key, _) = lines[at].split_once('=').expect("an assignment");
            out[at] = format!("{key}= {v}\n");
            out.concat()
        }
        Mutation::DeleteLine(n) => {
            let mut out = lines.clone();
            if !out.is_empty() {
                out.remove(n % lines.len());
            }
            out.concat()
        }
        Mutation::DuplicateLine(n) => {
            let mut out = lines.clone();
            if !out.is_empty() {
                let i = n % lines.len();
                out.insert(i, lines[i]);
            }
            out.concat()
        }
        Mutation::Truncate(n) => {
            let mut cut = n % (text.len() + 1);
            while !text.is_char_boundary(cut) {
                cut -= 1;
            }
            text[..cut].to_string()
        }
    }
}

/// Checks that a rejection is located: the file, what was expected, and a line or a field path.
fn check_located(e: &ScenarioError, file: &str, text: &str) -> Result<(), TestCaseError> {
    prop_assert_eq!(&e.file, file, "error names the scenario file: {}\n--- text:\n{}", e, text);
    prop_assert!(!e.message.trim().is_empty(), "error says what was expected: {}\n--- text:\n{}", e, text);
    prop_assert!(
        e.line.is_some() || !e.path.is_empty(),
        "error has a line or a field path: {:?}\n--- text:\n{}",
        e,
        text
    );
    if let Some(line) = e.line {
        let lines = text.lines().count().max(1);
        prop_assert!(
            line >= 1 && line <= lines + 1,
            "line {} within the text ({} lines): {}",
            line,
            lines,
            e
        );
    }
    Ok(())
}

/// Parses and, if it parses, builds `text`; panics are caught by proptest and reported with the case.
/// A rejection is also read for every error (`aqmlab validate`), each of them located.
fn parse_and_build(file: &str, text: &str) -> Result<(), TestCaseError> {
    let every = |first: ScenarioError| -> Result<(), TestCaseError> {
        let (errors, warnings) = every_error(text, file, first.clone(), Limit::machine_default(), true);
        prop_assert!(errors.contains(&first), "the first error is among all: {}\n{:?}", first, errors);
        errors.iter().chain(&warnings).try_for_each(|e| check_located(e, file, text))
    };
    match scenario::parse(text, file) {
        Err(e) => every(e),
        Ok(s) => match build::build(&s, text, file) {
            Err(e) => every(e),
            Ok(m) => {
                for w in &m.warnings {
                    check_located(w, file, text)?;
                }
                Ok(())
            }
        },
    }
}

fn config() -> Config {
    // PROPTEST_CASES if set (as `make fuzz` does), else `CASES` rather than proptest's default.
    let cases = std::env::var("PROPTEST_CASES").ok().and_then(|c| c.parse().ok()).unwrap_or(CASES);
    Config {
        cases,
        // Failing cases are printed with their text; no regressions file in the source tree.
        failure_persistence: Some(Box::new(FileFailurePersistence::Off)),
        ..Config::default()
    }
}

#[test]
fn the_shipped_scenarios_build() {
    for (file, text) in seeds() {
        let s = scenario::parse(text, file).unwrap_or_else(|e| panic!("{e}"));
        build::build(&s, text, file).unwrap_or_else(|e| panic!("{e}"));
    }
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn mutated_scenarios_never_panic_and_every_rejection_is_located(
        seed in any::<prop::sample::Index>(),
        mutations in prop::collection::vec(mutation(), 1..=3),
    ) {
        let seeds = seeds();
        let (file, base) = &seeds[seed.index(seeds.len())];
        let mut text = base.clone();
        for m in &mutations {
            text = mutate(&text, m);
        }
        parse_and_build(file, &text)?;
    }
}
