//! Each parameter of a discipline, a controller or `[tcp]` declared once, in a `params!` block: its
//! name, type, default, allowed range and one-line description. From that one declaration come the struct
//! a scenario table deserializes into, its `Default`, its range checks with field-named errors
//! ([`Params::check`]), and the parameter reference ([`Params::describe`]) behind `bufferlab describe`
//! and the generated tables of `docs/scenario.md`.
//!
//! ```ignore
//! params! {
//!     /// CoDel (RFC 8289): drops at dequeue while the sojourn time stays above `target`.
//!     pub struct Spec {
//!         /// Acceptable standing queue delay (RFC 8289 §4.4).
//!         target: Seconds = Seconds(0.005), Rule::closed(1e-9, 3600.0);
//!         /// CE-mark ECN-capable packets instead of dropping them.
//!         ecn: bool = false;
//!     }
//! }
//! ```
//!
//! A range may be bounded by another parameter (`Rule::above_field("min_th")`); what depends on the port
//! or the flows (a limit of at least one packet, ECN needing ECN senders) is checked where the discipline
//! is built, and the rule says so in words ([`Rule::context`]).

use super::{check, ScenarioError};
use crate::units::{Bytes, Rate, Seconds};
use serde_json::{json, Value};

/// What a parameter holds, as the reference names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Number,
    Integer,
    Duration,
    Size,
    Rate,
    Bool,
    Name,
    Table,
}

impl Kind {
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Number => "number",
            Kind::Integer => "integer",
            Kind::Duration => "duration",
            Kind::Size => "size",
            Kind::Rate => "rate",
            Kind::Bool => "bool",
            Kind::Name => "name",
            Kind::Table => "table",
        }
    }

    /// `v` written as a scenario would write it: `0.005` seconds as `5ms`, `1500` bytes as `1500B`.
    fn format(self, v: f64) -> String {
        match self {
            Kind::Duration => format_seconds(v),
            Kind::Size => format_scaled(v, &[(1e15, "PB"), (1e12, "TB"), (1e9, "GB"), (1e6, "MB")], "B"),
            Kind::Rate => {
                format_scaled(v, &[(1e12, "Tbps"), (1e9, "Gbps"), (1e6, "Mbps"), (1e3, "kbps")], "bps")
            }
            _ => format_number(v),
        }
    }
}

/// A number as short as it can be written exactly: `1000`, `0.002`, `2^40`, `1e9`, `1e-6`.
pub fn format_number(v: f64) -> String {
    let a = v.abs();
    if a >= 1048576.0 && a.log2().fract() == 0.0 {
        return format!("{}2^{}", if v < 0.0 { "-" } else { "" }, a.log2() as i32);
    }
    let (plain, scientific) = (format!("{v}"), format!("{v:e}"));
    if scientific.len() + 1 < plain.len() {
        scientific
    } else {
        plain
    }
}

/// `v` in the largest unit of `scales` that writes it as a whole number (`1GB`, `16384B`).
fn format_scaled(v: f64, scales: &[(f64, &str)], unit: &str) -> String {
    if !v.is_finite() || v.abs() >= 1e18 {
        return format!("{}{unit}", format_number(v));
    }
    for &(scale, name) in scales {
        let x = v / scale;
        if v.abs() >= scale && x.fract() == 0.0 {
            return format!("{}{name}", format_number(x));
        }
    }
    format!("{}{unit}", format_number(v))
}

fn format_seconds(v: f64) -> String {
    match v {
        0.0 => "0s".into(),
        _ if !(1e-12..1e9).contains(&v) => format!("{}s", format_number(v)),
        _ if v >= 86400.0 && (v / 86400.0).fract() == 0.0 => format!("{}d", format_number(v / 86400.0)),
        _ if v >= 3600.0 && (v / 3600.0).fract() == 0.0 => format!("{}h", format_number(v / 3600.0)),
        _ if v >= 1.0 => format!("{}s", format_number(v)),
        _ => {
            for (scale, name) in [(1e-3, "ms"), (1e-6, "us"), (1e-9, "ns")] {
                let x = (v / scale * 1e9).round() / 1e9;
                if v >= scale * 0.999_999_999 {
                    return format!("{}{name}", format_number(x));
                }
            }
            format!("{}ps", format_number((v / 1e-12 * 1e6).round() / 1e6))
        }
    }
}

