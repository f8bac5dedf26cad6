//! Commands started by plugins, typed end to end: [`BotCommands::run`] takes the command's own
//! struct and a bot, the handler runs exactly as for an agent's request (the same checks, the
//! same action slots and completion events), and the answer comes back as a typed
//! [`Answer<C>`] message — no JSON, and nothing on the agent's channels.
//!
//! ```
//! use bevy_ecs::prelude::*;
//! use clawcraft_core::{Answer, BotCommands, LocalBot, builtin::Help};
//!
//! fn ask(mut commands: BotCommands, bots: Query<Entity, Added<LocalBot>>) {
//!     for bot in &bots {
//!         commands.run(bot, Help { topic: Some("pos".into()), command: None, event: None });
//!     }
//! }
//!
//! fn read(mut answers: MessageReader<Answer<Help>>) {
//!     for answer in answers.read() {
//!         if let Ok(help) = &answer.result {
//!             println!("{:?} {}: {}", answer.bot, answer.id, help.text);
//!         }
//!     }
//! }
//! # bevy_ecs::system::assert_is_system(ask);
//! # bevy_ecs::system::assert_is_system(read);
//! ```
//!
//! A command that starts an action answers at once; its completion event (`WalkDone`, …) carries
//! the same id (`done.id == answer.id`).

use std::collections::{HashMap, VecDeque};

use bevy_ecs::message::{MessageCursor, Messages};
use bevy_ecs::prelude::*;
use bevy_ecs::system::SystemParam;
use serde_json::Value;

use crate::bot::Lifecycle;
use crate::command::{AgentCommand, CommandCtx, CommandError, CommandResponse, next_request_id};

/// The origin of every plugin's request: its answers become [`Answer`] messages, never lines.
pub const PLUGIN_ORIGIN: u64 = u64::MAX;

/// The id of a request a plugin made; its [`Answer`] and any completion event carry it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct CommandId(pub u64);

impl std::fmt::Display for CommandId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(f)
    }
}

impl From<CommandId> for Value {
    fn from(id: CommandId) -> Self {
        Value::from(id.0)
    }
}

/// A completion event's `id` (a JSON value, since an agent's ids may be strings) against a
/// plugin's request: `done.id == ticket`.
impl PartialEq<CommandId> for Value {
    fn eq(&self, id: &CommandId) -> bool {
        self.as_u64() == Some(id.0)
    }
}

/// The answer to a command a plugin started with [`BotCommands::run`].
pub struct Answer<C: AgentCommand> {
    /// The bot the command ran for.
    pub bot: Entity,
    /// What [`BotCommands::run`] returned.
    pub id: CommandId,
    /// The command's typed response, or why it was refused.
    pub result: Result<C::Response, CommandError>,
}

impl<C: AgentCommand> Message for Answer<C> {}

/// One queued plugin request: runs the command and writes its answer.
type TypedRun = Box<dyn FnOnce(&mut World) + Send + Sync>;

/// Plugins' requests waiting for the tick's command step, in order.
#[derive(Resource, Default)]
pub struct TypedCommands(VecDeque<TypedRun>);

impl TypedCommands {
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

/// Writes a deferred request's [`Answer`] from its typed result (one per command type).
type Deliver = fn(&mut World, Entity, CommandId, &crate::command::TypedResult);

/// Deferred plugin requests: how to turn each one's typed result into its [`Answer`].
#[derive(Resource, Default)]
pub struct DeferredAnswers {
    waiting: HashMap<u64, (Entity, Deliver)>,
    cursor: MessageCursor<CommandResponse>,
}

/// Starts commands for a bot from a system: `commands.run(bot, WalkCmd { .. })`.
#[derive(SystemParam)]
pub struct BotCommands<'w> {
    queue: ResMut<'w, TypedCommands>,
}

impl BotCommands<'_> {
    /// Queues `command` for `bot`; it runs in the next tick's command step (the tick after this
    /// one when called from `Update`), and its [`Answer<C>`] follows then (or, for commands that
    /// answer when the server does, later). The returned id is the answer's and, for commands
    /// that start an action, the completion event's.
    pub fn run<C: AgentCommand>(&mut self, bot: Entity, command: C) -> CommandId {
        let id = CommandId(next_request_id().as_u64().unwrap_or_default());
        self.queue.0.push_back(Box::new(move |world: &mut World| run_typed(world, bot, id, command)));
        id
    }
}

/// Runs one plugin request and writes its answer (unless the handler deferred it).
fn run_typed<C: AgentCommand>(world: &mut World, bot: Entity, id: CommandId, command: C) {
    let result = if C::NEEDS_SPAWN && world.get::<Lifecycle>(bot) != Some(&Lifecycle::Spawned) {
        Err(CommandError::not_spawned())
    } else if world.get_entity(bot).is_err() && C::PER_BOT {
        Err(CommandError::new("UNKNOWN_BOT", format!("Unknown bot: entity {bot} is not a bot of this process")))
    } else if let Some(Err(busy)) = C::ASYNC.map(|info| crate::action::refuse_if_busy(world, bot, info.slot)) {
        // As for an agent's request: a busy slot refuses the command before it runs.
        Err(busy)
    } else {
        let mut ctx = CommandCtx::for_plugin(world, bot, Value::from(id));
        let result = command.run(&mut ctx);
        // A handler that deferred and then failed answers with its error now.
        if ctx.is_deferred() && result.is_ok() {
            world.resource_mut::<DeferredAnswers>().waiting.insert(id.0, (bot, deliver::<C>));
            return;
        }
        result
    };
    write_answer::<C>(world, Answer { bot, id, result });
}

fn write_answer<C: AgentCommand>(world: &mut World, answer: Answer<C>) {
    match world.get_resource_mut::<Messages<Answer<C>>>() {
        Some(mut messages) => {
            messages.write(answer);
        }
        None => tracing::debug!(command = C::NAME, "answer dropped: the command is not registered"),
    }
}

/// Writes the [`Answer`] of a deferred request from its typed result.
fn deliver<C: AgentCommand>(world: &mut World, bot: Entity, id: CommandId, typed: &crate::command::TypedResult) {
    if let Some(result) = typed.take::<C::Response>() {
        write_answer::<C>(world, Answer { bot, id, result });
    }
}

/// Runs the plugins' queued requests (in the tick's command step, after the agents').
pub fn execute_typed(world: &mut World) {
    let queue = std::mem::take(&mut world.resource_mut::<TypedCommands>().0);
    for run in queue {
        run(world);
    }
}

/// Turns deferred plugin requests' responses into their [`Answer`]s.
pub fn route_deferred_answers(world: &mut World) {
    world.resource_scope(|world, mut deferred: Mut<DeferredAnswers>| {
        if deferred.waiting.is_empty() {
            return;
        }
        let Some(responses) = world.get_resource::<Messages<CommandResponse>>() else { return };
        let DeferredAnswers { waiting, cursor } = &mut *deferred;
        let typed: Vec<crate::command::TypedResult> =
            cursor.read(responses).filter(|r| r.origin == PLUGIN_ORIGIN).filter_map(|r| r.typed.clone()).collect();
        for result in typed {
            let Some(raw) = result.id().as_u64() else { continue };
            if let Some((bot, deliver)) = waiting.remove(&raw) {
                deliver(world, bot, CommandId(raw), &result);
            }
        }
    });
}

/// Whether a plugin's deferred request waits for its answer.
pub fn answers_waiting(world: &World) -> bool {
    world.get_resource::<DeferredAnswers>().is_some_and(|d| !d.waiting.is_empty())
}
