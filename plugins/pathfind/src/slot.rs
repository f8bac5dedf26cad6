//! The `walk` slot's shared pieces — the `walk_done` completion event and the progress watchdog —
//! and the `move` action (a straight line toward a point, no path finding).

use bevy_ecs::prelude::*;
use bevy_ecs::world::EntityRef;
use clawcraft_core::{ActionSlot, ActionStatus, AsyncAction, EndActionExt, Outcome, Position, TickCount, Vec3};
use schemars::JsonSchema;
use serde::Serialize;

use clawcraft_movement::{MovementIntent, Mover, yaw_toward};

/// Ticks without progress after which a walk gives up (2 s).
pub const STALL_TICKS: u32 = 40;
/// Ticks the bot may stand frozen (no block data under its feet yet, so the physics cannot run)
/// before a walk gives up (10 s): chunks arrive late on a loaded server, which is no stall.
pub const FROZEN_TICKS: u32 = 200;

/// `walk_done`: a `walk`, `move` or `follow` ended.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct WalkDone {
    /// Steps completed: path nodes reached (walk, follow) or whole blocks travelled (move).
    pub walked: u32,
    /// Feet position at the end.
    pub pos: Vec3,
    /// Blocks travelled.
    pub distance: f64,
    /// Ticks it ran.
    pub ticks: u64,
    /// The goal it was heading for.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub target: Option<Vec3>,
    /// What the walk changed on its way (doors opened, blocks mined and placed), each confirmed
    /// by the server's block update; absent when nothing.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub changed: Vec<BlockChange>,
    /// A walk to a `goal` object: the labels of its parts that hold where it ended (`near[1]`,
    /// `awayFrom[0]`, `within`, `y`, `anyOf[0].near[0]`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub met: Option<Vec<String>>,
}

/// A block a walk changed on its way (`walk_done`'s evidence).
#[derive(Serialize, JsonSchema, Debug, Clone, PartialEq)]
pub struct BlockChange {
    /// `opened` (a door, gate or trapdoor toggled to let the body through), `mined` (dug
    /// through) or `placed` (pillar or bridge).
    pub change: &'static str,
    /// The block: the one opened or mined, the one the server shows placed.
    pub block: String,
    pub x: i32,
    pub y: i32,
    pub z: i32,
    /// The item placed, or the tool mined with (absent: the hand).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub item: Option<String>,
    /// Ticks it took (the click or the first break to the server's block update).
    pub ticks: u64,
}

clawcraft_core::evidence!(
    WalkDone,
    "walk_done",
    "A walk, move or follow ended: id, status (done/aborted/failed/timeout), reason, walked (steps), pos, distance, ticks"
);

impl BlockChange {
    pub fn new(change: &'static str, block: String, pos: [i32; 3], item: Option<String>, ticks: u64) -> Self {
        Self { change, block, x: pos[0], y: pos[1], z: pos[2], item, ticks }
    }
}

/// Progress bookkeeping every action of the `walk` slot keeps: distance travelled, and the
/// no-progress watchdog (the remaining distance must shrink, or the action ends).
#[derive(Debug, Clone, PartialEq)]
pub struct WalkProgress {
    pub started_tick: u64,
    /// Blocks travelled.
    pub travelled: f64,
    /// Steps completed.
    pub steps: u32,
    last_pos: Option<Vec3>,
    best_remaining: f64,
    stalled: u32,
    frozen: u32,
}

/// What the progress watchdog says about this tick.
#[derive(Debug, Clone, PartialEq)]
pub enum Progress {
    /// Going on.
    Going,
    /// Nothing got closer for [`STALL_TICKS`] ticks.
    Stalled,
    /// The physics could not run for [`FROZEN_TICKS`] ticks (no ground data).
    Frozen,
}

impl WalkProgress {
    pub fn new(started_tick: u64) -> Self {
        Self {
            started_tick,
            travelled: 0.0,
            steps: 0,
            last_pos: None,
            best_remaining: f64::INFINITY,
            stalled: 0,
            frozen: 0,
        }
    }

    /// Records this tick's position and the remaining distance (or cost) to the goal. Returns
    /// `false` once nothing got closer for [`STALL_TICKS`] ticks.
    pub fn update(&mut self, pos: Vec3, remaining: f64) -> bool {
        self.frozen = 0;
        if let Some(last) = self.last_pos {
            self.travelled += last.distance(pos);
        }
        self.last_pos = Some(pos);
        if remaining < self.best_remaining - 0.05 {
            self.best_remaining = remaining;
            self.stalled = 0;
        } else {
            self.stalled += 1;
        }
        self.stalled < STALL_TICKS
    }

