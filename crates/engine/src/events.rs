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
/// A radix heap (Ahuja, Mehlhorn, Orlin & Tarjan 1990) on the time whose lowest buckets are one sorted
/// vector. Events are never scheduled before the last one taken. Relative to a base time (the earliest
/// event when the vector was last refilled), the events in the same aligned window of 2^`near_bits` ps as
/// the base are in `near`, sorted by time, equal times in insertion order; any later event is in bucket
/// `b` (`near_bits < b ≤ 64`) when the highest bit in which its time differs from the base is bit `b − 1`.
/// Every event in `near` precedes every bucketed one, and a lower bucket's events precede a higher one's,
/// so the earliest event is `near`'s first, and when `near` empties the lowest bucket's events are
/// redistributed about their minimum (the new base): those within its window into `near`, the rest to
/// lower buckets. Most events are scheduled a few packet times ahead, within the window: one insertion
/// into a short sorted vector (docs/benchmarks.md: 82–88 % of them on the reference benchmark) instead of
/// a push into a bucket and a move or two down the buckets later.
///
/// When the first event of an instant reaches the front, the events due then are stably partitioned,
/// arrivals first; one scheduled for that instant afterwards (a zero-delay link can do it) joins at the
/// back of the instant.
pub struct EventQueue {
    /// The base of the buckets and of `near`'s window.
    base: Time,
    /// The events in the base's window, sorted by time, equal times in insertion order, from `head` on
    /// (those before it are taken).
    near: Vec<(Time, Event)>,
    head: usize,
    /// Events taken from `near` and dropped from its front since the last refill.
    compacted: usize,
    /// The window's width, as a power of two (see [`EventQueue::refill`]).
    near_bits: u32,
    /// The window's end (exclusive; `Time::MAX` where it reaches the end of time).
    near_end: Time,
    /// The instant whose events at `near`'s front have been put arrivals first (`Time::MAX`: none yet).
    instant: Time,
    buckets: [Vec<(Time, Event)>; 65],
    /// Bit `b − 1` is set when bucket `b` (`near_bits < b ≤ 64`) is non-empty.
    occupied: u64,
    len: usize,
    popped: u64,
}

impl Default for EventQueue {
    fn default() -> Self {
        EventQueue {
            base: 0,
            near: Vec::new(),
            head: 0,
            compacted: 0,
            near_bits: 26,
            near_end: 1 << 26,
            instant: Time::MAX,
            buckets: std::array::from_fn(|_| Vec::new()),
            occupied: 0,
            len: 0,
            popped: 0,
        }
    }
}

/// The events that `near` should see in a window: between these, its width stays; with more, it halves at
/// the next refill (an insertion then shifts fewer), with fewer it doubles (fewer events go through the
/// buckets). On the reference benchmark it settles at 2^26 ps (67 µs, a few packet times at 1 Gb/s),
/// where a fixed width does best too (0.5 % fewer instructions than at 2^25 or 2^27).
const NEAR_EVENTS: std::ops::RangeInclusive<usize> = 8..=64;

/// The widest window, 2^32 ps (4.3 ms): a window of seconds, which a quiet start can lead to, would
/// gather a burst's events in one insertion sort.
const MAX_NEAR_BITS: u32 = 32;

/// Taken events at `near`'s front that are dropped once they are half of it: `near` holds the pending
/// events of its window and at most as many taken ones, whatever the run's length.
const COMPACT_AT: usize = 256;

/// The most entries an emptied bucket keeps allocated (1 MB); larger ones are shrunk to it.
const KEEP_CAPACITY: usize = 1 << 16;

fn bucket(time: Time, base: Time) -> usize {
    64 - (time ^ base).leading_zeros() as usize
}

/// The end (exclusive) of `base`'s aligned window of 2^`bits` ps.
fn window_end(base: Time, bits: u32) -> Time {
    (base | ((1 << bits) - 1)).saturating_add(1)
}

