//! Simulation tests of the entity plugin: real encoded packets injected after the join sequence,
//! the resulting ECS state, events and command answers asserted. Any warning log fails a test.

use clawcraft::core::Vec3;
use clawcraft::core::{DangerMode, DangerPolicy};
use clawcraft::protocol::packets::{Disconnect, MovePlayer, StartGame, Vec2, Vec3 as WireVec3};
use clawcraft::sim::Simulation;
use clawcraft_entity::packets::{
    AddEntity, AddItemEntity, AddPlayer, ChangeDimension, ItemRegistry, ItemStack, ItemState, MetadataEntry,
    MoveEntity, MoveEntityDelta, PlayerList, PlayerRecord, RemoveEntity, SetEntityData, SetEntityMotion,
    TakeItemEntity,
};
use clawcraft_entity::{
    EntityFlags, EntityIndex, EntityKind, EntityPosition, EntitySettings, EntityVelocity, ItemPickedUp, NameTag,
    Proximity, SeenBy, entity_counts,
};
use serde_json::{Map, Value as Json, json};

const RUNTIME_ID: u64 = 7;
const OWN_UNIQUE: i64 = -3;
/// Feet at (0.5, -60, 0.5); the wire carries the eye position.
const SPAWN_EYE: WireVec3 = WireVec3 { x: 0.5, y: -58.38, z: 0.5 };
const STEVE_UUID: &str = "11111111-2222-3333-4444-555555555555";

fn start_game() -> StartGame {
    StartGame {
        entity_id: OWN_UNIQUE,
        runtime_entity_id: RUNTIME_ID,
        player_gamemode: "survival".into(),
        player_position: SPAWN_EYE,
        rotation: Vec2 { x: 0.0, z: 0.0 },
        dimension: "overworld".into(),
        world_name: "Sim World".into(),
        block_network_ids_are_hashes: true,
        server_authoritative_block_breaking: true,
        ..StartGame::default()
    }
}

/// A bot right after its spawn tick.
fn spawned() -> Simulation {
    Simulation::spawned_with(&start_game())
}

/// A wire position `dx` blocks east of the bot at its feet height (`eye` adds the player offset).
fn at(dx: f32, dz: f32, eye: bool) -> WireVec3 {
    WireVec3 { x: 0.5 + dx, y: if eye { -58.38 } else { -60.0 }, z: 0.5 + dz }
}

fn add_mob(unique: i64, runtime: u64, identifier: &str, position: WireVec3) -> AddEntity {
    AddEntity {
        unique_id: unique,
        runtime_id: runtime,
        entity_type: identifier.into(),
        position,
        ..AddEntity::default()
    }
}

fn add_steve(runtime: u64, unique: i64, eye: WireVec3) -> AddPlayer {
    AddPlayer {
        uuid: STEVE_UUID.into(),
        username: "Steve".into(),
        runtime_id: runtime,
        position: eye,
        unique_id: unique,
        ..AddPlayer::default()
    }
}

fn move_player(runtime: u64, eye: WireVec3) -> MovePlayer {
    MovePlayer { runtime_id: runtime as u32, position: eye, mode: "normal".into(), ..MovePlayer::default() }
}

fn list_add(uuid: &str, name: &str, unique: i64, platform: i32) -> PlayerRecord {
    PlayerRecord {
        kind: "add".into(),
        legacy_type: 0,
        uuid: uuid.into(),
        entity_unique_id: unique,
        username: name.into(),
        build_platform: platform,
        ..PlayerRecord::default()
    }
}

fn list_remove(uuid: &str) -> PlayerRecord {
    PlayerRecord { kind: "remove".into(), legacy_type: 1, uuid: uuid.into(), ..PlayerRecord::default() }
}

fn index(sim: &Simulation) -> EntityIndex {
    sim.component::<EntityIndex>().expect("the bot has an entity index")
}

/// Feet position of the entity with runtime id `runtime`.
fn pos_of(sim: &Simulation, runtime: u64) -> Option<Vec3> {
    let entry = index(sim).by_runtime(runtime)?.clone();
    sim.app.world().get::<EntityPosition>(entry.entity).map(|p| p.0)
}

fn assert_near(actual: Vec3, expected: Vec3) {
    assert!(actual.distance(expected) < 0.1, "position {actual:?}, expected {expected:?}");
}

fn events_of(sim: &Simulation, kind: &str) -> Vec<Map<String, Json>> {
    sim.events().into_iter().filter(|e| e["type"] == kind).collect()
}

/// The event fields without `timestamp`/`seq`, for exact comparisons.
fn strip(mut e: Map<String, Json>) -> Json {
    e.remove("timestamp");
    e.remove("seq");
    Json::Object(e)
}

