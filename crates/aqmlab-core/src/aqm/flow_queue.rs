//! The flow-queue scheduler of FQ-CoDel and FQ-PIE (RFC 8290 §4–5; docs/aqm.md#fq-codel-scheduling):
//! hashed buckets, each a FIFO with its own single-queue AQM (any [`FifoAqm`]), served by deficit round
//! robin with new flows first. [`FlowQueues<A>`] is the discipline; `fq_codel.rs` and `fq_pie.rs` only
//! say which AQM a bucket runs and with what parameters.
//!
//! - **Classification:** a packet goes to bucket `((mix32(flow) as u64 * flows) >> 32)`, where `flow` is
//!   the packet's flow index and `mix32` is the MurmurHash3 32-bit finaliser — fixed and unperturbed, so
//!   runs are deterministic (Linux hashes the 5-tuple with a random perturbation; the same reduction).
//! - **Enqueue:** the bucket's AQM stores, marks or drops the arrival. A bucket that holds packets and is
//!   on neither list joins the tail of `new_flows` with `deficit = quantum` (an arrival its AQM dropped
//!   does not make an empty bucket new, as in Linux `fq_pie`; FQ-CoDel's AQM never drops at enqueue). If
//!   more than `limit` packets are then queued in total, the bucket with the largest byte backlog loses
//!   packets from its head (`Overflow`), bypassing its AQM: a batch of up to `drop_batch`, stopping once at
//!   least half its backlog in bytes has gone (Linux `fq_codel_drop`, ns-3 `FqCoDelDrop`, `FqPieDrop`).
//! - **Dequeue (DRR):** serve the first bucket of `new_flows`, else of `old_flows`. A bucket whose deficit
//!   is spent gets `deficit += quantum` and moves to the tail of `old_flows`. Otherwise its AQM dequeues
//!   (CoDel may drop or mark heads); if nothing comes out, a bucket from `new_flows` moves to the tail of
//!   `old_flows` when that list is not empty (Linux/ns-3; prevents starvation) and is otherwise — like a
//!   bucket from `old_flows` — removed from the lists; else `deficit -= size` and the packet is sent.
//! - **Timer:** an AQM with a periodic update (PIE) has every bucket updated together each period, idle
//!   ones included (Linux `fq_pie_timer`; ns-3 runs one timer per child queue instead). A bucket whose
//!   AQM is [at rest](FifoAqm::at_rest) leaves the update list until its next arrival: its update would
//!   change nothing, and most of the buckets are idle (1024 buckets against a few active flows).

use super::config::FieldChecks;
use super::fifo::{Fifo, FifoAqm};
use super::{Buffer, Discipline, DisciplineConfig, DropReason, LinkInfo, QueueDisc, QueueEnv};
use crate::net::PacketId;
use crate::scenario::units::Bytes;
use crate::sim::Time;
use std::collections::VecDeque;

/// MurmurHash3's 32-bit finaliser: a fixed, well-mixing permutation of flow indices.
pub(crate) fn mix32(mut h: u32) -> u32 {
    h ^= h >> 16;
    h = h.wrapping_mul(0x85eb_ca6b);
    h ^= h >> 13;
    h = h.wrapping_mul(0xc2b2_ae35);
    h ^ (h >> 16)
}

/// The scheduler's own parameters, as FQ-CoDel and FQ-PIE configure them.
pub struct Scheduler {
    pub flows: u32,
    pub quantum: Bytes,
    pub limit: u32,
    pub drop_batch: u32,
}

