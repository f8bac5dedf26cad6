//! clawcraft: a headless Bevy app that lets an AI agent live in Minecraft Bedrock.
//!
//! [`ClawcraftPlugins`] gathers one plugin per concern; trim it like any `PluginGroup`.
//! [`run_ticks`] is the runner: one `App::update` per 20 Hz game tick, sleeping in between.

pub mod cli;
pub mod config;
pub mod doctor;
pub mod footprint;
pub mod online;
pub mod reconnect;
pub mod settled;
pub mod sim;
pub mod simworld;
pub mod status;
pub mod swarm;

use std::net::{SocketAddr, ToSocketAddrs};
use std::sync::Arc;
use std::time::{Duration, Instant};

use bevy_app::{App, AppExit, PluginGroup, PluginGroupBuilder};
use bevy_ecs::prelude::*;
use clawcraft_core::{
    BotStats, CommandBudget, CorePlugin, Interim, Lifecycle, LocalBot, QuietTicks, TickWork, WakeSignal,
};
use clawcraft_network::{Connection, NetworkPlugin, Transport};
use clawcraft_player::{JoinProgress, PlayerPlugin};
use clawcraft_protocol::codec::Protocol;
use clawcraft_world::WorldPlugin;

pub use clawcraft_chat as chat;
pub use clawcraft_combat as combat;
pub use clawcraft_containers as containers;
pub use clawcraft_core as core;
pub use clawcraft_entity as entity;
pub use clawcraft_farming as farming;
pub use clawcraft_gather as gather;
pub use clawcraft_interact as interact;
pub use clawcraft_inventory as inventory;
pub use clawcraft_io as io;
pub use clawcraft_io::IoPlugin;
pub use clawcraft_map as map;
pub use clawcraft_movement as movement;
pub use clawcraft_network as network;
pub use clawcraft_pathfind as pathfind;
pub use clawcraft_player as player;
pub use clawcraft_protocol as protocol;
pub use clawcraft_skills as skills;
pub use clawcraft_team as team;
pub use clawcraft_view as view;
pub use clawcraft_vitals as vitals;
pub use clawcraft_world as world;

/// One game tick: Bedrock runs at 20 Hz.
pub const TICK: Duration = Duration::from_millis(50);

/// Every plugin of a bot, without the I/O channels (add [`IoPlugin`] for stdin/stdout).
pub struct ClawcraftPlugins;

impl PluginGroup for ClawcraftPlugins {
    fn build(self) -> PluginGroupBuilder {
        PluginGroupBuilder::start::<Self>()
            .add(LeanMainPlugin)
            .add(CorePlugin)
            .add(NetworkPlugin)
            .add(PlayerPlugin)
            .add(WorldPlugin)
            .add(clawcraft_entity::EntityPlugin)
            .add(status::StatusPlugin)
            .add(clawcraft_chat::ChatPlugin)
            .add(clawcraft_vitals::VitalsPlugin)
            .add(clawcraft_movement::MovementPlugin)
            .add(online::OnlineAuthPlugin)
            .add(clawcraft_skills::SkillsPlugin)
            .add(clawcraft_pathfind::NavigationPlugin)
            .add(clawcraft_inventory::InventoryPlugin)
            .add(clawcraft_interact::InteractPlugin)
            .add(clawcraft_combat::CombatPlugin)
            .add(reconnect::ReconnectPlugin)
            .add(swarm::SwarmPlugin)
            .add(clawcraft_containers::ContainersPlugin)
            .add(clawcraft_farming::FarmingPlugin)
            .add(clawcraft_gather::GatherPlugin)
            .add(clawcraft_team::TeamPlugin)
            .add(clawcraft_view::ViewPlugin)
            .add(footprint::FootprintPlugin)
    }
}

