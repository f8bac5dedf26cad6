//! `fight`: fight an entity until it is dead, the bot's health falls below a threshold, or a time
//! limit — on Bedrock's rules.
//!
//! - **Weapon**: the inventory's item with the highest Bedrock attack damage ([`crate::data`]) is
//!   taken in hand first: from the hotbar by a MobEquipment (a player's hotbar key), from the main
//!   inventory by an item-stack swap into the held slot, and no hit goes out before the server
//!   confirmed that swap.
//! - **Approach and face**: each tick the bot walks toward the target (auto-jumping a one-block
//!   step) until it is within [`APPROACH`] blocks, and looks at the middle of its hit box.
//! - **Timing**: Bedrock has no attack cooldown, but a hit entity is invulnerable for
//!   [`HIT_INTERVAL`] ticks (a hit then only counts when stronger, as the difference). So the bot
//!   hits once in reach and then every [`HIT_INTERVAL`] ticks: no swing is wasted on an
//!   invulnerable target.
//! - **Critical hits**: a hit while falling does ×1.5 on Bedrock. With `crits` (the default) the
//!   bot jumps [`JUMP_LEAD`] ticks before a hit is due and holds the hit while still rising (at
//!   most [`MAX_CRIT_WAIT`] ticks), so it lands on the way down. The server's `critical_hit`
//!   animation for the target is counted as `crits`.
//! - **Retreat**: once the bot's health falls below `minHealth` it runs away from the target for
//!   [`RETREAT_TICKS`] and ends `failed`, `low_health`. The way is the `flee` planner's
//!   ([`Goal::Away`]: any position [`RETREAT_DISTANCE`] from the target), so a wall behind the bot
//!   is walked around; re-planned when the target moved [`RETREAT_MOVED`] blocks. While the first
//!   plan is searched, or when there is none, the bot runs straight away from the target.
//!
//! `fight_done` carries what the server showed: hits sent, hurt animations, critical hits,
//! damage dealt (the target's health drops from its UpdateAttributes), damage taken (the bot's own
//! health drops), and `killed` (death animation, health 0, or removal after a hurt).

use bevy_ecs::prelude::*;
use bevy_ecs::world::EntityRef;
use clawcraft_core::{
    ActionSlot, ActionStatus, ActiveActions, AgentCommand, AsyncAction, AsyncInfo, CommandCtx, CommandError,
    EYE_HEIGHT, EndActionExt, EntityIds, Outcome, Position, TickCount, Vec3,
};
use clawcraft_entity::{EntityPosition, SeenBy};
use clawcraft_interact::common::Ready;
use clawcraft_interact::common::{EntityClick, HandBorrowed, click_entity, hand_free_of};
use clawcraft_inventory::{INVENTORY_SLOTS, Inventory, InventoryJobs};
use clawcraft_movement::{MovementIntent, Mover, yaw_toward};
use clawcraft_network::{ClientboundPacket, Connection};
use clawcraft_pathfind::plan::Request;
use clawcraft_pathfind::walk::Tick;
use clawcraft_pathfind::{Goal, Navigator, Options, WALK_SLOT};
use clawcraft_protocol::packets::{Animate, EntityEvent, RemoveEntity, UpdateAttributes};
use clawcraft_vitals::Vitals;
use clawcraft_world::chunk::World as ChunkWorld;
use clawcraft_world::ids::BlockIds;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::data::attack_damage;
use crate::target::{Target, find_or_err};

/// The `fight` slot: the fight moves the body and uses the hand.
pub const FIGHT_SLOT: ActionSlot = ActionSlot::new("fight", "abort_fight", "Not fighting");

