//! Aggressive AQM marking with thresholds scaled by N^α (Eun & Wang 2008, "Achieving 100% Throughput in
//! TCP/AQM Under Aggressive Packet Marking With Small Buffer", IEEE/ACM ToN 16(4); note §2.2, §2.9).
//!
//! The marking function is `p^N(q) = p(q / N^α)` (eq. 2), with the base functions of Table I:
//!
//! | profile | p(x), x = q / N^α | level where RED types reach 1 (ns-2's `max_th`) |
//! |---|---|---|
//! | `red1` | 0 below 2; `0.2·(x−2)/(10−2)` on [2, 10); 1 from 10 | 10·N^α |
//! | `red2` | 0 below 4; `0.05·(x−4)/(11−4)` on [4, 11); 1 from 11 | 11·N^α |
//! | `exp`  | `1 − exp(−x/γ)`, γ = −10 / ln(1 − 0.2) ≈ 44.81, so p(10) = 0.2 = RED1's p_max | 10·N^α |
//!
//! and the buffer `B(N) = ⌈12·N^(α+ε)⌉` packets (Table I, Theorem 2; rounded up as
//! `bufferlab.models.eun_wang.buffer_size` does). Defaults are the paper's simulations (§3.2): RED1,
//! α = 0.2, ε = 0.1, the instantaneous queue (RED `q_weight` = 1).
//!
//! **One discipline with a `profile`**, not three names: the three schemes of Table I differ only in
//! `p(x)`; the N^α scaling, the buffer rule, the queue measure and the reading of the paper (below) are
//! common to them, and the paper compares them at equal settings (Figs. 4, 6, 8), so a scenario switches
//! scheme by one field and the parameter table exists once.
//!
//! Choices the paper leaves open, each a parameter (defaults first):
//!
//! - **N** (`flows`): `"configured"`, the TCP flows whose route crosses the port (the paper's N: every flow
//!   is persistent and known when the AQM is configured); a number (`flows = 100`), e.g. N rather than the
//!   2N flows that cross router 2 of Fig. 7 (the note, §3.4, says the paper does not tell which); or
//!   `"live"`, the configured count at build and then the number of flows active through the port,
//!   updated as flows start, stop or finish (at least 1). With `"live"` and `limit = "auto"` the buffer
//!   follows N too; packets already queued above a smaller limit stay.
//! - **Queue measure** (`weight`): 1 is the instantaneous queue (Table I: `q_weight = 1`); below 1 the
//!   ns-2 RED average `avg ← avg·(1−w)^(m+1) + w·q`, with `m` the packets the link could have sent while
//!   idle (the paper also tried 0.002, "similar results"). `q` is the number of packets waiting before the
//!   arrival, not counting the one being transmitted (ns-2's queue length); the model's M/M/1 `Q` counts it.
//! - **Buffer** (`limit`): `"auto"` is `⌈buffer_constant·N^(α+ε)⌉` (`buffer_constant` 12, `epsilon` 0.1;
//!   `epsilon = 0` gives the Θ(N^α) buffer of Theorem 2's counter-example); a number fixes it in packets.
//! - **Reading** (`mode`), the note's §2.9 and §3.5:
//!   - `"marking"` (the model, §2.9's pseudo-code): an arrival that finds `limit` packets waiting is
//!     dropped (`overflow`); otherwise it is marked with probability `p^N(avg)`, independently of earlier
//!     arrivals, including with probability 1 at `x ≥` the RED types' top level. Losses are overflows only.
//!   - `"ns2-red"` (ns-2 `Queue/RED` with `setbit_` and the thresholds of Table I, as the paper's ns-2
//!     runs presumably were): exactly the `red` discipline's decision (count-based spreading with `wait`,
//!     no action the first time above `min_th` or while `q ≤ 1`, a **forced drop** at `avg ≥ max_th`, or
//!     at `2·max_th` with `gentle`, where `p_b` ramps from `p_max` to 1), then the buffer check. For `exp`
//!     (ns-2 has no such profile; a reconstruction): `min_th = 0`, `p_b = 1 − exp(−avg/(γN^α))` below
//!     `max_th = 10·N^α`, and the same forced-drop and gentle rules with `p_max = 0.2`. `gentle` and `wait`
//!     (both true, ns-2's defaults) apply to this reading only.
//! - **Not-ECT packets** (`ecn`): with `ecn = true` (default; needs ECN senders) a marking decision sets
//!   CE on ECT packets and drops Not-ECT ones (the senders' retransmissions, RFC 3168 §6.1.5; queued ACKs;
//!   datagrams), as RED does, so a few `early` drops remain in the marking reading; `ecn = false` drops
//!   instead of marking (a loss-based variant, not the paper's).
//! - **`mark_p`** (`mode = "ns2-red"` only; default: none, always mark): ns-2's `use_mark_p_`/`mark_p_`
//!   (`queue/red.cc` `drop_early`; since ns-2.30, Dec 2005, `use_mark_p_ true`, `mark_p_ 0.1`): an early
//!   decision on an ECT packet marks only while the base probability `p_b` (before the `count` spreading)
//!   is below `mark_p`, and drops it (`early`) at `p_b ≥ mark_p`, on the gentle ramp above `max_th` too.
//!   Forced drops stay drops. ns-2 of the paper's year ran with `mark_p = 0.1`, so RED1 (`p_max` 0.2)
//!   drops instead of marking from `p_b = 0.1`, i.e. from `x = 6`; RED2 (`p_max` 0.05) only on the ramp.
//!
//! Reasons: probabilistic decisions (marks, and drops of Not-ECT packets) are `early`, ns-2's forced drops
//! `forced`, buffer overflows `overflow`.

