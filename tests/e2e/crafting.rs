//! End to end against the peer's crafting scenario (`tests/peer/crafting.js`): from three oak
//! logs the real binary crafts planks and sticks at the 2×2 grid, places a crafting table and
//! crafts a wooden pickaxe at it, mines stone, crafts a stone pickaxe, takes iron ore and coal
//! from a chest (two takes written at once: the second is `BUSY` and never reaches the peer, a
//! retry after `take_done` succeeds) and smelts the ore in a blast furnace — every step asserted
//! on the bot's receipt and on the peer's own account (it validates each craft against
//! minecraft-data's recipes and smelts over ticks).

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

fn done(bot: &mut Bot, kind: &str, id: &Value, wait: Duration) -> Value {
    let d = bot.wait(|v| v["type"] == kind && v["id"] == *id, wait).unwrap_or_else(|| panic!("no {kind} for {id}"));
    assert_eq!(d["status"], "done", "{d}");
    d
}

fn peer_event(peer: &mut Peer, event: &str, pred: impl Fn(&Value) -> bool) -> Value {
    peer.wait_line(|v| v["event"] == event && pred(v), DONE).unwrap_or_else(|| panic!("peer never said {event}"))
}

fn count(list: &Value, name: &str) -> u64 {
    list.as_array()
        .into_iter()
        .flatten()
        .filter(|x| x["name"] == format!("minecraft:{name}"))
        .map(|x| x["count"].as_u64().unwrap_or(0))
        .sum()
}

/// Crafts and checks the receipt against the peer's `crafted`.
fn craft(bot: &mut Bot, peer: &mut Peer, cmd: Value, item: &str, made: u64, spent: &[(&str, u64)]) -> (Value, Value) {
    let r = ok(bot, cmd);
    let d = done(bot, "craft_done", &r["id"], DONE);
    assert_eq!((d["confirmed"].clone(), d["count"].clone()), (json!(true), json!(made)), "{d}");
    assert_eq!(count(&d["gained"], item), made, "{d}");
    for (name, n) in spent {
        assert_eq!(count(&d["spent"], name), *n, "spent {name}: {d}");
    }
    let p = peer_event(peer, "crafted", |v| v["item"] == item);
    assert_eq!(p["count"], made, "{p}");
    (d, p)
}

fn mine_stone(bot: &mut Bot, peer: &mut Peer, pos: [i64; 3]) {
    let r = ok(bot, json!({"action": "mine", "x": pos[0], "y": pos[1], "z": pos[2], "autoTool": true}));
    let d = bot.wait(|v| v["type"] == "mine_done" && v["id"] == r["id"], DONE).expect("mine_done");
    assert_eq!((d["status"].clone(), d["confirmed"].clone()), (json!("done"), json!(true)), "{d}");
    let p = peer_event(peer, "block_broken", |v| v["pos"] == json!({"x": pos[0], "y": pos[1], "z": pos[2]}));
    assert_eq!((p["tool"].clone(), p["drops"].clone()), (json!("wooden_pickaxe"), json!(["cobblestone"])), "{p}");
}

fn inventory_count(bot: &mut Bot, name: &str) -> u64 {
    let inv = ok(bot, json!({"action": "inventory", "view": "summary"}));
    count(
        &inv["summary"]["items"]
            .as_array()
            .map(|a| a.iter().map(|x| json!({"name": x["name"], "count": x["totalCount"]})).collect::<Vec<_>>())
            .into(),
        name,
    )
}

