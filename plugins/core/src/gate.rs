//! What lets an idle tick do almost nothing: quiet ticks, and run conditions inside busy ones.
//!
//! An idle bot runs its tick from cold caches (it slept 50 ms), so every system that runs — and
//! every run condition, which bevy evaluates in every schedule run, even under a set whose own
//! condition is false — costs microseconds even when it has nothing to do. So:
//!
//! - **Quiet ticks.** clawcraft's plugins do their packet, command and action work in the
//!   [`TickWork`] schedule, which a tick runs only when some plugin has work for it: packets
//!   arrived, a command waits, an action runs, or a plugin's [work check](AppWorkExt) says so
//!   (a pending timeout, a queued job). [`QuietTicks`] makes that decision once per tick with
//!   plain functions, not systems; the tick after work stays busy for [`BUSY_AFTER_WORK`] more
//!   ticks, so messages written late in a busy tick are read before they expire. A quiet tick
//!   runs only what must run every tick: `PreUpdate` (receive), `Update` (user systems; empty
//!   in the harness, so skipped), `PostUpdate` (the physics step, the input packet, send).
//!   `Last` (output) and `First` (bevy's message update) run in busy ticks, and when output
//!   waits — while all the main schedules' systems are clawcraft's own ([`QuietAware`]); with a
//!   system of the user's in any of them, `First` and `Last` run in every tick.
//! - **Settled ticks.** A quiet tick of bots that stand still and hear nothing runs none of those
//!   schedules: the runner does their work itself while every system in them is one it stands in
//!   for ([`Settled`]).
//! - **Gates inside a busy tick.** Systems are gated on the input they act on — packets that
//!   arrived ([`Gate::Packets`]), actions that run ([`Gate::Actions`]).
//!
//! A gated system that reads messages must be gated on those messages too (bevy's
//! `on_message`): a skipped reader does not advance its cursor, so gating it on anything else
//! could let it miss messages or read stale ones later.

use bevy_ecs::message::{MessageRegistry, Messages, ShouldUpdateMessages};
use bevy_ecs::prelude::*;
use bevy_ecs::query::{QueryItem, ReadOnlyQueryData};
use bevy_ecs::schedule::{ScheduleLabel, SystemSet};

use crate::action::ActiveActions;
use crate::command::PendingCommands;

/// Shared gates, each one condition evaluated once per schedule run for every system in it
/// (a condition per system would cost nearly what it saves).
#[derive(SystemSet, Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Gate {
    /// Runs only in ticks where packets arrived: packet handlers (and what only a packet can
    /// give work to).
    Packets,
    /// Runs while an action runs, and in ticks where packets arrived (so readers of the tick's
    /// packets and of the messages handlers derive from them never fall behind).
    Actions,
    /// The channel readers (stdin, TCP, MCP, signals), first in `TickWork`: a channel that
    /// delivers a line wakes the runner ([`CommandWaker::wake`](crate::CommandWaker)), which
    /// makes the tick busy.
    Channels,
}

/// clawcraft's own systems in the main schedules: each either runs in every tick by design (the
/// receive, the physics step, the input packet, the send) or has nothing to do in a quiet tick
/// (the output systems of `Last`). While every system of `First`, `PreUpdate`, `Update`,
/// `PostUpdate` and `Last` is in this set, quiet ticks skip `First` and `Last` (see the
/// [module](self) docs); a system outside it — a user's — makes them run in every tick again, so
/// it runs every tick and the messages it writes are updated (bevy's message update in `First`)
/// as under bevy's own main schedule. `TickWork`, clawcraft's own schedule, still runs only in
/// busy ticks.
#[derive(SystemSet, Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct QuietAware;

/// The every-tick systems (`PreUpdate`, `Update`, `PostUpdate`) a **settled tick** stands in for.
/// A settled tick is a quiet one (the last tick was quiet too) in which every bot is spawned and
/// connected, nothing arrived, the movement step repeats the last one and the PlayerAuthInput
/// repeats but for its tick: an idle bot's tick. While every system of those schedules is in
/// this set, such a tick runs no schedule: the runner receives, repeats the step, sends the
/// input and flushes itself (`clawcraft::LeanMainPlugin`), which spares an idle tick the
/// schedules' bookkeeping, from cold caches. A system belongs here only if in such a tick it
/// does nothing, or only that: the receive, the physics step, the input packet, the send and the
/// tick count are clawcraft's; the reconnect systems wait for a lost connection. A system
/// outside it (a user's) makes every tick run the schedules.
#[derive(SystemSet, Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Settled;

/// On every bot (required by [`LocalBot`](crate::LocalBot)): `true` while the runner did this
/// bot's tick itself this update — a settled bot (see [`Settled`]), whose input already left.
/// The every-tick systems (receive, physics step, input) skip it; the send only flushes what
/// the tick's work queued for it after that. Cleared when the update ends.
#[derive(Component, Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct SettledBot(pub bool);

impl SettledBot {
    /// The runner did this bot's tick this update.
    pub fn this_tick(settled: Option<&SettledBot>) -> bool {
        settled.is_some_and(|s| s.0)
    }
}

