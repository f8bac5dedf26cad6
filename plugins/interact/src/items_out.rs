//! Items leaving the bot: `throw` (a projectile in the hand, used in the air towards a point),
//! `drop` (a stack or part of it, by an item-stack request `drop` action) and `give` (face a
//! player, then drop towards them). The receipts carry the server's evidence: the stack shrinking
//! (InventorySlot, or the ItemStackResponse), the item entity or projectile that appeared
//! (AddItemEntity / AddEntity), and for `give` whether the player picked it up.

use bevy_ecs::prelude::*;
use bevy_ecs::world::EntityRef;
use clawcraft_core::{
    ActionSlot, ActionStatus, AgentCommand, AsyncAction, AsyncInfo, CommandCtx, CommandError, EYE_HEIGHT, EndActionExt,
    EntityIds, Outcome, Position, TickCount, Vec3,
};
use clawcraft_entity::{EntityPosition, PlayerInfo, SeenBy, WorldEntity};
use clawcraft_inventory::{Inventory, InventoryJobs, JobResult, Move, SlotRef};
use clawcraft_network::{ClientboundPacket, Connection};
use clawcraft_protocol::packets::{AddEntity, AddItemEntity, TakeItemEntity};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::common::{click_air, hand_free, inventory, swing, turn_to};
use crate::use_slot::{ItemCount, USE_SLOT};

/// Ticks to wait for the server's evidence.
const CONFIRM_TICKS: u64 = 20;
/// How far a dropped item or projectile may appear from the eye and still be ours.
const SPAWN_RADIUS: f64 = 3.0;
/// How far away a `give` target may stand (ClawCraft's 16 blocks).
const GIVE_RANGE: f64 = 16.0;

/// Items `throw` accepts: thrown by a use in the air.
pub const THROWABLE: [&str; 7] =
    ["snowball", "egg", "ender_pearl", "experience_bottle", "splash_potion", "lingering_potion", "wind_charge"];

/// The entity identifier the server gives a thrown item.
fn projectile_of(item: &str) -> String {
    let short = item.strip_prefix("minecraft:").unwrap_or(item);
    match short {
        "experience_bottle" => "minecraft:xp_bottle".into(),
        "wind_charge" => "minecraft:wind_charge_projectile".into(),
        other => format!("minecraft:{other}"),
    }
}

/// An entity the server spawned because of the action.
#[derive(Serialize, JsonSchema, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct Spawned {
    pub runtime_id: u64,
    /// Identifier (`minecraft:snowball`) or, for an item entity, the item name.
    pub kind: String,
    pub position: Vec3,
}

fn near_eye(pos: &Position, p: clawcraft_protocol::packets::Vec3) -> Option<Vec3> {
    let v = Vec3::new(f64::from(p.x), f64::from(p.y), f64::from(p.z));
    (v.distance(pos.0.offset_y(EYE_HEIGHT)) <= SPAWN_RADIUS).then_some(v)
}

// ---------------------------------------------------------------------------------------------
// throw
// ---------------------------------------------------------------------------------------------

/// The running `throw` action.
#[derive(Component, Debug, Clone)]
pub struct Throwing {
    pub item: String,
    projectile: String,
    pub count: ItemCount,
    pub spawned: Option<Spawned>,
    sent: Option<u64>,
}

/// `throw_done`.
#[derive(Serialize, JsonSchema, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct ThrowDone {
    pub item: String,
    /// True when the server consumed the item or spawned the projectile.
    pub confirmed: bool,
    pub item_count: ItemCount,
    /// The projectile the server spawned.
    pub projectile: Option<Spawned>,
}
clawcraft_core::evidence!(
    ThrowDone,
    "throw_done",
    "A throw ended: confirmed by the stack shrinking or the projectile appearing; failed unconfirmed otherwise"
);

impl Throwing {
    fn confirmed(&self) -> bool {
        self.count.after < self.count.before || self.spawned.is_some()
    }
}

impl AsyncAction for Throwing {
    const SLOT: ActionSlot = USE_SLOT;
    type Evidence = ThrowDone;

    fn evidence(&self, _outcome: &Outcome, _bot: EntityRef<'_>) -> ThrowDone {
        ThrowDone {
            item: self.item.clone(),
            confirmed: self.confirmed(),
            item_count: self.count,
            projectile: self.spawned.clone(),
        }
    }
}

