//! TCP Prague (draft-briscoe-iccrg-prague-congestion-control; docs/tcp.md#tcp-prague), the L4S
//! sender, as Linux's `tcp_prague` (L4STeam) runs it where this simulator has the same signals:
//!
//! - ECT(1) data (`ecn_codepoint = "ect1"`, required) and DCTCP's response to marks: the estimate
//!   alpha of the fraction of marked bytes per window of data with gain g = `dctcp_g` (1/16), and the
//!   cut `cwnd·(1 − alpha/2)` at most once per window (the endpoint's `recover` point); both are
//!   [`AlphaEstimator`]'s, shared with DCTCP. As Linux's `saw_ce`, alpha holds at 1 until the first
//!   ECN-Echo, so the first cut halves and ends slow start (ssthresh follows cwnd down).
//! - Slow start adds one segment per segment acknowledged up to ssthresh (Linux's `tcp_slow_start`),
//!   the rest of the ACK going to congestion avoidance.
//! - RTT independence, Linux's default `RTT_CONTROL_RATE` (`prague_rate_scaled_ai_ack_increase`):
//!   congestion avoidance adds `(srtt/target)²` segments per window of ACKs while srtt is below the
//!   target `prague_rtt_target` (25 ms), 1 from there. The rate cwnd/srtt then grows by 1/target²
//!   segments per second², whatever the RTT: as a flow at the target RTT.
//! - A loss found by duplicate ACKs halves the window and a timeout restarts from one segment, as
//!   NewReno (the draft's classic loss response).
//! - The endpoint paces it ([`Controller::wants_pacing`]) at 100 % of cwnd/srtt in congestion
//!   avoidance, 200 % below half of ssthresh (Linux's `prague_update_pacing_rate`).

use super::dctcp::AlphaEstimator;
use super::newreno::NewReno;
use super::{Ack, Controller, EcnFeedback};
use crate::tcp::TcpConfig;

/// Prague's state lives behind a pointer so that the registry's enum stays 24 bytes (see [`super`]).
pub struct Prague(Box<State>);

struct State {
    /// cwnd and ssthresh; NewReno's cuts for losses and timeouts.
    reno: NewReno,
    alpha: AlphaEstimator,
    /// An ECN-Echo has arrived: from then on alpha follows the marks (Linux's `saw_ce`).
    saw_ce: bool,
    /// RTT independence's target, seconds (0: off).
    rtt_target: f64,
}

reno_with_alpha!(impl Prague);

impl Prague {
    /// Segments congestion avoidance adds per window of ACKs at smoothed RTT `srtt` (seconds; 0 before
    /// the first sample, which grows as Reno).
    fn increase_per_window(&self, srtt: f64) -> f64 {
        let target = self.0.rtt_target;
        if srtt > 0.0 && srtt < target {
            (srtt / target).powi(2)
        } else {
            1.0
        }
    }
}

impl Controller for Prague {
    fn new(cfg: &TcpConfig) -> Self {
        Prague(Box::new(State {
            reno: NewReno::new(cfg),
            alpha: AlphaEstimator::new(cfg.dctcp_g),
            saw_ce: false,
            rtt_target: cfg.prague_rtt_target.secs(),
        }))
    }

    fn on_ack(&mut self, ack: &Ack) {
        let increase = self.increase_per_window(ack.srtt);
        self.0.reno.grow_per_segment(ack.segments, increase);
    }

    fn on_ecn_feedback(&mut self, fb: &EcnFeedback) {
        let s = &mut self.0;
        s.saw_ce |= fb.ece;
        if s.saw_ce {
            s.alpha.on_ecn_feedback(fb);
        }
    }

    reno_with_alpha!(Controller);

    fn wants_pacing(&self) -> bool {
        true
    }

