//! The TCP channel in-process: `watch` replays from the ring and, when `since` is older than the
//! ring, from the events file; then streams live events; commands keep working meanwhile.

use std::net::SocketAddr;
use std::sync::mpsc;
use std::time::{Duration, Instant};

use bevy_app::App;
use bevy_ecs::prelude::{Entity, Message};
use clawcraft_core::{AgentEvent, EventKind};
use clawcraft_io::client::Session;
use clawcraft_io::events_file::{Cursor, EventsFilePlugin, EventsFileSettings, read_events};
use clawcraft_io::tcp::{TcpPlugin, TcpSettings};
use clawcraft_io::{EventLog, IoPlugin};
use clawcraft_network::NetworkPlugin;
use serde_json::Value;

/// Events of types the harness does not register (so `watch` warns about their names).
macro_rules! test_event {
    ($ty:ident, $name:literal, $field:ident: $t:ty) => {
        #[derive(Message, Clone, serde::Serialize, schemars::JsonSchema)]
        struct $ty {
            $field: $t,
        }
        impl EventKind for $ty {
            const NAME: &'static str = $name;
            const DESCRIPTION: &'static str = "test";
            fn bot(&self) -> Option<Entity> {
                None
            }
        }
    };
}
test_event!(TestEvent, "test_event", i: usize);
test_event!(OtherEvent, "other_event", i: usize);
test_event!(Live, "live", i: usize);
test_event!(Big, "big", pad: String);

/// `test_event` for even `i`, `other_event` for odd.
fn alternating(i: usize) -> AgentEvent {
    if i.is_multiple_of(2) { AgentEvent::new(TestEvent { i }) } else { AgentEvent::new(OtherEvent { i }) }
}

struct Harness {
    app: App,
    addr: SocketAddr,
    path: std::path::PathBuf,
}

fn harness(name: &str, ring: usize, token: Option<&str>) -> Harness {
    let dir = std::env::temp_dir().join(format!("clawcraft-io-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temp dir");
    let path = dir.join("events.jsonl");
    let tcp =
        TcpPlugin::bind(TcpSettings { token: token.map(String::from), replay_ring: ring, ..TcpSettings::loopback(0) })
            .expect("bind");
    let addr = tcp.local_addr();
    let mut app = App::new();
    app.add_plugins(NetworkPlugin)
        .add_plugins(IoPlugin {
            stdin: false,
            signals: false,
            stdout: false,
            exit_on_disconnect: false,
            ..IoPlugin::default()
        })
        .add_plugins(EventsFilePlugin { settings: EventsFileSettings::new(&path, 5.0) })
        .add_plugins(tcp);
    app.finish();
    app.cleanup();
    Harness { app, addr, path }
}

impl Harness {
    fn emit(&mut self, n: usize) {
        for i in 0..n {
            self.app.world_mut().write_message(AgentEvent::new(TestEvent { i }));
        }
        self.app.update();
    }

    /// Ticks the app until `rx` yields (a client thread's result) or the deadline passes.
    fn run_until<T>(&mut self, rx: &mpsc::Receiver<T>) -> T {
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            self.app.update();
            if let Ok(v) = rx.recv_timeout(Duration::from_millis(5)) {
                return v;
            }
            assert!(Instant::now() < deadline, "client did not finish");
        }
    }
}

/// Waits (up to 10 s) until the events file holds `count` events.
fn wait_for_file(path: &std::path::Path, count: usize, what: &str) {
    let deadline = Instant::now() + Duration::from_secs(10);
    while read_events(path, Cursor::All).len() < count {
        assert!(Instant::now() < deadline, "{what}");
        std::thread::sleep(Duration::from_millis(5));
    }
}

fn seqs(lines: &[Value]) -> Vec<u64> {
    lines.iter().filter(|v| v["type"] != "response").map(|v| v["seq"].as_u64().expect("seq")).collect()
}

