//! Adaptive RED (Floyd, Gummadi & Shenker, "Adaptive RED: An Algorithm for Increasing the Robustness of
//! RED's Active Queue Management", 2001), as ns-3 3.44's `RedQueueDisc` runs it with `ARED = true`
//! (`InitializeParams`, `UpdateMaxP`, a port of ns-2's `queue/red.cc`).
//!
//! RED itself is `red`'s, unchanged ([`Red`]: the EWMA with the idle-time correction, `count`, `wait`,
//! gentle, forced drops, ECN marks instead of early drops). Adaptive RED adds two things:
//!
//! - **Automatic parameters** (the paper's recommended settings; ns-3 with `ARED = true`), from the link's rate in mean-size
//!   packets `C = rate / (8·mean_pktsize)`: `weight` `w_q = 1 − exp(−1/C)` (a time constant of one
//!   second; ns-3's `QW = 0`, not its `−1`/`−2` variants); `min_th = max(5, target_delay·C/2)` packets and
//!   `max_th = 3·min_th`. Each applies only when the table leaves it out: `min_th` and `max_th` are given
//!   together or not at all, like ns-3's `MinTh = MaxTh = 0` (ns-3 with `ARED = true` always computes them;
//!   giving them here is ns-3's `ARED = false, AdaptMaxP = true`).
//! - **Adapting `max_p`** (the paper's pseudo-code, ns-3 `UpdateMaxP`), towards an average in the target band
//!   `[min_th + 0.4·(max_th − min_th), min_th + 0.6·(max_th − min_th)]`: below it and `max_p > bottom`,
//!   `max_p ← β·max_p`; above it (ns-3 writes the upper end `max_th − 0.4·(max_th − min_th)`) and
//!   `max_p < top`, `max_p ← max_p + min(α, max_p/4)`; within it, nothing. The bounds are tested before
//!   the step, as in the paper and ns-3, so one step may cross them (to at most `top + α`, or `β·bottom`).
//!
//! Where ns-3 and the paper differ, the parameter that chooses (default: ns-3's, which the validation
//! cross-checks against):
//! - when `max_p` moves: `update = "arrival"` (ns-3): at an arrival, with the average just updated and
//!   before the arrival's test, if more than `interval` has passed since `max_p` last **changed** (from time
//!   0); so while the average stays in the band every arrival tries again, and a change can come at any
//!   arrival once the average leaves it. `update = "timer"` (the paper's "every interval seconds"): at
//!   every multiple of `interval` from time 0, with the average as the last arrival left it (no idle decay
//!   until the next arrival);
//! - `bottom`: the paper's 0.01; ns-3's (when left out here) `min(0.01, 8·mean_pktsize·rtt/rate)` =
//!   `min(0.01, rtt/C)`, `rtt` 100 ms. ns-3's comment calls the second term `1/W`, W one connection's
//!   window in packets, which would be `1/(C·rtt)`; its formula has `rtt` in the numerator instead, so the
//!   bound is far lower: 8e-5 at 10 Mb/s with 1000-byte packets (1/W = 0.008), 8e-7 at 1 Gb/s;
//! - `gentle_max_p`: the gentle line between `max_th` and `2·max_th` runs from `max_p` to 1. ns-3 computes
//!   its coefficients (`m_vC`, `m_vD`) once, in `InitializeParams`, from the initial `max_p`
//!   (`"initial"`), so above `max_th` the adaptation has no effect and `p_b` jumps at `max_th`; the paper's
//!   gentle RED, read with the adapted `max_p`, starts it from the current one (`"current"`);
//! - the initial `max_p`: ns-3's `1/LInterm` = 1/50 = 0.02 (ns-2's default `linterm` gives 0.1);
//! - the bounds' tests are ns-3's strict ones (`max_p > bottom`, `max_p < top`); the paper's are
//!   `max_p ≥ 0.01` and `max_p ≤ 0.5`.
//!
//! As in `red`, thresholds are in packets (with `limit_bytes` too: ns-3 scales them to bytes in byte mode),
//! and `mean_pktsize` defaults to the scenario's packet size, not ns-3's 500 B. ns-3's other adaptation,
//! Feng et al.'s (`FengAdaptive`: `max_p` divided by 3 or multiplied by 2 as the average leaves
//! [min_th, max_th]), is a different algorithm and is not this discipline.

