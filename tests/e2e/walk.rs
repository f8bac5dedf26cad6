//! End-to-end walking: the real binary against the peer, which checks movement like a
//! server-authoritative server (integrates the inputs, rejects implausible ones with
//! CorrectPlayerMovePrediction, logs each authoritative position). A 20-block `walk` across the
//! mixed map arrives — the peer's position within 0.5 block of the goal — with zero corrections;
//! a position the peer refuses (a client-side `setpos` jump) is corrected once and the bot
//! re-syncs instead of fighting it; `stop` ends a walk with its `aborted` receipt; a walk near a block by name arrives. Prints the walking figures (speed, input interval jitter,
//! corrections per 100 blocks) for the README.

use crate::common;

use std::time::Duration;

use common::{Bot, Peer};
use serde_json::{Value, json};

const SPAWN_TIMEOUT: Duration = Duration::from_secs(40);
const ANSWER: Duration = Duration::from_secs(10);

fn num(v: &Value) -> f64 {
    v.as_f64().or_else(|| v.as_str().and_then(|s| s.parse().ok())).unwrap_or(f64::NAN)
}

/// The peer's authoritative positions (accepted inputs), oldest first.
fn accepted(peer: &Peer) -> Vec<Value> {
    peer.packets().into_iter().filter(|p| p["name"] == "__auth_pos" && p["accepted"] == true).collect()
}

fn corrections(peer: &Peer) -> Vec<Value> {
    peer.packets().into_iter().filter(|p| p["name"] == "__auth_pos" && p["accepted"] == false).collect()
}

