//! `Physics::tick` timings and the walking speed on flat ground. `cargo bench -p clawcraft-physics`.
//!
//! - ns per tick walking on flat ground, and sprint-jumping through a cluttered area (stairs,
//!   slabs, fences, a ladder wall, water and cobweb in a 16 × 16 patch);
//! - blocks per second over 200 ticks (after a 40-tick run-up) of walking and of sprinting on flat
//!   stone, against vanilla's 4.317 and 5.612, and the vertical drift meanwhile.

use std::hint::black_box;
use std::time::Instant;

use clawcraft_physics::{Aabb, Block, BlockPhysics, Config, Input, Keys, Physics, PlayerState, Vec3, World};

const CUBE: [Aabb; 1] = [Aabb::new(0.0, 0.0, 0.0, 1.0, 1.0, 1.0)];
const SLAB: [Aabb; 1] = [Aabb::new(0.0, 0.0, 0.0, 1.0, 0.5, 1.0)];
const STAIRS: [Aabb; 2] = [Aabb::new(0.0, 0.0, 0.0, 1.0, 0.5, 1.0), Aabb::new(0.5, 0.5, 0.0, 1.0, 1.0, 1.0)];
const FENCE: [Aabb; 1] = [Aabb::new(0.375, 0.0, 0.375, 0.625, 1.5, 0.625)];
const LADDER: [Aabb; 1] = [Aabb::new(0.0, 0.0, 0.8125, 1.0, 1.0, 1.0)];

/// Stone below y = 0.
struct Flat;

impl World for Flat {
    fn block(&self, _x: i32, y: i32, _z: i32) -> Block<'_> {
        if y < 0 { Block { physics: BlockPhysics::PLAIN, shapes: &CUBE } } else { Block::AIR }
    }
}

/// Stone below y = 0 and a repeating 16 × 16 patch of obstacles at y = 0..1.
struct Cluttered {
    blocks: Vec<(BlockPhysics, &'static [Aabb])>,
}

impl Cluttered {
    fn new() -> Self {
        let none = |_: &str| None;
        Self {
            blocks: vec![
                (BlockPhysics::AIR, &[]),
                (BlockPhysics::PLAIN, &SLAB),
                (BlockPhysics::PLAIN, &STAIRS),
                (BlockPhysics::of("oak_fence", none), &FENCE),
                (BlockPhysics::of("ladder", none), &LADDER),
                (BlockPhysics::of("water", none), &[]),
                (BlockPhysics::of("web", none), &[]),
            ],
        }
    }
}

impl World for Cluttered {
    fn block(&self, x: i32, y: i32, z: i32) -> Block<'_> {
        if y < 0 {
            return Block { physics: BlockPhysics::PLAIN, shapes: &CUBE };
        }
        if y > 1 {
            return Block::AIR;
        }
        let (x, z) = (x.rem_euclid(16), z.rem_euclid(16));
        let kind = match (x, z, y) {
            (_, 3, 0) if x % 4 == 0 => 1,
            (5, _, 0) if z % 3 == 0 => 2,
            (_, 9, 0) if x % 5 == 1 => 3,
            (12, _, _) if z % 7 == 2 => 4,
            (_, 13, 0) if x < 6 => 5,
            (14, 14, 0) => 6,
            _ => 0,
        };
        let (physics, shapes) = self.blocks[kind];
        Block { physics, shapes }
    }
}

fn keys(sprint: bool, jump: bool) -> Input {
    Input { keys: Keys { up: true, sprint, jump, ..Keys::default() }, yaw: 0.0, ..Input::default() }
}

/// Mean ns per tick over `n` ticks, with the yaw turning a little every tick.
fn time_ticks<W: World>(world: &W, input: Input, n: usize) -> f64 {
    let mut physics = Physics::new(Config::for_version("1.26.45"));
    let mut state = PlayerState::new(Vec3::new(0.5, 0.0, 0.5));
    state.on_ground = true;
    let start = Instant::now();
    for i in 0..n {
        let mut inp = input;
        inp.yaw = (i % 360) as f32 * 0.37;
        black_box(physics.tick(&mut state, &inp, world));
    }
    start.elapsed().as_nanos() as f64 / n as f64
}

/// Blocks per second along +z over 200 ticks after a 40-tick run-up, and the largest height
/// reached above the floor meanwhile (the vertical drift).
fn speed(input: Input) -> (f64, f32) {
    let mut physics = Physics::new(Config::for_version("1.26.45"));
    let mut state = PlayerState::new(Vec3::new(0.5, 0.0, 0.5));
    state.on_ground = true;
    for _ in 0..40 {
        physics.tick(&mut state, &input, &Flat);
    }
    let z0 = f64::from(state.position.z);
    let mut drift = 0.0_f32;
    for _ in 0..200 {
        physics.tick(&mut state, &input, &Flat);
        drift = drift.max(state.position.y.abs());
    }
    ((f64::from(state.position.z) - z0) / 10.0, drift)
}

fn main() {
    let n = 200_000;
    time_ticks(&Flat, keys(false, false), 10_000);
    let flat = time_ticks(&Flat, keys(false, false), n);
    let cluttered = time_ticks(&Cluttered::new(), keys(true, true), n);
    let (walk, walk_drift) = speed(keys(false, false));
    let (sprint, sprint_drift) = speed(keys(true, false));
    let drift = walk_drift.max(sprint_drift);
    println!(
        "{{\"tick_ns_flat_walk\":{flat:.0},\"tick_ns_cluttered_sprint_jump\":{cluttered:.0},\"walk_blocks_per_s\":{walk:.3},\"sprint_blocks_per_s\":{sprint:.3},\"vertical_drift_blocks\":{drift},\"vanilla_walk\":4.317,\"vanilla_sprint\":5.612}}"
    );
}