use super::red::{with_red_switches, Red, RedParams};
use super::{resolve_limit, Discipline, Limit, QueueContext, QueueDisc, QueueEffects, LIMIT, LIMIT_BYTES};
use crate::packet::Packet;
use crate::rng::Rng;
use crate::spec::params::name_params;
use crate::spec::{check, err, ScenarioError};
use crate::time::{from_secs, Time};
use crate::units::{Bytes, Seconds};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// When `max_p` is adapted.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Update {
    /// At an arrival, more than `interval` after the last change of `max_p` (ns-3, ns-2).
    Arrival,
    /// Every `interval` from time 0 (the paper's pseudo-code).
    Timer,
}

/// Which `max_p` the gentle line above `max_th` starts from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum GentleMaxP {
    /// The initial one, fixed at start (ns-3, ns-2).
    Initial,
    /// The current, adapted one (the paper).
    Current,
}

with_red_switches! {
    /// Adaptive RED (Floyd, Gummadi & Shenker 2001; ns-3 `RedQueueDisc` with `ARED = true`): `red`'s average
    /// and test with `max_p` adapted to keep the average in the band [min_th + 0.4·Δ, min_th + 0.6·Δ],
    /// Δ = max_th − min_th; thresholds and weight from the link unless given. Defaults: ns-3's.
    pub struct Spec {
        /// Packets waiting (required, or `limit_bytes`).
        limit: Option<u64> = None, LIMIT;
        /// Bytes waiting, instead of `limit`.
        limit_bytes: Option<Bytes> = None, LIMIT_BYTES;
        /// With `max_th`, or neither: then `max(5, target_delay·C/2)`, C = link rate / (8·`mean_pktsize`)
        /// packets/s.
        min_th: Option<f64> = None,
            Rule::closed(0.0, 1e9).unit("packets").and_context("with max_th").default_is("max(5, target_delay·C/2)");
        /// With `min_th`, or neither: then `3·min_th`.
        max_th: Option<f64> = None,
            Rule::above_field("min_th").unit("packets").and_context("with min_th").default_is("3·min_th");
        /// The initial `max_p` (0.02 = ns-3's 1/LInterm).
        max_p: f64 = 0.02, Rule::left_open(0.0, 1.0);
        /// `w_q`; default `1 − exp(−1/C)`.
        weight: Option<f64> = None, Rule::left_open(0.0, 1.0).default_is("1 − exp(−1/C)");
        /// The target queueing delay of the automatic thresholds.
        target_delay: Seconds = Seconds(0.005), Rule::closed(1e-6, 3600.0);
        /// The least time between two changes of `max_p` (`update = "arrival"`), or its period (`"timer"`).
        interval: Seconds = Seconds(0.5), Rule::closed(1e-6, 3600.0);
        /// The increment's cap: `max_p` grows by `min(alpha, max_p/4)`.
        alpha: f64 = 0.01, Rule::left_open(0.0, 1.0);
        /// The decrease factor: `max_p ← beta·max_p`.
        beta: f64 = 0.9, Rule::open(0.0, 1.0);
        /// `max_p` grows only while below `top`.
        top: f64 = 0.5, Rule::left_open(0.0, 1.0);
        /// `max_p` shrinks only while above `bottom`; default (ns-3's) `min(0.01, rtt/C)`, far below the
        /// paper's 0.01 on fast links.
        bottom: Option<f64> = None, Rule::open(0.0, 1.0).high_field("top").default_is("min(0.01, rtt/C)");
        /// The round-trip time of the automatic `bottom`.
        rtt: Seconds = Seconds(0.1), Rule::closed(1e-6, 3600.0);
        /// "arrival" (ns-3's: at an arrival, more than `interval` after the last change, from time 0) or
        /// "timer" (every `interval` from time 0 with the last average: the paper's pseudo-code).
        update: Update = Update::Arrival, Rule::names(&["arrival", "timer"]);
        /// Where the gentle line from max_th to 2·max_th starts: "initial" (the initial `max_p`, ns-3's) or
        /// "current" (the adapted one, the paper's).
        gentle_max_p: GentleMaxP = GentleMaxP::Initial, Rule::names(&["initial", "current"]);
    }
}

name_params!(Update, GentleMaxP);

/// The settings Adaptive RED derives from the link when they are not given.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Automatic {
    pub min_th: f64,
    pub max_th: f64,
    pub weight: f64,
    pub bottom: f64,
}

