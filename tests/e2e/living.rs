//! End-to-end: the real `clawcraft` binary in the peer's scripted `living` world
//! (`tests/peer/scripts/living.json`): players, mobs, items, chat, emotes, vitals, death and
//! respawn, plus the `players`, `nearby`, `vitals`, `cmd`, `chat` and `whisper` commands.
//!
//! Expected values come from the script itself where practical. The tests synchronise on the
//! bot's events and the peer's `{"event":"script","step":…}` lines; where the bot may not have
//! handled a packet yet when the peer announces it, queries are polled until they match.

use crate::common;

use std::time::{Duration, Instant};

use common::{Bot, Peer};
use serde_json::{Value, json};

const SPAWN_TIMEOUT: Duration = Duration::from_secs(30);
/// Generous wait for one step of the ~10 s timeline.
const STEP: Duration = Duration::from_secs(10);
const REQ: Duration = Duration::from_secs(5);
/// Eye height the wire adds to player positions.
const EYE: f64 = 1.62;
/// Position tolerance of the issue (blocks).
const TOL: f64 = 0.1;

// ------------------------------------------------------------------------------------------------
// Helpers
// ------------------------------------------------------------------------------------------------

fn living_script() -> Value {
    let path = common::repo_root().join("tests/peer/scripts/living.json");
    serde_json::from_str(&std::fs::read_to_string(&path).expect("read living.json")).expect("living.json parses")
}

fn script_step<'a>(script: &'a Value, name: &str) -> &'a Value {
    script["steps"].as_array().and_then(|s| s.iter().find(|st| st["step"] == name)).unwrap_or_else(|| {
        panic!("living.json has no step {name}");
    })
}

/// `{bot}` → the bot's name, as the peer does.
fn sub(s: &str, bot: &str) -> String {
    s.replace("{bot}", bot)
}

fn num(v: &Value) -> f64 {
    v.as_f64().or_else(|| v.as_str().and_then(|s| s.parse().ok())).unwrap_or(f64::NAN)
}

/// `(x, y, z)` of a `{x,y,z}` object.
fn xyz(v: &Value) -> (f64, f64, f64) {
    (num(&v["x"]), num(&v["y"]), num(&v["z"]))
}

/// Feet of a script eye position.
fn feet_of_eye(v: &Value) -> (f64, f64, f64) {
    let (x, y, z) = xyz(v);
    (x, y - EYE, z)
}

fn near(actual: &Value, expected: (f64, f64, f64)) -> bool {
    let (x, y, z) = xyz(actual);
    (x - expected.0).abs() <= TOL && (y - expected.1).abs() <= TOL && (z - expected.2).abs() <= TOL
}

fn assert_pos(what: &str, actual: &Value, expected: (f64, f64, f64)) {
    assert!(near(actual, expected), "{what}: position {actual} is not within {TOL} of {expected:?}");
}

/// Lower-case platform of a `DeviceOS` / build platform number used by the script.
fn platform(build_platform: &Value) -> &'static str {
    match build_platform.as_i64() {
        Some(1) => "android",
        Some(2) => "ios",
        Some(7) | Some(8) => "windows",
        other => panic!("test does not know build platform {other:?}"),
    }
}

/// Every event of `kind` the bot printed so far (each is printed exactly once; see
/// [`every_event_and_response_is_printed_once`]).
fn events(bot: &Bot, kind: &str) -> Vec<Value> {
    bot.seen.iter().filter(|v| v["type"] == kind).cloned().collect()
}

/// Waits for a bot event of `kind` whose `field` equals `value`.
fn wait_event_with(bot: &mut Bot, kind: &str, field: &str, value: &Value) -> Value {
    bot.wait(|v| v["type"] == kind && v[field] == *value, STEP)
        .unwrap_or_else(|| panic!("no {kind} event with {field}={value}; seen: {:?}", bot.seen))
}

