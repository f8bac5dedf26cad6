//! `path`, `reachable`, `walk`, `follow` and `move`.

use bevy_ecs::prelude::*;
use clawcraft_core::{
    AgentCommand, AsyncInfo, CommandCtx, CommandError, CommandResponse, CommandWaker, DeferredReply, Position,
    TickCount, Vec3,
};
use clawcraft_entity::{EntityKind, EntityPosition, PlayerInfo, SeenBy, WorldEntity};
use clawcraft_movement::Mover;
use clawcraft_world::chunk::World as ChunkWorld;
use clawcraft_world::ids::BlockIds;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::NavSettings;
use crate::goal::{GoalSpec, Resolved};
use crate::grid::NavGrid;
use crate::plan::{Planned, Request, plan};
use crate::search::{Goal, Options, SearchResult, Step, stand};
use crate::slot::{MoveAction, WalkProgress, flat_distance};
use crate::walk::{FollowAction, Navigator, WalkAction};

/// A path point as ClawCraft gives it (the cell of the feet), with the move that reaches it.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct PathPoint {
    pub x: i32,
    pub y: i32,
    pub z: i32,
    /// `start`, `walk`, `diagonal`, `ascend`, `drop`, `climb`, `swim`, `door`, `pillar`, `bridge`, `dig`.
    #[serde(rename = "move")]
    pub kind: String,
}

pub fn path_points(path: &[Step]) -> Vec<PathPoint> {
    path.iter()
        .map(|s| PathPoint {
            x: s.x,
            y: s.y,
            z: s.z,
            kind: serde_json::to_value(s.kind).ok().and_then(|v| v.as_str().map(String::from)).unwrap_or_default(),
        })
        .collect()
}

/// Target and search options shared by the commands.
#[derive(Deserialize, JsonSchema, Clone, Debug, Default, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct Target {
    /// Block x of the goal (with `z`: a point or, without `y`, a column).
    pub x: Option<f64>,
    /// Feet height of the goal; absent: any height in the column of `x`,`z`. Alone: reach this y level.
    pub y: Option<f64>,
    pub z: Option<f64>,
    /// Done within this many blocks of the point (default 0: the goal's own cell).
    pub range: Option<f64>,
    /// Instead of `x`/`y`/`z`: goal forms that combine. Every key given must hold at once:
    /// `near` (a target or a list, any one within its `range`), `awayFrom` (at least `distance`
    /// blocks from each), `within` (`{min:[x,y,z],max:[x,y,z]}`), `y`, `anyOf` (a list of goals).
    /// Targets are points (`x`,`y`,`z`), a `player`, an `entity` or a `block` (by name: the
    /// matching blocks of the loaded chunks), taken where they are now.
    pub goal: Option<GoalSpec>,
    /// Sprint on the way (walk).
    #[serde(default)]
    pub sprint: bool,
    /// Allow placing blocks to pillar up and bridge (a walk places dirt, cobblestone or the
    /// like from the inventory).
    #[serde(default)]
    pub allow_place: bool,
    /// Allow breaking blocks in the way (a walk mines them, with the best tool it has): through a
    /// wall or a low ceiling, down through the floor (onto safe ground within `maxDrop`), up
    /// onto a block with the head room mined; never bedrock/barriers, hazards, liquids, a block
    /// with water/lava beside or above it, or one holding up sand or gravel.
    #[serde(default)]
    pub allow_dig: bool,
    /// Open closed doors, gates and trapdoors on the way (default true when the interaction
    /// layer is there).
    pub open_doors: Option<bool>,
    /// Most positions to try (default 20 000; 3 000 for `reachable`, max 200 000).
    pub max_nodes: Option<u32>,
    /// Highest drop to take onto solid ground, in blocks (0..20; default 3, the most that does
    /// no fall damage: each block beyond 3 costs 1 HP). Drops into water may be longer (16, or
    /// this when higher).
    pub max_drop: Option<u32>,
}

/// The highest `maxDrop` a command may ask for: a fall of 20 blocks onto solid ground costs 17
/// of a player's 20 HP; a longer one is never worth a shortcut.
const MAX_DROP: u32 = 20;

