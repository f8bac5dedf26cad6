//! Helpers for end-to-end tests: the Node peer of `tests/peer` and the real `clawcraft` binary.
#![allow(dead_code)]

pub mod http;
pub mod relay;
pub mod serenity;

use std::io::{BufRead, BufReader, Write};
use std::net::UdpSocket;
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

/// The version the peer serves in these tests: `CLAWCRAFT_TEST_VERSION`, else the default.
pub fn test_version() -> clawcraft::protocol::codec::VersionInfo {
    use clawcraft::protocol::codec::Protocol;
    std::env::var("CLAWCRAFT_TEST_VERSION")
        .ok()
        .and_then(|v| Protocol::versions().iter().find(|i| i.game_version == v).copied())
        .unwrap_or_else(Protocol::default_version)
}

pub fn repo_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Installs the peer's npm packages once per test process (idempotent script).
pub fn ensure_peer_installed() {
    static DONE: OnceLock<()> = OnceLock::new();
    static LOCK: Mutex<()> = Mutex::new(());
    let _g = LOCK.lock().unwrap_or_else(|p| p.into_inner());
    DONE.get_or_init(|| {
        let status = Command::new("bash")
            .arg(repo_root().join("tests/peer/install.sh"))
            .stdin(Stdio::null())
            .stdout(Stdio::inherit())
            .stderr(Stdio::inherit())
            .status()
            .expect("running tests/peer/install.sh");
        assert!(status.success(), "peer install failed");
    });
}

/// A free loopback UDP port (bound then released).
pub fn free_udp_port() -> u16 {
    let s = UdpSocket::bind("127.0.0.1:0").expect("bind loopback");
    s.local_addr().expect("addr").port()
}

/// Lines of a child's stdout, parsed as JSON when possible.
fn spawn_line_reader(stdout: impl std::io::Read + Send + 'static) -> Receiver<Value> {
    let (tx, rx) = channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            let v = serde_json::from_str::<Value>(&line).unwrap_or_else(|_| json!({"__nonjson": line}));
            if tx.send(v).is_err() {
                break;
            }
        }
    });
    rx
}

/// The bedrock-protocol peer server.
pub struct Peer {
    child: Child,
    pub port: u16,
    pub log: PathBuf,
    pub lines: Receiver<Value>,
    _dir: TempDir,
}

impl Peer {
    /// The peer serving the default version (data/versions.txt) with `scenario`.
    pub fn start(scenario: &str) -> Peer {
        Self::start_full(scenario, &[], free_udp_port())
    }

    /// Like [`Peer::start`] with extra `server.js` arguments (`--version 1.26.20`,
    /// `--online-auth URL`, …). Without `--version` it serves `CLAWCRAFT_TEST_VERSION` if set (to
    /// run the whole suite at another version), else the default version.
    pub fn start_args(scenario: &str, extra: &[&str]) -> Peer {
        Self::start_full(scenario, extra, free_udp_port())
    }

    /// A peer on a given port (a restarted server keeps its address).
    pub fn start_at(scenario: &str, port: u16) -> Peer {
        Self::start_full(scenario, &[], port)
    }

    fn start_full(scenario: &str, extra: &[&str], port: u16) -> Peer {
        ensure_peer_installed();
        let version = std::env::var("CLAWCRAFT_TEST_VERSION").ok().filter(|_| !extra.contains(&"--version"));
        let version_args: Vec<&str> = version.as_deref().map(|v| vec!["--version", v]).unwrap_or_default();
        let dir = TempDir::new("peer");
        let log = dir.path().join("packets.jsonl");
        let mut child = Command::new("node")
            // V8's parallel GC helpers spin beside a peer decoding many clients' inputs (100 bots:
            // ~1 core of the peer's ~1.3); on the main thread the peer needs ~0.25 (tests/peer/README.md).
            .arg("--single-threaded-gc")
            .arg(repo_root().join("tests/peer/server.js"))
            .args(["--port", &port.to_string(), "--scenario", scenario])
            .args(&version_args)
            .arg("--log")
            .arg(&log)
            .args(extra)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("starting node tests/peer/server.js");
        let lines = spawn_line_reader(child.stdout.take().expect("stdout"));
        let mut peer = Peer { child, port, log, lines, _dir: dir };
        peer.wait_line(|v| v["event"] == "listening", Duration::from_secs(60)).expect("peer listening");
        peer
    }

