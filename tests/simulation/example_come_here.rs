//! Simulation test of the one-file behaviour plugin `examples/come_here.rs`, with two bots in one
//! app: a player says "come" → each bot that sees them walks over (around a wall) and says so in
//! chat; "Scout, come" calls Scout alone; when the player cannot be reached the walk's completion
//! event says why and the bot says that instead. Each bot answers its own caller.

#[path = "../../examples/come_here.rs"]
mod come_here;

use clawcraft::core::Position;
use clawcraft::protocol::codec::Value;
use clawcraft::protocol::packets::{AddPlayer, Vec3 as WireVec3};
use clawcraft::sim::{SIM_RUNTIME_ID, Simulation, chat_from};
use clawcraft::simworld::SimWorld;
use come_here::ComeHerePlugin;

const BOTS: [&str; 2] = ["ClawBot", "Scout"];

/// Alice appears (or moves) at `x`, `z` in the view of every bot.
fn alice_at(sim: &mut Simulation, x: f32, z: f32) {
    for bot in BOTS {
        sim.receive_for(
            bot,
            &AddPlayer {
                uuid: "11111111-2222-3333-4444-555555555555".into(),
                username: "Alice".into(),
                runtime_id: 42,
                unique_id: 42,
                position: WireVec3 { x, y: -58.38, z },
                ..AddPlayer::default()
            },
        );
    }
}

/// A chat line every bot hears.
fn say(sim: &mut Simulation, from: &str, message: &str) {
    for bot in BOTS {
        sim.receive_for(bot, &chat_from(from, message));
    }
}

/// The chat lines `bot` sent since the last look.
fn chat_of(batches: Vec<Vec<(String, Value)>>) -> Vec<String> {
    batches
        .into_iter()
        .flatten()
        .filter(|(name, v)| name == "text" && v.get("type").and_then(Value::as_str) == Some("chat"))
        .filter_map(|(_, v)| v.get("message").and_then(Value::as_str).map(str::to_owned))
        .collect()
}

/// Ticks (at most `limit`) until each of `bots` said something in chat; returns what each said.
fn replies(sim: &mut Simulation, bots: &[&str], limit: usize) -> Vec<Vec<String>> {
    let mut said = vec![Vec::new(); BOTS.len()];
    for _ in 0..limit {
        sim.tick();
        for (i, bot) in BOTS.iter().enumerate() {
            said[i].extend(chat_of(sim.sent_by(bot)));
        }
        if bots.iter().all(|b| !said[BOTS.iter().position(|x| x == b).expect("a bot")].is_empty()) {
            break;
        }
    }
    said
}

fn feet(sim: &mut Simulation, name: &str) -> clawcraft::core::Vec3 {
    let bot = sim.bot_named(name).expect("bot");
    sim.app.world().get::<Position>(bot).expect("position").0
}

fn walk_done_of(sim: &Simulation, bot: &str) -> Vec<serde_json::Map<String, serde_json::Value>> {
    sim.events().into_iter().filter(|e| e["type"] == "walk_done" && e["bot"] == bot).collect()
}

#[test]
fn each_bot_comes_when_called_and_says_why_when_it_cannot() {
    let mut world = SimWorld::flat(2);
    world.fill([4, -60, -3], [4, -58, 6], "stone", &[]);
    // A closed stone box at x 20..24 for the second call.
    world.fill([20, -60, -2], [24, -57, 2], "stone", &[]);
    world.fill([21, -60, -1], [23, -58, 1], "air", &[]);
    let mut sim = world.spawn([0.5, -60.0, 0.5]);
    world.join_bot(&mut sim, "Scout", [0.5, -60.0, -4.5], SIM_RUNTIME_ID + 1);
    // The app is already built: apply the plugin's build directly.
    bevy_app::Plugin::build(&ComeHerePlugin, &mut sim.app);
    alice_at(&mut sim, 8.5, 2.5);
    sim.tick();
    sim.sent();
    sim.sent_by("Scout");

    say(&mut sim, "Bob", "come here"); // Bob is not in sight: nothing happens
    say(&mut sim, "Alice", "hey bots, come here!");
    let said = replies(&mut sim, &BOTS, 300);
    assert_eq!(said, [vec!["Here, Alice!".to_owned()], vec!["Here, Alice!".to_owned()]], "each bot answers Alice");
    for bot in BOTS {
        let p = feet(&mut sim, bot);
        let d = ((p.x - 8.5).powi(2) + (p.z - 2.5).powi(2)).sqrt();
        assert!(d <= 2.6, "{bot} next to Alice: {p:?}");
        let done = walk_done_of(&sim, bot);
        assert_eq!(done.len(), 1, "only Alice's call started a walk of {bot}: {done:?}");
        assert_eq!(done[0]["status"], "done");
    }

    // Alice inside the closed box; only Scout is called: it says why it can't, ClawBot stays put.
    alice_at(&mut sim, 22.5, 0.5);
    sim.tick();
    let before = feet(&mut sim, "ClawBot");
    say(&mut sim, "Alice", "Scout, come");
    let said = replies(&mut sim, &["Scout"], 900);
    assert!(said[0].is_empty(), "ClawBot was not called: {said:?}");
    assert_eq!(said[1].len(), 1, "{said:?}");
    assert!(said[1][0].starts_with("Sorry Alice, I can't get there ("), "{said:?}");
    let after = feet(&mut sim, "ClawBot");
    // It may still slide to a stop after its first walk, but it does not walk anywhere.
    assert!(after.distance(before) < 0.2, "ClawBot did not move: {before:?} → {after:?}");
    assert_eq!(walk_done_of(&sim, "ClawBot").len(), 1, "no second walk of ClawBot");
    let scout = walk_done_of(&sim, "Scout");
    assert_eq!(scout.len(), 2);
    assert_eq!(scout[1]["status"], "failed");
    assert!(scout[0]["id"] != scout[1]["id"], "each walk has its own id");
}
