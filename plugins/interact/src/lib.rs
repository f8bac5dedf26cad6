//! `InteractPlugin`: acting on the world — mine, place, eat/drink, interact (doors, trapdoors,
//! gates, levers, buttons), sleep/wake, use, fill/empty a bucket, throw, attack, drop, give, write a
//! sign or a book — where every action ends in a receipt the server confirmed: what the server said,
//! with evidence, or why not.
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

pub mod attack;
pub mod block_use;
pub mod bucket;
pub mod common;
pub mod eat;
pub mod items_out;
pub mod mine;
pub mod mining;
pub mod place;
pub mod use_slot;
pub mod writing;

use bevy_app::{App, Plugin};
use bevy_ecs::prelude::*;
use clawcraft_core::{ActionSet, AppActionExt, AppCommandExt, AppEventExt, CorePlugin, LocalBot, TickSet};
use clawcraft_player::InputExtras;

/// Acting on the world with server-confirmed receipts.
pub struct InteractPlugin;

impl Plugin for InteractPlugin {
    fn build(&self, app: &mut App) {
        if !app.is_plugin_added::<CorePlugin>() {
            app.add_plugins(CorePlugin);
        }
        app.add_systems(
            clawcraft_core::TickWork,
            attach.in_set(TickSet::HandlePackets).in_set(clawcraft_core::gate::Gate::Packets),
        )
        .add_systems(
            clawcraft_core::TickWork,
            block_use::track_sleep
                .in_set(TickSet::HandlePackets)
                .after(attach)
                .in_set(clawcraft_core::gate::Gate::Packets),
        )
        .add_systems(
            clawcraft_core::TickWork,
            (
                (mine::watch_mining, mine::step_mining).chain(),
                (eat::watch_eating, eat::step_eating).chain(),
                (place::watch_placing, place::step_placing).chain(),
                block_use::step_interacting,
                block_use::step_sleeping,
                block_use::step_waking,
                block_use::step_using,
                attack::step_attacking,
                (bucket::watch_buckets::<bucket::Filling>, bucket::step_buckets::<bucket::Filling>).chain(),
                (bucket::watch_buckets::<bucket::Emptying>, bucket::step_buckets::<bucket::Emptying>).chain(),
                items_out::step_throwing,
                items_out::step_dropping,
                writing::step_writing_sign,
                writing::step_writing_book,
            )
                .in_set(ActionSet::Step)
                .in_set(clawcraft_core::gate::Gate::Actions),
        )
        // After the watchdog too, so every way an action ended this tick is seen.
        .add_systems(
            clawcraft_core::TickWork,
            (mine::abort_unfinished_breaks, eat::release_unfinished_uses, place::stop_unfinished_uses_on)
                .in_set(TickSet::Actions)
                .run_if(clawcraft_core::gate::action_ended_lately)
                .after(ActionSet::Watchdog),
        )
        .add_agent_command::<mine::Mine>()
        .add_async_action::<mine::Mining>()
        .add_agent_command::<eat::Eat>()
        .add_async_action::<eat::Eating>()
        .add_agent_command::<place::Place>()
        .add_async_action::<place::Placing>()
        .add_agent_command::<block_use::BlockTarget>()
        .add_async_action::<block_use::Interacting>()
        .add_agent_command::<block_use::Sleep>()
        .add_async_action::<block_use::Sleeping>()
        .add_agent_event::<block_use::SleepStarted>()
        .add_agent_command::<block_use::Wake>()
        .add_async_action::<block_use::Waking>()
        .add_agent_command::<block_use::Use>()
        .add_async_action::<block_use::Using>()
        .add_agent_command::<bucket::Fill>()
        .add_async_action::<bucket::Filling>()
        .add_agent_command::<bucket::Empty>()
        .add_async_action::<bucket::Emptying>()
        .add_agent_command::<attack::Attack>()
        .add_async_action::<attack::Attacking>()
        .add_agent_command::<items_out::Throw>()
        .add_async_action::<items_out::Throwing>()
        .add_agent_command::<items_out::DropCmd>()
        .add_async_action::<items_out::Dropping>()
        .add_agent_command::<items_out::Give>()
        .add_async_action::<items_out::Giving>()
        .add_agent_command::<writing::WriteSign>()
        .add_async_action::<writing::WritingSign>()
        .add_agent_command::<writing::WriteBook>()
        .add_async_action::<writing::WritingBook>()
        .add_agent_command::<writing::ReadBook>();
    }
}

/// Gives every bot what the actions keep between ticks.
#[allow(clippy::type_complexity)]
fn attach(mut commands: Commands, bots: Query<(Entity, Has<InputExtras>), (With<LocalBot>, Without<mine::MineTrace>)>) {
    for (bot, has_input) in &bots {
        let mut e = commands.entity(bot);
        e.insert((
            mine::MineTrace::default(),
            eat::EatTrace::default(),
            place::PlaceTrace::default(),
            block_use::SleepState::default(),
        ));
        if !has_input {
            e.insert(InputExtras::default());
        }
    }
}
