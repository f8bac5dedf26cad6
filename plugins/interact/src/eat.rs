//! `eat` / `abort_eat`: eat or drink the held (or named) item until the server says the use is
//! complete.
//!
//! The use starts with a `click_air` item-use transaction and the `start_using_item` input flag;
//! the click is repeated every second while the button is "held" (as a real client keeps the
//! use alive). `eat_done` is `done` with `confirmed:true` on the server's CompletedUsingItem naming the item (one
//! naming another item is not this use's), with
//! the evidence that followed it: the hunger change (UpdateAttributes) and the stack shrinking
//! (InventorySlot). No CompletedUsingItem within the use time plus two seconds → `failed`,
//! `unconfirmed`. `abort_eat` (and any other end before completion) sends the `item_release`
//! transaction, so the server stops the use too. A change of the held slot ends the use at the
//! server (as vanilla does): the action then fails with `held_slot_changed` and its receipt shows
//! the use's slot, not the newly held one.

use bevy_ecs::prelude::*;
use bevy_ecs::world::EntityRef;
use clawcraft_core::{
    ActionSlot, ActionStatus, AgentCommand, AsyncAction, AsyncInfo, CommandCtx, CommandError, EYE_HEIGHT, EndActionExt,
    Outcome, Position, TickCount,
};
use clawcraft_inventory::{Inventory, InventoryJobs, ItemIds, SlotRef};
use clawcraft_network::{ClientboundPacket, Connection};
use clawcraft_player::InputExtras;
use clawcraft_protocol::packets::CompletedUsingItem;
use clawcraft_vitals::Vitals;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::common::{Ready, click_air, hand_free, hold_item, inventory, job_outcome, release};
use crate::use_slot::ItemCount;

/// The click is repeated this often while eating.
const RECLICK_TICKS: u64 = 20;
/// Ticks past the use time to wait for CompletedUsingItem.
const GRACE_TICKS: u64 = 40;
/// Ticks after CompletedUsingItem to wait for the inventory and hunger changes.
const EVIDENCE_TICKS: u64 = 10;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    Equipping(u64),
    Start,
    Using { since: u64, last_click: u64 },
    Completed(u64),
}

/// Hunger before and after.
#[derive(Serialize, JsonSchema, Debug, Clone, Copy, PartialEq, Default)]
pub struct HungerChange {
    pub before: f64,
    pub after: f64,
}

/// The running `eat` action.
#[derive(Component, Debug, Clone)]
pub struct Eating {
    pub item: String,
    /// The item's network id: the server's CompletedUsingItem names it.
    pub network_id: i32,
    /// The hotbar slot the item is used from (the held one when the use starts).
    pub slot: u8,
    pub use_ticks: u32,
    phase: Phase,
    started: u64,
    pub completed: bool,
    pub use_method: Option<String>,
    /// Ticks from the first click to CompletedUsingItem.
    pub took: Option<u64>,
    pub hunger: HungerChange,
    pub count: ItemCount,
}

/// `eat_done`.
#[derive(Serialize, JsonSchema, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct EatDone {
    pub item: String,
    /// True only when the server sent CompletedUsingItem.
    pub confirmed: bool,
    /// `eat`, `consume`, … as the server named the use.
    pub use_method: Option<String>,
    /// Ticks from the first click to the server's completion.
    pub ticks: Option<u64>,
    /// Hunger before and after (UpdateAttributes).
    pub hunger: HungerChange,
    /// The stack before and after (InventorySlot).
    pub item_count: ItemCount,
}
clawcraft_core::evidence!(
    EatDone,
    "eat_done",
    "An eat/drink ended: confirmed by the server's CompletedUsingItem, with the hunger and item-count change as evidence"
);

impl AsyncAction for Eating {
    const SLOT: ActionSlot = ActionSlot::new("eat", "abort_eat", "Not eating");
    type Evidence = EatDone;

