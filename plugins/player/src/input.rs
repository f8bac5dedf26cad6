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
use clawcraft_core::{BotStats, EYE_HEIGHT, Lifecycle, Position, Rotation, Vec3};
use clawcraft_network::Connection;
use clawcraft_protocol::codec::{CodecError, Protocol, Value};
use clawcraft_protocol::io::WriteExt;
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
    /// The last input's encoding, reused while the input repeats.
    pub encoding: RepeatedInput,
}

/// The last PlayerAuthInput's encoding split around its `tick`, reused while the input repeats
/// (a bot standing still sends the same input every tick but for the tick). The generic encoder
/// builds a value tree and walks the version's layout: work an idle tick should not redo 20
/// times a second, from cold caches. The split is learnt from the encoder itself on the
/// second identical input, and checked against a full encoding with a multi-byte tick, so it
/// never writes bytes the encoder would not.
///
/// While what the packet is built from repeats too ([`InputSource`]: the tick's movement frame,
/// nothing extra), the packet is not even built: the last split is spliced at once.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RepeatedInput {
    /// The last packet encoded, with `tick` 0, and the version it was encoded for.
    last: Option<(PlayerAuthInput, &'static str)>,
    /// Its encoding without the tick: the bytes before and after the tick's varint.
    split: Option<(Vec<u8>, Vec<u8>)>,
    /// What `last` was built from, when it was built from that alone.
    source: Option<InputSource>,
}

/// What a plain PlayerAuthInput (no teleport acknowledgement, no [`InputExtras`]) is built from,
/// but for its tick: the same source always builds the same packet.
#[derive(Debug, Clone, PartialEq)]
pub enum InputSource {
    /// The movement step's frame.
    Frame(MoveFrame),
    /// No movement plugin: the bot's position and rotation.
    Still { pos: Vec3, yaw: f32, pitch: f32 },
}

impl InputSource {
    /// The packet for `tick`.
    fn packet(&self, tick: u64) -> PlayerAuthInput {
        match self {
            Self::Frame(frame) => packet_of(frame, tick),
            Self::Still { pos, yaw, pitch } => {
                let eye = pos.offset_y(EYE_HEIGHT);
                PlayerAuthInput::idle([eye.x, eye.y, eye.z], *yaw, *pitch, tick, &[])
            }
        }
    }
}

impl RepeatedInput {
    /// The body for `tick` when the input repeats the last plain one (see
    /// [`RepeatedInput::repeating`]).
    pub fn repeat(
        &self,
        protocol: &Protocol,
        frame: Option<&MoveFrame>,
        still: &InputSource,
        tick: u64,
    ) -> Option<Vec<u8>> {
        let split = self.repeating(protocol, frame, still)?;
        let mut body = Vec::new();
        split.write(tick, &mut body);
        Some(body)
    }

    /// The split to splice when the input repeats the last plain one — built from the same
    /// `frame`, or without one from the same `still` source — and its split is known. Compares
    /// the sources only: the packet is not built.
    pub fn repeating(&self, protocol: &Protocol, frame: Option<&MoveFrame>, still: &InputSource) -> Option<Split<'_>> {
        let (Some((before, after)), Some((_, version)), Some(last)) =
            (self.split.as_ref(), self.last.as_ref(), self.source.as_ref())
        else {
            return None;
        };
        let same = match (last, frame) {
            (InputSource::Frame(last), Some(frame)) => last == frame,
            (last, None) => last == still,
            (InputSource::Still { .. }, Some(_)) => false,
        };
        (same && *version == protocol.info().game_version).then_some(Split { before, after })
    }

    /// Like [`RepeatedInput::encode`], for a packet built from `source` alone (`None`: it carries
    /// more, and is not repeated by source).
    pub fn encode_from(
        &mut self,
        protocol: &Protocol,
        packet: PlayerAuthInput,
        source: Option<InputSource>,
    ) -> Result<Vec<u8>, CodecError> {
        let body = self.encode(protocol, packet);
        self.source = source.filter(|_| body.is_ok());
        body
    }

    /// The body of `packet`: spliced from the split when it repeats the last input, else encoded.
    pub fn encode(&mut self, protocol: &Protocol, mut packet: PlayerAuthInput) -> Result<Vec<u8>, CodecError> {
        let tick = std::mem::take(&mut packet.tick);
        let version = protocol.info().game_version;
        if self.last.as_ref().is_some_and(|(last, v)| *last == packet && *v == version) {
            if self.split.is_none() {
                self.split = learn_split(protocol, &packet);
            }
            if let Some((before, after)) = &self.split {
                return Ok(splice(before, tick, after));
            }
        } else {
            self.split = None;
        }
        packet.tick = tick;
        let body = protocol.encode(&packet);
        packet.tick = 0;
        self.last = Some((packet, version));
        body
    }
}

