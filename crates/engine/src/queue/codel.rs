//! CoDel, "Controlled Delay" (Nichols, Jacobson, McGregor & Iyengar, RFC 8289), following the pseudo-code
//! of RFC 8289 §5 line by line (ns-3's `CoDelQueueDisc` and Linux's `codel_dequeue` follow it too).
//!
//! Packets are stamped at enqueue (§5.2; an arrival that does not fit `limit` is an `overflow` drop, the only
//! drop before enqueue). At dequeue (§5.3, `dodequeue`), the head's sojourn time is compared with `target`:
//! when it has stayed at or above `target` for `interval`, and more than one `mtu` of bytes is still
//! waiting (§4.2's "maxpacket" check, so a link never idles because of a drop), it is `ok_to_drop`. Then
//! (§5.4, `dequeue`):
//!
//! - not in drop state: drop the head (`Reason("codel")`, after dequeue), take the next, enter drop state;
//!   `count` restarts at 1, or at `count − lastcount` if that is above 1 and the last drop-state cycle was
//!   recent (`now − drop_next < 16·interval`, the Linux variant the RFC gives); `drop_next = now +
//!   interval/√count` (§5.5's control law);
//! - in drop state: leave it as soon as `ok_to_drop` is false; otherwise, while `now ≥ drop_next`, drop the
//!   head, `count += 1`, take the next, and `drop_next += interval/√count` (several drops at once when the
//!   backlog is large).
//!
//! With `ecn`, an ECN-capable packet that would be dropped is CE-marked instead and sent (RFC 8289 §5 "ECN";
//! as Linux and ns-3: a mark counts like a drop in `count`, and the marked packet ends that dequeue's loop).
//! Not-ECT packets are still dropped. The RFC's time 0 meaning "not above target" is kept (`first_above_time
//! = 0`); simulated times are in picoseconds, so `now + interval` is never 0. `now − drop_next` saturates at
//! 0 when `drop_next` is in the future (the signed comparison of Linux and ns-3).
//!
//! The control loop is one [`CoDelState`] (§5.1's per-queue variables) driven by [`Params`] over a [`Fifo`]:
//! the single queue of this discipline, and each flow queue of `fq-codel` (RFC 8290 §4).

use super::{
    fifo_occupancy, resolve_limit_or, Discipline, Fifo, Limit, QueueContext, QueueDisc, QueueEffects, Reason,
    LIMIT, LIMIT_BYTES,
};
use crate::packet::Packet;
use crate::spec::params::{params, Rule};
use crate::spec::ScenarioError;
use crate::time::{from_secs, Time};
use crate::units::{Bytes, Seconds};
use std::collections::BTreeMap;

/// CoDel's drops and marks.
pub const CODEL: Reason = Reason("codel");

params! {
    /// CoDel (RFC 8289, Linux `sch_codel`): drops (or CE-marks) at dequeue while packets have waited more
    /// than `target` for at least `interval`, at intervals shrinking as 1/sqrt(count).
    pub struct Spec {
        /// Packets waiting; default 1000 (Linux's; ns-3's is 1500). An arrival that does not fit is an
        /// `overflow` drop.
        limit: Option<u64> = None, LIMIT.default_is("1000");
        /// Bytes waiting, instead of `limit`.
        limit_bytes: Option<Bytes> = None, LIMIT_BYTES;
        /// Acceptable standing queue delay (RFC 8289 §4.4: 5 ms).
        target: Seconds = Seconds(0.005), TARGET;
        /// Sliding window of the minimum sojourn time, about a worst-case RTT (§4.3: 100 ms).
        interval: Seconds = Seconds(0.1), INTERVAL;
        /// maxpacket: no drop while at most this many bytes wait after the dequeue; default: the packet size
        /// of the flows crossing the port.
        mtu: Option<Bytes> = None, MTU.default_is("the packet size");
        /// CE-mark ECN-capable packets instead of dropping them (needs tcp.ecn).
        ecn: bool = false;
    }
}

/// CoDel's `target` (also FQ-CoDel's, per queue).
pub const TARGET: Rule = Rule::closed(1e-9, 3600.0);
/// CoDel's `interval`.
pub const INTERVAL: Rule = Rule::closed(1e-9, 3600.0);
/// The least `mtu` (maxpacket) and FQ-CoDel `quantum`, bytes.
pub const MTU_FLOOR: f64 = 64.0;
/// CoDel's `mtu` (maxpacket).
pub const MTU: Rule = Rule::closed(MTU_FLOOR, 1e9);

