//! The agent command path, shared by every channel (stdin, TCP, MCP) and by plugins.
//!
//! A channel turns a JSON line into a [`CommandRequest`] with [`parse_request`] and pushes it to
//! [`PendingCommands`]; [`execute_commands`] runs each against the world during
//! [`TickSet::Commands`](crate::TickSet::Commands) and writes a [`CommandResponse`] that the
//! channel routes back by `origin`. Queries ([`AgentCommand::QUERY`]) also run between ticks in
//! the [`Interim`](crate::Interim) schedule, so they are answered without waiting for a tick.
//!
//! Registering a command is one call, [`AppCommandExt::add_agent_command`]: its name, typed
//! parameters (serde + JSON Schema), typed response, handler and docs all come from the type.
//!
//! A request names its bot with `"bot": "<name>"`; without it the only bot answers (see
//! [`resolve_bot`](crate::bot::resolve_bot)). Plugins start commands without JSON through
//! [`BotCommands`] and read the typed [`Answer`].

use std::collections::{BTreeMap, VecDeque};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::Instant;

use bevy_app::App;
use bevy_ecs::prelude::*;
use schemars::JsonSchema;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use crate::bot::{Lifecycle, resolve_bot};
use crate::bot_commands::PLUGIN_ORIGIN;
use crate::wait::{WaitFor, WaitingRequests};

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
    /// `INVALID_PARAMS` with exactly this text (ClawCraft's wording, e.g. `Need cmd field`).
    pub fn invalid_params_text(text: impl Into<String>) -> Self {
        Self::new("INVALID_PARAMS", text)
    }
    pub fn out_of_range(e: impl std::fmt::Display) -> Self {
        Self::new("OUT_OF_RANGE", e.to_string())
    }
    /// ClawCraft's wording ("No position"), with why.
    pub fn not_spawned() -> Self {
        Self::new("NOT_SPAWNED", "No position: the bot has not spawned yet")
    }
    pub fn busy(what: &str, abort: &str) -> Self {
        Self::new("BUSY", format!("Already {what} — {abort} first"))
    }
    pub fn internal(e: impl std::fmt::Display) -> Self {
        Self::new("INTERNAL", e.to_string())
    }
}

/// Every stable error code, for the schema and the skill.
pub const ERROR_CODES: &[(&str, &str)] = &[
    ("INVALID_JSON", "the line is not JSON"),
    ("INVALID_COMMAND", "not a JSON object, or `action` is not a string"),
    ("MISSING_ACTION", "no `action` field"),
    ("UNKNOWN_ACTION", "no such command; the error names the nearest ones"),
    ("INVALID_PARAMS", "a parameter is missing, unknown or of the wrong type"),
    ("OUT_OF_RANGE", "a parameter is outside its allowed range"),
    ("NOT_SPAWNED", "the command needs a spawned bot"),
    ("BOT_REQUIRED", "several bots run in this process: name one with \"bot\" (the error lists them)"),
    ("UNKNOWN_BOT", "no bot of that name runs in this process (the error names the closest ones)"),
    ("BOT_EXISTS", "bot_add: a bot of that name already runs in this process"),
    ("BUSY", "another action of the same kind is running; abort it first"),
    ("NOT_ACTIVE", "an abort_* command found nothing running in its slot (ClawCraft's `Not walking` etc.)"),
    ("UNKNOWN_EVENT", "subscribe/unsubscribe named an event that is not opt-in"),
    ("NOT_SUBSCRIBED", "unsubscribe named an event that is not subscribed"),
    ("UNKNOWN_EMOTE", "no emote matches the given name"),
    ("NOT_CONFIGURED", "the command needs a setting that is not set (e.g. SEND_CMD for external commands)"),
    ("NOT_DEAD", "respawn was asked for while alive"),
    ("UNAUTHORIZED", "CLAWCRAFT_TOKEN is set and the request's `token` is missing or wrong"),
    ("LINE_TOO_LONG", "the request line is over the size limit"),
    ("TOO_MANY_CONNECTIONS", "the TCP server is at its connection limit"),
    ("SLOW_READER", "a TCP client stopped reading and was disconnected"),
    (
        "TIMEOUT",
        "the server did not answer in time (e.g. no /querytarget output for `server_pos`, no teleport for `tp`)",
    ),
    (
        "SKILL_INVALID",
        "skill_define: a field of the candidate is malformed (the message names each one); nothing was stored",
    ),
    ("UNKNOWN_SKILL", "no skill (or no such version) with that id"),
    (
        "SKILL_STATE",
        "the skill version is not in a state that allows this (e.g. skill_run on a candidate, a retired version)",
    ),
    ("NO_PATH", "walk found no way to move toward the goal (the reason says why)"),
    ("NOT_FOUND", "the named player or entity is not in sight, or no block matches a goal's block target"),
    (
        "NOT_SUPPORTED",
        "the request needs a capability this build does not have (e.g. a path that places blocks, without the interaction plugin)",
    ),
    ("NO_ITEM", "the inventory holds no such item (or the server has not sent the inventory yet)"),
    ("NOT_A_SOURCE", "fill: the block is flowing liquid or no liquid, or no source is in reach and in sight"),
    ("INVENTORY_FULL", "no free inventory slot for the move"),
    ("REJECTED", "the server refused the request; the inventory view stays the server's"),
    ("NOT_LOADED", "the target block is not loaded (no chunk data there)"),
    (
        "INVALID_TARGET",
        "the target is not something this action works on (air to mine, an unbreakable block, not a door or bed, …)",
    ),
    ("OUT_OF_REACH", "the target is beyond reach (5 blocks from the eye); walk closer first"),
    ("NO_LINE_OF_SIGHT", "another block stands between the eye and every face of the target"),
    ("OCCUPIED", "place: the cell already holds a block (or you stand in it)"),
    ("NO_SUPPORT", "place: no block next to the cell to place against"),
    ("NOT_MATURE", "harvest: the crop is still growing, or no mature crop is in the radius"),
    ("NO_TARGET", "no such entity or player in view"),
    ("NOT_HUNGRY", "eat: hunger is full and the food is not always edible"),
    ("NO_CONTAINER", "no container window is open (open one first), or it is not the kind the command needs"),
    ("NO_RECIPE", "craft/recipes: the server sent no crafting recipe for that item"),
    ("MISSING_INGREDIENTS", "craft: the inventory lacks ingredients (the error lists what is missing)"),
    ("NEEDS_TABLE", "craft: every recipe for the item needs the 3×3 grid; pass a placed crafting table in reach"),
    ("CONTAINER_FULL", "put: the open container has no room for the item"),
    (
        "TEXT_TOO_LONG",
        "write_sign/write_book: more lines, pages, bytes or title characters than a sign or book holds (the error names the limit)",
    ),
    ("WAXED", "write_sign: the sign is waxed; nobody can edit it"),
    (
        "HELD_ITEM_ACTS",
        "write_sign: the held item (a dye, ink sac or honeycomb) would mark the sign instead of opening it",
    ),
    ("NO_OFFER", "trade: the open trade window has no such offer (index out of range, or none gives the item)"),
    ("OFFER_UNAVAILABLE", "trade: the offer is locked (above the villager's level) or used up until it restocks"),
    (
        "MISSING_PAYMENT",
        "trade: the inventory lacks what one trade of the offer costs (the error says what and how many)",
    ),
    ("UNKNOWN_PLACE", "forget: no place of that name in the place book (the error names the closest ones)"),
    ("INTERNAL", "an unexpected failure inside the harness"),
];