/// Where the tick sits in `packet`'s encoding (`packet.tick` is 0): the encodings for ticks 1
/// and 2 differ in exactly one byte, the tick's; a multi-byte tick must then splice to the
/// encoder's own bytes (a plain varint). `None` when any of that does not hold.
fn learn_split(protocol: &Protocol, packet: &PlayerAuthInput) -> Option<(Vec<u8>, Vec<u8>)> {
    let mut probe = packet.clone();
    probe.tick = 1;
    let one = protocol.encode(&probe).ok()?;
    probe.tick = 2;
    let two = protocol.encode(&probe).ok()?;
    if one.len() != two.len() {
        return None;
    }
    let mut differ = (0..one.len()).filter(|&i| one[i] != two[i]);
    let at = differ.next()?;
    if differ.next().is_some() || one[at] != 1 {
        return None;
    }
    let (before, after) = (one[..at].to_vec(), one[at + 1..].to_vec());
    probe.tick = 300_000;
    let check = protocol.encode(&probe).ok()?;
    (splice(&before, probe.tick, &after) == check).then_some((before, after))
}

fn splice(before: &[u8], tick: u64, after: &[u8]) -> Vec<u8> {
    let mut body = Vec::new();
    splice_into(before, tick, after, &mut body);
    body
}

/// A repeated input's body around its tick (see [`RepeatedInput::repeating`]).
pub struct Split<'a> {
    before: &'a [u8],
    after: &'a [u8],
}

impl Split<'_> {
    /// Appends the body for `tick` to `body`.
    pub fn write(&self, tick: u64, body: &mut Vec<u8>) {
        splice_into(self.before, tick, self.after, body);
    }
}

