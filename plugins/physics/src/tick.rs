//! One tick of a player, in the client's order: begin (cooldown, ground, liquids, flow), input,
//! sprint, pose, climb, take the pose, jump and travel, slowdown, move, collisions, velocity after
//! the move, the blocks the player is in, and what the next tick compares with.

use crate::block::{Bubbles, Climb, Liquid, Slowdown};
use crate::collide::{self, FULL_DEPENETRATION, Mover, Scratch};
use crate::flags::{InputFlag, InputFlags};
use crate::input::{Input, SNEAK_INPUT_SCALE, TRAVEL_INPUT_DAMP, USING_ITEM_SCALE, direction};
use crate::liquid;
use crate::math::{self, DEG_TO_RAD, cell, cell_off, view_vector};
use crate::state::{Config, PLAYER_WIDTH, PlayerState, SLOWDOWN_ORDER, SNEAK_HEIGHT, STAND_HEIGHT, SWIM_HEIGHT};
use crate::{Aabb, Block, Vec3, World};

/// The move's forward component a sprint needs (an exact diagonal passes).
const SPRINT_GATE: f32 = 0.707_106_77;
const POSITION_EPSILON: f32 = 0.000_049_999_999;
/// 2^-23: friction flushes velocity components this small to zero.
const VELOCITY_EPSILON: f32 = 1.192_092_9e-7;
const GROUND_FRICTION: f32 = 0.6 * 0.91;
const AIR_FRICTION: f32 = 0.91;
const AIR_ACCEL: f32 = 0.02;
const AIR_ACCEL_SPRINT: f32 = 0.025_999_999;
const SPRINT_BOOST: f32 = 1.3;
const GRAVITY: f32 = 0.08;
const SLOW_FALLING_GRAVITY: f32 = 0.01;
const Y_DECAY: f32 = 0.98;
const JUMP_VELOCITY: f32 = 0.42;
const REDUCED_JUMP: f32 = 0.600_000_02;
const SPRINT_JUMP_BOOST: f32 = 0.2;
const JUMP_COOLDOWN: u8 = 10;
const FLUID_BUOYANCY: f32 = 0.04;
const LADDER_CLIMB: f32 = 0.2;
const SCAFFOLDING_CLIMB: f32 = 0.15;
const STAND_EYE: f32 = 1.620_01;
const MIN_BOUNCE_SPEED: f32 = 0.080_000_117;
const OUT_OF_LIQUID_IMPULSE: f32 = 0.3;

/// What a tick produces: the PlayerAuthInput fields that come from the movement.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct TickOutput {
    /// Eye position (feet + 1.62001).
    pub position: Vec3,
    /// Velocity after the tick's friction.
    pub delta: Vec3,
    /// The cooked move vector (x left, z forward; sneak-scaled): `move_vector`.
    pub move_vector: [f32; 2],
    /// The raw direction before the sneak scale: `raw_move_vector`.
    pub raw_move_vector: [f32; 2],
    /// Yaw, pitch and head yaw, as given.
    pub yaw: f32,
    /// Pitch.
    pub pitch: f32,
    /// Head yaw.
    pub head_yaw: f32,
    /// Input flags as the client sets them (keys, edges, collisions, start/stop actions).
    pub flags: InputFlags,
}

/// The physics engine: the version rules and reusable scratch space. One per bot (or shared by
/// bots of one version); [`PlayerState`] carries everything per player.
#[derive(Debug, Clone, Default)]
pub struct Physics {
    /// Rules by version.
    pub config: Config,
    scratch: Scratch,
}

/// Facts of the tick under way.
struct Tick {
    started_on_ground: bool,
    ground_friction: f32,
    ground_soul_sand: bool,
    sprinting: bool,
    sneaking: bool,
    flags: InputFlags,
    climb: Climb,
    scaffold_descend: bool,
    slowed: bool,
    requested: Vec3,
    applied: Vec3,
    pre_move_y: f32,
    bounce: Option<(f32, f32)>,
}

#[derive(Clone, Copy)]
struct Room {
    stand: bool,
    sneak: bool,
    crawl: bool,
}

impl Physics {
    /// An engine with the rules of `config`.
    pub fn new(config: Config) -> Self {
        Self { config, scratch: Scratch::default() }
    }