    /// Stops the server politely (SIGTERM: it sends `disconnect` "Server closed" to its clients)
    /// and waits for it to exit.
    pub fn terminate(&mut self) {
        let _ = Command::new("kill").arg("-TERM").arg(self.child.id().to_string()).status();
        let deadline = Instant::now() + Duration::from_secs(10);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    /// Waits for a stdout line of the peer matching `pred`.
    pub fn wait_line(&mut self, pred: impl Fn(&Value) -> bool, timeout: Duration) -> Option<Value> {
        wait_for(&self.lines, pred, timeout)
    }

    /// Every packet the client sent, as logged by the peer.
    pub fn packets(&self) -> Vec<Value> {
        std::fs::read_to_string(&self.log)
            .unwrap_or_default()
            .lines()
            .filter_map(|l| serde_json::from_str(l).ok())
            .collect()
    }

    pub fn packets_named(&self, name: &str) -> Vec<Value> {
        self.packets().into_iter().filter(|p| p["name"] == name).collect()
    }

    /// Polls the packet log until `pred` holds over it (the log is the peer's event stream).
    pub fn wait_log(&self, pred: impl Fn(&[Value]) -> bool, timeout: Duration) -> bool {
        let deadline = Instant::now() + timeout;
        loop {
            if pred(&self.packets()) {
                return true;
            }
            if Instant::now() > deadline {
                return false;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for Peer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The `clawcraft` command for a bot on `port` with piped stdin and stdout (not read: callers
/// decide). Each bot gets its own events file and TCP port, so tests never share state or
/// collide; `env` entries override these.
pub fn bot_command(port: u16, username: &str, events: &Path, env: &[(&str, &str)]) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_clawcraft"));
    cmd.env("CLAWCRAFT_EVENTS", events)
        .env("CLAWCRAFT_PORT", free_tcp_port().to_string())
        .env_remove("CLAWCRAFT_TOKEN")
        .env("HOST", "127.0.0.1")
        .env("PORT", port.to_string())
        .env("USERNAME", username)
        .env_remove("BOT_USERNAME")
        .env("RUST_LOG", std::env::var("RUST_LOG").unwrap_or_else(|_| "info".into()))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit());
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd
}

/// PlayerAuthInput arrival times (peer ms) within `[from, to]`, and the gaps between them.
pub fn input_intervals(peer: &Peer, from_ms: u64, to_ms: u64) -> Vec<u64> {
    let times: Vec<u64> = peer
        .packets_named("player_auth_input")
        .iter()
        .filter_map(|p| p["t"].as_u64())
        .filter(|t| (from_ms..=to_ms).contains(t))
        .collect();
    times.windows(2).map(|w| w[1].saturating_sub(w[0])).collect()
}

/// The `p`-quantile (0..=1) of `values` (sorted copy), 0 when empty.
pub fn quantile(values: &[u64], p: f64) -> u64 {
    let mut v = values.to_vec();
    v.sort_unstable();
    if v.is_empty() {
        return 0;
    }
    let i = ((v.len() as f64 * p).ceil() as usize).clamp(1, v.len()) - 1;
    v[i]
}

/// Unix time in ms (the peer's clock for its packet log).
pub fn now_ms() -> u64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_millis() as u64).unwrap_or(0)
}

/// The real `clawcraft` binary with piped stdin/stdout.
pub struct Bot {
    child: Child,
    stdin: Option<ChildStdin>,
    pub lines: Receiver<Value>,
    pub seen: Vec<Value>,
    /// Holds the bot's default events file (unless the test chose one).
    _dir: TempDir,
}

impl Bot {
    pub fn start(port: u16, username: &str) -> Bot {
        Self::start_with(port, username, &[])
    }

    pub fn start_with(port: u16, username: &str, env: &[(&str, &str)]) -> Bot {
        Self::spawn(port, username, env, Stdio::piped(), Stdio::inherit())
    }

    /// Like [`Bot::start_with`], with the bot's stderr (its logs) going to `stderr`.
    pub fn start_full(port: u16, username: &str, env: &[(&str, &str)], stderr: Stdio) -> Bot {
        Self::spawn(port, username, env, Stdio::piped(), stderr)
    }

    /// Like [`start_with`](Self::start_with) with stdin on /dev/null (a daemon, a service).
    pub fn start_detached(port: u16, username: &str, env: &[(&str, &str)]) -> Bot {
        Self::spawn(port, username, env, Stdio::null(), Stdio::inherit())
    }

    fn spawn(port: u16, username: &str, env: &[(&str, &str)], stdin: Stdio, stderr: Stdio) -> Bot {
        let dir = TempDir::new("bot");
        let mut cmd = bot_command(port, username, &dir.path().join("events.jsonl"), env);
        cmd.stdin(stdin).stderr(stderr);
        let mut child = cmd.spawn().expect("starting clawcraft");
        let stdin = child.stdin.take();
        let lines = spawn_line_reader(child.stdout.take().expect("stdout"));
        Bot { child, stdin, lines, seen: Vec::new(), _dir: dir }
    }

    /// The bot's events file (as a string, for `CLAWCRAFT_EVENTS`).
    pub fn events_path(&self) -> String {
        self._dir.path().join("events.jsonl").to_string_lossy().into_owned()
    }

    /// Waits for a stdout line matching `pred`, remembering every line seen.
    pub fn wait(&mut self, pred: impl Fn(&Value) -> bool, timeout: Duration) -> Option<Value> {
        if let Some(v) = self.seen.iter().find(|v| pred(v)) {
            return Some(v.clone());
        }
        let deadline = Instant::now() + timeout;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(v) => {
                    self.seen.push(v.clone());
                    if pred(&v) {
                        return Some(v);
                    }
                }
                Err(RecvTimeoutError::Timeout) | Err(RecvTimeoutError::Disconnected) => return None,
            }
        }
    }

