//! Containers and crafting in simulation: recipes from CraftingData, a craft sent as one
//! item-stack request with the inventory screen around it, refused (nothing changes, the
//! receipt says why) and then accepted (the receipt's gained/spent from the server's answer); a
//! furnace window's contents, slot updates, progress and output event, and a close by the server;
//! the take/take race (a second take in the same tick is `BUSY` and sends nothing) and `container`
//! following the server's item-stack responses, also for a take aborted before its answer.

use clawcraft::protocol::packets::{
    BlockPos, ContainerClose, ContainerOpen, ContainerSetData, CraftingData, FullContainerName, InventoryContent,
    InventorySlot, ItemInstance, ItemRegistry, ItemStackRequest, ItemStackResponse, ItemState, RecipeIngredient,
    RecipeItem, ResponseSlot, ShapelessRecipe,
};
use clawcraft::sim::{Simulation, start_game};
use clawcraft_inventory::{Inventory, SlotRef};
use serde_json::{Map, Value, json};

const LOG: i32 = 17;
const PLANKS: i32 = 5;
const IRON_ORE: i32 = 15;
const COAL: i32 = 304;
const INGOT: i32 = 307;

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

fn events_of(sim: &Simulation, kind: &str) -> Vec<Map<String, Value>> {
    sim.events().into_iter().filter(|e| e["type"] == kind).collect()
}

/// Two oak logs in hotbar 0 and the planks recipe.
fn ready() -> Simulation {
    let mut sim = Simulation::spawned_with(&start_game());
    let st = |name: &str, id: i32| ItemState { name: name.into(), runtime_id: id as i16, ..ItemState::default() };
    sim.receive(&ItemRegistry {
        itemstates: vec![
            st("minecraft:oak_log", LOG),
            st("minecraft:oak_planks", PLANKS),
            st("minecraft:iron_ore", IRON_ORE),
            st("minecraft:coal", COAL),
            st("minecraft:iron_ingot", INGOT),
        ],
    });
    let mut slots = vec![ItemInstance::air(); 36];
    slots[0] = stack(LOG, 2, 1);
    sim.receive(&content("inventory", slots));
    sim.receive(&CraftingData {
        shapeless_recipes: vec![ShapelessRecipe {
            recipe_id: "minecraft:oak_planks".into(),
            input: vec![RecipeIngredient::named("minecraft:oak_log", 1)],
            output: vec![RecipeItem { network_id: PLANKS, count: 4, ..RecipeItem::default() }],
            block: "crafting_table".into(),
            network_id: 42,
            ..ShapelessRecipe::default()
        }],
        clear_recipes: true,
        ..CraftingData::default()
    });
    sim.tick();
    sim.sent();
    sim
}

