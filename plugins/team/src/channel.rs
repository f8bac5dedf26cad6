//! The team channel: `team_say` and the `team` event, and [`Team`] for plugins.
//!
//! ```
//! use bevy_ecs::prelude::*;
//! use clawcraft_team::{Team, TeamMessage};
//!
//! /// Every bot answers a broadcast that says "ping" to its sender alone.
//! fn pong(mut heard: MessageReader<TeamMessage>, mut team: Team) {
//!     for m in heard.read() {
//!         if let (Some(from), true) = (&m.from, m.text == "ping" && m.to.is_none()) {
//!             let _ = team.tell(m.bot, from, "pong");
//!         }
//!     }
//! }
//! # bevy_ecs::system::assert_is_system(pong);
//! ```

use bevy_ecs::prelude::*;
use bevy_ecs::system::SystemParam;
use clawcraft_core::event::EventKind;
use clawcraft_core::{AgentCommand, AgentEvent, CommandCtx, CommandError, LocalBot, bot_list, unknown_bot};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Longest team message, in characters.
pub const MAX_TEXT_CHARS: usize = 500;

/// `team`: a message on the team channel, one per recipient.
#[derive(Message, Clone, Debug, PartialEq, Serialize, JsonSchema)]
pub struct TeamMessage {
    /// The recipient (its name is the event's `bot`).
    #[serde(skip)]
    pub bot: Entity,
    /// The sending bot's entity; `None` from the agent.
    #[serde(skip)]
    pub sender: Option<Entity>,
    /// The sending bot's name; null when the agent sent it.
    pub from: Option<String>,
    pub text: String,
    /// The recipient's name when the message was for it alone; null for a broadcast.
    pub to: Option<String>,
}

clawcraft_core::event_kind!(
    TeamMessage,
    "team",
    "A message on the team channel of this process (team_say), one per recipient bot; never server chat"
);

/// The text as sent: control characters dropped, trimmed, 1..=[`MAX_TEXT_CHARS`] characters.
pub fn clean_text(text: &str) -> Result<String, CommandError> {
    let text: String = text.chars().filter(|c| !c.is_control()).collect();
    let text = text.trim();
    if text.is_empty() {
        return Err(CommandError::invalid_params("text must not be empty"));
    }
    let chars = text.chars().count();
    if chars > MAX_TEXT_CHARS {
        return Err(CommandError::out_of_range(format!("text is {chars} characters (at most {MAX_TEXT_CHARS})")));
    }
    Ok(text.to_owned())
}

/// The messages of one send: `from` (a bot of `bots`, or `None` for the agent) to `to` (a bot's
/// name, any case) or to every other bot. `bots` are the process's bots in name order.
pub fn address(
    bots: &[(Entity, String)],
    from: Option<Entity>,
    to: Option<&str>,
    text: &str,
) -> Result<Vec<TeamMessage>, CommandError> {
    let text = clean_text(text)?;
    let from_name = match from {
        Some(sender) => Some(bots.iter().find(|(e, _)| *e == sender).map(|(_, n)| n.clone()).ok_or_else(|| {
            CommandError::new("UNKNOWN_BOT", format!("Unknown bot: entity {sender} is not a bot of this process"))
        })?),
        None => None,
    };
    let message = |bot: Entity, to: Option<String>| TeamMessage {
        bot,
        sender: from,
        from: from_name.clone(),
        text: text.clone(),
        to,
    };
    match to.map(str::trim) {
        Some(name) => {
            let (bot, name) =
                bots.iter().find(|(_, n)| n.eq_ignore_ascii_case(name)).ok_or_else(|| unknown_bot(name, bots))?;
            if Some(*bot) == from {
                return Err(CommandError::invalid_params(format!("to names the sender ({name}) itself")));
            }
            Ok(vec![message(*bot, Some(name.clone()))])
        }
        None => Ok(bots.iter().filter(|(e, _)| Some(*e) != from).map(|(e, _)| message(*e, None)).collect()),
    }
}

/// Sends on the team channel from a system: the same checks and the same `team` events as
/// `team_say`, written at once; recipients read them as [`TeamMessage`]s once the events are
/// published (at the end of the tick, so from the next tick on for a system in `Update`). It
/// holds the [`AgentEvent`] writer, so a system that takes it writes its own events through
/// [`Team::write_event`] rather than a second `EventSink`.
#[derive(SystemParam)]
pub struct Team<'w, 's> {
    bots: Query<'w, 's, (Entity, &'static LocalBot)>,
    events: MessageWriter<'w, AgentEvent>,
}

impl Team<'_, '_> {
    /// `from` tells every other bot; the recipients' names.
    pub fn say(&mut self, from: Entity, text: &str) -> Result<Vec<String>, CommandError> {
        self.send(Some(from), None, text)
    }

    /// `from` tells the bot named `to` alone.
    pub fn tell(&mut self, from: Entity, to: &str, text: &str) -> Result<Vec<String>, CommandError> {
        self.send(Some(from), Some(to), text)
    }

    /// The general form: `from` a bot or (`None`) the agent, to one bot or (`None`) every other.
    pub fn send(&mut self, from: Option<Entity>, to: Option<&str>, text: &str) -> Result<Vec<String>, CommandError> {
        let mut bots: Vec<(Entity, String)> = self.bots.iter().map(|(e, b)| (e, b.username.clone())).collect();
        bots.sort_by(|a, b| a.1.cmp(&b.1));
        let messages = address(&bots, from, to, text)?;
        let names = recipient_names(&bots, &messages);
        self.events.write_batch(messages.into_iter().map(AgentEvent::new));
        Ok(names)
    }

