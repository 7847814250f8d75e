//! One-way delay of a flow's data packets, from the moment the sender handed a packet to the network to
//! its delivery at the receiver: mean, minimum, maximum, and the interarrival jitter of RFC 3550
//! (§6.4.1 and A.8), J += (|D| − J)/16 with D the difference of consecutive packets' transit times.

use crate::sim::{time, Time};

#[derive(Clone, Debug, Default)]
pub struct OneWayDelay {
    packets: u64,
    /// Sum of the delays, in ns, exact.
    sum: u128,
    min: Time,
    max: Time,
    /// Transit time of the previous packet, and the jitter estimate, in ns.
    previous: Option<Time>,
    jitter: f64,
}

/// A flow's one-way delays, in seconds (NaN when no data packet arrived).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DelaySummary {
    pub mean: f64,
    pub min: f64,
    pub max: f64,
    pub jitter: f64,
}

impl OneWayDelay {
    /// A data packet arrived `delay` after it was sent.
    pub fn add(&mut self, delay: Time) {
        if let Some(previous) = self.previous {
            let d = delay.abs_diff(previous) as f64;
            self.jitter += (d - self.jitter) / 16.0;
        }
        self.previous = Some(delay);
        self.min = if self.packets == 0 { delay } else { self.min.min(delay) };
        self.max = self.max.max(delay);
        self.sum += delay as u128;
        self.packets += 1;
    }

    pub fn summary(&self) -> DelaySummary {
        if self.packets == 0 {
            return DelaySummary { mean: f64::NAN, min: f64::NAN, max: f64::NAN, jitter: f64::NAN };
        }
        let ns = time::NS_PER_SEC as f64;
        DelaySummary {
            mean: self.sum as f64 / self.packets as f64 / ns,
            min: time::to_secs(self.min),
            max: time::to_secs(self.max),
            jitter: self.jitter / ns,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn constant_delays_have_no_jitter_and_a_step_decays_by_sixteenths() {
        let mut d = OneWayDelay::default();
        assert!(d.summary().mean.is_nan());
        for _ in 0..5 {
            d.add(2_000_000);
        }
        assert_eq!(d.summary(), DelaySummary { mean: 2e-3, min: 2e-3, max: 2e-3, jitter: 0.0 });
        // One packet 1.6 ms later: |D| = 1.6 ms, J = 1.6/16 = 0.1 ms; the next, back at 2 ms: |D| = 1.6
        // ms again, J = 0.1 + (1.6 − 0.1)/16.
        d.add(3_600_000);
        assert!((d.summary().jitter - 1e-4).abs() < 1e-15);
        d.add(2_000_000);
        let s = d.summary();
        assert!((s.jitter - (1e-4 + 1.5e-3 / 16.0)).abs() < 1e-15, "{s:?}");
        assert_eq!((s.min, s.max), (2e-3, 3.6e-3));
        assert!((s.mean - 15.6e-3 / 7.0).abs() < 1e-15);
    }
}