use super::red::{AboveMax, CountRule, Ramp, RedCore, RedDecision, RedTest, MARK_P};
use super::{reason, resolve_limit, Discipline, Fifo, Limit, QueueContext, QueueDisc, QueueEffects};
use crate::packet::Packet;
use crate::rng::Rng;
use crate::spec::params::{name_params, params, Kind, ParamValue};
use crate::spec::{err, ScenarioError};
use crate::time::Time;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The base marking functions of Table I.
#[derive(Deserialize, Serialize, Debug, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum Profile {
    Red1,
    Red2,
    Exp,
}

/// γ of the EXP profile: `−10 / ln(1 − 0.2)`, so `1 − exp(−10/γ) = 0.2` (Table I).
pub fn exp_gamma() -> f64 {
    -10.0 / (-0.2f64).ln_1p()
}

impl Profile {
    /// `(x_min, x_max, p_max)`: the scaled thresholds and the top of the ramp (Table I). EXP has no lower
    /// threshold and is matched to RED1 at x = 10, where it equals 0.2.
    pub fn table(self) -> (f64, f64, f64) {
        match self {
            Profile::Red1 => (2.0, 10.0, 0.2),
            Profile::Red2 => (4.0, 11.0, 0.05),
            Profile::Exp => (0.0, 10.0, 0.2),
        }
    }

    /// The name a scenario writes.
    pub fn name(self) -> &'static str {
        match self {
            Profile::Red1 => "red1",
            Profile::Red2 => "red2",
            Profile::Exp => "exp",
        }
    }
}

/// The reading of the paper's AQM: the model's independent marking, or ns-2 RED (see the module doc).
#[derive(Deserialize, Serialize, Debug, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum Mode {
    Marking,
    Ns2Red,
}

/// Which N scales the thresholds: `"configured"`, `"live"` or a number of flows.
#[derive(Deserialize, Serialize, Debug, Clone, Copy, PartialEq, Eq)]
#[serde(try_from = "Value", into = "Value")]
pub enum Flows {
    Configured,
    Live,
    Fixed(u64),
}

impl TryFrom<Value> for Flows {
    type Error = String;
    fn try_from(v: Value) -> Result<Self, String> {
        match &v {
            Value::String(s) if s == "configured" => Ok(Flows::Configured),
            Value::String(s) if s == "live" => Ok(Flows::Live),
            Value::Number(n) if n.as_u64().is_some() => Ok(Flows::Fixed(n.as_u64().unwrap_or(0))),
            _ => Err(format!("expected a number of flows, \"configured\" or \"live\" (got {v})")),
        }
    }
}

impl From<Flows> for Value {
    fn from(f: Flows) -> Value {
        match f {
            Flows::Configured => "configured".into(),
            Flows::Live => "live".into(),
            Flows::Fixed(n) => n.into(),
        }
    }
}

/// The buffer: `"auto"` (`⌈c·N^(α+ε)⌉`) or a number of packets.
#[derive(Deserialize, Serialize, Debug, Clone, Copy, PartialEq, Eq)]
#[serde(try_from = "Value", into = "Value")]
pub enum Buffer {
    Auto,
    Packets(u64),
}

impl TryFrom<Value> for Buffer {
    type Error = String;
    fn try_from(v: Value) -> Result<Self, String> {
        match &v {
            Value::String(s) if s == "auto" => Ok(Buffer::Auto),
            Value::Number(n) if n.as_u64().is_some() => Ok(Buffer::Packets(n.as_u64().unwrap_or(0))),
            _ => Err(format!("expected a number of packets or \"auto\" (got {v})")),
        }
    }
}

impl From<Buffer> for Value {
    fn from(b: Buffer) -> Value {
        match b {
            Buffer::Auto => "auto".into(),
            Buffer::Packets(n) => n.into(),
        }
    }
}

params! {
    /// Eun & Wang 2008 (Table I, §II-B eq. (2), §V): marking thresholds scaled by N^α,
    /// p^N(q) = p(q/N^α), q the packets waiting (not the one in service). Defaults: Table I and §3.2 (RED1,
    /// α = 0.2, ε = 0.1, B = 12·N^0.3, instantaneous queue, ECN marking).
    pub struct Spec {
        /// The base marking function of Table I: "red1" (0 below 2, 0.2·(x−2)/8 up to 10, then 1), "red2"
        /// (4, 11, 0.05) or "exp" (1 − e^(−x/γ), γ = −10/ln 0.8 = 44.81); x = q/N^α.
        profile: Profile = Profile::Red1, Rule::names(&["red1", "red2", "exp"]);
        /// The threshold exponent: thresholds ∝ N^α (the paper's regime: 0 < α < 1/2).
        alpha: f64 = 0.2, Rule::closed(0.0, 1.0);
        /// Which N scales the thresholds: "configured" (the TCP flows whose route crosses the port), a
        /// number N, or "live" (the flows active through the port, updated as they start, stop and finish).
        flows: Flows = Flows::Configured, Rule::closed(1.0, 1e9).and_context("or \"configured\", \"live\"");
        /// The EWMA weight of the queue measure: 1 = the instantaneous queue (Table I); below 1, ns-2 RED's
        /// EWMA with its idle correction.
        weight: f64 = 1.0, Rule::left_open(0.0, 1.0);
        /// The buffer: "auto" (⌈`buffer_constant`·N^(α+`epsilon`)⌉ packets, following a live N) or packets.
        limit: Buffer = Buffer::Auto, Rule::closed(1.0, (1u64 << 40) as f64).unit("packets");
        /// ε of the automatic buffer.
        epsilon: f64 = 0.1, Rule::closed(0.0, 1.0);
        /// The constant of the automatic buffer.
        buffer_constant: f64 = 12.0, Rule::left_open(0.0, 1e9).unit("packets");
        /// "marking" (§2.9's model: an arrival finding `limit` packets is an `overflow` drop, otherwise
        /// marked with probability p^N(q)) or "ns2-red" (exactly `red`'s decision at the scaled thresholds,
        /// count-spread marks and forced drops).
        mode: Mode = Mode::Marking, Rule::names(&["marking", "ns2-red"]);
        /// Mark ECT packets (drop Not-ECT ones; needs tcp.ecn); false: drop instead of marking.
        ecn: bool = true;
        /// As `red`'s, `mode = "ns2-red"` only.
        gentle: bool = true;
        /// As `red`'s, `mode = "ns2-red"` only.
        wait: bool = true;
        /// ns-2's `mark_p_`, as `red`'s, `mode = "ns2-red"` only; default: always mark.
        #[serde(skip_serializing_if = "Option::is_none")]
        mark_p: Option<f64> = None, MARK_P.and_context("mode = \"ns2-red\" only");
    }
}