/// Ticks a hit entity stays invulnerable on Bedrock: the bot hits at this interval.
pub const HIT_INTERVAL: u64 = 10;
/// A hit is sent when the eye is this close (blocks) to the middle of the target's hit box
/// (Bedrock's survival melee reach is 3 blocks).
pub const REACH: f64 = 3.0;
/// The bot walks toward the target until this close (blocks, horizontally).
pub const APPROACH: f64 = 1.8;
/// For a critical hit the bot jumps this many ticks before the hit is due: a jump (0.42 up,
/// gravity 0.08, drag 0.98) turns to falling on its 6th-7th tick.
pub const JUMP_LEAD: u64 = 7;
/// A due hit waits at most this long for the bot to start falling.
pub const MAX_CRIT_WAIT: u64 = 4;
/// Ticks the bot runs from the target once its health is low.
pub const RETREAT_TICKS: u64 = 40;
/// The retreat's goal: any position this far (blocks) from the target.
pub const RETREAT_DISTANCE: f64 = 12.0;
/// The target moved this far (blocks) from where the retreat was planned: plan again.
pub const RETREAT_MOVED: f64 = 1.5;
/// Default `minHealth`: three hearts.
pub const DEFAULT_MIN_HEALTH: f64 = 6.0;
/// Default and largest `seconds`.
pub const DEFAULT_SECONDS: f64 = 60.0;
pub const MAX_SECONDS: f64 = 600.0;
/// A target farther than this (blocks) is not fought: walk closer first.
pub const MAX_START_DISTANCE: f64 = 32.0;

/// The retreat's way: the path away from where the target was when it was planned.
#[derive(Debug)]
struct Retreat {
    nav: Navigator,
    from: Vec3,
}

/// The running `fight`.
#[derive(Component, Debug)]
pub struct Fighting {
    pub target: Target,
    /// The entity plugin's entity of the target.
    entity: Entity,
    unique_id: i64,
    height: f64,
    min_health: f64,
    crits_on: bool,
    /// The fight gives up at this tick.
    limit: u64,
    /// The next hit is due at this tick.
    next_hit: u64,
    pub hits: u32,
    pub hurts: u32,
    pub crits: u32,
    pub dealt: f64,
    target_health: Option<f64>,
    pub taken: f64,
    health: Option<f64>,
    pub killed: bool,
    pub weapon: Option<String>,
    /// The swap bringing the weapon from the main inventory (inventory job id), until confirmed.
    equipping: Option<u64>,
    retreat_until: Option<u64>,
    /// The planned way away (None: not planned yet, or no way found: straight away).
    retreat: Option<Retreat>,
    /// No way away was found: run straight away.
    retreat_unplanned: bool,
    last_seen: Vec3,
}

/// `fight_done`.
#[derive(Serialize, JsonSchema, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct FightDone {
    pub entity: Target,
    /// True when the server showed the target's death (death animation, health 0, or removal
    /// after a hurt).
    pub killed: bool,
    /// Attacks sent.
    pub hits: u32,
    /// The server's hurt animations for the target (hits that did damage).
    pub hurts: u32,
    /// The server's critical-hit animations for the target.
    pub crits: u32,
    /// Health the target lost, from the health the server sent for it (0 when it sent none).
    pub damage_dealt: f64,
    /// Health the bot lost during the fight.
    pub damage_taken: f64,
    /// The bot's health at the end.
    pub health: f64,
    /// The item held for the fight (`null`: the hand).
    pub weapon: Option<String>,
    /// True when the bot ran from the target because its health was low.
    pub retreated: bool,
    /// Where the target was last seen.
    pub target_pos: Vec3,
}
clawcraft_core::evidence!(
    FightDone,
    "fight_done",
    "A fight ended: killed (done), low_health after a retreat, time_limit, target_lost; hits, hurts, crits, damage dealt and taken as the server showed them"
);

fn round2(v: f64) -> f64 {
    (v * 100.0).round() / 100.0
}

impl AsyncAction for Fighting {
    const SLOT: ActionSlot = FIGHT_SLOT;
    type Evidence = FightDone;

