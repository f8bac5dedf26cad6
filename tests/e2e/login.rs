//! End-to-end: the real `clawcraft` binary against the bedrock-protocol peer on loopback.

use crate::common;

use std::time::Duration;

use common::{Bot, Peer};
use serde_json::{Value, json};

const SPAWN_TIMEOUT: Duration = Duration::from_secs(30);

fn as_f64(v: &Value) -> f64 {
    v.as_f64().or_else(|| v.as_str().and_then(|s| s.parse().ok())).unwrap_or(f64::NAN)
}

fn as_u64(v: &Value) -> u64 {
    v.as_u64().or_else(|| v.as_str().and_then(|s| s.parse().ok())).unwrap_or(u64::MAX)
}

#[test]
fn logs_in_spawns_streams_input_and_leaves_cleanly() {
    let peer = Peer::start("flat");
    let mut bot = Bot::start(peer.port, "E2eBot");

    let startup = bot.wait_event("startup", Duration::from_secs(10)).expect("startup event");
    assert_eq!(startup["version"], env!("CARGO_PKG_VERSION"));
    bot.wait_event("ready", SPAWN_TIMEOUT).expect("ready event");
    let spawn = bot.wait_event("spawn", SPAWN_TIMEOUT).expect("spawn event");
    assert!(spawn["timestamp"].as_u64().is_some() && spawn["seq"].as_u64().is_some());

    // What the server saw: our login with our name and protocol, the encrypted handshake, init.
    let logins = peer.packets_named("login");
    assert_eq!(logins.len(), 1, "exactly one login: {logins:?}");
    assert_eq!(logins[0]["username"], "E2eBot");
    assert_eq!(as_u64(&logins[0]["protocol_version"]), common::test_version().protocol as u64);
    assert!(peer.wait_log(|p| p.iter().any(|x| x["name"] == "client_to_server_handshake"), Duration::from_secs(5)));
    assert!(
        peer.wait_log(|p| p.iter().any(|x| x["name"] == "set_local_player_as_initialized"), Duration::from_secs(5)),
        "SetLocalPlayerAsInitialized reached the server"
    );

    // `pos` reports feet at the peer's spawn point (the wire carries the eye, 1.62 higher).
    let pos = bot.request(json!({"action": "pos"}), Duration::from_secs(5)).expect("pos response");
    assert_eq!(pos["pos"], json!({"x": 0.5, "y": -60.0, "z": 0.5}), "{pos}");
    let status = bot.request(json!({"action": "status"}), Duration::from_secs(5)).expect("status");
    assert_eq!(status["spawned"], true);
    assert_eq!(status["username"], "E2eBot");

    // Inputs: at 20 Hz, ≥ 95 in any 5 s window, ticks exactly +1, positions at eye level.
    let first_t = {
        assert!(peer.wait_log(|p| p.iter().any(|x| x["name"] == "player_auth_input"), Duration::from_secs(5)));
        as_f64(&peer.packets_named("player_auth_input")[0]["t"])
    };
    assert!(
        peer.wait_log(
            |p| p.iter().filter(|x| x["name"] == "player_auth_input").any(|x| as_f64(&x["t"]) >= first_t + 5_100.0),
            Duration::from_secs(10)
        ),
        "inputs keep flowing for 5 s"
    );
    let inputs: Vec<Value> = peer.packets_named("player_auth_input");
    let window: Vec<&Value> = inputs.iter().filter(|x| as_f64(&x["t"]) < first_t + 5_000.0).collect();
    assert!(window.len() >= 95, "only {} PlayerAuthInput in 5 s", window.len());
    let ticks: Vec<u64> = inputs.iter().map(|x| as_u64(&x["params"]["tick"])).collect();
    for pair in ticks.windows(2) {
        assert_eq!(pair[1], pair[0] + 1, "input ticks must rise by exactly 1: {ticks:?}");
    }
    let eye_y = as_f64(&inputs[0]["params"]["position"]["y"]);
    assert!((eye_y - (-60.0 + 1.62)).abs() < 1e-3, "input position is the eye: {eye_y}");

    // EOF on stdin: DisconnectionNotification, `shutdown`, exit 0.
    bot.close_stdin();
    let status = bot.wait_exit(Duration::from_secs(10)).expect("bot exits after stdin EOF");
    assert!(status.success(), "exit status {status:?}");
    assert!(bot.seen.iter().any(|v| v["type"] == "shutdown"), "shutdown event");
    // stdout: every event once, seq rising by exactly one; every response once.
    let seqs: Vec<u64> =
        bot.seen.iter().filter(|v| v["type"] != "response").filter_map(|v| v["seq"].as_u64()).collect();
    assert!(seqs.windows(2).all(|w| w[1] == w[0] + 1), "event seqs: {seqs:?}");
    let ids: Vec<&Value> = bot.seen.iter().filter(|v| v["type"] == "response").map(|v| &v["id"]).collect();
    let mut unique = ids.clone();
    unique.dedup();
    assert_eq!(ids.len(), unique.len(), "no response printed twice: {ids:?}");
    assert!(
        peer.wait_log(
            |p| p.iter().any(|x| x["name"] == "__disconnect" && x["reason"] == "disconnection_notification"),
            Duration::from_secs(5)
        ),
        "peer saw a clean disconnect: {:?}",
        peer.packets_named("__disconnect")
    );
}

