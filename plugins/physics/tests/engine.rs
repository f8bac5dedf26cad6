//! Behaviours of the engine on small hand-built worlds (the recorded scenarios in `replay.rs`
//! prove the numbers; these pin what the movement plugin relies on).

use clawcraft_physics::{Aabb, Block, BlockPhysics, Config, Input, Keys, Physics, PlayerState, Vec3, World};

const CUBE: [Aabb; 1] = [Aabb::new(0.0, 0.0, 0.0, 1.0, 1.0, 1.0)];
const LADDER: [Aabb; 1] = [Aabb::new(0.0, 0.0, 0.8125, 1.0, 1.0, 1.0)];

/// A world from a function of the cell: 's' stone, 'l' ladder (plate on its +z side, against a
/// wall there), 'w' water,
/// anything else air.
struct Cells<F: Fn(i32, i32, i32) -> char>(F, BlockPhysics, BlockPhysics);

impl<F: Fn(i32, i32, i32) -> char> World for Cells<F> {
    fn block(&self, x: i32, y: i32, z: i32) -> Block<'_> {
        match (self.0)(x, y, z) {
            's' => Block { physics: BlockPhysics::PLAIN, shapes: &CUBE },
            'l' => Block { physics: self.1, shapes: &LADDER },
            'w' => Block { physics: self.2, shapes: &[] },
            _ => Block::AIR,
        }
    }
}

fn cells<F: Fn(i32, i32, i32) -> char>(f: F) -> Cells<F> {
    Cells(f, BlockPhysics::of("ladder", |_| None), BlockPhysics::of("water", |_| None))
}

fn forward(auto_jump: bool) -> Input {
    Input { keys: Keys { up: true, ..Keys::default() }, auto_jump, ..Input::default() }
}

fn standing(x: f32, y: f32, z: f32) -> PlayerState {
    let mut p = PlayerState::new(Vec3::new(x, y, z));
    p.on_ground = true;
    p
}

fn run<W: World>(world: &W, p: &mut PlayerState, input: Input, ticks: usize) -> f32 {
    let mut physics = Physics::new(Config::for_version("1.26.45"));
    let mut max_y = p.position.y;
    for _ in 0..ticks {
        physics.tick(p, &input, world);
        max_y = max_y.max(p.position.y);
    }
    max_y
}

#[test]
fn auto_jump_climbs_a_one_block_step_but_not_a_wall() {
    let step = cells(|_, y, z| if y < 0 || (y == 0 && z >= 3) { 's' } else { ' ' });
    let mut p = standing(0.5, 0.0, 0.5);
    run(&step, &mut p, forward(true), 40);
    assert_eq!(p.position.y, 1.0, "on top of the step");
    assert!(p.position.z > 3.5, "and walking on: {}", p.position.z);

    let mut q = standing(0.5, 0.0, 0.5);
    run(&step, &mut q, forward(false), 40);
    assert_eq!(q.position.y, 0.0, "without auto-jump it stays below");
    assert!((q.position.z - 2.7).abs() < 1e-4, "against the step: {}", q.position.z);

    let wall = cells(|_, y, z| if y < 0 || (y <= 1 && z >= 3) { 's' } else { ' ' });
    let mut w = standing(0.5, 0.0, 0.5);
    let top = run(&wall, &mut w, forward(true), 40);
    assert_eq!(top, 0.0, "a two-block wall is not jumped at");
}

#[test]
fn sneaking_stops_at_the_edge() {
    let ledge = cells(|_, y, z| if y < 0 && z < 2 { 's' } else { ' ' });
    let mut p = standing(0.5, 0.0, 0.5);
    let sneak = Input { keys: Keys { up: true, sneak: true, ..Keys::default() }, ..Input::default() };
    run(&ledge, &mut p, sneak, 60);
    assert_eq!(p.position.y, 0.0, "still on the ledge");
    assert!(p.position.z > 2.0 && p.position.z < 2.3, "over the edge by less than half the box: {}", p.position.z);
    let mut q = standing(0.5, 0.0, 0.5);
    run(&ledge, &mut q, forward(false), 60);
    assert!(q.position.y < -1.0, "walking off falls: {}", q.position.y);
}

