//! Decoder tests over hand-built network bytes: every bit width, single values, two layers,
//! sub-chunk versions 1/8/9, LevelChunk payloads in both modes, SubChunk results (packets
//! through the codec, for every supported version), block updates and eviction.

use clawcraft_protocol::codec::{NbtTag, Protocol};
use clawcraft_protocol::io::{Reader, WriteExt};
use clawcraft_protocol::packets::{ByteBuf, SubChunkEntryView, SubChunkPacket, Vec3Li};
use clawcraft_world::chunk::storage::{block_index, word_count};
use clawcraft_world::chunk::wire::{
    SubChunkOutcome, decode_level_chunk_payload, decode_storage, decode_sub_chunk, encode_biome, encode_block_entity,
    sub_chunk_outcome,
};
use clawcraft_world::chunk::world::AIR_HASH;
use clawcraft_world::chunk::{BlockLookup, ColumnMode, PalettedStorage, World};

const STONE: u32 = 0x1234_5678;
const WATER: u32 = 0xCAFE_F00D; // above i32::MAX: negative on the wire

/// Hand-packs a storage: header, words (no straddling, padded), vari32 palette.
fn storage_bytes(bits: u8, palette: &[u32], index_of: impl Fn(usize) -> usize) -> Vec<u8> {
    let mut out = vec![(bits << 1) | 1];
    if bits == 0 {
        out.put_var_i32(palette[0] as i32);
        return out;
    }
    let per = 32 / bits as usize;
    let mut words = vec![0u32; 4096usize.div_ceil(per)];
    for i in 0..4096 {
        words[i / per] |= (index_of(i) as u32) << ((i % per) * bits as usize);
    }
    for w in words {
        out.put_u32_le(w);
    }
    out.put_var_i32(palette.len() as i32);
    for p in palette {
        out.put_var_i32(*p as i32);
    }
    out
}

fn palette_of(n: usize) -> Vec<u32> {
    (0..n as u32).map(|i| i.wrapping_mul(0x9E37_79B9) ^ 0x8000_0001).collect()
}

#[test]
fn every_bit_width_round_trips() {
    for bits in [1u8, 2, 3, 4, 5, 6, 8, 16] {
        let n = if bits == 16 { 300 } else { 1usize << bits };
        let palette = palette_of(n);
        let f = |i: usize| (i * 7 + i / 5) % n;
        let bytes = storage_bytes(bits, &palette, f);
        assert!(bytes.len() > word_count(bits) * 4);
        let mut r = Reader::new(&bytes);
        let s = decode_storage(&mut r).unwrap_or_else(|e| panic!("bits {bits}: {e}"));
        assert!(r.is_empty(), "bits {bits} consumed everything");
        for i in 0..4096 {
            assert_eq!(s.get(i), palette[f(i)], "bits {bits} index {i}");
        }
        // 300 entries need 16 bits only because 9 is not a valid width.
        assert_eq!(s.bits(), bits, "already minimal");
    }
}

#[test]
fn wider_than_needed_is_narrowed() {
    let palette = palette_of(3);
    let bytes = storage_bytes(16, &palette, |i| i % 3);
    let s = decode_storage(&mut Reader::new(&bytes)).expect("decodes");
    assert_eq!(s.bits(), 2);
    assert_eq!((s.get(0), s.get(1), s.get(2), s.get(4095)), (palette[0], palette[1], palette[2], palette[0]));
    assert!(s.heap_bytes() <= 256 * 4 + 64, "{} bytes", s.heap_bytes());
}

#[test]
fn single_value_and_bad_storages() {
    let bytes = storage_bytes(0, &[WATER], |_| 0);
    assert_eq!(bytes.len(), 1 + 5);
    assert_eq!(decode_storage(&mut Reader::new(&bytes)).expect("single"), PalettedStorage::Single(WATER));
    // A packed storage whose palette has one entry is stored as that value.
    let one = storage_bytes(1, &[STONE], |_| 0);
    assert_eq!(decode_storage(&mut Reader::new(&one)).expect("one"), PalettedStorage::Single(STONE));
    // Index beyond the palette, invalid widths, NBT palettes, empty palettes, truncation.
    let out_of_range = storage_bytes(2, &[1, 2], |i| i % 3);
    assert!(decode_storage(&mut Reader::new(&out_of_range)).is_err());
    for header in [(7 << 1) | 1, (9 << 1) | 1, 0xFF, 4 << 1] {
        assert!(decode_storage(&mut Reader::new(&[header, 0, 0, 0, 0])).is_err(), "header {header:#x}");
    }
    let mut empty = storage_bytes(1, &[1, 2], |i| i % 2);
    let len = empty.len();
    empty.truncate(len - 2);
    empty.push(0); // palette length 0
    assert!(decode_storage(&mut Reader::new(&empty)).is_err());
    let full = storage_bytes(4, &palette_of(12), |i| i % 12);
    for cut in [1, 100, full.len() - 1] {
        assert!(decode_storage(&mut Reader::new(&full[..cut])).is_err(), "cut {cut}");
    }
}

