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
//! Adding an algorithm: write `aqm/<name>.rs` with a `Config` declared by `aqm_config!` (each field
//! with its ns-2/RFC default and its range check) implementing [`DisciplineConfig`], and a type
//! implementing [`fifo::FifoAqm`] (one FIFO: the config's `Discipline` is then `FifoQueue<ThatType>`) or
//! [`QueueDisc`] and [`Discipline`]; then add one line to `registry!` below. A `Config` implementing
//! [`flow_queue::FlowQueuesConfig`] instead puts a `FifoAqm` in each bucket of FQ-CoDel's flow-queue
//! scheduler (FQ-CoDel, FQ-PIE).

pub(crate) mod check;
#[macro_use]
pub(crate) mod config;
pub mod fifo;
#[macro_use]
pub mod flow_queue;
pub(crate) mod l4s;

use crate::net::{Ecn, PacketArena, PacketId};
use crate::scenario::tagged::{self, Tagged};
use crate::sim::{Rng, Time};
use config::FieldChecks;
use serde::de::{self, Deserializer};
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
    /// dropped, and the `ce_threshold` marking of CoDel, FQ-CoDel and PIE. Returns whether the packet
    /// was marked.
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

    /// Whether a packet of `size` bytes is selected with probability `p`, in byte mode scaled by its
    /// size ([`byte_scaled`]): one uniform draw either way.
    pub fn selects(&mut self, p: f64, byte_mode: bool, size: u32, mean_pktsize: u64) -> bool {
        let p = if byte_mode { byte_scaled(p, size, mean_pktsize) } else { p };
        self.uniform() <= p
    }

    pub fn size(&self, pkt: PacketId) -> u32 {
        self.packets.get(pkt).size
    }
}

/// ns-2's per-packet byte scaling of a drop/mark probability (`bytes_` in RED and PI, `qib_` in REM):
/// `p · size / mean_pktsize`, capped at 1, so small packets (ACKs, SYNs) are selected less often.
pub fn byte_scaled(p: f64, size: u32, mean_pktsize: u64) -> f64 {
    (p * size as f64 / mean_pktsize as f64).min(1.0)
}

/// A buffer limit in the unit the queue is measured in: `limit` packets, or `limit · mean_pktsize`
/// bytes in ns-2's "queue in bytes" mode.
pub fn buffer_limit(limit: u32, in_bytes: bool, mean_pktsize: u64) -> u64 {
    if in_bytes {
        limit as u64 * mean_pktsize
    } else {
        limit as u64
    }
}

/// What a discipline's buffer holds at most, for the run's memory estimate.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Buffer {
    Packets(u64),
    Bytes(u64),
}

impl Buffer {
    /// `limit` packets, or `limit · mean_pktsize` bytes in ns-2's "queue in bytes" mode.
    pub fn ns2(limit: u32, in_bytes: bool, mean_pktsize: u64) -> Buffer {
        let n = buffer_limit(limit, in_bytes, mean_pktsize);
        if in_bytes {
            Buffer::Bytes(n)
        } else {
            Buffer::Packets(n)
        }
    }
}

/// The size of the unit a queue is measured in, in bytes: `mean_pktsize` in ns-2's "queue in bytes"
/// mode, else 1 (a packet), so that `occupancy / unit` is in mean-size packets either way.
pub fn queue_unit(in_bytes: bool, mean_pktsize: u64) -> f64 {
    if in_bytes {
        mean_pktsize as f64
    } else {
        1.0
    }
}

