//! `fill` and `empty`: a bucket's two uses, beside `use` and `place`.
//!
//! - `fill`: an empty bucket on a water or lava **source** (at x,y,z, or the nearest one in
//!   reach). The client's bucket ray stops at the first liquid, so the click is a `click_block`
//!   item-use transaction on the liquid block itself (its face towards the eye, its network id).
//!   A Bedrock server (dragonfly `item/bucket.go` `fillFrom`) takes only a source (depth 8 in its
//!   terms, `liquid_depth` 0 in the block state), turns it to air and gives a water/lava bucket:
//!   the held bucket becomes it, or — from a stack of buckets — one bucket fewer and the filled
//!   one elsewhere in the inventory.
//! - `empty`: a water/lava bucket against a face of the block next to the cell, as `place` clicks
//!   (the server puts the liquid in the clicked block when it can hold it, else in the cell
//!   across the face); the bucket comes back empty.
//!
//! The receipt (`fill_done` / `empty_done`) is the server's block update at the cell (`before` →
//! `after`) and the inventory it confirmed: the held item's name before and after, the count of
//! filled buckets (`filled`) and of empty ones (`buckets`). `failed` `rejected` when the server
//! sent the old block back, `unconfirmed` when it sent nothing within a second.

use bevy_ecs::prelude::*;
use bevy_ecs::world::EntityRef;
use clawcraft_core::{
    ActionSlot, ActionStatus, AgentCommand, AsyncAction, AsyncInfo, CommandCtx, CommandError, EYE_HEIGHT, EndActionExt,
    EntityIds, Outcome, Position, TickCount, bare_name,
};
use clawcraft_inventory::{Inventory, InventoryJobs};
use clawcraft_network::{ClientboundPacket, Connection};
use clawcraft_world::ids::BlockIds;
use clawcraft_world::query::Cell;
use clawcraft_world::query::properties_json;
use clawcraft_world::raycast::{Face, RayEnd, cast};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::common::{
    Aim, BlockXyz, REACH, Ready, Senses, aim_at_through, block_updates, cell_of, click_block, face_from_id, hand_free,
    hold_item_of, inventory_of, job_outcome, out_of_reach, swing, turn_to,
};
use crate::place::support;
use crate::use_slot::{ItemCount, USE_SLOT};

/// Ticks to wait for the server's block update.
const CONFIRM_TICKS: u64 = 20;
/// Ticks after the block changed to wait for the inventory change.
const COUNT_WAIT_TICKS: u64 = 10;
/// Ticks to wait for a bucket swapped in from the main inventory.
const EQUIP_TICKS: u64 = 60;

/// The empty bucket's item name.
pub const BUCKET: &str = "minecraft:bucket";

/// Which use of a bucket.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    Fill,
    Empty,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    Equipping(u64),
    Click,
    Sent(u64),
    Changed(u64),
}

/// The liquid a block or bucket item holds: `water` or `lava` (None for anything else).
pub fn liquid_of(name: &str) -> Option<&'static str> {
    match bare_name(name) {
        "water" | "flowing_water" | "water_bucket" => Some("water"),
        "lava" | "flowing_lava" | "lava_bucket" => Some("lava"),
        _ => None,
    }
}

/// The filled bucket's item name for a liquid.
pub fn bucket_of(liquid: &str) -> String {
    format!("minecraft:{liquid}_bucket")
}

