//! FQ-CoDel, "Flow Queue CoDel" (Hoeiland-Joergensen, McKenney, Taht, Gettys & Dumazet, RFC 8290 §4),
//! following ns-3 3.44's `FqCoDelQueueDisc` (itself a port of Linux's `sch_fq_codel`) where the RFC leaves a
//! choice.
//!
//! - **Classification** (§4.1): a packet goes to one of `flows` queues by its flow identity, the key
//!   `k = 3·flow + kind` (kind 0 for TCP data, 1 for ACKs crossing queued ports, 2 for datagrams, whose
//!   `flow` is the source index), so that data, ACKs and datagrams never share a key. `hash = "perturbed"`
//!   (the default, as ns-3 and Linux hash the 5-tuple with a salt): queue `mix64(k + 2^34·perturbation) mod
//!   flows`, SplitMix64's output function, so flows may collide as in a real FQ-CoDel (with 1024 queues and
//!   N flows, each other flow shares a given flow's queue with probability 1/1024, §5.3); `perturbation`
//!   (ns-3's attribute) is drawn from the port's random stream unless given. `hash = "flow"`: queue `k mod
//!   flows`, collision-free while the largest key is below `flows` (an idealised per-flow queueing).
//! - **Enqueue** (§4.1, §5.2.3): the packet is stamped and appended to its queue; a queue that was in neither list
//!   joins the end of the new-flows list with `deficit = quantum` (`new_flow_count` counts these). Then, if
//!   more than `limit` packets wait over all queues, the queue with the most bytes (ties: the one used
//!   first, as ns-3 scans its queues in order of creation) loses packets from its head until `drop_batch`
//!   packets or half its bytes are gone (ns-3's `FqCoDelDrop`, Linux's `fq_codel_drop`): reason `overflow`,
//!   before enqueue. The arrival is queued first, so it is itself dropped only if its queue is the fattest
//!   and the batch reaches it.
//! - **Dequeue** (§4.2): the head of the new list is served if its deficit is positive, else it gets
//!   `quantum` more and moves to the end of the old list, and so on; when the new list is empty the old list
//!   is walked the same way (a queue without deficit gets `quantum` and goes to the end). The chosen queue's
//!   CoDel (`codel.rs`'s [`CoDelState`], one per queue) returns its packet, after any drops (reason `codel`,
//!   after dequeue) or with a CE mark; the packet's size is taken from the deficit (CoDel's drops are not).
//!   If CoDel returns nothing the queue is empty: a queue from the new list moves to the end of the old list
//!   (so a flow cannot stay "new" by emptying its queue every round and starve the old ones), one from the
//!   old list leaves both lists; then the selection starts again.
//! - **CoDel per queue** (§5.2.1–5.2.2): `target`, `interval`, `mtu` and the control law exactly as the
//!   `codel` discipline, on each queue's own packets and sojourn times. Its maxpacket check is per queue, as
//!   in ns-3 (the child `CoDelQueueDisc` looks at its own bytes: no drop while fewer than `MinBytes` = 1500
//!   wait, i.e. ours with `mtu = 1499`); Linux compares the whole backlog with the device MTU.
//! - **ECN** (§5.2.6): `ecn` is on by default, as in ns-3 (`UseEcn`) and Linux: ECN-capable packets are
//!   CE-marked instead of CoDel's drops, Not-ECT ones are dropped (so with Not-ECT senders the default
//!   changes nothing). `ce_threshold` (§5.2.7, ns-3's `CeThreshold`): with `ecn`, a packet leaving after
//!   more than `ce_threshold` in its queue is CE-marked too (reason `ce_threshold`), unless CoDel just
//!   marked it.
//!
//! Differences from ns-3: `limit` is the only buffer limit (ns-3's child CoDel queues also refuse an arrival
//! when that one queue alone holds `limit` packets; the RFC and Linux have no per-queue limit, and neither
//! does this); `quantum` defaults to the port's packet size (ns-3: the device MTU, 1500 B on
//! point-to-point links; Linux: 1514 B); the hash is over (kind, flow) rather than a 5-tuple; L4S mode
//! (`UseL4s`), set-associative hashing and packet filters are not implemented; ns-3 records the batch drops
//! as drops after dequeue, here they are drops before enqueue (they never reach the link). The per-queue
//! CoDel is `codel`'s, with its choices: after a mark in drop state the next drop is scheduled from
//! `drop_next` (Linux; ns-3 from now), times in picoseconds with an exact √count (ns-3: 1024 ns units and
//! Newton steps).

