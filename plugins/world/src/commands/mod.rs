//! The world perception commands: `block`, `blocks`, `chunks`, `find`, `scan`, `compact_scan`,
//! `look`, `raycast`. All are read-only queries answered between ticks, all need a spawned bot,
//! and all bound their work and their responses (limits below, `OUT_OF_RANGE` beyond them).

mod ray;

use std::sync::Arc;

use clawcraft_core::{CommandCtx, CommandError, EYE_HEIGHT, Position, Rotation, Vec3};

use crate::chunk::World as BlockWorld;
use crate::ids::{BlockIds, IdTable};
use crate::query::Cell;

/// See [`View::feet_cell`].
const FEET_SLACK: f64 = 1e-3;

pub use ray::{Look, LookResponse, Raycast, RaycastResponse};
mod area;
pub use area::{
    BlockCmd, BlockQuery, BlockResponse, Blocks, BlocksResponse, Chunks, ChunksResponse, CompactScanCmd, Find,
    FindResponse, ScanCmd, block_query, find_nearest, find_radius,
};

/// Largest horizontal scan radius.
pub const MAX_SCAN_RADIUS: i32 = 32;
/// Largest vertical scan radius.
pub const MAX_SCAN_RADIUS_Y: i32 = 32;
/// Most cells a `blocks` box may hold.
pub const MAX_BOX_CELLS: u64 = 65_536;
/// `find`'s radius when none is given.
pub const DEFAULT_FIND_RADIUS: f64 = 32.0;
/// Largest `find` radius.
pub const MAX_FIND_RADIUS: f64 = 256.0;
/// Most `find` results.
pub const MAX_FIND_COUNT: u32 = 256;
/// Largest `chunks` radius, in chunks.
pub const MAX_CHUNKS_RADIUS: i32 = 16;
/// Longest `look`.
pub const MAX_LOOK_DISTANCE: f64 = 64.0;
/// Longest `raycast`.
pub const MAX_RAYCAST_LENGTH: f64 = 256.0;
/// Coordinates beyond the world border (±30 000 000) are refused before any arithmetic.
const MAX_COORD: f64 = 30_000_000.0;

/// What a world command reads: the bot's blocks, id table, feet position and rotation.
pub(crate) struct View<'a> {
    pub world: &'a BlockWorld,
    pub ids: Arc<IdTable>,
    pub feet: Vec3,
    pub rotation: Rotation,
}

impl View<'_> {
    /// The cell the feet are in. Wire positions are f32, so a bot standing on a block at
    /// y = −60 may read −60.000001; a thousandth of a block of slack keeps it on −60.
    pub fn feet_cell(&self) -> Cell {
        Cell::containing(self.feet.x, self.feet.y + FEET_SLACK, self.feet.z)
    }

    /// The eye position (feet + 1.62).
    pub fn eye(&self) -> Vec3 {
        self.feet.offset_y(EYE_HEIGHT)
    }
}

/// Gathers the [`View`] of the command's bot.
pub(crate) fn view<'a>(ctx: &'a CommandCtx<'_>) -> Result<View<'a>, CommandError> {
    let w = &*ctx.world;
    let world = w.get::<BlockWorld>(ctx.bot).ok_or_else(CommandError::not_spawned)?;
    let feet = w.get::<Position>(ctx.bot).ok_or_else(CommandError::not_spawned)?.0;
    let rotation = w.get::<Rotation>(ctx.bot).copied().unwrap_or_default();
    let ids = match w.get::<BlockIds>(ctx.bot) {
        Some(ids) => ids.0.clone(),
        None => BlockIds::fallback().ok_or_else(|| CommandError::internal("no block data"))?,
    };
    Ok(View { world, ids, feet, rotation })
}

/// A world coordinate: finite and inside the world border.
pub(crate) fn coord(name: &str, v: f64) -> Result<f64, CommandError> {
    if v.is_finite() && v.abs() <= MAX_COORD {
        Ok(v)
    } else {
        Err(CommandError::out_of_range(format!("{name} must be a finite number within ±{MAX_COORD}")))
    }
}

/// An integer parameter within `[min, max]`.
pub(crate) fn int_in(name: &str, v: i32, min: i32, max: i32) -> Result<i32, CommandError> {
    if (min..=max).contains(&v) {
        Ok(v)
    } else {
        Err(CommandError::out_of_range(format!("{name} must be between {min} and {max}")))
    }
}

/// A positive finite number at most `max`.
pub(crate) fn positive_up_to(name: &str, v: f64, max: f64) -> Result<f64, CommandError> {
    if v.is_finite() && v > 0.0 && v <= max {
        Ok(v)
    } else {
        Err(CommandError::out_of_range(format!("{name} must be > 0 and ≤ {max}")))
    }
}

/// Whether a layer-0 id blocks a ray: everything but air, liquids, no-collision blocks,
/// climbables and open doors. Ids the registry lacks count as obstacles.
pub(crate) fn is_obstacle(ids: &IdTable, air: u32, id: u32) -> bool {
    if id == air {
        return false;
    }
    let (Some(state), Some(info)) = (ids.state(id), ids.info(id)) else { return true };
    if info.is_liquid() || info.shape.is_passable() {
        return false;
    }
    !(info.shape == crate::block::ShapeClass::Door && state.is_open())
}
