//! Queue disciplines behind one trait.
//!
//! As in ns-3's traffic-control layer, a discipline only decides; every drop and mark goes through
//! [`QueueEffects`], so reasons are counted in one place for all disciplines. A discipline may drop or mark
//! packets already queued (Global Notifier, the index policy), change its own limit, and ask for a timer
//! (BLUE, ARED, ODT/OB) through [`QueueDisc::next_timer`].

pub mod droptail;
pub mod red;

use crate::packet::{Ecn, Packet};
use crate::time::Time;
use std::collections::VecDeque;

pub use droptail::DropTail;
pub use red::{Red, RedParams};

/// Why a packet was dropped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DropReason {
    /// The buffer was full.
    Overflow,
    /// An AQM's probabilistic (early) decision.
    Early,
    /// An AQM's forced drop (RED above max_th, or 2·max_th in gentle mode).
    Forced,
}

/// What a discipline did besides queueing: drops with reasons and CE marks. The caller drains it.
#[derive(Default)]
pub struct QueueEffects {
    pub drops: Vec<(Packet, DropReason)>,
    /// Flows whose packets were CE-marked, one entry per mark.
    pub marks: Vec<u32>,
}

impl QueueEffects {
    pub fn drop(&mut self, pkt: Packet, reason: DropReason) {
        self.drops.push((pkt, reason));
    }

    /// Set CE on an ECN-capable packet; returns false (and leaves it alone) if it is Not-ECT.
    pub fn mark(&mut self, pkt: &mut Packet) -> bool {
        match pkt.ecn {
            Ecn::NotEct => false,
            Ecn::Ect => {
                pkt.ecn = Ecn::Ce;
                self.marks.push(pkt.flow);
                true
            }
            Ecn::Ce => true,
        }
    }
}

/// The buffer of a discipline: packets waiting, in arrival order, with their byte count.
#[derive(Default)]
pub struct Fifo {
    pkts: VecDeque<Packet>,
    bytes: u64,
}

impl Fifo {
    pub fn push(&mut self, pkt: Packet) {
        self.bytes += pkt.size as u64;
        self.pkts.push_back(pkt);
    }
    pub fn pop(&mut self) -> Option<Packet> {
        let p = self.pkts.pop_front()?;
        self.bytes -= p.size as u64;
        Some(p)
    }
    pub fn pop_back(&mut self) -> Option<Packet> {
        let p = self.pkts.pop_back()?;
        self.bytes -= p.size as u64;
        Some(p)
    }
    /// Remove the packet at `index` (0 = head).
    pub fn remove(&mut self, index: usize) -> Option<Packet> {
        let p = self.pkts.remove(index)?;
        self.bytes -= p.size as u64;
        Some(p)
    }
    pub fn len(&self) -> usize {
        self.pkts.len()
    }
    pub fn is_empty(&self) -> bool {
        self.pkts.is_empty()
    }
    pub fn bytes(&self) -> u64 {
        self.bytes
    }
    pub fn iter_mut(&mut self) -> impl Iterator<Item = &mut Packet> {
        self.pkts.iter_mut()
    }

    /// Queue `pkt` (stamped with its enqueue time) if it fits `limit`, else drop it as an overflow.
    pub fn admit(&mut self, mut pkt: Packet, limit: Limit, now: Time, fx: &mut QueueEffects) {
        if limit.admits(self, &pkt) {
            pkt.enqueued_at = now;
            self.push(pkt);
        } else {
            fx.drop(pkt, DropReason::Overflow);
        }
    }
}

/// A buffer limit, in packets or bytes (packets waiting, not counting the one being serialized).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Limit {
    Packets(u64),
    Bytes(u64),
}

impl Limit {
    /// Would `pkt` fit in `fifo`?
    pub fn admits(&self, fifo: &Fifo, pkt: &Packet) -> bool {
        match *self {
            Limit::Packets(n) => (fifo.len() as u64) < n,
            Limit::Bytes(b) => fifo.bytes() + pkt.size as u64 <= b,
        }
    }
}

/// A queue discipline: the buffer and its admission/marking policy.
pub trait QueueDisc {
    /// A packet arrives; the discipline queues it, or drops/marks through `fx`.
    fn enqueue(&mut self, pkt: Packet, now: Time, fx: &mut QueueEffects);
    /// The link asks for the next packet; `None` means the link goes idle.
    fn dequeue(&mut self, now: Time, fx: &mut QueueEffects) -> Option<Packet>;
    /// Packets waiting.
    fn len(&self) -> usize;
    /// Bytes waiting.
    fn bytes(&self) -> u64;
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// When the discipline's own timer should next fire, if it has one.
    fn next_timer(&self) -> Option<Time> {
        None
    }
    /// The timer fired.
    fn on_timer(&mut self, _now: Time, _fx: &mut QueueEffects) {}
}

/// Static dispatch over the disciplines, so the hot path pays no virtual call.
pub enum AnyQueue {
    DropTail(DropTail),
    Red(Box<Red>),
}

macro_rules! dispatch {
    ($self:ident, $q:ident => $e:expr) => {
        match $self {
            AnyQueue::DropTail($q) => $e,
            AnyQueue::Red($q) => $e,
        }
    };
}

impl QueueDisc for AnyQueue {
    fn enqueue(&mut self, pkt: Packet, now: Time, fx: &mut QueueEffects) {
        dispatch!(self, q => q.enqueue(pkt, now, fx))
    }
    fn dequeue(&mut self, now: Time, fx: &mut QueueEffects) -> Option<Packet> {
        dispatch!(self, q => q.dequeue(now, fx))
    }
    fn len(&self) -> usize {
        dispatch!(self, q => q.len())
    }
    fn bytes(&self) -> u64 {
        dispatch!(self, q => q.bytes())
    }
    fn next_timer(&self) -> Option<Time> {
        dispatch!(self, q => q.next_timer())
    }
    fn on_timer(&mut self, now: Time, fx: &mut QueueEffects) {
        dispatch!(self, q => q.on_timer(now, fx))
    }
}

#[cfg(test)]
pub(crate) fn test_packet(flow: u32, seq: u32, size: u32) -> Packet {
    Packet { flow, seq, size, ecn: Ecn::NotEct, cwr: false, retransmit: false, tag: 0.0, enqueued_at: 0 }
}
