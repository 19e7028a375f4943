//! The online benefit maximiser shared by Optimal Drop-Tail and Optimal BLUE (Stanojević & Shorten,
//! "Trading link utilization for queueing delays: an adaptive approach", Sec. 4–5).
//!
//! One control parameter `t` (ODT: the buffer limit `t_S` in bytes; OB: the drop probability `t_p`) lives on
//! the geometric grid `t(0)·α^l`. Once per sampling period Δ:
//!
//! 1. [`Meter`] gives the period's utilization `ũ = bytes transmitted / (C·Δ)` and mean "potential queueing
//!    delay" `d̃ = TotQDelay / NmbArrivals` (Sec. 4 and its footnote 7, whose `NmbBytes/Δ` is divided by C);
//! 2. [`GridOptimizer::end_of_period`] records the sample at the current index `i = l(k)`: the index joins the
//!    window `aug` of the last `W0` indices, updating the visit counts `n_`, and the per-index estimates
//!    `û(i)`, `d̂(i)` are averaged with weight `1/n_(i)` on the new sample (eq. 12, the running-mean reading
//!    of the printed formula, whose transposed weights are the `as-printed` option);
//! 3. the monotonicity repair (eq. 13–14) replaces `û(i)` (and separately `d̂(i)`) by the `n_`-weighted mean of
//!    indices `i−1, i, i+1` when it breaks the expected order against a neighbour visited in the window (`u`
//!    and `aQd` increase with `t_S` for ODT and decrease with `t_p` for OB; neighbours with `n_ = 0` are
//!    ignored in the test and weigh nothing in the mean);
//! 4. with `B̂(j) = û(j) − γ·d̂(j)` (linear price `P_γ`, eq. 15) the MIMD sign rule (eq. 9–11, 18–20) moves
//!    `l ← l + 1` (`t·α`) if `(B̂(l(k)) − B̂(l(k−1)))·(l(k) − l(k−1)) ≥ 0` and `l ← l − 1` (`t/α`) otherwise.
//!    The first move, which has no previous index, is `first_step` (the paper leaves it open). `t` is kept in
//!    `[t_min, t_max]` (1 packet .. the physical buffer for ODT, `min_probability` .. 1 for OB): a step that
//!    would leave the range is reflected, so `t` always moves and the ratio of eq. 9 is always defined.
//!
//! Everything is `O(1)` per packet (three counter updates in [`Meter`]) and `O(1)` per period; the grid arrays
//! are allocated once, at build.

use super::red::powi_exact;
use crate::time::{serialization, to_secs, Time};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The first MIMD move, which the sign rule cannot decide (no previous index).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum FirstStep {
    /// `t ← t·α` (the default: the paper does not say).
    Up,
    /// `t ← t/α`.
    Down,
}

/// How eq. 12 weighs the new sample against the stored estimate at its grid index.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Estimator {
    /// `x̂ ← (1 − 1/n)·x̂ + (1/n)·x̃`: the mean of the samples since the index was last absent from the window.
    RunningMean,
    /// `x̂ ← (1/n)·x̂ + (1 − 1/n)·x̃`, as printed (a new index with `n = 1` keeps its stale estimate).
    AsPrinted,
}

/// Which arrivals the mean potential queueing delay `d̃` averages over.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum DelayOf {
    /// Every arrival ("for all NmbArrivals packets"), dropped or not.
    AllArrivals,
    /// Only the arrivals that were queued.
    Accepted,
}

/// The optimiser's settings (the paper's Table 2, with the open choices), resolved.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Tuning {
    /// γ of the linear price `P_γ(d) = γ·d`, 1/s.
    pub gamma: f64,
    /// The sampling period Δ.
    pub interval: Time,
    /// The MIMD factor α > 1.
    pub alpha: f64,
    /// The history window W0, in sampling periods.
    pub window: usize,
    pub first_step: FirstStep,
    pub estimator: Estimator,
    pub delay_of: DelayOf,
}

/// The paper's values in every simulation (§3.2, Table 2): P_10, Δ = 2 s, α = 1.05, W0 = 30.
pub const GAMMA: f64 = 10.0;
pub const INTERVAL_S: f64 = 2.0;
pub const ALPHA: f64 = 1.05;
pub const WINDOW: u64 = 30;

