//! Many bots in one process (issue 30), end to end: one `clawcraft` process runs a swarm of 20
//! bots against the test peer, which spawns each connection one block further east
//! (`--spawn-spread 1`). Every bot spawns (20 `spawn` events, each naming its bot), answers `pos`
//! addressed by its name with its own position (the one the peer spawned that username at), and
//! one bot walks 5 blocks while the other 19 stand still — checked in the peer's packet log per
//! username: the walker's server-side position moved by ≈ 5 blocks, every other username's
//! accepted positions never left its spawn while it kept sending inputs.

use crate::common;

use std::collections::{BTreeMap, HashMap, HashSet};
use std::io::{BufRead, BufReader, Seek, SeekFrom};
use std::path::PathBuf;
use std::time::{Duration, Instant};

use common::{Bot, Peer};
use serde_json::{Value, json};

const BOTS: usize = 20;
/// All 20 joining and spawning (a debug build on a loaded 2-core box).
const SPAWN_ALL: Duration = Duration::from_secs(150);
const ANSWER: Duration = Duration::from_secs(20);
const WALK: Duration = Duration::from_secs(60);
/// The walk's length, blocks (south, across the line the bots stand on).
const STEPS: f64 = 5.0;

fn num(v: &Value) -> f64 {
    v.as_f64().or_else(|| v.as_str().and_then(|s| s.parse().ok())).unwrap_or(f64::NAN)
}

/// One accepted or refused position of a bot as the peer's movement checker saw it (feet).
#[derive(Debug, Clone, Copy)]
struct AuthPos {
    t: u64,
    x: f64,
    y: f64,
    z: f64,
    accepted: bool,
}

/// The peer's packet log read as it grows, per username (login lines name each client).
struct PacketLog {
    path: PathBuf,
    offset: u64,
    names: HashMap<u64, String>,
    positions: BTreeMap<String, Vec<AuthPos>>,
    /// Arrival times (peer ms) of each username's PlayerAuthInputs.
    inputs: BTreeMap<String, Vec<u64>>,
}

impl PacketLog {
    fn new(peer: &Peer) -> Self {
        Self {
            path: peer.log.clone(),
            offset: 0,
            names: HashMap::new(),
            positions: BTreeMap::new(),
            inputs: BTreeMap::new(),
        }
    }

    /// Reads the lines written since the last call (whole lines only).
    fn update(&mut self) {
        let Ok(mut f) = std::fs::File::open(&self.path) else { return };
        if f.seek(SeekFrom::Start(self.offset)).is_err() {
            return;
        }
        let mut reader = BufReader::new(f);
        let mut line = String::new();
        while reader.read_line(&mut line).unwrap_or(0) > 0 {
            if !line.ends_with('\n') {
                break; // the peer is writing it: next time
            }
            self.offset += line.len() as u64;
            self.line(&line);
            line.clear();
        }
    }

    fn line(&mut self, line: &str) {
        let Ok(v) = serde_json::from_str::<Value>(line) else { return };
        let client = v["client"].as_u64();
        match v["name"].as_str() {
            Some("login") => {
                if let (Some(c), Some(name)) = (client, v["username"].as_str()) {
                    self.names.insert(c, name.to_owned());
                }
            }
            Some("__auth_pos") => {
                let Some(name) = client.and_then(|c| self.names.get(&c)) else { return };
                let p = AuthPos {
                    t: v["t"].as_u64().unwrap_or(0),
                    x: num(&v["x"]),
                    y: num(&v["y"]),
                    z: num(&v["z"]),
                    accepted: v["accepted"] == true,
                };
                self.positions.entry(name.clone()).or_default().push(p);
            }
            Some("player_auth_input") => {
                let Some(name) = client.and_then(|c| self.names.get(&c)) else { return };
                self.inputs.entry(name.clone()).or_default().push(v["t"].as_u64().unwrap_or(0));
            }
            _ => {}
        }
    }

