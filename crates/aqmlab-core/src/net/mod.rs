//! Packets, nodes, links and routes.

pub mod loss;
pub mod packet;
pub mod routing;

pub use packet::{flags, Ecn, Packet, PacketArena, PacketId, Proto};
