//! End to end against the peer's farm scenario (`tests/peer/farm.js`): a wheat field of eight
//! cells around the spawn, some mature. The real binary refuses to harvest an immature crop,
//! bone-meals it, tills grass, plants seeds, and harvests every mature crop in reach replanting
//! each — every receipt checked against the peer's own account (its growth numbers, the blocks it
//! broke and planted, the items it gave).

use crate::common;

use std::collections::BTreeSet;
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
    let d = bot.wait(|v| v["type"] == kind && v["id"] == *id, DONE).unwrap_or_else(|| panic!("no {kind} for {id}"));
    assert_eq!((d["status"].clone(), d["confirmed"].clone()), (json!("done"), json!(true)), "{d}");
    d
}

fn peer_event(peer: &mut Peer, event: &str, pred: impl Fn(&Value) -> bool) -> Value {
    peer.wait_line(|v| v["event"] == event && pred(v), DONE).unwrap_or_else(|| panic!("peer never said {event}"))
}

fn xyz(v: &Value) -> [i64; 3] {
    [v["x"].as_i64().expect("x"), v["y"].as_i64().expect("y"), v["z"].as_i64().expect("z")]
}

/// Starts the farm peer and a bot, and waits until the field and the inventory have arrived.
pub fn farm() -> (Peer, Bot, Value) {
    let mut peer = Peer::start("farm");
    let mut bot = Bot::start(peer.port, "Farmer");
    bot.wait_event("spawn", SPAWN).expect("spawn");
    let ready = peer.wait_line(|v| v["event"] == "farm_ready", SPAWN).expect("farm ready");
    let deadline = Instant::now() + DONE;
    loop {
        let b = bot.request(json!({"action":"block","x":1,"y":-60,"z":1}), ANSWER).expect("block");
        let inv = bot.request(json!({"action":"inventory","view":"summary"}), ANSWER).expect("inventory");
        if b["block"]["name"] == "minecraft:wheat" && inv.get("code").is_none() {
            break;
        }
        assert!(Instant::now() < deadline, "the field or the inventory never arrived: {b} {inv}");
        std::thread::sleep(Duration::from_millis(100));
    }
    (peer, bot, ready)
}

#[test]
fn a_field_is_tended_and_harvested_with_every_step_confirmed_by_the_server() {
    let (mut peer, mut bot, ready) = farm();
    let field = ready["field"].as_array().expect("field").clone();
    let growing = field.iter().find(|c| c["growth"] == 3).expect("a crop at growth 3");
    let g = xyz(growing);

    // An immature crop is refused before anything is sent.
    let r = bot.request(json!({"action":"harvest","x":g[0],"y":g[1],"z":g[2]}), ANSWER).expect("answer");
    assert_eq!(r["code"], "NOT_MATURE", "{r}");
    assert!(r["error"].as_str().is_some_and(|m| m.contains("growth 3 of 7")), "{r}");

    // Bone meal: the growth the peer chose is the one the receipt reports.
    let r = ok(&mut bot, json!({"action":"bone_meal","x":g[0],"y":g[1],"z":g[2]}));
    let d = done(&mut bot, "bone_meal_done", &r["id"]);
    let p = peer_event(&mut peer, "bone_mealed", |_| true);
    assert_eq!(d["before"]["properties"]["growth"], 3, "{d}");
    assert_eq!(d["after"]["properties"]["growth"], p["after"], "{d} vs {p}");
    assert_eq!((d["itemCount"]["before"].clone(), d["itemCount"]["after"].clone()), (json!(6), json!(5)), "{d}");
    let boosted = p["after"].as_i64().expect("after");

    // Till grass east of the field; stone on top of the grass next to it is refused.
    let r = bot.request(json!({"action":"till","x":2,"y":-61,"z":1}), ANSWER).expect("answer");
    assert_eq!(r["code"], "INVALID_TARGET", "{r}");
    let r = ok(&mut bot, json!({"action":"till","x":2,"y":-61,"z":-1}));
    let d = done(&mut bot, "till_done", &r["id"]);
    assert_eq!(
        (d["before"]["block"].clone(), d["after"]["block"].clone()),
        (json!("minecraft:grass_block"), json!("minecraft:farmland")),
        "{d}"
    );
    let p = peer_event(&mut peer, "tilled", |_| true);
    assert_eq!((xyz(&p["pos"]), p["hoe"].clone()), ([2, -61, -1], json!("wooden_hoe")), "{p}");

    // Plant seeds on it.
    let r = ok(&mut bot, json!({"action":"plant","x":2,"y":-61,"z":-1,"item":"wheat_seeds"}));
    let d = done(&mut bot, "plant_done", &r["id"]);
    assert_eq!((xyz(&d["pos"]), d["after"]["block"].clone()), ([2, -60, -1], json!("minecraft:wheat")), "{d}");
    assert_eq!(d["after"]["properties"]["growth"], 0, "{d}");
    let p = peer_event(&mut peer, "planted", |_| true);
    assert_eq!((xyz(&p["pos"]), p["left"].clone()), ([2, -60, -1], d["itemCount"]["after"].clone()), "{p} vs {d}");

    // Harvest every mature crop within reach and replant: exactly the mature ones, by the peer's field.
    let mut mature: BTreeSet<[i64; 3]> = field.iter().filter(|c| c["growth"] == 7).map(xyz).collect();
    if boosted == 7 {
        mature.insert(g);
    }
    let r = ok(&mut bot, json!({"action":"harvest","radius":2,"replant":true}));
    let d = bot.wait(|v| v["type"] == "harvest_done" && v["id"] == r["id"], DONE).expect("harvest_done");
    assert_eq!((d["status"].clone(), d["confirmed"].clone()), (json!("done"), json!(true)), "{d}");
    let harvested: BTreeSet<[i64; 3]> = d["harvested"].as_array().expect("harvested").iter().map(xyz).collect();
    assert_eq!(harvested, mature, "{d}");
    let replanted: BTreeSet<[i64; 3]> = d["replanted"]
        .as_array()
        .expect("replanted")
        .iter()
        .map(|v| {
            let p = xyz(v);
            [p[0], p[1] + 1, p[2]]
        })
        .collect();
    assert_eq!(replanted, mature, "{d}");
    let skipped: BTreeSet<[i64; 3]> = d["skipped"].as_array().expect("skipped").iter().map(xyz).collect();
    assert!(skipped.contains(&[2, -60, -1]) && skipped.is_disjoint(&mature), "{d}");
    // The peer broke and planted each of them, and gave the wheat it dropped.
    let mut broken = BTreeSet::new();
    let mut wheat_dropped = 0;
    while broken.len() < mature.len() {
        let p = peer_event(&mut peer, "block_broken", |v| v["block"] == "wheat");
        wheat_dropped += p["drops"].as_array().expect("drops").iter().filter(|x| *x == "wheat").count();
        broken.insert(xyz(&p["pos"]));
    }
    assert_eq!(broken, mature);
    assert_eq!(wheat_dropped, mature.len(), "one wheat per mature crop");
    let wheat: u64 = d["gained"]
        .as_array()
        .expect("gained")
        .iter()
        .filter(|x| x["name"] == "minecraft:wheat")
        .map(|x| x["count"].as_u64().unwrap_or(0))
        .sum();
    assert_eq!(wheat, mature.len() as u64, "{d}");
    // The field is standing again: the peer's blocks, read back by the bot.
    for c in &mature {
        let b = ok(&mut bot, json!({"action":"block","x":c[0],"y":c[1],"z":c[2]}));
        assert_eq!(
            (b["block"]["name"].clone(), b["block"]["properties"]["growth"].clone()),
            (json!("minecraft:wheat"), json!(0)),
            "{b}"
        );
    }
}

