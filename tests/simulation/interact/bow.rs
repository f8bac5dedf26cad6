//! shoot: the packets a draw and a release make (a click in the air with the bow and the
//! start_using_item flag, the release transaction `ticks` later, the look set the tick before)
//! and the receipt built from the arrow the server took and the arrow entity it spawned; shots in
//! sequence (`times`) and how they stop; the packets that cancel a draw (`abort_shoot`).

use clawcraft::protocol::packets::{
    AddEntity, Attribute, EntityEvent, InventorySlot, InventoryTransaction, ItemInstance, MobEquipment,
    PlayerAuthInput, UpdateAttributes, Vec3,
};
use clawcraft::sim::SIM_RUNTIME_ID;
use serde_json::json;

use super::world::*;

#[test]
fn shoot_draws_releases_after_the_ticks_and_counts_the_arrow_the_server_took() {
    let mut w = world(&[], &[(0, stack(DIRT, 5, 1)), (2, stack(BOW, 1, 2)), (9, stack(ARROW, 8, 3))]);
    assert_eq!(w.code(r#"{"action":"shoot","x":0.5,"y":-59,"z":20.5,"ticks":3}"#), "OUT_OF_RANGE");
    assert_eq!(w.code(r#"{"action":"shoot","x":0.5,"y":-59,"z":400.5}"#), "OUT_OF_REACH");
    assert_eq!(w.code(r#"{"action":"shoot"}"#), "INVALID_PARAMS");
    let r = w.ok(r#"{"action":"shoot","x":0.5,"y":-59,"z":20.5,"ticks":12,"id":"s"}"#);
    assert_eq!((r["arrows"].clone(), r["drawTicks"].clone()), (json!(8), json!(12)));
    w.sim.tick();
    let tx = w.sim.sent_as::<InventoryTransaction>();
    let data = tx[0].use_item_data().expect("the draw is an item use");
    assert_eq!((data.action_type.as_str(), data.hotbar_slot), ("click_air", 2), "the bow taken in hand");
    assert_eq!(ItemInstance::of_stack(&data.held_item).network_id, BOW);
    w.sim.ticks(10);
    assert!(w.sim.sent_as::<InventoryTransaction>().is_empty(), "still drawing");
    w.sim.tick();
    let tx = w.sim.sent_as::<InventoryTransaction>();
    assert_eq!(tx.len(), 1, "one release after 12 ticks");
    let rel = tx[0].release_data().expect("item_release");
    assert_eq!((rel.action_type.as_str(), rel.hotbar_slot), ("release", 2));
    // The server takes an arrow and spawns it.
    w.sim.receive(&AddEntity {
        runtime_id: 77,
        unique_id: 77,
        entity_type: "minecraft:arrow".into(),
        ..AddEntity::default()
    });
    w.sim.receive(&InventorySlot {
        window_id: "inventory".into(),
        slot: 9,
        item: stack(ARROW, 7, 3),
        ..InventorySlot::default()
    });
    w.sim.tick();
    let d = w.events_of("shoot_done").pop().expect("shoot_done");
    assert_eq!((d["id"].clone(), d["status"].clone()), (json!("s"), json!("done")));
    assert_eq!(
        (d["arrowsBefore"].clone(), d["arrowsAfter"].clone(), d["arrow"].clone()),
        (json!(8), json!(7), json!(77))
    );
    assert_eq!((d["drawTicks"].clone(), d["force"].clone()), (json!(12), json!(0.52)));
    assert_eq!(d["hit"], false, "a point is not hurt");

    // A release the server ignores: no arrow taken.
    w.ok(r#"{"action":"shoot","x":0.5,"y":-59,"z":6.5,"ticks":5,"id":"n"}"#);
    w.sim.ticks(30);
    let d = w.events_of("shoot_done").pop().expect("shoot_done");
    assert_eq!(
        (d["id"].clone(), d["status"].clone(), d["reason"].clone()),
        (json!("n"), json!("failed"), json!("no_shot"))
    );
    w.sim.receive(&InventorySlot {
        window_id: "inventory".into(),
        slot: 9,
        item: ItemInstance::air(),
        ..InventorySlot::default()
    });
    w.sim.tick();
    assert_eq!(w.code(r#"{"action":"shoot","x":0.5,"y":-59,"z":20.5}"#), "NO_ITEM", "no arrows");
}

const ZOMBIE: u64 = 60;

/// A bot holding dirt (slot 0) with a bow in slot 2 and `arrows` arrows in slot 9, a zombie (10
/// health) 8 blocks south.
fn range(arrows: u16) -> Sim {
    let mut w = world(&[], &[(0, stack(DIRT, 5, 1)), (2, stack(BOW, 1, 2)), (9, stack(ARROW, arrows, 3))]);
    w.sim.receive(&AddEntity {
        unique_id: 600,
        runtime_id: ZOMBIE,
        entity_type: "minecraft:zombie".into(),
        position: Vec3 { x: 0.5, y: -60.0, z: 8.5 },
        ..AddEntity::default()
    });
    w.sim.tick();
    w.sim.sent();
    w
}

/// Ticks until the bot sends a release (at most `max` ticks); the ticks it took.
fn until_release(w: &mut Sim, max: usize) -> usize {
    for n in 1..=max {
        w.sim.tick();
        if w.sim.sent_as::<InventoryTransaction>().iter().any(|t| t.release_data().is_some()) {
            return n;
        }
    }
    panic!("no release within {max} ticks");
}

/// The server takes an arrow (leaving `left`), spawns arrow entity `rid`, and when `health` is
/// given hurts the zombie down to it.
fn server_shot(w: &mut Sim, left: u16, rid: u64, health: Option<f32>) {
    w.sim.receive(&AddEntity {
        runtime_id: rid,
        unique_id: rid as i64,
        entity_type: "minecraft:arrow".into(),
        ..AddEntity::default()
    });
    let item = if left == 0 { ItemInstance::air() } else { stack(ARROW, left, 3) };
    w.sim.receive(&InventorySlot { window_id: "inventory".into(), slot: 9, item, ..InventorySlot::default() });
    if let Some(h) = health {
        w.sim.receive(&EntityEvent {
            runtime_entity_id: ZOMBIE,
            event_id: "hurt_animation".into(),
            data: 0,
            fire_at_position: None,
        });
        w.sim.receive(&UpdateAttributes {
            runtime_entity_id: ZOMBIE,
            attributes: vec![Attribute {
                min: 0.0,
                max: 10.0,
                current: h,
                default_min: 0.0,
                default_max: 10.0,
                default: 10.0,
                name: "minecraft:health".into(),
                modifiers: Vec::new(),
            }],
            tick: 0,
        });
    }
}

#[test]
fn shoot_times_draws_again_after_each_arrow_and_stops_when_the_target_dies() {
    let mut w = range(8);
    for bad in [r#""times":0"#, r#""times":65"#] {
        assert_eq!(w.code(&format!(r#"{{"action":"shoot","entity":"zombie",{bad}}}"#)), "OUT_OF_RANGE", "{bad}");
    }
    for bad in [r#""times":"three""#, r#""times":-1"#, r#""times":2.5"#] {
        assert_eq!(w.code(&format!(r#"{{"action":"shoot","entity":"zombie",{bad}}}"#)), "INVALID_PARAMS", "{bad}");
    }
    assert!(w.sim.sent_as::<InventoryTransaction>().is_empty(), "refusals send nothing");

    let r = w.ok(r#"{"action":"shoot","entity":"zombie","ticks":10,"times":3,"id":"t"}"#);
    assert_eq!((r["times"].clone(), r["arrows"].clone()), (json!(3), json!(8)));
    assert_eq!(until_release(&mut w, 15), 10, "the draw: the click went out with the command");
    // The first arrow hits: 10 → 6.
    server_shot(&mut w, 7, 70, Some(6.0));
    w.sim.tick();
    assert!(w.events_of("shoot_done").is_empty(), "two shots remain");
    w.sim.tick();
    let tx = w.sim.sent_as::<InventoryTransaction>();
    let again = tx.iter().filter_map(|t| t.use_item_data()).collect::<Vec<_>>();
    assert_eq!(again.len(), 1, "the next draw started once the arrow was taken: {tx:?}");
    assert_eq!((again[0].action_type.as_str(), again[0].hotbar_slot), ("click_air", 2));
    assert_eq!(until_release(&mut w, 15), 10, "the second draw");
    // The second kills it: no third draw.
    server_shot(&mut w, 6, 71, Some(0.0));
    w.sim.ticks(3);
    let d = w.events_of("shoot_done").pop().expect("shoot_done");
    assert!(w.sim.sent_as::<InventoryTransaction>().is_empty(), "no draw at a dead target");
    assert_eq!((d["id"].clone(), d["status"].clone()), (json!("t"), json!("done")), "{d:?}");
    assert_eq!(
        (d["times"].clone(), d["shots"].clone(), d["hits"].clone(), d["stopped"].clone()),
        (json!(3), json!(2), json!(2), json!("target_dead")),
        "{d:?}"
    );
    assert_eq!(
        (d["arrowsBefore"].clone(), d["arrowsAfter"].clone(), d["arrowsUsed"].clone(), d["arrow"].clone()),
        (json!(8), json!(6), json!(2), json!(71)),
        "{d:?}"
    );
    assert_eq!(
        (d["damage"].clone(), d["hit"].clone(), d["drawCancelled"].clone()),
        (json!(10.0), json!(true), json!(false))
    );
}

#[test]
fn shoot_times_stops_when_the_arrows_run_out_and_counts_misses() {
    let mut w = range(2);
    w.ok(r#"{"action":"shoot","x":0.5,"y":-59,"z":12.5,"ticks":8,"times":5,"id":"p"}"#);
    until_release(&mut w, 12);
    server_shot(&mut w, 1, 80, None);
    w.sim.tick();
    until_release(&mut w, 12);
    server_shot(&mut w, 0, 81, None);
    w.sim.ticks(2);
    let d = w.events_of("shoot_done").pop().expect("shoot_done");
    assert_eq!(
        (d["status"].clone(), d["shots"].clone(), d["hits"].clone(), d["stopped"].clone(), d["arrowsAfter"].clone()),
        (json!("done"), json!(2), json!(0), json!("no_arrows"), json!(0)),
        "{d:?}"
    );
    assert!(w.sim.sent_as::<InventoryTransaction>().is_empty(), "no draw without arrows");
}

#[test]
fn abort_shoot_mid_draw_switches_the_held_slot_away_and_back_and_the_next_shot_works() {
    let mut w = range(8);
    w.ok(r#"{"action":"shoot","x":0.5,"y":-59,"z":12.5,"id":"a"}"#);
    w.sim.tick();
    let bodies = w.sim.sent_bodies();
    let held = w.sim.decode_all::<MobEquipment>(&bodies);
    assert_eq!(held.iter().map(|m| m.selected_slot).collect::<Vec<_>>(), [2], "the bow taken in hand");
    assert_eq!(w.sim.decode_all::<InventoryTransaction>(&bodies).len(), 1, "the draw");
    w.sim.ticks(6);
    let r = w.ok(r#"{"action":"abort_shoot"}"#);
    assert_eq!(
        (r["aborted"].clone(), r["drawCancelled"].clone(), r["shots"].clone()),
        (json!(true), json!(true), json!(0))
    );
    let d = w.events_of("shoot_done").pop().expect("shoot_done");
    assert_eq!((d["status"].clone(), d["drawCancelled"].clone()), (json!("aborted"), json!(true)));
    w.sim.tick();
    // Exactly the cancel: the held slot to the next one and back, no release (a release shoots).
    let bodies = w.sim.sent_bodies();
    let equip = w.sim.decode_all::<MobEquipment>(&bodies);
    let inputs = w.sim.decode_all::<PlayerAuthInput>(&bodies);
    assert_eq!(equip.len() + inputs.len(), bodies.len(), "nothing but the inputs and the slot changes");
    let slots: Vec<(u64, u8, u8)> = equip.iter().map(|m| (m.runtime_entity_id, m.slot, m.selected_slot)).collect();
    assert_eq!(slots, [(SIM_RUNTIME_ID, 3, 3), (SIM_RUNTIME_ID, 2, 2)]);
    w.sim.ticks(5);
    assert!(w.sim.sent_names().iter().flatten().all(|n| n == "player_auth_input"), "nothing more");
    // Abort when not drawing yet sends no cancel; an idle slot is NOT_ACTIVE.
    assert_eq!(w.code(r#"{"action":"abort_shoot"}"#), "NOT_ACTIVE");

    // The next shot: the bow is still in hand (no equipment change), draws and releases.
    w.ok(r#"{"action":"shoot","x":0.5,"y":-59,"z":12.5,"ticks":10,"id":"b"}"#);
    w.sim.tick();
    let bodies = w.sim.sent_bodies();
    assert!(w.sim.decode_all::<MobEquipment>(&bodies).is_empty(), "the bow is still held");
    let draw = w.sim.decode_all::<InventoryTransaction>(&bodies);
    assert_eq!(draw.len(), 1, "the draw");
    assert_eq!(draw[0].use_item_data().map(|d| d.hotbar_slot), Some(2));
    assert_eq!(until_release(&mut w, 12), 9, "10 ticks after the click");
    server_shot(&mut w, 7, 90, None);
    w.sim.tick();
    let d = w.events_of("shoot_done").pop().expect("shoot_done");
    assert_eq!((d["id"].clone(), d["status"].clone(), d["shots"].clone()), (json!("b"), json!("done"), json!(1)));
    assert_eq!(d["drawCancelled"], false);
}
