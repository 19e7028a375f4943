//! A whole experiment as data: the serde types of a scenario file and their validation.
//!
//! Parsing rejects unknown fields and malformed quantities; [`Scenario::resolve`] checks every range and
//! turns the scenario into the engine's [`Config`] (per-flow values drawn from the seeded streams). Every
//! error names the offending field and the allowed range. The format is documented in `docs/scenario.md`.

use crate::queue::{Limit, RedParams};
use crate::rng::{stream, Rng};
use crate::tcp::{BackoffEnd, InFlight, RtoBounds, TcpConfig};
use crate::time::{from_secs, serialization, Time, NEVER};
use crate::traffic::ArrivalPattern;
use crate::units::{Bytes, Rate, Seconds};
use serde::Deserialize;
use std::fmt;

/// A bad scenario: which field, and what is wrong with it.
#[derive(Clone, Debug, PartialEq)]
pub struct ScenarioError {
    pub field: String,
    pub message: String,
}

impl fmt::Display for ScenarioError {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        if self.field.is_empty() || self.field == "." {
            write!(f, "scenario: {}", self.message)
        } else {
            write!(f, "{}: {}", self.field, self.message)
        }
    }
}

impl std::error::Error for ScenarioError {}

fn err<T>(field: &str, message: impl Into<String>) -> Result<T, ScenarioError> {
    Err(ScenarioError { field: field.to_string(), message: message.into() })
}

#[derive(Deserialize, Debug, Clone)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    #[serde(default)]
    pub name: String,
    #[serde(default = "default_seed")]
    pub seed: u64,
    pub duration: Seconds,
    #[serde(default = "zero_seconds")]
    pub warmup: Seconds,
    pub bottleneck: Bottleneck,
    pub flows: Option<Flows>,
    #[serde(default)]
    pub udp: Vec<Udp>,
    #[serde(default)]
    pub tcp: Tcp,
    #[serde(default)]
    pub monitor: Monitor,
}

fn default_seed() -> u64 {
    1
}
fn zero_seconds() -> Seconds {
    Seconds(0.0)
}

#[derive(Deserialize, Debug, Clone)]
#[serde(deny_unknown_fields)]
pub struct Bottleneck {
    pub rate: Rate,
    #[serde(default = "zero_seconds")]
    pub delay: Seconds,
    pub queue: QueueSpec,
}

/// The bottleneck's queue discipline and its parameters.
#[derive(Deserialize, Debug, Clone)]
#[serde(tag = "discipline", rename_all = "lowercase", deny_unknown_fields)]
pub enum QueueSpec {
    Droptail {
        limit: Option<u64>,
        limit_bytes: Option<Bytes>,
    },
    Red {
        limit: Option<u64>,
        limit_bytes: Option<Bytes>,
        #[serde(default = "red_min_th")]
        min_th: f64,
        #[serde(default = "red_max_th")]
        max_th: f64,
        #[serde(default = "red_max_p")]
        max_p: f64,
        #[serde(default = "red_weight")]
        weight: f64,
        #[serde(default = "yes")]
        gentle: bool,
        #[serde(default = "yes")]
        wait: bool,
        #[serde(default)]
        ecn: bool,
        mean_pktsize: Option<Bytes>,
    },
}

fn red_min_th() -> f64 {
    5.0
}
fn red_max_th() -> f64 {
    15.0
}
fn red_max_p() -> f64 {
    0.1
}
fn red_weight() -> f64 {
    0.002
}
fn yes() -> bool {
    true
}

/// A per-flow value: one for all, a list with one per flow, or uniform between two bounds (seeded).
#[derive(Deserialize, Debug, Clone)]
#[serde(untagged)]
pub enum PerFlow<T> {
    One(T),
    List(Vec<T>),
    Uniform { uniform: (T, T) },
}

#[derive(Deserialize, Debug, Clone)]
#[serde(deny_unknown_fields)]
pub struct Flows {
    pub count: u64,
    pub rtt: PerFlow<Seconds>,
    #[serde(default = "default_access_rate")]
    pub access_rate: PerFlow<Rate>,
    #[serde(default = "default_start")]
    pub start: PerFlow<Seconds>,
    pub stop: Option<PerFlow<Seconds>>,
}

fn default_access_rate() -> PerFlow<Rate> {
    PerFlow::One(Rate(1e9))
}
fn default_start() -> PerFlow<Seconds> {
    PerFlow::One(Seconds(0.0))
}

