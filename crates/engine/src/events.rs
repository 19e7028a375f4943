//! The deterministic event queue: a binary min-heap ordered by (time, insertion number), so events at the
//! same instant run in the order they were scheduled.

use crate::time::Time;
use std::cmp::Ordering;
use std::collections::BinaryHeap;

/// What happens when an event fires. Flow-addressed events carry the flow index.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Event {
    /// A flow starts sending.
    FlowStart(u32),
    /// A flow stops sending new data.
    FlowStop(u32),
    /// The head of a flow's access pipe reaches the bottleneck router.
    ArriveAtRouter(u32),
    /// The bottleneck link finished serializing the packet in service.
    LinkTxDone,
    /// The head of a flow's ACK pipe reaches its sender.
    AckAtSender(u32),
    /// A sender's retransmission timer may have expired.
    RetransmitTimer(u32),
    /// A receiver's delayed-ACK timer may have expired.
    DelayedAckTimer(u32),
    /// The queue discipline's own timer (periodic AQMs).
    QueueTimer,
    /// Take a time-series sample.
    Sample,
    /// The warm-up ends: statistics start.
    WarmupEnd,
}

#[derive(Clone, Copy, Debug)]
struct Entry {
    time: Time,
    order: u64,
    event: Event,
}

impl PartialEq for Entry {
    fn eq(&self, other: &Self) -> bool {
        self.time == other.time && self.order == other.order
    }
}
impl Eq for Entry {}
impl PartialOrd for Entry {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Entry {
    // Reversed: BinaryHeap is a max-heap and we want the earliest (time, order) first.
    fn cmp(&self, other: &Self) -> Ordering {
        (other.time, other.order).cmp(&(self.time, self.order))
    }
}

/// Pending events, earliest first, ties broken by insertion order.
#[derive(Default)]
pub struct EventQueue {
    heap: BinaryHeap<Entry>,
    inserted: u64,
    popped: u64,
}

impl EventQueue {
    pub fn schedule(&mut self, time: Time, event: Event) {
        self.heap.push(Entry {
            time,
            order: self.inserted,
            event,
        });
        self.inserted += 1;
    }

    /// The next event if it is due at or before `until`.
    pub fn pop_until(&mut self, until: Time) -> Option<(Time, Event)> {
        if self.heap.peek()?.time > until {
            return None;
        }
        let e = self.heap.pop()?;
        self.popped += 1;
        Some((e.time, e.event))
    }

    /// Events executed so far.
    pub fn executed(&self) -> u64 {
        self.popped
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
    fn earliest_first_then_insertion_order() {
        let mut q = EventQueue::default();
        q.schedule(5, Event::Sample);
        q.schedule(3, Event::FlowStart(1));
        q.schedule(5, Event::FlowStart(2));
        q.schedule(3, Event::FlowStart(3));
        let order: Vec<_> = std::iter::from_fn(|| q.pop_until(10)).collect();
        assert_eq!(
            order,
            vec![
                (3, Event::FlowStart(1)),
                (3, Event::FlowStart(3)),
                (5, Event::Sample),
                (5, Event::FlowStart(2))
            ]
        );
        assert_eq!(q.executed(), 4);
    }

    #[test]
    fn pop_until_respects_horizon() {
        let mut q = EventQueue::default();
        q.schedule(10, Event::Sample);
        assert!(q.pop_until(9).is_none());
        assert_eq!(q.pop_until(10), Some((10, Event::Sample)));
    }
}
