//! Three bots in one app, tick by tick: requests routed by bot name, events naming their bot, a
//! walk of one bot moving no other, one bot's disconnect and reconnect leaving the others
//! untouched, `bot_add`/`bot_remove`, the exit with the last bot, idle bots settling while one
//! walks, and a plugin's typed commands and answers.

use bevy_app::{AppExit, Update};
use bevy_ecs::prelude::*;
use clawcraft::core::{Answer, BotCommands, CommandId, Lifecycle, LocalBot, Position};
use clawcraft::player::commands::{Pos, PosResponse};
use clawcraft::protocol::codec::Value;
use clawcraft::protocol::packets::StartGame;
use clawcraft::sim::{SIM_RUNTIME_ID, Simulation, chat_from, start_game};
use clawcraft::simworld::SimWorld;
use serde_json::json;

/// ClawBot at x 0.5, Ann at x 4.5 and Ben at x -3.5, all spawned on a flat world.
fn three_bots() -> (SimWorld, Simulation) {
    let world = SimWorld::flat(2);
    let mut sim = world.spawn([0.5, -60.0, 0.5]);
    world.join_bot(&mut sim, "Ann", [4.5, -60.0, 0.5], SIM_RUNTIME_ID + 1);
    world.join_bot(&mut sim, "Ben", [-3.5, -60.0, 0.5], SIM_RUNTIME_ID + 2);
    sim.tick();
    for bot in ["ClawBot", "Ann", "Ben"] {
        sim.sent_by(bot);
    }
    (world, sim)
}

fn feet(sim: &mut Simulation, name: &str) -> clawcraft::core::Vec3 {
    let bot = sim.bot_named(name).unwrap_or_else(|| panic!("{name} runs"));
    sim.app.world().get::<Position>(bot).expect("spawned").0
}

/// The PlayerAuthInput packets among `batches`.
fn inputs(batches: &[Vec<(String, Value)>]) -> Vec<&Value> {
    batches.iter().flatten().filter(|(n, _)| n == "player_auth_input").map(|(_, v)| v).collect()
}

fn events_of(sim: &Simulation, kind: &str) -> Vec<serde_json::Map<String, serde_json::Value>> {
    sim.events().into_iter().filter(|e| e["type"] == kind).collect()
}