#[test]
fn animals_are_bred_milked_and_sheared_as_the_server_shows() {
    let (mut peer, mut bot, ready) = farm();
    let deadline = Instant::now() + DONE;
    while ok(&mut bot, json!({"action":"nearby"}))["nearby"]["mobs"].as_array().is_none_or(|m| m.len() < 3) {
        assert!(Instant::now() < deadline, "the animals never arrived");
        std::thread::sleep(Duration::from_millis(100));
    }
    let cows: BTreeSet<String> = ready["animals"]
        .as_array()
        .expect("animals")
        .iter()
        .filter(|a| a["type"] == "cow")
        .map(|a| a["runtime_id"].as_str().expect("id").to_owned())
        .collect();

    // Breed the two cows with wheat: both in love, then the baby the peer spawned.
    let r = ok(&mut bot, json!({"action":"breed","entity":"cow"}));
    assert_eq!(r["item"], "minecraft:wheat", "{r}");
    let d = done(&mut bot, "breed_done", &r["id"]);
    let fed: BTreeSet<String> = d["inLove"].as_array().expect("inLove").iter().map(|v| v.to_string()).collect();
    assert_eq!(fed, cows, "{d}");
    let bred = peer_event(&mut peer, "bred", |_| true);
    assert_eq!(d["baby"].to_string(), bred["baby"].as_str().expect("baby"), "{d} vs {bred}");
    assert_eq!(d["itemCount"], json!({"before": 4, "after": 2}), "{d}");

    // Milk a cow: the bucket the server turned into milk.
    let r = ok(&mut bot, json!({"action":"milk"}));
    let d = done(&mut bot, "milk_done", &r["id"]);
    assert_eq!(d["heldAfter"], "minecraft:milk_bucket", "{d}");
    peer_event(&mut peer, "milked", |_| true);

    // Shear the sheep: the sheared flag and the wool the peer dropped.
    let r = ok(&mut bot, json!({"action":"shear"}));
    let d = done(&mut bot, "shear_done", &r["id"]);
    let p = peer_event(&mut peer, "sheared", |_| true);
    assert_eq!(d["sheared"], true, "{d}");
    let wool: u64 = d["drops"].as_array().expect("drops").iter().map(|x| x["count"].as_u64().unwrap_or(0)).sum();
    assert_eq!(wool, p["wool"].as_u64().expect("wool"), "{d} vs {p}");
    // Once sheared, the peer refuses; the bot reports no change.
    let r = ok(&mut bot, json!({"action":"shear"}));
    let d = bot.wait(|v| v["type"] == "shear_done" && v["id"] == r["id"], DONE).expect("shear_done");
    assert_eq!((d["status"].clone(), d["reason"].clone()), (json!("failed"), json!("no_change")), "{d}");
    peer_event(&mut peer, "entity_use_refused", |v| v["why"] == "already sheared");
}
