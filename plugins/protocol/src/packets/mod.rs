//! Version-independent typed views of the packets the bot uses.
//!
//! Each struct is a plain serde type whose field names are minecraft-data's; the codec
//! ([`crate::codec::Protocol::decode_as`] / [`crate::codec::Protocol::encode`]) moves them to and
//! from the wire for any supported version. In the app, read them with
//! `ClientboundPacket::view::<P>()` (clawcraft-network): decoded once per packet, shared by every
//! system.
//!
//! Strictness: decoding ignores fields the definition has and a struct lacks, and encoding fills
//! them with neutral defaults (0, false, "", empty, absent, the mapper's zero name). The reverse
//! is an error: every field a view names must exist in every supported version's definition,
//! which `tests/views.rs` checks for each view in [`ALL_VIEWS`] ([`Protocol::check_view`]). A new
//! view goes into that list (a test fails otherwise) and gets a vector in `tests/vectors`.
//!
//! Conventions:
//! - Mapper fields are `String`s holding minecraft-data's mapped names (e.g. `"player_spawn"`);
//!   a raw number the mapper does not know arrives as its decimal text and is written back as is.
//! - UUIDs are canonical lower-case strings.
//! - Fields behind a switch are `Option`s or take their neutral value when the switch is off.
//! - Big packets keep every field they do not name in `rest`, so decode → encode is lossless.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::codec::{CodecError, Nbt, Packet, Protocol, Value};

// ---------------------------------------------------------------------------------------------
// Small shared shapes (minecraft-data's vec3f, vec2f, BlockCoordinates/vec3i, ...)
// ---------------------------------------------------------------------------------------------

/// `vec3f`: a float position or vector.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
pub struct Vec3 {
    /// East (+) / west (−).
    pub x: f32,
    /// Up (+) / down (−).
    pub y: f32,
    /// South (+) / north (−).
    pub z: f32,
}

/// `vec2f`: minecraft-data names the components `x` and `z` (pitch/yaw or a 2-D move vector).
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
pub struct Vec2 {
    /// First component (pitch, or sideways movement).
    pub x: f32,
    /// Second component (yaw, or forward movement).
    pub z: f32,
}

/// `BlockCoordinates` / `vec3i`: a block position (zigzag varints on the wire).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct BlockPos {
    /// Block x.
    pub x: i32,
    /// Block y.
    pub y: i32,
    /// Block z.
    pub z: i32,
}

/// A chunk column position.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct ChunkPos {
    /// Chunk x (block x >> 4).
    pub x: i32,
    /// Chunk z (block z >> 4).
    pub z: i32,
}

/// An opaque byte string carried as one [`Value::Bytes`] (a `Vec<u8>` would become one value
/// per byte, which is slow for chunk payloads).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ByteBuf(pub Vec<u8>);

impl Serialize for ByteBuf {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_bytes(&self.0)
    }
}

impl<'de> Deserialize<'de> for ByteBuf {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> serde::de::Visitor<'de> for V {
            type Value = ByteBuf;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("bytes")
            }
            fn visit_bytes<E>(self, v: &[u8]) -> Result<ByteBuf, E> {
                Ok(ByteBuf(v.to_vec()))
            }
            fn visit_byte_buf<E>(self, v: Vec<u8>) -> Result<ByteBuf, E> {
                Ok(ByteBuf(v))
            }
            fn visit_unit<E>(self) -> Result<ByteBuf, E> {
                Ok(ByteBuf(Vec::new()))
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut a: A) -> Result<ByteBuf, A::Error> {
                let mut out = Vec::new();
                while let Some(b) = a.next_element::<u8>()? {
                    out.push(b);
                }
                Ok(ByteBuf(out))
            }
        }
        d.deserialize_byte_buf(V)
    }
}

/// Every field a typed view does not name, kept for lossless re-encoding.
pub type Rest = BTreeMap<String, Value>;

/// `Experiment`: an experimental toggle.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct Experiment {
    /// Experiment id, e.g. `"data_driven_items"`.
    pub name: String,
    /// Whether it is on.
    pub enabled: bool,
}

macro_rules! packet {
    ($ty:ident, $name:literal) => {
        impl Packet for $ty {
            const NAME: &'static str = $name;
        }
    };
}

// ---------------------------------------------------------------------------------------------
// Connection and login
// ---------------------------------------------------------------------------------------------

