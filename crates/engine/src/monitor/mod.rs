//! Streaming statistics: everything here has a size fixed by its configuration or by the largest queue
//! seen, never by simulated time. Sampled time series are the one exception the user asks for.

pub mod fct;
pub mod histogram;
pub mod rounds;
pub mod stats;

use crate::time::Time;

pub use fct::FctStats;
pub use histogram::{LogHistogram, TimeWeightedCounts};
pub use rounds::RoundStats;
pub use stats::{FlowStats, PortStats, ReasonCounts};

/// The measurement window `[warmup, duration]`: statistics count only inside it. It opens when the
/// warm-up ends (the loop's `WarmupEnd` event); a packet counts by when it arrives, a flow's completion
/// by when it started and ended.
#[derive(Clone, Copy, Debug)]
pub struct Window {
    warmup: Time,
    duration: Time,
    open: bool,
}

impl Window {
    pub fn new(warmup: Time, duration: Time) -> Self {
        Window { warmup, duration, open: false }
    }

    /// The warm-up is over.
    pub fn open(&mut self) {
        self.open = true;
    }

    /// Whether the warm-up is over (an event now counts).
    #[inline(always)]
    pub fn is_open(&self) -> bool {
        self.open
    }

    /// Whether something arriving at `at` (possibly ahead of the loop's clock) counts.
    #[inline(always)]
    pub fn counts(&self, at: Time) -> bool {
        self.open && at >= self.warmup
    }

    /// Whether a flow started at `start` and completed at `end` counts in the FCT statistics.
    pub fn holds(&self, start: Time, end: Time) -> bool {
        end <= self.duration && start >= self.warmup
    }
}

/// Running mean and variance (Welford 1962), numerically stable.
#[derive(Clone, Copy, Debug, Default)]
pub struct Moments {
    n: u64,
    mean: f64,
    m2: f64,
}

impl Moments {
    pub fn add(&mut self, x: f64) {
        self.n += 1;
        let d = x - self.mean;
        self.mean += d / crate::time::exact_f64(self.n);
        self.m2 += d * (x - self.mean);
    }
    pub fn count(&self) -> u64 {
        self.n
    }
    pub fn mean(&self) -> f64 {
        if self.n == 0 {
            0.0
        } else {
            self.mean
        }
    }
    /// Population standard deviation.
    pub fn std(&self) -> f64 {
        if self.n == 0 {
            0.0
        } else {
            (self.m2 / self.n as f64).sqrt()
        }
    }
}

/// Jain's fairness index (Σx)² / (n·Σx²); 1 when all equal, 1/n when one takes everything.
pub fn jain_index(xs: &[f64]) -> f64 {
    let s: f64 = xs.iter().sum();
    let s2: f64 = xs.iter().map(|x| x * x).sum();
    if s2 == 0.0 {
        1.0
    } else {
        s * s / (xs.len() as f64 * s2)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn moments_match_two_pass() {
        let xs = [1.0, 2.0, 4.0, 8.0, 16.0];
        let mut m = Moments::default();
        xs.iter().for_each(|&x| m.add(x));
        let mean = xs.iter().sum::<f64>() / 5.0;
        let var = xs.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / 5.0;
        assert!((m.mean() - mean).abs() < 1e-12);
        assert!((m.std() - var.sqrt()).abs() < 1e-12);
    }

    #[test]
    fn jain_extremes() {
        assert_eq!(jain_index(&[3.0, 3.0, 3.0]), 1.0);
        assert_eq!(jain_index(&[1.0, 0.0, 0.0, 0.0]), 0.25);
    }
}