/// `throw`.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Throw {
    /// A point to aim at (all three, or none to throw where you look).
    pub x: Option<f64>,
    pub y: Option<f64>,
    pub z: Option<f64>,
}

/// Response of `throw`.
#[derive(Serialize, JsonSchema)]
pub struct ThrowResponse {
    /// True: the throw was sent (the verdict is `throw_done`).
    pub thrown: bool,
    pub item: String,
}

impl AgentCommand for Throw {
    const NAME: &'static str = "throw";
    const SUMMARY: &'static str = "Throw the held projectile (snowball, egg, ender pearl, bottle o' enchanting, splash/lingering potion, wind charge), aimed at x,y,z if given; async, ends in throw_done";
    const EXAMPLE: &'static str = r#"{"action":"throw","x":5,"y":-59,"z":0}"#;
    const ASYNC: Option<AsyncInfo> = Some(AsyncInfo::of::<Throwing>());
    type Response = ThrowResponse;

    fn run(self, ctx: &mut CommandCtx<'_>) -> Result<ThrowResponse, CommandError> {
        hand_free(ctx)?;
        let item =
            inventory(ctx)?.held().cloned().ok_or_else(|| CommandError::new("NO_ITEM", "Nothing in hand to throw"))?;
        if !THROWABLE.contains(&item.short_name()) {
            return Err(CommandError::new(
                "INVALID_TARGET",
                format!("{} cannot be thrown (hold one of: {})", item.name, THROWABLE.join(", ")),
            ));
        }
        match (self.x, self.y, self.z) {
            (Some(x), Some(y), Some(z)) => {
                let p = Vec3::new(x, y, z);
                if !(x.is_finite() && y.is_finite() && z.is_finite()) {
                    return Err(CommandError::out_of_range("coordinates must be finite"));
                }
                turn_to(ctx.world, ctx.bot, p);
            }
            (None, None, None) => {}
            _ => return Err(CommandError::invalid_params("give x, y and z together (or none)")),
        }
        let name = item.name.to_string();
        let action = Throwing {
            item: name.clone(),
            projectile: projectile_of(&name),
            count: ItemCount::default(),
            spawned: None,
            sent: None,
        };
        ctx.start(Self::NAME, action, CONFIRM_TICKS + 40)?;
        Ok(ThrowResponse { thrown: true, item: name })
    }
}

