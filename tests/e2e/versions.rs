//! The version matrix: the real binary against the bedrock-protocol peer serving each supported
//! Bedrock version. The full end-to-end suite runs at the default version; here every version
//! gets a smoke test of the capabilities end to end — the version picked from the pong, login,
//! spawn, the world (BDS-like: hashed ids, sub-chunk requests, the mixed map), the living world's
//! players and chat, a chat message sent — with no packet either side failed to decode. A server
//! outside the list is refused with a reason naming what it runs.

use crate::common;

use std::time::{Duration, Instant};

use clawcraft::protocol::codec::Protocol;
use common::{Bot, Peer};
use serde_json::{Value, json};

const SPAWN_TIMEOUT: Duration = Duration::from_secs(40);
const ANSWER: Duration = Duration::from_secs(10);

/// One smoke test and one `clawcraft doctor` test per supported version (the list must name
/// them all: see the test below).
macro_rules! matrix {
    ($($smoke:ident, $doctor:ident => $version:literal),* $(,)?) => {
        $(#[test]
        fn $smoke() {
            smoke_test($version);
        }
        #[test]
        fn $doctor() {
            doctor_test($version);
        })*
        const MATRIX: &[&str] = &[$($version),*];
    };
}

matrix! {
    smoke_1_26_20, doctor_1_26_20 => "1.26.20",
    smoke_1_26_30, doctor_1_26_30 => "1.26.30",
    smoke_1_26_45, doctor_1_26_45 => "1.26.45",
    smoke_1_26_60, doctor_1_26_60 => "1.26.60",
}

#[test]
fn the_matrix_covers_every_supported_version() {
    let supported: Vec<&str> = Protocol::versions().iter().map(|v| v.game_version).collect();
    assert_eq!(MATRIX, supported.as_slice(), "add the new version to the smoke! list");
}