/// CoDel's parameters, shared by every queue it controls.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Params {
    pub target: Time,
    pub interval: Time,
    /// The RFC's maxpacket: no drop while at most this many bytes wait in the queue after the dequeue.
    pub maxpacket: u64,
    /// CE-mark ECN-capable packets instead of dropping them.
    pub ecn: bool,
}

impl Params {
    /// From a table's `target`, `interval` and `mtu`, their declared ranges checked ([`TARGET`],
    /// [`INTERVAL`], [`MTU`]); `mtu` defaults to the port's packet size, checked here against the same floor.
    pub fn new(
        target: Seconds,
        interval: Seconds,
        mtu: Option<Bytes>,
        ecn: bool,
        ctx: &QueueContext,
    ) -> Result<Params, ScenarioError> {
        let mtu = ctx.bytes_or_packet_size("mtu", mtu, MTU_FLOOR)?;
        Ok(Params {
            target: from_secs(target.0),
            interval: from_secs(interval.0),
            maxpacket: mtu as u64,
            ecn,
        })
    }

    /// RFC 8289 §5.5: `t + interval / √count`, rounded to the picosecond.
    pub fn control_law(&self, t: Time, count: u32) -> Time {
        t + (self.interval as f64 / (count as f64).sqrt() + 0.5) as Time
    }

    /// Drop `pkt`, or CE-mark it with `ecn` if it is ECN-capable; `Some(pkt)` if it was marked (and goes on).
    #[inline]
    fn signal(&self, mut pkt: Packet, fx: &mut QueueEffects) -> Option<Packet> {
        if self.ecn && fx.mark(&mut pkt, CODEL) {
            Some(pkt)
        } else {
            fx.drop_after_dequeue(pkt, CODEL);
            None
        }
    }
}

/// The control loop of one CoDel queue: RFC 8289 §5.1's per-queue variables, driven over the queue's
/// [`Fifo`] by [`CoDelState::dequeue`].
#[derive(Clone, Debug, Default)]
pub struct CoDelState {
    first_above_time: Time,
    drop_next: Time,
    count: u32,
    lastcount: u32,
    dropping: bool,
    drop_states: u64,
}

impl CoDelState {
    /// RFC 8289 §5.3 `dodequeue`: the head of `fifo`, and whether the sojourn time has been above target for
    /// an interval.
    fn dodequeue(&mut self, fifo: &mut Fifo, p: &Params, now: Time) -> (Option<Packet>, bool) {
        let Some(pkt) = fifo.pop() else {
            self.first_above_time = 0;
            return (None, false);
        };
        let sojourn_time = now.saturating_sub(pkt.enqueued_at);
        let mut ok_to_drop = false;
        if sojourn_time < p.target || fifo.bytes() <= p.maxpacket {
            self.first_above_time = 0;
        } else if self.first_above_time == 0 {
            self.first_above_time = now + p.interval;
        } else if now >= self.first_above_time {
            ok_to_drop = true;
        }
        (Some(pkt), ok_to_drop)
    }

    /// RFC 8289 §5.4: the next packet of `fifo` to send, after the drops (or marks) the control law asks
    /// for; `None` when `fifo` is (or has become) empty.
    #[inline(always)]
    pub fn dequeue(
        &mut self,
        fifo: &mut Fifo,
        p: &Params,
        now: Time,
        fx: &mut QueueEffects,
    ) -> Option<Packet> {
        let (mut pkt, mut ok_to_drop) = self.dodequeue(fifo, p, now);
        if self.dropping {
            if !ok_to_drop {
                self.dropping = false;
            }
            while now >= self.drop_next && self.dropping {
                let head = pkt.take()?;
                self.count += 1;
                if let Some(marked) = p.signal(head, fx) {
                    self.drop_next = p.control_law(self.drop_next, self.count);
                    return Some(marked);
                }
                (pkt, ok_to_drop) = self.dodequeue(fifo, p, now);
                if !ok_to_drop {
                    self.dropping = false;
                } else {
                    self.drop_next = p.control_law(self.drop_next, self.count);
                }
            }
        } else if ok_to_drop {
            let head = pkt.take()?;
            if let Some(marked) = p.signal(head, fx) {
                pkt = Some(marked);
            } else {
                (pkt, _) = self.dodequeue(fifo, p, now);
            }
            self.dropping = true;
            self.drop_states += 1;
            let delta = self.count.wrapping_sub(self.lastcount);
            self.count = 1;
            if delta > 1 && now.saturating_sub(self.drop_next) < 16 * p.interval {
                self.count = delta;
            }
            self.drop_next = p.control_law(now, self.count);
            self.lastcount = self.count;
        }
        pkt
    }

