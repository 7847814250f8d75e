//! A radix heap with 6-bit digits keyed by integer time, with first-in-first-out order among events
//! scheduled for the same nanosecond: the event queue's store for events beyond its wheel.
//!
//! Simulated time never goes backwards, so the queue only ever pops keys at or after the last one it
//! popped (`last`). An event's key is compared with `last` digit by digit (6 bits each, most significant
//! first): it goes to level `d`, the highest digit where the two differ, in slot `digit_d(key)`, at the
//! back of that slot's list. The earliest event is in the lowest occupied slot of the lowest occupied
//! level, found with two bit scans (one 64-bit occupancy word per level). That slot is popped from
//! directly when it holds one event, or when it is at level 0 (whose slots each hold a single time);
//! otherwise its events are first spread over lower levels around their minimum key. Moves keep list
//! order and equal keys always share a slot, so events with the same time come out in the order they
//! were scheduled — the same order as a heap on (time, sequence number).
//!
//! Popping sets `last` to the popped key. That keeps every other event where it belongs: they all share
//! the popped key's digits above their level and have a larger digit at it. Most events in a network
//! simulation are alone in their slot when they come due, so most move once or not at all. Events live
//! in one pool, linked into their slot's list, so the queue is a few small arrays.

use super::event_pool::{Ends, Pool, NIL};
use super::time::Time;

const DIGIT_BITS: u32 = 6;
const SLOTS: usize = 1 << DIGIT_BITS;
const LEVELS: usize = Time::BITS.div_ceil(DIGIT_BITS) as usize;

pub struct RadixHeap<E> {
    nodes: Pool<E>,
    /// Indexed `level * SLOTS + digit`.
    slots: Box<[Ends]>,
    /// The least key in each slot (meaningful while the slot is non-empty), so that the earliest
    /// time is known without walking a slot: a slot only ever gains events, or is emptied by a
    /// spread, or (at level 0, where all keys are equal, or when it holds one event) is popped from.
    slot_min: Box<[Time]>,
    /// Per level, bit `s` set when slot `s` is non-empty.
    occupied: [u64; LEVELS],
    /// Bit `d` set when level `d` has an occupied slot.
    levels: u16,
    last: Time,
}

impl<E: Copy> Default for RadixHeap<E> {
    fn default() -> Self {
        RadixHeap {
            nodes: Pool::default(),
            slots: vec![Ends::EMPTY; LEVELS * SLOTS].into(),
            slot_min: vec![Time::MAX; LEVELS * SLOTS].into(),
            occupied: [0; LEVELS],
            levels: 0,
            last: 0,
        }
    }
}

/// The (level, digit) slot of `key` relative to `last`.
#[inline]
fn slot_of(key: Time, last: Time) -> (usize, usize) {
    let level = (Time::BITS - 1 - (key ^ last | 1).leading_zeros()) / DIGIT_BITS;
    let digit = (key >> (level * DIGIT_BITS)) as usize & (SLOTS - 1);
    (level as usize, digit)
}

impl<E: Copy> RadixHeap<E> {
    /// Schedules `event` at `at`, which must not be earlier than the last popped time.
    pub fn schedule(&mut self, at: Time, event: E) {
        assert!(at >= self.last, "event scheduled in the past ({at} < {})", self.last);
        let n = self.nodes.alloc(at, event);
        self.append(slot_of(at, self.last), n, at);
    }

    /// Links node `n` (whose `next` is `NIL`, due at `at`) at the back of slot (`level`, `digit`).
    #[inline]
    fn append(&mut self, (level, digit): (usize, usize), n: u32, at: Time) {
        let s = level * SLOTS + digit;
        let ends = &mut self.slots[s];
        if ends.first == NIL {
            ends.first = n;
            self.slot_min[s] = at;
            self.occupied[level] |= 1 << digit;
            self.levels |= 1 << level;
        } else {
            self.nodes[ends.last].next = n;
            self.slot_min[s] = self.slot_min[s].min(at);
        }
        ends.last = n;
    }

    #[inline]
    fn mark_empty(&mut self, level: usize, digit: usize) {
        self.occupied[level] &= !(1 << digit);
        if self.occupied[level] == 0 {
            self.levels &= !(1 << level);
        }
    }

    /// The slot holding the earliest event, ready to pop from.
    #[inline]
    fn front(&mut self) -> Option<(usize, usize)> {
        loop {
            if self.levels == 0 {
                return None;
            }
            let level = self.levels.trailing_zeros() as usize;
            let digit = self.occupied[level].trailing_zeros() as usize;
            let first = self.slots[level * SLOTS + digit].first;
            if level == 0 || self.nodes[first].next == NIL {
                return Some((level, digit));
            }
            self.spread(level, digit);
        }
    }

    /// Moves the events of slot (`level`, `digit`) to lower levels, around their minimum key.
    #[inline(never)]
    fn spread(&mut self, level: usize, digit: usize) {
        let first = std::mem::replace(&mut self.slots[level * SLOTS + digit].first, NIL);
        self.mark_empty(level, digit);
        let min = self.slot_min[level * SLOTS + digit];
        self.last = min;
        let mut n = first;
        while n != NIL {
            let node = &mut self.nodes[n];
            let (next, at) = (node.next, node.at);
            node.next = NIL;
            let to = slot_of(at, min);
            debug_assert!(to.0 < level);
            self.append(to, n, at);
            n = next;
        }
    }

    /// Removes and returns the earliest event (the earliest scheduled among equal times).
    pub fn pop(&mut self) -> Option<(Time, E)> {
        self.pop_until(Time::MAX)
    }

    /// Removes and returns the earliest event if it is due at or before `limit`.
    #[inline]
    pub fn pop_until(&mut self, limit: Time) -> Option<(Time, E)> {
        let (level, digit) = self.front()?;
        let ends = &mut self.slots[level * SLOTS + digit];
        let n = ends.first;
        let node = self.nodes[n];
        if node.at > limit {
            return None;
        }
        ends.first = node.next;
        if node.next == NIL {
            self.mark_empty(level, digit);
        }
        self.nodes.release(n);
        self.last = node.at;
        Some((node.at, node.event))
    }

    /// Time of the earliest event: the least key in the lowest occupied slot. Unlike popping, this
    /// moves nothing, so `last` stays put and any key not before it may still be scheduled.
    pub fn peek_time(&self) -> Option<Time> {
        if self.levels == 0 {
            return None;
        }
        let level = self.levels.trailing_zeros() as usize;
        let digit = self.occupied[level].trailing_zeros() as usize;
        Some(self.slot_min[level * SLOTS + digit])
    }
}

#[cfg(test)]
mod tests {
    use super::super::event_pool::check::{self, TimeQueue};
    use super::*;

    impl TimeQueue for RadixHeap<u64> {
        fn schedule(&mut self, at: Time, seq: u64) {
            RadixHeap::schedule(self, at, seq);
        }
        /// Pops, checking first that `peek_time` foretells the popped time.
        fn pop(&mut self) -> Option<(Time, u64)> {
            let foretold = self.peek_time();
            let popped = RadixHeap::pop(self);
            assert_eq!(foretold, popped.map(|(t, _)| t));
            popped
        }
    }

    #[test]
    fn pops_in_time_order_and_breaks_ties_by_insertion() {
        check::small_example(&mut RadixHeap::default());
    }

    #[test]
    fn matches_a_heap_on_time_and_sequence_under_random_use() {
        check::matches_a_heap(&mut RadixHeap::default(), 7, false, 100_000);
    }
}