impl EventQueue {
    /// Schedule `event` at `time`, which must not precede the last event taken. Inlined into its callers
    /// (1.5 % fewer instructions on the reference benchmark than a call).
    #[inline(always)]
    pub fn schedule(&mut self, time: Time, event: Event) {
        debug_assert!(
            time >= self.base && (self.instant == Time::MAX || time >= self.instant),
            "event in the past"
        );
        self.len += 1;
        if time < self.near_end {
            // After every event due at or before it: usually at the back, else a few places from it, so an
            // insertion sort's step (shifting as it looks) rather than a search and a `memmove`.
            let last = self.near.last().map_or(0, |&(t, _)| t);
            self.near.push((time, event));
            if last <= time {
                return;
            }
            let pending = &mut self.near[self.head..];
            let mut at = pending.len() - 1;
            while at > 0 && pending[at - 1].0 > time {
                pending[at] = pending[at - 1];
                at -= 1;
            }
            pending[at] = (time, event);
        } else {
            let b = bucket(time, self.base);
            self.occupied |= 1 << (b - 1);
            self.buckets[b].push((time, event));
        }
    }

    /// Refill the empty `near` from the lowest non-empty bucket `b`, first fitting the window's width to
    /// the events that went through the last one ([`NEAR_EVENTS`]). Any width up to `b` bits is free to
    /// take then: the buckets at or below `b` are empty, and those above keep their events whatever the
    /// new base (it agrees with the old one above bit `b − 1`).
    #[inline(never)]
    fn refill(&mut self) {
        let b = self.occupied.trailing_zeros() + 1;
        let passed = self.near.len() + self.compacted;
        if passed > *NEAR_EVENTS.end() && self.near_bits > 1 {
            self.near_bits -= 1;
        } else if passed < *NEAR_EVENTS.start() && self.near_bits < b.min(MAX_NEAR_BITS) {
            self.near_bits += 1;
        }
        self.near.clear();
        self.compacted = 0;
        self.head = 0;
        if self.near.capacity() > KEEP_CAPACITY {
            self.near.shrink_to(KEEP_CAPACITY);
        }
        self.occupied &= !(1 << (b - 1));
        let (lower, upper) = self.buckets.split_at_mut(b as usize);
        let items = &mut upper[0];
        let base = items.iter().map(|&(t, _)| t).min().expect("an occupied bucket");
        self.base = base;
        self.near_end = window_end(base, self.near_bits);
        let near_end = self.near_end;
        for &(t, e) in items.iter() {
            if t < near_end {
                self.near.push((t, e));
            } else {
                let k = bucket(t, base);
                self.occupied |= 1 << (k - 1);
                lower[k].push((t, e));
            }
        }
        items.clear();
        if items.capacity() > KEEP_CAPACITY {
            items.shrink_to(KEEP_CAPACITY);
        }
        if self.near.len() > 1 {
            self.near.sort_by_key(|&(t, _)| t); // stable: equal times keep their order
        }
    }

    /// The next event if it is due at or before `until`.
    #[inline]
    pub fn pop_until(&mut self, until: Time) -> Option<(Time, Event)> {
        if self.head == self.near.len() {
            if self.len == 0 {
                return None;
            }
            self.refill();
        }
        let (time, mut event) = self.near[self.head];
        if time != self.instant {
            self.instant = time;
            if self.near.get(self.head + 1).is_some_and(|&(t, _)| t == time) {
                self.arrivals_first();
                event = self.near[self.head].1;
            }
        }
        if time > until {
            return None;
        }
        self.head += 1;
        if self.head >= COMPACT_AT && 2 * self.head >= self.near.len() {
            // A crowded window: what was taken goes, so that `near` holds what is pending.
            self.near.drain(..self.head);
            self.compacted += self.head;
            self.head = 0;
        }
        self.len -= 1;
        self.popped += 1;
        Some((time, event))
    }

