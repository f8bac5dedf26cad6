//! Fuzzing the whole bot, not just a decoder: mutated server packets go through every plugin's
//! handlers, and hostile command lines through the command path, in a simulation (a debug build
//! here, so any arithmetic overflow panics). Nothing may panic; every command line gets exactly
//! one response with a `code` or an answer.
//!
//! `CLAWCRAFT_FUZZ_INPUTS` sets the number of inputs per fuzzer (CI runs the default; the long
//! run, `tests/fuzz/long-run.sh`, ten million).

use clawcraft::protocol::codec::{Protocol, Value as Wire};
use clawcraft::sim::{Simulation, start_game};
use serde_json::{Value, json};

fn inputs(default: u64) -> u64 {
    std::env::var("CLAWCRAFT_FUZZ_INPUTS").ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

/// xorshift64*: deterministic, dependency-free.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

fn unhex(s: &str) -> Vec<u8> {
    (0..s.len()).step_by(2).filter_map(|i| u8::from_str_radix(s.get(i..i + 2)?, 16).ok()).collect()
}

/// Golden packets of every kind the bot reads (`tests/vectors`).
fn packet_corpus() -> Vec<Vec<u8>> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/vectors/1.26.45.json");
    let list: Vec<Value> = serde_json::from_str(&std::fs::read_to_string(path).expect("vectors")).expect("json");
    list.iter().filter_map(|v| v["hex"].as_str()).map(unhex).collect()
}

fn mutate(rng: &mut Rng, seed: &[u8]) -> Vec<u8> {
    let mut b = seed.to_vec();
    for _ in 0..1 + rng.below(4) {
        match rng.below(7) {
            0 if !b.is_empty() => {
                let i = rng.below(b.len());
                b[i] ^= 1 << rng.below(8);
            }
            1 if b.len() > 1 => {
                // Keep the packet id, so the packet's handlers are the ones exercised.
                let i = 1 + rng.below(b.len() - 1);
                b[i] = [0x00, 0xff, 0x7f, 0x80, 0xfe, 0x01][rng.below(6)];
            }
            2 if b.len() > 1 => b.truncate(1 + rng.below(b.len())),
            3 if b.len() > 1 => {
                // Extreme varints: lengths, counts, coordinates, heights.
                let i = 1 + rng.below(b.len() - 1);
                let run =
                    [[0xff, 0xff, 0xff, 0xff, 0x0f], [0xfe, 0xff, 0xff, 0xff, 0x0f], [0x80, 0x80, 0x80, 0x80, 0x08]]
                        [rng.below(3)];
                let end = (i + 5).min(b.len());
                b.splice(i..end, run);
            }
            4 if b.len() > 5 => {
                // An f32 field set to NaN, ±inf or a huge value.
                let i = 1 + rng.below(b.len() - 4);
                let v: f32 = [f32::NAN, f32::INFINITY, f32::NEG_INFINITY, 3.0e38, -3.0e38][rng.below(5)];
                b[i..i + 4].copy_from_slice(&v.to_le_bytes());
            }
            5 => b.extend((0..rng.below(32)).map(|_| rng.next() as u8)),
            _ if !b.is_empty() => {
                let i = rng.below(b.len());
                b[i] = rng.next() as u8;
            }
            _ => {}
        }
    }
    b
}

/// Numeric leaves of a decoded packet, in tree order.
fn count_numbers(v: &Wire) -> usize {
    match v {
        Wire::Int(_) | Wire::UInt(_) | Wire::Float(_) => 1,
        Wire::Array(items) => items.iter().map(count_numbers).sum(),
        Wire::Object(fields) => fields.iter().map(|(_, v)| count_numbers(v)).sum(),
        _ => 0,
    }
}

/// Sets the `n`-th numeric leaf to `extreme`'s choice for its kind.
fn set_number(v: &mut Wire, n: &mut usize, pick: usize) -> bool {
    match v {
        Wire::Int(_) | Wire::UInt(_) | Wire::Float(_) if *n == 0 => {
            *v = match v {
                Wire::Int(_) => Wire::Int([i64::from(i32::MIN), i64::from(i32::MAX), -1, i64::MIN, i64::MAX][pick % 5]),
                Wire::UInt(_) => Wire::UInt([0, u64::from(u32::MAX), u64::MAX, u64::from(u16::MAX)][pick % 4]),
                _ => Wire::Float([f64::NAN, f64::INFINITY, -1e300, 3.0e38, f64::from(f32::MAX)][pick % 5]),
            };
            true
        }
        Wire::Int(_) | Wire::UInt(_) | Wire::Float(_) => {
            *n -= 1;
            false
        }
        Wire::Array(items) => items.iter_mut().any(|i| set_number(i, n, pick)),
        Wire::Object(fields) => fields.iter_mut().any(|(_, f)| set_number(f, n, pick)),
        _ => false,
    }
}

/// A seed packet with some numeric fields set to extremes (the layout stays valid, so the
/// handlers see in-range types with hostile values: heights, counts, coordinates, ids).
fn extreme_fields(rng: &mut Rng, proto: &Protocol, seed: &[u8]) -> Option<Vec<u8>> {
    let (name, mut v) = proto.decode(seed).ok()?;
    let leaves = count_numbers(&v);
    if leaves == 0 {
        return None;
    }
    for _ in 0..1 + rng.below(3) {
        // Out-of-range picks for a field's wire type fail to encode; try a few.
        for _ in 0..4 {
            let mut attempt = v.clone();
            let mut n = rng.below(leaves);
            set_number(&mut attempt, &mut n, rng.below(20));
            if proto.encode_value(&name, &attempt).is_ok() {
                v = attempt;
                break;
            }
        }
    }
    proto.encode_value(&name, &v).ok()
}

