//! `fight` in simulation: the packets a server reads (the weapon switch, attacks spaced by
//! Bedrock's invulnerability ticks, hits held for the fall of a jump), the retreat when health is
//! low, and a receipt built from what the simulated server answered.

use crate::interact::world;

use clawcraft::protocol::packets::{
    AddEntity, Animate, Attribute, ContainerOpen, EntityEvent, InventoryTransaction, ItemStackRequest,
    ItemStackResponse, MobEquipment, PlayerAuthInput, ResponseSlot, UpdateAttributes, Vec3,
};
use clawcraft::sim::SIM_RUNTIME_ID;
use serde_json::{Map, Value, json};
use world::{IRON_SWORD, Sim, WOOD_PICK, stack};

const ZOMBIE: u64 = 60;

fn health(runtime: u64, current: f32, max: f32) -> UpdateAttributes {
    UpdateAttributes {
        runtime_entity_id: runtime,
        attributes: vec![Attribute {
            min: 0.0,
            max,
            current,
            default_min: 0.0,
            default_max: max,
            default: max,
            name: "minecraft:health".into(),
            modifiers: Vec::new(),
        }],
        tick: 0,
    }
}

fn event(runtime: u64, id: &str) -> EntityEvent {
    EntityEvent { runtime_entity_id: runtime, event_id: id.into(), data: 0, fire_at_position: None }
}

/// A bot holding a wooden pickaxe (slot 0) with an iron sword in slot 3, a zombie 2 blocks east.
fn arena(zombie_x: f32) -> Sim {
    let mut w = world::world(&[], &[(0, stack(WOOD_PICK, 1, 1)), (3, stack(IRON_SWORD, 1, 2))]);
    w.sim.receive(&AddEntity {
        unique_id: 600,
        runtime_id: ZOMBIE,
        entity_type: "minecraft:zombie".into(),
        position: Vec3 { x: zombie_x, y: -60.0, z: 0.5 },
        ..AddEntity::default()
    });
    w.sim.tick();
    w.sim.sent();
    w
}

fn last(w: &Sim, kind: &str) -> Map<String, Value> {
    w.events_of(kind).pop().unwrap_or_else(|| panic!("no {kind}"))
}

/// Ticks `n` times; the tick indexes (from 0) at which an attack was sent, with the bot's eye
/// height in the input of the tick before and of that tick.
fn attacks_over(w: &mut Sim, n: usize) -> Vec<(usize, f32, f32)> {
    let mut out = Vec::new();
    let mut prev_y = f32::NAN;
    for i in 0..n {
        w.sim.tick();
        let sent = w.sim.sent_bodies();
        let attacks = w
            .sim
            .decode_all::<InventoryTransaction>(&sent)
            .into_iter()
            .filter(|t| {
                t.use_on_entity_data().is_some_and(|d| d.action_type == "attack" && d.entity_runtime_id == ZOMBIE)
            })
            .count();
        let y = w.sim.decode_all::<PlayerAuthInput>(&sent).last().map_or(prev_y, |p| p.position.y);
        for _ in 0..attacks {
            out.push((i, prev_y, y));
        }
        prev_y = y;
    }
    out
}

