//! Faults on the wire, on loopback through a UDP relay the tests control (`common::relay`):
//! loss, jitter (which reorders) and duplicates for a minute; a 15 s cut; a server restart.

use crate::common;

use std::time::{Duration, Instant};

use clawcraft_io::events_file::{Cursor, read_events};
use common::relay::{Faults, Relay};
use common::{Bot, Peer, TempDir, input_intervals, now_ms, quantile};
use serde_json::{Value, json};

const SPAWN: Duration = Duration::from_secs(30);

fn relay_to(peer: &Peer) -> Relay {
    Relay::start(([127, 0, 0, 1], peer.port).into())
}

/// The events file's seqs are 1, 2, 3, … with nothing missing or repeated.
fn assert_seq_unbroken(events: &[Value]) {
    let seqs: Vec<u64> = events.iter().map(|e| e["seq"].as_u64().expect("seq")).collect();
    let first = seqs.first().copied().unwrap_or(1);
    assert_eq!(seqs, (first..first + seqs.len() as u64).collect::<Vec<_>>(), "seq continues without a gap");
}

#[test]
fn loss_jitter_and_duplicates_for_a_minute_keep_the_session_and_the_input_stream() {
    let peer = Peer::start("flat");
    let relay = relay_to(&peer);
    let mut bot = Bot::start_with(relay.port, "LossyBot", &[("RUST_LOG", "warn")]);
    bot.wait_event("spawn", SPAWN).expect("spawn through the relay");
    relay.set(Faults { loss: 0.10, jitter: Duration::from_millis(100), duplicate: 0.02, ..Faults::default() });
    let start = now_ms();
    let before = relay.stats();
    // The soak itself: a minute in which the connection must hold.
    let lost = bot.wait_event("disconnected", Duration::from_secs(60));
    let end = now_ms();
    relay.set(Faults::default());
    assert!(lost.is_none(), "the bot stayed connected: {lost:?}");
    let stats = relay.stats();
    assert!(stats.dropped - before.dropped > 100, "the relay dropped datagrams: {stats:?}");
    assert!(stats.duplicated - before.duplicated > 10, "and duplicated some: {stats:?}");
    // PlayerAuthInput kept arriving at the server at 20 Hz (resends fill the holes).
    assert!(peer.wait_log(|p| p.iter().filter_map(|p| p["t"].as_u64()).any(|t| t > end), Duration::from_secs(10)));
    let gaps = input_intervals(&peer, start, end);
    let expected = (end - start) / 50;
    eprintln!(
        "60 s at 10 % loss, 100 ms jitter: {} inputs of {expected}, interval p50 {} p99 {} max {} ms",
        gaps.len() + 1,
        quantile(&gaps, 0.5),
        quantile(&gaps, 0.99),
        quantile(&gaps, 1.0)
    );
    assert!(gaps.len() as u64 + 1 >= expected * 95 / 100, "{} inputs of {expected}", gaps.len() + 1);
    assert!(quantile(&gaps, 1.0) < 2_000, "no gap of seconds in the input stream");
    // Ticks were numbered without a hole: every input of the window arrived.
    let ticks: Vec<u64> = peer
        .packets_named("player_auth_input")
        .iter()
        .filter(|p| p["t"].as_u64().is_some_and(|t| (start..=end).contains(&t)))
        .filter_map(|p| {
            let t = &p["params"]["tick"];
            t.as_u64().or_else(|| t.as_str().and_then(|s| s.parse().ok()))
        })
        .collect();
    let breaks: Vec<&[u64]> = ticks.windows(2).filter(|w| w[1] != w[0] + 1).collect();
    assert!(breaks.is_empty(), "reliable ordered delivery: ticks in order, none lost: {breaks:?}");
    let status = bot.request(json!({"action": "status"}), Duration::from_secs(10)).expect("status");
    assert_eq!(status["state"], "spawned");
}

#[test]
fn a_cut_of_fifteen_seconds_disconnects_then_reconnect_continues_the_events() {
    let peer = Peer::start("flat");
    let relay = relay_to(&peer);
    let dir = TempDir::new("cut");
    let events = dir.path().join("events.jsonl");
    let events_s = events.to_string_lossy().into_owned();
    let mut bot = Bot::start_with(
        relay.port,
        "CutBot",
        &[("CLAWCRAFT_RECONNECT", "true"), ("CLAWCRAFT_EVENTS", &events_s), ("RUST_LOG", "warn")],
    );
    bot.wait_event("spawn", SPAWN).expect("spawn");
    relay.set(Faults { cut: true, ..Faults::default() });
    let cut = Instant::now();
    let gone = bot.wait_event("disconnected", Duration::from_secs(20)).expect("a cut ends in `disconnected`");
    assert!(gone["reason"].as_str().is_some_and(|r| r.contains("timed out")), "RakNet's timeout: {gone}");
    bot.wait_event("reconnecting", Duration::from_secs(5)).expect("reconnecting");
    // The path comes back after 15 s.
    std::thread::sleep(Duration::from_secs(15).saturating_sub(cut.elapsed()));
    relay.set(Faults::default());
    let back = bot.wait_event("reconnected", Duration::from_secs(40)).expect("reconnected once the path is back");
    assert!(back["attempt"].as_u64().is_some_and(|a| a >= 1));
    let status = bot.request(json!({"action": "status"}), Duration::from_secs(10)).expect("status");
    assert_eq!(status["state"], "spawned");

    // Every event reached the file once, in seq order, across the reconnect; stdout agrees.
    let deadline = Instant::now() + Duration::from_secs(10);
    let file = loop {
        let file = read_events(&events, Cursor::All);
        if file.iter().any(|e| e["type"] == "reconnected") {
            break file;
        }
        assert!(Instant::now() < deadline, "reconnected reaches the file");
        std::thread::sleep(Duration::from_millis(20));
    };
    assert_seq_unbroken(&file);
    let kinds: Vec<&str> = file.iter().filter_map(|e| e["type"].as_str()).collect();
    let order = ["spawn", "disconnected", "reconnecting", "reconnected"];
    let mut at = 0;
    for k in &kinds {
        if at < order.len() && *k == order[at] {
            at += 1;
        }
    }
    assert_eq!(at, order.len(), "spawn, disconnected, reconnecting, reconnected in order: {kinds:?}");
    let stdout_seqs: Vec<u64> =
        bot.seen.iter().filter(|v| v["seq"].is_u64()).filter_map(|v| v["seq"].as_u64()).collect();
    let file_seqs: Vec<u64> = file.iter().filter_map(|e| e["seq"].as_u64()).collect();
    assert!(file_seqs.starts_with(&stdout_seqs) || stdout_seqs.starts_with(&file_seqs), "stdout and file agree");
}

#[test]
fn a_server_restart_is_rejoined() {
    let mut peer = Peer::start("flat");
    let port = peer.port;
    let mut bot = Bot::start_with(port, "RestartBot", &[("CLAWCRAFT_RECONNECT", "true"), ("RUST_LOG", "warn")]);
    bot.wait_event("spawn", SPAWN).expect("spawn");
    peer.terminate();
    let gone = bot.wait_event("disconnected", Duration::from_secs(20)).expect("the server going away ends the session");
    eprintln!("server stopped: {gone}");
    let peer = Peer::start_at("flat", port);
    let back = bot.wait_event("reconnected", Duration::from_secs(60)).expect("rejoined the restarted server");
    assert!(back["attempt"].as_u64().is_some_and(|a| a >= 1));
    assert!(
        peer.wait_log(|p| p.iter().any(|p| p["name"] == "player_auth_input"), Duration::from_secs(10)),
        "the new server receives input"
    );
}