fn two_layer_sub_chunk(version: u8, y: i8) -> Vec<u8> {
    let mut out = vec![version];
    if version != 1 {
        out.push(2);
    }
    if version == 9 {
        out.push(y as u8);
    }
    out.extend(storage_bytes(4, &palette_of(12), |i| i % 12));
    if version != 1 {
        // Layer 1: water in one block only.
        out.extend(storage_bytes(1, &[AIR_HASH, WATER], |i| usize::from(i == block_index(1, 2, 3))));
    }
    out
}

#[test]
fn sub_chunk_versions() {
    for version in [1u8, 8, 9] {
        let bytes = two_layer_sub_chunk(version, -3);
        let mut r = Reader::new(&bytes);
        let sc = decode_sub_chunk(&mut r).expect("decodes");
        assert!(r.is_empty());
        assert_eq!(sc.y_index, (version == 9).then_some(-3));
        assert_eq!(sc.layers.len(), if version == 1 { 1 } else { 2 });
        assert_eq!(sc.layers[0].get(13), palette_of(12)[1]);
        if version != 1 {
            assert_eq!(sc.layers[1].get(block_index(1, 2, 3)), WATER);
            assert_eq!(sc.layers[1].get(block_index(1, 2, 4)), AIR_HASH);
        }
    }
    assert!(decode_sub_chunk(&mut Reader::new(&[2, 1])).is_err(), "unknown version");
    // Three layers: the third is read past and dropped.
    let mut three = vec![8, 3];
    for id in [1u32, 2, 3] {
        three.extend(storage_bytes(0, &[id], |_| 0));
    }
    let sc = decode_sub_chunk(&mut Reader::new(&three)).expect("three layers");
    assert_eq!(sc.layers, vec![PalettedStorage::Single(1), PalettedStorage::Single(2)]);
}

fn biomes(out: &mut Vec<u8>, n: usize) {
    encode_biome(out, 1);
    // A packed biome storage, then "same as previous" for the rest.
    out.extend(storage_bytes(2, &[1, 4, 7], |i| i % 3));
    for _ in 2..n {
        out.push(0xFF);
    }
}

#[test]
fn level_chunk_full_mode() {
    let mut payload = Vec::new();
    payload.extend(two_layer_sub_chunk(8, 0));
    payload.extend(storage_bytes(0, &[STONE], |_| 0).iter().copied().fold(vec![1u8], |mut v, b| {
        v.push(b);
        v
    }));
    biomes(&mut payload, 24);
    payload.push(0); // border blocks
    encode_block_entity(&mut payload, "Chest", [3, -60, 5]);
    encode_block_entity(&mut payload, "Sign", [4, -59, 5]);
    let p = decode_level_chunk_payload(&payload, 2, 24, false).expect("decodes");
    assert_eq!(p.sub_chunks.len(), 2);
    assert_eq!(p.block_entities.len(), 2);
    assert_eq!((p.block_entities[0].id.as_str(), p.block_entities[0].pos), ("Chest", Some([3, -60, 5])));

    let mut w = World::default();
    let wanted = w.store_level_chunk(2, -1, ColumnMode::Full(2), p.sub_chunks, p.block_entities);
    assert!(wanted.is_empty());
    // Sub-chunk 0 (y −64..−49), sub-chunk 1 is all stone, everything above is air.
    assert_eq!(w.get_block(32, -64, -16), BlockLookup::Loaded(palette_of(12)[0], Some(AIR_HASH)));
    assert_eq!(
        w.get_block(33, -62, -13),
        BlockLookup::Loaded(palette_of(12)[(block_index(1, 2, 3)) % 12], Some(WATER))
    );
    assert_eq!(w.get_block(40, -40, -1), BlockLookup::Loaded(STONE, None));
    assert_eq!(w.get_block(40, 300, -1), BlockLookup::Loaded(AIR_HASH, None));
    assert_eq!(w.get_block(40, 320, -1), BlockLookup::Unloaded, "above the world");
    assert_eq!(w.get_block(48, 0, 0), BlockLookup::Unloaded, "another column");
    assert_eq!(w.contains_id(2, -1, 1, STONE), Some(true));
    assert_eq!(w.contains_id(2, -1, 0, STONE), Some(false));
    assert_eq!(w.contains_id(2, -1, 0, WATER), Some(true));
    assert_eq!(w.column(2, -1).map(|c| c.block_entities.len()), Some(2));

    // Too many sub-chunks for the dimension, and garbage after the border byte.
    assert!(decode_level_chunk_payload(&payload, 25, 24, false).is_err());
    let mut bad = payload.clone();
    bad.push(0x63);
    assert!(decode_level_chunk_payload(&bad, 2, 24, false).is_err());
}

