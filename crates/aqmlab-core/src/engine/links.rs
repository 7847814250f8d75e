//! Links: queueing, transmission and propagation, and the DelayBoxes at nodes.
//!
//! A link direction transmits one packet at a time; the packet on the wire is not in the queue (ns-2's
//! convention). A packet taken off the queue goes straight into the link's in-flight list (linked
//! through the packets) with its arrival time (end of transmission + propagation); only the list's
//! head has an `Arrival` event. A
//! `TxDone` event is scheduled only when another packet is waiting to follow: when the queue is empty the
//! link just records when the wire becomes free, and the discipline is told the link went idle (a
//! `dequeue` returning `None`, at that time) when the next packet arrives. Most links in a network are
//! uncongested, so this saves an event for most packet forwards. Nodes forward in zero time along the
//! packet's precomputed route.

use super::{Event, Simulation};
use crate::aqm::{QueueAction, QueueDisc, QueueEnv};
use crate::metrics::ClassCounters;
use crate::net::packet::NO_PACKET;
use crate::net::PacketId;
use crate::sim::{time, Time};

impl Simulation<'_> {
    /// The window counters of link `l` for traffic class `class`.
    fn counters(&mut self, l: u32, class: u16) -> &mut ClassCounters {
        &mut self.link_counters[l as usize * self.class_count + class as usize]
    }

    /// Offers a packet to link `l`'s queue and starts transmitting if the wire is free.
    pub(super) fn enqueue(&mut self, l: u32, pkt: PacketId) {
        let (class, size, payload) = {
            let p = self.packets.get(pkt);
            (p.class, p.size, p.payload)
        };
        if self.measuring {
            let c = self.counters(l, class);
            c.arrivals += 1;
            c.arrival_bytes += size as u64;
        }
        if self.links[l as usize].lossy {
            let loss = self.queues[l as usize].loss.as_mut().expect("a lossy link has an error model");
            if loss.lose(payload) {
                if self.measuring {
                    let c = self.counters(l, class);
                    c.drops_error += 1;
                    c.drop_bytes += size as u64;
                }
                self.packets.free(pkt);
                return;
            }
        }
        let link = &mut self.links[l as usize];
        let wire_free = self.now >= link.busy_until && !link.tx_pending;
        // A free wire means an empty queue: `start_tx` keeps a `TxDone` pending while packets wait.
        if wire_free && size <= link.idle_bypass_max_size {
            debug_assert_eq!(self.queues[l as usize].disc.len_packets(), 0);
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
        if wire_free {
            self.start_tx(l);
        } else {
            let link = &mut self.links[l as usize];
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
        let queue = &mut self.queues[l as usize];
        let mut env = QueueEnv {
            now: at,
            link: self.links[l as usize].info,
            packets: &mut self.packets,
            rng: &mut queue.rng,
            actions: &mut self.actions,
        };
        let out = call(queue.disc.as_mut(), &mut env);
        self.settle_actions(l);
        out
    }

    /// Asks link `l`'s discipline for its next packet at time `at`.
    fn dequeue(&mut self, l: u32, at: Time) -> Option<PacketId> {
        self.with_queue(l, at, |q, env| q.dequeue(env))
    }

    /// Puts packet `p` on link `l`'s free wire.
    fn transmit(&mut self, l: u32, p: PacketId) {
        let (class, size) = {
            let pk = self.packets.get(p);
            (pk.class, pk.size)
        };
        if self.measuring {
            let c = self.counters(l, class);
            c.departures += 1;
            c.departure_bytes += size as u64;
        }
        let link = &mut self.links[l as usize];
        link.forwards += 1;
        link.busy_until = self.now + time::tx_time(size, link.info.rate_bps);
        let arrives = link.busy_until + link.info.delay;
        let pk = self.packets.get_mut(p);
        pk.arrives_at = arrives;
        pk.next_on_link = NO_PACKET;
        if link.last_in_flight == NO_PACKET {
            link.first_in_flight = p;
            self.events.schedule(arrives, Event::Arrival(l));
        } else {
            self.packets.get_mut(link.last_in_flight).next_on_link = p;
        }
        link.last_in_flight = p;
    }

    /// The wire is free now: put the next waiting packet on it, if any.
    fn start_tx(&mut self, l: u32) {
        if let Some(p) = self.dequeue(l, self.now) {
            self.transmit(l, p);
            let waiting = self.queues[l as usize].disc.len_packets() > 0;
            let link = &mut self.links[l as usize];
            if waiting {
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
        let mut actions = std::mem::take(&mut self.actions);
        for a in actions.drain(..) {
            match a {
                QueueAction::Dropped(p, reason) => {
                    if self.measuring {
                        let (class, size) = (self.packets.get(p).class, self.packets.get(p).size);
                        self.counters(l, class).count_drop(reason, size);
                    }
                    self.packets.free(p);
                }
                QueueAction::Marked(p) => {
                    if self.measuring {
                        let class = self.packets.get(p).class;
                        self.counters(l, class).marks += 1;
                    }
                }
            }
        }
        self.actions = actions;
    }

    fn record_queue(&mut self, l: u32) {
        let q = &mut self.queues[l as usize];
        q.metrics.q_pkts.set(self.now, q.disc.len_packets() as u64);
        q.metrics.q_bytes.set(self.now, q.disc.len_bytes());
    }

    pub(super) fn tx_done(&mut self, l: u32) {
        self.links[l as usize].tx_pending = false;
        self.start_tx(l);
    }

    pub(super) fn arrival(&mut self, l: u32) {
        let link = &mut self.links[l as usize];
        let p = link.first_in_flight;
        debug_assert_ne!(p, NO_PACKET, "Arrival with nothing in flight");
        let next = self.packets.get(p).next_on_link;
        link.first_in_flight = next;
        if next == NO_PACKET {
            link.last_in_flight = NO_PACKET;
        } else {
            self.events.schedule(self.packets.get(next).arrives_at, Event::Arrival(l));
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
