//! BLUE (Feng, Kandlur, Saha & Shin, "The BLUE active queue management algorithms", IEEE/ACM ToN 2002), as
//! Stanojević & Shorten describe it (their Sec. 5).
//!
//! One probability `p_m`: every arrival that fits the buffer is dropped (or, with `ecn`, CE-marked if it is
//! ECN-capable) with probability `p_m`; an arrival that does not fit is an overflow drop. `p_m` moves by
//! additive steps at most once per `freeze_time`:
//!
//! - `update = "event"` (Feng et al.'s pseudo-code, the default): on a **congestion event** (an overflow drop,
//!   or, if `threshold = L` is set, an arrival that finds more than `L` packets waiting),
//!   `if now − last_update > freeze_time { p_m ← p_m + δ1; last_update ← now }`; when the **link goes idle**
//!   (it finishes a packet and nothing waits), `if now − last_update > freeze_time { p_m ← p_m − δ2;
//!   last_update ← now }`. One `last_update` serves both, and it starts at time 0.
//! - `update = "interval"` (the paraphrase in Stanojević & Shorten §5): at the end of every `freeze_time`
//!   interval, counted from the first arrival, `p_m ← p_m + δ1` if a congestion event occurred in it and
//!   `p_m ← p_m − δ2` otherwise.
//!
//! `p_m` stays in `[0, 1]`. As in Feng's ns implementation the overflow test comes before the random drop.
//! The defaults (δ1 = 0.0025, δ2 = 0.00025, `freeze_time` = 100 ms) are those of Feng's ns implementation
//! (δ1 an order of magnitude above δ2, as Feng et al. recommend); the papers give no single set.

use super::{
    fifo_occupancy, reason, resolve_limit, Discipline, Fifo, Limit, QueueContext, QueueDisc, QueueEffects,
    LIMIT, LIMIT_BYTES,
};
use crate::packet::Packet;
use crate::rng::Rng;
use crate::spec::params::{name_params, params};
use crate::spec::ScenarioError;
use crate::time::{from_secs, Time};
use crate::units::{Bytes, Seconds};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// When `p_m` is updated.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Update {
    /// On congestion events (+δ1) and link-idle events (−δ2), at most once per freeze_time (Feng et al.).
    Event,
    /// Once per freeze_time: +δ1 if the interval had a congestion event, else −δ2 (Stanojević & Shorten §5).
    Interval,
}

params! {
    /// BLUE (Feng, Kandlur, Saha & Shin, IEEE/ACM ToN 10(4) 2002; Stanojević & Shorten §5): every arrival
    /// that fits is dropped (`early`) or marked with probability `p_m`, which moves by additive steps at most
    /// once per `freeze_time`; an arrival that does not fit is an `overflow` drop (tested first). Defaults:
    /// Feng's ns implementation.
    pub struct Spec {
        /// Packets waiting (required, or `limit_bytes`).
        limit: Option<u64> = None, LIMIT;
        /// Bytes waiting, instead of `limit`.
        limit_bytes: Option<Bytes> = None, LIMIT_BYTES;
        /// δ1, added to `p_m` on congestion.
        increment: f64 = 0.0025, Rule::left_open(0.0, 1.0);
        /// δ2, taken from `p_m` when the link goes idle (or after an interval without congestion).
        decrement: f64 = 0.00025, Rule::left_open(0.0, 1.0);
        /// The least time between two updates of `p_m`.
        freeze_time: Seconds = Seconds(0.1), Rule::closed(1e-6, 3600.0);
        /// `L`: an arrival finding more than `L` packets waiting is a congestion event too; default: only
        /// overflow drops are.
        threshold: Option<u64> = None,
            Rule::closed(0.0, (1u64 << 40) as f64).unit("packets").default_is("none: only overflows");
        /// "event" (+δ1 on a congestion event, −δ2 when the link goes idle, one shared clock from time 0:
        /// Feng et al.'s pseudo-code) or "interval" (at the end of every `freeze_time` from the first
        /// arrival: Stanojević & Shorten §5's paraphrase).
        update: Update = Update::Event, Rule::names(&["event", "interval"]);
        /// `p_m` at the start.
        initial_probability: f64 = 0.0, Rule::closed(0.0, 1.0);
        /// Mark ECN-capable packets instead of the random drops (overflows stay drops; needs tcp.ecn).
        ecn: bool = false;
    }
}

