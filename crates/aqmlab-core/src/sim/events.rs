//! A binary-heap event queue ordered by (time, insertion sequence).
//!
//! The sequence number breaks ties between events scheduled for the same nanosecond in the order they
//! were scheduled, which makes every run bit-for-bit reproducible.

use super::time::Time;
use std::cmp::Ordering;
use std::collections::BinaryHeap;

struct Entry<E> {
    key: u128, // time in the high 64 bits, sequence in the low 64: one comparison per sift step
    event: E,
}

impl<E> PartialEq for Entry<E> {
    fn eq(&self, other: &Self) -> bool {
        self.key == other.key
    }
}
impl<E> Eq for Entry<E> {}
impl<E> PartialOrd for Entry<E> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl<E> Ord for Entry<E> {
    fn cmp(&self, other: &Self) -> Ordering {
        other.key.cmp(&self.key) // reversed: BinaryHeap is a max-heap
    }
}

pub struct EventQueue<E> {
    heap: BinaryHeap<Entry<E>>,
    seq: u64,
}

impl<E> Default for EventQueue<E> {
    fn default() -> Self {
        Self { heap: BinaryHeap::new(), seq: 0 }
    }
}

impl<E> EventQueue<E> {
    pub fn schedule(&mut self, at: Time, event: E) {
        let key = ((at as u128) << 64) | self.seq as u128;
        self.seq += 1;
        self.heap.push(Entry { key, event });
    }

    /// Removes and returns the earliest event.
    pub fn pop(&mut self) -> Option<(Time, E)> {
        self.heap.pop().map(|e| ((e.key >> 64) as Time, e.event))
    }

    pub fn peek_time(&self) -> Option<Time> {
        self.heap.peek().map(|e| (e.key >> 64) as Time)
    }

    pub fn len(&self) -> usize {
        self.heap.len()
    }

    pub fn is_empty(&self) -> bool {
        self.heap.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
