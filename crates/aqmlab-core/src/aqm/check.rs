//! Small parameter checks shared by the disciplines' `validate()`; each returns `(field, expected)`.

type Check = Result<(), (String, String)>;

fn fail(field: &str, expected: &str) -> Check {
    Err((field.into(), expected.into()))
}

/// A finite duration in seconds, strictly positive.
pub fn positive_secs(field: &str, v: f64) -> Check {
    if v.is_finite() && v > 0.0 {
        Ok(())
    } else {
        fail(field, "a positive duration in seconds")
    }
}

/// A finite duration in seconds, zero allowed.
pub fn nonnegative_secs(field: &str, v: f64) -> Check {
    if v.is_finite() && v >= 0.0 {
        Ok(())
    } else {
        fail(field, "a duration in seconds, zero or more")
    }
}

/// A probability in [0, 1].
pub fn probability(field: &str, v: f64) -> Check {
    if (0.0..=1.0).contains(&v) {
        Ok(())
    } else {
        fail(field, "a probability in [0, 1]")
    }
}

/// A finite number above zero.
pub fn positive(field: &str, v: f64) -> Check {
    if v.is_finite() && v > 0.0 {
        Ok(())
    } else {
        fail(field, "a finite number above zero")
    }
}

/// A finite number, zero or more.
pub fn nonnegative(field: &str, v: f64) -> Check {
    if v.is_finite() && v >= 0.0 {
        Ok(())
    } else {
        fail(field, "a finite number, zero or more")
    }
}

/// A count or size of at least 1.
pub fn at_least_one(field: &str, v: u32) -> Check {
    if v >= 1 {
        Ok(())
    } else {
        fail(field, "an integer of at least 1")
    }
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
