//! The JSON Schema subset a skill's `input_schema` may use, and checking parameters against it.
//!
//! Deliberately small and strict: an unsupported keyword is an error rather than silently
//! ignored, so a schema never promises a check that does not happen.

use serde_json::{Map, Value};

/// One problem, naming the field it is about (`input_schema.properties.count.minimum`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    pub field: String,
    pub message: String,
}

impl Problem {
    pub fn new(field: impl Into<String>, message: impl Into<String>) -> Self {
        Self { field: field.into(), message: message.into() }
    }
}

const TYPES: &[&str] = &["string", "number", "integer", "boolean", "object", "array", "null"];
const KEYWORDS: &[&str] = &[
    "type",
    "properties",
    "required",
    "additionalProperties",
    "items",
    "enum",
    "const",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "minLength",
    "maxLength",
    "minItems",
    "maxItems",
    "description",
    "title",
    "default",
    "examples",
];
/// How deep schemas and parameters may nest.
const MAX_DEPTH: usize = 8;

/// Checks the top-level `input_schema`: an object schema with `additionalProperties: false`
/// and `required` ⊆ `properties`, using only supported keywords.
pub fn check_input_schema(schema: &Value, field: &str, problems: &mut Vec<Problem>) {
    let Some(obj) = schema.as_object() else {
        problems.push(Problem::new(field, "must be a JSON Schema object"));
        return;
    };
    if obj.get("type").and_then(Value::as_str) != Some("object") {
        problems.push(Problem::new(format!("{field}.type"), "must be \"object\""));
    }
    if obj.get("additionalProperties") != Some(&Value::Bool(false)) {
        problems.push(Problem::new(format!("{field}.additionalProperties"), "must be false"));
    }
    if !obj.contains_key("properties") {
        problems.push(Problem::new(format!("{field}.properties"), "missing (use {} for no parameters)"));
    }
    check_schema(schema, field, 0, problems);
}

/// Checks one (sub)schema.
fn check_schema(schema: &Value, field: &str, depth: usize, problems: &mut Vec<Problem>) {
    let Some(obj) = schema.as_object() else {
        problems.push(Problem::new(field, "must be an object"));
        return;
    };
    if depth > MAX_DEPTH {
        problems.push(Problem::new(field, format!("nests deeper than {MAX_DEPTH} levels")));
        return;
    }
    for key in obj.keys() {
        if !KEYWORDS.contains(&key.as_str()) {
            problems.push(Problem::new(
                format!("{field}.{key}"),
                format!("unsupported keyword (supported: {})", KEYWORDS.join(", ")),
            ));
        }
    }
    match obj.get("type") {
        None => {}
        Some(Value::String(t)) if TYPES.contains(&t.as_str()) => {}
        Some(Value::Array(ts))
            if !ts.is_empty() && ts.iter().all(|t| t.as_str().is_some_and(|t| TYPES.contains(&t))) => {}
        Some(_) => problems
            .push(Problem::new(format!("{field}.type"), format!("must be one of {} (or a list)", TYPES.join(", ")))),
    }
    let props = match obj.get("properties") {
        None => None,
        Some(Value::Object(p)) => Some(p),
        Some(_) => {
            problems.push(Problem::new(format!("{field}.properties"), "must be an object of schemas"));
            None
        }
    };
    if let Some(props) = props {
        for (name, sub) in props {
            check_schema(sub, &format!("{field}.properties.{name}"), depth + 1, problems);
        }
    }
    match obj.get("required") {
        None => {}
        Some(Value::Array(req)) => {
            for (i, r) in req.iter().enumerate() {
                match r.as_str() {
                    Some(name) if props.is_some_and(|p| p.contains_key(name)) => {}
                    Some(name) => problems.push(Problem::new(
                        format!("{field}.required[{i}]"),
                        format!("\"{name}\" is not in properties"),
                    )),
                    None => problems.push(Problem::new(format!("{field}.required[{i}]"), "must be a string")),
                }
            }
        }
        Some(_) => problems.push(Problem::new(format!("{field}.required"), "must be an array of property names")),
    }
    if let Some(ap) = obj.get("additionalProperties")
        && !ap.is_boolean()
    {
        problems.push(Problem::new(format!("{field}.additionalProperties"), "must be true or false"));
    }
    if let Some(items) = obj.get("items") {
        check_schema(items, &format!("{field}.items"), depth + 1, problems);
    }
    if let Some(e) = obj.get("enum")
        && e.as_array().is_none_or(|a| a.is_empty())
    {
        problems.push(Problem::new(format!("{field}.enum"), "must be a non-empty array"));
    }
    for k in ["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"] {
        if let Some(v) = obj.get(k)
            && !v.is_number()
        {
            problems.push(Problem::new(format!("{field}.{k}"), "must be a number"));
        }
    }
    for k in ["minLength", "maxLength", "minItems", "maxItems"] {
        if let Some(v) = obj.get(k)
            && v.as_u64().is_none()
        {
            problems.push(Problem::new(format!("{field}.{k}"), "must be a non-negative integer"));
        }
    }
}

