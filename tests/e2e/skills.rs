//! End-to-end skills: the real `clawcraft` binary against the bedrock-protocol peer. The
//! shipped skills (`skill/skills/*.json`) are defined as an agent would send them, trialled in
//! the peer's living world and promoted on evidence the peer confirms (where the bot walked, the
//! chat line it received); the library survives a restart through `CLAWCRAFT_SKILLS_DIR`; and a script that
//! never yields runs out of its op budget while the bot keeps sending its input at 20 Hz.

use crate::common;

use std::time::Duration;

use common::{Bot, Peer, TempDir};
use serde_json::{Value, json};

const SPAWN_TIMEOUT: Duration = Duration::from_secs(40);
const STEP: Duration = Duration::from_secs(15);

fn shipped(name: &str) -> String {
    let path = common::repo_root().join("skill/skills").join(format!("{name}.json"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Sends a request line with an id and waits for its response.
fn request_line(bot: &mut Bot, line: &str, id: &str) -> Value {
    let mut v: Value = serde_json::from_str(line).expect("json");
    v["id"] = json!(id);
    bot.send_line(&v.to_string());
    bot.wait(|r| r["type"] == "response" && r["id"] == json!(id), STEP).unwrap_or_else(|| panic!("response to {id}"))
}

/// Starts a run and waits for its `skill_finished`.
fn run_to_end(bot: &mut Bot, req: Value, timeout: Duration) -> Value {
    let id = req["id"].clone();
    let r = bot.request(req, STEP).expect("response");
    assert_eq!(r["started"], true, "{r}");
    let run = r["run"].clone();
    bot.wait(|e| e["type"] == "skill_finished" && e["run"] == run, timeout)
        .unwrap_or_else(|| panic!("skill_finished of {run} ({id})"))
}

#[test]
fn shipped_skills_pass_their_trials_in_the_living_world_and_survive_a_restart() {
    let dir = TempDir::new("skills-e2e");
    let skills_dir = dir.path().join("skills");
    let skills_env = skills_dir.to_str().expect("utf-8 path").to_owned();
    let peer = Peer::start("living");
    let mut bot = Bot::start_with(peer.port, "SkillBot", &[("CLAWCRAFT_SKILLS_DIR", &skills_env)]);
    bot.wait_event("spawn", SPAWN_TIMEOUT).expect("spawn");
    bot.wait(|e| e["type"] == "player_appear" && e["name"] == "Bob", STEP).expect("Bob in view");
    bot.wait(|e| e["type"] == "player_appear" && e["name"] == "Alice", STEP).expect("Alice in view");

    // goToNearestPlayer (on `move`): first, while Bob (11 blocks west, standing) is the nearest.
    request_line(&mut bot, &shipped("goToNearestPlayer"), "d0");
    let done =
        run_to_end(&mut bot, json!({"action":"skill_trial","skill":"goToNearestPlayer"}), Duration::from_secs(30));
    assert_eq!((done["verdict"].clone(), done["status"].clone()), (json!("passed"), json!("done")), "{done}");
    assert_eq!(done["result"]["moved"], true, "{done}");
    assert!(
        done["expectedOutcome"]["observed"].as_array().is_some_and(|o| o.contains(&json!("position_delta"))),
        "{done}"
    );
    let distance = done["checks"]["observed"]["distance"].as_f64().expect("distance to the player");
    assert!(distance <= 3.0, "ended next to the player: {done}");
    let moved = bot
        .wait(
            |e| {
                e["type"] == "walk_done"
                    && e["id"].as_str().is_some_and(|id| id.starts_with("skill:goToNearestPlayer-v1-t1:"))
            },
            STEP,
        )
        .expect("the move's walk_done");
    assert_eq!(moved["status"], "done", "{moved}");
    // The server saw the bot walk there: its last input is at the skill's end position.
    let at = &done["result"]["at"];
    assert!(
        peer.wait_log(
            |p| p.iter().rev().find(|x| x["name"] == "player_auth_input").is_some_and(|x| {
                let pos = &x["params"]["position"];
                (pos["x"].as_f64().unwrap_or(0.0) - at["x"].as_f64().unwrap_or(99.0)).abs() < 0.5
                    && (pos["z"].as_f64().unwrap_or(0.0) - at["z"].as_f64().unwrap_or(99.0)).abs() < 0.5
            }),
            STEP
        ),
        "the peer's last input is at {at}"
    );

    // greetNearestPlayer: defined as shipped, trialled, promoted; the peer received the greeting.
    let def = request_line(&mut bot, &shipped("greetNearestPlayer"), "d1");
    assert_eq!((def["version"].clone(), def["state"].clone()), (json!(1), json!("candidate")), "{def}");
    let done = run_to_end(&mut bot, json!({"action":"skill_trial","skill":"greetNearestPlayer"}), STEP);
    assert_eq!((done["status"].clone(), done["verdict"].clone()), (json!("done"), json!("passed")), "{done}");
    assert_eq!(done["lifecycle"], json!({"before":"candidate","after":"promoted"}), "{done}");
    let player = done["result"]["player"].as_str().expect("greeted a player").to_owned();
    assert!(player == "Alice" || player == "Bob", "{done}");
    let said = format!("Hello, {player}!");
    assert!(
        peer.wait_log(|p| p.iter().any(|x| x["name"] == "text" && x["params"]["message"] == said.as_str()), STEP),
        "the peer received {said:?}"
    );
    bot.wait(|e| e["type"] == "skill_promoted" && e["skill"] == "greetNearestPlayer", STEP).expect("skill_promoted");
    let evidence = done["evidence"].as_str().expect("evidence path").to_owned();
    assert!(evidence.starts_with(&skills_env), "{evidence} under CLAWCRAFT_SKILLS_DIR");
    let recorded: Value =
        serde_json::from_str(&std::fs::read_to_string(&evidence).expect("evidence file")).expect("json");
    let helpers: Vec<&str> =
        recorded["helperCalls"].as_array().expect("calls").iter().filter_map(|c| c["helper"].as_str()).collect();
    assert_eq!(helpers, ["nearby", "face", "chat"]);
    // The recorded trial replays offline: same calls, same verdict.
    let report = clawcraft_skills::replay::replay(&recorded).expect("replay");
    assert!(report.matches(), "{report:?}");

    // Promoted: skill_run with other parameters.
    let run = run_to_end(
        &mut bot,
        json!({"action":"skill_run","skill":"greetNearestPlayer","parameters":{"greeting":"Good day","radius":64}}),
        STEP,
    );
    assert_eq!(run["verdict"], "passed", "{run}");

    // announceNearestBlock: find in the peer's flat world (grass at y -61), then say where.
    request_line(&mut bot, &shipped("announceNearestBlock"), "d2");
    let done = run_to_end(&mut bot, json!({"action":"skill_trial","skill":"announceNearestBlock"}), STEP);
    assert_eq!(done["verdict"], "passed", "{done}");
    assert_eq!(done["result"]["block"], "minecraft:grass_block", "{done}");
    assert_eq!(done["result"]["at"]["y"], -61, "{done}");
    assert!(
        peer.wait_log(
            |p| p.iter().any(|x| x["name"] == "text"
                && x["params"]["message"]
                    .as_str()
                    .is_some_and(|m| m.starts_with("nearest grass: minecraft:grass_block at "))),
            STEP
        ),
        "the peer received the announcement"
    );

    // A restart keeps the library: a new process on the same directory lists both, promoted.
    bot.close_stdin();
    assert!(bot.wait_exit(STEP).is_some_and(|s| s.success()), "polite exit");
    let mut again = Bot::start_with(peer.port, "SkillBot2", &[("CLAWCRAFT_SKILLS_DIR", &skills_env)]);
    again.wait_event("spawn", SPAWN_TIMEOUT).expect("spawn again");
    let list = again.request(json!({"action":"skill_list","state":"promoted"}), STEP).expect("skill_list");
    let mut names: Vec<&str> =
        list["skills"].as_array().expect("skills").iter().filter_map(|s| s["skill"].as_str()).collect();
    names.sort();
    assert_eq!(names, ["announceNearestBlock", "goToNearestPlayer", "greetNearestPlayer"], "{list}");
    let got = again.request(json!({"action":"skill_get","skill":"greetNearestPlayer"}), STEP).expect("skill_get");
    assert_eq!(
        (got["lifecycle"]["trialsPassed"].clone(), got["lifecycle"]["runsPassed"].clone()),
        (json!(1), json!(1)),
        "{got}"
    );
}

#[test]
fn an_endless_script_runs_out_of_ops_while_the_bot_keeps_its_20_hz_input() {
    let peer = Peer::start("flat");
    let mut bot = Bot::start_with(peer.port, "LoopBot", &[("CLAWCRAFT_SKILLS_DIR", "")]);
    bot.wait_event("spawn", SPAWN_TIMEOUT).expect("spawn");
    let define = json!({
        "action":"skill_define","skill":"spin","purpose":"never yields",
        "input_schema":{"type":"object","additionalProperties":false,"properties":{}},"parameters":{},
        "source":"export async function run(ctx) { ctx.pos(); while (true) {} }",
        "helper_api_version":"clawcraft-helpers/v1","helper_allowlist":["pos"],"timeout_ms":60000,
        "verifier":{"kind":"position_delta","max_distance":1},"expected_outcome":"diagnostic",
        "known_failure_modes":["op_budget"],"promotion_policy":"promote_after_passed_trial",
        "budget":{"max_ops": 16000000}
    });
    let r = bot.request(define, STEP).expect("defined");
    assert_eq!(r["version"], 1, "{r}");
    let started = bot.request(json!({"action":"skill_trial","skill":"spin"}), STEP).expect("started");
    let begun = bot.wait(|e| e["type"] == "skill_trial_started", STEP).expect("skill_trial_started");
    // While the script spins, queries are still answered.
    let pos = bot.request(json!({"action":"pos"}), STEP).expect("pos answered during the run");
    assert!(pos["pos"].is_object(), "{pos}");
    let done = bot
        .wait(|e| e["type"] == "skill_finished" && e["run"] == started["run"], Duration::from_secs(120))
        .expect("ended");
    assert_eq!(
        (done["runStatus"].clone(), done["failure"]["matchedKnownFailureModes"].clone()),
        (json!("op_budget"), json!(["op_budget"])),
        "{done}"
    );
    assert!(done["ticks"].as_u64().is_some_and(|t| t >= 20), "spread over ticks: {done}");
    let (from, to) = (begun["timestamp"].as_u64().expect("ts"), done["timestamp"].as_u64().expect("ts"));
    let inputs = peer
        .packets_named("player_auth_input")
        .iter()
        .filter(|p| p["t"].as_u64().is_some_and(|t| t > from && t < to))
        .count();
    let secs = (to - from) as f64 / 1000.0;
    let rate = inputs as f64 / secs;
    assert!(secs > 0.5 && rate >= 15.0, "{inputs} inputs in {secs:.2} s = {rate:.1}/s during the endless script");
    // The bot is still fine afterwards.
    assert_eq!(bot.request(json!({"action":"status"}), STEP).expect("status")["spawned"], true);
}
