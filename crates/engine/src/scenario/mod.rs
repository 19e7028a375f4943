//! A whole experiment as data: the scenario file's types, its validation, and its resolution into the
//! engine's [`Config`].
//!
//! A scenario has a network in one of four forms (`[bottleneck]`: the dumbbell; `[parking_lot]`: a chain
//! of K bottlenecks with cross traffic per hop; `[[links]]`: any set of links, each flow group naming its
//! route; `[leaf_spine]`: a Clos fabric, each flow routed between two hosts over an ECMP-chosen spine), flow groups (`[flows]` or `[[flows]]`), optional open-loop `[[udp]]` sources, default `[tcp]`
//! settings that each group may override, and `[monitor]`. The format is documented in `docs/scenario.md`.
//!
//! Parsing rejects unknown fields and malformed quantities; [`Scenario::resolve`] checks every range, draws
//! the per-flow values from the seeded streams and builds every discipline and controller once, so that a
//! [`Config`] that resolved always runs. Every error names the offending field and the allowed range.

pub mod estimate;
pub mod export;
pub mod flows;
pub mod network;

pub use crate::spec::ScenarioError;
use crate::spec::NESTED;
pub(crate) use crate::spec::{check, clean_message, err, finite_range, from_value};
use crate::time::{from_secs, Time, MAX_DURATION_S, MIN_WINDOW};
use crate::traffic::ArrivalPattern;
use crate::units::{Bytes, Rate, Seconds};
pub use estimate::{Estimate, Limits};
pub use flows::{ArrivalConfig, FlowConfig, GroupConfig, PerFlow, SizeDist};
pub use network::{LinkConfig, Network};
use serde::Deserialize;
use serde_json::Value;

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
    /// The dumbbell: one bottleneck link named `bottleneck`.
    pub bottleneck: Option<serde_json::Value>,
    /// A chain of bottlenecks `hop1`..`hopK`.
    pub parking_lot: Option<serde_json::Value>,
    /// Any set of links.
    pub links: Option<serde_json::Value>,
    /// A two-tier Clos fabric of leaves, spines and hosts (`network::Fabric`).
    pub leaf_spine: Option<serde_json::Value>,
    /// `[[shared_buffers]]`: ports of one switch drawing from one pool.
    pub shared_buffers: Option<serde_json::Value>,
    /// One group (`[flows]`) or several (`[[flows]]`).
    pub flows: Option<serde_json::Value>,
    #[serde(default)]
    pub udp: Vec<Udp>,
    /// Settings every group starts from.
    #[serde(default)]
    pub tcp: serde_json::Value,
    #[serde(default)]
    pub monitor: Monitor,
    /// The most a run may use (memory, events); see [`estimate`].
    #[serde(default)]
    pub limits: estimate::LimitsTable,
    /// `[trace]`: event records and a pcap file (`docs/traces.md`).
    pub trace: Option<serde_json::Value>,
}

fn default_seed() -> u64 {
    1
}
pub(crate) fn zero_seconds() -> Seconds {
    Seconds(0.0)
}

/// An open-loop UDP source (`[[udp]]`), entering the first link of its route directly.
#[derive(Deserialize, Debug, Clone)]
#[serde(deny_unknown_fields)]
pub struct Udp {
    pub pattern: ArrivalPattern,
    pub rate: Rate,
    #[serde(default = "default_udp_size")]
    pub packet_size: Bytes,
    #[serde(default = "zero_seconds")]
    pub start: Seconds,
    pub stop: Option<Seconds>,
    /// Links crossed, by name (default: the first link).
    pub route: Option<Vec<String>>,
}

fn default_udp_size() -> Bytes {
    Bytes(1000.0)
}

/// An open-loop source, resolved.
#[derive(Clone, Debug, PartialEq)]
pub struct UdpConfig {
    pub pattern: ArrivalPattern,
    pub rate_bps: f64,
    pub packet_size: u32,
    pub start: Time,
    pub stop: Time,
    /// Port indices.
    pub route: Vec<usize>,
}

#[derive(Deserialize, Debug, Clone)]
#[serde(deny_unknown_fields)]
pub struct Monitor {
    pub sample_interval: Option<Seconds>,
    #[serde(default)]
    pub cwnd: bool,
    /// Upper edges of the flow-size buckets of the FCT statistics (bytes of payload).
    #[serde(default = "default_fct_buckets")]
    pub fct_buckets: Vec<Bytes>,
    /// Most finished flows recorded one by one (the statistics by bucket cover all of them).
    #[serde(default = "default_fct_records")]
    pub fct_records: u64,
}

impl Default for Monitor {
    fn default() -> Self {
        Monitor {
            sample_interval: None,
            cwnd: false,
            fct_buckets: default_fct_buckets(),
            fct_records: default_fct_records(),
        }
    }
}

