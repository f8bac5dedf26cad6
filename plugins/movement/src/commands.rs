//! `setpos`, `tp`, `server_pos` and `movement_info`.

use bevy_ecs::prelude::*;
use clawcraft_core::{
    AgentCommand, CommandCtx, CommandError, CommandResponse, DeferredReply, Position, Rotation, TickCount, Vec3,
};
use clawcraft_network::Connection;
use clawcraft_player::{InputState, ServerMoveKind, ServerMovement};
use clawcraft_protocol::packets::CommandRequest;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::mover::{Authority, Mover};

/// A point the bot may be sent to (finite, inside the world's limits).
pub fn check_point(x: f64, y: f64, z: f64) -> Result<Vec3, CommandError> {
    let ok = [x, y, z].iter().all(|v| v.is_finite()) && x.abs() <= 30_000_000.0 && z.abs() <= 30_000_000.0;
    if ok && (-2048.0..=2048.0).contains(&y) {
        Ok(Vec3::new(x, y, z))
    } else {
        Err(CommandError::out_of_range("coordinates must be finite, x/z within ±30 000 000 and y within ±2048"))
    }
}

fn feet(ctx: &CommandCtx<'_>) -> Result<Vec3, CommandError> {
    ctx.world.get::<Position>(ctx.bot).map(|p| p.0).ok_or_else(CommandError::not_spawned)
}

fn now(ctx: &CommandCtx<'_>) -> u64 {
    ctx.world.get_resource::<TickCount>().map_or(0, |t| t.0)
}

/// `{"action":"setpos","x":0.5,"y":-60,"z":0.5}`: move the bot's own idea of its position (no
/// server teleport; a server that disagrees corrects it).
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SetPos {
    pub x: f64,
    pub y: f64,
    pub z: f64,
    /// Degrees.
    pub yaw: Option<f32>,
    /// Degrees.
    pub pitch: Option<f32>,
}

/// Response of `setpos`.
#[derive(Serialize, JsonSchema)]
pub struct PosOnly {
    pub pos: Vec3,
}

impl AgentCommand for SetPos {
    const NAME: &'static str = "setpos";
    const SUMMARY: &'static str =
        "Client-side position override (no server teleport; the server corrects it if it disagrees)";
    const EXAMPLE: &'static str = r#"{"action":"setpos","x":0.5,"y":-60,"z":0.5}"#;
    type Response = PosOnly;

    fn run(self, ctx: &mut CommandCtx<'_>) -> Result<PosOnly, CommandError> {
        let target = check_point(self.x, self.y, self.z)?;
        let angles_ok = self.yaw.is_none_or(f32::is_finite) && self.pitch.is_none_or(f32::is_finite);
        if !angles_ok {
            return Err(CommandError::out_of_range("yaw and pitch must be finite"));
        }
        // Both parts of the position are there before either changes: a refusal moves nothing.
        if ctx.world.get::<Mover>(ctx.bot).is_none() || ctx.world.get::<Position>(ctx.bot).is_none() {
            return Err(CommandError::not_spawned());
        }
        if let Some(mut mover) = ctx.world.get_mut::<Mover>(ctx.bot) {
            mover.place(target, false);
        }
        if let Some(mut pos) = ctx.world.get_mut::<Position>(ctx.bot) {
            pos.0 = target;
        }
        if let Some(mut rot) = ctx.world.get_mut::<Rotation>(ctx.bot) {
            rot.yaw = self.yaw.unwrap_or(rot.yaw);
            rot.pitch = self.pitch.unwrap_or(rot.pitch).clamp(-90.0, 90.0);
        }
        Ok(PosOnly { pos: target.rounded() })
    }
}

/// A `tp` waiting for the server's teleport.
#[derive(Component, Debug, Clone)]
pub struct PendingTp {
    reply: DeferredReply,
    deadline: u64,
}

/// `{"action":"tp","x":0,"y":-60,"z":0}`: teleport through the server command `/tp` (needs
/// the permission); answers once the server's teleport arrives.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Tp {
    pub x: f64,
    pub y: f64,
    pub z: f64,
    /// Degrees.
    pub yaw: Option<f32>,
}

/// Response of `tp`.
#[derive(Serialize, JsonSchema)]
pub struct TpResponse {
    pub teleported: bool,
    /// Feet position the server put the bot at.
    pub pos: Vec3,
}

