//! Goal forms and `flee` in simulation: `walk`/`path`/`reachable` with a `goal` object (near any
//! of several targets, away from a point, within a box, combined), with `walk_done` saying which
//! parts held; a `block` target (near the nearest matching block, away from every one), and
//! malformed and huge goals refused with a code. `flee` from a point and from a mob
//! that chases the bot (moved toward it every tick) or jumps to the other side (the flee
//! re-plans), `hold` keeping the distance until the time is up, `NO_PATH` when walled in, `BUSY`
//! against the walk slot and `abort_walk` ending it with one `flee_done`.

use clawcraft::core::{Position, Vec3};
use clawcraft::protocol::packets::{AddEntity, MoveEntity, PlayerAuthInput, Vec3 as WireVec3};
use clawcraft::sim::Simulation;
use clawcraft::simworld::{SimWorld, assert_plausible};
use serde_json::{Map, Value, json};

fn done_events(sim: &Simulation, kind: &str) -> Vec<Map<String, Value>> {
    sim.events().into_iter().filter(|e| e["type"] == kind).collect()
}

fn feet(sim: &Simulation) -> Vec3 {
    sim.component::<Position>().expect("position").0
}

/// Sends `line`, ticks until a `kind` event (at most `limit` ticks): the response, the event,
/// the inputs sent.
fn run(
    sim: &mut Simulation,
    line: &str,
    kind: &str,
    limit: usize,
) -> (Map<String, Value>, Map<String, Value>, Vec<PlayerAuthInput>) {
    sim.queue_command(line);
    let mut response = None;
    let mut stream = Vec::new();
    for _ in 0..limit {
        sim.tick();
        stream.extend(sim.sent_as::<PlayerAuthInput>());
        if response.is_none() {
            response = sim.take_responses().pop();
        }
        if let Some(e) = done_events(sim, kind).pop() {
            return (response.expect("a response"), e, stream);
        }
    }
    panic!("no {kind} in {limit} ticks; response {response:?}, at {:?}", feet(sim));
}

const ZOMBIE: u64 = 70;

fn zombie_at(sim: &mut Simulation, x: f64, z: f64) {
    sim.receive(&AddEntity {
        unique_id: 700,
        runtime_id: ZOMBIE,
        entity_type: "minecraft:zombie".into(),
        position: WireVec3 { x: x as f32, y: -60.0, z: z as f32 },
        ..AddEntity::default()
    });
}

fn move_zombie(sim: &mut Simulation, p: Vec3) {
    sim.receive(&MoveEntity {
        runtime_entity_id: ZOMBIE,
        flags: 1,
        position: WireVec3 { x: p.x as f32, y: p.y as f32, z: p.z as f32 },
        ..MoveEntity::default()
    });
}

fn flat_distance(a: Vec3, b: Vec3) -> f64 {
    ((a.x - b.x).powi(2) + (a.z - b.z).powi(2)).sqrt()
}

#[test]
fn walk_to_the_nearest_of_several_targets_says_which_one_held() {
    let mut world = SimWorld::flat(2);
    // A wall between the bot and the target straight ahead: the one to the side is nearer on foot.
    world.fill([3, -60, -4], [3, -58, 4], "stone", &[]);
    let mut sim = world.spawn([0.5, -60.0, 0.5]);
    let line = r#"{"action":"walk","id":"g","goal":{"near":[{"x":5.5,"y":-60,"z":0.5,"range":1},{"x":0.5,"y":-60,"z":-7.5,"range":1}]}}"#;
    let (r, done, stream) = run(&mut sim, line, "walk_done", 200);
    assert_eq!((r["walking"].clone(), r["complete"].clone()), (json!(true), json!(true)), "{r:?}");
    assert_eq!((done["id"].clone(), done["status"].clone()), (json!("g"), json!("done")), "{done:?}");
    assert_eq!(done["met"], json!(["near[1]"]), "{done:?}");
    let p = feet(&sim);
    assert!(flat_distance(p, Vec3::new(0.5, -60.0, -7.5)) <= 1.3, "at {p:?}");
    assert_plausible(&stream);
    // One target (an object, not a list): around the end of the wall.
    let mut sim = world.spawn([0.5, -60.0, 0.5]);
    let line = r#"{"action":"walk","goal":{"near":{"x":5.5,"y":-60,"z":0.5,"range":1}}}"#;
    let (_, done, _) = run(&mut sim, line, "walk_done", 300);
    assert_eq!((done["status"].clone(), done["met"].clone()), (json!("done"), json!(["near[0]"])), "{done:?}");
}

