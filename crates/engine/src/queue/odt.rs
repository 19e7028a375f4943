//! Optimal Drop-Tail (Stanojević & Shorten, Sec. 4): a DropTail whose byte limit `t_S` is
//! adapted once per sampling period Δ to maximise the benefit `u − γ·aQd`.
//!
//! The discipline measures its own period utilization and mean potential queueing delay ([`Meter`], §2.3) and
//! hands them to the grid search shared with Optimal BLUE ([`GridOptimizer`], eq. 9–14), which multiplies or
//! divides `t_S` by α. `t_S` stays in `[1 packet, limit]`, `limit` being the physical buffer (default 10,000
//! packets, converted to bytes at the packet size). Packets already queued stay when `t_S` shrinks.

use super::optimizer::{
    meter_timer, with_tuning, DelayOf, Estimator, FirstStep, GridError, GridOptimizer, Meter,
};
use super::{
    resolve_limit_or, Discipline, DropTail, Limit, QueueContext, QueueDisc, QueueEffects, LIMIT, LIMIT_BYTES,
};
use crate::packet::Packet;
use crate::spec::{err, finite_range, ScenarioError};
use crate::time::Time;
use crate::units::{Bytes, Seconds};
use std::collections::BTreeMap;

/// The physical buffer when the table gives none: the paper's 10,000-packet buffer that never overflows.
pub const DEFAULT_BUFFER_PKTS: u64 = 10_000;

with_tuning! {
    /// Optimal Drop-Tail (Stanojević & Shorten §4, eq. 8–14): a DropTail whose byte limit `t_S` the
    /// optimiser adapts once per sampling period to maximise `u − γ·aQd`; `t_S` stays in [one packet, S0].
    pub struct Spec {
        /// The physical buffer S0, the largest `t_S`; default 10,000 packets (packets count as bytes at
        /// the packet size).
        limit: Option<u64> = None, LIMIT.default_is("10000");
        /// S0 in bytes, instead of `limit`.
        limit_bytes: Option<Bytes> = None, LIMIT_BYTES;
        /// `t_S(0)`; default 10 ms of the link rate (the paper's 100 KB at 10 MB/s).
        initial_limit_bytes: Option<Bytes> = None,
            Rule::context("in [one packet, S0]").default_is("10 ms of the link rate");
    }
}

/// The physical buffer of an ODT or OB table in bytes (packets at the port's packet size).
pub(crate) fn buffer_bytes(
    limit: Option<u64>,
    limit_bytes: Option<Bytes>,
    ctx: &QueueContext,
) -> Result<f64, ScenarioError> {
    let pkt = ctx.packet_size as f64;
    Ok(match resolve_limit_or(limit, limit_bytes, Limit::Packets(DEFAULT_BUFFER_PKTS), ctx)? {
        Limit::Packets(n) => n as f64 * pkt,
        Limit::Bytes(b) => b as f64,
    })
}

pub struct Odt {
    q: DropTail,
    meter: Meter,
    opt: GridOptimizer,
}

impl Discipline for Odt {
    type Spec = Spec;
    fn build(s: &Spec, ctx: QueueContext) -> Result<Self, ScenarioError> {
        let tuning = s.tuning();
        let pkt = ctx.packet_size as f64;
        let s0 = buffer_bytes(s.limit, s.limit_bytes, &ctx)?;
        let t0 = match s.initial_limit_bytes {
            Some(b) => {
                finite_range(&ctx.field("initial_limit_bytes"), b.0, pkt, s0, "in [one packet, limit]")?;
                b.0
            }
            None => (0.01 * ctx.link_rate_bps / 8.0).clamp(pkt, s0),
        };
        let opt = GridOptimizer::new(t0, pkt, s0, true, &tuning).or_else(|e| match e {
            GridError::Initial => err(&ctx.field("initial_limit_bytes"), "must be in [one packet, limit]"),
            GridError::Range => err(
                &ctx.field("limit"),
                "must leave [one packet, limit] room for two grid points (limit >= alpha packets) and \
                 at most 1e6 of them",
            ),
        })?;
        Ok(Odt::new(opt, Meter::new(ctx.link_rate_bps, &tuning)))
    }
}

impl Odt {
    pub fn new(opt: GridOptimizer, meter: Meter) -> Self {
        let q = DropTail::new(Limit::Bytes(opt.value() as u64));
        Odt { q, meter, opt }
    }

    /// The current buffer limit `t_S`, bytes.
    pub fn limit_bytes(&self) -> f64 {
        self.opt.value()
    }

    /// The grid search (its index, estimates and averages).
    pub fn optimizer(&self) -> &GridOptimizer {
        &self.opt
    }
}

impl QueueDisc for Odt {
    fn enqueue(&mut self, pkt: Packet, now: Time, fx: &mut QueueEffects) {
        let (backlog, before) = (self.q.bytes(), self.q.len());
        self.q.enqueue(pkt, now, fx);
        self.meter.on_arrival(now, backlog, self.q.len() > before);
    }

    fn dequeue(&mut self, now: Time, fx: &mut QueueEffects) -> Option<Packet> {
        let pkt = self.q.dequeue(now, fx)?;
        self.meter.on_service(now, pkt.size);
        Some(pkt)
    }

    fn len(&self) -> usize {
        self.q.len()
    }

