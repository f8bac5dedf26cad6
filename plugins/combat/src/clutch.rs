//! `auto_clutch`: a water bucket poured under a fall, on Bedrock's rules, then picked back up.
//!
//! While the bot falls with a water bucket anywhere in the inventory, the movement plugin's own
//! physics steps the fall ahead ([`predict_fall`]: the same integration, state and blocks as the
//! tick's movement step, no key pressed) to the block the feet will land on. When that landing
//! ends a fall longer than `minFall` blocks (default 3: Bedrock's safe fall, so only a landing
//! that would hurt), the policy starts its action `clutch` in the `use` slot:
//!
//! 1. the water bucket is taken in hand at once (a hotbar pick, or a swap from the main inventory
//!    through interact's `hold_item_of`, as `fight` takes its weapon) and the bot looks straight
//!    down;
//! 2. each tick the landing is predicted again; at the first tick at which the landing block's
//!    top face is within reach of the eye (the point under the eye, [`aim_down`]) the bucket is
//!    used on that face — the very `click_block` of `empty` ([`advance_bucket`]) — so the server
//!    puts a source in the cell the feet are falling into, before they reach it. An action's
//!    packets leave before the tick's PlayerAuthInput, so the server judges the click from the
//!    position of the last input: the eye the decision used. At terminal speed (3.92 blocks a
//!    tick) the face is in reach only in the last tick or none: when the last tick before the
//!    landing comes and the face is still out of reach, the clutch has failed;
//! 3. after the landing the bucket fills again from that source (`fill`'s click on the liquid),
//!    so the bucket is not lost.
//!
//! The receipt `clutch_done` is built from the server's word: `placed` from its block update at
//! the water cell, `hurt`/`damage` from its health updates between the start and 10 ticks after
//! the landing (never assumed from the water), `pickedUp` from the block update of the fill and
//! the bucket it sent back. `done` when the water was placed and the landing cost no health.
//!
//! BUSY rules: the clutch takes the `use` slot, so the agent's hand commands are `BUSY` while it
//! runs (`abort_use` stops it); it does not start while a hand action of the agent's (or a walk
//! or fight borrowing the hand) runs — the fall then goes on unbroken, as an agent that holds the
//! hand asked for — and auto_eat and auto_defend wait for it.
//!
//! No one-shot `clutch` command: the tick to act is known only during the fall, closer to the
//! ground than an agent's round trip allows, and an agent about to jump arms the same thing by
//! turning the policy on.
//!
//! UNCERTAIN (settled against the test peer only):
//! - reach: the click is sent only within interact's [`REACH`](clawcraft_interact::common::REACH)
//!   (5 blocks, eye to point) — what the client's ray allows; the peer accepts 6.5 from the block's centre, dragonfly 8;
//! - a bucket used while airborne is accepted like one used on the ground (dragonfly and the peer
//!   check only reach and the held item), and the water placed before the input that reaches it
//!   forgives the fall (the peer: the feet's cell is water at that input);
//! - the fall's damage and its forgiveness are the server's: the receipt reports them, it does
//!   not infer them.

use bevy_ecs::prelude::*;
use bevy_ecs::world::EntityRef;
use clawcraft_core::{
    ActionStatus, AgentEvent, AsyncAction, EntityIds, Interruption, Outcome, Position, Rotation, TickCount, end_action,
    start_action,
};
use clawcraft_interact::bucket::{
    BUCKET, Bucket, BucketClick, Mode, advance_bucket, aim_down, bucket_obstacle, observe_bucket, source_liquid,
};
use clawcraft_interact::common::{
    BlockXyz, Ready, Senses, aim_at_through, block_updates, hand_free_of, hold_item_of, job_outcome, turn_to,
};
use clawcraft_interact::use_slot::{ItemCount, USE_SLOT};
use clawcraft_inventory::{Inventory, InventoryJobs};
use clawcraft_movement::{FallCourse, Mover, predict_fall};
use clawcraft_network::{ClientboundPacket, Connection};
use clawcraft_vitals::Vitals;
use clawcraft_world::ids::BlockIds;
use schemars::JsonSchema;
use serde::Serialize;

use crate::policy::{Policies, PolicyAction, PolicyName};

/// The action's name in its slot and in `policy_action`.
pub const CLUTCH: &str = "clutch";
/// Bedrock's safe fall: a landing after more than this many blocks hurts.
pub const DEFAULT_MIN_FALL: f64 = 3.0;
/// The water bucket's item name.
pub const WATER_BUCKET: &str = "minecraft:water_bucket";
/// Physics steps a prediction looks ahead (a fall from the build limit to the bottom of the world
/// at terminal speed takes ~100).
const HORIZON: u32 = 200;
/// Ticks after the landing in which the server's health updates count as the landing's.
const HURT_TICKS: u64 = 10;
/// The watchdog: the longest fall, the pour, the refill.
const TIMEOUT_TICKS: u64 = HORIZON as u64 + 200;

