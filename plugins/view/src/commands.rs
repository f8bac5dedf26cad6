//! `render` and `map_image`: a snapshot of the bot's world and entities is taken on the game
//! thread, the picture is drawn and PNG-encoded on bevy_tasks' `AsyncComputeTaskPool`, and the
//! finished job wakes the runner, which answers between ticks.

use std::sync::{Arc, Mutex, PoisonError};

use base64::Engine;
use bevy_ecs::prelude::*;
use bevy_tasks::{AsyncComputeTaskPool, Task};
use clawcraft_core::{
    AgentCommand, CommandCtx, CommandError, CommandResponse, CommandWaker, DeferredReply, EYE_HEIGHT, EntityIds,
    Position, Rotation,
};
use clawcraft_entity::{EntityCategory, EntityIndex, EntityPosition};
use clawcraft_world::chunk::World as ChunkWorld;
use clawcraft_world::ids::BlockIds;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::map::{MapView, map};
use crate::render::{Camera, MAX_DISTANCE, SKY, render};
use crate::scene::{Figure, Mark, Scene};

/// Default picture side in pixels.
pub const DEFAULT_SIZE: u32 = 256;
/// Largest picture side.
pub const MAX_SIZE: u32 = 512;
/// Default and largest `map_image` radius in blocks.
pub const DEFAULT_RADIUS: u32 = 32;
pub const MAX_RADIUS: u32 = 128;
/// Pictures being drawn at once (across the bots of the process); one more is `BUSY`.
pub const MAX_IN_FLIGHT: usize = 4;

/// The answer of `render` and `map_image`.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct ImageResponse {
    /// The picture: a PNG (8-bit RGB), base64.
    pub png_base64: String,
    pub width: u32,
    pub height: u32,
    /// What the colours mean, in one line.
    pub legend: String,
}

type Outcome = Result<ImageResponse, CommandError>;

/// A picture being drawn on the pool.
pub struct Job {
    /// Dropping it cancels the drawing; `None` once waited for.
    task: Option<Task<()>>,
    slot: Arc<Mutex<Option<Outcome>>>,
    reply: DeferredReply,
}

/// Pictures in flight (at most [`MAX_IN_FLIGHT`]).
#[derive(Resource, Default)]
pub struct RenderJobs(pub Vec<Job>);

/// Run condition of [`answer_renders`].
pub fn renders_waiting(jobs: Option<Res<RenderJobs>>) -> bool {
    jobs.is_some_and(|j| !j.0.is_empty())
}

/// Answers the pictures that are done.
pub fn answer_renders(mut jobs: ResMut<RenderJobs>, mut responses: MessageWriter<CommandResponse>) {
    jobs.0.retain_mut(|job| {
        let Some(outcome) = job.slot.lock().unwrap_or_else(PoisonError::into_inner).take() else { return true };
        responses.write(job.reply.respond(outcome));
        false
    });
}

/// Blocks until every picture in flight is drawn (tests and benches; the answers then go out
/// with the next `Interim` or tick).
pub fn finish_renders(world: &mut World) {
    let Some(mut jobs) = world.get_resource_mut::<RenderJobs>() else { return };
    for job in &mut jobs.0 {
        if let Some(task) = job.task.take() {
            bevy_tasks::block_on(task);
        }
    }
}

/// Draws on the pool; the answer goes out when it is done.
fn spawn(ctx: &mut CommandCtx<'_>, draw: impl FnOnce() -> Outcome + Send + 'static) {
    let waker = ctx.world.get_resource::<CommandWaker>().cloned();
    let slot = Arc::new(Mutex::new(None));
    let filled = slot.clone();
    let task = AsyncComputeTaskPool::get_or_init(Default::default).spawn(async move {
        let outcome = draw();
        // In the slot before the wake, so the woken runner finds it.
        *filled.lock().unwrap_or_else(PoisonError::into_inner) = Some(outcome);
        if let Some(w) = waker {
            w.wake();
        }
    });
    let reply = ctx.defer();
    ctx.world.get_resource_or_init::<RenderJobs>().0.push(Job { task: Some(task), slot, reply });
}

fn check_capacity(ctx: &CommandCtx<'_>) -> Result<(), CommandError> {
    let n = ctx.world.get_resource::<RenderJobs>().map_or(0, |j| j.0.len());
    if n >= MAX_IN_FLIGHT {
        return Err(CommandError::new(
            "BUSY",
            format!("{n} pictures are being drawn (at most {MAX_IN_FLIGHT} at once); ask again when one has answered"),
        ));
    }
    Ok(())
}

/// Encodes RGB rows as a PNG, base64.
pub fn png_base64(rgb: &[u8], width: u32, height: u32) -> Result<String, CommandError> {
    let mut bytes = Vec::with_capacity(rgb.len() / 4 + 64);
    let mut enc = png::Encoder::new(&mut bytes, width, height);
    enc.set_color(png::ColorType::Rgb);
    enc.set_depth(png::BitDepth::Eight);
    enc.set_compression(png::Compression::Fast);
    let mut writer = enc.write_header().map_err(CommandError::internal)?;
    writer.write_image_data(rgb).map_err(CommandError::internal)?;
    writer.finish().map_err(CommandError::internal)?;
    Ok(base64::engine::general_purpose::STANDARD.encode(&bytes))
}

