//! Connection traces for `[[http]] trace = FILE` (docs/traffic.md#replaying-a-connection-trace): the
//! connections of an HTTP generator read from a file instead of drawn from PackMime-HTTP, so that two
//! simulators (or two runs of one) carry exactly the same request/response exchanges.
//!
//! One connection per line, whitespace-separated:
//! `start_s request_bytes response_bytes server_delay_s [gap_s request_bytes response_bytes server_delay_s]...`
//! — when the connection opens, then for each request/response pair (after the first, preceded by the
//! client's think gap after the previous response) its sizes and the server's delay before answering.
//! Start times are non-decreasing; blank lines and lines starting with `#` are skipped.

use crate::sim::{time, Time};
use crate::traffic::packmime::Pair;
use std::path::Path;

/// One connection of a trace.
#[derive(Clone, Debug, PartialEq)]
pub struct TracedConnection {
    pub start: Time,
    pub pairs: Vec<Pair>,
    /// Seconds the server waits after each complete request before sending its response.
    pub server_delays: Vec<f64>,
}

/// Reads `file`, relative to the folder of the scenario file `relative_to`. The error says what was
/// expected, naming the file and, for a bad line, its line number.
pub fn read(file: &str, relative_to: &str) -> Result<Vec<TracedConnection>, String> {
    let path = Path::new(relative_to).parent().unwrap_or(Path::new(".")).join(file);
    let shown = path.display();
    let text = std::fs::read_to_string(&path).map_err(|e| format!("a readable trace file; {shown}: {e}"))?;
    parse(&text).map_err(|(line, what)| format!("{what}; {shown}:{line}"))
}

/// The connections of a trace's text; an error is (line number, what was expected).
fn parse(text: &str) -> Result<Vec<TracedConnection>, (usize, String)> {
    let mut conns: Vec<TracedConnection> = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let shape = || {
            (
                i + 1,
                format!(
                    "`start_s request response server_delay_s [gap_s request response server_delay_s]...` \
                     with times ≥ 0 and sizes ≥ 1, found {line:?}"
                ),
            )
        };
        let fields: Vec<f64> =
            line.split_whitespace().map(str::parse).collect::<Result<_, _>>().map_err(|_| shape())?;
        if fields.len() < 4
            || !(fields.len() - 4).is_multiple_of(4)
            || fields.iter().any(|v| !v.is_finite() || *v < 0.0)
        {
            return Err(shape());
        }
        let start = time::secs(fields[0]);
        if conns.last().is_some_and(|c| c.start > start) {
            return Err((i + 1, format!("start times in non-decreasing order, found {line:?}")));
        }
        // Prepend a zero gap so that every pair reads as (gap, request, response, server delay).
        let cells: Vec<f64> = std::iter::once(0.0).chain(fields[1..].iter().copied()).collect();
        let mut pairs = Vec::new();
        let mut server_delays = Vec::new();
        for c in cells.chunks(4) {
            if c[1] < 1.0 || c[2] < 1.0 || c[1].fract() != 0.0 || c[2].fract() != 0.0 {
                return Err(shape());
            }
            pairs.push(Pair { request: c[1] as u64, response: c[2] as u64, gap: c[0] });
            server_delays.push(c[3]);
        }
        conns.push(TracedConnection { start, pairs, server_delays });
    }
    if conns.is_empty() {
        return Err((0, "at least one connection".into()));
    }
    Ok(conns)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_is_a_connection_of_one_or_more_pairs() {
        let conns =
            parse("# start req rsp delay\n0.5 300 5000 0.01\n\n1.25 200 100 0 0.5 400 9000 0.02\n").unwrap();
        assert_eq!(conns.len(), 2);
        assert_eq!(conns[0].start, time::secs(0.5));
        assert_eq!(conns[0].pairs, [Pair { request: 300, response: 5000, gap: 0.0 }]);
        assert_eq!(conns[0].server_delays, [0.01]);
        assert_eq!(
            conns[1].pairs,
            [Pair { request: 200, response: 100, gap: 0.0 }, Pair { request: 400, response: 9000, gap: 0.5 }]
        );
        assert_eq!(conns[1].server_delays, [0.0, 0.02]);
    }

    #[test]
    fn bad_lines_are_named_with_what_was_expected() {
        for (text, line, expected) in [
            ("0.5 300 5000\n", 1, "start_s request response"),
            ("0.5 300 5000 0 0.1\n", 1, "start_s request response"),
            ("0.5 300 0 0\n", 1, "sizes ≥ 1"),
            ("0.5 300.5 10 0\n", 1, "sizes ≥ 1"),
            ("0.5 300 x 0\n", 1, "found \"0.5 300 x 0\""),
            ("1 1 1 0\n0.5 1 1 0\n", 2, "non-decreasing"),
            ("# nothing\n", 0, "at least one connection"),
        ] {
            let (l, what) = parse(text).unwrap_err();
            assert_eq!(l, line, "{text:?}: {what}");
            assert!(what.contains(expected), "{text:?}: {what}");
        }
    }

    #[test]
    fn a_missing_file_is_named() {
        let e = read("no-such-trace.txt", "/tmp/x/scenario.toml").unwrap_err();
        assert!(e.contains("a readable trace file; /tmp/x/no-such-trace.txt"), "{e}");
    }
}