/// Whether the block `id` is a liquid source (`liquid_depth` 0) of some liquid, and which.
pub fn source_liquid(s: &Senses<'_>, id: u32) -> Option<&'static str> {
    let liquid = liquid_of(&s.name(id))?;
    let state = s.ids.state(id)?;
    let depth = properties_json(&state).get("liquid_depth").and_then(serde_json::Value::as_i64);
    (depth == Some(0)).then_some(liquid)
}

/// The click a bucket use makes: what it does, where, and what was there.
#[derive(Debug, Clone)]
pub struct BucketClick {
    pub mode: Mode,
    /// The cell the liquid leaves (fill) or goes to (empty).
    pub pos: [i32; 3],
    /// The block clicked (the liquid itself for fill, the supporting block for empty).
    pub clicked: [i32; 3],
    pub clicked_id: u32,
    pub aim: Aim,
    /// `water` or `lava`.
    pub liquid: &'static str,
    /// The block at `pos` before.
    pub before: String,
}

/// A bucket use under way: its click and what the server showed.
#[derive(Debug, Clone)]
pub struct Bucket {
    pub click: BucketClick,
    /// What the server put at `pos`.
    pub after: Option<String>,
    pub refused: bool,
    pub held: (Option<String>, Option<String>),
    pub filled: ItemCount,
    pub buckets: ItemCount,
    phase: Phase,
    started: u64,
}

impl Bucket {
    /// Whether a block at `pos` is the one the use should leave there.
    fn wanted(&self, block: &str) -> bool {
        match self.click.mode {
            Mode::Fill => liquid_of(block).is_none(),
            Mode::Empty => liquid_of(block) == Some(self.click.liquid),
        }
    }

    /// An owner's bucket use, built without the world: `ready` says whether the item is in hand
    /// (the click goes out at the next [`advance_bucket`]) or an equip job comes first.
    pub fn new(click: BucketClick, ready: Ready, now: u64) -> Self {
        Self {
            click,
            after: None,
            refused: false,
            held: (None, None),
            filled: ItemCount::default(),
            buckets: ItemCount::default(),
            phase: match ready {
                Ready::Now => Phase::Click,
                Ready::Job(j) => Phase::Equipping(j),
            },
            started: now,
        }
    }

    /// True only when the server's block update showed the change at `pos`.
    pub fn confirmed(&self) -> bool {
        self.after.as_deref().is_some_and(|a| self.wanted(a))
    }

    /// The face clicked (0 down … 5 east).
    pub fn face(&self) -> u8 {
        self.click.aim.face.id()
    }

    /// The point clicked.
    pub fn point(&self) -> clawcraft_core::Vec3 {
        self.click.aim.point
    }

    fn counts(&self, inv: &Inventory) -> (u16, u16) {
        let n = |name: &str| u16::try_from(inv.count_of(name)).unwrap_or(u16::MAX);
        (n(&bucket_of(self.click.liquid)), n(BUCKET))
    }

    /// Whether the inventory shows the swap yet (a filled bucket more for fill, less for empty).
    fn swapped(&self) -> bool {
        match self.click.mode {
            Mode::Fill => self.filled.after > self.filled.before,
            Mode::Empty => self.filled.after < self.filled.before,
        }
    }
}

/// A bucket action's component.
pub trait BucketAction: Component<Mutability = bevy_ecs::component::Mutable> + AsyncAction {
    fn bucket(&mut self) -> &mut Bucket;
}

macro_rules! bucket_action {
    ($comp:ident, $done:ident, $name:literal, $desc:literal) => {
        /// The running action.
        #[derive(Component, Debug, Clone)]
        pub struct $comp(pub Bucket);

        /// Its receipt's evidence.
        #[derive(Serialize, JsonSchema, Debug, Clone, PartialEq)]
        #[serde(rename_all = "camelCase")]
        pub struct $done {
            /// The cell the liquid left (fill) or went to (empty).
            pub pos: BlockXyz,
            /// The block clicked.
            pub clicked: BlockXyz,
            /// The face clicked (0 down … 5 east).
            pub face: u8,
            /// `water` or `lava`.
            pub liquid: String,
            /// True only when the server's block update showed the change at `pos`.
            pub confirmed: bool,
            /// The block at `pos` before.
            pub before: String,
            /// What the server put at `pos` (null when it sent nothing).
            pub after: Option<String>,
            /// The held item before and after (the inventory the server confirmed).
            pub held_before: Option<String>,
            pub held_after: Option<String>,
            /// Filled buckets of this liquid in the inventory before and after.
            pub filled: ItemCount,
            /// Empty buckets in the inventory before and after.
            pub buckets: ItemCount,
        }
        clawcraft_core::evidence!($done, $name, $desc);

        impl AsyncAction for $comp {
            const SLOT: ActionSlot = USE_SLOT;
            type Evidence = $done;

            fn evidence(&self, _outcome: &Outcome, _bot: EntityRef<'_>) -> $done {
                let b = &self.0;
                $done {
                    pos: b.click.pos.into(),
                    clicked: b.click.clicked.into(),
                    face: b.click.aim.face.id(),
                    liquid: b.click.liquid.to_owned(),
                    confirmed: b.confirmed(),
                    before: b.click.before.clone(),
                    after: b.after.clone(),
                    held_before: b.held.0.clone(),
                    held_after: b.held.1.clone(),
                    filled: b.filled,
                    buckets: b.buckets,
                }
            }
        }

        impl BucketAction for $comp {
            fn bucket(&mut self) -> &mut Bucket {
                &mut self.0
            }
        }
    };
}

bucket_action!(
    Filling,
    FillDone,
    "fill_done",
    "A fill ended: confirmed when the server's block update emptied the source; heldBefore/heldAfter and filled/buckets show the bucket swap the server sent; failed rejected/unconfirmed otherwise"
);
bucket_action!(
    Emptying,
    EmptyDone,
    "empty_done",
    "An empty ended: confirmed when the server's block update showed the liquid in the cell; heldBefore/heldAfter and filled/buckets show the bucket coming back empty; failed rejected/unconfirmed otherwise"
);

/// `fill`.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Fill {
    /// The liquid source to fill from (all three, or none for the nearest source in reach).
    pub x: Option<f64>,
    pub y: Option<f64>,
    pub z: Option<f64>,
    /// Only this liquid (`water` or `lava`) when looking for the nearest source.
    pub liquid: Option<String>,
}

