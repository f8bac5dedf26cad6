//! `harvest`: break mature crops only — the one at x,y,z (an immature one is refused with
//! `NOT_MATURE`, naming its growth), or every mature crop within reach (`radius`), immature ones
//! left standing and listed — and, with `replant`, plant the crop's seed on each soil again.
//!
//! Each crop is broken the way `mine` breaks a block (crops break at once: `start_break` and
//! `predict_break` in one PlayerAuthInput) and counts only when the server's block update shows
//! it gone; a replant is the `click_block` transaction of `plant` on the soil's top face, counted
//! when the server shows the crop back. `harvest_done` lists what was harvested (with its growth),
//! replanted, skipped, and the items the server gave us (TakeItemEntity) while it ran.

use std::collections::VecDeque;

use bevy_ecs::prelude::*;
use bevy_ecs::world::EntityRef;
use clawcraft_core::{
    ActionSlot, ActionStatus, AgentCommand, AsyncAction, AsyncInfo, CommandCtx, CommandError, EYE_HEIGHT, EndActionExt,
    EntityIds, Outcome, Position, TickCount,
};
use clawcraft_entity::ItemPickedUp;
use clawcraft_interact::common::{
    Aim, BlockXyz, Senses, block_updates, cell_of, click_block, hand_free, hold_item, inventory, neighbour, swing,
};
use clawcraft_interact::mine::{MineTrace, Mining, Phase as MinePhase, advance_mining, observe_mining, prepare_mine};
use clawcraft_interact::use_slot::USE_SLOT;
use clawcraft_inventory::{Inventory, InventoryJobs};
use clawcraft_network::{ClientboundPacket, Connection};
use clawcraft_player::InputExtras;
use clawcraft_world::chunk::World as BlockWorld;
use clawcraft_world::ids::BlockIds;
use clawcraft_world::raycast::Face;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::crops::{Crop, crop, int_state};
use crate::tend::top_face;
use clawcraft_core::bare_name;

/// Ticks to wait for the server to show a replanted crop.
const REPLANT_TICKS: u64 = 20;
/// Ticks after the last crop to wait at most for the drops to be picked up.
const PICKUP_TICKS: u64 = 40;
/// The drops are in once nothing more was picked up for this long (and as long after the last
/// crop): a server gives a drop within half a second.
const QUIET_TICKS: u64 = 12;
/// The largest `radius` (the hand's reach).
const MAX_RADIUS: i64 = 5;

/// A crop the action harvested or left.
#[derive(Serialize, JsonSchema, Debug, Clone, PartialEq)]
pub struct CropSeen {
    pub x: i32,
    pub y: i32,
    pub z: i32,
    pub block: String,
    /// Its growth state when the action started.
    pub growth: i64,
    /// The growth at which it is mature.
    pub mature: i64,
}

/// An item the server gave us while the action ran.
#[derive(Serialize, JsonSchema, Debug, Clone, PartialEq)]
pub struct Gained {
    pub name: String,
    pub count: u16,
}

#[derive(Debug, Clone)]
enum Step {
    /// The seeds are being swapped from the main inventory into the hand (inventory job id).
    Equip(u64),
    Break(Box<Mining>),
    /// The replant click went out at this tick.
    Replant(u64),
    /// Waiting for the drops after the last crop, since this tick.
    Collect(u64),
}

/// One crop to harvest.
#[derive(Debug, Clone)]
struct Target {
    crop: CropSeen,
    mining: Mining,
    soil_aim: Option<Aim>,
}

/// The running `harvest` action.
#[derive(Component, Debug, Clone)]
pub struct Harvesting {
    queue: VecDeque<Target>,
    current: Option<(CropSeen, Option<Aim>)>,
    step: Option<Step>,
    trace: MineTrace,
    replant: bool,
    pub harvested: Vec<CropSeen>,
    pub replanted: Vec<BlockXyz>,
    pub skipped: Vec<CropSeen>,
    pub gained: Vec<Gained>,
    /// Why a crop failed (the first failure).
    failure: Option<String>,
    /// A replant shown by the server.
    replant_seen: bool,
    /// When the last pickup came.
    last_gain: Option<u64>,
}

