//! Villager trading on Bedrock's packets: `trade_open` (async, `trade_open_done`), `trades`
//! and `trade` (async, `trade_done`), in the container slot (`abort_container`; one window at a
//! time). `close` closes the trade window too.
//!
//! - **Opening**: the client interacts with the villager (an `item_use_on_entity` transaction,
//!   `interact`, with an arm swing — what a player's right click sends). The server answers with
//!   `update_trade`: the window id, the villager's level (`trade_tier`) and the offers as NBT
//!   ([`clawcraft_protocol::packets::TradeOffer`]). UNCERTAIN: whether a vanilla server also sends
//!   a ContainerOpen of type `trading` first; the window here is opened by UpdateTrade alone, and
//!   a `trading` ContainerOpen is not taken for a block container.
//! - **Offers**: wants (`buyA`, whose `Count` is taken as the price this player pays now), a second
//!   item (`buyB`), gives (`sell`), uses left (`maxUses − uses`), the price change against the
//!   base price (`buyCountA`, moved by demand × `priceMultiplierA` and by discounts), the tier
//!   (locked above the villager's level). UNCERTAIN: whether the server's `buyA.Count` already
//!   carries the demand/discount adjustment (as the peer models it) or only the base; the peer
//!   refuses a payment that is not the price it sent.
//! - **One trade** is two item-stack requests, as a client capture shows (the trade screen's
//!   input slots first, then the craft): (1) `place` the payment from the inventory into
//!   `trade2_ingredient1` slot 4 (and the second item into `trade2_ingredient2` slot 5); (2)
//!   `craft_recipe` with the offer's `netId`, `results_deprecated` with what it gives, a `consume`
//!   of each input slot (named by the stack id the first answer gave it), and a `place` of the
//!   result from the created output (slot 50, named by the request id) into the inventory.
//!   UNCERTAIN: slots 4 and 5 (PowerNukkitX's numbering of the trade screen's input slots). The
//!   inventory changes only with the server's ItemStackResponses. `trade` repeats this N times and
//!   stops early, saying why, when the payment runs out, the offer is used up, or the server
//!   refuses; an UpdateTrade the server sends between trades replaces the offers.

use std::collections::BTreeMap;

use bevy_ecs::prelude::*;
use bevy_ecs::world::EntityRef;
use clawcraft_core::{
    ActionStatus, AgentCommand, AsyncAction, AsyncInfo, CommandCtx, CommandError, EYE_HEIGHT, EndActionExt, EntityIds,
    LocalBot, Outcome, Position, TickCount, Vec3, bare_name,
};
use clawcraft_entity::{EntityKind, EntityPosition, NameTag, SeenBy, WorldEntity};
use clawcraft_interact::common::{ATTACK_REACH, EntityClick, click_entity, turn_to};
use clawcraft_inventory::{
    CREATED_BY_REQUEST, CustomRequest, Inventory, InventoryJobDone, InventoryJobs, ItemIds, JobResult, Screen, SlotRef,
    listed_slots,
};
use clawcraft_network::{ClientboundPacket, Connection};
use clawcraft_protocol::packets::{
    ContainerClose, ItemInstance, ResultItem, StackAction, TradeItem, TradeOffer, UpdateTrade,
};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::actions::{
    CONTAINER_SLOT, CREATED_OUTPUT_SLOT, ExpectedSlots, JOB_TICKS, OPEN_TICKS, added, inv_slot, removed, room_for,
    slot_of, stack_limit,
};
use crate::recipes::{Ingredient, ItemCount, Matcher, plan_inputs};

/// The trade screen's first input slot (`trade2_ingredient1`).
pub const TRADE_INPUT_A: u8 = 4;
/// The trade screen's second input slot (`trade2_ingredient2`).
pub const TRADE_INPUT_B: u8 = 5;
/// Most trades one `trade` performs.
const MAX_TIMES: u32 = 64;

/// Entity kinds that trade.
fn is_trader(kind: &str) -> bool {
    matches!(bare_name(kind), "villager_v2" | "villager" | "wandering_trader")
}

// ---------------------------------------------------------------------------------------------
// The trade window
// ---------------------------------------------------------------------------------------------

/// The bot's trade window: the last UpdateTrade of the villager it trades with, if open.
#[derive(Component, Debug, Clone, Default, PartialEq)]
pub struct TradeWindow {
    pub open: Option<OpenTrade>,
    /// UpdateTrades received since the bot joined (a new one answers an interaction).
    pub updates: u32,
}

