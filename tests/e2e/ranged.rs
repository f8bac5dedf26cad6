//! End to end against the peer's ranged scenario (`tests/peer/ranged.js`): water and lava sources
//! around the spawn, buckets, fall damage, a bow and arrows, walking targets. The peer rules each
//! bucket use, fall and arrow itself (a source only, the bucket swap, ⌈distance − 3⌉ fall damage
//! forgiven in water, the draw force, the arrow's flight and hit), so every receipt is checked
//! against the peer's own account — auto_clutch's too: the water the peer placed, the fall it
//! forgave, the health it kept.

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

/// Arrows in an `inventory` answer's summary.
fn arrows_in(inv: &Value) -> i64 {
    let items = inv["summary"]["items"].as_array().expect("summary items");
    items.iter().filter(|i| i["name"] == "minecraft:arrow").map(|i| i["totalCount"].as_i64().expect("count")).sum()
}

/// The peer's bow and arrow events until `last` is seen (in order).
fn bow_events_until(peer: &mut Peer, last: impl Fn(&Value) -> bool) -> Vec<Value> {
    let mut out = Vec::new();
    loop {
        let v = peer
            .wait_line(|v| v["event"].as_str().is_some_and(|e| e.starts_with("bow_") || e.starts_with("arrow_")), DONE)
            .unwrap_or_else(|| panic!("the peer went quiet after {out:?}"));
        let stop = last(&v);
        out.push(v);
        if stop {
            return out;
        }
    }
}

#[test]
fn shoot_times_shoots_a_walking_zombie_again_until_it_dies() {
    let (mut peer, mut bot) = ranged("Volley");
    let r = ok(&mut bot, json!({"action": "cmd", "cmd": "/summon_walking zombie -6.5 -60 16.5 0.2 0 400"}));
    assert_eq!(r["success"], true, "{r}");
    let rid = peer_event(&mut peer, "summoned")["runtime_id"].as_str().expect("runtime id").to_owned();
    // Let the bot see it walk (its velocity is measured over ten ticks).
    std::thread::sleep(Duration::from_millis(700));
    let r = ok(&mut bot, json!({"action": "shoot", "entity": "zombie", "times": 4}));
    assert_eq!((r["times"].clone(), r["arrows"].clone()), (json!(4), json!(8)), "{r}");
    let d = done(&mut bot, "shoot_done", &r["id"]);
    // The peer's account: 10 health, ⌈3 × 2⌉ = 6 a full-force arrow, so two hits kill.
    let log = bow_events_until(&mut peer, |v| v["event"] == "arrow_hit" && v["health"] == 0);
    let shots: Vec<&Value> = log.iter().filter(|v| v["event"] == "arrow_shot").collect();
    let hits: Vec<&Value> = log.iter().filter(|v| v["event"] == "arrow_hit").collect();
    assert_eq!(shots.len(), 2, "two arrows left the bow: {log:?}");
    assert_eq!(hits.len(), 2, "both hit: {log:?}");
    assert!(hits.iter().all(|h| h["target"] == json!(rid)), "{hits:?}");
    assert_eq!(shots.iter().map(|s| s["arrows_left"].as_i64()).collect::<Vec<_>>(), [Some(7), Some(6)]);
    assert_eq!(d["status"], "done", "{d}");
    assert_eq!(
        (d["times"].clone(), d["shots"].clone(), d["hits"].clone(), d["stopped"].clone()),
        (json!(4), json!(2), json!(2), json!("target_dead")),
        "{d}"
    );
    assert_eq!(
        (d["arrowsBefore"].clone(), d["arrowsAfter"].clone(), d["arrowsUsed"].clone()),
        (json!(8), json!(6), json!(2)),
        "{d}"
    );
    let damage: f64 = hits.iter().map(|h| h["damage"].as_f64().expect("damage")).sum();
    assert_eq!(d["damage"].as_f64(), Some(damage.min(10.0)), "the health the peer took: {d} {hits:?}");
    assert_eq!(d["arrow"].as_u64().map(|a| a.to_string()), shots[1]["runtime_id"].as_str().map(str::to_owned));
    // The zombie died while the third draw was under way: that draw was cancelled, no arrow left.
    if d["drawCancelled"] == true {
        let c = peer_event(&mut peer, "bow_cancelled");
        assert_eq!(c["arrows_left"], 6, "{c}");
    }
    let inv = ok(&mut bot, json!({"action": "inventory", "view": "summary"}));
    assert_eq!(arrows_in(&inv), 6, "{inv}");
    assert!(peer.wait_line(|v| v["event"] == "arrow_shot", Duration::from_millis(1500)).is_none(), "no third arrow");
}