/// `empty`.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Empty {
    /// The cell to pour the liquid into.
    pub x: f64,
    pub y: f64,
    pub z: f64,
    /// The face of the supporting block to click (0 down … 5 east: 1 = on top of the block
    /// below); default: the first that works of below, north, south, east, west, above.
    pub face: Option<i64>,
    /// `water_bucket` or `lava_bucket` (default: the held one, else water, else lava).
    pub item: Option<String>,
}

/// Response of `fill` and `empty`.
#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct BucketResponse {
    /// True: the click is on its way (the verdict is `fill_done` / `empty_done`).
    pub started: bool,
    /// `water` or `lava`.
    pub liquid: String,
    /// The cell the liquid leaves (fill) or goes to (empty).
    pub pos: BlockXyz,
    /// The block clicked and its face.
    pub clicked: BlockXyz,
    pub face: u8,
}

/// What stops a bucket's ray: any block but air, liquids included.
pub fn bucket_obstacle<'a>(s: &'a Senses<'_>) -> impl Fn(u32) -> bool + 'a {
    let air = s.world.air_id();
    move |id| id != air && !s.ids.is_air(id)
}

/// The source to fill from: the given cell, or the nearest source in reach and in sight.
fn fill_target(ctx: &CommandCtx<'_>, f: &Fill) -> Result<([i32; 3], u32, &'static str, Aim), CommandError> {
    let s = Senses::of(ctx)?;
    let only = match f.liquid.as_deref().map(bare_name) {
        None => None,
        Some(l @ ("water" | "lava")) => Some(l),
        Some(other) => return Err(CommandError::invalid_params(format!("liquid must be water or lava, not {other}"))),
    };
    let one = |cell: [i32; 3]| -> Result<([i32; 3], u32, &'static str, Aim), CommandError> {
        let id = s.id_at(cell)?;
        let Some(liquid) = source_liquid(&s, id) else {
            let what = if liquid_of(&s.name(id)).is_some() { "flowing liquid, not a source" } else { "not a liquid" };
            return Err(CommandError::new(
                "NOT_A_SOURCE",
                format!("{} at {} {} {} is {what}", s.name(id), cell[0], cell[1], cell[2]),
            ));
        };
        let aim = aim_at_through(&s, cell, None, bucket_obstacle(&s))?;
        Ok((cell, id, liquid, aim))
    };
    match (f.x, f.y, f.z) {
        (Some(x), Some(y), Some(z)) => one(cell_of(x, y, z)?),
        (None, None, None) => {
            let eye = s.eye();
            let r = REACH.ceil() as i32;
            let c = [eye.x.floor() as i32, eye.y.floor() as i32, eye.z.floor() as i32];
            let mut found: Vec<(f64, [i32; 3])> = Vec::new();
            for dx in -r..=r {
                for dy in -r..=r {
                    for dz in -r..=r {
                        let cell = [c[0] + dx, c[1] + dy, c[2] + dz];
                        let Ok(id) = s.id_at(cell) else { continue };
                        let Some(l) = source_liquid(&s, id) else { continue };
                        if only.is_some_and(|o| o != l) {
                            continue;
                        }
                        let centre = clawcraft_core::Vec3::new(
                            f64::from(cell[0]) + 0.5,
                            f64::from(cell[1]) + 0.5,
                            f64::from(cell[2]) + 0.5,
                        );
                        found.push((eye.distance(centre), cell));
                    }
                }
            }
            found.sort_by(|a, b| a.0.total_cmp(&b.0));
            found.into_iter().find_map(|(_, cell)| one(cell).ok()).ok_or_else(|| {
                CommandError::new(
                    "NOT_A_SOURCE",
                    format!("No {} source in reach and in sight", only.unwrap_or("liquid")),
                )
            })
        }
        _ => Err(CommandError::invalid_params("give x, y and z together (or none for the nearest source)")),
    }
}