/// An open-loop UDP source (`[[udp]]`), arriving directly at the bottleneck router.
#[derive(Deserialize, Debug, Clone)]
#[serde(deny_unknown_fields)]
pub struct Udp {
    pub pattern: Pattern,
    pub rate: Rate,
    #[serde(default = "default_udp_size")]
    pub packet_size: Bytes,
    #[serde(default = "zero_seconds")]
    pub start: Seconds,
    pub stop: Option<Seconds>,
}

fn default_udp_size() -> Bytes {
    Bytes(1000.0)
}

#[derive(Deserialize, Debug, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum Pattern {
    Poisson,
    Cbr,
}

/// An open-loop source, resolved.
#[derive(Clone, Debug, PartialEq)]
pub struct UdpConfig {
    pub pattern: ArrivalPattern,
    pub rate_bps: f64,
    pub packet_size: u32,
    pub start: Time,
    pub stop: Time,
}

#[derive(Deserialize, Debug, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum CcKind {
    Newreno,
}

#[derive(Deserialize, Debug, Clone)]
#[serde(deny_unknown_fields, default)]
pub struct Tcp {
    pub congestion_control: CcKind,
    pub packet_size: Bytes,
    pub header_size: Bytes,
    pub ack_size: Bytes,
    pub initial_window: f64,
    pub max_window: Option<u64>,
    pub min_rto: Seconds,
    pub initial_rto: Seconds,
    pub max_rto: Seconds,
    pub clock_granularity: Seconds,
    pub delayed_ack: bool,
    pub delayed_ack_timeout: Seconds,
    pub sack: bool,
    pub ecn: bool,
    pub dupack_threshold: u32,
    pub limited_transmit: bool,
    pub ssthresh_from: SsthreshFrom,
    pub rto_backoff: RtoBackoff,
}

/// `tcp.rto_backoff`: keep the timer's backoff `"until-sample"` (RFC 6298 with Karn's rule, the default)
/// or drop it at the next `"new-ack"` (ns-3 3.44).
#[derive(Deserialize, Debug, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum RtoBackoff {
    UntilSample,
    NewAck,
}

/// `tcp.ssthresh_from`: `"flight"` (RFC 5681, the default) or `"pipe"` (ns-3 3.44).
#[derive(Deserialize, Debug, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum SsthreshFrom {
    Flight,
    Pipe,
}

impl Default for Tcp {
    fn default() -> Self {
        Tcp {
            congestion_control: CcKind::Newreno,
            packet_size: Bytes(1000.0),
            header_size: Bytes(40.0),
            ack_size: Bytes(40.0),
            initial_window: 10.0,
            max_window: None,
            min_rto: Seconds(0.2),
            initial_rto: Seconds(1.0),
            max_rto: Seconds(60.0),
            clock_granularity: Seconds(0.001),
            delayed_ack: false,
            delayed_ack_timeout: Seconds(0.2),
            sack: true,
            ecn: false,
            dupack_threshold: 3,
            limited_transmit: true,
            ssthresh_from: SsthreshFrom::Flight,
            rto_backoff: RtoBackoff::UntilSample,
        }
    }
}

#[derive(Deserialize, Debug, Clone, Default)]
#[serde(deny_unknown_fields)]
pub struct Monitor {
    pub sample_interval: Option<Seconds>,
    #[serde(default)]
    pub cwnd: bool,
}

/// The bottleneck queue, resolved.
#[derive(Clone, Debug, PartialEq)]
pub enum QueueConfig {
    DropTail { limit: Limit },
    Red(RedParams),
}

/// One flow, resolved.
#[derive(Clone, Debug, PartialEq)]
pub struct FlowConfig {
    /// Base (propagation-only) round-trip time.
    pub rtt: Time,
    pub access_rate: f64,
    /// One-way propagation delay of the access link: rtt/2 − bottleneck delay.
    pub access_delay: Time,
    pub start: Time,
    /// `NEVER` if the flow runs to the end.
    pub stop: Time,
}

/// What the engine runs: every value checked and in engine units.
#[derive(Clone, Debug, PartialEq)]
pub struct Config {
    pub name: String,
    pub seed: u64,
    pub duration: Time,
    pub warmup: Time,
    pub bottleneck_rate: f64,
    pub bottleneck_delay: Time,
    pub queue: QueueConfig,
    pub flows: Vec<FlowConfig>,
    pub udp: Vec<UdpConfig>,
    pub tcp: TcpConfig,
    pub cc: CcKind,
    pub ack_size: u32,
    pub sample_interval: Option<Time>,
    pub sample_cwnd: bool,
}

