//! [`BlockRegistry`]: all block states of one game version and lookups over them.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use super::data;
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
///
/// Stored compactly (about 1 MB for 17 500 states rather than 11 MB as one `Vec` of strings per
/// state): a state is its block plus a run of ids into one table of distinct `(key, value)`
/// properties, and its name is its block's.
#[derive(Debug, Clone)]
pub struct BlockRegistry {
    game_version: String,
    blocks: Vec<BlockInfo>,
    states: Vec<StateRec>,
    /// Property ids of every state, run after run (see [`StateRec`]).
    props: Vec<u16>,
    /// Every distinct `(key, value)` property.
    pairs: Vec<(Box<str>, StateValue)>,
    /// Network hash of each state, precomputed because every connection needs them.
    hashes: Vec<u32>,
    by_name: HashMap<Arc<str>, BlockId>,
    air: StateIndex,
}

/// One state: its block and where its properties are in [`BlockRegistry::props`].
#[derive(Debug, Clone, Copy)]
struct StateRec {
    block: BlockId,
    props_start: u32,
    props_len: u8,
}

/// A state's properties, sorted by key: a view into the registry's property table.
#[derive(Clone, Copy)]
pub struct Properties<'a> {
    ids: &'a [u16],
    pairs: &'a [(Box<str>, StateValue)],
}

impl<'a> Properties<'a> {
    /// `(key, value)` in key order.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = (&'a str, &'a StateValue)> + use<'a> {
        let pairs = self.pairs;
        // Ids index `pairs` by construction; an out-of-range id would read as the first pair.
        self.ids.iter().map(move |&i| pairs.get(usize::from(i)).or(pairs.first())).map(|p| match p {
            Some((k, v)) => (&**k, v),
            None => ("", &StateValue::Int(0)),
        })
    }

    /// Number of properties.
    pub fn len(&self) -> usize {
        self.ids.len()
    }

    /// Whether the state has no properties.
    pub fn is_empty(&self) -> bool {
        self.ids.is_empty()
    }

    /// The value of `key`.
    pub fn get(&self, key: &str) -> Option<&'a StateValue> {
        self.iter().find(|(k, _)| *k == key).map(|(_, v)| v)
    }

    /// An owned copy.
    pub fn to_vec(&self) -> Vec<(String, StateValue)> {
        self.iter().map(|(k, v)| (k.to_owned(), v.clone())).collect()
    }
}

impl std::fmt::Debug for Properties<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl PartialEq for Properties<'_> {
    fn eq(&self, other: &Self) -> bool {
        self.iter().eq(other.iter())
    }
}

impl PartialEq<Vec<(String, StateValue)>> for Properties<'_> {
    fn eq(&self, other: &Vec<(String, StateValue)>) -> bool {
        self.len() == other.len() && self.iter().zip(other).all(|((k, v), (ok, ov))| k == ok && v == ov)
    }
}

/// Interns `(key, value)` properties while a registry is built.
#[derive(Default)]
struct Interner {
    ids: HashMap<Box<str>, HashMap<StateValue, u16>>,
}

impl Interner {
    /// Starts from a registry's existing table (for custom blocks).
    fn of(pairs: &[(Box<str>, StateValue)]) -> Self {
        let mut me = Self::default();
        for (i, (k, v)) in pairs.iter().enumerate() {
            if let Ok(i) = u16::try_from(i) {
                me.ids.entry(k.clone()).or_default().insert(v.clone(), i);
            }
        }
        me
    }

    fn id(
        &mut self,
        pairs: &mut Vec<(Box<str>, StateValue)>,
        key: &str,
        value: StateValue,
    ) -> Result<u16, BlockDataError> {
        if let Some(&i) = self.ids.get(key).and_then(|m| m.get(&value)) {
            return Ok(i);
        }
        let i = u16::try_from(pairs.len())
            .map_err(|_| BlockDataError::Invalid("more than 65 536 distinct block properties".into()))?;
        pairs.push((key.into(), value.clone()));
        self.ids.entry(key.into()).or_default().insert(value, i);
        Ok(i)
    }
}

impl BlockRegistry {
    /// The registry of `game_version` (e.g. `"1.26.45"`), built from embedded data on first use
    /// and shared afterwards. Only versions asked for are ever parsed.
    pub fn for_version(game_version: &str) -> Result<Arc<Self>, BlockDataError> {
        static CACHE: OnceLock<Mutex<HashMap<String, Arc<BlockRegistry>>>> = OnceLock::new();
        let cache = CACHE.get_or_init(Default::default);
        // A poisoned lock only means another builder panicked; the map itself is still valid.
        let mut cache = cache.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        if let Some(reg) = cache.get(game_version) {
            return Ok(Arc::clone(reg));
        }
        let packed = data::EMBEDDED
            .iter()
            .find(|(v, _)| *v == game_version)
            .map(|(_, packed)| *packed)
            .ok_or_else(|| BlockDataError::UnknownVersion(game_version.to_owned()))?;
        // Parsed while it inflates: neither the 2 MB text nor a tree of it is ever in memory.
        let reader = clawcraft_protocol::embedded::reader(packed);
        let reg = Arc::new(Self::from_deserializer(serde_json::Deserializer::from_reader(reader))?);
        cache.insert(game_version.to_owned(), Arc::clone(&reg));
        Ok(reg)
    }