fn held_name(inv: &Inventory) -> Option<String> {
    inv.held().map(|i| i.name.to_string())
}

impl AgentCommand for Fill {
    const NAME: &'static str = "fill";
    const SUMMARY: &'static str = "Fill an empty bucket from the water/lava source at x,y,z (or the nearest in reach); async, ends in fill_done with the server's block update and the bucket swap it sent";
    const EXAMPLE: &'static str = r#"{"action":"fill","x":-3,"y":-61,"z":2}"#;
    const ASYNC: Option<AsyncInfo> = Some(AsyncInfo::of::<Filling>());
    type Response = BucketResponse;

    fn run(self, ctx: &mut CommandCtx<'_>) -> Result<BucketResponse, CommandError> {
        hand_free(ctx)?;
        let inv = inventory_of(ctx.world, ctx.bot)?;
        if inv.count_of(BUCKET) == 0 {
            return Err(CommandError::new("NO_ITEM", "No empty bucket in the inventory"));
        }
        let (cell, id, liquid, aim) = fill_target(ctx, &self)?;
        let before = Senses::of(ctx)?.name(id);
        let click = BucketClick { mode: Mode::Fill, pos: cell, clicked: cell, clicked_id: id, aim, liquid, before };
        let b = start_bucket(ctx.world, ctx.bot, click, BUCKET)?;
        let response = response(&b);
        ctx.start(Self::NAME, Filling(b), EQUIP_TICKS + CONFIRM_TICKS + COUNT_WAIT_TICKS + 40)?;
        Ok(response)
    }
}

impl AgentCommand for Empty {
    const NAME: &'static str = "empty";
    const SUMMARY: &'static str = "Pour a water/lava bucket into the cell x,y,z against a supporting face (as place); async, ends in empty_done with the server's block update and the bucket coming back empty";
    const EXAMPLE: &'static str = r#"{"action":"empty","x":1,"y":-60,"z":0,"item":"water_bucket"}"#;
    const ASYNC: Option<AsyncInfo> = Some(AsyncInfo::of::<Emptying>());
    type Response = BucketResponse;

    fn run(self, ctx: &mut CommandCtx<'_>) -> Result<BucketResponse, CommandError> {
        hand_free(ctx)?;
        let target = cell_of(self.x, self.y, self.z)?;
        let want = match self.face {
            Some(f) => Some(face_from_id(f).ok_or_else(|| CommandError::out_of_range("face must be 0-5"))?),
            None => None,
        };
        let inv = inventory_of(ctx.world, ctx.bot)?;
        let item = pick_filled(inv, self.item.as_deref())?;
        let liquid = liquid_of(&item).unwrap_or("water");
        let (_, against, aim, against_id, before) = empty_target(ctx.world, ctx.bot, target, want)?;
        let click = BucketClick {
            mode: Mode::Empty,
            pos: target,
            clicked: against,
            clicked_id: against_id,
            aim,
            liquid,
            before,
        };
        let b = start_bucket(ctx.world, ctx.bot, click, &item)?;
        let response = response(&b);
        ctx.start(Self::NAME, Emptying(b), EQUIP_TICKS + CONFIRM_TICKS + COUNT_WAIT_TICKS + 40)?;
        Ok(response)
    }
}

fn response(b: &Bucket) -> BucketResponse {
    BucketResponse {
        started: true,
        liquid: b.click.liquid.to_owned(),
        pos: b.click.pos.into(),
        clicked: b.click.clicked.into(),
        face: b.click.aim.face.id(),
    }
}

