//! Using the hand on blocks and in the air: `interact` (doors, trapdoors, gates, levers,
//! buttons), `sleep` and `wake`, `use` (the held item on a block or in the air). Each clicks the
//! way a real client does (a plain `click_block` / `click_air` item-use transaction and an arm
//! swing) and ends in a receipt built from the server's answer:
//!
//! - `interact_done`: the block's new state from the server's block update (`previous` →
//!   `properties`); `failed`/`no_change` when the server changed nothing (an iron door by hand).
//! - `sleep_done` + ClawCraft's `sleep_started{bedPos}`: the server's sleeping state (the
//!   `sleeping` entity flag of our own player) and the position it moved us to (`position`, from
//!   its MovePlayer / correction); `failed` when it refused, with a stable reason
//!   ([`SleepRefusal`]: `not_night`, `monsters_nearby`, …) and its message key as `message`.
//! - `wake_done`: the sleeping flag cleared (or the server's wake-up animation).
//! - `use_done`: whatever the server showed within a second — block changes at or next to the
//!   block, the held stack changing, a CompletedUsingItem — else `failed`/`no_effect`.

use bevy_ecs::prelude::*;
use bevy_ecs::world::EntityRef;
use clawcraft_core::{
    ActionSlot, ActionStatus, AgentCommand, AgentEvent, AsyncAction, AsyncInfo, CommandCtx, CommandError, EYE_HEIGHT,
    EndActionExt, EntityIds, Outcome, Position, TickCount, Vec3,
};
use clawcraft_inventory::Inventory;
use clawcraft_network::{ClientboundPacket, Connection};
use clawcraft_player::{ServerMoveKind, ServerMovement};
use clawcraft_protocol::codec::Value as WireValue;
use clawcraft_protocol::packets::{Animate, CompletedUsingItem, PlayerAction, SetEntityData, Text};
use clawcraft_world::ids::BlockIds;
use clawcraft_world::query::properties_json;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::common::{
    Aim, BlockXyz, Senses, aim_at, cell_of, click_air, click_block, face_from_id, hand_free, inventory, swing, turn_to,
};
use crate::use_slot::{ItemCount, USE_SLOT};

/// Ticks to wait for the server to show an effect.
const CONFIRM_TICKS: u64 = 20;
/// Ticks to wait for the sleeping state (the server checks the time, monsters, the bed).
const SLEEP_TICKS: u64 = 40;
/// Ticks to wait, once asleep, for the server to move us onto the bed (a server that moves
/// nobody ends the sleep with `position: null` after them).
const SLEEP_POSITION_TICKS: u64 = 10;

/// Whether a block name is something `interact` works on.
pub fn is_interactable(name: &str) -> bool {
    let n = name.strip_prefix("minecraft:").unwrap_or(name);
    n.ends_with("door") || n.ends_with("trapdoor") || n.ends_with("fence_gate") || n == "lever" || n.ends_with("button")
}

/// Whether a block name is a bed.
pub fn is_bed(name: &str) -> bool {
    let n = name.strip_prefix("minecraft:").unwrap_or(name);
    n == "bed" || n.ends_with("_bed")
}

// ---------------------------------------------------------------------------------------------
// interact
// ---------------------------------------------------------------------------------------------

/// The running `interact` action.
#[derive(Component, Debug, Clone)]
pub struct Interacting {
    pub pos: [i32; 3],
    aim: Aim,
    id: u32,
    pub block: String,
    pub previous: Map<String, Value>,
    pub properties: Option<Map<String, Value>>,
    /// The cell whose state changed (the clicked one, or the other half of a door).
    pub changed_at: Option<[i32; 3]>,
    sent: Option<u64>,
}

/// `interact_done`.
#[derive(Serialize, JsonSchema, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct InteractDone {
    pub block: String,
    pub pos: BlockXyz,
    /// True only when the server's block update changed the block's state.
    pub confirmed: bool,
    /// The state before.
    pub previous: Map<String, Value>,
    /// The state the server sent (null when it sent none).
    pub properties: Option<Map<String, Value>>,
    /// Where the change showed (the clicked cell, or a door's other half).
    pub changed_at: Option<BlockXyz>,
}
clawcraft_core::evidence!(
    InteractDone,
    "interact_done",
    "An interact ended: confirmed by the server's block update, previous → properties as evidence"
);

