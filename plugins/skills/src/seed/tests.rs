//! Candidates in the seed's shape: a good one is accepted as written; each ban and each rule of
//! the seed's checklist refuses a candidate with a clear error naming the rule and the place.

use serde_json::{Map, Value, json};

use super::*;

const GOOD_SOURCE: &str = r#"interface Params { targetCount: number }
type Outcome = { status: string; collected?: number };

export async function run(ctx: any, params: Params): Promise<Outcome> {
  const result = (await ctx.collectLogs(params.targetCount)) as Outcome;
  return { status: result.status, collected: result.collected ?? 0 };
}
"#;

fn good() -> Map<String, Value> {
    json!({
        "proposed_action_skill_id": "gatherOakLogs",
        "purpose": "Collect the requested number of oak logs from the nearest trees",
        "input_schema": {"type": "object", "properties": {"targetCount": {"type": "integer", "minimum": 1, "maximum": 8}},
                         "required": ["targetCount"], "additionalProperties": false},
        "parameters": {"targetCount": 2},
        "source_language": "typescript",
        "source": GOOD_SOURCE,
        "helper_api_version": "mineflayer-action-skill-helper/v1",
        "helper_allowlist": ["collectLogs"],
        "timeout_ms": 60000,
        "verifier": {"kind": "inventory_delta", "item": "oak_log", "count": 2},
        "known_failure_modes": ["no logs found within search distance", "log unreachable"],
        "promotion_policy": "promote_after_passed_trial"
    })
    .as_object()
    .cloned()
    .unwrap_or_default()
}

fn with(field: &str, v: Value) -> Map<String, Value> {
    let mut raw = good();
    raw.insert(field.into(), v);
    raw
}

fn source(src: &str) -> Map<String, Value> {
    with("source", json!(src))
}

/// Every problem of a refused candidate, one per line.
fn refused(raw: Map<String, Value>) -> String {
    let e = validate(&raw).expect_err("refused");
    e.iter().map(|p| format!("{}: {}", p.field, p.message)).collect::<Vec<_>>().join("\n")
}

#[test]
fn the_seeds_candidate_is_accepted_as_written() {
    let (def, analysis) = validate(&good()).expect("valid");
    assert_eq!(def.skill, "gatherOakLogs");
    assert_eq!(def.helper_api_version, API);
    let parts = def.seed.as_ref().expect("seed parts");
    assert_eq!(parts.source_language, "typescript");
    assert!(parts.compiled.contains("export async function run(ctx, params)"), "{}", parts.compiled);
    assert!(!parts.compiled.contains("interface"), "{}", parts.compiled);
    assert_eq!(analysis.helpers_referenced, ["collectLogs"]);
    assert!(analysis.warnings.is_empty(), "{:?}", analysis.warnings);
    // skill_get shows the seed's fields, exactly those.
    let shown = def.authored();
    let keys: Vec<&str> = shown.as_object().map(|o| o.keys().map(String::as_str).collect()).unwrap_or_default();
    let mut want: Vec<&str> = FIELDS.to_vec();
    want.sort_unstable();
    assert_eq!(keys, want);
    assert_eq!(shown["source"], GOOD_SOURCE);
    assert_eq!(shown["known_failure_modes"][0], "no logs found within search distance");
    // The project's own hash is stable: the same candidate, the same hash.
    assert_eq!(def.hash(), validate(&good()).expect("valid").0.hash());
}

#[test]
fn javascript_is_accepted_too_and_runs_as_written() {
    let js = "export async function run(ctx, params) {\n  return await ctx.collectLogs(params.targetCount);\n}\n";
    let mut raw = source(js);
    raw.insert("source_language".into(), json!("javascript"));
    let (def, _) = validate(&raw).expect("valid");
    assert_eq!(def.seed.as_ref().map(|s| s.compiled.as_str()), Some(js));
}

#[test]
fn syntax_errors_name_line_and_column() {
    let p = refused(source("export async function run(ctx: any, params: any) {\n  const n: number = ;\n}\n"));
    assert!(p.contains("source: SyntaxError at line 2, column 21:"), "{p}");
}

