//! `mine` / `abort_mine`: break a block the way server-authoritative block breaking expects,
//! and report only what the server confirmed.
//!
//! The command checks the block (loaded, not air, breakable), reach and line of sight (the face
//! is chosen by raycast from the eye, or given), optionally picks the best tool (`autoTool`: a
//! hotbar slot is selected, a main-inventory tool is swapped in first and mining starts when the
//! server confirmed the swap), computes the break time ([`crate::mining`]) and turns to the face.
//! Then, inside the tick's PlayerAuthInput: `start_break`, `continue_break` every tick, and on
//! the last tick `continue_break` + `predict_break`. `mine_done` has `confirmed:true` only when
//! the server's block update shows the block gone; a server that puts the block back refuses
//! the break (`status:"failed"`, `reason:"rejected"`). The drops are the item entities that
//! appeared at the block, with `pickedUp` when a TakeItemEntity of ours took them (the receipt
//! waits up to [`DROP_WAIT_TICKS`] for them). `abort_mine` (and a timeout, death, disconnect)
//! sends `abort_break`.

use bevy_ecs::prelude::*;
use bevy_ecs::world::EntityRef;
use clawcraft_core::{
    ActionSlot, ActionStatus, AgentCommand, AsyncAction, AsyncInfo, CommandCtx, CommandError, EndActionExt, EntityIds,
    Outcome, Position, TickCount, Vec3,
};
use clawcraft_entity::{ByBot, EntityPosition, ItemEntity, ItemPickedUp, SeenBy, WorldEntity};
use clawcraft_inventory::{AQUA_AFFINITY, EFFICIENCY, Inventory, InventoryJobs, ItemIds, JobResult, Move, SlotRef};
use clawcraft_movement::Mover;
use clawcraft_network::{ClientboundPacket, Connection};
use clawcraft_player::InputExtras;
use clawcraft_protocol::packets::BlockAction;
use clawcraft_vitals::Vitals;
use clawcraft_world::block::BlockInfo;
use clawcraft_world::chunk::{BlockLookup, World as BlockWorld};
use clawcraft_world::ids::BlockIds;
use clawcraft_world::raycast::Face;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::common::{
    BlockXyz, Senses, aim_at, block_pos, cell_of, face_from_id, hand_free, inventory_of, runtime_id_of, swing, turn_to,
};
use crate::mining::{BreakConditions, best_tool, break_ticks};

/// Ticks after `predict_break` to wait for the server's block update.
pub const CONFIRM_TICKS: u64 = 20;
/// Ticks after the confirmation to wait for drops to appear and be picked up.
pub const DROP_WAIT_TICKS: u64 = 20;
/// Ticks to wait for an autoTool swap.
const EQUIP_WAIT_TICKS: u64 = 60;

/// Where mining is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    /// Waiting for the server to confirm the autoTool swap (inventory job id).
    Equipping(u64),
    /// `start_break` goes out this tick.
    Start,
    /// Ticks of breaking done.
    Breaking(u32),
    /// `predict_break` went out at this tick; waiting for the server.
    Predicted(u64),
    /// The server showed the block gone at this tick; collecting drops.
    Confirmed(u64),
}

/// A dropped item seen at the block.
#[derive(Serialize, JsonSchema, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct DropSeen {
    pub name: String,
    pub count: u16,
    /// Whether a TakeItemEntity of ours took it.
    pub picked_up: bool,
    /// The item entity's runtime id.
    pub runtime_id: u64,
}

