//! The `[trace]` table and its resolution: every field checked and named in errors.

use super::KIND_NAMES;
use crate::spec::{check, err, finite_range, ScenarioError};
use crate::time::{from_secs, Time};
use crate::units::{Bytes, Seconds};
use serde::Deserialize;
use serde_json::Value;

/// `[trace]` as written.
#[derive(Deserialize, Debug, Clone, Default)]
#[serde(deny_unknown_fields)]
pub struct TraceTable {
    /// Record the event trace.
    #[serde(default)]
    pub events: bool,
    /// Event kinds recorded (default: all).
    pub kinds: Option<Vec<String>>,
    /// TCP flows traced: numbers and `"a-b"` ranges (default: all, and UDP datagrams too).
    pub flows: Option<Vec<Value>>,
    /// Ports whose queue events are recorded, by link name (default: all).
    pub ports: Option<Vec<String>>,
    pub start: Option<Seconds>,
    pub stop: Option<Seconds>,
    /// Most event records kept.
    pub max_events: Option<f64>,
    /// The pcap file to write.
    pub pcap: Option<String>,
    /// The port the pcap captures (default: the first link).
    pub port: Option<String>,
    /// Bytes of each packet written (headers first, the rest zeros); the IP length tells the true size.
    pub snaplen: Option<Bytes>,
    pub max_packets: Option<f64>,
    pub max_bytes: Option<Bytes>,
    /// Which side of the port's queue the pcap sees: `"egress"` (packets the link transmits) or
    /// `"ingress"` (packets arriving at the port, those it then drops included).
    pub side: Option<String>,
}

/// Where and how the pcap is written.
#[derive(Clone, Debug, PartialEq)]
pub struct PcapConfig {
    pub path: String,
    pub port: usize,
    pub snaplen: u32,
    pub max_packets: u64,
    pub max_bytes: u64,
    pub start: Time,
    pub stop: Time,
    /// Capture arrivals at the port (`side = "ingress"`) instead of its transmissions.
    pub ingress: bool,
}

/// `[trace]` resolved.
#[derive(Clone, Debug, PartialEq)]
pub struct TraceConfig {
    pub events: bool,
    /// Bit `k` set: events of kind `k` are recorded.
    pub kinds: u16,
    /// Inclusive ranges of flow slots traced; `None`: all flows and UDP datagrams.
    pub flows: Option<Vec<(u32, u32)>>,
    /// Ports whose queue events are recorded.
    pub ports: Vec<bool>,
    pub start: Time,
    pub stop: Time,
    pub max_events: u64,
    pub pcap: Option<PcapConfig>,
}

/// Default `max_events`.
pub const DEFAULT_MAX_EVENTS: f64 = 1e6;
/// Default pcap `snaplen`: every header in full (IPv4 20 + TCP up to 60 bytes).
pub const DEFAULT_SNAPLEN: f64 = 128.0;

impl TraceConfig {
    #[inline]
    pub fn in_window(&self, t: Time) -> bool {
        t >= self.start && t <= self.stop
    }

    #[inline]
    pub fn flow_ok(&self, flow: u32) -> bool {
        match &self.flows {
            None => true,
            Some(ranges) => ranges.iter().any(|&(a, b)| flow >= a && flow <= b),
        }
    }

    #[inline]
    pub fn port_ok(&self, port: usize) -> bool {
        self.ports.get(port).copied().unwrap_or(false)
    }