impl Automatic {
    /// For a link of `link_rate_bps` and `mean_pktsize`-byte packets, `C = rate/(8·mean_pktsize)` packets/s
    /// (ns-3 `m_ptc`): `min_th = max(5, target_delay·C/2)`, `max_th = 3·min_th`, `weight = 1 − exp(−1/C)`,
    /// `bottom = min(0.01, 8·mean_pktsize·rtt/rate)` (times in seconds), in ns-3's order of operations.
    pub fn new(link_rate_bps: f64, mean_pktsize: u32, target_delay: f64, rtt: f64) -> Self {
        let c = link_rate_bps / (8.0 * mean_pktsize as f64);
        let min_th = (target_delay * c / 2.0).max(5.0);
        let bottom1 = 8.0 * mean_pktsize as f64 * rtt / link_rate_bps;
        Automatic { min_th, max_th: 3.0 * min_th, weight: 1.0 - (-1.0 / c).exp(), bottom: bottom1.min(0.01) }
    }
}

/// The adaptation of `max_p`, resolved.
#[derive(Clone, Debug, PartialEq)]
pub struct Adaptation {
    pub min_th: f64,
    pub max_th: f64,
    pub interval: Time,
    pub alpha: f64,
    pub beta: f64,
    pub top: f64,
    pub bottom: f64,
    pub update: Update,
    pub gentle_max_p: GentleMaxP,
}

impl Adaptation {
    /// One step of the AIMD rule for average `avg` (ns-3 `UpdateMaxP`): the new `max_p`, or `None` when
    /// the average is in the target band or `max_p` is at the bound it would move past.
    pub fn step(&self, avg: f64, max_p: f64) -> Option<f64> {
        let part = 0.4 * (self.max_th - self.min_th);
        if avg < self.min_th + part && max_p > self.bottom {
            Some(max_p * self.beta)
        } else if avg > self.max_th - part && self.top > max_p {
            Some(max_p + self.alpha.min(0.25 * max_p))
        } else {
            None
        }
    }
}

pub struct Ared {
    red: Red,
    a: Adaptation,
    weight: f64,
    /// When `max_p` last changed (ns-3 `m_lastSet`, from time 0).
    last_set: Time,
    /// The next tick (`update = "timer"`).
    tick: Option<Time>,
    increases: u64,
    decreases: u64,
}

impl Discipline for Ared {
    type Spec = Spec;
    fn build(s: &Spec, ctx: QueueContext) -> Result<Self, ScenarioError> {
        let limit = resolve_limit(s.limit, s.limit_bytes, &ctx)?;
        let mean = s.mean_pktsize.map_or(ctx.packet_size as f64, |m| m.0);
        let auto = Automatic::new(ctx.link_rate_bps, mean as u32, s.target_delay.0, s.rtt.0);
        let (min_th, max_th) = match (s.min_th, s.max_th) {
            (None, None) => (auto.min_th, auto.max_th),
            (Some(lo), Some(hi)) => (lo, hi),
            (Some(_), None) => {
                return err(&ctx.field("max_th"), "give min_th and max_th together, or neither (automatic)")
            }
            (None, Some(_)) => {
                return err(&ctx.field("min_th"), "give min_th and max_th together, or neither (automatic)")
            }
        };
        let weight = s.weight.unwrap_or(auto.weight);
        let bottom = s.bottom.unwrap_or(auto.bottom);
        // The automatic bottom too must stay below top.
        check(&ctx.field("bottom"), bottom > 0.0 && bottom < s.top, "in (0, top)", bottom)?;
        ctx.check_ecn(s.ecn)?;
        let params = s.red_params((min_th, max_th, s.max_p, weight), mean, &ctx, limit);
        let a = Adaptation {
            min_th,
            max_th,
            interval: from_secs(s.interval.0),
            alpha: s.alpha,
            beta: s.beta,
            top: s.top,
            bottom,
            update: s.update,
            gentle_max_p: s.gentle_max_p,
        };
        Ok(Ared::new(params, a, ctx.rng))
    }
}

impl Ared {
    pub fn new(p: RedParams, a: Adaptation, rng: Rng) -> Self {
        let tick = (a.update == Update::Timer).then_some(a.interval);
        Ared { weight: p.weight, red: Red::new(p, rng), a, last_set: 0, tick, increases: 0, decreases: 0 }
    }

