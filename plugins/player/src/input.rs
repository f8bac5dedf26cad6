//! The per-tick PlayerAuthInput: movement is server-authoritative, so a spawned bot sends one
//! every tick, `tick` strictly +1 on the server's clock, with its eye position.
//!
//! One packet per tick is built here, in [`InputSet::Send`], from three sources:
//! - [`MoveFrame`]: what the movement step of this tick produced (eye position, delta, move
//!   vectors, rotation, movement flags). The movement plugin writes it in [`InputSet::Simulate`];
//!   without it (no movement plugin) the bot stands still at its [`Position`].
//! - [`InputExtras`]: what other plugins add to this tick's packet — block actions, item
//!   interaction, an item-stack request, extra input flags. Push to it any time before
//!   [`InputSet::Send`] (an action's step in `ActionSet::Step` is the usual place); it is drained
//!   into exactly one packet.
//! - [`InputState`]: the tick clock (StartGame's `current_tick`, +1 every game tick from then on,
//!   moved forward when the server's corrections name a later tick) and `handled_teleport`.

use bevy_ecs::prelude::*;
use clawcraft_core::{BotStats, EYE_HEIGHT, Lifecycle, Position, Rotation};
use clawcraft_network::Connection;
use clawcraft_protocol::codec::Value;
use clawcraft_protocol::packets::{AuthInputTransaction, BlockAction, PlayerAuthInput, Vec2, Vec3 as WireVec3};

/// Order inside `TickSet::Input`: the movement step, then the packet.
#[derive(SystemSet, Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum InputSet {
    /// Movement turns the tick's intent into a [`MoveFrame`] (physics step).
    Simulate,
    /// The tick's PlayerAuthInput is built and queued.
    Send,
}

/// Input bookkeeping of a bot that received StartGame.
#[derive(Component, Debug, Clone, Default, PartialEq)]
pub struct InputState {
    /// The `tick` of the next PlayerAuthInput, on the server's clock.
    pub next_tick: u64,
    /// Set after a server teleport; the next input carries `handled_teleport`.
    pub handled_teleport: bool,
    /// Ticks to wait before the first input (the spawn tick sends the initialisation instead).
    pub skip_ticks: u32,
}

impl InputState {
    /// Starts the clock at StartGame's `current_tick`.
    pub fn at_server_tick(current_tick: i64) -> Self {
        Self { next_tick: u64::try_from(current_tick).unwrap_or(0), ..Self::default() }
    }

    /// A server packet named input tick `tick` as processed: our clock must be past it. Returns
    /// how far the clock jumped (0 when it was already ahead).
    pub fn follow_server_tick(&mut self, tick: u64) -> u64 {
        let wanted = tick.saturating_add(1);
        let jump = wanted.saturating_sub(self.next_tick);
        self.next_tick = self.next_tick.max(wanted);
        jump
    }
}

/// The movement part of this tick's PlayerAuthInput, written by the movement step.
#[derive(Component, Debug, Clone, PartialEq, Default)]
pub struct MoveFrame {
    /// Eye position at the end of the tick.
    pub eye: [f32; 3],
    /// Velocity at the end of the tick (blocks/tick).
    pub delta: [f32; 3],
    /// Move vector (x = left, z = forward), sneak-scaled.
    pub move_vector: [f32; 2],
    /// Move vector before the sneak scale.
    pub raw_move_vector: [f32; 2],
    /// Analogue stick, when the movement came from one.
    pub analogue_move_vector: [f32; 2],
    pub yaw: f32,
    pub pitch: f32,
    pub head_yaw: f32,
    /// Input flags by minecraft-data name (`up`, `jumping`, `sprinting`, `vertical_collision`, …).
    pub flags: Vec<&'static str>,
}

/// What other plugins add to this tick's PlayerAuthInput. Drained into one packet per tick.
///
/// Setting `block_actions` adds the `block_action` flag (perform block actions), `transaction`
/// adds `item_interact`, `item_stack_request` adds `item_stack_request`; `flags` are added as
/// named (minecraft-data `InputData` names, e.g. `start_using_item`, `missed_swing`). The codec
/// writes them for the connection's version; game code never checks versions.
#[derive(Component, Debug, Clone, PartialEq, Default)]
pub struct InputExtras {
    /// Extra input flags by name.
    pub flags: Vec<&'static str>,
    /// Block actions (start/continue/abort/predict break …) of this tick, in order.
    pub block_actions: Vec<BlockAction>,
    /// Item interaction transaction (PlayerAuthInput's `transaction` field, typed: legacy part,
    /// actions, UseItem data; the codec writes each version's layout).
    pub transaction: Option<AuthInputTransaction>,
    /// Item stack request riding in the input.
    pub item_stack_request: Option<Value>,
}