impl AgentCommand for Tp {
    const NAME: &'static str = "tp";
    const SUMMARY: &'static str =
        "Teleport with the server command /tp (needs the permission); answers when the server moved the bot";
    const EXAMPLE: &'static str = r#"{"action":"tp","x":10.5,"y":-60,"z":3.5}"#;
    type Response = TpResponse;

    fn run(self, ctx: &mut CommandCtx<'_>) -> Result<TpResponse, CommandError> {
        let target = check_point(self.x, self.y, self.z)?;
        if ctx.world.get::<PendingTp>(ctx.bot).is_some() {
            return Err(CommandError::busy("teleporting", "wait for the previous tp"));
        }
        let yaw = match self.yaw {
            Some(y) if y.is_finite() => format!(" {y} 0"),
            Some(_) => return Err(CommandError::out_of_range("yaw must be finite")),
            None => String::new(),
        };
        let line = format!("/tp @s {} {} {}{yaw}", target.x, target.y, target.z);
        let uuid = uuid::Uuid::new_v4().to_string();
        ctx.world
            .get_mut::<Connection>(ctx.bot)
            .ok_or_else(CommandError::not_spawned)?
            .send(&CommandRequest::player(&line, &uuid));
        let reply = ctx.defer();
        let deadline = now(ctx) + 100;
        ctx.world.entity_mut(ctx.bot).insert(PendingTp { reply, deadline });
        Ok(TpResponse { teleported: false, pos: target })
    }
}

/// Answers a pending `tp` when the teleport arrives, or with `TIMEOUT` after 5 s.
pub fn finish_tp(
    mut commands: Commands,
    mut moves: MessageReader<ServerMovement>,
    ticks: Res<TickCount>,
    pending: Query<(Entity, &PendingTp)>,
    mut responses: MessageWriter<CommandResponse>,
) {
    for m in moves.read() {
        if m.kind != ServerMoveKind::Teleport {
            continue;
        }
        let (Ok((bot, tp)), Some(pos)) = (pending.get(m.bot), m.feet) else { continue };
        responses.write(tp.reply.respond(Ok(TpResponse { teleported: true, pos: pos.rounded() })));
        commands.entity(bot).remove::<PendingTp>();
    }
    for (bot, tp) in &pending {
        if ticks.0 >= tp.deadline {
            let e = CommandError::new(
                "TIMEOUT",
                "no teleport from the server within 5 s (does the bot have /tp permission?)",
            );
            responses.write(tp.reply.respond::<TpResponse>(Err(e)));
            commands.entity(bot).remove::<PendingTp>();
        }
    }
}

/// The query `server_pos` sends.
pub const QUERY_TARGET: &str = "/querytarget @s";
/// Ticks `server_pos` waits for the server's answer.
const SERVER_POS_WAIT: u64 = 100;

/// `{"action":"server_pos"}`: where the server holds the bot now. It asks the server
/// (`/querytarget @s` as the bot's own CommandRequest, its output matched by the request's
/// origin UUID) and answers that position with its age; when the server cannot answer (no
/// permission, unknown command, no answer in 5 s) it is an error naming why. The last position
/// the server sent on its own (spawn, correction, teleport) is `lastServerPos`, never the answer.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ServerPos {}

/// The last position the server sent on its own.
#[derive(Serialize, JsonSchema, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct LastServerPos {
    /// Feet position.
    pub pos: Vec3,
    /// `start`, `correction`, `teleport` or `moved`.
    pub source: String,
    /// The input tick the server named.
    pub tick: u64,
    /// Game ticks since it arrived.
    pub age_ticks: u64,
}

/// Response of `server_pos`.
#[derive(Serialize, JsonSchema, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct ServerPosResponse {
    /// Feet position the server answered (`/querytarget` reports a player's eye; this is 1.62
    /// below it).
    pub server_pos: Vec3,
    /// Game ticks between asking and the answer: the position is at most this old.
    pub age_ticks: u64,
    /// `querytarget`.
    pub source: String,
    /// Our feet position when the answer arrived.
    pub local_pos: Vec3,
    /// Blocks between the two.
    pub drift: f64,
    /// Yaw in radians (as `pos`).
    pub yaw: f64,
    /// The last position the server sent on its own (spawn, correction, teleport), if any.
    pub last_server_pos: Option<LastServerPos>,
}

/// `server_pos` requests waiting for the server's `/querytarget` output.
#[derive(Component, Debug, Clone, Default)]
pub struct PendingServerPos {
    entries: Vec<ServerPosQuery>,
}