#[test]
fn level_chunk_request_mode() {
    let mut payload = Vec::new();
    biomes(&mut payload, 24);
    payload.push(0);
    let p = decode_level_chunk_payload(&payload, 0, 24, true).expect("decodes");
    assert!(p.sub_chunks.is_empty() && p.block_entities.is_empty());
    let mut w = World::default();
    assert_eq!(
        w.store_level_chunk(0, 0, ColumnMode::Request(None), Vec::new(), Vec::new()),
        (0..24).collect::<Vec<_>>()
    );
    assert_eq!(w.get_block(0, 100, 0), BlockLookup::Unloaded, "pending is not air");
    assert_eq!(
        w.store_level_chunk(0, 0, ColumnMode::Request(Some(5)), Vec::new(), Vec::new()),
        (0..=5).collect::<Vec<_>>()
    );
    assert_eq!(w.get_block(0, 100, 0), BlockLookup::Loaded(AIR_HASH, None), "above the limit is air");
    assert_eq!(w.get_block(0, 30, 0), BlockLookup::Unloaded);
    // Nether: 8 sub-chunks.
    let mut n = World::new(1);
    assert_eq!(n.store_level_chunk(0, 0, ColumnMode::Request(Some(99)), Vec::new(), Vec::new()).len(), 8);
    // A payload that stops after some biomes is accepted.
    assert!(decode_level_chunk_payload(&payload[..2], 0, 24, true).is_ok());
}

/// One test entry: offset, result name, payload, heightmap type name.
type Entry = ([i8; 3], &'static str, Option<Vec<u8>>, &'static str);

/// A SubChunk packet view with one entry per test entry.
fn sub_chunk_packet(origin: [i32; 3], entries: &[Entry]) -> SubChunkPacket {
    SubChunkPacket {
        cache_enabled: false,
        dimension: 0,
        origin: Vec3Li { x: origin[0], y: origin[1], z: origin[2] },
        entries: entries
            .iter()
            .map(|(off, result, payload, hm)| SubChunkEntryView {
                dx: off[0],
                dy: off[1],
                dz: off[2],
                result: (*result).into(),
                payload: payload.clone().map(ByteBuf),
                heightmap_type: (*hm).into(),
                heightmap: (*hm == "has_data").then(|| ByteBuf((0..256).map(|i| (i % 17) as u8).collect())),
                ..SubChunkEntryView::default()
            })
            .collect(),
    }
}

