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
//! carry 0. The paper keeps a table of the queued indices with a pointer to the smallest (note §2.9); here
//! that table is a binary min-heap of (index, arrival number) beside the FIFO, so that finding and pushing
//! out the smallest costs O(log queue length) per drop and an arrival O(log queue length) at worst (O(1) on
//! average). Packets served or pushed out leave stale heap entries and holes in the FIFO that are skipped
//! lazily and swept out in one pass once they outnumber the queued packets, so the cost is amortised and
//! the memory of both is reused: nothing is allocated per packet in steady state. Indices are ordered by
//! `f32::total_cmp`. The paper's generalisation to AQM-triggered drops (its introduction) is not
//! implemented: only a full buffer drops.

use super::{
    resolve_limit, Discipline, Limit, QueueContext, QueueDisc, QueueEffects, Reason, LIMIT, LIMIT_BYTES,
};
use crate::packet::Packet;
use crate::spec::params::params;
use crate::spec::ScenarioError;
use crate::time::Time;
use crate::units::Bytes;
use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};

/// The reason the policy's drops are counted under.
pub const INDEX: Reason = Reason("index");

params! {
    /// The index policy at packet level (Avrachenkov, Ayesta, Doncel & Jacko 2013, Sec. 7): FIFO service;
    /// when the buffer is full, the packet with the smallest index (`tag`, written by the `whittle` sender)
    /// among the queued ones and the arrival is dropped, ties to the oldest (reason `index`).
    pub struct Spec {
        /// Packets waiting (required, or `limit_bytes`).
        limit: Option<u64> = None, LIMIT;
        /// Bytes waiting, instead of `limit`: smallest-index drops until the arrival fits.
        limit_bytes: Option<Bytes> = None, LIMIT_BYTES;
    }
}

/// An index as an unsigned key in the order of `f32::total_cmp` (-NaN < -inf < ... < -0 < +0 < ... < +inf
/// < NaN).
fn key(tag: f32) -> u32 {
    let b = tag.to_bits();
    if b >> 31 == 1 {
        !b
    } else {
        b | 1 << 31
    }
}

/// The buffer in arrival order: slot `i` holds the packet with arrival number `head + i`, or nothing if
/// the policy pushed it out. The first and last slots are never empty.
#[derive(Default)]
struct Slots {
    ring: VecDeque<Option<Packet>>,
    head: u64,
    len: usize,
    bytes: u64,
}

impl Slots {
    fn get(&self, seq: u64) -> Option<&Packet> {
        let i = seq.checked_sub(self.head)?;
        self.ring.get(i as usize)?.as_ref()
    }

    /// Queue `pkt`; its arrival number.
    fn push(&mut self, pkt: Packet) -> u64 {
        self.len += 1;
        self.bytes += pkt.size as u64;
        self.ring.push_back(Some(pkt));
        self.head + self.ring.len() as u64 - 1
    }

    fn pop(&mut self) -> Option<Packet> {
        let p = self.ring.pop_front()??;
        self.head += 1;
        self.len -= 1;
        self.bytes -= p.size as u64;
        self.trim();
        Some(p)
    }

    /// Take out the queued packet with arrival number `seq`.
    fn remove(&mut self, seq: u64) -> Option<Packet> {
        let i = seq.checked_sub(self.head)?;
        let p = self.ring.get_mut(i as usize)?.take()?;
        self.len -= 1;
        self.bytes -= p.size as u64;
        self.trim();
        Some(p)
    }

    /// Restore the invariant that the first and last slots hold packets.
    fn trim(&mut self) {
        while let Some(None) = self.ring.front() {
            self.ring.pop_front();
            self.head += 1;
        }
        while let Some(None) = self.ring.back() {
            self.ring.pop_back();
        }
    }

    /// The queued packets, head first.
    #[cfg(test)]
    fn iter_mut(&mut self) -> impl Iterator<Item = &mut Packet> {
        self.ring.iter_mut().flatten()
    }
}

pub struct IndexQueue {
    fifo: Slots,
    /// (index key, arrival number) of every queued packet, smallest first, plus stale entries of packets
    /// already served.
    heap: BinaryHeap<Reverse<(u32, u64)>>,
    limit: Limit,
}

