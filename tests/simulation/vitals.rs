//! Simulation tests of the vitals plugin: real encoded UpdateAttributes/SetHealth/MobEffect/
//! EntityEvent/DeathInfo/Respawn packets in, exact events and exact respawn packets out.

use clawcraft::core::{DangerMode, DangerPolicy};
use clawcraft::protocol::packets::{Attribute, Respawn, StartGame, UpdateAttributes, Vec3 as WireVec3};
use clawcraft::sim::Simulation;
use clawcraft_protocol::packets::BlockPos;
use clawcraft_vitals::packets::{DeathInfo, EntityEvent, MobEffect, PlayerAction, SetHealth};
use clawcraft_vitals::{Vitals, VitalsSettings, vitals_summary};
use serde_json::{Map, Value, json};

const RUNTIME_ID: u64 = clawcraft::sim::SIM_RUNTIME_ID;

fn start_game() -> StartGame {
    clawcraft::sim::start_game()
}

/// A bot right after its spawn tick.
fn spawned() -> Simulation {
    Simulation::spawned_with(&start_game())
}

/// Spawned, with the server's first (baseline) attributes applied.
fn alive(settings: VitalsSettings) -> Simulation {
    let mut sim = spawned();
    sim.app.world_mut().insert_resource(settings);
    sim.receive(&attrs(
        RUNTIME_ID,
        &[
            ("minecraft:health", 20.0, 20.0),
            ("minecraft:player.hunger", 20.0, 20.0),
            ("minecraft:player.saturation", 5.0, 20.0),
            ("minecraft:absorption", 4.0, 16.0),
            ("minecraft:player.level", 3.0, 24791.0),
            ("minecraft:movement", 0.1, 3.4e38),
        ],
    ));
    sim.ticks(5);
    assert!(vitals_events(&sim).is_empty(), "the first values are a baseline: {:?}", vitals_events(&sim));
    sim
}

fn attrs(runtime: u64, list: &[(&str, f32, f32)]) -> UpdateAttributes {
    UpdateAttributes {
        runtime_entity_id: runtime,
        attributes: list
            .iter()
            .map(|(name, current, max)| Attribute {
                min: 0.0,
                max: *max,
                current: *current,
                default_min: 0.0,
                default_max: *max,
                default: *max,
                name: (*name).into(),
                modifiers: Vec::new(),
            })
            .collect(),
        tick: 0,
    }
}

fn event(runtime: u64, id: &str) -> EntityEvent {
    EntityEvent { runtime_entity_id: runtime, event_id: id.into(), data: 0, fire_at_position: None }
}

fn effect(op: &str, id: i32, amplifier: i32, duration: i32) -> MobEffect {
    MobEffect {
        runtime_entity_id: RUNTIME_ID,
        event_id: op.into(),
        effect_id: id,
        amplifier,
        particles: true,
        duration,
        tick: 0,
        ambient: false,
    }
}

const VITAL_EVENTS: &[&str] = &[
    "damage_taken",
    "health_restored",
    "hunger_changed",
    "effect_added",
    "effect_updated",
    "effect_removed",
    "death",
    "death_details",
    "respawn",
    "danger",
];

/// Vitals events as `{"type":…, fields}` without `timestamp`/`seq`.
fn vitals_events(sim: &Simulation) -> Vec<Value> {
    sim.events()
        .into_iter()
        .filter(|e| e["type"].as_str().is_some_and(|t| VITAL_EVENTS.contains(&t)))
        .map(|mut e: Map<String, Value>| {
            e.remove("timestamp");
            e.remove("seq");
            Value::Object(e)
        })
        .collect()
}

fn take_new(sim: &Simulation, seen: &mut usize) -> Vec<Value> {
    let all = vitals_events(sim);
    let new = all[*seen..].to_vec();
    *seen = all.len();
    new
}

