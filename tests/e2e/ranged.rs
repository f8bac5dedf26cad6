//! End to end against the peer's ranged scenario (`tests/peer/ranged.js`): water and lava sources
//! around the spawn, buckets, fall damage, a bow and arrows, walking targets. The peer rules each
//! bucket use, fall and arrow itself (a source only, the bucket swap, ⌈distance − 3⌉ fall damage
//! forgiven in water, the draw force, the arrow's flight and hit), so every receipt is checked
//! against the peer's own account.

use crate::common;

use std::time::{Duration, Instant};

use common::{Bot, Peer};
use serde_json::{Value, json};

const SPAWN: Duration = Duration::from_secs(40);
const ANSWER: Duration = Duration::from_secs(10);
const DONE: Duration = Duration::from_secs(15);

fn ok(bot: &mut Bot, cmd: Value) -> Value {
    bot.ok(cmd)
}

fn done(bot: &mut Bot, kind: &str, id: &Value) -> Value {
    bot.wait(|v| v["type"] == kind && v["id"] == *id, DONE).unwrap_or_else(|| panic!("no {kind} for {id}"))
}

fn peer_event(peer: &mut Peer, event: &str) -> Value {
    peer.wait_line(|v| v["event"] == event, DONE).unwrap_or_else(|| panic!("peer never said {event}"))
}

fn xyz(v: &Value) -> [i64; 3] {
    [v["x"].as_i64().expect("x"), v["y"].as_i64().expect("y"), v["z"].as_i64().expect("z")]
}

/// Starts the ranged peer and a bot, and waits until the liquids and the inventory have arrived.
fn ranged(name: &str) -> (Peer, Bot) {
    let mut peer = Peer::start("ranged");
    let mut bot = Bot::start(peer.port, name);
    bot.wait_event("spawn", SPAWN).expect("spawn");
    peer.wait_line(|v| v["event"] == "ranged_ready", SPAWN).expect("ranged ready");
    let deadline = Instant::now() + DONE;
    loop {
        let b = bot.request(json!({"action":"block","x":2,"y":-61,"z":-1}), ANSWER).expect("block");
        let inv = bot.request(json!({"action":"inventory","view":"summary"}), ANSWER).expect("inventory");
        if b["block"]["name"] == "minecraft:water" && inv.get("code").is_none() {
            break;
        }
        assert!(Instant::now() < deadline, "the liquids or the inventory never arrived: {b} {inv}");
        std::thread::sleep(Duration::from_millis(100));
    }
    (peer, bot)
}

fn counts(d: &Value, key: &str) -> (i64, i64) {
    (d[key]["before"].as_i64().expect("before"), d[key]["after"].as_i64().expect("after"))
}

