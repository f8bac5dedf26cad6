//! The commands: `open` / `take` / `put` / `craft` (async, slot `container`, `abort_container`),
//! `close`, `container` and `recipes`. Each async one ends in one receipt built from the
//! server's answer: `open_done` (the window the server opened and its items), `take_done` /
//! `put_done` (the moves the server's ItemStackResponse accepted), `craft_done` (items gained
//! and spent, from the inventory the server confirmed).

use std::collections::BTreeMap;

use bevy_ecs::prelude::*;
use bevy_ecs::world::EntityRef;
use clawcraft_core::{
    ActionSlot, ActionStatus, AgentCommand, AsyncAction, AsyncInfo, CommandCtx, CommandError, EYE_HEIGHT, EndActionExt,
    EntityIds, Outcome, Position, TickCount,
};
use clawcraft_interact::common::{Aim, BlockXyz, Senses, aim_at, cell_of, click_block, swing, turn_to};
use clawcraft_inventory::{
    CREATED_BY_REQUEST, CustomRequest, Inventory, InventoryJobDone, InventoryJobs, Item, ItemIds, JobResult, SlotRef,
};
use clawcraft_network::Connection;
use clawcraft_protocol::packets::{
    AutoIngredient, ContainerClose, FullContainerName, ItemInstance, ResultItem, StackAction, StackSlot,
};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::recipes::{IngredientJson, ItemCount, Matcher, Recipe, Recipes};
use crate::window::{
    FURNACE_FUEL, FURNACE_INPUT, FURNACE_OUTPUT, FurnaceProgress, OpenContainer, SlotItem, Window, WindowRequest,
    WindowRequests,
};

/// The bot's open window, if any.
pub(crate) fn open_window(world: &World, bot: Entity) -> Option<&OpenContainer> {
    world.get::<Window>(bot).and_then(|w| w.0.as_ref())
}

/// What our slots hold after a request.
pub type ExpectedSlots = Vec<(SlotRef, Option<Item>)>;

/// Ticks to wait for ContainerOpen after the click.
pub(crate) const OPEN_TICKS: u64 = 40;
/// Ticks to wait for the window's contents after ContainerOpen.
const CONTENT_TICKS: u64 = 10;
/// Watchdog of take/put/craft (the inventory job times out first).
pub(crate) const JOB_TICKS: u64 = 200;
/// The slot of the crafting output the server puts a craft's result in.
pub(crate) const CREATED_OUTPUT_SLOT: u8 = 50;

/// The action slot shared by every container action (one window at a time).
pub const CONTAINER_SLOT: ActionSlot = ActionSlot::new("container", "abort_container", "No container action running");

/// Whether a block opens a window when clicked.
pub fn is_container(name: &str) -> bool {
    let n = name.strip_prefix("minecraft:").unwrap_or(name);
    n.ends_with("chest")
        || n == "barrel"
        || n.ends_with("shulker_box")
        || n.ends_with("furnace")
        || n == "smoker"
        || n == "lit_smoker"
        || n == "crafting_table"
}

fn no_container() -> CommandError {
    CommandError::new("NO_CONTAINER", "No container window is open (open one first)")
}

pub(crate) fn stack_limit(ids: &ItemIds, name: &str) -> u16 {
    ids.data.as_ref().and_then(|d| d.info(name)).map_or(64, |i| u16::try_from(i.stack.clamp(1, 64)).unwrap_or(64))
}

fn short(name: &str) -> &str {
    name.strip_prefix("minecraft:").unwrap_or(name)
}

/// Whether `item` answers `query` (exact name, else a substring, as inventory lookups do).
fn matches_query(item: &Item, query: &str, exact: bool) -> bool {
    if exact { item.is_named(query) } else { item.name_contains(query) }
}

/// Indices of `slots` holding items that answer `query` (exact matches if any, else substrings).
fn find_in(slots: &[Option<Item>], query: &str) -> Vec<u8> {
    for exact in [true, false] {
        let found: Vec<u8> = slots
            .iter()
            .enumerate()
            .filter(|(_, s)| s.as_ref().is_some_and(|it| matches_query(it, query, exact)))
            .filter_map(|(i, _)| u8::try_from(i).ok())
            .collect();
        if !found.is_empty() {
            return found;
        }
    }
    Vec::new()
}

pub(crate) fn slot_of(container: &str, slot: u8, stack_id: i32) -> StackSlot {
    StackSlot { slot_type: FullContainerName::of(container), slot, stack_id }
}

pub(crate) fn inv_slot(inv: &Inventory, slot: u8) -> StackSlot {
    let container = if slot < clawcraft_inventory::HOTBAR_SLOTS { "hotbar" } else { "inventory" };
    slot_of(container, slot, inv.get(SlotRef::Inv(slot)).and_then(|i| i.stack_id).unwrap_or(0))
}

/// Where `count` items like `item` go among `slots` (`limit` per stack): stacks of the same item
/// with room first, then empty slots in `order`. Returns `(slot, n)` and how many found no room.
pub(crate) fn room_for(
    slots: &[Option<Item>],
    item: &Item,
    count: u16,
    limit: u16,
    order: &[u8],
) -> (Vec<(u8, u16)>, u16) {
    let mut left = count;
    let mut out = Vec::new();
    for pass in [true, false] {
        for &s in order {
            if left == 0 {
                break;
            }
            let here = slots.get(usize::from(s)).cloned().flatten();
            let room = match (&here, pass) {
                (Some(h), true) if h.name == item.name => limit.saturating_sub(h.count),
                (None, false) => limit,
                _ => 0,
            };
            let n = room.min(left);
            if n > 0 {
                out.push((s, n));
                left -= n;
            }
        }
    }
    (out, left)
}

/// The slot after `n` items like `item` arrive.
pub(crate) fn added(here: Option<&Item>, item: &Item, n: u16) -> Item {
    match here {
        Some(h) => h.with_count(h.count + n),
        None => {
            let mut it = item.with_count(n);
            it.stack_id = None;
            it.wire.stack_id = None;
            it.wire.has_stack_id = false;
            it
        }
    }
}

/// The slot after `n` items leave.
pub(crate) fn removed(here: &Item, n: u16) -> Option<Item> {
    (here.count > n).then(|| here.with_count(here.count - n))
}

// ---------------------------------------------------------------------------------------------
// open
// ---------------------------------------------------------------------------------------------

/// `open`.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Open {
    pub x: f64,
    pub y: f64,
    pub z: f64,
}

/// Response of `open`.
#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct OpenResponse {
    /// True: the click was sent; `open_done` says what the server opened.
    pub opening: bool,
    pub block: String,
    pub pos: BlockXyz,
}

/// The running `open`.
#[derive(Component, Debug, Clone)]
pub struct Opening {
    pub pos: [i32; 3],
    pub block: String,
    aim: Aim,
    block_id: u32,
    sent: Option<u64>,
    opened_at: Option<u64>,
}

