//! End to end against the peer's combat scenario (`tests/peer/combat.js`): the peer animates the
//! mobs (they chase and hit on Bedrock's numbers) and rules the bot's hits itself — weapon damage,
//! 10 invulnerability ticks, ×1.5 when falling — so the bot's receipts are checked against the
//! peer's own account of every hit.

use crate::common;

use std::time::{Duration, Instant};

use common::{Bot, Peer};
use serde_json::{Value, json};

const SPAWN: Duration = Duration::from_secs(40);
const ANSWER: Duration = Duration::from_secs(10);
const FIGHT: Duration = Duration::from_secs(40);

fn ok(bot: &mut Bot, cmd: Value) -> Value {
    bot.ok(cmd)
}

/// Every peer line up to (and with) the first one that matches `pred`.
fn peer_until(peer: &mut Peer, pred: impl Fn(&Value) -> bool, timeout: Duration) -> Vec<Value> {
    let deadline = Instant::now() + timeout;
    let mut seen = Vec::new();
    while let Some(left) = deadline.checked_duration_since(Instant::now()) {
        let Ok(v) = peer.lines.recv_timeout(left) else { break };
        let end = pred(&v);
        seen.push(v);
        if end {
            return seen;
        }
    }
    panic!("the peer never said it; it said {seen:?}");
}

/// A bot on the combat scenario, its inventory in.
fn start(scenario: &str, name: &str) -> (Peer, Bot) {
    let mut peer = Peer::start(scenario);
    let mut bot = Bot::start(peer.port, name);
    bot.wait_event("spawn", SPAWN).expect("spawn");
    peer.wait_line(|v| v["event"] == "combat_ready", SPAWN).expect("combat ready");
    let deadline = Instant::now() + ANSWER;
    while bot
        .request(json!({"action": "inventory", "view": "summary"}), ANSWER)
        .is_some_and(|r| r.get("code").is_some())
    {
        assert!(Instant::now() < deadline, "the inventory never came");
        bot.wait(|_| true, Duration::from_millis(200));
    }
    (peer, bot)
}

#[test]
fn fight_kills_a_zombie_with_the_damage_the_peer_ruled() {
    let (mut peer, mut bot) = start("combat", "Fighter");
    let r = ok(&mut bot, json!({"action": "cmd", "cmd": "/summon zombie 5.5 -60 0.5"}));
    assert_eq!(r["success"], true, "{r}");
    let summoned = peer.wait_line(|v| v["event"] == "summoned", ANSWER).expect("summoned");
    assert_eq!(summoned["health"], 20);
    let r = ok(&mut bot, json!({"action": "fight", "entity": "zombie", "minHealth": 4}));
    assert_eq!((r["weapon"].clone(), r["switched"].clone()), (json!("minecraft:iron_sword"), json!(true)), "{r}");
    let id = r["id"].clone();
    let Some(d) = bot.wait(|v| v["type"] == "fight_done" && v["id"] == id, FIGHT) else {
        let tail: Vec<String> =
            bot.seen.iter().rev().take(12).map(|v| v.to_string().chars().take(300).collect()).collect();
        panic!("no fight_done; the bot said {tail:#?}; the peer said {:?}", peer.lines.try_iter().collect::<Vec<_>>());
    };
    let lines = peer_until(&mut peer, |v| v["event"] == "zombie_killed", ANSWER);
    assert_eq!((d["status"].clone(), d["killed"].clone()), (json!("done"), json!(true)), "{d}");

    let hurts: Vec<&Value> = lines.iter().filter(|v| v["event"] == "zombie_hurt").collect();
    let dealt: f64 = hurts.iter().filter_map(|v| v["damage"].as_f64()).sum();
    let crits = hurts.iter().filter(|v| v["crit"] == true).count();
    assert!(hurts.iter().all(|v| v["tool"] == "iron_sword"), "every hit with the sword: {hurts:?}");
    assert_eq!(d["damageDealt"], json!(dealt), "the receipt's damage is the peer's: {d}");
    assert_eq!(dealt, 20.0, "the zombie's 20 health");
    assert_eq!(d["hurts"], json!(hurts.len()), "{d}");
    assert_eq!(d["crits"], json!(crits), "{d}");
    assert!(crits >= 1, "at least one hit landed while falling: {hurts:?}");
    let ignored: Vec<&Value> = lines.iter().filter(|v| v["event"] == "attack_ignored").collect();
    assert!(ignored.is_empty(), "no hit wasted on an invulnerable zombie: {ignored:?}");
    let refused: Vec<&Value> = lines.iter().filter(|v| v["event"] == "attack_refused").collect();
    assert!(refused.is_empty(), "every hit in reach: {refused:?}");
    assert_eq!(d["hits"], json!(hurts.len()), "every hit sent was one the peer counted: {d}");
    let taken: f64 = lines.iter().filter(|v| v["event"] == "player_hurt").filter_map(|v| v["damage"].as_f64()).sum();
    let got = d["damageTaken"].as_f64().unwrap_or(-1.0);
    assert!((got - taken).abs() < 0.01, "the receipt's damage taken is the peer's ({taken}): {d}");
    let health = d["health"].as_f64().unwrap_or(0.0);
    assert!((health - (20.0 - taken)).abs() < 0.01, "{d}");
    assert!(lines.iter().any(|v| v["event"] == "held" && v["slot"] == 4), "the sword was taken in hand");
    eprintln!("fight: {} hits, {crits} critical, {dealt} dealt, {taken} taken", hurts.len());
}

