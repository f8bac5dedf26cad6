//! A behaviour plugin in one file: when a player says "come" in chat, the bot walks to the nearest
//! player who said it and answers in chat when it arrives (or says why it could not).
//!
//! It shows the action model from a user's side: the plugin reads the bot's events (`msg`,
//! `walk_done`), starts the built-in `walk` action through the same command path an agent uses
//! (`PendingCommands`), remembers the request id, and reacts to the one completion event that
//! carries it — whatever ended the walk (arrival, a wall, death, an abort).
//!
//! ```text
//! HOST=127.0.0.1 PORT=19132 cargo run --example come_here
//! (in game) Alice: come here
//! ```

use bevy_app::{App, Plugin, Update};
use bevy_ecs::prelude::*;
use clawcraft::core::{AgentEvent, CommandRequest, LocalBot, PendingCommands, Position, TickSet};
use serde_json::{Map, Value, json};

/// Walks still expected to end, by request id, with who called.
#[derive(Resource, Default)]
pub struct Calls {
    pending: Vec<(String, String)>,
    next: u64,
}

/// Queues a command as the agent would send it (responses go to origin 0, stdout).
fn queue(pending: &mut PendingCommands, id: &str, action: &str, params: Value) {
    let params: Map<String, Value> = params.as_object().cloned().unwrap_or_default();
    pending.0.push_back(CommandRequest { origin: 0, id: json!(id), action: action.into(), params });
}

/// "come" in chat → walk to the caller (the nearest player of that name the bot sees).
fn answer_calls(
    mut events: MessageReader<AgentEvent>,
    mut calls: ResMut<Calls>,
    mut pending: ResMut<PendingCommands>,
    bots: Query<&Position, With<LocalBot>>,
    players: Query<(&clawcraft_entity::PlayerInfo, &clawcraft_entity::EntityPosition)>,
) {
    let Some(me) = bots.iter().next().map(|p| p.0) else { return };
    for e in events.read() {
        match e.kind.as_str() {
            "msg" => {
                let text = e.fields.get("msg").and_then(Value::as_str).unwrap_or_default().to_lowercase();
                let from = e.fields.get("from").and_then(Value::as_str).unwrap_or_default();
                if from.is_empty() || !text.split(|c: char| !c.is_alphanumeric()).any(|w| w == "come") {
                    continue;
                }
                let caller = players
                    .iter()
                    .filter(|(info, _)| info.name.eq_ignore_ascii_case(from))
                    .map(|(_, pos)| pos.0)
                    .min_by(|a, b| a.distance(me).total_cmp(&b.distance(me)));
                let Some(at) = caller else { continue };
                calls.next += 1;
                let id = format!("come-{}", calls.next);
                let walk = json!({"x": at.x, "y": at.y, "z": at.z, "range": 2.0});
                queue(&mut pending, &id, "walk", walk);
                calls.pending.push((id, from.to_owned()));
            }
            "walk_done" => {
                let id = e.fields.get("id").and_then(Value::as_str).unwrap_or_default();
                let Some(i) = calls.pending.iter().position(|(p, _)| p == id) else { continue };
                let (id, caller) = calls.pending.remove(i);
                let status = e.fields.get("status").and_then(Value::as_str).unwrap_or_default();
                let reply = if status == "done" {
                    format!("Here, {caller}!")
                } else {
                    let why = e.fields.get("reason").and_then(Value::as_str).unwrap_or("no reason");
                    format!("Sorry {caller}, I can't get there ({why})")
                };
                queue(&mut pending, &format!("{id}-reply"), "chat", json!({ "message": reply }));
            }
            _ => {}
        }
    }
}

/// The behaviour: add it to the app.
pub struct ComeHerePlugin;

impl Plugin for ComeHerePlugin {
    fn build(&self, app: &mut App) {
        app.init_resource::<Calls>().add_systems(Update, answer_calls.in_set(TickSet::Actions));
    }
}

#[allow(dead_code)]
fn main() -> std::process::ExitCode {
    clawcraft::cli::init_logging();
    clawcraft::cli::run_with(clawcraft::config::Config::load(), |app| {
        app.add_plugins(ComeHerePlugin);
    })
}