/// The filled bucket to pour: `query` (a water or lava bucket), else the held one, else water,
/// else lava. `NO_ITEM` when there is none.
pub fn pick_filled(inv: &Inventory, query: Option<&str>) -> Result<String, CommandError> {
    if let Some(q) = query {
        let name =
            if q.contains(':') { q.to_ascii_lowercase() } else { format!("minecraft:{}", q.to_ascii_lowercase()) };
        if liquid_of(&name).is_none_or(|_| !bare_name(&name).ends_with("_bucket")) {
            return Err(CommandError::invalid_params(format!("{q} is not a water_bucket or lava_bucket")));
        }
        if inv.count_of(&name) == 0 {
            return Err(CommandError::new("NO_ITEM", format!("No {} in the inventory", bare_name(&name))));
        }
        return Ok(name);
    }
    if let Some(h) = inv.held().filter(|h| bare_name(&h.name).ends_with("_bucket") && liquid_of(&h.name).is_some()) {
        return Ok(h.name.to_string());
    }
    ["water", "lava"]
        .into_iter()
        .map(bucket_of)
        .find(|n| inv.count_of(n) > 0)
        .ok_or_else(|| CommandError::new("NO_ITEM", "No water or lava bucket in the inventory"))
}

/// Where an empty clicks to pour into `target`: the cell must hold air or a liquid; the
/// supporting face as `place` picks it. Returns `(face, against, aim, against id, block at
/// target)`.
pub fn empty_target(
    world: &World,
    bot: Entity,
    target: [i32; 3],
    want: Option<Face>,
) -> Result<(Face, [i32; 3], Aim, u32, String), CommandError> {
    let s = Senses::of_bot(world, bot)?;
    let id = s.id_at(target)?;
    if !s.is_empty(id) {
        return Err(CommandError::new(
            "OCCUPIED",
            format!("{} is at {} {} {}", s.name(id), target[0], target[1], target[2]),
        ));
    }
    let (face, against, aim, against_id) = support(&s, target, want)?;
    Ok((face, against, aim, against_id, s.name(id)))
}

/// Takes the bucket item in hand (a hotbar pick, or a swap from the inventory the action waits
/// for), turns to the click and builds the running state.
pub fn start_bucket(world: &mut World, bot: Entity, click: BucketClick, item: &str) -> Result<Bucket, CommandError> {
    let ready = hold_item_of(world, bot, item)?;
    turn_to(world, bot, click.aim.point);
    let now = world.get_resource::<TickCount>().map_or(0, |t| t.0);
    Ok(Bucket::new(click, ready, now))
}

/// The click that pours onto the top face of `cell` looking straight down: the point of the
/// face under the eye (kept a little inside the face when the eye is not above it), within
/// [`REACH`] of the eye and seen by the bucket's ray (which stops at liquids too). The clutch
/// aims so: the feet fall onto that face, so the point under the eye is the nearest one.
pub fn aim_down(s: &Senses<'_>, cell: [i32; 3]) -> Result<Aim, CommandError> {
    let eye = s.eye();
    let inside = |v: f64, c: i32| v.clamp(f64::from(c) + 0.05, f64::from(c) + 0.95);
    let point = clawcraft_core::Vec3::new(inside(eye.x, cell[0]), f64::from(cell[1]) + 1.0, inside(eye.z, cell[2]));
    if eye.y <= point.y {
        return Err(CommandError::new(
            "NO_LINE_OF_SIGHT",
            format!("The top of block {} {} {} is not below the eye", cell[0], cell[1], cell[2]),
        ));
    }
    let distance = eye.distance(point);
    if distance > REACH {
        return Err(out_of_reach(distance));
    }
    let dir = [point.x - eye.x, point.y - eye.y, point.z - eye.z];
    let ray = cast(s.world, [eye.x, eye.y, eye.z], dir, distance + 0.01, bucket_obstacle(s));
    match ray.end {
        RayEnd::Hit { cell: Cell { x, y, z }, .. } if [x, y, z] == cell => Ok(Aim { face: Face::Up, point, distance }),
        _ => Err(CommandError::new(
            "NO_LINE_OF_SIGHT",
            format!("Something stands between the eye and the top of block {} {} {}", cell[0], cell[1], cell[2]),
        )),
    }
}

