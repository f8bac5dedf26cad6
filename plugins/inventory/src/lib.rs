//! `InventoryPlugin`: items and the bot's inventory, kept exactly as the server confirms them.
//!
//! - [`ItemIds`] — the server's item names and network ids (ItemRegistry) plus the static facts of [`data`] (stack size, durability, food, mining speed
//!   per block material, enchantment ids) from `data/bedrock/<ver>/items.json`.
//! - [`Inventory`] — 36 slots (0–8 hotbar), armour, offhand, cursor and the held slot, from
//!   InventoryContent / InventorySlot / MobEquipment / PlayerHotbar and the answers to our own
//!   requests; every change becomes ClawCraft's `item_added`, `item_removed`,
//!   `item_count_changed`, `item_damaged`, `tool_broken` or `held_slot_changed` event, with
//!   `source:"pickup"` and `entityPosition` when a TakeItemEntity of ours explains it.
//!   [`Inventory::snapshot`] is the cheap names-and-counts copy verifiers compare.
//! - [`requests`] — item-stack requests as jobs (request ids, stack ids, the inventory screen,
//!   responses applied, refusals reported, timeouts), reusable by containers and crafting.
//! - Commands `inventory`, `equip`, `unequip` ([`commands`]).

pub mod commands;
pub mod data;
pub mod events;
pub mod handlers;
pub mod inventory;
pub mod item;
pub mod requests;

use bevy_app::{App, Plugin};
use bevy_ecs::prelude::*;
use bevy_ecs::schedule::common_conditions::on_message;
use clawcraft_core::{ActionSet, AppCommandExt, AppEventExt, AppWorkExt, CorePlugin, TickSet};
use clawcraft_entity::EntitySet;

pub use data::{Food, ItemData, ItemInfo};
pub use handlers::{equipment_packet, hold, select};
pub use inventory::{ARMOR_NAMES, HOTBAR_SLOTS, INVENTORY_SLOTS, Inventory, Pickup, RecentPickups, SlotRef};
pub use item::{AQUA_AFFINITY, EFFICIENCY, Item, ItemIds, ItemJson};
pub use requests::{
    CREATED_BY_REQUEST, CustomRequest, InventoryJobDone, InventoryJobs, JobResult, Move, Screen, confirmed_slot,
    listed_slots,
};

/// Order of the inventory's work inside a tick.
#[derive(SystemSet, Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum InventorySet {
    /// Inventory packets and request answers are applied (in [`TickSet::HandlePackets`], after
    /// the entity plugin reported this tick's pickups).
    Apply,
    /// Queued inventory jobs are sent and finished jobs answered (in [`TickSet::Actions`], after
    /// the actions stepped, so a job an action queued leaves in the same tick).
    Jobs,
}

/// Items, inventory, item-stack requests and the inventory commands.
pub struct InventoryPlugin;

impl Plugin for InventoryPlugin {
    fn build(&self, app: &mut App) {
        if !app.is_plugin_added::<CorePlugin>() {
            app.add_plugins(CorePlugin);
        }
        app.add_message::<InventoryJobDone>()
            .add_message::<clawcraft_entity::ItemPickedUp>()
            .configure_sets(
                clawcraft_core::TickWork,
                InventorySet::Apply.in_set(TickSet::HandlePackets).after(EntitySet::Lifecycle),
            )
            .configure_sets(
                clawcraft_core::TickWork,
                InventorySet::Jobs.in_set(TickSet::Actions).after(ActionSet::Step),
            )
            .add_systems(
                clawcraft_core::TickWork,
                (
                    (handlers::attach_inventory, handlers::handle_inventory_packets, requests::handle_responses)
                        .chain()
                        .in_set(clawcraft_core::gate::Gate::Packets),
                    handlers::publish_inventory_view,
                )
                    .chain()
                    .in_set(InventorySet::Apply),
            )
            .add_systems(
                clawcraft_core::TickWork,
                (
                    requests::drive_jobs.run_if(requests::jobs_waiting),
                    commands::answer_jobs.run_if(on_message::<requests::InventoryJobDone>),
                )
                    .chain()
                    .in_set(InventorySet::Jobs),
            )
            .add_pending_work(
                "inventory job waiting",
                clawcraft_core::gate::any_bot::<&InventoryJobs>(requests::has_jobs),
            )
            .add_agent_command::<commands::InventoryCmd>()
            .add_agent_command::<commands::Equip>()
            .add_agent_command::<commands::Unequip>()
            .add_agent_event::<events::ItemAdded>()
            .add_agent_event::<events::ItemRemoved>()
            .add_agent_event::<events::ItemCountChanged>()
            .add_agent_event::<events::ItemDamaged>()
            .add_agent_event::<events::ToolBroken>()
            .add_agent_event::<events::HeldSlotChanged>()
            .add_agent_event::<events::ItemRequestRejected>();
    }
}