/// `open_done`.
#[derive(Serialize, JsonSchema, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct OpenDone {
    pub block: String,
    pub pos: BlockXyz,
    /// True when the server opened a window for the block.
    pub confirmed: bool,
    pub window_id: Option<String>,
    pub window_type: Option<String>,
    /// The window's items as the server sent them.
    pub items: Vec<SlotItem>,
    /// Slots of the window (27 for a chest, 3 for furnaces, 0 for a crafting table).
    pub size: usize,
}
clawcraft_core::evidence!(
    OpenDone,
    "open_done",
    "An open ended: the window the server opened (ContainerOpen) with its items, or why not"
);

impl AsyncAction for Opening {
    const SLOT: ActionSlot = CONTAINER_SLOT;
    type Evidence = OpenDone;

    fn evidence(&self, _outcome: &Outcome, bot: EntityRef<'_>) -> OpenDone {
        let open = bot.get::<Window>().and_then(|w| w.0.as_ref()).filter(|c| c.pos == self.pos);
        OpenDone {
            block: self.block.clone(),
            pos: self.pos.into(),
            confirmed: open.is_some(),
            window_id: open.map(|c| c.window_id.clone()),
            window_type: open.map(|c| c.window_type.clone()),
            items: open.map(OpenContainer::items_json).unwrap_or_default(),
            size: open.map_or(0, |c| c.slots.len()),
        }
    }
}

/// Checks a container (or table) target: loaded, a container, in reach and sight.
fn container_target(
    ctx: &CommandCtx<'_>,
    x: f64,
    y: f64,
    z: f64,
) -> Result<([i32; 3], Aim, u32, String), CommandError> {
    let cell = cell_of(x, y, z)?;
    let s = Senses::of(ctx)?;
    let id = s.id_at(cell)?;
    let name = s.name(id);
    if !is_container(&name) {
        return Err(CommandError::new(
            "INVALID_TARGET",
            format!(
                "{name} at {} {} {} is not a container (chest, barrel, shulker box, furnace, smoker, blast furnace, crafting table)",
                cell[0], cell[1], cell[2]
            ),
        ));
    }
    let aim = aim_at(&s, cell, None)?;
    Ok((cell, aim, id, name))
}

impl AgentCommand for Open {
    const NAME: &'static str = "open";
    const SUMMARY: &'static str = "Open the chest, barrel, shulker box, ender chest, furnace, smoker, blast furnace or crafting table at x,y,z (in reach); async, ends in open_done with the window's items";
    const EXAMPLE: &'static str = r#"{"action":"open","x":-2,"y":-60,"z":2}"#;
    const ASYNC: Option<AsyncInfo> = Some(AsyncInfo::of::<Opening>());
    type Response = OpenResponse;

    fn run(self, ctx: &mut CommandCtx<'_>) -> Result<OpenResponse, CommandError> {
        clawcraft_interact::common::inventory(ctx)?;
        let (pos, aim, block_id, block) = container_target(ctx, self.x, self.y, self.z)?;
        turn_to(ctx.world, ctx.bot, aim.point);
        ctx.start(
            Self::NAME,
            Opening { pos, block: block.clone(), aim, block_id, sent: None, opened_at: None },
            OPEN_TICKS + 40,
        )?;
        Ok(OpenResponse { opening: true, block, pos: pos.into() })
    }
}

/// Sends the click (the server answers with ContainerOpen and the contents).
fn click(conn: &mut Connection, inv: &Inventory, ids: &EntityIds, pos: &Position, cell: [i32; 3], aim: &Aim, id: u32) {
    conn.send(&click_block(inv, pos.0.offset_y(EYE_HEIGHT), cell, aim, id));
    conn.send(&swing(ids.runtime_id, "useitem"));
}

/// Clicks, then waits for the window and its contents.
#[allow(clippy::type_complexity)]
pub fn step_opening(
    mut commands: Commands,
    mut bots: Query<(Entity, &mut Opening, &Inventory, &mut Connection, &EntityIds, &Position, &Window)>,
    ticks: Res<TickCount>,
) {
    let now = ticks.0;
    for (bot, mut a, inv, mut conn, ids, pos, open) in &mut bots {
        let Some(sent) = a.sent else {
            click(&mut conn, inv, ids, pos, a.pos, &a.aim, a.block_id);
            a.sent = Some(now);
            continue;
        };
        match open.0.as_ref().filter(|c| c.pos == a.pos) {
            Some(c) => {
                let since = *a.opened_at.get_or_insert(now);
                if c.contents_known || now >= since + CONTENT_TICKS {
                    commands.end_action(bot, CONTAINER_SLOT.name, ActionStatus::Done, None);
                }
            }
            None if now >= sent + OPEN_TICKS => {
                commands.end_action(bot, CONTAINER_SLOT.name, ActionStatus::Failed, Some("no_window".into()));
            }
            None => {}
        }
    }
}

// ---------------------------------------------------------------------------------------------
// take / put
// ---------------------------------------------------------------------------------------------

/// `take`: items from the open container into the inventory.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Take {
    /// Item name (exact, else a substring); default: whatever `slot` holds.
    pub item: Option<String>,
    /// How many (default: all of them).
    pub count: Option<u32>,
    /// A window slot number, or `"output"` / `"input"` / `"fuel"` for furnaces.
    pub slot: Option<serde_json::Value>,
}

/// `put`: items from the inventory into the open container.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Put {
    /// Item name (exact, else a substring).
    pub item: String,
    /// How many (default: all of them).
    pub count: Option<u32>,
    /// Furnaces: `"input"` or `"fuel"` (default: fuel for coal, charcoal, planks, sticks; else
    /// input). Other containers: a slot number (default: stacks with room, then empty slots).
    pub slot: Option<serde_json::Value>,
}

/// One move of a take/put.
#[derive(Serialize, JsonSchema, Debug, Clone, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub struct MoveJson {
    /// The container's slot.
    pub container_slot: u8,
    /// The inventory slot (0–8 hotbar).
    pub inventory_slot: u8,
    pub count: u16,
}

/// Response of `take` / `put`.
#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct TransferResponse {
    /// True: the request was sent; the receipt is take_done / put_done.
    pub sent: bool,
    pub item: String,
    /// Items that will move (fewer than asked when fewer are there or there is no room).
    pub count: u32,
    pub moves: Vec<MoveJson>,
}

/// A take or put waiting for the server.
#[derive(Debug, Clone)]
pub struct Transfer {
    pub item: String,
    pub requested: Option<u32>,
    pub count: u32,
    pub moves: Vec<MoveJson>,
    pub job: u64,
    pub window_id: String,
    /// What the container slots hold afterwards.
    pub expected: Vec<(u8, Option<Item>)>,
    pub result: Option<Result<(), String>>,
}

