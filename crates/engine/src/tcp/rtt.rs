//! The retransmission timer's estimator (RFC 6298): SRTT and RTTVAR with gains 1/8 and 1/4,
//! RTO = SRTT + max(G, 4·RTTVAR) clamped to [min_rto, max_rto], doubled on each expiry (§5.5) until a new
//! valid sample arrives. Karn's rule (samples only from never-retransmitted segments) is the sender's job.

use crate::time::{exact_secs, from_secs, to_secs, Time};

#[derive(Clone, Debug)]
pub struct RttEstimator {
    srtt: f64,
    rttvar: f64,
    base_rto: Time,
    backoff: u32,
    has_sample: bool,
    /// ns-3's `m_lastRtt`: see [`RttEstimator::last_rtt`]; 0 until the first.
    last_rtt: Time,
    min: Time,
}

impl Default for RttEstimator {
    /// An estimator with no sample and a 1 s initial timeout (RFC 6298 §2.1).
    fn default() -> Self {
        RttEstimator::new(&RtoBounds { initial: from_secs(1.0), min: 0, max: Time::MAX, granularity: 0 })
    }
}

/// The timer's bounds.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RtoBounds {
    pub initial: Time,
    pub min: Time,
    pub max: Time,
    pub granularity: Time,
}

impl RttEstimator {
    pub fn new(b: &RtoBounds) -> Self {
        RttEstimator {
            srtt: 0.0,
            rttvar: 0.0,
            base_rto: b.initial,
            backoff: 0,
            has_sample: false,
            last_rtt: 0,
            min: Time::MAX,
        }
    }

    pub fn sample(&mut self, r: Time, b: &RtoBounds) {
        self.min = self.min.min(r);
        let r = exact_secs(r);
        if self.has_sample {
            self.rttvar = 0.75 * self.rttvar + 0.25 * (self.srtt - r).abs();
            self.srtt = 0.875 * self.srtt + 0.125 * r;
        } else {
            self.srtt = r;
            self.rttvar = r / 2.0;
            self.has_sample = true;
        }
        let rto = from_secs(self.srtt + (4.0 * self.rttvar).max(to_secs(b.granularity)));
        self.base_rto = rto.clamp(b.min, b.max);
        self.backoff = 0;
    }

    /// The current timeout, with exponential backoff.
    pub fn rto(&self, b: &RtoBounds) -> Time {
        self.base_rto.saturating_mul(1u64 << self.backoff.min(30)).min(b.max)
    }

    /// Forget the backoff without a new sample (ns-3 3.44 does this on every new cumulative ACK).
    pub fn clear_backoff(&mut self) {
        self.backoff = 0;
    }

    pub fn back_off(&mut self) {
        self.backoff = (self.backoff + 1).min(30);
    }

    /// The smoothed RTT, seconds, once there is a sample.
    pub fn srtt(&self) -> Option<f64> {
        self.has_sample.then_some(self.srtt)
    }

    /// Record the RTT of the newest segment an ACK covers (or of the handshake).
    pub fn set_last_rtt(&mut self, r: Time) {
        self.last_rtt = r;
    }

    /// The RTT of the newest segment the latest cumulative ACK covered that was never retransmitted nor
    /// sent before a timeout (the handshake's before any), kept from ACK to ACK until another such segment
    /// is covered: ns-3 3.44's `TcpSocketState::m_lastRtt` (`TcpSocketBase::EstimateRtt`'s latest
    /// transmitted history entry; `ReTxTimeout` clears the history). Kept only for a sender whose
    /// controller reads it (BBR's minimum-RTT filter). The timer's sample is the *oldest* covered
    /// segment's (RFC 6298 §3), one packet gap or a whole repaired hole longer.
    pub fn last_rtt(&self) -> Option<Time> {
        (self.last_rtt > 0).then_some(self.last_rtt)
    }

    /// The smallest sample so far, once there is one.
    pub fn min_rtt(&self) -> Option<Time> {
        self.has_sample.then_some(self.min)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bounds() -> RtoBounds {
        RtoBounds {
            initial: from_secs(1.0),
            min: from_secs(0.2),
            max: from_secs(60.0),
            granularity: from_secs(0.001),
        }
    }

    #[test]
    fn rfc6298_first_and_second_sample() {
        let b = bounds();
        let mut e = RttEstimator::new(&b);
        assert_eq!(e.rto(&b), from_secs(1.0));
        e.sample(from_secs(0.1), &b);
        // SRTT = 0.1, RTTVAR = 0.05, RTO = 0.1 + 0.2 = 0.3
        assert_eq!(e.rto(&b), from_secs(0.3));
        e.sample(from_secs(0.2), &b);
        // RTTVAR = 0.75*0.05 + 0.25*0.1 = 0.0625; SRTT = 0.875*0.1 + 0.125*0.2 = 0.1125; RTO = 0.3625
        assert_eq!(e.rto(&b), from_secs(0.3625));
    }

    #[test]
    fn min_rto_and_backoff() {
        let b = bounds();
        let mut e = RttEstimator::new(&b);
        e.sample(from_secs(0.01), &b);
        assert_eq!(e.rto(&b), from_secs(0.2));
        e.back_off();
        e.back_off();
        assert_eq!(e.rto(&b), from_secs(0.8));
        for _ in 0..20 {
            e.back_off();
        }
        assert_eq!(e.rto(&b), from_secs(60.0));
        e.sample(from_secs(0.01), &b);
        assert_eq!(e.rto(&b), from_secs(0.2));
    }
}
