//! The shared vocabulary of clawcraft's plugins.
//!
//! - [`TickSet`]: the named order of work inside one 20 Hz tick (one `App::update`), and
//!   [`Interim`], the small schedule that answers queries between ticks.
//! - [`bot`]: components that live on a bot's entity (one entity per connected bot), and how a
//!   request finds its bot by name.
//! - [`event`]: typed [`EventKind`]s carrying their bot, what the agent hears about, and the
//!   ordered [`AgentEvent`] stream they travel in.
//! - [`command`]: the command registry every plugin adds its agent commands to.
//! - [`bot_commands`]: commands started by plugins, typed end to end ([`BotCommands`],
//!   [`Answer`]).
//! - [`subscription`]: opt-in events.
//! - [`action`]: long-running actions as components while active, one completion event each,
//!   busy slots, `abort_*`, the watchdog and interruptions.
//! - [`stop`]: `stop`, every running action of the bot aborted at once (and its policies off).

pub mod action;
pub mod bot;
pub mod bot_commands;
pub mod builtin;
pub mod command;
pub mod danger;
pub mod event;
pub mod gate;
pub mod math;
pub mod probe;
pub mod stop;
pub mod subscription;
pub mod wait;

/// Paths the exported macros use.
#[doc(hidden)]
pub mod __private {
    pub use bevy_ecs::entity::Entity;
}

use bevy_app::{App, Last, Plugin, PostUpdate, PreUpdate, Update};
use bevy_ecs::prelude::*;
use bevy_ecs::schedule::{IntoScheduleConfigs, Schedule, ScheduleLabel, SystemSet};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};

pub use action::{
    Aborted, ActionDone, ActionSlot, ActionStatus, ActiveAction, ActiveActions, AppActionExt, AsyncAction, DoneOf,
    EndActionExt, Evidence, InterruptActions, Interruption, Outcome, RunnerCountsTicks, TickCount, abort_slot,
    advance_tick_count, default_interruption, end_action, start_action,
};
pub use bot::*;
pub use bot_commands::{Answer, BotCommands, CommandId, PLUGIN_ORIGIN};
pub use command::{
    AgentCommand, AppCommandExt, AsyncInfo, CommandBudget, CommandCtx, CommandEntry, CommandError, CommandRegistry,
    CommandRequest, CommandResponse, DEFAULT_RESPONSE_BUDGET, DeferredReply, Origin, PendingCommands, ResponseBudget,
    execute_commands, execute_queries, parse_request,
};
pub use danger::{DangerChange, DangerMode, DangerPolicy};
pub use event::{AgentEvent, AppEventExt, EventBatch, EventKind, EventRegistry, EventSink, publish_events};
pub use gate::{AppWorkExt, QuietTicks, TickWork};
pub use math::Vec3;
pub use probe::{EntitySight, GroundProbe, NamedCell, SightRay, SightedEntity, entity_on_ray, standing_on};
pub use stop::{AppPolicyExt, PolicySwitch, PolicySwitches, Stop, StopResponse, Stopped};
pub use subscription::{OptIn, Subscriptions};

/// A block, item or entity name without its `minecraft:` namespace (`minecraft:iron_sword` →
/// `iron_sword`), for matching against bare names in rule tables.
pub fn bare_name(name: &str) -> &str {
    name.strip_prefix("minecraft:").unwrap_or(name)
}

/// The order of work inside one tick. `Receive` runs in `PreUpdate`; `HandlePackets`, `Commands`
/// and `Actions` in [`TickWork`] (clawcraft's own systems, run in busy ticks only) and again in
/// `Update` (user systems, every tick); `Input` and `Send` in `PostUpdate`. A packet that
/// arrives before a tick is handled in that tick and everything it causes leaves in the same
/// tick's batch.
#[derive(SystemSet, Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TickSet {
    /// Network input: packets drained from the transport and written as messages.
    Receive,
    /// Packet handlers update bot state (position, world, entities, …).
    HandlePackets,
    /// Agent commands are executed against the updated state.
    Commands,
    /// Long-running actions advance one step.
    Actions,
    /// The tick's events are published to their typed messages and deferred answers of plugins'
    /// requests are delivered, so `Update` systems read them in the same tick.
    Publish,
    /// The per-tick input packet is built from the final state of the tick.
    Input,
    /// The tick's outgoing packets leave as one batch.
    Send,
}

/// Order inside [`TickSet::Actions`]: interruptions (death, teleport, disconnect, shutdown) end
/// what they end before anything steps, each action advances one tick, then the watchdog ends
/// the overdue ones. Action plugins put their per-tick systems in [`ActionSet::Step`].
#[derive(SystemSet, Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ActionSet {
    Interrupt,
    Step,
    Watchdog,
}