/// `request_network_settings` (client → server, first packet): announces our protocol.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct RequestNetworkSettings {
    /// Our protocol number (e.g. 2169).
    pub client_protocol: i32,
}
packet!(RequestNetworkSettings, "request_network_settings");

/// `network_settings` (server → client): compression to use from now on.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct NetworkSettings {
    /// Batches smaller than this are sent uncompressed.
    pub compression_threshold: u16,
    /// `"deflate"` or `"snappy"`.
    pub compression_algorithm: String,
    /// Client throttling (unused by bots).
    pub client_throttle: bool,
    /// Throttle threshold.
    pub client_throttle_threshold: u8,
    /// Throttle scalar.
    pub client_throttle_scalar: f32,
}
packet!(NetworkSettings, "network_settings");

/// The JWT chain and client data of a login.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct LoginTokens {
    /// Identity JSON (certificate chain / authentication info).
    pub identity: String,
    /// Client data JWT (skin, device, ...).
    pub client: String,
}

/// `login` (client → server).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct Login {
    /// Our protocol number.
    pub protocol_version: i32,
    /// Length-prefixed token blob.
    pub tokens: LoginTokens,
}
packet!(Login, "login");

/// `server_to_client_handshake`: the server's JWT carrying its public key and salt.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct ServerToClientHandshake {
    /// Compact JWS; its header `x5u` is the server key, its claim `salt` the salt.
    pub token: String,
}
packet!(ServerToClientHandshake, "server_to_client_handshake");

/// `client_to_server_handshake`: empty acknowledgement that encryption is on.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct ClientToServerHandshake {}
packet!(ClientToServerHandshake, "client_to_server_handshake");

/// `play_status`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct PlayStatus {
    /// `"login_success"`, `"player_spawn"`, or a `failed_*` reason.
    pub status: String,
}
packet!(PlayStatus, "play_status");

/// `disconnect`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct Disconnect {
    /// `DisconnectFailReason` name, e.g. `"kicked"`.
    pub reason: String,
    /// When true the message fields are absent on the wire.
    pub hide_disconnect_reason: bool,
    /// Human-readable message (empty when hidden).
    pub message: String,
    /// Filtered variant of `message`.
    pub filtered_message: String,
}
packet!(Disconnect, "disconnect");

// ---------------------------------------------------------------------------------------------
// Resource packs
// ---------------------------------------------------------------------------------------------

/// World template reference in `resource_packs_info`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct WorldTemplate {
    /// Template UUID.
    pub uuid: String,
    /// Template version.
    pub version: String,
}

/// One entry of `texture_packs`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct TexturePackInfo {
    /// Pack UUID.
    pub uuid: String,
    /// Pack version.
    pub version: String,
    /// Size in bytes.
    pub size: u64,
    /// Decryption key (empty if not encrypted).
    pub content_key: String,
    /// Sub-pack name.
    pub sub_pack_name: String,
    /// Content identity.
    pub content_identity: String,
    /// Whether the pack has scripts.
    pub has_scripts: bool,
    /// Whether it is an add-on pack.
    pub addon_pack: bool,
    /// Whether it uses ray tracing.
    pub rtx_enabled: bool,
    /// Download URL, if served from a CDN.
    pub cdn_url: String,
}

/// `resource_packs_info` (server → client).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct ResourcePacksInfo {
    /// Whether the client must accept the packs to join.
    pub must_accept: bool,
    /// Whether any pack is an add-on.
    pub has_addons: bool,
    /// Whether any pack has scripts.
    pub has_scripts: bool,
    /// Disables vibrant visuals.
    pub disable_vibrant_visuals: bool,
    /// World template.
    pub world_template: WorldTemplate,
    /// Offered resource packs.
    pub texture_packs: Vec<TexturePackInfo>,
}
packet!(ResourcePacksInfo, "resource_packs_info");

/// A pack in the stack.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct PackIdVersion {
    /// Pack UUID (plain text on the wire here).
    pub uuid: String,
    /// Pack version.
    pub version: String,
    /// Pack name.
    pub name: String,
}

/// `resource_pack_stack` (server → client).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct ResourcePackStack {
    /// Whether the client must accept.
    pub must_accept: bool,
    /// Packs in application order.
    pub resource_packs: Vec<PackIdVersion>,
    /// Base game version.
    pub game_version: String,
    /// Experiments enabled on the world.
    pub experiments: Vec<Experiment>,
    /// Whether experiments were ever enabled.
    pub experiments_previously_used: bool,
    /// Whether editor packs are present.
    pub has_editor_packs: bool,
}
packet!(ResourcePackStack, "resource_pack_stack");

