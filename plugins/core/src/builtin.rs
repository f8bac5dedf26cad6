//! Built-in commands (`schema`, `help`) and the lifecycle events every bot emits.

use bevy_ecs::prelude::{Entity, Message};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use crate::Vec3;
use crate::command::{AgentCommand, CommandCtx, CommandError, CommandRegistry, ERROR_CODES};
use crate::event::EventRegistry;

/// `startup`: the harness started.
#[derive(Message, Clone, Serialize, JsonSchema)]
pub struct Startup {
    /// clawcraft's version.
    pub version: String,
}
crate::event_kind!(Startup, "startup", "The harness started", None);

/// `ready`: logged in; the world is being received.
#[derive(Message, Clone, Serialize, JsonSchema)]
pub struct Ready {
    #[serde(skip)]
    pub bot: Entity,
}
crate::event_kind!(Ready, "ready", "Logged in; the world is being received");

/// `spawn`: the bot spawned; world commands work from now on.
#[derive(Message, Clone, Serialize, JsonSchema)]
pub struct Spawn {
    #[serde(skip)]
    pub bot: Entity,
    /// Feet position.
    pub pos: Vec3,
}
crate::event_kind!(Spawn, "spawn", "The bot spawned; commands that need the world work from now on");

/// `disconnected`: the connection ended.
#[derive(Message, Clone, Serialize, JsonSchema)]
pub struct Disconnected {
    #[serde(skip)]
    pub bot: Entity,
    /// The server's message when it kicked us, else what happened.
    pub reason: String,
}
crate::event_kind!(
    Disconnected,
    "disconnected",
    "The connection ended (with the server's message when it kicked the bot)"
);

/// `shutdown`: leaving after stdin EOF or a signal.
#[derive(Message, Clone, Serialize, JsonSchema)]
pub struct Shutdown {}
crate::event_kind!(Shutdown, "shutdown", "The harness is leaving (stdin closed, SIGINT or SIGTERM)", None);

/// `{"action":"schema"}`: JSON Schema of every command and event, generated from the Rust types;
/// `{"action":"schema","command":"find"}` (or `event`, or `topic` for either) just that one.
#[derive(Deserialize, JsonSchema)]
pub struct Schema {
    /// Only this command.
    pub command: Option<String>,
    /// Only this event.
    pub event: Option<String>,
    /// Only this command or event (either kind).
    pub topic: Option<String>,
}

/// Which entries a `schema`/`help` filter keeps: `None` keeps everything.
struct NameFilter {
    command: Option<String>,
    event: Option<String>,
}

impl NameFilter {
    fn new(command: Option<String>, event: Option<String>, topic: Option<String>) -> Option<Self> {
        match (command, event, topic) {
            (None, None, None) => None,
            (command, event, topic) => Some(Self { command: command.or(topic.clone()), event: event.or(topic) }),
        }
    }

    /// The error when the filter matched nothing, with the nearest command and event names.
    fn no_match(&self, commands: &CommandRegistry, events: &EventRegistry) -> CommandError {
        let name = self.command.as_deref().or(self.event.as_deref()).unwrap_or("");
        let mut hints: Vec<&str> = if self.command.is_some() { commands.suggestions(name) } else { Vec::new() };
        if self.event.is_some() {
            hints.extend(events.events.keys().copied().filter(|e| {
                crate::command::edit_distance(name, e) <= 3
                    || e.contains(name)
                    || (!name.is_empty() && name.contains(e))
            }));
        }
        hints.truncate(5);
        CommandError::invalid_params_text(format!(
            "no command or event named {name}{}",
            if hints.is_empty() { String::new() } else { format!(" (did you mean: {})", hints.join(", ")) }
        ))
    }
}

/// Response of `schema`.
#[derive(Serialize, JsonSchema)]
pub struct SchemaResponse {
    pub version: String,
    /// Each command: name, summary, example, needsSpawn, query, params (JSON Schema), response (JSON
    /// Schema), and `sizeHint` (what to ask instead of an answer over the response budget) when it has one.
    pub commands: Vec<Value>,
    /// Each event: name, description, optIn, fields (JSON Schema).
    pub events: Vec<Value>,
    /// Each error code with its meaning (left out when the request names one command or event).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub errors: Vec<Value>,
}

