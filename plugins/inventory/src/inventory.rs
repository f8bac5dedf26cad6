//! [`Inventory`]: the bot's inventory as the server last confirmed it — 36 slots (0–8 hotbar),
//! four armour slots, the offhand and the cursor, and the held hotbar slot — and the changes
//! between two views turned into ClawCraft's events.

use std::collections::{BTreeMap, VecDeque};
use std::sync::Arc;

use bevy_ecs::prelude::*;
use clawcraft_core::{EventBatch, InventoryView, ItemStackView, Vec3};

use crate::events::{ItemAdded, ItemCountChanged, ItemDamaged, ItemRemoved, ToolBroken};
use crate::item::Item;

/// Slots of the main inventory (hotbar included).
pub const INVENTORY_SLOTS: usize = 36;
/// Hotbar slots (0–8 of the inventory).
pub const HOTBAR_SLOTS: u8 = 9;
/// Armour slot names, in the armour window's order.
pub const ARMOR_NAMES: [&str; 4] = ["helmet", "chestplate", "leggings", "boots"];
/// The armour slots as [`InventoryView::equipped`] names them.
const VIEW_ARMOR_NAMES: [&str; 4] = ["head", "chest", "legs", "feet"];

/// A slot of the bot's own windows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SlotRef {
    /// Main inventory slot 0–35 (0–8 hotbar).
    Inv(u8),
    /// Armour slot 0–3 (helmet, chestplate, leggings, boots).
    Armor(u8),
    /// The offhand.
    Offhand,
    /// The cursor (an item "in the hand" of the inventory screen).
    Cursor,
}

impl SlotRef {
    /// The window name events use (`windowId`).
    pub fn window(self) -> &'static str {
        match self {
            SlotRef::Inv(_) => "inventory",
            SlotRef::Armor(_) => "armor",
            SlotRef::Offhand => "offhand",
            SlotRef::Cursor => "cursor",
        }
    }

    /// The slot number within its window.
    pub fn index(self) -> u32 {
        match self {
            SlotRef::Inv(s) | SlotRef::Armor(s) => u32::from(s),
            SlotRef::Offhand | SlotRef::Cursor => 0,
        }
    }

    /// Whether the slot is in the hotbar.
    pub fn is_hotbar(self) -> bool {
        matches!(self, SlotRef::Inv(s) if s < HOTBAR_SLOTS)
    }
}

/// The bot's inventory as the server confirmed it. Changes come only from the server's packets
/// (InventoryContent, InventorySlot, MobEquipment, PlayerHotbar) and from the server's answers to
/// our own requests — never from guesses.
#[derive(Component, Debug, Clone, PartialEq)]
pub struct Inventory {
    /// Main inventory, 0–8 the hotbar.
    pub slots: Vec<Option<Item>>,
    /// Helmet, chestplate, leggings, boots.
    pub armor: [Option<Item>; 4],
    pub offhand: Option<Item>,
    pub cursor: Option<Item>,
    /// Hotbar slot held (0–8).
    pub held_slot: u8,
    /// Whether the server sent the main inventory yet (before that nothing is known).
    pub synced: bool,
    /// Windows whose full content arrived (bit per [`SlotRef::window`]); the first content of a
    /// window is a baseline, not a change.
    pub windows_seen: u8,
}

impl Default for Inventory {
    fn default() -> Self {
        Self {
            slots: vec![None; INVENTORY_SLOTS],
            armor: Default::default(),
            offhand: None,
            cursor: None,
            held_slot: 0,
            synced: false,
            windows_seen: 0,
        }
    }
}

impl Inventory {
    /// The item in `slot`.
    pub fn get(&self, slot: SlotRef) -> Option<&Item> {
        match slot {
            SlotRef::Inv(s) => self.slots.get(usize::from(s))?.as_ref(),
            SlotRef::Armor(s) => self.armor.get(usize::from(s))?.as_ref(),
            SlotRef::Offhand => self.offhand.as_ref(),
            SlotRef::Cursor => self.cursor.as_ref(),
        }
    }

