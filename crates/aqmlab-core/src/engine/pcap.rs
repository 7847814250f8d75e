//! Packet captures (`measure.pcap`): every departure of a listed link direction in the window, as a
//! record of a libpcap file (LINKTYPE_RAW: raw IPv4, nanosecond timestamps) holding the packet's IPv4
//! and TCP or UDP headers. The payload is not written: a record's captured length is its headers', its
//! original length the simulated size, so that Wireshark shows the true sizes.
//!
//! The headers are written by hand rather than with a packet crate: they are fixed 20- and 8-byte
//! layouts without options, and the container is a 24-byte file header and a 16-byte record header.
//! The records stream to the record sink in batches (`Batch::Pcap`), as the other long tables do, and
//! the front end appends them to `pcap/<link>.pcap`; a run without a sink captures nothing.

use super::{Batch, Simulation, RECORD_BATCH};
use crate::net::packet::{flags, Ecn, Packet};
use crate::net::routing::ROUTE_END;
use crate::net::PacketId;
use crate::sim::{time, Time};

/// `LinkQueue::pcap` of a link that is not captured.
pub(super) const NO_CAPTURE: u32 = u32::MAX;

/// Bytes of a record's captured headers: IPv4 and TCP, or IPv4 and UDP.
const IPV4_BYTES: u32 = 20;
const TCP_BYTES: u32 = 20;
const UDP_BYTES: u32 = 8;
/// Bytes of a TCP record in the file: the record header and the captured headers (the largest record;
/// for the resource estimate).
pub const RECORD_FILE_BYTES: u64 = 16 + (IPV4_BYTES + TCP_BYTES) as u64;
/// Bytes of the file header.
pub const FILE_HEADER_BYTES: u64 = 24;

/// The libpcap file header: nanosecond-resolution magic, version 2.4, no time zone offset, a snapshot
/// length that holds any header, LINKTYPE_RAW (101). Little-endian, as the magic tells readers.
pub fn file_header() -> [u8; 24] {
    let mut h = [0u8; 24];
    h[0..4].copy_from_slice(&0xa1b2_3c4d_u32.to_le_bytes());
    h[4..6].copy_from_slice(&2u16.to_le_bytes());
    h[6..8].copy_from_slice(&4u16.to_le_bytes());
    h[16..20].copy_from_slice(&65_535u32.to_le_bytes());
    h[20..24].copy_from_slice(&101u32.to_le_bytes());
    h
}

/// What a record shows of one packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Record {
    /// When its transmission started.
    pub at: Time,
    pub size: u32,
    pub ecn: Ecn,
    /// TCP flags and the UDP bit (see [`flags`]).
    pub flags: u8,
    pub src: [u8; 4],
    pub dst: [u8; 4],
    pub src_port: u16,
    pub dst_port: u16,
    pub seq: u64,
    pub ack: u64,
}

/// The address of node `node`: 10.x.y.z from `node + 1` (so that none ends in .0.0.0).
pub fn node_address(node: u32) -> [u8; 4] {
    let [_, x, y, z] = (node + 1).to_be_bytes();
    [10, x, y, z]
}

/// The ports of a connection: the initiator's from its flow slot, the responder's from the slot's
/// generation, so that every packet of a connection has one 4-tuple and a reused slot another one.
pub fn ports(slot: u32, generation: u32) -> (u16, u16) {
    let port = |n: u32| (1024 + n % 64_512) as u16;
    (port(slot), port(generation))
}

/// The RFC 1071 checksum of `header` (whose checksum field is zero).
pub fn ipv4_checksum(header: &[u8]) -> u16 {
    let mut sum: u32 = header.chunks(2).map(|w| u32::from(u16::from_be_bytes([w[0], w[1]]))).sum();
    while sum > 0xffff {
        sum = (sum & 0xffff) + (sum >> 16);
    }
    !(sum as u16)
}