impl AsyncAction for Interacting {
    const SLOT: ActionSlot = USE_SLOT;
    type Evidence = InteractDone;

    fn evidence(&self, _outcome: &Outcome, _bot: EntityRef<'_>) -> InteractDone {
        InteractDone {
            block: self.block.clone(),
            pos: self.pos.into(),
            confirmed: self.properties.is_some(),
            previous: self.previous.clone(),
            properties: self.properties.clone(),
            changed_at: self.changed_at.map(Into::into),
        }
    }
}

/// A block target.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BlockTarget {
    pub x: f64,
    pub y: f64,
    pub z: f64,
    /// Face to click (0 down … 5 east); default: the nearest visible one.
    pub face: Option<i64>,
}

/// Response of `interact`.
#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct InteractResponse {
    /// True: the click was sent (the server's verdict is `interact_done`).
    pub interacted: bool,
    pub block: String,
    pub pos: BlockXyz,
    pub confirmed: bool,
}

/// Checks and aims at a block target.
fn target(ctx: &CommandCtx<'_>, t: &BlockTarget) -> Result<([i32; 3], Aim, u32, String), CommandError> {
    let cell = cell_of(t.x, t.y, t.z)?;
    let want = match t.face {
        Some(f) => Some(face_from_id(f).ok_or_else(|| CommandError::out_of_range("face must be 0-5"))?),
        None => None,
    };
    let s = Senses::of(ctx)?;
    let id = s.id_at(cell)?;
    if s.is_empty(id) {
        return Err(CommandError::new("INVALID_TARGET", format!("Nothing at {} {} {}", cell[0], cell[1], cell[2])));
    }
    let aim = aim_at(&s, cell, want)?;
    Ok((cell, aim, id, s.name(id)))
}

impl AgentCommand for BlockTarget {
    const NAME: &'static str = "interact";
    const SUMMARY: &'static str = "Open/close a door, trapdoor or gate, flip a lever, press a button at x,y,z; async, ends in interact_done with the block's new state from the server";
    const EXAMPLE: &'static str = r#"{"action":"interact","x":3,"y":-60,"z":0}"#;
    const ASYNC: Option<AsyncInfo> = Some(AsyncInfo::of::<Interacting>());
    type Response = InteractResponse;

    fn run(self, ctx: &mut CommandCtx<'_>) -> Result<InteractResponse, CommandError> {
        hand_free(ctx)?;
        inventory(ctx)?;
        let (cell, aim, id, block) = target(ctx, &self)?;
        let action = prepare_interact(ctx.world, ctx.bot, cell, aim, id, block.clone())?;
        ctx.start(Self::NAME, action, CONFIRM_TICKS + 40)?;
        Ok(InteractResponse { interacted: true, block, pos: cell.into(), confirmed: false })
    }
}

/// Clicking a door, gate, lever or button at `cell` (aimed at with [`aim_at`]), for any owner of
/// the click (`interact`, a walk opening a door on its way): checks the block is one, records
/// its state, turns to it. The click goes out on the first [`advance_interacting`].
pub fn prepare_interact(
    world: &mut World,
    bot: Entity,
    cell: [i32; 3],
    aim: Aim,
    id: u32,
    block: String,
) -> Result<Interacting, CommandError> {
    if !is_interactable(&block) {
        return Err(CommandError::new(
            "INVALID_TARGET",
            format!("{block} is not a door, trapdoor, gate, lever or button (sleep for beds, use for anything else)"),
        ));
    }
    let previous =
        world.get::<BlockIds>(bot).and_then(|t| t.0.state(id).map(|s| properties_json(&s))).unwrap_or_default();
    turn_to(world, bot, aim.point);
    Ok(Interacting { pos: cell, aim, id, block, previous, properties: None, changed_at: None, sent: None })
}

