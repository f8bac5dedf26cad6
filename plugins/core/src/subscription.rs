//! Opt-in events: the agent subscribes to noisy events (`block_changed`, `weather`, `time`, …)
//! with per-subscription options such as a radius. Subscriptions live on the bot's entity;
//! emitters ask [`Subscriptions::get`] before writing an opt-in event.

use std::collections::BTreeMap;

use bevy_ecs::prelude::*;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::command::{AgentCommand, CommandCtx, CommandError};
use crate::event::EventRegistry;

/// How an opt-in event is subscribed to.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct OptIn {
    /// Whether `subscribe` takes a `radius` (blocks) for this event.
    pub has_radius: bool,
    /// Radius used when none is given.
    pub default_radius: Option<f64>,
    /// Largest radius accepted.
    pub max_radius: Option<f64>,
}

impl OptIn {
    pub const PLAIN: OptIn = OptIn { has_radius: false, default_radius: None, max_radius: None };
    pub const fn radius(default: f64, max: f64) -> OptIn {
        OptIn { has_radius: true, default_radius: Some(default), max_radius: Some(max) }
    }
}

/// Options of one active subscription.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, JsonSchema)]
pub struct SubscriptionOptions {
    /// Only events within this many blocks of the bot.
    pub radius: Option<f64>,
}

/// The bot's active subscriptions, by event name.
#[derive(Component, Debug, Clone, Default, PartialEq)]
pub struct Subscriptions {
    pub active: BTreeMap<String, SubscriptionOptions>,
}

impl Subscriptions {
    /// The options if `event` is subscribed.
    pub fn get(&self, event: &str) -> Option<&SubscriptionOptions> {
        self.active.get(event)
    }
    /// Whether an event at `distance` blocks passes the subscription of `event`.
    pub fn wants(&self, event: &str, distance: f64) -> bool {
        self.get(event).is_some_and(|o| o.radius.is_none_or(|r| distance <= r))
    }
}

fn lookup_opt_in(world: &World, event: &str) -> Result<OptIn, CommandError> {
    let registry = world.resource::<EventRegistry>();
    match registry.events.get(event) {
        Some(e) => e.opt_in.ok_or_else(|| {
            CommandError::new("UNKNOWN_EVENT", format!("{event} is always emitted; nothing to subscribe to"))
        }),
        None => {
            let known: Vec<&str> = registry.events.values().filter(|e| e.opt_in.is_some()).map(|e| e.name).collect();
            Err(CommandError::new(
                "UNKNOWN_EVENT",
                format!("Unknown event type: {event}. Available: {}", known.join(", ")),
            ))
        }
    }
}

fn subscriptions_mut<'a>(ctx: &'a mut CommandCtx<'_>) -> Result<Mut<'a, Subscriptions>, CommandError> {
    let bot = ctx.bot;
    if ctx.world.get_entity(bot).is_err() {
        return Err(CommandError::not_spawned());
    }
    if ctx.world.get::<Subscriptions>(bot).is_none() {
        ctx.world.entity_mut(bot).insert(Subscriptions::default());
    }
    ctx.world.get_mut::<Subscriptions>(bot).ok_or_else(CommandError::not_spawned)
}

/// `{"action":"subscribe","event":"block_changed","radius":16}`
#[derive(Deserialize, JsonSchema)]
pub struct Subscribe {
    /// The opt-in event to receive.
    pub event: String,
    /// Radius in blocks, for events that take one.
    pub radius: Option<f64>,
}

/// Response of `subscribe`.
#[derive(Serialize, JsonSchema)]
pub struct Subscribed {
    pub subscribed: String,
    pub radius: Option<f64>,
}

impl AgentCommand for Subscribe {
    const NAME: &'static str = "subscribe";
    const SUMMARY: &'static str =
        "Receive an opt-in event (block_changed, weather, time, …), optionally within a radius";
    const EXAMPLE: &'static str = r#"{"action":"subscribe","event":"block_changed","radius":16}"#;
    const NEEDS_SPAWN: bool = false;
    const QUERY: bool = true;
    const MISSING_PARAMS: &'static [(&'static str, &'static str)] = &[("event", "Need \"event\" type")];
    type Response = Subscribed;

