//! Poisson-injection TCP, the traffic model behind Theorem 1 of Enachescu, Ganjali, Goel, McKeown &
//! Roughgarden, "Routers with very small buffers" (2005), §2.3 of the paper note:
//!
//! - **Window**: AIMD. Each ACK of new data adds `1/W` (`W ← W + 1/W`), a detected loss halves it
//!   (`W ← W/2`, here `ssthresh = max(W/2, 1)` and the sender sets `cwnd = ssthresh` when recovery ends),
//!   and the window stays at W_max (`tcp.max_window`) once it reaches it. §2.3 has no slow start; App. I
//!   says that including it "can only lead to better bounds", so `slow_start = true` (the default) keeps
//!   TCP's slow start below `ssthresh` and `false` grows by `1/W` per ACK from the initial window on.
//!   A timeout sets the loss window (one segment, RFC 5681).
//! - **Transmission**: while the window is `W`, packets leave as a Poisson process of rate `W / RTT`
//!   (exponential gaps of mean `RTT / W`), drawn from the flow's own random stream. §2.3's RTT is the
//!   two-way propagation delay, so `rtt = "min"` (the default) uses the smallest RTT sample; `"smoothed"`
//!   uses SRTT (RFC 6298), which includes queueing. The rate is read at each transmission: the gap to the
//!   next one is drawn from the window then (exact while the window is fixed; a change takes effect at the
//!   next epoch). Before the first RTT sample no rate is known and the initial window leaves unpaced.
//! - **Window violation**: the paper admits the model "can result in the window size being violated"; it is
//!   a modelling device, not a protocol. With `window_limited = false` (the default, §2.3) a packet leaves at
//!   every epoch whatever is in flight (a lost segment first, else new data), so the window sets only the
//!   rate and W_max caps the rate, not the packets in flight. `window_limited = true` is the realisable
//!   variant: the epochs are Poisson but a packet leaves only if the window allows it (one at the next ACK
//!   otherwise).
//!
//! With N such flows of base RTT τ through a link of C packets/s, the offered load is at most
//! `ρ = N·W_max/(τ·C)`; Theorem 1 bounds the drops by those of an M/D/1/B queue at load ρ (Lemmas 1–2).

use super::{reno_growth, CcContext, CongestionControl, Controller, Signal, Window};
use crate::rng::Rng;
use crate::spec::params::{name_params, params};
use crate::spec::ScenarioError;
use crate::time::{from_secs, to_secs, Time};
use serde::Deserialize;

/// The RTT in the injection rate `W / RTT`.
#[derive(Deserialize, serde::Serialize, Debug, Clone, Copy, PartialEq, Eq, Default)]
#[serde(rename_all = "lowercase")]
pub enum RttChoice {
    /// The smallest sample: the propagation RTT of §2.3 when some packet crossed empty queues.
    #[default]
    Min,
    /// The smoothed RTT (RFC 6298), queueing included.
    Smoothed,
}

name_params!(RttChoice);

params! {
    /// Poisson-injection TCP (Enachescu et al. 2005 §2.3, the traffic of Theorem 1): AIMD with W ≤
    /// `tcp.max_window`, packets sent as a Poisson process of rate W / RTT from the flow's own stream.
    pub struct Spec {
        /// The RTT of the rate W / RTT: the smallest sample (§2.3's propagation RTT) or SRTT (RFC 6298,
        /// queueing included).
        rtt: RttChoice = RttChoice::Min, Rule::names(&["min", "smoothed"]);
        /// Send only what the window allows (true), or a packet at every epoch whatever is in flight (§2.3:
        /// the model "can result in the window size being violated").
        window_limited: bool = false;
        /// TCP's slow start below ssthresh (true; App. I: "can only lead to better bounds"), or §2.3's pure
        /// W + 1/W growth per ACK (false).
        slow_start: bool = true;
    }
}

#[derive(Clone, Debug)]
pub struct Poisson {
    spec: Spec,
    rng: Rng,
}

impl Controller for Poisson {
    type Spec = Spec;
    fn from_spec(s: &Spec, _field: &str, rng: Rng) -> Result<Self, ScenarioError> {
        // Every parameter is an enumeration or a boolean: serde has checked them, naming the field.
        Ok(Poisson { spec: s.clone(), rng })
    }
}

