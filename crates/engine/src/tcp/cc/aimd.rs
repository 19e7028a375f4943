//! Generalised AIMD(a, b) (Yang & Lam 2000; ns-2 `Agent/TCP` `increase_num_`/`decrease_num_`): Reno growth
//! with `cwnd += a / cwnd` per ACK in congestion avoidance (about `a` segments per RTT), and on every
//! congestion signal `ssthresh = max(b · W, 2)`, where `W` is the window the reduction starts from
//! (`reduce_from`: `"in-flight"`, the data in flight as `tcp.ssthresh_from` measures it, RFC 5681's
//! choice, or `"cwnd"`, ns-2's). The sender then sets `cwnd = ssthresh` (fast recovery, ECN) or the loss
//! window (timeout). AIMD(1, 0.5) with `reduce_from = "in-flight"` is NewReno.
//!
//! Tsioliaridou & Tsaoussidis's gentle senders are AIMD(0.9, 0.675) with `reduce_from = "cwnd"` (paper
//! note §2.2).
//!
//! `ns2_halving` reproduces ns-2's `TcpAgent::slowdown()` (`first_decrease_`, note §2.2): whatever
//! `decrease`, the window is halved instead on the flow's first decrease, on any decrease in slow start
//! (`cwnd < ssthresh` before the signal), and on a timeout's decrease (ns-2's `last_cwnd_action_ ==
//! CWND_ACTION_TIMEOUT`, which the duplicate-ACK and ECN responses overwrite before they reduce). ns-2's
//! rounding of the halved window to whole segments (`precision_reduce_ = false`) is not reproduced.

use super::{reno_growth, CcContext, CongestionControl, Controller, Signal, Window};
use crate::rng::Rng;
use crate::spec::params::{name_params, params};
use crate::spec::ScenarioError;
use serde::Deserialize;

/// The window a multiplicative decrease starts from.
#[derive(Deserialize, serde::Serialize, Debug, Clone, Copy, PartialEq, Eq, Default)]
#[serde(rename_all = "kebab-case")]
pub enum ReduceFrom {
    #[default]
    InFlight,
    Cwnd,
}

name_params!(ReduceFrom);

params! {
    /// Generalised AIMD(a, b) (Yang & Lam 2000; ns-2 `increase_num_`/`decrease_num_`): Reno growth of `a`
    /// segments per RTT, `ssthresh = max(b·W, 2)` on every congestion signal; AIMD(1, 0.5) is NewReno.
    pub struct Spec {
        /// Segments added per RTT in congestion avoidance, `a` (`cwnd += a/cwnd` per ACK).
        increase: f64 = 1.0, Rule::left_open(0.0, 100.0).unit("segments per RTT");
        /// The window multiplier `b` on a congestion signal (Tsioliaridou & Tsaoussidis: 0.675).
        decrease: f64 = 0.5, Rule::open(0.0, 1.0);
        /// The window the decrease starts from: the data in flight as `tcp.ssthresh_from` measures it
        /// (RFC 5681) or `cwnd` (ns-2).
        reduce_from: ReduceFrom = ReduceFrom::InFlight, Rule::names(&["in-flight", "cwnd"]);
        /// ns-2's `slowdown()`: halve instead of `decrease` on the first decrease, in slow start and on a
        /// timeout.
        ns2_halving: bool = false;
    }
}

#[derive(Clone, Debug)]
pub struct Aimd {
    spec: Spec,
    /// Has the window been decreased before (ns-2's `first_decrease_ == 0`)?
    decreased: bool,
}

impl Controller for Aimd {
    type Spec = Spec;
    fn from_spec(s: &Spec, _field: &str, _: Rng) -> Result<Self, ScenarioError> {
        // Every range is declared (and checked by the registry); nothing depends on anything else.
        Ok(Aimd { spec: s.clone(), decreased: false })
    }
}

impl CongestionControl for Aimd {
    fn on_ack(&mut self, w: &mut Window, acked: u32, ctx: &CcContext) {
        reno_growth(w, acked, self.spec.increase, ctx.whole_bytes);
    }

