//! `walk` and `follow`: path following as per-tick actions in the `walk` slot. Each tick the
//! action turns the next path step into the bot's [`MovementIntent`] (the movement plugin makes
//! the inputs). It re-plans when a block on the remaining path changes, when the bot is pushed
//! off the path or teleported, when a followed target moves away from the path's end, and when
//! the path was partial; a walk that gets no closer for 2 s of ticks ends with a reason.

use bevy_ecs::prelude::*;
use bevy_ecs::world::EntityRef;
use clawcraft_core::{
    ActionSlot, ActionStatus, AsyncAction, CommandResponse, DeferredReply, EndActionExt, Interruption, Outcome,
    Position, TickCount, Vec3,
};
use clawcraft_entity::{EntityPosition, SeenBy};
use clawcraft_movement::{MovementIntent, Mover};

use crate::slot::{BlockChange, Progress, WALK_SLOT, WalkDone, WalkProgress};
use clawcraft_world::BlockChanged;
use clawcraft_world::chunk::World as ChunkWorld;
use clawcraft_world::ids::BlockIds;

use crate::act::{Drive, Work};
use crate::commands::{WalkResponse, path_points};
use crate::plan::{Planned, Request, plan};
use crate::search::{Goal, MoveKind, SearchResult, Step};

/// Re-plans allowed without any progress in between before giving up.
const MAX_FRUITLESS_REPLANS: u32 = 3;
/// Farther than this (blocks, horizontally) from the path: pushed off, re-plan.
const OFF_PATH: f64 = 2.5;
/// A step is reached within this horizontal distance of its cell centre.
const REACHED: f64 = 0.35;

/// The path-following state shared by `walk` and `follow`.
#[derive(Debug)]
pub struct Navigator {
    pub request: Request,
    pub path: Vec<Step>,
    /// Index of the step being walked to.
    pub next: usize,
    /// Whether the path reaches the goal.
    pub complete: bool,
    /// Why the last plan was partial.
    pub reason: Option<String>,
    pub progress: WalkProgress,
    pub pending: Option<Planned>,
    /// The first plan's answer goes to this request.
    pub reply: Option<DeferredReply>,
    pub fruitless: u32,
    pub replans: u32,
    teleports: u64,
    pub now: u64,
    /// The world step (door, dig, bridge, pillar) being worked on ([`crate::act`]).
    pub work: Option<Work>,
    /// The index of the last world step whose change is done (it is walked like any step).
    pub cleared: Option<usize>,
    /// Cells the walk's own steps change: their block updates are no reason to re-plan.
    pub expected: Vec<[i32; 3]>,
    /// What the walk changed on its way (`walk_done`'s `changed`).
    pub changed: Vec<BlockChange>,
    /// A re-plan came due while a world step was under way: made once it is done.
    replan_due: bool,
}

impl Navigator {
    pub fn new(request: Request, now: u64, teleports: u64) -> Self {
        Self {
            request,
            path: Vec::new(),
            next: 0,
            complete: false,
            reason: None,
            progress: WalkProgress::new(now),
            pending: None,
            reply: None,
            fruitless: 0,
            replans: 0,
            teleports,
            now,
            work: None,
            cleared: None,
            expected: Vec::new(),
            changed: Vec::new(),
            replan_due: false,
        }
    }

    /// Takes a search result as the plan, starting from the step nearest the bot.
    pub fn adopt(&mut self, result: SearchResult, feet: Vec3) {
        let end_before = self.path.last().map(|s| [s.x, s.y, s.z]);
        self.complete = result.complete();
        self.reason = result.incomplete.map(|i| i.reason().to_owned());
        self.path = result.path;
        self.work = None;
        self.cleared = None;
        self.next = usize::from(self.path.len() > 1);
        // Skip steps already behind: the nearest one within reach.
        if let Some((i, _)) = self
            .path
            .iter()
            .enumerate()
            .take(4)
            .map(|(i, s)| (i, flat(feet, s.target())))
            .min_by(|a, b| a.1.total_cmp(&b.1))
            && i > self.next
        {
            self.next = i;
        }
        let end_now = self.path.last().map(|s| [s.x, s.y, s.z]);
        if !self.complete && end_before.is_some() && end_before == end_now {
            self.fruitless += 1;
        }
        self.progress.reset_watchdog();
    }