/// `harvest_done`.
#[derive(Serialize, JsonSchema, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct HarvestDone {
    /// Crops the server showed broken.
    pub harvested: Vec<CropSeen>,
    /// Soils the server showed replanted.
    pub replanted: Vec<BlockXyz>,
    /// Immature crops left standing (area harvest).
    pub skipped: Vec<CropSeen>,
    /// Items the server gave us (picked up) while it ran.
    pub gained: Vec<Gained>,
    /// True when every crop attempted was confirmed broken.
    pub confirmed: bool,
}
clawcraft_core::evidence!(
    HarvestDone,
    "harvest_done",
    "A harvest ended: harvested = mature crops the server showed broken (with growth), replanted soils, skipped immature crops, gained = items picked up"
);

impl AsyncAction for Harvesting {
    const SLOT: ActionSlot = USE_SLOT;
    type Evidence = HarvestDone;

    fn evidence(&self, _outcome: &Outcome, _bot: EntityRef<'_>) -> HarvestDone {
        HarvestDone {
            harvested: self.harvested.clone(),
            replanted: self.replanted.clone(),
            skipped: self.skipped.clone(),
            gained: self.gained.clone(),
            confirmed: self.failure.is_none() && !self.harvested.is_empty(),
        }
    }
}

/// `harvest`.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Harvest {
    /// One crop (all three), or none for every mature crop within `radius`.
    pub x: Option<f64>,
    pub y: Option<f64>,
    pub z: Option<f64>,
    /// Blocks around the feet to look for crops (default 4, at most 5).
    pub radius: Option<i64>,
    /// Plant the crop's seed on each harvested soil again (default false).
    #[serde(default)]
    pub replant: bool,
}

/// Response of `harvest`.
#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct HarvestResponse {
    /// True: the harvest started (the verdict is `harvest_done`).
    pub harvesting: bool,
    /// The mature crops to break, nearest first.
    pub crops: Vec<CropSeen>,
    /// Immature crops left standing.
    pub skipped: Vec<CropSeen>,
}

fn seen(cell: [i32; 3], block: &str, c: &Crop, growth: i64) -> CropSeen {
    CropSeen { x: cell[0], y: cell[1], z: cell[2], block: block.to_owned(), growth, mature: c.mature }
}

/// The crop at `cell` with its growth, if one stands there.
fn crop_at(s: &Senses<'_>, cell: [i32; 3]) -> Result<Option<CropSeen>, CommandError> {
    let id = s.id_at(cell)?;
    let name = s.name(id);
    let Some(c) = crop(&name) else { return Ok(None) };
    let growth = s.ids.state(id).and_then(|st| int_state(&st, c.state)).unwrap_or(0);
    Ok(Some(seen(cell, &name, c, growth)))
}

impl AgentCommand for Harvest {
    const NAME: &'static str = "harvest";
    const SUMMARY: &'static str = "Break mature crops only (wheat, carrots, potatoes, beetroot, nether wart: by growth state): the one at x,y,z, or every one within radius; replant:true plants the seed again; async, ends in harvest_done (harvested, replanted, skipped, gained)";
    const EXAMPLE: &'static str = r#"{"action":"harvest","radius":4,"replant":true}"#;
    const ASYNC: Option<AsyncInfo> = Some(AsyncInfo::of::<Harvesting>());
    type Response = HarvestResponse;

