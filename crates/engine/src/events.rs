//! The deterministic event queue, ordered by time; at one instant, packets reaching a port run first, then
//! every other event in the order it was scheduled.
//!
//! **Ties between an arrival and a departure.** With equal round-trip times and ACK clocking, packets
//! arrive at a busy port exactly when it finishes a packet, at every packet: the departure grid of a busy
//! period is aligned with the arrival that started it. Whether such an arrival meets a full buffer decides
//! which flows lose packets. ns-3 runs it before the departure (its channel schedules the arrival a link
//! delay ahead, the device its completion only a serialization time ahead, and equal times run in
//! scheduling order), and so does the engine, for every packet: an [`Event::is_arrival`] at an instant runs
//! before the other events of that instant. Insertion order alone would not do it here: a flow's access
//! pipe schedules only its head, so a packet behind others in the pipe gets its event one packet time ahead,
//! after the port's completion, and a flow with many packets in flight would win every tie that a flow
//! sending a lone retransmission loses.

use crate::time::Time;

/// What happens when an event fires. Flow events carry the flow slot, port events the port index.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Event {
    /// A flow started at a fixed time starts sending.
    FlowStart(u32),
    /// A flow started at a fixed time reaches its stop time (it sends no new data and stops counting as
    /// active at its ports).
    FlowStop(u32),
    /// The next Poisson arrival of a group.
    Arrival(u32),
    /// An incast group's next request: every sender starts its response.
    IncastRound(u32),
    /// The head of a flow's access pipe reaches the first port of its route.
    AccessArrive(u32),
    /// The head of a flow's ACK pipe (receiver to the first port of its ACK route) arrives.
    AckArrive(u32),
    /// The head of a port's link pipe reaches the next port.
    LinkArrive(u32),
    /// A port finished serializing the packet in service.
    TxDone(u32),
    /// A sender's timer (retransmission or pacing) may have expired.
    SenderTimer(u32),
    /// A receiver's delayed-ACK timer may have expired.
    ReceiverTimer(u32),
    /// An open-loop UDP source sends its next packet (straight into the first port of its route).
    UdpSend(u32),
    /// A port's discipline timer (periodic AQMs).
    QueueTimer(u32),
    /// Take a time-series sample.
    Sample,
    /// The warm-up ends: statistics start.
    WarmupEnd,
}

impl Event {
    /// A packet reaching a port: from a flow's access link, a link, an ACK path, or a UDP source.
    #[inline(always)]
    pub fn is_arrival(&self) -> bool {
        matches!(
            self,
            Event::AccessArrive(_) | Event::LinkArrive(_) | Event::AckArrive(_) | Event::UdpSend(_)
        )
    }
}

/// Pending events, earliest first; at one instant arrivals first, ties otherwise broken by insertion order.
///
/// A radix heap (Ahuja, Mehlhorn, Orlin & Tarjan 1990) on the time: events are never scheduled before the
/// last one taken, so bucket `b` holds the events whose time's highest bit differing from the last time
/// taken is bit `b − 1`, and bucket 0 those due exactly then. Buckets are appended to and redistributed in
/// order, so events with equal times keep their insertion order; bucket 0 is drained from the front, after
/// a stable partition that puts the arrivals due then first (events scheduled for the current instant while
/// it is being drained, which a zero-delay link can do, join at the back).
/// Taking the minimum moves each event down a few buckets over its life instead of paying a
/// comparison-heavy heap sift per event.
pub struct EventQueue {
    last: Time,
    buckets: [Vec<(Time, Event)>; 65],
    /// Bit `b − 1` is set when bucket `b` (1..=64) is non-empty.
    occupied: u64,
    /// Events of bucket 0 already taken.
    taken: usize,
    /// Scratch space for the partition of bucket 0.
    later: Vec<(Time, Event)>,
    len: usize,
    popped: u64,
}

impl Default for EventQueue {
    fn default() -> Self {
        EventQueue {
            last: 0,
            buckets: std::array::from_fn(|_| Vec::new()),
            occupied: 0,
            taken: 0,
            later: Vec::new(),
            len: 0,
            popped: 0,
        }
    }
}

/// The most entries an emptied bucket keeps allocated (1 MB); larger ones are shrunk to it.
const KEEP_CAPACITY: usize = 1 << 16;

fn bucket(time: Time, last: Time) -> usize {
    64 - (time ^ last).leading_zeros() as usize
}

impl EventQueue {
    fn put(&mut self, time: Time, event: Event) {
        let b = bucket(time, self.last);
        if b > 0 {
            self.occupied |= 1 << (b - 1);
        }
        self.buckets[b].push((time, event));
    }

    /// Schedule `event` at `time`, which must not precede the last event taken.
    pub fn schedule(&mut self, time: Time, event: Event) {
        debug_assert!(time >= self.last, "event scheduled in the past");
        self.put(time, event);
        self.len += 1;
    }

