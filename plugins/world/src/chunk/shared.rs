//! [`BlockStore`]: the sub-chunks of every bot of the process, each distinct content held once.
//!
//! A bot's [`World`](super::World) keeps its own columns (which columns it has, its dimension,
//! its heights, its LRU clock), but a column's slots hold `Arc<SubChunk>`s handed out by this
//! store. Bots on the same server and dimension are told the same blocks for the same area, so
//! they end up holding one copy of each sub-chunk.
//!
//! The store is content-addressed rather than keyed by server, dimension and position: a
//! sub-chunk is looked up by a hash of its paletted form (layers, widths, palettes of raw
//! network ids, packed indices) and shared only after an exact comparison of that form. Bots
//! hold one copy when they were told the same blocks in the same form — decoded from the same
//! bytes, or changed by the same updates from the same copy — so nothing a server did not tell
//! a bot can reach its world: a bot that has not yet received a block update still holds the
//! old content, and a bot of another server or dimension shares only sub-chunks equal to its
//! own (each bot reads the ids with its own registry, as it would its own copy). The same
//! blocks in another form (another palette order, say) are not found, which costs a copy,
//! never correctness. Sub-chunks arriving from the network are hashed and compared in their
//! wire form, so a payload that is already held is not decoded again.
//!
//! Writes never go through the store: a block update makes the bot's own copy
//! (`Arc::make_mut`, copying only when another holder exists), and [`BlockStore::share`] then
//! puts it back in the store, where a bot that received the same updates finds it. The store
//! holds `Weak` references only: the last bot dropping a sub-chunk (evicting its column,
//! changing dimension, leaving) frees it, and dead entries are pruned as the store grows.

use std::collections::HashMap;
use std::hash::Hasher;
use std::sync::{Arc, Weak};

use bevy_ecs::resource::Resource;
use clawcraft_protocol::io::{ReadError, Reader};
use rustc_hash::{FxBuildHasher, FxHasher};

use super::BlockEntity;
use super::storage::{PalettedStorage, VALID_BITS, min_bits, word_count};
use super::wire::{MAX_LAYERS, SubChunkOutcome, decode_block_entities, decode_sub_chunk};
use super::world::SubChunk;

/// Words hashed per `Hasher::write`: the wire and the decoded form are hashed in pieces of the
/// same size, so both give the same hash for the same blocks. Also the words compared per step.
const HASH_WORDS: usize = 64;

/// Entries kept before the first prune of dead ones.
const MIN_PRUNE: usize = 1024;

/// Counters of a [`BlockStore`], for tests and benches.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct StoreStats {
    /// Sub-chunks decoded from the wire (not found in the store).
    pub decoded: u64,
    /// Wire sub-chunks found in the store (not decoded).
    pub reused: u64,
    /// Sub-chunks a bot made (decoded from a non-canonical encoding, or changed by block
    /// updates) that were found already held: the bot's copy was dropped for the held one.
    pub converged: u64,
}

/// One sub-chunk of a LevelChunk payload, as the store hands it out.
#[derive(Debug, Clone)]
pub struct SharedSubChunk {
    /// Absolute sub-chunk Y the payload claims (version 9 only).
    pub y_index: Option<i8>,
    /// The blocks.
    pub sub_chunk: Arc<SubChunk>,
}

/// What a SubChunk entry delivers, with the blocks from the store.
#[derive(Debug, Clone)]
pub enum SharedOutcome {
    /// Blocks delivered, and the entry's block entities.
    Loaded(Arc<SubChunk>, Vec<BlockEntity>),
    /// The sub-chunk is all air.
    AllAir,
    /// The server could not provide it (the entry's result name).
    Unavailable(String),
}

/// Sub-chunks by content hash (see the module docs). A resource of the world plugin; one per
/// process, shared by every bot.
#[derive(Resource, Default)]
pub struct BlockStore {
    /// Content hash → the sub-chunk holding that content. One entry per hash: when two live
    /// contents collide (by chance, or made to by a hostile server: the hash is not keyed), the
    /// later one stays unshared, which costs memory and never correctness.
    entries: HashMap<u64, Weak<SubChunk>, FxBuildHasher>,
    /// Size of `entries` at which dead entries are pruned next.
    prune_at: usize,
    stats: StoreStats,
}

impl std::fmt::Debug for BlockStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BlockStore").field("entries", &self.entries.len()).field("stats", &self.stats).finish()
    }
}

