//! A* on a generated 256×256 rough terrain (height noise ±6 blocks, stone with grass on top,
//! scattered trees of logs and leaves, ponds): median time and nodes/s for 40- and 200-block paths,
//! for getting 24 blocks away from a point (the `flee` goal) alone and inside a box, snapshot
//! capture, and the cost of a thread hop to the async compute pool versus running a
//! short search inline. `cargo bench -p clawcraft-pathfind --bench astar`.

use std::hint::black_box;
use std::sync::Arc;
use std::time::{Duration, Instant};

use bevy_tasks::{AsyncComputeTaskPool, block_on};
use clawcraft_pathfind::grid::Snapshot;
use clawcraft_pathfind::search::{Goal, Options, Step, find_path, stand, successors};
use clawcraft_world::chunk::{ColumnMode, PalettedStorage, WireSubChunk, World};
use clawcraft_world::ids::IdTable;

/// 16 × 16 columns = 256 × 256 blocks, origin at the corner.
const COLS: i32 = 16;

fn id(ids: &IdTable, name: &str) -> u32 {
    let s = ids.registry.states_named(name).next().unwrap_or_else(|| panic!("{name} exists"));
    ids.map.network_id(s).unwrap_or_else(|| panic!("{name} has an id"))
}

/// Smooth value noise in blocks, deterministic.
fn height(x: i32, z: i32) -> i32 {
    let f =
        |a: f64, b: f64| ((a * 0.071).sin() * 3.0 + (b * 0.053).cos() * 2.5 + ((a + b) * 0.131).sin() * 1.5).round();
    f(f64::from(x), f64::from(z)) as i32
}

fn hash(x: i32, z: i32) -> u32 {
    let mut h = (x as u32).wrapping_mul(0x9E37_79B9) ^ (z as u32).wrapping_mul(0x85EB_CA6B);
    h ^= h >> 15;
    h.wrapping_mul(0x2C1B_3C6D)
}

fn world(ids: &IdTable) -> World {
    let (air, stone, grass, log, leaves, water) = (
        id(ids, "air"),
        id(ids, "stone"),
        id(ids, "grass_block"),
        id(ids, "oak_log"),
        id(ids, "oak_leaves"),
        id(ids, "water"),
    );
    let mut w = World::new(0);
    w.set_air_id(air);
    for cx in 0..COLS {
        for cz in 0..COLS {
            // Sub-chunks covering y −16..31 (rows −1, 0, 1); terrain around y = 0.
            let mut subs: Vec<WireSubChunk> = Vec::new();
            for row in -4..20 {
                let mut s = PalettedStorage::Single(air);
                if (-1..=1).contains(&row) {
                    for lx in 0..16 {
                        for lz in 0..16 {
                            let (x, z) = (cx * 16 + lx, cz * 16 + lz);
                            let h = height(x, z);
                            let r = hash(x, z);
                            for ly in 0..16 {
                                let y = row * 16 + ly;
                                let block = if y < h {
                                    stone
                                } else if y == h {
                                    if r.is_multiple_of(97) { water } else { grass }
                                } else if r.is_multiple_of(61) && y <= h + 4 {
                                    log
                                } else if hash(x / 2, z / 2).is_multiple_of(61) && (h + 3..=h + 5).contains(&y) {
                                    leaves
                                } else {
                                    continue;
                                };
                                s.set(((lx as usize) << 8) | ((lz as usize) << 4) | ly as usize, block);
                            }
                        }
                    }
                }
                subs.push(WireSubChunk { y_index: None, layers: vec![s] });
            }
            w.store_level_chunk(cx, cz, ColumnMode::Full(24), subs, Vec::new());
        }
    }
    w
}

/// A standing cell on top of the terrain at or next to (x, z) (not in a tree or a pond).
fn top(world: &World, ids: &Arc<IdTable>, x: i32, z: i32) -> [i32; 3] {
    let mut snap = Snapshot::capture(world, ids.clone(), [0, COLS - 1, 0, COLS - 1], [-2, 2]);
    for d in 0..8 {
        for y in height(x + d, z) - 1..=height(x + d, z) + 2 {
            if stand(&mut snap, [x + d, y, z]).is_some() {
                return [x + d, y, z];
            }
        }
    }
    panic!("no standing place near ({x}, {z})")
}

