//! Optimal BLUE (Stanojević & Shorten, Sec. 5): BLUE's per-arrival drop probability, `t_p`, adapted
//! once per sampling period Δ by the same grid search as Optimal Drop-Tail ([`GridOptimizer`]) to maximise
//! `u − γ·aQd`, in place of BLUE's additive steps.
//!
//! Every arrival that fits the physical buffer is dropped with probability `t_p` (or CE-marked, with `ecn`,
//! if ECN-capable; the paper drops); one that does not fit is an overflow drop. Utilization and delay fall
//! as `t_p` grows, so the monotonicity repair runs in the decreasing direction. `t_p` stays in
//! `[min_probability, 1]`. The paper does not give the physical buffer under OB; the default is the
//! 10,000 packets of its constant-drop-probability runs, which never overflow.

use super::blue::{Fate, RandomDrop};
use super::odt::buffer_bytes;
use super::optimizer::{
    meter_timer, with_tuning, DelayOf, Estimator, FirstStep, GridError, GridOptimizer, Meter,
};
use super::{fifo_occupancy, Discipline, Limit, QueueContext, QueueDisc, QueueEffects, LIMIT, LIMIT_BYTES};
use crate::packet::Packet;
use crate::spec::{err, ScenarioError};
use crate::time::Time;
use crate::units::{Bytes, Seconds};
use std::collections::BTreeMap;

with_tuning! {
    /// Optimal BLUE (Stanojević & Shorten §5, eq. 18–20): every arrival that fits the physical buffer is
    /// dropped (`early`; or marked with `ecn`) with probability `t_p`, which the optimiser adapts.
    pub struct Spec {
        /// The physical buffer; default 10,000 packets (the paper's constant-drop-probability runs; OB's
        /// is not stated).
        limit: Option<u64> = None, LIMIT.default_is("10000");
        /// The physical buffer in bytes, instead of `limit`.
        limit_bytes: Option<Bytes> = None, LIMIT_BYTES;
        /// `t_p(0)`.
        initial_probability: f64 = 0.002, Rule::closed(0.0, 1.0).low_field("min_probability");
        /// The smallest `t_p`, the grid's lower end (`t_p` <= 1).
        min_probability: f64 = 1e-6, Rule::right_open(1e-12, 1.0).and_context("< 1/alpha");
        /// Mark ECN-capable packets instead of dropping them (the paper drops; needs tcp.ecn).
        ecn: bool = false;
    }
}

pub struct Ob {
    q: RandomDrop,
    meter: Meter,
    opt: GridOptimizer,
}

impl Discipline for Ob {
    type Spec = Spec;
    fn build(s: &Spec, ctx: QueueContext) -> Result<Self, ScenarioError> {
        let tuning = s.tuning();
        let buffer = buffer_bytes(s.limit, s.limit_bytes, &ctx)?;
        let p0 = s.initial_probability;
        ctx.check_ecn(s.ecn)?;
        let opt = GridOptimizer::new(p0, s.min_probability, 1.0, false, &tuning).or_else(|e| match e {
            GridError::Initial => err(&ctx.field("initial_probability"), "must be in [min_probability, 1]"),
            GridError::Range => err(
                &ctx.field("min_probability"),
                "must leave [min_probability, 1] room for two grid points (below 1/alpha) and at most 1e6",
            ),
        })?;
        let q = RandomDrop::new(Limit::Bytes(buffer as u64), ctx.rng, s.ecn);
        Ok(Ob { q, meter: Meter::new(ctx.link_rate_bps, &tuning), opt })
    }
}

impl Ob {
    /// The current drop probability `t_p`.
    pub fn probability(&self) -> f64 {
        self.opt.value()
    }

    /// The grid search (its index, estimates and averages).
    pub fn optimizer(&self) -> &GridOptimizer {
        &self.opt
    }
}

impl QueueDisc for Ob {
    fn enqueue(&mut self, pkt: Packet, now: Time, fx: &mut QueueEffects) {
        let backlog = self.q.fifo.bytes();
        let fate = self.q.arrive(pkt, self.opt.value(), now, fx);
        self.meter.on_arrival(now, backlog, fate == Fate::Queued);
    }

    fn dequeue(&mut self, now: Time, _fx: &mut QueueEffects) -> Option<Packet> {
        let pkt = self.q.fifo.pop()?;
        self.meter.on_service(now, pkt.size);
        Some(pkt)
    }