name_params!(Profile, Mode);

impl ParamValue for Flows {
    const KIND: Kind = Kind::Name;
    fn number(&self) -> Option<f64> {
        match self {
            Flows::Fixed(n) => Some(*n as f64),
            _ => None,
        }
    }
}

impl ParamValue for Buffer {
    const KIND: Kind = Kind::Name;
    fn number(&self) -> Option<f64> {
        match self {
            Buffer::Packets(n) => Some(*n as f64),
            Buffer::Auto => None,
        }
    }
}

/// `N^α`, the factor every threshold is scaled by (eq. 2).
pub fn scale(flows: u32, alpha: f64) -> f64 {
    (flows.max(1) as f64).powf(alpha)
}

/// `⌈c·N^(α+ε)⌉` packets, at least 1 (Table I; `bufferlab.models.eun_wang.buffer_size`).
pub fn auto_limit(flows: u32, alpha: f64, epsilon: f64, constant: f64) -> u64 {
    let b = constant * (flows.max(1) as f64).powf(alpha + epsilon);
    ((b - 1e-9).ceil() as u64).max(1)
}

/// The thresholds in packets at one N.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Thresholds {
    /// N^α.
    pub scale: f64,
    /// `x_min·N^α`, `x_max·N^α` (RED types: where marking starts and where it reaches 1; EXP: 0 and the
    /// level matched to RED1).
    pub min_th: f64,
    pub max_th: f64,
    /// EXP: `γ·N^α`.
    pub exp_scale: f64,
}

impl Thresholds {
    pub fn new(profile: Profile, flows: u32, alpha: f64) -> Self {
        let s = scale(flows, alpha);
        let (lo, hi, _) = profile.table();
        Thresholds { scale: s, min_th: lo * s, max_th: hi * s, exp_scale: exp_gamma() * s }
    }
}

/// `p^N(q) = p(q/N^α)` for queue `q` packets (eq. 2, Table I), with the thresholds in packets.
pub fn probability(profile: Profile, th: &Thresholds, q: f64) -> f64 {
    let (_, _, p_max) = profile.table();
    match profile {
        Profile::Red1 | Profile::Red2 => {
            if q < th.min_th {
                0.0
            } else if q < th.max_th {
                p_max * (q - th.min_th) / (th.max_th - th.min_th)
            } else {
                1.0
            }
        }
        Profile::Exp => -(-q / th.exp_scale).exp_m1(),
    }
}

/// The ns2-red reading's forced-drop level: `2·max_th` with `gentle`, else `max_th` (ns-2).
fn forced_th(gentle: bool, th: &Thresholds) -> f64 {
    if gentle {
        2.0 * th.max_th
    } else {
        th.max_th
    }
}

/// The profile's `p_b` below `max_th` in RED's test: RED1 and RED2 are RED's line, EXP its curve.
fn ramp(profile: Profile, th: &Thresholds) -> Ramp {
    match profile {
        Profile::Red1 | Profile::Red2 => Ramp::Linear,
        Profile::Exp => Ramp::Exp { scale: th.exp_scale },
    }
}

pub struct EunWang {
    profile: Profile,
    mode: Mode,
    ecn: bool,
    gentle: bool,
    /// ns-2's `mark_p_` (ns2-red reading); `None`: always mark.
    mark_p: Option<f64>,
    alpha: f64,
    epsilon: f64,
    buffer_constant: f64,
    /// `Some(n)`: a fixed limit; `None`: `auto_limit` of the current N.
    fixed_limit: Option<u64>,
    live: bool,
    flows: u32,
    th: Thresholds,
    limit: u64,
    fifo: Fifo,
    /// ns-2 RED's average (with its idle correction) and, in the ns2-red reading, its test at the scaled
    /// thresholds with the profile's ramp; its random stream serves the model's marks too.
    red: RedCore,
}

impl Discipline for EunWang {
    type Spec = Spec;
    fn build(s: &Spec, ctx: QueueContext) -> Result<Self, ScenarioError> {
        let flows = match s.flows {
            Flows::Fixed(n) => n as u32,
            Flows::Configured if ctx.flows == 0 => {
                return err(
                    &ctx.field("flows"),
                    "no TCP flow crosses this port: give the number of flows (flows = N) or \"live\"",
                )
            }
            Flows::Configured | Flows::Live => ctx.flows.max(1),
        };
        let fixed_limit = match s.limit {
            Buffer::Auto => None,
            Buffer::Packets(n) => match resolve_limit(Some(n), None, &ctx)? {
                Limit::Packets(n) => Some(n),
                Limit::Bytes(_) => None,
            },
        };
        if s.mark_p.is_some() && s.mode != Mode::Ns2Red {
            return err(
                &ctx.field("mark_p"),
                "applies to mode = \"ns2-red\" only (the model's marking has no drop threshold); leave it out",
            );
        }
        if s.ecn && !ctx.ecn_senders {
            return err(
                &ctx.field("ecn"),
                "needs tcp.ecn = true (senders must send ECT packets), or ecn = false",
            );
        }
        let th = Thresholds::new(s.profile, flows, s.alpha);
        let (_, _, p_max) = s.profile.table();
        let test = RedTest {
            min_th: th.min_th,
            max_th: th.max_th,
            max_p: p_max,
            weight: s.weight,
            wait: s.wait,
            above_max: if s.gentle { AboveMax::Gentle } else { AboveMax::One },
            ramp: ramp(s.profile, &th),
            forced_th: forced_th(s.gentle, &th),
            count: CountRule::SinceDecision,
            ptc: ctx.link_rate_bps / (8.0 * ctx.packet_size.max(1) as f64),
        };
        let mut q = EunWang {
            profile: s.profile,
            mode: s.mode,
            ecn: s.ecn,
            gentle: s.gentle,
            mark_p: s.mark_p,
            alpha: s.alpha,
            epsilon: s.epsilon,
            buffer_constant: s.buffer_constant,
            fixed_limit,
            live: s.flows == Flows::Live,
            flows: 0,
            th,
            limit: 1,
            fifo: Fifo::default(),
            red: RedCore::new(test, ctx.rng),
        };
        q.set_flows(flows);
        Ok(q)
    }
}

