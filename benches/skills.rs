//! Skill runtime figures, printed as JSON: run start overhead, script ops/s, memory of an idle
//! runtime, the wall cost of a query helper call and the tick cost of an action helper round
//! trip. Run with `cargo bench --bench skills`.

use std::time::{Duration, Instant};

use clawcraft::sim::{Simulation, start_game};
use clawcraft_skills::SkillSettings;
use clawcraft_skills::sandbox::{Call, HelperKind, Limits, Reply, ScriptHandle, ScriptSpec, SliceEnd};
use serde_json::{Value, json};

fn limits(max_ops: u64, slice_ops: u64) -> Limits {
    Limits { max_ops, slice_ops, max_helper_calls: 1_000_000, memory_bytes: 64 << 20, stack_bytes: 256 << 10 }
}

/// Runs a script to its end against a `pos` that answers at once; returns (wall, end).
fn drive(source: &str, limits: Limits) -> (Duration, clawcraft_skills::sandbox::ScriptEnd, u64) {
    let spec = ScriptSpec {
        source: source.into(),
        params: json!({}),
        helpers: vec![("pos".into(), HelperKind::Query)],
        limits,
        seed: 1,
        prelude: None,
    };
    let t = Instant::now();
    let mut h = ScriptHandle::spawn(spec, "bench").expect("spawn");
    let mut serve = |_c: Call| Reply::Value(json!({"pos": {"x": 0.5, "y": -60.0, "z": 0.5}}));
    for tick in 0..1_000_000u64 {
        if let SliceEnd::Finished(end) = h.run_slice(tick, &mut Vec::new(), Duration::from_secs(60), &mut serve) {
            return (t.elapsed(), end, tick);
        }
    }
    panic!("did not finish");
}

fn define(sim: &mut Simulation, skill: &str, source: &str, allowlist: &[&str]) {
    let r = sim.command(
        &json!({"action":"skill_define","skill":skill,"purpose":"bench","input_schema":{"type":"object","additionalProperties":false,"properties":{}},
            "parameters":{},"source":source,"helper_api_version":"clawcraft-helpers/v1","helper_allowlist":allowlist,"timeout_ms":600000,
            "verifier":{"kind":"position_delta","max_distance":100},"expected_outcome":"diagnostic","known_failure_modes":[],
            "promotion_policy":{"kind":"promote_after_passed_trial","reject_after_failures":100}})
        .to_string(),
    );
    assert!(r.get("code").is_none(), "{r:?}");
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() {
    // Script throughput: a tight loop until a 100 M op budget runs out, in one slice.
    let (wall, end, _) =
        drive("export async function run(ctx) { let i = 0; for (;;) i++; }", limits(100_000_000, 100_000_000));
    let ops_per_s = end.usage.ops as f64 / wall.as_secs_f64();

    // Wall cost of one synchronous query helper call (script thread ⇄ game thread).
    let n = 20_000;
    let src = format!("export async function run(ctx) {{ for (let i = 0; i < {n}; i++) ctx.pos(); return 1; }}");
    let (wall, _, _) = drive(&src, limits(1_000_000_000, 1_000_000_000));
    let query_us = wall.as_secs_f64() * 1e6 / f64::from(n);

    // Sandbox start: thread, runtime, hardening, compile, first slice of a script that returns.
    let starts: Vec<f64> = (0..50)
        .map(|_| {
            drive("export async function run(ctx) { return 1; }", limits(1_000_000, 1_000_000)).0.as_secs_f64() * 1e3
        })
        .collect();

    // Memory of an idle runtime: a script parked on an action.
    let spec = ScriptSpec {
        source: "export async function run(ctx) { await ctx.waitTicks(100); }".into(),
        params: json!({}),
        helpers: vec![],
        limits: limits(1_000_000, 1_000_000),
        seed: 1,
        prelude: None,
    };
    let mut h = ScriptHandle::spawn(spec, "idle").expect("spawn");
    h.run_slice(0, &mut Vec::new(), Duration::from_secs(10), &mut |_| Reply::Pending);
    let idle_bytes = h.usage.peak_memory;
    drop(h);

    // In the ECS: the tick that runs skill_trial (validation, snapshot, thread start, first slice)
    // against an ordinary tick, and the ticks an action helper's round trip costs.
    let mut sim = Simulation::spawned_with(&start_game());
    sim.app.insert_resource(SkillSettings { slice_deadline: Duration::from_secs(10), ..SkillSettings::default() });
    define(&mut sim, "noop", "export async function run(ctx) { return ctx.pos(); }", &["pos"]);
    define(
        &mut sim,
        "chatter",
        "export async function run(ctx) { const t = ctx.tick(); await ctx.chat({message: 'x'}); await ctx.waitTicks(0); return ctx.tick() - t; }",
        &["chat"],
    );
    let mut plain = Vec::new();
    let mut trial = Vec::new();
    for _ in 0..30 {
        let t = Instant::now();
        sim.tick();
        plain.push(t.elapsed().as_secs_f64() * 1e3);
        let t = Instant::now();
        let r = sim.command(r#"{"action":"skill_trial","skill":"noop"}"#);
        trial.push(t.elapsed().as_secs_f64() * 1e3);
        assert_eq!(r["started"], true);
        sim.tick();
    }
    let r = sim.command(r#"{"action":"skill_trial","skill":"chatter"}"#);
    assert_eq!(r["started"], true);
    sim.ticks(5);
    let done = sim.events().into_iter().rev().find(|e| e["type"] == "skill_finished").expect("finished");
    let wait_rtt: Value = done["result"].clone();

    println!(
        "{}",
        json!({
            "bench": "skills",
            "script_ops_per_s": (ops_per_s / 1e6).round(),
            "script_ops_unit": "million ops/s (an op = a function call or loop back-edge)",
            "query_helper_call_us": (query_us * 10.0).round() / 10.0,
            "sandbox_start_ms_median": (median(starts) * 1000.0).round() / 1000.0,
            "idle_runtime_heap_bytes": idle_bytes,
            "tick_ms_median": (median(plain) * 1000.0).round() / 1000.0,
            "skill_trial_tick_ms_median": (median(trial) * 1000.0).round() / 1000.0,
            "query_helper_round_trip_ticks": 0,
            "instant_action_round_trip_ticks": 0,
            "wait_ticks_0_round_trip_ticks": wait_rtt,
        })
    );
}