/// What a command handler sees.
pub struct CommandCtx<'w> {
    pub world: &'w mut World,
    /// The bot the command is for.
    pub bot: Entity,
    /// The request id (echoed in the response and in completion events).
    pub id: Value,
    /// The channel the response goes back to.
    pub origin: Origin,
    deferred: bool,
    /// Unknown-parameter warnings for this request, carried into a deferred reply.
    warnings: Vec<String>,
    /// The command's [`AgentCommand::SIZE_HINT`], carried into a deferred reply.
    size_hint: Option<&'static str>,
    /// The request waits for its action's end (`"wait"`): a deferred reply is held.
    hold: bool,
}

impl<'w> CommandCtx<'w> {
    /// The context of a plugin's request ([`BotCommands`](crate::BotCommands)).
    pub(crate) fn for_plugin(world: &'w mut World, bot: Entity, id: Value) -> Self {
        Self {
            world,
            bot,
            id,
            origin: crate::bot_commands::PLUGIN_ORIGIN,
            deferred: false,
            warnings: Vec::new(),
            size_hint: None,
            hold: false,
        }
    }

    /// Whether the handler deferred its response ([`CommandCtx::defer`]).
    pub fn is_deferred(&self) -> bool {
        self.deferred
    }

    /// The response will be sent later (when the server answers): the value `run` returns is
    /// dropped, and the caller completes the request with [`DeferredReply::respond`].
    pub fn defer(&mut self) -> DeferredReply {
        self.deferred = true;
        DeferredReply {
            origin: self.origin,
            id: self.id.clone(),
            warnings: self.warnings.clone(),
            budget: self.world.get_resource::<ResponseBudget>().copied().unwrap_or_default().chars,
            size_hint: self.size_hint,
            hold: self.hold,
        }
    }
}

/// A request whose response comes later; holds where it goes, its id and the request's
/// unknown-parameter warnings (they go into the reply, so nothing is ignored silently), and the
/// [`ResponseBudget`] its answer is held to, like an answer given at once.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct DeferredReply {
    pub origin: Origin,
    pub id: Value,
    pub warnings: Vec<String>,
    /// Characters the response line may take before it warns (0: no warning).
    pub budget: usize,
    /// What to ask instead of an answer over the budget.
    pub size_hint: Option<&'static str>,
    /// The request waits for its action's end: a success is held for
    /// [`answer_waiting_requests`](crate::wait::answer_waiting_requests).
    pub hold: bool,
}

impl DeferredReply {
    /// The response message completing this request. `type` and `id` of the payload (an event
    /// record reused as the answer) give way to the envelope's. For a plugin's request
    /// ([`BotCommands`]) it carries the typed result instead of a line.
    pub fn respond<R: Serialize + Send + 'static>(&self, result: Result<R, CommandError>) -> CommandResponse {
        if self.origin == PLUGIN_ORIGIN {
            return CommandResponse::typed(self.id.clone(), result);
        }
        let fields = result.and_then(|r| serde_json::to_value(r).map_err(CommandError::internal)).map(|v| match v {
            Value::Object(mut m) => {
                m.remove("type");
                m.remove("id");
                Value::Object(m)
            }
            other => other,
        });
        let line = fields
            .and_then(|v| response_fields(&v))
            .map(|fields| budgeted_line(&self.id, with_warnings(fields, &self.warnings), self.budget, self.size_hint));
        match line {
            Ok(line) => CommandResponse { origin: self.origin, line: line.into(), typed: None, held: self.hold },
            Err(e) => CommandResponse::error_with_warnings(self.origin, self.id.clone(), &e, &self.warnings),
        }
    }
}

/// A command for the agent: its parameters are the struct (deserialized from the request's
/// fields), `run` produces the typed response.
pub trait AgentCommand: DeserializeOwned + JsonSchema + Send + Sync + 'static {
    /// The `action` name.
    const NAME: &'static str;
    /// One line of help.
    const SUMMARY: &'static str;
    /// A request line showing typical use.
    const EXAMPLE: &'static str;
    /// Whether the command needs a spawned bot (queries of the world do; `help` doesn't).
    const NEEDS_SPAWN: bool = true;
    /// Whether the command is for one bot. With several bots an unaddressed request for one is
    /// `BOT_REQUIRED`; a process-wide command (`help`, `bots`, `team_say` …) runs without one.
    const PER_BOT: bool = true;
    /// Read-only commands are answered between ticks as soon as they arrive.
    const QUERY: bool = false;
    /// Runs between ticks as soon as it arrives, like a query, though it is not read-only: an
    /// action whose first answer is a search (`walk`) starts at once and moves from the next tick
    /// on, as it would had it arrived in that tick.
    const BETWEEN_TICKS: bool = Self::QUERY;
    /// For a command that starts an async action: the action's slot, completion event and abort
    /// command (`Some(AsyncInfo::of::<MyAction>())`).
    const ASYNC: Option<AsyncInfo> = None;
    /// For an `abort_*` command: the slot it frees.
    const ABORTS: Option<&'static str> = None;
    /// `(field, text)`: the error text when a required parameter is missing, in ClawCraft's
    /// wording where it has one (e.g. `("x", "Need x, y, z")`); other fields are named as serde
    /// names them.
    const MISSING_PARAMS: &'static [(&'static str, &'static str)] = &[];
    /// What to ask instead when an answer runs over the [`ResponseBudget`], e.g. `use
    /// compact_scan or a smaller radius/radiusY`; commands whose answers stay small leave it out.
    const SIZE_HINT: Option<&'static str> = None;
    /// The response fields (besides `type` and `id`).
    type Response: Serialize + JsonSchema + Send + Sync + 'static;
    /// Runs the command.
    fn run(self, ctx: &mut CommandCtx<'_>) -> Result<Self::Response, CommandError>;
}

