//! The player's movement state, attributes and effects, and the rules that differ by version.

use crate::block::Slowdown;
use crate::input::Keys;
use crate::{Aabb, Vec3};

/// Box width.
pub const PLAYER_WIDTH: f32 = 0.6;
/// Standing box height.
pub const STAND_HEIGHT: f32 = 1.8;
/// Sneaking box height.
pub const SNEAK_HEIGHT: f32 = 1.49;
/// Swimming / crawling box height.
pub const SWIM_HEIGHT: f32 = 0.6;
/// Eye height above the feet: PlayerAuthInput's position is the feet plus this.
pub const EYE_HEIGHT: f32 = 1.620_01;

/// Rules that changed between game versions.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Config {
    /// The highest a move steps up (0.5625; Java's is 0.6).
    pub step_height: f32,
    /// From 1.26.20: a slime landing slower than 0.08 does not bounce, the block bounced on is
    /// found among the move's boxes, and the landing tick's gravity is corrected. Before, slime
    /// under the centre of the feet bounced any landing.
    pub bounce_correction: bool,
}

impl Config {
    /// The rules of a game version such as `"1.26.45"` (unparseable versions get the newest).
    pub fn for_version(game_version: &str) -> Self {
        let mut parts = game_version.split('.').map(|p| p.parse::<u32>().unwrap_or(0));
        let v = (parts.next().unwrap_or(99), parts.next().unwrap_or(0), parts.next().unwrap_or(0));
        Self { step_height: 0.5625, bounce_correction: v >= (1, 26, 20) || game_version.is_empty() }
    }
}

impl Default for Config {
    fn default() -> Self {
        Self::for_version("")
    }
}

/// Attributes the server sets (UpdateAttributes).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Attributes {
    /// `minecraft:movement` without the sprint boost (0.1; the client multiplies by 1.3 while
    /// sprinting). Speed and Slowness are applied by the engine from [`Effects`].
    pub movement_speed: f32,
}

impl Default for Attributes {
    fn default() -> Self {
        Self { movement_speed: 0.1 }
    }
}

/// Mob effects that change movement, by level (amplifier + 1; 0 = none).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Effects {
    /// Speed: +20 % walking speed per level.
    pub speed: u8,
    /// Slowness: −15 % per level.
    pub slowness: u8,
    /// Jump Boost: +0.1 jump velocity per level.
    pub jump_boost: u8,
    /// Slow Falling: gravity 0.01 while falling.
    pub slow_falling: u8,
    /// Levitation: rise 0.01 per level per tick (damped).
    pub levitation: u8,
}

impl Effects {
    /// Sets an effect by its Bedrock id (MobEffect's `effect_id`: 1 speed, 2 slowness, 8 jump
    /// boost, 24 levitation, 27 slow falling) to `level` (amplifier + 1; 0 removes it). Returns
    /// whether the id is one that changes movement.
    pub fn set_by_id(&mut self, id: i32, level: u8) -> bool {
        match id {
            1 => self.speed = level,
            2 => self.slowness = level,
            8 => self.jump_boost = level,
            24 => self.levitation = level,
            27 => self.slow_falling = level,
            _ => return false,
        }
        true
    }

    /// Sets an effect by name (`speed`, `slowness`, `jump_boost`, `levitation`, `slow_falling`).
    pub fn set_by_name(&mut self, name: &str, level: u8) -> bool {
        match name {
            "speed" => self.speed = level,
            "slowness" => self.slowness = level,
            "jump_boost" => self.jump_boost = level,
            "levitation" => self.levitation = level,
            "slow_falling" => self.slow_falling = level,
            _ => return false,
        }
        true
    }
}