/// Appends `r` as a pcap record (record header, IPv4 header, TCP or UDP header) to `out`.
pub fn write_record(out: &mut Vec<u8>, r: &Record) {
    let udp = r.flags & flags::UDP != 0;
    let headers = IPV4_BYTES + if udp { UDP_BYTES } else { TCP_BYTES };
    // A size below the headers' (none in the engine's packets) would make the header inconsistent.
    let total = r.size.max(headers);
    let (secs, nanos) = (r.at / time::NS_PER_SEC, r.at % time::NS_PER_SEC);
    out.extend_from_slice(&(secs as u32).to_le_bytes());
    out.extend_from_slice(&(nanos as u32).to_le_bytes());
    out.extend_from_slice(&headers.to_le_bytes());
    out.extend_from_slice(&total.to_le_bytes());
    // IPv4: version 4, IHL 5; the ECN codepoint in the TOS byte's two low bits; don't fragment; TTL 64.
    let ecn = match r.ecn {
        Ecn::NotEct => 0,
        Ecn::Ect1 => 1,
        Ecn::Ect0 => 2,
        Ecn::Ce => 3,
    };
    let mut ip = [0u8; IPV4_BYTES as usize];
    ip[0] = 0x45;
    ip[1] = ecn;
    // The IPv4 total length field is 16 bits: larger simulated sizes are cut there (not in `total`).
    ip[2..4].copy_from_slice(&(total.min(65_535) as u16).to_be_bytes());
    ip[6] = 0x40;
    ip[8] = 64;
    ip[9] = if udp { 17 } else { 6 };
    ip[12..16].copy_from_slice(&r.src);
    ip[16..20].copy_from_slice(&r.dst);
    let checksum = ipv4_checksum(&ip);
    ip[10..12].copy_from_slice(&checksum.to_be_bytes());
    out.extend_from_slice(&ip);
    out.extend_from_slice(&r.src_port.to_be_bytes());
    out.extend_from_slice(&r.dst_port.to_be_bytes());
    if udp {
        // Length of the datagram; checksum 0: none (legal over IPv4; the payload is not captured).
        let length = (total - IPV4_BYTES).min(65_535) as u16;
        out.extend_from_slice(&length.to_be_bytes());
        out.extend_from_slice(&[0, 0]);
        return;
    }
    out.extend_from_slice(&(r.seq as u32).to_be_bytes());
    out.extend_from_slice(&(r.ack as u32).to_be_bytes());
    let tcp_flags =
        [(flags::FIN, 0x01), (flags::SYN, 0x02), (flags::ACK, 0x10), (flags::ECE, 0x40), (flags::CWR, 0x80)]
            .iter()
            .filter(|&&(bit, _)| r.flags & bit != 0)
            .fold(0u8, |acc, &(_, wire)| acc | wire);
    // Data offset 5 (no options), the flags, a fixed window, checksum 0 (it would cover the payload,
    // which is not captured), no urgent pointer.
    out.extend_from_slice(&[0x50, tcp_flags, 0xff, 0xff, 0, 0, 0, 0]);
}

/// The capture of one link direction: its records not yet handed to the sink.
pub(super) struct Capture {
    pub link: u32,
    bytes: Vec<u8>,
    records: usize,
}

impl Capture {
    /// A capture whose first batch starts with the file header (so that even an empty capture makes a
    /// valid file).
    pub fn new(link: u32) -> Capture {
        Capture { link, bytes: file_header().to_vec(), records: 0 }
    }
}