    /// Simulates one 50 ms tick of `state` under `input` in `world`, in place, and returns what
    /// the tick's PlayerAuthInput carries.
    pub fn tick<W: World + ?Sized>(&mut self, s: &mut PlayerState, input: &Input, world: &W) -> TickOutput {
        let keys = input.keys;
        let prev = s.prev_keys;
        // Bad input never poisons the state: a non-finite angle counts as 0, a non-finite stick
        // as centred (the keys then decide).
        let finite_or_zero = |v: f32| if v.is_finite() { v } else { 0.0 };
        let yaw = finite_or_zero(input.yaw);
        let pitch = finite_or_zero(input.pitch).clamp(-90.0, 90.0);
        let analog = input.analog.filter(|[x, z]| x.is_finite() && z.is_finite());

        // ---- begin ----
        let mut t = Tick {
            started_on_ground: s.on_ground,
            ground_friction: 0.6,
            ground_soul_sand: false,
            sprinting: false,
            sneaking: false,
            flags: InputFlags::EMPTY,
            climb: Climb::None,
            scaffold_descend: false,
            slowed: false,
            requested: Vec3::ZERO,
            applied: Vec3::ZERO,
            pre_move_y: s.position.y,
            bounce: None,
        };
        if s.jump_cooldown > 0 {
            s.jump_cooldown -= 1;
        }
        if !keys.jump {
            s.jump_cooldown = 0;
        }
        let ground = block_at(world, s.position.x, f64::from(s.aabb.min_y) - 0.1, s.position.z);
        t.ground_friction = ground.physics.friction;
        t.ground_soul_sand = ground.physics.soul_sand;
        let (in_water, in_lava) = liquid::sense(world, &s.aabb);
        s.in_water = in_water;
        s.in_lava = in_lava;
        liquid::apply_flow(world, &s.aabb, &mut s.velocity);

        // ---- input ----
        let raw_move = direction(&keys, analog);
        let slow = (keys.sneak || s.sneaking) && !s.in_water && !s.swimming;
        let scale = if slow { SNEAK_INPUT_SCALE } else { 1.0 };
        let mut mv = [raw_move[0] * scale, raw_move[1] * scale];
        if input.using_item {
            mv = [mv[0] * USING_ITEM_SCALE, mv[1] * USING_ITEM_SCALE];
        }
        let travel = [mv[0] * TRAVEL_INPUT_DAMP, mv[1] * TRAVEL_INPUT_DAMP];

        // ---- sprint ----
        let was_sprinting = s.sprinting;
        let start_sprint = !s.sprinting && mv[1] >= SPRINT_GATE && keys.sprint && s.can_sprint && !input.using_item;
        let mut stop_requested = false;
        if start_sprint || was_sprinting {
            let still_forward =
                (mv[0] * mv[0] + mv[1] * mv[1]).sqrt() >= SPRINT_GATE && mv[1] > 0.0 && mv[0].abs() <= SPRINT_GATE;
            stop_requested = !still_forward || obstructed(s);
            let stop = if s.swimming {
                !s.in_water
            } else if s.in_water && s.jumping_flag {
                true
            } else {
                stop_requested || !s.can_sprint
            };
            if start_sprint {
                t.flags.set(InputFlag::StartSprinting, true);
            }
            if stop {
                t.flags.set(InputFlag::StopSprinting, true);
            }
            s.sprinting = if stop { false } else { start_sprint || was_sprinting };
        }
        t.sprinting = s.sprinting;
        s.jumping_flag = keys.jump;
        let sprint_request = (was_sprinting || start_sprint, stop_requested);

        // ---- pose ----
        let eye_y = (s.position.y + STAND_EYE) - s.eye_offset_prev;
        let eye_in_water = liquid::point_in_water(world, s.position.x, eye_y, s.position.z);
        s.pose_amount = step_pose_amount(s.pose_amount, s.swimming);
        let view = view_vector(pitch, yaw);
        let room = self.pose_room(world, &s.aabb);
        let centre_y = (s.aabb.max_y - s.aabb.min_y) * 0.5 + s.aabb.min_y;
        let eye_block = block_at(world, s.position.x, f64::from(eye_y), s.position.z);
        if !s.teleported {
            let above_centre_air = world.block(cell(s.position.x), cell(centre_y) + 1, cell(s.position.z)).physics.air;
            match swim_action(s, eye_in_water, eye_block.physics.air, above_centre_air, view, mv, sprint_request, room)
            {
                Some(true) => t.flags.set(InputFlag::StartSwimming, true),
                Some(false) => t.flags.set(InputFlag::StopSwimming, true),
                None => {}
            }
        }
        let sneak_change = pose_intent(s, keys.sneak, room, mv);
        if let Some(sneak) = sneak_change
            && sneak != s.sneaking
        {
            t.flags.set(if sneak { InputFlag::StartSneaking } else { InputFlag::StopSneaking }, true);
        }
        if t.flags.has(InputFlag::StartSwimming) {
            s.swimming = true;
        }
        if t.flags.has(InputFlag::StopSwimming) {
            s.swimming = false;
        }
        if t.flags.has(InputFlag::StartSneaking) {
            s.sneaking = true;
        }
        if t.flags.has(InputFlag::StopSneaking) {
            s.sneaking = false;
        }
        s.head_in_water = eye_in_water;
        let target = if s.swimming {
            STAND_EYE - 0.400_000_01
        } else if s.sneaking {
            0.35
        } else {
            0.0
        };
        s.eye_offset_prev = s.eye_offset;
        s.eye_offset = (target - s.eye_offset) * 0.5 + s.eye_offset;
        s.breathing_in_liquid = eye_block.physics.liquid != Liquid::None;
        t.sneaking = s.sneaking;

        // ---- climb before the move ----
        let climb = climbable_at(world, s.position, &s.aabb);
        t.climb = climb;
        if climb != Climb::None {
            let v = &mut s.velocity;
            if climb == Climb::Scaffolding && keys.sneak {
                v.y = -SCAFFOLDING_CLIMB;
                t.scaffold_descend = true;
            }
            let speed = climb_speed(climb);
            if climb != Climb::Scaffolding {
                if t.sneaking && v.y < 0.0 {
                    v.y = 0.0;
                }
                if v.y < -speed {
                    v.y = -speed;
                }
            }
            let exiting =
                climb == Climb::Scaffolding && exiting_scaffolding(world, s.position, *v, s.vertical_collision);
            if !exiting && keys.jump {
                v.y = speed;
            }
        }

        // ---- take the pose ----
        let pose_changed = t.flags.has(InputFlag::StartSwimming)
            || t.flags.has(InputFlag::StopSwimming)
            || t.flags.has(InputFlag::StartSneaking)
            || t.flags.has(InputFlag::StopSneaking);
        if pose_changed {
            let height = if s.swimming {
                SWIM_HEIGHT
            } else if t.sneaking {
                SNEAK_HEIGHT
            } else {
                STAND_HEIGHT
            };
            resize_box(s, height);
        }
        let was_in_water = s.in_water;
        let was_in_lava = s.in_lava;
        s.in_lava = !s.in_water && liquid::liquid_in_inner_box(world, &s.aabb, Liquid::Lava, 0.1, 0.4);
        let teleported = s.teleported;
        if teleported {
            t.flags.set(InputFlag::HandledTeleport, true);
            s.teleported = false;
        }

        // ---- jump ----
        self.jump(s, &mut t, keys.jump, keys.sneak, was_in_water, was_in_lava, yaw, world);
        if teleported {
            self.inside_blocks(world, s, was_in_water);
            return self.finish(s, &t, input, raw_move, mv, prev);
        }

        // ---- travel ----
        let speed = travel_speed(s, &t);
        move_relative(&mut s.velocity, yaw, travel[0], travel[1], speed);
        if s.swimming && s.in_water && !keys.jump {
            let rate = if view.y < -0.2 { 0.085 } else { 0.06 };
            s.velocity.y = if view.y <= 0.0 || s.breathing_in_liquid {
                s.velocity.y + (view.y - s.velocity.y) * rate
            } else {
                0.0
            };
        }

        // ---- slowdown blocks ----
        let slowdowns = s.pending_slowdowns.unwrap_or_else(|| slowdowns_in(world, &s.aabb));
        let multiplier = slowdown_multiplier(slowdowns);
        if multiplier != Vec3::ZERO {
            s.velocity =
                Vec3::new(s.velocity.x * multiplier.x, s.velocity.y * multiplier.y, s.velocity.z * multiplier.z);
            t.slowed = true;
        }

        // ---- the move ----
        let mut req = s.velocity;
        if req.x.abs() > 500.0 || req.y.abs() > 500.0 || req.z.abs() > 500.0 {
            req = Vec3::ZERO;
        }
        s.last_requested = [req.x, req.z];
        let length_sq = (req.y * req.y + req.x * req.x) + req.z * req.z;
        if length_sq > 256.0 {
            let length = length_sq.sqrt();
            req = Vec3::new(req.x / length * 16.0, req.y / length * 16.0, req.z / length * 16.0);
        }
        if t.sneaking && t.started_on_ground {
            self.clamp_to_edge(world, &s.aabb, &mut req, &mut s.velocity);
        }
        t.requested = req;
        t.pre_move_y = s.position.y;
        s.last_pos = Some(s.position);
        let mover =
            Mover { aabb: s.aabb, descend: keys.sneak, leather_boots: s.leather_boots, fall_distance: s.fall_distance };
        let limit = depenetration_limit(s.depenetration_bits);
        let (applied, clip) = collide::move_with_collisions(
            world,
            s.aabb,
            req,
            s.on_ground,
            self.config.step_height,
            &mover,
            limit,
            &mut self.scratch,
        );
        s.depenetration_bits = next_depenetration_bits(s.depenetration_bits, clip >= 0.000_001);
        t.applied = applied;
        apply_movement(s, applied);

        // ---- collisions ----
        let x_collided = applied.x != req.x;
        let z_collided = applied.z != req.z;
        let y_collided = applied.y != req.y || catch_on_scaffolding(world, s, &t, keys);
        if x_collided {
            s.velocity.x = 0.0;
        }
        if z_collided {
            s.velocity.z = 0.0;
        }
        if y_collided {
            s.velocity.y = self.landing_bounce(world, s, &mut t);
        }
        s.horizontal_collision = x_collided || z_collided;
        s.vertical_collision = y_collided;
        s.on_ground = if y_collided {
            req.y < 0.0
        } else {
            t.started_on_ground
                && req.y == 0.0
                && block_at(world, s.position.x, f64::from(s.position.y), s.position.z).physics.slowdown
                    != Slowdown::PowderSnow
        };
        if t.slowed {
            s.velocity = Vec3::ZERO;
        }
        self.track_fall(world, s, &t);

        // ---- after the move ----
        let after_climb = climbable_at(world, s.position, &s.aabb);
        let auto_climb = after_climb != Climb::None && after_climb != Climb::Scaffolding && s.horizontal_collision;
        if auto_climb {
            s.velocity.y = climb_speed(after_climb);
        }
        self.velocity_after_move(s, &t, auto_climb);
        if (s.in_water || s.in_lava) && s.horizontal_collision {
            self.climb_out_of_liquid(world, s, t.pre_move_y);
        }
        self.inside_blocks(world, s, was_in_water);
        s.pending_slowdowns = Some(slowdowns_in(world, &s.aabb));
        if input.auto_jump
            && !keys.jump
            && !t.sneaking
            && s.on_ground
            && s.horizontal_collision
            && !s.in_water
            && !s.in_lava
        {
            s.jump_queued = self.step_is_jumpable(world, &s.aabb, req);
        }
        if s.on_ground && !t.sneaking {
            stand_on_sticky(world, s);
        }
        self.finish(s, &t, input, raw_move, mv, prev)
    }