    /// A navigator for `request` whose first plan is under way (a walk an action drives as one of
    /// its steps: a fight's retreat, a collect's approach).
    pub fn planned(request: Request, now: u64, teleports: u64, world: &ChunkWorld, ids: &BlockIds) -> Self {
        let mut nav = Self::new(request.clone(), now, teleports);
        nav.pending = Some(plan(request, world, ids.0.clone(), None));
        nav
    }

    /// The response of the command that started this, once the first plan is in.
    pub fn response(&self) -> WalkResponse {
        WalkResponse {
            walking: true,
            steps: self.path.len().saturating_sub(1) as u32,
            path: path_points(&self.path),
            complete: self.complete,
            reason: self.reason.clone(),
            walked: None,
            pos: None,
            met: None,
        }
    }

    /// Adopts a finished plan; the first one answers the command that started the walk. A plan
    /// made meanwhile waits for the world step under way to end.
    pub fn take_plan(&mut self, feet: Vec3) -> Option<CommandResponse> {
        if self.work.is_some() {
            return None;
        }
        let result = self.pending.as_mut()?.poll()?;
        self.pending = None;
        self.adopt(result, feet);
        self.reply.take().map(|reply| reply.respond(Ok(self.response())))
    }

    /// Starts a re-plan from where the bot is.
    fn replan(&mut self, feet: Vec3, world: &ChunkWorld, ids: &BlockIds) {
        if self.pending.is_some() {
            return;
        }
        self.request = Request::from_feet(feet, self.request.goal.clone(), self.request.opts);
        self.replans += 1;
        self.pending = Some(plan(self.request.clone(), world, ids.0.clone(), None));
    }

    /// Whether any of `changes` (other than the walk's own) touches the cells the rest of the
    /// path walks through.
    fn path_touched(&self, changes: &[[i32; 3]]) -> bool {
        self.path.iter().skip(self.next.saturating_sub(1)).any(|s| {
            changes.iter().any(|c| {
                c[0] == s.x && c[2] == s.z && (s.y - 1..=s.y + 2).contains(&c[1]) && !self.expected.contains(c)
            })
        })
    }
}

fn flat(a: Vec3, b: [f64; 3]) -> f64 {
    ((a.x - b[0]).powi(2) + (a.z - b[2]).powi(2)).sqrt()
}

/// Distance from `p` to the segment `a`→`b`, horizontally.
fn off_segment(p: Vec3, a: [f64; 3], b: [f64; 3]) -> f64 {
    let (dx, dz) = (b[0] - a[0], b[2] - a[2]);
    let len = dx * dx + dz * dz;
    let t = if len < 1e-9 { 0.0 } else { (((p.x - a[0]) * dx + (p.z - a[2]) * dz) / len).clamp(0.0, 1.0) };
    ((p.x - (a[0] + t * dx)).powi(2) + (p.z - (a[2] + t * dz)).powi(2)).sqrt()
}

/// What a tick of path following decided.
pub enum Tick {
    /// Keep going with this intent.
    Go(MovementIntent),
    /// Wait (a plan is being made).
    Wait,
    /// The path is walked.
    Arrived,
    /// Give up.
    Fail(String),
    /// The world must change for step `.0` first ([`crate::act::drive`]).
    Work(usize),
}