impl EunWang {
    /// Rescale the thresholds (and an automatic buffer) to `n` flows.
    fn set_flows(&mut self, n: u32) {
        let n = n.max(1);
        if n == self.flows {
            return;
        }
        self.flows = n;
        self.th = Thresholds::new(self.profile, n, self.alpha);
        let th = &self.th;
        self.red.set_thresholds(th.min_th, th.max_th, forced_th(self.gentle, th), ramp(self.profile, th));
        self.limit =
            self.fixed_limit.unwrap_or_else(|| auto_limit(n, self.alpha, self.epsilon, self.buffer_constant));
    }

    /// The N the thresholds are scaled by now.
    pub fn flows(&self) -> u32 {
        self.flows
    }

    /// The thresholds in packets now.
    pub fn thresholds(&self) -> Thresholds {
        self.th
    }

    /// The buffer now, packets waiting.
    pub fn limit(&self) -> u64 {
        self.limit
    }

    /// The queue measure (instantaneous, or its average).
    pub fn average(&self) -> f64 {
        self.red.average()
    }

    /// The marking probability `p^N(q)` at queue measure `q` packets (eq. 2).
    pub fn probability(&self, q: f64) -> f64 {
        probability(self.profile, &self.th, q)
    }

    fn admit(&mut self, mut pkt: Packet, now: Time, fx: &mut QueueEffects) {
        if (self.fifo.len() as u64) < self.limit {
            pkt.enqueued_at = now;
            self.fifo.push(pkt);
        } else {
            fx.drop(pkt, reason::OVERFLOW);
        }
    }
}

impl QueueDisc for EunWang {
    fn enqueue(&mut self, mut pkt: Packet, now: Time, fx: &mut QueueEffects) {
        let q = self.fifo.len();
        let avg = self.red.update_average(now, q);
        let mut may_mark = true;
        let early = match self.mode {
            Mode::Marking => {
                // §2.9: overflow first, then an independent mark with probability p^N(q).
                if (self.fifo.len() as u64) >= self.limit {
                    return fx.drop(pkt, reason::OVERFLOW);
                }
                let p = self.probability(avg);
                p >= 1.0 || (p > 0.0 && self.red.rng().uniform() < p)
            }
            Mode::Ns2Red => match self.red.test(q) {
                RedDecision::Forced => return fx.drop(pkt, reason::FORCED),
                RedDecision::Early => {
                    may_mark = super::red::may_mark(self.mark_p, self.red.early_base_probability());
                    true
                }
                RedDecision::Accept => false,
            },
        };
        if early && !(self.ecn && may_mark && fx.mark(&mut pkt, reason::EARLY)) {
            return fx.drop(pkt, reason::EARLY);
        }
        self.admit(pkt, now, fx);
    }

    fn dequeue(&mut self, now: Time, _fx: &mut QueueEffects) -> Option<Packet> {
        let p = self.fifo.pop();
        if p.is_none() {
            self.red.on_empty(now);
        }
        p
    }

    fn len(&self) -> usize {
        self.fifo.len()
    }

    fn bytes(&self) -> u64 {
        self.fifo.bytes()
    }
    fn capacity(&self) -> Option<Limit> {
        match (self.fixed_limit, self.live) {
            (Some(n), _) => Some(Limit::Packets(n)),
            (None, false) => Some(Limit::Packets(self.limit)),
            (None, true) => None,
        }
    }

    fn on_active_flows(&mut self, active: u32) {
        if self.live {
            self.set_flows(active);
        }
    }
}

