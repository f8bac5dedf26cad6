//! fill and empty: the click a bucket makes (on the liquid itself to fill, on a supporting face to
//! pour) and receipts built from the server's block update and the bucket swap it sends.

use clawcraft::protocol::packets::{InventorySlot, InventoryTransaction, ItemInstance};
use clawcraft::world::block::StateValue::Int;
use serde_json::json;

use super::world::*;

fn pond() -> Sim {
    world(
        &[
            ("water", vec![("liquid_depth", Int(0))], [2, -61, -1]),
            ("water", vec![("liquid_depth", Int(3))], [1, -61, 2]),
            ("lava", vec![("liquid_depth", Int(0))], [-2, -61, -1]),
        ],
        &[(0, stack(BUCKET, 1, 1)), (1, stack(WATER_BUCKET, 1, 2)), (2, stack(DIRT, 5, 3))],
    )
}

fn slot(w: &mut Sim, slot: u32, item: ItemInstance) {
    w.sim.receive(&InventorySlot { window_id: "inventory".into(), slot, item, ..InventorySlot::default() });
}

fn last(w: &Sim, kind: &str) -> serde_json::Map<String, serde_json::Value> {
    w.events_of(kind).pop().unwrap_or_else(|| panic!("no {kind}"))
}

#[test]
fn fill_clicks_the_source_itself_and_is_confirmed_by_the_block_and_the_bucket_swap() {
    let mut w = pond();
    let r = w.ok(r#"{"action":"fill","x":2,"y":-61,"z":-1,"id":"f"}"#);
    assert_eq!((r["liquid"].clone(), r["pos"].clone()), (json!("water"), json!({"x": 2, "y": -61, "z": -1})));
    w.sim.tick();
    let tx = w.sim.sent_as::<InventoryTransaction>();
    assert_eq!(tx.len(), 1, "one click");
    let data = tx[0].use_item_data().expect("item use");
    assert_eq!(data.action_type, "click_block");
    assert_eq!((data.block_position.x, data.block_position.y, data.block_position.z), (2, -61, -1), "the liquid");
    let water = w.id("water", &[("liquid_depth", Int(0))]);
    assert_eq!(data.block_runtime_id, water, "the liquid's own id");
    assert_eq!(data.hotbar_slot, 0);
    let held = ItemInstance::of_stack(&data.held_item);
    assert_eq!((held.network_id, held.stack_id), (BUCKET, Some(1)), "the empty bucket in hand");
    // The server empties the source and swaps the bucket.
    let air = w.id("air", &[]);
    w.set_block([2, -61, -1], air);
    slot(&mut w, 0, stack(WATER_BUCKET, 1, 7));
    w.sim.tick();
    let d = last(&w, "fill_done");
    assert_eq!(
        (d["id"].clone(), d["status"].clone(), d["confirmed"].clone()),
        (json!("f"), json!("done"), json!(true))
    );
    assert_eq!((d["before"].clone(), d["after"].clone()), (json!("minecraft:water"), json!("minecraft:air")));
    assert_eq!(
        (d["heldBefore"].clone(), d["heldAfter"].clone()),
        (json!("minecraft:bucket"), json!("minecraft:water_bucket"))
    );
    assert_eq!(
        (d["filled"].clone(), d["buckets"].clone()),
        (json!({"before": 1, "after": 2}), json!({"before": 1, "after": 0}))
    );

    // Refusals, before anything is sent.
    assert_eq!(w.code(r#"{"action":"fill","x":1,"y":-61,"z":2}"#), "NO_ITEM", "no empty bucket left");
    slot(&mut w, 3, stack(BUCKET, 1, 8));
    w.sim.tick();
    assert_eq!(w.code(r#"{"action":"fill","x":1,"y":-61,"z":2}"#), "NOT_A_SOURCE", "flowing");
    assert_eq!(w.code(r#"{"action":"fill","x":0,"y":-61,"z":0}"#), "NOT_A_SOURCE", "grass");
    assert_eq!(w.code(r#"{"action":"fill","liquid":"milk"}"#), "INVALID_PARAMS");
    // The nearest lava: the bucket in slot 3 is taken in hand, the server says no.
    w.sim.sent();
    let r = w.ok(r#"{"action":"fill","liquid":"lava","id":"l"}"#);
    assert_eq!(r["pos"], json!({"x": -2, "y": -61, "z": -1}));
    w.sim.tick();
    let tx = w.sim.sent_as::<InventoryTransaction>();
    assert_eq!(tx[0].use_item_data().expect("use").hotbar_slot, 3, "the bucket was taken in hand");
    let lava = w.id("lava", &[("liquid_depth", Int(0))]);
    w.set_block([-2, -61, -1], lava);
    w.sim.tick();
    let d = last(&w, "fill_done");
    assert_eq!(
        (d["status"].clone(), d["reason"].clone(), d["confirmed"].clone()),
        (json!("failed"), json!("rejected"), json!(false))
    );
}

#[test]
fn empty_clicks_a_supporting_face_and_is_confirmed_by_the_liquid_and_the_empty_bucket() {
    let mut w = pond();
    let r = w.ok(r#"{"action":"empty","x":-1,"y":-60,"z":0,"id":"e"}"#);
    assert_eq!((r["clicked"].clone(), r["face"].clone()), (json!({"x": -1, "y": -61, "z": 0}), json!(1)));
    w.sim.tick();
    let tx = w.sim.sent_as::<InventoryTransaction>();
    let data = tx[0].use_item_data().expect("item use");
    assert_eq!(
        (data.action_type.as_str(), data.face, data.hotbar_slot),
        ("click_block", 1, 1),
        "the water bucket's slot"
    );
    assert_eq!((data.block_position.x, data.block_position.y, data.block_position.z), (-1, -61, 0));
    assert_eq!(data.block_runtime_id, w.id("grass_block", &[]));
    let water = w.id("water", &[("liquid_depth", Int(0))]);
    w.set_block([-1, -60, 0], water);
    slot(&mut w, 1, stack(BUCKET, 1, 9));
    w.sim.tick();
    let d = last(&w, "empty_done");
    assert_eq!(
        (d["id"].clone(), d["status"].clone(), d["confirmed"].clone()),
        (json!("e"), json!("done"), json!(true))
    );
    assert_eq!((d["after"].clone(), d["liquid"].clone()), (json!("minecraft:water"), json!("water")));
    assert_eq!(
        (d["heldBefore"].clone(), d["heldAfter"].clone()),
        (json!("minecraft:water_bucket"), json!("minecraft:bucket"))
    );
    assert_eq!(
        (d["filled"].clone(), d["buckets"].clone()),
        (json!({"before": 1, "after": 0}), json!({"before": 1, "after": 2}))
    );

    // An unanswered pour is unconfirmed; refusals answer at once.
    slot(&mut w, 4, stack(WATER_BUCKET, 1, 10));
    w.sim.tick();
    w.ok(r#"{"action":"empty","x":-1,"y":-60,"z":1,"item":"water_bucket","id":"u"}"#);
    w.sim.ticks(25);
    let d = last(&w, "empty_done");
    assert_eq!((d["status"].clone(), d["reason"].clone()), (json!("failed"), json!("unconfirmed")));
    assert_eq!(w.code(r#"{"action":"empty","x":0,"y":-61,"z":0,"item":"water_bucket"}"#), "OCCUPIED");
    assert_eq!(w.code(r#"{"action":"empty","x":-1,"y":-60,"z":1,"item":"lava_bucket"}"#), "NO_ITEM");
    assert_eq!(w.code(r#"{"action":"empty","x":-1,"y":-60,"z":1,"item":"dirt"}"#), "INVALID_PARAMS");
    assert_eq!(w.code(r#"{"action":"empty","x":9,"y":-60,"z":9,"item":"water_bucket"}"#), "OUT_OF_REACH");
}
