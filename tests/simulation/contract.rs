//! ClawCraft's contract against the generated JSON Schemas (`{"action":"schema"}`): every command
//! of its README, the parameters of its example requests, the response examples it shows
//! (walk/mine/eat/scan/nearby) and every event with its fields keep their names and JSON types.
//! Extra fields are fine. Commands and events of capabilities not built yet are listed below; one
//! that lands must leave the list (the test says so), so it is checked from then on. Every
//! registered command, ClawCraft's or ours, also answers its documented example through the
//! shared command path with one well-formed response.

use std::collections::BTreeSet;

use clawcraft::sim::Simulation;
use serde_json::{Map, Value};

/// ClawCraft commands whose capability issue has not landed yet (they answer `UNKNOWN_ACTION`):
/// none since inventory and interaction landed.
const PENDING_COMMANDS: &[&str] = &[];

/// ClawCraft events of capabilities not built yet: none.
const PENDING_EVENTS: &[&str] = &[];

fn contract() -> Value {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/contract/clawcraft.json");
    serde_json::from_str(&std::fs::read_to_string(path).expect("contract file")).expect("contract JSON")
}

/// The JSON types a schema admits (`number` covers `integer`); `None` when it admits anything.
fn types_of(schema: &Value, root: &Value) -> Option<BTreeSet<String>> {
    let schema = resolve(schema, root);
    let mut out = BTreeSet::new();
    match schema.get("type") {
        Some(Value::String(t)) => {
            out.insert(normalise(t));
        }
        Some(Value::Array(ts)) => out.extend(ts.iter().filter_map(Value::as_str).map(normalise)),
        _ => {}
    }
    for key in ["anyOf", "oneOf", "allOf"] {
        for variant in schema.get(key).and_then(Value::as_array).into_iter().flatten() {
            out.extend(types_of(variant, root)?);
        }
    }
    if let Some(values) = schema.get("enum").and_then(Value::as_array) {
        out.extend(values.iter().map(json_type));
    }
    if let Some(v) = schema.get("const") {
        out.insert(json_type(v));
    }
    if out.is_empty() && schema.get("properties").is_some() {
        out.insert("object".into());
    }
    (!out.is_empty()).then_some(out)
}

fn normalise(t: &str) -> String {
    if t == "integer" { "number".into() } else { t.into() }
}

fn json_type(v: &Value) -> String {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
    .into()
}

/// Follows a local `$ref` (`#/$defs/Name`).
fn resolve<'a>(schema: &'a Value, root: &'a Value) -> &'a Value {
    match schema.get("$ref").and_then(Value::as_str).and_then(|r| r.strip_prefix("#/")) {
        Some(path) => path.split('/').fold(root, |v, k| &v[k]),
        None => schema,
    }
}

/// Every property a schema declares (through `$ref`, `allOf`, `anyOf`, `oneOf`), by name; a name
/// declared by several variants keeps each variant's schema.
fn properties<'a>(schema: &'a Value, root: &'a Value, out: &mut Vec<(&'a str, &'a Value)>) {
    let schema = resolve(schema, root);
    if let Some(props) = schema.get("properties").and_then(Value::as_object) {
        out.extend(props.iter().map(|(k, v)| (k.as_str(), v)));
    }
    for key in ["allOf", "anyOf", "oneOf"] {
        for variant in schema.get(key).and_then(Value::as_array).into_iter().flatten() {
            properties(variant, root, out);
        }
    }
}

/// Differences between the contract's fields and a schema, as readable lines.
fn check_fields(what: &str, want: &Map<String, Value>, schema: &Value, problems: &mut Vec<String>) {
    let mut props = Vec::new();
    properties(schema, schema, &mut props);
    for (name, ty) in want {
        let ty = ty.as_str().expect("a type name");
        let declared: Vec<&Value> = props.iter().filter(|(k, _)| k == name).map(|(_, s)| *s).collect();
        if declared.is_empty() {
            problems.push(format!("{what}: no field `{name}`"));
            continue;
        }
        let admits = declared.iter().any(|s| types_of(s, schema).is_none_or(|t| t.contains(ty)));
        if !admits {
            let found: Vec<_> = declared.iter().map(|s| types_of(s, schema)).collect();
            problems.push(format!("{what}: `{name}` is {found:?}, ClawCraft has {ty}"));
        }
    }
}

