//! Agent events: what the agent hears about.
//!
//! Every event is a typed struct carrying the bot it is about (`ChatReceived { bot, from, .. }`)
//! that implements [`EventKind`]: its `type` name, its description, and through serde and
//! schemars its JSON fields and schema. Plugins emit it wrapped in one ordered stream,
//! [`AgentEvent`] (`events.write(AgentEvent::new(Msg { bot, .. }))`, see [`EventSink`]); the
//! stream keeps the order in which events happened across types. From there:
//!
//! - Every registered event type is also a Bevy message of its own: a plugin reads
//!   `MessageReader<Msg>` and gets typed values, no JSON ([`publish_events`] copies each event
//!   of the stream into its type's messages).
//! - The I/O plugin turns the stream into the JSON lines the agent reads, in one place
//!   ([`AgentEvent::to_json`]): `{"type":…, …fields, "timestamp": ms}` in ClawCraft's shape,
//!   plus `bot` (the bot's name) when the process runs more than one bot.

use std::any::Any;
use std::sync::Arc;
use std::time::{Instant, SystemTime, UNIX_EPOCH};

use bevy_ecs::message::{MessageCursor, Messages};
use bevy_ecs::prelude::*;
use serde_json::{Map, Value};

/// A typed agent event: its fields are the struct, its docs and schema come from the type.
///
/// Per-bot events carry the bot's entity in a `bot` field that is not part of the JSON (the I/O
/// edge writes the bot's name instead). Written out, or in one line with
/// [`event_kind!`](crate::event_kind):
///
/// ```
/// use bevy_ecs::prelude::*;
/// use clawcraft_core::EventKind;
///
/// #[derive(Message, Clone, serde::Serialize, schemars::JsonSchema)]
/// pub struct Waved {
///     #[serde(skip)]
///     pub bot: Entity,
///     /// Who waved back.
///     pub at: String,
/// }
/// impl EventKind for Waved {
///     const NAME: &'static str = "waved";
///     const DESCRIPTION: &'static str = "The bot waved at a player";
///     fn bot(&self) -> Option<Entity> {
///         Some(self.bot)
///     }
/// }
/// ```
pub trait EventKind: Message + Clone + serde::Serialize + schemars::JsonSchema {
    /// The event's `type`.
    const NAME: &'static str;
    /// One line for the schema and the skill.
    const DESCRIPTION: &'static str;
    /// The bot the event is about; `None` for the process's own events (`startup`, `shutdown`).
    fn bot(&self) -> Option<Entity>;
}

/// Implements [`EventKind`] in one line.
///
/// - `event_kind!(Waved, "waved", "The bot waved at a player");` — the usual per-bot event:
///   `bot()` is `Some(self.bot)`.
/// - `event_kind!(Startup, "startup", "…", None);` — a process event: `bot()` is `None`.
/// - `event_kind!(Seen, "seen", "…", |e| e.owner);` — any other `bot()`: the expression, with
///   the event bound to the given name.
///
/// ```
/// use bevy_ecs::prelude::*;
///
/// #[derive(Message, Clone, serde::Serialize, schemars::JsonSchema)]
/// pub struct Waved {
///     #[serde(skip)]
///     pub bot: Entity,
///     pub at: String,
/// }
/// clawcraft_core::event_kind!(Waved, "waved", "The bot waved at a player");
///
/// #[derive(Message, Clone, serde::Serialize, schemars::JsonSchema)]
/// pub struct Rebooted;
/// clawcraft_core::event_kind!(Rebooted, "rebooted", "The process restarted", None);
/// ```
#[macro_export]
macro_rules! event_kind {
    ($ty:ty, $name:expr, $description:expr $(,)?) => {
        $crate::event_kind!($ty, $name, $description, |e| ::core::option::Option::Some(e.bot));
    };
    ($ty:ty, $name:expr, $description:expr, None $(,)?) => {
        $crate::event_kind!($ty, $name, $description, |_e| ::core::option::Option::None);
    };
    ($ty:ty, $name:expr, $description:expr, |$e:ident| $bot:expr $(,)?) => {
        impl $crate::EventKind for $ty {
            const NAME: &'static str = $name;
            const DESCRIPTION: &'static str = $description;
            fn bot(&self) -> ::core::option::Option<$crate::__private::Entity> {
                let $e = self;
                $bot
            }
        }
    };
}

/// An event of any [`EventKind`], behind the one ordered stream.
trait ErasedEvent: Any + Send + Sync {
    fn name(&self) -> &'static str;
    fn bot(&self) -> Option<Entity>;
    fn fields(&self) -> Map<String, Value>;
    fn publish(&self, world: &mut World);
    fn as_any(&self) -> &dyn Any;
}

impl<E: EventKind> ErasedEvent for E {
    fn name(&self) -> &'static str {
        E::NAME
    }
    fn bot(&self) -> Option<Entity> {
        EventKind::bot(self)
    }
    fn fields(&self) -> Map<String, Value> {
        match serde_json::to_value(self) {
            Ok(Value::Object(m)) => m,
            Ok(_) => Map::new(),
            Err(e) => {
                tracing::error!(event = E::NAME, error = %e, "event does not serialize");
                Map::new()
            }
        }
    }
    fn publish(&self, world: &mut World) {
        if let Some(mut messages) = world.get_resource_mut::<Messages<E>>() {
            messages.write(self.clone());
        }
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
}

