//! The movement plugin in simulation: intents become the PlayerAuthInput a vanilla client would
//! send (client physics over the real block shapes, player speeds, consistent flags), server
//! corrections are adopted and re-simulated, teleports acknowledged; `move`, `setpos`, `tp`,
//! `server_pos`, `movement_info`.

use clawcraft::core::{Position, Vec3};
use clawcraft::movement::Mover;
use clawcraft::protocol::packets::{
    CorrectPlayerMovePrediction, MovePlayer, PlayerAuthInput, SetEntityMotion, Vec3 as WireVec3,
};
use clawcraft::sim::{SIM_RUNTIME_ID, Simulation};
use clawcraft::simworld::{SPRINT_PER_TICK, SimWorld, assert_plausible};
use clawcraft::world::block::StateValue;
use serde_json::{Map, Value, json};

fn inputs(sim: &mut Simulation) -> Vec<PlayerAuthInput> {
    sim.sent_as::<PlayerAuthInput>()
}

fn walk_done(sim: &Simulation) -> Vec<Map<String, Value>> {
    sim.events().into_iter().filter(|e| e["type"] == "walk_done").collect()
}

/// Ticks until a `walk_done` appears (at most `limit`), collecting the inputs sent meanwhile.
fn run_until_done(sim: &mut Simulation, limit: usize) -> (usize, Vec<PlayerAuthInput>) {
    let mut sent = Vec::new();
    for t in 1..=limit {
        sim.tick();
        sent.extend(inputs(sim));
        if !walk_done(sim).is_empty() {
            return (t, sent);
        }
    }
    (limit, sent)
}

