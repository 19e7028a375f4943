//! Incast rounds: each round's request completion time (RCT, from the request to the acknowledgement of the
//! last response's last segment) and the goodput it gives, in bounded memory.

use super::{LogHistogram, Moments};
use crate::time::{to_secs, Time};

/// The rounds of one incast group that started and ended inside the measurement window.
#[derive(Clone, Debug, Default)]
pub struct RoundStats {
    rct: Moments,
    hist: LogHistogram,
    max: Time,
    bytes: u64,
    time: Time,
}

impl RoundStats {
    /// A round that moved `bytes` of responses in `rct`.
    pub fn add(&mut self, bytes: u64, rct: Time) {
        self.rct.add(to_secs(rct));
        self.hist.add(rct);
        self.max = self.max.max(rct);
        self.bytes += bytes;
        self.time += rct;
    }

    pub fn count(&self) -> u64 {
        self.rct.count()
    }

    pub fn mean_s(&self) -> f64 {
        self.rct.mean()
    }

    /// The q-quantile of the RCT, seconds (to the histogram's 0.8 %, and at most the largest).
    pub fn quantile_s(&self, q: f64) -> f64 {
        to_secs((self.hist.quantile(q).round() as Time).min(self.max))
    }

    pub fn max_s(&self) -> f64 {
        to_secs(self.max)
    }

    /// The bytes the measured rounds moved over the time they took, bits/s (the request gaps excluded).
    pub fn goodput_bps(&self) -> f64 {
        self.bytes as f64 * 8.0 / to_secs(self.time)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::from_secs;

    #[test]
    fn rct_statistics_and_goodput() {
        let mut r = RoundStats::default();
        for (bytes, ms) in [(1000u64, 1.0), (1000, 3.0), (2000, 2.0)] {
            r.add(bytes, from_secs(ms / 1000.0));
        }
        assert_eq!(r.count(), 3);
        assert!((r.mean_s() - 0.002).abs() < 1e-15);
        assert_eq!(r.max_s(), 0.003);
        // 4000 B in 6 ms.
        assert!((r.goodput_bps() - 4000.0 * 8.0 / 0.006).abs() < 1e-6);
        let p50 = r.quantile_s(0.5);
        assert!((p50 - 0.002).abs() < 0.002 * 0.01, "{p50}");
        assert!(r.quantile_s(1.0) <= r.max_s(), "never above the largest");
    }
}