/// What a command that starts an async action declares, for `schema`, skills and front ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AsyncInfo {
    /// The slot the action occupies.
    pub slot: &'static str,
    /// The event that ends it, carrying the request `id`.
    pub completion_event: &'static str,
    /// The command that aborts it.
    pub abort: &'static str,
}

impl AsyncInfo {
    pub const fn of<A: crate::action::AsyncAction>() -> Self {
        Self {
            slot: A::SLOT.name,
            completion_event: <A::Evidence as crate::action::Evidence>::EVENT,
            abort: A::SLOT.abort,
        }
    }
}

/// `Ok(None)`: the handler deferred its response; `Ok(Some(json))`: the response's fields as one
/// JSON object text.
type Handler = fn(&mut CommandCtx<'_>, Map<String, Value>) -> Result<Option<String>, CommandError>;

/// One registered command.
#[derive(Clone)]
pub struct CommandEntry {
    pub name: &'static str,
    pub summary: &'static str,
    pub example: &'static str,
    pub needs_spawn: bool,
    /// For one bot (see [`AgentCommand::PER_BOT`]).
    pub per_bot: bool,
    pub query: bool,
    /// Runs between ticks too ([`AgentCommand::BETWEEN_TICKS`]).
    pub between_ticks: bool,
    /// Set for commands that start an async action.
    pub async_info: Option<AsyncInfo>,
    /// Set for `abort_*` commands: the slot they free.
    pub aborts: Option<&'static str>,
    /// What to ask instead of an answer over the [`ResponseBudget`] ([`AgentCommand::SIZE_HINT`]).
    pub size_hint: Option<&'static str>,
    /// JSON Schema of the parameters and of the response fields, built on first use (see
    /// [`CommandEntry::params_schema`]).
    schemas: Arc<LazySchemas>,
    handler: Handler,
}

/// A command's two JSON Schemas, generated when first asked for: generated for every command at
/// start-up, they were heap (and start-up garbage) in every bot, for documents most runs never
/// read.
struct LazySchemas {
    params: OnceLock<Value>,
    params_of: fn() -> Value,
    response: OnceLock<Value>,
    response_of: fn() -> Value,
}

impl CommandEntry {
    /// JSON Schema of the parameters (generated on first use, then kept).
    pub fn params_schema(&self) -> &Value {
        self.schemas.params.get_or_init(self.schemas.params_of)
    }

    /// JSON Schema of the response fields (generated on first use, then kept).
    pub fn response_schema(&self) -> &Value {
        self.schemas.response.get_or_init(self.schemas.response_of)
    }
}

/// The JSON Schema of `T` as it is *read* (serde's deserialize side): a command's parameters.
fn params_schema_of<T: JsonSchema>() -> Value {
    serde_json::to_value(schemars::schema_for!(T)).unwrap_or(Value::Null)
}

/// Every command the agent can send, by name. Cloning is cheap (the table is shared), so the
/// command path can hold it while handlers borrow the world.
#[derive(Resource, Default, Clone)]
pub struct CommandRegistry {
    commands: Arc<BTreeMap<&'static str, CommandEntry>>,
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
            ctx: &mut CommandCtx<'_>,
            params: Map<String, Value>,
        ) -> Result<Option<String>, CommandError> {
            let cmd: C = serde_json::from_value(Value::Object(params)).map_err(|e| {
                let text = e.to_string();
                let missing = text.strip_prefix("missing field `").and_then(|r| r.split('`').next());
                match C::MISSING_PARAMS.iter().find(|(field, _)| Some(*field) == missing) {
                    Some((_, wording)) => CommandError::invalid_params_text(*wording),
                    None => CommandError::invalid_params(e),
                }
            })?;
            // An action's slot is checked before its command runs: a refusal changes nothing.
            if let Some(info) = C::ASYNC {
                crate::action::refuse_if_busy(ctx.world, ctx.bot, info.slot)?;
            }
            let response = cmd.run(ctx)?;
            if ctx.deferred {
                return Ok(None);
            }
            // Straight to JSON text: no `Value` tree, whose allocations dominated big answers.
            response_fields(&response).map(Some)
        }
        let schemas = Arc::new(LazySchemas {
            params: OnceLock::new(),
            params_of: params_schema_of::<C>,
            response: OnceLock::new(),
            response_of: serialized_schema::<C::Response>,
        });
        Arc::make_mut(&mut self.commands).insert(
            C::NAME,
            CommandEntry {
                name: C::NAME,
                summary: C::SUMMARY,
                example: C::EXAMPLE,
                needs_spawn: C::NEEDS_SPAWN,
                per_bot: C::PER_BOT,
                query: C::QUERY,
                between_ticks: C::BETWEEN_TICKS,
                async_info: C::ASYNC,
                aborts: C::ABORTS,
                size_hint: C::SIZE_HINT,
                schemas,
                handler: handle::<C>,
            },
        );
    }

    /// Replaces a command's example line (for generic commands whose name is not known to
    /// their type, such as `abort_*`).
    pub(crate) fn set_example(&mut self, name: &str, example: &'static str) {
        if let Some(entry) = Arc::make_mut(&mut self.commands).get_mut(name) {
            entry.example = example;
        }
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

/// The JSON Schema of `T` as it is *written* (serde's serialize side): a field skipped when
/// empty (`skip_serializing_if`) is optional, as it is in the output. Responses and events are
/// only ever serialized; parameters, only deserialized (`schemars::schema_for!`).
pub fn serialized_schema<T: JsonSchema + ?Sized>() -> Value {
    let generator = schemars::generate::SchemaSettings::default().for_serialize().into_generator();
    serde_json::to_value(generator.into_root_schema_for::<T>()).unwrap_or(Value::Null)
}

/// Registering commands on the `App`.
pub trait AppCommandExt {
    /// Makes `C` available to every channel under `C::NAME`.
    fn add_agent_command<C: AgentCommand>(&mut self) -> &mut Self;
}

impl AppCommandExt for App {
    fn add_agent_command<C: AgentCommand>(&mut self) -> &mut Self {
        self.world_mut().get_resource_or_init::<CommandRegistry>().register::<C>();
        // Plugins' requests of it are answered with this message.
        self.add_message::<crate::bot_commands::Answer<C>>()
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
    /// The bot it is for (`"bot": "<name>"`), when the request names one.
    pub bot: Option<String>,
    /// All request fields except `action`, `id`, `bot` and `token`.
    pub params: Map<String, Value>,
}

impl CommandRequest {
    /// A request for `action` with `params` (a JSON object; anything else is no parameters).
    pub fn new(origin: Origin, id: Value, action: &str, params: Value) -> Self {
        let params = match params {
            Value::Object(m) => m,
            _ => Map::new(),
        };
        Self { origin, id, action: action.to_owned(), bot: None, params }
    }

    /// The same request, for the bot named `name`.
    pub fn for_bot(mut self, name: &str) -> Self {
        self.bot = Some(name.to_owned());
        self
    }
}

/// Requests queued by channels, executed in order.
#[derive(Resource, Default, Debug)]
pub struct PendingCommands(pub VecDeque<CommandRequest>);

/// A response ready for its channel: already JSON, so channels only copy bytes (and cloning one
/// is a reference count).
#[derive(Message, Debug, Clone, PartialEq)]
pub struct CommandResponse {
    pub origin: Origin,
    /// The whole response object as one line of JSON (no newline):
    /// `{"type":"response","id":…,…}`. Empty for a plugin's request ([`PLUGIN_ORIGIN`]).
    pub line: Arc<str>,
    /// The typed result of a plugin's deferred request, for [`Answer`].
    pub typed: Option<TypedResult>,
    /// Held for a request that waits for its action's end ([`crate::wait`]): the channels skip
    /// it; the answer with the completion follows.
    pub held: bool,
}

/// A typed command result on its way to an [`Answer`]: the request's id and the result, taken
/// once, by the answer.
#[derive(Clone)]
pub struct TypedResult(Arc<(Value, std::sync::Mutex<Option<ErasedResult>>)>);

type ErasedResult = Result<Box<dyn std::any::Any + Send>, CommandError>;

impl TypedResult {
    fn new<R: Send + 'static>(id: Value, result: Result<R, CommandError>) -> Self {
        let erased: ErasedResult = result.map(|r| Box::new(r) as Box<dyn std::any::Any + Send>);
        Self(Arc::new((id, std::sync::Mutex::new(Some(erased)))))
    }

    /// The request's id.
    pub fn id(&self) -> &Value {
        &self.0.0
    }

    /// The result as a `Result<R, CommandError>`, once (`None` after). A value of another type
    /// than `R` is an `INTERNAL` error naming it.
    pub(crate) fn take<R: 'static>(&self) -> Option<Result<R, CommandError>> {
        let taken = self.0.1.lock().unwrap_or_else(std::sync::PoisonError::into_inner).take()?;
        Some(taken.and_then(|boxed| {
            boxed
                .downcast::<R>()
                .map(|r| *r)
                .map_err(|_| CommandError::internal(format!("the answer is not a {}", std::any::type_name::<R>())))
        }))
    }
}

