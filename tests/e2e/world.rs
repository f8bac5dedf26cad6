//! End-to-end world perception: the real `clawcraft` binary against the bedrock-protocol peer,
//! in both block id modes (palette indices, FNV-1a hashes) and both chunk modes (full
//! LevelChunks, BDS-like sub-chunk requests). Expected blocks come from the peer's own map file,
//! `tests/peer/maps/mixed.json`, so the test and the peer cannot drift apart.

use crate::common;

use std::collections::BTreeSet;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::Receiver;
use std::time::{Duration, Instant};

use common::{Bot, ensure_peer_installed, free_udp_port, repo_root};
use serde_json::{Map, Value, json};

const SPAWN_TIMEOUT: Duration = Duration::from_secs(40);
const ANSWER: Duration = Duration::from_secs(10);

/// The peer started with explicit options (the shared `Peer` only takes a scenario).
struct WorldPeer {
    child: Child,
    port: u16,
    _lines: Receiver<Value>,
}

impl WorldPeer {
    fn start(args: &[&str]) -> WorldPeer {
        ensure_peer_installed();
        let port = free_udp_port();
        let mut child = Command::new("node")
            .arg(repo_root().join("tests/peer/server.js"))
            .args(["--port", &port.to_string()])
            .args(args)
            // The whole suite can run at another version (see common::Peer::start_with).
            .args(std::env::var("CLAWCRAFT_TEST_VERSION").map(|v| vec!["--version".to_owned(), v]).unwrap_or_default())
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("starting node tests/peer/server.js");
        let (tx, rx) = std::sync::mpsc::channel();
        let stdout = child.stdout.take().expect("stdout");
        std::thread::spawn(move || {
            use std::io::BufRead;
            for line in std::io::BufReader::new(stdout).lines().map_while(Result::ok) {
                let v = serde_json::from_str::<Value>(&line).unwrap_or(Value::Null);
                if tx.send(v).is_err() {
                    break;
                }
            }
        });
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let line = rx.recv_timeout(left).expect("peer listening");
            if line["event"] == "listening" {
                break;
            }
        }
        WorldPeer { child, port, _lines: rx }
    }
}

impl Drop for WorldPeer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// One expected block of the map: position, name with namespace, states as in the map file.
#[derive(Debug, Clone)]
struct Expected {
    pos: [i64; 3],
    name: String,
    states: Map<String, Value>,
    layer1: Option<String>,
}

fn map() -> Value {
    let text = std::fs::read_to_string(repo_root().join("tests/peer/maps/mixed.json")).expect("mixed.json");
    serde_json::from_str(&text).expect("mixed.json is JSON")
}

fn pos_of(v: &Value) -> [i64; 3] {
    [v["x"].as_i64().expect("x"), v["y"].as_i64().expect("y"), v["z"].as_i64().expect("z")]
}

fn namespaced(name: &str) -> String {
    format!("minecraft:{name}")
}

/// The block the map puts at `pos` (`blocks`, then `fills`, then the base layers, else air).
fn expected_at(map: &Value, pos: [i64; 3], mixed: bool) -> Expected {
    let air = || Expected { pos, name: namespaced("air"), states: Map::new(), layer1: None };
    let entry = |b: &Value| Expected {
        pos,
        name: namespaced(b["name"].as_str().expect("name")),
        states: b["states"].as_object().cloned().unwrap_or_default(),
        layer1: b.get("layer1").map(|l| namespaced(l["name"].as_str().expect("layer1 name"))),
    };
    if mixed {
        if let Some(b) = map["blocks"].as_array().expect("blocks").iter().find(|b| pos_of(b) == pos) {
            return entry(b);
        }
        for f in map["fills"].as_array().expect("fills") {
            let (a, b) = (pos_of(&f["from"]), pos_of(&f["to"]));
            if (0..3).all(|i| a[i] <= pos[i] && pos[i] <= b[i]) {
                return entry(f);
            }
        }
    }
    map["base_layers"]
        .as_array()
        .expect("base")
        .iter()
        .find(|l| l["y"].as_i64() == Some(pos[1]))
        .map_or_else(air, entry)
}

/// Whether a reported property value equals the map's (Bedrock byte flags are reported as booleans).
fn same_value(reported: &Value, expected: &Value) -> bool {
    match reported {
        Value::Bool(b) => expected.as_i64() == Some(i64::from(*b)),
        other => other == expected,
    }
}

