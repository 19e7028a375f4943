//! DCTCP (RFC 8257; Alizadeh et al., SIGCOMM 2010), as ns-3 3.44's `TcpDctcp` runs it.
//!
//! - **Estimate** (RFC 8257 §3.3 steps 1–8): the segments delivered by each ACK are counted, and those
//!   delivered by ACKs carrying ECE apart; once the cumulative ACK passes the highest segment sent when the
//!   last observation window began, `α ← (1 − g)·α + g·M`, `M` = the marked fraction, and a new window
//!   begins. "Delivered" is Linux's `tp->delivered`: segments newly acknowledged plus newly SACKed minus
//!   those SACKed before; without SACK a duplicate ACK counts one segment (ns-3's `PktsAcked(1)`) and the
//!   cumulative ACK after them the segments they did not count, at least one. α is
//!   updated after the ACK's own window reduction, as ns-3 does (`EnterCwr` before `PktsAcked`).
//! - **Reduction** (§3.3 step 9): on ECN-Echo `ssthresh = (1 − α/2)·cwnd` (truncated to whole bytes when
//!   `tcp.ca_increase = "whole-bytes"`) and at least 2 segments (Linux's `dctcp_ssthresh`; ns-3 3.44 has no
//!   floor), at most once per window (the sender's CWR period); the sender then sets `cwnd = ssthresh`. On a
//!   loss (`loss_backoff`): `"half"` reacts as conventional TCP (§3.5, Linux's `dctcp_react_to_loss`;
//!   ns-3-dev after 3.46 on timeouts), `"alpha"` as ns-3 3.44, whose `GetSsThresh` applies `(1 − α/2)` to
//!   every reduction.
//! - **Growth**: ns-3's `TcpLinuxReno` (which `TcpDctcp` extends): slow start adds the segments acknowledged,
//!   up to `ssthresh`; congestion avoidance counts acknowledged segments and adds one segment per
//!   `⌊cwnd⌋` of them (Linux's `tcp_cong_avoid_ai`), so delayed ACKs do not slow it. `tcp.ca_increase`
//!   does not apply.
//! - **ECN**: every data packet is ECN-capable, retransmissions too (ns-3's `DctcpEcn` mode, Linux), and
//!   the receiver echoes the CE state of each packet (§3.2, [`EcnMode::PerPacket`]). Needs `tcp.ecn`.

use super::{AckSeen, CcContext, CongestionControl, Controller, EcnMode, Signal, Window};
use crate::rng::Rng;
use crate::spec::params::{name_params, params};
use crate::spec::ScenarioError;
use serde::Deserialize;

/// How DCTCP reduces its window on a loss (a fast retransmit or a timeout).
#[derive(Deserialize, serde::Serialize, Debug, Clone, Copy, PartialEq, Eq, Default)]
#[serde(rename_all = "kebab-case")]
pub enum LossBackoff {
    /// As conventional TCP: `ssthresh = max(in flight / 2, 2)` (RFC 8257 §3.5).
    #[default]
    Half,
    /// `ssthresh = (1 − α/2)·cwnd`, as for ECN-Echo (ns-3 3.44's `TcpDctcp::GetSsThresh`).
    Alpha,
}

name_params!(LossBackoff);

params! {
    /// DCTCP (RFC 8257; Alizadeh et al. 2010; ns-3's `TcpDctcp`): the fraction of ECN-marked segments α,
    /// averaged once per window with gain `g`, sets the reduction `cwnd·(1 − α/2)`. Needs `tcp.ecn`.
    pub struct Spec {
        /// The estimation gain `g` (RFC 8257 §4.2: 1/16; ns-3's `DctcpShiftG`).
        g: f64 = 0.0625, Rule::left_open(0.0, 1.0);
        /// α before the first observation window ends (Linux's `dctcp_alpha_on_init` 1024/1024; ns-3's
        /// `DctcpAlphaOnInit`).
        alpha_init: f64 = 1.0, Rule::closed(0.0, 1.0);
        /// The reduction on a loss: as conventional TCP (`"half"`, RFC 8257 §3.5) or by α as for ECN
        /// (`"alpha"`, ns-3 3.44).
        loss_backoff: LossBackoff = LossBackoff::Half, Rule::names(&["half", "alpha"]);
    }
}

#[derive(Clone, Debug)]
pub struct Dctcp {
    g: f64,
    loss_backoff: LossBackoff,
    /// The estimate of the fraction of marked segments.
    alpha: f64,
    /// Segments delivered in the current observation window, and those by ACKs carrying ECE.
    delivered: u32,
    delivered_ece: u32,
    /// The window ends when the cumulative ACK reaches this segment; `None` before the first ACK.
    window_end: Option<u32>,
    /// Linux's `snd_cwnd_cnt`: segments acknowledged towards the next increment.
    cwnd_cnt: u32,
}

