//! What every action needs: where the eye is, reach and line of sight to a block face (chosen by
//! raycast), turning to look, the hand's exclusivity, the held item, and the packets that use it.

use std::sync::Arc;

use bevy_ecs::prelude::*;
use clawcraft_core::{ActiveActions, CommandCtx, CommandError, EYE_HEIGHT, EntityIds, Position, Rotation, Vec3};
use clawcraft_inventory::{Inventory, Item};
use clawcraft_network::Connection;
use clawcraft_protocol::packets::{
    Animate, BlockPos, InventoryTransaction, ItemInstance, ReleaseData, UseItem, UseOnEntityData, Vec3 as WireVec3,
};
use clawcraft_world::block::BlockInfo;
use clawcraft_world::chunk::{BlockLookup, World as BlockWorld};
use clawcraft_world::ids::{BlockIds, IdTable};
use clawcraft_world::query::Cell;
use clawcraft_world::raycast::{Face, RayEnd, cast};
use serde::Serialize;

/// How far the hand reaches: survival Bedrock with mouse or controller, from the eye to the point
/// clicked.
pub const REACH: f64 = 5.0;
/// How far an entity can be hit from (eye to the entity's nearest point, as ClawCraft: 5 blocks
/// from the feet position).
pub const ATTACK_REACH: f64 = 5.0;
/// The slots of the hand: actions in them exclude each other (one item in one hand).
pub const HAND_SLOTS: [&str; 3] = ["mine", "eat", "use"];

/// The six faces in Bedrock's order.
pub const FACES: [Face; 6] = [Face::Down, Face::Up, Face::North, Face::South, Face::West, Face::East];

/// A face's outward normal.
pub fn normal(face: Face) -> [i32; 3] {
    match face {
        Face::Down => [0, -1, 0],
        Face::Up => [0, 1, 0],
        Face::North => [0, 0, -1],
        Face::South => [0, 0, 1],
        Face::West => [-1, 0, 0],
        Face::East => [1, 0, 0],
    }
}

/// The face with Bedrock number `id`.
pub fn face_from_id(id: i64) -> Option<Face> {
    usize::try_from(id).ok().and_then(|i| FACES.get(i)).copied()
}

/// The face opposite `face`.
pub fn opposite(face: Face) -> Face {
    match face {
        Face::Down => Face::Up,
        Face::Up => Face::Down,
        Face::North => Face::South,
        Face::South => Face::North,
        Face::West => Face::East,
        Face::East => Face::West,
    }
}

/// The neighbour of `cell` across `face`.
pub fn neighbour(cell: [i32; 3], face: Face) -> [i32; 3] {
    let n = normal(face);
    [cell[0] + n[0], cell[1] + n[1], cell[2] + n[2]]
}

/// A block position for the agent.
#[derive(Serialize, schemars::JsonSchema, Debug, Clone, Copy, PartialEq, Eq)]
pub struct BlockXyz {
    pub x: i32,
    pub y: i32,
    pub z: i32,
}

impl From<[i32; 3]> for BlockXyz {
    fn from(c: [i32; 3]) -> Self {
        Self { x: c[0], y: c[1], z: c[2] }
    }
}

/// The wire form of a cell.
pub fn block_pos(c: [i32; 3]) -> BlockPos {
    BlockPos { x: c[0], y: c[1], z: c[2] }
}

/// Bedrock angles (degrees) looking from `from` to `to`: yaw 0 faces +Z, 90 faces −X; positive
/// pitch looks down.
pub fn look_angles(from: Vec3, to: Vec3) -> (f32, f32) {
    let (dx, dy, dz) = (to.x - from.x, to.y - from.y, to.z - from.z);
    let yaw = (-dx).atan2(dz).to_degrees();
    let pitch = -dy.atan2((dx * dx + dz * dz).sqrt()).to_degrees();
    (yaw as f32, pitch as f32)
}

/// The block cell containing point `(x, y, z)`, if finite and within the world border.
pub fn cell_of(x: f64, y: f64, z: f64) -> Result<[i32; 3], CommandError> {
    let ok = |v: f64| v.is_finite() && v.abs() <= 30_000_000.0;
    if !(ok(x) && ok(y) && ok(z)) {
        return Err(CommandError::out_of_range("coordinates must be finite and within ±30 000 000"));
    }
    Ok([x.floor() as i32, y.floor() as i32, z.floor() as i32])
}

/// What an action reads about the bot: eye, blocks and ids.
pub struct Senses<'a> {
    pub world: &'a BlockWorld,
    pub ids: Arc<IdTable>,
    pub feet: Vec3,
}

