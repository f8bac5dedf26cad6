//! `shoot`: draw a bow and release it at an entity (leading its motion) or a point.
//!
//! - **The bow and arrows**: the bow is taken in hand (hotbar pick or a swap from the main
//!   inventory); at least one arrow must be in the inventory.
//! - **Draw**: a `click_air` item use with the bow plus the `start_using_item` input flag, then
//!   `ticks` ticks (default 20, a full draw) later an `item_release` transaction. The server's
//!   force is `min((f² + 2f) / 3, 1)` with `f = ticks / 20` (dragonfly `item/bow.go`, PocketMine
//!   `Bow`); under [`MIN_DRAW`] ticks no arrow leaves.
//! - **Aim with lead**: each tick of the draw the bot turns to where the arrow meets the target:
//!   the arrow's flight is simulated with the servers' projectile model ([`ArrowModel`]: move,
//!   then drag 0.99 and gravity 0.05 a tick) and the aim point is the target's position plus its
//!   velocity times (ticks to the release + the flight time), iterated until the flight time
//!   settles. The release goes out the tick after the last turn, so the server reads the aim from
//!   the input before it.
//! - **Several shots** (`times`, default 1): once the server took the arrow of a shot the next
//!   draw starts, re-aimed with lead; the sequence stops early when the target died (health 0 or
//!   its death animation), is gone, or the arrows ran out.
//! - **Cancelling a draw**: an action that ends mid-draw (abort, target lost or dead) switches the
//!   held slot to the next hotbar slot and straight back (two MobEquipment). A release would shoot
//!   (dragonfly's `ReleaseItem`, reached from an `item_release` transaction and from PlayerAction
//!   `stop_item_use_on`, fires the bow with the time drawn); a held-slot change ends the use
//!   without releasing it (dragonfly `Player.SetHeldSlot` clears `usingItem`); PlayerAuthInput has
//!   no flag that stops a use. UNCERTAIN for BDS: only dragonfly's source and our peer settle it.
//! - **Receipt** `shoot_done`: shots asked and made, hits, arrows before/after/used (the inventory
//!   the server confirmed), the draw ticks, the last aim yaw/pitch and lead (blocks between the aim
//!   point and where the target was at the release), the last arrow entity the server spawned,
//!   `hit` when the target's hurt animation came within a shot's expected flight (+ a second), why
//!   the shots stopped early, and whether a draw was cancelled.

use bevy_ecs::prelude::*;
use bevy_ecs::world::EntityRef;
use clawcraft_core::{
    ActionSlot, ActionStatus, AgentCommand, AsyncAction, AsyncInfo, CommandCtx, CommandError, EYE_HEIGHT, EndActionExt,
    EntityIds, Outcome, Position, Rotation, TickCount, Vec3,
};
use clawcraft_entity::{EntityPosition, EntityVelocity, MotionTrack, SeenBy};
use clawcraft_interact::common::{
    HandBorrowed, Ready, click_air, hand_free_of, hold_item_of, inventory_of, job_outcome, release,
};
use clawcraft_inventory::{HOTBAR_SLOTS, Inventory, InventoryJobs, equipment_packet};
use clawcraft_network::{ClientboundPacket, Connection};
use clawcraft_pathfind::WALK_SLOT;
use clawcraft_player::InputExtras;
use clawcraft_protocol::packets::{AddEntity, EntityEvent, UpdateAttributes};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::FIGHT_SLOT;
use crate::target::{Target, find_or_err};

/// The `shoot` slot: the draw holds the hand and the look.
pub const SHOOT_SLOT: ActionSlot = ActionSlot::new("shoot", "abort_shoot", "Not shooting");

/// Fewest draw ticks that shoot: PocketMine refuses under 5, dragonfly under 3 (the stricter).
pub const MIN_DRAW: u32 = 5;
/// A full draw.
pub const FULL_DRAW: u32 = 20;
/// Longest draw accepted.
pub const MAX_DRAW: u32 = 100;
/// Farthest target accepted (blocks).
pub const MAX_RANGE: f64 = 64.0;
/// Ticks after the expected flight to wait for the hit.
const HIT_GRACE: u64 = 20;
/// Ticks after the release to wait for the arrow to leave the inventory.
const SHOT_WAIT: u64 = 20;
/// Ticks to wait for a bow swapped in from the main inventory.
const EQUIP_TICKS: u64 = 60;
/// Most shots one `shoot` makes (a stack of arrows).
pub const MAX_TIMES: u32 = 64;

