//! Agent events: what the agent hears about, in ClawCraft's shape
//! (`{"type":…, "timestamp": ms, …fields}`).

use std::time::{Instant, SystemTime, UNIX_EPOCH};

use bevy_ecs::prelude::*;
use serde_json::{Map, Value};

/// One event for the agent. The I/O plugin stamps `timestamp` and `seq` when it writes it out.
#[derive(Message, Debug, Clone, PartialEq)]
pub struct AgentEvent {
    /// The event's `type`, e.g. `spawn`.
    pub kind: String,
    /// Fields besides `type`, `timestamp` and `seq`.
    pub fields: Map<String, Value>,
}

impl AgentEvent {
    pub fn new(kind: impl Into<String>) -> Self {
        Self { kind: kind.into(), fields: Map::new() }
    }

    /// Adds a field; values that fail to serialize become `null` rather than losing the event.
    pub fn with(mut self, key: &str, value: impl serde::Serialize) -> Self {
        self.fields.insert(key.to_owned(), serde_json::to_value(value).unwrap_or(Value::Null));
        self
    }

    /// The JSON object written to the agent, without `seq`.
    pub fn to_json(&self, timestamp_ms: u64) -> Map<String, Value> {
        let mut out = Map::with_capacity(self.fields.len() + 2);
        out.insert("type".into(), Value::String(self.kind.clone()));
        for (k, v) in &self.fields {
            out.insert(k.clone(), v.clone());
        }
        out.insert("timestamp".into(), Value::from(timestamp_ms));
        out
    }
}

/// Shorthand for systems that emit events.
pub type EventSink<'w> = MessageWriter<'w, AgentEvent>;

/// Unix time in milliseconds.
pub fn now_ms() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_millis() as u64).unwrap_or(0)
}

/// When the process started, for `uptime`.
#[derive(Resource, Debug, Clone, Copy)]
pub struct Uptime(pub Instant);

impl Default for Uptime {
    fn default() -> Self {
        Self(Instant::now())
    }
}

/// A typed agent event: its fields are the struct, its docs and schema come from the type.
pub trait EventKind: serde::Serialize + schemars::JsonSchema {
    /// The event's `type`.
    const NAME: &'static str;
    /// One line for the schema and the skill.
    const DESCRIPTION: &'static str;
}

impl AgentEvent {
    /// Builds the event for a typed payload.
    pub fn of<E: EventKind>(event: &E) -> Self {
        let fields = match serde_json::to_value(event) {
            Ok(Value::Object(m)) => m,
            _ => Map::new(),
        };
        Self { kind: E::NAME.to_owned(), fields }
    }
}

/// One documented event type.
#[derive(Debug, Clone)]
pub struct EventEntry {
    pub name: &'static str,
    pub description: &'static str,
    /// JSON Schema of the fields besides `type`, `timestamp` and `seq`.
    pub schema: Value,
    /// Opt-in events are only emitted while subscribed (see [`crate::subscription`]).
    pub opt_in: Option<crate::subscription::OptIn>,
}

/// Every event type the agent can receive, for `schema`/`help` and the skill.
#[derive(Resource, Debug, Default, Clone)]
pub struct EventRegistry {
    pub events: std::collections::BTreeMap<&'static str, EventEntry>,
}

impl EventRegistry {
    pub fn register<E: EventKind>(&mut self, opt_in: Option<crate::subscription::OptIn>) {
        let schema = crate::command::serialized_schema::<E>();
        // Two plugins may emit variants of one event (`danger` for mobs and for low health):
        // the schema then lists both shapes.
        if let Some(existing) = self.events.get_mut(E::NAME) {
            let mut variants = match existing.schema.get("anyOf").and_then(Value::as_array) {
                Some(v) => v.clone(),
                None => vec![existing.schema.clone()],
            };
            variants.push(schema);
            let mut merged = Map::new();
            merged.insert("anyOf".into(), Value::Array(variants));
            existing.schema = Value::Object(merged);
            existing.opt_in = existing.opt_in.or(opt_in);
            return;
        }
        self.events.insert(E::NAME, EventEntry { name: E::NAME, description: E::DESCRIPTION, schema, opt_in });
    }
}

/// Registering events on the `App`.
pub trait AppEventExt {
    /// Documents event `E` (always emitted).
    fn add_agent_event<E: EventKind>(&mut self) -> &mut Self;
    /// Documents opt-in event `E`, emitted only while the agent is subscribed to it.
    fn add_opt_in_event<E: EventKind>(&mut self, opt_in: crate::subscription::OptIn) -> &mut Self;
}

impl AppEventExt for bevy_app::App {
    fn add_agent_event<E: EventKind>(&mut self) -> &mut Self {
        self.world_mut().get_resource_or_init::<EventRegistry>().register::<E>(None);
        self
    }
    fn add_opt_in_event<E: EventKind>(&mut self, opt_in: crate::subscription::OptIn) -> &mut Self {
        self.world_mut().get_resource_or_init::<EventRegistry>().register::<E>(Some(opt_in));
        self
    }
}
