//! TCP: one connection type for every application.
//!
//! A connection has two endpoints, the initiator (client, index 0) and the responder (server, index 1);
//! each can send and receive data. Sequence numbers count bytes; the SYN takes sequence 0, data starts at
//! 1, and the FIN takes the sequence number after the last data byte.
//!
//! Congestion control follows ns-2's `Agent/TCP/Newreno` (docs/tcp.md#congestion-window): the window is
//! counted in segments and grows per ACK (slow start +1, congestion avoidance +1/cwnd, no byte counting: the
//! [`cc::newreno`] controller, chosen by `cc`; [`cc`] tells what a controller decides); fast
//! retransmit halves `min(cwnd, max_window)`, recovery inflates a separate `dupwnd`, partial ACKs deflate
//! it and retransmit the next hole (RFC 6582, "careful" variant: no new fast retransmit until the
//! cumulative ACK passes `recover`); Limited Transmit sends one new segment on each of the first two
//! duplicate ACKs. The retransmission timer is RFC 6298 with ns-2's tick quantisation ([`rtt`]).
//! Receivers delay ACKs (every `ack_every`-th in-order segment or after `delack_timeout`) and ACK
//! out-of-order data at once. ECN follows RFC 3168 with ns-2's choices: data segments (retransmissions
//! included) are ECT(0), or ECT(1) with `ecn_codepoint = "ect1"` (the L4S identifier, RFC 9331),
//! SYN/SYN-ACK/pure ACKs are not; ECE is echoed until CWR, which the sender puts on the first data
//! segment (a retransmission included) after any window reduction; the sender halves
//! at most once per window, keeping cwnd's fraction (31 -> 15.5; 1 -> 0.5, which sends nothing until
//! the retransmission timer expires, and a second such reduction doubles the timer), does not open cwnd
//! on ACKs carrying ECE, and does not cut ssthresh at a timeout that follows an ECN reduction (the first
//! one only, as the one-way agent; every one with `recovery = full_tcp`, as FullTcp).
//! With `cc = "dctcp"` (RFC 8257, which needs `ecn`) or `"prague"` (which also needs ECT(1)) the
//! receiver echoes instead the CE bit of the data each ACK covers, sending a delayed ACK at once when
//! that bit changes, and ignores CWR; the controller sees every ACK's ECN-Echo
//! ([`cc::Controller::on_ecn_feedback`]). With `pacing` (Prague's default) new data leaves no faster
//! than gain·cwnd·mss/srtt (docs/tcp.md#pacing).
//!
//! [`Recovery::FullTcp`] switches fast recovery (and the ECN reaction around it) to ns-2's
//! `Agent/TCP/FullTcp/Newreno`, the agent of ns-2's PackMime-HTTP.

pub mod cc;
pub mod endpoint;
pub mod rtt;
pub mod timer;

pub use endpoint::{Endpoint, Role, TcpStats};

use crate::net::Ecn;
use crate::scenario::units::Duration;
use cc::ControllerKind;
use serde::{Deserialize, Serialize};

/// TCP/IP header bytes added to every segment (ns-2 `tcpip_base_hdr_size_`).
pub const HEADER_BYTES: u32 = 40;

