//! Answers an agent can trust and afford (issue 15), in simulation: unknown parameters are
//! warned about (never ignored silently), `schema`/`help` answer for one name.

use clawcraft::core::CommandRegistry;
use clawcraft::protocol::packets::{
    CommandOrigin, CommandOutput, CommandOutputMessage, CommandRequest, StartGame, Text,
};
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
        // The envelope: what `parse_request` takes out before the command sees the rest.
        let params =
            params.into_iter().filter(|(k, _)| !matches!(k.as_str(), "action" | "id" | "token" | "bot")).collect();
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
    sim.sent_as::<CommandRequest>().into_iter().map(|c| c.command).collect()
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
    sim.receive(&Text {
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
    // The same line as a `msg` carries the cmd's id: an event reader sees it answered a request.
    let msgs = events_of(&sim, "msg");
    assert_eq!(msgs.len(), 1, "{msgs:?}");
    assert_eq!(
        (msgs[0]["id"].clone(), msgs[0]["key"].clone()),
        (json!("c1"), json!("commands.tp.success.coordinates"))
    );
    // News (no cmd waiting) has no id.
    sim.receive(&text("chat", Some("Steve"), "hello", &[]));
    sim.tick();
    let msgs = events_of(&sim, "msg");
    assert_eq!(msgs.len(), 2);
    assert!(msgs[1].get("id").is_none(), "{:?}", msgs[1]);
}

/// Events of one type, without `type`, `timestamp` and `seq`.
fn events_of(sim: &Simulation, kind: &str) -> Vec<Value> {
    sim.events()
        .into_iter()
        .filter(|e| e["type"] == kind)
        .map(|mut e| {
            e.remove("timestamp");
            e.remove("seq");
            e.remove("type");
            Value::Object(e)
        })
        .collect()
}

fn text(kind: &str, source: Option<&str>, message: &str, params: &[&str]) -> Text {
    Text {
        needs_translation: kind == "translation",
        category: if kind == "chat" { "authored" } else { "message_only" }.into(),
        kind: kind.into(),
        source_name: source.map(str::to_owned),
        message: message.into(),
        parameters: params.iter().map(|p| (*p).to_owned()).collect(),
        ..Default::default()
    }
}

fn command_output(uuid: &str, success_count: u32, key: &str, params: &[&str]) -> CommandOutput {
    CommandOutput {
        origin: CommandOrigin { kind: "player".into(), uuid: uuid.into(), ..CommandOrigin::default() },
        output_type: "alloutput".into(),
        success_count,
        output: vec![CommandOutputMessage {
            message_id: key.into(),
            success: success_count > 0,
            parameters: params.iter().map(|p| (*p).to_owned()).collect(),
        }],
        ..CommandOutput::default()
    }
}

#[test]
fn chat_is_confirmed_by_the_servers_echo_under_the_request_id() {
    let mut sim = spawned();
    let r = sim.command(r#"{"action":"chat","message":"hello all","id":"k1"}"#);
    assert_eq!((r["sent"].clone(), r["delivered"].clone()), (json!(true), json!("unknown")), "{r:?}");
    // Before any echo, silence proves nothing: no delivery event at all.
    sim.ticks(120);
    assert!(events_of(&sim, "delivery").is_empty(), "a server never seen echoing is not accused");

    sim.command(r#"{"action":"chat","message":"second","id":"k2"}"#);
    sim.command(r#"{"action":"chat","message":"third","id":"k3"}"#);
    // The server relays our line to everyone, us included (a chat Text from our own name).
    sim.receive(&text("chat", Some("ClawBot"), "third", &[]));
    sim.tick();
    assert_eq!(
        events_of(&sim, "delivery"),
        vec![json!({"id": "k3", "action": "chat", "delivered": true, "message": "third", "via": "echo"})],
        "matched by text, not by order"
    );
    assert!(events_of(&sim, "msg").is_empty(), "our own line is not news");
    // Now the server is known to echo: k2 without an echo is reported undelivered.
    sim.ticks(101);
    let d = events_of(&sim, "delivery");
    assert_eq!(d.len(), 2, "{d:?}");
    assert_eq!((d[1]["id"].clone(), d[1]["delivered"].clone()), (json!("k2"), json!(false)));
    assert_eq!((d[1]["code"].clone(), d[1]["via"].clone()), (json!("TIMEOUT"), json!("timeout")));
    sim.ticks(120);
    assert_eq!(events_of(&sim, "delivery").len(), 2, "one answer per request");
}

#[test]
fn a_translated_echo_confirms_chat_too() {
    let mut sim = spawned();
    sim.command(r#"{"action":"chat","message":"hi","id":7}"#);
    sim.receive(&text("translation", None, "%chat.type.text", &["ClawBot", "hi"]));
    sim.tick();
    assert_eq!(events_of(&sim, "delivery")[0]["id"], 7);
}

#[test]
fn whisper_is_confirmed_or_refused_by_the_servers_answer() {
    let mut sim = spawned();
    sim.receive(&clawcraft_entity::packets::PlayerList {
        records: vec![
            list_add("00000000-0000-0000-0000-000000000001", "ClawBot", 1),
            list_add("00000000-0000-0000-0000-000000000002", "Steve", 2),
        ],
    });
    sim.tick();
    // Confirmed by the server's CommandOutput for that /tell (matched by origin UUID).
    let r = sim.command(r#"{"action":"whisper","to":"steve","message":"hi","id":"w1"}"#);
    assert_eq!(r["delivered"], "online");
    let uuid = sim.sent_as::<CommandRequest>()[0].origin.uuid.clone();
    sim.receive(&command_output("ffffffff-0000-0000-0000-000000000000", 1, "commands.stray", &[]));
    sim.receive(&command_output(&uuid, 1, "commands.message.display.outgoing", &["Steve", "hi"]));
    sim.tick();
    assert_eq!(
        events_of(&sim, "delivery"),
        vec![json!({"id": "w1", "action": "whisper", "delivered": true, "message": "hi", "to": "Steve",
            "via": "command_output"})]
    );

    // Confirmed by the "You whisper to Steve" line, even while a cmd waits for feedback in chat.
    sim.queue_command(r#"{"action":"cmd","cmd":"/time set day","id":"c"}"#);
    sim.tick();
    sim.command(r#"{"action":"whisper","to":"Steve","message":"psst","id":"w2"}"#);
    let echo = r#"{"rawtext":[{"translate":"commands.message.display.outgoing","with":["Steve","psst"]}]}"#;
    sim.receive(&text("json_whisper", None, echo, &[]));
    sim.tick();
    let d = events_of(&sim, "delivery");
    assert_eq!((d[1]["id"].clone(), d[1]["via"].clone()), (json!("w2"), json!("echo")), "{d:?}");
    assert!(sim.take_responses().is_empty(), "the whisper line is not the cmd's answer");
    assert!(events_of(&sim, "msg").is_empty(), "our own whisper is not news");

    // Refused: the player left between the roster and the command.
    sim.command(r#"{"action":"whisper","to":"Steve","message":"still there?","id":"w3"}"#);
    let uuid = sim.sent_as::<CommandRequest>().pop().expect("the /tell").origin.uuid;
    sim.receive(&command_output(&uuid, 0, "commands.generic.noTargetMatch", &[]));
    sim.tick();
    let d = events_of(&sim, "delivery");
    assert_eq!(
        d[2],
        json!({"id": "w3", "action": "whisper", "delivered": false, "message": "still there?", "to": "Steve",
            "via": "command_output", "code": "NOT_FOUND", "error": "No targets matched selector"})
    );
    assert!(sim.take_responses().is_empty() && events_of(&sim, "cmd_output").is_empty(), "not a cmd's output");
}
