//! Read-only block queries over a bot's [`World`]: pure functions shared by the agent commands
//! and the benches. A cell without data is always reported as unloaded, never as air.

use std::collections::{BTreeMap, HashSet};

use schemars::JsonSchema;
use serde::Serialize;
use serde_json::{Map, Value};

use crate::block::{BlockState, StateValue};
use crate::chunk::{BlockLookup, PalettedStorage, World};
use crate::ids::IdTable;

/// Most cells any one list of a response holds; beyond it the response says `truncated`.
pub const MAX_LISTED: usize = 4096;

/// Blocks that make up the bulk of terrain; `notable` leaves them out.
pub const COMMON_FILL: &[&str] = &[
    "stone",
    "granite",
    "diorite",
    "andesite",
    "deepslate",
    "tuff",
    "calcite",
    "dirt",
    "coarse_dirt",
    "grass_block",
    "podzol",
    "mycelium",
    "rooted_dirt",
    "mud",
    "sand",
    "red_sand",
    "sandstone",
    "red_sandstone",
    "gravel",
    "clay",
    "netherrack",
    "soul_sand",
    "soul_soil",
    "basalt",
    "blackstone",
    "end_stone",
    "bedrock",
    "snow",
    "snow_layer",
    "ice",
    "packed_ice",
    "short_grass",
    "tall_grass",
    "cobblestone",
    "dripstone_block",
    "smooth_basalt",
];

/// A block position.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
pub struct Cell {
    pub x: i32,
    pub y: i32,
    pub z: i32,
}

impl Cell {
    /// The cell holding world point `(x, y, z)`.
    pub fn containing(x: f64, y: f64, z: f64) -> Cell {
        Cell { x: x.floor() as i32, y: y.floor() as i32, z: z.floor() as i32 }
    }

    /// Distance from world point `p` to this cell's centre.
    pub fn distance_to(self, p: [f64; 3]) -> f64 {
        let d = |c: i32, v: f64| f64::from(c) + 0.5 - v;
        (d(self.x, p[0]).powi(2) + d(self.y, p[1]).powi(2) + d(self.z, p[2]).powi(2)).sqrt()
    }
}

/// Rounds to 1/100 block for output.
pub fn round2(v: f64) -> f64 {
    (v * 100.0).round() / 100.0
}

/// A state's properties as a JSON object. Byte properties are Bedrock's flags and become booleans.
pub fn properties_json(state: &BlockState<'_>) -> Map<String, Value> {
    state
        .properties
        .iter()
        .map(|(k, v)| {
            let v = match v {
                StateValue::Str(s) => Value::from(s.as_str()),
                StateValue::Byte(b) => Value::from(*b != 0),
                StateValue::Int(i) => Value::from(*i),
            };
            (k.to_owned(), v)
        })
        .collect()
}

/// A block with its state, as `block`, `blocks` and events report it.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct BlockReport {
    /// The network id the server uses (a hash or a palette index).
    pub state_id: u32,
    /// Namespaced name, e.g. `minecraft:oak_stairs`; `unknown` for ids the registry lacks.
    pub name: String,
    /// Block state values, e.g. `{"open_bit": false, "direction": 1}`.
    pub properties: Map<String, Value>,
}

impl BlockReport {
    /// Describes network id `id`.
    pub fn of(ids: &IdTable, id: u32) -> BlockReport {
        let (name, properties) = ids
            .state(id)
            .map_or_else(|| ("unknown".to_owned(), Map::new()), |s| (s.name.to_string(), properties_json(&s)));
        BlockReport { state_id: id, name, properties }
    }
}

/// One cell of a scan or a box listing.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct ScanCell {
    pub x: i32,
    pub y: i32,
    pub z: i32,
    pub name: String,
    /// Block state values; left out when the block has none.
    #[serde(skip_serializing_if = "Map::is_empty")]
    pub properties: Map<String, Value>,
}

