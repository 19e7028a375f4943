//! Flow sizes: how many payload bytes a finite flow carries.
//!
//! Scenario forms (`size = ...` in a flow group):
//! - `"100KB"` (or a number of bytes): every flow the same;
//! - `{ exponential = "100KB" }`: exponential with that mean;
//! - `{ pareto = "100KB", shape = 1.2 }`: Pareto (type I) with that mean and shape α > 1, so scale
//!   `x_m = mean·(α−1)/α` (the heavy-tailed web-flow model of the buffer-sizing literature);
//! - `{ cdf = [[bytes, P], ...] }` or `{ cdf = "file" }`: an empirical CDF, points with increasing sizes and
//!   cumulative probabilities ending at 1, sampled by inverting it with linear interpolation between points
//!   (as ns-3's `EmpiricalRandomVariable` with interpolation); sizes below the first point's probability
//!   take the first size. A file holds one `bytes probability` pair per line (comma or space separated,
//!   `#` comments).
//!
//! Every draw is at least one byte.

use crate::rng::Rng;
use crate::spec::{check, err, finite_range, ScenarioError};
use crate::units::parse_size;
use serde_json::Value;

#[derive(Clone, Debug, PartialEq)]
pub enum SizeDist {
    Constant(f64),
    Exponential {
        mean: f64,
    },
    Pareto {
        mean: f64,
        shape: f64,
    },
    /// Points `(bytes, cumulative probability)`, both increasing, the last probability 1.
    Empirical(Vec<(f64, f64)>),
}

fn bytes(v: &Value, field: &str) -> Result<f64, ScenarioError> {
    let b = match v {
        Value::Number(n) => n.as_f64(),
        Value::String(s) => parse_size(s),
        _ => None,
    };
    let Some(b) = b else {
        return err(field, format!("expected a size such as \"100KB\" (got {v})"));
    };
    finite_range(field, b, 1.0, 1e12, "in [1 B, 1 TB]")?;
    Ok(b)
}

impl SizeDist {
    /// Parse a group's `size` at scenario field `field`.
    pub fn parse(v: &Value, field: &str) -> Result<SizeDist, ScenarioError> {
        let Value::Object(t) = v else {
            return Ok(SizeDist::Constant(bytes(v, field)?));
        };
        if t.contains_key("shape") && !t.contains_key("pareto") {
            return err(
                &format!("{field}.pareto"),
                "required with shape: the mean of { pareto = MEAN, shape = A }",
            );
        }
        let allowed: &[&str] =
            if t.contains_key("pareto") { &["pareto", "shape"] } else { &["exponential", "cdf"] };
        if let Some(k) = t.keys().find(|k| !allowed.contains(&k.as_str())) {
            return err(&format!("{field}.{k}"), "unknown key: expected { exponential = MEAN }, { pareto = MEAN, shape = A } or { cdf = POINTS | FILE }");
        }
        if t.len() != 1 && !t.contains_key("pareto") {
            return err(field, "give one of exponential, pareto or cdf");
        }
        if let Some(m) = t.get("exponential") {
            return Ok(SizeDist::Exponential { mean: bytes(m, &format!("{field}.exponential"))? });
        }
        if let Some(m) = t.get("pareto") {
            let mean = bytes(m, &format!("{field}.pareto"))?;
            let shape = t.get("shape").and_then(Value::as_f64);
            let Some(shape) = shape else {
                return err(&format!("{field}.shape"), "required with pareto: the tail index, > 1");
            };
            check(
                &format!("{field}.shape"),
                shape.is_finite() && shape > 1.0 && shape <= 100.0,
                "> 1 (a finite mean) and <= 100",
                shape,
            )?;
            return Ok(SizeDist::Pareto { mean, shape });
        }
        let f = format!("{field}.cdf");
        let points = match &t["cdf"] {
            Value::String(path) => read_cdf_file(path, &f)?,
            Value::Array(rows) => rows
                .iter()
                .enumerate()
                .map(|(i, r)| match r.as_array().map(|a| a.as_slice()) {
                    Some([b, p]) => Ok((bytes(b, &format!("{f}[{i}][0]"))?, p.as_f64().unwrap_or(f64::NAN))),
                    _ => err(&format!("{f}[{i}]"), "expected a pair [bytes, cumulative probability]"),
                })
                .collect::<Result<Vec<_>, _>>()?,
            _ => return err(&f, "expected a list of [bytes, cumulative probability] pairs or a file name"),
        };
        Self::empirical(points, &f)
    }

    fn empirical(points: Vec<(f64, f64)>, field: &str) -> Result<SizeDist, ScenarioError> {
        check(field, (1..=100_000).contains(&points.len()), "1 to 100,000 points", points.len())?;
        for (i, w) in points.windows(2).enumerate() {
            check(
                &format!("{field}[{}]", i + 1),
                w[1].0 > w[0].0 && w[1].1 >= w[0].1,
                "increasing in size and not decreasing in probability",
                format!("{:?} after {:?}", w[1], w[0]),
            )?;
        }
        for (i, &(_, p)) in points.iter().enumerate() {
            finite_range(&format!("{field}[{i}][1]"), p, 0.0, 1.0, "a probability in [0, 1]")?;
        }
        let last = points[points.len() - 1].1;
        check(field, last == 1.0, "a CDF whose last probability is 1", last)?;
        Ok(SizeDist::Empirical(points))
    }

