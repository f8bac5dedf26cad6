//! Packet handlers: `text` → `msg`, `emote` → `emote`, `command_output` → `cmd_output`, and the
//! minimal runtime id → name table used to name emoting players.

use std::collections::HashMap;

use bevy_ecs::prelude::*;
use clawcraft_core::{AgentEvent, CommandResponse, DeferredReply, EntityIds, LocalBot, TickCount};
use clawcraft_network::ClientboundPacket;
use clawcraft_protocol::packets::Text;
use schemars::JsonSchema;
use serde::Serialize;
use serde_json::Value;

use crate::ChatSettings;
use crate::delivery::PendingDeliveries;
use crate::packets::{AddPlayer, CommandOutput, Emote};
use crate::text::{Filter, parse, render};

/// `msg`: a chat line that passed the filter.
#[derive(Message, Serialize, JsonSchema, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct ChatReceived {
    #[serde(skip)]
    pub bot: Entity,
    /// Sender name; empty for server messages.
    pub from: String,
    /// The message (sanitised, at most 500 characters, prefix removed when it was present).
    #[serde(rename = "msg")]
    pub text: String,
    /// Addressed to the bot: a whisper, prefixed with CHAT_PREFIX, or naming the bot.
    pub direct: bool,
    /// A private message.
    pub whisper: bool,
    /// From the server (system, announcement, translated server messages).
    pub system: bool,
    /// The Text packet type: raw, chat, translation, popup, jukebox_popup, tip, system, whisper,
    /// announcement, json_whisper, json, json_announcement.
    pub text_type: String,
    /// The raw translation key, for translated messages.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub key: Option<String>,
    /// The translation parameters.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub params: Vec<String>,
    /// The id of the `cmd` this line answered (its feedback arrived as chat); absent for news.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub id: Option<Value>,
}
clawcraft_core::event_kind!(
    ChatReceived,
    "msg",
    "Incoming chat (every Text type), filtered: own messages dropped, CHAT_WHITELIST, CHAT_PREFIX, mentions"
);

/// `emote`: another player performed an emote.
#[derive(Message, Serialize, JsonSchema, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct EmoteEvent {
    #[serde(skip)]
    pub bot: Entity,
    /// Player name, empty when the runtime id is not a player we saw added.
    pub from: String,
    /// Emote title, or null when the UUID is not in the table.
    pub emote: Option<String>,
    /// Emote UUID.
    pub emote_id: String,
    /// Whether the UUID is in the table.
    pub known: bool,
    /// Runtime id of the emoting player.
    pub runtime_id: u64,
}
clawcraft_core::event_kind!(EmoteEvent, "emote", "Another player performed an emote");

/// One line of command output.
#[derive(Serialize, JsonSchema, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct CmdOutputLine {
    /// Translation key.
    pub message_id: String,
    pub success: bool,
    pub parameters: Vec<String>,
}

/// `cmd_output`: the result of a `cmd`.
#[derive(Message, Serialize, JsonSchema, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct CmdOutput {
    #[serde(skip)]
    pub bot: Entity,
    /// The `cmd` request's id.
    pub id: Value,
    /// The command as sent.
    pub command: String,
    /// In game: success count > 0; external: exit status 0.
    pub success: bool,
    /// In game: how many targets it succeeded on.
    pub success_count: u32,
    /// Rendered output lines (external: stdout then stderr lines).
    pub messages: Vec<String>,
    /// Raw output lines (in game only).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub output: Vec<CmdOutputLine>,
    /// Ran through SEND_CMD.
    pub external: bool,
    /// External: the exit code (null when killed).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub exit_code: Option<i32>,
    /// External: killed after the time limit.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub timed_out: bool,
}
impl CmdOutput {
    /// No output yet, for `bot`: fill in the rest.
    pub fn empty(bot: Entity) -> Self {
        Self {
            bot,
            id: Value::Null,
            command: String::new(),
            success: false,
            success_count: 0,
            messages: Vec::new(),
            output: Vec::new(),
            external: false,
            exit_code: None,
            timed_out: false,
        }
    }
}

clawcraft_core::event_kind!(
    CmdOutput,
    "cmd_output",
    "Output of a `cmd` (the server's CommandOutput, or the SEND_CMD tool's output)"
);

/// Players' names by runtime id, from AddPlayer. A pub hook: other plugins may fill it too.
#[derive(Component, Debug, Clone, Default, PartialEq)]
pub struct KnownPlayers {
    pub names: HashMap<u64, String>,
}

/// `cmd` requests waiting for their CommandOutput.
#[derive(Component, Debug, Clone, Default, PartialEq)]
pub struct PendingServerCommands {
    pub entries: Vec<PendingServerCommand>,
}

/// Run condition of [`expire_server_commands`]: some `cmd` still waits for the server's answer.
pub fn server_commands_pending(bots: Query<&PendingServerCommands>) -> bool {
    bots.iter().any(|p| !p.entries.is_empty())
}

