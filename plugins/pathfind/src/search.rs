//! A* over the block map. Nodes are standing positions (the block cell holding the feet);
//! edges are moves a player makes — walk, diagonal (corners clear), step up, jump up, drop
//! (safe height, more into water), ladder/vine up and down, swim — with costs in game ticks at
//! the player's real speeds. Opt-in moves that change the world (pillar up, bridge, dig through)
//! are part of the move set, priced, and carried in the path so an executor can run them once the
//! interaction layer exists. The search is bounded by nodes and time; when the goal is not
//! reached it returns the best partial path (closest to the goal) and why.

use std::cmp::Ordering;
use std::collections::BinaryHeap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use rustc_hash::FxHashMap;
use serde::Serialize;

use crate::grid::{NavCell, NavGrid};

/// Ticks to walk one block (4.317 blocks/s).
pub const WALK: f32 = 1.0 / 0.215_85;
/// Ticks to sprint one block (5.612 blocks/s).
pub const SPRINT: f32 = 1.0 / 0.280_6;
/// Ticks to climb a ladder one block (0.2 blocks/tick).
pub const CLIMB: f32 = 5.0;
/// Ticks to swim one block.
pub const SWIM: f32 = 10.0;
/// Extra ticks for a jump up (the jump itself and landing).
pub const JUMP_EXTRA: f32 = 3.0;
/// Highest step up without jumping.
pub const STEP: f32 = 0.5625;
/// Highest jump onto something.
pub const JUMP: f32 = 1.25;
/// Weighted A*: the heuristic counts each block of distance this many times, trading some path
/// cost for far fewer nodes on rough ground. With a heuristic that never overestimates the cost
/// is within this factor of the optimum (tests/astar_reference.rs checks it for column goals);
/// toward a point below, where a drop is cheaper per block than walking, it can be a little more.
pub const HEURISTIC_WEIGHT: f32 = 1.25;

/// How a path node was reached.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum MoveKind {
    /// The start.
    Start,
    /// Walk to a neighbour (up or down at most a step).
    Walk,
    /// Walk diagonally (both corners clear).
    Diagonal,
    /// Jump up onto a block (or climb stairs, where the walk steps up twice).
    Ascend,
    /// Walk off an edge and fall.
    Drop,
    /// Ladder or vine, up or down.
    Climb,
    /// Through water.
    Swim,
    /// Through a door that must be opened first.
    Door,
    /// Jump and place a block below (opt-in).
    Pillar,
    /// Place a block to walk on (opt-in).
    Bridge,
    /// Break the blocks in the way (opt-in).
    Dig,
}

impl MoveKind {
    /// Moves that need the interaction layer (placing, breaking, opening).
    pub fn changes_world(self) -> bool {
        matches!(self, Self::Door | Self::Pillar | Self::Bridge | Self::Dig)
    }
}

/// Where the search should get: a predicate on standing positions ([`Goal::reached`]) and a
/// distance in blocks that never overestimates how far the nearest position meeting it is
/// ([`Goal::distance`]: the heuristic, times the ticks per block, and the measure of the best
/// partial path). Each form's distance changes by at most the distance moved, so a move never
/// lowers it by more than the move's length (the heuristic stays consistent); [`Goal::All`] takes
/// the largest of its parts' distances and [`Goal::Any`] the smallest, which keeps that property.
#[derive(Debug, Clone, PartialEq)]
pub enum Goal {
    /// Within `range` blocks of a point (the feet); `range` 0 means the cell holding it.
    Near { x: f64, y: f64, z: f64, range: f64 },
    /// Any height in the column of `x`, `z`.
    Xz { x: f64, z: f64 },
    /// Feet at block height `y`.
    Y { y: i32 },
    /// At least `distance` blocks (feet to the point, in three dimensions) from a point.
    Away { x: f64, y: f64, z: f64, distance: f64 },
    /// The feet cell inside the box of cells `min..=max`.
    Within { min: [i32; 3], max: [i32; 3] },
    /// Every part at once.
    All(Arc<[Goal]>),
    /// Any one part.
    Any(Arc<[Goal]>),
}

impl Goal {
    /// Whether standing in cell `p` with the feet at `feet` meets the goal.
    pub fn reached(&self, p: [i32; 3], feet: f32) -> bool {
        match self {
            &Goal::Near { x, y, z, range } if range <= 0.0 => {
                p == [x.floor() as i32, y.floor() as i32, z.floor() as i32]
            }
            &Goal::Near { x, y, z, range } => from_cell(p, feet, [x, y, z]) <= range,
            &Goal::Xz { x, z } => p[0] == x.floor() as i32 && p[2] == z.floor() as i32,
            &Goal::Y { y } => p[1] == y,
            &Goal::Away { x, y, z, distance } => from_cell(p, feet, [x, y, z]) >= distance,
            Goal::Within { min, max } => (0..3).all(|a| (min[a]..=max[a]).contains(&p[a])),
            Goal::All(parts) => parts.iter().all(|g| g.reached(p, feet)),
            Goal::Any(parts) => parts.iter().any(|g| g.reached(p, feet)),
        }
    }

    /// Distance in blocks to the goal (for the heuristic and the best partial path); 0 where
    /// it is met.
    pub fn distance(&self, p: [i32; 3], feet: f32) -> f32 {
        match self {
            &Goal::Near { x, y, z, range } => (from_cell(p, feet, [x, y, z]) - range.max(0.0)).max(0.0) as f32,
            &Goal::Xz { x, z } => {
                let (cx, cz) = (f64::from(p[0]) + 0.5, f64::from(p[2]) + 0.5);
                ((cx - x).powi(2) + (cz - z).powi(2)).sqrt() as f32
            }
            &Goal::Y { y } => (p[1] - y).abs() as f32,
            &Goal::Away { x, y, z, distance } => (distance - from_cell(p, feet, [x, y, z])).max(0.0) as f32,
            Goal::Within { min, max } => {
                let out = |a: usize| (min[a] - p[a]).max(p[a] - max[a]).max(0) as f32;
                (out(0).powi(2) + out(1).powi(2) + out(2).powi(2)).sqrt()
            }
            Goal::All(parts) => parts.iter().map(|g| g.distance(p, feet)).fold(0.0, f32::max),
            Goal::Any(parts) => parts.iter().map(|g| g.distance(p, feet)).fold(f32::INFINITY, f32::min),
        }
    }
}

/// Distance from the centre of cell `p` at the feet height `feet` to `point`.
#[inline]
fn from_cell(p: [i32; 3], feet: f32, [x, y, z]: [f64; 3]) -> f64 {
    ((f64::from(p[0]) + 0.5 - x).powi(2) + (f64::from(feet) - y).powi(2) + (f64::from(p[2]) + 0.5 - z).powi(2)).sqrt()
}

/// What the search may do.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Options {
    /// Sprint costs on flat ground.
    pub sprint: bool,
    /// Highest safe fall onto ground (3: no damage).
    pub max_drop: i32,
    /// Highest fall into water.
    pub max_water_drop: i32,
    /// Walk through closed doors (opening them).
    pub open_doors: bool,
    /// Pillar up and bridge by placing blocks.
    pub place: bool,
    /// Break blocks in the way.
    pub dig: bool,
    /// Most nodes to expand.
    pub max_nodes: usize,
    /// Most time to spend.
    pub max_time: Duration,
}

impl Default for Options {
    fn default() -> Self {
        Self {
            sprint: false,
            max_drop: 3,
            max_water_drop: 16,
            open_doors: false,
            place: false,
            dig: false,
            max_nodes: 20_000,
            max_time: Duration::from_millis(500),
        }
    }
}

/// One step of a path: the cell of the feet, the feet height, and how it is reached.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Step {
    pub x: i32,
    pub y: i32,
    pub z: i32,
    /// Feet height (the cell's `y` plus a slab, a carpet, …).
    pub feet: f32,
    pub kind: MoveKind,
}

impl Step {
    /// The point to walk to: the cell's centre at the feet height.
    pub fn target(&self) -> [f64; 3] {
        [f64::from(self.x) + 0.5, f64::from(self.feet), f64::from(self.z) + 0.5]
    }
}

/// Why a search ended without reaching its goal.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Incomplete {
    /// Every reachable position was tried.
    Unreachable,
    /// The node budget ran out.
    NodeLimit,
    /// The time budget ran out.
    TimeLimit,
    /// The start is not a place one can stand (inside a block, or no data).
    BadStart,
}

