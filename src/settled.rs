//! Settled bots: an idle bot's tick without the schedules (see
//! [`Settled`](clawcraft_core::gate::Settled)), bot by bot.
//!
//! A spawned bot that stands still and hears nothing still ticks 20 times a second: it polls
//! its socket (RakNet's ACKs and timers), repeats its physics step, sends its PlayerAuthInput
//! with the next tick and flushes. Through the schedules that is four systems, each fetching
//! its parameters and the executor's state from cold caches; here it is one pass over the bots.
//!
//! Each bot settles on its own: at the start of the tick the runner does the tick of every bot
//! whose step and input repeat (each system's own test, called here), that runs no action and to
//! which nothing arrived, and marks it ([`SettledBot`]); the every-tick systems skip a marked bot.
//! When every bot settled and nothing else has work, the tick runs no schedule at all (a
//! *settled tick*); otherwise the schedules run for the rest — one walking bot among a hundred
//! idle ones costs its own tick, not a hundred. The systems stay the one definition of a tick:
//! this runs only while every every-tick system is one it stands in for.
//!
//! The settled bots' batches are built and encrypted during the pass and sent after it, one
//! after the other: a hundred bots' inputs leave within a fraction of a millisecond of each
//! other, at the same moment of every tick, however long the receives before them took.

use std::time::Instant;

use bevy_ecs::prelude::*;
use bevy_ecs::query::QueryState;
use clawcraft_core::gate::{Arrivals, QuietTicks, SettledBot, output_waiting};
use clawcraft_core::{ActiveActions, BotStats, CommandWaker, Lifecycle, PendingCommands, Position, Rotation};
use clawcraft_movement::{MovementIntent, Mover};
use clawcraft_network::Connection;
use clawcraft_player::{InputExtras, InputState, MoveFrame};

/// Insert to run every tick through the schedules (no settled bots): for comparing the two,
/// or for an app whose own systems must see every tick in the main schedules although they are
/// in [`Settled`](clawcraft_core::gate::Settled).
#[derive(Resource, Debug, Clone, Copy, Default)]
pub struct FullTicks;

type SettledQuery = (
    Entity,
    &'static mut Connection,
    &'static Lifecycle,
    &'static Position,
    &'static Rotation,
    &'static mut InputState,
    &'static mut BotStats,
    Option<&'static MoveFrame>,
    Option<&'static InputExtras>,
    &'static mut Mover,
    &'static MovementIntent,
    &'static mut SettledBot,
    Option<&'static ActiveActions>,
);

/// What a tick did.
pub(crate) enum Outcome {
    /// Every bot settled and nothing else had work: the tick is done.
    Done,
    /// The schedules run this tick (for the bots that did not settle, and the tick's work);
    /// `busy` when the quiet-tick decision is already made (it is made once per tick).
    Full { busy: Option<bool> },
}

/// The queries the settled bots' pass runs (kept: building one per tick would cost more than
/// the tick).
pub(crate) struct SettledTick {
    bots: QueryState<SettledQuery>,
    connections: QueryState<(), With<Connection>>,
    /// The settled bots' connections, for the pass that sends their batches.
    transmit: QueryState<&'static mut Connection>,
    /// Bots marked this update, unmarked when it ends.
    marked: Vec<Entity>,
    /// Ticks that ran no schedule.
    pub(crate) count: u64,
    /// Bot ticks the runner did itself (a settled bot in any tick).
    pub(crate) bot_ticks: u64,
}

impl SettledTick {
    pub(crate) fn new(world: &mut World) -> Self {
        Self {
            bots: world.query(),
            connections: world.query_filtered(),
            transmit: world.query(),
            marked: Vec::new(),
            count: 0,
            bot_ticks: 0,
        }
    }

    /// Does the tick of every bot that settles this tick, and tells whether the schedules must
    /// still run (see the module docs).
    pub(crate) fn run(&mut self, world: &mut World, quiet: &mut QuietTicks) -> Outcome {
        // A command may be for any bot, and runs in this tick's work: no bot's input leaves
        // before it.
        if world.contains_resource::<FullTicks>() || commands_coming(world) {
            return Outcome::Full { busy: None };
        }
        let (mut settled, mut bots) = (0usize, 0usize);
        for (
            bot,
            mut conn,
            lifecycle,
            pos,
            rot,
            mut input,
            mut stats,
            frame,
            extras,
            mut mover,
            intent,
            mut flag,
            actions,
        ) in self.bots.iter_mut(world)
        {
            bots += 1;
            let step = mover.settled_input(intent, pos, rot);
            let repeats = *lifecycle == Lifecycle::Spawned
                && conn.is_open()
                && actions.is_none_or(|a| a.slots.is_empty())
                && step.is_some()
                && input.repeats(&conn, pos, rot, frame, extras);
            // What arrives waits in the connection for the full tick's receive.
            if !repeats || conn.receive_ahead() {
                continue;
            }
            if let Some(step) = step {
                mover.repeat(input.next_tick, step);
            }
            input.send_repeated(&mut conn, pos, rot, frame, &mut stats);
            // Built and encrypted now, sent below with the other bots' batches.
            conn.prepare_tick();
            flag.0 = true;
            self.marked.push(bot);
            settled += 1;
        }
        // The settled bots' datagrams leave in one burst: with many bots in the process, each
        // bot's input leaves at the same moment of every tick (its interval at the server stays
        // 50 ms) however long the receives and the building before took.
        if settled > 0 {
            let now = Instant::now();
            for &bot in &self.marked[self.marked.len() - settled..] {
                if let Ok(mut conn) = self.transmit.get_mut(world, bot) {
                    conn.transmit_tick(now);
                }
            }
        }
        self.bot_ticks += settled as u64;
        // Output written since the last tick (between ticks) is routed by `Last`, which a quiet
        // tick runs for it; a bot without a full set of components still has its tick to run.
        let all = settled > 0 && settled == bots && bots == self.connections.iter(world).count();
        if !all || !quiet.was_quiet() || output_waiting(world) {
            return Outcome::Full { busy: None };
        }
        if let Some(mut arrivals) = world.get_resource_mut::<Arrivals>() {
            *arrivals = Arrivals::default();
        }
        // Work from a thread or a plugin's check makes it a busy tick, decided here once.
        if quiet.busy(world) {
            return Outcome::Full { busy: Some(true) };
        }
        clawcraft_core::advance_tick_count(world);
        self.count += 1;
        Outcome::Done
    }

    /// Unmarks the bots this update settled (the update is over).
    pub(crate) fn unmark(&mut self, world: &mut World) {
        for bot in self.marked.drain(..) {
            if let Some(mut flag) = world.get_mut::<SettledBot>(bot) {
                flag.0 = false;
            }
        }
    }
}

/// A command waits, or a channel delivered a line this tick's work will read.
fn commands_coming(world: &World) -> bool {
    world.get_resource::<PendingCommands>().is_some_and(|p| !p.0.is_empty())
        || world.get_resource::<clawcraft_core::bot_commands::TypedCommands>().is_some_and(|t| !t.is_empty())
        || world.get_resource::<CommandWaker>().is_some_and(CommandWaker::has_arrived)
}
