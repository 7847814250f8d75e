//! The packet FIFO shared by the disciplines, with its byte count, and [`FifoQueue`], the plumbing of
//! every discipline that keeps its packets in a single FIFO.

use super::{Discipline, FifoBuffer, LinkInfo, QueueDisc, QueueEnv};
use crate::net::{PacketArena, PacketId};
use crate::sim::Time;
use std::collections::VecDeque;

#[derive(Default)]
pub struct Fifo {
    q: VecDeque<PacketId>,
    bytes: u64,
}

impl Fifo {
    /// Appends a packet and stamps its enqueue time.
    pub fn push(&mut self, pkt: PacketId, packets: &mut PacketArena, now: Time) {
        let p = packets.get_mut(pkt);
        p.enqueued_at = now;
        self.bytes += p.size as u64;
        self.q.push_back(pkt);
    }

    pub fn pop(&mut self, packets: &PacketArena) -> Option<PacketId> {
        let id = self.q.pop_front()?;
        self.bytes -= packets.get(id).size as u64;
        Some(id)
    }

    /// Removes the most recently added packet (ns-2's `drop_tail` victim after an overflow).
    pub fn pop_tail(&mut self, packets: &PacketArena) -> Option<PacketId> {
        let id = self.q.pop_back()?;
        self.bytes -= packets.get(id).size as u64;
        Some(id)
    }

    pub fn head(&self) -> Option<PacketId> {
        self.q.front().copied()
    }

    pub fn len(&self) -> usize {
        self.q.len()
    }

    pub fn is_empty(&self) -> bool {
        self.q.is_empty()
    }

    pub fn bytes(&self) -> u64 {
        self.bytes
    }

    /// The queue length in the unit the discipline measures it in: bytes or packets.
    pub fn occupancy(&self, in_bytes: bool) -> u64 {
        if in_bytes {
            self.bytes
        } else {
            self.q.len() as u64
        }
    }
}

/// The decisions of a discipline whose waiting packets all stand in one [`Fifo`]. [`FifoQueue`] owns
/// that FIFO and answers the link's questions about it (as ns-3's `QueueDisc` owns its internal queue
/// and its subclasses only decide), so an algorithm implements only what is its own.
pub trait FifoAqm: Send + Sized + 'static {
    /// The scenario configuration the algorithm is made from.
    type Config;
    /// The algorithm for one link, before any packet arrives.
    fn new(cfg: Self::Config, link: LinkInfo) -> Self;
    /// Stores the arrival in `fifo`, marks it, or drops it (or another packet).
    fn enqueue(&mut self, pkt: PacketId, fifo: &mut Fifo, env: &mut QueueEnv);
    /// The next packet to send, `None` when the link goes idle: the head unless the algorithm acts here.
    fn dequeue(&mut self, fifo: &mut Fifo, env: &mut QueueEnv) -> Option<PacketId> {
        fifo.pop(env.packets)
    }
    /// Period of the algorithm's periodic update (PI, REM, PIE sampling), if it has one; the first
    /// update runs one period after the start.
    fn update_period(&self) -> Option<Time> {
        None
    }
    /// The periodic update, on the queue as it stands.
    fn update(&mut self, _fifo: &Fifo) {}
    /// Whether `update` would now leave the state exactly as it is (the algorithm at rest with its
    /// queue empty), so that an idle flow-queue bucket can skip it until a packet arrives
    /// ([`super::flow_queue`]). False by default: always update.
    fn at_rest(&self, _fifo: &Fifo) -> bool {
        false
    }
    /// [`QueueDisc::departs_in_arrival_order`]. True for most FIFO algorithms; an algorithm whose
    /// `dequeue` drops, or whose `enqueue` drops a waiting packet instead of the arrival, says false.
    fn departs_in_arrival_order(&self) -> bool {
        true
    }
    /// [`QueueDisc::plain_fifo`].
    fn plain_fifo(&self) -> Option<FifoBuffer> {
        None
    }
    /// [`QueueDisc::state`].
    fn state(&self, _out: &mut Vec<(&'static str, f64)>) {}
}

/// A single-FIFO discipline: the FIFO and the algorithm that decides over it.
pub struct FifoQueue<A> {
    pub(crate) fifo: Fifo,
    pub(crate) aqm: A,
}

impl<A: FifoAqm> FifoQueue<A> {
    pub fn new(aqm: A) -> Self {
        FifoQueue { fifo: Fifo::default(), aqm }
    }
}

/// A FIFO algorithm's `Config` builds the algorithm over an empty FIFO.
impl<A: FifoAqm> Discipline<A::Config> for FifoQueue<A> {
    fn build(cfg: A::Config, link: LinkInfo) -> Self {
        FifoQueue::new(A::new(cfg, link))
    }
}

impl<A: FifoAqm> QueueDisc for FifoQueue<A> {
    fn enqueue(&mut self, pkt: PacketId, env: &mut QueueEnv) {
        self.aqm.enqueue(pkt, &mut self.fifo, env);
    }

    fn dequeue(&mut self, env: &mut QueueEnv) -> Option<PacketId> {
        self.aqm.dequeue(&mut self.fifo, env)
    }

    fn len_packets(&self) -> usize {
        self.fifo.len()
    }

    fn len_bytes(&self) -> u64 {
        self.fifo.bytes()
    }

    fn first_timer(&self) -> Option<Time> {
        self.aqm.update_period()
    }

    fn on_timer(&mut self, env: &mut QueueEnv) -> Option<Time> {
        let period = self.aqm.update_period()?;
        self.aqm.update(&self.fifo);
        Some(env.now + period)
    }

    fn plain_fifo(&self) -> Option<FifoBuffer> {
        self.aqm.plain_fifo()
    }

    fn departs_in_arrival_order(&self) -> bool {
        self.aqm.departs_in_arrival_order()
    }

    fn state(&self, out: &mut Vec<(&'static str, f64)>) {
        self.aqm.state(out)
    }
}
