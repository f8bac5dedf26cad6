//! `InteractPlugin`: acting on the world — mine, place, eat/drink, interact (doors, trapdoors,
//! gates, levers, buttons), sleep/wake, use, throw, attack, drop, give — where every action ends
//! in a receipt the server confirmed: what the server said, with evidence, or why not.
//!
//! Every action here is an async action of the core action model
//! ([`clawcraft_core::action`]): the command checks what it can (reach, line of sight, the item,
//! the target) and answers at once in ClawCraft's shape; the action then runs as a component and
//! ends in exactly one completion event (`mine_done`, `place_done`, `eat_done`, …) carrying the
//! request id, a `status`, a `reason` when not done, `confirmed`, and the evidence the server gave.
//! The hand holds one item, so mining (`abort_mine`), eating (`abort_eat`) and every other use of
//! the hand (`abort_use`) exclude each other.
//!
//! [`mining`] is the break-time table (the Bedrock rules, from the vendored data).

pub mod common;
pub mod mine;
pub mod mining;

use bevy_app::{App, Plugin, Update};
use bevy_ecs::prelude::*;
use clawcraft_core::{ActionSet, AppActionExt, AppCommandExt, CorePlugin, LocalBot};
use clawcraft_player::InputExtras;

/// Acting on the world with server-confirmed receipts.
pub struct InteractPlugin;

impl Plugin for InteractPlugin {
    fn build(&self, app: &mut App) {
        if !app.is_plugin_added::<CorePlugin>() {
            app.add_plugins(CorePlugin);
        }
        app.add_systems(Update, attach.before(ActionSet::Step))
            .add_systems(
                Update,
                (mine::watch_mining, mine::step_mining, mine::abort_unfinished_breaks).chain().in_set(ActionSet::Step),
            )
            .add_agent_command::<mine::Mine>()
            .add_async_action::<mine::Mining>();
    }
}

/// Gives every bot what the actions keep between ticks.
#[allow(clippy::type_complexity)]
fn attach(mut commands: Commands, bots: Query<(Entity, Has<InputExtras>), (With<LocalBot>, Without<mine::MineTrace>)>) {
    for (bot, has_input) in &bots {
        let mut e = commands.entity(bot);
        e.insert(mine::MineTrace::default());
        if !has_input {
            e.insert(InputExtras::default());
        }
    }
}
