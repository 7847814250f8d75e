//! DCTCP (RFC 8257; docs/tcp.md#dctcp): the sender estimates the fraction of its bytes that met
//! congestion from the ECN-Echo of every ACK and cuts in proportion to it, instead of halving.
//!
//! - The estimate: per window of data, F = bytes acknowledged by ACKs with ECN-Echo / bytes
//!   acknowledged, and `alpha ← (1 − g)·alpha + g·F` when an ACK reaches the end of the window (the
//!   highest sequence sent when the previous window ended), g = `dctcp_g` (1/16). alpha starts at 1,
//!   as Linux's `dctcp_alpha_on_init` does by default, so that the first cuts halve.
//!   Linux keeps alpha in fixed point (1/1024); this keeps it in `f64`.
//! - The cut, at most once per window of data (the endpoint's `recover` point, as for RFC 3168):
//!   `ssthresh = max(window·(1 − alpha/2), 2)` of the window in use, and cwnd the same (Linux reaches
//!   ssthresh at the end of its CWR state); a window already below 2 segments is not raised.
//! - Growth, the cut for a loss found by duplicate ACKs and the restart after a timeout are NewReno's
//!   (RFC 8257 §3.5 recommends reacting to loss as conventional TCP): this controller wraps
//!   [`NewReno`]. The window does not open on ECN-Echo ACKs, as for every controller here.
//!
//! The estimate and the cut are [`AlphaEstimator`]'s, which TCP Prague shares. The receiver's side,
//! ECN-Echo on exactly the ACKs that cover CE-marked data (RFC 8257 §3.2), is the endpoint's, which
//! switches to it when `cc = "dctcp"` or `"prague"`.

use super::newreno::NewReno;
use super::{Ack, Controller, EcnFeedback};
use crate::tcp::TcpConfig;

/// DCTCP's state lives behind a pointer so that the registry's enum stays 24 bytes (see [`super`]).
pub struct Dctcp(Box<State>);

struct State {
    /// cwnd and ssthresh, grown and cut for losses as NewReno's.
    reno: NewReno,
    alpha: AlphaEstimator,
}

/// The estimate of the fraction of marked bytes and the cut in proportion to it, which TCP Prague
/// shares ([`super::prague`]; docs/tcp.md#tcp-prague).
pub(super) struct AlphaEstimator {
    /// The estimated fraction of marked bytes, in [0, 1].
    alpha: f64,
    /// The estimator's gain (`dctcp_g`).
    g: f64,
    /// The window being measured ends when the cumulative ACK reaches this sequence number (0: at the
    /// first ACK).
    window_end: u64,
    /// Bytes acknowledged in the window being measured, and those by ACKs with ECN-Echo.
    acked: u64,
    acked_ece: u64,
}

impl AlphaEstimator {
    /// alpha starts at 1, so that the first cuts halve.
    pub(super) fn new(g: f64) -> Self {
        AlphaEstimator { alpha: 1.0, g, window_end: 0, acked: 0, acked_ece: 0 }
    }

    pub(super) fn alpha(&self) -> f64 {
        self.alpha
    }

    /// Counts the bytes, and once the ACK reaches the end of the window measured, moves alpha toward
    /// that window's fraction of marked bytes and starts the next window at the highest sequence sent
    /// (Linux's `dctcp_update_alpha`).
    pub(super) fn on_ecn_feedback(&mut self, fb: &EcnFeedback) {
        self.acked += fb.bytes;
        if fb.ece {
            self.acked_ece += fb.bytes;
        }
        if fb.ack >= self.window_end {
            if self.acked > 0 {
                let fraction = self.acked_ece as f64 / self.acked as f64;
                self.alpha = (1.0 - self.g) * self.alpha + self.g * fraction;
            }
            self.acked = 0;
            self.acked_ece = 0;
            self.window_end = fb.snd_max;
        }
    }

    /// `ssthresh = max(window·(1 − alpha/2), 2)`, cwnd the same; a window below 2 segments is kept.
    pub(super) fn cut(&self, reno: &mut NewReno, window: f64) {
        let reduced = window * (1.0 - self.alpha / 2.0);
        reno.ssthresh = reduced.max(2.0);
        reno.cwnd = reduced.max(window.min(2.0));
    }
}

reno_with_alpha!(impl Dctcp);