impl InputExtras {
    /// Adds a flag once.
    pub fn flag(&mut self, name: &'static str) {
        if !self.flags.contains(&name) {
            self.flags.push(name);
        }
    }

    fn is_empty(&self) -> bool {
        self.flags.is_empty()
            && self.block_actions.is_empty()
            && self.transaction.is_none()
            && self.item_stack_request.is_none()
    }

    /// Moves everything into `packet`, leaving this empty.
    pub fn drain_into(&mut self, packet: &mut PlayerAuthInput) {
        let flags = &mut packet.input_data;
        let mut add = |f: &str| {
            if !flags.iter().any(|x| x == f) {
                flags.push(f.to_owned());
            }
        };
        for f in self.flags.drain(..) {
            add(f);
        }
        if !self.block_actions.is_empty() {
            add("block_action");
            packet.block_action = Some(std::mem::take(&mut self.block_actions));
        }
        if let Some(t) = self.transaction.take() {
            add("item_interact");
            packet.transaction = Some(t);
        }
        if let Some(r) = self.item_stack_request.take() {
            add("item_stack_request");
            packet.item_stack_request = Some(r);
        }
    }
}

/// Advances the tick clock of bots that are not sending yet (joining, or the spawn tick), so the
/// first input names the server's current tick rather than the one StartGame carried.
pub fn advance_idle_clock(mut bots: Query<(&Lifecycle, &mut InputState)>) {
    for (lifecycle, mut input) in &mut bots {
        if *lifecycle == Lifecycle::Joining {
            input.next_tick = input.next_tick.saturating_add(1);
        }
    }
}

/// The packet of a [`MoveFrame`].
fn packet_of(frame: &MoveFrame, tick: u64) -> PlayerAuthInput {
    let [x, y, z] = frame.eye.map(f64::from);
    let mut p = PlayerAuthInput::idle([x, y, z], frame.yaw, frame.pitch, tick, &frame.flags);
    p.head_yaw = frame.head_yaw;
    p.delta = WireVec3 { x: frame.delta[0], y: frame.delta[1], z: frame.delta[2] };
    p.move_vector = Vec2 { x: frame.move_vector[0], z: frame.move_vector[1] };
    p.raw_move_vector = Vec2 { x: frame.raw_move_vector[0], z: frame.raw_move_vector[1] };
    p.analogue_move_vector = Vec2 { x: frame.analogue_move_vector[0], z: frame.analogue_move_vector[1] };
    p
}

#[allow(clippy::type_complexity)]
pub fn send_player_auth_input(
    mut bots: Query<(
        &mut Connection,
        &Lifecycle,
        &Position,
        &Rotation,
        &mut InputState,
        &mut BotStats,
        Option<&MoveFrame>,
        Option<&mut InputExtras>,
    )>,
) {
    for (mut conn, lifecycle, pos, rot, mut input, mut stats, frame, extras) in &mut bots {
        if *lifecycle != Lifecycle::Spawned {
            continue;
        }
        if input.skip_ticks > 0 {
            input.skip_ticks -= 1;
            input.next_tick = input.next_tick.saturating_add(1);
            continue;
        }
        let mut packet = match frame {
            Some(frame) => packet_of(frame, input.next_tick),
            None => {
                let eye = pos.0.offset_y(EYE_HEIGHT);
                PlayerAuthInput::idle([eye.x, eye.y, eye.z], rot.yaw, rot.pitch, input.next_tick, &[])
            }
        };
        if std::mem::take(&mut input.handled_teleport) && !packet.has_flag("handled_teleport") {
            packet.input_data.push("handled_teleport".into());
        }
        if let Some(mut extras) = extras
            && !extras.is_empty()
        {
            extras.drain_into(&mut packet);
        }
        conn.send(&packet);
        input.next_tick = input.next_tick.saturating_add(1);
        stats.inputs_sent += 1;
    }
}