#[test]
fn sub_chunk_results() {
    let mut ok_payload = two_layer_sub_chunk(9, -4);
    encode_block_entity(&mut ok_payload, "Furnace", [0, -64, 0]);
    let packet = sub_chunk_packet(
        [0, 0, 0],
        &[
            ([0, -4, 0], "success", Some(ok_payload), "has_data"),
            ([0, -3, 0], "success_all_air", None, "too_low"),
            ([0, -2, 0], "chunk_not_found", None, "no_data"),
            ([0, -1, 0], "invalid_dimension", None, "no_data"),
            ([0, 0, 0], "player_not_found", None, "no_data"),
            ([0, 1, 0], "y_index_out_of_bounds", None, "too_high"),
            ([0, 2, 0], "undefined", None, "all_copied"),
            ([0, 3, 0], "success", None, "no_data"),
        ],
    );
    // Every version lays the packet out its own way; the view and the outcomes are the same.
    for info in Protocol::versions() {
        let protocol = Protocol::load(info.game_version).expect("load");
        let body = protocol.encode(&packet).expect("encode");
        let resp: SubChunkPacket = protocol.decode_as(&body).expect("decodes");
        assert_eq!(resp.entries.len(), 8);
        assert_eq!(resp.entries[0].heightmap.as_ref().map(|h| h.0[18]), Some(1), "{}", info.game_version);
        let outcomes: Vec<_> = resp
            .entries
            .iter()
            .map(|e| sub_chunk_outcome(&e.result, e.payload.as_ref().map(|p| p.0.as_slice())))
            .collect();
        assert!(matches!(&outcomes[0], Ok(SubChunkOutcome::Loaded(sc, be)) if sc.y_index == Some(-4) && be.len() == 1));
        assert_eq!(outcomes[1], Ok(SubChunkOutcome::AllAir));
        for (i, name) in [
            (2, "chunk_not_found"),
            (3, "invalid_dimension"),
            (4, "player_not_found"),
            (5, "y_index_out_of_bounds"),
            (6, "undefined"),
        ] {
            assert_eq!(outcomes[i], Ok(SubChunkOutcome::Unavailable(name.into())));
        }
        assert!(outcomes[7].is_err(), "success without a (or with an empty) payload");

        let mut w = World::default();
        w.store_level_chunk(0, 0, ColumnMode::Request(None), Vec::new(), Vec::new());
        for (e, o) in resp.entries.iter().zip(outcomes) {
            if let Ok(o) = o {
                w.apply_sub_chunk((0, i32::from(e.dy), 0), o);
            }
        }
        assert_eq!(w.get_block(1, -62, 3), BlockLookup::Loaded(palette_of(12)[block_index(1, 2, 3) % 12], Some(WATER)));
        assert_eq!(w.get_block(0, -48, 0), BlockLookup::Loaded(AIR_HASH, None));
        assert_eq!(w.get_block(0, -32, 0), BlockLookup::Unloaded, "chunk not found stays unloaded");
        assert_eq!(w.column(0, 0).map(|c| c.loaded_sub_chunks()), Some(2));
        // A second response for a delivered sub-chunk is ignored; one for an unknown column too.
        assert!(!w.apply_sub_chunk(
            (0, -3, 0),
            SubChunkOutcome::Loaded(
                decode_sub_chunk(&mut Reader::new(&two_layer_sub_chunk(1, 0))).expect("v1"),
                Vec::new()
            )
        ));
        assert!(!w.apply_sub_chunk((5, 0, 5), SubChunkOutcome::AllAir));
        // Truncations of the packet fail cleanly.
        for cut in [1, 5, 17, 30, body.len() - 1] {
            assert!(protocol.decode_as::<SubChunkPacket>(&body[..cut]).is_err(), "cut {cut}");
        }
    }
}

#[test]
fn block_updates_and_layers() {
    let mut w = World::default();
    w.store_level_chunk(0, 0, ColumnMode::Full(0), Vec::new(), Vec::new());
    assert_eq!(w.set_block(1, 64, 1, 0, STONE), Some(AIR_HASH));
    assert_eq!(w.get_block(1, 64, 1), BlockLookup::Loaded(STONE, None));
    assert_eq!(w.set_block(1, 64, 1, 1, WATER), Some(AIR_HASH), "layer 1 created on demand");
    assert_eq!(w.get_block(1, 64, 1), BlockLookup::Loaded(STONE, Some(WATER)));
    assert_eq!(w.get_block(2, 64, 1), BlockLookup::Loaded(AIR_HASH, Some(AIR_HASH)));
    assert_eq!(w.set_block(1, 64, 1, 2, WATER), None, "no layer 2");
    assert_eq!(w.set_block(17, 64, 1, 0, WATER), None, "unloaded column");
    assert_eq!(w.set_block(1, -65, 1, 0, WATER), None, "below the world");
    // Many distinct ids: palette and width grow, memory stays paletted.
    for i in 0..4096u32 {
        w.set_block((i >> 8) as i32, 16 + (i & 15) as i32, ((i >> 4) & 15) as i32, 0, i % 40);
    }
    let sc = w.sub_chunk_at(0, 16, 0).expect("loaded");
    assert_eq!(sc.layers[0].bits(), 6);
    assert!(sc.heap_bytes() < 4096, "paletted, {} bytes", sc.heap_bytes());
    assert_eq!(w.get_block(15, 31, 15), BlockLookup::Loaded(4095 % 40, None));
}