/// A value a parameter can hold: its [`Kind`], and the number a range checks.
pub trait ParamValue {
    const KIND: Kind;
    fn number(&self) -> Option<f64> {
        None
    }
}

macro_rules! numeric {
    ($($ty:ty => $kind:ident, |$v:ident| $n:expr);* $(;)?) => {
        $(impl ParamValue for $ty {
            const KIND: Kind = Kind::$kind;
            fn number(&self) -> Option<f64> {
                let $v = self;
                Some($n)
            }
        })*
    };
}

numeric! {
    f64 => Number, |v| *v;
    u64 => Integer, |v| *v as f64;
    u32 => Integer, |v| f64::from(*v);
    Seconds => Duration, |v| v.0;
    Bytes => Size, |v| v.0;
    Rate => Rate, |v| v.0;
}

impl ParamValue for bool {
    const KIND: Kind = Kind::Bool;
}

impl ParamValue for Value {
    const KIND: Kind = Kind::Table;
}

impl<T: ParamValue> ParamValue for Option<T> {
    const KIND: Kind = T::KIND;
    fn number(&self) -> Option<f64> {
        self.as_ref().and_then(T::number)
    }
}

/// Parameters that are one of a few names (serde enums): `name_params!(ReduceFrom, EcnResponse)`.
macro_rules! name_params {
    ($($ty:ty),* $(,)?) => {
        $(impl $crate::spec::params::ParamValue for $ty {
            const KIND: $crate::spec::params::Kind = $crate::spec::params::Kind::Name;
        })*
    };
}
pub(crate) use name_params;

/// One end of a range: a number, or another parameter of the same table.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Bound {
    Value(f64),
    Field(&'static str),
}

/// What values a parameter allows. Ranges are checked by [`Params::check`]; names are enforced by
/// deserialization (a table-valued parameter's where it is parsed) and listed here for the reference; a `context` rule is checked where the table is
/// built, against the port or the flows, and says what it checks.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rule {
    pub low: Option<Bound>,
    pub high: Option<Bound>,
    pub low_open: bool,
    pub high_open: bool,
    /// Written after the range (`packets`, `segments per RTT`).
    pub unit: &'static str,
    /// The names allowed, for the reference.
    pub names: &'static [&'static str],
    /// A rule checked where the table is built, in words.
    pub context: &'static str,
    /// The default in words, when it is decided where the table is built (`None` in the struct).
    pub default: &'static str,
}

impl Rule {
    /// Anything its type holds.
    pub const ANY: Rule = Rule {
        low: None,
        high: None,
        low_open: false,
        high_open: false,
        unit: "",
        names: &[],
        context: "",
        default: "",
    };