/// The server's block updates at the cell.
pub fn watch_buckets<A: BucketAction>(
    mut packets: MessageReader<ClientboundPacket>,
    mut bots: Query<(&mut A, Option<&BlockIds>)>,
    ticks: Res<TickCount>,
) {
    for pkt in packets.read() {
        let Ok((mut a, ids)) = bots.get_mut(pkt.bot) else { continue };
        let b = a.bucket();
        observe_bucket(b, &block_updates(pkt), ids, ticks.0);
    }
}

/// What the server's block updates (`(cell, layer, network id)`) say of a bucket use.
pub fn observe_bucket(b: &mut Bucket, updates: &[([i32; 3], u32, u32)], ids: Option<&BlockIds>, now: u64) {
    if !matches!(b.phase, Phase::Sent(_) | Phase::Changed(_)) {
        return;
    }
    for &(cell, layer, id) in updates {
        if cell != b.click.pos || layer != 0 {
            continue;
        }
        let name = ids.map_or_else(|| format!("block#{id}"), |t| t.0.name(id).to_owned());
        if b.wanted(&name) {
            b.refused = false;
            if let Phase::Sent(_) = b.phase {
                b.phase = Phase::Changed(now);
            }
        } else {
            b.refused = true;
        }
        b.after = Some(name);
    }
}

/// Clicks once the bucket is in hand, then ends on the server's word.
#[allow(clippy::type_complexity)]
pub fn step_buckets<A: BucketAction>(
    mut commands: Commands,
    mut bots: Query<(Entity, &mut A, &Inventory, &InventoryJobs, &mut Connection, &EntityIds, &Position)>,
    ticks: Res<TickCount>,
) {
    let now = ticks.0;
    for (bot, mut a, inv, jobs, mut conn, ids, pos) in &mut bots {
        let b = a.bucket();
        if let Some((status, reason)) = advance_bucket(b, inv, jobs, &mut conn, ids.runtime_id, pos.0, now) {
            commands.end_action(bot, USE_SLOT.name, status, reason);
        }
    }
}

/// One tick of a bucket use, for any owner (the action, the clutch policy). `Some((status,
/// reason))` when it is over.
pub fn advance_bucket(
    b: &mut Bucket,
    inv: &Inventory,
    jobs: &InventoryJobs,
    conn: &mut Connection,
    runtime_id: u64,
    feet: clawcraft_core::Vec3,
    now: u64,
) -> Option<(ActionStatus, Option<String>)> {
    let end = |status, reason: Option<&str>| Some((status, reason.map(str::to_owned)));
    match b.phase {
        Phase::Equipping(job) => match job_outcome(jobs, job) {
            Some(Ok(())) => b.phase = Phase::Click,
            Some(Err(e)) => return end(ActionStatus::Failed, Some(&e)),
            None if now > b.started + EQUIP_TICKS => return end(ActionStatus::Failed, Some("item swap unanswered")),
            None => {}
        },
        Phase::Click => {
            let (filled, buckets) = b.counts(inv);
            b.filled.before = filled;
            b.buckets.before = buckets;
            b.held.0 = held_name(inv);
            conn.send(&click_block(inv, feet.offset_y(EYE_HEIGHT), b.click.clicked, &b.click.aim, b.click.clicked_id));
            conn.send(&swing(runtime_id, "useitem"));
            b.phase = Phase::Sent(now);
        }
        Phase::Sent(at) | Phase::Changed(at) => {
            let (filled, buckets) = b.counts(inv);
            b.filled.after = filled;
            b.buckets.after = buckets;
            b.held.1 = held_name(inv);
            if b.refused {
                return end(ActionStatus::Failed, Some("rejected"));
            }
            if let Phase::Changed(changed_at) = b.phase {
                if b.swapped() || now >= changed_at + COUNT_WAIT_TICKS {
                    return end(ActionStatus::Done, None);
                }
            } else if now >= at + CONFIRM_TICKS {
                return end(ActionStatus::Failed, Some("unconfirmed"));
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn liquids_and_their_buckets() {
        assert_eq!(liquid_of("minecraft:water"), Some("water"));
        assert_eq!(liquid_of("minecraft:flowing_lava"), Some("lava"));
        assert_eq!(liquid_of("minecraft:lava_bucket"), Some("lava"));
        assert_eq!(liquid_of("minecraft:bucket"), None);
        assert_eq!(liquid_of("minecraft:stone"), None);
        assert_eq!(bucket_of("water"), "minecraft:water_bucket");
    }
}
