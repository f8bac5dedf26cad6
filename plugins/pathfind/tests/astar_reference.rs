//! The A* against a plain Dijkstra over the same moves ([`successors`]) on small generated
//! worlds (steps, slabs, fences, stairs, water, lava, ladders, doors, holes), several seeds:
//! every path it returns is a chain of legal moves whose costs add up to its cost, it reaches
//! the goal whenever the goal is reachable, and its cost is never below the optimum and, for a
//! goal whose heuristic never overestimates (a column), at most [`HEURISTIC_WEIGHT`] times it.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use clawcraft_pathfind::grid::{MapGrid, NavCell};
use clawcraft_pathfind::search::{Edge, Goal, HEURISTIC_WEIGHT, MoveKind, Options, Step, find_path, stand, successors};
use rustc_hash::FxHashMap;

/// splitmix64: a small deterministic generator.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: u64) -> i32 {
        (self.next() % n) as i32
    }
}

/// Half-width of the generated square; outside it (and above y = 7) there is no data, so the
/// reference search ends.
const R: i32 = 8;

fn world(rng: &mut Rng) -> MapGrid {
    let mut g = MapGrid { cells: FxHashMap::default(), fill: |_| NavCell::UNKNOWN };
    let water = NavCell { flags: NavCell::WATER, hardness: 255, ..NavCell::AIR };
    let lava = NavCell { flags: NavCell::HAZARD, hardness: 255, ..NavCell::AIR };
    let ladder = NavCell { flags: NavCell::CLIMB, ..NavCell::AIR };
    let slab = NavCell { top: 8, bottom: 0, flags: NavCell::SOLID, hardness: 8, pass: 0 };
    let fence = NavCell { top: 24, bottom: 0, flags: NavCell::SOLID, hardness: 8, pass: 0 };
    let stairs = NavCell { top: 16, bottom: 0, flags: NavCell::SOLID | NavCell::STAIRS, hardness: 8, pass: 0 };
    for x in -R..=R {
        for z in -R..=R {
            // Ground height −1..=2, now and then a pillar two higher or a hole.
            let h = match rng.below(12) {
                0 => rng.below(4) + 2,
                1 => -3,
                _ => rng.below(4) - 1,
            };
            for y in -6..h {
                g.cells.insert((x, y, z), NavCell::STONE);
            }
            for y in h..8 {
                g.cells.insert((x, y, z), NavCell::AIR);
            }
            let top = match rng.below(30) {
                0 | 1 => water,
                2 => lava,
                3 | 4 => slab,
                5 => fence,
                6 | 7 => stairs,
                8 => {
                    let pass = if rng.below(3) == 0 { 0 } else { (rng.below(32) as u8) | NavCell::PASS_CENTRE };
                    NavCell { top: 16, bottom: 0, flags: NavCell::SOLID | NavCell::DOOR, hardness: 4, pass }
                }
                9 => {
                    for y in h + 1..h + 4 {
                        g.cells.insert((x, y, z), ladder);
                    }
                    ladder
                }
                _ => continue,
            };
            g.cells.insert((x, h, z), top);
        }
    }
    g
}

/// A cell one can stand in, in column (`x`, `z`), if any.
fn standing(g: &mut MapGrid, x: i32, z: i32) -> Option<[i32; 3]> {
    (-6..8).map(|y| [x, y, z]).find(|&p| stand(g, p).is_some())
}

fn reached(goal: Goal, p: [i32; 3]) -> bool {
    match goal {
        Goal::Xz { x, z } => p[0] == x.floor() as i32 && p[2] == z.floor() as i32,
        Goal::Near { x, y, z, range: 0.0 } => p == [x.floor() as i32, y.floor() as i32, z.floor() as i32],
        _ => unreachable!("only column and cell goals here"),
    }
}

