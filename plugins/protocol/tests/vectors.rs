//! Golden vectors produced by bedrock-protocol's serializer (tests/vectors/make-vectors.js):
//! decode → compare with the recorded params → re-encode byte-identically, for every version.

use clawcraft_protocol::codec::{Nbt, NbtTag, Protocol, Value};
use serde_json::Value as Json;

fn vectors(version: &str) -> Vec<(String, Json, Vec<u8>)> {
    let path = format!("{}/../../tests/vectors/{version}.json", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let list: Vec<Json> = serde_json::from_str(&text).expect("vector JSON");
    list.into_iter()
        .map(|v| {
            let name = v["name"].as_str().expect("name").to_owned();
            let hex = v["hex"].as_str().expect("hex");
            (name, v["params"].clone(), unhex(hex))
        })
        .collect()
}

fn unhex(s: &str) -> Vec<u8> {
    (0..s.len()).step_by(2).map(|i| u8::from_str_radix(&s[i..i + 2], 16).expect("hex")).collect()
}

fn close(a: f64, b: f64) -> bool {
    // Values pass through f32 on the wire.
    (a - b).abs() <= 1e-6 * a.abs().max(b.abs()).max(1.0) || (a as f32) == (b as f32)
}

/// prismarine-nbt's JSON shape of a payload, for comparison with the recorded params.
fn nbt_payload(t: &NbtTag) -> (String, Json) {
    use serde_json::json;
    let (ty, v) = match t {
        NbtTag::End => ("end", Json::Null),
        NbtTag::Byte(v) => ("byte", json!(v)),
        NbtTag::Short(v) => ("short", json!(v)),
        NbtTag::Int(v) => ("int", json!(v)),
        NbtTag::Long(v) => ("long", json!(v.to_string())),
        NbtTag::Float(v) => ("float", json!(v)),
        NbtTag::Double(v) => ("double", json!(v)),
        NbtTag::ByteArray(v) => ("byteArray", json!(v)),
        NbtTag::String(v) => ("string", json!(v)),
        NbtTag::List(elem, items) => {
            let names = [
                "end",
                "byte",
                "short",
                "int",
                "long",
                "float",
                "double",
                "byteArray",
                "string",
                "list",
                "compound",
                "intArray",
                "longArray",
            ];
            let ename = names.get(*elem as usize).copied().unwrap_or("end");
            let vals: Vec<Json> = items.iter().map(|i| nbt_payload(i).1).collect();
            ("list", json!({"type": ename, "value": vals}))
        }
        NbtTag::Compound(entries) => {
            let mut m = serde_json::Map::new();
            for (k, v) in entries {
                let (t, v) = nbt_payload(v);
                m.insert(k.clone(), json!({"type": t, "value": v}));
            }
            ("compound", Json::Object(m))
        }
        NbtTag::IntArray(v) => ("intArray", json!(v)),
        NbtTag::LongArray(v) => ("longArray", json!(v.iter().map(|x| x.to_string()).collect::<Vec<_>>())),
    };
    (ty.to_owned(), v)
}

fn nbt_json(n: &Nbt) -> Json {
    let (t, v) = nbt_payload(&n.tag);
    serde_json::json!({"type": t, "name": n.name, "value": v})
}

/// Checks that `got` matches the recorded `want`; returns the first mismatch path.
fn matches(want: &Json, got: &Value, path: &str) -> Result<(), String> {
    let bad = || Err(format!("{path}: want {want}, got {got:?}"));
    match (want, got) {
        (Json::Null, Value::Void) => Ok(()),
        (Json::Bool(a), Value::Bool(b)) if a == b => Ok(()),
        (Json::Number(n), v) => match (n.as_f64(), v.as_f64()) {
            (Some(a), Some(b)) if close(a, b) => Ok(()),
            _ => bad(),
        },
        (Json::String(s), Value::Int(i)) if s.parse::<i64>().ok() == Some(*i) => Ok(()),
        (Json::String(s), Value::UInt(u)) if s.parse::<u64>().ok() == Some(*u) => Ok(()),
        (Json::String(s), Value::Str(g)) if s == g => Ok(()),
        (Json::String(s), Value::Bytes(b)) if s.strip_prefix("hex:").map(unhex).as_deref() == Some(b) => Ok(()),
        (Json::Array(a), Value::Array(b)) if a.len() == b.len() => {
            for (i, (x, y)) in a.iter().zip(b).enumerate() {
                matches(x, y, &format!("{path}[{i}]"))?;
            }
            Ok(())
        }
        (Json::Object(m), Value::Nbt(n)) => {
            let got = nbt_json(n);
            if json_eq(&Json::Object(m.clone()), &got) {
                Ok(())
            } else {
                Err(format!("{path}: want {want}, got {got}"))
            }
        }
        (Json::Object(m), Value::Object(_)) => {
            for (k, w) in m {
                match got.get(k) {
                    Some(g) => matches(w, g, &format!("{path}.{k}"))?,
                    None => return Err(format!("{path}.{k}: missing")),
                }
            }
            Ok(())
        }
        _ => bad(),
    }
}

/// JSON equality with numeric tolerance and numeric strings equal to numbers.
fn json_eq(a: &Json, b: &Json) -> bool {
    match (a, b) {
        (Json::Number(x), Json::Number(y)) => close(x.as_f64().unwrap_or(f64::NAN), y.as_f64().unwrap_or(f64::NAN)),
        (Json::Object(x), Json::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| json_eq(v, w)))
        }
        (Json::Array(x), Json::Array(y)) => x.len() == y.len() && x.iter().zip(y).all(|(v, w)| json_eq(v, w)),
        _ => a == b,
    }
}