/// TCP options of a flow group; defaults follow ns-2 (docs/tcp.md#ns-2-defaults) except `mss`.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(default, deny_unknown_fields)]
pub struct TcpConfig {
    /// Payload bytes of a full segment (1460: 1500-byte packets; ns-2's one-way default is 1000).
    pub mss: u32,
    /// Initial congestion window in segments (ns-2 `windowInit_` 2).
    pub init_cwnd: f64,
    /// Receiver / maximum window in segments (ns-2 `window_` 20).
    pub max_window: u32,
    /// Delay ACKs (ns-2 `TCPSink/DelAck`); when false every segment is ACKed at once.
    pub delayed_ack: bool,
    /// With delayed ACKs, ACK at once after this many unacknowledged in-order segments (2).
    pub ack_every: u32,
    /// Delayed-ACK timer (ns-2 `interval_` 100 ms).
    pub delack_timeout: Duration,
    /// Lower bound on the retransmission timeout (ns-2 `minrto_` 200 ms).
    pub min_rto: Duration,
    /// Timeout before the first RTT sample (ns-2 `rtxcur_init_` 3 s).
    pub initial_rto: Duration,
    /// Upper bound on the (backed-off) timeout (ns-2 `maxrto_` 60 s).
    pub max_rto: Duration,
    /// Clock granularity of RTT samples (ns-2 `tcpTick_` 10 ms); 0 = exact RFC 6298.
    pub tick: Duration,
    /// Duplicate ACKs that trigger fast retransmit (3).
    pub dupack_threshold: u32,
    /// Limited Transmit (RFC 3042; ns-2 `singledup_` 1).
    pub limited_transmit: bool,
    /// Negotiate ECN (RFC 3168); both ends of a connection use the flow group's setting.
    pub ecn: bool,
    /// The ECT codepoint of data segments when ECN is negotiated (needs `ecn`).
    pub ecn_codepoint: EcnCodepoint,
    /// Most segments sent in one burst; 0 = unlimited (ns-2 `maxburst_` 0).
    pub max_burst: u32,
    /// Nagle's algorithm: hold a partial segment while data is unacknowledged (ns-2 FullTcp's default,
    /// `nodelay_ false`; the one-way agents have none).
    pub nagle: bool,
    /// Slow-start restart after idleness, as ns-2's agents do it (`slow_start_restart_`,
    /// `restart_bugfix_`): the retransmission timer keeps running after everything is acknowledged,
    /// and when it expires with nothing outstanding the window restarts from one segment (ssthresh
    /// kept, no backoff, not counted as a timeout).
    pub slow_start_restart: bool,
    /// Which ns-2 agent's fast recovery (and, with ECN, reaction to ECN-Echo and timeouts) to follow.
    pub recovery: Recovery,
    /// The congestion controller (`"newreno"`, `"cubic"`, `"dctcp"`, which needs `ecn`, or `"prague"`,
    /// which needs `ecn` and `ecn_codepoint = "ect1"`).
    pub cc: ControllerKind,
    /// DCTCP's and Prague's gain g: per window of data, `alpha ← (1 − g)·alpha + g·F` (RFC 8257: 1/16).
    pub dctcp_g: f64,
    /// Pace data segments at `gain·cwnd·mss/srtt` (docs/tcp.md#pacing); unset: as the controller
    /// wants (`"prague"` paces, the others do not).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pacing: Option<bool>,
    /// Prague's RTT independence: below this smoothed RTT, congestion avoidance grows the window by
    /// (srtt/target)² segments per RTT, the rate growth of a flow at the target (Linux's
    /// `prague_rtt_target`, 25 ms); 0 turns it off.
    pub prague_rtt_target: Duration,
}

/// The loss-recovery variant of a flow group (`recovery = "one_way" | "full_tcp"` in `[tcp]`).
#[derive(Clone, Copy, Debug, Default, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case", try_from = "String")]
pub enum Recovery {
    /// ns-2's one-way `Agent/TCP/Newreno`: partial ACKs deflate the window by the data they acknowledge
    /// and recovery ends without a window change.
    #[default]
    OneWay,
    /// ns-2's `Agent/TCP/FullTcp/Newreno` (`NewRenoFullTcpAgent`, what PackMime-HTTP uses): a partial ACK
    /// retransmits the next hole, moves `recover` forward, sets cwnd to ssthresh and limits sending to
    /// 2 segments per ACK (`recov_maxburst_`) until recovery ends; the ACK that ends it sets cwnd to
    /// ssthresh when the inflated window is larger and sends without that limit, so that after two or
    /// more losses in a window about ssthresh segments leave at once. With ECN: ECN-Echo counts only
    /// on ACKs that acknowledge new data, after the ACK is processed; three duplicate ACKs soon after an
    /// ECN reduction halve cwnd again; no timeout halves ssthresh while the last reduction was ECN's.
    /// It also opens, acknowledges and closes as FullTcp (docs/tcp.md): a pure ACK of the SYN-ACK, ACKs
    /// by bytes with the delayed-ACK timer on a 100-ms grid, the FIN of `MSG_EOF`, and FullTcp's
    /// slow-start restart.
    FullTcp,
}

/// The ECT codepoint a flow group's data carries (`ecn_codepoint = "ect0" | "ect1"` in `[tcp]`).
#[derive(Clone, Copy, Debug, Default, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case", try_from = "String")]
pub enum EcnCodepoint {
    /// ECT(0), RFC 3168's classic ECN (ns-2's only codepoint; ns-3 `TcpDctcp::UseEct0` true).
    #[default]
    Ect0,
    /// ECT(1), the L4S identifier (RFC 9331): L4S-mode queues mark it against a shallow threshold
    /// (ns-3 `TcpDctcp::UseEct0` false).
    Ect1,
}

