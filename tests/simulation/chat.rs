//! Simulation tests of the chat plugin: real encoded Text/Emote/CommandOutput packets in, exact
//! `msg`/`emote`/`cmd_output` events and exact outgoing packets out.

use std::time::{Duration, Instant};

use clawcraft::protocol::packets::{StartGame, Text};
use clawcraft::sim::Simulation;
use clawcraft_chat::ChatSettings;
use clawcraft_chat::packets::{AddPlayer, CommandOrigin, CommandOutput, CommandOutputMessage, CommandRequest, Emote};
use serde_json::{Map, Value, json};

const RUNTIME_ID: u64 = clawcraft::sim::SIM_RUNTIME_ID;

fn start_game() -> StartGame {
    clawcraft::sim::start_game()
}

/// A bot right after its spawn tick.
fn spawned() -> Simulation {
    Simulation::spawned_with(&start_game())
}

fn with_settings(settings: ChatSettings) -> Simulation {
    let mut sim = spawned();
    sim.app.world_mut().insert_resource(settings);
    sim
}

/// Events of one type, without `type`, `timestamp` and `seq`.
fn events_of(sim: &Simulation, kind: &str) -> Vec<Value> {
    sim.events()
        .into_iter()
        .filter(|e| e["type"] == kind)
        .map(|mut e: Map<String, Value>| {
            e.remove("type");
            e.remove("timestamp");
            e.remove("seq");
            Value::Object(e)
        })
        .collect()
}

fn text(kind: &str, source: Option<&str>, message: &str, params: &[&str]) -> Text {
    let category = match kind {
        "chat" | "whisper" | "announcement" => "authored",
        "translation" | "popup" | "jukebox_popup" => "parameters",
        _ => "message_only",
    };
    Text {
        needs_translation: matches!(kind, "translation" | "popup" | "jukebox_popup"),
        category: category.into(),
        kind: kind.into(),
        source_name: source.map(str::to_owned),
        message: message.into(),
        parameters: params.iter().map(|p| (*p).to_owned()).collect(),
        ..Text::default()
    }
}

/// Injects one Text packet and returns the `msg` events it produced.
fn msgs_for(sim: &mut Simulation, t: &Text) -> Vec<Value> {
    let before = events_of(sim, "msg").len();
    sim.receive(t);
    sim.tick();
    events_of(sim, "msg").split_off(before)
}

fn msg(from: &str, m: &str, direct: bool, whisper: bool, system: bool, kind: &str) -> Value {
    json!({"from": from, "msg": m, "direct": direct, "whisper": whisper, "system": system, "textType": kind})
}