/// Runs the main schedules of a tick without bevy's `Main` facilitator: the same labels in the
/// same order ([`MainScheduleOrder`], read once after the app is built), minus those with no
/// systems, plus [`TickWork`] after `PreUpdate`. `Main` borrows the order through
/// `resource_scope`, which moves a resource out of the world and back every update, and runs
/// empty schedules: bookkeeping an idle tick, which does almost nothing else, should not pay.
///
/// A **quiet tick** — no plugin has work ([`QuietTicks`], see `clawcraft_core::gate`) — skips
/// `TickWork`, `Last` and `First` (bevy's message update): it receives, steps the physics, sends
/// the input packet and sleeps. Every `PreUpdate`, `Update` and `PostUpdate` system still runs in
/// every tick, and so do `First` and `Last` once any main schedule holds a system that is not
/// clawcraft's own ([`QuietAware`](clawcraft_core::gate::QuietAware)): a user's system there runs
/// every tick, and the messages it writes are updated as under bevy's own main schedule. The
/// tick advances `TickCount` itself before `PreUpdate` ([`clawcraft_core::RunnerCountsTicks`]):
/// one system less per tick.
///
/// A **settled tick** — an idle bot's: quiet after a quiet one, every bot standing and
/// connected, nothing arrived — runs no schedule: [`settled`] does the receive, the repeated
/// physics step, the input packet and the send itself, while every system of `PreUpdate`,
/// `Update` and `PostUpdate` is one it stands in for
/// ([`Settled`](clawcraft_core::gate::Settled)); a system of yours there makes every tick run the
/// schedules.
///
/// [`MainScheduleOrder`]: bevy_app::MainScheduleOrder
pub struct LeanMainPlugin;

/// The schedule an `App::update` runs (see [`LeanMainPlugin`]).
#[derive(bevy_ecs::schedule::ScheduleLabel, Debug, Clone, PartialEq, Eq, Hash)]
pub struct LeanMain;

impl bevy_app::Plugin for LeanMainPlugin {
    fn build(&self, app: &mut App) {
        let tick = LeanTick::default();
        let mut schedule = bevy_ecs::schedule::Schedule::new(LeanMain);
        schedule.set_executor(bevy_ecs::schedule::SingleThreadedExecutor::new());
        let run = tick.clone();
        schedule.add_systems(move |world: &mut World| run.run(world));
        app.add_schedule(schedule).insert_resource(tick);
        // The tick counts itself (one system less per tick) — unless a `CorePlugin` built
        // earlier already added its counting system.
        if !app.is_plugin_added::<CorePlugin>() {
            app.insert_resource(clawcraft_core::RunnerCountsTicks);
        }
        app.main_mut().update_schedule = Some(bevy_ecs::schedule::ScheduleLabel::intern(&LeanMain));
    }
}

/// One tick of an app with [`LeanMainPlugin`]: what its `App::update` runs (the `LeanMain`
/// schedule's one system calls it), callable without that schedule around it. The runner
/// ([`run_ticks`]) calls it directly, through [`LeanTick::update`]: bevy's update would take
/// `LeanMain` out of the schedule map and put it back and run an executor pass over its one
/// system — per tick, from cold caches, for nothing. Both paths share the tick's state, so they
/// can be mixed.
#[derive(Resource, Clone, Default)]
pub struct LeanTick(Arc<std::sync::Mutex<LeanState>>);

#[derive(Default)]
struct LeanState {
    plan: Option<TickPlan>,
    quiet: QuietTicks,
    /// The every-tick schedules while the runner holds them (see [`LeanTick::update`]).
    held: Vec<Schedule>,
    /// The settled tick's queries, made with the plan.
    settled: Option<settled::SettledTick>,
}

impl LeanTick {
    fn lock(&self) -> std::sync::MutexGuard<'_, LeanState> {
        self.0.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// The tick as the `LeanMain` system runs it: every schedule from bevy's schedule map.
    fn run(&self, world: &mut World) {
        let mut state = self.lock();
        state.release(world);
        state.run(world);
    }

    /// One update of `app`, as `App::update` runs it for an app without sub-apps (with them it is
    /// `App::update`): the tick, then bevy's per-update reset (removed-component buffers, the
    /// change tick).
    ///
    /// Between these updates only the runner touches the app, so from the second one on the
    /// schedules every tick runs (`PreUpdate`, `Update`, `PostUpdate`) stay out of bevy's
    /// schedule map, held here: `World::run_schedule` would take each out of the map and put it
    /// back (two hash-map moves of the schedule and its bookkeeping, twice per tick). They go
    /// back before anything else may look: [`LeanTick::release`], an `App::update`, a re-plan.
    /// While held, a system cannot run them itself with `World::run_schedule`.
    pub fn update(&self, app: &mut App) {
        if !app.sub_apps().sub_apps.is_empty() {
            app.update();
            return;
        }
        let world = app.world_mut();
        {
            let mut state = self.lock();
            state.hold(world);
            state.run(world);
        }
        // What an exclusive system's run ends with, then what `App::update` ends with.
        world.flush();
        world.clear_trackers();
    }

