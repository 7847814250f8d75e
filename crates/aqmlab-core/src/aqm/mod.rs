//! Queue disciplines: the interface every AQM implements, and the registry that builds one from its
//! scenario configuration.
//!
//! A discipline owns the packets waiting at one link direction. The link offers it every arriving packet
//! (`enqueue`) and asks it for the next packet to transmit whenever the wire becomes free (`dequeue`);
//! `dequeue` returning `None` means the link goes idle now (RED and BLUE use that instant). Queue lengths
//! count waiting packets only, never the one on the wire (ns-2's convention).
//!
//! Disciplines never count anything themselves: they report every drop and mark through
//! [`QueueEnv::drop`] and [`QueueEnv::mark`], and the link keeps the per-class counters.
//!
//! Adding an algorithm: write `aqm/<name>.rs` with a `Config` (serde, ns-2/RFC defaults in `Default`)
//! and a type implementing [`QueueDisc`], then add one variant to [`QueueConfig`] and one arm to each of
//! [`QueueConfig::build`], [`QueueConfig::name`] and [`QueueConfig::validate`].

pub mod an_aqm;
pub mod avq;
pub mod blue;
pub(crate) mod check;
pub mod codel;
pub mod droptail;
pub mod fifo;
pub mod fq_codel;
pub mod pi;
pub mod pie;
pub mod red;
pub mod rem;

use crate::net::{Ecn, PacketArena, PacketId};
use crate::sim::{Rng, Time};
use serde::Deserialize;

/// The link a discipline serves: what ns-2's queues read from their attached link.
#[derive(Clone, Copy, Debug)]
pub struct LinkInfo {
    pub rate_bps: u64,
    pub delay: Time,
}

impl LinkInfo {
    /// Packets of `mean_pktsize` bytes the link can send per second (ns-2's `ptc`).
    pub fn packets_per_sec(&self, mean_pktsize: f64) -> f64 {
        self.rate_bps as f64 / (8.0 * mean_pktsize)
    }
}

/// Why a packet was dropped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DropReason {
    /// Buffer overflow ("forced" drop in ns-2).
    Overflow,
    /// Chosen by the AQM and dropped (marking off, or the algorithm's rule says drop).
    Early,
    /// Chosen by the AQM for marking, but the packet is not ECN-capable, so it was dropped.
    NotEct,
}

/// What a discipline did to a packet, reported to the link for counting.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum QueueAction {
    Dropped(PacketId, DropReason),
    Marked(PacketId),
}

/// Everything a discipline may touch during one call.
pub struct QueueEnv<'a> {
    pub now: Time,
    pub link: LinkInfo,
    pub packets: &'a mut PacketArena,
    pub rng: &'a mut Rng,
    pub actions: &'a mut Vec<QueueAction>,
}

impl QueueEnv<'_> {
    /// Reports `pkt` as dropped. The discipline must no longer hold it; the link frees it.
    pub fn drop(&mut self, pkt: PacketId, reason: DropReason) {
        self.actions.push(QueueAction::Dropped(pkt, reason));
    }

    /// Sets CE on an ECN-capable packet and reports the mark.
    pub fn mark(&mut self, pkt: PacketId) {
        let p = self.packets.get_mut(pkt);
        debug_assert!(p.ecn.is_capable());
        p.ecn = Ecn::Ce;
        self.actions.push(QueueAction::Marked(pkt));
    }

    /// The usual AQM response to selecting a packet: mark it when `ecn` is on and the packet is
    /// ECN-capable (returns true: the packet stays), otherwise drop it (returns false).
    pub fn mark_or_drop(&mut self, pkt: PacketId, ecn: bool) -> bool {
        if ecn && self.packets.get(pkt).ecn.is_capable() {
            self.mark(pkt);
            true
        } else {
            let reason = if ecn { DropReason::NotEct } else { DropReason::Early };
            self.drop(pkt, reason);
            false
        }
    }

    /// Sets CE on `pkt` if it is ECN-capable and reports the mark; leaves a non-ECT packet alone.
    /// This is REM's and AVQ's marking mode, where a selected non-ECT packet is neither marked nor
    /// dropped. Returns whether the packet was marked.
    pub fn mark_if_capable(&mut self, pkt: PacketId) -> bool {
        let capable = self.packets.get(pkt).ecn.is_capable();
        if capable {
            self.mark(pkt);
        }
        capable
    }

    /// A uniform draw on [0, 1).
    pub fn uniform(&mut self) -> f64 {
        use rand::Rng as _;
        self.rng.gen::<f64>()
    }

    pub fn size(&self, pkt: PacketId) -> u32 {
        self.packets.get(pkt).size
    }
}

/// ns-2's per-packet byte scaling of a drop/mark probability (`bytes_` in RED and PI, `qib_` in REM):
/// `p · size / mean_pktsize`, capped at 1, so small packets (ACKs, SYNs) are selected less often.
pub fn byte_scaled(p: f64, size: u32, mean_pktsize: u32) -> f64 {
    (p * size as f64 / mean_pktsize as f64).min(1.0)
}

