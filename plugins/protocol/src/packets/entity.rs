//! Entity packets: typed views, with minecraft-data's field names (checked against every
//! supported version's definition by `tests/views.rs`). Fields the bot does not use are left out: decoding
//! ignores them and encoding (in tests) fills neutral defaults.

use super::Vec3;
use crate::codec::{Packet, Value};
use serde::{Deserialize, Serialize};

/// One `MetadataDictionary` entry. `key` and `type` are mapper names (`"nametag"`, `"flags"`;
/// `"string"`, `"long"`); `value` is a string, a number, or for `flags` a bitflags object whose
/// `_value` holds the raw bits.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct MetadataEntry {
    /// Mapped key name (key 0 = `flags`, 4 = `nametag`).
    pub key: String,
    /// Mapped value type name.
    #[serde(rename = "type")]
    pub kind: String,
    /// The type byte repeated (new in 1.26.40).
    pub legacy_type: u8,
    /// The value.
    pub value: Value,
}

impl MetadataEntry {
    /// A string entry (name tags in tests).
    pub fn string(key: &str, value: &str) -> Self {
        Self { key: key.into(), kind: "string".into(), legacy_type: 4, value: Value::Str(value.into()) }
    }
    /// A `flags` entry with raw bits.
    pub fn flags(bits: u64) -> Self {
        Self {
            key: "flags".into(),
            kind: "long".into(),
            legacy_type: 7,
            value: Value::Object(vec![("_value".into(), Value::UInt(bits))]),
        }
    }
}

/// `add_player` (another player enters view). `position` is the eye position.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct AddPlayer {
    /// The player's UUID (matches the PlayerList entry).
    pub uuid: String,
    /// Player name.
    pub username: String,
    /// Runtime id.
    pub runtime_id: u64,
    /// Platform chat id.
    pub platform_chat_id: String,
    /// Eye position.
    pub position: Vec3,
    /// Velocity.
    pub velocity: Vec3,
    /// Pitch (degrees).
    pub pitch: f32,
    /// Yaw (degrees).
    pub yaw: f32,
    /// Head yaw (degrees).
    pub head_yaw: f32,
    /// Entity metadata.
    pub metadata: Vec<MetadataEntry>,
    /// Unique id (what RemoveEntity names).
    pub unique_id: i64,
    /// Device id.
    pub device_id: String,
    /// `DeviceOS` mapper name (`"Win10"`, `"Android"`, …), absent on some servers.
    pub device_os: Option<String>,
}
packet!(AddPlayer, "add_player");

/// `add_entity` (AddActor): a mob, projectile, vehicle, … with its string identifier.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct AddEntity {
    /// Unique id.
    pub unique_id: i64,
    /// Runtime id.
    pub runtime_id: u64,
    /// Identifier, e.g. `"minecraft:zombie"`.
    pub entity_type: String,
    /// Position.
    pub position: Vec3,
    /// Velocity.
    pub velocity: Vec3,
    /// Pitch.
    pub pitch: f32,
    /// Yaw.
    pub yaw: f32,
    /// Head yaw.
    pub head_yaw: f32,
    /// Body yaw.
    pub body_yaw: f32,
    /// Entity metadata.
    pub metadata: Vec<MetadataEntry>,
}
packet!(AddEntity, "add_entity");

/// An `ItemV4` stack: the fields the bot reads, plus everything else kept for lossless
/// re-encoding (stack id, block runtime id, the `extra` user data).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct ItemStack {
    /// Item network id (0 = air).
    pub network_id: i32,
    /// Stack size.
    pub count: u16,
    /// Aux value.
    pub metadata: u32,
    /// Every other field of the item.
    #[serde(flatten)]
    pub rest: super::Rest,
}

/// `add_item_entity`: a dropped item stack.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct AddItemEntity {
    /// Unique id.
    pub entity_id_self: i64,
    /// Runtime id.
    pub runtime_entity_id: u64,
    /// The stack.
    pub item: ItemStack,
    /// Position.
    pub position: Vec3,
    /// Velocity.
    pub velocity: Vec3,
    /// Entity metadata.
    pub metadata: Vec<MetadataEntry>,
    /// Whether it was fished up.
    pub is_from_fishing: bool,
}
packet!(AddItemEntity, "add_item_entity");