/// A fingerprint of a path (cells, feet heights, move kinds): equal paths print equal digests.
fn path_digest(path: &[Step]) -> u64 {
    let mut h = 0xCBF2_9CE4_8422_2325_u64;
    for s in path {
        for v in [s.x as u32, s.y as u32, s.z as u32, s.feet.to_bits(), s.kind as u32] {
            h = (h ^ u64::from(v)).wrapping_mul(0x0100_0000_01B3);
        }
    }
    h
}

fn near(to: [i32; 3]) -> Goal {
    Goal::Near { x: f64::from(to[0]) + 0.5, y: f64::from(to[1]), z: f64::from(to[2]) + 0.5, range: 1.5 }
}

fn run(label: &str, world: &World, ids: &Arc<IdTable>, from: [i32; 3], goal: Goal, reps: u32) {
    let to = clawcraft_pathfind::plan::goal_point(&goal, from);
    let opts = Options { max_nodes: 200_000, max_time: Duration::from_secs(5), ..Options::default() };
    let cols = [0, COLS - 1, 0, COLS - 1];
    let mut times = Vec::new();
    let mut nodes = 0;
    let mut len = 0;
    let mut cost = 0.0;
    let mut digest = 0;
    let mut complete = true;
    for _ in 0..reps {
        let began = Instant::now();
        let mut snap = Snapshot::capture(world, ids.clone(), cols, [-2, 2]);
        let r = find_path(&mut snap, from, goal.clone(), opts);
        times.push(began.elapsed());
        nodes = r.nodes;
        len = r.path.len();
        cost = r.cost;
        digest = path_digest(&r.path);
        complete &= r.complete();
        black_box(r);
    }
    // The search alone: the same snapshot again, its sub-chunks already decoded.
    let mut snap = Snapshot::capture(world, ids.clone(), cols, [-2, 2]);
    black_box(find_path(&mut snap, from, goal.clone(), opts));
    let mut warm: Vec<_> = (0..reps)
        .map(|_| {
            let began = Instant::now();
            black_box(find_path(&mut snap, from, goal.clone(), opts));
            began.elapsed()
        })
        .collect();
    warm.sort();
    times.sort();
    let median = times[times.len() / 2];
    let mean = times.iter().sum::<Duration>() / reps;
    let straight = ((to[0] - f64::from(from[0]) - 0.5).powi(2) + (to[2] - f64::from(from[2]) - 0.5).powi(2)).sqrt();
    println!(
        "{label}: {straight:.0} blocks straight, path {len} steps costing {cost:.2} ticks (digest {digest:016x}), complete {complete}: median {:.2} ms per search (snapshot included; mean {:.2}, min {:.2} over {reps}; on a decoded snapshot {:.2}), {nodes} nodes, {:.0} k nodes/s",
        median.as_secs_f64() * 1e3,
        mean.as_secs_f64() * 1e3,
        times[0].as_secs_f64() * 1e3,
        warm[warm.len() / 2].as_secs_f64() * 1e3,
        nodes as f64 / median.as_secs_f64() / 1e3
    );
}