impl Poisson {
    /// The mean gap `RTT / W`, seconds, once there is an RTT sample.
    pub fn mean_gap(&self, w: &Window, ctx: &CcContext) -> Option<f64> {
        let rtt = match self.spec.rtt {
            RttChoice::Min => to_secs(ctx.rtt.min_rtt()?),
            RttChoice::Smoothed => ctx.rtt.srtt()?,
        };
        Some(rtt / w.cwnd.min(ctx.max_window as f64).max(1.0))
    }
}

impl CongestionControl for Poisson {
    const PACES: bool = true;

    fn on_ack(&mut self, w: &mut Window, acked: u32, ctx: &CcContext) {
        if self.spec.slow_start {
            reno_growth(w, acked, 1.0, ctx.whole_bytes);
        } else if acked > 0 {
            w.cwnd += 1.0 / w.cwnd;
        }
        w.cwnd = w.cwnd.min(ctx.max_window as f64);
    }

    /// §2.3: `W ← W/2` on a detected loss (from the window, not the data in flight, which the model lets
    /// exceed it), at least one segment.
    fn on_congestion(&mut self, w: &Window, _signal: Signal, ctx: &CcContext) -> f64 {
        (w.cwnd.min(ctx.max_window as f64) / 2.0).max(1.0)
    }

    /// An exponential gap of mean `RTT / W` (inversion: `−mean · ln(1 − U)`, U uniform in [0, 1)).
    fn pacing_gap(&mut self, w: &Window, ctx: &CcContext) -> Option<Time> {
        let mean = self.mean_gap(w, ctx)?;
        let u = self.rng.uniform();
        Some(from_secs(-mean * (1.0 - u).ln()).max(1))
    }

