//! Navigation in simulation: `walk` over synthetic worlds arrives within a bounded number of
//! ticks with a plausible PlayerAuthInput stream (never faster than sprinting, no teleports,
//! keys consistent with motion) — straight, diagonal around a corner, step up, slabs and stairs,
//! drop, ladder, an open door, around a wall, across water; unreachable goals give the best
//! partial path and a reason; a block appearing on the path makes it re-plan; abort and death
//! end it with one `walk_done`. Plus `path`, `reachable` and `follow`.

use clawcraft::core::{Position, Vec3};
use clawcraft::protocol::packets::PlayerAuthInput;
use clawcraft::sim::Simulation;
use clawcraft::simworld::{SimWorld, assert_plausible};
use clawcraft::world::block::StateValue;
use clawcraft_vitals::packets::{DeathInfo, SetHealth};
use serde_json::{Map, Value, json};

fn walk_done(sim: &Simulation) -> Vec<Map<String, Value>> {
    sim.events().into_iter().filter(|e| e["type"] == "walk_done").collect()
}

/// Sends `walk` and ticks until `walk_done` (at most `limit` ticks). Returns the response, the
/// ticks taken and the inputs sent.
fn walk(sim: &mut Simulation, line: &str, limit: usize) -> (Map<String, Value>, usize, Vec<PlayerAuthInput>) {
    sim.queue_command(line);
    let mut response = None;
    let mut stream = Vec::new();
    for t in 1..=limit {
        sim.tick();
        stream.extend(sim.sent_as::<PlayerAuthInput>());
        if response.is_none() {
            response = sim.take_responses().pop();
        }
        if !walk_done(sim).is_empty() {
            return (response.expect("a response"), t, stream);
        }
    }
    (response.unwrap_or_default(), limit, stream)
}

fn feet(sim: &Simulation) -> Vec3 {
    sim.component::<Position>().expect("position").0
}

fn assert_at(sim: &Simulation, x: f64, y: f64, z: f64) {
    let p = feet(sim);
    let d = ((p.x - x).powi(2) + (p.z - z).powi(2)).sqrt();
    assert!(d < 0.5 && (p.y - y).abs() < 0.05, "expected ({x}, {y}, {z}), at {p:?}");
}

fn done_ok(sim: &Simulation) {
    let done = walk_done(sim);
    assert_eq!(done.len(), 1, "one completion event: {done:?}");
    assert_eq!(done[0]["status"], "done", "{done:?}");
}