#[test]
fn mutated_server_packets_through_every_handler_never_panic() {
    let corpus = packet_corpus();
    let total = inputs(200_000);
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let fresh = |rng: &mut Rng| {
        // Mostly a spawned bot (every handler is live), sometimes one still joining.
        let mut sim = if rng.below(4) == 0 { Simulation::new() } else { Simulation::spawned_with(&start_game()) };
        sim.allow_warnings = true;
        sim
    };
    let mut sim = fresh(&mut rng);
    let mut fed = 0u64;
    // Mutated packets that still decode, so their handlers act on them rather than refuse them.
    let proto = Protocol::load("1.26.45").expect("protocol");
    let mut decodable = 0u64;
    let mut extreme = 0u64;
    while fed < total {
        // A batch per tick, as a server sends them; now and then a fresh bot, so packets also
        // hit the states before and after spawn.
        let n = 1 + rng.below(32);
        let batch: Vec<Vec<u8>> = (0..n)
            .map(|_| {
                let seed = &corpus[rng.below(corpus.len())];
                if rng.below(3) == 0
                    && let Some(b) = extreme_fields(&mut rng, &proto, seed)
                {
                    extreme += 1;
                    return b;
                }
                mutate(&mut rng, seed)
            })
            .collect();
        decodable += batch.iter().filter(|b| proto.decode(b).is_ok()).count() as u64;
        fed += n as u64;
        sim.receive_raw(batch);
        sim.tick();
        if rng.below(200) == 0 {
            sim = fresh(&mut rng);
        }
    }
    assert!(decodable > fed / 5, "mutations must still reach the handlers: {decodable} of {fed} decode");
    assert!(extreme > fed / 5, "extreme field values: {extreme} of {fed}");
    // The bot still works afterwards.
    let r = sim.command(r#"{"action":"status"}"#);
    assert_eq!(r["type"], "response", "{r:?}");
}

/// Values that break careless arithmetic or parsing.
fn hostile_value(rng: &mut Rng) -> Value {
    match rng.below(16) {
        0 => json!(u64::MAX),
        1 => json!(i64::MIN),
        2 => json!(1e308),
        3 => json!(-1e308),
        4 => json!(f64::MIN_POSITIVE),
        5 => json!("NaN"),
        6 => json!("1e999"),
        7 => json!("-0"),
        8 => json!(null),
        9 => json!(true),
        10 => json!([1, [2, [3]]]),
        11 => json!({"x": {"y": 1}}),
        12 => json!("x".repeat(rng.below(20_000))),
        13 => json!(rng.below(64) as i64 - 32),
        14 => json!(30_000_000.5),
        _ => json!(2_147_483_648_i64),
    }
}

fn hostile_line(rng: &mut Rng, actions: &[String], params: &[String]) -> String {
    match rng.below(10) {
        0 => (0..rng.below(200)).map(|_| rng.next() as u8 as char).collect(),
        1 => r#"{"action":"#.repeat(1 + rng.below(50)),
        2 => format!("{}{}", "[".repeat(rng.below(3000)), "]".repeat(rng.below(3000))),
        _ => {
            let mut m = serde_json::Map::new();
            let action = if rng.below(20) == 0 { hostile_value(rng) } else { json!(actions[rng.below(actions.len())]) };
            m.insert("action".into(), action);
            if rng.below(4) == 0 {
                m.insert("id".into(), hostile_value(rng));
            }
            for _ in 0..rng.below(6) {
                let key = if rng.below(10) == 0 { "zz".into() } else { params[rng.below(params.len())].clone() };
                m.insert(key, hostile_value(rng));
            }
            Value::Object(m).to_string()
        }
    }
}

#[test]
fn hostile_command_lines_get_one_answer_each_and_never_panic() {
    let mut sim = Simulation::new();
    sim.allow_warnings = true;
    let schema = sim.command(r#"{"action":"schema"}"#);
    let commands = schema["commands"].as_array().expect("commands");
    let actions: Vec<String> = commands.iter().filter_map(|c| c["name"].as_str().map(String::from)).collect();
    let mut params: Vec<String> =
        commands.iter().filter_map(|c| c["params"]["properties"].as_object()).flat_map(|p| p.keys().cloned()).collect();
    params.sort();
    params.dedup();
    let total = inputs(20_000);
    let mut rng = Rng(0x5eed_0bad_cafe_f00d);
    let mut answered = 0u64;
    for i in 0..total {
        let line = hostile_line(&mut rng, &actions, &params);
        sim.queue_command(&line);
        // Queries answer between ticks; everything else on the next tick.
        if i % 16 == 15 {
            sim.tick();
        } else {
            sim.interim();
        }
        for r in sim.take_responses() {
            answered += 1;
            assert_eq!(r["type"], "response", "{r:?}");
            assert!(r.contains_key("id"), "{r:?}");
            if let Some(code) = r.get("code") {
                assert!(code.as_str().is_some_and(|c| !c.is_empty()) && r["error"].is_string(), "{r:?}");
            }
        }
    }
    sim.ticks(200);
    answered += sim.take_responses().len() as u64;
    assert_eq!(answered, total, "every line got exactly one response");
}
