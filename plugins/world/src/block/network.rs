//! Translation between the block ids a server puts on the wire and registry state indices.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

use super::StateIndex;

/// Hasher for keys that are already FNV hashes: one multiply spreads them into the high bits the
/// hash table probes on, which is all the mixing they need and much cheaper than SipHash.
#[derive(Default)]
struct SpreadHasher(u64);

impl Hasher for SpreadHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 << 8 | u64::from(b)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        }
    }

    fn write_u32(&mut self, n: u32) {
        self.0 = u64::from(n).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    }
}

/// How a server numbers block states on the wire (StartGame `block_network_ids_are_hashes`).
#[derive(Debug, Clone)]
enum Mode {
    /// Ids are FNV-1a-32 hashes; both directions are tables.
    Hashed { to_state: HashMap<u32, StateIndex, BuildHasherDefault<SpreadHasher>>, to_network: Vec<u32> },
    /// Ids are palette indices: the id is the state index itself.
    Palette { len: u32 },
}

/// Two-way map between network block ids and [`StateIndex`]es, built by
/// [`BlockRegistry::network_id_map`](super::BlockRegistry::network_id_map) for one connection.
///
/// Palette entries arrive as zig-zag `vari32` and UpdateBlock ids as `varu32`; hashes are the
/// same 32 bits either way, so convert signed ids with `id as u32` before looking them up.
#[derive(Debug, Clone)]
pub struct NetworkIdMap {
    mode: Mode,
}

impl NetworkIdMap {
    /// A map for a hashing server. `hashes[i]` is the network id of state `i`; on a collision the
    /// lower state index wins (none occur in vanilla data; the registry tests check that).
    pub(super) fn hashed(hashes: Vec<u32>) -> Self {
        let mut to_state = HashMap::with_capacity_and_hasher(hashes.len(), BuildHasherDefault::default());
        for (i, &h) in hashes.iter().enumerate() {
            to_state.entry(h).or_insert(StateIndex(index_u32(i)));
        }
        Self { mode: Mode::Hashed { to_state, to_network: hashes } }
    }

    /// A map for a server that sends palette indices; `len` is the number of states.
    pub(super) fn palette(len: usize) -> Self {
        Self { mode: Mode::Palette { len: index_u32(len) } }
    }

    /// The state a network id stands for, `None` for ids this registry does not know.
    /// O(1): this runs once per palette entry while decoding chunks.
    #[inline]
    pub fn state(&self, network_id: u32) -> Option<StateIndex> {
        match &self.mode {
            Mode::Hashed { to_state, .. } => to_state.get(&network_id).copied(),
            Mode::Palette { len } => (network_id < *len).then_some(StateIndex(network_id)),
        }
    }

    /// The id a server would send for `state`, `None` when the index is out of range.
    #[inline]
    pub fn network_id(&self, state: StateIndex) -> Option<u32> {
        match &self.mode {
            Mode::Hashed { to_network, .. } => to_network.get(state.index()).copied(),
            Mode::Palette { len } => (state.0 < *len).then_some(state.0),
        }
    }

    /// Whether ids are hashes (`true`) or palette indices (`false`).
    pub fn is_hashed(&self) -> bool {
        matches!(self.mode, Mode::Hashed { .. })
    }

    /// Number of states the map covers.
    pub fn len(&self) -> usize {
        match &self.mode {
            Mode::Hashed { to_network, .. } => to_network.len(),
            Mode::Palette { len } => *len as usize,
        }
    }

    /// Whether the map covers no state at all.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// Registry sizes are far below `u32::MAX`; saturate rather than panic if that ever changes.
fn index_u32(i: usize) -> u32 {
    u32::try_from(i).unwrap_or(u32::MAX)
}