/// Throws (a use in the air), then records the stack and the projectile.
#[allow(clippy::type_complexity)]
pub fn step_throwing(
    mut commands: Commands,
    mut packets: MessageReader<ClientboundPacket>,
    mut bots: Query<(Entity, &mut Throwing, &Inventory, &mut Connection, &EntityIds, &Position)>,
    ticks: Res<TickCount>,
) {
    for pkt in packets.read() {
        let Ok((_, mut t, _, _, _, pos)) = bots.get_mut(pkt.bot) else { continue };
        if t.sent.is_none() || t.spawned.is_some() {
            continue;
        }
        if let Some(a) = pkt.view::<AddEntity>()
            && a.entity_type == t.projectile
            && let Some(p) = near_eye(pos, a.position)
        {
            t.spawned = Some(Spawned { runtime_id: a.runtime_id, kind: a.entity_type.clone(), position: p.rounded() });
        }
    }
    for (bot, mut t, inv, mut conn, ids, pos) in &mut bots {
        match t.sent {
            None => {
                t.count.before = inv.held().map_or(0, |i| i.count);
                conn.send(&click_air(inv, pos.0.offset_y(EYE_HEIGHT)));
                conn.send(&swing(ids.runtime_id, "throwitem"));
                t.sent = Some(ticks.0);
            }
            Some(at) => {
                t.count.after = inv.held().filter(|i| *i.name == *t.item).map_or(0, |i| i.count);
                let shrank = t.count.after < t.count.before;
                if shrank && t.spawned.is_some() || ticks.0 >= at + CONFIRM_TICKS {
                    let (status, reason) = if t.confirmed() {
                        (ActionStatus::Done, None)
                    } else {
                        (ActionStatus::Failed, Some("unconfirmed".into()))
                    };
                    commands.end_action(bot, USE_SLOT.name, status, reason);
                }
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// drop and give
// ---------------------------------------------------------------------------------------------

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    /// Turned towards the receiver this tick; the drop leaves next tick (after the rotation).
    Facing,
    /// The drop request goes out this tick.
    Drop,
    /// Waiting for the server (job id, tick sent).
    Sent(u64, u64),
}

/// The running `drop` or `give` action.
#[derive(Component, Debug, Clone)]
pub struct Dropping {
    pub slot: u8,
    pub item: String,
    pub count: u16,
    /// `give`: the receiver's name, runtime id and distance.
    pub to: Option<(String, u64, f64)>,
    phase: Phase,
    /// The server accepted the drop (its answer to the request).
    pub accepted: Option<bool>,
    pub entity: Option<Spawned>,
    /// `give`: the receiver took the item entity.
    pub picked_up: bool,
    refusal: Option<String>,
}

/// `drop_done`.
#[derive(Serialize, JsonSchema, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct DropDone {
    pub item: String,
    pub count: u16,
    /// True when the server accepted the drop (the stack left the inventory).
    pub confirmed: bool,
    /// The item entity that appeared.
    pub entity: Option<Spawned>,
}
clawcraft_core::evidence!(
    DropDone,
    "drop_done",
    "A drop ended: confirmed when the server accepted it (the items left the inventory); entity = the item entity that appeared"
);

/// `give_done`.
#[derive(Serialize, JsonSchema, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct GiveDone {
    pub to: String,
    pub item: String,
    pub count: u16,
    pub distance: f64,
    /// True when the items left our inventory and an item entity appeared.
    pub confirmed: bool,
    pub entity: Option<Spawned>,
    /// The receiver picked the item up (TakeItemEntity naming them).
    pub picked_up: bool,
}
clawcraft_core::evidence!(
    GiveDone,
    "give_done",
    "A give ended: confirmed when the items left the inventory and an item entity appeared; pickedUp when the receiver took it"
);

/// Registers the drop slot's action under both completion events: `drop` and `give` differ only
/// in their receipt, so they are two component types around one state.
#[derive(Component, Debug, Clone)]
pub struct Giving(pub Dropping);

impl AsyncAction for Dropping {
    const SLOT: ActionSlot = USE_SLOT;
    type Evidence = DropDone;

    fn evidence(&self, _outcome: &Outcome, _bot: EntityRef<'_>) -> DropDone {
        DropDone {
            item: self.item.clone(),
            count: self.count,
            confirmed: self.accepted == Some(true),
            entity: self.entity.clone(),
        }
    }
}

impl AsyncAction for Giving {
    const SLOT: ActionSlot = USE_SLOT;
    type Evidence = GiveDone;

    fn evidence(&self, _outcome: &Outcome, _bot: EntityRef<'_>) -> GiveDone {
        let d = &self.0;
        let (to, _, distance) = d.to.clone().unwrap_or_default();
        GiveDone {
            to,
            item: d.item.clone(),
            count: d.count,
            distance,
            confirmed: d.accepted == Some(true) && d.entity.is_some(),
            entity: d.entity.clone(),
            picked_up: d.picked_up,
        }
    }
}

/// `drop`.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DropCmd {
    /// Inventory slot 0–35 (default: the held slot).
    pub slot: Option<i64>,
    /// How many (default: the whole stack).
    pub count: Option<i64>,
}

/// Response of `drop`.
#[derive(Serialize, JsonSchema)]
pub struct DropResponse {
    /// True: the drop was sent (the verdict is `drop_done`).
    pub dropped: bool,
    pub item: String,
    pub count: u16,
}

/// The slot and count to drop from, checked.
fn drop_source(inv: &Inventory, slot: Option<i64>, count: Option<i64>) -> Result<(u8, String, u16), CommandError> {
    let slot = match slot {
        Some(s) => u8::try_from(s)
            .ok()
            .filter(|s| usize::from(*s) < clawcraft_inventory::INVENTORY_SLOTS)
            .ok_or_else(|| CommandError::out_of_range("slot must be 0-35"))?,
        None => inv.held_slot,
    };
    let item =
        inv.get(SlotRef::Inv(slot)).ok_or_else(|| CommandError::new("NO_ITEM", format!("Slot {slot} is empty")))?;
    let count = match count {
        Some(c) if c >= 1 => u16::try_from(c).unwrap_or(u16::MAX).min(item.count),
        Some(_) => return Err(CommandError::out_of_range("count must be at least 1")),
        None => item.count,
    };
    Ok((slot, item.name.to_string(), count))
}