#[test]
fn pushing_into_a_ladder_climbs_at_0_2() {
    // A ladder column at z = 2 (plate on its +z face) on a stone wall at z = 3.
    let world = cells(|_, y, z| match (y, z) {
        (..0, _) => 's',
        (0..=5, 2) => 'l',
        (0..=6, 3) => 's',
        _ => ' ',
    });
    let mut p = standing(0.5, 0.0, 1.5);
    let mut physics = Physics::new(Config::for_version("1.26.45"));
    let mut rises = Vec::new();
    for _ in 0..30 {
        let y = p.position.y;
        physics.tick(&mut p, &forward(false), &world);
        rises.push(p.position.y - y);
    }
    assert!(p.position.y > 3.0, "climbed: {}", p.position.y);
    assert!(rises.iter().any(|r| (r - 0.2).abs() < 1e-6 || (r - 0.117_6).abs() < 1e-3), "{rises:?}");
    assert!(rises.iter().all(|r| *r <= 0.2 + 1e-6), "never faster than 0.2: {rises:?}");
}

#[test]
fn water_sinks_slowly_and_jump_rises() {
    let pool = cells(|_, y, _| {
        if y < -10 {
            's'
        } else if y < 0 {
            'w'
        } else {
            ' '
        }
    });
    let mut p = PlayerState::new(Vec3::new(0.5, -5.0, 0.5));
    let mut physics = Physics::new(Config::for_version("1.26.45"));
    for _ in 0..40 {
        physics.tick(&mut p, &Input::default(), &pool);
    }
    assert!(p.in_water);
    // Sinking settles at 0.005 / (1 − 0.8) = 0.025 a tick.
    assert!((p.velocity.y + 0.025).abs() < 0.0005, "sink speed {}", p.velocity.y);
    let y = p.position.y;
    let swim_up = Input { keys: Keys { jump: true, ..Keys::default() }, ..Input::default() };
    for _ in 0..20 {
        physics.tick(&mut p, &swim_up, &pool);
    }
    assert!(p.position.y > y + 1.0, "rose from {y} to {}", p.position.y);
}

#[test]
fn teleport_and_correction() {
    let flat = cells(|_, y, _| if y < 0 { 's' } else { ' ' });
    let mut physics = Physics::new(Config::default());
    let mut p = standing(0.5, 0.0, 0.5);
    p.teleport(Vec3::new(10.5, 0.0, 10.5), Vec3::ZERO, true);
    let out = physics.tick(&mut p, &forward(false), &flat);
    assert!(out.flags.names().any(|f| f == "handled_teleport"));
    assert_eq!(out.position, Vec3::new(10.5, 1.620_01, 10.5), "a teleport tick does not move");
    let out = physics.tick(&mut p, &forward(false), &flat);
    assert!(!out.flags.names().any(|f| f == "handled_teleport"));
    assert!(out.position.z > 10.5, "moves again after it");
    p.horizontal_collision = true;
    p.correct(Vec3::new(3.5, 0.0, 3.5), Vec3::new(0.0, 0.0, 0.1), true);
    assert!(!p.horizontal_collision && !p.vertical_collision && p.on_ground);
    assert_eq!(p.aabb, Aabb::new(3.2, 0.0, 3.2, 3.8, 1.8, 3.8));
}

#[test]
fn config_by_version() {
    assert!(!Config::for_version("1.26.10").bounce_correction);
    assert!(Config::for_version("1.26.20").bounce_correction);
    assert!(Config::for_version("1.26.45").bounce_correction);
    assert_eq!(Config::default().step_height, 0.5625);
}

/// Blocks per tick along +z once the walk has settled.
fn settled_speed(effects: clawcraft_physics::Effects) -> f32 {
    let flat = cells(|_, y, _| if y < 0 { 's' } else { ' ' });
    let mut p = standing(0.5, 0.0, 0.5);
    p.effects = effects;
    run(&flat, &mut p, forward(false), 60);
    let z = p.position.z;
    run(&flat, &mut p, forward(false), 1);
    p.position.z - z
}

#[test]
fn speed_and_slowness_scale_the_ground_speed() {
    use clawcraft_physics::Effects;
    let base = settled_speed(Effects::default());
    assert!((base - 0.215_86).abs() < 1e-4, "{base}");
    let fast = settled_speed(Effects { speed: 1, ..Effects::default() });
    assert!((fast / base - 1.2).abs() < 1e-3, "speed I: {fast}");
    let slow = settled_speed(Effects { slowness: 1, ..Effects::default() });
    assert!((slow / base - 0.85).abs() < 1e-3, "slowness I: {slow}");
}