impl Simulation<'_> {
    /// Records packet `p`'s transmission start at `at` on captured link `l` (capture `c`).
    #[inline(never)]
    pub(super) fn capture(&mut self, c: u32, l: u32, p: PacketId, at: Time) {
        let record = self.record_of(self.packets.get(p), l, at);
        let capture = &mut self.captures[c as usize];
        write_record(&mut capture.bytes, &record);
        capture.records += 1;
        if capture.records >= RECORD_BATCH {
            self.flush_capture(c as usize);
        }
    }

    /// The record of packet `pk` leaving on link `l` at `at`: addresses of its connection's initiator
    /// and responder (of the link's ends for a packet of a connection whose slot was reused meanwhile).
    fn record_of(&self, pk: &Packet, l: u32, at: Time) -> Record {
        let flow = &self.flows[pk.flow as usize];
        let (initiator, responder) = if flow.gen == pk.flow_gen {
            let route = &self.model.routes[flow.route as usize..];
            let first = route[0];
            let last = route.iter().take_while(|&&h| h != ROUTE_END).last().copied().unwrap_or(first);
            (self.model.links[first as usize].from, self.model.links[last as usize].to)
        } else {
            let link = &self.model.links[l as usize];
            if pk.from_responder() {
                (link.to, link.from)
            } else {
                (link.from, link.to)
            }
        };
        let (mut src, mut dst) = (node_address(initiator), node_address(responder));
        let (mut src_port, mut dst_port) = ports(pk.flow, pk.flow_gen);
        if pk.from_responder() {
            std::mem::swap(&mut src, &mut dst);
            std::mem::swap(&mut src_port, &mut dst_port);
        }
        Record {
            at,
            size: pk.size,
            ecn: pk.ecn,
            flags: pk.flags,
            src,
            dst,
            src_port,
            dst_port,
            seq: pk.seq,
            ack: pk.ack,
        }
    }

    /// Hands capture `c`'s records to the sink.
    fn flush_capture(&mut self, c: usize) {
        let capture = &mut self.captures[c];
        if let Some(sink) = self.sink.as_mut() {
            if !capture.bytes.is_empty() {
                let link = &self.model.links[capture.link as usize].name;
                sink(Batch::Pcap { link, bytes: &capture.bytes });
            }
        }
        capture.bytes.clear();
        capture.records = 0;
    }

    /// Hands every capture's remaining records to the sink (at the end of the run).
    pub(super) fn flush_captures(&mut self) {
        for c in 0..self.captures.len() {
            self.flush_capture(c);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::tests::{bench_dumbbell, json};

    /// One TCP data segment, every byte worked out by hand.
    #[test]
    fn a_tcp_record_has_the_hand_computed_bytes() {
        let r = Record {
            at: 3 * time::NS_PER_SEC + 250,
            size: 1040,
            ecn: Ecn::Ce,
            flags: flags::ACK | flags::CWR,
            src: [10, 0, 0, 1],
            dst: [10, 0, 0, 4],
            src_port: 1024,
            dst_port: 1024,
            seq: (1 << 32) + 1000,
            ack: 1,
        };
        let mut out = Vec::new();
        write_record(&mut out, &r);
        // IPv4 checksum by hand, 16-bit words: 4503 0410 0000 4000 4006 0000 0a00 0001 0a00 0004 sum to
        // 0x4503 + 0x0410 + 0x4000 + 0x4006 + 0x0a00 + 0x0001 + 0x0a00 + 0x0004 = 0xdd1e (no carry),
        // whose complement is 0x22e1.
        #[rustfmt::skip]
        let expected: Vec<u8> = [
            &[3, 0, 0, 0, 250, 0, 0, 0, 40, 0, 0, 0, 0x10, 0x04, 0, 0][..], // ts 3 s 250 ns, 40 of 1040
            &[0x45, 0x03, 0x04, 0x10, 0, 0, 0x40, 0, 64, 6, 0x22, 0xe1, 10, 0, 0, 1, 10, 0, 0, 4],
            &[0x04, 0x00, 0x04, 0x00, 0, 0, 0x03, 0xe8, 0, 0, 0, 1, 0x50, 0x90, 0xff, 0xff, 0, 0, 0, 0],
        ]
        .concat();
        assert_eq!(out, expected);
        assert_eq!(ipv4_checksum(&out[16..36]), 0, "a valid header sums to 0xffff");
    }

    /// A run capturing both bottleneck directions: a record per departure counted in `links`, their
    /// original lengths adding up to the departure bytes, in time order; every table as without the
    /// capture. Also with FQ-CoDel, whose captured links schedule `TxDone` events where the others
    /// start their transmissions lazily (`links`).
    #[test]
    fn captures_are_the_departures_and_change_no_table() {
        for queue in ["{ kind = \"droptail\", limit = 1000 }", "{ kind = \"fq_codel\", limit = 100 }"] {
            captures_are_the_departures(&format!("dumbbell.queue={queue}"));
        }
    }

    fn captures_are_the_departures(queue: &str) {
        let run = |pcap: &str| {
            let model = bench_dumbbell(
                "",
                &["dumbbell.pairs=4", "duration=\"5s\"", "measure.warmup=\"1s\"", queue, pcap],
            );
            let mut files: Vec<(String, Vec<u8>)> = Vec::new();
            let mut sink = |b: Batch| {
                if let Batch::Pcap { link, bytes } = b {
                    match files.iter_mut().find(|(l, _)| l == link) {
                        Some((_, f)) => f.extend_from_slice(bytes),
                        None => files.push((link.to_string(), bytes.to_vec())),
                    }
                }
            };
            let result = crate::run_with_sink(model, None, &mut sink);
            (result, files)
        };
        let (plain, none) = run("measure.pcap=[]");
        let (captured, files) = run("measure.pcap=[\"B->A\", \"A->B\"]");
        assert!(none.is_empty());
        assert_eq!(json(&captured.links), json(&plain.links));
        assert_eq!(json(&captured.flows), json(&plain.flows));
        assert_eq!(files.iter().map(|(l, _)| l.as_str()).collect::<Vec<_>>(), ["A->B", "B->A"]);
        for (link, file) in &files {
            assert_eq!(file[..24], file_header());
            let (mut at, mut records, mut bytes, mut last) = (24, 0u64, 0u64, 0u64);
            while at < file.len() {
                let word = |i: usize| u32::from_le_bytes(file[at + i..at + i + 4].try_into().unwrap()) as u64;
                let t = word(0) * time::NS_PER_SEC + word(4);
                assert!(t >= last && t >= time::NS_PER_SEC, "{link}: in the window, in order");
                (records, bytes, last) = (records + 1, bytes + word(12), t);
                assert_eq!(ipv4_checksum(&file[at + 16..at + 36]), 0);
                at += 16 + word(8) as usize;
            }
            let row = plain.links.iter().find(|l| l.link == *link).unwrap();
            assert_eq!((records, bytes), (row.counters.departures, row.counters.departure_bytes), "{link}");
            assert!(records > 1000, "{link}: {records}");
        }
    }

    #[test]
    fn a_udp_record_and_the_file_header() {
        let r = Record {
            at: 0,
            size: 1000,
            ecn: Ecn::Ect0,
            flags: flags::UDP,
            src: node_address(0),
            dst: node_address(258),
            src_port: 1030,
            dst_port: 1025,
            seq: 0,
            ack: 0,
        };
        let mut out = Vec::new();
        write_record(&mut out, &r);
        assert_eq!(&out[8..16], &[28, 0, 0, 0, 0xe8, 0x03, 0, 0]);
        assert_eq!((out[17], out[25]), (2, 17), "ECT(0), UDP");
        assert_eq!(&out[28..36], &[10, 0, 0, 1, 10, 0, 1, 3]);
        assert_eq!(&out[36..44], &[0x04, 0x06, 0x04, 0x01, 0x03, 0xd4, 0, 0], "ports, length 980");
        assert_eq!(ipv4_checksum(&out[16..36]), 0);
        assert_eq!(file_header()[..4], [0x4d, 0x3c, 0xb2, 0xa1]);
        assert_eq!(ports(64_512 + 3, 1), (1027, 1025));
    }
}
