//! Random Early Detection with ns-2 semantics (Floyd & Jacobson 1993; ns-2 `queue/red.cc`), which ns-3's
//! `RedQueueDisc` also follows. Packet mode only (thresholds and the average in packets).
//!
//! On each arrival, with `q` the packets waiting before it:
//! - **average**: `avg ← avg·(1−w)^(m+1) + w·q`, where `m = ⌊ptc·idle⌋` is the number of mean-size packets the
//!   link could have sent while the queue sat idle (ptc = rate / (8·mean_pktsize)), 0 if it was busy;
//! - `count` (arrivals since the last drop or mark) is incremented;
//! - if `avg ≥ min_th` and `q > 1`: a **forced** drop if `avg ≥ max_th` (`2·max_th` when gentle); else, the
//!   first time above `min_th`, `count ← 1` and nothing happens; else an **early** drop or mark with
//!   probability `p_a`: `p_b = max_p·(avg−min_th)/(max_th−min_th)` (gentle above max_th:
//!   `max_p + (1−max_p)·(avg−max_th)/max_th`), and with `wait` `p_a = 0` if `count·p_b < 1`,
//!   `p_b/(2−count·p_b)` if `< 2`, else 1; without `wait` `p_a = p_b/(1−count·p_b)` (1 if that is ≥ 1);
//! - otherwise (below `min_th`, or `q ≤ 1`) the "above min_th" flag is cleared;
//! - an early decision marks CE instead of dropping when `ecn` is on and the packet is ECT; forced drops are
//!   drops even with ECN (ns-2; ns-3's `UseHardDrop=true`) unless `hard_drop = false`, which marks them as
//!   well (ns-3's `UseHardDrop=false`); both reset `count` to 0;
//! - `mark_p` (ns-2's `use_mark_p_`/`mark_p_`, `queue/red.cc` `drop_early`, added in ns-2.30 with
//!   `use_mark_p_ true` and `mark_p_ 0.1` as defaults since Dec 2005): an early decision on an ECT packet
//!   marks only if the base probability `p_b` (ns-2's `v_prob1`, before the `count` spreading) is below
//!   `mark_p`; at `p_b ≥ mark_p` the packet is dropped (`early`) instead, also on the gentle line above
//!   `max_th`. Left out (the default): always mark, as ns-2 with `use_mark_p_ false` and ns-3. Forced drops
//!   stay drops (ns-2 with `use_mark_p_` sends arrivals above the forced level through `drop_early` with
//!   `p_b = 1`, which drops them as well, except the first arrival after the average crosses `min_th`);
//! - an accepted packet that does not fit the buffer limit is an **overflow** drop.
//!
//! Defaults are ns-2's (`min_th` 5, `max_th` 15, `max_p` 0.1 = 1/linterm 10, `w` 0.002, gentle, wait), except
//! `mean_pktsize`, which defaults to the scenario's packet size instead of ns-2's constant 500 B.
//!
//! The average and the test live in [`RedCore`] (settings: [`RedTest`]), which other RED-derived
//! disciplines reuse with their own action on a decision (Global Notifier marks the whole buffer), with
//! their own step between the average and the test (Adaptive RED moves `max_p` there), or with their own
//! thresholds and ramp (Eun & Wang's ns2-red reading: thresholds scaled by N^α, EXP's curve as [`Ramp::Exp`]).

use super::{
    fifo_occupancy, reason, resolve_limit, Discipline, Fifo, Limit, QueueContext, QueueDisc, QueueEffects,
    LIMIT, LIMIT_BYTES,
};
use crate::packet::Packet;
use crate::rng::Rng;
use crate::spec::params::Rule;
use crate::spec::ScenarioError;
use crate::time::{to_secs, Time};
use crate::units::Bytes;

