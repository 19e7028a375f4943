//! PIE, "Proportional Integral controller Enhanced" (Pan, Natarajan, Baker & White, RFC 8033), following the
//! pseudo-code of its Appendices A and B (ns-3's `PieQueueDisc` follows it too).
//!
//! - **Random drop at enqueue** (§4.1): an arrival that does not fit `limit` is an `overflow` drop; otherwise,
//!   once the burst allowance is used up, it is dropped (`Reason("pie")`) with probability `drop_prob`, except
//!   when PIE must stay work-conserving: `qdelay_old < target/2 && drop_prob < 0.2`, or at most two mean
//!   packets (`2·mean_pktsize` bytes) waiting.
//! - **Drop probability** (§4.2), every `t_update` (from the first arrival):
//!   `p = α·(qdelay − target) + β·(qdelay − qdelay_old)` (seconds, α and β in Hz); with `auto_tune`, `p` is
//!   divided by 2048, 512, 128, 32, 8, 2 while `drop_prob` is below 1e-6, 1e-5, 1e-4, 1e-3, 1e-2, 0.1
//!   (§4.2's scaling of α and β by the range of `drop_prob`); with `cap_drop_adjustment` (§5.5), a step is at
//!   most 0.02 once `drop_prob ≥ 0.1`; `drop_prob += p`; `drop_prob ·= 0.98` when `qdelay` and `qdelay_old`
//!   are both 0; `drop_prob` is bounded to [0, 1].
//! - **Latency** (§4.3): `delay = "timestamp"` (the default, ns-3's): the sojourn time of the last packet
//!   dequeued, 0 when the queue is left empty (as ns-3). `delay = "rate"` (§5.2, Appendix B): Little's law,
//!   `qdelay = bytes waiting · avg_dq_time / dq_threshold`: a measurement starts at a departure that leaves
//!   at least `dq_threshold` bytes waiting, counts the bytes of the next departures until they reach
//!   `dq_threshold`, and averages its duration with weight `dq_threshold / 2^16` (1/4 by default); the
//!   duration is normalized to the bytes actually counted; 0 before the first measurement.
//! - **Burst tolerance** (§4.4): `burst_allowance` starts at `max_burst`, loses `t_update` at every update
//!   (floored at 0) and is reset to `max_burst` when `drop_prob = 0` and both `qdelay` and `qdelay_old` are
//!   below `target/2`; no random drop while it is positive.
//! - **ECN** (§5.1): with `ecn`, an ECN-capable arrival that would be dropped is CE-marked and queued while
//!   `drop_prob ≤ ecn_threshold` (10 %); above it, or for Not-ECT packets, it is dropped.
//! - **Derandomization** (§5.4), with `derandomize`: `accu_prob += drop_prob` at each arrival that passes the
//!   safeguard (reset to 0 while `drop_prob = 0`, when the random test fires and at every drop); no drop
//!   while `accu_prob < 0.85`, a certain drop once it reaches 8.5, the random test in between. As in the
//!   RFC and Linux, a CE mark decided by the 8.5 rule does not reset `accu_prob`.
//! - With `scale_by_size` (Appendix B), the probability of an arrival is `drop_prob · size / mean_pktsize`.
//!
//! PIE is always active: §5.3's optional switching on at a third of the buffer is not implemented.

use super::{
    fifo_occupancy, resolve_limit_or, Discipline, Fifo, Limit, QueueContext, QueueDisc, QueueEffects, Reason,
    LIMIT, LIMIT_BYTES,
};
use crate::packet::Packet;
use crate::rng::Rng;
use crate::spec::params::{name_params, params};
use crate::spec::ScenarioError;
use crate::time::{from_secs, to_secs, Time};
use crate::units::{Bytes, Seconds};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// PIE's drops and marks.
pub const PIE: Reason = Reason("pie");

/// How the queueing delay is estimated (RFC 8033 §4.3).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum DelayEstimate {
    /// The sojourn time of the last packet dequeued (per-packet timestamps).
    Timestamp,
    /// Bytes waiting over the departure rate measured by the dequeue-rate estimator (§5.2).
    Rate,
}