    /// The next event if it is due at or before `until`.
    pub fn pop_until(&mut self, until: Time) -> Option<(Time, Event)> {
        if self.len == 0 {
            return None;
        }
        if self.taken == self.buckets[0].len() {
            self.buckets[0].clear();
            self.taken = 0;
            let b = self.occupied.trailing_zeros() as usize + 1;
            self.occupied &= !(1 << (b - 1));
            // Bucket b's events all go to lower buckets: moved across in place, the bucket keeping its
            // allocation (up to a size: a bucket that once held millions of events, every flow's timer at
            // 10^6 flows, would otherwise keep that much memory for the rest of the run).
            let (lower, upper) = self.buckets.split_at_mut(b);
            let items = &mut upper[0];
            if let [item] = items[..] {
                // The usual case (about 2 events a bucket on the reference benchmark): no search, and when
                // it is due, taken from where it is.
                self.last = item.0;
                items.clear();
                if item.0 <= until && items.capacity() <= KEEP_CAPACITY {
                    self.len -= 1;
                    self.popped += 1;
                    return Some(item);
                }
                lower[0].push(item);
            } else {
                let last = items.iter().map(|&(t, _)| t).min()?;
                self.last = last;
                for &(t, e) in items.iter() {
                    let k = bucket(t, last);
                    if k > 0 {
                        self.occupied |= 1 << (k - 1);
                    }
                    lower[k].push((t, e));
                }
            }
            items.clear();
            if items.capacity() > KEEP_CAPACITY {
                items.shrink_to(KEEP_CAPACITY);
            }
            if self.buckets[0].len() > 1 {
                self.arrivals_first();
            }
        }
        let (time, event) = self.buckets[0][self.taken];
        if time > until {
            return None;
        }
        self.taken += 1;
        self.len -= 1;
        self.popped += 1;
        Some((time, event))
    }

    /// Stable partition of bucket 0 (all due at `last`): arrivals first, the rest after in their order.
    #[inline(always)]
    fn arrivals_first(&mut self) {
        let due = &mut self.buckets[0];
        // Already in order unless some arrival follows a non-arrival (mostly one event, or none of either).
        let Some(first_other) = due.iter().position(|(_, e)| !e.is_arrival()) else { return };
        if !due[first_other..].iter().any(|(_, e)| e.is_arrival()) {
            return;
        }
        self.later.clear();
        let mut kept = first_other;
        for i in first_other..due.len() {
            let item = due[i];
            if item.1.is_arrival() {
                due[kept] = item;
                kept += 1;
            } else {
                self.later.push(item);
            }
        }
        due.truncate(kept);
        due.extend_from_slice(&self.later);
    }

    /// Events executed so far.
    pub fn executed(&self) -> u64 {
        self.popped
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
    fn a_horizon_leaves_later_events_in_place() {
        // Lone events in their buckets (the fast path) and crowded ones, taken up to random horizons.
        let mut q = EventQueue::default();
        let mut rng = crate::rng::Rng::new(7, 3);
        let mut reference: Vec<(Time, u32)> = Vec::new();
        let (mut now, mut n) = (0, 0u32);
        for _ in 0..20_000 {
            if rng.uniform() < 0.5 {
                let t = now + (rng.next_u64() % 1_000) * (1 << (rng.next_u64() % 30));
                q.schedule(t, Event::FlowStart(n));
                reference.push((t, n));
                n += 1;
            } else {
                let until = now + rng.next_u64() % 5_000_000;
                reference.sort();
                let want = reference.first().copied().filter(|&(t, _)| t <= until);
                let got =
                    q.pop_until(until).map(|(t, e)| (t, if let Event::FlowStart(i) = e { i } else { 0 }));
                assert_eq!(got, want);
                match want {
                    Some((t, _)) => {
                        reference.remove(0);
                        now = t;
                    }
                    // The queue may have moved on to the next event's time: none is scheduled before it.
                    None => now = reference.first().map_or(now, |&(t, _)| t),
                }
            }
        }
        assert_eq!(q.len(), reference.len());
    }

    #[test]
    fn matches_a_sorted_reference_on_random_schedules() {
        let mut q = EventQueue::default();
        let mut rng = crate::rng::Rng::new(5, 5);
        let mut reference: Vec<(Time, u64)> = Vec::new();
        let mut now = 0;
        let mut n = 0u64;
        for _ in 0..20_000 {
            if rng.uniform() < 0.55 {
                let t = now + (rng.next_u64() % 1_000_000) * (rng.next_u64() % 3);
                q.schedule(t, Event::FlowStart(n as u32));
                reference.push((t, n));
                n += 1;
            } else if let Some((t, Event::FlowStart(id))) = q.pop_until(Time::MAX) {
                reference.sort();
                assert_eq!(reference.remove(0), (t, id as u64));
                now = t;
            }
        }
        assert_eq!(q.len(), reference.len());
    }

    #[test]
    fn at_one_instant_arrivals_run_first_and_the_rest_keep_their_order() {
        let mut q = EventQueue::default();
        q.schedule(7, Event::TxDone(0));
        q.schedule(7, Event::Sample);
        q.schedule(7, Event::AccessArrive(1));
        q.schedule(4, Event::TxDone(2));
        q.schedule(7, Event::LinkArrive(3));
        q.schedule(7, Event::SenderTimer(4));
        q.schedule(7, Event::AckArrive(5));
        let order: Vec<_> = std::iter::from_fn(|| q.pop_until(10)).map(|(_, e)| e).collect();
        assert_eq!(
            order,
            vec![
                Event::TxDone(2),
                Event::AccessArrive(1),
                Event::LinkArrive(3),
                Event::AckArrive(5),
                Event::TxDone(0),
                Event::Sample,
                Event::SenderTimer(4),
            ]
        );
    }

    #[test]
    fn an_event_scheduled_for_the_instant_being_drained_runs_after_it() {
        let mut q = EventQueue::default();
        q.schedule(3, Event::TxDone(0));
        q.schedule(3, Event::AccessArrive(1));
        assert_eq!(q.pop_until(10), Some((3, Event::AccessArrive(1))));
        q.schedule(3, Event::LinkArrive(2)); // a zero-delay link, from the arrival's port
        assert_eq!(q.pop_until(10), Some((3, Event::TxDone(0))));
        assert_eq!(q.pop_until(10), Some((3, Event::LinkArrive(2))));
    }

    #[test]
    fn pop_until_respects_horizon() {
        let mut q = EventQueue::default();
        q.schedule(10, Event::Sample);
        assert!(q.pop_until(9).is_none());
        assert_eq!(q.pop_until(10), Some((10, Event::Sample)));
    }
}