    fn run(self, ctx: &mut CommandCtx<'_>) -> Result<HarvestResponse, CommandError> {
        hand_free(ctx)?;
        inventory(ctx)?;
        let s = Senses::of(ctx)?;
        let feet = s.feet;
        let mut mature = Vec::new();
        let mut skipped = Vec::new();
        match (self.x, self.y, self.z) {
            (Some(x), Some(y), Some(z)) => {
                if self.radius.is_some() {
                    return Err(CommandError::invalid_params("give x,y,z or radius, not both"));
                }
                let cell = cell_of(x, y, z)?;
                let Some(c) = crop_at(&s, cell)? else {
                    let name = s.name(s.id_at(cell)?);
                    return Err(CommandError::new("INVALID_TARGET", format!("{name} is not a crop")));
                };
                if c.growth < c.mature {
                    return Err(CommandError::new(
                        "NOT_MATURE",
                        format!(
                            "{} at {} {} {} is at growth {} of {}: not ready",
                            c.block, c.x, c.y, c.z, c.growth, c.mature
                        ),
                    ));
                }
                mature.push(c);
            }
            (None, None, None) => {
                let r = self.radius.unwrap_or(4);
                if !(1..=MAX_RADIUS).contains(&r) {
                    return Err(CommandError::out_of_range(format!("radius must be 1-{MAX_RADIUS}")));
                }
                let r = r as i32;
                let base = [feet.x.floor() as i32, feet.y.floor() as i32, feet.z.floor() as i32];
                for dy in -2..=2 {
                    for dx in -r..=r {
                        for dz in -r..=r {
                            let cell = [base[0] + dx, base[1] + dy, base[2] + dz];
                            let Ok(Some(c)) = crop_at(&s, cell) else { continue };
                            if c.growth >= c.mature { mature.push(c) } else { skipped.push(c) }
                        }
                    }
                }
                if mature.is_empty() {
                    let what = if skipped.is_empty() { "no crop" } else { "no mature crop" };
                    return Err(CommandError::new(
                        "NOT_MATURE",
                        format!("{what} within {r} blocks ({} growing)", skipped.len()),
                    ));
                }
            }
            _ => return Err(CommandError::invalid_params("give x, y and z together (or none with radius)")),
        }
        let centre = |c: &CropSeen| {
            let d = [f64::from(c.x) + 0.5 - feet.x, f64::from(c.y) + 0.5 - feet.y, f64::from(c.z) + 0.5 - feet.z];
            d[0] * d[0] + d[1] * d[1] + d[2] * d[2]
        };
        mature.sort_by(|a, b| centre(a).total_cmp(&centre(b)));
        let soil_aims: Vec<Option<Aim>> =
            mature.iter().map(|c| top_face(&s, neighbour([c.x, c.y, c.z], Face::Down))).collect();
        drop(s);
        let mut queue = VecDeque::new();
        let mut first_error = None;
        for (c, soil_aim) in mature.into_iter().zip(soil_aims) {
            match prepare_mine(ctx.world, ctx.bot, [c.x, c.y, c.z], None, false) {
                Ok(mut mining) => {
                    mining.wait_for_drops = false;
                    queue.push_back(Target { crop: c, mining, soil_aim });
                }
                Err(e) => {
                    first_error.get_or_insert(e);
                }
            }
        }
        if queue.is_empty() {
            return Err(first_error.unwrap_or_else(|| CommandError::new("NOT_MATURE", "nothing to harvest")));
        }
        let mut step = None;
        if self.replant {
            let seed = queue.front().map(|t| crop(&t.crop.block).map_or("", |c| c.seed)).unwrap_or("");
            if inventory(ctx)?.find(seed).is_empty() {
                return Err(CommandError::new("NO_ITEM", format!("No {seed} in the inventory to replant with")));
            }
            // Held from the start: the hand breaks crops as well with seeds in it. Seeds in the
            // main inventory are swapped into the hand first; the breaking waits for the server.
            if let clawcraft_interact::common::Ready::Job(job) = hold_item(ctx, seed)? {
                step = Some(Step::Equip(job));
            }
        }
        let crops: Vec<CropSeen> = queue.iter().map(|t| t.crop.clone()).collect();
        let n = queue.len() as u64;
        let action = Harvesting {
            queue,
            current: None,
            step,
            trace: MineTrace::default(),
            replant: self.replant,
            harvested: Vec::new(),
            replanted: Vec::new(),
            skipped: skipped.clone(),
            gained: Vec::new(),
            failure: None,
            replant_seen: false,
            last_gain: None,
        };
        ctx.start(Self::NAME, action, 60 + n * 50)?;
        Ok(HarvestResponse { harvesting: true, crops, skipped })
    }
}

