//! Links: queueing, transmission and propagation, and the DelayBoxes at nodes.
//!
//! A link direction transmits one packet at a time; the packet on the wire is not in the queue (ns-2's
//! convention). A packet taken off the queue goes into the link's in-flight list (linked through the
//! packets, each holding its successor's arrival time: end of transmission + propagation); only the
//! list's head has an `Arrival` event. Nodes forward in zero time along the packet's precomputed route.
//!
//! Most disciplines send every accepted packet, in arrival order (`departs_in_arrival_order`). A
//! link with such a discipline fixes a packet's transmission start when the discipline accepts it
//! (each starts when the one before it ends) and puts it straight into the in-flight list, behind the
//! packets already waiting. Which packets still wait at time t is worked out lazily ("catching up")
//! whenever the link is looked at: every transmission that started by t is taken from the discipline
//! (its `dequeue` called at the start time) and counted, in order. Drop-tail goes further: its queue
//! is only a buffer limit (`plain_fifo`), so the link runs it without calling the discipline at all.
//! Such links need no `TxDone` events.
//!
//! Other links (CoDel, FQ-CoDel: they drop or reorder at dequeue) ask their discipline for the next
//! packet when the wire becomes free. That too is done lazily, by catching up: with packets waiting,
//! the link marks a start as due at `busy_until` (`tx_pending`) and the next look at the link starts
//! it, at that time. The packet on the wire guarantees such a look in time: its own `Arrival` (at
//! `busy_until` plus the propagation delay) catches the link up before it is handled, and the packet
//! started then goes in flight behind it, as it would have at `busy_until`. Only a captured link
//! schedules a `TxDone` event for the start (its capture records read the flow's state, which may
//! change in between).
//!
//! Either way, a discipline is told the link went idle (a `dequeue` returning `None`, at the instant
//! the wire became free) when the next packet arrives.

use super::{Departures, Event, Link, LinkQueue, Simulation, Traffic};
use crate::aqm::{DropReason, FifoBuffer, QueueAction, QueueDisc, QueueEnv};
use crate::metrics::ClassCounters;
use crate::net::packet::NO_PACKET;
use crate::net::routing::ROUTE_END;
use crate::net::PacketId;
use crate::sim::{time, Time};

/// Waiting packets and bytes of a link's queue (where departures are fixed at acceptance, as of the
/// link's last catch-up).
pub(super) fn queue_len(link: &Link, queue: &LinkQueue) -> (u64, u64) {
    if link.fixes_departures() {
        (link.waiting as u64, link.waiting_bytes)
    } else {
        (queue.disc.len_packets() as u64, queue.disc.len_bytes())
    }
}

