//! The live map in a real browser: Debian's headless Chromium, driven through chromedriver's
//! WebDriver API, loads the page of a bot on the peer's `living` scenario (mixed world) and takes screenshots
//! of the map: the bot drawn at its position, the scripted zombie moved between two screenshots,
//! a walk (sent from the page's command box) drawn as a path; the side panel shows the bot's
//! status, vitals (the script's hurt among them) and inventory from the event stream alone, with
//! no command sent for it. The screenshots are kept under
//! `target/test-artefacts/map/`. Needs `chromium` and `chromium-driver` (`.ci/run` installs
//! them).

use crate::common;

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use base64::Engine;
use common::http;
use common::{Bot, Peer, TempDir, free_tcp_port};
use serde_json::{Value, json};

const CHROMIUM: &str = "/usr/bin/chromium";
const CHROMEDRIVER: &str = "/usr/bin/chromedriver";
const SPAWN_TIMEOUT: Duration = Duration::from_secs(40);
const WAIT: Duration = Duration::from_secs(30);

const WHITE: [u8; 3] = [255, 255, 255];
const HOSTILE: [u8; 3] = [0xdc, 0x1e, 0x1e];
const PATH: [u8; 3] = [0x00, 0xe5, 0xff];

/// chromedriver and one browser session; both end on drop.
struct Browser {
    driver: Child,
    addr: SocketAddr,
    session: String,
    _profile: TempDir,
}