name_params!(Update);

/// What happened to an arrival under [`RandomDrop`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fate {
    /// Queued (possibly CE-marked).
    Queued,
    /// Dropped by the probabilistic decision.
    Early,
    /// Dropped because it did not fit the buffer.
    Overflow,
}

/// A FIFO whose arrivals are dropped (or marked) with a given probability: BLUE's and Optimal BLUE's buffer.
pub struct RandomDrop {
    pub fifo: Fifo,
    pub(crate) limit: Limit,
    rng: Rng,
    ecn: bool,
}

impl RandomDrop {
    pub fn new(limit: Limit, rng: Rng, ecn: bool) -> Self {
        RandomDrop { fifo: Fifo::default(), limit, rng, ecn }
    }

    /// `pkt` arrives at `now`: an overflow drop if it does not fit `limit`; else dropped, or CE-marked with
    /// `ecn` if ECN-capable, with probability `p`; else queued.
    #[inline]
    pub fn arrive(&mut self, mut pkt: Packet, p: f64, now: Time, fx: &mut QueueEffects) -> Fate {
        if !self.limit.admits(&self.fifo, &pkt) {
            fx.drop(pkt, reason::OVERFLOW);
            return Fate::Overflow;
        }
        if p > 0.0 && self.rng.uniform() < p && !(self.ecn && fx.mark(&mut pkt, reason::EARLY)) {
            fx.drop(pkt, reason::EARLY);
            return Fate::Early;
        }
        pkt.enqueued_at = now;
        self.fifo.push(pkt);
        Fate::Queued
    }
}

/// BLUE's parameters, resolved.
#[derive(Clone, Debug, PartialEq)]
pub struct BlueParams {
    pub increment: f64,
    pub decrement: f64,
    pub freeze_time: Time,
    pub threshold: Option<u64>,
    pub update: Update,
    pub initial_probability: f64,
}

pub struct Blue {
    p: BlueParams,
    q: RandomDrop,
    p_m: f64,
    last_update: Time,
    /// The link is transmitting (the last dequeue gave a packet).
    busy: bool,
    /// `interval` mode: a congestion event in the current interval, and when the interval ends (from the
    /// first arrival).
    congested: bool,
    tick: Option<Time>,
    increments: u64,
    decrements: u64,
}

impl Discipline for Blue {
    type Spec = Spec;
    fn build(s: &Spec, ctx: QueueContext) -> Result<Self, ScenarioError> {
        let limit = resolve_limit(s.limit, s.limit_bytes, &ctx)?;
        ctx.check_ecn(s.ecn)?;
        let params = BlueParams {
            increment: s.increment,
            decrement: s.decrement,
            freeze_time: from_secs(s.freeze_time.0),
            threshold: s.threshold,
            update: s.update,
            initial_probability: s.initial_probability,
        };
        Ok(Blue::new(params, limit, ctx.rng, s.ecn))
    }
}

impl Blue {
    pub fn new(p: BlueParams, limit: Limit, rng: Rng, ecn: bool) -> Self {
        Blue {
            p_m: p.initial_probability,
            p,
            q: RandomDrop::new(limit, rng, ecn),
            last_update: 0,
            busy: false,
            congested: false,
            tick: None,
            increments: 0,
            decrements: 0,
        }
    }

    /// The current drop/mark probability `p_m`.
    pub fn probability(&self) -> f64 {
        self.p_m
    }

    fn increase(&mut self) {
        self.p_m = (self.p_m + self.p.increment).min(1.0);
        self.increments += 1;
    }

