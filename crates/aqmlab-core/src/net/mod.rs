//! Packets, nodes, links and routes.

pub mod packet;

pub use packet::{flags, Ecn, Packet, PacketArena, PacketId, Proto};