impl AgentCommand for DropCmd {
    const NAME: &'static str = "drop";
    const SUMMARY: &'static str = "Drop items from a slot (default the held one; count default the whole stack); async, ends in drop_done confirmed by the server";
    const EXAMPLE: &'static str = r#"{"action":"drop","slot":1,"count":2}"#;
    const ASYNC: Option<AsyncInfo> = Some(AsyncInfo::of::<Dropping>());
    type Response = DropResponse;

    fn run(self, ctx: &mut CommandCtx<'_>) -> Result<DropResponse, CommandError> {
        hand_free(ctx)?;
        let (slot, item, count) = drop_source(inventory(ctx)?, self.slot, self.count)?;
        let action = Dropping {
            slot,
            item: item.clone(),
            count,
            to: None,
            phase: Phase::Drop,
            accepted: None,
            entity: None,
            picked_up: false,
            refusal: None,
        };
        ctx.start(Self::NAME, action, CONFIRM_TICKS + 80)?;
        Ok(DropResponse { dropped: true, item, count })
    }
}

/// `give`.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Give {
    /// The player to give to (within 16 blocks).
    pub to: String,
    /// The item (default: the held one).
    pub item: Option<String>,
    /// How many (default 1).
    pub count: Option<i64>,
}

/// Response of `give`.
#[derive(Serialize, JsonSchema)]
pub struct GiveResponse {
    /// True: the drop towards the player was sent (the verdict is `give_done`).
    pub given: bool,
    pub to: String,
    pub item: String,
    pub count: u16,
    pub distance: f64,
}

impl AgentCommand for Give {
    const NAME: &'static str = "give";
    const SUMMARY: &'static str = "Face a player within 16 blocks and drop items towards them; async, ends in give_done (items left the inventory, item entity appeared, pickedUp)";
    const EXAMPLE: &'static str = r#"{"action":"give","to":"Steve","item":"bread","count":1}"#;
    const ASYNC: Option<AsyncInfo> = Some(AsyncInfo::of::<Giving>());
    type Response = GiveResponse;

    fn run(self, ctx: &mut CommandCtx<'_>) -> Result<GiveResponse, CommandError> {
        hand_free(ctx)?;
        let feet = ctx.world.get::<Position>(ctx.bot).ok_or_else(CommandError::not_spawned)?.0;
        let wanted = self.to.trim().to_ascii_lowercase();
        let bot = ctx.bot;
        let mut q = ctx.world.query::<(&SeenBy, &WorldEntity, &EntityPosition, &PlayerInfo)>();
        let found = q
            .iter(ctx.world)
            .filter(|(seen, _, _, p)| seen.0 == bot && p.name.to_ascii_lowercase() == wanted)
            .map(|(_, w, p, info)| (info.name.clone(), w.runtime_id, p.0))
            .next();
        let Some((name, runtime_id, at)) = found else {
            return Err(CommandError::new("NO_TARGET", format!("Player {} is not in view", self.to)));
        };
        let distance = (at.distance(feet) * 100.0).round() / 100.0;
        if distance > GIVE_RANGE {
            return Err(CommandError::new(
                "OUT_OF_REACH",
                format!("{name} is {distance} blocks away; give works within {GIVE_RANGE} (walk closer first)"),
            ));
        }
        let inv = inventory(ctx)?;
        let slot = match &self.item {
            Some(q) => {
                *inv.find(q).first().ok_or_else(|| CommandError::new("NO_ITEM", format!("No item matching {q:?}")))?
            }
            None => inv.held_slot,
        };
        let (slot, item, count) = drop_source(inv, Some(i64::from(slot)), Some(self.count.unwrap_or(1)))?;
        turn_to(ctx.world, ctx.bot, at.offset_y(EYE_HEIGHT));
        let action = Giving(Dropping {
            slot,
            item: item.clone(),
            count,
            to: Some((name.clone(), runtime_id, distance)),
            phase: Phase::Facing,
            accepted: None,
            entity: None,
            picked_up: false,
            refusal: None,
        });
        ctx.start(Self::NAME, action, CONFIRM_TICKS + 80)?;
        Ok(GiveResponse { given: true, to: name, item, count, distance })
    }
}

