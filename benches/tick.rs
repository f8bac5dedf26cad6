//! CPU time of one idle game tick: a bot spawned on the ground of a small flat world, in a
//! simulation (no sockets, so this is the ECS schedule, every plugin's per-tick systems, the
//! movement step of a bot standing still and the PlayerAuthInput encode), measured over many
//! ticks: as a settled tick (an idle bot's, see `clawcraft::settled`), then back to back through
//! the schedules too. Run with `cargo bench --bench tick`; prints JSON. `TICK_PACED=N` sets the paced ticks
//! (default 200), `TICK_PACED_ONLY=1` skips the back-to-back run (to profile the paced one).
//!
//! Then auto_clutch's fall prediction: the movement physics stepped from 340 blocks up to the
//! landing (what each tick of a fall with the policy on computes), µs a prediction.
//!
//! Then a running `collect`'s tick: the command's tick (the search over a radius of 32 for the
//! nearest block, the path plan to it), and each tick of its walk there (path following, the
//! collect's own step), µs a tick.
//!
//! Then the machine's **floor** for any 20 Hz bot, paced the same way with no bot at all: a thread
//! that only sleeps to the next deadline, one that also sends a datagram to a UDP echo (another
//! thread on loopback, as the peer is another process), and one that also drains the echo's
//! answers — what an idle tick costs before any of our code runs.

use std::time::Instant;

use clawcraft::settled::FullTicks;
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
    // The settled tick (what an idle bot runs), then the same tick through the schedules.
    for mode in ["back to back", "back to back, full ticks"] {
        if mode.ends_with("full ticks") {
            sim.app.insert_resource(FullTicks);
        }
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
            json!({"bench": "idle_tick", "mode": mode, "ticks": ticks, "unit": "us",
                   "per_tick": (per_tick * 10.0).round() / 10.0})
        );
    }
    sim.app.world_mut().remove_resource::<FullTicks>();
    fall_prediction(&mut sim);
    collect_tick();
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
    floor(paced);
}

/// auto_clutch's prediction of a long fall (the bot put 340 blocks above the ground, falling).
fn fall_prediction(sim: &mut clawcraft::sim::Simulation) {
    use clawcraft::movement::{FallCourse, predict_fall};
    sim.command(r#"{"action":"setpos","x":0.5,"y":280,"z":0.5}"#);
    sim.ticks(2);
    let bot = sim.bot;
    let calls = 2_000u32;
    let mut steps = 0;
    let t = Instant::now();
    for _ in 0..calls {
        if let FallCourse::Lands { ticks, .. } = predict_fall(sim.app.world(), bot, (0.0, 90.0), 200) {
            steps = ticks;
        }
    }
    let per_call = t.elapsed().as_secs_f64() * 1e6 / f64::from(calls);
    assert!(steps > 0, "the fall lands within the horizon");
    println!(
        "{}",
        json!({"bench": "fall_prediction", "steps": steps, "calls": calls, "unit": "us",
               "per_call": (per_call * 10.0).round() / 10.0,
               "per_step_ns": (per_call * 1e3 / f64::from(steps)).round()})
    );
    sim.command(r#"{"action":"setpos","x":0.5,"y":-60,"z":0.5}"#);
    sim.ticks(5);
    let _ = sim.sent();
}

/// A `collect` of stone 24 blocks east on the flat world: its first tick (the command, the
/// search for the nearest block, the plan) and the ticks of its walk there.
fn collect_tick() {
    use clawcraft::protocol::packets::{FullContainerName, InventoryContent, ItemInstance};
    let mut world = SimWorld::flat(2);
    world.set([24, -60, 0], "stone", &[]);
    let mut sim = world.spawn([0.5, -60.0, 0.5]);
    sim.receive(&InventoryContent {
        window_id: "inventory".into(),
        input: vec![ItemInstance::air(); 36],
        container: FullContainerName::of("anvil_input"),
        storage_item: ItemInstance::air(),
    });
    for _ in 0..100 {
        sim.tick();
        let _ = sim.sent();
    }
    let t = Instant::now();
    let r = sim.command(r#"{"action":"collect","block":"stone","exact":true,"radius":32}"#);
    let first = t.elapsed().as_secs_f64() * 1e6;
    assert_eq!(r["collecting"], true, "{r:?}");
    let ticks = 60u32;
    let t = Instant::now();
    for _ in 0..ticks {
        sim.tick();
    }
    let per_tick = t.elapsed().as_secs_f64() * 1e6 / f64::from(ticks);
    let _ = sim.sent();
    let feet = sim.component::<clawcraft::core::Position>().map_or(0.0, |p| p.0.x);
    assert!(feet > 5.0, "the collect walks toward the block (feet x {feet})");
    assert!(!sim.event_types().iter().any(|t| t == "collect_done"), "still collecting");
    println!(
        "{}",
        json!({"bench": "collect_tick", "mode": "walking to stone 24 blocks off", "ticks": ticks, "unit": "us",
               "first_tick": (first * 10.0).round() / 10.0,
               "per_tick": (per_tick * 10.0).round() / 10.0})
    );
}

/// The floor: the runner's sleep, the input's `send`, the drain of the server's answer — without
/// anything else.
fn floor(paced: u32) {
    use std::net::UdpSocket;
    let echo = UdpSocket::bind("127.0.0.1:0").expect("echo socket");
    let echo_at = echo.local_addr().expect("echo address");
    std::thread::spawn(move || {
        let mut buf = [0u8; 2048];
        // Answers each datagram with a short one, as the server answers each of ours with an ACK.
        while let Ok((_, from)) = echo.recv_from(&mut buf) {
            let _ = echo.send_to(&buf[..7], from);
        }
    });
    let socket = UdpSocket::bind("127.0.0.1:0").expect("socket");
    socket.connect(echo_at).expect("connect");
    socket.set_nonblocking(true).expect("non-blocking");
    let (input, mut buf) = ([0x84u8; 120], [0u8; 2048]);
    for (mode, send, drain) in
        [("sleep", false, false), ("sleep + send", true, false), ("sleep + send + recv", true, true)]
    {
        let cpu0 = cpu_seconds();
        let mut next = Instant::now();
        for _ in 0..paced {
            if drain {
                while socket.recv(&mut buf).is_ok() {}
            }
            if send {
                let _ = socket.send(&input);
            }
            next += std::time::Duration::from_millis(50);
            std::thread::sleep(next.saturating_duration_since(Instant::now()));
        }
        let per_tick = (cpu_seconds() - cpu0) * 1e6 / f64::from(paced);
        println!(
            "{}",
            json!({"bench": "idle_floor", "mode": mode, "ticks": paced, "unit": "us",
                   "per_tick": (per_tick * 10.0).round() / 10.0,
                   "cpu_share_percent": (per_tick * 20.0 / 1e4 * 1000.0).round() / 1000.0})
        );
        // The answers of a mode that did not drain them are not the next mode's work.
        while socket.recv(&mut buf).is_ok() {}
    }
}

/// CPU time of this thread so far (Linux `schedstat`, nanosecond resolution), in seconds.
fn cpu_seconds() -> f64 {
    let stat = std::fs::read_to_string("/proc/thread-self/schedstat").unwrap_or_default();
    stat.split_whitespace().next().and_then(|ns| ns.parse::<f64>().ok()).unwrap_or(0.0) / 1e9
}
