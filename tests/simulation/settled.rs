//! Settled ticks: an idle bot's tick runs without the schedules (`clawcraft::settled`), and
//! does exactly what the schedules would — the same bytes sent in every tick, the same state
//! after — while packets, commands, turns and teleports come and go.

use bevy_app::{First, Last, Update};
use bevy_ecs::prelude::*;
use clawcraft::LeanTick;
use clawcraft::core::gate::QuietAware;
use clawcraft::core::{BotStats, TickCount};
use clawcraft::player::InputState;
use clawcraft::protocol::packets::{MovePlayer, PlayerAuthInput, Vec3 as WireVec3};
use clawcraft::settled::FullTicks;
use clawcraft::sim::{SIM_RUNTIME_ID, Simulation, chat_from};
use clawcraft::simworld::SimWorld;

fn settled_ticks(sim: &Simulation) -> u64 {
    sim.app.world().resource::<LeanTick>().settled_ticks()
}

fn teleport_to(x: f32, z: f32) -> MovePlayer {
    MovePlayer {
        runtime_id: SIM_RUNTIME_ID as u32,
        position: WireVec3 { x, y: -58.38, z },
        yaw: 30.0,
        mode: "teleport".into(),
        ..MovePlayer::default()
    }
}

/// What happens to both bots at a tick of the script.
fn script(sim: &mut Simulation, t: usize) {
    match t {
        40 => sim.receive(&chat_from("Alice", "hello bot")),
        70 => sim.queue_command(r#"{"action":"pos","id":"p"}"#),
        100 => sim.queue_command(r#"{"action":"face","x":10,"y":-58,"z":3,"id":"f"}"#),
        130 => sim.receive(&teleport_to(4.5, 2.5)),
        160 => sim.queue_command(r#"{"action":"status","id":"s"}"#),
        _ => {}
    }
}

/// How often `First` (bevy's message update) and `Last` (output) ran.
#[derive(Resource, Default, Debug, Clone, Copy, PartialEq, Eq)]
struct EdgeRuns {
    first: u64,
    last: u64,
}

fn count_first(mut runs: ResMut<EdgeRuns>) {
    runs.first += 1;
}

fn count_last(mut runs: ResMut<EdgeRuns>) {
    runs.last += 1;
}

/// Counters on `First` and `Last`, marked as clawcraft's own (they leave the plan as it is).
fn count_edges(sim: &mut Simulation) {
    sim.app
        .init_resource::<EdgeRuns>()
        .add_systems(First, count_first.in_set(QuietAware))
        .add_systems(Last, count_last.in_set(QuietAware));
}

/// The bot's state the two runs must agree on.
fn state(sim: &Simulation) -> (u64, InputState, BotStats, EdgeRuns) {
    let ticks = sim.app.world().resource::<TickCount>().0;
    let input = sim.component::<InputState>().expect("input state");
    (ticks, input, sim.component::<BotStats>().expect("stats"), *sim.app.world().resource::<EdgeRuns>())
}

/// Answers without the tick spacing `status` measures on the wall clock.
fn answers(
    mut responses: Vec<serde_json::Map<String, serde_json::Value>>,
) -> Vec<serde_json::Map<String, serde_json::Value>> {
    for r in &mut responses {
        if let Some(stats) = r.get_mut("stats").and_then(|s| s.as_object_mut()) {
            stats.remove("tickIntervals");
        }
    }
    assert_eq!(responses.len(), 3, "pos, face and status answered");
    responses
}

/// Events without their wall-clock timestamp.
fn events(sim: &Simulation) -> Vec<serde_json::Map<String, serde_json::Value>> {
    let mut events = sim.events();
    for e in &mut events {
        e.remove("timestamp");
    }
    events
}

#[test]
fn settled_ticks_send_the_bytes_the_schedules_would_in_every_tick() {
    let world = SimWorld::flat(2);
    let mut full = world.spawn([0.5, -60.0, 0.5]);
    full.app.insert_resource(FullTicks);
    let mut settled = world.spawn([0.5, -60.0, 0.5]);
    count_edges(&mut full);
    count_edges(&mut settled);
    assert_eq!(settled_ticks(&settled), 0, "the join's ticks are busy");
    let mut settled_at = Vec::new();
    for t in 0..220 {
        script(&mut full, t);
        script(&mut settled, t);
        let before = settled_ticks(&settled);
        full.tick();
        settled.tick();
        if settled_ticks(&settled) > before {
            settled_at.push(t);
        }
        assert_eq!(settled.sent_bodies(), full.sent_bodies(), "tick {t}: the same packets sent");
        assert_eq!(state(&settled), state(&full), "tick {t}: the same tick count, input, stats, First and Last runs");
    }
    assert_eq!(answers(settled.take_responses()), answers(full.take_responses()), "the same answers");
    assert_eq!(events(&settled), events(&full), "the same events");
    assert_eq!(settled_ticks(&full), 0, "FullTicks runs every tick through the schedules");
    // Idle stretches settle; each event's tick (and the busy ticks after it) runs the schedules.
    for t in [20, 39, 69, 99, 129, 159, 219] {
        assert!(settled_at.contains(&t), "tick {t} was settled: {settled_at:?}");
    }
    for t in [40, 70, 100, 130, 160] {
        assert!(!settled_at.contains(&t), "tick {t} ran the schedules: {settled_at:?}");
    }
    assert!(settled_at.len() > 150, "most ticks settled: {}", settled_at.len());
    let msgs = settled.events().into_iter().filter(|e| e["type"] == "msg").count();
    assert_eq!(msgs, 1, "the chat line arrived during a settled stretch and was handled");
}

#[test]
fn a_turned_or_teleported_bot_settles_again_with_its_new_input() {
    let world = SimWorld::flat(2);
    let mut sim = world.spawn([0.5, -60.0, 0.5]);
    sim.ticks(10);
    sim.receive(&teleport_to(4.5, 2.5));
    sim.tick();
    let before = settled_ticks(&sim);
    sim.sent_bodies();
    for _ in 0..30 {
        sim.tick();
    }
    assert!(settled_ticks(&sim) - before >= 20, "settled again after the teleport");
    let inputs = sim.sent_as::<PlayerAuthInput>();
    assert_eq!(inputs.len(), 30, "one input per tick");
    assert!(inputs.windows(2).all(|w| w[1].tick == w[0].tick + 1), "ticks advance by one");
    let last = inputs.last().expect("inputs");
    assert_eq!((last.position.x, last.position.z), (4.5, 2.5), "standing where the server put it");
    assert!(!last.input_data.iter().any(|f| f == "handled_teleport"), "acknowledged once: {:?}", last.input_data);
}

#[derive(Resource, Default)]
struct UpdateRuns(u64);

fn count(mut runs: ResMut<UpdateRuns>) {
    runs.0 += 1;
}

#[test]
fn a_system_of_yours_in_an_every_tick_schedule_runs_in_every_tick() {
    let world = SimWorld::flat(2);
    let mut sim = world.spawn([0.5, -60.0, 0.5]);
    sim.app.init_resource::<UpdateRuns>().add_systems(Update, count);
    sim.ticks(100);
    assert_eq!(sim.app.world().resource::<UpdateRuns>().0, 100, "Update ran in each tick");
    assert_eq!(settled_ticks(&sim), 0, "no tick settled");
}
