//! The few special functions PackMime needs that `std` does not offer: Γ, the standard normal CDF, and
//! ns-2's base-2 logistic.

use std::f64::consts::{FRAC_1_SQRT_2, PI};

/// Γ(x) for x > 0 (Lanczos, g = 7, n = 9; relative error ≈ 1e-15).
pub fn gamma(x: f64) -> f64 {
    const C: [f64; 9] = [
        0.999_999_999_999_809_9,
        676.520_368_121_885_1,
        -1_259.139_216_722_402_8,
        771.323_428_777_653_1,
        -176.615_029_162_140_6,
        12.507_343_278_686_905,
        -0.138_571_095_265_720_12,
        9.984_369_578_019_572e-6,
        1.505_632_735_149_311_6e-7,
    ];
    debug_assert!(x > 0.0);
    if x < 0.5 {
        return PI / ((PI * x).sin() * gamma(1.0 - x));
    }
    let x = x - 1.0;
    let t = x + 7.5;
    let a = C[1..].iter().enumerate().fold(C[0], |a, (i, c)| a + c / (x + i as f64 + 1.0));
    (2.0 * PI).sqrt() * t.powf(x + 0.5) * (-t).exp() * a
}

/// The complementary error function, accurate to ~1e-15 relative in the range used here.
fn erfc(x: f64) -> f64 {
    if x < 0.0 {
        return 2.0 - erfc(-x);
    }
    if x < 2.5 {
        // erf(x) = 2/√π · e^{−x²} · Σ 2^n x^{2n+1} / (1·3·…·(2n+1)): positive terms, no cancellation.
        let (mut term, mut sum, mut n) = (x, x, 0.0);
        while term > 1e-17 * sum {
            n += 1.0;
            term *= 2.0 * x * x / (2.0 * n + 1.0);
            sum += term;
        }
        1.0 - 2.0 / PI.sqrt() * (-x * x).exp() * sum
    } else {
        // Continued fraction erfc(x) = e^{−x²}/√π / (x + (1/2)/(x + (2/2)/(x + (3/2)/(x + …)))),
        // evaluated bottom-up; 60 levels are exact to double precision for x ≥ 2.5.
        let t = (1..=60).rev().fold(x, |t, k| x + k as f64 / 2.0 / t);
        (-x * x).exp() / (PI.sqrt() * t)
    }
}

/// Φ(y), the standard normal CDF.
pub fn norm_cdf(y: f64) -> f64 {
    0.5 * erfc(-y * FRAC_1_SQRT_2)
}

/// 1 − Φ(y), computed without cancellation (so `log(1 − p)` stays finite and exact in the upper tail).
pub fn norm_sf(y: f64) -> f64 {
    0.5 * erfc(y * FRAC_1_SQRT_2)
}

/// ns-2 `RNG::logitinv`: the base-2 logistic `2^x / (1 + 2^x)`.
pub fn logitinv(x: f64) -> f64 {
    1.0 / (1.0 + (-x).exp2())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64, rel: f64) -> bool {
        (a - b).abs() <= rel * b.abs()
    }

    #[test]
    fn gamma_matches_known_values() {
        assert!(close(gamma(0.5), PI.sqrt(), 1e-14));
        assert!(close(gamma(1.0 / 3.0), 2.678_938_534_707_747_6, 1e-14));
        assert!(close(gamma(1.0), 1.0, 1e-14));
        assert!(close(gamma(6.0), 120.0, 1e-13));
        assert!(close(gamma(2.5), 0.75 * PI.sqrt(), 1e-14));
    }

    #[test]
    fn normal_cdf_matches_known_values() {
        assert!(close(norm_cdf(0.0), 0.5, 1e-15));
        assert!(close(norm_cdf(1.0), 0.841_344_746_068_542_9, 1e-14));
        assert!(close(norm_cdf(-1.0), 0.158_655_253_931_457_05, 1e-13));
        assert!(close(norm_cdf(-3.0), 0.001_349_898_031_630_094_6, 1e-12));
        assert!(close(norm_sf(3.5355339059327378), 0.5 * 4.069_520_174_449_59e-4, 1e-12));
        assert!(close(norm_sf(6.0), 9.865_876_450_376_98e-10, 1e-12));
        assert!(close(norm_sf(-2.0) + norm_cdf(-2.0), 1.0, 1e-15));
        assert!(close(logitinv(1.0), 2.0 / 3.0, 1e-15));
    }
}
