//! Simulation test of the one-file team behaviour `examples/team.rs`, with three bots in one app:
//! they spread to three spots, each mines a different log (Ann and ClawBot first claim the same one
//! in the same tick; ClawBot, second in name order, hears it and takes another), the test's server breaks each log when its miner predicts
//! the break, and every report reaches the other bots as a `team` event — never as server chat.

#[path = "../../examples/team.rs"]
mod team;

use std::collections::{BTreeMap, BTreeSet};

use clawcraft::core::Position;
use clawcraft::protocol::packets::{BlockPos, PlayerAuthInput, Text, UpdateBlock};
use clawcraft::sim::{SIM_RUNTIME_ID, Simulation};
use clawcraft::simworld::SimWorld;
use serde_json::{Map, Value};
use team::{Lumberjack, Phase, TeamLumberPlugin};

const BOTS: [&str; 3] = ["Ann", "Ben", "ClawBot"];

/// The logs. From the spots the bots spread to — Ann (9.5, 0.5), Ben (-7.5, 1.5), ClawBot
/// (0.5, 8.5) — the shared one is the nearest for both Ann and ClawBot; each has one more near it.
const SHARED: [i32; 3] = [6, -60, 6];
const LOGS: [[i32; 3]; 4] = [SHARED, [16, -60, -4], [-11, -60, 3], [-1, -60, 16]];

fn feet(sim: &mut Simulation, name: &str) -> clawcraft::core::Vec3 {
    let bot = sim.bot_named(name).expect("bot");
    sim.app.world().get::<Position>(bot).expect("position").0
}

fn jack(sim: &mut Simulation, name: &str) -> Option<Lumberjack> {
    let bot = sim.bot_named(name).expect("bot");
    sim.app.world().get::<Lumberjack>(bot).cloned()
}

/// The `team` events so far: (recipient, sender, text).
fn team_events(sim: &Simulation) -> Vec<(String, String, String)> {
    let s = |e: &Map<String, Value>, k: &str| e.get(k).and_then(Value::as_str).unwrap_or("").to_owned();
    sim.events().iter().filter(|e| e["type"] == "team").map(|e| (s(e, "bot"), s(e, "from"), s(e, "text"))).collect()
}

