//! End-to-end: `clawcraft cmd --wait` over one-shot TCP against the peer. The connection stays
//! open until the walk ends and the answer carries its completion event.

use crate::common;

use std::time::{Duration, Instant};

use common::{Bot, Peer, free_tcp_port, run_tool};
use serde_json::{Value, json};

const SPAWN: Duration = Duration::from_secs(30);

#[test]
fn cmd_wait_answers_when_the_walk_ends_with_its_completion() {
    let peer = Peer::start("flat");
    let port = free_tcp_port().to_string();
    let mut bot = Bot::start_with(peer.port, "WaitBot", &[("CLAWCRAFT_PORT", &port)]);
    let spawn = bot.wait_event("spawn", SPAWN).expect("spawned");
    let (x, y, z) = (
        spawn["pos"]["x"].as_f64().unwrap_or(0.0),
        spawn["pos"]["y"].as_f64().unwrap_or(0.0),
        spawn["pos"]["z"].as_f64().unwrap_or(0.0),
    );
    let request = json!({"action": "move", "x": x + 6.0, "y": y, "z": z, "id": "w1"}).to_string();
    let started = Instant::now();
    let out = run_tool(&["cmd", "--wait", &request], &[("CLAWCRAFT_PORT", &port)]);
    let took = started.elapsed();
    assert!(out.status.success(), "{out:?}");
    let answer: Value = serde_json::from_slice(&out.stdout).expect("one JSON answer");
    assert_eq!((&answer["id"], &answer["moving"]), (&json!("w1"), &json!(true)), "{answer}");
    let done = &answer["completion"];
    assert_eq!(
        (&done["type"], &done["status"], &done["id"]),
        (&json!("walk_done"), &json!("done"), &json!("w1")),
        "{answer}"
    );
    let end_x = done["pos"]["x"].as_f64().expect("completion pos");
    assert!((end_x - (x + 6.0)).abs() < 0.5, "walked to the goal: {done}");
    // Six blocks at walking speed take over a second: the answer waited for the walk.
    assert!(took >= Duration::from_millis(1000), "answered after {took:?}");
    // The event is still emitted, once.
    let event =
        bot.wait(|v| v["type"] == "walk_done" && v["id"] == "w1", Duration::from_secs(5)).expect("walk_done event");
    assert_eq!(event["status"], "done");
    assert_eq!(bot.seen.iter().filter(|v| v["type"] == "walk_done" && v["id"] == "w1").count(), 1);

    // Without --wait: answered at once; `events --wait-id` blocks until the completion.
    let events = bot.events_path();
    let env = [("CLAWCRAFT_PORT", port.as_str()), ("CLAWCRAFT_EVENTS", events.as_str())];
    let back = json!({"action": "move", "x": x, "y": y, "z": z, "id": 77}).to_string();
    let out = run_tool(&["cmd", &back], &env);
    let answer: Value = serde_json::from_slice(&out.stdout).expect("answer");
    assert!(answer.get("completion").is_none(), "answered at once: {answer}");
    let out = run_tool(&["events", "--wait-id", "77", "--timeout", "20000"], &env);
    assert!(out.status.success(), "{out:?}");
    let done: Value = serde_json::from_slice(&out.stdout).expect("one event");
    assert_eq!(
        (&done["type"], &done["id"], &done["status"]),
        (&json!("walk_done"), &json!(77), &json!("done")),
        "{done}"
    );
    // Already in the file: answered at once, however often asked.
    let out = run_tool(&["events", "--wait-id", "w1", "--timeout", "2000"], &env);
    assert_eq!(serde_json::from_slice::<Value>(&out.stdout).expect("event")["id"], "w1");
    // The next event of a type that does not come: the wait runs out.
    let out = run_tool(&["events", "--wait-type", "death", "--timeout", "300"], &env);
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    assert!(out.stdout.is_empty());
    let err: Value = serde_json::from_slice(&out.stderr).expect("JSON error on stderr");
    assert_eq!(err["code"], "CLIENT_TIMEOUT");
}
