//! `mine`: checks, the block actions inside PlayerAuthInput tick by tick, the server's
//! confirmation (or refusal), drops, autoTool, abort.

use clawcraft::protocol::packets::{
    AddItemEntity, ContainerOpen, ItemStack, ItemStackRequest, ItemStackResponse, ResponseSlot, TakeItemEntity, Vec3,
};
use clawcraft::sim::SIM_RUNTIME_ID;
use clawcraft_vitals::packets::{DeathInfo, SetHealth};
use serde_json::json;

use super::world::*;

/// Stone next to the feet at (2, −60, 0); a wooden pickaxe held; a diamond pickaxe in main slot 20.
fn quarry() -> Sim {
    world(
        &[("stone", vec![], [2, -60, 0]), ("stone", vec![], [-2, -60, 0]), ("stone", vec![], [3, -60, 0])],
        &[(0, stack(WOOD_PICK, 1, 1)), (20, stack(DIAMOND_PICK, 1, 2)), (1, stack(DIRT, 5, 3))],
    )
}

#[test]
fn mining_sends_block_actions_each_tick_and_is_confirmed_by_the_servers_update_with_its_drop() {
    let mut w = quarry();
    let r = w.ok(r#"{"action":"mine","x":2,"y":-60,"z":0,"id":"m1"}"#);
    assert_eq!(r["mining"], true);
    assert_eq!(r["block"], "minecraft:stone");
    assert_eq!(r["pos"], json!({"x": 2, "y": -60, "z": 0}));
    assert_eq!(r["face"], 4, "the west face looks at the bot");
    assert_eq!(r["breakTime"], 23, "wooden pickaxe on stone");
    assert_eq!(r["tool"], "minecraft:wooden_pickaxe");
    // start_break left with the command's tick; 23 more ticks reach predict_break.
    w.sim.ticks(23);
    let ticks = w.block_actions();
    let with_actions: Vec<&Vec<String>> = ticks.iter().filter(|a| !a.is_empty()).collect();
    assert_eq!(with_actions[0], &vec!["start_break".to_owned()]);
    assert!(with_actions[1..23].iter().all(|a| **a == ["continue_break"]), "{with_actions:?}");
    assert_eq!(with_actions[23], &vec!["continue_break".to_owned(), "predict_break".to_owned()]);
    assert_eq!(with_actions.len(), 24, "start, 22 continues, continue + predict on the 23rd tick");
    assert!(w.events_of("mine_done").is_empty(), "nothing confirmed yet");
    // The server breaks it, drops cobblestone at the block and the bot picks it up.
    let air = w.id("air", &[]);
    w.set_block([2, -60, 0], air);
    w.sim.receive(&AddItemEntity {
        entity_id_self: 500,
        runtime_entity_id: 90,
        item: ItemStack { network_id: COBBLESTONE, count: 1, metadata: 0, ..ItemStack::default() },
        position: Vec3 { x: 2.5, y: -59.75, z: 0.5 },
        ..AddItemEntity::default()
    });
    w.sim.tick();
    assert!(w.events_of("mine_done").is_empty(), "waits for the drop to be picked up");
    w.sim.receive(&TakeItemEntity { runtime_entity_id: 90, target: SIM_RUNTIME_ID as u32 });
    w.sim.tick();
    let done = w.events_of("mine_done");
    assert_eq!(done.len(), 1);
    let d = &done[0];
    assert_eq!(
        (d["id"].clone(), d["status"].clone(), d["confirmed"].clone()),
        (json!("m1"), json!("done"), json!(true))
    );
    assert_eq!((d["ticks"].clone(), d["expectedTicks"].clone()), (json!(23), json!(23)));
    assert_eq!(d["confirmTicks"], 1);
    assert_eq!(d["drops"], json!([{"name": "minecraft:cobblestone", "count": 1, "pickedUp": true, "runtimeId": 90}]));
    assert!(d.get("reason").is_none());
    assert!(w.block_actions().iter().all(Vec::is_empty), "no abort after a confirmed break");
}

#[test]
fn a_break_the_server_undoes_is_reported_rejected_and_called_off() {
    let mut w = quarry();
    w.ok(r#"{"action":"mine","x":2,"y":-60,"z":0,"id":"m2"}"#);
    w.sim.ticks(24);
    let stone = w.id("stone", &[]);
    w.set_block([2, -60, 0], stone);
    w.sim.ticks(2);
    let done = w.events_of("mine_done");
    assert_eq!((done[0]["status"].clone(), done[0]["reason"].clone()), (json!("failed"), json!("rejected")));
    assert_eq!(done[0]["confirmed"], false);
    let actions: Vec<String> = w.block_actions().into_iter().flatten().collect();
    assert_eq!(actions.last().map(String::as_str), Some("abort_break"));
}

#[test]
fn abort_mine_tells_the_server_and_an_unanswered_break_is_unconfirmed() {
    let mut w = quarry();
    w.ok(r#"{"action":"mine","x":2,"y":-60,"z":0,"id":"m3"}"#);
    w.sim.ticks(5);
    w.block_actions();
    let r = w.ok(r#"{"action":"abort_mine","id":"a"}"#);
    assert_eq!(
        (r["aborted"].clone(), r["actionId"].clone(), r["confirmed"].clone()),
        (json!(true), json!("m3"), json!(false))
    );
    w.sim.tick();
    let actions: Vec<String> = w.block_actions().into_iter().flatten().collect();
    assert_eq!(actions, ["abort_break"], "abort_mine really stops at the server");
    assert_eq!(w.events_of("mine_done")[0]["status"], "aborted");
    assert_eq!(w.code(r#"{"action":"abort_mine"}"#), "NOT_ACTIVE");

    w.ok(r#"{"action":"mine","x":2,"y":-60,"z":0,"id":"m4"}"#);
    w.sim.ticks(24 + 21);
    let done = w.events_of("mine_done");
    let last = done.last().expect("ended");
    assert_eq!(
        (last["id"].clone(), last["status"].clone(), last["reason"].clone()),
        (json!("m4"), json!("failed"), json!("unconfirmed"))
    );
}

#[test]
fn checks_answer_with_clear_codes() {
    let mut w = quarry();
    assert_eq!(w.code(r#"{"action":"mine","x":2,"y":-59,"z":0}"#), "INVALID_TARGET", "air");
    assert_eq!(w.code(r#"{"action":"mine","x":0,"y":-64,"z":0}"#), "INVALID_TARGET", "bedrock");
    assert_eq!(w.code(r#"{"action":"mine","x":0,"y":-63,"z":0}"#), "NO_LINE_OF_SIGHT", "dirt under the grass");
    assert_eq!(w.code(r#"{"action":"mine","x":12,"y":-61,"z":12}"#), "OUT_OF_REACH");
    assert_eq!(w.code(r#"{"action":"mine","x":100,"y":-61,"z":0}"#), "NOT_LOADED");
    assert_eq!(
        w.code(r#"{"action":"mine","x":3,"y":-60,"z":0,"face":4}"#),
        "NO_LINE_OF_SIGHT",
        "west face behind stone"
    );
    assert_eq!(w.code(r#"{"action":"mine","x":2,"y":-60,"z":0,"face":9}"#), "OUT_OF_RANGE");
    assert_eq!(w.code(r#"{"action":"mine","x":"a","y":-60,"z":0}"#), "INVALID_PARAMS");
    w.ok(r#"{"action":"mine","x":2,"y":-60,"z":0}"#);
    let busy = w.cmd(r#"{"action":"mine","x":-2,"y":-60,"z":0}"#);
    assert_eq!(busy["code"], "BUSY");
    assert!(busy["error"].as_str().is_some_and(|e| e.contains("abort_mine")));
}

#[test]
fn auto_tool_swaps_the_best_tool_in_and_mines_with_its_break_time() {
    let mut w = quarry();
    let r = w.ok(r#"{"action":"mine","x":2,"y":-60,"z":0,"autoTool":true,"id":"m5"}"#);
    assert_eq!((r["equipping"].clone(), r["breakTime"].clone()), (json!(true), json!(6)), "diamond pickaxe");
    assert_eq!(r["tool"], "minecraft:diamond_pickaxe");
    w.sim.ticks(2);
    w.sim.receive(&ContainerOpen {
        window_id: "inventory".into(),
        window_type: "inventory".into(),
        ..ContainerOpen::default()
    });
    w.sim.tick();
    let req = w.sim.sent_as::<ItemStackRequest>();
    let a = &req[0].requests[0].actions[0];
    assert_eq!(a.type_id, "swap");
    assert!(w.block_actions().iter().all(Vec::is_empty), "no break before the tool is in hand");
    w.sim.receive(&ItemStackResponse::ok(
        req[0].requests[0].request_id,
        vec![("hotbar", vec![ResponseSlot::stack(0, 1, 2)]), ("inventory", vec![ResponseSlot::stack(20, 1, 1)])],
    ));
    w.sim.ticks(8);
    let actions: Vec<Vec<String>> = w.block_actions().into_iter().filter(|a| !a.is_empty()).collect();
    assert_eq!(actions.first(), Some(&vec!["start_break".to_owned()]));
    assert_eq!(actions.iter().position(|a| a.contains(&"predict_break".to_owned())), Some(6), "6 ticks with diamond");
}

#[test]
fn dying_mid_break_ends_the_mine_and_calls_the_break_off() {
    let mut w = quarry();
    w.ok(r#"{"action":"mine","x":2,"y":-60,"z":0,"id":"m6"}"#);
    w.sim.ticks(5);
    w.block_actions();
    w.sim.receive(&SetHealth { health: 0 });
    w.sim.receive(&DeathInfo { cause: "death.attack.mob".into(), messages: vec![] });
    w.sim.ticks(4);
    let done = w.events_of("mine_done");
    assert_eq!((done[0]["status"].clone(), done[0]["reason"].clone()), (json!("failed"), json!("died")));
    let actions: Vec<String> = w.block_actions().into_iter().flatten().collect();
    assert_eq!(actions.iter().filter(|a| *a == "abort_break").count(), 1, "{actions:?}");
    assert!(
        !actions.contains(&"continue_break".to_owned()) || actions.last().map(String::as_str) == Some("abort_break")
    );
}

/// Off the ground the break takes five times as long (Bedrock's airborne penalty): the bot's
/// floor is taken away and it is falling when the command arrives.
#[test]
fn a_break_started_in_the_air_takes_five_times_as_long() {
    let mut w = quarry();
    let air = w.id("air", &[]);
    w.set_block([0, -61, 0], air);
    w.sim.ticks(2);
    let feet = w.sim.component::<clawcraft::core::Position>().expect("position").0;
    assert!(feet.y < -60.05, "falling: {feet:?}");
    let r = w.ok(r#"{"action":"mine","x":2,"y":-60,"z":0}"#);
    assert_eq!(r["breakTime"], 113, "23 ticks on the ground, the progress per tick divided by 5");
}
