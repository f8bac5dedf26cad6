//! A team in one file, typed end to end: the bots of a swarm spread out (each walks to its own
//! spot), each mines the nearest log nobody else has, and they keep each other posted on the team
//! channel — never in the server's chat.
//!
//! What it shows, from a plugin author's side:
//! - the team channel typed: `Team::say(bot, ..)` out, `MessageReader<TeamMessage>` in (each
//!   message names its recipient, `bot`, and its sender); the agent sees every one as a `team`
//!   event;
//! - typed commands and answers chained into a plan: `WalkCmd` → `WalkDone`, `Find` →
//!   `Answer<Find>`, `Mine` → `MineDone` (confirmed only when the server's block update shows
//!   the log gone);
//! - a team reacting to what it hears: a bot picks only logs nobody claimed or took; two bots that
//!   claimed the same log in the same tick settle it by name (the first in name order keeps it,
//!   the other looks again when it gets there).
//!
//! The protocol on the channel is plain text a human can read: `heading to X Z`, `at my spot`,
//! `claim X Y Z`, `took X Y Z`, `release X Y Z`, `no free log in sight`.
//!
//! ```text
//! HOST=127.0.0.1 PORT=19132 cargo run --example team -- --swarm '{"count":3,"prefix":"Lumber"}'
//! ```

use std::collections::{HashMap, HashSet};

use bevy_app::{App, Plugin, Update};
use bevy_ecs::prelude::*;
use clawcraft::core::{ActionDone, Answer, BotCommands, CommandId, Lifecycle, LocalBot, Position, TickSet, Vec3};
use clawcraft::interact::mine::{Mine, MineDone};
use clawcraft::pathfind::WalkDone;
use clawcraft::pathfind::commands::WalkCmd;
use clawcraft::team::{Team, TeamMessage};
use clawcraft::world::commands::Find;

/// Where the bots spread to from where each spawned, in name order (then round again, farther).
pub const SPREAD: [(f64, f64); 4] = [(8.0, 0.0), (-8.0, 0.0), (0.0, 8.0), (0.0, -8.0)];
/// Searches for a free log a bot makes before it gives up.
const MAX_SEARCHES: u32 = 4;

/// A block position.
pub type Cell = [i32; 3];

/// What a bot is doing, with the id of the request it waits on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    Spreading(CommandId),
    Searching(CommandId),
    Approaching(CommandId, Cell),
    Mining(CommandId, Cell),
    Done,
}

/// One bot of the team: its plan and what it heard.
#[derive(Component, Debug, Clone)]
pub struct Lumberjack {
    pub phase: Phase,
    /// Its own spot.
    pub spot: Vec3,
    /// Logs claimed on the channel, by whom (its own claims included).
    pub claimed: HashMap<Cell, String>,
    /// Logs somebody took.
    pub taken: HashSet<Cell>,
    /// Logs it failed to mine itself.
    pub skipped: HashSet<Cell>,
    pub searches: u32,
    /// The log it mined.
    pub mined: Option<Cell>,
}

fn cell_text(c: Cell) -> String {
    format!("{} {} {}", c[0], c[1], c[2])
}

/// `claim 3 -60 4` → (`claim`, [3, -60, 4]); anything after the position is a comment.
fn parse(text: &str) -> Option<(&str, Cell)> {
    let mut words = text.split_whitespace();
    let verb = words.next()?;
    let mut n = || words.next()?.parse::<i32>().ok();
    Some((verb, [n()?, n()?, n()?]))
}

/// The name of `bot`.
fn name_of(bots: &Query<(Entity, &LocalBot, &Lifecycle, Option<&Position>)>, bot: Entity) -> String {
    bots.get(bot).map(|(_, b, ..)| b.username.clone()).unwrap_or_default()
}

/// Says `text` on the channel from `bot` (a refusal is only logged: the plan goes on).
fn say(team: &mut Team, bot: Entity, text: &str) {
    if let Err(e) = team.say(bot, text) {
        tracing::warn!(error = %e.message, "team_say refused");
    }
}

