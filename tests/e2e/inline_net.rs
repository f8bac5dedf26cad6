//! After spawn the bot's network I/O runs on the game thread (issue #14): the `clawcraft-net`
//! thread hands the connection over and ends, so an idle bot has no thread waking between ticks;
//! the bot still answers, stays connected, and sends one burst of datagrams per tick (its batch
//! with the ACKs of what arrived), as a UDP relay between it and the peer sees.

use crate::common;

use std::time::{Duration, Instant};

use common::relay::{Faults, Relay, Seen};
use common::{Bot, Peer};
use serde_json::json;

const SPAWN: Duration = Duration::from_secs(30);
const STEP: Duration = Duration::from_secs(10);
/// Datagrams of one send pass leave within microseconds; ticks are 50 ms apart.
const BURST_GAP: Duration = Duration::from_millis(10);

/// The names of the process's threads.
fn thread_names(pid: u32) -> Vec<String> {
    let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) else { return Vec::new() };
    tasks
        .filter_map(|t| t.ok())
        .filter_map(|t| std::fs::read_to_string(t.path().join("comm")).ok())
        .map(|n| n.trim().to_owned())
        .collect()
}

/// Voluntary context switches (wake-ups after a sleep) of every thread but the main (game)
/// thread, summed.
fn other_threads_wakeups(pid: u32) -> u64 {
    let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) else { return 0 };
    tasks
        .filter_map(|t| t.ok())
        .filter(|t| t.file_name().to_string_lossy() != pid.to_string())
        .filter_map(|t| std::fs::read_to_string(t.path().join("status")).ok())
        .filter_map(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix("voluntary_ctxt_switches:").and_then(|v| v.trim().parse::<u64>().ok()))
        })
        .sum()
}

/// Polls `pred` every 20 ms until it holds or `timeout` passes.
fn eventually(timeout: Duration, mut pred: impl FnMut() -> bool) -> bool {
    let deadline = Instant::now() + timeout;
    loop {
        if pred() {
            return true;
        }
        if Instant::now() > deadline {
            return false;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// The client's datagrams grouped into send passes (bursts less than [`BURST_GAP`] apart).
fn bursts(seen: &[Seen]) -> Vec<Vec<Seen>> {
    let mut out: Vec<Vec<Seen>> = Vec::new();
    for s in seen.iter().filter(|s| s.to_server) {
        match out.last_mut() {
            Some(burst) if burst.last().is_some_and(|l| s.at.duration_since(l.at) < BURST_GAP) => burst.push(*s),
            _ => out.push(vec![*s]),
        }
    }
    out
}

#[test]
fn after_spawn_the_network_runs_on_the_game_thread_in_one_send_pass_per_tick() {
    let peer = Peer::start("flat");
    let relay = Relay::start(([127, 0, 0, 1], peer.port).into());
    let mut bot = Bot::start_with(relay.port, "InlineBot", &[("RUST_LOG", "warn")]);
    let pid = bot.pid();
    // The network thread connects and logs in (it exists before the bot spawned)…
    assert!(
        eventually(STEP, || thread_names(pid).iter().any(|n| n == "clawcraft-net")),
        "the network thread runs while connecting: {:?}",
        thread_names(pid)
    );
    bot.wait_event("spawn", SPAWN).expect("spawn through the relay");
    // …and ends once it handed the connection over.
    assert!(
        eventually(STEP, || !thread_names(pid).iter().any(|n| n == "clawcraft-net")),
        "no network thread after spawn: {:?}",
        thread_names(pid)
    );

    // Idle: no thread but the game thread wakes up (the I/O threads sleep until input comes).
    // Events the spawn still causes (a slow machine spawns later in the peer's script) are input
    // for the output threads: the stdout and events-file writers may wake once per line written.
    let (before, lines_before) = (other_threads_wakeups(pid), bot.lines_seen());
    let idle = Instant::now();
    // Reads stdout for 2 s (no line is awaited): the window, and the lines written in it.
    let _ = bot.wait(|_| false, Duration::from_secs(2));
    let woke = other_threads_wakeups(pid) - before;
    let lines = (bot.lines_seen() - lines_before) as u64;
    eprintln!("idle {:?}: other threads woke {woke} times, {lines} lines written", idle.elapsed());
    assert!(
        woke <= 2 + 2 * lines,
        "only the game thread wakes while the bot idles ({woke} other wake-ups in 2 s, {lines} lines written)"
    );

    // Server traffic the client must ACK: commands the peer answers. The relay delays both ways
    // by 10 ms so an answer lands between two ticks: ACKs sent on a timer of their own would
    // leave apart from the tick's batch.
    relay.set(Faults { delay: Duration::from_millis(10), ..Faults::default() });
    relay.record();
    let start = Instant::now();
    for _ in 0..20 {
        let out = bot.request(json!({"action": "cmd", "cmd": "/list"}), STEP).expect("cmd answered");
        assert_eq!(out["success"], true, "the server's CommandOutput came back: {out}");
    }
    let status = bot.request(json!({"action": "status"}), STEP).expect("status");
    assert_eq!(status["state"], "spawned", "{status}");
    let elapsed = start.elapsed();
    let seen = relay.recorded();
    relay.set(Faults::default());

    let from_server = seen.iter().filter(|s| !s.to_server && s.is_data()).count();
    let acks = seen.iter().filter(|s| s.to_server && s.is_ack()).count();
    let passes = bursts(&seen);
    let ticks = elapsed.as_millis() as usize / 50;
    let lone_acks: usize =
        passes.iter().filter(|b| !b.iter().any(Seen::is_data)).map(|b| b.iter().filter(|s| s.is_ack()).count()).sum();
    eprintln!(
        "{elapsed:?} (~{ticks} ticks): {} client datagrams in {} send passes, {acks} ACKs ({lone_acks} without a batch), {from_server} server data datagrams",
        seen.iter().filter(|s| s.to_server).count(),
        passes.len(),
    );
    assert!(from_server >= 20, "the server sent data to ACK: {from_server} datagrams");
    assert!(acks >= 20, "the client ACKed it: {acks} ACK datagrams");
    assert!(
        passes.len() <= ticks + ticks / 10 + 2,
        "at most one send pass per tick: {} in ~{ticks} ticks",
        passes.len()
    );
    assert!(lone_acks * 10 <= acks, "ACKs leave with the tick's batch: {lone_acks} of {acks} left alone");

    // It stayed connected, and leaves politely: the DisconnectionNotification goes out inline.
    assert!(!bot.seen.iter().any(|v| v["type"] == "disconnected"), "stayed connected");
    bot.close_stdin();
    let status = bot.wait_exit(STEP).expect("exits at stdin EOF");
    assert_eq!(status.code(), Some(0));
    assert!(
        peer.wait_log(
            |p| p.iter().any(|x| x["name"] == "__disconnect" && x["reason"] == "disconnection_notification"),
            STEP
        ),
        "the peer saw the bot leave politely"
    );
}
