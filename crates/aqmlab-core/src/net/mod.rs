//! Packets, nodes, links and routes.

pub mod packet;
pub mod routing;

pub use packet::{flags, Ecn, Packet, PacketArena, PacketId, Proto};