    /// Puts the held schedules back into bevy's schedule map.
    pub fn release(&self, world: &mut World) {
        self.lock().release(world);
    }

    /// Whether the plan lets an idle bot's tick run settled: every system of the every-tick
    /// schedules is one a settled tick stands in for (see [`settled`]). `false` before the first
    /// tick.
    pub fn may_settle(&self) -> bool {
        self.lock().plan.as_ref().is_some_and(|p| p.settles)
    }

    /// How many ticks ran as settled ticks, with no schedule (see [`settled`]).
    pub fn settled_ticks(&self) -> u64 {
        self.lock().settled.as_ref().map_or(0, |s| s.count)
    }

    /// How many bot ticks the runner did itself: a settled bot in any tick, also one whose
    /// schedules ran for other bots (see [`settled`]).
    pub fn settled_bot_ticks(&self) -> u64 {
        self.lock().settled.as_ref().map_or(0, |s| s.bot_ticks)
    }
}

impl LeanState {
    fn run(&mut self, world: &mut World) {
        let LeanState { plan, quiet, held, settled } = self;
        let mut busy = None;
        if plan.as_ref().is_some_and(|p| p.settles) {
            let tick = settled.get_or_insert_with(|| settled::SettledTick::new(world));
            match tick.run(world, quiet) {
                settled::Outcome::Done => {
                    tick.unmark(world);
                    return;
                }
                settled::Outcome::Full { busy: decided } => busy = decided,
            }
        }
        run_lean_main(world, plan, quiet, held, busy);
        if let Some(tick) = settled {
            tick.unmark(world);
        }
    }

    /// Takes the every-tick schedules out of the map (once the plan exists).
    fn hold(&mut self, world: &mut World) {
        let (Some(plan), true) = (&self.plan, self.held.is_empty()) else { return };
        if let Some(mut schedules) = world.get_resource_mut::<bevy_ecs::schedule::Schedules>() {
            self.held = plan.receive.iter().chain(&plan.every).filter_map(|l| schedules.remove(*l)).collect();
        }
    }

    fn release(&mut self, world: &mut World) {
        release_held(world, &mut self.held);
    }
}

/// Puts `held` schedules back into bevy's schedule map.
fn release_held(world: &mut World, held: &mut Vec<Schedule>) {
    if held.is_empty() {
        return;
    }
    let mut schedules = world.get_resource_or_init::<bevy_ecs::schedule::Schedules>();
    for schedule in held.drain(..) {
        if schedules.insert(schedule).is_some() {
            tracing::warn!("a held main schedule was re-created while held; its new systems are dropped");
        }
    }
}

/// The labels a tick runs, in order, split where the quiet-tick decision is made.
struct TickPlan {
    /// `First` (bevy's message update): when messages are due.
    first: Option<InternedScheduleLabel>,
    /// `PreUpdate` (and anything between): every tick.
    receive: Vec<InternedScheduleLabel>,
    /// `TickWork`: busy ticks only.
    work: Option<InternedScheduleLabel>,
    /// `Update` and `PostUpdate` (and anything between): every tick.
    every: Vec<InternedScheduleLabel>,
    /// `Last` (and anything after): busy ticks, or when output waits.
    output: Vec<InternedScheduleLabel>,
    /// Every main label with its number of systems when the plan was made: a busy tick re-plans
    /// when one changed, so systems added after the first tick run (from the next busy tick).
    sizes: Vec<(InternedScheduleLabel, usize)>,
    /// Some main schedule holds a system not in [`QuietAware`](clawcraft_core::gate::QuietAware)
    /// (a user's): `First` and `Last` run in every tick.
    foreign: bool,
    /// [`clawcraft_core::RunnerCountsTicks`]: the tick advances `TickCount` before `PreUpdate`.
    counts_ticks: bool,
    /// Every system of the every-tick schedules (`receive` and `every`) is in
    /// [`Settled`](clawcraft_core::gate::Settled), and none is foreign: an idle bot's tick may
    /// run as a settled tick (see [`settled`]).
    settles: bool,
}

use bevy_ecs::schedule::{InternedScheduleLabel, InternedSystemSet, Schedule, ScheduleLabel as _};

/// Runs `label`: a held schedule directly, any other from bevy's schedule map.
fn run_label(world: &mut World, held: &mut [Schedule], label: InternedScheduleLabel) {
    match held.iter_mut().find(|s| s.label() == label) {
        Some(schedule) => schedule.run(world),
        None => {
            let _ = world.try_run_schedule(label);
        }
    }
}