impl AgentCommand for Schema {
    const NAME: &'static str = "schema";
    const PER_BOT: bool = false;
    const SUMMARY: &'static str = "JSON Schema of every command's parameters and response, and every event's fields";
    const EXAMPLE: &'static str = r#"{"action":"schema","command":"find"}"#;
    const NEEDS_SPAWN: bool = false;
    const QUERY: bool = true;
    const SIZE_HINT: Option<&'static str> = Some("pass a command, event or topic to get one entry");
    type Response = SchemaResponse;

    fn run(self, ctx: &mut CommandCtx<'_>) -> Result<SchemaResponse, CommandError> {
        let filter = NameFilter::new(self.command, self.event, self.topic);
        let keep_command = |name: &str| filter.as_ref().is_none_or(|f| f.command.as_deref() == Some(name));
        let keep_event = |name: &str| filter.as_ref().is_none_or(|f| f.event.as_deref() == Some(name));
        let commands: Vec<Value> = ctx
            .world
            .resource::<CommandRegistry>()
            .entries()
            .filter(|c| keep_command(c.name))
            .map(|c| {
                let mut entry = json!({
                    "name": c.name, "summary": c.summary, "example": c.example,
                    "needsSpawn": c.needs_spawn, "perBot": c.per_bot, "query": c.query,
                    "params": c.params_schema(), "response": c.response_schema(),
                });
                if let Some(a) = c.async_info {
                    entry["async"] = json!({"slot": a.slot, "completionEvent": a.completion_event, "abort": a.abort});
                }
                if let Some(slot) = c.aborts {
                    entry["aborts"] = json!(slot);
                }
                if let Some(hint) = c.size_hint {
                    entry["sizeHint"] = json!(hint);
                }
                entry
            })
            .collect();
        let events: Vec<Value> = ctx
            .world
            .resource::<EventRegistry>()
            .events
            .values()
            .filter(|e| keep_event(e.name))
            .map(|e| json!({"name": e.name, "description": e.description, "optIn": e.opt_in, "fields": e.schema()}))
            .collect();
        if let Some(f) = &filter
            && commands.is_empty()
            && events.is_empty()
        {
            return Err(f.no_match(ctx.world.resource::<CommandRegistry>(), ctx.world.resource::<EventRegistry>()));
        }
        let errors = match filter {
            Some(_) => Vec::new(),
            None => ERROR_CODES.iter().map(|(c, m)| json!({"code": c, "meaning": m})).collect(),
        };
        Ok(SchemaResponse { version: env!("CARGO_PKG_VERSION").into(), commands, events, errors })
    }
}

/// `{"action":"help","topic":"pos"}`: the schema in short prose.
#[derive(Deserialize, JsonSchema)]
pub struct Help {
    /// A command or event name, or `commands`, `events`, `errors`. Omit for an overview.
    pub topic: Option<String>,
    /// A command name (same as `topic`).
    pub command: Option<String>,
    /// An event name (looked up among events only).
    pub event: Option<String>,
}

/// Response of `help`.
#[derive(Serialize, JsonSchema)]
pub struct HelpResponse {
    pub topic: String,
    pub text: String,
}

fn param_lines(schema: &Value) -> Vec<String> {
    if let Some(variants) = schema.get("anyOf").and_then(Value::as_array) {
        let mut lines: Vec<String> = Vec::new();
        for line in variants.iter().flat_map(param_lines) {
            if !lines.contains(&line) {
                lines.push(line);
            }
        }
        return lines;
    }
    let required: Vec<&str> = schema
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let Some(props) = schema.get("properties").and_then(Value::as_object) else { return Vec::new() };
    props
        .iter()
        .map(|(name, p)| {
            let ty = match p.get("type") {
                Some(Value::String(t)) => t.clone(),
                Some(Value::Array(ts)) => {
                    ts.iter().filter_map(Value::as_str).filter(|t| *t != "null").collect::<Vec<_>>().join("|")
                }
                _ => "value".into(),
            };
            let desc = p.get("description").and_then(Value::as_str).unwrap_or("");
            let req = if required.contains(&name.as_str()) { "required" } else { "optional" };
            format!("  {name} ({ty}, {req}) {desc}").trim_end().to_owned()
        })
        .collect()
}

