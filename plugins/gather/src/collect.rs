//! `collect` / `abort_collect`: get `count` items of a block in one action — the nearest matching
//! block in loaded chunks, a walk to within reach, a break with the best tool, the drops picked
//! up — repeated until the inventory holds `count` more of what the mined blocks dropped.
//!
//! Per tick, a state machine on the [`Collecting`] component (present only while it runs):
//!
//! - **Choose** (exclusive: it reads the whole world as a command does): `find`'s search over
//!   the loaded chunks within `radius` of the feet, nearest first, skipping blocks already given
//!   up on, blocks with no open face (buried: no digging to them), and blocks it must not break
//!   — unbreakable ones (bedrock, barriers), hazards, liquids, and a block with water, lava or
//!   fire above or beside it (it would pour in), the rules a walk's dig steps follow.
//! - **Approach**: a path to within [`APPROACH`] blocks of the block (feet to its centre), walked
//!   by [`clawcraft_pathfind`]'s navigator (no digging, no placing, no doors); a path that ends
//!   short is walked to its end.
//! - **Reach**: `mine`'s own preparation ([`prepare_mine`]: reach, line of sight, the face by
//!   raycast, autoTool's best tool and break time); a block it cannot reach or see from there is
//!   given up on (`skipped`, `unreachable`).
//! - **Mine**: `mine`'s break ([`advance_mining`], [`observe_mining`]), counted only when the
//!   server's block update shows the block gone; a break the server refuses is given up on
//!   (`dig_refused`).
//! - **Pickup**: the item entities the server spawned at the block are the drops. One not taken
//!   within [`PICKUP_WAIT`] ticks is walked onto; one still not taken [`PICKUP_WAIT`] ticks after
//!   arriving is left (`dropsLeft`).
//!
//! The inner walks and breaks are sub-steps the collect owns, as a walk's dig steps and a
//! fight's retreat are: they emit no `walk_done` / `mine_done`, and the collect stays one
//! action with one `collect_done`. The hand is lent to it (hand actions are `BUSY`); a walk
//! started meanwhile ends it (`walk_started`), as it ends a fight.
//!
//! It ends `done` once the inventory holds `count` more of the items the mined blocks dropped
//! (the server's inventory updates; stone's drop is cobblestone), else `failed` with a reason:
//! `no_block` (no matching block left within the radius), `unreachable` / `dig_refused` /
//! `unsafe` (the last block given up on, when none is left), `inventory_full`, `no_drop` (three
//! blocks in a row dropped nothing: the tools at hand cannot harvest it), `max_mined`,
//! `time_limit`, `walk_started`, or death and disconnection as every action.

use std::collections::{BTreeMap, HashSet};
use std::sync::Arc;

use bevy_ecs::prelude::*;
use bevy_ecs::world::EntityRef;
use clawcraft_core::{
    ActionSlot, ActionStatus, ActiveActions, AgentCommand, AsyncAction, AsyncInfo, CommandCtx, CommandError,
    EYE_HEIGHT, EndActionExt, EntityIds, Outcome, Position, TickCount, Vec3, bare_name,
};
use clawcraft_entity::{EntityPosition, ItemEntity, ItemPickedUp, SeenBy, WorldEntity};
use clawcraft_interact::common::{HandBorrowed, block_updates, face_centre, hand_free_of, inventory_of, look_angles};
use clawcraft_interact::mine::{
    MineTrace, Mining, Phase as MinePhase, advance_mining, call_off_break, observe_mining, prepare_mine, retimed,
};
use clawcraft_inventory::{Inventory, InventoryJobs, ItemData, ItemIds};
use clawcraft_movement::{MovementIntent, Mover};
use clawcraft_network::{ClientboundPacket, Connection};
use clawcraft_pathfind::grid::{NavCell, NavTable};
use clawcraft_pathfind::plan::Request;
use clawcraft_pathfind::walk::Tick;
use clawcraft_pathfind::{Goal, Navigator, Options, WALK_SLOT};
use clawcraft_player::InputExtras;
use clawcraft_world::BlockChanged;
use clawcraft_world::chunk::{BlockLookup, World as ChunkWorld};
use clawcraft_world::commands::{MAX_FIND_RADIUS, block_query};
use clawcraft_world::ids::BlockIds;
use clawcraft_world::query::{self, Found};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The `collect` slot: it moves the body and uses the hand.
pub const COLLECT_SLOT: ActionSlot = ActionSlot::new("collect", "abort_collect", "Not collecting");

