//! Congestion control: the window arithmetic of a sender, behind the [`Controller`] trait (after
//! quinn's `congestion::Controller`), one algorithm per file.
//!
//! The split between a controller and the [`Endpoint`](super::Endpoint):
//!
//! - The controller owns the congestion window and the slow-start threshold, in segments, and decides
//!   how they move: growth on an ACK of new data (slow start, congestion avoidance), the cut when
//!   duplicate ACKs reveal a loss or an ACK carries ECN-Echo, and the restart after a retransmission
//!   timeout. A controller that estimates congestion from the share of ECN-Echo ACKs (DCTCP) also
//!   sees every ACK of new data, ECN-Echo or not, through [`Controller::on_ecn_feedback`] (a no-op by
//!   default).
//! - The endpoint decides when those events happen and what is sent: segments, the retransmission and
//!   delayed-ACK timers (with ns-2's `ecn_backoff_`), RTT sampling, ECN negotiation, ECE/CWR
//!   signalling, "at most one cut per window" (the `recover` point) and which cut a timeout makes, and
//!   NewReno's SACK-less fast recovery in both flavours of [`Recovery`](super::Recovery): the
//!   inflation by duplicate ACKs (`dupwnd`, added to the controller's window), the deflation on
//!   partial ACKs, FullTcp's return to ssthresh and its second halving on duplicate ACKs soon after an
//!   ECN cut, which it writes with [`Controller::set_cwnd`]. It sends up to
//!   `min(cwnd + dupwnd, max_window)` segments.
//!
//! Adding a controller: write `<name>.rs` with a type that implements [`Controller`] (named like its
//! `registry!` variant), unit-test it there, and add one line to `registry!` below; `tcp.cc = "<name>"`
//! then selects it. The registry is an enum rather than a boxed trait object: the window is read on
//! every ACK and every send, and an enum keeps NewReno's window inside the endpoint's cache line
//! instead of behind a pointer. The layout asserts in `endpoint.rs` leave the enum 24 bytes: a
//! controller with more state than two numbers keeps it in a `Box` (as [`cubic::Cubic`] does).

use super::TcpConfig;
use crate::sim::Time;
use serde::de::{value, Error as _};

/// What an ACK of new data tells a controller besides its arrival.
#[derive(Clone, Copy, Debug)]
pub struct Ack {
    /// When it arrived.
    pub now: Time,
    /// Segments it newly acknowledges (bytes / MSS: fractional for a short segment).
    pub segments: f64,
    /// The smoothed RTT, seconds (0 before the first sample).
    pub srtt: f64,
}

/// What every ACK of new data tells a controller that counts ECN feedback ([`Controller::on_ecn_feedback`]).
#[derive(Clone, Copy, Debug)]
pub struct EcnFeedback {
    /// Bytes it newly acknowledges.
    pub bytes: u64,
    /// It carried ECN-Echo (on a connection that negotiated ECN).
    pub ece: bool,
    /// The cumulative ACK: the first byte not yet acknowledged, after this ACK.
    pub ack: u64,
    /// One past the highest sequence number sent so far: the end of the data in flight.
    pub snd_max: u64,
}

/// The window arithmetic of one sender. Windows count segments and may be fractional; the endpoint
/// truncates `min(cwnd + recovery's inflation, max_window)` to whole segments when it sends.
/// Linux's `tcp_slow_start`: below `ssthresh`, one segment more per segment acknowledged, up to
/// `ssthresh`; returns the segments of the ACK left for congestion avoidance.
pub(super) fn slow_start(cwnd: &mut f64, ssthresh: f64, segments: f64) -> f64 {
    if *cwnd >= ssthresh {
        return segments;
    }
    let grown = segments.min(ssthresh - *cwnd);
    *cwnd += grown;
    segments - grown
}

pub trait Controller {
    /// The controller of a new connection (quinn's `ControllerFactory::build`).
    fn new(cfg: &TcpConfig) -> Self
    where
        Self: Sized;