    /// `[low, high]`.
    pub const fn closed(low: f64, high: f64) -> Rule {
        Rule { low: Some(Bound::Value(low)), high: Some(Bound::Value(high)), ..Rule::ANY }
    }
    /// `(low, high]`.
    pub const fn left_open(low: f64, high: f64) -> Rule {
        Rule { low_open: true, ..Rule::closed(low, high) }
    }
    /// `[low, high)`.
    pub const fn right_open(low: f64, high: f64) -> Rule {
        Rule { high_open: true, ..Rule::closed(low, high) }
    }
    /// `(low, high)`.
    pub const fn open(low: f64, high: f64) -> Rule {
        Rule { low_open: true, high_open: true, ..Rule::closed(low, high) }
    }
    /// `>= low`.
    pub const fn at_least(low: f64) -> Rule {
        Rule { low: Some(Bound::Value(low)), ..Rule::ANY }
    }
    /// `> field` (another parameter of the table).
    pub const fn above_field(field: &'static str) -> Rule {
        Rule { low: Some(Bound::Field(field)), low_open: true, ..Rule::ANY }
    }
    /// The lower end is another parameter of the table (`[field, high]` or `(field, high]`).
    pub const fn low_field(self, field: &'static str) -> Rule {
        Rule { low: Some(Bound::Field(field)), ..self }
    }
    /// The upper end is another parameter of the table.
    pub const fn high_field(self, field: &'static str) -> Rule {
        Rule { high: Some(Bound::Field(field)), ..self }
    }
    pub const fn unit(self, unit: &'static str) -> Rule {
        Rule { unit, ..self }
    }
    /// One of `names`.
    pub const fn names(names: &'static [&'static str]) -> Rule {
        Rule { names, ..Rule::ANY }
    }
    /// Checked where the table is built (against the port, the flows or other tables), as `text` says.
    pub const fn context(text: &'static str) -> Rule {
        Rule { context: text, ..Rule::ANY }
    }
    /// The default, in words, of a parameter left `None` in the struct and decided where the table is
    /// built (`"the port's packet size"`).
    pub const fn default_is(self, text: &'static str) -> Rule {
        Rule { default: text, ..self }
    }
    /// A range and a context rule besides (a limit in `[1, 2^40]` that must also hold a packet).
    pub const fn and_context(self, text: &'static str) -> Rule {
        Rule { context: text, ..self }
    }

    fn bound(b: Option<Bound>, kind: Kind) -> Option<String> {
        b.map(|b| match b {
            Bound::Value(v) => kind.format(v),
            Bound::Field(f) => f.to_string(),
        })
    }

    /// The range in words: `in (0, 1]`, `in [1ns, 1h]`, `> min_th`, `>= 0 packets`; empty when none.
    pub fn range_text(&self, kind: Kind) -> String {
        let (lo, hi) = (Rule::bound(self.low, kind), Rule::bound(self.high, kind));
        let text = match (lo, hi) {
            (Some(lo), Some(hi)) => format!(
                "in {}{lo}, {hi}{}",
                if self.low_open { "(" } else { "[" },
                if self.high_open { ")" } else { "]" }
            ),
            (Some(lo), None) => format!("{} {lo}", if self.low_open { ">" } else { ">=" }),
            (None, Some(hi)) => format!("{} {hi}", if self.high_open { "<" } else { "<=" }),
            (None, None) if !self.names.is_empty() => {
                let quoted: Vec<String> = self.names.iter().map(|n| format!("\"{n}\"")).collect();
                format!("one of {}", quoted.join(", "))
            }
            (None, None) => return String::new(),
        };
        if self.unit.is_empty() {
            text
        } else {
            format!("{text} {}", self.unit)
        }
    }
}

/// One declared parameter.
#[derive(Clone, Copy, Debug)]
pub struct Param {
    pub name: &'static str,
    pub kind: Kind,
    pub rule: Rule,
    /// The doc comment of the declaration, one line per `///` line.
    pub doc: &'static str,
}

impl Param {
    /// The description on one line.
    pub fn description(&self) -> String {
        self.doc.lines().map(str::trim).filter(|l| !l.is_empty()).collect::<Vec<_>>().join(" ")
    }
}

/// A table of declared parameters (made by `params!`).
pub trait Params: Default + serde::Serialize {
    /// The parameters, in declaration order.
    const PARAMS: &'static [Param];
    /// The table's doc comment: what it configures and after which reference.
    const ABOUT: &'static str;
    /// The source file that declares it (its behaviour is beside it).
    const SOURCE: &'static str;

    /// The number parameter `name` holds (`None`: not a number, or not given).
    fn number(&self, name: &str) -> Option<f64>;

    /// Check every parameter against its declared range; errors name `prefix.<param>`. Ranges bounded by
    /// numbers come first, so a parameter that bounds another is checked before it is used as a bound.
    /// Nothing is formatted unless a check fails (controllers are checked once per flow).
    fn check(&self, prefix: &str) -> Result<(), ScenarioError> {
        let by_field = |b: Option<Bound>| matches!(b, Some(Bound::Field(_)));
        for relative in [false, true] {
            for p in Self::PARAMS {
                let r = &p.rule;
                if (by_field(r.low) || by_field(r.high)) != relative {
                    continue;
                }
                let Some(v) = self.number(p.name).filter(|_| r.low.is_some() || r.high.is_some()) else {
                    continue;
                };
                let end = |b: Option<Bound>| match b {
                    Some(Bound::Value(x)) => Some(x),
                    Some(Bound::Field(f)) => self.number(f),
                    None => None,
                };
                let low_ok = end(r.low).is_none_or(|lo| if r.low_open { v > lo } else { v >= lo });
                let high_ok = end(r.high).is_none_or(|hi| if r.high_open { v < hi } else { v <= hi });
                if !(v.is_finite() && low_ok && high_ok) {
                    let field = format!("{prefix}.{}", p.name);
                    return check(&field, false, &r.range_text(p.kind), p.kind.format(v));
                }
            }
        }
        Ok(())
    }

