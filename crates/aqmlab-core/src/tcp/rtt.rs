//! Retransmission timeout estimation: RFC 6298 as ns-2 computes it (docs/tcp.md#retransmission-timer).
//!
//! Samples are quantised to clock ticks (`tick`, ns-2's `tcpTick_`, 10 ms by default) with a per-connection
//! random phase, and the state is kept in ns-2's fixed point: `srtt8` = 8·SRTT and `rttvar4` = 4·RTTVAR,
//! both in ticks, which gives RFC 6298's gains (1/8, 1/4) in integer arithmetic. With `tick = 0` the
//! estimator runs RFC 6298 in exact nanoseconds instead.

use crate::sim::{time, Time};

#[derive(Clone, Debug)]
pub struct RttEstimator {
    tick: Time,
    /// Phase of this connection's clock relative to the tick grid (ns-2 `boot_time_`).
    boot_offset: Time,
    srtt8: i64,
    rttvar4: i64,
    /// Current RTO before clamping and backoff (ns-2 `t_rtxcur_`).
    rto: Time,
    /// Exponential backoff multiplier (1, 2, 4, ...).
    pub backoff: u32,
    min_rto: Time,
    max_rto: Time,
}

impl RttEstimator {
    pub fn new(tick: Time, boot_offset: Time, initial_rto: Time, min_rto: Time, max_rto: Time) -> Self {
        RttEstimator {
            tick,
            boot_offset,
            srtt8: 0,
            rttvar4: 0,
            rto: initial_rto,
            backoff: 1,
            min_rto,
            max_rto,
        }
    }

    /// Feeds one RTT sample `r`, measured for a segment sent at `now - r`.
    pub fn sample(&mut self, r: Time, now: Time) {
        if self.tick == 0 {
            return self.sample_exact(r);
        }
        let m = self.whole_ticks(now - r, r).max(1) as i64;
        if self.srtt8 != 0 {
            let mut delta = m - (self.srtt8 >> 3);
            self.srtt8 = (self.srtt8 + delta).max(1);
            delta = delta.abs() - (self.rttvar4 >> 2);
            self.rttvar4 = (self.rttvar4 + delta).max(1);
        } else {
            self.srtt8 = m << 3;
            self.rttvar4 = m << 1;
        }
        // RTO = SRTT + 4·RTTVAR, in whole ticks: ((4·rttvar4·2) + srtt8) / 8.
        self.rto = (((self.rttvar4 << 3) + self.srtt8) >> 3) as Time * self.tick;
    }

    fn sample_exact(&mut self, r: Time) {
        let m = r as i64;
        if self.srtt8 != 0 {
            let srtt = self.srtt8 >> 3;
            let rttvar = self.rttvar4 >> 2;
            let rttvar = (3 * rttvar + (srtt - m).abs()) / 4;
            let srtt = (7 * srtt + m) / 8;
            self.srtt8 = srtt.max(1) << 3;
            self.rttvar4 = rttvar.max(1) << 2;
        } else {
            self.srtt8 = m.max(1) << 3;
            self.rttvar4 = (m / 2).max(1) << 2;
        }
        self.rto = ((self.srtt8 >> 3) + 4 * (self.rttvar4 >> 2)) as Time;
    }

    /// The timer to arm now: RTO clamped to the minimum, times the backoff, capped at the maximum and
    /// never below two ticks (ns-2 `rtt_timeout` with `rfc2988_`).
    pub fn timeout(&self) -> Time {
        let base = self.rto.max(self.min_rto);
        let t = base.saturating_mul(self.backoff as Time).min(self.max_rto);
        t.max(2 * self.tick)
    }

    /// Whether a sender whose last data left at `last` has been idle at `now` for longer than the RTO
    /// before clamping and backoff: ns-2 FullTcp's `idle_restart`, which measures the idle time in
    /// whole ticks of the connection's clock.
    pub fn idle_longer_than_rto(&self, last: Time, now: Time) -> bool {
        let idle = now - last;
        if self.tick == 0 {
            return idle > self.rto;
        }
        self.whole_ticks(last, idle) * self.tick > self.rto
    }

    /// The clock ticks of this connection that pass in `span` from `from` (ns-2 counts a span from the
    /// last tick of its clock, whose phase is `boot_time_`).
    fn whole_ticks(&self, from: Time, span: Time) -> Time {
        let phase = (from + self.boot_offset) % self.tick;
        (span + phase) / self.tick
    }

    /// Doubles the backoff after a timeout; after many backoffs the SRTT is folded into RTTVAR so the
    /// next sample re-initialises it (ns-2 `rtt_backoff`).
    pub fn back_off(&mut self) {
        if self.backoff < 64 || self.timeout() < self.max_rto {
            self.backoff = self.backoff.saturating_mul(2);
        }
        if self.backoff > 8 {
            self.rttvar4 += self.srtt8 >> 3;
            self.srtt8 = 0;
        }
    }

    /// Smoothed RTT in seconds (0 before the first sample).
    pub fn srtt_secs(&self) -> f64 {
        let unit = if self.tick == 0 { 1 } else { self.tick };
        time::to_secs((self.srtt8 >> 3) as Time * unit)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::time::NS_PER_MS as MS;

    fn est() -> RttEstimator {
        RttEstimator::new(10 * MS, 0, 3000 * MS, 200 * MS, 60_000 * MS)
    }

    #[test]
    fn initial_rto_is_used_before_any_sample() {
        assert_eq!(est().timeout(), 3000 * MS);
    }

    #[test]
    fn first_sample_sets_srtt_and_half_rttvar() {
        // R = 100 ms = 10 ticks: SRTT = 10, RTTVAR = 5, RTO = 10 + 4*5 = 30 ticks = 300 ms.
        let mut e = est();
        e.sample(100 * MS, 1000 * MS);
        assert_eq!(e.rto, 300 * MS);
        assert!((e.srtt_secs() - 0.1).abs() < 1e-12);
        // Second sample R = 200 ms (20 ticks): delta = 20 − 10 = 10, so 8·SRTT = 80 + 10 = 90;
        // 4·RTTVAR = 20 + (|delta| − 5) = 25; RTO = (8·25 + 90) / 8 = 36 ticks (truncated).
        e.sample(200 * MS, 2000 * MS);
        assert_eq!(e.rto, 360 * MS);
    }

    #[test]
    fn timer_is_clamped_then_backed_off() {
        let mut e = est();
        e.sample(10 * MS, 1000 * MS); // 1 tick: RTO = 1 + 4*0.5 → ((2<<3)+8)>>3 = 3 ticks = 30 ms
        assert_eq!(e.rto, 30 * MS);
        assert_eq!(e.timeout(), 200 * MS); // min RTO
        e.back_off();
        assert_eq!(e.timeout(), 400 * MS);
        e.back_off();
        e.back_off();
        assert_eq!(e.timeout(), 1600 * MS);
    }

    #[test]
    fn exact_mode_follows_rfc6298() {
        let mut e = RttEstimator::new(0, 0, 1000 * MS, 0, 60_000 * MS);
        e.sample(100 * MS, 1000 * MS);
        assert_eq!(e.timeout(), 300 * MS); // 100 + 4·50
        e.sample(200 * MS, 2000 * MS);
        // RTTVAR = 3/4·50 + 1/4·100 = 62.5; SRTT = 7/8·100 + 1/8·200 = 112.5 → RTO = 362.5 ms
        assert_eq!(e.timeout(), 362_500_000);
    }
}