#[test]
fn watch_replays_from_file_and_ring_then_streams_live() {
    let mut h = harness("watch", 5, None);
    h.emit(20); // with `startup`, seq 1..=21
    wait_for_file(&h.path, 21, "events reach the file");

    let addr = h.addr;
    let (tx, rx) = mpsc::channel();
    let (go_live_tx, go_live_rx) = mpsc::channel::<()>();
    std::thread::spawn(move || {
        let mut s = Session::open(addr, Duration::from_secs(10)).expect("connect");
        let resp = s.request(r#"{"action":"watch","since":3,"id":"w"}"#).expect("watch response");
        let mut lines = vec![resp];
        while lines.len() < 1 + 18 {
            lines.push(s.recv().expect("line").expect("open"));
        }
        let _ = go_live_tx.send(());
        // A command on the watching connection, then the live events.
        s.send(r#"{"action":"help","id":"h"}"#).expect("send");
        while lines.iter().filter(|v| v["type"] == "live").count() < 3 || !lines.iter().any(|v| v["id"] == "h") {
            lines.push(s.recv().expect("line").expect("open"));
        }
        let _ = tx.send(lines);
    });
    // Wait for the backlog before emitting live events, so the test checks both paths.
    let deadline = Instant::now() + Duration::from_secs(20);
    while go_live_rx.try_recv().is_err() {
        h.app.update();
        std::thread::sleep(Duration::from_millis(2));
        assert!(Instant::now() < deadline, "backlog arrives");
    }
    for i in 0..3 {
        h.app.world_mut().write_message(AgentEvent::new(Live { i }));
    }
    let lines = h.run_until(&rx);
    assert_eq!(lines[0]["watching"], true);
    assert_eq!(lines[0]["since"], 3);
    assert_eq!(lines[0]["id"], "w");
    assert_eq!(
        seqs(&lines),
        (4..=24).collect::<Vec<_>>(),
        "backlog 4..=16 from the file, 17..=21 from the ring, then live"
    );
    assert!(lines.iter().any(|v| v["id"] == "h" && v["text"].is_string()), "commands still work while watching");
}

#[test]
fn watch_without_since_is_live_only_and_token_is_enforced() {
    let mut h = harness("live", 100, Some("s3cret"));
    h.emit(5);
    let addr = h.addr;
    let (tx, rx) = mpsc::channel();
    let (ready_tx, ready_rx) = mpsc::channel::<()>();
    std::thread::spawn(move || {
        // Without the token: refused, and the connection (not opted in) closes.
        let mut d = Session::connect(addr, Duration::from_secs(10)).expect("connect");
        let denied = d.request(r#"{"action":"watch","id":1}"#).expect("response");
        assert!(matches!(d.recv(), Ok(None)), "closed after the refusal");
        let mut s = Session::connect(addr, Duration::from_secs(10)).expect("connect");
        let resp = s.request(r#"{"action":"watch","id":2,"token":"s3cret"}"#).expect("response");
        let _ = ready_tx.send(());
        let live = s.recv().expect("line").expect("open");
        let _ = tx.send((denied, resp, live));
    });
    let deadline = Instant::now() + Duration::from_secs(20);
    while ready_rx.try_recv().is_err() {
        h.app.update();
        std::thread::sleep(Duration::from_millis(2));
        assert!(Instant::now() < deadline, "watch answered");
    }
    h.app.world_mut().write_message(AgentEvent::new(Live { i: 0 }));
    let (denied, resp, live) = h.run_until(&rx);
    assert_eq!(denied["code"], "UNAUTHORIZED");
    assert_eq!(denied["id"], 1);
    assert_eq!((resp["watching"].clone(), resp["since"].clone()), (Value::Bool(true), Value::from(6)));
    assert_eq!((live["type"].clone(), live["seq"].clone()), (Value::from("live"), Value::from(7)));
}

#[test]
fn a_watcher_that_does_not_read_is_dropped_without_stalling_the_tick() {
    let dir = std::env::temp_dir().join(format!("clawcraft-io-slow-{}", std::process::id()));
    let _ = std::fs::create_dir_all(&dir);
    let tcp = TcpPlugin::bind(TcpSettings { max_queued_bytes: 256 * 1024, ..TcpSettings::loopback(0) }).expect("bind");
    let addr = tcp.local_addr();
    let mut app = App::new();
    app.add_plugins(NetworkPlugin)
        .add_plugins(IoPlugin {
            stdin: false,
            signals: false,
            stdout: false,
            exit_on_disconnect: false,
            ..IoPlugin::default()
        })
        .add_plugins(tcp);
    app.finish();
    app.cleanup();

    let (tx, rx) = mpsc::channel();
    let (stop_tx, stop_rx) = mpsc::channel::<()>();
    std::thread::spawn(move || {
        let mut s = Session::open(addr, Duration::from_secs(30)).expect("connect");
        let resp = s.request(r#"{"action":"watch"}"#).expect("watch");
        let _ = tx.send(resp);
        // Read nothing until the server has produced far more than it may queue for us.
        let _ = stop_rx.recv();
        let mut received = 0usize;
        let mut last = Value::Null;
        while let Ok(Some(v)) = s.recv() {
            received += 1;
            last = v;
        }
        let _ = tx.send(serde_json::json!([received, last]));
    });
    let deadline = Instant::now() + Duration::from_secs(20);
    let resp = loop {
        app.update();
        if let Ok(v) = rx.try_recv() {
            break v;
        }
        assert!(Instant::now() < deadline, "watch answered");
        std::thread::sleep(Duration::from_millis(2));
    };
    assert_eq!(resp["watching"], true);

    // 3 000 events of 16 KiB: ~48 MiB, more than socket buffers plus the 256 KiB allowance.
    let pad = "x".repeat(16 * 1024);
    let mut slowest = Duration::ZERO;
    for _ in 0..30 {
        for _ in 0..100 {
            app.world_mut().write_message(AgentEvent::new(Big { pad: pad.clone() }));
        }
        let t = Instant::now();
        app.update();
        slowest = slowest.max(t.elapsed());
    }
    assert!(slowest < Duration::from_millis(500), "a tick never waits for the client: {slowest:?}");
    let _ = stop_tx.send(());
    let (received, last) = loop {
        app.update();
        if let Ok(v) = rx.recv_timeout(Duration::from_millis(5)) {
            break (v[0].as_u64().expect("count"), v[1].clone());
        }
        assert!(Instant::now() < deadline + Duration::from_secs(20), "the dropped client sees the end");
    };
    assert!(received < 3_000, "the slow reader was cut off (got {received} lines)");
    assert_eq!(last["code"], "SLOW_READER", "its last line says why");
}

#[test]
fn seq_continues_after_the_last_event_in_the_file() {
    let dir = std::env::temp_dir().join(format!("clawcraft-io-restart-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temp dir");
    let path = dir.join("events.jsonl");
    std::fs::write(&path, "{\"type\":\"shutdown\",\"timestamp\":1,\"seq\":41}\n").expect("previous run");
    let mut app = App::new();
    app.add_plugins(NetworkPlugin)
        .add_plugins(IoPlugin {
            stdin: false,
            signals: false,
            stdout: false,
            exit_on_disconnect: false,
            ..IoPlugin::default()
        })
        .add_plugins(EventsFilePlugin { settings: EventsFileSettings::new(&path, 5.0) });
    app.world_mut().resource_mut::<EventLog>().capacity = 10;
    app.update();
    let log = app.world().resource::<EventLog>();
    let first = log.lines.first().expect("startup");
    assert_eq!(first["seq"], 42, "a reader resuming by seq across a restart misses nothing");
    assert_eq!(first["type"], "startup");
}

#[test]
fn watch_since_the_largest_seq_is_answered_without_overflow() {
    let mut h = harness("maxseq", 5, None);
    h.emit(3);
    let addr = h.addr;
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let mut s = Session::connect(addr, Duration::from_secs(10)).expect("connect");
        let resp = s.request(r#"{"action":"watch","since":18446744073709551615}"#).expect("response");
        // Nothing can come after the largest seq; a command still works on the connection.
        let help = s.request(r#"{"action":"help","id":"h"}"#).expect("help");
        let _ = tx.send((resp, help));
    });
    let (resp, help) = h.run_until(&rx);
    assert_eq!((resp["watching"].clone(), resp["since"].clone()), (Value::Bool(true), Value::from(u64::MAX)));
    assert_eq!(help["id"], "h", "the next line is the help answer, no event: {help}");
}

#[test]
fn watch_types_filters_the_file_backlog_the_ring_and_live_events() {
    let mut h = harness("types", 5, None);
    // 20 events alternating `test_event` and `other_event` (and `startup`).
    for i in 0..20 {
        h.app.world_mut().write_message(alternating(i));
    }
    h.app.update();
    wait_for_file(&h.path, 21, "events reach the file");
    let addr = h.addr;
    let (tx, rx) = mpsc::channel();
    let (go_live_tx, go_live_rx) = mpsc::channel::<()>();
    std::thread::spawn(move || {
        let mut s = Session::connect(addr, Duration::from_secs(10)).expect("connect");
        let resp = s.request(r#"{"action":"watch","since":0,"types":["test_event","startpu"]}"#).expect("response");
        let mut lines = vec![resp];
        while lines.len() < 1 + 10 {
            lines.push(s.recv().expect("line").expect("open"));
        }
        let _ = go_live_tx.send(());
        while lines.len() < 1 + 12 {
            lines.push(s.recv().expect("line").expect("open"));
        }
        let bad = s.request(r#"{"action":"watch","types":[],"id":"e"}"#).expect("response");
        let _ = tx.send((lines, bad));
    });
    let deadline = Instant::now() + Duration::from_secs(20);
    while go_live_rx.try_recv().is_err() {
        h.app.update();
        std::thread::sleep(Duration::from_millis(2));
        assert!(Instant::now() < deadline, "backlog arrives");
    }
    for i in 0..4 {
        h.app.world_mut().write_message(alternating(i));
    }
    let (lines, bad) = h.run_until(&rx);
    let resp = &lines[0];
    assert_eq!(resp["types"], serde_json::json!(["test_event", "startpu"]));
    let warnings: Vec<&str> = resp["warnings"].as_array().expect("warnings").iter().filter_map(Value::as_str).collect();
    assert_eq!(
        warnings,
        ["unknown event type \"test_event\"", "unknown event type \"startpu\" (did you mean: startup)"],
        "unregistered names are warned about but still stream"
    );
    assert!(lines[1..].iter().all(|v| v["type"] == "test_event"), "{lines:?}");
    wait_for_file(&h.path, 25, "live events reach the file");
    let wanted: Vec<Value> =
        read_events(&h.path, Cursor::All).into_iter().filter(|v| v["type"] == "test_event").collect();
    assert_eq!(seqs(&lines[1..]), seqs(&wanted), "file backlog, ring and live, each filtered: exactly the 12");
    assert_eq!((bad["id"].clone(), bad["code"].clone()), (Value::from("e"), Value::from("INVALID_PARAMS")));
}

/// An event of a bot (the harness has no bots of its own: the test spawns their entities).
#[derive(Message, Clone, serde::Serialize, schemars::JsonSchema)]
struct BotEvent {
    #[serde(skip)]
    bot: Entity,
    i: usize,
}
impl EventKind for BotEvent {
    const NAME: &'static str = "bot_event";
    const DESCRIPTION: &'static str = "test";
    fn bot(&self) -> Option<Entity> {
        Some(self.bot)
    }
}

#[test]
fn watch_with_a_bot_streams_that_bots_events_and_the_process_own() {
    let mut h = harness("bot", 100, None);
    let ann = h.app.world_mut().spawn(clawcraft_core::LocalBot { username: "Ann".into() }).id();
    let ben = h.app.world_mut().spawn(clawcraft_core::LocalBot { username: "Ben".into() }).id();
    for i in 0..6 {
        let bot = if i % 2 == 0 { ann } else { ben };
        h.app.world_mut().write_message(AgentEvent::new(BotEvent { bot, i }));
    }
    h.app.update();
    let addr = h.addr;
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let mut s = Session::connect(addr, Duration::from_secs(10)).expect("connect");
        let resp = s.request(r#"{"action":"watch","since":0,"bot":"ann"}"#).expect("response");
        let mut lines = vec![resp];
        // startup, Ann's three backlog events, then one live event of Ann's.
        while lines.len() < 1 + 5 {
            lines.push(s.recv().expect("line").expect("open"));
        }
        let unknown = s.request(r#"{"action":"watch","bot":"Anne","id":"u"}"#).expect("response");
        let _ = tx.send((lines, unknown));
    });
    // Ben's live event first: it must not reach Ann's watcher.
    let mut sent_live = false;
    let deadline = Instant::now() + Duration::from_secs(20);
    let (lines, unknown) = loop {
        if let Ok(got) = rx.try_recv() {
            break got;
        }
        if !sent_live && Instant::now() > deadline - Duration::from_secs(19) {
            h.app.world_mut().write_message(AgentEvent::new(BotEvent { bot: ben, i: 100 }));
            h.app.world_mut().write_message(AgentEvent::new(BotEvent { bot: ann, i: 101 }));
            sent_live = true;
        }
        h.app.update();
        std::thread::sleep(Duration::from_millis(2));
        assert!(Instant::now() < deadline, "the watcher got its events");
    };
    assert_eq!((lines[0]["watching"].as_bool(), lines[0]["bot"].as_str()), (Some(true), Some("Ann")), "{:?}", lines[0]);
    let got: Vec<(String, Option<u64>)> = lines[1..]
        .iter()
        .map(|e| (e["type"].as_str().unwrap_or("").to_owned(), e.get("i").and_then(Value::as_u64)))
        .collect();
    assert_eq!(
        got,
        [
            // Written before the first update, which emits `startup`.
            ("bot_event".to_owned(), Some(0)),
            ("bot_event".to_owned(), Some(2)),
            ("bot_event".to_owned(), Some(4)),
            ("startup".to_owned(), None),
            ("bot_event".to_owned(), Some(101)),
        ],
        "Ann's events and the process's own, in order"
    );
    assert!(
        lines[1..].iter().filter(|e| e["type"] == "bot_event").all(|e| e["bot"] == "Ann"),
        "every bot event names Ann: {lines:?}"
    );
    assert_eq!(unknown["code"], "UNKNOWN_BOT", "{unknown}");
}