    fn bytes(&self) -> u64 {
        self.q.bytes()
    }
    fn capacity(&self) -> Option<Limit> {
        Some(Limit::Bytes(self.opt.max_value() as u64))
    }

    meter_timer!(meter);

    fn on_timer(&mut self, now: Time, _fx: &mut QueueEffects) {
        if let Some((u, d)) = self.meter.end_if_due(now) {
            let t = self.opt.end_of_period(u, d);
            self.q.set_limit(Limit::Bytes(t as u64));
        }
    }

    fn report(&self, out: &mut BTreeMap<String, f64>) {
        self.opt.report(out, ["limit_bytes", "limit_window_mean_bytes", "limit_run_mean_bytes"]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::queue::{test_build, test_packet};
    use crate::time::from_secs;

    fn build(table: serde_json::Value) -> Result<Odt, ScenarioError> {
        test_build(table)
    }

    #[test]
    fn defaults_are_the_papers() {
        // 8 Mb/s = 1 MB/s: t_S(0) = 10 ms = 10,000 B; S0 = 10,000 packets of 1000 B.
        let q = build(serde_json::json!({"discipline": "odt"})).unwrap();
        assert_eq!(q.limit_bytes(), 10_000.0);
        assert_eq!(q.optimizer().value_at(-1), Some(10_000.0 / 1.05));
        // The grid spans [1000 B, 1e7 B]: 10,000·1.05^l for l in [−47, 141].
        let o = q.optimizer();
        assert!(o.value_at(-47).is_some() && o.value_at(-48).is_none());
        assert!(o.value_at(141).is_some() && o.value_at(142).is_none());
        assert_eq!(q.next_timer(), None);
    }

    #[test]
    fn measures_each_period_and_moves_the_limit() {
        let table = serde_json::json!({"discipline": "odt", "alpha": 2, "initial_limit_bytes": 4000,
                                       "interval": "10ms", "gamma": 10});
        let mut q = build(table).unwrap();
        let mut fx = QueueEffects::default();
        // Five arrivals at t = 0 (1 ms per packet): the first goes into service, four wait (4000 B fit).
        for s in 0..5 {
            q.enqueue(test_packet(0, s, 1000), 0, &mut fx);
            if s == 0 {
                q.dequeue(0, &mut fx).unwrap();
            }
        }
        assert!(fx.drops.is_empty());
        q.enqueue(test_packet(0, 5, 1000), 0, &mut fx); // 5000 B > t_S = 4000 B: dropped
        assert_eq!(fx.drops.len(), 1);
        let ms = from_secs(1e-3);
        for k in 1..5 {
            q.dequeue(k * ms, &mut fx).unwrap();
        }
        assert!(q.dequeue(5 * ms, &mut fx).is_none());
        assert_eq!(q.next_timer(), Some(10 * ms));
        q.on_timer(10 * ms, &mut fx);
        // ũ = 5 ms / 10 ms; d̃ = (0 + 1 + 2 + 3 + 4 + 5 ms) / 6 = 2.5 ms; first step up: 8000 B.
        let (n, u, d) = q.optimizer().estimate(0).unwrap();
        assert_eq!(n, 1);
        assert!((u - 0.5).abs() < 1e-12 && (d - 2.5e-3).abs() < 1e-12, "{u} {d}");
        assert_eq!(q.limit_bytes(), 8000.0);
        // An idle period: ũ = 0 and d̃ = 0 break the order against index 0, so eq. 13-14 give û(1) = 0.25,
        // d̂(1) = 1.25 ms: B̂(1) = 0.2375 < B̂(0) = 0.475 after moving up: back to 4000 B.
        assert_eq!(q.next_timer(), Some(20 * ms));
        q.on_timer(20 * ms, &mut fx);
        assert_eq!(q.limit_bytes(), 4000.0);
        let mut m = BTreeMap::new();
        q.report(&mut m);
        assert_eq!((m["limit_bytes"], m["limit_run_mean_bytes"], m["periods"]), (4000.0, 6000.0, 2.0));
    }

    #[test]
    fn errors_name_the_parameter() {
        for (extra, field) in [
            (serde_json::json!({"gamma": -1}), "q.gamma"),
            (serde_json::json!({"interval": "0s"}), "q.interval"),
            (serde_json::json!({"alpha": 1.0}), "q.alpha"),
            (serde_json::json!({"window": 0}), "q.window"),
            (serde_json::json!({"first_step": "sideways"}), "q.first_step"),
            (serde_json::json!({"estimator": "median"}), "q.estimator"),
            (serde_json::json!({"delay_of": "some"}), "q.delay_of"),
            (serde_json::json!({"initial_limit_bytes": 500}), "q.initial_limit_bytes"),
            (serde_json::json!({"initial_limit_bytes": "20MB"}), "q.initial_limit_bytes"),
            (serde_json::json!({"limit": 1}), "q.limit"),
            (serde_json::json!({"limit": 0}), "q.limit"),
            (serde_json::json!({"limit": 10, "limit_bytes": 9000}), "q.limit"),
            (serde_json::json!({"price": 2}), "q.price"),
        ] {
            let mut v = serde_json::json!({"discipline": "odt"});
            v.as_object_mut().unwrap().extend(extra.as_object().unwrap().clone());
            assert_eq!(build(v).err().map(|e| e.field), Some(field.to_string()), "{extra}");
        }
    }
}
