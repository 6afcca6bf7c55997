//! The event queue: events in time order; events at the same instant in the
//! order they were scheduled (a sequence number breaks ties), so a run never
//! depends on the container's internals.
//!
//! A game keeps a handful of events pending (the next move, an edge or two,
//! a notice), so the queue is a vector sorted latest first: popping the
//! earliest takes it off the end, and scheduling inserts by binary search,
//! moving the few entries due before it. That beats a binary heap's sift at
//! these sizes (measured: fewer instructions, and than a ring buffer too),
//! and stays linear when a scenario keeps many events pending.
//!
//! Besides the sorted entries, a queue has `TIMERS` timer slots: a timer
//! holds at most one pending event, and setting it again replaces (cancels)
//! the previous one. A clock's next deadline moves on every press; as a
//! timer it never leaves stale entries behind to be popped and thrown away.

use chessclock::Instant;

/// (instant, sequence number) packed so that one integer comparison orders
/// entries: the instant in the high 64 bits.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Key(u128);

impl Key {
    fn new(at: Instant, sequence: u64) -> Key {
        Key(u128::from(at.as_us()) << 64 | u128::from(sequence))
    }

    fn at(self) -> Instant {
        Instant::from_us((self.0 >> 64) as u64)
    }
}

#[derive(Debug)]
struct Entry<E> {
    key: Key,
    event: E,
}

/// Events ordered by (instant, sequence number), with `TIMERS` timer slots.
#[derive(Debug)]
pub struct EventQueue<E, const TIMERS: usize = 0> {
    /// Sorted by key, latest first: the earliest entry is the last.
    sorted: Vec<Entry<E>>,
    timers: [Option<Entry<E>>; TIMERS],
    scheduled: u64,
}

impl<E, const TIMERS: usize> Default for EventQueue<E, TIMERS> {
    fn default() -> Self {
        EventQueue { sorted: Vec::new(), timers: std::array::from_fn(|_| None), scheduled: 0 }
    }
}

impl<E, const TIMERS: usize> EventQueue<E, TIMERS> {
    pub fn new() -> Self {
        Self::default()
    }

    fn next_key(&mut self, at: Instant) -> Key {
        let key = Key::new(at, self.scheduled);
        self.scheduled += 1;
        key
    }

    pub fn schedule(&mut self, at: Instant, event: E) {
        let key = self.next_key(at);
        // Keys are unique (the sequence number), so no entry equals `key`.
        let index = self.sorted.partition_point(|entry| entry.key > key);
        self.sorted.insert(index, Entry { key, event });
    }

    /// Sets timer `slot` to fire `event` at `at`, replacing what it held.
    /// The event takes its place among same-instant events as if scheduled
    /// now. Out-of-range slots are a programming error and ignored.
    pub fn set_timer(&mut self, slot: usize, at: Instant, event: E) {
        let key = self.next_key(at);
        if let Some(timer) = self.timers.get_mut(slot) {
            *timer = Some(Entry { key, event });
        }
    }

    /// Empties timer `slot`.
    pub fn cancel_timer(&mut self, slot: usize) {
        if let Some(timer) = self.timers.get_mut(slot) {
            *timer = None;
        }
    }

    /// The earliest event, and its instant.
    pub fn pop(&mut self) -> Option<(Instant, E)> {
        // The earliest timer, if it comes before the earliest entry.
        let mut earliest: Option<(usize, Key)> = None;
        for (slot, timer) in self.timers.iter().enumerate() {
            if let Some(entry) = timer {
                if earliest.is_none_or(|(_, key)| entry.key < key) {
                    earliest = Some((slot, entry.key));
                }
            }
        }
        if let Some((slot, key)) = earliest {
            if self.sorted.last().is_none_or(|first| key < first.key) {
                let entry = self.timers.get_mut(slot).and_then(Option::take);
                return entry.map(|entry| (entry.key.at(), entry.event));
            }
        }
        self.sorted.pop().map(|entry| (entry.key.at(), entry.event))
    }

    /// The instant of the earliest event.
    pub fn peek_at(&self) -> Option<Instant> {
        self.peek().map(|(at, _)| at)
    }

    /// The earliest event and its instant, left in place.
    pub fn peek(&self) -> Option<(Instant, &E)> {
        let timers = self.timers.iter().flatten();
        timers.chain(self.sorted.last()).min_by_key(|entry| entry.key).map(|entry| (entry.key.at(), &entry.event))
    }

