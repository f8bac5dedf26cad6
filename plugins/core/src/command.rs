//! The agent command path, shared by every channel (stdin, TCP, later MCP).
//!
//! A channel turns a JSON line into a [`CommandRequest`] with [`parse_request`] and pushes it to
//! [`PendingCommands`]; [`execute_commands`] runs each against the world during
//! [`TickSet::Commands`](crate::TickSet::Commands) and writes a [`CommandResponse`] that the
//! channel routes back by `origin`. Registering a command is one call:
//! [`AppCommandExt::add_agent_command`].

use std::collections::{BTreeMap, VecDeque};
use std::sync::atomic::{AtomicU64, Ordering};

use bevy_app::App;
use bevy_ecs::prelude::*;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use crate::bot::{Lifecycle, first_bot};

/// A command error with a stable machine-readable code.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CommandError {
    /// Stable code, e.g. `UNKNOWN_ACTION`.
    pub code: &'static str,
    /// Human text.
    pub message: String,
}

impl CommandError {
    pub fn new(code: &'static str, message: impl Into<String>) -> Self {
        Self { code, message: message.into() }
    }
    pub fn invalid_json(e: impl std::fmt::Display) -> Self {
        Self::new("INVALID_JSON", format!("Invalid JSON: {e}"))
    }
    pub fn invalid_params(e: impl std::fmt::Display) -> Self {
        Self::new("INVALID_PARAMS", format!("Invalid parameters: {e}"))
    }
    pub fn not_spawned() -> Self {
        Self::new("NOT_SPAWNED", "The bot has not spawned yet")
    }
}

/// A command for the agent: its parameters are the struct (deserialized from the request's
/// fields), `run` produces the response fields.
pub trait AgentCommand: DeserializeOwned + Send + Sync + 'static {
    /// The `action` name.
    const NAME: &'static str;
    /// One line of help.
    const SUMMARY: &'static str;
    /// Whether the command needs a spawned bot (queries of the world do; `help` doesn't).
    const NEEDS_SPAWN: bool = true;
    /// Runs the command for `bot`.
    fn run(self, world: &mut World, bot: Entity) -> Result<Map<String, Value>, CommandError>;
}

type Handler = fn(&mut World, Entity, Map<String, Value>) -> Result<Map<String, Value>, CommandError>;

/// One registered command.
#[derive(Clone)]
pub struct CommandEntry {
    pub name: &'static str,
    pub summary: &'static str,
    pub needs_spawn: bool,
    handler: Handler,
}

/// Every command the agent can send, by name.
#[derive(Resource, Default, Clone)]
pub struct CommandRegistry {
    commands: BTreeMap<&'static str, CommandEntry>,
}

impl CommandRegistry {
    pub fn get(&self, name: &str) -> Option<&CommandEntry> {
        self.commands.get(name)
    }
    pub fn names(&self) -> impl Iterator<Item = &'static str> + '_ {
        self.commands.keys().copied()
    }
    pub fn entries(&self) -> impl Iterator<Item = &CommandEntry> {
        self.commands.values()
    }
    fn register<C: AgentCommand>(&mut self) {
        fn handle<C: AgentCommand>(
            world: &mut World,
            bot: Entity,
            params: Map<String, Value>,
        ) -> Result<Map<String, Value>, CommandError> {
            let cmd: C = serde_json::from_value(Value::Object(params)).map_err(CommandError::invalid_params)?;
            cmd.run(world, bot)
        }
        self.commands.insert(
            C::NAME,
            CommandEntry { name: C::NAME, summary: C::SUMMARY, needs_spawn: C::NEEDS_SPAWN, handler: handle::<C> },
        );
    }

    /// Known names closest to `name`, for "did you mean" hints.
    pub fn suggestions(&self, name: &str) -> Vec<&'static str> {
        let mut scored: Vec<(usize, &'static str)> = self
            .names()
            .map(|n| (edit_distance(name, n), n))
            .filter(|(d, n)| *d <= 3 || n.contains(name) || (!name.is_empty() && name.contains(n)))
            .collect();
        scored.sort();
        scored.into_iter().take(3).map(|(_, n)| n).collect()
    }
}

/// Registering commands on the `App`.
pub trait AppCommandExt {
    /// Makes `C` available to every channel under `C::NAME`.
    fn add_agent_command<C: AgentCommand>(&mut self) -> &mut Self;
}

impl AppCommandExt for App {
    fn add_agent_command<C: AgentCommand>(&mut self) -> &mut Self {
        self.world_mut().get_resource_or_init::<CommandRegistry>().register::<C>();
        self
    }
}

/// Where a response goes back to. 0 is stdin/stdout; channels allocate others.
pub type Origin = u64;

/// A parsed request waiting for the next command step.
#[derive(Debug, Clone, PartialEq)]
pub struct CommandRequest {
    pub origin: Origin,
    /// The request id (echoed), or a process-wide counter value.
    pub id: Value,
    pub action: String,
    /// All request fields except `action` and `id`.
    pub params: Map<String, Value>,
}

/// Requests queued by channels, executed in order.
#[derive(Resource, Default, Debug)]
pub struct PendingCommands(pub VecDeque<CommandRequest>);

