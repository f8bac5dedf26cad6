//! Delivery confirmations for `chat` and `whisper`: their responses say only what is known when
//! they are sent; what the server says later arrives as a `delivery` event carrying the request
//! id, so an agent never has to guess whether a line arrived.
//!
//! - `chat`: servers relay a player's chat line to every player, the sender included (which is
//!   why bedrock-protocol's README echo example skips lines whose `source_name` is its own name).
//!   That echo is the confirmation. A line without an echo is reported undelivered only once this
//!   session has seen the server echo a chat line: a server that never echoes (a proxy or plugin
//!   that reroutes chat) proves nothing by its silence.
//! - `whisper` (`/tell`): the server's answer to that CommandRequest (a CommandOutput echoing its
//!   origin UUID), or the "You whisper to …" line (`commands.message.display.outgoing`) sent back
//!   to the sender. A failed CommandOutput — no such player — is `delivered:false` with `NOT_FOUND`.

use bevy_ecs::prelude::*;
use clawcraft_core::{AgentEvent, TickCount};
use schemars::JsonSchema;
use serde::Serialize;
use serde_json::Value;

use crate::packets::CommandOutputMessage;
use crate::text::{ParsedText, strip_formatting};

/// CommandOutput keys saying the target of a command is not there.
const NO_TARGET_KEYS: &[&str] = &["commands.generic.noTargetMatch", "commands.generic.player.notFound"];

/// `delivery`: what the server said about an earlier `chat` or `whisper`.
#[derive(Message, Serialize, JsonSchema, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct Delivery {
    #[serde(skip)]
    pub bot: Entity,
    /// The `chat`/`whisper` request's id.
    pub id: Value,
    /// `chat` or `whisper`.
    pub action: String,
    /// The server confirmed it (true) or said it did not arrive (false).
    pub delivered: bool,
    /// The line as sent.
    pub message: String,
    /// The whisper's recipient.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub to: Option<String>,
    /// What told us: `echo` (the server sent the line back), `command_output` (the server's
    /// answer to `/tell`) or `timeout`.
    pub via: String,
    /// Why it was not delivered.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// Stable code when not delivered: `NOT_FOUND` (no such player), `REJECTED` (the server
    /// refused the command), `TIMEOUT` (a server that echoes chat did not echo this line).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub code: Option<String>,
}
clawcraft_core::event_kind!(
    Delivery,
    "delivery",
    "The server confirmed (or refused) an earlier chat or whisper; carries the request's id"
);

/// Which command a pending delivery belongs to.
#[derive(Debug, Clone, PartialEq)]
pub enum Sent {
    Chat,
    /// A `/tell` with its CommandRequest origin UUID.
    Whisper {
        to: String,
        uuid: String,
    },
}

/// One `chat` or `whisper` waiting for the server's word.
#[derive(Debug, Clone, PartialEq)]
pub struct PendingDelivery {
    /// The bot that sent it.
    pub bot: Entity,
    pub id: Value,
    pub sent: Sent,
    pub message: String,
    pub deadline_tick: u64,
}

/// The bot's `chat`/`whisper` requests not yet confirmed, and whether this server echoes chat.
#[derive(Component, Debug, Clone, Default, PartialEq)]
pub struct PendingDeliveries {
    pub entries: Vec<PendingDelivery>,
    /// The server has echoed one of our chat lines this session, so a missing echo means something.
    pub server_echoes_chat: bool,
}

/// Run condition of [`expire_deliveries`]: some chat line still waits for its echo or answer.
pub fn deliveries_pending(bots: Query<&PendingDeliveries>) -> bool {
    bots.iter().any(|p| !p.entries.is_empty())
}

impl PendingDeliveries {
    fn delivered(entry: PendingDelivery, via: &str) -> Delivery {
        let (action, to) = match entry.sent {
            Sent::Chat => ("chat", None),
            Sent::Whisper { to, .. } => ("whisper", Some(to)),
        };
        Delivery {
            bot: entry.bot,
            id: entry.id,
            action: action.into(),
            delivered: true,
            message: entry.message,
            to,
            via: via.into(),
            error: None,
            code: None,
        }
    }

    /// A Text packet that confirms one of our lines: our own chat line echoed (from our name,
    /// the oldest pending line with that text) or the "You whisper to X" line.
    pub fn confirm_by_text(&mut self, parsed: &ParsedText, own_name: &str) -> Option<Delivery> {
        if parsed.own_echo {
            let to = parsed.params.first().map(|p| strip_formatting(p).trim().to_lowercase())?;
            let i = self
                .entries
                .iter()
                .position(|e| matches!(&e.sent, Sent::Whisper { to: t, .. } if t.to_lowercase() == to))?;
            return Some(Self::delivered(self.entries.remove(i), "echo"));
        }
        let body = own_chat_body(parsed, own_name)?;
        let chats = || self.entries.iter().enumerate().filter(|(_, e)| e.sent == Sent::Chat);
        // Same text first, then a line the server prefixed (a rank tag, a channel); a different
        // text is some other line of ours (sent earlier, or by a plugin in our name).
        let i = chats()
            .find(|(_, e)| e.message == body)
            .or_else(|| chats().find(|(_, e)| body.ends_with(&format!(" {}", e.message))))
            .map(|(i, _)| i)?;
        self.server_echoes_chat = true;
        Some(Self::delivered(self.entries.remove(i), "echo"))
    }

