//! Registry, hash and shape-class tests against the embedded 1.26.45 data and the independent
//! hash vectors of `tests/vectors/make-block-hashes.js`.

use std::sync::Arc;

use serde::Deserialize;

use super::*;

const VERSION: &str = "1.26.45";
const AIR_HASH: u32 = 0xDBF4_4120;

fn registry() -> Arc<BlockRegistry> {
    BlockRegistry::for_version(VERSION).expect("embedded 1.26.45 block data")
}

fn info<'a>(reg: &'a BlockRegistry, name: &str) -> &'a BlockInfo {
    reg.block_named(name).unwrap_or_else(|| panic!("no block {name}"))
}

fn shape(reg: &BlockRegistry, name: &str) -> ShapeClass {
    info(reg, name).shape
}

#[derive(Deserialize)]
struct TypedValue {
    #[serde(rename = "type")]
    kind: String,
    value: serde_json::Value,
}

#[derive(Deserialize)]
struct Vector {
    name: String,
    states: std::collections::BTreeMap<String, TypedValue>,
    hash: u32,
}

fn vector_properties(v: &Vector) -> Vec<(String, StateValue)> {
    v.states
        .iter()
        .map(|(k, t)| {
            let value = match t.kind.as_str() {
                "string" => StateValue::Str(t.value.as_str().expect("string value").to_owned()),
                "byte" => StateValue::Byte(u8::try_from(t.value.as_u64().expect("byte value")).expect("u8")),
                "int" => StateValue::Int(i32::try_from(t.value.as_i64().expect("int value")).expect("i32")),
                other => panic!("unexpected state type {other}"),
            };
            (k.clone(), value)
        })
        .collect()
}

#[test]
fn block_registry_loads_and_caches() {
    let reg = registry();
    assert!(Arc::ptr_eq(&reg, &registry()), "second call must hit the cache");
    assert_eq!(reg.game_version(), VERSION);
    assert_eq!(reg.states().len(), 17_499);
    assert_eq!(reg.blocks().len(), 1_379);
    assert!(BlockRegistry::versions().any(|v| v == VERSION));
    assert!(matches!(BlockRegistry::for_version("0.0.1"), Err(BlockDataError::UnknownVersion(_))));
    // Every state points back at its block and blocks tile the state list.
    for block in reg.blocks() {
        for i in block.states() {
            assert_eq!(reg.block_of(i).map(|b| &b.name), Some(&block.name));
        }
    }
}

#[test]
fn block_registry_is_compact() {
    let reg = registry();
    // 17 499 states once cost ~11 MB as strings per state; interned they fit in well under 1 MiB.
    eprintln!("block registry: {} states, {} bytes", reg.state_count(), reg.heap_bytes());
    assert!(reg.heap_bytes() < 1 << 20, "{} bytes", reg.heap_bytes());
    let stairs = reg.state_with("oak_stairs", &[("weirdo_direction", StateValue::Int(2))]).expect("stairs");
    let s = reg.state(stairs).expect("state");
    assert_eq!(s.name, "minecraft:oak_stairs");
    assert_eq!(s.properties.get("weirdo_direction"), Some(&StateValue::Int(2)));
    let keys: Vec<&str> = s.properties.iter().map(|(k, _)| k).collect();
    let mut sorted = keys.clone();
    sorted.sort_unstable();
    assert_eq!(keys, sorted, "properties in key order");
}

#[test]
fn block_air_hash_and_detection() {
    let reg = registry();
    assert_eq!(network_hash::<&str>("minecraft:air", &[]), AIR_HASH);
    assert_eq!(reg.network_hash_of(reg.air()), Some(AIR_HASH));
    let map = reg.network_id_map(true);
    assert_eq!(map.state(AIR_HASH), Some(reg.air()));
    assert_eq!(map.state((-604_749_536_i32) as u32), Some(reg.air()), "signed palette form");
    assert!(reg.is_air(reg.air()));
    let stone = reg.states_named("stone").next().expect("stone");
    assert!(!reg.is_air(stone));
    assert_eq!(map.state(0xFFFF_FFFE), None, "minecraft:unknown is not in the registry");
}

