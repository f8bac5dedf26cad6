//! `place`: put the held block item (or the named one) at a cell, against a supporting block
//! face chosen automatically (below, north, south, west, east, above) or given, and report what
//! the server did.
//!
//! Packets (a real client's order): PlayerAction `start_item_use_on` (support, target, face), the
//! `click_block` item-use transaction (trigger `player_input`, click position on the face, the
//! clicked block's id, prediction `success`), an arm swing, and `stop_item_use_on` three ticks
//! later. The receipt `place_done` is `done` when the server's block update shows a block in the
//! cell (`block` is what the server placed; `itemCount` shows the stack shrinking), `failed`
//! with `rejected` when the server puts air back, `unconfirmed` when it says nothing.

use bevy_ecs::prelude::*;
use bevy_ecs::world::EntityRef;
use clawcraft_core::{
    ActionSlot, ActionStatus, AgentCommand, AsyncAction, AsyncInfo, CommandCtx, CommandError, EYE_HEIGHT, EndActionExt,
    EntityIds, Outcome, Position, TickCount,
};
use clawcraft_inventory::Inventory;
use clawcraft_network::{ClientboundPacket, Connection};
use clawcraft_protocol::packets::PlayerAction;
use clawcraft_world::chunk::World as BlockWorld;
use clawcraft_world::ids::BlockIds;
use clawcraft_world::raycast::Face;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::common::{
    Aim, BlockXyz, Ready, Senses, aim_at, block_pos, cell_of, click_block, face_from_id, hand_free, hold_item_of,
    inventory_of, job_outcome, neighbour, opposite, swing,
};
use crate::use_slot::{ItemCount, USE_SLOT};

/// Ticks to wait for the server's block update.
const CONFIRM_TICKS: u64 = 20;
/// Ticks after the block showed to wait for the inventory change.
const COUNT_WAIT_TICKS: u64 = 10;
/// Ticks between `start_item_use_on` and `stop_item_use_on` (~150 ms, as a real client).
const STOP_AFTER_TICKS: u64 = 3;

/// Support faces in the order they are tried: the face of the supporting block that is clicked.
const SUPPORT_ORDER: [Face; 6] = [Face::Up, Face::South, Face::North, Face::East, Face::West, Face::Down];

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    Equipping(u64),
    Click,
    Sent(u64),
    Placed(u64),
}

/// The running `place` action.
#[derive(Component, Debug, Clone)]
pub struct Placing {
    pub pos: [i32; 3],
    pub against: [i32; 3],
    pub face: Face,
    aim: Aim,
    against_id: u32,
    phase: Phase,
    /// The item placed (name).
    pub item: String,
    pub count: ItemCount,
    /// What the server put in the cell.
    pub block: Option<String>,
    pub refused: bool,
    stop_sent: bool,
    started: u64,
    sent_at: u64,
}

/// `place_done`.
#[derive(Serialize, JsonSchema, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct PlaceDone {
    /// The block the server shows in the cell (null when none).
    pub block: Option<String>,
    pub pos: BlockXyz,
    /// The clicked face of the supporting block.
    pub face: u8,
    /// The supporting block.
    pub against: BlockXyz,
    /// True only when the server's block update showed a block in the cell.
    pub confirmed: bool,
    /// The item used.
    pub item: String,
    /// The held stack before and after (the inventory change the server sent).
    pub item_count: ItemCount,
}
clawcraft_core::evidence!(
    PlaceDone,
    "place_done",
    "A place ended: confirmed when the server's block update showed the block; itemCount shows the stack shrinking; reason rejected/unconfirmed otherwise"
);

impl AsyncAction for Placing {
    const SLOT: ActionSlot = USE_SLOT;
    type Evidence = PlaceDone;

    fn evidence(&self, _outcome: &Outcome, _bot: EntityRef<'_>) -> PlaceDone {
        PlaceDone {
            block: self.block.clone(),
            pos: self.pos.into(),
            face: self.face.id(),
            against: self.against.into(),
            confirmed: self.block.is_some(),
            item: self.item.clone(),
            item_count: self.count,
        }
    }
}

