//! The per-tick PlayerAuthInput: movement is server-authoritative, so a spawned bot sends one
//! every tick, `tick` strictly +1, with its eye position.

use bevy_ecs::prelude::*;
use clawcraft_core::{BotStats, EYE_HEIGHT, Lifecycle, Position, Rotation};
use clawcraft_network::Connection;
use clawcraft_protocol::packets::PlayerAuthInput;

/// Input bookkeeping of a spawned bot.
#[derive(Component, Debug, Clone, Default, PartialEq)]
pub struct InputState {
    /// The `tick` of the next PlayerAuthInput.
    pub next_tick: u64,
    /// Set after a server teleport; the next input carries `handled_teleport`.
    pub handled_teleport: bool,
    /// Ticks to wait before the first input (the spawn tick sends the initialisation instead).
    pub skip_ticks: u32,
}

pub fn send_player_auth_input(
    mut bots: Query<(&mut Connection, &Lifecycle, &Position, &Rotation, &mut InputState, &mut BotStats)>,
) {
    for (mut conn, lifecycle, pos, rot, mut input, mut stats) in &mut bots {
        if *lifecycle != Lifecycle::Spawned {
            continue;
        }
        if input.skip_ticks > 0 {
            input.skip_ticks -= 1;
            continue;
        }
        let mut flags = Vec::new();
        if std::mem::take(&mut input.handled_teleport) {
            flags.push("handled_teleport");
        }
        let eye = pos.0.offset_y(EYE_HEIGHT);
        let packet = PlayerAuthInput::idle([eye.x, eye.y, eye.z], rot.yaw, rot.pitch, input.next_tick, &flags);
        conn.send(&packet);
        input.next_tick += 1;
        stats.inputs_sent += 1;
    }
}