    fn evidence(&self, _outcome: &Outcome, bot: EntityRef<'_>) -> FightDone {
        FightDone {
            entity: self.target.clone(),
            killed: self.killed,
            hits: self.hits,
            hurts: self.hurts,
            crits: self.crits,
            damage_dealt: round2(self.dealt),
            damage_taken: round2(self.taken),
            health: bot.get::<Vitals>().map_or(0.0, |v| round2(v.health)),
            weapon: self.weapon.clone(),
            retreated: self.retreat_until.is_some(),
            target_pos: Vec3::new(round2(self.last_seen.x), round2(self.last_seen.y), round2(self.last_seen.z)),
        }
    }
}

/// `fight`.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct Fight {
    /// A player name, a mob name (`zombie`, `minecraft:zombie`) or custom name, or a runtime id.
    pub entity: Value,
    /// Retreat and stop when the bot's health falls below this (default 6, three hearts; 0 never).
    pub min_health: Option<f64>,
    /// Give up after this many seconds (default 60, at most 600).
    pub seconds: Option<f64>,
    /// Jump so hits land while falling, Bedrock's ×1.5 critical hit (default true).
    pub crits: Option<bool>,
}

/// Response of `fight`.
#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct FightResponse {
    /// True: the fight runs (the verdict is `fight_done`).
    pub fighting: bool,
    pub entity: Target,
    /// From your feet to the target's.
    pub distance: f64,
    /// The item held for the fight (`null`: the hand).
    pub weapon: Option<String>,
    /// True when a better weapon was taken in hand for it.
    pub switched: bool,
}

/// The inventory slot (hotbar first on a tie) holding the strongest weapon, when it beats what
/// is held.
pub fn best_weapon(inv: &Inventory) -> Option<u8> {
    let held = attack_damage(inv.held().map(|i| &*i.name));
    (0..INVENTORY_SLOTS as u8)
        .filter_map(|s| inv.slots.get(usize::from(s))?.as_ref().map(|i| (s, attack_damage(Some(&i.name)))))
        .filter(|(_, d)| *d > held)
        .max_by(|a, b| a.1.total_cmp(&b.1).then(b.0.cmp(&a.0)))
        .map(|(s, _)| s)
}

/// How the best weapon was taken in hand.
enum Switch {
    /// What is held is the best there is.
    Kept,
    /// A hotbar slot was selected.
    Held,
    /// A swap from the main inventory is on its way (inventory job id).
    Swapping(u64, String),
}

/// Takes the best weapon in hand with interact's `hold_item_of`: a hotbar slot is selected at
/// once, an item of the main inventory is swapped into the held slot by an inventory job.
fn take_best_weapon(world: &mut World, bot: Entity) -> Result<Switch, CommandError> {
    let Some(inv) = world.get::<Inventory>(bot).filter(|i| i.synced) else { return Ok(Switch::Kept) };
    let Some(slot) = best_weapon(inv) else { return Ok(Switch::Kept) };
    let name = inv.slots[usize::from(slot)].as_ref().map(|i| i.name.to_string()).unwrap_or_default();
    match clawcraft_interact::common::hold_item_of(world, bot, &name)? {
        Ready::Job(job) => Ok(Switch::Swapping(job, name)),
        Ready::Now => Ok(Switch::Held),
    }
}

impl AgentCommand for Fight {
    const NAME: &'static str = "fight";
    const SUMMARY: &'static str = "Fight an entity (name or runtime id) until it dies, your health falls below minHealth (retreat), or seconds pass: best weapon of the inventory in hand, approach, hits on Bedrock's invulnerability timing, critical hits; async, ends in fight_done";
    const EXAMPLE: &'static str = r#"{"action":"fight","entity":"zombie","minHealth":8}"#;
    const ASYNC: Option<AsyncInfo> = Some(AsyncInfo::of::<Fighting>());
    type Response = FightResponse;