#[test]
fn walking_across_the_mixed_map_is_accepted_by_a_movement_checking_server() {
    let mut peer = Peer::start_args("flat", &["--world", "mixed"]);
    let mut bot = Bot::start(peer.port, "WalkBot");
    bot.wait_event("spawn", SPAWN_TIMEOUT).expect("spawn");
    // The chunks arrive around the spawn; wait until the goal is known to be reachable.
    let goal = json!({"x": 20.5, "y": -60, "z": 0.5});
    let mut ok = false;
    for _ in 0..50 {
        let r = bot.request(json!({"action":"reachable","x":20.5,"y":-60,"z":0.5}), ANSWER).expect("reachable");
        if r["reachable"] == true {
            ok = true;
            break;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    assert!(ok, "the goal becomes reachable once chunks are in");
    let started = accepted(&peer).len();
    let r = bot.request(json!({"action":"walk","x":20.5,"y":-60,"z":0.5}), ANSWER).expect("walk response");
    assert_eq!(r["walking"], true, "{r}");
    let id = r["id"].clone();
    let done = bot.wait(|v| v["type"] == "walk_done" && v["id"] == id, Duration::from_secs(40)).expect("walk_done");
    assert_eq!(done["status"], "done", "{done}");
    // The peer's own idea of where the bot is.
    assert!(peer.wait_log(|p| p.iter().filter(|x| x["name"] == "__auth_pos").count() > started + 10, ANSWER));
    let auth = accepted(&peer);
    let last = auth.last().expect("authoritative positions");
    let (px, py, pz) = (num(&last["x"]), num(&last["y"]), num(&last["z"]));
    let d = ((px - 20.5).powi(2) + (pz - 0.5).powi(2)).sqrt();
    assert!(d <= 0.5 && (py - -60.0).abs() < 0.01, "the peer has the bot at ({px}, {py}, {pz}), goal {goal}");
    assert!(corrections(&peer).is_empty(), "no corrections while walking: {:?}", corrections(&peer));
    let info = bot.request(json!({"action":"movement_info"}), ANSWER).expect("movement_info");
    assert_eq!(info["corrections"], 0, "{info}");

    // Figures: speed on the straight part, input interval jitter at the peer, corrections/100 blocks.
    let inputs: Vec<Value> = peer.packets_named("player_auth_input");
    let walk_inputs: Vec<&Value> = inputs.iter().skip(started).collect();
    let times: Vec<f64> = walk_inputs.iter().map(|x| num(&x["t"])).collect();
    let gaps: Vec<f64> = times.windows(2).map(|w| w[1] - w[0]).collect();
    let mean = gaps.iter().sum::<f64>() / gaps.len().max(1) as f64;
    let sd = (gaps.iter().map(|g| (g - mean).powi(2)).sum::<f64>() / gaps.len().max(1) as f64).sqrt();
    let walked = num(&done["distance"]);
    let ticks = num(&done["ticks"]);
    eprintln!(
        "FIGURES walk: {walked} blocks in {ticks} ticks ({:.3} b/s incl. turns); input interval at the peer: mean {mean:.1} ms, sd {sd:.1} ms, max {:.0} ms; corrections per 100 blocks: {:.1}",
        walked / ticks * 20.0,
        gaps.iter().cloned().fold(0.0, f64::max),
        corrections(&peer).len() as f64 * 100.0 / walked.max(1.0)
    );

    // A position the server refuses: the client claims to be 6 blocks away.
    std::thread::sleep(Duration::from_millis(300));
    let settled = accepted(&peer).last().cloned().expect("positions");
    let (px, pz) = (num(&settled["x"]), num(&settled["z"]));
    let before = corrections(&peer).len();
    let r = bot.request(json!({"action":"setpos","x":20.5,"y":-60,"z":6.5}), ANSWER).expect("setpos");
    assert!(r["pos"].is_object());
    let desync = bot.wait_event("position_desync", ANSWER).expect("the bot hears the correction");
    assert_eq!(desync["mode"], "correction", "{desync}");
    let server = &desync["serverPos"];
    assert!((num(&server["x"]) - px).abs() < 0.01 && (num(&server["z"]) - pz).abs() < 0.01, "{desync}");
    // Re-synced: the bot walks on from the server's position and the peer accepts it again.
    let r = bot.request(json!({"action":"walk","x":20.5,"y":-60,"z":-3.5}), ANSWER).expect("walk");
    let id = r["id"].clone();
    let done = bot.wait(|v| v["type"] == "walk_done" && v["id"] == id, Duration::from_secs(30)).expect("walk_done");
    assert_eq!(done["status"], "done", "{done}");
    std::thread::sleep(Duration::from_millis(300));
    let auth = accepted(&peer);
    let last = auth.last().expect("positions");
    assert!((num(&last["z"]) - -3.5).abs() <= 0.5, "the peer follows again: {last}");
    let new_corrections = corrections(&peer).len() - before;
    let corrected = peer.wait_line(|v| v["event"] == "movement_corrected", ANSWER);
    assert!(corrected.is_some(), "the peer did correct");
    assert!(new_corrections <= 3, "rejected inputs are only the ones in flight, not a fight: {new_corrections}");

    // `stop` ends the walk on its way back: its walk_done says aborted; a second stop finds nothing.
    let r = bot.request(json!({"action":"walk","x":0.5,"y":-60,"z":0.5}), ANSWER).expect("walk");
    assert_eq!(r["walking"], true, "{r}");
    let id = r["id"].clone();
    let r = bot.request(json!({"action":"stop"}), ANSWER).expect("stop");
    assert_eq!(
        (r["stopped"][0]["slot"].clone(), r["stopped"][0]["actionId"].clone()),
        (json!("walk"), id.clone()),
        "{r}"
    );
    let done = bot.wait(|v| v["type"] == "walk_done" && v["id"] == id, ANSWER).expect("walk_done");
    assert_eq!(done["status"], "aborted", "{done}");
    let r = bot.request(json!({"action":"stop"}), ANSWER).expect("stop");
    assert_eq!(r["stopped"], json!([]), "{r}");

    // A block target: near the map's diamond ore (two blocks under the grass at 8, -8), found in
    // the loaded chunks; the peer has the bot within range of it.
    let goal = json!({"near": {"block": "diamond_ore", "range": 3}});
    let r = bot.request(json!({"action":"walk","goal":goal}), ANSWER).expect("walk");
    assert_eq!(r["walking"], true, "{r}");
    let id = r["id"].clone();
    let done = bot.wait(|v| v["type"] == "walk_done" && v["id"] == id, Duration::from_secs(30)).expect("walk_done");
    assert_eq!((done["status"].clone(), done["met"].clone()), (json!("done"), json!(["near[0]"])), "{done}");
    let from_ore = |p: &Value| {
        ((num(&p["x"]) - 8.5).powi(2) + (num(&p["y"]) - -62.0).powi(2) + (num(&p["z"]) - -7.5).powi(2)).sqrt()
    };
    let near = |log: &[Value]| {
        log.iter().rfind(|p| p["name"] == "__auth_pos" && p["accepted"] == true).is_some_and(|p| from_ore(p) <= 3.3)
    };
    assert!(peer.wait_log(near, ANSWER), "the peer has the bot in range of the ore: {:?}", accepted(&peer).last());
    let r = bot.request(json!({"action":"path","goal":{"near":{"block":"emerald_ore"}}}), ANSWER).expect("path");
    assert_eq!(r["code"], "NOT_FOUND", "{r}");
}