/// A trade window the server opened.
#[derive(Debug, Clone, PartialEq)]
pub struct OpenTrade {
    /// The server's window id (what ContainerClose names).
    pub window_id: String,
    /// The villager's unique id as sent (see [`UpdateTrade::villager_ids`]).
    pub villager_unique_id: u64,
    /// Its runtime id, when the bot sees it.
    pub villager_runtime_id: Option<u64>,
    /// The screen's title.
    pub title: String,
    /// The villager's level: offers above it are locked.
    pub tier: i32,
    /// The offers, as the server last sent them.
    pub offers: Vec<TradeOffer>,
    /// Trades the server confirmed since the last UpdateTrade, by offer `netId` (counted into
    /// `uses` until the server sends the offers again).
    pub traded: BTreeMap<u32, i32>,
    /// Trade requests waiting for the server: `(inventory job, offer netId)`.
    pub pending: Vec<(u64, u32)>,
}

impl OpenTrade {
    /// Uses of offer `i` so far (the server's count plus confirmed trades it has not resent).
    fn uses(&self, i: usize) -> i32 {
        self.offers.get(i).map_or(0, |o| o.uses + self.traded.get(&o.net_id).copied().unwrap_or(0))
    }

    /// Trades offer `i` has left before the villager restocks.
    pub fn uses_left(&self, i: usize) -> i32 {
        self.offers.get(i).map_or(0, |o| (o.max_uses - self.uses(i)).max(0))
    }
}

/// Follows UpdateTrade and the window's close, and counts confirmed trades into the offers'
/// uses. Confirmations are read before this tick's packets: the server answers a trade before it
/// sends the updated offers.
#[allow(clippy::type_complexity)]
pub fn track_trade(
    mut done: MessageReader<InventoryJobDone>,
    mut packets: MessageReader<ClientboundPacket>,
    mut bots: Query<(&mut TradeWindow, Option<&mut InventoryJobs>), With<LocalBot>>,
    villagers: Query<(&SeenBy, &WorldEntity)>,
) {
    for d in done.read() {
        let Ok((mut window, _)) = bots.get_mut(d.bot) else { continue };
        let Some(t) = window.open.as_mut() else { continue };
        let Some(i) = t.pending.iter().position(|(job, _)| *job == d.job) else { continue };
        let (_, net_id) = t.pending.remove(i);
        if d.result.is_confirmed() {
            *t.traded.entry(net_id).or_default() += 1;
        }
    }
    for pkt in packets.read() {
        let Ok((mut window, jobs)) = bots.get_mut(pkt.bot) else { continue };
        if let Some(u) = pkt.view::<UpdateTrade>() {
            let runtime = villagers
                .iter()
                .find(|(seen, w)| seen.0 == pkt.bot && u.villager_ids().contains(&w.unique_id))
                .map(|(_, w)| w.runtime_id);
            let same = window.open.as_ref().filter(|t| t.window_id == u.window_id);
            let pending = same.map_or_else(Vec::new, |t| t.pending.clone());
            let runtime = runtime.or(same.and_then(|t| t.villager_runtime_id));
            window.updates += 1;
            window.open = Some(OpenTrade {
                window_id: u.window_id.clone(),
                villager_unique_id: u.villager_unique_id,
                villager_runtime_id: runtime,
                title: u.display_name.clone(),
                tier: u.trade_tier,
                offers: u.recipes(),
                traded: BTreeMap::new(),
                pending,
            });
            // The trade screen gives access to the inventory: requests need no other screen.
            if let Some(mut jobs) = jobs {
                jobs.screen = Screen::Open { window_id: "first", by_us: false };
            }
        } else if let Some(close) = pkt.view::<ContainerClose>() {
            if window.open.as_ref().is_none_or(|t| t.window_id != close.window_id) {
                continue;
            }
            window.open = None;
            if let Some(mut jobs) = jobs
                && matches!(jobs.screen, Screen::Open { by_us: false, .. })
            {
                jobs.screen = Screen::Closed;
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Offers as the agent sees them
// ---------------------------------------------------------------------------------------------

/// One offer of the open trade window.
#[derive(Serialize, JsonSchema, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct OfferJson {
    /// What `trade` names it by.
    pub index: usize,
    /// What the villager wants per trade, at today's price.
    pub wants: ItemCount,
    /// A second item it wants, if any.
    pub wants_also: Option<ItemCount>,
    /// What it gives per trade.
    pub gives: ItemCount,
    /// Trades left before the villager restocks (maxUses − uses).
    pub uses_left: i32,
    pub max_uses: i32,
    /// The price before demand and discounts (`buyCountA`).
    pub base_price: i32,
    /// Today's price minus the base price: demand × priceMultiplier raises it, discounts lower it.
    pub price_change: i32,
    /// The offer's demand (it grows when the offer is used up between restocks).
    pub demand: i32,
    pub price_multiplier: f32,
    /// Level it unlocks at (0 novice … 4 master).
    pub tier: i32,
    /// True while the villager's level is below `tier`.
    pub locked: bool,
    /// True when no uses are left.
    pub disabled: bool,
    /// Trades the inventory pays for now (at most usesLeft).
    pub can_afford: u32,
}

fn item_count(i: &TradeItem) -> ItemCount {
    ItemCount { name: i.name.clone(), count: u32::from(i.count) }
}

/// Trades `inv` can pay for `o` (`cap` at most).
fn affordable(o: &TradeOffer, inv: &Inventory, cap: u32) -> u32 {
    let per = |i: &TradeItem| if i.count == 0 { cap } else { inv.count_of(&i.name) / u32::from(i.count) };
    let a = per(&o.buy_a);
    let b = o.buy_b.as_ref().map_or(cap, per);
    a.min(b).min(cap)
}

fn offer_json(t: &OpenTrade, i: usize, inv: Option<&Inventory>) -> Option<OfferJson> {
    let o = t.offers.get(i)?;
    let uses_left = t.uses_left(i);
    let cap = u32::try_from(uses_left).unwrap_or(0);
    Some(OfferJson {
        index: i,
        wants: item_count(&o.buy_a),
        wants_also: o.buy_b.as_ref().map(item_count),
        gives: item_count(&o.sell),
        uses_left,
        max_uses: o.max_uses,
        base_price: o.buy_count_a,
        price_change: i32::from(o.buy_a.count) - o.buy_count_a,
        demand: o.demand,
        price_multiplier: o.price_multiplier_a,
        tier: o.tier,
        locked: o.tier > t.tier,
        disabled: uses_left <= 0,
        can_afford: inv.map_or(0, |inv| affordable(o, inv, cap)),
    })
}

fn offers_json(t: &OpenTrade, inv: Option<&Inventory>) -> Vec<OfferJson> {
    (0..t.offers.len()).filter_map(|i| offer_json(t, i, inv)).collect()
}

/// The villager traded with, as receipts name it.
#[derive(Serialize, JsonSchema, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct Trader {
    /// `villager_v2`, `wandering_trader`.
    pub name: String,
    pub runtime_id: u64,
    /// Its name tag, if it has one.
    pub name_tag: Option<String>,
    /// Blocks from the bot's feet when the command ran.
    pub distance: f64,
}

fn no_trade() -> CommandError {
    CommandError::new("NO_CONTAINER", "No trade window is open (trade_open a villager first)")
}

fn open_trade<'a>(ctx: &'a CommandCtx<'_>) -> Result<&'a OpenTrade, CommandError> {
    ctx.world.get::<TradeWindow>(ctx.bot).and_then(|w| w.open.as_ref()).ok_or_else(no_trade)
}

// ---------------------------------------------------------------------------------------------
// trade_open
// ---------------------------------------------------------------------------------------------

/// `trade_open`.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TradeOpen {
    /// Which villager: a runtime id, a kind (`villager`, `wandering_trader`) or a name tag;
    /// default the nearest villager or wandering trader.
    pub entity: Option<serde_json::Value>,
}

/// Response of `trade_open`.
#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct TradeOpenResponse {
    /// True: the interaction was sent; trade_open_done carries the offers the server sent.
    pub opening: bool,
    pub villager: Trader,
}