impl Navigator {
    /// One tick: poll the plan, check re-plan triggers, pick the intent.
    pub fn tick(
        &mut self,
        feet: Vec3,
        mover: &Mover,
        world: &ChunkWorld,
        ids: &BlockIds,
        changes: &[[i32; 3]],
        responses: &mut Vec<CommandResponse>,
    ) -> Tick {
        responses.extend(self.take_plan(feet));
        if self.path.is_empty() {
            return Tick::Wait;
        }
        if self.fruitless >= MAX_FRUITLESS_REPLANS {
            return Tick::Fail(self.reason.clone().unwrap_or_else(|| "no progress".into()));
        }
        let teleported = mover.teleports != self.teleports;
        self.teleports = mover.teleports;
        let prev = self.path[self.next.saturating_sub(1)].target();
        let pushed = self.next < self.path.len() && off_segment(feet, prev, self.path[self.next].target()) > OFF_PATH;
        let due = teleported || pushed || self.path_touched(changes);
        if self.work.is_some() {
            // A world step stays put until its sub-step ends (its own timers bound it).
            self.replan_due |= due;
            self.progress.reset_watchdog();
            return Tick::Work(self.next);
        }
        if due || std::mem::take(&mut self.replan_due) {
            tracing::debug!(teleported, pushed, "re-planning the walk");
            self.replan(feet, world, ids);
        }
        // Advance over reached steps (a world step only once its change is done).
        while self.next < self.path.len() {
            let s = self.path[self.next];
            if s.kind.changes_world() && self.cleared != Some(self.next) {
                self.progress.reset_watchdog();
                return Tick::Work(self.next);
            }
            let dy = (feet.y - f64::from(s.feet)).abs();
            let last = self.next + 1 == self.path.len();
            let radius = if last { 0.3 } else { REACHED };
            let settled =
                !matches!(s.kind, MoveKind::Climb | MoveKind::Ascend | MoveKind::Pillar | MoveKind::Dig) || dy < 0.2;
            if flat(feet, s.target()) < radius && dy < 0.6 && settled {
                self.next += 1;
                self.progress.steps += 1;
            } else {
                break;
            }
        }
        if self.next >= self.path.len() {
            if self.complete {
                return Tick::Arrived;
            }
            if self.pending.is_none() {
                self.replan(feet, world, ids);
            }
            return Tick::Wait;
        }
        let s = self.path[self.next];
        let target = s.target();
        let remaining = (self.path.len() - self.next) as f64 + flat(feet, target) + (feet.y - target[1]).abs();
        match self.progress.observe(feet, remaining, mover) {
            Progress::Going => {}
            Progress::Frozen => return Tick::Fail("no block data under the feet for 10 s".into()),
            Progress::Stalled if self.fruitless + 1 >= MAX_FRUITLESS_REPLANS || self.pending.is_some() => {
                return Tick::Fail(format!("no progress for 2 s ({} of {} steps)", self.next, self.path.len() - 1));
            }
            Progress::Stalled => {
                self.fruitless += 1;
                self.replan(feet, world, ids);
            }
        }
        Tick::Go(intent_for(&s, feet, mover, self.request.opts.sprint, self.next + 1 == self.path.len()))
    }
}

/// The intent that walks toward step `s`.
fn intent_for(s: &Step, feet: Vec3, mover: &Mover, sprint: bool, last: bool) -> MovementIntent {
    let target = s.target();
    let d = flat(feet, target);
    let state = &mover.state;
    let mut intent = MovementIntent::default();
    let glide = crate::slot::glide(mover);
    let stop_short = last && d <= glide + 0.05;
    if d > 0.1 && !stop_short {
        intent.direction = Some(clawcraft_movement::yaw_toward(target[0] - feet.x, target[2] - feet.z));
    }
    let rising = f64::from(s.feet) > feet.y + 0.3;
    match s.kind {
        // In water: keep the head up (and climb out at the shore), unless the step goes down.
        _ if state.in_water => intent.jump = f64::from(s.feet) >= feet.y - 0.2,
        // A dig up one is walked like a jump up once its blocks are mined.
        MoveKind::Ascend | MoveKind::Dig => intent.jump = state.on_ground && d < 1.3 && rising,
        MoveKind::Climb => intent.jump = rising,
        _ => {}
    }
    // Auto-jump into a one-block step the plan did not foresee (stairs approached from the side).
    if state.horizontal_collision && state.on_ground && rising {
        intent.jump = true;
    }
    intent.sprint = sprint && matches!(s.kind, MoveKind::Walk | MoveKind::Diagonal) && d > 1.0 && !last;
    intent
}

/// `walk`: follow a path to a goal.
#[derive(Component, Debug)]
pub struct WalkAction {
    pub nav: Navigator,
    /// The goal as given (for the completion event).
    pub target: Vec3,
    /// A `goal` object's labelled parts (`walk_done`'s `met`).
    pub goal: Option<crate::goal::Resolved>,
}