/// A response ready for its channel.
#[derive(Message, Debug, Clone, PartialEq)]
pub struct CommandResponse {
    pub origin: Origin,
    /// The whole response object: `{"type":"response","id":…,…}`.
    pub body: Map<String, Value>,
}

static NEXT_ID: AtomicU64 = AtomicU64::new(1);

/// Takes the next process-wide request id.
pub fn next_request_id() -> Value {
    Value::from(NEXT_ID.fetch_add(1, Ordering::Relaxed))
}

/// Parses one line from an agent. On failure returns the response to send back (with the
/// request's `id` when it could be read).
pub fn parse_request(origin: Origin, line: &str) -> Result<CommandRequest, CommandResponse> {
    let fail = |id: Value, e: CommandError| CommandResponse { origin, body: error_body(id, &e) };
    let value: Value = match serde_json::from_str(line) {
        Ok(v) => v,
        Err(e) => return Err(fail(next_request_id(), CommandError::invalid_json(e))),
    };
    let Value::Object(mut fields) = value else {
        return Err(fail(
            next_request_id(),
            CommandError::new("INVALID_COMMAND", "Invalid command: need a JSON object like {\"action\":\"pos\"}"),
        ));
    };
    let id = match fields.remove("id") {
        Some(Value::Null) | None => next_request_id(),
        Some(id) => id,
    };
    let action = match fields.remove("action") {
        Some(Value::String(a)) if !a.is_empty() => a,
        Some(_) => {
            return Err(fail(id, CommandError::new("INVALID_COMMAND", "Invalid command: action must be a string")));
        }
        None => return Err(fail(id, CommandError::new("MISSING_ACTION", "Invalid command: need {action}"))),
    };
    Ok(CommandRequest { origin, id, action, params: fields })
}

/// `{"type":"response","id":…,"error":…,"code":…}`.
pub fn error_body(id: Value, e: &CommandError) -> Map<String, Value> {
    let mut m = Map::new();
    m.insert("type".into(), "response".into());
    m.insert("id".into(), id);
    m.insert("error".into(), Value::String(e.message.clone()));
    m.insert("code".into(), Value::String(e.code.into()));
    m
}

fn ok_body(id: Value, fields: Map<String, Value>) -> Map<String, Value> {
    let mut m = Map::with_capacity(fields.len() + 2);
    m.insert("type".into(), "response".into());
    m.insert("id".into(), id);
    m.extend(fields);
    m
}

/// Runs every pending command. Exclusive because commands read and change any part of the world.
pub fn execute_commands(world: &mut World) {
    let pending: Vec<CommandRequest> = match world.get_resource_mut::<PendingCommands>() {
        Some(mut p) if !p.0.is_empty() => p.0.drain(..).collect(),
        _ => return,
    };
    let registry = world.resource::<CommandRegistry>().clone();
    for req in pending {
        let body = match run_one(world, &registry, &req) {
            Ok(fields) => ok_body(req.id.clone(), fields),
            Err(e) => error_body(req.id.clone(), &e),
        };
        world.write_message(CommandResponse { origin: req.origin, body });
    }
}

fn run_one(
    world: &mut World,
    registry: &CommandRegistry,
    req: &CommandRequest,
) -> Result<Map<String, Value>, CommandError> {
    let Some(entry) = registry.get(&req.action) else {
        let hints = registry.suggestions(&req.action);
        let hint = if hints.is_empty() { String::new() } else { format!(" (did you mean: {})", hints.join(", ")) };
        return Err(CommandError::new("UNKNOWN_ACTION", format!("Unknown action: {}{hint}", req.action)));
    };
    let bot = first_bot(world).ok_or_else(CommandError::not_spawned)?;
    if entry.needs_spawn && world.get::<Lifecycle>(bot) != Some(&Lifecycle::Spawned) {
        return Err(CommandError::not_spawned());
    }
    (entry.handler)(world, bot, req.params.clone())
}

/// Levenshtein distance, for suggestions.
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut cur = vec![i + 1; b.len() + 1];
        for (j, cb) in b.iter().enumerate() {
            cur[j + 1] = (prev[j] + usize::from(ca != *cb)).min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        prev = cur;
    }
    prev[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_echoes_id_and_splits_params() {
        let r = parse_request(0, r#"{"action":"pos","id":"a1","x":1}"#).expect("valid");
        assert_eq!(r.id, Value::from("a1"));
        assert_eq!(r.action, "pos");
        assert_eq!(r.params.get("x"), Some(&Value::from(1)));
    }

    #[test]
    fn parse_errors_have_codes() {
        let e = parse_request(0, "{nope").expect_err("bad json");
        assert_eq!(e.body["code"], "INVALID_JSON");
        let e = parse_request(0, r#"{"id":7}"#).expect_err("no action");
        assert_eq!(e.body["code"], "MISSING_ACTION");
        assert_eq!(e.body["id"], 7);
        let e = parse_request(0, "[1]").expect_err("not object");
        assert_eq!(e.body["code"], "INVALID_COMMAND");
    }

    #[test]
    fn suggestions_find_near_names() {
        assert_eq!(edit_distance("stauts", "status"), 2);
    }
}