impl AgentCommand for Help {
    const NAME: &'static str = "help";
    const PER_BOT: bool = false;
    const SUMMARY: &'static str = "Short prose help on a command, an event, or everything";
    const EXAMPLE: &'static str = r#"{"action":"help","topic":"pos"}"#;
    const NEEDS_SPAWN: bool = false;
    const QUERY: bool = true;
    const SIZE_HINT: Option<&'static str> = Some("pass a topic (a command or event name)");
    type Response = HelpResponse;

    fn run(self, ctx: &mut CommandCtx<'_>) -> Result<HelpResponse, CommandError> {
        let commands = ctx.world.resource::<CommandRegistry>().clone();
        let events = ctx.world.resource::<EventRegistry>().clone();
        let only_event = self.event.is_some();
        let topic = self.event.or(self.command).or(self.topic).unwrap_or_else(|| "overview".into());
        let list_commands =
            || commands.entries().map(|c| format!("{}: {}", c.name, c.summary)).collect::<Vec<_>>().join("\n");
        let list_events = || {
            events
                .events
                .values()
                .map(|e| format!("{}{}: {}", e.name, if e.opt_in.is_some() { " (opt-in)" } else { "" }, e.description))
                .collect::<Vec<_>>()
                .join("\n")
        };
        let text = match topic.as_str() {
            "overview" => format!(
                "Send one JSON object per line: {{\"action\":\"<command>\",\"id\":<optional>,...}}. Every command gets one \
                 {{\"type\":\"response\"}} line; events arrive with type, timestamp and seq.\n\nCommands:\n{}\n\nEvents:\n{}\n\n\
                 Use {{\"action\":\"help\",\"topic\":\"<name>\"}} for details, {{\"action\":\"schema\"}} for JSON Schema.",
                list_commands(),
                list_events()
            ),
            "commands" => list_commands(),
            "events" => list_events(),
            "errors" => ERROR_CODES.iter().map(|(c, m)| format!("{c}: {m}")).collect::<Vec<_>>().join("\n"),
            name => {
                if let Some(c) = commands.get(name).filter(|_| !only_event) {
                    let params = param_lines(c.params_schema());
                    let lifecycle = match (c.async_info, c.aborts) {
                        (Some(a), _) => format!(
                            "\nAsync: answers at once, then exactly one {} event with this request's id and a status \
                             (done/aborted/failed/timeout); {} stops it.",
                            a.completion_event, a.abort
                        ),
                        (None, Some(slot)) => format!("\nStops the running {slot} action."),
                        (None, None) => String::new(),
                    };
                    let size = c.size_hint.map(|h| format!("\nA long answer warns; then {h}.")).unwrap_or_default();
                    format!(
                        "{}: {}\nExample: {}\nParameters:{}\n{}{}{}{}",
                        c.name,
                        c.summary,
                        c.example,
                        if params.is_empty() { " none".to_owned() } else { format!("\n{}", params.join("\n")) },
                        if c.needs_spawn { "Needs a spawned bot. " } else { "" },
                        if c.query { "Answered at once (query)." } else { "Runs on the next tick." },
                        lifecycle,
                        size
                    )
                } else if let Some(e) = events.events.get(name) {
                    let fields = param_lines(e.schema());
                    format!(
                        "event {}: {}{}\nFields (besides type, timestamp, seq):{}",
                        e.name,
                        e.description,
                        if e.opt_in.is_some() { " (opt-in: subscribe to receive it)" } else { "" },
                        if fields.is_empty() { " none".to_owned() } else { format!("\n{}", fields.join("\n")) }
                    )
                } else {
                    let filter =
                        NameFilter { command: (!only_event).then(|| name.to_owned()), event: Some(name.to_owned()) };
                    return Err(filter.no_match(&commands, &events));
                }
            }
        };
        Ok(HelpResponse { topic, text })
    }
}
