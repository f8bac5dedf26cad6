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
            // ProtoDef reads `varint` as a signed 32-bit number (sub_chunk_count −2); the codec as
            // the unsigned value with the same bits.
            _ if n.as_i64().is_some_and(|i| i < 0)
                && v.as_u64().and_then(|u| u32::try_from(u).ok()).map(|u| i64::from(u as i32)) == n.as_i64() =>
            {
                Ok(())
            }
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
        // The `{type, id}` stack id of items before 1.26.40 reads as the plain network id.
        (Json::Object(m), Value::Int(_) | Value::UInt(_))
            if m.get("type").and_then(Json::as_str) == Some("item_stack_net_id") && m.contains_key("id") =>
        {
            matches(&m["id"], got, path)
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

/// Every typed view of a vector's packet: decode_as → encode must reproduce the vector bytes
/// exactly; and every view must have at least one vector in every version.
#[test]
fn codec_vectors_typed_views_round_trip() {
    use clawcraft_protocol::packets::ALL_VIEWS;
    for info in Protocol::versions() {
        let proto = Protocol::load(info.game_version).expect("load");
        let mut failures = Vec::new();
        let mut covered = std::collections::BTreeSet::new();
        for (name, _params, bytes) in vectors(info.game_version) {
            let views: Vec<_> = ALL_VIEWS.iter().filter(|v| v.name == name).collect();
            if views.is_empty() {
                failures.push(format!("{name}: no typed view for this vector"));
            }
            for view in views {
                covered.insert(view.type_name);
                match (view.reencode)(&proto, &bytes) {
                    Ok(out) if out == bytes => {}
                    Ok(out) => failures.push(format!(
                        "{} ({name}): typed re-encode differs\n want {bytes:02x?}\n  got {out:02x?}",
                        view.type_name
                    )),
                    Err(e) => failures.push(format!("{} ({name}): {e}", view.type_name)),
                }
            }
        }
        for view in ALL_VIEWS {
            if !covered.contains(view.type_name) {
                failures.push(format!("{} ({}): no vector", view.type_name, view.name));
            }
        }
        assert!(failures.is_empty(), "{}: {} failures:\n{}", info.game_version, failures.len(), failures.join("\n"));
    }
}

/// Every view's `Default` encodes (neutral values everywhere), decodes back and re-encodes
/// identically.
#[test]
fn codec_default_typed_packets_encode() {
    use clawcraft_protocol::packets::ALL_VIEWS;
    for info in Protocol::versions() {
        let p = Protocol::load(info.game_version).expect("load");
        let failures: Vec<String> = ALL_VIEWS
            .iter()
            .filter_map(|view| match (view.default_round_trip)(&p) {
                Ok(true) => None,
                Ok(false) => Some(format!("{}: default re-encode differs", view.type_name)),
                Err(e) => Some(format!("{}: {e}", view.type_name)),
            })
            .collect();
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