/// `resource_pack_client_response` (client → server).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct ResourcePackClientResponse {
    /// `"refused"`, `"send_packs"`, `"have_all_packs"` or `"completed"`.
    pub response_status: String,
    /// Free text (usually empty).
    pub response_status_name: String,
    /// `<uuid>_<version>` ids; only on the wire with `"send_packs"`.
    pub resourcepackids: Option<Vec<String>>,
}
packet!(ResourcePackClientResponse, "resource_pack_client_response");

/// `client_cache_status` (client → server): whether we support the blob cache.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct ClientCacheStatus {
    /// Bots say false so chunks arrive inline.
    pub enabled: bool,
}
packet!(ClientCacheStatus, "client_cache_status");

// ---------------------------------------------------------------------------------------------
// Joining the world
// ---------------------------------------------------------------------------------------------

/// `GameRuleI32`: a game rule in `start_game`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct GameRule {
    /// Rule name, e.g. `"dodaylightcycle"`.
    pub name: String,
    /// Whether players may edit it.
    pub editable: bool,
    /// `"bool"`, `"int"` or `"float"`; selects how `value` is encoded.
    #[serde(rename = "type")]
    pub kind: String,
    /// The value (bool, integer or float per `kind`).
    pub value: Value,
}

/// A custom block's property description.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct BlockProperty {
    /// Block identifier.
    pub name: String,
    /// Its component NBT.
    pub state: Nbt,
}

/// `start_game` (server → client): the player's entity, position and the world's settings.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct StartGame {
    /// Unique (save-game) entity id of the player.
    pub entity_id: i64,
    /// Runtime entity id of the player; used in movement and interaction packets.
    pub runtime_entity_id: u64,
    /// The player's own game mode (`GameMode` name, e.g. `"survival"`).
    pub player_gamemode: String,
    /// Spawn position of the player's feet + eye offset as the server sees it.
    pub player_position: Vec3,
    /// Pitch (`x`) and yaw (`z`).
    pub rotation: Vec2,
    /// World seed.
    pub seed: u64,
    /// `"overworld"`, `"nether"` or `"end"`.
    pub dimension: String,
    /// World generator (0 old, 1 infinite, 2 flat, ...).
    pub generator: i32,
    /// Default game mode of the world.
    pub world_gamemode: String,
    /// Hardcore world.
    pub hardcore: bool,
    /// 0 peaceful .. 3 hard.
    pub difficulty: i32,
    /// World spawn block.
    pub spawn_position: BlockPos,
    /// Time the day cycle is frozen at, or -1.
    pub day_cycle_stop_time: i32,
    /// Rain strength 0..1.
    pub rain_level: f32,
    /// Lightning strength 0..1.
    pub lightning_level: f32,
    /// Whether commands are enabled.
    pub enable_commands: bool,
    /// Game rules.
    pub gamerules: Vec<GameRule>,
    /// Experiments.
    pub experiments: Vec<Experiment>,
    /// `PermissionLevel` name of the player.
    pub permission_level: String,
    /// Simulation distance in chunks.
    pub server_chunk_tick_range: i32,
    /// Server game version string.
    pub game_version: String,
    /// Base64 level id.
    pub level_id: String,
    /// Display name of the world.
    pub world_name: String,
    /// Premium template id.
    pub premium_world_template_id: String,
    /// Ticks of movement history the server rewinds (server-authoritative movement).
    pub rewind_history_size: i32,
    /// Whether the server validates block breaking (client must send block actions).
    pub server_authoritative_block_breaking: bool,
    /// Current world tick; `player_auth_input.tick` continues from here.
    pub current_tick: i64,
    /// Enchantment seed.
    pub enchantment_seed: i32,
    /// Custom block definitions.
    pub block_properties: Vec<BlockProperty>,
    /// Correlation id for telemetry.
    pub multiplayer_correlation_id: String,
    /// Server-authoritative inventory transactions.
    pub server_authoritative_inventory: bool,
    /// Server engine version string.
    pub engine: String,
    /// Player property data.
    pub property_data: Nbt,
    /// Checksum of the block palette.
    pub block_pallette_checksum: u64,
    /// World template UUID.
    pub world_template_id: String,
    /// Whether the client generates chunks itself.
    pub client_side_generation: bool,
    /// Block runtime ids are FNV hashes of the state instead of palette indices.
    pub block_network_ids_are_hashes: bool,
    /// Sounds are server controlled.
    pub server_controlled_sound: bool,
    /// Every other field, kept for lossless re-encoding (omit to get neutral values).
    #[serde(flatten)]
    pub rest: Rest,
}
packet!(StartGame, "start_game");