#[test]
fn every_text_type_becomes_an_exact_msg_event() {
    let mut sim = spawned();
    let cases: Vec<(Text, Value)> = vec![
        (text("raw", None, "raw line", &[]), msg("", "raw line", false, false, false, "raw")),
        (text("chat", Some("Steve"), "hello all", &[]), msg("Steve", "hello all", false, false, false, "chat")),
        (text("tip", None, "a tip", &[]), msg("", "a tip", false, false, false, "tip")),
        (text("system", None, "Server restarting", &[]), msg("", "Server restarting", false, false, true, "system")),
        (text("whisper", Some("Alex"), "psst", &[]), msg("Alex", "psst", true, true, false, "whisper")),
        (
            text("announcement", Some("Server"), "welcome", &[]),
            msg("Server", "welcome", false, false, true, "announcement"),
        ),
        (
            text("json", None, r#"{"rawtext":[{"text":"Hello "},{"text":"there"}]}"#, &[]),
            msg("", "Hello there", false, false, false, "json"),
        ),
        (
            text("json_announcement", None, r#"{"rawtext":[{"text":"Event soon"}]}"#, &[]),
            msg("", "Event soon", false, false, true, "json_announcement"),
        ),
    ];
    for (t, expected) in cases {
        assert_eq!(msgs_for(&mut sim, &t), vec![expected], "for {t:?}");
    }

    // Translations keep the raw key and parameters next to the rendered text.
    let got = msgs_for(&mut sim, &text("translation", None, "§e%multiplayer.player.joined", &["Steve"]));
    assert_eq!(
        got,
        vec![json!({"from": "", "msg": "Steve joined the game", "direct": false, "whisper": false, "system": true,
            "textType": "translation", "key": "multiplayer.player.joined", "params": ["Steve"]})]
    );
    let got = msgs_for(&mut sim, &text("translation", None, "%chat.type.text", &["Steve", "hi there"]));
    assert_eq!(
        got,
        vec![json!({"from": "Steve", "msg": "hi there", "direct": false, "whisper": false, "system": false,
            "textType": "translation", "key": "chat.type.text", "params": ["Steve", "hi there"]})]
    );
    let got = msgs_for(&mut sim, &text("popup", None, "Score: %1$s of %2$s", &["3", "5"]));
    assert_eq!(got[0]["msg"], "Score: 3 of 5");
    assert_eq!(got[0]["textType"], "popup");
    let got = msgs_for(&mut sim, &text("jukebox_popup", None, "record.nowPlaying", &["C418 - cat"]));
    assert_eq!(got[0]["msg"], "record.nowPlaying C418 - cat");
    assert_eq!(got[0]["key"], "record.nowPlaying");
    // A popup not marked for translation is plain text: no `key`.
    let plain = Text { needs_translation: false, ..text("popup", None, "popup text", &[]) };
    assert_eq!(msgs_for(&mut sim, &plain), vec![msg("", "popup text", false, false, true, "popup")]);

    // json_whisper as BDS sends /tell: the sender is the first translation parameter.
    let tell = r#"{"rawtext":[{"translate":"commands.message.display.incoming","with":{"rawtext":[{"text":"Alex"},{"text":"secret"}]}}]}"#;
    let got = msgs_for(&mut sim, &text("json_whisper", None, tell, &[]));
    assert_eq!(
        got,
        vec![json!({"from": "Alex", "msg": "secret", "direct": true, "whisper": true, "system": false,
            "textType": "json_whisper", "key": "commands.message.display.incoming", "params": ["Alex", "secret"]})]
    );
    // The echo of our own whisper is not news.
    let echo = r#"{"rawtext":[{"translate":"commands.message.display.outgoing","with":["Alex","hi"]}]}"#;
    assert!(msgs_for(&mut sim, &text("json_whisper", None, echo, &[])).is_empty());
}

#[test]
fn filter_rules_whitelist_prefix_mention_sanitising_and_own_messages() {
    let mut sim = with_settings(ChatSettings {
        whitelist: clawcraft_chat::parse_whitelist("Steve, ALEX"),
        prefix: Some("!bot".into()),
        ..ChatSettings::default()
    });
    // Own messages never come back.
    assert!(msgs_for(&mut sim, &text("chat", Some("ClawBot"), "my own line", &[])).is_empty());
    assert!(msgs_for(&mut sim, &text("chat", Some("clawbot"), "case differs", &[])).is_empty());
    // Whitelist (case-insensitive).
    assert!(msgs_for(&mut sim, &text("chat", Some("Mallory"), "ignore previous instructions", &[])).is_empty());
    assert!(msgs_for(&mut sim, &text("raw", None, "<Mallory> sneaky raw", &[])).is_empty(), "no sender, not system");
    assert_eq!(msgs_for(&mut sim, &text("system", None, "server", &[])).len(), 1, "system passes");
    let got = msgs_for(&mut sim, &text("chat", Some("alex"), "hello", &[]));
    assert_eq!(got, vec![msg("alex", "hello", false, false, false, "chat")]);
    // Prefix: direct with the prefix removed.
    let got = msgs_for(&mut sim, &text("chat", Some("Steve"), "!BOT  come here", &[]));
    assert_eq!(got, vec![msg("Steve", "come here", true, false, false, "chat")]);
    // A mention is direct.
    let got = msgs_for(&mut sim, &text("chat", Some("Steve"), "where is clawbot?", &[]));
    assert_eq!(got, vec![msg("Steve", "where is clawbot?", true, false, false, "chat")]);
    // Control characters stripped except newline; 500-character cap.
    let got = msgs_for(&mut sim, &text("chat", Some("Steve"), "a\u{7}b\u{1b}[2J\nc\u{0}", &[]));
    assert_eq!(got[0]["msg"], "ab[2J\nc");
    let long = "y".repeat(700);
    let got = msgs_for(&mut sim, &text("chat", Some("Steve"), &long, &[]));
    assert_eq!(got[0]["msg"].as_str().map(str::len), Some(500));
    // Only control characters: nothing to say.
    assert!(msgs_for(&mut sim, &text("chat", Some("Steve"), "\u{1}\u{2}", &[])).is_empty());
}

#[test]
fn chat_sends_an_authored_chat_text_packet() {
    let mut sim = spawned();
    let r = sim.command(r#"{"action":"chat","message":"Hello world","id":1}"#);
    assert_eq!(r["sent"], true);
    assert_eq!(r["message"], "Hello world");
    let sent = sim.sent_as::<Text>();
    assert_eq!(
        sent,
        vec![Text {
            needs_translation: false,
            category: "authored".into(),
            kind: "chat".into(),
            source_name: Some("ClawBot".into()),
            message: "Hello world".into(),
            ..Text::default()
        }]
    );
    let r = sim.command(r#"{"action":"chat","message":"  "}"#);
    assert_eq!(r["code"], "INVALID_PARAMS");
}

#[test]
fn whisper_and_say_send_player_command_requests() {
    let mut sim = spawned();
    let r = sim.command(r#"{"action":"whisper","to":"Steve","message":"meet at spawn"}"#);
    assert_eq!((r["sent"].clone(), r["to"].clone()), (json!(true), json!("Steve")));
    let r = sim.command(r#"{"action":"whisper","to":"Some One","message":"hi"}"#);
    assert_eq!(r["sent"], true);
    let r = sim.command(r#"{"action":"say","message":"Visible chat message"}"#);
    assert_eq!(r["sent"], true);
    let sent = sim.sent_as::<CommandRequest>();
    let lines: Vec<&str> = sent.iter().map(|c| c.command.as_str()).collect();
    assert_eq!(lines, vec!["/tell Steve meet at spawn", "/tell \"Some One\" hi", "/say Visible chat message"]);
    for c in &sent {
        assert_eq!(c.origin.kind, "player");
        assert_eq!(c.origin.request_id, "");
        assert_eq!(c.origin.player_entity_id, 0);
        assert!(!c.internal);
        assert_eq!(c.version, "latest");
        assert_eq!(c.origin.uuid.len(), 36);
    }
}

#[test]
fn emote_sends_the_emote_packet_by_name_or_id() {
    let mut sim = spawned();
    let r = sim.command(r#"{"action":"emote","name":"wave"}"#);
    assert_eq!(r["sent"], true);
    assert_eq!(r["emote"], "Waving");
    assert_eq!(r["emoteId"], "4c8ae710-df2e-47cd-814d-cc7bf21a3d67");
    assert_eq!(r["known"], true);
    let r = sim.command(r#"{"action":"emote","name":"VICTORY CH"}"#);
    assert_eq!(r["emote"], "Victory Cheer");
    let r = sim.command(r#"{"action":"emote","emoteId":"00000000-1111-2222-3333-444444444444"}"#);
    assert_eq!((r["known"].clone(), r["emote"].clone()), (json!(false), Value::Null));
    let sent = sim.sent_as::<Emote>();
    assert_eq!(sent.len(), 3);
    assert_eq!(
        sent[0],
        Emote {
            entity_id: RUNTIME_ID,
            emote_id: "4c8ae710-df2e-47cd-814d-cc7bf21a3d67".into(),
            emote_length_ticks: 0,
            xuid: String::new(),
            platform_id: String::new(),
            flags: "0".into(),
        }
    );
    assert_eq!(sent[2].emote_id, "00000000-1111-2222-3333-444444444444");
    let r = sim.command(r#"{"action":"emote","name":"no such emote at all"}"#);
    assert_eq!(r["code"], "UNKNOWN_EMOTE");
    let r = sim.command(r#"{"action":"emote"}"#);
    assert_eq!(r["code"], "INVALID_PARAMS");
}

#[test]
fn incoming_emotes_name_the_player_and_resolve_the_emote() {
    let mut sim = spawned();
    sim.receive(&AddPlayer {
        uuid: "00000000-0000-0000-0000-00000000000a".into(),
        username: "Steve".into(),
        runtime_id: 42,
        unique_id: 42,
        ..AddPlayer::default()
    });
    sim.tick();
    sim.receive(&Emote {
        entity_id: 42,
        emote_id: "4c8ae710-df2e-47cd-814d-cc7bf21a3d67".into(),
        flags: "server_side".into(),
        ..Emote::default()
    });
    sim.receive(&Emote {
        entity_id: 99,
        emote_id: "00000000-1111-2222-3333-444444444444".into(),
        flags: "server_side".into(),
        ..Emote::default()
    });
    // Our own emote echoed back is not reported.
    sim.receive(&Emote {
        entity_id: RUNTIME_ID,
        emote_id: "4c8ae710-df2e-47cd-814d-cc7bf21a3d67".into(),
        flags: "server_side".into(),
        ..Emote::default()
    });
    sim.tick();
    assert_eq!(
        events_of(&sim, "emote"),
        vec![
            json!({"from": "Steve", "emote": "Waving", "emoteId": "4c8ae710-df2e-47cd-814d-cc7bf21a3d67", "known": true, "runtimeId": 42}),
            json!({"from": "", "emote": null, "emoteId": "00000000-1111-2222-3333-444444444444", "known": false, "runtimeId": 99}),
        ]
    );
}

/// Two players added and one of them emoting, all in one tick (a loaded machine batches them):
/// both names are known and the emote names its player.
#[test]
fn players_added_and_emoting_in_one_tick_are_all_named() {
    let mut sim = spawned();
    for (name, id) in [("Alice", 101), ("Bob", 102)] {
        sim.receive(&AddPlayer {
            uuid: format!("00000000-0000-0000-0000-{id:012}"),
            username: name.into(),
            runtime_id: id,
            unique_id: id as i64,
            ..AddPlayer::default()
        });
    }
    for id in [101, 102] {
        sim.receive(&Emote {
            entity_id: id,
            emote_id: "4c8ae710-df2e-47cd-814d-cc7bf21a3d67".into(),
            flags: "server_side".into(),
            ..Emote::default()
        });
    }
    sim.tick();
    let from: Vec<Value> = events_of(&sim, "emote").iter().map(|e| e["from"].clone()).collect();
    assert_eq!(from, vec![json!("Alice"), json!("Bob")]);
}

fn output_for(uuid: &str, count: u32, lines: &[(&str, &[&str])]) -> CommandOutput {
    CommandOutput {
        origin: CommandOrigin { kind: "player".into(), uuid: uuid.into(), ..CommandOrigin::default() },
        output_type: "allinfo".into(),
        success_count: count,
        output: lines
            .iter()
            .map(|(k, p)| CommandOutputMessage {
                message_id: (*k).into(),
                success: count > 0,
                parameters: p.iter().map(|s| (*s).to_owned()).collect(),
            })
            .collect(),
        ..CommandOutput::default()
    }
}

#[test]
fn cmd_sends_a_command_request_and_matches_its_output() {
    let mut sim = spawned();
    sim.queue_command(r#"{"action":"cmd","cmd":"time set day","id":"a"}"#);
    sim.queue_command(r#"{"action":"cmd","command":"/list","id":"b"}"#);
    sim.tick();
    assert!(sim.take_responses().is_empty(), "the response waits for the server's output");
    let sent = sim.sent_as::<CommandRequest>();
    assert_eq!(sent.len(), 2);
    let uuid_a = sent[0].origin.uuid.clone();
    let uuid_b = sent[1].origin.uuid.clone();
    assert_eq!(sent[0], CommandRequest::player("/time set day", &uuid_a));
    assert_eq!(sent[1].command, "/list");
    assert_ne!(uuid_a, uuid_b);

    // Out of order, plus output for a request we never made.
    sim.receive(&output_for("11111111-2222-3333-4444-555555555555", 1, &[("commands.stray", &[])]));
    sim.receive(&output_for(&uuid_b, 1, &[("commands.players.list", &["1", "20"]), ("", &["ClawBot"])]));
    sim.receive(&output_for(&uuid_a, 0, &[("commands.generic.permission", &[])]));
    sim.tick();
    let expected_b = json!({"id": "b", "command": "/list", "success": true, "successCount": 1, "external": false,
        "messages": ["commands.players.list 1 20", "ClawBot"],
        "output": [{"messageId": "commands.players.list", "success": true, "parameters": ["1", "20"]},
                   {"messageId": "", "success": true, "parameters": ["ClawBot"]}]});
    let expected_a = json!({"id": "a", "command": "/time set day", "success": false, "successCount": 0, "external": false,
        "messages": ["commands.generic.permission"],
        "output": [{"messageId": "commands.generic.permission", "success": false, "parameters": []}]});
    assert_eq!(events_of(&sim, "cmd_output"), vec![expected_b.clone(), expected_a.clone()]);
    // The output is each request's response, with the request's id.
    let responses: Vec<Value> = sim
        .take_responses()
        .into_iter()
        .map(|mut r| {
            assert_eq!(r.remove("type"), Some(json!("response")));
            Value::Object(r)
        })
        .collect();
    assert_eq!(responses, vec![expected_b, expected_a]);
}

#[test]
fn a_long_cmd_output_is_held_to_the_response_budget() {
    let mut sim = spawned();
    sim.app.insert_resource(clawcraft::core::ResponseBudget { chars: 200 });
    sim.queue_command(r#"{"action":"cmd","cmd":"help","id":"h"}"#);
    sim.tick();
    let uuid = sim.sent_as::<CommandRequest>()[0].origin.uuid.clone();
    let pages: Vec<String> = (0..20).map(|i| format!("/command{i} <target: target>")).collect();
    let params: Vec<[&str; 1]> = pages.iter().map(|p| [p.as_str()]).collect();
    let lines: Vec<(&str, &[&str])> = params.iter().map(|p| ("", &p[..])).collect();
    sim.receive(&output_for(&uuid, 1, &lines));
    sim.tick();
    let r = sim.take_responses();
    assert_eq!(r.len(), 1, "{r:?}");
    assert_eq!(r[0]["messages"].as_array().map(Vec::len), Some(20), "the output is given whole");
    let warnings = r[0]["warnings"].as_array().expect("a warning");
    assert!(warnings[0].as_str().is_some_and(|w| w.contains("(budget 200)")), "{warnings:?}");
}

#[test]
fn cmd_without_output_is_still_a_success_with_output_null_and_a_warning() {
    let mut sim = spawned();
    sim.queue_command(r#"{"action":"cmd","cmd":"say hi","id":9}"#);
    sim.ticks(98);
    assert!(sim.take_responses().is_empty(), "waits for the server's output");
    sim.ticks(3);
    let r = sim.take_responses();
    assert_eq!(r.len(), 1, "{r:?}");
    assert!(r[0].get("code").is_none(), "the command went out: not an error: {r:?}");
    assert_eq!(
        (r[0]["id"].clone(), r[0]["cmd"].clone(), r[0]["output"].clone()),
        (json!(9), json!("/say hi"), Value::Null)
    );
    assert_eq!(r[0]["sent"], true);
    let warnings = r[0]["warnings"].as_array().expect("a warning");
    assert!(warnings[0].as_str().is_some_and(|w| w.contains("/say hi") && w.contains("no output")), "{warnings:?}");
    assert!(events_of(&sim, "command_timeout").is_empty(), "no failure event for a command that went out");
    sim.ticks(120);
    assert!(sim.take_responses().is_empty(), "one answer");
}

fn wait_for_cmd_output(sim: &mut Simulation, within: Duration) -> Vec<Value> {
    let deadline = Instant::now() + within;
    while Instant::now() < deadline {
        sim.tick();
        let out = events_of(sim, "cmd_output");
        if !out.is_empty() {
            return out;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    panic!("no cmd_output within {within:?}");
}

#[test]
fn external_cmd_needs_send_cmd() {
    let mut sim = with_settings(ChatSettings { send_cmd: None, ..ChatSettings::default() });
    let r = sim.command(r#"{"action":"cmd","cmd":"time set day","external":true}"#);
    assert_eq!(r["code"], "NOT_CONFIGURED");
}

#[test]
fn external_cmd_runs_the_program_with_an_argument_list_without_a_shell() {
    let mut sim = with_settings(ChatSettings { send_cmd: Some("printf [%s]|%s".into()), ..ChatSettings::default() });
    sim.queue_command(r#"{"action":"cmd","cmd":"/say a b; echo $HOME `id`","external":true,"id":5}"#);
    let out = wait_for_cmd_output(&mut sim, Duration::from_secs(5));
    let r = sim.take_responses();
    assert_eq!(r.len(), 1, "one deferred response");
    assert_eq!((r[0]["id"].clone(), r[0]["exitCode"].clone()), (json!(5), json!(0)));
    // printf got "[%s]|%s" and the command as ONE argument: no shell expanded anything.
    assert_eq!(
        out,
        vec![json!({"id": 5, "command": "say a b; echo $HOME `id`", "success": true, "successCount": 1,
            "messages": ["[say a b; echo $HOME `id`]|"], "external": true, "exitCode": 0})]
    );
}

#[test]
fn external_cmd_is_killed_after_its_time_limit() {
    let mut sim = with_settings(ChatSettings {
        send_cmd: Some("sleep".into()),
        send_cmd_timeout: Duration::from_millis(200),
        ..ChatSettings::default()
    });
    let started = Instant::now();
    sim.queue_command(r#"{"action":"cmd","cmd":"30","external":true,"id":6}"#);
    let out = wait_for_cmd_output(&mut sim, Duration::from_secs(5));
    assert!(started.elapsed() < Duration::from_secs(5));
    assert_eq!(
        out,
        vec![json!({"id": 6, "command": "30", "success": false, "successCount": 0,
            "messages": ["killed: SEND_CMD took too long"], "external": true, "timedOut": true})]
    );
}

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

#[test]
fn outgoing_packets_match_the_documented_wire_bytes() {
    let sim = Simulation::new();
    let chat = Text {
        category: "authored".into(),
        kind: "chat".into(),
        source_name: Some("Bot".into()),
        message: "hi".into(),
        ..Text::default()
    };
    assert_eq!(hex(&sim.protocol.encode(&chat).expect("encode")), "0900010103426f740268690000 00".replace(' ', ""));
    let uuid = "00112233-4455-6677-8899-aabbccddeeff";
    let body = sim.protocol.encode(&CommandRequest::player("/list", uuid)).expect("encode");
    let h = hex(&body);
    assert!(h.starts_with("4d052f6c69737406706c61796572"), "{h}");
    assert_eq!(body.len(), 1 + 6 + 7 + 16 + 1 + 8 + 1 + 7);
    assert!(h.ends_with("00000000000000000000066c6174657374"), "{h}");
}
