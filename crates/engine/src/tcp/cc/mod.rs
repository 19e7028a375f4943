//! Congestion control as a real interface: the TCP state machine in [`crate::tcp::sender`] never names a
//! variant.
//!
//! Every hook receives a [`CcContext`] (the sender's clock, its RTT estimator, the data in flight) and may
//! change its own state (`&mut self`) and the window. Hooks have defaults, so a variant overrides only what it
//! changes (as smoltcp's `Controller`); [`AnyCc`] dispatches statically, so the hot path pays no virtual call.
//! Loss recovery itself (RFC 6582 / RFC 6675) stays in the sender: controllers decide how much to grow, how
//! far to back off, how fast to pace, and what to write on each packet.
//!
//! Adding a controller: a file here implementing [`CongestionControl`] with a `Spec` declared by
//! [`params!`](crate::spec::params) (each parameter's name, type, default, range and description, once), and
//! one line in the `registry!` list below.

pub mod aimd;
pub mod bbr;
pub mod cubic;
pub mod dctcp;
pub mod newreno;
pub mod poisson;
pub mod whittle;

pub use aimd::Aimd;
pub use bbr::Bbr;
pub use cubic::Cubic;
pub use dctcp::Dctcp;
pub use newreno::NewReno;
pub use poisson::Poisson;
pub use whittle::Whittle;

use super::rate::RateSample;
use super::rtt::RttEstimator;
use crate::rng::Rng;
use crate::spec::params::Params;
use crate::spec::registry::registry;
use crate::spec::{err, ScenarioError};
use crate::time::Time;

/// The congestion window state a controller may change, in segments.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Window {
    pub cwnd: f64,
    pub ssthresh: f64,
}

/// What the sender knows when it calls a hook.
#[derive(Clone, Copy, Debug)]
pub struct CcContext<'a> {
    /// The sender's clock.
    pub now: Time,
    pub rtt: &'a RttEstimator,
    /// Segments sent and not cumulatively acknowledged (FlightSize, RFC 5681).
    pub flight: u32,
    /// RFC 6675's `pipe`: segments believed to be in the network.
    pub pipe: u32,
    /// The data in flight as `tcp.ssthresh_from` measures it (FlightSize or pipe).
    pub in_flight: u32,
    /// W_max, the most segments in flight (`tcp.max_window`; `u32::MAX` if unlimited).
    pub max_window: u32,
    /// `Some(SMSS in bytes)` when congestion avoidance counts whole bytes (`tcp.ca_increase`).
    pub whole_bytes: Option<u32>,
    /// The segment's payload, bytes (for a controller whose reference counts some constant in bytes).
    pub smss: u32,
}

/// Why the window is being reduced.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Signal {
    /// Fast retransmit: duplicate ACKs or SACK say a segment was lost.
    Loss,
    /// An ACK carried ECN-Echo (RFC 3168).
    Ecn,
    /// The retransmission timer expired.
    Timeout,
}

/// What one ACK told the sender, for a controller that estimates from every ACK (DCTCP's α).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AckSeen {
    /// Segments this ACK delivered (Linux's `tp->delivered`): newly acknowledged plus newly SACKed minus
    /// SACKed before; without SACK a duplicate ACK delivers one, and the cumulative ACK after them the rest.
    pub delivered: u32,
    /// Whether it carried ECN-Echo.
    pub ece: bool,
    /// The cumulative ACK point after it, and the next new segment the sender would send.
    pub snd_una: u32,
    pub snd_nxt: u32,
}

/// How the flow's ECN works end to end (when `tcp.ecn` is on).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EcnMode {
    /// RFC 3168: new data is ECN-capable, retransmissions are not (§6.1.5); the receiver sets ECE from a
    /// CE mark until CWR arrives (or once, under `tcp.ecn_response = "per-signal"`).
    Classic,
    /// RFC 8257 §3.2 (DCTCP): every data packet is ECN-capable, retransmissions too (ns-3's `DctcpEcn`,
    /// Linux); each ACK's ECE is the CE state of the packets it acknowledges, and a change of that state
    /// while a delayed ACK is owed first sends the owed ACK with the old state.
    PerPacket,
}