/// The running `mine` action.
#[derive(Component, Debug, Clone)]
pub struct Mining {
    pub pos: [i32; 3],
    pub face: Face,
    pub block: String,
    /// The block's network id when mining started.
    pub original: u32,
    pub expected_ticks: u32,
    pub phase: Phase,
    /// Ticks of breaking sent (start → predict).
    pub ticks: u32,
    /// Ticks from `predict_break` to the server's confirmation.
    pub confirm_ticks: Option<u64>,
    pub confirmed: bool,
    pub tool: Option<String>,
    pub drops: Vec<DropSeen>,
    /// Item entities already lying near the block when mining began (not drops of this break).
    pub preexisting: Vec<u64>,
    /// The server answered with something other than air at the block (`rejected`, `changed`).
    pub refused: Option<&'static str>,
    /// When the action started (tick), for the equip wait.
    pub started_tick: u64,
    /// Wait for the drops after the confirmation (`mine`); a walk digging its way goes on at once.
    pub wait_for_drops: bool,
    /// An autoTool swap was confirmed: the break time must be computed again with the new tool
    /// ([`retimed`]), by whoever owns this state.
    pub needs_retime: bool,
}

/// `mine_done`.
#[derive(Serialize, JsonSchema, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct MineDone {
    pub block: String,
    pub pos: BlockXyz,
    /// Face clicked (0 down … 5 east).
    pub face: u8,
    /// Ticks from `start_break` to `predict_break`.
    pub ticks: u32,
    /// Ticks the break should take (the Bedrock rules).
    pub expected_ticks: u32,
    /// Ticks from `predict_break` to the server's block update.
    pub confirm_ticks: Option<u64>,
    /// True only when the server's block update showed the block broken.
    pub confirmed: bool,
    /// The held item (null = hand).
    pub tool: Option<String>,
    /// Items that dropped at the block.
    pub drops: Vec<DropSeen>,
}
clawcraft_core::evidence!(
    MineDone,
    "mine_done",
    "A mine ended: confirmed only when the server's block update showed the block broken; ticks vs expectedTicks, drops (pickedUp when we took them)"
);

impl AsyncAction for Mining {
    const SLOT: ActionSlot = ActionSlot::new("mine", "abort_mine", "Not mining");
    type Evidence = MineDone;

    fn evidence(&self, _outcome: &Outcome, _bot: EntityRef<'_>) -> MineDone {
        MineDone {
            block: self.block.clone(),
            pos: self.pos.into(),
            face: self.face.id(),
            ticks: self.ticks,
            expected_ticks: self.expected_ticks,
            confirm_ticks: self.confirm_ticks,
            confirmed: self.confirmed,
            tool: self.tool.clone(),
            drops: self.drops.clone(),
        }
    }
}

/// `mine`.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct Mine {
    pub x: f64,
    pub y: f64,
    pub z: f64,
    /// Hold the fastest tool first (from anywhere in the inventory).
    #[serde(default)]
    pub auto_tool: bool,
    /// Face to hit (0 down … 5 east); default: the nearest visible face, by raycast.
    pub face: Option<i64>,
}

/// Response of `mine`.
#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct MineResponse {
    pub mining: bool,
    pub block: String,
    pub pos: BlockXyz,
    pub face: u8,
    /// Expected break time in ticks (with the tool that will be held).
    pub break_time: u32,
    /// The item that will be held (null = hand).
    pub tool: Option<String>,
    /// True when autoTool first swaps a tool in from the main inventory.
    pub equipping: bool,
}