#[test]
fn walks_straight_and_diagonally_around_a_corner() {
    let mut world = SimWorld::flat(2);
    world.fill([3, -60, -3], [3, -58, 2], "stone", &[]);
    let mut sim = world.spawn([0.5, -60.0, 0.5]);
    let (r, ticks, stream) = walk(&mut sim, r#"{"action":"walk","x":6.5,"y":-60,"z":5.5,"id":"w"}"#, 200);
    assert_eq!(r["walking"], true, "{r:?}");
    assert_eq!(r["complete"], true);
    let path = r["path"].as_array().expect("path");
    assert_eq!(path[0], json!({"x": 0, "y": -60, "z": 0, "move": "start"}));
    assert!(path.iter().any(|p| p["move"] == "diagonal"), "{path:?}");
    assert!(path.iter().all(|p| p["x"] != 3 || p["z"].as_i64().is_some_and(|z| z > 2)), "not through the wall");
    done_ok(&sim);
    assert_at(&sim, 6.5, -60.0, 5.5);
    // ~9.5 blocks of path at 4.317 b/s ≈ 45 ticks.
    assert!(ticks <= 75, "took {ticks} ticks");
    assert_plausible(&stream);
    assert_eq!(walk_done(&sim)[0]["id"], "w");
}

#[test]
fn steps_up_blocks_slabs_and_stairs_and_drops_down() {
    let mut world = SimWorld::flat(2);
    // A staircase of oak stairs facing +x, then a slab, then a full block, then a 2-block drop.
    world.set(
        [2, -60, 0],
        "oak_stairs",
        &[("upside_down_bit", StateValue::Byte(0)), ("weirdo_direction", StateValue::Int(0))],
    );
    world.fill([3, -60, 0], [5, -60, 0], "stone", &[]);
    world.set([4, -59, 0], "oak_slab", &[("minecraft:vertical_half", StateValue::Str("bottom".into()))]);
    world.fill([5, -59, 0], [5, -59, 0], "stone", &[]);
    let mut sim = world.spawn([0.5, -60.0, 0.5]);
    let (r, ticks, stream) = walk(&mut sim, r#"{"action":"walk","x":5.5,"y":-58,"z":0.5}"#, 200);
    assert_eq!(r["complete"], true, "{r:?}");
    done_ok(&sim);
    assert_at(&sim, 5.5, -58.0, 0.5);
    assert!(ticks <= 80, "took {ticks}");
    assert_plausible(&stream);
    // Down again: a drop of two blocks onto the ground beyond.
    sim.events();
    let mut sim2 = world.spawn([5.5, -58.0, 0.5]);
    let (r, _, stream) = walk(&mut sim2, r#"{"action":"walk","x":7.5,"y":-60,"z":0.5}"#, 150);
    assert!(r["path"].as_array().is_some_and(|p| p.iter().any(|s| s["move"] == "drop")), "{r:?}");
    done_ok(&sim2);
    assert_at(&sim2, 7.5, -60.0, 0.5);
    assert_plausible(&stream);
}

#[test]
fn climbs_a_ladder() {
    let mut world = SimWorld::flat(2);
    world.fill([3, -60, -2], [3, -57, 2], "stone", &[]);
    for y in -60..=-57 {
        world.set([2, y, 0], "ladder", &[("facing_direction", StateValue::Int(4))]);
    }
    let mut sim = world.spawn([0.5, -60.0, 0.5]);
    let (r, ticks, stream) = walk(&mut sim, r#"{"action":"walk","x":3.5,"y":-56,"z":0.5}"#, 300);
    assert!(r["path"].as_array().is_some_and(|p| p.iter().filter(|s| s["move"] == "climb").count() >= 3), "{r:?}");
    done_ok(&sim);
    assert_at(&sim, 3.5, -56.0, 0.5);
    assert!(ticks <= 150, "took {ticks}");
    assert_plausible(&stream);
}

#[test]
fn goes_through_an_open_door_and_plans_to_open_a_closed_one() {
    let door = |open: u8, upper: u8| {
        vec![
            ("door_hinge_bit", StateValue::Byte(0)),
            // South: the closed panel lies across the x axis (Java's facing east; data/gen-shapes.js).
            ("minecraft:cardinal_direction", StateValue::Str("south".into())),
            ("open_bit", StateValue::Byte(open)),
            ("upper_block_bit", StateValue::Byte(upper)),
        ]
    };
    for open in [1u8, 0] {
        let mut world = SimWorld::flat(2);
        world.fill([3, -60, -32], [3, -58, 47], "stone", &[]);
        world.set([3, -60, 0], "wooden_door", &door(open, 0));
        world.set([3, -59, 0], "wooden_door", &door(open, 1));
        let mut sim = world.spawn([0.5, -60.0, 0.5]);
        let line = r#"{"action":"path","x":6.5,"y":-60,"z":0.5,"maxNodes":2000}"#;
        let r = sim.command(line);
        if open == 1 {
            assert_eq!(r["complete"], true, "{r:?}");
            assert!(r["path"].as_array().is_some_and(|p| p.iter().any(|s| s["x"] == 3 && s["z"] == 0)));
            let (_, _, stream) = walk(&mut sim, r#"{"action":"walk","x":6.5,"y":-60,"z":0.5}"#, 150);
            done_ok(&sim);
            assert_at(&sim, 6.5, -60.0, 0.5);
            assert_plausible(&stream);
        } else {
            // Closed: the path opens it (walked in tests/simulation/walk_world.rs); a wall when
            // doors may not be opened.
            assert!(r["path"].as_array().is_some_and(|p| p.iter().any(|s| s["move"] == "door")), "{r:?}");
            let r = sim.command(r#"{"action":"path","x":6.5,"y":-60,"z":0.5,"maxNodes":2000,"openDoors":false}"#);
            assert_eq!(r["complete"], false, "{r:?}");
        }
    }
}

#[test]
fn swims_across_water() {
    let mut world = SimWorld::flat(2);
    world.fill([2, -63, -6], [7, -61, 6], "water", &[("liquid_depth", StateValue::Int(0))]);
    let mut sim = world.spawn([0.5, -60.0, 0.5]);
    let (r, ticks, stream) = walk(&mut sim, r#"{"action":"walk","x":9.5,"y":-60,"z":0.5}"#, 400);
    assert_eq!(r["complete"], true, "{r:?}");
    done_ok(&sim);
    assert_at(&sim, 9.5, -60.0, 0.5);
    assert!(ticks <= 250, "took {ticks}");
    assert_plausible(&stream);
}

#[test]
fn an_unreachable_goal_gives_the_best_partial_path_and_a_reason() {
    let mut world = SimWorld::flat(2);
    // A closed box of stone around (8, -60, 0).
    world.fill([6, -60, -2], [10, -57, 2], "stone", &[]);
    world.fill([7, -60, -1], [9, -58, 1], "air", &[]);
    let mut sim = world.spawn([0.5, -60.0, 0.5]);
    let r = sim.command(r#"{"action":"path","x":8.5,"y":-60,"z":0.5,"maxNodes":3000}"#);
    assert_eq!(r["complete"], false, "{r:?}");
    assert!(r["reason"].as_str().is_some_and(|s| s.contains("limit") || s.contains("unreachable")), "{r:?}");
    assert_eq!(r["end"]["x"], 5, "ends next to the box: {r:?}");
    let rr = sim.command(r#"{"action":"reachable","x":8.5,"y":-60,"z":0.5}"#);
    assert_eq!(rr["reachable"], false);
    assert!(rr["reason"].is_string());
    // ClawCraft's shape: no distance or time to a place one cannot reach, the straight line still.
    assert_eq!((rr["distance"].clone(), rr["estimatedTime"].clone()), (json!(null), json!(null)), "{rr:?}");
    assert_eq!(rr["euclidean"], json!(8.0), "{rr:?}");
    let ok = sim.command(r#"{"action":"reachable","x":3.5,"y":-60,"z":3.5}"#);
    assert_eq!(ok["reachable"], true);
    assert!(ok["estimatedTime"].as_u64().is_some_and(|t| t > 500 && t < 2_000), "{ok:?}");
    // Walking there walks the partial path, then gives up with the reason.
    let (r, _, _) = walk(&mut sim, r#"{"action":"walk","x":8.5,"y":-60,"z":0.5,"maxNodes":3000}"#, 600);
    assert_eq!(r["complete"], false, "{r:?}");
    let done = walk_done(&sim);
    assert_eq!(done[0]["status"], "failed", "{done:?}");
    assert!(done[0]["reason"].is_string());
    assert!(feet(&sim).x > 4.0, "walked toward it: {:?}", feet(&sim));
}

#[test]
fn re_plans_when_a_block_appears_on_the_path() {
    let mut world = SimWorld::flat(2);
    let mut sim = world.spawn([0.5, -60.0, 0.5]);
    sim.queue_command(r#"{"action":"walk","x":12.5,"y":-60,"z":0.5,"id":"r"}"#);
    sim.ticks(8);
    let r = sim.take_responses().pop().expect("response");
    assert!(r["path"].as_array().is_some_and(|p| p.iter().any(|s| s["x"] == 8 && s["z"] == 0)), "straight: {r:?}");
    // A wall appears across the path ahead.
    for z in -1..=1 {
        world.update(&mut sim, [8, -60, z], "stone", &[]);
        world.update(&mut sim, [8, -59, z], "stone", &[]);
    }
    let mut stream = Vec::new();
    for _ in 0..200 {
        sim.tick();
        stream.extend(sim.sent_as::<PlayerAuthInput>());
        if !walk_done(&sim).is_empty() {
            break;
        }
    }
    done_ok(&sim);
    assert_at(&sim, 12.5, -60.0, 0.5);
    assert_plausible(&stream);
    let xs: Vec<(f32, f32)> = stream.iter().map(|i| (i.position.x, i.position.z)).collect();
    assert!(xs.iter().all(|(x, z)| !(7.7..=9.3).contains(x) || z.abs() > 1.2), "went around the new wall");
}

#[test]
fn abort_and_death_end_a_walk_with_one_walk_done() {
    let world = SimWorld::flat(2);
    let mut sim = world.spawn([0.5, -60.0, 0.5]);
    sim.queue_command(r#"{"action":"walk","x":20.5,"y":-60,"z":0.5,"id":"a"}"#);
    sim.ticks(10);
    let busy = sim.command(r#"{"action":"walk","x":0.5,"y":-60,"z":9.5}"#);
    assert_eq!(busy["code"], "BUSY");
    let r = sim.command(r#"{"action":"abort_walk","id":"stop"}"#);
    assert_eq!((r["aborted"].clone(), r["actionId"].clone()), (json!(true), json!("a")));
    assert!(r["walked"].as_u64().is_some_and(|w| w >= 1), "{r:?}");
    let done = walk_done(&sim);
    assert_eq!((done.len(), done[0]["status"].clone()), (1, json!("aborted")));
    // The bot stops: a few ticks later it stands still.
    sim.ticks(10);
    let a = feet(&sim);
    sim.ticks(5);
    assert!(a.distance(feet(&sim)) < 1e-3, "stands still after the abort");

    sim.queue_command(r#"{"action":"walk","x":0.5,"y":-60,"z":15.5,"id":"d"}"#);
    sim.ticks(5);
    sim.receive(&SetHealth { health: 0 });
    sim.receive(&DeathInfo { cause: "death.attack.mob".into(), messages: vec![] });
    sim.ticks(2);
    let done = walk_done(&sim);
    assert_eq!(done.len(), 2);
    assert_eq!(
        (done[1]["id"].clone(), done[1]["status"].clone(), done[1]["reason"].clone()),
        (json!("d"), json!("failed"), json!("died"))
    );
}

#[test]
fn walk_answers_at_once_when_already_there_and_refuses_bad_targets() {
    let world = SimWorld::flat(2);
    let mut sim = world.spawn([0.5, -60.0, 0.5]);
    let r = sim.command(r#"{"action":"walk","x":0.5,"y":-60,"z":0.5}"#);
    assert_eq!((r["walked"].clone(), r["pos"].clone()), (json!(0), json!({"x": 0.5, "y": -60.0, "z": 0.5})));
    assert_eq!((r["steps"].clone(), r["walking"].clone()), (json!(0), json!(false)), "{r:?}");
    // Within the arrival range (1 block), not on the spot: done at once too.
    let r = sim.command(r#"{"action":"walk","x":1.3,"y":-60,"z":0.9}"#);
    assert_eq!((r["walked"].clone(), r["steps"].clone()), (json!(0), json!(0)), "{r:?}");
    sim.tick();
    assert!(walk_done(&sim).is_empty(), "no action was started");
    // Just outside it: a walk.
    let r = sim.command(r#"{"action":"walk","x":1.7,"y":-60,"z":0.5,"id":"near"}"#);
    assert!(r.get("walked").is_none() && r["steps"].as_u64().is_some_and(|s| s >= 1), "{r:?}");
    sim.ticks(40);
    assert_eq!(walk_done(&sim).len(), 1, "that one walked");
    assert_eq!(sim.command(r#"{"action":"walk","x":"east","z":0}"#)["code"], "INVALID_PARAMS");
    assert_eq!(sim.command(r#"{"action":"walk","z":1}"#)["code"], "INVALID_PARAMS");
    assert_eq!(sim.command(r#"{"action":"walk","x":1e300,"z":0}"#)["code"], "OUT_OF_RANGE");
    assert_eq!(sim.command(r#"{"action":"path","x":1,"z":1,"maxNodes":0}"#)["code"], "OUT_OF_RANGE");
    assert_eq!(sim.command(r#"{"action":"follow","player":"Nobody"}"#)["code"], "NOT_FOUND");
    // The ground block given as the goal: the walk goes on top of it.
    let r = sim.command(r#"{"action":"path","x":3.5,"y":-61,"z":0.5}"#);
    assert_eq!(r["end"], json!({"x": 3, "y": -60, "z": 0, "move": "walk"}));
    // A y level, a column.
    let r = sim.command(r#"{"action":"path","x":4.5,"z":4.5}"#);
    assert_eq!(
        (r["complete"].clone(), r["end"]["x"].clone(), r["end"]["z"].clone()),
        (json!(true), json!(4), json!(4))
    );
}

#[test]
fn follow_keeps_the_distance_as_the_target_moves_until_aborted() {
    use clawcraft::protocol::packets::{AddPlayer, MovePlayer, Vec3 as WireVec3};
    let world = SimWorld::flat(2);
    let mut sim = world.spawn([0.5, -60.0, 0.5]);
    sim.receive(&AddPlayer {
        uuid: "11111111-2222-3333-4444-555555555555".into(),
        username: "Alice".into(),
        runtime_id: 42,
        unique_id: 42,
        position: WireVec3 { x: 10.5, y: -58.38, z: 0.5 },
        ..AddPlayer::default()
    });
    sim.tick();
    let r = sim.command(r#"{"action":"follow","player":"alice","distance":3,"id":"f"}"#);
    assert_eq!(r["walking"], true, "{r:?}");
    sim.ticks(80);
    let d = feet(&sim).distance(Vec3::new(10.5, -60.0, 0.5));
    assert!(d <= 3.3, "caught up: {d}");
    // Alice walks off; the bot follows.
    sim.receive(&MovePlayer {
        runtime_id: 42,
        position: WireVec3 { x: 10.5, y: -58.38, z: 14.5 },
        mode: "normal".into(),
        ..MovePlayer::default()
    });
    let mut stream = Vec::new();
    for _ in 0..100 {
        sim.tick();
        stream.extend(sim.sent_as::<PlayerAuthInput>());
    }
    assert_plausible(&stream);
    let d = feet(&sim).distance(Vec3::new(10.5, -60.0, 14.5));
    assert!(d <= 3.3, "followed: {d} from Alice, at {:?}", feet(&sim));
    assert!(walk_done(&sim).is_empty(), "a follow runs until aborted");
    let r = sim.command(r#"{"action":"abort_walk"}"#);
    assert_eq!((r["aborted"].clone(), r["action"].clone()), (json!(true), json!("follow")));
    let done = walk_done(&sim);
    assert_eq!((done[0]["id"].clone(), done[0]["status"].clone()), (json!("f"), json!("aborted")));
}

#[test]
fn a_teleport_mid_walk_re_plans_from_where_the_bot_landed() {
    use clawcraft::protocol::packets::{MovePlayer, Vec3 as WireVec3};
    let world = SimWorld::flat(2);
    let mut sim = world.spawn([0.5, -60.0, 0.5]);
    sim.queue_command(r#"{"action":"walk","x":12.5,"y":-60,"z":0.5,"id":"t"}"#);
    sim.ticks(10);
    sim.receive(&MovePlayer {
        runtime_id: clawcraft::sim::SIM_RUNTIME_ID as u32,
        position: WireVec3 { x: 0.5, y: -58.38, z: 9.5 },
        mode: "teleport".into(),
        ..MovePlayer::default()
    });
    for _ in 0..200 {
        sim.tick();
        if !walk_done(&sim).is_empty() {
            break;
        }
    }
    done_ok(&sim);
    assert_at(&sim, 12.5, -60.0, 0.5);
}

/// Runs the between-ticks schedule as the runner does: once for the queued command, then each
/// time a finished search wakes it, until the answer is out. Returns it with the number of
/// passes; no tick runs meanwhile.
fn answered_between_ticks(sim: &mut Simulation) -> (Map<String, Value>, usize) {
    let wake = sim.app.world().resource::<clawcraft::core::WakeSignal>().clone();
    let tick = sim.app.world().resource::<clawcraft::core::TickCount>().0;
    sim.interim();
    for pass in 1..=50 {
        if let Some(r) = sim.take_responses().pop() {
            assert_eq!(sim.app.world().resource::<clawcraft::core::TickCount>().0, tick, "no tick ran");
            return (r, pass);
        }
        assert!(wake.wait_timeout(std::time::Duration::from_secs(10)), "the finished search wakes the runner");
        sim.interim();
    }
    panic!("no answer between ticks");
}

#[test]
fn long_searches_are_answered_between_ticks_as_soon_as_they_end() {
    let mut world = SimWorld::flat(3);
    world.fill([10, -60, -8], [10, -58, 8], "stone", &[]);
    let mut sim = world.spawn([0.5, -60.0, 0.5]);
    // 40 blocks away, past a wall: beyond the inline distance, so the search runs on the pool.
    sim.queue_command(r#"{"action":"path","x":40.5,"y":-60,"z":0.5,"id":"p"}"#);
    let (r, _) = answered_between_ticks(&mut sim);
    assert_eq!(r["id"], "p");
    assert_eq!(r["complete"], true, "{r:?}");
    assert!(r["distance"].as_u64().is_some_and(|d| d >= 40), "around the wall: {r:?}");
    sim.queue_command(r#"{"action":"reachable","x":-40.5,"y":-60,"z":3.5,"id":"r"}"#);
    let (r, _) = answered_between_ticks(&mut sim);
    assert_eq!((r["id"].as_str(), r["reachable"].as_bool()), (Some("r"), Some(true)), "{r:?}");

    // `walk`'s first answer (its path) too; the bot moves from the next tick on.
    sim.queue_command(r#"{"action":"walk","x":40.5,"y":-60,"z":0.5,"id":"w"}"#);
    let (r, _) = answered_between_ticks(&mut sim);
    assert_eq!((r["id"].as_str(), r["walking"].as_bool()), (Some("w"), Some(true)), "{r:?}");
    assert!(r["steps"].as_u64().is_some_and(|s| s >= 40), "{r:?}");
    let start = feet(&sim);
    sim.ticks(5);
    assert!(feet(&sim).distance(start) > 0.5, "walking after the answer: {:?}", feet(&sim));
    assert!(sim.take_responses().is_empty(), "one answer");
}
