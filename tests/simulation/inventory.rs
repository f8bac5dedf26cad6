//! The inventory in simulation: the server's item names, InventoryContent/Slot for inventory,
//! armour, offhand and cursor, pickups explained by TakeItemEntity, held-slot selection, and
//! moves through item-stack requests (the inventory screen around them, the response applied,
//! a refusal reported and nothing guessed), the offhand by a legacy transaction, the inventory
//! in `death_details`.

use clawcraft::core::InventoryView;
use clawcraft::protocol::packets::{
    AddItemEntity, ContainerClose, ContainerOpen, FullContainerName, Interact, InventoryContent, InventorySlot,
    InventoryTransaction, ItemInstance, ItemRegistry, ItemStack, ItemStackRequest, ItemStackResponse, ItemState,
    MobEquipment, PlayerHotbar, ResponseSlot, TakeItemEntity, Vec3,
};
use clawcraft::sim::{SIM_RUNTIME_ID, Simulation, start_game};
use clawcraft_inventory::{Inventory, SlotRef};
use clawcraft_vitals::packets::{DeathInfo, SetHealth};
use serde_json::{Map, Value, json};

const DIRT: i32 = 3;
const STONE_PICK: i32 = 316;
const WOOD_PICK: i32 = 312;
const BREAD: i32 = 261;
const HELMET: i32 = 350;
const TOTEM: i32 = 570;

fn registry() -> ItemRegistry {
    let st = |name: &str, id: i32| ItemState { name: name.into(), runtime_id: id as i16, ..ItemState::default() };
    ItemRegistry {
        itemstates: vec![
            st("minecraft:dirt", DIRT),
            st("minecraft:stone_pickaxe", STONE_PICK),
            st("minecraft:wooden_pickaxe", WOOD_PICK),
            st("minecraft:bread", BREAD),
            st("minecraft:iron_helmet", HELMET),
            st("minecraft:totem_of_undying", TOTEM),
        ],
    }
}

fn stack(id: i32, count: u16, stack_id: i32) -> ItemInstance {
    ItemInstance { network_id: id, count, has_stack_id: true, stack_id: Some(stack_id), ..ItemInstance::default() }
}

fn content(window: &str, items: Vec<ItemInstance>) -> InventoryContent {
    InventoryContent {
        window_id: window.into(),
        input: items,
        container: FullContainerName::of("anvil_input"),
        storage_item: ItemInstance::air(),
    }
}

/// Dirt×10 in hotbar 0, bread×5 in hotbar 1, a stone pickaxe in main slot 12, a helmet worn, a
/// totem in the offhand.
fn stocked() -> Simulation {
    let mut sim = Simulation::spawned_with(&start_game());
    sim.receive(&registry());
    let mut slots = vec![ItemInstance::air(); 36];
    slots[0] = stack(DIRT, 10, 1);
    slots[1] = stack(BREAD, 5, 2);
    slots[12] = stack(STONE_PICK, 1, 3);
    sim.receive(&content("inventory", slots));
    sim.receive(&content(
        "armor",
        vec![stack(HELMET, 1, 4), ItemInstance::air(), ItemInstance::air(), ItemInstance::air()],
    ));
    sim.receive(&content("offhand", vec![stack(TOTEM, 1, 5)]));
    sim.tick();
    sim.sent();
    sim
}

fn events_of(sim: &Simulation, kind: &str) -> Vec<Map<String, Value>> {
    sim.events().into_iter().filter(|e| e["type"] == kind).collect()
}

fn inventory(sim: &Simulation) -> Inventory {
    sim.component::<Inventory>().expect("inventory")
}

