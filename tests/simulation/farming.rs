//! Farming in simulation (plugins/farming): the exact packets a server reads — till and plant are
//! `click_block` item-use transactions on the soil's top face with the hoe or seed held, harvest
//! breaks with `start_break` + `predict_break` — and receipts built only from the server's
//! answers; an immature crop is refused before anything is sent.

use crate::interact::world;

use clawcraft::protocol::codec::Value as WireValue;
use clawcraft::protocol::packets::{
    AddEntity, ContainerOpen, InventorySlot, InventoryTransaction, ItemInstance, ItemStackRequest, ItemStackResponse,
    MetadataEntry, ResponseSlot, SetEntityData, Vec3,
};
use clawcraft::world::block::StateValue::Int;
use serde_json::json;
use world::*;

fn wheat(growth: i32) -> Vec<(&'static str, clawcraft::world::block::StateValue)> {
    vec![("growth", Int(growth))]
}

fn farmland() -> Vec<(&'static str, clawcraft::world::block::StateValue)> {
    vec![("moisturized_amount", Int(0))]
}

/// Mature wheat east of the feet, wheat at growth 3 west, stone on the grass south-east; a hoe
/// held, seeds and bone meal in the hotbar.
fn field() -> Sim {
    world(
        &[
            ("farmland", farmland(), [1, -61, 0]),
            ("wheat", wheat(7), [1, -60, 0]),
            ("farmland", farmland(), [-1, -61, 0]),
            ("wheat", wheat(3), [-1, -60, 0]),
            ("stone", vec![], [1, -60, 1]),
        ],
        &[(0, stack(WOODEN_HOE, 1, 1)), (1, stack(WHEAT_SEEDS, 5, 2)), (2, stack(BONE_MEAL, 3, 3))],
    )
}

fn last(w: &Sim, kind: &str) -> serde_json::Map<String, serde_json::Value> {
    w.events_of(kind).pop().unwrap_or_else(|| panic!("no {kind}"))
}

fn slot(w: &mut Sim, slot: u32, item: ItemInstance) {
    w.sim.receive(&InventorySlot { window_id: "inventory".into(), slot, item, ..InventorySlot::default() });
}

