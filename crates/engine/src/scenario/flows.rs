//! Flow groups: `[flows]` (one group) or `[[flows]]` (several), each with its own count or arrival process,
//! per-flow RTT/access/start/stop forms, route, size and TCP settings (the scenario's `[tcp]` with the
//! group's `tcp = { ... }` on top).

use super::network::{Fabric, Form, Network};
use super::{check, err, finite_range, from_value, group_stream, Scenario, ScenarioError};
use crate::rng::{stream, Rng};
use crate::spec::params::{name_params, params, Params};
use crate::tcp::cc::{CcSpec, CongestionControl, EcnMode, CONTROLLERS};
use crate::tcp::{
    BackoffEnd, CaIncrease, EcnResponse, EcnStates, FullAck, InFlight, Pacing, PartialAck, Recovery,
    RecoveryExit, RecoveryTimer, RtoBounds, TcpConfig,
};
use crate::time::{from_secs, to_secs, Time, NEVER};
pub use crate::traffic::SizeDist;
use crate::units::{Bytes, Rate, Seconds};
use serde::de::{self, IntoDeserializer};
use serde::Deserialize;
use serde_json::Value;

/// Without `start`, flows start at times drawn uniformly from [0, this], shortened to a tenth of the
/// duration and to half the earliest stop, so that the seed changes the run: flows that all start at 0
/// on equal paths, with nothing else drawn, give the same run for every seed (`start = "0s"` asks for it).
pub const DEFAULT_START_SPREAD_S: f64 = 1.0;

/// Most TCP flows of a scenario started at fixed times (all groups together).
pub const MAX_FLOWS: u64 = 1_000_000;

/// A per-flow value: one for all, a list with one per flow, or uniform between two bounds (seeded).
#[derive(Debug, Clone)]
pub enum PerFlow<T> {
    One(T),
    List(Vec<T>),
    Uniform(Uniform<T>),
}

#[derive(Deserialize, Debug, Clone)]
#[serde(deny_unknown_fields)]
pub struct Uniform<T> {
    #[serde(deserialize_with = "two_bounds", bound(deserialize = "T: Deserialize<'de>"))]
    pub uniform: (T, T),
}

/// `[low, high]`: exactly two items (a longer list is an error, not its first two).
fn two_bounds<'de, D: de::Deserializer<'de>, T: Deserialize<'de>>(d: D) -> Result<(T, T), D::Error> {
    struct V<T>(std::marker::PhantomData<T>);
    impl<'de, T: Deserialize<'de>> de::Visitor<'de> for V<T> {
        type Value = (T, T);
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("a list of 2 values")
        }
        fn visit_seq<A: de::SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
            let low = seq.next_element()?.ok_or_else(|| de::Error::invalid_length(0, &self))?;
            let high = seq.next_element()?.ok_or_else(|| de::Error::invalid_length(1, &self))?;
            let mut items = 2;
            while seq.next_element::<de::IgnoredAny>()?.is_some() {
                items += 1;
            }
            if items > 2 {
                return Err(de::Error::invalid_length(items, &self));
            }
            Ok((low, high))
        }
    }
    d.deserialize_seq(V(std::marker::PhantomData))
}

/// Told apart by the input's shape (a list, a table, anything else), so that an error inside a form names
/// its key (`flows.rtt.uniform[1]`, `flows.rtt.junk`) rather than "no variant matched".
impl<'de, T: Deserialize<'de>> Deserialize<'de> for PerFlow<T> {
    fn deserialize<D: de::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<T>(std::marker::PhantomData<T>);
        impl<'de, T: Deserialize<'de>> de::Visitor<'de> for V<T> {
            type Value = PerFlow<T>;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a value, a list with one value per flow, or { uniform = [low, high] }")
            }
            fn visit_seq<A: de::SeqAccess<'de>>(self, seq: A) -> Result<Self::Value, A::Error> {
                Vec::deserialize(de::value::SeqAccessDeserializer::new(seq)).map(PerFlow::List)
            }
            fn visit_map<A: de::MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
                Uniform::deserialize(de::value::MapAccessDeserializer::new(map)).map(PerFlow::Uniform)
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
                T::deserialize(v.into_deserializer()).map(PerFlow::One)
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<Self::Value, E> {
                T::deserialize(v.into_deserializer()).map(PerFlow::One)
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Self::Value, E> {
                T::deserialize(v.into_deserializer()).map(PerFlow::One)
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Self::Value, E> {
                T::deserialize(v.into_deserializer()).map(PerFlow::One)
            }
            fn visit_bool<E: de::Error>(self, v: bool) -> Result<Self::Value, E> {
                T::deserialize(v.into_deserializer()).map(PerFlow::One)
            }
        }
        d.deserialize_any(V(std::marker::PhantomData))
    }
}

/// A group's table.
#[derive(Deserialize, Debug, Clone)]
#[serde(deny_unknown_fields)]
struct GroupTable {
    name: Option<String>,
    count: Option<u64>,
    rtt: Option<PerFlow<Seconds>>,
    access_rate: Option<PerFlow<Rate>>,
    start: Option<PerFlow<Seconds>>,
    stop: Option<PerFlow<Seconds>>,
    route: Option<Vec<String>>,
    ack_route: Option<Vec<String>>,
    size: Option<Value>,
    arrival: Option<ArrivalTable>,
    incast: Option<IncastTable>,
    tcp: Option<Value>,
    /// In a leaf-spine: the sending host(s) and receiving host(s), flow `k` taking item `k mod len` of each.
    src: Option<Hosts>,
    dst: Option<Hosts>,
    /// In a leaf-spine, instead of `src` and `dst`: how hosts are paired.
    pattern: Option<Pattern>,
}

/// The access rate without `access_rate`: 1 Gb/s, or in a leaf-spine the most allowed, 10 Tb/s (the host's
/// own stack; its NIC is its `h{i}-up` port, which queues).
fn default_access_rate(form: &Form) -> PerFlow<Rate> {
    match form {
        Form::LeafSpine => PerFlow::One(Rate(1e13)),
        _ => PerFlow::One(Rate(1e9)),
    }
}