impl IndexQueue {
    pub fn new(limit: Limit) -> Self {
        IndexQueue { fifo: Slots::default(), heap: BinaryHeap::new(), limit }
    }

    /// Would `pkt` fit now? (As `Limit::admits`.)
    fn admits(&self, pkt: &Packet) -> bool {
        match self.limit {
            Limit::Packets(n) => (self.fifo.len as u64) < n,
            Limit::Bytes(b) => self.fifo.bytes + pkt.size as u64 <= b,
        }
    }

    /// The index key and arrival number of the queued packet with the smallest index, the oldest among
    /// equals.
    fn lowest(&mut self) -> Option<(u32, u64)> {
        while let Some(&Reverse((k, seq))) = self.heap.peek() {
            if self.fifo.get(seq).is_some() {
                return Some((k, seq));
            }
            self.heap.pop();
        }
        None
    }

    /// Sweep out the holes and stale entries once they outnumber the queued packets: renumber the queued
    /// packets from `head` in order (which keeps ties going to the oldest) and rebuild the heap, in place.
    fn tidy(&mut self) {
        let slack = 2 * self.fifo.len + 64;
        if self.heap.len() <= slack && self.fifo.ring.len() <= slack {
            return;
        }
        self.fifo.ring.retain(|p| p.is_some());
        let head = self.fifo.head;
        self.heap.clear();
        self.heap.extend(
            self.fifo.ring.iter().flatten().enumerate().map(|(i, p)| Reverse((key(p.tag), head + i as u64))),
        );
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
        let k = key(pkt.tag);
        while !self.admits(&pkt) {
            match self.lowest() {
                Some((m, seq)) if k >= m => {
                    self.heap.pop();
                    if let Some(victim) = self.fifo.remove(seq) {
                        fx.drop(victim, INDEX);
                    }
                }
                _ => return fx.drop(pkt, INDEX),
            }
        }
        pkt.enqueued_at = now;
        let seq = self.fifo.push(pkt);
        self.heap.push(Reverse((k, seq)));
        self.tidy();
    }

    fn dequeue(&mut self, _now: Time, _fx: &mut QueueEffects) -> Option<Packet> {
        self.fifo.pop()
    }

    fn len(&self) -> usize {
        self.fifo.len
    }

