//! Long-running ("async") actions: the command answers at once, the action runs over ticks, and
//! its completion event carries the request's `id`. Each action occupies a *slot* (`walk`,
//! `mine`, `eat`, …) on the bot: a second action in a busy slot is refused with `BUSY`, and a
//! watchdog ends any action that overruns its deadline with `command_timeout`.

use std::collections::BTreeMap;

use bevy_ecs::prelude::*;
use schemars::JsonSchema;
use serde::Serialize;
use serde_json::Value;

use crate::command::{CommandCtx, CommandError};
use crate::event::{AgentEvent, EventKind};

/// Ticks since start (one per `App::update`).
#[derive(Resource, Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct TickCount(pub u64);

pub fn count_ticks(mut ticks: ResMut<TickCount>) {
    ticks.0 += 1;
}

/// One running action.
#[derive(Debug, Clone, PartialEq)]
pub struct ActiveAction {
    /// The command that started it.
    pub command: &'static str,
    /// Its request id.
    pub id: Value,
    pub started_tick: u64,
    /// The watchdog ends it at this tick.
    pub deadline_tick: u64,
}

/// The bot's running actions, by slot.
#[derive(Component, Debug, Clone, Default, PartialEq)]
pub struct ActiveActions {
    pub slots: BTreeMap<&'static str, ActiveAction>,
}

impl ActiveActions {
    /// Ends the action in `slot` (on completion or abort), returning it.
    pub fn finish(&mut self, slot: &str) -> Option<ActiveAction> {
        self.slots.remove(slot)
    }
}

impl CommandCtx<'_> {
    /// Claims `slot` for an async action of this command, or fails with `BUSY`.
    pub fn start_action(
        &mut self,
        slot: &'static str,
        command: &'static str,
        timeout_ticks: u64,
    ) -> Result<(), CommandError> {
        let now = self.world.get_resource::<TickCount>().map_or(0, |t| t.0);
        let bot = self.bot;
        if self.world.get::<ActiveActions>(bot).is_none() {
            self.world.entity_mut(bot).insert(ActiveActions::default());
        }
        let mut actions = self.world.get_mut::<ActiveActions>(bot).ok_or_else(CommandError::not_spawned)?;
        if let Some(running) = actions.slots.get(slot) {
            return Err(CommandError::busy(
                &format!("running {} (id {})", running.command, running.id),
                &format!("abort_{slot}"),
            ));
        }
        actions.slots.insert(
            slot,
            ActiveAction { command, id: self.id.clone(), started_tick: now, deadline_tick: now + timeout_ticks },
        );
        Ok(())
    }
}

/// Written when the watchdog ends an action, so its plugin can drop its state.
#[derive(Message, Debug, Clone, PartialEq)]
pub struct ActionTimedOut {
    pub bot: Entity,
    pub slot: &'static str,
    pub command: &'static str,
    pub id: Value,
}

/// `command_timeout`: an async action overran its watchdog and was stopped.
#[derive(Serialize, JsonSchema)]
pub struct CommandTimeout {
    /// The command that started the action.
    pub command: String,
    /// Its request id.
    pub id: Value,
}

impl EventKind for CommandTimeout {
    const NAME: &'static str = "command_timeout";
    const DESCRIPTION: &'static str = "An async action (walk, mine, eat, …) overran its watchdog and was stopped";
}

/// Ends overdue actions.
pub fn watchdog(
    ticks: Res<TickCount>,
    mut bots: Query<(Entity, &mut ActiveActions)>,
    mut events: MessageWriter<AgentEvent>,
    mut timed_out: MessageWriter<ActionTimedOut>,
) {
    for (bot, mut actions) in &mut bots {
        let overdue: Vec<&'static str> =
            actions.slots.iter().filter(|(_, a)| ticks.0 >= a.deadline_tick).map(|(s, _)| *s).collect();
        for slot in overdue {
            if let Some(a) = actions.slots.remove(slot) {
                tracing::info!(command = a.command, id = %a.id, "action timed out");
                events.write(AgentEvent::of(&CommandTimeout { command: a.command.into(), id: a.id.clone() }));
                timed_out.write(ActionTimedOut { bot, slot, command: a.command, id: a.id });
            }
        }
    }
}
