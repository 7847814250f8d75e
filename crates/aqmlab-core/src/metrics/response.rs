//! Response-time statistics kept for every run: a log-binned histogram per traffic class (fixed size,
//! whatever the number of pairs), from which CDFs, CCDFs and quantiles are read.

use serde::Serialize;

/// Histogram range: 10 µs to 10^5 s, 100 bins per decade (bin edges 2.3% apart).
const LOW_SECS: f64 = 1e-5;
const DECADES: usize = 10;
const PER_DECADE: usize = 100;
const BINS: usize = DECADES * PER_DECADE;

#[derive(Clone, Debug)]
pub struct ResponseHistogram {
    /// counts[0] holds everything below LOW_SECS, counts[BINS + 1] everything above the range.
    counts: Vec<u64>,
    pub pairs: u64,
    pub sum_secs: f64,
    pub request_bytes: u64,
    pub response_bytes: u64,
}

impl Default for ResponseHistogram {
    fn default() -> Self {
        ResponseHistogram {
            counts: vec![0; BINS + 2],
            pairs: 0,
            sum_secs: 0.0,
            request_bytes: 0,
            response_bytes: 0,
        }
    }
}

/// Lower edge of bin `i` (1-based inside the range).
fn edge(i: usize) -> f64 {
    LOW_SECS * 10f64.powf((i - 1) as f64 / PER_DECADE as f64)
}

impl ResponseHistogram {
    pub fn add(&mut self, secs: f64, request: u64, response: u64) {
        let i = if secs < LOW_SECS {
            0
        } else {
            ((secs / LOW_SECS).log10() * PER_DECADE as f64).floor() as usize + 1
        };
        self.counts[i.min(BINS + 1)] += 1;
        self.pairs += 1;
        self.sum_secs += secs;
        self.request_bytes += request;
        self.response_bytes += response;
    }

    /// The `q`-quantile, interpolated geometrically inside its bin (NaN when empty).
    pub fn quantile(&self, q: f64) -> f64 {
        if self.pairs == 0 {
            return f64::NAN;
        }
        let target = q * self.pairs as f64;
        let mut below = 0.0;
        for (i, &c) in self.counts.iter().enumerate() {
            let c = c as f64;
            if c > 0.0 && below + c >= target {
                if i == 0 {
                    return LOW_SECS;
                }
                if i == BINS + 1 {
                    return edge(BINS + 1);
                }
                let f = ((target - below) / c).clamp(0.0, 1.0);
                return edge(i) * (edge(i + 1) / edge(i)).powf(f);
            }
            below += c;
        }
        edge(BINS + 1)
    }

    /// Non-empty bins as (lower edge, upper edge, count); the outer bins extend to 0 and infinity.
    pub fn bins(&self) -> impl Iterator<Item = (f64, f64, u64)> + '_ {
        self.counts.iter().enumerate().filter(|(_, &c)| c > 0).map(|(i, &c)| {
            let lo = if i == 0 { 0.0 } else { edge(i) };
            let hi = if i == BINS + 1 { f64::INFINITY } else { edge(i + 1) };
            (lo, hi, c)
        })
    }
}

/// One row of the `responses` table: request/response pairs of one class.
#[derive(Clone, Debug, Serialize)]
pub struct ResponseRow {
    pub class: String,
    /// Pairs whose request was sent after the warm-up and whose response completed.
    pub pairs: u64,
    /// Pairs started after the warm-up still incomplete at the end.
    pub incomplete: u64,
    pub mean_s: f64,
    pub p10_s: f64,
    pub p50_s: f64,
    pub p90_s: f64,
    pub p99_s: f64,
    pub request_bytes: u64,
    pub response_bytes: u64,
}

/// Histogram bins of every class, column-wise (the CDF and CCDF are cumulative sums of `count`).
#[derive(Clone, Debug, Default, Serialize)]
pub struct ResponseBins {
    pub class: Vec<String>,
    pub lo_s: Vec<f64>,
    pub hi_s: Vec<f64>,
    pub count: Vec<u64>,
}

/// Completed pairs, column-wise (only with `measure.pair_records`).
#[derive(Clone, Debug, Default, Serialize)]
pub struct PairColumns {
    pub class: Vec<u16>,
    pub connection: Vec<u64>,
    pub index: Vec<u32>,
    pub start_s: Vec<f64>,
    pub end_s: Vec<f64>,
    pub response_time_s: Vec<f64>,
    pub request_bytes: Vec<u64>,
    pub response_bytes: Vec<u64>,
}

impl PairColumns {
    pub fn push(&mut self, r: &crate::traffic::app::PairRecord) {
        use crate::sim::time::to_secs;
        self.class.push(r.class);
        self.connection.push(r.connection);
        self.index.push(r.index);
        self.start_s.push(to_secs(r.start));
        self.end_s.push(to_secs(r.end));
        self.response_time_s.push(to_secs(r.end - r.start));
        self.request_bytes.push(r.request_bytes);
        self.response_bytes.push(r.response_bytes);
    }

    pub fn len(&self) -> usize {
        self.class.len()
    }

    pub fn is_empty(&self) -> bool {
        self.class.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantiles_of_a_uniform_sample_are_within_one_bin() {
        let mut h = ResponseHistogram::default();
        for i in 1..=10_000 {
            h.add(i as f64 * 1e-3, 0, 0); // 1 ms .. 10 s uniformly
        }
        for q in [0.1, 0.5, 0.9, 0.99] {
            let exact = q * 10.0;
            assert!((h.quantile(q) / exact - 1.0).abs() < 0.024, "q{q}: {} vs {exact}", h.quantile(q));
        }
        assert_eq!(h.bins().map(|b| b.2).sum::<u64>(), 10_000);
        assert!((h.sum_secs / h.pairs as f64 - 5.0005).abs() < 1e-9);
    }
}