impl Incomplete {
    pub fn reason(self) -> &'static str {
        match self {
            Self::Unreachable => "unreachable: no path to the goal through loaded, walkable blocks",
            Self::NodeLimit => "search limit: too many positions tried",
            Self::TimeLimit => "search limit: out of time",
            Self::BadStart => "cannot stand at the start (inside a block or no block data)",
        }
    }
}

/// The outcome of a search.
#[derive(Debug, Clone, PartialEq)]
pub struct SearchResult {
    /// From the start (first step, `kind` Start) to the goal, or to the best position found.
    pub path: Vec<Step>,
    /// Total cost in ticks.
    pub cost: f32,
    /// `None` when the goal was reached.
    pub incomplete: Option<Incomplete>,
    /// Nodes expanded.
    pub nodes: usize,
    pub elapsed: Duration,
}

impl SearchResult {
    /// No path (a placeholder).
    pub fn empty() -> Self {
        Self {
            path: Vec::new(),
            cost: 0.0,
            incomplete: Some(Incomplete::Unreachable),
            nodes: 0,
            elapsed: Duration::ZERO,
        }
    }

    pub fn complete(&self) -> bool {
        self.incomplete.is_none()
    }
}

#[derive(Clone, Copy)]
struct Node {
    pos: [i32; 3],
    feet: f32,
    g: f32,
    parent: u32,
    kind: MoveKind,
    closed: bool,
}

#[derive(Clone, Copy, PartialEq)]
struct Open {
    f: f32,
    h: f32,
    node: u32,
}

impl Eq for Open {}
impl Ord for Open {
    fn cmp(&self, other: &Self) -> Ordering {
        // Min-heap on f, then on h (closer to the goal first).
        other.f.total_cmp(&self.f).then_with(|| other.h.total_cmp(&self.h))
    }
}
impl PartialOrd for Open {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

/// Node ids by cell, in pages of 16 × 16 × 16 cells (a search visits cells close together, so
/// most lookups land in the page of the one before and need no hashing).
#[derive(Default)]
struct NodeIndex {
    /// Page number by page (cell coordinates >> 4).
    pages: FxHashMap<[i32; 3], u32>,
    /// Per page, per cell: node id + 1, or 0 for none.
    slots: Vec<Box<[u32]>>,
    /// The page looked up last and its number.
    last: Option<([i32; 3], u32)>,
}

impl NodeIndex {
    /// The slot of cell `p`: node id + 1, or 0 when the cell has no node yet.
    #[inline]
    fn slot(&mut self, p: [i32; 3]) -> &mut u32 {
        let page = [p[0] >> 4, p[1] >> 4, p[2] >> 4];
        let n = match self.last {
            Some((k, n)) if k == page => n,
            _ => {
                let fresh = self.slots.len() as u32;
                let n = *self.pages.entry(page).or_insert(fresh);
                if n == fresh {
                    self.slots.push(vec![0; 4096].into_boxed_slice());
                }
                self.last = Some((page, n));
                n
            }
        };
        let cell = (((p[0] & 15) << 8) | ((p[2] & 15) << 4) | (p[1] & 15)) as usize;
        &mut self.slots[n as usize][cell]
    }
}

/// Where one can stand with the feet in cell `p`: the feet height, or `None`.
#[inline(always)]
pub fn stand<G: NavGrid + ?Sized>(g: &mut G, p: [i32; 3]) -> Option<f32> {
    let [x, y, z] = p;
    let column = g.cells4(x, y, z);
    let [below, here, ..] = column;
    if here.has(NavCell::UNLOADED) || here.has(NavCell::HAZARD) {
        return None;
    }
    let feet = if here.has(NavCell::SOLID) && !here.is_panel() {
        // Standing on a low block inside this cell (slab, carpet, chest, soul sand …).
        if here.bottom != 0 || here.top >= 16 {
            return None;
        }
        y as f32 + here.top_blocks()
    } else if here.has(NavCell::WATER) || here.has(NavCell::CLIMB) {
        y as f32
    } else {
        if !below.has(NavCell::SOLID) || below.has(NavCell::HAZARD) || below.top < 16 {
            return None;
        }
        y as f32 + (below.top_blocks() - 1.0)
    };
    // Body room: 1.8 blocks above the feet.
    let head = feet + 1.8;
    let mut cy = y + 1;
    while (cy as f32) < head {
        let c = match cy - y {
            1 => column[2],
            2 => column[3],
            _ => g.cell(x, cy, z),
        };
        if !c.body_fits() {
            return None;
        }
        cy += 1;
    }
    Some(feet)
}

/// Whether a door, trapdoor or gate panel in the body's cells (feet and head, on both sides)
/// stands on the edge crossed moving from (`x`, `z`) to (`x + dx`, `z + dz`) at cell height `y`.
#[inline(always)]
fn panel_in_the_way<G: NavGrid + ?Sized>(g: &mut G, [x, y, z]: [i32; 3], dx: i32, dz: i32) -> bool {
    // A closed door one stands in was opened by the move that got there (a `door` step); its
    // open panel is along the way (the executor checks the real one).
    let blocks = |c: NavCell, dx: i32, dz: i32| c.is_panel() && !c.crosses(dx, dz);
    (y..=y + 1).any(|cy| blocks(g.cell(x, cy, z), dx, dz) || blocks(g.cell(x + dx, cy, z + dz), -dx, -dz))
}

/// Whether a door, trapdoor or gate is in the feet or head cell of `p` (diagonal moves keep
/// clear of them).
#[inline(always)]
fn has_door<G: NavGrid + ?Sized>(g: &mut G, [x, y, z]: [i32; 3]) -> bool {
    g.cell(x, y, z).has(NavCell::DOOR) || g.cell(x, y + 1, z).has(NavCell::DOOR)
}

/// `v.floor() as i32` for heights (no library call where the target has no rounding
/// instruction).
#[inline(always)]
fn floor(v: f32) -> i32 {
    let t = v as i32;
    if (t as f32) > v { t - 1 } else { t }
}

/// Whether the body fits in column (`x`, `z`) from `from` up to `to` (feet heights).
#[inline(always)]
fn column_clear<G: NavGrid + ?Sized>(g: &mut G, x: i32, z: i32, from: f32, to: f32) -> bool {
    let mut cy = floor(from);
    while (cy as f32) < to {
        let c = g.cell(x, cy, z);
        let low_enough =
            c.has(NavCell::SOLID) && !c.has(NavCell::HAZARD) && (cy as f32 + c.top_blocks()) <= from + 1e-3;
        if !c.is_clear() && !low_enough {
            return false;
        }
        cy += 1;
    }
    true
}

/// The cells a dig move from the standing cell `from` to `to` mines, in the order it mines them
/// (top first, so a block is never mined from under another one the move mines): straight down,
/// the floor (and any cell down to `to`'s feet); straight up (a pillar), the cell above the head;
/// one column over and up, the cell above the head, then the target's head and feet cells; one
/// column over on the level, its head and feet cells. Cells already clear are skipped by whoever
/// mines them.
pub fn dig_cells(from: [i32; 3], to: [i32; 3]) -> Vec<[i32; 3]> {
    let [x, y, z] = from;
    if (to[0], to[2]) == (x, z) {
        if to[1] < y { (to[1]..y).rev().map(|cy| [x, cy, z]).collect() } else { vec![[x, y + 2, z]] }
    } else if to[1] > y {
        vec![[x, y + 2, z], [to[0], to[1] + 1, to[2]], to]
    } else {
        vec![[to[0], to[1] + 1, to[2]], to]
    }
}

/// Ticks to mine `cells` (in [`dig_cells`] order) bare-handed — 0 when they are all clear — or
/// `None` when one of them must not be mined: unbreakable (bedrock, barriers), a hazard (magma,
/// cactus, …), a liquid; or mining it lets something in: water, lava or fire above or beside it
/// (it would pour or spread into the hole), a cell without data beside it, or a falling block
/// (sand, gravel, …) resting on it that the move does not mine first.
fn mine_cost<G: NavGrid + ?Sized>(g: &mut G, cells: &[[i32; 3]]) -> Option<f32> {
    let mut ticks = 0.0;
    for (i, &[cx, cy, cz]) in cells.iter().enumerate() {
        let c = g.cell(cx, cy, cz);
        if c.body_fits() && !c.has(NavCell::HAZARD) {
            continue;
        }
        if !c.diggable() {
            return None;
        }
        for (dx, dy, dz) in [(0, 1, 0), (1, 0, 0), (-1, 0, 0), (0, 0, 1), (0, 0, -1)] {
            let n = g.cell(cx + dx, cy + dy, cz + dz);
            if n.flows() || n.has(NavCell::UNLOADED) {
                return None;
            }
            if dy == 1 && n.has(NavCell::FALLS) && !cells[..i].contains(&[cx, cy + 1, cz]) {
                return None;
            }
        }
        ticks += f32::from(c.hardness) * 4.0;
    }
    Some(ticks)
}

const DIRS: [(i32, i32); 8] = [(1, 0), (-1, 0), (0, 1), (0, -1), (1, 1), (1, -1), (-1, 1), (-1, -1)];

/// Fall time in ticks for `h` blocks (gravity 0.08, drag 0.98).
fn fall_ticks(h: f32) -> f32 {
    (2.0 * h / 0.08).sqrt() + 1.0
}

/// The map as a search reads it: with dig moves on, [`Dug`]; otherwise the map itself.
trait View: NavGrid {
    /// The feet cell of the node about to be expanded when its body was dug out (or `None`).
    fn dig_out(&mut self, _feet: Option<[i32; 3]>) {}
}

/// The map as is (searches without dig moves pay nothing for [`Dug`]).
struct Plain<'a, G: ?Sized>(&'a mut G);

