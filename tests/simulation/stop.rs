//! `stop` in simulation: every running action of the bot ends `aborted` with its own receipt, as
//! its `abort_*` would end it; a second `stop` finds nothing (an empty list, no error); a policy
//! starts its action again unless `policies:true` turned it off; a swarm's `stop` is one bot's.

use clawcraft::protocol::packets::InventoryTransaction;
use clawcraft::sim::SIM_RUNTIME_ID;
use clawcraft::simworld::SimWorld;
use serde_json::{Map, Value, json};

use crate::interact::world::{BREAD, DIRT, Sim, hunger, stack, world};

/// A hungry bot holding bread, on the flat world.
fn hungry() -> Sim {
    let mut w = world(&[], &[(0, stack(BREAD, 5, 1)), (1, stack(DIRT, 5, 2))]);
    hunger(&mut w, 14.0);
    w
}

fn feet(w: &Sim) -> clawcraft::core::Vec3 {
    w.sim.component::<clawcraft::core::Position>().expect("spawned").0
}

/// `(slot, action, actionId)` of each entry of a `stop` answer.
fn stopped(r: &Map<String, Value>) -> Vec<(String, String, Value)> {
    r["stopped"]
        .as_array()
        .unwrap_or_else(|| panic!("stopped: {r:?}"))
        .iter()
        .map(|s| {
            (s["slot"].as_str().unwrap_or("").into(), s["action"].as_str().unwrap_or("").into(), s["actionId"].clone())
        })
        .collect()
}