/// What changes the break time besides the tool, from the bot's state.
pub fn conditions(world: &World, bot: Entity, held_efficiency: u8) -> BreakConditions {
    let mut c = BreakConditions { efficiency: held_efficiency, ..BreakConditions::default() };
    if let Some(v) = world.get::<Vitals>(bot) {
        for e in v.effects.values() {
            let level = u8::try_from(e.amplifier.saturating_add(1).clamp(0, 255)).unwrap_or(0);
            match e.name.as_str() {
                "haste" => c.haste = level,
                "mining_fatigue" => c.mining_fatigue = level,
                "conduit_power" => c.conduit_power = level,
                _ => {}
            }
        }
    }
    if let Some(inv) = world.get::<Inventory>(bot) {
        c.aqua_affinity = inv.armor[0].as_ref().is_some_and(|h| h.enchantment_level(AQUA_AFFINITY) > 0);
    }
    let (Some(feet), Some(blocks), Some(ids)) =
        (world.get::<Position>(bot), world.get::<BlockWorld>(bot), world.get::<BlockIds>(bot))
    else {
        c.on_ground = true;
        return c;
    };
    let f = feet.0;
    let is = |x: f64, y: f64, z: f64, test: &dyn Fn(&BlockInfo, u32) -> bool| match blocks.get_block(
        x.floor() as i32,
        y.floor() as i32,
        z.floor() as i32,
    ) {
        BlockLookup::Loaded(id, l1) => {
            ids.0.info(id).is_some_and(|i| test(i, id)) || l1.and_then(|l| ids.0.info(l)).is_some_and(|i| test(i, 0))
        }
        BlockLookup::Unloaded => false,
    };
    // On the ground as the movement engine simulated the last tick (on slabs and the like too),
    // or feet resting on top of a solid block (f32 wire positions: a thousandth of slack) — the
    // engine's first tick after a spawn or teleport has not touched the ground yet.
    let simulated = world.get::<Mover>(bot).is_some_and(|m| m.simulated && m.state.on_ground);
    let resting = (f.y - f.y.round()).abs() < 1e-3 && is(f.x, f.y.round() - 0.5, f.z, &|i, _| i.shape.is_solid());
    c.on_ground = simulated || resting;
    let eye = f.offset_y(clawcraft_core::EYE_HEIGHT);
    c.in_water = is(eye.x, eye.y, eye.z, &|i, _| i.is_liquid() && i.name.contains("water"));
    c
}

/// Expected ticks for `block` with the item in inventory slot `slot` (`None` = hand).
fn ticks_with(world: &World, bot: Entity, block: &BlockInfo, slot: Option<u8>) -> Option<u32> {
    let inv = world.get::<Inventory>(bot);
    let item = slot.and_then(|s| inv?.get(SlotRef::Inv(s)));
    let data = world.get::<ItemIds>(bot).and_then(|i| i.data.clone());
    let material = data.as_ref().map_or("default", |d| d.block_material(&block.name)).to_owned();
    let info = item.and_then(|it| data.as_ref()?.info(&it.name).cloned());
    let c = conditions(world, bot, item.map_or(0, |i| i.enchantment_level(EFFICIENCY)));
    break_ticks(block, &material, info.as_ref(), &c)
}

impl AgentCommand for Mine {
    const NAME: &'static str = "mine";
    const SUMMARY: &'static str = "Break the block at x,y,z (reach and line of sight checked, face by raycast, break time by the Bedrock rules, optional autoTool); async, ends in mine_done (confirmed by the server)";
    const EXAMPLE: &'static str = r#"{"action":"mine","x":2,"y":-61,"z":0,"autoTool":true}"#;
    const ASYNC: Option<AsyncInfo> = Some(AsyncInfo::of::<Mining>());
    type Response = MineResponse;

    fn run(self, ctx: &mut CommandCtx<'_>) -> Result<MineResponse, CommandError> {
        hand_free(ctx)?;
        let cell = cell_of(self.x, self.y, self.z)?;
        let want = match self.face {
            Some(f) => Some(face_from_id(f).ok_or_else(|| CommandError::out_of_range("face must be 0-5"))?),
            None => None,
        };
        let mining = prepare_mine(ctx.world, ctx.bot, cell, want, self.auto_tool)?;
        let timeout = u64::from(mining.expected_ticks) + EQUIP_WAIT_TICKS + CONFIRM_TICKS + DROP_WAIT_TICKS + 100;
        let response = MineResponse {
            mining: true,
            block: mining.block.clone(),
            pos: cell.into(),
            face: mining.face.id(),
            break_time: mining.expected_ticks,
            tool: mining.tool.clone(),
            equipping: matches!(mining.phase, Phase::Equipping(_)),
        };
        ctx.start(Self::NAME, mining, timeout)?;
        Ok(response)
    }
}