    /// Puts `item` into `slot`, returning what was there. Out-of-range slots change nothing.
    pub fn set(&mut self, slot: SlotRef, item: Option<Item>) -> Option<Item> {
        let place = match slot {
            SlotRef::Inv(s) => self.slots.get_mut(usize::from(s)),
            SlotRef::Armor(s) => self.armor.get_mut(usize::from(s)),
            SlotRef::Offhand => Some(&mut self.offhand),
            SlotRef::Cursor => Some(&mut self.cursor),
        };
        match place {
            Some(p) => std::mem::replace(p, item),
            None => None,
        }
    }

    /// The item in the held hotbar slot.
    pub fn held(&self) -> Option<&Item> {
        self.get(SlotRef::Inv(self.held_slot))
    }

    /// Inventory slots (0–35) holding an item called exactly `query`, else containing it
    /// (ClawCraft's "exact then substring" rule).
    pub fn find(&self, query: &str) -> Vec<u8> {
        let exact: Vec<u8> = self.indexed().filter(|(_, it)| it.is_named(query)).map(|(s, _)| s).collect();
        if !exact.is_empty() {
            return exact;
        }
        self.indexed().filter(|(_, it)| it.name_contains(query)).map(|(s, _)| s).collect()
    }

    /// `(slot, item)` of every occupied inventory slot.
    pub fn indexed(&self) -> impl Iterator<Item = (u8, &Item)> {
        self.slots.iter().enumerate().filter_map(|(i, s)| Some((u8::try_from(i).ok()?, s.as_ref()?)))
    }

    /// The first empty main-inventory slot (9–35), else the first empty hotbar slot.
    pub fn first_empty(&self) -> Option<u8> {
        let empty = |s: &u8| self.slots.get(usize::from(*s)).is_some_and(Option::is_none);
        (HOTBAR_SLOTS..INVENTORY_SLOTS as u8).find(empty).or_else(|| (0..HOTBAR_SLOTS).find(empty))
    }

    /// How many items called `name` the inventory holds (all 36 slots).
    pub fn count_of(&self, name: &str) -> u32 {
        self.indexed().filter(|(_, it)| it.is_named(name)).map(|(_, it)| u32::from(it.count)).sum()
    }

    /// The inventory as [`InventoryView`] — names and counts per slot, what skill verifiers
    /// (`inventory_delta`, `inventory_at_least`, `equipped`) compare. Slots number 0–35 for the
    /// main inventory (0–8 the hotbar), 36–39 for the armour (helmet to boots), 40 the offhand.
    pub fn view(&self) -> InventoryView {
        let stack = |slot: usize, it: &Item| ItemStackView {
            name: it.name.to_string(),
            count: u32::from(it.count),
            slot: u32::try_from(slot).unwrap_or(u32::MAX),
        };
        let worn = self.armor.iter().chain(std::iter::once(&self.offhand));
        let stacks = self
            .slots
            .iter()
            .chain(worn)
            .enumerate()
            .filter_map(|(slot, it)| it.as_ref().map(|it| stack(slot, it)))
            .collect::<Vec<_>>();
        let held = self.slots.get(usize::from(self.held_slot)).and_then(Option::as_ref);
        let named =
            [("hand", usize::from(self.held_slot), held), ("offhand", INVENTORY_SLOTS + 4, self.offhand.as_ref())];
        let armor = (0..4).map(|i| (VIEW_ARMOR_NAMES[i], INVENTORY_SLOTS + i, self.armor[i].as_ref()));
        let equipped = named
            .into_iter()
            .chain(armor)
            .filter_map(|(name, slot, it)| Some((name.to_owned(), stack(slot, it?))))
            .collect::<BTreeMap<_, _>>();
        InventoryView { stacks, equipped }
    }

    /// Every item carried, with its slot and window, as JSON objects (`death_details.items`).
    pub fn items_json(&self) -> Vec<serde_json::Value> {
        let mut out = Vec::new();
        let mut push = |slot: SlotRef, it: &Item| {
            let mut v = serde_json::to_value(it.json()).unwrap_or_default();
            if let Some(o) = v.as_object_mut() {
                o.insert("slot".into(), slot.index().into());
                o.insert("windowId".into(), slot.window().into());
            }
            out.push(v);
        };
        for (s, it) in self.indexed() {
            push(SlotRef::Inv(s), it);
        }
        for (i, it) in self.armor.iter().enumerate() {
            if let (Some(it), Ok(i)) = (it, u8::try_from(i)) {
                push(SlotRef::Armor(i), it);
            }
        }
        if let Some(it) = &self.offhand {
            push(SlotRef::Offhand, it);
        }
        out
    }
}