/// What the prediction saw last of the landing.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Landing {
    ticks: u32,
    support: [i32; 3],
}

/// The running clutch.
#[derive(Component, Debug, Clone)]
pub struct Clutching {
    /// The feet height the fall began at.
    top: f64,
    /// The equip job taking the water bucket in hand, while the server has not answered.
    equip: Option<u64>,
    /// The pour, its end, and the prediction's steps to the landing when it was clicked.
    pour: Option<Bucket>,
    poured: Option<(ActionStatus, Option<String>)>,
    lead_ticks: Option<u32>,
    /// Blocks from the eye to the point clicked.
    reach: Option<f64>,
    /// The refill and its end.
    fill: Option<Bucket>,
    filled: Option<(ActionStatus, Option<String>)>,
    /// Why no water was poured.
    missed: Option<String>,
    /// When the fall stopped, and the feet's height then.
    landed: Option<(u64, f64)>,
    health_before: Option<f64>,
    lowest_health: Option<f64>,
    water_buckets: ItemCount,
}

/// `clutch_done`'s evidence.
#[derive(Serialize, JsonSchema, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct ClutchDone {
    /// Blocks fallen, from where the fall began to where the feet stopped (to the predicted
    /// landing while they have not).
    pub fall_distance: f64,
    /// The cell the water was poured into (null when no click went out).
    pub water: Option<BlockXyz>,
    /// The landing block whose top face was clicked, and the face (1: up).
    pub clicked: Option<BlockXyz>,
    pub face: Option<u8>,
    /// Physics steps from the click to the predicted landing (1: the step right after it).
    pub lead_ticks: Option<u32>,
    /// Blocks from the eye to the point clicked.
    pub reach: Option<f64>,
    /// True only when the server's block update showed the water in the cell.
    pub placed: bool,
    /// The fall stopped (on a block or in water) before the action ended.
    pub landed: bool,
    /// The server's health when the clutch started, and when it ended (10 ticks after the landing).
    pub health_before: Option<f64>,
    pub health_after: Option<f64>,
    /// Health lost between the start and 10 ticks after the landing, from the server's health
    /// updates; `hurt` when any.
    pub damage: f64,
    pub hurt: bool,
    /// True only when the server's block update emptied the water cell again and the inventory
    /// it sent shows the water bucket back.
    pub picked_up: bool,
    /// Water buckets in the inventory when the clutch started and when it ended.
    pub water_buckets: ItemCount,
}
clawcraft_core::evidence!(
    ClutchDone,
    "clutch_done",
    "auto_clutch broke a fall (or failed to): fallDistance, where the water went (water, clicked, face, leadTicks, reach), placed from the server's block update, hurt/damage from its health updates after the landing, pickedUp when the bucket was filled again"
);

impl Clutching {
    fn damage(&self) -> f64 {
        match (self.health_before, self.lowest_health) {
            (Some(before), Some(low)) => (before - low).max(0.0),
            _ => 0.0,
        }
    }

    fn picked_up(&self) -> bool {
        self.fill.as_ref().is_some_and(|f| f.confirmed())
            && self.filled.as_ref().is_some_and(|(s, _)| *s == ActionStatus::Done)
    }
}

impl AsyncAction for Clutching {
    const SLOT: clawcraft_core::ActionSlot = USE_SLOT;
    type Evidence = ClutchDone;

    fn evidence(&self, _outcome: &Outcome, bot: EntityRef<'_>) -> ClutchDone {
        let feet = bot.get::<Position>().map_or(self.top, |p| p.0.y);
        let fall = self.landed.map_or(self.top - feet, |(_, y)| self.top - y);
        let pour = self.pour.as_ref();
        let water_now = bot.get::<Inventory>().map_or(0, |i| i.count_of(WATER_BUCKET));
        let damage = self.damage();
        ClutchDone {
            fall_distance: round2(fall.max(0.0)),
            water: pour.map(|p| p.click.pos.into()),
            clicked: pour.map(|p| p.click.clicked.into()),
            face: pour.map(Bucket::face),
            lead_ticks: self.lead_ticks,
            reach: self.reach.map(round2),
            placed: pour.is_some_and(Bucket::confirmed),
            landed: self.landed.is_some(),
            health_before: self.health_before,
            health_after: bot.get::<Vitals>().map(|v| v.health),
            damage,
            hurt: damage > 0.0,
            picked_up: self.picked_up(),
            water_buckets: ItemCount {
                before: self.water_buckets.before,
                after: u16::try_from(water_now).unwrap_or(u16::MAX),
            },
        }
    }