params! {
    /// PIE (RFC 8033 §4-5 and Appendices A-B, ns-3 `PieQueueDisc`): a drop probability updated every
    /// `t_update` from the queueing delay and its trend; drops (reason `pie`) at enqueue. §5.3's activation
    /// at a third of the buffer is not implemented (always active).
    pub struct Spec {
        /// Packets waiting; default 1000 (Linux's). An arrival that does not fit is an `overflow` drop.
        limit: Option<u64> = None, LIMIT.default_is("1000");
        /// Bytes waiting, instead of `limit`.
        limit_bytes: Option<Bytes> = None, LIMIT_BYTES;
        /// QDELAY_REF, the latency target.
        target: Seconds = Seconds(0.015), Rule::closed(1e-9, 3600.0);
        /// T_UPDATE, the period of the drop-probability update, from the first arrival.
        t_update: Seconds = Seconds(0.015), Rule::closed(1e-6, 3600.0);
        /// α of `p = α·(qdelay − target) + β·(qdelay − qdelay_old)`.
        alpha: f64 = 0.125, Rule::closed(0.0, 1e6).unit("Hz");
        /// β of the same update.
        beta: f64 = 1.25, Rule::closed(0.0, 1e6).unit("Hz");
        /// MAX_BURST: the burst allowance's start value, less `t_update` per update; no random drop while
        /// it is positive.
        max_burst: Seconds = Seconds(0.15), Rule::closed(0.0, 3600.0);
        /// Divide p by 2048, 512, 128, 32, 8, 2 while drop_prob is below 1e-6 ... 0.1 (§4.2).
        auto_tune: bool = true;
        /// A step of at most 0.02 once drop_prob >= 0.1 (§5.5).
        cap_drop_adjustment: bool = true;
        /// The queueing delay: "timestamp" (the sojourn of the last packet dequeued, ns-3's default) or
        /// "rate" (bytes waiting over the dequeue-rate estimate, §5.2 / Appendix B).
        delay: DelayEstimate = DelayEstimate::Timestamp, Rule::names(&["timestamp", "rate"]);
        /// DQ_THRESHOLD: bytes of departures per measurement of the dequeue-rate estimator (`delay = "rate"`).
        dq_threshold: Bytes = Bytes(16384.0), Rule::closed(64.0, 1e9);
        /// §5.4's accu_prob: no drop below 0.85, a certain drop at 8.5.
        derandomize: bool = false;
        /// CE-mark ECN-capable arrivals instead of dropping them while drop_prob <= `ecn_threshold` (§5.1;
        /// needs tcp.ecn).
        ecn: bool = false;
        /// The drop probability up to which `ecn` marks.
        ecn_threshold: f64 = 0.1, Rule::closed(0.0, 1.0);
        /// MEAN_PKTSIZE: no random drop while at most 2·mean_pktsize bytes wait (§4.1); default: the packet
        /// size of the flows crossing the port.
        mean_pktsize: Option<Bytes> = None, Rule::closed(1.0, 1e9).default_is("the packet size");
        /// Scale an arrival's probability by its size over `mean_pktsize` (Appendix B).
        scale_by_size: bool = false;
    }
}

name_params!(DelayEstimate);

/// PIE's parameters, resolved.
#[derive(Clone, Debug, PartialEq)]
pub struct PieParams {
    pub target: Time,
    pub t_update: Time,
    pub alpha: f64,
    pub beta: f64,
    pub max_burst: Time,
    pub auto_tune: bool,
    pub cap_drop_adjustment: bool,
    pub delay: DelayEstimate,
    pub dq_threshold: u64,
    pub derandomize: bool,
    pub ecn: bool,
    pub ecn_threshold: f64,
    pub mean_pktsize: f64,
    pub scale_by_size: bool,
}

impl PieParams {
    /// The RFC's defaults, for `mean_pktsize`-byte packets.
    pub fn rfc(mean_pktsize: f64) -> Self {
        PieParams::from_spec(&Spec::default(), mean_pktsize)
    }

