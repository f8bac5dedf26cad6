//! The world-changing steps of a walk — open a door, dig through, bridge, pillar up — run as
//! sub-steps the walk owns, through the interaction layer's own code: the state of a `mine`,
//! `place` or `interact` ([`Mining`], [`Placing`], [`Interacting`]) is made by the same
//! `prepare_*` function and advanced by the same `observe_*`/`advance_*` functions as the
//! actions of those commands, but it lives inside the walk, so the walk stays one action with one
//! `walk_done` (the hand is lent to it meanwhile: [`HandBorrowed`] makes hand actions `BUSY`).
//!
//! Per tick, in `ActionSet::Step`: the walk's step decides what its current world step still
//! needs ([`drive`]: the first blocking door panel, the next block in the way, the block below
//! the next cell or the feet) and moves the body for it (stand and look, sneak to the edge, jump);
//! [`start_work`] (exclusive: it needs the whole world, as a command does) prepares the
//! sub-step; [`advance_work`] feeds it this tick's block updates and advances it, in the same
//! tick. A sub-step that ends `done` adds its evidence to the walk's `changed`; one that fails
//! ends the walk `failed` with the reason.

use bevy_ecs::prelude::*;
use clawcraft_core::{
    ActionStatus, ActiveActions, AsyncAction, CommandError, EYE_HEIGHT, EndActionExt, EntityIds, Position, TickCount,
    Vec3,
};
use clawcraft_interact::block_use::{Interacting, advance_interacting, observe_interacting, prepare_interact};
use clawcraft_interact::common::{HAND_SLOTS, HandBorrowed, Senses, aim_at, face_centre, look_angles};
use clawcraft_interact::mine::{
    MineTrace, Mining, advance_mining, call_off_break, observe_mining, prepare_mine, retimed,
};
use clawcraft_interact::place::{PlaceTrace, Placing, advance_placing, observe_placing, prepare_place, send_stop};
use clawcraft_inventory::{Inventory, InventoryJobs};
use clawcraft_movement::{MovementIntent, Mover};

use crate::slot::BlockChange;
use clawcraft_network::{ClientboundPacket, Connection};
use clawcraft_player::InputExtras;
use clawcraft_world::chunk::{BlockLookup, World as ChunkWorld};
use clawcraft_world::ids::BlockIds;
use clawcraft_world::raycast::Face;

use crate::grid::{NavCell, NavTable};
use crate::search::{MoveKind, dig_cells};
use crate::walk::{FollowAction, Navigator, WalkAction};

/// Blocks a walk may place to pillar and bridge, most expendable first (any `*_planks` after
/// these).
pub const SCAFFOLD_BLOCKS: [&str; 15] = [
    "dirt",
    "coarse_dirt",
    "cobblestone",
    "cobbled_deepslate",
    "netherrack",
    "stone",
    "andesite",
    "diorite",
    "granite",
    "tuff",
    "deepslate",
    "blackstone",
    "end_stone",
    "sandstone",
    "red_sandstone",
];
/// Ticks a bridge step may spend edging forward before the supporting face comes in sight.
const APPROACH_TICKS: u32 = 40;
/// How far (blocks, horizontally) from its column's centre the body may be to dig down: the
/// body (0.6 wide) is then inside the column, clear of the blocks beside the hole.
const CENTRED: f64 = 0.15;
/// Jumps a pillar step may take before giving up (a jump that lands without a block placed).
const PILLAR_JUMPS: u32 = 3;

/// The block item a walk places: the first of [`SCAFFOLD_BLOCKS`] the inventory holds, else any
/// planks.
pub fn scaffold_block(inv: &Inventory) -> Option<String> {
    SCAFFOLD_BLOCKS
        .iter()
        .find(|n| inv.count_of(n) > 0)
        .map(|n| format!("minecraft:{n}"))
        .or_else(|| inv.indexed().map(|(_, it)| it.name.to_string()).find(|n| n.ends_with("_planks")))
}

/// Why a walk that must place cannot.
pub fn no_scaffold() -> String {
    format!("no block to place in the inventory (one of {}, or planks)", SCAFFOLD_BLOCKS.join(", "))
}

/// A sub-step the walk wants made (by [`start_work`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Want {
    Open([i32; 3]),
    Mine([i32; 3]),
    Place { cell: [i32; 3], face: Option<Face> },
}