fn finite(v: f64, what: &str) -> Result<f64, CommandError> {
    if v.is_finite() && v.abs() <= 30_000_000.0 {
        Ok(v)
    } else {
        Err(CommandError::out_of_range(format!("{what} must be finite and within ±30 000 000")))
    }
}

impl Target {
    /// The search's goal: the `goal` object resolved (with its labelled parts), or the point,
    /// column or level of `x`/`y`/`z`.
    fn resolve(&self, ctx: &mut CommandCtx<'_>) -> Result<(Goal, Option<Resolved>), CommandError> {
        let Some(spec) = &self.goal else { return Ok((self.goal()?, None)) };
        if self.x.is_some() || self.y.is_some() || self.z.is_some() || self.range.is_some() {
            return Err(CommandError::invalid_params("give either goal or x/y/z/range, not both"));
        }
        let resolved = crate::goal::resolve(ctx, spec)?;
        Ok((resolved.goal.clone(), Some(resolved)))
    }

    fn goal(&self) -> Result<Goal, CommandError> {
        let range = self.range.unwrap_or(0.0);
        if !(0.0..=64.0).contains(&range) {
            return Err(CommandError::out_of_range("range must be 0..64"));
        }
        match (self.x, self.y, self.z) {
            (Some(x), Some(y), Some(z)) => {
                Ok(Goal::Near { x: finite(x, "x")?, y: finite(y, "y")?, z: finite(z, "z")?, range })
            }
            (Some(x), None, Some(z)) => Ok(Goal::Xz { x: finite(x, "x")?, z: finite(z, "z")? }),
            (None, Some(y), None) => Ok(Goal::Y { y: finite(y, "y")?.floor() as i32 }),
            _ => Err(CommandError::invalid_params("need x and z (and optionally y), or y alone")),
        }
    }

    fn options(&self, settings: &NavSettings, default_nodes: u32) -> Result<Options, CommandError> {
        let nodes = self.max_nodes.unwrap_or(default_nodes);
        if !(1..=200_000).contains(&nodes) {
            return Err(CommandError::out_of_range("maxNodes must be 1..200000"));
        }
        let defaults = Options::default();
        let max_drop = match self.max_drop {
            None => defaults.max_drop,
            Some(d @ 0..=MAX_DROP) => d as i32,
            Some(_) => return Err(CommandError::out_of_range(format!("maxDrop must be 0..{MAX_DROP}"))),
        };
        Ok(Options {
            sprint: self.sprint,
            place: self.allow_place,
            dig: self.allow_dig,
            open_doors: self.open_doors.unwrap_or(settings.open_doors),
            max_nodes: nodes as usize,
            max_drop,
            max_water_drop: defaults.max_water_drop.max(max_drop),
            ..defaults
        })
    }
}

/// The bot's world, ids and feet, or NOT_SPAWNED.
fn bot_world<'w>(ctx: &'w CommandCtx<'_>) -> Result<(&'w ChunkWorld, &'w BlockIds, Vec3), CommandError> {
    let world = ctx.world.get::<ChunkWorld>(ctx.bot).ok_or_else(CommandError::not_spawned)?;
    let ids = ctx.world.get::<BlockIds>(ctx.bot).ok_or_else(CommandError::not_spawned)?;
    let feet = ctx.world.get::<Position>(ctx.bot).ok_or_else(CommandError::not_spawned)?.0;
    Ok((world, ids, feet))
}

/// A goal cell one can't stand in but could stand on top of (the agent named the ground block):
/// aim one block up.
fn standable_goal(req: &mut Request, world: &ChunkWorld, ids: &BlockIds) {
    let Goal::Near { x, y, z, range } = req.goal else { return };
    if range > 0.0 {
        return;
    }
    let cell = [x.floor() as i32, y.floor() as i32, z.floor() as i32];
    let mut snap = crate::grid::Snapshot::capture(
        world,
        ids.0.clone(),
        [cell[0] >> 4, cell[0] >> 4, cell[2] >> 4, cell[2] >> 4],
        [(cell[1] - 1) >> 4, (cell[1] + 3) >> 4],
    );
    if stand(&mut snap, cell).is_none()
        && stand(&mut snap, [cell[0], cell[1] + 1, cell[2]]).is_some()
        && !snap.cell(cell[0], cell[1], cell[2]).is_clear()
    {
        req.goal = Goal::Near { x, y: y + 1.0, z, range };
    }
}

