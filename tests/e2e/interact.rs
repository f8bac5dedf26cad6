//! End to end against the peer's survival scenario (`tests/peer/survival.js`): the real binary
//! mines blocks and receives their drops, places one back, eats, opens a door, kills the
//! zombie, throws and drops a snowball, moves items (one move refused) — each asserted on the
//! bot's receipt and on the peer's own account of what it accepted. The peer computes break
//! times itself from minecraft-data and refuses a break that comes too early. Sleeping has its
//! own session: refused by day and with a monster near the bed, granted at night onto the bed.
//!
//! With `--nocapture` it prints the mining figures (ticks vs expected, wall time) for README.

use crate::common;

use std::time::{Duration, Instant};

use common::{Bot, Peer, TempDir};
use serde_json::{Value, json};

const SPAWN: Duration = Duration::from_secs(40);
const ANSWER: Duration = Duration::from_secs(10);
const DONE: Duration = Duration::from_secs(15);

fn ok(bot: &mut Bot, cmd: Value) -> Value {
    bot.ok(cmd)
}

/// The completion event `kind` of request `id`.
fn done(bot: &mut Bot, kind: &str, id: &Value) -> Value {
    bot.wait(|v| v["type"] == kind && v["id"] == *id, DONE).unwrap_or_else(|| panic!("no {kind} for {id}"))
}

fn peer_event(peer: &mut Peer, event: &str, pred: impl Fn(&Value) -> bool) -> Value {
    peer.wait_line(|v| v["event"] == event && pred(v), DONE).unwrap_or_else(|| panic!("peer never said {event}"))
}

struct Mined {
    what: String,
    expected: u64,
    ticks: u64,
    peer_elapsed: u64,
    /// Command sent → the peer accepted the break.
    accepted_ms: u64,
    /// Command sent → `mine_done` (includes waiting for the drop to be picked up).
    ms: u128,
}

fn unix_ms() -> u64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_millis() as u64)
}

/// Mines `pos`, checks the receipt against the peer, returns the figures.
fn mine(bot: &mut Bot, peer: &mut Peer, pos: [i64; 3], extra: Value, want_ticks: u64, drop: &str) -> Mined {
    let mut cmd = json!({"action": "mine", "x": pos[0], "y": pos[1], "z": pos[2]});
    if let (Some(c), Some(e)) = (cmd.as_object_mut(), extra.as_object()) {
        c.extend(e.clone());
    }
    let start = Instant::now();
    let sent_at = unix_ms();
    let r = ok(bot, cmd);
    assert_eq!(r["breakTime"], want_ticks, "{r}");
    let d = done(bot, "mine_done", &r["id"]);
    let ms = start.elapsed().as_millis();
    let p = peer_event(peer, "block_broken", |v| v["pos"] == json!({"x": pos[0], "y": pos[1], "z": pos[2]}));
    assert_eq!((d["status"].clone(), d["confirmed"].clone()), (json!("done"), json!(true)), "{d}");
    assert_eq!(d["ticks"], want_ticks, "{d}");
    assert_eq!(p["expected"], want_ticks, "the peer's own break time agrees: {p}");
    let elapsed = p["elapsed"].as_u64().unwrap_or(0);
    assert!(elapsed >= want_ticks && elapsed <= want_ticks + 1, "accepted within one tick of the expected time: {p}");
    let drops = d["drops"].as_array().cloned().unwrap_or_default();
    assert!(
        drops.iter().any(|x| x["name"] == format!("minecraft:{drop}") && x["pickedUp"] == true),
        "drop {drop} received: {d}"
    );
    Mined {
        what: format!("{} / {}", r["block"].as_str().unwrap_or("?"), r["tool"].as_str().unwrap_or("hand")),
        expected: want_ticks,
        ticks: d["ticks"].as_u64().unwrap_or(0),
        peer_elapsed: elapsed,
        accepted_ms: p["t"].as_u64().unwrap_or(0).saturating_sub(sent_at),
        ms,
    }
}