    /// The jump of the tick: climbing, rising or sinking in a liquid, or a jump from the ground.
    #[allow(clippy::too_many_arguments)]
    fn jump<W: World + ?Sized>(
        &mut self,
        s: &mut PlayerState,
        t: &mut Tick,
        held: bool,
        sneak: bool,
        was_in_water: bool,
        was_in_lava: bool,
        yaw: f32,
        world: &W,
    ) {
        let held = held || std::mem::take(&mut s.jump_queued);
        let pressed = held && !s.jump_held;
        s.jump_held = held;
        let v = &mut s.velocity;
        let pose_hold = (s.swimming && !s.head_in_water) || (s.pose_amount > 0.0 && s.pose_amount < 1.0);
        if held && t.climb != Climb::None && !pose_hold {
            if was_in_water && sneak {
                v.y += -0.04;
            }
            if t.climb != Climb::Scaffolding {
                v.y = climb_speed(t.climb);
            } else if pressed {
                v.y = v.y.max(SCAFFOLDING_CLIMB);
            }
            return;
        }
        if held && pose_hold {
            if was_in_water {
                v.y = 0.0;
            }
            return;
        }
        if was_in_water {
            if sneak {
                v.y += -0.04;
            }
            if held {
                v.y += FLUID_BUOYANCY;
            }
            return;
        }
        if was_in_lava {
            if held {
                v.y += FLUID_BUOYANCY;
            }
            return;
        }
        if held && t.climb == Climb::None && s.on_ground && s.jump_cooldown == 0 {
            s.jump_cooldown = JUMP_COOLDOWN;
            let feet = block_at(world, s.position.x, f64::from(s.aabb.min_y), s.position.z);
            let below = block_at(world, s.position.x, f64::from(s.aabb.min_y) - 1.0, s.position.z);
            // Standing on powder snow (as the stand-on effects find the block) takes the jump away.
            let (cx, cy, cz) = standing_on_cell(world, s.position, &s.aabb);
            if world.block(cx, cy, cz).physics.slowdown == Slowdown::PowderSnow {
                return;
            }
            let boost = (f64::from(s.effects.jump_boost) * 0.1) as f32;
            let mut jump = JUMP_VELOCITY + boost;
            if feet.physics.reduces_jump || below.physics.reduces_jump {
                jump *= REDUCED_JUMP;
            }
            if jump > v.y {
                v.y = jump;
            }
            t.flags.set(InputFlag::StartJumping, true);
            if t.sprinting {
                let radians = yaw * DEG_TO_RAD;
                v.x -= math::table_sin_rad(radians) * SPRINT_JUMP_BOOST;
                v.z += math::table_cos_rad(radians) * SPRINT_JUMP_BOOST;
            }
        }
    }