/// One host or a list of hosts (read as a [`PerFlow`] form, without `uniform`).
#[derive(Deserialize, Debug, Clone)]
#[serde(try_from = "PerFlow<u64>")]
enum Hosts {
    One(u64),
    List(Vec<u64>),
}

impl TryFrom<PerFlow<u64>> for Hosts {
    type Error = &'static str;
    fn try_from(v: PerFlow<u64>) -> Result<Self, Self::Error> {
        match v {
            PerFlow::One(x) => Ok(Hosts::One(x)),
            PerFlow::List(xs) => Ok(Hosts::List(xs)),
            PerFlow::Uniform(_) => Err("expected a host index, or a list of host indices"),
        }
    }
}

/// How a leaf-spine group pairs hosts.
#[derive(Deserialize, Debug, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
enum Pattern {
    /// Flow `k` from host `k mod hosts` to its image under a seeded permutation of the hosts that sends
    /// every host to a host on another leaf.
    Permutation,
    /// Each flow from a host drawn uniformly to another host drawn uniformly (seeded).
    Random,
}

/// `arrival = { rate = 20 }` (flows per second) or `{ load = 0.5 }`, between `start` and `stop`.
#[derive(Deserialize, Debug, Clone)]
#[serde(deny_unknown_fields)]
struct ArrivalTable {
    rate: Option<f64>,
    load: Option<f64>,
    #[serde(default = "super::zero_seconds")]
    start: Seconds,
    stop: Option<Seconds>,
}

/// `incast = { rounds = 100, gap = "1ms", start = "0s" }`: the group's `count` senders answer one request
/// together, `size` bytes each, round after round.
#[derive(Deserialize, Debug, Clone)]
#[serde(deny_unknown_fields)]
struct IncastTable {
    rounds: u64,
    #[serde(default)]
    connections: Connections,
    #[serde(default = "super::zero_seconds")]
    gap: Seconds,
    #[serde(default = "super::zero_seconds")]
    start: Seconds,
}

/// The engine's TCP defaults ([`TcpConfig::default`]), which `[tcp]`'s defaults are written from.
fn engine() -> TcpConfig {
    TcpConfig::default()
}

/// A time of the engine's in the table's unit.
fn secs(t: Time) -> Seconds {
    Seconds(to_secs(t))
}

params! {
    /// TCP settings: `[tcp]`, the defaults of every group, or a group's `tcp = { ... }` over them. Defaults
    /// are the RFCs' (`profile = "ns3"` switches to ns-3 3.44's where it departs from them).
    pub struct Tcp {
        /// A controller's name, or a table `{ kind = NAME, ... }` with its parameters (see each
        /// controller's reference).
        congestion_control: Value = Value::String("newreno".into()), Rule::names(CONTROLLERS).and_context(
            "or { kind = NAME, ... } with the controller's parameters, checked by it"
        );
        /// Wire size of a full data packet, headers included (what the router queues).
        packet_size: Bytes = Bytes(engine().packet_size as f64), Rule::closed(64.0, 65535.0);
        /// TCP/IP header inside `packet_size`; payload = packet_size − header_size.
        header_size: Bytes = Bytes((engine().packet_size - engine().payload) as f64),
            Rule::right_open(0.0, 65535.0).high_field("packet_size").and_context("<= packet_size - 1B");
        /// An ACK without options; a SACK option adds 2 + 8 bytes per block, padded to 4 (RFC 2018).
        ack_size: Bytes = Bytes(40.0), Rule::closed(1.0, 65535.0);
        /// The initial window (RFC 6928's 10 segments).
        initial_window: f64 = engine().initial_window, Rule::closed(1.0, 1e6).unit("segments");
        /// W_max, a cap on packets in flight (the receiver's window); default: unlimited.
        max_window: Option<u64> = None,
            Rule::closed(1.0, (1u64 << 30) as f64).unit("segments").default_is("unlimited");
        /// The least retransmission timeout (RFC 6298 §2.4).
        min_rto: Seconds = secs(engine().rto.min), Rule::closed(1e-6, 3600.0);
        /// The timeout before any RTT sample (RFC 6298 §2.1).
        initial_rto: Seconds = secs(engine().rto.initial), Rule::closed(0.0, 3600.0).low_field("min_rto");
        /// The largest timeout, backoff included (RFC 6298 §2.5).
        max_rto: Seconds = secs(engine().rto.max), Rule::closed(0.0, 86400.0).low_field("min_rto");
        /// The clock granularity G of RFC 6298 (RTO = SRTT + max(G, 4·RTTVAR)).
        clock_granularity: Seconds = secs(engine().rto.granularity), Rule::closed(0.0, 10.0);
        /// RFC 5681 delayed ACK: an ACK for every second segment or after `delayed_ack_timeout`.
        delayed_ack: bool = engine().delayed_ack;
        /// The longest an ACK is delayed (RFC 5681 §4.2).
        delayed_ack_timeout: Seconds = secs(engine().delayed_ack_timeout), Rule::closed(1e-6, 10.0);
        /// RFC 2018 SACK with RFC 6675 loss recovery (ignored by `recovery = "reno"`).
        sack: bool = engine().sack;
        /// RFC 3168 ECN: data sent ECT(0), the window reduced on ECN-Echo.
        ecn: bool = engine().ecn;
        /// Reduce for ECN-Echo at most once per window (RFC 3168; ns-2 `TcpAgent::ecn()`), or on every ACK
        /// with ECE, each CE mark echoed once (Tsioliaridou & Tsaoussidis).
        ecn_response: EcnResponse = engine().ecn_response, Rule::names(&["once-per-rtt", "per-signal"]);
        /// ECN-Echo reduces the window in the open state only (RFC 3168, Linux), or in fast and timeout
        /// recovery too, which then end in CWR (ns-3 3.44).
        ecn_states: EcnStates = engine().ecn_states, Rule::names(&["open", "any"]);
        /// Congestion avoidance's SMSS²/cwnd per ACK (RFC 5681 eq. 3) exactly, or truncated to whole bytes
        /// (ns-3's `TcpNewReno`).
        ca_increase: CaIncrease = engine().ca_increase, Rule::names(&["exact", "whole-bytes"]);
        /// Duplicate ACKs that start fast retransmit (RFC 5681's 3).
        dupack_threshold: u32 = engine().dupack_threshold, Rule::closed(1.0, 1000.0);
        /// RFC 3042 limited transmit: a new segment on each of the first two duplicate ACKs.
        limited_transmit: bool = engine().limited_transmit;
        /// ssthresh = half of FlightSize (RFC 5681 eq. 4) or of RFC 6675's pipe (ns-3 3.44).
        ssthresh_from: InFlight = engine().ssthresh_from, Rule::names(&["flight", "pipe"]);
        /// The timer's backoff ends at the next valid RTT sample (RFC 6298, Karn) or at any new ACK (ns-3
        /// 3.44).
        rto_backoff: BackoffEnd = engine().backoff_end, Rule::names(&["until-sample", "new-ack"]);
        /// NewReno without SACK, at the ACK ending fast recovery: cwnd = min(ssthresh, FlightSize + 1)
        /// (RFC 6582 §3.2 step 6, option 1) or ssthresh (option 2, ns-2 and ns-3).
        full_ack: FullAck = engine().full_ack, Rule::names(&["flight", "ssthresh"]);
        /// ns-2's `overhead_`: each packet waits a uniform random time in [0, overhead] at its sender, order
        /// kept (breaks phase effects).
        overhead: Seconds = secs(engine().overhead), Rule::closed(0.0, 1.0);
        /// Open each connection with a SYN / SYN-ACK exchange before the first data segment (RFC 9293 §3.5).
        handshake: bool = engine().handshake;
        /// In fast recovery every ACK of new data restarts the retransmission timer (RFC 6298 §5.3), or only
        /// the first partial ACK (RFC 6582's Impatient variant, ns-3 3.44).
        recovery_timer: RecoveryTimer = engine().recovery_timer,
            Rule::names(&["every-ack", "first-partial-ack"]);
        /// With SACK, a partial ACK in fast recovery leaves what to send to the pipe (RFC 6675), or sends
        /// one segment at once outside it (ns-3 3.44).
        partial_ack: PartialAck = engine().partial_ack, Rule::names(&["pipe", "send-one"]);
        /// The ACK ending fast recovery sets cwnd = ssthresh and nothing more (RFC 5681 §3.2), or then grows
        /// the window as an open-state ACK (ns-3 3.44, Linux).
        recovery_exit: RecoveryExit = engine().recovery_exit, Rule::names(&["deflate", "grow"]);
        /// Fast recovery: NewReno (RFC 6582; RFC 6675 with SACK) or Reno (RFC 5681 §3.2, ns-2's
        /// `Agent/TCP/Reno`: the first ACK of new data ends it; SACK ignored).
        recovery: Recovery = engine().recovery, Rule::names(&["newreno", "reno"]);
        /// The gap between packets: none, srtt / min(cwnd, max_window) ("rtt": Enachescu et al. 2005 §2.6),
        /// srtt / cwnd ("cwnd") or Linux's `sk_pacing_rate` ("linux"); see "Pacing".
        pacing: Value = Value::Bool(false), Rule::names(&["off", "rtt", "cwnd", "linux"]).and_context(
            "or false (= \"off\"), true (= \"rtt\")"
        );
        /// The defaults of the switches where ns-3 departs from the RFCs: the RFCs' ("rfc") or ns-3 3.44's
        /// ("ns3", `docs/validation/ns3-mapping.md`); a switch the table sets keeps its value.
        profile: TcpProfile = TcpProfile::Rfc, Rule::names(&["rfc", "ns3"]);
    }
}