#[test]
fn three_bots_spread_out_mine_different_logs_and_report_on_the_team_channel() {
    let mut world = SimWorld::flat(2);
    for log in LOGS {
        world.set(log, "oak_log", &[]);
    }
    let mut sim = world.spawn([0.5, -60.0, 0.5]);
    world.join_bot(&mut sim, "Ann", [1.5, -60.0, 0.5], SIM_RUNTIME_ID + 1);
    world.join_bot(&mut sim, "Ben", [0.5, -60.0, 1.5], SIM_RUNTIME_ID + 2);
    sim.tick();
    for bot in BOTS {
        sim.handle_of(bot).take_sent();
    }
    // The app is already built: apply the plugin's build directly.
    bevy_app::Plugin::build(&TeamLumberPlugin, &mut sim.app);
    let air = world.id("air", &[]);

    // The server: a predicted break of a log is confirmed to every bot by a block update.
    let mut broken: BTreeMap<[i32; 3], &str> = BTreeMap::new();
    let mut closest_to_spot: BTreeMap<&str, f64> = BTreeMap::new();
    let mut chat_lines = 0;
    for _ in 0..1_500 {
        sim.tick();
        let mut breaks = Vec::new();
        for bot in BOTS {
            let bodies: Vec<Vec<u8>> = sim.handle_of(bot).take_sent().into_iter().flatten().collect();
            chat_lines += sim.decode_all::<Text>(&bodies).len();
            for input in sim.decode_all::<PlayerAuthInput>(&bodies) {
                for a in input.block_action.unwrap_or_default() {
                    if a.action == "predict_break" {
                        breaks.push((bot, [a.position.x, a.position.y, a.position.z]));
                    }
                }
            }
            if let Some(j) = jack(&mut sim, bot) {
                let d = feet(&mut sim, bot).distance(j.spot);
                let best = closest_to_spot.entry(bot).or_insert(f64::MAX);
                *best = best.min(d);
            }
        }
        for (bot, pos) in breaks {
            assert!(broken.insert(pos, bot).is_none(), "{bot} broke {pos:?}, which was already broken");
            world.set(pos, "air", &[]);
            for to in BOTS {
                sim.receive_for(
                    to,
                    &UpdateBlock {
                        position: BlockPos { x: pos[0], y: pos[1], z: pos[2] },
                        block_runtime_id: air,
                        layer: 0,
                    },
                );
            }
        }
        let done = BOTS.iter().all(|b| jack(&mut sim, b).is_some_and(|j| j.phase == Phase::Done));
        if done {
            break;
        }
    }

    // Each went to its own spot, and each mined a different log, confirmed.
    let jacks: Vec<Lumberjack> = BOTS.iter().map(|b| jack(&mut sim, b).expect("a plan")).collect();
    for (bot, j) in BOTS.iter().zip(&jacks) {
        assert_eq!(j.phase, Phase::Done, "{bot} finished: {j:?}");
        assert!(closest_to_spot[bot] < 1.5, "{bot} reached its spot {:?}: {}", j.spot, closest_to_spot[bot]);
    }
    let spots: Vec<(f64, f64)> = jacks.iter().map(|j| (j.spot.x, j.spot.z)).collect();
    assert_eq!(spots, [(9.5, 0.5), (-7.5, 1.5), (0.5, 8.5)], "three different spots, 8 blocks out");
    let mined: Vec<[i32; 3]> = jacks.iter().map(|j| j.mined.expect("mined a log")).collect();
    assert_eq!(mined.iter().collect::<BTreeSet<_>>().len(), 3, "three different logs: {mined:?}");
    let by_server: BTreeMap<[i32; 3], &str> = BOTS.iter().zip(&mined).map(|(b, m)| (*m, *b)).collect();
    assert_eq!(broken, by_server, "the server broke exactly the log each bot says it took, for that bot");
    assert!(mined.contains(&SHARED), "the log two bots wanted was taken once");
    for (bot, log) in BOTS.iter().zip(&mined) {
        let (x, z) = (f64::from(log[0]) + 0.5, f64::from(log[2]) + 0.5);
        let p = feet(&mut sim, bot);
        assert!(((p.x - x).powi(2) + (p.z - z).powi(2)).sqrt() < 3.0, "{bot} stands by its log {log:?}: {p:?}");
    }

    // The channel: every claim and take reached the two others, as typed events naming them.
    let events = team_events(&sim);
    for (bot, log) in BOTS.iter().zip(&mined) {
        let took = format!("took {} {} {}", log[0], log[1], log[2]);
        let claim = format!("claim {} {} {}", log[0], log[1], log[2]);
        let heard_by = |text: &str| -> BTreeSet<&str> {
            events.iter().filter(|(_, from, t)| from == bot && t == text).map(|(to, ..)| to.as_str()).collect()
        };
        let others: BTreeSet<&str> = BOTS.iter().copied().filter(|b| b != bot).collect();
        assert_eq!(heard_by(&took), others, "{bot}'s `{took}` reached the other two: {events:?}");
        assert_eq!(heard_by(&claim), others, "{bot} claimed it first");
    }
    let shared_claims: BTreeSet<&str> =
        events.iter().filter(|(_, _, t)| t.as_str() == "claim 6 -60 6").map(|(_, from, _)| from.as_str()).collect();
    // Ann and ClawBot reached their spots in the same tick and both claimed the shared log before
    // hearing the other: the first in name order kept it, ClawBot heard and looked again.
    assert_eq!(shared_claims, BTreeSet::from(["Ann", "ClawBot"]), "both wanted it: {events:?}");
    assert_eq!(by_server.get(&SHARED), Some(&"Ann"), "Ann, first in name order, kept it");
    assert_eq!(chat_lines, 0, "nothing went to the server's chat");
}