/// At most this many grid points between `t_min` and `t_max`.
const MAX_GRID: i64 = 1_000_000;

/// A [`params!`](crate::spec::params::params) table of ODT or OB: its own parameters, then the
/// optimiser's (declared here once), and `tuning()`, the resolved [`Tuning`].
macro_rules! with_tuning {
    ($(#[doc = $about:literal])+ pub struct $name:ident { $($own:tt)* }) => {
        $crate::spec::params::params! {
            $(#[doc = $about])+
            pub struct $name {
                $($own)*
                /// γ of the price `P_γ(d) = γ·d`: the benefit is `u − γ·aQd` (aQd in s; γ = 10 makes 1 % of
                /// utilization worth 1 ms).
                gamma: f64 = $crate::queue::optimizer::GAMMA, Rule::closed(0.0, 1e6).unit("1/s");
                /// The sampling period Δ.
                interval: Seconds = Seconds($crate::queue::optimizer::INTERVAL_S), Rule::closed(1e-3, 3600.0);
                /// The MIMD factor α: each period `t ← t·α` or `t ← t/α`.
                alpha: f64 = $crate::queue::optimizer::ALPHA, Rule::left_open(1.0, 10.0);
                /// The history window W0 of the per-value estimates.
                window: u64 = $crate::queue::optimizer::WINDOW, Rule::closed(1.0, 1e6).unit("periods");
                /// The first move, which the sign rule cannot decide (the paper leaves it open).
                first_step: FirstStep = FirstStep::Up, Rule::names(&["up", "down"]);
                /// Eq. 12's weights: "running-mean", `x̂ ← (1 − 1/n)·x̂ + (1/n)·x̃`, or "as-printed", the
                /// printed, apparently transposed `(1/n)·x̂ + (1 − 1/n)·x̃`.
                estimator: Estimator = Estimator::RunningMean, Rule::names(&["running-mean", "as-printed"]);
                /// Which arrivals the period's mean delay averages over: "all-arrivals" ("for all
                /// NmbArrivals packets", dropped or not) or "accepted".
                delay_of: DelayOf = DelayOf::AllArrivals, Rule::names(&["all-arrivals", "accepted"]);
            }
        }

        impl $name {
            /// The optimiser's settings, their ranges already checked.
            pub fn tuning(&self) -> $crate::queue::optimizer::Tuning {
                $crate::queue::optimizer::Tuning {
                    gamma: self.gamma,
                    interval: $crate::time::from_secs(self.interval.0),
                    alpha: self.alpha,
                    window: self.window as usize,
                    first_step: self.first_step,
                    estimator: self.estimator,
                    delay_of: self.delay_of,
                }
            }
        }
    };
}
pub(crate) use with_tuning;

crate::spec::params::name_params!(FirstStep, Estimator, DelayOf);

/// `next_timer` and `timer_period` of a discipline whose timer is its [`Meter`]'s sampling period
/// (`meter_timer!(meter)`, the field holding it).
macro_rules! meter_timer {
    ($meter:ident) => {
        fn next_timer(&self) -> Option<Time> {
            self.$meter.period_end()
        }

        fn has_timer(&self) -> bool {
            true
        }

        fn timer_period(&self) -> Option<(Time, &'static str)> {
            Some((self.$meter.interval(), "interval"))
        }
    };
}
pub(crate) use meter_timer;

/// The grid search of §2.4 (ODT) and §2.6 (OB) over `t(0)·α^l`, `l` in `[l_min, l_max]`.
#[derive(Clone, Debug)]
pub struct GridOptimizer {
    gamma: f64,
    /// `u` and `aQd` increase with `t` (ODT) rather than decrease (OB): the direction of the repair.
    increasing: bool,
    estimator: Estimator,
    first_step: i64,
    l_min: i64,
    /// `t(0)·α^l` for `l` in `[l_min, l_max]`.
    grid: Vec<f64>,
    /// The current index `l(k)` and the previous one `l(k−1)`, as offsets into `grid`.
    l: usize,
    l_prev: Option<usize>,
    /// The circular window `aug` of the last `W0` indices, its next slot and its fill.
    aug: Vec<usize>,
    aug_next: usize,
    aug_len: usize,
    /// Per index: visits in the window `n_`, estimates `û`, `d̂`, and whether an estimate exists.
    n: Vec<u32>,
    u: Vec<f64>,
    d: Vec<f64>,
    seen: Vec<bool>,
    periods: u64,
    sum_t: f64,
}

/// Why a grid cannot be built: which bound is wrong.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GridError {
    /// `t(0)` is outside `[t_min, t_max]`.
    Initial,
    /// Fewer than two grid points in the range, or more than a million.
    Range,
}

impl GridOptimizer {
    /// A search from `t0` over `[t_min, t_max]`; `increasing` for ODT, not for OB.
    pub fn new(
        t0: f64,
        t_min: f64,
        t_max: f64,
        increasing: bool,
        tuning: &Tuning,
    ) -> Result<Self, GridError> {
        if !(t0.is_finite() && t_min > 0.0 && t_min <= t0 && t0 <= t_max && t_max.is_finite()) {
            return Err(GridError::Initial);
        }
        let a = tuning.alpha;
        let value = |l: i64| {
            let p = powi_exact(a, l.unsigned_abs());
            if l >= 0 {
                t0 * p
            } else {
                t0 / p
            }
        };
        // Start from the logarithms, then settle by exact comparisons (so the bounds do not depend on libm).
        let guess =
            |x: f64| ((x / t0).ln() / a.ln()).round().clamp(-(MAX_GRID as f64), MAX_GRID as f64) as i64;
        let mut l_min = guess(t_min).min(0);
        while l_min < 0 && value(l_min) < t_min {
            l_min += 1;
        }
        while l_min > -MAX_GRID && value(l_min - 1) >= t_min {
            l_min -= 1;
        }
        let mut l_max = guess(t_max).max(0);
        while l_max > 0 && value(l_max) > t_max {
            l_max -= 1;
        }
        while l_max < MAX_GRID && value(l_max + 1) <= t_max {
            l_max += 1;
        }
        if l_max <= l_min || l_max - l_min >= MAX_GRID {
            return Err(GridError::Range);
        }
        let size = (l_max - l_min + 1) as usize;
        Ok(GridOptimizer {
            gamma: tuning.gamma,
            increasing,
            estimator: tuning.estimator,
            first_step: match tuning.first_step {
                FirstStep::Up => 1,
                FirstStep::Down => -1,
            },
            l_min,
            grid: (l_min..=l_max).map(value).collect(),
            l: (-l_min) as usize,
            l_prev: None,
            aug: vec![0; tuning.window],
            aug_next: 0,
            aug_len: 0,
            n: vec![0; size],
            u: vec![0.0; size],
            d: vec![0.0; size],
            seen: vec![false; size],
            periods: 0,
            sum_t: 0.0,
        })
    }

    /// The current value `t(k)`.
    pub fn value(&self) -> f64 {
        self.grid[self.l]
    }

    /// The current grid index `l(k)` (0 at `t(0)`).
    /// The largest value of the grid.
    pub fn max_value(&self) -> f64 {
        self.grid.last().copied().unwrap_or(0.0)
    }

    pub fn index(&self) -> i64 {
        self.l as i64 + self.l_min
    }

    /// The value at grid index `l`.
    pub fn value_at(&self, l: i64) -> Option<f64> {
        self.slot(l).map(|j| self.grid[j])
    }

    /// `(n_, û, d̂)` at grid index `l`, if it has an estimate.
    pub fn estimate(&self, l: i64) -> Option<(u32, f64, f64)> {
        let j = self.slot(l)?;
        self.seen[j].then(|| (self.n[j], self.u[j], self.d[j]))
    }

    /// The estimated benefit `B̂(l) = û(l) − γ·d̂(l)`.
    pub fn benefit(&self, l: i64) -> Option<f64> {
        self.estimate(l).map(|(_, u, d)| u - self.gamma * d)
    }

    /// Sampling periods completed.
    pub fn periods(&self) -> u64 {
        self.periods
    }

    /// The mean of `t` over every completed period.
    pub fn run_mean(&self) -> f64 {
        if self.periods == 0 {
            self.value()
        } else {
            self.sum_t / self.periods as f64
        }
    }

    /// The mean of `t` over the periods in the window (the last `W0`).
    pub fn window_mean(&self) -> f64 {
        if self.aug_len == 0 {
            return self.value();
        }
        self.aug[..self.aug_len].iter().map(|&j| self.grid[j]).sum::<f64>() / self.aug_len as f64
    }

    /// The optimiser's state for a port's `queue_state`: its value, window mean and run mean under
    /// `names` (`t` is a limit or a probability), the window's spread in grid steps and the periods.
    pub fn report(&self, out: &mut BTreeMap<String, f64>, names: [&str; 3]) {
        let [value, window_mean, run_mean] = names;
        out.insert(value.into(), self.value());
        out.insert(window_mean.into(), self.window_mean());
        out.insert(run_mean.into(), self.run_mean());
        out.insert("window_sd_steps".into(), self.window_sd_steps());
        out.insert("periods".into(), self.periods() as f64);
    }

    /// The standard deviation of the grid index over the periods in the window (the last `W0`), in grid
    /// steps: how far `t` wanders around its window mean, in units of `ln α` (0 before two periods).
    pub fn window_sd_steps(&self) -> f64 {
        if self.aug_len < 2 {
            return 0.0;
        }
        let k = self.aug_len as f64;
        let idx = &self.aug[..self.aug_len];
        let mean = idx.iter().map(|&j| j as f64).sum::<f64>() / k;
        let ss = idx.iter().map(|&j| (j as f64 - mean) * (j as f64 - mean)).sum::<f64>();
        (ss / (k - 1.0)).sqrt()
    }

    fn slot(&self, l: i64) -> Option<usize> {
        let j = l.checked_sub(self.l_min)?;
        (0..self.grid.len() as i64).contains(&j).then_some(j as usize)
    }

    fn b(&self, j: usize) -> f64 {
        self.u[j] - self.gamma * self.d[j]
    }

    /// The end of sampling period k with its measured utilization `ũ(k)` and delay `d̃(k)` (s): update the
    /// estimates at `l(k)` and take one MIMD step. Returns `t(k+1)`.
    pub fn end_of_period(&mut self, u_k: f64, d_k: f64) -> f64 {
        let i = self.l;
        self.periods += 1;
        self.sum_t += self.grid[i];
        // The window of the last W0 indices (eq. before 12).
        if self.aug_len == self.aug.len() {
            self.n[self.aug[self.aug_next]] -= 1;
        } else {
            self.aug_len += 1;
        }
        self.aug[self.aug_next] = i;
        self.aug_next = (self.aug_next + 1) % self.aug.len();
        self.n[i] += 1;
        // Eq. 12.
        let w = 1.0 / self.n[i] as f64;
        let (keep, new) = match self.estimator {
            Estimator::RunningMean => (1.0 - w, w),
            Estimator::AsPrinted => (w, 1.0 - w),
        };
        if self.seen[i] {
            self.u[i] = keep * self.u[i] + new * u_k;
            self.d[i] = keep * self.d[i] + new * d_k;
        } else {
            (self.u[i], self.d[i], self.seen[i]) = (u_k, d_k, true);
        }
        // Eq. 13-14.
        repair(&mut self.u, &self.n, i, self.increasing);
        repair(&mut self.d, &self.n, i, self.increasing);
        // Eq. 9-11 / 18-20.
        let mut step = match self.l_prev {
            None => self.first_step,
            Some(p) => {
                let moved = if i > p { 1.0 } else { -1.0 };
                if (self.b(i) - self.b(p)) * moved >= 0.0 {
                    1
                } else {
                    -1
                }
            }
        };
        let next = i as i64 + step;
        if next < 0 || next >= self.grid.len() as i64 {
            step = -step;
        }
        self.l_prev = Some(i);
        self.l = (i as i64 + step) as usize;
        self.value()
    }
}

/// Eq. 13 (or 14) at index `i` of `est`: if `est[i]` breaks the expected order against a neighbour visited
/// in the window, replace it by the `n_`-weighted mean over `i−1, i, i+1`.
fn repair(est: &mut [f64], n: &[u32], i: usize, increasing: bool) {
    let lo = i.checked_sub(1).filter(|&j| n[j] > 0);
    let hi = Some(i + 1).filter(|&j| j < n.len() && n[j] > 0);
    let x = est[i];
    let below_lo = lo.is_some_and(|j| if increasing { x < est[j] } else { x > est[j] });
    let above_hi = hi.is_some_and(|j| if increasing { x > est[j] } else { x < est[j] });
    if below_lo || above_hi {
        let (mut sum, mut weight) = (n[i] as f64 * x, n[i] as f64);
        for j in [lo, hi].into_iter().flatten() {
            sum += n[j] as f64 * est[j];
            weight += n[j] as f64;
        }
        est[i] = sum / weight;
    }
}

/// The per-period measurements of §2.3: bytes transmitted, arrivals and their potential queueing delays.
#[derive(Clone, Debug)]
pub struct Meter {
    rate_bps: f64,
    interval: Time,
    delay_of: DelayOf,
    /// Nothing measured before the first arrival (the first period starts there).
    started: bool,
    period_start: Time,
    /// Transmission time started in this period (`NmbBytes / C`), and when the packet in service ends.
    busy: Time,
    busy_until: Time,
    /// `NmbArrivals` (those the delay averages over) and `TotQDelay` (s).
    arrivals: u64,
    total_delay: f64,
}

impl Meter {
    pub fn new(rate_bps: f64, tuning: &Tuning) -> Self {
        Meter {
            rate_bps,
            interval: tuning.interval,
            delay_of: tuning.delay_of,
            started: false,
            period_start: 0,
            busy: 0,
            busy_until: 0,
            arrivals: 0,
            total_delay: 0.0,
        }
    }

    /// The queueing delay an arrival at `now` would see behind `backlog` bytes waiting: their transmission
    /// plus what remains of the packet in service.
    pub fn potential_delay(&self, now: Time, backlog: u64) -> f64 {
        backlog as f64 * 8.0 / self.rate_bps + to_secs(self.busy_until.saturating_sub(now))
    }

    /// An arrival at `now` that found `backlog` bytes waiting, and whether it was queued.
    #[inline]
    pub fn on_arrival(&mut self, now: Time, backlog: u64, accepted: bool) {
        if !self.started {
            self.started = true;
            self.period_start = now;
        }
        if accepted || self.delay_of == DelayOf::AllArrivals {
            self.arrivals += 1;
            self.total_delay += self.potential_delay(now, backlog);
        }
    }

    /// A packet of `size` bytes goes into service at `now`.
    #[inline]
    pub fn on_service(&mut self, now: Time, size: u32) {
        let tx = serialization(size, self.rate_bps);
        self.busy += tx;
        self.busy_until = now + tx;
    }

    /// The sampling period Δ.
    pub fn interval(&self) -> Time {
        self.interval
    }

    /// When the current period ends (none before the first arrival).
    pub fn period_end(&self) -> Option<Time> {
        self.started.then_some(self.period_start + self.interval)
    }

    /// The discipline's timer fired at `now`: the period's `(ũ, d̃)` if it has ended ([`Meter::end_period`]).
    pub fn end_if_due(&mut self, now: Time) -> Option<(f64, f64)> {
        self.period_end().is_some_and(|end| now >= end).then(|| self.end_period(now))
    }

    /// Close the period at `now`: `(ũ, d̃)`, the fraction of the period the link transmitted (the part of a
    /// packet still in service counts in the next period) and the mean potential delay (0 without arrivals).
    pub fn end_period(&mut self, now: Time) -> (f64, f64) {
        let carry = self.busy_until.saturating_sub(now);
        let length = now.saturating_sub(self.period_start).max(1);
        let u = (self.busy.saturating_sub(carry)) as f64 / length as f64;
        let d = if self.arrivals == 0 { 0.0 } else { self.total_delay / self.arrivals as f64 };
        self.busy = carry;
        self.arrivals = 0;
        self.total_delay = 0.0;
        self.period_start = now;
        (u, d)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::from_secs;

    fn tuning(alpha: f64, window: usize) -> Tuning {
        Tuning {
            gamma: 10.0,
            interval: from_secs(2.0),
            alpha,
            window,
            first_step: FirstStep::Up,
            estimator: Estimator::RunningMean,
            delay_of: DelayOf::AllArrivals,
        }
    }

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-12
    }

    #[test]
    fn grid_spans_the_range_exactly() {
        let o = GridOptimizer::new(1000.0, 1000.0, 10_000.0, true, &tuning(2.0, 30)).unwrap();
        assert_eq!((o.value_at(0), o.value_at(3), o.value_at(4)), (Some(1000.0), Some(8000.0), None));
        assert_eq!(o.value_at(-1), None);
        let o = GridOptimizer::new(0.002, 1e-6, 1.0, false, &tuning(1.05, 30)).unwrap();
        // 0.002·1.05^l <= 1  <=>  l <= ln(500)/ln(1.05) = 127.37; >= 1e-6  <=>  l >= -155.8
        assert!(o.value_at(127).is_some() && o.value_at(128).is_none());
        assert!(o.value_at(-155).is_some() && o.value_at(-156).is_none());
        // The paper's memory example (Sec. 4): 1.01^2000 ≈ 4.39e8 bytes from one byte in 2000 points.
        let o = GridOptimizer::new(1.0, 1.0, 4.4e8, true, &tuning(1.01, 30)).unwrap();
        assert!(o.value_at(2000).is_some() && o.value_at(2001).is_none());
        assert!((o.value_at(2000).unwrap() - 4.3929e8).abs() / 4.3929e8 < 1e-4);
        assert_eq!(GridOptimizer::new(5.0, 1.0, 4.0, true, &tuning(2.0, 3)).unwrap_err(), GridError::Initial);
        assert_eq!(GridOptimizer::new(3.0, 2.0, 5.0, true, &tuning(2.0, 3)).unwrap_err(), GridError::Range);
    }

    #[test]
    fn steps_follow_the_sign_of_the_measured_slope() {
        // α = 2, t(0) = 1000 B, γ = 10: hand-computed B̂ = û − 10·d̂ at every step.
        let mut o = GridOptimizer::new(1000.0, 1000.0, 1e6, true, &tuning(2.0, 30)).unwrap();
        // k=0 at l=0: B̂(0) = 0.5 − 0.1 = 0.4; no previous index: first step up.
        assert_eq!(o.end_of_period(0.5, 0.01), 2000.0);
        // k=1 at l=1: B̂(1) = 0.8 − 0.2 = 0.6 > 0.4 after moving up: up again.
        assert_eq!(o.end_of_period(0.8, 0.02), 4000.0);
        // k=2 at l=2: B̂(2) = 0.9 − 0.4 = 0.5 < 0.6 after moving up: down.
        assert_eq!(o.end_of_period(0.9, 0.04), 2000.0);
        // k=3 at l=1 (n = 2): û(1) = ½·0.8 + ½·0.7 = 0.75, B̂(1) = 0.55 > B̂(2) = 0.5 after moving down: down.
        assert_eq!(o.end_of_period(0.7, 0.02), 1000.0);
        let (n, u, d) = o.estimate(1).unwrap();
        assert_eq!(n, 2);
        assert!(close(u, 0.75) && close(d, 0.02));
        // k=4 at l=0 (n = 2): û(0) = 0.55, d̂(0) = 0.0075, B̂(0) = 0.475 < B̂(1) = 0.55 after moving down: up.
        assert_eq!(o.end_of_period(0.6, 0.005), 2000.0);
        let (_, u, d) = o.estimate(0).unwrap();
        assert!(close(u, 0.55) && close(d, 0.0075));
        assert!(close(o.benefit(0).unwrap(), 0.475));
        // k=5 at l=1 (n = 3): û(1) = ⅔·0.75 + ⅓·0.1 = 0.5333 < û(0) = 0.55 breaks the order, so eq. 13
        // gives û(1) = (2·0.55 + 3·0.5333 + 1·0.9) / 6 = 0.6; d̂(1) = 0.02 is in order. B̂(1) = 0.4 < B̂(0) =
        // 0.475 after moving up: down.
        assert_eq!(o.end_of_period(0.1, 0.02), 1000.0);
        let (n, u, d) = o.estimate(1).unwrap();
        assert_eq!(n, 3);
        assert!(close(u, 0.6) && close(d, 0.02), "{u} {d}");
        assert_eq!((o.index(), o.periods()), (0, 6));
        // The window holds the indices 0, 1, 2, 1, 0, 1: mean 5/6, sample variance (17/6) / 5.
        assert!(close(o.window_sd_steps(), (17.0f64 / 30.0).sqrt()), "{}", o.window_sd_steps());
        assert!(close(o.run_mean(), (1000.0 + 2000.0 + 4000.0 + 2000.0 + 1000.0 + 2000.0) / 6.0));
    }

    #[test]
    fn equal_benefits_step_up_and_the_first_step_is_configurable() {
        let mut t = tuning(2.0, 30);
        t.first_step = FirstStep::Down;
        let mut o = GridOptimizer::new(4000.0, 1000.0, 1e6, true, &t).unwrap();
        assert_eq!(o.end_of_period(0.5, 0.0), 2000.0);
        // ΔB = 0: the ratio of eq. 9 is 0, "≥ 0" gives m = α.
        assert_eq!(o.end_of_period(0.5, 0.0), 4000.0);
    }

    #[test]
    fn steps_out_of_the_range_are_reflected() {
        let mut o = GridOptimizer::new(1000.0, 1000.0, 4000.0, true, &tuning(2.0, 30)).unwrap();
        // Benefit keeps rising with t: up, up, then the top (l = 2) reflects down.
        assert_eq!(o.end_of_period(0.1, 0.0), 2000.0);
        assert_eq!(o.end_of_period(0.2, 0.0), 4000.0);
        assert_eq!(o.end_of_period(0.3, 0.0), 2000.0);
        // B̂(1) = 0.2 < B̂(2) after moving down: up again.
        assert_eq!(o.end_of_period(0.2, 0.0), 4000.0);
    }

    #[test]
    fn the_window_forgets_indices_not_visited_for_w0_periods() {
        // W0 = 2: when index 0 comes back after its visit left the window, its count restarts at 1 and the new
        // sample replaces the estimate.
        let mut o = GridOptimizer::new(1000.0, 1000.0, 1e6, true, &tuning(2.0, 2)).unwrap();
        o.end_of_period(0.5, 0.0); // k=0 at l=0: B̂ = 0.5, first step up
        o.end_of_period(0.6, 0.05); // k=1 at l=1: B̂ = 0.1 < 0.5 after moving up: down
        assert_eq!(o.estimate(0).unwrap().0, 1);
        o.end_of_period(0.55, 0.0); // k=2 at l=0: the window holds k=1, 2 (indices 1, 0)
        let (n, u, _) = o.estimate(0).unwrap();
        assert_eq!(n, 1);
        assert!(close(u, 0.55), "{u}");
        assert_eq!(o.estimate(1).unwrap().0, 1);
    }

    #[test]
    fn the_printed_weights_keep_a_stale_estimate() {
        let mut t = tuning(2.0, 2);
        t.estimator = Estimator::AsPrinted;
        let mut o = GridOptimizer::new(1000.0, 1000.0, 1e6, true, &t).unwrap();
        o.end_of_period(0.5, 0.0);
        o.end_of_period(0.6, 0.05);
        o.end_of_period(0.55, 0.0);
        // n_(0) = 1: û ← 1·û + 0·ũ, the old 0.5 stays.
        assert!(close(o.estimate(0).unwrap().1, 0.5));
        // B̂(0) = 0.5 > B̂(1) = 0.1 after moving down: down would leave the range, so up.
        assert_eq!(o.value(), 2000.0);
        // Index 1's earlier visit has just left the window: n_(1) = 1 again, and the stale 0.6 stays.
        o.end_of_period(0.8, 0.05);
        assert_eq!(o.estimate(1).unwrap().0, 1);
        assert!(close(o.estimate(1).unwrap().1, 0.6));
    }

    #[test]
    fn ob_repairs_in_the_decreasing_direction() {
        // For OB, u falls with t_p: û(i) above û(i−1) breaks the order.
        let mut o = GridOptimizer::new(0.004, 0.001, 1.0, false, &tuning(2.0, 30)).unwrap();
        o.end_of_period(0.9, 0.01); // l=0 (0.004), first step up
        assert_eq!(o.value(), 0.008);
        // At l=1 a utilization above û(0) = 0.9 is out of order: (1·0.9 + 1·0.95) / 2 = 0.925.
        o.end_of_period(0.95, 0.005);
        let (_, u, d) = o.estimate(1).unwrap();
        assert!(close(u, 0.925) && close(d, 0.005));
        // B̂(1) = 0.925 − 0.05 = 0.875 > B̂(0) = 0.8 after moving up: up.
        assert_eq!(o.value(), 0.016);
    }

    #[test]
    fn noiseless_concave_benefit_ends_in_the_four_cycle_of_theorem_1() {
        // B(t) = 1 − e^(−t/a) − γ·t/C: concave, maximal at t* = a·ln(C/(a·γ)).
        let (a, c, gamma) = (50_000.0f64, 1e7f64, 10.0f64);
        let t_star = a * (c / (a * gamma)).ln();
        for (t0, alpha) in [(10_000.0, 1.05), (1e6, 1.05), (100_000.0, 1.2)] {
            let mut o = GridOptimizer::new(t0, 1000.0, 1e7, true, &tuning(alpha, 30)).unwrap();
            let mut trace = vec![];
            for _ in 0..300 {
                let t = o.value();
                trace.push(t);
                o.end_of_period(1.0 - (-t / a).exp(), t / c);
            }
            let tail = &trace[trace.len() - 8..];
            // t̄, t̄α, t̄, t̄/α, repeated.
            let bar = if tail[0] == tail[2] { tail[0] } else { tail[1] };
            let cycle: Vec<f64> = tail.iter().map(|x| (x / bar).ln() / alpha.ln()).collect();
            let rounded: Vec<i64> = cycle.iter().map(|x| x.round() as i64).collect();
            assert!(
                rounded.windows(4).all(|w| w.iter().sum::<i64>() == 0 && w.contains(&1) && w.contains(&-1)),
                "{t0} {alpha}: {rounded:?}"
            );
            assert!(((bar - t_star) / t_star).abs() < alpha - 1.0, "{t0} {alpha}: {bar} vs {t_star}");
        }
    }

    #[test]
    fn noisy_measurements_keep_the_search_around_the_optimum() {
        // The same concave benefit, with utilization and delay samples perturbed by uniform noise of ±0.02
        // and ±20 %: the window estimates still centre the search on t*.
        let (a, c, gamma) = (50_000.0f64, 1e7f64, 10.0f64);
        let t_star = a * (c / (a * gamma)).ln();
        let mut rng = crate::rng::Rng::new(5, 1);
        let mut o = GridOptimizer::new(20_000.0, 1000.0, 1e7, true, &tuning(1.05, 30)).unwrap();
        let mut logs = vec![];
        for _ in 0..3000 {
            let t = o.value();
            logs.push(t.ln());
            let u = 1.0 - (-t / a).exp() + rng.uniform_in(-0.02, 0.02);
            let d = t / c * rng.uniform_in(0.8, 1.2);
            o.end_of_period(u, d);
        }
        let late = &logs[1000..];
        let mean = late.iter().sum::<f64>() / late.len() as f64;
        assert!((mean - t_star.ln()).abs() < 2.0 * 1.05f64.ln(), "{} vs {t_star}", mean.exp());
    }

    #[test]
    fn meter_measures_transmission_and_potential_delay() {
        // 8 Mb/s: a 1000-byte packet takes 1 ms.
        let t = tuning(2.0, 30);
        let mut m = Meter::new(8e6, &t);
        assert_eq!(m.period_end(), None);
        let ms = from_secs(1e-3);
        // Three arrivals at 1 ms: the first finds nothing (and goes straight into service), the second the
        // rest of the first (1 ms), the third one packet waiting plus the one in service (2 ms).
        m.on_arrival(ms, 0, true);
        m.on_service(ms, 1000);
        m.on_arrival(ms, 0, true);
        m.on_arrival(ms, 1000, true);
        // A fourth, dropped, found 2 packets and 1 ms: 3 ms.
        m.on_arrival(ms, 2000, false);
        assert_eq!(m.period_end(), Some(ms + from_secs(2.0)));
        m.on_service(2 * ms, 1000);
        m.on_service(3 * ms, 1000);
        // The period ends at 3.5 ms: 2.5 ms of transmission over a 2.5 ms period.
        let (u, d) = m.end_period(3 * ms + ms / 2);
        assert!(close(u, 1.0), "{u}");
        assert!(close(d, 1.5e-3), "{d}");
        // Half of the last packet is carried into the next period.
        let (u, d) = m.end_period(5 * ms + ms / 2);
        assert!(close(u, 0.25) && d == 0.0, "{u}");
        let mut t = t;
        t.delay_of = DelayOf::Accepted;
        let mut m = Meter::new(8e6, &t);
        m.on_arrival(0, 0, true);
        m.on_arrival(0, 3000, false);
        assert_eq!(m.end_period(ms).1, 0.0);
    }
}
