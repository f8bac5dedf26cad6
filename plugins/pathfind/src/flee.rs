//! `flee`: get and keep at least `distance` blocks from a mob, a player or a point. The path is an
//! A* search with an inverted goal ([`Goal::Away`]: any position at least that far, the heuristic
//! how much distance is still missing), walked like a `walk`. While the threat moves the flee
//! re-plans from where the bot is (once the threat is [`MOVED`] blocks from where the plan was
//! made, or the path is walked and the threat is still too close). It ends `done` once the bot is
//! `distance` away; with `hold` it stands there instead and flees again whenever the threat comes
//! closer, until `seconds` pass. It shares the `walk` slot (`abort_walk` stops it; a running
//! walk, follow or move makes it `BUSY`) and ends in `flee_done`.

use bevy_ecs::prelude::*;
use bevy_ecs::world::EntityRef;
use clawcraft_core::{
    ActionSlot, ActionStatus, AgentCommand, AsyncAction, AsyncInfo, CommandCtx, CommandError, CommandResponse,
    EndActionExt, Outcome, Position, TickCount, Vec3,
};
use clawcraft_entity::{EntityPosition, SeenBy};
use clawcraft_movement::{MovementIntent, Mover};
use clawcraft_world::BlockChanged;
use clawcraft_world::chunk::World as ChunkWorld;
use clawcraft_world::ids::BlockIds;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::commands::{PathPoint, find_entity, path_points};
use crate::plan::{Planned, Request, plan};
use crate::search::{Goal, Options};
use crate::slot::WALK_SLOT;
use crate::walk::{Navigator, Tick};

/// Default `distance` (blocks).
pub const DEFAULT_DISTANCE: f64 = 16.0;
/// Largest `distance`: the search's snapshot and node budget reach about that far.
pub const MAX_DISTANCE: f64 = 64.0;
/// Default `seconds`.
pub const DEFAULT_SECONDS: f64 = 30.0;
/// Largest `seconds`.
pub const MAX_SECONDS: f64 = 600.0;
/// The plan aims this many blocks beyond `distance`, so the bot stops a little past it rather
/// than on the edge a chasing mob crosses again at once.
pub const OVERSHOOT: f64 = 1.0;
/// The threat moved this far (blocks) from where the current plan was made: re-plan.
pub const MOVED: f64 = 1.5;

/// What the bot flees from.
#[derive(Debug, Clone, PartialEq)]
pub enum Threat {
    /// An entity of the entity plugin (a mob or a player), tracked as it moves.
    Entity(Entity),
    /// A fixed point.
    Point,
}

/// The running `flee`.
#[derive(Component, Debug)]
pub struct FleeAction {
    pub nav: Navigator,
    pub threat: Threat,
    /// The threat's name (`zombie`, a player's name, `point`).
    pub name: String,
    /// Blocks to keep.
    pub distance: f64,
    /// Stand at the distance and flee again when the threat comes closer, until `limit`.
    pub hold: bool,
    /// The flee stops at this tick.
    pub limit: u64,
    /// Where the threat is (last seen).
    pub threat_pos: Vec3,
    /// Where the threat was when the current plan was made.
    planned_for: Vec3,
    /// Distance to the threat when the flee started.
    pub start_distance: f64,
    /// The nearest the threat came while fleeing.
    pub closest: f64,
    /// The threat went out of sight (the flee ended there).
    pub lost: bool,
    /// Re-plan at the next chance (the path is walked and the threat is still too close).
    replan: bool,
}

/// `flee_done`.
#[derive(Serialize, JsonSchema, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct FleeDone {
    /// What the bot fled from: a mob type, a player's name, or `point`.
    pub threat: String,
    /// Where the threat was last seen.
    pub threat_pos: Vec3,
    /// The distance asked for (blocks).
    pub distance: f64,
    /// Distance to the threat at the start.
    pub start_distance: f64,
    /// Distance to the threat at the end.
    pub end_distance: f64,
    /// The nearest the threat came during the flee.
    pub closest: f64,
    /// Blocks walked.
    pub walked: f64,
    /// Plans made after the command's answer (the threat moved or came back, the path ran out,
    /// the world changed).
    pub replans: u32,
    /// Feet position at the end.
    pub pos: Vec3,
    /// Ticks it ran.
    pub ticks: u64,
    /// True when the threat went out of sight (the entity was removed): the flee ended there.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub lost: bool,
}
clawcraft_core::evidence!(
    FleeDone,
    "flee_done",
    "A flee ended: done (the distance reached, or held until seconds passed), timeout (still too close when seconds passed), failed (cornered: no way out), aborted; start/end/closest distance, blocks walked, replans, the threat's last position"
);

fn round2(v: f64) -> f64 {
    (v * 100.0).round() / 100.0
}

impl AsyncAction for FleeAction {
    const SLOT: ActionSlot = WALK_SLOT;
    type Evidence = FleeDone;