impl AsyncAction for WalkAction {
    const SLOT: ActionSlot = WALK_SLOT;
    type Evidence = WalkDone;

    fn evidence(&self, _outcome: &Outcome, bot: EntityRef<'_>) -> WalkDone {
        let mut done = self.nav.progress.done(bot, self.nav.now, Some(self.target));
        done.changed = self.nav.changed.clone();
        if let (Some(goal), Some(p)) = (&self.goal, bot.get::<Position>()) {
            done.met = Some(goal.met(p.0));
        }
        done
    }

    /// A teleport does not end a walk: it re-plans from where the bot landed.
    fn interrupted(&self, cause: Interruption) -> Option<(ActionStatus, String)> {
        clawcraft_core::default_interruption(cause)
    }
}

/// `follow`: keep within `distance` of an entity until aborted.
#[derive(Component, Debug)]
pub struct FollowAction {
    pub nav: Navigator,
    /// The followed entity (an ECS entity of the entity plugin).
    pub entity: Entity,
    /// Its name, for the completion event's `reason`.
    pub name: String,
    pub distance: f64,
    /// Where the target was when the current plan was made.
    planned_for: Vec3,
    /// Where it was last seen (the completion event's `target`).
    pub last_seen: Vec3,
}

impl FollowAction {
    pub fn new(nav: Navigator, entity: Entity, name: String, distance: f64, at: Vec3) -> Self {
        Self { nav, entity, name, distance, planned_for: at, last_seen: at }
    }
}

impl AsyncAction for FollowAction {
    const SLOT: ActionSlot = WALK_SLOT;
    type Evidence = WalkDone;

    fn evidence(&self, _outcome: &Outcome, bot: EntityRef<'_>) -> WalkDone {
        let mut done = self.nav.progress.done(bot, self.nav.now, Some(self.last_seen));
        done.changed = self.nav.changed.clone();
        done
    }
}

/// Block changes of this tick, by bot.
fn changes_of(bot: Entity, changed: &[BlockChanged]) -> Vec<[i32; 3]> {
    changed.iter().filter(|c| c.bot == bot).map(|c| c.pos).collect()
}

/// A world step: [`crate::act::drive`] moves the body for it; once its change is done it is
/// walked like any step (from the next tick).
pub(crate) fn work_on(
    nav: &mut Navigator,
    tick: Tick,
    feet: Vec3,
    mover: &Mover,
    world: &ChunkWorld,
    ids: &BlockIds,
) -> Tick {
    let Tick::Work(i) = tick else { return tick };
    match crate::act::drive(nav, i, feet, mover, world, ids) {
        Drive::Go(intent) => Tick::Go(intent),
        Drive::Cleared => {
            nav.work = None;
            nav.cleared = Some(i);
            // The search reads the map as it was: a later step standing on a block this walk
            // has mined (a path back over its own hole) is re-planned from the world as it is.
            let mined = |c: [i32; 3]| nav.changed.iter().any(|m| m.change == "mined" && [m.x, m.y, m.z] == c);
            if nav.path[i + 1..].iter().any(|s| mined([s.x, s.y - 1, s.z])) {
                nav.replan_due = true;
            }
            Tick::Wait
        }
        Drive::Fail(reason) => Tick::Fail(reason),
    }
}

/// Between ticks: answers a `walk` whose first plan came from the pool as soon as the search
/// woke the runner (the walk moves from the next tick, as it would have anyway).
pub fn answer_first_plans(
    mut walks: Query<(&mut WalkAction, &Position)>,
    mut responses: MessageWriter<CommandResponse>,
) {
    for (mut walk, pos) in &mut walks {
        if walk.nav.reply.is_some()
            && let Some(response) = walk.nav.take_plan(pos.0)
        {
            responses.write(response);
        }
    }
}

/// Run condition of [`answer_first_plans`]: a walk's first answer waits for its search.
pub fn first_plans_waiting(walks: Query<&WalkAction>) -> bool {
    walks.iter().any(|w| w.nav.reply.is_some())
}