impl<'a> Senses<'a> {
    /// The senses of the command's bot.
    pub fn of(ctx: &'a CommandCtx<'_>) -> Result<Senses<'a>, CommandError> {
        Self::of_bot(ctx.world, ctx.bot)
    }

    /// The senses of `bot`.
    pub fn of_bot(w: &'a World, bot: Entity) -> Result<Senses<'a>, CommandError> {
        let world = w.get::<BlockWorld>(bot).ok_or_else(CommandError::not_spawned)?;
        let feet = w.get::<Position>(bot).ok_or_else(CommandError::not_spawned)?.0;
        let ids = match w.get::<BlockIds>(bot) {
            Some(ids) => ids.0.clone(),
            None => BlockIds::fallback().ok_or_else(|| CommandError::internal("no block data"))?,
        };
        Ok(Senses { world, ids, feet })
    }

    pub fn eye(&self) -> Vec3 {
        self.feet.offset_y(EYE_HEIGHT)
    }

    /// The layer-0 id at `c`, or `NOT_LOADED`.
    pub fn id_at(&self, c: [i32; 3]) -> Result<u32, CommandError> {
        match self.world.get_block(c[0], c[1], c[2]) {
            BlockLookup::Loaded(id, _) => Ok(id),
            BlockLookup::Unloaded => {
                Err(CommandError::new("NOT_LOADED", format!("Block {} {} {} is not loaded", c[0], c[1], c[2])))
            }
        }
    }

    /// Whether `id` is air (or a liquid): nothing a hand can hit.
    pub fn is_empty(&self, id: u32) -> bool {
        id == self.world.air_id() || self.ids.is_air(id) || self.ids.info(id).is_some_and(BlockInfo::is_liquid)
    }

    pub fn info(&self, id: u32) -> Option<&BlockInfo> {
        self.ids.info(id)
    }

    pub fn name(&self, id: u32) -> String {
        self.ids.name(id).to_owned()
    }
}

/// Where to click a block: the face, the point on it, its distance from the eye.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Aim {
    pub face: Face,
    pub point: Vec3,
    pub distance: f64,
}

impl Aim {
    /// The click position inside the block (0..1 per axis), as transactions carry it.
    pub fn click_pos(&self, cell: [i32; 3]) -> WireVec3 {
        WireVec3 {
            x: (self.point.x - f64::from(cell[0])).clamp(0.0, 1.0) as f32,
            y: (self.point.y - f64::from(cell[1])).clamp(0.0, 1.0) as f32,
            z: (self.point.z - f64::from(cell[2])).clamp(0.0, 1.0) as f32,
        }
    }
}

/// The centre of `face` of `cell`.
pub fn face_centre(cell: [i32; 3], face: Face) -> Vec3 {
    let n = normal(face);
    let c = |i: usize| f64::from(cell[i]) + 0.5 + 0.5 * f64::from(n[i]);
    Vec3::new(c(0), c(1), c(2))
}

/// Points of a face a ray may aim at: the centre first, then four points towards its corners
/// (a ray through the centre can graze the edge of a neighbouring block where a slightly
/// different aim sees the face).
fn face_points(cell: [i32; 3], face: Face) -> [Vec3; 5] {
    let c = face_centre(cell, face);
    let n = normal(face);
    // The two axes lying in the face.
    let axes: Vec<usize> = (0..3).filter(|i| n[*i] == 0).collect();
    let at = |du: f64, dv: f64| {
        let mut p = [c.x, c.y, c.z];
        p[axes[0]] += du;
        p[axes[1]] += dv;
        Vec3::new(p[0], p[1], p[2])
    };
    const D: f64 = 0.3;
    [c, at(-D, -D), at(D, -D), at(-D, D), at(D, D)]
}

/// Chooses the face of `cell` to click: among the faces turned towards the eye (or only `want`),
/// those a ray from the eye reaches without another block in the way; the nearest wins. Errors:
/// `OUT_OF_REACH` when every visible face is beyond [`REACH`], `NO_LINE_OF_SIGHT` when something
/// stands in front of every face.
pub fn aim_at(s: &Senses<'_>, cell: [i32; 3], want: Option<Face>) -> Result<Aim, CommandError> {
    let air = s.world.air_id();
    aim_at_through(s, cell, want, |id| id != air && !s.is_empty(id))
}

