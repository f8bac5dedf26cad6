//! Block facts for the physics step (and the navigator), per block state of a bot's registry:
//! [`BlockPhysics`] from the block's name and state, collision boxes from the version's
//! [`ShapeTable`]. [`WorldView`] reads a bot's chunk storage through them.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use clawcraft_physics::{Aabb, Block, BlockPhysics, ShapeTable};
use clawcraft_world::block::{BlockRegistry, StateIndex, StateValue};
use clawcraft_world::chunk::{BlockLookup, World};
use clawcraft_world::ids::IdTable;

/// One unit cube: the boxes of blocks whose shape is not known (custom blocks) and of cells
/// without data, which the bot must not walk or fall into.
pub const FULL_CUBE: [Aabb; 1] = [Aabb::new(0.0, 0.0, 0.0, 1.0, 1.0, 1.0)];

/// Game version whose shapes are used when the connection's version has none: the default
/// version of `data/versions.txt`.
fn fallback_version() -> &'static str {
    clawcraft_protocol::codec::Protocol::default_version().game_version
}

/// Tables by (game version, state count).
type TableCache = HashMap<(String, usize), Arc<BlockTable>>;

/// Physics facts of every state of one registry, by [`StateIndex`].
///
/// Stored compactly: the few dozen distinct [`BlockPhysics`] values once, and a `u16` index
/// into them per state (2 bytes a state instead of a whole record).
#[derive(Debug)]
pub struct BlockTable {
    /// Every distinct value, in order of first appearance.
    kinds: Vec<BlockPhysics>,
    /// Index into `kinds` of each state, by [`StateIndex`].
    physics: Vec<u16>,
    shapes: Option<Arc<ShapeTable>>,
    /// States the shape table knows (vanilla); later ones are custom blocks.
    shaped_states: usize,
}

impl BlockTable {
    /// The table of a registry, built once per (version, state count) and shared.
    pub fn of(registry: &BlockRegistry) -> Arc<Self> {
        static CACHE: OnceLock<Mutex<TableCache>> = OnceLock::new();
        let key = (registry.game_version().to_owned(), registry.states().len());
        // A poisoned lock only means another builder panicked; the map is still valid.
        let mut cache = CACHE.get_or_init(Default::default).lock().unwrap_or_else(|p| p.into_inner());
        if let Some(t) = cache.get(&key) {
            return Arc::clone(t);
        }
        let table = Arc::new(Self::build(registry));
        cache.insert(key, Arc::clone(&table));
        table
    }

    fn build(registry: &BlockRegistry) -> Self {
        let mut kinds: Vec<BlockPhysics> = Vec::new();
        let mut physics = Vec::with_capacity(registry.state_count());
        for s in registry.states() {
            let p = BlockPhysics::of(s.name, |key| match s.property(key)? {
                StateValue::Int(i) => Some(*i),
                StateValue::Byte(b) => Some(i32::from(*b)),
                StateValue::Str(_) => None,
            });
            let kind = match kinds.iter().rposition(|k| *k == p) {
                Some(i) => i,
                None => {
                    kinds.push(p);
                    kinds.len() - 1
                }
            };
            // Far fewer than 65 536 distinct values exist (a few dozen); past that, a state
            // reads as a plain block.
            physics.push(u16::try_from(kind).unwrap_or(u16::MAX));
        }
        kinds.shrink_to_fit();
        let shapes = ShapeTable::for_version(registry.game_version())
            .or_else(|_| ShapeTable::for_version(fallback_version()))
            .ok();
        if shapes.is_none() {
            tracing::error!(version = registry.game_version(), "no collision shapes: every block is a cube");
        }
        let shaped_states = shapes.as_ref().map_or(0, |s| s.state_count());
        Self { kinds, physics, shapes, shaped_states }
    }

    /// The physics of a state ([`BlockPhysics::PLAIN`] for one out of range).
    #[inline]
    fn physics(&self, i: usize) -> BlockPhysics {
        self.physics.get(i).and_then(|&k| self.kinds.get(usize::from(k))).copied().unwrap_or(BlockPhysics::PLAIN)
    }

    /// The block of a state: its physics and collision boxes (block-local).
    #[inline]
    pub fn block(&self, state: StateIndex) -> Block<'_> {
        let i = state.index();
        let physics = self.physics(i);
        if physics.air {
            return Block::AIR;
        }
        let shapes: &[Aabb] = match &self.shapes {
            Some(table) if i < self.shaped_states => table.shapes(state.0),
            _ => &FULL_CUBE,
        };
        Block { physics, shapes }
    }
}