impl std::fmt::Debug for TypedResult {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "TypedResult({})", self.0.0)
    }
}

impl PartialEq for TypedResult {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

impl CommandResponse {
    /// The response to a plugin's request: its typed result, no line.
    fn typed<R: Send + 'static>(id: Value, result: Result<R, CommandError>) -> Self {
        Self { origin: PLUGIN_ORIGIN, line: Arc::from(""), typed: Some(TypedResult::new(id, result)), held: false }
    }

    /// The error response `{"type":"response","id":…,"error":…,"code":…}`.
    pub fn error(origin: Origin, id: Value, e: &CommandError) -> Self {
        Self::from_body(origin, &error_body(id, e))
    }

    /// An error response that also carries the request's `warnings` (when there are any).
    pub fn error_with_warnings(origin: Origin, id: Value, e: &CommandError, warnings: &[String]) -> Self {
        let mut body = error_body(id, e);
        if !warnings.is_empty() {
            body.insert("warnings".into(), warnings.iter().map(|w| Value::String(w.clone())).collect());
        }
        Self::from_body(origin, &body)
    }

    /// A response from a whole response object.
    pub fn from_body(origin: Origin, body: &Map<String, Value>) -> Self {
        let line = serde_json::to_string(body).unwrap_or_else(|_| String::from("{\"type\":\"response\"}"));
        Self { origin, line: line.into(), typed: None, held: false }
    }

    /// The response object, parsed (tests and front ends that need fields; channels copy
    /// [`line`](Self::line)).
    pub fn body(&self) -> Map<String, Value> {
        match serde_json::from_str(&self.line) {
            Ok(Value::Object(m)) => m,
            _ => Map::new(),
        }
    }
}

/// The fields of a typed response as one JSON object text (`{}` for unit, `{"result":…}` for a
/// response that is not an object).
fn response_fields<R: Serialize + ?Sized>(response: &R) -> Result<String, CommandError> {
    let text = serde_json::to_string(response).map_err(CommandError::internal)?;
    Ok(match text.as_bytes().first() {
        Some(b'{') => text,
        _ if text == "null" => String::from("{}"),
        _ => format!("{{\"result\":{text}}}"),
    })
}