/// [`aim_at`] with what stops the ray given: a bucket's ray stops at liquids too, so it aims at
/// the first liquid in the way.
pub fn aim_at_through(
    s: &Senses<'_>,
    cell: [i32; 3],
    want: Option<Face>,
    is_obstacle: impl Fn(u32) -> bool,
) -> Result<Aim, CommandError> {
    let eye = s.eye();
    let e = [eye.x, eye.y, eye.z];
    let mut nearest_seen: Option<f64> = None;
    let mut best: Option<Aim> = None;
    for face in FACES {
        if want.is_some_and(|w| w != face) {
            continue;
        }
        let centre = face_centre(cell, face);
        let n = normal(face);
        // Only faces turned towards the eye can be clicked.
        let p = [centre.x, centre.y, centre.z];
        let facing: f64 = (0..3).map(|i| (e[i] - p[i]) * f64::from(n[i])).sum();
        if facing <= 0.0 {
            continue;
        }
        for point in face_points(cell, face) {
            let distance = eye.distance(point);
            let dir = [point.x - eye.x, point.y - eye.y, point.z - eye.z];
            let ray = cast(s.world, e, dir, distance + 0.01, &is_obstacle);
            let hits_target = matches!(ray.end, RayEnd::Hit { cell: Cell { x, y, z }, .. } if [x, y, z] == cell);
            if !hits_target {
                continue;
            }
            nearest_seen = Some(nearest_seen.map_or(distance, |d: f64| d.min(distance)));
            if distance <= REACH && best.is_none_or(|b| distance < b.distance) {
                best = Some(Aim { face, point, distance });
            }
            break;
        }
    }
    match (best, nearest_seen) {
        (Some(a), _) => Ok(a),
        (None, Some(d)) => Err(out_of_reach(d)),
        (None, None) => Err(CommandError::new(
            "NO_LINE_OF_SIGHT",
            format!("No face of block {} {} {} is visible from the eye", cell[0], cell[1], cell[2]),
        )),
    }
}

/// `OUT_OF_REACH` for something `d` blocks away.
pub fn out_of_reach(d: f64) -> CommandError {
    CommandError::new(
        "OUT_OF_REACH",
        format!("Target is {:.2} blocks from the eye; reach is {REACH} (walk closer first)", d),
    )
}

/// The hand is lent to the action of slot `.0` (a walk opening a door, mining or placing a block
/// on its way): hand actions are `BUSY` meanwhile.
#[derive(Component, Debug, Clone, Copy, PartialEq, Eq)]
pub struct HandBorrowed(pub &'static str);

/// `BUSY` when another hand action runs (mining, eating, using, or a walk's step that uses the
/// hand): one hand, one item.
pub fn hand_free(ctx: &CommandCtx<'_>) -> Result<(), CommandError> {
    hand_free_of(ctx.world, ctx.bot)
}

/// [`hand_free`] for any bot.
pub fn hand_free_of(world: &World, bot: Entity) -> Result<(), CommandError> {
    let Some(actions) = world.get::<ActiveActions>(bot) else { return Ok(()) };
    let borrowed = world.get::<HandBorrowed>(bot).map(|b| b.0);
    for slot in HAND_SLOTS.into_iter().chain(borrowed) {
        if let Some(a) = actions.slots.get(slot) {
            return Err(CommandError::busy(&format!("running {} (id {})", a.command, a.id), a.abort));
        }
    }
    Ok(())
}

/// The bot's runtime id.
pub fn runtime_id(ctx: &CommandCtx<'_>) -> Result<u64, CommandError> {
    runtime_id_of(ctx.world, ctx.bot)
}

/// [`runtime_id`] for any bot.
pub fn runtime_id_of(world: &World, bot: Entity) -> Result<u64, CommandError> {
    world.get::<EntityIds>(bot).map(|i| i.runtime_id).ok_or_else(CommandError::not_spawned)
}

/// The synced inventory, or `NO_ITEM`.
pub fn inventory<'a>(ctx: &'a CommandCtx<'_>) -> Result<&'a Inventory, CommandError> {
    inventory_of(ctx.world, ctx.bot)
}

/// [`inventory`] for any bot.
pub fn inventory_of(world: &World, bot: Entity) -> Result<&Inventory, CommandError> {
    match world.get::<Inventory>(bot) {
        Some(inv) if inv.synced => Ok(inv),
        _ => Err(clawcraft_inventory::commands::no_item("The server has not sent the inventory yet")),
    }
}

/// Turns the bot to look at `point` (the next PlayerAuthInput carries it).
pub fn turn_to(world: &mut World, bot: Entity, point: Vec3) {
    let Some(feet) = world.get::<Position>(bot).map(|p| p.0) else { return };
    let (yaw, pitch) = look_angles(feet.offset_y(EYE_HEIGHT), point);
    if let Some(mut r) = world.get_mut::<Rotation>(bot) {
        *r = Rotation { yaw, pitch };
    }
}

/// The wire record of the held item (air for an empty hand).
pub fn held_wire(inv: &Inventory) -> ItemInstance {
    inv.held().map_or_else(ItemInstance::air, |i: &Item| i.wire.clone())
}

/// An arm swing (`swing_source` as the client sends it: `attack`, `mine`, `useitem`, …).
pub fn swing(runtime_id: u64, source: &str) -> Animate {
    Animate {
        action_id: "swing_arm".into(),
        runtime_entity_id: runtime_id,
        data: 0.0,
        has_swing_source: true,
        swing_source: Some(source.into()),
    }
}

/// A `click_block` use of the held item on `cell`'s `face` (placing, opening, pressing).
pub fn click_block(inv: &Inventory, eye: Vec3, cell: [i32; 3], aim: &Aim, block_id: u32) -> InventoryTransaction {
    InventoryTransaction::item_use(&UseItem {
        action_type: "click_block".into(),
        trigger_type: "player_input".into(),
        block_position: block_pos(cell),
        face: i32::from(aim.face.id()),
        hotbar_slot: i32::from(inv.held_slot),
        hand: "main_hand".into(),
        held_item: held_wire(inv).to_stack(),
        player_pos: wire(eye),
        click_pos: aim.click_pos(cell),
        block_runtime_id: block_id,
        client_prediction: "success".into(),
        client_cooldown_state: "off".into(),
    })
}

/// A `click_air` use of the held item (eat, drink, throw, use).
pub fn click_air(inv: &Inventory, eye: Vec3) -> InventoryTransaction {
    InventoryTransaction::item_use(&UseItem {
        action_type: "click_air".into(),
        trigger_type: "player_input".into(),
        block_position: BlockPos::default(),
        face: 255,
        hotbar_slot: i32::from(inv.held_slot),
        hand: "main_hand".into(),
        held_item: held_wire(inv).to_stack(),
        player_pos: wire(eye),
        click_pos: WireVec3::default(),
        block_runtime_id: 0,
        client_prediction: "failure".into(),
        client_cooldown_state: "off".into(),
    })
}

/// How the hand meets an entity.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EntityClick {
    /// A use of the held item on it (feed, milk, shear, trade).
    Interact,
    /// A hit.
    Attack,
}

