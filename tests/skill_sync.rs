//! The skill and the README document what the code registers: every command of the schema has a
//! section in `skill/SKILL.md` and a row in README.md, every event and error code is listed.

use clawcraft::sim::Simulation;

fn read(path: &str) -> String {
    std::fs::read_to_string(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(path)).expect(path)
}

#[test]
fn skill_and_readme_document_every_command_event_and_error() {
    let mut sim = Simulation::new();
    let schema = sim.command(r#"{"action":"schema"}"#);
    let skill = read("skill/SKILL.md");
    let readme = read("README.md");
    assert!(skill.starts_with("---\nname: clawcraft\n"), "OpenClaw front matter");
    let mut missing = Vec::new();
    for c in schema["commands"].as_array().expect("commands") {
        let name = c["name"].as_str().expect("name");
        if !skill.contains(&format!("\n### {name}\n")) {
            missing.push(format!("SKILL.md section ### {name}"));
        }
        if !skill.contains(&format!("\"action\":\"{name}\"")) {
            missing.push(format!("SKILL.md example for {name}"));
        }
        if !readme.contains(&format!("| `{name}` |")) {
            missing.push(format!("README.md row for `{name}`"));
        }
    }
    for e in schema["events"].as_array().expect("events") {
        let name = e["name"].as_str().expect("name");
        if !skill.contains(&format!("| `{name}` |")) {
            missing.push(format!("SKILL.md event row `{name}`"));
        }
    }
    for e in schema["errors"].as_array().expect("errors") {
        let code = e["code"].as_str().expect("code");
        if !skill.contains(&format!("| `{code}` |")) {
            missing.push(format!("SKILL.md error row `{code}`"));
        }
    }
    assert!(missing.is_empty(), "undocumented:\n{}", missing.join("\n"));
}