/// `{"type":"response","id":…` followed by `fields` (a JSON object text): `type` and `id` come
/// first, as in ClawCraft.
fn ok_line(id: &Value, fields: &str) -> String {
    let mut out = String::with_capacity(fields.len() + 40);
    out.push_str("{\"type\":\"response\",\"id\":");
    out.push_str(&serde_json::to_string(id).unwrap_or_else(|_| String::from("null")));
    let inner = fields.strip_prefix('{').and_then(|f| f.strip_suffix('}')).unwrap_or("");
    if !inner.trim().is_empty() {
        out.push(',');
        out.push_str(inner);
    }
    out.push('}');
    out
}

static NEXT_ID: AtomicU64 = AtomicU64::new(1);

/// Takes the next process-wide request id.
pub fn next_request_id() -> Value {
    Value::from(NEXT_ID.fetch_add(1, Ordering::Relaxed))
}

/// Parses one line from an agent. On failure returns the response to send back (with the
/// request's `id` when it could be read). `token` is removed from the parameters; channels that
/// require one check it with [`take_token`] before this.
pub fn parse_request(origin: Origin, line: &str) -> Result<CommandRequest, CommandResponse> {
    let fail = |id: Value, e: CommandError| CommandResponse::error(origin, id, &e);
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
    fields.remove("token");
    let bot = match fields.remove("bot") {
        None | Some(Value::Null) => None,
        Some(Value::String(name)) if !name.trim().is_empty() => Some(name.trim().to_owned()),
        Some(_) => {
            return Err(fail(id, CommandError::invalid_params_text("Invalid bot: must be a bot's name (a string)")));
        }
    };
    let action = match fields.remove("action") {
        Some(Value::String(a)) if !a.is_empty() => a,
        Some(_) => {
            return Err(fail(id, CommandError::new("INVALID_COMMAND", "Invalid command: action must be a string")));
        }
        None => return Err(fail(id, CommandError::new("MISSING_ACTION", "Invalid command: need {action}"))),
    };
    Ok(CommandRequest { origin, id, action, bot, params: fields })
}

