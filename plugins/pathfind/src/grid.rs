//! The block map as the navigator reads it: one [`NavCell`] per block, classified once per block
//! state from the real collision boxes (the physics engine's shape table), the block's physics
//! (liquids, climbables) and the registry's hazard/door classes; and [`Snapshot`], the sub-chunks
//! around a search copied off the bot's world so the search can run on another thread.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use clawcraft_movement::BlockTable;
use clawcraft_movement::physics::Climb;
use clawcraft_world::block::{BlockRegistry, ShapeClass, StateIndex};
use clawcraft_world::chunk::storage::block_index;
use clawcraft_world::chunk::{SubChunk, World};
use clawcraft_world::ids::IdTable;
use rustc_hash::FxHashMap;

/// What the navigator knows about one block.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct NavCell {
    /// Top of the collision boxes in sixteenths of a block (16 = a full block, 24 = a fence).
    pub top: u8,
    /// Bottom of the collision boxes in sixteenths.
    pub bottom: u8,
    /// [`NavCell::SOLID`] … flags.
    pub flags: u8,
    /// Ticks to break it bare-handed / 4, saturated (255: unbreakable or unknown).
    pub hardness: u8,
}

impl NavCell {
    /// Has collision boxes (blocks the body unless it is the ground under the feet).
    pub const SOLID: u8 = 1;
    /// Water (swim).
    pub const WATER: u8 = 2;
    /// Hurts or traps: lava, fire, cactus, magma, berry bushes, cobweb, powder snow, …
    pub const HAZARD: u8 = 4;
    /// Ladder or vine (climb).
    pub const CLIMB: u8 = 8;
    /// A door, trapdoor or gate (openable; a closed one is also SOLID).
    pub const DOOR: u8 = 16;
    /// No data: never walked into, never stood on.
    pub const UNLOADED: u8 = 32;
    /// Stairs: their top is reached by walking (two half steps), not by a jump.
    pub const STAIRS: u8 = 64;

    /// No data.
    pub const UNKNOWN: Self = Self { top: 0, bottom: 0, flags: Self::UNLOADED, hardness: 255 };
    /// Air.
    pub const AIR: Self = Self { top: 0, bottom: 0, flags: 0, hardness: 0 };
    /// A full solid block (tests, custom blocks).
    pub const STONE: Self = Self { top: 16, bottom: 0, flags: Self::SOLID, hardness: 11 };

    #[inline]
    pub fn has(self, flag: u8) -> bool {
        self.flags & flag != 0
    }

    /// Nothing here stops a body: no collision, no hazard, data present.
    #[inline]
    pub fn is_clear(self) -> bool {
        self.flags & (Self::SOLID | Self::HAZARD | Self::UNLOADED) == 0
    }

    /// Top of the boxes in blocks.
    #[inline]
    pub fn top_blocks(self) -> f32 {
        f32::from(self.top) / 16.0
    }

    /// Can be broken (by a future dig move).
    pub fn breakable(self) -> bool {
        self.hardness < 255 && !self.has(Self::UNLOADED)
    }
}

/// [`NavCell`]s of every state of one registry, by [`StateIndex`].
#[derive(Debug)]
pub struct NavTable {
    cells: Vec<NavCell>,
}

/// Tables by (game version, state count).
type NavCache = HashMap<(String, usize), Arc<NavTable>>;

impl NavTable {
    /// The table of a registry, built once per (version, state count) and shared.
    pub fn of(registry: &BlockRegistry) -> Arc<Self> {
        static CACHE: OnceLock<Mutex<NavCache>> = OnceLock::new();
        let key = (registry.game_version().to_owned(), registry.states().len());
        let mut cache = CACHE.get_or_init(Default::default).lock().unwrap_or_else(|p| p.into_inner());
        if let Some(t) = cache.get(&key) {
            return Arc::clone(t);
        }
        let table = Arc::new(Self::build(registry, &BlockTable::of(registry)));
        cache.insert(key, Arc::clone(&table));
        table
    }

