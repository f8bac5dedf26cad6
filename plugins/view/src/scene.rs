//! What a picture is drawn from: the sub-chunks of a box of the bot's world (shared `Arc`s taken
//! on the game thread, decoded to colour indices lazily on the pool) and the entities to draw.

use std::sync::Arc;

use clawcraft_world::chunk::storage::block_index;
use clawcraft_world::chunk::{PalettedStorage, SubChunk, World};
use clawcraft_world::ids::IdTable;
use rustc_hash::FxHashMap;

use crate::colors::{BlockColor, ColorTable, Kind};

/// What an entity box stands for (its colour).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mark {
    /// The bot itself (drawn when the picture is taken from elsewhere).
    Bot,
    Player,
    Hostile,
    /// Passive, neutral and other mobs.
    Mob,
    Item,
}

impl Mark {
    /// Its colour in both pictures.
    pub fn color(self) -> [u8; 3] {
        match self {
            Mark::Bot => [255, 255, 255],
            Mark::Player => [40, 90, 230],
            Mark::Hostile => [220, 30, 30],
            Mark::Mob => [240, 150, 40],
            Mark::Item => [250, 230, 40],
        }
    }

    /// Width and height of its box in blocks.
    pub fn size(self) -> (f64, f64) {
        match self {
            Mark::Bot | Mark::Player => (0.6, 1.8),
            Mark::Hostile | Mark::Mob => (0.8, 1.5),
            Mark::Item => (0.3, 0.3),
        }
    }
}

/// An entity to draw: its feet and what it is.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Figure {
    pub at: [f64; 3],
    pub mark: Mark,
}

/// One sub-chunk slot of the box.
enum Slot {
    /// No data there.
    Unloaded,
    /// Every cell the same colour index.
    Uniform(u16),
    /// Not decoded yet.
    Raw(Arc<SubChunk>),
    /// Decoded: index into `Scene::dense`.
    Dense(u32),
}

/// A decoded sub-chunk, as [`Scene::sub`] gives it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SubView {
    /// Every cell this colour index.
    Uniform(u16),
    /// Decoded cells (see [`Scene::in_sub`]).
    Dense(u32),
}

/// The bit of the 4×4×4 brick holding local cell `x, y, z` (each 0..16).
#[inline]
pub fn brick_bit(x: usize, y: usize, z: usize) -> u64 {
    1 << (((x >> 2) << 4) | ((z >> 2) << 2) | (y >> 2))
}

/// Colour index of "no data".
pub const UNLOADED: u16 = u16::MAX;

/// The blocks and entities of a picture.
pub struct Scene {
    /// Sub-chunk coordinates of the box's low corner and its size in sub-chunks.
    origin: [i32; 3],
    dims: [i32; 3],
    slots: Vec<Slot>,
    dense: Vec<Box<[u16; 4096]>>,
    /// Per decoded sub-chunk: one bit per 4×4×4 brick holding anything but air ([`brick_bit`]).
    bricks: Vec<u64>,
    ids: Arc<IdTable>,
    /// Colour index → colours (index 0 is air).
    pub colors: Vec<BlockColor>,
    by_id: FxHashMap<u32, u16>,
    by_name: FxHashMap<String, u16>,
    pub figures: Vec<Figure>,
}

impl Scene {
    /// Takes the sub-chunks of columns `cx0..=cx1` × `cz0..=cz1` and rows `sy0..=sy1` (absolute
    /// sub-chunk y, clamped to the dimension).
    pub fn capture(world: &World, ids: Arc<IdTable>, cols: [i32; 4], rows: [i32; 2]) -> Self {
        let h = world.heights();
        let (min_sub, max_sub) = (h.min_sub_y(), h.min_sub_y() + h.sub_chunk_count() as i32 - 1);
        let [cx0, cx1, cz0, cz1] = cols;
        let (sy0, sy1) = (rows[0].max(min_sub), rows[1].min(max_sub).max(rows[0].max(min_sub)));
        let dims = [cx1 - cx0 + 1, sy1 - sy0 + 1, cz1 - cz0 + 1];
        let mut slots = Vec::with_capacity((dims[0] * dims[1] * dims[2]) as usize);
        for cz in cz0..=cz1 {
            for sy in sy0..=sy1 {
                for cx in cx0..=cx1 {
                    let sc = world
                        .column(cx, cz)
                        .and_then(|c| c.sub_chunks.get((sy - min_sub) as usize))
                        .and_then(|s| s.clone());
                    slots.push(match sc {
                        Some(sc) if (min_sub..=max_sub).contains(&sy) => Slot::Raw(sc),
                        _ => Slot::Unloaded,
                    });
                }
            }
        }
        Self::with_slots([cx0, sy0, cz0], dims, slots, ids)
    }

    /// One chunk column's sub-chunks (index 0 at sub-chunk y `min_sub`), as taken from a
    /// [`ChunkColumn`](clawcraft_world::chunk::ChunkColumn).
    pub fn column(cx: i32, cz: i32, min_sub: i32, sub_chunks: Vec<Option<Arc<SubChunk>>>, ids: Arc<IdTable>) -> Self {
        let dims = [1, sub_chunks.len() as i32, 1];
        let slots = sub_chunks.into_iter().map(|s| s.map_or(Slot::Unloaded, Slot::Raw)).collect();
        Self::with_slots([cx, min_sub, cz], dims, slots, ids)
    }