/// One refused candidate per ban of the seed, each naming the rule and its place.
#[test]
fn every_ban_refuses_with_its_rule_and_place() {
    let cases: &[(&str, &str, &str)] = &[
        ("import", "import { readFileSync } from 'x';", "line 1, column 1: `import` is banned"),
        ("require", "const m = require('x');", "line 1, column 11: `require` is banned"),
        ("process", "const e = process.env;", "line 1, column 11: `process` is banned"),
        ("Bun", "const b = Bun.version;", "line 1, column 11: `Bun` is banned"),
        ("Deno", "const d = Deno.cwd();", "line 1, column 11: `Deno` is banned"),
        ("filesystem", "const here = __dirname;", "line 1, column 14: `filesystem` is banned"),
        ("network", "const r = fetch('x');", "line 1, column 11: `network` is banned"),
        ("eval", "const v = eval('1');", "line 1, column 11: `eval` is banned"),
        ("Function", "const f = new Function('return 1');", "line 1, column 15: `Function` is banned"),
        ("child_process", "const c = 'child_process';", "line 1, column 11: `child_process` is banned"),
        ("fs", "const fs = 1;", "line 1, column 7: `fs` is banned"),
        ("node:fs", "const m = 'node:fs';", "line 1, column 11: `node:fs` is banned"),
        ("net", "const n = 'net';", "line 1, column 11: `net` is banned"),
        ("http", "const h = 'http';", "line 1, column 11: `http` is banned"),
        ("https", "const h = 'https';", "line 1, column 11: `https` is banned"),
    ];
    for (rule, top, want) in cases {
        let src = format!(
            "{top}\nexport async function run(ctx: any, params: {{ targetCount: number }}) {{\n  return await ctx.collectLogs(params.targetCount);\n}}\n"
        );
        let p = refused(source(&src));
        assert!(p.contains(&format!("source: {want}")), "{rule}: {p}");
    }
    let in_run: &[(&str, &str, &str)] = &[
        ("while (true)", "while (true) { await ctx.collectLogs(1); }", "line 2, column 3: `while (true)` is banned"),
        ("for (;;)", "for (;;) { await ctx.collectLogs(1); }", "line 2, column 3: `for (;;)` is banned"),
        ("ctx.bot", "const bot = ctx.bot; await ctx.collectLogs(1);", "line 2, column 15: `ctx.bot` is banned"),
        (
            "ctx.helpers",
            "const h = ctx.helpers; await ctx.collectLogs(1);",
            "line 2, column 13: `ctx.helpers` is banned",
        ),
        (
            "ctx.sharedStorage",
            "const s = ctx.sharedStorage; await ctx.collectLogs(1);",
            "line 2, column 13: `ctx.sharedStorage` is banned",
        ),
        (
            "ctx.mineflayer().method",
            "const e = ctx.mineflayer('chat', ['hi']).entity; await ctx.collectLogs(1);",
            "line 2, column 13: `ctx.mineflayer().method` is banned",
        ),
    ];
    for (rule, body, want) in in_run {
        let mut raw = source(&format!(
            "export async function run(ctx: any, params: {{ targetCount: number }}) {{\n  {body}\n  return await ctx.collectLogs(params.targetCount);\n}}\n"
        ));
        raw.insert("helper_allowlist".into(), json!(["collectLogs", "mineflayer"]));
        let p = refused(raw);
        assert!(p.contains(&format!("source: {want}")), "{rule}: {p}");
    }
}

#[test]
fn checklist_required_covers_every_parameter_the_source_reads() {
    let mut raw = source(
        "export async function run(ctx: any, params: any) {\n  return await ctx.collectLogs(params.targetCount + params.extra);\n}\n",
    );
    raw.insert(
        "input_schema".into(),
        json!({"type":"object","properties":{"targetCount":{"type":"integer"},"extra":{"type":"integer"}},
               "required":["targetCount"],"additionalProperties":false}),
    );
    let p = refused(raw);
    assert!(
        p.contains(
            "input_schema.required: the source reads params.extra (line 2, column 53), which input_schema.required does not list"
        ),
        "{p}"
    );
    let p = refused(source(
        "export async function run(ctx: any, { targetCount, radius }: any) {\n  return await ctx.collectLogs(targetCount + radius);\n}\n",
    ));
    assert!(
        p.contains(
            "the source reads params.radius (line 1, column 52), which input_schema.properties does not declare"
        ),
        "{p}"
    );
}

#[test]
fn checklist_additional_properties_must_be_false() {
    let p = refused(with(
        "input_schema",
        json!({"type":"object","properties":{"targetCount":{"type":"integer"}},"required":["targetCount"]}),
    ));
    assert!(p.contains("input_schema.additionalProperties: must be false"), "{p}");
}

#[test]
fn checklist_parameters_validate() {
    let p = refused(with("parameters", json!({"targetCount": 99})));
    assert!(p.contains("parameters.targetCount: must be ≤ 8"), "{p}");
    let p = refused(with("parameters", json!({"targetCount": 2, "radius": 16})));
    assert!(p.contains("parameters.radius: is not declared"), "{p}");
}

