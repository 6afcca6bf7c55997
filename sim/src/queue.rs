//! The event queue: events in time order; events at the same instant in the
//! order they were scheduled (a sequence number breaks ties), so a run never
//! depends on heap internals.

use std::cmp::Ordering;
use std::collections::BinaryHeap;

use chessclock::Instant;

#[derive(Debug)]
struct Entry<E> {
    at: Instant,
    sequence: u64,
    event: E,
}

impl<E> PartialEq for Entry<E> {
    fn eq(&self, other: &Self) -> bool {
        (self.at, self.sequence) == (other.at, other.sequence)
    }
}

impl<E> Eq for Entry<E> {}

impl<E> PartialOrd for Entry<E> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl<E> Ord for Entry<E> {
    /// Reversed: `BinaryHeap` is a max-heap and we want the earliest first.
    fn cmp(&self, other: &Self) -> Ordering {
        (other.at, other.sequence).cmp(&(self.at, self.sequence))
    }
}

/// Events ordered by (instant, sequence number).
#[derive(Debug)]
pub struct EventQueue<E> {
    heap: BinaryHeap<Entry<E>>,
    scheduled: u64,
}

impl<E> Default for EventQueue<E> {
    fn default() -> Self {
        EventQueue { heap: BinaryHeap::new(), scheduled: 0 }
    }
}

impl<E> EventQueue<E> {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn schedule(&mut self, at: Instant, event: E) {
        self.heap.push(Entry { at, sequence: self.scheduled, event });
        self.scheduled += 1;
    }

    /// The earliest event, and its instant.
    pub fn pop(&mut self) -> Option<(Instant, E)> {
        self.heap.pop().map(|entry| (entry.at, entry.event))
    }

    pub fn peek_at(&self) -> Option<Instant> {
        self.heap.peek().map(|entry| entry.at)
    }

    pub fn len(&self) -> usize {
        self.heap.len()
    }

    pub fn is_empty(&self) -> bool {
        self.heap.is_empty()
    }

    pub fn clear(&mut self) {
        self.heap.clear();
    }
}