#[test]
fn a_survival_session_where_every_receipt_is_what_the_server_confirmed() {
    let dir = TempDir::new("interact-e2e");
    let skills_dir = dir.path().join("skills");
    let mut peer = Peer::start("survival");
    let mut bot = Bot::start_with(peer.port, "Miner", &[("CLAWCRAFT_SKILLS_DIR", skills_dir.to_str().expect("utf-8"))]);
    bot.wait_event("spawn", SPAWN).expect("spawn");
    peer.wait_line(|v| v["event"] == "survival_ready", SPAWN).expect("survival ready");
    // The inventory arrives right after spawn.
    let deadline = Instant::now() + ANSWER;
    let inv = loop {
        let r = bot.request(json!({"action": "inventory"}), ANSWER).expect("inventory");
        if r.get("code").is_none() || Instant::now() > deadline {
            break r;
        }
        std::thread::sleep(Duration::from_millis(100));
    };
    assert_eq!(inv["slots"][0]["name"], "minecraft:wooden_pickaxe", "{inv}");
    assert_eq!(inv["slots"][3]["enchantments"], json!([{"id": 15, "level": 5}]));
    assert_eq!(inv["slots"][30]["name"], "minecraft:barrier");
    assert_eq!(
        (inv["armor"][0]["name"].clone(), inv["offhand"]["name"].clone()),
        (json!("minecraft:iron_helmet"), json!("minecraft:totem_of_undying"))
    );
    assert_eq!(inv["heldSlot"], 0);

    let mut figures = Vec::new();
    // By hand (an empty hotbar slot): dirt, then grass (vanilla 0.9 s; ClawCraft took 3.31 s).
    ok(&mut bot, json!({"action": "equip", "slot": 6}));
    peer_event(&mut peer, "held", |v| v["slot"] == 6);
    figures.push(mine(&mut bot, &mut peer, [-2, -60, 0], json!({}), 15, "dirt"));
    let pickup = bot
        .wait(|v| (v["type"] == "item_count_changed" || v["type"] == "item_added") && v["source"] == "pickup", ANSWER)
        .expect("the drop arrived as a pickup");
    assert_eq!(pickup["item"]["name"], "minecraft:dirt");
    assert!(pickup["entityPosition"].is_object(), "{pickup}");
    figures.push(mine(&mut bot, &mut peer, [-1, -60, 2], json!({}), 18, "dirt"));
    // Wooden pickaxe on stone; the pickaxe wears.
    ok(&mut bot, json!({"action": "equip", "item": "wooden_pickaxe"}));
    figures.push(mine(&mut bot, &mut peer, [2, -60, 1], json!({}), 23, "cobblestone"));
    let worn = bot.wait_event("item_damaged", ANSWER).expect("item_damaged");
    assert_eq!((worn["previousDurability"].clone(), worn["durability"].clone()), (json!(59), json!(58)));
    // autoTool picks the Efficiency V diamond pickaxe for obsidian.
    figures.push(mine(&mut bot, &mut peer, [0, -60, -2], json!({"autoTool": true}), 31, "obsidian"));

    // Place dirt back where it was.
    let r = ok(&mut bot, json!({"action": "place", "item": "dirt", "x": -2, "y": -60, "z": 0}));
    let d = done(&mut bot, "place_done", &r["id"]);
    assert_eq!(
        (d["status"].clone(), d["confirmed"].clone(), d["block"].clone()),
        (json!("done"), json!(true), json!("minecraft:dirt")),
        "{d}"
    );
    let before = d["itemCount"]["before"].as_u64().unwrap_or(0);
    assert_eq!(d["itemCount"]["after"].as_u64(), Some(before - 1), "{d}");
    peer_event(&mut peer, "block_placed", |v| v["pos"] == json!({"x": -2, "y": -60, "z": 0}));

    // Eat bread: hunger 14 → 19, one bread less.
    let r = ok(&mut bot, json!({"action": "eat", "item": "bread"}));
    let d = done(&mut bot, "eat_done", &r["id"]);
    assert_eq!((d["status"].clone(), d["confirmed"].clone()), (json!("done"), json!(true)), "{d}");
    assert_eq!(d["hunger"], json!({"before": 14.0, "after": 19.0}));
    assert_eq!(d["itemCount"], json!({"before": 5, "after": 4}));
    peer_event(&mut peer, "ate", |v| v["item"] == "bread");

    // Open the door.
    let r = ok(&mut bot, json!({"action": "interact", "x": 3, "y": -60, "z": 3}));
    let d = done(&mut bot, "interact_done", &r["id"]);
    assert_eq!((d["status"].clone(), d["properties"]["open_bit"].clone()), (json!("done"), json!(true)), "{d}");
    peer_event(&mut peer, "block_interacted", |v| v["open_bit"] == 1);

    // Kill the zombie with the iron sword (10 health, 6 per hit).
    ok(&mut bot, json!({"action": "equip", "item": "iron_sword"}));
    let r = ok(&mut bot, json!({"action": "attack", "entity": "zombie"}));
    assert_eq!(r["entity"]["name"], "zombie");
    let d = done(&mut bot, "attack_done", &r["id"]);
    assert_eq!(
        (d["hurt"].clone(), d["health"].clone(), d["killed"].clone()),
        (json!(true), json!(4.0), json!(false)),
        "{d}"
    );
    let r = ok(&mut bot, json!({"action": "attack", "entity": "zombie"}));
    let d = done(&mut bot, "attack_done", &r["id"]);
    assert_eq!((d["status"].clone(), d["killed"].clone()), (json!("done"), json!(true)), "{d}");
    peer_event(&mut peer, "zombie_killed", |_| true);

    // Throw a snowball (4 → 3, the projectile the server spawned), then drop one by an item-stack
    // request (the item entity the server spawned for it).
    ok(&mut bot, json!({"action": "equip", "item": "snowball"}));
    let r = ok(&mut bot, json!({"action": "throw", "x": 5, "y": -59, "z": 0}));
    let d = done(&mut bot, "throw_done", &r["id"]);
    assert_eq!((d["status"].clone(), d["confirmed"].clone()), (json!("done"), json!(true)), "{d}");
    assert_eq!(d["itemCount"], json!({"before": 4, "after": 3}), "{d}");
    let thrown = peer_event(&mut peer, "thrown", |v| v["item"] == "snowball");
    assert_eq!(d["projectile"]["kind"], "minecraft:snowball", "{d}");
    assert_eq!(d["projectile"]["runtimeId"].to_string(), thrown["runtime_id"].as_str().unwrap_or("?"), "{d}");
    let r = ok(&mut bot, json!({"action": "drop", "count": 1}));
    let d = done(&mut bot, "drop_done", &r["id"]);
    assert_eq!(
        (d["status"].clone(), d["confirmed"].clone(), d["item"].clone(), d["count"].clone()),
        (json!("done"), json!(true), json!("minecraft:snowball"), json!(1)),
        "{d}"
    );
    let spawned = peer_event(&mut peer, "item_spawned", |v| v["why"] == "drop" && v["name"] == "snowball");
    assert_eq!(spawned["count"], 1);
    assert_eq!(d["entity"]["runtimeId"].to_string(), spawned["runtime_id"].as_str().unwrap_or("?"), "{d}");
    peer_event(&mut peer, "stack_ok", |v| v["actions"] == json!(["drop"]));

    // Inventory moves: one the server refuses (the scenario's locked item), one it accepts.
    let r = bot.request(json!({"action": "equip", "item": "barrier"}), DONE).expect("answer");
    assert_eq!(r["code"], "REJECTED", "{r}");
    peer_event(&mut peer, "stack_refused", |v| v["why"] == "locked item");
    let r = ok(&mut bot, json!({"action": "equip", "item": "cooked_beef"}));
    assert_eq!(
        (r["confirmed"].clone(), r["item"]["name"].clone()),
        (json!(true), json!("minecraft:cooked_beef")),
        "{r}"
    );
    peer_event(&mut peer, "stack_ok", |_| true);
    let r = ok(&mut bot, json!({"action": "unequip", "target": "offhand"}));
    assert_eq!(
        (r["confirmed"].clone(), r["item"]["name"].clone()),
        (json!(true), json!("minecraft:totem_of_undying")),
        "{r}"
    );
    peer_event(&mut peer, "legacy_move", |v| v["item"] == "totem_of_undying");

    // The shipped buildPillar skill (on `place`) passes its trial: two dirt blocks one step east
    // of the spawn, each confirmed by the server, judged on the blocks the bot then sees.
    let path = common::repo_root().join("skill/skills/buildPillar.json");
    let mut def: Value = serde_json::from_str(&std::fs::read_to_string(path).expect("buildPillar.json")).expect("json");
    def["id"] = json!("def-pillar");
    bot.send_line(&def.to_string());
    let r = bot.wait(|v| v["type"] == "response" && v["id"] == "def-pillar", ANSWER).expect("skill_define answer");
    assert_eq!(r["state"], "candidate", "{r}");
    let r = ok(&mut bot, json!({"action": "skill_trial", "skill": "buildPillar", "parameters": {"item": "dirt"}}));
    let run = r["run"].clone();
    let d = bot.wait(|v| v["type"] == "skill_finished" && v["run"] == run, DONE).expect("skill_finished");
    let evidence = std::fs::read_to_string(d["evidence"].as_str().unwrap_or_default()).unwrap_or_default();
    assert_eq!((d["status"].clone(), d["verdict"].clone()), (json!("done"), json!("passed")), "{d}\n{evidence}");
    assert_eq!(d["lifecycle"]["after"], "promoted", "{d}");
    for y in [-60, -59] {
        peer_event(&mut peer, "block_placed", |v| v["pos"] == json!({"x": 1, "y": y, "z": 0}));
    }
    // A third block would need a click on the pillar's top face, above the eye: refused, not sent.
    let r = bot.request(json!({"action": "place", "item": "dirt", "x": 1, "y": -58, "z": 0}), ANSWER).expect("answer");
    assert_eq!(r["code"], "NO_LINE_OF_SIGHT", "{r}");

    // The shipped collectLogs skill (find, walk, mine): three oak logs south-west of the spawn,
    // each walked to, cut with the wooden axe autoTool picks, its drop picked up; judged on the
    // inventory the server sent.
    let path = common::repo_root().join("skill/skills/collectLogs.json");
    let mut def: Value = serde_json::from_str(&std::fs::read_to_string(path).expect("collectLogs.json")).expect("json");
    def["id"] = json!("def-logs");
    bot.send_line(&def.to_string());
    let r = bot.wait(|v| v["type"] == "response" && v["id"] == "def-logs", ANSWER).expect("skill_define answer");
    assert_eq!(r["state"], "candidate", "{r}");
    let r = ok(&mut bot, json!({"action": "skill_trial", "skill": "collectLogs"}));
    let run = r["run"].clone();
    let d = bot
        .wait(|v| v["type"] == "skill_finished" && v["run"] == run, Duration::from_secs(90))
        .expect("skill_finished");
    let evidence = std::fs::read_to_string(d["evidence"].as_str().unwrap_or_default()).unwrap_or_default();
    assert_eq!((d["status"].clone(), d["verdict"].clone()), (json!("done"), json!("passed")), "{d}\n{evidence}");
    assert_eq!(d["result"]["mined"], 3, "{d}");
    assert_eq!(d["checks"]["observed"]["delta"], 3.0, "{d}");
    for _ in 0..3 {
        let b = peer_event(&mut peer, "block_broken", |v| v["block"] == "oak_log");
        assert_eq!((b["tool"].clone(), b["drops"].clone()), (json!("wooden_axe"), json!(["oak_log"])), "{b}");
        peer_event(&mut peer, "picked_up", |v| v["name"] == "oak_log");
    }
    let refused: Vec<Value> =
        peer.packets_named("__auth_pos").into_iter().filter(|p| p["accepted"] == json!(false)).collect();
    assert!(refused.is_empty(), "the walks were accepted by the peer's movement checks: {refused:?}");

    // Walks that change the world on their way (issue 8): through the closed door in the wall at
    // x 8 — opened by the walk, the peer's block update showing it open — and up the 3-high
    // column at (6, -6) by pillaring with dirt; judged on the peer's log of what it accepted.
    walk_to(&mut bot, json!({"action": "walk", "x": 5.5, "y": -60, "z": 0.5}));
    let d = walk_to(&mut bot, json!({"action": "walk", "x": 11.5, "y": -60, "z": 0.5, "id": "through-door"}));
    assert_eq!(
        d["changed"],
        json!([{"change": "opened", "block": "minecraft:wooden_door", "x": 8, "y": -60, "z": 0, "ticks": d["changed"][0]["ticks"]}]),
        "{d}"
    );
    let opened = peer_event(&mut peer, "block_interacted", |v| v["pos"] == json!({"x": 8, "y": -60, "z": 0}));
    assert_eq!(opened["open_bit"], 1, "{opened}");
    assert_peer_at(&peer, [11.5, -60.0, 0.5]);
    let in_frame = |p: &Value| {
        let c = |k: &str| p[k].as_f64().unwrap_or(f64::NAN);
        p["accepted"] == true && (7.9..=9.1).contains(&c("x")) && (c("z") - 0.5).abs() < 0.5
    };
    assert!(peer.packets_named("__auth_pos").iter().any(in_frame), "the peer saw the bot pass through the door frame");
    let d =
        walk_to(&mut bot, json!({"action": "walk", "x": 6.5, "y": -57, "z": -5.5, "allowPlace": true, "id": "pillar"}));
    let placed: Vec<Value> = d["changed"].as_array().cloned().unwrap_or_default();
    assert!(
        placed.len() >= 2 && placed.iter().all(|c| c["change"] == "placed" && c["item"] == "minecraft:dirt"),
        "{d}"
    );
    for c in &placed {
        let at = json!({"x": c["x"], "y": c["y"], "z": c["z"]});
        let p = peer_event(&mut peer, "block_placed", |v| v["pos"] == at);
        assert_eq!(p["block"], "dirt", "{p}");
    }
    assert_peer_at(&peer, [6.5, -57.0, -5.5]);
    let refused: Vec<Value> =
        peer.packets_named("__auth_pos").into_iter().filter(|p| p["accepted"] == json!(false)).collect();
    assert!(refused.is_empty(), "the door and pillar walks were accepted by the peer: {refused:?}");

    // The block actions went inside PlayerAuthInput, as server-authoritative breaking expects.
    let actions: Vec<String> = peer
        .packets_named("player_auth_input")
        .iter()
        .flat_map(|p| p["params"]["block_action"].as_array().cloned().unwrap_or_default())
        .filter_map(|a| a["action"].as_str().map(str::to_owned))
        .collect();
    // Four mined by hand or tool above, three logs by collectLogs.
    assert_eq!(actions.iter().filter(|a| *a == "start_break").count(), 7);
    assert_eq!(actions.iter().filter(|a| *a == "predict_break").count(), 7);
    let flagged =
        peer.packets_named("player_auth_input").into_iter().filter(|p| p["params"]["block_action"].is_array()).all(
            |p| {
                // A list of flag names (1.26.40+) or, before, an object of flag bits.
                let flags = &p["params"]["input_data"];
                flags.as_array().is_some_and(|f| f.iter().any(|x| x == "block_action")) || flags["block_action"] == true
            },
        );
    assert!(flagged, "every input carrying block actions has the block_action flag");

    eprintln!(
        "mining figures (block / tool: bot ticks, expected, peer-measured ticks, command → server accepted, command → mine_done):"
    );
    for f in &figures {
        eprintln!(
            "  {}: {} ticks (expected {}), peer {} ticks, accepted after {} ms, mine_done after {} ms",
            f.what, f.ticks, f.expected, f.peer_elapsed, f.accepted_ms, f.ms
        );
        assert_eq!(f.ticks, f.expected);
    }
}