    fn build(registry: &BlockRegistry, blocks: &BlockTable) -> Self {
        let cells =
            (0..registry.states().len() as u32).map(StateIndex).map(|s| classify(registry, blocks, s)).collect();
        Self { cells }
    }

    #[inline]
    pub fn cell(&self, state: StateIndex) -> NavCell {
        self.cells.get(state.index()).copied().unwrap_or(NavCell::STONE)
    }
}

fn classify(registry: &BlockRegistry, blocks: &BlockTable, state: StateIndex) -> NavCell {
    let block = blocks.block(state);
    let (Some(info), Some(st)) = (registry.block_of(state), registry.state(state)) else { return NavCell::STONE };
    if block.physics.air {
        return NavCell::AIR;
    }
    let mut cell = NavCell::AIR;
    if !block.shapes.is_empty() {
        let top = block.shapes.iter().map(|b| b.max_y).fold(0.0_f32, f32::max);
        let bottom = block.shapes.iter().map(|b| b.min_y).fold(f32::INFINITY, f32::min);
        cell.top = (top * 16.0).round().clamp(0.0, 24.0) as u8;
        cell.bottom = (bottom * 16.0).round().clamp(0.0, 24.0) as u8;
        cell.flags |= NavCell::SOLID;
    }
    if block.physics.is_water() {
        cell.flags |= NavCell::WATER;
    }
    if block.physics.is_lava() || info.shape.is_hazard() {
        cell.flags |= NavCell::HAZARD;
    }
    if matches!(block.physics.climb, Climb::Ladder | Climb::Vine) {
        // A ladder's thin box is on its wall side; the climber stands in the cell.
        cell.flags |= NavCell::CLIMB;
        cell.flags &= !NavCell::SOLID;
    }
    match info.shape {
        ShapeClass::Door | ShapeClass::Trapdoor => {
            cell.flags |= NavCell::DOOR;
            if st.is_open() {
                // An open door or trapdoor is a panel along one edge: the body passes.
                cell.flags &= !NavCell::SOLID;
            }
        }
        ShapeClass::FenceWall if info.name.contains("fence_gate") => {
            cell.flags |= NavCell::DOOR;
        }
        ShapeClass::Stairs => cell.flags |= NavCell::STAIRS,
        _ => {}
    }
    cell.hardness = if info.hardness < 0.0 {
        255
    } else {
        // Bare-handed break time: hardness × 1.5 s when hand-harvestable, × 5 s otherwise.
        let per = if info.harvest_tools.is_any() { 30.0 } else { 100.0 };
        ((info.hardness * per / 4.0).ceil()).clamp(0.0, 254.0) as u8
    };
    cell
}

/// How the search reads cells.
pub trait NavGrid {
    fn cell(&mut self, x: i32, y: i32, z: i32) -> NavCell;
}

/// One decoded sub-chunk: 4096 cells.
type Dense = Box<[NavCell; 4096]>;

/// The sub-chunks of a box of the bot's world, copied so a search can run off the game thread,
/// decoded to [`NavCell`]s lazily, one sub-chunk at a time, on first use.
pub struct Snapshot {
    raw: FxHashMap<(i32, i32, i32), SubChunk>,
    /// Decoded sub-chunks and where each is in `decoded`.
    index: FxHashMap<(i32, i32, i32), u32>,
    decoded: Vec<Dense>,
    ids: Arc<IdTable>,
    table: Arc<NavTable>,
    /// Network id → cell, filled as ids are met.
    by_id: FxHashMap<u32, NavCell>,
    /// Sub-chunk y range of the dimension (inclusive).
    min_sub: i32,
    max_sub: i32,
    /// The sub-chunk read last (most reads hit it).
    last: Option<((i32, i32, i32), u32)>,
}