pub trait CongestionControl {
    /// Whether `pacing_gap` may return a gap (lets the sender skip the hook on the hot path).
    const PACES: bool = false;
    /// Whether `tag` may return something other than 0.
    const TAGS: bool = false;
    /// Whether `on_ack_seen` does anything.
    const SEES_ACKS: bool = false;
    /// Whether the controller sets `cwnd` itself from a delivery-rate sample after every ACK (ns-3's
    /// `HasCongControl`, BBR). The sender then keeps a [`crate::tcp::rate::RateSampler`], calls `control`
    /// after each ACK's loss detection, calls `on_recovery_start` when fast recovery begins, and leaves
    /// the window alone on ECN-Echo and in NewReno's inflation and deflation; it still sets `cwnd =
    /// ssthresh` when fast recovery ends and the loss window after a timeout, as ns-3's socket does.
    const CONTROLS_WINDOW: bool = false;

    /// New data was cumulatively acknowledged outside loss recovery: one call per ACK, `acked` segments.
    fn on_ack(&mut self, w: &mut Window, acked: u32, ctx: &CcContext);

    /// A congestion signal (loss, ECN or timeout): the controller records what it needs (CUBIC's W_max
    /// and epoch) and returns the new slow-start threshold. RFC 5681 eq. (4): max(in flight / 2, 2).
    fn on_congestion(&mut self, _w: &Window, _signal: Signal, ctx: &CcContext) -> f64 {
        (ctx.in_flight as f64 / 2.0).max(2.0)
    }

    /// The window after a retransmission timeout (RFC 5681: the loss window, one segment).
    fn loss_window(&mut self, _w: &Window, _ctx: &CcContext) -> f64 {
        1.0
    }

    /// Loss recovery ended (the recovery point was acknowledged); the sender has set `cwnd = ssthresh`.
    fn on_recovery_end(&mut self, _w: &mut Window, _ctx: &CcContext) {}

    /// Fast recovery began (`CONTROLS_WINDOW` only); the ACK that began it delivered `acked_sacked`
    /// segments.
    fn on_recovery_start(&mut self, _w: &mut Window, _acked_sacked: u32, _ctx: &CcContext) {}

    /// After every ACK (`CONTROLS_WINDOW` only): its rate sample and the segments delivered so far.
    fn control(&mut self, _w: &mut Window, _rs: &RateSample, _delivered: u64, _ctx: &CcContext) {}

    /// The sender is about to send with nothing in flight outside loss recovery (`CONTROLS_WINDOW` only;
    /// ns-3's and Linux's `CA_EVENT_TX_START`); `app_limited`: the rate sampler marks the connection
    /// application-limited.
    fn on_tx_start(&mut self, _w: &mut Window, _app_limited: bool, _ctx: &CcContext) {}

    /// The gap to keep between two transmissions, or `None` to send as fast as the window allows. Called
    /// once per transmission opportunity, so a controller may draw random gaps from its stream.
    fn pacing_gap(&mut self, _w: &Window, _ctx: &CcContext) -> Option<Time> {
        None
    }

    /// Whether the window limits what a paced sender sends. `false`: one packet leaves at every pacing
    /// epoch whatever is in flight (retransmissions first), so `cwnd` sets only the rate, as in the
    /// Poisson-injection model of Enachescu et al. 2005 §2.3, which "can result in the window size being
    /// violated". Read only while `pacing_gap` returns a gap.
    fn window_limited(&self) -> bool {
        true
    }

    /// The value written on each packet the sender emits (`Packet::tag`), e.g. a priority index.
    fn tag(&self, _w: &Window, _ctx: &CcContext) -> f32 {
        0.0
    }

    /// Every ACK, after the sender has reacted to it (growth, recovery, ECN reduction); called only when
    /// `sees_acks` is true.
    fn on_ack_seen(&mut self, _ack: &AckSeen) {}

    /// Whether `on_ack_seen` does anything for this controller (read once, when the flow starts).
    fn sees_acks(&self) -> bool {
        Self::SEES_ACKS
    }

    /// Whether `pacing_gap` may return a gap for this controller (`PACES`; read once, when the flow starts).
    fn paces(&self) -> bool {
        Self::PACES
    }

    /// Whether `tag` may return something other than 0 for this controller (`TAGS`; read once, when the
    /// flow starts).
    fn tags(&self) -> bool {
        Self::TAGS
    }

