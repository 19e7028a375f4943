//! A pipe: packets in transit with their arrival times, in order. Whoever owns it schedules one event for
//! its head; [`Pipe::push`] says when that is needed (the pipe was empty).
//!
//! A packet in a pipe carries its arrival time in `enqueued_at` (the next queue stamps its own time on
//! admission): 32 bytes an entry instead of 40, which at 10^6 flows is tens of megabytes of packets on
//! the access links (docs/benchmarks.md, "At scale").

use crate::packet::Packet;
use crate::time::Time;
use std::collections::VecDeque;

/// A pipe that empties gives its memory back; its owner keeps, in a byte beside it (where a flow has
/// padding to spare), the capacity to refill it at, so that refilling it allocates once ([`crate::deque`]):
/// the capacity it had (at most 32 entries) if that is more than the last refill, else half of the last
/// refill (so one that outgrew a refill of 32 gets 16 next). Without the halving a million
/// flows, each refilled for the burst of its slow start while it holds a packet or two, peaked at 1.55 GB
/// instead of 1.44 (docs/benchmarks.md, "At scale").
#[derive(Default)]
pub struct Pipe {
    packets: VecDeque<Packet>,
}

impl Pipe {
    /// Add a packet arriving at `at` (never before the last one pushed); returns true if it is the new head,
    /// so the caller must schedule its arrival. `refill`: what [`Pipe::pop`] last noted.
    pub fn push(&mut self, at: Time, mut pkt: Packet, refill: u8) -> bool {
        debug_assert!(self.packets.back().is_none_or(|p| p.enqueued_at <= at), "pipe out of order");
        pkt.enqueued_at = at;
        crate::deque::push_back(&mut self.packets, pkt, refill);
        self.packets.len() == 1
    }

    /// Take the head (its arrival is due); returns it and the next head's arrival time, if any. If that
    /// emptied the pipe and freed its memory, notes in `refill` the capacity to refill it at.
    pub fn pop(&mut self, refill: &mut u8) -> Option<(Packet, Option<Time>)> {
        let pkt = self.packets.pop_front()?;
        if let Some(cap) = crate::deque::release_slack(&mut self.packets) {
            *refill = if cap > *refill { cap } else { refill.saturating_sub(1) };
        }
        Some((pkt, self.packets.front().map(|p| p.enqueued_at)))
    }

    /// The arrival time of the last packet in the pipe that satisfies `which`, if any.
    pub fn last_arrival_of(&self, which: impl Fn(&Packet) -> bool) -> Option<Time> {
        self.packets.iter().rev().find(|p| which(p)).map(|p| p.enqueued_at)
    }

    pub fn len(&self) -> usize {
        self.packets.len()
    }

    pub fn is_empty(&self) -> bool {
        self.packets.is_empty()
    }

    /// The capacity it holds (entries).
    pub fn capacity(&self) -> usize {
        self.packets.capacity()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_head_needs_an_event() {
        let (mut p, mut refill) = (Pipe::default(), 0);
        assert!(p.push(5, Packet { seq: 1, ..Packet::default() }, refill));
        assert!(!p.push(7, Packet { seq: 2, ..Packet::default() }, refill));
        let (pkt, next) = p.pop(&mut refill).unwrap();
        assert_eq!((pkt.seq, next), (1, Some(7)));
        let (pkt, next) = p.pop(&mut refill).unwrap();
        assert_eq!((pkt.seq, next), (2, None));
        assert!(p.pop(&mut refill).is_none());
    }

    #[test]
    fn an_emptied_pipe_frees_its_memory_and_refills_in_one_allocation() {
        let (mut p, mut refill) = (Pipe::default(), 0);
        for t in 0..20 {
            p.push(t, Packet::default(), refill);
        }
        let grown = p.capacity();
        while p.pop(&mut refill).is_some() {}
        assert_eq!((p.capacity(), 1 << refill), (0, grown));
        p.push(30, Packet::default(), refill);
        assert_eq!(p.capacity(), grown);
        // A fill that needed less than the refill: the next one is half as large, down to the smallest.
        let mut caps = Vec::new();
        for t in 31..40 {
            while p.pop(&mut refill).is_some() {}
            p.push(t, Packet::default(), refill);
            caps.push(p.capacity());
        }
        assert_eq!(caps[..3], [grown / 2, grown / 4, grown / 8]);
        assert_eq!(caps[8], 4, "{caps:?}");
    }
}