/// Parse a scenario from JSON text (the Python layer turns TOML or a dict into JSON).
pub fn from_json(text: &str) -> Result<Scenario, ScenarioError> {
    let de = &mut serde_json::Deserializer::from_str(text);
    serde_path_to_error::deserialize(de).map_err(|e| {
        let field = e.path().to_string();
        let message = e.inner().to_string();
        let message = match message.find(" at line ") {
            Some(i) => message[..i].to_string(),
            None => message,
        };
        let message = message.replace(
            "data did not match any variant of untagged enum PerFlow",
            "expected a value, a list with one value per flow, or { uniform = [low, high] }",
        );
        ScenarioError { field, message }
    })
}

/// Parse and resolve in one step.
pub fn config_from_json(text: &str) -> Result<Config, ScenarioError> {
    from_json(text)?.resolve()
}

fn check(field: &str, ok: bool, rule: &str, got: impl fmt::Display) -> Result<(), ScenarioError> {
    if ok {
        Ok(())
    } else {
        err(field, format!("must be {rule} (got {got})"))
    }
}

fn finite_range(field: &str, v: f64, lo: f64, hi: f64, rule: &str) -> Result<(), ScenarioError> {
    check(field, v.is_finite() && v >= lo && v <= hi, rule, v)
}

fn resolve_limit(
    limit: Option<u64>,
    limit_bytes: Option<Bytes>,
    packet: f64,
) -> Result<Limit, ScenarioError> {
    match (limit, limit_bytes) {
        (Some(_), Some(_)) => {
            err("bottleneck.queue.limit", "give either limit (packets) or limit_bytes, not both")
        }
        (Some(n), None) => {
            check("bottleneck.queue.limit", n >= 1, ">= 1 packet", n)?;
            Ok(Limit::Packets(n))
        }
        (None, Some(b)) => {
            finite_range(
                "bottleneck.queue.limit_bytes",
                b.0,
                packet,
                1e15,
                ">= one packet (tcp.packet_size)",
            )?;
            Ok(Limit::Bytes(b.0 as u64))
        }
        (None, None) => err("bottleneck.queue.limit", "required: packets waiting, >= 1 (or limit_bytes)"),
    }
}