#[test]
fn the_inventory_command_reports_the_servers_view_and_baselines_raise_no_events() {
    let mut sim = Simulation::spawned_with(&start_game());
    let early = sim.command(r#"{"action":"inventory"}"#);
    assert_eq!(early["code"], "NO_ITEM", "nothing known before the server sent it: {early:?}");
    sim.tick();
    assert!(sim.component::<InventoryView>().is_none(), "no view for skill verifiers before the server's inventory");
    drop(sim);
    let mut sim = stocked();
    assert!(
        ["item_added", "item_removed", "item_count_changed"].iter().all(|k| events_of(&sim, k).is_empty()),
        "the first content is a baseline"
    );
    let r = sim.command(r#"{"action":"inventory","id":"i"}"#);
    let slots = r["slots"].as_array().expect("slots");
    assert_eq!(slots.len(), 36);
    assert_eq!(
        slots[0],
        json!({"networkId": DIRT, "name": "minecraft:dirt", "count": 10, "metadata": 0, "durability": null, "maxDurability": null, "stackId": 1})
    );
    assert_eq!(slots[12]["durability"], 131, "stone pickaxe: 131 uses from the item data");
    assert_eq!(slots[12]["maxDurability"], 131);
    assert!(slots[2].is_null());
    assert_eq!(r["armor"][0]["name"], "minecraft:iron_helmet");
    assert_eq!(r["offhand"]["name"], "minecraft:totem_of_undying");
    assert_eq!((r["heldSlot"].clone(), r["heldItem"]["name"].clone()), (json!(0), json!("minecraft:dirt")));
    assert_eq!(r["summary"]["occupied"], 3);
    assert_eq!(r["summary"]["total"], 36);
    assert_eq!(r["summary"]["items"][0], json!({"name": "minecraft:dirt", "totalCount": 10}));
    let s = sim.command(r#"{"action":"inventory","view":"summary"}"#);
    assert!(s.get("slots").is_none() && s["summary"]["occupied"] == 3, "{s:?}");
    let bad = sim.command(r#"{"action":"inventory","view":"tiny"}"#);
    assert_eq!(bad["code"], "INVALID_PARAMS");
    // What skill verifiers read: the shared view, published once the server sent the inventory.
    let view = sim.component::<InventoryView>().expect("published after InventoryContent");
    assert_eq!(view.count("dirt"), 10);
    assert_eq!(view.equipped["hand"].name, "minecraft:dirt");
    assert_eq!((view.equipped["head"].name.as_str(), view.equipped["offhand"].slot), ("minecraft:iron_helmet", 40));
}

#[test]
fn slot_updates_become_events_and_a_take_item_entity_of_ours_marks_a_pickup() {
    let mut sim = stocked();
    sim.receive(&InventorySlot {
        window_id: "inventory".into(),
        slot: 0,
        item: stack(DIRT, 7, 1),
        ..InventorySlot::default()
    });
    sim.tick();
    let changed = events_of(&sim, "item_count_changed");
    assert_eq!((changed[0]["oldCount"].clone(), changed[0]["newCount"].clone()), (json!(10), json!(7)));
    assert_eq!(changed[0]["windowId"], "inventory");
    // A dirt item entity lies at (2.5, -60, 0.5); the server says we took it, then fills slot 9.
    sim.receive(&AddItemEntity {
        entity_id_self: 400,
        runtime_entity_id: 80,
        item: ItemStack { network_id: DIRT, count: 1, metadata: 0, ..ItemStack::default() },
        position: Vec3 { x: 2.5, y: -60.0, z: 0.5 },
        ..AddItemEntity::default()
    });
    sim.tick();
    sim.receive(&TakeItemEntity { runtime_entity_id: 80, target: SIM_RUNTIME_ID as u32 });
    sim.receive(&InventorySlot {
        window_id: "inventory".into(),
        slot: 9,
        item: stack(DIRT, 1, 9),
        ..InventorySlot::default()
    });
    sim.tick();
    let added = events_of(&sim, "item_added");
    assert_eq!(added.len(), 1, "{added:?}");
    assert_eq!(added[0]["source"], "pickup");
    assert_eq!(added[0]["entityPosition"], json!({"x": 2.5, "y": -60.0, "z": 0.5}));
    assert_eq!(added[0]["slot"], 9);
    // Without a pickup the next addition has no source.
    sim.receive(&InventorySlot {
        window_id: "inventory".into(),
        slot: 10,
        item: stack(DIRT, 1, 10),
        ..InventorySlot::default()
    });
    sim.tick();
    assert!(events_of(&sim, "item_added")[1].get("source").is_none());
    // Armour and cursor slots are tracked too.
    sim.receive(&InventorySlot {
        window_id: "armor".into(),
        slot: 0,
        item: ItemInstance::air(),
        ..InventorySlot::default()
    });
    sim.receive(&InventorySlot {
        window_id: "ui".into(),
        slot: 0,
        item: stack(DIRT, 2, 11),
        ..InventorySlot::default()
    });
    sim.tick();
    let removed = events_of(&sim, "item_removed");
    assert_eq!(
        (removed[0]["windowId"].clone(), removed[0]["item"]["name"].clone()),
        (json!("armor"), json!("minecraft:iron_helmet"))
    );
    assert_eq!(inventory(&sim).cursor.as_ref().map(|i| i.count), Some(2));
}

#[test]
fn equip_selects_hotbar_items_and_follows_the_servers_selection() {
    let mut sim = stocked();
    let r = sim.command(r#"{"action":"equip","item":"bread","id":"e1"}"#);
    assert_eq!(
        (r["equipped"].clone(), r["slot"].clone(), r["confirmed"].clone()),
        (json!(true), json!(1), json!(false))
    );
    assert_eq!(r["item"]["name"], "minecraft:bread");
    let sent = sim.sent_as::<MobEquipment>();
    assert_eq!(sent.len(), 1);
    assert_eq!((sent[0].selected_slot, sent[0].item.network_id, sent[0].item.stack_id), (1, BREAD, Some(2)));
    let held = events_of(&sim, "held_slot_changed");
    assert_eq!(
        (held[0]["slot"].clone(), held[0]["previous"].clone(), held[0]["source"].clone()),
        (json!(1), json!(0), json!("bot"))
    );
    let r = sim.command(r#"{"action":"equip","slot":4}"#);
    assert_eq!((r["slot"].clone(), r["item"].clone()), (json!(4), Value::Null));
    assert_eq!(sim.command(r#"{"action":"equip","slot":9}"#)["code"], "OUT_OF_RANGE");
    assert_eq!(sim.command(r#"{"action":"equip","item":"diamond"}"#)["code"], "NO_ITEM");
    assert_eq!(sim.command(r#"{"action":"equip"}"#)["code"], "INVALID_PARAMS");
    sim.receive(&PlayerHotbar { selected_slot: 0, window_id: "inventory".into(), select_slot: true });
    sim.tick();
    assert_eq!(inventory(&sim).held_slot, 0);
    assert_eq!(events_of(&sim, "held_slot_changed").last().map(|e| e["source"].clone()), Some(json!("server")));
}

#[test]
fn equip_from_the_main_inventory_swaps_through_the_screen_and_answers_when_the_server_did() {
    let mut sim = stocked();
    sim.queue_command(r#"{"action":"equip","item":"stone_pickaxe","id":"e2"}"#);
    sim.tick();
    assert!(sim.take_responses().is_empty(), "the answer waits for the server");
    let open = sim.sent_as::<Interact>();
    assert_eq!((open[0].action_id.as_str(), open[0].target_entity_id), ("open_inventory", SIM_RUNTIME_ID));
    sim.tick();
    assert!(sim.sent_as::<ItemStackRequest>().is_empty(), "no move before the screen is open");
    sim.receive(&ContainerOpen {
        window_id: "inventory".into(),
        window_type: "inventory".into(),
        ..ContainerOpen::default()
    });
    sim.tick();
    let req = sim.sent_as::<ItemStackRequest>();
    let r = &req[0].requests[0];
    assert_eq!(r.request_id, -1);
    let a = &r.actions[0];
    assert_eq!(a.type_id, "swap");
    let (src, dst) = (a.source.clone().expect("source"), a.destination.clone().expect("destination"));
    assert_eq!((src.slot_type.container_id.as_str(), src.slot, src.stack_id), ("inventory", 12, 3));
    assert_eq!((dst.slot_type.container_id.as_str(), dst.slot, dst.stack_id), ("hotbar", 0, 1));
    assert_eq!(inventory(&sim).get(SlotRef::Inv(0)).map(|i| i.count), Some(10), "nothing changes before the answer");
    sim.receive(&ItemStackResponse::ok(
        -1,
        vec![("hotbar", vec![ResponseSlot::stack(0, 1, 3)]), ("inventory", vec![ResponseSlot::stack(12, 10, 1)])],
    ));
    sim.tick();
    let resp = sim.take_responses();
    let e = resp.iter().find(|r| r["id"] == "e2").expect("deferred answer");
    assert_eq!(
        (e["equipped"].clone(), e["slot"].clone(), e["confirmed"].clone()),
        (json!(true), json!(0), json!(true))
    );
    assert_eq!(e["item"]["name"], "minecraft:stone_pickaxe");
    let inv = inventory(&sim);
    assert_eq!(inv.held().map(|i| i.short_name()), Some("stone_pickaxe"));
    assert_eq!(inv.get(SlotRef::Inv(12)).map(|i| (i.count, i.stack_id)), Some((10, Some(1))));
    let close = sim.sent_as::<ContainerClose>();
    assert_eq!(close.len(), 1, "the screen is closed again");
    assert!(events_of(&sim, "item_added").iter().all(|e| e["source"] == "move"));
}

#[test]
fn a_refused_move_is_reported_and_the_view_stays_the_servers() {
    let mut sim = stocked();
    sim.queue_command(r#"{"action":"equip","item":"stone_pickaxe","id":"e3"}"#);
    sim.tick();
    sim.receive(&ContainerOpen {
        window_id: "inventory".into(),
        window_type: "inventory".into(),
        ..ContainerOpen::default()
    });
    sim.tick();
    let before = inventory(&sim);
    sim.receive(&ItemStackResponse::refused(-1, "error"));
    sim.tick();
    let resp = sim.take_responses();
    let e = resp.iter().find(|r| r["id"] == "e3").expect("answer");
    assert_eq!(e["code"], "REJECTED", "{e:?}");
    assert_eq!(inventory(&sim), before, "nothing guessed");
    let rej = events_of(&sim, "item_request_rejected");
    assert_eq!(
        (rej[0]["requestId"].clone(), rej[0]["purpose"].clone(), rej[0]["status"].clone()),
        (json!(-1), json!("equip"), json!("error"))
    );
    // The server re-sends the slots after a refusal: applied like any other update.
    sim.receive(&InventorySlot {
        window_id: "inventory".into(),
        slot: 12,
        item: stack(STONE_PICK, 1, 3),
        ..InventorySlot::default()
    });
    sim.tick();
    assert!(inventory(&sim).get(SlotRef::Inv(12)).is_some());
    // No answer at all: the request times out.
    sim.sent();
    sim.queue_command(r#"{"action":"equip","item":"stone_pickaxe","id":"e4"}"#);
    sim.ticks(3);
    sim.receive(&ContainerOpen {
        window_id: "inventory".into(),
        window_type: "inventory".into(),
        ..ContainerOpen::default()
    });
    sim.ticks(45);
    let resp = sim.take_responses();
    let e = resp.iter().find(|r| r["id"] == "e4").expect("answer");
    assert_eq!(e["code"], "TIMEOUT", "{e:?}");
    assert_eq!(sim.sent_as::<ItemStackRequest>()[0].requests[0].request_id, -3, "one id counter");
}

#[test]
fn unequip_moves_armour_by_request_and_the_offhand_by_a_legacy_transaction() {
    let mut sim = stocked();
    sim.queue_command(r#"{"action":"unequip","target":"offhand","id":"u1"}"#);
    sim.tick();
    let tx = sim.sent_as::<InventoryTransaction>();
    let actions = tx[0].transaction.actions.clone();
    assert_eq!((actions[0].window_id, actions[1].window_id, actions[1].slot), (Some(119), Some(0), 9));
    assert_eq!(actions[0].old_item.network_id, TOTEM);
    // The server shows the move with slot updates; that is the confirmation.
    sim.receive(&InventorySlot {
        window_id: "offhand".into(),
        slot: 0,
        item: ItemInstance::air(),
        ..InventorySlot::default()
    });
    sim.receive(&InventorySlot {
        window_id: "inventory".into(),
        slot: 9,
        item: stack(TOTEM, 1, 5),
        ..InventorySlot::default()
    });
    sim.tick();
    let resp = sim.take_responses();
    let u = resp.iter().find(|r| r["id"] == "u1").expect("answer");
    assert_eq!(
        (u["unequipped"].clone(), u["target"].clone(), u["movedToSlot"].clone()),
        (json!(true), json!("offhand"), json!(9))
    );
    assert_eq!((u["item"]["name"].clone(), u["confirmed"].clone()), (json!("minecraft:totem_of_undying"), json!(true)));

    sim.queue_command(r#"{"action":"unequip","target":"helmet","id":"u2"}"#);
    sim.tick();
    sim.receive(&ContainerOpen {
        window_id: "inventory".into(),
        window_type: "inventory".into(),
        ..ContainerOpen::default()
    });
    sim.tick();
    let req = sim.sent_as::<ItemStackRequest>();
    let a = &req[0].requests[0].actions[0];
    assert_eq!(a.type_id, "place");
    assert_eq!(
        a.source.as_ref().map(|s| (s.slot_type.container_id.as_str(), s.slot, s.stack_id)),
        Some(("armor", 0, 4))
    );
    assert_eq!(a.destination.as_ref().map(|s| (s.slot_type.container_id.as_str(), s.slot)), Some(("inventory", 10)));
    sim.receive(&ItemStackResponse::ok(
        -1,
        vec![("armor", vec![ResponseSlot::stack(0, 0, 0)]), ("inventory", vec![ResponseSlot::stack(10, 1, 4)])],
    ));
    sim.tick();
    let resp = sim.take_responses();
    let u = resp.iter().find(|r| r["id"] == "u2").expect("answer");
    assert_eq!((u["confirmed"].clone(), u["movedToSlot"].clone()), (json!(true), json!(10)));
    let inv = inventory(&sim);
    assert!(inv.armor[0].is_none());
    assert_eq!(inv.get(SlotRef::Inv(10)).map(|i| i.short_name()), Some("iron_helmet"));
    assert_eq!(sim.command(r#"{"action":"unequip","target":"boots"}"#)["code"], "NO_ITEM");
    assert_eq!(sim.command(r#"{"action":"unequip","target":"hat"}"#)["code"], "INVALID_PARAMS");
}

#[test]
fn death_details_carry_the_inventory_from_before_the_server_emptied_it() {
    let mut sim = stocked();
    sim.receive(&SetHealth { health: 0 });
    sim.tick();
    // The server drops everything: an empty inventory arrives before DeathInfo.
    sim.receive(&content("inventory", vec![ItemInstance::air(); 36]));
    sim.receive(&DeathInfo { cause: "death.attack.mob".into(), messages: vec![] });
    sim.ticks(4);
    let details = events_of(&sim, "death_details");
    assert_eq!(details.len(), 1, "{:?}", sim.event_types());
    let items = details[0]["items"].as_array().expect("items");
    let names: Vec<&str> = items.iter().filter_map(|i| i["name"].as_str()).collect();
    assert_eq!(
        names,
        [
            "minecraft:dirt",
            "minecraft:bread",
            "minecraft:stone_pickaxe",
            "minecraft:iron_helmet",
            "minecraft:totem_of_undying"
        ]
    );
    assert_eq!((items[2]["slot"].clone(), items[3]["windowId"].clone()), (json!(12), json!("armor")));
    let status = sim.command(r#"{"action":"status"}"#);
    assert_eq!(status["lastDeath"]["items"].as_array().map(Vec::len), Some(5));
}
