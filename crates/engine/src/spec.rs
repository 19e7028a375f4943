//! The words scenario specs are checked and reported in: [`ScenarioError`] (a field and what is wrong with
//! it), the range checks, and `from_value`, the one mapping of serde errors to field-named messages. It
//! depends on serde alone, so the disciplines, the controllers, the trace and the scenario all build on it.

pub mod params;
pub(crate) mod registry;
mod strict;

use serde::de::DeserializeOwned;
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

/// `{ <tag> = name, ...params }`.
pub(crate) fn with_tag(
    tag: &str,
    name: &str,
    params: Result<serde_json::Value, serde_json::Error>,
) -> serde_json::Value {
    let mut table = serde_json::Map::new();
    table.insert(tag.to_string(), name.into());
    if let Ok(serde_json::Value::Object(p)) = params {
        table.extend(p);
    }
    serde_json::Value::Object(table)
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

/// What [`clean_message`] says of input nested more than serde_json allows.
pub(crate) const NESTED: &str = "nested too deeply";

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
