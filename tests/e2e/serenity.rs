//! End-to-end against SerenityJS 0.8.21 (`tests/serenity`): a Bedrock server written
//! independently of the bot and of the test peer, with its own game logic — offline identities
//! read only from the legacy certificate chain, movement validation, survival break times,
//! inventories, chat broadcast, commands — at its own version (1.26.20, protocol 975). Each test
//! compares what the bot says with what Serenity says about its own world (the launcher's stdin
//! queries). What Serenity does not implement is listed in tests/README.md.

use crate::common;

use std::time::Duration;

use common::Bot;
use common::serenity::Serenity;
use serde_json::{Value, json};

const SPAWN: Duration = Duration::from_secs(60);
const ANSWER: Duration = Duration::from_secs(10);

fn num(v: &Value) -> f64 {
    v.as_f64().unwrap_or(f64::NAN)
}

/// Serenity and a bot that spawned on it (the bot picks 1.26.20 from the pong and logs in with the
/// certificate chain after Serenity refused vanilla's token shape).
fn joined(name: &str) -> (Serenity, Bot) {
    let mut server = Serenity::start();
    let mut bot = Bot::start(server.port, name);
    bot.wait_event("spawn", SPAWN).unwrap_or_else(|| panic!("{name} spawned on SerenityJS: {:?}", bot.seen));
    server.wait(|v| v["event"] == "spawned" && v["username"] == name, ANSWER).expect("Serenity saw the spawn");
    // Serenity streams the chunks after the spawn, and no event marks them in: ask the bot's own
    // path finder until the ground 10 blocks around is known (as tests/e2e/walk.rs does).
    let mut ready = false;
    for _ in 0..100 {
        let r = request(&mut bot, json!({"action": "reachable", "x": 10.5, "y": -60, "z": 0.5}));
        let feet = request(&mut bot, json!({"action": "pos"}));
        if r["reachable"] == true && feet["standingOn"].is_object() {
            ready = true;
            break;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    assert!(ready, "{name}: the chunks around the spawn arrived");
    (server, bot)
}

fn request(bot: &mut Bot, cmd: Value) -> Value {
    let r = bot.request(cmd.clone(), ANSWER).unwrap_or_else(|| panic!("no answer to {cmd}"));
    assert!(r.get("code").is_none(), "{cmd}: {r}");
    r
}

/// Walks to `(x, -60, z)` and waits for `walk_done` (status `done`).
fn walk_to(bot: &mut Bot, x: f64, z: f64) -> Value {
    let r = request(bot, json!({"action": "walk", "x": x, "y": -60, "z": z}));
    if r["walked"] == 0 {
        return r;
    }
    let id = r["id"].clone();
    let done = bot.wait(|v| v["type"] == "walk_done" && v["id"] == id, Duration::from_secs(30)).expect("walk_done");
    assert_eq!(done["status"], "done", "{done}");
    done
}

#[test]
fn joins_and_spawns_as_serenitys_operator() {
    let (mut server, mut bot) = joined("SerenityBot");
    let status = request(&mut bot, json!({"action": "status"}));
    assert_eq!(status["spawned"], true, "{status}");
    assert!(bot.seen.iter().all(|v| v["type"] != "disconnected"), "the refused token login never reached the agent");
    let me = server.player("SerenityBot");
    assert_eq!(me["op"], true, "the launcher made the bot operator: {me}");
    let pos = request(&mut bot, json!({"action": "pos"}));
    for axis in ["x", "y", "z"] {
        assert!(
            (num(&pos["pos"][axis]) - num(&me["position"][axis])).abs() < 0.1,
            "{axis}: bot {pos} vs Serenity {me}"
        );
    }
    let players = server.query(json!({"query": "players"}));
    assert_eq!(players["players"], json!(["SerenityBot"]));
}

#[test]
fn the_block_under_the_feet_is_serenitys_block() {
    let (mut server, mut bot) = joined("GroundBot");
    let pos = request(&mut bot, json!({"action": "pos"}));
    let under = &pos["standingOn"];
    let (x, y, z) = (under["x"].as_i64().expect("x"), under["y"].as_i64().expect("y"), under["z"].as_i64().expect("z"));
    assert_eq!(under["name"].as_str(), Some(server.block(x, y, z).as_str()), "{pos}");
    // The whole column down to the bottom of the world, block by block.
    let mut names = Vec::new();
    for by in (-64..=y).rev() {
        let b = request(&mut bot, json!({"action": "block", "x": x, "y": by, "z": z}));
        let theirs = server.block(x, by, z);
        assert_eq!(b["block"]["name"].as_str(), Some(theirs.as_str()), "at y {by}: {b}");
        names.push(theirs);
    }
    names.dedup();
    assert!(names.len() >= 2, "the superflat layers differ: {names:?}");
    assert!(names.iter().all(|n| n != "minecraft:air"), "{names:?}");
}

#[test]
fn chat_is_sent_and_comes_back() {
    let (mut server, mut bot) = joined("ChatBot");
    let r = request(&mut bot, json!({"action": "chat", "message": "hello from the bot"}));
    let id = r["id"].clone();
    server
        .wait(|v| v["event"] == "chat" && v["username"] == "ChatBot" && v["message"] == "hello from the bot", ANSWER)
        .expect("Serenity received the chat");
    let d = bot.wait(|v| v["type"] == "delivery" && v["id"] == id, ANSWER).expect("delivery");
    assert_eq!(
        (d["delivered"].clone(), d["via"].clone()),
        (json!(true), json!("echo")),
        "Serenity broadcast it back: {d}"
    );
}

#[test]
fn a_command_is_run_and_answered() {
    let (mut server, mut bot) = joined("CmdBot");
    // Serenity answers a player's command in chat (it sends no CommandOutput): the cmd is a sent
    // success with output null and a warning; the answer arrives as a msg; the effect is real.
    let r = bot.request(json!({"action": "cmd", "cmd": "/give @s dirt 3"}), ANSWER).expect("answer");
    assert!(r.get("code").is_none(), "{r}");
    assert_eq!((r["cmd"].clone(), r["output"].clone()), (json!("/give @s dirt 3"), Value::Null), "{r}");
    assert!(r["warnings"][0].as_str().is_some_and(|w| w.contains("no output")), "{r}");
    let msg = bot
        .wait(|v| v["type"] == "msg" && v["msg"].as_str().is_some_and(|m| m.contains("minecraft:dirt")), ANSWER)
        .expect("Serenity's answer in chat");
    assert!(msg["msg"].as_str().is_some_and(|m| m.contains("gave")), "{msg}");
    let inv = request(&mut bot, json!({"action": "inventory", "view": "summary"}));
    assert_eq!(inv["summary"]["items"], json!([{"name": "minecraft:dirt", "totalCount": 3}]), "{inv}");
    let me = server.player("CmdBot");
    let theirs: Vec<(String, u64)> = me["items"]
        .as_array()
        .expect("items")
        .iter()
        .map(|i| (i["item"].as_str().unwrap_or_default().to_owned(), i["count"].as_u64().unwrap_or_default()))
        .collect();
    assert_eq!(theirs, [("minecraft:dirt".to_owned(), 3)], "{me}");
}

#[test]
fn walking_ten_blocks_passes_serenitys_movement_validation() {
    let (mut server, mut bot) = joined("WalkBot");
    let start = server.player("WalkBot");
    let done = walk_to(&mut bot, 10.5, 0.5);
    assert!(done["walked"].as_u64().is_some_and(|w| w >= 10), "{done}");
    // No CorrectPlayerMovePrediction from Serenity's validation.
    let info = request(&mut bot, json!({"action": "movement_info"}));
    assert_eq!((info["corrections"].clone(), info["teleports"].clone()), (json!(0), json!(0)), "{info}");
    // Serenity's own view moved with the bot (it keeps only inputs it accepted).
    let pos = request(&mut bot, json!({"action": "pos"}));
    let me = server.player("WalkBot");
    let moved = num(&me["position"]["x"]) - num(&start["position"]["x"]);
    assert!(moved > 9.5, "Serenity moved the bot {moved} blocks: {start} → {me}");
    assert!((num(&me["position"]["x"]) - num(&pos["pos"]["x"])).abs() < 0.3, "bot {pos} vs Serenity {me}");
    assert!((num(&me["position"]["z"]) - num(&pos["pos"]["z"])).abs() < 0.3, "bot {pos} vs Serenity {me}");
    // server_pos cannot ask Serenity (no /querytarget in 0.8.21, tests/README.md): it says so
    // rather than presenting the last position Serenity sent as its view.
    let e = bot.request(json!({"action": "server_pos"}), ANSWER).expect("answer");
    assert_eq!(e["code"], "TIMEOUT", "{e}");
    assert!(e["error"].as_str().is_some_and(|t| t.contains("/querytarget")), "{e}");
}

/// Mines the grass block east of `(3.5, -60, 0.5)` (its drop falls into the hole within
/// Serenity's pickup range) and checks Serenity's break time, world and inventory.
fn mine_next_to_the_feet(server: &mut Serenity, bot: &mut Bot, name: &str) -> (i64, i64, i64) {
    walk_to(bot, 3.5, 0.5);
    let (x, y, z) = (4, -61, 0);
    assert_eq!(server.block(x, y, z), "minecraft:grass_block");
    let theirs = server.query(json!({"query": "breaktime", "username": name, "x": x, "y": y, "z": z}));
    let ticks = theirs["ticks"].as_u64().unwrap_or_else(|| panic!("{theirs}"));
    let r = request(bot, json!({"action": "mine", "x": x, "y": y, "z": z}));
    assert_eq!(r["breakTime"].as_u64(), Some(ticks), "the bot's break time is Serenity's: {r} vs {theirs}");
    let id = r["id"].clone();
    let done = bot.wait(|v| v["type"] == "mine_done" && v["id"] == id, ANSWER).expect("mine_done");
    assert_eq!((done["status"].clone(), done["confirmed"].clone()), (json!("done"), json!(true)), "{done}");
    assert!(done["ticks"].as_u64().is_some_and(|t| t >= ticks), "not before Serenity's time: {done}");
    server
        .wait(
            |v| v["event"] == "block_broken" && v["username"] == name && v["block"] == "minecraft:grass_block",
            ANSWER,
        )
        .expect("Serenity broke it");
    assert_eq!(server.block(x, y, z), "minecraft:air", "gone in Serenity's world");
    (x, y, z)
}

#[test]
fn mining_takes_serenitys_break_time_and_the_drop_lands_in_the_inventory() {
    let (mut server, mut bot) = joined("MineBot");
    mine_next_to_the_feet(&mut server, &mut bot, "MineBot");
    let added = bot
        .wait(|v| v["type"] == "item_added" && v["item"]["name"] == "minecraft:dirt", ANSWER)
        .expect("the drop was picked up");
    assert_eq!(added["item"]["count"], 1, "{added}");
    let me = server.player("MineBot");
    assert!(
        me["items"].as_array().is_some_and(|i| i.iter().any(|i| i["item"] == "minecraft:dirt" && i["count"] == 1)),
        "in Serenity's inventory too: {me}"
    );
}

#[test]
fn a_mined_block_is_placed_back() {
    let (mut server, mut bot) = joined("PlaceBot");
    let (x, y, z) = mine_next_to_the_feet(&mut server, &mut bot, "PlaceBot");
    bot.wait(|v| v["type"] == "item_added" && v["item"]["name"] == "minecraft:dirt", ANSWER).expect("picked up");
    let r = request(&mut bot, json!({"action": "place", "item": "dirt", "x": x, "y": y, "z": z}));
    let id = r["id"].clone();
    let done = bot.wait(|v| v["type"] == "place_done" && v["id"] == id, ANSWER).expect("place_done");
    assert_eq!((done["status"].clone(), done["confirmed"].clone()), (json!("done"), json!(true)), "{done}");
    server
        .wait(|v| v["event"] == "block_placed" && v["position"] == json!({"x": x, "y": y, "z": z}), ANSWER)
        .expect("Serenity placed it");
    assert_eq!(server.block(x, y, z), "minecraft:dirt", "back in Serenity's world");
    let b = request(&mut bot, json!({"action": "block", "x": x, "y": y, "z": z}));
    assert_eq!(b["block"]["name"], "minecraft:dirt", "{b}");
    let me = server.player("PlaceBot");
    assert!(me["items"].as_array().is_some_and(|i| i.iter().all(|i| i["item"] != "minecraft:dirt")), "used up: {me}");
}

/// Two bots of one process (a swarm) on Serenity: each sees the other in `players` and `nearby`,
/// where Serenity says it is.
#[test]
fn two_bots_of_one_process_see_each_other() {
    let mut server = Serenity::start();
    let swarm = json!({"bots": ["AlphaBot", "BetaBot"]}).to_string();
    let mut swarm_bot = Bot::start_with(server.port, "AlphaBot", &[("CLAWCRAFT_SWARM", swarm.as_str())]);
    for name in ["AlphaBot", "BetaBot"] {
        swarm_bot.wait(|v| v["type"] == "spawn" && v["bot"] == name, SPAWN).unwrap_or_else(|| panic!("{name} spawned"));
        server.wait(|v| v["event"] == "spawned" && v["username"] == name, ANSWER).expect("Serenity saw it");
    }
    for (me, other) in [("AlphaBot", "BetaBot"), ("BetaBot", "AlphaBot")] {
        let bot = &mut swarm_bot;
        // The roster and the other player's entity arrive after the spawn, each with its event.
        let of = |kind: &'static str| move |v: &Value| v["type"] == kind && v["bot"] == me && v["name"] == other;
        bot.wait(of("player_join"), ANSWER).expect("player_join");
        bot.wait(of("player_appear"), ANSWER).expect("player_appear");
        let players = request(bot, json!({"action": "players", "bot": me}));
        assert!(players["players"].as_array().is_some_and(|p| p.iter().any(|p| p["name"] == other)), "{players}");
        let nearby = request(bot, json!({"action": "nearby", "radius": 32, "bot": me}));
        let listed = nearby["nearby"]["players"]
            .as_array()
            .and_then(|p| p.iter().find(|p| p["name"] == other).cloned())
            .unwrap_or_else(|| panic!("{other} nearby: {nearby}"));
        let theirs = server.player(other);
        for axis in ["x", "z"] {
            assert!(
                (num(&listed["position"][axis]) - num(&theirs["position"][axis])).abs() < 0.5,
                "{axis}: {listed} vs {theirs}"
            );
        }
    }
}
