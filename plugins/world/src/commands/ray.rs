//! Line-of-sight queries: `look` (along the bot's gaze) and `raycast` (towards a point). Both
//! start at the eye (feet + 1.62) and walk the cells exactly (DDA); air, liquids, no-collision
//! blocks, climbables and open doors do not stop them; a cell without data does, as `unloaded`.
//! Both also name the first player or mob in the way before that end (`entity`), from the entity
//! plugin's view ([`entity_on_ray`]); `entities:false` leaves it out.

use clawcraft_core::{AgentCommand, CommandCtx, CommandError, SightRay, SightedEntity, Vec3, entity_on_ray};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{MAX_LOOK_DISTANCE, MAX_RAYCAST_LENGTH, View, coord, is_obstacle, positive_up_to, view};
use crate::query::{Cell, round2};
use crate::raycast::{Face, Ray, RayEnd, cast, direction};

/// The first block that stops a ray.
#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Obstacle {
    pub x: i32,
    pub y: i32,
    pub z: i32,
    pub name: String,
    /// The face the ray entered by (`down`, `up`, `north`, `south`, `west`, `east`); `null` when
    /// the eye is inside the block.
    pub face: Option<Face>,
    /// Bedrock's number of that face (0 down … 5 east).
    pub face_id: Option<u8>,
    /// From the eye to the hit point.
    pub distance: f64,
}

/// How a ray ended, in response form.
struct Outcome {
    clear: bool,
    obstacle: Option<Obstacle>,
    hit: Option<Vec3>,
    unloaded_at: Option<Cell>,
}

fn outcome(v: &View<'_>, ray: &Ray) -> Outcome {
    match ray.end {
        RayEnd::Clear => Outcome { clear: true, obstacle: None, hit: None, unloaded_at: None },
        RayEnd::Unloaded { cell, .. } => Outcome { clear: false, obstacle: None, hit: None, unloaded_at: Some(cell) },
        RayEnd::Hit { cell, id, face, point, distance } => Outcome {
            clear: false,
            obstacle: Some(Obstacle {
                x: cell.x,
                y: cell.y,
                z: cell.z,
                name: v.ids.name(id).to_owned(),
                face,
                face_id: face.map(Face::id),
                distance: round2(distance),
            }),
            hit: Some(Vec3::new(point[0], point[1], point[2]).rounded()),
            unloaded_at: None,
        },
    }
}

/// How far along the ray something could still be seen: to the obstacle, to the first cell
/// without data, or the whole length.
fn seen_length(ray: &Ray, length: f64) -> f64 {
    match ray.end {
        RayEnd::Clear => length,
        RayEnd::Hit { distance, .. } | RayEnd::Unloaded { distance, .. } => distance,
    }
}

/// The first player or mob on the ray before what ends it (`None` when `wanted` is false).
fn entity_in_sight(
    ctx: &CommandCtx<'_>,
    eye: Vec3,
    dir: [f64; 3],
    ray: &Ray,
    length: f64,
    wanted: bool,
) -> Option<SightedEntity> {
    let norm = (dir[0] * dir[0] + dir[1] * dir[1] + dir[2] * dir[2]).sqrt();
    if !wanted || norm <= 0.0 || !norm.is_finite() {
        return None;
    }
    let direction = Vec3::new(dir[0] / norm, dir[1] / norm, dir[2] / norm);
    entity_on_ray(ctx.world, ctx.bot, SightRay { origin: eye, direction, length: seen_length(ray, length) })
}

fn cast_from_eye(v: &View<'_>, dir: [f64; 3], length: f64) -> Ray {
    let eye = v.eye();
    let air = v.world.air_id();
    cast(v.world, [eye.x, eye.y, eye.z], dir, length, |id| is_obstacle(&v.ids, air, id))
}

/// `{"action":"look","distance":10}`: what the bot is looking at.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Look {
    /// Blocks to look along (default 10, at most 64).
    pub distance: Option<f64>,
    /// Also report the first player or mob in sight as `entity` (default true).
    pub entities: Option<bool>,
}

/// A cell along the gaze.
#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SeenBlock {
    /// From the eye to where the gaze enters the cell.
    pub dist: f64,
    pub x: i32,
    pub y: i32,
    pub z: i32,
    pub state_id: u32,
    /// Stops the gaze.
    pub solid: bool,
    pub name: String,
}

/// Response of `look`.
#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct LookResponse {
    /// The eye position.
    pub origin: Vec3,
    /// Unit gaze direction (ClawCraft's `facing`).
    pub facing: Vec3,
    /// The point `distance` blocks along the gaze.
    pub target: Vec3,
    /// Every cell the ray passes (air included, from the eye's own cell on), then the obstacle,
    /// in order; it ends before a cell without data.
    pub blocks: Vec<SeenBlock>,
    /// Nothing stops the gaze within `distance` and every cell had data.
    pub clear: bool,
    pub first_obstacle: Option<Obstacle>,
    /// Where the gaze meets the obstacle.
    pub hit: Option<Vec3>,
    /// The gaze reached a cell without data (there `clear` is false and nothing is known beyond).
    pub unloaded: bool,
    pub unloaded_at: Option<Cell>,
    /// The first player or mob the gaze meets before the obstacle (a hit box, not a cell);
    /// `null` when none, or with `entities:false`.
    pub entity: Option<SightedEntity>,
}

