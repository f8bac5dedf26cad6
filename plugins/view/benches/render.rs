//! Drawing times on a generated 256×256 rough terrain (height noise, stone under grass, trees of
//! logs and leaves, ponds), one thread: a 256×256 first-person `render` looking over the
//! terrain, and `map_image` at radius 32 and 128, each with its snapshot and PNG encoding.
//! `cargo bench -p clawcraft-view --bench render`.

use std::hint::black_box;
use std::sync::Arc;
use std::time::{Duration, Instant};

use clawcraft_view::commands::png_base64;
use clawcraft_view::map::{MapView, map};
use clawcraft_view::render::{Camera, render};
use clawcraft_view::scene::Scene;
use clawcraft_world::chunk::storage::block_index;
use clawcraft_world::chunk::{ColumnMode, PalettedStorage, WireSubChunk, World};
use clawcraft_world::ids::IdTable;

/// 16 × 16 columns = 256 × 256 blocks, origin at the corner.
const COLS: i32 = 16;

fn id(ids: &IdTable, name: &str) -> u32 {
    let s = ids.registry.states_named(name).next().unwrap_or_else(|| panic!("{name} exists"));
    ids.map.network_id(s).unwrap_or_else(|| panic!("{name} has an id"))
}

fn height(x: i32, z: i32) -> i32 {
    let (a, b) = (f64::from(x), f64::from(z));
    ((a * 0.071).sin() * 3.0 + (b * 0.053).cos() * 2.5 + ((a + b) * 0.131).sin() * 1.5).round() as i32
}

fn hash(x: i32, z: i32) -> u32 {
    let mut h = (x as u32).wrapping_mul(0x9E37_79B9) ^ (z as u32).wrapping_mul(0x85EB_CA6B);
    h ^= h >> 15;
    h.wrapping_mul(0x2C1B_3C6D)
}

fn world(ids: &IdTable) -> World {
    let [air, stone, grass, log, leaves, water] =
        ["air", "stone", "grass_block", "oak_log", "oak_leaves", "water"].map(|n| id(ids, n));
    let mut w = World::new(0);
    w.set_air_id(air);
    for cx in 0..COLS {
        for cz in 0..COLS {
            let mut subs = Vec::new();
            for row in -4..20 {
                let mut s = PalettedStorage::Single(if row < -1 { stone } else { air });
                if (-1..=1).contains(&row) {
                    for lx in 0..16 {
                        for lz in 0..16 {
                            let (x, z) = (cx * 16 + lx, cz * 16 + lz);
                            let (h, r) = (height(x, z), hash(x, z));
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
                                s.set(block_index(lx as usize, ly as usize, lz as usize), block);
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

/// CPU time of this thread so far (`/proc/thread-self/schedstat`, ns on a CPU): on a machine
/// shared with other work, the time the drawing itself took.
fn cpu_time() -> Option<Duration> {
    let text = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    text.split_whitespace().next()?.parse().ok().map(Duration::from_nanos)
}

fn time(label: &str, reps: u32, mut f: impl FnMut() -> usize) {
    let mut times: Vec<Duration> = Vec::new();
    let mut cpu: Vec<Duration> = Vec::new();
    let mut bytes = 0;
    for _ in 0..reps {
        let (began, cpu0) = (Instant::now(), cpu_time());
        bytes = black_box(f());
        times.push(began.elapsed());
        if let (Some(a), Some(b)) = (cpu0, cpu_time()) {
            cpu.push(b.saturating_sub(a));
        }
    }
    times.sort();
    cpu.sort();
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    let cpu = cpu.get(cpu.len() / 2).map_or_else(String::new, |c| format!(", CPU median {:.2} ms", ms(*c)));
    println!(
        "{label}: median {:.2} ms, min {:.2} ms{cpu} ({reps} runs on one thread, snapshot + draw + PNG + base64, {bytes} base64 chars)",
        ms(times[times.len() / 2]),
        ms(times[0])
    );
}

fn main() {
    let ids = Arc::new(IdTable::new("1.26.45", true).expect("block data"));
    let world = world(&ids);
    let eye = [128.5, f64::from(height(128, 128)) + 2.62, 128.5];
    for (label, pitch) in [("render 256×256, level gaze (half sky)", 0.0), ("render 256×256, looking down 30°", 30.0)]
    {
        let cam = Camera { eye, yaw: 45.0, pitch, fov: 70.0, width: 256, height: 256 };
        time(label, 30, || {
            let (cols, rows) = cam.reach();
            let mut scene = Scene::capture(&world, ids.clone(), cols, rows);
            let rgb = render(&mut scene, &cam);
            png_base64(&rgb, cam.width, cam.height).map(|s| s.len()).unwrap_or(0)
        });
    }
    // The parts of the level-gaze picture: snapshot, drawing, encoding.
    let cam = Camera { eye, yaw: 45.0, pitch: 0.0, fov: 70.0, width: 256, height: 256 };
    let (cols, rows) = cam.reach();
    let began = Instant::now();
    let mut scene = Scene::capture(&world, ids.clone(), cols, rows);
    let capture = began.elapsed();
    let began = Instant::now();
    let rgb = render(&mut scene, &cam);
    let first = began.elapsed();
    let began = Instant::now();
    black_box(render(&mut scene, &cam));
    let again = began.elapsed();
    let began = Instant::now();
    black_box(png_base64(&rgb, 256, 256).map(|s| s.len()).unwrap_or(0));
    let encode = began.elapsed();
    println!(
        "  parts: snapshot {:.2} ms, draw {:.2} ms (again, sub-chunks decoded: {:.2} ms), PNG + base64 {:.2} ms",
        capture.as_secs_f64() * 1e3,
        first.as_secs_f64() * 1e3,
        again.as_secs_f64() * 1e3,
        encode.as_secs_f64() * 1e3
    );
    for (radius, scale) in [(32, 3), (128, 1)] {
        let view = MapView { centre: [128, 128], radius, scale, ref_y: height(128, 128) };
        time(&format!("map_image radius {radius} ({} px)", view.size()), 30, || {
            let mut scene = Scene::capture(&world, ids.clone(), view.columns(), [-4, 19]);
            let rgb = map(&mut scene, &view);
            png_base64(&rgb, view.size(), view.size()).map(|s| s.len()).unwrap_or(0)
        });
    }
}