#[test]
fn jump_boost_slow_falling_and_levitation() {
    use clawcraft_physics::Effects;
    let flat = cells(|_, y, _| if y < 0 { 's' } else { ' ' });
    let jump = Input { keys: Keys { jump: true, ..Keys::default() }, ..Input::default() };
    let apex = |effects: Effects| {
        let mut p = standing(0.5, 0.0, 0.5);
        p.effects = effects;
        run(&flat, &mut p, jump, 12)
    };
    let normal = apex(Effects::default());
    let boosted = apex(Effects { jump_boost: 1, ..Effects::default() });
    assert!((normal - 1.2522).abs() < 1e-3, "a plain jump peaks at 1.25: {normal}");
    assert!(boosted > normal + 0.3, "jump boost I: {boosted}");

    let mut falling = PlayerState::new(Vec3::new(0.5, 100.0, 0.5));
    falling.effects.slow_falling = 1;
    run(&flat, &mut falling, Input::default(), 100);
    assert!(
        falling.velocity.y > -0.49 && falling.position.y > 60.0,
        "slow falling (terminal −0.49): {:?} at {}",
        falling.velocity,
        falling.position.y
    );

    let mut rising = standing(0.5, 0.0, 0.5);
    rising.effects.levitation = 1;
    run(&flat, &mut rising, Input::default(), 40);
    assert!(rising.position.y > 0.5, "levitation lifts: {}", rising.position.y);
}

/// Random and hostile inputs (NaN and infinite angles and sticks, every key combination, huge
/// yaws) in a world of mixed blocks never panic and never make the position non-finite.
#[test]
fn hostile_inputs_keep_the_state_finite() {
    let world = cells(|x, y, z| match (x.rem_euclid(7), y, z.rem_euclid(5)) {
        (_, ..0, _) => 's',
        (0, 0..=1, _) => 's',
        (3, 0..=4, 2) => 'l',
        (5, 0, _) => 'w',
        _ => ' ',
    });
    let mut physics = Physics::new(Config::default());
    let mut p = standing(2.5, 0.0, 2.5);
    let mut seed = 0x2545_f491_u32;
    let mut next = || {
        seed ^= seed << 13;
        seed ^= seed >> 17;
        seed ^= seed << 5;
        seed
    };
    let angles = [0.0, 45.0, -720.5, 1e9, f32::NAN, f32::INFINITY, f32::NEG_INFINITY, 89.9];
    for _ in 0..20_000 {
        let r = next();
        let keys = Keys {
            up: r & 1 != 0,
            down: r & 2 != 0,
            left: r & 4 != 0,
            right: r & 8 != 0,
            jump: r & 16 != 0,
            sneak: r & 32 != 0,
            sprint: r & 64 != 0,
        };
        let analog = match (r >> 8) % 4 {
            0 => None,
            1 => Some([f32::NAN, 1.0]),
            2 => Some([1e30, -1e30]),
            _ => Some([0.3, 0.4]),
        };
        let input = Input {
            keys,
            analog,
            yaw: angles[(r >> 12) as usize % angles.len()],
            pitch: angles[(r >> 16) as usize % angles.len()],
            auto_jump: r & 128 != 0,
            ..Input::default()
        };
        let out = physics.tick(&mut p, &input, &world);
        assert!(out.position.x.is_finite() && out.position.y.is_finite() && out.position.z.is_finite(), "{out:?}");
        assert!(out.delta.x.is_finite() && out.delta.y.is_finite() && out.delta.z.is_finite(), "{out:?}");
        if p.position.y < -50.0 {
            p.teleport(Vec3::new(2.5, 0.0, 2.5), Vec3::ZERO, true);
        }
    }
}

#[test]
fn hunger_and_item_use_stop_the_sprint() {
    let flat = cells(|_, y, _| if y < 0 { 's' } else { ' ' });
    let sprint = Input { keys: Keys { up: true, sprint: true, ..Keys::default() }, ..Input::default() };
    let mut physics = Physics::new(Config::default());
    let mut p = standing(0.5, 0.0, 0.5);
    let out = physics.tick(&mut p, &sprint, &flat);
    assert!(p.sprinting && out.flags.names().any(|f| f == "start_sprinting"));
    p.can_sprint = false;
    let out = physics.tick(&mut p, &sprint, &flat);
    assert!(!p.sprinting && out.flags.names().any(|f| f == "stop_sprinting"), "hungry: {out:?}");
    let out = physics.tick(&mut p, &sprint, &flat);
    assert!(!p.sprinting && !out.flags.names().any(|f| f == "start_sprinting"), "no start while hungry");
    p.can_sprint = true;
    let eating = Input { using_item: true, ..sprint };
    let out = physics.tick(&mut p, &eating, &flat);
    assert!(!p.sprinting, "no start while using an item");
    assert_eq!(out.move_vector, [0.0, 0.122_499_995], "the move vector is scaled");
}