    fn pacing_ca_gain(&self) -> f64 {
        1.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::units::Duration;
    use crate::tcp::cc::ControllerKind;
    use crate::tcp::EcnCodepoint;

    const MSS: u64 = 1460;

    fn cfg() -> TcpConfig {
        TcpConfig {
            ecn: true,
            ecn_codepoint: EcnCodepoint::Ect1,
            cc: ControllerKind::Prague,
            max_window: 10_000,
            ..TcpConfig::default()
        }
    }

    fn at(cwnd: f64, ssthresh: f64, cfg: &TcpConfig) -> Prague {
        let mut cc = Prague::in_congestion_avoidance(cwnd, cfg);
        cc.0.reno.ssthresh = ssthresh;
        cc
    }

    /// An ACK of one segment, with ECN-Echo or without, `n` segments staying in flight; `ack` is the
    /// cumulative ACK so far.
    fn ack_one(cc: &mut Prague, ack: &mut u64, n: u64, ece: bool) {
        *ack += MSS;
        cc.on_ecn_feedback(&EcnFeedback { bytes: MSS, ece, ack: *ack, snd_max: *ack + n * MSS });
    }

    /// The ACKs of one window of `n` segments, the first `marked` with ECN-Echo.
    fn window(cc: &mut Prague, ack: &mut u64, n: u64, marked: u64) {
        for i in 0..n {
            ack_one(cc, ack, n, i < marked);
        }
    }

    #[test]
    fn alpha_holds_at_one_until_the_first_mark_then_moves_by_a_sixteenth_per_window() {
        let mut cc = Prague::new(&cfg());
        let mut ack = 1;
        // Unmarked windows before any mark: alpha stays 1 (DCTCP's would decay to (15/16)^3).
        for _ in 0..3 {
            window(&mut cc, &mut ack, 10, 0);
        }
        assert_eq!(cc.alpha(), 1.0);
        // The first mark starts the estimate: a first window of that one ACK, F = 1, alpha 1; the
        // window then measured ends 10 segments ahead.
        ack_one(&mut cc, &mut ack, 10, true);
        assert_eq!(cc.alpha(), 1.0);
        // Windows with F = 0.5, 0 and 0.3, by hand: 15/16 + 0.5/16 = 0.96875; ·15/16 = 0.908203125;
        // ·15/16 + 0.3/16 = 0.8701904296875.
        for (marked, expected) in [(5, 0.96875), (0, 0.908203125), (3, 0.8701904296875)] {
            window(&mut cc, &mut ack, 10, marked);
            assert!((cc.alpha() - expected).abs() < 1e-15, "{marked} marked: {}", cc.alpha());
        }
    }

    #[test]
    fn a_mark_cuts_the_window_by_half_of_alpha_and_ends_slow_start() {
        let cfg = cfg();
        // In slow start at 40 segments, alpha 1: the first mark halves, ssthresh with it.
        let mut cc = at(40.0, 10_000.0, &cfg);
        let mut ack = 1;
        ack_one(&mut cc, &mut ack, 20, true);
        cc.on_ecn_echo(40.0);
        assert_eq!((cc.cwnd(), cc.ssthresh()), (20.0, 20.0));
        // Congestion avoidance from there: an ACK of one segment adds 1/20, not 1 (at srtt = target).
        cc.on_ack(&Ack { now: 0, segments: 1.0, srtt: 0.025 });
        assert_eq!(cc.cwnd(), 20.05);
        // A window with a quarter of its bytes marked: alpha = 15/16 + 0.25/16 = 0.953125, and the
        // cut keeps 1 − alpha/2 = 0.5234375 of the window in use: 20 → 10.46875.
        window(&mut cc, &mut ack, 20, 5);
        assert_eq!(cc.alpha(), 0.953125);
        cc.on_ecn_echo(20.0);
        assert_eq!((cc.cwnd(), cc.ssthresh()), (10.46875, 10.46875));
    }

    #[test]
    fn below_the_target_rtt_the_window_grows_by_the_square_of_the_rtt_ratio_per_rtt() {
        let cfg = cfg();
        // One window of 100 ACKs from cwnd 100 in congestion avoidance: at srtt = target each ACK
        // adds 1/cwnd, about one segment per window; at 5 ms, (5/25)² = 1/25 of that.
        let grow = |srtt: f64, target: f64| {
            let mut cc = at(100.0, 100.0, &TcpConfig { prague_rtt_target: Duration::from_secs(target), ..cfg.clone() });
            for _ in 0..100 {
                cc.on_ack(&Ack { now: 0, segments: 1.0, srtt });
            }
            cc.cwnd() - 100.0
        };
        let reno = (0..100).fold(100.0, |w: f64, _| w + 1.0 / w) - 100.0;
        let slow = (0..100).fold(100.0, |w: f64, _| w + 0.04 / w) - 100.0;
        assert!((grow(0.025, 0.025) - reno).abs() < 1e-12);
        assert!((grow(0.005, 0.025) - slow).abs() < 1e-12, "{} against {slow}", grow(0.005, 0.025));
        assert!((0.0399..0.04).contains(&slow));
        // The rate cwnd/srtt gains the same per second at both RTTs, 1/target² = 1600 segments/s²:
        // one ACK's increase, times cwnd/srtt ACKs per second, over srtt.
        let mut cc = at(100.0, 100.0, &cfg);
        for srtt in [0.005, 0.010, 0.025] {
            let before = cc.cwnd();
            cc.on_ack(&Ack { now: 0, segments: 1.0, srtt });
            let per_second = (cc.cwnd() - before) * before / srtt / srtt;
            assert!((per_second - 1600.0).abs() < 1e-6, "srtt {srtt}: {per_second}");
        }
        // At or above the target, and with RTT independence off, Reno's one segment per window.
        assert!((grow(0.050, 0.025) - reno).abs() < 1e-12);
        assert!((grow(0.005, 0.0) - reno).abs() < 1e-12);
    }

    #[test]
    fn slow_start_counts_the_segments_acknowledged_up_to_ssthresh() {
        let mut cc = at(10.0, 11.5, &cfg());
        cc.on_ack(&Ack { now: 0, segments: 1.0, srtt: 0.025 });
        assert_eq!(cc.cwnd(), 11.0);
        // Two segments: 0.5 of slow start reaches ssthresh, 1.5 of congestion avoidance at 11.5.
        cc.on_ack(&Ack { now: 0, segments: 2.0, srtt: 0.025 });
        assert_eq!(cc.cwnd(), 11.5 + 1.5 / 11.5);
    }

    #[test]
    fn a_loss_halves_the_window_and_a_timeout_restarts_from_one_segment() {
        let cfg = cfg();
        let mut cc = at(40.0, 40.0, &cfg);
        cc.on_loss(&cfg);
        assert_eq!((cc.cwnd(), cc.ssthresh()), (20.0, 20.0));
        cc.on_timeout(true, &cfg);
        assert_eq!((cc.cwnd(), cc.ssthresh()), (1.0, 10.0));
    }

    #[test]
    fn it_asks_for_pacing_at_the_full_rate_and_its_state_is_boxed() {
        let cc = Prague::new(&cfg());
        assert!(cc.wants_pacing());
        assert_eq!(cc.pacing_ca_gain(), 1.0);
        assert_eq!(std::mem::size_of::<Prague>(), 8);
        assert_eq!(std::mem::size_of::<super::super::AnyController>(), 24);
    }
}
