//! Query timings on a synthetic loaded world: `scan` radius 8 and `find` radius 64 (block absent,
//! and present). `cargo bench -p clawcraft-world --bench queries`.

use std::hint::black_box;
use std::time::Instant;

use clawcraft_world::chunk::{ColumnMode, PalettedStorage, WireSubChunk, World};
use clawcraft_world::ids::IdTable;
use clawcraft_world::query::{Cell, compact_scan, find, scan};

/// Columns loaded on each side of the origin column (17 × 17 columns, ±136 blocks).
const HALF: i32 = 8;

fn id(ids: &IdTable, name: &str) -> u32 {
    let s = ids.registry.states_named(name).next().unwrap_or_else(|| panic!("{name} exists"));
    ids.map.network_id(s).unwrap_or_else(|| panic!("{name} has an id"))
}

/// Overworld-like column: deepslate/stone bands with ores and gravel below y = 0, dirt and grass
/// at −1..0, air above; the bottom 4 sub-chunks terrain, the rest air.
fn column(ids: &IdTable, seed: u32) -> Vec<WireSubChunk> {
    let (air, stone, deep, dirt, grass, gravel, coal, iron, water) = (
        id(ids, "air"),
        id(ids, "stone"),
        id(ids, "deepslate"),
        id(ids, "dirt"),
        id(ids, "grass_block"),
        id(ids, "gravel"),
        id(ids, "coal_ore"),
        id(ids, "iron_ore"),
        id(ids, "water"),
    );
    let mut x = seed.wrapping_mul(0x9E37_79B9) | 1;
    let mut subs = Vec::new();
    for sy in 0..24 {
        if sy >= 5 {
            subs.push(WireSubChunk { y_index: None, layers: vec![PalettedStorage::Single(air)] });
            continue;
        }
        let mut s = PalettedStorage::Single(if sy < 2 { deep } else { stone });
        for i in 0..4096usize {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            let y = sy * 16 + (i & 15) as i32 - 64;
            let id = match (y, x % 64) {
                (y, _) if y > 3 => air,
                (3, 0..2) => water,
                (3, _) => grass,
                (1..=2, _) => dirt,
                (_, 0) => coal,
                (_, 1) => iron,
                (_, 2..=3) => gravel,
                _ => continue,
            };
            s.set(i, id);
        }
        subs.push(WireSubChunk { y_index: None, layers: vec![s] });
    }
    subs
}

/// The state of `name` whose properties equal the map file's `states` (numbers match bytes or ints).
fn map_state(ids: &IdTable, name: &str, states: &serde_json::Map<String, serde_json::Value>) -> u32 {
    use clawcraft_world::block::StateValue;
    let s = ids
        .registry
        .states_named(name)
        .find(|&i| {
            let st = ids.registry.state(i).expect("state");
            st.properties.len() == states.len()
                && st.properties.iter().all(|(k, v)| match (v, states.get(k)) {
                    (StateValue::Str(a), Some(serde_json::Value::String(b))) => a == b,
                    (StateValue::Byte(a), Some(b)) => b.as_i64() == Some(i64::from(*a)),
                    (StateValue::Int(a), Some(b)) => b.as_i64() == Some(i64::from(*a)),
                    _ => false,
                })
        })
        .unwrap_or_else(|| panic!("{name} {states:?}"));
    ids.map.network_id(s).expect("id")
}