/// One sent CommandRequest.
#[derive(Debug, Clone, PartialEq)]
pub struct PendingServerCommand {
    /// The origin UUID the output will echo.
    pub uuid: String,
    /// Where the response goes (and the request id).
    pub reply: DeferredReply,
    pub command: String,
    pub deadline_tick: u64,
}

/// Records player names from AddPlayer.
pub fn track_players(
    mut packets: MessageReader<ClientboundPacket>,
    mut bots: Query<Option<&mut KnownPlayers>, With<LocalBot>>,
    mut commands: Commands,
) {
    // Bots without the component yet collect here, so two AddPlayers in one tick both land
    // (a second deferred insert would replace the first).
    let mut created: Vec<(Entity, KnownPlayers)> = Vec::new();
    for packet in packets.read() {
        let Some(add) = packet.view::<AddPlayer>() else { continue };
        let Ok(known) = bots.get_mut(packet.bot) else { continue };
        match known {
            Some(mut k) => {
                k.names.insert(add.runtime_id, add.username.clone());
            }
            None => {
                let k = match created.iter_mut().find(|(e, _)| *e == packet.bot) {
                    Some((_, k)) => k,
                    None => {
                        created.push((packet.bot, KnownPlayers::default()));
                        &mut created.last_mut().expect("just pushed").1
                    }
                };
                k.names.insert(add.runtime_id, add.username.clone());
            }
        }
    }
    for (bot, known) in created {
        commands.entity(bot).insert(known);
    }
}

/// `text` → `msg`, after the line is matched to what we sent: our own chat echoed or the
/// "You whisper to …" line confirm a `chat`/`whisper` (a `delivery` event), and a command's
/// feedback in chat answers the oldest pending `cmd` (see [`command_answer`]). The `msg` of a line
/// that answered a `cmd` carries that request's `id`, so an agent can tell it from news.
pub fn handle_text(
    mut packets: MessageReader<ClientboundPacket>,
    mut bots: Query<(&LocalBot, Option<&mut PendingServerCommands>, Option<&mut PendingDeliveries>)>,
    settings: Res<ChatSettings>,
    mut events: MessageWriter<AgentEvent>,
    mut responses: MessageWriter<CommandResponse>,
) {
    for packet in packets.read() {
        let Some(t) = packet.view::<Text>() else { continue };
        let Ok((bot, commands, deliveries)) = bots.get_mut(packet.bot) else { continue };
        let parsed = parse(&t);
        let own_name = settings.own_name(Some(bot));
        if let Some(mut d) = deliveries
            && let Some(confirmed) = d.confirm_by_text(&parsed, own_name)
        {
            events.write(AgentEvent::new(confirmed));
        }
        let mut answered = None;
        if let Some(mut pending) = commands
            && let Some((result, reply)) = command_answer(packet.bot, &mut pending, &parsed, &t)
        {
            answered = Some(reply.id.clone());
            events.write(AgentEvent::new(result.clone()));
            responses.write(reply.respond(Ok(result)));
        }
        let filter = Filter { whitelist: &settings.whitelist, prefix: settings.prefix.as_deref(), own_name };
        let Some(ok) = filter.apply(&parsed) else {
            tracing::debug!(kind = %t.kind, "chat message filtered out");
            continue;
        };
        events.write(AgentEvent::new(ChatReceived {
            bot: packet.bot,
            from: ok.from,
            text: ok.msg,
            direct: ok.direct,
            whisper: ok.whisper,
            system: ok.system,
            text_type: parsed.kind,
            key: parsed.key,
            params: parsed.params.iter().map(|p| crate::text::sanitize(p, crate::text::MAX_MESSAGE_CHARS)).collect(),
            id: answered,
        }));
    }
}

/// `emote` → `emote` (our own emote echoed back is dropped).
pub fn handle_emote(
    mut packets: MessageReader<ClientboundPacket>,
    bots: Query<(Option<&EntityIds>, Option<&KnownPlayers>)>,
    mut events: MessageWriter<AgentEvent>,
) {
    for packet in packets.read() {
        let Some(e) = packet.view::<Emote>() else { continue };
        let Ok((ids, known)) = bots.get(packet.bot) else { continue };
        if ids.is_some_and(|i| i.runtime_id == e.entity_id) {
            continue;
        }
        let title = crate::emotes::title_for(&e.emote_id);
        let from = known.and_then(|k| k.names.get(&e.entity_id)).cloned().unwrap_or_default();
        events.write(AgentEvent::new(EmoteEvent {
            bot: packet.bot,
            from: crate::text::sanitize(&from, 64),
            emote: title.map(str::to_owned),
            emote_id: crate::text::sanitize(&e.emote_id, 64),
            known: title.is_some(),
            runtime_id: e.entity_id,
        }));
    }
}