/// A buffer limit in the unit the queue is measured in: `limit` packets, or `limit · mean_pktsize`
/// bytes in ns-2's "queue in bytes" mode.
pub fn buffer_limit(limit: u32, in_bytes: bool, mean_pktsize: u32) -> u64 {
    if in_bytes {
        limit as u64 * mean_pktsize as u64
    } else {
        limit as u64
    }
}

/// The buffer of a FIFO that drops arrivals once full (ns-2's drop-tail rule, reference §1): an
/// arrival is dropped when the waiting packets + 1 (or waiting bytes + its size) reach `limit`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FifoBuffer {
    pub limit: u64,
    pub in_bytes: bool,
}

impl FifoBuffer {
    /// Whether an arrival of `size` bytes overflows a buffer holding `packets` packets of `bytes` bytes.
    #[inline]
    pub fn overflows(&self, packets: u64, bytes: u64, size: u32) -> bool {
        let after = if self.in_bytes { bytes + size as u64 } else { packets + 1 };
        after >= self.limit
    }
}

/// The interface between a link and its queue discipline.
pub trait QueueDisc: Send {
    /// Offers an arriving packet; the discipline stores it, marks it, or drops it (or another packet).
    fn enqueue(&mut self, pkt: PacketId, env: &mut QueueEnv);
    /// The next packet to transmit, or `None` if nothing is waiting (the link goes idle).
    fn dequeue(&mut self, env: &mut QueueEnv) -> Option<PacketId>;
    /// Waiting packets (the one on the wire excluded).
    fn len_packets(&self) -> usize;
    /// Waiting bytes.
    fn len_bytes(&self) -> u64;
    /// Absolute time of the first periodic update (PI, REM, PIE sampling), if the algorithm has one.
    fn first_timer(&self) -> Option<Time> {
        None
    }
    /// Runs a periodic update and returns the time of the next one.
    fn on_timer(&mut self, _env: &mut QueueEnv) -> Option<Time> {
        None
    }
    /// The buffer of a discipline that is nothing but a FIFO with a fixed limit (drop-tail without
    /// `drop_front`). The link then runs such a queue itself, without calling the discipline: it gives
    /// each accepted packet its transmission start at arrival, so no `TxDone` events are needed.
    fn plain_fifo(&self) -> Option<FifoBuffer> {
        None
    }
    /// Whether every accepted packet is sent, in arrival order: `dequeue` returns the oldest waiting
    /// packet and never drops one, and `enqueue` drops only the arriving packet. The link then fixes
    /// each accepted packet's transmission start at once and calls `dequeue` lazily, at that time,
    /// before anything else looks at the queue; no `TxDone` events are needed.
    fn departs_in_arrival_order(&self) -> bool {
        false
    }
    /// The algorithm's internal state for traces and tests, e.g. `[("avg", 12.3), ("p", 0.01)]`.
    fn state(&self) -> Vec<(&'static str, f64)> {
        Vec::new()
    }
}

/// A queue discipline as written in a scenario: `queue = { kind = "red", limit = 200, ... }`.
#[derive(Clone, Debug, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum QueueConfig {
    #[serde(rename = "droptail", alias = "dt", alias = "drop_tail")]
    DropTail(droptail::Config),
    /// RED, and Adaptive RED with `adaptive = true`, ns-2 `Queue/RED`.
    Red(red::Config),
    /// PI controller, ns-2 `Queue/PI`.
    Pi(pi::Config),
    /// Random Exponential Marking, ns-2 `Queue/REM`.
    Rem(rem::Config),
    /// Adaptive Virtual Queue, ns-2 `Queue/Vq`.
    #[serde(alias = "vq")]
    Avq(avq::Config),
    Blue(blue::Config),
    AnAqm(an_aqm::Config),
    Pie(pie::Config),
    Codel(codel::Config),
    FqCodel(fq_codel::Config),
}

impl Default for QueueConfig {
    fn default() -> Self {
        QueueConfig::DropTail(droptail::Config::default())
    }
}

impl QueueConfig {
    /// Builds the discipline for a link.
    pub fn build(&self, link: LinkInfo) -> Box<dyn QueueDisc> {
        match self {
            QueueConfig::DropTail(c) => Box::new(droptail::DropTail::new(c.clone(), link)),
            QueueConfig::Red(c) => Box::new(red::Red::new(c.clone(), link)),
            QueueConfig::Pi(c) => Box::new(pi::Pi::new(c.clone(), link)),
            QueueConfig::Rem(c) => Box::new(rem::Rem::new(c.clone(), link)),
            QueueConfig::Avq(c) => Box::new(avq::Avq::new(c.clone(), link)),
            QueueConfig::Blue(c) => Box::new(blue::Blue::new(c.clone(), link)),
            QueueConfig::AnAqm(c) => Box::new(an_aqm::AnAqm::new(c.clone(), link)),
            QueueConfig::Pie(c) => Box::new(pie::Pie::new(c.clone(), link)),
            QueueConfig::Codel(c) => Box::new(codel::Codel::new(c.clone(), link)),
            QueueConfig::FqCodel(c) => Box::new(fq_codel::FqCodel::new(c.clone(), link)),
        }
    }