/// The `policy_action` of `policy`, then the completion event `done` its action ended in.
fn policy_receipt(bot: &mut Bot, policy: &str, done: &str, timeout: Duration) -> (Value, Value) {
    let act = bot.wait(|v| v["type"] == "policy_action" && v["policy"] == policy, timeout);
    let act = act.unwrap_or_else(|| panic!("{policy} never acted"));
    let id = act["actionId"].clone();
    let d = bot.wait(|v| v["type"] == done && v["id"] == id, timeout).unwrap_or_else(|| panic!("no {done} for {act}"));
    (act, d)
}

#[test]
fn auto_eat_eats_the_most_saturating_food_and_auto_armour_wears_a_picked_up_piece() {
    let (mut peer, mut bot) = start("combat", "Keeper");
    // Hunger 14 at spawn: at the threshold.
    let r = ok(&mut bot, json!({"action": "policy", "name": "auto_eat", "hunger": 14}));
    assert_eq!(
        (r["name"].clone(), r["enabled"].clone(), r["hunger"].clone()),
        (json!("auto_eat"), json!(true), json!(14.0))
    );
    let (act, d) = policy_receipt(&mut bot, "auto_eat", "eat_done", FIGHT);
    assert_eq!(act["command"], "eat");
    assert_eq!(act["params"]["item"], "minecraft:cooked_beef", "beef restores 12.8 saturation, bread 6: {act}");
    assert_eq!((d["status"].clone(), d["confirmed"].clone()), (json!("done"), json!(true)), "{d}");
    let ate = peer.wait_line(|v| v["event"] == "ate", ANSWER).expect("the peer fed the bot");
    assert_eq!((ate["item"].clone(), ate["hunger"].clone()), (json!("cooked_beef"), json!(20)), "{ate}");
    assert_eq!(d["hunger"]["after"], 20.0, "{d}");

    let r = ok(&mut bot, json!({"action": "policy", "name": "auto_armour"}));
    assert_eq!(r["enabled"], true);
    let r = ok(&mut bot, json!({"action": "cmd", "cmd": "/drop iron_chestplate"}));
    assert_eq!(r["success"], true, "{r}");
    peer.wait_line(|v| v["event"] == "picked_up" && v["name"] == "iron_chestplate", ANSWER).expect("picked up");
    let (act, d) = policy_receipt(&mut bot, "auto_armour", "wear_done", FIGHT);
    assert_eq!(act["params"]["item"], "minecraft:iron_chestplate", "{act}");
    assert_eq!(
        (d["status"].clone(), d["confirmed"].clone(), d["slot"].clone()),
        (json!("done"), json!(true), json!("chestplate")),
        "{d}"
    );
    assert_eq!(d["defence"], json!({"before": 2, "after": 8}), "the iron helmet's 2 and the chestplate's 6: {d}");
    peer.wait_line(|v| v["event"] == "stack_ok", ANSWER).expect("the peer moved it");
    let inv = ok(&mut bot, json!({"action": "inventory"}));
    assert_eq!(inv["armor"][1]["name"], "minecraft:iron_chestplate", "{inv}");
    let p = ok(&mut bot, json!({"action": "policies"}));
    let acted: Vec<(Value, Value)> =
        p["policies"].as_array().expect("list").iter().map(|x| (x["name"].clone(), x["acted"].clone())).collect();
    assert_eq!(
        acted,
        vec![
            (json!("auto_eat"), json!(1)),
            (json!("auto_armour"), json!(1)),
            (json!("auto_defend"), json!(0)),
            (json!("auto_clutch"), json!(0))
        ],
        "{p}"
    );
}