/// Everything `mine` does before it starts, for any owner of the break (the `mine` action, a
/// walk digging through): checks the block (loaded, not air, breakable), reach and line of sight
/// (`want`, or the face chosen by raycast), picks the best tool when `auto_tool` (a hotbar slot
/// is selected now, a main-inventory tool is swapped in by an inventory job), computes the
/// break time and turns to the face. The returned state starts breaking on its first
/// [`advance_mining`].
pub fn prepare_mine(
    world: &mut World,
    bot: Entity,
    cell: [i32; 3],
    want: Option<Face>,
    auto_tool: bool,
) -> Result<Mining, CommandError> {
    let s = Senses::of_bot(world, bot)?;
    let id = s.id_at(cell)?;
    if s.is_empty(id) {
        return Err(CommandError::new(
            "INVALID_TARGET",
            format!("Nothing to mine at {} {} {}", cell[0], cell[1], cell[2]),
        ));
    }
    let block = s.name(id);
    let info =
        s.info(id).cloned().ok_or_else(|| CommandError::new("INVALID_TARGET", format!("Unknown block {block}")))?;
    if info.is_unbreakable() {
        return Err(CommandError::new("INVALID_TARGET", format!("{block} cannot be broken")));
    }
    let aim = aim_at(&s, cell, want)?;
    drop(s);
    let held_slot = world.get::<Inventory>(bot).filter(|i| i.synced).map(|i| i.held_slot);
    // Every check comes before anything changes: the tool is chosen and the break time computed
    // with it first, and only then is it selected (a packet) or swapped in (an inventory job), so
    // a refused mine leaves the hand and the server untouched.
    let mut slot_to_use = held_slot;
    let mut hotbar: Option<u8> = None;
    let mut equip: Option<Move> = None;
    if auto_tool {
        let inv = inventory_of(world, bot)?;
        let data = world.get::<ItemIds>(bot).and_then(|i| i.data.clone());
        if let Some(data) = data {
            let c = conditions(world, bot, 0);
            let candidates: Vec<(u8, String, u8)> =
                inv.indexed().map(|(s, it)| (s, it.name.to_string(), it.enchantment_level(EFFICIENCY))).collect();
            let best = best_tool(&info, &data, candidates.iter().map(|(s, n, e)| (*s, n.as_str(), *e)), &c);
            if let Some(best) = best
                && Some(best) != held_slot
            {
                if best < clawcraft_inventory::HOTBAR_SLOTS {
                    hotbar = Some(best);
                } else {
                    let held = inv.held_slot;
                    equip = Some(if inv.held().is_some() {
                        Move::Swap { a: SlotRef::Inv(best), b: SlotRef::Inv(held) }
                    } else {
                        Move::Place { from: SlotRef::Inv(best), to: SlotRef::Inv(held), count: 1 }
                    });
                }
                slot_to_use = Some(best);
            }
        }
    }
    let expected = ticks_with(world, bot, &info, slot_to_use)
        .ok_or_else(|| CommandError::new("INVALID_TARGET", format!("{block} cannot be broken")))?;
    let tool = slot_to_use.and_then(|s| world.get::<Inventory>(bot)?.get(SlotRef::Inv(s)).map(|i| i.name.to_string()));
    let rid = match hotbar {
        Some(_) => runtime_id_of(world, bot)?,
        None => 0,
    };
    if equip.is_some() && world.get::<InventoryJobs>(bot).is_none() {
        return Err(CommandError::not_spawned());
    }
    // Decided: from here on nothing refuses.
    if let Some(best) = hotbar {
        let mut events = clawcraft_core::EventBatch::new(bot);
        let mut q = world.query::<(&mut Connection, &mut Inventory)>();
        if let Ok((mut conn, mut inv)) = q.get_mut(world, bot) {
            clawcraft_inventory::hold(&mut conn, rid, &mut inv, best, &mut events);
        }
        world.write_message_batch(events.drain());
    }
    let now = world.get_resource::<TickCount>().map_or(0, |t| t.0);
    let phase = match (equip, world.get_mut::<InventoryJobs>(bot)) {
        (Some(mv), Some(mut jobs)) => Phase::Equipping(jobs.submit("equip", vec![mv])),
        _ => Phase::Start,
    };
    let preexisting = items_near(world, bot, cell, 2.0).into_iter().map(|(rid, _)| rid).collect();
    turn_to(world, bot, aim.point);
    Ok(Mining {
        pos: cell,
        face: aim.face,
        block,
        original: id,
        expected_ticks: expected,
        phase,
        ticks: 0,
        confirm_ticks: None,
        confirmed: false,
        tool,
        drops: Vec::new(),
        preexisting,
        refused: None,
        started_tick: now,
        wait_for_drops: true,
        needs_retime: false,
    })
}

