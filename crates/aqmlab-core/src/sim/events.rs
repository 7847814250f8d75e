//! The event queue: a timing wheel for the near future and a radix heap beyond it, with
//! first-in-first-out order among events scheduled for the same nanosecond.
//!
//! Most events of a network simulation are due within tens of milliseconds: packets reaching the end
//! of a link, transmissions ending. The wheel has `BUCKETS` buckets of `2^BUCKET_BITS` ns, covering
//! the span from the current bucket on; an event due within it goes straight into its bucket, whose
//! list is kept in time order (an event is appended after every event due at or before it, which is
//! nearly always the tail or an empty bucket). Popping takes the head of the first occupied bucket at
//! or after the current one, found with a two-level bitmap: no event ever moves. Events due further
//! ahead (retransmission timers, far starts) go to a [`RadixHeap`]; popping compares the two heads. At
//! equal times the radix heap's event goes first: it was scheduled before the wheel's, since it was
//! further than the span ahead when scheduled and the wheel's was not.

use super::event_pool::{Ends, Pool, NIL};
use super::radix_heap::RadixHeap;
use super::time::Time;

/// log2 of a bucket's width in ns (8.2 µs).
const BUCKET_BITS: u32 = 13;
/// Buckets in the wheel: it spans 67 ms.
const BUCKETS: usize = 1 << 13;
const WORDS: usize = BUCKETS / 64;
const SUMMARY: usize = WORDS / 64;
pub struct EventQueue<E> {
    nodes: Pool<E>,
    buckets: Box<[Ends; BUCKETS]>,
    /// Bit `b % 64` of word `b / 64` set when bucket `b` is non-empty.
    occupied: Box<[u64; WORDS]>,
    /// Bit `w % 64` of word `w / 64` set when `occupied[w]` is non-zero.
    summary: [u64; SUMMARY],
    /// Events due beyond the wheel's span when they were scheduled.
    far: RadixHeap<E>,
    /// When `far`'s earliest event is due (`Time::MAX` when it is empty).
    far_next: Time,
    last: Time,
    len: usize,
}

impl<E: Copy> Default for EventQueue<E> {
    fn default() -> Self {
        EventQueue {
            nodes: Pool::default(),
            buckets: Box::new([Ends::EMPTY; BUCKETS]),
            occupied: Box::new([0; WORDS]),
            summary: [0; SUMMARY],
            far: RadixHeap::default(),
            far_next: Time::MAX,
            last: 0,
            len: 0,
        }
    }
}

fn bucket_of(at: Time) -> usize {
    (at >> BUCKET_BITS) as usize & (BUCKETS - 1)
}

impl<E: Copy> EventQueue<E> {
    /// Schedules `event` at `at`, which must not be earlier than the last popped time.
    #[inline]
    pub fn schedule(&mut self, at: Time, event: E) {
        assert!(at >= self.last, "event scheduled in the past ({at} < {})", self.last);
        self.len += 1;
        if (at >> BUCKET_BITS) - (self.last >> BUCKET_BITS) >= BUCKETS as Time {
            self.schedule_far(at, event);
            return;
        }
        let n = self.nodes.alloc(at, event);
        let b = bucket_of(at);
        if self.buckets[b].first == NIL {
            self.buckets[b] = Ends { first: n, last: n };
            self.occupied[b / 64] |= 1 << (b % 64);
            self.summary[b / 4096] |= 1 << (b / 64 % 64);
        } else {
            self.insert(b, n, at);
        }
    }

    /// An event due beyond the wheel's span waits in the radix heap.
    #[inline(never)]
    fn schedule_far(&mut self, at: Time, event: E) {
        self.far.schedule(at, event);
        self.far_next = self.far_next.min(at);
    }

    /// Links node `n`, due at `at`, into non-empty bucket `b` after every node due at or before it.
    #[inline(never)]
    fn insert(&mut self, b: usize, n: u32, at: Time) {
        let ends = self.buckets[b];
        if self.nodes[ends.last].at <= at {
            self.nodes[ends.last].next = n;
            self.buckets[b].last = n;
        } else if at < self.nodes[ends.first].at {
            self.nodes[n].next = ends.first;
            self.buckets[b].first = n;
        } else {
            let mut prev = ends.first;
            while self.nodes[self.nodes[prev].next].at <= at {
                prev = self.nodes[prev].next;
            }
            self.nodes[n].next = self.nodes[prev].next;
            self.nodes[prev].next = n;
        }
    }

