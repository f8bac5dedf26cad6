//! A behaviour plugin in one file, typed end to end: when a player says "come" in chat, each bot
//! that sees them walks over and says in chat when it arrives, or why it could not. "Scout,
//! come" calls only the bot named Scout. It works the same with one bot or a swarm: every event
//! carries its bot, and each bot answers its own caller.
//!
//! What it shows, from a plugin author's side:
//! - typed events in: `MessageReader<ChatReceived>` (chat heard by a bot), `MessageReader<ActionDone<WalkDone>>`;
//! - typed commands out: `BotCommands::run(bot, WalkCmd::to(..))` — the same command an agent
//!   sends as JSON, with its checks and its action slot, but no JSON and nothing on stdout;
//! - the typed answer (`Answer<WalkCmd>`: refused, or already there) and the one completion
//!   event with the same id, whatever ended the walk (arrival, a wall, death, an abort).
//!
//! ```text
//! HOST=127.0.0.1 PORT=19132 cargo run --example come_here
//! cargo run --example come_here -- --swarm '{"count":3,"prefix":"Helper"}'
//! (in game) Alice: come here
//! ```

use std::collections::HashMap;

use bevy_app::{App, Plugin, Update};
use bevy_ecs::prelude::*;
use clawcraft::chat::ChatReceived;
use clawcraft::chat::commands::Chat;
use clawcraft::core::{ActionDone, Answer, BotCommands, CommandId, LocalBot, Position, TickSet};
use clawcraft::entity::{EntityPosition, PlayerInfo, SeenBy};
use clawcraft::pathfind::WalkDone;
use clawcraft::pathfind::commands::WalkCmd;

/// Walks under way, by request id: which bot walks to whom.
#[derive(Resource, Default)]
pub struct Calls(HashMap<CommandId, (Entity, String)>);

/// Whether `text` calls the bot named `me`: it says "come", and names no bot or names this one.
fn calls(text: &str, me: &str, all_bots: &[String]) -> bool {
    let words: Vec<String> = text.split(|c: char| !c.is_alphanumeric()).map(str::to_lowercase).collect();
    if !words.iter().any(|w| w == "come") {
        return false;
    }
    let named: Vec<&String> = all_bots.iter().filter(|b| words.contains(&b.to_lowercase())).collect();
    named.is_empty() || named.iter().any(|b| b.eq_ignore_ascii_case(me))
}

/// "come" in chat → each called bot walks to the caller, if it sees them.
fn answer_calls(
    mut chat: MessageReader<ChatReceived>,
    mut commands: BotCommands,
    mut walks: ResMut<Calls>,
    bots: Query<(&LocalBot, &Position)>,
    players: Query<(&SeenBy, &PlayerInfo, &EntityPosition)>,
) {
    let names: Vec<String> = bots.iter().map(|(b, _)| b.username.clone()).collect();
    for line in chat.read() {
        let Ok((me, my_pos)) = bots.get(line.bot) else { continue };
        if line.from.is_empty() || !calls(&line.text, &me.username, &names) {
            continue;
        }
        // The caller as this bot sees them (each bot has its own view of who is where).
        let caller = players
            .iter()
            .filter(|(seen_by, info, _)| seen_by.0 == line.bot && info.name.eq_ignore_ascii_case(&line.from))
            .map(|(_, _, pos)| pos.0)
            .min_by(|a, b| a.distance(my_pos.0).total_cmp(&b.distance(my_pos.0)));
        let Some(at) = caller else { continue };
        let id = commands.run(line.bot, WalkCmd::to(at, 2.0));
        walks.0.insert(id, (line.bot, line.from.clone()));
    }
}

/// A refused walk (no path, busy) or one already there answers at once; a started walk answers
/// with its completion.
fn report(
    mut answers: MessageReader<Answer<WalkCmd>>,
    mut done: MessageReader<ActionDone<WalkDone>>,
    mut commands: BotCommands,
    mut walks: ResMut<Calls>,
) {
    for answer in answers.read() {
        let reply = match &answer.result {
            Ok(walk) if walk.walking => continue,
            Ok(_) => "Here, {caller}!".to_owned(),
            Err(e) => format!("Sorry {{caller}}, I can't get there ({})", e.message),
        };
        if let Some((bot, caller)) = walks.0.remove(&answer.id) {
            commands.run(bot, Chat::say(reply.replace("{caller}", &caller)));
        }
    }
    for walk in done.read() {
        let Some(id) = walk.outcome.id.as_u64().map(CommandId) else { continue };
        let Some((bot, caller)) = walks.0.remove(&id) else { continue };
        let reply = match &walk.outcome.reason {
            None => format!("Here, {caller}!"),
            Some(why) => format!("Sorry {caller}, I can't get there ({why})"),
        };
        commands.run(bot, Chat::say(reply));
    }
}

/// The behaviour: add it to the app.
pub struct ComeHerePlugin;

impl Plugin for ComeHerePlugin {
    fn build(&self, app: &mut App) {
        app.init_resource::<Calls>().add_systems(Update, (answer_calls, report).in_set(TickSet::Actions));
    }
}

#[allow(dead_code)]
fn main() -> std::process::ExitCode {
    clawcraft::cli::init_logging();
    clawcraft::cli::run_with(clawcraft::config::Config::load(), |app| {
        app.add_plugins(ComeHerePlugin);
    })
}
