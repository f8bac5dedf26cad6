//! Three bots in one app as a team: `team_say` from a bot or the agent reaches the other bots as
//! `team` events naming their recipient, directly with `to`, never through the server; plugins
//! send and read the channel typed; the place book (`remember`, `places`, `forget`) is shared,
//! kept on disk and read back after a restart; and every refusal has its code.

use bevy_app::{App, Update};
use bevy_ecs::prelude::*;
use clawcraft::core::{Answer, BotCommands, LocalBot};
use clawcraft::sim::{SIM_RUNTIME_ID, Simulation};
use clawcraft::simworld::SimWorld;
use clawcraft::team::{PlaceBook, Team, TeamMessage, TeamPlugin, TeamSay, TeamSettings};
use serde_json::{Map, Value as Json, json};

const BOTS: [&str; 3] = ["ClawBot", "Ann", "Ben"];

/// ClawBot at x 0.5, Ann at x 4.5 and Ben at x -3.5, all spawned on a flat world.
fn three_bots() -> Simulation {
    let world = SimWorld::flat(1);
    let mut sim = world.spawn([0.5, -60.0, 0.5]);
    world.join_bot(&mut sim, "Ann", [4.5, -60.0, 0.5], SIM_RUNTIME_ID + 1);
    world.join_bot(&mut sim, "Ben", [-3.5, -60.0, 0.5], SIM_RUNTIME_ID + 2);
    sim.tick();
    for bot in BOTS {
        sim.sent_by(bot);
    }
    sim
}

fn team_events(sim: &Simulation) -> Vec<Map<String, Json>> {
    sim.events().into_iter().filter(|e| e["type"] == "team").collect()
}

/// (recipient, from, text, to) of each `team` event.
fn team_lines(events: &[Map<String, Json>]) -> Vec<(String, Json, String, Json)> {
    events
        .iter()
        .map(|e| {
            let s = |k: &str| e[k].as_str().unwrap_or_default().to_owned();
            (s("bot"), e["from"].clone(), s("text"), e["to"].clone())
        })
        .collect()
}

/// Names of every chat-like packet (`text`, `command_request`) the bots sent since the last look.
fn chat_packets(sim: &mut Simulation) -> Vec<String> {
    let mut out = Vec::new();
    for bot in BOTS {
        for (name, _) in sim.sent_by(bot).into_iter().flatten() {
            if name == "text" || name == "command_request" {
                out.push(format!("{bot}: {name}"));
            }
        }
    }
    out
}

fn code(r: &Map<String, Json>) -> &str {
    r.get("code").and_then(Json::as_str).unwrap_or_else(|| panic!("an error: {r:?}"))
}