/// Where a world step is.
#[derive(Debug)]
pub enum Stage {
    /// Deciding (or moving into position).
    Idle,
    /// A sub-step to prepare this tick.
    Want(Want),
    Open(Box<Interacting>),
    Mine(Box<Mining>),
    Place(Box<Placing>),
}

/// The world step a walk is working on.
#[derive(Debug)]
pub struct Work {
    /// Its index in the path.
    pub step: usize,
    pub stage: Stage,
    /// When the current sub-step began (for the evidence's ticks).
    since: u64,
    /// Ticks spent edging toward a bridge's supporting face.
    approach: u32,
    /// The last reason a bridge's face was not usable yet.
    approach_error: Option<String>,
    /// Doors toggled for this step (a second toggle would close it again).
    toggles: u32,
    /// Pillar jumps taken.
    jumps: u32,
    airborne: bool,
}

impl Work {
    pub fn new(step: usize) -> Self {
        Self {
            step,
            stage: Stage::Idle,
            since: 0,
            approach: 0,
            approach_error: None,
            toggles: 0,
            jumps: 0,
            airborne: false,
        }
    }

    /// Whether a sub-step (or its preparation) is under way.
    pub fn busy(&self) -> bool {
        !matches!(self.stage, Stage::Idle)
    }

    /// The point the running sub-step clicks.
    fn aim(&self) -> Option<Vec3> {
        match &self.stage {
            Stage::Open(a) => Some(a.aim_point()),
            Stage::Mine(m) => Some(face_centre(m.pos, m.face)),
            Stage::Place(p) => Some(p.aim_point()),
            Stage::Idle | Stage::Want(_) => None,
        }
    }
}

/// The navigation cell of the block at `c` in the bot's world.
fn cell_at(world: &ChunkWorld, ids: &BlockIds, c: [i32; 3]) -> NavCell {
    match world.get_block(c[0], c[1], c[2]) {
        BlockLookup::Loaded(id, _) => {
            let table = NavTable::of(&ids.0.registry);
            ids.0.map.state(id).map_or(NavCell::STONE, |s| table.cell(s))
        }
        BlockLookup::Unloaded => NavCell::UNKNOWN,
    }
}

/// Notes a cell the walk itself changes (its block update is no reason to re-plan).
fn expect(expected: &mut Vec<[i32; 3]>, c: [i32; 3]) {
    if !expected.contains(&c) {
        expected.push(c);
    }
}

/// What [`drive`] decided for this tick.
pub enum Drive {
    /// Move (or stand) like this.
    Go(MovementIntent),
    /// The step's world change is done: walk it.
    Cleared,
    Fail(String),
}

/// Looking at `point` from the feet at `feet`, standing still.
fn look_at(feet: Vec3, point: Vec3, sneak: bool) -> MovementIntent {
    MovementIntent { look: Some(look_angles(feet.offset_y(EYE_HEIGHT), point)), sneak, ..MovementIntent::default() }
}