    /// The parameters of a (checked) scenario table.
    fn from_spec(s: &Spec, mean_pktsize: f64) -> Self {
        PieParams {
            target: from_secs(s.target.0),
            t_update: from_secs(s.t_update.0),
            alpha: s.alpha,
            beta: s.beta,
            max_burst: from_secs(s.max_burst.0),
            auto_tune: s.auto_tune,
            cap_drop_adjustment: s.cap_drop_adjustment,
            delay: s.delay,
            dq_threshold: s.dq_threshold.0 as u64,
            derandomize: s.derandomize,
            ecn: s.ecn,
            ecn_threshold: s.ecn_threshold,
            mean_pktsize,
            scale_by_size: s.scale_by_size,
        }
    }
}

pub struct Pie {
    p: PieParams,
    fifo: Fifo,
    limit: Limit,
    rng: Rng,
    drop_prob: f64,
    /// The latest delay estimate (timestamp mode) and the one of the last update, seconds.
    current_qdelay: f64,
    qdelay_old: f64,
    burst_allowance: Time,
    accu_prob: f64,
    tick: Option<Time>,
    /// The dequeue-rate estimator: a measurement under way since `dq_start`, bytes counted, and the mean
    /// time per byte (seconds; 0 before the first measurement).
    in_measurement: bool,
    dq_start: Time,
    dq_count: u64,
    avg_dq_time_per_byte: f64,
}

impl Discipline for Pie {
    type Spec = Spec;
    fn build(s: &Spec, ctx: QueueContext) -> Result<Self, ScenarioError> {
        let limit = resolve_limit_or(s.limit, s.limit_bytes, Limit::Packets(1000), &ctx)?;
        let mean = s.mean_pktsize.map_or(ctx.packet_size as f64, |b| b.0);
        ctx.check_ecn(s.ecn)?;
        Ok(Pie::new(PieParams::from_spec(s, mean), limit, ctx.rng))
    }
}

impl Pie {
    pub fn new(p: PieParams, limit: Limit, rng: Rng) -> Self {
        Pie {
            burst_allowance: p.max_burst,
            p,
            fifo: Fifo::default(),
            limit,
            rng,
            drop_prob: 0.0,
            current_qdelay: 0.0,
            qdelay_old: 0.0,
            accu_prob: 0.0,
            tick: None,
            in_measurement: false,
            dq_start: 0,
            dq_count: 0,
            avg_dq_time_per_byte: 0.0,
        }
    }

    /// The current drop probability.
    pub fn probability(&self) -> f64 {
        self.drop_prob
    }

    /// The delay estimate the next update would use, seconds.
    pub fn qdelay(&self) -> f64 {
        match self.p.delay {
            DelayEstimate::Timestamp => self.current_qdelay,
            DelayEstimate::Rate => self.fifo.bytes() as f64 * self.avg_dq_time_per_byte,
        }
    }

    /// RFC 8033 `drop_early`: whether an arrival of `size` bytes is dropped (or marked).
    fn drop_early(&mut self, size: u32) -> bool {
        let half_target = to_secs(self.p.target) / 2.0;
        if (self.qdelay_old < half_target && self.drop_prob < 0.2)
            || self.fifo.bytes() as f64 <= 2.0 * self.p.mean_pktsize
        {
            return false;
        }
        let mut p = self.drop_prob;
        if self.p.scale_by_size {
            p = p * size as f64 / self.p.mean_pktsize;
        }
        if self.p.derandomize {
            if self.drop_prob == 0.0 {
                self.accu_prob = 0.0;
            }
            self.accu_prob += self.drop_prob;
            if self.accu_prob < 0.85 {
                return false;
            }
            if self.accu_prob >= 8.5 {
                return true;
            }
        }
        if self.rng.uniform() < p {
            self.accu_prob = 0.0;
            return true;
        }
        false
    }

