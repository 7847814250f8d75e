//! Statistical tests of the PackMime samplers: Kolmogorov–Smirnov tests of each marginal against the
//! model's CDF computed independently (by inverting the tables or from closed forms), checks of the LRD
//! series, and the model-level numbers measured with ns-2.35 (docs/traffic.md#response-sizes to #rtt-model,
//! docs/load-and-metrics.md#calibration).

use super::lrd::{LrdParams, LrdSeries};
use super::special::{gamma, logitinv, norm_cdf};
use super::tables::{InvCdf, FSIZE0_A, FSIZE0_B, FSIZE1_A, FSIZE1_B, LONG_RTT, SHORT_RTT};
use super::*;
use crate::metrics::ks::ks_statistic as ks_stat;
use crate::sim::rng::{from_seed, Rng};

const N: usize = 100_000;

/// Asserts the KS statistic is below the 1% critical value 1.628/√n.
fn assert_ks(what: &str, d: f64, n: usize) {
    let crit = 1.628 / (n as f64).sqrt();
    println!("KS {what}: D = {d:.5} (n = {n}, 1% critical {crit:.5})");
    assert!(d < crit, "{what}: KS D = {d} ≥ {crit}");
}

/// KS for integer-valued sizes `floor(S)` where `P(S < c) = g(c)` is continuous.
fn ks_sizes(xs: Vec<u64>, g: impl Fn(f64) -> f64) -> f64 {
    let xs = xs.into_iter().map(|x| x as f64).collect();
    ks_stat(xs, |v| g(v + 1.0), &g)
}

/// Independent inversion of a monotone knot table (either direction): the `x` with `t(x) = y`,
/// extrapolating with the end segments.
fn invert(t: &InvCdf, y: f64) -> f64 {
    let (xs, ys) = (t.xs(), t.ys());
    let n = xs.len();
    let increasing = ys[n - 1] > ys[0];
    let mut seg = n - 2;
    for i in 0..n - 1 {
        let hi = if increasing { ys[i + 1] } else { -ys[i + 1] };
        if (if increasing { y } else { -y }) < hi {
            seg = i;
            break;
        }
    }
    xs[seg] + (y - ys[seg]) * (xs[seg + 1] - xs[seg]) / (ys[seg + 1] - ys[seg])
}

fn mean(xs: &[f64]) -> f64 {
    xs.iter().sum::<f64>() / xs.len() as f64
}