impl BlockStore {
    /// Counters since the store was made.
    pub fn stats(&self) -> StoreStats {
        self.stats
    }

    /// Distinct sub-chunks held by some bot.
    pub fn live(&self) -> usize {
        self.entries.values().filter(|w| w.strong_count() > 0).count()
    }

    /// Heap bytes of every distinct live sub-chunk (each counted once) and of the index.
    pub fn heap_bytes(&self) -> usize {
        // A hashbrown table: one control byte per bucket besides the entry.
        let index = self.entries.capacity() * (size_of::<u64>() + size_of::<Weak<SubChunk>>() + 1);
        index + self.entries.values().filter_map(Weak::upgrade).map(|s| s.shared_bytes()).sum::<usize>()
    }

    /// The stored sub-chunk equal to `sub_chunk`, or `sub_chunk` itself, now stored.
    pub fn share(&mut self, sub_chunk: Arc<SubChunk>) -> Arc<SubChunk> {
        self.share_keyed(content_key(&sub_chunk), sub_chunk)
    }

    /// [`share`](Self::share) with the sub-chunk's [`content_key`] already known.
    fn share_keyed(&mut self, key: u64, sub_chunk: Arc<SubChunk>) -> Arc<SubChunk> {
        if let Some(held) = self.entries.get(&key).and_then(Weak::upgrade) {
            if Arc::ptr_eq(&held, &sub_chunk) {
                return sub_chunk;
            }
            if *held == *sub_chunk {
                self.stats.converged += 1;
                return held;
            }
            // A different content under the same hash: left unshared.
            return sub_chunk;
        }
        self.insert(key, &sub_chunk);
        sub_chunk
    }

    /// A sub-chunk of `id` everywhere (air, for columns' empty slots).
    pub fn uniform(&mut self, id: u32) -> Arc<SubChunk> {
        if let Some(held) = self.entries.get(&uniform_key(id)).and_then(Weak::upgrade)
            && held.layers == [PalettedStorage::Single(id)]
        {
            return held;
        }
        self.share(Arc::new(SubChunk::uniform(id)))
    }

    /// Reads one sub-chunk in network form from `r` (as [`decode_sub_chunk`], an empty layer
    /// list meaning all `air`), handing out the stored copy when its blocks are already held.
    /// Errors are [`decode_sub_chunk`]'s.
    pub fn read_sub_chunk(&mut self, r: &mut Reader<'_>, air: u32) -> Result<SharedSubChunk, ReadError> {
        let rest = r.clone().rest();
        let mut probe = Reader::new(rest);
        let scanned = scan_wire(&mut probe, air).ok().flatten();
        if let Some(scan) = &scanned {
            let span = &rest[..probe.position()];
            if let Some(held) = self.entries.get(&scan.key).and_then(Weak::upgrade)
                && wire_equals(span, &held, air)
            {
                r.bytes(span.len())?;
                self.stats.reused += 1;
                return Ok(SharedSubChunk { y_index: scan.y_index, sub_chunk: held });
            }
        }
        let wire = decode_sub_chunk(r)?;
        self.stats.decoded += 1;
        let y_index = wire.y_index;
        let sub_chunk = Arc::new(SubChunk::from_wire(wire, air));
        // A canonical wire form hashes as its decoded form does: no second pass over the blocks.
        let key = scanned.map_or_else(|| content_key(&sub_chunk), |scan| scan.key);
        debug_assert_eq!(key, content_key(&sub_chunk), "the wire hash is the decoded hash");
        Ok(SharedSubChunk { y_index, sub_chunk: self.share_keyed(key, sub_chunk) })
    }

    /// What a SubChunk entry delivers (as [`sub_chunk_outcome`](super::wire::sub_chunk_outcome)),
    /// its blocks from the store.
    pub fn sub_chunk_outcome(
        &mut self,
        result: &str,
        payload: Option<&[u8]>,
        air: u32,
    ) -> Result<SharedOutcome, ReadError> {
        match (result, payload) {
            ("success", Some(p)) => {
                let mut r = Reader::new(p);
                let sub = self.read_sub_chunk(&mut r, air)?;
                let entities = decode_block_entities(&mut r)?;
                Ok(SharedOutcome::Loaded(sub.sub_chunk, entities))
            }
            (result, payload) => {
                Ok(match super::wire::sub_chunk_outcome(result, payload)? {
                    SubChunkOutcome::AllAir => SharedOutcome::AllAir,
                    SubChunkOutcome::Unavailable(why) => SharedOutcome::Unavailable(why),
                    // "success" with a payload is the arm above.
                    SubChunkOutcome::Loaded(w, entities) => {
                        SharedOutcome::Loaded(self.share(Arc::new(SubChunk::from_wire(w, air))), entities)
                    }
                })
            }
        }
    }