/// The `token` field of a request line, if it is a JSON object with one.
pub fn take_token(line: &str) -> Option<String> {
    let v: Value = serde_json::from_str(line).ok()?;
    v.get("token")?.as_str().map(str::to_owned)
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

/// How long command execution may run in one pass. The runner sets a deadline before each pass
/// so a flood of queries cannot hold up the tick; without one (simulations, tests) every pending
/// command runs.
#[derive(Resource, Debug, Clone, Copy, Default)]
pub struct CommandBudget {
    /// No command starts after this instant; the rest wait, in order, for the next pass.
    pub deadline: Option<Instant>,
    /// Set by the last pass when it stopped at the deadline with work left that it could run.
    pub more: bool,
}

/// How long an answer may be before it warns that it is costly to read: an agent pays for every
/// character of a response, and most big answers have a cheaper form (a summary, a count, a
/// smaller radius). The warning names it; the answer is still given whole.
#[derive(Resource, Debug, Clone, Copy, PartialEq, Eq)]
pub struct ResponseBudget {
    /// Characters of the whole response line; 0 turns the warning off.
    pub chars: usize,
}

/// The default [`ResponseBudget`]: about 2 000 tokens.
pub const DEFAULT_RESPONSE_BUDGET: usize = 8_000;

impl Default for ResponseBudget {
    fn default() -> Self {
        Self { chars: DEFAULT_RESPONSE_BUDGET }
    }
}

/// The response line of `fields`; over `budget` characters it carries a warning saying how long
/// it is and what to ask instead (`hint`).
fn budgeted_line(id: &Value, fields: String, budget: usize, hint: Option<&str>) -> String {
    let line = ok_line(id, &fields);
    // Bytes ≥ characters: only a line over the budget in bytes needs its characters counted.
    if budget == 0 || line.len() <= budget {
        return line;
    }
    let chars = line.chars().count();
    if chars <= budget {
        return line;
    }
    let advice = hint.unwrap_or("narrow the request");
    let warning = format!("response is {chars} characters (budget {budget}): {advice}");
    ok_line(id, &with_warnings(fields, &[warning]))
}

/// Runs pending commands (once per tick): every command whose turn it is, queries within the
/// [`CommandBudget`], then the plugins' typed requests.
pub fn execute_commands(world: &mut World) {
    execute_pending(world, false);
    crate::bot_commands::execute_typed(world);
}

/// Runs pending queries only (between ticks) within the [`CommandBudget`]; other commands wait
/// for the tick.
pub fn execute_queries(world: &mut World) {
    execute_pending(world, true);
}

fn execute_pending(world: &mut World, queries_only: bool) {
    let deadline = world.get_resource::<CommandBudget>().and_then(|b| b.deadline);
    let Some(mut pending) = world.get_resource_mut::<PendingCommands>() else { return };
    if pending.0.is_empty() {
        if let Some(mut budget) = world.get_resource_mut::<CommandBudget>() {
            budget.more = false;
        }
        return;
    }
    let queue = std::mem::take(&mut pending.0);
    let registry = world.resource::<CommandRegistry>().clone();
    let budget = world.get_resource::<ResponseBudget>().copied().unwrap_or_default().chars;
    let is_query = |r: &CommandRequest| registry.get(&r.action).is_none_or(|e| e.between_ticks);
    // A request that waits blocks every later request of its origin, so each channel still sees
    // its responses in request order; other origins may go ahead.
    let mut blocked: Vec<Origin> = Vec::new();
    let mut keep = VecDeque::new();
    let mut more = false;
    for mut req in queue {
        let query = is_query(&req);
        let over = deadline.is_some_and(|d| Instant::now() >= d);
        let runnable = if queries_only { query && !over } else { !query || !over };
        if !runnable || blocked.contains(&req.origin) {
            more |= query && over && !blocked.contains(&req.origin);
            blocked.push(req.origin);
            keep.push_back(req);
            continue;
        }
        // `"wait"`: the answer of an action waits for its end (`crate::wait`).
        let wait = match WaitFor::take(&mut req.params) {
            Ok(w) => w.zip(registry.get(&req.action).and_then(|e| e.async_info)),
            Err(e) => {
                world.write_message(CommandResponse::error(req.origin, req.id.clone(), &e));
                continue;
            }
        };
        let response = match run_one(world, &registry, &req, wait.is_some()) {
            Ok(Some(fields)) => {
                let hint = registry.get(&req.action).and_then(|e| e.size_hint);
                let line: Arc<str> = budgeted_line(&req.id, fields, budget, hint).into();
                if let Some((wait, info)) = wait {
                    hold_for_completion(world, &req, info, wait, Some(line));
                    continue;
                }
                CommandResponse { origin: req.origin, line, typed: None, held: false }
            }
            Ok(None) => {
                if let Some((wait, info)) = wait {
                    hold_for_completion(world, &req, info, wait, None);
                }
                continue;
            }
            Err(e) => {
                let warnings = registry.get(&req.action).map(|c| c.param_warnings(&req.params)).unwrap_or_default();
                CommandResponse::error_with_warnings(req.origin, req.id.clone(), &e, &warnings)
            }
        };
        world.write_message(response);
    }
    // Whatever handlers queued meanwhile goes after what waited.
    let mut pending = world.resource_mut::<PendingCommands>();
    keep.append(&mut pending.0);
    pending.0 = keep;
    if let Some(mut budget) = world.get_resource_mut::<CommandBudget>() {
        budget.more = more;
    }
}

/// Registers a waiting request with its first answer (`None`: a held deferred reply follows).
fn hold_for_completion(
    world: &mut World,
    req: &CommandRequest,
    info: AsyncInfo,
    wait: WaitFor,
    first: Option<Arc<str>>,
) {
    let bot = resolve_bot(world, req.bot.as_deref(), true).ok().flatten().unwrap_or(Entity::PLACEHOLDER);
    let now = world.get_resource::<crate::TickCount>().map_or(0, |t| t.0);
    if let Some(mut waiting) = world.get_resource_mut::<WaitingRequests>() {
        waiting.hold(req, bot, info, wait, now, first);
    }
}

fn run_one(
    world: &mut World,
    registry: &CommandRegistry,
    req: &CommandRequest,
    hold: bool,
) -> Result<Option<String>, CommandError> {
    let Some(entry) = registry.get(&req.action) else {
        let hints = registry.suggestions(&req.action);
        let hint = if hints.is_empty() { String::new() } else { format!(" (did you mean: {})", hints.join(", ")) };
        return Err(CommandError::new("UNKNOWN_ACTION", format!("Unknown action: {}{hint}", req.action)));
    };
    let bot = match resolve_bot(world, req.bot.as_deref(), entry.per_bot)? {
        Some(b) => b,
        None if !entry.needs_spawn => Entity::PLACEHOLDER,
        None => {
            coerce_params(entry.params_schema(), req.params.clone())?;
            return Err(CommandError::not_spawned());
        }
    };
    entry.invoke_inner(world, bot, req.id.clone(), req.origin, req.params.clone(), hold)
}

impl CommandEntry {
    /// Runs this command for `bot` as if a request with `id` had arrived from `origin`: numeric
    /// strings coerced, the spawn check, then the handler. `Ok(None)` when the handler deferred
    /// its response (it arrives later as a [`CommandResponse`] for `origin`). Skills call
    /// commands through this, so a helper is exactly the command.
    pub fn invoke(
        &self,
        world: &mut World,
        bot: Entity,
        id: Value,
        origin: Origin,
        params: Map<String, Value>,
    ) -> Result<Option<Map<String, Value>>, CommandError> {
        let Some(text) = self.invoke_text(world, bot, id, origin, params)? else { return Ok(None) };
        serde_json::from_str(&text).map(Some).map_err(CommandError::internal)
    }

    /// Like [`CommandEntry::invoke`], with the response's fields as the JSON object text the
    /// channels write (no `Value` tree: the channels' path).
    pub fn invoke_text(
        &self,
        world: &mut World,
        bot: Entity,
        id: Value,
        origin: Origin,
        params: Map<String, Value>,
    ) -> Result<Option<String>, CommandError> {
        self.invoke_inner(world, bot, id, origin, params, false)
    }

    /// [`CommandEntry::invoke_text`], with a deferred reply held when the request waits.
    fn invoke_inner(
        &self,
        world: &mut World,
        bot: Entity,
        id: Value,
        origin: Origin,
        params: Map<String, Value>,
        hold: bool,
    ) -> Result<Option<String>, CommandError> {
        let warnings = self.param_warnings(&params);
        let mut params = params;
        if !warnings.is_empty() && self.params_schema().get("additionalProperties") == Some(&Value::Bool(false)) {
            // A command that denies unknown fields would fail on them: they are warned about
            // and left out instead (ClawCraft's clients send extra fields).
            if let Some(known) = self.param_names() {
                params.retain(|k, _| known.contains(&k.as_str()));
            }
        }
        let params = coerce_params(self.params_schema(), params)?;
        if self.needs_spawn && world.get::<Lifecycle>(bot) != Some(&Lifecycle::Spawned) {
            return Err(CommandError::not_spawned());
        }
        let mut ctx = CommandCtx { world, bot, id, origin, deferred: false, warnings, size_hint: self.size_hint, hold };
        let fields = (self.handler)(&mut ctx, params)?;
        Ok(fields.map(|f| with_warnings(f, &ctx.warnings)))
    }

    /// Every parameter this command knows (from its schema), or `None` when it takes any
    /// (a schema that allows additional properties).
    pub fn param_names(&self) -> Option<Vec<&str>> {
        let mut names = Vec::new();
        let schema = self.params_schema();
        collect_properties(schema, schema, &mut names, 0)?;
        names.sort_unstable();
        names.dedup();
        Some(names)
    }

    /// `unknown parameter radious (did you mean radius?)` for each request field this command
    /// does not know. Not errors: ClawCraft's clients send extra fields; but never ignored silently.
    pub fn param_warnings(&self, params: &Map<String, Value>) -> Vec<String> {
        let Some(known) = self.param_names() else { return Vec::new() };
        params
            .keys()
            .filter(|k| !known.contains(&k.as_str()))
            .map(|k| {
                let lower = k.to_lowercase();
                let best = known
                    .iter()
                    .map(|n| (edit_distance(&lower, &n.to_lowercase()), *n))
                    .filter(|(d, n)| *d <= 2.max(n.len() / 3))
                    .min();
                match best {
                    Some((_, n)) => format!("unknown parameter {k} (did you mean {n}?)"),
                    None if known.is_empty() => format!("unknown parameter {k} ({} takes no parameters)", self.name),
                    None => format!("unknown parameter {k} (known: {})", known.join(", ")),
                }
            })
            .collect()
    }
}

/// Gathers `properties` names of a parameter schema, through `anyOf`/`oneOf`/`allOf` and local
/// `$ref`s; `None` when any part admits additional properties.
fn collect_properties<'a>(root: &'a Value, schema: &'a Value, out: &mut Vec<&'a str>, depth: u8) -> Option<()> {
    if depth > 8 {
        return Some(());
    }
    if schema.get("additionalProperties").is_some_and(|a| a != &Value::Bool(false)) {
        return None;
    }
    if let Some(props) = schema.get("properties").and_then(Value::as_object) {
        out.extend(props.keys().map(String::as_str));
    }
    for key in ["anyOf", "oneOf", "allOf"] {
        for variant in schema.get(key).and_then(Value::as_array).into_iter().flatten() {
            collect_properties(root, variant, out, depth + 1)?;
        }
    }
    if let Some(target) = schema.get("$ref").and_then(Value::as_str).and_then(|r| r.strip_prefix("#/"))
        && let Some(def) = target.split('/').try_fold(root, |v, part| v.get(part))
    {
        collect_properties(root, def, out, depth + 1)?;
    }
    Some(())
}