impl Transfer {
    /// A take or put of `moves`, leaving the container's slots as `expected`.
    fn new(
        item: String,
        requested: Option<u32>,
        moves: Vec<MoveJson>,
        window_id: String,
        expected: Vec<(u8, Option<Item>)>,
    ) -> Self {
        let count = moves.iter().map(|m| u32::from(m.count)).sum();
        Self { item, requested, count, moves, job: 0, window_id, expected, result: None }
    }
}

/// One move of a planned take or put: `count` items from slot `from` (stack id `from_stack`) to
/// slot `to` (stack id `to_stack`, 0 when empty).
struct PlannedMove {
    from: u8,
    from_stack: i32,
    to: u8,
    to_stack: i32,
    count: u16,
}

/// A take or put worked out on copies of both sides.
struct MovePlan {
    moves: Vec<PlannedMove>,
    /// What the source slots hold afterwards.
    from_after: Vec<(u8, Option<Item>)>,
    /// What the destination slots hold afterwards.
    to_after: Vec<(u8, Option<Item>)>,
}

/// Moves up to `requested` (default all) items named `name` out of `sources` (slots of `from`)
/// into `to`, stacks with room first, then empty slots in `order`, `limit` per stack.
fn plan_moves(
    from: &[Option<Item>],
    sources: &[u8],
    to: &[Option<Item>],
    order: &[u8],
    name: &str,
    limit: u16,
    requested: Option<u32>,
) -> MovePlan {
    let mut want = requested.unwrap_or(u32::MAX);
    let mut to = to.to_vec();
    let mut plan = MovePlan { moves: Vec::new(), from_after: Vec::new(), to_after: Vec::new() };
    let mut to_after: BTreeMap<u8, Option<Item>> = BTreeMap::new();
    for &s in sources {
        let Some(src) = from.get(usize::from(s)).cloned().flatten() else { continue };
        if *src.name != *name || want == 0 {
            continue;
        }
        let n = u16::try_from(want.min(u32::from(src.count))).unwrap_or(u16::MAX);
        let (dests, _) = room_for(&to, &src, n, limit, order);
        let mut moved = 0;
        for (d, k) in dests {
            let here = to[usize::from(d)].clone();
            let to_stack = here.as_ref().and_then(|h| h.stack_id).unwrap_or(0);
            plan.moves.push(PlannedMove { from: s, from_stack: src.stack_id.unwrap_or(0), to: d, to_stack, count: k });
            let after = added(here.as_ref(), &src, k);
            to[usize::from(d)] = Some(after.clone());
            to_after.insert(d, Some(after));
            moved += k;
        }
        plan.from_after.push((s, removed(&src, moved)));
        want -= u32::from(moved);
    }
    plan.to_after = to_after.into_iter().collect();
    plan
}

/// `take_done` / `put_done`.
#[derive(Serialize, JsonSchema, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct TransferDone {
    pub item: String,
    pub requested: Option<u32>,
    /// Items moved (0 unless confirmed).
    pub count: u32,
    /// True when the server's ItemStackResponse accepted the moves.
    pub confirmed: bool,
    pub moves: Vec<MoveJson>,
    /// How many of the item the inventory holds now.
    pub inventory_count: u32,
    /// How many of the item the container holds now.
    pub container_count: u32,
}

/// The running `take`.
#[derive(Component, Debug, Clone)]
pub struct Taking(pub Transfer);
/// The running `put`.
#[derive(Component, Debug, Clone)]
pub struct Putting(pub Transfer);

/// `take_done`.
#[derive(Serialize, JsonSchema, Debug, Clone, PartialEq)]
pub struct TakeDone {
    #[serde(flatten)]
    pub done: TransferDone,
}
clawcraft_core::evidence!(
    TakeDone,
    "take_done",
    "A take ended: the moves from the open container the server accepted (its ItemStackResponse), counts after"
);
/// `put_done`.
#[derive(Serialize, JsonSchema, Debug, Clone, PartialEq)]
pub struct PutDone {
    #[serde(flatten)]
    pub done: TransferDone,
}
clawcraft_core::evidence!(
    PutDone,
    "put_done",
    "A put ended: the moves into the open container the server accepted (its ItemStackResponse), counts after"
);

fn transfer_done(t: &Transfer, bot: EntityRef<'_>) -> TransferDone {
    let confirmed = matches!(t.result, Some(Ok(())));
    let inventory_count = bot.get::<Inventory>().map_or(0, |i| i.count_of(&t.item));
    let container_count = bot
        .get::<Window>()
        .and_then(|w| w.0.as_ref())
        .map_or(0, |c| c.slots.iter().flatten().filter(|i| i.is_named(&t.item)).map(|i| u32::from(i.count)).sum());
    TransferDone {
        item: t.item.clone(),
        requested: t.requested,
        count: if confirmed { t.count } else { 0 },
        confirmed,
        moves: t.moves.clone(),
        inventory_count,
        container_count,
    }
}

impl AsyncAction for Taking {
    const SLOT: ActionSlot = CONTAINER_SLOT;
    type Evidence = TakeDone;
    fn evidence(&self, _outcome: &Outcome, bot: EntityRef<'_>) -> TakeDone {
        TakeDone { done: transfer_done(&self.0, bot) }
    }
}
impl AsyncAction for Putting {
    const SLOT: ActionSlot = CONTAINER_SLOT;
    type Evidence = PutDone;
    fn evidence(&self, _outcome: &Outcome, bot: EntityRef<'_>) -> PutDone {
        PutDone { done: transfer_done(&self.0, bot) }
    }
}

/// A furnace slot named by the agent.
fn furnace_slot(v: &serde_json::Value) -> Result<u8, CommandError> {
    match v {
        serde_json::Value::String(s) => match s.as_str() {
            "input" | "ingredient" => Ok(FURNACE_INPUT),
            "fuel" => Ok(FURNACE_FUEL),
            "output" | "result" => Ok(FURNACE_OUTPUT),
            other => {
                Err(CommandError::invalid_params(format!("Unknown furnace slot {other:?}: input, fuel or output")))
            }
        },
        other => window_slot(other),
    }
}

fn window_slot(v: &serde_json::Value) -> Result<u8, CommandError> {
    v.as_u64()
        .and_then(|n| u8::try_from(n).ok())
        .ok_or_else(|| CommandError::invalid_params("slot must be a slot number (or input/fuel/output for furnaces)"))
}

fn wanted(count: Option<u32>) -> Result<Option<u32>, CommandError> {
    match count {
        Some(0) => Err(CommandError::out_of_range("count must be at least 1")),
        Some(n) if n > 36 * 64 => Err(CommandError::out_of_range("count must be at most 2304")),
        other => Ok(other),
    }
}

/// What take/put need from the bot.
fn transfer_parts<'a>(
    ctx: &'a CommandCtx<'_>,
) -> Result<(&'a Inventory, &'a ItemIds, &'a OpenContainer), CommandError> {
    let inv = clawcraft_interact::common::inventory(ctx)?;
    let ids = ctx.world.get::<ItemIds>(ctx.bot).ok_or_else(CommandError::not_spawned)?;
    let open = open_window(ctx.world, ctx.bot).ok_or_else(no_container)?;
    if open.slots.is_empty() {
        return Err(CommandError::new("NO_CONTAINER", format!("The open {} has no item slots", open.window_type)));
    }
    if !open.contents_known {
        return Err(CommandError::new("NO_CONTAINER", "The server has not sent the container's items yet"));
    }
    Ok((inv, ids, open))
}

