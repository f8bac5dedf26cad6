//! World packets: typed views (minecraft-data field names), for the codec.

use super::{BlockPos, ByteBuf, Vec3};
use crate::codec::Packet;
use serde::{Deserialize, Serialize};

/// `vec3li`: three little-endian i32 (sub-chunk coordinates).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Vec3Li {
    /// x.
    pub x: i32,
    /// y.
    pub y: i32,
    /// z.
    pub z: i32,
}

/// `vec3i8`: a sub-chunk offset.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Vec3I8 {
    /// dx.
    pub x: i8,
    /// dy.
    pub y: i8,
    /// dz.
    pub z: i8,
}

/// `subchunk_request` (C→S): sub-chunks wanted, as offsets from `origin`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct SubChunkRequest {
    /// Dimension id.
    pub dimension: i32,
    /// Offsets from `origin` (written before it since 1.26.30).
    pub requests: Vec<Vec3I8>,
    /// Origin in sub-chunk coordinates.
    pub origin: Vec3Li,
}
packet!(SubChunkRequest, "subchunk_request");

/// One entry of `subchunk`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct SubChunkEntryView {
    /// Offset x.
    pub dx: i8,
    /// Offset y.
    pub dy: i8,
    /// Offset z.
    pub dz: i8,
    /// Result name (`success`, `success_all_air`, `chunk_not_found`, …).
    pub result: String,
    /// Sub-chunk and block entities.
    pub payload: Option<ByteBuf>,
    /// Heightmap type name.
    pub heightmap_type: String,
    /// 256 heights.
    pub heightmap: Option<ByteBuf>,
    /// Render heightmap type name.
    pub render_heightmap_type: String,
    /// 256 render heights.
    pub render_heightmap: Option<ByteBuf>,
    /// Blob id.
    pub blob_id: Option<u64>,
}

/// `subchunk` (S→C): the sub-chunks a `subchunk_request` asked for.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct SubChunkPacket {
    /// Blob cache in use.
    pub cache_enabled: bool,
    /// Dimension id.
    pub dimension: i32,
    /// Origin in sub-chunk coordinates.
    pub origin: Vec3Li,
    /// Entries.
    pub entries: Vec<SubChunkEntryView>,
}
packet!(SubChunkPacket, "subchunk");

/// `update_block`: one block changed.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct UpdateBlock {
    /// Block position.
    pub position: BlockPos,
    /// New network id.
    pub block_runtime_id: u32,
    /// 0 main layer, 1 liquid layer.
    pub layer: u32,
}
packet!(UpdateBlock, "update_block");

/// One entry of `update_subchunk_blocks`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct BlockUpdateEntry {
    /// Absolute block position.
    pub position: BlockPos,
    /// New network id.
    pub runtime_id: u32,
    /// Update flags.
    pub flags: u32,
    /// Entity of a falling-block transition (usually 0).
    pub entity_unique_id: i64,
    /// Transition name.
    pub transition_type: String,
}

/// `update_subchunk_blocks`: many changes inside one sub-chunk, per layer.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct UpdateSubChunkBlocks {
    /// A block position inside the sub-chunk.
    pub x: i32,
    /// y.
    pub y: i32,
    /// z.
    pub z: i32,
    /// Layer 0 changes.
    pub blocks: Vec<BlockUpdateEntry>,
    /// Layer 1 changes.
    pub extra: Vec<BlockUpdateEntry>,
}
packet!(UpdateSubChunkBlocks, "update_subchunk_blocks");

/// `change_dimension`: the player moves to another dimension.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct ChangeDimension {
    /// New dimension id.
    pub dimension: i32,
    /// Arrival position.
    pub position: Vec3,
    /// Whether this is a respawn.
    pub respawn: bool,
    /// Loading screen id.
    pub loading_screen_id: Option<u32>,
}
packet!(ChangeDimension, "change_dimension");

/// One dimension definition.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct DimensionDefinition {
    /// Name, e.g. `minecraft:overworld`.
    pub id: String,
    /// Height limit (exclusive).
    pub max_height: i32,
    /// Lowest y.
    pub min_height: i32,
    /// Generator name.
    pub generator: String,
    /// Dimension type.
    pub dimension_type: i32,
    /// Every other field (1.26.60's biome and clouds, …), kept for lossless re-encoding.
    #[serde(flatten)]
    pub rest: super::Rest,
}

/// `dimension_data`: data-driven dimension heights.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct DimensionData {
    /// Definitions.
    pub definitions: Vec<DimensionDefinition>,
}
packet!(DimensionData, "dimension_data");

/// Dimension id of a dimension name (`minecraft:` prefix optional).
pub fn dimension_id(name: &str) -> Option<i32> {
    match name.strip_prefix("minecraft:").unwrap_or(name) {
        "overworld" => Some(0),
        "nether" => Some(1),
        "end" | "the_end" => Some(2),
        other => other.parse().ok(),
    }
}

/// `level_event`: world effects; the bot reads weather changes (3001–3004). `event` is the
/// mapper name, or the decimal text of a number the definition does not name.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct LevelEvent {
    /// Event name, e.g. `"start_rain"`.
    pub event: String,
    /// Where it happens.
    pub position: Vec3,
    /// Event data.
    pub data: i32,
}
packet!(LevelEvent, "level_event");

impl LevelEvent {
    /// The numeric code (3001 start rain, 3002 start thunder, 3003 stop rain, 3004 stop thunder).
    pub fn code(&self) -> Option<i64> {
        match self.event.as_str() {
            "start_rain" => Some(3001),
            "start_thunder" => Some(3002),
            "stop_rain" => Some(3003),
            "stop_thunder" => Some(3004),
            other => other.parse().ok(),
        }
    }
}