/// The running `trade_open`.
#[derive(Component, Debug, Clone)]
pub struct TradeOpening {
    pub villager: Trader,
    point: Vec3,
    sent: Option<u64>,
    /// The window's UpdateTrade count when the interaction left.
    updates_before: Option<u32>,
}

/// `trade_open_done`.
#[derive(Serialize, JsonSchema, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct TradeOpenDone {
    pub villager: Trader,
    /// True when the server sent the villager's offers (UpdateTrade).
    pub confirmed: bool,
    pub window_id: Option<String>,
    /// The screen's title (profession or name).
    pub title: Option<String>,
    /// The villager's level (0 novice … 4 master).
    pub tier: Option<i32>,
    pub offers: Vec<OfferJson>,
}
clawcraft_core::evidence!(
    TradeOpenDone,
    "trade_open_done",
    "A trade_open ended: the villager's offers as the server sent them (UpdateTrade) — wants, gives, uses left, price change, tier — or why not"
);

impl AsyncAction for TradeOpening {
    const SLOT: clawcraft_core::ActionSlot = CONTAINER_SLOT;
    type Evidence = TradeOpenDone;

    fn evidence(&self, _outcome: &Outcome, bot: EntityRef<'_>) -> TradeOpenDone {
        let open = bot
            .get::<TradeWindow>()
            .filter(|w| self.updates_before.is_some_and(|n| w.updates > n))
            .and_then(|w| w.open.as_ref());
        TradeOpenDone {
            villager: self.villager.clone(),
            confirmed: open.is_some(),
            window_id: open.map(|t| t.window_id.clone()),
            title: open.map(|t| t.title.clone()),
            tier: open.map(|t| t.tier),
            offers: open.map(|t| offers_json(t, bot.get::<Inventory>())).unwrap_or_default(),
        }
    }
}