/// `place`.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Place {
    /// Item to place (held if omitted).
    pub item: Option<String>,
    /// The cell to fill.
    pub x: f64,
    pub y: f64,
    pub z: f64,
    /// The face of the supporting block to click (0 down … 5 east: 1 = on top of the block
    /// below); default: the first that works of below, north, south, west, east, above.
    pub face: Option<i64>,
}

/// Response of `place`.
#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct PlaceResponse {
    /// True: the click was sent (ClawCraft's meaning). Whether the server placed it is in
    /// `place_done`.
    pub placed: bool,
    /// The item being placed.
    pub block: String,
    pub pos: BlockXyz,
    pub face: u8,
    pub against: BlockXyz,
    /// Always false here: the receipt is `place_done`.
    pub confirmed: bool,
}

/// Picks the supporting face: `want`, or the first of [`SUPPORT_ORDER`] with a block to click
/// that is in reach and in sight.
pub fn support(
    s: &Senses<'_>,
    target: [i32; 3],
    want: Option<Face>,
) -> Result<(Face, [i32; 3], Aim, u32), CommandError> {
    let faces: Vec<Face> = match want {
        Some(f) => vec![f],
        None => SUPPORT_ORDER.to_vec(),
    };
    let mut last: Option<CommandError> = None;
    for face in faces {
        let against = neighbour(target, opposite(face));
        let Ok(id) = s.id_at(against) else { continue };
        if s.is_empty(id) {
            continue;
        }
        match aim_at(s, against, Some(face)) {
            Ok(aim) => return Ok((face, against, aim, id)),
            Err(e) => last = Some(e),
        }
    }
    Err(last.unwrap_or_else(|| {
        CommandError::new(
            "NO_SUPPORT",
            format!("No block next to {} {} {} to place against", target[0], target[1], target[2]),
        )
    }))
}

impl AgentCommand for Place {
    const NAME: &'static str = "place";
    const SUMMARY: &'static str = "Place the held (or named) block item at x,y,z against an automatically chosen (or given) supporting face; async, ends in place_done (confirmed by the server's block update)";
    const EXAMPLE: &'static str = r#"{"action":"place","item":"dirt","x":1,"y":-60,"z":0}"#;
    const ASYNC: Option<AsyncInfo> = Some(AsyncInfo::of::<Placing>());
    type Response = PlaceResponse;

    fn run(self, ctx: &mut CommandCtx<'_>) -> Result<PlaceResponse, CommandError> {
        hand_free(ctx)?;
        let target = cell_of(self.x, self.y, self.z)?;
        let want = match self.face {
            Some(f) => Some(face_from_id(f).ok_or_else(|| CommandError::out_of_range("face must be 0-5"))?),
            None => None,
        };
        let placing = prepare_place(ctx.world, ctx.bot, target, self.item.as_deref(), want)?;
        let response = PlaceResponse {
            placed: true,
            block: placing.item.clone(),
            pos: target.into(),
            face: placing.face.id(),
            against: placing.against.into(),
            confirmed: false,
        };
        ctx.start(Self::NAME, placing, 200)?;
        Ok(response)
    }
}

