//! Simulated time is a `u64` count of nanoseconds: exact, totally ordered and identical on every machine.

/// Nanoseconds since the start of the run.
pub type Time = u64;

pub const NS_PER_SEC: u64 = 1_000_000_000;
pub const NS_PER_MS: u64 = 1_000_000;

/// Converts seconds to nanoseconds, rounding to the nearest nanosecond.
pub fn secs(s: f64) -> Time {
    debug_assert!(s >= 0.0, "negative time {s}");
    (s * NS_PER_SEC as f64).round() as Time
}

/// Converts nanoseconds to seconds.
pub fn to_secs(t: Time) -> f64 {
    t as f64 / NS_PER_SEC as f64
}

/// Time to serialise `bytes` on a link of `rate_bps`, rounded up so a busy link never runs faster than its rate.
pub fn tx_time(bytes: u32, rate_bps: u64) -> Time {
    (bytes as u64 * 8 * NS_PER_SEC).div_ceil(rate_bps)
}