    /// Whether the move just blocked by `req` would continue one block up: the box raised by a
    /// block (not more than a jump reaches) moves on horizontally where it could not.
    fn step_is_jumpable<W: World + ?Sized>(&mut self, world: &W, b: &Aabb, req: Vec3) -> bool {
        let len = (req.x * req.x + req.z * req.z).sqrt();
        if !(len > 1e-4) {
            return false;
        }
        // Probe a quarter block ahead along the move.
        let (dx, dz) = (req.x / len * 0.25, req.z / len * 0.25);
        let ahead = b.offset(dx, 0.0, dz);
        if !collide::any_collision(world, &ahead, &mut self.scratch.shapes) {
            return false;
        }
        let raised = b.offset(dx, 1.0, dz);
        let above = b.offset(0.0, 1.0, 0.0);
        !collide::any_collision(world, &raised, &mut self.scratch.shapes)
            && !collide::any_collision(world, &above, &mut self.scratch.shapes)
    }

    /// The room the box has to stand, sneak and crawl (a pose box strictly overlapping a block
    /// means no room).
    fn pose_room<W: World + ?Sized>(&mut self, world: &W, original: &Aabb) -> Room {
        let mut room = Room { stand: true, sneak: true, crawl: true };
        let mut blocked = |height: f32| {
            let mut b = *original;
            b.max_y = original.min_y + height;
            let b = contract(&b, 0.01);
            collide::collision_boxes(world, &b, None, &mut self.scratch.shapes);
            !self.scratch.shapes.is_empty()
        };
        if blocked(STAND_HEIGHT) {
            room.stand = false;
            if blocked(SNEAK_HEIGHT) {
                room.sneak = false;
                if blocked(SWIM_HEIGHT) {
                    room.crawl = false;
                }
            }
        }
        room
    }

    /// Sneaking on the ground does not walk off an edge: each horizontal axis of the move (then
    /// both) backs off in 0.05 steps until a probe box just over a step below still finds support.
    fn clamp_to_edge<W: World + ?Sized>(&mut self, world: &W, b: &Aabb, req: &mut Vec3, vel: &mut Vec3) {
        let drop = self.config.step_height * -1.01;
        let probe = Aabb::new(
            b.min_x + 0.025,
            b.min_y + drop,
            b.min_z + 0.025,
            b.max_x - 0.025,
            b.max_y + drop,
            b.max_z - 0.025,
        );
        let shapes = &mut self.scratch.shapes;
        let mut support = |dx: f32, dz: f32| {
            let q = Aabb::new(
                probe.min_x + dx,
                probe.min_y,
                probe.min_z + dz,
                probe.max_x + dx,
                probe.max_y,
                probe.max_z + dz,
            );
            collide::any_collision(world, &q, shapes)
        };
        while req.x != 0.0 && !support(req.x, 0.0) {
            req.x = sneak_approach(req.x);
        }
        while req.z != 0.0 && !support(0.0, req.z) {
            req.z = sneak_approach(req.z);
        }
        while (req.x != 0.0 || req.z != 0.0) && !support(req.x, req.z) {
            req.x = sneak_approach(req.x);
            req.z = sneak_approach(req.z);
        }
        if req.x.abs() <= VELOCITY_EPSILON {
            vel.x = 0.0;
        }
        if req.z.abs() <= VELOCITY_EPSILON {
            vel.z = 0.0;
        }
    }

    /// The vertical velocity a landing leaves: the fall times the landed-on block's restitution.
    fn landing_bounce<W: World + ?Sized>(&self, world: &W, s: &PlayerState, t: &mut Tick) -> f32 {
        let req = t.requested;
        if !(req.y < 0.0) || t.sneaking {
            return 0.0;
        }
        if !self.config.bounce_correction {
            let below = block_at(world, s.position.x, f64::from(s.position.y) - 0.1, s.position.z);
            return if below.physics.restitution == 1.0 { -req.y } else { 0.0 };
        }
        if !(-req.y >= MIN_BOUNCE_SPEED) {
            return 0.0;
        }
        let restitution = match landed_on_cell(&self.scratch.move_shapes, &s.aabb) {
            Some((x, y, z)) => world.block(x, y, z).physics.restitution,
            None => 0.0,
        };
        let bounce = restitution * -req.y;
        if !(bounce > 0.0) {
            return 0.0;
        }
        t.bounce = Some((req.y, t.applied.y));
        bounce + 0.0
    }

    fn track_fall<W: World + ?Sized>(&self, world: &W, s: &mut PlayerState, t: &Tick) {
        let in_water = liquid::liquid_in_inner_box(world, &s.aabb, Liquid::Water, 0.001, 0.401);
        if s.on_ground || in_water || t.climb != Climb::None || t.slowed {
            s.fall_distance = 0.0;
        } else if t.applied.y < 0.0 {
            s.fall_distance -= t.applied.y;
        }
    }

    /// Gravity, drag and friction for the travel type.
    fn velocity_after_move(&self, s: &mut PlayerState, t: &Tick, auto_climb: bool) {
        let lev = s.effects.levitation;
        let v = &mut s.velocity;
        if s.in_lava {
            *v = Vec3::new(v.x * 0.5, v.y * 0.5, v.z * 0.5);
            if lev > 0 {
                levitate(v, lev)
            } else {
                v.y -= 0.02
            }
            return;
        }
        if s.in_water {
            let drag = if t.sprinting { 0.9 } else { 0.8 };
            v.x *= drag;
            v.y *= 0.8;
            v.z *= drag;
            if lev > 0 {
                levitate(v, lev);
            } else if !s.swimming {
                v.y -= 0.005;
            }
            return;
        }
        if auto_climb {
            if lev > 0 {
                levitate(v, lev);
            }
        } else {
            if t.scaffold_descend {
                // Descending through scaffolding: no gravity this tick.
            } else if let Some((pre, post)) = t.bounce {
                v.y = bounce_gravity(GRAVITY, pre, post, v.y);
            } else if lev > 0 {
                levitate(v, lev);
            } else {
                let g = if s.effects.slow_falling > 0 && v.y < 0.0 { SLOW_FALLING_GRAVITY } else { GRAVITY };
                v.y -= g;
            }
            v.y *= Y_DECAY;
        }
        let friction = if t.started_on_ground { t.ground_friction } else { 1.0 };
        let k = friction * AIR_FRICTION;
        v.x = apply_friction(v.x, k);
        v.z = apply_friction(v.z, k);
    }