with_red_switches! {
    /// RED (Floyd & Jacobson 1993) as ns-2's `queue/red.cc` runs it (`drop_early`, `use_mark_p_`): early
    /// drops (or ECN marks) as the average queue moves from `min_th` to `max_th`; thresholds in packets.
    /// Defaults: ns-2's.
    pub struct Spec {
        /// Packets waiting (required, or `limit_bytes`).
        limit: Option<u64> = None, LIMIT;
        /// Bytes waiting, instead of `limit`.
        limit_bytes: Option<Bytes> = None, LIMIT_BYTES;
        /// Where early drops begin; with 0 they may begin as soon as the average is above 0 and more than
        /// one packet waits.
        min_th: f64 = 5.0, Rule::closed(0.0, 1e9).unit("packets");
        /// Where the early-drop probability reaches `max_p`; equal to `min_th` (with `gentle = false`,
        /// `weight = 1`, `hard_drop = false`) it is DCTCP's step marking at K (the `step` discipline).
        max_th: f64 = 15.0, Rule::at_least(0.0).low_field("min_th").unit("packets");
        /// The early-drop probability at `max_th` (ns-2 linterm 10).
        max_p: f64 = 0.1, Rule::left_open(0.0, 1.0);
        /// The weight of the average queue's moving average.
        weight: f64 = 0.002, Rule::left_open(0.0, 1.0);
    }
}

/// A [`params!`](crate::spec::params) table of RED or Adaptive RED: its own parameters, then the switches
/// of RED's test and action both share (declared here once): `gentle`, `wait`, `ecn`, `mean_pktsize`,
/// `mark_p`.
macro_rules! with_red_switches {
    ($(#[doc = $about:literal])+ pub struct $name:ident { $($own:tt)* }) => {
        $crate::spec::params::params! {
            $(#[doc = $about])+
            pub struct $name {
                $($own)*
                /// Between `max_th` and `2·max_th` the probability rises from `max_p` to 1 (else forced
                /// drops).
                gentle: bool = true;
                /// Spread early drops evenly (ns-2 `wait_`).
                wait: bool = true;
                /// Mark ECN-capable packets instead of dropping them early (needs tcp.ecn).
                ecn: bool = false;
                /// Forced decisions drop ECN-capable packets too (ns-2; ns-3's `UseHardDrop`, true by
                /// default); false: with `ecn` they mark them, as early decisions do.
                hard_drop: bool = true;
                /// The packet size of the idle-time correction; default: the packet size of the flows
                /// crossing the port.
                mean_pktsize: Option<$crate::units::Bytes> = None,
                    Rule::closed(1.0, 65535.0).default_is("the packet size");
                /// ns-2's `mark_p_` with `use_mark_p_` (0.1 in ns-2 >= 2.30): with `ecn`, an early decision
                /// marks only while p_b < `mark_p` and drops at p_b >= `mark_p`; default: always mark. Not
                /// in ns-3.
                #[serde(skip_serializing_if = "Option::is_none")]
                mark_p: Option<f64> = None, $crate::queue::red::MARK_P;
            }
        }

        impl $name {
            /// RED's parameters: these thresholds, `max_p` and weight with the table's switches, the
            /// resolved `mean_pktsize` and the port's link and `limit`.
            pub fn red_params(
                &self,
                (min_th, max_th, max_p, weight): (f64, f64, f64, f64),
                mean_pktsize: f64,
                ctx: &$crate::queue::QueueContext,
                limit: $crate::queue::Limit,
            ) -> $crate::queue::red::RedParams {
                $crate::queue::red::RedParams {
                    min_th,
                    max_th,
                    max_p,
                    weight,
                    gentle: self.gentle,
                    wait: self.wait,
                    ecn: self.ecn,
                    hard_drop: self.hard_drop,
                    mean_pktsize: mean_pktsize as u32,
                    link_rate_bps: ctx.link_rate_bps,
                    limit,
                    mark_p: self.mark_p,
                }
            }
        }
    };
}
pub(crate) use with_red_switches;

/// `mark_p`, when given (ns-2's `mark_p_`).
pub const MARK_P: Rule = Rule::left_open(0.0, 1.0);

impl Discipline for Red {
    type Spec = Spec;
    fn build(s: &Spec, ctx: QueueContext) -> Result<Self, ScenarioError> {
        let limit = resolve_limit(s.limit, s.limit_bytes, &ctx)?;
        let mean = s.mean_pktsize.map_or(ctx.packet_size as f64, |m| m.0);
        ctx.check_ecn(s.ecn)?;
        let params = s.red_params((s.min_th, s.max_th, s.max_p, s.weight), mean, &ctx, limit);
        Ok(Red::new(params, ctx.rng))
    }
}

/// ns-2's `use_mark_p_` rule: may an early decision taken at base probability `pb` mark (rather than drop)?
#[inline(always)]
pub(crate) fn may_mark(mark_p: Option<f64>, pb: f64) -> bool {
    match mark_p {
        Some(m) => pb < m,
        None => true,
    }
}

/// RED's parameters (packet mode), resolved.
#[derive(Clone, Debug, PartialEq)]
pub struct RedParams {
    pub min_th: f64,
    pub max_th: f64,
    pub max_p: f64,
    pub weight: f64,
    pub gentle: bool,
    pub wait: bool,
    pub ecn: bool,
    /// Forced decisions drop ECN-capable packets too (else, with `ecn`, they mark them).
    pub hard_drop: bool,
    /// Bytes; sets the idle-time correction's packet rate.
    pub mean_pktsize: u32,
    /// The output link's rate, bits/s.
    pub link_rate_bps: f64,
    pub limit: Limit,
    /// ns-2's `mark_p_` (see [`Spec::mark_p`]); `None`: always mark.
    pub mark_p: Option<f64>,
}

impl RedParams {
    /// RED's test with these parameters: gentle mode sets `p_b` above `max_th` and moves the forced drops
    /// from `max_th` to `2·max_th`.
    pub fn test(&self) -> RedTest {
        RedTest {
            min_th: self.min_th,
            max_th: self.max_th,
            max_p: self.max_p,
            weight: self.weight,
            wait: self.wait,
            above_max: if self.gentle { AboveMax::Gentle } else { AboveMax::One },
            ramp: Ramp::Linear,
            forced_th: if self.gentle { 2.0 * self.max_th } else { self.max_th },
            count: CountRule::SinceDecision,
            ptc: self.link_rate_bps / (8.0 * self.mean_pktsize as f64),
        }
    }
}

/// The base probability `p_b` at or above `max_th`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AboveMax {
    /// ns-2 gentle: `max_p + (1−max_p)·(avg−max_th)/max_th`, reaching 1 at `2·max_th`.
    Gentle,
    /// 1 (RED without gentle, where every arrival from `max_th` up is a forced drop anyway).
    One,
    /// Eq. (3) extended: `max_p·(avg−min_th)/(max_th−min_th)`, capped at 1.
    Linear,
}

/// The base probability `p_b` from `min_th` up to `max_th`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Ramp {
    /// RED's line: `max_p·(avg − min_th)/(max_th − min_th)`.
    Linear,
    /// Eun & Wang's EXP marking (Table I): `1 − exp(−avg/scale)`.
    Exp { scale: f64 },
}