    /// Short name for tables and file names.
    pub fn name(&self) -> &'static str {
        match self {
            QueueConfig::DropTail(_) => "droptail",
            QueueConfig::Red(c) if c.adaptive => "ared",
            QueueConfig::Red(_) => "red",
            QueueConfig::Pi(_) => "pi",
            QueueConfig::Rem(_) => "rem",
            QueueConfig::Avq(_) => "avq",
            QueueConfig::Blue(_) => "blue",
            QueueConfig::AnAqm(_) => "an_aqm",
            QueueConfig::Pie(_) => "pie",
            QueueConfig::Codel(_) => "codel",
            QueueConfig::FqCodel(_) => "fq_codel",
        }
    }

    /// Checks parameter ranges; the error names the offending field.
    pub fn validate(&self) -> Result<(), (String, String)> {
        match self {
            QueueConfig::DropTail(c) => c.validate(),
            QueueConfig::Red(c) => c.validate(),
            QueueConfig::Pi(c) => c.validate(),
            QueueConfig::Rem(c) => c.validate(),
            QueueConfig::Avq(c) => c.validate(),
            QueueConfig::Blue(c) => c.validate(),
            QueueConfig::AnAqm(c) => c.validate(),
            QueueConfig::Pie(c) => c.validate(),
            QueueConfig::Codel(c) => c.validate(),
            QueueConfig::FqCodel(c) => c.validate(),
        }
    }
}

#[cfg(test)]
pub(crate) mod testutil {
    //! Drives a discipline by hand with scripted arrivals and departures.
    use super::*;
    use crate::net::Packet;

    pub struct Harness {
        pub packets: PacketArena,
        pub rng: Rng,
        pub actions: Vec<QueueAction>,
        pub link: LinkInfo,
        pub now: Time,
    }

    impl Harness {
        pub fn new(rate_bps: u64, delay: Time) -> Self {
            Harness {
                packets: PacketArena::default(),
                rng: crate::sim::rng::from_seed(1),
                actions: Vec::new(),
                link: LinkInfo { rate_bps, delay },
                now: 0,
            }
        }

        pub fn packet(&mut self, size: u32, ecn: Ecn) -> PacketId {
            self.packets.alloc(Packet { size, payload: size.saturating_sub(40), ecn, ..Default::default() })
        }

        pub fn env(&mut self) -> QueueEnv<'_> {
            QueueEnv {
                now: self.now,
                link: self.link,
                packets: &mut self.packets,
                rng: &mut self.rng,
                actions: &mut self.actions,
            }
        }

        /// Offers a fresh packet and returns what happened to it (None = stored unmarked).
        pub fn arrive(&mut self, q: &mut dyn QueueDisc, size: u32, ecn: Ecn) -> Option<QueueAction> {
            let id = self.packet(size, ecn);
            self.actions.clear();
            q.enqueue(id, &mut self.env());
            self.actions.iter().copied().find(|a| match a {
                QueueAction::Dropped(p, _) | QueueAction::Marked(p) => *p == id,
            })
        }

        pub fn depart(&mut self, q: &mut dyn QueueDisc) -> Option<PacketId> {
            self.actions.clear();
            q.dequeue(&mut self.env())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(s: &str) -> QueueConfig {
        toml::from_str(s).unwrap_or_else(|e| panic!("{s}: {e}"))
    }

    #[test]
    fn scenario_kinds_and_ns2_aliases_parse_build_and_validate() {
        let link = LinkInfo { rate_bps: 10_000_000, delay: 1_000_000 };
        let cases = [
            ("kind = \"red\"\nsetbit = true\nlimit = 200", "red"),
            ("kind = \"red\"\nadaptive = true\ntargetdelay = 0.01", "ared"),
            ("kind = \"pi\"\nsetbit = true\nqref = 20.0", "pi"),
            ("kind = \"rem\"\npbo = 20.0\nqib = true\nmarkpkts = true", "rem"),
            ("kind = \"vq\"\nmarkpkts = true", "avq"),
            ("kind = \"avq\"\nalpha = 0.15", "avq"),
        ];
        for (text, name) in cases {
            let cfg = parse(text);
            assert_eq!(cfg.name(), name);
            assert!(cfg.validate().is_ok(), "{text}");
            let q = cfg.build(link);
            assert_eq!(q.len_packets(), 0);
        }
        assert!(toml::from_str::<QueueConfig>("kind = \"red\"\nthreshold = 5").is_err());
        let QueueConfig::Rem(rem) = parse("kind = \"rem\"\npbo = 7.0") else { panic!("not REM") };
        assert_eq!(rem.qref, 7.0);
        assert_eq!(parse("kind = \"pi\"\nw = -1.0").validate().unwrap_err().0, "w");
    }

    #[test]
    fn byte_scaled_caps_at_one() {
        assert_eq!(byte_scaled(0.1, 250, 500), 0.05);
        assert_eq!(byte_scaled(0.5, 1500, 500), 1.0);
        assert_eq!(buffer_limit(90, true, 500), 45_000);
        assert_eq!(buffer_limit(90, false, 500), 90);
    }
}