/// The trader `entity` names (default: the nearest), in reach.
fn find_trader(ctx: &mut CommandCtx<'_>, entity: Option<&serde_json::Value>) -> Result<(Trader, Vec3), CommandError> {
    let feet = ctx.world.get::<Position>(ctx.bot).ok_or_else(CommandError::not_spawned)?.0;
    let by_id = match entity {
        None => None,
        Some(serde_json::Value::Number(n)) => {
            Some(n.as_u64().ok_or_else(|| CommandError::invalid_params("entity id must be a runtime id"))?)
        }
        Some(serde_json::Value::String(s)) => s.trim().parse::<u64>().ok(),
        Some(_) => return Err(CommandError::invalid_params("entity must be a runtime id, a kind or a name tag")),
    };
    let query = entity.and_then(|e| e.as_str()).map(|s| bare_name(s.trim()).to_ascii_lowercase());
    let bot = ctx.bot;
    let mut q = ctx.world.query::<(&SeenBy, &WorldEntity, &EntityPosition, &EntityKind, Option<&NameTag>)>();
    let mut found: Vec<(Trader, Vec3, bool)> = q
        .iter(ctx.world)
        .filter(|(seen, ..)| seen.0 == bot)
        .filter(|(_, w, _, kind, tag)| match (by_id, &query) {
            (Some(id), _) => w.runtime_id == id,
            (None, Some(q)) => {
                (q == "villager" && is_trader(&kind.name) && kind.name != "wandering_trader")
                    || kind.name.eq_ignore_ascii_case(q)
                    || tag.is_some_and(|t| t.0.eq_ignore_ascii_case(q))
            }
            (None, None) => is_trader(&kind.name),
        })
        .map(|(_, w, p, kind, tag)| {
            let distance = (p.0.distance(feet) * 100.0).round() / 100.0;
            let t = Trader {
                name: kind.name.clone(),
                runtime_id: w.runtime_id,
                name_tag: tag.map(|t| t.0.clone()).filter(|t| !t.is_empty()),
                distance,
            };
            (t, p.0, is_trader(&kind.name))
        })
        .collect();
    found.sort_by(|a, b| a.0.distance.total_cmp(&b.0.distance));
    let Some((first, _, trades)) = found.first().cloned() else {
        return Err(CommandError::new("NOT_FOUND", "No villager or wandering trader in view"));
    };
    if !trades {
        return Err(CommandError::new("INVALID_TARGET", format!("a {} does not trade", first.name)));
    }
    let near = found.into_iter().find(|(t, _, trades)| *trades && t.distance <= ATTACK_REACH);
    let Some((t, p, _)) = near else {
        return Err(CommandError::new(
            "OUT_OF_REACH",
            format!(
                "the nearest {} is {} blocks away; reach is {ATTACK_REACH} (walk closer first)",
                first.name, first.distance
            ),
        ));
    };
    Ok((t, p.offset_y(1.0)))
}

impl AgentCommand for TradeOpen {
    const NAME: &'static str = "trade_open";
    const SUMMARY: &'static str = "Open the trade window of the nearest villager or wandering trader in reach (or entity: runtime id, kind, name tag); async, trade_open_done lists the offers the server sent (wants, gives, usesLeft, price change, tier)";
    const EXAMPLE: &'static str = r#"{"action":"trade_open"}"#;
    const ASYNC: Option<AsyncInfo> = Some(AsyncInfo::of::<TradeOpening>());
    type Response = TradeOpenResponse;

    fn run(self, ctx: &mut CommandCtx<'_>) -> Result<TradeOpenResponse, CommandError> {
        clawcraft_interact::common::inventory(ctx)?;
        let (villager, point) = find_trader(ctx, self.entity.as_ref())?;
        turn_to(ctx.world, ctx.bot, point);
        let opening = TradeOpening { villager: villager.clone(), point, sent: None, updates_before: None };
        ctx.start(Self::NAME, opening, OPEN_TICKS + 40)?;
        Ok(TradeOpenResponse { opening: true, villager })
    }
}

