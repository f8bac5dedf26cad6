//! Process-level tests of the agent channels: the real binary against the Node peer, driven over
//! stdin and TCP, plus the `cmd`, `events` and `skill` tools.

use crate::common;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{Shutdown, TcpStream};
use std::process::Command;
use std::time::{Duration, Instant};

use clawcraft_io::client::Session;
use common::{Bot, Peer, TempDir, free_tcp_port, run_tool, spawn_tool, wait_value};
use serde_json::{Value, json};

const SPAWN: Duration = Duration::from_secs(30);
const IO: Duration = Duration::from_secs(10);

/// A spawned bot with its own TCP port and events file.
struct Running {
    _peer: Peer,
    bot: Bot,
    port: u16,
    events: std::path::PathBuf,
    _dir: TempDir,
}

fn start(name: &str, token: Option<&str>) -> Running {
    let peer = Peer::start("flat");
    let dir = TempDir::new(name);
    let events = dir.path().join("events.jsonl");
    let port = free_tcp_port();
    let port_s = port.to_string();
    let events_s = events.to_string_lossy().into_owned();
    let mut env = vec![("CLAWCRAFT_PORT", port_s.as_str()), ("CLAWCRAFT_EVENTS", events_s.as_str())];
    if let Some(t) = token {
        env.push(("CLAWCRAFT_TOKEN", t));
    }
    let mut bot = Bot::start_with(peer.port, name, &env);
    bot.wait_event("spawn", SPAWN).expect("spawn event");
    Running { _peer: peer, bot, port, events, _dir: dir }
}

fn connect(port: u16) -> TcpStream {
    let s = TcpStream::connect(("127.0.0.1", port)).expect("connect");
    s.set_read_timeout(Some(IO)).expect("timeout");
    s
}

fn read_json_line(r: &mut impl BufRead) -> Value {
    let mut line = String::new();
    r.read_line(&mut line).expect("read line");
    serde_json::from_str(&line).unwrap_or_else(|e| panic!("not JSON ({e}): {line:?}"))
}

/// Error responses without the id, to compare channels.
fn error_shape(v: &Value) -> Value {
    json!({"type": v["type"], "error": v["error"], "code": v["code"]})
}

