//! World perception: the block registry of a game version ([`block`]), paletted chunk storage and
//! the decoders that fill it ([`chunk`]), and the `WorldPlugin` that keeps a bot's world current.

pub mod block;
pub mod chunk;
pub mod plugin;

pub use plugin::{BlockChanged, WorldPlugin, WorldSettings};