    /// The server's CommandOutput for a `/tell` we sent (matched by origin UUID).
    pub fn confirm_by_command_output(
        &mut self,
        uuid: &str,
        success_count: u32,
        output: &[CommandOutputMessage],
    ) -> Option<Delivery> {
        let i = self.entries.iter().position(|e| matches!(&e.sent, Sent::Whisper { uuid: u, .. } if u == uuid))?;
        let mut d = Self::delivered(self.entries.remove(i), "command_output");
        if success_count == 0 {
            let no_target = output.iter().any(|m| NO_TARGET_KEYS.contains(&m.message_id.as_str()));
            let said: Vec<String> = output.iter().map(|m| crate::text::render(&m.message_id, &m.parameters)).collect();
            d.delivered = false;
            d.code = Some(if no_target { "NOT_FOUND" } else { "REJECTED" }.into());
            d.error = Some(if said.is_empty() { "the server refused the whisper".into() } else { said.join("; ") });
        }
        Some(d)
    }
}

/// The text of our own chat line echoed back: a chat Text from our name, its `chat.type.text`
/// translation, or a raw `<name> text` line.
fn own_chat_body(parsed: &ParsedText, own_name: &str) -> Option<String> {
    if own_name.is_empty() || parsed.whisper {
        return None;
    }
    let from = strip_formatting(&parsed.from);
    let msg = strip_formatting(&parsed.msg).trim().to_owned();
    if from.trim().eq_ignore_ascii_case(own_name) {
        return Some(msg);
    }
    let lower = msg.to_lowercase();
    let decorated = format!("<{}> ", own_name.to_lowercase());
    (parsed.from.is_empty() && lower.starts_with(&decorated)).then(|| msg[decorated.len()..].trim().to_owned())
}

/// Remembers a sent `chat`/`whisper` on the bot until the server answers or `timeout_ticks` pass.
pub fn remember(world: &mut World, bot: Entity, id: Value, sent: Sent, message: String, timeout_ticks: u64) {
    let deadline_tick = world.get_resource::<TickCount>().map_or(0, |t| t.0) + timeout_ticks;
    let entry = PendingDelivery { bot, id, sent, message, deadline_tick };
    match world.get_mut::<PendingDeliveries>(bot) {
        Some(mut p) => p.entries.push(entry),
        None => {
            world.entity_mut(bot).insert(PendingDeliveries { entries: vec![entry], server_echoes_chat: false });
        }
    }
}

/// Lines the server never answered: a chat line on a server known to echo is `delivered:false`
/// (`TIMEOUT`); anything else is dropped quietly, since silence proves nothing there.
pub fn expire_deliveries(
    ticks: Res<TickCount>,
    mut bots: Query<&mut PendingDeliveries>,
    mut events: MessageWriter<AgentEvent>,
) {
    for mut pending in &mut bots {
        if pending.entries.iter().all(|p| p.deadline_tick > ticks.0) {
            continue;
        }
        let echoes = pending.server_echoes_chat;
        pending.entries.retain(|p| {
            let live = p.deadline_tick > ticks.0;
            if !live && echoes && p.sent == Sent::Chat {
                let mut d = PendingDeliveries::delivered(p.clone(), "timeout");
                d.delivered = false;
                d.code = Some("TIMEOUT".into());
                d.error = Some("the server echoes chat lines but did not echo this one".into());
                events.write(AgentEvent::new(d));
            } else if !live {
                tracing::debug!(id = %p.id, "no word from the server on a chat/whisper");
            }
            live
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parsed(from: &str, msg: &str) -> ParsedText {
        ParsedText { from: from.into(), msg: msg.into(), ..ParsedText::default() }
    }

    #[test]
    fn own_chat_is_recognised_by_name_or_as_a_decorated_raw_line() {
        assert_eq!(own_chat_body(&parsed("ClawBot", "hi"), "clawbot"), Some("hi".into()));
        assert_eq!(own_chat_body(&parsed("§aClawBot", "§fhi "), "ClawBot"), Some("hi".into()));
        assert_eq!(own_chat_body(&parsed("", "<ClawBot> hi there"), "ClawBot"), Some("hi there".into()));
        assert_eq!(own_chat_body(&parsed("Steve", "<ClawBot> hi"), "ClawBot"), None, "Steve quoting us");
        assert_eq!(own_chat_body(&parsed("Steve", "hi"), "ClawBot"), None);
        assert_eq!(own_chat_body(&parsed("ClawBot", "hi"), ""), None, "no own name, no echo");
    }

    #[test]
    fn an_echo_with_other_text_confirms_nothing() {
        let mut p = PendingDeliveries::default();
        p.entries.push(PendingDelivery {
            bot: Entity::PLACEHOLDER,
            id: 1.into(),
            sent: Sent::Chat,
            message: "hi".into(),
            deadline_tick: 9,
        });
        assert_eq!(p.confirm_by_text(&parsed("ClawBot", "something else"), "ClawBot"), None);
        assert!(!p.server_echoes_chat, "an unmatched line proves nothing about echoing");
        let d = p.confirm_by_text(&parsed("", "<ClawBot> hi"), "ClawBot").expect("decorated echo");
        assert_eq!((d.id, d.delivered, p.server_echoes_chat), (1.into(), true, true));
        // A prefix the server added (a rank tag) still matches.
        p.entries.push(PendingDelivery {
            bot: Entity::PLACEHOLDER,
            id: 2.into(),
            sent: Sent::Chat,
            message: "hi".into(),
            deadline_tick: 9,
        });
        assert_eq!(p.confirm_by_text(&parsed("ClawBot", "[VIP] hi"), "ClawBot").map(|d| d.id), Some(2.into()));
    }
}