impl ScanCell {
    fn new(ids: &IdTable, c: Cell, id: u32) -> ScanCell {
        let r = BlockReport::of(ids, id);
        ScanCell { x: c.x, y: c.y, z: c.z, name: r.name, properties: r.properties }
    }
}

/// `[min, max]` per axis, inclusive.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
pub struct Bounds {
    pub x: [i32; 2],
    pub y: [i32; 2],
    pub z: [i32; 2],
}

impl Bounds {
    /// The box of `radius` around `c` horizontally and `radius_y` vertically (clipped at the
    /// `i32` range: a centre there comes from a hostile server or a far request).
    pub fn around(c: Cell, radius: i32, radius_y: i32) -> Bounds {
        let span = |v: i32, r: i32| [v.saturating_sub(r), v.saturating_add(r)];
        Bounds { x: span(c.x, radius), y: span(c.y, radius_y), z: span(c.z, radius) }
    }

    /// The box spanned by two corners in any order.
    pub fn spanning(a: Cell, b: Cell) -> Bounds {
        Bounds { x: [a.x.min(b.x), a.x.max(b.x)], y: [a.y.min(b.y), a.y.max(b.y)], z: [a.z.min(b.z), a.z.max(b.z)] }
    }

    /// Number of cells (saturating: a box spanning the world border does not overflow).
    pub fn volume(&self) -> u64 {
        let len = |r: [i32; 2]| u64::try_from(i64::from(r[1]) - i64::from(r[0]) + 1).unwrap_or(0);
        len(self.x).saturating_mul(len(self.y)).saturating_mul(len(self.z))
    }

    /// Every cell, y outermost (bottom up), then z, then x.
    pub fn cells(self) -> impl Iterator<Item = Cell> {
        (self.y[0]..=self.y[1]).flat_map(move |y| {
            (self.z[0]..=self.z[1]).flat_map(move |z| (self.x[0]..=self.x[1]).map(move |x| Cell { x, y, z }))
        })
    }
}

/// Whether `name` (namespaced) is in [`COMMON_FILL`].
pub fn is_common_fill(name: &str) -> bool {
    let short = name.strip_prefix("minecraft:").unwrap_or(name);
    COMMON_FILL.contains(&short)
}

/// Non-air cells on the four vertical faces of a scan box (north = −Z, south = +Z, west = −X,
/// east = +X).
#[derive(Debug, Clone, Default, PartialEq, Serialize, JsonSchema)]
pub struct Walls {
    pub north: Vec<ScanCell>,
    pub south: Vec<ScanCell>,
    pub east: Vec<ScanCell>,
    pub west: Vec<ScanCell>,
}

/// The box a scan read and its tallies (the same in `scan` and `compact_scan`).
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ScanTally {
    pub origin: Cell,
    pub bounds: Bounds,
    /// Cells in the box.
    pub total: u64,
    /// Every cell has data (ClawCraft's flag); when `false`, retry after the chunks arrive.
    pub loaded: bool,
    /// Cells without data (not reported as air, not listed).
    pub unloaded: u64,
    /// Cells with data.
    pub loaded_cells: u64,
    /// Loaded cells that are not air.
    pub total_non_air: u64,
}

impl ScanTally {
    fn of(origin: Cell, bounds: Bounds, read: &BoxRead) -> Self {
        Self {
            origin,
            bounds,
            total: bounds.volume(),
            loaded: read.unloaded == 0,
            unloaded: read.unloaded,
            loaded_cells: read.loaded,
            total_non_air: read.cells.len() as u64,
        }
    }
}

/// The answer of `scan`.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Scan {
    #[serde(flatten)]
    pub tally: ScanTally,
    /// Non-air cells by y (keys are y as strings).
    pub layers: BTreeMap<String, Vec<ScanCell>>,
    /// Non-air cells other than common terrain fill, nearest to `origin` first.
    pub notable: Vec<ScanCell>,
    /// Non-air cells of the bottom layer.
    pub floor: Vec<ScanCell>,
    /// Non-air cells of the top layer.
    pub ceiling: Vec<ScanCell>,
    pub walls: Walls,
    /// A list hit its limit of 4096 cells.
    pub truncated: bool,
}

