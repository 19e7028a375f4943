//! Result tables handed to Python column by column, so a million flows cost a million values per column
//! and no Python object per row. Each row is serialized on its own (its fields as serde names them,
//! flattened structs included) and its values appended to typed columns; a column is typed as pandas
//! types a list of records: integers alone → `int64`, numbers with some missing or null (a NaN, which JSON
//! writes as null) → `float64` with NaN, anything else (text, lists, maps, booleans, all null) → its values
//! as a JSON list for Python to build. Columns come in order of first appearance, as pandas orders the keys
//! of a list of records.

use serde::Serialize;
use serde_json::{Map, Number, Value};
use std::collections::HashMap;

/// One column's values so far.
enum Values {
    /// Only nulls (or missing), this many.
    Null(usize),
    Int(Vec<i64>),
    /// NaN for a null or missing value.
    Float(Vec<f64>),
    Other(Vec<Value>),
}

impl Values {
    fn len(&self) -> usize {
        match self {
            Values::Null(n) => *n,
            Values::Int(v) => v.len(),
            Values::Float(v) => v.len(),
            Values::Other(v) => v.len(),
        }
    }

    /// Every value so far as JSON (a NaN as null, as serde_json writes it).
    fn into_json(self) -> Vec<Value> {
        match self {
            Values::Null(n) => vec![Value::Null; n],
            Values::Int(v) => v.into_iter().map(Value::from).collect(),
            Values::Float(v) => {
                v.into_iter().map(|x| Number::from_f64(x).map_or(Value::Null, Value::Number)).collect()
            }
            Values::Other(v) => v,
        }
    }

    /// Append `value`, first widening the column to the narrowest kind that holds it and what it holds:
    /// integers stay integers, numbers and nulls (after the first value) become floats, anything else
    /// makes every value JSON.
    fn push(&mut self, value: Value) {
        let number = value.is_number() || value.is_null();
        let widened = match std::mem::replace(self, Values::Null(0)) {
            Values::Null(n) if value.is_null() => Values::Null(n),
            Values::Null(0) if value.as_i64().is_some() => Values::Int(Vec::new()),
            Values::Null(n) if number => Values::Float(vec![f64::NAN; n]),
            Values::Int(xs) if value.as_i64().is_some() => Values::Int(xs),
            Values::Int(xs) if number => Values::Float(xs.into_iter().map(|i| i as f64).collect()),
            Values::Float(xs) if number => Values::Float(xs),
            Values::Other(vs) => Values::Other(vs),
            other => Values::Other(other.into_json()),
        };
        *self = widened;
        match self {
            Values::Null(n) => *n += 1,
            Values::Int(xs) => xs.push(value.as_i64().expect("an integer column takes integers")),
            Values::Float(xs) => xs.push(value.as_f64().unwrap_or(f64::NAN)),
            Values::Other(vs) => vs.push(value),
        }
    }
}

/// A column as Python receives it: `("i8" | "f8", little-endian bytes)` or `("json", a JSON list)`.
pub enum Column {
    Int(Vec<i64>),
    Float(Vec<f64>),
    Json(String),
}

/// `rows` as named columns (see the module's doc).
pub fn columns<T: Serialize>(rows: &[T]) -> Result<Vec<(String, Column)>, serde_json::Error> {
    let mut names: Vec<String> = Vec::new();
    let mut index: HashMap<String, usize> = HashMap::new();
    let mut cols: Vec<Values> = Vec::new();
    for (r, row) in rows.iter().enumerate() {
        let fields = match serde_json::to_value(row)? {
            Value::Object(m) => m,
            other => Map::from_iter([("value".to_string(), other)]),
        };
        for (name, value) in fields {
            let c = *index.entry(name.clone()).or_insert_with(|| {
                names.push(name);
                cols.push(Values::Null(r));
                cols.len() - 1
            });
            cols[c].push(value);
        }
        // A field this row left out (skipped when absent) is missing, as in a list of records.
        for col in cols.iter_mut().filter(|c| c.len() == r) {
            col.push(Value::Null);
        }
    }
    names
        .into_iter()
        .zip(cols)
        .map(|(name, values)| {
            let column = match values {
                Values::Int(v) => Column::Int(v),
                Values::Float(v) => Column::Float(v),
                other => Column::Json(serde_json::to_string(&other.into_json())?),
            };
            Ok((name, column))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn kinds(rows: &[Value]) -> Vec<(String, String)> {
        columns(rows)
            .unwrap()
            .into_iter()
            .map(|(n, c)| {
                let k = match c {
                    Column::Int(v) => format!("int {v:?}"),
                    Column::Float(v) => format!("float {v:?}"),
                    Column::Json(t) => format!("json {t}"),
                };
                (n, k)
            })
            .collect()
    }

    #[test]
    fn columns_are_typed_as_pandas_types_records() {
        let rows = [
            json!({"a": 1, "b": 1, "c": null, "d": "x", "e": 1.5}),
            json!({"a": 2, "b": null, "c": null, "d": "y", "e": 2, "f": [1]}),
        ];
        let got = kinds(&rows);
        let want = [
            ("a", "int [1, 2]"),
            ("b", "float [1.0, NaN]"),
            ("c", "json [null,null]"),
            ("d", "json [\"x\",\"y\"]"),
            ("e", "float [1.5, 2.0]"),
            ("f", "json [null,[1]]"),
        ];
        assert_eq!(got, want.map(|(a, b)| (a.to_string(), b.to_string())));
    }

    #[test]
    fn a_null_first_then_numbers_is_a_float_column_and_booleans_stay_values() {
        let rows = [json!({"a": null, "t": true}), json!({"a": 3, "t": 1})];
        assert_eq!(
            kinds(&rows),
            [
                ("a".to_string(), "float [NaN, 3.0]".to_string()),
                ("t".to_string(), "json [true,1]".to_string())
            ]
        );
        assert!(columns::<Value>(&[]).unwrap().is_empty());
    }
}
