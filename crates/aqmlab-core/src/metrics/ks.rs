//! The one-sample Kolmogorov–Smirnov statistic, with which the tests check every sampler against its
//! distribution.

/// Two-sided KS statistic of a sample against a distribution that may have atoms:
/// `cdf(v) = P(X ≤ v)`, `cdf_below(v) = P(X < v)` (the same function for a continuous law).
pub fn ks_statistic(mut xs: Vec<f64>, cdf: impl Fn(f64) -> f64, cdf_below: impl Fn(f64) -> f64) -> f64 {
    xs.sort_by(f64::total_cmp);
    let n = xs.len() as f64;
    let (mut d, mut i) = (0.0f64, 0);
    while i < xs.len() {
        let v = xs[i];
        let j = i + xs[i..].iter().take_while(|&&x| x == v).count();
        d = d.max((i as f64 / n - cdf_below(v)).abs()).max((j as f64 / n - cdf(v)).abs());
        i = j;
    }
    d
}
