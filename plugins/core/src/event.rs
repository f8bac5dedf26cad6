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