/// An arrow's flight as Bedrock servers move it: each tick the arrow moves by its velocity, then
/// the velocity is scaled by `1 − drag` and loses `gravity` downwards.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ArrowModel {
    /// Blocks a tick at full draw. UNCERTAIN: PocketMine (and Java) give force × 3, dragonfly
    /// force × 5; 3 is used and the peer's scenario models the same (see its README).
    pub full_speed: f64,
    pub gravity: f64,
    pub drag: f64,
}

impl Default for ArrowModel {
    fn default() -> Self {
        Self { full_speed: 3.0, gravity: 0.05, drag: 0.01 }
    }
}

/// The bow's force after `ticks` of drawing: `min((f² + 2f) / 3, 1)`, `f = ticks / 20`.
pub fn draw_force(ticks: u32) -> f64 {
    let f = f64::from(ticks) / 20.0;
    ((f * f + 2.0 * f) / 3.0).min(1.0)
}

/// The unit direction of a Bedrock look (degrees; yaw 0 faces +Z, positive pitch looks down).
pub fn look_dir(yaw: f64, pitch: f64) -> Vec3 {
    let (y, p) = (yaw.to_radians(), pitch.to_radians());
    Vec3::new(-y.sin() * p.cos(), -p.sin(), y.cos() * p.cos())
}

impl ArrowModel {
    /// The arrow's positions after each tick (index 0 = after the first move), from `from` with
    /// `speed` along the look, for `ticks` ticks.
    pub fn path(&self, from: Vec3, yaw: f64, pitch: f64, speed: f64, ticks: usize) -> Vec<Vec3> {
        let d = look_dir(yaw, pitch);
        let (mut p, mut v) = (from, Vec3::new(d.x * speed, d.y * speed, d.z * speed));
        let mut out = Vec::with_capacity(ticks);
        for _ in 0..ticks {
            p = Vec3::new(p.x + v.x, p.y + v.y, p.z + v.z);
            out.push(p);
            let k = 1.0 - self.drag;
            v = Vec3::new(v.x * k, v.y * k - self.gravity, v.z * k);
        }
        out
    }

    /// Where an arrow shot at `pitch` crosses the horizontal distance `dist`: `(height above the
    /// start, fractional ticks)`, or None when it falls short within `MAX_FLIGHT` ticks.
    fn crossing(&self, pitch: f64, speed: f64, dist: f64) -> Option<(f64, f64)> {
        const MAX_FLIGHT: usize = 200;
        let path = self.path(Vec3::ZERO, 0.0, pitch, speed, MAX_FLIGHT);
        let mut prev = Vec3::ZERO;
        for (i, p) in path.iter().enumerate() {
            if p.z >= dist {
                let span = p.z - prev.z;
                let t = if span > 0.0 { (dist - prev.z) / span } else { 1.0 };
                return Some((prev.y + (p.y - prev.y) * t, i as f64 + t));
            }
            if p.y < -1000.0 {
                return None;
            }
            prev = *p;
        }
        None
    }

    /// The pitch (low arc) that brings an arrow from the origin to `dy` above it at horizontal
    /// distance `dist`, with its flight ticks; None when out of range.
    pub fn pitch_for(&self, dist: f64, dy: f64, speed: f64) -> Option<(f64, f64)> {
        // Height at the distance rises with the pitch going up (more negative) to the low arc's top.
        let (mut down, mut up) = (89.0_f64, -45.0_f64);
        let height = |p: f64| self.crossing(p, speed, dist).map(|c| c.0);
        if height(up).is_none_or(|h| h < dy) {
            return None;
        }
        for _ in 0..60 {
            let mid = (down + up) / 2.0;
            match height(mid) {
                Some(h) if h >= dy => up = mid,
                _ => down = mid,
            }
        }
        let (_, t) = self.crossing(up, speed, dist)?;
        Some((up, t))
    }