impl AgentCommand for Look {
    const NAME: &'static str = "look";
    const SUMMARY: &'static str = "Cast a ray from the eye along the bot's yaw/pitch: blocks passed, first obstacle with face and hit point, first entity in sight";
    const EXAMPLE: &'static str = r#"{"action":"look","distance":10}"#;
    const SIZE_HINT: Option<&'static str> = Some("use a shorter distance");
    const QUERY: bool = true;
    type Response = LookResponse;

    fn run(self, ctx: &mut CommandCtx<'_>) -> Result<LookResponse, CommandError> {
        let v = view(ctx)?;
        let distance = positive_up_to("distance", self.distance.unwrap_or(10.0), MAX_LOOK_DISTANCE)?;
        let dir = direction(f64::from(v.rotation.yaw), f64::from(v.rotation.pitch));
        let ray = cast_from_eye(&v, dir, distance);
        let seen = |cell: Cell, id: u32, dist: f64, solid: bool| SeenBlock {
            dist: round2(dist),
            x: cell.x,
            y: cell.y,
            z: cell.z,
            state_id: id,
            solid,
            name: v.ids.name(id).to_owned(),
        };
        let mut blocks: Vec<SeenBlock> = ray.passed.iter().map(|p| seen(p.cell, p.id, p.distance, false)).collect();
        if let RayEnd::Hit { cell, id, distance, .. } = ray.end {
            blocks.push(seen(cell, id, distance, true));
        }
        let o = outcome(&v, &ray);
        let eye = v.eye();
        let entity = entity_in_sight(ctx, eye, dir, &ray, distance, self.entities.unwrap_or(true));
        let target = Vec3::new(eye.x + dir[0] * distance, eye.y + dir[1] * distance, eye.z + dir[2] * distance);
        Ok(LookResponse {
            origin: eye.rounded(),
            facing: Vec3::new(dir[0], dir[1], dir[2]).rounded(),
            target: target.rounded(),
            blocks,
            clear: o.clear,
            first_obstacle: o.obstacle,
            hit: o.hit,
            unloaded: o.unloaded_at.is_some(),
            unloaded_at: o.unloaded_at,
            entity,
        })
    }
}

/// `{"action":"raycast","x":10,"z":5,"y":-60}`: is the straight line from the eye to a point clear?
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Raycast {
    pub x: f64,
    pub z: f64,
    /// Target height (default: the eye's).
    pub y: Option<f64>,
    /// Also report the first player or mob on the line as `entity` (default true).
    pub entities: Option<bool>,
}

/// Response of `raycast`.
#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct RaycastResponse {
    /// The eye position.
    pub from: Vec3,
    /// The target point.
    pub to: Vec3,
    /// Nothing but air, liquids and passable blocks between, and every cell had data.
    pub clear: bool,
    /// From the eye to the target.
    pub distance: f64,
    /// The first block in the way.
    pub obstacle: Option<Obstacle>,
    /// Where the line meets the obstacle.
    pub hit: Option<Vec3>,
    /// The line crosses a cell without data before any obstacle.
    pub unloaded: bool,
    pub unloaded_at: Option<Cell>,
    /// The first player or mob on the line before the obstacle (or the target); `null` when
    /// none, or with `entities:false`.
    pub entity: Option<SightedEntity>,
}

impl AgentCommand for Raycast {
    const NAME: &'static str = "raycast";
    const SUMMARY: &'static str = "Exact line of sight from the eye to x,z[,y] (air, liquids and passable blocks ignored): first obstacle, face, hit point, first entity on the line";
    const EXAMPLE: &'static str = r#"{"action":"raycast","x":10,"z":5,"y":-60}"#;
    const QUERY: bool = true;
    const MISSING_PARAMS: &'static [(&'static str, &'static str)] =
        &[("x", "Need position and target"), ("z", "Need position and target")];
    type Response = RaycastResponse;

    fn run(self, ctx: &mut CommandCtx<'_>) -> Result<RaycastResponse, CommandError> {
        let v = view(ctx)?;
        let eye = v.eye();
        let to = Vec3::new(coord("x", self.x)?, coord("y", self.y.unwrap_or(eye.y))?, coord("z", self.z)?);
        let distance = eye.distance(to);
        if distance > MAX_RAYCAST_LENGTH {
            return Err(CommandError::out_of_range(format!(
                "the target is {distance:.1} blocks away; at most {MAX_RAYCAST_LENGTH}"
            )));
        }
        let dir = [to.x - eye.x, to.y - eye.y, to.z - eye.z];
        let ray = cast_from_eye(&v, dir, distance);
        let o = outcome(&v, &ray);
        let entity = entity_in_sight(ctx, eye, dir, &ray, distance, self.entities.unwrap_or(true));
        Ok(RaycastResponse {
            from: eye.rounded(),
            to: to.rounded(),
            clear: o.clear,
            distance: round2(distance),
            obstacle: o.obstacle,
            hit: o.hit,
            unloaded: o.unloaded_at.is_some(),
            unloaded_at: o.unloaded_at,
            entity,
        })
    }
}