impl<G: NavGrid + ?Sized> NavGrid for Plain<'_, G> {
    #[inline]
    fn cell(&mut self, x: i32, y: i32, z: i32) -> NavCell {
        self.0.cell(x, y, z)
    }

    #[inline]
    fn cells4(&mut self, x: i32, y: i32, z: i32) -> [NavCell; 4] {
        self.0.cells4(x, y, z)
    }

    #[inline]
    fn cells_around(&mut self, x: i32, y: i32, z: i32) -> [[NavCell; 4]; 9] {
        self.0.cells_around(x, y, z)
    }
}

impl<G: NavGrid + ?Sized> View for Plain<'_, G> {}

/// The map as the search sees it from the node being expanded: the body cells (feet and head)
/// of a node reached by mining, or by a pillar through a ceiling, are clear there whatever the
/// map still says (the search does not change the map, so without this a hole dug down would
/// still read as stone from inside it).
struct Dug<'a, G: ?Sized> {
    grid: &'a mut G,
    /// The feet cell of the node whose body is dug out.
    feet: Option<[i32; 3]>,
}

impl<G: NavGrid + ?Sized> NavGrid for Dug<'_, G> {
    #[inline]
    fn cell(&mut self, x: i32, y: i32, z: i32) -> NavCell {
        if let Some([fx, fy, fz]) = self.feet
            && x == fx
            && z == fz
            && (y == fy || y == fy + 1)
        {
            return NavCell::AIR;
        }
        self.grid.cell(x, y, z)
    }

    #[inline]
    fn cells4(&mut self, x: i32, y: i32, z: i32) -> [NavCell; 4] {
        let mut cells = self.grid.cells4(x, y, z);
        if let Some([fx, fy, fz]) = self.feet
            && x == fx
            && z == fz
        {
            for (c, cy) in cells.iter_mut().zip(y - 1..) {
                if cy == fy || cy == fy + 1 {
                    *c = NavCell::AIR;
                }
            }
        }
        cells
    }

    #[inline]
    fn cells_around(&mut self, x: i32, y: i32, z: i32) -> [[NavCell; 4]; 9] {
        let mut columns = self.grid.cells_around(x, y, z);
        if let Some([fx, fy, fz]) = self.feet {
            for (i, column) in columns.iter_mut().enumerate() {
                if (x + i as i32 / 3 - 1, z + i as i32 % 3 - 1) != (fx, fz) {
                    continue;
                }
                for (c, cy) in column.iter_mut().zip(y - 1..) {
                    if cy == fy || cy == fy + 1 {
                        *c = NavCell::AIR;
                    }
                }
            }
        }
        columns
    }
}

impl<G: NavGrid + ?Sized> View for Dug<'_, G> {
    fn dig_out(&mut self, feet: Option<[i32; 3]>) {
        self.feet = feet;
    }
}

/// The view as read while expanding one node: the 3 × 3 columns centred on the node, from the
/// floor under its feet to the cell above its head, are read once ([`NavGrid::cells4`]) and
/// served from here (the moves out of a node read most of them several times); other cells
/// come from the view.
struct Near<V> {
    view: V,
    /// The cell of the node the columns were read around.
    at: [i32; 3],
    /// By (x − `at` x + 1) × 3 + (z − `at` z + 1); each from `at` y − 1 up.
    columns: [[NavCell; 4]; 9],
}

impl<V: NavGrid> Near<V> {
    fn new(view: V) -> Self {
        Self { view, at: [i32::MIN; 3], columns: [[NavCell::UNKNOWN; 4]; 9] }
    }

    /// Reads the columns around `at` (before expanding the node there).
    fn read_around(&mut self, at: [i32; 3]) {
        self.at = at;
        self.columns = self.view.cells_around(at[0], at[1], at[2]);
    }

    /// Which of the columns holds (`x`, `z`), if one does.
    #[inline(always)]
    fn column(&self, x: i32, z: i32) -> Option<usize> {
        let dx = x.wrapping_sub(self.at[0]).wrapping_add(1) as u32;
        let dz = z.wrapping_sub(self.at[2]).wrapping_add(1) as u32;
        if dx < 3 && dz < 3 { Some((dx * 3 + dz) as usize) } else { None }
    }
}

impl<V: NavGrid> NavGrid for Near<V> {
    #[inline(always)]
    fn cell(&mut self, x: i32, y: i32, z: i32) -> NavCell {
        let dy = y.wrapping_sub(self.at[1]).wrapping_add(1) as u32;
        match self.column(x, z) {
            Some(i) if dy < 4 => self.columns[i][dy as usize],
            _ => self.view.cell(x, y, z),
        }
    }

    #[inline(always)]
    fn cells4(&mut self, x: i32, y: i32, z: i32) -> [NavCell; 4] {
        match self.column(x, z) {
            Some(i) if y == self.at[1] => self.columns[i],
            _ => self.view.cells4(x, y, z),
        }
    }
}

impl<V: View> View for Near<V> {
    fn dig_out(&mut self, feet: Option<[i32; 3]>) {
        self.view.dig_out(feet);
    }
}

struct Search<V: View> {
    grid: Near<V>,
    goal: Goal,
    opts: Options,
    nodes: Vec<Node>,
    index: NodeIndex,
    open: BinaryHeap<Open>,
    /// The moves of the node being expanded.
    out: Vec<Edge>,
}

impl<V: View> Search<V> {
    fn new(grid: V, goal: Goal, opts: Options, capacity: usize) -> Self {
        Self {
            grid: Near::new(grid),
            goal,
            opts,
            nodes: Vec::with_capacity(capacity),
            index: NodeIndex::default(),
            open: BinaryHeap::with_capacity(capacity),
            out: Vec::with_capacity(16),
        }
    }
}

/// One move out of a standing position.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Edge {
    pub to: [i32; 3],
    pub feet: f32,
    /// Ticks.
    pub cost: f32,
    pub kind: MoveKind,
}

/// The moves out of a standing position (for other search algorithms and the benches).
pub fn successors<G: NavGrid + ?Sized>(grid: &mut G, pos: [i32; 3], feet: f32, goal: Goal, opts: Options) -> Vec<Edge> {
    fn run<V: View>(mut s: Search<V>, pos: [i32; 3], feet: f32) -> Vec<Edge> {
        s.expand(pos, feet);
        s.out
    }
    if opts.dig {
        run(Search::new(Dug { grid, feet: None }, goal, opts, 0), pos, feet)
    } else {
        run(Search::new(Plain(grid), goal, opts, 0), pos, feet)
    }
}

impl<V: View> Search<V> {
    fn h(&self, p: [i32; 3], feet: f32) -> f32 {
        let per = if self.opts.sprint { SPRINT } else { WALK };
        self.goal.distance(p, feet) * per * HEURISTIC_WEIGHT
    }

    fn push(&mut self, from: u32, p: [i32; 3], feet: f32, cost: f32, kind: MoveKind) {
        let g = self.nodes[from as usize].g + cost;
        let slot = self.index.slot(p);
        let id = match *slot {
            0 => {
                let id = self.nodes.len() as u32;
                *slot = id + 1;
                self.nodes.push(Node { pos: p, feet, g, parent: from, kind, closed: false });
                id
            }
            s => {
                let id = s - 1;
                let n = &mut self.nodes[id as usize];
                if n.closed || n.g <= g {
                    return;
                }
                *n = Node { pos: p, feet, g, parent: from, kind, closed: false };
                id
            }
        };
        let h = self.h(p, feet);
        self.open.push(Open { f: g + h, h, node: id });
    }