    /// RFC 8033 `calculate_drop_prob`, every `t_update`.
    fn calculate_drop_prob(&mut self) {
        let qdelay = self.qdelay();
        let target = to_secs(self.p.target);
        let mut p = self.p.alpha * (qdelay - target) + self.p.beta * (qdelay - self.qdelay_old);
        if self.p.auto_tune {
            let dp = self.drop_prob;
            p /= if dp < 0.000001 {
                2048.0
            } else if dp < 0.00001 {
                512.0
            } else if dp < 0.0001 {
                128.0
            } else if dp < 0.001 {
                32.0
            } else if dp < 0.01 {
                8.0
            } else if dp < 0.1 {
                2.0
            } else {
                1.0
            };
        }
        if self.p.cap_drop_adjustment && self.drop_prob >= 0.1 && p > 0.02 {
            p = 0.02;
        }
        self.drop_prob += p;
        if qdelay == 0.0 && self.qdelay_old == 0.0 {
            self.drop_prob *= 0.98;
        }
        self.drop_prob = self.drop_prob.clamp(0.0, 1.0);
        self.burst_allowance = self.burst_allowance.saturating_sub(self.p.t_update);
        if self.drop_prob == 0.0 && qdelay < target / 2.0 && self.qdelay_old < target / 2.0 {
            self.burst_allowance = self.p.max_burst;
        }
        self.qdelay_old = qdelay;
    }

    /// RFC 8033 Appendix B `deque`: the dequeue-rate estimator, after `size` bytes left at `now`.
    fn measure_departure(&mut self, size: u32, now: Time) {
        if !self.in_measurement {
            if self.fifo.bytes() >= self.p.dq_threshold {
                self.in_measurement = true;
                self.dq_start = now;
                self.dq_count = 0;
            }
        } else {
            self.dq_count += size as u64;
            if self.dq_count >= self.p.dq_threshold {
                let per_byte = to_secs(now - self.dq_start) / self.dq_count as f64;
                if self.avg_dq_time_per_byte == 0.0 {
                    self.avg_dq_time_per_byte = per_byte;
                } else {
                    let w = self.p.dq_threshold as f64 / 65536.0;
                    self.avg_dq_time_per_byte = per_byte * w + self.avg_dq_time_per_byte * (1.0 - w);
                }
                self.in_measurement = false;
            }
        }
    }
}

impl QueueDisc for Pie {
    fn enqueue(&mut self, mut pkt: Packet, now: Time, fx: &mut QueueEffects) {
        if self.tick.is_none() {
            self.tick = Some(now + self.p.t_update);
        }
        if !self.limit.admits(&self.fifo, &pkt) {
            fx.drop(pkt, super::reason::OVERFLOW);
            self.accu_prob = 0.0;
            return;
        }
        if self.burst_allowance == 0
            && self.drop_early(pkt.size)
            && !(self.p.ecn && self.drop_prob <= self.p.ecn_threshold && fx.mark(&mut pkt, PIE))
        {
            fx.drop(pkt, PIE);
            self.accu_prob = 0.0;
            return;
        }
        pkt.enqueued_at = now;
        self.fifo.push(pkt);
    }

    fn dequeue(&mut self, now: Time, _fx: &mut QueueEffects) -> Option<Packet> {
        let Some(pkt) = self.fifo.pop() else {
            self.current_qdelay = 0.0;
            return None;
        };
        match self.p.delay {
            DelayEstimate::Timestamp => {
                self.current_qdelay =
                    if self.fifo.is_empty() { 0.0 } else { to_secs(now.saturating_sub(pkt.enqueued_at)) };
            }
            DelayEstimate::Rate => self.measure_departure(pkt.size, now),
        }
        Some(pkt)
    }

    fifo_occupancy!(fifo, limit);

    fn next_timer(&self) -> Option<Time> {
        self.tick
    }

    fn has_timer(&self) -> bool {
        true
    }

    fn timer_period(&self) -> Option<(Time, &'static str)> {
        Some((self.p.t_update, "t_update"))
    }

    fn on_timer(&mut self, now: Time, _fx: &mut QueueEffects) {
        let Some(tick) = self.tick else { return };
        if now < tick {
            return;
        }
        self.calculate_drop_prob();
        self.tick = Some(tick + self.p.t_update);
    }

    fn report(&self, out: &mut BTreeMap<String, f64>) {
        out.insert("drop_prob".into(), self.drop_prob);
        out.insert("qdelay_s".into(), self.qdelay_old);
        out.insert("burst_allowance_s".into(), to_secs(self.burst_allowance));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::packet::Ecn;
    use crate::queue::{reason, test_context, test_packet, QueueSpec, Stage};

    const MS: Time = 1_000_000_000;

    fn pie() -> Pie {
        Pie::new(PieParams::rfc(1000.0), Limit::Packets(100), Rng::new(1, 1))
    }

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-15
    }

