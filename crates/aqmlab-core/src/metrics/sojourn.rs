//! Queueing delay (sojourn time) at a link direction: from a packet's arrival in the queue to the start
//! of its transmission, for every packet transmitted in the window, as the mean, the maximum and a
//! log-binned histogram for quantiles (bounded memory, whatever the run's length).

use super::histogram::LogHistogram;
use crate::sim::{time, Time};

/// Histogram range: 1 ns (the clock's resolution, so the bin below holds the packets that did not
/// wait) to 10^4 s.
const LOW_SECS: f64 = 1e-9;
const DECADES: usize = 13;

/// Bytes of one link direction's histogram, once it has a value (for the resource estimate).
pub const SOJOURN_BYTES: u64 = LogHistogram::bytes(DECADES);

#[derive(Clone, Debug)]
pub struct Sojourn {
    times: LogHistogram,
    /// Sum of the window's sojourns, in ns, exact.
    sum: u128,
    max: Time,
    /// The sojourn of the packet that last started its transmission (in the window or not), for the
    /// queue samples.
    pub last: Time,
}

impl Default for Sojourn {
    fn default() -> Self {
        Sojourn { times: LogHistogram::new(LOW_SECS, DECADES, 0.0), sum: 0, max: 0, last: 0 }
    }
}

/// One link direction's queueing delays, in seconds (NaN when nothing was transmitted).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SojournSummary {
    pub mean: f64,
    pub p50: f64,
    pub p90: f64,
    pub p99: f64,
    pub max: f64,
}

impl Sojourn {
    /// A packet starts its transmission after waiting `wait`; `counted` when in the window.
    #[inline]
    pub fn add(&mut self, wait: Time, counted: bool) {
        self.last = wait;
        if counted {
            self.times.add(time::to_secs(wait));
            self.sum += wait as u128;
            self.max = self.max.max(wait);
        }
    }

    pub fn summary(&self) -> SojournSummary {
        let n = self.times.total();
        if n == 0 {
            return SojournSummary {
                mean: f64::NAN,
                p50: f64::NAN,
                p90: f64::NAN,
                p99: f64::NAN,
                max: f64::NAN,
            };
        }
        let max = time::to_secs(self.max);
        // A quantile interpolated inside the top bin may pass the largest value seen.
        let q = |p: f64| self.times.quantile(p).min(max);
        SojournSummary {
            mean: self.sum as f64 / n as f64 / time::NS_PER_SEC as f64,
            p50: q(0.5),
            p90: q(0.9),
            p99: q(0.99),
            max,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mean_and_max_are_exact_and_quantiles_within_a_bin() {
        let mut s = Sojourn::default();
        assert!(s.summary().mean.is_nan());
        s.add(5_000, false); // before the window: only `last`
        assert!(s.summary().max.is_nan() && s.last == 5_000);
        for w in [0, 0, 1_000_000, 3_000_000] {
            s.add(w, true);
        }
        let m = s.summary();
        assert_eq!((m.mean, m.max, m.p50, s.last), (1e-3, 3e-3, 0.0, 3_000_000));
        assert!((m.p90 / 3e-3 - 1.0).abs() < 0.024 && m.p99 <= m.max, "{m:?}");
    }
}
