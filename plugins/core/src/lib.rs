//! The shared vocabulary of clawcraft's plugins.
//!
//! - [`TickSet`]: the named order of work inside one 20 Hz tick (one `App::update`).
//! - [`bot`]: components that live on a bot's entity (one entity per connected bot).
//! - [`event`]: [`AgentEvent`], what the agent hears about (stdout, TCP watchers, events file).
//! - [`command`]: the command registry every plugin adds its agent commands to.

pub mod bot;
pub mod command;
pub mod event;
pub mod math;

use bevy_app::{App, Plugin, PostUpdate, PreUpdate, Update};
use bevy_ecs::schedule::{IntoScheduleConfigs, SystemSet};

pub use bot::*;
pub use command::{AgentCommand, AppCommandExt, CommandError, CommandRegistry, PendingCommands};
pub use event::{AgentEvent, EventSink};
pub use math::Vec3;

/// The order of work inside one tick. `Receive` runs in `PreUpdate`, the middle sets in
/// `Update`, `Send` in `PostUpdate`, so a packet that arrives before a tick is handled in that
/// tick and everything it causes leaves in the same tick's batch.
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
    /// The per-tick input packet is built from the final state of the tick.
    Input,
    /// The tick's outgoing packets leave as one batch.
    Send,
}

/// Configures [`TickSet`] ordering. Added by every plugin group; adding it twice is harmless.
pub struct CorePlugin;

impl Plugin for CorePlugin {
    fn build(&self, app: &mut App) {
        app.configure_sets(PreUpdate, TickSet::Receive)
            .configure_sets(
                Update,
                (TickSet::HandlePackets, TickSet::Commands, TickSet::Actions, TickSet::Input).chain(),
            )
            .configure_sets(PostUpdate, TickSet::Send)
            .add_message::<AgentEvent>()
            .init_resource::<CommandRegistry>()
            .init_resource::<PendingCommands>()
            .init_resource::<event::Uptime>()
            .add_message::<CommandResponse>()
            .add_systems(Update, execute_commands.in_set(TickSet::Commands));
    }

    fn is_unique(&self) -> bool {
        true
    }
}

pub use command::{CommandEntry, CommandRequest, CommandResponse, Origin, execute_commands, parse_request};