#[test]
fn walk_away_from_a_point_inside_a_box_meets_both() {
    let world = SimWorld::flat(2);
    let mut sim = world.spawn([0.5, -60.0, 0.5]);
    // Away from a point just east, but the box ends 3 blocks west: the way out is north or south,
    // inside the box's band.
    let line = r#"{"action":"walk","id":"a","goal":{"awayFrom":{"x":2.5,"y":-60,"z":0.5,"distance":8},"within":{"min":[-3,-61,-20],"max":[6,-58,20]}}}"#;
    let (r, done, stream) = run(&mut sim, line, "walk_done", 300);
    assert_eq!(r["complete"], true, "{r:?}");
    assert_eq!(done["status"], "done", "{done:?}");
    assert_eq!(done["met"], json!(["awayFrom[0]", "within"]), "{done:?}");
    let p = feet(&sim);
    // Goals are met by the feet's block (its centre): the bot stops within 0.3 blocks of it.
    assert!(p.distance(Vec3::new(2.5, -60.0, 0.5)) >= 7.6, "far enough: {p:?}");
    assert!((-3.0..7.0).contains(&p.x), "inside the box: {p:?}");
    assert!(p.z.abs() > 5.0, "out along z, not west past the box: {p:?}");
    assert_plausible(&stream);
    // Already there: answered at once with the parts that hold.
    let r = sim.command(r#"{"action":"walk","goal":{"awayFrom":{"x":2.5,"y":-60,"z":0.5,"distance":4}}}"#);
    assert_eq!((r["walked"].clone(), r["met"].clone()), (json!(0), json!(["awayFrom[0]"])), "{r:?}");
    // anyOf: a y level that is unreachable (no stairs) or a box: the box.
    let r = sim
        .command(r#"{"action":"path","goal":{"anyOf":[{"y":-50},{"within":{"min":[10,-60,10],"max":[12,-60,12]}}]}}"#);
    assert_eq!(r["complete"], true, "{r:?}");
    let end = &r["end"];
    assert!(
        (10..=12).contains(&end["x"].as_i64().unwrap_or(0)) && (10..=12).contains(&end["z"].as_i64().unwrap_or(0)),
        "{r:?}"
    );
}

#[test]
fn walk_near_an_entity_and_unreachable_or_malformed_goals() {
    let mut world = SimWorld::flat(2);
    // A closed stone ring around (20, 0): nothing inside it is reachable.
    for x in 17..=23 {
        for z in -3..=3 {
            if x == 17 || x == 23 || z == -3 || z == 3 {
                world.fill([x, -60, z], [x, -57, z], "stone", &[]);
            }
        }
    }
    let mut sim = world.spawn([0.5, -60.0, 0.5]);
    zombie_at(&mut sim, 8.5, 6.5);
    sim.tick();
    let (_, done, _) =
        run(&mut sim, r#"{"action":"walk","goal":{"near":{"entity":"zombie","range":2}}}"#, "walk_done", 200);
    assert_eq!((done["status"].clone(), done["met"].clone()), (json!("done"), json!(["near[0]"])), "{done:?}");
    assert!(feet(&sim).distance(Vec3::new(8.5, -60.0, 6.5)) <= 2.45, "{:?}", feet(&sim));
    let r = sim.command(r#"{"action":"reachable","goal":{"within":{"min":[19,-60,-1],"max":[21,-60,1]}}}"#);
    assert_eq!(r["reachable"], false, "{r:?}");
    assert!(r["reason"].as_str().is_some_and(|s| !s.is_empty()), "{r:?}");
    let r = sim.command(r#"{"action":"walk","maxNodes":2000,"goal":{"within":{"min":[19,-60,-1],"max":[21,-60,1]}}}"#);
    // A walk goes as close as it can (the best partial path), as with a point.
    assert_eq!((r["walking"].clone(), r["complete"].clone()), (json!(true), json!(false)), "{r:?}");
    assert_eq!(sim.command(r#"{"action":"abort_walk"}"#)["aborted"], true);
    for (line, code) in [
        (r#"{"action":"walk","x":1,"z":1,"goal":{"y":-60}}"#, "INVALID_PARAMS"),
        (r#"{"action":"walk","goal":{}}"#, "INVALID_PARAMS"),
        (r#"{"action":"walk","goal":{"nearby":[]}}"#, "INVALID_PARAMS"),
        (r#"{"action":"walk","goal":{"near":[]}}"#, "INVALID_PARAMS"),
        (r#"{"action":"path","goal":{"near":{"x":1,"z":1}}}"#, "INVALID_PARAMS"),
        (r#"{"action":"path","goal":{"near":{"x":1,"y":1,"z":1,"distance":3}}}"#, "INVALID_PARAMS"),
        (r#"{"action":"path","goal":{"awayFrom":{"x":1,"y":1,"z":1,"distance":1000}}}"#, "OUT_OF_RANGE"),
        (r#"{"action":"path","goal":{"awayFrom":{"x":1e300,"y":1,"z":1}}}"#, "OUT_OF_RANGE"),
        (r#"{"action":"path","goal":{"within":{"min":[5,0,0],"max":[0,0,0]}}}"#, "INVALID_PARAMS"),
        (r#"{"action":"path","goal":{"anyOf":[{"anyOf":[{"y":1}]}]}}"#, "INVALID_PARAMS"),
        (r#"{"action":"path","goal":{"anyOf":[]}}"#, "OUT_OF_RANGE"),
        (r#"{"action":"path","goal":{"near":{"player":"Nobody"}}}"#, "NOT_FOUND"),
        (r#"{"action":"path","goal":"east"}"#, "INVALID_PARAMS"),
    ] {
        assert_eq!(sim.command(line)["code"], code, "{line}");
    }
    let many: Vec<Value> = (0..17).map(|i| json!({"x": i, "y": -60, "z": 0})).collect();
    let line = json!({"action": "path", "goal": {"near": many}}).to_string();
    assert_eq!(sim.command(&line)["code"], "OUT_OF_RANGE");
}

#[test]
fn flee_from_a_point_ends_far_enough_with_its_evidence() {
    let world = SimWorld::flat(2);
    let mut sim = world.spawn([0.5, -60.0, 0.5]);
    let line = r#"{"action":"flee","id":"f","x":-1.5,"y":-60,"z":0.5,"distance":10}"#;
    let (r, done, stream) = run(&mut sim, line, "flee_done", 200);
    assert_eq!((r["fleeing"].clone(), r["threat"].clone()), (json!(true), json!("point")), "{r:?}");
    assert!(r["path"].as_array().is_some_and(|p| p.len() > 5), "{r:?}");
    assert_eq!((done["id"].clone(), done["status"].clone()), (json!("f"), json!("done")), "{done:?}");
    let end = done["endDistance"].as_f64().expect("endDistance");
    assert!((10.0..13.0).contains(&end), "{done:?}");
    assert_eq!(done["startDistance"], 2.0);
    assert!(done["walked"].as_f64().is_some_and(|w| w >= 7.0), "{done:?}");
    assert!(feet(&sim).x > 7.0, "away, east: {:?}", feet(&sim));
    assert_plausible(&stream);
    // Far enough already: no flee.
    let r = sim.command(line);
    assert_eq!((r["fleeing"].clone(), r["from"].as_f64().is_some_and(|d| d >= 10.0)), (json!(false), true), "{r:?}");
    for (line, code) in [
        (r#"{"action":"flee","x":1,"z":1}"#, "INVALID_PARAMS"),
        (r#"{"action":"flee"}"#, "INVALID_PARAMS"),
        (r#"{"action":"flee","x":1,"y":1,"z":1,"entity":"zombie"}"#, "INVALID_PARAMS"),
        (r#"{"action":"flee","x":1,"y":1,"z":1,"distance":500}"#, "OUT_OF_RANGE"),
        (r#"{"action":"flee","x":1,"y":1,"z":1,"seconds":0}"#, "OUT_OF_RANGE"),
        (r#"{"action":"flee","entity":"creeper"}"#, "NOT_FOUND"),
    ] {
        assert_eq!(sim.command(line)["code"], code, "{line}");
    }
}

/// Ticks `n` times moving the zombie `speed` blocks per tick toward the bot (not closer than 1
/// block); the nearest it got.
fn chase(sim: &mut Simulation, zombie: &mut Vec3, speed: f64, n: usize, stream: &mut Vec<PlayerAuthInput>) -> f64 {
    let mut closest = f64::INFINITY;
    for _ in 0..n {
        let p = feet(sim);
        let d = flat_distance(p, *zombie);
        if d > 1.0 {
            let k = speed.min(d - 1.0) / d;
            *zombie = Vec3::new(zombie.x + (p.x - zombie.x) * k, zombie.y, zombie.z + (p.z - zombie.z) * k);
            move_zombie(sim, *zombie);
        }
        sim.tick();
        stream.extend(sim.sent_as::<PlayerAuthInput>());
        closest = closest.min(feet(sim).distance(*zombie));
        if !done_events(sim, "flee_done").is_empty() {
            break;
        }
    }
    closest
}

#[test]
fn flee_keeps_the_distance_from_a_chasing_zombie() {
    let world = SimWorld::flat(3);
    let mut sim = world.spawn([0.5, -60.0, 0.5]);
    let mut zombie = Vec3::new(-2.5, -60.0, 0.5);
    zombie_at(&mut sim, zombie.x, zombie.z);
    sim.tick();
    let r = sim.command(r#"{"action":"flee","id":"z","entity":"zombie","distance":8,"seconds":20,"hold":true}"#);
    assert_eq!((r["fleeing"].clone(), r["threat"].clone()), (json!(true), json!("zombie")), "{r:?}");
    let mut stream = Vec::new();
    // Run until first far enough.
    let mut reached = None;
    for t in 0..120 {
        chase(&mut sim, &mut zombie, 0.12, 1, &mut stream);
        if feet(&sim).distance(zombie) >= 8.0 {
            reached = Some(t);
            break;
        }
    }
    assert!(reached.is_some(), "never 8 blocks away: at {:?}, zombie {zombie:?}", feet(&sim));
    // The zombie keeps coming (at a zombie's pace, slower than a sprint) for 15 s: the bot keeps
    // fleeing, never letting it closer than a step inside the distance.
    let closest = chase(&mut sim, &mut zombie, 0.12, 300, &mut stream);
    assert!(closest >= 6.5, "the zombie got within {closest:.2} blocks");
    assert!(done_events(&sim, "flee_done").is_empty(), "holds until the time is up");
    let _ = chase(&mut sim, &mut zombie, 0.12, 200, &mut stream);
    let done = done_events(&sim, "flee_done").pop().expect("flee_done at the time limit");
    assert_eq!((done["id"].clone(), done["threat"].clone()), (json!("z"), json!("zombie")), "{done:?}");
    assert!(matches!(done["status"].as_str(), Some("done" | "timeout")), "{done:?}");
    assert!(done["replans"].as_u64().is_some_and(|n| n >= 3), "re-planned as it came: {done:?}");
    assert!(done["closest"].as_f64().is_some_and(|c| c >= 1.5), "{done:?}");
    assert!(done["walked"].as_f64().is_some_and(|w| w > 20.0), "{done:?}");
    assert_plausible(&stream);
}

#[test]
fn flee_re_plans_when_the_threat_jumps_ahead() {
    let world = SimWorld::flat(3);
    let mut sim = world.spawn([0.5, -60.0, 0.5]);
    zombie_at(&mut sim, -3.5, 0.5);
    sim.tick();
    let r = sim.command(r#"{"action":"flee","entity":"zombie","distance":12}"#);
    assert_eq!(r["fleeing"], true, "{r:?}");
    sim.ticks(10);
    let here = feet(&sim);
    assert!(here.x > 1.0, "fleeing east first: {here:?}");
    // The zombie turns up 4 blocks ahead (east): the bot turns back west instead of running on
    // past it.
    let zombie = Vec3::new(here.x + 4.0, -60.0, here.z);
    move_zombie(&mut sim, zombie);
    let mut closest = f64::INFINITY;
    for _ in 0..200 {
        sim.tick();
        closest = closest.min(feet(&sim).distance(zombie));
        if !done_events(&sim, "flee_done").is_empty() {
            break;
        }
    }
    let done = done_events(&sim, "flee_done").pop().expect("flee_done");
    assert_eq!(done["status"], "done", "{done:?}");
    assert!(closest >= 3.0, "ran toward the zombie: {closest:.2}");
    assert!(feet(&sim).x < zombie.x - 11.0, "west of it: {:?}", feet(&sim));
    assert!(done["replans"].as_u64().is_some_and(|n| n >= 1), "{done:?}");
}

#[test]
fn flee_is_refused_when_walled_in_or_busy_and_abort_walk_stops_it() {
    let mut world = SimWorld::flat(2);
    for x in -2_i32..=2 {
        for z in -2_i32..=2 {
            if x.abs() == 2 || z.abs() == 2 {
                world.fill([x, -60, z], [x, -57, z], "stone", &[]);
            }
        }
    }
    let mut sim = world.spawn([0.5, -60.0, 0.5]);
    let r = sim.command(r#"{"action":"flee","x":0.5,"y":-60,"z":1.5,"distance":8}"#);
    assert_eq!(r["code"], "NO_PATH", "{r:?}");
    sim.tick();
    assert!(done_events(&sim, "flee_done").is_empty());
    let world = SimWorld::flat(2);
    let mut sim = world.spawn([0.5, -60.0, 0.5]);
    let r = sim.command(r#"{"action":"walk","x":20.5,"y":-60,"z":0.5,"id":"w"}"#);
    assert_eq!(r["walking"], true, "{r:?}");
    let r = sim.command(r#"{"action":"flee","x":0.5,"y":-60,"z":1.5}"#);
    assert_eq!(r["code"], "BUSY", "{r:?}");
    sim.command(r#"{"action":"abort_walk"}"#);
    let r = sim.command(r#"{"action":"flee","id":"f","x":-0.5,"y":-60,"z":0.5,"distance":30}"#);
    assert_eq!(r["fleeing"], true, "{r:?}");
    assert_eq!(sim.command(r#"{"action":"walk","x":5,"z":5}"#)["code"], "BUSY");
    sim.ticks(5);
    let r = sim.command(r#"{"action":"abort_walk"}"#);
    assert_eq!((r["aborted"].clone(), r["action"].clone()), (json!(true), json!("flee")), "{r:?}");
    let done = done_events(&sim, "flee_done");
    assert_eq!(done.len(), 1, "{done:?}");
    assert_eq!((done[0]["id"].clone(), done[0]["status"].clone()), (json!("f"), json!("aborted")));
    assert!(done_events(&sim, "walk_done").iter().all(|e| e["id"] == "w"), "the flee ends in flee_done only");
}

#[test]
fn walk_near_a_block_heads_for_the_nearest_matching_one() {
    let mut world = SimWorld::flat(2);
    // Two oak logs, 6 blocks east and 14 west, and a dark oak log 4 blocks west: a part of its
    // name is `oak_log`, its whole name is not.
    world.set([6, -60, 0], "oak_log", &[]).set([-14, -60, 0], "oak_log", &[]).set([-4, -60, 0], "dark_oak_log", &[]);
    let mut sim = world.spawn([0.5, -60.0, 0.5]);
    let line = r#"{"action":"walk","id":"b","goal":{"near":{"block":"minecraft:oak_log","exact":true}}}"#;
    let (r, done, stream) = run(&mut sim, line, "walk_done", 200);
    assert_eq!((r["walking"].clone(), r["complete"].clone()), (json!(true), json!(true)), "{r:?}");
    assert_eq!((done["status"].clone(), done["met"].clone()), (json!("done"), json!(["near[0]"])), "{done:?}");
    // Range 1 of the block's bottom centre: the cell beside it, at its level.
    let p = feet(&sim);
    assert!(flat_distance(p, Vec3::new(5.5, -60.0, 0.5)) <= 0.3, "beside the east log: {p:?}");
    assert_plausible(&stream);
    // As `find` matches: without exact, a part of the name, so the dark oak log is the nearest.
    let mut sim = world.spawn([0.5, -60.0, 0.5]);
    let r = sim.command(r#"{"action":"path","goal":{"near":{"block":"OAK_LOG","range":2}}}"#);
    assert_eq!(r["complete"], true, "{r:?}");
    assert!(r["end"]["x"].as_i64().is_some_and(|x| (-7..=-2).contains(&x)), "toward the dark oak log: {r:?}");
    // A range that reaches the far log only when it is searched for: radius bounds the search.
    let r = sim.command(r#"{"action":"reachable","goal":{"near":{"block":"oak_log","exact":true,"radius":10}}}"#);
    assert_eq!(r["reachable"], true, "{r:?}");
    let r = sim.command(r#"{"action":"path","goal":{"near":{"block":"oak_log","exact":true,"radius":3}}}"#);
    assert_eq!(r["code"], "NOT_FOUND", "{r:?}");
    assert!(r["error"].as_str().is_some_and(|e| e.contains("near[0]") && e.contains("oak_log")), "{r:?}");
}

#[test]
fn walk_away_from_blocks_keeps_clear_of_every_match() {
    let mut world = SimWorld::flat(2);
    // Lava in the ground 3 blocks east and 3 west: away from both is north or south, never
    // toward the other one.
    world.set([3, -61, 0], "lava", &[]).set([-3, -61, 0], "lava", &[]);
    let mut sim = world.spawn([0.5, -60.0, 0.5]);
    let line = r#"{"action":"walk","id":"l","goal":{"awayFrom":{"block":"lava","distance":6}}}"#;
    let (r, done, stream) = run(&mut sim, line, "walk_done", 300);
    assert_eq!(r["complete"], true, "{r:?}");
    assert_eq!((done["status"].clone(), done["met"].clone()), (json!("done"), json!(["awayFrom[0]"])), "{done:?}");
    let p = feet(&sim);
    for lava in [Vec3::new(3.5, -61.0, 0.5), Vec3::new(-2.5, -61.0, 0.5)] {
        assert!(p.distance(lava) >= 5.6, "6 blocks from the lava at {lava:?}: {p:?}");
    }
    assert_plausible(&stream);
}

#[test]
fn block_targets_that_match_nothing_or_are_malformed_are_refused() {
    let mut world = SimWorld::flat(2);
    world.set([6, -60, 0], "oak_log", &[]);
    let mut sim = world.spawn([0.5, -60.0, 0.5]);
    for (line, code) in [
        (r#"{"action":"walk","goal":{"near":{"block":"diamond_ore"}}}"#, "NOT_FOUND"),
        (r#"{"action":"reachable","goal":{"awayFrom":{"block":"lava"}}}"#, "NOT_FOUND"),
        (r#"{"action":"path","goal":{"near":{"block":5}}}"#, "INVALID_PARAMS"),
        (r#"{"action":"path","goal":{"near":{"block":"oak_log","exact":"yes"}}}"#, "INVALID_PARAMS"),
        (r#"{"action":"path","goal":{"near":{"block":"oak_log","x":1,"y":1,"z":1}}}"#, "INVALID_PARAMS"),
        (r#"{"action":"path","goal":{"near":{"block":"oak_log","player":"Alice"}}}"#, "INVALID_PARAMS"),
        (r#"{"action":"path","goal":{"near":{"x":1,"y":1,"z":1,"radius":5}}}"#, "INVALID_PARAMS"),
        (r#"{"action":"path","goal":{"near":{"block":"no_such_block_at_all"}}}"#, "INVALID_PARAMS"),
        (r#"{"action":"path","goal":{"near":{"block":"oak_log","radius":1000}}}"#, "OUT_OF_RANGE"),
        (r#"{"action":"path","goal":{"near":{"block":"oak_log","radius":0}}}"#, "OUT_OF_RANGE"),
    ] {
        assert_eq!(sim.command(line)["code"], code, "{line}");
    }
    let r = sim.command(r#"{"action":"walk","goal":{"near":{"block":"diamond_ore"}}}"#);
    assert!(r["error"].as_str().is_some_and(|e| e.contains("diamond_ore") && e.contains("32 blocks")), "{r:?}");
    assert!(done_events(&sim, "walk_done").is_empty(), "nothing started");
}