#[test]
fn fight_takes_the_best_weapon_and_hits_once_per_invulnerability_window_until_the_kill() {
    let mut w = arena(2.5);
    let r = w.ok(r#"{"action":"fight","entity":"zombie","crits":false,"id":"f1"}"#);
    assert_eq!(r["entity"], json!({"name": "zombie", "runtimeId": ZOMBIE}));
    assert_eq!((r["weapon"].clone(), r["switched"].clone()), (json!("minecraft:iron_sword"), json!(true)));
    let sent = w.sim.sent_bodies();
    let equip = w.sim.decode_all::<MobEquipment>(&sent);
    assert_eq!(equip.len(), 1, "one switch to the sword");
    assert_eq!((equip[0].selected_slot, equip[0].item.network_id), (3, IRON_SWORD));
    let first = w.sim.decode_all::<InventoryTransaction>(&sent);
    let data = first[0].use_on_entity_data().expect("the first hit goes with the command's tick");
    assert_eq!((data.hotbar_slot, data.held_item.network_id), (3, IRON_SWORD), "the hit carries the sword");
    let swings = w.sim.decode_all::<Animate>(&sent);
    assert_eq!(swings[0].swing_source.as_deref(), Some("attack"));

    // The server shows the first hit: 7 of the zombie's 20.
    w.sim.receive(&event(ZOMBIE, "hurt_animation"));
    w.sim.receive(&health(ZOMBIE, 13.0, 20.0));
    let hits = attacks_over(&mut w, 30);
    let at: Vec<usize> = hits.iter().map(|h| h.0).collect();
    // Hit 1 went with the command's tick (tick −1 here): the next ones 10 ticks apart, none
    // inside a target's invulnerability.
    assert_eq!(at, vec![9, 19, 29], "one hit per 10-tick invulnerability window");

    w.sim.receive(&event(ZOMBIE, "hurt_animation"));
    w.sim.receive(&health(ZOMBIE, 6.0, 20.0));
    w.sim.receive(&event(ZOMBIE, "hurt_animation"));
    w.sim.receive(&health(ZOMBIE, 0.0, 20.0));
    w.sim.receive(&event(ZOMBIE, "death_animation"));
    w.sim.tick();
    let d = last(&w, "fight_done");
    assert_eq!(d["id"], "f1");
    assert_eq!((d["status"].clone(), d["killed"].clone()), (json!("done"), json!(true)), "{d:?}");
    assert_eq!((d["hits"].clone(), d["hurts"].clone()), (json!(4), json!(3)));
    assert_eq!(d["damageDealt"], 20.0);
    assert_eq!(d["damageTaken"], 0.0);
    assert_eq!(d["weapon"], "minecraft:iron_sword");
    assert_eq!(w.code(r#"{"action":"abort_fight"}"#), "NOT_ACTIVE");
}

#[test]
fn fight_swaps_a_better_weapon_from_the_main_inventory_and_holds_its_hits_until_the_server_confirms() {
    let mut w = world::world(&[], &[(0, stack(WOOD_PICK, 1, 1)), (20, stack(IRON_SWORD, 1, 2))]);
    w.sim.receive(&AddEntity {
        unique_id: 600,
        runtime_id: ZOMBIE,
        entity_type: "minecraft:zombie".into(),
        position: Vec3 { x: 2.5, y: -60.0, z: 0.5 },
        ..AddEntity::default()
    });
    w.sim.tick();
    w.sim.sent();
    let r = w.ok(r#"{"action":"fight","entity":"zombie","crits":false,"id":"f3"}"#);
    assert_eq!((r["weapon"].clone(), r["switched"].clone()), (json!("minecraft:iron_sword"), json!(true)));
    assert!(attacks_over(&mut w, 2).is_empty(), "no hit with the pickaxe while the sword is on its way");
    w.sim.receive(&ContainerOpen {
        window_id: "inventory".into(),
        window_type: "inventory".into(),
        ..ContainerOpen::default()
    });
    w.sim.tick();
    let req = w.sim.sent_as::<ItemStackRequest>();
    assert_eq!(req[0].requests[0].actions[0].type_id, "swap", "the sword swapped into the held slot");
    assert!(attacks_over(&mut w, 5).is_empty(), "no hit before the server confirmed the swap");
    w.sim.receive(&ItemStackResponse::ok(
        req[0].requests[0].request_id,
        vec![("hotbar", vec![ResponseSlot::stack(0, 1, 2)]), ("inventory", vec![ResponseSlot::stack(20, 1, 1)])],
    ));
    w.sim.sent();
    let mut first = None;
    for _ in 0..6 {
        w.sim.tick();
        let sent = w.sim.sent_bodies();
        if let Some(d) = w.sim.decode_all::<InventoryTransaction>(&sent).iter().find_map(|t| t.use_on_entity_data()) {
            first = Some((d.hotbar_slot, d.held_item.network_id));
            break;
        }
    }
    assert_eq!(first, Some((0, IRON_SWORD)), "the first hit carries the sword from the held slot");
}

#[test]
fn fight_jumps_so_hits_land_while_falling_and_counts_the_servers_critical_hits() {
    let mut w = arena(2.5);
    w.ok(r#"{"action":"fight","entity":60}"#);
    w.sim.sent();
    let hits = attacks_over(&mut w, 60);
    assert!(hits.len() >= 3, "hits keep coming: {hits:?}");
    // The command's tick was on the ground (the first hit does not wait); every later hit is sent
    // while the eye goes down, in the air.
    for (i, before, now) in &hits {
        assert!(now < before, "hit at tick {i} sent while rising or standing ({before} → {now})");
        assert!(*now > -58.37, "hit at tick {i} sent on the ground ({now})");
    }
    for w2 in hits.windows(2) {
        assert!(w2[1].0 - w2[0].0 >= 10, "no hit inside the invulnerability window: {hits:?}");
    }
    w.sim.receive(&Animate {
        action_id: "critical_hit".into(),
        runtime_entity_id: ZOMBIE,
        data: 0.0,
        has_swing_source: false,
        swing_source: None,
    });
    w.sim.tick();
    let r = w.ok(r#"{"action":"abort_fight"}"#);
    assert_eq!((r["aborted"].clone(), r["crits"].clone()), (json!(true), json!(1)));
    let d = last(&w, "fight_done");
    assert_eq!((d["status"].clone(), d["killed"].clone()), (json!("aborted"), json!(false)));
}

#[test]
fn fight_retreats_when_health_is_low_and_refuses_what_it_cannot_do() {
    let mut w = arena(2.5);
    assert_eq!(w.code(r#"{"action":"fight","entity":"creeper"}"#), "NOT_FOUND");
    assert_eq!(w.code(r#"{"action":"fight","entity":"zombie","seconds":0}"#), "OUT_OF_RANGE");
    assert_eq!(w.code(r#"{"action":"fight","entity":[1]}"#), "INVALID_PARAMS");
    w.ok(r#"{"action":"fight","entity":"zombie","minHealth":8,"crits":false}"#);
    assert_eq!(w.code(r#"{"action":"fight","entity":"zombie"}"#), "BUSY");
    let eat = w.cmd(r#"{"action":"eat","item":"bread"}"#);
    assert_eq!(eat["code"], "BUSY", "the hand is the fight's: {eat:?}");
    assert!(eat["error"].as_str().is_some_and(|e| e.contains("abort_fight")), "{eat:?}");
    w.sim.ticks(3);
    let x0 = w.sim.component::<clawcraft::core::Position>().expect("position").0.x;
    // The zombie hits the bot: 20 → 7, below minHealth 8.
    w.sim.receive(&health(SIM_RUNTIME_ID, 7.0, 20.0));
    w.sim.ticks(20);
    let x1 = w.sim.component::<clawcraft::core::Position>().expect("position").0.x;
    assert!(x1 < x0 - 1.5, "the bot runs west, away from the zombie: {x0} → {x1}");
    assert!(w.events_of("fight_done").is_empty(), "the retreat lasts 2 s");
    w.sim.ticks(21);
    let d = last(&w, "fight_done");
    assert_eq!((d["status"].clone(), d["reason"].clone()), (json!("failed"), json!("low_health")), "{d:?}");
    assert_eq!(
        (d["retreated"].clone(), d["damageTaken"].clone(), d["health"].clone()),
        (json!(true), json!(13.0), json!(7.0))
    );
    // The hand is free again.
    assert_ne!(w.cmd(r#"{"action":"eat","item":"bread"}"#)["code"], "BUSY");
}

#[test]
fn the_retreat_walks_around_a_wall_behind_the_bot() {
    // A wall three blocks high along x = −1 (z −4..4) right behind the bot; the zombie 2 blocks east.
    let wall: Vec<world::Placed> =
        (-4..=4).flat_map(|z| (-60..=-58).map(move |y| ("stone", Vec::new(), [-1, y, z]))).collect();
    let mut w = world::world(&wall, &[(0, stack(WOOD_PICK, 1, 1)), (3, stack(IRON_SWORD, 1, 2))]);
    w.sim.receive(&AddEntity {
        unique_id: 600,
        runtime_id: ZOMBIE,
        entity_type: "minecraft:zombie".into(),
        position: Vec3 { x: 2.5, y: -60.0, z: 0.5 },
        ..AddEntity::default()
    });
    w.sim.tick();
    w.ok(r#"{"action":"fight","entity":"zombie","minHealth":8,"crits":false}"#);
    w.sim.ticks(3);
    w.sim.receive(&health(SIM_RUNTIME_ID, 7.0, 20.0));
    let zombie = clawcraft::core::Vec3::new(2.5, -60.0, 0.5);
    let mut farthest_west = f64::MAX;
    for _ in 0..38 {
        w.sim.tick();
        let p = w.sim.component::<clawcraft::core::Position>().expect("position").0;
        farthest_west = farthest_west.min(p.x);
    }
    assert!(w.events_of("fight_done").is_empty(), "the retreat lasts 2 s");
    let p = w.sim.component::<clawcraft::core::Position>().expect("position").0;
    // Straight away (west) ends against the wall, about 2 blocks from the zombie; the planned way
    // goes along the wall and around it.
    assert!(p.distance(zombie) > 6.0, "the bot got away around the wall: at {p:?}");
    assert!((p.z - 0.5).abs() > 4.0 || p.x < -2.0, "around the wall's end: {p:?}");
    assert!(farthest_west > -1.0 || (p.z - 0.5).abs() > 4.5, "never through the wall: {farthest_west}");
    w.sim.ticks(3);
    let d = last(&w, "fight_done");
    assert_eq!((d["reason"].clone(), d["retreated"].clone()), (json!("low_health"), json!(true)), "{d:?}");
}

#[test]
fn auto_defend_fights_the_nearest_hostile_then_the_next_one_that_hurts() {
    let mut w = arena(2.5);
    w.sim.receive(&AddEntity {
        unique_id: 601,
        runtime_id: 61,
        entity_type: "minecraft:zombie".into(),
        position: Vec3 { x: -5.5, y: -60.0, z: 0.5 },
        ..AddEntity::default()
    });
    w.sim.tick();
    let r = w.ok(r#"{"action":"policy","name":"auto_defend","range":8}"#);
    assert_eq!(
        (r["enabled"].clone(), r["range"].clone(), r["minHealth"].clone()),
        (json!(true), json!(8.0), json!(6.0))
    );
    assert_eq!(w.code(r#"{"action":"policy","name":"auto_defend","hunger":3}"#), "INVALID_PARAMS");
    w.sim.ticks(3);
    let acts = w.events_of("policy_action");
    assert_eq!(acts.len(), 1, "{acts:?}");
    assert_eq!((acts[0]["policy"].clone(), acts[0]["params"]["entity"].clone()), (json!("auto_defend"), json!(ZOMBIE)));
    // The first zombie dies and is removed.
    w.sim.receive(&event(ZOMBIE, "hurt_animation"));
    w.sim.receive(&event(ZOMBIE, "death_animation"));
    w.sim.ticks(2);
    let d = last(&w, "fight_done");
    assert_eq!((d["id"].clone(), d["killed"].clone()), (acts[0]["actionId"].clone(), json!(true)), "{d:?}");
    w.sim.receive(&clawcraft::protocol::packets::RemoveEntity { entity_id_self: 600 });
    w.sim.ticks(5);
    assert_eq!(w.events_of("policy_action").len(), 1, "the other zombie is 6 blocks away and has not hurt the bot");
    // It hurts the bot: fought back.
    w.sim.receive(&event(SIM_RUNTIME_ID, "hurt_animation"));
    w.sim.ticks(3);
    let acts = w.events_of("policy_action");
    assert_eq!(acts.len(), 2, "{acts:?}");
    assert_eq!(acts[1]["params"]["entity"], 61, "{acts:?}");
    let p = w.ok(r#"{"action":"policy","name":"auto_defend","enabled":false}"#);
    assert_eq!(p["enabled"], false);
}
