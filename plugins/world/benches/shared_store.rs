//! The shared block store ([`BlockStore`]): what a sub-chunk costs to read from the wire when
//! the store already holds it (hit) and when it does not (miss), against the plain decoder; and
//! the memory of N bots' worlds loaded from the same columns, through the store (each bot's
//! view plus one copy of each distinct sub-chunk) and as N separate copies (every bot decoding
//! its own, as before the store). `cargo bench -p clawcraft-world --bench shared_store`.
//!
//! The area is what a bot with chunk radius 8 loads: 197 columns (a circle of radius 8), each
//! sent in full mode with its 5 lowest sub-chunks (overworld-like terrain with ores and gravel,
//! random per column, so no two are equal) and the rest of the 24 left to air. Every figure is
//! the median of 5 runs.

use std::hint::black_box;
use std::sync::Arc;
use std::time::Instant;

use clawcraft_protocol::io::Reader;
use clawcraft_world::chunk::wire::{
    decode_level_chunk_payload, decode_sub_chunk, encode_biome, encode_sub_chunk, read_level_chunk_payload,
};
use clawcraft_world::chunk::world::AIR_HASH;
use clawcraft_world::chunk::{BlockStore, ColumnMode, PalettedStorage, SubChunk, World};

/// Sub-chunks sent per column (the rest of the 24 are air).
const SENT: usize = 5;
/// Sub-chunks in an overworld column.
const HEIGHT: usize = 24;

/// Terrain: deepslate, then stone, with coal, iron, copper, gravel and granite; dirt, grass and
/// some water on top, air above (palettes of 6 and 10 ids: 3- and 4-bit indices, checked
/// against the palette on decode).
fn terrain(sy: usize, seed: u32) -> PalettedStorage {
    let [deep, stone, dirt, grass, gravel, coal, iron, water, copper, granite] =
        [11u32, 12, 13, 14, 15, 16, 17, 18, 19, 20];
    let mut x = seed.wrapping_mul(0x9E37_79B9) | 1;
    let mut s = PalettedStorage::Single(if sy < 2 { deep } else { stone });
    for i in 0..4096usize {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        let y = (sy * 16 + (i & 15)) as i32 - 64;
        let id = match (y, x % 64) {
            (y, _) if y > 3 => AIR_HASH,
            (3, 0..2) => water,
            (3, _) => grass,
            (1..=2, _) => dirt,
            (_, 0) => coal,
            (_, 1) => iron,
            (_, 2..=3) => gravel,
            (_, 4) => copper,
            (_, 5) => granite,
            _ => continue,
        };
        s.set(i, id);
    }
    s
}

/// The columns of the area as LevelChunk payloads (full mode, [`SENT`] sub-chunks, version 9).
fn area() -> Vec<((i32, i32), Vec<u8>)> {
    let mut out = Vec::new();
    for cx in -8i32..=8 {
        for cz in -8i32..=8 {
            if cx * cx + cz * cz > 64 {
                continue;
            }
            let mut payload = Vec::new();
            for sy in 0..SENT {
                let seed = ((cx + 8) * 17 + cz + 8) as u32 * 64 + sy as u32;
                encode_sub_chunk(&mut payload, 9, sy as i8 - 4, &[terrain(sy, seed)]);
            }
            encode_biome(&mut payload, 1);
            payload.extend(std::iter::repeat_n(0xFF, HEIGHT - 1));
            payload.push(0);
            out.push(((cx, cz), payload));
        }
    }
    out
}

/// A world loaded as the world plugin loads it: sub-chunks from `store`.
fn load_shared(store: &mut BlockStore, area: &[((i32, i32), Vec<u8>)]) -> World {
    let mut w = World::default();
    let air = w.air_id();
    for ((cx, cz), payload) in area {
        let read = |r: &mut Reader<'_>| store.read_sub_chunk(r, air).map(|s| (s.y_index, s.sub_chunk));
        let (subs, entities) = read_level_chunk_payload(payload, SENT, HEIGHT, false, read).expect("decodes");
        let air = store.uniform(air);
        w.store_column(*cx, *cz, ColumnMode::Full(SENT), subs, entities, &air);
    }
    w
}

/// A world with sub-chunks of its own (every bot decoding its copy).
fn load_separate(area: &[((i32, i32), Vec<u8>)]) -> World {
    let mut w = World::default();
    for ((cx, cz), payload) in area {
        let p = decode_level_chunk_payload(payload, SENT, HEIGHT, false).expect("decodes");
        w.store_level_chunk(*cx, *cz, ColumnMode::Full(SENT), p.sub_chunks, p.block_entities);
    }
    w
}