/// Startup labels once, then one tick of the main labels that have systems. `busy`: the quiet-tick
/// decision when the settled tick already made it (it is made once per tick).
fn run_lean_main(
    world: &mut World,
    plan: &mut Option<TickPlan>,
    quiet: &mut QuietTicks,
    held: &mut Vec<Schedule>,
    busy: Option<bool>,
) {
    let plan = plan.get_or_insert_with(|| {
        let startup = world.resource::<bevy_app::MainScheduleOrder>().startup_labels.clone();
        for label in startup {
            let _ = world.try_run_schedule(label);
        }
        plan_ticks(world)
    });
    // A tick the settled tick already decided followed a quiet one, so no messages were due
    // then: `First` stays out (`QuietTicks::busy` has since marked them due for the next tick).
    if busy.is_none()
        && quiet.before_first(world)
        && let Some(first) = plan.first
    {
        let _ = world.try_run_schedule(first);
    }
    if plan.counts_ticks {
        clawcraft_core::advance_tick_count(world);
    }
    for &label in &plan.receive {
        run_label(world, held, label);
    }
    let busy = busy.unwrap_or_else(|| quiet.busy(world));
    if busy {
        if plan_outdated(world, held, plan) {
            // The plan is made from the whole map: the held schedules go back first (the
            // runner takes them again next tick).
            release_held(world, held);
            *plan = plan_ticks(world);
        }
        if let Some(work) = plan.work {
            let _ = world.try_run_schedule(work);
        }
    }
    for &label in &plan.every {
        run_label(world, held, label);
    }
    if quiet.wants_last(world, busy || plan.foreign) {
        for &label in &plan.output {
            let _ = world.try_run_schedule(label);
        }
    }
}

/// A main schedule's number of systems changed since `plan` was made.
fn plan_outdated(world: &World, held: &[Schedule], plan: &TickPlan) -> bool {
    let schedules = world.resource::<bevy_ecs::schedule::Schedules>();
    plan.sizes.iter().any(|&(label, n)| {
        let schedule = held.iter().find(|s| s.label() == label).or_else(|| schedules.get(label));
        schedule.map_or(0, Schedule::systems_len) != n
    })
}

/// Builds the schedules of `labels` (a built one is kept; the sets' members are known only
/// then, and the numbers of systems the plan records stay put) and tells whether one of them —
/// `TickWork` aside, clawcraft's own schedule — holds a system outside
/// [`QuietAware`](clawcraft_core::gate::QuietAware): a user's.
fn build_and_find_foreign(world: &mut World, labels: &[InternedScheduleLabel]) -> bool {
    let mut foreign = false;
    for &label in labels {
        // Out of the map while it is built (building may add resources).
        let found = world.try_schedule_scope(label, |world, schedule| {
            if schedule.systems_len() == 0 {
                return false;
            }
            if let Err(e) = schedule.initialize(world) {
                tracing::warn!(?label, error = %e.to_string(schedule.graph(), world), "main schedule does not build");
                return true;
            }
            label != TickWork.intern() && holds_foreign(schedule, label)
        });
        foreign |= found.unwrap_or(false);
    }
    foreign
}

/// A built schedule holds a system neither clawcraft's own nor bevy's.
fn holds_foreign(schedule: &Schedule, label: InternedScheduleLabel) -> bool {
    use bevy_ecs::schedule::SystemSet as _;
    let graph = schedule.graph();
    let members = |set: InternedSystemSet| graph.systems_in_set(set).ok();
    let own = members(clawcraft_core::gate::QuietAware.intern());
    let message_update = (label == bevy_app::First.intern())
        .then(|| members(bevy_ecs::message::MessageUpdateSystems.intern()))
        .flatten();
    let known =
        |key: bevy_ecs::schedule::SystemKey| [own, message_update].into_iter().flatten().any(|s| s.contains(&key));
    let Ok(mut systems) = schedule.systems() else { return true };
    systems.any(|(key, system)| !known(key) && !bevy_builtin(system.system_type()))
}

/// Systems bevy itself adds to the main schedules: its sync points (`ApplyDeferred`, between
/// ordered systems) and its clean-up of unregistered one-shot systems (work only after commands,
/// which run in busy ticks).
fn bevy_builtin(system: std::any::TypeId) -> bool {
    fn type_of<T: 'static>(_: &T) -> std::any::TypeId {
        std::any::TypeId::of::<T>()
    }
    let cleanup = IntoSystem::into_system(bevy_ecs::system::despawn_unused_registered_systems);
    system == std::any::TypeId::of::<bevy_ecs::schedule::ApplyDeferred>() || system == type_of(&cleanup)
}

