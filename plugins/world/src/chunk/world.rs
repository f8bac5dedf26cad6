//! A bot's view of the world: chunk columns of paletted sub-chunks, keyed by chunk position.
//!
//! The columns and their slots are the bot's own; the sub-chunks in the slots are shared
//! (`Arc`) with every bot that was told the same blocks (see [`BlockStore`](super::BlockStore)).
//! A change to a block makes the bot's own copy first, so no other bot sees it.

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use bevy_ecs::component::Component;

use super::storage::{PalettedStorage, block_index};
use super::wire::{BlockEntity, WireSubChunk};

/// Network id of `minecraft:air` when block network ids are hashes (FNV-1a of its state NBT).
pub const AIR_HASH: u32 = 0xDBF4_4120;

/// Dimension ids as the protocol numbers them.
pub const OVERWORLD: i32 = 0;
/// The Nether.
pub const NETHER: i32 = 1;
/// The End.
pub const END: i32 = 2;

/// Vertical extent of a dimension: `min_y` inclusive, `max_y` exclusive, both multiples of 16.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DimensionHeights {
    /// Lowest block y.
    pub min_y: i32,
    /// One above the highest block y.
    pub max_y: i32,
}

impl DimensionHeights {
    /// Vanilla heights: overworld −64..319, nether 0..127, end 0..255 (others as the overworld).
    pub fn vanilla(dimension: i32) -> Self {
        match dimension {
            NETHER => DimensionHeights { min_y: 0, max_y: 128 },
            END => DimensionHeights { min_y: 0, max_y: 256 },
            _ => DimensionHeights { min_y: -64, max_y: 320 },
        }
    }

    /// The heights a server's DimensionData names, made sound: `min_y` rounded down to a multiple
    /// of 16 within ±2²⁴, `max_y` above it by 1 to 64 sub-chunks (what a column can hold). A
    /// hostile `i32::MIN..i32::MAX` or an inverted range then cannot overflow any `y` arithmetic
    /// downstream (every height stays far inside `i32`).
    pub fn from_server(min_y: i32, max_y: i32) -> Self {
        const LIMIT: i32 = 1 << 24;
        let min_y = min_y.clamp(-LIMIT, LIMIT) & !15;
        let span = (i64::from(max_y) - i64::from(min_y)).clamp(16, 64 * 16) as i32;
        DimensionHeights { min_y, max_y: min_y + ((span + 15) & !15) }
    }

    /// Absolute sub-chunk Y of the lowest sub-chunk.
    pub fn min_sub_y(&self) -> i32 {
        self.min_y >> 4
    }

    /// Number of sub-chunks in a column (at most 64, at least 1). Computed in `i64`: a server's
    /// DimensionData may carry any `i32` heights.
    pub fn sub_chunk_count(&self) -> usize {
        ((i64::from(self.max_y) - i64::from(self.min_y) + 15) >> 4).clamp(1, 64) as usize
    }

    /// Column index of the sub-chunk holding block `y`, if inside the dimension.
    pub fn index_of_y(&self, y: i32) -> Option<usize> {
        let i = (y >> 4) - self.min_sub_y();
        usize::try_from(i).ok().filter(|&i| i < self.sub_chunk_count())
    }
}

/// One 16×16×16 sub-chunk: one or two storage layers (layer 1 = water-logging).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SubChunk {
    /// Layer 0 (blocks) and optionally layer 1 (liquids inside blocks). Never empty.
    pub layers: Vec<PalettedStorage>,
}

impl SubChunk {
    /// A sub-chunk filled with `id` (e.g. air).
    pub fn uniform(id: u32) -> Self {
        SubChunk { layers: vec![PalettedStorage::Single(id)] }
    }

    /// From a decoded sub-chunk; an empty layer list means all `air`.
    pub fn from_wire(w: WireSubChunk, air: u32) -> Self {
        if w.layers.is_empty() { SubChunk::uniform(air) } else { SubChunk { layers: w.layers } }
    }

    /// Id at local `(x, y, z)` in `layer`; `None` if the layer does not exist.
    pub fn get(&self, x: usize, y: usize, z: usize, layer: usize) -> Option<u32> {
        self.layers.get(layer).map(|s| s.get(block_index(x, y, z)))
    }

    /// Whether any layer's palette lists `id` (a fast pre-check for block searches).
    pub fn contains_id(&self, id: u32) -> bool {
        self.layers.iter().any(|s| s.palette_contains(id))
    }