    /// The mean size, bytes.
    pub fn mean(&self) -> f64 {
        match self {
            SizeDist::Constant(b) => *b,
            SizeDist::Exponential { mean } | SizeDist::Pareto { mean, .. } => *mean,
            SizeDist::Empirical(pts) => {
                let mut m = pts[0].0 * pts[0].1;
                for w in pts.windows(2) {
                    m += (w[1].1 - w[0].1) * (w[0].0 + w[1].0) / 2.0;
                }
                m
            }
        }
    }

    /// One draw, bytes (at least 1).
    pub fn sample(&self, rng: &mut Rng) -> u64 {
        let x = match self {
            SizeDist::Constant(b) => *b,
            SizeDist::Exponential { mean } => -mean * (1.0 - rng.uniform()).ln(),
            SizeDist::Pareto { mean, shape } => {
                let scale = mean * (shape - 1.0) / shape;
                scale / (1.0 - rng.uniform()).powf(1.0 / shape)
            }
            SizeDist::Empirical(pts) => {
                let u = rng.uniform();
                let i = pts.partition_point(|&(_, p)| p < u);
                if i == 0 {
                    pts[0].0
                } else {
                    let (x0, p0) = pts[i - 1];
                    let (x1, p1) = pts[i.min(pts.len() - 1)];
                    if p1 > p0 {
                        x0 + (x1 - x0) * (u - p0) / (p1 - p0)
                    } else {
                        x1
                    }
                }
            }
        };
        (x.round() as u64).clamp(1, 1_000_000_000_000)
    }
}

fn read_cdf_file(path: &str, field: &str) -> Result<Vec<(f64, f64)>, ScenarioError> {
    let text = std::fs::read_to_string(path).or_else(|e| err(field, format!("cannot read {path:?}: {e}")))?;
    let mut points = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let line = line.split('#').next().unwrap_or("").trim();
        if line.is_empty() {
            continue;
        }
        let parts: Vec<&str> =
            line.split(|c: char| c == ',' || c.is_whitespace()).filter(|p| !p.is_empty()).collect();
        let parsed = match parts.as_slice() {
            [b, p] => parse_size(b).zip(p.parse::<f64>().ok()),
            _ => None,
        };
        match parsed {
            Some(pt) => points.push(pt),
            None => return err(field, format!("{path}, line {}: expected \"bytes probability\"", n + 1)),
        }
    }
    Ok(points)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn mean_of(d: &SizeDist, n: usize) -> f64 {
        let mut rng = Rng::new(9, 9);
        (0..n).map(|_| d.sample(&mut rng) as f64).sum::<f64>() / n as f64
    }

    #[test]
    fn forms_parse_and_sample_with_their_means() {
        assert_eq!(SizeDist::parse(&json!("100KB"), "s").unwrap(), SizeDist::Constant(1e5));
        let e = SizeDist::parse(&json!({"exponential": "50KB"}), "s").unwrap();
        assert!((mean_of(&e, 200_000) / 5e4 - 1.0).abs() < 0.01);
        // Pareto with shape 2.5 has a finite variance: the sample mean converges.
        let p = SizeDist::parse(&json!({"pareto": "30KB", "shape": 2.5}), "s").unwrap();
        assert!((mean_of(&p, 400_000) / 3e4 - 1.0).abs() < 0.02);
        let c = SizeDist::parse(&json!({"cdf": [[1000, 0.5], [3000, 1.0]]}), "s").unwrap();
        // Half the mass at 1000, half uniform on [1000, 3000]: mean 500 + 0.5 * 2000 = 1500.
        assert_eq!(c.mean(), 1500.0);
        assert!((mean_of(&c, 200_000) / 1500.0 - 1.0).abs() < 0.01);
    }

    #[test]
    fn bad_sizes_name_the_field() {
        let e = SizeDist::parse(&json!({"pareto": "30KB", "shape": 1.0}), "flows[1].size").unwrap_err();
        assert_eq!(e.field, "flows[1].size.shape");
        let e = SizeDist::parse(&json!({"pareto": "30KB"}), "s").unwrap_err();
        assert_eq!(e.field, "s.shape");
        assert_eq!(SizeDist::parse(&json!("-5KB"), "s").unwrap_err().field, "s");
        assert_eq!(SizeDist::parse(&json!({"lognormal": 3}), "s").unwrap_err().field, "s.lognormal");
        let e = SizeDist::parse(&json!({"cdf": [[1000, 0.5], [900, 1.0]]}), "s").unwrap_err();
        assert_eq!(e.field, "s.cdf[1]");
        let e = SizeDist::parse(&json!({"cdf": [[1000, 0.5]]}), "s").unwrap_err();
        assert_eq!(e.field, "s.cdf");
        let e = SizeDist::parse(&json!({"cdf": "/nonexistent/sizes.txt"}), "s").unwrap_err();
        assert!(e.message.contains("cannot read"), "{e}");
    }

    #[test]
    fn cdf_file() {
        let path = std::env::temp_dir().join(format!("bufferlab-cdf-{}.txt", std::process::id()));
        std::fs::write(&path, "# web sizes\n1KB, 0.25\n4000 1.0\n").unwrap();
        let d = SizeDist::parse(&json!({"cdf": path.to_str().unwrap()}), "s").unwrap();
        assert_eq!(d, SizeDist::Empirical(vec![(1000.0, 0.25), (4000.0, 1.0)]));
        std::fs::remove_file(path).unwrap();
    }
}
