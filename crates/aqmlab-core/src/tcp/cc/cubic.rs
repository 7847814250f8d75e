//! CUBIC (RFC 9438; docs/tcp.md#cubic): after a reduction the window follows the cubic
//! `W_cubic(t) = C·(t − K)³ + W_max` of the time t since congestion avoidance began, flat around the
//! window W_max where the last reduction happened, with a floor `W_est` that grows as Reno would
//! (the Reno-friendly region).
//!
//! Choices where the RFC leaves room, as Linux's `tcp_cubic` and ns-3's `TcpCubic` make them:
//! - C = 0.4, β = 0.7, fast convergence and the Reno-friendly region on.
//! - Slow start adds one segment per ACK, as this crate's NewReno does (no HyStart).
//! - The cubic target is approached by `(target − cwnd)/cwnd` per ACK (RFC 9438 §4.4); `W_est` grows by
//!   `α·segments/cwnd` per ACK, α = 3(1 − β)/(1 + β) until `W_est` reaches the window before the last
//!   reduction, 1 from there (§4.3).
//! - An epoch starts with the first ACK of congestion avoidance after a reduction; when W_max is at or
//!   below the window then, the epoch starts at K = 0 from that window (Linux's `bic_origin_point`).
//! - A timeout forgets W_max (Linux's `bictcp_reset` on entering loss recovery); a restart after idleness
//!   only ends the epoch.

use super::{Ack, Controller};
use crate::sim::{time, Time};
use crate::tcp::TcpConfig;

/// Scales the cubic, segments per second³.
const C: f64 = 0.4;
/// The window a reduction keeps.
const BETA: f64 = 0.7;
/// Reno-friendly growth per window of ACKs while below the window before the last reduction.
const ALPHA: f64 = 3.0 * (1.0 - BETA) / (1.0 + BETA);

/// CUBIC's state lives behind a pointer so that the registry's enum stays 24 bytes (see [`super`]).
pub struct Cubic(Box<State>);

struct State {
    cwnd: f64,
    ssthresh: f64,
    /// The window W_max the cubic is centred on (0: none, after a timeout or before any reduction).
    w_max: f64,
    /// The window before the last reduction (RFC 9438 `cwnd_prior`).
    cwnd_prior: f64,
    epoch: Option<Epoch>,
}

/// One congestion-avoidance stage: from its first ACK to the next reduction.
struct Epoch {
    start: Time,
    /// Seconds from `start` to the plateau.
    k: f64,
    /// The window at the plateau (W_max, or the window at `start` when that is above it).
    origin: f64,
    /// The Reno-friendly estimate, segments.
    w_est: f64,
}

impl Cubic {
    /// `W_cubic(t)`, segments, `t` seconds into the epoch.
    fn w_cubic(e: &Epoch, t: f64) -> f64 {
        C * (t - e.k).powi(3) + e.origin
    }

    /// A reduction by β of `window` (a loss or ECN-Echo): the epoch ends, W_max moves (lower still
    /// when the window has not regained the previous W_max: fast convergence).
    fn reduce(&mut self, window: f64) {
        let s = &mut self.0;
        s.epoch = None;
        s.w_max = if window < s.w_max { window * (1.0 + BETA) / 2.0 } else { window };
        s.cwnd_prior = window;
        s.ssthresh = (window * BETA).max(2.0);
    }
}

impl Controller for Cubic {
    fn new(cfg: &TcpConfig) -> Self {
        Cubic(Box::new(State {
            cwnd: cfg.init_cwnd,
            ssthresh: cfg.max_window as f64,
            w_max: 0.0,
            cwnd_prior: 0.0,
            epoch: None,
        }))
    }

    fn cwnd(&self) -> f64 {
        self.0.cwnd
    }

    fn ssthresh(&self) -> f64 {
        self.0.ssthresh
    }

    /// Counts the segments acknowledged, as Linux's `tcp_cubic` and ns-3's `TcpCubic` do: slow start
    /// opens one per segment up to ssthresh, and the rest of the ACK's segments each take a step toward
    /// the target (so that delayed ACKs do not halve the growth).
    fn on_ack(&mut self, ack: &Ack) {
        let s = &mut self.0;
        // An ACK acknowledges new data: segments are left only past ssthresh.
        let segments = super::slow_start(&mut s.cwnd, s.ssthresh, ack.segments);
        if segments <= 0.0 {
            return;
        }
        let cwnd = s.cwnd;
        let (w_max, cwnd_prior) = (s.w_max, s.cwnd_prior);
        let e = s.epoch.get_or_insert_with(|| {
            let (k, origin) = if w_max > cwnd { (((w_max - cwnd) / C).cbrt(), w_max) } else { (0.0, cwnd) };
            Epoch { start: ack.now, k, origin, w_est: cwnd }
        });
        let t = time::to_secs(ack.now - e.start);
        let alpha = if e.w_est < cwnd_prior { ALPHA } else { 1.0 };
        e.w_est += alpha * segments / cwnd;
        if Cubic::w_cubic(e, t) < e.w_est {
            s.cwnd = e.w_est; // the Reno-friendly region
        } else {
            let target = Cubic::w_cubic(e, t + ack.srtt).clamp(cwnd, 1.5 * cwnd);
            s.cwnd += segments * (target - cwnd) / cwnd;
        }
    }

