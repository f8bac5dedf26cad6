//! Quiet ticks: a bot with nothing to do skips `TickWork` (and `First` and `Last` while every
//! system in the main schedules is clawcraft's own), yet still sends its PlayerAuthInput every
//! tick, runs every `Update` system, and handles a packet, a command or an action in the very
//! tick it arrives.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use bevy_app::{First, Last, PostUpdate, Update};
use bevy_ecs::prelude::*;
use bevy_ecs::schedule::Schedules;
use clawcraft::core::TickWork;
use clawcraft::core::gate::QuietAware;
use clawcraft::protocol::packets::PlayerAuthInput;
use clawcraft::sim::{Simulation, chat_from};
use clawcraft::simworld::SimWorld;
use serde_json::json;

/// How many times the `TickWork` and `Update` schedules ran.
#[derive(Resource, Clone, Default)]
struct Runs {
    work: Arc<AtomicU64>,
    update: Arc<AtomicU64>,
    late: Arc<AtomicU64>,
    first: Arc<AtomicU64>,
    last: Arc<AtomicU64>,
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
    sim.receive(&chat_from("Alice", "hello bot"));
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
    // A `cmd` the server never answers is answered after 100 ticks: every tick until then is busy.
    sim.queue_command(r#"{"action":"cmd","cmd":"say hi","id":9}"#);
    sim.ticks(50);
    assert_eq!(runs.take().0, 50, "busy while the command waits");
    sim.ticks(60);
    let r = sim.take_responses();
    assert_eq!((r.len(), r[0]["output"].clone()), (1, serde_json::Value::Null), "{r:?}");
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
    sim.receive(&chat_from("Alice", "direct"));
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

fn count_first(runs: Res<Runs>) {
    runs.first.fetch_add(1, Ordering::SeqCst);
}

fn count_last(runs: Res<Runs>) {
    runs.last.fetch_add(1, Ordering::SeqCst);
}

/// A message a user's system writes every tick.
#[derive(Message)]
struct Ping;

fn write_ping(mut pings: MessageWriter<Ping>) {
    pings.write(Ping);
}

fn read_pings(mut pings: MessageReader<Ping>, runs: Res<Runs>) {
    runs.late.fetch_add(pings.read().count() as u64, Ordering::SeqCst);
}

/// `First` and `Last` runs since the last call.
fn edge_runs(runs: &Runs) -> (u64, u64) {
    (runs.first.swap(0, Ordering::SeqCst), runs.last.swap(0, Ordering::SeqCst))
}

#[test]
fn with_only_clawcrafts_own_systems_quiet_ticks_skip_first_and_last() {
    let world = SimWorld::flat(2);
    let mut sim = world.spawn([0.5, -60.0, 0.5]);
    let runs = Runs::default();
    // Counters marked as clawcraft's own: they are skipped with the schedules around them.
    sim.app
        .insert_resource(runs.clone())
        .add_systems(First, count_first.in_set(QuietAware))
        .add_systems(Last, count_last.in_set(QuietAware));
    sim.ticks(20);
    assert!(edge_runs(&runs).1 > 0, "Last ran while the bot joined");
    sim.ticks(clawcraft::core::gate::BUSY_AFTER_WORK as usize + 2);
    edge_runs(&runs);
    quiet_ticks(&mut sim, 40);
    assert_eq!(edge_runs(&runs), (0, 0), "First and Last skipped in every quiet tick");
    // A command makes the tick busy: `Last` runs in it, `First` (the message update) in the
    // next one.
    sim.command(r#"{"action":"pos"}"#);
    sim.tick();
    let (first, last) = edge_runs(&runs);
    assert!(first > 0 && last > 0, "a busy tick runs First ({first}) and Last ({last})");
    assert_eq!(sim.warnings(), 0);
}

#[test]
fn every_plugin_the_harness_runs_with_leaves_first_and_last_to_busy_ticks() {
    // The harness with every optional plugin (`clawcraft` with TCP, the events file, MCP over
    // HTTP and reconnecting; listeners on loopback ports the system picks), no bot connected.
    let dir = std::env::temp_dir().join(format!("clawcraft-quiet-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let events = clawcraft_io::events_file::EventsFileSettings::new(dir.join("events.jsonl"), 1.0);
    let tcp = clawcraft_io::tcp::TcpPlugin::bind(clawcraft_io::tcp::TcpSettings::loopback(0)).expect("loopback");
    let http = clawcraft_mcp::HttpSettings { addr: "127.0.0.1:0".parse().expect("addr"), token: None };
    let mcp = clawcraft_mcp::McpPlugin::new(clawcraft_mcp::McpSettings { http: Some(http), ..Default::default() })
        .expect("MCP on loopback");
    let runs = Runs::default();
    let mut app = bevy_app::App::new();
    app.add_plugins(clawcraft::ClawcraftPlugins)
        .add_plugins(clawcraft::IoPlugin { stdin: false, signals: false, stdout: false, ..Default::default() })
        .add_plugins(clawcraft_io::events_file::EventsFilePlugin { settings: events })
        .add_plugins((tcp, mcp))
        .insert_resource(runs.clone())
        .add_systems(First, count_first.in_set(QuietAware))
        .add_systems(Last, count_last.in_set(QuietAware));
    app.finish();
    app.cleanup();
    let lean = app.world().resource::<clawcraft::LeanTick>().clone();
    for _ in 0..10 {
        lean.update(&mut app);
    }
    let (first, last) = edge_runs(&runs);
    assert!(first > 0 && last > 0, "the start-up ticks were busy: First {first}, Last {last}");
    for _ in 0..40 {
        lean.update(&mut app);
    }
    assert_eq!(edge_runs(&runs), (0, 0), "First and Last skipped in every quiet tick");
    assert!(lean.may_settle(), "every every-tick system of these plugins is one a settled tick stands in for");
    lean.release(app.world_mut());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_users_system_makes_first_and_last_run_every_tick_and_its_messages_are_updated() {
    let world = SimWorld::flat(2);
    let mut sim = world.spawn([0.5, -60.0, 0.5]);
    let runs = Runs::default();
    sim.app
        .insert_resource(runs.clone())
        .add_message::<Ping>()
        .add_systems(TickWork, count_work)
        .add_systems(Update, (write_ping, read_pings).chain())
        .add_systems(Last, count_last);
    sim.ticks(20);
    // Settled: no work for clawcraft's own schedule, yet the user's systems run in every tick.
    goes_quiet(&mut sim, &runs, clawcraft::core::gate::BUSY_AFTER_WORK as usize + 2, 0);
    runs.late.swap(0, Ordering::SeqCst);
    edge_runs(&runs);
    quiet_ticks(&mut sim, 200);
    assert_eq!(runs.take(), (0, 0), "TickWork still skipped");
    assert_eq!(runs.last.swap(0, Ordering::SeqCst), 200, "the user's Last system ran in every tick");
    assert_eq!(runs.late.swap(0, Ordering::SeqCst), 200, "each message read once");
    let held = sim.app.world().resource::<bevy_ecs::message::Messages<Ping>>().len();
    assert!(held <= 2, "bevy's message update dropped old messages: {held} held after 200 ticks");
    assert_eq!(sim.warnings(), 0);
}

#[test]
fn a_system_added_to_last_after_the_first_tick_runs_every_tick_from_the_next_busy_one() {
    let (_world, mut sim, runs) = settled();
    goes_quiet(&mut sim, &runs, 0, 10);
    // Added while the bot is quiet (the runner plans once; a busy tick looks again).
    sim.app.add_systems(Last, count_last);
    quiet_ticks(&mut sim, 10);
    sim.command(r#"{"action":"pos"}"#);
    sim.ticks(clawcraft::core::gate::BUSY_AFTER_WORK as usize + 2);
    runs.take();
    edge_runs(&runs);
    quiet_ticks(&mut sim, 30);
    assert_eq!(runs.take(), (0, 30), "quiet for clawcraft's own work");
    assert_eq!(runs.last.swap(0, Ordering::SeqCst), 30, "the added Last system runs in every tick");
    assert_eq!(sim.warnings(), 0);
}