name_params!(
    TcpProfile,
    EcnResponse,
    EcnStates,
    CaIncrease,
    InFlight,
    BackoffEnd,
    FullAck,
    RecoveryTimer,
    PartialAck,
    RecoveryExit,
    Recovery
);

/// The `[tcp]` table's parameter reference ([`Params::describe`]).
pub fn describe_tcp() -> Value {
    <Tcp as Params>::describe()
}

/// `tcp.profile`: where simulators depart from the RFCs, whose behaviour the switches default to. `"rfc"`
/// (the default) leaves each at its RFC value; `"ns3"` sets each the table does not set to ns-3 3.44's
/// ([`ns3_profile`]; `docs/validation/ns3-mapping.md` gives the ns-3 code behind each), so that a scenario
/// written to be compared with ns-3 says so in one line.
#[derive(Deserialize, serde::Serialize, Debug, Clone, Copy, PartialEq, Eq, Default)]
#[serde(rename_all = "lowercase")]
pub enum TcpProfile {
    #[default]
    Rfc,
    Ns3,
}

/// The `"ns3"` profile: each switch and ns-3 3.44's value (`TcpSocketBase`, `TcpNewReno`,
/// `TcpClassicRecovery`; ns-3 opens every connection with a SYN).
pub fn ns3_profile() -> [(&'static str, Value); 9] {
    let text = |v: &str| Value::String(v.into());
    [
        ("ssthresh_from", text("pipe")),
        ("rto_backoff", text("new-ack")),
        ("recovery_timer", text("first-partial-ack")),
        ("partial_ack", text("send-one")),
        ("recovery_exit", text("grow")),
        ("ca_increase", text("whole-bytes")),
        ("ecn_states", text("any")),
        ("full_ack", text("ssthresh")),
        ("handshake", Value::Bool(true)),
    ]
}

/// A TCP table with its profile's values filled in where it sets none.
fn with_profile(mut value: Value) -> Value {
    if let Some(table) =
        value.as_object_mut().filter(|t| t.get("profile").and_then(Value::as_str) == Some("ns3"))
    {
        for (key, v) in ns3_profile() {
            table.entry(key).or_insert(v);
        }
    }
    value
}

/// A group's TCP, resolved.
#[derive(Clone, Debug)]
pub struct GroupTcp {
    pub tcp: TcpConfig,
    pub cc: CcSpec,
    pub ack_size: u32,
}

fn resolve_tcp(value: &Value, f: &str) -> Result<GroupTcp, ScenarioError> {
    let value = if value.is_null() { Value::Object(Default::default()) } else { value.clone() };
    let t: Tcp = from_value(with_profile(value), f)?;
    t.check(f)?;
    let field = |n: &str| format!("{f}.{n}");
    // Declared as [0, packet_size); with sizes in fractions of a byte, the payload must still round to one.
    let header_ok = t.header_size.0 <= t.packet_size.0 - 1.0;
    check(&field("header_size"), header_ok, "<= packet_size - 1B", format!("{}B", t.header_size.0))?;
    let pacing = match &t.pacing {
        Value::Bool(false) => Pacing::Off,
        Value::Bool(true) => Pacing::Rtt,
        Value::String(s) if s == "off" => Pacing::Off,
        Value::String(s) if s == "rtt" => Pacing::Rtt,
        Value::String(s) if s == "linux" => Pacing::Linux,
        Value::String(s) if s == "cwnd" => Pacing::Cwnd,
        other => {
            return err(
                &field("pacing"),
                format!(
                    "expected false, true (= \"rtt\"), \"off\", \"rtt\", \"cwnd\" or \"linux\" (got {other})"
                ),
            )
        }
    };
    let cc_field = field("congestion_control");
    let cc = CcSpec::parse(&t.congestion_control, &cc_field)?;
    let built = cc.build(&cc_field, Rng::new(0, 0))?;
    if built.controls_window() && !(t.sack && t.recovery == Recovery::NewReno) {
        let (name, at) = (cc.name(), if t.sack { field("recovery") } else { field("sack") });
        let why = "sets its window from delivery-rate samples, which count SACKed segments here";
        return err(&at, format!("{name} {why}: expected sack = true and recovery = \"newreno\""));
    }
    if built.ecn_mode() == EcnMode::PerPacket {
        let name = cc.name();
        if !t.ecn {
            return err(&field("ecn"), format!("{name} needs ECN: set ecn = true"));
        }
        if t.ecn_response != EcnResponse::OncePerRtt {
            let why = "reduces at most once per window (RFC 8257 §3.3)";
            return err(&field("ecn_response"), format!("{name} {why}: expected \"once-per-rtt\""));
        }
    }
    let packet = t.packet_size.0.round();
    let tcp = TcpConfig {
        packet_size: packet as u32,
        payload: (packet - t.header_size.0.round()) as u32,
        initial_window: t.initial_window,
        max_window: t.max_window.map_or(u32::MAX, |w| w as u32),
        rto: RtoBounds {
            initial: from_secs(t.initial_rto.0),
            min: from_secs(t.min_rto.0),
            max: from_secs(t.max_rto.0),
            granularity: from_secs(t.clock_granularity.0),
        },
        sack: t.sack,
        ecn: t.ecn,
        ecn_response: t.ecn_response,
        ecn_states: t.ecn_states,
        ca_increase: t.ca_increase,
        dupack_threshold: t.dupack_threshold,
        limited_transmit: t.limited_transmit,
        ssthresh_from: t.ssthresh_from,
        backoff_end: t.rto_backoff,
        full_ack: t.full_ack,
        overhead: from_secs(t.overhead.0),
        handshake: t.handshake,
        recovery_timer: t.recovery_timer,
        partial_ack: t.partial_ack,
        recovery_exit: t.recovery_exit,
        recovery: t.recovery,
        delayed_ack: t.delayed_ack,
        delayed_ack_timeout: from_secs(t.delayed_ack_timeout.0),
        pacing,
    };
    Ok(GroupTcp { tcp, cc, ack_size: t.ack_size.0.round() as u32 })
}

/// The scenario's `[tcp]`, checked on its own so its errors name `tcp.*`.
pub(crate) fn base_tcp(value: &Value) -> Result<GroupTcp, ScenarioError> {
    if !(value.is_null() || value.is_object()) {
        return err("tcp", "expected a table");
    }
    resolve_tcp(value, "tcp")
}

/// One flow started at a fixed time, resolved.
#[derive(Clone, Debug, PartialEq)]
pub struct FlowConfig {
    /// Base (propagation-only) round-trip time.
    pub rtt: Time,
    pub access_rate: f64,
    /// One-way propagation delay of the access link (see [`access_delay`]).
    pub access_delay: Time,
    pub start: Time,
    /// `NEVER` if the flow runs to the end.
    pub stop: Time,
    /// Payload bytes to send; `None` for a bulk flow.
    pub size: Option<u64>,
    /// Its route: an index into its group's `routes` (0 where the group has one).
    pub route: u32,
    /// In a leaf-spine: its hosts and the spine its route crosses.
    pub endpoints: Option<Endpoints>,
}

/// A leaf-spine flow's hosts, and the spine ECMP chose (`None` within one leaf).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Endpoints {
    pub src: u32,
    pub dst: u32,
    pub spine: Option<u32>,
}