    /// Game versions with embedded block data.
    pub fn versions() -> impl Iterator<Item = &'static str> {
        data::EMBEDDED.iter().map(|(v, _)| *v)
    }

    /// Builds a registry from the text of a `blocks.json` (see `data/gen-blocks.js`). Blocks are
    /// added as they are parsed, so the file never exists as one tree in memory.
    pub fn from_json(text: &str) -> Result<Self, BlockDataError> {
        Self::from_deserializer(serde_json::Deserializer::from_str(text))
    }

    /// Builds a registry from a `blocks.json` as it is read.
    fn from_deserializer<'de, R: serde_json::de::Read<'de>>(
        de: serde_json::Deserializer<R>,
    ) -> Result<Self, BlockDataError> {
        let mut reg = Self {
            game_version: String::new(),
            blocks: Vec::new(),
            states: Vec::new(),
            props: Vec::new(),
            pairs: Vec::new(),
            hashes: Vec::new(),
            by_name: HashMap::new(),
            air: StateIndex(0),
        };
        let mut interner = Interner::default();
        let header = data::read_blocks(de, |raw| {
            let harvest_tools = HarvestTools { required: raw.tools, min_tier: raw.tier, preferred: raw.preferred };
            let states = raw.states.into_iter().map(|s| s.0).collect();
            reg.push_block(&mut interner, raw.name, raw.hardness, harvest_tools, raw.shape, raw.liquid, states)
                .map(|_| ())
        })?;
        if header.format != data::FORMAT {
            return Err(BlockDataError::Invalid(format!("format {} (expected {})", header.format, data::FORMAT)));
        }
        reg.game_version = header.game_version;
        reg.blocks.shrink_to_fit();
        reg.states.shrink_to_fit();
        reg.props.shrink_to_fit();
        reg.pairs.shrink_to_fit();
        reg.hashes.shrink_to_fit();
        reg.air =
            reg.states_named(AIR).next().ok_or_else(|| BlockDataError::Invalid("no minecraft:air state".to_owned()))?;
        Ok(reg)
    }

    /// Appends a block and its states (properties sorted here); shared by loading and
    /// [`BlockRegistry::add_custom`].
    #[allow(clippy::too_many_arguments)]
    fn push_block(
        &mut self,
        interner: &mut Interner,
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
        for mut properties in states {
            properties.sort_unstable_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
            self.hashes.push(network_hash(&name, &properties));
            let props_start = u32::try_from(self.props.len()).map_err(|_| too_many())?;
            let props_len = u8::try_from(properties.len())
                .map_err(|_| BlockDataError::Invalid(format!("a state of {name} has over 255 properties")))?;
            for (key, value) in properties {
                let pair = interner.id(&mut self.pairs, &key, value)?;
                self.props.push(pair);
            }
            self.states.push(StateRec { block: id, props_start, props_len });
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
        let mut interner = Interner::of(&self.pairs);
        self.push_block(&mut interner, name.to_owned(), 0.0, HarvestTools::default(), ShapeClass::Full, false, states)
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
    pub fn states(&self) -> impl ExactSizeIterator<Item = BlockState<'_>> + '_ {
        self.states.iter().map(|rec| self.view_of(rec))
    }

    /// Number of states.
    pub fn state_count(&self) -> usize {
        self.states.len()
    }

    /// Approximate heap bytes held (tables and strings, not allocator overhead), for figures.
    pub fn heap_bytes(&self) -> usize {
        use std::mem::size_of;
        let tools = |t: &HarvestTools| (t.required.capacity() + t.preferred.capacity()) * size_of::<super::ToolKind>();
        let blocks: usize =
            self.blocks.iter().map(|b| size_of::<BlockInfo>() + b.name.len() + tools(&b.harvest_tools)).sum();
        let pairs: usize = self
            .pairs
            .iter()
            .map(|(k, v)| {
                size_of::<(Box<str>, StateValue)>()
                    + k.len()
                    + if let StateValue::Str(s) = v { s.capacity() } else { 0 }
            })
            .sum();
        blocks
            + self.states.capacity() * size_of::<StateRec>()
            + self.props.capacity() * size_of::<u16>()
            + pairs
            + self.hashes.capacity() * size_of::<u32>()
            + self.by_name.capacity() * (size_of::<(Arc<str>, BlockId)>() + 1)
    }

    /// The state at `index`.
    #[inline]
    pub fn state(&self, index: StateIndex) -> Option<BlockState<'_>> {
        self.view(index.index())
    }

    fn view(&self, i: usize) -> Option<BlockState<'_>> {
        self.states.get(i).map(|rec| self.view_of(rec))
    }

    /// The view of a record (whose block and property run exist by construction).
    fn view_of(&self, rec: &StateRec) -> BlockState<'_> {
        let name = self.blocks.get(rec.block.index()).map_or("unknown", |b| &*b.name);
        let start = rec.props_start as usize;
        let ids = self.props.get(start..start + usize::from(rec.props_len)).unwrap_or(&[]);
        BlockState { name, properties: Properties { ids, pairs: &self.pairs }, block: rec.block }
    }

    /// The block with id `id`.
    #[inline]
    pub fn block(&self, id: BlockId) -> Option<&BlockInfo> {
        self.blocks.get(id.index())
    }

    /// The block a state belongs to.
    #[inline]
    pub fn block_of(&self, index: StateIndex) -> Option<&BlockInfo> {
        self.states.get(index.index()).and_then(|s| self.block(s.block))
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
        self.states_named(name)
            .find(|&i| self.state(i).is_some_and(|state| props.iter().all(|(k, v)| state.property(k) == Some(v))))
    }

    /// The state with exactly these properties (any order), as a hash lookup would find it.
    pub fn state_exact(&self, name: &str, props: &[(String, StateValue)]) -> Option<StateIndex> {
        self.states_named(name).find(|&i| {
            self.state(i).is_some_and(|state| {
                state.properties.len() == props.len() && props.iter().all(|(k, v)| state.property(k) == Some(v))
            })
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
