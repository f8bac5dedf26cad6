use std::collections::BTreeMap;
use std::time::Duration;

use serde_json::json;

use super::*;

fn limits() -> Limits {
    Limits {
        max_ops: 5_000_000,
        slice_ops: 200_000,
        max_helper_calls: 20,
        memory_bytes: 8 << 20,
        stack_bytes: 256 << 10,
    }
}

struct Driven {
    end: ScriptEnd,
    calls: Vec<Call>,
    ticks: u64,
}

/// Runs a script tick by tick; `serve` answers each call and may schedule a delivery `delay`
/// ticks later.
fn drive(
    source: &str,
    params: Json,
    limits: Limits,
    mut serve: impl FnMut(&Call) -> (Reply, Option<(u64, Json)>),
) -> Driven {
    let helpers = vec![
        ("pos".to_owned(), HelperKind::Query),
        ("chat".to_owned(), HelperKind::Instant),
        ("walk".to_owned(), HelperKind::Action),
    ];
    let spec = ScriptSpec { source: source.into(), params, helpers, limits, seed: 42, prelude: None };
    let mut handle = ScriptHandle::spawn(spec, "test").expect("thread");
    let mut due: BTreeMap<u64, Vec<(u32, Json)>> = BTreeMap::new();
    let mut calls = Vec::new();
    for tick in 100..2_000u64 {
        let mut deliveries = due.remove(&tick).unwrap_or_default();
        let mut serve_call = |call: Call| {
            let (reply, later) = serve(&call);
            if let Some((delay, v)) = later {
                due.entry(tick + delay).or_default().push((call.seq, v));
            }
            calls.push(call);
            reply
        };
        if let SliceEnd::Finished(end) =
            handle.run_slice(tick, &mut deliveries, Duration::from_secs(10), &mut serve_call)
        {
            return Driven { end, calls, ticks: tick - 100 };
        }
    }
    panic!("the script did not finish");
}

fn simple(source: &str) -> Driven {
    drive(source, json!({}), limits(), |_| (Reply::Value(json!({})), None))
}

#[test]
fn run_returns_its_value_and_sees_its_params() {
    let d = drive("export async function run(ctx, p) { return {twice: p.n * 2}; }", json!({"n": 21}), limits(), |_| {
        (Reply::Value(json!({})), None)
    });
    assert_eq!(d.end.status, RunStatus::Returned);
    assert_eq!(d.end.value, Some(json!({"twice": 42})));
    assert_eq!(d.ticks, 0, "no helper: finishes in its first slice");
}

#[test]
fn queries_are_synchronous_and_errors_are_catchable_helper_errors() {
    let src = r#"export async function run(ctx) {
        const a = ctx.pos().pos.x;
        let code = null;
        try { ctx.pos({bad: true}); } catch (e) { code = e.name + ':' + e.code; }
        return {a, code};
    }"#;
    let d = drive(src, json!({}), limits(), |c| {
        if c.params.get("bad").is_some() {
            (Reply::Error { code: "INVALID_PARAMS".into(), message: "nope".into() }, None)
        } else {
            (Reply::Value(json!({"pos": {"x": 1.5}})), None)
        }
    });
    assert_eq!(d.end.value, Some(json!({"a": 1.5, "code": "HelperError:INVALID_PARAMS"})));
    assert_eq!(d.calls.len(), 2);
    assert_eq!(d.calls[1].params, json!({"bad": true}));
}

#[test]
fn actions_resolve_on_later_ticks_and_tick_counts_from_the_start() {
    let src = r#"export async function run(ctx) {
        const t0 = ctx.tick();
        const c = await ctx.chat({message: 'hi'});
        const w = await ctx.walk({x: 1, z: 2});
        return {t0, chat: c.status, walk: w.status, t1: ctx.tick()};
    }"#;
    let d = drive(src, json!({}), limits(), |c| match c.helper.as_str() {
        "chat" => (Reply::Resolved(json!({"status": "done"})), None),
        _ => (Reply::Pending, Some((7, json!({"status": "done"})))),
    });
    assert_eq!(d.end.status, RunStatus::Returned, "{:?}", d.end.error);
    assert_eq!(d.end.value, Some(json!({"t0": 0, "chat": "done", "walk": "done", "t1": 7})));
    assert_eq!(d.ticks, 7);
    assert_eq!(d.calls.iter().map(|c| c.helper.as_str()).collect::<Vec<_>>(), ["chat", "walk"]);
}

