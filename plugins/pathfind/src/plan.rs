//! Running searches: a [`Snapshot`] of the bot's world around start and goal is taken on the game
//! thread, and the A* runs either inline (short searches, where a thread hop costs more than the
//! search) or on bevy_tasks' [`AsyncComputeTaskPool`]. A pooled search puts its result in a slot
//! and then wakes the runner, which answers it between ticks (or the next tick polls it).

use std::sync::{Arc, Mutex};

use bevy_tasks::{AsyncComputeTaskPool, Task};
use clawcraft_core::{CommandWaker, Vec3};
use clawcraft_world::chunk::World;
use clawcraft_world::ids::IdTable;

use crate::grid::Snapshot;
use crate::search::{Goal, Options, SearchResult, find_path};

/// Searches whose goal is at most this far (blocks) run inline on the game thread: such a search
/// takes less than the hop to the pool and back (`cargo bench -p clawcraft-pathfind --bench astar`
/// measures both).
pub const INLINE_DISTANCE: f64 = 24.0;
/// Blocks of margin around start and goal that the snapshot covers.
const MARGIN: i32 = 24;

/// A search to run: where from, where to, with what options.
#[derive(Debug, Clone, Copy)]
pub struct Request {
    pub start: [i32; 3],
    pub goal: Goal,
    pub opts: Options,
}

impl Request {
    /// From the bot's feet.
    pub fn from_feet(feet: Vec3, goal: Goal, opts: Options) -> Self {
        // A hair above the feet: standing on a slab top at y+0.5 is cell y.
        let start = [feet.x.floor() as i32, (feet.y + 1e-3).floor() as i32, feet.z.floor() as i32];
        Self { start, goal, opts }
    }

    /// The goal's point, for distances.
    pub fn goal_point(&self) -> [f64; 3] {
        match self.goal {
            Goal::Near { x, y, z, .. } => [x, y, z],
            Goal::Xz { x, z } => [x, f64::from(self.start[1]), z],
            Goal::Y { y } => [f64::from(self.start[0]) + 0.5, f64::from(y), f64::from(self.start[2]) + 0.5],
        }
    }

    /// Straight-line distance start → goal.
    pub fn euclidean(&self) -> f64 {
        let g = self.goal_point();
        let s = [f64::from(self.start[0]) + 0.5, f64::from(self.start[1]), f64::from(self.start[2]) + 0.5];
        ((g[0] - s[0]).powi(2) + (g[1] - s[1]).powi(2) + (g[2] - s[2]).powi(2)).sqrt()
    }

    /// Copies the part of `world` the search may visit.
    pub fn snapshot(&self, world: &World, ids: Arc<IdTable>) -> Snapshot {
        let g = self.goal_point();
        let (gx, gz) = (g[0].floor() as i32, g[2].floor() as i32);
        let (x0, x1) = (self.start[0].min(gx) - MARGIN, self.start[0].max(gx) + MARGIN);
        let (z0, z1) = (self.start[2].min(gz) - MARGIN, self.start[2].max(gz) + MARGIN);
        let gy = g[1].floor() as i32;
        let (y0, y1) = match self.goal {
            Goal::Near { .. } | Goal::Y { .. } => (self.start[1].min(gy) - MARGIN, self.start[1].max(gy) + MARGIN),
            Goal::Xz { .. } => (self.start[1] - 64, self.start[1] + 64),
        };
        Snapshot::capture(world, ids, [x0 >> 4, x1 >> 4, z0 >> 4, z1 >> 4], [y0 >> 4, y1 >> 4])
    }

    /// Whether to run inline.
    pub fn is_small(&self) -> bool {
        matches!(self.goal, Goal::Near { .. } | Goal::Xz { .. }) && self.euclidean() <= INLINE_DISTANCE
    }
}

/// A search in flight or done.
pub enum Planned {
    Done(SearchResult),
    /// On the pool: the task (dropping it cancels the search) and the slot it fills.
    Running(Task<()>, Arc<Mutex<Option<SearchResult>>>),
}

impl std::fmt::Debug for Planned {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Done(r) => write!(f, "Done({} steps)", r.path.len()),
            Self::Running(..) => f.write_str("Running"),
        }
    }
}

/// Starts a search: inline when small, else on the async compute pool. With `waker`, a pooled
/// search wakes the runner when its result is in, so an answer waiting on it goes out between
/// ticks instead of at the next one.
pub fn plan(req: Request, world: &World, ids: Arc<IdTable>, waker: Option<CommandWaker>) -> Planned {
    let mut snap = req.snapshot(world, ids);
    if req.is_small() {
        return Planned::Done(find_path(&mut snap, req.start, req.goal, req.opts));
    }
    let slot = Arc::new(Mutex::new(None));
    let filled = slot.clone();
    let pool = AsyncComputeTaskPool::get_or_init(Default::default);
    let task = pool.spawn(async move {
        let result = find_path(&mut snap, req.start, req.goal, req.opts);
        // The result is in the slot before the wake, so the woken runner finds it.
        *filled.lock().unwrap_or_else(std::sync::PoisonError::into_inner) = Some(result);
        if let Some(w) = waker {
            w.wake();
        }
    });
    Planned::Running(task, slot)
}

impl Planned {
    /// The result once it is there (polls a running task without blocking).
    pub fn poll(&mut self) -> Option<SearchResult> {
        match self {
            Self::Done(r) => Some(std::mem::replace(
                r,
                SearchResult { path: Vec::new(), cost: 0.0, incomplete: None, nodes: 0, elapsed: Default::default() },
            )),
            Self::Running(_, slot) => slot.lock().unwrap_or_else(std::sync::PoisonError::into_inner).take(),
        }
    }
}