/// Everything the client remembers between ticks about its own movement. Plain data: clone it to
/// keep a history for re-simulation after a server correction.
#[derive(Debug, Clone, PartialEq)]
pub struct PlayerState {
    /// Feet position: x and z are the box's centre, y its floor (derived from [`Self::aabb`]).
    pub position: Vec3,
    /// Velocity (blocks/tick) after the last tick's friction: PlayerAuthInput's `delta`.
    pub velocity: Vec3,
    /// The collision box, the source of truth for the position (float32 rounding accumulates in
    /// its corners, not in the position).
    pub aabb: Aabb,
    /// On the ground after the last move.
    pub on_ground: bool,
    /// The last move was blocked horizontally.
    pub horizontal_collision: bool,
    /// The last move was blocked vertically.
    pub vertical_collision: bool,
    /// Ticks until the next jump from the ground (10 after a jump; 0 once jump is released).
    pub jump_cooldown: u8,
    /// Sprinting (the x1.3 boost is on).
    pub sprinting: bool,
    /// Sneaking (the pose).
    pub sneaking: bool,
    /// Swimming (the pose).
    pub swimming: bool,
    /// In water / lava, as sensed at the start of the last tick.
    pub in_water: bool,
    /// In lava, as sensed at the start of the last tick.
    pub in_lava: bool,
    /// Fall distance (blocks fallen since last on the ground, water or a climbable).
    pub fall_distance: f32,
    /// Server attributes.
    pub attributes: Attributes,
    /// Active effects.
    pub effects: Effects,
    /// Wears leather boots (stands on powder snow).
    pub leather_boots: bool,
    /// May sprint: false while the food bar is at 6 or below (and the player cannot fly); a
    /// running sprint then stops.
    pub can_sprint: bool,
    /// A teleport was applied since the last tick: the next tick reports `handled_teleport` and
    /// does not move.
    pub teleported: bool,
    // ---- what the next tick compares with ----
    pub(crate) prev_keys: Keys,
    pub(crate) jumping_flag: bool,
    pub(crate) jump_held: bool,
    /// An auto-jump queued by the last move, taken by this tick's jump.
    pub(crate) jump_queued: bool,
    pub(crate) last_requested: [f32; 2],
    pub(crate) last_pos: Option<Vec3>,
    pub(crate) pose_height: f32,
    pub(crate) pose_amount: f32,
    pub(crate) eye_offset: f32,
    pub(crate) eye_offset_prev: f32,
    pub(crate) pending_slowdowns: Option<[bool; 3]>,
    pub(crate) depenetration_bits: u8,
    pub(crate) head_in_water: bool,
    pub(crate) breathing_in_liquid: bool,
}

impl PlayerState {
    /// A player standing still with its feet at `feet`, not yet on the ground (set
    /// [`Self::on_ground`] when known: the first move down lands it otherwise).
    pub fn new(feet: Vec3) -> Self {
        let mut s = Self {
            position: feet,
            velocity: Vec3::ZERO,
            aabb: Aabb::default(),
            on_ground: false,
            horizontal_collision: false,
            vertical_collision: false,
            jump_cooldown: 0,
            sprinting: false,
            sneaking: false,
            swimming: false,
            in_water: false,
            in_lava: false,
            fall_distance: 0.0,
            attributes: Attributes::default(),
            effects: Effects::default(),
            leather_boots: false,
            can_sprint: true,
            teleported: false,
            prev_keys: Keys::default(),
            jumping_flag: false,
            jump_held: false,
            jump_queued: false,
            last_requested: [0.0, 0.0],
            last_pos: None,
            pose_height: STAND_HEIGHT,
            pose_amount: 0.0,
            eye_offset: 0.0,
            eye_offset_prev: 0.0,
            pending_slowdowns: None,
            depenetration_bits: 0,
            head_in_water: false,
            breathing_in_liquid: false,
        };
        s.rebuild_box();
        s
    }

    /// The box rebuilt around the position at the current pose height.
    pub(crate) fn rebuild_box(&mut self) {
        let half = PLAYER_WIDTH * 0.5;
        let p = self.position;
        let min_y = p.y;
        self.aabb = Aabb::new(p.x - half, min_y, p.z - half, p.x + half, min_y + self.pose_height, p.z + half);
    }

