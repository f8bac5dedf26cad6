//! `NavigationPlugin`: A* on the block map and the commands that use it.
//!
//! - [`grid`]: the block map as the navigator reads it — one [`grid::NavCell`] per block state,
//!   classified from the real collision boxes, and [`grid::Snapshot`], the sub-chunks around a
//!   search copied so it can run off the game thread.
//! - [`search`]: A* with costs in ticks, the move set (walk, diagonal, step/jump up, drop, ladder,
//!   swim; doors, pillar, bridge and dig opt-in), node and time budgets, best partial paths.
//! - [`goal`]: the `goal` object of `walk`/`path`/`reachable` (near any of several targets, away
//!   from, within a box, a level, any of several goals) resolved into a search [`Goal`].
//! - [`plan`]: searches run inline when short, else on bevy_tasks' `AsyncComputeTaskPool`,
//!   polled each tick.
//! - [`flee`]: `flee`, the walk with an inverted goal (away from a mob, player or point),
//!   re-planned as the threat moves.
//! - [`walk`]: `walk` and `follow`, per-tick actions in the `walk` slot that drive the movement
//!   plugin's `MovementIntent` and re-plan when the world or the target changes.
//! - [`act`]: the world steps of a walk (open a door, dig, bridge, pillar) as sub-steps the walk
//!   owns, run by the interaction layer's own mine/place/interact code.
//! - [`slot`]: the `walk` slot's shared pieces (`walk_done`, the progress watchdog) and `move`,
//!   a straight line toward a point.
//! - `path`, `reachable`, `walk`, `follow`, `move`, `flee` and `abort_walk`.

pub mod act;
pub mod commands;
pub mod flee;
pub mod goal;
pub mod grid;
pub mod plan;
pub mod search;
pub mod slot;
pub mod walk;

use bevy_app::{App, Plugin};
use bevy_ecs::prelude::*;
use clawcraft_core::{ActionSet, AppActionExt, AppCommandExt, AppEventExt, AppWorkExt, CorePlugin, TickSet};

pub use search::{Goal, MoveKind, Options, SearchResult, Step, find_path};
pub use slot::{
    BlockChange, MoveAction, Progress, WALK_SLOT, WalkDone, WalkProgress, flat_distance, glide, step_move_actions,
};
pub use walk::{FollowAction, Navigator, WalkAction};

/// What the navigator may do besides walking.
#[derive(Resource, Debug, Clone, Copy, PartialEq, Default)]
pub struct NavSettings {
    /// Plan through closed doors, gates and trapdoors (opened on the way) unless a command says
    /// `openDoors:false`. On when the interaction layer (`InteractPlugin`) is in the app.
    pub open_doors: bool,
}

/// Path finding and the walk/follow actions.
pub struct NavigationPlugin;

impl Plugin for NavigationPlugin {
    fn build(&self, app: &mut App) {
        if !app.is_plugin_added::<CorePlugin>() {
            app.add_plugins(CorePlugin);
        }
        app.init_resource::<NavSettings>()
            .add_systems(
                clawcraft_core::TickWork,
                commands::answer_searches
                    .in_set(TickSet::Commands)
                    .after(clawcraft_core::execute_commands)
                    .run_if(commands::searches_waiting),
            )
            .add_systems(
                clawcraft_core::TickWork,
                (
                    walk::step_walks,
                    walk::step_follows,
                    flee::step_flees,
                    act::start_work::<walk::WalkAction>,
                    act::start_work::<walk::FollowAction>,
                    act::start_work::<flee::FleeAction>,
                    act::advance_work::<walk::WalkAction>,
                    act::advance_work::<walk::FollowAction>,
                    act::advance_work::<flee::FleeAction>,
                )
                    .chain()
                    .in_set(ActionSet::Step)
                    .in_set(clawcraft_core::gate::Gate::Actions),
            )
            .add_systems(
                clawcraft_core::TickWork,
                step_move_actions.in_set(ActionSet::Step).in_set(clawcraft_core::gate::Gate::Actions),
            )
            // After the watchdog too, so every way a walk ended this tick is seen.
            .add_systems(
                clawcraft_core::TickWork,
                (
                    act::release_hand::<walk::WalkAction>,
                    act::release_hand::<walk::FollowAction>,
                    act::release_hand::<flee::FleeAction>,
                )
                    .in_set(clawcraft_core::TickSet::Actions)
                    .run_if(clawcraft_core::gate::action_ended_lately)
                    .after(ActionSet::Watchdog),
            )
            // Searches that finished on the pool wake the runner: answered between ticks.
            .add_systems(
                clawcraft_core::Interim,
                (
                    commands::answer_searches.run_if(commands::searches_waiting),
                    walk::answer_first_plans.run_if(walk::first_plans_waiting),
                )
                    .after(clawcraft_core::execute_queries)
                    .in_set(clawcraft_core::InterimSet::Execute),
            )
            .add_pending_work(
                "path search waiting",
                clawcraft_core::gate::any_bot::<&commands::PendingSearches>(|p| !p.0.is_empty()),
            )
            // `walk_done` and `abort_walk`, once for the slot `walk`, `follow` and `move` share.
            .add_async_action::<MoveAction>()
            // `flee` shares the slot (and `abort_walk`) and ends in its own `flee_done`.
            .add_agent_event::<clawcraft_core::DoneOf<flee::FleeAction>>()
            .add_agent_command::<flee::FleeCmd>()
            .add_agent_command::<commands::MoveCmd>()
            .add_agent_command::<commands::PathCmd>()
            .add_agent_command::<commands::ReachableCmd>()
            .add_agent_command::<commands::WalkCmd>()
            .add_agent_command::<commands::FollowCmd>();
    }

    fn finish(&self, app: &mut App) {
        // Doors are opened on the way when something can open them.
        if app.is_plugin_added::<clawcraft_interact::InteractPlugin>() {
            app.world_mut().resource_mut::<NavSettings>().open_doors = true;
        }
    }
}