/// Most items one collect may ask for.
pub const MAX_COUNT: u32 = 256;
/// Most blocks one collect may break (`maxMined`).
pub const MAX_MINED: u32 = 1024;
/// Default and largest `seconds`.
pub const DEFAULT_SECONDS: f64 = 300.0;
pub const MAX_SECONDS: f64 = 3600.0;
/// The walk to a block ends this close (blocks, from the standing cell's centre at the feet to
/// the block's centre): within reach, and its drop within a server's pickup range.
pub const APPROACH: f64 = 2.0;
/// Ticks a drop may lie before the bot walks onto it; as long again after arriving before it is
/// left.
pub const PICKUP_WAIT: u64 = 20;
/// Ticks after a confirmed break for its drops to appear (none by then: it dropped nothing).
pub const DROP_APPEAR_TICKS: u64 = 10;
/// Ticks after the last pickup for the server's inventory update to show it.
pub const SETTLE_TICKS: u64 = 10;
/// A drop lies within this distance (blocks) of the broken block's centre.
const DROP_RADIUS: f64 = 2.0;
/// The walk onto a drop ends this close to it.
const DROP_REACH: f64 = 1.0;
/// Blocks in a row that dropped nothing before the collect gives up (`no_drop`).
const MAX_DROPLESS: u32 = 3;
/// Blocks given up on before the collect gives up.
pub const MAX_SKIPS: usize = 16;
/// Nearest matches each search looks at.
const SEARCH_COUNT: usize = 256;

/// A block the collect broke (`collect_done`'s `blocks`).
#[derive(Serialize, JsonSchema, Debug, Clone, PartialEq)]
pub struct MinedBlock {
    pub x: i32,
    pub y: i32,
    pub z: i32,
    pub block: String,
    /// The item held (absent: the hand).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tool: Option<String>,
}

/// A block the collect gave up on (`collect_done`'s `skipped`).
#[derive(Serialize, JsonSchema, Debug, Clone, PartialEq)]
pub struct Skipped {
    pub x: i32,
    pub y: i32,
    pub z: i32,
    pub block: String,
    /// `unreachable` (no way to stand within reach and see it), `dig_refused` (the server
    /// refused or never confirmed the break, or the tool swap) or `unsafe` (it would drop the
    /// bot into a hole).
    pub reason: &'static str,
    /// What failed, in words.
    pub detail: String,
}

impl Skipped {
    fn cell(&self) -> [i32; 3] {
        [self.x, self.y, self.z]
    }
}

/// An item entity that appeared at the block being worked on.
#[derive(Debug, Clone, PartialEq)]
struct Drop {
    runtime_id: u64,
    name: String,
    count: u16,
    pos: Vec3,
    /// A TakeItemEntity of ours took it.
    picked: bool,
    /// It went away without us taking it.
    gone: bool,
}

impl Drop {
    fn pending(&self) -> bool {
        !self.picked && !self.gone
    }
}

/// Waiting for (and walking onto) the drops of the block broken at `since`.
#[derive(Debug)]
struct Pickup {
    since: u64,
    /// The walk onto a drop.
    walk: Option<Box<Navigator>>,
    /// When the walk onto a drop arrived.
    arrived: Option<u64>,
    /// When the last drop was taken.
    last_pick: Option<u64>,
    /// Items gained before this block's drops.
    gained_before: u32,
}

/// Where a collect is.
#[derive(Debug)]
enum Stage {
    /// The next block is chosen by [`prepare_collects`].
    Choose,
    /// Walking toward the block at `cell`.
    Approach {
        cell: [i32; 3],
        nav: Box<Navigator>,
    },
    /// The break is prepared by [`prepare_collects`] (`walk_failed`: why the walk ended short).
    Reach {
        cell: [i32; 3],
        walk_failed: Option<String>,
    },
    Mine(Box<Mining>),
    Pickup(Pickup),
    /// The end is on its way.
    Ending,
}

/// The running `collect`.
#[derive(Component, Debug)]
pub struct Collecting {
    /// The block query as given.
    query: String,
    /// The network ids it matches.
    wanted: Arc<HashSet<u32>>,
    /// The block names it matches (the inventory check's guess before any drop was seen).
    names: Vec<String>,
    count: u32,
    radius: f64,
    max_mined: u32,
    /// The collect gives up at this tick.
    limit: u64,
    started: u64,
    now: u64,
    /// The inventory's counts by item name when it started.
    start_counts: Vec<(String, u32)>,
    /// The names of the items the mined blocks dropped.
    drop_names: Vec<String>,
    stage: Stage,
    /// The block being worked on, its drops, and the item entities that lay near it before.
    current: Option<[i32; 3]>,
    drops: Vec<Drop>,
    preexisting: Vec<u64>,
    pub mined: Vec<MinedBlock>,
    pub skipped: Vec<Skipped>,
    pub drops_left: u32,
    /// Blocks in a row that dropped nothing.
    dropless: u32,
}

impl Collecting {
    /// Items gained so far, by name: how many more of each item the mined blocks dropped the
    /// inventory holds than when the collect started.
    pub fn collected(&self, inv: Option<&Inventory>) -> BTreeMap<String, u32> {
        let Some(inv) = inv else { return BTreeMap::new() };
        let mut out = BTreeMap::new();
        for name in &self.drop_names {
            let now = inv.count_of(name);
            let before: u32 =
                self.start_counts.iter().filter(|(n, _)| bare_name(n) == bare_name(name)).map(|(_, c)| *c).sum();
            if now > before {
                out.insert(name.clone(), now - before);
            }
        }
        out
    }

