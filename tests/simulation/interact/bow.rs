//! shoot: the packets a draw and a release make (a click in the air with the bow and the
//! start_using_item flag, the release transaction `ticks` later, the look set the tick before)
//! and the receipt built from the arrow the server took and the arrow entity it spawned.

use clawcraft::protocol::packets::{AddEntity, InventorySlot, InventoryTransaction, ItemInstance};
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