/// One event for the agent, in the order events happened: a typed event behind a shared
/// pointer (cloning is a reference count). The I/O plugin stamps `timestamp` and `seq` when it
/// writes it out.
#[derive(Message, Clone)]
pub struct AgentEvent(Arc<dyn ErasedEvent>);

impl AgentEvent {
    /// Wraps a typed event.
    pub fn new<E: EventKind>(event: E) -> Self {
        Self(Arc::new(event))
    }

    /// The event's `type`, e.g. `spawn`.
    pub fn kind(&self) -> &'static str {
        self.0.name()
    }

    /// The bot it is about (`None` for the process's own events).
    pub fn bot(&self) -> Option<Entity> {
        self.0.bot()
    }

    /// The typed event, when it is an `E`.
    pub fn get<E: EventKind>(&self) -> Option<&E> {
        self.0.as_any().downcast_ref::<E>()
    }

    /// Whether it is an `E`.
    pub fn is<E: EventKind>(&self) -> bool {
        self.get::<E>().is_some()
    }

    /// The fields besides `type`, `timestamp`, `seq` and `bot`, as JSON.
    pub fn fields(&self) -> Map<String, Value> {
        self.0.fields()
    }

    /// The JSON object written to the agent, without `seq` and `bot`: `type` first, then the
    /// fields, then `timestamp`.
    pub fn to_json(&self, timestamp_ms: u64) -> Map<String, Value> {
        let fields = self.0.fields();
        let mut out = Map::with_capacity(fields.len() + 2);
        out.insert("type".into(), Value::String(self.kind().to_owned()));
        out.extend(fields);
        out.insert("timestamp".into(), Value::from(timestamp_ms));
        out
    }
}

impl std::fmt::Debug for AgentEvent {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AgentEvent")
            .field("kind", &self.kind())
            .field("bot", &self.bot())
            .field("fields", &self.fields())
            .finish()
    }
}

impl PartialEq for AgentEvent {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
            || (self.kind() == other.kind() && self.bot() == other.bot() && self.fields() == other.fields())
    }
}

/// Shorthand for systems that emit events: `events.write(AgentEvent::new(Msg { bot, .. }))`.
pub type EventSink<'w> = MessageWriter<'w, AgentEvent>;

/// One bot's events gathered by plain functions (an inventory update, a window's changes)
/// before the system that called them writes them: `out.push(ItemAdded { bot: out.bot(), .. })`.
#[derive(Debug)]
pub struct EventBatch {
    bot: Entity,
    events: Vec<AgentEvent>,
}

impl EventBatch {
    /// An empty batch of `bot`'s events.
    pub fn new(bot: Entity) -> Self {
        Self { bot, events: Vec::new() }
    }

    /// The bot the events are about.
    pub fn bot(&self) -> Entity {
        self.bot
    }

    /// Adds an event.
    pub fn push<E: EventKind>(&mut self, event: E) {
        self.events.push(AgentEvent::new(event));
    }

    /// The events so far, in order.
    pub fn events(&self) -> &[AgentEvent] {
        &self.events
    }

    /// Takes the events out (the batch stays, empty).
    pub fn drain(&mut self) -> std::vec::Drain<'_, AgentEvent> {
        self.events.drain(..)
    }

    pub fn is_empty(&self) -> bool {
        self.events.is_empty()
    }

    pub fn len(&self) -> usize {
        self.events.len()
    }
}

/// The read position of [`publish_events`] in the [`AgentEvent`] stream (one for every
/// schedule it runs in, so each event is published once).
#[derive(Resource, Default)]
pub struct PublishCursor(MessageCursor<AgentEvent>);

/// Copies every new event of the [`AgentEvent`] stream into its type's own messages, so a plugin
/// reads `MessageReader<Msg>`. Runs at the end of each tick's work, in `Last` and between ticks.
pub fn publish_events(world: &mut World) {
    let Some(mut cursor) = world.remove_resource::<PublishCursor>() else { return };
    let new: Vec<AgentEvent> = match world.get_resource::<Messages<AgentEvent>>() {
        Some(messages) => cursor.0.read(messages).cloned().collect(),
        None => Vec::new(),
    };
    world.insert_resource(cursor);
    for event in new {
        event.0.publish(world);
    }
}

/// Whether events wait for [`publish_events`].
pub fn events_to_publish(world: &World) -> bool {
    match (world.get_resource::<Messages<AgentEvent>>(), world.get_resource::<PublishCursor>()) {
        (Some(messages), Some(cursor)) => cursor.0.len(messages) > 0,
        _ => false,
    }
}

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
    /// Documents event `E` (always emitted) and registers it as a message of its own, which
    /// [`publish_events`] fills from the [`AgentEvent`] stream.
    fn add_agent_event<E: EventKind>(&mut self) -> &mut Self;
    /// Documents opt-in event `E`, emitted only while the agent is subscribed to it.
    fn add_opt_in_event<E: EventKind>(&mut self, opt_in: crate::subscription::OptIn) -> &mut Self;
}

impl AppEventExt for bevy_app::App {
    fn add_agent_event<E: EventKind>(&mut self) -> &mut Self {
        self.world_mut().get_resource_or_init::<EventRegistry>().register::<E>(None);
        self.add_message::<E>()
    }
    fn add_opt_in_event<E: EventKind>(&mut self, opt_in: crate::subscription::OptIn) -> &mut Self {
        self.world_mut().get_resource_or_init::<EventRegistry>().register::<E>(Some(opt_in));
        self.add_message::<E>()
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