#[test]
fn a_kick_becomes_a_disconnected_event_with_the_servers_message() {
    let peer = Peer::start("kick");
    let mut bot = Bot::start(peer.port, "KickedBot");
    bot.wait_event("spawn", SPAWN_TIMEOUT).expect("spawn before the kick");
    let ev = bot.wait_event("disconnected", Duration::from_secs(15)).expect("disconnected event");
    assert_eq!(ev["reason"], "Kicked by test peer");
    let status = bot.wait_exit(Duration::from_secs(10)).expect("bot exits after a kick");
    assert!(!status.success(), "a lost connection exits non-zero");
}

#[test]
fn a_bad_checksum_is_refused_cleanly() {
    let peer = Peer::start("bad-checksum");
    let mut bot = Bot::start(peer.port, "ChecksumBot");
    let ev = bot.wait_event("disconnected", Duration::from_secs(30)).expect("disconnected event");
    let reason = ev["reason"].as_str().unwrap_or_default().to_lowercase();
    assert!(reason.contains("checksum"), "reason names the checksum: {reason}");
    assert!(bot.seen.iter().all(|v| v["type"] != "spawn"), "never spawned on a corrupt stream");
    let status = bot.wait_exit(Duration::from_secs(10)).expect("bot exits");
    assert!(!status.success());
}

#[test]
fn a_refused_connection_exits_non_zero_after_its_event() {
    // Nothing listens on this port: RakNet gives up and the bot reports it.
    let port = common::free_udp_port();
    let mut bot = Bot::start(port, "LonelyBot");
    let ev = bot.wait_event("disconnected", Duration::from_secs(30)).expect("disconnected event");
    assert!(ev["reason"].as_str().is_some());
    let status = bot.wait_exit(Duration::from_secs(10)).expect("bot exits");
    assert!(!status.success());
}

#[test]
fn bad_lines_get_errors_and_the_bot_keeps_running() {
    let peer = Peer::start("flat");
    let mut bot = Bot::start(peer.port, "LineBot");
    bot.wait_event("spawn", SPAWN_TIMEOUT).expect("spawn");
    bot.send_line("{not json");
    let e = bot.wait(|v| v["code"] == "INVALID_JSON", Duration::from_secs(5)).expect("invalid json error");
    assert_eq!(e["type"], "response");
    let e = bot.request(json!({"action": "stauts"}), Duration::from_secs(5)).expect("unknown action error");
    assert_eq!(e["code"], "UNKNOWN_ACTION");
    assert!(e["error"].as_str().unwrap_or_default().contains("status"), "suggests status: {e}");
    let pos = bot.request(json!({"action": "pos"}), Duration::from_secs(5)).expect("still answering");
    assert!(pos["pos"].is_object());
}

#[test]
fn a_server_teleport_is_adopted_and_acknowledged_on_the_wire() {
    let mut peer = Peer::start("teleport");
    let mut bot = Bot::start(peer.port, "TeleportBot");
    bot.wait_event("spawn", SPAWN_TIMEOUT).expect("spawn");
    peer.wait_line(|v| v["event"] == "teleport_sent", Duration::from_secs(10)).expect("peer teleported us");
    // The next inputs carry the new eye position and, once, handled_teleport.
    let acked = peer.wait_log(
        |p| {
            p.iter().filter(|x| x["name"] == "player_auth_input").any(|x| {
                // bedrock-protocol logs the flags as a list of names (1.26.40+) or, for the
                // older bitset, as an object of booleans.
                let flags = &x["params"]["input_data"];
                flags.as_array().is_some_and(|f| f.iter().any(|n| n == "handled_teleport"))
                    || flags["handled_teleport"] == true
            })
        },
        Duration::from_secs(5),
    );
    assert!(acked, "an input with handled_teleport reached the server");
    let last = peer.packets_named("player_auth_input").pop().expect("inputs");
    assert!((as_f64(&last["params"]["position"]["x"]) - 10.5).abs() < 1e-3, "{last}");
    assert!((as_f64(&last["params"]["position"]["z"]) - 3.5).abs() < 1e-3);
    let pos = bot.request(json!({"action": "pos"}), Duration::from_secs(5)).expect("pos");
    assert_eq!(pos["pos"], json!({"x": 10.5, "y": -60.0, "z": 3.5}));
}