/// What `count` counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CountRule {
    /// Arrivals since the last early or forced decision (RED, ns-2): reset to 0 by a decision, to 1 when
    /// the average first reaches `min_th`.
    SinceDecision,
    /// Arrivals since the queue was last idle (reset only by an arrival to an empty queue).
    SinceIdle,
}

/// The settings of RED's average and test, shared by the disciplines that use it.
#[derive(Clone, Debug, PartialEq)]
pub struct RedTest {
    pub min_th: f64,
    pub max_th: f64,
    pub max_p: f64,
    pub weight: f64,
    pub wait: bool,
    pub above_max: AboveMax,
    /// `p_b` below `max_th`.
    pub ramp: Ramp,
    /// Arrivals are dropped outright (forced) when the average is at least this (`f64::INFINITY`: never).
    pub forced_th: f64,
    pub count: CountRule,
    /// Mean-size packet transmissions per second (ns-2 `ptc`), for the idle-time correction.
    pub ptc: f64,
}

/// The outcome of RED's test on one arrival, before any buffer-limit check.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RedDecision {
    Accept,
    Early,
    Forced,
}

/// RED's average queue and its test on each arrival (ns-2 `REDQueue::enque` up to the decision), without
/// a buffer: the discipline passes its queue length and reports when the queue empties. RED and Global
/// Notifier differ only in what they do with the decision.
pub struct RedCore {
    t: RedTest,
    rng: Rng,
    /// The EWMA of the queue length, packets.
    avg: f64,
    /// See [`CountRule`].
    count: u64,
    /// Was the average at or above min_th at the previous arrival (ns-2 `old`)?
    above_min: bool,
    idle: bool,
    idle_since: Time,
    /// The `max_p` of the gentle line above `max_th`: `t.max_p` unless [`RedCore::set_max_p`] leaves it.
    gentle_max_p: f64,
    /// `p_b` at the last early decision (ns-2 `v_prob1`), for the `mark_p` rule.
    early_pb: f64,
}