impl Interacting {
    /// Where the click aims.
    pub fn aim_point(&self) -> clawcraft_core::Vec3 {
        self.aim.point
    }
}

/// Clicks, then watches the block (and a door's other half) for the server's new state.
#[allow(clippy::type_complexity)]
pub fn step_interacting(
    mut commands: Commands,
    mut packets: MessageReader<ClientboundPacket>,
    mut bots: Query<(Entity, &mut Interacting, &Inventory, &mut Connection, &EntityIds, &Position, Option<&BlockIds>)>,
    ticks: Res<TickCount>,
) {
    for pkt in packets.read() {
        let Ok((_, mut a, _, _, _, _, ids)) = bots.get_mut(pkt.bot) else { continue };
        observe_interacting(&mut a, &crate::common::block_updates(pkt), ids);
    }
    for (bot, mut a, inv, mut conn, ids, pos, _) in &mut bots {
        if let Some((status, reason)) = advance_interacting(&mut a, inv, &mut conn, ids.runtime_id, pos.0, ticks.0) {
            commands.end_action(bot, USE_SLOT.name, status, reason);
        }
    }
}

/// What the server's block updates (`(cell, layer, network id)`) say of a click: the block's
/// new state (or the other half of a door's).
pub fn observe_interacting(a: &mut Interacting, updates: &[([i32; 3], u32, u32)], ids: Option<&BlockIds>) {
    if a.sent.is_none() {
        return;
    }
    for &(cell, layer, id) in updates {
        let near = cell[0] == a.pos[0] && cell[2] == a.pos[2] && (cell[1] - a.pos[1]).abs() <= 1;
        if layer != 0 || !near || (cell == a.pos && id == a.id) {
            continue;
        }
        let Some(state) = ids.and_then(|t| t.0.state(id)) else { continue };
        if cell != a.pos && *state.name != *a.block {
            continue;
        }
        let props = properties_json(&state);
        if props != a.previous || cell != a.pos {
            a.properties = Some(props);
            a.changed_at = Some(cell);
        }
    }
}

/// One tick of a click, for any owner: the click, then the server's new state or `no_change`.
/// `Some((status, reason))` when it is over.
pub fn advance_interacting(
    a: &mut Interacting,
    inv: &Inventory,
    conn: &mut Connection,
    runtime_id: u64,
    feet: clawcraft_core::Vec3,
    now: u64,
) -> Option<(ActionStatus, Option<String>)> {
    match a.sent {
        None => {
            conn.send(&click_block(inv, feet.offset_y(EYE_HEIGHT), a.pos, &a.aim, a.id));
            conn.send(&swing(runtime_id, "useitem"));
            a.sent = Some(now);
            None
        }
        Some(_) if a.properties.is_some() => Some((ActionStatus::Done, None)),
        Some(at) if now >= at + CONFIRM_TICKS => Some((ActionStatus::Failed, Some("no_change".into()))),
        Some(_) => None,
    }
}

// ---------------------------------------------------------------------------------------------
// sleep / wake and the sleeping state
// ---------------------------------------------------------------------------------------------

/// The bot's sleeping state as the server sets it (the `sleeping` flag of our own player).
#[derive(Component, Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SleepState {
    pub sleeping: bool,
    /// The bed the server says we sleep in (`player_bed_position`).
    pub bed: Option<[i32; 3]>,
}

/// `sleep_started`: the server put the bot to sleep.
#[derive(Message, Serialize, JsonSchema, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct SleepStarted {
    #[serde(skip)]
    pub bot: Entity,
    pub bed_pos: Option<BlockXyz>,
}
clawcraft_core::event_kind!(
    SleepStarted,
    "sleep_started",
    "The server put you to sleep (its sleeping flag), in the bed at bedPos"
);