#[test]
fn codec_vectors_decode_match_params_and_reencode_identically() {
    for info in Protocol::versions() {
        let proto = Protocol::load(info.game_version).expect("load");
        let vecs = vectors(info.game_version);
        assert!(!vecs.is_empty());
        let mut failures = Vec::new();
        for (name, params, bytes) in &vecs {
            let (got_name, value) = match proto.decode(bytes) {
                Ok(x) => x,
                Err(e) => {
                    failures.push(format!("{name}: decode failed: {e}"));
                    continue;
                }
            };
            if got_name != *name {
                failures.push(format!("{name}: decoded as {got_name}"));
                continue;
            }
            if let Err(e) = matches(params, &value, name) {
                failures.push(e);
            }
            match proto.encode_value(name, &value) {
                Ok(out) if out == *bytes => {}
                Ok(out) => failures.push(format!("{name}: re-encode differs\n want {bytes:02x?}\n  got {out:02x?}")),
                Err(e) => failures.push(format!("{name}: encode failed: {e}")),
            }
        }
        assert!(failures.is_empty(), "{}: {} failures:\n{}", info.game_version, failures.len(), failures.join("\n"));
    }
}

/// decode_as::<T> → encode must reproduce the vector bytes exactly.
fn typed_round_trip<T: clawcraft_protocol::codec::Packet + std::fmt::Debug>(
    proto: &Protocol,
    bytes: &[u8],
) -> Result<(), String> {
    let typed: T = proto.decode_as(bytes).map_err(|e| format!("decode_as: {e}"))?;
    let out = proto.encode(&typed).map_err(|e| format!("encode: {e}"))?;
    if out != bytes {
        return Err(format!("typed re-encode differs\n want {bytes:02x?}\n  got {out:02x?}\n typed {typed:?}"));
    }
    Ok(())
}