    fn gained(&self, inv: Option<&Inventory>) -> u32 {
        self.collected(inv).values().sum()
    }

    fn skip(&mut self, cell: [i32; 3], block: String, reason: &'static str, detail: String) {
        tracing::debug!(?cell, reason, detail, "collect: giving up on a block");
        self.skipped.push(Skipped { x: cell[0], y: cell[1], z: cell[2], block, reason, detail });
        self.stage = Stage::Choose;
    }

    /// The reason a collect with no block left ends with.
    fn exhausted(&self) -> &'static str {
        self.skipped.last().map_or("no_block", |s| s.reason)
    }

    /// Takes the item entity `runtime_id` at `pos` as a drop of the block being worked on when it
    /// lies within [`DROP_RADIUS`] of it and was not there before the break.
    fn take_as_drop(&mut self, runtime_id: u64, name: &str, count: u16, pos: Vec3, picked: bool) {
        let Some(cell) = self.current else { return };
        if pos.distance(Vec3::block_centre(cell)) > DROP_RADIUS || self.preexisting.contains(&runtime_id) {
            return;
        }
        self.drops.push(Drop { runtime_id, name: name.to_owned(), count, pos, picked, gone: false });
        if !self.drop_names.iter().any(|n| n == name) {
            self.drop_names.push(name.to_owned());
        }
    }
}

/// `collect_done`.
#[derive(Serialize, JsonSchema, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct CollectDone {
    /// The block asked for, as given.
    pub block: String,
    /// Items wanted.
    pub count: u32,
    /// Items gained, by name: how many more of each item the mined blocks dropped the inventory
    /// holds than at the start (the server's inventory updates).
    pub collected: BTreeMap<String, u32>,
    /// Blocks the server's block updates showed broken.
    pub mined: u32,
    /// Those blocks, in the order broken.
    pub blocks: Vec<MinedBlock>,
    /// Blocks tried and given up on, with why.
    pub skipped: Vec<Skipped>,
    /// Dropped items that were not picked up.
    pub drops_left: u32,
    /// Ticks it ran.
    pub ticks: u64,
}
clawcraft_core::evidence!(
    CollectDone,
    "collect_done",
    "A collect ended: collected = items gained by name (the server's inventory updates), mined = blocks the server showed broken, blocks, skipped (with why), dropsLeft"
);

impl AsyncAction for Collecting {
    const SLOT: ActionSlot = COLLECT_SLOT;
    type Evidence = CollectDone;

    fn evidence(&self, _outcome: &Outcome, bot: EntityRef<'_>) -> CollectDone {
        CollectDone {
            block: self.query.clone(),
            count: self.count,
            collected: self.collected(bot.get::<Inventory>()),
            mined: self.mined.len() as u32,
            blocks: self.mined.clone(),
            skipped: self.skipped.clone(),
            drops_left: self.drops_left,
            ticks: self.now.saturating_sub(self.started),
        }
    }
}

/// `collect`.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct Collect {
    /// The block (`minecraft:` optional, any case): the block of that name when there is one
    /// (`stone`, not `cobblestone`), else every block whose name contains it (`log`).
    pub block: String,
    /// `true`: only the block of that name (an error when none has it); `false`: every block whose
    /// name contains it, as `find` matches (`stone` takes cobblestone and redstone ore too).
    pub exact: Option<bool>,
    /// Items wanted (default 1, at most 256).
    pub count: Option<u32>,
    /// Blocks from the feet to look for the block (default 32, at most 256; loaded chunks only).
    pub radius: Option<f64>,
    /// Break at most this many blocks (default 2 × count + 4, at most 1024).
    pub max_mined: Option<u32>,
    /// Give up after this many seconds (default 300, at most 3600).
    pub seconds: Option<f64>,
}

/// Response of `collect`.
#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct CollectResponse {
    /// True: the collect runs (the verdict is `collect_done`).
    pub collecting: bool,
    /// The block names the query matches (at most 16).
    pub matched: Vec<String>,
    /// The nearest matching block within the radius now (null: none in the loaded chunks).
    pub nearest: Option<Found>,
    pub count: u32,
    pub radius: f64,
    pub max_mined: u32,
}

impl AgentCommand for Collect {
    const NAME: &'static str = "collect";
    const SUMMARY: &'static str = "Get count items of a block: the nearest matching block (as find matches), a walk to it, a break with the best tool, the drops picked up, again until the inventory holds count more of what the blocks drop; async, ends in collect_done (collected, mined, blocks, skipped)";
    const EXAMPLE: &'static str = r#"{"action":"collect","block":"oak_log","count":3}"#;
    const ASYNC: Option<AsyncInfo> = Some(AsyncInfo::of::<Collecting>());
    const MISSING_PARAMS: &'static [(&'static str, &'static str)] = &[("block", "Need \"block\" name pattern")];
    type Response = CollectResponse;

