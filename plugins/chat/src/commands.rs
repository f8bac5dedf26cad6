//! `chat`, `whisper`, `say`, `emote` and `cmd`.

use clawcraft_core::{AgentCommand, CommandCtx, CommandError, DeferredReply, EntityIds, LocalBot, TickCount};
use clawcraft_network::Connection;
use clawcraft_protocol::packets::Text;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::ChatSettings;
use crate::delivery::Sent;
use crate::incoming::{CmdOutput, PendingServerCommand, PendingServerCommands};
use crate::packets::{CommandRequest, Emote};

/// Longest chat line or command we send (the server rejects commands over 512 characters).
const MAX_OUT_CHARS: usize = 512;

fn text_param(name: &str, value: &str) -> Result<String, CommandError> {
    let v: String = value.chars().filter(|c| !c.is_control()).collect();
    let v = v.trim().to_owned();
    if v.is_empty() {
        return Err(CommandError::invalid_params(format!("{name} must not be empty")));
    }
    if v.chars().count() > MAX_OUT_CHARS {
        return Err(CommandError::out_of_range(format!("{name} is over {MAX_OUT_CHARS} characters")));
    }
    Ok(v)
}

fn send<P: clawcraft_protocol::codec::Packet>(ctx: &mut CommandCtx<'_>, packet: &P) -> Result<(), CommandError> {
    let mut conn = ctx.world.get_mut::<Connection>(ctx.bot).ok_or_else(CommandError::not_spawned)?;
    conn.send(packet);
    Ok(())
}

/// Sends `/command` as the player; with a `reply`, remembers it so its CommandOutput becomes the
/// response (and a `cmd_output` event).
fn send_command(ctx: &mut CommandCtx<'_>, command: &str, reply: Option<DeferredReply>) -> Result<String, CommandError> {
    let line = if command.starts_with('/') { command.to_owned() } else { format!("/{command}") };
    let line = text_param("command", &line)?;
    let uuid = uuid::Uuid::new_v4().to_string();
    send(ctx, &CommandRequest::player(&line, &uuid))?;
    if let Some(reply) = reply {
        let deadline = ctx.world.get_resource::<TickCount>().map_or(0, |t| t.0)
            + ctx.world.get_resource::<ChatSettings>().map_or(100, |s| s.cmd_timeout_ticks);
        let entry = PendingServerCommand { uuid: uuid.clone(), reply, command: line, deadline_tick: deadline };
        match ctx.world.get_mut::<PendingServerCommands>(ctx.bot) {
            Some(mut p) => p.entries.push(entry),
            None => {
                ctx.world.entity_mut(ctx.bot).insert(PendingServerCommands { entries: vec![entry] });
            }
        }
    }
    Ok(uuid)
}

/// `{"action":"chat","message":"hi"}`: a chat line (Text type chat, category authored, from the
/// bot's name). Answered at once (`delivered:"unknown"`); the server's echo of the line becomes a
/// `delivery` event with the request id (see [`crate::delivery`]).
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Chat {
    /// The line to say.
    pub message: String,
}

impl Chat {
    /// `chat` of `message`.
    pub fn say(message: impl Into<String>) -> Self {
        Self { message: message.into() }
    }
}

/// Response of `chat`, `say`.
#[derive(Serialize, JsonSchema)]
pub struct SentResponse {
    pub sent: bool,
    /// What was sent.
    pub message: String,
    /// `chat` only: `unknown` — nobody knows yet whether the line arrived; a `delivery` event
    /// with this request's id follows when the server echoes it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub delivered: Option<&'static str>,
}

/// Ticks a `chat`/`whisper` waits for the server's word (the `cmd` timeout).
fn delivery_timeout(ctx: &CommandCtx<'_>) -> u64 {
    ctx.world.get_resource::<ChatSettings>().map_or(100, |s| s.cmd_timeout_ticks)
}

impl AgentCommand for Chat {
    const NAME: &'static str = "chat";
    const SUMMARY: &'static str = "Say a line in chat as the bot";
    const EXAMPLE: &'static str = r#"{"action":"chat","message":"Hello world"}"#;
    type Response = SentResponse;

    fn run(self, ctx: &mut CommandCtx<'_>) -> Result<SentResponse, CommandError> {
        let message = text_param("message", &self.message)?;
        let name = ctx.world.get::<LocalBot>(ctx.bot).map(|b| b.username.clone()).unwrap_or_default();
        send(
            ctx,
            &Text {
                needs_translation: false,
                category: "authored".into(),
                kind: "chat".into(),
                source_name: Some(name),
                message: message.clone(),
                ..Text::default()
            },
        )?;
        let timeout = delivery_timeout(ctx);
        crate::delivery::remember(ctx.world, ctx.bot, ctx.id.clone(), Sent::Chat, message.clone(), timeout);
        Ok(SentResponse { sent: true, message, delivered: Some("unknown") })
    }
}

