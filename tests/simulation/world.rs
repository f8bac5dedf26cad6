//! Simulation tests of the world commands and events: the whole app, real encoded LevelChunk /
//! UpdateBlock / LevelEvent / SetTime packets, commands answered as the agent would see them.
//! Both block id modes (hashes and palette indices) run the same world. Any warning log fails.

use clawcraft::protocol::packets::{
    BlockPos, ByteBuf, ChunkRadiusUpdate, LevelChunk, LevelEvent, MovePlayer, PlayStatus, PlayerAuthInput,
    ResourcePackStack, ResourcePacksInfo, SetTime, StartGame, Vec2, Vec3 as WireVec3,
};
use clawcraft::sim::Simulation;
use clawcraft::world::block::StateValue;
use clawcraft::world::chunk::packets::{
    DimensionData, DimensionDefinition, SubChunkEntryView, SubChunkPacket, UpdateBlock, Vec3Li,
};
use clawcraft::world::chunk::storage::block_index;
use clawcraft::world::chunk::wire::{encode_biome, encode_sub_chunk};
use clawcraft::world::chunk::{DimensionHeights, PalettedStorage};
use clawcraft::world::ids::IdTable;
use serde_json::{Map, Value, json};

/// A block name, its properties and its position.
type Placed = (&'static str, Vec<(&'static str, StateValue)>, [i32; 3]);

/// Blocks placed on top of the flat terrain (bedrock −64, dirt −63..−62, grass −61) of the 3×3
/// columns around the origin: name, properties, position.
fn placed() -> Vec<Placed> {
    use StateValue::{Byte, Int};
    vec![
        ("glass", vec![], [0, -59, 5]),
        ("stone", vec![], [0, -59, 7]),
        ("oak_stairs", vec![("upside_down_bit", Byte(0)), ("weirdo_direction", Int(2))], [1, -60, 1]),
        ("water", vec![("liquid_depth", Int(0))], [0, -59, 3]),
        ("diamond_ore", vec![], [5, -62, 5]),
        ("diamond_ore", vec![], [-10, -63, -10]),
        ("short_grass", vec![], [0, -59, 2]),
    ]
}

struct World {
    sim: Simulation,
    ids: IdTable,
}

impl World {
    fn id(&self, name: &str, props: &[(&str, StateValue)]) -> u32 {
        let s = self.ids.registry.state_with(name, props).unwrap_or_else(|| panic!("state of {name}"));
        self.ids.map.network_id(s).expect("network id")
    }

    fn cmd(&mut self, line: &str) -> Map<String, Value> {
        self.sim.command(line)
    }

    fn ok(&mut self, line: &str) -> Map<String, Value> {
        let r = self.cmd(line);
        assert!(r.get("error").is_none(), "{line} failed: {r:?}");
        r
    }

    fn code(&mut self, line: &str) -> String {
        let r = self.cmd(line);
        r.get("code").and_then(Value::as_str).unwrap_or_else(|| panic!("{line} should fail: {r:?}")).to_owned()
    }

    fn events_of(&self, kind: &str) -> Vec<Map<String, Value>> {
        self.sim.events().into_iter().filter(|e| e["type"] == kind).collect()
    }
}

fn start_game(hashed: bool, pitch: f32, yaw: f32) -> StartGame {
    StartGame {
        entity_id: -3,
        runtime_entity_id: 7,
        player_gamemode: "survival".into(),
        player_position: WireVec3 { x: 0.5, y: -58.38, z: 0.5 },
        rotation: Vec2 { x: pitch, z: yaw },
        dimension: "overworld".into(),
        world_name: "Sim World".into(),
        block_network_ids_are_hashes: hashed,
        ..StartGame::default()
    }
}

/// The lowest sub-chunk (y −64..−49) of column `(cx, cz)`, version 9.
fn column_payload(w: &World, cx: i32, cz: i32) -> Vec<u8> {
    let air = w.id("air", &[]);
    let layers = [
        (-64, w.id("bedrock", &[])),
        (-63, w.id("dirt", &[])),
        (-62, w.id("dirt", &[])),
        (-61, w.id("grass_block", &[])),
    ];
    let mut s = PalettedStorage::Single(air);
    for x in 0..16 {
        for z in 0..16 {
            for (y, id) in layers {
                s.set(block_index(x, (y + 64) as usize, z), id);
            }
        }
    }
    for (name, props, [x, y, z]) in placed() {
        if x >> 4 == cx && z >> 4 == cz && (-64..-48).contains(&y) {
            s.set(block_index((x & 15) as usize, (y + 64) as usize, (z & 15) as usize), w.id(name, &props));
        }
    }
    let mut out = Vec::new();
    encode_sub_chunk(&mut out, 9, -4, &[s]);
    encode_biome(&mut out, 1);
    out.extend(std::iter::repeat_n(0xFF, 23));
    out.push(0);
    out
}

