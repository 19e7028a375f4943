//! Step marking, DCTCP's switch (Alizadeh et al., SIGCOMM 2010 §3.1; RFC 8257 §3.1): an arrival that finds
//! at least `threshold` packets (or `threshold_bytes` bytes) waiting is CE-marked, and dropped instead if it
//! is not ECN-capable, as RED with ECN drops what it cannot mark; then it is queued if it fits the limit.
//! The occupancy is the instantaneous one, so the rule is RED's with `min_th = max_th = K`, `weight = 1`,
//! `gentle = false` and `hard_drop = false` (ns-3's `RedQueueDisc` as its DCTCP example configures it), which
//! gives the same runs for `K ≥ 2` (RED acts only when more than one packet waits).
//!
//! "Greater than K upon its arrival" (the paper) is read counting the arriving packet: the queue it
//! joins then holds more than K, as in ns-3's and Linux's RED, which compare the backlog before the arrival
//! with the threshold.

use super::{
    fifo_occupancy, resolve_limit, Discipline, Fifo, Limit, QueueContext, QueueDisc, QueueEffects, Reason,
    LIMIT, LIMIT_BYTES,
};
use crate::packet::Packet;
use crate::spec::params::params;
use crate::spec::{err, ScenarioError};
use crate::time::Time;
use crate::units::Bytes;

/// An arrival above the threshold, marked or (Not-ECT) dropped.
pub const THRESHOLD: Reason = Reason("threshold");

params! {
    /// Step marking (DCTCP, Alizadeh et al. 2010 §3.1): CE-mark each arrival that finds at least
    /// `threshold` packets waiting (drop it if it is not ECN-capable); a FIFO under its limit otherwise.
    pub struct Spec {
        /// Packets waiting (required, or `limit_bytes`).
        limit: Option<u64> = None, LIMIT;
        /// Bytes waiting, instead of `limit`.
        limit_bytes: Option<Bytes> = None, LIMIT_BYTES;
        /// K: an arrival finding this many packets waiting or more is marked (required, or
        /// `threshold_bytes`).
        threshold: Option<u64> = None, Rule::closed(0.0, (1u64 << 40) as f64)
            .unit("packets")
            .and_context("not with threshold_bytes");
        /// K in bytes, instead of `threshold`.
        threshold_bytes: Option<Bytes> = None, Rule::closed(0.0, 1e15).and_context("not with threshold");
    }
}

/// The marking threshold.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Threshold {
    Packets(u64),
    Bytes(u64),
}

pub struct Step {
    fifo: Fifo,
    limit: Limit,
    threshold: Threshold,
}

impl Step {
    pub fn new(threshold: Threshold, limit: Limit) -> Self {
        Step { fifo: Fifo::default(), limit, threshold }
    }

    /// Does an arrival now find the queue at or above the threshold?
    fn above(&self) -> bool {
        match self.threshold {
            Threshold::Packets(k) => self.fifo.len() as u64 >= k,
            Threshold::Bytes(k) => self.fifo.bytes() >= k,
        }
    }
}

impl Discipline for Step {
    type Spec = Spec;
    fn build(s: &Spec, ctx: QueueContext) -> Result<Self, ScenarioError> {
        let limit = resolve_limit(s.limit, s.limit_bytes, &ctx)?;
        if !ctx.ecn_senders {
            return err(
                ctx.field,
                "step marking needs ECN-capable senders: set tcp.ecn = true on the flows through it",
            );
        }
        let threshold = match (s.threshold, s.threshold_bytes) {
            (Some(k), None) => Threshold::Packets(k),
            (None, Some(b)) => Threshold::Bytes(b.0.round() as u64),
            (Some(_), Some(_)) => {
                return err(
                    &ctx.field("threshold"),
                    "give either threshold (packets) or threshold_bytes, not both",
                )
            }
            (None, None) => {
                return err(&ctx.field("threshold"), "required (packets waiting), or threshold_bytes")
            }
        };
        Ok(Step::new(threshold, limit))
    }
}