/// `x^n` by repeated squaring: exact IEEE operations in a fixed order, so identical on every machine.
pub(crate) fn powi_exact(mut x: f64, mut n: u64) -> f64 {
    let mut r = 1.0;
    while n > 0 {
        if n & 1 == 1 {
            r *= x;
        }
        x *= x;
        n >>= 1;
    }
    r
}

/// ns-2's `modify_p`: the actual probability `p_a` from the base probability `p_b` and the arrivals since the
/// last decision, uniformised (`wait`: `p_b / (2 − count·p_b)` once `count·p_b ≥ 1`, none before) or not
/// (`p_b / (1 − count·p_b)`).
pub(crate) fn modify_p(pb: f64, count: u64, wait: bool) -> f64 {
    let c = count as f64;
    let pa = if wait {
        if c * pb < 1.0 {
            0.0
        } else if c * pb < 2.0 {
            pb / (2.0 - c * pb)
        } else {
            1.0
        }
    } else if c * pb < 1.0 {
        pb / (1.0 - c * pb)
    } else {
        1.0
    };
    pa.min(1.0)
}

impl RedCore {
    pub fn new(t: RedTest, rng: Rng) -> Self {
        let gentle_max_p = t.max_p;
        RedCore {
            t,
            rng,
            avg: 0.0,
            count: 0,
            above_min: false,
            idle: true,
            idle_since: 0,
            gentle_max_p,
            early_pb: 0.0,
        }
    }

    /// The `max_p` of the linear part of `p_b` (between `min_th` and `max_th`).
    pub fn max_p(&self) -> f64 {
        self.t.max_p
    }

    /// Change `max_p` (Adaptive RED). With `gentle_too` the gentle line above `max_th` starts from the new
    /// value as well; without, it keeps the `max_p` it had before (ns-2 and ns-3 compute that line's
    /// coefficients once, from the initial `max_p`).
    pub fn set_max_p(&mut self, max_p: f64, gentle_too: bool) {
        self.t.max_p = max_p;
        if gentle_too {
            self.gentle_max_p = max_p;
        }
    }

    /// The current average queue, packets.
    pub fn average(&self) -> f64 {
        self.avg
    }

    /// Move the thresholds (Eun & Wang's scaling by a live N): `min_th`, `max_th`, the forced-drop level
    /// and the ramp between them.
    pub fn set_thresholds(&mut self, min_th: f64, max_th: f64, forced_th: f64, ramp: Ramp) {
        (self.t.min_th, self.t.max_th, self.t.forced_th, self.t.ramp) = (min_th, max_th, forced_th, ramp);
    }

    /// As after earlier arrivals above `min_th` to a busy queue (for tests that start there).
    #[cfg(test)]
    pub(crate) fn prime(&mut self) {
        (self.above_min, self.idle) = (true, false);
    }

    /// The random stream of the test, for a discipline's other draws.
    pub fn rng(&mut self) -> &mut Rng {
        &mut self.rng
    }

    /// The base probability `p_b` of the last [`RedDecision::Early`] (ns-2 `v_prob1`).
    pub fn early_base_probability(&self) -> f64 {
        self.early_pb
    }

    /// The base probability `p_b` for average `avg` (ns-2 `calculate_p_new`).
    pub fn base_probability(&self, avg: f64) -> f64 {
        let t = &self.t;
        let pb = match t.above_max {
            AboveMax::Gentle if avg >= t.max_th => {
                self.gentle_max_p + (1.0 - self.gentle_max_p) * (avg - t.max_th) / t.max_th
            }
            AboveMax::One if avg >= t.max_th => 1.0,
            _ => match t.ramp {
                Ramp::Linear => t.max_p * (avg - t.min_th) / (t.max_th - t.min_th),
                Ramp::Exp { scale } => -(-avg / scale).exp_m1(),
            },
        };
        pb.min(1.0)
    }