/// Whether our own player's metadata says it sleeps: the extended `sleeping` flag, or bit 1 of
/// `player_flags`. `None` when the packet says nothing about it.
pub fn sleeping_flag(data: &SetEntityData) -> (Option<bool>, Option<[i32; 3]>) {
    let mut sleeping = None;
    let mut bed = None;
    for e in &data.metadata {
        match e.key.as_str() {
            "flags_extended" => {
                if let Some(WireValue::Bool(b)) = e.value.get("sleeping") {
                    sleeping = Some(*b);
                }
            }
            "player_flags" => {
                if let Some(v) = e.value.as_i64() {
                    sleeping = Some(sleeping.unwrap_or(false) || v & 2 != 0);
                }
            }
            "player_bed_position" => {
                let c = |k: &str| e.value.get(k).and_then(WireValue::as_i64).and_then(|v| i32::try_from(v).ok());
                if let (Some(x), Some(y), Some(z)) = (c("x"), c("y"), c("z")) {
                    bed = Some([x, y, z]);
                }
            }
            _ => {}
        }
    }
    (sleeping, bed)
}

/// Tracks [`SleepState`] from our own SetEntityData and the wake-up animation; `sleep_started`
/// when sleep begins.
pub fn track_sleep(
    mut packets: MessageReader<ClientboundPacket>,
    mut bots: Query<(&EntityIds, &mut SleepState)>,
    mut events: MessageWriter<AgentEvent>,
) {
    for pkt in packets.read() {
        let Ok((ids, mut st)) = bots.get_mut(pkt.bot) else { continue };
        if let Some(d) = pkt.view::<SetEntityData>() {
            if d.runtime_entity_id != ids.runtime_id {
                continue;
            }
            let (sleeping, bed) = sleeping_flag(&d);
            if bed.is_some() {
                st.bed = bed;
            }
            match sleeping {
                Some(true) if !st.sleeping => {
                    st.sleeping = true;
                    events.write(AgentEvent::new(SleepStarted { bot: pkt.bot, bed_pos: st.bed.map(Into::into) }));
                }
                Some(false) => st.sleeping = false,
                _ => {}
            }
        } else if let Some(a) = pkt.view::<Animate>()
            && a.action_id == "wake_up"
            && a.runtime_entity_id == ids.runtime_id
        {
            st.sleeping = false;
        }
    }
}

/// Why the server refused a sleep: its message, read as a stable reason code.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SleepRefusal {
    /// `not_night`, `monsters_nearby`, `occupied`, `too_far`, `obstructed`, or `refused` for
    /// another bed message.
    pub reason: &'static str,
    /// The server's message: its translation key (`tile.bed.notSafe`) without colour codes or
    /// the `%` marker, or the text itself when it sent words.
    pub message: String,
}

/// Reads a server Text as a refused sleep: vanilla's `tile.bed.*` translation keys (as a
/// translation, popup or tip, with or without colour codes and the `%` marker), Java's
/// `block.minecraft.bed.*` keys, or the English texts of a server that sends words. Not a refusal:
/// `tile.bed.respawnSet` (vanilla sets the respawn point before it checks the time) and
/// `tile.bed.notValid` (a respawn message); players' chat never is one.
pub fn bed_refusal(t: &Text) -> Option<SleepRefusal> {
    if matches!(t.kind.as_str(), "chat" | "whisper" | "announcement" | "json_whisper") {
        return None;
    }
    let mut plain = String::with_capacity(t.message.len());
    let mut chars = t.message.chars();
    while let Some(c) = chars.next() {
        if c == '\u{a7}' {
            chars.next();
        } else {
            plain.push(c);
        }
    }
    let key = plain.trim().trim_start_matches('%');
    let refusal = |reason: &'static str| Some(SleepRefusal { reason, message: key.to_owned() });
    if let Some(k) = key.strip_prefix("tile.bed.").or_else(|| key.strip_prefix("block.minecraft.bed.")) {
        return match k {
            "noSleep" | "no_sleep" => refusal("not_night"),
            "notSafe" | "not_safe" => refusal("monsters_nearby"),
            "occupied" => refusal("occupied"),
            "tooFar" | "too_far_away" => refusal("too_far"),
            "obstructed" => refusal("obstructed"),
            "respawnSet" | "set_spawn" | "notValid" | "not_valid" => None,
            _ => refusal("refused"),
        };
    }
    let words = key.to_lowercase();
    if words.contains("monsters nearby") {
        refusal("monsters_nearby")
    } else if words.contains("sleep only at night") || words.contains("only sleep at night") {
        refusal("not_night")
    } else if words.contains("bed is occupied") {
        refusal("occupied")
    } else if words.contains("bed is too far") {
        refusal("too_far")
    } else if words.contains("bed is obstructed") {
        refusal("obstructed")
    } else {
        None
    }
}