use super::codel::{CoDelState, Params, INTERVAL, MTU, MTU_FLOOR, TARGET};
use super::{reason, Discipline, Fifo, Limit, QueueContext, QueueDisc, QueueEffects, Reason};
use crate::packet::{Kind, Packet};
use crate::rng::mix64;
use crate::spec::params::{name_params, params};
use crate::spec::{err, ScenarioError};
use crate::time::{from_secs, Time};
use crate::units::{Bytes, Seconds};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, VecDeque};

/// CE marks for a sojourn above `ce_threshold`.
pub const CE_THRESHOLD: Reason = Reason("ce_threshold");

/// How packets are spread over the flow queues.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Hash {
    /// A hash of the key with a perturbation (collisions possible, as in ns-3 and Linux).
    Perturbed,
    /// The key modulo the number of queues.
    Flow,
}

params! {
    /// FQ-CoDel (RFC 8290, Linux `sch_fq_codel`, ns-3 `FqCoDelQueueDisc`): packets hashed into flow queues
    /// served by deficit round robin, new queues first, each under its own CoDel.
    pub struct Spec {
        /// Packets waiting over all queues (Linux's and ns-3's 10240); an arrival is always queued, then if
        /// more than `limit` wait the fattest queue loses packets from its head, up to `drop_batch` or half
        /// its bytes.
        limit: u64 = 10240, Rule::closed(1.0, (1u64 << 40) as f64).unit("packets");
        /// Flow queues (ns-3 `Flows`, Linux `flows`).
        flows: u32 = 1024, Rule::closed(1.0, 65536.0);
        /// DRR quantum, bytes per round; default: the packet size of the flows crossing the port.
        quantum: Option<Bytes> = None, Rule::closed(MTU_FLOOR, 1e9).default_is("the packet size");
        /// Most packets dropped from the fattest queue at an overflow (ns-3 `DropBatchSize`).
        drop_batch: u32 = 64, Rule::closed(1.0, (1u32 << 20) as f64);
        /// How packets are spread over the queues, by the key 3·flow + kind (data, ACK, datagram):
        /// "perturbed" (a salted 64-bit mix of the key, collisions possible, as ns-3's and Linux's hash of
        /// the 5-tuple) or "flow" (the key modulo `flows`).
        hash: Hash = Hash::Perturbed, Rule::names(&["perturbed", "flow"]);
        /// The hash's salt; default: drawn from the port's random stream.
        perturbation: Option<u32> = None,
            Rule::closed(0.0, u32::MAX as f64).default_is("drawn from the port's random stream");
        /// CoDel's target per queue.
        target: Seconds = Seconds(0.005), TARGET;
        /// CoDel's interval per queue.
        interval: Seconds = Seconds(0.1), INTERVAL;
        /// CoDel's maxpacket per queue; default: the packet size of the flows crossing the port.
        mtu: Option<Bytes> = None, MTU.default_is("the packet size");
        /// CE-mark instead of CoDel's drops; default on, as ns-3 and Linux (`ecn = true` needs tcp.ecn).
        ecn: Option<bool> = None, Rule::ANY.default_is("true");
        /// CE-mark every ECN-capable packet whose sojourn exceeds this; default: never.
        ce_threshold: Option<Seconds> = None,
            Rule::closed(0.0, 3600.0).and_context("needs ecn and tcp.ecn").default_is("never");
    }
}

name_params!(Hash);

/// One flow queue: its packets, its CoDel, its DRR deficit.
#[derive(Default)]
struct FlowQueue {
    fifo: Fifo,
    codel: CoDelState,
    deficit: i64,
    /// In the new or the old list.
    active: bool,
    /// Has held a packet.
    used: bool,
}

pub struct FqCoDel {
    queues: Vec<FlowQueue>,
    /// Queues in the order they first held a packet (where the fattest is looked for).
    used: Vec<u32>,
    new_flows: VecDeque<u32>,
    old_flows: VecDeque<u32>,
    codel: Params,
    limit: u64,
    quantum: i64,
    drop_batch: u32,
    hash: Hash,
    perturbation: u32,
    ce_threshold: Option<Time>,
    len: usize,
    bytes: u64,
    new_flow_count: u64,
}

