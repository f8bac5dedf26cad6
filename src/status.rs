//! `status`: one summary across every plugin. It lives in the root crate because it aggregates
//! them; a plugin that was trimmed from the group simply reports zeros.

use bevy_app::{App, Plugin};
use bevy_ecs::prelude::*;
use clawcraft_core::{
    AgentCommand, AppCommandExt, BotStats, CommandCtx, CommandError, Lifecycle, LocalBot, Position, Vec3, event::Uptime,
};
use clawcraft_player::InputState;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Registers `status`.
pub struct StatusPlugin;

impl Plugin for StatusPlugin {
    fn build(&self, app: &mut App) {
        app.add_agent_command::<Status>();
    }
}

/// `{"action":"status"}`: connection and bot health summary. Works before spawn.
#[derive(Deserialize, JsonSchema)]
pub struct Status {}

/// Entity counts around the bot.
#[derive(Serialize, JsonSchema, Default)]
pub struct EntityCounts {
    pub players: u64,
    pub mobs: u64,
    pub items: u64,
}

/// Self-diagnosis counters.
#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct StatusStats {
    pub inputs_sent: u64,
    pub corrections: u64,
    pub teleports: u64,
    pub packets_received: u64,
    /// Packets received that did not decode in the spoken version (dropped).
    pub decode_errors: u64,
    /// The time between ticks (the bot's own view of its 20 Hz steadiness).
    pub tick_intervals: TickIntervalStats,
}

/// The Bedrock version the bot speaks.
#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct BedrockVersion {
    /// Game version, e.g. `1.26.30`.
    pub game_version: String,
    /// Network protocol number, e.g. `1001`.
    pub protocol: i32,
    /// How it was chosen: `pong` (the server's), `forced` (`--game-version`), `default` (the
    /// server did not answer the ping); `null` before the connection chose.
    pub source: Option<String>,
    /// What the server's pong advertised, e.g. `1.26.30 (1001)`; `null` without a pong.
    pub server: Option<String>,
}

/// Counts of tick-to-tick intervals since start, by length.
#[derive(Serialize, JsonSchema, Default)]
#[serde(rename_all = "camelCase")]
pub struct TickIntervalStats {
    pub within55ms: u64,
    pub within75ms: u64,
    pub within100ms: u64,
    pub over100ms: u64,
    /// The longest interval so far, in ms.
    pub max_ms: f64,
}

/// Response of `status`.
#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct StatusResponse {
    /// Logged in (joining or spawned).
    pub connected: bool,
    pub spawned: bool,
    /// `connecting`, `joining`, `spawned` or `disconnected`.
    pub state: String,
    pub username: String,
    /// Feet position, once known.
    pub pos: Option<Vec3>,
    /// The block you stand on (as `pos` reports it); `null` while airborne, in water or unspawned.
    pub standing_on: Option<clawcraft_core::NamedCell>,
    /// Seconds since start.
    pub uptime: u64,
    /// Loaded chunk columns.
    pub chunks: u64,
    pub entities: EntityCounts,
    /// Health, hunger, alive, effect count (null before the server sent any).
    pub vitals: Option<clawcraft_vitals::VitalsSummary>,
    /// Where and why the bot last died.
    pub last_death: Option<clawcraft_vitals::LastDeath>,
    /// The tick number of the next PlayerAuthInput.
    pub input_tick: Option<u64>,
    pub stats: StatusStats,
    /// The Bedrock version spoken with this server.
    pub bedrock: Option<BedrockVersion>,
    /// Every Bedrock version clawcraft speaks, e.g. `1.26.30 (1001)`.
    pub supported_versions: Vec<String>,
}

fn bedrock_version(conn: &clawcraft_network::Connection) -> BedrockVersion {
    let info = conn.protocol().info();
    let choice = conn.version_choice();
    BedrockVersion {
        game_version: info.game_version.to_owned(),
        protocol: info.protocol,
        source: choice.map(|(c, _)| c.source.as_str().to_owned()),
        server: choice.and_then(|(_, ad)| ad.as_ref()).map(|a| {
            format!(
                "{} ({})",
                a.game_version.as_deref().unwrap_or("?"),
                a.protocol.map_or_else(|| "?".to_owned(), |p| p.to_string())
            )
        }),
    }
}

/// Every supported version as `1.26.30 (1001)`.
pub fn supported_versions() -> Vec<String> {
    clawcraft_protocol::codec::Protocol::versions()
        .iter()
        .map(|v| format!("{} ({})", v.game_version, v.protocol))
        .collect()
}

impl AgentCommand for Status {
    const NAME: &'static str = "status";
    const SUMMARY: &'static str = "Connection state, username, position, uptime, loaded chunks, entity counts, counters, \
         the Bedrock version spoken and the supported ones";
    const EXAMPLE: &'static str = r#"{"action":"status"}"#;
    const NEEDS_SPAWN: bool = false;
    const QUERY: bool = true;
    type Response = StatusResponse;

    fn run(self, ctx: &mut CommandCtx<'_>) -> Result<StatusResponse, CommandError> {
        let world = &*ctx.world;
        let bot = ctx.bot;
        let lifecycle = world.get::<Lifecycle>(bot).copied().unwrap_or_default();
        let stats = world.get::<BotStats>(bot).copied().unwrap_or_default();
        let (players, mobs, items) = clawcraft_entity::entity_counts(world, bot);
        let chunks = world.get::<clawcraft_world::chunk::World>(bot).map_or(0, |w| w.column_count() as u64);
        Ok(StatusResponse {
            connected: matches!(lifecycle, Lifecycle::Joining | Lifecycle::Spawned),
            spawned: lifecycle == Lifecycle::Spawned,
            state: format!("{lifecycle:?}").to_lowercase(),
            username: world.get::<LocalBot>(bot).map(|b| b.username.clone()).unwrap_or_default(),
            pos: world.get::<Position>(bot).map(|p| p.0.rounded()),
            standing_on: clawcraft_core::standing_on(world, bot),
            uptime: world.resource::<Uptime>().0.elapsed().as_secs(),
            chunks,
            entities: EntityCounts { players, mobs, items },
            vitals: clawcraft_vitals::vitals_summary(world, bot),
            last_death: clawcraft_vitals::last_death(world, bot),
            input_tick: world.get::<InputState>(bot).map(|i| i.next_tick),
            stats: StatusStats {
                inputs_sent: stats.inputs_sent,
                corrections: stats.corrections,
                teleports: stats.teleports,
                packets_received: stats.packets_received,
                decode_errors: stats.decode_errors,
                tick_intervals: world.get::<clawcraft_network::Connection>(bot).map_or_else(
                    TickIntervalStats::default,
                    |c| {
                        let t = c.tick_intervals();
                        TickIntervalStats {
                            within55ms: t.counts[0],
                            within75ms: t.counts[1],
                            within100ms: t.counts[2],
                            over100ms: t.counts[3],
                            max_ms: (t.max_ms * 10.0).round() / 10.0,
                        }
                    },
                ),
            },
            bedrock: world.get::<clawcraft_network::Connection>(bot).map(bedrock_version),
            supported_versions: supported_versions(),
        })
    }
}
