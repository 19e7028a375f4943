//! Histograms for percentiles in bounded memory.

/// A log-linear histogram of non-negative integers (HdrHistogram's layout): values below 2^`SUB_BITS`
/// are exact, larger ones fall in buckets of relative width at most 2^-`SUB_BITS` (about 0.8%).
#[derive(Clone, Debug, Default)]
pub struct LogHistogram {
    counts: Vec<u64>,
    total: u64,
}

const SUB_BITS: u32 = 7;
const SUB: u64 = 1 << SUB_BITS;

fn bucket_of(v: u64) -> usize {
    if v < SUB {
        v as usize
    } else {
        let exp = 63 - v.leading_zeros() - SUB_BITS; // >= 0
        let mantissa = (v >> exp) - SUB; // in [0, SUB)
        ((exp as u64 + 1) * SUB + mantissa) as usize
    }
}

/// The midpoint of bucket `b`.
fn value_of(b: usize) -> f64 {
    let b = b as u64;
    if b < SUB {
        b as f64
    } else {
        let exp = b / SUB - 1;
        let mantissa = b % SUB + SUB;
        let lo = (mantissa << exp) as f64;
        lo + ((1u64 << exp) as f64 - 1.0) / 2.0
    }
}

impl LogHistogram {
    pub fn add(&mut self, v: u64) {
        let b = bucket_of(v);
        if b >= self.counts.len() {
            self.counts.resize(b + 1, 0);
        }
        self.counts[b] += 1;
        self.total += 1;
    }

    pub fn total(&self) -> u64 {
        self.total
    }

    /// Add every count of `other`.
    pub fn merge(&mut self, other: &LogHistogram) {
        if other.counts.len() > self.counts.len() {
            self.counts.resize(other.counts.len(), 0);
        }
        for (c, o) in self.counts.iter_mut().zip(&other.counts) {
            *c += o;
        }
        self.total += other.total;
    }

    /// The q-quantile (0 ≤ q ≤ 1): the smallest recorded value v with P(X ≤ v) ≥ q, to bucket precision.
    pub fn quantile(&self, q: f64) -> f64 {
        quantile_of(&self.counts, q, value_of)
    }
}

/// Time spent at each integer level (a queue length), for time-weighted percentiles.
#[derive(Clone, Debug, Default)]
pub struct TimeWeightedCounts {
    weights: Vec<u64>,
}

impl TimeWeightedCounts {
    pub fn add(&mut self, level: usize, duration: u64) {
        if level >= self.weights.len() {
            self.weights.resize(level + 1, 0);
        }
        self.weights[level] += duration;
    }

    pub fn quantile(&self, q: f64) -> f64 {
        quantile_of(&self.weights, q, |b| b as f64)
    }

    pub fn max(&self) -> usize {
        self.weights.iter().rposition(|&w| w > 0).unwrap_or(0)
    }
}

fn quantile_of(weights: &[u64], q: f64, value: impl Fn(usize) -> f64) -> f64 {
    let total: u64 = weights.iter().sum();
    if total == 0 {
        return 0.0;
    }
    let target = (q.clamp(0.0, 1.0) * total as f64).ceil().max(1.0) as u64;
    let mut acc = 0;
    for (b, &w) in weights.iter().enumerate() {
        acc += w;
        if acc >= target {
            return value(b);
        }
    }
    value(weights.len() - 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_values_are_exact() {
        let mut h = LogHistogram::default();
        for v in 1..=100 {
            h.add(v);
        }
        assert_eq!(h.quantile(0.5), 50.0);
        assert_eq!(h.quantile(0.99), 99.0);
        assert_eq!(h.quantile(1.0), 100.0);
    }

    #[test]
    fn large_values_within_relative_precision() {
        let mut h = LogHistogram::default();
        for v in 1..=1_000_000u64 {
            h.add(v * 1000);
        }
        for q in [0.1, 0.5, 0.9, 0.99] {
            let exact = q * 1e9;
            assert!((h.quantile(q) - exact).abs() / exact < 0.008, "{q}: {}", h.quantile(q));
        }
    }

    #[test]
    fn bucket_boundaries_are_monotone() {
        let mut last = 0;
        for v in 0..100_000u64 {
            let b = bucket_of(v);
            assert!(b >= last);
            last = b;
        }
    }

    #[test]
    fn time_weighted_median() {
        let mut t = TimeWeightedCounts::default();
        t.add(0, 70);
        t.add(10, 30);
        assert_eq!(t.quantile(0.5), 0.0);
        assert_eq!(t.quantile(0.8), 10.0);
        assert_eq!(t.max(), 10);
    }
}
