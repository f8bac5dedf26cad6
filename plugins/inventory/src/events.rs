//! Inventory events, in ClawCraft's shapes (`item`, `slot`, `windowId` on every slot event).

use bevy_ecs::prelude::{Entity, Message};
use clawcraft_core::Vec3;
use schemars::JsonSchema;
use serde::Serialize;

use crate::item::ItemJson;

/// `item_added`: a slot that was empty holds an item now.
#[derive(Message, Serialize, JsonSchema, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct ItemAdded {
    #[serde(skip)]
    pub bot: Entity,
    pub item: ItemJson,
    pub slot: u32,
    /// `inventory`, `armor`, `offhand` or `cursor`.
    pub window_id: String,
    /// `pickup` when a TakeItemEntity of ours explains it; `move` when our own request moved it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
    /// Where the picked-up item entity lay (with `source:"pickup"`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub entity_position: Option<Vec3>,
}
clawcraft_core::event_kind!(
    ItemAdded,
    "item_added",
    "An item appeared in a slot (source pickup + entityPosition when an item entity we took explains it)"
);

/// `item_removed`: a slot became empty.
#[derive(Message, Serialize, JsonSchema, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct ItemRemoved {
    #[serde(skip)]
    pub bot: Entity,
    pub item: ItemJson,
    pub slot: u32,
    pub window_id: String,
    /// `move` when our own request moved it, `drop` when we dropped it, `used` when it was
    /// eaten, placed or thrown.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
}
clawcraft_core::event_kind!(ItemRemoved, "item_removed", "An item disappeared from a slot");

/// `item_count_changed`: the same item, another count.
#[derive(Message, Serialize, JsonSchema, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct ItemCountChanged {
    #[serde(skip)]
    pub bot: Entity,
    pub item: ItemJson,
    pub slot: u32,
    pub window_id: String,
    pub old_count: u16,
    pub new_count: u16,
    /// `pickup`, `move`, `drop` or `used`, when known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
    /// Where the picked-up item entity lay (with `source:"pickup"`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub entity_position: Option<Vec3>,
}
clawcraft_core::event_kind!(ItemCountChanged, "item_count_changed", "A stack's count changed (oldCount, newCount)");

/// `item_damaged`: a tool or armour piece lost durability.
#[derive(Message, Serialize, JsonSchema, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct ItemDamaged {
    #[serde(skip)]
    pub bot: Entity,
    pub item: ItemJson,
    pub slot: u32,
    pub window_id: String,
    pub previous_durability: u32,
    pub durability: u32,
}
clawcraft_core::event_kind!(
    ItemDamaged,
    "item_damaged",
    "A durable item lost durability (previousDurability, durability)"
);

/// `tool_broken`: a durable item wore out and vanished.
#[derive(Message, Serialize, JsonSchema, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct ToolBroken {
    #[serde(skip)]
    pub bot: Entity,
    /// The item as it was last seen.
    pub item: ItemJson,
    pub slot: u32,
    pub window_id: String,
}
clawcraft_core::event_kind!(
    ToolBroken,
    "tool_broken",
    "A durable item wore out (it had at most one use left) and vanished"
);

/// `held_slot_changed`: another hotbar slot is selected.
#[derive(Message, Serialize, JsonSchema, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct HeldSlotChanged {
    #[serde(skip)]
    pub bot: Entity,
    /// Hotbar slot now held (0–8).
    pub slot: u8,
    pub previous: u8,
    /// The item now held (null for an empty hand).
    pub item: Option<ItemJson>,
    /// `server` (MobEquipment/PlayerHotbar from the server) or `bot` (our own selection).
    pub source: String,
}
clawcraft_core::event_kind!(
    HeldSlotChanged,
    "held_slot_changed",
    "Another hotbar slot is held (by the server's word or our own selection)"
);

/// `item_request_rejected`: the server refused one of our inventory requests; the local view
/// stays the server's (nothing was changed before its answer).
#[derive(Message, Serialize, JsonSchema, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct ItemRequestRejected {
    #[serde(skip)]
    pub bot: Entity,
    /// The item-stack request id (negative) or 0 for a legacy transaction.
    pub request_id: i32,
    /// What the request was for (`equip`, `unequip`, `drop`, …).
    pub purpose: String,
    /// The server's status (`error`, a number), `timeout` when it never answered, or
    /// `unconfirmed` when a legacy move never showed up.
    pub status: String,
}
clawcraft_core::event_kind!(
    ItemRequestRejected,
    "item_request_rejected",
    "The server refused (or never answered) an inventory request; the view stays the server's"
);