    /// The actual probability `p_a` from `p_b` and `count` (ns-2 `modify_p`).
    pub fn actual_probability(&self, pb: f64, count: u64) -> f64 {
        modify_p(pb, count, self.t.wait)
    }

    /// Update the average for an arrival at `now` to a queue of `qlen` packets and decide; `count` and the
    /// flags are updated. The same as [`RedCore::update_average`] then [`RedCore::test`].
    pub fn decide(&mut self, now: Time, qlen: usize) -> RedDecision {
        self.update_average(now, qlen);
        self.test(qlen)
    }

    /// The first half of [`RedCore::decide`]: the average after an arrival at `now` to a queue of `qlen`
    /// packets (with the idle-time correction if the queue was empty), which it returns.
    #[inline]
    pub fn update_average(&mut self, now: Time, qlen: usize) -> f64 {
        let m = if self.idle {
            self.idle = false;
            if self.t.count == CountRule::SinceIdle {
                self.count = 0;
            }
            (self.t.ptc * to_secs(now.saturating_sub(self.idle_since))) as u64
        } else {
            0
        };
        self.avg = self.avg * powi_exact(1.0 - self.t.weight, m + 1) + self.t.weight * qlen as f64;
        self.avg
    }

    /// The second half of [`RedCore::decide`]: RED's test of the arrival against the current average, with
    /// `qlen` packets waiting before it; `count` and the flags are updated.
    #[inline]
    pub fn test(&mut self, qlen: usize) -> RedDecision {
        let q = qlen as f64;
        self.count += 1;
        if self.avg >= self.t.min_th && q > 1.0 {
            if self.avg >= self.t.forced_th {
                self.reset_count();
                RedDecision::Forced
            } else if !self.above_min {
                self.above_min = true;
                if self.t.count == CountRule::SinceDecision {
                    self.count = 1;
                }
                RedDecision::Accept
            } else {
                let pb = self.base_probability(self.avg);
                let pa = self.actual_probability(pb, self.count);
                if self.rng.uniform() <= pa && pa > 0.0 {
                    self.reset_count();
                    self.early_pb = pb;
                    RedDecision::Early
                } else {
                    RedDecision::Accept
                }
            }
        } else {
            self.above_min = false;
            RedDecision::Accept
        }
    }

    /// A drop or mark decided outside the test (an overflow) resets `count` as a decision does.
    pub fn reset_count(&mut self) {
        if self.t.count == CountRule::SinceDecision {
            self.count = 0;
        }
    }

    /// The queue went empty at `now`: the next arrival corrects the average for the idle time.
    pub fn on_empty(&mut self, now: Time) {
        self.idle = true;
        self.idle_since = now;
    }
}

pub struct Red {
    p: RedParams,
    core: RedCore,
    fifo: Fifo,
}

impl Red {
    pub fn new(p: RedParams, rng: Rng) -> Self {
        let core = RedCore::new(p.test(), rng);
        Red { p, core, fifo: Fifo::default() }
    }

    /// The current average queue, packets.
    pub fn average(&self) -> f64 {
        self.core.average()
    }

    /// The base probability `p_b` for average `avg` (ns-2 `calculate_p_new`).
    pub fn base_probability(&self, avg: f64) -> f64 {
        self.core.base_probability(avg)
    }

    /// The actual probability `p_a` from `p_b` and `count` (ns-2 `modify_p`).
    pub fn actual_probability(&self, pb: f64, count: u64) -> f64 {
        self.core.actual_probability(pb, count)
    }

    /// Update the average for an arrival at `now` and decide; `count` and the flags are updated.
    pub fn decide(&mut self, now: Time) -> RedDecision {
        self.core.decide(now, self.fifo.len())
    }

    /// The average and the test.
    pub fn core(&self) -> &RedCore {
        &self.core
    }

    /// The average and the test, for a discipline that acts between the two (Adaptive RED).
    pub fn core_mut(&mut self) -> &mut RedCore {
        &mut self.core
    }