/// Breaks each crop, replants, then waits for the drops.
#[allow(clippy::type_complexity)]
pub fn step_harvesting(
    mut commands: Commands,
    mut packets: MessageReader<ClientboundPacket>,
    mut picked: MessageReader<ItemPickedUp>,
    mut bots: Query<(
        Entity,
        &mut Harvesting,
        &mut InputExtras,
        &Inventory,
        &InventoryJobs,
        &mut Connection,
        &EntityIds,
        &Position,
        &BlockWorld,
        Option<&BlockIds>,
        &mut clawcraft_core::Rotation,
    )>,
    ticks: Res<TickCount>,
) {
    let now = ticks.0;
    for pkt in packets.read() {
        let Ok((_, mut h, _, _, _, _, _, _, blocks, ids, _)) = bots.get_mut(pkt.bot) else { continue };
        let updates = block_updates(pkt);
        let h = &mut *h;
        match &mut h.step {
            Some(Step::Break(m)) => observe_mining(m, &mut h.trace, &updates, blocks, ids, now),
            Some(Step::Replant(_)) => {
                if let Some((c, _)) = &h.current {
                    let cell = [c.x, c.y, c.z];
                    let back = updates.iter().any(|(p, layer, id)| {
                        *p == cell && *layer == 0 && ids.is_some_and(|t| crop(t.0.name(*id)).is_some())
                    });
                    h.replant_seen |= back;
                }
            }
            _ => {}
        }
    }
    for p in picked.read() {
        let Ok((_, mut h, ..)) = bots.get_mut(p.bot) else { continue };
        if let (true, Some(item)) = (p.by_self, &p.item) {
            h.last_gain = Some(now);
            match h.gained.iter_mut().find(|g| g.name == item.name) {
                Some(g) => g.count += item.count,
                None => h.gained.push(Gained { name: item.name.clone(), count: item.count }),
            }
        }
    }
    for (bot, mut h, mut input, inv, jobs, mut conn, ids, pos, blocks, _, mut rot) in &mut bots {
        let h = &mut *h;
        let eye = pos.0.offset_y(EYE_HEIGHT);
        match h.step.take() {
            Some(Step::Equip(job)) => match clawcraft_interact::common::job_outcome(jobs, job) {
                None => h.step = Some(Step::Equip(job)),
                Some(Ok(())) => {}
                Some(Err(reason)) => {
                    commands.end_action(bot, USE_SLOT.name, ActionStatus::Failed, Some(reason));
                }
            },
            None => {
                let Some(t) = h.queue.pop_front() else {
                    h.step = Some(Step::Collect(now));
                    continue;
                };
                let (yaw, pitch) = clawcraft_interact::common::look_angles(
                    eye,
                    clawcraft_interact::common::face_centre(t.mining.pos, t.mining.face),
                );
                *rot = clawcraft_core::Rotation { yaw, pitch };
                h.current = Some((t.crop, t.soil_aim));
                h.step = Some(Step::Break(Box::new(t.mining)));
            }
            Some(Step::Break(mut m)) => {
                match advance_mining(&mut m, &mut h.trace, &mut input, jobs, &mut conn, ids.runtime_id, now) {
                    None => h.step = Some(Step::Break(m)),
                    Some((ActionStatus::Done, _)) if matches!(m.phase, MinePhase::Confirmed(_)) => {
                        let (c, soil_aim) = h.current.clone().expect("a current crop");
                        h.harvested.push(c.clone());
                        let soil = neighbour([c.x, c.y, c.z], Face::Down);
                        let seed = crop(&c.block).map_or("", |k| k.seed);
                        let holds_seed = inv.held().is_some_and(|i| bare_name(&i.name) == seed);
                        let soil_id = match blocks.get_block(soil[0], soil[1], soil[2]) {
                            clawcraft_world::chunk::BlockLookup::Loaded(id, _) => Some(id),
                            clawcraft_world::chunk::BlockLookup::Unloaded => None,
                        };
                        match (h.replant, soil_aim, holds_seed, soil_id) {
                            (true, Some(aim), true, Some(id)) => {
                                let (yaw, pitch) = clawcraft_interact::common::look_angles(eye, aim.point);
                                *rot = clawcraft_core::Rotation { yaw, pitch };
                                conn.send(&click_block(inv, eye, soil, &aim, id));
                                conn.send(&swing(ids.runtime_id, "useitem"));
                                h.replant_seen = false;
                                h.step = Some(Step::Replant(now));
                            }
                            (true, ..) => {
                                h.failure.get_or_insert_with(|| "replant_impossible".into());
                            }
                            _ => {}
                        }
                    }
                    Some((_, reason)) => {
                        h.failure.get_or_insert(reason.unwrap_or_else(|| "unconfirmed".into()));
                    }
                }
            }
            Some(Step::Replant(at)) => {
                if h.replant_seen {
                    if let Some((c, _)) = &h.current {
                        h.replanted.push(BlockXyz { x: c.x, y: c.y - 1, z: c.z });
                    }
                } else if now < at + REPLANT_TICKS {
                    h.step = Some(Step::Replant(at));
                } else {
                    h.failure.get_or_insert_with(|| "replant_unconfirmed".into());
                }
            }
            Some(Step::Collect(since)) => {
                let quiet_since = h.last_gain.map_or(since, |t| t.max(since));
                if now >= quiet_since + QUIET_TICKS || now >= since + PICKUP_TICKS {
                    let (status, reason) = match (&h.failure, h.harvested.is_empty()) {
                        (None, false) => (ActionStatus::Done, None),
                        (Some(f), _) => (ActionStatus::Failed, Some(f.clone())),
                        (None, true) => (ActionStatus::Failed, Some("unconfirmed".into())),
                    };
                    commands.end_action(bot, USE_SLOT.name, status, reason);
                } else {
                    h.step = Some(Step::Collect(since));
                }
            }
        }
    }
}