/// Every wire sub-chunk of the area, as byte slices.
fn wire_sub_chunks(area: &[((i32, i32), Vec<u8>)]) -> Vec<&[u8]> {
    let mut out = Vec::new();
    for (_, payload) in area {
        let mut r = Reader::new(payload);
        for _ in 0..SENT {
            let start = r.position();
            decode_sub_chunk(&mut r).expect("decodes");
            out.push(&payload[start..r.position()]);
        }
    }
    out
}

/// The median of 5 runs of `f`.
fn median(mut f: impl FnMut() -> f64) -> f64 {
    let mut runs: Vec<f64> = (0..5).map(|_| f()).collect();
    runs.sort_by(f64::total_cmp);
    runs[2]
}

/// Sub-chunks per second of `rounds` passes of `pass` over `n` sub-chunks.
fn rate(n: usize, rounds: u32, mut pass: impl FnMut()) -> f64 {
    let t = Instant::now();
    for _ in 0..rounds {
        pass();
    }
    n as f64 * f64::from(rounds) / t.elapsed().as_secs_f64()
}

fn mib(bytes: usize) -> f64 {
    bytes as f64 / (1024.0 * 1024.0)
}

fn main() {
    let area = area();
    let subs = wire_sub_chunks(&area);
    let bytes: usize = subs.iter().map(|s| s.len()).sum();
    println!(
        "area: {} columns, {} sub-chunks sent ({} wire bytes each on average)",
        area.len(),
        subs.len(),
        bytes / subs.len()
    );

    let rounds = 20;
    let plain = median(|| {
        rate(subs.len(), rounds, || {
            for s in &subs {
                let w = decode_sub_chunk(&mut Reader::new(black_box(s))).expect("decodes");
                black_box(Arc::new(SubChunk::from_wire(w, AIR_HASH)));
            }
        })
    });
    // A fresh store each pass: every read misses (hashes, decodes, stores).
    let miss = median(|| {
        rate(subs.len(), rounds, || {
            let mut store = BlockStore::default();
            let held: Vec<_> = subs
                .iter()
                .map(|s| store.read_sub_chunk(&mut Reader::new(black_box(s)), AIR_HASH).expect("decodes"))
                .collect();
            black_box(held);
        })
    });
    let mut store = BlockStore::default();
    let held: Vec<_> =
        subs.iter().map(|s| store.read_sub_chunk(&mut Reader::new(s), AIR_HASH).expect("decodes")).collect();
    let hit = median(|| {
        rate(subs.len(), rounds, || {
            for s in &subs {
                black_box(store.read_sub_chunk(&mut Reader::new(black_box(s)), AIR_HASH).expect("decodes"));
            }
        })
    });
    assert_eq!(store.stats().decoded, subs.len() as u64, "every later read was a hit");
    drop(held);
    for (what, per_second) in [("no store", plain), ("store miss", miss), ("store hit", hit)] {
        println!("decode, {what}: {:.2} M sub-chunks/s ({:.0} ns each)", per_second / 1e6, 1e9 / per_second);
    }

    for n in [1usize, 10, 50] {
        let mut separate_bytes = 0;
        let separate_ms = median(|| {
            let t = Instant::now();
            let worlds: Vec<World> = (0..n).map(|_| load_separate(&area)).collect();
            let ms = t.elapsed().as_secs_f64() * 1e3;
            separate_bytes = worlds.iter().map(World::heap_bytes).sum();
            ms
        });
        let (mut held, mut views) = (0, 0);
        let shared_ms = median(|| {
            let t = Instant::now();
            let mut store = BlockStore::default();
            let worlds: Vec<World> = (0..n).map(|_| load_shared(&mut store, &area)).collect();
            let ms = t.elapsed().as_secs_f64() * 1e3;
            assert_eq!(store.live(), subs.len() + 1, "each sent sub-chunk once, and air");
            (held, views) = (store.heap_bytes(), worlds.iter().map(World::view_heap_bytes).sum());
            ms
        });
        println!(
            "{n} bots: separate copies {:.2} MiB (load {separate_ms:.1} ms); shared {:.2} MiB = store {:.2} MiB + \
             views {:.2} MiB (load {shared_ms:.1} ms)",
            mib(separate_bytes),
            mib(held + views),
            mib(held),
            mib(views),
        );
    }
}
