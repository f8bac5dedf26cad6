//! Packet codec and RakNet benchmark (a bench binary printing figures):
//! `cargo bench -p clawcraft-protocol --bench codec [-- FILTER]`. A filter runs only the cases
//! whose label contains it (`raknet` skips loading the protocol).

use std::hint::black_box;
use std::net::SocketAddr;
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

use clawcraft_protocol::codec::{Protocol, SharedPacket};
use clawcraft_protocol::io::{Reader, WriteExt};
use clawcraft_protocol::packets::{PlayerAuthInput, StartGame};
use clawcraft_protocol::raknet::frame::{
    Datagram, FLAG_ACK, FLAG_VALID, Frame, Reliability, encode_data_datagram, parse_datagram,
};
use clawcraft_protocol::raknet::message::{OFFLINE_MAGIC, id, write_address};
use clawcraft_protocol::raknet::{RakClient, RakConfig, RakEvent};

/// The label filter given on the command line (the first argument that is not an option).
fn filter() -> Option<&'static str> {
    static FILTER: OnceLock<Option<String>> = OnceLock::new();
    FILTER.get_or_init(|| std::env::args().skip(1).find(|a| !a.starts_with('-'))).as_deref()
}

fn selected(label: &str) -> bool {
    filter().is_none_or(|f| label.contains(f))
}

fn vector(version: &str, name: &str) -> Vec<u8> {
    let path = format!("{}/../../tests/vectors/{version}.json", env!("CARGO_MANIFEST_DIR"));
    let list: Vec<serde_json::Value> =
        serde_json::from_str(&std::fs::read_to_string(path).expect("vectors")).expect("json");
    let hex = list.iter().find(|v| v["name"] == name).and_then(|v| v["hex"].as_str()).expect("vector");
    (0..hex.len()).step_by(2).map(|i| u8::from_str_radix(&hex[i..i + 2], 16).expect("hex")).collect()
}

fn time(label: &str, iters: u32, mut f: impl FnMut()) {
    if !selected(label) {
        return;
    }
    for _ in 0..iters / 10 {
        f();
    }
    let t = Instant::now();
    for _ in 0..iters {
        f();
    }
    println!("{label:<52} {:>8.0} ns", t.elapsed().as_nanos() as f64 / f64::from(iters));
}

/// A RakNet client connected to a hand-driven server (the handshake of the protocol tests).
fn connected_client(now: Instant) -> RakClient {
    let server: SocketAddr = "127.0.0.1:19132".parse().expect("literal");
    let mut c = RakClient::new(RakConfig::default(), server, now);
    while c.poll_transmit().is_some() {}
    let mut reply1 = vec![id::OPEN_CONNECTION_REPLY_1];
    reply1.put_bytes(&OFFLINE_MAGIC);
    reply1.put_u64_be(7);
    reply1.put_bool(false);
    reply1.put_u16_be(1400);
    c.handle_datagram(&reply1, now);
    while c.poll_transmit().is_some() {}
    let mut reply2 = vec![id::OPEN_CONNECTION_REPLY_2];
    reply2.put_bytes(&OFFLINE_MAGIC);
    reply2.put_u64_be(7);
    write_address(&mut reply2, &server);
    reply2.put_u16_be(1400);
    reply2.put_u8(0);
    c.handle_datagram(&reply2, now);
    let request = c.poll_transmit().expect("ConnectionRequest");
    let Ok(Datagram::Data { frames, .. }) = parse_datagram(&request) else { panic!("not a data datagram") };
    let request_time = Reader::new(&frames[0].payload[9..17]).i64_be().expect("request time");
    let mut accepted = vec![id::CONNECTION_REQUEST_ACCEPTED];
    write_address(&mut accepted, &server);
    accepted.put_u16_be(0);
    for _ in 0..20 {
        write_address(&mut accepted, &server);
    }
    accepted.put_i64_be(request_time);
    accepted.put_i64_be(request_time);
    c.handle_datagram(&encode_data_datagram(0, &[Frame::new(Reliability::Reliable, accepted)]), now);
    assert_eq!(c.poll_event(), Some(RakEvent::Connected));
    while c.poll_transmit().is_some() {}
    // The server acknowledges ConnectionRequest (0) and NewIncomingConnection (1), so they are
    // not resent every few seconds during the measurement; our ACK of its datagram leaves.
    c.handle_datagram(&[FLAG_VALID | FLAG_ACK, 0, 1, 0, 0, 0, 0, 1, 0, 0], now);
    c.tick(now + Duration::from_millis(50));
    while c.poll_transmit().is_some() {}
    c
}

/// The per-tick RakNet work of an idle spawned bot: the ACK of the last tick's datagram arrives,
/// the timers run, the tick's batch (~100 bytes, reliable-ordered) is queued and sent. The
/// client's clock advances 50 ms per iteration (a ping goes out every 40 ticks, as live). `owned`:
/// the way the network plugin drives it (the batch handed over, one reused datagram buffer);
/// otherwise `send(&[u8])` and `poll_transmit()`, a fresh datagram each time.
fn raknet_idle_tick(owned: bool) {
    let label = if owned {
        "raknet idle tick, send_owned + poll_transmit_into"
    } else {
        "raknet idle tick, send + poll_transmit"
    };
    if !selected(label) {
        return;
    }
    let mut now = Instant::now();
    let mut c = connected_client(now);
    let batch: Vec<u8> = (0..100u8).map(|i| i.wrapping_mul(37)).collect();
    let mut ack_seq: Option<u32> = None;
    let mut datagram = Vec::with_capacity(1500);
    time(label, 1_000_000, || {
        now += Duration::from_millis(50);
        if let Some(seq) = ack_seq {
            let s = seq.to_le_bytes();
            let ack = [FLAG_VALID | FLAG_ACK, 0, 1, 1, s[0], s[1], s[2]];
            c.handle_datagram(black_box(&ack), now);
        }
        c.tick(now);
        while let Some(e) = c.poll_event() {
            black_box(e);
        }
        // The session hands RakNet a fresh batch each tick.
        let msg = black_box(&batch).clone();
        if owned {
            c.send_owned(msg, now).expect("send");
            while c.poll_transmit_into(&mut datagram) {
                ack_seq = Some(u32::from_le_bytes([datagram[1], datagram[2], datagram[3], 0]));
                black_box(&datagram);
            }
        } else {
            c.send(&msg, now).expect("send");
            while let Some(d) = c.poll_transmit() {
                ack_seq = Some(u32::from_le_bytes([d[1], d[2], d[3], 0]));
                black_box(&d);
            }
        }
    });
}

fn main() {
    raknet_idle_tick(false);
    raknet_idle_tick(true);
    if filter().is_some_and(|f| f.starts_with("raknet")) {
        return;
    }
    let default = Protocol::default_version().game_version;
    let t = Instant::now();
    let p = Protocol::load(default).expect("load");
    println!("{:<52} {:>8.1} ms", format!("load + compile {default}"), t.elapsed().as_secs_f64() * 1e3);
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