/// Order inside `Last`: events are published to their typed messages, then channels write the
/// output ([`LastSet::Output`], where the I/O plugin's sets go).
#[derive(SystemSet, Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum LastSet {
    Publish,
    Output,
}

/// A schedule run between ticks when a command arrives: channels drain their input, queries run,
/// responses go out. It never advances game state, so a tick stays a tick.
#[derive(ScheduleLabel, Debug, Clone, PartialEq, Eq, Hash)]
pub struct Interim;

/// Order inside [`Interim`].
#[derive(SystemSet, Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum InterimSet {
    /// Channels move arrived lines into [`PendingCommands`].
    Read,
    /// Queries run.
    Execute,
    /// Responses (and any events) are written out.
    Write,
}

/// Channels call [`CommandWaker::wake`] when a command arrives so the runner answers queries
/// without waiting for the next tick; any thread that hands the tick work (a finished external
/// run) calls it too, which makes the next tick a busy one (see [`gate`]).
#[derive(Resource, Clone)]
pub struct CommandWaker(Arc<Wake>);

impl CommandWaker {
    pub fn wake(&self) {
        self.0.arrived.store(true, Ordering::Release);
        if !self.0.pending.swap(true, Ordering::AcqRel)
            && let Some(t) = self.0.runner.get()
        {
            t.unpark();
        }
    }

    /// Asks for an [`Interim`] pass right after the next tick, without waking the runner and
    /// without handing the tick work: an observer that only reads state between ticks (the live
    /// map's snapshot) costs no wake-up of its own, and idle ticks stay quiet and settled.
    pub fn after_tick(&self) {
        self.0.after_tick.store(true, Ordering::Release);
    }

    /// Whether a channel woke the runner since the flag was last taken (without taking it).
    pub fn has_arrived(&self) -> bool {
        self.0.arrived.load(Ordering::Acquire)
    }

    /// Whether a channel woke the runner since the last call (the tick's
    /// [`Gate::Channels`](gate::Gate::Channels) readers run only then); clears the flag.
    pub fn take_arrived(&self) -> bool {
        self.0.arrived.load(Ordering::Acquire) && self.0.arrived.swap(false, Ordering::AcqRel)
    }
}

/// The runner's end of [`CommandWaker`]: a flag plus the waiting thread, so a wait is one futex
/// call (no spinning, which cost an idle bot a measurable share of its CPU).
#[derive(Resource, Clone)]
pub struct WakeSignal(Arc<Wake>);

#[derive(Default)]
struct Wake {
    /// For the runner's wait (cleared when it wakes).
    pending: AtomicBool,
    /// For the tick's channel readers (cleared when they run).
    arrived: AtomicBool,
    /// An observer's pass after the next tick ([`CommandWaker::after_tick`]).
    after_tick: AtomicBool,
    runner: OnceLock<std::thread::Thread>,
}

impl WakeSignal {
    /// Whether an observer asked for a pass after this tick ([`CommandWaker::after_tick`]);
    /// clears the request.
    pub fn take_after_tick(&self) -> bool {
        self.0.after_tick.load(Ordering::Acquire) && self.0.after_tick.swap(false, Ordering::AcqRel)
    }

    /// Waits until a channel wakes the runner or `timeout` passes; `true` when woken. The first
    /// call binds the signal to the calling thread (the runner).
    pub fn wait_timeout(&self, timeout: std::time::Duration) -> bool {
        if self.0.runner.get().is_none() {
            let _ = self.0.runner.set(std::thread::current());
        }
        if self.0.pending.swap(false, Ordering::AcqRel) {
            return true;
        }
        let deadline = std::time::Instant::now() + timeout;
        loop {
            let now = std::time::Instant::now();
            if now >= deadline {
                return self.0.pending.swap(false, Ordering::AcqRel);
            }
            std::thread::park_timeout(deadline - now);
            if self.0.pending.swap(false, Ordering::AcqRel) {
                return true;
            }
        }
    }
}

/// Configures [`TickSet`] ordering, the command path and the built-in commands and events.
pub struct CorePlugin;