#[test]
fn sigterm_leaves_politely_and_exits_zero() {
    let peer = Peer::start("flat");
    let mut bot = Bot::start(peer.port, "TermBot");
    bot.wait_event("spawn", SPAWN_TIMEOUT).expect("spawn");
    let status = std::process::Command::new("kill").args(["-TERM", &bot.pid().to_string()]).status().expect("kill");
    assert!(status.success());
    let exit = bot.wait_exit(Duration::from_secs(10)).expect("bot exits on SIGTERM");
    assert!(exit.success(), "exit status {exit:?}");
    assert!(bot.seen.iter().any(|v| v["type"] == "shutdown"), "shutdown event");
    assert!(
        peer.wait_log(
            |p| p.iter().any(|x| x["name"] == "__disconnect" && x["reason"] == "disconnection_notification"),
            Duration::from_secs(5)
        ),
        "the server saw DisconnectionNotification"
    );
}

#[test]
fn with_reconnect_a_kicked_bot_comes_back() {
    let peer = Peer::start("kick");
    let mut bot = Bot::start_with(peer.port, "PhoenixBot", &[("CLAWCRAFT_RECONNECT", "true")]);
    bot.wait_event("spawn", SPAWN_TIMEOUT).expect("first spawn");
    bot.wait_event("disconnected", Duration::from_secs(15)).expect("kicked");
    let r = bot.wait_event("reconnecting", Duration::from_secs(5)).expect("reconnecting event");
    assert_eq!((r["attempt"].as_u64(), r["delay"].as_u64()), (Some(1), Some(1)), "{r}");
    let back = bot.wait_event("reconnected", SPAWN_TIMEOUT).expect("reconnected event");
    assert_eq!(back["attempt"], 1);
    let spawns = bot.seen.iter().filter(|v| v["type"] == "spawn").count();
    assert_eq!(spawns, 2, "spawned again on a fresh session");
    assert_eq!(peer.packets_named("login").len(), 2, "the server saw a second login");
    // One bot entity at a time: the old session's entity is gone, status speaks for the new one.
    let status = bot.request(json!({"action": "status"}), Duration::from_secs(5)).expect("status");
    assert_eq!(status["username"], "PhoenixBot", "{status}");
    bot.close_stdin();
    let exit = bot.wait_exit(Duration::from_secs(10)).expect("exits on EOF");
    assert!(exit.success(), "{exit:?}");
}

/// The offline shape a logged `login` line carried: `token` (the self-signed multiplayer token,
/// an empty chain) or `chain` (one self-signed link carrying `extraData`).
fn login_shape(login: &Value) -> &'static str {
    let identity = &login["params"]["tokens"]["identity"];
    let token = identity["Token"].as_str().unwrap_or_default();
    let chain: Value = serde_json::from_str(identity["Certificate"].as_str().unwrap_or("{}")).unwrap_or(Value::Null);
    let links: Vec<&str> =
        chain["chain"].as_array().map(|c| c.iter().filter_map(Value::as_str).collect()).unwrap_or_default();
    assert_eq!(identity["AuthenticationType"], 2, "offline: {identity}");
    match (token.is_empty(), links.as_slice()) {
        (false, [""]) => "token",
        (true, [link]) if !link.is_empty() => "chain",
        _ => panic!("neither shape: {identity}"),
    }
}

/// `--offline-login token|chain` sends exactly that shape, and bedrock-protocol's server accepts
/// both (its verifier reads the chain's `extraData` when there is no token).
#[test]
fn either_offline_shape_logs_in_on_the_peer() {
    for shape in ["token", "chain"] {
        let peer = Peer::start("flat");
        let mut bot = Bot::start_with(peer.port, "ShapeBot", &[("CLAWCRAFT_OFFLINE_LOGIN", shape)]);
        bot.wait_event("spawn", SPAWN_TIMEOUT).unwrap_or_else(|| panic!("{shape}: spawn"));
        let logins = peer.packets_named("login");
        assert_eq!(logins.len(), 1, "{shape}: {logins:?}");
        assert_eq!(login_shape(&logins[0]), shape);
        assert_eq!(logins[0]["username"], "ShapeBot", "{shape}: the server read our name from it");
        bot.close_stdin();
        assert!(bot.wait_exit(Duration::from_secs(10)).expect("exits").success());
    }
}