    fn interrupted(&self, cause: Interruption) -> Option<(ActionStatus, String)> {
        match cause {
            Interruption::Teleport => Some((ActionStatus::Failed, "teleported".into())),
            other => clawcraft_core::default_interruption(other),
        }
    }
}

fn round2(v: f64) -> f64 {
    (v * 100.0).round() / 100.0
}

/// The server's block updates at the water cell, for the pour and the refill while they wait.
pub fn watch_clutches(
    mut packets: MessageReader<ClientboundPacket>,
    mut bots: Query<(&mut Clutching, Option<&BlockIds>)>,
    ticks: Res<TickCount>,
) {
    for pkt in packets.read() {
        let Ok((mut c, ids)) = bots.get_mut(pkt.bot) else { continue };
        let updates = block_updates(pkt);
        if updates.is_empty() {
            continue;
        }
        let c = &mut *c;
        if c.poured.is_none()
            && let Some(p) = c.pour.as_mut()
        {
            observe_bucket(p, &updates, ids, ticks.0);
        }
        if c.filled.is_none()
            && let Some(f) = c.fill.as_mut()
        {
            observe_bucket(f, &updates, ids, ticks.0);
        }
    }
}

/// Whether auto_clutch has anything to do this tick.
pub fn any_clutch(bots: Query<&Policies>, running: Query<(), With<Clutching>>) -> bool {
    !running.is_empty() || bots.iter().any(|p| p.clutch.enabled)
}

/// Whether a bot with auto_clutch on is falling (makes the tick busy: a fall brings no packet).
pub fn falling_with_clutch(world: &mut World, state: &mut Option<QueryState<(&Policies, &Mover)>>) -> bool {
    let q = state.get_or_insert_with(|| world.query::<(&Policies, &Mover)>());
    q.iter(world).any(|(p, m)| p.clutch.enabled && !m.state.on_ground && m.state.velocity.y < 0.0)
}

/// Bots a clutch may start or run on (kept between ticks: no query is built per tick).
type ClutchCandidates = QueryState<Entity, Or<(With<Policies>, With<Clutching>)>>;

/// Starts a clutch where a harmful landing comes, and steps the running ones.
pub fn run_clutches(world: &mut World, candidates: &mut ClutchCandidates) {
    let now = world.resource::<TickCount>().0;
    let bots: Vec<Entity> = candidates.iter(world).collect();
    for bot in bots {
        // A clutch just started steps at once: its click may be due this very tick.
        if world.get::<Clutching>(bot).is_some() || maybe_start(world, bot, now) {
            step(world, bot, now);
        }
    }
}

fn look_down(world: &mut World, bot: Entity) {
    if let Some(mut r) = world.get_mut::<Rotation>(bot) {
        r.pitch = 90.0;
    }
}

fn look(world: &World, bot: Entity) -> (f32, f32) {
    world.get::<Rotation>(bot).map_or((0.0, 90.0), |r| (r.yaw, r.pitch))
}

fn water_count(world: &World, bot: Entity) -> u16 {
    world.get::<Inventory>(bot).map_or(0, |i| u16::try_from(i.count_of(WATER_BUCKET)).unwrap_or(u16::MAX))
}

