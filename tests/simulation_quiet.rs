//! Quiet ticks: a bot with nothing to do skips `TickWork` (and `Last`), yet still sends its
//! PlayerAuthInput every tick, runs every `Update` system, and handles a packet, a command or an
//! action in the very tick it arrives.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use bevy_app::{PostUpdate, Update};
use bevy_ecs::prelude::*;
use bevy_ecs::schedule::Schedules;
use clawcraft::core::TickWork;
use clawcraft::protocol::packets::{PlayerAuthInput, Text};
use clawcraft::sim::Simulation;
use clawcraft::simworld::SimWorld;
use serde_json::json;

/// How many times the `TickWork` and `Update` schedules ran.
#[derive(Resource, Clone, Default)]
struct Runs {
    work: Arc<AtomicU64>,
    update: Arc<AtomicU64>,
    late: Arc<AtomicU64>,
}

impl Runs {
    fn take(&self) -> (u64, u64) {
        (self.work.swap(0, Ordering::SeqCst), self.update.swap(0, Ordering::SeqCst))
    }
}

fn count_work(runs: Res<Runs>) {
    runs.work.fetch_add(1, Ordering::SeqCst);
}

fn count_update(runs: Res<Runs>) {
    runs.update.fetch_add(1, Ordering::SeqCst);
}

/// A bot standing on a flat world's ground, settled, with counters on both schedules.
fn settled() -> (SimWorld, Simulation, Runs) {
    let world = SimWorld::flat(2);
    let mut sim = world.spawn([0.5, -60.0, 0.5]);
    let runs = Runs::default();
    sim.app.insert_resource(runs.clone()).add_systems(TickWork, count_work).add_systems(Update, count_update);
    sim.ticks(20);
    sim.sent_bodies();
    runs.take();
    (world, sim, runs)
}

/// Runs `n` ticks and checks each sent exactly one batch holding one PlayerAuthInput.
fn quiet_ticks(sim: &mut Simulation, n: usize) {
    sim.sent_bodies();
    for t in 0..n {
        sim.tick();
        let names = sim.sent_names();
        assert_eq!(names, vec![vec!["player_auth_input".to_owned()]], "tick {t}: one batch with the input");
    }
}

/// After `settle` more ticks, the next `n` are quiet: no `TickWork`, `Update` in each, one input
/// batch each.
fn goes_quiet(sim: &mut Simulation, runs: &Runs, settle: usize, n: usize) {
    sim.ticks(settle);
    runs.take();
    quiet_ticks(sim, n);
    assert_eq!(runs.take(), (0, n as u64), "quiet after {settle} ticks");
}

/// A chat line from a player.
fn chat_from_alice(message: &str) -> Text {
    Text {
        category: "authored".into(),
        kind: "chat".into(),
        source_name: Some("Alice".into()),
        message: message.into(),
        ..Text::default()
    }
}

fn input_ticks(sim: &mut Simulation, n: usize) -> Vec<u64> {
    sim.sent_bodies();
    (0..n)
        .map(|_| {
            sim.tick();
            let inputs = sim.sent_as::<PlayerAuthInput>();
            assert_eq!(inputs.len(), 1, "one input per tick");
            inputs[0].tick
        })
        .collect()
}

#[test]
fn an_idle_bot_skips_tick_work_but_sends_its_input_and_runs_update_every_tick() {
    let (_world, mut sim, runs) = settled();
    quiet_ticks(&mut sim, 40);
    assert_eq!(runs.take(), (0, 40), "TickWork skipped in every quiet tick, Update run in each");
    let ticks = input_ticks(&mut sim, 10);
    assert!(ticks.windows(2).all(|w| w[1] == w[0] + 1), "the input's tick advances by one: {ticks:?}");
    assert_eq!(sim.warnings(), 0);
}

#[test]
fn a_packet_is_handled_in_the_tick_it_arrives_then_the_bot_goes_quiet_again() {
    let (_world, mut sim, runs) = settled();
    sim.receive(&chat_from_alice("hello bot"));
    sim.tick();
    let msgs: Vec<_> = sim.events().into_iter().filter(|e| e["type"] == "msg").collect();
    assert_eq!(msgs.len(), 1, "the chat line became a msg event in its tick");
    assert_eq!((&msgs[0]["from"], &msgs[0]["msg"]), (&json!("Alice"), &json!("hello bot")));
    assert_eq!(runs.take(), (1, 1));
    // The busy tail (messages written late in a busy tick are read before they expire), then quiet.
    goes_quiet(&mut sim, &runs, clawcraft::core::gate::BUSY_AFTER_WORK as usize + 2, 20);
}