    /// Whether this controller sets the window itself (`CONTROLS_WINDOW`; read once, when the flow starts).
    fn controls_window(&self) -> bool {
        Self::CONTROLS_WINDOW
    }

    /// The ECN the flow runs when `tcp.ecn` is on; read once, when the flow starts.
    fn ecn_mode(&self) -> EcnMode {
        EcnMode::Classic
    }
}

/// A controller built from its scenario table.
pub trait Controller: CongestionControl + Sized {
    /// Its parameters as a scenario writes them, declared with `params!` (defaults, ranges, reference).
    type Spec: Params + Clone + std::fmt::Debug + serde::de::DeserializeOwned;
    /// Build from a table whose declared ranges [`Params::check`] has already checked (the registry,
    /// [`CcSpec::build`], does), checking what the declaration cannot (errors name `field.<param>`); `rng`
    /// is the flow's own stream.
    fn from_spec(spec: &Self::Spec, field: &str, rng: Rng) -> Result<Self, ScenarioError>;
}

registry! {
    /// A controller's scenario table, parsed: `"newreno"` or `{ kind = "aimd", increase = 0.9, ... }`.
    spec CcSpec: Controller, any AnyCc(Clone, Debug), names CONTROLLERS, tag "kind",
    describe describe_controllers, each each_cc, build build_cc, fold fold_controllers;
    Newreno, "newreno" => NewReno,
    Aimd, "aimd" => Aimd,
    Poisson, "poisson" => Poisson,
    Whittle, "whittle" => Whittle,
    // 104 bytes, twice any other controller: boxed, so that other flows' `AnyCc` stays 48 bytes.
    Cubic, "cubic" => Cubic [boxed],
    Dctcp, "dctcp" => Dctcp,
    Bbr, "bbr" => Bbr,
}

impl CcSpec {
    /// Parse `congestion_control` (a name, or a table tagged by `kind`) at scenario field `field`.
    pub fn parse(value: &serde_json::Value, field: &str) -> Result<CcSpec, ScenarioError> {
        let (name, rest) = match value {
            serde_json::Value::String(s) => (s.clone(), serde_json::json!({})),
            serde_json::Value::Object(t) => {
                let mut rest = t.clone();
                match rest.remove("kind") {
                    Some(serde_json::Value::String(s)) => (s, serde_json::Value::Object(rest)),
                    _ => {
                        return err(
                            &format!("{field}.kind"),
                            format!("required: one of {}", CONTROLLERS.join(", ")),
                        )
                    }
                }
            }
            _ => {
                return err(
                    field,
                    format!(
                        "expected a name ({}) or a table such as {{ kind = \"aimd\", increase = 0.9 }}",
                        CONTROLLERS.join(", ")
                    ),
                )
            }
        };
        CcSpec::from_table(&name, rest, field).unwrap_or_else(|| {
            err(
                field,
                format!("unknown congestion control {name:?}: expected one of {}", CONTROLLERS.join(", ")),
            )
        })
    }

    /// Check the parameters (their declared ranges, then what `from_spec` checks; errors name
    /// `field.<param>`) and build a controller for one flow, with the flow's own random stream.
    pub fn build(&self, field: &str, rng: Rng) -> Result<AnyCc, ScenarioError> {
        Ok(build_cc!(self, s, T => {
            s.check(field)?;
            T::from_spec(s, field, rng)?
        }))
    }

    /// A controller for one flow from a table [`CcSpec::build`] checked when the scenario resolved (its
    /// ranges are not checked again for every flow).
    pub fn instantiate(&self, rng: Rng) -> AnyCc {
        build_cc!(self, s, T => T::from_spec(s, "", rng).expect("controllers are checked when the scenario resolves"))
    }
}

impl Default for CcSpec {
    fn default() -> Self {
        CcSpec::Newreno(Default::default())
    }
}

/// Whether any controller paces / tags (the sender skips those hooks otherwise).
const ANY_PACES: bool = fold_controllers!(T => <T as CongestionControl>::PACES);
const ANY_TAGS: bool = fold_controllers!(T => <T as CongestionControl>::TAGS);
const ANY_SEES_ACKS: bool = fold_controllers!(T => <T as CongestionControl>::SEES_ACKS);
const ANY_CONTROLS_WINDOW: bool = fold_controllers!(T => <T as CongestionControl>::CONTROLS_WINDOW);