#[test]
fn codec_vectors_typed_views_round_trip() {
    use clawcraft_protocol::packets::*;
    for info in Protocol::versions() {
        let proto = Protocol::load(info.game_version).expect("load");
        let mut failures = Vec::new();
        let mut covered = std::collections::BTreeSet::new();
        for (name, _params, bytes) in vectors(info.game_version) {
            let r = match name.as_str() {
                "play_status" => typed_round_trip::<PlayStatus>(&proto, &bytes),
                "disconnect" => typed_round_trip::<Disconnect>(&proto, &bytes),
                "resource_packs_info" => typed_round_trip::<ResourcePacksInfo>(&proto, &bytes),
                "resource_pack_stack" => typed_round_trip::<ResourcePackStack>(&proto, &bytes),
                "resource_pack_client_response" => typed_round_trip::<ResourcePackClientResponse>(&proto, &bytes),
                "client_cache_status" => typed_round_trip::<ClientCacheStatus>(&proto, &bytes),
                "start_game" => typed_round_trip::<StartGame>(&proto, &bytes),
                "item_registry" => typed_round_trip::<ItemRegistry>(&proto, &bytes),
                "request_chunk_radius" => typed_round_trip::<RequestChunkRadius>(&proto, &bytes),
                "chunk_radius_update" => typed_round_trip::<ChunkRadiusUpdate>(&proto, &bytes),
                "set_local_player_as_initialized" => typed_round_trip::<SetLocalPlayerAsInitialized>(&proto, &bytes),
                "player_auth_input" => typed_round_trip::<PlayerAuthInput>(&proto, &bytes),
                "network_stack_latency" => typed_round_trip::<NetworkStackLatency>(&proto, &bytes),
                "move_player" => typed_round_trip::<MovePlayer>(&proto, &bytes),
                "correct_player_move_prediction" => typed_round_trip::<CorrectPlayerMovePrediction>(&proto, &bytes),
                "respawn" => typed_round_trip::<Respawn>(&proto, &bytes),
                "set_time" => typed_round_trip::<SetTime>(&proto, &bytes),
                "text" => typed_round_trip::<Text>(&proto, &bytes),
                "level_chunk" => typed_round_trip::<LevelChunk>(&proto, &bytes),
                "network_chunk_publisher_update" => typed_round_trip::<NetworkChunkPublisherUpdate>(&proto, &bytes),
                "serverbound_loading_screen" => typed_round_trip::<ServerboundLoadingScreen>(&proto, &bytes),
                "update_attributes" => typed_round_trip::<UpdateAttributes>(&proto, &bytes),
                "set_movement_authority" => typed_round_trip::<SetMovementAuthority>(&proto, &bytes),
                "network_settings" => typed_round_trip::<NetworkSettings>(&proto, &bytes),
                "request_network_settings" => typed_round_trip::<RequestNetworkSettings>(&proto, &bytes),
                "login" => typed_round_trip::<Login>(&proto, &bytes),
                "server_to_client_handshake" => typed_round_trip::<ServerToClientHandshake>(&proto, &bytes),
                "client_to_server_handshake" => typed_round_trip::<ClientToServerHandshake>(&proto, &bytes),
                "add_player" => typed_round_trip::<AddPlayer>(&proto, &bytes),
                "add_entity" => typed_round_trip::<AddEntity>(&proto, &bytes),
                "add_item_entity" => typed_round_trip::<AddItemEntity>(&proto, &bytes),
                "remove_entity" => typed_round_trip::<RemoveEntity>(&proto, &bytes),
                "move_entity" => typed_round_trip::<MoveEntity>(&proto, &bytes),
                "move_entity_delta" => typed_round_trip::<MoveEntityDelta>(&proto, &bytes),
                "set_entity_motion" => typed_round_trip::<SetEntityMotion>(&proto, &bytes),
                "set_entity_data" => typed_round_trip::<SetEntityData>(&proto, &bytes),
                "take_item_entity" => typed_round_trip::<TakeItemEntity>(&proto, &bytes),
                "player_list" => typed_round_trip::<PlayerList>(&proto, &bytes),
                "change_dimension" => typed_round_trip::<ChangeDimension>(&proto, &bytes),
                "subchunk_request" => typed_round_trip::<SubChunkRequest>(&proto, &bytes),
                "subchunk" => typed_round_trip::<SubChunkPacket>(&proto, &bytes),
                "update_block" => typed_round_trip::<UpdateBlock>(&proto, &bytes),
                "update_subchunk_blocks" => typed_round_trip::<UpdateSubChunkBlocks>(&proto, &bytes),
                "dimension_data" => typed_round_trip::<DimensionData>(&proto, &bytes),
                "command_request" => typed_round_trip::<CommandRequest>(&proto, &bytes),
                "command_output" => typed_round_trip::<CommandOutput>(&proto, &bytes),
                "emote" => typed_round_trip::<Emote>(&proto, &bytes),
                "mob_effect" => typed_round_trip::<MobEffect>(&proto, &bytes),
                "entity_event" => typed_round_trip::<EntityEvent>(&proto, &bytes),
                "death_info" => typed_round_trip::<DeathInfo>(&proto, &bytes),
                "set_health" => typed_round_trip::<SetHealth>(&proto, &bytes),
                "player_action" => typed_round_trip::<PlayerAction>(&proto, &bytes),
                // The typed view is in clawcraft-world (plugins/world/src/events.rs); generic check only.
                "level_event" => Ok(()),
                other => Err(format!("no typed view for vector {other}")),
            };
            covered.insert(name.clone());
            if let Err(e) = r {
                failures.push(format!("{name}: {e}"));
            }
        }
        assert!(failures.is_empty(), "{}: {} failures:\n{}", info.game_version, failures.len(), failures.join("\n"));
        assert!(covered.len() >= 53, "only {} packets covered", covered.len());
    }
}

/// `T::default()` must encode (neutral values everywhere) and decode back to itself.
fn default_round_trip<T>(proto: &Protocol) -> Result<(), String>
where
    T: clawcraft_protocol::codec::Packet + Default + PartialEq + std::fmt::Debug,
{
    let bytes = proto.encode(&T::default()).map_err(|e| format!("{}: encode: {e}", T::NAME))?;
    let back: T = proto.decode_as(&bytes).map_err(|e| format!("{}: decode: {e}", T::NAME))?;
    let again = proto.encode(&back).map_err(|e| format!("{}: re-encode: {e}", T::NAME))?;
    if again != bytes {
        return Err(format!("{}: default re-encode differs", T::NAME));
    }
    Ok(())
}

