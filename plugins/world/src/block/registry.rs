//! [`BlockRegistry`]: all block states of one game version and lookups over them.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use super::data::{self, BlockFile};
use super::{
    BlockId, BlockInfo, BlockState, HarvestTools, NetworkIdMap, ShapeClass, StateIndex, StateValue, network_hash,
};

/// The name of the air block, whose state every empty sub-chunk slot holds.
const AIR: &str = "minecraft:air";

/// Why a registry could not be built.
#[derive(Debug, thiserror::Error)]
pub enum BlockDataError {
    /// No block data is embedded for this game version.
    #[error("no block data embedded for game version {0}")]
    UnknownVersion(String),
    /// The embedded file is not valid JSON of the expected shape.
    #[error("block data is malformed: {0}")]
    Parse(#[from] serde_json::Error),
    /// The file parsed but its content is inconsistent.
    #[error("block data is invalid: {0}")]
    Invalid(String),
}

/// Every block and block state of one game version, in palette order.
///
/// Build once per version with [`BlockRegistry::for_version`] (cached, shared via `Arc`); derive a
/// [`NetworkIdMap`] per connection with [`BlockRegistry::network_id_map`].
#[derive(Debug, Clone)]
pub struct BlockRegistry {
    game_version: String,
    blocks: Vec<BlockInfo>,
    states: Vec<BlockState>,
    /// Network hash of each state, precomputed because every connection needs them.
    hashes: Vec<u32>,
    by_name: HashMap<Arc<str>, BlockId>,
    air: StateIndex,
}

impl BlockRegistry {
    /// The registry of `game_version` (e.g. `"1.26.45"`), built from embedded data on first use
    /// and shared afterwards.
    pub fn for_version(game_version: &str) -> Result<Arc<Self>, BlockDataError> {
        static CACHE: OnceLock<Mutex<HashMap<String, Arc<BlockRegistry>>>> = OnceLock::new();
        let cache = CACHE.get_or_init(Default::default);
        // A poisoned lock only means another builder panicked; the map itself is still valid.
        let mut cache = cache.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        if let Some(reg) = cache.get(game_version) {
            return Ok(Arc::clone(reg));
        }
        let text = data::EMBEDDED
            .iter()
            .find(|(v, _)| *v == game_version)
            .map(|(_, text)| *text)
            .ok_or_else(|| BlockDataError::UnknownVersion(game_version.to_owned()))?;
        let reg = Arc::new(Self::from_json(text)?);
        cache.insert(game_version.to_owned(), Arc::clone(&reg));
        Ok(reg)
    }

    /// Game versions with embedded block data.
    pub fn versions() -> impl Iterator<Item = &'static str> {
        data::EMBEDDED.iter().map(|(v, _)| *v)
    }

    /// Builds a registry from the text of a `blocks.json` (see `data/gen-blocks.js`).
    pub fn from_json(text: &str) -> Result<Self, BlockDataError> {
        let file: BlockFile = serde_json::from_str(text)?;
        if file.format != data::FORMAT {
            return Err(BlockDataError::Invalid(format!("format {} (expected {})", file.format, data::FORMAT)));
        }
        let mut reg = Self {
            game_version: file.game_version,
            blocks: Vec::with_capacity(file.blocks.len()),
            states: Vec::new(),
            hashes: Vec::new(),
            by_name: HashMap::with_capacity(file.blocks.len()),
            air: StateIndex(0),
        };
        for raw in file.blocks {
            let harvest_tools = HarvestTools { required: raw.tools, min_tier: raw.tier, preferred: raw.preferred };
            let states = raw
                .states
                .into_iter()
                .map(data::state_properties)
                .collect::<Result<Vec<_>, _>>()
                .map_err(|e| BlockDataError::Invalid(format!("{}: {e}", raw.name)))?;
            reg.push_block(raw.name, raw.hardness, harvest_tools, raw.shape, raw.liquid, states)?;
        }
        reg.air =
            reg.states_named(AIR).next().ok_or_else(|| BlockDataError::Invalid("no minecraft:air state".to_owned()))?;
        Ok(reg)
    }

    /// Appends a block and its states; shared by loading and [`BlockRegistry::add_custom`].
    fn push_block(
        &mut self,
        name: String,
        hardness: f32,
        harvest_tools: HarvestTools,
        shape: ShapeClass,
        liquid: bool,
        states: Vec<Vec<(String, StateValue)>>,
    ) -> Result<BlockId, BlockDataError> {
        let name: Arc<str> = name.into();
        if self.by_name.contains_key(&name) {
            return Err(BlockDataError::Invalid(format!("duplicate block {name}")));
        }
        if states.is_empty() {
            return Err(BlockDataError::Invalid(format!("block {name} has no states")));
        }
        let too_many = || BlockDataError::Invalid("more than u32::MAX states".to_owned());
        let id = BlockId(u32::try_from(self.blocks.len()).map_err(|_| too_many())?);
        let first_state = StateIndex(u32::try_from(self.states.len()).map_err(|_| too_many())?);
        let state_count = u32::try_from(states.len()).map_err(|_| too_many())?;
        for properties in states {
            self.hashes.push(network_hash(&name, &properties));
            self.states.push(BlockState { name: Arc::clone(&name), properties, block: id });
        }
        self.by_name.insert(Arc::clone(&name), id);
        self.blocks.push(BlockInfo { name, hardness, harvest_tools, shape, liquid, first_state, state_count });
        Ok(id)
    }

