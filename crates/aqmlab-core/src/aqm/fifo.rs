//! The packet FIFO shared by the single-queue disciplines, with its byte count.

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
