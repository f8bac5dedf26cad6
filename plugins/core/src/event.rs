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
    /// The generators of the JSON Schema of each shape of the event (usually one; see
    /// [`EventRegistry::register`]).
    schema_of: Vec<fn() -> Value>,
    /// The JSON Schema, generated on first use ([`EventEntry::schema`]).
    schema: std::sync::OnceLock<Value>,
    /// Opt-in events are only emitted while subscribed (see [`crate::subscription`]).
    pub opt_in: Option<crate::subscription::OptIn>,
}

impl EventEntry {
    /// JSON Schema of the fields besides `type`, `timestamp` and `seq`, generated when first
    /// asked for (not at start-up: most runs never ask). An event two plugins emit in different
    /// shapes lists both (`anyOf`).
    pub fn schema(&self) -> &Value {
        self.schema.get_or_init(|| {
            let mut shapes = self.schema_of.iter();
            let mut schema = shapes.next().map_or(Value::Null, |first| first());
            for next in shapes {
                let mut variants = match schema.get("anyOf").and_then(Value::as_array) {
                    Some(v) => v.clone(),
                    None => vec![schema],
                };
                variants.push(next());
                let mut merged = Map::new();
                merged.insert("anyOf".into(), Value::Array(variants));
                schema = Value::Object(merged);
            }
            schema
        })
    }
}

/// Every event type the agent can receive, for `schema`/`help` and the skill.
#[derive(Resource, Debug, Default, Clone)]
pub struct EventRegistry {
    pub events: std::collections::BTreeMap<&'static str, EventEntry>,
}

impl EventRegistry {
    pub fn register<E: EventKind>(&mut self, opt_in: Option<crate::subscription::OptIn>) {
        let schema_of: fn() -> Value = crate::command::serialized_schema::<E>;
        // Two plugins may emit variants of one event (`danger` for mobs and for low health):
        // the schema then lists both shapes.
        if let Some(existing) = self.events.get_mut(E::NAME) {
            existing.schema_of.push(schema_of);
            existing.schema = std::sync::OnceLock::new();
            existing.opt_in = existing.opt_in.or(opt_in);
            return;
        }
        self.events.insert(
            E::NAME,
            EventEntry {
                name: E::NAME,
                description: E::DESCRIPTION,
                schema_of: vec![schema_of],
                schema: std::sync::OnceLock::new(),
                opt_in,
            },
        );
    }

    /// Known event names closest to `name`, for "did you mean" hints.
    pub fn suggestions(&self, name: &str) -> Vec<&'static str> {
        close_names(name, self.events.keys().copied())
    }

    /// One warning per name of `types` that is no event type, naming the closest ones.
    pub fn unknown_type_warnings(&self, types: &[String]) -> Vec<String> {
        unknown_type_warnings(types, self.events.keys().copied())
    }
}

/// The (at most 3) names of `known` closest to `name`: within 3 edits, or containing it.
pub fn close_names(name: &str, known: impl Iterator<Item = &'static str>) -> Vec<&'static str> {
    let mut scored: Vec<(usize, &'static str)> = known
        .map(|n| (crate::command::edit_distance(name, n), n))
        .filter(|(d, n)| *d <= 3 || (!name.is_empty() && (n.contains(name) || name.contains(n))))
        .collect();
    scored.sort();
    scored.into_iter().take(3).map(|(_, n)| n).collect()
}

/// `unknown event type "dangr" (did you mean: danger)` for each name of `types` not in `known`.
pub fn unknown_type_warnings(types: &[String], known: impl Iterator<Item = &'static str> + Clone) -> Vec<String> {
    types
        .iter()
        .filter(|t| !known.clone().any(|k| k == t.as_str()))
        .map(|t| {
            let hints = close_names(t, known.clone());
            if hints.is_empty() {
                format!("unknown event type \"{t}\"")
            } else {
                format!("unknown event type \"{t}\" (did you mean: {})", hints.join(", "))
            }
        })
        .collect()
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_types_are_warned_with_the_closest_names() {
        let known = ["danger", "damage_taken", "msg", "death"];
        let types = ["dangr".to_owned(), "msg".to_owned(), "zzzzzzzz".to_owned()];
        assert_eq!(
            unknown_type_warnings(&types, known.iter().copied()),
            ["unknown event type \"dangr\" (did you mean: danger)", "unknown event type \"zzzzzzzz\""]
        );
        assert_eq!(close_names("damage", known.iter().copied()), ["danger", "damage_taken"]);
    }
}