/// A group whose flows arrive as a Poisson process.
#[derive(Clone, Debug, PartialEq)]
pub struct ArrivalConfig {
    /// Mean arrivals per second.
    pub rate: f64,
    pub start: Time,
    pub stop: Time,
    /// RTT and access rate of each arrival: uniform in `[lo, hi]` (seconds, bits/s; `lo == hi` for one value).
    pub rtt: (f64, f64),
    pub access_rate: (f64, f64),
}

/// What carries an incast sender's responses.
#[derive(Deserialize, serde::Serialize, Debug, Clone, Copy, PartialEq, Eq, Default)]
#[serde(rename_all = "kebab-case")]
pub enum Connections {
    /// One connection per sender for the whole run: its window and its controller's state (DCTCP's α)
    /// carry over from one response to the next.
    #[default]
    Persistent,
    /// A new connection per response, from the initial window.
    New,
}

/// A group of incast senders (Vasudevan et al. 2009's barrier-synchronized workload): at each round's
/// request every sender starts a response of the group's `size` (drawn per response); the next request
/// goes out `gap` after the last response of the round is acknowledged. The request itself is not
/// simulated.
#[derive(Clone, Debug, PartialEq)]
pub struct IncastConfig {
    pub rounds: u64,
    pub connections: Connections,
    pub gap: Time,
    pub start: Time,
}

