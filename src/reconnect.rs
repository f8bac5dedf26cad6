//! Reconnecting after a lost connection (`CLAWCRAFT_RECONNECT`, or a swarm bot's `reconnect`),
//! with ClawCraft's backoff of 1, 2, 4, 8, 16, 30 s, per bot.

use bevy_app::{App, Plugin, PostUpdate};
use bevy_ecs::prelude::*;
use clawcraft_core::{
    AgentEvent, AppEventExt, AwaitingReconnect, Lifecycle, LocalBot, Subscriptions, TickCount, TickSet,
};

use crate::swarm::BotSpec;
use clawcraft_network::ConnectionClosed;
use schemars::JsonSchema;
use serde::Serialize;

/// Seconds to wait before attempt n (1-based); the last value repeats.
pub const BACKOFF_SECS: [u64; 6] = [1, 2, 4, 8, 16, 30];

/// On a bot spawned by a reconnect, until its `reconnected` is announced.
#[derive(Component, Debug, Clone, Copy)]
pub struct Reconnected {
    pub attempt: u32,
}

/// `reconnecting`: the connection was lost and the bot will try again.
#[derive(Message, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Reconnecting {
    #[serde(skip)]
    pub bot: Entity,
    /// 1 for the first attempt after a loss.
    pub attempt: u32,
    /// Seconds until this attempt.
    pub delay: u64,
}
clawcraft_core::event_kind!(
    Reconnecting,
    "reconnecting",
    "The connection was lost; the bot reconnects after `delay` seconds (CLAWCRAFT_RECONNECT)"
);

/// `reconnected`: the bot spawned again after a reconnect.
#[derive(Message, Clone, Serialize, JsonSchema)]
pub struct ReconnectedEvent {
    #[serde(skip)]
    pub bot: Entity,
    /// How many attempts it took.
    pub attempt: u32,
}
clawcraft_core::event_kind!(ReconnectedEvent, "reconnected", "The bot spawned again after a reconnect");

/// Reconnects each bot whose [`BotSpec`] says so after its connection is lost (part of
/// [`ClawcraftPlugins`](crate::ClawcraftPlugins)): per bot, so one bot's loss and backoff never
/// touch another. A reconnect starts a fresh entity (a new session remembers nothing of the old
/// one) with the same spec and the agent's subscriptions.
pub struct ReconnectPlugin;

impl Plugin for ReconnectPlugin {
    fn build(&self, app: &mut App) {
        app.add_agent_event::<Reconnecting>().add_agent_event::<ReconnectedEvent>().add_systems(
            PostUpdate,
            (schedule_attempts, run_attempts, announce_reconnected)
                .chain()
                .after(TickSet::Send)
                .in_set(clawcraft_core::gate::QuietAware)
                // Nothing to do while every bot is connected.
                .in_set(clawcraft_core::gate::Settled),
        );
    }
}

/// The backoff before attempt `attempt` (1-based), in seconds.
pub fn backoff_secs(attempt: u32) -> u64 {
    BACKOFF_SECS[(attempt.max(1) as usize - 1).min(BACKOFF_SECS.len() - 1)]
}

/// A lost connection of a bot that reconnects schedules its next attempt with the backoff.
fn schedule_attempts(
    mut closed: MessageReader<ConnectionClosed>,
    bots: Query<(&BotSpec, Option<&Reconnected>), Without<AwaitingReconnect>>,
    ticks: Res<TickCount>,
    mut commands: Commands,
    mut events: MessageWriter<AgentEvent>,
) {
    for c in closed.read() {
        let Ok((spec, earlier)) = bots.get(c.bot) else { continue };
        if !spec.reconnect {
            continue;
        }
        // A session that never spawned continues the count of the attempt that made it.
        let attempt = earlier.map_or(1, |r| r.attempt + 1);
        let delay = backoff_secs(attempt);
        tracing::info!(bot = %spec.username, attempt, delay, "reconnecting");
        commands.entity(c.bot).insert(AwaitingReconnect { attempt, due_tick: ticks.0 + delay * 20 });
        events.write(AgentEvent::new(Reconnecting { bot: c.bot, attempt, delay }));
    }
}

/// When due: a new entity connects with the old one's spec and subscriptions; the old one goes.
/// A socket that cannot be opened schedules the next attempt.
fn run_attempts(world: &mut World) {
    let now = world.resource::<TickCount>().0;
    let mut waiting = world.query::<(Entity, &AwaitingReconnect, &BotSpec)>();
    let due: Vec<(Entity, u32, BotSpec)> = waiting
        .iter(world)
        .filter(|(_, r, _)| now >= r.due_tick)
        .map(|(e, r, spec)| (e, r.attempt, spec.clone()))
        .collect();
    for (old, attempt, spec) in due {
        let subscriptions = world.get::<Subscriptions>(old).cloned();
        let name = spec.username.clone();
        // The old session's name goes with it: one entity per bot name.
        world.entity_mut(old).remove::<LocalBot>();
        match crate::swarm::spawn_bot(world, spec) {
            Ok(bot) => {
                let mut bot = world.entity_mut(bot);
                bot.insert(Reconnected { attempt });
                if let Some(s) = subscriptions {
                    bot.insert(s);
                }
                world.despawn(old);
            }
            Err(e) => {
                tracing::warn!(bot = %name, error = %e, "reconnect attempt could not open a socket");
                let next = attempt + 1;
                let delay = backoff_secs(next);
                world.entity_mut(old).insert((
                    LocalBot { username: name },
                    AwaitingReconnect { attempt: next, due_tick: now + delay * 20 },
                ));
                world.write_message(AgentEvent::new(Reconnecting { bot: old, attempt: next, delay }));
            }
        }
    }
}

/// `reconnected` once the new session spawned; its attempt count starts over.
fn announce_reconnected(
    mut commands: Commands,
    bots: Query<(Entity, &Lifecycle, &Reconnected)>,
    mut events: MessageWriter<AgentEvent>,
) {
    for (bot, lifecycle, marker) in &bots {
        if *lifecycle == Lifecycle::Spawned {
            events.write(AgentEvent::new(ReconnectedEvent { bot, attempt: marker.attempt }));
            commands.entity(bot).remove::<Reconnected>();
        }
    }
}