    fn bytes(&self) -> u64 {
        self.fifo.bytes
    }
    fn capacity(&self) -> Option<Limit> {
        Some(self.limit)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::queue::{test_context, test_packet, Fifo, Stage};
    use crate::rng::Rng;

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

    /// The policy as the paper states it, by scanning the whole buffer on every overflow.
    struct Scan {
        fifo: Fifo,
        limit: Limit,
    }

    impl Scan {
        fn enqueue(&mut self, pkt: Packet, fx: &mut QueueEffects) {
            while !self.limit.admits(&self.fifo, &pkt) {
                let mut best: Option<(usize, f32)> = None;
                for (i, p) in self.fifo.iter_mut().enumerate() {
                    if best.is_none_or(|(_, m)| p.tag.total_cmp(&m).is_lt()) {
                        best = Some((i, p.tag));
                    }
                }
                match best {
                    Some((i, m)) if pkt.tag.total_cmp(&m).is_ge() => {
                        let victim = self.fifo.remove(i).unwrap();
                        fx.drop(victim, INDEX);
                    }
                    _ => return fx.drop(pkt, INDEX),
                }
            }
            self.fifo.push(pkt);
        }
    }

    #[test]
    fn key_orders_as_total_cmp() {
        let tags = [
            f32::NEG_INFINITY,
            -3.5,
            -f32::MIN_POSITIVE,
            -1e-45,
            -0.0,
            0.0,
            1e-45,
            f32::MIN_POSITIVE,
            1.0,
            f32::MAX,
            f32::INFINITY,
            f32::NAN,
            -f32::NAN,
        ];
        for a in tags {
            for b in tags {
                assert_eq!(key(a).cmp(&key(b)), a.total_cmp(&b), "{a} vs {b}");
            }
        }
    }

    /// Random arrivals and services against the plain scan: same drops in the same order, same packets
    /// served, same buffer, over packet and byte limits, tags from a few values (many ties, both zeros,
    /// infinities) or from any non-NaN bit pattern, and bursts that leave holes to be swept out.
    #[test]
    fn matches_the_plain_scan_on_random_tags() {
        let few = [0.0, -0.0, 1.0, 2.0, 2.5, -1.0, f32::INFINITY, f32::NEG_INFINITY, 1e-40];
        let mut rng = Rng::new(7, 9);
        let draw = |n: u64, rng: &mut Rng| rng.next_u64() % n;
        let mut overflows = 0;
        for case in 0..400 {
            let limit = if case % 2 == 0 {
                Limit::Packets(1 + draw(40, &mut rng))
            } else {
                Limit::Bytes(500 + draw(30_000, &mut rng))
            };
            let distinct = case % 3;
            let mut q = IndexQueue::new(limit);
            let mut scan = Scan { fifo: Fifo::default(), limit };
            let (mut fx, mut fx_scan) = (QueueEffects::default(), QueueEffects::default());
            let mut p_arrival = 0.5;
            let mut most = 0;
            for seq in 0..3000u32 {
                if seq % 200 == 0 {
                    // Phases: draining, balanced, and bursts far above the service rate.
                    p_arrival = [0.3, 0.5, 0.7, 0.97, 1.0][draw(5, &mut rng) as usize];
                }
                if rng.uniform() < p_arrival {
                    let tag = match distinct {
                        0 => few[draw(3, &mut rng) as usize],
                        1 => few[draw(few.len() as u64, &mut rng) as usize],
                        _ => loop {
                            let t = f32::from_bits(rng.next_u64() as u32);
                            if !t.is_nan() {
                                break t;
                            }
                        },
                    };
                    let size = match limit {
                        Limit::Packets(_) => 1000,
                        Limit::Bytes(_) => 40 + draw(2960, &mut rng) as u32,
                    };
                    let pkt = Packet { tag, ..test_packet(case, seq, size) };
                    q.enqueue(pkt, 0, &mut fx);
                    scan.enqueue(pkt, &mut fx_scan);
                    overflows += !fx.drops.is_empty() as u32;
                } else {
                    assert_eq!(q.dequeue(0, &mut fx), scan.fifo.pop());
                }
                assert_eq!(fx.drops, fx_scan.drops);
                fx.drops.clear();
                fx_scan.drops.clear();
                assert_eq!((q.len(), q.bytes()), (scan.fifo.len(), scan.fifo.bytes()));
                assert!(q.fifo.iter_mut().eq(scan.fifo.iter_mut()));
                // Holes and stale entries stay within the sweep's slack (of the longest queue so far: served
                // packets' entries wait for the next arrival).
                most = most.max(q.len());
                assert!(q.fifo.ring.len() <= 2 * most + 64 && q.heap.len() <= 2 * most + 64);
            }
        }
        assert!(overflows > 100_000, "{overflows}");
    }

    #[test]
    fn holes_left_behind_a_high_index_head_are_swept_out() {
        // The head (index 9) stays while each arrival of index 1 pushes out the oldest index 1 behind it.
        let mut q = IndexQueue::new(Limit::Packets(3));
        let mut fx = QueueEffects::default();
        q.enqueue(tagged(0, 0, 9.0), 0, &mut fx);
        for s in 1..1000 {
            q.enqueue(tagged(0, s, 1.0), 0, &mut fx);
        }
        assert_eq!(fx.drops.len(), 997);
        assert!(fx.drops.iter().enumerate().all(|(i, d)| d.0.seq == i as u32 + 1));
        assert_eq!(queued(&mut q), vec![(0, 9.0), (998, 1.0), (999, 1.0)]);
        assert!(q.fifo.ring.len() <= 2 * 3 + 64 + 1);
    }

    #[test]
    fn limit_is_required() {
        let e = IndexQueue::from_spec(&Spec::default(), test_context("links[0].queue")).err().unwrap();
        assert_eq!(e.field, "links[0].queue.limit");
    }
}
