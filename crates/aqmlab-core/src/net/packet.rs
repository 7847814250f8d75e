//! Packets and the slab they live in.
//!
//! A packet is created once by its sender, travels through links and queues as a `PacketId` (a `u32`
//! index into the arena) and is freed when it is delivered or dropped: no allocation per packet.

use crate::sim::Time;

pub type PacketId = u32;

/// The IP ECN field (RFC 3168).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Ecn {
    #[default]
    NotEct,
    Ect0,
    Ect1,
    Ce,
}

impl Ecn {
    /// True when a router may set CE instead of dropping (ECT(0), ECT(1), or already CE).
    pub fn is_capable(self) -> bool {
        !matches!(self, Ecn::NotEct)
    }
}

/// TCP header flags carried by a packet (bit set).
pub mod flags {
    pub const SYN: u8 = 1;
    pub const ACK: u8 = 2;
    pub const FIN: u8 = 4;
    /// ECN-Echo: the receiver saw CE.
    pub const ECE: u8 = 8;
    /// Congestion Window Reduced: the sender reacted to ECE.
    pub const CWR: u8 = 16;
    /// Not TCP header bits: the packet is a UDP datagram, and it was sent by the connection's passive
    /// side (server → client). They live here so that a packet stays one cache line.
    pub const UDP: u8 = 32;
    pub const FROM_RESPONDER: u8 = 64;
}

/// What a packet carries, for routing it to the right agent at its destination.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Proto {
    #[default]
    Tcp,
    Udp,
}

const _: () = assert!(std::mem::size_of::<Packet>() == 64, "a packet is one cache line");

#[derive(Clone, Debug, Default)]
#[repr(align(64))]
pub struct Packet {
    /// Bytes on the wire (headers included).
    pub size: u32,
    pub ecn: Ecn,
    /// TCP flags, and the protocol and direction bits (see [`flags`]).
    pub flags: u8,
    /// Flow slot (TCP connection or UDP flow) and the slot's generation: slots of finished
    /// connections are reused, and a late packet of an old connection is recognised by its generation.
    pub flow: u32,
    pub flow_gen: u32,
    /// Traffic class of the flow, for per-class counters.
    pub class: u16,
    /// Where the packet is on its route: the index in the model's route table (`Model::routes`) of
    /// the next link it takes. Its sender sets it to the route's id, the route's first entry.
    pub next_hop: u32,
    /// TCP sequence number of the first payload byte (or of SYN/FIN), in bytes.
    pub seq: u64,
    /// TCP cumulative acknowledgement (next byte expected).
    pub ack: u64,
    /// Time the packet entered its current queue (for sojourn-time AQMs and the links' queueing delay).
    pub enqueued_at: Time,
    /// Time its sender handed it to the network (for the flows' one-way delay).
    pub sent_at: Time,
    /// While on a link: the packet sent after it on the same link ([`NO_PACKET`] if none) and when
    /// that one reaches the far end. A link's packets in flight form a list through these fields; each
    /// packet holds its successor's arrival time so that handling an arrival reads only the arriving
    /// packet.
    pub next_on_link: PacketId,
    pub next_arrives: Time,
}

/// The end of a packet list.
pub const NO_PACKET: PacketId = PacketId::MAX;

impl Packet {
    pub fn has(&self, flag: u8) -> bool {
        self.flags & flag != 0
    }

    pub fn proto(&self) -> Proto {
        if self.has(flags::UDP) {
            Proto::Udp
        } else {
            Proto::Tcp
        }
    }

    /// True for packets sent by the connection's passive side (server → client).
    pub fn from_responder(&self) -> bool {
        self.has(flags::FROM_RESPONDER)
    }

    /// Application payload bytes (0 for pure ACKs and control segments): a UDP datagram's size counts
    /// as payload, a TCP segment carries its fixed header.
    pub fn payload(&self) -> u32 {
        match self.proto() {
            Proto::Udp => self.size,
            Proto::Tcp => self.size.saturating_sub(crate::tcp::HEADER_BYTES),
        }
    }
}

/// A slab of packets with a free list.
#[derive(Default)]
pub struct PacketArena {
    slots: Vec<Packet>,
    free: Vec<PacketId>,
}

impl PacketArena {
    pub fn alloc(&mut self, p: Packet) -> PacketId {
        if let Some(id) = self.free.pop() {
            self.slots[id as usize] = p;
            id
        } else {
            self.slots.push(p);
            (self.slots.len() - 1) as PacketId
        }
    }

    pub fn free(&mut self, id: PacketId) {
        self.free.push(id);
    }

    pub fn get(&self, id: PacketId) -> &Packet {
        &self.slots[id as usize]
    }

    pub fn get_mut(&mut self, id: PacketId) -> &mut Packet {
        &mut self.slots[id as usize]
    }

    /// Packets currently alive (allocated and not freed).
    pub fn live(&self) -> usize {
        self.slots.len() - self.free.len()
    }

    /// Slots ever allocated: the high-water mark of live packets.
    pub fn capacity_used(&self) -> usize {
        self.slots.len()
    }
}
