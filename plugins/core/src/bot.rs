//! Components on a bot's entity. Every piece of per-bot state lives here rather than in a global
//! resource, so several bots can share one `App`.

use bevy_ecs::prelude::*;

use crate::math::Vec3;

/// Player eye height above the feet. The wire carries eye positions for the own player; the agent
/// always sees feet positions.
pub const EYE_HEIGHT: f64 = 1.62;

/// Marks the entity of a bot controlled by this process.
#[derive(Component, Debug, Clone)]
pub struct LocalBot {
    /// The player name the server sees.
    pub username: String,
}

/// Where the bot's connection is in its life.
#[derive(Component, Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Lifecycle {
    /// Connecting and logging in.
    #[default]
    Connecting,
    /// Logged in, receiving the world, not spawned yet.
    Joining,
    /// Spawned: input flows every tick.
    Spawned,
    /// Connection closed; the entity stays so its last state can be read.
    Disconnected,
}

/// The bot's feet position in world space.
#[derive(Component, Debug, Clone, Copy, PartialEq, Default)]
pub struct Position(pub Vec3);

/// Head rotation in degrees (Bedrock's wire unit).
#[derive(Component, Debug, Clone, Copy, PartialEq, Default)]
pub struct Rotation {
    pub yaw: f32,
    pub pitch: f32,
}

/// Identifiers the server gave the bot in StartGame.
#[derive(Component, Debug, Clone, Copy, PartialEq, Eq)]
pub struct EntityIds {
    pub runtime_id: u64,
    pub unique_id: i64,
}

/// Facts from StartGame that other plugins read.
#[derive(Component, Debug, Clone, PartialEq, Default)]
pub struct WorldInfo {
    /// `overworld`, `nether`, `the_end`.
    pub dimension: String,
    /// The player's game mode name, e.g. `survival`.
    pub gamemode: String,
    pub world_name: String,
    pub block_network_ids_are_hashes: bool,
    pub server_authoritative_block_breaking: bool,
    pub spawn_time_ms: Option<u64>,
}

/// Counters a bot keeps for self-diagnosis (sent inputs, corrections, …).
#[derive(Component, Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct BotStats {
    pub inputs_sent: u64,
    pub corrections: u64,
    pub teleports: u64,
    pub packets_received: u64,
    pub decode_errors: u64,
}

/// Finds the one bot when a command doesn't name one. With several bots a front end will name
/// the entity; for now the first `LocalBot` answers.
pub fn first_bot(world: &mut World) -> Option<Entity> {
    let mut q = world.query_filtered::<Entity, With<LocalBot>>();
    q.iter(world).next()
}

/// What the bot carries, as an inventory plugin last knew it — the interface through which
/// other plugins (skill verifiers: `inventory_delta`, `inventory_at_least`, `equipped`) read the
/// inventory without depending on the plugin that tracks it. Absent until such a plugin inserts
/// it on the bot; readers treat "absent" as "unknown", never as "empty".
#[derive(Component, Debug, Clone, Default, PartialEq)]
pub struct InventoryView {
    /// Every stack in the bot's own inventory (hotbar, main, armor, offhand), in slot order.
    pub stacks: Vec<ItemStackView>,
    /// What is equipped, by slot name: `hand` (the selected hotbar stack), `offhand`, `head`,
    /// `chest`, `legs`, `feet`. Empty slots are left out.
    pub equipped: std::collections::BTreeMap<String, ItemStackView>,
}

/// One stack in an [`InventoryView`].
#[derive(Debug, Clone, PartialEq)]
pub struct ItemStackView {
    /// Item name with namespace, e.g. `minecraft:oak_log`.
    pub name: String,
    pub count: u32,
    /// Slot index in the bot's inventory window.
    pub slot: u32,
}

impl InventoryView {
    /// Total count of an item across stacks (`minecraft:` optional, case-insensitive).
    pub fn count(&self, item: &str) -> u64 {
        self.stacks.iter().filter(|s| same_item(&s.name, item)).map(|s| u64::from(s.count)).sum()
    }
}

/// Whether two item or block names are the same, ignoring case and a `minecraft:` prefix.
pub fn same_item(a: &str, b: &str) -> bool {
    let strip = |s: &str| {
        let s = s.trim();
        s.strip_prefix("minecraft:").unwrap_or(s).to_ascii_lowercase()
    };
    strip(a) == strip(b)
}