/// Steps every `walk` one tick.
#[allow(clippy::type_complexity)]
pub fn step_walks(
    mut commands: Commands,
    ticks: Res<TickCount>,
    mut changed: MessageReader<BlockChanged>,
    mut bots: Query<(Entity, &mut WalkAction, &Position, &Mover, &mut MovementIntent, &ChunkWorld, &BlockIds)>,
    mut responses: MessageWriter<CommandResponse>,
) {
    let changed: Vec<BlockChanged> = changed.read().copied().collect();
    let mut out = Vec::new();
    for (bot, mut walk, pos, mover, mut intent, world, ids) in &mut bots {
        walk.nav.now = ticks.0;
        let changes = changes_of(bot, &changed);
        let tick = walk.nav.tick(pos.0, mover, world, ids, &changes, &mut out);
        match work_on(&mut walk.nav, tick, pos.0, mover, world, ids) {
            Tick::Go(i) => *intent = i,
            Tick::Wait | Tick::Work(_) => {}
            Tick::Arrived => commands.end_action(bot, WALK_SLOT.name, ActionStatus::Done, None),
            Tick::Fail(reason) => commands.end_action(bot, WALK_SLOT.name, ActionStatus::Failed, Some(reason)),
        }
    }
    responses.write_batch(out);
}

/// Steps every `follow` one tick: re-plans when the target moved away from the path's end;
/// stands still while within `distance`; never ends by itself except when the target is gone.
#[allow(clippy::type_complexity)]
pub fn step_follows(
    mut commands: Commands,
    ticks: Res<TickCount>,
    mut changed: MessageReader<BlockChanged>,
    mut bots: Query<(Entity, &mut FollowAction, &Position, &Mover, &mut MovementIntent, &ChunkWorld, &BlockIds)>,
    targets: Query<(&EntityPosition, &SeenBy)>,
    mut responses: MessageWriter<CommandResponse>,
) {
    let changed: Vec<BlockChanged> = changed.read().copied().collect();
    let mut out = Vec::new();
    for (bot, mut follow, pos, mover, mut intent, world, ids) in &mut bots {
        follow.nav.now = ticks.0;
        let Ok((target, seen)) = targets.get(follow.entity) else {
            let reason = format!("{} is out of sight", follow.name);
            commands.end_action(bot, WALK_SLOT.name, ActionStatus::Failed, Some(reason));
            continue;
        };
        if seen.0 != bot {
            continue;
        }
        let t = target.0;
        follow.last_seen = t;
        let here = pos.0;
        let close = here.distance(t) <= follow.distance;
        if close {
            // Within reach: stand, look at the target, keep the watchdog quiet.
            follow.nav.progress.reset_watchdog();
            follow.nav.progress.update(here, 0.0);
            let eye = here.offset_y(clawcraft_core::EYE_HEIGHT);
            let (yaw, pitch) = clawcraft_player::look_angles(eye, t.offset_y(1.5));
            *intent = MovementIntent { look: Some((yaw, pitch)), ..MovementIntent::default() };
            continue;
        }
        let moved = follow.planned_for.distance(t) > 2.0;
        let idle = follow.nav.pending.is_none() && follow.nav.work.is_none();
        if (moved || follow.nav.path.is_empty()) && idle {
            follow.planned_for = t;
            let goal = Goal::Near { x: t.x, y: t.y, z: t.z, range: follow.distance.max(1.0) };
            follow.nav.request = Request::from_feet(here, goal, follow.nav.request.opts);
            follow.nav.pending = Some(plan(follow.nav.request.clone(), world, ids.0.clone(), None));
        }
        let changes = changes_of(bot, &changed);
        let tick = follow.nav.tick(here, mover, world, ids, &changes, &mut out);
        match work_on(&mut follow.nav, tick, here, mover, world, ids) {
            Tick::Go(i) => *intent = i,
            Tick::Wait | Tick::Arrived | Tick::Work(_) => {}
            Tick::Fail(reason) => {
                commands.end_action(bot, WALK_SLOT.name, ActionStatus::Failed, Some(reason));
            }
        }
    }
    responses.write_batch(out);
}
