//! The index policy's router: Avrachenkov, Ayesta, Doncel & Jacko, "Congestion control of TCP flows in
//! Internet routers by means of index policy" (2013), Sec. 7 "Heuristic index policy at packet level"
//! (paper note §2.9, §3.2).
//!
//! Each sender writes on every packet the Whittle index of its current window (`Packet::tag`, see the
//! `whittle` controller). Service is FIFO; the policy only chooses **which** packet is lost when the buffer
//! is full: of the packets queued and the arriving one, the one with the **smallest index**, ties going to
//! the packet that has been longest in the queue (so an arrival whose index equals the smallest queued one
//! pushes that queued packet out). Drops are counted under the reason `index`. With `limit_bytes`, packets
//! are dropped this way until the arrival fits (or is itself the one dropped).
//!
//! Packets from senders that write no index (other controllers, ACKs crossing queued links, datagrams)
//! carry 0. The paper keeps a table of the queued indices with a pointer to the smallest; here the buffer
//! is scanned when it is full, O(queue length) per overflow, nothing otherwise. The paper's generalisation
//! to AQM-triggered drops (its introduction) is not implemented: only a full buffer drops.

use super::{resolve_limit, Discipline, Fifo, Limit, QueueContext, QueueDisc, QueueEffects, Reason};
use crate::packet::Packet;
use crate::scenario::ScenarioError;
use crate::time::Time;
use crate::units::Bytes;
use serde::Deserialize;

/// The reason the policy's drops are counted under.
pub const INDEX: Reason = Reason("index");

/// `{ discipline = "index", limit = 13 }` (or `limit_bytes`).
#[derive(Deserialize, serde::Serialize, Debug, Clone, Default)]
#[serde(deny_unknown_fields)]
pub struct Spec {
    pub limit: Option<u64>,
    pub limit_bytes: Option<Bytes>,
}

pub struct IndexQueue {
    fifo: Fifo,
    limit: Limit,
}

impl IndexQueue {
    pub fn new(limit: Limit) -> Self {
        IndexQueue { fifo: Fifo::default(), limit }
    }

    /// The position of the queued packet with the smallest index, the oldest among equals, and its index.
    fn lowest(&mut self) -> Option<(usize, f32)> {
        let mut best: Option<(usize, f32)> = None;
        for (i, p) in self.fifo.iter_mut().enumerate() {
            if best.is_none_or(|(_, m)| p.tag.total_cmp(&m).is_lt()) {
                best = Some((i, p.tag));
            }
        }
        best
    }
}

impl Discipline for IndexQueue {
    type Spec = Spec;
    fn build(spec: &Spec, ctx: QueueContext) -> Result<Self, ScenarioError> {
        Ok(IndexQueue::new(resolve_limit(spec.limit, spec.limit_bytes, &ctx)?))
    }
}

impl QueueDisc for IndexQueue {
    fn enqueue(&mut self, mut pkt: Packet, now: Time, fx: &mut QueueEffects) {
        while !self.limit.admits(&self.fifo, &pkt) {
            match self.lowest() {
                Some((i, m)) if pkt.tag.total_cmp(&m).is_ge() => {
                    if let Some(victim) = self.fifo.remove(i) {
                        fx.drop(victim, INDEX);
                    }
                }
                _ => return fx.drop(pkt, INDEX),
            }
        }
        pkt.enqueued_at = now;
        self.fifo.push(pkt);
    }

    fn dequeue(&mut self, _now: Time, _fx: &mut QueueEffects) -> Option<Packet> {
        self.fifo.pop()
    }

    fn len(&self) -> usize {
        self.fifo.len()
    }

    fn bytes(&self) -> u64 {
        self.fifo.bytes()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::queue::{test_context, test_packet, Stage};

    fn tagged(flow: u32, seq: u32, tag: f32) -> Packet {
        Packet { tag, ..test_packet(flow, seq, 1000) }
    }

    fn queued(q: &mut IndexQueue) -> Vec<(u32, f32)> {
        q.fifo.iter_mut().map(|p| (p.seq, p.tag)).collect()
    }

    #[test]
    fn drops_the_smallest_index_oldest_first_across_queue_and_arrival() {
        let mut q = IndexQueue::new(Limit::Packets(5));
        let mut fx = QueueEffects::default();
        for (s, tag) in [3.0, 1.0, 2.0, 1.0, 5.0].into_iter().enumerate() {
            q.enqueue(tagged(0, s as u32, tag), 0, &mut fx);
        }
        assert!(fx.drops.is_empty());
        // Full: an arrival of index 4 pushes out the older of the two packets of index 1 (seq 1).
        q.enqueue(tagged(0, 5, 4.0), 0, &mut fx);
        assert_eq!(fx.drops, vec![(tagged(0, 1, 1.0), INDEX, Stage::BeforeEnqueue)]);
        assert_eq!(queued(&mut q), vec![(0, 3.0), (2, 2.0), (3, 1.0), (4, 5.0), (5, 4.0)]);
        // An arrival below every queued index is itself the one dropped.
        fx.drops.clear();
        q.enqueue(tagged(0, 6, 0.5), 0, &mut fx);
        assert_eq!(fx.drops, vec![(tagged(0, 6, 0.5), INDEX, Stage::BeforeEnqueue)]);
        // A tie between the arrival and the smallest queued index: the queued packet is older.
        fx.drops.clear();
        q.enqueue(tagged(0, 7, 1.0), 0, &mut fx);
        assert_eq!(fx.drops, vec![(tagged(0, 3, 1.0), INDEX, Stage::BeforeEnqueue)]);
        assert_eq!(queued(&mut q), vec![(0, 3.0), (2, 2.0), (4, 5.0), (5, 4.0), (7, 1.0)]);
        // Service stays FIFO.
        let order: Vec<u32> = std::iter::from_fn(|| q.dequeue(0, &mut fx)).map(|p| p.seq).collect();
        assert_eq!(order, vec![0, 2, 4, 5, 7]);
    }

    #[test]
    fn byte_limit_drops_until_the_arrival_fits() {
        let mut q = IndexQueue::new(Limit::Bytes(3000));
        let mut fx = QueueEffects::default();
        for (s, tag) in [2.0, 1.0, 3.0].into_iter().enumerate() {
            q.enqueue(tagged(0, s as u32, tag), 0, &mut fx);
        }
        // 2,000 bytes of index 2.5 need two packets out: index 1, then index 2.
        q.enqueue(Packet { tag: 2.5, ..test_packet(1, 9, 2000) }, 0, &mut fx);
        let dropped: Vec<u32> = fx.drops.iter().map(|d| d.0.seq).collect();
        assert_eq!(dropped, vec![1, 0]);
        assert_eq!((q.len(), q.bytes()), (2, 3000));
        // 2,500 bytes of index 2.9: the packet of index 2.5 goes, then the arrival is the smallest left.
        fx.drops.clear();
        q.enqueue(Packet { tag: 2.9, ..test_packet(1, 10, 2500) }, 0, &mut fx);
        let dropped: Vec<(u32, u32)> = fx.drops.iter().map(|d| (d.0.flow, d.0.seq)).collect();
        assert_eq!(dropped, vec![(1, 9), (1, 10)]);
        assert_eq!(queued(&mut q), vec![(2, 3.0)]);
    }

    #[test]
    fn limit_is_required() {
        let e = IndexQueue::build(&Spec::default(), test_context("links[0].queue")).err().unwrap();
        assert_eq!(e.field, "links[0].queue.limit");
    }
}