    fn run(self, ctx: &mut CommandCtx<'_>) -> Result<FightResponse, CommandError> {
        hand_free_of(ctx.world, ctx.bot)?;
        clawcraft_core::action::refuse_if_busy(ctx.world, ctx.bot, WALK_SLOT.name)?;
        let min_health = self.min_health.unwrap_or(DEFAULT_MIN_HEALTH);
        if !(0.0..=40.0).contains(&min_health) {
            return Err(CommandError::out_of_range("minHealth must be within 0-40"));
        }
        let seconds = self.seconds.unwrap_or(DEFAULT_SECONDS);
        if !(seconds > 0.0 && seconds <= MAX_SECONDS) {
            return Err(CommandError::out_of_range(format!("seconds must be within 0-{MAX_SECONDS}")));
        }
        let feet = ctx.world.get::<Position>(ctx.bot).ok_or_else(CommandError::not_spawned)?.0;
        let found = find_or_err(ctx.world, ctx.bot, &self.entity, feet)?;
        let distance = round2(found.pos.distance(feet));
        if distance > MAX_START_DISTANCE {
            return Err(CommandError::new(
                "OUT_OF_REACH",
                format!(
                    "{} is {distance} blocks away; fight starts within {MAX_START_DISTANCE} (walk closer first)",
                    found.target.name
                ),
            ));
        }
        let (switched, equipping, weapon) = match take_best_weapon(ctx.world, ctx.bot)? {
            Switch::Swapping(job, name) => (true, Some(job), Some(name)),
            held => (
                matches!(held, Switch::Held),
                None,
                ctx.world.get::<Inventory>(ctx.bot).and_then(|i| i.held().map(|i| i.name.to_string())),
            ),
        };
        let now = ctx.world.get_resource::<TickCount>().map_or(0, |t| t.0);
        let limit_ticks = (seconds * 20.0).ceil() as u64;
        let fighting = Fighting {
            target: found.target.clone(),
            entity: found.entity,
            unique_id: found.unique_id,
            height: found.height,
            min_health,
            crits_on: self.crits.unwrap_or(true),
            limit: now + limit_ticks,
            next_hit: now,
            hits: 0,
            hurts: 0,
            crits: 0,
            dealt: 0.0,
            target_health: None,
            taken: 0.0,
            health: ctx.world.get::<Vitals>(ctx.bot).map(|v| v.health),
            killed: false,
            weapon: weapon.clone(),
            equipping,
            retreat_until: None,
            retreat: None,
            retreat_unplanned: false,
            last_seen: found.pos,
        };
        ctx.start(Self::NAME, fighting, limit_ticks + RETREAT_TICKS + 100)?;
        ctx.world.entity_mut(ctx.bot).insert(HandBorrowed(FIGHT_SLOT.name));
        Ok(FightResponse { fighting: true, entity: found.target, distance, weapon, switched })
    }
}

/// The server's signs about the target: hurt and death animations, health, critical hits,
/// removal.
pub fn watch_fights(mut packets: MessageReader<ClientboundPacket>, mut bots: Query<&mut Fighting>) {
    for pkt in packets.read() {
        let Ok(mut f) = bots.get_mut(pkt.bot) else { continue };
        let rid = f.target.runtime_id;
        if let Some(e) = pkt.view::<EntityEvent>() {
            if e.runtime_entity_id == rid {
                match e.event_id.as_str() {
                    "hurt_animation" => f.hurts += 1,
                    "death_animation" => f.killed = true,
                    _ => {}
                }
            }
        } else if let Some(u) = pkt.view::<UpdateAttributes>() {
            if u.runtime_entity_id == rid
                && let Some(h) = u.attributes.iter().find(|x| x.name == "minecraft:health")
            {
                let now = f64::from(h.current);
                let before = f.target_health.unwrap_or(f64::from(h.max));
                if now < before {
                    f.dealt += before - now;
                }
                f.target_health = Some(now);
                if now <= 0.0 {
                    f.killed = true;
                }
            }
        } else if let Some(a) = pkt.view::<Animate>() {
            if a.runtime_entity_id == rid && a.action_id == "critical_hit" {
                f.crits += 1;
            }
        } else if let Some(r) = pkt.view::<RemoveEntity>()
            && r.entity_id_self == f.unique_id
            && f.hurts > 0
        {
            f.killed = true;
        }
    }
}