    /// The reference: `about`, and per parameter its name, kind, default (as a scenario writes it and as
    /// JSON), range and description.
    fn describe() -> Value {
        let defaults = serde_json::to_value(Self::default()).unwrap_or(Value::Null);
        let params: Vec<Value> = Self::PARAMS
            .iter()
            .map(|p| {
                let value = defaults.get(p.name).cloned().unwrap_or(Value::Null);
                json!({
                    "name": p.name,
                    "kind": p.kind.as_str(),
                    "default": if p.rule.default.is_empty() {
                        default_text(&value, p.kind)
                    } else {
                        p.rule.default.to_string()
                    },
                    "default_value": value,
                    "range": p.rule.range_text(p.kind),
                    "low": number_bound(p.rule.low),
                    "high": number_bound(p.rule.high),
                    "low_open": p.rule.low_open,
                    "high_open": p.rule.high_open,
                    "names": p.rule.names,
                    "context": p.rule.context,
                    "doc": p.description(),
                })
            })
            .collect();
        let about: Vec<&str> = Self::ABOUT.lines().map(str::trim).filter(|l| !l.is_empty()).collect();
        json!({ "about": about.join(" "), "source": Self::SOURCE, "params": params })
    }
}

/// A numeric end of a range, for the reference (`null` when none, or when another parameter bounds it).
fn number_bound(b: Option<Bound>) -> Value {
    match b {
        Some(Bound::Value(x)) => json!(x),
        _ => Value::Null,
    }
}

/// A default as a scenario writes it (`5ms`, `"in-flight"`, `true`); `none` when there is none.
fn default_text(v: &Value, kind: Kind) -> String {
    match v {
        Value::Null => "none".into(),
        Value::Number(n) => n.as_f64().map_or_else(|| n.to_string(), |x| kind.format(x)),
        Value::String(s) => format!("\"{s}\""),
        other => other.to_string(),
    }
}

