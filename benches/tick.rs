//! CPU time of one idle game tick: a bot spawned on the ground of a small flat world, in a
//! simulation (no sockets, so this is the ECS schedule, every plugin's per-tick systems, the
//! movement step of a bot standing still and the PlayerAuthInput encode), measured over many
//! ticks. Run with `cargo bench --bench tick`; prints JSON. `TICK_PACED=N` sets the paced ticks
//! (default 200), `TICK_PACED_ONLY=1` skips the back-to-back run (to profile the paced one).

use std::time::Instant;

use clawcraft::simworld::SimWorld;
use serde_json::json;

fn main() {
    let mut sim = SimWorld::flat(2).spawn([0.5, -60.0, 0.5]);
    // Warm-up, and keep the test transport's record of sent batches from growing.
    for _ in 0..500 {
        sim.tick();
        let _ = sim.sent();
    }
    let ticks = if std::env::var_os("TICK_PACED_ONLY").is_some() { 1 } else { 20_000u32 };
    let t = Instant::now();
    for i in 0..ticks {
        sim.tick();
        if i % 100 == 0 {
            let _ = sim.sent();
        }
    }
    let per_tick = t.elapsed().as_secs_f64() * 1e6 / f64::from(ticks);
    println!(
        "{}",
        json!({"bench": "idle_tick", "mode": "back to back", "ticks": ticks, "unit": "us",
               "per_tick": (per_tick * 10.0).round() / 10.0})
    );
    // Paced like the runner (a tick every 50 ms, sleeping in between): the same work from cold
    // caches, as an idle bot does it. The thread's CPU time, so the sleeps do not count.
    let paced: u32 = std::env::var("TICK_PACED").ok().and_then(|v| v.parse().ok()).unwrap_or(200);
    let cpu0 = cpu_seconds();
    for _ in 0..paced {
        std::thread::sleep(std::time::Duration::from_millis(50));
        sim.tick();
        let _ = sim.sent();
    }
    let per_tick = (cpu_seconds() - cpu0) * 1e6 / f64::from(paced);
    println!(
        "{}",
        json!({"bench": "idle_tick", "mode": "paced 20 Hz", "ticks": paced, "unit": "us",
               "per_tick": (per_tick * 10.0).round() / 10.0,
               "cpu_share_percent": (per_tick * 20.0 / 1e4 * 1000.0).round() / 1000.0})
    );
}

/// CPU time of this thread so far (Linux `schedstat`, nanosecond resolution), in seconds.
fn cpu_seconds() -> f64 {
    let stat = std::fs::read_to_string("/proc/thread-self/schedstat").unwrap_or_default();
    stat.split_whitespace().next().and_then(|ns| ns.parse::<f64>().ok()).unwrap_or(0.0) / 1e9
}
