//! Villager trading in simulation, with the server's packets injected: `trade_open` interacts with
//! the villager (an `item_use_on_entity` interact) and reports the offers of the UpdateTrade that
//! answers; a trade with two wanted items is the payment's request (both trade inputs) and then
//! the trade's (`craft_recipe` with the offer's netId, a consume per input named by the stack ids
//! the first answer gave, the result from the created output); a refused trade changes nothing
//! and says so; refusals before anything is sent carry stable codes.

use clawcraft::protocol::packets::{
    AddEntity, FullContainerName, InventoryContent, InventoryTransaction, ItemInstance, ItemRegistry, ItemStackRequest,
    ItemStackResponse, ItemState, ResponseSlot, TradeItem, TradeOffer, UpdateTrade, Vec3,
};
use clawcraft::sim::{Simulation, start_game};
use clawcraft_inventory::{Inventory, SlotRef};
use serde_json::{Map, Value, json};

const EMERALD: i32 = 600;
const BOOK: i32 = 601;
const BOOKSHELF: i32 = 602;
const WHEAT: i32 = 603;
const VILLAGER: u64 = 77;
const VILLAGER_UNIQUE: i64 = -77;

fn stack(id: i32, count: u16, stack_id: i32) -> ItemInstance {
    ItemInstance { network_id: id, count, has_stack_id: true, stack_id: Some(stack_id), ..ItemInstance::default() }
}

fn item(name: &str, count: u16) -> TradeItem {
    TradeItem { name: format!("minecraft:{name}"), count, damage: 0 }
}

fn events_of(sim: &Simulation, kind: &str) -> Vec<Map<String, Value>> {
    sim.events().into_iter().filter(|e| e["type"] == kind).collect()
}

/// A librarian's offers: 1 emerald + 1 book → 1 bookshelf (2 uses left), wheat → emerald at a
/// raised price, and a master-level offer.
fn offers() -> Vec<TradeOffer> {
    vec![
        TradeOffer {
            buy_a: item("emerald", 1),
            buy_b: Some(item("book", 1)),
            sell: item("bookshelf", 1),
            buy_count_a: 1,
            buy_count_b: 1,
            uses: 10,
            max_uses: 12,
            net_id: 501,
            ..TradeOffer::default()
        },
        TradeOffer {
            buy_a: item("wheat", 22),
            sell: item("emerald", 1),
            buy_count_a: 20,
            max_uses: 16,
            demand: 2,
            price_multiplier_a: 0.05,
            net_id: 502,
            ..TradeOffer::default()
        },
        TradeOffer {
            buy_a: item("emerald", 1),
            sell: item("book", 1),
            max_uses: 12,
            tier: 4,
            net_id: 503,
            ..TradeOffer::default()
        },
    ]
}

fn update_trade(offers: &[TradeOffer]) -> UpdateTrade {
    UpdateTrade {
        window_id: "3".into(),
        window_type: "trading".into(),
        trade_tier: 1,
        // The unique id -77 as a zigzag varint64 (gophertunnel's reading of the field).
        villager_unique_id: 153,
        display_name: "entity.villager.librarian".into(),
        new_trading_ui: true,
        offers: UpdateTrade::offers_nbt(offers),
        ..UpdateTrade::default()
    }
}

/// Three emeralds in hotbar 0, two books in slot 9, a villager two blocks away.
fn ready() -> Simulation {
    let mut sim = Simulation::spawned_with(&start_game());
    let st = |name: &str, id: i32| ItemState { name: name.into(), runtime_id: id as i16, ..ItemState::default() };
    sim.receive(&ItemRegistry {
        itemstates: vec![
            st("minecraft:emerald", EMERALD),
            st("minecraft:book", BOOK),
            st("minecraft:bookshelf", BOOKSHELF),
            st("minecraft:wheat", WHEAT),
        ],
    });
    let mut slots = vec![ItemInstance::air(); 36];
    slots[0] = stack(EMERALD, 3, 1);
    slots[9] = stack(BOOK, 2, 2);
    sim.receive(&InventoryContent {
        window_id: "inventory".into(),
        input: slots,
        container: FullContainerName::of("anvil_input"),
        storage_item: ItemInstance::air(),
    });
    sim.receive(&AddEntity {
        unique_id: VILLAGER_UNIQUE,
        runtime_id: VILLAGER,
        entity_type: "minecraft:villager_v2".into(),
        position: Vec3 { x: 2.5, y: -60.0, z: 0.5 },
        ..AddEntity::default()
    });
    sim.tick();
    sim.sent();
    sim
}

