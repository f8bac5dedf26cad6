//! The per-bot movement state, the intent actions write, the physics step and the server's
//! corrections.

use std::collections::VecDeque;

use bevy_ecs::prelude::*;
use clawcraft_core::gate::Arrivals;
use clawcraft_core::{AgentEvent, EntityIds, Lifecycle, NamedCell, Position, Rotation, TickCount, Vec3 as CoreVec3};
use clawcraft_network::{ClientboundPacket, Connection};
use clawcraft_physics::{Config, Input, Keys, Physics, PlayerState, TickOutput, Vec3};
use clawcraft_player::{InputState, MoveFrame, ServerMoveKind, ServerMovement};
use clawcraft_protocol::packets::{MobEffect, SetMovementAuthority, StartGame, UpdateAttributes};
use clawcraft_world::chunk::{BlockLookup, World as ChunkWorld};
use clawcraft_world::ids::BlockIds;
use schemars::JsonSchema;
use serde::Serialize;

use crate::blocks::{BlockTable, WorldView};

/// Ticks of inputs kept for re-simulation after a correction (the server's rewind window is 40
/// ticks in a 1.21.130 capture; a correction older than what is kept snaps instead).
const HISTORY: usize = 64;
/// A correction this close (squared blocks) to the prediction of its tick is ignored.
const IGNORE_SQ: f64 = 1e-5;

/// What the bot wants to do this tick. Actions write it in `ActionSet::Step`; the movement step
/// consumes it, so a bot nobody drives stands still.
#[derive(Component, Debug, Clone, Copy, PartialEq, Default)]
pub struct MovementIntent {
    /// Direction to move in, as a Bedrock yaw in degrees (0 = +Z south, 90 = −X west); `None`
    /// keeps still horizontally.
    pub direction: Option<f32>,
    pub jump: bool,
    pub sprint: bool,
    pub sneak: bool,
    /// Where to look, `(yaw, pitch)` in degrees. `None`: along `direction` while moving,
    /// otherwise unchanged (so `face` holds).
    pub look: Option<(f32, f32)>,
}

impl MovementIntent {
    /// Walk from `from` toward `to` (horizontally), looking where it goes.
    pub fn toward(from: CoreVec3, to: CoreVec3) -> Self {
        Self { direction: Some(yaw_toward(to.x - from.x, to.z - from.z)), ..Self::default() }
    }
}

/// The Bedrock yaw (degrees) of a horizontal direction: 0 faces +Z, 90 faces −X.
pub fn yaw_toward(dx: f64, dz: f64) -> f32 {
    (-dx).atan2(dz).to_degrees() as f32
}

/// `a − b` wrapped to (−180, 180].
fn angle_diff(a: f32, b: f32) -> f32 {
    let mut d = (a - b) % 360.0;
    if d > 180.0 {
        d -= 360.0;
    } else if d <= -180.0 {
        d += 360.0;
    }
    d
}

/// The keys (and yaw/pitch) a keyboard player would hold for `intent`, looking along
/// `current` when the intent names no look. Moving off the look direction picks the nearest of
/// the eight key directions (a positive relative angle is to the right).
pub fn input_of(intent: &MovementIntent, current: (f32, f32)) -> Input {
    let (yaw, pitch) = match (intent.look, intent.direction) {
        (Some(look), _) => look,
        (None, Some(dir)) => (dir, current.1),
        (None, None) => current,
    };
    let mut keys = Keys { jump: intent.jump, sneak: intent.sneak, ..Keys::default() };
    if let Some(dir) = intent.direction {
        let octant = (angle_diff(dir, yaw) / 45.0).round() as i32;
        match octant.rem_euclid(8) {
            0 => keys.up = true,
            1 => (keys.up, keys.right) = (true, true),
            2 => keys.right = true,
            3 => (keys.down, keys.right) = (true, true),
            4 => keys.down = true,
            5 => (keys.down, keys.left) = (true, true),
            6 => keys.left = true,
            _ => (keys.up, keys.left) = (true, true),
        }
        keys.sprint = intent.sprint && keys.up && !keys.left && !keys.right;
    }
    Input { keys, yaw, pitch, head_yaw: yaw, ..Input::default() }
}

/// One simulated tick, kept for re-simulation.
#[derive(Debug, Clone)]
struct Past {
    tick: u64,
    input: Input,
    /// The state before the tick.
    before: PlayerState,
    /// The feet position it predicted.
    after: Vec3,
}