    /// What RED does with its decision on an arrival: a forced drop (a CE mark with `ecn` and without
    /// `hard_drop` on an ECN-capable packet); an early drop, or a CE mark with `ecn` on an ECN-capable
    /// packet (with `mark_p`, only while `p_b < mark_p`); else queued if it fits the limit (an `overflow`
    /// drop if not).
    #[inline(always)]
    pub fn act(&mut self, decision: RedDecision, mut pkt: Packet, now: Time, fx: &mut QueueEffects) {
        match decision {
            RedDecision::Forced => {
                let mark = self.p.ecn && !self.p.hard_drop;
                if !(mark && fx.mark(&mut pkt, reason::FORCED)) {
                    return fx.drop(pkt, reason::FORCED);
                }
            }
            RedDecision::Early => {
                let mark = self.p.ecn && may_mark(self.p.mark_p, self.core.early_base_probability());
                if !(mark && fx.mark(&mut pkt, reason::EARLY)) {
                    return fx.drop(pkt, reason::EARLY);
                }
            }
            RedDecision::Accept => {}
        }
        self.fifo.admit(pkt, self.p.limit, now, fx);
    }
}

impl QueueDisc for Red {
    fn enqueue(&mut self, pkt: Packet, now: Time, fx: &mut QueueEffects) {
        let decision = self.decide(now);
        self.act(decision, pkt, now, fx);
    }

    fn dequeue(&mut self, now: Time, _fx: &mut QueueEffects) -> Option<Packet> {
        let p = self.fifo.pop();
        if p.is_none() {
            self.core.on_empty(now);
        }
        p
    }

    fifo_occupancy!(fifo, p.limit);
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::packet::Ecn;
    use crate::queue::test_packet;
    use crate::time::from_secs;

    /// min_th 5, max_th 15, max_p 0.1, w 0.002, gentle, wait; 1000 packets/s of 1000 B.
    pub(crate) fn params() -> RedParams {
        RedParams {
            min_th: 5.0,
            max_th: 15.0,
            max_p: 0.1,
            weight: 0.002,
            gentle: true,
            wait: true,
            ecn: false,
            hard_drop: true,
            mean_pktsize: 1000,
            link_rate_bps: 8e6, // 1000 packets/s of 1000 B
            limit: Limit::Packets(1000),
            mark_p: None,
        }
    }

    #[test]
    fn base_probability_matches_hand_values() {
        let r = Red::new(params(), Rng::new(1, 1));
        assert_eq!(r.base_probability(5.0), 0.0);
        assert!((r.base_probability(10.0) - 0.05).abs() < 1e-15);
        assert!((r.base_probability(15.0) - 0.1).abs() < 1e-15);
        // gentle: max_p + (1 - max_p) (avg - max_th) / max_th
        assert!((r.base_probability(22.5) - (0.1 + 0.9 * 0.5)).abs() < 1e-15);
        assert_eq!(r.base_probability(30.0), 1.0);
        let mut p = params();
        p.gentle = false;
        assert_eq!(Red::new(p, Rng::new(1, 1)).base_probability(15.0), 1.0);
    }

    #[test]
    fn wait_rule_and_uniformization() {
        let r = Red::new(params(), Rng::new(1, 1));
        // wait: no drop until count * pb >= 1, then pb / (2 - count pb), then 1 at count pb >= 2
        assert_eq!(r.actual_probability(0.05, 19), 0.0);
        assert!((r.actual_probability(0.05, 30) - 0.05 / 0.5).abs() < 1e-15);
        assert_eq!(r.actual_probability(0.05, 40), 1.0);
        let mut p = params();
        p.wait = false;
        let r = Red::new(p, Rng::new(1, 1));
        assert!((r.actual_probability(0.05, 10) - 0.05 / 0.5).abs() < 1e-15);
        assert_eq!(r.actual_probability(0.05, 20), 1.0);
    }

