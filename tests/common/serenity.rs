//! SerenityJS, an independently written Bedrock server (`tests/serenity`), for the end-to-end
//! suite `tests/e2e/serenity.rs`: started on 127.0.0.1 in offline mode with an in-memory superflat
//! world, every player made operator; its stdin answers queries about its own world.

use std::io::Write;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::Receiver;
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use super::{TempDir, free_udp_port, repo_root, spawn_line_reader};

/// Installs SerenityJS once per test process (idempotent script; fails the test when it cannot).
pub fn ensure_serenity_installed() {
    static DONE: OnceLock<()> = OnceLock::new();
    static LOCK: Mutex<()> = Mutex::new(());
    let _g = LOCK.lock().unwrap_or_else(|p| p.into_inner());
    DONE.get_or_init(|| {
        let status = Command::new("bash")
            .arg(repo_root().join("tests/serenity/install.sh"))
            .stdin(Stdio::null())
            .stdout(Stdio::inherit())
            .stderr(Stdio::inherit())
            .status()
            .expect("running tests/serenity/install.sh");
        assert!(status.success(), "SerenityJS install failed (tests/serenity/install.sh)");
    });
}

/// A running SerenityJS (`tests/serenity/serenity.js`).
pub struct Serenity {
    child: Child,
    stdin: ChildStdin,
    pub port: u16,
    lines: Receiver<Value>,
    /// Every stdout line read so far.
    pub seen: Vec<Value>,
    next_id: u64,
    _dir: TempDir,
}

impl Serenity {
    pub fn start() -> Serenity {
        ensure_serenity_installed();
        let dir = TempDir::new("serenity");
        let port = free_udp_port();
        let mut child = Command::new("node")
            .arg(repo_root().join("tests/serenity/serenity.js"))
            .args(["--port", &port.to_string(), "--dir"])
            .arg(dir.path())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("starting node tests/serenity/serenity.js");
        let stdin = child.stdin.take().expect("stdin");
        let lines = spawn_line_reader(child.stdout.take().expect("stdout"));
        let mut s = Serenity { child, stdin, port, lines, seen: Vec::new(), next_id: 1, _dir: dir };
        let up = s.wait(|v| v["event"] == "listening", Duration::from_secs(60)).expect("SerenityJS listening");
        assert_eq!((up["version"].clone(), up["protocol"].clone()), (json!("1.26.20"), json!(975)), "{up}");
        s
    }

    /// Waits for a stdout line matching `pred` (also among the lines already read).
    pub fn wait(&mut self, pred: impl Fn(&Value) -> bool, timeout: Duration) -> Option<Value> {
        if let Some(v) = self.seen.iter().find(|v| pred(v)) {
            return Some(v.clone());
        }
        let deadline = Instant::now() + timeout;
        loop {
            let v = self.lines.recv_timeout(deadline.saturating_duration_since(Instant::now())).ok()?;
            self.seen.push(v.clone());
            if pred(&v) {
                return Some(v);
            }
        }
    }

    /// Asks the server about its own world (`{"query":"block","x":..}`, `player`, `players`,
    /// `breaktime`; see tests/serenity/README.md) and returns its answer.
    pub fn query(&mut self, mut q: Value) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        q["id"] = json!(id);
        writeln!(self.stdin, "{q}").expect("write to serenity.js");
        self.stdin.flush().expect("flush");
        self.wait(|v| v["event"] == "answer" && v["id"] == json!(id), Duration::from_secs(10))
            .unwrap_or_else(|| panic!("no answer from SerenityJS to {q}"))
    }

    /// The server's block at a position (`minecraft:…`).
    pub fn block(&mut self, x: i64, y: i64, z: i64) -> String {
        let a = self.query(json!({"query": "block", "x": x, "y": y, "z": z}));
        a["block"].as_str().unwrap_or_else(|| panic!("block answer: {a}")).to_owned()
    }

    /// The server's record of a player (`position` = feet, `items`, `op`, `gamemode`).
    pub fn player(&mut self, name: &str) -> Value {
        self.query(json!({"query": "player", "username": name}))
    }
}

impl Drop for Serenity {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