impl Browser {
    fn start() -> Browser {
        for tool in [CHROMIUM, CHROMEDRIVER] {
            assert!(
                Path::new(tool).exists(),
                "{tool} is missing: apt-get install -y chromium chromium-driver (.ci/run does it)"
            );
        }
        let port = free_tcp_port();
        let driver = Command::new(CHROMEDRIVER)
            .arg(format!("--port={port}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("starting chromedriver");
        let addr = SocketAddr::from(([127, 0, 0, 1], port));
        let deadline = Instant::now() + WAIT;
        loop {
            if std::net::TcpStream::connect(addr).is_ok() && http::get(addr, "/status").json()["value"]["ready"] == true
            {
                break;
            }
            assert!(Instant::now() < deadline, "chromedriver never became ready");
            std::thread::sleep(Duration::from_millis(50));
        }
        let profile = TempDir::new("chromium");
        let args = [
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--disable-dev-shm-usage",
            "--force-device-scale-factor=1",
            "--window-size=1280,1400",
        ];
        let mut args: Vec<String> = args.iter().map(|a| (*a).to_owned()).collect();
        args.push(format!("--user-data-dir={}", profile.path().display()));
        let caps = json!({"capabilities": {"alwaysMatch": {
            "browserName": "chrome",
            "goog:chromeOptions": {"binary": CHROMIUM, "args": args},
        }}});
        let mut browser = Browser { driver, addr, session: String::new(), _profile: profile };
        let created = browser.call("POST", "/session", Some(caps));
        browser.session = created["sessionId"].as_str().unwrap_or_else(|| panic!("a session: {created}")).to_owned();
        browser
    }

    fn call(&self, method: &str, path: &str, body: Option<Value>) -> Value {
        let body = body.map(|b| b.to_string()).unwrap_or_default();
        let a = http::request(self.addr, method, path, &[("Content-Type", "application/json")], body.as_bytes());
        let v = a.json();
        assert!(a.status == 200, "WebDriver {method} {path}: {} {v}", a.status);
        v["value"].clone()
    }

    fn session_call(&self, method: &str, path: &str, body: Option<Value>) -> Value {
        self.call(method, &format!("/session/{}{path}", self.session), body)
    }

    fn open(&self, url: &str) {
        self.session_call("POST", "/url", Some(json!({"url": url})));
    }

    /// Runs `script` (a function body) in the page and answers its return value.
    fn eval(&self, script: &str) -> Value {
        self.session_call("POST", "/execute/sync", Some(json!({"script": script, "args": []})))
    }

    /// Polls `script` until it returns something truthy.
    fn wait_for(&self, script: &str, what: &str) -> Value {
        let deadline = Instant::now() + WAIT;
        loop {
            let v = self.eval(script);
            if !(v.is_null() || v == false) {
                return v;
            }
            assert!(Instant::now() < deadline, "{what}: never true in the page ({script})");
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    fn element(&self, css: &str) -> String {
        let v = self.session_call("POST", "/element", Some(json!({"using": "css selector", "value": css})));
        v.as_object().and_then(|o| o.values().next()).and_then(Value::as_str).expect("element id").to_owned()
    }

    /// A screenshot of the canvas, saved as `name`.png among the artefacts.
    fn screenshot(&self, name: &str) -> Shot {
        // The command box may have scrolled the page; the canvas is shot in view.
        self.eval("window.scrollTo(0, 0); document.activeElement && document.activeElement.blur()");
        let canvas = self.element("#map");
        let b64 = self.session_call("GET", &format!("/element/{canvas}/screenshot"), None);
        let bytes = base64::engine::general_purpose::STANDARD.decode(b64.as_str().expect("base64")).expect("PNG");
        let path = artefacts().join(format!("{name}.png"));
        std::fs::write(&path, &bytes).expect("saving the screenshot");
        let mut reader = png::Decoder::new(std::io::Cursor::new(bytes)).read_info().expect("PNG header");
        let mut buf = vec![0; reader.output_buffer_size().expect("size")];
        let info = reader.next_frame(&mut buf).expect("PNG data");
        let channels = info.color_type.samples();
        Shot { width: info.width, height: info.height, channels, pixels: buf, path }
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        if !self.session.is_empty() {
            let _ = http::request(self.addr, "DELETE", &format!("/session/{}", self.session), &[], b"");
        }
        let _ = self.driver.kill();
        let _ = self.driver.wait();
    }
}

struct Shot {
    width: u32,
    height: u32,
    channels: usize,
    pixels: Vec<u8>,
    path: PathBuf,
}

impl Shot {
    fn at(&self, x: f64, y: f64) -> [u8; 3] {
        let (x, y) = (x.round() as u32, y.round() as u32);
        assert!(x < self.width && y < self.height, "({x}, {y}) outside {}×{}", self.width, self.height);
        let i = (y * self.width + x) as usize * self.channels;
        [self.pixels[i], self.pixels[i + 1], self.pixels[i + 2]]
    }

    /// Whether the pixel at `p` (page coordinates `{x, y}`) is `rgb`, give or take colour
    /// management's rounding.
    fn shows(&self, p: &Value, rgb: [u8; 3]) -> bool {
        let got = self.at(p["x"].as_f64().expect("x"), p["y"].as_f64().expect("y"));
        got.iter().zip(rgb).all(|(g, w)| g.abs_diff(w) <= 6)
    }

    fn describe(&self, p: &Value) -> String {
        let got = self.at(p["x"].as_f64().unwrap_or(0.0), p["y"].as_f64().unwrap_or(0.0));
        format!("pixel {p} is {got:?} in {}", self.path.display())
    }
}

/// `target/test-artefacts/map/`.
fn artefacts() -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).parent().expect("target dir").join("test-artefacts/map");
    std::fs::create_dir_all(&dir).expect("artefacts dir");
    dir
}

#[test]
fn chromium_draws_the_bot_a_moving_mob_and_a_walk() {
    // The mixed world (walls, a door, water, lava, a pit) under the living scenario's script.
    let peer = Peer::start_args("living", &["--world", "mixed"]);
    let map = SocketAddr::from(([127, 0, 0, 1], free_tcp_port()));
    let mut bot = Bot::start_with(peer.port, "Cartographer", &[("CLAWCRAFT_MAP", &map.to_string())]);
    bot.wait_event("spawn", SPAWN_TIMEOUT).expect("spawn event");
    let browser = Browser::start();
    browser.open(&format!("http://{map}/"));
    browser.wait_for(
        "const S = window.clawcraftMap; return S && S.frames > 1 && S.bots.length > 0 && S.bots[0].pos != null",
        "frames with the bot",
    );
    let columns = browser.eval("return window.clawcraftMap.tiles.size");
    assert!(columns.as_u64().is_some_and(|n| n > 0), "columns drawn: {columns}");
    // Every request the page makes from now on is counted.
    browser
        .eval("window.posts = 0; const f = window.fetch; window.fetch = (...a) => { window.posts++; return f(...a); }");
    // The side panel, from the stream: status, vitals, inventory; then the script's hurt.
    let panel = "const t = (id) => document.getElementById(id).textContent; \
         return t('status').includes('spawned') && t('vitals').includes('maxHealth') && t('inventory').length > 0 \
         && {status: t('status'), vitals: t('vitals'), inventory: t('inventory')}";
    let shown = browser.wait_for(panel, "status, vitals and inventory in the panel");
    assert!(shown["status"].as_str().is_some_and(|s| s.contains("chunks")), "{shown}");
    browser.wait_for(
        "const d = [...document.querySelectorAll('#vitals dt')].find(d => d.textContent === 'health'); \
         return d && d.nextElementSibling.textContent === '14'",
        "the hurt (health 14) in the panel",
    );

    // The zombie: frozen where the page last drew it, screenshot, then again after it walked.
    let zombie_script = "const S = window.clawcraftMap; const z = S.entities.find(e => e.kind === 'minecraft:zombie'); \
         return z ? {x: z.pos[0], z: z.pos[2], screen: S.toScreen(z.pos[0], z.pos[2])} : null";
    browser.wait_for(zombie_script, "the zombie");
    browser.eval("window.clawcraftMap.pause(true)");
    let first = browser.eval(zombie_script);
    let bot_at =
        browser.eval("const S = window.clawcraftMap; const b = S.bots[0]; return S.toScreen(b.pos[0], b.pos[2])");
    let shot1 = browser.screenshot("1-bot-and-zombie");
    assert!(shot1.shows(&bot_at, WHITE), "the bot is drawn white at its position: {}", shot1.describe(&bot_at));
    assert!(shot1.shows(&first["screen"], HOSTILE), "the zombie is drawn red: {}", shot1.describe(&first["screen"]));
    browser.eval("window.clawcraftMap.pause(false)");
    // The script walks it 15 blocks south over 3 s: wait until the page has it 2 blocks on.
    let z0 = first["z"].as_f64().expect("z");
    browser.wait_for(&format!("const S = window.clawcraftMap; const z = S.entities.find(e => e.kind === 'minecraft:zombie'); return z && Math.abs(z.pos[2] - ({z0})) >= 2"), "the zombie walking");
    browser.eval("window.clawcraftMap.pause(true)");
    let second = browser.eval(zombie_script);
    let shot2 = browser.screenshot("2-zombie-moved");
    assert!(
        shot2.shows(&second["screen"], HOSTILE),
        "the zombie drawn where it went: {}",
        shot2.describe(&second["screen"])
    );
    assert!(
        !shot2.shows(&first["screen"], HOSTILE),
        "and no longer where it was: {}",
        shot2.describe(&first["screen"])
    );
    let moved = (second["screen"]["y"].as_f64().expect("y") - first["screen"]["y"].as_f64().expect("y")).abs();
    assert!(moved >= 16.0, "moved {moved} px on the screen between the screenshots");
    browser.eval("window.clawcraftMap.pause(false)");

    // Seconds of a live panel, and the page sent nothing for it.
    assert_eq!(browser.eval("return window.posts"), json!(0), "the panel polls no command");

    // A walk typed into the command box, as an agent would send it.
    let walk = json!({"action":"walk","x":12.5,"y":-60,"z":0.5,"id":"from-the-page"}).to_string();
    let line = browser.element("#line");
    browser.session_call("POST", &format!("/element/{line}/clear"), Some(json!({})));
    browser.session_call("POST", &format!("/element/{line}/value"), Some(json!({"text": walk})));
    let send = browser.element("#send");
    browser.session_call("POST", &format!("/element/{send}/click"), Some(json!({})));
    let answer = browser.wait_for("return window.clawcraftMap.lastAnswer", "the walk's answer");
    assert_eq!(browser.eval("return window.posts"), json!(1), "the command box's line, once");
    assert_eq!(answer["id"], "from-the-page", "{answer}");
    assert!(answer["code"].is_null(), "the walk started: {answer}");
    browser.wait_for(
        "const b = window.clawcraftMap.bots[0]; return b.path.length >= 4 && b.target != null",
        "a path on the map",
    );
    browser.eval("window.clawcraftMap.pause(true)");
    let path = browser.eval(
        "const S = window.clawcraftMap; const b = S.bots[0]; const m = b.path[Math.floor(b.path.length / 2)]; \
         return {mid: S.toScreen(m[0], m[2]), bot: S.toScreen(b.pos[0], b.pos[2]), n: b.path.length}",
    );
    let shot3 = browser.screenshot("3-walk-path");
    assert!(shot3.shows(&path["mid"], PATH), "the path is drawn through its steps: {}", shot3.describe(&path["mid"]));
    assert!(shot3.shows(&path["bot"], WHITE), "with the bot on it: {}", shot3.describe(&path["bot"]));
    browser.eval("window.clawcraftMap.pause(false)");
    bot.wait(|v| v["type"] == "walk_done" || v["type"] == "action_done", WAIT).expect("the walk ends");
}
