//! Simulation tests: the whole app stepped tick by tick through `App::update`, packets injected
//! as encoded bytes, and the exact packets each tick sent asserted. Any warning log fails a test
//! (see `Simulation`'s drop), except where a test feeds bad input on purpose.

use clawcraft::core::{Lifecycle, Position, Vec3};
use clawcraft::player::InputState;
use clawcraft::protocol::codec::Value;
use clawcraft::protocol::packets::{
    ChunkRadiusUpdate, CorrectPlayerMovePrediction, Disconnect, MovePlayer, NetworkStackLatency, PlayStatus,
    PlayerAuthInput, ResourcePackStack, ResourcePacksInfo, StartGame, Vec3 as WireVec3,
};
use clawcraft::sim::Simulation;
use serde_json::json;

const RUNTIME_ID: u64 = clawcraft::sim::SIM_RUNTIME_ID;

fn status(s: &str) -> PlayStatus {
    PlayStatus { status: s.into() }
}

fn start_game() -> StartGame {
    clawcraft::sim::start_game()
}

fn only_packet(batches: &[Vec<(String, Value)>]) -> (String, Value) {
    assert_eq!(batches.len(), 1, "exactly one batch this tick: {batches:?}");
    assert_eq!(batches[0].len(), 1, "exactly one packet in the batch: {:?}", batches[0]);
    batches[0][0].clone()
}

fn field<'a>(v: &'a Value, name: &str) -> &'a Value {
    v.get(name).unwrap_or_else(|| panic!("field {name} in {v:?}"))
}

/// A bot right after its spawn tick.
fn spawned() -> Simulation {
    Simulation::spawned_with(&start_game())
}

#[test]
fn join_sequence_sends_the_exact_packets_tick_by_tick() {
    let mut sim = Simulation::new();
    sim.tick();
    assert!(sim.sent().is_empty(), "nothing is sent before the server speaks");

    sim.receive(&status("login_success"));
    sim.tick();
    let (name, v) = only_packet(&sim.sent());
    assert_eq!(name, "client_cache_status");
    assert_eq!(field(&v, "enabled"), &Value::Bool(false));
    assert!(sim.event_types().contains(&"ready".to_string()));

    sim.receive(&ResourcePacksInfo::default());
    sim.tick();
    let (name, v) = only_packet(&sim.sent());
    assert_eq!(name, "resource_pack_client_response");
    assert_eq!(field(&v, "response_status").as_str(), Some("have_all_packs"));

    sim.receive(&ResourcePackStack::default());
    sim.tick();
    let (name, v) = only_packet(&sim.sent());
    assert_eq!(name, "resource_pack_client_response");
    assert_eq!(field(&v, "response_status").as_str(), Some("completed"));

    sim.receive(&start_game());
    sim.tick();
    let (name, v) = only_packet(&sim.sent());
    assert_eq!(name, "request_chunk_radius");
    assert_eq!(field(&v, "chunk_radius").as_i64(), Some(8));
    // StartGame alone does not spawn: still waiting for the radius and PlayStatus(player_spawn).
    sim.ticks(3);
    assert!(sim.sent().is_empty(), "no input before spawn");
    assert_eq!(sim.component::<Lifecycle>(), Some(Lifecycle::Joining));

    sim.receive(&ChunkRadiusUpdate { chunk_radius: 8 });
    sim.tick();
    assert!(sim.sent().is_empty(), "the radius alone does not spawn");
    sim.receive(&status("player_spawn"));
    sim.tick();
    let (name, v) = only_packet(&sim.sent());
    assert_eq!(name, "set_local_player_as_initialized");
    assert_eq!(field(&v, "runtime_entity_id").as_u64(), Some(RUNTIME_ID));
    assert_eq!(sim.component::<Lifecycle>(), Some(Lifecycle::Spawned));
    let spawn = sim.events().into_iter().find(|e| e["type"] == "spawn").expect("spawn event");
    assert_eq!(spawn["pos"], json!({"x": 0.5, "y": -60.0, "z": 0.5}));

    // From the next tick on: one PlayerAuthInput per tick, tick strictly +1, eye position.
    let mut ticks = Vec::new();
    for _ in 0..40 {
        sim.tick();
        let batches = sim.sent();
        assert_eq!(batches.len(), 1, "one batch per tick");
        let (name, v) = only_packet(&batches);
        assert_eq!(name, "player_auth_input");
        let pos = field(&v, "position");
        assert_eq!(field(pos, "y").as_f64().map(|y| (y * 100.0).round()), Some(-5838.0));
        ticks.push(field(&v, "tick").as_u64().expect("tick"));
    }
    assert!(ticks.windows(2).all(|w| w[1] == w[0] + 1), "ticks rise by one: {ticks:?}");
}

