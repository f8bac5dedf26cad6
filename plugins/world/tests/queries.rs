//! The pure world queries against brute force: `find` equals a full scan of every cell, and the
//! ray walk visits exactly the cells a dense sampling of the ray passes through.

use std::collections::HashSet;

use clawcraft_world::chunk::{ColumnMode, PalettedStorage, WireSubChunk, World};
use clawcraft_world::ids::IdTable;
use clawcraft_world::query::{Cell, find};
use clawcraft_world::raycast::{Face, RayEnd, cast, direction};

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
}

fn id(ids: &IdTable, name: &str) -> u32 {
    let s = ids.registry.states_named(name).next().expect("state");
    ids.map.network_id(s).expect("id")
}

/// 5 × 5 columns of air with `ores` random ore blocks in y −64..−1 (in sub-chunks that palette
/// check must not skip wrongly), some columns missing.
fn random_world(ids: &IdTable, rng: &mut Rng, ores: usize) -> World {
    let (air, ore, stone) = (id(ids, "air"), id(ids, "diamond_ore"), id(ids, "stone"));
    let mut w = World::default();
    w.set_air_id(air);
    for cx in -2..=2 {
        for cz in -2..=2 {
            if rng.below(6) == 0 {
                continue;
            }
            let subs =
                (0..24).map(|_| WireSubChunk { y_index: None, layers: vec![PalettedStorage::Single(air)] }).collect();
            w.store_level_chunk(cx, cz, ColumnMode::Full(24), subs, Vec::new());
        }
    }
    for _ in 0..ores {
        let (x, y, z) = (rng.below(80) as i32 - 40, rng.below(64) as i32 - 64, rng.below(80) as i32 - 40);
        w.set_block(x, y, z, 0, if rng.below(3) == 0 { stone } else { ore });
    }
    w
}

#[test]
fn find_matches_brute_force() {
    let ids = IdTable::new("1.26.45", true).expect("data");
    let mut rng = Rng(0x1234_5678_9ABC_DEF1);
    let wanted: HashSet<u32> = ids.ids_matching("diamond_ore");
    for round in 0..20 {
        let ores = 1 + rng.below(300) as usize;
        let w = random_world(&ids, &mut rng, ores);
        let feet = [rng.unit() * 40.0 - 20.0, -40.0 + rng.unit() * 30.0, rng.unit() * 40.0 - 20.0];
        let radius = 4.0 + rng.unit() * 40.0;
        let count = 1 + rng.below(20) as usize;
        let mut all: Vec<(f64, Cell)> = Vec::new();
        for x in -40..40 {
            for z in -40..40 {
                for y in -64..0 {
                    if let clawcraft_world::chunk::BlockLookup::Loaded(i, _) = w.get_block(x, y, z)
                        && wanted.contains(&i)
                    {
                        let c = Cell { x, y, z };
                        let d = c.distance_to(feet);
                        if d <= radius {
                            all.push((d, c));
                        }
                    }
                }
            }
        }
        all.sort_by(|a, b| a.0.total_cmp(&b.0).then((a.1.y, a.1.z, a.1.x).cmp(&(b.1.y, b.1.z, b.1.x))));
        all.truncate(count);
        let got = find(&w, &ids, &wanted, feet, radius, count);
        let got: Vec<[i32; 3]> = got.blocks.iter().map(|b| [b.x, b.y, b.z]).collect();
        let want: Vec<[i32; 3]> = all.iter().map(|(_, c)| [c.x, c.y, c.z]).collect();
        assert_eq!(got, want, "round {round}: feet {feet:?} radius {radius} count {count}");
    }
}

/// A world with every cell loaded and air, except the given stone cells.
fn open_world(ids: &IdTable, stones: &[[i32; 3]]) -> World {
    let air = id(ids, "air");
    let mut w = World::default();
    w.set_air_id(air);
    for cx in -2..=2 {
        for cz in -2..=2 {
            let subs =
                (0..24).map(|_| WireSubChunk { y_index: None, layers: vec![PalettedStorage::Single(air)] }).collect();
            w.store_level_chunk(cx, cz, ColumnMode::Full(24), subs, Vec::new());
        }
    }
    let stone = id(ids, "stone");
    for &[x, y, z] in stones {
        w.set_block(x, y, z, 0, stone);
    }
    w
}