#[test]
fn till_clicks_the_top_face_with_the_hoe_and_is_confirmed_by_farmland() {
    let mut w = field();
    assert_eq!(w.code(r#"{"action":"till","x":1,"y":-61,"z":1}"#), "INVALID_TARGET", "stone on top");
    assert_eq!(w.code(r#"{"action":"till","x":1,"y":-60,"z":1}"#), "INVALID_TARGET", "stone");
    assert_eq!(w.code(r#"{"action":"till","x":0,"y":-61,"z":-1,"item":"wheat_seeds"}"#), "NO_ITEM", "not a hoe");
    w.sim.sent();
    w.ok(r#"{"action":"till","x":0,"y":-61,"z":-1,"id":"t1"}"#);
    w.sim.tick();
    let tx = w.sim.sent_as::<InventoryTransaction>();
    assert_eq!(tx.len(), 1);
    let data = tx[0].use_item_data().expect("item use");
    assert_eq!((data.action_type.as_str(), data.face, data.hotbar_slot), ("click_block", 1, 0));
    assert_eq!((data.block_position.x, data.block_position.y, data.block_position.z), (0, -61, -1));
    assert_eq!(ItemInstance::of_stack(&data.held_item).network_id, WOODEN_HOE, "the hoe held");
    assert_eq!(data.block_runtime_id, w.id("grass_block", &[]));
    assert_eq!(data.click_pos.y, 1.0, "on the top face");
    // Nothing from the server: no_change after a second.
    w.sim.ticks(21);
    let d = last(&w, "till_done");
    assert_eq!((d["status"].clone(), d["reason"].clone()), (json!("failed"), json!("no_change")));

    w.ok(r#"{"action":"till","x":0,"y":-61,"z":-1,"id":"t2"}"#);
    w.sim.tick();
    let tilled = w.id("farmland", &farmland());
    w.set_block([0, -61, -1], tilled);
    w.sim.tick();
    let d = last(&w, "till_done");
    assert_eq!(
        (d["id"].clone(), d["status"].clone(), d["confirmed"].clone()),
        (json!("t2"), json!("done"), json!(true))
    );
    assert_eq!(
        (d["before"]["block"].clone(), d["after"]["block"].clone(), d["item"].clone()),
        (json!("minecraft:grass_block"), json!("minecraft:farmland"), json!("minecraft:wooden_hoe"))
    );
}

#[test]
fn plant_holds_the_seed_and_clicks_the_farmland_and_bone_meal_reports_the_growth() {
    let mut w = field();
    assert_eq!(w.code(r#"{"action":"plant","x":0,"y":-61,"z":-1}"#), "INVALID_TARGET", "grass is not farmland");
    let air = w.id("air", &[]);
    w.set_block([1, -60, 0], air);
    w.sim.tick();
    w.sim.sent();
    w.ok(r#"{"action":"plant","x":1,"y":-61,"z":0,"id":"p1"}"#);
    w.sim.tick();
    let tx = w.sim.sent_as::<InventoryTransaction>();
    let data = tx[0].use_item_data().expect("item use");
    assert_eq!(data.hotbar_slot, 1, "the seeds' hotbar slot selected");
    assert_eq!((data.block_position.x, data.block_position.y, data.face), (1, -61, 1));
    assert_eq!(ItemInstance::of_stack(&data.held_item).network_id, WHEAT_SEEDS);
    assert_eq!(data.block_runtime_id, w.id("farmland", &farmland()));
    let young = w.id("wheat", &wheat(0));
    w.set_block([1, -60, 0], young);
    slot(&mut w, 1, stack(WHEAT_SEEDS, 4, 2));
    w.sim.tick();
    let d = last(&w, "plant_done");
    assert_eq!((d["status"].clone(), d["confirmed"].clone()), (json!("done"), json!(true)));
    assert_eq!(
        (d["pos"].clone(), d["after"]["properties"]["growth"].clone()),
        (json!({"x":1,"y":-60,"z":0}), json!(0))
    );
    assert_eq!(d["itemCount"], json!({"before": 5, "after": 4}));

    // Bone meal on the growing crop: growth 3 → what the server says.
    w.ok(r#"{"action":"bone_meal","x":-1,"y":-60,"z":0,"id":"b1"}"#);
    w.sim.tick();
    let tx = w.sim.sent_as::<InventoryTransaction>();
    assert_eq!(ItemInstance::of_stack(&tx[0].use_item_data().expect("use").held_item).network_id, BONE_MEAL);
    let grown = w.id("wheat", &wheat(6));
    w.set_block([-1, -60, 0], grown);
    slot(&mut w, 2, stack(BONE_MEAL, 2, 3));
    w.sim.tick();
    let d = last(&w, "bone_meal_done");
    assert_eq!((d["status"].clone(), d["confirmed"].clone()), (json!("done"), json!(true)));
    assert_eq!(
        (d["before"]["properties"]["growth"].clone(), d["after"]["properties"]["growth"].clone()),
        (json!(3), json!(6))
    );
    let mature = w.id("wheat", &wheat(7));
    w.set_block([-1, -60, 0], mature);
    w.sim.tick();
    assert_eq!(w.code(r#"{"action":"bone_meal","x":-1,"y":-60,"z":0}"#), "INVALID_TARGET", "mature: harvest it");
}

#[test]
fn harvest_refuses_immature_crops_and_breaks_then_replants_mature_ones() {
    let mut w = field();
    w.sim.sent();
    let r = w.cmd(r#"{"action":"harvest","x":-1,"y":-60,"z":0}"#);
    assert_eq!(r["code"], "NOT_MATURE", "{r:?}");
    assert!(r["error"].as_str().is_some_and(|m| m.contains("growth 3 of 7")), "{r:?}");
    w.sim.tick();
    assert!(w.block_actions().iter().all(Vec::is_empty), "a refused harvest sends nothing");
    assert_eq!(w.code(r#"{"action":"harvest","x":0,"y":-61,"z":0}"#), "INVALID_TARGET", "grass is no crop");

    let r = w.ok(r#"{"action":"harvest","radius":2,"replant":true,"id":"h1"}"#);
    assert_eq!(r["crops"], json!([{"x":1,"y":-60,"z":0,"block":"minecraft:wheat","growth":7,"mature":7}]));
    assert_eq!(r["skipped"][0]["growth"], 3);
    assert_eq!(w.code(r#"{"action":"till","x":0,"y":-61,"z":-1}"#), "BUSY", "one hand");
    w.sim.tick();
    let breaks = w.block_actions();
    assert!(breaks.iter().any(|b| b == &["start_break", "predict_break"]), "an instant break: {breaks:?}");
    let air = w.id("air", &[]);
    w.set_block([1, -60, 0], air);
    w.sim.tick();
    w.sim.tick();
    let tx = w.sim.sent_as::<InventoryTransaction>();
    let data = tx.last().and_then(|t| t.use_item_data()).expect("the replant click");
    assert_eq!((data.block_position.x, data.block_position.y, data.face), (1, -61, 1));
    assert_eq!(ItemInstance::of_stack(&data.held_item).network_id, WHEAT_SEEDS);
    let young = w.id("wheat", &wheat(0));
    w.set_block([1, -60, 0], young);
    w.sim.ticks(14);
    let d = last(&w, "harvest_done");
    assert_eq!(
        (d["id"].clone(), d["status"].clone(), d["confirmed"].clone()),
        (json!("h1"), json!("done"), json!(true))
    );
    assert_eq!(d["harvested"][0]["x"], 1);
    assert_eq!(d["replanted"], json!([{"x":1,"y":-61,"z":0}]));
    assert_eq!(d["skipped"][0]["x"], -1);

    // A break the server puts back fails the harvest with its reason.
    let mature = w.id("wheat", &wheat(7));
    w.set_block([1, -60, 0], mature);
    w.sim.tick();
    w.ok(r#"{"action":"harvest","x":1,"y":-60,"z":0,"id":"h2"}"#);
    w.sim.ticks(2);
    w.set_block([1, -60, 0], mature);
    w.sim.ticks(45);
    let d = last(&w, "harvest_done");
    assert_eq!(
        (d["id"].clone(), d["status"].clone(), d["reason"].clone()),
        (json!("h2"), json!("failed"), json!("rejected"))
    );
    assert_eq!(d["harvested"], json!([]));
}

#[test]
fn harvest_swaps_seeds_from_the_main_inventory_into_the_hand_before_breaking() {
    let mut w = world(
        &[("farmland", farmland(), [1, -61, 0]), ("wheat", wheat(7), [1, -60, 0])],
        &[(0, stack(WOODEN_HOE, 1, 1)), (20, stack(WHEAT_SEEDS, 5, 2))],
    );
    w.sim.sent();
    w.ok(r#"{"action":"harvest","radius":2,"replant":true,"id":"h3"}"#);
    w.sim.ticks(2);
    w.sim.receive(&ContainerOpen {
        window_id: "inventory".into(),
        window_type: "inventory".into(),
        ..ContainerOpen::default()
    });
    w.sim.tick();
    let req = w.sim.sent_as::<ItemStackRequest>();
    assert_eq!(req[0].requests[0].actions[0].type_id, "swap", "the seeds swapped into the held slot");
    w.sim.ticks(3);
    assert!(w.block_actions().iter().all(Vec::is_empty), "no break before the seeds are in hand");
    w.sim.receive(&ItemStackResponse::ok(
        req[0].requests[0].request_id,
        vec![("hotbar", vec![ResponseSlot::stack(0, 5, 2)]), ("inventory", vec![ResponseSlot::stack(20, 1, 1)])],
    ));
    w.sim.ticks(5);
    let breaks = w.block_actions();
    assert!(
        breaks.iter().any(|b| b == &["start_break", "predict_break"]),
        "breaks once held: {breaks:?} {:?}",
        w.events_of("harvest_done")
    );
    let air = w.id("air", &[]);
    w.set_block([1, -60, 0], air);
    w.sim.ticks(2);
    let tx = w.sim.sent_as::<InventoryTransaction>();
    let data = tx.last().and_then(|t| t.use_item_data()).expect("the replant click");
    assert_eq!((data.hotbar_slot, ItemInstance::of_stack(&data.held_item).network_id), (0, WHEAT_SEEDS));
    let young = w.id("wheat", &wheat(0));
    w.set_block([1, -60, 0], young);
    w.sim.ticks(14);
    let d = last(&w, "harvest_done");
    assert_eq!((d["id"].clone(), d["status"].clone()), (json!("h3"), json!("done")), "{d:?}");
    assert_eq!(d["replanted"], json!([{"x":1,"y":-61,"z":0}]));
}

fn cow(w: &mut Sim, runtime_id: u64, x: f32) {
    w.sim.receive(&AddEntity {
        unique_id: runtime_id as i64,
        runtime_id,
        entity_type: "minecraft:cow".into(),
        position: Vec3 { x, y: -60.0, z: 2.5 },
        ..AddEntity::default()
    });
}

fn in_love(w: &mut Sim, runtime_id: u64) {
    w.sim.receive(&SetEntityData {
        runtime_entity_id: runtime_id,
        metadata: vec![MetadataEntry {
            key: "flags".into(),
            kind: "long".into(),
            legacy_type: 7,
            value: WireValue::Object(vec![("inlove".into(), WireValue::Bool(true))]),
        }],
        tick: 0,
    });
}

#[test]
fn breed_feeds_each_cow_with_an_interact_and_waits_for_love_and_the_baby() {
    let mut w = world(&[], &[(0, stack(WOODEN_HOE, 1, 1)), (3, stack(WHEAT, 4, 9))]);
    assert_eq!(w.code(r#"{"action":"breed","entity":"cow"}"#), "NOT_FOUND");
    cow(&mut w, 70, 1.5);
    w.sim.tick();
    assert_eq!(w.code(r#"{"action":"breed","entity":"cow"}"#), "NOT_FOUND", "one cow is no pair");
    cow(&mut w, 71, -0.5);
    cow(&mut w, 72, 20.5);
    w.sim.tick();
    w.sim.sent();
    let r = w.ok(r#"{"action":"breed","entity":"cow","id":"b1"}"#);
    assert_eq!(r["item"], "minecraft:wheat");
    let ids: Vec<u64> =
        r["animals"].as_array().expect("animals").iter().map(|a| a["runtimeId"].as_u64().expect("id")).collect();
    assert_eq!(ids, [70, 71], "the two nearest in reach");
    w.sim.ticks(2);
    let uses: Vec<_> =
        w.sim.sent_as::<InventoryTransaction>().iter().filter_map(InventoryTransaction::use_on_entity_data).collect();
    assert_eq!(uses.len(), 2, "one interact per cow");
    for (u, id) in uses.iter().zip([70, 71]) {
        assert_eq!((u.action_type.as_str(), u.entity_runtime_id, u.hotbar_slot), ("interact", id, 3));
        assert_eq!(u.held_item.network_id, WHEAT, "the wheat held");
    }
    in_love(&mut w, 70);
    in_love(&mut w, 71);
    w.sim.tick();
    assert!(w.events_of("breed_done").is_empty(), "love alone is not a baby");
    cow(&mut w, 73, 0.5);
    w.sim.tick();
    let d = last(&w, "breed_done");
    assert_eq!(
        (d["status"].clone(), d["confirmed"].clone(), d["baby"].clone()),
        (json!("done"), json!(true), json!(73))
    );
    assert_eq!(d["inLove"], json!([70, 71]));

    // No love within a second: failed, not_in_love.
    w.ok(r#"{"action":"breed","entity":"cow","id":"b2"}"#);
    w.sim.ticks(25);
    let d = last(&w, "breed_done");
    assert_eq!((d["status"].clone(), d["reason"].clone()), (json!("failed"), json!("not_in_love")));
}
