//! `MovementPlugin`: the bot moves like a player.
//!
//! Each tick, in `InputSet::Simulate` (inside `TickSet::Input`):
//!
//! 1. the bot's [`MovementIntent`] (direction, jump, sprint, sneak, look — written by actions in
//!    `ActionSet::Step`, consumed every tick, so a bot nobody drives stands still) becomes the
//!    keys and rotation a vanilla client would have;
//! 2. one client physics step ([`clawcraft_physics`]: gravity, drag, friction by block, collision
//!    with the world's real block shapes, step-up, ladders, liquids, …) advances the bot's
//!    [`Mover`] state;
//! 3. the result is the tick's [`MoveFrame`] (eye position, delta, move vectors, input flags by
//!    name), which the player plugin sends as PlayerAuthInput on the server's tick clock.
//!
//! Server authority: a CorrectPlayerMovePrediction is adopted at the tick it names and the inputs
//! since are re-simulated (ignored when it matches the prediction); a MovePlayer teleport resets
//! the state and is acknowledged (`handled_teleport`); SetEntityMotion sets the velocity;
//! UpdateAttributes and MobEffect set the speed and the movement effects. Each correction and
//! teleport is counted and reported as `position_desync{serverPos,localPos,drift,mode}`.
//!
//! The bot stands still (and sends its position unchanged) while the block under it has no data.

pub mod blocks;
pub mod commands;
mod mover;

use bevy_app::{App, Plugin, PostUpdate};
use bevy_ecs::prelude::*;
use bevy_ecs::schedule::common_conditions::on_message;
use clawcraft_core::{AppCommandExt, AppEventExt, AppWorkExt, CorePlugin, TickSet};
use clawcraft_player::{InputSet, PlayerSet};

pub use blocks::{BlockTable, FULL_CUBE, WorldView};
pub use clawcraft_physics as physics;
pub use commands::{MovementInfo, ServerPos};
pub use mover::{
    Authority, FallCourse, MovementIntent, Mover, PositionDesync, apply_server_movement, predict_fall, standing_on,
    step_movement, track_authority, track_speed, yaw_toward,
};

/// Order inside `TickSet::HandlePackets`, after the player's own handlers.
#[derive(SystemSet, Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct MovementPackets;

/// Movement: intent → physics → PlayerAuthInput, server corrections, and the `setpos`, `tp`,
/// `server_pos` and `movement_info` commands.
pub struct MovementPlugin;

impl Plugin for MovementPlugin {
    fn build(&self, app: &mut App) {
        if !app.is_plugin_added::<CorePlugin>() {
            app.add_plugins(CorePlugin);
        }
        app.configure_sets(
            clawcraft_core::TickWork,
            MovementPackets.after(PlayerSet::Movement).in_set(TickSet::HandlePackets),
        )
        .add_systems(
            clawcraft_core::TickWork,
            (
                (mover::attach_mover, track_authority, track_speed).chain().in_set(clawcraft_core::gate::Gate::Packets),
                apply_server_movement.run_if(on_message::<clawcraft_player::ServerMovement>),
                commands::finish_tp.run_if(
                    on_message::<clawcraft_player::ServerMovement>.or_eager(any_with_component::<commands::PendingTp>),
                ),
                commands::answer_server_pos.run_if(any_with_component::<commands::PendingServerPos>),
            )
                .chain()
                .in_set(MovementPackets),
        )
        .add_systems(
            PostUpdate,
            step_movement
                .in_set(InputSet::Simulate)
                .in_set(clawcraft_core::gate::QuietAware)
                .in_set(clawcraft_core::gate::Settled),
        )
        // Work for TickWork's readers of the bot's position (proximity, eviction): it moved.
        .add_pending_work("bot moving", clawcraft_core::gate::any_bot::<&Mover>(|m| !m.is_settled()))
        .add_pending_work("teleport pending", clawcraft_core::gate::any_with::<commands::PendingTp>())
        .add_pending_work("server_pos waiting", clawcraft_core::gate::any_with::<commands::PendingServerPos>())
        .insert_resource(clawcraft_core::GroundProbe(mover::standing_on))
        .add_agent_event::<PositionDesync>()
        .add_agent_command::<commands::SetPos>()
        .add_agent_command::<commands::Tp>()
        .add_agent_command::<ServerPos>()
        .add_agent_command::<MovementInfo>();
    }
}
