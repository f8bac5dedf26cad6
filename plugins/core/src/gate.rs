//! Run conditions that let an idle tick skip the systems with nothing to do.
//!
//! An idle bot runs its tick from cold caches (it slept 50 ms), so every system that runs costs
//! microseconds even when it returns at once: its code and state are fetched again. Systems are
//! therefore gated on the input they act on — packets that arrived, commands that wait, actions
//! that run — and an idle tick runs only what must run every tick (receive, physics, the input
//! packet, send, output).
//!
//! A gated system that reads messages must be gated on those messages too (bevy's
//! `on_message`): a skipped reader does not advance its cursor, so gating it on anything else
//! could let it miss messages or read stale ones later.

use bevy_ecs::prelude::*;
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
}

/// How many packets the network plugin drained for this tick (every bot together).
#[derive(Resource, Debug, Default, Clone, Copy)]
pub struct Arrivals {
    pub packets: usize,
}

/// Packets arrived this tick.
pub fn packets_arrived(arrivals: Res<Arrivals>) -> bool {
    arrivals.packets > 0
}

/// Commands wait in the queue.
pub fn commands_pending(pending: Res<PendingCommands>) -> bool {
    !pending.0.is_empty()
}

/// The tick the last action ended (its component was removed then).
#[derive(Resource, Debug, Default, Clone, Copy)]
pub struct LastActionEnd(pub Option<u64>);

/// An action ended this tick or the last one: the systems that clean up after an ended action
/// (they read `RemovedComponents`, which keep a removal for two updates) have work.
pub fn action_ended_lately(ended: Option<Res<LastActionEnd>>, ticks: Res<crate::action::TickCount>) -> bool {
    ended.and_then(|e| e.0).is_some_and(|t| ticks.0 <= t.saturating_add(1))
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
    for schedule in [bevy_app::Update.intern(), bevy_app::Last.intern()] {
        app.configure_sets(schedule, Gate::Packets.run_if(packets_arrived))
            .configure_sets(schedule, Gate::Actions.run_if(actions_or_packets));
    }
}