/// A flow group, resolved.
#[derive(Clone, Debug)]
pub struct GroupConfig {
    pub name: String,
    /// The scenario field of its table (`flows`, `flows[2]`, `parking_lot.cross`), for errors.
    pub field: String,
    /// Ports crossed by data, in order: the route every flow takes (one), or a leaf-spine group's distinct
    /// per-flow routes (each flow names its own by [`FlowConfig::route`]).
    pub routes: Vec<Vec<usize>>,
    /// Its flows take routes of their own (a leaf-spine group).
    pub per_flow_routes: bool,
    /// Ports crossed by ACKs (empty: ACKs return over an uncongested path).
    pub ack_route: Vec<usize>,
    pub tcp: TcpConfig,
    pub cc: CcSpec,
    pub ack_size: u32,
    /// Flows started at fixed times; with `incast`, the senders each round restarts.
    pub flows: Vec<FlowConfig>,
    /// Finite flows' sizes (drawn per flow), `None` for bulk flows.
    pub size: Option<SizeDist>,
    pub arrival: Option<ArrivalConfig>,
    pub incast: Option<IncastConfig>,
}

impl GroupConfig {
    /// The route its flows share (the first of a leaf-spine group's).
    pub fn route(&self) -> &[usize] {
        &self.routes[0]
    }

    /// The route of its flow `f`.
    pub fn route_of(&self, f: &FlowConfig) -> &[usize] {
        &self.routes[f.route as usize]
    }

    /// Seconds of propagation on the data route and on the ACK route.
    fn route_delays(net: &Network, route: &[usize], ack_route: &[usize]) -> (f64, f64) {
        let sum = |r: &[usize]| r.iter().map(|&p| net.links[p].delay_s).sum::<f64>();
        (sum(route), sum(ack_route))
    }
}

/// The access link's one-way delay for a flow of base RTT `rtt` (seconds): with ACKs over an uncongested
/// mirror of the data path, `rtt/2 − Σ route delays`; with a queued ACK route,
/// `(rtt − Σ data route delays − Σ ACK route delays) / 2` (the access link is crossed both ways).
pub fn access_delay(rtt: f64, fwd: f64, back: Option<f64>) -> f64 {
    match back {
        None => rtt / 2.0 - fwd,
        Some(b) => (rtt - fwd - b) / 2.0,
    }
}

impl<T: Copy + Into<f64>> PerFlow<T> {
    /// One value per flow, drawing uniform ones from `rng`; `valid(field, v)` checks each value written
    /// (a uniform form's two bounds, so every draw is in range whatever the seed).
    pub(crate) fn expand(
        &self,
        field: &str,
        n: usize,
        rng: &mut Rng,
        valid: impl Fn(&str, f64) -> Result<(), ScenarioError>,
    ) -> Result<Vec<f64>, ScenarioError> {
        match self {
            PerFlow::List(vs) => {
                check(
                    field,
                    vs.len() == n,
                    "a list with one value per flow (count)",
                    format!("{} values", vs.len()),
                )?;
                for (i, &v) in vs.iter().enumerate() {
                    valid(&format!("{field}[{i}]"), v.into())?;
                }
                Ok(vs.iter().map(|&v| v.into()).collect())
            }
            PerFlow::One(v) => {
                valid(field, (*v).into())?;
                Ok(vec![(*v).into(); n])
            }
            PerFlow::Uniform(_) => {
                let (lo, hi) = self.bounds(field, valid)?;
                Ok((0..n).map(|_| rng.uniform_in(lo, hi)).collect())
            }
        }
    }

    /// The range a value is drawn from (`lo == hi` for one value), each bound checked by `valid`; lists
    /// are not allowed.
    fn bounds(
        &self,
        field: &str,
        valid: impl Fn(&str, f64) -> Result<(), ScenarioError>,
    ) -> Result<(f64, f64), ScenarioError> {
        match self {
            PerFlow::One(v) => {
                valid(field, (*v).into())?;
                Ok(((*v).into(), (*v).into()))
            }
            PerFlow::List(_) => {
                err(field, "a group with arrivals takes one value or { uniform = [low, high] }, not a list")
            }
            PerFlow::Uniform(Uniform { uniform: (lo, hi) }) => {
                let (lo, hi) = ((*lo).into(), (*hi).into());
                valid(&format!("{field}.uniform[0]"), lo)?;
                valid(&format!("{field}.uniform[1]"), hi)?;
                check(
                    field,
                    lo <= hi,
                    "{ uniform = [low, high] } with low <= high",
                    format!("[{lo}, {hi}]"),
                )?;
                Ok((lo, hi))
            }
        }
    }

    /// The smallest and largest value the form can give.
    fn range(&self) -> (f64, f64) {
        let fold = |vs: &mut dyn Iterator<Item = f64>| {
            vs.fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), v| (lo.min(v), hi.max(v)))
        };
        match self {
            PerFlow::One(v) => ((*v).into(), (*v).into()),
            PerFlow::List(vs) => fold(&mut vs.iter().map(|&v| v.into())),
            PerFlow::Uniform(Uniform { uniform: (lo, hi) }) => ((*lo).into(), (*hi).into()),
        }
    }
}

impl From<Seconds> for f64 {
    fn from(s: Seconds) -> f64 {
        s.0
    }
}
impl From<Rate> for f64 {
    fn from(r: Rate) -> f64 {
        r.0
    }
}

/// A group's table as written: its field name, the table, its default route and default name.
struct GroupSource {
    field: String,
    table: Value,
    default_route: Option<Vec<usize>>,
    default_name: Option<String>,
}

/// Every group's table with its field name, and a default route when it gives none.
fn group_tables(s: &Scenario, net: &Network, form: &Form) -> Result<Vec<GroupSource>, ScenarioError> {
    let all: Vec<usize> = (0..net.links.len()).collect();
    let default_route = match form {
        Form::Dumbbell | Form::ParkingLot { .. } => Some(all.clone()),
        Form::Links if net.links.len() == 1 => Some(vec![0]),
        Form::Links | Form::LeafSpine => None,
    };
    let mut out = Vec::new();
    match &s.flows {
        None => {}
        Some(Value::Array(groups)) => {
            check("flows", groups.len() <= 10_000, "at most 10,000 groups", groups.len())?;
            for (i, g) in groups.iter().enumerate() {
                out.push(GroupSource {
                    field: format!("flows[{i}]"),
                    table: g.clone(),
                    default_route: default_route.clone(),
                    default_name: None,
                });
            }
        }
        Some(g @ Value::Object(_)) => out.push(GroupSource {
            field: "flows".to_string(),
            table: g.clone(),
            default_route: default_route.clone(),
            default_name: None,
        }),
        Some(_) => return err("flows", "expected a [flows] table or [[flows]] tables"),
    }
    if let Form::ParkingLot { cross: Some(cross) } = form {
        if cross.get("route").is_some() {
            return err(
                "parking_lot.cross.route",
                "not allowed: cross traffic crosses one hop each (cross1 the first, cross2 the second, ...)",
            );
        }
        for h in 0..net.links.len() {
            out.push(GroupSource {
                field: "parking_lot.cross".to_string(),
                table: cross.clone(),
                default_route: Some(vec![h]),
                default_name: Some(format!("cross{}", h + 1)),
            });
        }
    }
    Ok(out)
}

