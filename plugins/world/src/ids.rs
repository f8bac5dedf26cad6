//! The bot's block id table: which registry names its blocks and how its server numbers them
//! (FNV-1a hashes or palette indices, from StartGame `block_network_ids_are_hashes`).

use std::collections::HashSet;
use std::sync::{Arc, OnceLock};

use bevy_ecs::prelude::*;
use clawcraft_network::{ClientboundPacket, Connection};
use clawcraft_protocol::codec::NbtTag;
use clawcraft_protocol::packets::StartGame;

use crate::block::{BlockInfo, BlockRegistry, BlockState, NetworkIdMap, StateIndex, StateValue};
use crate::chunk::World;

/// Game version whose block data is used when the connection's version has none embedded:
/// the default version of `data/versions.txt`.
fn fallback_version() -> &'static str {
    clawcraft_protocol::codec::Protocol::default_version().game_version
}

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
            BlockRegistry::for_version(game_version).or_else(|_| BlockRegistry::for_version(fallback_version()));
        let registry = registry.ok()?;
        let map = registry.network_id_map(hashed);
        Some(IdTable { registry, map })
    }

    /// The state a network id stands for.
    #[inline]
    pub fn state(&self, id: u32) -> Option<BlockState<'_>> {
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
        self.state(id).map_or("unknown", |s| s.name)
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
        self.ids_of(self.registry.search(query))
    }

    /// The network ids of every state of `blocks`.
    pub fn ids_of(&self, blocks: impl IntoIterator<Item = crate::block::BlockId>) -> HashSet<u32> {
        let mut ids = HashSet::new();
        for block in blocks {
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
    /// A hashed-id table of the default version, for bots that have no StartGame yet.
    /// `None` only if the embedded block data is unreadable (the registry tests catch that).
    pub fn fallback() -> Option<Arc<IdTable>> {
        static TABLE: OnceLock<Option<Arc<IdTable>>> = OnceLock::new();
        TABLE.get_or_init(|| IdTable::new(fallback_version(), true).map(Arc::new)).clone()
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
        let Some(start) = pkt.view::<StartGame>() else { continue };
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

/// Most states enumerated for one custom block; beyond it only the first value of each property
/// is used (the default state), which keeps a hostile StartGame from exhausting memory.
const MAX_CUSTOM_STATES: usize = 4096;

/// Registers StartGame's custom blocks with every combination of their declared properties, so
/// hashing servers' ids for them resolve to names and states. Palette-index servers place custom
/// states in an order not known here (see [`BlockRegistry::add_custom`]).
fn add_custom_blocks(table: &mut IdTable, start: &StartGame) {
    if start.block_properties.is_empty() {
        return;
    }
    let mut registry = (*table.registry).clone();
    for custom in &start.block_properties {
        if registry.block_named(&custom.name).is_some() {
            continue;
        }
        let states = custom_states(&custom.state.tag);
        if let Err(e) = registry.add_custom(&custom.name, states) {
            tracing::debug!(name = custom.name, error = %e, "custom block not added");
        }
    }
    table.map = registry.network_id_map(table.map.is_hashed());
    table.registry = Arc::new(registry);
}

/// The states a custom block's component NBT declares: the cartesian product of its
/// `properties` list (`{name, enum: [values]}`), or one state without properties.
pub fn custom_states(components: &NbtTag) -> Vec<Vec<(String, StateValue)>> {
    let mut axes: Vec<(String, Vec<StateValue>)> = Vec::new();
    if let Some(NbtTag::List(_, props)) = field(components, "properties") {
        for p in props {
            let Some(NbtTag::String(name)) = field(p, "name") else { continue };
            let Some(NbtTag::List(_, values)) = field(p, "enum") else { continue };
            let values: Vec<StateValue> = values.iter().filter_map(state_value).collect();
            if !values.is_empty() {
                axes.push((name.clone(), values));
            }
        }
    }
    let total = axes.iter().try_fold(1usize, |n, (_, v)| n.checked_mul(v.len()).filter(|&n| n <= MAX_CUSTOM_STATES));
    if total.is_none() {
        axes.iter_mut().for_each(|(_, v)| v.truncate(1));
    }
    let mut states: Vec<Vec<(String, StateValue)>> = vec![Vec::new()];
    for (name, values) in &axes {
        states = states
            .iter()
            .flat_map(|s| {
                values.iter().map(move |v| {
                    let mut s = s.clone();
                    s.push((name.clone(), v.clone()));
                    s
                })
            })
            .collect();
    }
    states
}

fn field<'a>(tag: &'a NbtTag, key: &str) -> Option<&'a NbtTag> {
    match tag {
        NbtTag::Compound(entries) => entries.iter().find(|(k, _)| k == key).map(|(_, v)| v),
        _ => None,
    }
}

fn state_value(tag: &NbtTag) -> Option<StateValue> {
    match tag {
        NbtTag::String(s) => Some(StateValue::Str(s.clone())),
        NbtTag::Byte(b) => Some(StateValue::Byte(*b as u8)),
        NbtTag::Int(i) => Some(StateValue::Int(*i)),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::block::network_hash;
    use clawcraft_protocol::codec::Nbt;
    use clawcraft_protocol::packets::BlockProperty;

    fn prop(name: &str, values: Vec<NbtTag>) -> NbtTag {
        NbtTag::Compound(vec![
            ("name".into(), NbtTag::String(name.into())),
            ("enum".into(), NbtTag::List(values.first().map_or(8, NbtTag::id), values)),
        ])
    }

    #[test]
    fn custom_block_states_resolve_by_hash() {
        let components = NbtTag::Compound(vec![(
            "properties".into(),
            NbtTag::List(
                10,
                vec![
                    prop("test:lit", vec![NbtTag::Byte(0), NbtTag::Byte(1)]),
                    prop("test:color", vec![NbtTag::String("red".into()), NbtTag::String("blue".into())]),
                ],
            ),
        )]);
        assert_eq!(custom_states(&components).len(), 4);
        let start = StartGame {
            block_properties: vec![BlockProperty {
                name: "test:lamp".into(),
                state: Nbt { name: String::new(), tag: components },
            }],
            ..StartGame::default()
        };
        let mut table = IdTable::new("1.26.45", true).expect("data");
        add_custom_blocks(&mut table, &start);
        let props = vec![
            ("test:color".to_owned(), StateValue::Str("blue".into())),
            ("test:lit".to_owned(), StateValue::Byte(1)),
        ];
        let id = network_hash("test:lamp", &props);
        let state = table.state(id).expect("custom state resolves");
        assert_eq!(state.name, "test:lamp");
        assert_eq!(state.properties, props);
        assert_eq!(table.name(table.air_id().expect("air")), "minecraft:air", "vanilla ids unchanged");
    }

    #[test]
    fn huge_custom_property_sets_are_capped() {
        let many = |n: i32| prop(&format!("p{n}"), (0..100).map(NbtTag::Int).collect());
        let components = NbtTag::Compound(vec![("properties".into(), NbtTag::List(10, (0..4).map(many).collect()))]);
        assert_eq!(custom_states(&components).len(), 1, "10^8 states: only the default one");
        assert_eq!(custom_states(&NbtTag::End), vec![Vec::new()]);
    }
}