/// The running take or put's [`Transfer`].
trait Transferring: AsyncAction + Component<Mutability = bevy_ecs::component::Mutable> {
    fn transfer(&mut self) -> &mut Transfer;
}
impl Transferring for Taking {
    fn transfer(&mut self) -> &mut Transfer {
        &mut self.0
    }
}
impl Transferring for Putting {
    fn transfer(&mut self) -> &mut Transfer {
        &mut self.0
    }
}

/// Starts a take or put whose every check has passed: claims the container slot, then queues the
/// item-stack request (`actions`, leaving our slots as `expected_inv`) and records what it leaves
/// in the window ([`WindowRequests`]). Nothing is queued unless the action started, so a refused
/// command never reaches the server.
fn begin_transfer<A: Transferring>(
    ctx: &mut CommandCtx<'_>,
    command: &'static str,
    action: fn(Transfer) -> A,
    transfer: Transfer,
    actions: Vec<StackAction>,
    expected_inv: Vec<(SlotRef, Option<Item>)>,
) -> Result<TransferResponse, CommandError> {
    let bot = ctx.bot;
    if ctx.world.get::<InventoryJobs>(bot).is_none() || ctx.world.get::<WindowRequests>(bot).is_none() {
        return Err(CommandError::not_spawned());
    }
    let response = TransferResponse {
        sent: true,
        item: transfer.item.clone(),
        count: transfer.count,
        moves: transfer.moves.clone(),
    };
    ctx.start(command, action(transfer), JOB_TICKS)?;
    let purpose = if command == Take::NAME { "take" } else { "put" };
    let request = CustomRequest { actions, expected: expected_inv, needs_screen: true };
    let job = ctx.world.get_mut::<InventoryJobs>(bot).map(|mut jobs| jobs.submit_custom(purpose, request));
    let (Some(job), Some(mut running)) = (job, ctx.world.get_mut::<A>(bot)) else {
        return Err(CommandError::internal("the transfer's components vanished"));
    };
    let t = running.transfer();
    t.job = job;
    let record = WindowRequest { job, window_id: t.window_id.clone(), expected: t.expected.clone(), source: purpose };
    if let Some(mut requests) = ctx.world.get_mut::<WindowRequests>(bot) {
        requests.0.push(record);
    }
    Ok(response)
}

impl AgentCommand for Take {
    const NAME: &'static str = "take";
    const SUMMARY: &'static str = "Take items from the open container into the inventory (item name and count, or a slot: a number, or output/input/fuel of a furnace), split across stacks; async, take_done carries the moves the server accepted";
    const EXAMPLE: &'static str = r#"{"action":"take","item":"iron_ore","count":1}"#;
    const ASYNC: Option<AsyncInfo> = Some(AsyncInfo::of::<Taking>());
    type Response = TransferResponse;

    fn run(self, ctx: &mut CommandCtx<'_>) -> Result<TransferResponse, CommandError> {
        let requested = wanted(self.count)?;
        let (inv, ids, open) = transfer_parts(ctx)?;
        let sources: Vec<u8> = match (&self.slot, &self.item) {
            (Some(v), _) => {
                let s = if open.is_furnace() { furnace_slot(v)? } else { window_slot(v)? };
                let ok = open
                    .slots
                    .get(usize::from(s))
                    .cloned()
                    .flatten()
                    .is_some_and(|it| self.item.as_deref().is_none_or(|q| matches_query(&it, q, false)));
                if ok { vec![s] } else { Vec::new() }
            }
            (None, Some(q)) => find_in(&open.slots, q),
            (None, None) => return Err(CommandError::invalid_params("take needs item or slot")),
        };
        let Some(first) = sources.first().and_then(|s| open.slots.get(usize::from(*s)).cloned().flatten()) else {
            let what = self.item.clone().unwrap_or_else(|| "anything".into());
            return Err(CommandError::new("NO_ITEM", format!("The open container holds no {what} there")));
        };
        let name = first.name.to_string();
        let order: Vec<u8> = (0..36u8).collect();
        let plan = plan_moves(&open.slots, &sources, &inv.slots, &order, &name, stack_limit(ids, &name), requested);
        if plan.moves.is_empty() {
            return Err(CommandError::new("INVENTORY_FULL", format!("No room in the inventory for {name}")));
        }
        let actions = plan
            .moves
            .iter()
            .map(|m| StackAction {
                type_id: "take".into(),
                legacy_type_id: 0,
                count: Some(u8::try_from(m.count).unwrap_or(u8::MAX)),
                source: Some(slot_of(open.slot_container(m.from), m.from, m.from_stack)),
                destination: Some(inv_slot(inv, m.to)),
                ..StackAction::default()
            })
            .collect();
        let moves: Vec<MoveJson> = plan
            .moves
            .iter()
            .map(|m| MoveJson { container_slot: m.from, inventory_slot: m.to, count: m.count })
            .collect();
        let expected_inv = plan.to_after.into_iter().map(|(s, it)| (SlotRef::Inv(s), it)).collect();
        let t = Transfer::new(name, requested, moves, open.window_id.clone(), plan.from_after);
        begin_transfer(ctx, Self::NAME, Taking, t, actions, expected_inv)
    }
}

/// Items that burn in a furnace and are not usually smelted themselves.
fn is_fuel(name: &str) -> bool {
    let n = short(name);
    matches!(n, "coal" | "charcoal" | "coal_block" | "lava_bucket" | "stick" | "blaze_rod" | "dried_kelp_block")
        || n.ends_with("_planks")
}

impl AgentCommand for Put {
    const NAME: &'static str = "put";
    const SUMMARY: &'static str = "Put items from the inventory into the open container (furnaces: slot input or fuel), split across stacks; async, put_done carries the moves the server accepted";
    const EXAMPLE: &'static str = r#"{"action":"put","item":"coal","count":1,"slot":"fuel"}"#;
    const ASYNC: Option<AsyncInfo> = Some(AsyncInfo::of::<Putting>());
    type Response = TransferResponse;

