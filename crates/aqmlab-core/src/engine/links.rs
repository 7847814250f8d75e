//! Links: queueing, transmission and propagation, and the DelayBoxes at nodes.
//!
//! A link direction transmits one packet at a time; the packet on the wire is not in the queue (ns-2's
//! convention). A packet taken off the queue goes straight into the link's in-flight FIFO with its
//! arrival time (end of transmission + propagation); only the FIFO's head has an `Arrival` event. A
//! `TxDone` event is scheduled only when another packet is waiting to follow: when the queue is empty the
//! link just records when the wire becomes free, and the discipline is told the link went idle (a
//! `dequeue` returning `None`, at that time) when the next packet arrives. Most links in a network are
//! uncongested, so this saves an event for most packet forwards. Nodes forward in zero time along the
//! packet's precomputed route.

use super::{Event, Simulation};
use crate::aqm::{QueueAction, QueueDisc, QueueEnv};
use crate::net::PacketId;
use crate::sim::{time, Time};

impl Simulation<'_> {
    /// Offers a packet to link `l`'s queue and starts transmitting if the wire is free.
    pub(super) fn enqueue(&mut self, l: u32, pkt: PacketId) {
        let link = &mut self.links[l as usize];
        if self.measuring {
            let p = self.packets.get(pkt);
            let c = &mut link.metrics.by_class[p.class as usize];
            c.arrivals += 1;
            c.arrival_bytes += p.size as u64;
        }
        if let Some(loss) = &mut link.loss {
            let p = self.packets.get(pkt);
            if loss.lose(p.payload) {
                if self.measuring {
                    let c = &mut link.metrics.by_class[p.class as usize];
                    c.drops_error += 1;
                    c.drop_bytes += p.size as u64;
                }
                self.packets.free(pkt);
                return;
            }
        }
        let wire_free = self.now >= link.busy_until && !link.tx_pending;
        // A free wire means an empty queue: `start_tx` keeps a `TxDone` pending while packets wait.
        if wire_free && self.packets.get(pkt).size <= link.idle_bypass_max_size {
            debug_assert_eq!(link.queue.len_packets(), 0);
            self.transmit(l, pkt);
            return;
        }
        if wire_free && link.idle_unreported {
            // The link went idle at `busy_until`: let the discipline see that instant first.
            link.idle_unreported = false;
            let at = link.busy_until;
            let idle = self.dequeue(l, at);
            debug_assert!(idle.is_none(), "a packet waited while the link was idle");
        }
        self.with_queue(l, self.now, |q, env| q.enqueue(pkt, env));
        let link = &mut self.links[l as usize];
        if wire_free {
            self.start_tx(l);
        } else {
            if !link.tx_pending {
                link.tx_pending = true;
                self.events.schedule(link.busy_until, Event::TxDone(l));
            }
            self.record_queue(l);
        }
    }

    /// Calls link `l`'s discipline at time `at`, then counts and frees what it dropped or marked.
    fn with_queue<R>(
        &mut self,
        l: u32,
        at: Time,
        call: impl FnOnce(&mut dyn QueueDisc, &mut QueueEnv) -> R,
    ) -> R {
        let link = &mut self.links[l as usize];
        let mut env = QueueEnv {
            now: at,
            link: link.info,
            packets: &mut self.packets,
            rng: &mut link.rng,
            actions: &mut self.actions,
        };
        let out = call(link.queue.as_mut(), &mut env);
        self.settle_actions(l);
        out
    }

    /// Asks link `l`'s discipline for its next packet at time `at`.
    fn dequeue(&mut self, l: u32, at: Time) -> Option<PacketId> {
        self.with_queue(l, at, |q, env| q.dequeue(env))
    }

    /// Puts packet `p` on link `l`'s free wire.
    fn transmit(&mut self, l: u32, p: PacketId) {
        let link = &mut self.links[l as usize];
        let pk = self.packets.get(p);
        if self.measuring {
            let c = &mut link.metrics.by_class[pk.class as usize];
            c.departures += 1;
            c.departure_bytes += pk.size as u64;
        }
        link.metrics.forwards += 1;
        link.busy_until = self.now + time::tx_time(pk.size, link.info.rate_bps);
        let arrives = link.busy_until + link.info.delay;
        link.in_flight.push_back((arrives, p));
        if link.in_flight.len() == 1 {
            self.events.schedule(arrives, Event::Arrival(l));
        }
    }

    /// The wire is free now: put the next waiting packet on it, if any.
    fn start_tx(&mut self, l: u32) {
        if let Some(p) = self.dequeue(l, self.now) {
            self.transmit(l, p);
            let link = &mut self.links[l as usize];
            if link.queue.len_packets() > 0 {
                link.tx_pending = true;
                self.events.schedule(link.busy_until, Event::TxDone(l));
            } else {
                link.idle_unreported = true;
            }
        }
        self.record_queue(l);
    }

    /// Counts and frees the packets a discipline dropped, and counts its marks.
    #[inline]
    fn settle_actions(&mut self, l: u32) {
        if !self.actions.is_empty() {
            self.settle_pending_actions(l);
        }
    }

    #[inline(never)]
    fn settle_pending_actions(&mut self, l: u32) {
        let link = &mut self.links[l as usize];
        for a in self.actions.drain(..) {
            match a {
                QueueAction::Dropped(p, reason) => {
                    if self.measuring {
                        let pk = self.packets.get(p);
                        link.metrics.by_class[pk.class as usize].count_drop(reason, pk.size);
                    }
                    self.packets.free(p);
                }
                QueueAction::Marked(p) => {
                    if self.measuring {
                        link.metrics.by_class[self.packets.get(p).class as usize].marks += 1;
                    }
                }
            }
        }
    }

    fn record_queue(&mut self, l: u32) {
        let link = &mut self.links[l as usize];
        link.metrics.q_pkts.set(self.now, link.queue.len_packets() as u64);
        link.metrics.q_bytes.set(self.now, link.queue.len_bytes());
    }

    pub(super) fn tx_done(&mut self, l: u32) {
        self.links[l as usize].tx_pending = false;
        self.start_tx(l);
    }

    pub(super) fn arrival(&mut self, l: u32) {
        let link = &mut self.links[l as usize];
        let (_, p) = link.in_flight.pop_front().expect("Arrival with nothing in flight");
        if let Some(&(next, _)) = link.in_flight.front() {
            self.events.schedule(next, Event::Arrival(l));
        }
        let node = link.to;
        self.forward(p, node);
    }

    /// A packet reached the far end of a link: a DelayBox there may hold it; otherwise it goes on.
    fn forward(&mut self, p: PacketId, node: u32) {
        let pkt = self.packets.get_mut(p);
        pkt.hop += 1;
        if self.delay_nodes[node as usize] {
            if let Some(d) = self.flows[pkt.flow as usize].delay_at(node, pkt.from_responder) {
                self.events.schedule(self.now + d, Event::Release(p));
                return;
            }
        }
        self.route_onward(p);
    }

    /// Sends a packet at a node on to the next link of its route, or delivers it at its destination.
    pub(super) fn route_onward(&mut self, p: PacketId) {
        let pkt = self.packets.get(p);
        let route = &self.model.routes[pkt.route as usize];
        match route.get(pkt.hop as usize) {
            Some(&next) => self.enqueue(next, p),
            None => self.deliver(p),
        }
    }

    pub(super) fn queue_timer(&mut self, l: u32) {
        if let Some(t) = self.with_queue(l, self.now, |q, env| q.on_timer(env)) {
            self.events.schedule(t, Event::QueueTimer(l));
        }
    }
}
