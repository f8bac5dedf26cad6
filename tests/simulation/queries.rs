//! Answers an agent can afford and trust (issue 15), in simulation: `pos` names the block under the
//! feet as the physics rests on it, `look`/`raycast` name the first entity in sight, and a
//! response over the size budget says so and what to ask instead.

use clawcraft::protocol::packets::Vec3 as WireVec3;
use clawcraft::sim::Simulation;
use clawcraft::simworld::SimWorld;
use clawcraft::world::block::StateValue;
use clawcraft_entity::packets::{AddEntity, AddPlayer};
use serde_json::{Map, Value, json};

fn ok(sim: &mut Simulation, line: &str) -> Map<String, Value> {
    let r = sim.command(line);
    assert!(r.get("error").is_none(), "{line} failed: {r:?}");
    r
}

/// A bot spawned with its feet at `feet`, given `ticks` ticks to settle (land) first.
fn settled(world: &SimWorld, feet: [f64; 3], ticks: usize) -> Simulation {
    let mut sim = world.spawn(feet);
    sim.ticks(ticks);
    sim
}

fn standing_on(sim: &mut Simulation) -> Value {
    let r = ok(sim, r#"{"action":"pos"}"#);
    r.get("standingOn").cloned().expect("pos always has standingOn")
}

#[test]
fn pos_names_the_block_the_physics_stands_on() {
    let mut world = SimWorld::flat(1);
    let bottom_slab = [("minecraft:vertical_half", StateValue::Str("bottom".into()))];
    world.set([3, -60, 0], "oak_slab", &bottom_slab);
    world.set([5, -60, 0], "oak_stairs", &[]);
    world.set([8, -60, 4], "stone", &[]);

    // A flat floor: the grass under the feet.
    let mut sim = settled(&world, [0.5, -60.0, 0.5], 3);
    assert_eq!(standing_on(&mut sim), json!({"x": 0, "y": -61, "z": 0, "name": "minecraft:grass_block"}));
    let status = ok(&mut sim, r#"{"action":"status"}"#);
    assert_eq!(status["standingOn"]["name"], "minecraft:grass_block", "status says it too");

    // A bottom slab: half a block up, the slab's own cell.
    let mut sim = settled(&world, [3.5, -59.5, 0.5], 3);
    assert_eq!(standing_on(&mut sim), json!({"x": 3, "y": -60, "z": 0, "name": "minecraft:oak_slab"}));

    // The top of stairs: the stairs' cell, not the air above it.
    let mut sim = settled(&world, [5.5, -59.0, 0.5], 3);
    assert_eq!(standing_on(&mut sim), json!({"x": 5, "y": -60, "z": 0, "name": "minecraft:oak_stairs"}));

    // On an edge: the centre (9.2, 4.5) is over air; the stone pillar at x = 8 carries the box.
    let mut sim = settled(&world, [9.2, -59.0, 4.5], 3);
    let block = ok(&mut sim, r#"{"action":"block","x":9.2,"y":-60,"z":4.5}"#);
    assert_eq!(block["block"]["name"], "minecraft:air", "nothing under the centre");
    let pos = ok(&mut sim, r#"{"action":"pos"}"#);
    assert_eq!(pos["pos"]["y"], json!(-59.0), "still on the pillar: {pos:?}");
    assert_eq!(pos["standingOn"], json!({"x": 8, "y": -60, "z": 4, "name": "minecraft:stone"}));

    // Airborne: falling from five blocks up.
    let mut sim = settled(&world, [0.5, -55.0, 0.5], 2);
    assert_eq!(standing_on(&mut sim), Value::Null);
    sim.ticks(40);
    assert_eq!(standing_on(&mut sim)["name"], "minecraft:grass_block", "landed");
}

/// A zombie with its feet at (x, −60, z).
fn zombie(runtime: u64, x: f32, z: f32) -> AddEntity {
    AddEntity {
        unique_id: runtime as i64 + 100,
        runtime_id: runtime,
        entity_type: "minecraft:zombie".into(),
        position: WireVec3 { x, y: -60.0, z },
        ..AddEntity::default()
    }
}

#[test]
fn look_and_raycast_name_the_first_entity_in_sight() {
    let mut world = SimWorld::flat(1);
    // A wall at eye level across x = 1..=4 at z = 3: the line from the eye to the zombie at
    // (4.5, 6.5) crosses it at x 2.2; the gaze along x = 0.5 passes beside it.
    world.fill([1, -59, 3], [4, -58, 3], "stone", &[]);
    // The bot looks south (+z) from (0.5, −60, 0.5): yaw 0, pitch 0.
    let mut sim = settled(&world, [0.5, -60.0, 0.5], 3);
    sim.receive(&zombie(20, 0.5, 4.5));
    sim.receive(&zombie(21, 4.5, 6.5));
    sim.receive(&AddPlayer {
        uuid: "11111111-2222-3333-4444-555555555555".into(),
        username: "Steve".into(),
        runtime_id: 22,
        unique_id: 122,
        position: WireVec3 { x: 0.5, y: -58.38, z: 8.5 },
        ..AddPlayer::default()
    });
    sim.tick();

    let r = ok(&mut sim, r#"{"action":"look","distance":10}"#);
    let e = &r["entity"];
    assert_eq!((e["runtimeId"].clone(), e["type"].clone()), (json!(20), json!("minecraft:zombie")), "{r:?}");
    assert_eq!((e["name"].clone(), e["category"].clone()), (json!("zombie"), json!("hostile")));
    assert_eq!(e["distance"], json!(3.7), "the eye at z 0.5 meets the box at z 4.2");
    assert_eq!(e["pos"], json!({"x": 0.5, "y": -60.0, "z": 4.5}));
    // The look shape is unchanged: every cell passed, the facing vector.
    assert_eq!(r["facing"], json!({"x": 0.0, "y": 0.0, "z": 1.0}));
    assert_eq!(r["blocks"].as_array().map(Vec::len), Some(11), "cells z 0..=10 at eye level: {r:?}");
    assert_eq!(r["clear"], true, "an entity is not an obstacle");

    // Opt-out: blocks only.
    let r = ok(&mut sim, r#"{"action":"look","distance":10,"entities":false}"#);
    assert_eq!(r["entity"], Value::Null);
    assert!(r.get("warnings").is_none(), "a known parameter: {r:?}");

    // Behind the wall: the zombie at (4.5, 6.5) is hidden by the stone at z = 3.
    let r = ok(&mut sim, r#"{"action":"raycast","x":4.5,"z":6.5}"#);
    assert_eq!(r["obstacle"]["name"], "minecraft:stone", "{r:?}");
    assert_eq!(r["entity"], Value::Null, "hidden behind the wall");

    // Past the first zombie along the line, the player further on is not the first in sight.
    let r = ok(&mut sim, r#"{"action":"raycast","x":0.5,"z":12.5}"#);
    assert_eq!(r["entity"]["runtimeId"], 20, "the nearest one: {r:?}");
    let r = ok(&mut sim, r#"{"action":"raycast","x":0.5,"z":3.5}"#);
    assert_eq!(r["entity"], Value::Null, "the line ends before the zombie");
    let r = ok(&mut sim, r#"{"action":"raycast","x":0.5,"z":12.5,"entities":false}"#);
    assert_eq!(r["entity"], Value::Null);

    // Once the zombie is gone, the player behind it is seen, by name.
    sim.receive(&clawcraft_entity::packets::RemoveEntity { entity_id_self: 120 });
    sim.tick();
    let r = ok(&mut sim, r#"{"action":"look","distance":12}"#);
    assert_eq!(r["entity"]["name"], "Steve", "{r:?}");
    assert_eq!(
        (r["entity"]["type"].clone(), r["entity"]["category"].clone()),
        (json!("minecraft:player"), json!("player"))
    );
}

#[test]
fn a_response_over_the_budget_says_so_and_names_the_cheaper_request() {
    let mut world = SimWorld::flat(1);
    world.fill([-4, -60, -4], [4, -60, 4], "oak_stairs", &[]);
    let mut sim = settled(&world, [0.5, -59.0, 0.5], 3);

    let small = ok(&mut sim, r#"{"action":"scan","radius":1,"radiusY":1}"#);
    assert_eq!(small.get("warnings"), None, "a small scan has no warning");
    assert_eq!(small["totalNonAir"], 9, "the stairs under the feet are listed");

    let big = ok(&mut sim, r#"{"action":"scan","radius":16,"radiusY":4,"id":"big"}"#);
    let size = Value::Object(big.clone()).to_string().chars().count();
    let warnings = big["warnings"].as_array().expect("a big scan warns");
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    let w = warnings[0].as_str().unwrap_or("");
    assert!(w.starts_with("response is ") && w.contains("(budget 8000): use compact_scan"), "{w}");
    let told: usize = w["response is ".len()..].split(' ').next().and_then(|n| n.parse().ok()).expect("a number");
    assert!(told > 8000 && told <= size && size - told < 200, "told {told}, the whole line with the warning {size}");
    assert_eq!(big["id"], "big", "the answer is still given whole");
    assert!(big["layers"].as_object().is_some_and(|l| !l.is_empty()));

    // The cheaper request it names fits.
    let compact = ok(&mut sim, r#"{"action":"compact_scan","radius":16,"radiusY":4}"#);
    assert_eq!(compact.get("warnings"), None);

    // A typo's warning and the size warning share one list.
    let r = ok(&mut sim, r#"{"action":"scan","radius":16,"radiusY":4,"verbose":true}"#);
    let list = r["warnings"].as_array().expect("warnings");
    assert_eq!(list.len(), 2, "{list:?}");
    assert!(list[0].as_str().is_some_and(|w| w.starts_with("unknown parameter verbose")), "{list:?}");

    // Every command declares its own advice; the whole schema names the filter.
    let r = ok(&mut sim, r#"{"action":"schema"}"#);
    let w = r["warnings"][0].as_str().unwrap_or("");
    assert!(w.contains("pass a command, event or topic"), "{w}");
    let r = ok(&mut sim, r#"{"action":"schema","command":"scan"}"#);
    assert_eq!(r["commands"][0]["sizeHint"], "use compact_scan, or a smaller radius/radiusY");
    assert!(r.get("warnings").is_none());

    // The budget is a setting.
    sim.app.world_mut().resource_mut::<clawcraft::core::ResponseBudget>().chars = 100;
    let r = ok(&mut sim, r#"{"action":"pos"}"#);
    assert!(r["warnings"][0].as_str().is_some_and(|w| w.contains("(budget 100): narrow the request")), "{r:?}");
}

/// The number a SKILL.md section states as its worst case (`Worst case: ~420 k characters`), or
/// `None` when it is stated per item (`… characters per entity`).
fn documented_worst_case(skill: &str, command: &str) -> Result<Option<usize>, String> {
    let start = skill.find(&format!("\n### {command}\n")).ok_or(format!("{command}: no section"))?;
    let section = &skill[start + 1..];
    let section = &section[..section[4..].find("\n#").map_or(section.len(), |e| e + 4)];
    let after = section.split("Worst case: ~").nth(1).ok_or(format!("{command}: no `Worst case: ~N`"))?;
    let (number, rest) = after.split_once(" characters").ok_or(format!("{command}: no `characters`"))?;
    if rest.starts_with(" per ") {
        return Ok(None);
    }
    let (digits, scale) = match number.trim().rsplit_once(' ') {
        Some((n, "k")) => (n, 1e3),
        Some((n, "M")) => (n, 1e6),
        _ => (number, 1.0),
    };
    let value: f64 = digits.replace(' ', "").parse().map_err(|_| format!("{command}: {number:?} is not a number"))?;
    Ok(Some((value * scale) as usize))
}

/// Every query at its largest parameters in a busy world (a 65 × 33 × 65 block of stairs, whose
/// states have properties, under the feet; 40 mobs around): each answer is within the worst case
/// its SKILL.md section states. Prints the sizes measured (`--nocapture`).
#[test]
fn documented_worst_cases_hold_on_a_busy_world() {
    let skill = std::fs::read_to_string(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("skill/reference.md"))
        .expect("reference.md");
    let mut world = SimWorld::flat(2);
    let facing = [("weirdo_direction", StateValue::Int(1)), ("upside_down_bit", StateValue::Byte(1))];
    world.fill([-32, -60, -32], [32, -28, 32], "oak_stairs", &facing);
    let mut sim = settled(&world, [0.5, -27.0, 0.5], 3);
    for i in 0..40u64 {
        sim.receive(&AddEntity {
            unique_id: 1000 + i as i64,
            runtime_id: 1000 + i,
            entity_type: "minecraft:zombie".into(),
            position: WireVec3 { x: (i % 8) as f32 * 3.0, y: -27.0, z: (i / 8) as f32 * 3.0 },
            ..AddEntity::default()
        });
    }
    sim.tick();
    // A diagonal gaze up through the air passes the most cells.
    ok(&mut sim, r#"{"action":"face","x":64.5,"y":37,"z":64.5}"#);
    let cases = [
        ("pos", r#"{"action":"pos"}"#),
        ("distance", r#"{"action":"distance","x":30000000,"y":-30000000,"z":-30000000}"#),
        ("status", r#"{"action":"status"}"#),
        ("block", r#"{"action":"block","x":1,"y":-28,"z":1}"#),
        ("blocks", r#"{"action":"blocks","x1":-32,"y1":-60,"z1":-32,"x2":31,"y2":-45,"z2":31}"#),
        ("chunks", r#"{"action":"chunks","radius":16}"#),
        ("find", r#"{"action":"find","block":"stairs","radius":256,"count":256}"#),
        ("scan", r#"{"action":"scan","radius":32,"radiusY":32}"#),
        ("compact_scan", r#"{"action":"compact_scan","radius":32,"radiusY":32}"#),
        ("look", r#"{"action":"look","distance":64}"#),
        ("raycast", r#"{"action":"raycast","x":-200,"y":-20,"z":-150}"#),
        ("nearby", r#"{"action":"nearby","radius":256}"#),
        ("schema", r#"{"action":"schema"}"#),
        ("help", r#"{"action":"help"}"#),
        ("movement_info", r#"{"action":"movement_info"}"#),
        ("subscriptions", r#"{"action":"subscriptions"}"#),
        ("vitals", r#"{"action":"vitals"}"#),
    ];
    let mut over = Vec::new();
    for (name, line) in cases {
        let r = sim.command(line);
        let size = Value::Object(r.clone()).to_string().chars().count();
        let stated = documented_worst_case(&skill, name);
        println!("{name:<14} {size:>9} characters (SKILL.md: {stated:?})");
        match stated {
            Err(e) => over.push(e),
            Ok(Some(s)) if size > s => over.push(format!("{name}: {size} > {s}")),
            Ok(_) => {}
        }
    }
    assert!(over.is_empty(), "answers over their documented worst case:\n{}", over.join("\n"));
}