/// One `item_registry` entry.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct ItemState {
    /// Item identifier, e.g. `"minecraft:shield"`.
    pub name: String,
    /// Network id used in item stacks.
    pub runtime_id: i16,
    /// Whether the item is component based.
    pub component_based: bool,
    /// `"legacy"`, `"data_driven"` or `"none"`.
    pub version: String,
    /// Component NBT.
    pub nbt: Nbt,
}

/// `item_registry` (server → client): item network ids. The shield's id must be passed to
/// [`crate::codec::Protocol::set_variable`] as `ShieldItemID` to decode items.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct ItemRegistry {
    /// All items.
    pub itemstates: Vec<ItemState>,
}
packet!(ItemRegistry, "item_registry");

/// `request_chunk_radius` (client → server).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct RequestChunkRadius {
    /// Wanted view distance in chunks.
    pub chunk_radius: i32,
    /// Upper bound we accept.
    pub max_radius: u8,
}
packet!(RequestChunkRadius, "request_chunk_radius");

/// `chunk_radius_update` (server → client).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct ChunkRadiusUpdate {
    /// Granted view distance in chunks.
    pub chunk_radius: i32,
}
packet!(ChunkRadiusUpdate, "chunk_radius_update");

/// `serverbound_loading_screen` (client → server).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct ServerboundLoadingScreen {
    /// 1 = start of loading screen, 2 = end.
    #[serde(rename = "type")]
    pub kind: i32,
    /// Id of the loading screen, if known.
    pub loading_screen_id: Option<u32>,
}
packet!(ServerboundLoadingScreen, "serverbound_loading_screen");

/// `set_local_player_as_initialized` (client → server): we are ready to play.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct SetLocalPlayerAsInitialized {
    /// Our runtime entity id from `start_game`.
    pub runtime_entity_id: u64,
}
packet!(SetLocalPlayerAsInitialized, "set_local_player_as_initialized");

/// `network_stack_latency`: ping; echo it when `needs_response` is set.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct NetworkStackLatency {
    /// Opaque timestamp to echo.
    pub timestamp: u64,
    /// Non-zero when the server wants an answer.
    pub needs_response: u8,
}
packet!(NetworkStackLatency, "network_stack_latency");

/// `set_movement_authority` (server → client).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct SetMovementAuthority {
    /// `"client"`, `"server"` or `"server_with_rewind"`.
    pub movement_authority: String,
}
packet!(SetMovementAuthority, "set_movement_authority");

// ---------------------------------------------------------------------------------------------
// Movement
// ---------------------------------------------------------------------------------------------

/// One `block_action` entry of `player_auth_input`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct BlockAction {
    /// `Action` name, e.g. `"start_break"`, `"continue_break"`, `"abort_break"`.
    pub action: String,
    /// Block being acted on (not on the wire for actions without a block before 1.26.40).
    pub position: BlockPos,
    /// Block face 0..5.
    pub face: i32,
}

/// `player_auth_input` (client → server, every tick under server-authoritative movement).
///
/// The same struct for every version: set flags by name in `input_data` and fill the optional
/// blocks; the codec writes the flags each block needs (`item_interact`, `block_action`, …) and
/// the version's encoding of flags and optional blocks.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct PlayerAuthInput {
    /// Look pitch in degrees.
    pub pitch: f32,
    /// Look yaw in degrees.
    pub yaw: f32,
    /// Eye position.
    pub position: Vec3,
    /// Input movement vector (`x` strafe, `z` forward), each −1..1.
    pub move_vector: Vec2,
    /// Head yaw.
    pub head_yaw: f32,
    /// Input flags set this tick, by name (`InputData` names like `"up"`, `"jumping"`,
    /// `"sprinting"`, `"handled_teleport"`).
    pub input_data: Vec<String>,
    /// `"mouse"`, `"touch"`, `"game_pad"`, ...
    pub input_mode: String,
    /// `"normal"` for a regular player.
    pub play_mode: String,
    /// `"touch"`, `"crosshair"` or `"classic"`.
    pub interaction_model: String,
    /// Interaction rotation (pitch `x`, yaw `z`).
    pub interact_rotation: Vec2,
    /// Client tick counter.
    pub tick: u64,
    /// Position change since the last tick.
    pub delta: Vec3,
    /// Item-use transaction (sets `item_interact`).
    pub transaction: Option<AuthInputTransaction>,
    /// Item stack request (untyped; sets `item_stack_request`).
    pub item_stack_request: Option<Value>,
    /// Block breaking actions this tick (sets `block_action`).
    pub block_action: Option<Vec<BlockAction>>,
    /// Vehicle rotation while riding (sets `client_predicted_vehicle`).
    pub vehicle_rotation: Option<Vec2>,
    /// Unique id of the predicted vehicle (sets `client_predicted_vehicle`).
    pub predicted_vehicle: Option<i64>,
    /// Analogue movement vector.
    pub analogue_move_vector: Vec2,
    /// Camera orientation unit vector.
    pub camera_orientation: Vec3,
    /// Raw (unprocessed) movement vector.
    pub raw_move_vector: Vec2,
}
packet!(PlayerAuthInput, "player_auth_input");