/// Everything `place` does before it starts, for any owner of the placement (the `place`
/// action, a walk pillaring or bridging): checks the cell is empty and not the body's, picks the
/// supporting face (`want`, or the first of below, north, south, east, west, above in reach and
/// in sight), the item (`item`, swapped into the hand when needed; else the held one) and turns
/// to the face. The returned state clicks on its first [`advance_placing`].
pub fn prepare_place(
    world: &mut World,
    bot: Entity,
    target: [i32; 3],
    item: Option<&str>,
    want: Option<Face>,
) -> Result<Placing, CommandError> {
    let s = Senses::of_bot(world, bot)?;
    let id = s.id_at(target)?;
    if !s.is_empty(id) {
        return Err(CommandError::new(
            "OCCUPIED",
            format!("{} is already at {} {} {}", s.name(id), target[0], target[1], target[2]),
        ));
    }
    let feet = [s.feet.x.floor() as i32, (s.feet.y + 1e-3).floor() as i32, s.feet.z.floor() as i32];
    if target == feet || target == [feet[0], feet[1] + 1, feet[2]] {
        return Err(CommandError::new("OCCUPIED", "You are standing in that cell"));
    }
    let (face, against, aim, against_id) = support(&s, target, want)?;
    drop(s);
    let inv = inventory_of(world, bot)?;
    let held = match item {
        Some(q) => crate::common::item_named(inv, Some(q))
            .ok_or_else(|| CommandError::new("NO_ITEM", format!("No item matching {q:?} in the inventory")))?,
        None => inv.held().cloned().ok_or_else(|| CommandError::new("NO_ITEM", "Nothing in hand to place"))?,
    };
    let ready = match item {
        Some(q) => hold_item_of(world, bot, q)?,
        None => Ready::Now,
    };
    let now = world.get_resource::<TickCount>().map_or(0, |t| t.0);
    crate::common::turn_to(world, bot, aim.point);
    Ok(Placing {
        pos: target,
        against,
        face,
        aim,
        against_id,
        phase: match ready {
            Ready::Now => Phase::Click,
            Ready::Job(j) => Phase::Equipping(j),
        },
        item: held.name.to_string(),
        count: ItemCount::default(),
        block: None,
        refused: false,
        stop_sent: false,
        started: now,
        sent_at: 0,
    })
}

impl Placing {
    /// Where the click aims (the point on the supporting face).
    pub fn aim_point(&self) -> clawcraft_core::Vec3 {
        self.aim.point
    }

    /// Whether the click went out and the stop did not yet (a real client's use is open).
    pub fn use_open(&self) -> bool {
        matches!(self.phase, Phase::Sent(_) | Phase::Placed(_)) && !self.stop_sent
    }
}

/// The server's block updates at the placed cell.
pub fn watch_placing(
    mut packets: MessageReader<ClientboundPacket>,
    mut bots: Query<(&mut Placing, &BlockWorld, Option<&BlockIds>)>,
    ticks: Res<TickCount>,
) {
    for pkt in packets.read() {
        let Ok((mut p, blocks, ids)) = bots.get_mut(pkt.bot) else { continue };
        observe_placing(&mut p, &crate::common::block_updates(pkt), blocks, ids, ticks.0);
    }
}

/// What the server's block updates (`(cell, layer, network id)`) say of a placement: a block in
/// the cell (placed), or air put back (refused).
pub fn observe_placing(
    p: &mut Placing,
    updates: &[([i32; 3], u32, u32)],
    blocks: &BlockWorld,
    ids: Option<&BlockIds>,
    now: u64,
) {
    if !matches!(p.phase, Phase::Sent(_) | Phase::Placed(_)) {
        return;
    }
    for &(cell, layer, id) in updates {
        if cell != p.pos || layer != 0 {
            continue;
        }
        let air = id == blocks.air_id() || ids.is_some_and(|t| t.0.is_air(id));
        if air {
            p.refused = true;
            p.block = None;
        } else {
            p.block = Some(ids.map_or_else(|| format!("block#{id}"), |t| t.0.name(id).to_owned()));
            p.refused = false;
            if let Phase::Sent(_) = p.phase {
                p.phase = Phase::Placed(now);
            }
        }
    }
}

/// Sends the click when the item is in hand, the stop three ticks later, and ends the action on
/// the server's word.
#[allow(clippy::type_complexity)]
pub fn step_placing(
    mut commands: Commands,
    mut bots: Query<(
        Entity,
        (&mut Placing, &mut PlaceTrace),
        &Inventory,
        &mut Connection,
        &EntityIds,
        &Position,
        &clawcraft_inventory::InventoryJobs,
    )>,
    ticks: Res<TickCount>,
) {
    let now = ticks.0;
    for (bot, (mut p, mut trace), inv, mut conn, ids, pos, jobs) in &mut bots {
        let ended = advance_placing(&mut p, inv, &mut conn, ids.runtime_id, pos.0, jobs, now);
        trace.follow(&p);
        if let Some((status, reason)) = ended {
            commands.end_action(bot, USE_SLOT.name, status, reason);
        }
    }
}

