//! `till`, `plant` and `bone_meal`: the right item in the hand (a hoe, the seed, bone meal —
//! taken from the inventory when not held), one `click_block` item-use transaction on the
//! block's face and an arm swing, as a real client sends them; the receipt is the block change
//! the server showed:
//!
//! - `till_done`: the block became farmland.
//! - `plant_done`: the crop (sapling, bush) appeared on top of the soil; `itemCount` shows the
//!   seed spent.
//! - `bone_meal_done`: the block's state changed (a crop's `growth` before → after).
//!
//! `failed` with `no_change` when the server changed nothing within a second.

use bevy_ecs::prelude::*;
use bevy_ecs::world::EntityRef;
use clawcraft_core::{
    ActionSlot, ActionStatus, AgentCommand, AsyncAction, AsyncInfo, CommandCtx, CommandError, EYE_HEIGHT, EndActionExt,
    EntityIds, Outcome, Position, TickCount,
};
use clawcraft_interact::common::{
    Aim, BlockXyz, Ready, Senses, aim_at, block_updates, cell_of, click_block, face_centre, hand_free, hold_item,
    inventory, job_outcome, neighbour, swing, turn_to,
};
use clawcraft_interact::use_slot::{ItemCount, USE_SLOT};
use clawcraft_inventory::{Inventory, InventoryJobs};
use clawcraft_network::{ClientboundPacket, Connection};
use clawcraft_world::ids::BlockIds;
use clawcraft_world::query::properties_json;
use clawcraft_world::raycast::Face;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::crops::{bone_mealable, plant, tillable};
use clawcraft_core::bare_name;

/// Ticks to wait for the server's block update.
const CONFIRM_TICKS: u64 = 20;
/// Ticks to wait for an item swapped in from the main inventory.
const EQUIP_TICKS: u64 = 60;

/// A block and its state, as the receipts show it.
#[derive(Serialize, JsonSchema, Debug, Clone, PartialEq)]
pub struct BlockSeen {
    pub block: String,
    pub properties: Map<String, Value>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    Equipping(u64),
    Click,
    Sent(u64),
}

/// What a tending click does and where it shows: shared by `till`, `plant` and `bone_meal`.
#[derive(Debug, Clone)]
pub struct Tend {
    /// The block clicked.
    pub clicked: [i32; 3],
    clicked_id: u32,
    aim: Aim,
    /// The cell whose change is the evidence (the clicked block, or the cell above the soil).
    pub watch: [i32; 3],
    pub item: String,
    pub before: BlockSeen,
    pub after: Option<BlockSeen>,
    pub count: ItemCount,
    started: u64,
    phase: Phase,
}

impl Tend {
    /// Whether the change at the watched cell is the one wanted.
    fn wanted(&self, kind: Kind) -> bool {
        let Some(after) = &self.after else { return false };
        match kind {
            Kind::Till => bare_name(&after.block) == "farmland",
            Kind::Plant => bare_name(&after.block) != "air",
            Kind::BoneMeal => *after != self.before,
        }
    }
}

/// The three tending actions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Till,
    Plant,
    BoneMeal,
}

/// A tending action's component: [`Tend`] and its kind.
pub trait Tending: Component<Mutability = bevy_ecs::component::Mutable> + AsyncAction {
    const KIND: Kind;
    fn tend(&mut self) -> &mut Tend;
}

macro_rules! tending {
    ($comp:ident, $done:ident, $kind:expr, $name:literal, $desc:literal) => {
        /// The running action.
        #[derive(Component, Debug, Clone)]
        pub struct $comp(pub Tend);

        /// Its receipt's evidence.
        #[derive(Serialize, JsonSchema, Debug, Clone, PartialEq)]
        #[serde(rename_all = "camelCase")]
        pub struct $done {
            /// The cell whose change is the evidence.
            pub pos: BlockXyz,
            /// The block clicked.
            pub clicked: BlockXyz,
            /// The item used.
            pub item: String,
            /// True only when the server's block update showed the change.
            pub confirmed: bool,
            /// The block at `pos` before.
            pub before: BlockSeen,
            /// What the server put at `pos` (null when it sent nothing).
            pub after: Option<BlockSeen>,
            /// The held stack before and after.
            pub item_count: ItemCount,
        }
        clawcraft_core::evidence!($done, $name, $desc);

        impl AsyncAction for $comp {
            const SLOT: ActionSlot = USE_SLOT;
            type Evidence = $done;

            fn evidence(&self, _outcome: &Outcome, _bot: EntityRef<'_>) -> $done {
                let t = &self.0;
                $done {
                    pos: t.watch.into(),
                    clicked: t.clicked.into(),
                    item: t.item.clone(),
                    confirmed: t.wanted($kind),
                    before: t.before.clone(),
                    after: t.after.clone(),
                    item_count: t.count,
                }
            }
        }

        impl Tending for $comp {
            const KIND: Kind = $kind;
            fn tend(&mut self) -> &mut Tend {
                &mut self.0
            }
        }
    };
}

