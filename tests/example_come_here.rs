//! Simulation test of the one-file behaviour plugin `examples/come_here.rs`: a player says
//! "come" → the bot walks to them around a wall and says so in chat; when the player cannot be
//! reached the walk's completion event says why and the bot says that instead.

#[path = "../examples/come_here.rs"]
mod come_here;

use clawcraft::core::Position;
use clawcraft::protocol::packets::{AddPlayer, Text, Vec3 as WireVec3};
use clawcraft::sim::{Simulation, chat_from};
use clawcraft::simworld::SimWorld;
use come_here::ComeHerePlugin;

fn alice_at(sim: &mut Simulation, x: f32, z: f32) {
    sim.receive(&AddPlayer {
        uuid: "11111111-2222-3333-4444-555555555555".into(),
        username: "Alice".into(),
        runtime_id: 42,
        unique_id: 42,
        position: WireVec3 { x, y: -58.38, z },
        ..AddPlayer::default()
    });
}

fn say(sim: &mut Simulation, from: &str, message: &str) {
    sim.receive(&chat_from(from, message));
}

/// Ticks until the bot says something in chat (at most `limit` ticks); returns it.
fn next_chat(sim: &mut Simulation, limit: usize) -> Option<String> {
    for _ in 0..limit {
        sim.tick();
        if let Some(t) = sim.sent_as::<Text>().into_iter().find(|t| t.kind == "chat") {
            return Some(t.message);
        }
    }
    None
}

#[test]
fn the_bot_comes_when_called_and_says_why_when_it_cannot() {
    let mut world = SimWorld::flat(2);
    world.fill([4, -60, -3], [4, -58, 6], "stone", &[]);
    // A closed stone box at x 20..24 for the second call.
    world.fill([20, -60, -2], [24, -57, 2], "stone", &[]);
    world.fill([21, -60, -1], [23, -58, 1], "air", &[]);
    let mut sim = world.spawn([0.5, -60.0, 0.5]);
    // The app is already built: apply the plugin's build directly.
    bevy_app::Plugin::build(&ComeHerePlugin, &mut sim.app);
    alice_at(&mut sim, 8.5, 2.5);
    sim.tick();

    say(&mut sim, "Bob", "come here"); // Bob is not in sight: nothing happens
    say(&mut sim, "Alice", "hey bot, come here!");
    let reply = next_chat(&mut sim, 200).expect("the bot answers");
    assert_eq!(reply, "Here, Alice!");
    let p = sim.component::<Position>().expect("pos").0;
    let d = ((p.x - 8.5).powi(2) + (p.z - 2.5).powi(2)).sqrt();
    assert!(d <= 2.6, "next to Alice: {p:?}");
    let done: Vec<_> = sim.events().into_iter().filter(|e| e["type"] == "walk_done").collect();
    assert_eq!(done.len(), 1, "only Alice's call started a walk");
    assert_eq!((done[0]["id"].as_str(), done[0]["status"].as_str()), (Some("come-1"), Some("done")));

    // Alice inside the closed box: the walk ends with a reason, and the bot says it.
    alice_at(&mut sim, 22.5, 0.5);
    sim.tick();
    say(&mut sim, "Alice", "come");
    let reply = next_chat(&mut sim, 900).expect("the bot answers");
    assert!(reply.starts_with("Sorry Alice, I can't get there ("), "{reply}");
    let done: Vec<_> = sim.events().into_iter().filter(|e| e["type"] == "walk_done").collect();
    assert_eq!((done[1]["id"].as_str(), done[1]["status"].as_str()), (Some("come-2"), Some("failed")));
}