fn check_block(bot: &mut Bot, e: &Expected, label: &str) {
    let [x, y, z] = e.pos;
    let r = bot.request(json!({"action":"block","x":x,"y":y,"z":z}), ANSWER).expect("block answer");
    assert_eq!(r["loaded"], true, "{label}: {e:?} loaded: {r}");
    assert_eq!(r["block"]["name"], json!(e.name), "{label}: {e:?}: {r}");
    let props = r["block"]["properties"].as_object().cloned().unwrap_or_default();
    // The map names every state key of its version (1.26.40 data); a later version may add keys
    // (1.26.60 stairs: `minecraft:corner`), which then take their default values.
    assert!(props.len() >= e.states.len(), "{label}: every state key of {e:?}: {r}");
    for (k, v) in &e.states {
        assert!(props.get(k).is_some_and(|p| same_value(p, v)), "{label}: {k} of {e:?}: {r}");
    }
    assert_eq!(r["liquid"]["name"].as_str().map(str::to_owned), e.layer1, "{label}: layer 1 of {e:?}: {r}");
}

/// Starts the peer and the bot and waits for spawn.
fn start_spawned(args: &[&str], name: &str) -> (WorldPeer, Bot) {
    let peer = WorldPeer::start(args);
    let mut bot = Bot::start(peer.port, name);
    bot.wait_event("spawn", SPAWN_TIMEOUT).expect("spawn event");
    (peer, bot)
}

/// Starts the peer and the bot, waits for spawn and for the spawn column's blocks.
fn start(args: &[&str], name: &str) -> (WorldPeer, Bot) {
    let (peer, mut bot) = start_spawned(args, name);
    wait_blocks(&mut bot);
    (peer, bot)
}

/// In request mode the blocks come after spawn; waits until spawn and the far pillar are in.
fn wait_blocks(bot: &mut Bot) {
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let here = bot.request(json!({"action":"block","x":0,"y":-61,"z":0}), ANSWER).expect("block answer");
        let far = bot.request(json!({"action":"block","x":90,"y":-40,"z":90}), ANSWER).expect("block answer");
        if here["loaded"] == true && far["loaded"] == true {
            break;
        }
        assert!(Instant::now() < deadline, "blocks never arrived: {here} {far}");
        std::thread::sleep(Duration::from_millis(100));
    }
}

fn cells(list: &Value) -> BTreeSet<([i64; 3], String)> {
    list.as_array().expect("list").iter().map(|c| (pos_of(c), c["name"].as_str().unwrap_or("").to_owned())).collect()
}

const COMMON: &[&str] = &["stone", "dirt", "grass_block", "bedrock", "deepslate"];

/// `scan`/`compact_scan` at spawn must list exactly the map's non-air cells of the box.
fn check_scan(bot: &mut Bot, map: &Value, mixed: bool, label: &str) {
    let r = bot.request(json!({"action":"scan","radius":4,"radiusY":2}), ANSWER).expect("scan");
    assert_eq!(r["origin"], json!({"x":0,"y":-60,"z":0}), "{label}");
    assert_eq!((r["total"].as_u64(), r["loaded"].as_bool(), r["unloaded"].as_u64()), (Some(405), Some(true), Some(0)));
    let mut want = BTreeSet::new();
    for y in -62..=-58 {
        for z in -4..=4 {
            for x in -4..=4 {
                let e = expected_at(map, [x, y, z], mixed);
                if e.name != "minecraft:air" {
                    want.insert((e.pos, e.name));
                }
            }
        }
    }
    let got: BTreeSet<_> = r["layers"].as_object().expect("layers").values().flat_map(cells).collect();
    assert_eq!(got, want, "{label}: scan layers");
    assert_eq!(r["totalNonAir"].as_u64(), Some(want.len() as u64));
    let notable: BTreeSet<_> =
        want.iter().filter(|(_, n)| !COMMON.contains(&n.trim_start_matches("minecraft:"))).cloned().collect();
    assert_eq!(cells(&r["notable"]), notable, "{label}: notable");
    let c = bot.request(json!({"action":"compact_scan","radius":4,"radiusY":2}), ANSWER).expect("compact_scan");
    assert_eq!(cells(&c["notable"]), notable, "{label}: compact notable");
    assert_eq!(c["notableCount"].as_u64(), Some(notable.len() as u64));
}