#[test]
fn mobs_are_added_moved_by_every_delta_combination_and_removed_by_unique_id() {
    let mut sim = spawned();
    sim.receive(&add_mob(100, 50, "minecraft:zombie", at(20.0, 0.0, false)));
    sim.tick();
    let entry = index(&sim).by_runtime(50).cloned().expect("indexed by runtime id");
    assert_eq!(index(&sim).by_unique(100).map(|e| e.entity), Some(entry.entity), "indexed by unique id");
    let world = sim.app.world();
    let kind = world.get::<EntityKind>(entry.entity).expect("kind");
    assert_eq!(
        (kind.identifier.as_str(), kind.name.as_str(), kind.display_name.as_str()),
        ("minecraft:zombie", "zombie", "Zombie")
    );
    assert_eq!(kind.category, clawcraft_entity::EntityCategory::Hostile);
    assert_eq!(world.get::<SeenBy>(entry.entity), Some(&SeenBy(sim.bot)));
    assert_near(pos_of(&sim, 50).expect("pos"), Vec3::new(20.5, -60.0, 0.5));

    // Absolute move.
    sim.receive(&MoveEntity { runtime_entity_id: 50, position: at(25.0, 3.0, false), ..MoveEntity::default() });
    sim.tick();
    let mut expected = Vec3::new(25.5, -60.0, 3.5);
    assert_near(pos_of(&sim, 50).expect("pos"), expected);

    // Every combination of present axes: present ones are absolute values, absent ones stay.
    for mask in 0u8..8 {
        let (nx, ny, nz) = (30.0 + f32::from(mask), -59.0 + f32::from(mask) * 0.5, -10.0 - f32::from(mask));
        let delta = MoveEntityDelta {
            runtime_entity_id: 50,
            x: (mask & 1 != 0).then_some(nx),
            y: (mask & 2 != 0).then_some(ny),
            z: (mask & 4 != 0).then_some(nz),
            rot_y: (mask & 1 != 0).then_some(64),
            on_ground: true,
            ..MoveEntityDelta::default()
        };
        if mask & 1 != 0 {
            expected.x = f64::from(nx);
        }
        if mask & 2 != 0 {
            expected.y = f64::from(ny);
        }
        if mask & 4 != 0 {
            expected.z = f64::from(nz);
        }
        sim.receive(&delta);
        sim.tick();
        assert_near(pos_of(&sim, 50).expect("pos"), expected);
    }

    // Byte angle 64 = 90 degrees.
    let rot = sim.app.world().get::<clawcraft_entity::EntityRotation>(entry.entity).copied().expect("rotation");
    assert!((rot.yaw - 90.0).abs() < 1e-3, "{rot:?}");

    // RemoveEntity carries the unique id: the runtime id must not remove it.
    sim.receive(&RemoveEntity { entity_id_self: 50 });
    sim.tick();
    assert!(pos_of(&sim, 50).is_some(), "a remove naming the runtime id removes nothing");
    sim.receive(&RemoveEntity { entity_id_self: 100 });
    sim.tick();
    assert!(index(&sim).is_empty());
    assert!(sim.app.world().get_entity(entry.entity).is_err(), "the ECS entity is despawned");
}

#[test]
fn an_entity_added_and_moved_in_one_tick_ends_at_the_new_position() {
    let mut sim = spawned();
    sim.receive(&add_mob(101, 51, "minecraft:cow", at(3.0, 0.0, false)));
    sim.receive(&MoveEntityDelta { runtime_entity_id: 51, z: Some(9.5), ..MoveEntityDelta::default() });
    sim.tick();
    assert_near(pos_of(&sim, 51).expect("pos"), Vec3::new(3.5, -60.0, 9.5));
    // Remove and re-add of the same unique id in one tick leaves the new entity.
    sim.receive(&RemoveEntity { entity_id_self: 101 });
    sim.receive(&add_mob(101, 52, "minecraft:cow", at(4.0, 0.0, false)));
    sim.tick();
    assert_eq!(index(&sim).len(), 1);
    assert_near(pos_of(&sim, 52).expect("re-added"), Vec3::new(4.5, -60.0, 0.5));
    assert!(pos_of(&sim, 51).is_none());
}

