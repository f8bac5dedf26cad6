//! The version matrix: the real binary against the bedrock-protocol peer serving each supported
//! Bedrock version. The full end-to-end suite runs at the default version; here every version
//! gets a smoke test of the capabilities end to end — the version picked from the pong, login,
//! spawn, the world (BDS-like: hashed ids, sub-chunk requests, the mixed map), the living world's
//! players and chat, a chat message sent — with no packet either side failed to decode. A server
//! outside the list is refused with a reason naming what it runs.

mod common;

use std::time::{Duration, Instant};

use clawcraft::protocol::codec::Protocol;
use common::{Bot, Peer};
use serde_json::{Value, json};

const SPAWN_TIMEOUT: Duration = Duration::from_secs(40);
const ANSWER: Duration = Duration::from_secs(10);

/// One smoke test per supported version (the list must name them all: see the test below).
macro_rules! smoke {
    ($($name:ident => $version:literal),* $(,)?) => {
        $(#[test]
        fn $name() {
            smoke_test($version);
        })*
        const MATRIX: &[&str] = &[$($version),*];
    };
}

smoke! {
    smoke_1_26_20 => "1.26.20",
    smoke_1_26_30 => "1.26.30",
    smoke_1_26_45 => "1.26.45",
    smoke_1_26_60 => "1.26.60",
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