/// Teleport details of `move_player` (present when `mode` is `"teleport"`).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct TeleportCause {
    /// `"unknown"`, `"projectile"`, `"chorus_fruit"`, `"command"`, `"behavior"`.
    pub cause: String,
    /// Legacy entity type name of the source (or its number as text).
    pub source_entity_type: String,
}

/// `move_player`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct MovePlayer {
    /// Runtime id of the moved player.
    pub runtime_id: u32,
    /// Eye position.
    pub position: Vec3,
    /// Pitch.
    pub pitch: f32,
    /// Yaw.
    pub yaw: f32,
    /// Head yaw.
    pub head_yaw: f32,
    /// `"normal"`, `"reset"`, `"teleport"` or `"rotation"`.
    pub mode: String,
    /// On ground.
    pub on_ground: bool,
    /// Runtime id of the ridden entity, or 0.
    pub ridden_runtime_id: u32,
    /// Teleport details.
    pub teleport: Option<TeleportCause>,
    /// Server tick.
    pub tick: u64,
}
packet!(MovePlayer, "move_player");

/// `correct_player_move_prediction` (server → client): our predicted movement was wrong.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct CorrectPlayerMovePrediction {
    /// `"player"` or `"vehicle"`.
    pub prediction_type: String,
    /// Authoritative position.
    pub position: Vec3,
    /// Authoritative velocity.
    pub delta: Vec3,
    /// Vehicle rotation.
    pub rotation: Vec2,
    /// Vehicle angular velocity.
    pub angular_velocity: Option<f32>,
    /// On ground.
    pub on_ground: bool,
    /// Tick the correction applies to; replay inputs after it.
    pub tick: u64,
}
packet!(CorrectPlayerMovePrediction, "correct_player_move_prediction");

/// `respawn`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct Respawn {
    /// Respawn position.
    pub position: Vec3,
    /// 0 searching, 1 server ready, 2 client ready.
    pub state: u8,
    /// Runtime id of the player.
    pub runtime_entity_id: u64,
}
packet!(Respawn, "respawn");

// ---------------------------------------------------------------------------------------------
// World and chat
// ---------------------------------------------------------------------------------------------

/// `set_time`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct SetTime {
    /// World time in ticks.
    pub time: i32,
}
packet!(SetTime, "set_time");

/// `text`: chat, whispers, system and translated messages.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct Text {
    /// Whether `message` is a translation key.
    pub needs_translation: bool,
    /// `"message_only"`, `"authored"` or `"parameters"`.
    pub category: String,
    /// `"chat"`, `"raw"`, `"translation"`, `"whisper"`, `"system"`, ...
    #[serde(rename = "type")]
    pub kind: String,
    /// Sender (chat, whisper, announcement).
    pub source_name: Option<String>,
    /// Message text or translation key.
    pub message: String,
    /// Translation parameters (translation, popup, jukebox_popup).
    pub parameters: Vec<String>,
    /// Sender XUID.
    pub xuid: String,
    /// Platform chat id.
    pub platform_chat_id: String,
    /// Whether `filtered_message` is present.
    pub has_filtered_message: bool,
    /// Filtered message.
    pub filtered_message: Option<String>,
}
packet!(Text, "text");