    /// Aim from `eye` at a target now at `at` moving `vel` (blocks a tick) when the arrow leaves
    /// `delay` ticks from now: `(yaw, pitch, flight ticks, aim point)`. The aim point is iterated
    /// until the flight time settles.
    pub fn lead(&self, eye: Vec3, at: Vec3, vel: Vec3, delay: f64, speed: f64) -> Option<(f64, f64, f64, Vec3)> {
        let mut flight = 0.0;
        let mut aim = at;
        for _ in 0..8 {
            let t = delay + flight;
            aim = Vec3::new(at.x + vel.x * t, at.y + vel.y * t, at.z + vel.z * t);
            let (dx, dz) = (aim.x - eye.x, aim.z - eye.z);
            let (_, f) = self.pitch_for(dx.hypot(dz), aim.y - eye.y, speed)?;
            let settled = (f - flight).abs() < 0.01;
            flight = f;
            if settled {
                break;
            }
        }
        let (dx, dz) = (aim.x - eye.x, aim.z - eye.z);
        let (pitch, f) = self.pitch_for(dx.hypot(dz), aim.y - eye.y, speed)?;
        let yaw = (-dx).atan2(dz).to_degrees();
        Some((yaw, pitch, f, aim))
    }
}

/// What the bow is shot at.
#[derive(Debug, Clone)]
enum Aiming {
    Entity { entity: Entity, target: Target, height: f64 },
    Point(Vec3),
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Phase {
    Equipping(u64),
    Start,
    Drawing {
        since: u64,
    },
    /// Released; waiting for the server to take the arrow (`arrows` were in the inventory).
    Released {
        at: u64,
        arrows: u32,
    },
    /// No more draws; waiting for the hits of the arrows in the air.
    Finishing,
}

/// One release the server took an arrow for.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Shot {
    /// The release tick and the expected flight ticks.
    at: u64,
    flight: f64,
    hit: bool,
}

impl Shot {
    /// The last tick a hurt of the target counts as this arrow's hit.
    fn hit_deadline(&self) -> u64 {
        self.at + self.flight.ceil() as u64 + HIT_GRACE
    }
}

/// The bow is drawn at the server (a use started, not released): an end mid-draw cancels it.
#[derive(Component, Debug, Clone, Copy, PartialEq, Eq)]
pub struct BowDrawn;

/// The running `shoot`.
#[derive(Component, Debug, Clone)]
pub struct Shooting {
    aiming: Aiming,
    draw: u32,
    times: u32,
    phase: Phase,
    started: u64,
    model: ArrowModel,
    pub arrows_before: u32,
    pub yaw: f64,
    pub pitch: f64,
    pub lead: f64,
    pub flight: Option<f64>,
    pub arrow: Option<u64>,
    /// Releases the server took an arrow for, plus the one awaiting its arrow.
    shots: Vec<Shot>,
    /// Arrow entities the server spawned since the first release.
    arrows_seen: u32,
    pub damage: f64,
    target_health: Option<f64>,
    /// The server showed the target's death (health 0 or its death animation).
    target_dead: bool,
    /// Why the shots stopped before `times`.
    stopped: Option<&'static str>,
    /// Where the last turn aimed (the target's middle, led).
    aim_point: Vec3,
}

/// `shoot_done`.
#[derive(Serialize, JsonSchema, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct ShootDone {
    /// The entity shot at (null for a point).
    pub entity: Option<Target>,
    /// The point the last draw aimed at (with lead, at the middle of the target's box).
    pub aim_point: Vec3,
    /// Shots asked for.
    pub times: u32,
    /// Shots made: releases the server took an arrow for.
    pub shots: u32,
    /// Shots whose target was hurt within their flight (+ a second), as the server showed it.
    pub hits: u32,
    /// Arrows in the inventory before and after (as the server confirmed them), and the difference.
    pub arrows_before: u32,
    pub arrows_after: u32,
    pub arrows_used: u32,
    /// Ticks each draw lasted, and the force they give.
    pub draw_ticks: u32,
    pub force: f64,
    /// The look at the last release (degrees, Bedrock's: yaw 0 south, positive pitch down).
    pub yaw: f64,
    pub pitch: f64,
    /// Blocks between the last aim point and the target's position at the release (its motion led).
    pub lead: f64,
    /// Expected flight ticks of the last shot.
    pub flight_ticks: Option<f64>,
    /// The runtime id of the last arrow the server spawned (null when none was seen).
    pub arrow: Option<u64>,
    /// True when any shot hit (`hits` > 0).
    pub hit: bool,
    /// Health the target lost, from the health the server sent for it.
    pub damage: f64,
    /// Why the shots stopped before `times`: `target_dead`, `target_lost`, `no_arrows`, `no_bow`,
    /// `no_shot` (a release the server took no arrow for); null when all were made or on abort.
    pub stopped: Option<String>,
    /// True when it ended mid-draw: the draw was cancelled at the server (no arrow left).
    pub draw_cancelled: bool,
}
clawcraft_core::evidence!(
    ShootDone,
    "shoot_done",
    "Shots ended: done when the server took at least one arrow (shots of times, hits, arrowsBefore → arrowsAfter, arrowsUsed, stopped early why), with the draw, the last aim and its lead, the last arrow seen; failed no_shot / target_lost / no_bow otherwise; drawCancelled when it ended mid-draw"
);

