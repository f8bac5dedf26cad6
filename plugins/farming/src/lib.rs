//! `FarmingPlugin`: farming with server-confirmed receipts — `till`, `plant`, `bone_meal`,
//! `harvest` (mature crops only, by growth state; optionally replanting) — and animals: `breed`,
//! `milk`, `shear`.
//!
//! Its own crate (not `interact`): the farming rules ([`crops`]: what a hoe tills, what each
//! seed grows on, when a crop is mature) and the actions that check them belong together, and
//! they build on `interact`'s public pieces (aiming, holding an item, the item-use transaction,
//! `mine`'s break) rather than adding to it. Every action runs in the hand's `use` slot
//! (`abort_use`), so it excludes mining, eating and every other use of the hand, and ends in
//! exactly one receipt (`till_done`, `plant_done`, `bone_meal_done`, `harvest_done`, `breed_done`,
//! `milk_done`, `shear_done`).

pub mod animals;
pub mod crops;
pub mod harvest;
pub mod tend;

use bevy_app::{App, Plugin};
use bevy_ecs::prelude::*;
use clawcraft_core::{ActionSet, AppActionExt, AppCommandExt, CorePlugin};

/// Farming actions.
pub struct FarmingPlugin;

impl Plugin for FarmingPlugin {
    fn build(&self, app: &mut App) {
        if !app.is_plugin_added::<CorePlugin>() {
            app.add_plugins(CorePlugin);
        }
        app.add_systems(
            clawcraft_core::TickWork,
            (
                tend::step_tending::<tend::Tilling>,
                tend::step_tending::<tend::Planting>,
                tend::step_tending::<tend::BoneMealing>,
                harvest::step_harvesting,
                animals::step_husbandry::<animals::Breeding>,
                animals::step_husbandry::<animals::Milking>,
                animals::step_husbandry::<animals::Shearing>,
            )
                .in_set(ActionSet::Step)
                .in_set(clawcraft_core::gate::Gate::Actions),
        )
        .add_agent_command::<tend::Till>()
        .add_async_action::<tend::Tilling>()
        .add_agent_command::<tend::PlantCmd>()
        .add_async_action::<tend::Planting>()
        .add_agent_command::<tend::BoneMeal>()
        .add_async_action::<tend::BoneMealing>()
        .add_agent_command::<harvest::Harvest>()
        .add_async_action::<harvest::Harvesting>()
        .add_agent_command::<animals::Breed>()
        .add_async_action::<animals::Breeding>()
        .add_agent_command::<animals::Milk>()
        .add_async_action::<animals::Milking>()
        .add_agent_command::<animals::Shear>()
        .add_async_action::<animals::Shearing>();
    }
}