    fn decrease(&mut self) {
        self.p_m = (self.p_m - self.p.decrement).max(0.0);
        self.decrements += 1;
    }

    /// Not updated within the last freeze_time (event mode); if so, the update happens now.
    fn thawed(&mut self, now: Time) -> bool {
        let ok = now.saturating_sub(self.last_update) > self.p.freeze_time;
        if ok {
            self.last_update = now;
        }
        ok
    }

    fn congestion(&mut self, now: Time) {
        match self.p.update {
            Update::Event => {
                if self.thawed(now) {
                    self.increase();
                }
            }
            Update::Interval => self.congested = true,
        }
    }
}

impl QueueDisc for Blue {
    fn enqueue(&mut self, pkt: Packet, now: Time, fx: &mut QueueEffects) {
        if self.p.update == Update::Interval && self.tick.is_none() {
            self.tick = Some(now + self.p.freeze_time);
        }
        if self.p.threshold.is_some_and(|l| self.q.fifo.len() as u64 > l) {
            self.congestion(now);
        }
        if self.q.arrive(pkt, self.p_m, now, fx) == Fate::Overflow {
            self.congestion(now);
        }
    }

    fn dequeue(&mut self, now: Time, _fx: &mut QueueEffects) -> Option<Packet> {
        let pkt = self.q.fifo.pop();
        if pkt.is_none() && self.busy && self.p.update == Update::Event && self.thawed(now) {
            self.decrease();
        }
        self.busy = pkt.is_some();
        pkt
    }

    fifo_occupancy!(q.fifo, q.limit);

    fn next_timer(&self) -> Option<Time> {
        self.tick
    }

    fn has_timer(&self) -> bool {
        true
    }

    fn timer_period(&self) -> Option<(Time, &'static str)> {
        (self.p.update == Update::Interval).then_some((self.p.freeze_time, "freeze_time"))
    }

    fn on_timer(&mut self, now: Time, _fx: &mut QueueEffects) {
        let Some(tick) = self.tick else { return };
        if now < tick {
            return;
        }
        if std::mem::take(&mut self.congested) {
            self.increase();
        } else {
            self.decrease();
        }
        self.last_update = now;
        self.tick = Some(now + self.p.freeze_time);
    }

    fn report(&self, out: &mut BTreeMap<String, f64>) {
        out.insert("p_m".into(), self.p_m);
        out.insert("increments".into(), self.increments as f64);
        out.insert("decrements".into(), self.decrements as f64);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::packet::Ecn;
    use crate::queue::{test_context, test_packet, QueueSpec};

    fn params(update: Update) -> BlueParams {
        BlueParams {
            increment: 0.01,
            decrement: 0.001,
            freeze_time: from_secs(0.1),
            threshold: None,
            update,
            initial_probability: 0.0,
        }
    }

    fn ms(x: f64) -> Time {
        from_secs(x * 1e-3)
    }

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-15
    }

    /// Fill a 2-packet buffer and send one more arrival at `at`: an overflow.
    fn overflow(b: &mut Blue, at: Time, fx: &mut QueueEffects) {
        while b.len() < 2 {
            b.q.fifo.push(test_packet(0, 0, 1000));
        }
        let before = fx.drops.len();
        b.enqueue(test_packet(0, 1, 1000), at, fx);
        assert_eq!(fx.drops.len(), before + 1);
        assert_eq!(fx.drops.last().unwrap().1, reason::OVERFLOW);
    }

    /// The link finishes its packet at `at` and finds nothing waiting.
    fn idle(b: &mut Blue, at: Time, fx: &mut QueueEffects) {
        b.q.fifo = Fifo::default();
        b.q.fifo.push(test_packet(0, 0, 1000));
        assert!(b.dequeue(at, fx).is_some());
        assert!(b.dequeue(at, fx).is_none());
    }