fn settings(ctx: &CommandCtx<'_>) -> NavSettings {
    ctx.world.get_resource::<NavSettings>().copied().unwrap_or_default()
}

/// Pending `path`/`reachable` answers whose search runs on the task pool.
#[derive(Component, Default)]
pub struct PendingSearches(pub Vec<(Planned, Request, DeferredReply, bool)>);

/// Run condition of [`answer_searches`]: some search still waits for its answer.
pub fn searches_waiting(bots: Query<&PendingSearches>) -> bool {
    bots.iter().any(|p| !p.0.is_empty())
}

/// Response of `path`.
#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct PathResponse {
    /// Cells of the feet, start first; to the goal, or to the closest point found when `complete`
    /// is false.
    pub path: Vec<PathPoint>,
    /// Points in the path.
    pub length: u32,
    /// Steps (moves) in the path.
    pub distance: u32,
    /// Straight-line distance start → goal.
    pub euclidean: f64,
    /// Cost in game ticks (walking a block ≈ 4.6).
    pub cost: f64,
    pub start: Option<PathPoint>,
    pub end: Option<PathPoint>,
    /// Whether the path reaches the goal.
    pub complete: bool,
    /// Why not, when it doesn't.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// Positions tried.
    pub nodes: u32,
    /// Search time in ms.
    pub ms: f64,
}

fn path_response(r: &SearchResult, req: &Request) -> PathResponse {
    let points = path_points(&r.path);
    PathResponse {
        length: points.len() as u32,
        distance: points.len().saturating_sub(1) as u32,
        euclidean: (req.euclidean() * 100.0).round() / 100.0,
        cost: (f64::from(r.cost) * 10.0).round() / 10.0,
        start: points.first().cloned(),
        end: points.last().cloned(),
        path: points,
        complete: r.complete(),
        reason: r.incomplete.map(|i| i.reason().to_owned()),
        nodes: r.nodes as u32,
        ms: (r.elapsed.as_secs_f64() * 1e5).round() / 100.0,
    }
}

/// Response of `reachable`.
#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ReachableResponse {
    pub reachable: bool,
    /// Steps of the path; null when unreachable (as ClawCraft).
    pub distance: Option<u32>,
    /// Straight-line distance to the target (always a number).
    pub euclidean: f64,
    /// Estimated walking time in ms (the path's cost in ticks × 50); null when unreachable.
    pub estimated_time: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    pub nodes: u32,
}

fn reachable_response(r: &SearchResult, req: &Request) -> ReachableResponse {
    let complete = r.complete();
    ReachableResponse {
        reachable: complete,
        distance: complete.then(|| r.path.len().saturating_sub(1) as u32),
        euclidean: (req.euclidean() * 100.0).round() / 100.0,
        estimated_time: complete.then(|| (f64::from(r.cost) * 50.0).round() as u64),
        reason: r.incomplete.map(|i| i.reason().to_owned()),
        nodes: r.nodes as u32,
    }
}

/// Runs a search for `path`/`reachable`: inline when small, else deferred to the task pool.
fn search_command(
    ctx: &mut CommandCtx<'_>,
    target: Target,
    default_nodes: u32,
    reachable: bool,
) -> Result<Option<(SearchResult, Request)>, CommandError> {
    let (goal, _) = target.resolve(ctx)?;
    let opts = target.options(&settings(ctx), default_nodes)?;
    let (world, ids, feet) = bot_world(ctx)?;
    let mut req = Request::from_feet(feet, goal, opts);
    standable_goal(&mut req, world, ids);
    let waker = ctx.world.get_resource::<CommandWaker>().cloned();
    match plan(req.clone(), world, ids.0.clone(), waker) {
        Planned::Done(r) => Ok(Some((r, req))),
        running => {
            let reply = ctx.defer();
            let bot = ctx.bot;
            let mut entity = ctx.world.entity_mut(bot);
            if !entity.contains::<PendingSearches>() {
                entity.insert(PendingSearches::default());
            }
            if let Some(mut p) = entity.get_mut::<PendingSearches>() {
                p.0.push((running, req, reply, reachable));
            }
            Ok(None)
        }
    }
}

