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
    PlayStatus, RequestChunkRadius, ResourcePackClientResponse, ResourcePackStack, ResourcePacksInfo, SetEntityMotion,
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
    mut bots: Query<
        (&mut Connection, &mut Lifecycle, &mut JoinProgress, &mut BotStats, Option<&crate::ChunkRadius>),
        With<LocalBot>,
    >,
    settings: Res<PlayerSettings>,
    mut commands: Commands,
    mut events: MessageWriter<AgentEvent>,
    mut closed: MessageWriter<ConnectionClosed>,
) {
    for packet in packets.read() {
        let Ok((mut conn, mut lifecycle, mut progress, mut stats, own_radius)) = bots.get_mut(packet.bot) else {
            continue;
        };
        stats.packets_received += 1;
        if let Some(status) = packet.view::<PlayStatus>() {
            match status.status.as_str() {
                "login_success" => {
                    conn.send(&ClientCacheStatus { enabled: false });
                    *lifecycle = Lifecycle::Joining;
                    events.write(AgentEvent::new(Ready { bot: packet.bot }));
                }
                "player_spawn" => progress.player_spawn_status = true,
                refused => {
                    // A refused login (wrong version, full server, …) ends the connection with
                    // the server's reason, like a Disconnect packet.
                    let reason = login_refusal(refused, conn.protocol().info().game_version);
                    tracing::warn!(%reason, "server refused the login");
                    events.write(AgentEvent::new(Disconnected { bot: packet.bot, reason: reason.clone() }));
                    closed.write(ConnectionClosed { bot: packet.bot, reason, error: true });
                    *lifecycle = Lifecycle::Disconnected;
                    conn.close();
                }
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
                InputState::at_server_tick(start.current_tick),
            ));
            progress.start_game = true;
            let radius = own_radius.map_or(settings.chunk_radius, |r| r.0);
            conn.send(&RequestChunkRadius { chunk_radius: radius, max_radius: radius.clamp(0, 255) as u8 });
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
            events.write(AgentEvent::new(Disconnected { bot: packet.bot, reason: reason.clone() }));
            closed.write(ConnectionClosed { bot: packet.bot, reason, error: true });
            *lifecycle = Lifecycle::Disconnected;
            conn.close();
        }
    }
}

/// The `disconnected` reason of a refused login (`PlayStatus` names from minecraft-data).
fn login_refusal(status: &str, spoken: &str) -> String {
    let why = match status {
        "failed_client" => format!("the server runs a newer Bedrock version than {spoken}"),
        "failed_spawn" => format!("the server runs an older Bedrock version than {spoken}"),
        "failed_server_full" => "the server is full".to_owned(),
        other => other.replace('_', " "),
    };
    format!("the server refused the login ({status}): {why}")
}

/// Sends SetLocalPlayerAsInitialized once StartGame, ChunkRadiusUpdated and
/// PlayStatus(player_spawn) have all arrived, and announces the spawn.
#[allow(clippy::type_complexity)]
pub fn finish_spawn(
    mut bots: Query<(
        Entity,
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
    for (bot, mut conn, mut lifecycle, mut progress, ids, pos, mut input, mut info) in &mut bots {
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
        events.write(AgentEvent::new(Spawn { bot, pos: pos.0.rounded() }));
    }
}

/// What the server said about our own movement: the position authority's word, for the movement
/// plugin to adopt (and re-simulate from). Written by [`handle_movement_packets`], which already
/// applied it to [`Position`]/[`Rotation`] (so a bot without a movement plugin follows it too).
#[derive(Message, Debug, Clone, Copy, PartialEq)]
pub struct ServerMovement {
    pub bot: Entity,
    pub kind: ServerMoveKind,
    /// Feet position (absent for a pure motion).
    pub feet: Option<Vec3>,
    /// Velocity the server set (corrections and SetEntityMotion).
    pub delta: Option<Vec3>,
    /// The input tick the server refers to (0 = none).
    pub tick: u64,
    pub on_ground: bool,
}

/// Which packet moved us.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ServerMoveKind {
    /// MovePlayer `teleport`/`reset`: adopt and acknowledge with `handled_teleport`.
    Teleport,
    /// MovePlayer `normal`/`rotation` for our own runtime id.
    Moved,
    /// CorrectPlayerMovePrediction: our prediction of `tick` was wrong.
    Correction,
    /// SetEntityMotion (knockback, explosions): a new velocity.
    Motion,
}

fn feet_of(eye: clawcraft_protocol::packets::Vec3) -> Vec3 {
    Vec3::new(f64::from(eye.x), f64::from(eye.y) - EYE_HEIGHT, f64::from(eye.z))
}

/// Adopts server teleports (MovePlayer for our runtime id), prediction corrections and motion,
/// moves the input clock forward to the ticks they name, and tells the movement plugin.
pub fn handle_movement_packets(
    mut packets: MessageReader<ClientboundPacket>,
    mut bots: Query<(&EntityIds, &mut Position, &mut Rotation, &mut InputState, &mut BotStats)>,
    mut interrupts: MessageWriter<InterruptActions>,
    mut moves: MessageWriter<ServerMovement>,
) {
    for packet in packets.read() {
        let Ok((ids, mut pos, mut rot, mut input, mut stats)) = bots.get_mut(packet.bot) else {
            continue;
        };
        let bot = packet.bot;
        if let Some(mv) = packet.view::<MovePlayer>() {
            if u64::from(mv.runtime_id) != ids.runtime_id {
                continue;
            }
            pos.0 = feet_of(mv.position);
            *rot = Rotation { yaw: mv.yaw, pitch: mv.pitch };
            input.follow_server_tick(mv.tick);
            let teleport = mv.mode != "normal" && mv.mode != "rotation";
            if teleport {
                input.handled_teleport = true;
                stats.teleports += 1;
                interrupts.write(InterruptActions { bot, cause: Interruption::Teleport });
            }
            let kind = if teleport { ServerMoveKind::Teleport } else { ServerMoveKind::Moved };
            moves.write(ServerMovement {
                bot,
                kind,
                feet: Some(pos.0),
                delta: None,
                tick: mv.tick,
                on_ground: mv.on_ground,
            });
        } else if let Some(fix) = packet.view::<CorrectPlayerMovePrediction>() {
            if fix.prediction_type != "player" {
                continue;
            }
            pos.0 = feet_of(fix.position);
            stats.corrections += 1;
            input.follow_server_tick(fix.tick);
            let d = fix.delta;
            moves.write(ServerMovement {
                bot,
                kind: ServerMoveKind::Correction,
                feet: Some(pos.0),
                delta: Some(Vec3::new(f64::from(d.x), f64::from(d.y), f64::from(d.z))),
                tick: fix.tick,
                on_ground: fix.on_ground,
            });
        } else if let Some(m) = packet.view::<SetEntityMotion>() {
            if m.runtime_entity_id != ids.runtime_id {
                continue;
            }
            let v = m.velocity;
            moves.write(ServerMovement {
                bot,
                kind: ServerMoveKind::Motion,
                feet: None,
                delta: Some(Vec3::new(f64::from(v.x), f64::from(v.y), f64::from(v.z))),
                tick: m.tick,
                on_ground: false,
            });
        }
    }
}