#[test]
fn checklist_codegen_metadata_is_not_a_parameter() {
    let mut raw = with("parameters", json!({"targetCount": 2, "helper_allowlist": ["collectLogs"]}));
    raw.insert(
        "input_schema".into(),
        json!({"type":"object","properties":{"targetCount":{"type":"integer"},"helper_allowlist":{"type":"array"}},
               "required":["targetCount"],"additionalProperties":false}),
    );
    let p = refused(raw);
    assert!(
        p.contains("parameters.helper_allowlist: is codegen metadata (a candidate field), not a runtime input"),
        "{p}"
    );
}

#[test]
fn checklist_helpers_outside_the_allowlist_are_refused_and_unused_ones_reported() {
    let p = refused(source(
        "export async function run(ctx: any, params: any) {\n  await ctx.say('hi');\n  return await ctx.collectLogs(params.targetCount);\n}\n",
    ));
    assert!(p.contains("source: line 2, column 9: calls ctx.say, which is not in helper_allowlist"), "{p}");
    let p = refused(with("helper_allowlist", json!(["collectLogs", "fly"])));
    assert!(p.contains("helper_allowlist[1]: fly is not a helper of mineflayer-action-skill-helper/v1"), "{p}");
    let p = refused(source(
        "export async function run(ctx: any, params: any) {\n  return ctx.teleport(params.targetCount);\n}\n",
    ));
    assert!(p.contains("source: line 2, column 10: ctx.teleport is not a helper"), "{p}");
    let (_, a) = validate(&with("helper_allowlist", json!(["collectLogs", "observe"]))).expect("accepted");
    assert_eq!(a.unused_allowlist, ["observe"]);
    assert!(a.warnings.iter().any(|w| w.contains("helper_allowlist has observe, which the source never calls")));
}

#[test]
fn checklist_bridge_methods_and_verifier_kinds_are_known() {
    let mut raw = source(
        "export async function run(ctx: any, params: any) {\n  await ctx.mineflayer('dig', {});\n  return ctx.collectLogs(params.targetCount);\n}\n",
    );
    raw.insert("helper_allowlist".into(), json!(["collectLogs", "mineflayer"]));
    assert!(refused(raw).contains("line 2, column 24: ctx.mineflayer('dig', …) is not a bridge method"));
    let p = refused(with("verifier", json!({"kind": "runtime_evidence"})));
    assert!(p.contains("verifier.kind: unknown verifier kind runtime_evidence"), "{p}");
    let p = refused(with("verifier", json!({"kind": "helper_result_status", "helper": "collectLogs"})));
    assert!(p.contains("verifier.status: is required for helper_result_status"), "{p}");
}

#[test]
fn the_seeds_fixed_values_are_checked() {
    let p = refused(with("helper_api_version", json!("clawcraft-helpers/v1")));
    assert!(p.contains("helper_api_version: must be \"mineflayer-action-skill-helper/v1\""), "{p}");
    let p = refused(with("promotion_policy", json!("draft_only")));
    assert!(p.contains("promotion_policy: must be \"promote_after_passed_trial\""), "{p}");
    let p = refused(with("source_language", json!("python")));
    assert!(p.contains("source_language: must be \"typescript\""), "{p}");
    let p = refused(with("timeout_ms", json!(600_000)));
    assert!(p.contains("timeout_ms: must be an integer 500..=120000"), "{p}");
    let p = refused(with("skill", json!("x")));
    assert!(p.contains("skill: unknown field (the seed's fields:"), "{p}");
    let p =
        refused(source("export function run(ctx: any, params: any) { return ctx.collectLogs(params.targetCount); }"));
    assert!(p.contains("`run` must be async"), "{p}");
}

#[test]
fn free_text_failure_modes_match_what_happened() {
    let known = vec![
        "no logs found within search distance".to_owned(),
        "crafting table not in reach".to_owned(),
        "timeout".to_owned(),
        "missing ingredients for sticks".to_owned(),
    ];
    let m = matched_modes(
        &known,
        &["no_logs_found".into()],
        &["collectLogs: no_logs_found — no log within 32 blocks".into()],
    );
    assert_eq!(m, ["no logs found within search distance"]);
    let m = matched_modes(&known, &["tick_budget".into(), "timeout".into()], &[]);
    assert_eq!(m, ["timeout"]);
    let m = matched_modes(&known, &["missing_ingredients".into()], &[]);
    assert_eq!(m, ["missing ingredients for sticks"]);
    let m = matched_modes(
        &known,
        &["no_crafting_table".into()],
        &["craftWithTable: no_crafting_table — no placed crafting table within reach".into()],
    );
    assert!(m.is_empty(), "no mode names it: {m:?}");
}

