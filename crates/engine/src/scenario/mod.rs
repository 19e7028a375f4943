//! A whole experiment as data: the scenario file's types, its validation, and its resolution into the
//! engine's [`Config`].
//!
//! A scenario has a network in one of three forms (`[bottleneck]`: the dumbbell; `[parking_lot]`: a chain
//! of K bottlenecks with cross traffic per hop; `[[links]]`: any set of links, each flow group naming its
//! route), flow groups (`[flows]` or `[[flows]]`), optional open-loop `[[udp]]` sources, default `[tcp]`
//! settings that each group may override, and `[monitor]`. The format is documented in `docs/scenario.md`.
//!
//! Parsing rejects unknown fields and malformed quantities; [`Scenario::resolve`] checks every range, draws
//! the per-flow values from the seeded streams and builds every discipline and controller once, so that a
//! [`Config`] that resolved always runs. Every error names the offending field and the allowed range.

pub mod estimate;
pub mod export;
pub mod flows;
pub mod network;
mod strict;

use crate::time::{from_secs, Time, MAX_DURATION_S, MIN_WINDOW};
use crate::traffic::ArrivalPattern;
use crate::units::{Bytes, Rate, Seconds};
pub use estimate::{Estimate, Limits};
pub use flows::{ArrivalConfig, FlowConfig, GroupConfig, PerFlow, SizeDist};
pub use network::{LinkConfig, Network};
use serde::de::DeserializeOwned;
use serde::Deserialize;
use serde_json::Value;
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

pub(crate) fn err<T>(field: &str, message: impl Into<String>) -> Result<T, ScenarioError> {
    Err(ScenarioError { field: field.to_string(), message: message.into() })
}

pub(crate) fn check(field: &str, ok: bool, rule: &str, got: impl fmt::Display) -> Result<(), ScenarioError> {
    if ok {
        Ok(())
    } else {
        err(field, format!("must be {rule} (got {})", short_number(got.to_string())))
    }
}

/// A number written out in full (`1e308` has 309 digits) in scientific notation instead.
fn short_number(text: String) -> String {
    match text.parse::<f64>() {
        Ok(v) if text.len() > 20 => format!("{v:e}"),
        _ => text,
    }
}

pub(crate) fn finite_range(field: &str, v: f64, lo: f64, hi: f64, rule: &str) -> Result<(), ScenarioError> {
    check(field, v.is_finite() && v >= lo && v <= hi, rule, v)
}

/// `v` as an error message quotes it: JSON text cut to 40 characters, the non-finite markers the Python
/// layer sends for TOML's `nan` and `inf` unquoted.
fn quote(v: &Value) -> String {
    match v {
        Value::String(s) if matches!(s.as_str(), "nan" | "inf" | "-inf" | "+inf") => s.clone(),
        Value::Null => "nothing (null)".into(),
        Value::Array(a) if a.is_empty() => "an empty list".into(),
        Value::Array(a) if a.len() == 1 => "a list of 1 value".into(),
        Value::Array(a) => format!("a list of {} values", a.len()),
        Value::Object(_) => "a table".into(),
        _ => {
            let text = v.to_string();
            match text.char_indices().nth(40) {
                Some((i, _)) => format!("{}...", &text[..i]),
                None => text,
            }
        }
    }
}

/// What serde says it expected, in the scenario's words.
fn expected_words(e: &str) -> String {
    let e = e.trim();
    if let Some(n) = e.strip_prefix("a tuple of size ").or_else(|| e.strip_prefix("tuple of size ")) {
        return format!("a list of {n} values");
    }
    if let Some(rest) = e.strip_prefix("one of ") {
        return rest.replace('`', "\"");
    }
    match e {
        "u64" | "u32" | "u16" | "u8" | "usize" => "a whole number >= 0".into(),
        "i64" | "i32" | "i16" | "i8" | "isize" => "a whole number".into(),
        "f64" | "f32" => "a number".into(),
        "a boolean" | "bool" => "true or false".into(),
        "a sequence" | "sequence" => "a list".into(),
        "a map" | "map" => "a table".into(),
        "string or map" | "variant identifier" | "map with a single key" => "a name".into(),
        _ if e.starts_with("struct ") || e.contains("tagged enum ") || e.starts_with("enum ") => {
            "a table".into()
        }
        _ => e.replace('`', "\""),
    }
}

/// serde's description of an unexpected value (`integer `-1``, `string "x"`), as the input writes it.
fn unexpected_words(u: &str) -> String {
    let u = u.trim();
    for prefix in ["integer ", "floating point ", "boolean ", "character "] {
        if let Some(rest) = u.strip_prefix(prefix) {
            return rest.trim_matches('`').to_string();
        }
    }
    match u {
        "sequence" => "a list".into(),
        "map" => "a table".into(),
        "null" | "unit value" => "nothing (null)".into(),
        _ => u.strip_prefix("string ").unwrap_or(u).to_string(),
    }
}

