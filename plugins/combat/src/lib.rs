//! `CombatPlugin`: fighting and staying alive on Bedrock's rules.
//!
//! - [`fight`]: `fight` / `abort_fight` — an async action in its own `fight` slot that moves the
//!   body and uses the hand (hand actions are `BUSY` meanwhile), ending in `fight_done`.
//! - [`data`]: the Bedrock attack damage of weapons and defence points of armour pieces (the item
//!   data carries neither).
//! - [`target`]: naming an entity (name, custom name or runtime id) as `attack` does.
//! - [`bow`]: `shoot` / `abort_shoot` — draw a bow and release it at an entity (leading its
//!   motion) or a point, ending in `shoot_done`.
//! - [`wear`]: `wear` / `abort_wear` — put on an armour piece, ending in `wear_done`.
//! - [`clutch`]: auto_clutch's action — a water bucket poured under a fall, picked back up after,
//!   ending in `clutch_done`.
//! - [`policy`]: `policy` / `policies` — auto_eat, auto_armour, auto_defend, auto_clutch. They live here, not
//!   in a crate of their own, because they are this crate's users: they decide with its tables
//!   (armour defence) and its targets (hostile mobs), and act through its commands (`fight`,
//!   `wear`) and interact's `eat`; a policy crate would depend on all of this and own nothing.
//!
//! Bedrock's rules, not Java's: there is no attack cooldown (an axe hits as often as a sword), a
//! hit entity is invulnerable for 10 ticks (a hit during them counts only when stronger, as the
//! difference), and a hit while falling is a ×1.5 critical hit.

pub mod bow;
pub mod clutch;
pub mod data;
pub mod fight;
pub mod policy;
pub mod target;
pub mod wear;

use bevy_app::{App, Plugin};
use bevy_ecs::prelude::*;
use clawcraft_core::{
    ActionSet, AppActionExt, AppCommandExt, AppEventExt, AppPolicyExt, AppWorkExt, CorePlugin, TickSet,
};

pub use fight::{FIGHT_SLOT, Fight, FightDone, Fighting};

/// Fighting and the survival policies.
pub struct CombatPlugin;

impl Plugin for CombatPlugin {
    fn build(&self, app: &mut App) {
        if !app.is_plugin_added::<CorePlugin>() {
            app.add_plugins(CorePlugin);
        }
        app.add_systems(
            clawcraft_core::TickWork,
            (
                (fight::watch_fights, fight::step_fights).chain(),
                wear::step_wearing,
                (bow::watch_shots, bow::step_shots).chain(),
                clutch::watch_clutches,
            )
                .in_set(ActionSet::Step)
                .in_set(clawcraft_core::gate::Gate::Actions),
        )
        // After the watchdog too, so every way a fight ended this tick is seen.
        .add_systems(
            clawcraft_core::TickWork,
            (fight::release_hand, bow::release_hand, bow::cancel_unreleased_draws)
                .in_set(TickSet::Actions)
                .run_if(clawcraft_core::gate::action_ended_lately)
                .after(ActionSet::Watchdog),
        )
        .add_systems(
            clawcraft_core::TickWork,
            policy::track_hurts
                .in_set(TickSet::HandlePackets)
                .in_set(clawcraft_core::gate::Gate::Packets)
                .run_if(policy::any_policy),
        )
        // After the watchdog: an action that ended this tick frees its slot for the next one.
        .add_systems(
            clawcraft_core::TickWork,
            policy::run_policies.in_set(TickSet::Actions).after(ActionSet::Watchdog).run_if(policy::any_policy),
        )
        // After the watchdog, and after the policies: a clutch that ended this tick is seen.
        .add_systems(
            clawcraft_core::TickWork,
            clutch::run_clutches
                .in_set(TickSet::Actions)
                .after(ActionSet::Watchdog)
                .after(policy::run_policies)
                .run_if(clutch::any_clutch),
        )
        .add_work_check("falling with auto_clutch", {
            let mut state = None;
            move |world| clutch::falling_with_clutch(world, &mut state)
        })
        .add_agent_command::<fight::Fight>()
        .add_async_action::<fight::Fighting>()
        .add_agent_command::<bow::Shoot>()
        .add_async_action::<bow::Shooting>()
        .add_agent_command::<wear::Wear>()
        .add_async_action::<wear::Wearing>()
        .add_async_action::<clutch::Clutching>()
        .add_agent_command::<policy::PolicyCmd>()
        .add_agent_command::<policy::PoliciesCmd>()
        .add_agent_event::<policy::PolicyAction>()
        .add_policy_switch(policy::switch_off);
    }
}