    fn window_limited(&self) -> bool {
        self.spec.window_limited
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tcp::cc::{test_context, CcSpec};
    use crate::tcp::rtt::{RtoBounds, RttEstimator};

    fn estimator(samples: &[f64]) -> RttEstimator {
        let b = RtoBounds { initial: from_secs(1.0), min: 0, max: from_secs(60.0), granularity: 0 };
        let mut e = RttEstimator::new(&b);
        for &s in samples {
            e.sample(from_secs(s), &b);
        }
        e
    }

    fn poisson(spec: Spec, seed: u64) -> Poisson {
        Poisson::from_spec(&spec, "c", Rng::new(seed, 7)).unwrap()
    }

    #[test]
    fn no_rate_before_the_first_rtt_sample() {
        let mut cc = poisson(Spec::default(), 1);
        let est = RttEstimator::default();
        let w = Window { cwnd: 10.0, ssthresh: f64::INFINITY };
        assert_eq!(cc.pacing_gap(&w, &test_context(&est, 0)), None);
        assert!(!cc.window_limited());
    }

    #[test]
    fn mean_gap_is_rtt_over_the_window() {
        // Samples 100 ms then 200 ms: min 0.1, SRTT 0.875·0.1 + 0.125·0.2 = 0.1125.
        let est = estimator(&[0.1, 0.2]);
        let w = Window { cwnd: 20.0, ssthresh: 8.0 };
        let ctx = test_context(&est, 0);
        assert!((poisson(Spec::default(), 1).mean_gap(&w, &ctx).unwrap() - 0.1 / 20.0).abs() < 1e-15);
        let smoothed = poisson(Spec { rtt: RttChoice::Smoothed, ..Spec::default() }, 1);
        assert!((smoothed.mean_gap(&w, &ctx).unwrap() - 0.1125 / 20.0).abs() < 1e-15);
        // The window is at most W_max: 16 here.
        let capped = CcContext { max_window: 16, ..ctx };
        assert!((poisson(Spec::default(), 1).mean_gap(&w, &capped).unwrap() - 0.1 / 16.0).abs() < 1e-15);
    }

    /// 200,000 gaps of a fixed window: the mean is RTT/W and the coefficient of variation 1 within 1 %
    /// (both have a standard error of 0.22 % at this count), and the Kolmogorov–Smirnov distance to the
    /// exponential is below 1.95/√n, its 0.1 % critical value, for each of five seeds.
    #[test]
    fn gaps_are_exponential_with_mean_rtt_over_w() {
        let est = estimator(&[0.08]);
        let w = Window { cwnd: 16.0, ssthresh: f64::INFINITY };
        let ctx = test_context(&est, 0);
        let mean = 0.08 / 16.0;
        let n = 200_000;
        for seed in 1..=5 {
            let mut cc = poisson(Spec::default(), seed);
            let mut x: Vec<f64> = (0..n).map(|_| to_secs(cc.pacing_gap(&w, &ctx).unwrap())).collect();
            let m = x.iter().sum::<f64>() / n as f64;
            let var = x.iter().map(|g| (g - m) * (g - m)).sum::<f64>() / (n - 1) as f64;
            assert!((m / mean - 1.0).abs() < 0.01, "seed {seed}: mean {m} vs {mean}");
            assert!((var.sqrt() / m - 1.0).abs() < 0.01, "seed {seed}: CV {}", var.sqrt() / m);
            x.sort_by(f64::total_cmp);
            let ks = x
                .iter()
                .enumerate()
                .map(|(i, g)| {
                    let f = 1.0 - (-g / mean).exp();
                    (f - i as f64 / n as f64).abs().max(((i + 1) as f64 / n as f64 - f).abs())
                })
                .fold(0.0, f64::max);
            assert!(ks < 1.95 / (n as f64).sqrt(), "seed {seed}: KS distance {ks}");
        }
    }

    #[test]
    fn same_seed_same_gaps_other_seed_other_gaps() {
        let est = estimator(&[0.1]);
        let w = Window { cwnd: 10.0, ssthresh: f64::INFINITY };
        let ctx = test_context(&est, 0);
        let draw = |seed| {
            let mut cc = poisson(Spec::default(), seed);
            (0..100).map(|_| cc.pacing_gap(&w, &ctx).unwrap()).collect::<Vec<_>>()
        };
        assert_eq!(draw(3), draw(3));
        assert_ne!(draw(3), draw(4));
    }

    #[test]
    fn aimd_window_capped_at_w_max() {
        let est = estimator(&[0.1]);
        let ctx = CcContext { max_window: 12, ..test_context(&est, 0) };
        // Slow start below ssthresh, then +1/W per ACK, never above W_max.
        let mut cc = poisson(Spec::default(), 1);
        let mut w = Window { cwnd: 4.0, ssthresh: 6.0 };
        cc.on_ack(&mut w, 1, &ctx);
        assert_eq!(w.cwnd, 5.0);
        w.cwnd = 10.0;
        w.ssthresh = 6.0;
        cc.on_ack(&mut w, 1, &ctx);
        assert!((w.cwnd - 10.1).abs() < 1e-12);
        w.cwnd = 11.95;
        cc.on_ack(&mut w, 1, &ctx);
        assert_eq!(w.cwnd, 12.0, "W stays at W_max");
        // W <- W/2 on a loss, from the window (not the 30 segments in flight), at least 1.
        assert_eq!(cc.on_congestion(&w, Signal::Loss, &CcContext { in_flight: 30, ..ctx }), 6.0);
        assert_eq!(cc.on_congestion(&Window { cwnd: 1.5, ssthresh: 1.0 }, Signal::Loss, &ctx), 1.0);
        assert_eq!(cc.loss_window(&w, &ctx), 1.0);
        // Without slow start: +1/W from the start.
        let mut pure = poisson(Spec { slow_start: false, ..Spec::default() }, 1);
        let mut w = Window { cwnd: 4.0, ssthresh: f64::INFINITY };
        pure.on_ack(&mut w, 1, &ctx);
        assert_eq!(w.cwnd, 4.25);
        pure.on_ack(&mut w, 0, &ctx);
        assert_eq!(w.cwnd, 4.25, "no growth without new data");
    }

    #[test]
    fn parameters_parse_and_bad_ones_name_the_field() {
        let spec = CcSpec::parse(
            &serde_json::json!({"kind": "poisson", "rtt": "smoothed", "window_limited": true}),
            "tcp.congestion_control",
        )
        .unwrap();
        assert_eq!(
            spec.to_json(),
            serde_json::json!({"kind": "poisson", "rtt": "smoothed", "window_limited": true, "slow_start": true})
        );
        for (bad, field) in [
            (serde_json::json!({"kind": "poisson", "rtt": "latest"}), "tcp.congestion_control.rtt"),
            (
                serde_json::json!({"kind": "poisson", "window_limited": 1}),
                "tcp.congestion_control.window_limited",
            ),
            (serde_json::json!({"kind": "poisson", "rate": 2}), "tcp.congestion_control.rate"),
        ] {
            let e = CcSpec::parse(&bad, "tcp.congestion_control").unwrap_err();
            assert_eq!(e.field, field, "{bad}: {e:?}");
        }
    }
}