fn round2(v: f64) -> f64 {
    (v * 100.0).round() / 100.0
}

fn arrows_in(inv: &Inventory) -> u32 {
    inv.count_of("minecraft:arrow")
}

fn holds_bow(inv: &Inventory) -> bool {
    inv.held().is_some_and(|i| &*i.name == "minecraft:bow")
}

impl AsyncAction for Shooting {
    const SLOT: ActionSlot = SHOOT_SLOT;
    type Evidence = ShootDone;

    fn evidence(&self, _outcome: &Outcome, bot: EntityRef<'_>) -> ShootDone {
        let after = bot.get::<Inventory>().map_or(self.arrows_before, arrows_in);
        let aim = self.aim_point_now();
        let hits = self.shots.iter().filter(|s| s.hit).count() as u32;
        ShootDone {
            entity: match &self.aiming {
                Aiming::Entity { target, .. } => Some(target.clone()),
                Aiming::Point(_) => None,
            },
            aim_point: Vec3::new(round2(aim.x), round2(aim.y), round2(aim.z)),
            times: self.times,
            shots: self.taken(),
            hits,
            arrows_before: self.arrows_before,
            arrows_after: after,
            arrows_used: self.arrows_before.saturating_sub(after),
            draw_ticks: self.draw,
            force: round2(draw_force(self.draw)),
            yaw: round2(self.yaw),
            pitch: round2(self.pitch),
            lead: round2(self.lead),
            flight_ticks: self.flight.map(round2),
            arrow: self.arrow,
            hit: hits > 0,
            damage: round2(self.damage),
            stopped: self.stopped.map(str::to_owned),
            draw_cancelled: matches!(self.phase, Phase::Drawing { .. }),
        }
    }
}

impl Shooting {
    fn aim_point_now(&self) -> Vec3 {
        match self.aiming {
            Aiming::Point(p) => p,
            Aiming::Entity { .. } => self.aim_point,
        }
    }

    /// Shots the server took an arrow for.
    fn taken(&self) -> u32 {
        let waiting = matches!(self.phase, Phase::Released { .. });
        self.shots.len().saturating_sub(usize::from(waiting)) as u32
    }

    fn target_rid(&self) -> Option<u64> {
        match &self.aiming {
            Aiming::Entity { target, .. } => Some(target.runtime_id),
            Aiming::Point(_) => None,
        }
    }

    /// Every taken shot at an entity has hit or is past its hit window (a point is never hurt).
    fn hits_settled(&self, now: u64) -> bool {
        self.target_rid().is_none() || self.shots.iter().all(|s| s.hit || now >= s.hit_deadline())
    }
}

/// `shoot`.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct Shoot {
    /// A player name, a mob name (`zombie`) or custom name, or a runtime id (or give x,y,z).
    pub entity: Option<Value>,
    /// A point to shoot at instead.
    pub x: Option<f64>,
    pub y: Option<f64>,
    pub z: Option<f64>,
    /// Ticks to draw (5-100, default 20: full force).
    pub ticks: Option<u32>,
    /// Shots in sequence, each re-aimed (1-64, default 1); stops early when the target is dead or
    /// gone or the arrows run out.
    pub times: Option<u32>,
}

/// Response of `shoot`.
#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ShootResponse {
    /// True: the draw started (the verdict is `shoot_done`).
    pub shooting: bool,
    pub entity: Option<Target>,
    /// From the eye to the target (blocks).
    pub distance: f64,
    pub arrows: u32,
    pub draw_ticks: u32,
    /// Shots asked for.
    pub times: u32,
}

