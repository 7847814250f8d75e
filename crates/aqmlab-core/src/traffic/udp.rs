//! UDP sources (`udp_cbr`, `udp_poisson`): constant bit rate, or Poisson (exponential gaps) with the
//! same mean rate.

use crate::net::{flags, Packet, PacketArena, PacketId};
use crate::scenario::build::{GroupCx, Traffic};
use crate::scenario::flow_group::{flow_group, GroupKind};
use crate::scenario::units::{Bytes, Duration, Rate};
use crate::scenario::ScenarioError;
use crate::sim::{time, Rng, Time};
use rand_distr::{Distribution, Exp1};

flow_group! {
    /// A `udp_cbr` group, or with `POISSON` a `udp_poisson` one.
    pub struct UdpGroup<const POISSON: bool> {
        /// Sending rate (required; the mean rate with `POISSON`).
        pub rate: Option<Rate>,
        /// Datagram size on the wire, default 1000 B.
        pub packet_size: Option<Bytes>,
        /// The flows stop sending at this time (default: the end of the run).
        pub stop: Option<Duration>,
    }
}

impl<const POISSON: bool> GroupKind for UdpGroup<POISSON> {
    fn traffic(&self, cx: &mut GroupCx) -> Result<Traffic, ScenarioError> {
        let rate = self.rate.ok_or_else(|| cx.err("rate", "a sending rate for a UDP flow group"))?;
        let size = self.packet_size.map(|b| b.0).unwrap_or(1000);
        if size == 0 || size > 65_535 {
            return Err(cx.err("packet_size", "a datagram size between 1 and 65535 bytes"));
        }
        Ok(Traffic::Udp(UdpModel {
            size: size as u32,
            interval: time::tx_time(size as u32, rate.0),
            poisson: POISSON,
            stop: self.stop.map(|d| d.0).unwrap_or(cx.duration()),
        }))
    }
}

/// The datagrams of every flow of a group.
#[derive(Clone, Debug)]
pub struct UdpModel {
    /// Datagram size, bytes.
    pub size: u32,
    /// Mean gap between datagrams.
    pub interval: Time,
    pub poisson: bool,
    pub stop: Time,
}

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
    pub fn new(m: &UdpModel, rng: Rng) -> Self {
        UdpSource {
            size: m.size,
            interval: m.interval,
            poisson: m.poisson,
            stop: m.stop,
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
            flags: flags::UDP,
            flow,
            class,
            next_hop: route,
            enqueued_at: now,
            sent_at: now,
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
