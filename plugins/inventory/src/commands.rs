//! `inventory`, `equip`, `unequip`. Moves that need the server (pulling an item from the main
//! inventory, taking armour off) answer when the server did: the response is the receipt
//! (`confirmed:true`), or a `REJECTED`/`TIMEOUT` error when it refused or never answered.

use bevy_ecs::prelude::*;
use clawcraft_core::{AgentCommand, CommandCtx, CommandError, CommandResponse, DeferredReply, EntityIds, EventBatch};
use clawcraft_network::Connection;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::handlers::hold;
use crate::inventory::{ARMOR_NAMES, HOTBAR_SLOTS, INVENTORY_SLOTS, Inventory, SlotRef};
use crate::item::ItemJson;
use crate::requests::{InventoryJobDone, InventoryJobs, JobResult, Move};

/// Error: no such item (or no inventory yet).
pub fn no_item(msg: impl Into<String>) -> CommandError {
    CommandError::new("NO_ITEM", msg)
}

/// The bot's inventory, or `NO_ITEM` before the server sent it.
pub fn synced_inventory<'a>(ctx: &'a CommandCtx<'_>) -> Result<&'a Inventory, CommandError> {
    match ctx.world.get::<Inventory>(ctx.bot) {
        Some(inv) if inv.synced => Ok(inv),
        _ => Err(no_item("The server has not sent the inventory yet")),
    }
}

/// `inventory`.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct InventoryCmd {
    /// `"summary"` for the summary only.
    pub view: Option<String>,
}

/// One entry of `summary.items`.
#[derive(Serialize, JsonSchema, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct SummaryItem {
    pub name: String,
    pub total_count: u32,
}

/// `summary`.
#[derive(Serialize, JsonSchema, Debug, Clone, PartialEq)]
pub struct Summary {
    /// Occupied slots of the 36.
    pub occupied: usize,
    /// Always 36.
    pub total: usize,
    /// Items by name with their total count, most first.
    pub items: Vec<SummaryItem>,
}

/// Response of `inventory`.
#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct InventoryResponse {
    /// 36 slots (0–8 hotbar); null for empty ones. Absent with `view:"summary"`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub slots: Option<Vec<Option<ItemJson>>>,
    /// Helmet, chestplate, leggings, boots. Absent with `view:"summary"`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub armor: Option<Vec<Option<ItemJson>>>,
    /// Absent with `view:"summary"`; null when empty.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub offhand: Option<Option<ItemJson>>,
    pub held_slot: u8,
    pub held_item: Option<ItemJson>,
    pub summary: Summary,
}

/// The summary of `inv`.
pub fn summary(inv: &Inventory) -> Summary {
    let mut items: Vec<SummaryItem> = Vec::new();
    for (_, it) in inv.indexed() {
        match items.iter_mut().find(|s| *s.name == *it.name) {
            Some(s) => s.total_count += u32::from(it.count),
            None => items.push(SummaryItem { name: it.name.to_string(), total_count: u32::from(it.count) }),
        }
    }
    items.sort_by(|a, b| b.total_count.cmp(&a.total_count).then(a.name.cmp(&b.name)));
    Summary { occupied: inv.indexed().count(), total: INVENTORY_SLOTS, items }
}

impl AgentCommand for InventoryCmd {
    const NAME: &'static str = "inventory";
    const SUMMARY: &'static str = "The inventory as the server confirmed it: 36 slots, armour, offhand, held slot and item, a summary (view:\"summary\" for the summary only)";
    const EXAMPLE: &'static str = r#"{"action":"inventory","view":"summary"}"#;
    const SIZE_HINT: Option<&'static str> = Some(r#"send view:"summary""#);
    const QUERY: bool = true;
    type Response = InventoryResponse;

    fn run(self, ctx: &mut CommandCtx<'_>) -> Result<InventoryResponse, CommandError> {
        let summary_only = match self.view.as_deref() {
            None | Some("full") => false,
            Some("summary") => true,
            Some(other) => {
                return Err(CommandError::invalid_params(format!(
                    "Invalid view {other:?}: use \"summary\" or \"full\""
                )));
            }
        };
        let inv = synced_inventory(ctx)?;
        let json = |s: &Option<crate::item::Item>| s.as_ref().map(crate::item::Item::json);
        Ok(InventoryResponse {
            slots: (!summary_only).then(|| inv.slots.iter().map(json).collect()),
            armor: (!summary_only).then(|| inv.armor.iter().map(json).collect()),
            offhand: (!summary_only).then(|| json(&inv.offhand)),
            held_slot: inv.held_slot,
            held_item: inv.held().map(crate::item::Item::json),
            summary: summary(inv),
        })
    }
}