    /// Adds a server-defined block (StartGame `block_properties`) with the given states, appended
    /// after the vanilla ones. Its facts are unknown, so it is recorded as a breakable
    /// ([`ShapeClass::Full`], hardness 0, any tool) block. Properties are sorted here.
    ///
    /// Hash ids of custom states are exact; where a palette-index server places custom states is
    /// not known (appended here), so palette mode with custom blocks is a guess.
    /// Use on a clone of a shared registry: `let mut reg = (*shared).clone();`.
    pub fn add_custom(
        &mut self,
        name: &str,
        states: Vec<Vec<(String, StateValue)>>,
    ) -> Result<BlockId, BlockDataError> {
        let states = states
            .into_iter()
            .map(|mut props| {
                props.sort_unstable_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
                props
            })
            .collect();
        self.push_block(name.to_owned(), 0.0, HarvestTools::default(), ShapeClass::Full, false, states)
    }

    /// The game version this registry describes.
    pub fn game_version(&self) -> &str {
        &self.game_version
    }

    /// All blocks, in order of their first state.
    pub fn blocks(&self) -> &[BlockInfo] {
        &self.blocks
    }

    /// All states in palette order; a state's position is its [`StateIndex`].
    pub fn states(&self) -> &[BlockState] {
        &self.states
    }

    /// The state at `index`.
    #[inline]
    pub fn state(&self, index: StateIndex) -> Option<&BlockState> {
        self.states.get(index.index())
    }

    /// The block with id `id`.
    #[inline]
    pub fn block(&self, id: BlockId) -> Option<&BlockInfo> {
        self.blocks.get(id.index())
    }

    /// The block a state belongs to.
    #[inline]
    pub fn block_of(&self, index: StateIndex) -> Option<&BlockInfo> {
        self.state(index).and_then(|s| self.block(s.block))
    }

    /// The block named `name`; the `minecraft:` namespace may be omitted.
    pub fn block_named(&self, name: &str) -> Option<&BlockInfo> {
        self.block_id(name).and_then(|id| self.block(id))
    }

    /// The id of the block named `name`; the `minecraft:` namespace may be omitted.
    pub fn block_id(&self, name: &str) -> Option<BlockId> {
        if let Some(id) = self.by_name.get(name) {
            return Some(*id);
        }
        // Bare names are vanilla blocks; only allocate when the fast path missed.
        (!name.contains(':')).then(|| self.by_name.get(format!("minecraft:{name}").as_str()).copied()).flatten()
    }

    /// All states of the block named `name` (namespace optional); empty if there is no such block.
    pub fn states_named(&self, name: &str) -> impl Iterator<Item = StateIndex> + use<> {
        let block = self.block_named(name);
        let range = block.map_or(0..0, |b| b.first_state.0..b.first_state.0 + b.state_count);
        range.map(StateIndex)
    }

    /// The first state of block `name` whose properties include every `(key, value)` in `props`
    /// (other properties may have any value).
    pub fn state_with(&self, name: &str, props: &[(&str, StateValue)]) -> Option<StateIndex> {
        self.states_named(name).find(|&i| {
            let state = &self.states[i.index()];
            props.iter().all(|(k, v)| state.property(k) == Some(v))
        })
    }

    /// The state with exactly these properties (any order), as a hash lookup would find it.
    pub fn state_exact(&self, name: &str, props: &[(String, StateValue)]) -> Option<StateIndex> {
        self.states_named(name).find(|&i| {
            let state = &self.states[i.index()];
            state.properties.len() == props.len() && props.iter().all(|(k, v)| state.property(k) == Some(v))
        })
    }

    /// Blocks whose name contains `query`, case-insensitively; a leading `minecraft:` in the query
    /// is ignored, so `"Oak_Log"`, `"minecraft:oak_log"` and `"log"` all match `minecraft:oak_log`.
    /// An exact name match comes first, then the rest in registry order.
    pub fn search(&self, query: &str) -> Vec<BlockId> {
        let query = query.trim().to_ascii_lowercase();
        let query = query.strip_prefix("minecraft:").unwrap_or(&query);
        let mut hits: Vec<BlockId> = Vec::new();
        for (id, block) in (0u32..).map(BlockId).zip(&self.blocks) {
            let name = block.name.to_ascii_lowercase();
            let short = name.strip_prefix("minecraft:").unwrap_or(&name);
            if short.contains(query) {
                if short == query { hits.insert(0, id) } else { hits.push(id) }
            }
        }
        hits
    }

    /// The air state.
    #[inline]
    pub fn air(&self) -> StateIndex {
        self.air
    }

    /// Whether `index` is air.
    #[inline]
    pub fn is_air(&self, index: StateIndex) -> bool {
        index == self.air
    }

    /// The network hash of a state (FNV-1a-32, see [`network_hash`]).
    pub fn network_hash_of(&self, index: StateIndex) -> Option<u32> {
        self.hashes.get(index.index()).copied()
    }

    /// The id map for a connection: `hashed` = StartGame `block_network_ids_are_hashes`
    /// (true on BDS by default); otherwise ids are indices into this registry's state list.
    pub fn network_id_map(&self, hashed: bool) -> NetworkIdMap {
        if hashed { NetworkIdMap::hashed(self.hashes.clone()) } else { NetworkIdMap::palette(self.states.len()) }
    }
}
