//! A pipe: packets in transit with their arrival times, in order. Whoever owns it schedules one event for
//! its head; [`Pipe::push`] says when that is needed (the pipe was empty).
//!
//! A packet in a pipe carries its arrival time in `enqueued_at` (the next queue stamps its own time on
//! admission): 32 bytes an entry instead of 40, which at 10^6 flows is tens of megabytes of packets on
//! the access links (docs/benchmarks.md, "At scale").

use crate::packet::Packet;
use crate::time::Time;
use std::collections::VecDeque;

#[derive(Default)]
pub struct Pipe {
    packets: VecDeque<Packet>,
    /// The capacity to allocate when the emptied (freed) pipe fills again ([`crate::deque::release_slack`]).
    refill: u8,
}

impl Pipe {
    /// Add a packet arriving at `at` (never before the last one pushed); returns true if it is the new head,
    /// so the caller must schedule its arrival.
    pub fn push(&mut self, at: Time, mut pkt: Packet) -> bool {
        debug_assert!(self.packets.back().is_none_or(|p| p.enqueued_at <= at), "pipe out of order");
        pkt.enqueued_at = at;
        crate::deque::push_back(&mut self.packets, pkt, self.refill);
        self.packets.len() == 1
    }

    /// Take the head (its arrival is due); returns it and the next head's arrival time, if any.
    pub fn pop(&mut self) -> Option<(Packet, Option<Time>)> {
        let pkt = self.packets.pop_front()?;
        crate::deque::release_slack(&mut self.packets, &mut self.refill);
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
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_head_needs_an_event() {
        let mut p = Pipe::default();
        assert!(p.push(5, Packet { seq: 1, ..Packet::default() }));
        assert!(!p.push(7, Packet { seq: 2, ..Packet::default() }));
        let (pkt, next) = p.pop().unwrap();
        assert_eq!((pkt.seq, next), (1, Some(7)));
        let (pkt, next) = p.pop().unwrap();
        assert_eq!((pkt.seq, next), (2, None));
        assert!(p.pop().is_none());
    }
}