#[test]
fn buckets_fill_from_sources_and_pour_back_as_the_server_rules() {
    let (mut peer, mut bot) = ranged("Bucketeer");

    // A flowing cell is no source: refused before anything is sent.
    let r = bot.request(json!({"action":"fill","x":1,"y":-61,"z":2}), ANSWER).expect("answer");
    assert_eq!(r["code"], "NOT_A_SOURCE", "{r}");
    // Pouring into the block under the feet: occupied.
    let r = bot.request(json!({"action":"empty","x":0,"y":-61,"z":0}), ANSWER).expect("answer");
    assert_eq!(r["code"], "OCCUPIED", "{r}");

    // Fill from the nearest water source: the held stack of two buckets gives one, the filled
    // bucket goes elsewhere.
    let r = ok(&mut bot, json!({"action":"fill","liquid":"water"}));
    assert_eq!((xyz(&r["pos"]), r["liquid"].clone()), ([2, -61, -1], json!("water")), "{r}");
    let d = done(&mut bot, "fill_done", &r["id"]);
    let p = peer_event(&mut peer, "bucket_filled");
    assert_eq!((d["status"].clone(), d["confirmed"].clone()), (json!("done"), json!(true)), "{d}");
    assert_eq!((xyz(&p["pos"]), p["liquid"].clone()), ([2, -61, -1], json!("water")), "{p}");
    assert_eq!((d["before"].clone(), d["after"].clone()), (json!("minecraft:water"), json!("minecraft:air")), "{d}");
    assert_eq!(counts(&d, "buckets"), (2, 1), "{d}");
    assert_eq!(counts(&d, "filled"), (1, 2), "{d}");
    assert_eq!(
        (d["heldBefore"].clone(), d["heldAfter"].clone()),
        (json!("minecraft:bucket"), json!("minecraft:bucket"))
    );
    assert_eq!(p["buckets_left"], 1, "{p}");
    // The bot's world shows the source gone.
    let b = ok(&mut bot, json!({"action":"block","x":2,"y":-61,"z":-1}));
    assert_eq!(b["block"]["name"], "minecraft:air", "{b}");

    // Pour it back into the hole, against a face of a block next to it.
    let r = ok(&mut bot, json!({"action":"empty","x":2,"y":-61,"z":-1,"item":"water_bucket"}));
    let c = xyz(&r["clicked"]);
    assert_eq!((c[0] - 2).abs() + (c[1] + 61).abs() + (c[2] + 1).abs(), 1, "a neighbour of the hole: {r}");
    let d = done(&mut bot, "empty_done", &r["id"]);
    let p = peer_event(&mut peer, "bucket_emptied");
    assert_eq!((d["status"].clone(), d["confirmed"].clone()), (json!("done"), json!(true)), "{d}");
    assert_eq!((xyz(&p["pos"]), p["liquid"].clone()), ([2, -61, -1], json!("water")), "{p}");
    assert_eq!(d["after"], "minecraft:water", "{d}");
    assert_eq!(counts(&d, "filled"), (2, 1), "{d}");
    assert_eq!(counts(&d, "buckets"), (1, 2), "{d}");
    assert_eq!(
        (d["heldBefore"].clone(), d["heldAfter"].clone()),
        (json!("minecraft:water_bucket"), json!("minecraft:bucket"))
    );

    // Lava too, by coordinates.
    let r = ok(&mut bot, json!({"action":"fill","x":-2,"y":-61,"z":-1}));
    let d = done(&mut bot, "fill_done", &r["id"]);
    let p = peer_event(&mut peer, "bucket_filled");
    assert_eq!((d["liquid"].clone(), p["liquid"].clone()), (json!("lava"), json!("lava")), "{d} {p}");
    assert_eq!(d["confirmed"], true, "{d}");
    assert_eq!(counts(&d, "filled"), (1, 2), "{d}");
}

#[test]
fn shoot_leads_a_walking_zombie_hits_it_and_counts_the_arrow() {
    let (mut peer, mut bot) = ranged("Archer");
    let r = ok(&mut bot, json!({"action": "cmd", "cmd": "/summon_walking zombie -6.5 -60 16.5 0.2 0 400"}));
    assert_eq!(r["success"], true, "{r}");
    let summoned = peer_event(&mut peer, "summoned");
    let rid = summoned["runtime_id"].as_str().expect("runtime id").to_owned();
    // Let the bot see it walk for half a second (its velocity is measured over ten ticks).
    std::thread::sleep(Duration::from_millis(700));
    let r = ok(&mut bot, json!({"action": "shoot", "entity": "zombie"}));
    assert_eq!((r["arrows"].clone(), r["drawTicks"].clone()), (json!(8), json!(20)), "{r}");
    let d = done(&mut bot, "shoot_done", &r["id"]);
    let shot = peer_event(&mut peer, "arrow_shot");
    let hit = peer.wait_line(|v| v["event"] == "arrow_hit" || v["event"] == "arrow_landed", DONE).expect("arrow end");
    assert_eq!(d["status"], "done", "{d}");
    assert_eq!(hit["event"], "arrow_hit", "the peer's arrow hit: {hit} (shot {shot}, receipt {d})");
    assert_eq!(hit["target"], json!(rid), "{hit}");
    assert_eq!(d["hit"], true, "{d}");
    assert_eq!(d["damage"].as_f64(), hit["damage"].as_f64(), "the receipt's damage is the peer's: {d} {hit}");
    // Arrows counted from the inventory the server confirmed, as the peer counted them.
    assert_eq!((d["arrowsBefore"].clone(), d["arrowsAfter"].clone()), (json!(8), json!(7)), "{d}");
    assert_eq!(shot["arrows_left"], 7, "{shot}");
    assert_eq!((shot["ticks"].as_u64(), shot["force"].as_f64()), (Some(20), Some(1.0)), "a full draw: {shot}");
    assert_eq!(d["arrow"].as_u64().map(|a| a.to_string()), shot["runtime_id"].as_str().map(str::to_owned), "{d}");
    // The server's aim is the receipt's, and it led the walking target.
    let dy = (d["yaw"].as_f64().expect("yaw") - shot["yaw"].as_f64().expect("yaw")).abs();
    assert!(dy < 0.5, "the peer shot along the receipt's yaw: {d} {shot}");
    assert!(d["lead"].as_f64().expect("lead") > 0.6, "the aim led the zombie by over half a block: {d}");
}