#[test]
fn block_hash_vectors_match_and_resolve() {
    let text = include_str!("../../../../tests/vectors/block-hashes-1.26.45.json");
    let vectors: Vec<Vector> = serde_json::from_str(text).expect("vector file");
    assert!(vectors.len() >= 200, "only {} vectors", vectors.len());
    let reg = registry();
    let map = reg.network_id_map(true);
    for v in &vectors {
        let props = vector_properties(v);
        assert_eq!(network_hash(&v.name, &props), v.hash, "hash of {} {:?}", v.name, props);
        let index = map.state(v.hash).unwrap_or_else(|| panic!("{} {:?} not resolved", v.name, props));
        let state = reg.state(index).expect("state");
        assert_eq!(state.name, v.name);
        let mut sorted = props.clone();
        sorted.sort_by(|a, b| a.0.cmp(&b.0));
        assert_eq!(state.properties, sorted);
        assert_eq!(map.network_id(index), Some(v.hash));
        assert_eq!(reg.state_exact(&v.name, &props), Some(index));
    }
    assert!(vectors.iter().any(|v| v.name == "minecraft:air" && v.hash == AIR_HASH));
}

#[test]
fn block_hashes_are_unique() {
    let reg = registry();
    let map = reg.network_id_map(true);
    for i in (0..reg.states().len()).map(|i| StateIndex(u32::try_from(i).expect("u32"))) {
        let id = map.network_id(i).expect("id");
        assert_eq!(map.state(id), Some(i), "hash collision at state {i:?}");
    }
}

#[test]
fn block_hash_ignores_property_order() {
    let a = [("b".to_owned(), StateValue::Int(1)), ("a".to_owned(), StateValue::Str("x".into()))];
    let b = [a[1].clone(), a[0].clone()];
    assert_eq!(network_hash("minecraft:t", &a), network_hash("minecraft:t", &b));
    // The value type is part of the hash.
    assert_ne!(
        network_hash("minecraft:t", &[("a", StateValue::Byte(1))]),
        network_hash("minecraft:t", &[("a", StateValue::Int(1))])
    );
}

#[test]
fn block_palette_index_mode() {
    let reg = registry();
    let map = reg.network_id_map(false);
    assert!(!map.is_hashed());
    assert_eq!(map.len(), reg.states().len());
    assert_eq!(map.state(0), Some(StateIndex(0)));
    assert_eq!(reg.state(StateIndex(0)).map(|s| s.name), Some("minecraft:cyan_terracotta"));
    assert_eq!(map.state(reg.air().0), Some(reg.air()));
    assert_eq!(map.network_id(reg.air()), Some(reg.air().0));
    let last = u32::try_from(reg.states().len()).expect("u32");
    assert_eq!(map.state(last - 1), Some(StateIndex(last - 1)));
    assert_eq!(map.state(last), None);
    assert_eq!(map.network_id(StateIndex(last)), None);
}

#[test]
fn block_shape_classes() {
    let reg = registry();
    let cases = [
        ("stone", ShapeClass::Full),
        ("dirt", ShapeClass::Full),
        ("oak_stairs", ShapeClass::Stairs),
        ("oak_slab", ShapeClass::Slab),
        ("oak_double_slab", ShapeClass::Full),
        ("oak_fence", ShapeClass::FenceWall),
        ("fence_gate", ShapeClass::FenceWall),
        ("cobblestone_wall", ShapeClass::FenceWall),
        ("wooden_door", ShapeClass::Door),
        ("iron_door", ShapeClass::Door),
        ("trapdoor", ShapeClass::Trapdoor),
        ("ladder", ShapeClass::LadderVineScaffolding),
        ("vine", ShapeClass::LadderVineScaffolding),
        ("scaffolding", ShapeClass::LadderVineScaffolding),
        ("water", ShapeClass::Liquid),
        ("flowing_water", ShapeClass::Liquid),
        ("lava", ShapeClass::Hazard),
        ("flowing_lava", ShapeClass::Hazard),
        ("cactus", ShapeClass::Hazard),
        ("magma", ShapeClass::Hazard),
        ("fire", ShapeClass::Hazard),
        ("sweet_berry_bush", ShapeClass::Hazard),
        ("powder_snow", ShapeClass::Hazard),
        ("short_grass", ShapeClass::Passable),
        ("poppy", ShapeClass::Passable),
        ("torch", ShapeClass::Passable),
        ("rail", ShapeClass::Passable),
        ("stone_button", ShapeClass::Passable),
        ("standing_sign", ShapeClass::Passable),
        ("chest", ShapeClass::OtherPartial),
        ("snow_layer", ShapeClass::OtherPartial),
        ("air", ShapeClass::Air),
    ];
    for (name, expected) in cases {
        assert_eq!(shape(&reg, name), expected, "{name}");
    }
    assert!(shape(&reg, "stone").is_solid());
    assert!(shape(&reg, "short_grass").is_passable());
    assert!(shape(&reg, "air").is_passable());
    assert!(shape(&reg, "water").is_liquid());
    let lava = info(&reg, "lava");
    assert!(lava.shape.is_hazard() && lava.is_liquid() && !lava.shape.is_liquid());
    assert!(info(&reg, "water").is_liquid());
    assert!(!info(&reg, "stone").is_liquid());
}