/// One tick of the world step `nav.path[i]`: what it still needs and how the body moves for it.
pub fn drive(nav: &mut Navigator, i: usize, feet: Vec3, mover: &Mover, world: &ChunkWorld, ids: &BlockIds) -> Drive {
    let s = nav.path[i];
    let prev = nav.path[i.saturating_sub(1)];
    let work = nav.work.get_or_insert_with(|| Work::new(i));
    let expected = &mut nav.expected;
    if let Some(point) = work.aim() {
        let sneak = s.kind == MoveKind::Bridge;
        return Drive::Go(look_at(feet, point, sneak));
    }
    if matches!(work.stage, Stage::Want(_)) {
        // Being prepared: a bridge keeps edging forward until its face is in sight.
        return Drive::Go(MovementIntent::default());
    }
    let cell = |c: [i32; 3]| cell_at(world, ids, c);
    match s.kind {
        MoveKind::Door => {
            let (dx, dz) = ((s.x - prev.x).signum(), (s.z - prev.z).signum());
            let here = [prev.x, s.y, prev.z];
            let there = [s.x, s.y, s.z];
            let blocking = [(here, dx, dz), (there, -dx, -dz)].into_iter().find(|&(c, dx, dz)| {
                let n = cell(c);
                n.has(NavCell::DOOR) && !n.crosses(dx, dz)
            });
            match blocking {
                None => Drive::Cleared,
                Some(_) if work.toggles >= 1 => {
                    Drive::Fail(format!("the door at {} {} {} still blocks the way after opening it", s.x, s.y, s.z))
                }
                Some((c, ..)) => {
                    expect(expected, c);
                    expect(expected, [c[0], c[1] + 1, c[2]]);
                    work.stage = Stage::Want(Want::Open(c));
                    Drive::Go(MovementIntent::default())
                }
            }
        }
        MoveKind::Dig => {
            let (from, to) = ([prev.x, prev.y, prev.z], [s.x, s.y, s.z]);
            let in_way = dig_cells(from, to).into_iter().find(|&c| !cell(c).body_fits());
            match in_way {
                None => Drive::Cleared,
                Some(c) => {
                    let target = s.target();
                    let off = ((feet.x - target[0]).powi(2) + (feet.z - target[2]).powi(2)).sqrt();
                    if (s.x, s.z) == (prev.x, prev.z) && off > CENTRED {
                        // Digging down: the whole body over the hole first, or it stays up on
                        // the edge of the next block.
                        let mut intent = MovementIntent::toward(feet, Vec3::new(target[0], feet.y, target[2]));
                        intent.sneak = true;
                        return Drive::Go(intent);
                    }
                    expect(expected, c);
                    work.stage = Stage::Want(Want::Mine(c));
                    Drive::Go(MovementIntent::default())
                }
            }
        }
        MoveKind::Bridge => {
            let below = [s.x, s.y - 1, s.z];
            let floor = cell(below);
            if floor.has(NavCell::SOLID) && floor.top >= 16 {
                return Drive::Cleared;
            }
            if work.approach >= APPROACH_TICKS {
                let why = work.approach_error.clone().unwrap_or_else(|| "no face to place against".into());
                return Drive::Fail(format!("cannot bridge to {} {} {}: {why}", s.x, s.y, s.z));
            }
            work.approach += 1;
            expect(expected, below);
            work.stage = Stage::Want(Want::Place { cell: below, face: None });
            // Edge forward, sneaking (the sneak stops at the edge), until the face is in sight.
            let target = s.target();
            let direction = clawcraft_movement::yaw_toward(target[0] - feet.x, target[2] - feet.z);
            Drive::Go(MovementIntent { direction: Some(direction), sneak: true, ..MovementIntent::default() })
        }
        MoveKind::Pillar => {
            let below = [s.x, s.y - 1, s.z];
            let floor = cell(below);
            if floor.has(NavCell::SOLID) && floor.top >= 16 {
                return Drive::Cleared;
            }
            let base = f64::from(prev.feet);
            let state = &mover.state;
            if !state.on_ground {
                work.airborne = true;
                // High enough that the new block misses the body: place it under the feet.
                if feet.y >= f64::from(s.y) + 0.01 {
                    expect(expected, below);
                    work.stage = Stage::Want(Want::Place { cell: below, face: Some(Face::Up) });
                }
                return Drive::Go(MovementIntent { look: Some((0.0, 89.0)), ..MovementIntent::default() });
            }
            if work.airborne {
                // Landed without a block placed.
                work.airborne = false;
                if work.jumps >= PILLAR_JUMPS {
                    return Drive::Fail(format!(
                        "pillar at {} {} {}: no block placed in {} jumps",
                        s.x, s.y, s.z, work.jumps
                    ));
                }
            }
            // A ceiling over the head (planned with dig): mined from the ground first.
            let ceiling = [s.x, s.y + 1, s.z];
            if !cell(ceiling).body_fits() {
                expect(expected, ceiling);
                work.stage = Stage::Want(Want::Mine(ceiling));
                return Drive::Go(MovementIntent::default());
            }
            let target = s.target();
            let off = ((feet.x - target[0]).powi(2) + (feet.z - target[2]).powi(2)).sqrt();
            if off > 0.2 || (feet.y - base).abs() > 0.1 {
                // Centre on the column first.
                let mut intent = MovementIntent::toward(feet, Vec3::new(target[0], feet.y, target[2]));
                intent.sneak = off < 0.5;
                return Drive::Go(intent);
            }
            work.jumps += 1;
            Drive::Go(MovementIntent { jump: true, look: Some((0.0, 89.0)), ..MovementIntent::default() })
        }
        _ => Drive::Cleared,
    }
}

/// The walk-like actions that own world steps.
pub trait Navigates: Component<Mutability = bevy_ecs::component::Mutable> + AsyncAction {
    fn nav(&self) -> &Navigator;
    fn nav_mut(&mut self) -> &mut Navigator;
}