fn default_fct_buckets() -> Vec<Bytes> {
    vec![Bytes(1e4), Bytes(1e5), Bytes(1e6), Bytes(1e7)]
}
fn default_fct_records() -> u64 {
    100_000
}

/// What the engine runs: every value checked and in engine units.
#[derive(Clone, Debug)]
pub struct Config {
    pub name: String,
    pub seed: u64,
    pub duration: Time,
    pub warmup: Time,
    pub network: Network,
    /// Pools of bytes shared by ports (each port in at most one).
    pub shared_buffers: Vec<network::SharedBufferConfig>,
    pub groups: Vec<GroupConfig>,
    pub udp: Vec<UdpConfig>,
    pub sample_interval: Option<Time>,
    pub sample_cwnd: bool,
    /// Upper edges of the FCT size buckets, payload bytes, increasing (a last bucket takes the rest).
    pub fct_buckets: Vec<u64>,
    pub fct_records: usize,
    pub limits: Limits,
    /// What the run is expected to cost (checked against `limits` when the scenario resolves).
    pub estimate: Estimate,
    /// `[trace]`, if the scenario has one.
    pub trace: Option<crate::trace::TraceConfig>,
}

impl Config {
    /// Every flow started at a fixed time (not by an arrival process), in group order: the rows of the
    /// per-flow results.
    pub fn fixed_flows(&self) -> impl Iterator<Item = (usize, &FlowConfig)> {
        let fixed = self.groups.iter().enumerate().filter(|(_, grp)| grp.incast.is_none());
        fixed.flat_map(|(g, grp)| grp.flows.iter().map(move |f| (g, f)))
    }
}

/// The parameter reference of every queue discipline, congestion controller and the `[tcp]` table, from
/// their declarations ([`crate::spec::params`]): `{"disciplines": {name: reference}, "controllers": ...,
/// "tcp": {"tcp": reference}}`, each reference as [`Params::describe`](crate::spec::params::Params::describe)
/// gives it.
pub fn reference() -> serde_json::Value {
    let section = |items: Vec<(&str, serde_json::Value)>| {
        serde_json::Value::Object(items.into_iter().map(|(name, v)| (name.to_string(), v)).collect())
    };
    serde_json::json!({
        "disciplines": section(crate::queue::describe_disciplines()),
        "controllers": section(crate::tcp::cc::describe_controllers()),
        "tcp": section(vec![("tcp", flows::describe_tcp())]),
    })
}

/// Parse a scenario from JSON text (the Python layer turns TOML or a dict into JSON).
pub fn from_json(text: &str) -> Result<Scenario, ScenarioError> {
    let value: Value = serde_json::from_str(text).map_err(|e| {
        let message = clean_message(&e.to_string(), None);
        let field = if message == NESTED { deep_key(text).unwrap_or_default() } else { String::new() };
        ScenarioError { field, message }
    })?;
    from_value(value, "")
}

