//! Reconnecting after a lost connection (`CLAWCRAFT_RECONNECT`), with ClawCraft's backoff of
//! 1, 2, 4, 8, 16, 30 s. A reconnect starts a fresh bot entity (a new session remembers nothing
//! of the old one) but carries the agent's subscriptions over.

use std::net::SocketAddr;

use bevy_app::{App, Plugin, PostUpdate};
use bevy_ecs::prelude::*;
use clawcraft_core::{AgentEvent, AppEventExt, EventKind, Lifecycle, LocalBot, Subscriptions, TickCount, TickSet};
use clawcraft_network::ConnectionClosed;
use schemars::JsonSchema;
use serde::Serialize;

/// Seconds to wait before attempt n (1-based); the last value repeats.
pub const BACKOFF_SECS: [u64; 6] = [1, 2, 4, 8, 16, 30];

/// Where to reconnect to, and the attempt in progress.
#[derive(Resource, Debug, Clone)]
pub struct Reconnect {
    pub server: SocketAddr,
    pub host: String,
    pub username: String,
    /// `--game-version`, if forced; otherwise each attempt asks the server again (it may have
    /// been upgraded meanwhile).
    pub forced_version: Option<String>,
    /// Attempts since the last successful spawn.
    pub attempt: u32,
    /// Tick at which the next attempt starts.
    pub due_tick: Option<u64>,
}

impl Reconnect {
    pub fn new(server: SocketAddr, host: &str, username: &str, forced_version: Option<&str>) -> Self {
        Self {
            server,
            host: host.to_owned(),
            username: username.to_owned(),
            forced_version: forced_version.map(str::to_owned),
            attempt: 0,
            due_tick: None,
        }
    }
}

/// On a bot spawned by a reconnect, until its `reconnected` is announced.
#[derive(Component, Debug, Clone, Copy)]
pub struct Reconnected {
    pub attempt: u32,
}

/// `reconnecting`: the connection was lost and the bot will try again.
#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Reconnecting {
    /// 1 for the first attempt after a loss.
    pub attempt: u32,
    /// Seconds until this attempt.
    pub delay: u64,
}
impl EventKind for Reconnecting {
    const NAME: &'static str = "reconnecting";
    const DESCRIPTION: &'static str =
        "The connection was lost; the bot reconnects after `delay` seconds (CLAWCRAFT_RECONNECT)";
}

/// `reconnected`: the bot spawned again after a reconnect.
#[derive(Serialize, JsonSchema)]
pub struct ReconnectedEvent {
    /// How many attempts it took.
    pub attempt: u32,
}
impl EventKind for ReconnectedEvent {
    const NAME: &'static str = "reconnected";
    const DESCRIPTION: &'static str = "The bot spawned again after a reconnect";
}

/// Documents the reconnect events (part of [`ClawcraftPlugins`](crate::ClawcraftPlugins), so
/// `schema` lists them whether or not `CLAWCRAFT_RECONNECT` is on).
pub struct ReconnectEventsPlugin;

impl Plugin for ReconnectEventsPlugin {
    fn build(&self, app: &mut App) {
        app.add_agent_event::<Reconnecting>().add_agent_event::<ReconnectedEvent>();
    }
}

/// Adds reconnecting to an app whose bot was connected with the same parameters.
pub struct ReconnectPlugin(pub Reconnect);

impl Plugin for ReconnectPlugin {
    fn build(&self, app: &mut App) {
        app.insert_resource(self.0.clone()).add_systems(
            PostUpdate,
            (schedule_attempt, run_attempt, announce_reconnected)
                .chain()
                .after(TickSet::Send)
                .in_set(clawcraft_core::gate::QuietAware)
                // Nothing to do while every bot is connected.
                .in_set(clawcraft_core::gate::Settled),
        );
    }
}

/// A lost connection schedules the next attempt with the backoff.
fn schedule_attempt(
    mut closed: MessageReader<ConnectionClosed>,
    mut reconnect: ResMut<Reconnect>,
    ticks: Res<TickCount>,
    mut events: MessageWriter<AgentEvent>,
) {
    if closed.read().count() == 0 || reconnect.due_tick.is_some() {
        return;
    }
    reconnect.attempt += 1;
    let index = (reconnect.attempt as usize - 1).min(BACKOFF_SECS.len() - 1);
    let delay = BACKOFF_SECS[index];
    reconnect.due_tick = Some(ticks.0 + delay * 20);
    tracing::info!(attempt = reconnect.attempt, delay, "reconnecting");
    events.write(AgentEvent::of(&Reconnecting { attempt: reconnect.attempt, delay }));
}

/// When due: the old bot entity goes, a new one connects (keeping the agent's subscriptions).
fn run_attempt(world: &mut World) {
    let now = world.resource::<TickCount>().0;
    let r = world.resource::<Reconnect>().clone();
    if r.due_tick.is_none_or(|t| now < t) {
        return;
    }
    world.resource_mut::<Reconnect>().due_tick = None;
    let mut old = world.query_filtered::<Entity, With<LocalBot>>();
    let old: Vec<Entity> = old.iter(world).collect();
    let subscriptions = old.iter().find_map(|e| world.get::<Subscriptions>(*e).cloned());
    for e in old {
        world.despawn(e);
    }
    match crate::spawn_connected_bot(world, &r.username, &r.host, r.server, r.forced_version.as_deref()) {
        Ok(bot) => {
            let mut bot = world.entity_mut(bot);
            bot.insert(Reconnected { attempt: r.attempt });
            if let Some(s) = subscriptions {
                bot.insert(s);
            }
        }
        Err(e) => {
            tracing::warn!(error = %e, "reconnect attempt could not open a socket");
            world.write_message(ConnectionClosed { bot: Entity::PLACEHOLDER, reason: e.to_string(), error: true });
        }
    }
}

/// `reconnected` once the new session spawned; the attempt counter starts over.
fn announce_reconnected(
    mut commands: Commands,
    bots: Query<(Entity, &Lifecycle, &Reconnected)>,
    mut reconnect: ResMut<Reconnect>,
    mut events: MessageWriter<AgentEvent>,
) {
    for (bot, lifecycle, marker) in &bots {
        if *lifecycle == Lifecycle::Spawned {
            events.write(AgentEvent::of(&ReconnectedEvent { attempt: marker.attempt }));
            reconnect.attempt = 0;
            commands.entity(bot).remove::<Reconnected>();
        }
    }
}