impl Navigates for WalkAction {
    fn nav(&self) -> &Navigator {
        &self.nav
    }
    fn nav_mut(&mut self) -> &mut Navigator {
        &mut self.nav
    }
}

impl Navigates for FollowAction {
    fn nav(&self) -> &Navigator {
        &self.nav
    }
    fn nav_mut(&mut self) -> &mut Navigator {
        &mut self.nav
    }
}

/// Prepares the sub-steps walks want this tick, with the whole world as a command has it: the
/// same checks, aim, item choice and turn as `interact`, `mine` and `place`.
pub fn start_work<A: Navigates>(world: &mut World) {
    let mut q = world.query::<(Entity, &A)>();
    let wanted: Vec<(Entity, usize, Want)> = q
        .iter(world)
        .filter_map(|(bot, a)| {
            let w = a.nav().work.as_ref()?;
            match w.stage {
                Stage::Want(want) => Some((bot, w.step, want)),
                _ => None,
            }
        })
        .collect();
    for (bot, step, want) in wanted {
        let prepared = prepare(world, bot, want);
        let kind = world.get::<A>(bot).map(|a| a.nav().path[step].kind);
        let now = world.get_resource::<TickCount>().map_or(0, |t| t.0);
        let Some(mut action) = world.get_mut::<A>(bot) else { continue };
        let Some(work) = action.nav_mut().work.as_mut() else { continue };
        match prepared {
            Ok(stage) => {
                work.stage = stage;
                work.since = now;
                world.entity_mut(bot).insert(HandBorrowed(A::SLOT.name));
            }
            // A bridge's face may not be in sight yet: edge on and try again next tick.
            Err(e) if kind == Some(MoveKind::Bridge) && is_aim_error(&e) => {
                work.approach_error = Some(e.message.clone());
                work.stage = Stage::Idle;
            }
            Err(e) => {
                let reason = format!("{}: {}", what(want), e.message);
                clawcraft_core::end_action(world, bot, A::SLOT.name, ActionStatus::Failed, Some(reason));
            }
        }
    }
}

fn is_aim_error(e: &CommandError) -> bool {
    matches!(e.code, "NO_LINE_OF_SIGHT" | "OUT_OF_REACH" | "NO_SUPPORT" | "OCCUPIED")
}

fn what(want: Want) -> String {
    let (verb, c) = match want {
        Want::Open(c) => ("cannot open the door at", c),
        Want::Mine(c) => ("cannot dig through", c),
        Want::Place { cell, .. } => ("cannot place a block at", cell),
    };
    format!("{verb} {} {} {}", c[0], c[1], c[2])
}

/// `interact`/`mine`/`place`'s preparation for a wanted sub-step.
fn prepare(world: &mut World, bot: Entity, want: Want) -> Result<Stage, CommandError> {
    if let Some(actions) = world.get::<ActiveActions>(bot) {
        for slot in HAND_SLOTS {
            if let Some(a) = actions.slots.get(slot) {
                return Err(CommandError::busy(&format!("the hand is busy: {} (id {})", a.command, a.id), a.abort));
            }
        }
    }
    match want {
        Want::Open(c) => {
            let s = Senses::of_bot(world, bot)?;
            let id = s.id_at(c)?;
            let aim = aim_at(&s, c, None)?;
            let name = s.name(id);
            drop(s);
            Ok(Stage::Open(Box::new(prepare_interact(world, bot, c, aim, id, name)?)))
        }
        Want::Mine(c) => {
            let mut m = prepare_mine(world, bot, c, None, true)?;
            m.wait_for_drops = false;
            Ok(Stage::Mine(Box::new(m)))
        }
        Want::Place { cell, face } => {
            let inv = world.get::<Inventory>(bot).ok_or_else(CommandError::not_spawned)?;
            let item = scaffold_block(inv).ok_or_else(|| CommandError::new("NO_ITEM", no_scaffold()))?;
            Ok(Stage::Place(Box::new(prepare_place(world, bot, cell, Some(&item), face)?)))
        }
    }
}