#[derive(Debug, Clone)]
struct ServerPosQuery {
    uuid: String,
    reply: DeferredReply,
    sent: u64,
}

impl AgentCommand for ServerPos {
    const NAME: &'static str = "server_pos";
    const SUMMARY: &'static str = "Where the server holds the bot now (/querytarget @s, with its age); an error naming why when the server cannot say";
    const EXAMPLE: &'static str = r#"{"action":"server_pos"}"#;
    type Response = ServerPosResponse;

    fn run(self, ctx: &mut CommandCtx<'_>) -> Result<ServerPosResponse, CommandError> {
        feet(ctx)?;
        let uuid = uuid::Uuid::new_v4().to_string();
        ctx.world
            .get_mut::<Connection>(ctx.bot)
            .ok_or_else(CommandError::not_spawned)?
            .send(&CommandRequest::player(QUERY_TARGET, &uuid));
        let reply = ctx.defer();
        let query = ServerPosQuery { uuid, reply, sent: now(ctx) };
        match ctx.world.get_mut::<PendingServerPos>(ctx.bot) {
            Some(mut p) => p.entries.push(query),
            None => {
                ctx.world.entity_mut(ctx.bot).insert(PendingServerPos { entries: vec![query] });
            }
        }
        // Deferred: answered when the output arrives.
        Ok(ServerPosResponse {
            server_pos: Vec3::ZERO,
            age_ticks: 0,
            source: String::new(),
            local_pos: Vec3::ZERO,
            drift: 0.0,
            yaw: 0.0,
            last_server_pos: None,
        })
    }
}

/// The feet position in a `/querytarget` output (`commands.querytarget.success`, whose parameter
/// is a JSON array of `{dimension, position, uniqueId, yRot}`; the position is a player's eye).
pub fn querytarget_feet(output: &clawcraft_protocol::packets::CommandOutput) -> Option<Vec3> {
    let line = output.output.iter().find(|m| m.success && m.message_id.ends_with("querytarget.success"))?;
    line.parameters.iter().find_map(|p| {
        let v: serde_json::Value = serde_json::from_str(p).ok()?;
        let first = v.as_array().and_then(|a| a.first()).unwrap_or(&v);
        let pos = first.get("position")?;
        let (x, y, z) = (pos.get("x")?.as_f64()?, pos.get("y")?.as_f64()?, pos.get("z")?.as_f64()?);
        [x, y, z].iter().all(|c| c.is_finite()).then(|| Vec3::new(x, y - clawcraft_core::EYE_HEIGHT, z))
    })
}

/// Why a `/querytarget` output holds no position, in words.
fn querytarget_refusal(output: &clawcraft_protocol::packets::CommandOutput) -> String {
    let keys: Vec<&str> = output.output.iter().map(|m| m.message_id.as_str()).collect();
    let why = if keys.iter().any(|k| k.contains("generic.unknown")) {
        "the server does not know the command, or the bot lacks the permission to run it"
    } else if keys.iter().any(|k| k.contains("permission")) {
        "the bot lacks the permission to run it"
    } else if keys.iter().any(|k| k.contains("noTargetMatch")) {
        "the server found no such target"
    } else {
        "the server answered without a position"
    };
    format!("{QUERY_TARGET} failed: {why} ({})", if keys.is_empty() { "no output".to_owned() } else { keys.join(", ") })
}

