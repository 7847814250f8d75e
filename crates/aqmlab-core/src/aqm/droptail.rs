//! Drop-tail FIFO with ns-2's limits (`Queue/DropTail`, docs/aqm.md#droptail).
//!
//! Packet mode drops an arrival when `waiting + 1 >= limit`, so at most `limit - 1` packets wait and
//! `limit` are in the system counting the one on the wire. Byte mode drops when
//! `waiting_bytes + size >= limit * mean_pktsize`.

use super::fifo::{Fifo, FifoAqm, FifoQueue};
use super::{Buffer, DropReason, FifoBuffer, LinkInfo, QueueEnv, buffer_limit};
use crate::net::PacketId;
use crate::scenario::units::Bytes;

aqm_config! {
    #[discipline(FifoQueue<DropTail>)]
    #[buffer(|c| Buffer::ns2(c.limit, c.bytes, c.mean_pktsize.0))]
    pub struct Config {
        /// Buffer size in packets (ns-2 `limit_`, default 50).
        #[default(50)]
        #[check(ns2_limit)]
        pub limit: u32,
        /// Limit the queue in bytes, `limit * mean_pktsize` (ns-2 `queue_in_bytes_`).
        pub bytes: bool,
        /// Bytes per packet when converting `limit` to bytes (ns-2 `mean_pktsize_`, 500).
        #[default(Bytes(500))]
        #[check(size)]
        pub mean_pktsize: Bytes,
        /// Drop the head packet instead of the arrival (ns-2 `drop_front_`).
        pub drop_front: bool,
    }
}

pub struct DropTail {
    cfg: Config,
}

impl DropTail {
    fn buffer(&self) -> FifoBuffer {
        FifoBuffer {
            limit: buffer_limit(self.cfg.limit, self.cfg.bytes, self.cfg.mean_pktsize.0),
            in_bytes: self.cfg.bytes,
        }
    }

}

impl FifoAqm for DropTail {
    type Config = Config;

    fn new(cfg: Config, _link: LinkInfo) -> Self {
        DropTail { cfg }
    }

    fn enqueue(&mut self, pkt: PacketId, fifo: &mut Fifo, env: &mut QueueEnv) {
        if !self.buffer().overflows(fifo.len() as u64, fifo.bytes(), env.size(pkt)) {
            fifo.push(pkt, env.packets, env.now);
        } else if self.cfg.drop_front && !fifo.is_empty() {
            let victim = fifo.pop(env.packets).expect("non-empty");
            env.drop(victim, DropReason::Overflow);
            fifo.push(pkt, env.packets, env.now);
        } else {
            env.drop(pkt, DropReason::Overflow);
        }
    }

    /// With `drop_front` an arrival can push out a waiting packet.
    fn departs_in_arrival_order(&self) -> bool {
        false
    }

    fn plain_fifo(&self) -> Option<FifoBuffer> {
        (!self.cfg.drop_front).then(|| self.buffer())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::aqm::QueueDisc;
    use crate::aqm::testutil::Harness;
    use crate::aqm::QueueAction;
    use crate::net::Ecn;

    #[test]
    fn packet_mode_holds_limit_minus_one_waiting() {
        let mut h = Harness::new(10_000_000, 0);
        let mut q = FifoQueue::new(DropTail::new(Config { limit: 5, ..Default::default() }, h.link));
        let verdicts: Vec<_> = (0..6).map(|_| h.arrive(&mut q, 1000, Ecn::NotEct)).collect();
        assert!(verdicts[..4].iter().all(|v| v.is_none()));
        assert!(matches!(verdicts[4], Some(QueueAction::Dropped(_, DropReason::Overflow))));
        assert_eq!(q.len_packets(), 4);
        assert_eq!(q.len_bytes(), 4000);
        // FIFO order.
        let first = h.depart(&mut q).unwrap();
        assert_eq!(first, 0);
    }

    #[test]
    fn byte_mode_limit_is_limit_times_mean_pktsize() {
        let mut h = Harness::new(10_000_000, 0);
        let mut q =
            FifoQueue::new(DropTail::new(Config { limit: 3, bytes: true, mean_pktsize: Bytes(1000), ..Default::default() }, h.link));
        // 3000-byte budget: 1000 + 1500 = 2500 accepted, another 500 would reach 3000 >= 3000 and is dropped.
        assert!(h.arrive(&mut q, 1000, Ecn::NotEct).is_none());
        assert!(h.arrive(&mut q, 1500, Ecn::NotEct).is_none());
        assert!(h.arrive(&mut q, 500, Ecn::NotEct).is_some());
        assert!(h.arrive(&mut q, 499, Ecn::NotEct).is_none());
        assert_eq!(q.len_bytes(), 2999);
    }

    #[test]
    fn plain_fifo_buffer_is_the_drop_tail_rule() {
        let h = Harness::new(10_000_000, 0);
        let bytes =
            FifoQueue::new(DropTail::new(Config { limit: 3, bytes: true, mean_pktsize: Bytes(1000), ..Default::default() }, h.link));
        assert_eq!(bytes.plain_fifo(), Some(FifoBuffer { limit: 3000, in_bytes: true }));
        let packets = FifoQueue::new(DropTail::new(Config { limit: 5, ..Default::default() }, h.link));
        let buf = packets.plain_fifo().unwrap();
        assert!(!buf.overflows(3, 0, 1500) && buf.overflows(4, 0, 40));
        let front = FifoQueue::new(DropTail::new(Config { drop_front: true, ..Default::default() }, h.link));
        assert_eq!(front.plain_fifo(), None);
    }

    #[test]
    fn drop_front_drops_the_head() {
        let mut h = Harness::new(10_000_000, 0);
        let mut q = FifoQueue::new(DropTail::new(Config { limit: 3, drop_front: true, ..Default::default() }, h.link));
        h.arrive_n(&mut q, 3, 100, Ecn::NotEct);
        assert!(h.actions.contains(&QueueAction::Dropped(0, DropReason::Overflow)));
        assert_eq!(q.len_packets(), 2);
        assert_eq!(h.depart(&mut q), Some(1));
    }
}