/// `{"action":"whisper","to":"Steve","message":"hi"}`: a private message. Sent as the command
/// `/tell <to> <message>` (what the vanilla client does; a Text packet of type whisper from a
/// client is not relayed by vanilla servers). `/tell` needs no operator rights.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Whisper {
    /// Player name.
    pub to: String,
    pub message: String,
}

/// Response of `whisper`.
#[derive(Serialize, JsonSchema)]
pub struct WhisperResponse {
    pub sent: bool,
    /// The recipient as the roster spells it.
    pub to: String,
    pub message: String,
    /// `online`: the recipient is in the server's player list (so `/tell` reaches them);
    /// `unknown`: the server has sent no player list yet, so nobody can tell. Either way the
    /// server's answer to the `/tell` follows as a `delivery` event with this request's id.
    pub delivered: &'static str,
}

/// The roster's spelling of `name` (matched ignoring case), or the error naming who is close;
/// `Ok(None)` when there is no roster to check against.
fn roster_name(ctx: &CommandCtx<'_>, name: &str) -> Result<Option<String>, CommandError> {
    let Some(roster) = ctx.world.get::<clawcraft_entity::Roster>(ctx.bot).filter(|r| !r.players.is_empty()) else {
        return Ok(None);
    };
    let own = ctx.world.get::<LocalBot>(ctx.bot).map(|b| b.username.to_lowercase()).unwrap_or_default();
    let names: Vec<&str> =
        roster.players.values().map(|p| p.name.as_str()).filter(|n| n.to_lowercase() != own).collect();
    if let Some(n) = names.iter().find(|n| n.eq_ignore_ascii_case(name)) {
        return Ok(Some((*n).to_owned()));
    }
    let lower = name.to_lowercase();
    let mut close: Vec<(usize, &str)> = names
        .iter()
        .map(|n| (clawcraft_core::command::edit_distance(&lower, &n.to_lowercase()), *n))
        .filter(|(d, n)| *d <= 3 || n.to_lowercase().contains(&lower))
        .collect();
    close.sort();
    let hint = match (close.is_empty(), names.len()) {
        (false, _) => {
            format!(" (did you mean: {})", close.iter().take(3).map(|(_, n)| *n).collect::<Vec<_>>().join(", "))
        }
        (true, 0) => " (nobody else is online)".to_owned(),
        (true, n) if n <= 8 => format!(" (online: {})", names.join(", ")),
        (true, n) => format!(" ({n} players online; see players)"),
    };
    Err(CommandError::new("NOT_FOUND", format!("No player named {name} is online{hint}; nothing was sent")))
}

impl AgentCommand for Whisper {
    const NAME: &'static str = "whisper";
    const SUMMARY: &'static str = "Send a private message to a player (/tell)";
    const EXAMPLE: &'static str = r#"{"action":"whisper","to":"Steve","message":"meet me at spawn"}"#;
    const MISSING_PARAMS: &'static [(&'static str, &'static str)] = &[("to", "Need \"to\" player name")];
    type Response = WhisperResponse;

    fn run(self, ctx: &mut CommandCtx<'_>) -> Result<WhisperResponse, CommandError> {
        let to = text_param("to", &self.to)?;
        if to.contains('"') {
            return Err(CommandError::invalid_params("to must not contain quotes"));
        }
        let message = text_param("message", &self.message)?;
        // Checked against the roster first: `/tell` to nobody fails only in the server's reply.
        let (to, delivered) = match roster_name(ctx, &to)? {
            Some(name) => (name, "online"),
            None => (to, "unknown"),
        };
        // Names with spaces must be quoted in a command target.
        let target = if to.contains(' ') { format!("\"{to}\"") } else { to.clone() };
        let uuid = send_command(ctx, &format!("/tell {target} {message}"), None)?;
        let timeout = delivery_timeout(ctx);
        let sent = Sent::Whisper { to: to.clone(), uuid };
        crate::delivery::remember(ctx.world, ctx.bot, ctx.id.clone(), sent, message.clone(), timeout);
        Ok(WhisperResponse { sent: true, to, message, delivered })
    }
}

/// `{"action":"say","message":"hi"}`: `/say <message>` as the player (shown as `[Bot] hi`;
/// needs operator rights on vanilla servers).
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Say {
    pub message: String,
}

impl AgentCommand for Say {
    const NAME: &'static str = "say";
    const SUMMARY: &'static str = "Broadcast a message with /say (needs operator rights)";
    const EXAMPLE: &'static str = r#"{"action":"say","message":"Visible chat message"}"#;
    type Response = SentResponse;

