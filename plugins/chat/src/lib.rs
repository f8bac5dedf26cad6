//! `ChatPlugin`: the social side of the bot.
//!
//! Incoming: `text` packets of every type become `msg` events (filtered as ClawCraft does:
//! own messages dropped, `CHAT_WHITELIST`, `CHAT_PREFIX`, mentions, control characters, 500-char
//! cap); `emote` packets become `emote` events; `command_output` answers a `cmd`.
//!
//! Outgoing: `chat` (Text type chat), `whisper` (`/tell`), `say` (`/say`), `emote` (Emote packet)
//! and `cmd`. `chat` and `whisper` answer at once and are confirmed later by a `delivery` event
//! with the request id (see [`delivery`]). `cmd` sends a CommandRequest as the player; its
//! response waits for the server's CommandOutput (matched by origin UUID) or its feedback line in
//! chat (whose `msg` then carries the cmd's `id`), with `cmd_output` as the event; after 5 s
//! without either (e.g. `/say`, or a server answering in plain chat) it answers success with
//! `output: null` and a warning: the command went out. With
//! `"external":true` the command goes to the `SEND_CMD` admin tool instead (see [`admin`]).

pub mod admin;
pub mod commands;
pub mod delivery;
pub mod emotes;
pub mod incoming;
pub mod packets;
pub mod text;

use bevy_app::{App, Plugin};
use bevy_ecs::prelude::*;
use clawcraft_core::gate::any_bot;
use clawcraft_core::{AppCommandExt, AppEventExt, AppWorkExt, CorePlugin, LocalBot, TickSet};

pub use incoming::{ChatReceived, CmdOutput, EmoteEvent, KnownPlayers, PendingServerCommands};

/// Chat settings shared by every bot of the process.
#[derive(Resource, Debug, Clone, PartialEq)]
pub struct ChatSettings {
    /// Lower-case names allowed to reach the agent (`CHAT_WHITELIST`, comma list); empty = all.
    pub whitelist: Vec<String>,
    /// Prefix marking a message as addressed to the bot (`CHAT_PREFIX`).
    pub prefix: Option<String>,
    /// The name counted as the bot's own; empty means each bot's [`LocalBot::username`].
    pub username: String,
    /// The admin command tool (`SEND_CMD`), e.g. `docker exec mc send-command`; split on
    /// whitespace into program and arguments, never run through a shell.
    pub send_cmd: Option<String>,
    /// How long a `SEND_CMD` run may take before it is killed.
    pub send_cmd_timeout: std::time::Duration,
    /// Ticks to wait for a CommandOutput before a `cmd` answers without output.
    pub cmd_timeout_ticks: u64,
}

impl Default for ChatSettings {
    fn default() -> Self {
        Self {
            whitelist: Vec::new(),
            prefix: None,
            username: String::new(),
            send_cmd: None,
            send_cmd_timeout: std::time::Duration::from_secs(10),
            cmd_timeout_ticks: 100,
        }
    }
}

impl ChatSettings {
    /// Reads `CHAT_WHITELIST`, `CHAT_PREFIX` and `SEND_CMD` (empty values count as unset).
    pub fn from_env() -> Self {
        let var = |k: &str| std::env::var(k).ok().map(|v| v.trim().to_owned()).filter(|v| !v.is_empty());
        Self {
            whitelist: var("CHAT_WHITELIST").map(|w| parse_whitelist(&w)).unwrap_or_default(),
            prefix: var("CHAT_PREFIX"),
            send_cmd: var("SEND_CMD"),
            ..Self::default()
        }
    }

    /// The bot's own name for filtering: the configured one, else the bot's login name.
    pub fn own_name<'a>(&'a self, bot: Option<&'a LocalBot>) -> &'a str {
        if self.username.is_empty() { bot.map_or("", |b| b.username.as_str()) } else { &self.username }
    }
}

/// `"Alice, bob ,"` → `["alice", "bob"]`.
pub fn parse_whitelist(list: &str) -> Vec<String> {
    list.split(',').map(|s| s.trim().to_lowercase()).filter(|s| !s.is_empty()).collect()
}

/// Chat, whispers, emotes and server commands.
pub struct ChatPlugin;

impl Plugin for ChatPlugin {
    fn build(&self, app: &mut App) {
        if !app.is_plugin_added::<CorePlugin>() {
            app.add_plugins(CorePlugin);
        }
        if !app.world().contains_resource::<ChatSettings>() {
            app.insert_resource(ChatSettings::from_env());
        }
        app.init_resource::<admin::ExternalRuns>()
            .add_systems(
                clawcraft_core::TickWork,
                (
                    // Names first: an AddPlayer and that player's emote may share a tick.
                    incoming::track_players,
                    (incoming::handle_text, incoming::handle_emote, incoming::handle_command_output),
                )
                    .chain()
                    .in_set(TickSet::HandlePackets)
                    .in_set(clawcraft_core::gate::Gate::Packets),
            )
            .add_systems(
                clawcraft_core::TickWork,
                (
                    incoming::expire_server_commands.run_if(incoming::server_commands_pending),
                    delivery::expire_deliveries.run_if(delivery::deliveries_pending),
                    admin::collect_external_runs.run_if(admin::external_results_waiting),
                )
                    .in_set(TickSet::Actions),
            )
            .add_pending_work("server command waiting", any_bot::<&PendingServerCommands>(|p| !p.entries.is_empty()))
            .add_pending_work(
                "chat delivery waiting",
                any_bot::<&delivery::PendingDeliveries>(|p| !p.entries.is_empty()),
            )
            .add_agent_command::<commands::Chat>()
            .add_agent_command::<commands::Whisper>()
            .add_agent_command::<commands::Say>()
            .add_agent_command::<commands::EmoteCmd>()
            .add_agent_command::<commands::Cmd>()
            .add_agent_event::<ChatReceived>()
            .add_agent_event::<EmoteEvent>()
            .add_agent_event::<CmdOutput>()
            .add_agent_event::<delivery::Delivery>();
    }
}