/// `got` has every field of `want` with its value (objects compared recursively): the properties
/// named here are those of the default version; a later version may add state keys (1.26.60
/// stairs: `minecraft:corner`), so simulations also pass at another `CLAWCRAFT_TEST_VERSION`.
fn assert_has(got: &Value, want: &Value) {
    match (got, want) {
        (Value::Object(g), Value::Object(w)) => {
            for (k, v) in w {
                assert_has(g.get(k).unwrap_or(&Value::Null), v);
            }
        }
        _ => assert_eq!(got, want),
    }
}

/// A spawned bot at feet (0.5, −60, 0.5) whose columns −1..=1 × −1..=1 are loaded in full mode.
fn world(hashed: bool, pitch: f32, yaw: f32) -> World {
    let mut sim = Simulation::new();
    sim.receive(&PlayStatus { status: "login_success".into() });
    sim.tick();
    sim.receive(&ResourcePacksInfo::default());
    sim.receive(&ResourcePackStack::default());
    sim.tick();
    sim.receive(&start_game(hashed, pitch, yaw));
    sim.tick();
    let ids = IdTable::new(sim.protocol.info().game_version, hashed).expect("block data");
    let mut w = World { sim, ids };
    for cx in -1..=1 {
        for cz in -1..=1 {
            let payload = column_payload(&w, cx, cz);
            w.sim.receive(&LevelChunk {
                x: cx,
                z: cz,
                sub_chunk_count: 1,
                payload: ByteBuf(payload),
                ..LevelChunk::default()
            });
        }
    }
    w.sim.receive(&ChunkRadiusUpdate { chunk_radius: 8 });
    w.sim.receive(&PlayStatus { status: "player_spawn".into() });
    w.sim.tick();
    w
}

