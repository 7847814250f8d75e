//! Where the event queue's two structures (the timing wheel's buckets and the radix heap's slots)
//! keep their events: one pool of nodes linked into lists, with a free list, so scheduling allocates
//! nothing once the pool has grown to the most events ever pending.

use super::time::Time;

/// End of a list.
pub(super) const NIL: u32 = u32::MAX;

#[derive(Clone, Copy)]
pub(super) struct Node<E> {
    pub at: Time,
    pub event: E,
    /// The next node in the same list, or in the free list.
    pub next: u32,
}

/// First and last node of a list (`first` is `NIL` when the list is empty).
#[derive(Clone, Copy)]
pub(super) struct Ends {
    pub first: u32,
    pub last: u32,
}

impl Ends {
    pub const EMPTY: Ends = Ends { first: NIL, last: NIL };
}

pub(super) struct Pool<E> {
    nodes: Vec<Node<E>>,
    free: u32,
}

impl<E> Default for Pool<E> {
    fn default() -> Self {
        Pool { nodes: Vec::new(), free: NIL }
    }
}

impl<E: Copy> Pool<E> {
    /// A new unlinked node (`next` is `NIL`).
    pub fn alloc(&mut self, at: Time, event: E) -> u32 {
        let node = Node { at, event, next: NIL };
        if self.free == NIL {
            self.nodes.push(node);
            (self.nodes.len() - 1) as u32
        } else {
            let n = self.free;
            self.free = self.nodes[n as usize].next;
            self.nodes[n as usize] = node;
            n
        }
    }

    /// Returns node `n`, no longer in any list, to the free list.
    pub fn release(&mut self, n: u32) {
        self.nodes[n as usize].next = self.free;
        self.free = n;
    }
}

impl<E> std::ops::Index<u32> for Pool<E> {
    type Output = Node<E>;
    fn index(&self, n: u32) -> &Node<E> {
        &self.nodes[n as usize]
    }
}

impl<E> std::ops::IndexMut<u32> for Pool<E> {
    fn index_mut(&mut self, n: u32) -> &mut Node<E> {
        &mut self.nodes[n as usize]
    }
}

/// Checks shared by the tests of both structures: they must pop in the order of a heap on
/// (time, scheduling sequence).
#[cfg(test)]
pub(super) mod check {
    use super::Time;
    use rand::{Rng, SeedableRng};
    use std::cmp::Reverse;
    use std::collections::BinaryHeap;

    pub trait TimeQueue {
        fn schedule(&mut self, at: Time, seq: u64);
        fn pop(&mut self) -> Option<(Time, u64)>;
    }

    /// A hand-made case: equal times come out in the order they were scheduled.
    pub fn small_example(q: &mut impl TimeQueue) {
        for (at, seq) in [(30, 2), (10, 0), (30, 3), (20, 1), (10, 4)] {
            q.schedule(at, seq);
        }
        let order: Vec<_> = std::iter::from_fn(|| q.pop()).collect();
        assert_eq!(order, vec![(10, 0), (10, 4), (20, 1), (30, 2), (30, 3)]);
    }

    /// Interleaved pushes (never in the past) and pops, many equal times, delays from 0 to about
    /// 18 minutes. With `grid`, due times fall on multiples of 1 ms, so that events scheduled at
    /// different times tie and share lists.
    pub fn matches_a_heap(q: &mut impl TimeQueue, seed: u64, grid: bool, operations: usize) {
        let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(seed);
        let mut reference = BinaryHeap::new();
        let (mut now, mut seq) = (0u64, 0u64);
        for _ in 0..operations {
            if rng.gen_bool(0.55) || reference.is_empty() {
                let span = 1u64 << rng.gen_range(1..40);
                let mut at = now + if rng.gen_bool(0.3) { 0 } else { rng.gen_range(0..span) };
                if grid {
                    at = at.next_multiple_of(1_000_000);
                }
                q.schedule(at, seq);
                reference.push(Reverse((at, seq)));
                seq += 1;
            } else {
                let Reverse((t, s)) = reference.pop().unwrap();
                assert_eq!(q.pop(), Some((t, s)));
                now = t;
            }
        }
        while let Some(Reverse(item)) = reference.pop() {
            assert_eq!(q.pop(), Some(item));
        }
        assert_eq!(q.pop(), None);
    }
}