    /// One update with `qdelay` now and `old` at the last update (seconds), from `drop_prob`.
    fn update(q: &mut Pie, drop_prob: f64, qdelay: f64, old: f64) -> f64 {
        q.drop_prob = drop_prob;
        q.current_qdelay = qdelay;
        q.qdelay_old = old;
        q.calculate_drop_prob();
        assert_eq!(q.qdelay_old, qdelay);
        q.drop_prob
    }

    #[test]
    fn drop_probability_follows_rfc_8033_4_2() {
        let mut q = pie();
        // p = 0.125·(0.030 − 0.015) + 1.25·(0.030 − 0) = 0.039375; drop_prob < 1e-6: /2048.
        assert!(close(update(&mut q, 0.0, 0.030, 0.0), 0.039375 / 2048.0));
        // drop_prob 1e-5 (in [1e-5, 1e-4)): /128; p = 0.125·0.005 = 0.000625.
        assert!(close(update(&mut q, 1e-5, 0.020, 0.020), 1e-5 + 0.000625 / 128.0));
        // drop_prob 0.05: /2: 0.05 + 0.0003125.
        assert!(close(update(&mut q, 0.05, 0.020, 0.020), 0.0503125));
        // drop_prob 0.2, qdelay 100 ms after 50 ms: p = 0.010625 + 0.0625 = 0.073125, capped at 0.02.
        assert!(close(update(&mut q, 0.2, 0.100, 0.050), 0.22));
        q.p.cap_drop_adjustment = false;
        assert!(close(update(&mut q, 0.2, 0.100, 0.050), 0.273125));
        // No delay twice: p = −0.001875, then the decay: (0.5 − 0.001875)·0.98 = 0.4881625.
        assert!(close(update(&mut q, 0.5, 0.0, 0.0), 0.4881625));
        // Bounded: below 0 and above 1.
        assert_eq!(update(&mut q, 1e-7, 0.0, 0.1), 0.0);
        assert_eq!(update(&mut q, 0.95, 0.5, 0.0), 1.0);
        // Without auto-tuning the step is taken whole.
        q.p.auto_tune = false;
        assert!(close(update(&mut q, 0.0, 0.030, 0.0), 0.039375));
    }

    #[test]
    fn burst_allowance_runs_down_and_is_reset() {
        let mut q = pie();
        assert_eq!(q.burst_allowance, 150 * MS);
        // Delay above target/2: 150 ms lasts ten updates of 15 ms.
        for k in 1..=10 {
            update(&mut q, 0.5, 0.020, 0.020);
            assert_eq!(q.burst_allowance, (150 - 15 * k) * MS);
        }
        update(&mut q, 0.5, 0.020, 0.020);
        assert_eq!(q.burst_allowance, 0);
        // drop_prob at 0 and both delays below 7.5 ms: reset.
        update(&mut q, 0.0, 0.005, 0.005);
        assert_eq!(q.burst_allowance, 150 * MS);
        // While it is positive nothing is dropped early, even at drop_prob 1.
        let mut fx = QueueEffects::default();
        (q.drop_prob, q.qdelay_old) = (1.0, 0.1);
        for s in 0..10 {
            q.enqueue(test_packet(0, s, 1000), 0, &mut fx);
        }
        assert!(fx.drops.is_empty());
        q.burst_allowance = 0;
        q.enqueue(test_packet(0, 10, 1000), 0, &mut fx);
        assert_eq!((fx.drops.len(), fx.drops[0].1, fx.drops[0].2), (1, PIE, Stage::BeforeEnqueue));
    }