/// Item entities of `bot` within `radius` of `cell`'s centre: `(runtime id, position)`.
fn items_near(world: &mut World, bot: Entity, cell: [i32; 3], radius: f64) -> Vec<(u64, Vec3)> {
    let centre = Vec3::block_centre(cell);
    let mut q = world.query::<(&SeenBy, &WorldEntity, &EntityPosition, &ItemEntity)>();
    q.iter(world)
        .filter(|(seen, _, p, _)| seen.0 == bot && p.0.distance(centre) <= radius)
        .map(|(_, w, p, _)| (w.runtime_id, p.0))
        .collect()
}

fn action(name: &str, pos: [i32; 3], face: Face) -> BlockAction {
    BlockAction { action: name.into(), position: block_pos(pos), face: i32::from(face.id()) }
}

/// Records the server's block updates at the mined block, the drops that appear and the
/// pickups of them.
#[allow(clippy::type_complexity)]
pub fn watch_mining(
    mut packets: MessageReader<ClientboundPacket>,
    mut picked: MessageReader<ItemPickedUp>,
    mut bots: Query<(Entity, &mut Mining, &mut MineTrace, &BlockWorld, Option<&BlockIds>)>,
    items: Query<(Entity, &SeenBy, &WorldEntity, &EntityPosition, &ItemEntity)>,
    mut by_bot: Local<ByBot>,
    ticks: Res<TickCount>,
) {
    let now = ticks.0;
    for pkt in packets.read() {
        let Ok((_, mut m, mut trace, blocks, ids)) = bots.get_mut(pkt.bot) else { continue };
        let updates = crate::common::block_updates(pkt);
        observe_mining(&mut m, &mut trace, &updates, blocks, ids, now);
    }
    for p in picked.read() {
        let Ok((_, mut m, ..)) = bots.get_mut(p.bot) else { continue };
        if !p.by_self || !matches!(m.phase, Phase::Predicted(_) | Phase::Confirmed(_)) {
            continue;
        }
        if let Some(d) = m.drops.iter_mut().find(|d| d.runtime_id == p.item_runtime_id) {
            d.picked_up = true;
        } else if let (Some(item), Some(pos)) = (&p.item, p.position)
            && near(pos, m.pos, 2.0)
            && !m.preexisting.contains(&p.item_runtime_id)
        {
            m.drops.push(DropSeen {
                name: item.name.clone(),
                count: item.count,
                picked_up: true,
                runtime_id: p.item_runtime_id,
            });
        }
    }
    // Each bot's items, grouped in one pass (not every item once per mining bot).
    if bots.iter().any(|(_, m, ..)| matches!(m.phase, Phase::Predicted(_) | Phase::Confirmed(_))) {
        by_bot.regroup(items.iter().map(|(entity, seen, ..)| (seen.0, entity)));
    }
    for (bot, mut m, ..) in &mut bots {
        if !matches!(m.phase, Phase::Predicted(_) | Phase::Confirmed(_)) {
            continue;
        }
        for &entity in by_bot.of(bot) {
            let Ok((_, _, w, p, item)) = items.get(entity) else { continue };
            if !near(p.0, m.pos, 2.0) || m.preexisting.contains(&w.runtime_id) {
                continue;
            }
            if !m.drops.iter().any(|d| d.runtime_id == w.runtime_id) {
                m.drops.push(DropSeen {
                    name: item.name.clone(),
                    count: item.count,
                    picked_up: false,
                    runtime_id: w.runtime_id,
                });
            }
        }
    }
}

