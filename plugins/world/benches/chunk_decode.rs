//! Sub-chunk decode throughput and memory per loaded column. `cargo bench -p clawcraft-world`.

use std::hint::black_box;
use std::time::Instant;

use clawcraft_protocol::io::Reader;
use clawcraft_world::chunk::wire::{decode_sub_chunk, encode_sub_chunk};
use clawcraft_world::chunk::world::AIR_HASH;
use clawcraft_world::chunk::{ColumnMode, PalettedStorage, WireSubChunk, World};

/// A terrain-like sub-chunk: 12 block types (4-bit indices), layered with some noise.
fn mixed_storage(seed: u32) -> PalettedStorage {
    let ids: Vec<u32> = (0..12u32).map(|k| (k + seed).wrapping_mul(0x9E37_79B9)).collect();
    let mut s = PalettedStorage::Single(ids[0]);
    let mut x = seed.wrapping_add(0x1234_5678);
    for i in 0..4096usize {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        let y = i & 15;
        let band = y * 2 / 3;
        s.set(i, ids[(band + (x % 4) as usize).min(11)]);
    }
    s
}

fn flat_column(w: &mut World, cx: i32) {
    let layer = |id: u32| WireSubChunk { y_index: None, layers: vec![PalettedStorage::Single(id)] };
    let mut bottom = PalettedStorage::Single(1);
    for i in 0..4096 {
        let y = i & 15;
        bottom.set(
            i,
            if y == 0 {
                1
            } else if y < 3 {
                2
            } else if y == 3 {
                3
            } else {
                AIR_HASH
            },
        );
    }
    let subs = vec![WireSubChunk { y_index: None, layers: vec![bottom] }, layer(AIR_HASH)];
    w.store_level_chunk(cx, 0, ColumnMode::Full(subs.len()), subs, Vec::new());
}

fn mixed_column(w: &mut World, cx: i32) {
    let subs: Vec<WireSubChunk> =
        (0..16).map(|i| WireSubChunk { y_index: None, layers: vec![mixed_storage(i + cx as u32 * 16)] }).collect();
    w.store_level_chunk(cx, 1, ColumnMode::Full(subs.len()), subs, Vec::new());
}

fn main() {
    let storage = mixed_storage(7);
    assert_eq!((storage.bits(), storage.palette().len()), (4, 12));
    let mut bytes = Vec::new();
    encode_sub_chunk(&mut bytes, 9, 2, &[storage]);
    let n = 20_000;
    let start = Instant::now();
    for _ in 0..n {
        let sc = decode_sub_chunk(&mut Reader::new(black_box(&bytes))).expect("decodes");
        black_box(sc);
    }
    let secs = start.elapsed().as_secs_f64();
    println!("mixed sub-chunk (4-bit, 12 entries, {} bytes): {:.0} sub-chunks/s", bytes.len(), n as f64 / secs);

    let columns = 64;
    let mut flat = World::default();
    for cx in 0..columns {
        flat_column(&mut flat, cx);
    }
    println!("flat column (overworld, 24 sub-chunks): {} heap bytes/column", flat.heap_bytes() / columns as usize);
    let mut mixed = World::default();
    for cx in 0..columns {
        mixed_column(&mut mixed, cx);
    }
    println!(
        "mixed column (16 mixed sub-chunks + 8 air): {} heap bytes/column (4 bytes/block would be {})",
        mixed.heap_bytes() / columns as usize,
        24 * 4096 * 4
    );
}
