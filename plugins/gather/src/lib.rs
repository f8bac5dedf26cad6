//! `GatherPlugin`: getting materials in one agent call.
//!
//! - [`collect`]: `collect` / `abort_collect` — "get me N oak logs": the nearest matching block
//!   in loaded chunks, a walk to it, a break with the best tool, the drop picked up (walked onto
//!   when the server does not hand it over where the bot stands), again until the inventory holds
//!   N more of what the blocks drop. An async action in its own `collect` slot, ending in
//!   `collect_done` with what the server showed: items gained from its inventory updates, blocks
//!   its block updates showed broken.
//!
//! Its own crate: it drives path finding ([`clawcraft_pathfind`]'s navigator) and the
//! interaction layer's break ([`clawcraft_interact::mine`]) as sub-steps it owns, the way `fight`
//! and a walk's dig steps do, and adds to neither.

pub mod collect;

use bevy_app::{App, Plugin};
use bevy_ecs::prelude::*;
use clawcraft_core::{ActionSet, AppActionExt, AppCommandExt, CorePlugin, TickSet};

pub use collect::{COLLECT_SLOT, Collect, CollectDone, Collecting};

/// Gathering actions.
pub struct GatherPlugin;

impl Plugin for GatherPlugin {
    fn build(&self, app: &mut App) {
        if !app.is_plugin_added::<CorePlugin>() {
            app.add_plugins(CorePlugin);
        }
        app.add_systems(
            clawcraft_core::TickWork,
            (collect::step_collects, collect::prepare_collects)
                .chain()
                .in_set(ActionSet::Step)
                .in_set(clawcraft_core::gate::Gate::Actions),
        )
        // After the watchdog too, so every way a collect ended this tick is seen.
        .add_systems(
            clawcraft_core::TickWork,
            collect::release_hand
                .in_set(TickSet::Actions)
                .run_if(clawcraft_core::gate::action_ended_lately)
                .after(ActionSet::Watchdog),
        )
        .add_agent_command::<collect::Collect>()
        .add_async_action::<collect::Collecting>();
    }
}
