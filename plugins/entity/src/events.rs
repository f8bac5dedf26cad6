//! The events of this plugin, in ClawCraft's shapes.

use bevy_ecs::prelude::{Entity, Message};
use clawcraft_core::Vec3;
use schemars::JsonSchema;
use serde::Serialize;

/// `player_join`: a player joined the server (PlayerList add).
#[derive(Message, Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct PlayerJoin {
    #[serde(skip)]
    pub bot: Entity,
    pub name: String,
    pub uuid: String,
    /// Lower-case platform, e.g. `windows`, `android`, `unknown`.
    pub platform: String,
}
clawcraft_core::event_kind!(PlayerJoin, "player_join", "A player joined the server");

/// `player_leave`: a player left the server (PlayerList remove).
#[derive(Message, Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct PlayerLeave {
    #[serde(skip)]
    pub bot: Entity,
    pub name: String,
    pub uuid: String,
}
clawcraft_core::event_kind!(PlayerLeave, "player_leave", "A player left the server");

/// `player_appear`: a player entered the bot's view distance (AddPlayer).
#[derive(Message, Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct PlayerAppear {
    #[serde(skip)]
    pub bot: Entity,
    pub name: String,
    pub uuid: String,
    /// Feet position.
    pub position: Vec3,
}
clawcraft_core::event_kind!(PlayerAppear, "player_appear", "A player came into view (entered render distance)");

/// `player_disappear`: a player left the bot's view distance (RemoveEntity of a player).
#[derive(Message, Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct PlayerDisappear {
    #[serde(skip)]
    pub bot: Entity,
    pub name: String,
    pub uuid: String,
}
clawcraft_core::event_kind!(PlayerDisappear, "player_disappear", "A player went out of view (left render distance)");

/// `player_nearby`: a player came closer than a proximity zone (close ≤ 8, near ≤ 16 blocks).
#[derive(Message, Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct PlayerNearby {
    #[serde(skip)]
    pub bot: Entity,
    pub name: String,
    pub uuid: String,
    /// The zone entered: `close` (≤ 8 blocks) or `near` (≤ 16).
    pub zone: String,
    /// Blocks from the bot (feet to feet).
    pub distance: f64,
}
clawcraft_core::event_kind!(
    PlayerNearby,
    "player_nearby",
    "A player entered a proximity zone of the bot: close (<= 8 blocks) or near (<= 16)"
);

/// `player_left_nearby`: a player moved out of a zone. Leaving needs one extra block (> 9 for
/// close, > 17 for near) so a player on a border does not flap.
#[derive(Message, Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct PlayerLeftNearby {
    #[serde(skip)]
    pub bot: Entity,
    pub name: String,
    pub uuid: String,
    /// The zone left: `close` (now only near) or `near` (now out of both zones).
    pub zone: String,
    /// Blocks from the bot (feet to feet).
    pub distance: f64,
}
clawcraft_core::event_kind!(
    PlayerLeftNearby,
    "player_left_nearby",
    "A player left a proximity zone: close (now > 9 blocks) or near (now > 17, gone)"
);

/// `danger`: a hostile mob is within `danger_mob_dist` (default 8) blocks. With the default
/// `CLAWCRAFT_DANGER_MODE=change` it fires when the mob comes within range (`new`), into a
/// nearer zone (`closer`), when it leaves the range or despawns (`gone`), and every
/// `CLAWCRAFT_DANGER_REPEAT_MS` while unchanged (`repeat`); with `interval`, every 5 s per mob.
#[derive(Message, Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Danger {
    #[serde(skip)]
    pub bot: Entity,
    /// The mob's short name, e.g. `zombie`.
    pub threat: String,
    /// Blocks from the bot.
    pub distance: f64,
    /// Bedrock's numeric actor type, e.g. 32 for a zombie (ClawCraft's field); `null` for a mob
    /// the table does not number.
    pub entity_type: Option<u32>,
    /// The mob's identifier, e.g. `minecraft:zombie`.
    pub identifier: String,
    /// The mob's runtime id (for `attack`).
    pub runtime_id: u64,
    /// The mob's feet position.
    pub pos: Vec3,
    /// Why this event: `new`, `closer`, `gone` or `repeat`.
    pub change: String,
    /// The zone the mob is in (`gone`: was in): `melee` (<= 3 blocks), `close` (<= 5) or `near`
    /// (<= danger_mob_dist).
    pub zone: String,
}
clawcraft_core::event_kind!(
    Danger,
    "danger",
    "A hostile mob is within danger_mob_dist (default 8 blocks): change new/closer/gone/repeat (CLAWCRAFT_DANGER_MODE=interval: every 5 s per mob)"
);