fn merged_tcp(base: &Value, over: &Value) -> Value {
    let mut merged = match base {
        Value::Object(m) => m.clone(),
        _ => Default::default(),
    };
    if let Value::Object(o) = over {
        for (k, v) in o {
            merged.insert(k.clone(), v.clone());
        }
    }
    Value::Object(merged)
}

pub(crate) fn resolve_groups(
    s: &Scenario,
    net: &Network,
    form: &Form,
    base: &GroupTcp,
) -> Result<Vec<GroupConfig>, ScenarioError> {
    let tables = group_tables(s, net, form)?;
    let mut groups = Vec::with_capacity(tables.len());
    let mut total: u64 = 0;
    for (g, src) in tables.into_iter().enumerate() {
        let GroupSource { field: f, table: value, default_route, default_name } = src;
        let field = |n: &str| format!("{f}.{n}");
        let t: GroupTable = from_value(value, &f)?;
        let fabric = match form {
            Form::LeafSpine => net.fabric,
            _ => None,
        };
        let Some(rtt_form) = t.rtt.clone().or_else(|| fabric.map(|_| PerFlow::List(Vec::new()))) else {
            return err(&field("rtt"), "required");
        };
        let rtt_given = t.rtt.is_some();
        let access_rate = t.access_rate.clone().unwrap_or_else(|| default_access_rate(form));
        if fabric.is_none() {
            for (k, given) in
                [("src", t.src.is_some()), ("dst", t.dst.is_some()), ("pattern", t.pattern.is_some())]
            {
                if given {
                    return err(&field(k), "only in a [leaf_spine] network (hosts are a leaf-spine's)");
                }
            }
        } else {
            let why = [
                (
                    "route",
                    t.route.is_some(),
                    "each flow's route follows from its src and dst (ECMP over spines)",
                ),
                ("ack_route", t.ack_route.is_some(), "ACKs return over an uncongested path"),
                ("arrival", t.arrival.is_some(), "give count (and size for finite flows)"),
            ];
            if let Some((k, _, why)) = why.into_iter().find(|w| w.1) {
                return err(&field(k), format!("not in a [leaf_spine] network: {why}"));
            }
        }
        let route = match (&t.route, default_route) {
            _ if fabric.is_some() => Vec::new(),
            (Some(names), _) => net.route(names, &field("route"))?,
            (None, Some(r)) => r,
            (None, None) => {
                return err(
                    &field("route"),
                    "required with several [[links]]: the link names the data crosses, in order",
                )
            }
        };
        let ack_route = match &t.ack_route {
            Some(names) => net.route(names, &field("ack_route"))?,
            None => Vec::new(),
        };
        let gt = match &t.tcp {
            Some(over) => {
                if !over.is_object() {
                    return err(&field("tcp"), "expected a table of [tcp] settings");
                }
                resolve_tcp(&merged_tcp(&s.tcp, over), &field("tcp"))?
            }
            None => base.clone(),
        };
        let size = t.size.as_ref().map(|v| SizeDist::parse(v, &field("size"))).transpose()?;
        let (fwd, back) = GroupConfig::route_delays(net, &route, &ack_route);
        let back = (!ack_route.is_empty()).then_some(back);
        let min_rtt = match back {
            None => 2.0 * fwd,
            Some(b) => fwd + b,
        };
        let rtt_rule = match form {
            Form::Dumbbell => "in [2 x bottleneck.delay, 100 s]",
            Form::LeafSpine => "in [the round-trip propagation delay of the flow's path, 100 s]",
            _ => "in [the route's round-trip propagation delay, 100 s]",
        };
        // A leaf-spine's paths: checked against the shortest here, each flow against its own below.
        let min_rtt = match fabric {
            Some(fab) => 2.0 * net.links[fab.up(0)].delay_s + 2.0 * net.links[fab.down(0)].delay_s,
            None => min_rtt,
        };
        let valid_rtt = |f: &str, v: f64| finite_range(f, v, min_rtt, 100.0, rtt_rule);
        let valid_rate = |f: &str, v: f64| finite_range(f, v, 1e3, 1e13, "in [1 kbps, 10 Tbps]");
        let name = t.name.clone().or(default_name).unwrap_or_else(|| {
            if g == 0 {
                "flows".into()
            } else {
                format!("group{g}")
            }
        });
        check(&field("name"), !name.is_empty() && name.len() <= 100, "1 to 100 characters", name.len())?;

        let mut flows = Vec::new();
        let mut routes: Vec<Vec<usize>> = if fabric.is_some() { Vec::new() } else { vec![route.clone()] };
        let mut arrival = None;
        let mut incast = None;
        if let Some(i) = &t.incast {
            let inf = |n: &str| format!("{f}.incast.{n}");
            if t.arrival.is_some() {
                return err(&field("arrival"), "not with incast: incast senders answer requests in rounds");
            }
            if t.start.is_some() || t.stop.is_some() {
                let k = if t.start.is_some() { "start" } else { "stop" };
                return err(&field(k), "not with incast: rounds start together (incast.start, incast.gap)");
            }
            if size.is_none() {
                return err(
                    &field("size"),
                    "required with incast: the bytes each sender answers a request with",
                );
            }
            check(&inf("rounds"), (1..=1_000_000).contains(&i.rounds), "in [1, 1,000,000]", i.rounds)?;
            finite_range(&inf("gap"), i.gap.0, 0.0, 3600.0, "in [0, 1 h]")?;
            finite_range(&inf("start"), i.start.0, 0.0, s.duration.0, "in [0, duration]")?;
            incast = Some(IncastConfig {
                rounds: i.rounds,
                connections: i.connections,
                gap: from_secs(i.gap.0),
                start: from_secs(i.start.0),
            });
        }
        if let Some(a) = &t.arrival {
            if t.count.is_some() {
                return err(
                    &field("count"),
                    "not with arrival: flows arrive as a Poisson process (drop count, or arrival)",
                );
            }
            if t.start.is_some() || t.stop.is_some() {
                let k = if t.start.is_some() { "start" } else { "stop" };
                return err(&field(k), "not with arrival: use arrival.start and arrival.stop");
            }
            let Some(sizes) = &size else {
                return err(&field("size"), "required with arrival: arriving flows must be finite");
            };
            let (r_lo, r_hi) = rtt_form.bounds(&field("rtt"), valid_rtt)?;
            let (a_lo, a_hi) = access_rate.bounds(&field("access_rate"), valid_rate)?;
            let af = |n: &str| format!("{f}.arrival.{n}");
            let rate = match (a.rate, a.load) {
                (Some(_), Some(_)) => {
                    return err(&af("rate"), "give either rate (flows/s) or load, not both")
                }
                (Some(r), None) => {
                    finite_range(&af("rate"), r, 1e-6, 1e7, "in [1e-6, 1e7] flows per second")?;
                    r
                }
                (None, Some(rho)) => {
                    check(
                        &af("load"),
                        rho.is_finite() && rho > 0.0 && rho < 1.0,
                        "in (0, 1): the offered load on the route's slowest link",
                        rho,
                    )?;
                    let capacity = route.iter().map(|&p| net.links[p].rate).fold(f64::INFINITY, f64::min);
                    let wire_bytes = sizes.mean() / gt.tcp.payload as f64 * gt.tcp.packet_size as f64;
                    let r = rho * capacity / (8.0 * wire_bytes);
                    finite_range(&af("load"), r, 1e-6, 1e7, "a load giving 1e-6 to 1e7 flows per second")?;
                    r
                }
                (None, None) => {
                    return err(&af("rate"), "required: rate (flows per second) or load (in (0, 1))")
                }
            };
            finite_range(&af("start"), a.start.0, 0.0, s.duration.0, "in [0, duration]")?;
            let stop = a.stop.map_or(f64::INFINITY, |x| x.0);
            check(&af("stop"), stop > a.start.0, "after arrival.start", stop)?;
            arrival = Some(ArrivalConfig {
                rate,
                start: from_secs(a.start.0),
                stop: if stop.is_finite() { from_secs(stop.min(s.duration.0)) } else { NEVER },
                rtt: (r_lo, r_hi),
                access_rate: (a_lo, a_hi),
            });
        } else {
            let Some(count) = t.count else {
                return err(&field("count"), "required: the number of flows, >= 1 (or arrival = { ... })");
            };
            check(&field("count"), (1..=MAX_FLOWS).contains(&count), "in [1, 1,000,000]", count)?;
            total += count;
            check(&field("count"), total <= MAX_FLOWS, "at most 1,000,000 flows in all groups", total)?;
            let n = count as usize;
            let st = |base: u64| Rng::new(s.seed, group_stream(g, base));
            // Each flow's route (an index into `routes`), hosts and one-way propagation.
            let mut paths: Vec<(u32, Option<Endpoints>, f64)> = Vec::new();
            if let Some(fab) = fabric {
                let pairs = endpoints(&t, &fab, n, &mut st(stream::ENDPOINTS), &f)?;
                let mut index = std::collections::HashMap::new();
                paths.reserve(n);
                for (k, (src, dst)) in pairs.into_iter().enumerate() {
                    let spine = (fab.leaf_of(src) != fab.leaf_of(dst))
                        .then(|| fab.ecmp(s.seed, g, k as u64, src, dst));
                    let r = fab.route(src, dst, spine.unwrap_or(0));
                    let fwd: f64 = r.iter().map(|&p| net.links[p].delay_s).sum();
                    let next = routes.len() as u32;
                    let i = *index.entry((src, dst, spine)).or_insert(next);
                    if i == next {
                        routes.push(r);
                    }
                    paths.push((i, Some(Endpoints { src, dst, spine }), fwd));
                }
            }
            let rtts = if rtt_given {
                rtt_form.expand(&field("rtt"), n, &mut st(stream::RTT), valid_rtt)?
            } else {
                paths.iter().map(|p| 2.0 * p.2).collect()
            };
            for (k, (rtt, p)) in rtts.iter().zip(&paths).enumerate() {
                if *rtt < 2.0 * p.2 {
                    let e = p.1.expect("leaf-spine flows have hosts");
                    return err(
                        &field("rtt"),
                        format!(
                            "must be {rtt_rule}: flow {k} (host {} to host {}) needs at least {} s (got {rtt})",
                            e.src,
                            e.dst,
                            2.0 * p.2
                        ),
                    );
                }
            }
            let rates =
                access_rate.expand(&field("access_rate"), n, &mut st(stream::ACCESS_RATE), valid_rate)?;
            // Stops first (each field draws from its own stream): the default start spread derives from them.
            let valid_stop = |f: &str, v: f64| check(f, !v.is_nan() && v > 0.0, "> 0 s", v);
            let stops = match &t.stop {
                Some(x) => x.expand(&field("stop"), n, &mut st(stream::STOP), valid_stop)?,
                None => vec![f64::INFINITY; n],
            };
            let valid_start = |f: &str, v: f64| finite_range(f, v, 0.0, s.duration.0, "in [0, duration]");
            let default_start = || {
                let earliest_stop = t.stop.as_ref().map_or(f64::INFINITY, |x| x.range().0);
                let spread = DEFAULT_START_SPREAD_S.min(s.duration.0 / 10.0).min(earliest_stop / 2.0);
                PerFlow::Uniform(Uniform { uniform: (Seconds(0.0), Seconds(spread)) })
            };
            let start = match &incast {
                Some(i) => PerFlow::One(Seconds(to_secs(i.start))),
                None => t.start.clone().unwrap_or_else(default_start),
            };
            let starts = start.expand(&field("start"), n, &mut st(stream::START), valid_start)?;
            // With a uniform start or stop, every stop must follow every start, whatever the draws.
            if let (Some(start), Some(stop)) = (&t.start, &t.stop) {
                if matches!(start, PerFlow::Uniform(_)) || matches!(stop, PerFlow::Uniform(_)) {
                    let (latest, earliest) = (start.range().1, stop.range().0);
                    check(&field("stop"), earliest > latest, "after the latest start", earliest)?;
                }
            }
            let mut size_rng = st(stream::SIZE);
            flows.reserve(n);
            for i in 0..n {
                let (rtt, rate, start, stop) = (rtts[i], rates[i], starts[i], stops[i]);
                check(&field("stop"), stop > start, "after the flow's start", stop)?;
                let (route, endpoints, fwd) = paths.get(i).copied().unwrap_or((0, None, fwd));
                flows.push(FlowConfig {
                    rtt: from_secs(rtt),
                    access_rate: rate,
                    access_delay: from_secs(access_delay(rtt, fwd, back)),
                    start: from_secs(start),
                    stop: if stop.is_finite() { from_secs(stop) } else { NEVER },
                    size: size.as_ref().map(|d| d.sample(&mut size_rng)),
                    route,
                    endpoints,
                });
            }
        }
        groups.push(GroupConfig {
            name,
            field: f.clone(),
            routes,
            per_flow_routes: fabric.is_some(),
            ack_route,
            tcp: gt.tcp,
            cc: gt.cc,
            ack_size: gt.ack_size,
            flows,
            size,
            arrival,
            incast,
        });
    }
    for (i, g) in groups.iter().enumerate() {
        if groups[..i].iter().any(|h| h.name == g.name) {
            return err("flows", format!("two groups are named {:?}: give each a distinct name", g.name));
        }
    }
    Ok(groups)
}

