//! The live map's HTTP endpoints (`--map ADDR`), with the real `clawcraft` binary against the
//! peer's `living` scenario: the page is served, the event stream carries the whole map, the
//! bot at its position, the scripted mobs and the side panel (status, vitals, inventory, as
//! they change), a command sent by the page is answered exactly as on stdin, bad requests get
//! JSON errors with a stable `code` and the server keeps serving; a token guards it when set,
//! and an address off loopback without one is refused at start-up. A frame carries only what
//! changed: while nothing does, no frame comes.

use crate::common;

use std::net::SocketAddr;
use std::sync::mpsc::Receiver;
use std::time::{Duration, Instant};

use base64::Engine;
use clawcraft::view::colors::ColorTable;
use common::http::{self, Sse};
use common::{Bot, Peer, free_tcp_port};
use serde_json::{Value, json};

const SPAWN_TIMEOUT: Duration = Duration::from_secs(40);
const ANSWER: Duration = Duration::from_secs(20);

fn map_addr() -> SocketAddr {
    SocketAddr::from(([127, 0, 0, 1], free_tcp_port()))
}

/// The next event of `kind` whose data satisfies `pred`.
fn next_event(rx: &Receiver<Sse>, kind: &str, pred: impl Fn(&Value) -> bool, timeout: Duration) -> Option<Value> {
    let deadline = Instant::now() + timeout;
    while let Some(left) = deadline.checked_duration_since(Instant::now()) {
        let Ok(e) = rx.recv_timeout(left) else { return None };
        if e.event != kind {
            continue;
        }
        let v: Value =
            serde_json::from_str(&e.data).unwrap_or_else(|err| panic!("{kind} data is JSON ({err}): {}", e.data));
        if pred(&v) {
            return Some(v);
        }
    }
    None
}

/// What a page knows, made of `init` and the frames that followed (each carries only what
/// changed).
#[derive(Default)]
struct View {
    bots: Value,
    entities: Value,
    panels: serde_json::Map<String, Value>,
    frames: u64,
}

impl View {
    fn apply(&mut self, f: &Value) {
        if f["full"] == true {
            self.panels.clear();
        }
        if let Some(b) = f.get("bots") {
            self.bots = b.clone();
        }
        if let Some(e) = f.get("entities") {
            self.entities = e.clone();
        }
        if let Some(p) = f.get("panels").and_then(Value::as_object) {
            self.panels.extend(p.iter().map(|(k, v)| (k.clone(), v.clone())));
        }
        self.frames += 1;
    }

    fn bot(&self, name: &str) -> Option<&Value> {
        self.bots.as_array()?.iter().find(|b| b["name"] == name)
    }

    /// Applies frames until `pred` holds; whether it did within `timeout`.
    fn until(&mut self, rx: &Receiver<Sse>, pred: impl Fn(&View) -> bool, timeout: Duration) -> bool {
        let deadline = Instant::now() + timeout;
        while !pred(self) {
            let Some(left) = deadline.checked_duration_since(Instant::now()) else { return false };
            match next_event(rx, "frame", |_| true, left) {
                Some(f) => self.apply(&f),
                None => return false,
            }
        }
        true
    }
}

