//! CUBIC (RFC 9438), windows in segments, C in segments/s³.
//!
//! - Slow start below `ssthresh` as Reno (one segment per ACK of new data, [`super::reno_growth`]).
//!   HyStart++ (RFC 9438 §4.10, RFC 9406) is not implemented: slow start ends at a congestion signal.
//! - Congestion avoidance (§4.2): a stage starts at the first ACK in congestion avoidance after a congestion
//!   signal (`t_epoch = now`, `cwnd_epoch = cwnd`), with `K = cbrt((W_max − cwnd_epoch) / C)` (eq. 2) and
//!   `W_cubic(t) = C·(t − K)³ + W_max` (eq. 1), t in seconds since `t_epoch`. On each ACK the target is
//!   `W_cubic(t + RTT)` clamped to `[cwnd, 1.5·cwnd]`, RTT the smoothed RTT (0 before any sample), and
//!   `cwnd += (target − cwnd) / cwnd` (§4.4, §4.5: per ACK, so delayed ACKs halve it, as Reno's growth here).
//! - Reno-friendly region (§4.3, `reno_friendly`): `W_est = cwnd_epoch` at the stage's start,
//!   `W_est += α·acked / cwnd` per ACK with `α = 3(1 − β)/(1 + β)` until `W_est ≥ cwnd_prior` (the window
//!   before the last reduction), then `α = 1`; when `W_cubic(t) < W_est`, `cwnd = W_est`.
//! - Multiplicative decrease (§4.6) on every signal (loss, ECN, timeout): `ssthresh = max(β·W, 2)`, W the
//!   data in flight (`reduce_from = "in-flight"`, as `tcp.ssthresh_from` measures it: §4.6's `flight_size`)
//!   or `cwnd` (`"cwnd"`, which §4.6 allows, as Linux and ns-3); the sender then sets `cwnd = ssthresh`
//!   (fast recovery, ECN) or the loss window (timeout). `cwnd_prior = cwnd`.
//! - Fast convergence (§4.7): before the reduction, `W_max = cwnd·(1 + β)/2` if `cwnd < W_max`, else
//!   `W_max = cwnd`. Without it, always `W_max = cwnd`.
//! - Timeout (§4.8): the same ssthresh; the first congestion avoidance stage after it uses `K = 0` and
//!   `W_max = W_est = cwnd_epoch` (`after_timeout = "restart"`). ns-3 3.44 keeps the W_max the timeout's
//!   reduction set and starts the stage as after a loss (`"keep-w-max"`: `K` towards that W_max), so a flow
//!   recovers from a timeout in about K seconds instead of growing convexly from its slow-start threshold.
//!   Whenever `cwnd_epoch ≥ W_max` otherwise (possible only when the data in flight exceeded cwnd at the
//!   signal), the stage starts the same way (Linux's and ns-3's origin point).
//! - The target looks one RTT ahead (§4.4, `W_cubic(t + RTT)`): the smoothed RTT (`lookahead = "srtt"`), or
//!   the minimum RTT seen, as Linux and ns-3 (`"min-rtt"`: their `delay_min`).
//! - `growth = "whole-segments"` replaces the per-ACK fraction with Linux's integer `bictcp_update` as ns-3
//!   3.44's `TcpCubic::Update` carries it (see [`Growth::WholeSegments`]).

use super::aimd::ReduceFrom;
use super::{reno_growth, CcContext, CongestionControl, Controller, Signal, Window};
use crate::rng::Rng;
use crate::spec::params::{name_params, params};
use crate::spec::ScenarioError;
use crate::time::{to_secs, Time};
use serde::Deserialize;

