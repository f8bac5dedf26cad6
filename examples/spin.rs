//! A behaviour plugin in one file: the bot turns on the spot while `spin` is on.
//!
//! It shows the whole architecture from a user's side: a component present only while the
//! behaviour is active, a system in the tick's `Actions` set that changes the bot's rotation
//! (the `PlayerAuthInput` of the same tick carries it to the server), and an agent command
//! registered in one line.
//!
//! ```text
//! HOST=127.0.0.1 PORT=19132 cargo run --example spin
//! {"action":"spin","degreesPerTick":10}
//! {"action":"spin","degreesPerTick":0}
//! ```

use std::process::ExitCode;

use bevy_app::{App, Plugin, Update};
use bevy_ecs::prelude::*;
use clawcraft::core::{AgentCommand, AppCommandExt, CommandError, Rotation, TickSet};
use serde::Deserialize;
use serde_json::{Map, Value, json};

/// Present on a bot while it spins.
#[derive(Component)]
struct Spinning {
    degrees_per_tick: f32,
}

fn spin(mut bots: Query<(&Spinning, &mut Rotation)>) {
    for (spinning, mut rot) in &mut bots {
        rot.yaw = (rot.yaw + spinning.degrees_per_tick).rem_euclid(360.0);
    }
}

/// `{"action":"spin","degreesPerTick":N}`; 0 stops.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct Spin {
    degrees_per_tick: f32,
}

impl AgentCommand for Spin {
    const NAME: &'static str = "spin";
    const SUMMARY: &'static str = "Turn on the spot by degreesPerTick each tick (0 stops)";

    fn run(self, world: &mut World, bot: Entity) -> Result<Map<String, Value>, CommandError> {
        if !self.degrees_per_tick.is_finite() || self.degrees_per_tick.abs() > 180.0 {
            return Err(CommandError::new("OUT_OF_RANGE", "degreesPerTick must be within -180..180"));
        }
        let mut bot = world.entity_mut(bot);
        if self.degrees_per_tick == 0.0 {
            bot.remove::<Spinning>();
        } else {
            bot.insert(Spinning { degrees_per_tick: self.degrees_per_tick });
        }
        Ok(json!({"spinning": self.degrees_per_tick != 0.0}).as_object().cloned().unwrap_or_default())
    }
}

struct SpinPlugin;

impl Plugin for SpinPlugin {
    fn build(&self, app: &mut App) {
        app.add_systems(Update, spin.in_set(TickSet::Actions)).add_agent_command::<Spin>();
    }
}

fn main() -> ExitCode {
    clawcraft::cli::init_logging();
    clawcraft::cli::run_with(clawcraft::config::Config::load(), |app| {
        app.add_plugins(SpinPlugin);
    })
}