    /// The current `max_p`.
    pub fn max_p(&self) -> f64 {
        self.red.core().max_p()
    }

    /// The current average queue, packets.
    pub fn average(&self) -> f64 {
        self.red.average()
    }

    /// Apply one step of the rule for average `avg` at `now`; true if `max_p` changed.
    fn adapt(&mut self, avg: f64, now: Time) -> bool {
        let core = self.red.core_mut();
        let old = core.max_p();
        let Some(new) = self.a.step(avg, old) else { return false };
        core.set_max_p(new, self.a.gentle_max_p == GentleMaxP::Current);
        self.last_set = now;
        if new > old {
            self.increases += 1;
        } else {
            self.decreases += 1;
        }
        true
    }
}

impl QueueDisc for Ared {
    fn enqueue(&mut self, pkt: Packet, now: Time, fx: &mut QueueEffects) {
        let qlen = self.red.len();
        let avg = self.red.core_mut().update_average(now, qlen);
        if self.a.update == Update::Arrival && now > self.last_set + self.a.interval {
            self.adapt(avg, now);
        }
        let decision = self.red.core_mut().test(qlen);
        self.red.act(decision, pkt, now, fx);
    }

    fn dequeue(&mut self, now: Time, fx: &mut QueueEffects) -> Option<Packet> {
        self.red.dequeue(now, fx)
    }

    fn len(&self) -> usize {
        self.red.len()
    }

    fn bytes(&self) -> u64 {
        self.red.bytes()
    }

    fn capacity(&self) -> Option<Limit> {
        self.red.capacity()
    }

    fn next_timer(&self) -> Option<Time> {
        self.tick
    }

    fn has_timer(&self) -> bool {
        true
    }

    fn timer_period(&self) -> Option<(Time, &'static str)> {
        (self.a.update == Update::Timer).then_some((self.a.interval, "interval"))
    }

    fn on_timer(&mut self, now: Time, _fx: &mut QueueEffects) {
        let Some(tick) = self.tick else { return };
        if now < tick {
            return;
        }
        let avg = self.red.average();
        self.adapt(avg, now);
        self.tick = Some(tick + self.a.interval);
    }

