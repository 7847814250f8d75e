//! The `aqm_samples` table: the sampled links' discipline state beside their queue samples.

mod common;

use common::{bench_dumbbell, link};

/// PI on a congested bottleneck, sampled with a drop-tail access link: PI gives its two variables at
/// every sample, the last equal to the end-of-run state in the links table; drop-tail gives no rows.
/// The run ends 1 ms after a PI update (every 1/170 s), so no update falls between the last sample
/// (at the end) and the end-of-run state.
#[test]
fn pi_state_is_sampled_and_ends_as_the_links_table_says() {
    let text = bench_dumbbell(
        "",
        &[
            "dumbbell.pairs=40",
            "duration=\"12.001s\"",
            "measure.warmup=\"2s\"",
            "measure.sample_interval=\"1ms\"",
            "measure.sample_links=[\"A->B\", \"S0->A\"]",
            r#"dumbbell.queue={kind="pi", limit=60, qref=10}"#,
        ],
    );
    let model = aqmlab_core::load(&text, "bench-dumbbell.toml", &[], None).unwrap_or_else(|e| panic!("{e}"));
    let bottleneck = model.links.iter().position(|l| l.name == "A->B").unwrap() as u32;
    let r = aqmlab_core::run(model, None);
    let (q, a) = (&r.queue_samples, &r.aqm_samples);
    let samples = q.link.iter().filter(|&&l| l == bottleneck).count();
    assert_eq!(samples, 10_002, "every 1 ms from 2 s to 12.001 s");
    assert!(a.link.iter().all(|&l| l == bottleneck), "no rows for drop-tail");
    assert_eq!(a.len(), 2 * samples);
    assert!(a.variable.chunks(2).all(|v| v == ["p", "q_old"]));
    assert_eq!(a.t.iter().step_by(2).collect::<Vec<_>>(), q.t.iter().step_by(2).collect::<Vec<_>>());
    // The links table prints the end-of-run state with 6 decimals.
    let end: Vec<f64> = link(&r, "A->B")
        .queue_state
        .split(' ')
        .map(|kv| kv.split_once('=').unwrap().1.parse().unwrap())
        .collect();
    let last = &a.value[a.len() - 2..];
    assert!(end[0] > 0.0, "congested: {end:?}");
    assert!((last[0] - end[0]).abs() < 1e-6 && last[1] == end[1], "{last:?} vs {end:?}");
    assert!(a.value.iter().step_by(2).any(|&p| p != end[0]), "p moves during the run");
}