impl CongestionControl for AnyCc {
    const PACES: bool = ANY_PACES;
    const TAGS: bool = ANY_TAGS;
    const SEES_ACKS: bool = ANY_SEES_ACKS;
    const CONTROLS_WINDOW: bool = ANY_CONTROLS_WINDOW;
    fn on_ack(&mut self, w: &mut Window, acked: u32, ctx: &CcContext) {
        each_cc!(self, c => c.on_ack(w, acked, ctx))
    }
    fn on_congestion(&mut self, w: &Window, signal: Signal, ctx: &CcContext) -> f64 {
        each_cc!(self, c => c.on_congestion(w, signal, ctx))
    }
    fn loss_window(&mut self, w: &Window, ctx: &CcContext) -> f64 {
        each_cc!(self, c => c.loss_window(w, ctx))
    }
    fn on_recovery_end(&mut self, w: &mut Window, ctx: &CcContext) {
        each_cc!(self, c => c.on_recovery_end(w, ctx))
    }
    fn pacing_gap(&mut self, w: &Window, ctx: &CcContext) -> Option<Time> {
        each_cc!(self, c => c.pacing_gap(w, ctx))
    }
    fn window_limited(&self) -> bool {
        each_cc!(self, c => c.window_limited())
    }
    fn tag(&self, w: &Window, ctx: &CcContext) -> f32 {
        each_cc!(self, c => c.tag(w, ctx))
    }
    fn on_ack_seen(&mut self, ack: &AckSeen) {
        each_cc!(self, c => c.on_ack_seen(ack))
    }
    fn sees_acks(&self) -> bool {
        each_cc!(self, c => c.sees_acks())
    }
    fn paces(&self) -> bool {
        each_cc!(self, c => c.paces())
    }
    fn tags(&self) -> bool {
        each_cc!(self, c => c.tags())
    }
    fn ecn_mode(&self) -> EcnMode {
        each_cc!(self, c => c.ecn_mode())
    }
    fn controls_window(&self) -> bool {
        each_cc!(self, c => c.controls_window())
    }
    fn on_recovery_start(&mut self, w: &mut Window, acked_sacked: u32, ctx: &CcContext) {
        each_cc!(self, c => c.on_recovery_start(w, acked_sacked, ctx))
    }
    fn control(&mut self, w: &mut Window, rs: &RateSample, delivered: u64, ctx: &CcContext) {
        each_cc!(self, c => c.control(w, rs, delivered, ctx))
    }
    fn on_tx_start(&mut self, w: &mut Window, app_limited: bool, ctx: &CcContext) {
        each_cc!(self, c => c.on_tx_start(w, app_limited, ctx))
    }
}

/// Reno-style growth shared by the standard controllers (RFC 5681 §3.1, as ns-3's `TcpNewReno`): slow start
/// adds one segment per ACK of new data, congestion avoidance adds `increase / cwnd`, or with `whole_bytes
/// = Some(SMSS)` `increase · SMSS² / cwnd` bytes truncated to a whole number, at least one
/// ([`crate::tcp::CaIncrease`]). Growth is per ACK, not per segment acknowledged (no Appropriate Byte
/// Counting), so delayed ACKs halve it, as in ns-3.
pub fn reno_growth(w: &mut Window, acked: u32, increase: f64, whole_bytes: Option<u32>) {
    if acked == 0 {
        return;
    }
    if w.cwnd < w.ssthresh {
        w.cwnd += 1.0;
        return;
    }
    w.cwnd += match whole_bytes {
        None => increase / w.cwnd,
        Some(smss) => {
            let smss = f64::from(smss);
            // cwnd in bytes is a whole number in ns-3; rounding keeps float error out of the truncation.
            let cwnd_bytes = (w.cwnd * smss).round().max(1.0);
            (increase * smss * smss / cwnd_bytes).floor().max(1.0) / smss
        }
    };
}

#[cfg(test)]
pub(crate) fn test_context(rtt: &RttEstimator, in_flight: u32) -> CcContext<'_> {
    CcContext {
        now: 0,
        rtt,
        flight: in_flight,
        pipe: in_flight,
        in_flight,
        max_window: u32::MAX,
        whole_bytes: None,
        smss: 1000,
    }
}