/// `fields` (a JSON object text) with a `warnings` array added when there are any.
fn with_warnings(fields: String, warnings: &[String]) -> String {
    if warnings.is_empty() {
        return fields;
    }
    if fields.contains("\"warnings\"")
        && let Ok(Value::Object(mut m)) = serde_json::from_str::<Value>(&fields)
        && let Some(Value::Array(own)) = m.get_mut("warnings")
    {
        // The response has warnings of its own (skill_define's analysis): one list.
        own.extend(warnings.iter().map(|w| Value::String(w.clone())));
        return Value::Object(m).to_string();
    }
    let list = serde_json::to_string(warnings).unwrap_or_else(|_| String::from("[]"));
    let inner = fields.strip_prefix('{').and_then(|f| f.strip_suffix('}')).unwrap_or("").trim();
    if inner.is_empty() { format!("{{\"warnings\":{list}}}") } else { format!("{{{inner},\"warnings\":{list}}}") }
}

/// Numbers given as strings are coerced, as ClawCraft does (`"x":"10"` → `10`), guided by the
/// parameter schema. A string that is not a number is an error naming the field.
pub fn coerce_params(schema: &Value, mut params: Map<String, Value>) -> Result<Map<String, Value>, CommandError> {
    let Some(props) = schema.get("properties").and_then(Value::as_object) else { return Ok(params) };
    for (key, value) in params.iter_mut() {
        let Some(prop) = props.get(key) else { continue };
        let Value::String(s) = value else { continue };
        let types = schema_types(prop);
        let wants_int = types.iter().any(|t| t == "integer");
        let wants_num = wants_int || types.iter().any(|t| t == "number");
        if !wants_num || types.iter().any(|t| t == "string") {
            continue;
        }
        let trimmed = s.trim();
        let parsed = if wants_int && !types.iter().any(|t| t == "number") {
            trimmed.parse::<i64>().map(Value::from).ok()
        } else {
            trimmed
                .parse::<f64>()
                .ok()
                .filter(|f| f.is_finite())
                .and_then(|f| serde_json::Number::from_f64(f).map(Value::Number))
        };
        match parsed {
            Some(v) => *value = v,
            None => return Err(CommandError::new("INVALID_PARAMS", format!("Invalid {key}: must be a number"))),
        }
    }
    Ok(params)
}

fn schema_types(prop: &Value) -> Vec<String> {
    match prop.get("type") {
        Some(Value::String(t)) => vec![t.clone()],
        Some(Value::Array(ts)) => ts.iter().filter_map(|t| t.as_str().map(String::from)).collect(),
        _ => Vec::new(),
    }
}

