//! Packet codec benchmark (a bench binary printing figures):
//! `cargo bench -p clawcraft-protocol --bench codec`

use std::hint::black_box;
use std::time::Instant;

use clawcraft_protocol::codec::Protocol;
use clawcraft_protocol::packets::{PlayerAuthInput, StartGame};

fn vector(name: &str) -> Vec<u8> {
    let path = format!("{}/../../tests/vectors/1.26.45.json", env!("CARGO_MANIFEST_DIR"));
    let list: Vec<serde_json::Value> =
        serde_json::from_str(&std::fs::read_to_string(path).expect("vectors")).expect("json");
    let hex = list.iter().find(|v| v["name"] == name).and_then(|v| v["hex"].as_str()).expect("vector");
    (0..hex.len()).step_by(2).map(|i| u8::from_str_radix(&hex[i..i + 2], 16).expect("hex")).collect()
}

fn time(label: &str, iters: u32, mut f: impl FnMut()) {
    for _ in 0..iters / 10 {
        f();
    }
    let t = Instant::now();
    for _ in 0..iters {
        f();
    }
    println!("{label:<40} {:>8.0} ns", t.elapsed().as_nanos() as f64 / f64::from(iters));
}

fn main() {
    let t = Instant::now();
    let p = Protocol::load("1.26.45").expect("load");
    println!("{:<40} {:>8.1} ms", "load + compile 1.26.45", t.elapsed().as_secs_f64() * 1e3);
    for (name, iters) in [("player_auth_input", 50_000), ("start_game", 5_000)] {
        let bytes = vector(name);
        time(&format!("decode {name} -> Value"), iters, || {
            black_box(p.decode(black_box(&bytes)).expect("decode"));
        });
        let (_, v) = p.decode(&bytes).expect("decode");
        time(&format!("encode_value {name}"), iters, || {
            black_box(p.encode_value(name, black_box(&v)).expect("encode"));
        });
    }
    let bytes = vector("player_auth_input");
    time("decode_as PlayerAuthInput", 50_000, || {
        black_box(p.decode_as::<PlayerAuthInput>(black_box(&bytes)).expect("decode"));
    });
    let typed: PlayerAuthInput = p.decode_as(&bytes).expect("decode");
    time("encode PlayerAuthInput", 50_000, || {
        black_box(p.encode(black_box(&typed)).expect("encode"));
    });
    let bytes = vector("start_game");
    time("decode_as StartGame", 5_000, || {
        black_box(p.decode_as::<StartGame>(black_box(&bytes)).expect("decode"));
    });
    let typed: StartGame = p.decode_as(&bytes).expect("decode");
    time("encode StartGame", 5_000, || {
        black_box(p.encode(black_box(&typed)).expect("encode"));
    });
}