/// Advances the running sub-steps of walks one tick (this tick's block updates first), records
/// what they changed, ends the walk when one fails.
#[allow(clippy::type_complexity)]
pub fn advance_work<A: Navigates>(
    mut commands: Commands,
    mut packets: MessageReader<ClientboundPacket>,
    mut bots: Query<(
        Entity,
        &mut A,
        (&mut MineTrace, &mut PlaceTrace, &mut InputExtras, &InventoryJobs, &Inventory),
        (&mut Connection, &EntityIds, &Position, &ChunkWorld, Option<&BlockIds>),
    )>,
    ticks: Res<TickCount>,
) {
    let now = ticks.0;
    let packets: Vec<&ClientboundPacket> = packets.read().collect();
    for (bot, mut action, (mut trace, mut place_trace, mut input, jobs, inv), (mut conn, eids, pos, world, ids)) in
        &mut bots
    {
        let Some(work) = action.nav_mut().work.as_mut() else { continue };
        let updates: Vec<_> = packets
            .iter()
            .filter(|p| p.bot == bot)
            .flat_map(|p| clawcraft_interact::common::block_updates(p))
            .collect();
        let rid = eids.runtime_id;
        let (ended, change) = match &mut work.stage {
            Stage::Open(a) => {
                observe_interacting(a, &updates, ids);
                let ended = advance_interacting(a, inv, &mut conn, rid, pos.0, now);
                let change = BlockChange::new("opened", a.block.clone(), a.pos, None, now.saturating_sub(work.since));
                (ended, change)
            }
            Stage::Mine(m) => {
                observe_mining(m, &mut trace, &updates, world, ids, now);
                let ended = advance_mining(m, &mut trace, &mut input, jobs, &mut conn, rid, now);
                if std::mem::take(&mut m.needs_retime) {
                    let pos = m.pos;
                    commands.queue(move |world: &mut World| {
                        let (expected, tool) = retimed(world, bot, pos);
                        if let Some(mut a) = world.get_mut::<A>(bot)
                            && let Some(Work { stage: Stage::Mine(m), .. }) = a.nav_mut().work.as_mut()
                        {
                            m.expected_ticks = expected.unwrap_or(m.expected_ticks);
                            m.tool = tool;
                        }
                    });
                }
                let change =
                    BlockChange::new("mined", m.block.clone(), m.pos, m.tool.clone(), now.saturating_sub(work.since));
                (ended, change)
            }
            Stage::Place(p) => {
                observe_placing(p, &updates, world, ids, now);
                let ended = advance_placing(p, inv, &mut conn, rid, pos.0, jobs, now);
                if ended.is_some() && p.use_open() {
                    send_stop(p, &mut conn, rid);
                }
                place_trace.follow(p);
                let change = BlockChange::new(
                    "placed",
                    p.block.clone().unwrap_or_default(),
                    p.pos,
                    Some(p.item.clone()),
                    now.saturating_sub(work.since),
                );
                (ended, change)
            }
            Stage::Idle | Stage::Want(_) => continue,
        };
        let Some((status, reason)) = ended else { continue };
        commands.entity(bot).remove::<HandBorrowed>();
        if status == ActionStatus::Done {
            if change.change == "opened" {
                work.toggles += 1;
            }
            work.stage = Stage::Idle;
            action.nav_mut().changed.push(change);
        } else {
            let what = match change.change {
                "opened" => format!("cannot open {}", change.block),
                "mined" => format!("cannot dig through {}", change.block),
                _ => format!("cannot place {}", change.item.clone().unwrap_or_default()),
            };
            let why = reason.unwrap_or_else(|| format!("{status:?}").to_lowercase());
            let reason = format!("{what} at {} {} {}: {why}", change.x, change.y, change.z);
            commands.end_action(bot, A::SLOT.name, ActionStatus::Failed, Some(reason));
        }
    }
}

/// A walk that ended (aborted, timed out, died, failed) in the middle of a break calls it off at
/// the server, closes a placement's use still open, and gives the hand back.
#[allow(clippy::type_complexity)]
pub fn release_hand<A: Navigates>(
    mut commands: Commands,
    mut removed: RemovedComponents<A>,
    mut bots: Query<(
        (&mut MineTrace, Option<&Mining>, &mut InputExtras, Has<HandBorrowed>),
        (&mut PlaceTrace, Option<&Placing>, &mut Connection, &EntityIds),
    )>,
) {
    for bot in removed.read() {
        let Ok(((mut trace, running, mut input, borrowed), (mut place, placing, mut conn, ids))) = bots.get_mut(bot)
        else {
            continue;
        };
        if running.is_none() {
            call_off_break(&mut trace, &mut input);
        }
        if placing.is_none() {
            place.close(&mut conn, ids.runtime_id);
        }
        if borrowed {
            commands.entity(bot).remove::<HandBorrowed>();
        }
    }
}