/// Interacts with the villager, then waits for its UpdateTrade.
#[allow(clippy::type_complexity)]
pub fn step_trade_opening(
    mut commands: Commands,
    mut bots: Query<(Entity, &mut TradeOpening, &Inventory, &mut Connection, &EntityIds, &Position, &mut TradeWindow)>,
    ticks: Res<TickCount>,
) {
    let now = ticks.0;
    for (bot, mut a, inv, mut conn, ids, pos, mut window) in &mut bots {
        let updates = window.updates;
        let Some(sent) = a.sent else {
            let eye = pos.0.offset_y(EYE_HEIGHT);
            click_entity(
                &mut conn,
                ids.runtime_id,
                Some(inv),
                eye,
                a.villager.runtime_id,
                a.point,
                EntityClick::Interact,
            );
            a.sent = Some(now);
            a.updates_before = Some(updates);
            continue;
        };
        if a.updates_before.is_some_and(|n| updates > n) {
            // The window answers our interaction: its villager is the one clicked.
            if let Some(t) = window.open.as_mut() {
                t.villager_runtime_id.get_or_insert(a.villager.runtime_id);
            }
            commands.end_action(bot, CONTAINER_SLOT.name, ActionStatus::Done, None);
        } else if now >= sent + OPEN_TICKS {
            commands.end_action(bot, CONTAINER_SLOT.name, ActionStatus::Failed, Some("no_trade_window".into()));
        }
    }
}

// ---------------------------------------------------------------------------------------------
// trades
// ---------------------------------------------------------------------------------------------

/// `trades`.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TradesCmd {}

/// Response of `trades`.
#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct TradesResponse {
    pub window_id: String,
    pub title: String,
    /// The villager's level (0 novice … 4 master).
    pub tier: i32,
    /// Its runtime id, when the bot sees it.
    pub villager: Option<u64>,
    pub offers: Vec<OfferJson>,
}

impl AgentCommand for TradesCmd {
    const NAME: &'static str = "trades";
    const SUMMARY: &'static str = "The open trade window's offers: wants, gives, usesLeft, price change (demand, multiplier), tier, locked/disabled, canAfford";
    const EXAMPLE: &'static str = r#"{"action":"trades"}"#;
    const QUERY: bool = true;
    type Response = TradesResponse;

    fn run(self, ctx: &mut CommandCtx<'_>) -> Result<TradesResponse, CommandError> {
        let t = open_trade(ctx)?;
        let inv = ctx.world.get::<Inventory>(ctx.bot);
        Ok(TradesResponse {
            window_id: t.window_id.clone(),
            title: t.title.clone(),
            tier: t.tier,
            villager: t.villager_runtime_id,
            offers: offers_json(t, inv),
        })
    }
}

// ---------------------------------------------------------------------------------------------
// trade
// ---------------------------------------------------------------------------------------------

/// `trade`.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Trade {
    /// The offer's index (from trade_open_done / trades).
    pub offer: Option<usize>,
    /// Or the item the offer gives (the first available offer giving it).
    pub item: Option<String>,
    /// How many trades (default 1, at most 64).
    pub times: Option<u32>,
}

/// Response of `trade`.
#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct TradeResponse {
    /// True: the trades are under way; trade_done is the receipt.
    pub trading: bool,
    pub offer: usize,
    pub wants: ItemCount,
    pub wants_also: Option<ItemCount>,
    pub gives: ItemCount,
    pub times: u32,
}

#[derive(Debug, Clone, PartialEq)]
enum TradePhase {
    /// Pay for the next trade (or end).
    Next,
    /// The payment's request is out.
    Paying { job: u64 },
    /// The trade's request is out.
    Trading { job: u64 },
}

/// The running `trade`.
#[derive(Component, Debug, Clone)]
pub struct Trading {
    pub offer: usize,
    net_id: u32,
    window_id: String,
    pub times: u32,
    /// Trades the server confirmed.
    pub done: u32,
    phase: TradePhase,
    pub gave: BTreeMap<String, u32>,
    pub got: BTreeMap<String, u32>,
}

/// `trade_done`.
#[derive(Serialize, JsonSchema, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct TradeDone {
    pub offer: usize,
    /// Trades asked for.
    pub times: u32,
    /// Trades the server confirmed (its ItemStackResponses).
    pub trades: u32,
    /// True when at least one trade was confirmed.
    pub confirmed: bool,
    /// Items handed to the villager in the confirmed trades.
    pub gave: Vec<ItemCount>,
    /// Items received.
    pub got: Vec<ItemCount>,
    /// The offer's trades left after (null when the window closed).
    pub uses_left: Option<i32>,
}
clawcraft_core::evidence!(
    TradeDone,
    "trade_done",
    "A trade ended: the trades the server confirmed (ItemStackResponse), what changed hands (gave/got) and the offer's uses left; failed out_of_payment / used_up / rejected: … when it stopped early"
);