/// The running `sleep` action.
#[derive(Component, Debug, Clone)]
pub struct Sleeping {
    pub pos: [i32; 3],
    aim: Aim,
    id: u32,
    pub block: String,
    pub refusal: Option<SleepRefusal>,
    pub confirmed: bool,
    /// Where the server moved us (feet) after the click.
    pub position: Option<Vec3>,
    /// The tick the server's sleeping flag was first seen.
    asleep_at: Option<u64>,
    sent: Option<u64>,
}

/// `sleep_done`.
#[derive(Serialize, JsonSchema, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct SleepDone {
    pub bed_pos: BlockXyz,
    pub block: String,
    /// True only when the server set our sleeping state.
    pub confirmed: bool,
    /// Where the server put you (feet), from its MovePlayer or correction after the click: on the
    /// bed when it let you sleep. Null when it moved you nowhere.
    pub position: Option<Vec3>,
    /// The server's refusal message (its key, e.g. `tile.bed.notSafe`); null unless it refused.
    pub message: Option<String>,
}
clawcraft_core::evidence!(
    SleepDone,
    "sleep_done",
    "A sleep ended: confirmed by the server's sleeping state, position = where the server put you; failed when it refused, reason not_night / monsters_nearby / occupied / too_far / obstructed / refused (message = its key), unconfirmed when it said nothing"
);

impl AsyncAction for Sleeping {
    const SLOT: ActionSlot = USE_SLOT;
    type Evidence = SleepDone;

    fn evidence(&self, _outcome: &Outcome, _bot: EntityRef<'_>) -> SleepDone {
        SleepDone {
            bed_pos: self.pos.into(),
            block: self.block.clone(),
            confirmed: self.confirmed,
            position: self.position,
            message: self.refusal.as_ref().map(|r| r.message.clone()),
        }
    }
}

/// `sleep`.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Sleep {
    pub x: f64,
    pub y: f64,
    pub z: f64,
}

/// Response of `sleep`.
#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SleepResponse {
    /// True: the bed was clicked (the server's verdict is `sleep_done` / `sleep_started`).
    pub sleeping: bool,
    pub bed_pos: BlockXyz,
    pub block: String,
    pub confirmed: bool,
}

impl AgentCommand for Sleep {
    const NAME: &'static str = "sleep";
    const SUMMARY: &'static str = "Lie down in the bed at x,y,z; async, ends in sleep_done (with sleep_started and the position the server set) when the server set the sleeping state, failed not_night / monsters_nearby / … when it refused";
    const EXAMPLE: &'static str = r#"{"action":"sleep","x":0,"y":-60,"z":3}"#;
    const ASYNC: Option<AsyncInfo> = Some(AsyncInfo::of::<Sleeping>());
    type Response = SleepResponse;

    fn run(self, ctx: &mut CommandCtx<'_>) -> Result<SleepResponse, CommandError> {
        hand_free(ctx)?;
        inventory(ctx)?;
        let t = BlockTarget { x: self.x, y: self.y, z: self.z, face: None };
        let (cell, aim, id, block) = target(ctx, &t)?;
        if !is_bed(&block) {
            return Err(CommandError::new("INVALID_TARGET", format!("{block} is not a bed")));
        }
        if ctx.world.get::<SleepState>(ctx.bot).is_some_and(|s| s.sleeping) {
            return Err(CommandError::new("INVALID_TARGET", "Already sleeping (wake first)"));
        }
        turn_to(ctx.world, ctx.bot, aim.point);
        let action = Sleeping {
            pos: cell,
            aim,
            id,
            block: block.clone(),
            refusal: None,
            confirmed: false,
            position: None,
            asleep_at: None,
            sent: None,
        };
        ctx.start(Self::NAME, action, SLEEP_TICKS + 40)?;
        Ok(SleepResponse { sleeping: true, bed_pos: cell.into(), block, confirmed: false })
    }
}