/// What the network plugin drained for this tick (every bot together).
#[derive(Resource, Debug, Default, Clone, Copy)]
pub struct Arrivals {
    /// Packets received.
    pub packets: usize,
    /// Connections that closed.
    pub closed: usize,
}

/// Packets arrived this tick.
pub fn packets_arrived(arrivals: Res<Arrivals>) -> bool {
    arrivals.packets > 0
}

/// Commands wait in the queue (an agent's or a plugin's).
pub fn commands_pending(pending: Res<PendingCommands>, typed: Res<crate::bot_commands::TypedCommands>) -> bool {
    !pending.0.is_empty() || !typed.is_empty()
}

/// The tick the last action ended (its component was removed then).
#[derive(Resource, Debug, Default, Clone, Copy)]
pub struct LastActionEnd(pub Option<u64>);

impl LastActionEnd {
    /// An action ended in tick `tick` or the one before.
    pub fn lately(&self, tick: u64) -> bool {
        self.0.is_some_and(|t| tick <= t.saturating_add(1))
    }
}

/// An action ended this tick or the last one: the systems that clean up after an ended action
/// (they read `RemovedComponents`, which keep a removal for two updates) have work.
pub fn action_ended_lately(ended: Option<Res<LastActionEnd>>, ticks: Res<crate::action::TickCount>) -> bool {
    ended.is_some_and(|e| e.lately(ticks.0))
}

/// Some bot runs an action (its [`ActiveActions`] has a slot taken).
pub fn any_action_active(bots: Query<&ActiveActions>) -> bool {
    bots.iter().any(|a| !a.slots.is_empty())
}

/// An action runs or packets arrived: the condition of [`Gate::Actions`], as one system (a
/// combinator such as `or_else` runs as three, and every condition runs in every tick).
pub fn actions_or_packets(arrivals: Res<Arrivals>, bots: Query<&ActiveActions>) -> bool {
    arrivals.packets > 0 || any_action_active(bots)
}

/// Configures the [`Gate`] sets in the schedules that use them.
pub(crate) fn configure(app: &mut bevy_app::App) {
    for schedule in [TickWork.intern(), bevy_app::Update.intern(), bevy_app::Last.intern()] {
        app.configure_sets(schedule, Gate::Packets.run_if(packets_arrived))
            .configure_sets(schedule, Gate::Actions.run_if(actions_or_packets));
    }
    app.configure_sets(TickWork, Gate::Channels.before(crate::TickSet::HandlePackets));
    // Held by the check itself: an idle tick looks up no resource for it.
    let waker = app.world().resource::<crate::CommandWaker>().clone();
    app.init_resource::<WorkChecks>()
        .add_work_check("network input", |w| {
            let arrivals = w.resource::<Arrivals>();
            arrivals.packets > 0 || arrivals.closed > 0
        })
        .add_work_check("commands waiting", |w| {
            !w.resource::<PendingCommands>().0.is_empty()
                || !w.resource::<crate::bot_commands::TypedCommands>().is_empty()
        })
        // A thread handed the tick work since the last one (a channel line, a finished run).
        .add_work_check("woken", move |_| waker.take_arrived())
        .add_pending_work("action running", any_bot::<&ActiveActions>(|a| !a.slots.is_empty()))
        // The cleanup systems of an ended action (see `action_ended_lately`).
        .add_pending_work("action ended", |w| {
            w.resource::<LastActionEnd>().lately(w.resource::<crate::action::TickCount>().0)
        });
}

/// The schedule of clawcraft's own work in a tick — packet handlers, commands, actions
/// ([`TickSet::HandlePackets`](crate::TickSet) to [`TickSet::Actions`](crate::TickSet)) — run
/// after `PreUpdate` and before `Update`, only in busy ticks (see the [module](self) docs).
/// `Update` runs every tick after it, with the same sets configured, for user systems; then
/// `PostUpdate` builds the input ([`TickSet::Input`](crate::TickSet)) and sends.
#[derive(ScheduleLabel, Debug, Clone, PartialEq, Eq, Hash)]
pub struct TickWork;

/// How many ticks after one with work still run as busy ticks.
pub const BUSY_AFTER_WORK: u8 = 2;

/// A plugin's answer to "is there work for this tick?" (see [`AppWorkExt::add_work_check`]).
pub type WorkCheck = Box<dyn FnMut(&mut World) -> bool + Send + Sync>;