#[test]
fn roster_join_leave_and_view_appear_disappear() {
    let mut sim = spawned();
    sim.receive(&PlayerList {
        records: vec![
            list_add(STEVE_UUID, "Steve", 200, 7),
            list_add("99999999-0000-0000-0000-000000000001", "ClawBot", OWN_UNIQUE, 7),
        ],
    });
    sim.tick();
    let joins: Vec<Json> = events_of(&sim, "player_join").into_iter().map(strip).collect();
    assert_eq!(joins, [json!({"type": "player_join", "name": "Steve", "uuid": STEVE_UUID, "platform": "windows"})]);
    let players = sim.command(r#"{"action":"players"}"#);
    assert_eq!(players["count"], 1, "the bot is not in its own roster (as ClawCraft): {players:?}");
    let steve = players["players"].as_array().and_then(|p| p.iter().find(|p| p["name"] == "Steve")).cloned();
    let steve = steve.expect("Steve in the roster");
    assert_eq!(steve["uuid"], STEVE_UUID);
    assert_eq!(steve["platform"], "windows");
    assert!(steve["joinedAt"].as_u64().is_some_and(|t| t > 1_600_000_000_000), "joinedAt is unix ms: {steve:?}");
    // A resent list entry is an update, not a second join.
    sim.receive(&PlayerList { records: vec![list_add(STEVE_UUID, "Steve", 200, 7)] });
    sim.tick();
    assert_eq!(events_of(&sim, "player_join").len(), 1);

    sim.receive(&add_steve(60, 200, at(30.0, 0.0, true)));
    sim.tick();
    let appear: Vec<Json> = events_of(&sim, "player_appear").into_iter().map(strip).collect();
    assert_eq!(
        appear,
        [
            json!({"type": "player_appear", "name": "Steve", "uuid": STEVE_UUID, "position": {"x": 30.5, "y": -60.0, "z": 0.5}})
        ]
    );
    let entry = index(&sim).by_runtime(60).cloned().expect("player indexed");
    let info = sim.app.world().get::<clawcraft_entity::PlayerInfo>(entry.entity).cloned().expect("player info");
    assert_eq!(info.platform, "windows", "platform from the roster when AddPlayer has none");

    // Other players move with MovePlayer (eye positions).
    sim.receive(&move_player(60, at(20.0, 0.0, true)));
    sim.tick();
    assert_near(pos_of(&sim, 60).expect("pos"), Vec3::new(20.5, -60.0, 0.5));
    // MoveEntityDelta of a player carries the eye height too.
    sim.receive(&MoveEntityDelta { runtime_entity_id: 60, y: Some(-57.38), ..MoveEntityDelta::default() });
    sim.tick();
    assert_near(pos_of(&sim, 60).expect("pos"), Vec3::new(20.5, -59.0, 0.5));

    sim.receive(&RemoveEntity { entity_id_self: 200 });
    sim.tick();
    let gone: Vec<Json> = events_of(&sim, "player_disappear").into_iter().map(strip).collect();
    assert_eq!(gone, [json!({"type": "player_disappear", "name": "Steve", "uuid": STEVE_UUID})]);

    sim.receive(&PlayerList { records: vec![list_remove(STEVE_UUID)] });
    sim.tick();
    let left: Vec<Json> = events_of(&sim, "player_leave").into_iter().map(strip).collect();
    assert_eq!(left, [json!({"type": "player_leave", "name": "Steve", "uuid": STEVE_UUID})]);
    let players = sim.command(r#"{"action":"players"}"#);
    assert_eq!(players["count"], 0, "{players:?}");
}

#[test]
fn proximity_zones_have_hysteresis_and_an_exact_event_sequence() {
    let mut sim = spawned();
    sim.receive(&PlayerList { records: vec![list_add(STEVE_UUID, "Steve", 200, 7)] });
    sim.receive(&add_steve(60, 200, at(30.0, 0.0, true)));
    sim.tick();
    // Distances east of the bot, one per tick.
    let walk =
        [30.0, 16.5, 15.9, 16.9, 16.5, 17.5, 16.9, 15.0, 8.5, 7.9, 8.9, 8.1, 8.9, 7.5, 9.5, 8.5, 8.9, 7.0, 20.0, 40.0];
    for d in walk {
        sim.receive(&move_player(60, at(d, 0.0, true)));
        sim.tick();
    }
    // Back into `near`, then oscillating across the 16-block border inside the hysteresis band:
    // no further events.
    sim.receive(&move_player(60, at(15.5, 0.0, true)));
    sim.tick();
    for i in 0..20 {
        let d = if i % 2 == 0 { 16.2 } else { 16.8 };
        sim.receive(&move_player(60, at(d, 0.0, true)));
        sim.tick();
    }
    let seq: Vec<(String, String, f64)> = sim
        .events()
        .into_iter()
        .filter(|e| e["type"] == "player_nearby" || e["type"] == "player_left_nearby")
        .map(|e| {
            assert_eq!(e["name"], "Steve");
            assert_eq!(e["uuid"], STEVE_UUID);
            let kind = e["type"].as_str().unwrap_or_default().to_owned();
            (kind, e["zone"].as_str().unwrap_or_default().to_owned(), e["distance"].as_f64().unwrap_or(-1.0))
        })
        .collect();
    let expected = [
        ("player_nearby", "near", 15.9),
        ("player_left_nearby", "near", 17.5),
        ("player_nearby", "near", 15.0),
        ("player_nearby", "close", 7.9),
        ("player_left_nearby", "close", 9.5),
        ("player_nearby", "close", 7.0),
        ("player_left_nearby", "near", 20.0),
        ("player_nearby", "near", 15.5),
    ];
    assert_eq!(seq.len(), expected.len(), "{seq:?}");
    for ((k, z, d), (ek, ez, ed)) in seq.iter().zip(expected) {
        assert_eq!((k.as_str(), z.as_str()), (ek, ez), "{seq:?}");
        assert!((d - ed).abs() < 0.05, "distance {d} vs {ed}: {seq:?}");
    }
}

/// The bot with `danger` paced as `mode`, repeating unchanged threats every `repeat_ms`.
fn spawned_with_danger(mode: DangerMode, repeat_ms: u64) -> Simulation {
    let mut sim = spawned();
    sim.app.world_mut().insert_resource(DangerPolicy::new(mode, repeat_ms));
    sim
}

/// The `change` of each `danger` so far, with its zone.
fn danger_changes(sim: &Simulation) -> Vec<(String, String)> {
    events_of(sim, "danger")
        .iter()
        .map(|e| (e["change"].as_str().unwrap_or("?").to_owned(), e["zone"].as_str().unwrap_or("?").to_owned()))
        .collect()
}

fn move_x(runtime: u64, dx: f32) -> MoveEntityDelta {
    MoveEntityDelta { runtime_entity_id: runtime, x: Some(0.5 + dx), ..MoveEntityDelta::default() }
}

/// Paces mob 50 between 4 and 6 blocks east of the bot for `ticks` ticks, one step a tick.
fn pace(sim: &mut Simulation, ticks: usize) {
    for t in 0..ticks {
        // A triangle wave with a 2 s period: 6 → 4 → 6.
        let phase = (t % 40) as f32 / 20.0;
        let dx = if phase < 1.0 { 6.0 - 2.0 * phase } else { 2.0 + 2.0 * phase };
        sim.receive(&move_x(50, dx));
        sim.tick();
    }
}

#[test]
fn interval_mode_reports_close_hostiles_every_five_seconds() {
    let mut sim = spawned_with_danger(DangerMode::Interval, 30_000);
    sim.receive(&add_mob(100, 50, "minecraft:zombie", at(5.0, 0.0, false)));
    sim.receive(&add_mob(101, 51, "minecraft:cow", at(2.0, 0.0, false)));
    sim.receive(&add_mob(102, 52, "minecraft:wolf", at(2.0, 1.0, false)));
    sim.receive(&add_mob(103, 53, "minecraft:skeleton", at(12.0, 0.0, false)));
    sim.tick();
    let dangers: Vec<Json> = events_of(&sim, "danger").into_iter().map(strip).collect();
    assert_eq!(
        dangers,
        [
            json!({"type": "danger", "threat": "zombie", "distance": 5.0, "entityType": 32, "identifier": "minecraft:zombie", "runtimeId": 50,
                "pos": {"x": 5.5, "y": -60.0, "z": 0.5}, "change": "new", "zone": "close"})
        ]
    );
    sim.ticks(99);
    assert_eq!(events_of(&sim, "danger").len(), 1, "debounced for 100 ticks");
    sim.tick();
    assert_eq!(danger_changes(&sim).last(), Some(&("repeat".to_owned(), "close".to_owned())), "again after 5 s");
    // The setting widens the radius: the skeleton at 12 blocks now counts.
    sim.app.world_mut().resource_mut::<EntitySettings>().danger_mob_dist = 16.0;
    sim.tick();
    let last = events_of(&sim, "danger").pop().expect("danger");
    assert_eq!(last["threat"], "skeleton");
    assert_eq!(events_of(&sim, "danger").len(), 3);
    // A removed mob that comes back is a new mob (no stale debounce), and nothing says `gone`.
    sim.receive(&RemoveEntity { entity_id_self: 100 });
    sim.tick();
    sim.receive(&add_mob(100, 50, "minecraft:zombie", at(3.0, 0.0, false)));
    sim.tick();
    assert_eq!(events_of(&sim, "danger").len(), 4);
    assert_eq!(danger_changes(&sim)[3].0, "new");

    // A zombie pacing at 4-6 blocks for 30 s: every 5 s, as ClawCraft.
    let mut sim = spawned_with_danger(DangerMode::Interval, 30_000);
    sim.receive(&add_mob(100, 50, "minecraft:zombie", at(6.0, 0.0, false)));
    pace(&mut sim, 600);
    assert_eq!(events_of(&sim, "danger").len(), 6, "{:?}", danger_changes(&sim));
}

#[test]
fn a_pacing_zombie_is_reported_once_and_once_more_when_closer() {
    let mut sim = spawned_with_danger(DangerMode::Change, 30_000);
    sim.receive(&add_mob(100, 50, "minecraft:zombie", at(6.0, 0.0, false)));
    // 30 s of pacing between 6 and 4 blocks: `new` at 6 (near), `closer` at 5 (close), then
    // nothing — the 2-block leave margin keeps it `close` at 6.
    pace(&mut sim, 600);
    let changes = danger_changes(&sim);
    assert_eq!(changes, [("new".into(), "near".into()), ("closer".into(), "close".into())], "{changes:?}");
    let dangers = events_of(&sim, "danger");
    assert_eq!(dangers[1]["distance"], 5.0, "closer fires as the zone's bound is crossed");
    // The default repeat (30 s after the last report) comes while it keeps pacing.
    pace(&mut sim, 40);
    assert_eq!(danger_changes(&sim).last().map(|c| c.0.as_str()), Some("repeat"));
    assert_eq!(events_of(&sim, "danger").len(), 3);
}

#[test]
fn danger_reports_approach_zone_by_zone_then_gone_when_leaving_or_despawned() {
    let mut sim = spawned_with_danger(DangerMode::Change, 0);
    sim.receive(&add_mob(100, 50, "minecraft:zombie", at(12.0, 0.0, false)));
    sim.receive(&add_mob(101, 51, "minecraft:creeper", at(0.0, 7.0, false)));
    sim.tick();
    assert_eq!(danger_changes(&sim), [("new".into(), "near".into())], "only the creeper is within 8");
    // The zombie walks straight at the bot, half a block a tick.
    for step in 0..20 {
        sim.receive(&move_x(50, 12.0 - 0.5 * step as f32));
        sim.tick();
    }
    let zombie: Vec<(String, String, f64)> = events_of(&sim, "danger")
        .iter()
        .filter(|e| e["threat"] == "zombie")
        .map(|e| {
            (
                e["change"].as_str().unwrap_or("?").into(),
                e["zone"].as_str().unwrap_or("?").into(),
                e["distance"].as_f64().unwrap_or(-1.0),
            )
        })
        .collect();
    assert_eq!(
        zombie,
        [
            ("new".into(), "near".into(), 8.0),
            ("closer".into(), "close".into(), 5.0),
            ("closer".into(), "melee".into(), 3.0)
        ]
    );
    // It backs off to 9 blocks: within the margin of `near`, nothing; at 10.5, gone.
    sim.receive(&move_x(50, 9.0));
    sim.ticks(5);
    assert_eq!(events_of(&sim, "danger").len(), 4, "repeat 0 never repeats; backing off is not news");
    sim.receive(&move_x(50, 10.5));
    sim.tick();
    let gone = strip(events_of(&sim, "danger").pop().expect("gone"));
    assert_eq!(
        gone,
        json!({"type": "danger", "threat": "zombie", "distance": 10.5, "entityType": 32, "identifier": "minecraft:zombie",
            "runtimeId": 50, "pos": {"x": 11.0, "y": -60.0, "z": 0.5}, "change": "gone", "zone": "near"})
    );
    // The creeper despawns: gone, with where it was last seen.
    sim.receive(&RemoveEntity { entity_id_self: 101 });
    sim.tick();
    let gone = events_of(&sim, "danger").pop().expect("gone");
    assert_eq!(
        (gone["threat"].clone(), gone["change"].clone(), gone["zone"].clone()),
        (json!("creeper"), json!("gone"), json!("near"))
    );
    assert_eq!(gone["runtimeId"], 51);
    sim.ticks(100);
    assert_eq!(events_of(&sim, "danger").len(), 6, "nothing more");
    assert!(sim.component::<Proximity>().is_some_and(|p| p.threats.is_empty()));
}

#[test]
fn an_unchanged_threat_repeats_at_the_configured_interval() {
    let mut sim = spawned_with_danger(DangerMode::Change, 1_000);
    sim.receive(&add_mob(100, 50, "minecraft:zombie", at(4.0, 0.0, false)));
    sim.tick();
    sim.ticks(19);
    assert_eq!(danger_changes(&sim).len(), 1);
    sim.tick();
    sim.ticks(20);
    let changes: Vec<String> = danger_changes(&sim).into_iter().map(|c| c.0).collect();
    assert_eq!(changes, ["new", "repeat", "repeat"]);
}

#[test]
fn nearby_lists_are_shaped_sorted_and_bounded() {
    let mut sim = spawned();
    sim.receive(&ItemRegistry {
        itemstates: vec![ItemState { name: "minecraft:diamond".into(), runtime_id: 5, ..ItemState::default() }],
    });
    sim.receive(&PlayerList { records: vec![list_add(STEVE_UUID, "Steve", 200, 1)] });
    sim.receive(&add_mob(100, 50, "minecraft:zombie", at(10.0, 0.0, false)));
    sim.receive(&add_mob(101, 51, "minecraft:cow", at(0.0, 3.0, false)));
    sim.receive(&add_mob(102, 52, "minecraft:creeper", at(40.0, 0.0, false)));
    sim.receive(&add_steve(60, 200, at(-12.0, 0.0, true)));
    sim.receive(&AddItemEntity {
        entity_id_self: 300,
        runtime_entity_id: 70,
        item: ItemStack { network_id: 5, count: 3, metadata: 0, ..ItemStack::default() },
        position: at(0.0, -5.0, false),
        ..AddItemEntity::default()
    });
    sim.tick();

    let r = sim.command(r#"{"action":"nearby","id":"n1"}"#);
    assert_eq!(r["id"], "n1");
    assert_eq!(r["radius"], 32.0);
    let nearby = &r["nearby"];
    assert_eq!(
        nearby["players"],
        json!([{"name": "Steve", "uuid": STEVE_UUID, "position": {"x": -11.5, "y": -60.0, "z": 0.5}, "id": 60, "distance": 12.0}])
    );
    assert_eq!(
        nearby["mobs"],
        json!([
            {"type": "minecraft:cow", "name": "cow", "displayName": "Cow", "category": "passive",
             "position": {"x": 0.5, "y": -60.0, "z": 3.5}, "id": 51, "distance": 3.0},
            {"type": "minecraft:zombie", "name": "zombie", "displayName": "Zombie", "category": "hostile",
             "position": {"x": 10.5, "y": -60.0, "z": 0.5}, "id": 50, "distance": 10.0},
        ])
    );
    assert_eq!(
        nearby["items"],
        json!([{"item": "minecraft:diamond", "count": 3, "position": {"x": 0.5, "y": -60.0, "z": -4.5}, "id": 70, "distance": 5.0}])
    );

    // A centre elsewhere re-sorts; numeric strings are coerced.
    let r = sim.command(r#"{"action":"nearby","radius":"15","position":{"x":40.5,"y":-60,"z":0.5}}"#);
    let mobs = r["nearby"]["mobs"].as_array().cloned().unwrap_or_default();
    let ids: Vec<u64> = mobs.iter().filter_map(|m| m["id"].as_u64()).collect();
    assert_eq!(ids, [52], "{r:?}");
    let r = sim.command(r#"{"action":"nearby","radius":100}"#);
    let ids: Vec<u64> = r["nearby"]["mobs"].as_array().into_iter().flatten().filter_map(|m| m["id"].as_u64()).collect();
    assert_eq!(ids, [51, 50, 52], "nearest first");

    let r = sim.command(r#"{"action":"nearby","radius":300}"#);
    assert_eq!(r["code"], "OUT_OF_RANGE", "{r:?}");
    let r = sim.command(r#"{"action":"nearby","radius":0}"#);
    assert_eq!(r["code"], "OUT_OF_RANGE", "{r:?}");

    assert_eq!(entity_counts(sim.app.world(), sim.bot), (1, 3, 1));
}

#[test]
fn entity_data_motion_name_tags_and_pickups() {
    let mut sim = spawned();
    sim.receive(&add_mob(100, 50, "minecraft:wolf", at(4.0, 0.0, false)));
    sim.receive(&AddItemEntity {
        entity_id_self: 300,
        runtime_entity_id: 70,
        item: ItemStack { network_id: 9, count: 1, metadata: 0, ..ItemStack::default() },
        position: at(1.0, 0.0, false),
        ..AddItemEntity::default()
    });
    sim.tick();
    let wolf = index(&sim).by_runtime(50).cloned().expect("wolf").entity;
    sim.receive(&SetEntityData {
        runtime_entity_id: 50,
        metadata: vec![MetadataEntry::string("nametag", "Rex"), MetadataEntry::flags(0b10_0001)],
        tick: 1,
    });
    sim.receive(&SetEntityMotion { runtime_entity_id: 50, velocity: WireVec3 { x: 0.1, y: 0.0, z: -0.2 }, tick: 1 });
    sim.tick();
    let world = sim.app.world();
    assert_eq!(world.get::<NameTag>(wolf), Some(&NameTag("Rex".into())));
    let flags = *world.get::<EntityFlags>(wolf).expect("flags");
    assert!(flags.has(0) && flags.has(5) && !flags.has(1), "{flags:?}");
    assert_near(world.get::<EntityVelocity>(wolf).expect("velocity").0, Vec3::new(0.1, 0.0, -0.2));
    let r = sim.command(r#"{"action":"nearby"}"#);
    assert_eq!(r["nearby"]["mobs"][0]["nameTag"], "Rex");
    assert_eq!(r["nearby"]["items"][0]["item"], "item#9", "unnamed before the item registry");

    // The bot picks the item up: it is forgotten at once and the pickup is announced.
    sim.receive(&TakeItemEntity { runtime_entity_id: 70, target: RUNTIME_ID as u32 });
    sim.receive(&RemoveEntity { entity_id_self: 300 });
    sim.tick();
    assert!(pos_of(&sim, 70).is_none());
    let msgs = sim.app.world().resource::<bevy_ecs::message::Messages<ItemPickedUp>>();
    let mut cursor = msgs.get_cursor();
    let picked: Vec<ItemPickedUp> = cursor.read(msgs).cloned().collect();
    assert_eq!(picked.len(), 1);
    assert!(picked[0].by_self);
    assert_eq!(picked[0].item.as_ref().map(|i| i.count), Some(1));
}

#[test]
fn dimension_change_and_disconnect_forget_everything() {
    let mut sim = spawned();
    sim.receive(&PlayerList { records: vec![list_add(STEVE_UUID, "Steve", 200, 7)] });
    sim.receive(&add_mob(100, 50, "minecraft:zombie", at(4.0, 0.0, false)));
    sim.receive(&add_steve(60, 200, at(6.0, 0.0, true)));
    sim.tick();
    assert_eq!(index(&sim).len(), 2);
    let zombie = index(&sim).by_runtime(50).cloned().expect("zombie").entity;
    sim.receive(&ChangeDimension { dimension: 1, ..ChangeDimension::default() });
    sim.tick();
    assert!(index(&sim).is_empty());
    assert!(sim.app.world().get_entity(zombie).is_err());
    assert_eq!(sim.command(r#"{"action":"players"}"#)["count"], 1, "the roster is server-wide and stays");
    assert_eq!(sim.command(r#"{"action":"players"}"#)["players"][0]["name"], "Steve");

    sim.receive(&add_mob(101, 51, "minecraft:pig", at(2.0, 0.0, false)));
    sim.tick();
    assert_eq!(index(&sim).len(), 1);
    sim.receive(&Disconnect { reason: "kicked".into(), message: "bye".into(), ..Disconnect::default() });
    sim.tick();
    sim.tick();
    assert!(index(&sim).is_empty(), "disconnect forgets entities");
    assert_eq!(entity_counts(sim.app.world(), sim.bot), (0, 0, 0));
    let roster = sim.component::<clawcraft_entity::Roster>().expect("roster");
    assert!(roster.players.is_empty(), "and the roster");
}

#[test]
fn unknown_ids_and_unknown_identifiers_are_harmless() {
    let mut sim = spawned();
    sim.receive(&MoveEntity { runtime_entity_id: 9_999, ..MoveEntity::default() });
    sim.receive(&MoveEntityDelta { runtime_entity_id: 9_999, x: Some(1.0), ..MoveEntityDelta::default() });
    sim.receive(&move_player(9_999, at(1.0, 1.0, true)));
    sim.receive(&SetEntityMotion { runtime_entity_id: 9_999, ..SetEntityMotion::default() });
    sim.receive(&SetEntityData { runtime_entity_id: 9_999, metadata: vec![MetadataEntry::flags(1)], tick: 0 });
    sim.receive(&RemoveEntity { entity_id_self: -12_345 });
    sim.receive(&TakeItemEntity { runtime_entity_id: 9_999, target: 1 });
    sim.receive(&PlayerList { records: vec![list_remove(STEVE_UUID)] });
    sim.receive(&add_mob(100, 50, "addon:goblin", at(2.0, 0.0, false)));
    sim.tick();
    let r = sim.command(r#"{"action":"nearby"}"#);
    assert_eq!(r["nearby"]["mobs"][0]["category"], "other");
    assert_eq!(r["nearby"]["mobs"][0]["name"], "goblin");
    assert!(events_of(&sim, "danger").is_empty(), "unknown mobs are not assumed hostile");
}

#[test]
fn garbage_entity_packets_are_dropped_without_crashing() {
    let mut sim = spawned();
    sim.allow_warnings = true;
    let id = sim.protocol.packet_id("add_entity").expect("add_entity id");
    let id2 = sim.protocol.packet_id("move_entity_delta").expect("move_entity_delta id");
    assert!(id < 128 && id2 < 128, "one-byte headers");
    sim.receive_raw(vec![vec![id as u8, 0xff, 0xff], vec![id2 as u8], vec![id as u8]]);
    sim.tick();
    sim.receive(&add_mob(100, 50, "minecraft:zombie", at(20.0, 0.0, false)));
    sim.tick();
    assert_eq!(index(&sim).len(), 1, "later packets still work");
    assert!(sim.warnings() > 0, "the garbage was logged");
}

#[test]
fn proximity_uses_the_bots_position_after_this_ticks_packets() {
    let mut sim = spawned();
    sim.receive(&PlayerList { records: vec![list_add(STEVE_UUID, "Steve", 200, 7)] });
    sim.receive(&add_steve(60, 200, at(30.0, 0.0, true)));
    sim.tick();
    // The server teleports the bot next to Steve: the zone is judged from the new position.
    sim.receive(&MovePlayer {
        runtime_id: RUNTIME_ID as u32,
        position: at(25.0, 0.0, true),
        mode: "teleport".into(),
        ..MovePlayer::default()
    });
    sim.tick();
    let nearby: Vec<Json> = events_of(&sim, "player_nearby").into_iter().map(strip).collect();
    assert_eq!(
        nearby,
        [json!({"type": "player_nearby", "name": "Steve", "uuid": STEVE_UUID, "zone": "close", "distance": 5.0})]
    );
}

#[test]
fn two_bots_in_one_app_keep_separate_views() {
    use clawcraft::network::test_transport::TestTransport;
    let mut sim = spawned();
    let (transport, handle2) = TestTransport::new();
    let bot2 =
        sim.app.world_mut().spawn(clawcraft::bot_bundle("ClawBot2", Box::new(transport), sim.protocol.clone())).id();
    sim.tick();
    // The same runtime id in both bots' worlds: two distinct entities.
    sim.receive(&add_mob(100, 50, "minecraft:zombie", at(20.0, 0.0, false)));
    let body = sim.protocol.encode(&add_mob(100, 50, "minecraft:cow", at(3.0, 0.0, false))).expect("encodable");
    handle2.inject(vec![body]);
    sim.tick();
    let one = index(&sim).by_runtime(50).cloned().expect("bot 1 sees its zombie");
    let two =
        sim.app.world().get::<EntityIndex>(bot2).and_then(|i| i.by_runtime(50).cloned()).expect("bot 2 sees its cow");
    assert_ne!(one.entity, two.entity);
    let world = sim.app.world();
    assert_eq!(world.get::<SeenBy>(one.entity), Some(&SeenBy(sim.bot)));
    assert_eq!(world.get::<SeenBy>(two.entity), Some(&SeenBy(bot2)));
    assert_eq!(world.get::<EntityKind>(two.entity).map(|k| k.name.as_str()), Some("cow"));
    // Removing from one bot's view leaves the other's alone.
    sim.receive(&RemoveEntity { entity_id_self: 100 });
    sim.tick();
    assert!(index(&sim).is_empty());
    assert_eq!(sim.app.world().get::<EntityIndex>(bot2).map(EntityIndex::len), Some(1));
}

/// A dropped shield carries a blocking tick the codec only reads right once it knows the
/// shield's id, which the item registry tells; the network layer sets it before decoding the
/// packets after the registry, even in the same batch.
#[test]
fn a_shield_decodes_once_the_item_registry_names_it() {
    use clawcraft::protocol::codec::Value;
    let mut sim = spawned();
    let mut server = (*sim.protocol).clone();
    server.set_variable("ShieldItemID", 357);
    let registry = ItemRegistry {
        itemstates: vec![ItemState { name: "minecraft:shield".into(), runtime_id: 357, ..ItemState::default() }],
    };
    let mut rest = clawcraft::protocol::packets::Rest::new();
    rest.insert("extra".into(), Value::Object(vec![("blocking_tick".into(), Value::Int(40))]));
    let drop = AddItemEntity {
        entity_id_self: 300,
        runtime_entity_id: 70,
        item: ItemStack { network_id: 357, count: 1, metadata: 0, rest },
        position: at(0.0, -5.0, false),
        ..AddItemEntity::default()
    };
    let bodies = vec![server.encode(&registry).expect("registry"), server.encode(&drop).expect("drop")];
    sim.receive_raw(bodies);
    sim.tick();
    let r = sim.command(r#"{"action":"nearby"}"#);
    assert_eq!(r["nearby"]["items"][0]["item"], "minecraft:shield", "{r:?}");
    assert_eq!(r["nearby"]["items"][0]["id"], 70);
}

/// The `nearby` entry of runtime id `id` in `list`.
fn nearby_entry(sim: &mut Simulation, list: &str, id: u64) -> Json {
    let r = sim.command(r#"{"action":"nearby"}"#);
    r["nearby"][list].as_array().and_then(|l| l.iter().find(|e| e["id"] == id).cloned()).unwrap_or(Json::Null)
}

#[test]
fn nearby_gives_velocity_and_heading_of_moving_entities_only() {
    let mut sim = spawned();
    sim.receive(&add_mob(100, 50, "minecraft:zombie", at(10.0, 0.0, false)));
    sim.receive(&add_mob(101, 51, "minecraft:cow", at(-5.0, 0.0, false)));
    sim.receive(&add_steve(60, 200, at(0.0, 10.0, true)));
    sim.tick();
    let still = nearby_entry(&mut sim, "mobs", 50);
    assert!(still.get("velocity").is_none() && still.get("heading").is_none(), "still: no motion fields: {still}");

    // The zombie walks north-east by MoveEntityDelta, 0.1 block per axis a tick (2 blocks/s);
    // Steve walks south by MovePlayer, 0.2 a tick (4 blocks/s). Twelve ticks: a full window.
    for step in 1..=12 {
        let d = 0.1 * step as f32;
        sim.receive(&MoveEntityDelta {
            runtime_entity_id: 50,
            x: Some(10.5 + d),
            z: Some(0.5 - d),
            ..MoveEntityDelta::default()
        });
        sim.receive(&move_player(60, at(0.0, 10.0 + 2.0 * d, true)));
        sim.tick();
    }
    let zombie = nearby_entry(&mut sim, "mobs", 50);
    assert_eq!(zombie["heading"], "NE", "{zombie}");
    let v = &zombie["velocity"];
    assert!((v["x"].as_f64().unwrap_or(0.0) - 2.0).abs() < 0.02, "{zombie}");
    assert!((v["z"].as_f64().unwrap_or(0.0) + 2.0).abs() < 0.02, "{zombie}");
    assert_eq!(v["y"], 0.0, "{zombie}");
    let steve = nearby_entry(&mut sim, "players", 60);
    assert_eq!(steve["heading"], "S", "{steve}");
    assert!((steve["velocity"]["z"].as_f64().unwrap_or(0.0) - 4.0).abs() < 0.02, "{steve}");
    assert!(nearby_entry(&mut sim, "mobs", 51).get("velocity").is_none(), "the cow never moved");

    // It stops; half a second later it is still.
    sim.ticks(10);
    let zombie = nearby_entry(&mut sim, "mobs", 50);
    assert!(zombie.get("velocity").is_none(), "{zombie}");
    // MoveEntity (absolute): 1 block west in one tick after the pause, then nothing more: the
    // half-second average shows it, and half a second later it is still again.
    sim.receive(&MoveEntity { runtime_entity_id: 50, position: at(10.2, -1.2, false), ..MoveEntity::default() });
    sim.tick();
    let zombie = nearby_entry(&mut sim, "mobs", 50);
    assert_eq!(zombie["heading"], "W", "{zombie}");
    assert!((zombie["velocity"]["x"].as_f64().unwrap_or(0.0) + 2.0).abs() < 0.05, "1.0 block in 10 ticks: {zombie}");
    sim.ticks(10);
    let zombie = nearby_entry(&mut sim, "mobs", 50);
    assert!(zombie.get("velocity").is_none() && zombie.get("heading").is_none(), "{zombie}");

    // SetEntityMotion wins while recent: knocked straight up, no heading.
    sim.receive(&SetEntityMotion {
        runtime_entity_id: 51,
        velocity: WireVec3 { x: 0.0, y: 0.4, z: 0.0 },
        ..SetEntityMotion::default()
    });
    sim.tick();
    let cow = nearby_entry(&mut sim, "mobs", 51);
    assert_eq!(cow["velocity"], json!({"x": 0.0, "y": 8.0, "z": 0.0}), "{cow}");
    assert!(cow.get("heading").is_none(), "{cow}");
}