#[test]
fn requests_are_routed_by_bot_name_and_events_name_their_bot() {
    let (_, mut sim) = three_bots();
    let r = sim.command(r#"{"action":"pos","id":"p"}"#);
    assert_eq!(r["code"], "BOT_REQUIRED", "{r:?}");
    assert_eq!(r["error"], "3 bots run here: name one with \"bot\" (Ann, Ben, ClawBot)");
    let r = sim.command(r#"{"action":"pos","bot":"ann"}"#);
    assert_eq!(r["pos"]["x"], 4.5, "Ann's position, by a case-insensitive name: {r:?}");
    let r = sim.command(r#"{"action":"pos","bot":"Ben"}"#);
    assert_eq!(r["pos"]["x"], -3.5);
    let r = sim.command(r#"{"action":"pos","bot":"Anne"}"#);
    assert_eq!(
        (r["code"].as_str(), r["error"].as_str()),
        (Some("UNKNOWN_BOT"), Some("Unknown bot: Anne (did you mean: Ann)"))
    );
    let r = sim.command(r#"{"action":"pos","bot":7}"#);
    assert_eq!(r["code"], "INVALID_PARAMS", "a bot is named by a string: {r:?}");
    // Process-wide commands need no bot.
    let r = sim.command(r#"{"action":"help","topic":"pos"}"#);
    assert!(r.get("code").is_none(), "{r:?}");
    let r = sim.command(r#"{"action":"bots"}"#);
    assert_eq!((r["count"].as_u64(), r["spawned"].as_u64()), (Some(3), Some(3)), "{r:?}");
    let names: Vec<&str> = r["bots"].as_array().expect("bots").iter().filter_map(|b| b["name"].as_str()).collect();
    assert_eq!(names, ["Ann", "Ben", "ClawBot"]);
    assert_eq!(r["bots"][0]["pos"]["x"], 4.5);

    // A chat line only Ben's server connection carries is Ben's event.
    sim.receive_for("Ben", &chat_from("Alice", "hi Ben"));
    sim.tick();
    let msgs = events_of(&sim, "msg");
    assert_eq!(msgs.len(), 1);
    assert_eq!((msgs[0]["bot"].as_str(), msgs[0]["msg"].as_str()), (Some("Ben"), Some("hi Ben")));
    let spawned: Vec<String> = events_of(&sim, "spawn")
        .iter()
        .map(|e| e.get("bot").and_then(|b| b.as_str()).unwrap_or("(none)").to_owned())
        .collect();
    assert_eq!(spawned, ["(none)", "Ann", "Ben"], "the first bot's spawn came while it was the only bot");
}

#[test]
fn a_single_bot_keeps_clawcrafts_event_shape() {
    let mut sim = Simulation::spawned_with(&start_game());
    sim.receive(&chat_from("Alice", "hello"));
    sim.tick();
    let msg = events_of(&sim, "msg").pop().expect("msg");
    assert!(msg.get("bot").is_none(), "one bot: no `bot` field ({msg:?})");
    let r = sim.command(r#"{"action":"pos"}"#);
    assert!(r.get("pos").is_some(), "the only bot answers an unaddressed request: {r:?}");
    // A second bot: from now on events name theirs.
    sim.add_bot("Two", false);
    sim.receive(&chat_from("Alice", "again"));
    sim.tick();
    let msg = events_of(&sim, "msg").pop().expect("msg");
    assert_eq!(msg["bot"], "ClawBot");
}

#[test]
fn a_walk_of_one_bot_moves_no_other_and_the_idle_ones_settle() {
    let (_, mut sim) = three_bots();
    let lean = sim.app.world().resource::<clawcraft::LeanTick>().clone();
    let (claw, ben) = (feet(&mut sim, "ClawBot"), feet(&mut sim, "Ben"));
    let r = sim.command(r#"{"action":"walk","bot":"Ann","x":8.5,"y":-60,"z":4.5,"id":"w"}"#);
    assert_eq!(r["walking"], true, "{r:?}");
    for bot in ["ClawBot", "Ann", "Ben"] {
        sim.sent_by(bot);
    }
    let settled_before = lean.settled_bot_ticks();
    let mut ticks = 0;
    while events_of(&sim, "walk_done").is_empty() && ticks < 200 {
        sim.tick();
        ticks += 1;
        for bot in ["ClawBot", "Ben"] {
            let sent = sim.sent_by(bot);
            let moved = inputs(&sent)
                .iter()
                .filter(|i| i.get("move_vector").and_then(|m| m.get("z")).and_then(Value::as_f64) != Some(0.0))
                .count();
            assert_eq!(inputs(&sent).len(), 1, "{bot} sends one input per tick while Ann walks");
            assert_eq!(moved, 0, "{bot} does not move");
        }
        assert_eq!(inputs(&sim.sent_by("Ann")).len(), 1, "Ann sends one input per tick");
    }
    let done = events_of(&sim, "walk_done");
    assert_eq!((done[0]["bot"].as_str(), done[0]["status"].as_str()), (Some("Ann"), Some("done")), "{done:?}");
    let ann = feet(&mut sim, "Ann");
    assert!(((ann.x - 8.5).powi(2) + (ann.z - 4.5).powi(2)).sqrt() < 1.0, "Ann arrived: {ann:?}");
    assert_eq!((feet(&mut sim, "ClawBot"), feet(&mut sim, "Ben")), (claw, ben), "the others stood still");
    // While Ann walked, the two idle bots' ticks ran without the schedules' systems.
    let settled = lean.settled_bot_ticks() - settled_before;
    assert!(settled + 4 >= 2 * ticks as u64, "idle bots settled in nearly every tick: {settled} of {}", 2 * ticks);
}

#[test]
fn one_bots_disconnect_and_reconnect_leave_the_others_untouched() {
    let world = SimWorld::flat(2);
    let mut sim = world.spawn([0.5, -60.0, 0.5]);
    world.join_bot(&mut sim, "Ann", [4.5, -60.0, 0.5], SIM_RUNTIME_ID + 1);
    // Ben reconnects after a loss.
    sim.add_bot("Ben", true);
    let start = StartGame { runtime_entity_id: SIM_RUNTIME_ID + 2, entity_id: -9, ..start_game() };
    sim.join("Ben", &start, &world.chunk_bodies(&sim));
    assert_eq!(sim.connections.count("Ben"), 1);
    let r = sim.command(r#"{"action":"walk","bot":"Ann","x":10.5,"y":-60,"z":0.5,"id":"w"}"#);
    assert_eq!(r["walking"], true, "{r:?}");

    sim.handle_of("Ben").drop_connection("network unreachable");
    sim.sent_by("Ann");
    sim.sent();
    for _ in 0..5 {
        sim.tick();
        assert_eq!(inputs(&sim.sent_by("Ann")).len(), 1, "Ann keeps ticking");
        assert_eq!(inputs(&sim.sent_by("ClawBot")).len(), 1, "ClawBot keeps ticking");
    }
    let disconnected = events_of(&sim, "disconnected");
    assert_eq!(disconnected.len(), 1);
    assert_eq!(disconnected[0]["bot"], "Ben");
    let reconnecting = events_of(&sim, "reconnecting");
    assert_eq!(reconnecting.len(), 1);
    assert_eq!((reconnecting[0]["bot"].as_str(), reconnecting[0]["attempt"].as_u64()), (Some("Ben"), Some(1)));
    assert!(sim.app.should_exit().is_none(), "one bot's loss is an event, not an exit");
    let r = sim.command(r#"{"action":"pos","bot":"Ben"}"#);
    assert_eq!(r["code"], "NOT_SPAWNED", "Ben waits for its reconnect: {r:?}");
    let r = sim.command(r#"{"action":"bots"}"#);
    let ben = r["bots"].as_array().expect("bots").iter().find(|b| b["name"] == "Ben").cloned().expect("Ben listed");
    assert_eq!((ben["state"].as_str(), ben["attempt"].as_u64()), (Some("reconnecting"), Some(1)), "{ben:?}");

    // The 1 s backoff passes: Ben connects again (a new session) and spawns.
    for _ in 0..25 {
        sim.tick();
    }
    assert_eq!(sim.connections.count("Ben"), 2, "a second connection for Ben");
    sim.join("Ben", &start, &world.chunk_bodies(&sim));
    sim.tick();
    let reconnected = events_of(&sim, "reconnected");
    assert_eq!(reconnected.len(), 1);
    assert_eq!(reconnected[0]["bot"], "Ben");
    let r = sim.command(r#"{"action":"pos","bot":"Ben"}"#);
    assert!(r.get("pos").is_some(), "Ben answers again: {r:?}");
    // Ann's walk went on undisturbed, and ended by itself.
    for _ in 0..200 {
        if !events_of(&sim, "walk_done").is_empty() {
            break;
        }
        sim.tick();
    }
    let done = events_of(&sim, "walk_done");
    assert_eq!((done[0]["bot"].as_str(), done[0]["status"].as_str()), (Some("Ann"), Some("done")), "{done:?}");
    assert_eq!(events_of(&sim, "disconnected").len(), 1, "nobody else disconnected");
}

#[test]
fn bots_come_and_go_and_the_process_ends_with_the_last() {
    let mut sim = Simulation::spawned_with(&start_game());
    sim.app.insert_resource(clawcraft::io::ExitPolicy { when_no_bots: true });
    let r = sim.command(r#"{"action":"bot_add","username":"Cat","chunkRadius":4}"#);
    assert_eq!((r["added"].as_str(), r["state"].as_str(), r["count"].as_u64()), (Some("Cat"), Some("queued"), Some(2)));
    let r = sim.command(r#"{"action":"bot_add","username":"cat"}"#);
    assert_eq!(r["code"], "BOT_EXISTS", "{r:?}");
    let r = sim.command(r#"{"action":"bot_add","username":"no/slash"}"#);
    assert_eq!(r["code"], "INVALID_PARAMS", "{r:?}");
    sim.tick();
    assert_eq!(sim.connections.count("Cat"), 1, "Cat connected in the next tick");
    let start = StartGame { runtime_entity_id: SIM_RUNTIME_ID + 5, entity_id: -12, ..start_game() };
    sim.join("Cat", &start, &[]);
    let requested: Vec<Value> =
        sim.sent_by("Cat").into_iter().flatten().filter(|(n, _)| n == "request_chunk_radius").map(|(_, v)| v).collect();
    assert!(requested.is_empty(), "the join's packets were taken by `join`");
    let cat = sim.bot_named("Cat").expect("Cat");
    assert_eq!(sim.app.world().get::<Lifecycle>(cat), Some(&Lifecycle::Spawned));
    assert_eq!(events_of(&sim, "spawn").last().map(|e| e["bot"].clone()), Some(json!("Cat")));

    let r = sim.command(r#"{"action":"bot_remove","bot":"Cat"}"#);
    assert_eq!((r["removed"].as_str(), r["remaining"].as_u64()), (Some("Cat"), Some(1)), "{r:?}");
    assert!(sim.handle_of("Cat").closed_by_client(), "Cat left politely");
    assert!(sim.bot_named("Cat").is_none());
    assert!(sim.app.should_exit().is_none(), "one bot is left");
    let r = sim.command(r#"{"action":"bot_remove"}"#);
    assert_eq!(r["removed"], "ClawBot", "the only bot is the one addressed: {r:?}");
    sim.tick();
    assert_eq!(sim.app.should_exit(), Some(AppExit::Success), "the last bot is gone");
}

#[test]
fn the_last_lost_connection_ends_the_process_the_first_does_not() {
    let world = SimWorld::flat(1);
    let mut sim = world.spawn([0.5, -60.0, 0.5]);
    world.join_bot(&mut sim, "Ann", [4.5, -60.0, 0.5], SIM_RUNTIME_ID + 1);
    sim.app.insert_resource(clawcraft::io::ExitPolicy { when_no_bots: true });
    sim.handle.drop_connection("kicked");
    sim.ticks(3);
    assert!(sim.app.should_exit().is_none(), "Ann still plays");
    sim.handle_of("Ann").drop_connection("kicked");
    let mut exit = None;
    for _ in 0..3 {
        sim.tick();
        exit = exit.or(sim.app.should_exit());
    }
    assert_eq!(exit, Some(AppExit::from_code(2)), "no bot is left");
}

/// Answers of a plugin's requests, as the test's system saw them.
#[derive(Resource, Default)]
struct Seen {
    asked: Vec<(Entity, CommandId)>,
    answers: Vec<(Entity, CommandId, Result<f64, String>)>,
}

/// Asks every bot for its position once (on the first tick it runs), and records the answers.
fn ask_positions(mut commands: BotCommands, bots: Query<Entity, With<LocalBot>>, mut seen: ResMut<Seen>) {
    if !seen.asked.is_empty() {
        return;
    }
    for bot in &bots {
        let id = commands.run(bot, Pos {});
        seen.asked.push((bot, id));
    }
    // And one for an entity that is no bot.
    let id = commands.run(Entity::PLACEHOLDER, Pos {});
    seen.asked.push((Entity::PLACEHOLDER, id));
}

fn read_positions(mut answers: MessageReader<Answer<Pos>>, mut seen: ResMut<Seen>) {
    for a in answers.read() {
        let result = a.result.as_ref().map(|r: &PosResponse| r.pos.x).map_err(|e| e.code.to_owned());
        seen.answers.push((a.bot, a.id, result));
    }
}

#[test]
fn a_plugin_runs_commands_for_each_bot_and_reads_typed_answers_off_the_agents_channels() {
    let (_, mut sim) = three_bots();
    sim.app.init_resource::<Seen>().add_systems(Update, (ask_positions, read_positions).chain());
    let lines_before = sim.events().len();
    sim.ticks(3);
    let seen = sim.app.world().resource::<Seen>();
    assert_eq!(seen.asked.len(), 4);
    let mut xs: Vec<(Entity, Result<f64, String>)> = seen.answers.iter().map(|(b, _, r)| (*b, r.clone())).collect();
    xs.sort_by_key(|(b, _)| b.index());
    let ids: Vec<CommandId> = seen.answers.iter().map(|(_, id, _)| *id).collect();
    assert_eq!(seen.answers.len(), 4, "one answer per request: {:?}", seen.answers);
    for (bot, id) in &seen.asked {
        assert!(ids.contains(id), "the answer of {bot:?} carries its id");
    }
    let by_bot = |b: Entity| xs.iter().find(|(e, _)| *e == b).map(|(_, r)| r.clone());
    let world = sim.app.world_mut();
    let names = clawcraft::core::bot_list(world);
    for (bot, name) in names {
        let want = match name.as_str() {
            "ClawBot" => 0.5,
            "Ann" => 4.5,
            _ => -3.5,
        };
        assert_eq!(by_bot(bot), Some(Ok(want)), "{name}'s own position");
    }
    assert_eq!(by_bot(Entity::PLACEHOLDER), Some(Err("NOT_SPAWNED".to_owned())), "no such bot");
    assert!(sim.take_responses().is_empty(), "nothing reached the agent's channels");
    assert_eq!(sim.events().len(), lines_before, "and no event line was written for them");
}