#[test]
fn abort_shoot_mid_draw_cancels_the_draw_at_the_server_and_the_next_shot_works() {
    let (mut peer, mut bot) = ranged("Hesitant");
    let r = ok(&mut bot, json!({"action": "shoot", "x": 0.5, "y": -60, "z": 12.5, "ticks": 100}));
    let drawn = peer_event(&mut peer, "bow_drawn");
    let a = ok(&mut bot, json!({"action": "abort_shoot"}));
    assert_eq!(
        (a["aborted"].clone(), a["drawCancelled"].clone(), a["shots"].clone()),
        (json!(true), json!(true), json!(0))
    );
    let d = done(&mut bot, "shoot_done", &r["id"]);
    assert_eq!((d["status"].clone(), d["arrowsAfter"].clone()), (json!("aborted"), json!(8)), "{d}");
    // The server ended the draw on the held-slot change: no arrow, none taken.
    let log = bow_events_until(&mut peer, |v| v["event"] == "bow_cancelled");
    assert_eq!(log.len(), 1, "nothing but the cancel: {log:?}");
    let c = &log[0];
    assert_eq!((c["from"].clone(), c["to"].clone(), c["arrows_left"].clone()), (json!(2), json!(3), json!(8)), "{c}");
    assert!(c["ticks"].as_i64().expect("ticks") < 100, "cancelled before the release: {c} (drawn {drawn})");
    let inv = ok(&mut bot, json!({"action": "inventory", "view": "summary"}));
    assert_eq!((arrows_in(&inv), inv["heldSlot"].clone()), (8, json!(2)), "the bow still in hand: {inv}");

    // The next shot works: the bow is still in hand.
    let r = ok(&mut bot, json!({"action": "shoot", "x": 0.5, "y": -60, "z": 12.5}));
    let d = done(&mut bot, "shoot_done", &r["id"]);
    let log = bow_events_until(&mut peer, |v| v["event"] == "arrow_shot");
    assert_eq!(log.iter().map(|v| v["event"].clone()).collect::<Vec<_>>(), [json!("bow_drawn"), json!("arrow_shot")]);
    let shot = &log[1];
    assert_eq!((shot["ticks"].clone(), shot["arrows_left"].clone()), (json!(20), json!(7)), "{shot}");
    assert_eq!(
        (d["status"].clone(), d["shots"].clone(), d["arrowsBefore"].clone(), d["arrowsAfter"].clone()),
        (json!("done"), json!(1), json!(8), json!(7)),
        "{d}"
    );
}

/// The bot's health as the server last sent it.
fn health(bot: &mut Bot) -> f64 {
    ok(bot, json!({"action": "vitals"}))["health"].as_f64().expect("health")
}

/// The water buckets in the bot's inventory.
fn water_buckets(bot: &mut Bot) -> i64 {
    let inv = ok(bot, json!({"action": "inventory", "view": "summary"}));
    let items = inv["summary"]["items"].as_array().cloned().unwrap_or_default();
    items.iter().filter(|i| i["name"] == "minecraft:water_bucket").filter_map(|i| i["totalCount"].as_i64()).sum()
}

/// The peer puts the bot's feet at (0.5, `feet`, 0.5) above the spawn's grass (top at −60).
fn teleport(bot: &mut Bot, feet: f64) {
    let r = ok(bot, json!({"action": "cmd", "cmd": format!("/tp 0.5 {feet} 0.5")}));
    assert_eq!(r["success"], true, "{r}");
}