    /// Heap bytes owned.
    pub fn heap_bytes(&self) -> usize {
        self.layers.capacity() * size_of::<PalettedStorage>()
            + self.layers.iter().map(|s| s.heap_bytes()).sum::<usize>()
    }

    /// Bytes of one shared allocation of this sub-chunk: the `Arc`'s counts, the sub-chunk
    /// itself and what its layers own.
    pub fn shared_bytes(&self) -> usize {
        2 * size_of::<usize>() + size_of::<SubChunk>() + self.heap_bytes()
    }
}

/// A chunk column: sub-chunks from the dimension's lowest up. `None` = no data (not sent yet,
/// pending a SubChunk response, or the server could not provide it).
#[derive(Debug)]
pub struct ChunkColumn {
    /// Sub-chunks, index 0 at the dimension's `min_y`; shared with other bots holding the same
    /// blocks (read through `Deref`; a change goes through [`World::set_block`]).
    pub sub_chunks: Vec<Option<Arc<SubChunk>>>,
    /// Block entities the server sent with the column and its sub-chunks.
    pub block_entities: Vec<BlockEntity>,
    /// LRU stamp: the world clock at the last access.
    last_access: AtomicU64,
}

impl ChunkColumn {
    /// A column of `n` sub-chunks with no data yet.
    pub fn empty(n: usize) -> Self {
        ChunkColumn { sub_chunks: (0..n).map(|_| None).collect(), block_entities: Vec::new(), last_access: 0.into() }
    }

    /// Heap bytes of the column itself: its slots and block entities, not the sub-chunks (which
    /// may be shared with other bots; see [`World::heap_bytes`]).
    pub fn view_heap_bytes(&self) -> usize {
        self.sub_chunks.capacity() * size_of::<Option<Arc<SubChunk>>>()
            + self.block_entities.capacity() * size_of::<BlockEntity>()
            + self
                .block_entities
                .iter()
                .map(|b| {
                    b.id.capacity()
                        + b.sign.as_ref().map_or(0, |s| {
                            size_of::<crate::signs::KnownSign>()
                                + s.text.front.capacity()
                                + s.text.back.capacity()
                                + s.nbt.name.capacity()
                                + s.nbt.tag.heap_bytes()
                        })
                })
                .sum::<usize>()
    }

    /// Number of sub-chunks with data.
    pub fn loaded_sub_chunks(&self) -> usize {
        self.sub_chunks.iter().filter(|s| s.is_some()).count()
    }
}

/// What the world knows about one block.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BlockLookup {
    /// Network id on layer 0, and on layer 1 when the sub-chunk has a second layer.
    Loaded(u32, Option<u32>),
    /// No data for this position (never reported as air).
    Unloaded,
}

/// A bot's world: the columns of its current dimension.
#[derive(Component, Debug)]
pub struct World {
    dimension: i32,
    /// Per-dimension heights from DimensionData, overriding [`DimensionHeights::vanilla`].
    overrides: HashMap<i32, DimensionHeights>,
    columns: HashMap<(i32, i32), ChunkColumn>,
    /// Network id of air: fills sub-chunks the server says are empty.
    air_id: u32,
    clock: AtomicU64,
}

impl Default for World {
    fn default() -> Self {
        World::new(OVERWORLD)
    }
}

impl World {
    /// An empty world in `dimension`, assuming hashed block ids for air.
    pub fn new(dimension: i32) -> Self {
        World { dimension, overrides: HashMap::new(), columns: HashMap::new(), air_id: AIR_HASH, clock: 0.into() }
    }

    /// Current dimension id.
    pub fn dimension(&self) -> i32 {
        self.dimension
    }

    /// Heights of the current dimension.
    pub fn heights(&self) -> DimensionHeights {
        self.heights_of(self.dimension)
    }

    /// Heights of `dimension` (DimensionData overrides first).
    pub fn heights_of(&self, dimension: i32) -> DimensionHeights {
        self.overrides.get(&dimension).copied().unwrap_or_else(|| DimensionHeights::vanilla(dimension))
    }

    /// Overrides a dimension's heights (DimensionData). Columns of that dimension are dropped
    /// when it is the current one, since their sub-chunk indexing changed.
    pub fn set_heights(&mut self, dimension: i32, heights: DimensionHeights) {
        if self.heights_of(dimension) != heights && dimension == self.dimension {
            self.columns.clear();
        }
        self.overrides.insert(dimension, heights);
    }