/// Swings the arm (bot `own_runtime_id`) and clicks entity `target` at `point` from `eye` with
/// the held item, as the client does (an empty hand in slot 0 while the inventory is unknown).
pub fn click_entity(
    conn: &mut Connection,
    own_runtime_id: u64,
    inv: Option<&Inventory>,
    eye: Vec3,
    target: u64,
    point: Vec3,
    click: EntityClick,
) {
    let (swing_source, action_type) = match click {
        EntityClick::Interact => ("useitem", "interact"),
        EntityClick::Attack => ("attack", "attack"),
    };
    conn.send(&swing(own_runtime_id, swing_source));
    conn.send(&InventoryTransaction::use_on_entity(&UseOnEntityData {
        entity_runtime_id: target,
        action_type: action_type.into(),
        hotbar_slot: inv.map_or(0, |i| i32::from(i.held_slot)),
        held_item: inv.map_or_else(ItemInstance::air, held_wire),
        player_pos: wire(eye),
        click_pos: wire(point),
    }));
}

/// An `item_release` of the held item (stop eating, fire a bow).
pub fn release(inv: &Inventory, eye: Vec3) -> InventoryTransaction {
    InventoryTransaction::release(&ReleaseData {
        action_type: "release".into(),
        hotbar_slot: i32::from(inv.held_slot),
        held_item: held_wire(inv),
        head_pos: wire(eye),
    })
}

/// The wire vector of a point.
pub fn wire(v: Vec3) -> WireVec3 {
    WireVec3 { x: v.x as f32, y: v.y as f32, z: v.z as f32 }
}