/// `auto` against a server that reads only the chain (as SerenityJS): the token login is refused
/// for its identity, the bot logs in again with the chain — no `disconnected` in between — and a
/// later connection in the same process (a reconnect after a kick) sends the chain first.
#[test]
fn auto_retries_a_refused_token_login_with_the_chain_and_remembers_it() {
    let mut peer = Peer::start_args("kick", &["--refuse-login", "token"]);
    let mut bot = Bot::start_with(peer.port, "RetryBot", &[("CLAWCRAFT_RECONNECT", "true")]);
    bot.wait_event("spawn", SPAWN_TIMEOUT).expect("spawned after the retry");
    peer.wait_line(|v| v["event"] == "login_shape_refused" && v["shape"] == "token", Duration::from_secs(5))
        .expect("the peer refused the token login");
    let shapes: Vec<&str> = peer.packets_named("login").iter().map(login_shape).collect();
    assert_eq!(shapes, ["token", "chain"], "vanilla's shape first, then the other one once");
    assert!(bot.seen.iter().all(|v| v["type"] != "disconnected"), "the retry is not the agent's business");
    // Kicked, then back: the remembered shape goes first, nothing is refused.
    bot.wait_event("disconnected", Duration::from_secs(15)).expect("kicked");
    bot.wait_event("reconnected", SPAWN_TIMEOUT).expect("reconnected");
    let shapes: Vec<&str> = peer.packets_named("login").iter().map(login_shape).collect();
    assert_eq!(shapes, ["token", "chain", "chain"], "the accepted shape was remembered");
}

/// `auto` against a server that reads only the token: vanilla's shape is accepted at once. A
/// shape given explicitly is never retried: refused, the bot reports the server's reason.
#[test]
fn auto_sends_vanillas_shape_first_and_an_explicit_shape_is_not_retried() {
    let peer = Peer::start_args("flat", &["--refuse-login", "chain"]);
    let mut bot = Bot::start(peer.port, "AutoBot");
    bot.wait_event("spawn", SPAWN_TIMEOUT).expect("spawn");
    let shapes: Vec<&str> = peer.packets_named("login").iter().map(login_shape).collect();
    assert_eq!(shapes, ["token"]);
    bot.close_stdin();
    assert!(bot.wait_exit(Duration::from_secs(10)).expect("exits").success());

    let peer = Peer::start_args("flat", &["--refuse-login", "token"]);
    let mut bot = Bot::start_with(peer.port, "TokenOnly", &[("CLAWCRAFT_OFFLINE_LOGIN", "token")]);
    let gone = bot.wait_event("disconnected", SPAWN_TIMEOUT).expect("refused");
    let reason = gone["reason"].as_str().unwrap_or_default();
    assert!(reason.contains("missing extraData"), "the server's own reason: {reason}");
    assert_eq!(bot.wait_exit(Duration::from_secs(10)).expect("exits").code(), Some(2));
    assert!(peer.wait_log(|p| p.iter().filter(|x| x["name"] == "login").count() == 1, Duration::from_secs(3)));
    assert_eq!(peer.packets_named("login").len(), 1, "no second login");
}

/// `clawcraft doctor` says which shape the server accepted, and which it refused first.
#[test]
fn doctor_reports_the_accepted_offline_shape() {
    let peer = Peer::start_args("bds", &["--refuse-login", "token"]);
    let port = peer.port.to_string();
    let out = common::run_tool(
        &["doctor", "--duration", "1", "--spawn-timeout", "40"],
        &[("HOST", "127.0.0.1"), ("PORT", &port), ("USERNAME", "DoctorShape")],
    );
    let report: Value = serde_json::from_slice(&out.stdout).expect("one JSON report");
    assert_eq!(report["ok"], true, "{report}");
    let login = &report["login"];
    assert_eq!((login["mode"].clone(), login["setting"].clone()), (json!("offline"), json!("auto")), "{report}");
    assert_eq!(login["offlineShape"], "chain", "{report}");
    assert_eq!(login["refusedFirst"]["shape"], "token", "{report}");
    assert!(login["refusedFirst"]["reason"].as_str().is_some_and(|r| r.contains("extraData")), "{report}");
}
