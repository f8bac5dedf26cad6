//! End-to-end online mode: the real `clawcraft` binary signs in against the loopback fake of the
//! Microsoft/Xbox/Minecraft services (in this test process) and joins the bedrock-protocol peer
//! running as an Xbox-authenticated server that trusts the fake's key (`--online-auth`), which
//! verifies the multiplayer token the bot presents; a book the online bot signs carries its XUID.

use crate::common;

use std::process::Stdio;
use std::time::Duration;

use clawcraft_auth::fake::{FakeConfig, FakeServices, SECRET_MARKER};
use common::{Bot, Peer, TempDir};
use serde_json::{Value, json};

const SPAWN_TIMEOUT: Duration = Duration::from_secs(30);

fn online_env<'a>(fake: &'a str, dir: &'a str) -> Vec<(&'static str, &'a str)> {
    vec![("OFFLINE", "false"), ("CLAWCRAFT_AUTH_DIR", dir), ("CLAWCRAFT_AUTH_BASE_URL", fake)]
}

/// The bot's stderr goes to a file we read at the end.
fn stderr_file(dir: &TempDir, name: &str) -> (std::path::PathBuf, Stdio) {
    let path = dir.path().join(name);
    let file = std::fs::File::create(&path).expect("stderr file");
    (path, Stdio::from(file))
}

#[test]
fn signs_in_with_a_device_code_joins_a_verifying_server_then_reuses_the_cached_sign_in() {
    let fake = FakeServices::start(FakeConfig::default());
    let peer = Peer::start_args("flat", &["--online-auth", &fake.base_url()]);
    let dir = TempDir::new("online-auth");
    let auth_dir = dir.path().join("auth");
    let auth_dir_str = auth_dir.to_string_lossy().into_owned();
    let base = fake.base_url();
    let mut env = online_env(&base, &auth_dir_str);
    env.push(("RUST_LOG", "debug"));

    // First run: a device code, entered by "the human".
    let (log1, stderr) = stderr_file(&dir, "bot1.log");
    let mut bot = Bot::start_full(peer.port, "OnlineBot", &env, stderr);
    let required = bot.wait_event("auth_required", SPAWN_TIMEOUT).expect("auth_required");
    assert_eq!(required["url"], "https://www.microsoft.com/link");
    let code = required["code"].as_str().expect("code is a string").to_owned();
    assert!(required["expiresIn"].as_u64().is_some_and(|s| s > 800), "{required}");
    assert!(fake.approve(&code), "the fake issued {code}");
    let ok = bot.wait_event("auth_succeeded", SPAWN_TIMEOUT).expect("auth_succeeded");
    assert_eq!((ok["gamertag"].as_str(), ok["xuid"].as_str()), (Some("Claw Fake"), Some("2535400000000001")));
    bot.wait_event("spawn", SPAWN_TIMEOUT).expect("spawned on the online server");

    // The server verified the OIDC token: authenticated, by the fake's issuer, as the gamertag.
    let logins = peer.packets_named("login");
    assert_eq!(logins.len(), 1, "{logins:?}");
    let login = &logins[0];
    assert_eq!(login["username"], "Claw Fake");
    assert_eq!(login["xuid"], "2535400000000001");
    assert_eq!(login["authentication"]["authenticated"], true, "{login}");
    assert_eq!(login["authentication"]["method"], "oidc");
    let identity = &login["params"]["tokens"]["identity"];
    assert_eq!(identity["AuthenticationType"], 0);
    let chain: Value = serde_json::from_str(identity["Certificate"].as_str().expect("certificate")).expect("json");
    assert_eq!(chain["chain"].as_array().map(Vec::len), Some(3), "own link + the service's two");
    let status = bot.request(json!({"action": "status"}), Duration::from_secs(5)).expect("status");
    assert_eq!(status["username"], "Claw Fake", "the in-game name is the gamertag");
    bot.close_stdin();
    assert!(bot.wait_exit(Duration::from_secs(10)).expect("exits").success());
    let first_run = bot.seen.clone();

    // The token cache is one owner-only file.
    let files: Vec<_> = std::fs::read_dir(&auth_dir).expect("auth dir").filter_map(Result::ok).collect();
    assert_eq!(files.len(), 1, "{files:?}");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        assert_eq!(files[0].metadata().expect("meta").permissions().mode() & 0o777, 0o600);
    }

    // Second run: silent, from the cache.
    let (log2, stderr) = stderr_file(&dir, "bot2.log");
    let mut bot = Bot::start_full(peer.port, "OnlineBot", &env, stderr);
    bot.wait_event("auth_succeeded", SPAWN_TIMEOUT).expect("auth_succeeded from the cache");
    bot.wait_event("spawn", SPAWN_TIMEOUT).expect("spawned again");
    assert!(bot.seen.iter().all(|v| v["type"] != "auth_required"), "no second device code");
    assert_eq!(fake.count("/oauth20_connect.srf"), 1);
    assert_eq!(peer.packets_named("login").len(), 2);
    assert_eq!(fake.count("/api/v1.0/multiplayer/session/start"), 2, "a token per connection");
    bot.close_stdin();
    assert!(bot.wait_exit(Duration::from_secs(10)).expect("exits").success());

    // No token in stdout, the events files or the logs (debug level).
    let mut texts: Vec<String> = first_run.iter().chain(&bot.seen).map(Value::to_string).collect();
    for log in [log1, log2] {
        texts.push(std::fs::read_to_string(log).expect("log"));
    }
    for text in &texts {
        assert!(!text.contains(SECRET_MARKER), "a token leaked: {text}");
    }
    assert!(texts[texts.len() - 2].contains(&code), "stderr told the human the code");
}