/// `flee` against a zombie the peer animates: it chases at its own speed while the bot re-plans,
/// and the bot ends at least the asked distance away without being hit.
#[test]
fn flee_outruns_a_chasing_zombie_to_the_asked_distance() {
    let (mut peer, mut bot) = start("combat", "Runner");
    let pos = ok(&mut bot, json!({"action": "pos"}));
    let (x, z) = (pos["pos"]["x"].as_f64().expect("x"), pos["pos"]["z"].as_f64().expect("z"));
    let summon = format!("/summon zombie {} -60 {}", x + 4.0, z);
    assert_eq!(ok(&mut bot, json!({"action": "cmd", "cmd": summon}))["success"], true);
    let summoned = peer.wait_line(|v| v["event"] == "summoned", ANSWER).expect("summoned");
    let start_x = summoned["position"]["x"].as_f64().expect("summoned x");
    // Wait until the bot sees the zombie.
    let deadline = Instant::now() + ANSWER;
    loop {
        let seen = ok(&mut bot, json!({"action": "nearby", "radius": 16}));
        if seen["nearby"]["mobs"].as_array().is_some_and(|m| !m.is_empty()) {
            break;
        }
        assert!(Instant::now() < deadline, "the zombie never showed: {seen}");
        bot.wait(|_| false, Duration::from_millis(100));
    }
    let r = ok(&mut bot, json!({"action": "flee", "entity": "zombie", "distance": 10}));
    assert_eq!(r["fleeing"], true, "{r}");
    assert!(r["from"].as_f64().is_some_and(|d| d < 6.0), "it starts close: {r}");
    let id = r["id"].clone();
    let d = bot.wait(|v| v["type"] == "flee_done" && v["id"] == id, FIGHT).expect("flee_done");
    assert_eq!(d["status"], "done", "{d}");
    assert!(d["endDistance"].as_f64().is_some_and(|e| e >= 10.0), "at least 10 blocks away at the end: {d}");
    let moved = (d["threatPos"]["x"].as_f64().expect("threatPos") - start_x).abs()
        + (d["threatPos"]["z"].as_f64().expect("threatPos") - z).abs();
    assert!(moved > 1.0, "the peer's zombie chased ({moved} blocks): {d}");
    let hurts: Vec<Value> = peer.lines.try_iter().filter(|v| v["event"] == "player_hurt").collect();
    assert!(hurts.is_empty(), "the zombie never reached the bot: {hurts:?}");
}

/// A `walk` with a `goal` of several targets ends at the one it can reach first and says which.
#[test]
fn walk_with_a_goal_of_several_targets_ends_at_the_nearer_one() {
    let (_peer, mut bot) = start("combat", "Goaler");
    let pos = ok(&mut bot, json!({"action": "pos"}));
    let (x, z) = (pos["pos"]["x"].as_f64().expect("x"), pos["pos"]["z"].as_f64().expect("z"));
    let far = json!({"x": x + 20.0, "y": -60, "z": z, "range": 1});
    let near = json!({"x": x - 3.0, "y": -60, "z": z + 5.0, "range": 1});
    let r = ok(&mut bot, json!({"action": "walk", "goal": {"near": [far, near]}}));
    let id = r["id"].clone();
    let d = bot.wait(|v| v["type"] == "walk_done" && v["id"] == id, FIGHT).expect("walk_done");
    assert_eq!(d["status"], "done", "{d}");
    assert_eq!(d["met"], json!(["near[1]"]), "{d}");
    let end = ok(&mut bot, json!({"action": "pos"}));
    let (ex, ez) = (end["pos"]["x"].as_f64().expect("x"), end["pos"]["z"].as_f64().expect("z"));
    let off = ((ex - (x - 3.0)).powi(2) + (ez - (z + 5.0)).powi(2)).sqrt();
    assert!(off <= 1.5, "the bot stands by the nearer target ({off} blocks off): {end}");
}