fn counted(m: &BTreeMap<String, u32>) -> Vec<ItemCount> {
    m.iter().map(|(name, count)| ItemCount { name: name.clone(), count: *count }).collect()
}

impl AsyncAction for Trading {
    const SLOT: clawcraft_core::ActionSlot = CONTAINER_SLOT;
    type Evidence = TradeDone;

    fn evidence(&self, _outcome: &Outcome, bot: EntityRef<'_>) -> TradeDone {
        let open = bot.get::<TradeWindow>().and_then(|w| w.open.as_ref()).filter(|t| t.window_id == self.window_id);
        TradeDone {
            offer: self.offer,
            times: self.times,
            trades: self.done,
            confirmed: self.done > 0,
            gave: counted(&self.gave),
            got: counted(&self.got),
            uses_left: open.map(|t| t.uses_left(self.offer)),
        }
    }
}

/// Why offer `i` cannot be traded now, if it cannot.
fn unavailable(t: &OpenTrade, i: usize) -> Option<String> {
    let o = t.offers.get(i)?;
    if o.tier > t.tier {
        return Some(format!("offer {i} is locked until the villager reaches tier {} (it is {})", o.tier, t.tier));
    }
    (t.uses_left(i) <= 0).then(|| format!("offer {i} is used up until the villager restocks"))
}

fn ingredient(i: &TradeItem) -> Ingredient {
    Ingredient { matcher: Matcher::Name(i.name.as_str().into()), count: u32::from(i.count) }
}

impl AgentCommand for Trade {
    const NAME: &'static str = "trade";
    const SUMMARY: &'static str = "Trade with the open villager window: offer index or the item it gives, times N (default 1); each trade confirmed by the server, stopping early when the payment runs out or the offer is used up; async, trade_done says what changed hands";
    const EXAMPLE: &'static str = r#"{"action":"trade","item":"bread","times":2}"#;
    const ASYNC: Option<AsyncInfo> = Some(AsyncInfo::of::<Trading>());
    type Response = TradeResponse;

    fn run(self, ctx: &mut CommandCtx<'_>) -> Result<TradeResponse, CommandError> {
        let times = self.times.unwrap_or(1);
        if times == 0 || times > MAX_TIMES {
            return Err(CommandError::out_of_range(format!("times must be 1–{MAX_TIMES}")));
        }
        let inv = clawcraft_interact::common::inventory(ctx)?;
        let t = open_trade(ctx)?;
        let index = match (self.offer, &self.item) {
            (Some(i), _) if i < t.offers.len() => i,
            (Some(i), _) => {
                return Err(CommandError::new(
                    "NO_OFFER",
                    format!(
                        "No offer {i}: the villager has {} (0–{})",
                        t.offers.len(),
                        t.offers.len().saturating_sub(1)
                    ),
                ));
            }
            (None, Some(item)) => {
                let q = bare_name(item.trim()).to_ascii_lowercase();
                let giving: Vec<usize> = (0..t.offers.len())
                    .filter(|&i| bare_name(&t.offers[i].sell.name).eq_ignore_ascii_case(&q))
                    .collect();
                if giving.is_empty() {
                    return Err(CommandError::new("NO_OFFER", format!("No offer gives {item}")));
                }
                giving.iter().copied().find(|&i| unavailable(t, i).is_none()).unwrap_or(giving[0])
            }
            (None, None) => return Err(CommandError::invalid_params("trade needs offer (an index) or item")),
        };
        if let Some(why) = unavailable(t, index) {
            return Err(CommandError::new("OFFER_UNAVAILABLE", why));
        }
        let o = t.offers[index].clone();
        if affordable(&o, inv, 1) == 0 {
            let mut short = vec![format!("{} {} (have {})", o.buy_a.count, o.buy_a.name, inv.count_of(&o.buy_a.name))];
            if let Some(b) = &o.buy_b {
                short.push(format!("{} {} (have {})", b.count, b.name, inv.count_of(&b.name)));
            }
            return Err(CommandError::new(
                "MISSING_PAYMENT",
                format!("One trade of offer {index} costs {}", short.join(" and ")),
            ));
        }
        let window_id = t.window_id.clone();
        if let Some(v) = t.villager_runtime_id {
            let mut q = ctx.world.query::<(&SeenBy, &WorldEntity, &EntityPosition)>();
            let bot = ctx.bot;
            let at = q.iter(ctx.world).find(|(s, w, _)| s.0 == bot && w.runtime_id == v).map(|(.., p)| p.0);
            if let Some(p) = at {
                turn_to(ctx.world, ctx.bot, p.offset_y(1.0));
            }
        }
        let action = Trading {
            offer: index,
            net_id: o.net_id,
            window_id,
            times,
            done: 0,
            phase: TradePhase::Next,
            gave: BTreeMap::new(),
            got: BTreeMap::new(),
        };
        ctx.start(Self::NAME, action, JOB_TICKS * 2 * u64::from(times))?;
        Ok(TradeResponse {
            trading: true,
            offer: index,
            wants: item_count(&o.buy_a),
            wants_also: o.buy_b.as_ref().map(item_count),
            gives: item_count(&o.sell),
            times,
        })
    }
}