/// `level_chunk`: a chunk column (sub-chunks are in `payload`).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct LevelChunk {
    /// Chunk x.
    pub x: i32,
    /// Chunk z.
    pub z: i32,
    /// Dimension id.
    pub dimension: i32,
    /// Number of sub-chunks in `payload`.
    pub sub_chunk_count: u32,
    /// Highest sub-chunk (sub-chunk request mode).
    pub highest_subchunk_count: Option<i32>,
    /// Blob cache in use (then `blobs` lists hashes).
    pub cache_enabled: bool,
    /// Blob hashes.
    pub blobs: Vec<u64>,
    /// Serialized sub-chunks, biomes and block entities.
    pub payload: ByteBuf,
}
packet!(LevelChunk, "level_chunk");

/// How a LevelChunk delivers its sub-chunks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChunkDelivery {
    /// This many sub-chunks (from the bottom) are in the payload.
    Full(usize),
    /// Sub-chunk request mode: the client asks for sub-chunks; `Some(n)`: only the lowest `n`
    /// can hold blocks.
    Request(Option<usize>),
}

impl LevelChunk {
    /// The delivery mode. The codec maps the older encoding (−1/−2 in `sub_chunk_count`, a
    /// 16-bit limit) to this layout, so the answer is the same for every version.
    pub fn delivery(&self) -> ChunkDelivery {
        match self.highest_subchunk_count {
            Some(limit) => ChunkDelivery::Request(usize::try_from(limit).ok()),
            None if self.sub_chunk_count >= u32::MAX - 1 => ChunkDelivery::Request(None),
            None => ChunkDelivery::Full(self.sub_chunk_count as usize),
        }
    }
}

/// `network_chunk_publisher_update`: the area the server will send chunks for.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct NetworkChunkPublisherUpdate {
    /// Centre block.
    pub coordinates: BlockPos,
    /// Radius in blocks.
    pub radius: u32,
    /// Chunks the client already has.
    pub saved_chunks: Vec<ChunkPos>,
}
packet!(NetworkChunkPublisherUpdate, "network_chunk_publisher_update");

/// One attribute modifier.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct AttributeModifier {
    /// Modifier id.
    pub id: String,
    /// Modifier name.
    pub name: String,
    /// Amount.
    pub amount: f32,
    /// Operation.
    pub operation: i32,
    /// Operand.
    pub operand: i32,
    /// Whether it is saved.
    pub serializable: bool,
}

/// One attribute in `update_attributes`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct Attribute {
    /// Minimum.
    pub min: f32,
    /// Maximum.
    pub max: f32,
    /// Current value.
    pub current: f32,
    /// Default minimum.
    pub default_min: f32,
    /// Default maximum.
    pub default_max: f32,
    /// Default value.
    pub default: f32,
    /// Attribute id, e.g. `"minecraft:health"`, `"minecraft:movement"`.
    pub name: String,
    /// Active modifiers.
    pub modifiers: Vec<AttributeModifier>,
}

/// `update_attributes` (health, hunger, movement speed, ...).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct UpdateAttributes {
    /// Entity the attributes belong to.
    pub runtime_entity_id: u64,
    /// Changed attributes.
    pub attributes: Vec<Attribute>,
    /// Server tick.
    pub tick: u64,
}
packet!(UpdateAttributes, "update_attributes");

impl ResourcePackClientResponse {
    /// A response with no pack ids (`"have_all_packs"`, `"completed"`, `"refused"`).
    pub fn status(status: &str) -> Self {
        Self { response_status: status.to_owned(), ..Self::default() }
    }
}

impl PlayerAuthInput {
    /// The input of a player standing still at `eye` looking along `yaw`/`pitch` (degrees).
    pub fn idle(eye: [f64; 3], yaw: f32, pitch: f32, tick: u64, flags: &[&str]) -> Self {
        let (sy, cy) = f64::from(yaw).to_radians().sin_cos();
        let (sp, cp) = f64::from(pitch).to_radians().sin_cos();
        Self {
            pitch,
            yaw,
            position: Vec3 { x: eye[0] as f32, y: eye[1] as f32, z: eye[2] as f32 },
            head_yaw: yaw,
            input_data: flags.iter().map(|f| (*f).to_owned()).collect(),
            input_mode: "mouse".into(),
            play_mode: "normal".into(),
            interaction_model: "crosshair".into(),
            interact_rotation: Vec2 { x: pitch, z: yaw },
            tick,
            // Bedrock's yaw 0 faces +Z (south); pitch positive looks down.
            camera_orientation: Vec3 { x: (-sy * cp) as f32, y: (-sp) as f32, z: (cy * cp) as f32 },
            ..Self::default()
        }
    }