    pub fn len(&self) -> usize {
        self.sorted.len() + self.timers.iter().flatten().count()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    pub fn clear(&mut self) {
        self.sorted.clear();
        self.timers.iter_mut().for_each(|timer| *timer = None);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Pops every event, checking first that `peek` names the one `pop` gives.
    fn drain<const TIMERS: usize>(queue: &mut EventQueue<&'static str, TIMERS>) -> Vec<(u64, &'static str)> {
        std::iter::from_fn(|| {
            let peeked = queue.peek().map(|(at, event)| (at, *event));
            let popped = queue.pop();
            assert_eq!(peeked, popped, "peek and pop disagree");
            popped
        })
        .map(|(at, event)| (at.as_us(), event))
        .collect()
    }

    #[test]
    fn same_instant_events_come_in_scheduling_order() {
        let mut queue: EventQueue<&str> = EventQueue::new();
        queue.schedule(Instant::from_us(5), "b");
        queue.schedule(Instant::from_us(1), "a");
        queue.schedule(Instant::from_us(5), "c");
        queue.schedule(Instant::from_us(5), "d");
        assert_eq!(drain(&mut queue), [(1, "a"), (5, "b"), (5, "c"), (5, "d")]);
    }

    #[test]
    fn a_timer_set_again_fires_once_at_its_latest_instant() {
        let mut queue: EventQueue<&str, 2> = EventQueue::new();
        queue.set_timer(0, Instant::from_us(3), "deadline (stale)");
        queue.schedule(Instant::from_us(4), "edge");
        queue.set_timer(0, Instant::from_us(7), "deadline");
        queue.set_timer(1, Instant::from_us(4), "other deadline");
        queue.schedule(Instant::from_us(7), "watch");
        assert_eq!(queue.len(), 4);
        assert_eq!(queue.peek_at(), Some(Instant::from_us(4)));
        assert_eq!(drain(&mut queue), [(4, "edge"), (4, "other deadline"), (7, "deadline"), (7, "watch")]);
    }

    #[test]
    fn a_cancelled_timer_never_fires() {
        let mut queue: EventQueue<&str, 1> = EventQueue::new();
        queue.set_timer(0, Instant::from_us(2), "deadline");
        queue.schedule(Instant::from_us(9), "move");
        queue.cancel_timer(0);
        assert_eq!(drain(&mut queue), [(9, "move")]);
    }

    #[test]
    fn timers_and_entries_order_like_one_queue() {
        // Model: every event in one sorted list; a timer set replaces its
        // previous entry. The queue must pop exactly the model's order.
        let mut queue: EventQueue<&str, 2> = EventQueue::new();
        let mut model: Vec<(u64, usize, &str)> = Vec::new();
        let steps: [(Option<usize>, u64, &'static str); 8] = [
            (None, 10, "h1"),
            (Some(0), 10, "t0a"),
            (Some(1), 3, "t1a"),
            (None, 3, "h2"),
            (Some(0), 2, "t0b"),
            (None, 2, "h3"),
            (Some(1), 10, "t1b"),
            (None, 10, "h4"),
        ];
        let mut timer_names: [Option<&str>; 2] = [None, None];
        for (sequence, (slot, at, name)) in steps.into_iter().enumerate() {
            match slot {
                Some(slot) => {
                    if let Some(old) = timer_names[slot].replace(name) {
                        model.retain(|(_, _, event)| *event != old);
                    }
                    queue.set_timer(slot, Instant::from_us(at), name);
                }
                None => queue.schedule(Instant::from_us(at), name),
            }
            model.push((at, sequence, name));
        }
        model.sort();
        let expected: Vec<(u64, &str)> = model.into_iter().map(|(at, _, name)| (at, name)).collect();
        assert_eq!(drain(&mut queue), expected);
    }
}

#[cfg(test)]
mod properties {
    use proptest::prelude::*;

    use super::*;

    #[derive(Clone, Debug)]
    enum Step {
        Schedule(u64),
        SetTimer(usize, u64),
        CancelTimer(usize),
        Pop,
    }

    fn step() -> impl Strategy<Value = Step> {
        // Few distinct instants, so same-instant ties are common.
        prop_oneof![
            4 => (0u64..8).prop_map(Step::Schedule),
            2 => (0usize..3, 0u64..8).prop_map(|(slot, at)| Step::SetTimer(slot, at)),
            1 => (0usize..3).prop_map(Step::CancelTimer),
            3 => Just(Step::Pop),
        ]
    }

    proptest! {
        /// Any mix of scheduling, timers and pops gives the order of one
        /// list sorted by (instant, scheduling order), where setting a
        /// timer removes its previous entry.
        #[test]
        fn pops_in_instant_then_scheduling_order(steps in prop::collection::vec(step(), 0..64)) {
            let mut queue: EventQueue<u64, 2> = EventQueue::new();
            // Model entries: (instant, sequence, timer slot), the sequence doubling as the event.
            let mut model: Vec<(u64, u64, Option<usize>)> = Vec::new();
            for (sequence, step) in (0u64..).zip(steps) {
                match step {
                    Step::Schedule(at) => {
                        queue.schedule(Instant::from_us(at), sequence);
                        model.push((at, sequence, None));
                    }
                    Step::SetTimer(slot, at) => {
                        queue.set_timer(slot, Instant::from_us(at), sequence);
                        // Slot 2 is out of range: ignored by the queue.
                        if slot < 2 {
                            model.retain(|entry| entry.2 != Some(slot));
                            model.push((at, sequence, Some(slot)));
                        }
                    }
                    Step::CancelTimer(slot) => {
                        queue.cancel_timer(slot);
                        model.retain(|entry| entry.2 != Some(slot));
                    }
                    Step::Pop => {
                        let earliest = model.iter().copied().min_by_key(|entry| (entry.0, entry.1));
                        model.retain(|entry| Some(*entry) != earliest);
                        let expected = earliest.map(|(at, event, _)| (Instant::from_us(at), event));
                        prop_assert_eq!(queue.peek().map(|(at, event)| (at, *event)), expected);
                        prop_assert_eq!(queue.pop(), expected);
                    }
                }
                prop_assert_eq!(queue.len(), model.len());
            }
        }
    }
}