/// Advances a drop or give; `Some((status, reason))` when it ends.
fn advance(d: &mut Dropping, jobs: &mut InventoryJobs, now: u64) -> Option<(ActionStatus, Option<String>)> {
    match d.phase {
        Phase::Facing => {
            d.phase = Phase::Drop;
            None
        }
        Phase::Drop => {
            let count = u8::try_from(d.count).unwrap_or(u8::MAX);
            let purpose = if d.to.is_some() { "give" } else { "drop" };
            let job = jobs.submit(purpose, vec![Move::Drop { from: SlotRef::Inv(d.slot), count }]);
            d.phase = Phase::Sent(job, now);
            None
        }
        Phase::Sent(job, at) => {
            if d.accepted.is_none() {
                match jobs.result(job) {
                    Some(JobResult::Confirmed) => d.accepted = Some(true),
                    Some(JobResult::Rejected(s)) => {
                        d.accepted = Some(false);
                        d.refusal = Some(s.clone());
                    }
                    None => {}
                }
            }
            match d.accepted {
                Some(false) => {
                    Some((ActionStatus::Failed, Some(format!("rejected ({})", d.refusal.clone().unwrap_or_default()))))
                }
                Some(true) if d.entity.is_some() && (d.to.is_none() || d.picked_up) => Some((ActionStatus::Done, None)),
                Some(true) if now >= at + CONFIRM_TICKS + 20 => {
                    if d.to.is_some() && d.entity.is_none() {
                        Some((ActionStatus::Failed, Some("no item entity".into())))
                    } else {
                        Some((ActionStatus::Done, None))
                    }
                }
                _ if now >= at + CONFIRM_TICKS + 60 => Some((ActionStatus::Failed, Some("unconfirmed".into()))),
                _ => None,
            }
        }
    }
}

/// Records the item entity that appeared and, for a give, whether the receiver took it.
fn observe(d: &mut Dropping, pkt: &ClientboundPacket, pos: &Position, names: &clawcraft_inventory::ItemIds) {
    if !matches!(d.phase, Phase::Sent(..)) {
        return;
    }
    if d.entity.is_none()
        && let Some(a) = pkt.view::<AddItemEntity>()
        && *names.name(a.item.network_id) == *d.item
        && let Some(p) = near_eye(pos, a.position)
    {
        d.entity = Some(Spawned { runtime_id: a.runtime_entity_id, kind: d.item.clone(), position: p.rounded() });
    } else if let Some(t) = pkt.view::<TakeItemEntity>()
        && let (Some(e), Some((_, to, _))) = (&d.entity, &d.to)
        && t.runtime_entity_id == e.runtime_id
        && u64::from(t.target) == *to
    {
        d.picked_up = true;
    }
}

/// Steps drops.
#[allow(clippy::type_complexity)]
pub fn step_dropping(
    mut commands: Commands,
    mut packets: MessageReader<ClientboundPacket>,
    mut drops: Query<
        (Entity, &mut Dropping, &mut InventoryJobs, &Position, &clawcraft_inventory::ItemIds),
        Without<Giving>,
    >,
    mut gives: Query<
        (Entity, &mut Giving, &mut InventoryJobs, &Position, &clawcraft_inventory::ItemIds),
        Without<Dropping>,
    >,
    ticks: Res<TickCount>,
) {
    for pkt in packets.read() {
        if let Ok((_, mut d, _, pos, names)) = drops.get_mut(pkt.bot) {
            observe(&mut d, pkt, pos, names);
        } else if let Ok((_, mut g, _, pos, names)) = gives.get_mut(pkt.bot) {
            observe(&mut g.0, pkt, pos, names);
        }
    }
    for (bot, mut d, mut jobs, ..) in &mut drops {
        if let Some((status, reason)) = advance(&mut d, &mut jobs, ticks.0) {
            commands.end_action(bot, USE_SLOT.name, status, reason);
        }
    }
    for (bot, mut g, mut jobs, ..) in &mut gives {
        if let Some((status, reason)) = advance(&mut g.0, &mut jobs, ticks.0) {
            commands.end_action(bot, USE_SLOT.name, status, reason);
        }
    }
}