tending!(
    Tilling,
    TillDone,
    Kind::Till,
    "till_done",
    "A till ended: confirmed when the server's block update showed farmland (before → after as evidence); failed no_change otherwise"
);
tending!(
    Planting,
    PlantDone,
    Kind::Plant,
    "plant_done",
    "A plant ended: confirmed when the server's block update showed the crop or sapling on the soil; itemCount shows the seed spent"
);
tending!(
    BoneMealing,
    BoneMealDone,
    Kind::BoneMeal,
    "bone_meal_done",
    "A bone meal ended: confirmed when the server changed the block's state (a crop's growth before → after); failed no_change otherwise"
);

/// A block to tend.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TendTarget {
    pub x: f64,
    pub y: f64,
    pub z: f64,
    /// The item to use (default: any hoe for `till`, the held seed or the first seed in the
    /// inventory for `plant`, bone meal for `bone_meal`).
    pub item: Option<String>,
}

/// Response of `till`, `plant` and `bone_meal`.
#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct TendResponse {
    /// True: the click is on its way (the verdict is the `*_done` receipt).
    pub started: bool,
    pub item: String,
    /// The block clicked.
    pub block: String,
    /// The cell whose change is the evidence.
    pub pos: BlockXyz,
}

fn block_seen(s: &Senses<'_>, id: u32) -> BlockSeen {
    BlockSeen { block: s.name(id), properties: s.ids.state(id).map(|st| properties_json(&st)).unwrap_or_default() }
}

/// The item the command will use, or `NO_ITEM`.
fn pick_item(
    ctx: &CommandCtx<'_>,
    given: Option<&str>,
    default: impl Fn(&str) -> bool,
) -> Result<String, CommandError> {
    let inv = inventory(ctx)?;
    if let Some(q) = given {
        let slot = inv.find(q).first().copied();
        return slot
            .and_then(|s| inv.get(clawcraft_inventory::SlotRef::Inv(s)))
            .map(|i| i.name.to_string())
            .ok_or_else(|| CommandError::new("NO_ITEM", format!("No item matching {q:?} in the inventory")));
    }
    if let Some(h) = inv.held().filter(|h| default(&h.name)) {
        return Ok(h.name.to_string());
    }
    inv.indexed()
        .find(|(_, it)| default(&it.name))
        .map(|(_, it)| it.name.to_string())
        .ok_or_else(|| CommandError::new("NO_ITEM", "No suitable item in the inventory"))
}