    fn run(self, ctx: &mut CommandCtx<'_>) -> Result<Subscribed, CommandError> {
        let opt_in = lookup_opt_in(ctx.world, &self.event)?;
        let radius = match (opt_in.has_radius, self.radius) {
            (false, Some(_)) => return Err(CommandError::invalid_params(format!("{} takes no radius", self.event))),
            (false, None) => None,
            (true, None) => opt_in.default_radius,
            (true, Some(r)) => {
                let max = opt_in.max_radius.unwrap_or(f64::MAX);
                if !r.is_finite() || r <= 0.0 || r > max {
                    return Err(CommandError::out_of_range(format!("radius must be in (0, {max}]")));
                }
                Some(r)
            }
        };
        subscriptions_mut(ctx)?.active.insert(self.event.clone(), SubscriptionOptions { radius });
        Ok(Subscribed { subscribed: self.event, radius })
    }
}

/// `{"action":"unsubscribe","event":"block_changed"}`
#[derive(Deserialize, JsonSchema)]
pub struct Unsubscribe {
    pub event: String,
}

/// Response of `unsubscribe` (ClawCraft's shape: the event name).
#[derive(Serialize, JsonSchema)]
pub struct Unsubscribed {
    /// The event no longer received.
    pub unsubscribed: String,
    pub event: String,
}

impl AgentCommand for Unsubscribe {
    const NAME: &'static str = "unsubscribe";
    const SUMMARY: &'static str = "Stop receiving an opt-in event";
    const EXAMPLE: &'static str = r#"{"action":"unsubscribe","event":"block_changed"}"#;
    const NEEDS_SPAWN: bool = false;
    const QUERY: bool = true;
    const MISSING_PARAMS: &'static [(&'static str, &'static str)] = &[("event", "Need \"event\" type")];
    type Response = Unsubscribed;

    fn run(self, ctx: &mut CommandCtx<'_>) -> Result<Unsubscribed, CommandError> {
        lookup_opt_in(ctx.world, &self.event)?;
        // Checked before anything changes (a refusal adds no empty subscription list either).
        if !ctx.world.get::<Subscriptions>(ctx.bot).is_some_and(|s| s.active.contains_key(&self.event)) {
            return Err(CommandError::new("NOT_SUBSCRIBED", format!("Not subscribed to {}", self.event)));
        }
        subscriptions_mut(ctx)?.active.remove(&self.event);
        Ok(Unsubscribed { unsubscribed: self.event.clone(), event: self.event })
    }
}

/// `{"action":"subscriptions"}`
#[derive(Deserialize, JsonSchema)]
pub struct ListSubscriptions {}

/// One active subscription.
#[derive(Serialize, JsonSchema)]
pub struct ActiveSubscription {
    pub event: String,
    pub enabled: bool,
    pub radius: Option<f64>,
}

/// One subscribable event.
#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct AvailableEvent {
    pub event: String,
    pub description: String,
    pub has_radius: bool,
    pub default_radius: Option<f64>,
    pub subscribed: bool,
}

/// Response of `subscriptions`.
#[derive(Serialize, JsonSchema)]
pub struct SubscriptionList {
    pub active: Vec<ActiveSubscription>,
    pub available: Vec<AvailableEvent>,
}

impl AgentCommand for ListSubscriptions {
    const NAME: &'static str = "subscriptions";
    const SUMMARY: &'static str = "List active subscriptions and the opt-in events available";
    const EXAMPLE: &'static str = r#"{"action":"subscriptions"}"#;
    const NEEDS_SPAWN: bool = false;
    const QUERY: bool = true;
    type Response = SubscriptionList;

    fn run(self, ctx: &mut CommandCtx<'_>) -> Result<SubscriptionList, CommandError> {
        let subs = ctx.world.get::<Subscriptions>(ctx.bot).cloned().unwrap_or_default();
        let registry = ctx.world.resource::<EventRegistry>();
        let available = registry
            .events
            .values()
            .filter_map(|e| {
                let o = e.opt_in?;
                Some(AvailableEvent {
                    event: e.name.into(),
                    description: e.description.into(),
                    has_radius: o.has_radius,
                    default_radius: o.default_radius,
                    subscribed: subs.active.contains_key(e.name),
                })
            })
            .collect();
        let active = subs
            .active
            .iter()
            .map(|(event, o)| ActiveSubscription { event: event.clone(), enabled: true, radius: o.radius })
            .collect();
        Ok(SubscriptionList { active, available })
    }
}