#[test]
fn the_map_serves_its_page_stream_and_commands_and_refuses_bad_requests() {
    let peer = Peer::start("living");
    let addr = map_addr();
    let mut bot = Bot::start_with(peer.port, "Mapper", &[("CLAWCRAFT_MAP", &addr.to_string())]);
    bot.wait_event("spawn", SPAWN_TIMEOUT).expect("spawn event");

    // The page and its assets.
    let page = http::get(addr, "/");
    assert_eq!(page.status, 200, "{}", page.text());
    assert!(page.header("content-type").is_some_and(|c| c.starts_with("text/html")), "{:?}", page.headers);
    assert!(page.text().contains("map.js") && page.text().contains("id=\"map\""), "{}", page.text());
    let js = http::get(addr, "/map.js");
    assert_eq!(js.status, 200);
    assert!(js.text().contains("EventSource") && js.text().contains("/command"));
    assert_eq!(http::get(addr, "/map.css").status, 200);

    // The stream: the whole map first, then frames with the bot where `pos` says it is.
    let (status, events) = http::sse(addr, "/stream", &[]);
    assert_eq!(status, 200);
    let init = next_event(&events, "init", |_| true, ANSWER).expect("init");
    assert!(init["bots"].is_array() && init["tiles"].is_array(), "{init}");
    let latest =
        next_event(&events, "events", |v| v.as_array().is_some_and(|a| a.iter().any(|e| e["type"] == "spawn")), ANSWER);
    assert!(latest.is_some(), "the latest events (spawn among them) come with the page");
    // The first frame after the page opened carries every column the bot holds.
    let full = next_event(&events, "frame", |_| true, ANSWER).expect("a first frame");
    assert_eq!(full["full"], true, "the first frame is a full one");
    let tiles = full["tiles"].as_array().expect("tiles");
    assert!(!tiles.is_empty(), "columns came with the stream");
    let pos = bot.request(json!({"action":"pos"}), ANSWER).expect("pos");
    let (x, z) = (pos["pos"]["x"].as_f64().expect("x"), pos["pos"]["z"].as_f64().expect("z"));
    // The cell under the bot: the grass it stands on (y -61), in the colour table's colour.
    let (bx, bz) = (x.floor() as i64, z.floor() as i64);
    let tile = tiles
        .iter()
        .find(|t| t["d"] == 0 && t["x"] == json!(bx >> 4) && t["z"] == json!(bz >> 4))
        .unwrap_or_else(|| panic!("the bot's column ({}, {}) is on the map", bx >> 4, bz >> 4));
    assert_eq!(tile["loaded"], tile["total"], "a full chunk is loaded: {}", tile["loaded"]);
    let cells =
        base64::engine::general_purpose::STANDARD.decode(tile["cells"].as_str().expect("cells")).expect("base64");
    assert_eq!(cells.len(), 256 * 5);
    let i = (((bz & 15) * 16 + (bx & 15)) * 5) as usize;
    assert_eq!(i16::from_le_bytes([cells[i + 3], cells[i + 4]]), -61, "the top under the bot");
    assert_eq!(cells[i..i + 3], ColorTable::get().color("grass_block").top, "grass-coloured");
    // It carries everything: the bots, the entities and each bot's panel.
    let mut view = View::default();
    view.apply(&full);
    assert!(view.bot("Mapper").is_some(), "the bot comes with the full frame: {}", full["bots"]);
    assert!(full["entities"].is_array(), "{}", full["entities"]);
    let panel = &view.panels["Mapper"];
    assert_eq!(panel["status"]["state"], "spawned", "{panel}");
    assert!(panel["status"]["chunks"].as_u64().is_some_and(|n| n as usize >= tiles.len()), "{panel}");
    assert!(panel["vitals"]["maxHealth"].as_f64().is_some_and(|h| h > 0.0), "vitals in the panel: {panel}");
    assert!(panel.get("inventory").is_some(), "{panel}");
    // Later frames move the bot to where `pos` says it is (if it was still settling).
    let placed = |v: &View| {
        v.bot("Mapper").is_some_and(|b| {
            (b["pos"][0].as_f64().unwrap_or(f64::NAN) - x).abs() < 0.01
                && (b["pos"][2].as_f64().unwrap_or(f64::NAN) - z).abs() < 0.01
        })
    };
    assert!(view.until(&events, placed, ANSWER), "Mapper at ({x}, {z}) on the map: {}", view.bots);
    // The scripted zombie, as a hostile mark, once the script added it.
    let zombie = |v: &View| {
        v.entities
            .as_array()
            .is_some_and(|e| e.iter().any(|e| e["kind"] == "minecraft:zombie" && e["mark"] == "hostile"))
    };
    assert!(view.until(&events, zombie, ANSWER), "the zombie is on the map: {}", view.entities);
    // The script hurts the bot (health 14) and makes it hungry (18): the panel follows, through
    // the stream alone, and says what `vitals` answers.
    let hurt = |v: &View| {
        v.panels.get("Mapper").is_some_and(|p| p["vitals"]["health"] == 14.0 && p["vitals"]["hunger"] == 18.0)
    };
    assert!(view.until(&events, hurt, ANSWER), "the hurt in the panel: {:?}", view.panels.get("Mapper"));
    let vitals = bot.request(json!({"action":"vitals"}), ANSWER).expect("vitals");
    assert_eq!((vitals["health"].as_f64(), vitals["hunger"].as_f64()), (Some(14.0), Some(18.0)), "{vitals}");
    let first_frames = view.frames;
    assert!(first_frames >= 2, "frames came: {first_frames}");

    // A command from the page: the same answer as on stdin.
    let answer = http::post_json(addr, "/command", r#"{"action":"pos","id":"page-1"}"#);
    assert_eq!(answer.status, 200, "{}", answer.text());
    let answer = answer.json();
    assert_eq!((answer["type"].as_str(), answer["id"].as_str()), (Some("response"), Some("page-1")), "{answer}");
    assert!((answer["pos"]["x"].as_f64().expect("x") - x).abs() < 0.01, "{answer} vs {pos}");
    // A bad line: the same error as on stdin.
    let bad = http::post_json(addr, "/command", "{not json").json();
    bot.send_line("{not json");
    let on_stdin = bot.wait(|v| v["type"] == "response" && v["code"].is_string(), ANSWER).expect("stdin error");
    assert_eq!(bad["code"], on_stdin["code"], "{bad} vs {on_stdin}");
    assert_eq!(bad["code"], "INVALID_JSON");
    let unknown = http::post_json(addr, "/command", r#"{"action":"fly_to_the_moon"}"#).json();
    assert_eq!(unknown["code"], "UNKNOWN_ACTION", "{unknown}");

    // Bad requests: a JSON error with a code, and the server keeps serving.
    let cases: Vec<(Vec<u8>, u16, &str)> = vec![
        (b"garbage\r\n\r\n".to_vec(), 400, "BAD_REQUEST"),
        (b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nno colon here\r\n\r\n".to_vec(), 400, "BAD_REQUEST"),
        (format!("GET /nope HTTP/1.1\r\nHost: {addr}\r\n\r\n").into_bytes(), 404, "NOT_FOUND"),
        (
            format!("POST / HTTP/1.1\r\nHost: {addr}\r\nContent-Length: 0\r\n\r\n").into_bytes(),
            405,
            "METHOD_NOT_ALLOWED",
        ),
        (format!("GET /command HTTP/1.1\r\nHost: {addr}\r\n\r\n").into_bytes(), 405, "METHOD_NOT_ALLOWED"),
        (format!("GET / HTTP/1.1\r\nHost: evil.example:{}\r\n\r\n", addr.port()).into_bytes(), 403, "FORBIDDEN_HOST"),
        (
            format!("POST /command HTTP/1.1\r\nHost: {addr}\r\nContent-Length: 1000000000\r\n\r\n{{}}").into_bytes(),
            413,
            "TOO_LARGE",
        ),
        (
            format!("POST /command HTTP/1.1\r\nHost: {addr}\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n")
                .into_bytes(),
            411,
            "LENGTH_REQUIRED",
        ),
        (
            [
                format!("GET / HTTP/1.1\r\nHost: {addr}\r\nX-Big: ").into_bytes(),
                vec![b'a'; 40_000],
                b"\r\n\r\n".to_vec(),
            ]
            .concat(),
            431,
            "HEADERS_TOO_LARGE",
        ),
    ];
    for (raw, status, code) in cases {
        let a = http::raw(addr, &raw);
        assert_eq!(a.status, status, "{}: {}", String::from_utf8_lossy(&raw[..raw.len().min(80)]), a.text());
        assert_eq!(a.json()["code"], code, "{}", a.text());
    }
    let not_utf8 = http::request(addr, "POST", "/command", &[], &[0xff, 0xfe]);
    assert_eq!((not_utf8.status, not_utf8.json()["code"].clone()), (400, json!("BAD_REQUEST")));
    // A client that opens and says nothing, one that closes mid-request: no harm done.
    drop(std::net::TcpStream::connect(addr).expect("connect"));
    let a = http::get(addr, "/");
    assert_eq!(a.status, 200, "still serving");
    // The stream still flows: the bot turns to face +x (yaw −90), a frame carries its heading.
    let faced = bot.request(json!({"action":"face","x": x + 10.0, "y": -58.4, "z": z}), ANSWER).expect("face");
    assert!(faced["code"].is_null(), "{faced}");
    let east = |v: &View| {
        v.bot("Mapper")
            .and_then(|b| b["yaw"].as_f64())
            .is_some_and(|y| ((y + 90.0).rem_euclid(360.0)).min((-y - 90.0).rem_euclid(360.0)) < 1.0)
    };
    assert!(view.until(&events, east, ANSWER), "the new heading on the map: {}", view.bots);
    drop(events);
    // And the bot still plays.
    assert!(bot.request(json!({"action":"pos"}), ANSWER).is_some_and(|r| r["pos"]["x"].is_number()));
}

#[test]
fn a_token_guards_the_map_and_off_loopback_needs_one() {
    let peer = Peer::start("flat");
    let addr = map_addr();
    let mut bot =
        Bot::start_with(peer.port, "Guarded", &[("CLAWCRAFT_MAP", &addr.to_string()), ("CLAWCRAFT_TOKEN", "s3cret")]);
    bot.wait_event("spawn", SPAWN_TIMEOUT).expect("spawn event");
    let refused = http::get(addr, "/");
    assert_eq!((refused.status, refused.json()["code"].clone()), (401, json!("UNAUTHORIZED")));
    assert_eq!(refused.header("www-authenticate"), Some("Bearer"));
    assert_eq!(http::get(addr, "/?token=wrong").status, 401);
    assert_eq!(http::get(addr, "/?token=s3cret").status, 200);
    let (status, _) = http::sse(addr, "/stream", &[]);
    assert_eq!(status, 401, "the stream too");
    let (status, events) = http::sse(addr, "/stream?token=s3cret", &[]);
    assert_eq!(status, 200);
    assert!(next_event(&events, "init", |_| true, ANSWER).is_some());
    let no = http::post_json(addr, "/command", r#"{"action":"pos"}"#);
    assert_eq!(no.status, 401);
    let yes = http::request(addr, "POST", "/command", &[("Authorization", "Bearer s3cret")], br#"{"action":"pos"}"#);
    assert_eq!(yes.status, 200, "{}", yes.text());
    assert!(yes.json()["pos"]["x"].is_number(), "{}", yes.text());
    drop(bot);

    // Off loopback without a token: the bot refuses to start (a CONFIG error, exit 2).
    let mut open = Bot::start_with(peer.port, "Open", &[("CLAWCRAFT_MAP", "0.0.0.0:0")]);
    let error = open.wait(|v| v["code"] == "CONFIG", ANSWER).expect("a CONFIG error");
    assert!(error["error"].as_str().is_some_and(|e| e.contains("CLAWCRAFT_TOKEN")), "{error}");
    assert_eq!(open.wait_exit(ANSWER).and_then(|s| s.code()), Some(2));
}

#[test]
fn every_bot_of_a_swarm_is_on_the_map_with_its_panel_and_idle_bots_send_no_frames() {
    let peer = Peer::start("flat");
    let addr = map_addr();
    let mut bots = Bot::start_with(
        peer.port,
        "unused",
        &[("CLAWCRAFT_MAP", &addr.to_string()), ("CLAWCRAFT_SWARM", r#"{"bots":["Ann","Bob"]}"#)],
    );
    bots.wait(|v| v["type"] == "spawn" && v["bot"] == "Ann", SPAWN_TIMEOUT).expect("Ann spawns");
    bots.wait(|v| v["type"] == "spawn" && v["bot"] == "Bob", SPAWN_TIMEOUT).expect("Bob spawns");
    let (_, events) = http::sse(addr, "/stream", &[]);
    let mut view = View::default();
    let placed = |v: &View| ["Ann", "Bob"].iter().all(|n| v.bot(n).is_some_and(|b| b["pos"].is_array()));
    assert!(view.until(&events, placed, ANSWER), "both bots, placed: {}", view.bots);
    // Each bot's panel, so the page's follows the one selected.
    let panels =
        |v: &View| ["Ann", "Bob"].iter().all(|n| v.panels.get(*n).is_some_and(|p| p["status"]["state"] == "spawned"));
    assert!(view.until(&events, panels, ANSWER), "both panels: {:?}", view.panels);

    // Idle bots: once the world has come in and settled, no frame is sent at all (nothing
    // changed), while the game loop ticks on.
    let quiet = Duration::from_millis(1500);
    let deadline = Instant::now() + ANSWER;
    while next_event(&events, "frame", |_| true, quiet).is_some() {
        assert!(Instant::now() < deadline, "frames kept coming from idle bots");
    }
    let tick = |bots: &mut Bot| {
        let s = bots.request(json!({"action":"status","bot":"Ann"}), ANSWER).expect("status");
        s["inputTick"].as_u64().unwrap_or_else(|| panic!("inputTick: {s}"))
    };
    let t0 = tick(&mut bots);
    let idle = next_event(&events, "frame", |_| true, Duration::from_secs(3));
    let ticks = tick(&mut bots) - t0;
    assert!(idle.is_none(), "a frame while nothing changed: {idle:?}");
    assert!(ticks >= 40, "the game loop ticked meanwhile ({ticks} ticks), with no frame over them");
    // The command box addresses a bot by name, as an agent would.
    for name in ["Ann", "Bob"] {
        let status = http::post_json(addr, "/command", &json!({"action":"status","bot":name}).to_string()).json();
        assert_eq!(status["username"], name, "{status}");
    }
    let nobody = http::post_json(addr, "/command", r#"{"action":"status","bot":"Nobody"}"#).json();
    assert!(nobody["code"].is_string(), "an unknown bot is an error with a code: {nobody}");
}