impl Plugin for CorePlugin {
    fn build(&self, app: &mut App) {
        let wake = Arc::new(Wake::default());
        if !app.world().contains_resource::<DangerPolicy>() {
            app.insert_resource(DangerPolicy::from_env());
        }
        let mut interim = Schedule::new(Interim);
        interim.configure_sets((InterimSet::Read, InterimSet::Execute, InterimSet::Write).chain());
        let mut work = Schedule::new(TickWork);
        work.set_executor(bevy_ecs::schedule::SingleThreadedExecutor::new());
        app.add_schedule(interim).add_schedule(work);
        // bevy's own `Main` runs it in every tick; clawcraft's runner only in busy ones.
        app.world_mut().resource_mut::<bevy_app::MainScheduleOrder>().insert_after(PreUpdate, TickWork);
        app.configure_sets(PreUpdate, TickSet::Receive)
            .configure_sets(
                TickWork,
                (TickSet::HandlePackets, TickSet::Commands, TickSet::Actions, TickSet::Publish).chain(),
            )
            .configure_sets(Update, (TickSet::HandlePackets, TickSet::Commands, TickSet::Actions).chain())
            .configure_sets(PostUpdate, (TickSet::Input, TickSet::Send).chain())
            .configure_sets(
                TickWork,
                (ActionSet::Interrupt, ActionSet::Step, ActionSet::Watchdog).chain().in_set(TickSet::Actions),
            )
            .configure_sets(
                Update,
                (ActionSet::Interrupt, ActionSet::Step, ActionSet::Watchdog).chain().in_set(TickSet::Actions),
            )
            .insert_resource(CommandWaker(wake.clone()))
            .insert_resource(WakeSignal(wake))
            .add_message::<AgentEvent>()
            .add_message::<CommandResponse>()
            .add_message::<InterruptActions>()
            .init_resource::<CommandRegistry>()
            .init_resource::<EventRegistry>()
            .init_resource::<PendingCommands>()
            .init_resource::<bot_commands::TypedCommands>()
            .init_resource::<bot_commands::DeferredAnswers>()
            .init_resource::<event::PublishCursor>()
            .init_resource::<BotNames>()
            .init_resource::<NameBots>()
            .init_resource::<CommandBudget>()
            .init_resource::<ResponseBudget>()
            .init_resource::<TickCount>()
            .init_resource::<stop::PolicySwitches>()
            .init_resource::<wait::WaitingRequests>()
            .init_resource::<gate::LastActionEnd>()
            .init_resource::<gate::Arrivals>()
            .init_resource::<event::Uptime>()
            .add_systems(
                TickWork,
                (
                    execute_commands.in_set(TickSet::Commands).run_if(gate::commands_pending),
                    action::apply_interruptions
                        .in_set(ActionSet::Interrupt)
                        .run_if(bevy_ecs::schedule::common_conditions::on_message::<InterruptActions>),
                    action::watchdog.in_set(ActionSet::Watchdog).run_if(gate::any_action_active),
                    (bot_commands::route_deferred_answers.run_if(bot_commands::answers_waiting), publish_events)
                        .chain()
                        .in_set(TickSet::Publish),
                ),
            )
            // Events of the every-tick systems, and what `Update` wrote, before the output.
            .add_systems(
                Last,
                (bot_commands::route_deferred_answers.run_if(bot_commands::answers_waiting), publish_events)
                    .chain()
                    .in_set(LastSet::Publish)
                    .in_set(gate::QuietAware),
            )
            .add_systems(
                Last,
                wait::answer_waiting_requests.after(publish_events).in_set(LastSet::Publish).in_set(gate::QuietAware),
            )
            .add_pending_work("requests waiting for their action's end", |w: &mut World| wait::requests_waiting(w))
            .configure_sets(Last, LastSet::Publish.before(LastSet::Output))
            .add_systems(Interim, execute_queries.in_set(InterimSet::Execute))
            .add_systems(Interim, publish_events.after(InterimSet::Execute).before(InterimSet::Write))
            .add_agent_command::<builtin::Schema>()
            .add_agent_command::<builtin::Help>()
            .add_agent_command::<stop::Stop>()
            .add_agent_command::<subscription::Subscribe>()
            .add_agent_command::<subscription::Unsubscribe>()
            .add_agent_command::<subscription::ListSubscriptions>()
            .add_agent_event::<builtin::Startup>()
            .add_agent_event::<builtin::Ready>()
            .add_agent_event::<builtin::Spawn>()
            .add_agent_event::<builtin::Disconnected>()
            .add_agent_event::<builtin::Shutdown>()
            .add_agent_event::<action::CommandTimeout>();
        gate::configure(app);
        if !app.world().contains_resource::<RunnerCountsTicks>() {
            app.add_systems(
                PreUpdate,
                action::count_ticks.before(TickSet::Receive).in_set(gate::QuietAware).in_set(gate::Settled),
            );
        }
    }

    fn is_unique(&self) -> bool {
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn an_observer_pass_waits_for_the_tick_and_a_command_wakes_the_runner() {
        let wake = Arc::new(Wake::default());
        let (waker, signal) = (CommandWaker(wake.clone()), WakeSignal(wake));
        waker.after_tick();
        // No wake-up of its own: the wait runs out; the runner takes the request after its tick.
        assert!(!signal.wait_timeout(Duration::from_millis(5)));
        assert!(!waker.has_arrived(), "and no work for the tick");
        assert!(signal.take_after_tick());
        assert!(!signal.take_after_tick(), "taken once");
        waker.wake();
        assert!(signal.wait_timeout(Duration::from_secs(5)));
        assert!(waker.take_arrived());
    }
}