    fn edge(&mut self, p: [i32; 3], feet: f32, cost: f32, kind: MoveKind) {
        self.out.push(Edge { to: p, feet, cost, kind });
    }

    /// Every move out of the standing position `[x, y, z]` (feet at `feet`), into `self.out`.
    fn expand(&mut self, [x, y, z]: [i32; 3], feet: f32) {
        self.grid.read_around([x, y, z]);
        let here = self.grid.cell(x, y, z);
        let in_water = here.has(NavCell::WATER);
        let on_climb = here.has(NavCell::CLIMB);
        let flat = if self.opts.sprint { SPRINT } else { WALK };
        let in_door = has_door(&mut self.grid, [x, y, z]);
        for (i, &(dx, dz)) in DIRS.iter().enumerate() {
            let diagonal = i >= 4;
            let (nx, nz) = (x + dx, z + dz);
            if diagonal {
                // Door frames are walked through straight.
                if in_door || has_door(&mut self.grid, [nx, y, nz]) {
                    continue;
                }
                // Both corners must be clear for the whole body.
                if !column_clear(&mut self.grid, nx, z, feet, feet + 1.8)
                    || !column_clear(&mut self.grid, x, nz, feet, feet + 1.8)
                {
                    continue;
                }
                if let Some(f) = stand(&mut self.grid, [nx, y, nz]) {
                    let dy = f - feet;
                    if dy.abs() <= STEP {
                        let c = if in_water || self.grid.cell(nx, y, nz).has(NavCell::WATER) { SWIM } else { flat };
                        self.edge([nx, y, nz], f, c * std::f32::consts::SQRT_2, MoveKind::Diagonal);
                    }
                }
                continue;
            }
            self.cardinal([x, y, z], feet, [dx, dz], in_water || on_climb, flat);
        }
        // Vertical: ladders and water.
        for dy in [1, -1] {
            let p = [x, y + dy, z];
            let there = self.grid.cell(p[0], p[1], p[2]);
            let climbable = on_climb || there.has(NavCell::CLIMB);
            let swimmable = in_water || there.has(NavCell::WATER);
            if !(climbable || swimmable) {
                continue;
            }
            if let Some(f) = stand(&mut self.grid, p) {
                let (cost, kind) = if climbable { (CLIMB, MoveKind::Climb) } else { (SWIM, MoveKind::Swim) };
                self.edge(p, f, cost, kind);
            }
        }
        // Pillar: jump and place a block in the feet cell (with dig, mining the ceiling first).
        if self.opts.place && !in_water && !on_climb {
            let p = [x, y + 1, z];
            if here.is_clear() && self.grid.cell(x, y + 1, z).is_clear() {
                let ceiling = if self.grid.cell(x, y + 2, z).is_clear() {
                    Some(0.0)
                } else if self.opts.dig {
                    mine_cost(&mut self.grid, &[[x, y + 2, z]])
                } else {
                    None
                };
                if let Some(mine) = ceiling {
                    self.edge(p, (y + 1) as f32, 20.0 + mine, MoveKind::Pillar);
                }
            }
        }
        if self.opts.dig && !in_water && !on_climb && !here.has(NavCell::SOLID) {
            self.dig_down([x, y, z]);
        }
    }

    /// Dig down: mine the floor under the feet and drop into the hole, onto the first floor
    /// below that is safe to stand on (solid, a full top, no hazard) within `max_drop`. Nothing
    /// when the floor must not be mined ([`mine_cost`]: liquid beside or above it, …) or when
    /// below it is a longer fall, lava, water, a ladder, a partial block or no data.
    fn dig_down(&mut self, [x, y, z]: [i32; 3]) {
        let Some(mine) = mine_cost(&mut self.grid, &[[x, y - 1, z]]) else { return };
        if mine <= 0.0 {
            return;
        }
        for d in 1..=self.opts.max_drop {
            let under = self.grid.cell(x, y - d - 1, z);
            if under.has(NavCell::SOLID) {
                let floor = under.top == 16 && under.bottom == 0 && !under.has(NavCell::HAZARD | NavCell::DOOR);
                if floor {
                    self.edge([x, y - d, z], (y - d) as f32, mine + fall_ticks(d as f32), MoveKind::Dig);
                }
                return;
            }
            if !under.is_clear() || under.has(NavCell::WATER | NavCell::CLIMB) {
                return;
            }
        }
    }

    /// The moves toward one cardinal neighbour column: walk/step, jump up, drop, door, bridge, dig.
    fn cardinal(&mut self, [x, y, z]: [i32; 3], feet: f32, [dx, dz]: [i32; 2], afloat: bool, flat: f32) {
        let (nx, nz) = (x + dx, z + dz);
        // Same level (or a slab/step within it), unless a door panel stands on the edge crossed.
        let stand_there = stand(&mut self.grid, [nx, y, nz]);
        if let Some(f) = stand_there
            && panel_in_the_way(&mut self.grid, [x, y, z], dx, dz)
        {
            // A door panel (open or closed) on the edge crossed: toggle it on the way.
            if self.opts.open_doors && f - feet <= STEP && f - feet >= -STEP {
                self.edge([nx, y, nz], f, flat + 10.0, MoveKind::Door);
            }
            return;
        }
        if let Some(f) = stand_there {
            let dy = f - feet;
            if dy <= STEP {
                if dy < -STEP {
                    // A lower floor inside the same cell row is still a short drop.
                    self.edge([nx, y, nz], f, flat + fall_ticks(-dy), MoveKind::Drop);
                } else {
                    let water = self.grid.cell(nx, y, nz).has(NavCell::WATER);
                    let c = if water || afloat { SWIM.max(flat) } else { flat };
                    self.edge([nx, y, nz], f, c, MoveKind::Walk);
                }
                return;
            }
            if dy <= JUMP && column_clear(&mut self.grid, x, z, feet, f + 1.8) {
                self.edge([nx, y, nz], f, flat + JUMP_EXTRA, MoveKind::Ascend);
                return;
            }
        }
        let beside = self.grid.cell(nx, y, nz);
        let above = self.grid.cell(nx, y + 1, nz);
        // Up one: a block in the way with room on top.
        if !beside.is_clear() && !beside.has(NavCell::UNLOADED) && !beside.has(NavCell::HAZARD) {
            if let Some(f) = stand(&mut self.grid, [nx, y + 1, nz]) {
                let dy = f - feet;
                let stairs = beside.has(NavCell::STAIRS);
                if (dy <= JUMP || (stairs && dy <= 1.0 + 1e-3)) && column_clear(&mut self.grid, x, z, feet, f + 1.8) {
                    let extra = if stairs { 1.0 } else { JUMP_EXTRA };
                    self.edge([nx, y + 1, nz], f, flat + extra, MoveKind::Ascend);
                    return;
                }
            }
            // A closed gate (a bar across the middle): through it when doors can be opened.
            if self.opts.open_doors && beside.has(NavCell::DOOR) && (above.body_fits() || above.has(NavCell::DOOR)) {
                let below = self.grid.cell(nx, y - 1, nz);
                if below.has(NavCell::SOLID) && below.top >= 16 {
                    self.edge([nx, y, nz], y as f32, flat + 10.0, MoveKind::Door);
                }
                return;
            }
            if self.opts.dig {
                // Up one, mining the cell above the head and the target's body cells.
                let floor = beside.has(NavCell::SOLID)
                    && beside.top == 16
                    && beside.bottom == 0
                    && !beside.has(NavCell::DOOR | NavCell::HAZARD);
                if floor && (y + 1) as f32 - feet <= JUMP && !afloat {
                    let cells = [[x, y + 2, z], [nx, y + 2, nz], [nx, y + 1, nz]];
                    if let Some(mine) = mine_cost(&mut self.grid, &cells)
                        && mine > 0.0
                    {
                        self.edge([nx, y + 1, nz], (y + 1) as f32, flat + JUMP_EXTRA + mine, MoveKind::Dig);
                    }
                }
                // And through the body cells on the level.
                self.dig_through([x, y, z], [nx, nz], flat);
            }
            return;
        }
        if !beside.is_clear() || !above.is_clear() {
            // A low ceiling: mine the head cell.
            if self.opts.dig && beside.is_clear() && !beside.has(NavCell::WATER) {
                self.dig_through([x, y, z], [nx, nz], flat);
            }
            return;
        }
        // Nothing to stand on beside: a drop, or a bridge.
        let max_drop = self.opts.max_drop.max(self.opts.max_water_drop);
        for d in 1..=max_drop + 1 {
            let p = [nx, y - d, nz];
            let c = self.grid.cell(p[0], p[1], p[2]);
            if let Some(f) = stand(&mut self.grid, p) {
                let fall = feet - f;
                let water = c.has(NavCell::WATER);
                if fall <= self.opts.max_drop as f32 + 1e-3 || (water && fall <= self.opts.max_water_drop as f32) {
                    self.edge(p, f, flat + fall_ticks(fall), MoveKind::Drop);
                }
                break;
            }
            if !c.is_clear() {
                break;
            }
        }
        if self.opts.place && !afloat {
            let under = self.grid.cell(nx, y - 1, nz);
            if under.is_clear() {
                self.edge([nx, y, nz], y as f32, flat + 15.0, MoveKind::Bridge);
            }
        }
    }