    /// The congestion window, segments. Below one segment nothing is sent until the retransmission
    /// timer expires.
    fn cwnd(&self) -> f64;

    /// The slow-start threshold, segments (traced beside cwnd).
    fn ssthresh(&self) -> f64;

    /// An ACK of new data that carries no ECN-Echo (the endpoint does not open the window on ECE).
    fn on_ack(&mut self, ack: &Ack);

    /// Every ACK of new data, with ECN-Echo or without, before the endpoint reacts to it
    /// ([`Self::on_ack`], [`Self::on_ecn_echo`]): DCTCP's estimate of the fraction of marked bytes.
    /// Controllers that react to ECN-Echo only as a signal keep this default, which does nothing.
    fn on_ecn_feedback(&mut self, _feedback: &EcnFeedback) {}

    /// Duplicate ACKs revealed a loss and the endpoint starts a fast retransmit (at most once per
    /// window of data).
    fn on_loss(&mut self, cfg: &TcpConfig);

    /// An ACK carried ECN-Echo, at most once per window of data. `window` is the window the sender was
    /// using: `min(cwnd + recovery's inflation, max_window)`. The endpoint calls
    /// [`Self::on_ecn_feedback`] for the same ACK first.
    fn on_ecn_echo(&mut self, window: f64);

    /// The retransmission timer expired. `cut_ssthresh` is false when ssthresh must be kept: the last
    /// cut was ECN's (ns-2's agents spare the timeout that follows it), or nothing was outstanding
    /// (slow-start restart after idleness).
    fn on_timeout(&mut self, cut_ssthresh: bool, cfg: &TcpConfig);

    /// Fast recovery sets the window: deflation on a partial ACK, FullTcp's cwnd = ssthresh and its
    /// halving (ssthresh kept) on duplicate ACKs soon after an ECN cut.
    fn set_cwnd(&mut self, cwnd: f64);

    /// The endpoint paces this controller's data when `tcp.pacing` is not set (docs/tcp.md#pacing).
    fn wants_pacing(&self) -> bool {
        false
    }

    /// The pacing rate's gain once cwnd reaches half of ssthresh (Linux's `tcp_pacing_ca_ratio`, 120 %;
    /// below that the gain is 2, `tcp_pacing_ss_ratio`).
    fn pacing_ca_gain(&self) -> f64 {
        1.2
    }
}

/// What DCTCP and TCP Prague share, for a controller `Name(Box<State>)` whose state holds `reno:
/// NewReno` and `alpha: AlphaEstimator`: `impl Name` gives the estimate's accessor and a test
/// constructor; `Controller`, inside its impl, the methods that are NewReno's, and the estimator's cut
/// on ECN-Echo.
macro_rules! reno_with_alpha {
    (impl $name:ident) => {
        impl $name {
            /// The estimated fraction of marked bytes.
            pub fn alpha(&self) -> f64 {
                self.0.alpha.alpha()
            }

            /// A sender already in congestion avoidance at `cwnd` (tests of the endpoint start from one).
            #[cfg(test)]
            pub(crate) fn in_congestion_avoidance(cwnd: f64, cfg: &TcpConfig) -> Self {
                let mut cc = <$name as Controller>::new(cfg);
                cc.0.reno = NewReno::in_congestion_avoidance(cwnd);
                cc
            }
        }
    };
    (Controller) => {
        fn cwnd(&self) -> f64 {
            self.0.reno.cwnd()
        }

        fn ssthresh(&self) -> f64 {
            self.0.reno.ssthresh()
        }

        fn on_loss(&mut self, cfg: &TcpConfig) {
            self.0.reno.on_loss(cfg);
        }

        fn on_ecn_echo(&mut self, window: f64) {
            let s = &mut *self.0;
            s.alpha.cut(&mut s.reno, window);
        }

        fn on_timeout(&mut self, cut_ssthresh: bool, cfg: &TcpConfig) {
            self.0.reno.on_timeout(cut_ssthresh, cfg);
        }

        fn set_cwnd(&mut self, cwnd: f64) {
            self.0.reno.set_cwnd(cwnd);
        }
    };
}