    /// Switches dimension, forgetting every column.
    pub fn change_dimension(&mut self, dimension: i32) {
        self.dimension = dimension;
        self.columns.clear();
    }

    /// Network id used for air.
    pub fn air_id(&self) -> u32 {
        self.air_id
    }

    /// Sets the network id of air (needed when block ids are not hashes).
    pub fn set_air_id(&mut self, id: u32) {
        self.air_id = id;
    }

    fn tick(&self) -> u64 {
        self.clock.fetch_add(1, Ordering::Relaxed) + 1
    }

    fn touch(&self, c: &ChunkColumn) {
        c.last_access.store(self.tick(), Ordering::Relaxed);
    }

    /// The column at chunk `(cx, cz)`, counting as a use for LRU eviction.
    pub fn column(&self, cx: i32, cz: i32) -> Option<&ChunkColumn> {
        let c = self.columns.get(&(cx, cz))?;
        self.touch(c);
        Some(c)
    }

    /// Mutable column access, counting as a use.
    pub fn column_mut(&mut self, cx: i32, cz: i32) -> Option<&mut ChunkColumn> {
        let stamp = self.tick();
        let c = self.columns.get_mut(&(cx, cz))?;
        *c.last_access.get_mut() = stamp;
        Some(c)
    }

    /// Stores (or replaces) a column. It must have the current dimension's sub-chunk count.
    pub fn insert_column(&mut self, cx: i32, cz: i32, column: ChunkColumn) {
        column.last_access.store(self.tick(), Ordering::Relaxed);
        self.columns.insert((cx, cz), column);
    }

    /// Removes a column.
    pub fn remove_column(&mut self, cx: i32, cz: i32) -> Option<ChunkColumn> {
        self.columns.remove(&(cx, cz))
    }