/// Appends the body for `tick` (the split's two parts around the tick's varu64) to `body`.
fn splice_into(before: &[u8], tick: u64, after: &[u8], body: &mut Vec<u8>) {
    body.reserve(before.len() + 10 + after.len());
    body.extend_from_slice(before);
    body.put_var_u64(tick);
    body.extend_from_slice(after);
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

    /// Nothing to add to the next packet.
    pub fn is_empty(&self) -> bool {
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

/// Queues the body of the last plain input with `tick` spliced in, when this one repeats it
/// (see [`RepeatedInput::repeating`]).
fn send_spliced(
    encoding: &RepeatedInput,
    conn: &mut Connection,
    frame: Option<&MoveFrame>,
    still: &InputSource,
    tick: u64,
) -> bool {
    let Some(split) = encoding.repeating(conn.protocol(), frame, still) else { return false };
    // Into the buffer of a body already sent: an idle tick allocates nothing.
    let mut body = conn.spare_buffer();
    split.write(tick, &mut body);
    conn.send_raw(body);
    true
}

impl InputState {
    /// Whether a spawned bot's input this tick repeats its last one but for the tick (no
    /// teleport to acknowledge, nothing extra, the same frame): what a settled tick (see
    /// [`Settled`](clawcraft_core::gate::Settled)) checks before it runs.
    pub fn repeats(
        &self,
        conn: &Connection,
        pos: &Position,
        rot: &Rotation,
        frame: Option<&MoveFrame>,
        extras: Option<&InputExtras>,
    ) -> bool {
        let still = InputSource::Still { pos: pos.0, yaw: rot.yaw, pitch: rot.pitch };
        self.skip_ticks == 0
            && !self.handled_teleport
            && extras.is_none_or(InputExtras::is_empty)
            && self.encoding.repeating(conn.protocol(), frame, &still).is_some()
    }

    /// A settled tick's input: queues the repeated body, as [`send_player_auth_input`] would for
    /// a spawned bot whose input [`InputState::repeats`]. False (and nothing changed) otherwise.
    pub fn send_repeated(
        &mut self,
        conn: &mut Connection,
        pos: &Position,
        rot: &Rotation,
        frame: Option<&MoveFrame>,
        stats: &mut BotStats,
    ) -> bool {
        let still = InputSource::Still { pos: pos.0, yaw: rot.yaw, pitch: rot.pitch };
        let tick = self.next_tick;
        if self.skip_ticks > 0 || self.handled_teleport || !send_spliced(&self.encoding, conn, frame, &still, tick) {
            return false;
        }
        self.next_tick = tick.saturating_add(1);
        stats.inputs_sent += 1;
        true
    }
}

/// Builds and queues each spawned bot's PlayerAuthInput for this tick (in [`InputSet::Send`]).
#[allow(clippy::type_complexity)]
pub fn send_player_auth_input(
    mut bots: Query<(
        Option<&mut Connection>,
        &Lifecycle,
        Option<&Position>,
        Option<&Rotation>,
        &mut InputState,
        &mut BotStats,
        Option<&MoveFrame>,
        Option<&mut InputExtras>,
        Option<&clawcraft_core::gate::SettledBot>,
    )>,
) {
    for (conn, lifecycle, pos, rot, mut input, mut stats, frame, extras, settled) in &mut bots {
        // The runner sent a settled bot's input already.
        if clawcraft_core::gate::SettledBot::this_tick(settled) {
            continue;
        }
        // A bot not sending yet (joining) still advances its tick clock, so its first input
        // names the server's current tick rather than the one StartGame carried.
        if *lifecycle == Lifecycle::Joining {
            input.next_tick = input.next_tick.saturating_add(1);
            continue;
        }
        let (Lifecycle::Spawned, Some(mut conn), Some(pos), Some(rot)) = (*lifecycle, conn, pos, rot) else {
            continue;
        };
        if input.skip_ticks > 0 {
            input.skip_ticks -= 1;
            input.next_tick = input.next_tick.saturating_add(1);
            continue;
        }
        let tick = input.next_tick;
        input.next_tick = tick.saturating_add(1);
        stats.inputs_sent += 1;
        let still = InputSource::Still { pos: pos.0, yaw: rot.yaw, pitch: rot.pitch };
        let plain = !input.handled_teleport && extras.as_ref().is_none_or(|e| e.is_empty());
        // An idle bot's input: the same as the last one but for the tick.
        if plain && send_spliced(&input.encoding, &mut conn, frame, &still, tick) {
            continue;
        }
        let source = frame.map_or(still, |frame| InputSource::Frame(frame.clone()));
        let mut packet = source.packet(tick);
        if std::mem::take(&mut input.handled_teleport) && !packet.has_flag("handled_teleport") {
            packet.input_data.push("handled_teleport".into());
        }
        if let Some(mut extras) = extras
            && !extras.is_empty()
        {
            extras.drain_into(&mut packet);
        }
        let protocol = conn.protocol().clone();
        match input.encoding.encode_from(&protocol, packet, plain.then_some(source)) {
            Ok(body) => conn.send_raw(body),
            Err(e) => tracing::error!(error = %e, "failed to encode player_auth_input"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn standing(tick: u64) -> PlayerAuthInput {
        PlayerAuthInput::idle([0.5, -58.38, 0.5], 90.0, 10.0, tick, &[])
    }

    #[test]
    fn a_repeated_input_is_spliced_to_the_encoders_own_bytes() {
        for info in Protocol::versions() {
            let protocol = Protocol::load(info.game_version).expect("bundled version");
            let mut cache = RepeatedInput::default();
            for tick in [5, 6, 7, 127, 128, 300_000, u64::MAX] {
                let body = cache.encode(&protocol, standing(tick)).expect("encodable");
                assert_eq!(
                    body,
                    protocol.encode(&standing(tick)).expect("encodable"),
                    "{} tick {tick}",
                    info.game_version
                );
            }
            assert!(cache.split.is_some(), "{}: the split was learnt", info.game_version);
        }
    }

    #[test]
    fn a_repeated_source_splices_without_building_the_packet() {
        let protocol = Protocol::load(Protocol::default_version().game_version).expect("bundled version");
        let frame =
            MoveFrame { eye: [0.5, -56.8, 0.5], yaw: 90.0, flags: vec!["vertical_collision"], ..MoveFrame::default() };
        let still = InputSource::Still { pos: Vec3::new(0.5, -58.38, 0.5), yaw: 90.0, pitch: 10.0 };
        let mut cache = RepeatedInput::default();
        for tick in [1, 2] {
            assert_eq!(cache.repeat(&protocol, Some(&frame), &still, tick), None, "tick {tick}: nothing learnt yet");
            let source = InputSource::Frame(frame.clone());
            cache.encode_from(&protocol, source.packet(tick), Some(source)).expect("encodable");
        }
        for tick in [3, 128, 300_000] {
            let body = cache.repeat(&protocol, Some(&frame), &still, tick).expect("the frame repeats");
            assert_eq!(body, protocol.encode(&packet_of(&frame, tick)).expect("encodable"), "tick {tick}");
        }
        let mut moved = frame.clone();
        moved.eye[0] += 0.25;
        assert_eq!(cache.repeat(&protocol, Some(&moved), &still, 4), None, "a moved frame is built again");
        assert_eq!(cache.repeat(&protocol, None, &still, 4), None, "no frame is another source");
        // A packet that carried more than its source is never repeated by source.
        let mut teleported = packet_of(&frame, 5);
        teleported.input_data.push("handled_teleport".into());
        cache.encode_from(&protocol, teleported, None).expect("encodable");
        assert_eq!(cache.repeat(&protocol, Some(&frame), &still, 6), None);
    }

    #[test]
    fn a_changed_input_is_encoded_again() {
        let protocol = Protocol::load(Protocol::default_version().game_version).expect("bundled version");
        let mut cache = RepeatedInput::default();
        cache.encode(&protocol, standing(1)).expect("encodable");
        cache.encode(&protocol, standing(2)).expect("encodable");
        assert!(cache.split.is_some());
        let mut moved = standing(3);
        moved.position.x += 0.25;
        let body = cache.encode(&protocol, moved.clone()).expect("encodable");
        assert_eq!(body, protocol.encode(&moved).expect("encodable"));
        assert!(cache.split.is_none(), "a new input forgets the old split");
    }
}