/// Answers `path`/`reachable` whose search finished on the task pool: between ticks when the
/// finished search woke the runner, else in the next tick.
pub fn answer_searches(mut bots: Query<&mut PendingSearches>, mut responses: MessageWriter<CommandResponse>) {
    for mut pending in &mut bots {
        pending.0.retain_mut(|(planned, req, reply, reachable)| {
            let Some(r) = planned.poll() else { return true };
            let response = if *reachable {
                reply.respond(Ok(reachable_response(&r, req)))
            } else {
                reply.respond(Ok(path_response(&r, req)))
            };
            responses.write(response);
            false
        });
    }
}

/// `{"action":"path","x":20,"y":-60,"z":5}`: an A* path to a point (no movement).
#[derive(Deserialize, JsonSchema)]
pub struct PathCmd {
    #[serde(flatten)]
    pub target: Target,
}

impl AgentCommand for PathCmd {
    const NAME: &'static str = "path";
    const SUMMARY: &'static str = "Compute an A* path to a point, a column (no y), a y level or a goal object (no movement); the best partial path and a reason when unreachable";
    const EXAMPLE: &'static str = r#"{"action":"path","x":20.5,"y":-60,"z":0.5}"#;
    const SIZE_HINT: Option<&'static str> = Some("use reachable, or a nearer goal");
    const QUERY: bool = true;
    type Response = PathResponse;

    fn run(self, ctx: &mut CommandCtx<'_>) -> Result<PathResponse, CommandError> {
        match search_command(ctx, self.target, 20_000, false)? {
            Some((r, req)) => Ok(path_response(&r, &req)),
            None => Ok(path_response(
                &SearchResult::empty(),
                &Request::from_feet(Vec3::ZERO, Goal::Y { y: 0 }, Options::default()),
            )),
        }
    }
}

/// `{"action":"reachable","x":20,"y":-60,"z":5}`: is there a path (search capped at 3 000 positions)?
#[derive(Deserialize, JsonSchema)]
pub struct ReachableCmd {
    #[serde(flatten)]
    pub target: Target,
}

impl AgentCommand for ReachableCmd {
    const NAME: &'static str = "reachable";
    const SUMMARY: &'static str =
        "Whether a point is reachable on foot (A* capped at 3 000 positions) and how long the walk takes";
    const EXAMPLE: &'static str = r#"{"action":"reachable","x":20.5,"y":-60,"z":0.5}"#;
    const QUERY: bool = true;
    type Response = ReachableResponse;

    fn run(self, ctx: &mut CommandCtx<'_>) -> Result<ReachableResponse, CommandError> {
        match search_command(ctx, self.target, 3_000, true)? {
            Some((r, req)) => Ok(reachable_response(&r, &req)),
            None => Ok(reachable_response(
                &SearchResult::empty(),
                &Request::from_feet(Vec3::ZERO, Goal::Y { y: 0 }, Options::default()),
            )),
        }
    }
}

/// Response of `walk` and `follow`.
#[derive(Serialize, JsonSchema, Default)]
#[serde(rename_all = "camelCase")]
pub struct WalkResponse {
    pub walking: bool,
    /// Moves in the path.
    pub steps: u32,
    pub path: Vec<PathPoint>,
    /// Whether the path reaches the goal (a partial path is walked, then re-planned).
    pub complete: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// `0` when already there (with `pos`), as ClawCraft.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub walked: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pos: Option<Vec3>,
    /// With a `goal` object, answered at once: the labels of its parts that hold already.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub met: Option<Vec<String>>,
}

