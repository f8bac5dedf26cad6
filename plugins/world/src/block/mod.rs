//! The block registry of a game version: every block state in palette order with the facts a bot
//! needs about it (hardness, harvest tools, a coarse shape class for path finding), and the
//! translation of the block ids servers send (FNV-1a hashes or palette indices).
//!
//! Data comes from `data/bedrock/<version>/blocks.json` (generated from minecraft-data by
//! `data/gen-blocks.js`) embedded at build time.

mod data;
mod hash;
mod network;
mod registry;
#[cfg(test)]
mod tests;

use std::sync::Arc;

use serde::Deserialize;

pub use hash::network_hash;
pub use network::NetworkIdMap;
pub use registry::{BlockDataError, BlockRegistry, Properties};

/// Position of a block state in a registry's state list (its palette index).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct StateIndex(pub u32);

impl StateIndex {
    /// The index as a `usize`, for slice access.
    #[inline]
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// Position of a block (all states sharing one name) in a registry's block list.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct BlockId(pub u32);

impl BlockId {
    /// The index as a `usize`, for slice access.
    #[inline]
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// A block state property value, typed like its NBT tag (the type changes the network hash).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum StateValue {
    /// TAG_String, e.g. `pillar_axis = "y"`.
    Str(String),
    /// TAG_Byte; Bedrock uses it for boolean flags such as `open_bit`.
    Byte(u8),
    /// TAG_Int, e.g. `facing_direction = 2`.
    Int(i32),
}

impl StateValue {
    /// The value as a flag, for byte properties (`None` for other types).
    pub fn as_bool(&self) -> Option<bool> {
        match self {
            Self::Byte(b) => Some(*b != 0),
            _ => None,
        }
    }
}

/// One block state: a block name plus one value for each of its properties. A view into its
/// registry (which stores states compactly: interned properties, no per-state strings).
#[derive(Debug, Clone, Copy)]
pub struct BlockState<'a> {
    /// Namespaced name, e.g. `minecraft:oak_stairs`.
    pub name: &'a str,
    /// Properties sorted by key (bytewise), the order the network hash uses.
    pub properties: Properties<'a>,
    /// The block this state belongs to.
    pub block: BlockId,
}

impl<'a> BlockState<'a> {
    /// The value of property `key`, if the state has it.
    pub fn property(&self, key: &str) -> Option<&'a StateValue> {
        self.properties.get(key)
    }

    /// Whether a door, trapdoor or fence gate state is open (`open_bit`); `false` for blocks
    /// without that property. Navigation needs this because the shape class is per block.
    pub fn is_open(&self) -> bool {
        self.property("open_bit").and_then(StateValue::as_bool).unwrap_or(false)
    }
}

/// What the navigator needs to know about a block's collision, per block (not per state).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ShapeClass {
    /// Nothing there.
    Air,
    /// A full unit cube in every state.
    Full,
    /// A half block (top or bottom); double slabs are [`ShapeClass::Full`].
    Slab,
    /// Stairs: climbable without jumping.
    Stairs,
    /// Fences, fence gates, walls, border blocks: taller than one block, cannot be jumped over.
    FenceWall,
    /// Doors: two blocks tall, passable only when open (see [`BlockState::is_open`]).
    Door,
    /// Trapdoors: a thin slab, or a thin wall when open.
    Trapdoor,
    /// Ladders, vines and scaffolding: climbable.
    LadderVineScaffolding,
    /// Water (and bubble columns): swimmable. Lava is [`ShapeClass::Hazard`].
    Liquid,
    /// Hurts, traps or teleports: lava, fire, cactus, magma, berry bushes, wither roses,
    /// campfires, powder snow, pointed dripstone, cobweb, portals.
    Hazard,
    /// No collision: flowers, grass, torches, rails, buttons, signs, crops, ...
    Passable,
    /// Some other partial collision: chests, carpets, snow layers, panes, beds, soul sand, ...
    OtherPartial,
}