/// Starts the clutch when the rule fires: falling, a water bucket in the inventory, the hand
/// free, and the predicted landing ends a fall longer than `minFall`.
fn maybe_start(world: &mut World, bot: Entity, now: u64) -> bool {
    // Runs every tick for every bot with the policy on: read the few fields, clone nothing.
    let Some((enabled, retry_at, min_fall)) =
        world.get::<Policies>(bot).map(|p| (p.clutch.enabled, p.clutch.retry_at, p.clutch.min_fall))
    else {
        return false;
    };
    let Some((grounded, falling, fall_distance)) = world
        .get::<Mover>(bot)
        .map(|m| (m.state.on_ground || m.state.in_water, m.state.velocity.y < 0.0, m.state.fall_distance))
    else {
        return false;
    };
    if grounded {
        // A new fall may be clutched again.
        if retry_at == u64::MAX
            && let Some(mut p) = world.get_mut::<Policies>(bot)
        {
            p.clutch.retry_at = 0;
        }
        return false;
    }
    let alive = world.get::<Vitals>(bot).is_none_or(|v| v.alive);
    if !enabled || now < retry_at || !alive || !falling {
        return false;
    }
    if world.get::<Inventory>(bot).is_none_or(|i| i.count_of(WATER_BUCKET) == 0) || hand_free_of(world, bot).is_err() {
        return false;
    }
    let FallCourse::Lands { ticks, support, fall, .. } = predict_fall(world, bot, look(world, bot), HORIZON) else {
        return false;
    };
    if fall <= min_fall {
        return false;
    }
    let top = world.get::<Position>(bot).map_or(0.0, |p| p.0.y) + f64::from(fall_distance);
    let (equip, missed) = match hold_item_of(world, bot, WATER_BUCKET) {
        Ok(Ready::Now) => (None, None),
        Ok(Ready::Job(j)) => (Some(j), None),
        Err(e) => (None, Some(e.message)),
    };
    look_down(world, bot);
    let health = world.get::<Vitals>(bot).map(|v| v.health);
    let clutch = Clutching {
        top,
        equip,
        pour: None,
        poured: None,
        lead_ticks: None,
        reach: None,
        fill: None,
        filled: None,
        missed,
        landed: None,
        health_before: health,
        lowest_health: health,
        water_buckets: ItemCount { before: water_count(world, bot), after: 0 },
    };
    let id = clawcraft_core::command::next_request_id();
    if start_action(world, bot, CLUTCH, id.clone(), clutch, TIMEOUT_TICKS).is_err() {
        return false;
    }
    if let Some(mut p) = world.get_mut::<Policies>(bot) {
        p.clutch.acted += 1;
        // Once per fall: armed again on the ground or in water.
        p.clutch.retry_at = u64::MAX;
    }
    let [x, y, z] = support;
    world.write_message(AgentEvent::new(PolicyAction {
        bot,
        policy: PolicyName::AutoClutch,
        command: CLUTCH.into(),
        action_id: id,
        why: format!("falling {fall:.1} blocks onto block {x} {y} {z} in {ticks} ticks"),
        params: serde_json::json!({ "minFall": min_fall }),
    }));
    true
}

/// One tick of a running clutch.
fn step(world: &mut World, bot: Entity, now: u64) {
    let Some(mut c) = world.get::<Clutching>(bot).cloned() else { return };
    let Some(state) = world.get::<Mover>(bot).map(|m| m.state.clone()) else { return };
    let feet = world.get::<Position>(bot).map_or(0.0, |p| p.0.y);
    if let Some(h) = world.get::<Vitals>(bot).map(|v| v.health) {
        c.lowest_health = Some(c.lowest_health.map_or(h, |l| l.min(h)));
    }
    if c.landed.is_none() && (state.on_ground || state.in_water) {
        c.landed = Some((now, feet));
    }
    if c.pour.is_none() && c.landed.is_none() && c.missed.is_none() {
        aim_and_pour(world, bot, &mut c, now);
    }
    if let Some(p) = c.pour.as_mut()
        && c.poured.is_none()
    {
        c.poured = advance(world, bot, p, now);
    }
    let placed = c.pour.as_ref().is_some_and(Bucket::confirmed);
    if placed && c.fill.is_none() && c.filled.is_none() && c.landed.is_some() && c.poured.is_some() {
        start_refill(world, bot, &mut c, now);
    }
    if let Some(f) = c.fill.as_mut()
        && c.filled.is_none()
    {
        c.filled = advance(world, bot, f, now);
    }
    let end = c.landed.is_some_and(|(at, _)| now >= at + HURT_TICKS)
        && (c.pour.is_none() || c.poured.is_some())
        && (!placed || c.filled.is_some());
    let verdict = end.then(|| verdict(&c));
    if let Some(mut slot) = world.get_mut::<Clutching>(bot) {
        *slot = c;
    }
    if let Some((status, reason)) = verdict {
        end_action(world, bot, USE_SLOT.name, status, reason);
    }
}

/// `done` when the water was placed and the landing cost nothing; otherwise why not.
fn verdict(c: &Clutching) -> (ActionStatus, Option<String>) {
    let placed = c.pour.as_ref().is_some_and(Bucket::confirmed);
    let damage = c.damage();
    if placed && damage == 0.0 {
        return (ActionStatus::Done, None);
    }
    let why = if let Some(m) = &c.missed {
        m.clone()
    } else if let Some((_, Some(r))) = &c.poured {
        format!("the water was not placed: {r}")
    } else if !placed {
        "the water was not placed".to_owned()
    } else {
        format!("the landing cost {damage} health despite the water")
    };
    (ActionStatus::Failed, Some(why))
}

