//! `PlayerPlugin`: the local player's life on a server — the join sequence up to spawn, the
//! per-tick `PlayerAuthInput` (built from the movement plugin's [`MoveFrame`] and every
//! plugin's [`InputExtras`], on the server's tick clock), server teleports and corrections
//! (applied, and passed on as [`ServerMovement`]), and the `pos`, `face` and `distance`
//! commands.
//!
//! Join: PlayStatus(login_success) → ClientCacheStatus(false); resource pack
//! info/stack → responses; StartGame → RequestChunkRadius; once both ChunkRadiusUpdated and
//! PlayStatus(player_spawn) arrived → SetLocalPlayerAsInitialized, and from the next tick on one
//! PlayerAuthInput per tick with `tick` strictly +1.

pub mod commands;
mod input;
mod join;

use bevy_app::{App, Plugin, PostUpdate};
use bevy_ecs::prelude::*;
use clawcraft_core::{AppCommandExt, CorePlugin, TickSet};

pub use commands::look_angles;
pub use input::{InputExtras, InputSet, InputState, MoveFrame, send_player_auth_input};
pub use join::{JoinProgress, ServerMoveKind, ServerMovement, handle_join_packets, handle_movement_packets};

/// Settings every bot of this process shares.
#[derive(Resource, Debug, Clone, PartialEq)]
pub struct PlayerSettings {
    /// Chunk radius requested from the server.
    pub chunk_radius: i32,
}

/// A bot's own chunk radius, over [`PlayerSettings::chunk_radius`] (a swarm's per-bot
/// `chunkRadius`).
#[derive(Component, Debug, Clone, Copy, PartialEq, Eq)]
pub struct ChunkRadius(pub i32);

impl Default for PlayerSettings {
    fn default() -> Self {
        Self { chunk_radius: 8 }
    }
}

/// Join sequence, input stream and position tracking of the local player.
pub struct PlayerPlugin;

/// Order inside [`TickSet::HandlePackets`]: join first, so a StartGame and a MovePlayer in the
/// same tick apply in that order.
#[derive(SystemSet, Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PlayerSet {
    Join,
    Movement,
}

impl Plugin for PlayerPlugin {
    fn build(&self, app: &mut App) {
        if !app.is_plugin_added::<CorePlugin>() {
            app.add_plugins(CorePlugin);
        }
        app.init_resource::<PlayerSettings>()
            .configure_sets(
                clawcraft_core::TickWork,
                (PlayerSet::Join, PlayerSet::Movement).chain().in_set(TickSet::HandlePackets),
            )
            .add_systems(
                clawcraft_core::TickWork,
                (handle_join_packets, join::finish_spawn)
                    .chain()
                    .in_set(PlayerSet::Join)
                    .in_set(clawcraft_core::gate::Gate::Packets),
            )
            .add_systems(
                clawcraft_core::TickWork,
                handle_movement_packets.in_set(PlayerSet::Movement).in_set(clawcraft_core::gate::Gate::Packets),
            )
            .add_message::<ServerMovement>()
            .configure_sets(PostUpdate, (InputSet::Simulate, InputSet::Send).chain().in_set(TickSet::Input))
            .add_systems(
                PostUpdate,
                send_player_auth_input
                    .in_set(InputSet::Send)
                    .in_set(clawcraft_core::gate::QuietAware)
                    .in_set(clawcraft_core::gate::Settled),
            )
            .add_agent_command::<commands::Pos>()
            .add_agent_command::<commands::Face>()
            .add_agent_command::<commands::Distance>();
    }
}