    /// Polls the log (the peer's record of what it received) until `pred` holds.
    fn wait(&mut self, timeout: Duration, pred: impl Fn(&Self) -> bool) -> bool {
        let deadline = Instant::now() + timeout;
        loop {
            self.update();
            if pred(self) {
                return true;
            }
            if Instant::now() > deadline {
                return false;
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    fn last_accepted(&self, name: &str) -> Option<AuthPos> {
        self.positions.get(name)?.iter().rev().find(|p| p.accepted).copied()
    }
}

#[test]
fn twenty_bots_in_one_process_spawn_answer_by_name_and_one_walks_while_the_others_stand() {
    let started = Instant::now();
    let mut peer = Peer::start_args("flat", &["--max-players", "32", "--spawn-spread", "1"]);
    let names: Vec<String> = (1..=BOTS).map(|i| format!("Swarm{i:02}")).collect();
    // Radius 3 keeps 20 debug-built bots' chunk decoding small; the walk stays well inside it.
    let swarm = json!({"count": BOTS, "prefix": "Swarm", "defaults": {"chunkRadius": 3}}).to_string();
    let mut bot = Bot::start_with(peer.port, "Unused", &[("CLAWCRAFT_SWARM", &swarm)]);

    // Every bot spawns, and its spawn event names it.
    let mut spawned: HashSet<String> = HashSet::new();
    let deadline = Instant::now() + SPAWN_ALL;
    while spawned.len() < BOTS {
        let left = deadline.saturating_duration_since(Instant::now());
        let seen = spawned.clone();
        let Some(ev) = bot.wait(|v| v["type"] == "spawn" && v["bot"].as_str().is_some_and(|b| !seen.contains(b)), left)
        else {
            panic!("{} of {BOTS} bots spawned after {SPAWN_ALL:?}: {spawned:?}", spawned.len());
        };
        spawned.insert(ev["bot"].as_str().expect("names its bot").to_owned());
    }
    assert_eq!(spawned, names.iter().cloned().collect::<HashSet<_>>(), "the swarm's names");
    eprintln!("{BOTS} bots spawned {:?} after the peer started", started.elapsed());

    // Where the peer spawned each username (eye level; the spread makes them all differ).
    let mut spawn_at: HashMap<String, (f64, f64, f64)> = HashMap::new();
    while spawn_at.len() < BOTS {
        let ev = peer.wait_line(|v| v["event"] == "spawned", ANSWER).expect("the peer's spawned events");
        let p = &ev["position"];
        let name = ev["username"].as_str().expect("username").to_owned();
        spawn_at.insert(name, (num(&p["x"]), num(&p["y"]) - 1.62, num(&p["z"])));
    }
    let xs: HashSet<i64> = spawn_at.values().map(|p| (p.0 * 10.0).round() as i64).collect();
    assert_eq!(xs.len(), BOTS, "the peer spawned every bot somewhere else: {spawn_at:?}");

    // `pos` addressed by name answers with that bot's own position.
    for name in &names {
        let r = bot.request(json!({"action": "pos", "bot": name}), ANSWER).expect("pos answered");
        let (x, y, z) = spawn_at[name];
        let pos = &r["pos"];
        assert!(
            (num(&pos["x"]) - x).abs() < 0.01 && (num(&pos["y"]) - y).abs() < 0.01 && (num(&pos["z"]) - z).abs() < 0.01,
            "{name} answers its own position ({x}, {y}, {z}): {r}"
        );
    }
    let r = bot.request(json!({"action": "pos"}), ANSWER).expect("pos without a bot");
    assert_eq!(r["code"], "BOT_REQUIRED", "{r}");

    // Every bot's inputs reach the peer before the walk (their positions at spawn are known).
    let mut log = PacketLog::new(&peer);
    assert!(
        log.wait(ANSWER, |l| names.iter().all(|n| l.last_accepted(n).is_some())),
        "the peer accepted positions of every bot: {:?}",
        log.positions.keys().collect::<Vec<_>>()
    );

    // One bot walks STEPS blocks south; the others stand.
    let walker = "Swarm07";
    let (wx, wy, wz) = spawn_at[walker];
    let goal = json!({"action": "walk", "bot": walker, "x": wx, "y": wy, "z": wz + STEPS});
    let walk_start = common::now_ms();
    let r = bot.request(goal, ANSWER).expect("walk answered");
    assert_eq!(r["walking"], true, "{r}");
    let id = r["id"].clone();
    let done = bot.wait(|v| v["type"] == "walk_done" && v["id"] == id, WALK).expect("walk_done");
    assert_eq!((done["status"].as_str(), done["bot"].as_str()), (Some("done"), Some(walker)), "{done}");
    let done_at = common::now_ms();

    // The peer's view: the walker arrived; everybody else sent inputs after that and never moved.
    let others: Vec<&String> = names.iter().filter(|n| *n != walker).collect();
    let arrived = log.wait(ANSWER, |l| {
        l.last_accepted(walker).is_some_and(|p| (p.z - (wz + STEPS)).abs() <= 0.5)
            && others.iter().all(|n| l.last_accepted(n).is_some_and(|p| p.t >= done_at))
    });
    let w = log.last_accepted(walker).expect("walker's positions");
    assert!(arrived, "the walker reached z {} at the peer ({w:?}) and the others kept sending", wz + STEPS);
    let moved = ((w.x - wx).powi(2) + (w.z - wz).powi(2)).sqrt();
    assert!((moved - STEPS).abs() <= 0.5 && (w.y - wy).abs() < 0.01, "walker moved {moved} blocks at the peer: {w:?}");
    for name in &others {
        let (x, y, z) = spawn_at[*name];
        let positions = &log.positions[*name];
        let strays: Vec<&AuthPos> = positions
            .iter()
            .filter(|p| (p.x - x).abs() > 1e-3 || (p.y - y).abs() > 1e-3 || (p.z - z).abs() > 1e-3)
            .collect();
        assert!(
            strays.is_empty(),
            "{name} stood still at ({x}, {y}, {z}) at the peer: {:?}",
            &strays[..strays.len().min(3)]
        );
        let during = log.inputs[*name].iter().filter(|t| (walk_start..=done_at).contains(t)).count();
        assert!(during > 0, "{name} kept sending inputs while {walker} walked");
    }
    let refused: Vec<(&String, usize)> = log
        .positions
        .iter()
        .map(|(n, ps)| (n, ps.iter().filter(|p| !p.accepted).count()))
        .filter(|(_, c)| *c > 0)
        .collect();
    assert!(refused.is_empty(), "no bot's movement was refused: {refused:?}");
    eprintln!("swarm e2e done in {:?}", started.elapsed());
}