/// The buffer of a FIFO that drops arrivals once full (ns-2's drop-tail rule,
/// docs/aqm.md#buffer-overflow): an arrival is dropped when the waiting packets + 1 (or waiting bytes +
/// its size) reach `limit`.
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
    /// Appends the algorithm's internal state for traces and tests to `out`, e.g. `("avg", 12.3), ("p",
    /// 0.01)`. Called at every queue sample, so it fills the caller's buffer instead of allocating.
    fn state(&self, _out: &mut Vec<(&'static str, f64)>) {}
}

/// A discipline's state in a vector of its own, for the end-of-run `queue_state`, the resource estimate
/// and tests (the queue samples reuse one buffer instead).
pub fn state_of(q: &dyn QueueDisc) -> Vec<(&'static str, f64)> {
    let mut out = Vec::new();
    q.state(&mut out);
    out
}

/// What a discipline's `Config` gives the registry below.
pub trait DisciplineConfig: Clone + FieldChecks {
    /// The discipline this configures: [`fifo::FifoQueue<A>`] for an algorithm `A` over one FIFO, or a
    /// [`QueueDisc`] of its own ([`flow_queue::FlowQueues`] for FQ-CoDel and FQ-PIE).
    type Discipline: Discipline<Self>;
    /// Checks parameter ranges; the error names the offending field and says what was expected. The
    /// fields' own checks unless the discipline adds rules of its own.
    fn validate(&self) -> Result<(), (String, String)> {
        self.check_fields()
    }
    /// The most its buffer holds (the memory estimate sizes the run's packet store from it).
    fn buffer(&self) -> Buffer;
    /// The name for tables and file names when the kind is not specific enough (Adaptive RED: "ared").
    fn variant_name(&self) -> Option<&'static str> {
        None
    }
}

/// A discipline made from its configuration `C` for one link.
pub trait Discipline<C>: QueueDisc + Sized + 'static {
    fn build(cfg: C, link: LinkInfo) -> Self;
}

/// Builds the discipline a configuration describes, boxed for the link.
fn build<C: DisciplineConfig>(cfg: &C, link: LinkInfo) -> Box<dyn QueueDisc> {
    Box::new(C::Discipline::build(cfg.clone(), link))
}

/// Declares the disciplines' modules and defines [`QueueConfig`] from the registry: one line per
/// discipline, `Variant(module) = "kind"`, with `| "alias"` for each other accepted spelling of the kind.
macro_rules! registry {
    ($($(#[$doc:meta])* $variant:ident($module:ident) = $kind:tt $(| $alias:tt)*;)*) => {
        $(pub mod $module;)*

        /// A queue discipline as written in a scenario: `queue = { kind = "red", limit = 200, ... }`.
        #[derive(Clone, Debug)]
        pub enum QueueConfig {
            $($(#[$doc])* $variant($module::Config),)*
        }

        impl Tagged for QueueConfig {
            const KINDS: &'static [&'static str] = &[$($kind, $($alias,)*)*];
            const EXPECTING: &'static str = "a queue discipline such as { kind = \"red\", limit = 200 }";

            fn read<'de, D: Deserializer<'de>>(kind: &str, fields: D) -> Result<Self, D::Error> {
                match kind {
                    $($kind $(| $alias)* => $module::Config::deserialize(fields).map(QueueConfig::$variant),)*
                    _ => Err(de::Error::unknown_variant(kind, Self::KINDS)),
                }
            }
        }

        impl QueueConfig {
            /// Builds the discipline for a link.
            pub fn build(&self, link: LinkInfo) -> Box<dyn QueueDisc> {
                match self {
                    $(QueueConfig::$variant(c) => build(c, link),)*
                }
            }

            /// Checks parameter ranges; the error names the offending field.
            pub fn validate(&self) -> Result<(), (String, String)> {
                match self {
                    $(QueueConfig::$variant(c) => c.validate(),)*
                }
            }

            /// The most the discipline's buffer holds.
            pub fn buffer(&self) -> Buffer {
                match self {
                    $(QueueConfig::$variant(c) => c.buffer(),)*
                }
            }

            fn variant_name(&self) -> Option<&'static str> {
                match self {
                    $(QueueConfig::$variant(c) => c.variant_name(),)*
                }
            }

            fn kind(&self) -> &'static str {
                match self {
                    $(QueueConfig::$variant(_) => $kind,)*
                }
            }
        }
    };
}

registry! {
    /// Drop-tail FIFO, ns-2 `Queue/DropTail`.
    DropTail(droptail) = "droptail" | "dt" | "drop_tail";
    /// RED, and Adaptive RED with `adaptive = true`, ns-2 `Queue/RED`.
    Red(red) = "red";
    /// PI controller, ns-2 `Queue/PI`.
    Pi(pi) = "pi";
    /// Random Exponential Marking, ns-2 `Queue/REM`.
    Rem(rem) = "rem";
    /// Adaptive Virtual Queue, ns-2 `Queue/Vq`.
    Avq(avq) = "avq" | "vq";
    Blue(blue) = "blue";
    AnAqm(an_aqm) = "an_aqm";
    Pie(pie) = "pie";
    Codel(codel) = "codel";
    FqCodel(fq_codel) = "fq_codel";
    /// FlowQueue-PIE, Linux `sch_fq_pie` / ns-3 `FqPieQueueDisc`.
    FqPie(fq_pie) = "fq_pie";
    /// CoDel and BLUE Alternate, ns-3 `CobaltQueueDisc` (Linux `sch_cake` COBALT).
    Cobalt(cobalt) = "cobalt";
    /// DualQ Coupled AQM with PI2, RFC 9332 (Linux `sch_dualpi2`).
    DualPi2(dualpi2) = "dualpi2";
}

/// Read kind first, so that an error names its field (`links[0].queue.interval: ...`).
impl<'de> Deserialize<'de> for QueueConfig {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        tagged::deserialize(d)
    }
}