/// Splits the main order into a [`TickPlan`].
fn plan_ticks(world: &mut World) -> TickPlan {
    let main = world.resource::<bevy_app::MainScheduleOrder>().labels.clone();
    let foreign = build_and_find_foreign(world, &main);
    let schedules = world.resource::<bevy_ecs::schedule::Schedules>();
    let has_systems = |l: &InternedScheduleLabel| schedules.get(*l).is_some_and(|s| s.systems_len() > 0);
    let (first, work) = (bevy_app::First.intern(), TickWork.intern());
    // `TickWork` sits after `PreUpdate` in the order (for bevy's own `Main`); here it is run
    // apart, in busy ticks only, and `First` when messages are due.
    let main: Vec<_> = main.into_iter().filter(|l| *l != work && *l != first).collect();
    let split = |at: InternedScheduleLabel| main.iter().position(|l| *l == at).unwrap_or(main.len());
    let (after_receive, last) = (split(bevy_app::PreUpdate.intern()) + 1, split(bevy_app::Last.intern()));
    let pick = |range: std::ops::Range<usize>| main[range].iter().copied().filter(has_systems).collect::<Vec<_>>();
    let receive = pick(0..after_receive.min(main.len()));
    let every = pick(after_receive.min(last)..last);
    TickPlan {
        first: Some(first).filter(has_systems),
        work: Some(work).filter(has_systems),
        output: pick(last..main.len()),
        sizes: main
            .iter()
            .chain([&first, &work])
            .map(|l| (*l, schedules.get(*l).map_or(0, Schedule::systems_len)))
            .collect(),
        settles: !foreign && receive.iter().chain(&every).all(|l| schedules.get(*l).is_none_or(only_settled)),
        receive,
        every,
        foreign,
        counts_ticks: world.contains_resource::<clawcraft_core::RunnerCountsTicks>(),
    }
}

/// A built schedule holds only systems a settled tick stands in for (and bevy's own).
fn only_settled(schedule: &Schedule) -> bool {
    use bevy_ecs::schedule::SystemSet as _;
    let Ok(settled) = schedule.graph().systems_in_set(clawcraft_core::gate::Settled.intern()) else { return false };
    let Ok(mut systems) = schedule.systems() else { return false };
    systems.all(|(key, system)| settled.contains(&key) || bevy_builtin(system.system_type()))
}

/// The components a new bot entity starts with.
pub fn bot_bundle(username: &str, transport: Box<dyn Transport>, protocol: Arc<Protocol>) -> impl Bundle {
    (
        LocalBot { username: username.to_owned() },
        Lifecycle::Connecting,
        JoinProgress::default(),
        BotStats::default(),
        Connection::new(transport, protocol),
    )
}

/// The offline login shape to send (`--offline-login`, `CLAWCRAFT_OFFLINE_LOGIN`; `auto` when
/// absent). Read by every connection the app opens, reconnects included; ignored online.
#[derive(Resource, Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct OfflineLoginSetting(pub clawcraft_protocol::login::OfflineLogin);

/// Resolves `host:port`, preferring IPv4.
pub fn resolve(host: &str, port: u16) -> std::io::Result<SocketAddr> {
    let addrs: Vec<SocketAddr> = (host, port).to_socket_addrs()?.collect();
    addrs
        .iter()
        .find(|a| a.is_ipv4())
        .or_else(|| addrs.first())
        .copied()
        .ok_or_else(|| std::io::Error::new(std::io::ErrorKind::NotFound, format!("cannot resolve {host}")))
}

/// Spawns `spec`'s bot and opens its connection (UDP, or a sign-in first in online mode): see
/// [`swarm::spawn_bot`].
pub fn connect_bot(app: &mut App, spec: swarm::BotSpec) -> std::io::Result<Entity> {
    swarm::spawn_bot(app.world_mut(), spec)
}