impl AgentCommand for Shoot {
    const NAME: &'static str = "shoot";
    const SUMMARY: &'static str = "Draw a bow (ticks, default 20 = full force) and release it at an entity (leading its motion) or x,y,z, times in a row (default 1); async, ends in shoot_done with shots, hits, arrows before/after/used, the aim and the arrow seen";
    const EXAMPLE: &'static str = r#"{"action":"shoot","entity":"zombie","times":3}"#;
    const ASYNC: Option<AsyncInfo> = Some(AsyncInfo::of::<Shooting>());
    type Response = ShootResponse;

    fn run(self, ctx: &mut CommandCtx<'_>) -> Result<ShootResponse, CommandError> {
        hand_free_of(ctx.world, ctx.bot)?;
        clawcraft_core::action::refuse_if_busy(ctx.world, ctx.bot, WALK_SLOT.name)?;
        clawcraft_core::action::refuse_if_busy(ctx.world, ctx.bot, FIGHT_SLOT.name)?;
        let draw = self.ticks.unwrap_or(FULL_DRAW);
        if !(MIN_DRAW..=MAX_DRAW).contains(&draw) {
            return Err(CommandError::out_of_range(format!("ticks must be within {MIN_DRAW}-{MAX_DRAW}")));
        }
        let times = self.times.unwrap_or(1);
        if !(1..=MAX_TIMES).contains(&times) {
            return Err(CommandError::out_of_range(format!("times must be within 1-{MAX_TIMES}")));
        }
        let inv = inventory_of(ctx.world, ctx.bot)?;
        if inv.count_of("minecraft:bow") == 0 {
            return Err(CommandError::new("NO_ITEM", "No bow in the inventory"));
        }
        let arrows = arrows_in(inv);
        if arrows == 0 {
            return Err(CommandError::new("NO_ITEM", "No arrows in the inventory"));
        }
        let feet = ctx.world.get::<Position>(ctx.bot).ok_or_else(CommandError::not_spawned)?.0;
        let eye = feet.offset_y(EYE_HEIGHT);
        let (aiming, at, entity) = match (self.entity, self.x, self.y, self.z) {
            (Some(e), None, None, None) => {
                let found = find_or_err(ctx.world, ctx.bot, &e, feet)?;
                let mid = found.pos.offset_y(found.height * 0.5);
                let target = found.target.clone();
                (Aiming::Entity { entity: found.entity, target: found.target, height: found.height }, mid, Some(target))
            }
            (None, Some(x), Some(y), Some(z)) if [x, y, z].iter().all(|v| v.is_finite()) => {
                let p = Vec3::new(x, y, z);
                (Aiming::Point(p), p, None)
            }
            _ => return Err(CommandError::invalid_params("give entity, or x, y and z")),
        };
        let distance = round2(eye.distance(at));
        let model = ArrowModel::default();
        let speed = model.full_speed * draw_force(draw);
        let (dx, dz) = (at.x - eye.x, at.z - eye.z);
        if distance > MAX_RANGE || model.pitch_for(dx.hypot(dz), at.y - eye.y, speed).is_none() {
            return Err(CommandError::new(
                "OUT_OF_REACH",
                format!("The target is {distance} blocks away: out of the bow's range at this draw"),
            ));
        }
        cancel_draw_now(ctx.world, ctx.bot);
        let ready = hold_item_of(ctx.world, ctx.bot, "minecraft:bow")?;
        let now = ctx.world.get_resource::<TickCount>().map_or(0, |t| t.0);
        let shooting = Shooting {
            aiming,
            draw,
            times,
            phase: match ready {
                Ready::Now => Phase::Start,
                Ready::Job(j) => Phase::Equipping(j),
            },
            started: now,
            model,
            arrows_before: arrows,
            yaw: 0.0,
            pitch: 0.0,
            lead: 0.0,
            flight: None,
            arrow: None,
            shots: Vec::new(),
            arrows_seen: 0,
            damage: 0.0,
            target_health: None,
            target_dead: false,
            stopped: None,
            aim_point: at,
        };
        let per_shot = u64::from(draw) + SHOT_WAIT + 2;
        ctx.start(Self::NAME, shooting, EQUIP_TICKS + u64::from(times) * per_shot + 200)?;
        ctx.world.entity_mut(ctx.bot).insert(HandBorrowed(SHOOT_SLOT.name));
        Ok(ShootResponse { shooting: true, entity, distance, arrows, draw_ticks: draw, times })
    }
}

