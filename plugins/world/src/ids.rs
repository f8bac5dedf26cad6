//! The bot's block id table: which registry names its blocks and how its server numbers them
//! (FNV-1a hashes or palette indices, from StartGame `block_network_ids_are_hashes`).

use std::collections::HashSet;
use std::sync::{Arc, OnceLock};

use bevy_ecs::prelude::*;
use clawcraft_network::{ClientboundPacket, Connection};
use clawcraft_protocol::packets::StartGame;

use crate::block::{BlockInfo, BlockRegistry, BlockState, NetworkIdMap, StateIndex};
use crate::chunk::World;

/// Game version whose block data is used when the connection's version has none embedded.
const FALLBACK_VERSION: &str = "1.26.45";

/// A registry plus the id map of one connection.
#[derive(Debug)]
pub struct IdTable {
    /// Block facts and states.
    pub registry: Arc<BlockRegistry>,
    /// Network id ↔ state index.
    pub map: NetworkIdMap,
}

impl IdTable {
    /// The table of `game_version` (falling back to the newest embedded data) in the given mode.
    pub fn new(game_version: &str, hashed: bool) -> Option<Self> {
        let registry =
            BlockRegistry::for_version(game_version).or_else(|_| BlockRegistry::for_version(FALLBACK_VERSION));
        let registry = registry.ok()?;
        let map = registry.network_id_map(hashed);
        Some(IdTable { registry, map })
    }

    /// The state a network id stands for.
    #[inline]
    pub fn state(&self, id: u32) -> Option<&BlockState> {
        self.map.state(id).and_then(|s| self.registry.state(s))
    }

    /// The block (shared facts) a network id belongs to.
    #[inline]
    pub fn info(&self, id: u32) -> Option<&BlockInfo> {
        self.map.state(id).and_then(|s| self.registry.block_of(s))
    }

    /// The block name of a network id, `minecraft:`-prefixed; `unknown` for ids the registry
    /// lacks (custom blocks of a palette-index server, or a wrong mode).
    pub fn name(&self, id: u32) -> &str {
        self.state(id).map_or("unknown", |s| &s.name)
    }

    /// Whether `id` is air (never reported as a block).
    pub fn is_air(&self, id: u32) -> bool {
        self.map.state(id).is_some_and(|s| self.registry.is_air(s))
    }

    /// The network id of air, for [`World::set_air_id`].
    pub fn air_id(&self) -> Option<u32> {
        self.map.network_id(self.registry.air())
    }

    /// Network ids of every state of every block whose name contains `query` (see
    /// [`BlockRegistry::search`]), for palette checks.
    pub fn ids_matching(&self, query: &str) -> HashSet<u32> {
        let mut ids = HashSet::new();
        for block in self.registry.search(query) {
            let Some(info) = self.registry.block(block) else { continue };
            ids.extend(info.states().filter_map(|s: StateIndex| self.map.network_id(s)));
        }
        ids
    }
}

/// The [`IdTable`] of a bot, set from StartGame.
#[derive(Component, Debug, Clone)]
pub struct BlockIds(pub Arc<IdTable>);

impl BlockIds {
    /// A hashed-id table of the newest embedded version, for bots that have no StartGame yet.
    /// `None` only if the embedded block data is unreadable (the registry tests catch that).
    pub fn fallback() -> Option<Arc<IdTable>> {
        static TABLE: OnceLock<Option<Arc<IdTable>>> = OnceLock::new();
        TABLE.get_or_init(|| IdTable::new(FALLBACK_VERSION, true).map(Arc::new)).clone()
    }
}

/// Builds the bot's [`BlockIds`] from StartGame and sets its world's air id, so empty
/// sub-chunks are filled with the id this server uses for air. Runs before the chunk handler,
/// and StartGame precedes every chunk.
pub fn wire_block_ids(
    mut commands: Commands<'_, '_>,
    mut packets: MessageReader<'_, '_, ClientboundPacket>,
    mut bots: Query<'_, '_, (&Connection, Option<&mut World>)>,
) {
    for pkt in packets.read() {
        let Some(start) = pkt.decode::<StartGame>() else { continue };
        let Ok((conn, world)) = bots.get_mut(pkt.bot) else { continue };
        let version = conn.protocol().info().game_version;
        let Some(mut table) = IdTable::new(version, start.block_network_ids_are_hashes) else {
            tracing::error!(version, "no block data: block names are unavailable");
            continue;
        };
        add_custom_blocks(&mut table, &start);
        let air = table.air_id();
        if let (Some(mut world), Some(air)) = (world, air) {
            world.set_air_id(air);
        } else if let Some(air) = air {
            let mut w = World::default();
            w.set_air_id(air);
            commands.entity(pkt.bot).insert(w);
        }
        commands.entity(pkt.bot).insert(BlockIds(Arc::new(table)));
    }
}

/// Registers StartGame's custom blocks with a single state each (their property lists are not
/// decoded), so hashing servers at least name their default state.
fn add_custom_blocks(table: &mut IdTable, start: &StartGame) {
    if start.block_properties.is_empty() {
        return;
    }
    let mut registry = (*table.registry).clone();
    for custom in &start.block_properties {
        if registry.block_named(&custom.name).is_some() {
            continue;
        }
        if let Err(e) = registry.add_custom(&custom.name, vec![Vec::new()]) {
            tracing::debug!(name = custom.name, error = %e, "custom block not added");
        }
    }
    table.map = registry.network_id_map(table.map.is_hashed());
    table.registry = Arc::new(registry);
}