#[test]
fn typed_inputs_carry_rotation_and_no_blocks_when_idle() {
    let mut sim = spawned();
    sim.tick();
    let inputs = sim.sent_as::<PlayerAuthInput>();
    assert_eq!(inputs.len(), 1);
    let input = &inputs[0];
    assert_eq!((input.pitch, input.yaw, input.head_yaw), (10.0, 90.0, 90.0));
    assert_eq!(input.input_mode, "mouse");
    // The clock started at StartGame's current_tick (0) and ran through the StartGame and spawn ticks.
    assert_eq!(input.tick, 2);
    assert!(input.transaction.is_none() && input.block_action.is_none() && input.item_stack_request.is_none());
    assert!(input.input_data.is_empty());
}

#[test]
fn network_stack_latency_is_answered_in_the_same_tick() {
    let mut sim = spawned();
    sim.receive(&NetworkStackLatency { timestamp: 123_456_789, needs_response: 1 });
    sim.receive(&NetworkStackLatency { timestamp: 5, needs_response: 0 });
    sim.tick();
    let batches = sim.sent();
    assert_eq!(batches.len(), 1, "one batch per tick");
    let names: Vec<&str> = batches[0].iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names, ["network_stack_latency", "player_auth_input"]);
    let echo = &batches[0][0].1;
    assert_eq!(field(echo, "timestamp").as_u64(), Some(123_456_789));
    assert_eq!(field(echo, "needs_response").as_u64(), Some(0));
}