    /// Pushing against a block in a liquid with room above the surface boosts the player out.
    fn climb_out_of_liquid<W: World + ?Sized>(&mut self, world: &W, s: &mut PlayerState, pre_move_y: f32) {
        let v = s.velocity;
        let b = s.aabb;
        let dy = ((pre_move_y - s.position.y) + 0.600_000_02) + v.y;
        let probe = Aabb::new(b.min_x + v.x, b.min_y + dy, b.min_z + v.z, b.max_x + v.x, b.max_y + dy, b.max_z + v.z);
        if liquid::contains_liquid(world, &probe) || collide::any_collision(world, &probe, &mut self.scratch.shapes) {
            return;
        }
        s.velocity.y = OUT_OF_LIQUID_IMPULSE;
    }

    /// Bubble columns push the player; honey blocks it hangs on slow it.
    fn inside_blocks<W: World + ?Sized>(&self, world: &W, s: &mut PlayerState, was_in_water: bool) {
        let b = s.aabb;
        let (x0, x1) = (cell(b.min_x + 0.001), cell(b.max_x + -0.001));
        let (y0, y1) = (cell(b.min_y + 0.001), cell(b.max_y + -0.001));
        let (z0, z1) = (cell(b.min_z + 0.001), cell(b.max_z + -0.001));
        let mut vy = s.velocity.y;
        let mut touched = false;
        for x in x0..=x1 {
            for y in y0..=y1 {
                for z in z0..=z1 {
                    let bubbles = world.block(x, y, z).physics.bubbles;
                    if bubbles == Bubbles::None {
                        continue;
                    }
                    let surface = world.block(x, y + 1, z).physics.air;
                    vy = match (bubbles == Bubbles::Down, surface) {
                        (true, true) => (vy + -0.03).max(-0.9),
                        (true, false) => (vy + -0.03).max(-0.3),
                        (false, true) => (vy + 0.1).min(1.8),
                        (false, false) => (vy + 0.06).min(0.7),
                    };
                    touched = true;
                }
            }
        }
        if touched {
            s.velocity.y = vy;
        }
        if was_in_water {
            return;
        }
        for x in x0..=x1 {
            for y in y0..=y1 {
                for z in z0..=z1 {
                    if !world.block(x, y, z).physics.honey {
                        continue;
                    }
                    let v = &mut s.velocity;
                    let fall = if -0.12 > v.y { -0.12 } else { v.y };
                    v.x *= 0.400_000_01;
                    v.y = fall;
                    v.z *= 0.400_000_01;
                    if s.position.y > y as f32 + 0.9375 || !(fall < 0.0) {
                        continue;
                    }
                    let threshold = PLAYER_WIDTH * 0.5 + 0.431_250_01;
                    let dx = ((x as f32 + 0.5) - s.position.x).abs();
                    let dz = ((z as f32 + 0.5) - s.position.z).abs();
                    if threshold < dx || threshold < dz {
                        s.fall_distance = 0.0;
                    }
                }
            }
        }
    }

    /// The end of the tick: what the next tick compares with, and the packet's fields.
    fn finish(
        &self,
        s: &mut PlayerState,
        t: &Tick,
        input: &Input,
        raw_move: [f32; 2],
        mv: [f32; 2],
        prev: crate::Keys,
    ) -> TickOutput {
        let keys = input.keys;
        s.prev_keys = keys;
        let mut flags = t.flags;
        for (flag, on) in [
            (InputFlag::Up, keys.up),
            (InputFlag::Down, keys.down),
            (InputFlag::Left, keys.left),
            (InputFlag::Right, keys.right),
            (InputFlag::JumpDown, keys.jump),
            (InputFlag::Jumping, keys.jump),
            (InputFlag::WantUp, keys.jump),
            (InputFlag::JumpCurrentRaw, keys.jump),
            (InputFlag::JumpPressedRaw, (keys.jump && !prev.jump) || input.jump_tapped),
            (InputFlag::JumpReleasedRaw, (!keys.jump && prev.jump) || input.jump_tapped),
            (InputFlag::SneakDown, keys.sneak),
            (InputFlag::Sneaking, keys.sneak),
            (InputFlag::WantDown, keys.sneak),
            (InputFlag::SneakCurrentRaw, keys.sneak),
            (InputFlag::SneakPressedRaw, (keys.sneak && !prev.sneak) || input.sneak_tapped),
            (InputFlag::SneakReleasedRaw, (!keys.sneak && prev.sneak) || input.sneak_tapped),
            (InputFlag::SprintDown, keys.sprint),
            (InputFlag::Sprinting, keys.sprint),
            (InputFlag::HorizontalCollision, s.horizontal_collision),
            (InputFlag::VerticalCollision, s.vertical_collision),
            (InputFlag::BlockBreakingDelayEnabled, true),
        ] {
            if on {
                flags.set(flag, true);
            }
        }
        TickOutput {
            position: s.eye_position(),
            delta: s.velocity,
            move_vector: mv,
            raw_move_vector: raw_move,
            yaw: if input.yaw.is_finite() { input.yaw } else { 0.0 },
            pitch: if input.pitch.is_finite() { input.pitch.clamp(-90.0, 90.0) } else { 0.0 },
            head_yaw: input.head_yaw,
            flags,
        }
    }
}

// ---- helpers -------------------------------------------------------------------------------------

/// The block of the cell a point is in (y given in double precision, as offsets are added there).
#[inline]
fn block_at<W: World + ?Sized>(world: &W, x: f32, y: f64, z: f32) -> Block<'_> {
    world.block(cell(x), y.floor() as i32, cell(z))
}