/// The server's signs after a release: the arrow entities, the target's hurts, health and death.
pub fn watch_shots(
    ticks: Res<TickCount>,
    mut packets: MessageReader<ClientboundPacket>,
    mut bots: Query<&mut Shooting>,
) {
    let now = ticks.0;
    for pkt in packets.read() {
        let Ok(mut s) = bots.get_mut(pkt.bot) else { continue };
        if s.shots.is_empty() {
            continue;
        }
        let rid = s.target_rid();
        if let Some(a) = pkt.view::<AddEntity>() {
            if a.entity_type == "minecraft:arrow" && s.arrows_seen < s.shots.len() as u32 {
                s.arrows_seen += 1;
                s.arrow = Some(a.runtime_id);
            }
        } else if let Some(e) = pkt.view::<EntityEvent>() {
            if Some(e.runtime_entity_id) != rid {
                continue;
            }
            match e.event_id.as_str() {
                // The oldest arrow still in its window that has not hit yet takes the hurt.
                "hurt_animation" => {
                    if let Some(shot) = s.shots.iter_mut().find(|x| !x.hit && now <= x.hit_deadline()) {
                        shot.hit = true;
                    }
                }
                "death_animation" => s.target_dead = true,
                _ => {}
            }
        } else if let Some(u) = pkt.view::<UpdateAttributes>()
            && Some(u.runtime_entity_id) == rid
            && let Some(h) = u.attributes.iter().find(|x| x.name == "minecraft:health")
        {
            let now = f64::from(h.current);
            let before = s.target_health.unwrap_or(f64::from(h.max));
            if now < before {
                s.damage += before - now;
            }
            s.target_health = Some(now);
            if now <= 0.0 {
                s.target_dead = true;
            }
        }
    }
}