/// Block updates a packet carries, as `(cell, layer, network id)`.
pub fn block_updates(pkt: &clawcraft_network::ClientboundPacket) -> Vec<([i32; 3], u32, u32)> {
    use clawcraft_protocol::packets::{UpdateBlock, UpdateSubChunkBlocks};
    if let Some(u) = pkt.view::<UpdateBlock>() {
        return vec![([u.position.x, u.position.y, u.position.z], u.layer, u.block_runtime_id)];
    }
    if let Some(u) = pkt.view::<UpdateSubChunkBlocks>() {
        let mut out = Vec::new();
        for (layer, list) in [(0, &u.blocks), (1, &u.extra)] {
            out.extend(list.iter().map(|e| ([e.position.x, e.position.y, e.position.z], layer, e.runtime_id)));
        }
        return out;
    }
    Vec::new()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn faces_normals_and_angles() {
        assert_eq!(FACES.map(Face::id), [0, 1, 2, 3, 4, 5]);
        assert_eq!(neighbour([1, 2, 3], Face::Up), [1, 3, 3]);
        assert_eq!(opposite(Face::West), Face::East);
        assert_eq!(face_from_id(5), Some(Face::East));
        assert_eq!(face_from_id(6), None);
        assert_eq!(face_centre([0, -61, 0], Face::Up), Vec3::new(0.5, -60.0, 0.5));
        let (yaw, pitch) = look_angles(Vec3::ZERO, Vec3::new(-1.0, 0.0, 0.0));
        assert!((yaw - 90.0).abs() < 1e-4 && pitch.abs() < 1e-4);
        let (_, down) = look_angles(Vec3::ZERO, Vec3::new(0.0, -1.0, 1.0));
        assert!((down - 45.0).abs() < 1e-4);
        let aim = Aim { face: Face::Up, point: Vec3::new(2.25, -60.0, 3.75), distance: 1.0 };
        assert_eq!(aim.click_pos([2, -61, 3]), WireVec3 { x: 0.25, y: 1.0, z: 0.75 });
        assert!(cell_of(f64::NAN, 0.0, 0.0).is_err());
        assert_eq!(cell_of(-0.5, 64.9, 3.0).ok(), Some([-1, 64, 3]));
    }
}

/// Whether the right item is in the hand yet.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ready {
    /// It is held now.
    Now,
    /// An equip job (inventory job id) must be confirmed first.
    Job(u64),
}

/// Makes the first item matching `query` the held item: already held or in the hotbar → held now
/// (a hotbar selection needs no answer); in the main inventory → swapped into the held slot by an
/// inventory job the action waits for. `NO_ITEM` when the inventory has none.
pub fn hold_item(ctx: &mut CommandCtx<'_>, query: &str) -> Result<Ready, CommandError> {
    hold_item_of(ctx.world, ctx.bot, query)
}

/// [`hold_item`] for any bot.
pub fn hold_item_of(world: &mut World, bot: Entity, query: &str) -> Result<Ready, CommandError> {
    let inv = inventory_of(world, bot)?;
    let found = inv.find(query);
    let held = inv.held_slot;
    if found.contains(&held) {
        return Ok(Ready::Now);
    }
    if let Some(&slot) = found.iter().find(|s| **s < clawcraft_inventory::HOTBAR_SLOTS) {
        let rid = runtime_id_of(world, bot)?;
        let mut events = clawcraft_core::EventBatch::new(bot);
        let mut q = world.query::<(&mut clawcraft_network::Connection, &mut Inventory)>();
        if let Ok((mut conn, mut inv)) = q.get_mut(world, bot) {
            clawcraft_inventory::hold(&mut conn, rid, &mut inv, slot, &mut events);
        }
        world.write_message_batch(events.drain());
        return Ok(Ready::Now);
    }
    let Some(&from) = found.first() else {
        return Err(CommandError::new("NO_ITEM", format!("No item matching {query:?} in the inventory")));
    };
    use clawcraft_inventory::{Move, SlotRef};
    let mv = if inv.held().is_some() {
        Move::Swap { a: SlotRef::Inv(from), b: SlotRef::Inv(held) }
    } else {
        let count = inv.get(SlotRef::Inv(from)).map_or(1, |i| u8::try_from(i.count).unwrap_or(u8::MAX));
        Move::Place { from: SlotRef::Inv(from), to: SlotRef::Inv(held), count }
    };
    let mut jobs = world.get_mut::<clawcraft_inventory::InventoryJobs>(bot).ok_or_else(CommandError::not_spawned)?;
    Ok(Ready::Job(jobs.submit("equip", vec![mv])))
}

/// The state of an equip job: `None` while pending, `Some(Err(reason))` when refused.
pub fn job_outcome(jobs: &clawcraft_inventory::InventoryJobs, job: u64) -> Option<Result<(), String>> {
    match jobs.result(job)? {
        clawcraft_inventory::JobResult::Confirmed => Some(Ok(())),
        clawcraft_inventory::JobResult::Rejected(s) => Some(Err(format!("item swap refused ({s})"))),
    }
}

/// The item a query names, for responses: the held item after [`hold_item`], or the match.
pub fn item_named(inv: &Inventory, query: Option<&str>) -> Option<Item> {
    match query {
        Some(q) => inv.find(q).first().and_then(|s| inv.get(clawcraft_inventory::SlotRef::Inv(*s))).cloned(),
        None => inv.held().cloned(),
    }
}