impl EcnCodepoint {
    pub fn ecn(self) -> Ecn {
        match self {
            EcnCodepoint::Ect0 => Ecn::Ect0,
            EcnCodepoint::Ect1 => Ecn::Ect1,
        }
    }
}

/// The value named `s` among `names`. The options below are read through a string so that a value of
/// the wrong type is reported as "expected a string" (a bare enum would say "unit variant").
fn by_name<T: Copy>(s: &str, names: &[(&str, T)]) -> Result<T, String> {
    names.iter().find(|(name, _)| *name == s).map(|&(_, v)| v).ok_or_else(|| {
        let expected: Vec<String> = names.iter().map(|(name, _)| format!("`{name}`")).collect();
        format!("unknown variant `{s}`, expected {}", expected.join(" or "))
    })
}

impl TryFrom<String> for EcnCodepoint {
    type Error = String;

    fn try_from(s: String) -> Result<Self, String> {
        by_name(&s, &[("ect0", EcnCodepoint::Ect0), ("ect1", EcnCodepoint::Ect1)])
    }
}

impl TryFrom<String> for Recovery {
    type Error = String;

    fn try_from(s: String) -> Result<Self, String> {
        by_name(&s, &[("one_way", Recovery::OneWay), ("full_tcp", Recovery::FullTcp)])
    }
}

impl Default for TcpConfig {
    fn default() -> Self {
        TcpConfig {
            mss: 1460,
            init_cwnd: 2.0,
            max_window: 20,
            delayed_ack: true,
            ack_every: 2,
            delack_timeout: Duration::from_secs(0.1),
            min_rto: Duration::from_secs(0.2),
            initial_rto: Duration::from_secs(3.0),
            max_rto: Duration::from_secs(60.0),
            tick: Duration::from_secs(0.01),
            dupack_threshold: 3,
            limited_transmit: true,
            ecn: false,
            ecn_codepoint: EcnCodepoint::Ect0,
            max_burst: 0,
            nagle: false,
            slow_start_restart: true,
            recovery: Recovery::OneWay,
            cc: ControllerKind::default(),
            dctcp_g: 1.0 / 16.0,
            pacing: None,
            prague_rtt_target: Duration::from_secs(0.025),
        }
    }
}

impl TcpConfig {
    /// Checks ranges; the error names the field and what was expected.
    pub fn validate(&self) -> Result<(), (String, String)> {
        let bad = |f: &str, e: &str| Err((f.to_string(), e.to_string()));
        if self.mss == 0 || self.mss > 65_495 {
            return bad("mss", "a segment payload between 1 and 65495 bytes");
        }
        if self.init_cwnd.is_nan() || self.init_cwnd < 1.0 {
            return bad("init_cwnd", "an initial window of at least 1 segment");
        }
        if self.max_window == 0 {
            return bad("max_window", "a window of at least 1 segment");
        }
        if self.ack_every == 0 {
            return bad("ack_every", "at least 1 segment");
        }
        if self.dupack_threshold == 0 {
            return bad("dupack_threshold", "at least 1 duplicate ACK");
        }
        if self.initial_rto.0 == 0 {
            return bad("initial_rto", "a positive duration");
        }
        if self.max_rto < self.min_rto {
            return bad("max_rto", "a duration no smaller than min_rto");
        }
        if self.cc.echoes_each_mark() && !self.ecn {
            return bad("cc", &format!("\"{}\" reacts to ECN marks: it needs ecn = true", self.cc.name()));
        }
        if self.cc == ControllerKind::Prague && self.ecn_codepoint != EcnCodepoint::Ect1 {
            return bad("ecn_codepoint", "\"prague\" is an L4S sender: it needs ecn_codepoint = \"ect1\"");
        }
        if self.ecn_codepoint == EcnCodepoint::Ect1 && !self.ecn {
            return bad("ecn_codepoint", "\"ect1\" is an ECN codepoint: it needs ecn = true");
        }
        if !(self.dctcp_g > 0.0 && self.dctcp_g <= 1.0) {
            return bad("dctcp_g", "a gain in (0, 1]");
        }
        Ok(())
    }
}
