//! A UDP source feeding the bottleneck directly (no access link): fixed-size packets at a mean rate, with
//! exponential (Poisson) or constant (CBR) gaps, between a start and a stop time.

use crate::rng::Rng;
use crate::time::{from_secs, Time, NEVER};

/// How packets are spaced (`udp[i].pattern`: `"poisson"` or `"cbr"`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Deserialize, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ArrivalPattern {
    /// Exponential gaps: a Poisson process.
    Poisson,
    /// Constant gaps.
    Cbr,
}

/// One source and its counters.
#[derive(Clone, Debug)]
pub struct UdpSource {
    pub pattern: ArrivalPattern,
    pub packet_size: u32,
    /// Mean gap between packets, seconds.
    mean_gap: f64,
    pub start: Time,
    pub stop: Time,
    rng: Rng,
    pub sent: u64,
    /// Packets delivered in the measurement window, and those dropped.
    pub delivered: u64,
    pub drops: u64,
}

impl UdpSource {
    pub fn new(
        pattern: ArrivalPattern,
        rate_bps: f64,
        packet_size: u32,
        start: Time,
        stop: Time,
        rng: Rng,
    ) -> Self {
        let mean_gap = packet_size as f64 * 8.0 / rate_bps;
        UdpSource { pattern, packet_size, mean_gap, start, stop, rng, sent: 0, delivered: 0, drops: 0 }
    }

    /// When the packet after one sent at `now` goes out (`NEVER` past the stop time).
    pub fn next_after(&mut self, now: Time) -> Time {
        let gap = match self.pattern {
            ArrivalPattern::Poisson => -self.mean_gap * (1.0 - self.rng.uniform()).ln(),
            ArrivalPattern::Cbr => self.mean_gap,
        };
        let next = now.saturating_add(from_secs(gap).max(1));
        if next >= self.stop {
            NEVER
        } else {
            next
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::to_secs;

    #[test]
    fn poisson_gaps_have_the_right_mean_and_variance() {
        let mut s = UdpSource::new(ArrivalPattern::Poisson, 8e6, 1000, 0, NEVER, Rng::new(1, 40));
        let n = 100_000;
        let mut t = 0;
        let mut gaps = Vec::with_capacity(n);
        for _ in 0..n {
            let next = s.next_after(t);
            gaps.push(to_secs(next - t));
            t = next;
        }
        let mean = gaps.iter().sum::<f64>() / n as f64;
        let var = gaps.iter().map(|g| (g - mean) * (g - mean)).sum::<f64>() / n as f64;
        assert!((mean - 1e-3).abs() < 1e-5, "{mean}");
        assert!((var.sqrt() / mean - 1.0).abs() < 0.02, "cv {}", var.sqrt() / mean);
    }

    #[test]
    fn cbr_is_periodic_and_stops() {
        let mut s = UdpSource::new(ArrivalPattern::Cbr, 8e6, 1000, 0, from_secs(0.0025), Rng::new(1, 40));
        assert_eq!(s.next_after(0), from_secs(0.001));
        assert_eq!(s.next_after(from_secs(0.001)), from_secs(0.002));
        assert_eq!(s.next_after(from_secs(0.002)), NEVER);
    }
}