impl<T: Copy + Into<f64>> PerFlow<T> {
    /// One value per flow, drawing uniform ones from `rng`.
    fn expand(&self, field: &str, n: usize, rng: &mut Rng) -> Result<Vec<f64>, ScenarioError> {
        match self {
            PerFlow::One(v) => Ok(vec![(*v).into(); n]),
            PerFlow::List(vs) => {
                check(
                    field,
                    vs.len() == n,
                    "a list with one value per flow (flows.count)",
                    format!("{} values", vs.len()),
                )?;
                Ok(vs.iter().map(|&v| v.into()).collect())
            }
            PerFlow::Uniform { uniform: (lo, hi) } => {
                let (lo, hi) = ((*lo).into(), (*hi).into());
                check(
                    field,
                    lo <= hi,
                    "{ uniform = [low, high] } with low <= high",
                    format!("[{lo}, {hi}]"),
                )?;
                Ok((0..n).map(|_| rng.uniform_in(lo, hi)).collect())
            }
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

impl Scenario {
    fn resolve_flows(&self, f: &Flows) -> Result<Vec<FlowConfig>, ScenarioError> {
        let b = &self.bottleneck;
        check("flows.count", (1..=10_000_000).contains(&f.count), "in [1, 10,000,000]", f.count)?;
        let n = f.count as usize;
        let rtts = f.rtt.expand("flows.rtt", n, &mut Rng::new(self.seed, stream::RTT))?;
        let rates =
            f.access_rate.expand("flows.access_rate", n, &mut Rng::new(self.seed, stream::ACCESS_RATE))?;
        let starts = f.start.expand("flows.start", n, &mut Rng::new(self.seed, stream::START))?;
        let stops = match &f.stop {
            Some(s) => s.expand("flows.stop", n, &mut Rng::new(self.seed, stream::STOP))?,
            None => vec![f64::INFINITY; n],
        };
        let mut flows = Vec::with_capacity(n);
        for i in 0..n {
            let (rtt, rate, start, stop) = (rtts[i], rates[i], starts[i], stops[i]);
            let min_rtt = 2.0 * b.delay.0;
            finite_range("flows.rtt", rtt, min_rtt, 100.0, "in [2 x bottleneck.delay, 100 s]")?;
            finite_range("flows.access_rate", rate, 1e3, 1e13, "in [1 kbps, 10 Tbps]")?;
            finite_range("flows.start", start, 0.0, self.duration.0, "in [0, duration]")?;
            check("flows.stop", stop > start, "after the flow's start", stop)?;
            flows.push(FlowConfig {
                rtt: from_secs(rtt),
                access_rate: rate,
                access_delay: from_secs(rtt / 2.0 - b.delay.0),
                start: from_secs(start),
                stop: if stop.is_finite() { from_secs(stop) } else { NEVER },
            });
        }

        Ok(flows)
    }

    fn resolve_udp(&self) -> Result<Vec<UdpConfig>, ScenarioError> {
        check("udp", self.udp.len() <= 100_000, "at most 100,000 sources", self.udp.len())?;
        let mut out = Vec::with_capacity(self.udp.len());
        for (i, u) in self.udp.iter().enumerate() {
            let field = |name: &str| format!("udp[{i}].{name}");
            finite_range(&field("rate"), u.rate.0, 1e3, 1e13, "in [1 kbps, 10 Tbps]")?;
            finite_range(&field("packet_size"), u.packet_size.0, 20.0, 65535.0, "in [20, 65535] bytes")?;
            finite_range(&field("start"), u.start.0, 0.0, self.duration.0, "in [0, duration]")?;
            let stop = u.stop.map_or(f64::INFINITY, |s| s.0);
            check(&field("stop"), stop > u.start.0, "after the source's start", stop)?;
            out.push(UdpConfig {
                pattern: match u.pattern {
                    Pattern::Poisson => ArrivalPattern::Poisson,
                    Pattern::Cbr => ArrivalPattern::Cbr,
                },
                rate_bps: u.rate.0,
                packet_size: u.packet_size.0.round() as u32,
                start: from_secs(u.start.0),
                stop: if stop.is_finite() { from_secs(stop) } else { NEVER },
            });
        }
        Ok(out)
    }

    pub fn resolve(&self) -> Result<Config, ScenarioError> {
        const YEAR: f64 = 365.0 * 86400.0;
        finite_range("duration", self.duration.0, 1e-9, YEAR, "> 0 s and at most a year")?;
        finite_range("warmup", self.warmup.0, 0.0, self.duration.0, "in [0, duration)")?;
        check("warmup", self.warmup.0 < self.duration.0, "< duration", self.warmup.0)?;
        let b = &self.bottleneck;
        finite_range("bottleneck.rate", b.rate.0, 1e3, 1e13, "in [1 kbps, 10 Tbps]")?;
        finite_range("bottleneck.delay", b.delay.0, 0.0, 100.0, "in [0, 100 s]")?;

        let t = &self.tcp;
        finite_range("tcp.packet_size", t.packet_size.0, 64.0, 65535.0, "in [64, 65535] bytes")?;
        finite_range("tcp.header_size", t.header_size.0, 0.0, t.packet_size.0 - 1.0, "in [0, packet_size)")?;
        finite_range("tcp.ack_size", t.ack_size.0, 1.0, 65535.0, "in [1, 65535] bytes")?;
        finite_range("tcp.initial_window", t.initial_window, 1.0, 1e6, "in [1, 1e6] segments")?;
        if let Some(w) = t.max_window {
            check("tcp.max_window", (1..=1 << 30).contains(&w), "in [1, 2^30] segments", w)?;
        }
        finite_range("tcp.min_rto", t.min_rto.0, 1e-6, 3600.0, "in (0, 3600 s]")?;
        finite_range("tcp.initial_rto", t.initial_rto.0, t.min_rto.0, 3600.0, "in [min_rto, 3600 s]")?;
        finite_range("tcp.max_rto", t.max_rto.0, t.min_rto.0, 86400.0, "in [min_rto, 1 day]")?;
        finite_range("tcp.clock_granularity", t.clock_granularity.0, 0.0, 10.0, "in [0, 10 s]")?;
        finite_range("tcp.delayed_ack_timeout", t.delayed_ack_timeout.0, 1e-6, 10.0, "in (0, 10 s]")?;
        check(
            "tcp.dupack_threshold",
            (1..=1000).contains(&t.dupack_threshold),
            "in [1, 1000]",
            t.dupack_threshold,
        )?;
        let packet = t.packet_size.0.round();

        let queue = match &b.queue {
            QueueSpec::Droptail { limit, limit_bytes } => {
                QueueConfig::DropTail { limit: resolve_limit(*limit, *limit_bytes, packet)? }
            }
            QueueSpec::Red {
                limit,
                limit_bytes,
                min_th,
                max_th,
                max_p,
                weight,
                gentle,
                wait,
                ecn,
                mean_pktsize,
            } => {
                let limit = resolve_limit(*limit, *limit_bytes, packet)?;
                finite_range("bottleneck.queue.min_th", *min_th, 0.0, 1e9, ">= 0 packets")?;
                check("bottleneck.queue.max_th", max_th.is_finite() && max_th > min_th, "> min_th", max_th)?;
                check("bottleneck.queue.max_p", *max_p > 0.0 && *max_p <= 1.0, "in (0, 1]", max_p)?;
                check("bottleneck.queue.weight", *weight > 0.0 && *weight <= 1.0, "in (0, 1]", weight)?;
                let mean = mean_pktsize.map_or(packet, |m| m.0);
                finite_range("bottleneck.queue.mean_pktsize", mean, 1.0, 65535.0, "in [1, 65535] bytes")?;
                if *ecn && !t.ecn {
                    return err(
                        "bottleneck.queue.ecn",
                        "needs tcp.ecn = true (senders must send ECT packets)",
                    );
                }
                QueueConfig::Red(RedParams {
                    min_th: *min_th,
                    max_th: *max_th,
                    max_p: *max_p,
                    weight: *weight,
                    gentle: *gentle,
                    wait: *wait,
                    ecn: *ecn,
                    mean_pktsize: mean as u32,
                    link_rate_bps: b.rate.0,
                    limit,
                })
            }
        };

        let flows = match &self.flows {
            Some(f) => self.resolve_flows(f)?,
            None if !self.udp.is_empty() => Vec::new(),
            None => return err("flows", "required: a [flows] table (or at least one [[udp]] source)"),
        };
        let udp = self.resolve_udp()?;

        let sample_interval = match self.monitor.sample_interval {
            Some(s) => {
                finite_range("monitor.sample_interval", s.0, 1e-6, self.duration.0, "in [1 us, duration]")?;
                check(
                    "monitor.sample_interval",
                    self.duration.0 / s.0 <= 1e7,
                    "at most 1e7 samples per run",
                    self.duration.0 / s.0,
                )?;
                Some(from_secs(s.0))
            }
            None => None,
        };
        if self.monitor.cwnd && sample_interval.is_none() {
            return err("monitor.cwnd", "needs monitor.sample_interval");
        }

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
            dupack_threshold: t.dupack_threshold,
            limited_transmit: t.limited_transmit,
            ssthresh_from: match t.ssthresh_from {
                SsthreshFrom::Flight => InFlight::FlightSize,
                SsthreshFrom::Pipe => InFlight::Pipe,
            },
            backoff_end: match t.rto_backoff {
                RtoBackoff::UntilSample => BackoffEnd::ValidSample,
                RtoBackoff::NewAck => BackoffEnd::NewAck,
            },
            delayed_ack: t.delayed_ack,
            delayed_ack_timeout: from_secs(t.delayed_ack_timeout.0),
        };
        // Fail early on a bottleneck too slow to carry even one packet in the run.
        check(
            "bottleneck.rate",
            serialization(tcp.packet_size, b.rate.0) < from_secs(self.duration.0),
            "fast enough to send one packet within the duration",
            b.rate.0,
        )?;
        Ok(Config {
            name: self.name.clone(),
            seed: self.seed,
            duration: from_secs(self.duration.0),
            warmup: from_secs(self.warmup.0),
            bottleneck_rate: b.rate.0,
            bottleneck_delay: from_secs(b.delay.0),
            queue,
            flows,
            udp,
            tcp,
            cc: t.congestion_control,
            ack_size: t.ack_size.0.round() as u32,
            sample_interval,
            sample_cwnd: self.monitor.cwnd,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const BASE: &str = r#"{"duration": "10s", "bottleneck": {"rate": "10Mbps", "delay": "10ms",
        "queue": {"discipline": "droptail", "limit": 50}}, "flows": {"count": 3, "rtt": "100ms"}}"#;

    fn with(patch: &str) -> Result<Config, ScenarioError> {
        let mut v: serde_json::Value = serde_json::from_str(BASE).unwrap();
        let p: serde_json::Value = serde_json::from_str(patch).unwrap();
        merge(&mut v, &p);
        config_from_json(&v.to_string())
    }

    fn merge(a: &mut serde_json::Value, b: &serde_json::Value) {
        match (a, b) {
            (serde_json::Value::Object(a), serde_json::Value::Object(b)) => {
                for (k, v) in b {
                    merge(a.entry(k.clone()).or_insert(serde_json::Value::Null), v);
                }
            }
            (a, b) => *a = b.clone(),
        }
    }

    #[test]
    fn minimal_scenario_resolves_with_defaults() {
        let c = with("{}").unwrap();
        assert_eq!(c.flows.len(), 3);
        assert_eq!(c.flows[0].access_delay, from_secs(0.04));
        assert_eq!(c.tcp.packet_size, 1000);
        assert_eq!(c.tcp.payload, 960);
        assert!(c.tcp.sack);
        assert_eq!(c.queue, QueueConfig::DropTail { limit: Limit::Packets(50) });
    }

    #[test]
    fn errors_name_the_field() {
        let e = with(r#"{"bottleneck": {"rate": "-5Mbps"}}"#).unwrap_err();
        assert_eq!(e.field, "bottleneck.rate");
        assert!(e.message.contains(">= 1") || e.message.contains("in ["), "{e}");
        let e = with(r#"{"bottleneck": {"queue": {"limit": 0}}}"#).unwrap_err();
        assert_eq!(e.field, "bottleneck.queue.limit");
        let e = with(r#"{"bottleneck": {"queue": {"discipline": "codel"}}}"#).unwrap_err();
        assert!(e.to_string().contains("codel") && e.to_string().contains("red"), "{e}");
        let e = with(r#"{"tcp": {"colour": "blue"}}"#).unwrap_err();
        assert!(e.to_string().contains("colour"), "{e}");
        let e = with(r#"{"bottleneck": {"rate": "fast"}}"#).unwrap_err();
        assert_eq!(e.field, "bottleneck.rate");
        assert!(e.message.contains("100Mbps"), "{e}");
        let e = with(r#"{"flows": {"rtt": ["100ms", "200ms"]}}"#).unwrap_err();
        assert_eq!(e.field, "flows.rtt");
        let e = with(r#"{"flows": {"rtt": "10ms"}}"#).unwrap_err();
        assert_eq!(e.field, "flows.rtt");
        let e = with(r#"{"warmup": "20s"}"#).unwrap_err();
        assert_eq!(e.field, "warmup");
        let e = with(r#"{"bottleneck": {"queue": {"discipline": "red", "limit": 50, "ecn": true}}}"#)
            .unwrap_err();
        assert_eq!(e.field, "bottleneck.queue.ecn");
    }

    #[test]
    fn uniform_rtts_are_seeded() {
        let a = with(r#"{"flows": {"rtt": {"uniform": ["120ms", "280ms"]}}}"#).unwrap();
        let b = with(r#"{"flows": {"rtt": {"uniform": ["120ms", "280ms"]}}}"#).unwrap();
        let c = with(r#"{"seed": 2, "flows": {"rtt": {"uniform": ["120ms", "280ms"]}}}"#).unwrap();
        assert_eq!(a.flows, b.flows);
        assert_ne!(a.flows, c.flows);
        assert!(a.flows.iter().all(|f| f.rtt >= from_secs(0.12) && f.rtt <= from_secs(0.28)));
    }

    #[test]
    fn red_defaults_are_ns2() {
        let c = with(r#"{"bottleneck": {"queue": {"discipline": "red", "limit": 50}}}"#).unwrap();
        match c.queue {
            QueueConfig::Red(p) => {
                assert_eq!((p.min_th, p.max_th, p.max_p, p.weight), (5.0, 15.0, 0.1, 0.002));
                assert!(p.gentle && p.wait && !p.ecn);
                assert_eq!(p.mean_pktsize, 1000);
            }
            _ => panic!("not RED"),
        }
    }
}