#[test]
fn from_logs_to_iron_every_step_confirmed_by_the_server() {
    let mut peer = Peer::start("crafting");
    let mut bot = Bot::start(peer.port, "Crafter");
    bot.wait_event("spawn", SPAWN).expect("spawn");
    let ready = peer.wait_line(|v| v["event"] == "crafting_ready", SPAWN).expect("crafting ready");
    assert!(ready["recipes"].as_u64().unwrap_or(0) > 1000, "minecraft-data's recipes: {ready}");
    let deadline = Instant::now() + ANSWER;
    loop {
        let r = bot.request(json!({"action": "recipes"}), ANSWER).expect("recipes");
        if r.get("error").is_none() {
            assert!(r["known"].as_u64().unwrap_or(0) > 1000, "{r}");
            let items: Vec<&str> =
                r["recipes"].as_array().into_iter().flatten().filter_map(|x| x["item"].as_str()).collect();
            assert!(items.contains(&"minecraft:oak_planks"), "planks from logs at the 2×2 grid: {r}");
            assert!(!items.contains(&"minecraft:wooden_pickaxe"), "no pickaxe without sticks: {r}");
            break;
        }
        assert!(Instant::now() < deadline, "recipes never arrived: {r}");
        std::thread::sleep(Duration::from_millis(100));
    }

    // logs → planks (three crafts in one request) → sticks, at the inventory's 2×2 grid
    let (_, p) = craft(
        &mut bot,
        &mut peer,
        json!({"action": "craft", "item": "oak_planks", "count": 12}),
        "oak_planks",
        12,
        &[("oak_log", 3)],
    );
    assert_eq!(
        (p["recipe"].clone(), p["times"].clone()),
        (json!("minecraft:oak_planks"), json!(3)),
        "one request, three crafts: {p}"
    );
    craft(
        &mut bot,
        &mut peer,
        json!({"action": "craft", "item": "stick", "count": 4}),
        "stick",
        4,
        &[("oak_planks", 2)],
    );
    // A 3×3 recipe needs a table.
    let r = bot.request(json!({"action": "craft", "item": "wooden_pickaxe"}), ANSWER).expect("answer");
    assert_eq!(r["code"], "NEEDS_TABLE", "{r}");
    craft(
        &mut bot,
        &mut peer,
        json!({"action": "craft", "item": "crafting_table"}),
        "crafting_table",
        1,
        &[("oak_planks", 4)],
    );

    // place the table, craft a wooden pickaxe at it
    let r = ok(&mut bot, json!({"action": "place", "item": "crafting_table", "x": 0, "y": -60, "z": 2}));
    let d = bot.wait(|v| v["type"] == "place_done" && v["id"] == r["id"], DONE).expect("place_done");
    assert_eq!(d["confirmed"], true, "{d}");
    let table = json!({"x": 0, "y": -60, "z": 2});
    let r = ok(&mut bot, json!({"action": "craft", "item": "wooden_pickaxe", "table": table}));
    let p = peer_event(&mut peer, "container_opened", |v| v["block"] == "crafting_table");
    assert_eq!(p["pos"], table, "the table's window opened first: {p}");
    let d = done(&mut bot, "craft_done", &r["id"], DONE);
    assert_eq!((d["confirmed"].clone(), count(&d["gained"], "wooden_pickaxe")), (json!(true), 1), "{d}");
    assert_eq!((count(&d["spent"], "oak_planks"), count(&d["spent"], "stick")), (3, 2), "{d}");
    let p = peer_event(&mut peer, "crafted", |v| v["item"] == "wooden_pickaxe");
    assert!(p["recipe"].as_str().is_some_and(|r| !r.contains("crimson")), "{p}");

    // mine stone with it, craft a stone pickaxe at the table
    for pos in [[2, -60, 1], [2, -60, 0], [2, -60, -1]] {
        mine_stone(&mut bot, &mut peer, pos);
    }
    let deadline = Instant::now() + DONE;
    while inventory_count(&mut bot, "cobblestone") < 3 {
        assert!(Instant::now() < deadline, "three cobblestone picked up");
        std::thread::sleep(Duration::from_millis(100));
    }
    craft(
        &mut bot,
        &mut peer,
        json!({"action": "craft", "item": "stone_pickaxe", "table": table}),
        "stone_pickaxe",
        1,
        &[("cobblestone", 3), ("stick", 2)],
    );
    let r = ok(&mut bot, json!({"action": "close"}));
    assert_eq!(r["closed"], true);
    bot.wait_event("container_closed", ANSWER).expect("container_closed");

    // the chest: take the iron ore and the coal
    let r = ok(&mut bot, json!({"action": "open", "x": -2, "y": -60, "z": 2}));
    let d = done(&mut bot, "open_done", &r["id"], DONE);
    assert_eq!(
        (d["confirmed"].clone(), d["windowType"].clone(), d["size"].clone()),
        (json!(true), json!("container"), json!(27)),
        "{d}"
    );
    let names: Vec<&str> =
        d["items"].as_array().into_iter().flatten().filter_map(|s| s["item"]["name"].as_str()).collect();
    assert_eq!(names, ["minecraft:iron_ore", "minecraft:coal", "minecraft:apple"], "{d}");
    // Two takes written at once: the second finds the container slot taken and is refused
    // without reaching the server; `container` keeps showing what the server's answers said.
    bot.send_lines(&[
        json!({"action": "take", "item": "iron_ore", "id": "race-iron"}).to_string(),
        json!({"action": "take", "item": "coal", "id": "race-coal"}).to_string(),
    ]);
    let answer = |bot: &mut Bot, id: &str| {
        bot.wait(|v| v["type"] == "response" && v["id"] == id, ANSWER).unwrap_or_else(|| panic!("no answer to {id}"))
    };
    let iron = answer(&mut bot, "race-iron");
    assert_eq!(iron["sent"], true, "{iron}");
    let coal = answer(&mut bot, "race-coal");
    assert_eq!(coal["code"], "BUSY", "{coal}");
    let d = done(&mut bot, "take_done", &json!("race-iron"), DONE);
    assert_eq!(
        (d["confirmed"].clone(), d["count"].clone(), d["inventoryCount"].clone(), d["containerCount"].clone()),
        (json!(true), json!(1), json!(1), json!(0)),
        "{d}"
    );
    peer_event(&mut peer, "stack_ok", |v| v["actions"] == json!(["take"]));
    let chest_items = |bot: &mut Bot| -> Vec<(u64, String, u64)> {
        let c = ok(bot, json!({"action": "container"}));
        c["items"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|s| {
                (
                    s["slot"].as_u64().unwrap_or(99),
                    s["item"]["name"].as_str().unwrap_or("").to_owned(),
                    s["item"]["count"].as_u64().unwrap_or(0),
                )
            })
            .collect()
    };
    let items = chest_items(&mut bot);
    assert!(items.contains(&(1, "minecraft:coal".into(), 2)), "the refused take moved nothing: {items:?}");
    assert!(!items.iter().any(|(_, n, _)| n == "minecraft:iron_ore"), "the iron ore left: {items:?}");
    assert_eq!(inventory_count(&mut bot, "coal"), 0, "no coal arrived");
    assert!(
        !bot.seen.iter().any(|v| v["type"] == "item_added" && v["item"]["name"] == "minecraft:coal"),
        "no coal arrived"
    );
    // After take_done the retry goes through.
    let r = ok(&mut bot, json!({"action": "take", "item": "coal"}));
    let d = done(&mut bot, "take_done", &r["id"], DONE);
    assert_eq!(
        (d["confirmed"].clone(), d["count"].clone(), d["inventoryCount"].clone(), d["containerCount"].clone()),
        (json!(true), json!(2), json!(2), json!(0)),
        "{d}"
    );
    peer_event(&mut peer, "stack_ok", |v| v["actions"] == json!(["take"]));
    let items = chest_items(&mut bot);
    assert_eq!(items, [(5, "minecraft:apple".to_owned(), 3)], "only the apples are left, as the server says");
    // The peer saw two take requests: the refused one never left the bot.
    let takes = peer.packets_named("item_stack_request").iter().filter(|p| p.to_string().contains("\"take\"")).count();
    assert_eq!(takes, 2, "iron ore, then the coal retry");
    ok(&mut bot, json!({"action": "close"}));
    let p = peer_event(&mut peer, "container_closed", |v| v["block"] == "chest");
    assert_eq!(p["slots"][5], json!({"name": "apple", "count": 3}), "{p}");
    assert!(p["slots"][0].is_null() && p["slots"][1].is_null(), "{p}");

    // smelt the ore in the blast furnace
    let r = ok(&mut bot, json!({"action": "open", "x": -1, "y": -60, "z": -2}));
    let d = done(&mut bot, "open_done", &r["id"], DONE);
    assert_eq!(d["windowType"], "blast_furnace", "{d}");
    let r = ok(&mut bot, json!({"action": "put", "item": "iron_ore"}));
    assert_eq!(r["moves"][0]["containerSlot"], 0, "ore goes to the input: {r}");
    done(&mut bot, "put_done", &r["id"], DONE);
    let r = ok(&mut bot, json!({"action": "put", "item": "coal", "count": 1}));
    assert_eq!(r["moves"][0]["containerSlot"], 1, "coal goes to the fuel: {r}");
    let d = done(&mut bot, "put_done", &r["id"], DONE);
    assert_eq!((d["confirmed"].clone(), d["inventoryCount"].clone()), (json!(true), json!(1)), "{d}");
    let ready = bot.wait_event("furnace_output_ready", Duration::from_secs(20)).expect("furnace_output_ready");
    assert_eq!(ready["item"]["name"], "minecraft:iron_ingot", "{ready}");
    let p = peer_event(&mut peer, "smelted", |v| v["block"] == "blast_furnace");
    assert_eq!(p["item"], "iron_ingot", "{p}");
    let c = ok(&mut bot, json!({"action": "container"}));
    assert!(c["furnace"]["burnDuration"].as_i64().unwrap_or(0) == 1600, "progress from ContainerSetData: {c}");
    let r = ok(&mut bot, json!({"action": "take", "slot": "output"}));
    let d = done(&mut bot, "take_done", &r["id"], DONE);
    assert_eq!(
        (d["item"].clone(), d["count"].clone(), d["inventoryCount"].clone()),
        (json!("minecraft:iron_ingot"), json!(1), json!(1)),
        "{d}"
    );
    ok(&mut bot, json!({"action": "close"}));
    peer_event(&mut peer, "container_closed", |v| v["block"] == "blast_furnace");
    assert_eq!(inventory_count(&mut bot, "stone_pickaxe"), 1);
    assert_eq!(inventory_count(&mut bot, "wooden_pickaxe"), 1);
    assert_eq!(inventory_count(&mut bot, "iron_ingot"), 1);
}

