//! World perception: the block registry of a game version ([`block`]), paletted chunk storage and
//! the decoders that fill it ([`chunk`]), the `WorldPlugin` that keeps a bot's world current, the
//! bot's id table ([`ids`]), the signs' texts ([`signs`]), block queries ([`query`], [`raycast`]) with their agent
//! [`commands`], and the world [`events`].

pub mod block;
pub mod chunk;
pub mod commands;
pub mod events;
pub mod ids;
pub mod plugin;
pub mod query;
pub mod raycast;
pub mod signs;

pub use plugin::{BlockChanged, WorldPlugin, WorldSettings};