/// Declare a parameter table: the struct (deserialized with unknown fields refused and missing ones
/// defaulted), its `Default` and its [`Params`]. Each field is `/// doc`, optional `#[serde(...)]`
/// attributes, `name: Type = default` and an optional `, rule`; see the module's example.
macro_rules! params {
    (
        $(#[doc = $about:literal])+
        $(#[serde($($sattr:tt)*)])*
        pub struct $name:ident {
            $(
                $(#[doc = $doc:literal])+
                $(#[serde($($fattr:tt)*)])*
                $field:ident : $ty:ty = $default:expr $(, $rule:expr)?;
            )*
        }
    ) => {
        $(#[doc = $about])+
        #[derive(serde::Deserialize, serde::Serialize, Debug, Clone)]
        #[serde(deny_unknown_fields, default)]
        $(#[serde($($sattr)*)])*
        pub struct $name {
            $(
                $(#[doc = $doc])+
                $(#[serde($($fattr)*)])*
                pub $field: $ty,
            )*
        }

        impl Default for $name {
            fn default() -> Self {
                $name { $($field: $default,)* }
            }
        }

        impl $crate::spec::params::Params for $name {
            const PARAMS: &'static [$crate::spec::params::Param] = &[$(
                $crate::spec::params::Param {
                    name: stringify!($field),
                    kind: <$ty as $crate::spec::params::ParamValue>::KIND,
                    rule: $crate::spec::params::params!(@rule $($rule)?),
                    doc: concat!($($doc, "\n"),+),
                },
            )*];
            const ABOUT: &'static str = concat!($($about, "\n"),+);
            const SOURCE: &'static str = file!();

            fn number(&self, name: &str) -> Option<f64> {
                match name {
                    $(stringify!($field) => $crate::spec::params::ParamValue::number(&self.$field),)*
                    _ => None,
                }
            }
        }
    };
    (@rule) => { $crate::spec::params::Rule::ANY };
    (@rule $rule:expr) => {{
        #[allow(unused_imports)]
        use $crate::spec::params::Rule;
        $rule
    }};
}
pub(crate) use params;

#[cfg(test)]
mod tests {
    use super::*;

    params! {
        /// A table for the tests.
        pub struct Example {
            /// Thresholds in packets.
            min_th: f64 = 5.0, Rule::at_least(0.0).unit("packets");
            /// Above min_th.
            max_th: f64 = 15.0, Rule::above_field("min_th");
            /// A probability.
            /// On two lines.
            max_p: f64 = 0.1, Rule::left_open(0.0, 1.0);
            /// Time.
            target: Seconds = Seconds(0.005), Rule::closed(1e-9, 3600.0);
            /// Not given by default.
            #[serde(skip_serializing_if = "Option::is_none")]
            mark_p: Option<f64> = None, Rule::left_open(0.0, 1.0);
            /// A switch.
            ecn: bool = false;
        }
    }

    fn field_of(v: Value) -> Result<(), ScenarioError> {
        let e: Example = serde_json::from_value(v).unwrap();
        e.check("q")
    }

    #[test]
    fn ranges_are_checked_with_field_named_errors() {
        assert!(field_of(json!({})).is_ok());
        let e = field_of(json!({"max_p": 0.0})).unwrap_err();
        assert_eq!((e.field.as_str(), e.message.as_str()), ("q.max_p", "must be in (0, 1] (got 0)"));
        let e = field_of(json!({"min_th": 10.0, "max_th": 10.0})).unwrap_err();
        assert_eq!((e.field.as_str(), e.message.as_str()), ("q.max_th", "must be > min_th (got 10)"));
        let e = field_of(json!({"target": 7200.0})).unwrap_err();
        assert_eq!(e.message, "must be in [1ns, 1h] (got 2h)");
        assert_eq!(field_of(json!({"min_th": -1.0})).unwrap_err().message, "must be >= 0 packets (got -1)");
        assert_eq!(field_of(json!({"mark_p": 2.0})).unwrap_err().field, "q.mark_p");
        assert!(field_of(json!({"mark_p": 0.5})).is_ok());
    }

    #[test]
    fn the_reference_has_each_parameter_with_its_default() {
        let d = Example::describe();
        assert_eq!(d["about"], "A table for the tests.");
        let p = d["params"].as_array().unwrap();
        assert_eq!(p.len(), 6);
        assert_eq!(p[2]["doc"], "A probability. On two lines.");
        assert_eq!((p[3]["default"].as_str(), p[3]["kind"].as_str()), (Some("5ms"), Some("duration")));
        assert_eq!((p[4]["default"].as_str(), p[5]["default"].as_str()), (Some("none"), Some("false")));
        assert_eq!(p[0]["range"], ">= 0 packets");
    }

    #[test]
    fn numbers_are_written_short() {
        assert_eq!(format_number(1099511627776.0), "2^40");
        assert_eq!(format_number(1e9), "1e9");
        assert_eq!(format_number(0.002), "0.002");
        assert_eq!(format_seconds(0.2), "200ms");
        assert_eq!(format_seconds(1e-9), "1ns");
        assert_eq!(format_seconds(86400.0), "1d");
        assert_eq!(format_seconds(1e308), "1e308s");
        assert_eq!(format_seconds(-1.0), "-1s");
        assert_eq!(Kind::Size.format(1e300), "1e300B");
        assert_eq!(Kind::Size.format(64.0), "64B");
        assert_eq!(Kind::Size.format(1e9), "1GB");
        assert_eq!(Kind::Size.format(1500.0), "1500B");
        assert_eq!(format_number(1e-6), "1e-6");
        assert_eq!(format_number(65535.0), "65535");
    }
}
