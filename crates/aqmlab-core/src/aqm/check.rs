//! Small parameter checks shared by the disciplines' `validate()`; each returns `(field, expected)`.

type Check = Result<(), (String, String)>;

/// `ok`, or the error naming `field` and what was `expected`.
pub fn ensure(ok: bool, field: &str, expected: &str) -> Check {
    if ok {
        Ok(())
    } else {
        Err((field.into(), expected.into()))
    }
}

/// A finite duration in seconds, strictly positive.
pub fn positive_secs(field: &str, v: f64) -> Check {
    ensure(v.is_finite() && v > 0.0, field, "a positive duration in seconds")
}

/// A finite duration in seconds, zero allowed.
pub fn nonnegative_secs(field: &str, v: f64) -> Check {
    ensure(v.is_finite() && v >= 0.0, field, "a duration in seconds, zero or more")
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

/// A count or size of at least 1.
pub fn at_least_one(field: &str, v: u32) -> Check {
    ensure(v >= 1, field, "an integer of at least 1")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn checks_reject_nonsense() {
        assert!(positive_secs("t", 0.0).is_err());
        assert!(positive_secs("t", f64::NAN).is_err());
        assert!(positive_secs("t", 0.1).is_ok());
        assert!(nonnegative_secs("t", 0.0).is_ok());
        assert!(nonnegative_secs("t", -1e-9).is_err());
        assert!(probability("p", 1.5).is_err());
        assert!(probability("p", f64::NAN).is_err());
        assert!(nonnegative("x", f64::INFINITY).is_err());
        assert!(positive("x", 0.0).is_err());
        assert_eq!(at_least_one("limit", 0), Err(("limit".into(), "an integer of at least 1".into())));
    }
}