    fn run(self, ctx: &mut CommandCtx<'_>) -> Result<CollectResponse, CommandError> {
        let count = self.count.unwrap_or(1);
        if !(1..=MAX_COUNT).contains(&count) {
            return Err(CommandError::out_of_range(format!("count must be between 1 and {MAX_COUNT}")));
        }
        let radius = self.radius.unwrap_or(32.0);
        if !(radius.is_finite() && radius > 0.0 && radius <= MAX_FIND_RADIUS) {
            return Err(CommandError::out_of_range(format!("radius must be > 0 and ≤ {MAX_FIND_RADIUS}")));
        }
        let max_mined = self.max_mined.unwrap_or(count * 2 + 4).min(MAX_MINED);
        if self.max_mined.is_some_and(|m| !(1..=MAX_MINED).contains(&m)) {
            return Err(CommandError::out_of_range(format!("maxMined must be between 1 and {MAX_MINED}")));
        }
        let seconds = self.seconds.unwrap_or(DEFAULT_SECONDS);
        if !(seconds > 0.0 && seconds <= MAX_SECONDS) {
            return Err(CommandError::out_of_range(format!("seconds must be within 0-{MAX_SECONDS}")));
        }
        hand_free_of(ctx.world, ctx.bot)?;
        clawcraft_core::action::refuse_if_busy(ctx.world, ctx.bot, WALK_SLOT.name)?;
        let feet = ctx.world.get::<Position>(ctx.bot).ok_or_else(CommandError::not_spawned)?.0;
        let (Some(chunks), Some(ids)) = (ctx.world.get::<ChunkWorld>(ctx.bot), ctx.world.get::<BlockIds>(ctx.bot))
        else {
            return Err(CommandError::not_spawned());
        };
        // A whole block name means that block: collecting "stone" should not dig up the
        // cobblestone, stone bricks and redstone ore that also contain the word.
        let exact = self.exact.unwrap_or_else(|| block_query(&ids.0, &self.block, true).is_ok());
        let q = block_query(&ids.0, &self.block, exact)?;
        let nearest = query::find(chunks, &ids.0, &q.wanted, [feet.x, feet.y, feet.z], radius, 1).blocks.pop();
        let inv = inventory_of(ctx.world, ctx.bot)?;
        let mut start_counts: Vec<(String, u32)> = Vec::new();
        for (_, it) in inv.indexed() {
            match start_counts.iter_mut().find(|(n, _)| **n == *it.name) {
                Some((_, c)) => *c += u32::from(it.count),
                None => start_counts.push((it.name.to_string(), u32::from(it.count))),
            }
        }
        let now = ctx.world.get_resource::<TickCount>().map_or(0, |t| t.0);
        let limit_ticks = (seconds * 20.0).ceil() as u64;
        let matched: Vec<String> = q.names.iter().take(16).cloned().collect();
        let collecting = Collecting {
            query: self.block,
            wanted: Arc::new(q.wanted),
            names: q.names,
            count,
            radius,
            max_mined,
            limit: now + limit_ticks,
            started: now,
            now,
            start_counts,
            drop_names: Vec::new(),
            stage: Stage::Choose,
            current: None,
            drops: Vec::new(),
            preexisting: Vec::new(),
            mined: Vec::new(),
            skipped: Vec::new(),
            drops_left: 0,
            dropless: 0,
        };
        ctx.start(Self::NAME, collecting, limit_ticks + 200)?;
        ctx.world.entity_mut(ctx.bot).insert(HandBorrowed(COLLECT_SLOT.name));
        Ok(CollectResponse { collecting: true, matched, nearest, count, radius, max_mined })
    }
}

/// The navigation cell of the block at `c` (layer 1's water counts: a waterlogged block is
/// water too).
fn nav_cell(world: &ChunkWorld, ids: &BlockIds, table: &NavTable, c: [i32; 3]) -> NavCell {
    let of = |id: u32| ids.0.map.state(id).map_or(NavCell::STONE, |s| table.cell(s));
    match world.get_block(c[0], c[1], c[2]) {
        BlockLookup::Loaded(id, l1) => {
            let mut cell = of(id);
            if l1.is_some_and(|l| of(l).has(NavCell::WATER)) {
                cell.flags |= NavCell::WATER;
            }
            cell
        }
        BlockLookup::Unloaded => NavCell::UNKNOWN,
    }
}

/// Why a matching block is not a candidate.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Unfit {
    /// No open face: buried.
    Hidden,
    /// Unbreakable, a hazard, a liquid, or a liquid (or fire, or no data) above or beside it.
    Unsafe,
}