/// Checks, aims and equips, then starts `A` (built from the prepared [`Tend`]).
fn start<A: Tending>(
    ctx: &mut CommandCtx<'_>,
    command: &'static str,
    t: &TendTarget,
    wrap: fn(Tend) -> A,
) -> Result<TendResponse, CommandError> {
    hand_free(ctx)?;
    let cell = cell_of(t.x, t.y, t.z)?;
    let item = match A::KIND {
        Kind::Till => pick_item(ctx, t.item.as_deref(), |n| bare_name(n).ends_with("_hoe"))?,
        Kind::Plant => pick_item(ctx, t.item.as_deref(), |n| plant(n).is_some())?,
        Kind::BoneMeal => pick_item(ctx, t.item.as_deref(), |n| bare_name(n) == "bone_meal")?,
    };
    let s = Senses::of(ctx)?;
    let id = s.id_at(cell)?;
    let name = s.name(id);
    let above = neighbour(cell, Face::Up);
    let above_id = s.id_at(above)?;
    let above_free = above_id == s.world.air_id() || s.ids.is_air(above_id);
    let watch = match A::KIND {
        Kind::Till => {
            if !bare_name(&item).ends_with("_hoe") {
                return Err(CommandError::new("NO_ITEM", format!("{item} is not a hoe")));
            }
            if !tillable(&name) {
                return Err(CommandError::new("INVALID_TARGET", format!("A hoe does not till {name}")));
            }
            if !above_free {
                return Err(CommandError::new("INVALID_TARGET", format!("{} is on top of {name}", s.name(above_id))));
            }
            cell
        }
        Kind::Plant => {
            let p =
                plant(&item).ok_or_else(|| CommandError::new("NO_ITEM", format!("{item} is not a seed or sapling")))?;
            if !p.soils.contains(&bare_name(&name)) {
                return Err(CommandError::new(
                    "INVALID_TARGET",
                    format!("{} does not grow on {name} (needs {})", p.block, p.soils.join(" or ")),
                ));
            }
            if !above_free {
                return Err(CommandError::new("INVALID_TARGET", format!("{} is on top of {name}", s.name(above_id))));
            }
            above
        }
        Kind::BoneMeal => {
            let state = s.ids.state(id);
            bone_mealable(&name, state.as_ref()).map_err(|m| CommandError::new("INVALID_TARGET", m))?;
            cell
        }
    };
    // Tilling and planting click the top face; bone meal any visible one.
    let aim = match A::KIND {
        Kind::BoneMeal => aim_at(&s, cell, None)?,
        _ => aim_at(&s, cell, Some(Face::Up)).or_else(|e| top_face(&s, cell).ok_or(e))?,
    };
    let watch_id = s.id_at(watch)?;
    let before = block_seen(&s, watch_id);
    drop(s);
    let ready = hold_item(ctx, &item)?;
    turn_to(ctx.world, ctx.bot, aim.point);
    let now = ctx.world.get_resource::<TickCount>().map_or(0, |t| t.0);
    let phase = match ready {
        Ready::Now => Phase::Click,
        Ready::Job(j) => Phase::Equipping(j),
    };
    let tend = Tend {
        clicked: cell,
        clicked_id: id,
        aim,
        watch,
        item: item.clone(),
        before,
        after: None,
        count: ItemCount::default(),
        started: now,
        phase,
    };
    ctx.start(command, wrap(tend), EQUIP_TICKS + CONFIRM_TICKS + 40)?;
    Ok(TendResponse { started: true, item, block: name, pos: watch.into() })
}

/// The top face of `cell` when in reach, for a block whose top a crop or plant above it hides
/// from the ray (the click goes to the face a client sees once that is gone).
pub fn top_face(s: &Senses<'_>, cell: [i32; 3]) -> Option<Aim> {
    let point = face_centre(cell, Face::Up);
    let distance = s.eye().distance(point);
    (s.eye().y > point.y && distance <= clawcraft_interact::common::REACH).then_some(Aim {
        face: Face::Up,
        point,
        distance,
    })
}

/// `till`.
#[derive(Deserialize, JsonSchema)]
#[serde(transparent)]
pub struct Till(pub TendTarget);

/// `plant`.
#[derive(Deserialize, JsonSchema)]
#[serde(transparent)]
pub struct PlantCmd(pub TendTarget);

/// `bone_meal`.
#[derive(Deserialize, JsonSchema)]
#[serde(transparent)]
pub struct BoneMeal(pub TendTarget);

impl AgentCommand for Till {
    const NAME: &'static str = "till";
    const SUMMARY: &'static str = "Till the grass or dirt at x,y,z into farmland with a hoe (taken from the inventory if not held); async, ends in till_done confirmed by the server's block update";
    const EXAMPLE: &'static str = r#"{"action":"till","x":1,"y":-61,"z":0}"#;
    const ASYNC: Option<AsyncInfo> = Some(AsyncInfo::of::<Tilling>());
    type Response = TendResponse;

    fn run(self, ctx: &mut CommandCtx<'_>) -> Result<TendResponse, CommandError> {
        start(ctx, Self::NAME, &self.0, Tilling)
    }
}