/// Sends `cmd` until the response satisfies `pred` (the bot may handle the packet a tick after
/// the peer announced it); panics with the last response otherwise.
fn poll(bot: &mut Bot, cmd: Value, what: &str, pred: impl Fn(&Value) -> bool) -> Value {
    let deadline = Instant::now() + Duration::from_secs(3);
    loop {
        let r = bot.request(cmd.clone(), REQ).unwrap_or_else(|| panic!("{what}: no response to {cmd}"));
        if pred(&r) {
            return r;
        }
        assert!(Instant::now() < deadline, "{what}: last response {r}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// The peer's stdout, remembered, so a line can be waited for after later ones arrived.
struct PeerLines {
    seen: Vec<Value>,
}

impl PeerLines {
    fn new() -> Self {
        Self { seen: Vec::new() }
    }

    fn wait(&mut self, peer: &Peer, what: &str, pred: impl Fn(&Value) -> bool) -> Value {
        if let Some(v) = self.seen.iter().find(|v| pred(v)) {
            return v.clone();
        }
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match peer.lines.recv_timeout(left) {
                Ok(v) => {
                    self.seen.push(v.clone());
                    if pred(&v) {
                        return v;
                    }
                }
                Err(_) => panic!("peer never printed {what}; printed: {:?}", self.seen),
            }
        }
    }

    /// A script step's line (for walks, `phase:"done"` with `done`).
    fn step(&mut self, peer: &Peer, step: &str, done: bool) -> Value {
        let what = format!("script step {step}{}", if done { " (done)" } else { "" });
        self.wait(peer, &what, |v| {
            v["event"] == "script" && v["step"] == step && (v["phase"] == "done") == done && v.get("error").is_none()
        })
    }
}

fn names_of(players: &Value) -> Vec<String> {
    players
        .as_array()
        .map(|a| a.iter().filter_map(|p| p["name"].as_str().map(str::to_owned)).collect())
        .unwrap_or_default()
}

/// The `players` roster without the bot itself (the peer does not list the bot), checked
/// against the script's players: names, uuids, platforms, and `count`.
fn assert_roster(bot: &mut Bot, script: &Value, own: &str, expected: &[&str]) {
    let r = poll(bot, json!({"action": "players"}), "players", |r| {
        let mut names = names_of(&r["players"]);
        names.retain(|n| n != own);
        names == expected
    });
    let list = r["players"].as_array().expect("players list");
    assert_eq!(r["count"], json!(list.len()), "count matches the list: {r}");
    for name in expected {
        let p = list.iter().find(|p| p["name"] == *name).expect("listed");
        let sp = &script["players"][*name];
        assert_eq!(p["uuid"], sp["uuid"], "{name}'s uuid: {p}");
        assert_eq!(p["platform"], platform(&sp["build_platform"]), "{name}'s platform: {p}");
        assert!(p["joinedAt"].as_u64().is_some_and(|t| t > 1_600_000_000_000), "{name}'s joinedAt: {p}");
    }
}

fn mob(nearby: &Value, id: u64) -> Option<&Value> {
    nearby["nearby"]["mobs"].as_array().and_then(|m| m.iter().find(|x| x["id"] == id))
}

fn player_in<'a>(nearby: &'a Value, name: &str) -> Option<&'a Value> {
    nearby["nearby"]["players"].as_array().and_then(|m| m.iter().find(|x| x["name"] == name))
}

/// Runtime id of a script entity.
fn rid(script: &Value, name: &str) -> u64 {
    script["entities"][name]["runtime_id"].as_u64().unwrap_or_else(|| panic!("living.json: no runtime id of {name}"))
}

fn entity_feet(script: &Value, name: &str) -> (f64, f64, f64) {
    xyz(&script["entities"][name]["position"])
}

/// The `msg` each Text step of the script should become (`None`: dropped), from the chat
/// rules: control characters except newline stripped; whispers and mentions of the bot are
/// direct; server types are `system`; rawtext JSON rendered; translations rendered.
fn expected_msg(st: &Value, own: &str) -> Option<Value> {
    let kind = st["type"].as_str().expect("text type");
    let message = sub(st["message"].as_str().expect("message"), own);
    let from = st["source_name"].as_str().map(|s| sub(s, own)).unwrap_or_default();
    if from == own {
        return None;
    }
    let clean = |s: &str| s.chars().filter(|c| *c == '\n' || !c.is_control()).collect::<String>();
    let params: Vec<String> = st["parameters"]
        .as_array()
        .map(|a| a.iter().map(|p| sub(p.as_str().unwrap_or_default(), own)).collect())
        .unwrap_or_default();
    let (msg, key) = match kind {
        "json" | "json_whisper" | "json_announcement" => {
            let v: Value = serde_json::from_str(&message).expect("rawtext json");
            (v["rawtext"][0]["text"].as_str().expect("rawtext text").to_owned(), None)
        }
        "translation" => {
            // %multiplayer.player.joined with [name]: the English template.
            assert_eq!(message, "%multiplayer.player.joined", "test knows this key");
            (format!("{} joined the game", params[0]), Some("multiplayer.player.joined".to_owned()))
        }
        "jukebox_popup" => {
            // No template for record.nowPlaying: `key param…`.
            (format!("{message} {}", params.join(" ")), Some(message.clone()))
        }
        _ => (clean(&message), None),
    };
    let whisper = kind == "whisper" || kind == "json_whisper";
    let system =
        matches!(kind, "system" | "announcement" | "json_announcement" | "translation" | "jukebox_popup" | "popup");
    let direct = whisper || msg.to_lowercase().contains(&own.to_lowercase());
    let mut v =
        json!({"from": from, "msg": msg, "direct": direct, "whisper": whisper, "system": system, "textType": kind});
    if let Some(k) = key {
        v["key"] = json!(k);
        v["params"] = json!(params);
    }
    Some(v)
}