/// The answer of `compact_scan`: counts and notable blocks only.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct CompactScan {
    #[serde(flatten)]
    pub tally: ScanTally,
    /// Non-air cells other than common terrain fill, nearest first (names only).
    pub notable: Vec<ScanCell>,
    pub notable_count: u64,
    /// Count of every non-air block name in the box.
    pub counts: BTreeMap<String, u64>,
    pub truncated: bool,
}

fn push_bounded(list: &mut Vec<ScanCell>, cell: ScanCell, truncated: &mut bool) {
    if list.len() < MAX_LISTED {
        list.push(cell);
    } else {
        *truncated = true;
    }
}

/// Every loaded non-air cell of `bounds`, with the loaded/unloaded tallies.
struct BoxRead {
    cells: Vec<(Cell, u32)>,
    loaded: u64,
    unloaded: u64,
}

fn read_box(world: &World, ids: &IdTable, bounds: Bounds) -> BoxRead {
    let mut out = BoxRead { cells: Vec::new(), loaded: 0, unloaded: 0 };
    let air = world.air_id();
    for c in bounds.cells() {
        match world.get_block(c.x, c.y, c.z) {
            BlockLookup::Unloaded => out.unloaded += 1,
            BlockLookup::Loaded(id, _) => {
                out.loaded += 1;
                if id != air && !ids.is_air(id) {
                    out.cells.push((c, id));
                }
            }
        }
    }
    out
}

fn centre_of(c: Cell) -> [f64; 3] {
    [f64::from(c.x) + 0.5, f64::from(c.y) + 0.5, f64::from(c.z) + 0.5]
}

/// Notable cells (non-air minus common fill), nearest to `origin` first, ties by y, z, x.
fn notable_of(ids: &IdTable, origin: Cell, cells: &[(Cell, u32)]) -> Vec<(Cell, u32)> {
    let centre = centre_of(origin);
    let mut notable: Vec<(Cell, u32)> =
        cells.iter().copied().filter(|(_, id)| !is_common_fill(ids.name(*id))).collect();
    notable.sort_by(|a, b| {
        a.0.distance_to(centre)
            .total_cmp(&b.0.distance_to(centre))
            .then((a.0.y, a.0.z, a.0.x).cmp(&(b.0.y, b.0.z, b.0.x)))
    });
    notable
}

/// `scan`: the box of `radius` (XZ) × `radius_y` (Y) around `origin`.
pub fn scan(world: &World, ids: &IdTable, origin: Cell, radius: i32, radius_y: i32) -> Scan {
    let bounds = Bounds::around(origin, radius, radius_y);
    let read = read_box(world, ids, bounds);
    let mut truncated = false;
    let mut layers: BTreeMap<String, Vec<ScanCell>> = BTreeMap::new();
    let (mut floor, mut ceiling, mut walls) = (Vec::new(), Vec::new(), Walls::default());
    let mut listed = 0usize;
    for &(c, id) in &read.cells {
        let cell = ScanCell::new(ids, c, id);
        if c.y == bounds.y[0] {
            push_bounded(&mut floor, cell.clone(), &mut truncated);
        }
        if c.y == bounds.y[1] {
            push_bounded(&mut ceiling, cell.clone(), &mut truncated);
        }
        for (on_face, list) in [
            (c.z == bounds.z[0], &mut walls.north),
            (c.z == bounds.z[1], &mut walls.south),
            (c.x == bounds.x[1], &mut walls.east),
            (c.x == bounds.x[0], &mut walls.west),
        ] {
            if on_face {
                push_bounded(list, cell.clone(), &mut truncated);
            }
        }
        if listed < MAX_LISTED {
            layers.entry(c.y.to_string()).or_default().push(cell);
            listed += 1;
        } else {
            truncated = true;
        }
    }
    let notable_cells = notable_of(ids, origin, &read.cells);
    truncated |= notable_cells.len() > MAX_LISTED;
    let notable = notable_cells.iter().take(MAX_LISTED).map(|&(c, id)| ScanCell::new(ids, c, id)).collect();
    Scan { tally: ScanTally::of(origin, bounds, &read), layers, notable, floor, ceiling, walls, truncated }
}