params! {
    /// CUBIC (RFC 9438 §4.1–4.8, windows in segments; HyStart++ not implemented). The defaults are the RFC's;
    /// `reduce_from = "cwnd"`, `after_timeout = "keep-w-max"`, `lookahead = "min-rtt"` and `growth =
    /// "whole-segments"` are ns-3 3.44's `TcpCubic` (Linux's).
    pub struct Spec {
        /// The cubic scaling constant C, segments/s³ (RFC 9438: 0.4).
        c: f64 = 0.4, Rule::left_open(0.0, 100.0).unit("segments/s³");
        /// β_cubic, the multiplicative decrease factor (RFC 9438 §4.6: 0.7).
        beta: f64 = 0.7, Rule::open(0.0, 1.0);
        /// Fast convergence (§4.7): W_max = cwnd·(1 + β)/2 when cwnd < W_max at a signal.
        fast_convergence: bool = true;
        /// The Reno-friendly region (§4.3): follow the estimate W_est while it leads W_cubic.
        reno_friendly: bool = true;
        /// The window ssthresh = max(β·W, 2) starts from: the data in flight (§4.6's flight_size, as
        /// `tcp.ssthresh_from` measures it) or `cwnd` (Linux, ns-3).
        reduce_from: ReduceFrom = ReduceFrom::InFlight, Rule::names(&["in-flight", "cwnd"]);
        /// The first stage after a timeout: K = 0, W_max = cwnd_epoch (§4.8), or W_max as the timeout's
        /// reduction set it, K towards it (ns-3 3.44).
        after_timeout: AfterTimeout = AfterTimeout::Restart, Rule::names(&["restart", "keep-w-max"]);
        /// The RTT in the target W_cubic(t + RTT): the smoothed RTT (§4.4) or the minimum RTT (Linux's and
        /// ns-3's `delay_min`).
        lookahead: Lookahead = Lookahead::Srtt, Rule::names(&["srtt", "min-rtt"]);
        /// Congestion avoidance's arithmetic: §4.4's per-ACK fraction, or Linux's integer `bictcp_update` as
        /// ns-3 3.44 carries it.
        growth: Growth = Growth::Continuous, Rule::names(&["continuous", "whole-segments"]);
    }
}

name_params!(AfterTimeout, Lookahead, Growth);

/// `growth`: the arithmetic of congestion avoidance.
#[derive(Deserialize, serde::Serialize, Debug, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum Growth {
    /// RFC 9438 §4.3–4.4: `cwnd += (target − cwnd)/cwnd` per ACK; `cwnd = W_est` while the Reno-friendly
    /// estimate leads.
    Continuous,
    /// Linux's `bictcp_update` as ns-3 3.44's `TcpCubic::Update` (`tcp-cubic.cc`) carries it, in whole
    /// segments: with `w = ⌊cwnd⌋`, the target is `origin ± ⌊C·|t − K|³⌋`, t = now + min RTT − t_epoch
    /// (the `lookahead` setting), and `cnt = ⌊w/(target − w)⌋` (`100·w` when target ≤ w; at most 20
    /// before the first signal); the Reno-friendly estimate counts ACKs, one segment per
    /// `⌊w·⌊8(1024 + 1024β)/(3(1024 − 1024β))⌋/8⌋` of them, and, when it leads, caps `cnt` at
    /// `⌊w/(W_est − w)⌋`; `cnt ≥ 2`. ACKs accumulate (never reset, as ns-3's `m_cWndCnt`) and cwnd grows one
    /// segment once they reach `cnt`. On a signal W_max and ssthresh are floored to whole segments
    /// (`uint32_t` in ns-3). ns-3 also forgets its minimum RTT at a timeout; here `"min-rtt"` keeps the
    /// connection's.
    WholeSegments,
}

/// `after_timeout`: how the first congestion avoidance stage after a timeout starts.
#[derive(Deserialize, serde::Serialize, Debug, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum AfterTimeout {
    /// RFC 9438 §4.8: `K = 0`, `W_max = W_est = cwnd_epoch`.
    Restart,
    /// ns-3 3.44 `TcpCubic`: W_max as the timeout's reduction set it (`GetSsThresh` before `CubicReset`,
    /// which keeps `m_lastMaxCwnd`), `K` towards it.
    KeepWMax,
}

/// `lookahead`: the RTT in the target `W_cubic(t + RTT)`.
#[derive(Deserialize, serde::Serialize, Debug, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum Lookahead {
    /// The smoothed RTT (RFC 9438 §4.4).
    Srtt,
    /// The minimum RTT seen (Linux's and ns-3's `delay_min`).
    MinRtt,
}

#[derive(Clone, Debug)]
pub struct Cubic {
    spec: Spec,
    /// 3(1 − β)/(1 + β) (§4.3).
    alpha_reno: f64,
    /// W_max, segments (0 before the first signal).
    w_max: f64,
    /// cwnd before the last reduction (§4.6).
    cwnd_prior: f64,
    /// The current congestion avoidance stage's start, `None` until its first ACK.
    epoch: Option<Time>,
    /// K, seconds.
    k: f64,
    w_est: f64,
    /// α_cubic in use (§4.3).
    alpha: f64,
    /// The last signal was a timeout (§4.8).
    after_timeout: bool,
    /// `whole-segments`: ACKed segments toward the next one-segment step (ns-3's `m_cWndCnt`).
    cwnd_cnt: u32,
    /// `whole-segments`: ACKed segments toward the next step of the Reno-friendly estimate (`m_ackCnt`).
    ack_cnt: u32,
    /// `whole-segments`: the Reno-friendly estimate in whole segments (`m_tcpCwnd`).
    tcp_cwnd: u32,
}

