//! Empirical distributions read from CDF files (docs/traffic.md#empirical-cdf-files): DelayBox delays
//! and every `[[web_users]]` quantity.
//!
//! A file holds `value,cumulative_probability` lines, values and probabilities non-decreasing, the last
//! probability 1; blank lines and lines starting with `#` are skipped. Between lines the CDF is linear,
//! and below the first line it rises linearly from (0, 0), so values are sampled by inverse CDF with
//! linear interpolation.

use std::path::Path;

/// An empirical CDF: (value, cumulative probability) knots, both non-decreasing, the last probability 1.
#[derive(Clone, Debug, PartialEq)]
pub struct EmpiricalCdf {
    knots: Vec<(f64, f64)>,
}

impl EmpiricalCdf {
    /// Reads `file`, relative to the folder of the scenario file `relative_to`; `column` names the
    /// values in messages (e.g. `delay_ms`), and each value is multiplied by `scale`. The error says what
    /// was expected, naming the file and, for a bad line, its line number.
    pub fn read(file: &str, relative_to: &str, column: &str, scale: f64) -> Result<Self, String> {
        let path = Path::new(relative_to).parent().unwrap_or(Path::new(".")).join(file);
        let shown = path.display();
        let text =
            std::fs::read_to_string(&path).map_err(|e| format!("a readable CDF file; {shown}: {e}"))?;
        let mut knots: Vec<(f64, f64)> = Vec::new();
        for (i, line) in text.lines().enumerate() {
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let bad = || format!("lines `{column},probability`; {shown}:{} is {line:?}", i + 1);
            let (v, p) = line.split_once(',').ok_or_else(bad)?;
            let (v, p): (f64, f64) =
                (v.trim().parse().map_err(|_| bad())?, p.trim().parse().map_err(|_| bad())?);
            let v = v * scale;
            let in_range = (0.0..=1.0).contains(&p) && v.is_finite() && v >= 0.0;
            if !in_range || knots.last().is_some_and(|&(lv, lp)| v < lv || p < lp) {
                return Err(format!(
                    "non-decreasing {column} values ≥ 0 and probabilities in [0, 1] (a CDF); {shown}:{} is \
                     {line:?}",
                    i + 1
                ));
            }
            knots.push((v, p));
        }
        match knots.last() {
            Some(&(_, 1.0)) => Ok(EmpiricalCdf { knots }),
            Some(&(_, p)) => Err(format!("a CDF whose last probability is 1; {shown} ends at {p}")),
            None => Err(format!("a CDF of `{column},probability` lines; {shown} has none")),
        }
    }

    /// The value below which a share `u` ∈ [0, 1) of the mass lies.
    pub fn quantile(&self, u: f64) -> f64 {
        let knots = &self.knots;
        let i = knots.partition_point(|&(_, p)| p < u).min(knots.len() - 1);
        let (v1, p1) = knots[i];
        let (v0, p0) = if i == 0 { (0.0, 0.0) } else { knots[i - 1] };
        if p1 > p0 {
            v0 + (v1 - v0) * (u - p0) / (p1 - p0)
        } else {
            v1
        }
    }

    /// The mean: each linear piece contributes its mass times its midpoint.
    pub fn mean(&self) -> f64 {
        let mut last = (0.0, 0.0);
        let mut mean = 0.0;
        for &(v, p) in &self.knots {
            mean += (p - last.1) * (v + last.0) / 2.0;
            last = (v, p);
        }
        mean
    }
}

#[cfg(test)]
mod tests {
    use super::EmpiricalCdf;

    #[test]
    fn quantiles_interpolate_and_the_mean_sums_the_pieces() {
        // Probabilities that are exact in binary, so that the comparisons can be exact.
        let cdf = EmpiricalCdf { knots: vec![(10.0, 0.5), (10.0, 0.625), (30.0, 1.0)] };
        assert_eq!((cdf.quantile(0.25), cdf.quantile(0.5625), cdf.quantile(0.8125)), (5.0, 10.0, 20.0));
        assert!((cdf.mean() - (0.5 * 5.0 + 0.125 * 10.0 + 0.375 * 20.0)).abs() < 1e-12);
    }
}