/// The server's last word on our position.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ServerFix {
    pub feet: CoreVec3,
    /// The input tick it named.
    pub tick: u64,
    /// `start`, `correction`, `teleport`, `moved`.
    pub source: &'static str,
    /// Our tick count when it arrived.
    pub at: u64,
}

/// The movement state of a bot: the physics engine's player state, the inputs since the
/// server's last word (for re-simulation), and counters.
#[derive(Component, Debug)]
pub struct Mover {
    pub physics: Physics,
    pub state: PlayerState,
    history: VecDeque<Past>,
    /// The last tick's output.
    pub last: TickOutput,
    /// Whether the last tick was simulated (false: frozen, the ground had no data).
    pub simulated: bool,
    pub corrections: u64,
    /// Corrections that matched the prediction of their tick.
    pub ignored_corrections: u64,
    pub teleports: u64,
    pub motions: u64,
    /// Ticks re-simulated after corrections.
    pub resimulated_ticks: u64,
    pub server: Option<ServerFix>,
    /// Ticks that repeated a settled tick's output instead of running the physics.
    pub repeated_ticks: u64,
    /// Repeat a settled tick instead of simulating it (on by default; off simulates every tick,
    /// which the tests compare against).
    pub repeat_settled: bool,
    /// The input and the state of the last simulated tick when that tick left the state as it
    /// found it (a fixed point: a bot standing still). Physics is a pure function of the state,
    /// the input and the blocks, so the same input on the same state in an unchanged world gives
    /// the same output again.
    settled: Option<(Input, PlayerState)>,
    /// The Position this plugin wrote last; a different one was set by someone else (respawn,
    /// setpos) and is adopted.
    written: Option<CoreVec3>,
}

fn to_physics(v: CoreVec3) -> Vec3 {
    Vec3::new(v.x as f32, v.y as f32, v.z as f32)
}

fn to_core(v: Vec3) -> CoreVec3 {
    CoreVec3::new(f64::from(v.x), f64::from(v.y), f64::from(v.z))
}

impl Mover {
    pub fn new(feet: CoreVec3, game_version: &str) -> Self {
        Self {
            physics: Physics::new(Config::for_version(game_version)),
            state: PlayerState::new(to_physics(feet)),
            history: VecDeque::with_capacity(HISTORY),
            last: TickOutput::default(),
            simulated: false,
            corrections: 0,
            ignored_corrections: 0,
            teleports: 0,
            motions: 0,
            resimulated_ticks: 0,
            server: None,
            repeated_ticks: 0,
            repeat_settled: true,
            settled: None,
            written: None,
        }
    }

    /// Feet position.
    pub fn feet(&self) -> CoreVec3 {
        to_core(self.state.position)
    }

    /// Moves the player to `feet` at rest (a teleport, `setpos`); the history no longer applies.
    pub fn place(&mut self, feet: CoreVec3, announce: bool) {
        self.state.teleport(to_physics(feet), Vec3::ZERO, announce);
        self.history.clear();
    }

    /// Runs one tick and remembers it.
    fn tick(&mut self, tick: u64, input: Input, view: &WorldView<'_>) -> TickOutput {
        let before = self.state.clone();
        let out = self.physics.tick(&mut self.state, &input, view);
        self.settled = (self.state == before).then(|| (input, before.clone()));
        self.remember(tick, input, before);
        out
    }

    /// Records a tick for re-simulation after a correction: its input and the state before it.
    fn remember(&mut self, tick: u64, input: Input, before: PlayerState) {
        if self.history.len() == HISTORY {
            self.history.pop_front();
        }
        self.history.push_back(Past { tick, input, before, after: self.state.position });
    }

    /// Whether this tick may repeat the last one: it was simulated and settled, the input is
    /// the same, the state is untouched since (no correction, teleport, motion or effect), and
    /// the world is unchanged (`world_quiet`: no packet arrived, and only packets change blocks).
    fn may_repeat(&self, input: &Input, world_quiet: bool) -> bool {
        self.repeat_settled
            && world_quiet
            && self.simulated
            && self.settled.as_ref().is_some_and(|(i, s)| i == input && *s == self.state)
    }

