//! Inventory packets from the server: ItemRegistry → [`ItemIds`]; InventoryContent / InventorySlot for the inventory (36), armour, offhand and
//! cursor → [`Inventory`] and its events; MobEquipment of our own runtime id and PlayerHotbar →
//! the held slot; TakeItemEntity naming us (the entity plugin's [`ItemPickedUp`]) → pickups.

use bevy_ecs::prelude::*;
use clawcraft_core::{AgentEvent, EntityIds, EventBatch, LocalBot, TickCount};
use clawcraft_entity::ItemPickedUp;
use clawcraft_network::{ClientboundPacket, Connection};
use clawcraft_protocol::packets::{
    InventoryContent, InventorySlot, ItemInstance, ItemRegistry, MobEquipment, PlayerHotbar,
};

use crate::events::HeldSlotChanged;
use crate::inventory::{HOTBAR_SLOTS, INVENTORY_SLOTS, Inventory, Pickup, RecentPickups, SlotRef, slot_events};
use crate::item::ItemIds;
use crate::requests::InventoryJobs;

/// Gives every connected bot its inventory components.
#[allow(clippy::type_complexity)]
pub fn attach_inventory(
    mut commands: Commands,
    bots: Query<(Entity, &Connection), (With<LocalBot>, Without<Inventory>)>,
) {
    for (bot, conn) in &bots {
        commands.entity(bot).insert((
            Inventory::default(),
            ItemIds::new(conn.protocol().info().game_version),
            RecentPickups::default(),
            InventoryJobs::default(),
        ));
    }
}

/// The window bit of [`Inventory::windows_seen`].
fn window_bit(window: &str) -> u8 {
    match window {
        "inventory" => 1,
        "armor" => 2,
        "offhand" => 4,
        _ => 8,
    }
}

/// The slot `index` of window `window`, if it is one of ours.
fn slot_in(window: &str, index: u32) -> Option<SlotRef> {
    let i = u8::try_from(index).ok()?;
    match window {
        "inventory" if usize::from(i) < INVENTORY_SLOTS => Some(SlotRef::Inv(i)),
        "armor" if i < 4 => Some(SlotRef::Armor(i)),
        // Servers put the offhand item in slot 0 of its window (some number it 1).
        "offhand" if i <= 1 => Some(SlotRef::Offhand),
        "ui" if i == 0 => Some(SlotRef::Cursor),
        _ => None,
    }
}

/// Applies the tick's inventory packets in order.
#[allow(clippy::type_complexity)]
pub fn handle_inventory_packets(
    mut packets: MessageReader<ClientboundPacket>,
    mut picked: MessageReader<ItemPickedUp>,
    mut bots: Query<(&mut Inventory, &mut ItemIds, &mut RecentPickups, Option<&EntityIds>)>,
    ticks: Res<TickCount>,
    mut events: MessageWriter<AgentEvent>,
) {
    for p in picked.read() {
        let Ok((_, ids, mut pickups, _)) = bots.get_mut(p.bot) else { continue };
        if !p.by_self {
            continue;
        }
        if let Some(item) = &p.item {
            let name = ids.name(item.network_id);
            pickups.entries.push_back(Pickup { tick: ticks.0, name, count: item.count, position: p.position });
        }
    }
    for pkt in packets.read() {
        let Ok((mut inv, mut ids, mut pickups, own)) = bots.get_mut(pkt.bot) else { continue };
        let mut out = EventBatch::new(pkt.bot);
        if let Some(r) = pkt.view::<ItemRegistry>() {
            ids.extend(&r.itemstates);
        } else if let Some(c) = pkt.view::<InventoryContent>() {
            let bit = window_bit(&c.window_id);
            let baseline = inv.windows_seen & bit == 0;
            let mut any = false;
            for (i, wire) in c.input.iter().enumerate() {
                let Some(slot) = u32::try_from(i).ok().and_then(|i| slot_in(&c.window_id, i)) else { continue };
                any = true;
                set_slot(&mut inv, &ids, slot, wire, (!baseline).then_some(&mut *pickups), &mut out);
            }
            if any {
                inv.windows_seen |= bit;
                if c.window_id == "inventory" {
                    inv.synced = true;
                }
            } else {
                tracing::debug!(window = %c.window_id, "inventory content of a window we do not track");
            }
        } else if let Some(s) = pkt.view::<InventorySlot>() {
            match slot_in(&s.window_id, s.slot) {
                Some(slot) => set_slot(&mut inv, &ids, slot, &s.item, Some(&mut *pickups), &mut out),
                None => tracing::debug!(window = %s.window_id, slot = s.slot, "slot of a window we do not track"),
            }
        } else if let Some(m) = pkt.view::<MobEquipment>() {
            if own.is_some_and(|o| o.runtime_id == m.runtime_entity_id) && m.selected_slot < HOTBAR_SLOTS {
                select(&mut inv, m.selected_slot, "server", &mut out);
            }
        } else if let Some(h) = pkt.view::<PlayerHotbar>()
            && h.select_slot
            && let Ok(slot) = u8::try_from(h.selected_slot)
            && slot < HOTBAR_SLOTS
        {
            select(&mut inv, slot, "server", &mut out);
        }
        events.write_batch(out.drain());
    }
    for (_, _, mut pickups, _) in &mut bots {
        pickups.expire(ticks.0);
    }
}

