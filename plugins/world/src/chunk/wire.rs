//! Network-form decoders (and matching encoders, for tests and benches) of sub-chunks, paletted
//! storages, LevelChunk payloads and SubChunk entry payloads. The packets
//! around them (LevelChunk, SubChunk) are decoded by the codec into typed views.
//!
//! Every decoder is a pure function over a byte slice that returns [`ReadError`] on bad input and
//! never panics: lengths are checked against what is left before anything is allocated.

use clawcraft_protocol::io::{ReadError, Reader, WriteExt};

use super::storage::{BLOCKS, PalettedStorage, VALID_BITS, word_count};

/// Largest palette a 4096-block storage can meaningfully have.
const MAX_PALETTE: usize = BLOCKS;
/// Storage layers kept per sub-chunk: main blocks and the water-logging layer.
pub const MAX_LAYERS: usize = 2;

fn invalid(msg: impl Into<String>) -> ReadError {
    ReadError::Invalid(msg.into())
}

/// A decoded sub-chunk: its storage layers (0 = blocks, 1 = water-logging) and, for version 9,
/// the absolute sub-chunk Y it claims to be.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WireSubChunk {
    /// Absolute sub-chunk Y index (version 9 only).
    pub y_index: Option<i8>,
    /// Storage layers, at most [`MAX_LAYERS`]; may be empty (an empty version-8 sub-chunk).
    pub layers: Vec<PalettedStorage>,
}

/// A block entity found in a chunk payload: its position and id, when the NBT carried them, and a
/// sign's text.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct BlockEntity {
    /// Block position (`x`, `y`, `z` int tags).
    pub pos: Option<[i32; 3]>,
    /// Block entity id, e.g. `"Chest"`.
    pub id: String,
    /// A sign's (`Sign`, `HangingSign`) text and its whole block entity (colour, glow and owner
    /// kept, so that an edit sends back what the server stored).
    pub sign: Option<Box<crate::signs::KnownSign>>,
}

/// Reads one paletted block storage (network form: runtime flag set, vari32 palette entries).
pub fn decode_storage(r: &mut Reader<'_>) -> Result<PalettedStorage, ReadError> {
    let header = r.u8()?;
    if header & 1 == 0 {
        // Flag clear means an NBT (disk) palette, which servers never send over the network.
        return Err(invalid("storage with a persistent (NBT) palette"));
    }
    let bits = header >> 1;
    if !VALID_BITS.contains(&bits) {
        return Err(invalid(format!("invalid bits per block {bits}")));
    }
    if bits == 0 {
        return Ok(PalettedStorage::Single(r.var_i32()? as u32));
    }
    let raw = r.bytes(word_count(bits) * 4)?;
    let words: Box<[u32]> = raw.chunks_exact(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect();
    let len = palette_len(r)?;
    let mut palette = Vec::with_capacity(len);
    for _ in 0..len {
        // Hashed ids are signed on the wire; the bit pattern is the id.
        palette.push(r.var_i32()? as u32);
    }
    PalettedStorage::from_parts(bits, palette, words).map_err(ReadError::Invalid)
}

fn palette_len(r: &mut Reader<'_>) -> Result<usize, ReadError> {
    let len = r.var_i32()?;
    let len = usize::try_from(len).map_err(|_| invalid(format!("negative palette length {len}")))?;
    if len == 0 || len > MAX_PALETTE {
        return Err(invalid(format!("palette length {len}")));
    }
    r.checked_len(len as u64, 1)
}

/// Skips one biome storage. Returns false for the `0xFF` "same as previous" header.
fn skip_biome_storage(r: &mut Reader<'_>) -> Result<bool, ReadError> {
    let header = r.u8()?;
    if header == 0xFF {
        return Ok(false);
    }
    let bits = header >> 1;
    if !VALID_BITS.contains(&bits) {
        return Err(invalid(format!("invalid biome bits {bits}")));
    }
    if bits == 0 {
        r.var_i32()?;
        return Ok(true);
    }
    r.bytes(word_count(bits) * 4)?;
    for _ in 0..palette_len(r)? {
        r.var_i32()?;
    }
    Ok(true)
}

/// Reads one sub-chunk in network form, versions 1, 8 and 9. Layers beyond the second are read
/// and dropped (the game only uses two).
pub fn decode_sub_chunk(r: &mut Reader<'_>) -> Result<WireSubChunk, ReadError> {
    let version = r.u8()?;
    let (count, y_index) = match version {
        1 => (1, None),
        8 => (r.u8()?, None),
        9 => {
            let count = r.u8()?;
            (count, Some(r.i8()?))
        }
        v => return Err(invalid(format!("unsupported sub-chunk version {v}"))),
    };
    let mut layers = Vec::with_capacity(usize::from(count).min(MAX_LAYERS));
    for _ in 0..count {
        let s = decode_storage(r)?;
        if layers.len() < MAX_LAYERS {
            layers.push(s);
        }
    }
    Ok(WireSubChunk { y_index, layers })
}

/// What a LevelChunk payload held.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ColumnPayload {
    /// Sub-chunks from the dimension's lowest upward (empty in request mode).
    pub sub_chunks: Vec<WireSubChunk>,
    /// Block entities after the border byte.
    pub block_entities: Vec<BlockEntity>,
}

