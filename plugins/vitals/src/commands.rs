//! `vitals` and `respawn`.

use clawcraft_core::{AgentCommand, CommandCtx, CommandError, EntityIds, TickCount};
use clawcraft_network::Connection;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::events::Respawned;
use crate::{Bars, DeathState, Vitals};

/// `{"action":"vitals"}`: health, hunger, saturation, absorption, breath, level and effects.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct VitalsCmd {}

/// One active effect.
#[derive(Serialize, JsonSchema)]
pub struct EffectInfo {
    pub id: i32,
    pub name: String,
    pub amplifier: i32,
    /// Ticks, as last announced.
    pub duration: i32,
    /// Ticks left (estimated from the ticks since).
    pub remaining: i64,
}

/// Response of `vitals`.
#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct VitalsResponse {
    #[serde(flatten)]
    pub bars: Bars,
    pub effects: Vec<EffectInfo>,
    /// Other attributes by name (`minecraft:movement`, …).
    pub attributes: std::collections::BTreeMap<String, f64>,
}

impl AgentCommand for VitalsCmd {
    const NAME: &'static str = "vitals";
    const SUMMARY: &'static str = "Health, hunger, saturation, absorption, breath, level and active effects";
    const EXAMPLE: &'static str = r#"{"action":"vitals"}"#;
    const QUERY: bool = true;
    type Response = VitalsResponse;

    fn run(self, ctx: &mut CommandCtx<'_>) -> Result<VitalsResponse, CommandError> {
        let now = ctx.world.get_resource::<TickCount>().map_or(0, |t| t.0);
        let v = ctx.world.get::<Vitals>(ctx.bot).cloned().unwrap_or_default();
        let effects = v
            .effects
            .values()
            .map(|e| EffectInfo {
                id: e.id,
                name: e.name.clone(),
                amplifier: e.amplifier,
                duration: e.duration,
                remaining: (i64::from(e.duration) - now.saturating_sub(e.since_tick) as i64).max(0),
            })
            .collect();
        Ok(VitalsResponse { bars: v.bars(), effects, attributes: v.attributes })
    }
}

/// `{"action":"respawn"}`: respawn after death (PlayerAction respawn + Respawn client_ready).
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RespawnCmd {}

/// Response of `respawn`.
#[derive(Serialize, JsonSchema)]
pub struct RespawnResponse {
    pub respawned: bool,
    /// Feet position the server announced (Respawn state 1), if it did yet.
    pub pos: Option<clawcraft_core::Vec3>,
}

impl AgentCommand for RespawnCmd {
    const NAME: &'static str = "respawn";
    const SUMMARY: &'static str = "Respawn after death (automatic with CLAWCRAFT_RESPAWN=true)";
    const EXAMPLE: &'static str = r#"{"action":"respawn"}"#;
    type Response = RespawnResponse;

    fn run(self, ctx: &mut CommandCtx<'_>) -> Result<RespawnResponse, CommandError> {
        let bot = ctx.bot;
        let runtime_id = ctx.world.get::<EntityIds>(bot).ok_or_else(CommandError::not_spawned)?.runtime_id;
        if ctx.world.get::<Vitals>(bot).is_none_or(|v| v.alive) {
            return Err(CommandError::new("NOT_DEAD", "The bot is alive: nothing to respawn from"));
        }
        let mut q = ctx.world.query::<(&mut Vitals, &mut DeathState, &mut Connection)>();
        let (mut v, mut death, mut conn) = q.get_mut(ctx.world, bot).map_err(|_| CommandError::not_spawned())?;
        let pos = crate::respawn(runtime_id, &mut v, &mut death, &mut conn);
        ctx.world.write_message(clawcraft_core::AgentEvent::new(Respawned { bot, pos, auto: false }));
        Ok(RespawnResponse { respawned: true, pos })
    }
}