/// The hosts of each of a leaf-spine group's `n` flows: `src` and `dst` (flow `k` takes item `k mod len`
/// of each), or a `pattern` drawn from the group's stream `rng`.
fn endpoints(
    t: &GroupTable,
    fab: &Fabric,
    n: usize,
    rng: &mut Rng,
    f: &str,
) -> Result<Vec<(u32, u32)>, ScenarioError> {
    let field = |k: &str| format!("{f}.{k}");
    let hosts = fab.hosts();
    let list = |h: &Option<Hosts>, k: &str| -> Result<Vec<u32>, ScenarioError> {
        let rule = format!("a host index in [0, {}] (leaf_spine.leaves x hosts_per_leaf - 1)", hosts - 1);
        match h {
            None => err(&field(k), "required in a [leaf_spine] network: a host index or a list (or pattern)"),
            Some(Hosts::One(i)) => {
                check(&field(k), *i < u64::from(hosts), &rule, i)?;
                Ok(vec![*i as u32])
            }
            Some(Hosts::List(v)) => {
                check(&field(k), !v.is_empty(), "a non-empty list of host indices", "[]")?;
                for (j, i) in v.iter().enumerate() {
                    check(&format!("{f}.{k}[{j}]"), *i < u64::from(hosts), &rule, i)?;
                }
                Ok(v.iter().map(|&i| i as u32).collect())
            }
        }
    };
    match t.pattern {
        None => {
            let (src, dst) = (list(&t.src, "src")?, list(&t.dst, "dst")?);
            (0..n)
                .map(|k| {
                    let (a, b) = (src[k % src.len()], dst[k % dst.len()]);
                    if a == b {
                        return err(&field("dst"), format!("flow {k} would send from host {a} to itself"));
                    }
                    Ok((a, b))
                })
                .collect()
        }
        Some(_) if t.src.is_some() || t.dst.is_some() => {
            let k = if t.src.is_some() { "src" } else { "dst" };
            err(&field(k), "give either pattern or src and dst, not both")
        }
        Some(Pattern::Random) => {
            check(&field("pattern"), hosts >= 2, "\"random\" with at least 2 hosts", hosts)?;
            let draw = |rng: &mut Rng, m: u32| ((rng.uniform() * f64::from(m)) as u32).min(m - 1);
            Ok((0..n)
                .map(|_| {
                    let a = draw(rng, hosts);
                    let b = draw(rng, hosts - 1);
                    (a, if b >= a { b + 1 } else { b })
                })
                .collect())
        }
        Some(Pattern::Permutation) => {
            check(&field("pattern"), fab.leaves >= 2, "\"permutation\" with at least 2 leaves", fab.leaves)?;
            let perm = cross_leaf_permutation(fab, rng);
            Ok((0..n).map(|k| (k as u32 % hosts, perm[k % hosts as usize])).collect())
        }
    }
}