    #[test]
    fn average_follows_ewma_with_idle_correction() {
        let mut r = Red::new(params(), Rng::new(1, 1));
        let mut fx = QueueEffects::default();
        // First arrival at t = 0 with an idle queue since 0: m = 0, avg = 0.
        r.enqueue(test_packet(0, 0, 1000), 0, &mut fx);
        assert_eq!(r.average(), 0.0);
        // Nine more back-to-back arrivals: avg_k = avg_{k-1} (1-w) + w q, q = 1..9.
        let mut expect = 0.0;
        for s in 1..10u32 {
            r.enqueue(test_packet(0, s, 1000), 0, &mut fx);
            expect = expect * (1.0 - 0.002) + 0.002 * s as f64;
        }
        assert!((r.average() - expect).abs() < 1e-15);
        // Drain, idle for 0.5 s = 500 packet times: avg <- avg (1-w)^(500+1) + w*0.
        while r.dequeue(from_secs(1.0), &mut fx).is_some() {}
        r.dequeue(from_secs(1.0), &mut fx);
        r.enqueue(test_packet(0, 10, 1000), from_secs(1.5), &mut fx);
        let want = expect * (1.0f64 - 0.002).powi(501);
        assert!((r.average() - want).abs() < 1e-12, "{} vs {want}", r.average());
    }

    #[test]
    fn forced_drop_at_max_th_without_gentle() {
        // max_p tiny and `wait`: count * p_b < 1 throughout, so no early drop; avg = q (w = 1).
        let mut p = params();
        p.weight = 1.0;
        p.gentle = false;
        p.max_p = 1e-9;
        let mut r = Red::new(p, Rng::new(1, 1));
        let mut fx = QueueEffects::default();
        for s in 0..15 {
            r.enqueue(test_packet(0, s, 1000), 0, &mut fx);
        }
        assert!(fx.drops.is_empty());
        // The 16th arrival sees q = 15 = max_th.
        r.enqueue(test_packet(0, 15, 1000), 0, &mut fx);
        assert_eq!(
            fx.drops,
            vec![(test_packet(0, 15, 1000), reason::FORCED, crate::queue::Stage::BeforeEnqueue)]
        );
        assert_eq!(r.len(), 15);
    }

    #[test]
    fn forced_drop_above_twice_max_th_in_gentle_mode() {
        let mut p = params();
        p.weight = 1.0;
        let mut r = Red::new(p, Rng::new(1, 1));
        for s in 0..30 {
            r.fifo.push(test_packet(0, s, 1000));
        }
        r.core.above_min = true;
        assert_eq!(r.decide(0), RedDecision::Forced);
        r.fifo.pop();
        r.fifo.pop();
        // avg = 28 < 2 max_th: p_b = 0.1 + 0.9 * 13/15, p_a with count 1 is 0 under `wait`.
        assert_eq!(r.decide(0), RedDecision::Accept);
    }

    #[test]
    fn ecn_marks_instead_of_early_drop() {
        let mut p = params();
        p.weight = 1.0;
        p.ecn = true;
        p.wait = false;
        let mut r = Red::new(p, Rng::new(3, 1));
        let mut fx = QueueEffects::default();
        for s in 0..25 {
            let mut pkt = test_packet(0, s, 1000);
            pkt.ecn = Ecn::Ect;
            r.enqueue(pkt, 0, &mut fx);
            if r.len() > 12 {
                r.dequeue(0, &mut fx);
            }
        }
        assert!(!fx.marks.is_empty());
        assert!(fx.drops.iter().all(|d| d.1 != reason::EARLY));
    }

    /// Arrivals of `ecn` packets to a queue held at `hold` packets from the start (w = 1, so avg = `hold`), no
    /// `wait`.
    fn held_queue(mark_p: Option<f64>, ecn: Ecn, hold: u32, n: u32) -> QueueEffects {
        let mut p = params();
        p.weight = 1.0;
        p.wait = false;
        p.ecn = true;
        p.mark_p = mark_p;
        let mut r = Red::new(p, Rng::new(5, 1));
        for s in 0..hold {
            r.fifo.push(test_packet(1, s, 1000));
        }
        r.core.above_min = true;
        let mut fx = QueueEffects::default();
        for s in 0..n {
            r.enqueue(Packet { ecn, ..test_packet(0, s, 1000) }, 0, &mut fx);
            if r.len() > hold as usize {
                r.dequeue(0, &mut fx);
            }
        }
        fx
    }

