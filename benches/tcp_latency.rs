//! TCP round trip of `pos` on one persistent connection to the real (release) binary, against
//! the Node peer: 1 000 calls after a warm-up, printed as JSON (µs). Run with
//! `cargo bench --bench tcp_latency`.

#[path = "../tests/common/mod.rs"]
mod common;

use std::time::{Duration, Instant};

use clawcraft_io::client::Session;
use common::{Bot, Peer, TempDir, free_tcp_port};
use serde_json::json;

const CALLS: usize = 1_000;

fn main() {
    let peer = Peer::start("flat");
    let dir = TempDir::new("bench");
    let port = free_tcp_port();
    let port_s = port.to_string();
    let events = dir.path().join("events.jsonl").to_string_lossy().into_owned();
    let mut bot = Bot::start_with(
        peer.port,
        "BenchBot",
        &[("CLAWCRAFT_PORT", &port_s), ("CLAWCRAFT_EVENTS", &events), ("RUST_LOG", "warn")],
    );
    bot.wait_event("spawn", Duration::from_secs(60)).expect("the bot spawned");

    let mut s = Session::open(([127, 0, 0, 1], port).into(), Duration::from_secs(10)).expect("connect");
    for _ in 0..100 {
        s.request(r#"{"action":"pos"}"#).expect("warm-up");
    }
    let mut micros = Vec::with_capacity(CALLS);
    for i in 0..CALLS {
        let t = Instant::now();
        let v = s.request(&format!(r#"{{"action":"pos","id":{i}}}"#)).expect("pos");
        micros.push(t.elapsed().as_secs_f64() * 1e6);
        assert_eq!(v["id"], i, "in order");
        assert!(v["pos"].is_object(), "{v}");
    }
    micros.sort_by(f64::total_cmp);
    let pct = |p: f64| micros[((micros.len() as f64 * p).ceil() as usize).clamp(1, micros.len()) - 1];
    let mean = micros.iter().sum::<f64>() / micros.len() as f64;
    println!(
        "{}",
        json!({
            "bench": "tcp_pos_round_trip", "calls": CALLS, "unit": "us",
            "p50": pct(0.50).round(), "p99": pct(0.99).round(), "max": micros[micros.len() - 1].round(),
            "mean": mean.round(), "min": micros[0].round(),
        })
    );
    bot.close_stdin();
    let _ = bot.wait_exit(Duration::from_secs(10));
}