fn teleports(ctx: &CommandCtx<'_>) -> u64 {
    ctx.world.get::<Mover>(ctx.bot).map_or(0, |m| m.teleports)
}

fn now(ctx: &CommandCtx<'_>) -> u64 {
    ctx.world.get_resource::<TickCount>().map_or(0, |t| t.0)
}

/// Refuses paths that change the world when the bot has no interaction layer to do it.
fn executable(ctx: &CommandCtx<'_>, r: &SearchResult) -> Result<(), CommandError> {
    if ctx.world.get::<clawcraft_interact::mine::MineTrace>(ctx.bot).is_some() {
        return Ok(());
    }
    if let Some(s) = r.path.iter().find(|s| s.kind.changes_world()) {
        return Err(CommandError::new(
            "NOT_SUPPORTED",
            format!("the path needs a {:?} move, which needs the interaction layer (InteractPlugin)", s.kind),
        ));
    }
    Ok(())
}

/// `allowPlace` needs a block to place: `NO_ITEM` naming the blocks a walk places when the
/// inventory holds none of them.
fn scaffold_ready(ctx: &CommandCtx<'_>, opts: &Options) -> Result<(), CommandError> {
    if !opts.place {
        return Ok(());
    }
    let inv = clawcraft_interact::common::inventory(ctx)?;
    match crate::act::scaffold_block(inv) {
        Some(_) => Ok(()),
        None => Err(CommandError::new("NO_ITEM", format!("allowPlace: {}", crate::act::no_scaffold()))),
    }
}

/// ClawCraft's arrival range: a `walk` to a target this close to the feet (blocks) is done
/// before it starts.
const ARRIVAL_RANGE: f64 = 1.0;

/// Whether the feet are already within [`ARRIVAL_RANGE`] of the goal (a column's: horizontally; a
/// level's: in height).
/// Other goal forms: whether the feet already meet them.
fn within_arrival_range(goal: &Goal, feet: Vec3) -> bool {
    let d = match *goal {
        Goal::Near { x, y, z, .. } => ((x - feet.x).powi(2) + (y - feet.y).powi(2) + (z - feet.z).powi(2)).sqrt(),
        Goal::Xz { x, z } => ((x - feet.x).powi(2) + (z - feet.z).powi(2)).sqrt(),
        Goal::Y { y } => (f64::from(y) - feet.y).abs(),
        _ => {
            let cell = [feet.x.floor() as i32, (feet.y + 1e-3).floor() as i32, feet.z.floor() as i32];
            return goal.reached(cell, feet.y as f32);
        }
    };
    d < ARRIVAL_RANGE
}

/// `{"action":"walk","x":20,"y":-60,"z":5}`: path-find and walk there (async, `walk_done`).
#[derive(Deserialize, JsonSchema)]
pub struct WalkCmd {
    #[serde(flatten)]
    pub target: Target,
}

impl WalkCmd {
    /// A walk to within `range` blocks of `at` (feet position), with the default options.
    pub fn to(at: clawcraft_core::Vec3, range: f64) -> Self {
        Self { target: Target { x: Some(at.x), y: Some(at.y), z: Some(at.z), range: Some(range), ..Target::default() } }
    }
}

impl AgentCommand for WalkCmd {
    const NAME: &'static str = "walk";
    const SUMMARY: &'static str = "Path-find and walk to a point, column, y level or goal (near any of several points, players, entities or blocks by name, awayFrom, within a box, combined); re-plans when blocks change, when pushed or teleported; walk_done at the end";
    const EXAMPLE: &'static str = r#"{"action":"walk","x":20.5,"y":-60,"z":0.5}"#;
    const ASYNC: Option<AsyncInfo> = Some(AsyncInfo::of::<WalkAction>());
    // Its first answer is the path: it goes out when the search ends, not at the next tick.
    const BETWEEN_TICKS: bool = true;
    type Response = WalkResponse;