    /// Moves the player to `feet` with velocity `velocity` (a server teleport or correction): the
    /// box is rebuilt there. With `announce`, the next tick is a teleport tick: it reports
    /// `handled_teleport` and does not travel or move. The ground flag is left as it is: set
    /// [`Self::on_ground`] from the packet (MovePlayer's `on_ground`) when it says.
    pub fn teleport(&mut self, feet: Vec3, velocity: Vec3, announce: bool) {
        self.position = feet;
        self.velocity = velocity;
        self.rebuild_box();
        self.last_pos = None;
        // The slowdown blocks the last tick ended in still slow the next move (the client keeps them).
        self.fall_distance = 0.0;
        self.teleported = announce;
    }

    /// A server movement correction (CorrectPlayerMovePrediction): the position (feet), velocity
    /// and ground flag it gives are installed, the collision flags cleared and the box rebuilt.
    /// Re-simulate the ticks since the correction's tick from here.
    pub fn correct(&mut self, feet: Vec3, velocity: Vec3, on_ground: bool) {
        self.position = feet;
        self.velocity = velocity;
        self.on_ground = on_ground;
        self.horizontal_collision = false;
        self.vertical_collision = false;
        self.rebuild_box();
        self.last_pos = None;
    }

    /// The eye position PlayerAuthInput reports: the feet plus 1.62001.
    pub fn eye_position(&self) -> Vec3 {
        Vec3::new(self.position.x, self.position.y + EYE_HEIGHT, self.position.z)
    }

    /// The key levels of the previous tick (the next tick's press / release edges compare with them).
    pub fn previous_keys(&self) -> Keys {
        self.prev_keys
    }

    /// Puts the player in or out of the sneaking pose (box 1.49 high, eye lowered), as a state
    /// seeded from a server's flags or a recording would be.
    pub fn set_sneaking(&mut self, sneaking: bool) {
        self.sneaking = sneaking;
        self.pose_height = if self.swimming {
            SWIM_HEIGHT
        } else if sneaking {
            SNEAK_HEIGHT
        } else {
            STAND_HEIGHT
        };
        self.eye_offset = if sneaking { 0.35 } else { 0.0 };
        self.eye_offset_prev = self.eye_offset;
        self.aabb.max_y = self.aabb.min_y + self.pose_height;
    }

    /// Puts the player in or out of the swimming pose (box 0.6 high).
    pub fn set_swimming(&mut self, swimming: bool) {
        self.swimming = swimming;
        self.pose_amount = if swimming { 1.0 } else { 0.0 };
        self.set_sneaking(self.sneaking && !swimming);
        if swimming {
            self.eye_offset = 1.620_01 - 0.400_000_01;
            self.eye_offset_prev = self.eye_offset;
        }
    }

    /// Records the slowdown blocks (cobweb, powder snow, berry bushes) the box is in now, as the
    /// end of a tick does: the next move is slowed by them. For a state placed into the world
    /// rather than simulated there (a spawn, a seed); a teleport keeps the previous ones.
    pub fn sense_blocks_inside<W: crate::World + ?Sized>(&mut self, world: &W) {
        self.pending_slowdowns = Some(crate::tick::slowdowns_in(world, &self.aabb));
    }

    /// Sets the previous tick's keys, for a state seeded mid-motion.
    pub fn set_previous_keys(&mut self, keys: Keys) {
        self.prev_keys = keys;
        self.jump_held = keys.jump;
        self.jumping_flag = keys.jump;
    }
}

/// The slowdown kinds in the order overlapping ones are folded.
pub(crate) const SLOWDOWN_ORDER: [Slowdown; 3] = [Slowdown::PowderSnow, Slowdown::Cobweb, Slowdown::SweetBerryBush];
