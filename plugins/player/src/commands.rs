//! `pos` and `status`.

use bevy_ecs::prelude::*;
use clawcraft_core::{AgentCommand, BotStats, CommandError, Lifecycle, LocalBot, Position, Rotation, event::Uptime};
use serde::Deserialize;
use serde_json::{Map, Value, json};

use crate::input::InputState;

fn to_map(v: Value) -> Map<String, Value> {
    match v {
        Value::Object(m) => m,
        _ => Map::new(),
    }
}

/// `{"action":"pos"}`: feet position and rotation.
#[derive(Deserialize)]
pub struct Pos {}

impl AgentCommand for Pos {
    const NAME: &'static str = "pos";
    const SUMMARY: &'static str =
        "Current feet position and rotation (yaw/pitch in radians as ClawCraft, plus degrees)";

    fn run(self, world: &mut World, bot: Entity) -> Result<Map<String, Value>, CommandError> {
        let pos = world.get::<Position>(bot).copied().ok_or_else(CommandError::not_spawned)?;
        let rot = world.get::<Rotation>(bot).copied().unwrap_or_default();
        Ok(to_map(json!({
            "pos": pos.0.rounded(),
            "yaw": f64::from(rot.yaw).to_radians(),
            "pitch": f64::from(rot.pitch).to_radians(),
            "yawDegrees": rot.yaw,
            "pitchDegrees": rot.pitch,
        })))
    }
}

/// `{"action":"status"}`: connection and bot health summary. Works before spawn.
#[derive(Deserialize)]
pub struct Status {}

impl AgentCommand for Status {
    const NAME: &'static str = "status";
    const SUMMARY: &'static str = "Connection state, username, position, uptime and counters";
    const NEEDS_SPAWN: bool = false;

    fn run(self, world: &mut World, bot: Entity) -> Result<Map<String, Value>, CommandError> {
        let uptime = world.resource::<Uptime>().0.elapsed().as_secs();
        let lifecycle = world.get::<Lifecycle>(bot).copied().unwrap_or_default();
        let username = world.get::<LocalBot>(bot).map(|b| b.username.clone()).unwrap_or_default();
        let pos = world.get::<Position>(bot).map(|p| p.0.rounded());
        let stats = world.get::<BotStats>(bot).copied().unwrap_or_default();
        let next_tick = world.get::<InputState>(bot).map(|i| i.next_tick);
        Ok(to_map(json!({
            "connected": matches!(lifecycle, Lifecycle::Joining | Lifecycle::Spawned),
            "spawned": lifecycle == Lifecycle::Spawned,
            "state": format!("{lifecycle:?}").to_lowercase(),
            "username": username,
            "pos": pos,
            "uptime": uptime,
            "chunks": 0,
            "entities": {"players": 0, "mobs": 0, "items": 0},
            "inputTick": next_tick,
            "stats": {
                "inputsSent": stats.inputs_sent,
                "corrections": stats.corrections,
                "teleports": stats.teleports,
                "packetsReceived": stats.packets_received,
            },
        })))
    }
}