/// `remove_entity`: carries the **unique** id.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct RemoveEntity {
    /// Unique id of the removed entity.
    pub entity_id_self: i64,
}
packet!(RemoveEntity, "remove_entity");

/// Byte-angle rotation of `move_entity` (decoded to degrees).
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct ByteRotation {
    /// Yaw.
    pub yaw: f32,
    /// Pitch.
    pub pitch: f32,
    /// Head yaw.
    pub head_yaw: f32,
}

/// `move_entity` (MoveActorAbsolute).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct MoveEntity {
    /// Runtime id.
    pub runtime_entity_id: u64,
    /// 1 on ground, 2 teleport, 4 force move, 8 force completion.
    pub flags: u8,
    /// New position (players: eye position).
    pub position: Vec3,
    /// New rotation.
    pub rotation: ByteRotation,
}
packet!(MoveEntity, "move_entity");

/// `move_entity_delta` (MoveActorDelta): each present axis is an **absolute** value; absent axes
/// keep their value. Before 1.26.40 a flags bitset announces the axes; the codec maps it.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct MoveEntityDelta {
    /// Runtime id.
    pub runtime_entity_id: u64,
    /// New x, if it changed.
    pub x: Option<f32>,
    /// New y, if it changed.
    pub y: Option<f32>,
    /// New z, if it changed.
    pub z: Option<f32>,
    /// New pitch (byte angle), if it changed.
    pub rot_x: Option<u8>,
    /// New yaw (byte angle), if it changed.
    pub rot_y: Option<u8>,
    /// New head yaw (byte angle), if it changed.
    pub rot_z: Option<u8>,
    /// On ground.
    pub on_ground: bool,
    /// Force move.
    pub force_move: bool,
    /// Version-specific fields (`force_move_local_entity`, `force_completion`, `ticks`, or the
    /// older `teleport` flag), kept for lossless re-encoding.
    #[serde(flatten)]
    pub rest: super::Rest,
}
packet!(MoveEntityDelta, "move_entity_delta");

/// `set_entity_motion`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct SetEntityMotion {
    /// Runtime id.
    pub runtime_entity_id: u64,
    /// Velocity (blocks per tick).
    pub velocity: Vec3,
    /// Server tick.
    pub tick: u64,
}
packet!(SetEntityMotion, "set_entity_motion");

/// `set_entity_data`: changed metadata entries.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct SetEntityData {
    /// Runtime id.
    pub runtime_entity_id: u64,
    /// Changed entries.
    pub metadata: Vec<MetadataEntry>,
    /// Server tick.
    pub tick: u64,
}
packet!(SetEntityData, "set_entity_data");

/// `take_item_entity`: `target` picked up item entity `runtime_entity_id`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct TakeItemEntity {
    /// Runtime id of the item entity.
    pub runtime_entity_id: u64,
    /// Runtime id of the entity that took it.
    pub target: u32,
}
packet!(TakeItemEntity, "take_item_entity");

/// One `PlayerRecord`: the add fields are absent (neutral) in a remove record.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct PlayerRecord {
    /// `"add"` or `"remove"`.
    #[serde(rename = "type")]
    pub kind: String,
    /// 0 for add, 1 for remove.
    pub legacy_type: u8,
    /// The player's UUID.
    pub uuid: String,
    /// Unique id (add only).
    pub entity_unique_id: i64,
    /// Name (add only).
    pub username: String,
    /// Xbox user id (add only; empty offline).
    pub xbox_user_id: String,
    /// Platform chat id (add only).
    pub platform_chat_id: String,
    /// `DeviceOS` number (add only).
    pub build_platform: i32,
    /// Whether this is the host (add only).
    pub is_host: bool,
}

/// `player_list`: the server-wide roster changes.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct PlayerList {
    /// Added or removed players.
    pub records: Vec<PlayerRecord>,
}
packet!(PlayerList, "player_list");
