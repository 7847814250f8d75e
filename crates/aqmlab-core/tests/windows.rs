//! Windowed statistics (`measure.window`): the windows of a link add up to its `links` row, the pairs of
//! a class's windows to its `responses` row, the windows end at warm-up + k·window (and at the run's
//! end), a bad window is a located error, and a run with windows simulates exactly what a run without
//! them does.

mod common;

use aqmlab_core::metrics::{WindowLinks, WindowResponses};
use aqmlab_core::{load, run, RunResult};
use common::{bench_dumbbell, simulate};

/// Runs `text` with `overrides`.
fn simulate_with(text: &str, overrides: &[&str]) -> RunResult {
    let overrides: Vec<String> = overrides.iter().map(|s| s.to_string()).collect();
    run(load(text, "test.toml", &overrides, None).unwrap_or_else(|e| panic!("{e}")), None)
}

fn json<T: serde::Serialize>(v: &T) -> serde_json::Value {
    serde_json::to_value(v).expect("serialises")
}

/// A row of `window_links`: (t_start, t_end, arrivals, drops, marks, departure_bytes).
type LinkWindow = (f64, f64, u64, u64, u64, u64);
/// A row of `window_responses`: (t_start, t_end, pairs, mean, p50, p90, p99).
type ClassWindow = (f64, f64, u64, f64, f64, f64, f64);

/// The rows of `window_links` of link direction `l`.
fn link_windows(w: &WindowLinks, l: usize) -> Vec<LinkWindow> {
    (0..w.len())
        .filter(|&i| w.link[i] as usize == l)
        .map(|i| (w.t_start[i], w.t_end[i], w.arrivals[i], w.drops[i], w.marks[i], w.departure_bytes[i]))
        .collect()
}

/// The rows of `window_responses` of class `c`.
fn class_windows(w: &WindowResponses, c: usize) -> Vec<ClassWindow> {
    (0..w.len())
        .filter(|&i| w.class[i] as usize == c)
        .map(|i| (w.t_start[i], w.t_end[i], w.pairs[i], w.mean_s[i], w.p50_s[i], w.p90_s[i], w.p99_s[i]))
        .collect()
}

/// Everything a run simulates, as JSON: every table but the windows' and the summary's timing.
fn simulated(r: &RunResult) -> serde_json::Value {
    let mut v = json(r);
    let o = v.as_object_mut().expect("an object");
    o.remove("window_links");
    o.remove("window_responses");
    v
}

/// The bench dumbbell with 4 pairs (ECN-capable TCP) over 6.5 s, without a warm-up, with `queue` on
/// its 20 Mb/s bottleneck and Poisson UDP besides the TCP flows.
fn dumbbell(queue: &str) -> String {
    let udp = "\n[[flows]]\nname = \"poisson\"\nkind = \"udp_poisson\"\nsrc = \"S0\"\ndst = \"R0\"\n\
               rate = \"10Mbps\"\npacket_size = 1000\n";
    bench_dumbbell(
        udp,
        &[
            "dumbbell.pairs=4",
            "duration=\"6.5s\"",
            "measure.warmup=0",
            "measure.sample_links=[\"all\"]",
            "dumbbell.bottleneck_rate=\"20Mbps\"",
            "tcp.ecn=true",
            queue,
        ],
    )
}