/// Draws, aims with lead each tick, releases on time, draws again while shots remain, and ends on
/// the server's word.
#[allow(clippy::type_complexity)]
pub fn step_shots(
    mut commands: Commands,
    ticks: Res<TickCount>,
    mut bots: Query<(
        Entity,
        &mut Shooting,
        &Position,
        &mut Rotation,
        &Inventory,
        &InventoryJobs,
        &mut Connection,
        &mut InputExtras,
    )>,
    targets: Query<(&EntityPosition, &SeenBy, Option<&EntityVelocity>, Option<&MotionTrack>)>,
) {
    let now = ticks.0;
    for (bot, mut s, pos, mut rot, inv, jobs, mut conn, mut input) in &mut bots {
        let eye = pos.0.offset_y(EYE_HEIGHT);
        let end = |commands: &mut Commands, status, reason: Option<&str>| {
            commands.end_action(bot, SHOOT_SLOT.name, status, reason.map(str::to_owned));
        };
        // Where the target is (its middle) and how it moves (blocks a tick).
        let seen = match &s.aiming {
            Aiming::Point(p) => Some((*p, Vec3::ZERO)),
            Aiming::Entity { entity, height, .. } => {
                targets.get(*entity).ok().filter(|(_, by, ..)| by.0 == bot).map(|(p, _, sent, track)| {
                    let per_second = track.and_then(|t| t.velocity(sent.map_or(Vec3::ZERO, |v| v.0), now));
                    let v = per_second.map_or(Vec3::ZERO, |v| Vec3::new(v.x / 20.0, v.y / 20.0, v.z / 20.0));
                    (p.0.offset_y(height * 0.5), v)
                })
            }
        };
        // Why no further draw can be made (the first reason that holds).
        let stop_reason = |s: &Shooting| {
            if s.target_dead {
                Some("target_dead")
            } else if seen.is_none() {
                Some("target_lost")
            } else if arrows_in(inv) == 0 {
                Some("no_arrows")
            } else if !s.shots.is_empty() && !holds_bow(inv) {
                // The bow broke (or was taken) between shots.
                Some("no_bow")
            } else {
                None
            }
        };
        match s.phase {
            Phase::Equipping(job) => match job_outcome(jobs, job) {
                Some(Ok(())) => s.phase = Phase::Start,
                Some(Err(e)) => end(&mut commands, ActionStatus::Failed, Some(&e)),
                None if now > s.started + EQUIP_TICKS => {
                    end(&mut commands, ActionStatus::Failed, Some("item swap unanswered"))
                }
                None => {}
            },
            Phase::Start => {
                if let Some(why) = stop_reason(&s) {
                    if s.shots.is_empty() {
                        end(&mut commands, ActionStatus::Failed, Some(why));
                    } else {
                        s.stopped = Some(why);
                        s.phase = Phase::Finishing;
                    }
                    continue;
                }
                conn.send(&click_air(inv, eye));
                input.flags.push("start_using_item");
                commands.entity(bot).insert(BowDrawn);
                s.phase = Phase::Drawing { since: now };
            }
            Phase::Drawing { since } => {
                let release_at = since + u64::from(s.draw);
                // The target died or went away during the draw: the action ends here and the
                // draw is cancelled (`cancel_unreleased_draws`).
                if let Some(why @ ("target_dead" | "target_lost")) = stop_reason(&s) {
                    if s.shots.is_empty() {
                        end(&mut commands, ActionStatus::Failed, Some(why));
                    } else {
                        s.stopped = Some(why);
                        end(&mut commands, ActionStatus::Done, None);
                    }
                    continue;
                }
                let Some((at, vel)) = seen else { continue };
                if now >= release_at {
                    conn.send(&release(inv, eye));
                    commands.entity(bot).remove::<BowDrawn>();
                    let flight = s.flight.unwrap_or(0.0);
                    s.shots.push(Shot { at: now, flight, hit: false });
                    s.phase = Phase::Released { at: now, arrows: arrows_in(inv) };
                    continue;
                }
                // The arrow leaves with the release next tick (or later); the target is seen a
                // tick late.
                let delay = (release_at - now) as f64 + 1.0;
                let speed = s.model.full_speed * draw_force(s.draw);
                if let Some((yaw, pitch, flight, aim)) = s.model.lead(eye, at, vel, delay, speed) {
                    s.yaw = yaw;
                    s.pitch = pitch;
                    s.flight = Some(flight);
                    s.aim_point = aim;
                    let here = Vec3::new(at.x + vel.x * delay, at.y + vel.y * delay, at.z + vel.z * delay);
                    s.lead = aim.distance(here);
                    *rot = Rotation { yaw: yaw as f32, pitch: pitch as f32 };
                }
            }
            Phase::Released { at, arrows } => {
                if arrows_in(inv) < arrows {
                    // Taken: the next draw, or the wait for the hits.
                    s.phase = if s.shots.len() as u32 >= s.times {
                        Phase::Finishing
                    } else if let Some(why) = stop_reason(&s) {
                        s.stopped = Some(why);
                        Phase::Finishing
                    } else {
                        Phase::Start
                    };
                } else if now >= at + SHOT_WAIT {
                    s.shots.pop();
                    if s.shots.is_empty() {
                        end(&mut commands, ActionStatus::Failed, Some("no_shot"));
                        continue;
                    }
                    s.stopped = Some("no_shot");
                    s.phase = Phase::Finishing;
                }
            }
            Phase::Finishing => {}
        }
        if s.phase == Phase::Finishing && (s.target_dead || s.hits_settled(now)) {
            end(&mut commands, ActionStatus::Done, None);
        }
    }
}

/// The packets that cancel a draw without shooting: the held slot changed to the next hotbar
/// slot and straight back, so the bow stays in hand. UNCERTAIN: dragonfly ends the use on any
/// held-slot change (`Player.SetHeldSlot`) and so does Java's server; BDS is unverified.
pub fn cancel_draw_packets(runtime_id: u64, inv: &Inventory) -> [clawcraft_protocol::packets::MobEquipment; 2] {
    let held = inv.held_slot;
    let other = (held + 1) % HOTBAR_SLOTS;
    [equipment_packet(runtime_id, inv, other), equipment_packet(runtime_id, inv, held)]
}

fn send_cancel(conn: &mut Connection, ids: &EntityIds, inv: &Inventory) {
    for p in cancel_draw_packets(ids.runtime_id, inv) {
        conn.send(&p);
    }
}

/// Cancels a draw left from a shot that ended this very tick before its cleanup ran.
fn cancel_draw_now(world: &mut World, bot: Entity) {
    if world.entity_mut(bot).take::<BowDrawn>().is_none() {
        return;
    }
    let mut q = world.query::<(&EntityIds, &Inventory, &mut Connection)>();
    if let Ok((ids, inv, mut conn)) = q.get_mut(world, bot) {
        send_cancel(&mut conn, ids, inv);
    }
}