    /// Resolve `t` for a run of `duration` seconds over the links named `links` (one per port, in order).
    pub fn resolve(t: &TraceTable, links: &[&str], duration: f64) -> Result<TraceConfig, ScenarioError> {
        let mut kinds = 0u16;
        match &t.kinds {
            None => kinds = (1 << KIND_NAMES.len()) - 1,
            Some(names) => {
                check("trace.kinds", !names.is_empty(), "a non-empty list of event kinds", "an empty list")?;
                for (i, n) in names.iter().enumerate() {
                    match KIND_NAMES.iter().position(|k| k == n) {
                        Some(k) => kinds |= 1 << k,
                        None => {
                            return err(
                                &format!("trace.kinds[{i}]"),
                                format!("expected one of {}, got {n:?}", KIND_NAMES.join(", ")),
                            )
                        }
                    }
                }
            }
        }
        let flows = match &t.flows {
            None => None,
            Some(items) => {
                check("trace.flows", !items.is_empty(), "a non-empty list of flows", "an empty list")?;
                let mut ranges = Vec::with_capacity(items.len());
                for (i, v) in items.iter().enumerate() {
                    ranges.push(flow_range(v, &format!("trace.flows[{i}]"))?);
                }
                Some(ranges)
            }
        };
        let mut ports = vec![t.ports.is_none(); links.len()];
        if let Some(names) = &t.ports {
            check("trace.ports", !names.is_empty(), "a non-empty list of link names", "an empty list")?;
            for (i, n) in names.iter().enumerate() {
                ports[link(links, n, &format!("trace.ports[{i}]"))?] = true;
            }
        }
        let start = t.start.map_or(0.0, |s| s.0);
        finite_range("trace.start", start, 0.0, duration, "in [0, duration]")?;
        let stop = t.stop.map_or(duration, |s| s.0);
        finite_range("trace.stop", stop, start, duration, "in [trace.start, duration]")?;
        let max_events = t.max_events.unwrap_or(DEFAULT_MAX_EVENTS);
        finite_range("trace.max_events", max_events, 1.0, 1e10, "a whole number in [1, 1e10]")?;
        check("trace.max_events", max_events.fract() == 0.0, "a whole number in [1, 1e10]", max_events)?;
        let pcap_only = |field: &str, given: bool| -> Result<(), ScenarioError> {
            if given && t.pcap.is_none() {
                return err(field, "applies to the pcap: give trace.pcap too");
            }
            Ok(())
        };
        pcap_only("trace.port", t.port.is_some())?;
        pcap_only("trace.snaplen", t.snaplen.is_some())?;
        pcap_only("trace.max_packets", t.max_packets.is_some())?;
        pcap_only("trace.max_bytes", t.max_bytes.is_some())?;
        pcap_only("trace.side", t.side.is_some())?;
        let ingress = match t.side.as_deref() {
            None | Some("egress") => false,
            Some("ingress") => true,
            Some(other) => {
                return err("trace.side", format!("expected \"egress\" or \"ingress\", got {other:?}"))
            }
        };
        let pcap = match &t.pcap {
            None => None,
            Some(path) => {
                check("trace.pcap", !path.trim().is_empty(), "a file name", "an empty string")?;
                let port = match &t.port {
                    Some(n) => link(links, n, "trace.port")?,
                    None => 0,
                };
                let snaplen = t.snaplen.map_or(DEFAULT_SNAPLEN, |b| b.0);
                finite_range("trace.snaplen", snaplen, 20.0, 65535.0, "in [20, 65535] bytes")?;
                let max_packets = t.max_packets.unwrap_or(1e8);
                finite_range("trace.max_packets", max_packets, 1.0, 1e12, "a whole number in [1, 1e12]")?;
                let max_bytes = t.max_bytes.map_or(1e10, |b| b.0);
                finite_range("trace.max_bytes", max_bytes, 1e3, 1e15, "in [1 KB, 1 PB]")?;
                Some(PcapConfig {
                    path: path.clone(),
                    port,
                    snaplen: snaplen.round() as u32,
                    max_packets: max_packets as u64,
                    max_bytes: max_bytes as u64,
                    start: from_secs(start),
                    stop: from_secs(stop),
                    ingress,
                })
            }
        };
        if !t.events && pcap.is_none() {
            return err("trace", "traces nothing: set events = true, or pcap = \"FILE\"");
        }
        Ok(TraceConfig {
            events: t.events,
            kinds,
            flows,
            ports,
            start: from_secs(start),
            stop: from_secs(stop),
            max_events: max_events as u64,
            pcap,
        })
    }
}

/// A flow number (`3`) or an inclusive range (`"3-7"`).
fn flow_range(v: &Value, field: &str) -> Result<(u32, u32), ScenarioError> {
    let number = |x: &Value| x.as_u64().filter(|&n| n <= u32::MAX as u64).map(|n| n as u32);
    if let Some(n) = number(v) {
        return Ok((n, n));
    }
    if let Some(s) = v.as_str() {
        if let Some((a, b)) = s.split_once('-') {
            if let (Ok(a), Ok(b)) = (a.trim().parse::<u32>(), b.trim().parse::<u32>()) {
                check(field, a <= b, "a range \"a-b\" with a <= b", s)?;
                return Ok((a, b));
            }
        }
    }
    err(field, format!("expected a flow number >= 0 or a range such as \"0-9\", got {v}"))
}

/// The port of the link named `name` among `links`.
fn link(links: &[&str], name: &str, field: &str) -> Result<usize, ScenarioError> {
    match links.iter().position(|&l| l == name) {
        Some(p) => Ok(p),
        None => err(field, format!("no link named {name:?} (links: {})", links.join(", "))),
    }
}
