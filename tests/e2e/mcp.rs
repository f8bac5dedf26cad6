//! End-to-end: the MCP front end driven by an independently written client — the official
//! TypeScript SDK's (`tests/mcp-client`, npm `@modelcontextprotocol/sdk`, pinned) — against the
//! bedrock-protocol peer's `living` world, over stdio (`clawcraft mcp`, launched by the client as
//! desktop MCP clients do) and over Streamable HTTP (`--mcp-http`, with a bearer token).
//!
//! The client script performs the session and reports what it saw; the assertions are here.

use crate::common;

use std::process::{Command, Stdio};
use std::sync::{Mutex, OnceLock};
use std::time::Duration;

use clawcraft_mcp::tools::{input_schema, output_schema};
use common::{Bot, Peer, TempDir, free_tcp_port, repo_root, run_tool};
use serde_json::{Value, json};

const STARTUP: Duration = Duration::from_secs(30);
const ANSWER: Duration = Duration::from_secs(10);

/// Installs the client's npm packages once per test process (idempotent script).
fn ensure_client_installed() {
    static DONE: OnceLock<()> = OnceLock::new();
    static LOCK: Mutex<()> = Mutex::new(());
    let _g = LOCK.lock().unwrap_or_else(|p| p.into_inner());
    DONE.get_or_init(|| {
        let status = Command::new("bash")
            .arg(repo_root().join("tests/mcp-client/install.sh"))
            .stdin(Stdio::null())
            .status()
            .expect("running tests/mcp-client/install.sh");
        assert!(status.success(), "MCP client install failed");
    });
}

/// Runs the client script to the end and returns its report.
fn run_client(args: &[&str], env: &[(&str, String)]) -> Value {
    run_script("client.mjs", args, env)
}