    fn run(self, ctx: &mut CommandCtx<'_>) -> Result<TransferResponse, CommandError> {
        let requested = wanted(self.count)?;
        let (inv, ids, open) = transfer_parts(ctx)?;
        let sources = inv.find(&self.item);
        let Some(first) = sources.first().and_then(|s| inv.get(SlotRef::Inv(*s))).cloned() else {
            return Err(CommandError::new("NO_ITEM", format!("No item matching {:?} in the inventory", self.item)));
        };
        let name = first.name.to_string();
        let limit = stack_limit(ids, &name);
        let order: Vec<u8> = match &self.slot {
            Some(v) if open.is_furnace() => vec![furnace_slot(v)?],
            Some(v) => vec![window_slot(v)?],
            None if open.is_furnace() => vec![if is_fuel(&name) { FURNACE_FUEL } else { FURNACE_INPUT }],
            None => (0..u8::try_from(open.slots.len()).unwrap_or(u8::MAX)).collect(),
        };
        if open.is_furnace() && order == [FURNACE_OUTPUT] {
            return Err(CommandError::invalid_params("Nothing can be put in a furnace's output slot"));
        }
        if order.iter().any(|s| usize::from(*s) >= open.slots.len()) {
            return Err(CommandError::out_of_range(format!("slot must be below {}", open.slots.len())));
        }
        let plan = plan_moves(&inv.slots, &sources, &open.slots, &order, &name, limit, requested);
        if plan.moves.is_empty() {
            return Err(CommandError::new(
                "CONTAINER_FULL",
                format!("No room in the open {} for {name}", open.window_type),
            ));
        }
        let actions = plan
            .moves
            .iter()
            .map(|m| StackAction {
                type_id: "place".into(),
                legacy_type_id: 1,
                count: Some(u8::try_from(m.count).unwrap_or(u8::MAX)),
                source: Some(inv_slot(inv, m.from)),
                destination: Some(slot_of(open.slot_container(m.to), m.to, m.to_stack)),
                ..StackAction::default()
            })
            .collect();
        let moves: Vec<MoveJson> = plan
            .moves
            .iter()
            .map(|m| MoveJson { container_slot: m.to, inventory_slot: m.from, count: m.count })
            .collect();
        let expected_inv = plan.from_after.into_iter().map(|(s, it)| (SlotRef::Inv(s), it)).collect();
        let t = Transfer::new(name, requested, moves, open.window_id.clone(), plan.to_after);
        begin_transfer(ctx, Self::NAME, Putting, t, actions, expected_inv)
    }
}

/// Settles take/put when their inventory job ends. The window has already taken the server's
/// answer ([`crate::window::apply_stack_responses`], in the packet step), so the receipt's
/// `containerCount` is what `container` shows.
pub fn step_transfers(
    mut commands: Commands,
    mut done: MessageReader<InventoryJobDone>,
    mut bots: Query<(Option<&mut Taking>, Option<&mut Putting>)>,
) {
    for d in done.read() {
        let Ok((taking, putting)) = bots.get_mut(d.bot) else { continue };
        let mut t = match (taking, putting) {
            (Some(t), _) if t.0.job == d.job => t.map_unchanged(|t| &mut t.0),
            (_, Some(p)) if p.0.job == d.job => p.map_unchanged(|p| &mut p.0),
            _ => continue,
        };
        t.result = Some(match &d.result {
            JobResult::Confirmed => Ok(()),
            JobResult::Rejected(status) => Err(status.clone()),
        });
        let (status, reason) = job_end(&d.result);
        commands.end_action(d.bot, CONTAINER_SLOT.name, status, reason);
    }
}

/// How a container action ends with its inventory job's result.
pub(crate) fn job_end(result: &JobResult) -> (ActionStatus, Option<String>) {
    match result {
        JobResult::Confirmed => (ActionStatus::Done, None),
        JobResult::Rejected(status) => (ActionStatus::Failed, Some(format!("rejected: {status}"))),
    }
}

// ---------------------------------------------------------------------------------------------
// close / container
// ---------------------------------------------------------------------------------------------

/// `close`.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Close {}

/// Response of `close`.
#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct CloseResponse {
    /// True: the close was sent (container_closed follows when the server confirms).
    pub closed: bool,
    pub window_id: String,
    /// The container's block (null for a villager's trade window).
    pub pos: Option<BlockXyz>,
}

impl AgentCommand for Close {
    const NAME: &'static str = "close";
    const SUMMARY: &'static str = "Close the open container or trade window (container_closed follows a container's close when the server confirms)";
    const EXAMPLE: &'static str = r#"{"action":"close"}"#;
    type Response = CloseResponse;

    fn run(self, ctx: &mut CommandCtx<'_>) -> Result<CloseResponse, CommandError> {
        let (packet, pos) = match open_window(ctx.world, ctx.bot) {
            Some(open) => (
                ContainerClose {
                    window_id: open.window_id.clone(),
                    window_type: open.window_type.clone(),
                    server: false,
                },
                Some(open.pos.into()),
            ),
            None => (crate::trade::close_packet(ctx.world, ctx.bot).ok_or_else(no_container)?, None),
        };
        let mut conn = ctx.world.get_mut::<Connection>(ctx.bot).ok_or_else(CommandError::not_spawned)?;
        conn.send(&packet);
        Ok(CloseResponse { closed: true, window_id: packet.window_id, pos })
    }
}

/// `container`.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ContainerCmd {}

/// Response of `container`.
#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ContainerResponse {
    /// False when no window is open (the other fields are then null/empty).
    pub open: bool,
    pub window_id: Option<String>,
    pub window_type: Option<String>,
    pub block: Option<String>,
    pub pos: Option<BlockXyz>,
    /// Slots of the window.
    pub size: usize,
    /// Occupied slots with their items.
    pub items: Vec<SlotItem>,
    /// Furnaces: cook and burn progress from the server.
    pub furnace: Option<FurnaceProgress>,
}

impl AgentCommand for ContainerCmd {
    const NAME: &'static str = "container";
    const SUMMARY: &'static str =
        "The open container window: block, position, its items as the server sent them, furnace progress";
    const EXAMPLE: &'static str = r#"{"action":"container"}"#;
    const QUERY: bool = true;
    type Response = ContainerResponse;

    fn run(self, ctx: &mut CommandCtx<'_>) -> Result<ContainerResponse, CommandError> {
        let open = open_window(ctx.world, ctx.bot);
        Ok(ContainerResponse {
            open: open.is_some(),
            window_id: open.map(|c| c.window_id.clone()),
            window_type: open.map(|c| c.window_type.clone()),
            block: open.map(|c| c.block.clone()),
            pos: open.map(|c| c.pos.into()),
            size: open.map_or(0, |c| c.slots.len()),
            items: open.map(OpenContainer::items_json).unwrap_or_default(),
            furnace: open.and_then(|c| c.furnace),
        })
    }
}

// ---------------------------------------------------------------------------------------------
// recipes / craft
// ---------------------------------------------------------------------------------------------

/// `recipes`.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RecipesCmd {
    /// Only recipes making this item (then also those the inventory cannot make yet, with what
    /// is missing).
    pub item: Option<String>,
    /// Include recipes that need a crafting table (3×3); default false (the 2×2 grid only).
    pub table: Option<bool>,
}