/// Runs a craft up to its request: the screen opens, the request leaves. Returns its id.
fn craft_request(sim: &mut Simulation) -> i32 {
    let r = sim.command(r#"{"action":"craft","item":"oak_planks","count":8,"id":"c"}"#);
    assert_eq!((r["crafts"].clone(), r["count"].clone()), (json!(2), json!(8)), "{r:?}");
    sim.ticks(2);
    sim.receive(&ContainerOpen {
        window_id: "inventory".into(),
        window_type: "inventory".into(),
        runtime_entity_id: -1,
        ..ContainerOpen::default()
    });
    sim.ticks(2);
    let reqs = sim.sent_as::<ItemStackRequest>();
    assert_eq!(reqs.len(), 1, "one request");
    let req = &reqs[0].requests[0];
    let kinds: Vec<&str> = req.actions.iter().map(|a| a.type_id.as_str()).collect();
    assert_eq!(kinds, ["craft_recipe_auto", "results_deprecated", "consume", "place"]);
    assert_eq!((req.actions[0].recipe_network_id, req.actions[0].times_crafted), (Some(42), Some(2)));
    let place = req.actions[3].source.clone().expect("created output");
    assert_eq!(
        (place.slot_type.container_id.as_str(), place.slot, place.stack_id),
        ("creative_output", 50, req.request_id),
        "named by the request id"
    );
    req.request_id
}

#[test]
fn a_refused_craft_changes_nothing_and_an_accepted_one_reports_gained_and_spent() {
    let mut sim = ready();
    let r = sim.command(r#"{"action":"recipes"}"#);
    assert_eq!(r["recipes"][0]["canCraft"], 2, "{r:?}");
    assert_eq!(sim.command(r#"{"action":"craft","item":"stick"}"#)["code"], "NO_RECIPE");
    let id = craft_request(&mut sim);
    sim.receive(&ItemStackResponse::refused(id, "error"));
    sim.tick();
    let done = events_of(&sim, "craft_done");
    assert_eq!(
        (done[0]["status"].clone(), done[0]["confirmed"].clone(), done[0]["count"].clone()),
        (json!("failed"), json!(false), json!(0)),
        "{done:?}"
    );
    assert_eq!(done[0]["reason"], "rejected: error");
    assert_eq!(events_of(&sim, "item_request_rejected").len(), 1);
    assert_eq!(sim.component::<Inventory>().expect("inventory").count_of("minecraft:oak_log"), 2, "nothing guessed");

    let id = craft_request(&mut sim);
    sim.receive(&ItemStackResponse::ok(
        id,
        vec![("hotbar", vec![ResponseSlot::stack(0, 0, 0)]), ("inventory", vec![ResponseSlot::stack(9, 8, 77)])],
    ));
    sim.tick();
    let done = events_of(&sim, "craft_done");
    let d = done.last().expect("craft_done");
    assert_eq!(
        (d["status"].clone(), d["confirmed"].clone(), d["count"].clone()),
        (json!("done"), json!(true), json!(8)),
        "{d:?}"
    );
    assert_eq!(d["gained"], json!([{"name": "minecraft:oak_planks", "count": 8}]));
    assert_eq!(d["spent"], json!([{"name": "minecraft:oak_log", "count": 2}]));
    let inv = sim.component::<Inventory>().expect("inventory");
    let planks = inv.get(SlotRef::Inv(9)).expect("planks");
    assert_eq!((planks.count, planks.stack_id), (8, Some(77)), "the server's stack id");
    assert_eq!(sim.warnings(), 0);
}

#[test]
fn a_furnace_window_tracks_contents_progress_output_and_a_close_by_the_server() {
    let mut sim = ready();
    assert_eq!(sim.command(r#"{"action":"take","item":"coal"}"#)["code"], "NO_CONTAINER");
    sim.receive(&ContainerOpen {
        window_id: "first".into(),
        window_type: "furnace".into(),
        coordinates: BlockPos { x: 1, y: -60, z: -2 },
        runtime_entity_id: -1,
    });
    sim.receive(&content("first", vec![stack(IRON_ORE, 1, 20), stack(COAL, 1, 21), ItemInstance::air()]));
    sim.tick();
    let opened = events_of(&sim, "container_opened");
    assert_eq!(
        (opened[0]["windowType"].clone(), opened[0]["pos"].clone()),
        (json!("furnace"), json!({"x": 1, "y": -60, "z": -2}))
    );
    assert!(events_of(&sim, "container_changed").is_empty(), "the first content is a baseline");
    sim.receive(&ContainerSetData { window_id: "first".into(), property: 0, value: 120 });
    sim.receive(&ContainerSetData { window_id: "first".into(), property: 2, value: 1600 });
    sim.receive(&InventorySlot {
        window_id: "first".into(),
        slot: 0,
        item: ItemInstance::air(),
        ..InventorySlot::default()
    });
    sim.receive(&InventorySlot {
        window_id: "first".into(),
        slot: 2,
        item: stack(INGOT, 1, 22),
        ..InventorySlot::default()
    });
    sim.tick();
    let ready = events_of(&sim, "furnace_output_ready");
    assert_eq!(ready.len(), 1);
    assert_eq!(ready[0]["item"]["name"], "minecraft:iron_ingot");
    let changed = events_of(&sim, "container_changed");
    assert_eq!(changed.iter().map(|c| c["slot"].clone()).collect::<Vec<_>>(), [json!(0), json!(2)]);
    let c = sim.command(r#"{"action":"container"}"#);
    assert_eq!(
        (c["furnace"]["cookTicks"].clone(), c["furnace"]["burnDuration"].clone()),
        (json!(120), json!(1600)),
        "{c:?}"
    );
    assert_eq!(c["items"].as_array().map(Vec::len), Some(2));
    let put = sim.command(r#"{"action":"put","item":"oak_log","slot":"output"}"#);
    assert_eq!(put["code"], "INVALID_PARAMS", "{put:?}");
    sim.receive(&ContainerClose { window_id: "first".into(), window_type: "furnace".into(), server: true });
    sim.tick();
    let closed = events_of(&sim, "container_closed");
    assert_eq!(closed[0]["byServer"], true);
    assert_eq!(sim.command(r#"{"action":"container"}"#)["open"], false);
    assert_eq!(sim.warnings(), 0);
}

/// A chest window at (−2, −60, 2): iron ore ×1 in slot 0 (stack id 20), coal ×2 in slot 1 (21).
fn open_chest(sim: &mut Simulation) {
    sim.receive(&ContainerOpen {
        window_id: "first".into(),
        window_type: "container".into(),
        coordinates: BlockPos { x: -2, y: -60, z: 2 },
        runtime_entity_id: -1,
    });
    let mut items = vec![ItemInstance::air(); 27];
    items[0] = stack(IRON_ORE, 1, 20);
    items[1] = stack(COAL, 2, 21);
    sim.receive(&content("first", items));
    sim.tick();
    sim.sent();
}

/// The chest's occupied slots as `container` answers them: (slot, short name, count).
fn chest_items(sim: &mut Simulation) -> Vec<(u64, String, u64)> {
    let c = sim.command(r#"{"action":"container"}"#);
    c["items"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|s| {
            let name = s["item"]["name"].as_str().unwrap_or("").trim_start_matches("minecraft:").to_owned();
            (s["slot"].as_u64().unwrap_or(99), name, s["item"]["count"].as_u64().unwrap_or(0))
        })
        .collect()
}

fn held(sim: &Simulation, name: &str) -> u32 {
    sim.component::<Inventory>().expect("inventory").count_of(&format!("minecraft:{name}"))
}

/// Each take moves one stack: (container slot, count, inventory slot) of every action.
fn takes(req: &ItemStackRequest) -> Vec<(u8, Option<u8>, u8)> {
    req.requests[0]
        .actions
        .iter()
        .map(|a| {
            assert_eq!(a.type_id, "take", "{a:?}");
            let (src, dst) = (a.source.clone().expect("source"), a.destination.clone().expect("destination"));
            assert_eq!(src.slot_type.container_id, "container");
            (src.slot, a.count, dst.slot)
        })
        .collect()
}

#[test]
fn a_second_take_in_the_same_tick_is_busy_sends_nothing_and_a_retry_after_take_done_succeeds() {
    let mut sim = ready();
    open_chest(&mut sim);
    // Two lines in one tick: the first take claims the container slot, the second is refused.
    sim.queue_command(r#"{"action":"take","item":"iron_ore","id":"t1"}"#);
    sim.queue_command(r#"{"action":"take","item":"coal","id":"t2"}"#);
    sim.tick();
    let answers = sim.take_responses();
    assert_eq!((answers[0]["id"].clone(), answers[0]["sent"].clone()), (json!("t1"), json!(true)), "{answers:?}");
    assert_eq!((answers[1]["id"].clone(), answers[1]["code"].clone()), (json!("t2"), json!("BUSY")), "{answers:?}");
    assert!(
        answers[1]["error"].as_str().is_some_and(|e| e.contains("take (id \"t1\")") && e.contains("abort_container"))
    );
    // Only the first take reached the server, in that tick; nothing of the coal, then or later.
    let reqs = sim.sent_as::<ItemStackRequest>();
    assert_eq!(reqs.len(), 1, "one request: {reqs:?}");
    assert_eq!(takes(&reqs[0]), [(0, Some(1), 1)], "iron ore from slot 0 into hotbar 1");
    let first = reqs[0].requests[0].request_id;
    sim.ticks(5);
    assert!(sim.sent_as::<ItemStackRequest>().is_empty(), "the refused take was never sent");
    assert_eq!((held(&sim, "iron_ore"), held(&sim, "coal")), (0, 0), "nothing moves before the server answers");
    assert_eq!(chest_items(&mut sim), [(0, "iron_ore".into(), 1), (1, "coal".into(), 2)]);

    sim.receive(&ItemStackResponse::ok(
        first,
        vec![("container", vec![ResponseSlot::stack(0, 0, 0)]), ("hotbar", vec![ResponseSlot::stack(1, 1, 90)])],
    ));
    sim.tick();
    let done = events_of(&sim, "take_done");
    assert_eq!(done.len(), 1, "no receipt for the refused take: {done:?}");
    assert_eq!(
        (done[0]["id"].clone(), done[0]["confirmed"].clone(), done[0]["inventoryCount"].clone()),
        (json!("t1"), json!(true), json!(1))
    );
    assert_eq!(done[0]["containerCount"], 0, "{done:?}");
    assert_eq!((held(&sim, "iron_ore"), held(&sim, "coal")), (1, 0));
    assert_eq!(chest_items(&mut sim), [(1, "coal".into(), 2)], "the coal is still in the chest");

    // The retry, after take_done: sent and accepted.
    let r = sim.command(r#"{"action":"take","item":"coal","id":"t3"}"#);
    assert_eq!((r["sent"].clone(), r["count"].clone()), (json!(true), json!(2)), "{r:?}");
    let reqs = sim.sent_as::<ItemStackRequest>();
    assert_eq!(reqs.len(), 1);
    assert_eq!(takes(&reqs[0]), [(1, Some(2), 2)], "coal from slot 1 into hotbar 2");
    sim.receive(&ItemStackResponse::ok(
        reqs[0].requests[0].request_id,
        vec![("container", vec![ResponseSlot::stack(1, 0, 0)]), ("hotbar", vec![ResponseSlot::stack(2, 2, 91)])],
    ));
    sim.tick();
    let done = events_of(&sim, "take_done");
    let d = done.last().expect("take_done");
    assert_eq!(
        (d["id"].clone(), d["confirmed"].clone(), d["inventoryCount"].clone(), d["containerCount"].clone()),
        (json!("t3"), json!(true), json!(2), json!(0)),
        "{d:?}"
    );
    assert_eq!((held(&sim, "iron_ore"), held(&sim, "coal")), (1, 2));
    assert!(chest_items(&mut sim).is_empty(), "container agrees with the server: empty");
    let inv = sim.component::<Inventory>().expect("inventory");
    assert_eq!(inv.get(SlotRef::Inv(2)).and_then(|i| i.stack_id), Some(91), "the server's stack id");
    assert_eq!(sim.warnings(), 0);
}

#[test]
fn container_follows_the_servers_answers_also_to_a_take_aborted_before_its_answer_and_to_a_put() {
    let mut sim = ready();
    open_chest(&mut sim);
    sim.command(r#"{"action":"take","item":"coal","count":1,"id":"t"}"#);
    let reqs = sim.sent_as::<ItemStackRequest>();
    assert_eq!(takes(&reqs[0]), [(1, Some(1), 1)]);
    let r = sim.command(r#"{"action":"abort_container"}"#);
    assert_eq!(r["action"], "take", "{r:?}");
    assert_eq!(events_of(&sim, "take_done")[0]["status"], "aborted");
    // The request was already out: the server's acceptance still moves the coal, in the
    // inventory and in the window.
    sim.receive(&ItemStackResponse::ok(
        reqs[0].requests[0].request_id,
        vec![("container", vec![ResponseSlot::stack(1, 1, 21)]), ("hotbar", vec![ResponseSlot::stack(1, 1, 92)])],
    ));
    sim.tick();
    assert_eq!(held(&sim, "coal"), 1);
    assert_eq!(chest_items(&mut sim), [(0, "iron_ore".into(), 1), (1, "coal".into(), 1)]);
    let changed = events_of(&sim, "container_changed");
    assert_eq!(
        (changed[0]["slot"].clone(), changed[0]["item"]["count"].clone(), changed[0]["source"].clone()),
        (json!(1), json!(1), json!("take")),
        "{changed:?}"
    );

    // A put into an empty slot: the window shows the logs with the server's stack id.
    let r = sim.command(r#"{"action":"put","item":"oak_log","count":1,"id":"p"}"#);
    assert_eq!(
        r["moves"],
        json!([{"containerSlot": 2, "inventorySlot": 0, "count": 1}]),
        "the first empty slot: {r:?}"
    );
    let req = sim.sent_as::<ItemStackRequest>().pop().expect("put request");
    let dest = req.requests[0].actions[0].destination.clone().expect("destination");
    sim.receive(&ItemStackResponse::ok(
        req.requests[0].request_id,
        vec![
            ("container", vec![ResponseSlot::stack(dest.slot, 1, 95)]),
            ("hotbar", vec![ResponseSlot::stack(0, 1, 1)]),
        ],
    ));
    sim.tick();
    let d = events_of(&sim, "put_done").pop().expect("put_done");
    assert_eq!((d["confirmed"].clone(), d["containerCount"].clone()), (json!(true), json!(1)), "{d:?}");
    let items = chest_items(&mut sim);
    assert!(items.contains(&(u64::from(dest.slot), "oak_log".into(), 1)), "{items:?}");
    assert_eq!(held(&sim, "oak_log"), 1);
    assert_eq!(sim.warnings(), 0);
}
