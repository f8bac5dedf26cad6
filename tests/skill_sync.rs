//! The skill and the README document what the code registers: every command of the schema has a
//! section in `skill/reference.md`, a place in `skill/SKILL.md`'s list and a row in README.md, every
//! event and error code is listed; SKILL.md, read whole on an agent's first turn, stays short.
//! The reference agrees with the schema field by field (parameters and response fields described,
//! examples using only declared fields), and README's command table is generated from it.

use std::collections::{BTreeMap, BTreeSet};

use clawcraft::sim::Simulation;
use serde_json::Value;

fn read(path: &str) -> String {
    std::fs::read_to_string(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(path)).expect(path)
}

#[test]
fn skill_and_readme_document_every_command_event_and_error() {
    let mut sim = Simulation::new();
    let schema = sim.command(r#"{"action":"schema"}"#);
    let quickstart = read("skill/SKILL.md");
    let skill = read("skill/reference.md");
    let readme = read("README.md");
    assert!(quickstart.starts_with("---\nname: clawcraft\n"), "OpenClaw front matter");
    assert!(quickstart.len() <= 25 * 1024, "SKILL.md is read whole: {} bytes, at most 25 KB", quickstart.len());
    let glance = quickstart.split("\n## Commands at a glance\n").nth(1).expect("SKILL.md lists the commands");
    let glance = glance.split("\n## ").next().unwrap_or_default();
    let mut missing = Vec::new();
    for c in schema["commands"].as_array().expect("commands") {
        let name = c["name"].as_str().expect("name");
        if !skill.contains(&format!("\n### {name}\n")) {
            missing.push(format!("reference.md section ### {name}"));
        }
        if !skill.contains(&format!("\"action\":\"{name}\"")) {
            missing.push(format!("reference.md example for {name}"));
        }
        if !glance.contains(&format!("`{name}`")) {
            missing.push(format!("SKILL.md's list names `{name}`"));
        }
        if !readme.contains(&format!("`{name}` ")) {
            missing.push(format!("README.md row for `{name}`"));
        }
    }
    for e in schema["events"].as_array().expect("events") {
        let name = e["name"].as_str().expect("name");
        if !skill.contains(&format!("| `{name}` |")) {
            missing.push(format!("reference.md event row `{name}`"));
        }
    }
    for e in schema["errors"].as_array().expect("errors") {
        let code = e["code"].as_str().expect("code");
        if !skill.contains(&format!("| `{code}` |")) {
            missing.push(format!("reference.md error row `{code}`"));
        }
    }
    assert!(missing.is_empty(), "undocumented:\n{}", missing.join("\n"));
}

/// The text of `### {name}` up to the next heading.
fn section<'a>(skill: &'a str, name: &str) -> Option<&'a str> {
    let start = skill.find(&format!("\n### {name}\n"))? + 1;
    let body = &skill[start..];
    let end = body[4..].find("\n#").map_or(body.len(), |e| e + 4);
    Some(&body[..end])
}