/// What a tick of the fight decided.
enum Step {
    Go(MovementIntent),
    /// Run from the target, which is at `.0`.
    Retreat(Vec3),
    End(ActionStatus, Option<String>),
}

/// One tick of a fight: the intent, and whether to hit now.
#[allow(clippy::too_many_arguments)]
fn decide(
    f: &mut Fighting,
    now: u64,
    feet: Vec3,
    mover: &Mover,
    vitals: Option<&Vitals>,
    target: Option<Vec3>,
    walking: bool,
) -> (Step, bool) {
    if let Some(v) = vitals {
        if let Some(before) = f.health
            && v.health < before
        {
            f.taken += before - v.health;
        }
        f.health = Some(v.health);
    }
    if f.killed {
        return (Step::End(ActionStatus::Done, None), false);
    }
    let Some(at) = target else {
        // Gone from sight: a hurt target that disappears died (its removal after the death).
        if f.hurts > 0 {
            f.killed = true;
            return (Step::End(ActionStatus::Done, None), false);
        }
        return (Step::End(ActionStatus::Failed, Some("target_lost".into())), false);
    };
    f.last_seen = at;
    if walking {
        return (Step::End(ActionStatus::Failed, Some("walk_started".into())), false);
    }
    if let Some(until) = f.retreat_until {
        if now >= until {
            return (Step::End(ActionStatus::Failed, Some("low_health".into())), false);
        }
        return (Step::Retreat(at), false);
    }
    if now >= f.limit {
        return (Step::End(ActionStatus::Failed, Some("time_limit".into())), false);
    }
    if vitals.is_some_and(|v| v.alive && v.health < f.min_health) {
        f.retreat_until = Some(now + RETREAT_TICKS);
        return (Step::Retreat(at), false);
    }
    let eye = feet.offset_y(EYE_HEIGHT);
    let aim = at.offset_y(f.height * 0.5);
    let flat = ((at.x - feet.x).powi(2) + (at.z - feet.z).powi(2)).sqrt();
    let state = &mover.state;
    let mut intent =
        MovementIntent { look: Some(clawcraft_player::look_angles(eye, aim)), ..MovementIntent::default() };
    if flat > APPROACH {
        intent.direction = Some(yaw_toward(at.x - feet.x, at.z - feet.z));
        intent.sprint = flat > 4.0;
        intent.jump = state.horizontal_collision && state.on_ground;
    }
    let in_reach = eye.distance(aim) <= REACH;
    let falling = !state.on_ground && state.velocity.y < 0.0;
    let rising = !state.on_ground && state.velocity.y >= 0.0;
    if f.crits_on && in_reach && state.on_ground && now + JUMP_LEAD >= f.next_hit && !state.in_water {
        intent.jump = true;
    }
    let hit = in_reach && now >= f.next_hit && !(f.crits_on && rising && now < f.next_hit + MAX_CRIT_WAIT);
    if hit {
        tracing::debug!(falling, tick = now, "fight: hit");
    }
    (Step::Go(intent), hit)
}

/// The intent that runs from `from`, looking where it goes.
fn away(feet: Vec3, from: Vec3) -> MovementIntent {
    let (dx, dz) = (feet.x - from.x, feet.z - from.z);
    let (dx, dz) = if dx.abs() + dz.abs() < 1e-6 { (1.0, 0.0) } else { (dx, dz) };
    MovementIntent { direction: Some(yaw_toward(dx, dz)), sprint: true, ..MovementIntent::default() }
}