/// Cancels the draw at the server when a shot ended mid-draw (however it ended).
#[allow(clippy::type_complexity)]
pub fn cancel_unreleased_draws(
    mut commands: Commands,
    mut removed: RemovedComponents<Shooting>,
    mut bots: Query<(&EntityIds, &Inventory, &mut Connection), (With<BowDrawn>, Without<Shooting>)>,
) {
    for bot in removed.read() {
        let Ok((ids, inv, mut conn)) = bots.get_mut(bot) else { continue };
        send_cancel(&mut conn, ids, inv);
        commands.entity(bot).remove::<BowDrawn>();
    }
}

/// Gives the hand back when a shot ended (however it ended).
pub fn release_hand(
    mut commands: Commands,
    mut removed: RemovedComponents<Shooting>,
    bots: Query<&HandBorrowed, Without<Shooting>>,
) {
    for bot in removed.read() {
        if bots.get(bot).is_ok_and(|h| h.0 == SHOOT_SLOT.name) {
            commands.entity(bot).remove::<HandBorrowed>();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn force_grows_with_the_draw_to_one() {
        assert!((draw_force(10) - 0.4167).abs() < 1e-3);
        assert_eq!(draw_force(20), 1.0);
        assert_eq!(draw_force(40), 1.0);
        assert!(draw_force(MIN_DRAW) >= 0.1);
    }

    /// Flies an arrow the way the servers do against a box moving `vel` a tick (the box moves,
    /// then the arrow steps), and says whether it passes through the box.
    fn hits(
        m: &ArrowModel,
        eye: Vec3,
        (yaw, pitch): (f64, f64),
        speed: f64,
        feet: Vec3,
        vel: Vec3,
        delay: u64,
    ) -> bool {
        let (half, height, grow) = (0.3, 1.9, 0.125);
        let path = m.path(eye, yaw, pitch, speed, 120);
        let mut prev = eye;
        for (k, p) in path.iter().enumerate() {
            let t = (delay + k as u64 + 1) as f64;
            let c = Vec3::new(feet.x + vel.x * t, feet.y + vel.y * t, feet.z + vel.z * t);
            // Sample the segment finely (the arrow moves up to 3 blocks a tick).
            for i in 0..=20 {
                let f = f64::from(i) / 20.0;
                let q =
                    Vec3::new(prev.x + (p.x - prev.x) * f, prev.y + (p.y - prev.y) * f, prev.z + (p.z - prev.z) * f);
                if (q.x - c.x).abs() <= half + grow
                    && (q.z - c.z).abs() <= half + grow
                    && q.y >= c.y - grow
                    && q.y <= c.y + height + grow
                {
                    return true;
                }
            }
            prev = *p;
        }
        false
    }

    #[test]
    fn the_led_shot_hits_a_moving_target_and_the_direct_one_misses() {
        let m = ArrowModel::default();
        let eye = Vec3::new(0.5, -58.38, 0.5);
        let feet = Vec3::new(-4.5, -60.0, 18.5);
        let vel = Vec3::new(0.2, 0.0, 0.0);
        let delay = 1;
        let mid = feet.offset_y(0.95);
        let (yaw, pitch, flight, aim) = m.lead(eye, mid, vel, delay as f64, 3.0).expect("in range");
        assert!(flight > 4.0 && flight < 12.0, "flight {flight}");
        assert!(aim.x > mid.x + 0.2 * flight, "the aim leads along +x: {aim:?}");
        assert!(hits(&m, eye, (yaw, pitch), 3.0, feet, vel, delay), "the led shot hits");
        let (dyaw, dpitch, _, _) = m.lead(eye, mid, Vec3::ZERO, 0.0, 3.0).expect("in range");
        assert!(!hits(&m, eye, (dyaw, dpitch), 3.0, feet, vel, delay), "aiming where it is misses");
        // A still target at 30 blocks is hit with the arc the gravity needs (aim above it).
        let far = Vec3::new(0.5, -60.0, 30.5);
        let (y2, p2, _, _) = m.lead(eye, far.offset_y(0.95), Vec3::ZERO, 0.0, 3.0).expect("in range");
        assert!(p2 < 0.0, "aimed up: {p2}");
        assert!(hits(&m, eye, (y2, p2), 3.0, far, Vec3::ZERO, 0));
        assert!(m.pitch_for(500.0, 0.0, 1.0).is_none(), "out of range");
    }
}