    /// Positions of every stored column.
    pub fn loaded_columns(&self) -> impl Iterator<Item = (i32, i32)> + '_ {
        self.columns.keys().copied()
    }

    /// Every stored column with its position, without counting as a use (an observer, such as
    /// the live map, must not change which columns eviction keeps).
    pub fn peek_columns(&self) -> impl Iterator<Item = ((i32, i32), &ChunkColumn)> + '_ {
        self.columns.iter().map(|(k, c)| (*k, c))
    }

    /// Number of stored columns.
    pub fn column_count(&self) -> usize {
        self.columns.len()
    }

    /// The sub-chunk holding block `(x, y, z)`, if loaded.
    pub fn sub_chunk_at(&self, x: i32, y: i32, z: i32) -> Option<&SubChunk> {
        let i = self.heights().index_of_y(y)?;
        self.column(x >> 4, z >> 4)?.sub_chunks.get(i)?.as_deref()
    }

    /// The shared handle of the sub-chunk holding block `(x, y, z)`, if loaded.
    pub fn shared_sub_chunk_at(&self, x: i32, y: i32, z: i32) -> Option<&Arc<SubChunk>> {
        let i = self.heights().index_of_y(y)?;
        self.column(x >> 4, z >> 4)?.sub_chunks.get(i)?.as_ref()
    }

    /// The block at `(x, y, z)`: both layers' ids, or `Unloaded` when there is no data.
    pub fn get_block(&self, x: i32, y: i32, z: i32) -> BlockLookup {
        let Some(sc) = self.sub_chunk_at(x, y, z) else { return BlockLookup::Unloaded };
        let (lx, ly, lz) = ((x & 15) as usize, (y & 15) as usize, (z & 15) as usize);
        match sc.get(lx, ly, lz, 0) {
            Some(id) => BlockLookup::Loaded(id, sc.get(lx, ly, lz, 1)),
            None => BlockLookup::Unloaded,
        }
    }

    /// Sets the block at `(x, y, z)` on `layer` (0 or 1), returning the previous id (layer 1 of a
    /// sub-chunk without one reads as air). Returns `None`, changing nothing, when the sub-chunk
    /// has no data or the layer is not 0/1: a lone update cannot stand in for a whole sub-chunk.
    pub fn set_block(&mut self, x: i32, y: i32, z: i32, layer: usize, id: u32) -> Option<u32> {
        if layer > 1 {
            return None;
        }
        let i = self.heights().index_of_y(y)?;
        let air = self.air_id;
        let slot = self.column_mut(x >> 4, z >> 4)?.sub_chunks.get_mut(i)?.as_mut()?;
        let idx = block_index((x & 15) as usize, (y & 15) as usize, (z & 15) as usize);
        // Layer 1 of a sub-chunk without one reads as air.
        let old = slot.layers.get(layer).map_or(air, |s| s.get(idx));
        if old == id {
            // Nothing changes: the sub-chunk stays shared.
            return Some(old);
        }
        // The bot's own copy from here on (a copy only when another bot holds this one).
        let sc = Arc::make_mut(slot);
        if sc.layers.len() <= layer {
            sc.layers.push(PalettedStorage::Single(air));
        }
        sc.layers[layer].set(idx, id);
        Some(old)
    }

    /// Puts the sub-chunk holding block `(x, y, z)` (after [`set_block`](Self::set_block)) back
    /// in `store`: a bot that already holds the same blocks lends its copy.
    pub fn share_sub_chunk_at(&mut self, store: &mut super::BlockStore, x: i32, y: i32, z: i32) {
        let Some(i) = self.heights().index_of_y(y) else { return };
        let Some(slot) = self.columns.get_mut(&(x >> 4, z >> 4)).and_then(|c| c.sub_chunks.get_mut(i)?.as_mut()) else {
            return;
        };
        *slot = store.share(Arc::clone(slot));
    }

    /// Whether the sub-chunk at column `(cx, cz)`, column index `index` may contain `id` (palette
    /// check). `None` when that sub-chunk has no data.
    pub fn contains_id(&self, cx: i32, cz: i32, index: usize, id: u32) -> Option<bool> {
        let sc = self.columns.get(&(cx, cz))?.sub_chunks.get(index)?.as_ref()?;
        Some(sc.contains_id(id))
    }

    /// Heap bytes this world holds: the column map, the columns' slots and block entities, and
    /// every distinct sub-chunk once (a sub-chunk in several slots, e.g. air, counts once). Held
    /// alone, the world would cost this much; sub-chunks shared with other bots count here in
    /// full, as they do in theirs. The process's total is every world's
    /// [`view_heap_bytes`](Self::view_heap_bytes) plus the store's
    /// [`heap_bytes`](super::BlockStore::heap_bytes).
    pub fn heap_bytes(&self) -> usize {
        let mut seen = rustc_hash::FxHashSet::default();
        let sub_chunks: usize = self
            .columns
            .values()
            .flat_map(|c| c.sub_chunks.iter().flatten())
            .filter(|s| seen.insert(Arc::as_ptr(s)))
            .map(|s| s.shared_bytes())
            .sum();
        self.view_heap_bytes() + sub_chunks
    }

    /// Heap bytes of this bot's view alone: the column map, the columns' slots and block
    /// entities, not the (shared) sub-chunks.
    pub fn view_heap_bytes(&self) -> usize {
        self.columns.capacity() * (size_of::<(i32, i32)>() + size_of::<ChunkColumn>())
            + self.columns.values().map(ChunkColumn::view_heap_bytes).sum::<usize>()
    }

    /// Drops columns farther than `max_dist_blocks` (horizontally, from `centre` block x/z to the
    /// column's centre), then the least recently used ones until at most `max_columns` remain.
    /// Returns how many were dropped.
    pub fn evict(&mut self, centre: (f64, f64), max_columns: usize, max_dist_blocks: f64) -> usize {
        let before = self.columns.len();
        let max_sq = max_dist_blocks * max_dist_blocks;
        self.columns.retain(|&(cx, cz), _| {
            let dx = f64::from(cx) * 16.0 + 8.0 - centre.0;
            let dz = f64::from(cz) * 16.0 + 8.0 - centre.1;
            dx * dx + dz * dz <= max_sq
        });
        if self.columns.len() > max_columns {
            let mut by_age: Vec<((i32, i32), u64)> =
                self.columns.iter().map(|(k, c)| (*k, c.last_access.load(Ordering::Relaxed))).collect();
            by_age.sort_unstable_by_key(|&(_, t)| t);
            let excess = self.columns.len() - max_columns;
            for (k, _) in by_age.into_iter().take(excess) {
                self.columns.remove(&k);
            }
        }
        before - self.columns.len()
    }
}

/// How a LevelChunk delivers its blocks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ColumnMode {
    /// `sub_chunk_count` sub-chunks inline; everything above them is air.
    Full(usize),
    /// Blocks come by SubChunkRequest. `Some(i)`: column indices above `i` are air; `None`: all
    /// sub-chunks must be requested.
    Request(Option<usize>),
}

