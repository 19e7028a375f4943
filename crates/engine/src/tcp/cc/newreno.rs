//! NewReno's window (RFC 5681 §3.1, as ns-3's `TcpNewReno`): Reno growth ([`super::reno_growth`]) and
//! `ssthresh = max(in flight / 2, 2)` on every congestion signal. Loss recovery itself (RFC 6582 /
//! RFC 6675) lives in the sender's state machine. No parameters.

use super::{reno_growth, CcContext, CongestionControl, Controller, Window};
use crate::rng::Rng;
use crate::spec::params::params;
use crate::spec::ScenarioError;

#[derive(Clone, Debug, Default)]
pub struct NewReno;

params! {
    /// NewReno (RFC 5681 §3.1 growth, as ns-3's `TcpNewReno`; RFC 6582 / RFC 6675 recovery in the sender):
    /// `ssthresh = max(in flight / 2, 2)` on every congestion signal. No parameters.
    pub struct Spec {}
}

impl Controller for NewReno {
    type Spec = Spec;
    fn from_spec(_: &Spec, _: &str, _: Rng) -> Result<Self, ScenarioError> {
        Ok(NewReno)
    }
}

impl CongestionControl for NewReno {
    fn on_ack(&mut self, w: &mut Window, acked: u32, ctx: &CcContext) {
        reno_growth(w, acked, 1.0, ctx.whole_bytes);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tcp::cc::{test_context, Signal};

    #[test]
    fn slow_start_then_linear_growth() {
        let mut cc = NewReno;
        let est = crate::tcp::rtt::RttEstimator::default();
        let ctx = test_context(&est, 11);
        let mut w = Window { cwnd: 1.0, ssthresh: 4.0 };
        for _ in 0..3 {
            cc.on_ack(&mut w, 1, &ctx);
        }
        assert_eq!(w.cwnd, 4.0);
        for _ in 0..4 {
            cc.on_ack(&mut w, 2, &ctx);
        }
        assert!(w.cwnd > 4.9 && w.cwnd < 5.0);
        assert_eq!(cc.on_congestion(&w, Signal::Loss, &ctx), 5.5);
        assert_eq!(cc.on_congestion(&w, Signal::Ecn, &test_context(&est, 3)), 2.0);
        assert_eq!(cc.loss_window(&w, &ctx), 1.0);
        assert_eq!(cc.pacing_gap(&w, &ctx), None);
        assert_eq!(cc.tag(&w, &ctx), 0.0);
    }

    /// `tcp.ca_increase = "whole-bytes"`: ns-3's `TcpNewReno::CongestionAvoidance` adds `SMSS² / cwnd`
    /// bytes per ACK, at least 1, truncated to a whole number. The engine's window matches that integer
    /// recurrence byte for byte: at 10 segments of 960 B about one segment per window of ACKs, at 490
    /// segments half of one (1.96 B truncated to 1), at 1,500 segments more than one (the 1-byte floor).
    #[test]
    fn whole_bytes_growth_is_ns3s_integer_recurrence() {
        let est = crate::tcp::rtt::RttEstimator::default();
        let ctx = CcContext { whole_bytes: Some(960), ..test_context(&est, 11) };
        let ns3 = |mut cwnd: u32, acks: u32| {
            for _ in 0..acks {
                cwnd += ((960.0 * 960.0 / f64::from(cwnd)).max(1.0)) as u32;
            }
            cwnd
        };
        for (segments, expected) in [(10u32, 0.955), (100, 0.9375), (490, 0.51), (1500, 1.5625)] {
            let mut w = Window { cwnd: f64::from(segments), ssthresh: 1.0 };
            for _ in 0..segments {
                NewReno.on_ack(&mut w, 1, &ctx);
            }
            let reference = ns3(segments * 960, segments);
            assert_eq!((w.cwnd * 960.0).round() as u32, reference, "{segments} segments");
            assert!((w.cwnd - f64::from(segments) - expected).abs() < 0.01, "{segments}: {}", w.cwnd);
        }
        // Exact growth adds one segment per window at any size (to first order).
        let mut w = Window { cwnd: 490.0, ssthresh: 1.0 };
        for _ in 0..490 {
            NewReno.on_ack(&mut w, 1, &test_context(&est, 11));
        }
        assert!((w.cwnd - 491.0).abs() < 2e-3);
        // Slow start is the same either way; an ACK of nothing new adds nothing.
        let mut w = Window { cwnd: 4.0, ssthresh: 8.0 };
        NewReno.on_ack(&mut w, 1, &ctx);
        NewReno.on_ack(&mut w, 0, &ctx);
        assert_eq!(w.cwnd, 5.0);
    }
}
