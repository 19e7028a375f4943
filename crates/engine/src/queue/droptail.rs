//! DropTail: a FIFO that drops arrivals that do not fit (ns-2 `Queue/DropTail`, ns-3 `FifoQueueDisc`).
//!
//! The limit counts packets (or bytes) waiting, not the packet being serialized, so a limit of `B`
//! packets holds `B + 1` in the system, the `K` of M/D/1/K.

use super::{
    fifo_occupancy, resolve_limit, Discipline, Fifo, Limit, QueueContext, QueueDisc, QueueEffects, LIMIT,
    LIMIT_BYTES,
};
use crate::packet::Packet;
use crate::spec::params::params;
use crate::spec::ScenarioError;
use crate::time::Time;
use crate::units::Bytes;

params! {
    /// DropTail: a FIFO that drops arrivals that do not fit (ns-2 `Queue/DropTail`, ns-3 `FifoQueueDisc`).
    pub struct Spec {
        /// Packets waiting (required, or `limit_bytes`).
        limit: Option<u64> = None, LIMIT;
        /// Bytes waiting, instead of `limit`.
        limit_bytes: Option<Bytes> = None, LIMIT_BYTES;
    }
}

pub struct DropTail {
    fifo: Fifo,
    limit: Limit,
}

impl DropTail {
    pub fn new(limit: Limit) -> Self {
        DropTail { fifo: Fifo::default(), limit }
    }

    /// Change the limit while running (Optimal Drop-Tail); packets already queued stay.
    pub fn set_limit(&mut self, limit: Limit) {
        self.limit = limit;
    }
}

impl Discipline for DropTail {
    type Spec = Spec;
    fn build(spec: &Spec, ctx: QueueContext) -> Result<Self, ScenarioError> {
        Ok(DropTail::new(resolve_limit(spec.limit, spec.limit_bytes, &ctx)?))
    }
}

impl QueueDisc for DropTail {
    fn enqueue(&mut self, pkt: Packet, now: Time, fx: &mut QueueEffects) {
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
    use crate::queue::{reason, test_packet, Stage};

    #[test]
    fn drops_when_full_in_packets() {
        let mut q = DropTail::new(Limit::Packets(2));
        let mut fx = QueueEffects::default();
        for s in 0..3 {
            q.enqueue(test_packet(0, s, 1000), 0, &mut fx);
        }
        assert_eq!(q.len(), 2);
        assert_eq!(fx.drops.len(), 1);
        assert_eq!(fx.drops[0].0.seq, 2);
        assert_eq!((fx.drops[0].1, fx.drops[0].2), (reason::OVERFLOW, Stage::BeforeEnqueue));
        assert_eq!(q.dequeue(0, &mut fx).unwrap().seq, 0);
    }

    #[test]
    fn byte_limit_counts_bytes() {
        let mut q = DropTail::new(Limit::Bytes(2500));
        let mut fx = QueueEffects::default();
        q.enqueue(test_packet(0, 0, 1000), 0, &mut fx);
        q.enqueue(test_packet(0, 1, 1000), 0, &mut fx);
        q.enqueue(test_packet(0, 2, 1000), 0, &mut fx);
        q.enqueue(test_packet(0, 3, 500), 0, &mut fx);
        assert_eq!(q.len(), 3);
        assert_eq!(q.bytes(), 2500);
        assert_eq!(fx.drops.len(), 1);
    }

    #[test]
    fn limit_can_change_while_running() {
        let mut q = DropTail::new(Limit::Packets(1));
        let mut fx = QueueEffects::default();
        q.enqueue(test_packet(0, 0, 100), 0, &mut fx);
        q.set_limit(Limit::Packets(3));
        q.enqueue(test_packet(0, 1, 100), 0, &mut fx);
        assert_eq!(q.len(), 2);
        assert!(fx.drops.is_empty());
    }
}