#[test]
fn a_server_teleport_is_adopted_and_acknowledged() {
    let mut sim = spawned();
    sim.tick();
    sim.sent();
    sim.receive(&MovePlayer {
        runtime_id: RUNTIME_ID as u32,
        position: WireVec3 { x: 10.5, y: -58.38, z: 3.5 },
        yaw: 45.0,
        mode: "teleport".into(),
        ..MovePlayer::default()
    });
    // Another player's move must not move us.
    sim.receive(&MovePlayer {
        runtime_id: 99,
        position: WireVec3 { x: 100.0, y: 0.0, z: 0.0 },
        ..MovePlayer::default()
    });
    sim.tick();
    let inputs = sim.sent_as::<PlayerAuthInput>();
    assert_eq!(inputs.len(), 1);
    assert_eq!(inputs[0].position, WireVec3 { x: 10.5, y: -58.38, z: 3.5 });
    assert_eq!(inputs[0].input_data, ["handled_teleport"]);
    // Only the first input after the teleport carries the flag.
    sim.tick();
    let inputs = sim.sent_as::<PlayerAuthInput>();
    assert!(inputs[0].input_data.is_empty());

    let pos = sim.command(r#"{"action":"pos","id":"p"}"#);
    assert_eq!(pos["id"], "p");
    assert_eq!(pos["pos"], json!({"x": 10.5, "y": -60.0, "z": 3.5}));
    assert!((pos["yawDegrees"].as_f64().unwrap_or_default() - 45.0).abs() < 1e-6);
}

#[test]
fn a_movement_correction_snaps_the_position() {
    let mut sim = spawned();
    sim.receive(&CorrectPlayerMovePrediction {
        prediction_type: "player".into(),
        position: WireVec3 { x: 2.0, y: -57.38, z: -4.0 },
        tick: 3,
        ..CorrectPlayerMovePrediction::default()
    });
    sim.tick();
    let p = sim.component::<Position>().expect("position").0;
    assert!(p.distance(Vec3::new(2.0, -59.0, -4.0)) < 1e-4, "{p:?}");
    let inputs = sim.sent_as::<PlayerAuthInput>();
    assert_eq!(inputs[0].position, WireVec3 { x: 2.0, y: -57.38, z: -4.0 });
}

#[test]
fn a_disconnect_packet_becomes_a_disconnected_event_and_input_stops() {
    let mut sim = spawned();
    sim.tick();
    sim.sent();
    sim.receive(&Disconnect { reason: "kicked".into(), message: "Go away".into(), ..Disconnect::default() });
    sim.tick();
    let ev = sim.events().into_iter().find(|e| e["type"] == "disconnected").expect("disconnected event");
    assert_eq!(ev["reason"], "Go away");
    assert!(sim.handle.closed_by_client(), "the client closes its side");
    assert_eq!(sim.component::<Lifecycle>(), Some(Lifecycle::Disconnected));
    sim.ticks(3);
    assert!(sim.sent().iter().all(|b| b.iter().all(|(n, _)| n != "player_auth_input")), "no input after a kick");
}

#[test]
fn a_lost_connection_is_reported_once() {
    let mut sim = spawned();
    sim.handle.drop_connection("timed out");
    sim.ticks(3);
    let disconnects: Vec<_> = sim.events().into_iter().filter(|e| e["type"] == "disconnected").collect();
    assert_eq!(disconnects.len(), 1);
    assert_eq!(disconnects[0]["reason"], "timed out");
}

#[test]
fn garbage_packets_do_not_stop_the_bot() {
    let mut sim = spawned();
    sim.allow_warnings = true;
    let start_game_id = sim.protocol.packet_id("start_game").expect("id") as u8;
    let mut seed = 0x2545_f491_4f6c_dd1du64;
    for _ in 0..500 {
        let mut body = vec![start_game_id];
        for _ in 0..(seed % 40) {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            body.push(seed as u8);
        }
        sim.receive_raw(vec![body, vec![0xff, 0xff, 0xff, 0xff, 0xff, 0xff], vec![]]);
        sim.tick();
    }
    assert_eq!(sim.component::<Lifecycle>(), Some(Lifecycle::Spawned));
    let inputs = sim.sent_as::<PlayerAuthInput>();
    assert_eq!(inputs.len(), 500, "an input every tick despite garbage");
    assert!(sim.warnings() > 0, "bad packets are logged");
    // Each garbage StartGame is one decode error (logged once, counted once), reported by status.
    let stats = sim.component::<clawcraft::core::BotStats>().expect("stats");
    assert!(stats.decode_errors > 0 && stats.decode_errors <= 500, "{stats:?}");
    let errors = sim.component::<clawcraft::network::DecodeErrors>().expect("kept");
    assert!(errors.0.iter().all(|e| e.contains("start_game")), "{errors:?}");
    let status = sim.command(r#"{"action":"status"}"#);
    assert_eq!(status["stats"]["decodeErrors"], stats.decode_errors);
}

#[test]
fn commands_answer_with_ids_and_stable_error_codes() {
    let mut sim = Simulation::new();
    let r = sim.command(r#"{"action":"pos","id":1}"#);
    assert_eq!(r["code"], "NOT_SPAWNED");
    assert_eq!(r["id"], 1);
    let r = sim.command(r#"{"action":"status"}"#);
    assert_eq!(r["spawned"], false);
    assert_eq!(r["username"], "ClawBot");
    assert!(r["id"].as_u64().is_some(), "a process-wide id when none was given");
    let r = sim.command(r#"{"action":"teleport_me"}"#);
    assert_eq!(r["code"], "UNKNOWN_ACTION");
    let r = sim.command(r#"{"id":"x"}"#);
    assert_eq!(r["code"], "MISSING_ACTION");
    assert_eq!(r["id"], "x");
    let r = sim.command("not json");
    assert_eq!(r["code"], "INVALID_JSON");
    drop(sim);

    let mut sim = spawned();
    let r = sim.command(r#"{"action":"status","id":"s"}"#);
    assert_eq!(r["spawned"], true);
    assert_eq!(r["pos"], json!({"x": 0.5, "y": -60.0, "z": 0.5}));
    // Commands run before the tick's input: the status names the input about to be sent.
    assert_eq!(r["inputTick"], 2);
    assert_eq!(sim.component::<InputState>().map(|i| i.next_tick), Some(3));
}

#[test]
fn face_turns_the_next_input_and_distance_measures_from_the_feet() {
    let mut sim = spawned();
    // Feet (0.5, -60, 0.5): a point 10 blocks to the east (+X) at eye height is yaw -90, pitch 0.
    let r = sim.command(r#"{"action":"face","x":"10.5","y":-58.38,"z":0.5}"#);
    assert!((r["yawDegrees"].as_f64().unwrap_or(f64::NAN) + 90.0).abs() < 1e-3, "{r:?}");
    assert!(r["pitchDegrees"].as_f64().unwrap_or(f64::NAN).abs() < 1e-3, "{r:?}");
    assert!((r["yaw"].as_f64().unwrap_or(f64::NAN) + std::f64::consts::FRAC_PI_2).abs() < 1e-4, "radians as ClawCraft");
    // The face command ran in this tick, before its input: the input already carries the rotation.
    let inputs = sim.sent_as::<PlayerAuthInput>();
    assert_eq!(inputs.len(), 1);
    assert!(
        (inputs[0].yaw + 90.0).abs() < 1e-3 && inputs[0].pitch.abs() < 1e-3,
        "{:?}",
        (inputs[0].yaw, inputs[0].pitch)
    );
    // Straight down is pitch 90; south (+Z) is yaw 0.
    let r = sim.command(r#"{"action":"face","x":0.5,"y":-70,"z":0.5001}"#);
    assert!((r["pitchDegrees"].as_f64().unwrap_or(f64::NAN) - 90.0).abs() < 0.01, "{r:?}");
    let r = sim.command(r#"{"action":"face","x":0.5,"z":20}"#);
    assert!(r["yawDegrees"].as_f64().unwrap_or(f64::NAN).abs() < 1e-3, "{r:?}");

    let d = sim.command(r#"{"action":"distance","x":3.5,"z":4.5}"#);
    assert_eq!(d["euclidean"], 5.0);
    assert_eq!(d["direction"], json!({"x": 0.6, "y": 0.0, "z": 0.8}));
    let d = sim.command(r#"{"action":"distance","x":"north","z":0}"#);
    assert_eq!(d["code"], "INVALID_PARAMS");
    let d = sim.command(r#"{"action":"distance","x":1e300,"z":0}"#);
    assert_eq!(d["code"], "OUT_OF_RANGE");
}

/// Each received packet is decoded once per tick, however many plugins read it: StartGame is read
/// by the join sequence, the world, block ids and weather; AddPlayer and MovePlayer by entities
/// and chat. Every reader shares the first reader's view.
#[test]
fn packets_read_by_several_plugins_are_decoded_once() {
    use bevy_ecs::prelude::*;
    use clawcraft::network::ClientboundPacket;
    use clawcraft::protocol::packets::AddPlayer;

    #[derive(Resource, Default)]
    struct Decodes(Vec<(String, u32)>);
    fn record(mut packets: MessageReader<ClientboundPacket>, mut seen: ResMut<Decodes>) {
        for p in packets.read() {
            seen.0.push((p.name().to_owned(), p.packet.decode_count()));
        }
    }

    let mut sim = Simulation::new();
    sim.app.init_resource::<Decodes>().add_systems(bevy_app::Last, record);
    sim.receive(&status("login_success"));
    sim.receive(&ResourcePacksInfo::default());
    sim.tick();
    sim.receive(&ResourcePackStack::default());
    sim.tick();
    sim.receive(&start_game());
    sim.tick();
    sim.receive(&ChunkRadiusUpdate { chunk_radius: 8 });
    sim.receive(&status("player_spawn"));
    sim.tick();
    sim.receive(&AddPlayer {
        uuid: "00000000-0000-0000-0000-00000000000a".into(),
        username: "Alice".into(),
        runtime_id: 42,
        unique_id: 42,
        ..AddPlayer::default()
    });
    sim.receive(&MovePlayer { runtime_id: 42, mode: "normal".into(), ..MovePlayer::default() });
    sim.tick();
    let seen = &sim.app.world().resource::<Decodes>().0;
    for name in ["start_game", "add_player", "move_player"] {
        let counts: Vec<u32> = seen.iter().filter(|(n, _)| n == name).map(|(_, c)| *c).collect();
        assert_eq!(counts, [1], "{name} decoded {counts:?} times");
    }
}

#[test]
fn input_ticks_follow_the_server_clock_and_move_forward_with_corrections() {
    let start = StartGame { current_tick: 5_000, ..clawcraft::sim::start_game() };
    let mut sim = Simulation::spawned_with(&start);
    sim.tick();
    let first = sim.sent_as::<PlayerAuthInput>();
    assert_eq!(first[0].tick, 5_002, "StartGame's tick plus the StartGame and spawn ticks");
    // A correction naming a later tick (our clock lagged): the next input follows it.
    sim.receive(&CorrectPlayerMovePrediction {
        prediction_type: "player".into(),
        position: WireVec3 { x: 0.5, y: -58.38, z: 0.5 },
        tick: 9_000,
        ..CorrectPlayerMovePrediction::default()
    });
    sim.tick();
    assert_eq!(sim.sent_as::<PlayerAuthInput>()[0].tick, 9_001);
    // An older tick never moves it back.
    sim.receive(&CorrectPlayerMovePrediction {
        prediction_type: "player".into(),
        position: WireVec3 { x: 0.5, y: -58.38, z: 0.5 },
        tick: 8_990,
        ..CorrectPlayerMovePrediction::default()
    });
    sim.tick();
    assert_eq!(sim.sent_as::<PlayerAuthInput>()[0].tick, 9_002);
}

#[test]
fn input_extras_ride_in_exactly_one_input() {
    use clawcraft::player::InputExtras;
    use clawcraft::protocol::packets::{BlockAction, BlockPos};
    let mut sim = spawned();
    sim.tick();
    sim.sent();
    let mut extras = InputExtras::default();
    extras.flag("missed_swing");
    extras.block_actions.push(BlockAction {
        action: "start_break".into(),
        position: BlockPos { x: 1, y: -61, z: 0 },
        face: 1,
    });
    sim.app.world_mut().entity_mut(sim.bot).insert(extras);
    sim.tick();
    let input = sim.sent_as::<PlayerAuthInput>().remove(0);
    let flags = input.input_data.clone();
    assert!(flags.contains(&"missed_swing".to_string()) && flags.contains(&"block_action".to_string()), "{flags:?}");
    let actions = input.block_action.expect("block actions");
    assert_eq!((actions[0].action.as_str(), actions[0].position.y), ("start_break", -61));
    sim.tick();
    let next = sim.sent_as::<PlayerAuthInput>().remove(0);
    assert!(next.block_action.is_none() && next.input_data.is_empty(), "drained once");
}