/// Runs a server command through the bot; the peer must accept it.
fn server_cmd(bot: &mut Bot, peer: &mut Peer, command: &str, event: &str) -> Value {
    let r = ok(bot, json!({"action": "cmd", "cmd": command}));
    assert_eq!(r["success"], true, "{command}: {r}");
    peer_event(peer, event, |_| true)
}

/// The bot's feet position.
fn bot_pos(bot: &mut Bot) -> Value {
    ok(bot, json!({"action": "pos"}))["pos"].clone()
}

fn near(a: &Value, b: &Value, tolerance: f64) -> bool {
    ["x", "y", "z"].iter().all(|k| match (a[k].as_f64(), b[k].as_f64()) {
        (Some(p), Some(q)) => (p - q).abs() <= tolerance,
        _ => false,
    })
}

/// Sleeping as vanilla rules it (tests/peer/README.md "Sleeping"): the peer refuses by day and
/// with a monster within 8 blocks of the bed, and lets the bot sleep at night with none, moving
/// it onto the bed. The bot reports each refusal as `failed` with the reason and the server's
/// message, stays where it was, and on success reports the position the server set — which is
/// where the bot then is, by its own account and by the positions the server accepts from it.
#[test]
fn sleep_is_refused_by_day_and_near_a_monster_and_granted_onto_the_bed_at_night() {
    let mut peer = Peer::start("survival");
    let mut bot = Bot::start(peer.port, "Sleeper");
    bot.wait_event("spawn", SPAWN).expect("spawn");
    peer.wait_line(|v| v["event"] == "survival_ready", SPAWN).expect("survival ready");
    // The bed: head (-2, -60, -2), foot (-2, -60, -3). The scenario's own zombie goes first, so
    // each refusal below has one cause.
    let killed = server_cmd(&mut bot, &mut peer, "/kill @e[type=zombie]", "killed");
    assert_eq!(killed["runtime_ids"], json!(["100"]), "{killed}");
    let sleep = json!({"action": "sleep", "x": -2, "y": -60, "z": -2});
    let at_spawn = bot_pos(&mut bot);

    // By day: refused, not night.
    server_cmd(&mut bot, &mut peer, "/time set noon", "time_set");
    let r = ok(&mut bot, sleep.clone());
    let d = done(&mut bot, "sleep_done", &r["id"]);
    assert_eq!(
        (d["status"].clone(), d["reason"].clone(), d["message"].clone(), d["confirmed"].clone(), d["position"].clone()),
        (json!("failed"), json!("not_night"), json!("tile.bed.noSleep"), json!(false), json!(null)),
        "{d}"
    );
    let refused = peer_event(&mut peer, "sleep_refused", |_| true);
    assert_eq!((refused["reason"].clone(), refused["time"].clone()), (json!("not_night"), json!(6000)), "{refused}");
    assert_eq!(bot_pos(&mut bot), at_spawn, "not moved");

    // At night with a zombie 5.5 blocks west of the bed's head: refused, monsters nearby.
    server_cmd(&mut bot, &mut peer, "/time set night", "time_set");
    server_cmd(&mut bot, &mut peer, "/summon zombie -7 -60 -1.5", "summoned");
    let r = ok(&mut bot, sleep.clone());
    let d = done(&mut bot, "sleep_done", &r["id"]);
    assert_eq!(
        (d["status"].clone(), d["reason"].clone(), d["message"].clone(), d["position"].clone()),
        (json!("failed"), json!("monsters_nearby"), json!("tile.bed.notSafe"), json!(null)),
        "{d}"
    );
    let refused = peer_event(&mut peer, "sleep_refused", |_| true);
    assert_eq!(
        (refused["reason"].clone(), refused["monster"]["distance"].clone()),
        (json!("monsters_nearby"), json!(5.5)),
        "{refused}"
    );
    assert_eq!(bot_pos(&mut bot), at_spawn, "not moved");

    // At night with no monster: the server lets the bot sleep and puts it on the bed.
    server_cmd(&mut bot, &mut peer, "/kill @e[type=zombie]", "killed");
    let r = ok(&mut bot, sleep);
    let d = done(&mut bot, "sleep_done", &r["id"]);
    let granted = peer_event(&mut peer, "sleeping", |_| true);
    let lying = granted["position"].clone();
    assert_eq!(
        lying,
        json!({"x": -1.5, "y": -59.4375, "z": -1.5}),
        "the peer lays the sleeper on the bed's head: {granted}"
    );
    assert_eq!(
        (d["status"].clone(), d["confirmed"].clone(), d["message"].clone()),
        (json!("done"), json!(true), json!(null)),
        "{d}"
    );
    assert!(near(&d["position"], &lying, 1e-3), "sleep_done carries the position the server set: {d}");
    let started = bot.wait_event("sleep_started", ANSWER).expect("sleep_started");
    assert_eq!(started["bedPos"], json!({"x": -2, "y": -60, "z": -2}), "{started}");
    let now = bot_pos(&mut bot);
    assert!(near(&now, &lying, 1e-3), "the bot reports itself on the bed: {now}");
    // ... and its inputs say so: the server accepts a position on the bed from it.
    let accepted_on_bed =
        |log: &[Value]| log.iter().any(|p| p["name"] == "__auth_pos" && p["accepted"] == true && near(p, &lying, 1e-3));
    assert!(peer.wait_log(accepted_on_bed, ANSWER), "the peer never accepted an input on the bed");

    let r = ok(&mut bot, json!({"action": "wake"}));
    let d = done(&mut bot, "wake_done", &r["id"]);
    assert_eq!((d["status"].clone(), d["confirmed"].clone()), (json!("done"), json!(true)), "{d}");
    peer_event(&mut peer, "woke", |_| true);
}