#[test]
fn tcp_and_stdin_share_one_command_path() {
    let mut r = start("IoTcpBot", Some("tok"));
    let port = r.port;

    // Same request, same response on stdin (trusted) and TCP (with the token).
    let from_stdin = r.bot.request(json!({"action": "stauts"}), IO).expect("stdin response");
    assert_eq!(from_stdin["code"], "UNKNOWN_ACTION");
    let addr: std::net::SocketAddr = ([127, 0, 0, 1], port).into();
    let mut s = Session::open_with_token(addr, IO, Some("tok")).expect("session");
    let from_tcp = s.request(r#"{"action":"stauts","token":"tok"}"#).expect("tcp response");
    assert_eq!(error_shape(&from_tcp), error_shape(&from_stdin));

    // Token: missing or wrong is refused with the request's id; the session stays open.
    let denied = s.request(r#"{"action":"pos","id":"d1"}"#).expect("response");
    assert_eq!((denied["code"].clone(), denied["id"].clone()), (json!("UNAUTHORIZED"), json!("d1")));
    let denied = s.request(r#"{"action":"pos","token":"nope"}"#).expect("response");
    assert_eq!(denied["code"], "UNAUTHORIZED");
    // Opening a session needs the token too (else it is a refused one-shot request).
    assert!(Session::open(addr, IO).is_err(), "no session without the token");

    // Persistent: 100 pipelined requests (queries and commands), answered in order.
    let mut batch = String::new();
    for i in 0..100 {
        let action = ["pos", "status", "help", "subscriptions", "nope"][i % 5];
        batch.push_str(&format!("{{\"action\":\"{action}\",\"id\":{i},\"token\":\"tok\"}}\n"));
    }
    s.send(batch.trim_end()).expect("send batch");
    for i in 0..100 {
        let v = s.recv().expect("line").expect("open");
        assert_eq!(v["id"], i, "responses in request order: {v}");
        assert_eq!(v["type"], "response");
    }
    let pos = s.request(r#"{"action":"pos","token":"tok"}"#).expect("pos");
    assert_eq!(pos["pos"], json!({"x": 0.5, "y": -60.0, "z": 0.5}), "{pos}");

    // One-shot, ClawCraft style: one line, one response, the server closes, whether the client
    // half-closes or never closes; a second line on the same connection is ignored.
    for half_close in [true, false] {
        let mut c = connect(port);
        c.write_all(b"{\"action\":\"pos\",\"id\":\"one\",\"token\":\"tok\"}\n{\"action\":\"status\"}\n")
            .expect("write");
        if half_close {
            c.shutdown(Shutdown::Write).expect("half-close");
        }
        let mut all = String::new();
        c.read_to_string(&mut all).expect("read to EOF");
        let lines: Vec<Value> = all.lines().map(|l| serde_json::from_str(l).expect("JSON")).collect();
        assert_eq!(lines.len(), 1, "exactly one line then EOF: {all}");
        assert_eq!(lines[0]["id"], "one");
    }

    // The `cmd` tool adds CLAWCRAFT_TOKEN and prints the response line.
    let port_s = port.to_string();
    let out = run_tool(&["cmd", r#"{"action":"pos"}"#], &[("CLAWCRAFT_PORT", &port_s), ("CLAWCRAFT_TOKEN", "tok")]);
    assert!(out.status.success(), "{out:?}");
    let v: Value = serde_json::from_slice(&out.stdout).expect("cmd prints JSON");
    assert_eq!(v["pos"]["y"], -60.0);
    // An answer over the size budget carries its advice on this channel too.
    let out = run_tool(&["cmd", r#"{"action":"schema"}"#], &[("CLAWCRAFT_PORT", &port_s), ("CLAWCRAFT_TOKEN", "tok")]);
    let v: Value = serde_json::from_slice(&out.stdout).expect("cmd prints JSON");
    let warning = v["warnings"][0].as_str().unwrap_or("");
    assert!(warning.contains("(budget 8000): pass a command, event or topic"), "{warning}");
    // The bot answering with an error: the response on stdout, exit 1 (not 0).
    let out = run_tool(
        &["cmd", r#"{"action":"posx","id":"e1"}"#],
        &[("CLAWCRAFT_PORT", &port_s), ("CLAWCRAFT_TOKEN", "tok")],
    );
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let v: Value = serde_json::from_slice(&out.stdout).expect("cmd prints JSON");
    assert_eq!((v["id"].clone(), v["code"].clone()), (json!("e1"), json!("UNKNOWN_ACTION")));

    // Garbage bytes and invalid UTF-8 in a session: INVALID_JSON, and the connection keeps working.
    let mut g = Session::open_with_token(addr, IO, Some("tok")).expect("session");
    g.send("\u{7f}garbage").expect("write");
    assert_eq!(g.recv().expect("line").expect("open")["code"], "INVALID_JSON");
    g.send("{not json").expect("write");
    assert_eq!(g.recv().expect("line").expect("open")["code"], "INVALID_JSON");
    assert_eq!(g.request(r#"{"action":"pos","id":7,"token":"tok"}"#).expect("pos")["id"], 7);
    let mut raw = connect(port);
    raw.write_all(b"\xff\xfe\x00garbage\n").expect("write");
    let mut rr = BufReader::new(raw);
    assert_eq!(read_json_line(&mut rr)["code"], "INVALID_JSON", "one-shot garbage: an error, then close");
    let mut rest = String::new();
    assert_eq!(rr.read_line(&mut rest).expect("EOF"), 0);

    // Oversize line: LINE_TOO_LONG, then the server closes.
    let mut big = connect(port);
    let mut line = vec![b'a'; 70 * 1024];
    line.push(b'\n');
    big.write_all(&line).expect("write");
    let mut br = BufReader::new(big);
    assert_eq!(read_json_line(&mut br)["code"], "LINE_TOO_LONG");
    let mut rest = String::new();
    assert_eq!(br.read_line(&mut rest).expect("EOF"), 0, "closed after the error");

    // Abrupt close with a request in flight: the bot carries on.
    for _ in 0..5 {
        let mut a = connect(port);
        a.write_all(b"{\"action\":\"status\",\"token\":\"tok\"}\n").expect("write");
        drop(a);
    }
    let ok = s.request(r#"{"action":"pos","token":"tok"}"#).expect("still answering");
    assert!(ok["pos"].is_object());
    assert!(r.bot.request(json!({"action": "pos"}), IO).expect("stdin still answering")["pos"].is_object());

    // Too many connections: the server refuses sessions beyond its limit (32) with a clear line.
    let mut open = Vec::new();
    let mut refused = None;
    for i in 0..40 {
        let mut c = connect(port);
        c.write_all(b"{\"action\":\"session\",\"token\":\"tok\"}\n").expect("write");
        let mut cr = BufReader::new(c.try_clone().expect("clone"));
        let v = read_json_line(&mut cr);
        if v["code"] == "TOO_MANY_CONNECTIONS" {
            refused = Some(i);
            break;
        }
        assert_eq!(v["session"], true, "{v}");
        open.push(c);
    }
    let refused = refused.expect("a connection over the limit is refused");
    assert!((28..=32).contains(&refused), "refused at {refused}");
    drop(open);
    // Closed connections free their slots (the server notices asynchronously).
    let deadline = Instant::now() + IO;
    loop {
        let mut c = connect(port);
        c.write_all(b"{\"action\":\"pos\",\"token\":\"tok\"}\n").expect("write");
        if read_json_line(&mut BufReader::new(c))["pos"].is_object() {
            break;
        }
        assert!(Instant::now() < deadline, "slots are freed");
        std::thread::sleep(Duration::from_millis(50));
    }

    r.bot.close_stdin();
    assert_eq!(r.bot.wait_exit(IO).expect("exits").code(), Some(0));
}

#[test]
fn watch_and_the_events_tools_see_every_event_once() {
    let mut r = start("IoWatchBot", None);
    let port_s = r.port.to_string();
    let events_s = r.events.to_string_lossy().into_owned();
    let env = [("CLAWCRAFT_PORT", port_s.as_str()), ("CLAWCRAFT_EVENTS", events_s.as_str())];

    // Replay from seq 0: every event so far, in order, starting with `startup`.
    let mut w = Session::connect(([127, 0, 0, 1], r.port).into(), IO).expect("connect");
    let resp = w.request(r#"{"action":"watch","since":0,"id":"w"}"#).expect("watch");
    assert_eq!((resp["watching"].clone(), resp["since"].clone()), (json!(true), json!(0)));
    let mut replay = Vec::new();
    while replay.last().is_none_or(|v: &Value| v["type"] != "spawn") {
        replay.push(w.recv().expect("event").expect("open"));
    }
    assert_eq!(replay[0]["type"], "startup");
    let replay_seqs: Vec<u64> = replay.iter().map(|v| v["seq"].as_u64().expect("seq")).collect();
    assert_eq!(replay_seqs, (1..=replay.len() as u64).collect::<Vec<_>>());
    let spawn_seq = *replay_seqs.last().expect("spawn");
    // Stdout saw the same events with the same seqs.
    let stdout_spawn = r.bot.wait_event("spawn", IO).expect("spawn on stdout");
    assert_eq!(stdout_spawn["seq"], spawn_seq);

    // A live-only watcher.
    let mut live = Session::open(([127, 0, 0, 1], r.port).into(), IO).expect("session");
    let resp = live.request(r#"{"action":"watch"}"#).expect("watch");
    let live_since = resp["since"].as_u64().expect("since");
    assert!(live_since >= spawn_seq);

    // The file has the same events (the writer thread may be a moment behind).
    let deadline = Instant::now() + IO;
    let file_events = loop {
        let out = run_tool(&["events"], &env);
        assert!(out.status.success());
        let arr: Vec<Value> = serde_json::from_slice(&out.stdout).expect("a JSON array");
        if arr.len() >= replay.len() {
            break arr;
        }
        assert!(Instant::now() < deadline, "events reach the file");
        std::thread::sleep(Duration::from_millis(20));
    };
    assert_eq!(&file_events[..replay.len()], &replay[..]);
    let out = run_tool(&["events", "--since", "1", "--last", "1"], &env);
    let arr: Vec<Value> = serde_json::from_slice(&out.stdout).expect("array");
    assert_eq!(arr.len(), 1);
    assert_eq!(arr[0], *file_events.last().expect("one"));
    let since_ms = replay[0]["timestamp"].as_u64().expect("ms") - 1;
    let out = run_tool(&["events", "--since-ms", &since_ms.to_string()], &env);
    let arr: Vec<Value> = serde_json::from_slice(&out.stdout).expect("array");
    assert_eq!(arr.len(), file_events.len());

    // Followers: the file tool and the TCP tool.
    let (mut follow, follow_rx) = spawn_tool(&["events", "--follow", "--since", "1"], &env);
    let first = wait_value(&follow_rx, |_| true, IO).expect("follow prints the backlog");
    assert_eq!(first["seq"], 2, "after --since 1");
    let (mut tcp_follow, tcp_rx) = spawn_tool(&["events", "--tcp", "--since", "0"], &env);
    wait_value(&tcp_rx, |v| v["type"] == "spawn", IO).expect("tcp follower replays");
    // A follower of two types only: the replay's first line is `spawn`, the next `shutdown`.
    let (mut typed, typed_rx) = spawn_tool(&["events", "--tcp", "--since", "0", "--type", "spawn,shutdown"], &env);
    let first = wait_value(&typed_rx, |_| true, IO).expect("typed follower replays");
    assert_eq!(first["type"], "spawn", "{first}");

    // A live event (`shutdown`) reaches every watcher and follower exactly once.
    r.bot.close_stdin();
    let shutdown = live.recv().expect("line").expect("open");
    assert_eq!(shutdown["type"], "shutdown");
    assert_eq!(shutdown["seq"], live_since + 1);
    let mut tail = Vec::new();
    loop {
        let v = w.recv().expect("line").expect("open");
        let done = v["type"] == "shutdown";
        tail.push(v);
        if done {
            break;
        }
    }
    let seqs: Vec<u64> = tail.iter().map(|v| v["seq"].as_u64().expect("seq")).collect();
    assert_eq!(seqs, (spawn_seq + 1..=spawn_seq + tail.len() as u64).collect::<Vec<_>>(), "no gap after replay");
    wait_value(&follow_rx, |v| v["type"] == "shutdown", IO).expect("file follower sees shutdown");
    wait_value(&tcp_rx, |v| v["type"] == "shutdown", IO).expect("tcp follower sees shutdown");
    let next = wait_value(&typed_rx, |_| true, IO).expect("typed follower sees shutdown");
    assert_eq!(next["type"], "shutdown", "nothing of other types in between: {next}");
    assert_eq!(r.bot.wait_exit(IO).expect("exits").code(), Some(0));
    let _ = follow.kill();
    let _ = follow.wait();
    let _ = tcp_follow.kill();
    let _ = tcp_follow.wait();
    let _ = typed.kill();
    let _ = typed.wait();

    // The last event was flushed to the file before exit.
    let out = run_tool(&["events", "--last", "1"], &env);
    let arr: Vec<Value> = serde_json::from_slice(&out.stdout).expect("array");
    assert_eq!(arr[0]["type"], "shutdown");
}

#[test]
fn tools_report_errors_like_clawcraft_scripts() {
    let port = free_tcp_port().to_string();
    // No answer from a bot: exit 2, and the same response shape as the bot's errors on stdout.
    let out = run_tool(&["cmd", r#"{"action":"pos","id":"p"}"#], &[("CLAWCRAFT_PORT", &port)]);
    assert_eq!(out.status.code(), Some(2));
    let err: Value = serde_json::from_slice(&out.stdout).expect("stdout JSON");
    assert_eq!((err["type"].clone(), err["id"].clone()), (json!("response"), json!("p")));
    assert_eq!(err["code"], "BOT_NOT_RUNNING");
    assert!(err["error"].as_str().is_some_and(|e| !e.is_empty()), "{err}");

    let out = run_tool(&["cmd", "{oops"], &[("CLAWCRAFT_PORT", &port)]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(serde_json::from_slice::<Value>(&out.stdout).expect("JSON")["code"], "INVALID_JSON");

    // A server that never answers: CLIENT_TIMEOUT (not the bot's TIMEOUT) after CLAWCRAFT_TIMEOUT ms.
    let silent = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let silent_port = silent.local_addr().expect("addr").port().to_string();
    let out =
        run_tool(&["cmd", r#"{"action":"pos"}"#], &[("CLAWCRAFT_PORT", &silent_port), ("CLAWCRAFT_TIMEOUT", "300")]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(serde_json::from_slice::<Value>(&out.stdout).expect("JSON")["code"], "CLIENT_TIMEOUT");

    // Skill install links skill/ and can be re-run.
    let dir = TempDir::new("skill");
    let target = dir.path().join("skills/clawcraft");
    let target_s = target.to_string_lossy().into_owned();
    for _ in 0..2 {
        let out = run_tool(&["skill", "install", "--dir", &target_s], &[]);
        assert!(out.status.success(), "{out:?}");
    }
    assert!(target.join("SKILL.md").is_file());
    assert!(std::fs::symlink_metadata(&target).expect("link").file_type().is_symlink());

    let help = run_tool(&["--help"], &[]);
    let text = String::from_utf8_lossy(&help.stdout);
    for var in [
        "HOST",
        "PORT",
        "USERNAME",
        "OFFLINE",
        "CLAWCRAFT_AUTH_DIR",
        "SEND_CMD",
        "CHAT_WHITELIST",
        "CHAT_PREFIX",
        "CLAWCRAFT_PORT",
        "CLAWCRAFT_EVENTS",
        "CLAWCRAFT_RESPAWN",
        "CLAWCRAFT_RECONNECT",
        "CLAWCRAFT_MAX_EVENTS_MB",
        "CLAWCRAFT_CHUNK_CACHE_MAX",
        "CLAWCRAFT_CHUNK_EVICT_DIST",
        "CLAWCRAFT_DANGER_MOB_DIST",
        "CLAWCRAFT_DANGER_HEALTH",
        "CLAWCRAFT_DANGER_HUNGER",
        "CLAWCRAFT_DANGER_MODE",
        "CLAWCRAFT_DANGER_REPEAT_MS",
        "CLAWCRAFT_TIMEOUT",
        "CLAWCRAFT_TOKEN",
        "CLAWCRAFT_BIND",
        "CLAWCRAFT_TCP",
    ] {
        let documented = text.contains(&format!("[env: {var}=")) || text.contains(&format!("[env: {var}]"));
        assert!(documented, "--help documents {var}");
    }
}

/// The soft limit on open files of this process (from /proc), to size a test that keeps sockets.
fn open_files_limit() -> usize {
    std::fs::read_to_string("/proc/self/limits")
        .ok()
        .and_then(|t| {
            t.lines()
                .find(|l| l.starts_with("Max open files"))
                .and_then(|l| l.split_whitespace().nth(3).and_then(|n| n.parse().ok()))
        })
        .unwrap_or(1024)
}

/// ClawCraft's `cmd.js` never closes its socket: it reads the first line and exits. 1 000 such
/// calls in a row must each get an answer and the server's close, with no connection leaking
/// into `TOO_MANY_CONNECTIONS`.
#[test]
fn one_shot_calls_never_leak_connections() {
    let r = start("IoOneShotBot", None);
    // Keep every socket open, as a client that never closes would (within the fd limit).
    let keep = open_files_limit().saturating_sub(200).clamp(100, 1000);
    let mut kept = std::collections::VecDeque::new();
    let actions = ["pos", "status", "nearby", "vitals", "players"];
    for i in 0..1000 {
        let mut c = connect(r.port);
        let action = actions[i % actions.len()];
        c.write_all(format!("{{\"action\":\"{action}\",\"id\":{i}}}\n").as_bytes()).expect("write");
        let mut all = Vec::new();
        c.read_to_end(&mut all).expect("the server closes after its answer");
        let text = String::from_utf8(all).expect("UTF-8");
        let lines: Vec<Value> = text.lines().map(|l| serde_json::from_str(l).expect("JSON")).collect();
        assert_eq!(lines.len(), 1, "call {i}: one line then EOF: {text}");
        assert_eq!(lines[0]["id"], i, "call {i}: {text}");
        assert!(lines[0].get("code").is_none(), "call {i} ({action}) failed: {text}");
        kept.push_back(c);
        if kept.len() > keep {
            kept.pop_front();
        }
    }
    // Still serving, sessions included.
    let mut s = Session::open(([127, 0, 0, 1], r.port).into(), IO).expect("session after 1000 one-shots");
    assert!(s.request(r#"{"action":"pos"}"#).expect("pos")["pos"].is_object());
}

/// Run in the background (stdin is /dev/null): no stdin channel, TCP keeps serving, SIGTERM
/// ends it cleanly. A real pipe's EOF still ends the bot (the other tests close stdin).
#[test]
fn dev_null_stdin_runs_on_tcp_until_sigterm() {
    let peer = Peer::start("flat");
    let dir = TempDir::new("devnull");
    let events = dir.path().join("events.jsonl");
    let port = free_tcp_port();
    let (port_s, events_s) = (port.to_string(), events.to_string_lossy().into_owned());
    let mut bot =
        Bot::start_detached(peer.port, "NullStdinBot", &[("CLAWCRAFT_PORT", &port_s), ("CLAWCRAFT_EVENTS", &events_s)]);
    bot.wait_event("spawn", SPAWN).expect("spawns with stdin on /dev/null");
    // It keeps running: PlayerAuthInput ticks keep counting up, answered over TCP.
    let addr = ([127, 0, 0, 1], port).into();
    let tick = |s: &mut Session| s.request(r#"{"action":"status"}"#).expect("status")["inputTick"].as_u64();
    let mut s = Session::open(addr, IO).expect("session");
    let first = tick(&mut s).expect("inputTick");
    assert!(wait_input_tick(&mut s, first + 40), "still ticking 40 ticks later");
    let status = Command::new("kill").arg("-TERM").arg(bot.pid().to_string()).status().expect("kill");
    assert!(status.success());
    assert_eq!(bot.wait_exit(IO).expect("exits on SIGTERM").code(), Some(0));
    assert!(bot.seen.iter().any(|v| v["type"] == "shutdown"), "shutdown event");
}

/// Polls `status` until `inputTick` reaches `target`.
fn wait_input_tick(s: &mut Session, target: u64) -> bool {
    let deadline = Instant::now() + IO;
    while Instant::now() < deadline {
        let v = s.request(r#"{"action":"status"}"#).expect("status");
        if v["inputTick"].as_u64().is_some_and(|t| t >= target) {
            return true;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    false
}