/// A serde message in the scenario's words, without its position and without Rust type names:
/// "expected <what>, got <value>", quoting `got` (the input at the error's path) when it is known.
pub(crate) fn clean_message(message: &str, got: Option<&Value>) -> String {
    let message = match message.find(" at line ") {
        Some(i) => &message[..i],
        None => message,
    };
    let got_or = |fallback: &str| got.map_or_else(|| unexpected_words(fallback), quote);
    for kind in ["invalid type: ", "invalid value: "] {
        if let Some(rest) = message.strip_prefix(kind) {
            if let Some((u, e)) = rest.split_once(", expected ") {
                return format!("expected {}, got {}", expected_words(e), got_or(u));
            }
        }
    }
    if let Some(rest) = message.strip_prefix("invalid length ") {
        if let Some((_, e)) = rest.split_once(", expected ") {
            // A table given as a list ("struct X with N elements") is a table all the same.
            let e = if e.starts_with("struct ") { "a table" } else { e };
            return format!("expected {}, got {}", expected_words(e), got_or("a list"));
        }
    }
    if let Some(rest) = message.strip_prefix("unknown variant ") {
        if let Some((v, e)) = rest.split_once(", expected ") {
            return format!("expected {}, got \"{}\"", expected_words(e), v.trim_matches('`'));
        }
    }
    if let Some(rest) = message.strip_prefix("unknown field ") {
        let (name, e) = rest.split_once(", expected ").unwrap_or((rest, "no fields here"));
        let e = if e.starts_with("there are no fields") { "no fields here" } else { e };
        let e = e.strip_prefix("one of ").unwrap_or(e).replace('`', "");
        return format!("unknown field \"{}\" (valid: {e})", name.trim_matches('`'));
    }
    match message {
        "expected value" => format!("expected a name, got {}", got_or("a value")),
        "recursion limit exceeded" => NESTED.into(),
        _ => {
            // "expected struct Bottleneck" -> "expected a table".
            let mut message = message.to_string();
            if let Some(i) = message.find("expected struct ") {
                let rest = &message[i + "expected struct ".len()..];
                let end = rest.find(|c: char| !c.is_alphanumeric()).unwrap_or(rest.len());
                message = format!("{}expected a table{}", &message[..i], &rest[end..]);
            }
            message
        }
    }
}

/// The value at `path` inside `root`.
fn lookup<'a>(root: &'a Value, path: &serde_path_to_error::Path) -> Option<&'a Value> {
    use serde_path_to_error::Segment;
    path.iter().try_fold(root, |v, seg| match seg {
        Segment::Seq { index } => v.get(*index),
        Segment::Map { key } => v.get(key.as_str()),
        Segment::Enum { .. } | Segment::Unknown => Some(v),
    })
}

/// `field.path` (either may be empty).
fn join(field: &str, path: &str) -> String {
    match (field.is_empty(), path.is_empty() || path == ".") {
        (_, true) => field.to_string(),
        (true, false) => path.to_string(),
        (false, false) if path.starts_with('[') => format!("{field}{path}"),
        (false, false) => format!("{field}.{path}"),
    }
}

/// Deserialize `value` as `T`, naming the field of any error under `field` and describing it in the
/// scenario's words (see [`clean_message`]): the one place serde errors become [`ScenarioError`]s.
pub(crate) fn from_value<T: DeserializeOwned>(value: Value, field: &str) -> Result<T, ScenarioError> {
    let e = match serde_path_to_error::deserialize::<_, T>(strict::Strict(&value)) {
        Ok(t) => return Ok(t),
        Err(e) => e,
    };
    let path = match e.path().to_string() {
        root if root == "." => String::new(),
        path => path,
    };
    let inner = e.inner().to_string();
    if let Some(name) = inner.strip_prefix("missing field ") {
        let name = name.split(" at line ").next().unwrap_or(name).trim_matches('`');
        return err(&join(field, &join(&path, name)), "required");
    }
    let got = lookup(&value, e.path());
    let mut message = clean_message(&inner, got);
    if message.starts_with("expected a name, got") {
        // A name of the wrong type: ask serde for the names by putting an unknown one in its place.
        if let Some(names) = names_at::<T>(&value, e.path()) {
            message = format!("expected {names}, got {}", got.map_or_else(|| "a value".into(), quote));
        }
    }
    Err(ScenarioError { field: join(field, &path), message })
}

/// The names serde accepts at `path` (an enum of names), found by deserializing again with an unknown name
/// there.
fn names_at<T: DeserializeOwned>(value: &Value, path: &serde_path_to_error::Path) -> Option<String> {
    let mut probe = value.clone();
    let mut slot = &mut probe;
    for seg in path.iter() {
        slot = match seg {
            serde_path_to_error::Segment::Seq { index } => slot.get_mut(*index)?,
            serde_path_to_error::Segment::Map { key } => slot.get_mut(key.as_str())?,
            _ => return None,
        };
    }
    *slot = Value::String("\u{1}".into());
    let e = serde_path_to_error::deserialize::<_, T>(strict::Strict(&probe)).err()?;
    let rest = e.inner().to_string();
    let expected = rest.strip_prefix("unknown variant ")?.split_once(", expected ")?.1.to_string();
    Some(expected_words(&expected))
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
    /// The dumbbell: one bottleneck link named `bottleneck`.
    pub bottleneck: Option<serde_json::Value>,
    /// A chain of bottlenecks `hop1`..`hopK`.
    pub parking_lot: Option<serde_json::Value>,
    /// Any set of links.
    pub links: Option<serde_json::Value>,
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
    pub pattern: Pattern,
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
        self.groups.iter().enumerate().flat_map(|(g, grp)| grp.flows.iter().map(move |f| (g, f)))
    }
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

const NESTED: &str = "nested too deeply";

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
                pattern: match u.pattern {
                    Pattern::Poisson => ArrivalPattern::Poisson,
                    Pattern::Cbr => ArrivalPattern::Cbr,
                },
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
            for &p in &grp.route {
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
                Some(crate::trace::TraceConfig::resolve(&table, &net, self.duration.0)?)
            }
            None => None,
        };
        let mut cfg = Config {
            name: self.name.clone(),
            seed: self.seed,
            duration: from_secs(self.duration.0),
            warmup: from_secs(self.warmup.0),
            network: net,
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