impl Discipline for FqCoDel {
    type Spec = Spec;
    fn build(s: &Spec, ctx: QueueContext) -> Result<Self, ScenarioError> {
        let quantum = ctx.bytes_or_packet_size("quantum", s.quantum, MTU_FLOOR)?;
        let ecn = s.ecn.unwrap_or(true);
        let codel = Params::new(s.target, s.interval, s.mtu, ecn, &ctx)?;
        ctx.check_ecn(s.ecn == Some(true))?;
        let ce_threshold = match s.ce_threshold {
            None => None,
            Some(t) => {
                let field = ctx.field("ce_threshold");
                if !ecn {
                    return err(&field, "needs ecn = true (only ECN marks are made at the threshold)");
                }
                if !ctx.ecn_senders {
                    return err(&field, "needs tcp.ecn = true (senders must send ECT packets)");
                }
                Some(from_secs(t.0))
            }
        };
        let mut rng = ctx.rng;
        let perturbation = s.perturbation.unwrap_or_else(|| rng.next_u64() as u32);
        Ok(FqCoDel {
            queues: (0..s.flows).map(|_| FlowQueue::default()).collect(),
            used: Vec::new(),
            new_flows: VecDeque::new(),
            old_flows: VecDeque::new(),
            codel,
            limit: s.limit,
            quantum: quantum as i64,
            drop_batch: s.drop_batch,
            hash: s.hash,
            perturbation,
            ce_threshold,
            len: 0,
            bytes: 0,
            new_flow_count: 0,
        })
    }
}

impl FqCoDel {
    /// The flow queue of `pkt` (§4.1).
    fn classify(&self, pkt: &Packet) -> usize {
        let kind = match pkt.kind {
            Kind::Data => 0,
            Kind::Ack => 1,
            Kind::Datagram => 2,
        };
        let key = 3 * pkt.flow as u64 + kind;
        let n = self.queues.len() as u64;
        match self.hash {
            Hash::Perturbed => (mix64(key + ((self.perturbation as u64) << 34)) % n) as usize,
            Hash::Flow => (key % n) as usize,
        }
    }

    /// Over `limit`: drop from the head of the queue with the most bytes until `drop_batch` packets or half
    /// its bytes are gone (ns-3 `FqCoDelDrop`).
    fn drop_from_fattest(&mut self, fx: &mut QueueEffects) {
        let mut fattest = 0;
        let mut most = 0;
        for &i in &self.used {
            let bytes = self.queues[i as usize].fifo.bytes();
            if bytes > most {
                (fattest, most) = (i as usize, bytes);
            }
        }
        let q = &mut self.queues[fattest];
        let (mut dropped, mut bytes) = (0, 0);
        while let Some(p) = q.fifo.pop() {
            bytes += p.size as u64;
            fx.drop(p, reason::OVERFLOW);
            dropped += 1;
            if dropped >= self.drop_batch || bytes >= most / 2 {
                break;
            }
        }
        self.len -= dropped as usize;
        self.bytes -= bytes;
    }

    /// §4.2's choice of a queue: the first with a positive deficit, new list first; queues without one get
    /// `quantum` more and go to the end of the old list. The queue, and whether it is from the new list.
    fn next_queue(&mut self) -> Option<(usize, bool)> {
        while let Some(&i) = self.new_flows.front() {
            let q = &mut self.queues[i as usize];
            if q.deficit > 0 {
                return Some((i as usize, true));
            }
            q.deficit += self.quantum;
            self.new_flows.pop_front();
            self.old_flows.push_back(i);
        }
        while let Some(&i) = self.old_flows.front() {
            let q = &mut self.queues[i as usize];
            if q.deficit > 0 {
                return Some((i as usize, false));
            }
            q.deficit += self.quantum;
            self.old_flows.rotate_left(1);
        }
        None
    }
}