/// The cheapest cost from `start` to `goal` over [`successors`], or `None` when unreachable.
fn dijkstra(g: &mut MapGrid, start: [i32; 3], goal: Goal, opts: Options) -> Option<f32> {
    let feet0 = stand(g, start)?;
    let mut best: FxHashMap<[i32; 3], (f32, f32)> = FxHashMap::default();
    let mut open = BinaryHeap::new();
    best.insert(start, (0.0, feet0));
    open.push(Reverse((0.0_f32.to_bits(), start)));
    while let Some(Reverse((bits, p))) = open.pop() {
        let cost = f32::from_bits(bits);
        let (known, feet) = best[&p];
        if cost > known {
            continue;
        }
        if reached(goal.clone(), p) {
            return Some(cost);
        }
        for e in successors(g, p, feet, goal.clone(), opts) {
            let c = cost + e.cost;
            if best.get(&e.to).is_none_or(|&(b, _)| c < b) {
                best.insert(e.to, (c, e.feet));
                // Costs are positive: their bit patterns order like the numbers.
                open.push(Reverse((c.to_bits(), e.to)));
            }
        }
    }
    None
}

/// The move from step `a` to step `b` of a path (the cheapest one matching `b`).
fn step_move(g: &mut MapGrid, a: &Step, b: &Step, goal: Goal, opts: Options) -> Option<Edge> {
    successors(g, [a.x, a.y, a.z], a.feet, goal.clone(), opts)
        .into_iter()
        .filter(|e| e.to == [b.x, b.y, b.z] && e.feet == b.feet && e.kind == b.kind)
        .min_by(|x, y| x.cost.total_cmp(&y.cost))
}

#[test]
fn a_star_paths_are_legal_and_near_optimal_against_dijkstra() {
    let variants = [
        Options::default(),
        Options { sprint: true, ..Options::default() },
        Options { place: true, ..Options::default() },
        Options { open_doors: true, max_drop: 5, ..Options::default() },
    ];
    let (mut compared, mut unreachable) = (0, 0);
    for seed in 1..=8 {
        let mut rng = Rng(seed);
        let mut g = world(&mut rng);
        for (v, &opts) in variants.iter().enumerate() {
            for k in 0..4 {
                let Some(start) = standing(&mut g, rng.below(2 * R as u64 + 1) - R, rng.below(2 * R as u64 + 1) - R)
                else {
                    continue;
                };
                let (tx, tz) = (rng.below(2 * R as u64 + 1) - R, rng.below(2 * R as u64 + 1) - R);
                let goal = if k % 2 == 0 {
                    Goal::Xz { x: f64::from(tx) + 0.5, z: f64::from(tz) + 0.5 }
                } else {
                    let Some(t) = standing(&mut g, tx, tz) else { continue };
                    Goal::Near { x: f64::from(t[0]) + 0.5, y: f64::from(t[1]), z: f64::from(t[2]) + 0.5, range: 0.0 }
                };
                let case = format!("seed {seed}, options {v}, case {k}: {start:?} to {goal:?}");
                let r = find_path(&mut g, start, goal.clone(), opts);
                let reference = dijkstra(&mut g, start, goal.clone(), opts);

                // Every step is a legal move from the one before, and the costs add up.
                assert_eq!(r.path.first().map(|s| ([s.x, s.y, s.z], s.kind)), Some((start, MoveKind::Start)), "{case}");
                let mut total = 0.0_f32;
                for pair in r.path.windows(2) {
                    let (a, b) = (pair[0], pair[1]);
                    let e = step_move(&mut g, &a, &b, goal.clone(), opts)
                        .unwrap_or_else(|| panic!("{case}: no {:?} move from {a:?} to {b:?}", b.kind));
                    total += e.cost;
                }
                assert_eq!(total, r.cost, "{case}: the moves' costs add up to the path's");

                let Some(best) = reference else {
                    assert!(!r.complete(), "{case}: Dijkstra finds no way, A* does: {:?}", r.path);
                    unreachable += 1;
                    continue;
                };
                assert!(r.complete(), "{case}: reachable at {best} ticks, A* says {:?}", r.incomplete);
                let end = r.path.last().expect("a path");
                assert!(reached(goal.clone(), [end.x, end.y, end.z]), "{case}: ends at {end:?}");
                assert!(r.cost >= best - 1e-3, "{case}: {} below the optimum {best}", r.cost);
                if matches!(goal, Goal::Xz { .. }) {
                    assert!(
                        r.cost <= best * HEURISTIC_WEIGHT + 1e-3,
                        "{case}: {} over {HEURISTIC_WEIGHT} × {best}",
                        r.cost
                    );
                }
                compared += 1;
            }
        }
    }
    // The worlds are rough enough that some goals cannot be reached, and most can.
    assert!(compared >= 60 && unreachable >= 1, "{compared} compared, {unreachable} unreachable");
}