#[test]
fn block_reports_names_states_and_unloaded_in_both_id_modes() {
    for hashed in [true, false] {
        let mut w = world(hashed, 0.0, 0.0);
        let r = w.ok(r#"{"action":"block","x":0,"y":-61,"z":0}"#);
        assert_eq!(r["block"]["name"], "minecraft:grass_block", "hashed={hashed}");
        assert_eq!(r["block"]["stateId"], json!(w.id("grass_block", &[])));
        assert_eq!(r["loaded"], true);
        let r = w.ok(r#"{"action":"block","x":1.7,"y":-59.5,"z":1.2}"#);
        assert_eq!(r["pos"], json!({"x": 1, "y": -60, "z": 1}), "coordinates are floored");
        assert_eq!(r["block"]["name"], "minecraft:oak_stairs");
        assert_has(&r["block"]["properties"], &json!({"upside_down_bit": false, "weirdo_direction": 2}));
        let r = w.ok(r#"{"action":"block","x":0,"y":100,"z":0}"#);
        assert_eq!(r["block"]["name"], "minecraft:air", "above the sent sub-chunks is air");
        let r = w.ok(r#"{"action":"block","x":40,"y":-61,"z":0}"#);
        assert_eq!(r["loaded"], false, "no column there");
        assert_eq!(r["block"], Value::Null, "never reported as air");
        assert_eq!(w.code(r#"{"action":"block","x":1e300,"y":0,"z":0}"#), "OUT_OF_RANGE");
    }
}

#[test]
fn scan_lists_layers_notable_floor_and_counts_unloaded() {
    let mut w = world(true, 0.0, 0.0);
    let r = w.ok(r#"{"action":"scan","radius":4,"radiusY":2}"#);
    assert_eq!(r["origin"], json!({"x": 0, "y": -60, "z": 0}));
    assert_eq!(r["bounds"], json!({"x": [-4, 4], "y": [-62, -58], "z": [-4, 4]}));
    assert_eq!(r["total"], 405);
    assert_eq!((r["loaded"].clone(), r["loadedCells"].clone()), (json!(true), json!(405)), "every cell loaded");
    assert_eq!(r["unloaded"], 0);
    assert_eq!(r["layers"]["-61"].as_array().map(Vec::len), Some(81), "a full grass layer");
    assert_eq!(r["layers"]["-62"].as_array().map(Vec::len), Some(81));
    assert_eq!(r["floor"].as_array().map(Vec::len), Some(81));
    assert_eq!(r["ceiling"].as_array().map(Vec::len), Some(0));
    // Non-air at y −60..−58 inside the box: stairs (1,−60,1), water (0,−59,3), grass plant (0,−59,2).
    assert_eq!(r["totalNonAir"], 81 * 2 + 3);
    let notable: Vec<(&str, i64, i64, i64)> = r["notable"]
        .as_array()
        .expect("notable")
        .iter()
        .map(|c| {
            (
                c["name"].as_str().unwrap_or(""),
                c["x"].as_i64().unwrap_or(0),
                c["y"].as_i64().unwrap_or(0),
                c["z"].as_i64().unwrap_or(0),
            )
        })
        .collect();
    assert_eq!(
        notable,
        vec![("minecraft:oak_stairs", 1, -60, 1), ("minecraft:water", 0, -59, 3)],
        "nearest first, fill left out"
    );
    assert_eq!(r["notable"][0]["properties"]["weirdo_direction"], 2);
    assert_eq!(r["walls"]["north"].as_array().map(Vec::len), Some(18), "z = −4 face: grass and dirt rows");

    // A box reaching past the loaded columns: cells there are counted as unloaded, never as air.
    let r = w.ok(r#"{"action":"scan","x":36,"y":-61,"z":0,"radius":8,"radiusY":0}"#);
    assert_eq!(r["total"], 17 * 17);
    assert_eq!(r["loaded"], false, "not every cell has data: retry later");
    assert_eq!(r["loadedCells"], 4 * 17, "x 28..31 is loaded, 32..44 is not");
    assert_eq!(r["unloaded"], 13 * 17);
    assert_eq!(r["totalNonAir"], 4 * 17);

    let c = w.ok(r#"{"action":"compact_scan","radius":4,"radiusY":2}"#);
    assert_eq!(c["notableCount"], 2);
    assert_eq!(c["counts"]["minecraft:grass_block"], 81);
    assert_eq!(c["counts"]["minecraft:dirt"], 81);
    assert_eq!(c["counts"]["minecraft:short_grass"], 1);
    assert!(c.get("layers").is_none());
    assert_eq!(w.code(r#"{"action":"scan","radius":33}"#), "OUT_OF_RANGE");
    assert_eq!(w.code(r#"{"action":"scan","radiusY":-1}"#), "OUT_OF_RANGE");
    // A misspelt parameter is a warning naming the right one, not an error (ClawCraft's clients send extras).
    let r = w.ok(r#"{"action":"compact_scan","radius_y":3}"#);
    assert_eq!(r["warnings"], json!(["unknown parameter radius_y (did you mean radiusY?)"]));
}

#[test]
fn find_is_nearest_first_and_skips_sub_chunks_without_the_block() {
    for hashed in [true, false] {
        let mut w = world(hashed, 0.0, 0.0);
        let r = w.ok(r#"{"action":"find","block":"diamond_ore","radius":32,"count":5}"#);
        let found: Vec<(i64, i64, i64)> = r["blocks"]
            .as_array()
            .expect("blocks")
            .iter()
            .map(|b| (b["x"].as_i64().unwrap_or(0), b["y"].as_i64().unwrap_or(0), b["z"].as_i64().unwrap_or(0)))
            .collect();
        assert_eq!(found, vec![(5, -62, 5), (-10, -63, -10)], "hashed={hashed}");
        assert_eq!(r["blocks"][0]["name"], "minecraft:diamond_ore");
        assert_eq!(r["blocks"][0]["distance"], json!(7.23));
        assert_eq!(r["count"], 2);
        let r = w.ok(r#"{"action":"find","block":"DIAMOND_ORE","radius":32,"count":1}"#);
        assert_eq!(r["count"], 1, "count limits, name is case-insensitive");
        assert_eq!(r["truncated"], true, "a second match exists: the list says it is cut");
        assert_eq!(w.ok(r#"{"action":"find","block":"diamond_ore","count":5}"#)["truncated"], false);
        // countOnly: every bedrock cell whose centre is within 8 of the feet (a sphere), no list.
        let r = w.ok(r#"{"action":"find","block":"bedrock","radius":8,"countOnly":true}"#);
        let feet_y = w.ok(r#"{"action":"pos"}"#)["pos"]["y"].as_f64().expect("feet y");
        let sphere = (-8..=8)
            .flat_map(|x| (-8..=8).map(move |z| (x, z)))
            .filter(|&(x, z)| f64::from(x * x + z * z) + (-63.5 - feet_y).powi(2) <= 64.0)
            .count();
        assert_eq!((r["count"].clone(), r["blocks"].clone()), (json!(sphere), json!([])), "hashed={hashed}");
        let r = w.ok(r#"{"action":"blocks","x1":-8,"y1":-64,"z1":-8,"x2":8,"y2":-64,"z2":8,"filter":"bedrock","countOnly":true}"#);
        assert_eq!((r["count"].clone(), r["blocks"].clone()), (json!(289), json!([])), "a 17x17 box of bedrock");
        let r = w.ok(r#"{"action":"find","block":"emerald_ore","radius":64}"#);
        assert_eq!(r["count"], 0);
        assert_eq!(r["columnsSearched"], 9);
        assert!(r["unloadedColumns"].as_u64().unwrap_or(0) > 0);
        assert_eq!(w.code(r#"{"action":"find","block":"no_such_block_anywhere"}"#), "INVALID_PARAMS");
        assert_eq!(w.code(r#"{"action":"find","block":"stone","radius":1000}"#), "OUT_OF_RANGE");
        assert_eq!(w.code(r#"{"action":"find","block":"stone","count":0}"#), "OUT_OF_RANGE");

        // `bed` is a part of `bedrock`: without exact it finds the floor, with exact nothing.
        let r = w.ok(r#"{"action":"find","block":"bed","radius":4}"#);
        assert_eq!(r["blocks"][0]["name"], "minecraft:bedrock", "a substring matches bedrock");
        assert_eq!(r["matched"][0], "minecraft:bedrock", "the names found come first: {}", r["matched"]);
        let r = w.ok(r#"{"action":"find","block":"minecraft:bed","exact":true,"radius":4}"#);
        assert_eq!((r["count"].clone(), r["matched"].clone()), (json!(0), json!(["minecraft:bed"])), "hashed={hashed}");
        let r = w.ok(r#"{"action":"find","block":"Bedrock","exact":true,"radius":4,"count":1}"#);
        assert_eq!(r["matched"], json!(["minecraft:bedrock"]));
        assert_eq!(w.code(r#"{"action":"find","block":"bedroc","exact":true}"#), "INVALID_PARAMS");
        let r = w.ok(r#"{"action":"find","block":"stone","radius":4}"#);
        let matched = r["matched"].as_array().expect("matched");
        assert!(matched.len() <= 16 && matched.len() > 1, "capped: {matched:?}");
        let mut rest: Vec<&str> = matched.iter().filter_map(Value::as_str).collect();
        rest.sort_unstable();
        assert_eq!(matched.iter().filter_map(Value::as_str).collect::<Vec<_>>(), rest, "none found: by name");
    }
}

#[test]
fn blocks_filters_by_name_and_bounds_volume() {
    let mut w = world(false, 0.0, 0.0);
    let r =
        w.ok(r#"{"action":"blocks","x1":-4,"y1":-61,"z1":-4,"x2":4,"y2":-59,"z2":4,"filter":"minecraft:Oak_Stairs"}"#);
    assert_eq!(r["count"], 1);
    assert_has(
        &r["blocks"][0],
        &json!({"x":1,"y":-60,"z":1,"stateId": w.id("oak_stairs", &[("upside_down_bit", StateValue::Byte(0)), ("weirdo_direction", StateValue::Int(2))]),"name":"minecraft:oak_stairs","properties":{"upside_down_bit":false,"weirdo_direction":2}}),
    );
    let r = w.ok(r#"{"action":"blocks","x1":30,"y1":-61,"z1":0,"x2":33,"y2":-61,"z2":0}"#);
    assert_eq!(r["count"], 2, "two grass cells, two unloaded");
    assert_eq!(r["unloaded"], 2);
    assert_eq!(w.code(r#"{"action":"blocks","x1":0,"y1":0,"z1":0,"x2":100,"y2":100,"z2":100}"#), "OUT_OF_RANGE");
    assert_eq!(
        w.code(r#"{"action":"blocks","x1":-3e7,"y1":-3e7,"z1":-3e7,"x2":3e7,"y2":3e7,"z2":3e7}"#),
        "OUT_OF_RANGE",
        "a border-to-border box does not overflow"
    );
}

#[test]
fn chunks_lists_loaded_and_missing_columns() {
    let mut w = world(true, 0.0, 0.0);
    let r = w.ok(r#"{"action":"chunks","radius":2}"#);
    assert_eq!((r["loaded"].as_u64(), r["unloaded"].as_u64()), (Some(9), Some(16)));
    assert_eq!(r["chunks"][0], json!({"cx":0,"cz":0,"loaded":true,"complete":true,"dist":0.0}));
    assert_eq!(w.code(r#"{"action":"chunks","radius":17}"#), "OUT_OF_RANGE");
}

#[test]
fn raycast_is_exact_and_ignores_liquids_and_passable_blocks() {
    for hashed in [true, false] {
        let mut w = world(hashed, 0.0, 0.0);
        // Eye (0.5, −58.38, 0.5) → +Z at eye height: glass at z = 5 is hit on its north face.
        let r = w.ok(r#"{"action":"raycast","x":0.5,"z":10.5}"#);
        assert_eq!(r["clear"], false);
        assert_eq!(r["distance"], 10.0);
        assert_eq!(
            r["obstacle"],
            json!({"x":0,"y":-59,"z":5,"name":"minecraft:glass","face":"north","faceId":2,"distance":4.5})
        );
        assert_eq!(r["hit"], json!({"x":0.5,"y":-58.38,"z":5.0}));
        // Through the short grass (0,−59,2) and the water (0,−59,3): both ignored.
        let r = w.ok(r#"{"action":"raycast","x":0.5,"z":4.5}"#);
        assert_eq!(r["clear"], true, "{r:?}");
        // Straight down: the grass block's top, 1.62 below the eye.
        let r = w.ok(r#"{"action":"raycast","x":0.5,"y":-62,"z":0.5}"#);
        assert_eq!(r["obstacle"]["name"], "minecraft:grass_block");
        assert_eq!(r["obstacle"]["face"], "up");
        assert_eq!(r["obstacle"]["distance"], 1.62);
        // Towards a column with no data.
        let r = w.ok(r#"{"action":"raycast","x":60.5,"z":0.5}"#);
        assert_eq!((r["clear"].as_bool(), r["unloaded"].as_bool()), (Some(false), Some(true)));
        assert_eq!(r["unloadedAt"], json!({"x":32,"y":-59,"z":0}));
        assert_eq!(r["obstacle"], Value::Null);
        assert_eq!(w.code(r#"{"action":"raycast","x":300,"z":0}"#), "OUT_OF_RANGE");
    }
}

#[test]
fn look_follows_yaw_and_pitch_from_the_eye() {
    // Yaw 0 faces +Z.
    let mut w = world(true, 0.0, 0.0);
    let r = w.ok(r#"{"action":"look","distance":10}"#);
    assert_eq!(r["origin"], json!({"x":0.5,"y":-58.38,"z":0.5}));
    assert_eq!(r["firstObstacle"]["name"], "minecraft:glass");
    assert_eq!(r["firstObstacle"]["face"], "north");
    let seen: Vec<(i64, &str, bool)> = r["blocks"]
        .as_array()
        .expect("blocks")
        .iter()
        .map(|b| {
            (b["z"].as_i64().unwrap_or(0), b["name"].as_str().unwrap_or(""), b["solid"].as_bool().unwrap_or(false))
        })
        .collect();
    assert_eq!(
        seen,
        vec![
            (0, "minecraft:air", false),
            (1, "minecraft:air", false),
            (2, "minecraft:short_grass", false),
            (3, "minecraft:water", false),
            (4, "minecraft:air", false),
            (5, "minecraft:glass", true)
        ],
        "every cell in order, air included, then the obstacle"
    );
    // Pitch 90 looks straight down: the grass top is 1.62 below the eye.
    let mut w = world(true, 90.0, 0.0);
    let r = w.ok(r#"{"action":"look"}"#);
    assert_eq!(
        r["firstObstacle"],
        json!({"x":0,"y":-61,"z":0,"name":"minecraft:grass_block","face":"up","faceId":1,"distance":1.62})
    );
    // Yaw 90 faces −X; nothing within 4 blocks that way, and all loaded.
    let mut w = world(true, 0.0, 90.0);
    let r = w.ok(r#"{"action":"look","distance":4}"#);
    assert_eq!(r["clear"], true);
    assert_eq!(r["facing"], json!({"x":-1.0,"y":0.0,"z":0.0}), "the gaze direction, as ClawCraft");
    assert_eq!(r["target"], json!({"x":-3.5,"y":-58.38,"z":0.5}));
    // Looking level over open ground: every cell passed is listed, air included.
    let cells: Vec<(i64, &str, bool)> = r["blocks"]
        .as_array()
        .expect("blocks")
        .iter()
        .map(|b| (b["x"].as_i64().unwrap_or(0), b["name"].as_str().unwrap_or(""), b["solid"].as_bool().unwrap_or(true)))
        .collect();
    assert_eq!(
        cells,
        (-4..=0).rev().map(|x| (x, "minecraft:air", false)).collect::<Vec<_>>(),
        "the eye's cell and four more to the west"
    );
    assert_eq!(w.code(r#"{"action":"look","distance":65}"#), "OUT_OF_RANGE");
    assert_eq!(w.code(r#"{"action":"look","distance":0}"#), "OUT_OF_RANGE");
}

#[test]
fn request_mode_sub_chunks_without_a_response_are_unloaded() {
    let mut w = world(true, 0.0, 0.0);
    let mut payload = vec![];
    encode_biome(&mut payload, 1);
    payload.extend(std::iter::repeat_n(0xFF, 23));
    payload.push(0);
    w.sim.receive(&LevelChunk {
        x: 2,
        z: 0,
        highest_subchunk_count: Some(6),
        payload: ByteBuf(payload),
        ..LevelChunk::default()
    });
    w.sim.tick();
    let r = w.ok(r#"{"action":"block","x":33,"y":-61,"z":0}"#);
    assert_eq!(r["loaded"], false, "requested, not answered yet");
    let r = w.ok(r#"{"action":"block","x":33,"y":200,"z":0}"#);
    assert_eq!(r["block"]["name"], "minecraft:air", "above the highest sub-chunk is air");
    let r = w.ok(r#"{"action":"chunks","radius":2}"#);
    let c = r["chunks"].as_array().expect("chunks").iter().find(|c| c["cx"] == 2 && c["cz"] == 0).cloned();
    assert_eq!(c, Some(json!({"cx":2,"cz":0,"loaded":true,"complete":false,"dist":2.0})));
}

#[test]
fn block_changed_weather_and_time_are_opt_in() {
    let mut w = world(true, 0.0, 0.0);
    let stone = w.id("stone", &[]);
    w.sim.receive(&UpdateBlock { position: BlockPos { x: 1, y: -61, z: 0 }, block_runtime_id: stone, layer: 0 });
    w.sim.tick();
    assert!(w.events_of("block_changed").is_empty(), "not subscribed");
    w.ok(r#"{"action":"subscribe","event":"block_changed","radius":8}"#);
    let door = w.id("wooden_door", &[("open_bit", StateValue::Byte(1))]);
    w.sim.receive(&UpdateBlock { position: BlockPos { x: 1, y: -60, z: 0 }, block_runtime_id: door, layer: 0 });
    w.sim.receive(&UpdateBlock { position: BlockPos { x: 12, y: -61, z: 12 }, block_runtime_id: stone, layer: 0 });
    w.sim.tick();
    let ev = w.events_of("block_changed");
    assert_eq!(ev.len(), 1, "the far change is outside the radius: {ev:?}");
    assert_eq!(ev[0]["pos"], json!({"x":1,"y":-60,"z":0}));
    assert_eq!(ev[0]["block"], "minecraft:wooden_door");
    assert_eq!(ev[0]["properties"]["open_bit"], true);
    assert_eq!(ev[0]["previous"], "minecraft:air");
    assert_eq!(ev[0]["distance"], 1.12);
    assert_eq!(ev[0]["layer"], 0);
    let r = w.ok(r#"{"action":"block","x":1,"y":-61,"z":0}"#);
    assert_eq!(r["block"]["name"], "minecraft:stone", "updates apply without a subscription");

    let level = |name: &str| LevelEvent { event: name.into(), ..LevelEvent::default() };
    w.sim.receive(&level("start_rain"));
    w.sim.tick();
    assert!(w.events_of("weather").is_empty(), "not subscribed");
    w.ok(r#"{"action":"subscribe","event":"weather"}"#);
    w.sim.receive(&level("start_thunder"));
    w.sim.tick();
    w.sim.receive(&level("stop_thunder"));
    w.sim.receive(&level("stop_rain"));
    w.sim.tick();
    let weather: Vec<(Value, Value)> =
        w.events_of("weather").iter().map(|e| (e["weather"].clone(), e["started"].clone())).collect();
    assert_eq!(
        weather,
        vec![(json!("thunder"), json!(true)), (json!("rain"), json!(false)), (json!("clear"), json!(false))]
    );

    w.ok(r#"{"action":"subscribe","event":"time"}"#);
    for t in [1000, 1100, 2300, 12_500, 12_600, 24_000 * 3 + 23_500] {
        w.sim.receive(&SetTime { time: t });
        w.sim.tick();
    }
    let times: Vec<(Value, Value, Value)> =
        w.events_of("time").iter().map(|e| (e["gameTime"].clone(), e["dayTime"].clone(), e["phase"].clone())).collect();
    assert_eq!(
        times,
        vec![
            (json!(1000), json!(1000), json!("day")),
            (json!(2300), json!(2300), json!("day")),
            (json!(12_500), json!(12_500), json!("dusk")),
            (json!(95_500), json!(23_500), json!("dawn")),
        ],
        "throttled to 60 s of game time unless the phase changes"
    );
}

#[test]
fn start_game_weather_is_reported_to_early_subscribers() {
    let mut sim = Simulation::new();
    sim.receive(&PlayStatus { status: "login_success".into() });
    sim.tick();
    let r = sim.command(r#"{"action":"subscribe","event":"weather"}"#);
    assert_eq!(r["subscribed"], "weather", "{r:?}");
    sim.receive(&StartGame { rain_level: 1.0, ..start_game(true, 0.0, 0.0) });
    sim.tick();
    let ev: Vec<_> = sim.events().into_iter().filter(|e| e["type"] == "weather").collect();
    assert_eq!(ev.len(), 1);
    assert_eq!((ev[0]["weather"].clone(), ev[0]["started"].clone()), (json!("rain"), json!(true)));
}

/// Every query (and block action) an agent can aim at a far place, with coordinates at `at`.
fn far_queries(at: [i64; 3]) -> Vec<String> {
    let [x, y, z] = at;
    let (x2, y2, z2) = (x.saturating_add(3), y.saturating_add(3), z.saturating_add(3));
    vec![
        format!(r#"{{"action":"block","x":{x},"y":{y},"z":{z}}}"#),
        format!(r#"{{"action":"blocks","x1":{x},"y1":{y},"z1":{z},"x2":{x2},"y2":{y2},"z2":{z2}}}"#),
        format!(r#"{{"action":"scan","x":{x},"y":{y},"z":{z},"radius":8,"radiusY":8}}"#),
        format!(r#"{{"action":"compact_scan","x":{x},"y":{y},"z":{z},"radius":8}}"#),
        r#"{"action":"scan","radius":8}"#.to_owned(),
        r#"{"action":"find","block":"stone","radius":64,"count":5}"#.to_owned(),
        r#"{"action":"chunks","radius":4}"#.to_owned(),
        r#"{"action":"look","distance":64}"#.to_owned(),
        format!(r#"{{"action":"raycast","x":{x},"y":{y},"z":{z}}}"#),
        format!(r#"{{"action":"distance","x":{x},"y":{y},"z":{z}}}"#),
        format!(r#"{{"action":"face","x":{x},"y":{y},"z":{z}}}"#),
        format!(r#"{{"action":"path","x":{x},"y":{y},"z":{z}}}"#),
        format!(r#"{{"action":"reachable","x":{x},"y":{y},"z":{z}}}"#),
        // Actions aimed there (refused as out of reach, never an overflow).
        format!(r#"{{"action":"mine","x":{x},"y":{y},"z":{z}}}"#),
        format!(r#"{{"action":"place","item":"dirt","x":{x},"y":{y},"z":{z}}}"#),
        format!(r#"{{"action":"interact","x":{x},"y":{y},"z":{z}}}"#),
        r#"{"action":"nearby","radius":64}"#.to_owned(),
        r#"{"action":"pos"}"#.to_owned(),
        r#"{"action":"status"}"#.to_owned(),
    ]
}

/// A hostile or broken server's extreme dimension heights, sub-chunk coordinates, block
/// positions and teleports go through the whole app (world, movement, navigation, queries) in a
/// debug build, where any overflow panics: every query still gets one well-formed answer and the
/// 20 Hz input stream goes on. Dimension heights are data (`i32` on the wire): nothing may assume
/// vanilla's −64..320.
#[test]
fn extreme_dimension_heights_and_positions_never_overflow_the_app() {
    let mut w = world(true, 0.0, 0.0);
    let stone = w.id("stone", &[]);
    let heights = [(i32::MIN, i32::MAX), (i32::MAX, i32::MIN), (0, 0), (i32::MAX - 1, i32::MAX), (-64, 320)];
    let places: [[i64; 3]; 4] = [
        [0, -60, 0],
        [0, i64::from(i32::MAX), 0],
        [i64::from(i32::MIN), i64::from(i32::MIN), i64::from(i32::MAX)],
        [30_000_000, 1 << 40, -30_000_000],
    ];
    let teleports = [[0.5, -58.38, 0.5], [0.5, 2.0e9, 0.5], [-2.1e9, -2.1e9, 2.1e9], [3.0e7, 1.0e38, -3.0e7]];
    let mut answered = 0;
    for (min_height, max_height) in heights {
        w.sim.receive(&DimensionData {
            definitions: vec![DimensionDefinition {
                id: "minecraft:overworld".into(),
                min_height,
                max_height,
                generator: "overworld".into(),
                dimension_type: 0,
                ..DimensionDefinition::default()
            }],
        });
        // A column in request mode (one biome per sub-chunk of these heights), sub-chunks at the
        // far ends of the i32 range, blocks there.
        let sub_chunks = DimensionHeights::from_server(min_height, max_height).sub_chunk_count();
        let mut payload = vec![];
        encode_biome(&mut payload, 1);
        payload.extend(std::iter::repeat_n(0xFF, sub_chunks - 1));
        payload.push(0);
        w.sim.receive(&LevelChunk {
            x: 0,
            z: 0,
            highest_subchunk_count: Some(i32::MAX),
            payload: ByteBuf(payload),
            ..LevelChunk::default()
        });
        for y in [i32::MIN, i32::MAX, -4, 0] {
            let mut sub = Vec::new();
            encode_sub_chunk(&mut sub, 9, -4, &[PalettedStorage::Single(stone)]);
            w.sim.receive(&SubChunkPacket {
                origin: Vec3Li { x: 0, y, z: 0 },
                entries: [(i8::MIN, Some(sub.clone())), (i8::MAX, None), (0, Some(sub))]
                    .into_iter()
                    .map(|(dy, payload)| SubChunkEntryView {
                        dy,
                        result: if payload.is_some() { "success" } else { "success_all_air" }.into(),
                        payload: payload.map(ByteBuf),
                        heightmap_type: "no_data".into(),
                        render_heightmap_type: "no_data".into(),
                        ..SubChunkEntryView::default()
                    })
                    .collect(),
                ..SubChunkPacket::default()
            });
        }
        for [x, y, z] in [[i32::MAX, i32::MIN, i32::MIN], [0, i32::MAX, 0], [0, -60, 0]] {
            w.sim.receive(&UpdateBlock { position: BlockPos { x, y, z }, block_runtime_id: stone, layer: 0 });
        }
        w.sim.tick();
        for (place, [x, y, z]) in places.iter().zip(teleports) {
            w.sim.receive(&MovePlayer {
                runtime_id: 7,
                position: WireVec3 { x, y, z },
                mode: "teleport".into(),
                ..MovePlayer::default()
            });
            w.sim.tick();
            for line in far_queries(*place) {
                let r = w.cmd(&line);
                assert_eq!(r["type"], "response", "{min_height}..{max_height}, {line}: {r:?}");
                if let Some(code) = r.get("code") {
                    assert_ne!(code, "INTERNAL", "{min_height}..{max_height}, {line}: {r:?}");
                    assert!(r["error"].is_string(), "{line}: {r:?}");
                }
                answered += 1;
            }
        }
    }
    assert_eq!(answered, heights.len() * places.len() * far_queries([0; 3]).len(), "one answer per query");
    // Back home in a vanilla world, the bot is whole: the clock ticks, inputs flow every tick
    // and the world takes chunks again.
    w.sim.receive(&MovePlayer {
        runtime_id: 7,
        position: WireVec3 { x: 0.5, y: -58.38, z: 0.5 },
        mode: "teleport".into(),
        ..MovePlayer::default()
    });
    let payload = column_payload(&w, 0, 0);
    w.sim.receive(&LevelChunk { x: 0, z: 0, sub_chunk_count: 1, payload: ByteBuf(payload), ..LevelChunk::default() });
    w.sim.tick();
    w.sim.sent();
    w.sim.ticks(5);
    let inputs = w.sim.sent_as::<PlayerAuthInput>();
    assert_eq!(inputs.len(), 5, "one PlayerAuthInput per tick");
    assert!(inputs.windows(2).all(|p| p[1].tick == p[0].tick + 1), "input ticks +1 each");
    let r = w.ok(r#"{"action":"block","x":0,"y":-61,"z":0}"#);
    assert_eq!(r["block"]["name"], "minecraft:grass_block", "the world still takes chunks: {r:?}");
}
