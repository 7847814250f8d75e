//! Small parameter checks shared by the disciplines' `validate()`; each returns `(field, expected)`.

use crate::scenario::units::{Bytes, Seconds};

type Check = Result<(), (String, String)>;

/// `ok`, or the error naming `field` and what was `expected`.
pub fn ensure(ok: bool, field: &str, expected: &str) -> Check {
    if ok {
        Ok(())
    } else {
        Err((field.into(), expected.into()))
    }
}

/// A finite duration, strictly positive.
pub fn positive_secs(field: &str, v: Seconds) -> Check {
    ensure(v.0.is_finite() && v.0 > 0.0, field, "a positive duration in seconds")
}

/// A finite duration, zero allowed.
pub fn nonnegative_secs(field: &str, v: Seconds) -> Check {
    ensure(v.0.is_finite() && v.0 >= 0.0, field, "a duration in seconds, zero or more")
}

/// A probability in [0, 1].
pub fn probability(field: &str, v: f64) -> Check {
    ensure((0.0..=1.0).contains(&v), field, "a probability in [0, 1]")
}

/// A finite number above zero.
pub fn positive(field: &str, v: f64) -> Check {
    ensure(v.is_finite() && v > 0.0, field, "a finite number above zero")
}

/// A finite number, zero or more.
pub fn nonnegative(field: &str, v: f64) -> Check {
    ensure(v.is_finite() && v >= 0.0, field, "a finite number, zero or more")
}

/// A fraction in (0, 1]: a share of something that must not vanish.
pub fn fraction(field: &str, v: f64) -> Check {
    ensure(v > 0.0 && v <= 1.0, field, "a fraction in (0, 1]")
}

/// A count of at least 1.
pub fn at_least_one(field: &str, v: u32) -> Check {
    ensure(v >= 1, field, "an integer of at least 1")
}

/// A size of at least one byte, small enough that the disciplines' byte arithmetic cannot overflow.
pub fn size(field: &str, v: Bytes) -> Check {
    ensure((1..=u32::MAX as u64).contains(&v.0), field, "a positive size in bytes, below 4 GiB")
}

/// ns-2's buffer `limit_`, in packets (of `mean_pktsize` bytes in byte mode).
pub fn ns2_limit(field: &str, v: u32) -> Check {
    ensure(v > 0, field, "a buffer of at least 1 packet")
}

/// Each element a finite number, zero or more; the error names the element (`eta[1]`).
pub fn nonnegative_each<const N: usize>(field: &str, v: [f64; N]) -> Check {
    v.into_iter().enumerate().try_for_each(|(i, x)| nonnegative(&format!("{field}[{i}]"), x))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn checks_reject_nonsense() {
        assert!(positive_secs("t", Seconds(0.0)).is_err());
        assert!(positive_secs("t", Seconds(f64::NAN)).is_err());
        assert!(positive_secs("t", Seconds(0.1)).is_ok());
        assert!(nonnegative_secs("t", Seconds(0.0)).is_ok());
        assert!(nonnegative_secs("t", Seconds(-1e-9)).is_err());
        assert!(probability("p", 1.5).is_err());
        assert!(probability("p", f64::NAN).is_err());
        assert!(nonnegative("x", f64::INFINITY).is_err());
        assert!(positive("x", 0.0).is_err());
        assert!(fraction("x", 0.0).is_err());
        assert!(fraction("x", 1.0).is_ok());
        assert_eq!(at_least_one("limit", 0), Err(("limit".into(), "an integer of at least 1".into())));
        assert!(size("mtu", Bytes(0)).is_err());
        assert!(size("mtu", Bytes(1 << 32)).is_err());
        assert!(size("mtu", Bytes(1500)).is_ok());
        assert_eq!(ns2_limit("limit", 0), Err(("limit".into(), "a buffer of at least 1 packet".into())));
        assert_eq!(nonnegative_each("eta", [0.0, -1.0, 0.0]).unwrap_err().0, "eta[1]");
    }
}