    /// Writes one of the system's own events through the writer it holds.
    pub fn write_event<E: EventKind>(&mut self, event: E) {
        self.events.write(AgentEvent::new(event));
    }
}

/// The names of the recipients of `messages`, in order.
fn recipient_names(bots: &[(Entity, String)], messages: &[TeamMessage]) -> Vec<String> {
    messages.iter().filter_map(|m| bots.iter().find(|(e, _)| *e == m.bot).map(|(_, n)| n.clone())).collect()
}

/// `{"action":"team_say","text":"log at 12 -60 4 is mine"}`: a message to the other bots of this
/// process (or `to` one of them), as `team` events; nothing goes to the server.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TeamSay {
    /// The message (1–500 characters; control characters are dropped).
    pub text: String,
    /// A bot of this process to tell alone (any case); default: every bot but the sender.
    pub to: Option<String>,
}

impl TeamSay {
    /// A broadcast of `text`.
    pub fn all(text: impl Into<String>) -> Self {
        Self { text: text.into(), to: None }
    }

    /// `text` for the bot named `to` alone.
    pub fn to(to: impl Into<String>, text: impl Into<String>) -> Self {
        Self { text: text.into(), to: Some(to.into()) }
    }
}

/// Response of `team_say`.
#[derive(Serialize, JsonSchema, Debug, Clone, PartialEq)]
pub struct TeamSayResponse {
    pub sent: bool,
    /// The sending bot; null when the agent sent it (a request without `bot` while several bots run).
    pub from: Option<String>,
    /// The one recipient asked for; null for a broadcast.
    pub to: Option<String>,
    /// Every bot that got it (a `team` event each), in name order.
    pub recipients: Vec<String>,
}

impl AgentCommand for TeamSay {
    const NAME: &'static str = "team_say";
    const SUMMARY: &'static str = "Tell the other bots of this process (or `to` one of them) on the team channel: a `team` event per recipient, no server chat";
    const EXAMPLE: &'static str = r#"{"action":"team_say","bot":"Ann","text":"oak log at 12 -60 4 is mine"}"#;
    const NEEDS_SPAWN: bool = false;
    const PER_BOT: bool = false;
    const MISSING_PARAMS: &'static [(&'static str, &'static str)] = &[("text", "Need text")];
    const SIZE_HINT: Option<&'static str> = Some("tell one bot with `to`");
    type Response = TeamSayResponse;

    fn run(self, ctx: &mut CommandCtx<'_>) -> Result<TeamSayResponse, CommandError> {
        let bots = bot_list(ctx.world);
        // Without `bot` while several bots run, the request is the agent's (no sender).
        let from = bots.iter().any(|(e, _)| *e == ctx.bot).then_some(ctx.bot);
        let from_name = bots.iter().find(|(e, _)| Some(*e) == from).map(|(_, n)| n.clone());
        let messages = address(&bots, from, self.to.as_deref(), &self.text)?;
        let to = messages.first().and_then(|m| m.to.clone());
        let recipients = recipient_names(&bots, &messages);
        ctx.world.write_message_batch(messages.into_iter().map(AgentEvent::new));
        Ok(TeamSayResponse { sent: true, from: from_name, to, recipients })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bots() -> Vec<(Entity, String)> {
        ["Ann", "Ben", "ClawBot"]
            .iter()
            .enumerate()
            .map(|(i, n)| (Entity::from_raw_u32(i as u32 + 1).expect("entity"), (*n).to_owned()))
            .collect()
    }

    #[test]
    fn a_broadcast_reaches_every_other_bot_and_a_direct_message_one() {
        let bots = bots();
        let ann = bots[0].0;
        let all = address(&bots, Some(ann), None, " hi\u{7} team ").expect("sent");
        let to: Vec<Entity> = all.iter().map(|m| m.bot).collect();
        assert_eq!(to, [bots[1].0, bots[2].0], "everyone but the sender");
        assert!(all.iter().all(|m| m.from.as_deref() == Some("Ann") && m.text == "hi team" && m.to.is_none()));
        let one = address(&bots, None, Some("clawbot"), "go").expect("sent");
        assert_eq!(one.len(), 1);
        assert_eq!((one[0].bot, one[0].from.clone(), one[0].to.as_deref()), (bots[2].0, None, Some("ClawBot")));
        let agent = address(&bots, None, None, "all").expect("sent");
        assert_eq!(agent.len(), 3, "from the agent: every bot");
    }

    #[test]
    fn bad_sends_have_stable_codes() {
        let bots = bots();
        let ann = bots[0].0;
        let code = |r: Result<Vec<TeamMessage>, CommandError>| r.expect_err("refused").code;
        assert_eq!(code(address(&bots, Some(ann), None, " \n ")), "INVALID_PARAMS");
        assert_eq!(code(address(&bots, Some(ann), None, &"x".repeat(MAX_TEXT_CHARS + 1))), "OUT_OF_RANGE");
        assert!(address(&bots, Some(ann), None, &"é".repeat(MAX_TEXT_CHARS)).is_ok(), "characters, not bytes");
        let e = address(&bots, Some(ann), Some("Bem"), "x").expect_err("unknown");
        assert_eq!((e.code, e.message.as_str()), ("UNKNOWN_BOT", "Unknown bot: Bem (did you mean: Ben)"));
        assert_eq!(code(address(&bots, Some(ann), Some("ann"), "x")), "INVALID_PARAMS", "not to itself");
        let stranger = Entity::from_raw_u32(99).expect("entity");
        assert_eq!(code(address(&bots, Some(stranger), None, "x")), "UNKNOWN_BOT");
    }
}
