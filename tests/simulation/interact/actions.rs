//! place, eat, interact, sleep/wake, use, attack, throw, drop, give: the packets a server reads
//! and receipts built from its answers (or the lack of them).

use clawcraft::protocol::codec::Value as WireValue;
use clawcraft::protocol::packets::{
    AddEntity, AddItemEntity, AddPlayer, Animate, CompletedUsingItem, CorrectPlayerMovePrediction, EntityEvent,
    InventorySlot, InventoryTransaction, ItemInstance, ItemStack, ItemStackRequest, ItemStackResponse, MetadataEntry,
    MovePlayer, PlayerAction, PlayerList, PlayerRecord, ResponseSlot, SetEntityData, TakeItemEntity, Text, Vec3,
};
use clawcraft::sim::SIM_RUNTIME_ID;
use clawcraft::world::block::StateValue::{Byte, Int, Str};
use serde_json::json;

use super::world::*;

const ZOMBIE: u64 = 50;
const STEVE: u64 = 60;

fn door(upper: u8, open: u8) -> Vec<(&'static str, clawcraft::world::block::StateValue)> {
    vec![
        ("door_hinge_bit", Byte(0)),
        ("minecraft:cardinal_direction", Str("east".into())),
        ("open_bit", Byte(open)),
        ("upper_block_bit", Byte(upper)),
    ]
}

fn bed(head: u8) -> Vec<(&'static str, clawcraft::world::block::StateValue)> {
    vec![("direction", Int(0)), ("head_piece_bit", Byte(head)), ("occupied_bit", Byte(0))]
}

/// A door east at x 3, a bed south at z 2–3, stone far west; dirt held, bread, a snowball and a
/// wooden pickaxe in the hotbar.
fn home() -> Sim {
    world(
        &[
            ("wooden_door", door(0, 0), [3, -60, 0]),
            ("wooden_door", door(1, 0), [3, -59, 0]),
            ("bed", bed(0), [0, -60, 2]),
            ("bed", bed(1), [0, -60, 3]),
            ("stone", vec![], [-3, -60, -3]),
        ],
        &[(0, stack(DIRT, 5, 1)), (1, stack(BREAD, 5, 2)), (2, stack(SNOWBALL, 4, 3)), (3, stack(WOOD_PICK, 1, 4))],
    )
}

fn slot(w: &mut Sim, slot: u32, item: clawcraft::protocol::packets::ItemInstance) {
    w.sim.receive(&InventorySlot { window_id: "inventory".into(), slot, item, ..InventorySlot::default() });
}

fn last(w: &Sim, kind: &str) -> serde_json::Map<String, serde_json::Value> {
    w.events_of(kind).pop().unwrap_or_else(|| panic!("no {kind}"))
}

