//! `pos` and `status`.

use clawcraft_core::{
    AgentCommand, BotStats, CommandCtx, CommandError, Lifecycle, LocalBot, Position, Rotation, Vec3, event::Uptime,
};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::input::InputState;

/// `{"action":"pos"}`: feet position and rotation.
#[derive(Deserialize, JsonSchema)]
pub struct Pos {}

/// Response of `pos`.
#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct PosResponse {
    /// Feet position.
    pub pos: Vec3,
    /// Yaw in radians (ClawCraft's convention; 0 faces south, +Z).
    pub yaw: f64,
    /// Pitch in radians (positive looks down).
    pub pitch: f64,
    pub yaw_degrees: f32,
    pub pitch_degrees: f32,
}

impl AgentCommand for Pos {
    const NAME: &'static str = "pos";
    const SUMMARY: &'static str =
        "Current feet position and rotation (yaw/pitch in radians as ClawCraft, plus degrees)";
    const EXAMPLE: &'static str = r#"{"action":"pos"}"#;
    const QUERY: bool = true;
    type Response = PosResponse;

    fn run(self, ctx: &mut CommandCtx<'_>) -> Result<PosResponse, CommandError> {
        let pos = ctx.world.get::<Position>(ctx.bot).copied().ok_or_else(CommandError::not_spawned)?;
        let rot = ctx.world.get::<Rotation>(ctx.bot).copied().unwrap_or_default();
        Ok(PosResponse {
            pos: pos.0.rounded(),
            yaw: f64::from(rot.yaw).to_radians(),
            pitch: f64::from(rot.pitch).to_radians(),
            yaw_degrees: rot.yaw,
            pitch_degrees: rot.pitch,
        })
    }
}

/// `{"action":"status"}`: connection and bot health summary. Works before spawn.
#[derive(Deserialize, JsonSchema)]
pub struct Status {}

/// Entity counts.
#[derive(Serialize, JsonSchema, Default)]
pub struct EntityCounts {
    pub players: u64,
    pub mobs: u64,
    pub items: u64,
}

/// Self-diagnosis counters.
#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct StatusStats {
    pub inputs_sent: u64,
    pub corrections: u64,
    pub teleports: u64,
    pub packets_received: u64,
}

/// Response of `status`.
#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct StatusResponse {
    /// Logged in (joining or spawned).
    pub connected: bool,
    pub spawned: bool,
    /// `connecting`, `joining`, `spawned` or `disconnected`.
    pub state: String,
    pub username: String,
    /// Feet position, once known.
    pub pos: Option<Vec3>,
    /// Seconds since start.
    pub uptime: u64,
    /// Loaded chunk columns.
    pub chunks: u64,
    pub entities: EntityCounts,
    /// The tick number of the next PlayerAuthInput.
    pub input_tick: Option<u64>,
    pub stats: StatusStats,
}

impl AgentCommand for Status {
    const NAME: &'static str = "status";
    const SUMMARY: &'static str = "Connection state, username, position, uptime and counters";
    const EXAMPLE: &'static str = r#"{"action":"status"}"#;
    const NEEDS_SPAWN: bool = false;
    const QUERY: bool = true;
    type Response = StatusResponse;

    fn run(self, ctx: &mut CommandCtx<'_>) -> Result<StatusResponse, CommandError> {
        let world = &*ctx.world;
        let bot = ctx.bot;
        let lifecycle = world.get::<Lifecycle>(bot).copied().unwrap_or_default();
        let stats = world.get::<BotStats>(bot).copied().unwrap_or_default();
        Ok(StatusResponse {
            connected: matches!(lifecycle, Lifecycle::Joining | Lifecycle::Spawned),
            spawned: lifecycle == Lifecycle::Spawned,
            state: format!("{lifecycle:?}").to_lowercase(),
            username: world.get::<LocalBot>(bot).map(|b| b.username.clone()).unwrap_or_default(),
            pos: world.get::<Position>(bot).map(|p| p.0.rounded()),
            uptime: world.resource::<Uptime>().0.elapsed().as_secs(),
            chunks: 0,
            entities: EntityCounts::default(),
            input_tick: world.get::<InputState>(bot).map(|i| i.next_tick),
            stats: StatusStats {
                inputs_sent: stats.inputs_sent,
                corrections: stats.corrections,
                teleports: stats.teleports,
                packets_received: stats.packets_received,
            },
        })
    }
}