    /// Dig through: mine the head and feet cells of the neighbour column (`nx`, `nz`) on the
    /// level and walk in, onto its floor (solid, a full top, no hazard).
    fn dig_through(&mut self, [x, y, z]: [i32; 3], [nx, nz]: [i32; 2], flat: f32) {
        let below = self.grid.cell(nx, y - 1, nz);
        if !below.has(NavCell::SOLID) || below.top < 16 || below.has(NavCell::HAZARD) {
            return;
        }
        if let Some(mine) = mine_cost(&mut self.grid, &dig_cells([x, y, z], [nx, y, nz]))
            && mine > 0.0
        {
            self.edge([nx, y, nz], y as f32, flat + mine, MoveKind::Dig);
        }
    }

    fn path_to(&self, mut id: u32) -> Vec<Step> {
        let mut steps = Vec::new();
        loop {
            let n = &self.nodes[id as usize];
            steps.push(Step { x: n.pos[0], y: n.pos[1], z: n.pos[2], feet: n.feet, kind: n.kind });
            if n.parent == id {
                break;
            }
            id = n.parent;
        }
        steps.reverse();
        steps
    }
}

/// A* from the standing position in cell `start` to `goal`.
pub fn find_path<G: NavGrid + ?Sized>(grid: &mut G, start: [i32; 3], goal: Goal, opts: Options) -> SearchResult {
    let began = Instant::now();
    let fail =
        |why| SearchResult { path: Vec::new(), cost: 0.0, incomplete: Some(why), nodes: 0, elapsed: began.elapsed() };
    // The start may be a tick above the ground (a jump) or in the air: take the nearest floor below.
    let mut start = start;
    let mut feet = None;
    for _ in 0..3 {
        if let Some(f) = stand(grid, start) {
            feet = Some(f);
            break;
        }
        start[1] -= 1;
    }
    let Some(feet) = feet else { return fail(Incomplete::BadStart) };
    if opts.dig {
        search(Search::new(Dug { grid, feet: None }, goal, opts, 1024), start, feet, began)
    } else {
        search(Search::new(Plain(grid), goal, opts, 1024), start, feet, began)
    }
}