/// Whether the block at `c` may be collected: breakable, not a hazard or liquid, nothing above
/// or beside it that would pour in (the rules of a walk's dig steps), and an open face.
fn judge(world: &ChunkWorld, ids: &BlockIds, table: &NavTable, c: [i32; 3]) -> Result<(), Unfit> {
    let cell = nav_cell(world, ids, table, c);
    if !cell.breakable() || cell.has(NavCell::HAZARD) || cell.has(NavCell::WATER) {
        return Err(Unfit::Unsafe);
    }
    let [x, y, z] = c;
    let mut open = false;
    for (dx, dy, dz) in [(0, 1, 0), (1, 0, 0), (-1, 0, 0), (0, 0, 1), (0, 0, -1), (0, -1, 0)] {
        let n = nav_cell(world, ids, table, [x + dx, y + dy, z + dz]);
        if dy >= 0 && (n.flows() || n.has(NavCell::UNLOADED)) {
            return Err(Unfit::Unsafe);
        }
        open |= !n.has(NavCell::SOLID) && !n.has(NavCell::UNLOADED);
    }
    if open { Ok(()) } else { Err(Unfit::Hidden) }
}

/// Whether the inventory can take another item of one of `names` (an empty slot, or a stack of
/// one with room).
fn has_room(inv: &Inventory, data: Option<&ItemData>, names: &[String]) -> bool {
    if inv.first_empty().is_some() {
        return true;
    }
    inv.indexed().any(|(_, it)| {
        names.iter().any(|n| it.is_named(n))
            && data.and_then(|d| d.info(&it.name)).is_some_and(|i| u32::from(it.count) < i.stack)
    })
}

fn end_now(world: &mut World, bot: Entity, status: ActionStatus, reason: &str) {
    if let Some(mut c) = world.get_mut::<Collecting>(bot) {
        c.stage = Stage::Ending;
    }
    clawcraft_core::end_action(world, bot, COLLECT_SLOT.name, status, Some(reason.to_owned()));
}

/// Chooses the next block and starts the walk to it (or its break, when it is close).
fn choose(world: &mut World, bot: Entity, now: u64) {
    let Some(c) = world.get::<Collecting>(bot) else { return };
    if c.mined.len() as u32 >= c.max_mined {
        return end_now(world, bot, ActionStatus::Failed, "max_mined");
    }
    if c.skipped.len() >= MAX_SKIPS {
        let reason = c.exhausted();
        return end_now(world, bot, ActionStatus::Failed, reason);
    }
    if let Some(inv) = world.get::<Inventory>(bot).filter(|i| i.synced) {
        let data = world.get::<ItemIds>(bot).and_then(|i| i.data.clone());
        let names = if c.drop_names.is_empty() { &c.names } else { &c.drop_names };
        if !has_room(inv, data.as_deref(), names) {
            return end_now(world, bot, ActionStatus::Failed, "inventory_full");
        }
    }
    let (Some(feet), Some(mover), Some(chunks), Some(ids)) = (
        world.get::<Position>(bot).map(|p| p.0),
        world.get::<Mover>(bot),
        world.get::<ChunkWorld>(bot),
        world.get::<BlockIds>(bot),
    ) else {
        return end_now(world, bot, ActionStatus::Failed, "not_spawned");
    };
    let found = query::find(chunks, &ids.0, &c.wanted, [feet.x, feet.y, feet.z], c.radius, SEARCH_COUNT);
    let table = NavTable::of(&ids.0.registry);
    let (mut hidden, mut unsafe_) = (0u32, 0u32);
    let pick = found.blocks.iter().map(|f| [f.x, f.y, f.z]).find(|&cell| {
        if c.skipped.iter().any(|s| s.cell() == cell) {
            return false;
        }
        match judge(chunks, ids, &table, cell) {
            Ok(()) => true,
            Err(Unfit::Hidden) => {
                hidden += 1;
                false
            }
            Err(Unfit::Unsafe) => {
                unsafe_ += 1;
                false
            }
        }
    });
    let Some(cell) = pick else {
        tracing::debug!(found = found.blocks.len(), hidden, unsafe_, "collect: no block left");
        let reason = c.exhausted();
        return end_now(world, bot, ActionStatus::Failed, reason);
    };
    let centre = Vec3::block_centre(cell);
    let stage = if feet.distance(centre) <= APPROACH {
        Stage::Reach { cell, walk_failed: None }
    } else {
        let goal = Goal::Near { x: centre.x, y: centre.y, z: centre.z, range: APPROACH };
        let req = Request::from_feet(feet, goal, Options::default());
        let nav = Navigator::planned(req, now, mover.teleports, chunks, ids);
        Stage::Approach { cell, nav: Box::new(nav) }
    };
    let reach = matches!(stage, Stage::Reach { .. });
    if let Some(mut c) = world.get_mut::<Collecting>(bot) {
        c.stage = stage;
        c.current = Some(cell);
    }
    if reach {
        prepare_break(world, bot, cell, None);
    }
}