/// The peer's maps (`tests/peer/maps/mixed.json`, and its flat base layers alone) loaded as the
/// peer sends them: every column within 8 chunks (circle), 24 sub-chunks. Heap bytes per column.
fn peer_map_bytes(ids: &IdTable, mixed: bool) -> Option<(usize, usize)> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/peer/maps/mixed.json");
    let map: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(path).ok()?).ok()?;
    let air = id(ids, "air");
    let mut w = World::default();
    w.set_air_id(air);
    let obj = |v: &serde_json::Value| v["states"].as_object().cloned().unwrap_or_default();
    for cx in -8i32..=8 {
        for cz in -8i32..=8 {
            if cx * cx + cz * cz > 64 {
                continue;
            }
            let subs =
                (0..24).map(|_| WireSubChunk { y_index: None, layers: vec![PalettedStorage::Single(air)] }).collect();
            w.store_level_chunk(cx, cz, ColumnMode::Full(24), subs, Vec::new());
            for l in map["base_layers"].as_array()? {
                let (y, state) = (l["y"].as_i64()? as i32, map_state(ids, l["name"].as_str()?, &obj(l)));
                for x in 0..16 {
                    for z in 0..16 {
                        w.set_block(cx * 16 + x, y, cz * 16 + z, 0, state);
                    }
                }
            }
        }
    }
    if mixed {
        let at = |v: &serde_json::Value| {
            [
                v["x"].as_i64().unwrap_or(0) as i32,
                v["y"].as_i64().unwrap_or(0) as i32,
                v["z"].as_i64().unwrap_or(0) as i32,
            ]
        };
        for f in map["fills"].as_array()? {
            let (a, b, state) = (at(&f["from"]), at(&f["to"]), map_state(ids, f["name"].as_str()?, &obj(f)));
            for x in a[0]..=b[0] {
                for y in a[1]..=b[1] {
                    for z in a[2]..=b[2] {
                        w.set_block(x, y, z, 0, state);
                    }
                }
            }
        }
        for b in map["blocks"].as_array()? {
            let p = at(b);
            w.set_block(p[0], p[1], p[2], 0, map_state(ids, b["name"].as_str()?, &obj(b)));
            if let Some(l1) = b.get("layer1") {
                w.set_block(p[0], p[1], p[2], 1, map_state(ids, l1["name"].as_str()?, &obj(l1)));
            }
        }
    }
    Some((w.column_count(), w.heap_bytes() / w.column_count()))
}

fn time<T>(label: &str, runs: u32, mut f: impl FnMut() -> T) {
    f();
    let start = Instant::now();
    for _ in 0..runs {
        black_box(f());
    }
    let per = start.elapsed().as_secs_f64() / f64::from(runs);
    println!("{label}: {:.3} ms", per * 1e3);
}

fn main() {
    let ids = IdTable::new("1.26.45", true).expect("block data");
    for (label, mixed) in [("flat", false), ("mixed", true)] {
        match peer_map_bytes(&ids, mixed) {
            Some((n, bytes)) => println!("peer {label} map: {n} columns, {bytes} heap bytes/column"),
            None => println!("peer {label} map: tests/peer/maps/mixed.json not readable"),
        }
    }
    let mut world = World::default();
    for cx in -HALF..=HALF {
        for cz in -HALF..=HALF {
            let subs = column(&ids, (cx * 131 + cz * 7 + 1000) as u32);
            world.store_level_chunk(cx, cz, ColumnMode::Full(subs.len()), subs, Vec::new());
        }
    }
    let columns = world.column_count();
    println!("synthetic world: {columns} columns, {} heap bytes/column", world.heap_bytes() / columns);
    let feet = [0.5, 4.0, 0.5];
    let origin = Cell { x: 0, y: 4, z: 0 };

    time("scan radius 8, radiusY 2 (1445 cells)", 200, || scan(&world, &ids, origin, 8, 2));
    time("scan radius 8, radiusY 8 (4913 cells)", 100, || scan(&world, &ids, origin, 8, 8));
    time("compact_scan radius 8, radiusY 8", 100, || compact_scan(&world, &ids, origin, 8, 8));

    let absent = ids.ids_matching("emerald_ore");
    let r = find(&world, &ids, &absent, feet, 64.0, 5);
    assert_eq!(r.count, 0);
    println!(
        "find absent: {} columns, {} sub-chunks skipped by palette, {} read",
        r.columns_searched, r.sub_chunks_skipped, r.sub_chunks_read
    );
    time("find radius 64, block absent (emerald_ore)", 200, || find(&world, &ids, &absent, feet, 64.0, 5));

    // One diamond ore 50 blocks away: every sub-chunk but its own is skipped by palette.
    let diamond = id(&ids, "diamond_ore");
    world.set_block(40, -20, 30, 0, diamond);
    let present = ids.ids_matching("diamond_ore");
    let r = find(&world, &ids, &present, feet, 64.0, 5);
    assert_eq!(r.count, 1);
    time("find radius 64, one diamond_ore at 50 blocks", 200, || find(&world, &ids, &present, feet, 64.0, 5));

    let common = ids.ids_matching("coal_ore");
    let r = find(&world, &ids, &common, feet, 64.0, 5);
    println!("find coal_ore: {} hits, {} sub-chunks read", r.count, r.sub_chunks_read);
    time("find radius 64, common block (coal_ore, 5 nearest)", 50, || find(&world, &ids, &common, feet, 64.0, 5));
    time("find radius 64, common block (coal_ore, 256 nearest)", 20, || find(&world, &ids, &common, feet, 64.0, 256));
}
