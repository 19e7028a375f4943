//! Quantities with units, as scenario files write them: `"100Mbps"`, `"10ms"`, `"1500B"`, or plain SI
//! numbers (bits/s, seconds, bytes). Decimal prefixes are powers of 1000; `KiB`, `MiB`, `GiB` are 1024-based.

use serde::de::{self, Deserializer, Visitor};
use serde::Deserialize;
use std::fmt;

fn split_number(s: &str) -> Option<(f64, &str)> {
    let s = s.trim();
    let end = s
        .char_indices()
        .find(|&(i, c)| {
            !(c.is_ascii_digit()
                || c == '.'
                || c == '_'
                || ((c == 'e' || c == 'E') && i > 0)
                || ((c == '-' || c == '+') && (i == 0 || matches!(s.as_bytes()[i - 1], b'e' | b'E'))))
        })
        .map(|(i, _)| i)
        .unwrap_or(s.len());
    let number: String = s[..end].chars().filter(|&c| c != '_').collect();
    let value: f64 = number.parse().ok()?;
    Some((value, s[end..].trim()))
}

/// Bits per second from a string such as `"100Mbps"`, `"1.5 Gbps"`, `"64kbps"`; `Bps` and `B/s` are bytes per
/// second. Prefixes are case-sensitive as in SI (`k`/`K`, `M`, `G`, `T`).
pub fn parse_rate(s: &str) -> Option<f64> {
    let (v, unit) = split_number(s)?;
    let (prefix, suffix) = match unit.char_indices().nth(1) {
        Some((i, _)) if matches!(&unit[..i], "k" | "K" | "M" | "G" | "T") => unit.split_at(i),
        _ => ("", unit),
    };
    let scale = match prefix {
        "k" | "K" => 1e3,
        "M" => 1e6,
        "G" => 1e9,
        "T" => 1e12,
        _ => 1.0,
    };
    let bits = match suffix {
        "" if prefix.is_empty() => 1.0,
        "bps" | "b/s" | "bit/s" | "bits/s" => 1.0,
        "Bps" | "B/s" => 8.0,
        _ => return None,
    };
    Some(v * scale * bits)
}

/// Seconds from a string such as `"100ms"`, `"2s"`, `"50us"`, `"1min"`.
pub fn parse_time(s: &str) -> Option<f64> {
    let (v, unit) = split_number(s)?;
    let scale = match unit {
        "" | "s" | "sec" => 1.0,
        "ms" => 1e-3,
        "us" | "µs" => 1e-6,
        "ns" => 1e-9,
        "ps" => 1e-12,
        "min" => 60.0,
        _ => return None,
    };
    Some(v * scale)
}

/// Bytes from a string such as `"1500B"`, `"64KB"`, `"1MiB"`.
pub fn parse_size(s: &str) -> Option<f64> {
    let (v, unit) = split_number(s)?;
    let scale = match unit {
        "" | "B" => 1.0,
        "KB" | "kB" => 1e3,
        "MB" => 1e6,
        "GB" => 1e9,
        "TB" => 1e12,
        "PB" => 1e15,
        "KiB" => 1024.0,
        "MiB" => 1024.0 * 1024.0,
        "GiB" => 1024.0 * 1024.0 * 1024.0,
        "TiB" => 1024.0 * 1024.0 * 1024.0 * 1024.0,
        "PiB" => 1024.0 * 1024.0 * 1024.0 * 1024.0 * 1024.0,
        _ => return None,
    };
    Some(v * scale)
}

macro_rules! quantity {
    ($name:ident, $parse:ident, $what:literal, $example:literal) => {
        #[doc = concat!("A ", $what, " read from a number (SI) or a string like ", $example, ".")]
        #[derive(Clone, Copy, Debug, PartialEq, PartialOrd)]
        pub struct $name(pub f64);

        impl serde::Serialize for $name {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_f64(self.0)
            }
        }

        impl<'de> Deserialize<'de> for $name {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                struct V;
                impl<'de> Visitor<'de> for V {
                    type Value = $name;
                    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                        write!(f, concat!("a ", $what, " such as ", $example))
                    }
                    fn visit_f64<E: de::Error>(self, v: f64) -> Result<$name, E> {
                        Ok($name(v))
                    }
                    fn visit_i64<E: de::Error>(self, v: i64) -> Result<$name, E> {
                        Ok($name(v as f64))
                    }
                    fn visit_u64<E: de::Error>(self, v: u64) -> Result<$name, E> {
                        Ok($name(v as f64))
                    }
                    fn visit_str<E: de::Error>(self, v: &str) -> Result<$name, E> {
                        $parse(v).map($name).ok_or_else(|| E::invalid_value(de::Unexpected::Str(v), &self))
                    }
                }
                d.deserialize_any(V)
            }
        }
    };
}

quantity!(Rate, parse_rate, "rate", "\"100Mbps\"");
quantity!(Seconds, parse_time, "duration", "\"100ms\"");
quantity!(Bytes, parse_size, "size", "\"1500B\"");

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rates_times_sizes() {
        assert_eq!(parse_rate("100Mbps"), Some(100e6));
        assert_eq!(parse_rate("1.5 Gbps"), Some(1.5e9));
        assert_eq!(parse_rate("2e6"), Some(2e6));
        assert_eq!(parse_rate("1MBps"), Some(8e6));
        assert_eq!(parse_rate("10 kb/s"), Some(1e4));
        assert_eq!(parse_rate("bps"), None);
        assert_eq!(parse_rate("3mbps"), None);
        assert_eq!(parse_time("100ms"), Some(0.1));
        assert_eq!(parse_time("2s"), Some(2.0));
        assert_eq!(parse_size("1500B"), Some(1500.0));
        assert_eq!(parse_size("1.5KB"), Some(1500.0));
        assert_eq!(parse_size("1KiB"), Some(1024.0));
        assert_eq!(parse_size("1PB"), Some(1e15));
        assert_eq!(parse_size("2TB"), Some(2e12));
        assert_eq!(parse_size("1TiB"), Some(1024f64.powi(4)));
        assert_eq!(parse_time("-3ms"), Some(-0.003));
        assert_eq!(parse_rate("fast"), None);
        assert_eq!(parse_time("10 parsecs"), None);
        assert_eq!(parse_size(""), None);
    }
}