/// Clicks the bed and waits for the server's verdict: its sleeping flag (then a moment for the
/// position it moves us to), or its refusal message. Only what arrives after the click counts.
#[allow(clippy::type_complexity)]
pub fn step_sleeping(
    mut commands: Commands,
    mut packets: MessageReader<ClientboundPacket>,
    mut moves: MessageReader<ServerMovement>,
    mut bots: Query<(Entity, &mut Sleeping, &SleepState, &Inventory, &mut Connection, &EntityIds, &Position)>,
    ticks: Res<TickCount>,
) {
    for pkt in packets.read() {
        let Ok((_, mut s, ..)) = bots.get_mut(pkt.bot) else { continue };
        if s.sent.is_some()
            && let Some(t) = pkt.view::<Text>()
            && let Some(refusal) = bed_refusal(&t)
        {
            s.refusal = Some(refusal);
        }
    }
    for m in moves.read() {
        let Ok((_, mut s, ..)) = bots.get_mut(m.bot) else { continue };
        if s.sent.is_some()
            && matches!(m.kind, ServerMoveKind::Teleport | ServerMoveKind::Correction)
            && let Some(feet) = m.feet
        {
            s.position = Some(feet.rounded());
        }
    }
    for (bot, mut s, state, inv, mut conn, ids, pos) in &mut bots {
        match s.sent {
            None => {
                conn.send(&click_block(inv, pos.0.offset_y(EYE_HEIGHT), s.pos, &s.aim, s.id));
                conn.send(&swing(ids.runtime_id, "useitem"));
                s.sent = Some(ticks.0);
            }
            Some(_) if state.sleeping => {
                let asleep_at = *s.asleep_at.get_or_insert(ticks.0);
                if s.position.is_some() || ticks.0 >= asleep_at + SLEEP_POSITION_TICKS {
                    s.confirmed = true;
                    s.refusal = None;
                    commands.end_action(bot, USE_SLOT.name, ActionStatus::Done, None);
                }
            }
            Some(_) if s.refusal.is_some() => {
                let reason = s.refusal.as_ref().map(|r| r.reason.to_owned());
                commands.end_action(bot, USE_SLOT.name, ActionStatus::Failed, reason);
            }
            Some(at) if ticks.0 >= at + SLEEP_TICKS => {
                commands.end_action(bot, USE_SLOT.name, ActionStatus::Failed, Some("unconfirmed".into()));
            }
            Some(_) => {}
        }
    }
}

/// The running `wake` action.
#[derive(Component, Debug, Clone)]
pub struct Waking {
    sent: Option<u64>,
    pub confirmed: bool,
}

/// `wake_done`.
#[derive(Serialize, JsonSchema, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct WakeDone {
    /// True only when the server cleared the sleeping state.
    pub confirmed: bool,
}
clawcraft_core::evidence!(WakeDone, "wake_done", "A wake ended: confirmed when the server cleared the sleeping state");

impl AsyncAction for Waking {
    const SLOT: ActionSlot = USE_SLOT;
    type Evidence = WakeDone;

    fn evidence(&self, _outcome: &Outcome, _bot: EntityRef<'_>) -> WakeDone {
        WakeDone { confirmed: self.confirmed }
    }
}

/// `wake`.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Wake {}

/// Response of `wake`.
#[derive(Serialize, JsonSchema)]
pub struct WakeResponse {
    /// True: the request to leave the bed was sent (the verdict is `wake_done`).
    pub waking: bool,
}

impl AgentCommand for Wake {
    const NAME: &'static str = "wake";
    const SUMMARY: &'static str = "Leave the bed; async, ends in wake_done when the server cleared the sleeping state";
    const EXAMPLE: &'static str = r#"{"action":"wake"}"#;
    const ASYNC: Option<AsyncInfo> = Some(AsyncInfo::of::<Waking>());
    type Response = WakeResponse;

