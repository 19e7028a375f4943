//! Streaming statistics: everything here has a size fixed by its configuration or by the largest queue
//! seen, never by simulated time. Sampled time series are the one exception the user asks for.

pub mod fct;
pub mod histogram;
pub mod stats;

pub use fct::FctStats;
pub use histogram::{LogHistogram, TimeWeightedCounts};
pub use stats::{FlowStats, PortStats, ReasonCounts};

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
        self.mean += d / self.n as f64;
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