/// `compact_scan`: like [`scan`] but only tallies and notable names.
pub fn compact_scan(world: &World, ids: &IdTable, origin: Cell, radius: i32, radius_y: i32) -> CompactScan {
    let bounds = Bounds::around(origin, radius, radius_y);
    let read = read_box(world, ids, bounds);
    let mut counts: BTreeMap<String, u64> = BTreeMap::new();
    for &(_, id) in &read.cells {
        *counts.entry(ids.name(id).to_owned()).or_default() += 1;
    }
    let notable_cells = notable_of(ids, origin, &read.cells);
    let notable = notable_cells
        .iter()
        .take(MAX_LISTED)
        .map(|&(c, id)| ScanCell { x: c.x, y: c.y, z: c.z, name: ids.name(id).to_owned(), properties: Map::new() })
        .collect();
    CompactScan {
        tally: ScanTally::of(origin, bounds, &read),
        notable,
        notable_count: notable_cells.len() as u64,
        counts,
        truncated: notable_cells.len() > MAX_LISTED,
    }
}

/// One block of a `blocks` listing.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ListedBlock {
    pub x: i32,
    pub y: i32,
    pub z: i32,
    pub state_id: u32,
    pub name: String,
    pub properties: Map<String, Value>,
    /// 1 when the match is the liquid inside the block (water-logging layer).
    #[serde(skip_serializing_if = "is_zero")]
    pub layer: u8,
}

fn is_zero(v: &u8) -> bool {
    *v == 0
}

/// The answer of `blocks`.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct BlockList {
    /// Matching blocks found (may exceed the listed ones when `truncated`).
    pub count: u64,
    pub blocks: Vec<ListedBlock>,
    /// Cells of the box without data (skipped).
    pub unloaded: u64,
    pub truncated: bool,
}

/// `blocks`: non-air blocks in `bounds`, optionally only those whose id is in `filter`.
pub fn blocks_in(world: &World, ids: &IdTable, bounds: Bounds, filter: Option<&HashSet<u32>>) -> BlockList {
    let mut out = BlockList { count: 0, blocks: Vec::new(), unloaded: 0, truncated: false };
    let air = world.air_id();
    for c in bounds.cells() {
        let BlockLookup::Loaded(id0, id1) = world.get_block(c.x, c.y, c.z) else {
            out.unloaded += 1;
            continue;
        };
        let hit = match filter {
            None => (id0 != air && !ids.is_air(id0)).then_some((id0, 0)),
            Some(set) if set.contains(&id0) => Some((id0, 0)),
            Some(set) => id1.filter(|i| set.contains(i)).map(|i| (i, 1)),
        };
        let Some((id, layer)) = hit else { continue };
        out.count += 1;
        if out.blocks.len() >= MAX_LISTED {
            out.truncated = true;
            continue;
        }
        let r = BlockReport::of(ids, id);
        out.blocks.push(ListedBlock {
            x: c.x,
            y: c.y,
            z: c.z,
            state_id: id,
            name: r.name,
            properties: r.properties,
            layer,
        });
    }
    out
}

/// One column of a `chunks` listing.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct ChunkEntry {
    pub cx: i32,
    pub cz: i32,
    /// The server sent this column.
    pub loaded: bool,
    /// Every sub-chunk has data (request mode fills them one response at a time).
    pub complete: bool,
    /// Distance in chunks from the bot's chunk.
    pub dist: f64,
}