/// `command_output` → `cmd_output` for the `cmd` whose origin UUID it echoes. Output for
/// requests we did not make (or that already timed out) is ignored.
pub fn handle_command_output(
    mut packets: MessageReader<ClientboundPacket>,
    mut bots: Query<(Option<&mut PendingServerCommands>, Option<&mut PendingDeliveries>)>,
    mut events: MessageWriter<AgentEvent>,
    mut responses: MessageWriter<CommandResponse>,
) {
    for packet in packets.read() {
        let Some(out) = packet.view::<CommandOutput>() else { continue };
        let Ok((commands, deliveries)) = bots.get_mut(packet.bot) else { continue };
        let uuid = out.origin.uuid.to_ascii_lowercase();
        if let Some(mut d) = deliveries
            && let Some(confirmed) = d.confirm_by_command_output(&uuid, out.success_count, &out.output)
        {
            events.write(AgentEvent::new(confirmed));
            continue;
        }
        let Some(mut pending) = commands else { continue };
        let Some(i) = pending.entries.iter().position(|p| p.uuid == uuid) else {
            tracing::debug!(%uuid, "command output for no pending cmd");
            continue;
        };
        let req = pending.entries.remove(i);
        let result = CmdOutput {
            bot: packet.bot,
            id: req.reply.id.clone(),
            command: req.command,
            success: out.success_count > 0,
            success_count: out.success_count,
            messages: out.output.iter().map(|m| render(&m.message_id, &m.parameters)).collect(),
            output: out
                .output
                .iter()
                .map(|m| CmdOutputLine {
                    message_id: m.message_id.clone(),
                    success: m.success,
                    parameters: m.parameters.clone(),
                })
                .collect(),
            ..CmdOutput::empty(packet.bot)
        };
        events.write(AgentEvent::new(result.clone()));
        responses.write(req.reply.respond(Ok(result)));
    }
}

/// Servers that answer a player's command with a chat line (a `commands.*` translation, as
/// vanilla does with command feedback) instead of a CommandOutput: the oldest pending `cmd`
/// takes that line as its answer, so the agent gets its reply under its request id rather than a
/// `TIMEOUT` plus a stray `msg`. Red (`§c`) feedback is a failure. Whisper lines
/// (`commands.message.display.*`) are chat, not feedback, and never answer a `cmd`.
pub fn command_answer(
    bot: Entity,
    pending: &mut PendingServerCommands,
    parsed: &crate::text::ParsedText,
    t: &Text,
) -> Option<(CmdOutput, DeferredReply)> {
    if pending.entries.is_empty() || !parsed.system {
        return None;
    }
    let key = parsed.key.as_deref().map(crate::text::normalize_key)?;
    if !key.starts_with("commands.") || key.starts_with("commands.message.display.") {
        return None;
    }
    let req = pending.entries.remove(0);
    let success = !t.message.trim_start().starts_with("§c");
    let result = CmdOutput {
        bot,
        id: req.reply.id.clone(),
        command: req.command,
        success,
        success_count: u32::from(success),
        messages: vec![render(&key, &parsed.params)],
        output: vec![CmdOutputLine { message_id: key, success, parameters: parsed.params.clone() }],
        ..CmdOutput::empty(bot)
    };
    Some((result, req.reply))
}

/// A `cmd` whose command went out but whose output did not come within the wait: the command
/// was sent (many servers answer a player's command in chat, or not at all), so the answer is a
/// success with `output: null` and a warning saying so.
#[derive(Serialize, JsonSchema, Debug, Clone, PartialEq)]
pub struct CmdUnanswered {
    /// The command as sent.
    pub cmd: String,
    /// Same as `cmd` (the field name of a `cmd` answered with output).
    pub command: String,
    /// Always true: the CommandRequest went out.
    pub sent: bool,
    /// Always null: no CommandOutput (nor command feedback in chat) arrived within the wait.
    pub output: Option<Vec<CmdOutputLine>>,
    /// Why `output` is null.
    pub warnings: Vec<String>,
}

/// Requests without output after their deadline are answered with [`CmdUnanswered`].
pub fn expire_server_commands(
    ticks: Res<TickCount>,
    mut bots: Query<&mut PendingServerCommands>,
    mut responses: MessageWriter<CommandResponse>,
) {
    for mut pending in &mut bots {
        if pending.entries.iter().all(|p| p.deadline_tick > ticks.0) {
            continue;
        }
        pending.entries.retain(|p| {
            let live = p.deadline_tick > ticks.0;
            if !live {
                let warning = format!(
                    "{} was sent, but no output came from the server within the wait (servers may answer in chat — see msg events — or not at all)",
                    p.command
                );
                let answer = CmdUnanswered {
                    cmd: p.command.clone(),
                    command: p.command.clone(),
                    sent: true,
                    output: None,
                    warnings: vec![warning],
                };
                responses.write(p.reply.respond(Ok(answer)));
            }
            live
        });
    }
}