    /// The settled tick's movement step (see [`Settled`](clawcraft_core::gate::Settled)): the
    /// input this tick's step repeats when it would repeat the last one in a quiet world — nobody
    /// drives the bot, nothing moved it since, and the last tick settled with the same input.
    /// [`Mover::repeat`] it then, as [`step_movement`] would.
    pub fn settled_input(&self, intent: &MovementIntent, pos: &Position, rot: &Rotation) -> Option<Input> {
        let input = input_of(intent, (rot.yaw, rot.pitch));
        let undriven = *intent == MovementIntent::default();
        (undriven && self.written == Some(pos.0) && self.may_repeat(&input, true)).then_some(input)
    }

    /// The last tick left the bot where it was (simulated or repeated): it stands still.
    pub fn is_settled(&self) -> bool {
        self.simulated && self.settled.as_ref().is_some_and(|(_, s)| *s == self.state)
    }

    /// Repeats the settled tick: the same output, remembered like a simulated one.
    pub fn repeat(&mut self, tick: u64, input: Input) {
        self.remember(tick, input, self.state.clone());
        self.repeated_ticks += 1;
    }

    /// Applies a correction of input tick `tick` and re-simulates the ticks since. Returns what
    /// we had predicted for that tick and how many ticks were re-simulated; `None` when the
    /// correction matched the prediction (and was ignored).
    fn correct(
        &mut self,
        tick: u64,
        feet: CoreVec3,
        delta: CoreVec3,
        on_ground: bool,
        view: Option<&WorldView<'_>>,
    ) -> Option<(CoreVec3, u32)> {
        let index = self.history.iter().position(|p| p.tick == tick);
        let predicted = index.map_or(self.feet(), |i| to_core(self.history[i].after));
        let diff = predicted.distance(feet);
        if index.is_some() && diff * diff <= IGNORE_SQ {
            self.ignored_corrections += 1;
            return None;
        }
        self.corrections += 1;
        let (Some(i), Some(view)) = (index, view) else {
            self.state.teleport(to_physics(feet), to_physics(delta), false);
            self.state.on_ground = on_ground;
            self.history.clear();
            return Some((predicted, 0));
        };
        // The state after tick `tick` is the one before the next recorded tick (or the current).
        let mut state = self.history.get(i + 1).map_or_else(|| self.state.clone(), |p| p.before.clone());
        state.teleport(to_physics(feet), to_physics(delta), false);
        state.on_ground = on_ground;
        self.history[i].after = state.position;
        let mut replayed = 0;
        for past in self.history.iter_mut().skip(i + 1) {
            past.before = state.clone();
            self.physics.tick(&mut state, &past.input, view);
            past.after = state.position;
            replayed += 1;
        }
        self.state = state;
        self.resimulated_ticks += u64::from(replayed);
        Some((predicted, replayed))
    }
}

/// The movement authority the server announced.
#[derive(Component, Debug, Clone, PartialEq, Eq)]
pub struct Authority {
    /// `server_with_rewind` (StartGame with a rewind window), `server`, or `client`.
    pub mode: String,
    /// StartGame's `rewind_history_size`.
    pub rewind_history_size: i32,
}

/// `position_desync`: the server disagreed with our position (a correction or a teleport).
#[derive(Message, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct PositionDesync {
    #[serde(skip)]
    pub bot: Entity,
    /// Feet position the server holds.
    pub server_pos: CoreVec3,
    /// Feet position we had predicted (for that tick).
    pub local_pos: CoreVec3,
    /// Blocks between them.
    pub drift: f64,
    /// `correction` (CorrectPlayerMovePrediction), `teleport` (MovePlayer teleport/reset) or
    /// `normal` (MovePlayer of our own player).
    pub mode: String,
    /// The input tick the server named.
    pub tick: u64,
    /// Ticks re-simulated from the corrected state.
    pub resimulated: u32,
}

clawcraft_core::event_kind!(
    PositionDesync,
    "position_desync",
    "The server corrected or teleported the bot: serverPos, localPos (our prediction), drift (blocks), mode"
);

/// Gives every bot that received StartGame a [`Mover`], a [`MovementIntent`] and a [`MoveFrame`].
#[allow(clippy::type_complexity)]
pub fn attach_mover(
    mut commands: Commands,
    ticks: Res<TickCount>,
    bots: Query<(Entity, &Position, &Connection), (With<InputState>, Without<Mover>)>,
) {
    for (bot, pos, conn) in &bots {
        let mut mover = Mover::new(pos.0, conn.protocol().info().game_version);
        mover.server = Some(ServerFix { feet: pos.0, tick: 0, source: "start", at: ticks.0 });
        commands.entity(bot).insert((mover, MovementIntent::default(), MoveFrame::default()));
    }
}