#[test]
fn an_offline_login_is_refused_by_the_online_server() {
    let fake = FakeServices::start(FakeConfig::default());
    let mut peer = Peer::start_args("flat", &["--online-auth", &fake.base_url()]);
    let mut bot = Bot::start(peer.port, "OfflineBot");
    let ev = bot.wait_event("disconnected", SPAWN_TIMEOUT).expect("disconnected");
    assert_eq!(ev["reason"], "Server authentication error");
    let rejected = peer.wait_line(|v| v["event"] == "login_rejected", Duration::from_secs(5)).expect("rejected");
    assert!(rejected["error"].as_str().is_some_and(|e| e.contains("Self-signed")), "{rejected}");
}

#[test]
fn a_declined_code_disconnects_and_reconnects_do_not_spam_codes() {
    let fake = FakeServices::start(FakeConfig::default());
    let dir = TempDir::new("online-declined");
    let auth_dir = dir.path().to_string_lossy().into_owned();
    let base = fake.base_url();
    let mut env = online_env(&base, &auth_dir);
    env.push(("CLAWCRAFT_RECONNECT", "true"));
    // No server needed: the bot never gets past signing in.
    let mut bot = Bot::start_with(common::free_udp_port(), "DeclinedBot", &env);
    let required = bot.wait_event("auth_required", SPAWN_TIMEOUT).expect("auth_required");
    assert!(fake.decline(required["code"].as_str().expect("code")));
    let ev = bot.wait_event("disconnected", SPAWN_TIMEOUT).expect("disconnected");
    assert_eq!(ev["reason"], "Xbox Live sign-in failed: the Microsoft sign-in was declined");
    bot.wait(|v| v["type"] == "reconnecting" && v["attempt"] == 1, Duration::from_secs(5)).expect("reconnecting");
    // The retry fails at once with the cool-down instead of asking the human again.
    let again = bot
        .wait(|v| v["type"] == "disconnected" && v["reason"] != ev["reason"], Duration::from_secs(10))
        .expect("second attempt");
    assert!(again["reason"].as_str().is_some_and(|r| r.contains("a new code is requested in")), "{again}");
    bot.wait(|v| v["type"] == "reconnecting" && v["attempt"] == 2, Duration::from_secs(5)).expect("still retrying");
    assert_eq!(fake.count("/oauth20_connect.srf"), 1, "one device code");
    assert_eq!(bot.seen.iter().filter(|v| v["type"] == "auth_required").count(), 1);
}