/// The A* loop of [`find_path`] from the standing position `start`.
fn search<V: View>(mut s: Search<V>, start: [i32; 3], feet: f32, began: Instant) -> SearchResult {
    let (goal, opts) = (s.goal.clone(), s.opts);
    s.nodes.push(Node { pos: start, feet, g: 0.0, parent: 0, kind: MoveKind::Start, closed: false });
    *s.index.slot(start) = 1;
    let h0 = s.h(start, feet);
    s.open.push(Open { f: h0, h: h0, node: 0 });
    let mut best = (goal.distance(start, feet), 0_u32);
    let mut expanded = 0;
    let mut why = Incomplete::Unreachable;
    while let Some(Open { node, .. }) = s.open.pop() {
        let n = s.nodes[node as usize];
        if n.closed {
            continue;
        }
        if goal.reached(n.pos, n.feet) {
            return SearchResult {
                path: s.path_to(node),
                cost: n.g,
                incomplete: None,
                nodes: expanded,
                elapsed: began.elapsed(),
            };
        }
        s.nodes[node as usize].closed = true;
        let d = goal.distance(n.pos, n.feet);
        if d < best.0 {
            best = (d, node);
        }
        expanded += 1;
        if expanded >= opts.max_nodes {
            why = Incomplete::NodeLimit;
            break;
        }
        if expanded % 256 == 0 && began.elapsed() >= opts.max_time {
            why = Incomplete::TimeLimit;
            break;
        }
        s.out.clear();
        s.grid.dig_out(matches!(n.kind, MoveKind::Dig | MoveKind::Pillar).then_some(n.pos));
        s.expand(n.pos, n.feet);
        let edges = std::mem::take(&mut s.out);
        for e in &edges {
            s.push(node, e.to, e.feet, e.cost, e.kind);
        }
        s.out = edges;
    }
    let cost = s.nodes[best.1 as usize].g;
    SearchResult { path: s.path_to(best.1), cost, incomplete: Some(why), nodes: expanded, elapsed: began.elapsed() }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::grid::MapGrid;

    /// Ground at y = 0 (solid below 0), air from 0 up.
    fn flat() -> MapGrid {
        MapGrid { cells: FxHashMap::default(), fill: |y| if y < 0 { NavCell::STONE } else { NavCell::AIR } }
    }

    fn set(g: &mut MapGrid, p: [i32; 3], c: NavCell) {
        g.cells.insert((p[0], p[1], p[2]), c);
    }

    /// A wall `height` high on the square ring at Chebyshev distance `r` around `c`.
    fn ring(g: &mut MapGrid, c: [i32; 3], r: i32, height: i32) {
        for dx in -r..=r {
            for dz in -r..=r {
                if dx.abs().max(dz.abs()) == r {
                    for y in 0..height {
                        set(g, [c[0] + dx, c[1] + y, c[2] + dz], NavCell::STONE);
                    }
                }
            }
        }
    }

    fn near(x: i32, y: i32, z: i32) -> Goal {
        Goal::Near { x: f64::from(x) + 0.5, y: f64::from(y), z: f64::from(z) + 0.5, range: 0.0 }
    }

    #[test]
    fn straight_and_diagonal_paths_cost_walking_ticks() {
        let mut g = flat();
        let r = find_path(&mut g, [0, 0, 0], near(10, 0, 0), Options::default());
        assert!(r.complete());
        assert_eq!(r.path.len(), 11);
        assert!((r.cost - 10.0 * WALK).abs() < 1e-3, "{}", r.cost);
        let r = find_path(&mut g, [0, 0, 0], near(5, 0, 5), Options::default());
        assert_eq!(r.path.len(), 6, "five diagonal steps");
        assert!(r.path[1..].iter().all(|s| s.kind == MoveKind::Diagonal));
    }

    #[test]
    fn diagonals_need_clear_corners() {
        let mut g = flat();
        set(&mut g, [1, 0, 0], NavCell::STONE);
        set(&mut g, [1, 1, 0], NavCell::STONE);
        let r = find_path(&mut g, [0, 0, 0], near(1, 0, 1), Options::default());
        assert!(r.complete());
        assert_eq!(r.path.len(), 3, "around the corner, not through it: {:?}", r.path);
    }

    #[test]
    fn jumps_one_block_but_not_two_and_drops_safely() {
        let mut g = flat();
        set(&mut g, [1, 0, 0], NavCell::STONE);
        let r = find_path(&mut g, [0, 0, 0], near(1, 1, 0), Options::default());
        assert!(r.complete());
        assert_eq!(r.path[1].kind, MoveKind::Ascend);
        // A ring two high around the goal: it cannot be reached; the partial path ends at the ring.
        let mut g = flat();
        ring(&mut g, [6, 0, 0], 2, 2);
        let r = find_path(&mut g, [0, 0, 0], near(6, 0, 0), Options { max_nodes: 3000, ..Options::default() });
        assert_eq!(r.incomplete, Some(Incomplete::NodeLimit));
        let end = r.path.last().expect("partial path");
        assert_eq!((end.x, end.z), (3, 0), "best partial: right at the ring");
        // A 4-block drop is refused, a 3-block one taken.
        let mut g =
            MapGrid { cells: FxHashMap::default(), fill: |y| if y < 0 { NavCell::STONE } else { NavCell::AIR } };
        // A hole 3 deep at x=1 is dropped into; one 4 deep (z=5) is not.
        for y in -3..0 {
            set(&mut g, [1, y, 0], NavCell::AIR);
        }
        for y in -4..0 {
            set(&mut g, [1, y, 5], NavCell::AIR);
        }
        let ok = find_path(&mut g, [0, 0, 0], near(1, -3, 0), Options::default());
        assert!(ok.complete() && ok.path[1].kind == MoveKind::Drop, "{:?}", ok.path);
        let opts = Options { max_drop: 3, max_water_drop: 3, max_nodes: 500, ..Options::default() };
        let too_far = find_path(&mut g, [0, 0, 5], near(1, -4, 5), opts);
        assert!(!too_far.complete(), "{:?}", too_far.path);
    }

    #[test]
    fn hazards_are_never_stood_in_or_on() {
        let mut g = flat();
        let lava = NavCell { flags: NavCell::HAZARD, ..NavCell::AIR };
        for z in -3..=3 {
            set(&mut g, [2, -1, z], NavCell { top: 16, flags: NavCell::SOLID | NavCell::HAZARD, ..NavCell::STONE });
            set(&mut g, [3, 0, z], lava);
        }
        let r = find_path(&mut g, [0, 0, 0], near(6, 0, 0), Options::default());
        assert!(r.complete(), "around the magma and lava");
        assert!(r.path.iter().all(|s| s.x != 2 || s.z.abs() > 3), "{:?}", r.path);
    }

    #[test]
    fn ladders_climb_and_water_swims() {
        let mut g = flat();
        let ladder = NavCell { flags: NavCell::CLIMB, ..NavCell::AIR };
        for y in 0..4 {
            set(&mut g, [1, y, 0], ladder);
            set(&mut g, [2, y, 0], NavCell::STONE);
        }
        let r = find_path(&mut g, [0, 0, 0], near(2, 4, 0), Options::default());
        assert!(r.complete(), "{:?}", r);
        assert!(r.path.iter().filter(|s| s.kind == MoveKind::Climb).count() >= 3);
        let mut g = MapGrid {
            cells: FxHashMap::default(),
            fill: |y| {
                if y < -3 {
                    NavCell::STONE
                } else if y < 0 {
                    NavCell { flags: NavCell::WATER, ..NavCell::AIR }
                } else {
                    NavCell::AIR
                }
            },
        };
        for x in -1..=0 {
            for y in -4..0 {
                set(&mut g, [x, y, 0], NavCell::STONE);
            }
        }
        for y in -4..0 {
            set(&mut g, [8, y, 0], NavCell::STONE);
        }
        let r = find_path(&mut g, [0, 0, 0], near(8, 0, 0), Options::default());
        assert!(r.complete(), "across the water");
        assert!(r.path.iter().any(|s| g.cell(s.x, s.y, s.z).has(NavCell::WATER)));
    }

    #[test]
    fn opt_in_moves_slot_in() {
        let mut g = flat();
        ring(&mut g, [6, 0, 0], 2, 3);
        let opts = Options { max_nodes: 2000, ..Options::default() };
        assert!(!find_path(&mut g, [0, 0, 0], near(6, 0, 0), opts).complete());
        let r = find_path(&mut g, [0, 0, 0], near(6, 0, 0), Options { dig: true, ..opts });
        assert!(r.complete() && r.path.iter().any(|s| s.kind == MoveKind::Dig));
        let r = find_path(&mut g, [0, 0, 0], near(3, 3, 0), Options { place: true, ..opts });
        assert!(r.complete() && r.path.iter().any(|s| s.kind == MoveKind::Pillar), "{:?}", r.path);
    }

    const DIRT: NavCell = NavCell { hardness: 4, ..NavCell::STONE };
    const BEDROCK: NavCell = NavCell { hardness: 255, ..NavCell::STONE };
    const SAND: NavCell = NavCell { hardness: 4, flags: NavCell::SOLID | NavCell::FALLS, ..NavCell::STONE };
    const WATER: NavCell = NavCell { flags: NavCell::WATER, hardness: 255, ..NavCell::AIR };
    const LAVA: NavCell = NavCell { flags: NavCell::HAZARD, hardness: 255, ..NavCell::AIR };
    const MAGMA: NavCell = NavCell { flags: NavCell::SOLID | NavCell::HAZARD, hardness: 4, ..NavCell::STONE };

    fn dig_on() -> Options {
        Options { dig: true, ..Options::default() }
    }

    /// The dig moves out of `p` (feet on the ground) with dig on.
    fn digs(g: &mut MapGrid, p: [i32; 3], opts: Options) -> Vec<Edge> {
        let f = stand(g, p).expect("standing");
        successors(g, p, f, Goal::Y { y: -100 }, opts).into_iter().filter(|e| e.kind == MoveKind::Dig).collect()
    }

    fn down(g: &mut MapGrid) -> Option<Edge> {
        digs(g, [0, 0, 0], dig_on()).into_iter().find(|e| (e.to[0], e.to[2]) == (0, 0))
    }

    #[test]
    fn digs_down_through_the_floor_one_level_per_move() {
        let mut g = flat();
        let goal = near(0, -3, 0);
        assert!(
            !find_path(&mut g, [0, 0, 0], goal.clone(), Options { max_nodes: 2000, ..Options::default() }).complete()
        );
        let r = find_path(&mut g, [0, 0, 0], goal.clone(), dig_on());
        assert!(r.complete(), "{r:?}");
        let cells: Vec<_> = r.path.iter().map(|s| ([s.x, s.y, s.z], s.kind)).collect();
        assert_eq!(
            cells,
            vec![
                ([0, 0, 0], MoveKind::Start),
                ([0, -1, 0], MoveKind::Dig),
                ([0, -2, 0], MoveKind::Dig),
                ([0, -3, 0], MoveKind::Dig)
            ]
        );
        assert_eq!(r.path[3].feet, -3.0);
        // Searched on from inside the hole (its cells read as dug out): without that the map's
        // stone there stops the next level and 20 000 nodes are not enough.
        assert!(r.nodes < 2000, "{} nodes", r.nodes);
        // Each level costs its block's break time and the one-block fall.
        let per = f32::from(NavCell::STONE.hardness) * 4.0 + fall_ticks(1.0);
        assert!((r.cost - 3.0 * per).abs() < 1e-3, "{} vs {}", r.cost, 3.0 * per);
        // A deeper hole costs more; a softer floor less.
        let two = find_path(&mut g, [0, 0, 0], near(0, -2, 0), dig_on());
        assert!(two.complete() && two.cost < r.cost);
        let mut soft = flat();
        for y in -3..0 {
            set(&mut soft, [0, y, 0], DIRT);
        }
        let r2 = find_path(&mut soft, [0, 0, 0], goal.clone(), dig_on());
        assert!(r2.complete() && r2.cost < r.cost, "{} vs {}", r2.cost, r.cost);
        assert_eq!(dig_cells([0, 0, 0], [0, -1, 0]), vec![[0, -1, 0]]);
    }

    #[test]
    fn digs_down_into_a_cave_only_within_max_drop() {
        // Floor one block thick over a cave: the drop after mining it is 3 blocks (ok).
        let mut g = flat();
        for y in -3..=-2 {
            set(&mut g, [0, y, 0], NavCell::AIR);
        }
        let e = down(&mut g).expect("dig down into the cave");
        assert_eq!((e.to, e.feet), ([0, -3, 0], -3.0));
        assert!((e.cost - (44.0 + fall_ticks(3.0))).abs() < 1e-3, "{}", e.cost);
        // Four blocks: the floor under the feet is never mined.
        set(&mut g, [0, -4, 0], NavCell::AIR);
        assert_eq!(down(&mut g), None);
        assert_eq!(down(&mut g), None);
        let r = find_path(&mut g, [0, 0, 0], near(0, -4, 0), Options { max_drop: 4, ..dig_on() });
        assert!(r.complete() && r.path[1].kind == MoveKind::Dig && r.path[1].y == -4, "{:?}", r.path);
        // Lava, water, a ladder or magma below the floor: no.
        for (below, what) in [
            (LAVA, "lava"),
            (WATER, "water"),
            (NavCell { flags: NavCell::CLIMB, ..NavCell::AIR }, "ladder"),
            (MAGMA, "magma"),
        ] {
            let mut g = flat();
            set(&mut g, [0, -2, 0], below);
            assert_eq!(down(&mut g), None, "{what} under the floor");
        }
    }

    #[test]
    fn never_digs_down_into_liquid_or_through_unbreakable_blocks() {
        // Water or lava beside the floor block would pour into the hole.
        for (dx, dz) in [(1, 0), (-1, 0), (0, 1), (0, -1)] {
            for liquid in [WATER, LAVA] {
                let mut g = flat();
                set(&mut g, [dx, -1, dz], liquid);
                assert_eq!(down(&mut g), None, "{liquid:?} at {dx} {dz}");
            }
        }
        // A waterlogged block beside it (water inside a solid block) as well.
        let mut g = flat();
        set(&mut g, [0, -1, 1], NavCell { flags: NavCell::SOLID | NavCell::WATER, ..NavCell::STONE });
        assert_eq!(down(&mut g), None, "waterlogged neighbour");
        // Beside the floor one lower (under the landing) is no business of this move.
        let mut g = flat();
        set(&mut g, [1, -2, 0], WATER);
        assert!(down(&mut g).is_some());
        // Bedrock and barriers are unbreakable; a magma floor is never stood on to begin with.
        let mut g = flat();
        set(&mut g, [0, -1, 0], BEDROCK);
        assert_eq!(down(&mut g), None);
        let mut g = MapGrid {
            cells: FxHashMap::default(),
            fill: |y| {
                if y == -1 {
                    BEDROCK
                } else if y < -1 {
                    NavCell::STONE
                } else {
                    NavCell::AIR
                }
            },
        };
        let r = find_path(&mut g, [0, 0, 0], Goal::Y { y: -2 }, Options { max_nodes: 500, ..dig_on() });
        assert!(!r.complete() && r.path.iter().all(|s| s.y == 0), "{r:?}");
        // Dig off: no dig move at all.
        let mut g = flat();
        assert!(digs(&mut g, [0, 0, 0], Options::default()).is_empty());
    }

    #[test]
    fn digs_up_onto_a_block_when_the_head_room_is_blocked() {
        // A block to step on at x=1 and stone over the head: no plain jump up.
        let mut g = flat();
        set(&mut g, [1, 0, 0], NavCell::STONE);
        set(&mut g, [0, 2, 0], NavCell::STONE);
        let goal = near(1, 1, 0);
        let opts = Options { max_nodes: 200, ..Options::default() };
        let plain = find_path(&mut g, [0, 0, 0], goal.clone(), opts);
        assert!(plain.complete() && plain.path.len() > 2, "around, not straight up: {:?}", plain.path);
        let e = digs(&mut g, [0, 0, 0], dig_on()).into_iter().find(|e| e.to == [1, 1, 0]).expect("dig up");
        assert_eq!(e.feet, 1.0);
        assert!((e.cost - (WALK + JUMP_EXTRA + 44.0)).abs() < 1e-3, "{}", e.cost);
        assert_eq!(dig_cells([0, 0, 0], [1, 1, 0]), vec![[0, 2, 0], [1, 2, 0], [1, 1, 0]]);
        // Through the step on the level is offered too (its own price: the step and head cell).
        let level = digs(&mut g, [0, 0, 0], dig_on()).into_iter().find(|e| e.to == [1, 0, 0]).expect("dig through");
        assert!((level.cost - (WALK + 44.0)).abs() < 1e-3, "{}", level.cost);
        // Walled in by a bedrock step under a low ceiling: up onto the step, mining the ceiling,
        // is the only way out (digging through bedrock or the floor around it is not).
        let mut g = flat();
        for dx in -1..=1 {
            for dz in -1..=1 {
                if (dx, dz) != (0, 0) {
                    set(&mut g, [dx, 0, dz], BEDROCK);
                }
                set(&mut g, [dx, -1, dz], BEDROCK);
            }
        }
        set(&mut g, [0, 2, 0], NavCell::STONE);
        let goal = near(4, 0, 0);
        assert!(!find_path(&mut g, [0, 0, 0], goal.clone(), opts).complete());
        let r = find_path(&mut g, [0, 0, 0], goal.clone(), dig_on());
        assert!(r.complete(), "{r:?}");
        assert_eq!((r.path[1].x, r.path[1].y, r.path[1].kind), (1, 1, MoveKind::Dig), "{:?}", r.path);
        // Cost ordering: the same step with its head cells clear costs less.
        let mut g2 = flat();
        set(&mut g2, [1, 0, 0], NavCell::STONE);
        set(&mut g2, [1, 1, 0], NavCell::STONE);
        set(&mut g2, [0, 2, 0], NavCell::STONE);
        let three = digs(&mut g2, [0, 0, 0], dig_on()).into_iter().find(|e| e.to == [1, 2, 0]);
        assert_eq!(three, None, "two blocks up is not a dig move");
        let mut g3 = flat();
        set(&mut g3, [1, 0, 0], NavCell::STONE);
        set(&mut g3, [1, 2, 0], NavCell::STONE);
        set(&mut g3, [0, 2, 0], NavCell::STONE);
        let two = digs(&mut g3, [0, 0, 0], dig_on()).into_iter().find(|e| e.to == [1, 1, 0]).expect("dig up");
        assert!(two.cost > e.cost, "{} > {}", two.cost, e.cost);
    }

    #[test]
    fn dig_up_refuses_liquids_unbreakable_blocks_and_loose_sand_overhead() {
        let base = |over: NavCell| {
            let mut g = flat();
            set(&mut g, [1, 0, 0], NavCell::STONE);
            set(&mut g, [0, 2, 0], over);
            g
        };
        let up = |g: &mut MapGrid| digs(g, [0, 0, 0], dig_on()).into_iter().find(|e| e.to == [1, 1, 0]);
        assert!(up(&mut base(NavCell::STONE)).is_some());
        assert_eq!(up(&mut base(BEDROCK)), None, "unbreakable over the head");
        assert_eq!(up(&mut base(LAVA)), None, "lava over the head is never dug");
        let mut g = base(NavCell::STONE);
        set(&mut g, [0, 3, 0], WATER);
        assert_eq!(up(&mut g), None, "water would pour down");
        let mut g = base(NavCell::STONE);
        set(&mut g, [0, 3, 0], SAND);
        assert_eq!(up(&mut g), None, "sand would fall onto the head");
        // Sand that the move mines itself (top first) is fine; sand resting on it is not.
        let mut g = base(NavCell::STONE);
        set(&mut g, [1, 2, 0], SAND);
        set(&mut g, [1, 1, 0], NavCell::STONE);
        let e = up(&mut g).expect("sand mined before the stone under it");
        assert!((e.cost - (WALK + JUMP_EXTRA + 44.0 + 16.0 + 44.0)).abs() < 1e-3, "{}", e.cost);
        set(&mut g, [1, 3, 0], SAND);
        assert_eq!(up(&mut g), None);
    }

    #[test]
    fn digs_a_low_ceiling_and_pillars_through_one_with_place() {
        // A tunnel one block high: the head cell is mined, the feet walk in.
        let mut g = flat();
        set(&mut g, [1, 1, 0], DIRT);
        let e = digs(&mut g, [0, 0, 0], dig_on()).into_iter().find(|e| e.to == [1, 0, 0]).expect("dig the head cell");
        assert!((e.cost - (WALK + 16.0)).abs() < 1e-3, "{}", e.cost);
        // Lava at the head of a wall is never dug (the old move would have).
        let mut g = flat();
        set(&mut g, [1, 0, 0], NavCell::STONE);
        set(&mut g, [1, 1, 0], LAVA);
        assert!(digs(&mut g, [0, 0, 0], dig_on()).iter().all(|e| e.to != [1, 0, 0]));
        // Straight up under a ceiling: a pillar mines it first, only with dig.
        let mut g = flat();
        set(&mut g, [0, 2, 0], NavCell::STONE);
        let pillar = |g: &mut MapGrid, opts: Options| {
            successors(g, [0, 0, 0], 0.0, Goal::Y { y: 5 }, opts).into_iter().find(|e| e.kind == MoveKind::Pillar)
        };
        assert_eq!(pillar(&mut g, Options { place: true, ..Options::default() }), None);
        let e = pillar(&mut g, Options { place: true, ..dig_on() }).expect("pillar under the ceiling");
        assert!((e.cost - 64.0).abs() < 1e-3, "{}", e.cost);
        assert_eq!(dig_cells([0, 0, 0], [0, 1, 0]), vec![[0, 2, 0]]);
        set(&mut g, [0, 2, 0], BEDROCK);
        assert_eq!(pillar(&mut g, Options { place: true, ..dig_on() }), None);
    }

    /// An open door panel lying along the south edge of its cell (passable along x, and across
    /// the north edge), in a wall along z at x = 3.
    fn door_wall(panel: u8) -> MapGrid {
        let mut g = flat();
        for z in -100..=100 {
            for y in 0..3 {
                set(&mut g, [3, y, z], NavCell::STONE);
            }
        }
        let door = NavCell { top: 16, bottom: 0, flags: NavCell::SOLID | NavCell::DOOR, hardness: 4, pass: panel };
        set(&mut g, [3, 0, 0], door);
        set(&mut g, [3, 1, 0], door);
        g
    }

    #[test]
    fn door_panels_pass_only_along_the_free_edges() {
        let along_x = NavCell::PASS_CENTRE | NavCell::PASS_EAST | NavCell::PASS_WEST | NavCell::PASS_NORTH;
        let opts = Options { max_nodes: 3000, ..Options::default() };
        let mut g = door_wall(along_x);
        let r = find_path(&mut g, [0, 0, 0], near(6, 0, 0), opts);
        assert!(r.complete(), "through the open door along x: {:?}", r.path);
        assert!(r.path.iter().any(|s| (s.x, s.z) == (3, 0) && s.kind == MoveKind::Walk), "{:?}", r.path);
        assert!(r.path.iter().all(|s| s.kind != MoveKind::Diagonal || s.x != 3), "no diagonal through the frame");
        // The panel on the east edge (a closed door): stepped into from the west, but a wall
        // going on east, unless doors may be opened (then a door move toggles it).
        let across_x = NavCell::PASS_CENTRE | NavCell::PASS_SOUTH | NavCell::PASS_NORTH | NavCell::PASS_WEST;
        let mut g = door_wall(across_x);
        assert!(!find_path(&mut g, [0, 0, 0], near(6, 0, 0), opts).complete());
        let r = find_path(&mut g, [0, 0, 0], near(6, 0, 0), Options { open_doors: true, ..opts });
        assert!(r.complete() && r.path.iter().any(|s| s.kind == MoveKind::Door), "{:?}", r.path);
        // A bar across the middle (a closed gate) is a door move too, and the path walks on out of it.
        let mut g = door_wall(0);
        assert!(!find_path(&mut g, [0, 0, 0], near(6, 0, 0), opts).complete());
        let r = find_path(&mut g, [0, 0, 0], near(6, 0, 0), Options { open_doors: true, ..opts });
        assert!(r.complete(), "{:?}", r.path);
        let i = r.path.iter().position(|s| s.kind == MoveKind::Door).expect("door move");
        assert_eq!((r.path[i].x, r.path[i + 1].x, r.path[i + 1].kind), (3, 4, MoveKind::Walk));
    }
    fn away(x: i32, z: i32, distance: f64) -> Goal {
        Goal::Away { x: f64::from(x) + 0.5, y: 0.0, z: f64::from(z) + 0.5, distance }
    }

    /// The cheapest cost from `start` to any position meeting `goal` over [`successors`]
    /// (Dijkstra), or `None`.
    fn cheapest(g: &mut MapGrid, start: [i32; 3], goal: &Goal, limit: usize) -> Option<f32> {
        let mut best: FxHashMap<[i32; 3], (f32, f32)> = FxHashMap::default();
        let mut open = BinaryHeap::new();
        best.insert(start, (0.0, stand(g, start)?));
        open.push(std::cmp::Reverse((0_u32, start)));
        let mut n = 0;
        while let Some(std::cmp::Reverse((bits, p))) = open.pop() {
            let cost = f32::from_bits(bits);
            let (known, feet) = best[&p];
            if cost > known {
                continue;
            }
            if goal.reached(p, feet) {
                return Some(cost);
            }
            n += 1;
            if n > limit {
                return None;
            }
            for e in successors(g, p, feet, goal.clone(), Options::default()) {
                let c = cost + e.cost;
                if best.get(&e.to).is_none_or(|&(b, _)| c < b) {
                    best.insert(e.to, (c, e.feet));
                    open.push(std::cmp::Reverse((c.to_bits(), e.to)));
                }
            }
        }
        None
    }

    /// A small map: flat ground with a wall (two high) and a pit, so paths bend.
    fn small() -> MapGrid {
        let mut g = flat();
        for z in -3..=3 {
            set(&mut g, [3, 0, z], NavCell::STONE);
            set(&mut g, [3, 1, z], NavCell::STONE);
        }
        set(&mut g, [-2, -1, 2], NavCell::AIR);
        g
    }

    #[test]
    fn goal_heuristics_never_overestimate_and_stay_consistent_on_a_small_grid() {
        let goals = [
            away(0, 0, 5.0),
            away(5, 1, 3.0),
            Goal::Within { min: [5, 0, -1], max: [7, 0, 1] },
            Goal::Any(vec![near(6, 0, 0), Goal::Near { x: -4.5, y: 0.0, z: 4.5, range: 2.0 }].into()),
            Goal::All(vec![away(0, 0, 4.0), Goal::Within { min: [-6, -1, -6], max: [2, 2, 6] }].into()),
        ];
        let mut g = small();
        for goal in &goals {
            for x in -4..=6 {
                for z in -4..=4 {
                    let p = [x, 0, z];
                    let Some(feet) = stand(&mut g, p) else { continue };
                    let h = goal.distance(p, feet) * WALK;
                    // Admissible: never above the cheapest way to a position meeting the goal.
                    if let Some(c) = cheapest(&mut g, p, goal, 20_000) {
                        assert!(h <= c + 1e-3, "{goal:?} at {p:?}: h {h} > cost {c}");
                    }
                    assert_eq!(goal.distance(p, feet) == 0.0, goal.reached(p, feet), "{goal:?} at {p:?}");
                    // Consistent: one move lowers it by at most the move's cost.
                    for e in successors(&mut g, p, feet, goal.clone(), Options::default()) {
                        let h2 = goal.distance(e.to, e.feet) * WALK;
                        assert!(h <= e.cost + h2 + 1e-3, "{goal:?}: {p:?} -> {:?}: {h} > {} + {h2}", e.to, e.cost);
                    }
                }
            }
        }
    }

    #[test]
    fn away_within_any_and_all_goals_end_where_they_hold() {
        let mut g = small();
        // Away from a point beside the start: straight away, and no farther than needed.
        let goal = away(-1, 0, 6.0);
        let r = find_path(&mut g, [0, 0, 0], goal.clone(), Options::default());
        let end = *r.path.last().expect("a path");
        assert!(r.complete() && goal.reached([end.x, end.y, end.z], end.feet), "{r:?}");
        assert!(end.x > 0 && r.path.len() <= 8, "away, on the short way: {:?}", r.path);
        // Within a box behind the wall: around it.
        let goal = Goal::Within { min: [5, 0, -1], max: [7, 0, 1] };
        let r = find_path(&mut g, [0, 0, 0], goal.clone(), Options::default());
        let end = *r.path.last().expect("a path");
        assert!(r.complete() && (5..=7).contains(&end.x) && (-1..=1).contains(&end.z), "{end:?}");
        assert!(r.path.iter().all(|s| s.x != 3 || s.z.abs() > 3), "not through the wall: {:?}", r.path);
        // Near any of two targets: the nearer one.
        let goal = Goal::Any(vec![near(-6, 0, 0), near(0, 0, 4)].into());
        let r = find_path(&mut g, [0, 0, 0], goal, Options::default());
        let end = *r.path.last().expect("a path");
        assert_eq!((end.x, end.z), (0, 4), "{:?}", r.path);
        // Away from a point east AND inside a box that ends two blocks west: the box's west part.
        let goal = Goal::All(vec![away(2, 0, 5.0), Goal::Within { min: [-10, -1, -2], max: [10, 2, 2] }].into());
        let r = find_path(&mut g, [0, 0, 0], goal.clone(), Options::default());
        let end = *r.path.last().expect("a path");
        assert!(r.complete() && goal.reached([end.x, end.y, end.z], end.feet) && end.z.abs() <= 2, "{:?}", r.path);
        // Nothing meets an away goal inside a box too small: no panic, the best partial path.
        let goal = Goal::All(vec![away(0, 0, 10.0), Goal::Within { min: [-2, 0, -2], max: [2, 0, 2] }].into());
        let r = find_path(&mut g, [0, 0, 0], goal, Options { max_nodes: 3000, ..Options::default() });
        assert!(!r.complete() && !r.path.is_empty(), "{r:?}");
        // Walled in: unreachable, with the start as the best.
        let mut g = flat();
        ring(&mut g, [0, 0, 0], 2, 3);
        let r = find_path(&mut g, [0, 0, 0], away(0, 0, 8.0), Options::default());
        assert_eq!(r.incomplete, Some(Incomplete::Unreachable));
    }
}