/// A command waiting for the server's answer to an inventory job.
#[derive(Debug, Clone)]
pub struct PendingReply {
    pub job: u64,
    pub reply: DeferredReply,
    pub kind: ReplyKind,
}

/// What to answer once the job ends.
#[derive(Debug, Clone)]
pub enum ReplyKind {
    Equip { slot: u8 },
    Unequip { target: String, moved_to: u8, item: ItemJson },
}

/// Commands of a bot waiting for inventory jobs.
#[derive(Component, Debug, Clone, Default)]
pub struct PendingReplies(pub Vec<PendingReply>);

/// `equip`.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Equip {
    /// Hotbar slot 0–8 to hold.
    pub slot: Option<i64>,
    /// Item name: exact (with or without `minecraft:`), else a substring. Pulled from the main
    /// inventory into the held slot by a swap when it is not in the hotbar.
    pub item: Option<String>,
}

/// Response of `equip`.
#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct EquipResponse {
    pub equipped: bool,
    /// The hotbar slot now held.
    pub slot: u8,
    /// The item now held (null for an empty hand).
    pub item: Option<ItemJson>,
    /// True when the server confirmed a move; false when only a hotbar slot was selected (the
    /// server does not answer a selection).
    pub confirmed: bool,
}

fn hold_now(ctx: &mut CommandCtx<'_>, slot: u8) -> Result<EquipResponse, CommandError> {
    let runtime_id = ctx.world.get::<EntityIds>(ctx.bot).map(|i| i.runtime_id).ok_or_else(CommandError::not_spawned)?;
    let mut events = EventBatch::new(ctx.bot);
    let mut q = ctx.world.query::<(&mut Connection, &mut Inventory)>();
    let (mut conn, mut inv) = q.get_mut(ctx.world, ctx.bot).map_err(|_| CommandError::not_spawned())?;
    hold(&mut conn, runtime_id, &mut inv, slot, &mut events);
    let item = inv.held().map(crate::item::Item::json);
    ctx.world.write_message_batch(events.drain());
    Ok(EquipResponse { equipped: true, slot, item, confirmed: false })
}

impl AgentCommand for Equip {
    const NAME: &'static str = "equip";
    const SUMMARY: &'static str = "Hold a hotbar slot (0-8) or an item by name; an item in the main inventory is swapped into the held slot and the answer waits for the server";
    const EXAMPLE: &'static str = r#"{"action":"equip","item":"diamond_pickaxe"}"#;
    type Response = EquipResponse;

    fn run(self, ctx: &mut CommandCtx<'_>) -> Result<EquipResponse, CommandError> {
        if let Some(slot) = self.slot {
            let slot = u8::try_from(slot)
                .ok()
                .filter(|s| *s < HOTBAR_SLOTS)
                .ok_or_else(|| CommandError::out_of_range("slot must be a hotbar slot 0-8"))?;
            synced_inventory(ctx)?;
            return hold_now(ctx, slot);
        }
        let Some(query) = self.item.filter(|q| !q.trim().is_empty()) else {
            return Err(CommandError::invalid_params("need slot (0-8) or item"));
        };
        let inv = synced_inventory(ctx)?;
        let found = inv.find(&query);
        let held = inv.held_slot;
        if found.contains(&held) {
            return hold_now(ctx, held);
        }
        if let Some(&s) = found.iter().find(|s| **s < HOTBAR_SLOTS) {
            return hold_now(ctx, s);
        }
        let Some(&from) = found.first() else {
            return Err(no_item(format!("No item matching {query:?} in the inventory")));
        };
        let count = inv.get(SlotRef::Inv(from)).map_or(1, |i| u8::try_from(i.count).unwrap_or(u8::MAX));
        let mv = if inv.held().is_some() {
            Move::Swap { a: SlotRef::Inv(from), b: SlotRef::Inv(held) }
        } else {
            Move::Place { from: SlotRef::Inv(from), to: SlotRef::Inv(held), count }
        };
        let job = submit(ctx, "equip", vec![mv])?;
        let reply = ctx.defer();
        push_reply(ctx, PendingReply { job, reply, kind: ReplyKind::Equip { slot: held } });
        Ok(EquipResponse { equipped: false, slot: held, item: None, confirmed: false })
    }
}

fn submit(ctx: &mut CommandCtx<'_>, purpose: &'static str, moves: Vec<Move>) -> Result<u64, CommandError> {
    let mut jobs = ctx.world.get_mut::<InventoryJobs>(ctx.bot).ok_or_else(CommandError::not_spawned)?;
    Ok(jobs.submit(purpose, moves))
}