/// The registered work checks, in registration order.
#[derive(Resource, Default)]
pub struct WorkChecks {
    every_tick: Vec<(&'static str, WorkCheck)>,
    pending: Vec<(&'static str, WorkCheck)>,
}

/// Registers what makes a tick busy: [`TickWork`] and `Last` run in a tick when a check says
/// yes. Checks are plain functions run in order until one says yes: keep each to a resource or
/// component look-up (an idle tick starts from cold caches, and every check's code and data is
/// fetched again).
pub trait AppWorkExt {
    /// Work that can appear while the bot is quiet — from a thread, a channel, the clock (a
    /// finished external run, a due sweep): checked in every tick.
    fn add_work_check(
        &mut self,
        name: &'static str,
        check: impl FnMut(&mut World) -> bool + Send + Sync + 'static,
    ) -> &mut Self;

    /// Work left pending by a busy tick — a timeout to expire, a queue to drive, a bot still
    /// moving: checked after each busy tick, and the ticks stay busy while it says yes. Only
    /// busy ticks (packets, commands, actions) create such work, so a quiet bot skips these
    /// checks.
    fn add_pending_work(
        &mut self,
        name: &'static str,
        check: impl FnMut(&mut World) -> bool + Send + Sync + 'static,
    ) -> &mut Self;
}

impl AppWorkExt for bevy_app::App {
    fn add_work_check(
        &mut self,
        name: &'static str,
        check: impl FnMut(&mut World) -> bool + Send + Sync + 'static,
    ) -> &mut Self {
        self.world_mut().get_resource_or_init::<WorkChecks>().every_tick.push((name, Box::new(check)));
        self
    }

    fn add_pending_work(
        &mut self,
        name: &'static str,
        check: impl FnMut(&mut World) -> bool + Send + Sync + 'static,
    ) -> &mut Self {
        self.world_mut().get_resource_or_init::<WorkChecks>().pending.push((name, Box::new(check)));
        self
    }
}

/// Messages of type `T` are in either of bevy's two buffers (written this tick or the last).
pub fn messages_waiting<T: Message>(world: &mut World) -> bool {
    world.get_resource::<Messages<T>>().is_some_and(|m| !m.is_empty())
}

/// Events or responses wait for `Last` to write them.
pub fn output_waiting(world: &mut World) -> bool {
    messages_waiting::<crate::AgentEvent>(world) || messages_waiting::<crate::CommandResponse>(world)
}

/// A work check true when some entity's `D` (a component, or a tuple of them) passes `pred`; its
/// query state is kept between ticks.
pub fn any_bot<D>(
    pred: impl for<'w, 's> Fn(QueryItem<'w, 's, D>) -> bool + Send + Sync + 'static,
) -> impl FnMut(&mut World) -> bool
where
    D: ReadOnlyQueryData + 'static,
{
    let mut state: Option<QueryState<D>> = None;
    move |world| {
        let state = state.get_or_insert_with(|| world.query::<D>());
        state.iter(world).any(&pred)
    }
}

/// A work check true while some entity has a `C`.
pub fn any_with<C: Component>() -> impl FnMut(&mut World) -> bool {
    any_bot::<&C>(|_| true)
}

/// The tick's busy-or-quiet decision (held by the runner's main schedule across ticks).
#[derive(Default)]
pub struct QuietTicks {
    checks: WorkChecks,
    /// Busy ticks still owed after the last one with work.
    owed: u8,
    /// The last tick was busy: the pending-work checks run in this one.
    after_busy: bool,
    /// The last tick was busy or wrote output: its messages are due for bevy's update.
    messages_due: bool,
    taken: bool,
}

impl QuietTicks {
    /// The last tick was quiet (and had no output): this one may be a settled tick (see
    /// [`Settled`]).
    pub fn was_quiet(&self) -> bool {
        self.taken && !self.after_busy && !self.messages_due && self.owed == 0
    }

    /// Before `First`: whether it runs. `First` holds bevy's message update, which runs only
    /// after a busy tick (or output), so an idle tick does not walk every message type.
    pub fn before_first(&mut self, world: &mut World) -> bool {
        if !self.taken {
            self.taken = true;
            self.checks = world.remove_resource::<WorkChecks>().unwrap_or_default();
            self.messages_due = true;
            self.after_busy = true;
        }
        // bevy's message update sets it back to `Waiting` after it ran, so a quiet tick (which
        // skips `First`) need not touch it.
        if self.messages_due
            && let Some(mut registry) = world.get_resource_mut::<MessageRegistry>()
        {
            registry.should_update = ShouldUpdateMessages::Ready;
        }
        self.messages_due
    }

    /// After `PreUpdate` (packets received, channels read): is this a busy tick?
    pub fn busy(&mut self, world: &mut World) -> bool {
        let WorkChecks { every_tick, pending } = &mut self.checks;
        let fired = every_tick.iter_mut().find_map(|(name, check)| check(world).then_some(*name)).or_else(|| {
            self.after_busy
                .then(|| pending.iter_mut().find_map(|(name, check)| check(world).then_some(*name)))
                .flatten()
        });
        if let Some(check) = fired {
            tracing::trace!(check, "busy tick");
        }
        let work = fired.is_some();
        let busy = if work {
            self.owed = BUSY_AFTER_WORK;
            true
        } else if self.owed > 0 {
            self.owed -= 1;
            true
        } else {
            false
        };
        self.after_busy = busy;
        self.messages_due = busy;
        busy
    }

    /// Before `Last`: it runs in a busy tick, and in a quiet one whose systems wrote output
    /// (an event of the physics step, a parse error from a channel); the next tick then updates
    /// the messages.
    pub fn wants_last(&mut self, world: &mut World, busy: bool) -> bool {
        let last = busy || output_waiting(world);
        self.messages_due |= last;
        last
    }
}