fn find(bot: &mut Bot, block: &str, radius: f64) -> Vec<([i64; 3], String)> {
    let r = bot.request(json!({"action":"find","block":block,"radius":radius,"count":10}), ANSWER).expect("find");
    r["blocks"]
        .as_array()
        .expect("blocks")
        .iter()
        .map(|b| (pos_of(b), b["name"].as_str().unwrap_or("").to_owned()))
        .collect()
}

fn run_mixed(args: &[&str], label: &str) {
    let map = map();
    let (_peer, mut bot) = start(args, "WorldBot");
    for b in map["blocks"].as_array().expect("blocks") {
        let e = expected_at(&map, pos_of(b), true);
        // The timeline opens the door (2 s after spawn); its name and other states stay.
        if b["tag"].as_str().is_some_and(|t| t.starts_with("door")) {
            let [x, y, z] = e.pos;
            let r = bot.request(json!({"action":"block","x":x,"y":y,"z":z}), ANSWER).expect("door");
            assert_eq!(r["block"]["name"], "minecraft:wooden_door", "{label}");
            continue;
        }
        check_block(&mut bot, &e, label);
    }
    // The solid cube: a 0-bit single-value stone sub-chunk.
    check_block(&mut bot, &expected_at(&map, [70, -25, -55], true), label);
    check_block(&mut bot, &expected_at(&map, [70, -33, -55], true), label);
    let r = bot.request(json!({"action":"block","x":1000,"y":-61,"z":1000}), ANSWER).expect("block");
    assert_eq!((r["loaded"].clone(), r["block"].clone()), (json!(false), Value::Null), "{label}: no data is not air");

    check_scan(&mut bot, &map, true, label);

    assert_eq!(
        find(&mut bot, "diamond_ore", 128.0),
        vec![([8, -62, -8], "minecraft:diamond_ore".into()), ([85, -61, 85], "minecraft:diamond_ore".into())],
        "{label}"
    );
    assert_eq!(find(&mut bot, "diamond_ore", 64.0), vec![([8, -62, -8], "minecraft:diamond_ore".into())], "{label}");
    let coal = find(&mut bot, "coal_ore", 200.0);
    assert_eq!(
        coal,
        vec![([5, -62, 5], "minecraft:coal_ore".into()), ([88, -61, 90], "minecraft:coal_ore".into())],
        "{label}"
    );
    assert!(find(&mut bot, "emerald_ore", 128.0).is_empty(), "{label}");

    // The map's ray: from the spawn eye towards +z, glass at (0,−59,5) on its north face.
    let ray = &map["raycast"];
    assert_eq!(ray["hits"][0]["name"], "glass");
    let r = bot.request(json!({"action":"raycast","x":0.5,"z":12.5}), ANSWER).expect("raycast");
    assert_eq!(r["from"], ray["from_eye"], "{label}");
    assert_eq!(r["clear"], false);
    let o = &r["obstacle"];
    assert_eq!(
        (pos_of(o), o["name"].clone(), o["face"].clone()),
        (pos_of(&ray["hits"][0]), json!("minecraft:glass"), json!("north")),
        "{label}: {r}"
    );
    assert_eq!(r["hit"], json!({"x":0.5,"y":-58.38,"z":5.0}));
    // Through the open doorway? The wall at x = 3 stops a ray towards +x at eye height (y −59).
    let r = bot.request(json!({"action":"raycast","x":10.5,"z":-1.5,"y":-58.5}), ANSWER).expect("raycast");
    assert_eq!(r["obstacle"]["name"], "minecraft:stone", "{label}: {r}");
    assert_eq!(r["obstacle"]["face"], "west", "{label}: {r}");
}