impl ShapeClass {
    /// Has a collision box in its usual state, so it blocks movement and can be stood on.
    /// Doors and trapdoors are neither solid nor passable: it depends on [`BlockState::is_open`].
    pub fn is_solid(self) -> bool {
        matches!(self, Self::Full | Self::Slab | Self::Stairs | Self::FenceWall | Self::OtherPartial)
    }

    /// A body can stand inside it: air, no-collision blocks and climbables.
    pub fn is_passable(self) -> bool {
        matches!(self, Self::Air | Self::Passable | Self::LadderVineScaffolding)
    }

    /// Water-like. Lava is a hazard instead; use [`BlockInfo::is_liquid`] to include it.
    pub fn is_liquid(self) -> bool {
        self == Self::Liquid
    }

    /// Must be avoided by a path.
    pub fn is_hazard(self) -> bool {
        self == Self::Hazard
    }
}

/// A kind of tool.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ToolKind {
    /// Pickaxe.
    Pickaxe,
    /// Axe.
    Axe,
    /// Shovel.
    Shovel,
    /// Hoe.
    Hoe,
    /// Sword.
    Sword,
    /// Shears (no tier).
    Shears,
}

/// Tool material tiers in harvest-level order; golden tools count as wooden, copper as stone.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ToolTier {
    /// Wooden (and golden).
    Wooden,
    /// Stone (and copper).
    Stone,
    /// Iron.
    Iron,
    /// Diamond.
    Diamond,
    /// Netherite.
    Netherite,
}

/// Which tools make a block drop something, and which mine it faster.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct HarvestTools {
    /// One of these is required for drops; empty = any tool or bare hands.
    pub required: Vec<ToolKind>,
    /// Lowest tier of a required tool that works (`None` when nothing is required or only
    /// shears qualify).
    pub min_tier: Option<ToolTier>,
    /// Tools that mine the block faster (from its material), possibly empty.
    pub preferred: Vec<ToolKind>,
}

impl HarvestTools {
    /// Whether any tool (or a bare hand) harvests the block.
    pub fn is_any(&self) -> bool {
        self.required.is_empty()
    }

    /// Whether `tool` (kind and tier; `None` tier for shears) makes the block drop.
    /// `None` = bare hand.
    pub fn can_harvest(&self, tool: Option<(ToolKind, Option<ToolTier>)>) -> bool {
        if self.is_any() {
            return true;
        }
        let Some((kind, tier)) = tool else { return false };
        if !self.required.contains(&kind) {
            return false;
        }
        // Shears have no tier and satisfy any requirement they are listed for.
        kind == ToolKind::Shears || self.min_tier.is_none_or(|min| tier.is_some_and(|t| t >= min))
    }
}

/// Facts about a block (shared by all its states).
#[derive(Debug, Clone, PartialEq)]
pub struct BlockInfo {
    /// Namespaced name, e.g. `minecraft:stone`.
    pub name: Arc<str>,
    /// Destroy time; −1 = unbreakable.
    pub hardness: f32,
    /// Tools that harvest it.
    pub harvest_tools: HarvestTools,
    /// Coarse collision class for path finding.
    pub shape: ShapeClass,
    /// A fluid (water, lava, their flowing forms, bubble columns), whatever its shape class.
    pub liquid: bool,
    /// Index of the block's first state.
    pub first_state: StateIndex,
    /// Number of states; they are contiguous from `first_state`.
    pub state_count: u32,
}

impl BlockInfo {
    /// Whether the block is a fluid, lava included.
    pub fn is_liquid(&self) -> bool {
        self.liquid
    }

    /// Whether the block cannot be broken in survival.
    pub fn is_unbreakable(&self) -> bool {
        self.hardness < 0.0
    }

    /// The indices of all states of this block.
    pub fn states(&self) -> impl Iterator<Item = StateIndex> + use<> {
        (self.first_state.0..self.first_state.0 + self.state_count).map(StateIndex)
    }
}