/// Whether the previous move's dominant axis did not advance the position (running into a wall).
fn obstructed(s: &PlayerState) -> bool {
    let [lx, lz] = s.last_requested;
    let last = s.last_pos.unwrap_or(s.position);
    let (ax, az) = (lx.abs(), lz.abs());
    if az > ax && (s.position.z - last.z).abs() < POSITION_EPSILON {
        return true;
    }
    ax > az && (s.position.x - last.x).abs() < POSITION_EPSILON
}

fn step_pose_amount(amount: f32, swimming: bool) -> f32 {
    if swimming {
        let risen = amount + 0.1;
        if risen < 1.0 { risen } else { 1.0 }
    } else {
        let fallen = amount + -0.1;
        if fallen > 0.0 { fallen } else { 0.0 }
    }
}

/// The swim start (`Some(true)`) or stop (`Some(false)`) of the tick.
#[allow(clippy::too_many_arguments)]
fn swim_action(
    s: &PlayerState,
    eye_in_water: bool,
    breathing_in_air: bool,
    above_centre_air: bool,
    view: Vec3,
    mv: [f32; 2],
    (is_sprinting, stop_sprinting): (bool, bool),
    room: Room,
) -> Option<bool> {
    if !s.swimming {
        if !eye_in_water {
            return None;
        }
        let submerged = !breathing_in_air && !above_centre_air;
        return ((submerged || 0.15 > view.y) && is_sprinting && !stop_sprinting).then_some(true);
    }
    let dot = view.z * view.z + (0.0 * view.y + view.x * view.x);
    let angle = (f64::from(dot).acos() as f32) * 57.295_776;
    let move_len = (mv[1] * mv[1] + mv[0] * mv[0]).sqrt();
    let mut stop = true;
    if !(SPRINT_GATE > move_len) && s.in_water {
        stop = if breathing_in_air { angle > 45.0 && view.y > 0.0 } else { false };
    }
    (stop && room.stand).then_some(false)
}

/// The sneak the player wants this tick (`None`: no change).
fn pose_intent(s: &mut PlayerState, sneak_down: bool, room: Room, mv: [f32; 2]) -> Option<bool> {
    let released = !sneak_down;
    if room.stand {
        if s.sneaking && released {
            return Some(false);
        }
    } else if room.sneak {
        if s.swimming {
            let length_sq = mv[0] * mv[0] + mv[1] * mv[1];
            if !(length_sq < 0.499_999_97) {
                return None;
            }
        }
        return Some(true);
    }
    if s.sneaking || released {
        return None;
    }
    Some(true)
}

fn contract(b: &Aabb, amount: f32) -> Aabb {
    let mut o = Aabb::new(
        amount + b.min_x,
        amount + b.min_y,
        b.min_z + amount,
        b.max_x - amount,
        b.max_y - amount,
        b.max_z - amount,
    );
    if o.min_x > o.max_x {
        let m = (o.min_x + o.max_x) * 0.5;
        (o.min_x, o.max_x) = (m, m);
    }
    if o.min_y > o.max_y {
        let m = (o.max_y + o.min_y) * 0.5;
        (o.min_y, o.max_y) = (m, m);
    }
    if o.min_z > o.max_z {
        let m = (o.min_z + o.max_z) * 0.5;
        (o.min_z, o.max_z) = (m, m);
    }
    o
}

/// Resizes the box to `height` around its centre (the feet stay); x and z are re-derived.
fn resize_box(s: &mut PlayerState, height: f32) {
    s.pose_height = height;
    let a = &mut s.aabb;
    let w = PLAYER_WIDTH * 0.5;
    let cx = (a.min_x + a.max_x) * 0.5;
    let cz = (a.min_z + a.max_z) * 0.5;
    a.min_x = cx - w;
    a.max_x = cx + w;
    a.min_z = cz - w;
    a.max_z = cz + w;
    a.max_y = a.min_y + height;
    s.position.x = (a.min_x + a.max_x) * 0.5;
    s.position.z = (a.min_z + a.max_z) * 0.5;
}

/// What the player climbs: a ladder or vine at the feet, scaffolding at the feet or in the feet's
/// layer under the box.
fn climbable_at<W: World + ?Sized>(world: &W, pos: Vec3, b: &Aabb) -> Climb {
    let climb = world.block(cell(pos.x), cell(pos.y), cell(pos.z)).physics.climb;
    if climb != Climb::None {
        return climb;
    }
    if scaffolding_under(world, b, cell_off(b.min_y, 0.001)) { Climb::Scaffolding } else { Climb::None }
}

/// Whether any cell of layer `y` under the box's footprint (shrunk by 0.001) is scaffolding.
fn scaffolding_under<W: World + ?Sized>(world: &W, b: &Aabb, y: i32) -> bool {
    for x in cell_off(b.min_x, 0.001)..=cell_off(b.max_x, -0.001) {
        for z in cell_off(b.min_z, 0.001)..=cell_off(b.max_z, -0.001) {
            if world.block(x, y, z).physics.climb == Climb::Scaffolding {
                return true;
            }
        }
    }
    false
}

/// A climb in scaffolding leaving it sideways (the move enters a cell that is not scaffolding).
fn exiting_scaffolding<W: World + ?Sized>(world: &W, pos: Vec3, vel: Vec3, collided_vertically: bool) -> bool {
    if collided_vertically {
        return false;
    }
    let cy = cell(pos.y);
    if world.block(cell(pos.x), cy, cell(pos.z)).physics.climb != Climb::Scaffolding {
        return false;
    }
    let nx = (f64::from(pos.x) + f64::from(vel.x)).floor() as i32;
    let nz = (f64::from(pos.z) + f64::from(vel.z)).floor() as i32;
    if nx == cell(pos.x) && nz == cell(pos.z) {
        return false;
    }
    world.block(nx, cy, nz).physics.climb != Climb::Scaffolding
}

