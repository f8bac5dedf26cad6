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
use clawcraft::core::{AgentCommand, AppCommandExt, CommandCtx, CommandError, Rotation, TickSet};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

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
#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct Spin {
    /// Degrees to turn each tick, -180..180; 0 stops.
    degrees_per_tick: f32,
}

#[derive(Serialize, JsonSchema)]
struct SpinResponse {
    spinning: bool,
}

impl AgentCommand for Spin {
    const NAME: &'static str = "spin";
    const SUMMARY: &'static str = "Turn on the spot by degreesPerTick each tick (0 stops)";
    const EXAMPLE: &'static str = r#"{"action":"spin","degreesPerTick":10}"#;
    type Response = SpinResponse;

    fn run(self, ctx: &mut CommandCtx<'_>) -> Result<SpinResponse, CommandError> {
        if !self.degrees_per_tick.is_finite() || self.degrees_per_tick.abs() > 180.0 {
            return Err(CommandError::new("OUT_OF_RANGE", "degreesPerTick must be within -180..180"));
        }
        let mut bot = ctx.world.entity_mut(ctx.bot);
        if self.degrees_per_tick == 0.0 {
            bot.remove::<Spinning>();
        } else {
            bot.insert(Spinning { degrees_per_tick: self.degrees_per_tick });
        }
        Ok(SpinResponse { spinning: self.degrees_per_tick != 0.0 })
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