#[test]
fn a_command_runs_in_the_next_tick_and_an_action_keeps_the_ticks_busy_until_it_ends() {
    let (_world, mut sim, runs) = settled();
    let r = sim.command(r#"{"action":"pos","id":"p"}"#);
    assert_eq!(r["id"], json!("p"));
    assert!(r.get("code").is_none(), "{r:?}");
    assert_eq!(runs.take().0, 1, "the tick with a command ran TickWork");

    let r = sim.command(r#"{"action":"move","x":3.5,"y":-60,"z":0.5}"#);
    assert_eq!(r["moving"], json!(true), "{r:?}");
    runs.take();
    let mut ticks = 0;
    while !sim.event_types().iter().any(|t| t == "walk_done") {
        sim.tick();
        ticks += 1;
        assert!(ticks < 200, "the walk ends");
    }
    assert_eq!(runs.take(), (ticks, ticks), "every tick of the walk was busy");
    // Once the bot stopped and settled (it glides to a stop), the ticks go quiet again.
    goes_quiet(&mut sim, &runs, 40, 20);
}

#[test]
fn pending_work_keeps_ticks_busy_until_it_is_done() {
    let (_world, mut sim, runs) = settled();
    // A `cmd` the server never answers times out after 100 ticks: every tick until then is busy.
    sim.queue_command(r#"{"action":"cmd","cmd":"say hi","id":9}"#);
    sim.ticks(50);
    assert_eq!(runs.take().0, 50, "busy while the command waits");
    sim.ticks(60);
    let r = sim.take_responses();
    assert_eq!((r.len(), r[0]["code"].clone()), (1, json!("TIMEOUT")), "{r:?}");
    // Quiet once the timeout answered.
    goes_quiet(&mut sim, &runs, 0, 10);
}

#[test]
fn the_runners_direct_tick_is_the_tick_app_update_runs() {
    let (_world, mut sim, runs) = settled();
    let lean = sim.app.world().resource::<clawcraft::LeanTick>().clone();
    sim.sent_bodies();
    // The runner's path and `App::update` interleaved: one tick each, sharing the tick's state.
    let mut ticks = Vec::new();
    for t in 0..20 {
        if t % 2 == 0 {
            lean.update(&mut sim.app);
        } else {
            sim.app.update();
        }
        let inputs = sim.sent_as::<PlayerAuthInput>();
        assert_eq!(inputs.len(), 1, "tick {t}: one input");
        ticks.push(inputs[0].tick);
    }
    assert!(ticks.windows(2).all(|w| w[1] == w[0] + 1), "the input's tick advances by one: {ticks:?}");
    assert_eq!(runs.take(), (0, 20), "quiet on both paths, Update in each");
    // A packet arriving before a direct tick is handled in it.
    sim.receive(&chat_from_alice("direct"));
    lean.update(&mut sim.app);
    assert!(sim.events().iter().any(|e| e["type"] == "msg" && e["msg"] == "direct"), "handled in its tick");
    assert_eq!(runs.take(), (1, 1));
    goes_quiet(&mut sim, &runs, clawcraft::core::gate::BUSY_AFTER_WORK as usize + 2, 10);
    // The runner holds the every-tick schedules between its updates; they go back on release
    // (and on an `App::update`), so systems added then run.
    let in_map = |sim: &Simulation| sim.app.world().resource::<Schedules>().contains(PostUpdate);
    lean.update(&mut sim.app);
    assert!(!in_map(&sim), "held after a direct tick");
    lean.release(sim.app.world_mut());
    assert!(in_map(&sim), "back after release");
    sim.app.add_systems(PostUpdate, count_late);
    lean.update(&mut sim.app);
    sim.app.update();
    assert_eq!(runs.late.load(Ordering::SeqCst), 2, "a system added after release runs on both paths");
    assert_eq!(sim.warnings(), 0);
}

fn count_late(runs: Res<Runs>) {
    runs.late.fetch_add(1, Ordering::SeqCst);
}

#[test]
fn every_tick_counts_once_on_both_paths_whatever_order_the_plugins_are_built_in() {
    use clawcraft::core::TickCount;
    let (_world, mut sim, _runs) = settled();
    let lean = sim.app.world().resource::<clawcraft::LeanTick>().clone();
    let count = |app: &bevy_app::App| app.world().resource::<TickCount>().0;
    let before = count(&sim.app);
    for t in 0..10 {
        if t % 2 == 0 {
            lean.update(&mut sim.app);
        } else {
            sim.app.update();
        }
    }
    assert_eq!(count(&sim.app) - before, 10, "one count per tick, quiet ticks included");
    // The lean main counts the tick itself only when it is built before `CorePlugin`; built
    // after it, `CorePlugin`'s counting system does, and the tick is not counted twice.
    for core_first in [false, true] {
        let mut app = bevy_app::App::new();
        if core_first {
            app.add_plugins((clawcraft::core::CorePlugin, clawcraft::LeanMainPlugin));
        } else {
            app.add_plugins((clawcraft::LeanMainPlugin, clawcraft::core::CorePlugin));
        }
        for _ in 0..5 {
            app.update();
        }
        assert_eq!(count(&app), 5, "core built first: {core_first}");
    }
}
