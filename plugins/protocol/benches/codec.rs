//! Packet codec benchmark (a bench binary printing figures):
//! `cargo bench -p clawcraft-protocol --bench codec`

use std::hint::black_box;
use std::time::Instant;

use std::sync::Arc;

use clawcraft_protocol::codec::{Protocol, SharedPacket};
use clawcraft_protocol::packets::{PlayerAuthInput, StartGame};

fn vector(version: &str, name: &str) -> Vec<u8> {
    let path = format!("{}/../../tests/vectors/{version}.json", env!("CARGO_MANIFEST_DIR"));
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
    println!("{label:<44} {:>8.0} ns", t.elapsed().as_nanos() as f64 / f64::from(iters));
}

fn main() {
    let default = Protocol::default_version().game_version;
    let t = Instant::now();
    let p = Protocol::load(default).expect("load");
    println!("{:<44} {:>8.1} ms", format!("load + compile {default}"), t.elapsed().as_secs_f64() * 1e3);
    for (name, iters) in [("player_auth_input", 50_000), ("start_game", 5_000)] {
        let bytes = vector(default, name);
        time(&format!("decode {name} -> Value"), iters, || {
            black_box(p.decode(black_box(&bytes)).expect("decode"));
        });
        let (_, v) = p.decode(&bytes).expect("decode");
        time(&format!("encode_value {name}"), iters, || {
            black_box(p.encode_value(name, black_box(&v)).expect("encode"));
        });
    }
    // The typed path includes the version-layout rewrite (codec/dialect.rs): per version.
    for info in Protocol::versions() {
        let p = Protocol::load(info.game_version).expect("load");
        let bytes = vector(info.game_version, "player_auth_input");
        time(&format!("decode_as PlayerAuthInput {}", info.game_version), 50_000, || {
            black_box(p.decode_as::<PlayerAuthInput>(black_box(&bytes)).expect("decode"));
        });
        let typed: PlayerAuthInput = p.decode_as(&bytes).expect("decode");
        time(&format!("encode PlayerAuthInput {}", info.game_version), 50_000, || {
            black_box(p.encode(black_box(&typed)).expect("encode"));
        });
    }
    let bytes = vector(default, "start_game");
    time("decode_as StartGame", 5_000, || {
        black_box(p.decode_as::<StartGame>(black_box(&bytes)).expect("decode"));
    });
    let typed: StartGame = p.decode_as(&bytes).expect("decode");
    time("encode StartGame", 5_000, || {
        black_box(p.encode(black_box(&typed)).expect("encode"));
    });
    // Four systems reading StartGame in a tick: one shared decode instead of four.
    let shared = Arc::new(p);
    time("StartGame read by 4 systems (shared view)", 5_000, || {
        let packet = SharedPacket::new(bytes.clone(), shared.clone()).expect("header");
        for _ in 0..4 {
            black_box(packet.view::<StartGame>().expect("view"));
        }
    });
    time("StartGame decoded by 4 systems (before)", 5_000, || {
        for _ in 0..4 {
            black_box(shared.decode_as::<StartGame>(black_box(&bytes)).expect("decode"));
        }
    });
    // An outgoing batch over the 1 KiB stored-block limit: each gets a compressor of its own
    // (not kept resident between batches). The same bytes through one reused compressor (reset in
    // between), for comparison.
    let batch = vec![vector(default, "player_auth_input"); 24];
    let plain: usize = batch.iter().map(|p| p.len() + 1).sum();
    let mut framer = clawcraft_protocol::framing::GameFramer::new();
    framer.enable_compression(clawcraft_protocol::framing::Compression::Deflate, 256);
    time(&format!("encode_batch {plain} B, DEFLATE, own compressor"), 2_000, || {
        black_box(framer.encode_batch(black_box(&batch)).expect("batch"));
    });
    let flat: Vec<u8> = batch.concat();
    let mut reused = flate2::Compress::new(flate2::Compression::default(), false);
    let mut out = Vec::with_capacity(flat.len() + 64);
    time(&format!("deflate {} B, one reused compressor", flat.len()), 2_000, || {
        reused.reset();
        out.clear();
        black_box(reused.compress_vec(black_box(&flat), &mut out, flate2::FlushCompress::Finish).expect("deflate"));
    });
}