#[test]
fn auto_clutch_breaks_falls_with_water_the_peer_forgives_and_picks_the_water_back_up() {
    let (mut peer, mut bot) = ranged("Clutcher");
    let r = ok(&mut bot, json!({"action": "policy", "name": "auto_clutch"}));
    assert_eq!((r["enabled"].clone(), r["minFall"].clone()), (json!(true), json!(3.0)), "{r}");
    assert_eq!(water_buckets(&mut bot), 1);
    let mut last_action = Value::Null;
    // 15 blocks (12 damage unbroken), then 60 blocks, falling ~2.7 blocks a tick at the end.
    for feet in [-45.0, 0.0] {
        teleport(&mut bot, feet);
        let seen = last_action.clone();
        let act = bot
            .wait(|v| v["type"] == "policy_action" && v["policy"] == "auto_clutch" && v["actionId"] != seen, DONE)
            .expect("auto_clutch acted");
        assert_eq!(act["command"], "clutch", "{act}");
        last_action = act["actionId"].clone();
        let d = done(&mut bot, "clutch_done", &act["actionId"]);
        let emptied = peer_event(&mut peer, "bucket_emptied");
        let broken = peer_event(&mut peer, "fall_broken");
        let filled = peer_event(&mut peer, "bucket_filled");
        // The peer: water in the cell above the grass, before the input that reached it, and the
        // fall forgiven there.
        assert_eq!((xyz(&emptied["pos"]), emptied["liquid"].clone()), ([0, -60, 0], json!("water")), "{emptied}");
        assert_eq!((broken["by"].clone(), xyz(&broken["cell"])), (json!("water"), [0, -60, 0]), "{broken}");
        assert!(emptied["tick"].as_i64() < broken["tick"].as_i64(), "water first: {emptied} {broken}");
        let fell = broken["distance"].as_f64().expect("distance");
        // Forgiven where the feet entered the water cell: at most a block above the grass.
        let drop = feet + 60.0;
        assert!(fell <= drop + 0.01 && fell > drop - 1.0, "the peer's fall of {fell} blocks from {feet}: {broken}");
        assert_eq!(xyz(&filled["pos"]), [0, -60, 0], "picked back up: {filled}");
        // The receipt says what the peer did.
        assert_eq!(d["status"], "done", "{d}");
        assert_eq!(
            (d["placed"].clone(), d["landed"].clone(), d["pickedUp"].clone()),
            (json!(true), json!(true), json!(true)),
            "{d}"
        );
        assert_eq!(
            (d["hurt"].clone(), d["damage"].clone(), d["healthAfter"].clone()),
            (json!(false), json!(0.0), json!(20.0))
        );
        assert_eq!(
            (xyz(&d["water"]), xyz(&d["clicked"]), d["face"].clone()),
            ([0, -60, 0], [0, -61, 0], json!(1)),
            "{d}"
        );
        let receipt_fall = d["fallDistance"].as_f64().expect("fall");
        assert!(receipt_fall <= drop + 0.01 && receipt_fall > drop - 1.0, "{d} {broken}");
        assert!(d["reach"].as_f64().expect("reach") <= 5.0, "{d}");
        assert_eq!(d["waterBuckets"], json!({"before": 1, "after": 1}), "{d}");
        assert_eq!(health(&mut bot), 20.0);
        assert_eq!(water_buckets(&mut bot), 1, "the bucket is full again");
        let b = ok(&mut bot, json!({"action": "block", "x": 0, "y": -60, "z": 0}));
        assert_eq!(b["block"]["name"], "minecraft:air", "{b}");
    }
}

#[test]
fn without_auto_clutch_the_same_fall_hurts() {
    let (mut peer, mut bot) = ranged("Faller");
    teleport(&mut bot, -45.0);
    let landed = peer_event(&mut peer, "landed");
    assert_eq!(landed["damage"], 12, "⌈15 − 3⌉: {landed}");
    let deadline = Instant::now() + DONE;
    while health(&mut bot) != 8.0 {
        assert!(Instant::now() < deadline, "the bot never heard of the damage");
        std::thread::sleep(Duration::from_millis(100));
    }
    assert!(bot.wait(|v| v["type"] == "policy_action" || v["type"] == "clutch_done", Duration::ZERO).is_none());
    assert_eq!(water_buckets(&mut bot), 1, "no bucket used");
}
