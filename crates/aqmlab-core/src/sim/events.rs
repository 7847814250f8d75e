//! The event queue: a radix heap keyed by integer time, with first-in-first-out order among events
//! scheduled for the same nanosecond.
//!
//! Simulated time never goes backwards, so the queue only ever pops keys at or after the last one it
//! popped (`last`). An event goes into bucket `b = bits(key XOR last)`: bucket 0 holds events due
//! exactly at `last`, bucket b > 0 those whose key first differs from `last` at bit b − 1. Popping takes
//! bucket 0 in order; when it is empty, the lowest non-empty bucket is emptied into lower buckets around
//! its minimum. Moves are stable and equal keys always share a bucket, so events with the same time come
//! out in the order they were scheduled — the same order as a heap on (time, sequence number), at O(1)
//! per push and amortised O(log range) per pop. This is the hottest structure in the simulator.

use super::time::Time;

pub struct EventQueue<E> {
    buckets: Vec<Vec<(Time, E)>>,
    /// Next unread position in bucket 0 (popped from the front without shifting).
    head: usize,
    /// Bit b set when bucket b is non-empty (bucket 0 counts only unread entries).
    occupied: u128,
    last: Time,
    len: usize,
}

impl<E: Copy> Default for EventQueue<E> {
    fn default() -> Self {
        EventQueue { buckets: (0..65).map(|_| Vec::new()).collect(), head: 0, occupied: 0, last: 0, len: 0 }
    }
}

fn bucket_of(key: Time, last: Time) -> usize {
    (64 - (key ^ last).leading_zeros()) as usize
}

impl<E: Copy> EventQueue<E> {
    /// Schedules `event` at `at`, which must not be earlier than the last popped time.
    pub fn schedule(&mut self, at: Time, event: E) {
        assert!(at >= self.last, "event scheduled in the past ({at} < {})", self.last);
        let b = bucket_of(at, self.last);
        self.buckets[b].push((at, event));
        self.occupied |= 1 << b;
        self.len += 1;
    }

    /// Removes and returns the earliest event (the earliest scheduled among equal times).
    pub fn pop(&mut self) -> Option<(Time, E)> {
        if self.occupied & 1 == 0 {
            self.refill()?;
        }
        let b0 = &mut self.buckets[0];
        let item = b0[self.head];
        self.head += 1;
        if self.head == b0.len() {
            b0.clear();
            self.head = 0;
            self.occupied &= !1;
        }
        self.len -= 1;
        Some(item)
    }

    /// Moves the lowest non-empty bucket's events down around its minimum key.
    fn refill(&mut self) -> Option<()> {
        if self.occupied == 0 {
            return None;
        }
        let b = self.occupied.trailing_zeros() as usize;
        let items = std::mem::take(&mut self.buckets[b]);
        self.occupied &= !(1 << b);
        self.last = items.iter().map(|&(t, _)| t).min().expect("occupied bucket is non-empty");
        for &(t, e) in &items {
            let nb = bucket_of(t, self.last);
            debug_assert!(nb < b);
            self.buckets[nb].push((t, e));
            self.occupied |= 1 << nb;
        }
        // Give the emptied vector's allocation back to the bucket for reuse.
        let mut items = items;
        items.clear();
        self.buckets[b] = items;
        Some(())
    }

    /// Time of the earliest event.
    pub fn peek_time(&mut self) -> Option<Time> {
        if self.occupied & 1 == 0 {
            self.refill()?;
        }
        Some(self.buckets[0][self.head].0)
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
        // binary heap ordered by (time, insertion sequence).
        let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(7);
        let mut q = EventQueue::default();
        let mut reference = BinaryHeap::new();
        let (mut now, mut seq) = (0u64, 0u64);
        for _ in 0..100_000 {
            if rng.gen_bool(0.55) || reference.is_empty() {
                let span = 1u64 << rng.gen_range(1..40);
                let at = now + if rng.gen_bool(0.3) { 0 } else { rng.gen_range(0..span) };
                q.schedule(at, seq);
                reference.push(std::cmp::Reverse((at, seq)));
                seq += 1;
            } else {
                let std::cmp::Reverse((t, s)) = reference.pop().unwrap();
                assert_eq!(q.pop(), Some((t, s)));
                now = t;
            }
        }
        while let Some(std::cmp::Reverse(item)) = reference.pop() {
            assert_eq!(q.pop(), Some(item));
        }
        assert!(q.is_empty());
    }
}