/// `mine`'s preparation of the break of `cell`, from where the bot stands.
fn prepare_break(world: &mut World, bot: Entity, cell: [i32; 3], walk_failed: Option<String>) {
    let Some(c) = world.get::<Collecting>(bot) else { return };
    let (Some(chunks), Some(ids), Some(feet)) =
        (world.get::<ChunkWorld>(bot), world.get::<BlockIds>(bot), world.get::<Position>(bot))
    else {
        return;
    };
    let block = match chunks.get_block(cell[0], cell[1], cell[2]) {
        BlockLookup::Loaded(id, _) if c.wanted.contains(&id) => ids.0.name(id).to_owned(),
        // Gone meanwhile (mined by someone else, or no data any more): choose again.
        _ => {
            if let Some(mut c) = world.get_mut::<Collecting>(bot) {
                c.stage = Stage::Choose;
            }
            return;
        }
    };
    // The block under the feet, over a drop or a hazard: breaking it drops the bot in.
    let f = feet.0;
    let under = [f.x.floor() as i32, (f.y + 1e-3).floor() as i32 - 1, f.z.floor() as i32];
    let table = NavTable::of(&ids.0.registry);
    let below = nav_cell(chunks, ids, &table, [cell[0], cell[1] - 1, cell[2]]);
    let unsafe_floor = cell == under && (!below.has(NavCell::SOLID) || below.has(NavCell::HAZARD));
    let prepared = if unsafe_floor {
        Err(("unsafe", "it is the floor under the feet, over a drop or a hazard".to_owned()))
    } else {
        prepare_mine(world, bot, cell, None, true).map_err(|e| {
            let reason = if matches!(e.code, "OUT_OF_REACH" | "NO_LINE_OF_SIGHT" | "NOT_LOADED") {
                "unreachable"
            } else {
                "dig_refused"
            };
            let detail = match &walk_failed {
                Some(w) => format!("{w}; then: {}", e.message),
                None => e.message.clone(),
            };
            (reason, detail)
        })
    };
    let Some(mut c) = world.get_mut::<Collecting>(bot) else { return };
    match prepared {
        Ok(mut m) => {
            m.wait_for_drops = false;
            c.preexisting = m.preexisting.clone();
            c.drops.clear();
            c.current = Some(cell);
            c.stage = Stage::Mine(Box::new(m));
        }
        Err((reason, detail)) => c.skip(cell, block, reason, detail),
    }
}