#[test]
fn an_endless_loop_spans_ticks_in_slices_then_hits_the_op_budget() {
    let d = simple("export async function run(ctx) { while (true) {} }");
    assert_eq!(d.end.status, RunStatus::OpBudget);
    // 5 M ops in slices of 200 k: about 25 ticks, never all at once.
    assert!(d.ticks >= 20, "paused at slice ends: {} ticks", d.ticks);
    assert!(d.end.usage.ops >= 5_000_000);
}

#[test]
fn the_sandbox_ends_each_escape_attempt_with_a_clear_status() {
    let cases = [
        ("function f(n) { return f(n + 1) + 1; } return f(0);", RunStatus::StackOverflow),
        ("const a = []; while (true) a.push('x'.repeat(1 << 20));", RunStatus::MemoryLimit),
        ("return eval('1 + 1');", RunStatus::Forbidden),
        ("return Function('return 1')();", RunStatus::Forbidden),
        ("return (() => 0).constructor('return globalThis')();", RunStatus::Forbidden),
        ("return (async () => 0).constructor('return 1')();", RunStatus::Forbidden),
        ("return ctx.pos.constructor('return 1')();", RunStatus::Forbidden),
        ("return Object.getPrototypeOf(function* () {}).constructor('yield 1')().next();", RunStatus::Forbidden),
        ("return await import('fs');", RunStatus::Forbidden),
        ("return Math.random();", RunStatus::Forbidden),
        ("try { eval('1') } catch (e) {} return 'caught';", RunStatus::Forbidden),
        ("return Date.now();", RunStatus::Threw),
        ("Object.prototype.polluted = 1; return 1;", RunStatus::Threw),
        ("throw new Error('boom');", RunStatus::Threw),
    ];
    for (body, want) in cases {
        let d = simple(&format!("export async function run(ctx, params) {{ {body} }}"));
        assert_eq!(d.end.status, want, "{body}: {:?}", d.end.error);
    }
}

#[test]
fn the_helper_budget_ends_the_run() {
    let mut l = limits();
    l.max_helper_calls = 3;
    let d = drive("export async function run(ctx) { for (;;) ctx.pos(); }", json!({}), l, |_| {
        (Reply::Value(json!({})), None)
    });
    assert_eq!(d.end.status, RunStatus::HelperBudget);
    assert_eq!(d.calls.len(), 3);
}

#[test]
fn rand_is_seeded_and_logs_are_kept() {
    let src = "export async function run(ctx) { ctx.log('r', 1, {a: 2}); return [ctx.rand(), ctx.rand()]; }";
    let a = simple(src);
    let b = simple(src);
    assert_eq!(a.end.value, b.end.value, "same seed, same numbers");
    let v = a.end.value.expect("value");
    assert_ne!(v[0], v[1]);
    assert!(v[0].as_f64().is_some_and(|x| (0.0..1.0).contains(&x)));
    assert_eq!(a.end.logs, vec![r#"r 1 {"a":2}"#]);
}

#[test]
fn wait_ticks_is_a_recorded_helper() {
    let d = drive(
        "export async function run(ctx) { await ctx.waitTicks(3); return ctx.tick(); }",
        json!({}),
        limits(),
        |c| {
            assert_eq!(c.helper, WAIT_HELPER);
            let n = c.params["ticks"].as_u64().unwrap_or(0);
            (Reply::Pending, Some((n, json!({"status": "done"}))))
        },
    );
    assert_eq!(d.end.value, Some(json!(3)));
}

#[test]
fn source_checks_name_what_is_wrong() {
    assert!(check_source("export async function run(ctx, params) { return 1; }").is_ok());
    let bad = [
        ("export async function run(ctx) { return ; ) }", "SyntaxError"),
        ("export function run(ctx) { return 1; }", "async"),
        ("export const x = 1;", "export async function run"),
        ("import fs from 'fs'; export async function run() {}", "imports are not available"),
        ("while (true) {} export async function run() {}", "op_budget"),
        ("eval('1'); export async function run() {}", "eval is not available"),
    ];
    for (src, want) in bad {
        let e = check_source(src).expect_err(src);
        assert!(e.message.contains(want), "{src}: {}", e.message);
    }
}