/// The request that puts one trade's payment in the trade screen's input slots, and what our
/// slots hold after it; `Err` says what is missing.
pub fn payment_request(
    o: &TradeOffer,
    inv: &Inventory,
    ids: &ItemIds,
) -> Result<(Vec<StackAction>, ExpectedSlots), String> {
    let mut actions = Vec::new();
    let mut after = inv.slots.clone();
    let mut touched = Vec::new();
    let inputs = [
        (Some(&o.buy_a), "trade2_ingredient1", TRADE_INPUT_A),
        (o.buy_b.as_ref(), "trade2_ingredient2", TRADE_INPUT_B),
    ];
    for (item, container, slot) in inputs {
        let Some(item) = item else { continue };
        // The slots still holding what the first item did not take.
        let mut left = inv.clone();
        left.slots.clone_from(&after);
        let plan = plan_inputs(&[ingredient(item)], &left, ids, 1).map_err(|m| {
            let m: Vec<String> = m.iter().map(|(n, c)| format!("{c} {n}")).collect();
            format!("missing {}", m.join(", "))
        })?;
        for (from, n) in plan {
            actions.push(StackAction {
                type_id: "place".into(),
                legacy_type_id: 1,
                count: Some(u8::try_from(n).unwrap_or(u8::MAX)),
                source: Some(inv_slot(inv, from)),
                destination: Some(slot_of(container, slot, 0)),
                ..StackAction::default()
            });
            let here = after[usize::from(from)].clone();
            after[usize::from(from)] = here.and_then(|h| removed(&h, n));
            touched.push(from);
        }
    }
    touched.sort_unstable();
    touched.dedup();
    let expected = touched.into_iter().map(|s| (SlotRef::Inv(s), after[usize::from(s)].clone())).collect();
    Ok((actions, expected))
}

/// The request that performs one trade of `o` from the paid input slots (their stack ids
/// `stack_a`, `stack_b`), and what our slots hold after it.
pub fn trade_request(
    o: &TradeOffer,
    stack_a: i32,
    stack_b: Option<i32>,
    inv: &Inventory,
    ids: &ItemIds,
) -> Result<(Vec<StackAction>, ExpectedSlots), String> {
    let net = ids.id(&o.sell.name).ok_or_else(|| format!("the server never named {}", o.sell.name))?;
    let product = ids
        .item(&ItemInstance { network_id: net, count: o.sell.count, metadata: 0, ..ItemInstance::default() })
        .ok_or("the offer gives air")?;
    let result = ResultItem {
        kind: "name".into(),
        name: o.sell.name.clone(),
        network_id: net,
        metadata: i32::from(o.sell.damage),
        count: i32::from(o.sell.count),
        ..ResultItem::default()
    };
    let mut actions = vec![
        StackAction::craft_recipe(o.net_id, 1),
        StackAction::results(&[result], 1),
        StackAction::consume(
            u8::try_from(o.buy_a.count).unwrap_or(u8::MAX),
            slot_of("trade2_ingredient1", TRADE_INPUT_A, stack_a),
        ),
    ];
    if let (Some(b), Some(id)) = (&o.buy_b, stack_b) {
        actions.push(StackAction::consume(
            u8::try_from(b.count).unwrap_or(u8::MAX),
            slot_of("trade2_ingredient2", TRADE_INPUT_B, id),
        ));
    }
    let order: Vec<u8> = (0..36u8).collect();
    let (dests, left) = room_for(&inv.slots, &product, o.sell.count, stack_limit(ids, &o.sell.name), &order);
    if left > 0 || dests.len() != 1 {
        return Err("inventory_full".into());
    }
    let (dest, _) = dests[0];
    actions.push(StackAction {
        type_id: "place".into(),
        legacy_type_id: 1,
        count: Some(u8::try_from(o.sell.count).unwrap_or(u8::MAX)),
        source: Some(slot_of("creative_output", CREATED_OUTPUT_SLOT, CREATED_BY_REQUEST)),
        destination: Some(inv_slot(inv, dest)),
        ..StackAction::default()
    });
    let here = inv.get(SlotRef::Inv(dest)).cloned();
    Ok((actions, vec![(SlotRef::Inv(dest), Some(added(here.as_ref(), &product, o.sell.count)))]))
}