/// One tick of the retreat from the target at `at`: the planned way, else straight away.
fn retreat_intent(
    f: &mut Fighting,
    now: u64,
    feet: Vec3,
    at: Vec3,
    mover: &Mover,
    world: Option<(&ChunkWorld, &BlockIds)>,
) -> MovementIntent {
    let Some((world, ids)) = world.filter(|_| !f.retreat_unplanned) else { return away(feet, at) };
    let idle = f.retreat.as_ref().is_none_or(|r| r.nav.pending.is_none());
    if idle && f.retreat.as_ref().is_none_or(|r| r.from.distance(at) > RETREAT_MOVED) {
        let goal = Goal::Away { x: at.x, y: at.y, z: at.z, distance: RETREAT_DISTANCE };
        let req = Request::from_feet(feet, goal, Options { sprint: true, ..Options::default() });
        let nav = Navigator::planned(req, now, mover.teleports, world, ids);
        f.retreat = Some(Retreat { nav, from: at });
    }
    let Some(r) = f.retreat.as_mut() else { return away(feet, at) };
    r.nav.now = now;
    // Plans go to no request: the responses stay empty.
    match r.nav.tick(feet, mover, world, ids, &[], &mut Vec::new()) {
        Tick::Go(i) => i,
        // Far enough: stand until the target comes closer (it moved: a new plan).
        Tick::Arrived => MovementIntent::default(),
        Tick::Wait => away(feet, at),
        // No way (or one that would change the world, which the options rule out).
        Tick::Fail(_) | Tick::Work(_) => {
            tracing::debug!("retreat: no way planned, running straight away");
            f.retreat = None;
            f.retreat_unplanned = true;
            away(feet, at)
        }
    }
}

/// Steps every fight one tick: moves, hits on time, ends.
#[allow(clippy::type_complexity)]
pub fn step_fights(
    mut commands: Commands,
    ticks: Res<TickCount>,
    mut bots: Query<(
        Entity,
        &mut Fighting,
        &Position,
        &Mover,
        &mut MovementIntent,
        &mut Connection,
        &EntityIds,
        Option<&Inventory>,
        Option<&Vitals>,
        Option<&ActiveActions>,
        Option<&InventoryJobs>,
        Option<(&ChunkWorld, &BlockIds)>,
    )>,
    targets: Query<(&EntityPosition, &SeenBy)>,
) {
    let now = ticks.0;
    for (bot, mut f, pos, mover, mut intent, mut conn, ids, inv, vitals, actions, jobs, world) in &mut bots {
        let target = targets.get(f.entity).ok().filter(|(_, seen)| seen.0 == bot).map(|(p, _)| p.0);
        let walking = actions.is_some_and(|a| a.is_busy(WALK_SLOT.name));
        if let Some(job) = f.equipping {
            match jobs.and_then(|j| clawcraft_interact::common::job_outcome(j, job)) {
                // The weapon is not in hand yet: approach, but hold the hit.
                None => f.next_hit = f.next_hit.max(now + 1),
                Some(Ok(())) => f.equipping = None,
                Some(Err(reason)) => {
                    tracing::debug!(reason, "fight: weapon swap refused, fighting with what is held");
                    f.equipping = None;
                    f.weapon = inv.and_then(|i| i.held().map(|i| i.name.to_string()));
                }
            }
        }
        let (step, hit) = decide(&mut f, now, pos.0, mover, vitals, target, walking);
        match step {
            Step::Go(i) => *intent = i,
            Step::Retreat(at) => *intent = retreat_intent(&mut f, now, pos.0, at, mover, world),
            Step::End(status, reason) => {
                commands.end_action(bot, FIGHT_SLOT.name, status, reason);
                continue;
            }
        }
        if hit {
            let aim = f.last_seen.offset_y(f.height * 0.5);
            let eye = pos.0.offset_y(EYE_HEIGHT);
            click_entity(&mut conn, ids.runtime_id, inv, eye, f.target.runtime_id, aim, EntityClick::Attack);
            f.hits += 1;
            f.next_hit = now + HIT_INTERVAL;
        }
    }
}

/// Gives the hand back when a fight ended (however it ended).
pub fn release_hand(
    mut commands: Commands,
    mut removed: RemovedComponents<Fighting>,
    bots: Query<&HandBorrowed, Without<Fighting>>,
) {
    for bot in removed.read() {
        if bots.get(bot).is_ok_and(|h| h.0 == FIGHT_SLOT.name) {
            commands.entity(bot).remove::<HandBorrowed>();
        }
    }
}