fn median(xs: &[f64]) -> f64 {
    let mut v = xs.to_vec();
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn variance(xs: &[f64]) -> f64 {
    let m = mean(xs);
    xs.iter().map(|x| (x - m).powi(2)).sum::<f64>() / (xs.len() - 1) as f64
}

fn lag1(xs: &[f64]) -> f64 {
    let m = mean(xs);
    let c: f64 = xs.windows(2).map(|w| (w[0] - m) * (w[1] - m)).sum();
    c / xs.iter().map(|x| (x - m).powi(2)).sum::<f64>()
}

fn close(x: f64, target: f64, rel: f64) -> bool {
    (x - target).abs() <= rel * target.abs()
}

fn draw<T>(n: usize, rng: &mut Rng, mut f: impl FnMut(&mut Rng) -> T) -> Vec<T> {
    (0..n).map(|_| f(rng)).collect()
}

// ---------------------------------------------------------------------------------------------- LRD

/// lag-1 autocorrelation of x_t + x_{t−1} for FARIMA(0, d, 0): (1 + 2ρ1 + ρ2)/(2 + 2ρ1).
fn farima_ma_lag1(d: f64) -> f64 {
    let r1 = d / (1.0 - d);
    let r2 = r1 * (1.0 + d) / (2.0 - d);
    (1.0 + 2.0 * r1 + r2) / (2.0 + 2.0 * r1)
}

#[test]
fn lrd_series_has_unit_variance_and_farima_correlation() {
    // Pure FARIMA part (no noise): the strongest dependence, checks Hosking's recursion and σ_ε.
    let params = LrdParams { d: 0.33, n: 1000, var_ratio: 0.0 };
    let mut rng = from_seed(11);
    let mut s = LrdSeries::new(params, &mut rng);
    let ys = draw(N, &mut rng, |r| s.next(r));
    let (v, r1) = (variance(&ys), lag1(&ys));
    println!("pure FARIMA d=0.33: var {v:.4}, lag-1 {r1:.4} (theory {:.4})", farima_ma_lag1(0.33));
    // LRD makes the sample variance converge slowly (Var(mean) ~ n^(2d−1)), hence the wide ±10 %.
    assert!(close(v, 1.0, 0.10), "variance {v}");
    assert!((r1 - farima_ma_lag1(0.33)).abs() < 0.03, "lag-1 {r1}");

    // The rate-50 flow-arrival mix: variance 1, lag-1 correlation scaled by (1 − varRatio).
    let params = LrdParams::for_rate(0.33, 1000, 0.333, 0.414, 50.0);
    let mut s = LrdSeries::new(params, &mut rng);
    let ys = draw(N, &mut rng, |r| s.next(r));
    let (v, r1) = (variance(&ys), lag1(&ys));
    let want = (1.0 - params.var_ratio) * farima_ma_lag1(0.33);
    println!("rate-50 mix: varRatio {:.4}, var {v:.4}, lag-1 {r1:.4} (theory {want:.4})", params.var_ratio);
    assert!(close(v, 1.0, 0.03), "variance {v}");
    assert!(r1 > 0.0 && (r1 - want).abs() < 0.015, "lag-1 {r1}");
    // Within one LRD series the draws are dependent, so a KS test with the i.i.d. critical value does not
    // apply (it fails here with D ≈ 0.009 for 10^5 values); the marginal is tested on replicas below.
}

#[test]
fn lrd_marginal_is_exactly_standard_normal() {
    // Hosking's recursion makes every window of N consecutive values exactly FARIMA-distributed (the
    // order-(N−1) predictor gives the exact conditional law), so each y_t is exactly N(0, 1) even after
    // truncation. Independent replicas, each read at a different step (wrapping the history ring), give
    // i.i.d. draws for a valid KS test; a small N keeps the burn-ins cheap.
    let mut rng = from_seed(15);
    for params in [LrdParams { d: 0.33, n: 5, var_ratio: 0.0 }, LrdParams { d: 0.31, n: 7, var_ratio: 0.5 }] {
        let ys = (0..N)
            .map(|i| {
                let mut s = LrdSeries::new(params, &mut rng);
                (0..i % 17).fold(s.next(&mut rng), |_, _| s.next(&mut rng))
            })
            .collect();
        assert_ks(
            &format!("y_t of independent replicas, {params:?}, vs N(0,1)"),
            ks_stat(ys, norm_cdf, norm_cdf),
            N,
        );
    }
}

// ---------------------------------------------------------------------------------------------- gaps

#[test]
fn flow_arrival_shape_matches_reference_table() {
    let mut rng = from_seed(0);
    for (rate, k) in [(1.0, 0.561), (10.0, 0.757), (50.0, 0.853), (100.0, 0.884), (500.0, 0.934)] {
        let f = FlowArrivals::new(rate, false, &mut rng);
        assert!((f.shape() - k).abs() < 0.0006, "rate {rate}: shape {}", f.shape());
        // Mean gap λ·Γ(1 + 1/k) is exactly 1/rate.
        assert!(close(f.scale() * gamma(1.0 + 1.0 / f.shape()), 1.0 / rate, 1e-12));
    }
}

/// `N` connection gaps at `rate`, i.i.d. or long-range dependent (`lrd`), drawn from `seed`.
fn flow_gaps(rate: f64, lrd: bool, seed: u64) -> Vec<f64> {
    let mut rng = from_seed(seed);
    let mut f = FlowArrivals::new(rate, lrd, &mut rng);
    draw(N, &mut rng, |r| f.next_gap(r))
}

#[test]
fn flow_gaps_iid_are_weibull() {
    let rate = 50.0;
    let gaps = flow_gaps(rate, false, 1);
    // Closed form, parameters recomputed from the formulas.
    let k = 1.0 / (1.0 + (-(0.352 + 0.388 * rate.log2())).exp2());
    let lambda = 1.0 / (rate * gamma(1.0 + 1.0 / k));
    let cdf = |t: f64| if t <= 0.0 { 0.0 } else { 1.0 - (-(t / lambda).powf(k)).exp() };
    let m = mean(&gaps);
    println!("iid gaps: mean {m:.6} (1/rate {:.6}), lag-1 {:.4}", 1.0 / rate, lag1(&gaps));
    assert!(close(m, 1.0 / rate, 0.015));
    assert!(lag1(&gaps).abs() < 0.01);
    assert_ks("i.i.d. connection gaps vs Weibull", ks_stat(gaps, cdf, cdf), N);
}

#[test]
fn flow_gaps_lrd_keep_mean_and_are_positively_correlated() {
    let rate = 50.0;
    let gaps = flow_gaps(rate, true, 2);
    let (m, r1) = (mean(&gaps), lag1(&gaps));
    println!("LRD gaps: mean {m:.6} (1/rate {:.6}), lag-1 {r1:.4}", 1.0 / rate);
    assert!(close(m, 1.0 / rate, 0.04));
    assert!(r1 > 0.04, "lag-1 {r1}");
}

// ---------------------------------------------------------------------------------------------- sizes

/// P(S < c) for a response in a cache-validation run: S = T3(p).
fn response_cdf_cache(c: f64) -> f64 {
    invert(&FSIZE0_A, c).clamp(0.0, 1.0)
}

/// P(S < c) for a response in a download run: S = 2^T4(log2(1 − p)).
fn response_cdf_download(c: f64) -> f64 {
    (1.0 - invert(&FSIZE0_B, c.log2()).exp2()).clamp(0.0, 1.0)
}

/// E[ceil(W)] = Σ_{k ≥ 0} P(W > k) for a Weibull run length.
fn mean_run(shape: f64, scale: f64) -> f64 {
    (0..10_000).map(|k| (-(k as f64 / scale).powf(shape)).exp()).sum()
}

#[test]
fn response_sizes_follow_t3_and_t4_per_run_state() {
    let rate = 50.0;
    let mut rng = from_seed(3);
    let mut r = ResponseSizes::new(rate);
    let (mut cache, mut download) = (Vec::new(), Vec::new());
    let mut first_state = None;
    for _ in 0..2 * N {
        let s = r.next(&mut rng);
        first_state.get_or_insert(r.state());
        match r.state() {
            RunState::CacheValidation => cache.push(s),
            RunState::Download => download.push(s),
        }
    }
    assert_eq!(first_state, Some(RunState::Download), "the first response opens a download run");
    let l0 = mean_run(logitinv(0.718 + 0.357 * rate.log2()), 0.775);
    let l1 = mean_run(logitinv(1.293 + 0.316 * rate.log2()), 3.11);
    let frac = cache.len() as f64 / (2 * N) as f64;
    println!("cache-validation share {frac:.4} (E run lengths {l0:.3} / {l1:.3} → {:.4})", l0 / (l0 + l1));
    assert!((frac - l0 / (l0 + l1)).abs() < 0.01);
    assert!(cache.iter().all(|&s| (4..=272).contains(&s)));
    let (nc, nd) = (cache.len(), download.len());
    assert_ks("cache-validation responses vs T3", ks_sizes(cache, response_cdf_cache), nc);
    assert_ks("download responses vs T4", ks_sizes(download, response_cdf_download), nd);
}

/// P(S < c) for a request: lower half through T5, upper half through T6, nothing in between.
fn request_cdf(c: f64) -> f64 {
    if c <= FSIZE1_A.eval(1.0) {
        (0.5 * invert(&FSIZE1_A, c)).clamp(0.0, 0.5)
    } else {
        let x = invert(&FSIZE1_B, c.log2()).min(0.0); // log2(1 − q), q = (p − 0.5)/0.5
        0.5 + 0.5 * (1.0 - x.exp2())
    }
}

#[test]
fn request_sizes_iid_follow_t5_and_t6() {
    let mut rng = from_seed(4);
    let mut q = RequestSizes::new(50.0, false, &mut rng);
    let sizes = draw(N, &mut rng, |r| q.next(r));
    assert_ks("i.i.d. requests vs T5/T6", ks_sizes(sizes, request_cdf), N);
}

#[test]
fn server_delay_is_inverse_of_floored_weibull() {
    let mut rng = from_seed(5);
    let delays = draw(N, &mut rng, |r| ServerDelay.sample(r));
    let (k, lambda) = (0.63, 305.0);
    // D ≤ t ⟺ max(W, 10) ≥ 1/t: an atom of P(W < 10) at 0.1 s, Weibull tail below.
    let below = |t: f64| {
        if t <= 0.0 {
            0.0
        } else if t <= 0.1 {
            (-(1.0 / (t * lambda)).powf(k)).exp()
        } else {
            1.0
        }
    };
    let cdf = |t: f64| if t >= 0.1 { 1.0 } else { below(t) };
    let m = median(&delays);
    println!("server delay median {:.3} ms", m * 1e3);
    assert!(close(m, 1.0 / (lambda * std::f64::consts::LN_2.powf(1.0 / k)), 0.02));
    assert_ks("server delay vs closed form", ks_stat(delays, cdf, below), N);
}

// ---------------------------------------------------------------------------------------------- RTT

/// P(v ≤ c ms) for the RTT model with `table` and `exponent`.
fn rtt_cdf(table: &InvCdf, exponent: f64, c: f64) -> f64 {
    if c <= 0.0 {
        return 0.0;
    }
    (1.0 - 10f64.powf(-invert(table, c.powf(1.0 / exponent)))).clamp(0.0, 1.0)
}

#[test]
fn rtt_iid_follows_t1_and_t2() {
    let mut rng = from_seed(6);
    for (side, table, e) in [(RttSide::Client, SHORT_RTT, 5.0), (RttSide::Server, LONG_RTT, 3.0)] {
        let mut m = RttModel::new(50.0, side, false, &mut rng);
        let v_ms = draw(N, &mut rng, |r| 2.0 * m.next_delay(r) * 1e3);
        let cdf = |c| rtt_cdf(&table, e, c);
        assert_ks(&format!("{side:?} RTT v vs table"), ks_stat(v_ms, cdf, cdf), N);
    }
}

#[test]
fn rtt_lrd_matches_ns2_measurements() {
    // ns-2.35, rate 50 (docs/traffic.md#rtt-model): client v median 1.5 ms, mean 28.5 ms; server 58.6 ms,
    // 82.5 ms.
    let mut rng = from_seed(7);
    for (side, med, avg) in [(RttSide::Client, 1.5, 28.5), (RttSide::Server, 58.6, 82.5)] {
        let mut m = RttModel::new(50.0, side, true, &mut rng);
        let v_ms = draw(N, &mut rng, |r| 2.0 * m.next_delay(r) * 1e3);
        let (md, mn) = (median(&v_ms), mean(&v_ms));
        println!(
            "{side:?} v: median {md:.3} ms (ns-2 {med}), mean {mn:.2} ms (ns-2 {avg}), lag-1 {:.4}",
            lag1(&v_ms)
        );
        assert!(close(md, med, 0.10));
        assert!(close(mn, avg, 0.15));
        assert!(lag1(&v_ms) > 0.0);
    }
}

// ---------------------------------------------------------------------------------------------- connections

fn planner(version: HttpVersion, think: ThinkTimeScope, rng: &mut Rng) -> ConnectionPlanner {
    ConnectionPlanner::new(version, think, RequestSizes::new(50.0, true, rng), ResponseSizes::new(50.0))
}

#[test]
fn connection_plans_are_well_formed_and_deterministic() {
    let mut rng = from_seed(8);
    let mut p10 = planner(HttpVersion::Http10, ThinkTimeScope::PerConnection, &mut rng);
    for _ in 0..1000 {
        let c = p10.plan(&mut rng);
        assert_eq!(c.len(), 1);
        assert_eq!(c[0].gap, 0.0);
    }
    let run = |seed| {
        let mut rng = from_seed(seed);
        let mut p = planner(HttpVersion::Http11, ThinkTimeScope::PerConnection, &mut rng);
        draw(2000, &mut rng, |r| p.plan(r))
    };
    let plans = run(9);
    assert_eq!(plans, run(9));
    assert_ne!(plans, run(10));
    for c in &plans {
        assert_eq!(c[0].gap, 0.0);
        assert!(c.iter().all(|p| p.request == c[0].request && p.request >= 1 && p.response >= 1));
        assert!(c[1..].iter().all(|p| p.gap > 0.0));
        if c[0].response <= 275 {
            assert!(c.iter().all(|p| p.response == c[0].response));
        }
    }
    assert!(plans.iter().any(|c| c.len() > 1 && c[0].response > 275 && c[1].response != c[0].response));
}

#[test]
fn think_gaps_are_log2_normal_given_their_parameters() {
    let mut rng = from_seed(12);
    let think = ThinkTimeParams::draw(&mut rng);
    for (new_page, loc, s2, v_err) in
        [(true, think.loc_between, think.s2_between, 1.21), (false, think.loc_within, think.s2_within, 1.57)]
    {
        let gaps = draw(N, &mut rng, |r| think.gap(new_page, r));
        let sd = (s2 * v_err).sqrt();
        let cdf = |g: f64| if g <= 0.0 { 0.0 } else { norm_cdf((g.log2() - loc) / sd) };
        assert_ks(&format!("think gap (new page: {new_page}) vs log2-normal"), ks_stat(gaps, cdf, cdf), N);
    }
}

/// E[ceil(Exp(scale))] = 1/(1 − e^{−1/scale}).
fn mean_ceil_exp(scale: f64) -> f64 {
    1.0 / (1.0 - (-1.0 / scale).exp())
}

#[test]
fn http11_page_structure_matches_model() {
    // Pin the gaps far apart (2^±20 s) so each plan reveals its pages and objects per page.
    let think = ThinkTimeParams { loc_between: 20.0, s2_between: 1e-6, loc_within: -20.0, s2_within: 1e-6 };
    let mut rng = from_seed(13);
    let mut p = planner(HttpVersion::Http11, ThinkTimeScope::PerRun(think), &mut rng);
    let (mut persistent, mut multi_page, mut pairs) = (0usize, 0usize, 0usize);
    let (mut pages_sum, mut single_obj_pages, mut multi_pages_total) = (0usize, 0usize, 0usize);
    let (mut objs_in_multi, mut multi_obj_pages) = (0usize, 0usize);
    for _ in 0..N {
        let c = p.plan(&mut rng);
        pairs += c.len();
        if c.len() == 1 {
            continue;
        }
        persistent += 1;
        // Split into pages at the between-page gaps.
        let mut sizes = vec![1usize];
        for q in &c[1..] {
            if q.gap > 1.0 {
                sizes.push(1);
            } else {
                *sizes.last_mut().unwrap() += 1;
            }
        }
        if sizes.len() > 1 {
            multi_page += 1;
            pages_sum += sizes.len();
            multi_pages_total += sizes.len();
            single_obj_pages += sizes.iter().filter(|&&s| s == 1).count();
        }
        for &s in sizes.iter().filter(|&&s| s > 1) {
            objs_in_multi += s;
            multi_obj_pages += 1;
        }
    }
    let per_conn = pairs as f64 / N as f64;
    let e_pages = 1.0 + mean_ceil_exp(0.417);
    let e_objs = 1.0 + mean_ceil_exp(1.578);
    let e_reqs = 0.82 * e_objs + 0.18 * e_pages * (0.69 + 0.31 * e_objs);
    let want = 0.91 + 0.09 * e_reqs;
    println!(
        "persistent {:.4}, multi-page {:.4}, pages|multi {:.3} ({e_pages:.3}), single-object share {:.4}, \
         objects|multi-object page {:.3} ({e_objs:.3}), pairs/conn {per_conn:.4} (model {want:.4})",
        persistent as f64 / N as f64,
        multi_page as f64 / persistent as f64,
        pages_sum as f64 / multi_page as f64,
        single_obj_pages as f64 / multi_pages_total as f64,
        objs_in_multi as f64 / multi_obj_pages as f64,
    );
    assert!((persistent as f64 / N as f64 - 0.09).abs() < 0.003);
    assert!((multi_page as f64 / persistent as f64 - 0.18).abs() < 0.015);
    assert!(close(pages_sum as f64 / multi_page as f64, e_pages, 0.03));
    assert!((single_obj_pages as f64 / multi_pages_total as f64 - 0.69).abs() < 0.03);
    assert!(close(objs_in_multi as f64 / multi_obj_pages as f64, e_objs, 0.03));
    assert!(close(per_conn, want, 0.01));
}

#[test]
fn http11_model_matches_ns2_measurements() {
    // ns-2.35 at rate 50, HTTP/1.1, 10^5 connections (docs/traffic.md#response-sizes,
    // docs/load-and-metrics.md#calibration): response mean ≈ 7.0 kB, median ≈ 880 B; requests mean
    // ≈ 600 B, median ≈ 425 B; 1.14–1.17 pairs per connection.
    let mut rng = from_seed(14);
    let mut p = planner(HttpVersion::Http11, ThinkTimeScope::PerConnection, &mut rng);
    let (mut req, mut rsp) = (Vec::new(), Vec::new());
    for _ in 0..N {
        for q in p.plan(&mut rng) {
            req.push(q.request as f64);
            rsp.push(q.response as f64);
        }
    }
    let per_conn = rsp.len() as f64 / N as f64;
    let (rm, rmed, qm, qmed) = (mean(&rsp), median(&rsp), mean(&req), median(&req));
    println!(
        "pairs/conn {per_conn:.4}; response mean {rm:.0} B median {rmed:.0} B; request mean {qm:.0} B median {qmed:.0} B"
    );
    // The response mean is dominated by a tail of index ≈ 1.2 (T4: log2 size grows 0.81 per unit of
    // −log2(1 − p)) and the request mean by one of index ≈ 1.5 (T6), so 10^5 connections pin neither well:
    // over seeds 100–119 the response mean ranged 6.6–10.0 kB (median 7.1 kB) and the request mean
    // 552–624 B. The bounds below are sanity checks at this fixed seed, not 99 % intervals; the medians
    // are stable to ±2 %. Pairs per connection: the model's expectation is 1.1975 (checked exactly in
    // `http11_page_structure_matches_model`); ns-2's 1.14–1.17 are completed pairs in a finite run.
    assert!((6000.0..=8200.0).contains(&rm), "response mean {rm}");
    assert!(close(rmed, 880.0, 0.05), "response median {rmed}");
    assert!((1.1..=1.21).contains(&per_conn), "pairs per connection {per_conn}");
    assert!(close(qm, 600.0, 0.08), "request mean {qm}");
    assert!(close(qmed, 425.0, 0.05), "request median {qmed}");
}