#[test]
fn block_door_open_state() {
    let reg = registry();
    let open = reg.state_with("wooden_door", &[("open_bit", StateValue::Byte(1))]).expect("open door");
    let closed = reg.state_with("wooden_door", &[("open_bit", StateValue::Byte(0))]).expect("closed door");
    assert!(reg.state(open).expect("state").is_open());
    assert!(!reg.state(closed).expect("state").is_open());
}

#[test]
fn block_hardness() {
    let reg = registry();
    assert_eq!(info(&reg, "stone").hardness, 1.5);
    assert_eq!(info(&reg, "dirt").hardness, 0.5);
    // Bedrock destroy time (minecraft-data; PocketMine-MP also uses 35 "/* 50 in PC */"), not Java's 50.
    assert_eq!(info(&reg, "obsidian").hardness, 35.0);
    assert_eq!(info(&reg, "bedrock").hardness, -1.0);
    assert!(info(&reg, "bedrock").is_unbreakable());
    assert!(!info(&reg, "stone").is_unbreakable());
}

#[test]
fn block_harvest_tools() {
    let reg = registry();
    let stone = &info(&reg, "stone").harvest_tools;
    assert_eq!(stone.required, vec![ToolKind::Pickaxe]);
    assert_eq!(stone.min_tier, Some(ToolTier::Wooden));
    assert!(!stone.is_any());
    assert!(!stone.can_harvest(None));
    assert!(stone.can_harvest(Some((ToolKind::Pickaxe, Some(ToolTier::Wooden)))));
    assert!(!stone.can_harvest(Some((ToolKind::Shovel, Some(ToolTier::Diamond)))));

    let dirt = &info(&reg, "dirt").harvest_tools;
    assert!(dirt.is_any() && dirt.can_harvest(None));
    assert_eq!(dirt.preferred, vec![ToolKind::Shovel]);

    let diamond_ore = &info(&reg, "diamond_ore").harvest_tools;
    assert_eq!(diamond_ore.min_tier, Some(ToolTier::Iron));
    assert!(!diamond_ore.can_harvest(Some((ToolKind::Pickaxe, Some(ToolTier::Stone)))));
    assert!(diamond_ore.can_harvest(Some((ToolKind::Pickaxe, Some(ToolTier::Diamond)))));
    assert_eq!(info(&reg, "obsidian").harvest_tools.min_tier, Some(ToolTier::Diamond));

    let web = &info(&reg, "web").harvest_tools;
    assert!(web.can_harvest(Some((ToolKind::Shears, None))));
    assert!(web.can_harvest(Some((ToolKind::Sword, Some(ToolTier::Wooden)))));
}

#[test]
fn block_name_lookup_and_search() {
    let reg = registry();
    assert_eq!(reg.states_named("minecraft:stone").count(), 1);
    assert_eq!(reg.states_named("stone").count(), 1);
    assert_eq!(reg.states_named("water").count(), 16);
    assert_eq!(reg.states_named("no_such_block").count(), 0);
    assert_eq!(reg.block_id("minecraft:stone"), reg.block_id("stone"));

    let hits = reg.search("Minecraft:OAK_LOG");
    assert_eq!(reg.block(hits[0]).map(|b| &*b.name), Some("minecraft:oak_log"), "exact match first");
    let logs = reg.search("log");
    assert!(logs.len() > 5);
    assert!(logs.iter().all(|&id| reg.block(id).is_some_and(|b| b.name.contains("log"))));
    assert!(reg.search("zzz_nothing").is_empty());
}