    fn run(self, ctx: &mut CommandCtx<'_>) -> Result<WakeResponse, CommandError> {
        if !ctx.world.get::<SleepState>(ctx.bot).is_some_and(|s| s.sleeping) {
            return Err(CommandError::new("INVALID_TARGET", "Not sleeping"));
        }
        hand_free(ctx)?;
        ctx.start(Self::NAME, Waking { sent: None, confirmed: false }, CONFIRM_TICKS + 40)?;
        Ok(WakeResponse { waking: true })
    }
}

/// Sends `stop_sleeping` and waits for the flag to clear.
pub fn step_waking(
    mut commands: Commands,
    mut bots: Query<(Entity, &mut Waking, &SleepState, &mut Connection, &EntityIds)>,
    ticks: Res<TickCount>,
) {
    for (bot, mut w, state, mut conn, ids) in &mut bots {
        match w.sent {
            None => {
                conn.send(&PlayerAction {
                    runtime_entity_id: ids.runtime_id,
                    action: "stop_sleeping".into(),
                    ..PlayerAction::default()
                });
                w.sent = Some(ticks.0);
            }
            Some(_) if !state.sleeping => {
                w.confirmed = true;
                commands.end_action(bot, USE_SLOT.name, ActionStatus::Done, None);
            }
            Some(at) if ticks.0 >= at + CONFIRM_TICKS => {
                commands.end_action(bot, USE_SLOT.name, ActionStatus::Failed, Some("unconfirmed".into()));
            }
            Some(_) => {}
        }
    }
}

// ---------------------------------------------------------------------------------------------
// use
// ---------------------------------------------------------------------------------------------

/// A block change the server showed after a use.
#[derive(Serialize, JsonSchema, Debug, Clone, PartialEq)]
pub struct BlockEffect {
    pub x: i32,
    pub y: i32,
    pub z: i32,
    pub block: String,
}

/// The running `use` action.
#[derive(Component, Debug, Clone)]
pub struct Using {
    /// The block used on (None = in the air).
    pub pos: Option<([i32; 3], Aim, u32)>,
    pub item: Option<String>,
    pub blocks: Vec<BlockEffect>,
    pub count: ItemCount,
    pub completed: Option<String>,
    sent: Option<u64>,
}

/// `use_done`.
#[derive(Serialize, JsonSchema, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct UseDone {
    /// The item used (null = empty hand).
    pub item: Option<String>,
    /// The block used on (null = in the air).
    pub pos: Option<BlockXyz>,
    /// True when the server showed any effect.
    pub confirmed: bool,
    /// Blocks the server changed at or next to the block.
    pub blocks: Vec<BlockEffect>,
    /// The held stack before and after.
    pub item_count: ItemCount,
    /// The server's CompletedUsingItem method, if it sent one.
    pub completed: Option<String>,
}
clawcraft_core::evidence!(
    UseDone,
    "use_done",
    "A use ended: confirmed when the server showed an effect (block changes, the held stack changing, a completed use); failed no_effect otherwise"
);

impl Using {
    fn effect(&self) -> bool {
        !self.blocks.is_empty() || self.count.after != self.count.before || self.completed.is_some()
    }
}

impl AsyncAction for Using {
    const SLOT: ActionSlot = USE_SLOT;
    type Evidence = UseDone;

    fn evidence(&self, _outcome: &Outcome, _bot: EntityRef<'_>) -> UseDone {
        UseDone {
            item: self.item.clone(),
            pos: self.pos.map(|(c, ..)| c.into()),
            confirmed: self.effect(),
            blocks: self.blocks.clone(),
            item_count: self.count,
            completed: self.completed.clone(),
        }
    }
}

/// `use`.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Use {
    /// A block to use the held item on (all three, or none for a use in the air).
    pub x: Option<f64>,
    pub y: Option<f64>,
    pub z: Option<f64>,
    /// Face to click (0 down … 5 east); default: the nearest visible one.
    pub face: Option<i64>,
}