/// What each bot hears: claims, takes and releases of the others.
fn hear(mut heard: MessageReader<TeamMessage>, mut jacks: Query<&mut Lumberjack>) {
    for m in heard.read() {
        let (Some(from), Some((verb, cell))) = (&m.from, parse(&m.text)) else { continue };
        let Ok(mut jack) = jacks.get_mut(m.bot) else { continue };
        match verb {
            "claim" => {
                jack.claimed.insert(cell, from.clone());
            }
            "took" => {
                jack.taken.insert(cell);
            }
            "release" if jack.claimed.get(&cell) == Some(from) => {
                jack.claimed.remove(&cell);
            }
            _ => {}
        }
    }
}

/// A spawned bot without a plan walks to its spot.
fn start(
    mut commands: Commands,
    mut bot_commands: BotCommands,
    mut team: Team,
    bots: Query<(Entity, &LocalBot, &Lifecycle, Option<&Position>)>,
    planned: Query<(), With<Lumberjack>>,
) {
    let mut names: Vec<&str> = bots.iter().map(|(_, b, ..)| b.username.as_str()).collect();
    names.sort_unstable();
    for (bot, me, lifecycle, pos) in &bots {
        let (Lifecycle::Spawned, Some(pos), Err(_)) = (lifecycle, pos, planned.get(bot)) else { continue };
        let i = names.iter().position(|n| *n == me.username).unwrap_or(0);
        let (dx, dz) = SPREAD[i % SPREAD.len()];
        let round = (i / SPREAD.len() + 1) as f64;
        let spot = Vec3::new(pos.0.x + dx * round, pos.0.y, pos.0.z + dz * round);
        let id = bot_commands.run(bot, WalkCmd::to(spot, 1.0));
        say(&mut team, bot, &format!("heading to {:.0} {:.0}", spot.x, spot.z));
        commands.entity(bot).insert(Lumberjack {
            phase: Phase::Spreading(id),
            spot,
            claimed: HashMap::new(),
            taken: HashSet::new(),
            skipped: HashSet::new(),
            searches: 0,
            mined: None,
        });
    }
}

/// Looks for logs (or gives up after [`MAX_SEARCHES`]).
fn search(bot: Entity, jack: &mut Lumberjack, commands: &mut BotCommands, team: &mut Team) {
    if jack.searches >= MAX_SEARCHES {
        say(team, bot, "giving up: no log I can take");
        jack.phase = Phase::Done;
        return;
    }
    jack.searches += 1;
    let find = Find { block: "log".into(), exact: None, radius: Some(32.0), count: Some(32), count_only: None };
    jack.phase = Phase::Searching(commands.run(bot, find));
}

/// A walk ended (or was never needed): at the spot, search; at a log, mine it unless another bot
/// has it.
fn arrived(bot: Entity, me: &str, jack: &mut Lumberjack, commands: &mut BotCommands, team: &mut Team) {
    match jack.phase {
        Phase::Spreading(_) => {
            say(team, bot, "at my spot");
            search(bot, jack, commands, team);
        }
        Phase::Approaching(_, log) => {
            let lost =
                jack.taken.contains(&log) || jack.claimed.get(&log).is_some_and(|by| by != me && by.as_str() < me);
            if lost {
                search(bot, jack, commands, team);
            } else {
                let mine = Mine {
                    x: f64::from(log[0]),
                    y: f64::from(log[1]),
                    z: f64::from(log[2]),
                    auto_tool: false,
                    face: None,
                };
                jack.phase = Phase::Mining(commands.run(bot, mine), log);
            }
        }
        _ => {}
    }
}

/// The walk's answer (refused, or already there) or its completion.
fn walked(
    mut answers: MessageReader<Answer<WalkCmd>>,
    mut done: MessageReader<ActionDone<WalkDone>>,
    mut jacks: Query<&mut Lumberjack>,
    bots: Query<(Entity, &LocalBot, &Lifecycle, Option<&Position>)>,
    mut commands: BotCommands,
    mut team: Team,
) {
    let ended: Vec<(Entity, CommandId)> = answers
        .read()
        .filter(|a| !a.result.as_ref().is_ok_and(|w| w.walking))
        .map(|a| (a.bot, a.id))
        .chain(done.read().filter_map(|d| Some((d.bot, CommandId(d.outcome.id.as_u64()?)))))
        .collect();
    for (bot, id) in ended {
        let Ok(mut jack) = jacks.get_mut(bot) else { continue };
        let waiting = match jack.phase {
            Phase::Spreading(w) | Phase::Approaching(w, _) => w,
            _ => continue,
        };
        if waiting == id {
            let me = name_of(&bots, bot);
            arrived(bot, &me, &mut jack, &mut commands, &mut team);
        }
    }
}