impl AgentCommand for PlantCmd {
    const NAME: &'static str = "plant";
    const SUMMARY: &'static str = "Plant a seed or sapling (item, default the held or first seed) on the soil block at x,y,z (farmland for crops); async, ends in plant_done when the server showed the crop on top";
    const EXAMPLE: &'static str = r#"{"action":"plant","x":1,"y":-61,"z":0,"item":"wheat_seeds"}"#;
    const ASYNC: Option<AsyncInfo> = Some(AsyncInfo::of::<Planting>());
    type Response = TendResponse;

    fn run(self, ctx: &mut CommandCtx<'_>) -> Result<TendResponse, CommandError> {
        start(ctx, Self::NAME, &self.0, Planting)
    }
}

impl AgentCommand for BoneMeal {
    const NAME: &'static str = "bone_meal";
    const SUMMARY: &'static str = "Use bone meal on the crop, sapling or grass at x,y,z (a mature crop is refused); async, ends in bone_meal_done with the growth before and after from the server";
    const EXAMPLE: &'static str = r#"{"action":"bone_meal","x":1,"y":-60,"z":0}"#;
    const ASYNC: Option<AsyncInfo> = Some(AsyncInfo::of::<BoneMealing>());
    type Response = TendResponse;

    fn run(self, ctx: &mut CommandCtx<'_>) -> Result<TendResponse, CommandError> {
        start(ctx, Self::NAME, &self.0, BoneMealing)
    }
}

/// Equips, clicks, then watches the cell for the server's change.
#[allow(clippy::type_complexity)]
pub fn step_tending<A: Tending>(
    mut commands: Commands,
    mut packets: MessageReader<ClientboundPacket>,
    mut bots: Query<(
        Entity,
        &mut A,
        &Inventory,
        &InventoryJobs,
        &mut Connection,
        &EntityIds,
        &Position,
        Option<&BlockIds>,
    )>,
    ticks: Res<TickCount>,
) {
    let now = ticks.0;
    for pkt in packets.read() {
        let Ok((_, mut a, _, _, _, _, _, ids)) = bots.get_mut(pkt.bot) else { continue };
        let t = a.tend();
        if !matches!(t.phase, Phase::Sent(_)) {
            continue;
        }
        for (cell, layer, id) in block_updates(pkt) {
            if layer != 0 || cell != t.watch {
                continue;
            }
            let state = ids.and_then(|i| i.0.state(id));
            t.after = Some(BlockSeen {
                block: state.as_ref().map_or_else(|| format!("block#{id}"), |s| s.name.to_owned()),
                properties: state.as_ref().map(properties_json).unwrap_or_default(),
            });
        }
    }
    for (bot, mut a, inv, jobs, mut conn, ids, pos, _) in &mut bots {
        let t = a.tend();
        match t.phase {
            Phase::Equipping(job) => match job_outcome(jobs, job) {
                Some(Ok(())) => t.phase = Phase::Click,
                Some(Err(why)) => commands.end_action(bot, USE_SLOT.name, ActionStatus::Failed, Some(why)),
                None if now > t.started + EQUIP_TICKS => {
                    commands.end_action(bot, USE_SLOT.name, ActionStatus::Failed, Some("item swap unanswered".into()));
                }
                None => {}
            },
            Phase::Click => {
                t.count.before = inv.held().map_or(0, |i| i.count);
                t.count.after = t.count.before;
                conn.send(&click_block(inv, pos.0.offset_y(EYE_HEIGHT), t.clicked, &t.aim, t.clicked_id));
                conn.send(&swing(ids.runtime_id, "useitem"));
                t.phase = Phase::Sent(now);
            }
            Phase::Sent(at) => {
                t.count.after = inv.held().map_or(0, |i| i.count);
                let wanted = t.wanted(A::KIND);
                // A planted seed or used bone meal shows in the stack too: give it a moment.
                let spent = A::KIND == Kind::Till || t.count.after != t.count.before;
                if wanted && (spent || now >= at + 5) {
                    commands.end_action(bot, USE_SLOT.name, ActionStatus::Done, None);
                } else if now >= at + CONFIRM_TICKS {
                    let reason = if t.after.is_some() { "changed" } else { "no_change" };
                    commands.end_action(bot, USE_SLOT.name, ActionStatus::Failed, Some(reason.into()));
                }
            }
        }
    }
}