    fifo_occupancy!(q.fifo, q.limit);

    meter_timer!(meter);

    fn on_timer(&mut self, now: Time, _fx: &mut QueueEffects) {
        if let Some((u, d)) = self.meter.end_if_due(now) {
            self.opt.end_of_period(u, d);
        }
    }

    fn report(&self, out: &mut BTreeMap<String, f64>) {
        self.opt
            .report(out, ["drop_probability", "drop_probability_window_mean", "drop_probability_run_mean"]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::queue::{reason, test_build, test_context, test_packet, QueueSpec};
    use crate::time::from_secs;

    fn build(table: serde_json::Value) -> Result<Ob, ScenarioError> {
        test_build(table)
    }

    #[test]
    fn drops_at_t_p_and_adapts_it_by_the_sign_rule() {
        let table = serde_json::json!({"discipline": "ob", "alpha": 2, "initial_probability": 0.125,
                                       "interval": "1s", "gamma": 10, "limit": 100000});
        let mut q = build(table).unwrap();
        assert_eq!(q.probability(), 0.125);
        let mut fx = QueueEffects::default();
        let n = 40_000;
        for s in 0..n {
            q.enqueue(test_packet(0, s, 1000), 0, &mut fx);
        }
        let rate = fx.drops.len() as f64 / n as f64;
        assert!((rate - 0.125).abs() < 0.005, "{rate}");
        assert!(fx.drops.iter().all(|d| d.1 == reason::EARLY));
        // Serve 500 packets (0.5 s) in the first second: ũ = 0.5; no arrivals after t = 0.
        let ms = from_secs(1e-3);
        for k in 0..500 {
            q.dequeue(k * ms, &mut fx).unwrap();
        }
        q.on_timer(from_secs(1.0), &mut fx);
        let (_, u, _) = q.optimizer().estimate(0).unwrap();
        assert!((u - 0.5).abs() < 1e-12);
        assert_eq!(q.probability(), 0.25); // first step up
                                           // Second second: 900 packets (ũ = 0.9 at t_p = 0.25 > û(0)) is out of the decreasing order: eq. 13
                                           // gives û(1) = (0.5 + 0.9) / 2 = 0.7; no arrivals, d̃ = 0 (in order); d̂(0) > 0 so B̂(1) = 0.7 >
                                           // B̂(0) after moving up: up again.
        for k in 0..900 {
            q.dequeue(from_secs(1.0) + k * ms, &mut fx).unwrap();
        }
        q.on_timer(from_secs(2.0), &mut fx);
        let (_, u, d) = q.optimizer().estimate(1).unwrap();
        assert!((u - 0.7).abs() < 1e-12 && d == 0.0, "{u} {d}");
        assert_eq!(q.probability(), 0.5);
        let mut m = BTreeMap::new();
        q.report(&mut m);
        assert_eq!((m["drop_probability"], m["drop_probability_run_mean"]), (0.5, 0.1875));
    }

    #[test]
    fn errors_name_the_parameter() {
        for (extra, field) in [
            (serde_json::json!({"initial_probability": 0}), "q.initial_probability"),
            (serde_json::json!({"initial_probability": 1.5}), "q.initial_probability"),
            (serde_json::json!({"min_probability": 0}), "q.min_probability"),
            (serde_json::json!({"min_probability": 1.5}), "q.min_probability"),
            (serde_json::json!({"min_probability": 0.99, "initial_probability": 0.995}), "q.min_probability"),
            (serde_json::json!({"ecn": true, "gamma": 1e9}), "q.gamma"),
            (serde_json::json!({"window": -3}), "q.window"),
            (serde_json::json!({"limit_bytes": 10}), "q.limit_bytes"),
        ] {
            let mut v = serde_json::json!({"discipline": "ob"});
            v.as_object_mut().unwrap().extend(extra.as_object().unwrap().clone());
            assert_eq!(build(v).err().map(|e| e.field), Some(field.to_string()), "{extra}");
        }
        let v = serde_json::json!({"discipline": "ob", "ecn": true});
        let mut ctx = test_context("q");
        ctx.ecn_senders = false;
        let QueueSpec::Ob(spec) = QueueSpec::parse(&v, "q").unwrap() else { panic!() };
        assert_eq!(Ob::from_spec(&spec, ctx).err().map(|e| e.field), Some("q.ecn".to_string()));
        assert!(build(serde_json::json!({"discipline": "ob"})).is_ok());
    }
}