/// Logs found: claim the nearest free one and walk to it.
fn found(
    mut answers: MessageReader<Answer<Find>>,
    mut jacks: Query<&mut Lumberjack>,
    mut commands: BotCommands,
    mut team: Team,
    bots: Query<(Entity, &LocalBot, &Lifecycle, Option<&Position>)>,
) {
    for answer in answers.read() {
        let Ok(mut jack) = jacks.get_mut(answer.bot) else { continue };
        if jack.phase != Phase::Searching(answer.id) {
            continue;
        }
        let me = name_of(&bots, answer.bot);
        let free = answer.result.as_ref().ok().and_then(|r| {
            r.blocks.iter().map(|b| [b.x, b.y, b.z]).find(|c| {
                !jack.taken.contains(c) && !jack.skipped.contains(c) && jack.claimed.get(c).is_none_or(|by| *by == me)
            })
        });
        let Some(log) = free else {
            say(&mut team, answer.bot, "no free log in sight");
            jack.phase = Phase::Done;
            continue;
        };
        jack.claimed.insert(log, me);
        say(&mut team, answer.bot, &format!("claim {}", cell_text(log)));
        let centre = Vec3::new(f64::from(log[0]) + 0.5, f64::from(log[1]), f64::from(log[2]) + 0.5);
        jack.phase = Phase::Approaching(commands.run(answer.bot, WalkCmd::to(centre, 2.0)), log);
    }
}

/// Mining refused or ended: report it; on failure give the log back and look again.
fn mined(
    mut answers: MessageReader<Answer<Mine>>,
    mut done: MessageReader<ActionDone<MineDone>>,
    mut jacks: Query<&mut Lumberjack>,
    mut commands: BotCommands,
    mut team: Team,
) {
    let mut ended: Vec<(Entity, CommandId, Result<(), String>)> = Vec::new();
    for a in answers.read() {
        if let Err(e) = &a.result {
            ended.push((a.bot, a.id, Err(e.code.to_owned())));
        }
    }
    for d in done.read() {
        let Some(id) = d.outcome.id.as_u64().map(CommandId) else { continue };
        let result =
            if d.confirmed { Ok(()) } else { Err(d.outcome.reason.clone().unwrap_or_else(|| "unconfirmed".into())) };
        ended.push((d.bot, id, result));
    }
    for (bot, id, result) in ended {
        let Ok(mut jack) = jacks.get_mut(bot) else { continue };
        let Phase::Mining(waiting, log) = jack.phase else { continue };
        if waiting != id {
            continue;
        }
        match result {
            Ok(()) => {
                say(&mut team, bot, &format!("took {}", cell_text(log)));
                jack.taken.insert(log);
                jack.mined = Some(log);
                jack.phase = Phase::Done;
            }
            Err(why) => {
                say(&mut team, bot, &format!("release {} ({why})", cell_text(log)));
                jack.claimed.remove(&log);
                jack.skipped.insert(log);
                search(bot, &mut jack, &mut commands, &mut team);
            }
        }
    }
}

/// The behaviour: add it to the app.
pub struct TeamLumberPlugin;

impl Plugin for TeamLumberPlugin {
    fn build(&self, app: &mut App) {
        app.add_systems(Update, (hear, start, walked, found, mined).chain().in_set(TickSet::Actions));
    }
}

#[allow(dead_code)]
fn main() -> std::process::ExitCode {
    clawcraft::cli::init_logging();
    clawcraft::cli::run_with(clawcraft::config::Config::load(), |app| {
        app.add_plugins(TeamLumberPlugin);
    })
}