#[test]
fn place_clicks_the_support_face_and_is_confirmed_by_the_block_update_and_the_stack() {
    let mut w = home();
    let r = w.ok(r#"{"action":"place","item":"dirt","x":-1,"y":-60,"z":0,"id":"p1"}"#);
    assert_eq!(
        (r["placed"].clone(), r["face"].clone(), r["against"].clone(), r["confirmed"].clone()),
        (json!(true), json!(1), json!({"x": -1, "y": -61, "z": 0}), json!(false))
    );
    let actions = w.sim.sent_as::<PlayerAction>();
    assert_eq!(actions[0].action, "start_item_use_on");
    assert_eq!((actions[0].position.y, actions[0].result_position.y, actions[0].face), (-61, -60, 1));
    w.sim.ticks(3);
    let stop = w.sim.sent_as::<PlayerAction>();
    assert_eq!(stop.len(), 1);
    assert_eq!((stop[0].action.as_str(), stop[0].position.y), ("stop_item_use_on", -60));
    // The transaction went out with the command's tick (checked from a fresh place below).
    let dirt = w.id("dirt", &[]);
    w.set_block([-1, -60, 0], dirt);
    slot(&mut w, 0, stack(DIRT, 4, 1));
    w.sim.tick();
    let d = last(&w, "place_done");
    assert_eq!(
        (d["id"].clone(), d["status"].clone(), d["confirmed"].clone()),
        (json!("p1"), json!("done"), json!(true))
    );
    assert_eq!(
        (d["block"].clone(), d["itemCount"].clone()),
        (json!("minecraft:dirt"), json!({"before": 5, "after": 4}))
    );

    w.sim.sent();
    w.ok(r#"{"action":"place","x":-1,"y":-60,"z":1,"id":"p2"}"#);
    let tx = w.sim.sent_as::<InventoryTransaction>();
    let data = tx[0].use_item_data().expect("item use");
    assert_eq!((data.action_type.as_str(), data.trigger_type.as_str(), data.face), ("click_block", "player_input", 1));
    assert_eq!((data.block_position.x, data.block_position.y, data.block_position.z), (-1, -61, 1));
    let held = ItemInstance::of_stack(&data.held_item);
    assert_eq!((held.network_id, held.stack_id), (DIRT, Some(1)), "the server's exact stack");
    assert_eq!(data.block_runtime_id, w.id("grass_block", &[]));
    assert_eq!(data.click_pos.y, 1.0, "on the top face");
    assert!((0.0..=1.0).contains(&data.click_pos.x) && (0.0..=1.0).contains(&data.click_pos.z));
    assert_eq!(data.client_prediction, "success");
    let air = w.id("air", &[]);
    w.set_block([-1, -60, 1], air);
    w.sim.tick();
    let d = last(&w, "place_done");
    assert_eq!(
        (d["status"].clone(), d["reason"].clone(), d["confirmed"].clone()),
        (json!("failed"), json!("rejected"), json!(false))
    );

    assert_eq!(w.code(r#"{"action":"place","x":-3,"y":-60,"z":-3}"#), "OCCUPIED");
    assert_eq!(w.code(r#"{"action":"place","x":0,"y":-59,"z":0}"#), "OCCUPIED", "your own head");
    assert_eq!(w.code(r#"{"action":"place","x":1,"y":-55,"z":1}"#), "NO_SUPPORT");
    assert_eq!(w.code(r#"{"action":"place","x":9,"y":-60,"z":9}"#), "OUT_OF_REACH");
    assert_eq!(w.code(r#"{"action":"place","item":"diamond","x":-1,"y":-60,"z":2}"#), "NO_ITEM");
}

#[test]
fn a_place_aborted_before_its_stop_closes_the_use() {
    let mut w = home();
    w.ok(r#"{"action":"place","item":"dirt","x":-1,"y":-60,"z":0,"id":"p"}"#);
    let click = w.sim.sent_as::<PlayerAction>();
    assert_eq!(click.iter().map(|a| a.action.as_str()).collect::<Vec<_>>(), ["start_item_use_on"]);
    w.ok(r#"{"action":"abort_use"}"#);
    w.sim.tick();
    let stop = w.sim.sent_as::<PlayerAction>();
    assert_eq!(stop.iter().map(|a| a.action.as_str()).collect::<Vec<_>>(), ["stop_item_use_on"], "{stop:?}");
    assert_eq!((stop[0].position.x, stop[0].position.y, stop[0].position.z), (-1, -60, 0));
    assert_eq!(last(&w, "place_done")["status"], "aborted");
    w.sim.ticks(5);
    assert!(w.sim.sent_as::<PlayerAction>().is_empty(), "once");
}

#[test]
fn eat_ends_on_completed_using_item_with_hunger_and_count_and_abort_releases() {
    let mut w = home();
    assert_eq!(w.code(r#"{"action":"eat"}"#), "INVALID_TARGET", "dirt is held");
    hunger(&mut w, 20.0);
    assert_eq!(w.code(r#"{"action":"eat","item":"bread"}"#), "NOT_HUNGRY");
    hunger(&mut w, 14.0);
    w.sim.sent();
    let r = w.ok(r#"{"action":"eat","item":"bread","id":"e1"}"#);
    assert_eq!(
        (r["eating"].clone(), r["item"].clone(), r["duration"].clone()),
        (json!(true), json!("minecraft:bread"), json!(1600))
    );
    let tx = w.sim.sent_as::<InventoryTransaction>();
    let data = tx[0].use_item_data().expect("item use");
    assert_eq!((data.action_type.as_str(), data.face, data.held_item.network_id), ("click_air", 255, BREAD));
    w.sim.ticks(21);
    assert_eq!(w.sim.sent_as::<InventoryTransaction>().len(), 1, "the click is repeated each second");
    w.sim.receive(&CompletedUsingItem { used_item_id: SNOWBALL as i16, use_method: "throw".into() });
    hunger(&mut w, 19.0);
    w.sim.ticks(12);
    assert!(w.events_of("eat_done").is_empty(), "another item's completion is not this eat's");
    hunger(&mut w, 14.0);
    w.sim.receive(&CompletedUsingItem { used_item_id: BREAD as i16, use_method: "eat".into() });
    w.sim.tick();
    assert!(w.events_of("eat_done").is_empty(), "waits for the evidence");
    hunger(&mut w, 19.0);
    slot(&mut w, 1, stack(BREAD, 4, 2));
    w.sim.tick();
    let d = last(&w, "eat_done");
    assert_eq!(
        (d["id"].clone(), d["status"].clone(), d["confirmed"].clone()),
        (json!("e1"), json!("done"), json!(true))
    );
    assert_eq!(d["useMethod"], "eat");
    assert_eq!(d["hunger"], json!({"before": 14.0, "after": 19.0}));
    assert_eq!(d["itemCount"], json!({"before": 5, "after": 4}));

    w.ok(r#"{"action":"eat","id":"e2"}"#);
    w.sim.ticks(3);
    w.sim.sent();
    let r = w.ok(r#"{"action":"abort_eat"}"#);
    assert_eq!(r["aborted"], true);
    w.sim.tick();
    let tx = w.sim.sent_as::<InventoryTransaction>();
    assert_eq!(tx.len(), 1);
    assert_eq!(tx[0].transaction.transaction_type, "item_release", "abort_eat really releases");
    assert_eq!(last(&w, "eat_done")["status"], "aborted");
}

#[test]
fn interact_reports_the_doors_new_state_from_the_server() {
    let mut w = home();
    let r = w.ok(r#"{"action":"interact","x":3,"y":-60,"z":0,"id":"i1"}"#);
    assert_eq!((r["interacted"].clone(), r["block"].clone()), (json!(true), json!("minecraft:wooden_door")));
    let tx = w.sim.sent_as::<InventoryTransaction>();
    let data = tx[0].use_item_data().expect("item use");
    assert_eq!((data.action_type.as_str(), data.face), ("click_block", 4), "the west face looks at the bot");
    let open = w.id("wooden_door", &door(0, 1));
    w.set_block([3, -60, 0], open);
    w.sim.tick();
    let d = last(&w, "interact_done");
    assert_eq!((d["status"].clone(), d["confirmed"].clone()), (json!("done"), json!(true)));
    assert_eq!((d["previous"]["open_bit"].clone(), d["properties"]["open_bit"].clone()), (json!(false), json!(true)));
    assert_eq!(d["changedAt"], json!({"x": 3, "y": -60, "z": 0}));

    w.ok(r#"{"action":"interact","x":3,"y":-59,"z":0,"id":"i2"}"#);
    w.sim.ticks(21);
    let d = last(&w, "interact_done");
    assert_eq!((d["status"].clone(), d["reason"].clone()), (json!("failed"), json!("no_change")));
    assert_eq!(w.code(r#"{"action":"interact","x":-3,"y":-60,"z":-3}"#), "INVALID_TARGET", "stone");
}

fn text(w: &mut Sim, kind: &str, message: &str) {
    w.sim.receive(&Text {
        kind: kind.into(),
        needs_translation: kind == "translation",
        message: message.into(),
        ..Text::default()
    });
}

/// The server's sleeping flag and bed position for our player.
fn asleep_in(w: &mut Sim, bed: [i64; 3]) {
    let sleeping = MetadataEntry {
        key: "flags_extended".into(),
        kind: "long".into(),
        legacy_type: 7,
        value: WireValue::Object(vec![("sleeping".into(), WireValue::Bool(true))]),
    };
    let bed_pos = MetadataEntry {
        key: "player_bed_position".into(),
        kind: "vec3i".into(),
        legacy_type: 6,
        value: WireValue::Object(vec![
            ("x".into(), WireValue::Int(bed[0])),
            ("y".into(), WireValue::Int(bed[1])),
            ("z".into(), WireValue::Int(bed[2])),
        ]),
    };
    w.sim.receive(&SetEntityData { runtime_entity_id: SIM_RUNTIME_ID, metadata: vec![sleeping, bed_pos], tick: 0 });
}

/// The server moves our player (MovePlayer `mode`, eye position of `feet`).
fn moved_to(w: &mut Sim, feet: [f32; 3], mode: &str) {
    w.sim.receive(&MovePlayer {
        runtime_id: u32::try_from(SIM_RUNTIME_ID).expect("small id"),
        position: Vec3 { x: feet[0], y: feet[1] + 1.62, z: feet[2] },
        mode: mode.into(),
        on_ground: true,
        ..MovePlayer::default()
    });
}

fn pos(w: &mut Sim) -> serde_json::Value {
    w.ok(r#"{"action":"pos"}"#)["pos"].clone()
}

#[test]
fn a_refused_sleep_fails_with_the_servers_reason_and_leaves_the_bot_where_it_was() {
    let mut w = home();
    let before = pos(&mut w);
    // Said in the tick the click goes out, before it: not an answer to it.
    text(&mut w, "translation", "%tile.bed.notSafe");
    w.ok(r#"{"action":"sleep","x":0,"y":-60,"z":2,"id":"s1"}"#);
    w.sim.tick();
    assert!(w.events_of("sleep_done").is_empty(), "a message older than the click");
    // Vanilla sets the respawn point first (not a refusal); a player's chat is never one.
    text(&mut w, "translation", "\u{a7}7%tile.bed.respawnSet");
    w.sim.receive(&clawcraft::sim::chat_from("Alex", "you can sleep only at night lol, monsters nearby"));
    w.sim.tick();
    assert!(w.events_of("sleep_done").is_empty(), "respawnSet and chat are no verdict");
    text(&mut w, "translation", "\u{a7}7%tile.bed.noSleep");
    w.sim.tick();
    let d = last(&w, "sleep_done");
    assert_eq!(
        (d["id"].clone(), d["status"].clone(), d["reason"].clone(), d["message"].clone()),
        (json!("s1"), json!("failed"), json!("not_night"), json!("tile.bed.noSleep")),
        "{d:?}"
    );
    assert_eq!((d["confirmed"].clone(), d["position"].clone()), (json!(false), json!(null)), "{d:?}");
    assert_eq!(pos(&mut w), before, "the server moved nobody");

    // The other refusals, each a stable code; words from a server that sends text instead of keys.
    for (i, (kind, message, reason, key)) in [
        ("translation", "\u{a7}7%tile.bed.notSafe", "monsters_nearby", "tile.bed.notSafe"),
        ("tip", "%tile.bed.occupied", "occupied", "tile.bed.occupied"),
        ("translation", "tile.bed.tooFar", "too_far", "tile.bed.tooFar"),
        ("popup", "%tile.bed.obstructed", "obstructed", "tile.bed.obstructed"),
        ("translation", "%tile.bed.somethingNew", "refused", "tile.bed.somethingNew"),
        (
            "jukebox_popup",
            "You can sleep only at night or during thunderstorms",
            "not_night",
            "You can sleep only at night or during thunderstorms",
        ),
        (
            "raw",
            "You may not rest now; there are monsters nearby",
            "monsters_nearby",
            "You may not rest now; there are monsters nearby",
        ),
    ]
    .into_iter()
    .enumerate()
    {
        let id = format!("r{i}");
        w.ok(&format!(r#"{{"action":"sleep","x":0,"y":-60,"z":2,"id":"{id}"}}"#));
        w.sim.tick();
        text(&mut w, kind, message);
        w.sim.tick();
        let d = last(&w, "sleep_done");
        assert_eq!(
            (d["id"].clone(), d["status"].clone(), d["reason"].clone(), d["message"].clone()),
            (json!(id), json!("failed"), json!(reason), json!(key)),
            "{kind} {message}"
        );
    }

    // Nothing at all: unconfirmed after two seconds.
    w.ok(r#"{"action":"sleep","x":0,"y":-60,"z":2,"id":"s9"}"#);
    w.sim.ticks(42);
    let d = last(&w, "sleep_done");
    assert_eq!(
        (d["id"].clone(), d["reason"].clone(), d["message"].clone()),
        (json!("s9"), json!("unconfirmed"), json!(null))
    );
}

#[test]
fn a_granted_sleep_carries_the_position_the_server_set_and_wake_waits_for_the_flag() {
    let mut w = home();
    assert_eq!(w.code(r#"{"action":"wake"}"#), "INVALID_TARGET");
    w.ok(r#"{"action":"sleep","x":0,"y":-60,"z":2,"id":"s2"}"#);
    w.sim.tick();
    text(&mut w, "translation", "%tile.bed.respawnSet");
    asleep_in(&mut w, [0, -60, 3]);
    moved_to(&mut w, [0.5, -59.4375, 3.5], "reset");
    w.sim.tick();
    assert_eq!(last(&w, "sleep_started")["bedPos"], json!({"x": 0, "y": -60, "z": 3}));
    let d = last(&w, "sleep_done");
    assert_eq!(
        (d["id"].clone(), d["status"].clone(), d["confirmed"].clone(), d["message"].clone()),
        (json!("s2"), json!("done"), json!(true), json!(null)),
        "{d:?}"
    );
    assert_eq!(d["position"], json!({"x": 0.5, "y": -59.438, "z": 3.5}), "the server's position, rounded: {d:?}");
    assert_eq!(pos(&mut w), json!({"x": 0.5, "y": -59.438, "z": 3.5}), "the bot is where the server put it");
    assert_eq!(w.code(r#"{"action":"sleep","x":0,"y":-60,"z":2}"#), "INVALID_TARGET", "already sleeping");

    w.sim.sent();
    w.ok(r#"{"action":"wake","id":"k"}"#);
    assert_eq!(w.sim.sent_as::<PlayerAction>()[0].action, "stop_sleeping");
    w.sim.receive(&Animate { action_id: "wake_up".into(), runtime_entity_id: SIM_RUNTIME_ID, ..Animate::default() });
    w.sim.tick();
    let d = last(&w, "wake_done");
    assert_eq!((d["status"].clone(), d["confirmed"].clone()), (json!("done"), json!(true)));

    // A server that moves nobody (the client lies down by itself): done once the flag has stood a
    // moment, position null; the flag alone does not end it at once.
    w.ok(r#"{"action":"sleep","x":0,"y":-60,"z":2,"id":"s3"}"#);
    w.sim.tick();
    asleep_in(&mut w, [0, -60, 3]);
    w.sim.ticks(5);
    assert_ne!(last(&w, "sleep_done")["id"], "s3", "waits for a position");
    w.sim.ticks(6);
    let d = last(&w, "sleep_done");
    assert_eq!(
        (d["id"].clone(), d["status"].clone(), d["position"].clone()),
        (json!("s3"), json!("done"), json!(null)),
        "{d:?}"
    );
    w.ok(r#"{"action":"wake"}"#);
    w.sim.receive(&Animate { action_id: "wake_up".into(), runtime_entity_id: SIM_RUNTIME_ID, ..Animate::default() });
    w.sim.tick();

    // A prediction correction counts as the server's word too, flag after it.
    w.ok(r#"{"action":"sleep","x":0,"y":-60,"z":2,"id":"s4"}"#);
    w.sim.tick();
    w.sim.receive(&CorrectPlayerMovePrediction {
        prediction_type: "player".into(),
        position: Vec3 { x: 0.5, y: -59.4375 + 1.62, z: 2.5 },
        on_ground: true,
        ..CorrectPlayerMovePrediction::default()
    });
    w.sim.tick();
    assert_ne!(last(&w, "sleep_done")["id"], "s4", "a move alone is no sleep");
    asleep_in(&mut w, [0, -60, 3]);
    w.sim.tick();
    let d = last(&w, "sleep_done");
    assert_eq!(
        (d["id"].clone(), d["status"].clone(), d["position"].clone()),
        (json!("s4"), json!("done"), json!({"x": 0.5, "y": -59.438, "z": 2.5})),
        "{d:?}"
    );
}

#[test]
fn use_reports_what_the_server_changed_or_no_effect() {
    let mut w = home();
    w.ok(r#"{"action":"use","x":3,"y":-60,"z":0,"id":"u1"}"#);
    let open = w.id("wooden_door", &door(0, 1));
    w.set_block([3, -60, 0], open);
    w.sim.ticks(6);
    let d = last(&w, "use_done");
    assert_eq!((d["status"].clone(), d["confirmed"].clone()), (json!("done"), json!(true)));
    assert_eq!(d["blocks"], json!([{"x": 3, "y": -60, "z": 0, "block": "minecraft:wooden_door"}]));
    w.ok(r#"{"action":"use","id":"u2"}"#);
    w.sim.ticks(21);
    let d = last(&w, "use_done");
    assert_eq!(
        (d["status"].clone(), d["reason"].clone(), d["pos"].clone()),
        (json!("failed"), json!("no_effect"), json!(null))
    );
    assert_eq!(w.code(r#"{"action":"use","x":3}"#), "INVALID_PARAMS");
}

#[test]
fn attack_is_confirmed_by_the_hurt_animation_and_a_death_is_killed() {
    let mut w = home();
    w.sim.receive(&AddEntity {
        unique_id: 500,
        runtime_id: ZOMBIE,
        entity_type: "minecraft:zombie".into(),
        position: Vec3 { x: 2.5, y: -60.0, z: 0.5 },
        ..AddEntity::default()
    });
    w.sim.receive(&AddEntity {
        unique_id: 501,
        runtime_id: 51,
        entity_type: "minecraft:zombie".into(),
        position: Vec3 { x: 12.5, y: -60.0, z: 0.5 },
        ..AddEntity::default()
    });
    w.sim.tick();
    w.sim.sent();
    let r = w.ok(r#"{"action":"attack","entity":"zombie","id":"a1"}"#);
    assert_eq!(r["entity"], json!({"name": "zombie", "runtimeId": ZOMBIE}), "the nearest zombie");
    assert_eq!(r["distance"], 2.0);
    let swings = w.sim.sent_as::<Animate>();
    assert_eq!(swings[0].swing_source.as_deref(), Some("attack"));
    w.sim.sent();
    w.sim.receive(&EntityEvent {
        runtime_entity_id: ZOMBIE,
        event_id: "hurt_animation".into(),
        ..EntityEvent::default()
    });
    w.sim.ticks(5);
    let d = last(&w, "attack_done");
    assert_eq!(
        (d["status"].clone(), d["hurt"].clone(), d["killed"].clone()),
        (json!("done"), json!(true), json!(false))
    );

    w.sim.sent();
    w.ok(r#"{"action":"attack","entity":50}"#);
    let tx = w.sim.sent_as::<InventoryTransaction>();
    let data = tx[0].use_on_entity_data().expect("use on entity");
    assert_eq!(
        (data.action_type.as_str(), data.entity_runtime_id, data.held_item.network_id),
        ("attack", ZOMBIE, DIRT)
    );
    w.sim.receive(&EntityEvent {
        runtime_entity_id: ZOMBIE,
        event_id: "hurt_animation".into(),
        ..EntityEvent::default()
    });
    w.sim.receive(&EntityEvent {
        runtime_entity_id: ZOMBIE,
        event_id: "death_animation".into(),
        ..EntityEvent::default()
    });
    w.sim.tick();
    let d = last(&w, "attack_done");
    assert_eq!((d["killed"].clone(), d["confirmed"].clone()), (json!(true), json!(true)));

    w.ok(r#"{"action":"attack","entity":"zombie"}"#);
    w.sim.ticks(11);
    assert_eq!(last(&w, "attack_done")["reason"], "no_hit");
    let gone = w.cmd(r#"{"action":"attack","entity":"creeper"}"#);
    assert_eq!(
        (gone["code"].clone(), gone["error"].clone()),
        (json!("NOT_FOUND"), json!("Entity not found")),
        "{gone:?}"
    );
    assert_eq!(w.code(r#"{"action":"attack","entity":51}"#), "OUT_OF_REACH");
    assert_eq!(w.code(r#"{"action":"attack","entity":[1]}"#), "INVALID_PARAMS");
}

#[test]
fn throw_is_confirmed_by_the_stack_and_the_projectile() {
    let mut w = home();
    assert_eq!(w.code(r#"{"action":"throw"}"#), "INVALID_TARGET", "dirt is no projectile");
    w.ok(r#"{"action":"equip","slot":2}"#);
    w.sim.sent();
    let r = w.ok(r#"{"action":"throw","x":5,"y":-59,"z":0,"id":"t1"}"#);
    assert_eq!((r["thrown"].clone(), r["item"].clone()), (json!(true), json!("minecraft:snowball")));
    let tx = w.sim.sent_as::<InventoryTransaction>();
    assert_eq!(tx[0].use_item_data().map(|d| d.action_type), Some("click_air".into()));
    let yaw = w.ok(r#"{"action":"pos"}"#)["yawDegrees"].as_f64().unwrap_or(0.0);
    assert!(yaw < -80.0, "turned towards +x: {yaw}");
    slot(&mut w, 2, stack(SNOWBALL, 3, 3));
    w.sim.receive(&AddEntity {
        unique_id: 600,
        runtime_id: 70,
        entity_type: "minecraft:snowball".into(),
        position: Vec3 { x: 0.9, y: -58.5, z: 0.5 },
        ..AddEntity::default()
    });
    w.sim.tick();
    let d = last(&w, "throw_done");
    assert_eq!((d["status"].clone(), d["confirmed"].clone()), (json!("done"), json!(true)));
    assert_eq!(d["itemCount"], json!({"before": 4, "after": 3}));
    assert_eq!(d["projectile"]["kind"], "minecraft:snowball");
}

fn ok_response(request_id: i32, container: &str, s: u8, count: u8, stack_id: i32) -> ItemStackResponse {
    ItemStackResponse::ok(request_id, vec![(container, vec![ResponseSlot::stack(s, count, stack_id)])])
}

#[test]
fn drop_goes_through_an_item_stack_request_and_sees_the_item_entity() {
    let mut w = home();
    let r = w.ok(r#"{"action":"drop","slot":1,"count":2,"id":"d1"}"#);
    assert_eq!(
        (r["dropped"].clone(), r["item"].clone(), r["count"].clone()),
        (json!(true), json!("minecraft:bread"), json!(2))
    );
    let req = w.sim.sent_as::<ItemStackRequest>();
    let a = &req[0].requests[0].actions[0];
    assert_eq!((a.type_id.as_str(), a.count, a.randomly), ("drop", Some(2), Some(false)));
    assert_eq!(
        a.source.as_ref().map(|s| (s.slot_type.container_id.as_str(), s.slot, s.stack_id)),
        Some(("hotbar", 1, 2))
    );
    w.sim.receive(&ok_response(req[0].requests[0].request_id, "hotbar", 1, 3, 2));
    w.sim.receive(&AddItemEntity {
        entity_id_self: 700,
        runtime_entity_id: 80,
        item: ItemStack { network_id: BREAD, count: 2, metadata: 0, ..ItemStack::default() },
        position: Vec3 { x: 0.5, y: -59.0, z: 1.5 },
        ..AddItemEntity::default()
    });
    w.sim.ticks(2);
    let d = last(&w, "drop_done");
    assert_eq!(
        (d["status"].clone(), d["confirmed"].clone(), d["count"].clone()),
        (json!("done"), json!(true), json!(2))
    );
    assert_eq!(d["entity"]["runtimeId"], 80);
    let changed = w.events_of("item_count_changed");
    assert_eq!((changed[0]["newCount"].clone(), changed[0]["source"].clone()), (json!(3), json!("drop")));
    assert_eq!(w.code(r#"{"action":"drop","slot":30}"#), "NO_ITEM");
    assert_eq!(w.code(r#"{"action":"drop","slot":40}"#), "OUT_OF_RANGE");
}

#[test]
fn give_faces_the_player_drops_and_sees_them_pick_it_up() {
    let mut w = home();
    w.sim.receive(&PlayerList {
        records: vec![PlayerRecord {
            kind: "add".into(),
            uuid: "00000000-0000-0000-0000-00000000aaaa".into(),
            entity_unique_id: 61,
            username: "Steve".into(),
            ..PlayerRecord::default()
        }],
    });
    w.sim.receive(&AddPlayer {
        uuid: "00000000-0000-0000-0000-00000000aaaa".into(),
        username: "Steve".into(),
        runtime_id: STEVE,
        unique_id: 61,
        position: Vec3 { x: 0.5, y: -58.38, z: 4.5 },
        ..AddPlayer::default()
    });
    w.sim.tick();
    assert_eq!(w.code(r#"{"action":"give","to":"Alex"}"#), "NO_TARGET");
    let r = w.ok(r#"{"action":"give","to":"steve","item":"bread","id":"g1"}"#);
    assert_eq!(
        (r["given"].clone(), r["to"].clone(), r["count"].clone(), r["distance"].clone()),
        (json!(true), json!("Steve"), json!(1), json!(4.0))
    );
    assert!(w.sim.sent_as::<ItemStackRequest>().is_empty(), "turns first, drops next tick");
    w.sim.tick();
    let req = w.sim.sent_as::<ItemStackRequest>();
    assert_eq!(req[0].requests[0].actions[0].type_id, "drop");
    w.sim.receive(&ok_response(req[0].requests[0].request_id, "hotbar", 1, 4, 2));
    w.sim.receive(&AddItemEntity {
        entity_id_self: 701,
        runtime_entity_id: 81,
        item: ItemStack { network_id: BREAD, count: 1, metadata: 0, ..ItemStack::default() },
        position: Vec3 { x: 0.5, y: -59.0, z: 1.7 },
        ..AddItemEntity::default()
    });
    w.sim.tick();
    w.sim.receive(&TakeItemEntity { runtime_entity_id: 81, target: STEVE as u32 });
    w.sim.tick();
    let d = last(&w, "give_done");
    assert_eq!(
        (d["status"].clone(), d["confirmed"].clone(), d["pickedUp"].clone()),
        (json!("done"), json!(true), json!(true))
    );
    assert_eq!(d["to"], "Steve");
}

#[test]
fn the_hand_runs_one_action_at_a_time() {
    let mut w = home();
    w.ok(r#"{"action":"interact","x":3,"y":-60,"z":0}"#);
    let busy = w.cmd(r#"{"action":"eat","item":"bread"}"#);
    assert_eq!(busy["code"], "BUSY");
    assert!(busy["error"].as_str().is_some_and(|e| e.contains("abort_use")), "{busy:?}");
    assert_eq!(w.code(r#"{"action":"mine","x":3,"y":-60,"z":0}"#), "BUSY");
    let r = w.ok(r#"{"action":"abort_use"}"#);
    assert_eq!(r["action"], "interact");
    assert_eq!(last(&w, "interact_done")["status"], "aborted");
}