/// Answers `server_pos` from the server's CommandOutput (matched by origin UUID), or with an
/// error after [`SERVER_POS_WAIT`] ticks without one.
#[allow(clippy::type_complexity)]
pub fn answer_server_pos(
    mut packets: MessageReader<clawcraft_network::ClientboundPacket>,
    mut bots: Query<(Entity, &mut PendingServerPos, Option<&Position>, Option<&Rotation>, Option<&Mover>)>,
    ticks: Res<TickCount>,
    mut responses: MessageWriter<CommandResponse>,
    mut commands: Commands,
) {
    let outputs: Vec<_> = packets
        .read()
        .filter_map(|p| p.view::<clawcraft_protocol::packets::CommandOutput>().map(|o| (p.bot, o)))
        .collect();
    for (bot, mut pending, pos, rot, mover) in &mut bots {
        let local = pos.map_or(Vec3::ZERO, |p| p.0);
        let last = mover.and_then(|m| m.server).map(|fix| LastServerPos {
            pos: fix.feet.rounded(),
            source: fix.source.into(),
            tick: fix.tick,
            age_ticks: ticks.0.saturating_sub(fix.at),
        });
        for (_, out) in outputs.iter().filter(|(b, _)| *b == bot) {
            let uuid = out.origin.uuid.to_ascii_lowercase();
            let Some(i) = pending.entries.iter().position(|q| q.uuid == uuid) else { continue };
            let query = pending.entries.remove(i);
            let result = match querytarget_feet(out) {
                Some(server) => Ok(ServerPosResponse {
                    server_pos: server.rounded(),
                    age_ticks: ticks.0.saturating_sub(query.sent),
                    source: "querytarget".into(),
                    local_pos: local.rounded(),
                    drift: (server.distance(local) * 1000.0).round() / 1000.0,
                    yaw: rot.map_or(0.0, |r| f64::from(r.yaw).to_radians()),
                    last_server_pos: last.clone(),
                }),
                None => Err(CommandError::new("REJECTED", querytarget_refusal(out))),
            };
            responses.write(query.reply.respond(result));
        }
        pending.entries.retain(|q| {
            let live = ticks.0 < q.sent + SERVER_POS_WAIT;
            if !live {
                let e = CommandError::new(
                    "TIMEOUT",
                    format!(
                        "no answer from the server to {QUERY_TARGET} within 5 s (it may not have the command, or answer commands only in chat)"
                    ),
                );
                responses.write(query_error(&q.reply, e));
            }
            live
        });
        if pending.entries.is_empty() {
            commands.entity(bot).remove::<PendingServerPos>();
        }
    }
}

fn query_error(reply: &DeferredReply, e: CommandError) -> CommandResponse {
    reply.respond::<ServerPosResponse>(Err(e))
}

/// `{"action":"movement_info"}`: the movement authority mode and the correction counts.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct MovementInfo {}

/// Response of `movement_info`.
#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct MovementInfoResponse {
    /// `server_with_rewind`, `server` or `client`.
    pub authority: String,
    pub rewind_history_size: i32,
    pub pos: Vec3,
    /// Corrections adopted (each re-simulated from its tick).
    pub corrections: u64,
    /// Corrections that matched our prediction.
    pub ignored_corrections: u64,
    pub teleports: u64,
    /// SetEntityMotion velocities applied.
    pub motions: u64,
    pub resimulated_ticks: u64,
    /// Ticks that repeated a settled tick (standing still, nothing changed) instead of running
    /// the physics.
    pub repeated_ticks: u64,
    /// The tick of the next PlayerAuthInput.
    pub input_tick: u64,
    /// Whether the last tick ran the physics (false while the ground has no data).
    pub simulating: bool,
    pub on_ground: bool,
    /// Velocity, blocks per tick.
    pub velocity: Vec3,
    /// `minecraft:movement` (0.1 walking).
    pub movement_speed: f32,
}

impl AgentCommand for MovementInfo {
    const NAME: &'static str = "movement_info";
    const SUMMARY: &'static str =
        "Movement authority mode, rewind window, correction/teleport counts and physics state";
    const EXAMPLE: &'static str = r#"{"action":"movement_info"}"#;
    const QUERY: bool = true;
    type Response = MovementInfoResponse;

    fn run(self, ctx: &mut CommandCtx<'_>) -> Result<MovementInfoResponse, CommandError> {
        let pos = feet(ctx)?;
        let authority = ctx.world.get::<Authority>(ctx.bot).cloned();
        let input_tick = ctx.world.get::<InputState>(ctx.bot).map_or(0, |i| i.next_tick);
        let m = ctx.world.get::<Mover>(ctx.bot).ok_or_else(CommandError::not_spawned)?;
        let v = m.state.velocity;
        let r = |x: f32| (f64::from(x) * 1e4).round() / 1e4;
        Ok(MovementInfoResponse {
            authority: authority.as_ref().map_or_else(|| "server".into(), |a| a.mode.clone()),
            rewind_history_size: authority.map_or(0, |a| a.rewind_history_size),
            pos: pos.rounded(),
            corrections: m.corrections,
            ignored_corrections: m.ignored_corrections,
            teleports: m.teleports,
            motions: m.motions,
            resimulated_ticks: m.resimulated_ticks,
            repeated_ticks: m.repeated_ticks,
            input_tick,
            simulating: m.simulated,
            on_ground: m.state.on_ground,
            velocity: Vec3::new(r(v.x), r(v.y), r(v.z)),
            movement_speed: m.state.attributes.movement_speed,
        })
    }
}