fn mark_of(category: EntityCategory) -> Mark {
    match category {
        EntityCategory::Player => Mark::Player,
        EntityCategory::Hostile => Mark::Hostile,
        EntityCategory::Item => Mark::Item,
        _ => Mark::Mob,
    }
}

/// The entities the bot sees within `radius` (horizontally) of `centre`, and the bot itself
/// when `with_bot`.
fn figures(ctx: &CommandCtx<'_>, centre: [f64; 3], radius: f64, with_bot: bool) -> Vec<Figure> {
    let world = &*ctx.world;
    let own = world.get::<EntityIds>(ctx.bot).map(|i| i.runtime_id);
    let mut out = Vec::new();
    if with_bot && let Some(p) = world.get::<Position>(ctx.bot) {
        out.push(Figure { at: [p.0.x, p.0.y, p.0.z], mark: Mark::Bot });
    }
    let Some(index) = world.get::<EntityIndex>(ctx.bot) else { return out };
    for entry in index.entries() {
        if Some(entry.runtime_id) == own {
            continue;
        }
        let Some(pos) = world.get::<EntityPosition>(entry.entity) else { continue };
        let at = [pos.0.x, pos.0.y, pos.0.z];
        if (at[0] - centre[0]).abs() > radius || (at[2] - centre[2]).abs() > radius {
            continue;
        }
        out.push(Figure { at, mark: mark_of(entry.category) });
    }
    out
}

/// The bot's world and ids.
fn bot_world<'w>(ctx: &'w CommandCtx<'_>) -> Result<(&'w ChunkWorld, &'w BlockIds), CommandError> {
    let world = ctx.world.get::<ChunkWorld>(ctx.bot).ok_or_else(CommandError::not_spawned)?;
    let ids = ctx.world.get::<BlockIds>(ctx.bot).ok_or_else(CommandError::not_spawned)?;
    Ok((world, ids))
}

const MARKS: &str = "players blue, hostile mobs red, other mobs orange, items yellow";

fn finite(v: f64, what: &str) -> Result<f64, CommandError> {
    if v.is_finite() && v.abs() <= 30_000_000.0 {
        Ok(v)
    } else {
        Err(CommandError::out_of_range(format!("{what} must be finite and within ±30 000 000")))
    }
}

fn side(v: Option<u32>, what: &str) -> Result<u32, CommandError> {
    match v.unwrap_or(DEFAULT_SIZE) {
        s @ 1..=MAX_SIZE => Ok(s),
        s => Err(CommandError::out_of_range(format!("{what} must be 1..{MAX_SIZE} (got {s})"))),
    }
}

/// `{"action":"render"}`: a picture of what the bot sees.
#[derive(Deserialize, JsonSchema, Debug, Default)]
pub struct RenderCmd {
    /// Picture width in pixels (default 256, max 512).
    pub width: Option<u32>,
    /// Picture height in pixels (default 256, max 512).
    pub height: Option<u32>,
    /// Vertical field of view in degrees (default 70, 10..150).
    pub fov: Option<f64>,
    /// Eye position to look from (all three, default the bot's eye: feet + 1.62).
    pub x: Option<f64>,
    pub y: Option<f64>,
    pub z: Option<f64>,
    /// Direction in degrees as Bedrock counts it (yaw 0 faces +z/south, 90 faces −x/west;
    /// positive pitch looks down); default the bot's head rotation.
    pub yaw: Option<f64>,
    pub pitch: Option<f64>,
}

impl AgentCommand for RenderCmd {
    const NAME: &'static str = "render";
    const SUMMARY: &'static str = "A PNG of the bot's first-person view (or from x,y,z,yaw,pitch): blocks in their colours lit by face, players/mobs/items as coloured boxes, sky where nothing is hit";
    const EXAMPLE: &'static str = r#"{"action":"render","width":256,"height":256,"fov":70}"#;
    const SIZE_HINT: Option<&'static str> = Some("a picture: ask for a smaller width/height to make it shorter");
    const QUERY: bool = true;
    type Response = ImageResponse;

