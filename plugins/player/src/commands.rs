//! `pos`. (`status` aggregates every plugin and lives in the root crate.)

use clawcraft_core::{AgentCommand, CommandCtx, CommandError, NamedCell, Position, Rotation, Vec3, standing_on};
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
    /// The block holding you up (the one your collision box rests on, nearest its centre: on an
    /// edge the cell under your centre may be air); `null` while airborne or in water.
    pub standing_on: Option<NamedCell>,
}

impl AgentCommand for Pos {
    const NAME: &'static str = "pos";
    const SUMMARY: &'static str = "Current feet position and rotation (yaw/pitch in radians as ClawCraft, plus degrees) and the block you stand on";
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
            standing_on: standing_on(ctx.world, ctx.bot),
        })
    }
}

/// A point the agent names.
#[derive(Deserialize, JsonSchema)]
pub struct Point {
    pub x: f64,
    /// Defaults to the bot's eye height for `face`, its feet height for `distance`.
    pub y: Option<f64>,
    pub z: f64,
}

fn finite(p: &Point) -> Result<(), CommandError> {
    let ok = p.x.is_finite() && p.z.is_finite() && p.y.is_none_or(f64::is_finite);
    let in_world = p.x.abs() <= 30_000_000.0 && p.z.abs() <= 30_000_000.0;
    if ok && in_world {
        Ok(())
    } else {
        Err(CommandError::out_of_range("coordinates must be finite and within ±30 000 000"))
    }
}

/// Bedrock angles looking from `from` towards `to`: yaw 0 faces +Z (south), 90 faces −X;
/// positive pitch looks down.
pub fn look_angles(from: Vec3, to: Vec3) -> (f32, f32) {
    let (dx, dy, dz) = (to.x - from.x, to.y - from.y, to.z - from.z);
    let yaw = (-dx).atan2(dz).to_degrees();
    let pitch = -dy.atan2((dx * dx + dz * dz).sqrt()).to_degrees();
    (yaw as f32, pitch as f32)
}

/// `{"action":"face","x":10,"y":64,"z":10}`: turn to look at a point (the next input carries it).
#[derive(Deserialize, JsonSchema)]
pub struct Face {
    #[serde(flatten)]
    pub target: Point,
}

impl AgentCommand for Face {
    const NAME: &'static str = "face";
    const SUMMARY: &'static str = "Turn to look at a point (yaw/pitch in radians as ClawCraft, plus degrees)";
    const EXAMPLE: &'static str = r#"{"action":"face","x":10,"y":-60,"z":10}"#;
    type Response = PosResponse;

    fn run(self, ctx: &mut CommandCtx<'_>) -> Result<PosResponse, CommandError> {
        finite(&self.target)?;
        let feet = ctx.world.get::<Position>(ctx.bot).copied().ok_or_else(CommandError::not_spawned)?.0;
        let eye = feet.offset_y(clawcraft_core::EYE_HEIGHT);
        let target = Vec3::new(self.target.x, self.target.y.unwrap_or(eye.y), self.target.z);
        let (yaw, pitch) = look_angles(eye, target);
        let mut rot = ctx.world.get_mut::<Rotation>(ctx.bot).ok_or_else(CommandError::not_spawned)?;
        *rot = Rotation { yaw, pitch };
        Ok(PosResponse {
            pos: feet.rounded(),
            yaw: f64::from(yaw).to_radians(),
            pitch: f64::from(pitch).to_radians(),
            yaw_degrees: yaw,
            pitch_degrees: pitch,
            standing_on: standing_on(ctx.world, ctx.bot),
        })
    }
}

/// `{"action":"distance","x":50,"z":50}`: straight-line distance and unit direction (no pathing).
#[derive(Deserialize, JsonSchema)]
pub struct Distance {
    #[serde(flatten)]
    pub target: Point,
}

/// Response of `distance`.
#[derive(Serialize, JsonSchema)]
pub struct DistanceResponse {
    /// Blocks from the feet to the point.
    pub euclidean: f64,
    /// Unit vector towards the point (zero when already there).
    pub direction: Vec3,
}

impl AgentCommand for Distance {
    const NAME: &'static str = "distance";
    const SUMMARY: &'static str = "Euclidean distance and unit direction from the feet to a point (no pathfinding)";
    const EXAMPLE: &'static str = r#"{"action":"distance","x":50,"y":-60,"z":50}"#;
    const QUERY: bool = true;
    const MISSING_PARAMS: &'static [(&'static str, &'static str)] =
        &[("x", "Need position and target"), ("z", "Need position and target")];
    type Response = DistanceResponse;

    fn run(self, ctx: &mut CommandCtx<'_>) -> Result<DistanceResponse, CommandError> {
        finite(&self.target)?;
        let feet = ctx.world.get::<Position>(ctx.bot).copied().ok_or_else(CommandError::not_spawned)?.0;
        let target = Vec3::new(self.target.x, self.target.y.unwrap_or(feet.y), self.target.z);
        let d = feet.distance(target);
        let direction = if d > 1e-9 {
            Vec3::new((target.x - feet.x) / d, (target.y - feet.y) / d, (target.z - feet.z) / d)
        } else {
            Vec3::ZERO
        };
        let r = |v: f64| (v * 1e4).round() / 1e4;
        Ok(DistanceResponse { euclidean: r(d), direction: Vec3::new(r(direction.x), r(direction.y), r(direction.z)) })
    }
}