#[test]
fn auth_tools_sign_in_list_and_sign_out_without_printing_tokens() {
    let fake = FakeServices::start(FakeConfig::default());
    let dir = TempDir::new("online-tools");
    let auth_dir = dir.path().to_string_lossy().into_owned();
    let base = fake.base_url();
    let env = [
        ("CLAWCRAFT_AUTH_DIR", auth_dir.as_str()),
        ("CLAWCRAFT_AUTH_BASE_URL", base.as_str()),
        ("USERNAME", "ToolBot"),
    ];

    let (mut child, lines) = common::spawn_tool(&["auth", "login"], &env);
    let required = common::wait_value(&lines, |v| v["type"] == "auth_required", SPAWN_TIMEOUT).expect("auth_required");
    assert!(fake.approve(required["code"].as_str().expect("code")));
    let done = common::wait_value(&lines, |v| v["ok"] == true, SPAWN_TIMEOUT).expect("signed in");
    assert_eq!((done["gamertag"].as_str(), done["username"].as_str()), (Some("Claw Fake"), Some("ToolBot")));
    assert!(child.wait().expect("exit").success());

    let status = common::run_tool(&["auth", "status"], &env);
    assert!(status.status.success());
    let text = String::from_utf8_lossy(&status.stdout).into_owned();
    let v: Value = serde_json::from_str(&text).expect("status json");
    let accounts = v["accounts"].as_array().expect("accounts");
    assert_eq!(accounts.len(), 1, "{v}");
    assert_eq!(accounts[0]["username"], "ToolBot");
    assert_eq!(accounts[0]["xuid"], "2535400000000001");
    assert_eq!((accounts[0]["signedIn"].as_bool(), accounts[0]["current"].as_bool()), (Some(true), Some(true)));
    assert!(!text.contains(SECRET_MARKER), "status never prints tokens: {text}");

    let out = common::run_tool(&["auth", "logout"], &env);
    assert!(out.status.success());
    let v: Value = serde_json::from_slice(&out.stdout).expect("logout json");
    assert_eq!(v["removed"].as_array().map(Vec::len), Some(1), "{v}");
    let v: Value = serde_json::from_slice(&common::run_tool(&["auth", "status"], &env).stdout).expect("json");
    assert_eq!(v["accounts"], json!([]));
}

/// A book signed by an online bot carries the XUID its Xbox Live sign-in gave (the `Xuid` the
/// sign-in records on the bot), as the server receives it in `book_edit`.
#[test]
fn a_book_signed_online_carries_the_signed_in_xuid() {
    let fake = FakeServices::start(FakeConfig::default());
    let mut peer = Peer::start_args("writing", &["--online-auth", &fake.base_url()]);
    let dir = TempDir::new("online-book");
    let auth_dir = dir.path().to_string_lossy().into_owned();
    let base = fake.base_url();
    let mut bot = Bot::start_with(peer.port, "OnlineScribe", &online_env(&base, &auth_dir));
    let required = bot.wait_event("auth_required", SPAWN_TIMEOUT).expect("auth_required");
    assert!(fake.approve(required["code"].as_str().expect("code")));
    bot.wait_event("spawn", SPAWN_TIMEOUT).expect("spawned on the online server");
    peer.wait_line(|v| v["event"] == "writing_ready", SPAWN_TIMEOUT).expect("writing ready");
    let deadline = std::time::Instant::now() + SPAWN_TIMEOUT;
    while bot.request(json!({"action": "inventory"}), SPAWN_TIMEOUT).is_some_and(|r| r.get("code").is_some()) {
        assert!(std::time::Instant::now() < deadline, "the inventory never arrived");
        std::thread::sleep(Duration::from_millis(100));
    }

    let r = bot.ok(json!({"action": "write_book", "pages": ["Signed online"], "title": "Online"}));
    let d = bot.wait(|v| v["type"] == "book_done" && v["id"] == r["id"], SPAWN_TIMEOUT).expect("book_done");
    assert_eq!((d["status"].clone(), d["stored"]["author"].clone()), (json!("done"), json!("Claw Fake")), "{d}");
    let signed = peer.wait_line(|v| v["event"] == "book_signed", SPAWN_TIMEOUT).expect("book_signed");
    assert_eq!(
        (signed["author"].as_str(), signed["xuid"].as_str()),
        (Some("Claw Fake"), Some("2535400000000001")),
        "{signed}"
    );
}