/// Events of the map's timeline: block_changed for the door, weather, time.
fn check_timeline_events(args: &[&str], label: &str) {
    // Subscribe right at spawn: the timeline starts 1 s after it.
    let (_peer, mut bot) = start_spawned(args, "EventBot");
    for event in ["block_changed", "weather", "time"] {
        let r = bot.request(json!({"action":"subscribe","event":event}), ANSWER).expect("subscribe");
        assert_eq!(r["subscribed"], event, "{label}: {r}");
    }
    wait_blocks(&mut bot);
    let door = bot
        .wait(|v| v["type"] == "block_changed" && v["pos"] == json!({"x":3,"y":-60,"z":0}), Duration::from_secs(15))
        .expect("door block_changed");
    assert_eq!(door["block"], "minecraft:wooden_door", "{label}");
    assert_eq!(door["properties"]["open_bit"], true, "{label}: {door}");
    assert_eq!(door["previous"], "minecraft:wooden_door");
    let stone = bot
        .wait(|v| v["type"] == "block_changed" && v["pos"] == json!({"x":5,"y":-60,"z":0}), Duration::from_secs(15))
        .expect("sub-chunk update block_changed");
    assert_eq!((stone["block"].clone(), stone["previous"].clone()), (json!("minecraft:stone"), json!("minecraft:air")));
    let water = bot
        .wait(|v| v["type"] == "block_changed" && v["layer"] == 1, Duration::from_secs(15))
        .expect("layer 1 block_changed");
    assert_eq!(
        (water["pos"].clone(), water["block"].clone()),
        (json!({"x":0,"y":-60,"z":3}), json!("minecraft:water"))
    );
    let rain = bot.wait(|v| v["type"] == "weather", Duration::from_secs(15)).expect("weather");
    assert_eq!((rain["weather"].clone(), rain["started"].clone()), (json!("rain"), json!(true)), "{label}");
    let clear =
        bot.wait(|v| v["type"] == "weather" && v["started"] == false, Duration::from_secs(15)).expect("weather end");
    assert_eq!(clear["weather"], "clear");
    let time = bot.wait(|v| v["type"] == "time", Duration::from_secs(15)).expect("time");
    assert_eq!(time["phase"], "day", "{label}: {time}");
    let t = time["gameTime"].as_i64().expect("gameTime");
    assert!(t > 6000 && (t - 6000) % 20 == 0, "{label}: SetTime 6000 + 20n: {time}");
}

#[test]
fn flat_world_palette_ids_full_chunks() {
    let (_peer, mut bot) = start(&["--world", "flat"], "FlatBot");
    let map = map();
    for y in [-64, -63, -62, -61, -60, 100] {
        check_block(&mut bot, &expected_at(&map, [3, y, -7], false), "flat");
    }
    let r = bot.request(json!({"action":"block","x":0,"y":-61,"z":0}), ANSWER).expect("block");
    // The palette index of grass_block in the served version (12086 in 1.26.45, peer README).
    let ids = clawcraft::world::ids::IdTable::new(common::test_version().game_version, false).expect("block data");
    let grass = ids.ids_matching("grass_block").into_iter().find(|id| ids.name(*id) == "minecraft:grass_block");
    assert_eq!(r["block"]["stateId"].as_u64(), grass.map(u64::from), "palette index of grass_block");
    check_scan(&mut bot, &map, false, "flat");
    assert!(find(&mut bot, "diamond_ore", 64.0).is_empty());
    let r = bot.request(json!({"action":"raycast","x":0.5,"z":12.5}), ANSWER).expect("raycast");
    assert_eq!((r["clear"].clone(), r["unloaded"].clone()), (json!(true), json!(false)), "{r}");
}

#[test]
fn flat_world_hashed_ids() {
    let (_peer, mut bot) = start(&["--world", "flat", "--block-hashes"], "FlatHashBot");
    let r = bot.request(json!({"action":"block","x":0,"y":-61,"z":0}), ANSWER).expect("block");
    assert_eq!(r["block"]["name"], "minecraft:grass_block");
    assert_eq!(r["block"]["stateId"], json!((-567_203_660i32) as u32), "the FNV-1a hash (peer README)");
}

#[test]
fn mixed_world_palette_ids_full_chunks() {
    run_mixed(&["--world", "mixed"], "mixed/palette/full");
}

#[test]
fn mixed_world_palette_ids_request_mode() {
    run_mixed(&["--world", "mixed", "--chunks", "request"], "mixed/palette/request");
}

#[test]
fn mixed_world_hashed_ids_full_chunks() {
    run_mixed(&["--world", "mixed", "--block-hashes"], "mixed/hashes/full");
}

#[test]
fn bds_scenario_hashed_ids_request_mode() {
    run_mixed(&["--scenario", "bds"], "bds");
}

#[test]
fn bds_timeline_events() {
    check_timeline_events(&["--scenario", "bds"], "bds");
}