    fn report(&self, out: &mut BTreeMap<String, f64>) {
        out.insert("max_p".into(), self.max_p());
        out.insert("min_th".into(), self.a.min_th);
        out.insert("max_th".into(), self.a.max_th);
        out.insert("weight".into(), self.weight);
        out.insert("bottom".into(), self.a.bottom);
        out.insert("average".into(), self.average());
        out.insert("increases".into(), self.increases as f64);
        out.insert("decreases".into(), self.decreases as f64);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::queue::{test_context, test_packet, QueueSpec};

    /// `red`'s test parameters (min_th 5, max_th 15) with w = 1, so that the average is the queue met by an
    /// arrival.
    fn red_params(max_p: f64) -> RedParams {
        RedParams { max_p, weight: 1.0, ..crate::queue::red::tests::params() }
    }

    /// RED as [`red_params`] (target band [9, 11]), α 0.01, β 0.9, max_p in [0.01, 0.5], interval 0.5 s.
    fn ared(update: Update, max_p: f64) -> Ared {
        let a = Adaptation {
            min_th: 5.0,
            max_th: 15.0,
            interval: from_secs(0.5),
            alpha: 0.01,
            beta: 0.9,
            top: 0.5,
            bottom: 0.01,
            update,
            gentle_max_p: GentleMaxP::Initial,
        };
        Ared::new(red_params(max_p), a, Rng::new(1, 1))
    }

    /// The queue brought to `len` packets with RED alone (no adaptation), then one arrival at `t` seconds:
    /// with w = 1 the average it sees is `len`.
    fn arrive_at(q: &mut Ared, len: usize, t: f64) {
        let mut fx = QueueEffects::default();
        let now = from_secs(t);
        while q.len() < len {
            q.red.enqueue(test_packet(0, 0, 1000), now, &mut fx);
        }
        while q.len() > len {
            q.red.dequeue(now, &mut fx);
        }
        q.enqueue(test_packet(0, 1, 1000), now, &mut fx);
        assert_eq!(q.average(), len as f64);
    }

    #[test]
    fn automatic_parameters_follow_the_paper() {
        // 10 Mb/s, 1000-byte packets: C = 1250 packets/s; target queue 5 ms·C = 6.25, so min_th = max(5, 3.125).
        let a = Automatic::new(10e6, 1000, 0.005, 0.1);
        assert_eq!(a.weight, 1.0 - (-1.0f64 / 1250.0).exp());
        assert!((a.weight - 7.996_800_853e-4).abs() < 1e-12, "{}", a.weight);
        assert_eq!((a.min_th, a.max_th), (5.0, 15.0));
        // ns-3's bottom: min(0.01, 8·1000 B·0.1 s / 10 Mb/s) = 8e-5.
        assert!((a.bottom - 8e-5).abs() < 1e-18, "{}", a.bottom);
        // 1 Gb/s: C = 125,000; min_th = 0.005·125,000/2 = 312.5, max_th = 937.5.
        let a = Automatic::new(1e9, 1000, 0.005, 0.1);
        assert_eq!((a.min_th, a.max_th), (312.5, 937.5));
        // 1 − e^(−x) = x − x²/2 + ... with x = 8e-6.
        assert!((a.weight - (8e-6 - 3.2e-11)).abs() < 1e-15, "{}", a.weight);
        assert!((a.bottom - 8e-7).abs() < 1e-20, "{}", a.bottom);
        // 100 Mb/s: 31.25 and 93.75; 200 Mb/s: 62.5 and 187.5.
        assert_eq!(Automatic::new(100e6, 1000, 0.005, 0.1).min_th, 31.25);
        assert_eq!(Automatic::new(200e6, 1000, 0.005, 0.1).max_th, 187.5);
        // 1 Mb/s, 1500 B (C = 83.3): bottom = 12,000·0.1/1e6 = 0.0012; only below 80 kb/s is it 0.01.
        let a = Automatic::new(1e6, 1500, 0.005, 0.1);
        assert_eq!((a.min_th, a.max_th), (5.0, 15.0));
        assert!((a.bottom - 0.0012).abs() < 1e-18);
        assert_eq!(Automatic::new(64e3, 1000, 0.005, 0.1).bottom, 0.01);
    }

    #[test]
    fn a_table_without_thresholds_gets_the_automatic_ones() {
        // test_context: 8 Mb/s, 1000 B, C = 1000.
        let v = serde_json::json!({"discipline": "ared", "limit": 100});
        let q = QueueSpec::parse(&v, "q").unwrap().build(test_context("q")).unwrap();
        let mut out = BTreeMap::new();
        q.report(&mut out);
        assert_eq!((out["min_th"], out["max_th"], out["max_p"]), (5.0, 15.0, 0.02));
        assert_eq!(out["weight"], 1.0 - (-1.0f64 / 1000.0).exp());
        assert_eq!(out["bottom"], 8.0 * 1000.0 * 0.1 / 8e6);
        let v = serde_json::json!({"discipline": "ared", "limit": 100, "min_th": 20, "max_th": 60,
            "weight": 0.002, "bottom": 0.01, "target_delay": "50ms"});
        let q = QueueSpec::parse(&v, "q").unwrap().build(test_context("q")).unwrap();
        let mut out = BTreeMap::new();
        q.report(&mut out);
        assert_eq!((out["min_th"], out["max_th"], out["weight"], out["bottom"]), (20.0, 60.0, 0.002, 0.01));
    }

    #[test]
    fn the_rule_is_aimd_towards_the_target_band() {
        let a = ared(Update::Arrival, 0.1).a;
        // Band [5 + 0.4·10, 15 − 0.4·10] = [9, 11].
        assert_eq!(a.step(8.9, 0.1), Some(0.1 * 0.9));
        assert_eq!(a.step(11.1, 0.1), Some(0.1 + 0.01));
        // α = min(0.01, max_p/4).
        assert_eq!(a.step(11.1, 0.02), Some(0.02 + 0.005));
        for avg in [9.0, 10.0, 11.0] {
            assert_eq!(a.step(avg, 0.1), None, "{avg}");
        }
        // At the bounds nothing moves; just inside them one step may cross.
        assert_eq!(a.step(20.0, 0.5), None);
        assert_eq!(a.step(0.0, 0.01), None);
        assert_eq!(a.step(20.0, 0.495), Some(0.495 + 0.01));
        assert_eq!(a.step(20.0, 0.495 + 0.01), None);
        assert_eq!(a.step(0.0, 0.0105), Some(0.0105 * 0.9));
        assert_eq!(a.step(0.0, 0.0105 * 0.9), None);
    }

    #[test]
    fn arrival_mode_moves_max_p_once_per_interval_after_a_change() {
        let mut q = ared(Update::Arrival, 0.1);
        // Above the band from time 0: no change up to and at 0.5 s (ns-3: now > last_set + interval).
        for t in [0.0, 0.25, 0.5] {
            arrive_at(&mut q, 12, t);
            assert_eq!(q.max_p(), 0.1);
        }
        arrive_at(&mut q, 12, 0.500001);
        assert_eq!(q.max_p(), 0.1 + 0.01);
        // The next change only more than 0.5 s after that one.
        arrive_at(&mut q, 12, 1.0);
        assert_eq!(q.max_p(), 0.11);
        arrive_at(&mut q, 12, 1.000002);
        assert_eq!(q.max_p(), 0.11 + 0.01);
        // In the band nothing changes and the clock is not reset: leaving the band later acts at once.
        for t in [2.0, 3.0, 4.0] {
            arrive_at(&mut q, 10, t);
        }
        assert_eq!(q.max_p(), 0.12);
        arrive_at(&mut q, 3, 4.1);
        assert_eq!(q.max_p(), 0.12 * 0.9);
        arrive_at(&mut q, 3, 4.5);
        assert_eq!(q.max_p(), 0.12 * 0.9);
        let mut out = BTreeMap::new();
        q.report(&mut out);
        assert_eq!((out["increases"], out["decreases"]), (2.0, 1.0));
    }

    #[test]
    fn below_the_band_max_p_decays_by_beta_down_to_the_bottom() {
        let mut q = ared(Update::Arrival, 0.1);
        let mut want = 0.1;
        let mut steps = 0;
        for k in 1..=60 {
            arrive_at(&mut q, 2, k as f64 * 0.500001);
            if want > 0.01 {
                want *= 0.9;
                steps += 1;
            }
            assert_eq!(q.max_p(), want, "interval {k}");
        }
        // 0.1·0.9^k first at or below 0.01 for k = 22 (0.00985), and it stays there.
        assert_eq!(steps, 22);
        assert!(q.max_p() <= 0.01 && q.max_p() > 0.009);
        // Above the band it climbs back by min(0.01, max_p/4) up to the top.
        let mut want = q.max_p();
        for k in 61..=200 {
            arrive_at(&mut q, 14, k as f64 * 0.500001);
            if want < 0.5 {
                want += 0.01f64.min(0.25 * want);
            }
            assert_eq!(q.max_p(), want, "interval {k}");
        }
        assert!(q.max_p() >= 0.5 && q.max_p() < 0.51);
    }

    #[test]
    fn timer_mode_steps_every_interval_from_time_zero() {
        let mut q = ared(Update::Timer, 0.1);
        let mut fx = QueueEffects::default();
        assert_eq!(q.next_timer(), Some(from_secs(0.5)));
        // Arrivals alone never move max_p in timer mode.
        arrive_at(&mut q, 12, 0.2);
        arrive_at(&mut q, 12, 0.7);
        assert_eq!(q.max_p(), 0.1);
        q.on_timer(from_secs(0.5), &mut fx);
        assert_eq!(q.max_p(), 0.11);
        assert_eq!(q.next_timer(), Some(from_secs(1.0)));
        // A tick with the average in the band changes nothing, and the ticks go on.
        arrive_at(&mut q, 10, 0.9);
        q.on_timer(from_secs(1.0), &mut fx);
        assert_eq!(q.max_p(), 0.11);
        assert_eq!(q.next_timer(), Some(from_secs(1.5)));
        arrive_at(&mut q, 4, 1.2);
        q.on_timer(from_secs(1.5), &mut fx);
        assert_eq!(q.max_p(), 0.11 * 0.9);
    }

    #[test]
    fn the_gentle_line_starts_from_the_initial_or_the_current_max_p() {
        for (ramp, gentle_from) in [(GentleMaxP::Initial, 0.1), (GentleMaxP::Current, 0.11)] {
            let mut q = ared(Update::Arrival, 0.1);
            q.a.gentle_max_p = ramp;
            arrive_at(&mut q, 12, 0.6);
            assert_eq!(q.max_p(), 0.11);
            let core = q.red.core();
            // Below max_th the current max_p; from max_th to 2·max_th a line from `gentle_from` to 1.
            assert!((core.base_probability(10.0) - 0.11 * 0.5).abs() < 1e-15);
            let want = gentle_from + (1.0 - gentle_from) * (22.5 - 15.0) / 15.0;
            assert!((core.base_probability(22.5) - want).abs() < 1e-15, "{ramp:?}");
        }
    }

    #[test]
    fn without_adaptation_it_decides_exactly_as_red() {
        // An interval longer than the run: the same decisions as `red`, arrival by arrival.
        let mut q = ared(Update::Arrival, 0.1);
        q.a.interval = from_secs(3600.0);
        let mut r = Red::new(red_params(0.1), Rng::new(1, 1));
        let mut mix = Rng::new(7, 7);
        let mut drops = 0;
        for i in 0..20_000u32 {
            let now = from_secs(i as f64 * 1e-3);
            let (mut fa, mut fr) = (QueueEffects::default(), QueueEffects::default());
            if mix.uniform() < 0.55 {
                q.enqueue(test_packet(0, i, 1000), now, &mut fa);
                r.enqueue(test_packet(0, i, 1000), now, &mut fr);
            } else {
                q.dequeue(now, &mut fa);
                r.dequeue(now, &mut fr);
            }
            assert_eq!(fa.drops, fr.drops, "step {i}");
            drops += fa.drops.len();
            assert_eq!(q.len(), r.len());
        }
        assert_eq!(q.max_p(), 0.1);
        assert!(drops > 100, "{drops}");
    }

    #[test]
    fn parameters_are_checked() {
        let e = |v: serde_json::Value| {
            let mut t = serde_json::json!({"discipline": "ared", "limit": 100});
            t.as_object_mut().unwrap().extend(v.as_object().unwrap().clone());
            QueueSpec::parse(&t, "q").and_then(|s| s.build(test_context("q")).map(|_| ())).unwrap_err().field
        };
        assert_eq!(e(serde_json::json!({"min_th": 10})), "q.max_th");
        assert_eq!(e(serde_json::json!({"max_th": 10})), "q.min_th");
        assert_eq!(e(serde_json::json!({"min_th": 10, "max_th": 10})), "q.max_th");
        assert_eq!(e(serde_json::json!({"min_th": -1, "max_th": 10})), "q.min_th");
        assert_eq!(e(serde_json::json!({"max_p": 0})), "q.max_p");
        assert_eq!(e(serde_json::json!({"weight": 1.5})), "q.weight");
        assert_eq!(e(serde_json::json!({"target_delay": "0s"})), "q.target_delay");
        assert_eq!(e(serde_json::json!({"interval": "0s"})), "q.interval");
        assert_eq!(e(serde_json::json!({"alpha": 0})), "q.alpha");
        assert_eq!(e(serde_json::json!({"beta": 1})), "q.beta");
        assert_eq!(e(serde_json::json!({"top": 1.5})), "q.top");
        assert_eq!(e(serde_json::json!({"bottom": 0.5})), "q.bottom");
        assert_eq!(e(serde_json::json!({"bottom": 0})), "q.bottom");
        assert_eq!(e(serde_json::json!({"rtt": "0s"})), "q.rtt");
        assert_eq!(e(serde_json::json!({"update": "sometimes"})), "q.update");
        assert_eq!(e(serde_json::json!({"gentle_max_p": "latest"})), "q.gentle_max_p");
        assert_eq!(e(serde_json::json!({"mean_pktsize": "0B"})), "q.mean_pktsize");
        assert!(e(serde_json::json!({"colour": 1})).starts_with('q'));
        let spec = QueueSpec::parse(&serde_json::json!({"discipline": "ared"}), "q").unwrap();
        assert_eq!(spec.build(test_context("q")).err().unwrap().field, "q.limit");
        let mut ctx = test_context("q");
        ctx.ecn_senders = false;
        let v = serde_json::json!({"discipline": "ared", "limit": 100, "ecn": true});
        assert_eq!(QueueSpec::parse(&v, "q").unwrap().build(ctx).err().unwrap().field, "q.ecn");
        let spec = QueueSpec::parse(&serde_json::json!({"discipline": "ared", "limit": 5}), "q").unwrap();
        assert_eq!(spec.to_json()["update"], "arrival");
        assert_eq!(spec.to_json()["gentle_max_p"], "initial");
    }
}
