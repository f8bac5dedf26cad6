//! `ViewPlugin`: rendered views for an agent, as PNG pictures.
//!
//! - `render`: the bot's first-person view (or one from any point), ray-cast through the loaded
//!   blocks near the eye ([`render`]).
//! - `map_image`: a top-down map of a radius around the bot ([`map`]).
//!
//! Both take a snapshot on the game thread ([`scene::Scene`]: shared sub-chunks and the entities
//! the bot sees), draw and encode on bevy_tasks' `AsyncComputeTaskPool` and answer as soon as
//! the picture is done (the job wakes the runner), at most [`commands::MAX_IN_FLIGHT`] at once.
//! Block colours come from `data/block_colors.tsv` ([`colors`]).

pub mod colors;
pub mod commands;
pub mod map;
// Per-axis loops index the origin, direction and boundaries together.
#[allow(clippy::needless_range_loop)]
pub mod render;
pub mod scene;

use bevy_app::{App, Plugin};
use bevy_ecs::prelude::*;
use clawcraft_core::{AppCommandExt, AppWorkExt, CorePlugin, TickSet};

pub use commands::{ImageResponse, MapImageCmd, RenderCmd, finish_renders};

/// The `render` and `map_image` commands.
pub struct ViewPlugin;

impl Plugin for ViewPlugin {
    fn build(&self, app: &mut App) {
        if !app.is_plugin_added::<CorePlugin>() {
            app.add_plugins(CorePlugin);
        }
        app.init_resource::<commands::RenderJobs>()
            .add_systems(
                clawcraft_core::TickWork,
                commands::answer_renders
                    .in_set(TickSet::Commands)
                    .after(clawcraft_core::execute_commands)
                    .run_if(commands::renders_waiting),
            )
            // A finished picture wakes the runner: answered between ticks.
            .add_systems(
                clawcraft_core::Interim,
                commands::answer_renders
                    .run_if(commands::renders_waiting)
                    .after(clawcraft_core::execute_queries)
                    .in_set(clawcraft_core::InterimSet::Execute),
            )
            .add_pending_work("picture being drawn", |world: &mut World| {
                world.get_resource::<commands::RenderJobs>().is_some_and(|j| !j.0.is_empty())
            })
            .add_agent_command::<RenderCmd>()
            .add_agent_command::<MapImageCmd>();
    }
}