/// The stack id the server's answer gave `container`'s slot `slot`.
fn input_stack(d: &InventoryJobDone, container: &str, slot: u8) -> Option<i32> {
    let r = d.response.as_ref()?;
    listed_slots(r).find(|(c, s)| *c == container && s.slot == slot && s.count > 0).and_then(|(_, s)| s.item_stack_id)
}

/// Pays, trades, repeats; ends with the server's answers.
#[allow(clippy::type_complexity)]
pub fn step_trading(
    mut commands: Commands,
    mut bots: Query<(Entity, &mut Trading, &Inventory, &ItemIds, &mut InventoryJobs, &mut TradeWindow)>,
    mut done: MessageReader<InventoryJobDone>,
) {
    let finished: Vec<InventoryJobDone> = done.read().cloned().collect();
    for (bot, mut a, inv, ids, mut jobs, mut window) in &mut bots {
        let fail = |commands: &mut Commands, why: &str| {
            commands.end_action(bot, CONTAINER_SLOT.name, ActionStatus::Failed, Some(why.to_owned()));
        };
        let Some(t) = window.open.as_mut().filter(|t| t.window_id == a.window_id) else {
            fail(&mut commands, "window_closed");
            continue;
        };
        let Some(o) = t.offers.get(a.offer).filter(|o| o.net_id == a.net_id).cloned() else {
            fail(&mut commands, "offers_changed");
            continue;
        };
        match a.phase.clone() {
            TradePhase::Next => {
                if a.done >= a.times {
                    commands.end_action(bot, CONTAINER_SLOT.name, ActionStatus::Done, None);
                } else if let Some(why) = unavailable(t, a.offer) {
                    fail(&mut commands, if why.contains("locked") { "locked" } else { "used_up" });
                } else if affordable(&o, inv, 1) == 0 {
                    fail(&mut commands, "out_of_payment");
                } else {
                    match payment_request(&o, inv, ids) {
                        Ok((actions, expected)) => {
                            let job = jobs
                                .submit_custom("trade_pay", CustomRequest { actions, expected, needs_screen: true });
                            a.phase = TradePhase::Paying { job };
                        }
                        Err(_) => fail(&mut commands, "out_of_payment"),
                    }
                }
            }
            TradePhase::Paying { job } => {
                let Some(d) = finished.iter().find(|d| d.bot == bot && d.job == job) else { continue };
                if let JobResult::Rejected(status) = &d.result {
                    fail(&mut commands, &format!("rejected: {status}"));
                    continue;
                }
                let stack_a = input_stack(d, "trade2_ingredient1", TRADE_INPUT_A);
                let stack_b = input_stack(d, "trade2_ingredient2", TRADE_INPUT_B);
                let (Some(stack_a), true) = (stack_a, o.buy_b.is_none() || stack_b.is_some()) else {
                    fail(&mut commands, "the server's answer named no stack in the trade input");
                    continue;
                };
                match trade_request(&o, stack_a, stack_b, inv, ids) {
                    Ok((actions, expected)) => {
                        let job = jobs.submit_custom("trade", CustomRequest { actions, expected, needs_screen: true });
                        t.pending.push((job, o.net_id));
                        a.phase = TradePhase::Trading { job };
                    }
                    Err(why) => fail(&mut commands, &why),
                }
            }
            TradePhase::Trading { job } => {
                let Some(d) = finished.iter().find(|d| d.bot == bot && d.job == job) else { continue };
                if let JobResult::Rejected(status) = &d.result {
                    fail(&mut commands, &format!("rejected: {status}"));
                    continue;
                }
                a.done += 1;
                *a.gave.entry(o.buy_a.name.clone()).or_default() += u32::from(o.buy_a.count);
                if let Some(b) = &o.buy_b {
                    *a.gave.entry(b.name.clone()).or_default() += u32::from(b.count);
                }
                *a.got.entry(o.sell.name.clone()).or_default() += u32::from(o.sell.count);
                a.phase = TradePhase::Next;
                if a.done >= a.times {
                    commands.end_action(bot, CONTAINER_SLOT.name, ActionStatus::Done, None);
                }
            }
        }
    }
}

/// The ContainerClose of the open trade window, if one is open.
pub fn close_packet(world: &World, bot: Entity) -> Option<ContainerClose> {
    let t = world.get::<TradeWindow>(bot)?.open.as_ref()?;
    Some(ContainerClose { window_id: t.window_id.clone(), window_type: "trading".into(), server: false })
}