/// A player falling past the top of a scaffolding column is caught on it. Moves the box onto the
/// top and returns true when caught.
fn catch_on_scaffolding<W: World + ?Sized>(world: &W, s: &mut PlayerState, t: &Tick, keys: crate::Keys) -> bool {
    let (req, applied) = (t.requested, t.applied);
    if applied.y != req.y || req.y >= 0.0 || t.sneaking || keys.jump {
        return false;
    }
    let pre = f64::from(t.pre_move_y);
    let candidate = (pre + 1e-5).floor();
    if !(candidate > f64::from(s.position.y) && candidate <= pre + 1e-5) {
        return false;
    }
    let candidate = candidate as i32;
    if !scaffolding_under(world, &s.aabb, candidate - 1) {
        return false;
    }
    let caught = f64::from(candidate) < pre || !scaffolding_under(world, &s.aabb, candidate - 2) || t.started_on_ground;
    if !caught {
        return false;
    }
    let top = candidate as f32;
    s.aabb.min_y = top;
    s.aabb.max_y = top + s.pose_height;
    s.position.y = top;
    true
}

fn climb_speed(c: Climb) -> f32 {
    if c == Climb::Scaffolding { SCAFFOLDING_CLIMB } else { LADDER_CLIMB }
}

/// The travel speed: flying aside, the ground's (friction-scaled), the air's, or a liquid's.
fn travel_speed(s: &PlayerState, t: &Tick) -> f32 {
    let base_attr = s.attributes.movement_speed;
    let walk = if t.sprinting { base_attr * SPRINT_BOOST } else { base_attr };
    let mut base = walk;
    if s.effects.speed > 0 {
        base *= 0.2 * f32::from(s.effects.speed) + 1.0;
    }
    if s.effects.slowness > 0 {
        base *= -0.15 * f32::from(s.effects.slowness) + 1.0;
    }
    if !(base > 0.0) {
        base = 0.0;
    }
    if s.in_water || s.in_lava {
        return AIR_ACCEL;
    }
    if !t.started_on_ground {
        return if t.sprinting { AIR_ACCEL_SPRINT } else { AIR_ACCEL };
    }
    let mut slip = t.ground_friction;
    if t.ground_soul_sand {
        slip *= 1.225;
    }
    let friction = slip * AIR_FRICTION;
    let ratio = GROUND_FRICTION / friction;
    ratio * ratio * ratio * base
}

/// Adds the input (strafe = left, forward), rotated by the yaw and scaled to `speed`.
fn move_relative(v: &mut Vec3, yaw: f32, strafe: f32, forward: f32, speed: f32) {
    let dist_sq = strafe * strafe + forward * forward;
    if dist_sq < 0.000_099_999_997 {
        return;
    }
    let mut dist = dist_sq.sqrt();
    if dist < 1.0 {
        dist = 1.0;
    }
    let scale = speed / dist;
    let (sin, cos) = math::sin_cos_deg(yaw);
    let strafe_s = strafe * scale;
    let forward_s = forward * scale;
    v.x += strafe_s * cos - forward_s * sin;
    v.z += forward_s * cos + strafe_s * sin;
}

/// The slowdown blocks the box (shrunk by 0.001) is in, as flags in [`SLOWDOWN_ORDER`].
pub(crate) fn slowdowns_in<W: World + ?Sized>(world: &W, b: &Aabb) -> [bool; 3] {
    let mut found = [false; 3];
    for x in cell_off(b.min_x, 0.001)..=cell_off(b.max_x, -0.001) {
        for y in cell_off(b.min_y, 0.001)..=cell_off(b.max_y, -0.001) {
            for z in cell_off(b.min_z, 0.001)..=cell_off(b.max_z, -0.001) {
                let kind = world.block(x, y, z).physics.slowdown;
                if let Some(i) = SLOWDOWN_ORDER.iter().position(|k| *k == kind) {
                    found[i] = true;
                }
            }
        }
    }
    found
}

/// The per-axis move multiplier of a set of slowdown blocks (per-lane minimum; zero for none).
fn slowdown_multiplier(found: [bool; 3]) -> Vec3 {
    let mut m = Vec3::ZERO;
    for (i, kind) in SLOWDOWN_ORDER.iter().enumerate() {
        if !found[i] {
            continue;
        }
        let k = match kind {
            Slowdown::PowderSnow => Vec3::new(0.9, 1.5, 0.9),
            Slowdown::Cobweb => Vec3::new(0.25, 0.05, 0.25),
            Slowdown::SweetBerryBush => Vec3::new(0.800_000_01, 0.75, 0.800_000_01),
            Slowdown::None => continue,
        };
        let zero = m.x.abs() < VELOCITY_EPSILON && m.y.abs() < VELOCITY_EPSILON && m.z.abs() < VELOCITY_EPSILON;
        m = if zero {
            k
        } else {
            Vec3::new(
                if k.x < m.x { k.x } else { m.x },
                if k.y < m.y { k.y } else { m.y },
                if k.z < m.z { k.z } else { m.z },
            )
        };
    }
    m
}

fn sneak_approach(value: f32) -> f32 {
    const STEP: f32 = 0.050_000_001;
    if !(value < 0.0) {
        let moved = value - STEP;
        return if moved > 0.0 { moved } else { 0.0 };
    }
    let moved = STEP + value;
    let clamped = if moved > value { moved } else { value };
    if moved > 0.0 { 0.0 } else { clamped }
}

/// The depenetration limit: a whole block unless the player is stuck in a block.
fn depenetration_limit(bits: u8) -> Vec3 {
    // Bits: 1 always one-way, 2 penetrated, 4 stuck in a collider, 8 stuck item, 16 push to space.
    let engaged = bits & 8 == 0 && bits & (1 | 4 | 16) != 0;
    if engaged { Vec3::new(0.01, 0.01, 0.01) } else { FULL_DEPENETRATION }
}

fn next_depenetration_bits(bits: u8, penetrated: bool) -> u8 {
    let mut next = bits & !16 & 0x1f;
    if penetrated {
        next |= if next & 2 != 0 { 4 } else { 2 };
    } else {
        next &= 1 | 8 | 16;
    }
    next
}