/// Opens the villager's window: the interact leaves, the UpdateTrade answers.
fn open(sim: &mut Simulation) -> Map<String, Value> {
    let r = sim.command(r#"{"action":"trade_open","id":"o"}"#);
    assert_eq!((r["opening"].clone(), r["villager"]["runtimeId"].clone()), (json!(true), json!(VILLAGER)), "{r:?}");
    sim.tick();
    let tx = sim.sent_as::<InventoryTransaction>();
    let data = tx.first().and_then(InventoryTransaction::use_on_entity_data).expect("an interact on the villager");
    assert_eq!((data.entity_runtime_id, data.action_type.as_str()), (VILLAGER, "interact"));
    sim.receive(&update_trade(&offers()));
    sim.tick();
    let t = sim.command(r#"{"action":"trades"}"#);
    events_of(sim, "trade_open_done").pop().unwrap_or_else(|| panic!("trade_open_done; trades: {t:?}"))
}

fn code(sim: &mut Simulation, cmd: &str) -> Value {
    sim.command(cmd)["code"].clone()
}

#[test]
fn trade_open_lists_the_offers_of_the_servers_update_trade() {
    let mut sim = ready();
    assert_eq!(code(&mut sim, r#"{"action":"trade","offer":0}"#), "NO_CONTAINER", "no trade window yet");
    assert_eq!(code(&mut sim, r#"{"action":"trade_open","entity":"wandering_trader"}"#), "NOT_FOUND");
    let d = open(&mut sim);
    assert_eq!(
        (d["status"].clone(), d["confirmed"].clone(), d["windowId"].clone()),
        (json!("done"), json!(true), json!("3"))
    );
    assert_eq!((d["title"].clone(), d["tier"].clone()), (json!("entity.villager.librarian"), json!(1)));
    let o = d["offers"].as_array().expect("offers");
    assert_eq!(o.len(), 3);
    assert_eq!(o[0]["wantsAlso"], json!({"name":"minecraft:book","count":1}));
    assert_eq!(
        (o[0]["usesLeft"].clone(), o[0]["canAfford"].clone()),
        (json!(2), json!(2)),
        "uses bound it, then books"
    );
    assert_eq!(
        (o[1]["basePrice"].clone(), o[1]["priceChange"].clone(), o[1]["canAfford"].clone()),
        (json!(20), json!(2), json!(0))
    );
    assert_eq!((o[2]["locked"].clone(), o[2]["disabled"].clone()), (json!(true), json!(false)), "tier 4 above level 1");
    let r = sim.command(r#"{"action":"trades"}"#);
    assert_eq!((r["villager"].clone(), r["offers"].as_array().map(Vec::len)), (json!(VILLAGER), Some(3)), "{r:?}");

    assert_eq!(code(&mut sim, r#"{"action":"trade","offer":3}"#), "NO_OFFER");
    assert_eq!(code(&mut sim, r#"{"action":"trade","item":"diamond"}"#), "NO_OFFER");
    assert_eq!(code(&mut sim, r#"{"action":"trade","offer":2}"#), "OFFER_UNAVAILABLE", "locked");
    assert_eq!(code(&mut sim, r#"{"action":"trade","offer":1}"#), "MISSING_PAYMENT", "no wheat");
    assert_eq!(code(&mut sim, r#"{"action":"trade","offer":0,"times":0}"#), "OUT_OF_RANGE");
    assert!(sim.sent_as::<ItemStackRequest>().is_empty(), "a refused trade sends nothing");
}

/// The payment request of the next trade: places into both trade inputs. Returns its id.
fn payment(sim: &mut Simulation) -> i32 {
    sim.ticks(2);
    let reqs = sim.sent_as::<ItemStackRequest>();
    assert_eq!(reqs.len(), 1, "one request: the payment");
    let req = &reqs[0].requests[0];
    let moves: Vec<(String, u8, String, u8, Option<u8>)> = req
        .actions
        .iter()
        .map(|a| {
            let (s, d) = (a.source.clone().expect("source"), a.destination.clone().expect("destination"));
            (s.slot_type.container_id, s.slot, d.slot_type.container_id, d.slot, a.count)
        })
        .collect();
    assert_eq!(
        moves,
        [
            ("hotbar".into(), 0, "trade2_ingredient1".into(), 4, Some(1)),
            ("inventory".into(), 9, "trade2_ingredient2".into(), 5, Some(1))
        ]
    );
    assert!(req.actions.iter().all(|a| a.type_id == "place"));
    req.request_id
}

#[test]
fn a_trade_pays_into_the_inputs_then_crafts_the_offer_and_a_refusal_changes_nothing() {
    let mut sim = ready();
    open(&mut sim);
    let r = sim.command(r#"{"action":"trade","item":"bookshelf","times":2,"id":"t"}"#);
    assert_eq!((r["offer"].clone(), r["times"].clone()), (json!(0), json!(2)), "{r:?}");
    assert_eq!(code(&mut sim, r#"{"action":"trade_open"}"#), "BUSY", "one window action at a time");

    // Trade 1: paid, then traded.
    let id = payment(&mut sim);
    sim.receive(&ItemStackResponse::ok(
        id,
        vec![
            ("hotbar", vec![ResponseSlot::stack(0, 2, 1)]),
            ("inventory", vec![ResponseSlot::stack(9, 1, 2)]),
            ("trade2_ingredient1", vec![ResponseSlot::stack(4, 1, 40)]),
            ("trade2_ingredient2", vec![ResponseSlot::stack(5, 1, 41)]),
        ],
    ));
    sim.ticks(2);
    let reqs = sim.sent_as::<ItemStackRequest>();
    assert_eq!(reqs.len(), 1, "the trade's request");
    let req = &reqs[0].requests[0];
    let kinds: Vec<&str> = req.actions.iter().map(|a| a.type_id.as_str()).collect();
    assert_eq!(kinds, ["craft_recipe", "results_deprecated", "consume", "consume", "place"]);
    assert_eq!((req.actions[0].recipe_network_id, req.actions[0].times_crafted), (Some(501), Some(1)));
    let consumed: Vec<(String, u8, i32)> = req.actions[2..4]
        .iter()
        .map(|a| {
            let s = a.source.clone().expect("source");
            (s.slot_type.container_id, s.slot, s.stack_id)
        })
        .collect();
    assert_eq!(
        consumed,
        [("trade2_ingredient1".into(), 4, 40), ("trade2_ingredient2".into(), 5, 41)],
        "the answer's ids"
    );
    let out = req.actions[4].source.clone().expect("created output");
    assert_eq!((out.slot_type.container_id.as_str(), out.slot, out.stack_id), ("creative_output", 50, req.request_id));
    let dest = req.actions[4].destination.clone().expect("destination").slot;
    sim.receive(&ItemStackResponse::ok(req.request_id, vec![("hotbar", vec![ResponseSlot::stack(dest, 1, 50)])]));
    sim.ticks(1);
    let inv = sim.component::<Inventory>().expect("inventory");
    assert_eq!(
        inv.get(SlotRef::Inv(dest)).map(|i| (i.name.to_string(), i.count)),
        Some(("minecraft:bookshelf".into(), 1))
    );
    assert_eq!((inv.count_of("minecraft:emerald"), inv.count_of("minecraft:book")), (2, 1));
    assert_eq!(sim.command(r#"{"action":"trades"}"#)["offers"][0]["usesLeft"], 1, "the confirmed trade counts");

    // Trade 2: the server refuses the trade itself: trade_done says one trade, failed, rejected.
    let id = payment(&mut sim);
    sim.receive(&ItemStackResponse::ok(
        id,
        vec![
            ("hotbar", vec![ResponseSlot::stack(0, 1, 1)]),
            ("inventory", vec![ResponseSlot::stack(9, 0, 0)]),
            ("trade2_ingredient1", vec![ResponseSlot::stack(4, 1, 42)]),
            ("trade2_ingredient2", vec![ResponseSlot::stack(5, 1, 43)]),
        ],
    ));
    sim.ticks(2);
    let reqs = sim.sent_as::<ItemStackRequest>();
    let req = &reqs[0].requests[0];
    assert_eq!(req.actions[2].source.clone().map(|s| s.stack_id), Some(42));
    sim.receive(&ItemStackResponse::refused(req.request_id, "error"));
    sim.ticks(1);
    let d = events_of(&sim, "trade_done").pop().expect("trade_done");
    assert_eq!(
        (d["status"].clone(), d["reason"].clone(), d["trades"].clone(), d["confirmed"].clone()),
        (json!("failed"), json!("rejected: error"), json!(1), json!(true)),
        "{d:?}"
    );
    assert_eq!(d["gave"], json!([{"name":"minecraft:book","count":1},{"name":"minecraft:emerald","count":1}]));
    assert_eq!(
        (d["got"].clone(), d["usesLeft"].clone()),
        (json!([{"name":"minecraft:bookshelf","count":1}]), json!(1))
    );
    let inv = sim.component::<Inventory>().expect("inventory");
    assert_eq!(inv.count_of("minecraft:bookshelf"), 1, "the refused trade gave nothing");

    // The server's next UpdateTrade is the truth about uses.
    let mut again = offers();
    again[0].uses = 12;
    sim.receive(&update_trade(&again));
    sim.tick();
    let r = sim.command(r#"{"action":"trades"}"#);
    assert_eq!((r["offers"][0]["usesLeft"].clone(), r["offers"][0]["disabled"].clone()), (json!(0), json!(true)));
    assert_eq!(code(&mut sim, r#"{"action":"trade","offer":0}"#), "OFFER_UNAVAILABLE", "used up");
    assert_eq!(sim.warnings(), 0);
}