/// Declares a flow-queue discipline's `Config` with `aqm_config!`: the scheduler's fields, the same in
/// FQ-CoDel and FQ-PIE (Linux's defaults, with ns-3's `DropBatchSize`), then the given fields, which
/// configure the buckets' AQM. Implements [`FlowQueuesConfig`] with the buckets' AQM `#[buckets(A)]`;
/// `#[bucket(|c| m::Config { rest })]` is each bucket's configuration: every given field of `c` passed on
/// as it is, then `rest`, so that a field added here reaches the buckets.
macro_rules! fq_config {
    (
        #[buckets($aqm:ty)]
        #[bucket(|$c:ident| $bucket:ident::Config { $($rest:tt)* })]
        pub struct Config { $($(#[$($attr:tt)*])* pub $field:ident: $ty:ty,)* }
    ) => {
        aqm_config! {
            pub struct Config {
                /// Number of flow buckets (1024).
                #[default(1024)]
                #[check(at_least_one)]
                pub flows: u32,
                /// DRR quantum in bytes (1514: one Ethernet MTU with header).
                #[default($crate::scenario::units::Bytes(1514))]
                #[check(size)]
                pub quantum: $crate::scenario::units::Bytes,
                /// Total packets over all buckets (10240).
                #[default(10240)]
                #[check(at_least_one)]
                pub limit: u32,
                /// Most packets dropped from the fattest bucket per overflow (64, ns-3 `DropBatchSize`).
                #[default(64)]
                #[check(at_least_one)]
                pub drop_batch: u32,
                $($(#[$($attr)*])* pub $field: $ty,)*
            }
        }

        impl $crate::aqm::flow_queue::FlowQueuesConfig for Config {
            type Aqm = $aqm;

            fn scheduler(&self) -> $crate::aqm::flow_queue::Scheduler {
                let Config { flows, quantum, limit, drop_batch, .. } = *self;
                $crate::aqm::flow_queue::Scheduler { flows, quantum, limit, drop_batch }
            }

            fn bucket(&self) -> $bucket::Config {
                let $c = self;
                $bucket::Config { $($field: $c.$field,)* $($rest)* }
            }
        }
    };
}

/// The configuration of a flow-queue discipline: the scheduler's parameters and the AQM of its buckets.
/// Such a configuration is a [`DisciplineConfig`] whose discipline is [`FlowQueues`] of that AQM.
pub trait FlowQueuesConfig: Clone + FieldChecks {
    /// The AQM each bucket runs; every bucket starts as a clone of one built AQM (`FifoAqm::new` is
    /// deterministic), so an AQM can share its configuration between buckets.
    type Aqm: FifoAqm<Config: DisciplineConfig> + Clone;
    fn scheduler(&self) -> Scheduler;
    /// Each bucket's AQM configuration.
    fn bucket(&self) -> <Self::Aqm as FifoAqm>::Config;
}

impl<C: FlowQueuesConfig> DisciplineConfig for C {
    type Discipline = FlowQueues<C::Aqm>;

    /// The scheduler's parameters, then the buckets' AQM's.
    fn validate(&self) -> Result<(), (String, String)> {
        self.check_fields()?;
        self.bucket().validate()
    }

    fn buffer(&self) -> Buffer {
        Buffer::Packets(self.scheduler().limit as u64)
    }
}

/// Which scheduling list a bucket is on.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum List {
    Idle,
    New,
    Old,
}

pub(crate) struct Bucket<A> {
    pub(super) fifo: Fifo,
    pub(super) aqm: A,
    deficit: i64,
    pub(super) list: List,
    /// On `restless`: updated by the timer.
    restless: bool,
}

impl<A: FifoAqm> Bucket<A> {
    /// The timer's update of the bucket's AQM; returns whether the AQM is then at rest. An AQM already
    /// at rest (its packets left since it joined the update list, as a bucket of ACKs' do) is not
    /// updated: that would change nothing.
    fn update_to_rest(&mut self) -> bool {
        if self.aqm.at_rest(&self.fifo) {
            return true;
        }
        self.aqm.update(&self.fifo);
        self.aqm.at_rest(&self.fifo)
    }
}

pub struct FlowQueues<A> {
    quantum: i64,
    limit: usize,
    drop_batch: usize,
    /// The buckets' AQM update period (the same for all).
    period: Option<Time>,
    pub(super) buckets: Vec<Bucket<A>>,
    pub(super) new_flows: VecDeque<usize>,
    pub(super) old_flows: VecDeque<usize>,
    /// The buckets the timer updates: every one at first, then those not at rest.
    pub(super) restless: Vec<usize>,
    packets: usize,
    bytes: u64,
}

/// `flows` empty buckets, each with the AQM the configuration gives.
impl<C: FlowQueuesConfig> Discipline<C> for FlowQueues<C::Aqm> {
    fn build(cfg: C, link: LinkInfo) -> Self {
        let (s, aqm) = (cfg.scheduler(), C::Aqm::new(cfg.bucket(), link));
        let buckets: Vec<Bucket<C::Aqm>> = (0..s.flows)
            .map(|_| Bucket {
                fifo: Fifo::default(),
                aqm: aqm.clone(),
                deficit: 0,
                list: List::Idle,
                restless: true,
            })
            .collect();
        FlowQueues {
            quantum: s.quantum.0 as i64,
            limit: s.limit as usize,
            drop_batch: s.drop_batch as usize,
            period: buckets[0].aqm.update_period(),
            buckets,
            new_flows: VecDeque::new(),
            old_flows: VecDeque::new(),
            restless: (0..s.flows as usize).collect(),
            packets: 0,
            bytes: 0,
        }
    }
}

impl<A> FlowQueues<A> {
    pub(super) fn bucket(&self, flow: u32) -> usize {
        ((mix32(flow) as u64 * self.buckets.len() as u64) >> 32) as usize
    }

    /// Drops a batch from the head of the bucket with the largest byte backlog (first one on ties).
    fn drop_from_fattest(&mut self, env: &mut QueueEnv) {
        let (fat, backlog) = self.buckets.iter().enumerate().fold((0, 0), |best, (i, b)| {
            if b.fifo.bytes() > best.1 {
                (i, b.fifo.bytes())
            } else {
                best
            }
        });
        let fifo = &mut self.buckets[fat].fifo;
        let (mut dropped, mut bytes) = (0, 0);
        while let Some(pkt) = fifo.pop(env.packets) {
            let size = env.size(pkt) as u64;
            env.drop(pkt, DropReason::Overflow);
            dropped += 1;
            bytes += size;
            if dropped >= self.drop_batch || bytes >= backlog / 2 {
                break;
            }
        }
        self.packets -= dropped;
        self.bytes -= bytes;
    }
}

impl<A: FifoAqm> QueueDisc for FlowQueues<A> {
    fn enqueue(&mut self, pkt: PacketId, env: &mut QueueEnv) {
        let idx = self.bucket(env.packets.get(pkt).flow);
        let b = &mut self.buckets[idx];
        let (len, bytes) = (b.fifo.len(), b.fifo.bytes());
        b.aqm.enqueue(pkt, &mut b.fifo, env);
        if !b.restless {
            b.restless = true;
            self.restless.push(idx);
        }
        self.packets = self.packets - len + b.fifo.len();
        self.bytes = self.bytes - bytes + b.fifo.bytes();
        if b.list == List::Idle && !b.fifo.is_empty() {
            b.list = List::New;
            b.deficit = self.quantum;
            self.new_flows.push_back(idx);
        }
        if self.packets > self.limit {
            self.drop_from_fattest(env);
        }
    }

    fn dequeue(&mut self, env: &mut QueueEnv) -> Option<PacketId> {
        loop {
            let (from_new, idx) = match (self.new_flows.front(), self.old_flows.front()) {
                (Some(&i), _) => (true, i),
                (None, Some(&i)) => (false, i),
                (None, None) => return None,
            };
            let b = &mut self.buckets[idx];
            let spent = b.deficit <= 0;
            if spent {
                b.deficit += self.quantum;
            } else {
                let (len, bytes) = (b.fifo.len(), b.fifo.bytes());
                let pkt = b.aqm.dequeue(&mut b.fifo, env);
                self.packets -= len - b.fifo.len();
                self.bytes -= bytes - b.fifo.bytes();
                if let Some(p) = pkt {
                    b.deficit -= env.size(p) as i64;
                    return pkt;
                }
            }
            // The bucket leaves the head of its list: spent deficit, or nothing left to send.
            if from_new {
                self.new_flows.pop_front();
            } else {
                self.old_flows.pop_front();
            }
            let to_old = spent || (from_new && !self.old_flows.is_empty());
            b.list = if to_old { List::Old } else { List::Idle };
            if to_old {
                self.old_flows.push_back(idx);
            }
        }
    }

    fn len_packets(&self) -> usize {
        self.packets
    }

    fn len_bytes(&self) -> u64 {
        self.bytes
    }

    fn first_timer(&self) -> Option<Time> {
        self.period
    }

    fn on_timer(&mut self, env: &mut QueueEnv) -> Option<Time> {
        let period = self.period?;
        // Each bucket's update touches only its own state, so the order of the list does not matter.
        let mut i = 0;
        while i < self.restless.len() {
            let b = &mut self.buckets[self.restless[i]];
            if b.update_to_rest() {
                b.restless = false;
                self.restless.swap_remove(i);
            } else {
                i += 1;
            }
        }
        Some(env.now + period)
    }

    fn state(&self, out: &mut Vec<(&'static str, f64)>) {
        out.extend([("new_flows", self.new_flows.len() as f64), ("old_flows", self.old_flows.len() as f64)]);
    }
}

#[cfg(test)]
pub(crate) mod testutil {
    //! Drives a flow-queue discipline by hand, with flows `A`, `B` and `C` in distinct buckets.
    use super::*;
    use crate::aqm::testutil::{on_10_mbps, Harness};
    use crate::aqm::QueueAction;
    use crate::net::{Ecn, Packet};

    pub const A: u32 = 1;
    pub const B: u32 = 2;
    pub const C: u32 = 3;

    /// The discipline `cfg` builds on a 10 Mb/s link, having checked that `A`, `B`, `C` do not share a
    /// bucket.
    pub fn fq<Cfg: FlowQueuesConfig>(cfg: Cfg) -> (Harness, FlowQueues<Cfg::Aqm>) {
        let (h, q): (Harness, FlowQueues<Cfg::Aqm>) = on_10_mbps(cfg);
        assert_ne!(q.bucket(A), q.bucket(B));
        assert_ne!(q.bucket(A), q.bucket(C));
        assert_ne!(q.bucket(B), q.bucket(C));
        (h, q)
    }

    /// Offers `n` fresh packets of `flow` back to back.
    pub fn arrive_n<Aqm: FifoAqm>(
        h: &mut Harness,
        q: &mut FlowQueues<Aqm>,
        n: usize,
        flow: u32,
        size: u32,
        ecn: Ecn,
    ) {
        for _ in 0..n {
            arrive(h, q, flow, size, ecn);
        }
    }

    /// Offers a fresh packet of `flow`; returns it and the first action the discipline reported.
    pub fn arrive<Aqm: FifoAqm>(
        h: &mut Harness,
        q: &mut FlowQueues<Aqm>,
        flow: u32,
        size: u32,
        ecn: Ecn,
    ) -> (PacketId, Option<QueueAction>) {
        let id = h.packets.alloc(Packet { size, flow, ecn, ..Default::default() });
        h.actions.clear();
        q.enqueue(id, &mut h.env());
        (id, h.actions.first().copied())
    }

    /// Dequeues and returns the flow of the packet sent.
    pub fn next_flow<Aqm: FifoAqm>(h: &mut Harness, q: &mut FlowQueues<Aqm>) -> u32 {
        let pkt = h.depart(q).expect("a packet");
        h.packets.get(pkt).flow
    }

    /// Sends `n` more packets of the backlogged flows `A` and `B`, which have sent `sent` bytes each so
    /// far, checking after each that DRR keeps their byte counts within one quantum (1514 B) plus one
    /// packet (1500 B) of each other.
    pub fn assert_byte_shares_stay_even<Aqm: FifoAqm>(
        h: &mut Harness,
        q: &mut FlowQueues<Aqm>,
        n: usize,
        sent: (i64, i64),
    ) {
        let (mut a, mut b) = sent;
        for _ in 0..n {
            let p = h.depart(q).expect("a packet");
            let size = h.packets.get(p).size as i64;
            *if h.packets.get(p).flow == A { &mut a } else { &mut b } += size;
            assert!((a - b).abs() <= 1514 + 1500, "A {a} B {b}");
        }
    }
}
