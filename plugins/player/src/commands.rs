//! `pos`. (`status` aggregates every plugin and lives in the root crate.)

use clawcraft_core::{AgentCommand, CommandCtx, CommandError, Position, Rotation, Vec3};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

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