/// Walks and waits for `walk_done`, which must be `done`.
fn walk_to(bot: &mut Bot, cmd: Value) -> Value {
    let r = ok(bot, cmd.clone());
    assert_eq!(r["complete"], true, "{cmd}: {r}");
    let d = bot.wait(|v| v["type"] == "walk_done" && v["id"] == r["id"], Duration::from_secs(30)).expect("walk_done");
    assert_eq!(d["status"], "done", "{cmd}: {d}");
    d
}

/// The peer's last accepted position of the bot comes within half a block of `at` (feet).
fn assert_peer_at(peer: &Peer, at: [f64; 3]) {
    let near = |p: &Value| {
        let c = |k: &str| p[k].as_f64().unwrap_or(f64::NAN);
        ((c("x") - at[0]).powi(2) + (c("z") - at[2]).powi(2)).sqrt() < 0.5 && (c("y") - at[1]).abs() < 0.1
    };
    let last = |log: &[Value]| log.iter().rev().find(|p| p["name"] == "__auth_pos" && p["accepted"] == true).cloned();
    let arrived = peer.wait_log(|log| last(log).is_some_and(|p| near(&p)), ANSWER);
    assert!(arrived, "the peer has the bot at {:?}, expected {at:?}", last(&peer.packets()));
}