fn type_of(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(n) if n.is_i64() || n.is_u64() || n.as_f64().is_some_and(|f| f.fract() == 0.0) => "integer",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

fn type_matches(want: &str, v: &Value) -> bool {
    let got = type_of(v);
    want == got || (want == "number" && got == "integer")
}

/// Checks `value` against a schema that passed [`check_input_schema`].
pub fn check_value(schema: &Value, value: &Value, field: &str, problems: &mut Vec<Problem>) {
    check_value_at(schema, value, field, 0, problems);
}

fn check_value_at(schema: &Value, value: &Value, field: &str, depth: usize, problems: &mut Vec<Problem>) {
    let Some(s) = schema.as_object() else { return };
    if depth > MAX_DEPTH {
        problems.push(Problem::new(field, format!("nests deeper than {MAX_DEPTH} levels")));
        return;
    }
    let fail = |problems: &mut Vec<Problem>, m: String| problems.push(Problem::new(field, m));
    match s.get("type") {
        Some(Value::String(t)) if !type_matches(t, value) => {
            return fail(problems, format!("must be {t}, got {}", type_of(value)));
        }
        Some(Value::Array(ts)) if !ts.iter().filter_map(Value::as_str).any(|t| type_matches(t, value)) => {
            let names: Vec<&str> = ts.iter().filter_map(Value::as_str).collect();
            return fail(problems, format!("must be {}, got {}", names.join(" or "), type_of(value)));
        }
        _ => {}
    }
    if let Some(Value::Array(options)) = s.get("enum")
        && !options.contains(value)
    {
        fail(problems, format!("must be one of {}", Value::Array(options.clone())));
    }
    if let Some(c) = s.get("const")
        && c != value
    {
        fail(problems, format!("must be {c}"));
    }
    if let Some(n) = value.as_f64() {
        let bound = |k: &str| s.get(k).and_then(Value::as_f64);
        if let Some(m) = bound("minimum")
            && n < m
        {
            fail(problems, format!("must be ≥ {m}"));
        }
        if let Some(m) = bound("maximum")
            && n > m
        {
            fail(problems, format!("must be ≤ {m}"));
        }
        if let Some(m) = bound("exclusiveMinimum")
            && n <= m
        {
            fail(problems, format!("must be > {m}"));
        }
        if let Some(m) = bound("exclusiveMaximum")
            && n >= m
        {
            fail(problems, format!("must be < {m}"));
        }
    }
    let len = |k: &str| s.get(k).and_then(Value::as_u64);
    if let Some(text) = value.as_str() {
        let n = text.chars().count() as u64;
        if len("minLength").is_some_and(|m| n < m) || len("maxLength").is_some_and(|m| n > m) {
            fail(problems, format!("length {n} is outside minLength/maxLength"));
        }
    }
    if let Some(items) = value.as_array() {
        let n = items.len() as u64;
        if len("minItems").is_some_and(|m| n < m) || len("maxItems").is_some_and(|m| n > m) {
            fail(problems, format!("{n} items is outside minItems/maxItems"));
        }
        if let Some(item_schema) = s.get("items") {
            for (i, item) in items.iter().enumerate() {
                check_value_at(item_schema, item, &format!("{field}[{i}]"), depth + 1, problems);
            }
        }
    }
    if let Some(obj) = value.as_object() {
        check_object(s, obj, field, depth, problems);
    }
}

fn check_object(
    s: &Map<String, Value>,
    obj: &Map<String, Value>,
    field: &str,
    depth: usize,
    problems: &mut Vec<Problem>,
) {
    let props = s.get("properties").and_then(Value::as_object);
    for name in s.get("required").and_then(Value::as_array).into_iter().flatten().filter_map(Value::as_str) {
        if !obj.contains_key(name) {
            problems.push(Problem::new(format!("{field}.{name}"), "is required"));
        }
    }
    for (name, v) in obj {
        match props.and_then(|p| p.get(name)) {
            Some(sub) => check_value_at(sub, v, &format!("{field}.{name}"), depth + 1, problems),
            None if s.get("additionalProperties") == Some(&Value::Bool(false)) => {
                problems.push(Problem::new(format!("{field}.{name}"), "is not declared in input_schema.properties"));
            }
            None => {}
        }
    }
}

/// Names of the declared and of the required properties.
pub fn property_names(schema: &Value) -> (Vec<String>, Vec<String>) {
    let declared =
        schema.get("properties").and_then(Value::as_object).map(|p| p.keys().cloned().collect()).unwrap_or_default();
    let required = schema
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).map(String::from).collect())
        .unwrap_or_default();
    (declared, required)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn schema_problems(s: Value) -> Vec<String> {
        let mut p = Vec::new();
        check_input_schema(&s, "input_schema", &mut p);
        p.into_iter().map(|p| format!("{}: {}", p.field, p.message)).collect()
    }

    fn value_problems(s: Value, v: Value) -> Vec<String> {
        let mut p = Vec::new();
        check_value(&s, &v, "parameters", &mut p);
        p.into_iter().map(|p| format!("{}: {}", p.field, p.message)).collect()
    }

    #[test]
    fn input_schemas_must_be_closed_objects_with_known_keywords() {
        let ok = json!({"type":"object","additionalProperties":false,"required":["n"],"properties":{"n":{"type":"integer","minimum":1}}});
        assert!(schema_problems(ok).is_empty());
        let p =
            schema_problems(json!({"type":"object","required":["x"],"properties":{"n":{"type":"int","pattern":"a"}}}));
        let joined = p.join("\n");
        assert!(joined.contains("input_schema.additionalProperties: must be false"), "{joined}");
        assert!(joined.contains("input_schema.required[0]: \"x\" is not in properties"), "{joined}");
        assert!(joined.contains("input_schema.properties.n.pattern: unsupported keyword"), "{joined}");
        assert!(joined.contains("input_schema.properties.n.type: must be one of"), "{joined}");
        assert_eq!(schema_problems(json!("object")), vec!["input_schema: must be a JSON Schema object"]);
    }

    #[test]
    fn parameters_are_checked_field_by_field() {
        let s = json!({"type":"object","additionalProperties":false,"required":["n","name"],
            "properties":{"n":{"type":"integer","minimum":1,"maximum":64},"name":{"type":"string","maxLength":3},
                          "mode":{"enum":["a","b"]},"pos":{"type":"object","required":["x"],"properties":{"x":{"type":"number"}}}}});
        assert!(value_problems(s.clone(), json!({"n": 3, "name": "abc"})).is_empty());
        assert!(value_problems(s.clone(), json!({"n": 3.0, "name": "abc"})).is_empty(), "3.0 is an integer");
        let p = value_problems(s, json!({"n": 0.5, "name": "abcd", "mode": "c", "pos": {}, "extra": 1})).join("\n");
        for want in [
            "parameters.n: must be integer, got number",
            "parameters.name: length 4 is outside",
            "parameters.mode: must be one of",
            "parameters.pos.x: is required",
            "parameters.extra: is not declared",
        ] {
            assert!(p.contains(want), "{want} in {p}");
        }
    }
}