/// Items the bot took from the ground recently (TakeItemEntity naming us), so the slot change
/// that follows can be told apart as a pickup.
#[derive(Component, Debug, Clone, Default, PartialEq)]
pub struct RecentPickups {
    pub entries: VecDeque<Pickup>,
}

/// One item entity the bot took.
#[derive(Debug, Clone, PartialEq)]
pub struct Pickup {
    pub tick: u64,
    pub name: Arc<str>,
    pub count: u16,
    pub position: Option<Vec3>,
}

/// How long a pickup can explain a slot change.
pub const PICKUP_WINDOW_TICKS: u64 = 40;

impl RecentPickups {
    /// Takes the oldest pickup of `name`, if any.
    pub fn take(&mut self, name: &str) -> Option<Pickup> {
        let i = self.entries.iter().position(|p| &*p.name == name)?;
        self.entries.remove(i)
    }

    /// Forgets pickups older than the window.
    pub fn expire(&mut self, now: u64) {
        self.entries.retain(|p| now <= p.tick + PICKUP_WINDOW_TICKS);
    }
}

/// Appends the events describing `slot` going from `old` to `new`. `source` says why when the
/// bot knows (`move`, `drop`, `used`); pickups are matched against `pickups`.
pub fn slot_events(
    slot: SlotRef,
    old: Option<&Item>,
    new: Option<&Item>,
    source: Option<&str>,
    pickups: &mut RecentPickups,
    out: &mut EventBatch,
) {
    let (window_id, index) = (slot.window().to_owned(), slot.index());
    let src = || source.map(str::to_owned);
    match (old, new) {
        (None, None) => {}
        (None, Some(n)) => {
            let pickup = if source.is_none() { pickups.take(&n.name) } else { None };
            out.push(ItemAdded {
                bot: out.bot(),
                item: n.json(),
                slot: index,
                window_id,
                source: pickup.as_ref().map(|_| "pickup".to_owned()).or_else(src),
                entity_position: pickup.and_then(|p| p.position),
            });
        }
        (Some(o), None) => {
            // A worn-out tool vanishes with at most one use left; anything else was moved or used.
            if source.is_none() && o.durability.is_some_and(|d| d <= 1) {
                out.push(ToolBroken { bot: out.bot(), item: o.json(), slot: index, window_id });
            } else {
                out.push(ItemRemoved { bot: out.bot(), item: o.json(), slot: index, window_id, source: src() });
            }
        }
        (Some(o), Some(n)) if o.name != n.name => {
            slot_events(slot, Some(o), None, source, pickups, out);
            slot_events(slot, None, Some(n), source, pickups, out);
        }
        (Some(o), Some(n)) => {
            if o.count != n.count {
                let pickup = if source.is_none() && n.count > o.count { pickups.take(&n.name) } else { None };
                out.push(ItemCountChanged {
                    bot: out.bot(),
                    item: n.json(),
                    slot: index,
                    window_id: window_id.clone(),
                    old_count: o.count,
                    new_count: n.count,
                    source: pickup.as_ref().map(|_| "pickup".to_owned()).or_else(src),
                    entity_position: pickup.and_then(|p| p.position),
                });
            }
            if let (Some(before), Some(after)) = (o.durability, n.durability)
                && after < before
            {
                out.push(ItemDamaged {
                    bot: out.bot(),
                    item: n.json(),
                    slot: index,
                    window_id,
                    previous_durability: before,
                    durability: after,
                });
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clawcraft_protocol::packets::ItemInstance;

    fn item(name: &str, count: u16, durability: Option<u32>) -> Item {
        Item {
            network_id: 1,
            name: name.into(),
            count,
            metadata: 0,
            durability,
            max_durability: durability.map(|_| 59),
            stack_id: Some(1),
            enchantments: vec![],
            wire: ItemInstance::default(),
        }
    }

    fn kinds(out: &EventBatch) -> Vec<&str> {
        out.events().iter().map(|e| e.kind()).collect()
    }

    #[test]
    fn slot_changes_become_clawcraft_events() {
        let mut p = RecentPickups::default();
        let mut out = EventBatch::new(Entity::PLACEHOLDER);
        let dirt = item("minecraft:dirt", 3, None);
        slot_events(SlotRef::Inv(4), None, Some(&dirt), None, &mut p, &mut out);
        slot_events(SlotRef::Inv(4), Some(&dirt), Some(&dirt.with_count(5)), None, &mut p, &mut out);
        slot_events(SlotRef::Inv(4), Some(&dirt), None, Some("drop"), &mut p, &mut out);
        let pick = item("minecraft:wooden_pickaxe", 1, Some(10));
        let worn = item("minecraft:wooden_pickaxe", 1, Some(9));
        slot_events(SlotRef::Inv(0), Some(&pick), Some(&worn), None, &mut p, &mut out);
        slot_events(SlotRef::Inv(0), Some(&item("minecraft:wooden_pickaxe", 1, Some(1))), None, None, &mut p, &mut out);
        slot_events(SlotRef::Armor(0), Some(&dirt), Some(&pick), None, &mut p, &mut out);
        assert_eq!(
            kinds(&out),
            [
                "item_added",
                "item_count_changed",
                "item_removed",
                "item_damaged",
                "tool_broken",
                "item_removed",
                "item_added"
            ]
        );
        assert_eq!(out.events()[1].fields()["oldCount"], 3);
        assert_eq!(out.events()[1].fields()["newCount"], 5);
        assert_eq!(out.events()[2].fields()["source"], "drop");
        assert_eq!(out.events()[3].fields()["previousDurability"], 10);
        assert_eq!(out.events()[6].fields()["windowId"], "armor");
    }

    #[test]
    fn a_recent_pickup_explains_an_addition_once() {
        let mut p = RecentPickups::default();
        p.entries.push_back(Pickup {
            tick: 10,
            name: "minecraft:dirt".into(),
            count: 1,
            position: Some(Vec3::new(2.5, -61.0, 0.5)),
        });
        let mut out = EventBatch::new(Entity::PLACEHOLDER);
        let dirt = item("minecraft:dirt", 1, None);
        slot_events(SlotRef::Inv(9), None, Some(&dirt), None, &mut p, &mut out);
        slot_events(SlotRef::Inv(10), None, Some(&dirt), None, &mut p, &mut out);
        assert_eq!(out.events()[0].fields()["source"], "pickup");
        assert_eq!(out.events()[0].fields()["entityPosition"]["x"], 2.5);
        assert!(out.events()[1].fields().get("source").is_none(), "one pickup explains one change");
        p.entries.push_back(Pickup { tick: 10, name: "minecraft:dirt".into(), count: 1, position: None });
        p.expire(10 + PICKUP_WINDOW_TICKS + 1);
        assert!(p.entries.is_empty());
    }

    #[test]
    fn finding_slots_and_snapshots() {
        let mut inv = Inventory::default();
        inv.set(SlotRef::Inv(3), Some(item("minecraft:stone_pickaxe", 1, Some(100))));
        inv.set(SlotRef::Inv(12), Some(item("minecraft:wooden_pickaxe", 1, Some(5))));
        inv.set(SlotRef::Inv(13), Some(item("minecraft:dirt", 10, None)));
        inv.set(SlotRef::Inv(14), Some(item("minecraft:dirt", 4, None)));
        inv.set(SlotRef::Armor(1), Some(item("minecraft:iron_chestplate", 1, Some(200))));
        inv.held_slot = 3;
        assert_eq!(inv.find("wooden_pickaxe"), vec![12]);
        assert_eq!(inv.find("pickaxe"), vec![3, 12], "substring when nothing matches exactly");
        assert_eq!(inv.count_of("dirt"), 14);
        assert_eq!(inv.first_empty(), Some(9));
        assert_eq!(inv.held().map(Item::short_name), Some("stone_pickaxe"));
        let view = inv.view();
        assert_eq!(view.count("dirt"), 14);
        assert_eq!(view.stacks.len(), 5);
        assert_eq!(view.equipped["hand"].name, "minecraft:stone_pickaxe");
        assert_eq!(
            (view.equipped["chest"].name.as_str(), view.equipped["chest"].slot),
            ("minecraft:iron_chestplate", 37)
        );
        assert!(!view.equipped.contains_key("offhand"));
        let items = inv.items_json();
        assert_eq!(items.len(), 5);
        assert_eq!(items[4]["windowId"], "armor");
        assert_eq!(inv.set(SlotRef::Inv(200), None), None, "out of range changes nothing");
    }
}