/// Sets one slot from the server's word; `pickups` is `None` for a baseline (no events).
fn set_slot(
    inv: &mut Inventory,
    ids: &ItemIds,
    slot: SlotRef,
    wire: &ItemInstance,
    pickups: Option<&mut RecentPickups>,
    out: &mut EventBatch,
) {
    let new = ids.item(wire);
    let old = inv.set(slot, new.clone());
    if let Some(pickups) = pickups
        && old != new
    {
        slot_events(slot, old.as_ref(), new.as_ref(), None, pickups, out);
    }
}

/// Selects hotbar slot `slot`, emitting `held_slot_changed` when it changes.
pub fn select(inv: &mut Inventory, slot: u8, source: &str, out: &mut EventBatch) {
    if inv.held_slot == slot {
        return;
    }
    let previous = std::mem::replace(&mut inv.held_slot, slot);
    out.push(HeldSlotChanged {
        bot: out.bot(),
        slot,
        previous,
        item: inv.held().map(crate::item::Item::json),
        source: source.into(),
    });
}

/// The MobEquipment that tells the server we hold hotbar slot `slot` (with the exact item).
pub fn equipment_packet(runtime_id: u64, inv: &Inventory, slot: u8) -> MobEquipment {
    let item = inv.get(SlotRef::Inv(slot)).map_or_else(ItemInstance::air, |i| i.wire.clone());
    MobEquipment { runtime_entity_id: runtime_id, item, slot, selected_slot: slot, window_id: "inventory".into() }
}

/// Holds hotbar slot `slot`: tells the server and updates the view (selection is the client's to
/// decide; servers do not answer it).
pub fn hold(conn: &mut Connection, runtime_id: u64, inv: &mut Inventory, slot: u8, out: &mut EventBatch) {
    conn.send(&equipment_packet(runtime_id, inv, slot));
    select(inv, slot, "bot", out);
}

/// Keeps [`clawcraft_core::InventoryView`] (what skill verifiers read) equal to the inventory the
/// server confirmed. Absent until the server sent the main inventory: readers take absence as
/// "unknown", never as "empty".
pub fn publish_inventory_view(
    mut commands: Commands,
    bots: Query<(Entity, &Inventory, Option<&clawcraft_core::InventoryView>), Changed<Inventory>>,
) {
    for (bot, inv, published) in &bots {
        if !inv.synced {
            continue;
        }
        let view = inv.view();
        if published != Some(&view) {
            commands.entity(bot).insert(view);
        }
    }
}