    /// Stable partition of the events due at `instant` (at `near`'s front): arrivals first.
    #[inline(never)]
    fn arrivals_first(&mut self) {
        let instant = self.instant;
        let pending = &mut self.near[self.head..];
        let run = pending.iter().take_while(|&&(t, _)| t == instant).count();
        let due = &mut pending[..run];
        // Already in order unless some arrival follows a non-arrival.
        let Some(first_other) = due.iter().position(|(_, e)| !e.is_arrival()) else { return };
        if !due[first_other..].iter().any(|(_, e)| e.is_arrival()) {
            return;
        }
        let mut later = Vec::with_capacity(run - first_other);
        let mut kept = first_other;
        for i in first_other..run {
            let item = due[i];
            if item.1.is_arrival() {
                due[kept] = item;
                kept += 1;
            } else {
                later.push(item);
            }
        }
        due[kept..].copy_from_slice(&later);
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

    /// The order the queue promises, kept the slow way: the pending events in the order scheduled, and the
    /// instant being drained, put arrivals first when it began, with what was scheduled for it later behind.
    #[derive(Default)]
    struct Model {
        pending: Vec<(Time, Event)>,
        instant: Option<Time>,
        due: std::collections::VecDeque<(Time, Event)>,
    }

    impl Model {
        fn schedule(&mut self, t: Time, e: Event) {
            if self.instant == Some(t) {
                self.due.push_back((t, e));
            } else {
                self.pending.push((t, e));
            }
        }

        fn pop_until(&mut self, until: Time) -> Option<(Time, Event)> {
            if self.due.is_empty() {
                let t = self.pending.iter().map(|&(t, _)| t).min()?;
                let (now, later): (Vec<_>, Vec<_>) = self.pending.iter().partition(|&&(u, _)| u == t);
                self.pending = later;
                let (arrivals, others): (Vec<_>, Vec<_>) = now.into_iter().partition(|(_, e)| e.is_arrival());
                self.due.extend(arrivals.into_iter().chain(others));
                self.instant = Some(t);
            }
            let &(t, e) = self.due.front()?;
            (t <= until).then(|| {
                self.due.pop_front();
                (t, e)
            })
        }
    }

    #[test]
    fn matches_the_order_it_promises_through_ties_bursts_and_horizons() {
        // Times on a coarse grid (many ties), spreads from a packet time to seconds (the window, the
        // buckets, the window's width adapting to crowds), arrivals among the rest, and events scheduled
        // for the instant being drained.
        for seed in 0..8 {
            let (mut q, mut model) = (EventQueue::default(), Model::default());
            let mut rng = crate::rng::Rng::new(seed, 11);
            let (mut now, mut n) = (0, 0u32);
            for step in 0..5_000 {
                let r = rng.uniform();
                if r < 0.3 {
                    let unit = 1u64 << (rng.next_u64() % 36);
                    let burst = match rng.uniform() {
                        x if x < 0.005 => 600, // a crowd: `near` drops what it has taken as it drains
                        x if x < 0.05 => 40,
                        _ => 1,
                    };
                    for _ in 0..burst {
                        let t = if rng.uniform() < 0.02 { now } else { now + unit * (rng.next_u64() % 8) };
                        let e = if rng.uniform() < 0.5 { Event::AccessArrive(n) } else { Event::TxDone(n) };
                        q.schedule(t, e);
                        model.schedule(t, e);
                        n += 1;
                    }
                } else {
                    let until = if r < 0.95 { Time::MAX } else { now + rng.next_u64() % (1 << 30) };
                    let got = q.pop_until(until);
                    assert_eq!(got, model.pop_until(until), "seed {seed}, step {step}");
                    if let Some((t, _)) = got {
                        now = t;
                    } else if let Some(t) = model.instant {
                        now = now.max(t);
                    }
                }
                assert_eq!(q.len(), model.pending.len() + model.due.len());
            }
        }
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