/// Movement authority from StartGame (a rewind window means `server_with_rewind`) and
/// SetMovementAuthority.
pub fn track_authority(mut packets: MessageReader<ClientboundPacket>, mut commands: Commands) {
    for packet in packets.read() {
        if let Some(start) = packet.view::<StartGame>() {
            let mode = if start.rewind_history_size > 0 { "server_with_rewind" } else { "server" };
            commands
                .entity(packet.bot)
                .insert(Authority { mode: mode.into(), rewind_history_size: start.rewind_history_size });
        } else if let Some(set) = packet.view::<SetMovementAuthority>() {
            let size = if set.movement_authority == "server_with_rewind" { 40 } else { 0 };
            commands
                .entity(packet.bot)
                .insert(Authority { mode: set.movement_authority.clone(), rewind_history_size: size });
        }
    }
}

/// Movement speed (UpdateAttributes `minecraft:movement`) and the movement effects (MobEffect).
pub fn track_speed(mut packets: MessageReader<ClientboundPacket>, mut bots: Query<(&EntityIds, &mut Mover)>) {
    for packet in packets.read() {
        let Ok((ids, mut mover)) = bots.get_mut(packet.bot) else { continue };
        if let Some(update) = packet.view::<UpdateAttributes>() {
            if update.runtime_entity_id != ids.runtime_id {
                continue;
            }
            if let Some(speed) = update.attributes.iter().find(|a| a.name == "minecraft:movement") {
                mover.state.attributes.movement_speed = speed.current;
            }
        } else if let Some(effect) = packet.view::<MobEffect>() {
            if effect.runtime_entity_id != ids.runtime_id {
                continue;
            }
            let level = if effect.event_id == "remove" { 0 } else { (effect.amplifier + 1).clamp(0, 255) as u8 };
            mover.state.effects.set_by_id(effect.effect_id, level);
        }
    }
}

/// Adopts what the server said about our movement (see [`ServerMovement`]): corrections are
/// applied at their tick and the inputs since re-simulated.
#[allow(clippy::type_complexity)]
pub fn apply_server_movement(
    mut moves: MessageReader<ServerMovement>,
    ticks: Res<TickCount>,
    mut bots: Query<(&mut Mover, &mut Position, Option<&ChunkWorld>, Option<&BlockIds>)>,
    mut events: MessageWriter<AgentEvent>,
) {
    for m in moves.read() {
        let bot = m.bot;
        let Ok((mut mover, mut pos, world, ids)) = bots.get_mut(bot) else { continue };
        let before = mover.feet();
        let table = ids.map(|ids| BlockTable::of(&ids.0.registry));
        let view = match (world, ids, &table) {
            (Some(w), Some(ids), Some(t)) => Some(WorldView::new(w, &ids.0, t)),
            _ => None,
        };
        let zero = CoreVec3::ZERO;
        let desync = match (m.kind, m.feet) {
            (ServerMoveKind::Motion, _) => {
                mover.state.velocity = to_physics(m.delta.unwrap_or(zero));
                mover.motions += 1;
                None
            }
            (ServerMoveKind::Teleport, Some(feet)) => {
                mover.place(feet, true);
                mover.teleports += 1;
                Some(("teleport", feet, before, 0))
            }
            (ServerMoveKind::Moved, Some(feet)) => {
                mover.place(feet, false);
                Some(("normal", feet, before, 0))
            }
            (ServerMoveKind::Correction, Some(feet)) => mover
                .correct(m.tick, feet, m.delta.unwrap_or(zero), m.on_ground, view.as_ref())
                .map(|(predicted, replayed)| ("correction", feet, predicted, replayed)),
            _ => None,
        };
        if let Some((mode, server, local, resimulated)) = desync {
            mover.server = Some(ServerFix { feet: server, tick: m.tick, source: mode, at: ticks.0 });
            let drift = (server.distance(local) * 1000.0).round() / 1000.0;
            tracing::debug!(mode, drift, resimulated, "position desync");
            events.write(AgentEvent::new(PositionDesync {
                bot,
                server_pos: server.rounded(),
                local_pos: local.rounded(),
                drift,
                mode: mode.into(),
                tick: m.tick,
                resimulated,
            }));
        }
        // Whatever happened, the position is the movement state's (the player plugin snapped it
        // to the server's; after a re-simulation we are past that).
        pos.0 = mover.feet();
        mover.written = Some(pos.0);
    }
}