impl Controller for Cubic {
    type Spec = Spec;
    fn from_spec(s: &Spec, _field: &str, _: Rng) -> Result<Self, ScenarioError> {
        // Every range is declared (and checked by the registry).
        let alpha_reno = 3.0 * (1.0 - s.beta) / (1.0 + s.beta);
        Ok(Cubic {
            spec: s.clone(),
            alpha_reno,
            w_max: 0.0,
            cwnd_prior: 0.0,
            epoch: None,
            k: 0.0,
            w_est: 0.0,
            alpha: alpha_reno,
            after_timeout: false,
            cwnd_cnt: 0,
            ack_cnt: 0,
            tcp_cwnd: 0,
        })
    }
}

impl Cubic {
    /// W_cubic(t), eq. 1, t in seconds since the stage's start.
    pub fn w_cubic(&self, t: f64) -> f64 {
        self.spec.c * (t - self.k).powi(3) + self.w_max
    }
    pub fn w_max(&self) -> f64 {
        self.w_max
    }
    /// K, seconds.
    pub fn k(&self) -> f64 {
        self.k
    }
    /// The Reno-friendly estimate W_est.
    pub fn w_est(&self) -> f64 {
        self.w_est
    }

    fn start_epoch(&mut self, cwnd: f64, now: Time) {
        self.epoch = Some(now);
        if self.after_timeout || cwnd >= self.w_max {
            self.w_max = cwnd;
            self.k = 0.0;
        } else {
            self.k = ((self.w_max - cwnd) / self.spec.c).cbrt();
        }
        self.after_timeout = false;
        self.w_est = cwnd;
        self.alpha = self.alpha_reno;
    }

    /// The RTT the target looks ahead by, seconds (0 before any sample).
    fn lookahead(&self, ctx: &CcContext) -> f64 {
        match self.spec.lookahead {
            Lookahead::Srtt => ctx.rtt.srtt().unwrap_or(0.0),
            Lookahead::MinRtt => ctx.rtt.min_rtt().map_or(0.0, to_secs),
        }
    }

    /// One ACK in congestion avoidance with [`Growth::WholeSegments`] (ns-3 3.44 `TcpCubic::IncreaseWindow`
    /// and `Update`).
    fn whole_segment_step(&mut self, w: &mut Window, acked: u32, ctx: &CcContext) {
        let seg = (w.cwnd.floor() as u32).max(1);
        self.cwnd_cnt = self.cwnd_cnt.saturating_add(acked);
        self.ack_cnt = self.ack_cnt.saturating_add(acked);
        let epoch = match self.epoch {
            Some(e) => e,
            None => {
                self.start_epoch(f64::from(seg), ctx.now);
                self.ack_cnt = acked;
                self.tcp_cwnd = seg;
                ctx.now
            }
        };
        let t = to_secs(ctx.now.saturating_sub(epoch)) + self.lookahead(ctx);
        let offs = (t - self.k).abs();
        let delta = (self.spec.c * offs.powi(3)).min(f64::from(u32::MAX)) as u32;
        let origin = self.w_max as u32;
        let target = if t < self.k { origin.saturating_sub(delta) } else { origin.saturating_add(delta) };
        let mut cnt = if target > seg { seg / (target - seg) } else { seg.saturating_mul(100) };
        if self.w_max == 0.0 {
            cnt = cnt.min(20); // ns-3's CntClamp
        }
        if self.spec.reno_friendly {
            let beta = 1024.0 * self.spec.beta;
            let scale = (8.0 * (1024.0 + beta) / 3.0 / (1024.0 - beta)) as u32;
            let per_segment = ((u64::from(seg) * u64::from(scale)) >> 3).clamp(1, u64::from(u32::MAX)) as u32;
            while self.ack_cnt > per_segment {
                self.ack_cnt -= per_segment;
                self.tcp_cwnd += 1;
            }
            if self.tcp_cwnd > seg {
                cnt = cnt.min(seg / (self.tcp_cwnd - seg));
            }
        }
        let cnt = cnt.max(2);
        if self.cwnd_cnt >= cnt {
            w.cwnd += 1.0;
            self.cwnd_cnt -= cnt;
        }
    }
}

