//! Client-side Bedrock player physics: one 50 ms movement step as the real client computes it.
//!
//! Movement on current Bedrock is server-authoritative: the server re-simulates the player from
//! each PlayerAuthInput and corrects what it disagrees with, so a bot must predict the same
//! physics or it rubber-bands. This crate is that prediction, pure Rust (no Bevy), float32
//! throughout as the client computes it, with no allocation per tick once warm.
//!
//! # Model
//!
//! The float32 collision box ([`PlayerState::aabb`]) is the source of truth; the feet position is
//! derived from it (x and z its centre, y its floor), so float32 rounding accumulates in the box
//! exactly as in the client. A tick ([`Physics::tick`]) runs, in the client's order:
//!
//! 1. **begin**: jump cooldown, the ground block under `minY − 0.1` (its slipperiness), whether the
//!    box is in water or lava, the push of flowing liquid;
//! 2. **input**: the keys (or a stick) cooked into the move vector — **+x is left**, +z forward —,
//!    × 0.3 while sneaking, then × 0.98 for the travel;
//! 3. **sprint**: starts on the sprint key with the move's forward part ≥ 0.7071, stops on a slow
//!    or sideways move, a wall ahead, or jumping in water;
//! 4. **pose**: sneak (box 1.49 high) and swim (0.6) start and stop, with the room to stand;
//! 5. **climb**: ladders and vines clamp the fall to 0.2 and climb on jump, scaffolding at 0.15
//!    and descends while sneaking;
//! 6. **jump**: 0.42 (+0.1 per Jump Boost level, × 0.6 from honey, ladders and vines) with a
//!    10-tick cooldown and the sprint-jump push of 0.2 along the yaw; ±0.04 in liquids;
//! 7. **travel**: the move rotated by the yaw at the travel speed: on the ground
//!    `speed × (0.546 / (slipperiness × 0.91))³` (speed 0.1, × 1.3 sprinting, Speed/Slowness),
//!    0.02 in the air (0.026 sprinting) and in liquids;
//! 8. **move**: cobweb, powder snow and berry bushes scale it, sneaking keeps off edges, the box
//!    sweeps Y then X then Z through the block boxes, stepping up 0.5625 onto what it ran into.
//!    The boxes are the block states' (slabs, doors by their state, walls, trapdoors, …), with
//!    what depends on the neighbours built here: fence and pane arms, and stairs corners;
//! 9. **after the move**: gravity 0.08 then × 0.98 (slow falling 0.01, levitation), horizontal
//!    friction `slipperiness × 0.91` on the ground (0.91 in the air), components ≤ 2⁻²³ flushed;
//!    water drag 0.8 (0.9 sprinting) and a 0.005 sink, lava 0.5 and 0.02; bubble columns, honey
//!    slides, slime and honey underfoot, the landing bounce on slime and beds.
//!
//! # API
//!
//! - [`PlayerState`]: per-player state (plain data; clone it for a re-simulation history),
//!   including [`Attributes`] (movement speed) and [`Effects`].
//! - [`Input`]: one tick of intent: [`Keys`] (or an analogue `[x left, z forward]`), yaw, pitch.
//! - [`World`]: how the engine reads blocks — [`Block`] = [`BlockPhysics`] (friction, liquid,
//!   climbable, slowdown … from [`BlockPhysics::of`] by block name and state) + collision boxes.
//!   [`ShapeTable`] gives the boxes of every block state of a vendored game version.
//! - [`Physics::tick`] advances a state by one tick and returns a [`TickOutput`]: the eye
//!   position (feet + 1.62001), `delta`, the move vectors and the [`InputFlags`] of the tick's
//!   PlayerAuthInput, by their minecraft-data names.
//! - A server teleport or correction: [`PlayerState::teleport`]; the next tick then reports
//!   `handled_teleport`.
//! - [`supporting_cell`]: the block the player stands on, as the collision boxes carry it (the
//!   one nearest the box's centre; on an edge the cell under the centre may be air).
//!
//! ```
//! use clawcraft_physics::{Aabb, Block, BlockPhysics, Config, Input, Keys, Physics, PlayerState, Vec3, World};
//!
//! /// Stone below y = 0, air above.
//! struct Flat;
//! const CUBE: [Aabb; 1] = [Aabb::new(0.0, 0.0, 0.0, 1.0, 1.0, 1.0)];
//! impl World for Flat {
//!     fn block(&self, _x: i32, y: i32, _z: i32) -> Block<'_> {
//!         if y < 0 { Block { physics: BlockPhysics::PLAIN, shapes: &CUBE } } else { Block::AIR }
//!     }
//! }
//!
//! let mut physics = Physics::new(Config::for_version("1.26.45"));
//! let mut player = PlayerState::new(Vec3::new(0.5, 0.0, 0.5));
//! let walk = Input { keys: Keys { up: true, ..Keys::default() }, ..Input::default() };
//! for _ in 0..99 {
//!     physics.tick(&mut player, &walk, &Flat);
//! }
//! let z = player.position.z;
//! let out = physics.tick(&mut player, &walk, &Flat);
//! // Yaw 0 walks toward +z at the walking speed: 0.2159 blocks a tick, 4.317 blocks/s.
//! assert!((player.position.z - z - 0.2159).abs() < 1e-4);
//! assert_eq!(out.position.y, 1.62001); // the eye, on the ground at y = 0
//! assert!(out.flags.names().any(|f| f == "vertical_collision"));
//! ```
//!
//! # A `World` over the bot's chunks
//!
//! Build one table per game version, indexed like `clawcraft-world`'s block registry (the same
//! palette order as [`ShapeTable`]):
//!
//! ```text
//! let shapes = ShapeTable::for_version(version)?;           // boxes of every state
//! let physics: Vec<BlockPhysics> = registry.states().iter().map(|state| {
//!     BlockPhysics::of(&state.name, |key| match state.property(key)? {
//!         StateValue::Int(v) => Some(*v),
//!         StateValue::Byte(b) => Some(i32::from(*b)),
//!         StateValue::Str(_) => None,
//!     })
//! }).collect();
//! // World::block(x, y, z): the state index i at that cell →
//! //     Block { physics: physics[i], shapes: shapes.shapes(i) }
//! // a water layer (layer 1 of the sub-chunk) under a block → physics[i].waterlogged(depth)
//! ```
//!
//! Unloaded cells: the client collides with a chunk it has not loaded as if it were a wall; a
//! `World` that answers [`Block::AIR`] there lets the bot fall into the void instead, so the
//! movement plugin should not move the bot into unloaded columns.
//!
//! # Proven against a real client
//!
//! `tests/replay.rs` replays 182 scenarios recorded from a real Bedrock client (1.26.13: per-tick
//! PlayerAuthInput and the blocks around the path, `tests/vectors/physics/`, see SOURCE.md there)
//! tick by tick from the recorded keys, rotation and blocks, and compares every tick's eye
//! position, delta, move vector and input flags. **180 of 182 match** within float32 tolerance
//! (every position within 1e-4 blocks, or 4 float32 steps where those are coarser; every flag and
//! move vector right), **131 bit for bit**; the test fails if any of the 180 stops matching (or
//! of the 131 stops being exact).
//! Every walking, sprinting, diagonal, jumping, stairs/slab, ladder/vine, scaffolding, ice, soul
//! sand, honey, slime, cobweb, berry bush, lava, effect and fall scenario matches, 21 of 22 in
//! water and 3 of 4 in powder snow.
//!
//! - Not bit for bit: the client rotates the move input with its C runtime's `sinf`/`cosf` (a
//!   vectorised pair in the 1.26.1x builds), which differs from the correctly rounded value by
//!   one float32 step on some angles; the delta then differs in its last bit (1 step) and
//!   positions drift by ~1e-7 blocks.
//! - Not matching: `sink_in_water`, where the server restates the swim flag 40 ticks in (a packet
//!   the recording does not carry), and `walk_into_powder_snow`, whose first ground tick in
//!   powder snow is 3.5 % slower than ours: the client's freezing, not modelled.
//! - The recorded world has no block states: bubble columns are completed up to the water's
//!   surface (the recorder caught them growing), their direction taken from the magma under
//!   them, and the water running out of a pool under open air given its flowing depths (the
//!   pushes the client recorded show it flowing); see `make-physics-vectors.js`.
//! - What a recording does not show is tried both ways: the ground flag of the teleport packet
//!   that starts each scenario, and the sprint and swim states when they began before the
//!   recorded window (6 scenarios need a non-default one). The jump cooldown, sneak, slowdown
//!   blocks and keys the window starts with are read from the recorded ticks before it.
//! - 8 recordings have a player that never moves, and the elytra and flight ones glide or fly
//!   only before their teleport (after it they are free falls): gliding, creative flight,
//!   vehicles and the riptide are not modelled yet.

// Constants are written as the float literals the client's code holds (0.30000001, not 0.3) so
// each reads as its source; NaN-aware negated comparisons (`!(a >= b)`) are kept where the client
// treats NaN that way.
#![allow(clippy::excessive_precision, clippy::neg_cmp_op_on_partial_ord)]

mod aabb;
mod block;
mod collide;
mod flags;
mod input;
mod liquid;
pub mod math;
mod shapes;
mod state;
mod tick;
mod world;

pub use aabb::{Aabb, Vec3};
pub use block::{Block, BlockPhysics, Bubbles, Climb, DEFAULT_FRICTION, Liquid, Slowdown, Stairs};
pub use collide::supporting_cell;
pub use flags::{INPUT_FLAG_NAMES, InputFlag, InputFlags};
pub use input::{Input, Keys};
pub use shapes::{ShapeError, ShapeTable};
pub use state::{
    Attributes, Config, EYE_HEIGHT, Effects, PLAYER_WIDTH, PlayerState, SNEAK_HEIGHT, STAND_HEIGHT, SWIM_HEIGHT,
};
pub use tick::{Physics, TickOutput};
pub use world::World;