    fn evidence(&self, _outcome: &Outcome, bot: EntityRef<'_>) -> FleeDone {
        let pos = bot.get::<Position>().map(|p| p.0).unwrap_or_default();
        FleeDone {
            threat: self.name.clone(),
            threat_pos: self.threat_pos.rounded(),
            distance: self.distance,
            start_distance: round2(self.start_distance),
            end_distance: round2(pos.distance(self.threat_pos)),
            closest: round2(self.closest),
            walked: round2(self.nav.progress.travelled),
            replans: self.nav.replans,
            pos: pos.rounded(),
            ticks: self.nav.now.saturating_sub(self.nav.progress.started_tick),
            lost: self.lost,
        }
    }
}

impl crate::act::Navigates for FleeAction {
    fn nav(&self) -> &Navigator {
        &self.nav
    }
    fn nav_mut(&mut self) -> &mut Navigator {
        &mut self.nav
    }
}

/// `{"action":"flee","entity":"zombie","distance":16}`: get (and with `hold`, keep) at least
/// `distance` blocks from an entity, a player or a point; async, ends in `flee_done`.
#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct FleeCmd {
    /// An entity: a runtime id, or a mob type/name (`zombie`: the nearest one).
    pub entity: Option<serde_json::Value>,
    /// A player by name (case-insensitive).
    pub player: Option<String>,
    /// A point to flee from (all of `x`, `y`, `z`).
    pub x: Option<f64>,
    pub y: Option<f64>,
    pub z: Option<f64>,
    /// Blocks to keep (feet to the threat, in three dimensions; default 16, 2..64).
    pub distance: Option<f64>,
    /// Most seconds to flee (default 30, max 600).
    pub seconds: Option<f64>,
    /// Keep the distance until `seconds` pass (stand while far enough, flee again when the threat
    /// comes closer) instead of ending once it is reached.
    #[serde(default)]
    pub hold: bool,
    /// Sprint (default true).
    pub sprint: Option<bool>,
}

/// Response of `flee`.
#[derive(Serialize, JsonSchema, Default)]
#[serde(rename_all = "camelCase")]
pub struct FleeResponse {
    /// False when already far enough (no flee started, no `flee_done`).
    pub fleeing: bool,
    /// What it flees from.
    pub threat: String,
    pub threat_pos: Vec3,
    /// Distance to the threat now.
    pub from: f64,
    /// The first plan's path (empty while it is still being searched).
    pub path: Vec<PathPoint>,
}

impl AgentCommand for FleeCmd {
    const NAME: &'static str = "flee";
    const SUMMARY: &'static str = "Get (hold: keep) at least distance blocks from a mob, player or point: path finding away from it, re-planned as it moves; async, flee_done with start/end distance, blocks walked, replans";
    const EXAMPLE: &'static str = r#"{"action":"flee","entity":"zombie","distance":16}"#;
    const ASYNC: Option<AsyncInfo> = Some(AsyncInfo::of::<FleeAction>());
    type Response = FleeResponse;

    fn run(self, ctx: &mut CommandCtx<'_>) -> Result<FleeResponse, CommandError> {
        let distance = self.distance.unwrap_or(DEFAULT_DISTANCE);
        if !(distance.is_finite() && (2.0..=MAX_DISTANCE).contains(&distance)) {
            return Err(CommandError::out_of_range(format!("distance must be 2..{MAX_DISTANCE}")));
        }
        let seconds = self.seconds.unwrap_or(DEFAULT_SECONDS);
        if !(seconds.is_finite() && seconds > 0.0 && seconds <= MAX_SECONDS) {
            return Err(CommandError::out_of_range(format!("seconds must be above 0 and at most {MAX_SECONDS}")));
        }
        let feet = ctx.world.get::<Position>(ctx.bot).ok_or_else(CommandError::not_spawned)?.0;
        let (threat, name, at) = match (&self.entity, &self.player, self.x, self.y, self.z) {
            (None, None, Some(x), Some(y), Some(z)) => {
                (Threat::Point, "point".to_owned(), clawcraft_movement::commands::check_point(x, y, z)?)
            }
            (Some(_), None, None, None, None) | (None, Some(_), None, None, None) => {
                let (e, name, at) = find_entity(ctx, self.player.as_deref(), self.entity.as_ref(), feet)?;
                (Threat::Entity(e), name, at)
            }
            _ => return Err(CommandError::invalid_params("need one of entity, player, or x, y and z")),
        };
        let from = feet.distance(at);
        let mut response = FleeResponse {
            fleeing: false,
            threat: name.clone(),
            threat_pos: at.rounded(),
            from: round2(from),
            path: Vec::new(),
        };
        if from >= distance && !self.hold {
            // Far enough already: answered at once (no flee, no flee_done).
            return Ok(response);
        }
        let settings = ctx.world.get_resource::<crate::NavSettings>().copied().unwrap_or_default();
        let opts =
            Options { sprint: self.sprint.unwrap_or(true), open_doors: settings.open_doors, ..Options::default() };
        let world = ctx.world.get::<ChunkWorld>(ctx.bot).ok_or_else(CommandError::not_spawned)?;
        let ids = ctx.world.get::<BlockIds>(ctx.bot).ok_or_else(CommandError::not_spawned)?;
        let req = Request::from_feet(feet, away(at, distance), opts);
        let now = ctx.world.get_resource::<TickCount>().map_or(0, |t| t.0);
        let teleports = ctx.world.get::<Mover>(ctx.bot).map_or(0, |m| m.teleports);
        let mut nav = Navigator::new(req.clone(), now, teleports);
        if from < distance {
            match plan(req, world, ids.0.clone(), None) {
                Planned::Done(r) => {
                    // Cornered: every position reachable was tried and none is far enough.
                    if r.incomplete == Some(crate::search::Incomplete::Unreachable)
                        || r.path.len() <= 1 && !r.complete()
                    {
                        let why = r.incomplete.map_or("no path", |i| i.reason());
                        return Err(CommandError::new("NO_PATH", format!("No way away from {name}: {why}")));
                    }
                    nav.adopt(r, feet);
                    response.path = path_points(&nav.path);
                }
                running => nav.pending = Some(running),
            }
        }
        let limit = now + (seconds * 20.0).ceil() as u64;
        let action = FleeAction {
            nav,
            threat,
            name,
            distance,
            hold: self.hold,
            limit,
            threat_pos: at,
            planned_for: at,
            start_distance: from,
            closest: from,
            lost: false,
            replan: false,
        };
        // The flee ends itself at `limit`; the watchdog is a backstop.
        ctx.start(Self::NAME, action, limit - now + 40)?;
        response.fleeing = true;
        Ok(response)
    }
}