#[test]
fn dimensions_and_eviction() {
    let mut w = World::default();
    for cx in -20..20 {
        for cz in -20..20 {
            w.store_level_chunk(cx, cz, ColumnMode::Full(0), Vec::new(), Vec::new());
        }
    }
    assert_eq!(w.column_count(), 1600);
    // Touch one far column so LRU keeps it over older ones.
    let _ = w.column(-20, -20);
    assert_eq!(w.evict((0.0, 0.0), 2000, 1e9), 0);
    assert_eq!(w.evict((0.0, 0.0), 100, 1e9), 1500);
    assert!(w.column(-20, -20).is_some(), "recently used survives");
    let evicted = w.evict((8.0, 8.0), 100, 40.0);
    assert!(evicted > 0 && w.loaded_columns().all(|(x, z)| (x * 16 + 8 - 8).pow(2) + (z * 16 + 8 - 8).pow(2) <= 1600));
    let before = w.heap_bytes();
    assert!(before > 0);
    w.change_dimension(1);
    assert_eq!((w.column_count(), w.heights().sub_chunk_count()), (0, 8));
    w.set_heights(1, clawcraft_world::chunk::DimensionHeights { min_y: -64, max_y: 256 });
    assert_eq!(w.heights().sub_chunk_count(), 20);
    assert_eq!(w.heights().index_of_y(-64), Some(0));
}

/// A sign's block entity in network NBT: `FrontText`/`BackText` compounds (other fields around
/// `Text`), `IsWaxed`; or the old one-sided `Text`.
fn encode_sign(out: &mut Vec<u8>, pos: [i32; 3], sides: Option<(&str, &str)>, old: Option<&str>, waxed: u8) {
    out.put_u8(10);
    out.put_var_string("");
    let side = |out: &mut Vec<u8>, key: &str, text: &str| {
        out.put_u8(10);
        out.put_var_string(key);
        out.put_u8(3);
        out.put_var_string("SignTextColor");
        out.put_var_i32(-16_777_216);
        out.put_u8(8);
        out.put_var_string("Text");
        out.put_var_string(text);
        out.put_u8(1);
        out.put_var_string("IgnoreLighting");
        out.put_u8(0);
        out.put_u8(0);
    };
    if let Some((front, _)) = sides {
        side(out, "FrontText", front);
    }
    out.put_u8(8);
    out.put_var_string("id");
    out.put_var_string("Sign");
    for (name, v) in ["x", "y", "z"].iter().zip(pos) {
        out.put_u8(3);
        out.put_var_string(name);
        out.put_var_i32(v);
    }
    out.put_u8(1);
    out.put_var_string("IsWaxed");
    out.put_u8(waxed);
    if let Some(text) = old {
        out.put_u8(8);
        out.put_var_string("Text");
        out.put_var_string(text);
    }
    if let Some((_, back)) = sides {
        side(out, "BackText", back);
    }
    out.put_u8(0);
}

#[test]
fn sign_block_entities_keep_their_text() {
    use clawcraft_world::chunk::wire::decode_block_entities;
    let mut bytes = Vec::new();
    encode_sign(&mut bytes, [1, -60, -2], Some(("Hi\nthere", "Bye")), None, 1);
    encode_sign(&mut bytes, [2, -60, -2], None, Some("Old"), 0);
    encode_block_entity(&mut bytes, "Chest", [3, -60, 5]);
    let list = decode_block_entities(&mut Reader::new(&bytes)).expect("decodes");
    let sign = |i: usize| list[i].sign.as_deref().map(|s| (s.text.front.as_str(), s.text.back.as_str(), s.text.waxed));
    assert_eq!(list[0].pos, Some([1, -60, -2]));
    assert_eq!(sign(0), Some(("Hi\nthere", "Bye", true)));
    assert_eq!(sign(1), Some(("Old", "", false)));
    assert_eq!(sign(2), None, "a chest has no text");
    // The whole block entity is kept: the colour goes back unchanged when the sign is edited.
    let colour = |i: usize| {
        let NbtTag::Compound(root) = &list[i].sign.as_deref().expect("a sign").nbt.tag else { panic!("a compound") };
        let Some((_, NbtTag::Compound(front))) = root.iter().find(|(k, _)| k == "FrontText") else { return None };
        front.iter().find(|(k, _)| k == "SignTextColor").map(|(_, v)| v.clone())
    };
    assert_eq!(colour(0), Some(NbtTag::Int(-16_777_216)));
    assert_eq!(colour(1), None, "an old-format sign has no side compounds");
    // Cut anywhere, the reader errs rather than panics.
    for cut in 0..bytes.len() {
        let _ = decode_block_entities(&mut Reader::new(&bytes[..cut]));
    }
}