impl Controller for Dctcp {
    fn new(cfg: &TcpConfig) -> Self {
        Dctcp(Box::new(State { reno: NewReno::new(cfg), alpha: AlphaEstimator::new(cfg.dctcp_g) }))
    }

    fn on_ack(&mut self, ack: &Ack) {
        self.0.reno.grow_per_segment(ack.segments, 1.0);
    }

    fn on_ecn_feedback(&mut self, fb: &EcnFeedback) {
        self.0.alpha.on_ecn_feedback(fb);
    }

    reno_with_alpha!(Controller);
}

#[cfg(test)]
mod tests {
    use super::*;

    const MSS: u64 = 1460;

    fn cfg() -> TcpConfig {
        TcpConfig { ecn: true, cc: super::super::ControllerKind::Dctcp, ..TcpConfig::default() }
    }

    /// A sender that keeps `in_flight` full segments outstanding: each ACK acknowledges one segment
    /// and the sender then sends one more.
    struct Flow {
        cc: Dctcp,
        /// The cumulative ACK so far.
        ack: u64,
        in_flight: u64,
    }

    impl Flow {
        fn new(cfg: &TcpConfig, in_flight: u64) -> Self {
            Flow { cc: Dctcp::new(cfg), ack: 1, in_flight }
        }

        /// One ACK of one segment, with ECN-Echo or without.
        fn ack(&mut self, ece: bool) {
            self.ack += MSS;
            let fb = EcnFeedback { bytes: MSS, ece, ack: self.ack, snd_max: self.ack + self.in_flight * MSS };
            self.cc.on_ecn_feedback(&fb);
        }

        /// The ACKs of one window of `in_flight` segments, the first `marked` with ECN-Echo.
        fn window(&mut self, marked: u64) {
            for i in 0..self.in_flight {
                self.ack(i < marked);
            }
        }
    }

    #[test]
    fn alpha_starts_at_one_and_follows_the_fraction_of_marked_bytes_per_window() {
        let g = 1.0 / 16.0;
        let mut f = Flow::new(&cfg(), 10);
        assert_eq!(f.cc.alpha(), 1.0);
        // The first ACK passes the initial window end (0): a window of one ACK, unmarked (Linux's
        // `next_seq` starts at snd_nxt, which the first ACK of data passes too).
        f.ack(false);
        assert_eq!(f.cc.alpha(), 1.0 - g);
        // From there the window end is 10 segments ahead: no update within a window.
        for _ in 0..9 {
            f.ack(true);
            assert_eq!(f.cc.alpha(), 1.0 - g, "the window is not over");
        }
        f.ack(true);
        // 10 ACKs, all marked: F = 1.
        let mut expected = (1.0 - g) * (1.0 - g) + g;
        assert_eq!(f.cc.alpha(), expected);
        // Windows with F = 0, 0.5, 0 and 0.3.
        for marked in [0, 5, 0, 3] {
            f.window(marked);
            expected = (1.0 - g) * expected + g * marked as f64 / 10.0;
            assert_eq!(f.cc.alpha(), expected, "F = {}", marked as f64 / 10.0);
        }
        // With no marks alpha decays as (1 − g)^k.
        let before = f.cc.alpha();
        for _ in 0..40 {
            f.window(0);
        }
        assert!((f.cc.alpha() - before * (1.0 - g).powi(40)).abs() < 1e-15, "{}", f.cc.alpha());
        // A steady fraction F is alpha's fixed point.
        for _ in 0..600 {
            f.window(2);
        }
        assert!((f.cc.alpha() - 0.2).abs() < 1e-12, "{}", f.cc.alpha());
    }

    #[test]
    fn the_fraction_counts_bytes_and_the_gain_is_dctcp_g() {
        // g = 1: alpha is the last window's fraction. A first window of one unmarked ACK, then one of
        // three: 500 bytes marked, 1460 and 960 unmarked, F = 500 / 2920.
        let mut cc = Dctcp::new(&TcpConfig { dctcp_g: 1.0, ..cfg() });
        let fb = |bytes, ece, ack, snd_max| EcnFeedback { bytes, ece, ack, snd_max };
        cc.on_ecn_feedback(&fb(MSS, false, 1 + MSS, 1 + 3 * MSS));
        assert_eq!(cc.alpha(), 0.0);
        cc.on_ecn_feedback(&fb(500, true, 1 + MSS + 500, 1 + 4 * MSS));
        assert_eq!(cc.alpha(), 0.0, "not yet at the window end, 1 + 3·MSS");
        cc.on_ecn_feedback(&fb(MSS, false, 1 + 2 * MSS + 500, 1 + 4 * MSS));
        assert_eq!(cc.alpha(), 0.0);
        cc.on_ecn_feedback(&fb(MSS - 500, false, 1 + 3 * MSS, 1 + 5 * MSS));
        assert_eq!(cc.alpha(), 500.0 / 2920.0, "500 marked bytes of 2 segments' worth");
    }