    fn run(self, ctx: &mut CommandCtx<'_>) -> Result<ImageResponse, CommandError> {
        let (width, height) = (side(self.width, "width")?, side(self.height, "height")?);
        let fov = self.fov.unwrap_or(70.0);
        if !(10.0..=150.0).contains(&fov) {
            return Err(CommandError::out_of_range("fov must be 10..150 degrees"));
        }
        let feet = ctx.world.get::<Position>(ctx.bot).ok_or_else(CommandError::not_spawned)?.0;
        let rot = ctx.world.get::<Rotation>(ctx.bot).copied().unwrap_or_default();
        let (eye, moved) = match (self.x, self.y, self.z) {
            (None, None, None) => ([feet.x, feet.y + EYE_HEIGHT, feet.z], false),
            (Some(x), Some(y), Some(z)) => ([finite(x, "x")?, finite(y, "y")?, finite(z, "z")?], true),
            _ => return Err(CommandError::invalid_params("give x, y and z together (or none)")),
        };
        let yaw = finite(self.yaw.unwrap_or(f64::from(rot.yaw)), "yaw")?;
        let pitch = finite(self.pitch.unwrap_or(f64::from(rot.pitch)), "pitch")?.clamp(-90.0, 90.0);
        check_capacity(ctx)?;
        let cam = Camera { eye, yaw, pitch, fov, width, height };
        let (world, ids) = bot_world(ctx)?;
        let (cols, rows) = cam.reach();
        let mut scene = Scene::capture(world, ids.0.clone(), cols, rows);
        scene.figures = figures(ctx, eye, MAX_DISTANCE, moved);
        let legend = format!(
            "first-person {width}×{height}, fov {fov}°, eye ({:.1}, {:.1}, {:.1}) yaw {yaw:.0}° pitch {pitch:.0}°: \
             blocks in their colours (top lit brightest, sides dimmer), {MARKS}{}, sky #{:02x}{:02x}{:02x}, up to {MAX_DISTANCE} blocks",
            eye[0],
            eye[1],
            eye[2],
            if moved { ", the bot white" } else { "" },
            SKY[0],
            SKY[1],
            SKY[2],
        );
        spawn(ctx, move || {
            let rgb = render(&mut scene, &cam);
            Ok(ImageResponse { png_base64: png_base64(&rgb, width, height)?, width, height, legend })
        });
        Ok(ImageResponse { png_base64: String::new(), width, height, legend: String::new() })
    }
}

/// `{"action":"map_image","radius":32}`: a top-down map around the bot.
#[derive(Deserialize, JsonSchema, Debug, Default)]
pub struct MapImageCmd {
    /// Blocks from the bot to each edge (default 32, max 128): the map covers 2·radius+1 blocks.
    pub radius: Option<u32>,
    /// Pixels per block (default: as many as keep the picture within 256 pixels, at least 1;
    /// at most 8, and the picture at most 512 pixels).
    pub scale: Option<u32>,
}

impl AgentCommand for MapImageCmd {
    const NAME: &'static str = "map_image";
    const SUMMARY: &'static str = "A top-down PNG map of a radius around the bot: each column's top block colour shaded by height, water/lava translucent, the bot/players/mobs/items ringed";
    const EXAMPLE: &'static str = r#"{"action":"map_image","radius":32}"#;
    const SIZE_HINT: Option<&'static str> = Some("a picture: ask for a smaller radius or scale to make it shorter");
    const QUERY: bool = true;
    type Response = ImageResponse;

    fn run(self, ctx: &mut CommandCtx<'_>) -> Result<ImageResponse, CommandError> {
        let radius = self.radius.unwrap_or(DEFAULT_RADIUS);
        if !(1..=MAX_RADIUS).contains(&radius) {
            return Err(CommandError::out_of_range(format!("radius must be 1..{MAX_RADIUS} (got {radius})")));
        }
        let blocks = 2 * radius + 1;
        let scale = match self.scale {
            None => (DEFAULT_SIZE / blocks).clamp(1, 8),
            Some(s @ 1..=8) if s * blocks <= MAX_SIZE => s,
            Some(s) => {
                return Err(CommandError::out_of_range(format!(
                    "scale must be 1..8 with the picture at most {MAX_SIZE} pixels (got {s}; radius {radius}: at most {})",
                    (MAX_SIZE / blocks).clamp(1, 8)
                )));
            }
        };
        let feet = ctx.world.get::<Position>(ctx.bot).ok_or_else(CommandError::not_spawned)?.0;
        check_capacity(ctx)?;
        let (world, ids) = bot_world(ctx)?;
        let ground = (feet.y - 1e-3).floor() as i32;
        let view = MapView {
            centre: [feet.x.floor() as i32, feet.z.floor() as i32],
            radius: radius as i32,
            scale,
            ref_y: ground,
        };
        let h = world.heights();
        let rows = [h.min_sub_y(), h.min_sub_y() + h.sub_chunk_count() as i32 - 1];
        let mut scene = Scene::capture(world, ids.0.clone(), view.columns(), rows);
        scene.figures = figures(ctx, [feet.x, feet.y, feet.z], f64::from(radius) + 1.0, true);
        let size = view.size();
        let legend = format!(
            "top-down {blocks}×{blocks} blocks around ({}, {}), {scale} px/block, north up: each column's top block, \
             brighter higher than your ground (y {ground}), water/lava translucent, unloaded black; rings: you white, {MARKS}",
            view.centre[0], view.centre[1],
        );
        spawn(ctx, move || {
            let rgb = map(&mut scene, &view);
            Ok(ImageResponse { png_base64: png_base64(&rgb, size, size)?, width: size, height: size, legend })
        });
        Ok(ImageResponse { png_base64: String::new(), width: size, height: size, legend: String::new() })
    }
}
