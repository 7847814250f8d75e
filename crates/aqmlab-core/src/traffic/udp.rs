//! UDP sources: constant bit rate, or Poisson (exponential gaps) with the same mean rate.

use crate::net::{Packet, PacketArena, PacketId, Proto};
use crate::sim::{Rng, Time};
use rand_distr::{Distribution, Exp1};

pub struct UdpSource {
    size: u32,
    /// Mean gap between datagrams.
    interval: Time,
    poisson: bool,
    pub stop: Time,
    rng: Rng,
    pub sent: u64,
    pub sent_at_warmup: u64,
    /// Datagrams and bytes received in the measurement window.
    pub received: u64,
    pub bytes_received: u64,
}

impl UdpSource {
    pub fn new(size: u32, interval: Time, poisson: bool, stop: Time, rng: Rng) -> Self {
        UdpSource {
            size,
            interval,
            poisson,
            stop,
            rng,
            sent: 0,
            sent_at_warmup: 0,
            received: 0,
            bytes_received: 0,
        }
    }

    pub fn make_packet(
        &mut self,
        flow: u32,
        class: u16,
        route: u32,
        now: Time,
        packets: &mut PacketArena,
    ) -> PacketId {
        self.sent += 1;
        packets.alloc(Packet {
            size: self.size,
            payload: self.size,
            proto: Proto::Udp,
            flow,
            class,
            next_hop: route,
            enqueued_at: now,
            seq: self.sent,
            ..Default::default()
        })
    }

    /// Time of the next datagram after one sent at `now`.
    pub fn next_send(&mut self, now: Time) -> Time {
        if self.poisson {
            let e: f64 = Exp1.sample(&mut self.rng);
            now + ((e * self.interval as f64).round() as Time).max(1)
        } else {
            now + self.interval
        }
    }
}