/// An agent can only afford an answer it can size before asking: every query's section says what
/// region (or record) it reads and how large its answer can get, so a new query cannot skip it.
#[test]
fn every_query_states_its_shape_and_worst_case_size() {
    let mut sim = Simulation::new();
    let schema = sim.command(r#"{"action":"schema"}"#);
    let skill = read("skill/reference.md");
    let mut missing = Vec::new();
    let mut queries = 0;
    for c in schema["commands"].as_array().expect("commands") {
        if c["query"] != true {
            continue;
        }
        queries += 1;
        let name = c["name"].as_str().expect("name");
        let Some(text) = section(&skill, name) else {
            missing.push(format!("{name}: no section"));
            continue;
        };
        if !text.contains("Shape:") {
            missing.push(format!("{name}: no `Shape:`"));
        }
        if !text.contains("Worst case: ~") {
            missing.push(format!("{name}: no `Worst case: ~N characters`"));
        }
    }
    assert!(queries >= 20, "the schema marks queries ({queries})");
    assert!(missing.is_empty(), "queries without a stated shape or size:\n{}", missing.join("\n"));
}

/// README's command table is generated from the registry (name and summary, two commands a
/// row), so it cannot drift from the code: `CLAWCRAFT_BLESS=1` rewrites it, otherwise an
/// out-of-date table fails.
#[test]
fn readme_command_table_is_generated_from_the_registry() {
    let mut sim = Simulation::new();
    let schema = sim.command(r#"{"action":"schema"}"#);
    // Commands sharing one summary (the abort_* family) share one cell, named together.
    let mut grouped: Vec<(Vec<String>, String)> = Vec::new();
    for c in schema["commands"].as_array().expect("commands") {
        let name = format!("`{}`", c["name"].as_str().expect("name"));
        let summary = c["summary"].as_str().expect("summary").replace('|', "\\|");
        match grouped.iter_mut().find(|(_, s)| *s == summary) {
            Some((names, _)) => names.push(name),
            None => grouped.push((vec![name], summary)),
        }
    }
    let cells: Vec<String> =
        grouped.iter().map(|(names, summary)| format!("| {} | {summary} ", names.join(" "))).collect();
    let mut table = String::from("| command | what it does | command | what it does |\n|---|---|---|---|\n");
    for pair in cells.chunks(2) {
        let row = if pair.len() == 2 { format!("{}{}|", pair[0], pair[1]) } else { format!("{}| | |", pair[0]) };
        table.push_str(&row);
        table.push('\n');
    }
    let (begin, end) = ("<!-- commands: generated -->\n", "<!-- /commands -->");
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md");
    let readme = read("README.md");
    let start = readme.find(begin).expect("README.md marks the generated command table") + begin.len();
    let stop = readme[start..].find(end).expect("README.md ends the generated command table") + start;
    if readme[start..stop] == table {
        return;
    }
    if std::env::var_os("CLAWCRAFT_BLESS").is_some() {
        std::fs::write(&path, format!("{}{table}{}", &readme[..start], &readme[stop..])).expect("write README.md");
        return;
    }
    panic!("README.md's command table is out of date: run CLAWCRAFT_BLESS=1 cargo test --test skill_sync");
}

/// Every property name a JSON Schema admits at its top level: its `properties`, those of its
/// `anyOf`/`oneOf`/`allOf` branches and of what `$ref` points at. `None` when it admits any name
/// (an open map or an untyped value).
fn property_names(schema: &Value, root: &Value) -> Option<BTreeSet<String>> {
    let mut names = BTreeSet::new();
    if let Some(r) = schema.get("$ref").and_then(Value::as_str) {
        let target = r.strip_prefix('#').and_then(|p| root.pointer(p))?;
        names.extend(property_names(target, root)?);
    }
    if let Some(props) = schema.get("properties").and_then(Value::as_object) {
        names.extend(props.keys().cloned());
    }
    for key in ["anyOf", "oneOf", "allOf"] {
        for branch in schema.get(key).and_then(Value::as_array).into_iter().flatten() {
            // A `null` branch (an optional value) adds no names.
            if branch.get("type").and_then(Value::as_str) == Some("null") {
                continue;
            }
            names.extend(property_names(branch, root)?);
        }
    }
    let open = schema.get("additionalProperties").is_some_and(|a| a != &Value::Bool(false));
    let typed = ["properties", "$ref", "anyOf", "oneOf", "allOf"].iter().any(|k| schema.get(k).is_some());
    (!open && (typed || schema.get("type").and_then(Value::as_str) == Some("null"))).then_some(names)
}

type ExampleObject = serde_json::Map<String, Value>;

/// The JSON lines of a reference section's examples, with the `…` that stand for "more of the
/// same" taken out so they parse.
fn example_lines(section: &str) -> Vec<(String, Result<ExampleObject, String>)> {
    let mut out = Vec::new();
    let mut in_json = false;
    for line in section.lines() {
        if line.starts_with("```") {
            in_json = line == "```json";
            continue;
        }
        if !in_json || !line.starts_with('{') {
            continue;
        }
        let cleaned = line.replace(",…", "").replace("…,", "").replace('…', "");
        let parsed = match serde_json::from_str::<Value>(&cleaned) {
            Ok(Value::Object(m)) => Ok(m),
            Ok(_) => Err("not an object".to_owned()),
            Err(e) => Err(e.to_string()),
        };
        out.push((line.to_owned(), parsed));
    }
    out
}

/// Keys every line may carry whatever the command: the envelope.
const ENVELOPE: &[&str] = &["type", "id", "bot", "seq", "timestamp", "warnings", "token"];

/// The reference agrees with the registry field by field, not only by name: every parameter and
/// response field the schema declares is named in the command's section, and every example line uses only
/// fields the schema declares — a request only the command's parameters, a response only its
/// response fields (a waited answer also its completion event's), an event only that event's
/// fields. A renamed or removed field fails here until the reference follows.
#[test]
fn reference_agrees_with_the_schema_field_by_field() {
    let mut sim = Simulation::new();
    let schema = sim.command(r#"{"action":"schema"}"#);
    let skill = read("skill/reference.md");
    let events: BTreeMap<String, Option<BTreeSet<String>>> = schema["events"]
        .as_array()
        .expect("events")
        .iter()
        .map(|e| (e["name"].as_str().expect("name").to_owned(), property_names(&e["fields"], &e["fields"])))
        .collect();
    let mut wrong = Vec::new();
    for c in schema["commands"].as_array().expect("commands") {
        let name = c["name"].as_str().expect("name");
        let Some(text) = section(&skill, name) else { continue };
        let params = property_names(&c["params"], &c["params"]);
        for p in params.iter().flatten() {
            let mentioned = text.contains(&format!("`{p}`"))
                || text.contains(&format!("\"{p}\":"))
                || text.contains(&format!("`{p}:"))
                || text.contains(&format!("`{p}=`"));
            if !mentioned {
                wrong.push(format!("{name}: parameter `{p}` is not described"));
            }
        }
        for p in property_names(&c["response"], &c["response"]).iter().flatten() {
            if !text.contains(&format!("`{p}`"))
                && !text.contains(&format!("\"{p}\":"))
                && !text.contains(&format!("`{p}:"))
            {
                wrong.push(format!("{name}: response field `{p}` is not described"));
            }
        }
        // The command whose request came last: the response lines after it are its answers.
        let mut asked: Option<&Value> = Some(c);
        let mut waited = false;
        for (line, parsed) in example_lines(text) {
            let obj = match parsed {
                Ok(obj) => obj,
                Err(e) => {
                    wrong.push(format!("{name}: example is not JSON ({e}): {line}"));
                    continue;
                }
            };
            let with_envelope = |p: Option<BTreeSet<String>>| {
                p.map(|mut p| {
                    p.extend(["action", "wait"].map(String::from));
                    p
                })
            };
            let (kind, allowed): (String, Option<BTreeSet<String>>) = match (obj.get("type"), obj.get("action")) {
                (Some(Value::String(t)), _) if t == "response" => {
                    let Some(cmd) = asked else { continue };
                    if obj.contains_key("error") {
                        ("error response".into(), Some(["error", "code", "hint", "details"].map(String::from).into()))
                    } else {
                        let mut allowed = property_names(&cmd["response"], &cmd["response"]);
                        let done =
                            cmd["async"]["completionEvent"].as_str().and_then(|e| events.get(e).cloned().flatten());
                        if waited && let (Some(a), Some(done)) = (allowed.as_mut(), done) {
                            a.extend(done);
                            a.extend(["event", "timedOut", "running", "abort"].map(String::from));
                        }
                        (format!("{} response", cmd["name"].as_str().unwrap_or_default()), allowed)
                    }
                }
                (Some(Value::String(t)), _) => match events.get(t.as_str()) {
                    Some(fields) => (format!("event {t}"), fields.clone()),
                    None => {
                        wrong.push(format!("{name}: example names an unknown event `{t}`"));
                        continue;
                    }
                },
                (None, Some(Value::String(a))) => {
                    waited = obj.get("wait").is_some_and(|w| w != &Value::Bool(false));
                    asked = schema["commands"].as_array().and_then(|cs| cs.iter().find(|c| c["name"] == a.as_str()));
                    let Some(cmd) = asked else {
                        wrong.push(format!("{name}: example asks an unknown command `{a}`"));
                        continue;
                    };
                    (format!("request {a}"), with_envelope(property_names(&cmd["params"], &cmd["params"])))
                }
                _ => continue,
            };
            let Some(allowed) = allowed else { continue };
            for key in obj.keys() {
                if !allowed.contains(key) && !ENVELOPE.contains(&key.as_str()) {
                    wrong.push(format!("{name}: {kind} example has `{key}`, which the schema does not declare"));
                }
            }
        }
    }
    assert!(wrong.is_empty(), "skill/reference.md disagrees with the schema:\n{}", wrong.join("\n"));
}