    #[test]
    fn event_updates_at_most_once_per_freeze_time() {
        let mut b = Blue::new(params(Update::Event), Limit::Packets(2), Rng::new(1, 1), false);
        let mut fx = QueueEffects::default();
        // now − last_update must exceed 100 ms, with last_update = 0 at the start.
        overflow(&mut b, ms(50.0), &mut fx);
        assert_eq!(b.probability(), 0.0);
        overflow(&mut b, ms(150.0), &mut fx);
        assert!(close(b.probability(), 0.01));
        overflow(&mut b, ms(200.0), &mut fx);
        overflow(&mut b, ms(250.0), &mut fx); // exactly 100 ms: not more than freeze_time
        assert!(close(b.probability(), 0.01));
        overflow(&mut b, ms(251.0), &mut fx);
        assert!(close(b.probability(), 0.02));
        // Link idle at 300 ms: frozen (49 ms); at 400 ms: p_m − δ2.
        idle(&mut b, ms(300.0), &mut fx);
        assert!(close(b.probability(), 0.02));
        idle(&mut b, ms(400.0), &mut fx);
        assert!(close(b.probability(), 0.019));
        // The freeze is shared: an overflow 50 ms after the decrease does nothing.
        overflow(&mut b, ms(450.0), &mut fx);
        assert!(close(b.probability(), 0.019));
        let mut m = BTreeMap::new();
        b.report(&mut m);
        assert_eq!((m["increments"], m["decrements"]), (2.0, 1.0));
    }

    #[test]
    fn an_idle_link_is_one_event_and_p_m_stays_in_the_unit_interval() {
        let mut p = params(Update::Event);
        p.initial_probability = 0.0015;
        let mut b = Blue::new(p, Limit::Packets(2), Rng::new(1, 1), false);
        let mut fx = QueueEffects::default();
        idle(&mut b, ms(200.0), &mut fx);
        assert!(close(b.probability(), 0.0005));
        // Asking again while already idle is not a new idle event.
        assert!(b.dequeue(ms(400.0), &mut fx).is_none());
        assert!(close(b.probability(), 0.0005));
        idle(&mut b, ms(400.0), &mut fx);
        assert_eq!(b.probability(), 0.0);
        let mut p = params(Update::Event);
        p.initial_probability = 0.995;
        let mut b = Blue::new(p, Limit::Packets(0), Rng::new(1, 1), false);
        b.enqueue(test_packet(0, 0, 1000), ms(101.0), &mut fx);
        assert_eq!(b.probability(), 1.0);
    }

    #[test]
    fn interval_updates_once_per_freeze_time_from_the_first_arrival() {
        let mut b = Blue::new(params(Update::Interval), Limit::Packets(2), Rng::new(1, 1), false);
        let mut fx = QueueEffects::default();
        assert_eq!(b.next_timer(), None);
        b.enqueue(test_packet(0, 0, 1000), ms(30.0), &mut fx);
        assert_eq!(b.next_timer(), Some(ms(130.0)));
        // Two overflows in [30, 130): one increment at its end.
        overflow(&mut b, ms(40.0), &mut fx);
        overflow(&mut b, ms(41.0), &mut fx);
        assert_eq!(b.probability(), 0.0);
        b.on_timer(ms(130.0), &mut fx);
        assert!(close(b.probability(), 0.01));
        assert_eq!(b.next_timer(), Some(ms(230.0)));
        // Nothing in [130, 230) (an idle link is no event here): one decrement.
        idle(&mut b, ms(150.0), &mut fx);
        assert!(close(b.probability(), 0.01));
        b.on_timer(ms(230.0), &mut fx);
        assert!(close(b.probability(), 0.009));
    }

