//! The skill and the README document what the code registers: every command of the schema has a
//! section in `skill/reference.md`, a place in `skill/SKILL.md`'s list and a row in README.md, every
//! event and error code is listed; SKILL.md, read whole on an agent's first turn, stays short.

use clawcraft::sim::Simulation;

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
        if !readme.contains(&format!("| `{name}` |")) {
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
    let cells: Vec<String> = schema["commands"]
        .as_array()
        .expect("commands")
        .iter()
        .map(|c| {
            let summary = c["summary"].as_str().expect("summary").replace('|', "\\|");
            format!("| `{}` | {summary} ", c["name"].as_str().expect("name"))
        })
        .collect();
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
