//! Queueing delay (sojourn time) at a link direction: from a packet's arrival in the queue to the start
//! of its transmission, for every packet transmitted in the window, as the mean, the maximum and a
//! histogram for quantiles (bounded memory, whatever the run's length).
//!
//! Every transmitted packet lands in the histogram, so its bin is found with integer operations
//! (HdrHistogram's scheme: the octave of the delay in ns and the 5 bits below its leading one), not
//! with a logarithm, which cost a run 15 % of its time. Bins are at most 3.1 % wide; below 64 ns each
//! nanosecond has its own, so a packet that did not wait counts exactly 0.

use crate::sim::{time, Time};

/// Bits of the delay kept below its leading one: 32 bins per octave.
const SUB_BITS: u32 = 5;
/// Delays below 2^EXACT_BITS ns have a bin each.
const EXACT_BITS: u32 = SUB_BITS + 1;
/// The last octave with bins of its own (2^44 ns, 4.9 hours); longer delays share the last bin.
const TOP_OCTAVE: u32 = 44;
const BINS: usize = (1 << EXACT_BITS) + ((TOP_OCTAVE - EXACT_BITS + 1) << SUB_BITS) as usize + 1;

/// Bytes of one link direction's histogram, once it has a value (for the resource estimate).
pub const SOJOURN_BYTES: u64 = (BINS * std::mem::size_of::<u64>()) as u64;

/// The bin of a delay of `ns`.
fn bin(ns: Time) -> usize {
    if ns < 1 << EXACT_BITS {
        return ns as usize;
    }
    let octave = 63 - ns.leading_zeros();
    if octave > TOP_OCTAVE {
        return BINS - 1;
    }
    let sub = (ns >> (octave - SUB_BITS)) as usize & ((1 << SUB_BITS) - 1);
    (1 << EXACT_BITS) + (((octave - EXACT_BITS) as usize) << SUB_BITS) + sub
}

/// The smallest delay (ns) of bin `i` (`BINS - 1`: of the overflow).
fn lower_edge(i: usize) -> Time {
    if i < 1 << EXACT_BITS {
        return i as Time;
    }
    let k = i - (1 << EXACT_BITS);
    let octave = (k >> SUB_BITS) as u32 + EXACT_BITS;
    let sub = (k & ((1 << SUB_BITS) - 1)) as Time;
    (1 << octave) + (sub << (octave - SUB_BITS))
}

#[derive(Clone, Debug, Default)]
pub struct Sojourn {
    /// Packets per bin; empty until the first one in the window, so that an unused link takes no memory.
    counts: Vec<u64>,
    packets: u64,
    /// Sum of the window's sojourns, in ns, exact.
    sum: u128,
    max: Time,
    /// The sojourn of the packet that last started its transmission (in the window or not), for the
    /// queue samples.
    pub last: Time,
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
            if self.counts.is_empty() {
                self.counts = vec![0; BINS];
            }
            self.counts[bin(wait)] += 1;
            self.packets += 1;
            self.sum += wait as u128;
            self.max = self.max.max(wait);
        }
    }

    /// The `q`-quantile in seconds, interpolated linearly inside its bin and never above the maximum.
    fn quantile(&self, q: f64) -> f64 {
        let target = q * self.packets as f64;
        let mut below = 0.0;
        for (i, &c) in self.counts.iter().enumerate().filter(|(_, &c)| c > 0) {
            let c = c as f64;
            if below + c >= target {
                let (lo, hi) = (lower_edge(i), if i + 1 < BINS { lower_edge(i + 1) } else { self.max });
                let f = ((target - below) / c).clamp(0.0, 1.0);
                let ns = if hi - lo <= 1 { lo as f64 } else { lo as f64 + f * (hi - lo) as f64 };
                return (ns / time::NS_PER_SEC as f64).min(time::to_secs(self.max));
            }
            below += c;
        }
        time::to_secs(self.max)
    }

    pub fn summary(&self) -> SojournSummary {
        if self.packets == 0 {
            return SojournSummary {
                mean: f64::NAN,
                p50: f64::NAN,
                p90: f64::NAN,
                p99: f64::NAN,
                max: f64::NAN,
            };
        }
        SojournSummary {
            mean: self.sum as f64 / self.packets as f64 / time::NS_PER_SEC as f64,
            p50: self.quantile(0.5),
            p90: self.quantile(0.9),
            p99: self.quantile(0.99),
            max: time::to_secs(self.max),
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
        assert!((m.p90 / 3e-3 - 1.0).abs() < 0.032 && m.p99 <= m.max, "{m:?}");
    }

    #[test]
    fn bins_cover_every_delay_once_and_are_at_most_3_percent_wide() {
        for ns in (0..5000).chain([1 << 20, (1 << 20) + 12_345, 999_999_999, 1 << 44, (1 << 45) - 1]) {
            let i = bin(ns);
            assert!(lower_edge(i) <= ns && (i + 1 == BINS - 1 || ns < lower_edge(i + 1)), "{ns} in bin {i}");
        }
        for i in 1 << EXACT_BITS..BINS - 1 {
            let (lo, hi) = (lower_edge(i) as f64, lower_edge(i + 1) as f64);
            assert!(hi > lo && (hi - lo) / lo <= 1.0 / 32.0 + 1e-12, "bin {i}: {lo}..{hi}");
        }
        assert_eq!(bin(1 << 45), BINS - 1);
    }
}