    #[test]
    fn safeguards_keep_pie_work_conserving() {
        let mut q = pie();
        q.burst_allowance = 0;
        let mut fx = QueueEffects::default();
        // Two mean packets waiting or fewer: no drop at drop_prob 1.
        (q.drop_prob, q.qdelay_old) = (1.0, 0.1);
        for s in 0..3 {
            q.enqueue(test_packet(0, s, 1000), 0, &mut fx);
        }
        assert!(fx.drops.is_empty() && q.len() == 3);
        // qdelay_old below 7.5 ms and drop_prob below 0.2: no drop.
        (q.drop_prob, q.qdelay_old) = (0.19, 0.007);
        for s in 3..50 {
            q.enqueue(test_packet(0, s, 1000), 0, &mut fx);
        }
        assert!(fx.drops.is_empty());
        // drop_prob 0.2 with the same delay: drops.
        q.drop_prob = 0.2;
        for s in 50..100 {
            q.enqueue(test_packet(0, s, 1000), 0, &mut fx);
        }
        assert!(!fx.drops.is_empty() && fx.drops.iter().all(|d| d.1 == PIE));
    }

    #[test]
    fn derandomization_accumulates_the_probability() {
        let mut q = pie();
        q.p.derandomize = true;
        q.burst_allowance = 0;
        let mut fx = QueueEffects::default();
        (q.drop_prob, q.qdelay_old) = (0.25, 0.1);
        for s in 0..3 {
            q.fifo.push(test_packet(0, s, 1000));
        }
        // accu_prob 0.25, 0.5, 0.75: below 0.85, queued without a draw.
        for s in 0..3 {
            q.enqueue(test_packet(1, s, 1000), 0, &mut fx);
        }
        assert!(fx.drops.is_empty());
        assert_eq!(q.accu_prob, 0.75);
        // From 8.4, one more 0.25 reaches 8.65 >= 8.5: a certain drop, and accu_prob restarts at 0.
        q.accu_prob = 8.4;
        q.enqueue(test_packet(1, 3, 1000), 0, &mut fx);
        assert_eq!(fx.drops.len(), 1);
        assert_eq!(q.accu_prob, 0.0);
        // drop_prob 0 clears it.
        q.accu_prob = 0.5;
        q.drop_prob = 0.0;
        q.qdelay_old = 0.1;
        q.enqueue(test_packet(1, 4, 1000), 0, &mut fx);
        assert_eq!(q.accu_prob, 0.0);
    }

    #[test]
    fn ecn_marks_below_the_threshold_and_drops_above() {
        let mut q = pie();
        q.p.ecn = true;
        q.p.derandomize = true;
        q.burst_allowance = 0;
        let mut fx = QueueEffects::default();
        for s in 0..3 {
            q.fifo.push(test_packet(0, s, 1000));
        }
        let ect = |s| Packet { ecn: Ecn::Ect, ..test_packet(1, s, 1000) };
        // drop_prob 0.1 <= ecn_threshold, a certain decision (8.45 + 0.1 >= 8.5): marked and queued.
        (q.drop_prob, q.qdelay_old, q.accu_prob) = (0.1, 0.1, 8.45);
        q.enqueue(ect(0), 0, &mut fx);
        assert_eq!((fx.marks.len(), fx.drops.len(), q.len()), (1, 0, 4));
        // A mark by the 8.5 rule leaves accu_prob as it is (RFC 8033 Appendix B, Linux).
        assert!((q.accu_prob - 8.55).abs() < 1e-12);
        // drop_prob 0.3 > ecn_threshold: dropped although ECN-capable.
        (q.drop_prob, q.accu_prob) = (0.3, 8.4);
        q.enqueue(ect(1), 0, &mut fx);
        assert_eq!((fx.marks.len(), fx.drops.len()), (1, 1));
        // Not-ECT below the threshold: dropped.
        (q.drop_prob, q.accu_prob) = (0.1, 8.45);
        q.enqueue(test_packet(1, 2, 1000), 0, &mut fx);
        assert_eq!(fx.drops.len(), 2);
    }

    #[test]
    fn timestamp_delay_and_timer() {
        let mut q = pie();
        let mut fx = QueueEffects::default();
        assert_eq!(q.next_timer(), None);
        q.enqueue(test_packet(0, 0, 1000), 3 * MS, &mut fx);
        q.enqueue(test_packet(0, 1, 1000), 4 * MS, &mut fx);
        assert_eq!(q.next_timer(), Some(18 * MS));
        q.dequeue(43 * MS, &mut fx);
        assert!(close(q.qdelay(), 0.040));
        q.on_timer(18 * MS, &mut fx);
        assert_eq!(q.next_timer(), Some(33 * MS));
        assert_eq!(q.qdelay_old, 0.040);
        // The last packet leaves the queue empty: 0.
        q.dequeue(50 * MS, &mut fx);
        assert_eq!(q.qdelay(), 0.0);
    }