/// Decodes a LevelChunk payload (cache disabled). In full mode it holds `sub_chunk_count`
/// sub-chunks; in request mode none. Then up to `dim_sub_chunks` biome storages, the border-block
/// byte and network-NBT block entities up to the end. A payload that stops cleanly between biome
/// storages is accepted: block data is what the bot needs.
pub fn decode_level_chunk_payload(
    payload: &[u8],
    sub_chunk_count: usize,
    dim_sub_chunks: usize,
    request_mode: bool,
) -> Result<ColumnPayload, ReadError> {
    let (sub_chunks, block_entities) =
        read_level_chunk_payload(payload, sub_chunk_count, dim_sub_chunks, request_mode, decode_sub_chunk)?;
    Ok(ColumnPayload { sub_chunks, block_entities })
}

/// [`decode_level_chunk_payload`] with each sub-chunk read by `read_sub_chunk` (e.g. from a
/// [`BlockStore`](super::BlockStore)): the sub-chunks and the block entities.
pub fn read_level_chunk_payload<T>(
    payload: &[u8],
    sub_chunk_count: usize,
    dim_sub_chunks: usize,
    request_mode: bool,
    mut read_sub_chunk: impl FnMut(&mut Reader<'_>) -> Result<T, ReadError>,
) -> Result<(Vec<T>, Vec<BlockEntity>), ReadError> {
    let mut r = Reader::new(payload);
    let mut sub_chunks = Vec::new();
    if !request_mode {
        if sub_chunk_count > dim_sub_chunks {
            return Err(invalid(format!("{sub_chunk_count} sub-chunks in a {dim_sub_chunks}-high dimension")));
        }
        for _ in 0..sub_chunk_count {
            sub_chunks.push(read_sub_chunk(&mut r)?);
        }
    }
    for i in 0..dim_sub_chunks {
        if r.is_empty() {
            return Ok((sub_chunks, Vec::new()));
        }
        if !skip_biome_storage(&mut r)? && i == 0 {
            return Err(invalid("first biome storage copies a previous one"));
        }
    }
    if r.is_empty() {
        return Ok((sub_chunks, Vec::new()));
    }
    // Border blocks (education edition): a count and that many bytes; always 0 in practice.
    let border = r.u8()?;
    r.bytes(usize::from(border))?;
    let block_entities = decode_block_entities(&mut r)?;
    Ok((sub_chunks, block_entities))
}

/// Reads network-NBT block entities until the input ends.
pub fn decode_block_entities(r: &mut Reader<'_>) -> Result<Vec<BlockEntity>, ReadError> {
    let mut out = Vec::new();
    while !r.is_empty() {
        out.push(read_block_entity(r)?);
    }
    Ok(out)
}

/// Outcome of one SubChunk entry.
#[derive(Debug, Clone, PartialEq)]
pub enum SubChunkOutcome {
    /// Blocks delivered.
    Loaded(WireSubChunk, Vec<BlockEntity>),
    /// The sub-chunk is all air.
    AllAir,
    /// The server could not provide it (`chunk_not_found`, `y_index_out_of_bounds`, …: the
    /// entry's result name).
    Unavailable(String),
}

/// What a SubChunk entry delivers, from its result name and payload (the SubChunk view's
/// `result` and `payload`).
pub fn sub_chunk_outcome(result: &str, payload: Option<&[u8]>) -> Result<SubChunkOutcome, ReadError> {
    match (result, payload) {
        ("success", Some(p)) => {
            let mut r = Reader::new(p);
            let sub = decode_sub_chunk(&mut r)?;
            let entities = decode_block_entities(&mut r)?;
            Ok(SubChunkOutcome::Loaded(sub, entities))
        }
        ("success", None) => Err(invalid("successful sub-chunk without payload")),
        ("success_all_air", _) => Ok(SubChunkOutcome::AllAir),
        (other, _) => Ok(SubChunkOutcome::Unavailable(other.to_owned())),
    }
}

// --- network NBT (varint flavour), read only as far as block entities need -------------------

/// Deepest NBT nesting accepted; stops stack exhaustion on hostile input.
const MAX_NBT_DEPTH: usize = 64;

/// Reads one root tag, keeping the top-level `id` string and `x`/`y`/`z` ints, and a sign's
/// whole tag (read a second time, as signs are rare among block entities).
fn read_block_entity(r: &mut Reader<'_>) -> Result<BlockEntity, ReadError> {
    let start = r.clone();
    let tag = r.u8()?;
    r.var_bytes()?; // root name
    if tag != 10 {
        skip_nbt_payload(r, tag, 0)?;
        return Ok(BlockEntity::default());
    }
    let mut be = BlockEntity::default();
    let mut pos = [None; 3];
    loop {
        let t = r.u8()?;
        if t == 0 {
            break;
        }
        let name = r.var_bytes()?;
        match (t, name) {
            (3, b"x") => pos[0] = Some(r.var_i32()?),
            (3, b"y") => pos[1] = Some(r.var_i32()?),
            (3, b"z") => pos[2] = Some(r.var_i32()?),
            (8, b"id") => be.id = String::from_utf8_lossy(r.var_bytes()?).into_owned(),
            _ => skip_nbt_payload(r, t, 1)?,
        }
    }
    if let [Some(x), Some(y), Some(z)] = pos {
        be.pos = Some([x, y, z]);
    }
    if be.id == "Sign" || be.id == "HangingSign" {
        let nbt = clawcraft_protocol::codec::read_network_nbt(&mut start.clone())?;
        if let Some(text) = clawcraft_protocol::packets::SignNbt::read(&nbt) {
            be.sign = Some(Box::new(crate::signs::KnownSign { text, nbt }));
        }
    }
    Ok(be)
}

fn nbt_len(r: &mut Reader<'_>, min_elem: usize) -> Result<usize, ReadError> {
    let n = r.var_i32()?;
    let n = u64::try_from(n).map_err(|_| invalid("negative NBT length"))?;
    r.checked_len(n, min_elem)
}

fn skip_nbt_payload(r: &mut Reader<'_>, tag: u8, depth: usize) -> Result<(), ReadError> {
    if depth > MAX_NBT_DEPTH {
        return Err(invalid("NBT nested too deep"));
    }
    match tag {
        0 => {}
        1 => {
            r.u8()?;
        }
        2 => {
            r.bytes(2)?;
        }
        3 => {
            r.var_i32()?;
        }
        4 => {
            r.var_i64()?;
        }
        5 => {
            r.bytes(4)?;
        }
        6 => {
            r.bytes(8)?;
        }
        7 => {
            let n = nbt_len(r, 1)?;
            r.bytes(n)?;
        }
        8 => {
            r.var_bytes()?;
        }
        9 => {
            let elem = r.u8()?;
            // An empty-element list still costs no bytes per element; bound it by input anyway.
            let n = nbt_len(r, 1)?;
            for _ in 0..n {
                skip_nbt_payload(r, elem, depth + 1)?;
            }
        }
        10 => loop {
            let t = r.u8()?;
            if t == 0 {
                break;
            }
            r.var_bytes()?;
            skip_nbt_payload(r, t, depth + 1)?;
        },
        11 => {
            let n = nbt_len(r, 4)?;
            r.bytes(n * 4)?;
        }
        12 => {
            let n = nbt_len(r, 8)?;
            r.bytes(n * 8)?;
        }
        t => return Err(invalid(format!("unknown NBT tag {t}"))),
    }
    Ok(())
}

// --- encoders ----------------------------------------------------------------------------------

/// Writes a storage in network form (the inverse of [`decode_storage`]).
pub fn encode_storage(out: &mut Vec<u8>, s: &PalettedStorage) {
    out.put_u8((s.bits() << 1) | 1);
    for w in s.words() {
        out.put_u32_le(*w);
    }
    if s.bits() == 0 {
        out.put_var_i32(s.palette()[0] as i32);
        return;
    }
    out.put_var_i32(s.palette().len() as i32);
    for id in s.palette() {
        out.put_var_i32(*id as i32);
    }
}

/// Writes a sub-chunk in network form: version 1 (first layer only), 8, or 9 (with `y_index`).
pub fn encode_sub_chunk(out: &mut Vec<u8>, version: u8, y_index: i8, layers: &[PalettedStorage]) {
    out.put_u8(version);
    match version {
        1 => {
            if let Some(l) = layers.first() {
                encode_storage(out, l);
            }
            return;
        }
        9 => {
            out.put_u8(layers.len() as u8);
            out.put_u8(y_index as u8);
        }
        _ => out.put_u8(layers.len() as u8),
    }
    for l in layers {
        encode_storage(out, l);
    }
}

/// Writes a single-value biome storage (biome id `biome`), as servers do for uniform biomes.
pub fn encode_biome(out: &mut Vec<u8>, biome: i32) {
    out.put_u8(1);
    out.put_var_i32(biome);
}

/// Writes a network-NBT block entity compound with `id` and position.
pub fn encode_block_entity(out: &mut Vec<u8>, id: &str, pos: [i32; 3]) {
    out.put_u8(10);
    out.put_var_string("");
    out.put_u8(8);
    out.put_var_string("id");
    out.put_var_string(id);
    for (name, v) in ["x", "y", "z"].iter().zip(pos) {
        out.put_u8(3);
        out.put_var_string(name);
        out.put_var_i32(v);
    }
    out.put_u8(1);
    out.put_var_string("isMovable");
    out.put_u8(1);
    out.put_u8(0);
}