    /// Whether the queue is in drop state, its `count` and `drop_next`.
    pub fn drop_state(&self) -> (bool, u32, Time) {
        (self.dropping, self.count, self.drop_next)
    }

    /// How many times the queue entered drop state.
    pub fn drop_states(&self) -> u64 {
        self.drop_states
    }
}

/// The `codel` discipline: one queue under one [`CoDelState`].
pub struct CoDel {
    fifo: Fifo,
    limit: Limit,
    params: Params,
    codel: CoDelState,
}

impl Discipline for CoDel {
    type Spec = Spec;
    fn build(s: &Spec, ctx: QueueContext) -> Result<Self, ScenarioError> {
        let limit = resolve_limit_or(s.limit, s.limit_bytes, Limit::Packets(1000), &ctx)?;
        let params = Params::new(s.target, s.interval, s.mtu, s.ecn, &ctx)?;
        ctx.check_ecn(s.ecn)?;
        Ok(CoDel { fifo: Fifo::default(), limit, params, codel: CoDelState::default() })
    }
}

impl CoDel {
    pub fn new(limit: Limit, target: Time, interval: Time, maxpacket: u64, ecn: bool) -> Self {
        let params = Params { target, interval, maxpacket, ecn };
        CoDel { fifo: Fifo::default(), limit, params, codel: CoDelState::default() }
    }

    /// RFC 8289 §5.5: `t + interval / √count`, rounded to the picosecond.
    pub fn control_law(&self, t: Time, count: u32) -> Time {
        self.params.control_law(t, count)
    }

    /// Whether CoDel is in drop state, its `count` and `drop_next`.
    pub fn state(&self) -> (bool, u32, Time) {
        self.codel.drop_state()
    }
}

impl QueueDisc for CoDel {
    fn enqueue(&mut self, pkt: Packet, now: Time, fx: &mut QueueEffects) {
        self.fifo.admit(pkt, self.limit, now, fx);
    }

    /// RFC 8289 §5.4.
    fn dequeue(&mut self, now: Time, fx: &mut QueueEffects) -> Option<Packet> {
        self.codel.dequeue(&mut self.fifo, &self.params, now, fx)
    }

    fifo_occupancy!(fifo, limit);