/// Chooses blocks and prepares breaks, with the whole world as a command has it.
pub fn prepare_collects(world: &mut World, mut bots: Local<Option<QueryState<(Entity, &'static Collecting)>>>) {
    let q = bots.get_or_insert_with(|| world.query::<(Entity, &Collecting)>());
    let due: Vec<Entity> = q
        .iter(world)
        .filter(|(_, c)| matches!(c.stage, Stage::Choose | Stage::Reach { .. }))
        .map(|(bot, _)| bot)
        .collect();
    if due.is_empty() {
        return;
    }
    let now = world.get_resource::<TickCount>().map_or(0, |t| t.0);
    for bot in due {
        let reach = match world.get::<Collecting>(bot).map(|c| &c.stage) {
            Some(Stage::Reach { cell, walk_failed }) => Some((*cell, walk_failed.clone())),
            _ => None,
        };
        match reach {
            None => choose(world, bot, now),
            Some((cell, walk_failed)) => prepare_break(world, bot, cell, walk_failed),
        }
    }
}

/// Records the item entities near the block being broken (or just broken) as its drops.
fn watch_drops(c: &mut Collecting, bot: Entity, items: &Query<(&SeenBy, &WorldEntity, &EntityPosition, &ItemEntity)>) {
    if c.current.is_none() {
        return;
    }
    let mut seen: Vec<u64> = Vec::new();
    for (by, w, p, item) in items {
        if by.0 != bot {
            continue;
        }
        seen.push(w.runtime_id);
        if let Some(d) = c.drops.iter_mut().find(|d| d.runtime_id == w.runtime_id) {
            d.pos = p.0;
            continue;
        }
        c.take_as_drop(w.runtime_id, &item.name, item.count, p.0, false);
    }
    for d in &mut c.drops {
        if !d.picked && !seen.contains(&d.runtime_id) {
            d.gone = true;
        }
    }
}

/// Whether the drops of the block being broken are being watched.
fn watching(stage: &Stage) -> bool {
    match stage {
        Stage::Mine(m) => matches!(m.phase, MinePhase::Predicted(_) | MinePhase::Confirmed(_)),
        Stage::Pickup(_) => true,
        _ => false,
    }
}

/// What a tick decided.
enum Next {
    Stay,
    Go(MovementIntent),
    End(ActionStatus, &'static str),
}

/// Advances every collect one tick: walks, breaks, pickups, and the end.
#[allow(clippy::type_complexity)]
pub fn step_collects(
    mut commands: Commands,
    ticks: Res<TickCount>,
    mut packets: MessageReader<ClientboundPacket>,
    mut picked: MessageReader<ItemPickedUp>,
    mut changed: MessageReader<BlockChanged>,
    mut bots: Query<(
        Entity,
        &mut Collecting,
        (&mut MineTrace, &mut InputExtras, &InventoryJobs, &mut Connection, &EntityIds),
        (&Position, &Mover, &mut MovementIntent, &ChunkWorld, &BlockIds),
        (Option<&Inventory>, Option<&ActiveActions>),
    )>,
    items: Query<(&SeenBy, &WorldEntity, &EntityPosition, &ItemEntity)>,
) {
    let now = ticks.0;
    for pkt in packets.read() {
        let Ok((_, mut c, (mut trace, ..), (_, _, _, world, ids), _)) = bots.get_mut(pkt.bot) else { continue };
        if let Stage::Mine(m) = &mut c.stage {
            let updates = block_updates(pkt);
            observe_mining(m, &mut trace, &updates, world, Some(ids), now);
        }
    }
    for p in picked.read() {
        let Ok((_, mut c, ..)) = bots.get_mut(p.bot) else { continue };
        if !p.by_self || !watching(&c.stage) {
            continue;
        }
        let c = &mut *c;
        if let Some(d) = c.drops.iter_mut().find(|d| d.runtime_id == p.item_runtime_id) {
            d.picked = true;
        } else if let (Some(item), Some(pos)) = (&p.item, p.position) {
            c.take_as_drop(p.item_runtime_id, &item.name, item.count, pos, true);
        }
        if let Stage::Pickup(pu) = &mut c.stage {
            pu.last_pick = Some(now);
        }
    }
    let changed: Vec<BlockChanged> = changed.read().copied().collect();
    for (
        bot,
        mut c,
        (mut trace, mut input, jobs, mut conn, eids),
        (pos, mover, mut intent, world, ids),
        (inv, actions),
    ) in &mut bots
    {
        let c = &mut *c;
        if matches!(c.stage, Stage::Ending) {
            continue;
        }
        c.now = now;
        if watching(&c.stage) {
            watch_drops(c, bot, &items);
        }
        let feet = pos.0;
        let gained = c.gained(inv);
        let next = if gained >= c.count {
            Next::End(ActionStatus::Done, "")
        } else if actions.is_some_and(|a| a.is_busy(WALK_SLOT.name)) {
            Next::End(ActionStatus::Failed, "walk_started")
        } else if now >= c.limit {
            Next::End(ActionStatus::Failed, "time_limit")
        } else {
            match &mut c.stage {
                Stage::Choose | Stage::Reach { .. } | Stage::Ending => Next::Stay,
                Stage::Approach { cell, nav } => {
                    let cell = *cell;
                    if changed.iter().any(|ch| ch.bot == bot && ch.pos == cell) {
                        // The block changed on the way (mined by someone else?): choose again.
                        c.stage = Stage::Choose;
                        Next::Stay
                    } else {
                        nav.now = now;
                        let changes: Vec<[i32; 3]> =
                            changed.iter().filter(|ch| ch.bot == bot).map(|ch| ch.pos).collect();
                        match nav.tick(feet, mover, world, ids, &changes, &mut Vec::new()) {
                            Tick::Go(i) => Next::Go(i),
                            Tick::Wait => Next::Stay,
                            Tick::Arrived => {
                                c.stage = Stage::Reach { cell, walk_failed: None };
                                Next::Stay
                            }
                            Tick::Fail(reason) => {
                                c.stage = Stage::Reach { cell, walk_failed: Some(format!("walk: {reason}")) };
                                Next::Stay
                            }
                            Tick::Work(_) => {
                                let why = "walk: the way needs a door opened or a block changed".to_owned();
                                c.stage = Stage::Reach { cell, walk_failed: Some(why) };
                                Next::Stay
                            }
                        }
                    }
                }
                Stage::Mine(m) => {
                    let ended = advance_mining(m, &mut trace, &mut input, jobs, &mut conn, eids.runtime_id, now);
                    if std::mem::take(&mut m.needs_retime) {
                        let cell = m.pos;
                        commands.queue(move |world: &mut World| {
                            let (expected, tool) = retimed(world, bot, cell);
                            if let Some(mut c) = world.get_mut::<Collecting>(bot)
                                && let Stage::Mine(m) = &mut c.stage
                            {
                                m.expected_ticks = expected.unwrap_or(m.expected_ticks);
                                m.tool = tool;
                            }
                        });
                    }
                    let look = look_angles(feet.offset_y(EYE_HEIGHT), face_centre(m.pos, m.face));
                    match ended {
                        None => Next::Go(MovementIntent { look: Some(look), ..MovementIntent::default() }),
                        Some((ActionStatus::Done, _)) => {
                            c.mined.push(MinedBlock {
                                x: m.pos[0],
                                y: m.pos[1],
                                z: m.pos[2],
                                block: m.block.clone(),
                                tool: m.tool.clone(),
                            });
                            c.stage = Stage::Pickup(Pickup {
                                since: now,
                                walk: None,
                                arrived: None,
                                last_pick: None,
                                gained_before: gained,
                            });
                            watch_drops(c, bot, &items);
                            Next::Stay
                        }
                        Some((status, reason)) => {
                            let why = reason.unwrap_or_else(|| format!("{status:?}").to_lowercase());
                            let (cell, block) = (m.pos, m.block.clone());
                            c.skip(cell, block, "dig_refused", format!("break: {why}"));
                            Next::Stay
                        }
                    }
                }
                Stage::Pickup(_) => step_pickup(c, now, gained, feet, mover, world, ids, &changed, bot),
            }
        };
        match next {
            Next::Stay => {}
            Next::Go(i) => *intent = i,
            Next::End(status, reason) => {
                c.stage = Stage::Ending;
                let reason = (!reason.is_empty()).then(|| reason.to_owned());
                commands.end_action(bot, COLLECT_SLOT.name, status, reason);
            }
        }
    }
}

/// One tick of waiting for (or walking onto) the drops of the block just broken.
#[allow(clippy::too_many_arguments)]
fn step_pickup(
    c: &mut Collecting,
    now: u64,
    gained: u32,
    feet: Vec3,
    mover: &Mover,
    world: &ChunkWorld,
    ids: &BlockIds,
    changed: &[BlockChanged],
    bot: Entity,
) -> Next {
    let Stage::Pickup(p) = &mut c.stage else { return Next::Stay };
    let pending: Vec<&Drop> = c.drops.iter().filter(|d| d.pending()).collect();
    let give_up = |c: &mut Collecting| {
        let left: u32 = c.drops.iter().filter(|d| d.pending()).map(|d| u32::from(d.count)).sum();
        c.drops_left += left;
        for d in &mut c.drops {
            d.gone |= !d.picked;
        }
    };
    if pending.is_empty() {
        if c.drops.is_empty() && now < p.since + DROP_APPEAR_TICKS {
            return Next::Stay;
        }
        // Every drop taken: wait for the inventory to show it (or a while).
        let taken: u32 = c.drops.iter().filter(|d| d.picked).map(|d| u32::from(d.count)).sum();
        let settled = gained >= p.gained_before + taken || p.last_pick.is_none_or(|t| now >= t + SETTLE_TICKS);
        if !settled {
            return Next::Stay;
        }
        c.dropless = if c.drops.is_empty() { c.dropless + 1 } else { 0 };
        if c.dropless >= MAX_DROPLESS {
            return Next::End(ActionStatus::Failed, "no_drop");
        }
        c.stage = Stage::Choose;
        return Next::Stay;
    }
    if let Some(at) = p.arrived {
        if now >= at + PICKUP_WAIT {
            give_up(c);
            c.stage = Stage::Choose;
        }
        return Next::Stay;
    }
    if now < p.since + PICKUP_WAIT {
        return Next::Stay;
    }
    if p.walk.is_none() {
        let Some(target) = pending.iter().min_by(|a, b| a.pos.distance(feet).total_cmp(&b.pos.distance(feet))) else {
            return Next::Stay;
        };
        let goal = Goal::Near { x: target.pos.x, y: target.pos.y, z: target.pos.z, range: DROP_REACH };
        let req = Request::from_feet(feet, goal, Options::default());
        p.walk = Some(Box::new(Navigator::planned(req, now, mover.teleports, world, ids)));
    }
    let Some(nav) = p.walk.as_mut() else { return Next::Stay };
    nav.now = now;
    let changes: Vec<[i32; 3]> = changed.iter().filter(|ch| ch.bot == bot).map(|ch| ch.pos).collect();
    match nav.tick(feet, mover, world, ids, &changes, &mut Vec::new()) {
        Tick::Go(i) => Next::Go(i),
        Tick::Wait => Next::Stay,
        Tick::Arrived => {
            p.walk = None;
            p.arrived = Some(now);
            Next::Stay
        }
        Tick::Fail(_) | Tick::Work(_) => {
            tracing::debug!("collect: no way onto the drop, leaving it");
            give_up(c);
            c.stage = Stage::Choose;
            Next::Stay
        }
    }
}

/// Gives the hand back when a collect ended (however it ended), and calls off a break in
/// progress at the server.
#[allow(clippy::type_complexity)]
pub fn release_hand(
    mut commands: Commands,
    mut removed: RemovedComponents<Collecting>,
    mut bots: Query<(&mut MineTrace, Option<&Mining>, &mut InputExtras, Option<&HandBorrowed>), Without<Collecting>>,
) {
    for bot in removed.read() {
        let Ok((mut trace, running, mut input, borrowed)) = bots.get_mut(bot) else { continue };
        if running.is_none() {
            call_off_break(&mut trace, &mut input);
        }
        if borrowed.is_some_and(|h| h.0 == COLLECT_SLOT.name) {
            commands.entity(bot).remove::<HandBorrowed>();
        }
    }
}