macro_rules! registry {
    ($($(#[$doc:meta])* $variant:ident($module:ident) = $name:literal;)*) => {
        $(pub mod $module;)*

        /// A running controller of any registered kind; it dereferences to the [`Controller`].
        pub enum AnyController {
            $($(#[$doc])* $variant($module::$variant),)*
        }

        /// Which controller a flow group uses: `tcp.cc` in a scenario (the first registered is the
        /// default).
        #[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Deserialize, serde::Serialize)]
        #[serde(try_from = "String", into = "String")]
        pub enum ControllerKind {
            $($variant,)*
        }

        /// Every accepted value of `tcp.cc`.
        const NAMES: &[&str] = &[$($name,)*];

        /// The first registered.
        impl Default for ControllerKind {
            fn default() -> Self {
                [$(ControllerKind::$variant,)*][0]
            }
        }

        impl ControllerKind {
            /// A new connection's controller (quinn's `ControllerFactory`).
            pub fn build(self, cfg: &TcpConfig) -> AnyController {
                match self {
                    $(ControllerKind::$variant => AnyController::$variant(Controller::new(cfg)),)*
                }
            }

            pub fn name(self) -> &'static str {
                match self {
                    $(ControllerKind::$variant => $name,)*
                }
            }
        }

        impl TryFrom<String> for ControllerKind {
            type Error = String;

            fn try_from(s: String) -> Result<Self, String> {
                match s.as_str() {
                    $($name => Ok(ControllerKind::$variant),)*
                    _ => Err(value::Error::unknown_variant(&s, NAMES).to_string()),
                }
            }
        }

        impl std::ops::Deref for AnyController {
            type Target = dyn Controller;

            fn deref(&self) -> &Self::Target {
                match self {
                    $(AnyController::$variant(c) => c,)*
                }
            }
        }

        impl std::ops::DerefMut for AnyController {
            fn deref_mut(&mut self) -> &mut Self::Target {
                match self {
                    $(AnyController::$variant(c) => c,)*
                }
            }
        }
    };
}

registry! {
    /// ns-2's `Agent/TCP/Newreno` window (RFC 5681 without byte counting).
    NewReno(newreno) = "newreno";
    /// CUBIC (RFC 9438), with Linux's and ns-3's choices where the RFC leaves them open.
    Cubic(cubic) = "cubic";
    /// DCTCP (RFC 8257): cuts in proportion to the fraction of ECN-marked bytes; needs `ecn = true`.
    Dctcp(dctcp) = "dctcp";
    /// TCP Prague (L4S): DCTCP's response over ECT(1), paced, RTT-independent growth; needs `ecn = true`
    /// and `ecn_codepoint = "ect1"`.
    Prague(prague) = "prague";
}

impl ControllerKind {
    /// The receiver echoes the CE state of the data each ACK covers (RFC 8257 §3.2), which DCTCP's and
    /// Prague's estimate of the fraction of marked bytes needs, instead of RFC 3168's echo until CWR.
    pub fn echoes_each_mark(self) -> bool {
        matches!(self, ControllerKind::Dctcp | ControllerKind::Prague)
    }
}

impl From<ControllerKind> for String {
    fn from(kind: ControllerKind) -> String {
        kind.name().to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_registered_name_reads_back_as_its_kind_and_others_are_refused() {
        for &name in NAMES {
            let kind = ControllerKind::try_from(name.to_string()).unwrap();
            assert_eq!(kind.name(), name);
            assert_eq!(kind.build(&TcpConfig::default()).cwnd(), TcpConfig::default().init_cwnd);
        }
        assert_eq!(ControllerKind::default().name(), NAMES[0]);
        assert_eq!(
            ControllerKind::try_from("reno".to_string()).unwrap_err(),
            "unknown variant `reno`, expected one of `newreno`, `cubic`, `dctcp`, `prague`"
        );
    }
}