    /// cwnd = ssthresh = β·window (at least 1 and 2 segments), the window capped by the receiver's.
    fn on_loss(&mut self, cfg: &TcpConfig) {
        let window = self.0.cwnd.min(cfg.max_window as f64);
        self.reduce(window);
        self.0.cwnd = (window * BETA).max(1.0);
    }

    /// The same cut for ECN-Echo (RFC 9438 §4.6), of the window in use.
    fn on_ecn_echo(&mut self, window: f64) {
        self.reduce(window);
        self.0.cwnd = window * BETA;
    }

    /// Restart from one segment; a cut ssthresh is β·window and W_max is forgotten.
    fn on_timeout(&mut self, cut_ssthresh: bool, cfg: &TcpConfig) {
        if cut_ssthresh {
            let window = self.0.cwnd.min(cfg.max_window as f64);
            self.reduce(window);
            self.0.w_max = 0.0;
        }
        let s = &mut self.0;
        s.epoch = None;
        s.cwnd = 1.0;
    }

    fn set_cwnd(&mut self, cwnd: f64) {
        self.0.cwnd = cwnd;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::time::secs;

    fn cfg() -> TcpConfig {
        TcpConfig { max_window: 1000, init_cwnd: 2.0, ..TcpConfig::default() }
    }

    /// A sender in congestion avoidance that lost a segment at `w`.
    fn after_loss_at(w: f64) -> Cubic {
        let mut cc = Cubic::new(&cfg());
        cc.0.cwnd = w;
        cc.0.ssthresh = w;
        cc.on_loss(&cfg());
        cc
    }

    /// ACKs one segment each, `cwnd` of them per RTT, from `from` for `duration` seconds; returns the
    /// time reached.
    fn ack_for(cc: &mut Cubic, from: Time, duration: f64, rtt: f64) -> Time {
        let mut now = from;
        let end = from + secs(duration);
        while now < end {
            cc.on_ack(&Ack { now, segments: 1.0, srtt: rtt });
            now += secs(rtt / cc.cwnd());
        }
        now
    }

    #[test]
    fn a_loss_keeps_beta_of_the_window_and_centres_the_cubic_on_it() {
        let cc = after_loss_at(100.0);
        assert_eq!((cc.cwnd(), cc.ssthresh(), cc.0.w_max), (70.0, 70.0, 100.0));
        // Small windows keep at least two segments of ssthresh and one of cwnd.
        let cc = after_loss_at(1.0);
        assert_eq!((cc.cwnd(), cc.ssthresh()), (1.0, 2.0));
    }

    #[test]
    fn the_window_follows_the_cubic_and_reaches_w_max_at_k() {
        // W_max 100, cwnd 70: K = cbrt((100 − 70)/0.4) = cbrt(75) = 4.217 s. With 100 ms RTTs the cubic
        // is above Reno's estimate (70 + 0.529·t/0.1 reaches 100 only after 5.7 s), so cwnd follows the
        // cubic one RTT behind its target: between W_cubic(t) (less a segment) and W_cubic(t + RTT).
        let mut cc = after_loss_at(100.0);
        let k = 75f64.cbrt();
        let rtt = 0.1;
        let mut now = secs(10.0);
        let start = now;
        for t in [1.0, 2.0, 3.0, 4.0, k] {
            now = ack_for(&mut cc, now, t - time::to_secs(now - start), rtt);
            let t_now = time::to_secs(now - start);
            let (now_w, ahead) = (C * (t_now - k).powi(3) + 100.0, C * (t_now + rtt - k).powi(3) + 100.0);
            assert!(now_w - 1.0 <= cc.cwnd() && cc.cwnd() <= ahead, "t = {t_now:.3}: {now_w} {} {ahead}", cc.cwnd());
        }
        assert!((cc.cwnd() - 100.0).abs() < 1.0, "plateau at W_max: {}", cc.cwnd());
        // Two seconds past K the cubic probes only 0.4·2³ = 3.2 segments above W_max, while Reno's
        // estimate has passed it: 0.529 segment per RTT up to 100 (after 30/0.529 RTTs, 5.67 s), one per
        // RTT from there, about 105.5 at 6.2 s. The window is the estimate (the Reno-friendly region).
        now = ack_for(&mut cc, now, 2.0, rtt);
        let t_now = time::to_secs(now - start);
        let reno = 100.0 + (t_now - 0.1 * 30.0 / ALPHA) / 0.1;
        assert!(C * (t_now + rtt - k).powi(3) + 100.0 < cc.cwnd(), "{}", cc.cwnd());
        assert!((cc.cwnd() - reno).abs() < 0.5, "{} against {reno}", cc.cwnd());
    }

    #[test]
    fn at_short_rtts_the_reno_friendly_estimate_sets_the_window() {
        // W_max 10, cwnd 7, RTT 10 ms: the cubic barely moves in 0.5 s (K = cbrt(7.5) = 1.96 s), while
        // W_est gains α = 0.529 segment per window of ACKs until it passes 10, then one per window.
        let mut cc = after_loss_at(10.0);
        let mut w_est = 7.0;
        let mut now = secs(1.0);
        for _ in 0..2000 {
            let cwnd = cc.cwnd();
            w_est += if w_est < 10.0 { ALPHA } else { 1.0 } / cwnd;
            cc.on_ack(&Ack { now, segments: 1.0, srtt: 0.01 });
            now += secs(0.01 / cwnd);
        }
        let t = time::to_secs(now - secs(1.0));
        assert!(C * (t - 7.5f64.cbrt()).powi(3) + 10.0 < w_est, "still the Reno-friendly region at {t} s");
        assert!((cc.cwnd() - w_est).abs() < 1e-9, "cwnd {} = W_est {w_est}", cc.cwnd());
    }

    #[test]
    fn fast_convergence_lowers_w_max_when_the_window_did_not_regain_it() {
        let mut cc = after_loss_at(100.0);
        cc.0.cwnd = 80.0;
        cc.on_loss(&cfg());
        assert!((cc.0.w_max - 80.0 * 1.7 / 2.0).abs() < 1e-12, "{}", cc.0.w_max);
        assert_eq!(cc.cwnd(), 56.0);
    }

    #[test]
    fn ecn_echo_cuts_the_window_in_use_and_a_timeout_forgets_w_max() {
        let mut cc = after_loss_at(100.0);
        cc.on_ecn_echo(40.0);
        assert_eq!((cc.cwnd(), cc.ssthresh(), cc.0.w_max), (40.0 * BETA, 28.0, 40.0 * 1.7 / 2.0));
        cc.on_timeout(true, &cfg());
        // ssthresh is β of the window then in use, 28.
        assert_eq!((cc.cwnd(), cc.ssthresh(), cc.0.w_max), (1.0, 28.0 * BETA, 0.0));
        // Slow start up to ssthresh, one segment per ACK; the epoch then starts at K = 0 from cwnd.
        cc.0.ssthresh = 2.0;
        cc.on_ack(&Ack { now: secs(1.0), segments: 1.0, srtt: 0.1 });
        assert_eq!(cc.cwnd(), 2.0);
        cc.on_ack(&Ack { now: secs(1.1), segments: 1.0, srtt: 0.1 });
        let e = cc.0.epoch.as_ref().expect("an epoch");
        assert_eq!((e.k, e.origin), (0.0, 2.0));
        // A restart after idleness (ssthresh kept) ends the epoch only.
        cc.on_timeout(false, &cfg());
        assert_eq!((cc.cwnd(), cc.ssthresh()), (1.0, 2.0));
        assert!(cc.0.epoch.is_none());
    }

    #[test]
    fn a_delayed_ack_counts_the_segments_it_acknowledges() {
        // Slow start: two segments open two, up to ssthresh.
        let mut cc = Cubic::new(&cfg());
        let start = cc.cwnd();
        cc.on_ack(&Ack { now: 0, segments: 2.0, srtt: 0.1 });
        assert_eq!(cc.cwnd(), start + 2.0);
        // At the epoch's start the window is the Reno-friendly estimate's, grown by α per segment.
        let mut cc = after_loss_at(100.0);
        let cwnd = cc.cwnd();
        cc.on_ack(&Ack { now: secs(1.0), segments: 2.0, srtt: 0.1 });
        assert_eq!(cc.cwnd(), cwnd + ALPHA * 2.0 / cwnd);
        // Later, in the concave region, each of its segments takes a step (target − cwnd)/cwnd.
        let now = ack_for(&mut cc, secs(1.0), 2.0, 0.1);
        let cwnd = cc.cwnd();
        let e = cc.0.epoch.as_ref().expect("an epoch");
        let t = time::to_secs(now - e.start);
        assert!(Cubic::w_cubic(e, t) > e.w_est + 2.0 / cwnd, "in the cubic region");
        let target = Cubic::w_cubic(e, t + 0.1).clamp(cwnd, 1.5 * cwnd);
        cc.on_ack(&Ack { now, segments: 2.0, srtt: 0.1 });
        assert_eq!(cc.cwnd(), cwnd + 2.0 * (target - cwnd) / cwnd);
    }

    #[test]
    fn the_state_is_boxed_so_the_registry_stays_small() {
        assert_eq!(std::mem::size_of::<Cubic>(), 8);
        assert_eq!(std::mem::size_of::<super::super::AnyController>(), 24);
    }
}