impl World {
    /// Stores a column from a LevelChunk in the current dimension, replacing any previous one,
    /// with sub-chunks of its own (see [`store_column`](Self::store_column) for shared ones).
    /// Returns the column indices to request (request mode; empty in full mode).
    pub fn store_level_chunk(
        &mut self,
        cx: i32,
        cz: i32,
        mode: ColumnMode,
        sub_chunks: Vec<WireSubChunk>,
        block_entities: Vec<BlockEntity>,
    ) -> Vec<usize> {
        let air = self.air_id;
        let subs = sub_chunks.into_iter().map(|w| (w.y_index, Arc::new(SubChunk::from_wire(w, air)))).collect();
        self.store_column(cx, cz, mode, subs, block_entities, &Arc::new(SubChunk::uniform(air)))
    }

    /// Stores a column in the current dimension, replacing any previous one: its sub-chunks as
    /// `(claimed absolute sub-chunk Y, blocks)` from the lowest up, and `air` (this bot's air
    /// everywhere) for the slots the LevelChunk says are empty. Returns the column indices to
    /// request (request mode; empty in full mode).
    pub fn store_column(
        &mut self,
        cx: i32,
        cz: i32,
        mode: ColumnMode,
        sub_chunks: Vec<(Option<i8>, Arc<SubChunk>)>,
        block_entities: Vec<BlockEntity>,
        air: &Arc<SubChunk>,
    ) -> Vec<usize> {
        let h = self.heights();
        let n = h.sub_chunk_count();
        let mut column = ChunkColumn::empty(n);
        column.block_entities = block_entities;
        let (inline_or_pending, requested) = match mode {
            ColumnMode::Full(count) => (count.min(n), Vec::new()),
            ColumnMode::Request(None) => (n, (0..n).collect()),
            ColumnMode::Request(Some(top)) => {
                let last = top.min(n - 1);
                (last + 1, (0..=last).collect())
            }
        };
        for (i, (y_index, sub_chunk)) in sub_chunks.into_iter().enumerate() {
            // Version 9 says where it belongs; trust it when it is inside the column.
            let at = y_index.map_or(Some(i), |y| usize::try_from(i32::from(y) - h.min_sub_y()).ok());
            if let Some(slot) = at.and_then(|a| column.sub_chunks.get_mut(a)) {
                *slot = Some(sub_chunk);
            }
        }
        for slot in column.sub_chunks.iter_mut().skip(inline_or_pending) {
            *slot = Some(Arc::clone(air));
        }
        self.insert_column(cx, cz, column);
        requested
    }

    /// Applies one SubChunk response entry for absolute sub-chunk `(sx, sy, sz)` with
    /// sub-chunks of its own (see [`fill_sub_chunk`](Self::fill_sub_chunk) for shared ones).
    /// Returns whether the world changed.
    pub fn apply_sub_chunk(&mut self, at: (i32, i32, i32), outcome: super::wire::SubChunkOutcome) -> bool {
        use super::wire::SubChunkOutcome;
        let air = self.air_id;
        match outcome {
            SubChunkOutcome::Loaded(w, entities) => {
                self.fill_sub_chunk(at, Arc::new(SubChunk::from_wire(w, air)), entities)
            }
            SubChunkOutcome::AllAir => self.fill_sub_chunk(at, Arc::new(SubChunk::uniform(air)), Vec::new()),
            SubChunkOutcome::Unavailable(_) => false,
        }
    }

    /// Fills absolute sub-chunk `(sx, sy, sz)` from a SubChunk response. Only a column announced
    /// by a LevelChunk and a sub-chunk still without data is filled: later changes arrive as
    /// block updates, and a stale response must not undo them. Returns whether the world
    /// changed.
    pub fn fill_sub_chunk(
        &mut self,
        (sx, sy, sz): (i32, i32, i32),
        sub_chunk: Arc<SubChunk>,
        entities: Vec<BlockEntity>,
    ) -> bool {
        let h = self.heights();
        let Some(Ok(i)) = sy.checked_sub(h.min_sub_y()).map(usize::try_from) else { return false };
        let Some(column) = self.column_mut(sx, sz) else { return false };
        let Some(slot) = column.sub_chunks.get_mut(i) else { return false };
        if slot.is_some() {
            return false;
        }
        *slot = Some(sub_chunk);
        column.block_entities.extend(entities);
        true
    }
}
