//! Query latency over TCP against the real (release) binary and the Node peer, and the tick's
//! steadiness while an agent misbehaves. Run with `cargo bench --bench tcp_latency`; prints one
//! JSON object per line.
//!
//! - one-shot: measured like ClawCraft's `scripts/cmd.js` — a new connection per call, write the
//!   request line, read the first line (the client closes after reading; the server closes
//!   anyway) — for `pos`, `status`, `nearby`, `scan` radius 8, `path` 20 and 40 blocks east,
//!   `reachable` 40 blocks, and `walk`'s first answer (each walk aborted before the next);
//! - persistent: the same calls on one `session` connection;
//! - flood: PlayerAuthInput intervals at the peer while one TCP client pipelines 10 000 requests
//!   (`scan` radius 8; `BENCH_FLOOD` sets the count) and reads the answers;
//! - unread stdout: PlayerAuthInput intervals while nobody reads stdout and stdin requests keep
//!   producing large answers.
//!
//! `BENCH_CALLS` overrides the number of calls per query (default 1 000, scans 500).

#[path = "../tests/common/mod.rs"]
mod common;

use std::io::{BufRead, BufReader, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::{Duration, Instant};

use clawcraft_io::client::Session;
use clawcraft_io::events_file::{Cursor, read_events};
use common::{Peer, TempDir, bot_command, free_tcp_port, input_intervals, now_ms, quantile};
use serde_json::{Value, json};

/// The queries timed, with the bot's feet at `(x, y, z)` (paths go east over the flat world).
fn queries(x: f64, y: f64, z: f64) -> Vec<(&'static str, String)> {
    let to = |action: &str, dx: f64| format!(r#"{{"action":"{action}","x":{},"y":{y},"z":{z}}}"#, x + dx);
    vec![
        ("pos", r#"{"action":"pos"}"#.to_owned()),
        ("status", r#"{"action":"status"}"#.to_owned()),
        ("nearby", r#"{"action":"nearby"}"#.to_owned()),
        ("scan_r8", r#"{"action":"scan","radius":8}"#.to_owned()),
        ("path_20", to("path", 20.0)),
        ("path_40", to("path", 40.0)),
        ("reachable_40", to("reachable", 40.0)),
    ]
}

fn calls(name: &str) -> usize {
    let base = std::env::var("BENCH_CALLS").ok().and_then(|v| v.parse().ok()).unwrap_or(1_000);
    if name.starts_with("scan") {
        base / 2
    } else if name.starts_with("walk") {
        base / 5
    } else {
        base
    }
}

/// `walk`'s first answer (its path), one-shot, 20 blocks east and west in turn; each walk is
/// aborted (untimed) before the next starts.
fn walk_first_answer(addr: SocketAddr, x: f64, y: f64, z: f64) {
    let mut micros = Vec::new();
    let mut bytes = 0;
    for i in 0..calls("walk") + 10 {
        let dx = if i % 2 == 0 { 20.0 } else { -20.0 };
        let line = format!("{{\"action\":\"walk\",\"x\":{},\"y\":{y},\"z\":{z}}}\n", x + dx);
        let (dt, n) = one_shot(addr, &line);
        // A walk may already be over (NOT_ACTIVE): only its start is timed.
        one_shot_value(addr, "{\"action\":\"abort_walk\"}\n");
        if i >= 10 {
            micros.push(dt.as_secs_f64() * 1e6);
            bytes = n;
        }
    }
    println!("{}", summary("walk_first_answer_20", "one-shot", &mut micros, bytes));
}

/// One call as `scripts/cmd.js` makes it: connect, write, read the first line.
fn one_shot(addr: SocketAddr, line: &str) -> (Duration, usize) {
    let t = Instant::now();
    let mut s = TcpStream::connect(addr).expect("connect");
    s.set_nodelay(true).expect("nodelay");
    s.write_all(line.as_bytes()).expect("write");
    let mut r = BufReader::new(s);
    let mut answer = String::new();
    r.read_line(&mut answer).expect("read");
    let dt = t.elapsed();
    assert!(answer.ends_with('\n') && !answer.contains("\"code\""), "{answer}");
    (dt, answer.len())
}

/// One one-shot call's answer, parsed.
fn one_shot_value(addr: SocketAddr, line: &str) -> Value {
    let mut s = TcpStream::connect(addr).expect("connect");
    s.write_all(line.as_bytes()).expect("write");
    let mut answer = String::new();
    BufReader::new(s).read_line(&mut answer).expect("read");
    serde_json::from_str(&answer).expect("a JSON answer")
}

/// The floor: the same one-shot calls against a trivial loopback server that answers every
/// connection's first line with a fixed line from the accepting thread (no hand-offs, no work).
fn loopback_floor() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let addr = listener.local_addr().expect("addr");
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(stream) = stream else { continue };
            let _ = stream.set_nodelay(true);
            let mut r = BufReader::new(stream);
            let mut line = String::new();
            if r.read_line(&mut line).is_ok() {
                let _ = r.get_mut().write_all(b"{\"type\":\"response\",\"id\":1}\n");
            }
        }
    });
    let line = "{\"action\":\"pos\"}\n";
    for _ in 0..50 {
        one_shot(addr, line);
    }
    let mut micros: Vec<f64> = (0..calls("floor")).map(|_| one_shot(addr, line).0.as_secs_f64() * 1e6).collect();
    println!("{}", summary("loopback floor (no bot)", "one-shot", &mut micros, 0));
}

fn summary(name: &str, mode: &str, micros: &mut [f64], bytes: usize) -> Value {
    micros.sort_by(f64::total_cmp);
    let pct = |p: f64| micros[((micros.len() as f64 * p).ceil() as usize).clamp(1, micros.len()) - 1];
    json!({
        "bench": "tcp_query", "query": name, "mode": mode, "calls": micros.len(), "unit": "us",
        "p50": pct(0.50).round(), "p99": pct(0.99).round(), "max": pct(1.0).round(), "bytes": bytes,
    })
}

fn wait_spawn(events: &std::path::Path) {
    let deadline = Instant::now() + Duration::from_secs(60);
    while !read_events(events, Cursor::All).iter().any(|e| e["type"] == "spawn") {
        assert!(Instant::now() < deadline, "the bot spawned");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// The bot's own tick-interval counters (`status.stats.tickIntervals`).
/// The bot's tick counters (`status`). Queries are answered in arrival order across channels, so
/// after a stdin flood this one waits until the flood is worked off: a long timeout.
fn tick_counters(addr: SocketAddr) -> Value {
    let mut s = Session::open(addr, Duration::from_secs(120)).expect("session");
    s.request(r#"{"action":"status"}"#).expect("status")["stats"]["tickIntervals"].clone()
}

/// The bot's tick intervals between two counter readings: share within 55 ms and the rest.
fn tick_diff(before: &Value, after: &Value) -> Value {
    let n = |v: &Value, k: &str| v[k].as_u64().unwrap_or(0);
    let keys = ["within55ms", "within75ms", "within100ms", "over100ms"];
    let d: Vec<u64> = keys.iter().map(|k| n(after, k).saturating_sub(n(before, k))).collect();
    let total: u64 = d.iter().sum();
    json!({
        "ticks": total, "within55ms": d[0], "within75ms": d[1], "within100ms": d[2], "over100ms": d[3],
        "share_within55ms_percent": if total > 0 { (d[0] as f64 * 1000.0 / total as f64).round() / 10.0 } else { 0.0 },
        "max_ms_since_start": after["maxMs"],
    })
}

fn intervals_summary(bench: &str, peer: &Peer, start: u64, end: u64, extra: Value) -> Value {
    let gaps = input_intervals(peer, start, end);
    let mut v = json!({
        "bench": bench, "unit": "ms", "window_ms": end - start, "inputs": gaps.len() + 1,
        "p50": quantile(&gaps, 0.5), "p99": quantile(&gaps, 0.99), "max": quantile(&gaps, 1.0),
    });
    if let (Value::Object(m), Value::Object(e)) = (&mut v, extra) {
        m.extend(e);
    }
    v
}

fn latency_and_flood(latency: bool, flood: bool) {
    let peer = Peer::start("flat");
    let dir = TempDir::new("bench");
    let events = dir.path().join("events.jsonl");
    let port = free_tcp_port();
    let port_s = port.to_string();
    let mut child = bot_command(peer.port, "BenchBot", &events, &[("CLAWCRAFT_PORT", &port_s), ("RUST_LOG", "warn")])
        .stdout(std::process::Stdio::null())
        .spawn()
        .expect("bot");
    wait_spawn(&events);
    let addr: SocketAddr = ([127, 0, 0, 1], port).into();

    let pos = one_shot_value(addr, "{\"action\":\"pos\"}\n")["pos"].clone();
    let at = |k: &str| pos[k].as_f64().expect("pos has x, y, z");
    let (x, y, z) = (at("x"), at("y"), at("z"));
    for (name, req) in queries(x, y, z).into_iter().filter(|_| latency) {
        let req = req.as_str();
        let line = format!("{req}\n");
        for _ in 0..50 {
            one_shot(addr, &line);
        }
        let mut micros = Vec::new();
        let mut bytes = 0;
        for _ in 0..calls(name) {
            let (dt, n) = one_shot(addr, &line);
            micros.push(dt.as_secs_f64() * 1e6);
            bytes = n;
        }
        println!("{}", summary(name, "one-shot", &mut micros, bytes));

        let mut s = Session::open(addr, Duration::from_secs(10)).expect("session");
        for _ in 0..50 {
            s.request(req).expect("warm-up");
        }
        let mut micros = Vec::new();
        for _ in 0..calls(name) {
            // Timed like the one-shot calls: write, read the line (parsing is the client's cost).
            let t = Instant::now();
            s.send(req).expect("send");
            let line = s.recv_line().expect("answer").expect("open");
            micros.push(t.elapsed().as_secs_f64() * 1e6);
            assert!(!line.contains("\"code\""), "{line}");
        }
        println!("{}", summary(name, "persistent", &mut micros, bytes));
    }
    if latency {
        walk_first_answer(addr, x, y, z);
    }

    if !flood {
        let _ = child.kill();
        let _ = child.wait();
        return;
    }
    // Flood: 10 000 scans (or BENCH_FLOOD) pipelined on one connection.
    let flood: usize = std::env::var("BENCH_FLOOD").ok().and_then(|v| v.parse().ok()).unwrap_or(10_000);
    let before = tick_counters(addr);
    let mut reader = Session::open(addr, Duration::from_secs(120)).expect("session");
    let mut writer = reader.try_clone_writer().expect("writer");
    let start = now_ms();
    let sender = std::thread::spawn(move || {
        for i in 0..flood {
            writer.write_all(format!("{{\"action\":\"scan\",\"radius\":8,\"id\":{i}}}\n").as_bytes()).expect("send");
        }
    });
    for i in 0..flood {
        // Check the id without parsing 50 KiB per answer: the reader keeps up with the bot.
        let line = reader.recv_line().expect("answer").expect("open");
        assert!(line.starts_with(&format!("{{\"type\":\"response\",\"id\":{i},")), "{line:.80}");
    }
    let end = now_ms();
    sender.join().expect("sender");
    peer.wait_log(|p| p.iter().filter_map(|p| p["t"].as_u64()).any(|t| t > end), Duration::from_secs(5));
    println!(
        "{}",
        intervals_summary(
            "input_interval_tcp_flood",
            &peer,
            start,
            end,
            json!({"requests": flood, "query": "scan radius 8", "bot_side": tick_diff(&before, &tick_counters(addr))})
        )
    );
    let _ = child.kill();
    let _ = child.wait();
}

fn unread_stdout() {
    let peer = Peer::start("flat");
    let dir = TempDir::new("bench-unread");
    let events = dir.path().join("events.jsonl");
    let port = free_tcp_port();
    let port_s = port.to_string();
    let mut child = bot_command(peer.port, "UnreadBot", &events, &[("CLAWCRAFT_PORT", &port_s), ("RUST_LOG", "warn")])
        .spawn()
        .expect("bot");
    wait_spawn(&events);
    let addr: SocketAddr = ([127, 0, 0, 1], port).into();
    let before = tick_counters(addr);
    let _stdout = child.stdout.take().expect("stdout (never read)");
    let mut stdin = child.stdin.take().expect("stdin");
    let start = now_ms();
    let deadline = Instant::now() + Duration::from_secs(10);
    let mut sent = 0;
    while Instant::now() < deadline {
        writeln!(stdin, "{{\"action\":\"scan\",\"radius\":8,\"id\":{sent}}}").expect("stdin");
        sent += 1;
        if sent % 20 == 0 {
            std::thread::sleep(Duration::from_millis(10));
        }
    }
    let end = now_ms();
    peer.wait_log(|p| p.iter().filter_map(|p| p["t"].as_u64()).any(|t| t > end), Duration::from_secs(5));
    println!(
        "{}",
        intervals_summary(
            "input_interval_stdout_unread",
            &peer,
            start,
            end,
            json!({"stdin_requests": sent, "bot_side": tick_diff(&before, &tick_counters(addr))})
        )
    );
    let _ = child.kill();
    let _ = child.wait();
}

fn main() {
    // BENCH_ONLY=latency | flood | unread runs one part (the flood is the noisiest figure; rerun
    // it alone).
    let only = std::env::var("BENCH_ONLY").unwrap_or_default();
    if only.is_empty() || only == "latency" {
        loopback_floor();
    }
    if only != "unread" {
        latency_and_flood(only.is_empty() || only == "latency", only.is_empty() || only == "flood");
    }
    if only.is_empty() || only == "unread" {
        unread_stdout();
    }
}
