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

use super::radix_heap::RadixHeap;
use super::time::Time;

/// log2 of a bucket's width in ns (8.2 µs).
const BUCKET_BITS: u32 = 13;
/// Buckets in the wheel: it spans 67 ms.
const BUCKETS: usize = 1 << 13;
const WORDS: usize = BUCKETS / 64;
const SUMMARY: usize = WORDS / 64;
/// End of a list.
const NIL: u32 = u32::MAX;

#[derive(Clone, Copy)]
struct Node<E> {
    at: Time,
    event: E,
    /// The next node in the same bucket, or in the free list.
    next: u32,
}

/// First and last node of a bucket's list (`first` is `NIL` when the bucket is empty).
#[derive(Clone, Copy)]
struct Ends {
    first: u32,
    last: u32,
}

pub struct EventQueue<E> {
    nodes: Vec<Node<E>>,
    free: u32,
    buckets: Box<[Ends]>,
    /// Bit `b % 64` of word `b / 64` set when bucket `b` is non-empty.
    occupied: Box<[u64]>,
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
            nodes: Vec::new(),
            free: NIL,
            buckets: vec![Ends { first: NIL, last: NIL }; BUCKETS].into(),
            occupied: vec![0; WORDS].into(),
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
    pub fn schedule(&mut self, at: Time, event: E) {
        assert!(at >= self.last, "event scheduled in the past ({at} < {})", self.last);
        self.len += 1;
        if (at >> BUCKET_BITS) - (self.last >> BUCKET_BITS) >= BUCKETS as Time {
            self.far.schedule(at, event);
            self.far_next = self.far_next.min(at);
            return;
        }
        let node = Node { at, event, next: NIL };
        let n = if self.free == NIL {
            self.nodes.push(node);
            (self.nodes.len() - 1) as u32
        } else {
            let n = self.free;
            self.free = self.nodes[n as usize].next;
            self.nodes[n as usize] = node;
            n
        };
        let b = bucket_of(at);
        let ends = self.buckets[b];
        if ends.first == NIL {
            self.buckets[b] = Ends { first: n, last: n };
            self.occupied[b / 64] |= 1 << (b % 64);
            self.summary[b / 4096] |= 1 << (b / 64 % 64);
        } else if self.nodes[ends.last as usize].at <= at {
            self.nodes[ends.last as usize].next = n;
            self.buckets[b].last = n;
        } else if at < self.nodes[ends.first as usize].at {
            self.nodes[n as usize].next = ends.first;
            self.buckets[b].first = n;
        } else {
            // After the last node due at or before `at`.
            let mut prev = ends.first;
            while self.nodes[self.nodes[prev as usize].next as usize].at <= at {
                prev = self.nodes[prev as usize].next;
            }
            self.nodes[n as usize].next = self.nodes[prev as usize].next;
            self.nodes[prev as usize].next = n;
        }
    }

    /// The first occupied bucket at or after bucket `from`, not wrapping around.
    fn occupied_from(&self, from: usize) -> Option<usize> {
        let w = from / 64;
        let bits = self.occupied[w] & (!0 << (from % 64));
        if bits != 0 {
            return Some(w * 64 + bits.trailing_zeros() as usize);
        }
        // The next non-empty word after `w`, through the summary.
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
        let bucket = self.first_bucket();
        let wheel_next = bucket.map_or(Time::MAX, |b| self.nodes[self.buckets[b].first as usize].at);
        let next = wheel_next.min(self.far_next);
        if next > limit || (bucket.is_none() && self.far_next == Time::MAX) {
            return None;
        }
        self.len -= 1;
        self.last = next;
        if self.far_next <= wheel_next {
            let item = self.far.pop().expect("far_next is due");
            self.far_next = self.far.peek_time().unwrap_or(Time::MAX);
            return Some(item);
        }
        let b = bucket.expect("the wheel's event is due");
        let n = self.buckets[b].first;
        let node = self.nodes[n as usize];
        self.buckets[b].first = node.next;
        if node.next == NIL {
            self.occupied[b / 64] &= !(1 << (b % 64));
            if self.occupied[b / 64] == 0 {
                self.summary[b / 4096] &= !(1 << (b / 64 % 64));
            }
        }
        self.nodes[n as usize].next = self.free;
        self.free = n;
        Some((node.at, node.event))
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
    use super::*;
    use rand::{Rng, SeedableRng};
    use std::collections::BinaryHeap;

    #[test]
    fn pops_in_time_order_and_breaks_ties_by_insertion() {
        let mut q = EventQueue::default();
        q.schedule(30, 'c');
        q.schedule(10, 'a');
        q.schedule(30, 'd');
        q.schedule(20, 'b');
        q.schedule(10, 'e');
        let order: Vec<_> = std::iter::from_fn(|| q.pop()).collect();
        assert_eq!(order, vec![(10, 'a'), (10, 'e'), (20, 'b'), (30, 'c'), (30, 'd')]);
    }

    #[test]
    fn matches_a_heap_on_time_and_sequence_under_random_use() {
        // Interleaved pushes (never in the past) and pops, many equal times: the order must equal a
        // binary heap ordered by (time, insertion sequence). Delays range from 0 to far beyond the
        // wheel; with `grid`, due times fall on multiples of 1 ms, so that events scheduled at
        // different times (some into the wheel, some beyond it) tie, and buckets hold several events.
        for (seed, grid) in [(7, false), (8, true)] {
            let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(seed);
            let mut q = EventQueue::default();
            let mut reference = BinaryHeap::new();
            let (mut now, mut seq) = (0u64, 0u64);
            for _ in 0..200_000 {
                if rng.gen_bool(0.55) || reference.is_empty() {
                    let span = 1u64 << rng.gen_range(1..40);
                    let mut at = now + if rng.gen_bool(0.3) { 0 } else { rng.gen_range(0..span) };
                    if grid {
                        at = at.next_multiple_of(1_000_000);
                    }
                    q.schedule(at, seq);
                    reference.push(std::cmp::Reverse((at, seq)));
                    seq += 1;
                } else {
                    let std::cmp::Reverse((t, s)) = reference.pop().unwrap();
                    assert_eq!(q.pop(), Some((t, s)));
                    now = t;
                }
                assert_eq!(q.len(), reference.len());
            }
            while let Some(std::cmp::Reverse(item)) = reference.pop() {
                assert_eq!(q.pop(), Some(item));
            }
            assert!(q.is_empty());
        }
    }
}