    fn report(&self, out: &mut BTreeMap<String, f64>) {
        out.insert("count".into(), self.codel.count as f64);
        out.insert("drop_states".into(), self.codel.drop_states as f64);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::packet::Ecn;
    use crate::queue::{reason, test_context, test_packet, QueueSpec, Stage};

    const MS: Time = 1_000_000_000;

    fn codel(ecn: bool) -> CoDel {
        CoDel::new(Limit::Packets(100), 5 * MS, 100 * MS, 1000, ecn)
    }

    /// `n` 1000-byte packets stamped at `at`.
    fn fill(q: &mut CoDel, n: u32, at: Time) {
        let mut fx = QueueEffects::default();
        for s in 0..n {
            q.enqueue(test_packet(0, s, 1000), at, &mut fx);
        }
    }

    #[test]
    fn control_law_is_interval_over_root_count() {
        let q = codel(false);
        assert_eq!(q.control_law(0, 1), 100 * MS);
        assert_eq!(q.control_law(7, 4), 7 + 50 * MS);
        // 100 ms / √2 = 70.710678118654... ms.
        assert_eq!(q.control_law(0, 2), 70_710_678_119);
        // 100 ms / √3 = 57.735026918962... ms.
        assert_eq!(q.control_law(0, 3), 57_735_026_919);
    }

    #[test]
    fn rfc_8289_drop_schedule() {
        let mut q = codel(false);
        let mut fx = QueueEffects::default();
        fill(&mut q, 20, 0);
        // 10 ms of sojourn: above target for the first time, first_above_time = 110 ms.
        assert_eq!(q.dequeue(10 * MS, &mut fx).unwrap().seq, 0);
        assert_eq!(q.codel.first_above_time, 110 * MS);
        assert_eq!(q.dequeue(50 * MS, &mut fx).unwrap().seq, 1);
        assert!(fx.drops.is_empty());
        // At 110 ms: ok_to_drop, enter drop state; count = 1, drop_next = 110 + 100 ms.
        assert_eq!(q.dequeue(110 * MS, &mut fx).unwrap().seq, 3);
        assert_eq!(fx.drops.len(), 1);
        assert_eq!((fx.drops[0].0.seq, fx.drops[0].1, fx.drops[0].2), (2, CODEL, Stage::AfterDequeue));
        assert_eq!(q.state(), (true, 1, 210 * MS));
        // Before drop_next: no drop.
        assert_eq!(q.dequeue(150 * MS, &mut fx).unwrap().seq, 4);
        // At drop_next: drop, count = 2, drop_next = 210 ms + 100/√2 ms.
        assert_eq!(q.dequeue(210 * MS, &mut fx).unwrap().seq, 6);
        assert_eq!(q.state(), (true, 2, 210 * MS + 70_710_678_119));
        // At 300 ms (past 280.71 ms): one drop, count = 3, drop_next = 280.71 + 57.735 = 338.45 ms.
        assert_eq!(q.dequeue(300 * MS, &mut fx).unwrap().seq, 8);
        assert_eq!(q.state(), (true, 3, 210 * MS + 70_710_678_119 + 57_735_026_919));
        assert_eq!(fx.drops.len(), 3);
        // A fresh packet at the head (sojourn 1 ms < target): leave drop state.
        q.fifo = Fifo::default();
        fill(&mut q, 5, 399 * MS);
        assert_eq!(q.dequeue(400 * MS, &mut fx).unwrap().seq, 0);
        assert!(!q.state().0);
        assert_eq!(q.codel.first_above_time, 0);
        // Back above target: first_above_time = 420 + 100 ms, drop state again at 520 ms. count − lastcount
        // = 3 − 1 = 2 > 1 and the last cycle was recent: count restarts at 2, drop_next = 520 + 70.71 ms.
        assert_eq!(q.dequeue(420 * MS, &mut fx).unwrap().seq, 1);
        assert_eq!(q.dequeue(520 * MS, &mut fx).unwrap().seq, 3);
        assert_eq!(q.state(), (true, 2, 520 * MS + 70_710_678_119));
        assert_eq!(q.codel.lastcount, 2);
        assert_eq!(q.codel.drop_states, 2);
    }

    #[test]
    fn a_long_gap_restarts_count_at_one() {
        let mut q = codel(false);
        let mut fx = QueueEffects::default();
        (q.codel.count, q.codel.lastcount, q.codel.drop_next) = (10, 1, 100 * MS);
        fill(&mut q, 10, 0);
        q.codel.first_above_time = MS;
        // now − drop_next = 1.7 s − 0.1 s = 1.6 s, not < 16 · 100 ms: count = 1.
        q.dequeue(1700 * MS, &mut fx);
        assert_eq!(q.state(), (true, 1, 1800 * MS));
        // 1.5 s after drop_next: count = delta = 9, drop_next = now + 100/3 ms.
        let mut q = codel(false);
        (q.codel.count, q.codel.lastcount, q.codel.drop_next) = (10, 1, 100 * MS);
        fill(&mut q, 10, 0);
        q.codel.first_above_time = MS;
        q.dequeue(1600 * MS, &mut fx);
        assert_eq!(q.state(), (true, 9, 1600 * MS + 33_333_333_333));
    }

    #[test]
    fn no_drop_while_at_most_one_mtu_waits() {
        let mut q = codel(false);
        let mut fx = QueueEffects::default();
        fill(&mut q, 2, 0);
        // One packet (1000 B = maxpacket) left after this dequeue: never above target.
        q.dequeue(50 * MS, &mut fx);
        assert_eq!(q.codel.first_above_time, 0);
        q.dequeue(500 * MS, &mut fx);
        assert!(fx.drops.is_empty() && !q.state().0);
        // Empty: dodequeue resets first_above_time and returns nothing.
        assert!(q.dequeue(600 * MS, &mut fx).is_none());
    }

    #[test]
    fn several_drops_at_once_under_a_large_backlog() {
        let mut q = codel(false);
        let mut fx = QueueEffects::default();
        fill(&mut q, 30, 0);
        (q.codel.dropping, q.codel.count, q.codel.drop_next, q.codel.first_above_time) =
            (true, 1, 100 * MS, MS);
        // At 200 ms: drop (count 2, next 170.71 ms), drop (count 3, next 228.45 ms), then stop.
        assert_eq!(q.dequeue(200 * MS, &mut fx).unwrap().seq, 2);
        assert_eq!(fx.drops.len(), 2);
        assert_eq!(q.state(), (true, 3, 100 * MS + 70_710_678_119 + 57_735_026_919));
    }

    #[test]
    fn ecn_marks_instead_of_dropping() {
        let mut q = codel(true);
        let mut fx = QueueEffects::default();
        for s in 0..10 {
            q.enqueue(Packet { ecn: Ecn::Ect, ..test_packet(0, s, 1000) }, 0, &mut fx);
        }
        q.dequeue(10 * MS, &mut fx);
        let p = q.dequeue(110 * MS, &mut fx).unwrap();
        assert_eq!((p.seq, p.ecn), (1, Ecn::Ce));
        assert_eq!(fx.marks, vec![(0, CODEL)]);
        assert_eq!(q.state(), (true, 1, 210 * MS));
        let p = q.dequeue(210 * MS, &mut fx).unwrap();
        assert_eq!((p.seq, p.ecn), (2, Ecn::Ce));
        assert_eq!(q.state(), (true, 2, 210 * MS + 70_710_678_119));
        assert!(fx.drops.is_empty());
        // A Not-ECT packet is dropped.
        q.enqueue(test_packet(1, 0, 1000), 0, &mut fx);
        q.fifo.iter_mut().for_each(|p| p.ecn = Ecn::NotEct);
        q.dequeue(300 * MS, &mut fx);
        assert_eq!(fx.drops.len(), 1);
    }

    #[test]
    fn overflow_is_a_tail_drop() {
        let mut q = CoDel::new(Limit::Packets(2), 5 * MS, 100 * MS, 1000, false);
        fill(&mut q, 3, 0);
        let mut fx = QueueEffects::default();
        q.enqueue(test_packet(0, 9, 1000), 0, &mut fx);
        assert_eq!((q.len(), fx.drops[0].1, fx.drops[0].2), (2, reason::OVERFLOW, Stage::BeforeEnqueue));
    }

    #[test]
    fn a_default_mtu_below_the_floor_is_refused() {
        // A port crossed only by 20-byte datagrams: the default maxpacket (and FQ-CoDel's quantum) would be 20 B.
        let tiny = || QueueContext { packet_size: 20, ..test_context("q") };
        for (table, field) in [
            (serde_json::json!({"discipline": "codel"}), "q.mtu"),
            (serde_json::json!({"discipline": "fq-codel", "mtu": 1500}), "q.quantum"),
            (serde_json::json!({"discipline": "fq-codel", "quantum": 1500}), "q.mtu"),
        ] {
            let e = QueueSpec::parse(&table, "q").unwrap().build(tiny()).err().unwrap();
            assert_eq!(e.field, field, "{table}");
        }
        assert!(QueueSpec::parse(&serde_json::json!({"discipline": "codel", "mtu": 1500}), "q")
            .unwrap()
            .build(tiny())
            .is_ok());
    }

    #[test]
    fn parameters_are_checked() {
        let build = |v: serde_json::Value| {
            let spec = QueueSpec::parse(&v, "q")?;
            spec.build(test_context("q"))
        };
        let e = |v| build(v).err().unwrap().field;
        assert_eq!(e(serde_json::json!({"discipline": "codel", "target": "0s"})), "q.target");
        assert_eq!(e(serde_json::json!({"discipline": "codel", "interval": "-1s"})), "q.interval");
        assert_eq!(e(serde_json::json!({"discipline": "codel", "mtu": "10B"})), "q.mtu");
        assert_eq!(e(serde_json::json!({"discipline": "codel", "limit": 0})), "q.limit");
        let mut ctx = test_context("q");
        ctx.ecn_senders = false;
        let spec = QueueSpec::parse(&serde_json::json!({"discipline": "codel", "ecn": true}), "q").unwrap();
        assert_eq!(spec.build(ctx).err().unwrap().field, "q.ecn");
        assert!(build(serde_json::json!({"discipline": "codel"})).is_ok());
        let spec = QueueSpec::parse(&serde_json::json!({"discipline": "codel"}), "q").unwrap();
        assert_eq!(spec.to_json()["target"], serde_json::json!(0.005));
    }
}