    fn insert(&mut self, key: u64, sub_chunk: &Arc<SubChunk>) {
        self.entries.insert(key, Arc::downgrade(sub_chunk));
        if self.entries.len() >= self.prune_at {
            self.entries.retain(|_, w| w.strong_count() > 0);
            self.prune_at = (self.entries.len() * 2).max(MIN_PRUNE);
        }
    }
}

/// Hash of a uniform sub-chunk of `id` (one single-value layer).
fn uniform_key(id: u32) -> u64 {
    let mut h = FxHasher::default();
    h.write_usize(1);
    hash_single(&mut h, id);
    h.finish()
}

fn hash_single(h: &mut FxHasher, id: u32) {
    h.write_u8(0);
    h.write_u32(id);
}

fn hash_packed_head(h: &mut FxHasher, bits: u8, palette_len: usize) {
    h.write_u8(bits);
    h.write_usize(palette_len);
}

/// The hash of a sub-chunk's blocks: its layers' widths, palettes and index words.
pub fn content_key(sub_chunk: &SubChunk) -> u64 {
    let mut h = FxHasher::default();
    h.write_usize(sub_chunk.layers.len());
    for layer in &sub_chunk.layers {
        match layer {
            PalettedStorage::Single(id) => hash_single(&mut h, *id),
            packed => {
                hash_packed_head(&mut h, packed.bits(), packed.palette().len());
                for id in packed.palette() {
                    h.write_u32(*id);
                }
                let mut buf = [0u8; HASH_WORDS * 4];
                for words in packed.words().chunks(HASH_WORDS) {
                    for (out, w) in buf.chunks_exact_mut(4).zip(words) {
                        out.copy_from_slice(&w.to_le_bytes());
                    }
                    h.write(&buf[..words.len() * 4]);
                }
            }
        }
    }
    h.finish()
}

/// A wire sub-chunk's hash and claimed Y.
struct WireScan {
    key: u64,
    y_index: Option<i8>,
}

/// Reads the framing of a wire sub-chunk and hashes it as [`content_key`] hashes the decoded
/// one. `None` when decoding would change the layers (a width narrowed, a one-entry palette
/// made single-valued, layers beyond the second dropped): such a sub-chunk takes the decoder.
fn scan_wire(r: &mut Reader<'_>, air: u32) -> Result<Option<WireScan>, ReadError> {
    let (count, y_index) = wire_header(r)?;
    let mut h = FxHasher::default();
    if count == 0 {
        h.write_usize(1);
        hash_single(&mut h, air);
        return Ok(Some(WireScan { key: h.finish(), y_index }));
    }
    if count > MAX_LAYERS {
        return Ok(None);
    }
    h.write_usize(count);
    for _ in 0..count {
        let header = r.u8()?;
        let bits = header >> 1;
        if header & 1 == 0 || !VALID_BITS.contains(&bits) {
            return Ok(None);
        }
        if bits == 0 {
            hash_single(&mut h, r.var_i32()? as u32);
            continue;
        }
        let raw = r.bytes(word_count(bits) * 4)?;
        let len = usize::try_from(r.var_i32()?).unwrap_or(0);
        if len < 2 || min_bits(len) < bits || len > r.remaining() {
            return Ok(None);
        }
        hash_packed_head(&mut h, bits, len);
        for _ in 0..len {
            h.write_u32(r.var_i32()? as u32);
        }
        for words in raw.chunks(HASH_WORDS * 4) {
            h.write(words);
        }
    }
    Ok(Some(WireScan { key: h.finish(), y_index }))
}

/// Version, layer count and claimed Y of a wire sub-chunk.
fn wire_header(r: &mut Reader<'_>) -> Result<(usize, Option<i8>), ReadError> {
    Ok(match r.u8()? {
        1 => (1, None),
        8 => (usize::from(r.u8()?), None),
        9 => {
            let count = usize::from(r.u8()?);
            (count, Some(r.i8()?))
        }
        v => return Err(ReadError::Invalid(format!("unsupported sub-chunk version {v}"))),
    })
}