/// One tick of a placement, for any owner: the click when the item is in hand, the stop three
/// ticks later, the server's word. `Some((status, reason))` when it is over.
pub fn advance_placing(
    p: &mut Placing,
    inv: &Inventory,
    conn: &mut Connection,
    runtime_id: u64,
    feet: clawcraft_core::Vec3,
    jobs: &clawcraft_inventory::InventoryJobs,
    now: u64,
) -> Option<(ActionStatus, Option<String>)> {
    let end = |status, reason: Option<&str>| Some((status, reason.map(str::to_owned)));
    match p.phase {
        Phase::Equipping(job) => match job_outcome(jobs, job) {
            Some(Ok(())) => p.phase = Phase::Click,
            Some(Err(e)) => return end(ActionStatus::Failed, Some(&e)),
            None if now > p.started + 60 => return end(ActionStatus::Failed, Some("item swap unanswered")),
            None => {}
        },
        Phase::Click => {
            p.count.before = inv.held().map_or(0, |i| i.count);
            let eye = feet.offset_y(EYE_HEIGHT);
            conn.send(&PlayerAction {
                runtime_entity_id: runtime_id,
                action: "start_item_use_on".into(),
                position: block_pos(p.against),
                result_position: block_pos(p.pos),
                face: i32::from(p.face.id()),
            });
            conn.send(&click_block(inv, eye, p.against, &p.aim, p.against_id));
            conn.send(&swing(runtime_id, "useitem"));
            p.sent_at = now;
            p.phase = Phase::Sent(now);
        }
        Phase::Sent(at) | Phase::Placed(at) => {
            if !p.stop_sent && (now >= p.sent_at + STOP_AFTER_TICKS || p.refused) {
                send_stop(p, conn, runtime_id);
            }
            p.count.after = inv.held().map_or(0, |i| i.count);
            if p.refused {
                return end(ActionStatus::Failed, Some("rejected"));
            } else if let Phase::Placed(placed_at) = p.phase {
                if p.count.after < p.count.before || now >= placed_at + COUNT_WAIT_TICKS {
                    return end(ActionStatus::Done, None);
                }
            } else if now >= at + CONFIRM_TICKS {
                return end(ActionStatus::Failed, Some("unconfirmed"));
            }
        }
    }
    None
}

/// `stop_item_use_on`: the click's use is over (also when its owner ends early).
pub fn send_stop(p: &mut Placing, conn: &mut Connection, runtime_id: u64) {
    stop_use_on(conn, runtime_id, p.pos);
    p.stop_sent = true;
}

fn stop_use_on(conn: &mut Connection, runtime_id: u64, pos: [i32; 3]) {
    conn.send(&PlayerAction {
        runtime_entity_id: runtime_id,
        action: "stop_item_use_on".into(),
        position: block_pos(pos),
        result_position: block_pos([0, 0, 0]),
        face: 0,
    });
}

/// Whether a placement's use is open at the server (clicked, `stop_item_use_on` not sent yet), so
/// an owner that ends early — an abort, death, the watchdog, a walk that placed on its way — still
/// closes it as a real client does when the use button is released.
#[derive(Component, Debug, Clone, Copy, Default, PartialEq)]
pub struct PlaceTrace {
    /// The cell being placed into while the use is open.
    pub open: Option<[i32; 3]>,
}

impl PlaceTrace {
    /// Mirrors `p` after a tick of [`advance_placing`].
    pub fn follow(&mut self, p: &Placing) {
        self.open = p.use_open().then_some(p.pos);
    }

    /// Sends the stop of a use its owner left open.
    pub fn close(&mut self, conn: &mut Connection, runtime_id: u64) {
        if let Some(pos) = self.open.take() {
            stop_use_on(conn, runtime_id, pos);
        }
    }
}

/// Sends `stop_item_use_on` when a `place` ended with its use still open ([`PlaceTrace`]).
pub fn stop_unfinished_uses_on(
    mut removed: RemovedComponents<Placing>,
    mut bots: Query<(&mut PlaceTrace, Option<&Placing>, &mut Connection, &EntityIds)>,
) {
    for bot in removed.read() {
        let Ok((mut trace, running, mut conn, ids)) = bots.get_mut(bot) else { continue };
        if running.is_none() {
            trace.close(&mut conn, ids.runtime_id);
        }
    }
}