impl QueueDisc for FqCoDel {
    fn enqueue(&mut self, mut pkt: Packet, now: Time, fx: &mut QueueEffects) {
        let i = self.classify(&pkt);
        let q = &mut self.queues[i];
        if !q.used {
            q.used = true;
            self.used.push(i as u32);
        }
        if !q.active {
            q.active = true;
            q.deficit = self.quantum;
            self.new_flows.push_back(i as u32);
            self.new_flow_count += 1;
        }
        pkt.enqueued_at = now;
        self.len += 1;
        self.bytes += pkt.size as u64;
        q.fifo.push(pkt);
        if self.len as u64 > self.limit {
            self.drop_from_fattest(fx);
        }
    }

    fn dequeue(&mut self, now: Time, fx: &mut QueueEffects) -> Option<Packet> {
        loop {
            let (i, from_new) = self.next_queue()?;
            let q = &mut self.queues[i];
            let (len, bytes) = (q.fifo.len(), q.fifo.bytes());
            let got = q.codel.dequeue(&mut q.fifo, &self.codel, now, fx);
            self.len -= len - q.fifo.len();
            self.bytes -= bytes - q.fifo.bytes();
            if let Some(mut pkt) = got {
                q.deficit -= pkt.size as i64;
                if let Some(threshold) = self.ce_threshold {
                    if now.saturating_sub(pkt.enqueued_at) > threshold {
                        // A packet CoDel has just marked is CE already: `mark` leaves it uncounted.
                        fx.mark(&mut pkt, CE_THRESHOLD);
                    }
                }
                return Some(pkt);
            }
            if from_new {
                self.new_flows.pop_front();
                self.old_flows.push_back(i as u32);
            } else {
                self.old_flows.pop_front();
                q.active = false;
            }
        }
    }

    fn len(&self) -> usize {
        self.len
    }

    fn bytes(&self) -> u64 {
        self.bytes
    }

    fn capacity(&self) -> Option<Limit> {
        // An arrival is queued before the fattest queue is trimmed back to the limit.
        Some(Limit::Packets(self.limit + 1))
    }