/// `chunks`: every column within `radius` chunks (square) of `(cx, cz)`, nearest first.
pub fn chunks_around(world: &World, cx: i32, cz: i32, radius: i32) -> Vec<ChunkEntry> {
    let mut out = Vec::new();
    for dz in -radius..=radius {
        for dx in -radius..=radius {
            let (x, z) = (cx + dx, cz + dz);
            let column = world.column(x, z);
            let complete = column.is_some_and(|c| c.loaded_sub_chunks() == c.sub_chunks.len());
            let dist = round2(f64::from(dx * dx + dz * dz).sqrt());
            out.push(ChunkEntry { cx: x, cz: z, loaded: column.is_some(), complete, dist });
        }
    }
    out.sort_by(|a, b| a.dist.total_cmp(&b.dist).then((a.cz, a.cx).cmp(&(b.cz, b.cx))));
    out
}

/// One hit of `find`.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct Found {
    pub x: i32,
    pub y: i32,
    pub z: i32,
    pub name: String,
    /// From the bot's feet to the block's centre, in blocks.
    pub distance: f64,
}

/// The answer of `find`, with what the search looked at.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct FindResult {
    pub count: u64,
    pub blocks: Vec<Found>,
    /// Columns in range that were searched.
    pub columns_searched: u64,
    /// Columns in range the bot has no data for.
    pub unloaded_columns: u64,
    /// Sub-chunks whose palette lacked the block (skipped without reading a cell).
    pub sub_chunks_skipped: u64,
    /// Sub-chunks read cell by cell.
    pub sub_chunks_read: u64,
    /// The list is full and more matches were found (or may lie farther out).
    pub truncated: bool,
}

/// Horizontal distance from `(px, pz)` to the nearest point of chunk column `(cx, cz)`.
fn column_min_dist(px: f64, pz: f64, cx: i32, cz: i32) -> f64 {
    let gap = |p: f64, c: i32| {
        let lo = f64::from(c) * 16.0;
        (lo - p).max(p - (lo + 16.0)).max(0.0)
    };
    gap(px, cx).hypot(gap(pz, cz))
}

/// `find`: the `count` nearest blocks (3D distance ≤ `radius` from `feet`) whose layer-0 or
/// layer-1 id is in `wanted`. Columns are visited in square rings outward and a sub-chunk whose
/// palettes lack every wanted id is skipped without reading a cell.
pub fn find(
    world: &World,
    ids: &IdTable,
    wanted: &HashSet<u32>,
    feet: [f64; 3],
    radius: f64,
    count: usize,
) -> FindResult {
    find_or_count(world, ids, wanted, feet, radius, count, false)
}