    /// The first occupied bucket at or after bucket `from` (below `BUCKETS`), not wrapping around.
    #[inline(always)]
    fn occupied_from(&self, from: usize) -> Option<usize> {
        let w = from / 64 % WORDS;
        let bits = self.occupied[w] & (!0 << (from % 64));
        if bits != 0 {
            return Some(w * 64 + bits.trailing_zeros() as usize);
        }
        self.occupied_after_word(w)
    }

    /// The first occupied bucket in a word after word `w`, found through the summary.
    #[inline(never)]
    fn occupied_after_word(&self, w: usize) -> Option<usize> {
        let next = w + 1;
        let mut s = next / 64;
        if s >= SUMMARY {
            return None;
        }
        let mut words = self.summary[s] & (!0 << (next % 64));
        loop {
            if words != 0 {
                let w = s * 64 + words.trailing_zeros() as usize;
                return Some(w * 64 + self.occupied[w].trailing_zeros() as usize);
            }
            s += 1;
            if s == SUMMARY {
                return None;
            }
            words = self.summary[s];
        }
    }

    /// The wheel's first occupied bucket in time order (from the current bucket on, wrapping).
    fn first_bucket(&self) -> Option<usize> {
        let current = bucket_of(self.last);
        self.occupied_from(current).or_else(|| self.occupied_from(0).filter(|&b| b < current))
    }

    /// Removes and returns the earliest event (the earliest scheduled among equal times).
    pub fn pop(&mut self) -> Option<(Time, E)> {
        self.pop_until(Time::MAX)
    }

    /// Removes and returns the earliest event if it is due at or before `limit`.
    #[inline]
    pub fn pop_until(&mut self, limit: Time) -> Option<(Time, E)> {
        let Some(b) = self.first_bucket() else { return self.pop_far(limit) };
        let n = self.buckets[b].first;
        let node = self.nodes[n];
        if self.far_next <= node.at {
            return self.pop_far(limit);
        }
        if node.at > limit {
            return None;
        }
        self.len -= 1;
        self.last = node.at;
        self.buckets[b].first = node.next;
        if node.next == NIL {
            self.occupied[b / 64] &= !(1 << (b % 64));
            if self.occupied[b / 64] == 0 {
                self.summary[b / 4096] &= !(1 << (b / 64 % 64));
            }
        }
        self.nodes.release(n);
        Some((node.at, node.event))
    }

    /// Pops the far heap's earliest event if it is due by `limit` (it is due no later than the
    /// wheel's, and goes first at equal times), if the heap holds any.
    #[inline(never)]
    fn pop_far(&mut self, limit: Time) -> Option<(Time, E)> {
        if self.far_next > limit || self.far_next == Time::MAX {
            return None;
        }
        let item = self.far.pop().expect("far_next is due");
        self.far_next = self.far.peek_time().unwrap_or(Time::MAX);
        self.len -= 1;
        self.last = item.0;
        Some(item)
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

#[cfg(test)]
mod tests {
    use super::super::event_pool::check::{self, TimeQueue};
    use super::*;

    impl TimeQueue for EventQueue<u64> {
        fn schedule(&mut self, at: Time, seq: u64) {
            EventQueue::schedule(self, at, seq);
        }
        fn pop(&mut self) -> Option<(Time, u64)> {
            EventQueue::pop(self)
        }
    }

    #[test]
    fn pops_in_time_order_and_breaks_ties_by_insertion() {
        check::small_example(&mut EventQueue::default());
    }

    #[test]
    fn matches_a_heap_on_time_and_sequence_under_random_use() {
        // Delays reach far beyond the wheel; on the 1 ms grid, events in the wheel and in the radix
        // heap tie.
        for (seed, grid) in [(7, false), (8, true)] {
            let mut q = EventQueue::default();
            check::matches_a_heap(&mut q, seed, grid, 200_000);
            assert!(q.is_empty());
        }
    }
}
