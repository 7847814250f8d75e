//! A log-binned histogram of non-negative values (seconds): 100 bins per decade, bin edges 2.3% apart,
//! fixed size whatever the number of values, from which CDFs and quantiles are read (the response
//! times' distribution).

/// Bins per decade.
const PER_DECADE: usize = 100;

#[derive(Clone, Debug)]
pub struct LogHistogram {
    /// Lower edge of the first bin inside the range.
    low: f64,
    /// Bins inside the range (decades × 100).
    bins: usize,
    /// What a value below `low` stands for in quantiles.
    floor: f64,
    /// counts[0] holds everything below `low`, counts[bins + 1] everything above the range; empty until
    /// the first value, so that a histogram nothing reaches takes no memory.
    counts: Vec<u64>,
    total: u64,
}

impl LogHistogram {
    /// Bins from `low` over `decades` decades; values below `low` count as `floor` in quantiles.
    pub const fn new(low: f64, decades: usize, floor: f64) -> Self {
        LogHistogram { low, bins: decades * PER_DECADE, floor, counts: Vec::new(), total: 0 }
    }

    /// Lower edge of bin `i` (1-based inside the range).
    fn edge(&self, i: usize) -> f64 {
        self.low * 10f64.powf((i - 1) as f64 / PER_DECADE as f64)
    }

    pub fn add(&mut self, x: f64) {
        if self.counts.is_empty() {
            self.counts = vec![0; self.bins + 2];
        }
        let i =
            if x < self.low { 0 } else { ((x / self.low).log10() * PER_DECADE as f64).floor() as usize + 1 };
        self.counts[i.min(self.bins + 1)] += 1;
        self.total += 1;
    }

    /// Values added.
    pub fn total(&self) -> u64 {
        self.total
    }

    /// The `q`-quantile, interpolated geometrically inside its bin (NaN when empty).
    pub fn quantile(&self, q: f64) -> f64 {
        if self.total == 0 {
            return f64::NAN;
        }
        let top = self.bins + 1;
        let target = q * self.total as f64;
        let mut below = 0.0;
        for (i, &c) in self.counts.iter().enumerate() {
            let c = c as f64;
            if c > 0.0 && below + c >= target {
                if i == 0 {
                    return self.floor;
                }
                if i == top {
                    return self.edge(top);
                }
                let f = ((target - below) / c).clamp(0.0, 1.0);
                return self.edge(i) * (self.edge(i + 1) / self.edge(i)).powf(f);
            }
            below += c;
        }
        self.edge(top)
    }

    /// Non-empty bins as (lower edge, upper edge, count); the outer bins extend to 0 and infinity.
    pub fn bins(&self) -> impl Iterator<Item = (f64, f64, u64)> + '_ {
        let top = self.bins + 1;
        self.counts.iter().enumerate().filter(|(_, &c)| c > 0).map(move |(i, &c)| {
            let lo = if i == 0 { 0.0 } else { self.edge(i) };
            let hi = if i == top { f64::INFINITY } else { self.edge(i + 1) };
            (lo, hi, c)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantiles_of_a_uniform_sample_are_within_one_bin() {
        let mut h = LogHistogram::new(1e-5, 10, 1e-5);
        for i in 1..=10_000 {
            h.add(i as f64 * 1e-3); // 1 ms .. 10 s uniformly
        }
        for q in [0.1, 0.5, 0.9, 0.99] {
            let exact = q * 10.0;
            assert!((h.quantile(q) / exact - 1.0).abs() < 0.024, "q{q}: {} vs {exact}", h.quantile(q));
        }
        assert_eq!(h.bins().map(|b| b.2).sum::<u64>(), 10_000);
        assert_eq!(h.total(), 10_000);
    }

    #[test]
    fn values_below_the_range_stand_for_the_floor_and_an_empty_histogram_holds_nothing() {
        let mut h = LogHistogram::new(1e-9, 13, 0.0);
        assert!(h.quantile(0.5).is_nan() && h.bins().count() == 0 && h.counts.is_empty());
        for _ in 0..3 {
            h.add(0.0);
        }
        h.add(2e-3);
        assert_eq!((h.quantile(0.5), h.quantile(0.75)), (0.0, 0.0));
        assert!((h.quantile(1.0) / 2e-3 - 1.0).abs() < 0.024);
        assert_eq!(h.bins().next(), Some((0.0, 1e-9, 3)));
    }
}