#[test]
fn walking_runs_at_the_players_speed_with_consistent_inputs() {
    let world = SimWorld::flat(2);
    let mut sim = world.spawn([0.5, -60.0, 0.5]);
    let r = sim.command(r#"{"action":"move","x":12.5,"y":-60,"z":0.5,"id":"m"}"#);
    assert_eq!(r["moving"], true, "{r:?}");
    assert_eq!(r["pos"], json!({"x": 12.5, "y": -60.0, "z": 0.5}));
    let (ticks, stream) = run_until_done(&mut sim, 120);
    let done = walk_done(&sim);
    assert_eq!(done.len(), 1, "one completion event");
    assert_eq!((done[0]["id"].clone(), done[0]["status"].clone()), (json!("m"), json!("done")));
    assert!(ticks <= 70, "12 blocks at 4.317 b/s take ~56 ticks, took {ticks}");
    let end = sim.component::<Position>().expect("pos").0;
    assert!((end.x - 12.5).abs() < 0.15 && (end.z - 0.5).abs() < 0.15, "{end:?}");
    assert!((end.y + 60.0).abs() < 1e-4, "stays on the ground: {end:?}");
    assert_plausible(&stream);
    // Steady walking speed: the middle of the walk moves 0.2159 blocks per tick (4.317 b/s).
    let xs: Vec<f32> = stream.iter().map(|i| i.position.x).collect();
    let steady: Vec<f32> = xs.windows(2).map(|w| w[1] - w[0]).skip(12).take(20).collect();
    for v in &steady {
        assert!((v - 0.2159).abs() < 0.002, "walking speed {v} blocks/tick: {steady:?}");
    }
    // The flags of a walk: forward key, yaw toward +x (−90), on the ground.
    let mid = &stream[20];
    let flags = mid.input_data.clone();
    assert!(flags.contains(&"up".to_string()) && flags.contains(&"vertical_collision".to_string()), "{flags:?}");
    assert!((mid.yaw + 90.0).abs() < 1e-3, "faces +x: {}", mid.yaw);
    assert_eq!(mid.move_vector.z, 1.0);
    assert!((mid.position.y - (-60.0 + 1.62001)).abs() < 1e-4, "eye height: {}", mid.position.y);
}

#[test]
fn sprinting_is_vanillas_sprint_speed_and_never_faster() {
    let world = SimWorld::flat(2);
    let mut sim = world.spawn([0.5, -60.0, 0.5]);
    sim.command(r#"{"action":"move","x":0.5,"y":-60,"z":25.5,"sprint":true}"#);
    let (_, stream) = run_until_done(&mut sim, 150);
    assert_plausible(&stream);
    let zs: Vec<f32> = stream.iter().map(|i| i.position.z).collect();
    let fastest = zs.windows(2).map(|w| w[1] - w[0]).fold(0.0_f32, f32::max);
    assert!((fastest - SPRINT_PER_TICK).abs() < 0.003, "top speed {fastest} (5.612 b/s = 0.2806)");
    assert!(stream.iter().any(|i| i.has_flag("start_sprinting")));
}

#[test]
fn move_jumps_a_one_block_step_and_steps_onto_slabs_without_jumping() {
    let mut world = SimWorld::flat(2);
    world.fill([3, -60, -1], [8, -60, 1], "stone", &[]);
    world.fill([3, -60, 3], [8, -60, 3], "oak_slab", &[("minecraft:vertical_half", StateValue::Str("bottom".into()))]);
    let mut sim = world.spawn([0.5, -60.0, 0.5]);
    sim.command(r#"{"action":"move","x":5.5,"y":-59,"z":0.5}"#);
    let (_, stream) = run_until_done(&mut sim, 120);
    assert_eq!(walk_done(&sim)[0]["status"], "done", "{:?}", walk_done(&sim));
    let end = sim.component::<Position>().expect("pos").0;
    assert!((end.y + 59.0).abs() < 1e-3, "on top of the step: {end:?}");
    assert!(stream.iter().any(|i| i.has_flag("jumping")));
    assert_plausible(&stream);

    // A bottom slab is half a block: the step-up takes it without a jump.
    let mut sim = world.spawn([0.5, -60.0, 3.5]);
    sim.command(r#"{"action":"move","x":6.5,"y":-60,"z":3.5}"#);
    let (_, stream) = run_until_done(&mut sim, 120);
    let end = sim.component::<Position>().expect("pos").0;
    assert!((end.y + 59.5).abs() < 1e-3, "on the slab: {end:?}");
    assert!(stream.iter().all(|i| !i.has_flag("jumping")), "no jump for a slab");
}

#[test]
fn a_correction_is_adopted_at_its_tick_and_re_simulated() {
    let world = SimWorld::flat(2);
    let mut sim = world.spawn([0.5, -60.0, 0.5]);
    sim.command(r#"{"action":"move","x":20.5,"y":-60,"z":0.5}"#);
    sim.ticks(10);
    let stream = inputs(&mut sim);
    let past = &stream[stream.len() - 4];
    // The server saw that tick 0.5 block further south than we did.
    sim.receive(&CorrectPlayerMovePrediction {
        prediction_type: "player".into(),
        position: WireVec3 { x: past.position.x, y: past.position.y, z: past.position.z + 0.5 },
        delta: past.delta,
        on_ground: true,
        tick: past.tick,
        ..CorrectPlayerMovePrediction::default()
    });
    let before = sim.component::<Position>().expect("pos").0;
    sim.tick();
    let after = sim.component::<Position>().expect("pos").0;
    assert!((after.z - before.z - 0.5).abs() < 0.02, "the offset carried to now: {before:?} → {after:?}");
    let desync = sim.events().into_iter().find(|e| e["type"] == "position_desync").expect("position_desync");
    assert_eq!(desync["mode"], "correction");
    assert!((desync["drift"].as_f64().unwrap_or_default() - 0.5).abs() < 0.01, "{desync:?}");
    assert_eq!(desync["resimulated"], 3, "ticks after the corrected one");
    assert_eq!(desync["tick"], past.tick);
    // A correction that agrees with the prediction is ignored.
    sim.ticks(2);
    let last = inputs(&mut sim).pop().expect("input");
    sim.receive(&CorrectPlayerMovePrediction {
        prediction_type: "player".into(),
        position: last.position,
        delta: last.delta,
        on_ground: true,
        tick: last.tick,
        ..CorrectPlayerMovePrediction::default()
    });
    sim.tick();
    let info = sim.command(r#"{"action":"movement_info"}"#);
    assert_eq!(info["corrections"], 1, "{info:?}");
    assert_eq!(info["ignoredCorrections"], 1);
    assert_eq!(info["resimulatedTicks"], 3);
    assert_eq!(info["authority"], "server_with_rewind");
    assert_eq!(info["rewindHistorySize"], 40);
    assert_eq!(info["simulating"], true);
    // The correction is the last position the server *sent*: `lastServerPos`, never the answer.
    let corrected_z = f64::from(past.position.z + 0.5);
    let (sp, _) = server_pos(&mut sim, Some([3.0, -58.38, 0.7]), 2);
    assert_eq!(sp["source"], "querytarget", "{sp:?}");
    assert_eq!(sp["lastServerPos"]["source"], "correction", "{sp:?}");
    assert!((sp["lastServerPos"]["pos"]["z"].as_f64().unwrap_or_default() - corrected_z).abs() < 1e-3, "{sp:?}");
    assert!(sp["lastServerPos"]["ageTicks"].as_u64().is_some_and(|t| t >= 5), "{sp:?}");
}

/// Sends `server_pos`, checks the `/querytarget @s` it sends, and answers it after `after`
/// ticks with `eye` (or with an unknown-command output when `None`). Returns the response and
/// the tick count it took.
fn server_pos(sim: &mut Simulation, eye: Option<[f64; 3]>, after: usize) -> (Map<String, Value>, usize) {
    use clawcraft::protocol::packets::{CommandOutput, CommandOutputMessage, CommandRequest};
    sim.sent();
    sim.queue_command(r#"{"action":"server_pos","id":"sp"}"#);
    sim.tick();
    let asked = sim.sent_as::<CommandRequest>();
    assert_eq!(asked.len(), 1, "one query: {asked:?}");
    assert_eq!(asked[0].command, "/querytarget @s");
    sim.ticks(after);
    assert!(sim.take_responses().is_empty(), "no answer before the server's");
    let output = match eye {
        Some([x, y, z]) => vec![CommandOutputMessage {
            message_id: "commands.querytarget.success".into(),
            success: true,
            parameters: vec![format!(
                r#"[{{"dimension":0,"position":{{"x":{x},"y":{y},"z":{z}}},"uniqueId":"-4294967295","yRot":12.5}}]"#
            )],
        }],
        None => vec![CommandOutputMessage {
            message_id: "commands.generic.unknown".into(),
            success: false,
            parameters: vec!["querytarget".into()],
        }],
    };
    // Another request's output first: not ours.
    let mut other = CommandOutput { success_count: 1, output: output.clone(), ..CommandOutput::default() };
    other.origin.uuid = "00000000-0000-4000-8000-000000000000".into();
    sim.receive(&other);
    let mut mine = CommandOutput { success_count: u32::from(eye.is_some()), output, ..CommandOutput::default() };
    mine.origin = asked[0].origin.clone();
    sim.receive(&mine);
    sim.tick();
    let mut r = sim.take_responses();
    assert_eq!(r.len(), 1, "{r:?}");
    (r.remove(0), after + 2)
}

#[test]
fn server_pos_answers_the_servers_view_or_says_why_it_cannot() {
    let world = SimWorld::flat(2);
    let mut sim = world.spawn([0.5, -60.0, 0.5]);
    sim.ticks(40);
    let (sp, ticks) = server_pos(&mut sim, Some([4.25, -58.38, 0.5]), 3);
    assert_eq!(sp["id"], "sp");
    assert_eq!(sp["serverPos"], json!({"x": 4.25, "y": -60.0, "z": 0.5}), "feet, 1.62 below the eye: {sp:?}");
    let age = sp["ageTicks"].as_u64().unwrap_or(u64::MAX);
    assert!((ticks as u64 - 2..=ticks as u64).contains(&age), "asked → answered in {ticks} ticks: {sp:?}");
    assert_eq!(sp["localPos"], json!({"x": 0.5, "y": -60.0, "z": 0.5}));
    assert!((sp["drift"].as_f64().unwrap_or_default() - 3.75).abs() < 1e-3, "{sp:?}");
    assert_eq!(sp["lastServerPos"]["source"], "start", "the spawn: {sp:?}");
    // Unknown command (or no permission): an error naming it, no position.
    let (e, _) = server_pos(&mut sim, None, 0);
    assert_eq!(e["code"], "REJECTED", "{e:?}");
    let text = e["error"].as_str().unwrap_or_default();
    assert!(text.contains("/querytarget @s") && text.contains("commands.generic.unknown"), "{text}");
    assert!(e.get("serverPos").is_none());
    // No answer at all: TIMEOUT after 100 ticks, naming why; a late output is not an answer.
    sim.sent();
    sim.queue_command(r#"{"action":"server_pos","id":"late"}"#);
    sim.ticks(99);
    assert!(sim.take_responses().is_empty());
    sim.ticks(2);
    let r = sim.take_responses();
    assert_eq!((r.len(), r[0]["code"].clone(), r[0]["id"].clone()), (1, json!("TIMEOUT"), json!("late")), "{r:?}");
    assert!(r[0]["error"].as_str().is_some_and(|t| t.contains("no answer")), "{r:?}");
    sim.ticks(5);
    assert!(sim.take_responses().is_empty(), "one answer");
}

#[test]
fn a_teleport_resets_the_physics_and_is_acknowledged() {
    let world = SimWorld::flat(2);
    let mut sim = world.spawn([0.5, -60.0, 0.5]);
    sim.ticks(3);
    sim.sent();
    sim.receive(&MovePlayer {
        runtime_id: SIM_RUNTIME_ID as u32,
        position: WireVec3 { x: 10.5, y: -58.38, z: 3.5 },
        mode: "teleport".into(),
        ..MovePlayer::default()
    });
    sim.tick();
    let first = inputs(&mut sim).remove(0);
    assert!(first.has_flag("handled_teleport"));
    assert!((first.position.x - 10.5).abs() < 1e-4 && (first.position.z - 3.5).abs() < 1e-4);
    let desync = sim.events().into_iter().find(|e| e["type"] == "position_desync").expect("desync");
    assert_eq!(desync["mode"], "teleport");
    assert!((desync["drift"].as_f64().unwrap_or_default() - 10.44).abs() < 0.01, "{desync:?}");
    sim.ticks(5);
    let p = sim.component::<Position>().expect("pos").0;
    assert!(p.distance(Vec3::new(10.5, -60.0, 3.5)) < 1e-3, "stands where it was put: {p:?}");
}

#[test]
fn knockback_moves_the_bot_through_the_physics() {
    let world = SimWorld::flat(2);
    let mut sim = world.spawn([0.5, -60.0, 0.5]);
    sim.ticks(2);
    sim.receive(&SetEntityMotion {
        runtime_entity_id: SIM_RUNTIME_ID,
        velocity: WireVec3 { x: 0.4, y: 0.36, z: 0.0 },
        tick: 0,
    });
    sim.ticks(30);
    let p = sim.component::<Position>().expect("pos").0;
    assert!(p.x > 1.5 && (p.y + 60.0).abs() < 1e-3, "pushed east and landed: {p:?}");
    assert_eq!(sim.command(r#"{"action":"movement_info"}"#)["motions"], 1);
}

#[test]
fn setpos_moves_the_local_position_and_the_physics_continues_from_there() {
    let world = SimWorld::flat(2);
    let mut sim = world.spawn([0.5, -60.0, 0.5]);
    let r = sim.command(r#"{"action":"setpos","x":4.5,"y":-58,"z":4.5,"yaw":90}"#);
    assert_eq!(r["pos"], json!({"x": 4.5, "y": -58.0, "z": 4.5}));
    sim.ticks(20);
    let p = sim.component::<Position>().expect("pos").0;
    assert!(p.distance(Vec3::new(4.5, -60.0, 4.5)) < 1e-3, "fell to the ground: {p:?}");
    let last = inputs(&mut sim).pop().expect("input");
    assert_eq!(last.yaw, 90.0);
    assert_eq!(sim.command(r#"{"action":"setpos","x":"nan","y":0,"z":0}"#)["code"], "INVALID_PARAMS");
    assert_eq!(sim.command(r#"{"action":"setpos","x":1e300,"y":0,"z":0}"#)["code"], "OUT_OF_RANGE");
}

#[test]
fn tp_asks_the_server_and_answers_with_its_teleport() {
    let world = SimWorld::flat(2);
    let mut sim = world.spawn([0.5, -60.0, 0.5]);
    sim.queue_command(r#"{"action":"tp","x":10.5,"y":-60,"z":3.5,"id":"t"}"#);
    sim.tick();
    assert!(sim.take_responses().is_empty(), "waits for the server");
    let requests = sim.sent_as::<clawcraft::protocol::packets::CommandRequest>();
    assert_eq!(requests[0].command, "/tp @s 10.5 -60 3.5");
    sim.receive(&MovePlayer {
        runtime_id: SIM_RUNTIME_ID as u32,
        position: WireVec3 { x: 10.5, y: -58.38, z: 3.5 },
        mode: "teleport".into(),
        ..MovePlayer::default()
    });
    sim.tick();
    let r = sim.take_responses().pop().expect("response");
    assert_eq!((r["id"].clone(), r["teleported"].clone()), (json!("t"), json!(true)));
    assert_eq!(r["pos"], json!({"x": 10.5, "y": -60.0, "z": 3.5}));
    // Without an answer from the server: TIMEOUT after 5 s.
    sim.queue_command(r#"{"action":"tp","x":0,"y":-60,"z":0,"id":"t2"}"#);
    sim.ticks(101);
    let r = sim.take_responses().pop().expect("response");
    assert_eq!((r["id"].clone(), r["code"].clone()), (json!("t2"), json!("TIMEOUT")));
}

#[test]
fn move_into_a_wall_ends_with_a_reason_instead_of_hanging() {
    let mut world = SimWorld::flat(2);
    world.fill([3, -60, -2], [3, -57, 2], "stone", &[]);
    let mut sim = world.spawn([0.5, -60.0, 0.5]);
    sim.command(r#"{"action":"move","x":8.5,"y":-60,"z":0.5,"id":"w"}"#);
    let (ticks, stream) = run_until_done(&mut sim, 200);
    let done = walk_done(&sim);
    assert_eq!((done[0]["id"].clone(), done[0]["status"].clone()), (json!("w"), json!("failed")));
    assert!(done[0]["reason"].as_str().is_some_and(|r| r.contains("no progress")), "{done:?}");
    assert!(ticks < 80, "gives up 2 s after the last progress: {ticks}");
    assert_plausible(&stream);
    let p = sim.component::<Position>().expect("pos").0;
    assert!(p.x <= 2.7 + 1e-3, "never inside the wall: {p:?}");
}

#[test]
fn a_move_waits_for_the_ground_instead_of_calling_a_frozen_bot_stalled() {
    // On a loaded server the chunks under the spawn can come seconds after it; the physics stays
    // frozen meanwhile (it cannot stand on unknown blocks), which is no lack of progress.
    let world = SimWorld::flat(2);
    let mut sim = Simulation::spawned_with(&clawcraft::sim::start_game());
    let start = sim.component::<Position>().expect("pos").0;
    let target = [start.x + 3.0, start.y, start.z];
    let r = sim
        .command(&format!(r#"{{"action":"move","x":{},"y":{},"z":{},"id":"late"}}"#, target[0], target[1], target[2]));
    assert_eq!(r["moving"], true, "{r:?}");
    let (ticks, _) = run_until_done(&mut sim, 60);
    assert!(walk_done(&sim).is_empty(), "still waiting for the ground after {ticks} ticks: {:?}", walk_done(&sim));
    for cx in -2..=2 {
        for cz in -2..=2 {
            sim.receive(&world.level_chunk(cx, cz));
        }
    }
    let (ticks, stream) = run_until_done(&mut sim, 80);
    let done = walk_done(&sim);
    assert_eq!((done[0]["id"].clone(), done[0]["status"].clone()), (json!("late"), json!("done")), "{done:?}");
    assert!(ticks < 60, "3 blocks once the ground is known: {ticks} ticks");
    assert_plausible(&stream);
}

#[test]
fn a_move_with_no_ground_data_ends_with_a_reason() {
    let mut sim = Simulation::spawned_with(&clawcraft::sim::start_game());
    let start = sim.component::<Position>().expect("pos").0;
    sim.command(&format!(r#"{{"action":"move","x":{},"y":{},"z":{},"id":"never"}}"#, start.x + 3.0, start.y, start.z));
    let (ticks, _) = run_until_done(&mut sim, 260);
    let done = walk_done(&sim);
    assert_eq!((done[0]["id"].clone(), done[0]["status"].clone()), (json!("never"), json!("failed")), "{done:?}");
    assert!(done[0]["reason"].as_str().is_some_and(|r| r.contains("no block data")), "{done:?}");
    assert!((195..=205).contains(&ticks), "gives up after 10 s frozen: {ticks}");
}

/// A bot standing still repeats its settled tick instead of running the physics (an idle bot's
/// cheapest tick), and what it sends is byte for byte what simulating every tick sends: through
/// idling, the block under it removed (a packet: the physics runs and it falls), a `setpos` in
/// the air, a walk and a turn of the head.
#[test]
fn a_settled_bot_repeats_its_tick_and_sends_what_simulating_would() {
    let mut world = SimWorld::flat(2);
    let mut reusing = world.spawn([0.5, -60.0, 0.5]);
    let mut simulating = world.spawn([0.5, -60.0, 0.5]);
    let bot = simulating.bot;
    simulating.app.world_mut().get_mut::<Mover>(bot).expect("mover").repeat_settled = false;
    let reused = |sim: &Simulation| sim.app.world().get::<Mover>(sim.bot).expect("mover").repeated_ticks;
    let step = |reusing: &mut Simulation, simulating: &mut Simulation, what: &str, ticks: usize| {
        for t in 0..ticks {
            reusing.tick();
            simulating.tick();
            assert_eq!(reusing.sent_bodies(), simulating.sent_bodies(), "{what}, tick {t}");
        }
    };
    let feet = |sim: &Simulation| sim.component::<Position>().expect("pos").0;
    step(&mut reusing, &mut simulating, "idle after spawn", 20);
    let idle_reused = reused(&reusing);
    assert!(idle_reused >= 15, "an idle bot repeats its settled tick: {idle_reused} of 20");
    world.update(&mut reusing, [0, -61, 0], "air", &[]);
    world.update(&mut simulating, [0, -61, 0], "air", &[]);
    step(&mut reusing, &mut simulating, "the ground removed", 30);
    assert!(feet(&reusing).distance(Vec3::new(0.5, -61.0, 0.5)) < 1e-3, "fell into the hole: {:?}", feet(&reusing));
    for sim in [&mut reusing, &mut simulating] {
        let r = sim.command(r#"{"action":"setpos","x":0.5,"y":-57,"z":2.5}"#);
        assert_eq!(r["pos"], json!({"x": 0.5, "y": -57.0, "z": 2.5}));
    }
    step(&mut reusing, &mut simulating, "after setpos", 30);
    assert!(feet(&reusing).distance(Vec3::new(0.5, -60.0, 2.5)) < 1e-3, "fell to the ground: {:?}", feet(&reusing));
    for sim in [&mut reusing, &mut simulating] {
        assert_eq!(sim.command(r#"{"action":"move","x":3.5,"y":-60,"z":2.5}"#)["moving"], true);
    }
    step(&mut reusing, &mut simulating, "walking", 40);
    for sim in [&mut reusing, &mut simulating] {
        let r = sim.command(r#"{"action":"face","x":10,"y":-55,"z":10}"#);
        assert!(r.get("code").is_none(), "{r:?}");
    }
    step(&mut reusing, &mut simulating, "after a turn", 200);
    assert!(reused(&reusing) > idle_reused + 40, "repeated again once settled: {}", reused(&reusing));
    assert_eq!(reused(&simulating), 0);
    let so_far = reused(&reusing);
    let info = reusing.command(r#"{"action":"movement_info"}"#);
    assert_eq!(info["repeatedTicks"], json!(so_far), "answered before this tick's step: {info:?}");
}