/// The block `bot` stands on, as its physics collides with it (see
/// [`clawcraft_physics::supporting_cell`]): `pos` and `status` read it through
/// [`clawcraft_core::GroundProbe`]. `None` when airborne, in water, or when that cell has no data.
pub fn standing_on(world: &World, bot: Entity) -> Option<NamedCell> {
    let mover = world.get::<Mover>(bot)?;
    let chunks = world.get::<ChunkWorld>(bot)?;
    let ids = &world.get::<BlockIds>(bot)?.0;
    let table = BlockTable::of(&ids.registry);
    let view = WorldView::new(chunks, ids, &table);
    let [x, y, z] = clawcraft_physics::supporting_cell(&view, &mover.state)?;
    match chunks.get_block(x, y, z) {
        BlockLookup::Loaded(id, _) => Some(NamedCell { x, y, z, name: ids.name(id).to_owned() }),
        BlockLookup::Unloaded => None,
    }
}

/// How a fall goes on if nobody presses a key: [`predict_fall`]'s answer.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum FallCourse {
    /// The feet stop on a block after `ticks` physics steps (1: the next step).
    Lands {
        ticks: u32,
        /// The feet where they stop.
        feet: CoreVec3,
        /// The block that carries them ([`clawcraft_physics::supporting_cell`]).
        support: [i32; 3],
        /// Blocks fallen then: from where the fall began (the feet now plus the fall distance
        /// so far) down to `feet`.
        fall: f64,
    },
    /// The fall ends harmlessly after `ticks` steps: in water, on a climbable, in a block that
    /// slows it (the physics resets the fall distance there).
    Broken { ticks: u32 },
    /// Still falling after the horizon (or the bot has no movement state or blocks).
    Unknown,
}

/// The bot's fall stepped ahead by the movement plugin's own physics on its own blocks, from its
/// current state, with no key pressed and the look `(yaw, pitch)`, for at most `horizon` steps.
/// A server correction or a block change since makes the answer stale: ask again each tick.
pub fn predict_fall(world: &World, bot: Entity, look: (f32, f32), horizon: u32) -> FallCourse {
    let (Some(mover), Some(chunks), Some(ids)) =
        (world.get::<Mover>(bot), world.get::<ChunkWorld>(bot), world.get::<BlockIds>(bot))
    else {
        return FallCourse::Unknown;
    };
    let table = BlockTable::of(&ids.0.registry);
    let view = WorldView::new(chunks, &ids.0, &table);
    let mut physics = mover.physics.clone();
    let mut state = mover.state.clone();
    let top = f64::from(state.position.y) + f64::from(state.fall_distance);
    let input = Input { yaw: look.0, pitch: look.1, head_yaw: look.0, ..Input::default() };
    for ticks in 1..=horizon {
        let falling = state.fall_distance;
        physics.tick(&mut state, &input, &view);
        if state.on_ground {
            let Some(support) = clawcraft_physics::supporting_cell(&view, &state) else {
                return FallCourse::Unknown;
            };
            let feet = to_core(state.position);
            return FallCourse::Lands { ticks, feet, support, fall: top - feet.y };
        }
        if state.in_water || (falling > 0.0 && state.fall_distance == 0.0) {
            return FallCourse::Broken { ticks };
        }
    }
    FallCourse::Unknown
}