/// Response of `use`.
#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct UseResponse {
    /// True: the use was sent (the verdict is `use_done`).
    pub used: bool,
    pub item: Option<String>,
    /// The block (null = in the air).
    pub pos: Option<BlockXyz>,
    pub block: Option<String>,
}

impl AgentCommand for Use {
    const NAME: &'static str = "use";
    const SUMMARY: &'static str = "Use the held item on the block at x,y,z, or in the air without coordinates; async, ends in use_done with what the server changed";
    const EXAMPLE: &'static str = r#"{"action":"use","x":1,"y":-61,"z":0}"#;
    const ASYNC: Option<AsyncInfo> = Some(AsyncInfo::of::<Using>());
    type Response = UseResponse;

    fn run(self, ctx: &mut CommandCtx<'_>) -> Result<UseResponse, CommandError> {
        hand_free(ctx)?;
        let item = inventory(ctx)?.held().map(|i| i.name.to_string());
        let (pos, block) = match (self.x, self.y, self.z) {
            (Some(x), Some(y), Some(z)) => {
                let (cell, aim, id, block) = target(ctx, &BlockTarget { x, y, z, face: self.face })?;
                turn_to(ctx.world, ctx.bot, aim.point);
                (Some((cell, aim, id)), Some(block))
            }
            (None, None, None) => (None, None),
            _ => return Err(CommandError::invalid_params("give x, y and z together (or none for a use in the air)")),
        };
        let action =
            Using { pos, item: item.clone(), blocks: vec![], count: ItemCount::default(), completed: None, sent: None };
        ctx.start(Self::NAME, action, CONFIRM_TICKS + 40)?;
        Ok(UseResponse { used: true, item, pos: pos.map(|(c, ..)| c.into()), block })
    }
}

/// Sends the use, then records what the server changed for a second.
#[allow(clippy::type_complexity)]
pub fn step_using(
    mut commands: Commands,
    mut packets: MessageReader<ClientboundPacket>,
    mut bots: Query<(Entity, &mut Using, &Inventory, &mut Connection, &EntityIds, &Position, Option<&BlockIds>)>,
    ticks: Res<TickCount>,
) {
    for pkt in packets.read() {
        let Ok((_, mut u, _, _, _, _, ids)) = bots.get_mut(pkt.bot) else { continue };
        if u.sent.is_none() {
            continue;
        }
        if let Some(c) = pkt.view::<CompletedUsingItem>() {
            u.completed = Some(c.use_method.clone());
        }
        let Some((at, ..)) = u.pos else { continue };
        for (cell, layer, id) in crate::common::block_updates(pkt) {
            let close = (0..3).map(|i| (cell[i] - at[i]).abs()).sum::<i32>() <= 1;
            if layer == 0 && close {
                let block = ids.map_or_else(|| format!("block#{id}"), |t| t.0.name(id).to_owned());
                u.blocks.push(BlockEffect { x: cell[0], y: cell[1], z: cell[2], block });
            }
        }
    }
    for (bot, mut u, inv, mut conn, ids, pos, _) in &mut bots {
        let eye = pos.0.offset_y(EYE_HEIGHT);
        match u.sent {
            None => {
                u.count.before = inv.held().map_or(0, |i| i.count);
                match u.pos {
                    Some((cell, aim, id)) => conn.send(&click_block(inv, eye, cell, &aim, id)),
                    None => conn.send(&click_air(inv, eye)),
                }
                conn.send(&swing(ids.runtime_id, "useitem"));
                u.sent = Some(ticks.0);
            }
            Some(at) => {
                u.count.after = inv.held().map_or(0, |i| i.count);
                // Collect effects for a moment after the first one, or until the window closes.
                if ticks.0 >= at + CONFIRM_TICKS || (u.effect() && ticks.0 >= at + 5) {
                    let (status, reason) = if u.effect() {
                        (ActionStatus::Done, None)
                    } else {
                        (ActionStatus::Failed, Some("no_effect".into()))
                    };
                    commands.end_action(bot, USE_SLOT.name, status, reason);
                }
            }
        }
    }
}