/// One recipe in `recipes`.
#[derive(Serialize, JsonSchema, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct RecipeJson {
    pub item: String,
    /// Items one craft makes.
    pub count: u16,
    pub recipe_id: String,
    pub network_id: u32,
    /// True when it needs a crafting table.
    pub needs_table: bool,
    /// How many times the inventory can craft it now.
    pub can_craft: u32,
    pub ingredients: Vec<IngredientJson>,
    /// What is short for one craft (empty when it can be crafted).
    pub missing: Vec<ItemCount>,
}

/// Response of `recipes`.
#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct RecipesResponse {
    pub recipes: Vec<RecipeJson>,
    /// Recipes the server sent (crafting table ones).
    pub known: usize,
}

fn recipe_json(r: &Recipe, inv: &Inventory, ids: &ItemIds) -> RecipeJson {
    let (item, count) = r.result().map_or((String::new(), 0), |(n, c)| (n.to_owned(), c));
    RecipeJson {
        item,
        count,
        recipe_id: r.id.clone(),
        network_id: r.network_id,
        needs_table: !r.fits_small_grid(),
        can_craft: r.max_times(inv, ids, 64),
        ingredients: r.inputs.iter().map(|i| IngredientJson { item: i.label(ids), count: i.count }).collect(),
        missing: r
            .plan(inv, ids, 1)
            .err()
            .unwrap_or_default()
            .into_iter()
            .map(|(name, count)| ItemCount { name, count })
            .collect(),
    }
}

const RECIPES_SHOWN: usize = 60;

/// The server's crafting recipes, once it sent them.
fn server_recipes<'a>(ctx: &'a CommandCtx<'_>) -> Result<&'a Recipes, CommandError> {
    ctx.world
        .get::<Recipes>(ctx.bot)
        .filter(|r| r.received)
        .ok_or_else(|| CommandError::new("NO_RECIPE", "The server has not sent its recipes (CraftingData) yet"))
}

fn no_recipe(item: &str) -> CommandError {
    CommandError::new("NO_RECIPE", format!("The server sent no crafting recipe for {item}"))
}

impl AgentCommand for RecipesCmd {
    const NAME: &'static str = "recipes";
    const SUMMARY: &'static str = "Crafting recipes from the server: what the inventory can make now (2×2 grid, or with table:true also 3×3), or every recipe for item with what is missing";
    const EXAMPLE: &'static str = r#"{"action":"recipes","item":"wooden_pickaxe","table":true}"#;
    const SIZE_HINT: Option<&'static str> = Some("name an item, or leave out table:true");
    const QUERY: bool = true;
    type Response = RecipesResponse;

    fn run(self, ctx: &mut CommandCtx<'_>) -> Result<RecipesResponse, CommandError> {
        let inv = clawcraft_interact::common::inventory(ctx)?;
        let ids = ctx.world.get::<ItemIds>(ctx.bot).ok_or_else(CommandError::not_spawned)?;
        let recipes = server_recipes(ctx)?;
        let table = self.table.unwrap_or(false);
        let list: Vec<RecipeJson> = match &self.item {
            Some(item) => {
                let found: Vec<RecipeJson> = recipes.making(item).map(|r| recipe_json(r, inv, ids)).collect();
                if found.is_empty() {
                    return Err(no_recipe(item));
                }
                found
            }
            None => recipes
                .list
                .iter()
                .filter(|r| table || r.fits_small_grid())
                .filter(|r| r.plan(inv, ids, 1).is_ok())
                .take(RECIPES_SHOWN)
                .map(|r| recipe_json(r, inv, ids))
                .collect(),
        };
        Ok(RecipesResponse { recipes: list, known: recipes.list.len() })
    }
}

/// `craft`.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Craft {
    /// The item to make.
    pub item: String,
    /// How many items (default: one craft's worth); rounded up to whole crafts, all in one request.
    pub count: Option<u32>,
    /// A placed crafting table in reach, for 3×3 recipes (without it: the inventory's 2×2 grid).
    pub table: Option<TablePos>,
}

/// A crafting table position.
#[derive(Deserialize, JsonSchema, Debug, Clone, Copy)]
#[serde(deny_unknown_fields)]
pub struct TablePos {
    pub x: f64,
    pub y: f64,
    pub z: f64,
}

/// Response of `craft`.
#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct CraftResponse {
    /// True: the craft is under way; craft_done is the receipt.
    pub crafting: bool,
    pub item: String,
    /// Items it will make.
    pub count: u32,
    /// Crafts in the request.
    pub crafts: u32,
    pub recipe_id: String,
    pub table: Option<BlockXyz>,
}

#[derive(Debug, Clone, PartialEq)]
enum CraftPhase {
    /// Click the table, wait for its window.
    OpenTable { sent: Option<u64> },
    /// Send the request.
    Submit,
    /// Wait for the server's answer.
    Waiting { job: u64 },
}

/// The running `craft`.
#[derive(Component, Debug, Clone)]
pub struct Crafting {
    pub item: String,
    pub times: u32,
    pub made: u32,
    pub recipe: Recipe,
    pub table: Option<([i32; 3], Aim, u32)>,
    phase: CraftPhase,
    before: BTreeMap<String, u32>,
    pub gained: Vec<ItemCount>,
    pub spent: Vec<ItemCount>,
    pub confirmed: bool,
}

/// `craft_done`.
#[derive(Serialize, JsonSchema, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct CraftDone {
    pub item: String,
    /// Items made (0 unless confirmed).
    pub count: u32,
    pub crafts: u32,
    pub recipe_id: String,
    pub table: Option<BlockXyz>,
    /// True when the server's ItemStackResponse accepted the craft.
    pub confirmed: bool,
    /// Items the inventory gained, by name (from the confirmed inventory).
    pub gained: Vec<ItemCount>,
    /// Items the inventory spent, by name.
    pub spent: Vec<ItemCount>,
}
clawcraft_core::evidence!(
    CraftDone,
    "craft_done",
    "A craft ended: confirmed by the server's ItemStackResponse, with the items gained and spent"
);

impl AsyncAction for Crafting {
    const SLOT: ActionSlot = CONTAINER_SLOT;
    type Evidence = CraftDone;

    fn evidence(&self, _outcome: &Outcome, _bot: EntityRef<'_>) -> CraftDone {
        CraftDone {
            item: self.item.clone(),
            count: if self.confirmed { self.made } else { 0 },
            crafts: self.times,
            recipe_id: self.recipe.id.clone(),
            table: self.table.map(|(p, _, _)| p.into()),
            confirmed: self.confirmed,
            gained: self.gained.clone(),
            spent: self.spent.clone(),
        }
    }
}

/// Item counts by name.
fn counts(inv: &Inventory) -> BTreeMap<String, u32> {
    let mut m = BTreeMap::new();
    for (_, it) in inv.indexed() {
        *m.entry(it.name.to_string()).or_default() += u32::from(it.count);
    }
    m
}