    /// The `after` values are read when the action ends, so an aborted eat shows the state then.
    fn evidence(&self, _outcome: &Outcome, bot: EntityRef<'_>) -> EatDone {
        let mut hunger = self.hunger;
        let mut count = self.count;
        if let Some(v) = bot.get::<Vitals>() {
            hunger.after = v.hunger;
        }
        if let Some(inv) = bot.get::<Inventory>() {
            count.after = self.count_in(inv);
        }
        EatDone {
            item: self.item.clone(),
            confirmed: self.completed,
            use_method: self.use_method.clone(),
            ticks: self.took,
            hunger,
            item_count: count,
        }
    }
}

/// `eat`.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Eat {
    /// Food or drink to use (held if omitted); pulled into the hand first when needed.
    pub item: Option<String>,
}

/// Response of `eat`.
#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct EatResponse {
    pub eating: bool,
    pub item: String,
    /// Expected use time in ms (the item's use duration).
    pub duration: u64,
}

impl AgentCommand for Eat {
    const NAME: &'static str = "eat";
    const SUMMARY: &'static str = "Eat or drink the held (or named) item; async, ends in eat_done when the server completed the use (hunger and item count as evidence)";
    const EXAMPLE: &'static str = r#"{"action":"eat","item":"bread"}"#;
    const ASYNC: Option<AsyncInfo> = Some(AsyncInfo::of::<Eating>());
    type Response = EatResponse;

    fn run(self, ctx: &mut CommandCtx<'_>) -> Result<EatResponse, CommandError> {
        hand_free(ctx)?;
        let inv = inventory(ctx)?;
        let item = crate::common::item_named(inv, self.item.as_deref()).ok_or_else(|| match &self.item {
            Some(q) => CommandError::new("NO_ITEM", format!("No item matching {q:?} in the inventory")),
            None => CommandError::new("NO_ITEM", "Nothing in hand to eat"),
        })?;
        let info = ctx.world.get::<ItemIds>(ctx.bot).and_then(|i| i.data.as_ref()?.info(&item.name).cloned());
        let Some(info) = info.filter(|i| i.is_consumable()) else {
            return Err(CommandError::new("INVALID_TARGET", format!("{} is not food or drink", item.name)));
        };
        if let (Some(food), Some(v)) = (info.food, ctx.world.get::<Vitals>(ctx.bot))
            && !food.always
            && v.hunger >= v.max_hunger
            && v.max_hunger > 0.0
        {
            return Err(CommandError::new("NOT_HUNGRY", format!("Hunger is full: {} can't be eaten now", item.name)));
        }
        let ready = match self.item.as_deref() {
            Some(q) => hold_item(ctx, q)?,
            None => Ready::Now,
        };
        let now = ctx.world.get_resource::<TickCount>().map_or(0, |t| t.0);
        let use_ticks = info.use_ticks.unwrap_or(32);
        let slot = inventory(ctx)?.held_slot;
        let eating = Eating {
            item: item.name.to_string(),
            network_id: item.network_id,
            slot,
            use_ticks,
            phase: match ready {
                Ready::Now => Phase::Start,
                Ready::Job(j) => Phase::Equipping(j),
            },
            started: now,
            completed: false,
            use_method: None,
            took: None,
            hunger: HungerChange::default(),
            count: ItemCount::default(),
        };
        ctx.start(Self::NAME, eating, u64::from(use_ticks) + GRACE_TICKS + 100)?;
        Ok(EatResponse { eating: true, item: item.name.to_string(), duration: u64::from(use_ticks) * 50 })
    }
}

impl Eating {
    /// How many of the item the use's slot holds (0 when it holds something else).
    fn count_in(&self, inv: &Inventory) -> u16 {
        inv.get(SlotRef::Inv(self.slot)).filter(|i| *i.name == *self.item).map_or(0, |i| i.count)
    }
}

