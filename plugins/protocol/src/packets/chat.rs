//! Chat and command packets: typed views (minecraft-data field names). `text` is in the parent
//! module; `add_player` in [`super::entity`].

use crate::codec::Packet;
use serde::{Deserialize, Serialize};

/// `CommandOrigin`: who runs a command. Since 1.21.130 `type` is a string (`"player"`).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct CommandOrigin {
    /// `"player"` for commands the bot types.
    #[serde(rename = "type")]
    pub kind: String,
    /// Random per request; the server echoes it in `command_output`.
    pub uuid: String,
    /// Empty for player commands.
    pub request_id: String,
    /// 0 for player commands.
    pub player_entity_id: i64,
}

/// `command_request` (client → server): a slash command typed by the player.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct CommandRequest {
    /// The command line with its leading `/`.
    pub command: String,
    /// Who runs it.
    pub origin: CommandOrigin,
    /// false for typed commands.
    pub internal: bool,
    /// `"latest"`: numeric versions are rejected since 1.21.130.
    pub version: String,
}
impl Packet for CommandRequest {
    const NAME: &'static str = "command_request";
}

impl CommandRequest {
    /// A command typed by the player, tagged with `uuid` so its output can be matched.
    pub fn player(command: &str, uuid: &str) -> Self {
        Self {
            command: command.to_owned(),
            origin: CommandOrigin { kind: "player".into(), uuid: uuid.to_owned(), ..CommandOrigin::default() },
            internal: false,
            version: "latest".into(),
        }
    }
}

/// One line of a command's output: a translation key with parameters.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct CommandOutputMessage {
    /// Translation key, e.g. `commands.time.set`.
    pub message_id: String,
    /// Whether this line reports success.
    pub success: bool,
    /// Translation parameters.
    pub parameters: Vec<String>,
}

/// `command_output` (server → client): the result of a `command_request`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct CommandOutput {
    /// The request's origin, echoed (`uuid` matches).
    pub origin: CommandOrigin,
    /// e.g. `"allinfo"`.
    pub output_type: String,
    /// How many targets the command succeeded on.
    pub success_count: u32,
    /// Output lines.
    pub output: Vec<CommandOutputMessage>,
    /// Whether `data` is present.
    pub has_data: bool,
    /// Extra JSON data some commands attach.
    pub data: Option<String>,
}
impl Packet for CommandOutput {
    const NAME: &'static str = "command_output";
}

/// `emote` (both directions): a player performs an emote.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct Emote {
    /// Runtime id of the emoting player.
    pub entity_id: u64,
    /// Emote UUID.
    pub emote_id: String,
    /// Length in ticks (0 when unknown).
    pub emote_length_ticks: u32,
    /// Sender XUID (empty offline).
    pub xuid: String,
    /// Platform id.
    pub platform_id: String,
    /// `"server_side"`, `"mute_chat"` or a raw number as text (`"0"`: none).
    pub flags: String,
}
impl Packet for Emote {
    const NAME: &'static str = "emote";
}
