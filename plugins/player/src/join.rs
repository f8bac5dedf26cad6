//! The join sequence and the server's position authority.

use bevy_ecs::prelude::*;
use clawcraft_core::builtin::{Disconnected, Ready, Spawn};
use clawcraft_core::{
    AgentEvent, BotStats, EYE_HEIGHT, EntityIds, InterruptActions, Interruption, Lifecycle, LocalBot, Position,
    Rotation, Vec3, WorldInfo, event::now_ms,
};
use clawcraft_network::{ClientboundPacket, Connection, ConnectionClosed};
use clawcraft_protocol::packets::{
    ChunkRadiusUpdate, ClientCacheStatus, CorrectPlayerMovePrediction, Disconnect, MovePlayer, NetworkStackLatency,
    PlayStatus, RequestChunkRadius, ResourcePackClientResponse, ResourcePackStack, ResourcePacksInfo,
    SetLocalPlayerAsInitialized, StartGame,
};

use crate::PlayerSettings;
use crate::input::InputState;

/// Which spawn preconditions have arrived.
#[derive(Component, Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct JoinProgress {
    pub start_game: bool,
    pub chunk_radius_updated: bool,
    pub player_spawn_status: bool,
    pub initialized: bool,
}

#[allow(clippy::type_complexity)]
pub fn handle_join_packets(
    mut packets: MessageReader<ClientboundPacket>,
    mut bots: Query<(&mut Connection, &mut Lifecycle, &mut JoinProgress, &mut BotStats), With<LocalBot>>,
    settings: Res<PlayerSettings>,
    mut commands: Commands,
    mut events: MessageWriter<AgentEvent>,
    mut closed: MessageWriter<ConnectionClosed>,
) {
    for packet in packets.read() {
        let Ok((mut conn, mut lifecycle, mut progress, mut stats)) = bots.get_mut(packet.bot) else {
            continue;
        };
        stats.packets_received += 1;
        if let Some(status) = packet.view::<PlayStatus>() {
            match status.status.as_str() {
                "login_success" => {
                    conn.send(&ClientCacheStatus { enabled: false });
                    *lifecycle = Lifecycle::Joining;
                    events.write(AgentEvent::of(&Ready {}));
                }
                "player_spawn" => progress.player_spawn_status = true,
                other => tracing::warn!(status = other, "server refused the login"),
            }
        } else if packet.is::<ResourcePacksInfo>() {
            conn.send(&ResourcePackClientResponse::status("have_all_packs"));
        } else if packet.is::<ResourcePackStack>() {
            conn.send(&ResourcePackClientResponse::status("completed"));
        } else if let Some(start) = packet.view::<StartGame>() {
            let feet = Vec3::new(
                f64::from(start.player_position.x),
                f64::from(start.player_position.y) - EYE_HEIGHT,
                f64::from(start.player_position.z),
            );
            commands.entity(packet.bot).insert((
                EntityIds { runtime_id: start.runtime_entity_id, unique_id: start.entity_id },
                Position(feet),
                Rotation { pitch: start.rotation.x, yaw: start.rotation.z },
                WorldInfo {
                    dimension: start.dimension.clone(),
                    gamemode: start.player_gamemode.clone(),
                    world_name: start.world_name.clone(),
                    block_network_ids_are_hashes: start.block_network_ids_are_hashes,
                    server_authoritative_block_breaking: start.server_authoritative_block_breaking,
                    spawn_time_ms: None,
                },
                InputState::default(),
            ));
            progress.start_game = true;
            conn.send(&RequestChunkRadius {
                chunk_radius: settings.chunk_radius,
                max_radius: settings.chunk_radius.clamp(0, 255) as u8,
            });
        } else if packet.is::<ChunkRadiusUpdate>() {
            progress.chunk_radius_updated = true;
        } else if let Some(latency) = packet.view::<NetworkStackLatency>() {
            if latency.needs_response != 0 {
                conn.send(&NetworkStackLatency { timestamp: latency.timestamp, needs_response: 0 });
            }
        } else if let Some(disconnect) = packet.view::<Disconnect>() {
            let reason = if disconnect.message.is_empty() {
                format!("disconnected by server ({})", disconnect.reason)
            } else {
                disconnect.message.clone()
            };
            tracing::info!(%reason, "server disconnected us");
            events.write(AgentEvent::of(&Disconnected { reason: reason.clone() }));
            closed.write(ConnectionClosed { bot: packet.bot, reason, error: true });
            *lifecycle = Lifecycle::Disconnected;
            conn.close();
        }
    }
}

/// Sends SetLocalPlayerAsInitialized once StartGame, ChunkRadiusUpdated and
/// PlayStatus(player_spawn) have all arrived, and announces the spawn.
pub fn finish_spawn(
    mut bots: Query<(
        &mut Connection,
        &mut Lifecycle,
        &mut JoinProgress,
        &EntityIds,
        &Position,
        &mut InputState,
        &mut WorldInfo,
    )>,
    mut events: MessageWriter<AgentEvent>,
) {
    for (mut conn, mut lifecycle, mut progress, ids, pos, mut input, mut info) in &mut bots {
        let ready = progress.start_game && progress.chunk_radius_updated && progress.player_spawn_status;
        if !ready || progress.initialized || *lifecycle == Lifecycle::Disconnected {
            continue;
        }
        conn.send(&SetLocalPlayerAsInitialized { runtime_entity_id: ids.runtime_id });
        progress.initialized = true;
        *lifecycle = Lifecycle::Spawned;
        // Inputs start with the next tick: this tick's batch carries the initialisation.
        input.skip_ticks = 1;
        info.spawn_time_ms = Some(now_ms());
        events.write(AgentEvent::of(&Spawn { pos: pos.0.rounded() }));
    }
}

/// Adopts server teleports (MovePlayer for our runtime id) and prediction corrections.
pub fn handle_movement_packets(
    mut packets: MessageReader<ClientboundPacket>,
    mut bots: Query<(&EntityIds, &mut Position, &mut Rotation, &mut InputState, &mut BotStats)>,
    mut interrupts: MessageWriter<InterruptActions>,
) {
    for packet in packets.read() {
        let Ok((ids, mut pos, mut rot, mut input, mut stats)) = bots.get_mut(packet.bot) else {
            continue;
        };
        if let Some(mv) = packet.view::<MovePlayer>() {
            if u64::from(mv.runtime_id) != ids.runtime_id {
                continue;
            }
            pos.0 =
                Vec3::new(f64::from(mv.position.x), f64::from(mv.position.y) - EYE_HEIGHT, f64::from(mv.position.z));
            *rot = Rotation { yaw: mv.yaw, pitch: mv.pitch };
            if mv.mode != "normal" && mv.mode != "rotation" {
                input.handled_teleport = true;
                stats.teleports += 1;
                interrupts.write(InterruptActions { bot: packet.bot, cause: Interruption::Teleport });
            }
        } else if let Some(fix) = packet.view::<CorrectPlayerMovePrediction>() {
            if fix.prediction_type != "player" {
                continue;
            }
            pos.0 =
                Vec3::new(f64::from(fix.position.x), f64::from(fix.position.y) - EYE_HEIGHT, f64::from(fix.position.z));
            stats.corrections += 1;
        }
    }
}
