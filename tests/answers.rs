//! Answers an agent can trust and afford (issue 15), in simulation: unknown parameters are
//! warned about (never ignored silently), `schema`/`help` answer for one name.

use clawcraft::core::CommandRegistry;
use clawcraft::protocol::packets::StartGame;
use clawcraft::sim::{Simulation, start_game};
use serde_json::{Value, json};

fn spawned() -> Simulation {
    let sg: StartGame = start_game();
    Simulation::spawned_with(&sg)
}

#[test]
fn an_unknown_parameter_is_a_warning_with_the_nearest_name() {
    let mut sim = spawned();
    let r = sim.command(r#"{"action":"nearby","radious":5,"id":"n1"}"#);
    assert!(r.get("error").is_none(), "extra fields are not errors (ClawCraft's clients send them): {r:?}");
    assert_eq!(r["id"], "n1");
    assert_eq!(r["warnings"], json!(["unknown parameter radious (did you mean radius?)"]));
    // A command whose parameters are strict (chat) also takes the request, with the warning.
    let r = sim.command(r#"{"action":"chat","message":"hi","mesage":"x"}"#);
    assert_eq!(r["sent"], true, "{r:?}");
    assert_eq!(r["warnings"], json!(["unknown parameter mesage (did you mean message?)"]));
    let r = sim.command(r#"{"action":"nearby","radius":5}"#);
    assert!(r.get("warnings").is_none(), "known parameters give no warning: {r:?}");
    let r = sim.command(r#"{"action":"pos","verbose":true}"#);
    assert_eq!(r["warnings"], json!(["unknown parameter verbose (pos takes no parameters)"]));
    // An error keeps its warnings: the typo is probably why it failed.
    let r = sim.command(r#"{"action":"tp","x":1,"y":2,"zz":3}"#);
    assert_eq!(r["code"], "INVALID_PARAMS", "{r:?}");
    assert_eq!(r["warnings"], json!(["unknown parameter zz (did you mean z?)"]));
}

#[test]
fn every_documented_example_is_free_of_warnings() {
    let mut sim = spawned();
    sim.allow_warnings = true;
    let registry = sim.app.world().resource::<CommandRegistry>().clone();
    let mut checked = 0;
    for entry in registry.entries() {
        let line = entry.example;
        let params: serde_json::Map<String, Value> = serde_json::from_str(line).expect("example is JSON");
        let params = params.into_iter().filter(|(k, _)| !matches!(k.as_str(), "action" | "id" | "token")).collect();
        let warnings = entry.param_warnings(&params);
        assert!(warnings.is_empty(), "{}: the documented example {line} warns {warnings:?}", entry.name);
        checked += 1;
    }
    assert!(checked > 40, "every command was checked ({checked})");
}

#[test]
fn schema_and_help_answer_for_one_name() {
    let mut sim = Simulation::new();
    let full = sim.command(r#"{"action":"schema"}"#);
    let full_len = Value::Object(full).to_string().len();
    let r = sim.command(r#"{"action":"schema","command":"nearby"}"#);
    let text = Value::Object(r.clone()).to_string();
    assert_eq!(r["commands"].as_array().map(Vec::len), Some(1), "{text}");
    assert_eq!(r["commands"][0]["name"], "nearby");
    assert_eq!(r["events"], json!([]));
    assert!(r.get("errors").is_none(), "the error list is left out of a filtered schema");
    assert!(text.len() < 8000 && full_len > 20 * text.len(), "filtered {} vs full {full_len}", text.len());
    let r = sim.command(r#"{"action":"schema","event":"danger"}"#);
    assert_eq!(r["commands"], json!([]));
    assert_eq!(r["events"][0]["name"], "danger");
    let r = sim.command(r#"{"action":"schema","topic":"danger"}"#);
    assert_eq!(r["events"][0]["name"], "danger", "topic finds events too");
    let r = sim.command(r#"{"action":"schema","command":"nerby"}"#);
    assert_eq!(r["code"], "INVALID_PARAMS");
    assert!(r["error"].as_str().is_some_and(|e| e.contains("did you mean: nearby")), "{r:?}");

    let r = sim.command(r#"{"action":"help","command":"nearby"}"#);
    assert!(r["text"].as_str().is_some_and(|t| t.starts_with("nearby: ") && t.contains("radius")), "{r:?}");
    let r = sim.command(r#"{"action":"help","event":"danger"}"#);
    assert!(r["text"].as_str().is_some_and(|t| t.starts_with("event danger")), "{r:?}");
    let r = sim.command(r#"{"action":"help","topic":"dangr"}"#);
    assert!(r["error"].as_str().is_some_and(|e| e.contains("danger")), "events are suggested too: {r:?}");
}