impl CongestionControl for Cubic {
    fn on_ack(&mut self, w: &mut Window, acked: u32, ctx: &CcContext) {
        if acked == 0 {
            return;
        }
        if w.cwnd < w.ssthresh {
            reno_growth(w, acked, 1.0, ctx.whole_bytes);
            return;
        }
        if self.spec.growth == Growth::WholeSegments {
            self.whole_segment_step(w, acked, ctx);
            return;
        }
        let epoch = match self.epoch {
            Some(e) => e,
            None => {
                self.start_epoch(w.cwnd, ctx.now);
                ctx.now
            }
        };
        let t = to_secs(ctx.now.saturating_sub(epoch));
        if self.spec.reno_friendly {
            self.w_est += self.alpha * acked as f64 / w.cwnd;
            if self.w_est >= self.cwnd_prior {
                self.alpha = 1.0;
            }
            if self.w_cubic(t) < self.w_est {
                w.cwnd = self.w_est;
                return;
            }
        }
        let target = self.w_cubic(t + self.lookahead(ctx)).clamp(w.cwnd, 1.5 * w.cwnd);
        w.cwnd += (target - w.cwnd) / w.cwnd;
    }

    fn on_congestion(&mut self, w: &Window, signal: Signal, ctx: &CcContext) -> f64 {
        let whole = self.spec.growth == Growth::WholeSegments;
        let cwnd = if whole { w.cwnd.floor() } else { w.cwnd };
        let from = match self.spec.reduce_from {
            ReduceFrom::InFlight => ctx.in_flight as f64,
            ReduceFrom::Cwnd => cwnd,
        };
        self.w_max = if self.spec.fast_convergence && cwnd < self.w_max {
            cwnd * (1.0 + self.spec.beta) / 2.0
        } else {
            cwnd
        };
        self.cwnd_prior = cwnd;
        self.epoch = None;
        self.after_timeout = signal == Signal::Timeout && self.spec.after_timeout == AfterTimeout::Restart;
        let ssthresh = self.spec.beta * from;
        if whole {
            self.w_max = self.w_max.floor();
            ssthresh.floor().max(2.0)
        } else {
            ssthresh.max(2.0)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tcp::cc::{test_context, CcSpec};
    use crate::tcp::rtt::{RtoBounds, RttEstimator};
    use crate::time::from_secs;

    fn cubic(spec: Spec) -> Cubic {
        Cubic::from_spec(&spec, "c", Rng::new(1, 1)).unwrap()
    }

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-9
    }

    /// An estimator whose smoothed RTT is `rtt` seconds.
    fn est(rtt: f64) -> RttEstimator {
        let mut e = RttEstimator::default();
        let b = RtoBounds { initial: from_secs(1.0), min: 0, max: Time::MAX, granularity: 0 };
        e.sample(from_secs(rtt), &b);
        e
    }

    #[test]
    fn k_and_the_cubic_curve_after_a_loss() {
        // cwnd 100 at a loss, 100 in flight: W_max = 100, ssthresh = 70; cwnd_epoch = 70.
        // K = cbrt((100 − 70) / 0.4) = cbrt(75) = 4.21716... s.
        let mut cc = cubic(Spec::default());
        let e = est(0.1);
        let ctx = test_context(&e, 100);
        let w0 = Window { cwnd: 100.0, ssthresh: f64::INFINITY };
        let ss = cc.on_congestion(&w0, Signal::Loss, &ctx);
        assert!(close(ss, 70.0));
        assert_eq!(cc.w_max(), 100.0);
        let mut w = Window { cwnd: ss, ssthresh: ss };
        cc.on_ack(&mut w, 1, &ctx);
        let k = 75f64.cbrt();
        assert!(close(cc.k(), k), "{}", cc.k());
        assert!((k - 4.217163).abs() < 1e-6);
        // W(0) = cwnd_epoch, W(K) = W_max, W(K + 1) = 100.4, W(1) = 100 − 0.4·3.21716³ = 86.6808...
        assert!(close(cc.w_cubic(0.0), 70.0));
        assert!(close(cc.w_cubic(k), 100.0));
        assert!(close(cc.w_cubic(k + 1.0), 100.4));
        assert!(close(cc.w_cubic(1.0), 100.0 - 0.4 * (k - 1.0).powi(3)));
        assert!((cc.w_cubic(1.0) - 86.68).abs() < 0.01);
        // The first ACK (t = 0): W_est = 70 + α/70 (α = 3·0.3/1.7 = 9/17) is above W_cubic(0) = 70, so the
        // Reno-friendly region sets cwnd = W_est.
        assert!(close(w.cwnd, 70.0 + 9.0 / 17.0 / 70.0), "{}", w.cwnd);
        // Without it (srtt 0.1): target W(0.1) = 100 − 0.4·(K − 0.1)³, cwnd += (target − 70)/70.
        let mut plain = cubic(Spec { reno_friendly: false, ..Spec::default() });
        plain.on_congestion(&w0, Signal::Loss, &ctx);
        let mut w = Window { cwnd: ss, ssthresh: ss };
        plain.on_ack(&mut w, 1, &ctx);
        let target = 100.0 - 0.4 * (k - 0.1).powi(3);
        assert!(close(w.cwnd, 70.0 + (target - 70.0) / 70.0), "{}", w.cwnd);
    }

    #[test]
    fn target_is_clamped_to_one_and_a_half_cwnd_and_to_cwnd() {
        // Far past K the curve is steep: the target is 1.5·cwnd, cwnd grows by 0.5 per ACK.
        let mut cc = cubic(Spec { reno_friendly: false, ..Spec::default() });
        let e = est(0.1);
        let mut ctx = test_context(&e, 10);
        cc.on_congestion(&Window { cwnd: 10.0, ssthresh: f64::INFINITY }, Signal::Loss, &ctx);
        let mut w = Window { cwnd: 7.0, ssthresh: 7.0 };
        cc.on_ack(&mut w, 1, &ctx); // the stage starts at t = 0
        let before = w.cwnd;
        ctx.now = from_secs(100.0);
        cc.on_ack(&mut w, 1, &ctx);
        assert!(close(w.cwnd, before + 0.5));
        // A cwnd above W_cubic(t + RTT): target = cwnd, no growth. W_max 100, cwnd_epoch 97: K = cbrt(7.5),
        // W(0.1) = 100 − 0.4·(K − 0.1)³ = 97.44; a window of 99 (set from outside) stays.
        let mut cc = cubic(Spec { reno_friendly: false, ..Spec::default() });
        ctx.now = 0;
        cc.on_congestion(
            &Window { cwnd: 100.0, ssthresh: f64::INFINITY },
            Signal::Loss,
            &test_context(&e, 50),
        );
        let mut w = Window { cwnd: 97.0, ssthresh: 35.0 };
        cc.on_ack(&mut w, 1, &ctx);
        assert!(close(cc.k(), 7.5f64.cbrt()));
        assert!((cc.w_cubic(0.1) - 97.44).abs() < 0.01, "{}", cc.w_cubic(0.1));
        w.cwnd = 99.0;
        cc.on_ack(&mut w, 1, &ctx);
        assert_eq!(w.cwnd, 99.0);
    }

    #[test]
    fn fast_convergence_lowers_w_max_when_the_window_shrank() {
        let mut cc = cubic(Spec::default());
        let e = est(0.1);
        let ctx = test_context(&e, 80);
        cc.on_congestion(&Window { cwnd: 100.0, ssthresh: f64::INFINITY }, Signal::Loss, &ctx);
        assert_eq!(cc.w_max(), 100.0);
        // The next loss at cwnd 80 < W_max: W_max = 80·(1 + 0.7)/2 = 68; ssthresh = 0.7·80 = 56.
        let ss = cc.on_congestion(&Window { cwnd: 80.0, ssthresh: 70.0 }, Signal::Ecn, &ctx);
        assert!(close(cc.w_max(), 68.0));
        assert!(close(ss, 56.0));
        // K = cbrt((68 − 56) / 0.4) = cbrt(30).
        let mut w = Window { cwnd: 56.0, ssthresh: 56.0 };
        cc.on_ack(&mut w, 1, &ctx);
        assert!(close(cc.k(), 30f64.cbrt()));
        // Without fast convergence W_max = cwnd = 80; K = cbrt((80 − 56)/0.4) = cbrt(60).
        let mut plain = cubic(Spec { fast_convergence: false, ..Spec::default() });
        plain.on_congestion(&Window { cwnd: 100.0, ssthresh: f64::INFINITY }, Signal::Loss, &ctx);
        plain.on_congestion(&Window { cwnd: 80.0, ssthresh: 70.0 }, Signal::Loss, &ctx);
        assert_eq!(plain.w_max(), 80.0);
        let mut w = Window { cwnd: 56.0, ssthresh: 56.0 };
        plain.on_ack(&mut w, 1, &ctx);
        assert!(close(plain.k(), 60f64.cbrt()));
    }

    #[test]
    fn the_decrease_starts_from_flight_or_cwnd_and_keeps_two_segments() {
        let e = est(0.1);
        let w = Window { cwnd: 20.0, ssthresh: f64::INFINITY };
        let mut flight = cubic(Spec::default());
        assert!(close(flight.on_congestion(&w, Signal::Loss, &test_context(&e, 10)), 7.0));
        let mut cwnd = cubic(Spec { reduce_from: ReduceFrom::Cwnd, ..Spec::default() });
        assert!(close(cwnd.on_congestion(&w, Signal::Loss, &test_context(&e, 10)), 14.0));
        assert_eq!(flight.on_congestion(&w, Signal::Loss, &test_context(&e, 2)), 2.0);
        assert_eq!(flight.loss_window(&w, &test_context(&e, 2)), 1.0);
    }

    #[test]
    fn reno_friendly_region_takes_over_at_a_small_window() {
        // W_max = 10, cwnd_epoch = 7: K = cbrt(7.5) = 1.957 s. With a 10 ms RTT and one ACK per segment,
        // W_est gains α = 9/17 ≈ 0.53 segment per RTT while the cubic curve gains less than 0.4·(1.957³ −
        // 1.857³)/1 ≈ 0.44 over the first 100 ms: the Reno-friendly region holds, each ACK sets cwnd = W_est.
        let e = est(0.01);
        let mut ctx = test_context(&e, 10);
        let mut cc = cubic(Spec::default());
        cc.on_congestion(&Window { cwnd: 10.0, ssthresh: f64::INFINITY }, Signal::Loss, &ctx);
        let mut w = Window { cwnd: 7.0, ssthresh: 7.0 };
        // First ACK: W_est = 7 + α/7, α = 3·0.3/1.7 = 9/17; W_cubic(0) = 7 < W_est: cwnd = W_est.
        cc.on_ack(&mut w, 1, &ctx);
        let alpha = 9.0 / 17.0;
        assert!(close(w.cwnd, 7.0 + alpha / 7.0), "{}", w.cwnd);
        assert!(close(cc.w_est(), w.cwnd));
        // α becomes 1 once W_est reaches cwnd_prior = 10.
        let mut acks = 0;
        while w.cwnd < 10.0 {
            ctx.now += from_secs(0.01 / w.cwnd);
            cc.on_ack(&mut w, 1, &ctx);
            acks += 1;
        }
        assert!(cc.w_cubic(to_secs(ctx.now)) < cc.w_est());
        let before = w.cwnd;
        cc.on_ack(&mut w, 1, &ctx);
        assert!(close(w.cwnd, before + 1.0 / before), "α = 1 past cwnd_prior");
        // Reno-friendly at α: about (10 − 7)·7/α ≈ 40 ACKs (the window grows as it goes).
        assert!((40..=60).contains(&acks), "{acks}");
        // Without the region, the cubic curve alone grows far slower at this RTT.
        let mut plain = cubic(Spec { reno_friendly: false, ..Spec::default() });
        ctx.now = 0;
        plain.on_congestion(&Window { cwnd: 10.0, ssthresh: f64::INFINITY }, Signal::Loss, &ctx);
        let mut w = Window { cwnd: 7.0, ssthresh: 7.0 };
        for _ in 0..acks {
            ctx.now += from_secs(0.01 / w.cwnd);
            plain.on_ack(&mut w, 1, &ctx);
        }
        assert!(w.cwnd < 8.0, "{}", w.cwnd);
    }

    #[test]
    fn slow_start_as_reno_and_the_stage_after_a_timeout() {
        let e = est(0.1);
        let mut ctx = test_context(&e, 40);
        let mut cc = cubic(Spec::default());
        let mut w = Window { cwnd: 10.0, ssthresh: f64::INFINITY };
        cc.on_ack(&mut w, 2, &ctx);
        assert_eq!(w.cwnd, 11.0);
        // Timeout at cwnd 40: ssthresh 28, W_max 40 (first signal); cwnd = 1, slow start to 28.
        let ss = cc.on_congestion(&Window { cwnd: 40.0, ssthresh: f64::INFINITY }, Signal::Timeout, &ctx);
        assert!(close(ss, 28.0));
        let mut w = Window { cwnd: cc.loss_window(&w, &ctx), ssthresh: ss };
        assert_eq!(w.cwnd, 1.0);
        while w.cwnd < w.ssthresh {
            cc.on_ack(&mut w, 1, &ctx);
        }
        assert_eq!(w.cwnd, 28.0);
        // §4.8: the stage starts with K = 0 and W_max = W_est = cwnd_epoch = 28.
        ctx.now = from_secs(5.0);
        cc.on_ack(&mut w, 1, &ctx);
        assert_eq!((cc.k(), cc.w_max()), (0.0, 28.0));
        // W(0.1) = 28 + 0.4·0.001 = 28.0004; W_est = 28 + α/28: the Reno-friendly estimate leads.
        let alpha = 9.0 / 17.0;
        assert!(close(w.cwnd, 28.0 + alpha / 28.0), "{}", w.cwnd);
    }

    #[test]
    fn ns3_stage_after_a_timeout_keeps_w_max_and_looks_ahead_by_the_minimum_rtt() {
        // Timeout at cwnd 40 with `keep-w-max`: W_max stays 40, so the stage from cwnd_epoch 28 has
        // K = cbrt((40 − 28)/0.4) = cbrt(30), as after a loss.
        let e = est(0.1);
        let mut ctx = test_context(&e, 40);
        let spec = Spec {
            after_timeout: AfterTimeout::KeepWMax,
            lookahead: Lookahead::MinRtt,
            reno_friendly: false,
            ..Spec::default()
        };
        let mut cc = cubic(spec);
        let ss = cc.on_congestion(&Window { cwnd: 40.0, ssthresh: f64::INFINITY }, Signal::Timeout, &ctx);
        assert!(close(ss, 28.0));
        let mut w = Window { cwnd: 28.0, ssthresh: 28.0 };
        ctx.now = from_secs(5.0);
        cc.on_ack(&mut w, 1, &ctx);
        assert_eq!(cc.w_max(), 40.0);
        assert!(close(cc.k(), 30f64.cbrt()), "{}", cc.k());
        // The lookahead is the minimum RTT: one sample of 0.1 s, then a larger one leaves the minimum
        // at 0.1 while srtt grows, and the step follows W(t + 0.1) from t = 0.5.
        let mut e2 = est(0.1);
        let b =
            crate::tcp::rtt::RtoBounds { initial: from_secs(1.0), min: 0, max: Time::MAX, granularity: 0 };
        e2.sample(from_secs(0.5), &b);
        let ctx2 = CcContext { now: from_secs(5.5), ..test_context(&e2, 40) };
        let before = w.cwnd;
        cc.on_ack(&mut w, 1, &ctx2);
        let target = cc.w_cubic(0.5 + 0.1).clamp(before, 1.5 * before);
        assert!(close(w.cwnd, before + (target - before) / before), "{}", w.cwnd);
    }

    /// An ACK clock: one RTT of `rtt` seconds delivers ⌊cwnd⌋ ACKs evenly; returns the time cwnd first
    /// reaches `goal`.
    fn time_to_reach(cc: &mut Cubic, w: &mut Window, e: &RttEstimator, rtt: f64, goal: f64) -> f64 {
        let mut ctx = test_context(e, 0);
        let mut t = 0.0;
        while w.cwnd < goal {
            let acks = w.cwnd.floor() as u32;
            for _ in 0..acks {
                t += rtt / f64::from(acks);
                ctx.now = from_secs(t);
                cc.on_ack(w, 1, &ctx);
            }
            assert!(t < 100.0, "never reached {goal}: {}", w.cwnd);
        }
        t
    }

    #[test]
    fn whole_segments_follow_ns3s_integer_update() {
        // ns-3 3.44 TcpCubic after a loss at cwnd 100.7 (w = 100): W_max = 100, ssthresh = ⌊0.7·100⌋ = 70.
        let spec = Spec { growth: Growth::WholeSegments, reduce_from: ReduceFrom::Cwnd, ..Spec::default() };
        let spec = Spec { lookahead: Lookahead::MinRtt, ..spec };
        let mut cc = cubic(spec.clone());
        let e = est(0.1);
        let ctx = test_context(&e, 100);
        let ss = cc.on_congestion(&Window { cwnd: 100.7, ssthresh: f64::INFINITY }, Signal::Loss, &ctx);
        assert_eq!((ss, cc.w_max()), (70.0, 100.0));
        // The stage starts at t_epoch = 0: K = cbrt(30/0.4) = cbrt(75); t = 0 + min RTT 0.1,
        // ⌊0.4·(K − 0.1)³⌋ = ⌊27.92⌋ = 27, target 73, cnt = ⌊70/3⌋ = 23; the Reno-friendly estimate
        // (one segment per ⌊70·15/8⌋ = 131 ACKs) does not lead. cwnd steps to 71 at the 23rd ACK.
        let mut w = Window { cwnd: 70.0, ssthresh: 70.0 };
        for _ in 0..22 {
            cc.on_ack(&mut w, 1, &ctx);
        }
        assert!(close(cc.k(), 75f64.cbrt()));
        assert_eq!(w.cwnd, 70.0);
        cc.on_ack(&mut w, 1, &ctx);
        assert_eq!(w.cwnd, 71.0);
        // Now cnt = ⌊71/2⌋ = 35: 34 more ACKs leave 71, the 35th makes 72.
        for _ in 0..34 {
            cc.on_ack(&mut w, 1, &ctx);
        }
        assert_eq!(w.cwnd, 71.0);
        cc.on_ack(&mut w, 1, &ctx);
        assert_eq!(w.cwnd, 72.0);
        // A second loss below W_max with fast convergence: w = 80, W_max = ⌊80·1.7/2⌋ = 68, ssthresh 56.
        let ss = cc.on_congestion(&Window { cwnd: 80.9, ssthresh: 72.0 }, Signal::Loss, &ctx);
        assert_eq!((ss, cc.w_max()), (56.0, 68.0));
        // At the plateau (target = w) cnt is 100·w: a window of 68 at t = K waits 6,800 ACKs.
        let mut cc = cubic(spec);
        cc.on_congestion(&Window { cwnd: 68.0, ssthresh: f64::INFINITY }, Signal::Loss, &ctx);
        let mut w = Window { cwnd: 68.0, ssthresh: 47.0 };
        let mut n = 0;
        while w.cwnd == 68.0 {
            cc.on_ack(&mut w, 1, &test_context(&est(1e-9), 68));
            n += 1;
        }
        // ... unless the Reno-friendly estimate leads first: it gains a segment at the 128th ACK (one per
        // ⌊68·15/8⌋ = 127, counted from the first), which caps cnt at ⌊68/1⌋ = 68; the 128 ACKs counted
        // since exceed it, so cwnd steps at that ACK.
        assert_eq!(n, 128);
    }

    #[test]
    fn whole_segments_reach_w_max_about_when_the_curve_does() {
        // From 70 back to W_max = 100 at a 100 ms RTT: the continuous curve takes about K = 4.2 s (4.3 with
        // the approach to the target). The integer target is W_max itself once ⌊C·(K − t)³⌋ = 0, from
        // (1/C)^(1/3) = 1.36 s before K, and cnt = ⌊w/(target − w)⌋ closes the gap to W_max itself:
        // whole segments arrive about 1.4 s earlier.
        let e = est(0.1);
        let ctx = test_context(&e, 100);
        let run = |growth| {
            let mut cc = cubic(Spec { growth, reno_friendly: false, ..Spec::default() });
            let ss = cc.on_congestion(&Window { cwnd: 100.0, ssthresh: f64::INFINITY }, Signal::Loss, &ctx);
            let mut w = Window { cwnd: ss, ssthresh: ss };
            time_to_reach(&mut cc, &mut w, &e, 0.1, 100.0)
        };
        let continuous = run(Growth::Continuous);
        let whole = run(Growth::WholeSegments);
        assert!((3.9..4.6).contains(&continuous), "{continuous}");
        assert!((2.6..3.1).contains(&whole), "{whole} against {continuous}");
    }

    #[test]
    fn deterministic() {
        let run = || {
            let e = est(0.05);
            let mut ctx = test_context(&e, 30);
            let mut cc = cubic(Spec::default());
            let mut w = Window { cwnd: 10.0, ssthresh: f64::INFINITY };
            let mut trace = Vec::new();
            for i in 0..5000u64 {
                ctx.now = i * from_secs(0.001);
                if i % 700 == 699 {
                    w.ssthresh = cc.on_congestion(&w, Signal::Loss, &ctx);
                    w.cwnd = w.ssthresh;
                }
                cc.on_ack(&mut w, 1, &ctx);
                trace.push(w.cwnd.to_bits());
            }
            trace
        };
        assert_eq!(run(), run());
    }

    #[test]
    fn bad_parameters_name_the_field() {
        let e = |s: Spec| {
            let field = "flows[0].tcp.congestion_control";
            CcSpec::Cubic(s).build(field, Rng::new(1, 1)).unwrap_err()
        };
        assert_eq!(e(Spec { c: 0.0, ..Spec::default() }).field, "flows[0].tcp.congestion_control.c");
        assert_eq!(e(Spec { c: f64::NAN, ..Spec::default() }).field, "flows[0].tcp.congestion_control.c");
        assert_eq!(e(Spec { beta: 1.0, ..Spec::default() }).field, "flows[0].tcp.congestion_control.beta");
        assert_eq!(e(Spec { beta: 0.0, ..Spec::default() }).field, "flows[0].tcp.congestion_control.beta");
    }
}
