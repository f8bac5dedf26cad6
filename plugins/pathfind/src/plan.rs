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
#[derive(Debug, Clone)]
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

    /// The goal's point, for distances: the point of a point goal, the spot of a column or level
    /// nearest the start, and for the other forms the nearest place meeting them as the crow
    /// flies ([`goal_point`]).
    pub fn goal_point(&self) -> [f64; 3] {
        goal_point(&self.goal, self.start)
    }

    /// Straight-line distance start → goal.
    pub fn euclidean(&self) -> f64 {
        let g = self.goal_point();
        let s = [f64::from(self.start[0]) + 0.5, f64::from(self.start[1]), f64::from(self.start[2]) + 0.5];
        ((g[0] - s[0]).powi(2) + (g[1] - s[1]).powi(2) + (g[2] - s[2]).powi(2)).sqrt()
    }

    /// Copies the part of `world` the search may visit.
    pub fn snapshot(&self, world: &World, ids: Arc<IdTable>) -> Snapshot {
        let [x0, x1, y0, y1, z0, z1] = region(&self.goal, self.start);
        Snapshot::capture(world, ids, [x0 >> 4, x1 >> 4, z0 >> 4, z1 >> 4], [y0 >> 4, y1 >> 4])
    }

    /// Whether to run inline.
    pub fn is_small(&self) -> bool {
        match self.goal {
            Goal::Near { .. } | Goal::Xz { .. } => self.euclidean() <= INLINE_DISTANCE,
            Goal::Y { .. } => false,
            Goal::Away { .. } | Goal::Within { .. } | Goal::All(_) | Goal::Any(_) => {
                let s = self.start;
                f64::from(self.goal.distance(s, s[1] as f32)) <= INLINE_DISTANCE
            }
        }
    }
}

/// Farthest (blocks, each way from the start) a snapshot for an away, box or combined goal
/// reaches: a search with the largest node budget walks no farther.
const MAX_REACH: i32 = 1024;

/// The goal's point seen from cell `start` (see [`Request::goal_point`]): for [`Goal::Away`] the
/// point `distance` blocks from the threat straight away from it through the start; for
/// [`Goal::Within`] the box's cell nearest the start; for [`Goal::Any`] the point of the part
/// nearest the start, for [`Goal::All`] that of the part farthest from it.
pub fn goal_point(goal: &Goal, start: [i32; 3]) -> [f64; 3] {
    let s = [f64::from(start[0]) + 0.5, f64::from(start[1]), f64::from(start[2]) + 0.5];
    match goal {
        &Goal::Near { x, y, z, .. } => [x, y, z],
        &Goal::Xz { x, z } => [x, s[1], z],
        &Goal::Y { y } => [s[0], f64::from(y), s[2]],
        &Goal::Away { x, y, z, distance } => {
            let d = [s[0] - x, s[1] - y, s[2] - z];
            let len = (d[0] * d[0] + d[1] * d[1] + d[2] * d[2]).sqrt();
            // Standing on the threat: away along +x.
            let u = if len < 1e-6 { [1.0, 0.0, 0.0] } else { [d[0] / len, d[1] / len, d[2] / len] };
            if len >= distance { s } else { [x + u[0] * distance, y + u[1] * distance, z + u[2] * distance] }
        }
        Goal::Within { min, max } => {
            let c = |a: usize| start[a].clamp(min[a], max[a]);
            [f64::from(c(0)) + 0.5, f64::from(c(1)), f64::from(c(2)) + 0.5]
        }
        Goal::All(parts) | Goal::Any(parts) => {
            let feet = start[1] as f32;
            let by_distance = parts.iter().map(|g| (g.distance(start, feet), g));
            let pick = if matches!(goal, Goal::All(_)) {
                by_distance.max_by(|a, b| a.0.total_cmp(&b.0))
            } else {
                by_distance.min_by(|a, b| a.0.total_cmp(&b.0))
            };
            pick.map_or(s, |(_, g)| goal_point(g, start))
        }
    }
}

/// The blocks a search for `goal` from `start` may visit: `[x0, x1, y0, y1, z0, z1]`.
fn region(goal: &Goal, start: [i32; 3]) -> [i32; 6] {
    let around = |p: [f64; 3], h: i32, v: i32| {
        let (gx, gy, gz) = (p[0].floor() as i32, p[1].floor() as i32, p[2].floor() as i32);
        [
            start[0].min(gx) - h,
            start[0].max(gx) + h,
            start[1].min(gy) - v,
            start[1].max(gy) + v,
            start[2].min(gz) - h,
            start[2].max(gz) + h,
        ]
    };
    let bounded = |r: [i32; 6]| {
        let mut r = r;
        for (i, a) in [0, 0, 1, 1, 2, 2].into_iter().enumerate() {
            r[i] = r[i].clamp(start[a] - MAX_REACH, start[a] + MAX_REACH);
        }
        r
    };
    match goal {
        Goal::Near { .. } | Goal::Y { .. } => around(goal_point(goal, start), MARGIN, MARGIN),
        Goal::Xz { .. } => around(goal_point(goal, start), MARGIN, 64),
        // Anywhere within the distance around the start may be the way out.
        &Goal::Away { distance, .. } => {
            bounded(around(goal_point(goal, start), distance.ceil() as i32 + MARGIN, MARGIN))
        }
        Goal::Within { .. } => bounded(around(goal_point(goal, start), MARGIN, MARGIN)),
        Goal::All(parts) | Goal::Any(parts) => {
            let mut r = around([f64::from(start[0]), f64::from(start[1]), f64::from(start[2])], MARGIN, MARGIN);
            for g in parts.iter() {
                let p = region(g, start);
                for i in 0..6 {
                    r[i] = if i % 2 == 0 { r[i].min(p[i]) } else { r[i].max(p[i]) };
                }
            }
            bounded(r)
        }
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