    /// Whether flag `name` is set.
    pub fn has_flag(&self, name: &str) -> bool {
        self.input_data.iter().any(|f| f == name)
    }
}

// ---------------------------------------------------------------------------------------------
// Transactions (item use)
// ---------------------------------------------------------------------------------------------

/// A slot a legacy transaction changed.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct ChangedSlot {
    /// Slot index.
    pub slot_id: u8,
}

/// One container of a legacy transaction.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct LegacyChange {
    /// Container id.
    pub container_id: u8,
    /// Changed slots.
    pub changed_slots: Vec<ChangedSlot>,
}

/// `TransactionLegacy`: request id 0 for new-style (server-authoritative) inventories.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct LegacyTransaction {
    /// Legacy request id (0: none, then no changes follow).
    pub legacy_request_id: i32,
    /// Changes of a legacy request.
    pub legacy_transactions: Option<Vec<LegacyChange>>,
}

/// One inventory action of a transaction. Older versions name the window `inventory_id` and
/// only carry it (or `flags`) for some source types; the codec maps that.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct TransactionAction {
    /// `"container"`, `"global"`, `"world_interaction"`, `"creative"`, `"craft_slot"`, `"craft"`.
    pub source_type: String,
    /// Window of a container source.
    pub window_id: Option<i32>,
    /// Flags of a world-interaction source.
    pub flags: Option<u32>,
    /// Slot.
    pub slot: u32,
    /// Item before.
    pub old_item: ItemStack,
    /// Item after.
    pub new_item: ItemStack,
    /// Fields only some versions have (e.g. a craft `action`), kept for lossless re-encoding.
    #[serde(flatten)]
    pub rest: Rest,
}

/// `TransactionUseItem`: using the held item on a block or in the air (placing, eating,
/// activating). `hand` exists from 1.26.60 (older versions always use the main hand).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct UseItem {
    /// `"click_block"`, `"click_air"`, `"break_block"`, `"attack"`.
    pub action_type: String,
    /// `"unknown"`, `"player_input"`, `"simulation_tick"`.
    pub trigger_type: String,
    /// Block clicked.
    pub block_position: BlockPos,
    /// Face clicked.
    pub face: i32,
    /// Hotbar slot of the held item.
    pub hotbar_slot: i32,
    /// `"main_hand"` or `"off_hand"` (1.26.60+; ignored before).
    pub hand: String,
    /// The held item.
    pub held_item: ItemStack,
    /// Player position.
    pub player_pos: Vec3,
    /// Click position within the block.
    pub click_pos: Vec3,
    /// Network id of the clicked block.
    pub block_runtime_id: u32,
    /// `"failure"` or `"success"`.
    pub client_prediction: String,
    /// `"off"` or `"on"`.
    pub client_cooldown_state: String,
}

/// The transaction block of `player_auth_input` (item use under server-authoritative
/// inventories).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct AuthInputTransaction {
    /// Legacy part.
    pub legacy: LegacyTransaction,
    /// Inventory actions.
    pub actions: Vec<TransactionAction>,
    /// The use.
    pub data: UseItem,
}

/// `Transaction` of `inventory_transaction`. `transaction_data` depends on `transaction_type`:
/// for `"item_use"` it is a [`UseItem`] ([`Transaction::use_item`]).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct Transaction {
    /// Legacy part.
    pub legacy: LegacyTransaction,
    /// `"normal"`, `"inventory_mismatch"`, `"item_use"`, `"item_use_on_entity"`, `"item_release"`.
    pub transaction_type: String,
    /// Inventory actions.
    pub actions: Vec<TransactionAction>,
    /// The type's data.
    pub transaction_data: Value,
}

impl Transaction {
    /// An item-use transaction.
    pub fn item_use(data: &UseItem) -> Result<Self, crate::codec::SerdeError> {
        Ok(Self {
            transaction_type: "item_use".into(),
            transaction_data: crate::codec::to_value(data)?,
            ..Self::default()
        })
    }

    /// The use-item data, if this is an `"item_use"` transaction.
    pub fn use_item(&self) -> Option<UseItem> {
        if self.transaction_type != "item_use" {
            return None;
        }
        crate::codec::from_value(&self.transaction_data).ok()
    }
}

