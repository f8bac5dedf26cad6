//! The settled tick: an idle bot's tick without the schedules (see
//! [`Settled`](clawcraft_core::gate::Settled)).
//!
//! A spawned bot that stands still and hears nothing still ticks 20 times a second: it polls
//! its socket (RakNet's ACKs and timers), repeats its physics step, sends its PlayerAuthInput
//! with the next tick and flushes. Through the schedules that is four systems, each fetching
//! its parameters and the executor's state from cold caches; here it is one query over the
//! bots. The systems stay the one definition of the tick: this runs only while every
//! every-tick system is one it stands in for, only when each bot's step and input would
//! repeat (each system's own test, called here), and hands anything that arrived to the full
//! tick, which runs in the same update.

use std::time::Instant;

use bevy_ecs::prelude::*;
use bevy_ecs::query::QueryState;
use clawcraft_core::gate::{Arrivals, QuietTicks, output_waiting};
use clawcraft_core::{BotStats, Lifecycle, Position, Rotation};
use clawcraft_movement::{MovementIntent, Mover};
use clawcraft_network::Connection;
use clawcraft_player::{InputExtras, InputState, MoveFrame};

/// Insert to run every tick through the schedules (no settled ticks): for comparing the two,
/// or for an app whose own systems must see every tick in the main schedules although they are
/// in [`Settled`](clawcraft_core::gate::Settled).
#[derive(Resource, Debug, Clone, Copy, Default)]
pub struct FullTicks;

type SettledBot = (
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
);

/// What a tick did.
pub(crate) enum Outcome {
    /// The settled tick ran: the tick is done.
    Done,
    /// The schedules run this tick; `busy` when the quiet-tick decision is already made
    /// (it is made once per tick).
    Full { busy: Option<bool> },
}

/// The queries a settled tick runs (kept: building one per tick would cost more than the tick).
pub(crate) struct SettledTick {
    bots: QueryState<SettledBot>,
    connections: QueryState<(), With<Connection>>,
    /// Settled ticks run so far (for tests and the doctor).
    pub(crate) count: u64,
}

impl SettledTick {
    pub(crate) fn new(world: &mut World) -> Self {
        Self { bots: world.query(), connections: world.query_filtered(), count: 0 }
    }

    /// Runs this tick as a settled one when it is one (see the module docs).
    pub(crate) fn run(&mut self, world: &mut World, quiet: &mut QuietTicks) -> Outcome {
        // Output written since the last tick (between ticks) is routed by `Last`, which a quiet
        // tick runs for it.
        if !quiet.was_quiet()
            || world.contains_resource::<FullTicks>()
            || output_waiting(world)
            || !self.all_bots_repeat(world)
        {
            return Outcome::Full { busy: None };
        }
        // The receive: what arrives waits in the connection for the full tick's receive.
        let mut arrived = false;
        for (mut conn, ..) in self.bots.iter_mut(world) {
            arrived |= conn.receive_ahead();
        }
        if arrived {
            return Outcome::Full { busy: None };
        }
        if let Some(mut arrivals) = world.get_resource_mut::<Arrivals>() {
            *arrivals = Arrivals::default();
        }
        // Work from a thread or a channel (a command) makes it a busy tick, decided here once.
        if quiet.busy(world) {
            return Outcome::Full { busy: Some(true) };
        }
        clawcraft_core::advance_tick_count(world);
        let mut now = None;
        for (mut conn, _, pos, rot, mut input, mut stats, frame, _, mut mover, intent) in self.bots.iter_mut(world) {
            if let Some(step) = mover.settled_input(intent, pos, rot) {
                mover.repeat(input.next_tick, step);
            }
            input.send_repeated(&mut conn, pos, rot, frame, &mut stats);
            conn.send_tick(*now.get_or_insert_with(Instant::now));
        }
        self.count += 1;
        Outcome::Done
    }

    /// Every connected bot is spawned, its movement step and its input repeat — and there is
    /// one at least.
    fn all_bots_repeat(&mut self, world: &World) -> bool {
        let mut bots = 0;
        for (conn, lifecycle, pos, rot, input, _, frame, extras, mover, intent) in self.bots.iter(world) {
            let repeats = *lifecycle == Lifecycle::Spawned
                && conn.is_open()
                && mover.settled_input(intent, pos, rot).is_some()
                && input.repeats(conn, pos, rot, frame, extras);
            if !repeats {
                return false;
            }
            bots += 1;
        }
        bots > 0 && bots == self.connections.iter(world).count()
    }
}