/// What changed between two count maps: (gained, spent).
fn delta(before: &BTreeMap<String, u32>, after: &BTreeMap<String, u32>) -> (Vec<ItemCount>, Vec<ItemCount>) {
    let mut gained = Vec::new();
    let mut spent = Vec::new();
    let names: std::collections::BTreeSet<&String> = before.keys().chain(after.keys()).collect();
    for n in names {
        let (b, a) = (before.get(n).copied().unwrap_or(0), after.get(n).copied().unwrap_or(0));
        if a > b {
            gained.push(ItemCount { name: n.clone(), count: a - b });
        } else if b > a {
            spent.push(ItemCount { name: n.clone(), count: b - a });
        }
    }
    (gained, spent)
}

impl AgentCommand for Craft {
    const NAME: &'static str = "craft";
    const SUMMARY: &'static str = "Craft item (count items, several crafts in one request) from the inventory with the server's recipe: the 2×2 grid, or a placed crafting table in reach for 3×3 recipes; async, craft_done is the receipt (gained/spent) the server confirmed";
    const EXAMPLE: &'static str =
        r#"{"action":"craft","item":"wooden_pickaxe","count":1,"table":{"x":0,"y":-60,"z":2}}"#;
    const ASYNC: Option<AsyncInfo> = Some(AsyncInfo::of::<Crafting>());
    type Response = CraftResponse;

    fn run(self, ctx: &mut CommandCtx<'_>) -> Result<CraftResponse, CommandError> {
        let wanted_items = wanted(self.count)?.unwrap_or(0);
        let table = match self.table {
            Some(t) => {
                let (pos, aim, id, name) = container_target(ctx, t.x, t.y, t.z)?;
                if short(&name) != "crafting_table" {
                    return Err(CommandError::new("INVALID_TARGET", format!("{name} is not a crafting table")));
                }
                Some((pos, aim, id))
            }
            None => None,
        };
        let inv = clawcraft_interact::common::inventory(ctx)?;
        let ids = ctx.world.get::<ItemIds>(ctx.bot).ok_or_else(CommandError::not_spawned)?;
        let recipes = server_recipes(ctx)?;
        let all: Vec<&Recipe> = recipes.making(&self.item).collect();
        if all.is_empty() {
            return Err(no_recipe(&self.item));
        }
        let usable: Vec<&Recipe> = all.iter().copied().filter(|r| table.is_some() || r.fits_small_grid()).collect();
        if usable.is_empty() {
            return Err(CommandError::new(
                "NEEDS_TABLE",
                format!("Every recipe for {} needs a crafting table: pass table {{x,y,z}} of one in reach", self.item),
            ));
        }
        let mut best_missing: Option<Vec<(String, u32)>> = None;
        let mut chosen = None;
        for r in &usable {
            let (name, per) = r.result().unwrap_or(("", 1));
            let per = u32::from(per.max(1));
            let limit = u32::from(stack_limit(ids, name));
            let times = if wanted_items == 0 { 1 } else { wanted_items.div_ceil(per) };
            if times * per > limit {
                return Err(CommandError::out_of_range(format!(
                    "count: at most {} {} per craft (one stack)",
                    limit / per * per,
                    self.item
                )));
            }
            match r.plan(inv, ids, times) {
                Ok(_) => {
                    chosen = Some(((*r).clone(), times, times * per));
                    break;
                }
                Err(m) => {
                    if best_missing.as_ref().is_none_or(|b| m.len() < b.len()) {
                        best_missing = Some(m);
                    }
                }
            }
        }
        let Some((recipe, times, made)) = chosen else {
            let missing =
                best_missing.unwrap_or_default().iter().map(|(n, c)| format!("{c} {n}")).collect::<Vec<_>>().join(", ");
            return Err(CommandError::new(
                "MISSING_INGREDIENTS",
                format!("Cannot craft {}: missing {missing}", self.item),
            ));
        };
        let item = recipe.result().map_or_else(|| self.item.clone(), |(n, _)| n.to_owned());
        let before = counts(inv);
        let open_table = table.is_some_and(|(p, _, _)| {
            open_window(ctx.world, ctx.bot).is_none_or(|c| c.pos != p || c.window_type != "workbench")
        });
        let phase = if open_table { CraftPhase::OpenTable { sent: None } } else { CraftPhase::Submit };
        if let Some((_, aim, _)) = &table {
            turn_to(ctx.world, ctx.bot, aim.point);
        }
        let recipe_id = recipe.id.clone();
        let action = Crafting {
            item: item.clone(),
            times,
            made,
            recipe,
            table,
            phase,
            before,
            gained: Vec::new(),
            spent: Vec::new(),
            confirmed: false,
        };
        ctx.start(Self::NAME, action, JOB_TICKS + OPEN_TICKS)?;
        Ok(CraftResponse {
            crafting: true,
            item,
            count: made,
            crafts: times,
            recipe_id,
            table: table.map(|(p, _, _)| p.into()),
        })
    }
}

/// The request of `times` crafts of `r`: craft_recipe_auto, results_deprecated, a consume per
/// ingredient stack, and a place of the result from the created output into the inventory.
/// Returns the actions and what our slots hold afterwards, or what is missing.
pub fn craft_request(
    r: &Recipe,
    times: u32,
    inv: &Inventory,
    ids: &ItemIds,
) -> Result<(Vec<StackAction>, ExpectedSlots), String> {
    let plan = r.plan(inv, ids, times).map_err(|m| {
        let m: Vec<String> = m.iter().map(|(n, c)| format!("{c} {n}")).collect();
        format!("missing {}", m.join(", "))
    })?;
    let (name, net, per) = r.output.first().cloned().ok_or("recipe makes nothing")?;
    let made = u16::try_from(u32::from(per) * times).map_err(|_| "too many")?;
    let times8 = u8::try_from(times).map_err(|_| "too many crafts")?;
    let ingredients: Vec<AutoIngredient> = r
        .inputs
        .iter()
        .map(|i| {
            let count = i32::try_from(i.count).unwrap_or(1);
            match &i.matcher {
                Matcher::Tag(t) => AutoIngredient {
                    kind: "item_tag".into(),
                    tag: Some(t.to_string()),
                    count,
                    ..AutoIngredient::default()
                },
                Matcher::Name(n) => AutoIngredient {
                    kind: "name".into(),
                    name: Some(n.to_string()),
                    metadata: Some(32767),
                    count,
                    ..AutoIngredient::default()
                },
                Matcher::Id(id) => AutoIngredient {
                    kind: "name".into(),
                    name: Some(ids.name(*id).to_string()),
                    metadata: Some(32767),
                    count,
                    ..AutoIngredient::default()
                },
            }
        })
        .collect();
    let result = ResultItem {
        kind: "name".into(),
        name: name.to_string(),
        network_id: net,
        count: i32::from(made),
        ..ResultItem::default()
    };
    let mut actions =
        vec![StackAction::craft_auto(r.network_id, times8, &ingredients), StackAction::results(&[result], times8)];
    let mut expected: Vec<(SlotRef, Option<Item>)> = Vec::new();
    let mut after = inv.slots.clone();
    for (slot, n) in &plan {
        actions.push(StackAction::consume(u8::try_from(*n).unwrap_or(u8::MAX), inv_slot(inv, *slot)));
        let here = after[usize::from(*slot)].clone();
        after[usize::from(*slot)] = here.and_then(|h| removed(&h, *n));
        expected.push((SlotRef::Inv(*slot), after[usize::from(*slot)].clone()));
    }
    let product = ids
        .item(&ItemInstance { network_id: net, count: made, ..ItemInstance::default() })
        .ok_or("the recipe makes air")?;
    let limit = stack_limit(ids, &name);
    let order: Vec<u8> = (9..36u8).chain(0..9).collect();
    // Untouched slots only: a slot the craft empties is still named by its old stack id.
    let mut candidates = after.clone();
    for (slot, _) in &plan {
        if candidates[usize::from(*slot)].is_none() {
            candidates[usize::from(*slot)] = inv.get(SlotRef::Inv(*slot)).cloned();
        }
    }
    let (dests, left) = room_for(&candidates, &product, made, limit, &order);
    if left > 0 || dests.len() != 1 {
        return Err("no single inventory slot has room for the result".into());
    }
    let (dest, _) = dests[0];
    actions.push(StackAction {
        type_id: "place".into(),
        legacy_type_id: 1,
        count: Some(u8::try_from(made).unwrap_or(u8::MAX)),
        source: Some(slot_of("creative_output", CREATED_OUTPUT_SLOT, CREATED_BY_REQUEST)),
        destination: Some(inv_slot(inv, dest)),
        ..StackAction::default()
    });
    let here = after[usize::from(dest)].clone();
    expected.push((SlotRef::Inv(dest), Some(added(here.as_ref(), &product, made))));
    Ok((actions, expected))
}