/// The fields of a `msg` event that [`expected_msg`] describes.
fn msg_shape(ev: &Value) -> Value {
    let mut v = json!({});
    for k in ["from", "msg", "direct", "whisper", "system", "textType", "key", "params"] {
        if let Some(x) = ev.get(k) {
            v[k] = x.clone();
        }
    }
    v
}

// ------------------------------------------------------------------------------------------------
// The whole timeline with CLAWCRAFT_RESPAWN=true
// ------------------------------------------------------------------------------------------------

#[test]
fn the_living_world_timeline_becomes_the_exact_events_and_query_results() {
    const BOT: &str = "LivingBot";
    let script = living_script();
    let peer = Peer::start("living");
    let mut out = PeerLines::new();
    let mut bot = Bot::start_with(peer.port, BOT, &[("CLAWCRAFT_RESPAWN", "true")]);
    bot.wait_event("spawn", SPAWN_TIMEOUT).expect("spawn");
    let players = &script["players"];

    // --- Roster and appearance (200..600 ms) ------------------------------------------------
    for name in ["Alice", "Bob"] {
        let ev = wait_event_with(&mut bot, "player_join", "name", &json!(name));
        assert_eq!(ev["uuid"], players[name]["uuid"], "{name} joins with the script's uuid: {ev}");
        assert_eq!(ev["platform"], platform(&players[name]["build_platform"]), "{name}'s platform: {ev}");
    }
    for (name, step) in [("Alice", "alice_add"), ("Bob", "bob_add")] {
        let ev = wait_event_with(&mut bot, "player_appear", "name", &json!(name));
        assert_eq!(ev["uuid"], players[name]["uuid"], "{ev}");
        assert_pos(&format!("{name} appears"), &ev["position"], feet_of_eye(&script_step(&script, step)["position"]));
    }
    out.step(&peer, "item_add", false);
    assert_roster(&mut bot, &script, BOT, &["Alice", "Bob"]);

    // Everything added, at the script's positions; the apple is an item with its count.
    let apple = &script["entities"]["apple"];
    let first = poll(&mut bot, json!({"action": "nearby", "radius": 64}), "initial nearby", |r| {
        r["nearby"]["items"].as_array().is_some_and(|i| !i.is_empty())
            && r["nearby"]["mobs"].as_array().is_some_and(|m| m.len() == 4)
    });
    let items = first["nearby"]["items"].as_array().expect("items");
    assert_eq!(items.len(), 1, "{first}");
    assert_eq!(items[0]["item"], format!("minecraft:{}", apple["item"].as_str().expect("apple item")), "{first}");
    assert_eq!(items[0]["count"], apple["count"], "{first}");
    assert_eq!(items[0]["id"], apple["runtime_id"], "{first}");
    assert_pos("apple", &items[0]["position"], entity_feet(&script, "apple"));
    for (name, category) in [("npc", "other"), ("cow", "passive"), ("wolf", "neutral"), ("zombie", "hostile")] {
        let e = &script["entities"][name];
        let m = mob(&first, rid(&script, name)).unwrap_or_else(|| panic!("{name} in nearby: {first}"));
        assert_eq!(m["type"], e["type"], "{m}");
        assert_eq!(m["category"], category, "{name}'s category: {m}");
        assert_pos(name, &m["position"], entity_feet(&script, name));
    }
    let npc = mob(&first, rid(&script, "npc")).expect("NPC nearby");
    assert_eq!(npc["nameTag"], script["entities"]["npc"]["name"], "the NPC's name tag: {npc}");
    let bob = player_in(&first, "Bob").expect("Bob nearby");
    assert_pos("Bob", &bob["position"], feet_of_eye(&script_step(&script, "bob_add")["position"]));

    // --- cmd: /list and an unknown command (the peer answers every CommandRequest) ------------
    // The response is the server's CommandOutput; the same output is also a `cmd_output` event.
    let output = bot.request(json!({"action": "cmd", "cmd": "/list"}), STEP).expect("cmd response");
    let id = output["id"].clone();
    let event = bot.wait(|v| v["type"] == "cmd_output" && v["id"] == id, STEP).expect("cmd_output of /list");
    assert_eq!(event["output"], output["output"], "event and response agree: {event}");
    let peer_out =
        out.wait(&peer, "command_output /list", |v| v["event"] == "command_output" && v["command"] == "/list");
    assert_eq!(output["success"], true, "{output}");
    assert_eq!(output["successCount"], 1, "{output}");
    assert_eq!(output["command"], "/list", "{output}");
    assert_eq!(output["external"], false, "{output}");
    let server_lines: Vec<Value> = peer_out["output"]
        .as_array()
        .expect("peer output")
        .iter()
        .map(|l| json!({"messageId": l["message_id"], "success": l["success"], "parameters": l["parameters"]}))
        .collect();
    assert_eq!(output["output"], json!(server_lines), "cmd_output carries the server's lines");
    let roster_line = format!("{BOT}, Alice, Bob");
    assert_eq!(peer_out["output"][1]["message_id"], json!(roster_line), "peer's player list at this point");
    assert_eq!(output["messages"], json!(["commands.players.list 3 20", roster_line]), "{output}");
    let req = peer.packets_named("command_request").into_iter().find(|p| p["params"]["command"] == "/list");
    let req = req.expect("the peer logged the /list CommandRequest");
    assert_eq!(req["params"]["origin"]["type"], "player", "{req}");

    let output = bot.request(json!({"action": "cmd", "cmd": "frobnicate now"}), STEP).expect("cmd response");
    assert_eq!(output["command"], "/frobnicate now", "a leading slash is added: {output}");
    assert_eq!(output["success"], false, "{output}");
    assert_eq!(output["successCount"], 0, "{output}");
    assert_eq!(
        output["output"],
        json!([{"messageId": "commands.generic.unknown", "success": false, "parameters": ["frobnicate"]}]),
        "{output}"
    );

    // --- chat and whisper commands: what went over the wire -----------------------------------
    let said = "hello from the bot";
    let chat_r = bot.request(json!({"action": "chat", "message": said}), REQ).expect("chat response");
    assert_eq!((chat_r["sent"].clone(), chat_r["delivered"].clone()), (json!(true), json!("unknown")), "{chat_r}");
    let whisper_r =
        bot.request(json!({"action": "whisper", "to": "Alice", "message": "meet at the door"}), REQ).expect("whisper");
    assert_eq!(whisper_r["sent"], true, "{whisper_r}");
    assert!(
        peer.wait_log(
            |p| {
                p.iter().any(|x| x["name"] == "text" && x["params"]["message"] == said)
                    && p.iter().any(|x| {
                        x["name"] == "command_request" && x["params"]["command"] == "/tell Alice meet at the door"
                    })
            },
            REQ
        ),
        "peer got the chat Text and the /tell CommandRequest: {:?}",
        peer.packets().iter().filter(|p| p["name"] == "text" || p["name"] == "command_request").collect::<Vec<_>>()
    );
    let text =
        peer.packets_named("text").into_iter().find(|x| x["params"]["message"] == said).expect("chat Text logged");
    assert_eq!(text["params"]["type"], "chat", "{text}");
    assert_eq!(text["params"]["source_name"], BOT, "{text}");
    assert_eq!(text["params"]["needs_translation"], false, "{text}");
    // The peer echoes the chat line and answers the /tell: both confirmed under their request ids.
    let (chat_id, whisper_id) = (chat_r["id"].clone(), whisper_r["id"].clone());
    let d = bot.wait(|v| v["type"] == "delivery" && v["id"] == chat_id, REQ).expect("chat delivery");
    assert_eq!((d["delivered"].clone(), d["via"].clone()), (json!(true), json!("echo")), "{d}");
    let d = bot.wait(|v| v["type"] == "delivery" && v["id"] == whisper_id, REQ).expect("whisper delivery");
    assert_eq!((d["delivered"].clone(), d["to"].clone()), (json!(true), json!("Alice")), "{d}");

    // --- Emotes (3500 / 3600) -----------------------------------------------------------------
    let known = script_step(&script, "alice_emote");
    let unknown = script_step(&script, "alice_emote_unknown");
    let ev = wait_event_with(&mut bot, "emote", "emoteId", &known["emote_id"]);
    assert_eq!(ev["from"], "Alice", "{ev}");
    assert_eq!(ev["known"], true, "{ev}");
    // The script calls it Wave; the vendored Marketplace table titles it Waving.
    assert_eq!(ev["emote"], "Waving", "{ev}");
    assert_eq!(ev["runtimeId"], players["Alice"]["runtime_id"], "{ev}");
    let ev = wait_event_with(&mut bot, "emote", "emoteId", &unknown["emote_id"]);
    assert_eq!(ev["from"], "Alice", "{ev}");
    assert_eq!(ev["known"], false, "{ev}");
    assert_eq!(ev["emote"], Value::Null, "{ev}");

    // --- Vitals up to the first effect (4000..4500) -------------------------------------------
    let hurt_health = num(&script_step(&script, "hurt")["attributes"]["minecraft:health"]);
    let hunger = num(&script_step(&script, "hunger")["attributes"]["minecraft:player.hunger"]);
    let effect_add = script_step(&script, "effect_add");
    let ev = bot.wait_event("effect_added", STEP).expect("effect_added");
    assert_eq!(ev["effect"].clone(), effect_add["effect"], "effect name from the id: {ev}");
    assert_eq!(ev["effectId"], effect_add["effect_id"], "{ev}");
    assert_eq!(ev["amplifier"], effect_add["amplifier"], "{ev}");
    assert_eq!(ev["duration"], effect_add["duration"], "{ev}");
    // Synchronised on effect_added (the update follows 500 ms later).
    let v = bot.request(json!({"action": "vitals"}), REQ).expect("vitals");
    assert_eq!((num(&v["health"]), num(&v["maxHealth"])), (hurt_health, 20.0), "{v}");
    assert_eq!((num(&v["hunger"]), num(&v["maxHunger"])), (hunger, 20.0), "{v}");
    assert_eq!(v["alive"], true, "{v}");
    let effects = v["effects"].as_array().expect("effects");
    assert_eq!(effects.len(), 1, "{v}");
    assert_eq!(effects[0]["name"], effect_add["effect"], "{v}");
    assert_eq!(effects[0]["id"], effect_add["effect_id"], "{v}");
    assert_eq!(effects[0]["amplifier"], effect_add["amplifier"], "{v}");
    assert_eq!(effects[0]["duration"], effect_add["duration"], "{v}");
    assert!(effects[0]["remaining"].as_i64().is_some_and(|r| r > 0 && r <= 600), "{v}");

    let effect_modify = script_step(&script, "effect_modify");
    let ev = bot.wait_event("effect_updated", STEP).expect("effect_updated");
    assert_eq!(ev["effect"], effect_modify["effect"], "{ev}");
    assert_eq!(ev["amplifier"], effect_modify["amplifier"], "{ev}");
    assert_eq!(ev["duration"], effect_modify["duration"], "{ev}");
    let ev = bot.wait_event("effect_removed", STEP).expect("effect_removed");
    assert_eq!(ev["effect"], "speed", "{ev}");
    assert_eq!(ev["effectId"], 1, "{ev}");

    // --- Alice walked in (done at 5200): her position within 0.1 ------------------------------
    let done = out.step(&peer, "alice_walk_in", true);
    let alice_in = feet_of_eye(&done["position"]);
    assert_eq!(alice_in, feet_of_eye(&script_step(&script, "alice_walk_in")["to"]), "peer walked to the script's end");
    poll(&mut bot, json!({"action": "nearby"}), "Alice after walking in", |r| {
        player_in(r, "Alice").is_some_and(|a| near(&a["position"], alice_in))
    });

    // --- Carol joins (6000, roster only) ------------------------------------------------------
    let ev = wait_event_with(&mut bot, "player_join", "name", &json!("Carol"));
    assert_eq!(ev["uuid"], players["Carol"]["uuid"], "{ev}");
    assert_eq!(ev["platform"], platform(&players["Carol"]["build_platform"]), "{ev}");
    assert_roster(&mut bot, &script, BOT, &["Alice", "Bob", "Carol"]);

    // --- The zombie's approach (done at 6000) and the NPC's final move (3300) -----------------
    let done = out.step(&peer, "zombie_approach", true);
    let zombie_end = xyz(&done["position"]);
    assert_eq!(zombie_end, xyz(&script_step(&script, "zombie_approach")["to"]));
    let zombie_id = rid(&script, "zombie");
    let r = poll(&mut bot, json!({"action": "nearby"}), "zombie at the end of its walk", |r| {
        mob(r, zombie_id).is_some_and(|z| near(&z["position"], zombie_end))
    });
    let zombie = mob(&r, zombie_id).expect("zombie nearby");
    assert_eq!(zombie["category"], "hostile", "{zombie}");
    assert_eq!(zombie["name"], "zombie", "{zombie}");
    let npc_end = xyz(&script_step(&script, "npc_move_absolute")["position"]);
    let npc = mob(&r, rid(&script, "npc")).expect("NPC nearby");
    assert_pos("NPC after its last MoveEntity", &npc["position"], npc_end);
    assert_eq!(npc["nameTag"], "Trader Tom", "{npc}");
    // Mobs that never moved stay put; the list is sorted by distance.
    for name in ["cow", "wolf"] {
        let m = mob(&r, rid(&script, name)).expect("in nearby");
        assert_pos(name, &m["position"], entity_feet(&script, name));
    }
    let dists: Vec<f64> = r["nearby"]["mobs"].as_array().expect("mobs").iter().map(|m| num(&m["distance"])).collect();
    assert!(dists.windows(2).all(|w| w[0] <= w[1]), "mobs nearest first: {dists:?}");
    // `danger` for the zombie once it came within 8 blocks.
    let danger = bot.wait(|v| v["type"] == "danger" && v["threat"] == "zombie", STEP).expect("danger for the zombie");
    assert_eq!(
        (danger["entityType"].clone(), danger["identifier"].clone()),
        (json!(32), json!("minecraft:zombie")),
        "{danger}"
    );
    assert_eq!(danger["runtimeId"], json!(zombie_id), "{danger}");
    assert!(num(&danger["distance"]) <= 8.0, "{danger}");
    assert!(
        (num(&danger["pos"]["x"]) - 0.5).abs() <= TOL && (num(&danger["pos"]["y"]) + 60.0).abs() <= TOL,
        "{danger}"
    );

    // --- Bob leaves (6500) --------------------------------------------------------------------
    let ev = wait_event_with(&mut bot, "player_leave", "name", &json!("Bob"));
    assert_eq!(ev["uuid"], players["Bob"]["uuid"], "{ev}");
    let ev = wait_event_with(&mut bot, "player_disappear", "name", &json!("Bob"));
    assert_eq!(ev["uuid"], players["Bob"]["uuid"], "{ev}");
    assert_roster(&mut bot, &script, BOT, &["Alice", "Carol"]);

    // --- The apple is picked up (7000) --------------------------------------------------------
    out.step(&peer, "item_pickup", false);
    let r = poll(&mut bot, json!({"action": "nearby", "radius": 64}), "apple gone", |r| {
        r["nearby"]["items"].as_array().is_some_and(Vec::is_empty)
    });
    assert!(player_in(&r, "Bob").is_none(), "Bob is gone from nearby: {r}");

    // --- Carol leaves (8000) ------------------------------------------------------------------
    let ev = wait_event_with(&mut bot, "player_leave", "name", &json!("Carol"));
    assert_eq!(ev["uuid"], players["Carol"]["uuid"], "{ev}");
    assert_roster(&mut bot, &script, BOT, &["Alice"]);

    // --- Alice walked out (done at 9200) ------------------------------------------------------
    let done = out.step(&peer, "alice_walk_out", true);
    let alice_out = feet_of_eye(&done["position"]);
    poll(&mut bot, json!({"action": "nearby"}), "Alice after walking out", |r| {
        player_in(r, "Alice").is_some_and(|a| near(&a["position"], alice_out))
    });

    // --- Death (9500) and automatic respawn (10100) -------------------------------------------
    let death_step = script_step(&script, "death");
    let cause = death_step["cause"].as_str().expect("death cause");
    let messages: Vec<String> = death_step["messages"]
        .as_array()
        .expect("death messages")
        .iter()
        .map(|m| sub(m.as_str().unwrap_or_default(), BOT))
        .collect();
    let ev = bot.wait_event("death", STEP).expect("death");
    assert_eq!(ev["cause"], cause, "cause from DeathInfo: {ev}");
    assert_eq!(ev["messages"], json!(messages), "{ev}");
    let ev = bot.wait_event("death_details", STEP).expect("death_details");
    assert_eq!(ev["cause"], cause, "{ev}");
    assert_eq!(ev["messages"], json!(messages), "{ev}");
    assert_eq!(ev["items"], json!([]), "{ev}");
    let spawn_feet = xyz(&script["bot"]["spawn_feet"]);
    assert_pos("death position", &ev["pos"], spawn_feet);

    let ev = bot.wait_event("respawn", STEP).expect("respawn");
    assert_eq!(ev["auto"], true, "{ev}");
    assert_pos("respawn position", &ev["pos"], feet_of_eye(&script_step(&script, "respawn_ready")["position"]));
    let ready = out.step(&peer, "respawn_client_ready", false);
    assert!(ready["trigger"] == "player_action" || ready["trigger"] == "respawn", "{ready}");
    // The bot answers like the vanilla client: PlayerAction respawn + Respawn state 2.
    let own_rid = num(&script["bot"]["runtime_id"]);
    assert!(
        peer.wait_log(
            |p| p.iter().any(|p| p["name"] == "player_action"
                && p["params"]["action"] == "respawn"
                && num(&p["params"]["runtime_entity_id"]) == own_rid)
                && p.iter().any(|p| p["name"] == "respawn"),
            REQ
        ),
        "PlayerAction respawn and Respawn sent"
    );
    let answers = peer.packets();
    let states: Vec<f64> =
        answers.iter().filter(|p| p["name"] == "respawn").map(|p| num(&p["params"]["state"])).collect();
    assert_eq!(states, vec![2.0], "exactly one Respawn, client_ready");
    // The peer's fresh bars after the answer: alive, full, no effects.
    let v = poll(&mut bot, json!({"action": "vitals"}), "vitals after respawn", |v| {
        v["alive"] == true && num(&v["health"]) == 20.0 && num(&v["hunger"]) == 20.0
    });
    assert_eq!(v["effects"], json!([]), "{v}");
    out.step(&peer, "script_done", false);
    let status = bot.request(json!({"action": "status"}), REQ).expect("status");
    assert_eq!(status["lastDeath"]["cause"], cause, "{status}");

    // --- The complete event stream, checked once everything has run ---------------------------
    // A response flushes everything printed before it.
    bot.request(json!({"action": "pos"}), REQ).expect("pos");

    // Chat: one msg per Text step except the bot's own, in order, exact.
    let expected: Vec<Value> = script["steps"]
        .as_array()
        .expect("script steps")
        .iter()
        .filter(|st| st["action"] == "text")
        .filter_map(|st| expected_msg(st, BOT))
        .collect();
    let got: Vec<Value> = events(&bot, "msg").iter().map(msg_shape).collect();
    assert_eq!(got.len(), expected.len(), "msg events: {got:#?}");
    for (g, e) in got.iter().zip(&expected) {
        assert_eq!(g, e, "msg event");
    }
    assert!(
        got.iter().all(|m| !m["msg"].as_str().unwrap_or_default().contains("echo of my own")),
        "own message dropped"
    );

    // Proximity: Alice near → close on the way in, close → near(out) on the way out, once each.
    let zones = |kind: &str, name: &str| -> Vec<(String, f64)> {
        events(&bot, kind)
            .iter()
            .filter(|e| e["name"] == name)
            .map(|e| (e["zone"].as_str().unwrap_or_default().to_owned(), num(&e["distance"])))
            .collect()
    };
    let alice_nearby = zones("player_nearby", "Alice");
    assert_eq!(alice_nearby.iter().map(|z| z.0.as_str()).collect::<Vec<_>>(), ["near", "close"], "{alice_nearby:?}");
    assert!(alice_nearby[0].1 > 8.0 && alice_nearby[0].1 <= 16.0, "{alice_nearby:?}");
    assert!(alice_nearby[1].1 <= 8.0, "{alice_nearby:?}");
    let alice_left = zones("player_left_nearby", "Alice");
    assert_eq!(alice_left.iter().map(|z| z.0.as_str()).collect::<Vec<_>>(), ["close", "near"], "{alice_left:?}");
    assert!(alice_left[0].1 > 9.0 && alice_left[0].1 <= 17.0, "{alice_left:?}");
    assert!(alice_left[1].1 > 17.0, "{alice_left:?}");
    let seq = |kind: &str, zone: &str| {
        bot.seen
            .iter()
            .position(|e| e["type"] == kind && e["name"] == "Alice" && e["zone"] == zone)
            .expect("zone event")
    };
    assert!(
        seq("player_nearby", "near") < seq("player_nearby", "close")
            && seq("player_nearby", "close") < seq("player_left_nearby", "close")
            && seq("player_left_nearby", "close") < seq("player_left_nearby", "near"),
        "zone events in walking order"
    );
    // Bob stood 11 blocks away: near once; his removal says player_disappear, not left_nearby.
    let bob_feet = feet_of_eye(&script_step(&script, "bob_add")["position"]);
    let bob_dist = ((bob_feet.0 - spawn_feet.0).powi(2) + (bob_feet.2 - spawn_feet.2).powi(2)).sqrt();
    assert_eq!(zones("player_nearby", "Bob"), vec![("near".to_owned(), bob_dist)], "Bob's zone");
    assert!(zones("player_left_nearby", "Bob").is_empty(), "no left_nearby for a removed player");

    // Roster events exactly once each; Carol never appears (player list only).
    for (kind, name, n) in [
        ("player_join", "Alice", 1),
        ("player_join", "Bob", 1),
        ("player_join", "Carol", 1),
        ("player_leave", "Bob", 1),
        ("player_leave", "Carol", 1),
        ("player_leave", "Alice", 0),
        ("player_appear", "Alice", 1),
        ("player_appear", "Bob", 1),
        ("player_appear", "Carol", 0),
        ("player_disappear", "Bob", 1),
        ("player_disappear", "Alice", 0),
    ] {
        let count = events(&bot, kind).iter().filter(|e| e["name"] == name).count();
        assert_eq!(count, n, "{kind} for {name}");
    }
    assert!(events(&bot, "player_join").iter().all(|e| e["name"] != BOT), "the bot's own join is not announced");

    // Vitals: the hurt, the fatal hit (cause from DeathInfo), one hunger change, one of each
    // effect event, one death, one respawn.
    let damage = events(&bot, "damage_taken");
    assert_eq!(damage.len(), 2, "the hurt and the fatal hit: {damage:?}");
    assert_eq!(damage[0]["cause"], "attack", "hurt_animation → attack: {}", damage[0]);
    assert_eq!(damage[0]["health"], json!({"old": 20.0, "new": hurt_health, "max": 20.0}), "{}", damage[0]);
    assert_eq!(damage[1]["health"], json!({"old": hurt_health, "new": 0.0, "max": 20.0}), "{}", damage[1]);
    assert_eq!(damage[1]["cause"], "zombie", "cause of death.attack.zombie: {}", damage[1]);
    let hunger_ev = events(&bot, "hunger_changed");
    assert_eq!(hunger_ev.len(), 1, "{hunger_ev:?}");
    assert_eq!(hunger_ev[0]["hunger"], json!({"old": 20.0, "new": hunger, "max": 20.0}), "{hunger_ev:?}");
    assert!(events(&bot, "health_restored").is_empty(), "respawn resets the bars silently");
    for kind in ["effect_added", "effect_updated", "effect_removed", "death", "death_details", "respawn"] {
        assert_eq!(events(&bot, kind).len(), 1, "exactly one {kind}");
    }
    let dangers = events(&bot, "danger");
    assert!(!dangers.is_empty(), "danger");
    assert!(dangers.iter().all(|d| d["threat"] == "zombie"), "only the zombie is a danger: {dangers:?}");
    let peer_steps: Vec<&str> =
        out.seen.iter().filter(|v| v["event"] == "script").filter_map(|v| v["step"].as_str()).collect();
    assert_eq!(
        peer_steps.iter().filter(|s| **s == "respawn_client_ready").count(),
        1,
        "the peer answered one respawn: {peer_steps:?}"
    );
}