/// Levenshtein distance, for suggestions.
pub fn edit_distance(a: &str, b: &str) -> usize {
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
    use serde_json::json;

    #[test]
    fn parse_echoes_id_and_splits_params() {
        let r = parse_request(0, r#"{"action":"pos","id":"a1","x":1,"token":"t"}"#).expect("valid");
        assert_eq!(r.id, Value::from("a1"));
        assert_eq!(r.action, "pos");
        assert_eq!(r.params.get("x"), Some(&Value::from(1)));
        assert!(r.params.get("token").is_none(), "the token never reaches a command");
    }

    #[test]
    fn parse_errors_have_codes() {
        let e = parse_request(0, "{nope").expect_err("bad json");
        assert_eq!(e.body()["code"], "INVALID_JSON");
        let e = parse_request(0, r#"{"id":7}"#).expect_err("no action");
        assert_eq!(e.body()["code"], "MISSING_ACTION");
        assert_eq!(e.body()["id"], 7);
        let e = parse_request(0, "[1]").expect_err("not object");
        assert_eq!(e.body()["code"], "INVALID_COMMAND");
        let e = parse_request(0, r#"{"action":5}"#).expect_err("action not a string");
        assert_eq!(e.body()["code"], "INVALID_COMMAND");
    }

    #[test]
    fn numeric_strings_are_coerced_by_schema() {
        let schema = json!({"properties": {"x": {"type": "number"}, "n": {"type": ["integer", "null"]}, "name": {"type": "string"}}});
        let p = json!({"x": " 10.5", "n": "3", "name": "12"}).as_object().cloned().unwrap_or_default();
        let out = coerce_params(&schema, p).expect("coerced");
        assert_eq!(out["x"], json!(10.5));
        assert_eq!(out["n"], json!(3));
        assert_eq!(out["name"], json!("12"), "strings stay strings");
        let bad = json!({"x": "ten"}).as_object().cloned().unwrap_or_default();
        let e = coerce_params(&schema, bad).expect_err("not a number");
        assert_eq!(e.code, "INVALID_PARAMS");
        assert!(e.message.contains("Invalid x: must be a number"));
        let nan = json!({"x": "NaN"}).as_object().cloned().unwrap_or_default();
        assert!(coerce_params(&schema, nan).is_err(), "NaN is not a number here");
    }

    #[test]
    fn response_schemas_describe_what_is_written() {
        #[derive(Serialize, schemars::JsonSchema)]
        struct R {
            always: u8,
            #[serde(skip_serializing_if = "Option::is_none")]
            sometimes: Option<u8>,
        }
        let schema = serialized_schema::<R>();
        assert_eq!(schema["required"], json!(["always"]), "a field skipped when empty is optional: {schema}");
    }

    #[test]
    fn response_lines_put_type_and_id_first() {
        #[derive(Serialize)]
        struct R {
            b: u8,
            a: &'static str,
        }
        let line = ok_line(&Value::from("x"), &response_fields(&R { b: 1, a: "q" }).expect("json"));
        assert_eq!(line, r#"{"type":"response","id":"x","b":1,"a":"q"}"#);
        assert_eq!(ok_line(&Value::from(3), &response_fields(&()).expect("json")), r#"{"type":"response","id":3}"#);
        assert_eq!(
            ok_line(&Value::from(3), &response_fields(&[1, 2]).expect("json")),
            r#"{"type":"response","id":3,"result":[1,2]}"#
        );
        #[derive(Serialize)]
        struct Empty {}
        assert_eq!(
            ok_line(&Value::Null, &response_fields(&Empty {}).expect("json")),
            r#"{"type":"response","id":null}"#
        );
    }

    #[test]
    fn a_deferred_reply_keeps_one_id() {
        #[derive(Serialize)]
        struct Record {
            id: Value,
            output: u8,
        }
        let reply = DeferredReply { origin: 9, id: Value::from("c1"), ..DeferredReply::default() };
        let r = reply.respond(Ok(Record { id: Value::from("c1"), output: 2 }));
        assert_eq!(&*r.line, r#"{"type":"response","id":"c1","output":2}"#);
        let e = reply.respond::<Record>(Err(CommandError::new("TIMEOUT", "late")));
        assert_eq!(e.body()["code"], "TIMEOUT");
    }

    #[test]
    fn a_deferred_reply_over_the_budget_warns_like_an_answer_given_at_once() {
        #[derive(Serialize)]
        struct Output {
            output: String,
        }
        let reply = DeferredReply {
            id: Value::from("c2"),
            warnings: vec!["unknown parameter `x`".into()],
            budget: 100,
            size_hint: Some("ask for less"),
            ..DeferredReply::default()
        };
        let small = reply.respond(Ok(Output { output: "ok".into() })).body();
        assert_eq!(small["warnings"], json!(["unknown parameter `x`"]), "{small:?}");
        let big = reply.respond(Ok(Output { output: "é".repeat(200) })).body();
        let warnings = big["warnings"].as_array().expect("warnings");
        assert_eq!(warnings.len(), 2, "{big:?}");
        assert_eq!(warnings[0], json!("unknown parameter `x`"));
        let budget = warnings[1].as_str().expect("text");
        assert!(budget.contains("budget 100") && budget.ends_with("ask for less"), "{budget}");
        assert_eq!(big["output"].as_str().map(|o| o.chars().count()), Some(200), "the answer is still whole");
        let off = DeferredReply { budget: 0, ..reply };
        assert_eq!(
            off.respond(Ok(Output { output: "é".repeat(200) })).body()["warnings"].as_array().map(Vec::len),
            Some(1)
        );
    }

    #[test]
    fn warnings_join_the_fields() {
        assert_eq!(with_warnings("{}".into(), &["w".into()]), r#"{"warnings":["w"]}"#);
        assert_eq!(with_warnings(r#"{"a":1}"#.into(), &["w".into()]), r#"{"a":1,"warnings":["w"]}"#);
        assert_eq!(with_warnings(r#"{"a":1}"#.into(), &[]), r#"{"a":1}"#);
        let schema = json!({"anyOf": [{"$ref": "#/$defs/A"}, {"properties": {"b": {}}}], "$defs": {"A": {"properties": {"a": {}}}}});
        let mut out = Vec::new();
        assert!(collect_properties(&schema, &schema, &mut out, 0).is_some());
        assert_eq!(out, ["a", "b"]);
        let open = json!({"properties": {"a": {}}, "additionalProperties": true});
        assert!(collect_properties(&open, &open, &mut Vec::new(), 0).is_none(), "open schemas take anything");
    }

    #[test]
    fn a_line_over_the_budget_says_so_and_what_to_ask_instead() {
        let id = Value::from(1);
        let small = budgeted_line(&id, r#"{"a":1}"#.into(), 100, Some("use less"));
        assert_eq!(small, r#"{"type":"response","id":1,"a":1}"#);
        let fields = format!(r#"{{"a":"{}"}}"#, "é".repeat(60));
        // 60 two-byte characters in a 93-character line of 153 bytes: within a budget of 100.
        assert!(!budgeted_line(&id, fields.clone(), 100, None).contains("warnings"));
        let line = budgeted_line(&id, fields.clone(), 80, Some("use less"));
        let body: Value = serde_json::from_str(&line).expect("json");
        assert_eq!(body["warnings"], serde_json::json!(["response is 93 characters (budget 80): use less"]));
        assert!(budgeted_line(&id, fields.clone(), 80, None).contains("narrow the request"));
        assert!(!budgeted_line(&id, fields, 0, None).contains("warnings"), "0 turns it off");
    }

    #[test]
    fn suggestions_find_near_names() {
        assert_eq!(edit_distance("stauts", "status"), 2);
    }
}