/// (1) Without a warm-up, the windows of every link direction add up to its `links` row: arrivals,
/// drops, marks and departure bytes. Checked on links that fix departures at acceptance (drop-tail,
/// RED with ECN) and on one that asks its discipline at every transmission (CoDel). The windows change
/// nothing else: every other table, and the number of events, are those of the run without them.
#[test]
fn the_windows_of_a_link_add_up_to_its_links_row_and_change_nothing_else() {
    for queue in [
        r#"dumbbell.queue={kind="droptail", limit=30}"#,
        r#"dumbbell.queue={kind="red", limit=60, thresh=5, maxthresh=15, ecn=true}"#,
        r#"dumbbell.queue={kind="codel", limit=60}"#,
    ] {
        let text = dumbbell(queue);
        let plain = simulate(&text);
        let windowed = simulate_with(&text, &["measure.window=\"1s\""]);
        assert_eq!(simulated(&windowed), simulated(&plain), "{queue}: the windows changed the run");
        assert!(plain.window_links.is_empty() && plain.window_responses.is_empty());
        let bottleneck = plain.links.iter().find(|l| l.link == "A->B").expect("the bottleneck");
        assert!(bottleneck.drops + bottleneck.counters.marks > 20, "{queue}: congested");
        for (l, row) in windowed.links.iter().enumerate() {
            let windows = link_windows(&windowed.window_links, l);
            assert_eq!(windows.len(), 7, "{queue} {}: six windows of 1 s and one of 0.5 s", row.link);
            let sum = |f: fn(&LinkWindow) -> u64| windows.iter().map(f).sum::<u64>();
            let c = &row.counters;
            assert_eq!(
                (sum(|w| w.2), sum(|w| w.3), sum(|w| w.4), sum(|w| w.5)),
                (c.arrivals, row.drops, c.marks, c.departure_bytes),
                "{queue} {}",
                row.link
            );
        }
        let b = link_windows(
            &windowed.window_links,
            windowed.links.iter().position(|l| l.link == "A->B").unwrap(),
        );
        assert!(b.iter().filter(|w| w.3 + w.4 > 0).count() > 1, "{queue}: congestion in several windows");
        if queue.contains("ecn") {
            assert!(b.iter().filter(|w| w.4 > 0).count() > 1, "{queue}: marks in several windows: {b:?}");
        }
    }
}

/// PackMime-HTTP over a DelayBox network: 25 s with a 5 s warm-up.
fn packmime() -> String {
    let text = include_str!("../../../scenarios/packmime-delaybox.toml");
    let overrides =
        ["duration=\"25s\"", "measure.warmup=\"5s\"", "measure.sample_links=[]"].map(String::from);
    aqmlab_core::resolve(text, "packmime-delaybox.toml", &overrides, None).unwrap_or_else(|e| panic!("{e}"))
}

/// Closed-loop web users (pages and their objects, two classes) over a 5 Mb/s bottleneck: 30 s with a
/// 5 s warm-up.
fn web_users() -> String {
    let link = |a: &str, b: &str, rate: &str| {
        format!("[[links]]\na = \"{a}\"\nb = \"{b}\"\nrate = \"{rate}\"\ndelay = \"5ms\"\n")
    };
    format!(
        "duration = \"30s\"\n[measure]\nwarmup = \"5s\"\n{}{}{}\
         [[web_users]]\nname = \"web\"\nclients = \"client\"\nservers = \"server\"\nusers = 30\n",
        link("client", "R0", "100Mbps"),
        link("R0", "R1", "5Mbps"),
        link("R1", "server", "100Mbps"),
    )
}

/// (2) The pairs a class completed in its windows add up to its `responses` row; with one window over
/// the whole measured period its mean and quantiles are the `responses` row's. PackMime (one class)
/// and web users (objects and pages).
#[test]
fn the_pairs_of_the_windows_add_up_to_the_responses_and_one_window_is_the_whole_run() {
    for (name, text, whole) in [("packmime", packmime(), "20s"), ("web_users", web_users(), "25s")] {
        let plain = simulate(&text);
        let windowed = simulate_with(&text, &["measure.window=\"3s\""]);
        assert_eq!(simulated(&windowed), simulated(&plain), "{name}: the windows changed the run");
        assert!(!plain.responses.is_empty(), "{name}: pairs completed");
        for row in &plain.responses {
            let c = class_of(&windowed, &row.class);
            let windows = class_windows(&windowed.window_responses, c);
            assert_eq!(windows.iter().map(|w| w.2).sum::<u64>(), row.pairs, "{name} {}", row.class);
            assert!(windows.len() > 2, "{name} {}: pairs in several windows", row.class);
            assert!(windows.iter().all(|w| w.2 > 0 && w.4 <= w.5 && w.5 <= w.6), "{name}: {windows:?}");
        }
        let one = simulate_with(&text, &[&format!("measure.window=\"{whole}\"")]);
        for row in &plain.responses {
            let windows = class_windows(&one.window_responses, class_of(&one, &row.class));
            let &[(t_start, t_end, pairs, mean, p50, p90, p99)] = windows.as_slice() else {
                panic!("{name} {}: one window, not {windows:?}", row.class)
            };
            assert_eq!((t_start, t_end), (5.0, plain.summary.end_s), "{name}");
            assert_eq!(
                (pairs, mean, p50, p90, p99),
                (row.pairs, row.mean_s, row.p50_s, row.p90_s, row.p99_s)
            );
        }
    }
}