    #[test]
    fn dequeue_rate_estimator() {
        let mut q = pie();
        q.p.delay = DelayEstimate::Rate;
        let mut fx = QueueEffects::default();
        for s in 0..40 {
            q.enqueue(test_packet(0, s, 1000), 0, &mut fx);
        }
        // The first departure leaves 39000 B >= 16384: a measurement starts at 1 ms.
        q.dequeue(MS, &mut fx);
        assert!(q.in_measurement && q.qdelay() == 0.0);
        // 17 more departures 1 ms apart: 17000 B in 17 ms, 1 us per byte.
        for k in 2..=18 {
            q.dequeue(k * MS, &mut fx);
        }
        assert!(!q.in_measurement);
        assert!(close(q.avg_dq_time_per_byte, 1e-6));
        // 22 packets wait: 22 ms.
        assert!((q.qdelay() - 0.022).abs() < 1e-12);
        // Next measurement: 17000 B in 34 ms (2 us per byte), weight 16384/65536 = 1/4: 1.25 us per byte.
        q.dequeue(19 * MS, &mut fx);
        for k in 1..=17 {
            q.dequeue(19 * MS + 2 * k * MS, &mut fx);
        }
        assert!((q.avg_dq_time_per_byte - 1.25e-6).abs() < 1e-18);
    }

    #[test]
    fn overflow_is_a_tail_drop() {
        let mut q = Pie::new(PieParams::rfc(1000.0), Limit::Packets(2), Rng::new(1, 1));
        let mut fx = QueueEffects::default();
        for s in 0..3 {
            q.enqueue(test_packet(0, s, 1000), 0, &mut fx);
        }
        assert_eq!((q.len(), fx.drops[0].1, fx.drops[0].2), (2, reason::OVERFLOW, Stage::BeforeEnqueue));
    }

    #[test]
    fn parameters_are_checked() {
        let e = |v: serde_json::Value| {
            QueueSpec::parse(&v, "q").and_then(|s| s.build(test_context("q")).map(|_| ())).unwrap_err().field
        };
        assert_eq!(e(serde_json::json!({"discipline": "pie", "target": "0s"})), "q.target");
        assert_eq!(e(serde_json::json!({"discipline": "pie", "t_update": "0s"})), "q.t_update");
        assert_eq!(e(serde_json::json!({"discipline": "pie", "alpha": -1})), "q.alpha");
        assert_eq!(e(serde_json::json!({"discipline": "pie", "beta": f64::MAX})), "q.beta");
        assert_eq!(e(serde_json::json!({"discipline": "pie", "max_burst": "-1s"})), "q.max_burst");
        assert_eq!(e(serde_json::json!({"discipline": "pie", "dq_threshold": "1B"})), "q.dq_threshold");
        assert_eq!(e(serde_json::json!({"discipline": "pie", "ecn_threshold": 2})), "q.ecn_threshold");
        assert_eq!(e(serde_json::json!({"discipline": "pie", "mean_pktsize": "0B"})), "q.mean_pktsize");
        assert_eq!(e(serde_json::json!({"discipline": "pie", "delay": "guess"})), "q.delay");
        assert_eq!(e(serde_json::json!({"discipline": "pie", "limit_bytes": "10B"})), "q.limit_bytes");
        let mut ctx = test_context("q");
        ctx.ecn_senders = false;
        let spec = QueueSpec::parse(&serde_json::json!({"discipline": "pie", "ecn": true}), "q").unwrap();
        assert_eq!(spec.build(ctx).err().unwrap().field, "q.ecn");
        let spec = QueueSpec::parse(&serde_json::json!({"discipline": "pie"}), "q").unwrap();
        assert!(spec.build(test_context("q")).is_ok());
        assert_eq!(spec.to_json()["delay"], "timestamp");
    }
}