#[test]
fn codec_default_typed_packets_encode() {
    use clawcraft_protocol::packets::*;
    for info in Protocol::versions() {
        let p = Protocol::load(info.game_version).expect("load");
        let results = [
            default_round_trip::<PlayStatus>(&p),
            default_round_trip::<Disconnect>(&p),
            default_round_trip::<ResourcePacksInfo>(&p),
            default_round_trip::<ResourcePackStack>(&p),
            default_round_trip::<ResourcePackClientResponse>(&p),
            default_round_trip::<ClientCacheStatus>(&p),
            default_round_trip::<StartGame>(&p),
            default_round_trip::<ItemRegistry>(&p),
            default_round_trip::<RequestChunkRadius>(&p),
            default_round_trip::<ChunkRadiusUpdate>(&p),
            default_round_trip::<SetLocalPlayerAsInitialized>(&p),
            default_round_trip::<PlayerAuthInput>(&p),
            default_round_trip::<NetworkStackLatency>(&p),
            default_round_trip::<MovePlayer>(&p),
            default_round_trip::<CorrectPlayerMovePrediction>(&p),
            default_round_trip::<Respawn>(&p),
            default_round_trip::<SetTime>(&p),
            default_round_trip::<Text>(&p),
            default_round_trip::<LevelChunk>(&p),
            default_round_trip::<NetworkChunkPublisherUpdate>(&p),
            default_round_trip::<ServerboundLoadingScreen>(&p),
            default_round_trip::<UpdateAttributes>(&p),
            default_round_trip::<SetMovementAuthority>(&p),
            default_round_trip::<NetworkSettings>(&p),
            default_round_trip::<RequestNetworkSettings>(&p),
            default_round_trip::<Login>(&p),
            default_round_trip::<ServerToClientHandshake>(&p),
            default_round_trip::<ClientToServerHandshake>(&p),
            default_round_trip::<AddPlayer>(&p),
            default_round_trip::<AddEntity>(&p),
            default_round_trip::<AddItemEntity>(&p),
            default_round_trip::<RemoveEntity>(&p),
            default_round_trip::<MoveEntity>(&p),
            default_round_trip::<MoveEntityDelta>(&p),
            default_round_trip::<SetEntityMotion>(&p),
            default_round_trip::<SetEntityData>(&p),
            default_round_trip::<TakeItemEntity>(&p),
            default_round_trip::<PlayerList>(&p),
            default_round_trip::<ChangeDimension>(&p),
            default_round_trip::<SubChunkRequest>(&p),
            default_round_trip::<SubChunkPacket>(&p),
            default_round_trip::<UpdateBlock>(&p),
            default_round_trip::<UpdateSubChunkBlocks>(&p),
            default_round_trip::<DimensionData>(&p),
            default_round_trip::<CommandRequest>(&p),
            default_round_trip::<CommandOutput>(&p),
            default_round_trip::<Emote>(&p),
            default_round_trip::<MobEffect>(&p),
            default_round_trip::<EntityEvent>(&p),
            default_round_trip::<DeathInfo>(&p),
            default_round_trip::<SetHealth>(&p),
            default_round_trip::<PlayerAction>(&p),
        ];
        let failures: Vec<String> = results.into_iter().filter_map(Result::err).collect();
        assert!(failures.is_empty(), "{}:\n{}", info.game_version, failures.join("\n"));
    }
}

/// Every packet of every version: the all-neutral packet encodes, decodes and re-encodes
/// identically. Exercises the whole definition, not just the packets with vectors.
#[test]
fn codec_every_packet_neutral_round_trip() {
    for info in Protocol::versions() {
        let p = Protocol::load(info.game_version).expect("load");
        let mut failures = Vec::new();
        let mut count = 0;
        for id in 0..1024 {
            let Some(name) = p.packet_name(id).map(str::to_owned) else {
                continue;
            };
            count += 1;
            let r =
                p.encode_value(&name, &Value::Object(Vec::new())).map_err(|e| format!("encode: {e}")).and_then(|b| {
                    let (n, v) = p.decode(&b).map_err(|e| format!("decode: {e}"))?;
                    let again = p.encode_value(&n, &v).map_err(|e| format!("re-encode: {e}"))?;
                    if n != name || again != b {
                        return Err(format!("mismatch {b:02x?} vs {again:02x?}"));
                    }
                    Ok(())
                });
            if let Err(e) = r {
                failures.push(format!("{name}: {e}"));
            }
        }
        assert!(count > 150, "only {count} packets");
        assert!(failures.is_empty(), "{}: {} failures:\n{}", info.game_version, failures.len(), failures.join("\n"));
    }
}