/// Polls `block` until the sub-chunk arrived (the bot requests sub-chunks after the LevelChunk).
fn block_at(bot: &mut Bot, x: i64, y: i64, z: i64) -> Value {
    let deadline = Instant::now() + ANSWER;
    loop {
        let r = bot.request(json!({"action": "block", "x": x, "y": y, "z": z}), ANSWER).expect("block response");
        if r["loaded"] == true || Instant::now() > deadline {
            return r;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}

fn smoke_test(version: &str) {
    let info = Protocol::versions().iter().find(|v| v.game_version == version).copied().expect("supported");
    let peer = Peer::start_args(
        "living",
        &["--version", version, "--world", "mixed", "--chunks", "request", "--block-hashes"],
    );
    let mut bot = Bot::start(peer.port, "ClawBot");
    bot.wait_event("spawn", SPAWN_TIMEOUT).unwrap_or_else(|| panic!("{version}: no spawn; saw {:?}", bot.seen));

    // The version came from the server's pong.
    let status = bot.request(json!({"action": "status"}), ANSWER).expect("status");
    assert_eq!(status["bedrock"]["gameVersion"], version, "{status}");
    assert_eq!(status["bedrock"]["protocol"], info.protocol, "{status}");
    assert_eq!(status["bedrock"]["source"], "pong", "{status}");
    assert_eq!(status["supportedVersions"].as_array().map(Vec::len), Some(Protocol::versions().len()));

    // World: blocks of the mixed map, delivered by sub-chunk requests with hashed ids (states of
    // blocks whose state keys differ between versions are not compared).
    let wall = block_at(&mut bot, 3, -60, -2);
    assert_eq!(wall["block"]["name"], "minecraft:stone", "{version}: {wall}");
    let door = block_at(&mut bot, 3, -60, 0);
    assert_eq!(door["block"]["name"], "minecraft:wooden_door", "{version}: {door}");
    assert_eq!(door["block"]["properties"]["open_bit"], false, "{version}: {door}");
    let ground = block_at(&mut bot, 0, -61, 0);
    assert_eq!(ground["block"]["name"], "minecraft:grass_block", "{version}: {ground}");

    // Living world: the roster, a player in view, chat in, chat out.
    assert!(bot.wait(|v| v["type"] == "player_join" && v["name"] == "Alice", ANSWER).is_some(), "{version}: roster");
    assert!(bot.wait(|v| v["type"] == "player_appear" && v["name"] == "Bob", ANSWER).is_some(), "{version}: Bob");
    let heard = bot.wait(|v| v["type"] == "msg" && v["from"] == "Alice" && v["msg"] == "hi everyone", ANSWER);
    assert!(heard.is_some(), "{version}: chat in");
    let said = format!("hello from {version}");
    let r = bot.request(json!({"action": "chat", "message": said}), ANSWER).expect("chat response");
    assert!(r.get("error").is_none(), "{r}");
    let sent = peer.wait_log(|log| log.iter().any(|p| p["name"] == "text" && p["params"]["message"] == said), ANSWER);
    assert!(sent, "{version}: the peer decoded our chat");

    // Movement input decodes too, every tick, in this version's layout.
    assert!(peer.wait_log(|log| log.iter().filter(|p| p["name"] == "player_auth_input").count() > 20, ANSWER));
    let bad: Vec<Value> = peer
        .packets()
        .into_iter()
        .filter(|p| p["name"] == "__decode_error" || p["name"] == "__error" || p.get("trailing_bytes").is_some())
        .collect();
    assert!(bad.is_empty(), "{version}: the peer failed to decode: {bad:?}");

    bot.close_stdin();
    let status = bot.wait_exit(ANSWER).expect("exits");
    assert!(status.success(), "{version}: exit {status:?}");
}

/// `clawcraft doctor` against the peer serving `version` (BDS-like world): one JSON report on
/// stdout saying all is well, the summary on stderr, exit 0.
fn doctor_test(version: &str) {
    let info = Protocol::versions().iter().find(|v| v.game_version == version).copied().expect("supported");
    let peer = Peer::start_args("bds", &["--version", version]);
    let port = peer.port.to_string();
    let out = common::run_tool(
        &["doctor", "--duration", "2", "--spawn-timeout", "40"],
        &[("HOST", "127.0.0.1"), ("PORT", &port), ("USERNAME", "DoctorBot")],
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    let report: Value = serde_json::from_str(stdout.trim()).unwrap_or_else(|e| panic!("{version}: {e}: {stdout}"));
    assert_eq!(stdout.trim().lines().count(), 1, "one JSON line: {stdout}");
    assert_eq!(report["ok"], true, "{version}: {report}");
    assert!(out.status.success(), "{version}: exit {:?}", out.status);
    assert_eq!(report["version"]["gameVersion"], version);
    assert_eq!(report["version"]["protocol"], info.protocol);
    assert_eq!(report["version"]["source"], "pong");
    assert_eq!(report["version"]["server"]["protocol"], info.protocol);
    assert_eq!(report["login"]["mode"], "offline");
    assert!(report["connectToSpawnMs"].as_u64().is_some_and(|ms| ms > 0 && ms < 40_000), "{report}");
    let w = &report["world"];
    assert!(w["columns"].as_u64().is_some_and(|c| c > 100), "{report}");
    assert!(w["subChunks"].as_u64().is_some_and(|c| c > 100), "sub-chunk requests answered: {report}");
    assert_eq!(w["resolvedShare"], 1.0, "every hashed block id named: {report}");
    assert!(w["blockIds"].as_u64().is_some_and(|n| n > 5), "{report}");
    assert_eq!(report["standingStill"]["corrections"], 0);
    assert!(report["standingStill"]["seconds"].as_f64().is_some_and(|s| s >= 2.0));
    assert_eq!(report["commands"]["answered"], true, "{report}");
    assert_eq!(report["decodeErrors"]["count"], 0);
    assert_eq!(report["problems"], json!([]));
    assert!(stderr.contains("clawcraft doctor: OK"), "{stderr}");
    // Read-only: the doctor moved nowhere and said nothing but the probe.
    assert!(peer.packets_named("text").is_empty(), "no chat");
    let commands = peer.packets_named("command_request");
    assert_eq!(commands.len(), 1);
    assert_eq!(commands[0]["params"]["command"], "/list");
}

/// The doctor against a server outside the list: a report naming the problem, exit 1.
#[test]
fn doctor_reports_an_unsupported_server() {
    let peer = Peer::start_args("flat", &["--version", "1.26.10"]);
    let port = peer.port.to_string();
    let out = common::run_tool(&["doctor", "--duration", "1"], &[("HOST", "127.0.0.1"), ("PORT", &port)]);
    let report: Value = serde_json::from_slice(&out.stdout).expect("one JSON report");
    assert_eq!(out.status.code(), Some(1), "{report}");
    assert_eq!(report["ok"], false);
    let problems = report["problems"].to_string();
    assert!(problems.contains("1.26.10") && problems.contains("944"), "{report}");
    assert!(report["connectToSpawnMs"].is_null());
}

/// A server outside the supported list (bedrock-protocol serving 1.26.10, protocol 944) is
/// refused before login with a reason naming its version and ours; the bot exits 2.
#[test]
fn an_unsupported_server_is_refused_with_both_versions_named() {
    let peer = Peer::start_args("flat", &["--version", "1.26.10"]);
    let mut bot = Bot::start(peer.port, "ClawBot");
    let gone = bot.wait_event("disconnected", SPAWN_TIMEOUT).expect("disconnected");
    let reason = gone["reason"].as_str().unwrap_or_default().to_owned();
    assert!(reason.contains("1.26.10") && reason.contains("944"), "{reason}");
    for v in Protocol::versions() {
        assert!(reason.contains(v.game_version), "{reason} names {}", v.game_version);
    }
    assert!(bot.seen.iter().all(|v| v["type"] != "ready"), "never logged in");
    let status = bot.wait_exit(ANSWER).expect("exits");
    assert_eq!(status.code(), Some(2));
    assert!(peer.packets_named("login").is_empty(), "no login was attempted");
}

/// `--game-version` forces a version: the bot speaks it whatever the pong says. Against an older
/// server the login is refused by the server (vanilla behaviour), and the bot says so.
#[test]
fn a_forced_version_is_spoken_even_against_the_pong() {
    let versions = Protocol::versions();
    let (oldest, newest) = (versions[0], versions[versions.len() - 1]);
    let peer = Peer::start_args("flat", &["--version", oldest.game_version]);
    let mut bot = Bot::start_with(peer.port, "ClawBot", &[("CLAWCRAFT_GAME_VERSION", newest.game_version)]);
    let gone = bot.wait_event("disconnected", SPAWN_TIMEOUT).expect("refused by the server");
    let asked = peer.packets_named("request_network_settings");
    assert_eq!(asked[0]["params"]["client_protocol"], newest.protocol, "spoke the forced version");
    let reason = gone["reason"].as_str().unwrap_or_default();
    assert!(reason.contains("refused the login") && reason.contains("older"), "{reason}");
    assert!(bot.seen.iter().all(|v| v["type"] != "spawn"), "{gone}");
    assert_eq!(bot.wait_exit(ANSWER).expect("exits").code(), Some(2));
}