/// Opens the table if needed, sends the craft, ends with the server's answer.
#[allow(clippy::type_complexity)]
pub fn step_crafting(
    mut commands: Commands,
    mut bots: Query<(
        Entity,
        &mut Crafting,
        &Inventory,
        &ItemIds,
        &mut InventoryJobs,
        &mut Connection,
        &EntityIds,
        &Position,
        &Window,
    )>,
    mut done: MessageReader<InventoryJobDone>,
    ticks: Res<TickCount>,
) {
    let now = ticks.0;
    let finished: Vec<InventoryJobDone> = done.read().cloned().collect();
    for (bot, mut a, inv, ids, mut jobs, mut conn, eids, pos, open) in &mut bots {
        match a.phase.clone() {
            CraftPhase::OpenTable { sent } => {
                let Some((cell, aim, id)) = a.table else {
                    a.phase = CraftPhase::Submit;
                    continue;
                };
                if open.0.as_ref().is_some_and(|c| c.pos == cell && c.window_type == "workbench") {
                    a.phase = CraftPhase::Submit;
                } else if let Some(at) = sent {
                    if now >= at + OPEN_TICKS {
                        commands.end_action(
                            bot,
                            CONTAINER_SLOT.name,
                            ActionStatus::Failed,
                            Some("table_not_opened".into()),
                        );
                    }
                    continue;
                } else {
                    click(&mut conn, inv, eids, pos, cell, &aim, id);
                    a.phase = CraftPhase::OpenTable { sent: Some(now) };
                    continue;
                }
            }
            CraftPhase::Waiting { job } => {
                let Some(d) = finished.iter().find(|d| d.bot == bot && d.job == job) else { continue };
                if matches!(d.result, JobResult::Confirmed) {
                    let (gained, spent) = delta(&a.before, &counts(inv));
                    a.gained = gained;
                    a.spent = spent;
                    a.confirmed = true;
                }
                let (status, reason) = job_end(&d.result);
                commands.end_action(bot, CONTAINER_SLOT.name, status, reason);
                continue;
            }
            CraftPhase::Submit => {}
        }
        if a.phase != CraftPhase::Submit {
            continue;
        }
        match craft_request(&a.recipe, a.times, inv, ids) {
            Ok((actions, expected)) => {
                let job = jobs.submit_custom("craft", CustomRequest { actions, expected, needs_screen: true });
                a.phase = CraftPhase::Waiting { job };
            }
            Err(why) => {
                commands.end_action(bot, CONTAINER_SLOT.name, ActionStatus::Failed, Some(why));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::recipes::tests::{book, ids, inv_with};

    #[test]
    fn a_craft_is_one_request_consuming_each_stack_and_placing_the_result() {
        let ids = ids();
        let r = book(&ids);
        let inv = inv_with(&ids, &[(0, "oak_planks", 2), (4, "birch_planks", 5), (9, "stick", 3)]);
        let stick = r.making("stick").next().expect("stick");
        let (actions, expected) = craft_request(stick, 2, &inv, &ids).expect("craftable");
        let kinds: Vec<&str> = actions.iter().map(|a| a.type_id.as_str()).collect();
        assert_eq!(kinds, ["craft_recipe_auto", "results_deprecated", "consume", "consume", "place"]);
        assert_eq!((actions[0].recipe_network_id, actions[0].times_crafted), (Some(2), Some(2)));
        let consumed: Vec<(u8, Option<u8>, i32)> = actions[2..4]
            .iter()
            .map(|a| {
                let s = a.source.clone().expect("source");
                (s.slot, a.count, s.stack_id)
            })
            .collect();
        assert_eq!(consumed, [(0, Some(2), 10), (4, Some(2), 11)], "slot, count, the server's stack id");
        let place = &actions[4];
        let src = place.source.clone().expect("created output");
        assert_eq!(
            (src.slot_type.container_id.as_str(), src.slot, src.stack_id),
            ("creative_output", 50, CREATED_BY_REQUEST)
        );
        let dst = place.destination.clone().expect("destination");
        assert_eq!((dst.slot, place.count), (9, Some(8)), "onto the sticks already there");
        let after = |s: u8| {
            expected.iter().find(|(slot, _)| *slot == SlotRef::Inv(s)).map(|(_, it)| it.as_ref().map(|i| i.count))
        };
        assert_eq!((after(0), after(4), after(9)), (Some(None), Some(Some(3)), Some(Some(11))));
        let short = inv_with(&ids, &[(0, "oak_planks", 1)]);
        assert!(craft_request(stick, 1, &short, &ids).expect_err("short").contains("minecraft:planks"));
    }

    #[test]
    fn room_fills_stacks_first_then_empty_slots() {
        let ids = ids();
        let inv = inv_with(&ids, &[(2, "stick", 60), (5, "oak_log", 1)]);
        let stick = inv.get(SlotRef::Inv(2)).cloned().expect("stick");
        let (dests, left) = room_for(&inv.slots, &stick, 10, 64, &[0, 1, 2, 3]);
        assert_eq!((dests, left), (vec![(2, 4), (0, 6)], 0));
        let (dests, left) = room_for(&inv.slots, &stick, 200, 64, &[2, 5]);
        assert_eq!((dests, left), (vec![(2, 4)], 196), "the log's slot is taken");
    }
}