    fn run(self, ctx: &mut CommandCtx<'_>) -> Result<WalkResponse, CommandError> {
        let (goal, resolved) = self.target.resolve(ctx)?;
        let opts = self.target.options(&settings(ctx), 20_000)?;
        let feet = bot_world(ctx)?.2;
        if within_arrival_range(&goal, feet) {
            // Already there: answered at once, as ClawCraft (no walk, no walk_done).
            return Ok(WalkResponse {
                walked: Some(0),
                pos: Some(feet.rounded()),
                complete: true,
                met: resolved.map(|r| r.met(feet)),
                ..WalkResponse::default()
            });
        }
        scaffold_ready(ctx, &opts)?;
        let (world, ids, feet) = bot_world(ctx)?;
        let mut req = Request::from_feet(feet, goal, opts);
        standable_goal(&mut req, world, ids);
        let g = req.goal_point();
        let target = Vec3::new(g[0], g[1], g[2]);
        let waker = ctx.world.get_resource::<CommandWaker>().cloned();
        let planned = plan(req.clone(), world, ids.0.clone(), waker);
        let mut nav = Navigator::new(req, now(ctx), teleports(ctx));
        // Watchdog: ClawCraft's 60 s.
        let timeout = 1_200;
        match planned {
            Planned::Done(r) => {
                if r.path.len() <= 1 && !r.complete() {
                    let why = r.incomplete.map_or("no path", |i| i.reason());
                    return Err(CommandError::new("NO_PATH", format!("No path: {why}")));
                }
                executable(ctx, &r)?;
                if r.complete() && r.path.len() <= 1 {
                    return Ok(WalkResponse {
                        walked: Some(0),
                        pos: Some(feet.rounded()),
                        complete: true,
                        met: resolved.as_ref().map(|r| r.met(feet)),
                        ..WalkResponse::default()
                    });
                }
                nav.adopt(r, feet);
                let response = nav.response();
                ctx.start(Self::NAME, WalkAction { nav, target, goal: resolved }, timeout)?;
                Ok(response)
            }
            running => {
                nav.pending = Some(running);
                let reply = ctx.defer();
                nav.reply = Some(reply);
                ctx.start(Self::NAME, WalkAction { nav, target, goal: resolved }, timeout)?;
                Ok(WalkResponse::default())
            }
        }
    }
}

/// `{"action":"follow","player":"Alice","distance":3}`: follow a player or entity, keeping
/// `distance`, until `abort_walk`.
#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct FollowCmd {
    /// A player name (case-insensitive).
    pub player: Option<String>,
    /// An entity: a runtime id, or a mob name (`zombie`; the nearest).
    pub entity: Option<serde_json::Value>,
    /// Blocks to keep (default 3, 1..32).
    pub distance: Option<f64>,
    #[serde(default)]
    pub sprint: bool,
}

impl AgentCommand for FollowCmd {
    const NAME: &'static str = "follow";
    const SUMMARY: &'static str = "Follow a player or entity, keeping a distance, until abort_walk (walk_done then)";
    const EXAMPLE: &'static str = r#"{"action":"follow","player":"Alice","distance":3}"#;
    const ASYNC: Option<AsyncInfo> = Some(AsyncInfo::of::<FollowAction>());
    type Response = WalkResponse;

    fn run(self, ctx: &mut CommandCtx<'_>) -> Result<WalkResponse, CommandError> {
        let distance = self.distance.unwrap_or(3.0);
        if !(1.0..=32.0).contains(&distance) {
            return Err(CommandError::out_of_range("distance must be 1..32"));
        }
        let feet = ctx.world.get::<Position>(ctx.bot).ok_or_else(CommandError::not_spawned)?.0;
        let (entity, name, at) = find_entity(ctx, self.player.as_deref(), self.entity.as_ref(), feet)?;
        let opts = Options { sprint: self.sprint, open_doors: settings(ctx).open_doors, ..Options::default() };
        let req = Request::from_feet(feet, Goal::Near { x: at.x, y: at.y, z: at.z, range: distance }, opts);
        let nav = Navigator::new(req, now(ctx), teleports(ctx));
        // Until aborted: the watchdog only stops a follow after an hour.
        ctx.start(Self::NAME, FollowAction::new(nav, entity, name, distance, at), 72_000)?;
        Ok(WalkResponse { walking: true, complete: false, pos: Some(at.rounded()), ..WalkResponse::default() })
    }
}