/// Falling: once the bucket is in hand and the landing block's top face is in reach, clicks it.
fn aim_and_pour(world: &mut World, bot: Entity, c: &mut Clutching, now: u64) {
    let course = predict_fall(world, bot, look(world, bot), HORIZON);
    let landing = match course {
        FallCourse::Lands { ticks, support, .. } => Landing { ticks, support },
        FallCourse::Broken { .. } | FallCourse::Unknown => return,
    };
    if let Some(job) = c.equip {
        let outcome = world.get::<InventoryJobs>(bot).and_then(|j| job_outcome(j, job));
        match outcome {
            Some(Ok(())) => c.equip = None,
            Some(Err(e)) => {
                c.missed = Some(e);
                return;
            }
            None => {
                if landing.ticks <= 1 {
                    c.missed = Some("the water bucket was not in hand before the landing".into());
                }
                return;
            }
        }
    }
    let held_water =
        world.get::<Inventory>(bot).and_then(Inventory::held).is_some_and(|h| h.name.as_ref() == WATER_BUCKET);
    if !held_water {
        match hold_item_of(world, bot, WATER_BUCKET) {
            Ok(Ready::Now) => {}
            Ok(Ready::Job(j)) => {
                c.equip = Some(j);
                return;
            }
            Err(e) => {
                c.missed = Some(e.message);
                return;
            }
        }
    }
    let support = landing.support;
    let water = [support[0], support[1] + 1, support[2]];
    let target = Senses::of_bot(world, bot).and_then(|s| {
        let cell_id = s.id_at(water)?;
        let support_id = s.id_at(support)?;
        let air = cell_id == s.world.air_id() || s.ids.is_air(cell_id);
        if !air {
            return Err(clawcraft_core::CommandError::new(
                "OCCUPIED",
                format!("{} is above the landing block, no room for water", s.name(cell_id)),
            ));
        }
        Ok((aim_down(&s, support), support_id, s.name(cell_id)))
    });
    let (aim, support_id, before) = match target {
        Ok(t) => t,
        Err(e) => {
            c.missed = Some(e.message);
            return;
        }
    };
    let aim = match aim {
        Ok(a) => a,
        Err(e) => {
            // Not yet in reach: a later tick is closer, unless this is the last one.
            if landing.ticks <= 1 {
                c.missed = Some(format!("the landing block was never in reach before the landing ({})", e.message));
            }
            return;
        }
    };
    turn_to(world, bot, aim.point);
    c.lead_ticks = Some(landing.ticks);
    c.reach = Some(aim.distance);
    let click = BucketClick {
        mode: Mode::Empty,
        pos: water,
        clicked: support,
        clicked_id: support_id,
        aim,
        liquid: "water",
        before,
    };
    c.pour = Some(Bucket::new(click, Ready::Now, now));
}

/// Landed with the water placed: fills the bucket again from it.
fn start_refill(world: &mut World, bot: Entity, c: &mut Clutching, now: u64) {
    let Some(cell) = c.pour.as_ref().map(|p| p.click.pos) else { return };
    let found = Senses::of_bot(world, bot).and_then(|s| {
        let id = s.id_at(cell)?;
        if source_liquid(&s, id) != Some("water") {
            return Err(clawcraft_core::CommandError::new(
                "NOT_A_SOURCE",
                format!("{} is in the water cell now", s.name(id)),
            ));
        }
        let aim = aim_at_through(&s, cell, None, bucket_obstacle(&s))?;
        Ok((id, aim, s.name(id)))
    });
    let (id, aim, before) = match found {
        Ok(f) => f,
        Err(e) => {
            c.filled = Some((ActionStatus::Failed, Some(e.message)));
            return;
        }
    };
    let ready = match hold_item_of(world, bot, BUCKET) {
        Ok(r) => r,
        Err(e) => {
            c.filled = Some((ActionStatus::Failed, Some(e.message)));
            return;
        }
    };
    turn_to(world, bot, aim.point);
    let click =
        BucketClick { mode: Mode::Fill, pos: cell, clicked: cell, clicked_id: id, aim, liquid: "water", before };
    c.fill = Some(Bucket::new(click, ready, now));
}

/// One tick of a bucket use of the clutch's.
fn advance(world: &mut World, bot: Entity, b: &mut Bucket, now: u64) -> Option<(ActionStatus, Option<String>)> {
    let mut q = world.query::<(&Inventory, &InventoryJobs, &mut Connection, &EntityIds, &Position)>();
    let (inv, jobs, mut conn, ids, pos) = q.get_mut(world, bot).ok()?;
    advance_bucket(b, inv, jobs, &mut conn, ids.runtime_id, pos.0, now)
}