#[test]
fn team_say_reaches_the_other_bots_as_team_events_and_never_the_server() {
    let mut sim = three_bots();
    let r = sim.command(r#"{"action":"team_say","bot":"Ann","text":"log at 3 -60 4 is mine","id":"t1"}"#);
    assert_eq!(
        Json::Object(r.clone()),
        json!({"type": "response", "id": "t1", "sent": true, "from": "Ann", "to": null, "recipients": ["Ben", "ClawBot"]})
    );
    let text = "log at 3 -60 4 is mine".to_owned();
    assert_eq!(
        team_lines(&team_events(&sim)),
        [
            ("Ben".to_owned(), json!("Ann"), text.clone(), Json::Null),
            ("ClawBot".to_owned(), json!("Ann"), text, Json::Null)
        ],
        "one event per recipient, naming it; none for the sender"
    );

    // From the agent (no `bot` while three run): everyone, `from` null.
    let r = sim.command(r#"{"action":"team_say","text":"regroup"}"#);
    assert_eq!((r["from"].clone(), r["recipients"].clone()), (Json::Null, json!(["Ann", "Ben", "ClawBot"])));
    // Direct: one recipient, named in `to` with its own spelling.
    let r = sim.command(r#"{"action":"team_say","bot":"Ben","to":"clawbot","text":"follow me"}"#);
    assert_eq!((r["to"].clone(), r["recipients"].clone()), (json!("ClawBot"), json!(["ClawBot"])));
    let lines = team_lines(&team_events(&sim));
    assert_eq!(lines.len(), 2 + 3 + 1, "{lines:?}");
    assert_eq!(lines[2..5].iter().map(|l| l.0.as_str()).collect::<Vec<_>>(), ["Ann", "Ben", "ClawBot"]);
    assert!(lines[2..5].iter().all(|l| l.1.is_null() && l.2 == "regroup"));
    assert_eq!(lines[5], ("ClawBot".to_owned(), json!("Ben"), "follow me".to_owned(), json!("ClawBot")));

    sim.ticks(3);
    assert_eq!(chat_packets(&mut sim), Vec::<String>::new(), "the team channel never touches server chat");
    assert!(sim.events().iter().all(|e| e["type"] != "msg"), "nor does it come back as chat");

    // The schema describes the command and the event from the same types.
    let s = sim.command(r#"{"action":"schema","command":"team_say"}"#);
    let params = &s["commands"][0]["params"]["properties"];
    assert!(params.get("text").is_some() && params.get("to").is_some(), "{params}");
    let s = sim.command(r#"{"action":"schema","event":"team"}"#);
    let fields = s["events"][0]["fields"]["properties"].as_object().expect("fields");
    assert_eq!(fields.keys().collect::<Vec<_>>(), ["from", "text", "to"]);
}

#[test]
fn team_say_refusals_have_stable_codes_and_send_nothing() {
    let mut sim = three_bots();
    let before = team_events(&sim).len();
    let r = sim.command(r#"{"action":"team_say","bot":"Ann","text":"  "}"#);
    assert_eq!(code(&r), "INVALID_PARAMS");
    let long = "x".repeat(501);
    let r = sim.command(&format!(r#"{{"action":"team_say","bot":"Ann","text":"{long}"}}"#));
    assert_eq!((code(&r), r["error"].as_str()), ("OUT_OF_RANGE", Some("text is 501 characters (at most 500)")));
    let r = sim.command(r#"{"action":"team_say","bot":"Ann","to":"Bem","text":"hi"}"#);
    assert_eq!((code(&r), r["error"].as_str()), ("UNKNOWN_BOT", Some("Unknown bot: Bem (did you mean: Ben)")));
    let r = sim.command(r#"{"action":"team_say","bot":"Ann","to":"ann","text":"hi"}"#);
    assert_eq!(code(&r), "INVALID_PARAMS", "not to itself: {r:?}");
    let r = sim.command(r#"{"action":"team_say","bot":"Anne","text":"hi"}"#);
    assert_eq!(code(&r), "UNKNOWN_BOT", "an unknown sender");
    let r = sim.command(r#"{"action":"team_say","bot":"Ann"}"#);
    assert_eq!((code(&r), r["error"].as_str()), ("INVALID_PARAMS", Some("Need text")));
    assert_eq!(team_events(&sim).len(), before, "nothing was sent");
}

/// What the test's plugin systems saw.
#[derive(Resource, Default)]
struct Heard {
    sent: bool,
    messages: Vec<TeamMessage>,
    answers: Vec<(Entity, Result<Vec<String>, String>)>,
    said: Option<Result<Vec<String>, String>>,
}

/// On its first run: Ann says hello with [`Team`], Ben asks for a direct `team_say` through
/// [`BotCommands`].
fn speak(mut team: Team, mut commands: BotCommands, bots: Query<(Entity, &LocalBot)>, mut heard: ResMut<Heard>) {
    if heard.sent {
        return;
    }
    heard.sent = true;
    let named = |n: &str| bots.iter().find(|(_, b)| b.username == n).map(|(e, _)| e).expect("bot");
    heard.said = Some(team.say(named("Ann"), "hello from Ann").map_err(|e| e.code.to_owned()));
    commands.run(named("Ben"), TeamSay::to("Ann", "hi Ann, Ben here"));
}

fn listen(
    mut messages: MessageReader<TeamMessage>,
    mut answers: MessageReader<Answer<TeamSay>>,
    mut heard: ResMut<Heard>,
) {
    heard.messages.extend(messages.read().cloned());
    for a in answers.read() {
        let result = a.result.as_ref().map(|r| r.recipients.clone()).map_err(|e| e.code.to_owned());
        heard.answers.push((a.bot, result));
    }
}

#[test]
fn plugins_send_and_read_the_team_channel_typed() {
    let mut sim = three_bots();
    sim.app.init_resource::<Heard>().add_systems(Update, (speak, listen).chain());
    sim.ticks(4);
    let (ann, ben, claw) = (
        sim.bot_named("Ann").expect("Ann"),
        sim.bot_named("Ben").expect("Ben"),
        sim.bot_named("ClawBot").expect("ClawBot"),
    );
    let heard = sim.app.world().resource::<Heard>();
    assert_eq!(heard.said, Some(Ok(vec!["Ben".to_owned(), "ClawBot".to_owned()])), "Team::say's recipients");
    assert_eq!(heard.answers, [(ben, Ok(vec!["Ann".to_owned()]))], "the typed answer of Ben's team_say");
    let got: Vec<(Entity, Option<Entity>, &str, Option<&str>)> =
        heard.messages.iter().map(|m| (m.bot, m.sender, m.text.as_str(), m.to.as_deref())).collect();
    assert_eq!(
        got,
        [
            (ben, Some(ann), "hello from Ann", None),
            (claw, Some(ann), "hello from Ann", None),
            (ann, Some(ben), "hi Ann, Ben here", Some("Ann")),
        ],
        "each recipient's typed message, with its sender"
    );
    let lines = team_lines(&team_events(&sim));
    assert_eq!(lines.len(), 3, "the agent sees them as `team` events too: {lines:?}");
    assert_eq!(chat_packets(&mut sim), Vec::<String>::new());
}

fn temp_dir(tag: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("clawcraft-team-sim-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

#[test]
fn the_place_book_is_shared_kept_on_disk_and_read_back_after_a_restart() {
    let dir = temp_dir("restart");
    let file = dir.join("places.json");
    {
        let mut sim = three_bots();
        sim.app.insert_resource(PlaceBook::open(file.clone()));
        let r = sim.command(r#"{"action":"remember","bot":"Ann","name":"Ann's log"}"#);
        assert_eq!(code(&r), "INVALID_PARAMS", "a quote is not allowed in a name: {r:?}");
        let r = sim.command(r#"{"action":"remember","bot":"Ann","name":"Oak grove","id":"r1"}"#);
        assert_eq!(
            (r["name"].clone(), r["pos"].clone(), r["by"].clone(), r["dimension"].clone()),
            (json!("Oak grove"), json!({"x": 4.5, "y": -60.0, "z": 0.5}), json!("Ann"), json!("overworld")),
            "the addressed bot's feet: {r:?}"
        );
        assert_eq!(
            (r["replaced"].clone(), r["count"].clone(), r["persisted"].clone()),
            (json!(false), json!(1), json!(true))
        );
        let r = sim.command(r#"{"action":"remember","name":"camp","x":-20,"y":-60,"z":"3"}"#);
        assert_eq!(
            (r["by"].clone(), r["pos"]["z"].clone()),
            (Json::Null, json!(3.0)),
            "from the agent, coordinates given"
        );
        let r = sim.command(r#"{"action":"remember","name":"well","x":0,"y":-60,"z":9}"#);
        assert_eq!(r["count"], 3);
        let r = sim.command(r#"{"action":"remember","name":"WELL","x":1,"y":-60,"z":9}"#);
        assert_eq!(
            (r["replaced"].clone(), r["name"].clone(), r["count"].clone()),
            (json!(true), json!("WELL"), json!(3))
        );

        // Nearest first from Ben (x -3.5): camp (16.5), WELL (~9.5), Oak grove (8).
        let r = sim.command(r#"{"action":"places","near":"ben"}"#);
        let order: Vec<(&str, f64)> = r["places"]
            .as_array()
            .expect("places")
            .iter()
            .map(|p| (p["name"].as_str().unwrap_or_default(), p["distance"].as_f64().unwrap_or(-1.0)))
            .collect();
        assert_eq!(order, [("Oak grove", 8.0), ("WELL", 9.62), ("camp", 16.69)], "{r:?}");
        assert_eq!(r["near"], "Ben");
        let r = sim.command(r#"{"action":"places","limit":1}"#);
        assert_eq!((r["places"][0]["name"].clone(), r["count"].clone()), (json!("camp"), json!(3)), "name order, cut");
        assert!(r["places"][0].get("distance").is_none());
        let r = sim.command(r#"{"action":"forget","name":"Camp"}"#);
        assert_eq!((r["forgot"]["name"].clone(), r["count"].clone()), (json!("camp"), json!(2)));
        let r = sim.command(r#"{"action":"forget","name":"camp"}"#);
        assert_eq!(
            (code(&r), r["error"].as_str()),
            ("UNKNOWN_PLACE", Some("No place named camp (places: Oak grove, WELL)"))
        );
    }
    let saved: Json = serde_json::from_str(&std::fs::read_to_string(&file).expect("on disk")).expect("JSON");
    assert_eq!(saved["places"].as_array().map(Vec::len), Some(2), "{saved}");

    // A restart: the plugin opens the book from its settings at start-up.
    let mut app = App::new();
    app.add_plugins(TeamPlugin).insert_resource(TeamSettings { places: Some(file.clone()) });
    app.finish();
    let names: Vec<String> = app.world().resource::<PlaceBook>().iter().map(|p| p.name.clone()).collect();
    assert_eq!(names, ["Oak grove", "WELL"]);

    // And a whole harness again, answering from it.
    let mut sim = three_bots();
    sim.app.insert_resource(PlaceBook::open(file.clone()));
    let r = sim.command(r#"{"action":"places"}"#);
    let listed: Vec<(&str, &Json)> = r["places"]
        .as_array()
        .expect("places")
        .iter()
        .map(|p| (p["name"].as_str().unwrap_or_default(), &p["by"]))
        .collect();
    assert_eq!(listed, [("Oak grove", &json!("Ann")), ("WELL", &Json::Null)]);
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn place_book_refusals_say_what_is_missing() {
    let mut sim = three_bots();
    let r = sim.command(r#"{"action":"remember","name":"here"}"#);
    assert_eq!(code(&r), "BOT_REQUIRED", "three bots, no `bot`, no coordinates: {r:?}");
    assert!(r["error"].as_str().unwrap_or_default().contains("(Ann, Ben, ClawBot)"), "{r:?}");
    let r = sim.command(r#"{"action":"remember","name":"here","x":1,"z":2}"#);
    assert_eq!(
        (code(&r), r["error"].as_str()),
        ("INVALID_PARAMS", Some("Need x, y, z (all three), or none for the bot's position"))
    );
    let r = sim.command(r#"{"action":"remember","name":"far","x":1e9,"y":0,"z":0}"#);
    assert_eq!(code(&r), "OUT_OF_RANGE");
    let r = sim.command(r#"{"action":"remember","name":"","x":1,"y":0,"z":0}"#);
    assert_eq!(code(&r), "INVALID_PARAMS");
    let r = sim.command(r#"{"action":"forget","name":"nothing"}"#);
    assert_eq!(
        (code(&r), r["error"].as_str()),
        ("UNKNOWN_PLACE", Some("No place named nothing (the place book is empty)"))
    );
    let r = sim.command(r#"{"action":"places","near":"Bem"}"#);
    assert_eq!(code(&r), "UNKNOWN_BOT");
    let r = sim.command(r#"{"action":"places","limit":0}"#);
    assert_eq!(code(&r), "OUT_OF_RANGE");
    // A bot that has not spawned has no position to remember.
    sim.add_bot("Cat", false);
    let r = sim.command(r#"{"action":"remember","bot":"Cat","name":"cat spot"}"#);
    assert_eq!(code(&r), "NOT_SPAWNED");
    assert!(sim.app.world().resource::<PlaceBook>().is_empty(), "nothing was stored");
    assert!(sim.app.world().resource::<PlaceBook>().path().is_none(), "a simulation's book lives in memory");
}

#[test]
fn a_corrupt_place_book_is_kept_aside_and_the_process_starts_empty() {
    let dir = temp_dir("corrupt");
    std::fs::create_dir_all(&dir).expect("dir");
    let file = dir.join("places.json");
    std::fs::write(&file, "{\"version\":1,\"places\":[").expect("written");
    let mut sim = three_bots();
    sim.allow_warnings = true;
    let warnings = sim.warnings();
    sim.app.insert_resource(PlaceBook::open(file.clone()));
    assert!(sim.warnings() > warnings, "the problem is logged");
    let r = sim.command(r#"{"action":"places"}"#);
    assert_eq!((r["count"].clone(), r["places"].clone()), (json!(0), json!([])));
    let bak = dir.join("places.json.bak");
    assert_eq!(std::fs::read_to_string(&bak).expect("kept"), "{\"version\":1,\"places\":[");
    let r = sim.command(r#"{"action":"remember","name":"fresh","x":0,"y":-60,"z":0}"#);
    assert_eq!(r["persisted"], true);
    let reread = PlaceBook::open(file);
    assert_eq!(reread.iter().map(|p| p.name.as_str()).collect::<Vec<_>>(), ["fresh"]);
    let _ = std::fs::remove_dir_all(dir);
}
