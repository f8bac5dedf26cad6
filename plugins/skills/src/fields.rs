//! Checks of a candidate's raw fields that both shapes (`skill_define`'s and the seed's) share:
//! each adds what is wrong to the problem list and gives the value only when it is right.

use std::ops::RangeInclusive;

use serde_json::{Map, Value};

use crate::schema::{self, Problem};

/// Names every field not in `fields` (`listed` says whose list the problem quotes).
pub fn unknown(raw: &Map<String, Value>, fields: &[&str], listed: &str, p: &mut Vec<Problem>) {
    for key in raw.keys() {
        if !fields.contains(&key.as_str()) {
            p.push(Problem::new(key.clone(), format!("unknown field ({listed}: {})", fields.join(", "))));
        }
    }
}

/// The field's value; when it is absent, an `is required` problem.
pub fn required<'a>(raw: &'a Map<String, Value>, f: &str, p: &mut Vec<Problem>) -> Option<&'a Value> {
    let v = raw.get(f);
    if v.is_none() {
        p.push(Problem::new(f, "is required"));
    }
    v
}

/// A required string.
pub fn string(raw: &Map<String, Value>, f: &str, p: &mut Vec<Problem>) -> Option<String> {
    match required(raw, f, p)? {
        Value::String(s) => Some(s.clone()),
        _ => {
            p.push(Problem::new(f, "must be a string"));
            None
        }
    }
}

/// A required string that passes `ok`; when it does not, `rule` is the problem.
pub fn string_where(
    raw: &Map<String, Value>,
    f: &str,
    p: &mut Vec<Problem>,
    ok: impl Fn(&str) -> bool,
    rule: &str,
) -> Option<String> {
    let s = string(raw, f, p)?;
    if ok(&s) {
        Some(s)
    } else {
        p.push(Problem::new(f, rule));
        None
    }
}

/// Whether a purpose is 1–500 characters, not all white space.
pub fn is_purpose(s: &str) -> bool {
    !s.trim().is_empty() && s.chars().count() <= 500
}

/// A required array (when it is something else, `not_array` is the problem).
pub fn array<'a>(raw: &'a Map<String, Value>, f: &str, p: &mut Vec<Problem>, not_array: &str) -> Option<&'a [Value]> {
    match required(raw, f, p)? {
        Value::Array(items) => Some(items),
        _ => {
            p.push(Problem::new(f, not_array));
            None
        }
    }
}

/// `input_schema` checked as a schema: the value, and whether it passed the checks (only then
/// are the parameters checked against it).
pub fn input_schema(raw: &Map<String, Value>, p: &mut Vec<Problem>) -> (Option<Value>, bool) {
    let input_schema = required(raw, "input_schema", p).cloned();
    let ok = input_schema.as_ref().is_some_and(|s| {
        let before = p.len();
        schema::check_input_schema(s, "input_schema", p);
        p.len() == before
    });
    (input_schema, ok)
}

/// `parameters`: an object (when it is something else, `not_object` is the problem), checked
/// against `schema` when there is one.
pub fn parameters(
    raw: &Map<String, Value>,
    p: &mut Vec<Problem>,
    schema: Option<&Value>,
    not_object: &str,
) -> Option<Value> {
    match required(raw, "parameters", p)? {
        v @ Value::Object(_) => {
            if let Some(s) = schema {
                schema::check_value(s, v, "parameters", p);
            }
            Some(v.clone())
        }
        _ => {
            p.push(Problem::new("parameters", not_object));
            None
        }
    }
}

/// `timeout_ms`: an integer in `range` (the problem otherwise says the range, and `unit`).
pub fn timeout_ms(
    raw: &Map<String, Value>,
    p: &mut Vec<Problem>,
    range: RangeInclusive<u64>,
    unit: &str,
) -> Option<u64> {
    let t = required(raw, "timeout_ms", p)?.as_u64().filter(|t| range.contains(t));
    if t.is_none() {
        p.push(Problem::new("timeout_ms", format!("must be an integer {}..={} ({unit})", range.start(), range.end())));
    }
    t
}