fn main() {
    let ids = Arc::new(IdTable::new("1.26.45", true).expect("block data"));
    let world = world(&ids);
    // Warm the shared tables.
    let mut snap = Snapshot::capture(&world, ids.clone(), [0, 1, 0, 1], [-1, 1]);
    black_box(find_path(&mut snap, top(&world, &ids, 2, 2), Goal::Xz { x: 10.5, z: 10.5 }, Options::default()));

    run("A* 40 blocks", &world, &ids, top(&world, &ids, 20, 20), near(top(&world, &ids, 48, 48)), 51);
    run("A* 200 blocks", &world, &ids, top(&world, &ids, 20, 20), near(top(&world, &ids, 161, 161)), 21);
    // `flee`'s goal: 24 blocks from a threat 2 blocks west of the start; then the same inside a
    // band 8 blocks wide that runs north–south (the way straight east is out of it).
    let from = top(&world, &ids, 128, 128);
    let threat = (f64::from(from[0]) - 1.5, f64::from(from[1]), f64::from(from[2]) + 0.5);
    let away = Goal::Away { x: threat.0, y: threat.1, z: threat.2, distance: 24.0 };
    run("A* away 24 blocks", &world, &ids, from, away.clone(), 51);
    let band = Goal::Within { min: [from[0] - 4, -16, 0], max: [from[0] + 4, 31, 255] };
    run("A* away 24 blocks within a band", &world, &ids, from, Goal::All(vec![away, band].into()), 51);

    // The same move set through the `pathfinding` crate's A* (exact heuristic weight 1, no
    // budgets, no partial paths), against ours at weight 1.25.
    for (label, from, to) in [
        ("pathfinding::astar 40 blocks", top(&world, &ids, 20, 20), top(&world, &ids, 48, 48)),
        ("pathfinding::astar 200 blocks", top(&world, &ids, 20, 20), top(&world, &ids, 161, 161)),
    ] {
        let goal = Goal::Near { x: f64::from(to[0]) + 0.5, y: f64::from(to[1]), z: f64::from(to[2]) + 0.5, range: 1.5 };
        let opts = Options::default();
        let began = Instant::now();
        let mut snap = Snapshot::capture(&world, ids.clone(), [0, COLS - 1, 0, COLS - 1], [-2, 2]);
        let feet0 = stand(&mut snap, from).expect("start");
        let mut expanded = 0_usize;
        let scale = 1000.0_f32;
        let result = pathfinding::directed::astar::astar(
            &(from, (feet0 * 16.0) as i32),
            |&(p, f16)| {
                expanded += 1;
                successors(&mut snap, p, f16 as f32 / 16.0, goal.clone(), opts)
                    .into_iter()
                    .map(|e| ((e.to, (e.feet * 16.0).round() as i32), (e.cost * scale) as u32))
                    .collect::<Vec<_>>()
            },
            |&(p, _)| {
                let d = ((f64::from(p[0]) + 0.5 - f64::from(to[0]) - 0.5).powi(2)
                    + (f64::from(p[2]) - f64::from(to[2])).powi(2))
                .sqrt();
                ((d - 1.5).max(0.0) as f32 * clawcraft_pathfind::search::WALK * scale * 0.999) as u32
            },
            |&(p, _)| {
                ((f64::from(p[0]) - f64::from(to[0])).powi(2)
                    + (f64::from(p[1]) - f64::from(to[1])).powi(2)
                    + (f64::from(p[2]) - f64::from(to[2])).powi(2))
                .sqrt()
                    <= 1.5
            },
        );
        let t = began.elapsed();
        println!(
            "{label}: {:.2} ms, path {} steps, {expanded} nodes, {:.0} k nodes/s",
            t.as_secs_f64() * 1e3,
            result.map_or(0, |r| r.0.len()),
            expanded as f64 / t.as_secs_f64() / 1e3
        );
    }

    // Snapshot alone: the whole 256×256 map, three sub-chunk rows.
    let began = Instant::now();
    for _ in 0..20 {
        black_box(Snapshot::capture(&world, ids.clone(), [0, COLS - 1, 0, COLS - 1], [-2, 2]));
    }
    println!("snapshot of 256 columns × 5 rows: {:.2} ms", began.elapsed().as_secs_f64() * 1e3 / 20.0);

    // A short (10-block) search inline versus through the async compute pool.
    let pool = AsyncComputeTaskPool::get_or_init(Default::default);
    let (from, to) = (top(&world, &ids, 30, 30), top(&world, &ids, 40, 30));
    let short = move |snap: &mut Snapshot| {
        let goal = Goal::Near { x: f64::from(to[0]) + 0.5, y: f64::from(to[1]), z: f64::from(to[2]) + 0.5, range: 1.5 };
        find_path(snap, from, goal, Options::default())
    };
    let reps = 200;
    let began = Instant::now();
    for _ in 0..reps {
        let mut snap = Snapshot::capture(&world, ids.clone(), [1, 3, 1, 3], [-2, 2]);
        black_box(short(&mut snap));
    }
    let inline = began.elapsed() / reps;
    let began = Instant::now();
    for _ in 0..reps {
        let mut snap = Snapshot::capture(&world, ids.clone(), [1, 3, 1, 3], [-2, 2]);
        let task = pool.spawn(async move { short(&mut snap) });
        black_box(block_on(task));
    }
    let pooled = began.elapsed() / reps;
    println!(
        "10-block search: inline {:.3} ms, through AsyncComputeTaskPool {:.3} ms (spawn + wake + result; the game thread would see the result a tick later)",
        inline.as_secs_f64() * 1e3,
        pooled.as_secs_f64() * 1e3
    );
}