/// CompletedUsingItem for the bot.
pub fn watch_eating(
    mut packets: MessageReader<ClientboundPacket>,
    mut bots: Query<(&mut Eating, &mut EatTrace)>,
    ticks: Res<TickCount>,
) {
    for pkt in packets.read() {
        let Ok((mut e, mut trace)) = bots.get_mut(pkt.bot) else { continue };
        let Some(c) = pkt.view::<CompletedUsingItem>() else { continue };
        // A completion of another item (one used before this eat, or by the server's own doing)
        // is not this use's.
        if i32::from(c.used_item_id) != e.network_id {
            tracing::debug!(used = c.used_item_id, eating = e.network_id, "CompletedUsingItem for another item");
            continue;
        }
        if let Phase::Using { since, .. } = e.phase {
            trace.using = false;
            e.completed = true;
            e.use_method = Some(c.use_method.clone());
            e.took = Some(ticks.0.saturating_sub(since));
            e.phase = Phase::Completed(ticks.0);
        }
    }
}

/// Clicks, keeps the use alive, and ends on the server's completion plus its evidence.
#[allow(clippy::type_complexity)]
pub fn step_eating(
    mut commands: Commands,
    mut bots: Query<(
        Entity,
        &mut Eating,
        &mut EatTrace,
        &Inventory,
        &InventoryJobs,
        &Vitals,
        &mut Connection,
        &Position,
        &mut InputExtras,
    )>,
    ticks: Res<TickCount>,
) {
    let now = ticks.0;
    for (bot, mut e, mut trace, inv, jobs, vitals, mut conn, pos, mut input) in &mut bots {
        let eye = pos.0.offset_y(EYE_HEIGHT);
        let end = |commands: &mut Commands, status, reason: Option<String>| {
            commands.end_action(bot, Eating::SLOT.name, status, reason);
        };
        match e.phase {
            Phase::Equipping(job) => match job_outcome(jobs, job) {
                Some(Ok(())) => e.phase = Phase::Start,
                Some(Err(r)) => end(&mut commands, ActionStatus::Failed, Some(r)),
                None if now > e.started + 60 => {
                    end(&mut commands, ActionStatus::Failed, Some("item swap unanswered".into()))
                }
                None => {}
            },
            Phase::Start => {
                e.slot = inv.held_slot;
                e.hunger.before = vitals.hunger;
                e.count.before = e.count_in(inv);
                conn.send(&click_air(inv, eye));
                input.flags.push("start_using_item");
                trace.using = true;
                e.phase = Phase::Using { since: now, last_click: now };
            }
            Phase::Using { since, last_click } => {
                if inv.held_slot != e.slot {
                    // The server ends a use when the held slot changes: nothing more will be eaten
                    // and there is no use left to release.
                    trace.using = false;
                    end(&mut commands, ActionStatus::Failed, Some("held_slot_changed".into()));
                } else if now >= since + u64::from(e.use_ticks) + GRACE_TICKS {
                    end(&mut commands, ActionStatus::Failed, Some("unconfirmed".into()));
                } else if now >= last_click + RECLICK_TICKS {
                    conn.send(&click_air(inv, eye));
                    e.phase = Phase::Using { since, last_click: now };
                }
            }
            Phase::Completed(at) => {
                e.hunger.after = vitals.hunger;
                e.count.after = e.count_in(inv);
                let shrank = e.count.after < e.count.before;
                if shrank || now >= at + EVIDENCE_TICKS {
                    end(&mut commands, ActionStatus::Done, None);
                }
            }
        }
    }
}

/// Whether a use is under way at the server, so an interrupted one is released.
#[derive(Component, Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct EatTrace {
    pub using: bool,
}

/// Sends `item_release` when a use ended before the server completed it ([`EatTrace`]).
#[allow(clippy::type_complexity)]
pub fn release_unfinished_uses(
    mut removed: RemovedComponents<Eating>,
    mut bots: Query<(&mut EatTrace, Option<&Eating>, &Inventory, &Position, &mut Connection)>,
) {
    for bot in removed.read() {
        let Ok((mut trace, running, inv, pos, mut conn)) = bots.get_mut(bot) else { continue };
        if running.is_none() && std::mem::take(&mut trace.using) {
            conn.send(&release(inv, pos.0.offset_y(EYE_HEIGHT)));
        }
    }
}