impl QueueDisc for Step {
    fn enqueue(&mut self, mut pkt: Packet, now: Time, fx: &mut QueueEffects) {
        if self.above() && !fx.mark(&mut pkt, THRESHOLD) {
            return fx.drop(pkt, THRESHOLD);
        }
        self.fifo.admit(pkt, self.limit, now, fx);
    }
    fn dequeue(&mut self, _now: Time, _fx: &mut QueueEffects) -> Option<Packet> {
        self.fifo.pop()
    }
    fifo_occupancy!(fifo, limit);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::packet::Ecn;
    use crate::queue::{reason, test_context, test_packet};

    fn ect(seq: u32, size: u32) -> Packet {
        Packet { ecn: Ecn::Ect, ..test_packet(0, seq, size) }
    }

    #[test]
    fn marks_arrivals_finding_k_waiting_and_drops_what_it_cannot_mark() {
        let mut q = Step::new(Threshold::Packets(2), Limit::Packets(4));
        let mut fx = QueueEffects::default();
        for s in 0..5 {
            q.enqueue(ect(s, 1000), 0, &mut fx);
        }
        // Arrivals 0 and 1 find 0 and 1 waiting; 2 and 3 find 2 and 3 (marked); 4 finds 4: marked, overflows.
        assert_eq!(fx.mark_seqs, vec![2, 3, 4]);
        assert_eq!(fx.drops.len(), 1);
        assert_eq!((fx.drops[0].0.seq, fx.drops[0].1), (4, reason::OVERFLOW));
        let states: Vec<Ecn> = (0..4).map(|_| q.dequeue(0, &mut fx).unwrap().ecn).collect();
        assert_eq!(states, vec![Ecn::Ect, Ecn::Ect, Ecn::Ce, Ecn::Ce]);
        // Not-ECT above the threshold is dropped; below it, queued.
        let mut fx = QueueEffects::default();
        q.enqueue(test_packet(1, 0, 1000), 0, &mut fx);
        q.enqueue(test_packet(1, 1, 1000), 0, &mut fx);
        q.enqueue(test_packet(1, 2, 1000), 0, &mut fx);
        assert_eq!(q.len(), 2);
        assert_eq!((fx.drops[0].0.seq, fx.drops[0].1), (2, THRESHOLD));
        assert!(fx.marks.is_empty());
    }

    #[test]
    fn byte_threshold_counts_bytes_waiting() {
        let mut q = Step::new(Threshold::Bytes(1500), Limit::Packets(100));
        let mut fx = QueueEffects::default();
        q.enqueue(ect(0, 1000), 0, &mut fx);
        q.enqueue(ect(1, 400), 0, &mut fx); // finds 1000 B
        q.enqueue(ect(2, 100), 0, &mut fx); // finds 1400 B
        q.enqueue(ect(3, 100), 0, &mut fx); // finds 1500 B: marked
        assert_eq!(fx.mark_seqs, vec![3]);
    }

    #[test]
    fn table_needs_one_threshold_and_ecn_senders() {
        let build = |t: serde_json::Value, ecn_senders: bool| {
            let spec: Spec = crate::spec::from_value(t, "bottleneck.queue").unwrap();
            let ctx = QueueContext { ecn_senders, ..test_context("bottleneck.queue") };
            Step::from_spec(&spec, ctx).err().map(|e| e.to_string())
        };
        let ok = serde_json::json!({"limit": 100, "threshold": 20});
        assert_eq!(build(ok.clone(), true), None);
        assert!(build(ok, false).unwrap().contains("tcp.ecn"));
        let none = serde_json::json!({"limit": 100});
        assert!(build(none, true).unwrap().contains("bottleneck.queue.threshold"));
        let both = serde_json::json!({"limit": 100, "threshold": 2, "threshold_bytes": "3kB"});
        assert!(build(both, true).unwrap().contains("not both"));
        assert_eq!(build(serde_json::json!({"limit": 100, "threshold_bytes": "30kB"}), true), None);
        let e = crate::spec::from_value::<Spec>(serde_json::json!({"threshold": -1}), "q.queue").unwrap_err();
        assert!(e.to_string().contains("q.queue.threshold"), "{e}");
    }
}