/// The peer's own check, run by its self-test with bedrock-protocol's client: a 3×3 recipe at
/// the 2×2 grid, an unknown recipe, a craft without its ingredients and one announcing the wrong
/// result are refused; a correct craft is accepted. (The bot checks all of this before it sends,
/// so this is how the server side's refusals are shown to work.)
#[test]
fn the_peer_refuses_wrong_recipes_and_missing_ingredients() {
    common::ensure_peer_installed();
    let out = std::process::Command::new("node")
        .arg(common::repo_root().join("tests/peer/selftest.js"))
        .arg("crafting")
        .stderr(std::process::Stdio::null())
        .output()
        .expect("node selftest.js");
    let line = String::from_utf8_lossy(&out.stdout);
    let v: Value = serde_json::from_str(line.trim()).unwrap_or(Value::Null);
    assert!(out.status.success() && v["ok"] == true, "{line}");
    assert_eq!(v["refused"][0], "needs a crafting table");
    assert_eq!(v["crafted"][0]["count"], 4);
}

/// The older (≤ 1.26.30: one tagged recipe list, crafts counted twice, results by network id)
/// and the newest layout: recipes arrive, a 2×2 craft and a chest take are confirmed.
#[test]
fn crafting_and_a_chest_at_the_oldest_and_newest_version() {
    for version in ["1.26.20", "1.26.60"] {
        let mut peer = Peer::start_args("crafting", &["--version", version]);
        let mut bot = Bot::start(peer.port, "Crafter");
        bot.wait_event("spawn", SPAWN).expect("spawn");
        peer.wait_line(|v| v["event"] == "crafting_ready", SPAWN).expect("crafting ready");
        let deadline = Instant::now() + ANSWER;
        while bot
            .request(json!({"action": "recipes", "item": "stick"}), ANSWER)
            .is_some_and(|r| r.get("error").is_some())
        {
            assert!(Instant::now() < deadline, "{version}: recipes never arrived");
            std::thread::sleep(Duration::from_millis(100));
        }
        let (d, _) = craft(
            &mut bot,
            &mut peer,
            json!({"action": "craft", "item": "oak_planks", "count": 8}),
            "oak_planks",
            8,
            &[("oak_log", 2)],
        );
        assert_eq!(d["crafts"], 2, "{version}: {d}");
        craft(
            &mut bot,
            &mut peer,
            json!({"action": "craft", "item": "stick", "count": 4}),
            "stick",
            4,
            &[("oak_planks", 2)],
        );
        let r = ok(&mut bot, json!({"action": "open", "x": -2, "y": -60, "z": 2}));
        done(&mut bot, "open_done", &r["id"], DONE);
        let r = ok(&mut bot, json!({"action": "take", "item": "coal"}));
        let d = done(&mut bot, "take_done", &r["id"], DONE);
        assert_eq!((d["confirmed"].clone(), d["inventoryCount"].clone()), (json!(true), json!(2)), "{version}: {d}");
    }
}