    fn with_slots(origin: [i32; 3], dims: [i32; 3], slots: Vec<Slot>, ids: Arc<IdTable>) -> Self {
        Self {
            origin,
            dims,
            slots,
            dense: Vec::new(),
            bricks: Vec::new(),
            ids,
            colors: vec![BlockColor::AIR],
            by_id: FxHashMap::default(),
            by_name: FxHashMap::default(),
            figures: Vec::new(),
        }
    }

    /// The block y range the box covers (inclusive).
    pub fn y_range(&self) -> (i32, i32) {
        (self.origin[1] * 16, (self.origin[1] + self.dims[1]) * 16 - 1)
    }

    fn color_index(&mut self, id: u32) -> u16 {
        if let Some(i) = self.by_id.get(&id) {
            return *i;
        }
        let name = if self.ids.is_air(id) { "air" } else { self.ids.name(id) };
        let name = name.strip_prefix("minecraft:").unwrap_or(name);
        let i = match self.by_name.get(name) {
            Some(i) => *i,
            None => {
                let c = ColorTable::get().color(name);
                let i = if c.kind == Kind::Air {
                    0
                } else {
                    self.colors.push(c);
                    (self.colors.len() - 1).min(UNLOADED as usize - 1) as u16
                };
                self.by_name.insert(name.to_owned(), i);
                i
            }
        };
        self.by_id.insert(id, i);
        i
    }

    fn decode(&mut self, storage: &PalettedStorage) -> Slot {
        if let PalettedStorage::Single(id) = storage {
            return Slot::Uniform(self.color_index(*id));
        }
        let mut out: Box<[u16; 4096]> = Box::new([0; 4096]);
        let mut last = (u32::MAX, 0u16);
        for (i, slot) in out.iter_mut().enumerate() {
            let id = storage.get(i);
            if id != last.0 {
                last = (id, self.color_index(id));
            }
            *slot = last.1;
        }
        let mut bricks = 0u64;
        for (i, c) in out.iter().enumerate() {
            if *c != 0 {
                // block_index is x << 8 | z << 4 | y.
                bricks |= brick_bit(i >> 8, i & 15, (i >> 4) & 15);
            }
        }
        self.dense.push(out);
        self.bricks.push(bricks);
        Slot::Dense(self.dense.len() as u32 - 1)
    }

    #[inline]
    fn slot_index(&self, sx: i32, sy: i32, sz: i32) -> Option<usize> {
        let (x, y, z) = (sx - self.origin[0], sy - self.origin[1], sz - self.origin[2]);
        if x < 0 || y < 0 || z < 0 || x >= self.dims[0] || y >= self.dims[1] || z >= self.dims[2] {
            return None;
        }
        Some(((z * self.dims[1] + y) * self.dims[0] + x) as usize)
    }

    /// The sub-chunk at sub-chunk coordinates `sx, sy, sz`, decoded if it was not yet.
    #[inline]
    pub fn sub(&mut self, sx: i32, sy: i32, sz: i32) -> SubView {
        let Some(i) = self.slot_index(sx, sy, sz) else { return SubView::Uniform(UNLOADED) };
        match &self.slots[i] {
            Slot::Dense(d) => SubView::Dense(*d),
            Slot::Uniform(c) => SubView::Uniform(*c),
            Slot::Unloaded => SubView::Uniform(UNLOADED),
            Slot::Raw(sc) => {
                let sc = sc.clone();
                let decoded = match sc.layers.first() {
                    Some(layer) => self.decode(layer),
                    None => Slot::Uniform(0),
                };
                self.slots[i] = decoded;
                self.sub(sx, sy, sz)
            }
        }
    }

    /// The colour index of cell `cell` (a [`block_index`]) of a decoded sub-chunk.
    #[inline]
    pub fn in_sub(&self, view: SubView, cell: usize) -> u16 {
        match view {
            SubView::Uniform(c) => c,
            SubView::Dense(d) => self.dense[d as usize][cell],
        }
    }

    /// Whether the 4×4×4 brick holding local cell `x, y, z` of a decoded sub-chunk is all air.
    #[inline]
    pub fn brick_empty(&self, dense: u32, x: usize, y: usize, z: usize) -> bool {
        self.bricks[dense as usize] & brick_bit(x, y, z) == 0
    }

    /// The colour index of block `x, y, z` ([`UNLOADED`] outside the box or without data; 0 air).
    #[inline]
    pub fn at(&mut self, x: i32, y: i32, z: i32) -> u16 {
        let view = self.sub(x >> 4, y >> 4, z >> 4);
        self.in_sub(view, block_index((x & 15) as usize, (y & 15) as usize, (z & 15) as usize))
    }

    /// Whether the whole sub-chunk holding block `x, y, z` is one colour index (which), so a
    /// walk through it can skip to its edge.
    #[inline]
    pub fn uniform_at(&self, x: i32, y: i32, z: i32) -> Option<u16> {
        match self.slot_index(x >> 4, y >> 4, z >> 4).map(|i| &self.slots[i]) {
            None | Some(Slot::Unloaded) => Some(UNLOADED),
            Some(Slot::Uniform(c)) => Some(*c),
            Some(Slot::Raw(sc)) => match sc.layers.first() {
                Some(PalettedStorage::Single(id)) if self.by_id.get(id) == Some(&0) => Some(0),
                _ => None,
            },
            Some(Slot::Dense(_)) => None,
        }
    }

    /// The colours of a colour index.
    #[inline]
    pub fn color(&self, index: u16) -> &BlockColor {
        &self.colors[index as usize]
    }
}
