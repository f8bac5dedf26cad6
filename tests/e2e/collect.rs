//! `collect` end to end against the peer's survival scenario (`tests/peer/survival.js`): three
//! oak logs south-west of the spawn collected in one call — each walked to, cut with the wooden
//! axe autoTool picks, its drop picked up — judged on the receipt, on the inventory the server
//! sent, and on the peer's own log of the breaks it accepted; then a collect with nothing left to
//! collect fails with its reason.

use crate::common;

use std::time::{Duration, Instant};

use common::{Bot, Peer};
use serde_json::{Value, json};

const SPAWN: Duration = Duration::from_secs(40);
const ANSWER: Duration = Duration::from_secs(10);

/// The oak logs of the survival map (`tests/peer/maps/survival.json`).
const LOGS: [[i64; 3]; 3] = [[-5, -60, 4], [-7, -60, 7], [-3, -60, 9]];

fn xyz(v: &Value) -> [i64; 3] {
    [v["x"].as_i64().expect("x"), v["y"].as_i64().expect("y"), v["z"].as_i64().expect("z")]
}

fn oak_logs(bot: &mut Bot) -> u64 {
    let inv = bot.request(json!({"action": "inventory", "view": "summary"}), ANSWER).expect("inventory");
    inv["summary"]["items"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|i| i["name"] == "minecraft:oak_log")
        .map(|i| i["totalCount"].as_u64().unwrap_or(0))
        .sum()
}

#[test]
fn collect_gets_three_oak_logs_in_one_call_as_the_server_gave_them() {
    let mut peer = Peer::start("survival");
    let mut bot = Bot::start(peer.port, "Collector");
    bot.wait_event("spawn", SPAWN).expect("spawn");
    peer.wait_line(|v| v["event"] == "survival_ready", SPAWN).expect("survival ready");
    let deadline = Instant::now() + ANSWER;
    loop {
        let inv = bot.request(json!({"action": "inventory", "view": "summary"}), ANSWER).expect("inventory");
        if inv.get("code").is_none() {
            break;
        }
        assert!(Instant::now() < deadline, "the inventory never arrived: {inv}");
        std::thread::sleep(Duration::from_millis(100));
    }
    assert_eq!(oak_logs(&mut bot), 0);

    let r = bot.ok(json!({"action": "collect", "block": "oak_log", "exact": true, "count": 3}));
    let id = r["id"].clone();
    assert_eq!((r["collecting"].clone(), r["matched"].clone()), (json!(true), json!(["minecraft:oak_log"])), "{r}");
    assert_eq!(xyz(&r["nearest"]), LOGS[0], "the nearest log: {r}");
    // The inner walks and breaks are the collect's own: no receipts of their own.
    let inner = std::cell::Cell::new(0);
    let d = bot
        .wait(
            |v| {
                if v["type"] == "walk_done" || v["type"] == "mine_done" {
                    inner.set(inner.get() + 1);
                }
                v["type"] == "collect_done" && v["id"] == id
            },
            Duration::from_secs(90),
        )
        .expect("collect_done");
    assert_eq!(inner.get(), 0, "no walk_done or mine_done");
    assert_eq!((d["status"].clone(), d["collected"].clone()), (json!("done"), json!({"minecraft:oak_log": 3})), "{d}");
    assert_eq!((d["mined"].clone(), d["dropsLeft"].clone(), d["skipped"].clone()), (json!(3), json!(0), json!([])));
    let mut mined: Vec<[i64; 3]> = d["blocks"].as_array().expect("blocks").iter().map(xyz).collect();
    assert_eq!(mined[0], LOGS[0], "the nearest first: {d}");
    mined.sort_unstable();
    let mut logs = LOGS.to_vec();
    logs.sort_unstable();
    assert_eq!(mined, logs, "{d}");
    assert!(d["blocks"].as_array().into_iter().flatten().all(|b| b["tool"] == "minecraft:wooden_axe"), "{d}");
    // The peer's own account: three breaks accepted, each with the axe and its log dropped, and
    // three pickups.
    let mut broken = Vec::new();
    for _ in 0..3 {
        let b = peer
            .wait_line(|v| v["event"] == "block_broken" && v["block"] == "oak_log", ANSWER)
            .expect("the peer broke a log");
        assert_eq!((b["tool"].clone(), b["drops"].clone()), (json!("wooden_axe"), json!(["oak_log"])), "{b}");
        broken.push(xyz(&b["pos"]));
        peer.wait_line(|v| v["event"] == "picked_up" && v["name"] == "oak_log", ANSWER).expect("picked up");
    }
    broken.sort_unstable();
    assert_eq!(broken, logs);
    // The inventory answer agrees with the receipt.
    assert_eq!(oak_logs(&mut bot), 3);
    let refused: Vec<Value> =
        peer.packets_named("__auth_pos").into_iter().filter(|p| p["accepted"] == json!(false)).collect();
    assert!(refused.is_empty(), "the walks were accepted by the peer's movement checks: {refused:?}");

    // Nothing left to collect: failed, with the reason, and nothing broken.
    let r = bot.ok(json!({"action": "collect", "block": "oak_log", "exact": true}));
    assert_eq!(r["nearest"], Value::Null, "{r}");
    let d = bot.wait(|v| v["type"] == "collect_done" && v["id"] == r["id"], ANSWER).expect("collect_done");
    assert_eq!(
        (d["status"].clone(), d["reason"].clone(), d["mined"].clone()),
        (json!("failed"), json!("no_block"), json!(0)),
        "{d}"
    );
    // Bedrock lies under the whole map, buried and unbreakable: never a candidate.
    let r = bot.ok(json!({"action": "collect", "block": "bedrock", "exact": true}));
    assert_eq!(r["nearest"]["name"], "minecraft:bedrock", "{r}");
    let d = bot.wait(|v| v["type"] == "collect_done" && v["id"] == r["id"], ANSWER).expect("collect_done");
    assert_eq!((d["status"].clone(), d["reason"].clone()), (json!("failed"), json!("no_block")), "{d}");
    assert!(
        peer.wait_line(|v| v["event"] == "break_started", Duration::from_millis(500)).is_none(),
        "no break was started"
    );
}
