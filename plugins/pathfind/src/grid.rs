//! The block map as the navigator reads it: one [`NavCell`] per block, classified once per block
//! state from the real collision boxes (the physics engine's shape table), the block's physics
//! (liquids, climbables) and the registry's hazard/door classes; and [`Snapshot`], the sub-chunks
//! around a search copied off the bot's world so the search can run on another thread.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use clawcraft_movement::BlockTable;
use clawcraft_movement::physics::Climb;
use clawcraft_world::block::{BlockRegistry, ShapeClass, StateIndex};
use clawcraft_world::chunk::storage::{PalettedStorage, block_index, indices_per_word};
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
    /// For a door, trapdoor or gate with a standing panel ([`NavCell::DOOR`] and
    /// [`NavCell::SOLID`]): [`NavCell::PASS_CENTRE`] when a body fits in the middle of the cell,
    /// and one `PASS_*` bit per edge the body can cross (the panel is not on it). 0 otherwise.
    pub pass: u8,
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
    /// Falls when the block under it goes (sand, gravel, concrete powder, anvils, …).
    pub const FALLS: u8 = 128;

    /// [`NavCell::pass`]: a body (0.6 wide) fits in the middle of the cell beside the panel.
    pub const PASS_CENTRE: u8 = 1;
    /// [`NavCell::pass`]: the body can cross the cell's east (+x) edge.
    pub const PASS_EAST: u8 = 2;
    /// … the west (−x) edge.
    pub const PASS_WEST: u8 = 4;
    /// … the south (+z) edge.
    pub const PASS_SOUTH: u8 = 8;
    /// … the north (−z) edge.
    pub const PASS_NORTH: u8 = 16;

    /// No data.
    pub const UNKNOWN: Self = Self { top: 0, bottom: 0, flags: Self::UNLOADED, hardness: 255, pass: 0 };
    /// Air.
    pub const AIR: Self = Self { top: 0, bottom: 0, flags: 0, hardness: 0, pass: 0 };
    /// A full solid block (tests, custom blocks).
    pub const STONE: Self = Self { top: 16, bottom: 0, flags: Self::SOLID, hardness: 11, pass: 0 };

    #[inline]
    pub fn has(self, flag: u8) -> bool {
        self.flags & flag != 0
    }

    /// Nothing here stops a body: no collision, no hazard, data present.
    #[inline]
    pub fn is_clear(self) -> bool {
        self.flags & (Self::SOLID | Self::HAZARD | Self::UNLOADED) == 0
    }

    /// A door, trapdoor or gate whose panel leaves room for a body in the middle of the cell
    /// (an open door: which edges it can be crossed by is [`NavCell::crosses`]).
    #[inline]
    pub fn is_panel(self) -> bool {
        self.has(Self::DOOR) && self.has(Self::SOLID) && self.pass & Self::PASS_CENTRE != 0
    }

    /// Whether a body can stand here: nothing in the way, or a panel beside the middle.
    #[inline]
    pub fn body_fits(self) -> bool {
        self.is_clear() || self.is_panel()
    }

    /// Whether a body can cross the edge of this cell toward (`dx`, `dz`) (a cardinal direction):
    /// always for a clear cell, for a panel only when the panel is not on that edge.
    #[inline]
    pub fn crosses(self, dx: i32, dz: i32) -> bool {
        if self.is_clear() {
            return true;
        }
        if !self.is_panel() {
            return false;
        }
        let bit = match (dx.signum(), dz.signum()) {
            (1, 0) => Self::PASS_EAST,
            (-1, 0) => Self::PASS_WEST,
            (0, 1) => Self::PASS_SOUTH,
            (0, -1) => Self::PASS_NORTH,
            _ => return false,
        };
        self.pass & bit != 0
    }

    /// Top of the boxes in blocks.
    #[inline]
    pub fn top_blocks(self) -> f32 {
        f32::from(self.top) / 16.0
    }

    /// Can be broken (by a dig move).
    pub fn breakable(self) -> bool {
        self.hardness < 255 && !self.has(Self::UNLOADED)
    }

    /// A block a dig move may mine: solid, breakable, not a hazard (magma, cactus …) and not a
    /// liquid. Whether its neighbours make mining it unsafe is [`crate::search`]'s business.
    pub fn diggable(self) -> bool {
        self.has(Self::SOLID) && self.breakable() && !self.has(Self::HAZARD) && !self.has(Self::WATER)
    }

    /// A liquid (water, lava) or fire that would pour or spread into a cell mined beside it.
    pub fn flows(self) -> bool {
        self.has(Self::WATER) || (self.has(Self::HAZARD) && !self.has(Self::SOLID))
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
    let (Some(info), Some(_)) = (registry.block_of(state), registry.state(state)) else { return NavCell::STONE };
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
            // Open or closed, the panel's place comes from the real boxes of this state: a body
            // passes beside it, crossing only the edges the panel is not on.
            cell.flags |= NavCell::DOOR;
            cell.pass = panel_pass(block.shapes);
        }
        ShapeClass::FenceWall if info.name.contains("fence_gate") => {
            // Closed: a bar across the middle; open: no boxes at all (clear).
            cell.flags |= NavCell::DOOR;
        }
        ShapeClass::Stairs => cell.flags |= NavCell::STAIRS,
        _ => {}
    }
    if falls(&info.name) {
        cell.flags |= NavCell::FALLS;
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

/// Blocks that fall when what holds them up is mined (by name, namespace optional).
pub fn falls(name: &str) -> bool {
    let n = name.strip_prefix("minecraft:").unwrap_or(name);
    matches!(
        n,
        "sand"
            | "red_sand"
            | "gravel"
            | "suspicious_sand"
            | "suspicious_gravel"
            | "anvil"
            | "chipped_anvil"
            | "damaged_anvil"
            | "dragon_egg"
            | "pointed_dripstone"
            | "scaffolding"
            | "concrete_powder"
    ) || n.ends_with("_concrete_powder")
}

/// Where a body (0.6 × 0.6, centred) fits in a cell holding `boxes`: [`NavCell::PASS_CENTRE`]
/// when standing in the middle touches no box, and a `PASS_*` bit for each edge the body can
/// walk through from the middle (the strip from the middle to that edge touches no box). Only
/// boxes that stand up in the body's way count (a closed trapdoor's floor slab does not).
pub fn panel_pass(boxes: &[clawcraft_movement::physics::Aabb]) -> u8 {
    const LO: f32 = 0.2 + 1e-3;
    const HI: f32 = 0.8 - 1e-3;
    let standing: Vec<_> = boxes.iter().filter(|b| b.max_y - b.min_y > 0.5).collect();
    let hits = |x0: f32, x1: f32, z0: f32, z1: f32| {
        standing.iter().any(|b| b.min_x < x1 && b.max_x > x0 && b.min_z < z1 && b.max_z > z0)
    };
    if standing.is_empty() || hits(LO, HI, LO, HI) {
        return 0;
    }
    let mut pass = NavCell::PASS_CENTRE;
    for (bit, strip) in [
        (NavCell::PASS_EAST, (LO, 1.0, LO, HI)),
        (NavCell::PASS_WEST, (0.0, HI, LO, HI)),
        (NavCell::PASS_SOUTH, (LO, HI, LO, 1.0)),
        (NavCell::PASS_NORTH, (LO, HI, 0.0, HI)),
    ] {
        if !hits(strip.0, strip.1, strip.2, strip.3) {
            pass |= bit;
        }
    }
    pass
}

/// How the search reads cells.
pub trait NavGrid {
    fn cell(&mut self, x: i32, y: i32, z: i32) -> NavCell;

    /// The cells `y - 1 ..= y + 2` of column (`x`, `z`), bottom first: the floor under feet in
    /// cell `y`, the feet, the head and the cell above the head (all that [`crate::search::stand`]
    /// reads). A grid that can hand them out together overrides this.
    #[inline]
    fn cells4(&mut self, x: i32, y: i32, z: i32) -> [NavCell; 4] {
        [self.cell(x, y - 1, z), self.cell(x, y, z), self.cell(x, y + 1, z), self.cell(x, y + 2, z)]
    }

    /// [`NavGrid::cells4`] of the 3 × 3 columns centred on (`x`, `z`), by
    /// (dx + 1) × 3 + (dz + 1).
    #[inline]
    fn cells_around(&mut self, x: i32, y: i32, z: i32) -> [[NavCell; 4]; 9] {
        std::array::from_fn(|i| self.cells4(x + i as i32 / 3 - 1, y, z + i as i32 % 3 - 1))
    }
}

/// One decoded sub-chunk: 4096 cells.
type Dense = Box<[NavCell; 4096]>;

/// The sub-chunks of a box of the bot's world, held (shared `Arc`s, not copies: a block update
/// arriving meanwhile makes the world its own copy) so a search can run off the game thread,
/// decoded to [`NavCell`]s lazily, one sub-chunk at a time, on first use.
///
/// Sub-chunks are kept in flat tables over the smallest box (in sub-chunks) holding every one
/// captured, so finding the one holding a cell is arithmetic and one load.
pub struct Snapshot {
    /// Lowest corner of the box, in sub-chunk coordinates (x, y, z).
    origin: [i32; 3],
    /// Size of the box in sub-chunks (x, y, z).
    size: [i32; 3],
    /// Captured sub-chunks not decoded yet, by place in the box (x, then z, then y).
    raw: Vec<Option<Arc<SubChunk>>>,
    /// Decoded sub-chunks by place in the box (`None`: not decoded yet, or no data).
    decoded: Vec<Option<Dense>>,
    /// Sub-chunks captured.
    captured: usize,
    ids: Arc<IdTable>,
    table: Arc<NavTable>,
    /// Network id → cell, filled as ids are met.
    by_id: FxHashMap<u32, NavCell>,
    /// Sub-chunk y range of the dimension (inclusive).
    min_sub: i32,
    max_sub: i32,
}

impl Snapshot {
    /// Takes the sub-chunks of columns `cx0..=cx1` × `cz0..=cz1` and sub-chunk rows
    /// `sy0..=sy1` (absolute sub-chunk y) of `world`.
    pub fn capture(world: &World, ids: Arc<IdTable>, cols: [i32; 4], rows: [i32; 2]) -> Self {
        let h = world.heights();
        let (min_sub, max_sub) = (h.min_sub_y(), h.min_sub_y() + h.sub_chunk_count() as i32 - 1);
        let mut found = Vec::new();
        let [cx0, cx1, cz0, cz1] = cols;
        for cx in cx0..=cx1 {
            for cz in cz0..=cz1 {
                let Some(column) = world.column(cx, cz) else { continue };
                for sy in rows[0].max(min_sub)..=rows[1].min(max_sub) {
                    let i = (sy - min_sub) as usize;
                    if let Some(Some(sc)) = column.sub_chunks.get(i) {
                        found.push(([cx, sy, cz], sc.clone()));
                    }
                }
            }
        }
        // The box around what was found (empty when nothing was).
        let (mut lo, mut hi) = ([i32::MAX; 3], [i32::MIN; 3]);
        for (k, _) in &found {
            for a in 0..3 {
                lo[a] = lo[a].min(k[a]);
                hi[a] = hi[a].max(k[a]);
            }
        }
        let (origin, size) = if found.is_empty() {
            ([0; 3], [0; 3])
        } else {
            (lo, [hi[0] - lo[0] + 1, hi[1] - lo[1] + 1, hi[2] - lo[2] + 1])
        };
        let cells = size.iter().map(|&n| n as usize).product();
        let mut raw = vec![None; cells];
        let captured = found.len();
        for (k, sc) in found {
            raw[place(origin, size, k[0], k[1], k[2]).expect("inside the box")] = Some(sc);
        }
        let table = NavTable::of(&ids.registry);
        Self {
            origin,
            size,
            raw,
            decoded: (0..cells).map(|_| None).collect(),
            captured,
            ids,
            table,
            by_id: FxHashMap::default(),
            min_sub,
            max_sub,
        }
    }

    /// Sub-chunks copied.
    pub fn sub_chunks(&self) -> usize {
        self.captured
    }

    fn nav_of(&mut self, id: u32) -> NavCell {
        if let Some(c) = self.by_id.get(&id) {
            return *c;
        }
        let c = self.ids.map.state(id).map_or(NavCell::STONE, |s| self.table.cell(s));
        self.by_id.insert(id, c);
        c
    }

    fn decode(&mut self, sc: &SubChunk) -> Option<Dense> {
        let (blocks, liquids) = match sc.layers.as_slice() {
            [] => return None,
            [blocks] => (blocks, None),
            [blocks, liquids, ..] => (blocks, Some(liquids)),
        };
        // Each palette entry is classified once, then the packed indices are read in order.
        let mut out: Dense = Box::new([NavCell::AIR; 4096]);
        let cells: Vec<NavCell> = blocks.palette().iter().map(|&id| self.nav_of(id)).collect();
        each_index(blocks, |i, p| out[i] = cells[p]);
        // Layer 1: water inside blocks (a waterlogged slab, fence, seagrass …) makes the cell
        // water too: swum in, never mined, and no hole is dug beside it.
        if let Some(liquids) = liquids {
            let wet: Vec<bool> = liquids.palette().iter().map(|&id| self.nav_of(id).has(NavCell::WATER)).collect();
            if wet.contains(&true) {
                each_index(liquids, |i, p| {
                    if wet[p] {
                        out[i].flags |= NavCell::WATER;
                    }
                });
            }
        }
        Some(out)
    }

    /// The decoded sub-chunk holding cell (`x`, `y`, `z`), or the cell every block of it reads
    /// as: air above and below the dimension, unknown where there is no data.
    #[inline]
    fn sub(&mut self, x: i32, y: i32, z: i32) -> Result<&[NavCell; 4096], NavCell> {
        let sy = y >> 4;
        if sy < self.min_sub || sy > self.max_sub {
            return Err(NavCell::AIR);
        }
        let Some(i) = place(self.origin, self.size, x >> 4, sy, z >> 4) else { return Err(NavCell::UNKNOWN) };
        if self.decoded[i].is_none() {
            self.decode_at(i);
        }
        self.decoded[i].as_deref().ok_or(NavCell::UNKNOWN)
    }

    /// Decodes the sub-chunk at place `i` of the box, if it was captured and not decoded yet.
    #[cold]
    fn decode_at(&mut self, i: usize) {
        if let Some(sc) = self.raw[i].take() {
            self.decoded[i] = self.decode(&sc);
        }
    }
}

/// Where sub-chunk (`sx`, `sy`, `sz`) is in the flat tables of a box, or `None` outside it.
#[inline]
fn place(origin: [i32; 3], size: [i32; 3], sx: i32, sy: i32, sz: i32) -> Option<usize> {
    let (dx, dy, dz) = (sx.wrapping_sub(origin[0]), sy.wrapping_sub(origin[1]), sz.wrapping_sub(origin[2]));
    if (dx as u32) < size[0] as u32 && (dy as u32) < size[1] as u32 && (dz as u32) < size[2] as u32 {
        Some(((dx * size[2] + dz) * size[1] + dy) as usize)
    } else {
        None
    }
}

/// Calls `f(block index, palette index)` for each of the 4096 blocks of `layer`, in order.
fn each_index(layer: &PalettedStorage, mut f: impl FnMut(usize, usize)) {
    let bits = layer.bits();
    if bits == 0 {
        (0..4096).for_each(|i| f(i, 0));
        return;
    }
    let per = indices_per_word(bits);
    let mask = (1_u32 << bits) - 1;
    let mut i = 0;
    for &word in layer.words() {
        let mut w = word;
        for _ in 0..per {
            if i == 4096 {
                return;
            }
            f(i, (w & mask) as usize);
            w >>= bits;
            i += 1;
        }
    }
}

impl NavGrid for Snapshot {
    #[inline]
    fn cell(&mut self, x: i32, y: i32, z: i32) -> NavCell {
        let idx = block_index((x & 15) as usize, (y & 15) as usize, (z & 15) as usize);
        self.sub(x, y, z).map_or_else(|c| c, |d| d[idx])
    }

    #[inline]
    fn cells4(&mut self, x: i32, y: i32, z: i32) -> [NavCell; 4] {
        // A column's cells are consecutive in a sub-chunk (y is the lowest part of the index):
        // one slice from each of the (at most two) sub-chunks the four cells are in.
        let mut out = [NavCell::AIR; 4];
        let column = block_index((x & 15) as usize, 0, (z & 15) as usize);
        let (lo, hi) = (y - 1, y + 2);
        let split = if lo >> 4 == hi >> 4 { 4 } else { (16 - (lo & 15)) as usize };
        let first = (lo & 15) as usize;
        match self.sub(x, lo, z) {
            Ok(d) => out[..split].copy_from_slice(&d[column + first..column + first + split]),
            Err(c) => out[..split].fill(c),
        }
        if split < 4 {
            match self.sub(x, hi, z) {
                Ok(d) => out[split..].copy_from_slice(&d[column..column + 4 - split]),
                Err(c) => out[split..].fill(c),
            }
        }
        out
    }

    fn cells_around(&mut self, x: i32, y: i32, z: i32) -> [[NavCell; 4]; 9] {
        if (x - 1) >> 4 != (x + 1) >> 4 || (z - 1) >> 4 != (z + 1) >> 4 {
            return std::array::from_fn(|i| self.cells4(x + i as i32 / 3 - 1, y, z + i as i32 % 3 - 1));
        }
        // All nine columns in the same sub-chunk column: its (at most two) sub-chunks are
        // looked up once.
        let mut out = [[NavCell::AIR; 4]; 9];
        let (lo, hi) = (y - 1, y + 2);
        let split = if lo >> 4 == hi >> 4 { 4 } else { (16 - (lo & 15)) as usize };
        let first = (lo & 15) as usize;
        let columns =
            |i: usize| block_index(((x + i as i32 / 3 - 1) & 15) as usize, 0, ((z + i as i32 % 3 - 1) & 15) as usize);
        match self.sub(x, lo, z) {
            Ok(d) => {
                for (i, o) in out.iter_mut().enumerate() {
                    let c = columns(i) + first;
                    o[..split].copy_from_slice(&d[c..c + split]);
                }
            }
            Err(c) => out.iter_mut().for_each(|o| o[..split].fill(c)),
        }
        if split < 4 {
            match self.sub(x, hi, z) {
                Ok(d) => {
                    for (i, o) in out.iter_mut().enumerate() {
                        let c = columns(i);
                        o[split..].copy_from_slice(&d[c..c + 4 - split]);
                    }
                }
                Err(c) => out.iter_mut().for_each(|o| o[split..].fill(c)),
            }
        }
        out
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

#[cfg(test)]
mod tests {
    use clawcraft_world::block::StateValue::{Byte, Str};
    use clawcraft_world::ids::IdTable;

    use super::*;

    #[test]
    fn door_panels_block_only_the_edge_they_stand_on() {
        let ids = IdTable::new("1.26.45", true).expect("block data");
        let table = NavTable::of(&ids.registry);
        let door = |dir: &str, open: u8| {
            let props = [
                ("door_hinge_bit", Byte(0)),
                ("minecraft:cardinal_direction", Str(dir.into())),
                ("open_bit", Byte(open)),
                ("upper_block_bit", Byte(0)),
            ];
            table.cell(ids.registry.state_with("wooden_door", &props).expect("door state"))
        };
        // Closed (panel across the x axis, see data/gen-shapes.js): one x edge shut, the body
        // fits beside the panel (a step into the frame from the other side).
        let closed = door("south", 0);
        assert!(closed.has(NavCell::DOOR) && closed.has(NavCell::SOLID) && closed.body_fits());
        assert!(closed.crosses(0, 1) && closed.crosses(0, -1), "{:#b}", closed.pass);
        assert_eq!(u8::from(closed.crosses(1, 0)) + u8::from(closed.crosses(-1, 0)), 1, "{:#b}", closed.pass);
        // Open: a panel along one z edge — walked through along x, and across the free z edge only.
        let open = door("south", 1);
        assert!(open.is_panel() && open.body_fits(), "{open:?}");
        assert!(open.crosses(1, 0) && open.crosses(-1, 0), "along the panel: {:#b}", open.pass);
        assert_eq!(
            u8::from(open.crosses(0, 1)) + u8::from(open.crosses(0, -1)),
            1,
            "the panel stands on exactly one z edge: {:#b}",
            open.pass
        );
        // Turned a quarter: the open panel lies along an x edge instead.
        let turned = door("east", 1);
        assert!(turned.crosses(0, 1) && turned.crosses(0, -1), "{:#b}", turned.pass);
        assert_eq!(u8::from(turned.crosses(1, 0)) + u8::from(turned.crosses(-1, 0)), 1);
        // A closed fence gate is a bar; an open one has no boxes.
        let gate = |open: u8| {
            let s = ids.registry.state_with("fence_gate", &[("open_bit", Byte(open))]).expect("gate state");
            table.cell(s)
        };
        assert!(gate(0).has(NavCell::DOOR) && !gate(0).body_fits());
        assert!(gate(1).is_clear());
    }

    #[test]
    fn water_inside_a_block_reads_as_water() {
        use clawcraft_world::chunk::{ColumnMode, PalettedStorage, WireSubChunk};
        let ids = Arc::new(IdTable::new("1.26.45", true).expect("block data"));
        let id = |name: &str| {
            let s = ids.registry.states_named(name).next().expect(name);
            ids.map.network_id(s).expect(name)
        };
        let (air, fence, water) = (id("air"), id("oak_fence"), id("water"));
        let mut world = World::new(0);
        world.set_air_id(air);
        let mut blocks = PalettedStorage::Single(air);
        let mut liquid = PalettedStorage::Single(air);
        blocks.set(block_index(1, 0, 1), fence);
        blocks.set(block_index(2, 0, 1), fence);
        liquid.set(block_index(1, 0, 1), water);
        // Sub-chunk 4 of the overworld holds y 0..15.
        let subs = (0..24)
            .map(|i| WireSubChunk {
                y_index: None,
                layers: if i == 4 { vec![blocks.clone(), liquid.clone()] } else { vec![PalettedStorage::Single(air)] },
            })
            .collect();
        world.store_level_chunk(0, 0, ColumnMode::Full(24), subs, Vec::new());
        let mut snap = Snapshot::capture(&world, ids.clone(), [0, 0, 0, 0], [0, 0]);
        let (wet, dry) = (snap.cell(1, 0, 1), snap.cell(2, 0, 1));
        assert!(wet.has(NavCell::SOLID) && wet.has(NavCell::WATER), "{wet:?}");
        assert!(wet.flows() && !wet.diggable(), "a waterlogged block is never mined, nor dug beside");
        assert!(dry.has(NavCell::SOLID) && !dry.has(NavCell::WATER) && dry.diggable(), "{dry:?}");
    }

    #[test]
    fn dig_classes_falling_unbreakable_and_flowing_blocks() {
        let ids = IdTable::new("1.26.45", true).expect("block data");
        let table = NavTable::of(&ids.registry);
        let cell = |name: &str| table.cell(ids.registry.states_named(name).next().expect(name));
        for name in ["sand", "gravel", "red_sand", "anvil"] {
            assert!(cell(name).has(NavCell::FALLS) && cell(name).diggable(), "{name}: {:?}", cell(name));
        }
        assert!(falls("minecraft:white_concrete_powder") && !falls("minecraft:white_concrete"));
        for name in ["stone", "dirt", "sandstone", "oak_log"] {
            assert!(!cell(name).has(NavCell::FALLS) && cell(name).diggable(), "{name}: {:?}", cell(name));
        }
        for name in ["bedrock", "barrier"] {
            assert!(!cell(name).breakable() && !cell(name).diggable(), "{name}: {:?}", cell(name));
        }
        assert!(cell("water").flows() && !cell("water").diggable());
        assert!(cell("lava").flows() && !cell("lava").diggable());
        assert!(!cell("magma").diggable() && !cell("magma").flows(), "a hazard, solid: not mined, does not flow");
        assert!(!cell("stone").flows() && !cell("air").flows());
    }
}