/// The index of class `name` in the model (the `class` of the window rows).
fn class_of(r: &RunResult, name: &str) -> usize {
    r.classes.iter().position(|c| c.class == name).unwrap_or_else(|| panic!("no class {name}"))
}

/// (3) Windows start at the warm-up and end at warm-up + k·window, the last one at the run's end when
/// that falls inside a window (or at the stop condition's end), for every link direction alike.
#[test]
fn windows_end_at_the_warm_up_plus_whole_windows_and_at_the_runs_end() {
    let text = include_str!("../../../tests/data/two_hosts.toml");
    let r = simulate_with(text, &["measure.warmup=\"0.3s\"", "measure.window=\"0.5s\""]);
    let expected = [(0.3, 0.8), (0.8, 1.3), (1.3, 1.8), (1.8, 2.0)];
    assert_eq!(r.links.len(), 4);
    for l in 0..r.links.len() {
        let bounds: Vec<(f64, f64)> = link_windows(&r.window_links, l).iter().map(|w| (w.0, w.1)).collect();
        assert_eq!(bounds.len(), expected.len(), "{bounds:?}");
        for ((s, e), (xs, xe)) in bounds.iter().zip(expected) {
            assert!((s - xs).abs() < 1e-12 && (e - xe).abs() < 1e-12, "{bounds:?}");
        }
    }
    // A window that divides the measured period: no shorter window at the end.
    let r = simulate_with(text, &["measure.warmup=\"0.5s\"", "measure.window=\"0.5s\""]);
    let ends: Vec<f64> = link_windows(&r.window_links, 0).iter().map(|w| w.1).collect();
    assert_eq!(ends, [1.0, 1.5, 2.0]);
    // A run ended by `[stop]`: the last window ends where the run did.
    let stopped = simulate_with(&packmime(), &["measure.window=\"2s\"", "stop.after_pairs=300"]);
    assert_eq!(stopped.summary.ended_by, "pairs");
    let ends: Vec<f64> = class_windows(&stopped.window_responses, 0).iter().map(|w| w.1).collect();
    assert!(ends.len() >= 2, "{ends:?}");
    assert!(
        ends[..ends.len() - 1].iter().enumerate().all(|(k, &e)| e == 5.0 + 2.0 * (k + 1) as f64),
        "{ends:?}"
    );
    assert_eq!(ends.last(), Some(&stopped.summary.end_s));
    assert_eq!(stopped.window_responses.pairs.iter().sum::<u64>(), 300);
}

/// (4) A window that is zero, negative, not a duration or longer than the measured period is an error
/// naming `measure.window` and its line, saying what was expected.
#[test]
fn a_bad_window_is_a_located_error() {
    let text = include_str!("../../../tests/data/two_hosts.toml")
        .replace("duration = \"2s\"\n", "duration = \"2s\"\n[measure]\nwarmup = \"0.5s\"\nwindow = WINDOW\n");
    for (window, message) in [
        (
            "0",
            "a positive duration no longer than the measured period (duration - warmup = 1.5 s), found 0 s",
        ),
        (
            "\"2s\"",
            "a positive duration no longer than the measured period (duration - warmup = 1.5 s), found 2 s",
        ),
        ("\"-1s\"", "a non-negative duration"),
        ("\"soon\"", "a duration like"),
    ] {
        let e = load(&text.replace("WINDOW", window), "test.toml", &[], None).expect_err(window);
        assert_eq!((e.path.as_str(), e.line), ("measure.window", Some(5)), "{window}: {e}");
        assert!(e.message.contains(message), "{window}: {e}");
    }
    // Exactly the measured period: one window.
    let ok =
        load(&text.replace("WINDOW", "\"1.5s\""), "test.toml", &[], None).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(ok.window, Some(1_500_000_000));
}