/// [`find`], or with `count_only` every match in the sphere counted (`count` is the total,
/// nothing is listed, nothing pruned).
pub fn find_or_count(
    world: &World,
    ids: &IdTable,
    wanted: &HashSet<u32>,
    feet: [f64; 3],
    radius: f64,
    count: usize,
    count_only: bool,
) -> FindResult {
    let mut res = FindResult {
        count: 0,
        blocks: Vec::new(),
        columns_searched: 0,
        unloaded_columns: 0,
        sub_chunks_skipped: 0,
        sub_chunks_read: 0,
        truncated: false,
    };
    let mut total = 0u64;
    let mut hits: Vec<(f64, Cell, u32)> = Vec::new();
    let h = world.heights();
    let (bcx, bcz) = ((feet[0].floor() as i32) >> 4, (feet[2].floor() as i32) >> 4);
    let rings = (radius / 16.0).ceil() as i32 + 1;
    // Clipped to the dimension (one beyond each end) in i64: a bot a server placed at y = 1e38
    // searches nothing rather than overflow.
    let clip = |y: f64| (y as i64).clamp(i64::from(h.min_y) - 1, i64::from(h.max_y)) as i32;
    let y_lo = clip((feet[1] - radius).floor()).max(h.min_y);
    let y_hi = clip((feet[1] + radius).ceil()).min(h.max_y - 1);
    let count = count.max(1);
    // Distance of the count-th best hit so far (sorted lists only): anything farther cannot make it.
    let mut bound = radius;
    for r in 0..=rings {
        let ring: Vec<(i32, i32)> =
            ring_cells(bcx, bcz, r).filter(|&(cx, cz)| column_min_dist(feet[0], feet[2], cx, cz) <= radius).collect();
        let ring_min =
            ring.iter().map(|&(cx, cz)| column_min_dist(feet[0], feet[2], cx, cz)).fold(f64::INFINITY, f64::min);
        // Each ring's nearest column is no nearer than the previous ring's, so once the list is
        // full and this ring starts beyond its farthest hit, nothing left can make the list.
        if !count_only && hits.len() >= count && ring_min > bound {
            // Farther rings are not read: matches there are possible but not listed.
            res.truncated |= r < rings;
            break;
        }
        for (cx, cz) in ring {
            let Some(column) = world.column(cx, cz) else {
                res.unloaded_columns += 1;
                continue;
            };
            res.columns_searched += 1;
            for (i, slot) in column.sub_chunks.iter().enumerate() {
                let sy = (h.min_sub_y() + i as i32) * 16;
                if sy + 15 < y_lo || sy > y_hi {
                    continue;
                }
                let Some(sc) = slot else { continue };
                let lists = |s: &PalettedStorage| s.palette().iter().any(|id| wanted.contains(id));
                if !sc.layers.iter().any(lists) {
                    res.sub_chunks_skipped += 1;
                    continue;
                }
                let box_min = column_min_dist(feet[0], feet[2], cx, cz)
                    .hypot((f64::from(sy) - feet[1]).max(feet[1] - f64::from(sy + 16)).max(0.0));
                if box_min > bound {
                    res.sub_chunks_skipped += 1;
                    continue;
                }
                res.sub_chunks_read += 1;
                for ly in 0..16 {
                    let y = sy + ly;
                    if y < y_lo || y > y_hi {
                        continue;
                    }
                    for lz in 0..16 {
                        for lx in 0..16 {
                            let Some(id) = (0..sc.layers.len())
                                .filter_map(|l| sc.get(lx as usize, ly as usize, lz as usize, l))
                                .find(|id| wanted.contains(id))
                            else {
                                continue;
                            };
                            let c = Cell { x: cx * 16 + lx, y, z: cz * 16 + lz };
                            let d = c.distance_to(feet);
                            if d <= radius {
                                if count_only {
                                    total += 1;
                                } else {
                                    hits.push((d, c, id));
                                }
                            }
                        }
                    }
                }
                // Keep the candidate list small: only the best `count` can be reported.
                if hits.len() > count.saturating_mul(4).max(64) {
                    res.truncated = true;
                    bound = keep_best(&mut hits, count, bound);
                }
            }
        }
        res.truncated |= hits.len() > count;
        bound = keep_best(&mut hits, count, bound);
    }
    if count_only {
        res.count = total;
        return res;
    }
    res.count = hits.len() as u64;
    res.blocks = hits
        .into_iter()
        .map(|(d, c, id)| Found { x: c.x, y: c.y, z: c.z, name: ids.name(id).to_owned(), distance: round2(d) })
        .collect();
    res
}

/// Sorts hits nearest first, keeps `count`, and returns the new pruning bound.
fn keep_best(hits: &mut Vec<(f64, Cell, u32)>, count: usize, bound: f64) -> f64 {
    hits.sort_by(|a, b| a.0.total_cmp(&b.0).then((a.1.y, a.1.z, a.1.x).cmp(&(b.1.y, b.1.z, b.1.x))));
    hits.truncate(count);
    if hits.len() >= count { hits[count - 1].0 } else { bound }
}

/// Columns at Chebyshev distance exactly `r` from `(cx, cz)`.
fn ring_cells(cx: i32, cz: i32, r: i32) -> impl Iterator<Item = (i32, i32)> {
    (-r..=r)
        .flat_map(move |dz| (-r..=r).filter(move |dx| dx.abs() == r || dz.abs() == r).map(move |dx| (cx + dx, cz + dz)))
}