    fn run(self, ctx: &mut CommandCtx<'_>) -> Result<SentResponse, CommandError> {
        let message = text_param("message", &self.message)?;
        send_command(ctx, &format!("/say {message}"), None)?;
        Ok(SentResponse { sent: true, message, delivered: None })
    }
}

/// `{"action":"emote","name":"wave"}` or `{"action":"emote","emoteId":"<uuid>"}`: perform an
/// emote. Names match titles case-insensitively (exact, then prefix, then substring); an id not
/// in the table is sent as is (`known:false`).
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct EmoteCmd {
    /// Emote title (fuzzy).
    pub name: Option<String>,
    /// Emote UUID.
    pub emote_id: Option<String>,
}

/// Response of `emote`.
#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct EmoteResponse {
    pub sent: bool,
    pub emote_id: String,
    /// Title, null for an unknown id.
    pub emote: Option<String>,
    pub known: bool,
}

impl AgentCommand for EmoteCmd {
    const NAME: &'static str = "emote";
    const SUMMARY: &'static str = "Perform an emote by name (fuzzy) or emoteId";
    const EXAMPLE: &'static str = r#"{"action":"emote","name":"wave"}"#;
    type Response = EmoteResponse;

    fn run(self, ctx: &mut CommandCtx<'_>) -> Result<EmoteResponse, CommandError> {
        let (emote_id, title) = match (self.emote_id, self.name) {
            (Some(id), _) => {
                let id = id.trim().to_ascii_lowercase();
                if id.is_empty() || id.len() > 64 || !id.chars().all(|c| c.is_ascii_hexdigit() || c == '-') {
                    return Err(CommandError::invalid_params("emoteId must be a UUID"));
                }
                let title = crate::emotes::title_for(&id);
                (id, title)
            }
            (None, Some(name)) => {
                let e = crate::emotes::find(&name)
                    .ok_or_else(|| CommandError::new("UNKNOWN_EMOTE", format!("Unknown emote: {name}")))?;
                (e.uuid.to_owned(), Some(e.title))
            }
            (None, None) => return Err(CommandError::invalid_params_text("Need emoteId or name")),
        };
        let runtime_id = ctx.world.get::<EntityIds>(ctx.bot).ok_or_else(CommandError::not_spawned)?.runtime_id;
        send(
            ctx,
            &Emote {
                entity_id: runtime_id,
                emote_id: emote_id.clone(),
                emote_length_ticks: 0,
                xuid: String::new(),
                platform_id: String::new(),
                // No flags: the server announces the emote in chat as for a real player.
                flags: "0".into(),
            },
        )?;
        Ok(EmoteResponse { sent: true, emote_id, emote: title.map(str::to_owned), known: title.is_some() })
    }
}

/// `{"action":"cmd","cmd":"time set day"}`: run a server command as the player (CommandRequest,
/// so the bot's own permissions apply). The response is the server's CommandOutput (also
/// emitted as a `cmd_output` event for event readers); after 5 s without one, a success with the
/// command echoed (`cmd`), `output: null` and a warning (the command went out; many servers
/// answer in chat or not at all). An error only when the command could not be sent.
/// With `"external":true` the command goes to the `SEND_CMD` admin tool instead (no shell,
/// killed after 10 s) and the response is its output; `NOT_CONFIGURED` when SEND_CMD is unset.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Cmd {
    /// The command, with or without the leading `/`.
    pub cmd: Option<String>,
    /// Alias of `cmd`.
    pub command: Option<String>,
    /// Run through SEND_CMD (server console) instead of as the player.
    #[serde(default)]
    pub external: bool,
}

impl AgentCommand for Cmd {
    const NAME: &'static str = "cmd";
    const SUMMARY: &'static str =
        "Run a server command as the player and answer with its output (or via SEND_CMD with external:true)";
    const EXAMPLE: &'static str = r#"{"action":"cmd","cmd":"/list"}"#;
    /// The output: `command`, `success`, `successCount`, `messages`, … (see `cmd_output`).
    type Response = CmdOutput;

    fn run(self, ctx: &mut CommandCtx<'_>) -> Result<CmdOutput, CommandError> {
        let raw = self.cmd.or(self.command).ok_or_else(|| CommandError::invalid_params_text("Need cmd field"))?;
        if raw.trim().trim_start_matches('/').trim().is_empty() {
            return Err(CommandError::invalid_params("cmd must name a command"));
        }
        if self.external {
            crate::admin::start(ctx, &raw)?;
        } else {
            let line =
                if raw.trim_start().starts_with('/') { raw.trim().to_owned() } else { format!("/{}", raw.trim()) };
            let reply = ctx.defer();
            send_command(ctx, &line, Some(reply))?;
        }
        // DeferredReply: the real response is written when the output arrives.
        Ok(CmdOutput::empty(ctx.bot))
    }
}
