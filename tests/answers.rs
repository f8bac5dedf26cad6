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

fn list_add(uuid: &str, name: &str, unique: i64) -> clawcraft_entity::packets::PlayerRecord {
    clawcraft_entity::packets::PlayerRecord {
        kind: "add".into(),
        uuid: uuid.into(),
        entity_unique_id: unique,
        username: name.into(),
        build_platform: 7,
        ..Default::default()
    }
}

fn sent_commands(sim: &mut Simulation) -> Vec<String> {
    sim.sent_as::<clawcraft::protocol::packets::CommandRequest>().into_iter().map(|c| c.command).collect()
}

#[test]
fn whisper_checks_the_roster_before_claiming_success() {
    let mut sim = spawned();
    // No player list yet: sent, but nobody can say whether it arrives.
    let r = sim.command(r#"{"action":"whisper","to":"Steve","message":"hi"}"#);
    assert_eq!((r["sent"].clone(), r["delivered"].clone()), (json!(true), json!("unknown")), "{r:?}");
    assert_eq!(sent_commands(&mut sim), ["/tell Steve hi"]);

    sim.receive(&clawcraft_entity::packets::PlayerList {
        records: vec![
            list_add("00000000-0000-0000-0000-000000000001", "ClawBot", 1),
            list_add("00000000-0000-0000-0000-000000000002", "Steve", 2),
            list_add("00000000-0000-0000-0000-000000000003", "Alex", 3),
        ],
    });
    sim.tick();
    let r = sim.command(r#"{"action":"whisper","to":"steve","message":"hi"}"#);
    assert_eq!((r["to"].clone(), r["delivered"].clone()), (json!("Steve"), json!("online")), "{r:?}");
    assert_eq!(sent_commands(&mut sim), ["/tell Steve hi"], "the roster's spelling is used");

    let r = sim.command(r#"{"action":"whisper","to":"Stve","message":"hi","id":"w"}"#);
    assert_eq!((r["id"].clone(), r["code"].clone()), (json!("w"), json!("NOT_FOUND")), "{r:?}");
    assert!(r["error"].as_str().is_some_and(|e| e.contains("did you mean: Steve")), "{r:?}");
    let r = sim.command(r#"{"action":"whisper","to":"Nobody","message":"hi"}"#);
    assert!(
        r["error"].as_str().is_some_and(|e| e.contains("online: Steve, Alex") || e.contains("online: Alex, Steve")),
        "{r:?}"
    );
    assert!(sent_commands(&mut sim).is_empty(), "nothing is sent to a player who is not there");
}

#[test]
fn a_command_answered_in_chat_is_the_cmd_response() {
    let mut sim = spawned();
    sim.queue_command(r#"{"action":"cmd","cmd":"/tp 1 2 3","id":"c1"}"#);
    sim.tick();
    assert!(sim.take_responses().is_empty(), "waits for the server's answer");
    sim.receive(&clawcraft::protocol::packets::Text {
        needs_translation: true,
        category: "parameters".into(),
        kind: "translation".into(),
        message: "%commands.tp.success.coordinates".into(),
        parameters: vec!["ClawBot".into(), "1".into(), "2".into(), "3".into()],
        ..Default::default()
    });
    sim.tick();
    let r = sim.take_responses();
    assert_eq!(r.len(), 1, "{r:?}");
    assert_eq!((r[0]["id"].clone(), r[0]["success"].clone()), (json!("c1"), json!(true)), "{r:?}");
    assert_eq!(r[0]["output"][0]["messageId"], "commands.tp.success.coordinates");
    sim.ticks(120);
    assert!(sim.take_responses().is_empty(), "no TIMEOUT after the answer");
    let types = sim.event_types();
    assert!(!types.iter().any(|t| t == "command_timeout"), "{types:?}");
    assert_eq!(types.iter().filter(|t| *t == "cmd_output").count(), 1);
}