/// The peer's own check, run by its self-test with bedrock-protocol's client: a `predict_break`
/// two ticks after `start_break` on dirt (15 ticks by hand) is refused and the block sent back;
/// one fifteen ticks after is accepted with a dirt drop. (The bot never breaks early, so this is
/// how the refusal path of the server side is shown to work.)
/// A held-slot change ends an item use at the server (vanilla; the peer cancels the use): the
/// bot's eat fails at once, and its receipt claims nothing eaten — the use's slot still holds
/// all its bread and hunger did not move. The next eat is the next thing the peer feeds.
#[test]
fn a_held_slot_change_ends_an_eat_at_the_server_and_in_the_receipt() {
    let mut peer = Peer::start("survival");
    let mut bot = Bot::start(peer.port, "Eater");
    bot.wait_event("spawn", SPAWN).expect("spawn");
    peer.wait_line(|v| v["event"] == "survival_ready", SPAWN).expect("survival ready");
    let deadline = Instant::now() + ANSWER;
    while bot.request(json!({"action": "inventory"}), ANSWER).is_some_and(|r| r.get("code").is_some()) {
        assert!(Instant::now() < deadline, "the inventory never arrived");
        std::thread::sleep(Duration::from_millis(100));
    }

    // Bread (hotbar 2) is pulled into the hand and the use starts; then the sword's slot is held.
    let r = ok(&mut bot, json!({"action": "eat", "item": "bread"}));
    peer_event(&mut peer, "use_started", |v| v["item"] == "bread");
    ok(&mut bot, json!({"action": "equip", "slot": 4}));
    let cancelled = peer_event(&mut peer, "use_cancelled", |_| true);
    assert_eq!(
        (cancelled["item"].clone(), cancelled["from"].clone(), cancelled["to"].clone()),
        (json!("bread"), json!(2), json!(4))
    );
    let d = done(&mut bot, "eat_done", &r["id"]);
    assert_eq!(
        (d["status"].clone(), d["reason"].clone(), d["confirmed"].clone()),
        (json!("failed"), json!("held_slot_changed"), json!(false)),
        "{d}"
    );
    assert_eq!(d["hunger"], json!({"before": 14.0, "after": 14.0}), "{d}");
    assert_eq!(d["itemCount"], json!({"before": 5, "after": 5}), "nothing eaten from the use's slot: {d}");

    // Eating again: the peer's next use is this one (nothing was fed in between), from 14.
    let r = ok(&mut bot, json!({"action": "eat", "item": "bread"}));
    let next = peer.wait_line(|v| v["event"] == "use_started" || v["event"] == "ate", DONE).expect("a use or a meal");
    assert_eq!(next["event"], "use_started", "the cancelled use fed nothing: {next}");
    let ate = peer_event(&mut peer, "ate", |_| true);
    assert_eq!((ate["hunger_before"].clone(), ate["left"].clone()), (json!(14), json!(4)), "{ate}");
    let d = done(&mut bot, "eat_done", &r["id"]);
    assert_eq!((d["status"].clone(), d["confirmed"].clone()), (json!("done"), json!(true)), "{d}");
    assert_eq!(d["hunger"], json!({"before": 14.0, "after": 19.0}), "{d}");
    assert_eq!(d["itemCount"], json!({"before": 5, "after": 4}), "{d}");
}

#[test]
fn the_peer_refuses_a_break_that_comes_too_early() {
    common::ensure_peer_installed();
    let out = std::process::Command::new("node")
        .arg(common::repo_root().join("tests/peer/selftest.js"))
        .arg("survival")
        .stderr(std::process::Stdio::null())
        .output()
        .expect("node selftest.js");
    let line = String::from_utf8_lossy(&out.stdout);
    let v: Value = serde_json::from_str(line.trim()).unwrap_or(Value::Null);
    assert!(out.status.success() && v["ok"] == true, "{line}");
    assert_eq!((v["refused"]["why"].clone(), v["refused"]["elapsed"].clone()), (json!("too early"), json!(2)));
    assert_eq!(v["broken"]["elapsed"], 15);
}