/// The top-level key whose value nests lists or tables more than 100 levels deep.
fn deep_key(text: &str) -> Option<String> {
    let (mut depth, mut in_string, mut escaped) = (0usize, false, false);
    let (mut key, mut string) = (None, String::new());
    for c in text.chars() {
        if in_string {
            match (escaped, c) {
                (true, _) => escaped = false,
                (false, '\\') => escaped = true,
                (false, '"') => in_string = false,
                _ => {}
            }
            if depth == 1 {
                string.push(c);
            }
            continue;
        }
        match c {
            '"' => {
                in_string = true;
                string.clear();
            }
            ':' if depth == 1 => key = Some(string.trim_end_matches('"').to_string()),
            '{' | '[' => {
                depth += 1;
                if depth > 100 {
                    return key;
                }
            }
            '}' | ']' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    None
}

/// Parse and resolve in one step.
pub fn config_from_json(text: &str) -> Result<Config, ScenarioError> {
    from_json(text)?.resolve()
}

impl Scenario {
    fn resolve_udp(&self, net: &Network) -> Result<Vec<UdpConfig>, ScenarioError> {
        check("udp", self.udp.len() <= 100_000, "at most 100,000 sources", self.udp.len())?;
        let mut out = Vec::with_capacity(self.udp.len());
        for (i, u) in self.udp.iter().enumerate() {
            let field = |name: &str| format!("udp[{i}].{name}");
            finite_range(&field("rate"), u.rate.0, 1e3, 1e13, "in [1 kbps, 10 Tbps]")?;
            finite_range(&field("packet_size"), u.packet_size.0, 20.0, 65535.0, "in [20, 65535] bytes")?;
            finite_range(&field("start"), u.start.0, 0.0, self.duration.0, "in [0, duration]")?;
            let stop = u.stop.map_or(f64::INFINITY, |s| s.0);
            check(&field("stop"), stop > u.start.0, "after the source's start", stop)?;
            let route = match &u.route {
                Some(names) => net.route(names, &field("route"))?,
                None => vec![0],
            };
            out.push(UdpConfig {
                pattern: u.pattern,
                rate_bps: u.rate.0,
                packet_size: u.packet_size.0.round() as u32,
                start: from_secs(u.start.0),
                stop: if stop.is_finite() { from_secs(stop) } else { crate::time::NEVER },
                route,
            });
        }
        Ok(out)
    }

    pub fn resolve(&self) -> Result<Config, ScenarioError> {
        finite_range(
            "duration",
            self.duration.0,
            1e-6,
            MAX_DURATION_S,
            "in [1 us, 180 days] (15,552,000 s: the clock covers 213 days)",
        )?;
        finite_range("warmup", self.warmup.0, 0.0, self.duration.0, "in [0, duration)")?;
        let window = from_secs(self.duration.0).saturating_sub(from_secs(self.warmup.0));
        if window < MIN_WINDOW {
            let field = if self.warmup.0 > 0.0 { "warmup" } else { "duration" };
            return err(
                field,
                format!(
                    "must leave a measurement window (duration - warmup) of at least 1 us (got warmup {} s, \
                     duration {} s)",
                    self.warmup.0, self.duration.0
                ),
            );
        }

        let (mut net, form) = Network::from_scenario(self)?;
        let shared_buffers = network::resolve_shared_buffers(self.shared_buffers.as_ref(), &net)?;
        let base_tcp = flows::base_tcp(&self.tcp)?;
        let groups = flows::resolve_groups(self, &net, &form, &base_tcp)?;
        let udp = self.resolve_udp(&net)?;
        if groups.is_empty() && udp.is_empty() {
            return err("flows", "required: a [flows] table (or at least one [[udp]] source)");
        }
        let limits = Limits::resolve(&self.limits)?;
        let queues = net.build_queues(&groups, &udp, self.seed)?;

        // Fail early on a link too slow to carry even one packet in the run.
        for (g, grp) in groups.iter().enumerate() {
            let mut ports: Vec<usize> = grp.routes.iter().flatten().copied().collect();
            if grp.routes.len() > 1 {
                ports.sort_unstable();
                ports.dedup();
            }
            for p in ports {
                let link = &net.links[p];
                check(
                    &link.field_rate(),
                    crate::time::serialization(grp.tcp.packet_size, link.rate) < from_secs(self.duration.0),
                    "fast enough to send one packet within the duration",
                    link.rate,
                )
                .map_err(|e| ScenarioError { message: format!("{} (group {g})", e.message), ..e })?;
            }
        }

        let m = &self.monitor;
        let sample_interval = match m.sample_interval {
            Some(s) => {
                finite_range("monitor.sample_interval", s.0, 1e-6, self.duration.0, "in [1 us, duration]")?;
                Some(from_secs(s.0))
            }
            None => None,
        };
        if m.cwnd && sample_interval.is_none() {
            return err("monitor.cwnd", "needs monitor.sample_interval");
        }
        let mut fct_buckets = Vec::with_capacity(m.fct_buckets.len());
        for (i, b) in m.fct_buckets.iter().enumerate() {
            let field = format!("monitor.fct_buckets[{i}]");
            finite_range(&field, b.0, 1.0, 1e15, "in [1 B, 1e15 B]")?;
            let edge = b.0.round() as u64;
            check(
                &field,
                fct_buckets.last().is_none_or(|&l| edge > l),
                "larger than the previous edge",
                b.0,
            )?;
            fct_buckets.push(edge);
        }
        check("monitor.fct_buckets", fct_buckets.len() <= 64, "at most 64 edges", fct_buckets.len())?;
        check("monitor.fct_records", m.fct_records <= 10_000_000, "at most 10,000,000", m.fct_records)?;

        let trace = match &self.trace {
            Some(v) => {
                let table: crate::trace::TraceTable = from_value(v.clone(), "trace")?;
                let links: Vec<&str> = net.links.iter().map(|l| l.name.as_str()).collect();
                Some(crate::trace::TraceConfig::resolve(&table, &links, self.duration.0)?)
            }
            None => None,
        };
        let mut cfg = Config {
            name: self.name.clone(),
            seed: self.seed,
            duration: from_secs(self.duration.0),
            warmup: from_secs(self.warmup.0),
            network: net,
            shared_buffers,
            groups,
            udp,
            sample_interval,
            sample_cwnd: m.cwnd,
            fct_buckets,
            fct_records: m.fct_records as usize,
            limits,
            estimate: Estimate::default(),
            trace,
        };
        cfg.estimate = Estimate::of(&cfg, &queues);
        cfg.estimate.check(&limits)?;
        Ok(cfg)
    }
}

/// The random stream of consumer `base` for group `group` (group 0 keeps the single-group streams).
pub(crate) fn group_stream(group: usize, base: u64) -> u64 {
    base + ((group as u64) << 20)
}

#[cfg(test)]
mod tests;