/// Runs `tests/mcp-client/<script>` to the end and returns its report.
fn run_script(script: &str, args: &[&str], env: &[(&str, String)]) -> Value {
    ensure_client_installed();
    let mut cmd = Command::new("node");
    cmd.arg(repo_root().join("tests/mcp-client").join(script))
        .args(args)
        .env_remove("CLAWCRAFT_TOKEN")
        .env_remove("BOT_USERNAME")
        .env_remove("CLAWCRAFT_MCP_HTTP")
        .stdin(Stdio::null())
        .stderr(Stdio::inherit());
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = cmd.output().expect("running node tests/mcp-client/client.mjs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let last = stdout.lines().last().unwrap_or_default();
    let v: Value = serde_json::from_str(last).unwrap_or_else(|e| panic!("client report is not JSON ({e}): {stdout}"));
    assert!(v.get("fatal").is_none() && out.status.success(), "the MCP client failed: {}", v["fatal"]);
    v["report"].clone()
}

/// The `## Loop` section of the skill, which the `play` prompt must carry.
fn skill_loop() -> String {
    let skill = std::fs::read_to_string(repo_root().join("skill/SKILL.md")).expect("SKILL.md");
    let body = skill.split("\n## Loop\n").nth(1).expect("SKILL.md has a Loop section");
    body.split("\n## ").next().unwrap_or_default().trim().to_owned()
}

/// What both transports must show.
fn check_session(report: &Value, peer: &Peer, mode: &str) {
    assert_eq!(report["errors"], json!([]), "the client saw protocol errors (non-MCP output?): {}", report["errors"]);
    assert_eq!(report["server"]["name"], "clawcraft");
    let caps = &report["capabilities"];
    assert!(caps["tools"].is_object() && caps["prompts"].is_object(), "{caps}");
    assert_eq!(caps["resources"]["subscribe"], true, "{caps}");

    // --- tools/list is the registry: the same commands as `schema`, with their schemas --------
    let schema = &report["schema"];
    assert_eq!(schema["isError"], false, "{schema}");
    let commands = schema["structured"]["commands"].as_array().expect("schema commands");
    let tools = report["tools"].as_array().expect("tools");
    let mut tool_names: Vec<&str> = tools.iter().filter_map(|t| t["name"].as_str()).collect();
    let mut command_names: Vec<&str> = commands.iter().filter_map(|c| c["name"].as_str()).collect();
    tool_names.sort_unstable();
    command_names.sort_unstable();
    assert_eq!(tool_names, command_names, "tools/list must list exactly the registered commands");
    for name in ["pos", "scan", "chat", "move", "schema", "status", "vitals"] {
        assert!(tool_names.contains(&name), "no tool {name}");
    }
    for c in commands {
        let name = c["name"].as_str().expect("name");
        let tool = tools.iter().find(|t| t["name"] == name).expect("tool");
        let description = tool["description"].as_str().unwrap_or_default();
        assert!(description.starts_with(c["summary"].as_str().unwrap_or("?")), "{name}: {description}");
        assert_eq!(
            tool["inputSchema"],
            Value::Object(input_schema(&c["params"], c["perBot"] == true, c.get("async").is_some())),
            "{name}'s input schema"
        );
        assert_eq!(tool["outputSchema"], Value::Object(output_schema(&c["response"])), "{name}'s output schema");
        assert_eq!(tool["annotations"]["readOnlyHint"], c["query"], "{name}: queries are read-only");
        if let Some(a) = c.get("async") {
            assert_eq!(tool["_meta"]["clawcraft/async"], *a, "{name}'s async info");
            assert!(description.contains(a["completionEvent"].as_str().unwrap_or("?")), "{description}");
        }
    }

    // --- calls through the command path -------------------------------------------------------
    let pos = &report["pos"];
    assert_eq!(pos["isError"], false, "{pos}");
    for axis in ["x", "y", "z"] {
        assert!(pos["structured"]["pos"][axis].is_number(), "{pos}");
    }
    assert_eq!(pos["meta"]["clawcraft/id"], "mcp-pos", "the id given as an argument is the request id");
    let line: Value = serde_json::from_str(pos["text"][0].as_str().unwrap_or_default()).expect("text is the line");
    assert_eq!((&line["type"], &line["id"]), (&json!("response"), &json!("mcp-pos")), "{line}");
    for axis in ["x", "y", "z"] {
        assert_eq!(line["pos"][axis].as_f64(), pos["structured"]["pos"][axis].as_f64(), "the text is the same answer");
    }

    let scan = &report["scan"]["structured"];
    assert_eq!(report["scan"]["isError"], false, "{}", report["scan"]);
    assert_eq!(
        (scan["total"].as_u64(), scan["loaded"].as_bool(), scan["loadedCells"].as_u64()),
        (Some(27), Some(true), Some(27)),
        "3×3×3 cells, every one loaded (ClawCraft's boolean): {scan}"
    );

    // --- pictures: image content a multimodal client shows, besides the text -----------------
    for (key, size) in [("render", (32, 24)), ("mapImage", (72, 72))] {
        let r = &report[key];
        assert_eq!(r["isError"], false, "{key}: {r}");
        let images = r["images"].as_array().unwrap_or_else(|| panic!("{key}: {r}"));
        assert_eq!(images.len(), 1, "{key}: one image content: {r}");
        let img = &images[0];
        assert_eq!(img["mimeType"], "image/png", "{key}: {img}");
        assert_eq!(img["signature"], "89504e470d0a1a0a", "{key}: a PNG: {img}");
        assert_eq!((img["width"].as_u64(), img["height"].as_u64()), (Some(size.0), Some(size.1)), "{key}: {img}");
        assert_eq!(img["sameAsStructured"], true, "{key}: the structured answer carries the same PNG");
        assert_eq!(
            (r["structured"]["width"].as_u64(), r["structured"]["height"].as_u64()),
            (Some(size.0), Some(size.1))
        );
        assert!(r["structured"]["pngChars"].as_u64().unwrap_or(0) > 100, "{key}: {r}");
        let text: Value = serde_json::from_str(r["text"][0].as_str().unwrap_or_default()).expect("text is a line");
        assert_eq!(text["png_base64"], "(the image content)", "{key}: the text leaves the base64 out: {text}");
        assert_eq!(text["legend"], r["structured"]["legend"], "{key}");
    }

    let said = format!("hello over mcp {mode}");
    assert_eq!(
        report["chat"]["structured"],
        json!({"sent": true, "message": said, "delivered": "unknown"}),
        "{}",
        report["chat"]
    );
    assert!(
        peer.wait_log(|p| p.iter().any(|x| x["name"] == "text" && x["params"]["message"] == said.as_str()), ANSWER),
        "the peer got the chat Text sent through MCP"
    );

    for (key, code) in [("badParams", "INVALID_PARAMS"), ("outOfRange", "OUT_OF_RANGE")] {
        let r = &report[key];
        assert_eq!(r["isError"], true, "{key}: {r}");
        assert_eq!(r["meta"]["clawcraft/code"], code, "{key}: {r}");
        let line: Value = serde_json::from_str(r["text"][0].as_str().unwrap_or_default()).expect("error line");
        assert_eq!(line["code"], code, "the text is the error line: {line}");
    }
    let unknown = &report["unknownTool"]["thrown"];
    assert_eq!(
        (unknown["code"].as_i64(), &unknown["data"]["code"]),
        (Some(-32602), &json!("UNKNOWN_ACTION")),
        "{unknown}"
    );

    // --- resources ----------------------------------------------------------------------------
    assert_eq!(report["status"]["value"]["spawned"], true, "{}", report["status"]);
    assert_eq!(report["status"]["mimeType"], "application/json");
    assert!(report["vitals"]["value"]["health"].is_number(), "{}", report["vitals"]);
    let recent = &report["recent"]["value"];
    let recent_events = recent["events"].as_array().expect("events");
    assert_eq!(recent_events.len(), 3, "{recent}");
    assert_eq!(recent["lastSeq"], recent_events[2]["seq"], "{recent}");
    assert_eq!(report["badEventsUri"]["code"], -32602, "{}", report["badEventsUri"]);
    let first = &report["firstRead"];
    assert_eq!(first["types"][0], "startup", "the log from seq 0 starts at startup: {first}");
    assert_eq!(first["seqs"][0], 1, "{first}");
    let since = &report["since"];
    let cut = since["cut"].as_u64().expect("cut");
    assert_eq!(since["seqs"], json!((cut + 1..=cut + 5).collect::<Vec<_>>()), "resuming skips and repeats nothing");
    assert_eq!((since["lastSeq"].as_u64(), &since["more"]), (Some(cut + 5), &json!(true)), "{since}");

    // --- notifications: new events, in order, none twice ---------------------------------------
    let alice = &report["aliceChat"];
    assert_eq!(
        (&alice["from"], &alice["msg"], &alice["direct"]),
        (&json!("Alice"), &json!("hi everyone"), &json!(false))
    );
    let notes = report["notifications"].as_array().expect("notifications");
    assert!(!notes.is_empty());
    let mut previous: Option<u64> = None;
    for n in notes {
        let uri = n["uri"].as_str().expect("uri");
        let since: u64 = uri.strip_prefix("clawcraft://events?since=").and_then(|s| s.parse().ok()).expect(uri);
        if let Some(p) = previous {
            assert_eq!(since, p, "each notification starts where the previous one ended: {notes:?}");
        }
        assert!(n["lastSeq"].as_u64() > Some(since), "{n}");
        previous = n["lastSeq"].as_u64();
    }
    let seqs: Vec<u64> = report["notifiedSeqs"].as_array().expect("seqs").iter().filter_map(Value::as_u64).collect();
    assert!(seqs.windows(2).all(|w| w[1] == w[0] + 1), "no gaps: {seqs:?}");
    // A subscription to `?types=msg` gets chat only (Alice's line among it), in its own
    // notifications; one to a misspelt type is refused with the close name.
    let typed = report["typedNotifications"].as_array().expect("typed notifications");
    let typed_types: Vec<&str> =
        typed.iter().flat_map(|n| n["types"].as_array().expect("types")).filter_map(Value::as_str).collect();
    assert!(!typed_types.is_empty() && typed_types.iter().all(|t| *t == "msg"), "only chat: {typed:?}");
    assert!(
        typed.iter().all(|n| n["uri"].as_str().is_some_and(|u| u.ends_with("&types=msg"))),
        "read back with the same filter: {typed:?}"
    );
    let bad = &report["badTypedSubscription"];
    assert_eq!(bad["code"], -32602, "{bad}");
    assert!(bad["message"].as_str().is_some_and(|m| m.contains("did you mean: msg")), "{bad}");

    // --- async actions -------------------------------------------------------------------------
    let waited = &report["moveWaited"];
    assert_eq!((&waited["isError"], &waited["structured"]["moving"]), (&json!(false), &json!(true)), "{waited}");
    let done = &waited["meta"]["clawcraft/completion"];
    assert_eq!(done["type"], "walk_done", "with a progress token the call waits for the completion: {waited}");
    assert_eq!((&done["id"], &done["status"]), (&json!(format!("mcp-walk-{mode}-1")), &json!("done")), "{done}");
    let progress = waited["progress"].as_array().expect("progress");
    assert!(!progress.is_empty() && progress[0]["progress"] == 0, "progress was reported: {progress:?}");
    let asynch = &report["moveAsync"];
    assert_eq!(asynch["structured"]["moving"], true, "{asynch}");
    assert!(asynch["meta"].get("clawcraft/completion").is_none(), "without a token the call answers at once");
    assert_eq!(
        (&asynch["done"]["id"], &asynch["done"]["status"]),
        (&json!(format!("mcp-walk-{mode}-2")), &json!("done"))
    );

    // --- the play prompt -----------------------------------------------------------------------
    assert!(
        report["prompts"].as_array().is_some_and(|p| p.iter().any(|p| p["name"] == "play")),
        "{}",
        report["prompts"]
    );
    let text = report["prompt"]["messages"][0]["content"]["text"].as_str().unwrap_or_default();
    assert!(text.contains(&skill_loop()), "the play prompt carries the skill's loop: {text}");
    assert!(text.contains("find the cow"), "{text}");
}

#[test]
fn mcp_over_stdio_with_the_typescript_sdk_client() {
    let peer = Peer::start("living");
    let dir = TempDir::new("mcp-stdio");
    let events = dir.path().join("events.jsonl");
    let env = [
        ("HOST", "127.0.0.1".to_owned()),
        ("PORT", peer.port.to_string()),
        ("USERNAME", "McpStdio".to_owned()),
        // The living script kills the bot at 9.5 s; the client walks once it is back.
        ("CLAWCRAFT_RESPAWN", "true".to_owned()),
        ("CLAWCRAFT_EVENTS", events.display().to_string()),
        ("CLAWCRAFT_PORT", free_tcp_port().to_string()),
        ("RUST_LOG", std::env::var("RUST_LOG").unwrap_or_else(|_| "warn".into())),
    ];
    let report = run_client(&["stdio", env!("CARGO_BIN_EXE_clawcraft")], &env);
    check_session(&report, &peer, "stdio");
    assert_eq!(report["subscription"], "clawcraft://events");
    // The client closed stdio: the bot left politely (its last event is `shutdown`).
    let last = std::fs::read_to_string(&events).unwrap_or_default().lines().last().map(String::from);
    let last: Value = serde_json::from_str(last.as_deref().unwrap_or("null")).unwrap_or(Value::Null);
    assert_eq!(last["type"], "shutdown", "last event in the file: {last}");
}

#[test]
fn mcp_over_http_beside_stdin_with_a_bearer_token() {
    let peer = Peer::start("living");
    let addr = format!("127.0.0.1:{}", free_tcp_port());
    let token = "mcp-test-token";
    let env = [("CLAWCRAFT_MCP_HTTP", addr.as_str()), ("CLAWCRAFT_TOKEN", token), ("CLAWCRAFT_RESPAWN", "true")];
    let mut bot = Bot::start_with(peer.port, "McpHttp", &env);
    // The listener is bound before the app starts, so it is up once `startup` is out.
    bot.wait_event("startup", STARTUP).expect("startup");
    let url = format!("http://{addr}/mcp");
    let report = run_client(&["http", &url, token], &[]);
    let denied = &report["unauthorized"];
    assert_eq!((&denied["status"], &denied["body"]["code"]), (&json!(401), &json!("UNAUTHORIZED")), "{denied}");
    check_session(&report, &peer, "http");
    assert_eq!(report["subscription"], "clawcraft://events?since=0");
    assert_eq!(report["notifiedSeqs"][0], 1, "a subscription from seq 0 replays the log first");

    // stdin/stdout keep working beside MCP, and MCP answers never reach stdout.
    let r = bot.request(json!({"action": "pos"}), ANSWER).expect("pos over stdin");
    assert!(r["pos"]["x"].is_number(), "{r}");
    assert!(
        !bot.seen.iter().any(|v| v["type"] == "response" && v["id"] == "mcp-pos"),
        "an MCP call's response went to stdout"
    );
    assert!(bot.seen.iter().any(|v| v["type"] == "msg" && v["from"] == "Alice"), "events still reach stdout");
}

/// Two bots in one process: every tool of one bot takes `bot`, an unaddressed call is
/// `BOT_REQUIRED`, each bot has its own status, vitals and events resources, and an events read
/// or subscription with `bot` carries only that bot's events and the process's own.
#[test]
fn mcp_addresses_each_bot_of_a_swarm() {
    let peer = Peer::start("flat");
    let addr = format!("127.0.0.1:{}", free_tcp_port());
    let token = "mcp-swarm-token";
    let swarm = json!({"bots": ["McpAnn", "McpBob"]}).to_string();
    let env = [("CLAWCRAFT_MCP_HTTP", addr.as_str()), ("CLAWCRAFT_TOKEN", token), ("CLAWCRAFT_SWARM", swarm.as_str())];
    let mut bot = Bot::start_with(peer.port, "McpAnn", &env);
    bot.wait_event("startup", STARTUP).expect("startup");
    let url = format!("http://{addr}/mcp");
    let r = run_script("swarm.mjs", &[&url, token, "McpAnn", "McpBob"], &[]);
    assert_eq!(r["errors"], json!([]), "client errors");

    let names: Vec<&str> =
        r["bots"]["bots"].as_array().expect("bots").iter().filter_map(|b| b["name"].as_str()).collect();
    assert_eq!(names, ["McpAnn", "McpBob"]);
    assert_eq!((&r["posTakesBot"], &r["schemaTakesBot"]), (&json!(true), &json!(false)), "only a bot's tools take bot");
    let resources = r["resources"].as_array().expect("resources");
    for uri in [
        "clawcraft://bots",
        "clawcraft://status?bot=McpAnn",
        "clawcraft://vitals?bot=McpBob",
        "clawcraft://events?bot=McpBob",
    ] {
        assert!(resources.contains(&json!(uri)), "no resource {uri}: {resources:?}");
    }
    assert!(
        r["templates"].as_array().is_some_and(|t| t.contains(&json!("clawcraft://status{?bot}"))),
        "{}",
        r["templates"]
    );

    let unaddressed = &r["posUnaddressed"];
    assert_eq!(unaddressed["isError"], true, "{unaddressed}");
    assert_eq!(unaddressed["meta"]["clawcraft/code"], "BOT_REQUIRED");
    assert_eq!(r["posWrong"]["meta"]["clawcraft/code"], "UNKNOWN_BOT", "{}", r["posWrong"]);
    assert_eq!(r["botNotString"]["thrown"]["code"], -32602, "{}", r["botNotString"]);
    let (a, b) = (&r["posA"]["structured"]["pos"], &r["posB"]["structured"]["pos"]);
    assert!(a["x"].is_number() && b["x"].is_number(), "both answered: {a} {b}");
    assert_eq!(r["chatB"]["isError"], false, "{}", r["chatB"]);
    assert_eq!(r["statusA"]["spawned"], true, "{}", r["statusA"]);
    assert!(r["vitalsB"]["health"].is_number(), "{}", r["vitalsB"]);

    // Events: each names its bot; a read for one bot has none of the other's.
    let all = r["eventsAll"].as_array().expect("events");
    let spawns: Vec<&str> = all.iter().filter(|e| e["type"] == "spawn").filter_map(|e| e["bot"].as_str()).collect();
    assert!(spawns.contains(&"McpAnn") && spawns.contains(&"McpBob"), "spawns: {spawns:?}");
    for (what, list) in [("read", &r["eventsA"]), ("subscription", &r["notified"])] {
        let list = list.as_array().expect("events");
        assert!(list.iter().any(|e| e["type"] == "spawn" && e["bot"] == "McpAnn"), "{what}: Ann's spawn");
        assert!(list.iter().all(|e| e["bot"] != "McpBob"), "{what} for Ann has one of Bob's: {list:?}");
    }
    // The process is still serving both (stdin is not used: a swarm needs `bot` there too).
    let answer = bot.request(json!({"action": "pos", "bot": "McpBob"}), ANSWER).expect("pos over stdin");
    assert!(answer["pos"]["x"].is_number(), "{answer}");
}

#[test]
fn mcp_http_off_loopback_needs_a_token() {
    let dir = TempDir::new("mcp-refused");
    let events = dir.path().join("events.jsonl");
    let events = events.to_str().expect("utf-8 path");
    let out = run_tool(&["--mcp-http", "0.0.0.0:4100", "--tcp", "false", "mcp"], &[("CLAWCRAFT_EVENTS", events)]);
    assert_eq!(out.status.code(), Some(2), "refused before binding anything");
    assert!(
        out.stdout.is_empty(),
        "stdout is the MCP channel in `clawcraft mcp`: {:?}",
        String::from_utf8_lossy(&out.stdout)
    );
    assert!(String::from_utf8_lossy(&out.stderr).contains("CLAWCRAFT_TOKEN"));
}