impl Dctcp {
    /// The current estimate α.
    pub fn alpha(&self) -> f64 {
        self.alpha
    }
}

impl Controller for Dctcp {
    type Spec = Spec;
    fn from_spec(s: &Spec, _field: &str, _: Rng) -> Result<Self, ScenarioError> {
        Ok(Dctcp {
            g: s.g,
            loss_backoff: s.loss_backoff,
            alpha: s.alpha_init,
            delivered: 0,
            delivered_ece: 0,
            window_end: None,
            cwnd_cnt: 0,
        })
    }
}

impl CongestionControl for Dctcp {
    const SEES_ACKS: bool = true;

    fn on_ack(&mut self, w: &mut Window, acked: u32, _ctx: &CcContext) {
        if acked == 0 {
            return;
        }
        if w.cwnd < w.ssthresh {
            w.cwnd = (w.cwnd + f64::from(acked)).min(w.ssthresh);
            return;
        }
        let per_increment = (w.cwnd as u32).max(1);
        if self.cwnd_cnt >= per_increment {
            self.cwnd_cnt = 0;
            w.cwnd += 1.0;
        }
        self.cwnd_cnt += acked;
        if self.cwnd_cnt >= per_increment {
            let increments = self.cwnd_cnt / per_increment;
            self.cwnd_cnt -= increments * per_increment;
            w.cwnd += f64::from(increments);
        }
    }

    fn on_congestion(&mut self, w: &Window, signal: Signal, ctx: &CcContext) -> f64 {
        if signal != Signal::Ecn && self.loss_backoff == LossBackoff::Half {
            return (ctx.in_flight as f64 / 2.0).max(2.0);
        }
        let factor = 1.0 - self.alpha / 2.0;
        let reduced = match ctx.whole_bytes {
            None => factor * w.cwnd,
            Some(smss) => {
                let smss = f64::from(smss);
                (factor * (w.cwnd * smss).round()).floor() / smss
            }
        };
        reduced.max(2.0)
    }

    fn on_ack_seen(&mut self, ack: &AckSeen) {
        self.delivered += ack.delivered;
        if ack.ece {
            self.delivered_ece += ack.delivered;
        }
        let end = *self.window_end.get_or_insert(ack.snd_nxt);
        if ack.snd_una >= end {
            let marked = if self.delivered > 0 {
                f64::from(self.delivered_ece) / f64::from(self.delivered)
            } else {
                0.0
            };
            self.alpha = (1.0 - self.g) * self.alpha + self.g * marked;
            self.window_end = Some(ack.snd_nxt);
            self.delivered = 0;
            self.delivered_ece = 0;
        }
    }