impl Default for QueueConfig {
    fn default() -> Self {
        QueueConfig::DropTail(droptail::Config::default())
    }
}

impl QueueConfig {
    /// Short name for tables and file names.
    pub fn name(&self) -> &'static str {
        self.variant_name().unwrap_or(self.kind())
    }
}

#[cfg(test)]
pub(crate) mod testutil {
    //! Drives a discipline by hand with scripted arrivals and departures.
    use super::*;
    use crate::net::Packet;

    /// Checks a configuration's `validate`: the defaults pass, and each `(field, config)` of `bad` is refused
    /// naming `field`.
    pub fn assert_rejected<C: DisciplineConfig + Default>(bad: impl IntoIterator<Item = (&'static str, C)>) {
        assert!(C::default().validate().is_ok());
        for (field, cfg) in bad {
            assert_eq!(cfg.validate().unwrap_err().0, field);
        }
    }

    /// A millisecond, for the tests' times.
    pub const MS: Time = crate::sim::time::NS_PER_MS;

    /// `[(field, Config { field: value, ..Default::default() }), ...]` for `field: value, ...`: the
    /// configurations for [`assert_rejected`] that break one field each, named once.
    macro_rules! one_bad_field {
        ($($field:ident: $value:expr),+ $(,)?) => {
            [$((stringify!($field), Config { $field: $value, ..Default::default() })),+]
        };
    }
    pub(crate) use one_bad_field;

    /// Whether `x` selections out of `n` draws with probability `p` are within 4.5 standard deviations
    /// (plus one) of the mean: loose enough never to fail by chance, tight enough to tell rates apart.
    pub fn near_binomial(x: usize, n: usize, p: f64) -> bool {
        let mean = n as f64 * p;
        (x as f64 - mean).abs() <= 4.5 * (mean * (1.0 - p)).sqrt() + 1.0
    }

    /// A harness on a 10 Mb/s link without propagation delay, and the discipline `cfg` builds for it.
    pub fn on_10_mbps<C, D: Discipline<C>>(cfg: C) -> (Harness, D) {
        let h = Harness::new(10_000_000, 0);
        let q = D::build(cfg, h.link);
        (h, q)
    }

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
            self.packets.alloc(Packet { size, ecn, ..Default::default() })
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

        /// Offers `n` fresh packets back to back.
        pub fn arrive_n(&mut self, q: &mut dyn QueueDisc, n: usize, size: u32, ecn: Ecn) {
            for _ in 0..n {
                self.arrive(q, size, ecn);
            }
        }

        /// Offers a fresh packet and returns why it was dropped, or None if it was stored (marked or not).
        pub fn arrival_dropped(&mut self, q: &mut dyn QueueDisc, size: u32, ecn: Ecn) -> Option<DropReason> {
            match self.arrive(q, size, ecn)? {
                QueueAction::Dropped(_, reason) => Some(reason),
                QueueAction::Marked(_) => None,
            }
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

    /// Every kind in the registry, by each of its spellings: the table name, a valid default, an empty
    /// discipline, the state it reports for traces (at the start), and the unknown-field error.
    #[test]
    fn every_registered_kind_builds_and_reports_its_state() {
        let link = LinkInfo { rate_bps: 8_000_000, delay: 1_000_000 };
        // (kind, table name, state at the start)
        type Expected = (&'static str, &'static str, &'static [(&'static str, f64)]);
        let kinds: [Expected; 16] = [
            ("droptail", "droptail", &[]),
            ("dt", "droptail", &[]),
            ("drop_tail", "droptail", &[]),
            ("red", "red", &[("avg", 0.0), ("p_b", 0.0), ("p_a", 0.0), ("max_p", 0.1), ("count", 0.0)]),
            ("pi", "pi", &[("p", 0.0), ("q_old", 0.0)]),
            ("rem", "rem", &[("price", 0.0), ("p", 0.0), ("in_avg", 0.0)]),
            ("avq", "avq", &[("virtual_capacity", 0.8e6), ("vq", 0.0)]),
            ("vq", "avq", &[("virtual_capacity", 0.8e6), ("vq", 0.0)]),
            ("blue", "blue", &[("p_m", 0.0)]),
            (
                "an_aqm",
                "an_aqm",
                &[
                    ("p", 0.0),
                    ("w1", 1.816 / 1.822),
                    ("w2", 0.006 / 1.822),
                    ("w3", 0.0),
                    ("reconstruction", 1.0),
                ],
            ),
            (
                "pie",
                "pie",
                &[("drop_prob", 0.0), ("qdelay", 0.0), ("burst_allowance", 0.15), ("avg_dq_rate", 0.0)],
            ),
            ("codel", "codel", &[("count", 0.0), ("dropping", 0.0), ("drop_next", 0.0)]),
            ("fq_codel", "fq_codel", &[("new_flows", 0.0), ("old_flows", 0.0)]),
            ("fq_pie", "fq_pie", &[("new_flows", 0.0), ("old_flows", 0.0)]),
            ("cobalt", "cobalt", &[("p_drop", 0.0), ("count", 0.0), ("dropping", 0.0)]),
            (
                "dualpi2",
                "dualpi2",
                &[("p", 0.0), ("p_c", 0.0), ("p_cl", 0.0), ("l_len", 0.0), ("c_len", 0.0)],
            ),
        ];
        for (kind, name, state) in kinds {
            let cfg = parse(&format!("kind = \"{kind}\""));
            assert_eq!(cfg.name(), name);
            assert!(cfg.validate().is_ok(), "{kind}");
            let q = cfg.build(link);
            assert_eq!((q.len_packets(), q.len_bytes()), (0, 0), "{kind}");
            let got = state_of(&*q);
            assert_eq!(got.len(), state.len(), "{kind}: {got:?}");
            for ((n, v), (want_n, want_v)) in got.iter().zip(state) {
                assert!(n == want_n && (v - want_v).abs() < 1e-12, "{kind}: {got:?}");
            }
            let err = toml::from_str::<QueueConfig>(&format!("kind = \"{kind}\"\nbogus = 1")).unwrap_err();
            assert!(err.message().starts_with("unknown field `bogus`"), "{kind}: {err}");
        }
        let err = toml::from_str::<QueueConfig>("kind = \"sfq\"").unwrap_err();
        assert!(err.message().starts_with("unknown variant `sfq`, expected one of"), "{err}");
    }

