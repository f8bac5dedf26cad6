//! `ContainersPlugin`: containers, crafting and smelting — the survival loop from logs to iron
//! tools, every step confirmed by the server.
//!
//! - [`window`] — the open container window as the server sent it (ContainerOpen,
//!   InventoryContent/InventorySlot for the window, ContainerSetData for furnace progress,
//!   ContainerClose), with the events `container_opened`, `container_changed`,
//!   `container_closed` and `furnace_output_ready`.
//! - [`recipes`] — the server's crafting recipes from CraftingData (shaped, shapeless; item
//!   names, old numeric ids and item tags as ingredients), what the inventory can make, and
//!   consumption plans split across stacks.
//! - [`actions`] — `open`, `take`, `put`, `craft` (async, one slot `container`, `abort_container`;
//!   receipts `open_done`, `take_done`, `put_done`, `craft_done`), `close`, `container`,
//!   `recipes`. Moves and crafts go through the inventory's item-stack request jobs
//!   ([`clawcraft_inventory::CustomRequest`]): the inventory view changes only with the server's
//!   ItemStackResponse, and so does the window's ([`window::WindowRequests`]: every accepted
//!   answer to a take/put is applied to it, even when the action was aborted meanwhile). A
//!   take/put queues its request only once it holds the container slot: a `BUSY` one sends
//!   nothing. A craft is one request — `craft_recipe_auto` (several crafts at once),
//!   `results_deprecated`, a `consume` per ingredient stack, and a `place` of the result from the
//!   created output (slot 50, named by the request id) into the inventory — sent with the
//!   inventory screen (2×2 recipes) or the crafting table's window (3×3) open, as the game
//!   requires.
//!
//! - [`trade`] — villager trading: `trade_open` (async, `trade_open_done` with the offers of the
//!   server's UpdateTrade), `trades`, `trade` (async, `trade_done`: the trades the server
//!   confirmed and what changed hands); each trade pays into the trade screen's input slots, then
//!   runs `craft_recipe` with the offer's id — two item-stack requests, as a client sends them.
//!
//! Smelting is `open` a furnace / smoker / blast furnace, `put` fuel and input, wait for
//! `furnace_output_ready`, `take` `slot:"output"`: the server smelts.

pub mod actions;
pub mod recipes;
pub mod trade;
pub mod window;

use bevy_app::{App, Plugin};
use bevy_ecs::prelude::*;
use clawcraft_core::{ActionSet, AppActionExt, AppCommandExt, AppEventExt, CorePlugin, LocalBot, TickSet};
use clawcraft_inventory::{InventorySet, ItemIds};
use clawcraft_network::ClientboundPacket;
use clawcraft_protocol::packets::CraftingData;

pub use recipes::{Recipe, Recipes};
pub use trade::{OpenTrade, TradeWindow};
pub use window::{OpenContainer, Window, WindowRequests};

/// Containers, crafting and smelting.
pub struct ContainersPlugin;

impl Plugin for ContainersPlugin {
    fn build(&self, app: &mut App) {
        if !app.is_plugin_added::<CorePlugin>() {
            app.add_plugins(CorePlugin);
        }
        app.add_systems(
            clawcraft_core::TickWork,
            (attach, read_recipes, window::track_window, window::apply_stack_responses, trade::track_trade)
                .chain()
                .in_set(TickSet::HandlePackets)
                .after(InventorySet::Apply)
                .in_set(clawcraft_core::gate::Gate::Packets),
        )
        .add_systems(
            clawcraft_core::TickWork,
            (
                actions::step_opening,
                actions::step_transfers,
                actions::step_crafting,
                trade::step_trade_opening,
                trade::step_trading,
            )
                .in_set(ActionSet::Step)
                .in_set(clawcraft_core::gate::Gate::Actions),
        )
        .add_agent_command::<actions::Open>()
        .add_async_action::<actions::Opening>()
        .add_agent_command::<actions::Take>()
        .add_async_action::<actions::Taking>()
        .add_agent_command::<actions::Put>()
        .add_async_action::<actions::Putting>()
        .add_agent_command::<actions::Craft>()
        .add_async_action::<actions::Crafting>()
        .add_agent_command::<actions::Close>()
        .add_agent_command::<actions::ContainerCmd>()
        .add_agent_command::<actions::RecipesCmd>()
        .add_agent_command::<trade::TradeOpen>()
        .add_async_action::<trade::TradeOpening>()
        .add_agent_command::<trade::TradesCmd>()
        .add_agent_command::<trade::Trade>()
        .add_async_action::<trade::Trading>()
        .add_agent_event::<window::ContainerOpened>()
        .add_agent_event::<window::ContainerClosed>()
        .add_agent_event::<window::ContainerChanged>()
        .add_agent_event::<window::FurnaceOutputReady>();
    }
}

/// Gives every bot a recipe book.
fn attach(mut commands: Commands, bots: Query<Entity, (With<LocalBot>, Without<Recipes>)>) {
    for bot in &bots {
        commands.entity(bot).insert((
            Recipes::default(),
            Window::default(),
            window::WindowRequests::default(),
            TradeWindow::default(),
        ));
    }
}

/// Reads CraftingData into the bot's [`Recipes`].
fn read_recipes(mut packets: MessageReader<ClientboundPacket>, mut bots: Query<(&mut Recipes, &ItemIds)>) {
    for pkt in packets.read() {
        let Some(data) = pkt.view::<CraftingData>() else { continue };
        let Ok((mut recipes, ids)) = bots.get_mut(pkt.bot) else { continue };
        recipes.apply(&data, ids);
        tracing::debug!(recipes = recipes.list.len(), skipped = recipes.skipped, "crafting recipes");
    }
}