    fn on_congestion(&mut self, w: &Window, signal: Signal, ctx: &CcContext) -> f64 {
        let from = match self.spec.reduce_from {
            ReduceFrom::InFlight => ctx.in_flight as f64,
            ReduceFrom::Cwnd => w.cwnd,
        };
        let halve =
            self.spec.ns2_halving && (!self.decreased || w.cwnd < w.ssthresh || signal == Signal::Timeout);
        self.decreased = true;
        let factor = if halve { 0.5 } else { self.spec.decrease };
        (factor * from).max(2.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tcp::cc::{test_context, CcSpec};
    use crate::tcp::rtt::RttEstimator;
    use serde_json::json;

    #[test]
    fn gentle_increase_and_decrease() {
        let spec = Spec { increase: 0.9, decrease: 0.675, reduce_from: ReduceFrom::Cwnd, ns2_halving: false };
        let mut cc = Aimd::from_spec(&spec, "tcp.congestion_control", Rng::new(1, 1)).unwrap();
        let est = RttEstimator::default();
        let ctx = test_context(&est, 7);
        let mut w = Window { cwnd: 10.0, ssthresh: 5.0 };
        cc.on_ack(&mut w, 1, &ctx);
        assert!((w.cwnd - 10.09).abs() < 1e-12);
        assert!((cc.on_congestion(&w, Signal::Ecn, &ctx) - 0.675 * 10.09).abs() < 1e-12);
        let mut flight = Aimd::from_spec(&Spec::default(), "x", Rng::new(1, 1)).unwrap();
        assert_eq!(flight.on_congestion(&w, Signal::Loss, &ctx), 3.5);
    }

    #[test]
    fn ns2_halves_the_first_decrease_in_slow_start_and_on_timeouts() {
        let spec = Spec { increase: 0.9, decrease: 0.675, reduce_from: ReduceFrom::Cwnd, ns2_halving: true };
        let mut cc = Aimd::from_spec(&spec, "c", Rng::new(1, 1)).unwrap();
        let est = RttEstimator::default();
        let ctx = test_context(&est, 20);
        // The first decrease halves, even in congestion avoidance.
        assert_eq!(cc.on_congestion(&Window { cwnd: 20.0, ssthresh: 10.0 }, Signal::Loss, &ctx), 10.0);
        // Later ones in congestion avoidance use `decrease`, for losses and ECN alike.
        assert_eq!(cc.on_congestion(&Window { cwnd: 20.0, ssthresh: 10.0 }, Signal::Loss, &ctx), 13.5);
        assert_eq!(cc.on_congestion(&Window { cwnd: 40.0, ssthresh: 13.5 }, Signal::Ecn, &ctx), 27.0);
        // A timeout halves; so does any decrease in slow start (cwnd < ssthresh).
        assert_eq!(cc.on_congestion(&Window { cwnd: 40.0, ssthresh: 27.0 }, Signal::Timeout, &ctx), 20.0);
        assert_eq!(cc.on_congestion(&Window { cwnd: 12.0, ssthresh: 20.0 }, Signal::Loss, &ctx), 6.0);
        assert_eq!(cc.on_congestion(&Window { cwnd: 12.0, ssthresh: 6.0 }, Signal::Ecn, &ctx), 0.675 * 12.0);
        // Without the option every decrease uses `decrease`; at 0.5 the option changes nothing.
        let mut plain =
            Aimd::from_spec(&Spec { ns2_halving: false, ..spec.clone() }, "c", Rng::new(1, 1)).unwrap();
        assert_eq!(
            plain.on_congestion(&Window { cwnd: 20.0, ssthresh: f64::INFINITY }, Signal::Loss, &ctx),
            13.5
        );
        let mut half = Aimd::from_spec(&Spec { decrease: 0.5, ..spec }, "c", Rng::new(1, 1)).unwrap();
        assert_eq!(half.on_congestion(&Window { cwnd: 20.0, ssthresh: 10.0 }, Signal::Loss, &ctx), 10.0);
        assert_eq!(half.on_congestion(&Window { cwnd: 20.0, ssthresh: 10.0 }, Signal::Loss, &ctx), 10.0);
    }

    #[test]
    fn bad_parameters_name_the_field() {
        let build = |table: serde_json::Value, field: &str| {
            CcSpec::parse(&table, field).and_then(|s| s.build(field, Rng::new(1, 1))).err()
        };
        let e = build(json!({"kind": "aimd", "decrease": 1.0}), "flows[1].tcp.congestion_control").unwrap();
        assert_eq!(e.field, "flows[1].tcp.congestion_control.decrease");
        assert_eq!(e.message, "must be in (0, 1) (got 1)");
        let e = build(json!({"kind": "aimd", "increase": 0.0}), "c").unwrap();
        assert_eq!(
            (e.field.as_str(), e.message.as_str()),
            ("c.increase", "must be in (0, 100] segments per RTT (got 0)")
        );
        assert!(build(json!({"kind": "aimd", "increase": 100.0, "decrease": 0.01}), "c").is_none());
    }
}