impl Simulation<'_> {
    /// The window's drop and mark counters of link `l` for traffic class `class`.
    fn counters(&mut self, l: u32, class: u16) -> &mut ClassCounters {
        &mut self.link_counters[l as usize * self.class_count + class as usize]
    }

    /// The window's arrival and departure counters of link `l` for traffic class `class`.
    fn traffic(&mut self, l: u32, class: u16) -> &mut Traffic {
        &mut self.link_traffic[l as usize * self.class_count + class as usize]
    }

    /// Offers a packet to link `l`'s queue and starts transmitting if the wire is free.
    pub(super) fn enqueue(&mut self, l: u32, pkt: PacketId) {
        let (class, size, payload) = {
            let p = self.packets.get_mut(pkt);
            // The packet's queueing delay here counts from now (the disciplines stamp the same time).
            p.enqueued_at = self.now;
            (p.class, p.size, p.payload())
        };
        if self.measuring {
            let c = self.traffic(l, class);
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
        self.catch_up(l, self.now);
        if let Some(buffer) = self.links[l as usize].fifo() {
            self.enqueue_fifo(l, buffer, pkt, class, size);
            return;
        }
        let link = &mut self.links[l as usize];
        let wire_free = self.now >= link.busy_until && !link.tx_pending;
        if wire_free && link.idle_unreported {
            // The link went idle at `busy_until`: let the discipline see that instant first.
            link.idle_unreported = false;
            let at = link.busy_until;
            let idle = self.dequeue(l, at);
            debug_assert!(idle.is_none(), "a packet waited while the link was idle");
        }
        if self.links[l as usize].departures == Departures::InOrder {
            self.enqueue_ordered(l, pkt, size);
            return;
        }
        self.with_queue(l, self.now, |q, env| q.enqueue(pkt, env));
        if wire_free {
            self.start_tx(l, self.now);
        } else {
            if !self.links[l as usize].tx_pending {
                self.pend_start(l);
            }
            self.record_queue(l, self.now);
        }
    }

    /// A link whose discipline sends in arrival order offers it the packet and, if it is accepted,
    /// fixes its transmission start (taken from the discipline then, by `catch_up`).
    fn enqueue_ordered(&mut self, l: u32, pkt: PacketId, size: u32) {
        let accepted = self.with_queue(l, self.now, |q, env| {
            q.enqueue(pkt, env);
            !env.actions.iter().any(|a| matches!(*a, QueueAction::Dropped(p, _) if p == pkt))
        });
        if accepted {
            self.fix_departure(l, pkt, size);
            // A packet due now leaves the discipline at once.
            self.catch_up(l, self.now);
        }
        self.record_queue(l, self.now);
    }

    /// A plain-FIFO link accepts or drops an arrival and gives an accepted packet its transmission.
    fn enqueue_fifo(&mut self, l: u32, buffer: FifoBuffer, pkt: PacketId, class: u16, size: u32) {
        let link = &self.links[l as usize];
        if buffer.overflows(link.waiting as u64, link.waiting_bytes, size) {
            if self.measuring {
                self.counters(l, class).count_drop(DropReason::Overflow, size);
            }
            self.packets.free(pkt);
            return;
        }
        if self.fix_departure(l, pkt, size) {
            self.record_queue(l, self.now);
        } else {
            self.count_departure(l, pkt, class, size, self.now, 0);
        }
    }

    /// Gives a packet link `l` accepted its transmission start (when the packets before it are sent)
    /// and puts it in flight. It then waits, counted in `waiting`, until `catch_up` reaches its start;
    /// only a packet that starts now on a plain-FIFO link departs at once. Returns whether it waits.
    fn fix_departure(&mut self, l: u32, pkt: PacketId, size: u32) -> bool {
        let tx = self.tx_time(l, size);
        let link = &mut self.links[l as usize];
        let start = self.now.max(link.busy_until);
        link.busy_until = start + tx;
        let arrives = link.busy_until + link.delay;
        // An in-order discipline holds even a packet that starts now, until `catch_up` takes it.
        let waits = start > self.now || link.departures == Departures::InOrder;
        if waits {
            link.waiting += 1;
            link.waiting_bytes += size as u64;
            if link.first_waiting == NO_PACKET {
                link.first_waiting = pkt;
                link.first_waiting_start = start;
            }
        }
        self.put_in_flight(l, pkt, arrives);
        waits
    }

    /// Brings link `l` up to time `t` (at most now) before anything looks at its queue: a transmission
    /// start due by then comes first. A link that fixes departures at acceptance takes every packet
    /// whose transmission started by `t` off its queue, each at its own start time. Another link asks
    /// its discipline for the next packet at each start due by `t`, each at its own time. So at equal
    /// times every link lets the wire take the next packet before an arrival, a sample or a periodic
    /// update sees the queue.
    #[inline]
    pub(super) fn catch_up(&mut self, l: u32, t: Time) {
        // Only links that fix departures at acceptance have waiting packets, only others pending starts.
        let link = &self.links[l as usize];
        if link.first_waiting != NO_PACKET && link.first_waiting_start <= t {
            self.catch_up_departures(l, t);
        } else if link.tx_pending && link.busy_until <= t {
            self.catch_up_starts(l, t);
        }
    }

    /// Makes every transmission start of link `l` (which asks its discipline on demand) due by `t`.
    #[inline(never)]
    fn catch_up_starts(&mut self, l: u32, t: Time) {
        while self.links[l as usize].tx_pending && self.links[l as usize].busy_until <= t {
            let link = &mut self.links[l as usize];
            link.tx_pending = false;
            let at = link.busy_until;
            self.start_tx(l, at);
        }
    }

    #[inline(never)]
    fn catch_up_departures(&mut self, l: u32, t: Time) {
        loop {
            let link = &self.links[l as usize];
            let (p, start) = (link.first_waiting, link.first_waiting_start);
            if p == NO_PACKET || start > t {
                return;
            }
            let pk = self.packets.get(p);
            let (class, size, next, queued) = (pk.class, pk.size, pk.next_on_link, pk.enqueued_at);
            let tx = self.tx_time(l, size);
            let link = &mut self.links[l as usize];
            // A waiting packet starts when the one before it ends.
            link.first_waiting_start = start + tx;
            link.first_waiting = next;
            link.waiting -= 1;
            link.waiting_bytes -= size as u64;
            if link.departures == Departures::InOrder {
                let sent = self.dequeue(l, start);
                debug_assert_eq!(sent, Some(p), "an in-order discipline sent another packet");
                let (link, disc) = (&mut self.links[l as usize], &self.queues[l as usize].disc);
                debug_assert_eq!(
                    (disc.len_packets() as u32, disc.len_bytes()),
                    (link.waiting, link.waiting_bytes)
                );
                if link.waiting == 0 {
                    link.idle_unreported = true;
                }
            }
            self.record_queue(l, start);
            self.count_departure(l, p, class, size, start, start - queued);
        }
    }

    /// Catches every link up to now.
    pub(super) fn catch_up_all(&mut self) {
        for l in 0..self.links.len() as u32 {
            self.catch_up(l, self.now);
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
            link: self.model.links[l as usize].info,
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

    /// Appends packet `p`, reaching the far end at `arrives`, to link `l`'s in-flight list.
    fn put_in_flight(&mut self, l: u32, p: PacketId, arrives: Time) {
        let link = &mut self.links[l as usize];
        self.packets.get_mut(p).next_on_link = NO_PACKET;
        if link.last_in_flight == NO_PACKET {
            link.first_in_flight = p;
            self.events.schedule(arrives, Event::Arrival(l));
        } else {
            let last = self.packets.get_mut(link.last_in_flight);
            last.next_on_link = p;
            last.next_arrives = arrives;
        }
        link.last_in_flight = p;
    }

    /// Packet `p`, of `class` and `size` bytes, starts its transmission on link `l` at `at` after
    /// waiting `wait`.
    fn count_departure(&mut self, l: u32, p: PacketId, class: u16, size: u32, at: Time, wait: Time) {
        self.forwards += 1;
        let queue = &mut self.queues[l as usize];
        queue.sojourn.add(wait, self.measuring);
        if self.measuring {
            let capture = queue.pcap;
            let c = self.traffic(l, class);
            c.departures += 1;
            c.departure_bytes += size as u64;
            // Captured exactly as counted: every departure in the window.
            if capture != super::pcap::NO_CAPTURE {
                self.capture(capture, l, p, at);
            }
        }
    }

    /// The wire became free at `at` (now, or a start `catch_up` makes): put the next waiting packet on
    /// it, if any.
    fn start_tx(&mut self, l: u32, at: Time) {
        let Some(p) = self.dequeue(l, at) else {
            self.record_queue(l, at);
            return;
        };
        let pk = self.packets.get(p);
        let (class, size, queued) = (pk.class, pk.size, pk.enqueued_at);
        self.count_departure(l, p, class, size, at, at - queued);
        let tx = self.tx_time(l, size);
        let link = &mut self.links[l as usize];
        link.busy_until = at + tx;
        let arrives = link.busy_until + link.delay;
        self.put_in_flight(l, p, arrives);
        // The queue's length in packets, asked once for both uses; its bytes only when recorded.
        let q = &mut self.queues[l as usize];
        let packets = q.disc.len_packets() as u64;
        if self.measuring {
            let bytes = q.disc.len_bytes();
            q.length.set(at, [packets, bytes]);
        }
        if packets > 0 {
            self.pend_start(l);
        } else {
            self.links[l as usize].idle_unreported = true;
        }
    }

    /// Link `l`'s wire is busy until `busy_until` and a packet waits: the next start is due then.
    /// `catch_up` makes it; a captured link also gets a `TxDone` event for it (see the module notes).
    fn pend_start(&mut self, l: u32) {
        let link = &mut self.links[l as usize];
        link.tx_pending = true;
        if self.queues[l as usize].pcap != super::pcap::NO_CAPTURE {
            self.events.schedule(link.busy_until, Event::TxDone(l));
        }
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

    /// Reports link `l`'s queue length at time `at` to its time-weighted statistics (in the window:
    /// the end of the warm-up sets them afresh).
    fn record_queue(&mut self, l: u32, at: Time) {
        if !self.measuring {
            return;
        }
        let q = &mut self.queues[l as usize];
        let (packets, bytes) = queue_len(&self.links[l as usize], q);
        q.length.set(at, [packets, bytes]);
    }

    /// The wire of captured link `l` became free with packets waiting, unless `catch_up` already
    /// started the next one (the event is then stale).
    pub(super) fn tx_done(&mut self, l: u32) {
        let link = &self.links[l as usize];
        if link.tx_pending && link.busy_until == self.now {
            self.catch_up(l, self.now);
        }
    }

    pub(super) fn arrival(&mut self, l: u32) {
        // The arriving packet's transmission has started; a plain-FIFO link counts it first.
        self.catch_up(l, self.now);
        let link = &mut self.links[l as usize];
        let p = link.first_in_flight;
        debug_assert_ne!(p, NO_PACKET, "Arrival with nothing in flight");
        let pk = self.packets.get(p);
        link.first_in_flight = pk.next_on_link;
        if pk.next_on_link == NO_PACKET {
            link.last_in_flight = NO_PACKET;
        } else {
            self.events.schedule(pk.next_arrives, Event::Arrival(l));
        }
        self.forward(p, l);
    }

    /// A packet reached the far end of link `l`: a DelayBox there may hold it; otherwise it goes on.
    fn forward(&mut self, p: PacketId, l: u32) {
        let pkt = self.packets.get_mut(p);
        pkt.next_hop += 1;
        if !self.delayboxes.is_empty() {
            let node = self.model.links[l as usize].to;
            if self.delay_nodes[node as usize] {
                if let Some(d) = self.flows[pkt.flow as usize].delay_at(node, pkt.from_responder()) {
                    self.events.schedule(self.now + d, Event::Release(p));
                    return;
                }
            }
        }
        self.route_onward(p);
    }

    /// How long link `l` takes to send `bytes`.
    #[inline]
    fn tx_time(&self, l: u32, bytes: u32) -> Time {
        match self.links[l as usize].ns_per_byte {
            0 => time::tx_time(bytes, self.model.links[l as usize].info.rate_bps),
            ns => bytes as u64 * ns as u64,
        }
    }

    /// Sends a packet at a node on to the next link of its route, or delivers it at its destination.
    pub(super) fn route_onward(&mut self, p: PacketId) {
        match self.model.routes[self.packets.get(p).next_hop as usize] {
            ROUTE_END => self.deliver(p),
            next => self.enqueue(next, p),
        }
    }

    pub(super) fn queue_timer(&mut self, l: u32) {
        self.catch_up(l, self.now);
        if let Some(t) = self.with_queue(l, self.now, |q, env| q.on_timer(env)) {
            self.events.schedule(t, Event::QueueTimer(l));
        }
    }
}