    #[test]
    fn ecn_echo_cuts_the_window_by_half_of_alpha() {
        let cfg = TcpConfig { dctcp_g: 1.0, ..cfg() };
        // alpha 1 (the start): a halving, as NewReno's but with ssthresh unrounded.
        let mut cc = Dctcp::in_congestion_avoidance(20.0, &cfg);
        cc.on_ecn_echo(20.0);
        assert_eq!((cc.cwnd(), cc.ssthresh()), (10.0, 10.0));
        // alpha 0.25 (g = 1, a window with a quarter of its bytes marked): 20·(1 − 0.125) = 17.5.
        let mut f = Flow { cc: Dctcp::in_congestion_avoidance(20.0, &cfg), ack: 1, in_flight: 4 };
        f.ack(false);
        f.window(1);
        assert_eq!(f.cc.alpha(), 0.25);
        f.cc.on_ecn_echo(20.0);
        assert_eq!((f.cc.cwnd(), f.cc.ssthresh()), (17.5, 17.5));
        // The window in use, fast recovery's inflation included, is what is cut: 17.5 + 3 → 17.9375.
        f.cc.on_ecn_echo(20.5);
        assert_eq!((f.cc.cwnd(), f.cc.ssthresh()), (17.9375, 17.9375));
        // alpha 0: no cut.
        f.window(0);
        assert_eq!(f.cc.alpha(), 0.0);
        f.cc.on_ecn_echo(17.0);
        assert_eq!((f.cc.cwnd(), f.cc.ssthresh()), (17.0, 17.0));
        // At least 2 segments; a window already below 2 is kept, never raised.
        for (window, cwnd, ssthresh) in [(3.0, 2.0, 2.0), (2.0, 2.0, 2.0), (1.5, 1.5, 2.0), (1.0, 1.0, 2.0)] {
            let mut cc = Dctcp::in_congestion_avoidance(window, &cfg);
            cc.on_ecn_echo(window);
            assert_eq!((cc.cwnd(), cc.ssthresh()), (cwnd, ssthresh), "from {window}, alpha 1");
        }
    }

    #[test]
    fn a_delayed_ack_opens_the_window_by_the_segments_it_acknowledges() {
        let mut cc = Dctcp::in_congestion_avoidance(20.0, &cfg());
        cc.on_ack(&Ack { now: 0, segments: 2.0, srtt: 0.1 });
        assert_eq!(cc.cwnd(), 20.1, "Linux's tcp_cong_avoid_ai: 2 segments of 1/20");
    }

    /// With one segment per ACK, growing per segment and ns-2's per-ACK rule agree.
    #[test]
    fn growth_losses_and_timeouts_are_newrenos() {
        let cfg = TcpConfig { max_window: 100, ..cfg() };
        let ack = Ack { now: 0, segments: 1.0, srtt: 0.1 };
        let mut dctcp = Dctcp::new(&cfg);
        let mut reno = NewReno::new(&cfg);
        let both = |d: &Dctcp, r: &NewReno| ((d.cwnd(), d.ssthresh()), (r.cwnd(), r.ssthresh()));
        for step in 0..200 {
            match step {
                60 | 150 => {
                    dctcp.on_loss(&cfg);
                    reno.on_loss(&cfg);
                }
                100 => {
                    dctcp.on_timeout(true, &cfg);
                    reno.on_timeout(true, &cfg);
                }
                _ => {
                    dctcp.on_ack(&ack);
                    reno.on_ack(&ack);
                }
            }
            let (d, r) = both(&dctcp, &reno);
            assert_eq!(d, r, "step {step}");
        }
    }

    #[test]
    fn the_state_is_boxed_so_the_registry_stays_small() {
        assert_eq!(std::mem::size_of::<Dctcp>(), 8);
        assert_eq!(std::mem::size_of::<super::super::AnyController>(), 24);
    }
}
