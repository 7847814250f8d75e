//! CE marking against a sojourn-time threshold, and the L4S mode built on it (docs/aqm.md#l4s-mode), as
//! ns-3's CoDel, FQ-CoDel and PIE have them (attributes `CeThreshold` and `UseL4s`).
//!
//! With `l4s`, a packet that is ECT(1) or CE (RFC 9331's L4S identifier; CE because an L4S packet
//! may already have been marked upstream) is marked when its sojourn exceeds `ce_threshold` and is
//! otherwise left to the discipline's classic law untouched: a shallow, immediate signal for scalable
//! senders (DCTCP) beside the classic law for the rest. Without `l4s`, CoDel and FQ-CoDel use the
//! threshold as Linux's `ce_threshold`: every ECN-capable packet above it is marked.

use super::{check, QueueEnv};
use crate::net::{Ecn, PacketId};
use crate::scenario::units::Seconds;
use crate::sim::time::secs;
use crate::sim::Time;

/// A discipline's `ce_threshold` and `l4s` settings in simulation units.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct CeThreshold {
    /// None: no threshold marking (ns-3's `Time::Max()` default).
    at: Option<Time>,
    pub l4s: bool,
}

impl CeThreshold {
    pub fn new(at: Option<Seconds>, l4s: bool) -> Self {
        CeThreshold { at: at.map(|t| secs(t.0)), l4s }
    }

    /// Whether `ecn` makes a packet L4S traffic: L4S mode on and the packet ECT(1) or CE (ns-3 tests
    /// the two low bits of the DS field for 1 or 3).
    pub fn is_l4s(&self, ecn: Ecn) -> bool {
        self.l4s && matches!(ecn, Ecn::Ect1 | Ecn::Ce)
    }

    /// Whether `pkt` is L4S traffic here; it reads the packet only in L4S mode, since every enqueue and
    /// dequeue of CoDel and PIE asks.
    pub fn holds_l4s(&self, pkt: PacketId, env: &QueueEnv) -> bool {
        self.l4s && self.is_l4s(env.packets.get(pkt).ecn)
    }

    /// Whether `pkt` has waited strictly longer than the threshold (never without one).
    pub fn waited_over(&self, pkt: PacketId, env: &QueueEnv) -> bool {
        self.at.is_some_and(|at| env.now - env.packets.get(pkt).enqueued_at > at)
    }

    /// Marks `pkt` when it is ECN-capable and has waited strictly longer than the threshold. A packet
    /// already CE counts as marked again, as in ns-3 and Linux.
    pub fn mark_above(&self, pkt: PacketId, env: &mut QueueEnv) {
        if self.waited_over(pkt, env) {
            env.mark_if_capable(pkt);
        }
    }
}

/// Checks `ce_threshold` and `l4s`: a threshold is a duration, zero or more, and L4S mode needs one
/// (ns-3's FQ-CoDel aborts without it; L4S packets would otherwise never be marked).
pub(crate) fn validate(ce_threshold: Option<Seconds>, l4s: bool) -> Result<(), (String, String)> {
    match ce_threshold {
        Some(t) => check::nonnegative_secs("ce_threshold", t),
        None => check::ensure(!l4s, "ce_threshold", "a duration: l4s = true marks against it"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn l4s_needs_a_threshold_and_a_threshold_is_a_duration() {
        assert!(validate(None, false).is_ok());
        assert!(validate(Some(Seconds(0.0)), true).is_ok());
        assert_eq!(validate(None, true).unwrap_err().0, "ce_threshold");
        assert_eq!(validate(Some(Seconds(-1.0)), false).unwrap_err().0, "ce_threshold");
    }

    #[test]
    fn only_ect1_and_ce_are_l4s_and_only_in_l4s_mode() {
        let on = CeThreshold::new(Some(Seconds(0.001)), true);
        let off = CeThreshold::new(Some(Seconds(0.001)), false);
        for (ecn, l4s) in [(Ecn::NotEct, false), (Ecn::Ect0, false), (Ecn::Ect1, true), (Ecn::Ce, true)] {
            assert_eq!(on.is_l4s(ecn), l4s, "{ecn:?}");
            assert!(!off.is_l4s(ecn));
        }
    }
}