/// Walking speed in blocks per tick (4.317 blocks/s).
const WALK_PER_TICK: f64 = 0.215_85;

/// `{"action":"move","x":10,"y":-60,"z":10}`: walk straight toward a point (no path finding);
/// `walk_done` when within 0.15 blocks.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct MoveCmd {
    pub x: f64,
    /// Ignored for the straight line (kept for ClawCraft's shape); defaults to the feet height.
    pub y: Option<f64>,
    pub z: f64,
    /// Sprint while more than 3 blocks away.
    #[serde(default)]
    pub sprint: bool,
}

/// Response of `move`.
#[derive(Serialize, JsonSchema)]
pub struct MoveResponse {
    pub moving: bool,
    /// Estimated ticks of walking.
    pub steps: u32,
    /// The target.
    pub pos: Vec3,
}

impl AgentCommand for MoveCmd {
    const NAME: &'static str = "move";
    const SUMMARY: &'static str =
        "Walk straight toward a point (no path finding; jumps one-block steps); walk_done when within 0.15 blocks";
    const EXAMPLE: &'static str = r#"{"action":"move","x":5,"y":-60,"z":0.5}"#;
    const ASYNC: Option<AsyncInfo> = Some(AsyncInfo::of::<MoveAction>());
    type Response = MoveResponse;

    fn run(self, ctx: &mut CommandCtx<'_>) -> Result<MoveResponse, CommandError> {
        let here = ctx.world.get::<Position>(ctx.bot).map(|p| p.0).ok_or_else(CommandError::not_spawned)?;
        let target = clawcraft_movement::commands::check_point(self.x, self.y.unwrap_or(here.y), self.z)?;
        let d = flat_distance(here, target);
        let steps = (d / WALK_PER_TICK).ceil() as u32;
        let action = MoveAction { target, sprint: self.sprint, progress: WalkProgress::new(now(ctx)), now: now(ctx) };
        // Watchdog: twice the walking time, at least 10 s.
        ctx.start(Self::NAME, action, u64::from(steps).saturating_mul(2).max(200))?;
        Ok(MoveResponse { moving: true, steps, pos: target.rounded() })
    }
}

pub(crate) fn find_entity(
    ctx: &mut CommandCtx<'_>,
    player: Option<&str>,
    entity: Option<&serde_json::Value>,
    feet: Vec3,
) -> Result<(Entity, String, Vec3), CommandError> {
    let bot = ctx.bot;
    let mut q = ctx.world.query::<(Entity, &SeenBy, &EntityPosition, &WorldEntity, &EntityKind, Option<&PlayerInfo>)>();
    let mut best: Option<(f64, Entity, String, Vec3)> = None;
    for (e, seen, pos, we, kind, info) in q.iter(ctx.world) {
        if seen.0 != bot {
            continue;
        }
        let matches = match (player, entity) {
            (Some(p), _) => info.is_some_and(|i| i.name.eq_ignore_ascii_case(p)),
            (None, Some(serde_json::Value::Number(n))) => n.as_u64() == Some(we.runtime_id),
            (None, Some(serde_json::Value::String(s))) => {
                s.parse::<u64>().ok() == Some(we.runtime_id)
                    || kind.name.eq_ignore_ascii_case(s)
                    || info.is_some_and(|i| i.name.eq_ignore_ascii_case(s))
            }
            _ => false,
        };
        if !matches {
            continue;
        }
        let d = pos.0.distance(feet);
        let name = info.map_or_else(|| kind.name.clone(), |i| i.name.clone());
        if best.as_ref().is_none_or(|b| d < b.0) {
            best = Some((d, e, name, pos.0));
        }
    }
    if player.is_none() && entity.is_none() {
        return Err(CommandError::invalid_params("need player or entity"));
    }
    best.map(|(_, e, n, p)| (e, n, p))
        .ok_or_else(|| CommandError::new("NOT_FOUND", "No such player or entity in sight"))
}