/// The search goal: `distance` plus [`OVERSHOOT`] from the threat at `at`.
fn away(at: Vec3, distance: f64) -> Goal {
    Goal::Away { x: at.x, y: at.y, z: at.z, distance: distance + OVERSHOOT }
}

/// Steps every `flee` one tick.
#[allow(clippy::type_complexity)]
pub fn step_flees(
    mut commands: Commands,
    ticks: Res<TickCount>,
    mut changed: MessageReader<BlockChanged>,
    mut bots: Query<(Entity, &mut FleeAction, &Position, &Mover, &mut MovementIntent, &ChunkWorld, &BlockIds)>,
    threats: Query<(&EntityPosition, &SeenBy)>,
    mut responses: MessageWriter<CommandResponse>,
) {
    let changed: Vec<BlockChanged> = changed.read().copied().collect();
    let mut out = Vec::new();
    for (bot, mut flee, pos, mover, mut intent, world, ids) in &mut bots {
        let flee = &mut *flee;
        flee.nav.now = ticks.0;
        if let Threat::Entity(e) = flee.threat {
            match threats.get(e) {
                Ok((p, seen)) if seen.0 == bot => flee.threat_pos = p.0,
                _ => {
                    // Removed or out of sight: nothing left to flee from.
                    flee.lost = true;
                    commands.end_action(bot, WALK_SLOT.name, ActionStatus::Done, None);
                    continue;
                }
            }
        }
        let here = pos.0;
        let d = here.distance(flee.threat_pos);
        flee.closest = flee.closest.min(d);
        if d >= flee.distance {
            if !flee.hold || ticks.0 >= flee.limit {
                commands.end_action(bot, WALK_SLOT.name, ActionStatus::Done, None);
                continue;
            }
            // Holding: stand (what is under way of a world step goes on), plan afresh next time.
            if flee.nav.work.is_none() {
                flee.nav.progress.update(here, 0.0);
                *intent = MovementIntent::default();
                flee.nav.path.clear();
                flee.nav.progress.reset_watchdog();
                continue;
            }
        } else if ticks.0 >= flee.limit {
            let reason = format!("still {d:.1} blocks from {} after the time limit", flee.name);
            commands.end_action(bot, WALK_SLOT.name, ActionStatus::Timeout, Some(reason));
            continue;
        }
        let moved = flee.planned_for.distance(flee.threat_pos) > MOVED;
        let idle = flee.nav.pending.is_none() && flee.nav.work.is_none();
        if (moved || flee.replan || flee.nav.path.is_empty()) && idle {
            flee.planned_for = flee.threat_pos;
            flee.replan = false;
            flee.nav.replans += 1;
            flee.nav.request = Request::from_feet(here, away(flee.threat_pos, flee.distance), flee.nav.request.opts);
            flee.nav.pending = Some(plan(flee.nav.request.clone(), world, ids.0.clone(), None));
        }
        let changes: Vec<[i32; 3]> = changed.iter().filter(|c| c.bot == bot).map(|c| c.pos).collect();
        let tick = flee.nav.tick(here, mover, world, ids, &changes, &mut out);
        match crate::walk::work_on(&mut flee.nav, tick, here, mover, world, ids) {
            Tick::Go(i) => *intent = i,
            Tick::Wait | Tick::Work(_) => {}
            // Walked, but the threat followed: plan again.
            Tick::Arrived => flee.replan = true,
            Tick::Fail(reason) => {
                commands.end_action(bot, WALK_SLOT.name, ActionStatus::Failed, Some(reason));
            }
        }
    }
    responses.write_batch(out);
}
