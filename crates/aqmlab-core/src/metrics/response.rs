//! Response-time statistics kept for every run: a log-binned histogram per traffic class (fixed size,
//! whatever the number of pairs), from which CDFs, CCDFs and quantiles are read.

use super::histogram::LogHistogram;
use serde::Serialize;

/// Histogram range: 10 µs to 10^5 s (a response time below it counts as 10 µs in quantiles).
const LOW_SECS: f64 = 1e-5;
const DECADES: usize = 10;

#[derive(Clone, Debug)]
pub struct ResponseHistogram {
    pub times: LogHistogram,
    pub pairs: u64,
    pub sum_secs: f64,
    pub request_bytes: u64,
    pub response_bytes: u64,
}

impl Default for ResponseHistogram {
    fn default() -> Self {
        ResponseHistogram {
            times: LogHistogram::new(LOW_SECS, DECADES, LOW_SECS),
            pairs: 0,
            sum_secs: 0.0,
            request_bytes: 0,
            response_bytes: 0,
        }
    }
}

impl ResponseHistogram {
    pub fn add(&mut self, secs: f64, request: u64, response: u64) {
        self.times.add(secs);
        self.pairs += 1;
        self.sum_secs += secs;
        self.request_bytes += request;
        self.response_bytes += response;
    }

    /// The mean response time, seconds (NaN without pairs).
    pub fn mean_secs(&self) -> f64 {
        if self.pairs > 0 {
            self.sum_secs / self.pairs as f64
        } else {
            f64::NAN
        }
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

column_wise! {
    /// Histogram bins of every class, column-wise (the CDF and CCDF are cumulative sums of `count`).
    pub struct ResponseBins {
        class: String,
        lo_s: f64,
        hi_s: f64,
        count: u64,
    }
}

column_wise! {
    /// Completed pairs, column-wise (only with `measure.pair_records`).
    pub struct PairColumns {
        class: u16,
        connection: u64,
        index: u32,
        start_s: f64,
        end_s: f64,
        response_time_s: f64,
        request_bytes: u64,
        response_bytes: u64,
    }
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
    fn pairs_are_counted_with_their_bytes_and_binned() {
        let mut h = ResponseHistogram::default();
        for i in 1..=10_000 {
            h.add(i as f64 * 1e-3, 1, 2); // 1 ms .. 10 s uniformly
        }
        assert_eq!(
            (h.pairs, h.times.total(), h.request_bytes, h.response_bytes),
            (10_000, 10_000, 10_000, 20_000)
        );
        assert!((h.sum_secs / h.pairs as f64 - 5.0005).abs() < 1e-9);
        // Below the range counts as its lower edge, as it always has.
        let mut fast = ResponseHistogram::default();
        fast.add(1e-6, 0, 0);
        assert_eq!(fast.times.quantile(0.5), LOW_SECS);
    }
}