/// `inventory_transaction`: item use, release and inventory changes.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct InventoryTransaction {
    /// The transaction.
    pub transaction: Transaction,
}
packet!(InventoryTransaction, "inventory_transaction");

// ---------------------------------------------------------------------------------------------
// Packets of the other plugins: one place per packet, every view in this crate.

pub mod chat;
pub mod crafting;
pub mod entity;
pub mod items;
pub mod trade;
pub mod vitals;
pub mod world;
pub mod writing;

pub use chat::*;
pub use crafting::*;
pub use entity::*;
pub use items::*;
pub use trade::*;
pub use vitals::*;
pub use world::*;
pub use writing::*;

// ---------------------------------------------------------------------------------------------
// The list of every view, for checks that must cover them all.

/// One typed view, with what tests need to check it for any version.
#[derive(Debug, Clone, Copy)]
pub struct ViewInfo {
    /// minecraft-data packet name.
    pub name: &'static str,
    /// The Rust type's name.
    pub type_name: &'static str,
    /// [`Protocol::check_view`] for this view.
    pub check: fn(&Protocol) -> Result<(), CodecError>,
    /// Decodes a body into this view and encodes it again (for round-trip vectors).
    pub reencode: fn(&Protocol, &[u8]) -> Result<Vec<u8>, CodecError>,
    /// Encodes the view's `Default` (neutral values everywhere), decodes and re-encodes it;
    /// `Ok(true)` when both encodings are equal.
    pub default_round_trip: fn(&Protocol) -> Result<bool, CodecError>,
}

fn reencode<P: Packet>(p: &Protocol, body: &[u8]) -> Result<Vec<u8>, CodecError> {
    p.encode(&p.decode_as::<P>(body)?)
}

fn default_round_trip<P: Packet + Default>(p: &Protocol) -> Result<bool, CodecError> {
    let bytes = p.encode(&P::default())?;
    let again = p.encode(&p.decode_as::<P>(&bytes)?)?;
    Ok(bytes == again)
}

macro_rules! views {
    ($($ty:ident),* $(,)?) => {
        /// Every typed view of this module (a test checks that the list is complete).
        pub static ALL_VIEWS: &[ViewInfo] = &[$(ViewInfo {
            name: <$ty as Packet>::NAME,
            type_name: stringify!($ty),
            check: Protocol::check_view::<$ty>,
            reencode: reencode::<$ty>,
            default_round_trip: default_round_trip::<$ty>,
        }),*];
    };
}

views![
    // connection and login
    RequestNetworkSettings,
    NetworkSettings,
    Login,
    ServerToClientHandshake,
    ClientToServerHandshake,
    PlayStatus,
    Disconnect,
    ResourcePacksInfo,
    ResourcePackStack,
    ResourcePackClientResponse,
    ClientCacheStatus,
    // joining
    StartGame,
    ItemRegistry,
    RequestChunkRadius,
    ChunkRadiusUpdate,
    ServerboundLoadingScreen,
    SetLocalPlayerAsInitialized,
    NetworkStackLatency,
    SetMovementAuthority,
    // movement and item use
    PlayerAuthInput,
    InventoryTransaction,
    MovePlayer,
    CorrectPlayerMovePrediction,
    Respawn,
    // world
    SetTime,
    LevelChunk,
    NetworkChunkPublisherUpdate,
    SubChunkRequest,
    SubChunkPacket,
    UpdateBlock,
    UpdateSubChunkBlocks,
    ChangeDimension,
    DimensionData,
    LevelEvent,
    // entities
    AddPlayer,
    AddEntity,
    AddItemEntity,
    RemoveEntity,
    MoveEntity,
    MoveEntityDelta,
    SetEntityMotion,
    SetEntityData,
    TakeItemEntity,
    PlayerList,
    // chat and commands
    Text,
    CommandRequest,
    CommandOutput,
    Emote,
    // vitals
    UpdateAttributes,
    MobEffect,
    EntityEvent,
    DeathInfo,
    SetHealth,
    PlayerAction,
    // items and inventory
    InventoryContent,
    InventorySlot,
    MobEquipment,
    PlayerHotbar,
    ItemStackRequest,
    ItemStackResponse,
    CompletedUsingItem,
    Animate,
    Interact,
    ContainerOpen,
    ContainerClose,
    // crafting and containers
    CraftingData,
    ContainerSetData,
    // signs and books
    BlockActorData,
    OpenSign,
    BookEdit,
    // trading
    UpdateTrade,
];