#[test]
fn one_hit_over_several_ticks_is_one_damage_taken() {
    let mut sim = alive(VitalsSettings::default());
    // Another entity's attributes are not ours.
    sim.receive(&attrs(99, &[("minecraft:health", 1.0, 20.0)]));
    // Tick 1: hurt event, health and hunger drop. Tick 2: absorption drops.
    sim.receive(&event(RUNTIME_ID, "hurt_animation"));
    sim.receive(&attrs(RUNTIME_ID, &[("minecraft:health", 14.0, 20.0), ("minecraft:player.hunger", 19.0, 20.0)]));
    sim.tick();
    sim.receive(&attrs(RUNTIME_ID, &[("minecraft:absorption", 0.0, 16.0)]));
    sim.tick();
    assert!(vitals_events(&sim).is_empty(), "still grouping");
    sim.tick();
    assert_eq!(
        vitals_events(&sim),
        vec![json!({"type": "damage_taken", "cause": "attack",
            "health": {"old": 20.0, "new": 14.0, "max": 20.0},
            "absorption": {"old": 4.0, "new": 0.0, "max": 16.0},
            "hunger": {"old": 20.0, "new": 19.0, "max": 20.0}})]
    );
    sim.ticks(10);
    assert_eq!(vitals_events(&sim).len(), 1, "exactly one event for the hit");

    // SetHealth counts too; without a hurt event or other clue the cause is unknown.
    sim.receive(&SetHealth { health: 12 });
    sim.ticks(3);
    assert_eq!(
        vitals_events(&sim)[1],
        json!({"type": "damage_taken", "cause": "unknown", "health": {"old": 14.0, "new": 12.0, "max": 20.0}})
    );
}