/// Moves the box by the applied motion (each axis that moved) and re-derives the position.
fn apply_movement(s: &mut PlayerState, m: Vec3) {
    let a = &mut s.aabb;
    if m.x != 0.0 {
        a.min_x += m.x;
        a.max_x += m.x;
        s.position.x = (a.min_x + a.max_x) * 0.5;
    }
    if m.y != 0.0 {
        a.min_y += m.y;
        a.max_y += m.y;
        s.position.y = a.min_y;
    }
    if m.z != 0.0 {
        a.min_z += m.z;
        a.max_z += m.z;
        s.position.z = (a.min_z + a.max_z) * 0.5;
    }
}

/// A velocity component scaled by the friction; one within 2^-23 of zero is scaled by zero.
#[inline]
fn apply_friction(v: f32, k: f32) -> f32 {
    (if v.abs() <= VELOCITY_EPSILON { 0.0 } else { k }) * v
}

fn levitate(v: &mut Vec3, level: u8) {
    v.y = v.y * 0.8 + 0.009_999_999_8 * f32::from(level);
}

/// The gravity of a landing tick on slime (1.26.20+): the part of the fall spent reaching the
/// block is not charged again.
fn bounce_gravity(g: f32, pre: f32, post: f32, vy: f32) -> f32 {
    let travelled = ((g + g) * post.abs() + pre * pre).sqrt();
    let overshoot = ((pre.abs() - travelled) / -g).abs();
    g * (pre.signum() * (1.0 - overshoot)) + vy
}

/// Standing on slime or honey scales the horizontal velocity by 0.4 + 0.2·|vy| while vy < 0.1.
fn stand_on_sticky<W: World + ?Sized>(world: &W, s: &mut PlayerState) {
    // Only slime or honey in the layer the plane 0.2 under the feet cuts can be the block stood
    // on (both are at most a block tall): skip the full search when there is none.
    let a = s.aabb;
    let layer = cell(a.min_y + -0.2);
    let sticky_near = (cell(a.min_x)..=cell(a.max_x))
        .any(|x| (cell(a.min_z)..=cell(a.max_z)).any(|z| world.block(x, layer, z).physics.sticky));
    if !sticky_near {
        return;
    }
    let (x, y, z) = standing_on_cell(world, s.position, &s.aabb);
    if !world.block(x, y, z).physics.sticky || !(s.velocity.y < 0.1) {
        return;
    }
    let k = s.velocity.y.abs() * 0.2 + 0.400_000_01;
    s.velocity.x *= k;
    s.velocity.z *= k;
}

/// The union of a block's boxes in world coordinates, when it has any.
fn block_bounds(b: &Block<'_>, x: i32, y: i32, z: i32) -> Option<Aabb> {
    let mut out = Aabb::new(f32::MAX, f32::MAX, f32::MAX, -f32::MAX, -f32::MAX, -f32::MAX);
    if b.shapes.is_empty() {
        return None;
    }
    let (fx, fy, fz) = (x as f32, y as f32, z as f32);
    for s in b.shapes {
        out.min_x = out.min_x.min(s.min_x + fx);
        out.min_y = out.min_y.min(s.min_y + fy);
        out.min_z = out.min_z.min(s.min_z + fz);
        out.max_x = out.max_x.max(s.max_x + fx);
        out.max_y = out.max_y.max(s.max_y + fy);
        out.max_z = out.max_z.max(s.max_z + fz);
    }
    out.is_solid().then_some(out)
}

fn distance_sq(a: Vec3, b: Vec3) -> f32 {
    (a.z - b.z) * (a.z - b.z) + ((a.y - b.y) * (a.y - b.y) + (a.x - b.x) * (a.x - b.x))
}

/// The cell of the block the box stands on: of the blocks whose bounds cross the plane 0.2 below
/// the feet, under the footprint, the one reaching highest (nearest the plane's centre on a tie),
/// else the cell at the position.
fn standing_on_cell<W: World + ?Sized>(world: &W, pos: Vec3, a: &Aabb) -> (i32, i32, i32) {
    let plane_y = a.min_y + -0.2;
    let plane = Aabb::new(a.min_x, plane_y, a.min_z, a.max_x, plane_y, a.max_z);
    let centre = plane.centre();
    let mut best: Option<Aabb> = None;
    let mut best_d = f32::MAX;
    for x in cell(plane.min_x - 1.0)..=cell(plane.max_x + 1.0) {
        for z in cell(plane.min_z - 1.0)..=cell(plane.max_z + 1.0) {
            let mut floor_y = cell(plane_y - 1.0);
            let mut y = cell(plane_y + 1.0);
            while y >= floor_y {
                if let Some(bounds) = block_bounds(&world.block(x, y, z), x, y, z)
                    && plane.intersects(&bounds)
                {
                    let d = distance_sq(centre, bounds.centre());
                    let better = match best {
                        None => true,
                        Some(b) => bounds.max_y > b.max_y || (bounds.max_y == b.max_y && d < best_d),
                    };
                    if better {
                        best = Some(bounds);
                        best_d = d;
                    }
                    if let Some(b) = best {
                        floor_y = floor_y.max(b.max_y.ceil() as i32);
                    }
                }
                y -= 1;
            }
        }
    }
    match best {
        Some(b) => (cell(b.min_x), cell(b.min_y), cell(b.min_z)),
        None => (cell(pos.x), cell(pos.y), cell(pos.z)),
    }
}

/// The cell of the collision box a landing stands on, among the move's boxes: the one whose
/// centre is nearest below the plane 0.2 under the feet.
fn landed_on_cell(shapes: &[Aabb], a: &Aabb) -> Option<(i32, i32, i32)> {
    let plane_y = a.min_y + -0.2;
    let probe = Aabb::new(a.min_x, plane_y, a.min_z, a.max_x, plane_y, a.max_z).centre();
    let mut best = f32::MAX;
    let mut won: Option<Aabb> = None;
    for shape in shapes {
        let c = shape.centre();
        let d = plane_y - c.y;
        if !(d >= 0.0) {
            continue;
        }
        if best > d {
            best = d;
            won = Some(*shape);
        } else if let Some(w) = won
            && d == best
            && distance_sq(w.centre(), probe) > distance_sq(c, probe)
        {
            won = Some(*shape);
        }
    }
    let w = won?;
    w.is_solid().then(|| (cell(w.min_x), cell(w.min_y), cell(w.min_z)))
}