#[test]
fn stop_ends_every_running_action_with_its_receipt_and_a_second_stop_finds_nothing() {
    let mut w = hungry();
    w.ok(r#"{"action":"eat","item":"bread","id":"e1"}"#);
    let r = w.ok(r#"{"action":"walk","x":20.5,"y":-60,"z":0.5,"id":"w1"}"#);
    assert_eq!(r["walking"], true, "{r:?}");
    w.sim.ticks(10);
    assert!(feet(&w).x > 1.0, "walking: {:?}", feet(&w));
    w.sim.sent();
    let r = w.ok(r#"{"action":"stop","id":"s1"}"#);
    assert_eq!(
        stopped(&r),
        [("eat".into(), "eat".into(), json!("e1")), ("walk".into(), "walk".into(), json!("w1"))],
        "{r:?}"
    );
    assert!(r["stopped"][1]["evidence"]["walked"].as_u64().is_some(), "the walk's evidence: {r:?}");
    assert_eq!((r["policiesOff"].clone(), r["policiesOn"].clone()), (json!([]), json!([])));
    // Each ended as its abort_* ends it: its own completion event, `aborted`, once.
    for (kind, id) in [("eat_done", "e1"), ("walk_done", "w1")] {
        let done = w.events_of(kind);
        assert_eq!(done.len(), 1, "{kind}: {done:?}");
        assert_eq!(
            (done[0]["id"].clone(), done[0]["status"].clone(), done[0]["reason"].clone()),
            (json!(id), json!("aborted"), json!("aborted by request")),
            "{kind}"
        );
    }
    // The eat's hand is released, as abort_eat releases it, and the walk stands still.
    let released = w.sim.sent_as::<InventoryTransaction>();
    assert!(
        released.iter().any(|t| t.transaction.transaction_type == "item_release"),
        "the eat's use is released: {released:?}"
    );
    // The bot stops: a few ticks later (its momentum spent) it stands still.
    w.sim.ticks(10);
    let at = feet(&w);
    w.sim.ticks(5);
    assert!(at.distance(feet(&w)) < 1e-3, "stands still after the stop");
    assert!(at.x < 5.0, "far from the walk's goal: {at:?}");
    assert_eq!((w.events_of("eat_done").len(), w.events_of("walk_done").len()), (1, 1), "one receipt each");

    // Idempotent: nothing runs, an empty list and no error, while abort_walk says `Not walking`.
    let r = w.ok(r#"{"action":"stop"}"#);
    assert_eq!(r["stopped"], json!([]), "{r:?}");
    assert_eq!(w.code(r#"{"action":"abort_walk"}"#), "NOT_ACTIVE");
    assert_eq!(w.code(r#"{"action":"stop","policies":"yes"}"#), "INVALID_PARAMS");
    // The slots are free again.
    w.ok(r#"{"action":"walk","x":-5.5,"y":-60,"z":0.5,"id":"w2"}"#);
}

#[test]
fn a_policy_starts_again_after_stop_unless_policies_true_turns_it_off() {
    let mut w = hungry();
    w.ok(r#"{"action":"policy","name":"auto_eat","hunger":14}"#);
    w.sim.ticks(2);
    let acts = w.events_of("policy_action");
    assert_eq!(acts.len(), 1, "{acts:?}");
    // Without policies:true the policy stays on, the answer says so, and it eats again.
    let r = w.ok(r#"{"action":"stop"}"#);
    assert_eq!(stopped(&r), [("eat".into(), "eat".into(), acts[0]["actionId"].clone())], "{r:?}");
    assert_eq!((r["policiesOn"].clone(), r["policiesOff"].clone()), (json!(["auto_eat"]), json!([])));
    w.sim.ticks(5);
    let acts = w.events_of("policy_action");
    assert_eq!(acts.len(), 2, "auto_eat started again: {acts:?}");
    // With it, the policy is off and nothing starts again.
    let r = w.ok(r#"{"action":"stop","policies":true}"#);
    assert_eq!(stopped(&r), [("eat".into(), "eat".into(), acts[1]["actionId"].clone())], "{r:?}");
    assert_eq!((r["policiesOff"].clone(), r["policiesOn"].clone()), (json!(["auto_eat"]), json!([])));
    let done = w.events_of("eat_done");
    assert_eq!(done.iter().filter(|d| d["status"] == "aborted").count(), 2, "{done:?}");
    w.sim.ticks(60);
    assert_eq!(w.events_of("policy_action").len(), 2, "auto_eat is off");
    let p = w.ok(r#"{"action":"policies"}"#);
    assert!(p["policies"].as_array().is_some_and(|ps| ps.iter().all(|p| p["enabled"] == false)), "{p:?}");
    let r = w.ok(r#"{"action":"stop","policies":true}"#);
    assert_eq!((r["stopped"].clone(), r["policiesOff"].clone()), (json!([]), json!([])), "{r:?}");
}

#[test]
fn a_swarms_stop_is_one_named_bots() {
    let world = SimWorld::flat(2);
    let mut sim = world.spawn([0.5, -60.0, 0.5]);
    world.join_bot(&mut sim, "Ann", [4.5, -60.0, 0.5], SIM_RUNTIME_ID + 1);
    sim.tick();
    for bot in ["ClawBot", "Ann"] {
        let line = format!(r#"{{"action":"walk","bot":"{bot}","x":20.5,"y":-60,"z":8.5,"id":"{bot}"}}"#);
        assert_eq!(sim.command(&line)["walking"], true, "{bot}");
    }
    // Unaddressed with two bots: BOT_REQUIRED, as every command for one bot; nothing stopped.
    let r = sim.command(r#"{"action":"stop"}"#);
    assert_eq!(r["code"], "BOT_REQUIRED", "{r:?}");
    let r = sim.command(r#"{"action":"stop","bot":"ann"}"#);
    assert_eq!(r["stopped"][0]["actionId"], "Ann", "{r:?}");
    assert_eq!(r["stopped"].as_array().map(Vec::len), Some(1));
    sim.tick();
    let done: Vec<_> = sim.events().into_iter().filter(|e| e["type"] == "walk_done").collect();
    assert_eq!(done.len(), 1, "{done:?}");
    assert_eq!((done[0]["bot"].as_str(), done[0]["status"].as_str()), (Some("Ann"), Some("aborted")));
    let claw = sim.bot_named("ClawBot").expect("ClawBot");
    let busy = sim.app.world().get::<clawcraft::core::ActiveActions>(claw).is_some_and(|a| a.is_busy("walk"));
    assert!(busy, "ClawBot still walks");
}