#[test]
fn restoration_hunger_and_effects() {
    let mut sim = alive(VitalsSettings::default());
    let mut seen = 0;
    sim.receive(&effect("add", 10, 1, 900));
    sim.tick();
    assert_eq!(
        take_new(&sim, &mut seen),
        vec![
            json!({"type": "effect_added", "effect": "regeneration", "effectId": 10, "amplifier": 1, "duration": 900})
        ]
    );
    sim.receive(&attrs(RUNTIME_ID, &[("minecraft:health", 20.0, 20.0)]));
    sim.receive(&attrs(RUNTIME_ID, &[("minecraft:health", 17.0, 20.0)]));
    sim.ticks(3);
    take_new(&sim, &mut seen);
    sim.receive(&attrs(RUNTIME_ID, &[("minecraft:health", 19.0, 20.0)]));
    sim.ticks(3);
    assert_eq!(
        take_new(&sim, &mut seen),
        vec![
            json!({"type": "health_restored", "cause": "regeneration", "health": {"old": 17.0, "new": 19.0, "max": 20.0}})
        ]
    );
    sim.receive(&effect("update", 10, 2, 400));
    sim.receive(&effect("add", 1, 0, 200));
    sim.receive(&effect("add", 99, 0, 20));
    sim.tick();
    assert_eq!(
        take_new(&sim, &mut seen),
        vec![
            json!({"type": "effect_updated", "effect": "regeneration", "effectId": 10, "amplifier": 2, "duration": 400}),
            json!({"type": "effect_added", "effect": "speed", "effectId": 1, "amplifier": 0, "duration": 200}),
            json!({"type": "effect_added", "effect": "unknown_99", "effectId": 99, "amplifier": 0, "duration": 20}),
        ]
    );
    sim.ticks(9);
    let r = sim.command(r#"{"action":"vitals"}"#);
    let keys: Vec<&str> = r.keys().map(String::as_str).collect();
    let mut want = [
        "type",
        "id",
        "health",
        "maxHealth",
        "hunger",
        "maxHunger",
        "saturation",
        "absorption",
        "breath",
        "level",
        "experience",
        "alive",
        "effects",
        "attributes",
    ];
    want.sort_unstable();
    assert_eq!(keys, want, "the vitals answer's fields: {r:?}");
    assert_eq!(r["health"], 19.0);
    assert_eq!(r["absorption"], 4.0);
    assert_eq!(r["level"], 3.0);
    assert_eq!(r["alive"], true);
    assert_eq!(r["breath"], Value::Null);
    assert_eq!(r["attributes"]["minecraft:movement"], 0.1);
    assert_eq!(
        r["effects"],
        json!([{"id": 1, "name": "speed", "amplifier": 0, "duration": 200, "remaining": 190},
               {"id": 10, "name": "regeneration", "amplifier": 2, "duration": 400, "remaining": 390},
               {"id": 99, "name": "unknown_99", "amplifier": 0, "duration": 20, "remaining": 10}])
    );
    sim.receive(&effect("remove", 10, 0, 0));
    sim.tick();
    assert_eq!(
        take_new(&sim, &mut seen),
        vec![json!({"type": "effect_removed", "effect": "regeneration", "effectId": 10})]
    );

    // Hunger alone.
    sim.receive(&attrs(RUNTIME_ID, &[("minecraft:player.hunger", 18.0, 20.0)]));
    sim.ticks(3);
    assert_eq!(
        take_new(&sim, &mut seen),
        vec![json!({"type": "hunger_changed", "hunger": {"old": 20.0, "new": 18.0, "max": 20.0}})]
    );
    let summary = vitals_summary(sim.app.world(), sim.bot).expect("vitals");
    assert_eq!(
        serde_json::to_value(summary).expect("json"),
        json!({"health": 19.0, "maxHealth": 20.0, "hunger": 18.0, "alive": true, "effectCount": 2})
    );
}

fn die(sim: &mut Simulation) {
    sim.receive(&event(RUNTIME_ID, "hurt_animation"));
    sim.receive(&attrs(RUNTIME_ID, &[("minecraft:health", 0.0, 20.0)]));
    sim.receive(&event(RUNTIME_ID, "death_animation"));
    sim.receive(&DeathInfo { cause: "death.attack.mob".into(), messages: vec!["ClawBot".into(), "Zombie".into()] });
    sim.ticks(3);
}

#[test]
fn death_reports_death_and_details() {
    let mut sim = alive(VitalsSettings { danger_health: 0.0, danger_hunger: 0.0, ..VitalsSettings::default() });
    die(&mut sim);
    assert_eq!(
        vitals_events(&sim),
        vec![
            json!({"type": "damage_taken", "cause": "attack", "health": {"old": 20.0, "new": 0.0, "max": 20.0}}),
            json!({"type": "death", "cause": "death.attack.mob", "messages": ["ClawBot", "Zombie"]}),
            json!({"type": "death_details", "pos": {"x": 0.5, "y": -60.0, "z": 0.5}, "items": [],
                "cause": "death.attack.mob", "messages": ["ClawBot", "Zombie"]}),
        ]
    );
    assert_eq!(sim.component::<Vitals>().map(|v| v.alive), Some(false));
    assert_eq!(sim.command(r#"{"action":"vitals"}"#)["alive"], false);

    // Without DeathInfo, death is reported after waiting for it (cause unknown).
    let mut sim = alive(VitalsSettings::default());
    sim.receive(&attrs(RUNTIME_ID, &[("minecraft:health", 0.0, 20.0)]));
    sim.ticks(10);
    assert!(!sim.event_types().contains(&"death".to_string()));
    sim.ticks(20);
    let deaths: Vec<Value> = vitals_events(&sim).into_iter().filter(|e| e["type"] == "death").collect();
    assert_eq!(deaths, vec![json!({"type": "death", "cause": "unknown", "messages": []})]);
}

fn respawn_ready() -> Respawn {
    Respawn { position: WireVec3 { x: 10.5, y: 65.62, z: -3.5 }, state: 1, runtime_entity_id: RUNTIME_ID }
}

#[test]
fn manual_respawn_sends_player_action_and_client_ready() {
    let mut sim = alive(VitalsSettings::default());
    assert_eq!(sim.command(r#"{"action":"respawn"}"#)["code"], "NOT_DEAD");
    die(&mut sim);
    sim.receive(&Respawn { position: WireVec3::default(), state: 0, runtime_entity_id: RUNTIME_ID });
    sim.receive(&respawn_ready());
    sim.ticks(3);
    assert!(sim.sent_as::<PlayerAction>().is_empty(), "no auto-respawn by default");
    let r = sim.command(r#"{"action":"respawn"}"#);
    assert_eq!(r["respawned"], true);
    assert_eq!(r["pos"], json!({"x": 10.5, "y": 64.0, "z": -3.5}));
    let batches = sim.sent();
    let names: Vec<&str> = batches.iter().flatten().map(|(n, _)| n.as_str()).collect();
    let pa = names.iter().position(|n| *n == "player_action").expect("player_action sent");
    assert_eq!(names.get(pa + 1), Some(&"respawn"), "PlayerAction then Respawn: {names:?}");
    check_respawn_packets(&mut sim, batches);
    assert!(sim.events().iter().any(|e| e["type"] == "respawn" && e["auto"] == false));
    let v = sim.component::<Vitals>().expect("vitals");
    assert!(v.alive);
    assert_eq!((v.health, v.effects.len()), (20.0, 0));
    assert!(v.last_death.is_some());
}

fn check_respawn_packets(sim: &mut Simulation, batches: Vec<Vec<(String, clawcraft::protocol::codec::Value)>>) {
    let proto = sim.protocol.clone();
    let mut actions = Vec::new();
    let mut respawns = Vec::new();
    for (name, value) in batches.into_iter().flatten() {
        let body = proto.encode_value(&name, &value).expect("re-encode");
        match name.as_str() {
            "player_action" => actions.push(proto.decode_as::<PlayerAction>(&body).expect("decode")),
            "respawn" => respawns.push(proto.decode_as::<Respawn>(&body).expect("decode")),
            _ => {}
        }
    }
    assert_eq!(
        actions,
        vec![PlayerAction {
            runtime_entity_id: RUNTIME_ID,
            action: "respawn".into(),
            position: BlockPos::default(),
            result_position: BlockPos::default(),
            face: -1,
        }]
    );
    assert_eq!(respawns, vec![Respawn { position: WireVec3::default(), state: 2, runtime_entity_id: RUNTIME_ID }]);
}

#[test]
fn auto_respawn_answers_respawn_state_one() {
    let mut sim = alive(VitalsSettings { auto_respawn: true, ..VitalsSettings::default() });
    // While alive, a Respawn(state 1) is not a cue to respawn.
    sim.receive(&respawn_ready());
    sim.tick();
    assert!(sim.sent_as::<PlayerAction>().is_empty());
    die(&mut sim);
    sim.sent();
    sim.receive(&respawn_ready());
    sim.tick();
    let batches = sim.sent();
    check_respawn_packets(&mut sim, batches);
    let respawns: Vec<Value> = vitals_events(&sim).into_iter().filter(|e| e["type"] == "respawn").collect();
    assert_eq!(respawns, vec![json!({"type": "respawn", "pos": {"x": 10.5, "y": 64.0, "z": -3.5}, "auto": true})]);
    assert_eq!(sim.component::<Vitals>().map(|v| v.alive), Some(true));
}

fn dangers(sim: &Simulation) -> Vec<Value> {
    vitals_events(sim).into_iter().filter(|e| e["type"] == "danger").collect()
}

/// `(threat, change, value)` of each `danger` so far.
fn danger_changes(sim: &Simulation) -> Vec<(String, String, f64)> {
    dangers(sim)
        .iter()
        .map(|e| {
            let s = |k: &str| e[k].as_str().unwrap_or("?").to_owned();
            (s("threat"), s("change"), e["value"].as_f64().unwrap_or(-1.0))
        })
        .collect()
}

fn change(threat: &str, change: &str, value: f64) -> (String, String, f64) {
    (threat.into(), change.into(), value)
}

#[test]
fn interval_mode_alerts_are_debounced_for_five_seconds() {
    let mut sim = alive(VitalsSettings::default());
    sim.app.world_mut().insert_resource(DangerPolicy::new(DangerMode::Interval, 30_000));
    sim.receive(&attrs(RUNTIME_ID, &[("minecraft:health", 7.0, 20.0)]));
    sim.ticks(3);
    assert!(dangers(&sim).is_empty(), "7 is above the threshold of 6");
    sim.receive(&attrs(RUNTIME_ID, &[("minecraft:health", 6.0, 20.0), ("minecraft:player.hunger", 4.0, 20.0)]));
    sim.ticks(3);
    assert_eq!(
        dangers(&sim),
        vec![
            json!({"type": "danger", "threat": "low_health", "value": 6.0, "threshold": 6.0, "health": 6.0, "maxHealth": 20.0, "change": "new"}),
            json!({"type": "danger", "threat": "low_hunger", "value": 4.0, "threshold": 4.0, "hunger": 4.0, "change": "new"}),
        ]
    );
    // Another hit within 5 s: no new alert.
    sim.ticks(40);
    sim.receive(&attrs(RUNTIME_ID, &[("minecraft:health", 5.0, 20.0)]));
    sim.ticks(3);
    assert_eq!(dangers(&sim).len(), 2);
    // After 100 ticks the next change alerts again.
    sim.ticks(60);
    sim.receive(&attrs(RUNTIME_ID, &[("minecraft:health", 4.0, 20.0)]));
    sim.ticks(3);
    assert_eq!(
        danger_changes(&sim)[2..],
        [change("low_health", "repeat", 4.0), change("low_hunger", "repeat", 4.0)],
        "both threats are still on"
    );
    // No change, no alert (ClawCraft checks on changes only), and recovering says nothing.
    sim.ticks(200);
    sim.receive(&attrs(RUNTIME_ID, &[("minecraft:health", 20.0, 20.0), ("minecraft:player.hunger", 20.0, 20.0)]));
    sim.ticks(3);
    assert_eq!(dangers(&sim).len(), 4);
}

#[test]
fn change_mode_reports_crossing_the_threshold_and_recovering() {
    let mut sim = alive(VitalsSettings::default());
    sim.receive(&attrs(RUNTIME_ID, &[("minecraft:health", 7.0, 20.0)]));
    sim.ticks(3);
    assert!(dangers(&sim).is_empty(), "7 is above the threshold of 6");
    sim.receive(&attrs(RUNTIME_ID, &[("minecraft:health", 6.0, 20.0), ("minecraft:player.hunger", 4.0, 20.0)]));
    sim.ticks(3);
    assert_eq!(
        dangers(&sim),
        vec![
            json!({"type": "danger", "threat": "low_health", "value": 6.0, "threshold": 6.0, "health": 6.0, "maxHealth": 20.0, "change": "new"}),
            json!({"type": "danger", "threat": "low_hunger", "value": 4.0, "threshold": 4.0, "hunger": 4.0, "change": "new"}),
        ]
    );
    let events = vitals_events(&sim);
    let first_danger = events.iter().position(|e| e["type"] == "danger");
    assert!(first_danger > events.iter().position(|e| e["type"] == "damage_taken"), "the hit comes first: {events:?}");
    // Lower still, for 20 s: still the same threat, nothing new (the repeat is 30 s).
    for health in [5.0, 4.0, 3.0] {
        sim.receive(&attrs(RUNTIME_ID, &[("minecraft:health", health, 20.0)]));
        sim.ticks(133);
    }
    assert_eq!(dangers(&sim).len(), 2);
    // Health recovers above the threshold: gone; hunger stays low.
    sim.receive(&attrs(RUNTIME_ID, &[("minecraft:health", 6.5, 20.0)]));
    sim.ticks(3);
    assert_eq!(danger_changes(&sim)[2..], [change("low_health", "gone", 6.5)]);
    // 30 s after its `new`, hunger is still low: one repeat, with no packet needed.
    // `new` came on the 3rd tick of its window; 3 × 133 + 3 ticks have passed since its window.
    sim.ticks(600 - 3 * 133 - 3 - 1);
    assert_eq!(dangers(&sim).len(), 3);
    sim.tick();
    assert_eq!(danger_changes(&sim)[3..], [change("low_hunger", "repeat", 4.0)]);
    sim.receive(&attrs(RUNTIME_ID, &[("minecraft:player.hunger", 5.0, 20.0)]));
    sim.ticks(3);
    assert_eq!(danger_changes(&sim)[4..], [change("low_hunger", "gone", 5.0)]);
    sim.ticks(700);
    assert_eq!(dangers(&sim).len(), 5, "nothing is on: nothing repeats");
}

#[test]
fn a_respawn_ends_low_health() {
    let mut sim = alive(VitalsSettings { auto_respawn: true, ..VitalsSettings::default() });
    sim.app.world_mut().insert_resource(DangerPolicy::new(DangerMode::Change, 0));
    sim.receive(&attrs(RUNTIME_ID, &[("minecraft:health", 2.0, 20.0)]));
    sim.ticks(3);
    assert_eq!(danger_changes(&sim), [change("low_health", "new", 2.0)]);
    die(&mut sim);
    sim.ticks(10);
    assert_eq!(dangers(&sim).len(), 1, "nothing while dead");
    sim.receive(&respawn_ready());
    sim.ticks(2);
    assert_eq!(danger_changes(&sim)[1..], [change("low_health", "gone", 20.0)]);
}