/// A bot's world as the physics engine (and the navigator) reads it. Cells without data are
/// solid cubes, so neither walks into the unknown; cells above and below the dimension are air.
pub struct WorldView<'a> {
    pub world: &'a World,
    pub ids: &'a IdTable,
    pub table: &'a BlockTable,
    min_y: i32,
    max_y: i32,
}

impl<'a> WorldView<'a> {
    pub fn new(world: &'a World, ids: &'a IdTable, table: &'a BlockTable) -> Self {
        let h = world.heights();
        Self { world, ids, table, min_y: h.min_y, max_y: h.max_y }
    }

    /// The block of a network id (layer 0), with `liquid` (layer 1) folded in as waterlogging.
    #[inline]
    pub fn block_of(&self, id: u32, liquid: Option<u32>) -> Block<'a> {
        let Some(state) = self.ids.map.state(id) else {
            return Block { physics: BlockPhysics::PLAIN, shapes: &FULL_CUBE };
        };
        let mut block = self.table.block(state);
        if let Some(l) = liquid
            && let Some(ls) = self.ids.map.state(l)
        {
            let lp = self.table.block(ls).physics;
            if lp.is_water() {
                block.physics = block.physics.waterlogged(lp.liquid_depth);
            }
        }
        block
    }

    /// Whether the cell has block data.
    pub fn is_loaded(&self, x: i32, y: i32, z: i32) -> bool {
        matches!(self.world.get_block(x, y, z), BlockLookup::Loaded(..))
    }
}

impl clawcraft_physics::World for WorldView<'_> {
    #[inline]
    fn block(&self, x: i32, y: i32, z: i32) -> Block<'_> {
        if y < self.min_y || y >= self.max_y {
            return Block::AIR;
        }
        match self.world.get_block(x, y, z) {
            BlockLookup::Loaded(id, liquid) => self.block_of(id, liquid),
            BlockLookup::Unloaded => Block { physics: BlockPhysics::PLAIN, shapes: &FULL_CUBE },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clawcraft_physics::{Climb, Liquid, Stairs};

    /// The physics of a state computed directly, as the table did before it was compacted.
    fn direct(registry: &BlockRegistry, state: StateIndex) -> BlockPhysics {
        let s = registry.state(state).expect("state");
        BlockPhysics::of(s.name, |key| match s.property(key)? {
            StateValue::Int(i) => Some(*i),
            StateValue::Byte(b) => Some(i32::from(*b)),
            StateValue::Str(_) => None,
        })
    }

    #[test]
    fn the_compact_table_answers_as_the_per_state_records_did() {
        for version in BlockRegistry::versions() {
            let registry = BlockRegistry::for_version(version).expect("registry");
            let table = BlockTable::of(&registry);
            assert!(table.kinds.len() < 256, "{version}: {} distinct values", table.kinds.len());
            assert_eq!(table.physics.len(), registry.state_count());
            for i in 0..registry.state_count() {
                let state = StateIndex(i as u32);
                let expected = direct(&registry, state);
                let block = table.block(state);
                if expected.air {
                    assert!(block.physics.air && block.shapes.is_empty(), "{version} state {i}");
                } else {
                    assert_eq!(block.physics, expected, "{version} state {i}");
                }
            }
            // Out of range: a plain full cube (a custom block beyond the table).
            let beyond = table.block(StateIndex(registry.state_count() as u32 + 5));
            assert_eq!(beyond.physics, BlockPhysics::PLAIN);
        }
    }

    #[test]
    fn sample_states_have_the_facts_of_their_blocks() {
        let registry = BlockRegistry::for_version("1.26.45").expect("registry");
        let table = BlockTable::of(&registry);
        let first = |name: &str| table.block(registry.states_named(name).next().expect(name));
        assert_eq!(first("minecraft:ice").physics.friction, 0.98);
        assert!(first("minecraft:air").physics.air);
        assert_eq!(first("minecraft:ladder").physics.climb, Climb::Ladder);
        assert!(first("minecraft:stone").is_full_cube());
        let water = registry
            .state_with("minecraft:water", &[("liquid_depth", StateValue::Int(3))])
            .map(|s| table.block(s).physics)
            .expect("water depth 3");
        assert_eq!((water.liquid, water.liquid_depth), (Liquid::Water, 3));
        let stairs = registry
            .state_with(
                "minecraft:oak_stairs",
                &[("weirdo_direction", StateValue::Int(3)), ("upside_down_bit", StateValue::Byte(1))],
            )
            .map(|s| table.block(s).physics.stairs)
            .expect("oak stairs");
        assert_eq!(stairs, Some(Stairs { facing: (0, -1), upside_down: true }));
    }
}