/// What the server's block updates (`(cell, layer, network id)`) say of a break: the block
/// gone (confirmed), put back after `predict_break` (`rejected`), or replaced (`changed`).
pub fn observe_mining(
    m: &mut Mining,
    trace: &mut MineTrace,
    updates: &[([i32; 3], u32, u32)],
    blocks: &BlockWorld,
    ids: Option<&BlockIds>,
    now: u64,
) {
    for &(cell, layer, id) in updates {
        if cell != m.pos || layer != 0 {
            continue;
        }
        let air = id == blocks.air_id() || ids.is_some_and(|t| t.0.is_air(id));
        let predicted = matches!(m.phase, Phase::Predicted(_));
        if air {
            if let Phase::Predicted(at) = m.phase {
                m.confirm_ticks = Some(now.saturating_sub(at));
            }
            if !matches!(m.phase, Phase::Confirmed(_)) {
                m.confirmed = true;
                m.phase = Phase::Confirmed(now);
                trace.open = None;
            }
        } else if predicted && id == m.original {
            m.refused = Some("rejected");
        } else if id != m.original {
            m.refused = Some("changed");
        }
    }
}

fn near(p: Vec3, cell: [i32; 3], radius: f64) -> bool {
    p.distance(Vec3::block_centre(cell)) <= radius
}

/// Advances every mining action one tick: the block actions of this tick's PlayerAuthInput,
/// the autoTool wait, the confirmation and drop windows.
#[allow(clippy::type_complexity)]
pub fn step_mining(
    mut commands: Commands,
    mut bots: Query<(
        Entity,
        &mut Mining,
        &mut MineTrace,
        &mut InputExtras,
        &InventoryJobs,
        &mut Connection,
        &EntityIds,
    )>,
    ticks: Res<TickCount>,
) {
    let now = ticks.0;
    for (bot, mut m, mut trace, mut input, jobs, mut conn, ids) in &mut bots {
        let ended = advance_mining(&mut m, &mut trace, &mut input, jobs, &mut conn, ids.runtime_id, now);
        if std::mem::take(&mut m.needs_retime) {
            // The swapped-in tool's break time is known now.
            commands.queue(move |world: &mut World| retime_after_equip(world, bot));
        }
        if let Some((status, reason)) = ended {
            commands.end_action(bot, Mining::SLOT.name, status, reason);
        }
    }
}