    /// Like [`update`](Self::update), for a mover that may have been frozen last tick (the
    /// physics had no block data under the feet): a frozen tick is not a stall — the bot could
    /// not move — but waits for ground data at most [`FROZEN_TICKS`] ticks.
    pub fn observe(&mut self, pos: Vec3, remaining: f64, mover: &Mover) -> Progress {
        if !mover.simulated {
            self.frozen += 1;
            return if self.frozen < FROZEN_TICKS { Progress::Going } else { Progress::Frozen };
        }
        if self.update(pos, remaining) { Progress::Going } else { Progress::Stalled }
    }

    /// Forgets the best distance so far (a new plan measures progress anew).
    pub fn reset_watchdog(&mut self) {
        self.best_remaining = f64::INFINITY;
        self.stalled = 0;
    }

    /// The completion event's evidence.
    pub fn done(&self, bot: EntityRef<'_>, now: u64, target: Option<Vec3>) -> WalkDone {
        WalkDone {
            walked: self.steps,
            pos: bot.get::<Position>().map(|p| p.0.rounded()).unwrap_or_default(),
            distance: (self.travelled * 100.0).round() / 100.0,
            ticks: now.saturating_sub(self.started_tick),
            target: target.map(Vec3::rounded),
            changed: Vec::new(),
            met: None,
        }
    }
}

/// `move`: walk in a straight line toward `target` (no path finding; auto-jumps one-block steps).
#[derive(Component, Debug, Clone)]
pub struct MoveAction {
    pub target: Vec3,
    pub sprint: bool,
    pub progress: WalkProgress,
    /// The tick count when last stepped (for `ticks` in the completion event).
    pub now: u64,
}

/// The `walk` slot: `walk`, `move` and `follow` all move the bot, one at a time, stopped by
/// `abort_walk`.
pub const WALK_SLOT: ActionSlot = ActionSlot::new("walk", "abort_walk", "Not walking");

impl AsyncAction for MoveAction {
    const SLOT: ActionSlot = WALK_SLOT;
    type Evidence = WalkDone;

    fn evidence(&self, _outcome: &Outcome, bot: EntityRef<'_>) -> WalkDone {
        self.progress.done(bot, self.now, Some(self.target))
    }
}

/// Horizontal distance.
pub fn flat_distance(a: Vec3, b: Vec3) -> f64 {
    ((a.x - b.x).powi(2) + (a.z - b.z).powi(2)).sqrt()
}

/// How far the bot glides with no key held, from its horizontal speed (ground friction 0.546
/// per tick).
pub fn glide(mover: &Mover) -> f64 {
    let v = &mover.state.velocity;
    let speed = f64::from((v.x * v.x + v.z * v.z).sqrt());
    speed * 0.546 / (1.0 - 0.546)
}

/// Arrival radius of `move` (ClawCraft's 0.15 blocks).
const ARRIVED: f64 = 0.15;

/// Drives every running `move` one tick.
pub fn step_move_actions(
    mut commands: Commands,
    ticks: Res<TickCount>,
    mut bots: Query<(Entity, &mut MoveAction, &Position, &Mover, &mut MovementIntent)>,
) {
    for (bot, mut action, pos, mover, mut intent) in &mut bots {
        action.now = ticks.0;
        let here = pos.0;
        let d = flat_distance(here, action.target);
        action.progress.steps = action.progress.travelled.floor() as u32;
        let speed = f64::from(mover.state.velocity.horizontal_length_sq().sqrt());
        // Where the bot comes to rest if it lets go now.
        let k = 0.546 / (1.0 - 0.546);
        let v = mover.state.velocity;
        let rest = Vec3::new(here.x + f64::from(v.x) * k, here.y, here.z + f64::from(v.z) * k);
        if flat_distance(rest, action.target) < ARRIVED && speed < 0.05 {
            commands.end_action(bot, WALK_SLOT.name, ActionStatus::Done, None);
            continue;
        }
        let stuck = match action.progress.observe(here, d, mover) {
            Progress::Going => None,
            Progress::Stalled => Some(format!("no progress for 2 s ({d:.2} blocks from the target)")),
            Progress::Frozen => Some(format!("no block data under the feet for 10 s ({d:.2} blocks from the target)")),
        };
        if let Some(reason) = stuck {
            commands.end_action(bot, WALK_SLOT.name, ActionStatus::Failed, Some(reason));
            continue;
        }
        if d > glide(mover) + 0.05 {
            *intent = MovementIntent {
                direction: Some(yaw_toward(action.target.x - here.x, action.target.z - here.z)),
                sprint: action.sprint && d > 3.0,
                // Auto-jump: walking into a step one block high.
                jump: mover.state.horizontal_collision && mover.state.on_ground,
                ..MovementIntent::default()
            };
        }
    }
}