// ------------------------------------------------------------------------------------------------
// Without CLAWCRAFT_RESPAWN: the agent respawns; CHAT_WHITELIST filters the chat steps
// ------------------------------------------------------------------------------------------------

#[test]
fn without_auto_respawn_the_agent_respawns_and_the_whitelist_filters_chat() {
    const BOT: &str = "ManualBot";
    let script = living_script();
    let peer = Peer::start("living");
    let mut out = PeerLines::new();
    let mut bot = Bot::start_with(peer.port, BOT, &[("CLAWCRAFT_RESPAWN", "false"), ("CHAT_WHITELIST", "alice")]);
    bot.wait_event("spawn", SPAWN_TIMEOUT).expect("spawn");

    let r = bot.request(json!({"action": "respawn"}), REQ).expect("respawn response");
    assert_eq!(r["code"], "NOT_DEAD", "respawn while alive: {r}");

    let ev = bot.wait_event("death", Duration::from_secs(20)).expect("death");
    assert_eq!(ev["cause"], script_step(&script, "death")["cause"], "{ev}");
    // Respawn state 1 arrives 600 ms after the death; script_done 100 ms after that.
    out.step(&peer, "respawn_ready", false);
    out.step(&peer, "script_done", false);
    let v = bot.request(json!({"action": "vitals"}), REQ).expect("vitals");
    assert_eq!(v["alive"], false, "still dead: {v}");
    assert_eq!(num(&v["health"]), 0.0, "{v}");
    assert!(
        peer.packets()
            .iter()
            .all(|p| p["name"] != "respawn" && !(p["name"] == "player_action" && p["params"]["action"] == "respawn")),
        "the bot does not answer the Respawn by itself"
    );
    assert!(events(&bot, "respawn").is_empty(), "no respawn event yet");

    let r = bot.request(json!({"action": "respawn"}), REQ).expect("respawn response");
    assert_eq!(r["respawned"], true, "{r}");
    assert_pos("respawn response", &r["pos"], feet_of_eye(&script_step(&script, "respawn_ready")["position"]));
    let ev = bot.wait_event("respawn", STEP).expect("respawn event");
    assert_eq!(ev["auto"], false, "{ev}");
    let ready = out.step(&peer, "respawn_client_ready", false);
    assert!(ready.get("trigger").is_some(), "{ready}");
    poll(&mut bot, json!({"action": "vitals"}), "alive again", |v| v["alive"] == true && num(&v["health"]) == 20.0);
    let r = bot.request(json!({"action": "respawn"}), REQ).expect("respawn response");
    assert_eq!(r["code"], "NOT_DEAD", "respawned already: {r}");

    // CHAT_WHITELIST=alice: Alice's lines and sender-less system messages pass; Bob, the
    // "Server" announcement and sender-less non-system lines are dropped.
    let expected: Vec<Value> = script["steps"]
        .as_array()
        .expect("script steps")
        .iter()
        .filter(|st| st["action"] == "text")
        .filter_map(|st| expected_msg(st, BOT))
        .filter(|m| if m["from"] == "" { m["system"] == true } else { m["from"] == "Alice" })
        .collect();
    let got: Vec<Value> = events(&bot, "msg").iter().map(msg_shape).collect();
    assert_eq!(got, expected, "whitelisted msg events");
}

// ------------------------------------------------------------------------------------------------
// Known I/O bug (plugins/io), kept as a regression test until it is fixed
// ------------------------------------------------------------------------------------------------

#[test]
fn every_event_and_response_is_printed_once() {
    let peer = Peer::start("flat");
    let mut bot = Bot::start(peer.port, "OnceBot");
    bot.wait_event("spawn", SPAWN_TIMEOUT).expect("spawn");
    for _ in 0..10 {
        bot.request(json!({"action": "pos"}), REQ).expect("pos");
    }
    // A last response flushes what came before it.
    bot.request(json!({"action": "status"}), REQ).expect("status");
    let ids: Vec<String> = bot.seen.iter().filter(|v| v["type"] == "response").map(|v| v["id"].to_string()).collect();
    let unique: std::collections::BTreeSet<&String> = ids.iter().collect();
    assert_eq!(ids.len(), unique.len(), "each response printed once: {ids:?}");
    let spawns = bot.seen.iter().filter(|v| v["type"] == "spawn").count();
    assert_eq!(spawns, 1, "one spawn event");
}