/// A seeded permutation of the hosts sending each to a host on another leaf: a uniform shuffle (Fisher-Yates),
/// then each host left on its own leaf swapped, in host order, with the first host from a random place on
/// whose swap both end on other leaves. One exists while there are two leaves or more: of the hosts off
/// host `i`'s leaf `a` (`(leaves - 1) x hosts_per_leaf`), at most `hosts_per_leaf - 1` are sent to leaf `a`.
/// A swap mends `i` and leaves the other host on another leaf, so one pass mends them all.
pub fn cross_leaf_permutation(fab: &Fabric, rng: &mut Rng) -> Vec<u32> {
    let hosts = fab.hosts() as usize;
    let mut p: Vec<u32> = (0..hosts as u32).collect();
    for i in (1..hosts).rev() {
        let j = ((rng.uniform() * (i + 1) as f64) as usize).min(i);
        p.swap(i, j);
    }
    let leaf = |h: usize| fab.leaf_of(h as u32);
    for i in 0..hosts {
        if leaf(p[i] as usize) != leaf(i) {
            continue;
        }
        let from = ((rng.uniform() * hosts as f64) as usize).min(hosts - 1);
        let j = (0..hosts)
            .map(|d| (from + d) % hosts)
            .find(|&j| fab.leaf_of(p[j]) != leaf(i) && leaf(j) != fab.leaf_of(p[i]))
            .expect("a host to swap with while there are two leaves");
        p.swap(i, j);
    }
    p
}
