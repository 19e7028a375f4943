//! NewReno's window (RFC 5681 §3.1, as ns-3's `TcpNewReno`): Reno growth ([`super::reno_growth`]) and
//! `ssthresh = max(in flight / 2, 2)` on every congestion signal. Loss recovery itself (RFC 6582 /
//! RFC 6675) lives in the sender's state machine. No parameters.

use super::{reno_growth, CcContext, CongestionControl, Controller, Window};
use crate::rng::Rng;
use crate::scenario::ScenarioError;
use serde::Deserialize;

#[derive(Clone, Debug, Default)]
pub struct NewReno;

/// `{ kind = "newreno" }` takes no parameters.
#[derive(Deserialize, serde::Serialize, Debug, Clone, Default, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Spec {}

impl Controller for NewReno {
    type Spec = Spec;
    fn from_spec(_: &Spec, _: &str, _: Rng) -> Result<Self, ScenarioError> {
        Ok(NewReno)
    }
}

impl CongestionControl for NewReno {
    fn on_ack(&mut self, w: &mut Window, acked: u32, _ctx: &CcContext) {
        reno_growth(w, acked, 1.0);
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
        assert_eq!(cc.ssthresh(&w, Signal::Loss, &ctx), 5.5);
        assert_eq!(cc.ssthresh(&w, Signal::Ecn, &test_context(&est, 3)), 2.0);
        assert_eq!(cc.loss_window(&w, &ctx), 1.0);
        assert_eq!(cc.pacing_gap(&w, &ctx), None);
        assert_eq!(cc.tag(&w, &ctx), 0.0);
    }
}
