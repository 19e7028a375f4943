//! A pipe: packets in transit with their arrival times, in order. Whoever owns it schedules one event for
//! its head; [`Pipe::push`] says when that is needed (the pipe was empty).

use crate::packet::Packet;
use crate::time::Time;
use std::collections::VecDeque;

#[derive(Default)]
pub struct Pipe {
    packets: VecDeque<(Time, Packet)>,
}

impl Pipe {
    /// Add a packet arriving at `at` (never before the last one pushed); returns true if it is the new head,
    /// so the caller must schedule its arrival.
    pub fn push(&mut self, at: Time, pkt: Packet) -> bool {
        debug_assert!(self.packets.back().is_none_or(|&(t, _)| t <= at), "pipe out of order");
        self.packets.push_back((at, pkt));
        self.packets.len() == 1
    }

    /// Take the head (its arrival is due); returns it and the next head's arrival time, if any.
    pub fn pop(&mut self) -> Option<(Packet, Option<Time>)> {
        let (_, pkt) = self.packets.pop_front()?;
        crate::deque::release_slack(&mut self.packets);
        Some((pkt, self.packets.front().map(|&(t, _)| t)))
    }

    /// The arrival time of the last packet in the pipe that satisfies `which`, if any.
    pub fn last_arrival_of(&self, which: impl Fn(&Packet) -> bool) -> Option<Time> {
        self.packets.iter().rev().find(|(_, p)| which(p)).map(|&(t, _)| t)
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