    /// How many stdout lines were read so far (by any of the waits).
    pub fn lines_seen(&self) -> usize {
        self.seen.len()
    }

    pub fn wait_event(&mut self, kind: &str, timeout: Duration) -> Option<Value> {
        self.wait(|v| v["type"] == kind, timeout)
    }

    /// Sends a command and returns its response, failing the test when none comes within 10 s
    /// or the response is an error.
    pub fn ok(&mut self, cmd: Value) -> Value {
        let r = self.request(cmd.clone(), Duration::from_secs(10)).unwrap_or_else(|| panic!("no answer to {cmd}"));
        assert!(r.get("error").is_none(), "{cmd} failed: {r}");
        r
    }

    /// Sends a command with an id and waits for its response.
    pub fn request(&mut self, mut cmd: Value, timeout: Duration) -> Option<Value> {
        static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
        let id = format!("t{}", NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed));
        cmd["id"] = json!(id);
        self.send_line(&cmd.to_string());
        self.wait(|v| v["type"] == "response" && v["id"] == json!(id), timeout)
    }

    /// Writes `lines` to the bot's stdin in one write, so they arrive together and the bot runs
    /// them in the same tick (a race between two commands, as an agent sending both at once).
    pub fn send_lines(&mut self, lines: &[String]) {
        let stdin = self.stdin.as_mut().expect("stdin open");
        let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
        stdin.write_all(text.as_bytes()).expect("write to bot stdin");
        stdin.flush().expect("flush");
    }

    pub fn send_line(&mut self, line: &str) {
        let stdin = self.stdin.as_mut().expect("stdin open");
        writeln!(stdin, "{line}").expect("write to bot stdin");
        stdin.flush().expect("flush");
    }

    /// Closes stdin (EOF), which asks the bot to leave.
    pub fn close_stdin(&mut self) {
        self.stdin = None;
    }

    pub fn wait_exit(&mut self, timeout: Duration) -> Option<ExitStatus> {
        let deadline = Instant::now() + timeout;
        loop {
            if let Ok(Some(status)) = self.child.try_wait() {
                // Drain what is left on stdout.
                while let Ok(v) = self.lines.recv_timeout(Duration::from_millis(200)) {
                    self.seen.push(v);
                }
                return Some(status);
            }
            if Instant::now() > deadline {
                return None;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    pub fn pid(&self) -> u32 {
        self.child.id()
    }
}

impl Drop for Bot {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn wait_for(rx: &Receiver<Value>, pred: impl Fn(&Value) -> bool, timeout: Duration) -> Option<Value> {
    let deadline = Instant::now() + timeout;
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        match rx.recv_timeout(left) {
            Ok(v) if pred(&v) => return Some(v),
            Ok(_) => continue,
            Err(_) => return None,
        }
    }
}

/// A temporary directory removed on drop.
pub struct TempDir(PathBuf);

impl TempDir {
    pub fn new(prefix: &str) -> TempDir {
        static N: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        let n = N.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let p = std::env::temp_dir().join(format!("clawcraft-{prefix}-{}-{n}", std::process::id()));
        std::fs::create_dir_all(&p).expect("create temp dir");
        TempDir(p)
    }
    pub fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// A free loopback TCP port (bound then released), for a bot's `CLAWCRAFT_PORT`.
pub fn free_tcp_port() -> u16 {
    let l = std::net::TcpListener::bind("127.0.0.1:0").expect("bind loopback");
    l.local_addr().expect("addr").port()
}

/// Runs `clawcraft <args>` (a tool subcommand) to completion with extra environment.
pub fn run_tool(args: &[&str], env: &[(&str, &str)]) -> std::process::Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_clawcraft"));
    cmd.args(args).env_remove("CLAWCRAFT_TOKEN").env("RUST_LOG", "warn").stdin(Stdio::null());
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd.output().expect("running clawcraft")
}

/// Starts `clawcraft <args>` with piped stdout, its lines parsed as JSON (for `events --follow`).
pub fn spawn_tool(args: &[&str], env: &[(&str, &str)]) -> (Child, Receiver<Value>) {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_clawcraft"));
    cmd.args(args)
        .env_remove("CLAWCRAFT_TOKEN")
        .env("RUST_LOG", "warn")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit());
    for (k, v) in env {
        cmd.env(k, v);
    }
    let mut child = cmd.spawn().expect("starting clawcraft");
    let lines = spawn_line_reader(child.stdout.take().expect("stdout"));
    (child, lines)
}

/// Waits for a line matching `pred` on a receiver of JSON lines.
pub fn wait_value(rx: &Receiver<Value>, pred: impl Fn(&Value) -> bool, timeout: Duration) -> Option<Value> {
    wait_for(rx, pred, timeout)
}