fn push_reply(ctx: &mut CommandCtx<'_>, reply: PendingReply) {
    match ctx.world.get_mut::<PendingReplies>(ctx.bot) {
        Some(mut p) => p.0.push(reply),
        None => {
            ctx.world.entity_mut(ctx.bot).insert(PendingReplies(vec![reply]));
        }
    }
}

/// `unequip`.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Unequip {
    /// `helmet`, `chestplate`, `leggings`, `boots` or `offhand`.
    pub target: String,
}

/// Response of `unequip`.
#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct UnequipResponse {
    pub unequipped: bool,
    pub target: String,
    /// The item taken off.
    pub item: ItemJson,
    /// The inventory slot it went to.
    pub moved_to_slot: u8,
    /// True: the server confirmed the move.
    pub confirmed: bool,
}

impl AgentCommand for Unequip {
    const NAME: &'static str = "unequip";
    const SUMMARY: &'static str =
        "Take off armour or the offhand item into the first free slot; the answer waits for the server";
    const EXAMPLE: &'static str = r#"{"action":"unequip","target":"offhand"}"#;
    type Response = UnequipResponse;

    fn run(self, ctx: &mut CommandCtx<'_>) -> Result<UnequipResponse, CommandError> {
        let target = self.target.trim().to_ascii_lowercase();
        let slot = match target.as_str() {
            "offhand" | "off_hand" | "off-hand" => SlotRef::Offhand,
            t => match ARMOR_NAMES.iter().position(|n| *n == t) {
                Some(i) => SlotRef::Armor(i as u8),
                None => {
                    return Err(CommandError::invalid_params(format!(
                        "Invalid target {t:?}: use helmet, chestplate, leggings, boots or offhand"
                    )));
                }
            },
        };
        let inv = synced_inventory(ctx)?;
        let Some(item) = inv.get(slot).cloned() else {
            return Err(no_item(format!("Nothing in {target}")));
        };
        let Some(free) = inv.first_empty() else {
            return Err(CommandError::new("INVENTORY_FULL", "No free inventory slot"));
        };
        let mv = match slot {
            SlotRef::Offhand => Move::Legacy { from: slot, to: SlotRef::Inv(free) },
            _ => Move::Place { from: slot, to: SlotRef::Inv(free), count: u8::try_from(item.count).unwrap_or(1) },
        };
        let job = submit(ctx, "unequip", vec![mv])?;
        let reply = ctx.defer();
        let kind = ReplyKind::Unequip { target: target.clone(), moved_to: free, item: item.json() };
        push_reply(ctx, PendingReply { job, reply, kind });
        Ok(UnequipResponse { unequipped: false, target, item: item.json(), moved_to_slot: free, confirmed: false })
    }
}

/// Answers the commands whose jobs ended this tick.
pub fn answer_jobs(
    mut done: MessageReader<InventoryJobDone>,
    mut bots: Query<(&mut PendingReplies, &Inventory)>,
    mut responses: MessageWriter<CommandResponse>,
) {
    for d in done.read() {
        let Ok((mut pending, inv)) = bots.get_mut(d.bot) else { continue };
        let Some(i) = pending.0.iter().position(|p| p.job == d.job) else { continue };
        let p = pending.0.remove(i);
        let msg = match &d.result {
            JobResult::Confirmed => None,
            JobResult::Rejected(status) if status == "timeout" => {
                Some(CommandError::new("TIMEOUT", "The server did not answer the inventory request"))
            }
            JobResult::Rejected(status) => Some(CommandError::new(
                "REJECTED",
                format!("The server refused the move ({status}); the inventory is as the server says"),
            )),
        };
        let response = match (p.kind, msg) {
            (ReplyKind::Equip { .. }, Some(e)) => p.reply.respond::<EquipResponse>(Err(e)),
            (ReplyKind::Unequip { .. }, Some(e)) => p.reply.respond::<UnequipResponse>(Err(e)),
            (ReplyKind::Equip { slot }, None) => p.reply.respond(Ok(EquipResponse {
                equipped: true,
                slot,
                item: inv.get(SlotRef::Inv(slot)).map(crate::item::Item::json),
                confirmed: true,
            })),
            (ReplyKind::Unequip { target, moved_to, item }, None) => p.reply.respond(Ok(UnequipResponse {
                unequipped: true,
                target,
                item: inv.get(SlotRef::Inv(moved_to)).map_or(item, crate::item::Item::json),
                moved_to_slot: moved_to,
                confirmed: true,
            })),
        };
        responses.write(response);
    }
}