impl Snapshot {
    /// Copies the sub-chunks of columns `cx0..=cx1` × `cz0..=cz1` and sub-chunk rows
    /// `sy0..=sy1` (absolute sub-chunk y) of `world`.
    pub fn capture(world: &World, ids: Arc<IdTable>, cols: [i32; 4], rows: [i32; 2]) -> Self {
        let h = world.heights();
        let (min_sub, max_sub) = (h.min_sub_y(), h.min_sub_y() + h.sub_chunk_count() as i32 - 1);
        let mut raw = FxHashMap::default();
        let [cx0, cx1, cz0, cz1] = cols;
        for cx in cx0..=cx1 {
            for cz in cz0..=cz1 {
                let Some(column) = world.column(cx, cz) else { continue };
                for sy in rows[0].max(min_sub)..=rows[1].min(max_sub) {
                    let i = (sy - min_sub) as usize;
                    if let Some(Some(sc)) = column.sub_chunks.get(i) {
                        raw.insert((cx, sy, cz), sc.clone());
                    }
                }
            }
        }
        let table = NavTable::of(&ids.registry);
        Self {
            raw,
            index: FxHashMap::default(),
            decoded: Vec::new(),
            ids,
            table,
            by_id: FxHashMap::default(),
            min_sub,
            max_sub,
            last: None,
        }
    }

    /// Sub-chunks copied.
    pub fn sub_chunks(&self) -> usize {
        self.raw.len()
    }

    fn nav_of(&mut self, id: u32) -> NavCell {
        if let Some(c) = self.by_id.get(&id) {
            return *c;
        }
        let c = self.ids.map.state(id).map_or(NavCell::STONE, |s| self.table.cell(s));
        self.by_id.insert(id, c);
        c
    }

    fn decode(&mut self, key: (i32, i32, i32)) -> Option<Dense> {
        let sc = self.raw.remove(&key)?;
        let layer = sc.layers.first()?;
        let mut out: Dense = Box::new([NavCell::AIR; 4096]);
        let mut last = (u32::MAX, NavCell::AIR);
        for (i, slot) in out.iter_mut().enumerate() {
            let id = layer.get(i);
            if id != last.0 {
                last = (id, self.nav_of(id));
            }
            *slot = last.1;
        }
        Some(out)
    }
}

impl NavGrid for Snapshot {
    #[inline]
    fn cell(&mut self, x: i32, y: i32, z: i32) -> NavCell {
        let key = (x >> 4, y >> 4, z >> 4);
        let idx = block_index((x & 15) as usize, (y & 15) as usize, (z & 15) as usize);
        if let Some((k, slot)) = self.last
            && k == key
        {
            return self.decoded.get(slot as usize).map_or(NavCell::UNKNOWN, |d| d[idx]);
        }
        if key.1 < self.min_sub || key.1 > self.max_sub {
            return NavCell::AIR;
        }
        let slot = match self.index.get(&key) {
            Some(s) => *s,
            None => {
                // No data is remembered as a slot past the end (reads as unknown).
                let s = match self.decode(key) {
                    Some(d) => {
                        self.decoded.push(d);
                        self.decoded.len() as u32 - 1
                    }
                    None => u32::MAX,
                };
                self.index.insert(key, s);
                s
            }
        };
        self.last = Some((key, slot));
        self.decoded.get(slot as usize).map_or(NavCell::UNKNOWN, |d| d[idx])
    }
}

/// A grid of explicit cells (tests and benches): everything not set is `fill`.
pub struct MapGrid {
    pub cells: FxHashMap<(i32, i32, i32), NavCell>,
    pub fill: fn(i32) -> NavCell,
}

impl NavGrid for MapGrid {
    fn cell(&mut self, x: i32, y: i32, z: i32) -> NavCell {
        self.cells.get(&(x, y, z)).copied().unwrap_or_else(|| (self.fill)(y))
    }
}
