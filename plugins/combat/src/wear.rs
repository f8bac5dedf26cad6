//! `wear`: put on an armour piece from the inventory — the named one, or the piece that adds the
//! most defence over what is worn — by an item-stack request (as a player drags it onto the armour
//! slot). `wear_done` is `done` when the server accepted the move, with the defence points before
//! and after (Bedrock's values, [`crate::data`]); `failed` with the server's refusal otherwise.

use bevy_ecs::prelude::*;
use bevy_ecs::world::EntityRef;
use clawcraft_core::{
    ActionSlot, ActionStatus, AgentCommand, AsyncAction, AsyncInfo, CommandCtx, CommandError, EndActionExt, Outcome,
};
use clawcraft_inventory::{INVENTORY_SLOTS, Inventory, InventoryJobs, JobResult, Move, SlotRef};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::data::{ARMOUR_SLOTS, armour};

/// The `wear` slot (the inventory screen is one request at a time).
pub const WEAR_SLOT: ActionSlot = ActionSlot::new("wear", "abort_wear", "Not putting on armour");
/// Ticks to wait for the server's answer.
const WEAR_TICKS: u64 = 100;

/// Defence points worn, Bedrock's values.
pub fn defence(inv: &Inventory) -> u32 {
    inv.armor.iter().flatten().filter_map(|i| armour(&i.name)).map(|(_, d)| d).sum()
}

/// The inventory slot of the piece that adds the most defence over what is worn, with its armour
/// slot.
pub fn best_upgrade(inv: &Inventory) -> Option<(u8, usize)> {
    let worn = |slot: usize| inv.armor[slot].as_ref().and_then(|i| armour(&i.name)).map_or(0, |(_, d)| d);
    (0..INVENTORY_SLOTS as u8)
        .filter_map(|s| {
            let item = inv.slots.get(usize::from(s))?.as_ref()?;
            let (slot, d) = armour(&item.name)?;
            (d > worn(slot)).then_some((s, slot, d - worn(slot)))
        })
        .max_by_key(|(s, _, gain)| (*gain, std::cmp::Reverse(*s)))
        .map(|(s, slot, _)| (s, slot))
}

/// The running `wear`.
#[derive(Component, Debug, Clone)]
pub struct Wearing {
    job: u64,
    pub item: String,
    pub slot: usize,
    pub before: u32,
    pub confirmed: bool,
}

/// `wear_done`.
#[derive(Serialize, JsonSchema, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct WearDone {
    pub item: String,
    /// `helmet`, `chestplate`, `leggings` or `boots`.
    pub slot: String,
    /// True when the server accepted the move.
    pub confirmed: bool,
    /// Defence points worn before and after (Bedrock's values).
    pub defence: DefenceChange,
}

/// Defence points before and after.
#[derive(Serialize, JsonSchema, Debug, Clone, Copy, PartialEq)]
pub struct DefenceChange {
    pub before: u32,
    pub after: u32,
}

clawcraft_core::evidence!(
    WearDone,
    "wear_done",
    "A wear ended: confirmed when the server accepted the armour move, with the defence points before and after"
);

impl AsyncAction for Wearing {
    const SLOT: ActionSlot = WEAR_SLOT;
    type Evidence = WearDone;

    fn evidence(&self, _outcome: &Outcome, bot: EntityRef<'_>) -> WearDone {
        let after = bot.get::<Inventory>().map_or(self.before, defence);
        WearDone {
            item: self.item.clone(),
            slot: ARMOUR_SLOTS[self.slot].into(),
            confirmed: self.confirmed,
            defence: DefenceChange { before: self.before, after },
        }
    }
}

/// `wear`.
#[derive(Deserialize, JsonSchema, Default)]
#[serde(deny_unknown_fields)]
pub struct Wear {
    /// The armour piece to put on (name, e.g. `iron_chestplate`); omitted: the best upgrade.
    pub item: Option<String>,
}

/// Response of `wear`.
#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct WearResponse {
    /// True: the move was sent (the verdict is `wear_done`).
    pub wearing: bool,
    pub item: String,
    /// `helmet`, `chestplate`, `leggings` or `boots`.
    pub slot: String,
}

impl AgentCommand for Wear {
    const NAME: &'static str = "wear";
    const SUMMARY: &'static str = "Put on an armour piece (named, or the best upgrade over what is worn); async, ends in wear_done when the server accepted the move";
    const EXAMPLE: &'static str = r#"{"action":"wear","item":"iron_chestplate"}"#;
    const ASYNC: Option<AsyncInfo> = Some(AsyncInfo::of::<Wearing>());
    type Response = WearResponse;

    fn run(self, ctx: &mut CommandCtx<'_>) -> Result<WearResponse, CommandError> {
        let inv = clawcraft_interact::common::inventory_of(ctx.world, ctx.bot)?;
        let (from, slot) = match self.item.as_deref().map(str::trim) {
            Some(q) => {
                let found = inv.find(q);
                let s = *found
                    .iter()
                    .find(|s| usize::from(**s) < INVENTORY_SLOTS)
                    .ok_or_else(|| CommandError::new("NO_ITEM", format!("No item matching {q:?} in the inventory")))?;
                let name = inv.get(SlotRef::Inv(s)).map(|i| i.name.to_string()).unwrap_or_default();
                let (slot, _) = armour(&name)
                    .ok_or_else(|| CommandError::new("INVALID_TARGET", format!("{name} is not an armour piece")))?;
                (s, slot)
            }
            None => best_upgrade(inv)
                .ok_or_else(|| CommandError::new("NO_ITEM", "No armour piece in the inventory beats what is worn"))?,
        };
        let item = inv.get(SlotRef::Inv(from)).map(|i| i.name.to_string()).unwrap_or_default();
        let before = defence(inv);
        let to = SlotRef::Armor(slot as u8);
        let mv = if inv.get(to).is_some() {
            Move::Swap { a: SlotRef::Inv(from), b: to }
        } else {
            Move::Place { from: SlotRef::Inv(from), to, count: 1 }
        };
        let mut jobs = ctx.world.get_mut::<InventoryJobs>(ctx.bot).ok_or_else(CommandError::not_spawned)?;
        let job = jobs.submit("wear", vec![mv]);
        ctx.start(Self::NAME, Wearing { job, item: item.clone(), slot, before, confirmed: false }, WEAR_TICKS)?;
        Ok(WearResponse { wearing: true, item, slot: ARMOUR_SLOTS[slot].into() })
    }
}

/// Ends a wear when its inventory job does.
pub fn step_wearing(mut commands: Commands, mut bots: Query<(Entity, &mut Wearing, &InventoryJobs)>) {
    for (bot, mut w, jobs) in &mut bots {
        match jobs.result(w.job) {
            Some(JobResult::Confirmed) => {
                w.confirmed = true;
                commands.end_action(bot, WEAR_SLOT.name, ActionStatus::Done, None);
            }
            Some(JobResult::Rejected(why)) => {
                commands.end_action(bot, WEAR_SLOT.name, ActionStatus::Failed, Some(format!("refused ({why})")));
            }
            None => {}
        }
    }
}