/// Whether the wire sub-chunk `span` (one [`scan_wire`] hashed) decodes to exactly `held`.
fn wire_equals(span: &[u8], held: &SubChunk, air: u32) -> bool {
    let mut r = Reader::new(span);
    let Ok((count, _)) = wire_header(&mut r) else { return false };
    if count == 0 {
        return held.layers == [PalettedStorage::Single(air)];
    }
    if held.layers.len() != count {
        return false;
    }
    held.layers.iter().all(|layer| layer_equals(&mut r, layer).unwrap_or(false))
}

fn layer_equals(r: &mut Reader<'_>, layer: &PalettedStorage) -> Result<bool, ReadError> {
    let bits = r.u8()? >> 1;
    if bits != layer.bits() {
        return Ok(false);
    }
    if bits == 0 {
        return Ok(layer.palette() == [r.var_i32()? as u32]);
    }
    let raw = r.bytes(word_count(bits) * 4)?;
    let palette = layer.palette();
    if usize::try_from(r.var_i32()?).ok() != Some(palette.len()) {
        return Ok(false);
    }
    for id in palette {
        if r.var_i32()? as u32 != *id {
            return Ok(false);
        }
    }
    // The palette first (it tells most sub-chunks apart), then the words, compared a block of
    // them at a time without a branch per word.
    let words = layer.words();
    Ok(words.len() * 4 == raw.len()
        && raw.chunks(HASH_WORDS * 4).zip(words.chunks(HASH_WORDS)).all(|(bytes, words)| {
            bytes
                .chunks_exact(4)
                .zip(words)
                .fold(0, |diff, (b, w)| diff | (u32::from_le_bytes([b[0], b[1], b[2], b[3]]) ^ w))
                == 0
        }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chunk::storage::block_index;
    use crate::chunk::wire::encode_sub_chunk;

    fn terrain(seed: u32, kinds: u32) -> PalettedStorage {
        let mut s = PalettedStorage::Single(100);
        for i in 0..4096usize {
            s.set(i, 100 + seed * 4096 + (i as u32 * 7 + seed) % kinds);
        }
        s
    }

    fn wire(version: u8, layers: &[PalettedStorage]) -> Vec<u8> {
        let mut out = Vec::new();
        encode_sub_chunk(&mut out, version, 3, layers);
        out
    }

    #[test]
    fn the_wire_hash_is_the_decoded_hash() {
        for layers in [
            vec![terrain(1, 2)],
            vec![terrain(2, 5), terrain(3, 3)],
            vec![PalettedStorage::Single(9)],
            vec![terrain(4, 300)],
            vec![PalettedStorage::Single(7), terrain(5, 17)],
        ] {
            for version in [8, 9] {
                let bytes = wire(version, &layers);
                let scan = scan_wire(&mut Reader::new(&bytes), 1).expect("framing").expect("canonical");
                let decoded = SubChunk::from_wire(decode_sub_chunk(&mut Reader::new(&bytes)).expect("decodes"), 1);
                assert_eq!(scan.key, content_key(&decoded), "version {version}");
                assert!(wire_equals(&bytes, &decoded, 1));
            }
        }
        // Empty (version 8, no layers): all air.
        let empty = [8u8, 0];
        let scan = scan_wire(&mut Reader::new(&empty), 1).expect("framing").expect("canonical");
        assert_eq!(scan.key, content_key(&SubChunk::uniform(1)));
        assert!(wire_equals(&empty, &SubChunk::uniform(1), 1));
        assert!(!wire_equals(&empty, &SubChunk::uniform(2), 1));
    }

    #[test]
    fn identical_payloads_decode_once_and_differences_are_never_shared() {
        let mut store = BlockStore::default();
        let a = wire(9, &[terrain(1, 4)]);
        let first = store.read_sub_chunk(&mut Reader::new(&a), 1).expect("decodes");
        let again = store.read_sub_chunk(&mut Reader::new(&a), 1).expect("decodes");
        assert!(Arc::ptr_eq(&first.sub_chunk, &again.sub_chunk));
        assert_eq!((store.stats().decoded, store.stats().reused), (1, 1));
        assert_eq!(first.y_index, Some(3));

        // One block different: its own copy.
        let mut other = terrain(1, 4);
        let at = block_index(1, 2, 3);
        let changed = other.palette().iter().copied().find(|&id| id != other.get(at)).expect("four ids");
        other.set(at, changed);
        let b = wire(9, &[other.clone()]);
        let second = store.read_sub_chunk(&mut Reader::new(&b), 1).expect("decodes");
        assert!(!Arc::ptr_eq(&first.sub_chunk, &second.sub_chunk));
        assert_eq!(second.sub_chunk.layers, vec![other]);

        // The same blocks at another Y (another wire byte) share the copy.
        let mut c = a.clone();
        c[2] = 5;
        let third = store.read_sub_chunk(&mut Reader::new(&c), 1).expect("decodes");
        assert!(Arc::ptr_eq(&first.sub_chunk, &third.sub_chunk));
        assert_eq!(third.y_index, Some(5));

        // A wider encoding than needed decodes (narrowed) and then shares the narrow copy.
        let narrow = &first.sub_chunk.layers[0];
        let mut wide = Vec::new();
        wide.extend_from_slice(&[9, 1, 3, (8 << 1) | 1]);
        let mut words = vec![0u32; word_count(8)];
        for i in 0..4096 {
            let slot = narrow.palette().iter().position(|&p| p == narrow.get(i)).expect("in palette");
            words[i / 4] |= (slot as u32) << ((i % 4) * 8);
        }
        for w in words {
            wide.extend_from_slice(&w.to_le_bytes());
        }
        clawcraft_protocol::io::WriteExt::put_var_i32(&mut wide, narrow.palette().len() as i32);
        for id in narrow.palette() {
            clawcraft_protocol::io::WriteExt::put_var_i32(&mut wide, *id as i32);
        }
        let fourth = store.read_sub_chunk(&mut Reader::new(&wide), 1).expect("decodes");
        assert!(Arc::ptr_eq(&first.sub_chunk, &fourth.sub_chunk));
        assert_eq!(store.stats().decoded, 3);
    }

    #[test]
    fn empty_sub_chunks_follow_each_bots_air() {
        let mut store = BlockStore::default();
        let empty = [8u8, 0];
        let one = store.read_sub_chunk(&mut Reader::new(&empty), 1).expect("decodes");
        let two = store.read_sub_chunk(&mut Reader::new(&empty), 2).expect("decodes");
        assert_eq!(one.sub_chunk.layers, vec![PalettedStorage::Single(1)]);
        assert_eq!(two.sub_chunk.layers, vec![PalettedStorage::Single(2)]);
        assert!(Arc::ptr_eq(&one.sub_chunk, &store.uniform(1)));
    }

    #[test]
    fn bad_input_fails_as_the_decoder_does_and_consumes_the_same_bytes() {
        let mut store = BlockStore::default();
        // Index 3 in a 2-entry palette (2 bits): the decoder refuses it, even after the valid
        // one with the same framing was stored.
        let good = wire(9, &[terrain(0, 3)]);
        store.read_sub_chunk(&mut Reader::new(&good), 1).expect("decodes");
        let mut bad = good.clone();
        bad[4] = 0xFF;
        let want = decode_sub_chunk(&mut Reader::new(&bad)).expect_err("invalid");
        assert_eq!(store.read_sub_chunk(&mut Reader::new(&bad), 1).expect_err("invalid"), want);
        for bytes in [good.clone(), wire(1, &[terrain(2, 9)])] {
            let mut joined = bytes.clone();
            joined.extend_from_slice(&[0xAB, 0xCD]);
            for _ in 0..2 {
                let mut r = Reader::new(&joined);
                store.read_sub_chunk(&mut r, 1).expect("decodes");
                assert_eq!(r.remaining(), 2);
            }
        }
    }

    #[test]
    fn dropped_sub_chunks_are_freed_and_pruned() {
        let mut store = BlockStore::default();
        let mut held = Vec::new();
        for seed in 0..3000u32 {
            let bytes = wire(9, &[terrain(seed, 2 + seed % 50)]);
            let sc = store.read_sub_chunk(&mut Reader::new(&bytes), 1).expect("decodes").sub_chunk;
            if seed % 100 == 0 {
                held.push(sc);
            }
        }
        assert_eq!(store.live(), held.len());
        assert!(store.entries.len() <= MIN_PRUNE, "{} entries", store.entries.len());
    }
}