/// One between-ticks pass runs queries for at most this long, then writes their responses, so
/// answers flow out while a flood is still being worked off.
const INTERIM_SLICE: Duration = Duration::from_millis(4);
/// No query starts this close to the next tick, so the tick starts on time.
const TICK_MARGIN: Duration = Duration::from_millis(5);
/// Query time per tick period at most: under a flood the game thread still sleeps before each
/// tick, so the scheduler wakes it on time even on a busy machine, and other threads (the I/O
/// threads, the agent) keep their share of the CPU.
const QUERY_SHARE: Duration = Duration::from_millis(20);

/// The runner: one update per tick, sleeping to the next deadline (no busy loop). A tick that
/// overran is not made up in a burst: the schedule re-anchors, as a game client would.
///
/// Between ticks the runner waits on [`WakeSignal`]: when a channel delivers a command it runs
/// the [`Interim`] schedule, which answers queries at once (sub-millisecond) without advancing
/// the game. Query work has a time budget ([`CommandBudget`]): a pass stops starting queries at
/// its deadline and the rest wait, in order, for the next pass, so a flood of heavy queries
/// never delays the tick (and the PlayerAuthInput it sends).
pub fn run_ticks(mut app: App) -> AppExit {
    app.finish();
    app.cleanup();
    let wake = app.world().get_resource::<WakeSignal>().cloned();
    let lean = app.world().get_resource::<LeanTick>().cloned();
    let startup_pages = app.world().get_resource::<footprint::StartupPages>().cloned();
    let mut next = Instant::now();
    // The tick itself spends no query time (in `TickSet::Commands`), so its input leaves at once;
    // queries run in the gap after it (other commands still run in the tick). The deadline is
    // closed here and after each between-ticks pass, not before every tick, so an idle tick does
    // not touch the budget.
    set_budget(&mut app, next);
    loop {
        match &lean {
            Some(tick) => tick.update(&mut app),
            None => app.update(),
        }
        if let Some(exit) = app.should_exit() {
            if let Some(tick) = &lean {
                tick.release(app.world_mut());
            }
            return exit;
        }
        if startup_pages.as_ref().is_some_and(footprint::StartupPages::tick) {
            let released = footprint::release_startup_pages();
            tracing::debug!(
                code_bytes = released.code_bytes,
                heap_trimmed = released.heap_trimmed,
                "start-up pages released"
            );
        }
        next += TICK;
        let mut spent = Duration::ZERO;
        // Queries the last pass (or the tick) left: read once per tick and after each pass.
        let mut more = queries_left(&app);
        // Before spawn: let the network thread, just woken with this tick's batch, run before
        // query work (after spawn the tick sent it itself).
        if more {
            std::thread::yield_now();
        }
        // An observer (the live map) asked for a pass: it runs right after the tick, caches warm,
        // instead of waking the runner later.
        let mut observe = wake.as_ref().is_some_and(WakeSignal::take_after_tick);
        loop {
            let now = Instant::now();
            if now >= next {
                break;
            }
            let queries_end = next.checked_sub(TICK_MARGIN).unwrap_or(now);
            let may_query = spent < QUERY_SHARE && now < queries_end;
            let run = if (more && may_query) || std::mem::take(&mut observe) {
                // Queries left over from the last pass (keep working them off), or the observer's.
                true
            } else {
                let wait = next - now;
                match &wake {
                    Some(signal) => signal.wait_timeout(wait),
                    None => {
                        std::thread::sleep(wait);
                        false
                    }
                }
            };
            if run {
                // A pass always reads the channels and writes answers; it runs queries only
                // while this tick period has query time left.
                let start = Instant::now();
                let left = QUERY_SHARE.saturating_sub(spent).min(INTERIM_SLICE);
                set_budget(&mut app, if may_query { (start + left).min(queries_end) } else { start });
                app.world_mut().run_schedule(Interim);
                set_budget(&mut app, Instant::now());
                more = queries_left(&app);
                spent += start.elapsed();
                if let Some(exit) = app.should_exit() {
                    if let Some(tick) = &lean {
                        tick.release(app.world_mut());
                    }
                    return exit;
                }
            }
        }
        let now = Instant::now();
        if now - next > TICK * 10 {
            tracing::warn!(behind_ms = (now - next).as_millis() as u64, "tick loop fell behind; skipping ahead");
            next = now;
        }
    }
}

fn queries_left(app: &App) -> bool {
    app.world().get_resource::<CommandBudget>().is_some_and(|b| b.more)
}

fn set_budget(app: &mut App, deadline: Instant) {
    if let Some(mut budget) = app.world_mut().get_resource_mut::<CommandBudget>() {
        budget.deadline = Some(deadline);
    }
}