/// One tick of a break, for any owner: the block actions of this tick's PlayerAuthInput, the
/// autoTool wait, the confirmation and drop windows. `Some((status, reason))` when it is over.
pub fn advance_mining(
    m: &mut Mining,
    trace: &mut MineTrace,
    input: &mut InputExtras,
    jobs: &InventoryJobs,
    conn: &mut Connection,
    runtime_id: u64,
    now: u64,
) -> Option<(ActionStatus, Option<String>)> {
    if let Some(reason) = m.refused {
        return Some((ActionStatus::Failed, Some(reason.into())));
    }
    match m.phase {
        Phase::Equipping(job) => match jobs.result(job) {
            Some(JobResult::Confirmed) => {
                m.phase = Phase::Start;
                m.needs_retime = true;
            }
            Some(JobResult::Rejected(status)) => {
                return Some((ActionStatus::Failed, Some(format!("tool swap refused ({status})"))));
            }
            None if now > m.started_tick + EQUIP_WAIT_TICKS => {
                return Some((ActionStatus::Failed, Some("tool swap unanswered".into())));
            }
            None => {}
        },
        Phase::Start => {
            input.block_actions.push(action("start_break", m.pos, m.face));
            trace.open = Some((m.pos, m.face));
            conn.send(&swing(runtime_id, "mine"));
            if m.expected_ticks == 0 {
                input.block_actions.push(action("predict_break", m.pos, m.face));
                m.phase = Phase::Predicted(now);
            } else {
                m.phase = Phase::Breaking(0);
            }
        }
        Phase::Breaking(done) => {
            let done = done + 1;
            m.ticks = done;
            input.block_actions.push(action("continue_break", m.pos, m.face));
            if done >= m.expected_ticks {
                input.block_actions.push(action("predict_break", m.pos, m.face));
                m.phase = Phase::Predicted(now);
            } else {
                m.phase = Phase::Breaking(done);
                if done % 7 == 0 {
                    conn.send(&swing(runtime_id, "mine"));
                }
            }
        }
        Phase::Predicted(at) if now >= at + CONFIRM_TICKS => {
            return Some((ActionStatus::Failed, Some("unconfirmed".into())));
        }
        Phase::Predicted(_) => {}
        Phase::Confirmed(at) => {
            let all_picked = !m.drops.is_empty() && m.drops.iter().all(|d| d.picked_up);
            if !m.wait_for_drops || all_picked || now >= at + DROP_WAIT_TICKS {
                return Some((ActionStatus::Done, None));
            }
        }
    }
    None
}

/// After an autoTool swap the held item changed: recompute the break time with it.
fn retime_after_equip(world: &mut World, bot: Entity) {
    let Some(pos) = world.get::<Mining>(bot).map(|m| m.pos) else { return };
    let (expected, tool) = retimed(world, bot, pos);
    if let Some(mut m) = world.get_mut::<Mining>(bot) {
        if let Some(t) = expected {
            m.expected_ticks = t;
        }
        m.tool = tool;
    }
}

/// The break time of the block at `pos` with the item now held, and that item's name.
pub fn retimed(world: &World, bot: Entity, pos: [i32; 3]) -> (Option<u32>, Option<String>) {
    let held = world.get::<Inventory>(bot).map(|i| i.held_slot);
    let info = match world.get::<BlockWorld>(bot).map(|w| w.get_block(pos[0], pos[1], pos[2])) {
        Some(BlockLookup::Loaded(id, _)) => world.get::<BlockIds>(bot).and_then(|t| t.0.info(id).cloned()),
        _ => None,
    };
    let Some(info) = info else { return (None, None) };
    let expected = ticks_with(world, bot, &info, held);
    let tool = held.and_then(|s| world.get::<Inventory>(bot)?.get(SlotRef::Inv(s)).map(|i| i.name.to_string()));
    (expected, tool)
}

/// Whether a break is in progress at the server, so an interrupted one can be called off.
#[derive(Component, Debug, Clone, Copy, Default, PartialEq)]
pub struct MineTrace {
    /// Block and face of a break in progress at the server (between start and confirmation).
    pub open: Option<([i32; 3], Face)>,
}

/// Sends `abort_break` when a break in progress at the server ended without the block breaking
/// (abort, timeout, death, refusal); [`MineTrace`] says whether one was in progress.
pub fn abort_unfinished_breaks(
    mut removed: RemovedComponents<Mining>,
    mut bots: Query<(&mut MineTrace, Option<&Mining>, &mut InputExtras)>,
) {
    for bot in removed.read() {
        let Ok((mut trace, running, mut input)) = bots.get_mut(bot) else { continue };
        if running.is_some() {
            continue;
        }
        call_off_break(&mut trace, &mut input);
    }
}

/// Sends `abort_break` for a break in progress at the server (its owner ended without the block
/// breaking).
pub fn call_off_break(trace: &mut MineTrace, input: &mut InputExtras) {
    if let Some((pos, face)) = trace.open.take() {
        input.block_actions.push(action("abort_break", pos, face));
    }
}