    fn report(&self, out: &mut BTreeMap<String, f64>) {
        out.insert("new_flow_count".into(), self.new_flow_count as f64);
        out.insert("new_flows".into(), self.new_flows.len() as f64);
        out.insert("old_flows".into(), self.old_flows.len() as f64);
        out.insert("queues_used".into(), self.used.len() as f64);
        let drop_states: u64 = self.queues.iter().map(|q| q.codel.drop_states()).sum();
        out.insert("drop_states".into(), drop_states as f64);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::packet::Ecn;
    use crate::queue::codel::CODEL;
    use crate::queue::{test_context, test_packet, QueueSpec, Stage};
    use crate::rng::Rng;

    const MS: Time = 1_000_000_000;

    /// FQ-CoDel on the test port (1000-byte packets, ECN senders), queues indexed by key (`hash = "flow"`:
    /// TCP flow f's data in queue 3f).
    fn fq(spec: Spec) -> FqCoDel {
        FqCoDel::from_spec(&spec, test_context("q")).unwrap()
    }

    fn by_flow() -> Spec {
        Spec { hash: Hash::Flow, ..Spec::default() }
    }

    fn add(q: &mut FqCoDel, flow: u32, n: u32, size: u32, at: Time) {
        let mut fx = QueueEffects::default();
        let first = q.queues[3 * flow as usize].fifo.len() as u32;
        for s in first..first + n {
            q.enqueue(test_packet(flow, s, size), at, &mut fx);
        }
        assert!(fx.drops.is_empty());
    }

    /// The flows of the next `n` packets served at `now`.
    fn serve(q: &mut FqCoDel, n: usize, now: Time) -> Vec<u32> {
        let mut fx = QueueEffects::default();
        (0..n).map(|_| q.dequeue(now, &mut fx).unwrap().flow).collect()
    }

    /// The totals agree with the queues.
    fn assert_totals(q: &FqCoDel) {
        assert_eq!(q.len, q.queues.iter().map(|f| f.fifo.len()).sum::<usize>());
        assert_eq!(q.bytes, q.queues.iter().map(|f| f.fifo.bytes()).sum::<u64>());
    }

    #[test]
    fn drr_shares_bytes_between_packet_sizes() {
        // Quantum 1500 B; flow 0 sends 1000-byte packets, flow 1 500-byte ones, both backlogged.
        let mut q = fq(Spec { quantum: Some(Bytes(1500.0)), ..by_flow() });
        add(&mut q, 0, 30, 1000, 0);
        add(&mut q, 1, 60, 500, 0);
        // New list [0, 1], deficits 1500: flow 0 sends 1000 + 1000 (deficit −500), gets 1500 and goes to the
        // old list; flow 1 sends 3 × 500 (deficit 0), gets 1500 and follows. Then rounds of the old list:
        // flow 0 (deficit 1000) sends once, flow 1 three times, flow 0 (1500) twice, flow 1 three times ...
        let order = serve(&mut q, 18, 0);
        assert_eq!(order, [0, 0, 1, 1, 1, 0, 1, 1, 1, 0, 0, 1, 1, 1, 0, 1, 1, 1]);
        // 6000 bytes each.
        let bytes = |f| order.iter().filter(|&&x| x == f).count() as u32 * if f == 0 { 1000 } else { 500 };
        assert_eq!((bytes(0), bytes(1)), (6000, 6000));
        assert_eq!((q.queues[0].deficit, q.queues[3].deficit), (1500, 0));
        assert_totals(&q);
    }

    #[test]
    fn a_new_sparse_flow_is_served_before_the_old_ones() {
        let mut q = fq(by_flow());
        add(&mut q, 0, 10, 1000, 0);
        // Flow 0 spends its quantum, gets another and moves to the old list.
        assert_eq!(serve(&mut q, 2, 0), [0, 0]);
        assert_eq!((q.new_flows.len(), q.old_flows.iter().copied().collect::<Vec<_>>()), (0, vec![0]));
        add(&mut q, 1, 1, 500, 0);
        assert_eq!(q.new_flows, [3]);
        // The sparse flow's packet goes first, though flow 0 has 8 waiting.
        assert_eq!(serve(&mut q, 1, 0), [1]);
        assert_eq!(q.new_flow_count, 2);
    }

    #[test]
    fn an_emptied_new_queue_moves_to_the_end_of_the_old_list() {
        let mut q = fq(by_flow());
        add(&mut q, 0, 20, 250, 0);
        // Flow 0: four packets from the new list, then from the old list with deficit 1000 (750 after).
        assert_eq!(serve(&mut q, 5, 0), [0; 5]);
        assert_eq!((q.old_flows[0], q.queues[0].deficit), (0, 750));
        add(&mut q, 1, 1, 500, 0);
        assert_eq!(serve(&mut q, 1, 0), [1]);
        // Flow 1's queue is empty but still in the new list with deficit 500: the next dequeue finds it empty
        // and moves it to the end of the old list (RFC 8290 §4.2), then serves flow 0.
        assert_eq!(q.new_flows, [3]);
        assert_eq!(serve(&mut q, 1, 0), [0]);
        assert!(q.new_flows.is_empty() && q.queues[3].active);
        assert_eq!(q.old_flows, [0, 3]);
        // So flow 1's next packet waits for its turn in the old list: flow 0 spends the rest of its deficit
        // first. (Had the queue left the lists, the packet would make it new and go at once.)
        add(&mut q, 1, 1, 500, 0);
        assert!(q.new_flows.is_empty());
        assert_eq!(serve(&mut q, 3, 0), [0, 0, 1]);
        // Flow 0 spends a new quantum (4 packets); then flow 1's queue, found empty at the head of the old
        // list, leaves both lists, and flow 0 goes on.
        assert_eq!(serve(&mut q, 5, 0), [0; 5]);
        assert!(!q.queues[3].active && q.old_flows == [0]);
        assert_totals(&q);
    }

    /// FQ-CoDel with `spec` and the backlogs `(flow, packets, size)` in that order, after one more arrival:
    /// the queue and the (flow, seq) of the packets dropped, all overflows before enqueue.
    fn overflow(spec: Spec, backlogs: &[(u32, u32, u32)], arrival: Packet) -> (FqCoDel, Vec<(u32, u32)>) {
        let mut q = fq(spec);
        for &(flow, n, size) in backlogs {
            add(&mut q, flow, n, size, 0);
        }
        let mut fx = QueueEffects::default();
        q.enqueue(arrival, 0, &mut fx);
        assert!(fx.drops.iter().all(|&(_, r, s)| r == reason::OVERFLOW && s == Stage::BeforeEnqueue));
        assert_totals(&q);
        (q, fx.drops.iter().map(|(p, _, _)| (p.flow, p.seq)).collect())
    }

    #[test]
    fn overflow_drops_a_batch_from_the_head_of_the_fattest_queue() {
        // The 11th packet (flow 1) is queued, then flow 0 (6000 B) loses head packets until half its bytes
        // (3000) are gone.
        let backlogs = [(0, 6, 1000), (1, 4, 500)];
        let (q, dropped) = overflow(Spec { limit: 10, ..by_flow() }, &backlogs, test_packet(1, 4, 500));
        assert_eq!(dropped, [(0, 0), (0, 1), (0, 2)]);
        assert_eq!((q.len(), q.bytes()), (8, 5500));
        // At most drop_batch packets.
        let spec = Spec { limit: 10, drop_batch: 2, ..by_flow() };
        let (q, dropped) = overflow(spec, &backlogs, test_packet(1, 4, 500));
        assert_eq!((dropped, q.len()), (vec![(0, 0), (0, 1)], 9));
        // The arrival's own queue: its head goes, not the arrival.
        let (mut q, dropped) =
            overflow(Spec { limit: 4, ..by_flow() }, &[(0, 4, 1000)], test_packet(0, 4, 1000));
        assert_eq!(dropped, [(0, 0), (0, 1), (0, 2)]);
        assert_eq!(q.queues[0].fifo.iter_mut().map(|p| p.seq).collect::<Vec<_>>(), [3, 4]);
        // Equal backlogs: the queue used first (ns-3 scans in order of creation), here flow 1's (queue 3).
        let backlogs = [(1, 5, 1000), (0, 5, 1000)];
        let (_, dropped) = overflow(Spec { limit: 10, ..by_flow() }, &backlogs, test_packet(2, 0, 1000));
        assert_eq!(dropped, [(1, 0), (1, 1), (1, 2)]);
    }

    #[test]
    fn codel_drops_only_the_queue_whose_sojourn_stays_above_target() {
        // Flow 0: 200 packets from time 0, a standing queue. Flow 1: 3 packets 1 ms before each service
        // round, all served in the round (sojourn 1 ms < 5 ms). Rounds every 20 ms from 10 ms.
        let mut q = fq(by_flow());
        add(&mut q, 0, 200, 1000, 0);
        let mut fx = QueueEffects::default();
        let mut drops_after = Vec::new();
        for t in (10..=310).step_by(20) {
            let now = t * MS;
            for s in 0..3 {
                q.enqueue(test_packet(1, s, 1000), now - MS, &mut fx);
            }
            while !q.queues[3].fifo.is_empty() {
                q.dequeue(now, &mut fx).unwrap();
            }
            drops_after.push((t, fx.drops.len()));
        }
        // Flow 0's sojourn is above target from its first service at 10 ms: first_above_time = 110 ms, the
        // first drop at 110 ms (count 1, drop_next 210 ms), the second at 210 ms (drop_next 280.71 ms), the
        // third at 290 ms (drop_next 338.45 ms).
        let dropped: Vec<usize> = drops_after.iter().map(|&(_, n)| n).collect();
        assert_eq!(dropped, [0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3]);
        assert!(fx.drops.iter().all(|(p, r, s)| p.flow == 0 && *r == CODEL && *s == Stage::AfterDequeue));
        assert_eq!(q.queues[0].codel.drop_state(), (true, 3, 210 * MS + 70_710_678_119 + 57_735_026_919));
        assert_eq!(q.queues[3].codel.drop_state(), (false, 0, 0));
        assert_totals(&q);
    }

    #[test]
    fn the_key_keeps_data_acks_and_datagrams_apart() {
        let of = |flow, kind| Packet { kind, ..test_packet(flow, 0, 1000) };
        let q = fq(by_flow());
        let queues = |f| [Kind::Data, Kind::Ack, Kind::Datagram].map(|k| q.classify(&of(f, k)));
        assert_eq!(queues(5), [15, 16, 17]);
        assert_eq!(queues(341), [1023, 0, 1]);
        // 341 flows' data, ACKs and datagrams fill 1023 distinct queues.
        let mut all: Vec<usize> = (0..341).flat_map(queues).collect();
        all.sort_unstable();
        all.dedup();
        assert_eq!(all.len(), 1023);
        // Perturbed: mix64(3·flow + kind + 2^34·perturbation) mod flows.
        let q = fq(Spec { perturbation: Some(7), ..Spec::default() });
        for f in [0, 1, 1000] {
            for (k, kind) in [Kind::Data, Kind::Ack, Kind::Datagram].into_iter().enumerate() {
                let expect = mix64(3 * f as u64 + k as u64 + (7 << 34)) % 1024;
                assert_eq!(q.classify(&of(f, kind)) as u64, expect);
            }
        }
        // A TCP flow, its queued ACKs and the datagram source with the same index: three queues.
        let mut q = fq(Spec { perturbation: Some(7), ..Spec::default() });
        let mut fx = QueueEffects::default();
        for kind in [Kind::Data, Kind::Ack, Kind::Datagram] {
            q.enqueue(of(0, kind), 0, &mut fx);
        }
        assert_eq!((q.new_flows.len(), q.used.len()), (3, 3));
    }

    #[test]
    fn the_perturbation_is_drawn_from_the_port_stream() {
        let build = |seed, perturbation| {
            let ctx = QueueContext { rng: Rng::new(seed, 16), ..test_context("q") };
            FqCoDel::from_spec(&Spec { perturbation, ..Spec::default() }, ctx).unwrap().perturbation
        };
        assert_eq!(build(1, None), Rng::new(1, 16).next_u64() as u32);
        assert_eq!(build(1, None), build(1, None));
        assert_ne!(build(1, None), build(2, None));
        assert_eq!(build(1, Some(42)), 42);
        // Same seed, same packets: the same drops, marks and order.
        let run = |seed| {
            let ctx = QueueContext { rng: Rng::new(seed, 16), ..test_context("q") };
            let mut q = FqCoDel::from_spec(&Spec { limit: 50, ..Spec::default() }, ctx).unwrap();
            let mut fx = QueueEffects::default();
            let mut out = Vec::new();
            for t in 0..400u64 {
                let pkt = test_packet((t * 7 % 13) as u32, t as u32, 500 + (t % 3) as u32 * 250);
                q.enqueue(pkt, t * MS, &mut fx);
                if t % 2 == 0 {
                    out.extend(q.dequeue(t * MS, &mut fx).map(|p| (p.flow, p.seq)));
                }
            }
            let drops: Vec<_> = fx.drops.iter().map(|(p, r, _)| (p.flow, p.seq, r.0)).collect();
            (out, drops)
        };
        assert_eq!(run(3), run(3));
        assert!(!run(3).1.is_empty());
    }

    #[test]
    fn ecn_marks_by_default_and_ce_threshold_marks_long_sojourns() {
        let ect = |f, s| Packet { ecn: Ecn::Ect, ..test_packet(f, s, 1000) };
        // CoDel's signal on ECT packets is a mark (ecn on by default), on Not-ECT ones a drop.
        let mut q = fq(by_flow());
        let mut fx = QueueEffects::default();
        for s in 0..10 {
            q.enqueue(ect(0, s), 0, &mut fx);
        }
        q.dequeue(10 * MS, &mut fx);
        let p = q.dequeue(110 * MS, &mut fx).unwrap();
        assert_eq!((p.seq, p.ecn, fx.marks.clone()), (1, Ecn::Ce, vec![(0, CODEL)]));
        assert!(fx.drops.is_empty());
        // ce_threshold 2 ms: a sojourn of 1 ms passes, 3 ms is marked; Not-ECT packets are left alone.
        let mut q = fq(Spec { ce_threshold: Some(Seconds(0.002)), ..by_flow() });
        let mut fx = QueueEffects::default();
        q.enqueue(ect(0, 0), 0, &mut fx);
        q.enqueue(ect(0, 1), 0, &mut fx);
        q.enqueue(test_packet(0, 2, 1000), 0, &mut fx);
        assert_eq!(q.dequeue(MS, &mut fx).unwrap().ecn, Ecn::Ect);
        assert_eq!(q.dequeue(3 * MS, &mut fx).unwrap().ecn, Ecn::Ce);
        assert_eq!(q.dequeue(3 * MS, &mut fx).unwrap().ecn, Ecn::NotEct);
        assert_eq!(fx.marks, vec![(0, CE_THRESHOLD)]);
        // A packet CoDel marks is not marked (counted) again.
        let mut q = fq(Spec { ce_threshold: Some(Seconds(0.002)), ..by_flow() });
        let mut fx = QueueEffects::default();
        for s in 0..10 {
            q.enqueue(ect(0, s), 0, &mut fx);
        }
        q.dequeue(10 * MS, &mut fx);
        q.dequeue(110 * MS, &mut fx);
        assert_eq!(fx.marks, vec![(0, CE_THRESHOLD), (0, CODEL)]);
    }

    #[test]
    fn report_counts_the_lists() {
        let mut q = fq(by_flow());
        add(&mut q, 0, 3, 1000, 0);
        add(&mut q, 1, 1, 1000, 0);
        serve(&mut q, 2, 0);
        let mut out = BTreeMap::new();
        q.report(&mut out);
        let get = |k: &str| out[k];
        assert_eq!(get("new_flow_count"), 2.0);
        // Flow 0 spent its quantum and went to the old list; flow 1 is still new (empty, deficit 0).
        assert_eq!((get("new_flows"), get("old_flows"), get("queues_used")), (1.0, 1.0, 2.0));
        assert_eq!(get("drop_states"), 0.0);
    }

    #[test]
    fn parameters_are_checked() {
        let build = |v: serde_json::Value| QueueSpec::parse(&v, "q")?.build(test_context("q"));
        let e = |v| build(v).err().unwrap().field;
        use serde_json::json;
        assert_eq!(e(json!({"discipline": "fq-codel", "limit": 0})), "q.limit");
        assert_eq!(e(json!({"discipline": "fq-codel", "flows": 0})), "q.flows");
        assert_eq!(e(json!({"discipline": "fq-codel", "flows": 65537})), "q.flows");
        assert_eq!(e(json!({"discipline": "fq-codel", "quantum": "10B"})), "q.quantum");
        assert_eq!(e(json!({"discipline": "fq-codel", "drop_batch": 0})), "q.drop_batch");
        assert_eq!(e(json!({"discipline": "fq-codel", "hash": "jenkins"})), "q.hash");
        assert_eq!(e(json!({"discipline": "fq-codel", "target": "0s"})), "q.target");
        assert_eq!(e(json!({"discipline": "fq-codel", "interval": "-1s"})), "q.interval");
        assert_eq!(e(json!({"discipline": "fq-codel", "mtu": "10B"})), "q.mtu");
        assert_eq!(e(json!({"discipline": "fq-codel", "ce_threshold": "-1ms"})), "q.ce_threshold");
        assert_eq!(
            e(json!({"discipline": "fq-codel", "ecn": false, "ce_threshold": "1ms"})),
            "q.ce_threshold"
        );
        assert_eq!(e(json!({"discipline": "fq-codel", "limit_bytes": "1MB"})), "q.limit_bytes");
        // Without ECN senders: the default ecn builds (it changes nothing), an explicit one does not.
        let no_ecn = |v| {
            QueueSpec::parse(&v, "q").unwrap().build(QueueContext { ecn_senders: false, ..test_context("q") })
        };
        assert!(no_ecn(json!({"discipline": "fq-codel"})).is_ok());
        assert_eq!(no_ecn(json!({"discipline": "fq-codel", "ecn": true})).err().unwrap().field, "q.ecn");
        let e = no_ecn(json!({"discipline": "fq-codel", "ce_threshold": "1ms"})).err().unwrap();
        assert_eq!(e.field, "q.ce_threshold");
        // Defaults, and the quantum from the port's packet size.
        let spec = QueueSpec::parse(&json!({"discipline": "fq-codel"}), "q").unwrap();
        let j = spec.to_json();
        assert_eq!(
            (j["limit"].clone(), j["flows"].clone(), j["drop_batch"].clone()),
            (json!(10240), json!(1024), json!(64))
        );
        assert_eq!((j["hash"].clone(), j["target"].clone()), (json!("perturbed"), json!(0.005)));
        let q = fq(Spec::default());
        assert_eq!(
            (q.quantum, q.limit, q.queues.len(), q.codel.maxpacket, q.codel.ecn),
            (1000, 10240, 1024, 1000, true)
        );
    }
}