/// The discipline a queue table builds for `flows` TCP flows, described as JSON: its N, N^α, thresholds,
/// buffer and `p^N(q)` at each of `queues` (for checks against `bufferlab.models.eun_wang`).
pub fn describe(table: &Value, flows: u32, queues: &[f64]) -> Result<Value, ScenarioError> {
    let spec: Spec = crate::spec::from_value(table.clone(), "queue")?;
    let ctx = QueueContext {
        field: "queue",
        link_rate_bps: 1e7,
        packet_size: 500,
        flows,
        ecn_senders: true,
        rng: Rng::new(0, 0),
    };
    let q = EunWang::from_spec(&spec, ctx)?;
    let th = q.thresholds();
    Ok(serde_json::json!({
        "profile": spec.profile.name(),
        "flows": q.flows(),
        "scale": th.scale,
        "min_th": th.min_th,
        "max_th": th.max_th,
        "exp_scale": th.exp_scale,
        "limit": q.limit(),
        "probabilities": queues.iter().map(|&x| q.probability(x)).collect::<Vec<f64>>(),
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::packet::Ecn;
    use crate::queue::red::{Red, RedParams};
    use crate::queue::{test_context, test_packet, QueueSpec, Stage};
    use crate::time::from_secs;

    fn build(table: Value, flows: u32) -> EunWang {
        let spec: Spec = crate::spec::from_value(table, "q").unwrap();
        EunWang::from_spec(&spec, QueueContext { flows, ..test_context("q") }).unwrap()
    }

    fn ect(seq: u32) -> Packet {
        Packet { ecn: Ecn::Ect, ..test_packet(0, seq, 1000) }
    }

    fn round(x: f64, digits: i32) -> f64 {
        let f = 10f64.powi(digits);
        (x * f).round() / f
    }

    #[test]
    fn thresholds_and_buffers_reproduce_the_table() {
        // The note's §2.2 table (α = 0.2, ε = 0.1): N, N^0.2, RED1 (min, max), RED2 (min, max), EXP γN^α,
        // B = 12 N^0.3, each to the precision printed there.
        type Row = (u32, f64, (f64, f64), (f64, f64), f64, f64);
        let rows: [Row; 6] = [
            (10, 1.58, (3.2, 15.8), (6.3, 17.4), 71.0, 23.9),
            (100, 2.51, (5.0, 25.1), (10.0, 27.6), 113.0, 47.8),
            (200, 2.89, (5.8, 28.9), (11.5, 31.7), 129.0, 58.8),
            (500, 3.47, (6.9, 34.7), (13.9, 38.1), 155.0, 77.4),
            (1000, 3.98, (8.0, 39.8), (15.9, 43.8), 178.0, 95.3),
            (1300, 4.20, (8.4, 42.0), (16.8, 46.2), 188.0, 103.1),
        ];
        for (n, na, red1, red2, gamma_na, b) in rows {
            let t1 = Thresholds::new(Profile::Red1, n, 0.2);
            let t2 = Thresholds::new(Profile::Red2, n, 0.2);
            let te = Thresholds::new(Profile::Exp, n, 0.2);
            assert_eq!(round(t1.scale, 2), na, "N = {n}");
            assert_eq!((round(t1.min_th, 1), round(t1.max_th, 1)), red1, "RED1 at N = {n}");
            assert_eq!((round(t2.min_th, 1), round(t2.max_th, 1)), red2, "RED2 at N = {n}");
            assert_eq!(round(te.exp_scale, 0), gamma_na, "EXP at N = {n}");
            assert_eq!(round(12.0 * (n as f64).powf(0.3), 1), b, "B at N = {n}");
            // The buffer is that rule rounded up.
            assert_eq!(auto_limit(n, 0.2, 0.1, 12.0), (b + 0.05).ceil() as u64, "B at N = {n}");
            let q = build(serde_json::json!({}), n);
            assert_eq!(q.limit(), auto_limit(n, 0.2, 0.1, 12.0));
            assert_eq!(q.thresholds(), t1);
        }
        // α = 0.3 (Fig. 5), ε = 0.1: B = 12 N^0.4 = 75.7 packets at N = 100 and 190 at N = 1000.
        assert_eq!(auto_limit(100, 0.3, 0.1, 12.0), 76);
        assert_eq!(auto_limit(1000, 0.3, 0.1, 12.0), 191);
        assert_eq!(round(12.0 * 1000f64.powf(0.4), 0), 190.0);
        // γ = −10 / ln 0.8 = 44.81, and EXP equals RED1's p_max at 10 N^α.
        assert!((exp_gamma() - 44.814_201_177_245_51).abs() < 1e-11);
        let te = Thresholds::new(Profile::Exp, 100, 0.2);
        assert!((probability(Profile::Exp, &te, te.max_th) - 0.2).abs() < 1e-15);
    }

    #[test]
    fn marking_probability_matches_table_one_by_hand() {
        // N = 100, α = 0.2: N^α = 2.5118864315095806.
        let s = 100f64.powf(0.2);
        let red1 = Thresholds::new(Profile::Red1, 100, 0.2);
        let red2 = Thresholds::new(Profile::Red2, 100, 0.2);
        let exp = Thresholds::new(Profile::Exp, 100, 0.2);
        // (q, RED1 = 0.2 (q/s − 2)/8 on [2s, 10s) else 0 or 1, RED2 = 0.05 (q/s − 4)/7 on [4s, 11s),
        //  EXP = 1 − exp(−q/(44.8142 s)))
        let cases = [
            (0.0, 0.0, 0.0, 0.0),
            (3.0, 0.0, 0.0, 0.026_298_523_241_508_512),
            (5.0, 0.0, 0.0, 0.043_445_510_295_518_35),
            (6.0, 0.009_716_075_583_024_586, 0.0, 0.051_905_434_158_332_86),
            (10.0, 0.049_526_792_638_374_32, 0.0, 0.085_003_508_226_198_72),
            (20.0, 0.149_053_585_276_748_64, 0.028_301_024_364_785_324, 0.162_781_420_041_635_98),
            (25.0, 0.198_816_981_595_935_8, 0.042_519_137_598_838_797, 0.199_154_808_476_816_38),
            (26.0, 1.0, 0.045_362_760_245_649_49, 0.206_237_613_919_797_78),
            (40.0, 1.0, 1.0, 0.299_065_049_372_500_45),
        ];
        for (q, p1, p2, pe) in cases {
            assert!((probability(Profile::Red1, &red1, q) - p1).abs() < 1e-12, "RED1 at q = {q}");
            assert!((probability(Profile::Red2, &red2, q) - p2).abs() < 1e-12, "RED2 at q = {q}");
            assert!((probability(Profile::Exp, &exp, q) - pe).abs() < 1e-12, "EXP at q = {q}");
        }
        // The jumps: RED1 reaches 1 at exactly 10 N^α, RED2 at 11 N^α; just below, p_max.
        assert_eq!(probability(Profile::Red1, &red1, 10.0 * s), 1.0);
        assert!((probability(Profile::Red1, &red1, 10.0 * s - 1e-9) - 0.2).abs() < 1e-9);
        assert_eq!(probability(Profile::Red2, &red2, 11.0 * s), 1.0);
        assert_eq!(probability(Profile::Red1, &red1, 2.0 * s), 0.0);
    }

    #[test]
    fn marking_mode_marks_with_the_scaled_probability_and_drops_only_on_overflow() {
        // RED1, N = 100: hold the instantaneous queue at q = 10 (p = 0.0495...), then at 30 (p = 1).
        for (hold, p) in [(10usize, 0.049_526_792_638_374_32), (30, 1.0)] {
            let mut q = build(serde_json::json!({"limit": 100}), 100);
            let mut fx = QueueEffects::default();
            for s in 0..hold as u32 {
                q.fifo.push(ect(s));
            }
            let n = 200_000;
            for s in 0..n {
                q.enqueue(ect(s), 0, &mut fx);
                q.dequeue(0, &mut fx);
            }
            assert!(fx.drops.is_empty());
            let rate = fx.marks.len() as f64 / n as f64;
            let sd = (p * (1.0 - p) / n as f64).sqrt();
            assert!((rate - p).abs() <= 4.0 * sd + 1e-12, "q = {hold}: {rate} vs {p}");
            assert!(fx.marks.iter().all(|m| m.1 == reason::EARLY));
        }
        // The buffer: B(100) = 48 packets waiting; the 49th arrival is an overflow, never marked first.
        let mut q = build(serde_json::json!({}), 100);
        let mut fx = QueueEffects::default();
        for s in 0..49 {
            q.enqueue(ect(s), 0, &mut fx);
        }
        assert_eq!(q.len(), 48);
        assert_eq!(fx.drops.len(), 1);
        assert_eq!((fx.drops[0].1, fx.drops[0].2), (reason::OVERFLOW, Stage::BeforeEnqueue));
        assert_eq!(fx.drops[0].0.ecn, Ecn::Ect);
        // From q = 26 > 10 N^α = 25.1 every admitted arrival was marked.
        assert!(fx.marks.len() >= 48 - 26);
    }

    #[test]
    fn not_ect_packets_are_dropped_where_ect_ones_are_marked() {
        let mut q = build(serde_json::json!({"limit": 100}), 100);
        let mut fx = QueueEffects::default();
        for s in 0..30 {
            q.fifo.push(ect(s));
        }
        q.enqueue(test_packet(0, 99, 1000), 0, &mut fx); // Not-ECT, p = 1
        assert_eq!(fx.drops.len(), 1);
        assert_eq!(fx.drops[0].1, reason::EARLY);
        let mut q = build(serde_json::json!({"limit": 100, "ecn": false}), 100);
        for s in 0..30 {
            q.fifo.push(ect(s));
        }
        let mut fx = QueueEffects::default();
        q.enqueue(ect(99), 0, &mut fx); // ecn = false: dropped although ECT
        assert!(fx.marks.is_empty());
        assert_eq!(fx.drops[0].1, reason::EARLY);
    }

    #[test]
    fn the_average_is_ns2_reds_ewma() {
        let mut q = build(serde_json::json!({"weight": 0.002, "limit": 1000}), 100);
        let mut fx = QueueEffects::default();
        let mut expect = 0.0;
        for s in 0..50u32 {
            q.enqueue(ect(s), 0, &mut fx);
            expect = expect * (1.0 - 0.002) + 0.002 * s as f64;
        }
        assert!((q.average() - expect).abs() < 1e-15);
        // Idle for 0.5 s at 1000 packets/s (8 Mb/s, 1000 B): avg (1 − w)^(500 + 1).
        while q.dequeue(from_secs(1.0), &mut fx).is_some() {}
        q.enqueue(ect(50), from_secs(1.5), &mut fx);
        assert!((q.average() - expect * 0.998f64.powi(501)).abs() < 1e-12);
        // weight = 1: the instantaneous queue.
        let mut q = build(serde_json::json!({"limit": 1000}), 100);
        for s in 0..7 {
            q.enqueue(ect(s), 0, &mut fx);
        }
        assert_eq!(q.average(), 6.0);
    }

    #[test]
    fn live_n_rescales_thresholds_and_the_automatic_buffer() {
        let mut q = build(serde_json::json!({"flows": "live"}), 100);
        assert_eq!((q.flows(), q.limit()), (100, 48));
        q.on_active_flows(1000);
        assert_eq!(q.flows(), 1000);
        assert_eq!(q.thresholds(), Thresholds::new(Profile::Red1, 1000, 0.2));
        assert_eq!(q.limit(), 96); // ⌈12·1000^0.3⌉ = ⌈95.3⌉
        q.on_active_flows(0); // no flow active: N = 1, B = 12
        assert_eq!((q.flows(), q.limit()), (1, 12));
        // A fixed N or limit does not move.
        let mut q = build(serde_json::json!({"flows": 10, "limit": 30}), 100);
        assert_eq!(q.flows(), 10);
        q.on_active_flows(1000);
        assert_eq!((q.flows(), q.limit()), (10, 30));
        let mut q = build(serde_json::json!({"flows": "live", "limit": 30}), 100);
        q.on_active_flows(1000);
        assert_eq!((q.flows(), q.limit()), (1000, 30));
        // "configured" is the port's N, fixed.
        let mut q = build(serde_json::json!({"epsilon": 0.0, "buffer_constant": 20}), 100);
        assert_eq!(q.limit(), 51); // ⌈20·100^0.2⌉ = ⌈50.24⌉
        q.on_active_flows(5);
        assert_eq!(q.flows(), 100);
    }

    #[test]
    fn ns2_reading_is_the_red_discipline_with_scaled_thresholds() {
        // RED1 and RED2 with ns-2 semantics decide exactly as `red` with min_th = x_min N^α,
        // max_th = x_max N^α, max_p = p_max: same random stream, same arrivals and departures.
        for (profile, gentle, wait, weight) in [
            ("red1", true, true, 1.0),
            ("red1", false, true, 1.0),
            ("red2", true, false, 0.002),
            ("red2", false, false, 1.0),
        ] {
            let n = 200;
            let table = serde_json::json!({"profile": profile, "mode": "ns2-red", "gentle": gentle,
                                           "wait": wait, "weight": weight, "limit": 100});
            let mut ew = build(table, n);
            let th = ew.thresholds();
            let (_, _, p_max) = ew.profile.table();
            let params = RedParams {
                min_th: th.min_th,
                max_th: th.max_th,
                max_p: p_max,
                weight,
                gentle,
                wait,
                ecn: true,
                hard_drop: true,
                mean_pktsize: 1000,
                link_rate_bps: 8e6,
                limit: Limit::Packets(100),
                mark_p: None,
            };
            let mut red = Red::new(params, test_context("q").rng);
            let (mut fa, mut fb) = (QueueEffects::default(), QueueEffects::default());
            let mut traffic = Rng::new(7, 9);
            let mut now = 0;
            for s in 0..100_000u32 {
                now += (traffic.uniform() * 2e9) as u64; // mean 1 ms apart, the link's packet time
                let pkt = if s % 10 == 0 { test_packet(0, s, 1000) } else { ect(s) };
                ew.enqueue(pkt, now, &mut fa);
                red.enqueue(pkt, now, &mut fb);
                // Phases of overload (the queue reaches the forced-drop level) and of underload (it empties).
                let drain = if (s / 5000) % 2 == 0 { 0.45 } else { 1.5 };
                for k in 0..2 {
                    if traffic.uniform() < drain - k as f64 {
                        let (a, b) = (ew.dequeue(now, &mut fa), red.dequeue(now, &mut fb));
                        assert_eq!(a.map(|p| p.seq), b.map(|p| p.seq));
                    }
                }
            }
            assert_eq!(fa.drops, fb.drops, "{profile} gentle={gentle} wait={wait}");
            assert_eq!(fa.marks, fb.marks, "{profile}");
            let forced = fa.drops.iter().filter(|d| d.1 == reason::FORCED).count();
            assert!(
                !fa.marks.is_empty() && forced > 0,
                "{profile}: {} marks, {forced} forced",
                fa.marks.len()
            );
        }
    }

    #[test]
    fn ns2_reading_of_exp_forces_drops_above_max_th_and_ramps_when_gentle() {
        let t = Thresholds::new(Profile::Exp, 100, 0.2);
        // Below max_th: the profile; gentle ramp from 0.2 at max_th to 1 at 2 max_th.
        let gentle = build(serde_json::json!({"profile": "exp", "mode": "ns2-red", "limit": 100}), 100);
        assert_eq!(gentle.red.base_probability(10.0), probability(Profile::Exp, &t, 10.0));
        let mid = 1.5 * t.max_th;
        assert!((gentle.red.base_probability(mid) - 0.6).abs() < 1e-12);
        // Non-gentle: p_b = 1 from max_th, and the arrival finding avg = q ≥ 10 N^α = 25.1 (q = 26) is a
        // forced drop.
        let mut q = build(
            serde_json::json!({"profile": "exp", "mode": "ns2-red", "gentle": false, "limit": 100}),
            100,
        );
        assert_eq!(q.red.base_probability(t.max_th), 1.0);
        for s in 0..26 {
            q.fifo.push(ect(s));
        }
        let mut fx = QueueEffects::default();
        q.enqueue(ect(26), 0, &mut fx);
        assert_eq!(fx.drops.len(), 1);
        assert_eq!(fx.drops[0].1, reason::FORCED);
        // In the marking reading the same arrival is marked with probability p(26/N^α) < 1 or admitted.
        let mut q = build(serde_json::json!({"profile": "exp", "limit": 100}), 100);
        for s in 0..26 {
            q.fifo.push(ect(s));
        }
        let mut fx = QueueEffects::default();
        q.enqueue(ect(26), 0, &mut fx);
        assert!(fx.drops.is_empty());
        assert_eq!(q.len(), 27);
    }

    #[test]
    fn every_bad_parameter_names_its_field() {
        let ctx = |flows, ecn| QueueContext { flows, ecn_senders: ecn, ..test_context("bottleneck.queue") };
        let cases: [(Value, &str); 11] = [
            (serde_json::json!({"alpha": -0.1}), "alpha"),
            (serde_json::json!({"alpha": 1.5}), "alpha"),
            (serde_json::json!({"weight": 0}), "weight"),
            (serde_json::json!({"weight": 1.5}), "weight"),
            (serde_json::json!({"epsilon": -1}), "epsilon"),
            (serde_json::json!({"buffer_constant": 0}), "buffer_constant"),
            (serde_json::json!({"flows": 0}), "flows"),
            (serde_json::json!({"limit": 0}), "limit"),
            (serde_json::json!({"profile": "red3"}), "profile"),
            (serde_json::json!({"flows": "many"}), "flows"),
            (serde_json::json!({"limit": "big"}), "limit"),
        ];
        for (params, field) in cases {
            let mut table = params.as_object().unwrap().clone();
            table.insert("discipline".into(), "eun-wang".into());
            let e = QueueSpec::parse(&Value::Object(table), "bottleneck.queue")
                .and_then(|s| s.build(ctx(10, true)).map(|_| ()))
                .unwrap_err();
            assert_eq!(e.field, format!("bottleneck.queue.{field}"), "{params}: {e}");
            assert!(!e.message.contains("Flows") && !e.message.contains("Buffer"), "{e}");
        }
        let spec = QueueSpec::parse(&serde_json::json!({"discipline": "eun-wang", "mode": "ns3"}), "q");
        assert_eq!(spec.unwrap_err().field, "q.mode");
        let spec =
            QueueSpec::parse(&serde_json::json!({"discipline": "eun-wang"}), "bottleneck.queue").unwrap();
        let e = spec.build(ctx(10, false)).err().unwrap();
        assert_eq!(e.field, "bottleneck.queue.ecn");
        let e = spec.build(ctx(0, true)).err().unwrap();
        assert_eq!(e.field, "bottleneck.queue.flows");
        assert!(e.message.contains("live"), "{e}");
        // Defaults as written back in the resolved scenario.
        assert_eq!(
            spec.to_json(),
            serde_json::json!({"discipline": "eun-wang", "profile": "red1", "alpha": 0.2, "flows": "configured",
                "weight": 1.0, "limit": "auto", "epsilon": 0.1, "buffer_constant": 12.0, "mode": "marking",
                "ecn": true, "gentle": true, "wait": true})
        );
    }

    /// ns2-red RED1 with N = 1 (min_th 2, max_th 10, p_max 0.2), w = 1, no `wait`: `n` arrivals of
    /// `ecn` packets to a queue held at `hold` packets from the start.
    fn held(mark_p: Option<f64>, ecn: Ecn, hold: usize, n: u32) -> QueueEffects {
        let mut table = serde_json::json!({"mode": "ns2-red", "wait": false, "limit": 100});
        if let Some(m) = mark_p {
            table["mark_p"] = m.into();
        }
        let mut q = build(table, 1);
        for s in 0..hold {
            q.fifo.push(test_packet(1, s as u32, 1000));
        }
        q.red.prime();
        let mut fx = QueueEffects::default();
        for s in 0..n {
            q.enqueue(Packet { ecn, ..test_packet(0, s, 1000) }, 0, &mut fx);
            if q.len() > hold {
                q.dequeue(0, &mut fx);
            }
        }
        fx
    }

    #[test]
    fn mark_p_marks_below_it_and_drops_at_or_above_it() {
        let early = |fx: &QueueEffects| fx.drops.iter().filter(|d| d.1 == reason::EARLY).count();
        // q = 4: p_b = 0.2·(4−2)/8 = 0.05 < 0.1: marks, the same as without mark_p.
        let (below, always) = (held(Some(0.1), Ecn::Ect, 4, 5000), held(None, Ecn::Ect, 4, 5000));
        assert!(below.marks.len() > 50 && early(&below) == 0);
        assert_eq!((below.marks, below.drops), (always.marks, always.drops));
        // q = 8: p_b = 0.15 ≥ 0.1: the same decisions, now drops; q = 6: p_b = 0.1 = mark_p drops too.
        for hold in [6, 8] {
            let (cut, always) = (held(Some(0.1), Ecn::Ect, hold, 5000), held(None, Ecn::Ect, hold, 5000));
            assert!(cut.marks.is_empty(), "{hold}");
            assert_eq!(early(&cut), always.marks.len(), "{hold}");
            assert!(early(&cut) > 50);
        }
        // Not-ECT packets: the same drops with or without mark_p.
        assert_eq!(held(Some(0.1), Ecn::NotEct, 8, 3000).drops, held(None, Ecn::NotEct, 8, 3000).drops);
        // Forced drops at 2·max_th = 20 are unchanged.
        assert_eq!(held(Some(0.1), Ecn::Ect, 21, 300).drops, held(None, Ecn::Ect, 21, 300).drops);
    }

    #[test]
    fn mark_p_is_checked_and_needs_the_ns2_reading() {
        let ctx = || QueueContext { flows: 10, ..test_context("bottleneck.queue") };
        for bad in [0.0, 1.01, -1.0] {
            let t = serde_json::json!({"discipline": "eun-wang", "mode": "ns2-red", "mark_p": bad});
            let e = QueueSpec::parse(&t, "bottleneck.queue").unwrap().build(ctx()).err().unwrap();
            assert_eq!(e.field, "bottleneck.queue.mark_p");
            assert!(e.message.contains("(0, 1]"), "{e}");
        }
        let t = serde_json::json!({"discipline": "eun-wang", "mark_p": 0.1});
        let e = QueueSpec::parse(&t, "bottleneck.queue").unwrap().build(ctx()).err().unwrap();
        assert_eq!(e.field, "bottleneck.queue.mark_p");
        assert!(e.message.contains("ns2-red"), "{e}");
        let t = serde_json::json!({"discipline": "eun-wang", "mode": "ns2-red", "mark_p": 0.1});
        let spec = QueueSpec::parse(&t, "q").unwrap();
        assert_eq!(spec.to_json()["mark_p"], 0.1);
        assert!(spec.build(ctx()).is_ok());
    }

    #[test]
    fn describe_reports_thresholds_buffer_and_probabilities() {
        let d = describe(&serde_json::json!({"profile": "red2", "alpha": 0.3}), 1000, &[0.0, 50.0, 100.0])
            .unwrap();
        let s = 1000f64.powf(0.3);
        assert_eq!(d["flows"], 1000);
        assert_eq!(d["limit"], auto_limit(1000, 0.3, 0.1, 12.0));
        assert!((d["min_th"].as_f64().unwrap() - 4.0 * s).abs() < 1e-12);
        let p = d["probabilities"].as_array().unwrap();
        assert_eq!(p[0], 0.0);
        assert!((p[1].as_f64().unwrap() - 0.05 * (50.0 / s - 4.0) / 7.0).abs() < 1e-12);
        assert_eq!(p[2], 1.0);
        assert_eq!(describe(&serde_json::json!({"alpha": 2}), 10, &[]).unwrap_err().field, "queue.alpha");
    }
}
