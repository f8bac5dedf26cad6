//! End-to-end: what the server itself says, against the bedrock-protocol peer. `server_pos` asks
//! the server where the bot is (`/querytarget @s`, which the peer answers from its own
//! movement checker's authoritative position) and says why when it cannot; a `cmd` the server
//! never answers is still a success (it was sent) with `output: null` and a warning.

use crate::common;

use std::time::Duration;

use common::{Bot, Peer};
use serde_json::{Value, json};

const SPAWN_TIMEOUT: Duration = Duration::from_secs(40);
const ANSWER: Duration = Duration::from_secs(10);

fn num(v: &Value) -> f64 {
    v.as_f64().or_else(|| v.as_str().and_then(|s| s.parse().ok())).unwrap_or(f64::NAN)
}

/// The peer's last authoritative feet position.
fn peer_position(peer: &Peer) -> (f64, f64, f64) {
    let last = peer
        .packets()
        .into_iter()
        .rfind(|p| p["name"] == "__auth_pos" && p["accepted"] == true)
        .expect("authoritative positions");
    (num(&last["x"]), num(&last["y"]), num(&last["z"]))
}

#[test]
fn server_pos_answers_the_servers_own_view_after_a_walk() {
    let peer = Peer::start("flat");
    let mut bot = Bot::start(peer.port, "TruthBot");
    bot.wait_event("spawn", SPAWN_TIMEOUT).expect("spawn");
    let at_spawn = bot.request(json!({"action": "server_pos"}), ANSWER).expect("server_pos");
    assert_eq!(at_spawn["source"], "querytarget", "{at_spawn}");
    assert_eq!(at_spawn["serverPos"], json!({"x": 0.5, "y": -60.0, "z": 0.5}), "{at_spawn}");
    assert!(at_spawn["ageTicks"].as_u64().is_some_and(|t| t < 20), "{at_spawn}");
    assert_eq!(at_spawn["lastServerPos"]["source"], "start", "spawn is the last position the server sent: {at_spawn}");
    let asked = peer.packets_named("command_request");
    assert_eq!(asked.len(), 1, "{asked:?}");
    assert_eq!(asked[0]["params"]["command"], "/querytarget @s");

    // Walk 6 blocks east: the server's view moves with the bot; the last position it *sent*
    // (the spawn) does not, and is not presented as its view.
    let r = bot.request(json!({"action": "walk", "x": 6.5, "y": -60, "z": 0.5}), ANSWER).expect("walk");
    let id = r["id"].clone();
    let done = bot.wait(|v| v["type"] == "walk_done" && v["id"] == id, Duration::from_secs(30)).expect("walk_done");
    assert_eq!(done["status"], "done", "{done}");
    // Let the last inputs of the walk reach the peer (it logs one authoritative position per input).
    let n = peer.packets().len();
    assert!(peer.wait_log(|p| p.len() > n + 5, ANSWER));
    let moved = bot.request(json!({"action": "server_pos"}), ANSWER).expect("server_pos");
    let (px, py, pz) = peer_position(&peer);
    let s = &moved["serverPos"];
    assert!((num(&s["x"]) - px).abs() < 0.05 && (num(&s["z"]) - pz).abs() < 0.05, "the peer's own {px},{pz}: {moved}");
    assert!((num(&s["y"]) - py).abs() < 0.05, "feet, not eye: {moved}");
    assert!(num(&s["x"]) > 6.0, "the server's view moved: {moved}");
    assert!(num(&moved["drift"]) < 0.1, "{moved}");
    assert_eq!(moved["lastServerPos"]["pos"], json!({"x": 0.5, "y": -60.0, "z": 0.5}), "{moved}");
    assert!(moved["lastServerPos"]["ageTicks"].as_u64().is_some_and(|t| t > 20), "{moved}");
}

#[test]
fn server_pos_names_why_the_server_cannot_answer() {
    // A server that does not run /querytarget for the bot (unknown, or no permission).
    let peer = Peer::start_args("flat", &["--querytarget", "unknown"]);
    let mut bot = Bot::start(peer.port, "NoPermBot");
    bot.wait_event("spawn", SPAWN_TIMEOUT).expect("spawn");
    let e = bot.request(json!({"action": "server_pos"}), ANSWER).expect("answer");
    assert_eq!(e["code"], "REJECTED", "{e}");
    let text = e["error"].as_str().unwrap_or_default();
    assert!(text.contains("/querytarget") && text.contains("permission"), "{text}");
    assert!(e.get("serverPos").is_none(), "no position presented as the server's: {e}");

    // A server that never answers it.
    let peer = Peer::start_args("flat", &["--querytarget", "silent"]);
    let mut bot = Bot::start(peer.port, "SilentBot");
    bot.wait_event("spawn", SPAWN_TIMEOUT).expect("spawn");
    let sent = std::time::Instant::now();
    let e = bot.request(json!({"action": "server_pos"}), ANSWER).expect("answer");
    assert_eq!(e["code"], "TIMEOUT", "{e}");
    assert!(e["error"].as_str().unwrap_or_default().contains("no answer"), "{e}");
    assert!(sent.elapsed() >= Duration::from_secs(4), "waited for the server: {:?}", sent.elapsed());
}

#[test]
fn a_cmd_without_output_is_sent_with_a_warning_and_an_unsendable_one_is_an_error() {
    let peer = Peer::start_args("flat", &["--querytarget", "silent"]);
    let mut bot = Bot::start(peer.port, "CmdBot");
    bot.wait_event("spawn", SPAWN_TIMEOUT).expect("spawn");
    let r = bot.request(json!({"action": "cmd", "cmd": "querytarget @s"}), ANSWER).expect("answer");
    assert!(r.get("code").is_none(), "a success: {r}");
    assert_eq!(
        (r["cmd"].clone(), r["output"].clone(), r["sent"].clone()),
        (json!("/querytarget @s"), Value::Null, json!(true))
    );
    assert!(r["warnings"][0].as_str().is_some_and(|w| w.contains("no output")), "{r}");
    assert!(peer.packets_named("command_request").iter().any(|c| c["params"]["command"] == "/querytarget @s"));
    // `command` is an alias; the peer answers /list with output.
    let r = bot.request(json!({"action": "cmd", "command": "/list"}), ANSWER).expect("answer");
    assert_eq!(r["success"], true, "{r}");
    assert!(r["output"].as_array().is_some_and(|o| !o.is_empty()), "{r}");
    // Not sendable: an error, nothing sent.
    let before = peer.packets_named("command_request").len();
    let e = bot.request(json!({"action": "cmd", "cmd": "  "}), ANSWER).expect("answer");
    assert_eq!(e["code"], "INVALID_PARAMS", "{e}");
    let e = bot.request(json!({"action": "cmd", "cmd": "x".repeat(600)}), ANSWER).expect("answer");
    assert_eq!(e["code"], "OUT_OF_RANGE", "{e}");
    // A later command's answer means everything sent before it reached the peer.
    bot.request(json!({"action": "cmd", "cmd": "/list"}), ANSWER).expect("answer");
    assert_eq!(peer.packets_named("command_request").len(), before + 1, "nothing went out for the bad ones");
}