    fn ecn_mode(&self) -> EcnMode {
        EcnMode::PerPacket
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tcp::cc::{test_context, CcSpec};
    use crate::tcp::rtt::RttEstimator;

    fn dctcp(loss_backoff: LossBackoff) -> Dctcp {
        Dctcp::from_spec(&Spec { loss_backoff, ..Spec::default() }, "", Rng::new(1, 1)).unwrap()
    }

    fn seen(delivered: u32, ece: bool, snd_una: u32, snd_nxt: u32) -> AckSeen {
        AckSeen { delivered, ece, snd_una, snd_nxt }
    }

    /// RFC 8257 §3.3: α moves by g toward the marked fraction once per window of data, and the first
    /// window ends when the data outstanding at the first ACK has been acknowledged.
    #[test]
    fn alpha_is_the_marked_fraction_averaged_once_per_window() {
        let mut cc = dctcp(LossBackoff::Half);
        assert_eq!(cc.alpha(), 1.0);
        // First ACK: the window ends at segment 10 (snd_nxt then).
        cc.on_ack_seen(&seen(1, false, 1, 10));
        for una in 2..10 {
            cc.on_ack_seen(&seen(1, una % 2 == 0, una, 12));
            assert_eq!(cc.alpha(), 1.0, "no update inside the window");
        }
        // The ACK reaching segment 10 closes the window: 10 delivered, 4 of them with ECE (2, 4, 6, 8).
        cc.on_ack_seen(&seen(1, false, 10, 20));
        assert!((cc.alpha() - (15.0 / 16.0 + 0.4 / 16.0)).abs() < 1e-12, "{}", cc.alpha());
        // A window without marks decays α by (1 − g).
        let before = cc.alpha();
        cc.on_ack_seen(&seen(10, false, 20, 30));
        assert!((cc.alpha() - before * 15.0 / 16.0).abs() < 1e-12);
        // A fully marked window with α_init = 0 gives g.
        let mut cc =
            Dctcp::from_spec(&Spec { alpha_init: 0.0, ..Spec::default() }, "", Rng::new(1, 1)).unwrap();
        cc.on_ack_seen(&seen(2, true, 2, 2));
        assert_eq!(cc.alpha(), 0.0625);
    }

    /// §3.3 step 9 on ECN-Echo; §3.5 (or ns-3 3.44's α) on loss.
    #[test]
    fn reduction_by_alpha_and_loss_backoff() {
        let est = RttEstimator::default();
        let ctx = test_context(&est, 40);
        let w = Window { cwnd: 40.0, ssthresh: 100.0 };
        let mut cc = dctcp(LossBackoff::Half);
        cc.alpha = 0.25;
        assert_eq!(cc.on_congestion(&w, Signal::Ecn, &ctx), 35.0);
        assert_eq!(cc.on_congestion(&w, Signal::Loss, &ctx), 20.0);
        assert_eq!(cc.on_congestion(&w, Signal::Timeout, &test_context(&est, 3)), 2.0);
        let mut cc = dctcp(LossBackoff::Alpha);
        cc.alpha = 0.25;
        assert_eq!(cc.on_congestion(&w, Signal::Loss, &ctx), 35.0);
        assert_eq!(cc.on_congestion(&w, Signal::Timeout, &ctx), 35.0);
        // Never below two segments (Linux).
        cc.alpha = 1.0;
        assert_eq!(cc.on_congestion(&Window { cwnd: 3.0, ssthresh: 9.0 }, Signal::Ecn, &ctx), 2.0);
        cc.alpha = 0.125;
        // ns-3 truncates (1 − α/2)·cwnd to whole bytes: 0.9375 × 41 × 1000 B = 38,437.5 → 38,437 B.
        let ctx = CcContext { whole_bytes: Some(1000), ..ctx };
        let w = Window { cwnd: 41.0, ssthresh: 100.0 };
        assert_eq!(cc.on_congestion(&w, Signal::Ecn, &ctx), 38.437);
    }

    /// ns-3's `TcpLinuxReno`: slow start by segments acknowledged, capped at ssthresh; congestion avoidance
    /// one segment per ⌊cwnd⌋ acknowledged, however they are grouped into ACKs.
    #[test]
    fn linux_reno_growth() {
        let est = RttEstimator::default();
        let ctx = test_context(&est, 10);
        let mut cc = dctcp(LossBackoff::Half);
        let mut w = Window { cwnd: 10.0, ssthresh: 13.0 };
        cc.on_ack(&mut w, 2, &ctx);
        assert_eq!(w.cwnd, 12.0);
        cc.on_ack(&mut w, 2, &ctx);
        assert_eq!(w.cwnd, 13.0, "capped at ssthresh");
        // 13 segments acknowledged in ACKs of 2 (delayed ACKs): one increment after the 7th ACK.
        for _ in 0..6 {
            cc.on_ack(&mut w, 2, &ctx);
        }
        assert_eq!(w.cwnd, 13.0);
        cc.on_ack(&mut w, 2, &ctx);
        assert_eq!(w.cwnd, 14.0);
        assert_eq!(cc.cwnd_cnt, 1);
        // A stretch ACK of 30 segments at cwnd 14 adds two.
        cc.on_ack(&mut w, 30, &ctx);
        assert_eq!(w.cwnd, 16.0);
        assert_eq!(cc.cwnd_cnt, 3);
        cc.on_ack(&mut w, 0, &ctx);
        assert_eq!(w.cwnd, 16.0);
    }

    #[test]
    fn parameters_are_checked_and_named() {
        let field = "flows[0].tcp.congestion_control";
        let parse =
            |v: serde_json::Value| CcSpec::parse(&v, field).and_then(|s| s.build(field, Rng::new(1, 1)));
        assert!(parse(serde_json::json!("dctcp")).is_ok());
        let e = parse(serde_json::json!({"kind": "dctcp", "g": 0.0})).unwrap_err();
        assert!(e.to_string().contains("congestion_control.g"), "{e}");
        let e = parse(serde_json::json!({"kind": "dctcp", "alpha_init": 1.5})).unwrap_err();
        assert!(e.to_string().contains("alpha_init"), "{e}");
        let e = parse(serde_json::json!({"kind": "dctcp", "loss_backoff": "third"})).unwrap_err();
        assert!(e.to_string().contains("loss_backoff"), "{e}");
        let built = parse(serde_json::json!({"kind": "dctcp", "g": 0.5, "loss_backoff": "alpha"})).unwrap();
        assert_eq!(built.ecn_mode(), EcnMode::PerPacket);
    }
}