    #[test]
    fn a_queue_above_the_threshold_is_a_congestion_event() {
        let mut p = params(Update::Event);
        p.threshold = Some(1);
        let mut b = Blue::new(p, Limit::Packets(10), Rng::new(1, 1), false);
        let mut fx = QueueEffects::default();
        b.enqueue(test_packet(0, 0, 1000), ms(200.0), &mut fx);
        b.enqueue(test_packet(0, 1, 1000), ms(200.0), &mut fx);
        assert_eq!(b.probability(), 0.0); // found 0, then 1 packet: not more than L
        b.enqueue(test_packet(0, 2, 1000), ms(200.0), &mut fx);
        assert!(close(b.probability(), 0.01)); // found 2 > L
        assert!(fx.drops.is_empty());
    }

    #[test]
    fn drops_at_rate_p_m_or_marks_with_ecn() {
        let mut p = params(Update::Event);
        p.initial_probability = 0.1;
        let mut b = Blue::new(p.clone(), Limit::Packets(1_000_000), Rng::new(7, 1), false);
        let mut fx = QueueEffects::default();
        let n = 100_000;
        for s in 0..n {
            b.enqueue(test_packet(0, s, 1000), 0, &mut fx);
        }
        let rate = fx.drops.len() as f64 / n as f64;
        assert!((rate - 0.1).abs() < 0.003, "{rate}");
        assert!(fx.drops.iter().all(|d| d.1 == reason::EARLY));
        assert_eq!(b.probability(), 0.1);
        let mut b = Blue::new(p, Limit::Packets(1_000_000), Rng::new(7, 1), true);
        let mut fx = QueueEffects::default();
        for s in 0..1000 {
            let mut pkt = test_packet(0, s, 1000);
            pkt.ecn = Ecn::Ect;
            b.enqueue(pkt, 0, &mut fx);
        }
        assert!(fx.drops.is_empty());
        assert!(fx.marks.len() > 50 && fx.marks.len() < 150, "{}", fx.marks.len());
        assert_eq!(b.len(), 1000);
        // At p_m = 1 a Not-ECT packet is dropped even with ECN on, an ECT one marked.
        let mut p = params(Update::Event);
        p.initial_probability = 1.0;
        let mut b = Blue::new(p, Limit::Packets(10), Rng::new(7, 1), true);
        let mut fx = QueueEffects::default();
        let mut ect = test_packet(0, 1, 1000);
        ect.ecn = Ecn::Ect;
        b.enqueue(test_packet(0, 0, 1000), 0, &mut fx);
        b.enqueue(ect, 0, &mut fx);
        assert_eq!((fx.drops.len(), fx.drops[0].0.seq, fx.drops[0].1), (1, 0, reason::EARLY));
        assert_eq!(fx.marks, vec![(0, reason::EARLY)]);
        assert_eq!(b.dequeue(0, &mut fx).unwrap().ecn, Ecn::Ce);
    }

    #[test]
    fn errors_name_the_parameter() {
        let bad = |extra: serde_json::Value| {
            let mut v = serde_json::json!({"discipline": "blue", "limit": 50});
            v.as_object_mut().unwrap().extend(extra.as_object().unwrap().clone());
            let spec = QueueSpec::parse(&v, "q")?;
            let mut ctx = test_context("q");
            ctx.ecn_senders = false;
            spec.build(ctx).map(|_| ())
        };
        assert!(bad(serde_json::json!({})).is_ok());
        for (extra, field) in [
            (serde_json::json!({"increment": 0}), "q.increment"),
            (serde_json::json!({"decrement": 1.5}), "q.decrement"),
            (serde_json::json!({"freeze_time": "0s"}), "q.freeze_time"),
            (serde_json::json!({"freeze_time": "soon"}), "q.freeze_time"),
            (serde_json::json!({"initial_probability": -0.1}), "q.initial_probability"),
            (serde_json::json!({"update": "sometimes"}), "q.update"),
            (serde_json::json!({"threshold": -1}), "q.threshold"),
            (serde_json::json!({"ecn": true}), "q.ecn"),
            (serde_json::json!({"limit": 0}), "q.limit"),
        ] {
            assert_eq!(bad(extra.clone()).unwrap_err().field, field, "{extra}");
        }
    }
}