#[test]
fn clawcraft_commands_responses_and_events_match_the_schemas() {
    let contract = contract();
    let mut sim = Simulation::new();
    let schema = sim.command(r#"{"action":"schema"}"#);
    let commands: Vec<&Value> = schema["commands"].as_array().expect("commands").iter().collect();
    let command = |name: &str| commands.iter().find(|c| c["name"] == name).copied();
    let events = schema["events"].as_array().expect("events");
    let mut problems = Vec::new();
    let mut checked = 0;

    for c in contract["commands"].as_array().expect("contract commands") {
        let action = c["action"].as_str().expect("action");
        let Some(ours) = command(action) else {
            if !PENDING_COMMANDS.contains(&action) {
                problems.push(format!("command `{action}` is missing"));
            }
            continue;
        };
        if PENDING_COMMANDS.contains(&action) {
            problems.push(format!("command `{action}` landed: remove it from PENDING_COMMANDS"));
        }
        checked += 1;
        let example = c["example"].as_object().expect("example");
        let want: Map<String, Value> = example.iter().map(|(k, v)| (k.clone(), Value::from(json_type(v)))).collect();
        check_fields(&format!("{action} params"), &want, &ours["params"], &mut problems);
    }
    for (action, fields) in contract["responses"].as_object().expect("responses") {
        if let Some(ours) = command(action) {
            check_fields(
                &format!("{action} response"),
                fields.as_object().expect("fields"),
                &ours["response"],
                &mut problems,
            );
        } else if !PENDING_COMMANDS.contains(&action.as_str()) {
            problems.push(format!("response of `{action}`: no such command"));
        }
    }
    for (name, fields) in contract["events"].as_object().expect("events") {
        let Some(ours) = events.iter().find(|e| e["name"] == name.as_str()) else {
            if !PENDING_EVENTS.contains(&name.as_str()) {
                problems.push(format!("event `{name}` is missing"));
            }
            continue;
        };
        if PENDING_EVENTS.contains(&name.as_str()) {
            problems.push(format!("event `{name}` landed: remove it from PENDING_EVENTS"));
        }
        checked += 1;
        check_fields(&format!("event {name}"), fields.as_object().expect("fields"), &ours["fields"], &mut problems);
    }
    // `type` and `id` open every response line: a response's own fields must not reuse them
    // (`cmd` answers later with its `cmd_output` record, whose `id` is the request's: the
    // deferred reply drops it from the fields).
    for c in &commands {
        let mut props = Vec::new();
        properties(&c["response"], &c["response"], &mut props);
        let own_id = |k: &str| k == "id" && c["name"] != "cmd";
        if let Some((k, _)) = props.iter().find(|(k, _)| *k == "type" || own_id(k)) {
            problems.push(format!("{} response declares `{k}`, which the envelope owns", c["name"]));
        }
    }
    assert!(problems.is_empty(), "differences from ClawCraft's contract:\n{}", problems.join("\n"));
    assert!(checked >= 80, "the contract was walked ({checked} commands and events checked)");
}

#[test]
fn the_checker_notices_a_wrong_name_or_type() {
    let schema: Value = serde_json::from_str(
        r##"{"type":"object","properties":{"loaded":{"type":"integer"},"pos":{"$ref":"#/$defs/V"},"n":{"type":["integer","null"]}},
            "$defs":{"V":{"type":"object","properties":{"x":{"type":"number"}}}}}"##,
    )
    .expect("schema");
    let want = |s: &str| serde_json::from_str::<Map<String, Value>>(s).expect("fields");
    let mut problems = Vec::new();
    check_fields("t", &want(r#"{"pos":"object","n":"number"}"#), &schema, &mut problems);
    assert!(problems.is_empty(), "{problems:?}");
    check_fields("t", &want(r#"{"loaded":"boolean","missing":"string"}"#), &schema, &mut problems);
    assert_eq!(problems.len(), 2, "{problems:?}");
}

/// Codes that mean the documented example itself is wrong (or the command path broke), not that
/// the world said no.
const EXAMPLE_FAILURES: &[&str] = &[
    "INVALID_JSON",
    "INVALID_COMMAND",
    "MISSING_ACTION",
    "UNKNOWN_ACTION",
    "INVALID_PARAMS",
    "OUT_OF_RANGE",
    "INTERNAL",
];

#[test]
fn every_registered_command_answers_its_example_once() {
    let mut sim = Simulation::spawned_with(&clawcraft::sim::start_game());
    // Some examples are refused on purpose by the world (no such player, no SEND_CMD): logged.
    sim.allow_warnings = true;
    let schema = sim.command(r#"{"action":"schema"}"#);
    let commands = schema["commands"].as_array().expect("commands").clone();
    let mut problems = Vec::new();
    let mut unanswered = Vec::new();
    for c in &commands {
        let name = c["name"].as_str().expect("name");
        let example = c["example"].as_str().expect("every command documents an example");
        let mut request: Map<String, Value> = match serde_json::from_str(example) {
            Ok(r) => r,
            Err(e) => {
                problems.push(format!("{name}: example is not a JSON object: {e}"));
                continue;
            }
        };
        if request.get("action").and_then(Value::as_str) != Some(name) {
            problems.push(format!("{name}: example names another action: {example}"));
        }
        let id = format!("example-{name}");
        request.insert("id".into(), Value::from(id.clone()));
        sim.queue_command(&Value::Object(request).to_string());
        // Immediate answers come with the tick; deferred ones wait for the server.
        sim.ticks(2);
        let mut answers: Vec<_> =
            sim.take_responses().into_iter().filter(|r| r.get("id") == Some(&Value::from(id.clone()))).collect();
        if answers.is_empty() {
            // A picture is drawn on the task pool (slowly in a debug build): once it is done,
            // it is answered between ticks.
            clawcraft::view::finish_renders(sim.app.world_mut());
            sim.interim();
            answers =
                sim.take_responses().into_iter().filter(|r| r.get("id") == Some(&Value::from(id.clone()))).collect();
        }
        if answers.is_empty() {
            unanswered.push(name);
        }
        if answers.len() > 1 {
            problems.push(format!("{name}: {} responses to one request", answers.len()));
        }
        for r in answers {
            if r.get("type").and_then(Value::as_str) != Some("response") {
                problems.push(format!("{name}: not a response: {r:?}"));
            }
            if let Some(code) = r.get("code").and_then(Value::as_str)
                && EXAMPLE_FAILURES.contains(&code)
            {
                problems.push(format!("{name}: its example gets {code}: {}", r["error"]));
            }
        }
    }
    assert!(problems.is_empty(), "examples that do not work:\n{}", problems.join("\n"));
    assert!(commands.len() >= 40, "every command was tried ({})", commands.len());
    // Only commands that answer on the server's reply may still be waiting: `cmd` (its
    // command output), `server_pos` (the /querytarget output) and `tp` (the teleport).
    assert_eq!(unanswered, ["cmd", "server_pos", "tp"], "commands that did not answer their example within 2 ticks");
}