#[test]
fn block_custom_states() {
    let mut reg = (*registry()).clone();
    let before = reg.states().len();
    let id = reg
        .add_custom(
            "custom:thing",
            vec![
                vec![("custom:on".to_owned(), StateValue::Byte(0))],
                vec![("custom:on".to_owned(), StateValue::Byte(1))],
            ],
        )
        .expect("custom block");
    assert_eq!(reg.states().len(), before + 2);
    let map = reg.network_id_map(true);
    let hash = network_hash("custom:thing", &[("custom:on", StateValue::Byte(1))]);
    let index = map.state(hash).expect("custom hash resolves");
    assert_eq!(reg.state(index).map(|s| s.block), Some(id));
    assert!(reg.add_custom("minecraft:stone", vec![vec![]]).is_err(), "names are unique");
}

/// Micro benchmark of the chunk-decode hot path: `cargo test -p clawcraft-world --release
/// block_bench -- --ignored --nocapture`.
#[test]
#[ignore]
fn block_bench_network_id_lookup() {
    use std::hint::black_box;
    use std::time::Instant;

    let reg = registry();
    for hashed in [true, false] {
        let map = reg.network_id_map(hashed);
        let ids: Vec<u32> = (0..reg.states().len())
            .map(|i| map.network_id(StateIndex(u32::try_from(i).expect("u32"))).expect("id"))
            .collect();
        let rounds = 200;
        let start = Instant::now();
        let mut found = 0usize;
        for _ in 0..rounds {
            for &id in &ids {
                found += usize::from(black_box(map.state(black_box(id))).is_some());
            }
        }
        let elapsed = start.elapsed();
        assert_eq!(found, ids.len() * rounds);
        let ns = elapsed.as_nanos() as f64 / (ids.len() * rounds) as f64;
        println!(
            "network id -> state ({}): {ns:.2} ns/lookup over {} ids",
            if hashed { "hashed" } else { "palette" },
            ids.len()
        );
    }
    let text = clawcraft_protocol::embedded::inflate(super::data::EMBEDDED[0].1).expect("inflate");
    let start = Instant::now();
    let _ = black_box(BlockRegistry::from_json(&text).expect("parse"));
    println!("registry build: {:?}", start.elapsed());
}

/// The registry parsed while the embedded data inflates is the one parsed from the whole text,
/// and both say what `blocks.json` says for sample states.
#[test]
fn streamed_registry_equals_the_one_from_the_text() {
    let packed = super::data::EMBEDDED.iter().find(|(v, _)| *v == VERSION).map(|(_, p)| *p).expect("embedded");
    let text = clawcraft_protocol::embedded::inflate(packed).expect("inflate");
    let from_text = BlockRegistry::from_json(&text).expect("parse");
    let streamed = registry();
    assert_eq!(streamed.state_count(), from_text.state_count());
    assert_eq!(streamed.blocks(), from_text.blocks());
    for (a, b) in streamed.states().zip(from_text.states()) {
        assert_eq!((a.name, a.block), (b.name, b.block));
        assert_eq!(a.properties, b.properties);
    }
    for i in 0..streamed.state_count() as u32 {
        assert_eq!(streamed.network_hash_of(StateIndex(i)), from_text.network_hash_of(StateIndex(i)));
    }
    // Sample blocks against the JSON itself.
    let json: serde_json::Value = serde_json::from_str(&text).expect("json");
    let blocks = json["blocks"].as_array().expect("blocks");
    for name in ["minecraft:stone", "minecraft:oak_stairs", "minecraft:water", "minecraft:wooden_door"] {
        let raw = blocks.iter().find(|b| b["name"] == name).unwrap_or_else(|| panic!("{name} in the JSON"));
        let block = info(&streamed, name);
        assert_eq!(Some(f64::from(block.hardness)), raw["hardness"].as_f64(), "{name}");
        let states = raw["states"].as_array().expect("states");
        assert_eq!(block.state_count as usize, states.len(), "{name}");
        for (index, state) in block.states().zip(states) {
            let view = streamed.state(index).expect("state");
            let props = state.as_object().expect("state object");
            assert_eq!(view.properties.len(), props.len(), "{name}");
            for (key, value) in props {
                let ours = view.property(key).unwrap_or_else(|| panic!("{name} lacks {key}"));
                let matches = match (ours, value) {
                    (StateValue::Str(s), serde_json::Value::String(t)) => s == t,
                    (StateValue::Byte(b), serde_json::Value::Bool(t)) => (*b != 0) == *t,
                    (StateValue::Int(i), serde_json::Value::Number(n)) => n.as_i64() == Some(i64::from(*i)),
                    _ => false,
                };
                assert!(matches, "{name} {key}: {ours:?} vs {value}");
            }
        }
    }
}