    #[test]
    fn mark_p_marks_below_it_and_drops_at_or_above_it() {
        // avg 10: p_b = 0.1·(10−5)/10 = 0.05 exactly.
        assert_eq!(Red::new(params(), Rng::new(1, 1)).base_probability(10.0), 0.05);
        let early = |fx: &QueueEffects| fx.drops.iter().filter(|d| d.1 == reason::EARLY).count();
        // p_b < mark_p: every early decision is a mark, as without mark_p (the same draws).
        let below = held_queue(Some(0.1), Ecn::Ect, 10, 5000);
        let always = held_queue(None, Ecn::Ect, 10, 5000);
        assert!(below.marks.len() > 100, "{}", below.marks.len());
        assert_eq!(early(&below), 0);
        assert_eq!(below.marks, always.marks);
        assert_eq!(below.drops, always.drops);
        // p_b = mark_p (ns-2's strict `<`) and p_b > mark_p: the ECT packet is dropped, never marked.
        for m in [0.05, 0.01] {
            let at = held_queue(Some(m), Ecn::Ect, 10, 5000);
            assert!(at.marks.is_empty(), "{m}");
            assert_eq!(early(&at), always.marks.len(), "{m}");
        }
        // Gentle line above max_th: p_b ∈ (max_p, 1) ≥ mark_p 0.1, so drops; without mark_p, marks.
        let ramp = held_queue(Some(0.1), Ecn::Ect, 20, 3000);
        assert!(ramp.marks.is_empty() && early(&ramp) > 100);
        assert!(!held_queue(None, Ecn::Ect, 20, 3000).marks.is_empty());
    }

    #[test]
    fn mark_p_leaves_not_ect_packets_and_forced_drops_alone() {
        for m in [None, Some(0.01), Some(0.5)] {
            assert_eq!(
                held_queue(m, Ecn::NotEct, 10, 5000).drops,
                held_queue(None, Ecn::NotEct, 10, 5000).drops
            );
            assert!(held_queue(m, Ecn::NotEct, 10, 5000).marks.is_empty());
        }
        // Above 2·max_th every arrival is a forced drop, with or without mark_p.
        let forced = held_queue(Some(0.1), Ecn::Ect, 31, 200);
        assert_eq!(forced.drops, held_queue(None, Ecn::Ect, 31, 200).drops);
        assert!(forced.drops.iter().any(|d| d.1 == reason::FORCED));
    }

    #[test]
    fn mark_p_is_checked_and_written_back_only_when_given() {
        for bad in [0.0, -0.1, 1.5, f64::NAN] {
            let spec = Spec { limit: Some(100), ecn: true, mark_p: Some(bad), ..Spec::default() };
            let e = Red::from_spec(&spec, crate::queue::test_context("bottleneck.queue")).err().unwrap();
            assert_eq!(e.field, "bottleneck.queue.mark_p");
            assert!(e.message.contains("(0, 1]"), "{e}");
        }
        let spec = Spec { limit: Some(100), ..Spec::default() };
        assert!(serde_json::to_value(&spec).unwrap().get("mark_p").is_none());
        let spec = Spec { mark_p: Some(0.1), ..spec };
        assert_eq!(serde_json::to_value(&spec).unwrap()["mark_p"], 0.1);
    }

    #[test]
    fn early_drop_rate_matches_uniformized_probability() {
        // Hold avg fixed at 10 (w = 1, queue of 10): pb = 0.05. With `wait` the hazard at count c is
        // pb / (2 - c pb) = 1 / (40 - c) for c in 20..40, so the gap between drops is uniform on {20..39}:
        // mean 29.5 arrivals.
        let mut p = params();
        p.weight = 1.0;
        let mut r = Red::new(p, Rng::new(11, 1));
        let mut fx = QueueEffects::default();
        for s in 0..10 {
            r.enqueue(test_packet(0, s, 1000), 0, &mut fx);
        }
        fx.drops.clear();
        let n = 200_000;
        for s in 0..n {
            r.enqueue(test_packet(0, s, 1000), 0, &mut fx);
            if r.len() > 10 {
                r.dequeue(0, &mut fx);
            }
        }
        let rate = fx.drops.len() as f64 / n as f64;
        assert!((rate - 1.0 / 29.5).abs() < 0.0005, "{rate}");
    }
}