/// The physics step of the tick: intent → keys → one tick → [`MoveFrame`], [`Position`],
/// [`Rotation`].
#[allow(clippy::type_complexity)]
pub fn step_movement(
    mut bots: Query<(
        &Lifecycle,
        &InputState,
        &mut Mover,
        &mut MovementIntent,
        &mut MoveFrame,
        &mut Position,
        &mut Rotation,
        Option<&ChunkWorld>,
        Option<&BlockIds>,
        Option<&clawcraft_core::gate::SettledBot>,
    )>,
    arrivals: Option<Res<Arrivals>>,
) {
    let world_quiet = arrivals.is_some_and(|a| a.packets == 0);
    for (lifecycle, input_state, mut mover, mut intent, mut frame, mut pos, mut rot, world, ids, settled) in &mut bots {
        // The runner stepped a settled bot already.
        if clawcraft_core::gate::SettledBot::this_tick(settled) {
            continue;
        }
        // Consuming the intent is not a change anyone watches (an idle tick marks nothing).
        let intent = std::mem::take(intent.bypass_change_detection());
        if *lifecycle != Lifecycle::Spawned || input_state.skip_ticks > 0 {
            continue;
        }
        if mover.written.is_some_and(|w| w != pos.0) || mover.written.is_none() {
            // Moved by someone else (respawn, setpos, the spawn itself): start from there.
            let feet = pos.0;
            mover.place(feet, false);
        }
        let input = input_of(&intent, (rot.yaw, rot.pitch));
        if mover.may_repeat(&input, world_quiet) {
            // Standing still: the MoveFrame, Position and Rotation of the last tick stand.
            mover.repeat(input_state.next_tick, input);
            continue;
        }
        let table = ids.map(|ids| BlockTable::of(&ids.0.registry));
        let view = match (world, ids, &table) {
            (Some(w), Some(ids), Some(t)) => Some(WorldView::new(w, &ids.0, t)),
            _ => None,
        };
        let feet = mover.state.position;
        let ground_known = view.as_ref().is_some_and(|v| {
            let (x, y, z) = (feet.x.floor() as i32, (feet.y - 0.01).floor() as i32, feet.z.floor() as i32);
            v.is_loaded(x, y, z)
        });
        match view.filter(|_| ground_known) {
            Some(view) => {
                let out = mover.tick(input_state.next_tick, input, &view);
                mover.last = out;
                mover.simulated = true;
                frame.set_if_neq(MoveFrame {
                    eye: [out.position.x, out.position.y, out.position.z],
                    delta: [out.delta.x, out.delta.y, out.delta.z],
                    move_vector: out.move_vector,
                    raw_move_vector: out.raw_move_vector,
                    analogue_move_vector: [0.0, 0.0],
                    yaw: out.yaw,
                    pitch: out.pitch,
                    head_yaw: out.head_yaw,
                    flags: out.flags.names().collect(),
                });
                // Standing still keeps the exact position (the box's float32 centre would
                // otherwise add noise below a millionth of a block).
                if mover.state.position != to_physics(pos.0) {
                    pos.0 = mover.feet();
                }
            }
            None => {
                // No ground data yet: stand where we are, say nothing about movement.
                mover.simulated = false;
                let eye = pos.0.offset_y(clawcraft_core::EYE_HEIGHT);
                *frame = MoveFrame {
                    eye: [eye.x as f32, eye.y as f32, eye.z as f32],
                    yaw: input.yaw,
                    pitch: input.pitch,
                    head_yaw: input.yaw,
                    ..MoveFrame::default()
                };
            }
        }
        rot.set_if_neq(Rotation { yaw: input.yaw, pitch: input.pitch });
        mover.written = Some(pos.0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_follow_the_direction_relative_to_the_look() {
        let straight = input_of(&MovementIntent { direction: Some(90.0), ..Default::default() }, (0.0, 5.0));
        assert!(straight.keys.up && !straight.keys.left && !straight.keys.right);
        assert_eq!((straight.yaw, straight.pitch), (90.0, 5.0), "turns to the direction, keeps the pitch");
        // Looking south (yaw 0) while moving west (yaw 90): west is on the right.
        let strafe = input_of(
            &MovementIntent { direction: Some(90.0), look: Some((0.0, 0.0)), ..Default::default() },
            (0.0, 0.0),
        );
        assert!(strafe.keys.right && !strafe.keys.up);
        let back = input_of(
            &MovementIntent { direction: Some(-175.0), look: Some((0.0, 0.0)), ..Default::default() },
            (0.0, 0.0),
        );
        assert!(back.keys.down);
        let sprint = input_of(&MovementIntent { direction: Some(0.0), sprint: true, ..Default::default() }, (0.0, 0.0));
        assert!(sprint.keys.sprint && sprint.keys.up);
        let idle = input_of(&MovementIntent::default(), (33.0, 7.0));
        assert_eq!((idle.yaw, idle.pitch, idle.keys), (33.0, 7.0, Keys::default()));
    }

    #[test]
    fn yaw_convention() {
        assert_eq!(yaw_toward(0.0, 1.0), 0.0);
        assert_eq!(yaw_toward(-1.0, 0.0), 90.0);
        assert!((yaw_toward(1.0, 0.0) + 90.0).abs() < 1e-5);
    }
}
