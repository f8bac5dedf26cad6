//! Chunk storage and decoding.
//!
//! - [`storage`]: [`PalettedStorage`], 4096 network ids as a palette plus minimally packed indices.
//! - [`wire`]: pure decoders of the network forms (sub-chunks, LevelChunk payloads, SubChunk
//!   responses) and matching encoders for tests.
//! - [`world`]: [`World`], a bot's columns with block lookup, updates and LRU eviction.
//! - [`shared`]: [`BlockStore`], the sub-chunks of every bot, each distinct content held once.
//! - [`packets`]: typed views of the world packets for the codec.
//!
//! Storage keeps raw network ids (u32); naming them is the block registry's job.

pub mod packets;
pub mod shared;
pub mod storage;
pub mod wire;
pub mod world;

pub use shared::{BlockStore, SharedOutcome, SharedSubChunk, StoreStats};
pub use storage::PalettedStorage;
pub use wire::{BlockEntity, ColumnPayload, SubChunkOutcome, WireSubChunk, sub_chunk_outcome};
pub use world::{BlockLookup, ChunkColumn, ColumnMode, DimensionHeights, SubChunk, World};