#[test]
fn every_seed_verifier_kind_parses() {
    let mut p = Vec::new();
    for v in [
        json!({"kind":"helper_event_progress"}),
        json!({"kind":"helper_result_status","helper":"craftItem","status":"crafted"}),
        json!({"kind":"helper_event","helper":"observe"}),
        json!({"kind":"inventory_delta","itemName":"stick","targetCount":4}),
        json!({"kind":"inventory_contains","item_name":"crafting_table"}),
        json!({"kind":"inventory_count","item":"oak_planks","count":4}),
        json!({"kind":"world_scan","block":"crafting_table","radius":4}),
        json!({"kind":"container_snapshot","block":"chest","item":"coal","min_count":2}),
        json!({"kind":"block_or_inventory_delta","item":"oak_log","description":"logs went up"}),
    ] {
        assert!(parse_verifier(&v, "verifier", &mut p).is_some(), "{v}: {p:?}");
    }
    assert!(p.is_empty(), "{p:?}");
}

/// The prelude in the sandbox: the skill's `ctx` holds exactly its allowlisted helpers, the
/// commands they are made of stay out of reach, each helper call is recorded as a note (free of
/// the helper budget) around the commands it runs.
#[test]
fn the_prelude_hands_the_skill_only_its_allowlisted_helpers() {
    use std::time::Duration;

    use crate::sandbox::{
        Call, HelperKind, Limits, NOTE_HELPER, Prelude, Reply, RunStatus, ScriptHandle, ScriptSpec, SliceEnd,
    };

    let source = r#"export async function run(ctx, params) {
  const keys = Object.keys(ctx);
  let reached = 'none';
  try { ctx.collectLogs(1); reached = 'collectLogs'; } catch (e) { reached = e.name; }
  const frozen = Object.isFrozen(ctx);
  const at = ctx.position();
  const said = await ctx.say(params.text);
  return { keys, reached, frozen, at, said: said.status, raw: typeof ctx.chat + typeof ctx.pos };
}"#;
    let spec = ScriptSpec {
        source: source.into(),
        params: json!({"text": "hi"}),
        helpers: vec![("pos".into(), HelperKind::Query), ("chat".into(), HelperKind::Instant)],
        limits: Limits {
            max_ops: 5_000_000,
            slice_ops: 200_000,
            max_helper_calls: 2,
            memory_bytes: 8 << 20,
            stack_bytes: 256 << 10,
        },
        seed: 1,
        prelude: Some(Prelude { code: PRELUDE, allow: vec!["position".into(), "say".into()] }),
    };
    let mut handle = ScriptHandle::spawn(spec, "prelude").expect("thread");
    let mut calls: Vec<Call> = Vec::new();
    let mut notes: Vec<crate::verifier::SeedEvent> = Vec::new();
    let mut end = None;
    for tick in 0..50u64 {
        let mut serve = |call: Call| -> Reply {
            calls.push(call.clone());
            match call.helper.as_str() {
                NOTE_HELPER => Reply::Value(crate::run::note_event(&mut notes, &call.params, tick)),
                "pos" => Reply::Value(json!({"pos": {"x": 0.5, "y": -60.0, "z": 0.5}})),
                "chat" => Reply::Resolved(json!({"status": "done", "code": "ok", "delivered": "unknown"})),
                other => Reply::Error { code: "unknown_helper".into(), message: other.into() },
            }
        };
        if let SliceEnd::Finished(e) = handle.run_slice(tick, &mut Vec::new(), Duration::from_secs(10), &mut serve) {
            end = Some(e);
            break;
        }
    }
    let end = end.expect("finished");
    assert_eq!(end.status, RunStatus::Returned, "{end:?}");
    let v = end.value.expect("value");
    assert_eq!(v["keys"], json!(["position", "say"]));
    assert_eq!(v["reached"], "TypeError", "a helper outside the allowlist is not there");
    assert_eq!(v["frozen"], true);
    assert_eq!(v["at"], json!({"x": 0.5, "y": -60, "z": 0.5}));
    assert_eq!(v["said"], "delivered");
    assert_eq!(v["raw"], "undefinedundefined", "the commands stay in the prelude");
    // Two commands within a budget of two: the four notes are not counted.
    let commands: Vec<&str> = calls.iter().filter(|c| c.helper != NOTE_HELPER).map(|c| c.helper.as_str()).collect();
    assert_eq!(commands, ["pos", "chat"]);
    assert_eq!(end.usage.helper_calls, 2);
    let trace: Vec<(&str, &str, Option<&str>)> =
        notes.iter().map(|e| (e.helper.as_str(), e.status.as_str(), e.result_status())).collect();
    assert_eq!(trace, [("position", "completed", None), ("say", "completed", Some("delivered"))]);
    assert!(notes[1].progress() && !notes[0].progress());
}