    /// Durations and sizes take the units every other duration and size in a scenario takes, and
    /// bare numbers keep their meaning (seconds, bytes).
    #[test]
    fn durations_and_sizes_take_units() {
        let lines = |fields: &str| parse(&fields.replace(", ", "\n"));
        let pairs = [
            (r#"kind = "droptail", mean_pktsize = "1KB""#, r#"kind = "droptail", mean_pktsize = 1000"#),
            (
                r#"kind = "red", interval = "500ms", targetdelay = "5ms", mean_pktsize = "1500B""#,
                r#"kind = "red", interval = 0.5, targetdelay = 0.005, mean_pktsize = 1500"#,
            ),
            (r#"kind = "pi", mean_pktsize = "1KiB""#, r#"kind = "pi", mean_pktsize = 1024"#),
            (
                r#"kind = "rem", pupdtime = "2ms", mean_pktsize = "1KB""#,
                r#"kind = "rem", pupdtime = 0.002, mean_pktsize = 1000"#,
            ),
            (r#"kind = "avq", mean_pktsize = "1KB""#, r#"kind = "avq", mean_pktsize = 1000"#),
            (
                r#"kind = "blue", ihold = "100ms", dhold = "20ms""#,
                r#"kind = "blue", ihold = 0.1, dhold = 0.02"#,
            ),
            (
                r#"kind = "pie", qdelay_ref = "15ms", t_update = "15ms", max_burst = "150ms", dq_threshold = "16KiB", mean_pktsize = "1KB""#,
                r#"kind = "pie", qdelay_ref = 0.015, t_update = 0.015, max_burst = 0.15, dq_threshold = 16384, mean_pktsize = 1000"#,
            ),
            (
                r#"kind = "codel", target = "5ms", interval = "100ms", mtu = "1500B""#,
                r#"kind = "codel", target = 0.005, interval = 0.1, mtu = 1500"#,
            ),
            (
                r#"kind = "fq_codel", target = "5ms", interval = "0.1s", mtu = "1.5KB", quantum = "1514B""#,
                r#"kind = "fq_codel", target = 0.005, interval = 0.1, mtu = 1500, quantum = 1514"#,
            ),
            (
                r#"kind = "cobalt", target = "5ms", interval = "100ms", blue_threshold = "400ms""#,
                r#"kind = "cobalt", target = 0.005, interval = 0.1, blue_threshold = 0.4"#,
            ),
            (
                r#"kind = "dualpi2", target = "15ms", t_update = "16ms", step_thresh = "1ms", tshift = "50ms", mtu = "1.5KB""#,
                r#"kind = "dualpi2", target = 0.015, t_update = 0.016, step_thresh = 0.001, tshift = 0.05, mtu = 1500"#,
            ),
        ];
        for (with_units, bare) in pairs {
            assert_eq!(format!("{:?}", lines(with_units)), format!("{:?}", lines(bare)), "{with_units}");
        }
        let QueueConfig::Codel(c) = lines(r#"kind = "codel", target = 0.0123456789012"#) else { panic!() };
        assert_eq!(c.target.0, 0.0123456789012, "a bare number is kept as written");
    }

    #[test]
    fn byte_scaled_caps_at_one() {
        assert_eq!(byte_scaled(0.1, 250, 500), 0.05);
        assert_eq!(byte_scaled(0.5, 1500, 500), 1.0);
        assert_eq!(buffer_limit(90, true, 500), 45_000);
        assert_eq!(buffer_limit(90, false, 500), 90);
        assert_eq!((queue_unit(true, 500), queue_unit(false, 500)), (500.0, 1.0));
    }
}