#[test]
fn ray_walk_visits_every_cell_the_ray_crosses_in_order() {
    let ids = IdTable::new("1.26.45", true).expect("data");
    let w = open_world(&ids, &[]);
    let mut rng = Rng(99);
    for _ in 0..300 {
        let o = [rng.unit() * 20.0 - 10.0, rng.unit() * 20.0 - 10.0, rng.unit() * 20.0 - 10.0];
        let d = [rng.unit() * 2.0 - 1.0, rng.unit() * 2.0 - 1.0, rng.unit() * 2.0 - 1.0];
        let len = 1.0 + rng.unit() * 15.0;
        let ray = cast(&w, o, d, len, |_| false);
        assert_eq!(ray.end, RayEnd::Clear);
        let visited: Vec<Cell> = ray.passed.iter().map(|p| p.cell).collect();
        // Consecutive cells share a face.
        for pair in visited.windows(2) {
            let (a, b) = (pair[0], pair[1]);
            assert_eq!((a.x - b.x).abs() + (a.y - b.y).abs() + (a.z - b.z).abs(), 1, "{a:?} → {b:?}");
        }
        // Every densely sampled cell is visited.
        let n = (d[0] * d[0] + d[1] * d[1] + d[2] * d[2]).sqrt();
        let set: HashSet<(i32, i32, i32)> = visited.iter().map(|c| (c.x, c.y, c.z)).collect();
        for k in 0..=20_000 {
            let t = len * f64::from(k) / 20_000.0;
            let p = [0, 1, 2].map(|a| o[a] + d[a] / n * t);
            let c = (p[0].floor() as i32, p[1].floor() as i32, p[2].floor() as i32);
            assert!(set.contains(&c), "sampled cell {c:?} at t={t} missed");
        }
    }
}

#[test]
fn ray_reports_the_face_and_entry_point() {
    let ids = IdTable::new("1.26.45", true).expect("data");
    let w = open_world(&ids, &[[0, 5, 0], [0, -5, 0], [4, 0, 0], [-4, 0, 0], [0, 0, 4], [0, 0, -4], [0, 0, 0]]);
    let stone = |id: u32| id != w.air_id();
    let o = [0.5, 0.5, 0.5];
    let cases = [
        ([0.0, 1.0, 0.0], [0, 5, 0], Face::Down, 4.5),
        ([0.0, -1.0, 0.0], [0, -5, 0], Face::Up, 4.5),
        ([1.0, 0.0, 0.0], [4, 0, 0], Face::West, 3.5),
        ([-1.0, 0.0, 0.0], [-4, 0, 0], Face::East, 3.5),
        ([0.0, 0.0, 1.0], [0, 0, 4], Face::North, 3.5),
        ([0.0, 0.0, -1.0], [0, 0, -4], Face::South, 3.5),
    ];
    // Skip the start cell: start just outside the stone at the origin by starting above it.
    for (dir, cell, face, dist) in cases {
        let start = [o[0] + dir[0] * 0.6, o[1] + dir[1] * 0.6, o[2] + dir[2] * 0.6];
        let ray = cast(&w, start, dir, 10.0, stone);
        let RayEnd::Hit { cell: c, face: f, distance, .. } = ray.end else { panic!("{dir:?}: {:?}", ray.end) };
        assert_eq!(([c.x, c.y, c.z], f), (cell, Some(face)), "{dir:?}");
        assert!((distance - (dist - 0.6)).abs() < 1e-9, "{dir:?}: {distance}");
    }
    // Starting inside an obstacle: hit at distance 0 with no face.
    let ray = cast(&w, o, [1.0, 0.0, 0.0], 10.0, stone);
    assert!(matches!(ray.end, RayEnd::Hit { face: None, distance: 0.0, .. }));
    // Bedrock rotation: yaw 0 faces +Z, yaw 90 faces −X, pitch 90 looks down.
    let near = |a: [f64; 3], b: [f64; 3]| (0..3).all(|i| (a[i] - b[i]).abs() < 1e-9);
    assert!(near(direction(0.0, 0.0), [0.0, 0.0, 1.0]));
    assert!(near(direction(90.0, 0.0), [-1.0, 0.0, 0.0]));
    assert!(near(direction(0.0, 90.0), [0.0, -1.0, 0.0]));
}

#[test]
fn ray_stops_at_unloaded_cells() {
    let ids = IdTable::new("1.26.45", true).expect("data");
    let w = open_world(&ids, &[]);
    // Columns −2..=2 cover x −32..47; x = 48 has no data.
    let ray = cast(&w, [40.5, 0.5, 0.5], [1.0, 0.0, 0.0], 20.0, |_| false);
    assert_eq!(ray.end, RayEnd::Unloaded { cell: Cell { x: 48, y: 0, z: 0 }, distance: 7.5 });
    // Above the build limit is empty space, not unloaded.
    let ray = cast(&w, [0.5, 318.5, 0.5], [0.0, 1.0, 0.0], 20.0, |_| false);
    assert_eq!(ray.end, RayEnd::Clear);
}
