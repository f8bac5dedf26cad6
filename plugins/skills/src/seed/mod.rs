//! The seed's shape of a skill candidate (`author_mineflayer_action`, helper API
//! `mineflayer-action-skill-helper/v1`), accepted beside the project's own dialect.
//!
//! A candidate in this shape is the provider output object exactly as the seed defines it:
//! `proposed_action_skill_id`, `purpose`, `input_schema`, `parameters`, `source_language`
//! (`typescript` or `javascript`), `source` (`export async function run(ctx, params)`),
//! `helper_api_version`, `helper_allowlist`, `timeout_ms`, `verifier`, `known_failure_modes`
//! (free text), `promotion_policy`. It is checked here — the seed's checklist and bans on the
//! parsed source ([`crate::compile`]) — and stored as a [`Definition`] that keeps the seed's
//! fields ([`SeedParts`]). Its helpers are built on the harness's commands by a prelude that runs
//! in the sandbox ([`PRELUDE`]); every helper call is a helper event the verifier reads.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

use crate::compile::{self, Language};
use crate::definition::{Analysis, Budget, Definition, MAX_SOURCE_BYTES, PromotionPolicy, is_lower_camel};
use crate::schema::{self, Problem};
use crate::verifier::{Check, MAX_COUNT_RADIUS};
use crate::{fields, sandbox};

/// The seed's helper API.
pub const API: &str = "mineflayer-action-skill-helper/v1";
/// The seed's one promotion policy.
pub const POLICY: &str = "promote_after_passed_trial";
/// The seed's fields, in its order.
pub const FIELDS: &[&str] = &[
    "proposed_action_skill_id",
    "purpose",
    "input_schema",
    "parameters",
    "source_language",
    "source",
    "helper_api_version",
    "helper_allowlist",
    "timeout_ms",
    "verifier",
    "known_failure_modes",
    "promotion_policy",
];
/// Codegen metadata besides the candidate's own [`FIELDS`]: the wrapper's and the schema's keys.
/// Neither kind is a runtime input (the checklist: not in `parameters`).
pub const CODEGEN_EXTRA_KEYS: &[&str] =
    &["runtime_parameters", "candidate", "codegen_rationale", "expected_outcome", "schema"];

/// Whether `key` is codegen metadata rather than a runtime input.
fn is_codegen_key(key: &str) -> bool {
    FIELDS.contains(&key) || CODEGEN_EXTRA_KEYS.contains(&key)
}
pub const MIN_TIMEOUT_MS: u64 = 500;
pub const MAX_TIMEOUT_MS: u64 = 120_000;

/// A helper of the seed's API.
pub struct Helper {
    pub name: &'static str,
    /// `result.status` values that count as physical progress (`helper_event_progress`).
    pub progress: &'static [&'static str],
}

/// The seed's helpers, in its order.
pub const HELPERS: &[Helper] = &[
    Helper { name: "position", progress: &[] },
    Helper { name: "inventoryItems", progress: &[] },
    Helper { name: "observe", progress: &[] },
    Helper { name: "wait", progress: &[] },
    Helper { name: "collectLogs", progress: &["collected"] },
    Helper { name: "mineBlock", progress: &["mined"] },
    Helper { name: "craftItem", progress: &["crafted"] },
    Helper { name: "craftWithTable", progress: &["crafted"] },
    Helper { name: "consumeItem", progress: &["consumed"] },
    Helper { name: "placeBlock", progress: &["placed", "already_present"] },
    Helper { name: "buildPattern", progress: &["built"] },
    Helper { name: "say", progress: &["delivered"] },
    Helper { name: "mineflayer", progress: &[] },
];
/// The bounded bridge's methods.
pub const BRIDGE_METHODS: &[&str] = &[
    "lookAt",
    "lookAtNearestBlock",
    "setControlState",
    "clearControlStates",
    "swingArm",
    "equipByName",
    "activateItem",
    "deactivateItem",
    "chat",
];
/// The harness commands the helpers are made of (those present in the harness are handed to the
/// prelude; the skill never sees them).
pub const COMMANDS: &[&str] = &[
    "pos",
    "inventory",
    "vitals",
    "nearby",
    "compact_scan",
    "find",
    "block",
    "walk",
    "move",
    "abort_walk",
    "mine",
    "place",
    "craft",
    "open",
    "close",
    "container",
    "eat",
    "chat",
    "face",
    "equip",
    "use",
    "abort_use",
];
/// The helpers' own blocker codes (`{status:"blocked", code, reason}`), for `known_failure_modes`.
pub const BLOCKERS: &[&str] = &[
    "no_logs_found",
    "not_found",
    "unreachable",
    "dig_failed",
    "no_progress",
    "needs_crafting_table",
    "no_crafting_table",
    "missing_ingredients",
    "no_recipe",
    "inventory_full",
    "craft_failed",
    "not_hungry",
    "missing_item",
    "not_consumable",
    "occupied",
    "no_support",
    "out_of_reach",
    "no_line_of_sight",
    "not_loaded",
    "place_failed",
    "not_delivered",
    "unsupported_control",
    "unsupported",
    "timeout",
];

/// The prelude that builds the helpers inside the sandbox.
pub const PRELUDE: &str = include_str!("prelude.js");

/// What only the seed's shape has, kept with the definition.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SeedParts {
    /// `typescript` or `javascript`.
    pub source_language: String,
    /// The seed's `known_failure_modes` as written.
    pub known_failure_modes: Vec<String>,
    /// The JavaScript that runs (TypeScript compiled by oxc; JavaScript as written).
    pub compiled: String,
}

pub fn helper(name: &str) -> Option<&'static Helper> {
    HELPERS.iter().find(|h| h.name == name)
}

/// Whether a raw candidate is in the seed's shape.
pub fn is_seed(raw: &Map<String, Value>) -> bool {
    raw.contains_key("proposed_action_skill_id")
        || raw.contains_key("source_language")
        || raw.get("helper_api_version").and_then(Value::as_str) == Some(API)
}

/// The stored definition in the seed's own shape (what `skill_get` shows).
pub fn authored(def: &Definition, parts: &SeedParts) -> Value {
    json!({
        "proposed_action_skill_id": def.skill,
        "purpose": def.purpose,
        "input_schema": def.input_schema,
        "parameters": def.parameters,
        "source_language": parts.source_language,
        "source": def.source,
        "helper_api_version": def.helper_api_version,
        "helper_allowlist": def.helper_allowlist,
        "timeout_ms": def.timeout_ms,
        "verifier": def.verifier,
        "known_failure_modes": parts.known_failure_modes,
        "promotion_policy": POLICY,
    })
}

/// Checks a candidate in the seed's shape: every field, the checklist, the bans on the parsed
/// source; all problems at once.
pub fn validate(raw: &Map<String, Value>) -> Result<(Definition, Analysis), Vec<Problem>> {
    let mut p = Vec::new();
    let mut warnings = Vec::new();
    fields::unknown(raw, FIELDS, "the seed's fields", &mut p);
    let id = fields::string_where(
        raw,
        "proposed_action_skill_id",
        &mut p,
        is_lower_camel,
        "must be a stable lower-camel id of 2–64 letters and digits, e.g. collectOakLogs",
    );
    let purpose = fields::string_where(
        raw,
        "purpose",
        &mut p,
        fields::is_purpose,
        "must be 1–500 characters: one concrete behaviour this candidate owns",
    );

    // The checklist: input_schema (additionalProperties false, required ⊆ properties),
    // parameters validate, no codegen metadata among them.
    let (input_schema, schema_ok) = fields::input_schema(raw, &mut p);
    if let Some(props) = input_schema.as_ref().and_then(|s| s.get("properties")).and_then(Value::as_object) {
        codegen_keys(props, "input_schema.properties", &mut p);
    }
    if let Some(Value::Object(o)) = raw.get("parameters") {
        codegen_keys(o, "parameters", &mut p);
    }
    let parameters = fields::parameters(
        raw,
        &mut p,
        input_schema.as_ref().filter(|_| schema_ok),
        "must be an object: the exact current runtime inputs",
    );

    let language = match raw.get("source_language") {
        Some(Value::String(s)) if s == "typescript" => Some(Language::TypeScript),
        Some(Value::String(s)) if s == "javascript" => Some(Language::JavaScript),
        Some(_) => {
            p.push(Problem::new("source_language", "must be \"typescript\" (or \"javascript\")"));
            None
        }
        None => {
            p.push(Problem::new("source_language", "is required: \"typescript\""));
            None
        }
    };
    exactly(raw, "helper_api_version", API, &mut p);
    let allowlist = parse_allowlist(raw.get("helper_allowlist"), &mut p);

    let source = fields::string(raw, "source", &mut p);
    let mut compiled = None;
    let mut referenced: Vec<String> = Vec::new();
    let mut unused = Vec::new();
    if let (Some(src), Some(lang)) = (&source, language) {
        if src.len() > MAX_SOURCE_BYTES {
            p.push(Problem::new("source", format!("is over {MAX_SOURCE_BYTES} bytes")));
        } else {
            match compile::compile(src, lang) {
                Err(errors) => {
                    for e in errors {
                        p.push(Problem::new("source", format!("SyntaxError at {e}")));
                    }
                }
                Ok(c) => {
                    let before = p.len();
                    check_facts(&c.facts, allowlist.as_deref(), input_schema.as_ref(), &mut p, &mut warnings);
                    for u in &c.facts.ctx_uses {
                        if !referenced.contains(&u.name) && helper(&u.name).is_some() {
                            referenced.push(u.name.clone());
                        }
                    }
                    if let Some(list) = &allowlist {
                        for name in list {
                            if !referenced.contains(name) {
                                unused.push(name.clone());
                                warnings.push(format!(
                                    "helper_allowlist has {name}, which the source never calls (the checklist: list only helpers the source calls)"
                                ));
                            }
                        }
                    }
                    // The compiled module must load in the sandbox and export an async run.
                    if p.len() == before
                        && let Err(e) = sandbox::check_source(&c.js)
                    {
                        p.push(Problem::new("source", e.message));
                    }
                    compiled = Some(c.js);
                }
            }
        }
    }

    let timeout_ms = fields::timeout_ms(raw, &mut p, MIN_TIMEOUT_MS..=MAX_TIMEOUT_MS, "a bounded trial timeout, ms");
    let verifier = fields::required(raw, "verifier", &mut p).cloned();
    if let Some(v) = &verifier {
        parse_verifier(v, "verifier", &mut p);
    }
    let known = fields::array(raw, "known_failure_modes", &mut p, "must be an array of blocker strings").map(|items| {
        let mut out = Vec::new();
        for (i, item) in items.iter().enumerate() {
            match item.as_str().map(str::trim) {
                Some(s) if !s.is_empty() && s.chars().count() <= 200 => out.push(s.to_owned()),
                _ => p.push(Problem::new(
                    format!("known_failure_modes[{i}]"),
                    "must be a concrete blocker string of 1–200 characters",
                )),
            }
        }
        if items.len() > 32 {
            p.push(Problem::new("known_failure_modes", "lists more than 32 failure modes"));
        }
        if items.is_empty() {
            warnings.push(format!(
                "known_failure_modes is empty: name the blockers a failed trial should be matched against (e.g. {})",
                BLOCKERS[..4].join(", ")
            ));
        }
        out
    });
    exactly(raw, "promotion_policy", POLICY, &mut p);

    if !p.is_empty() {
        return Err(p);
    }
    let (Some(skill), Some(purpose), Some(input_schema), Some(parameters), Some(source), Some(compiled)) =
        (id, purpose, input_schema, parameters, source, compiled)
    else {
        return Err(vec![Problem::new("proposed_action_skill_id", "incomplete")]);
    };
    let (Some(helper_allowlist), Some(timeout_ms), Some(verifier), Some(known), Some(language)) =
        (allowlist, timeout_ms, verifier, known, language)
    else {
        return Err(vec![Problem::new("proposed_action_skill_id", "incomplete")]);
    };
    let def = Definition {
        skill,
        purpose: purpose.trim().to_owned(),
        input_schema,
        parameters,
        source,
        helper_api_version: API.into(),
        helper_allowlist,
        timeout_ms,
        verifier,
        expected_outcome: None,
        known_failure_modes: Vec::new(),
        promotion_policy: PromotionPolicy::default(),
        // The helpers are made of several commands each: a larger call budget than a command skill's.
        budget: Budget { max_helper_calls: 2000, ..Budget::default() },
        seed: Some(SeedParts {
            source_language: if language == Language::TypeScript { "typescript" } else { "javascript" }.into(),
            known_failure_modes: known,
            compiled,
        }),
    };
    Ok((def, Analysis { helpers_referenced: referenced, warnings, unused_allowlist: unused }))
}

/// Names each key of `map` that is codegen metadata (a candidate field, not a runtime input).
fn codegen_keys(map: &Map<String, Value>, at: &str, p: &mut Vec<Problem>) {
    for k in map.keys().filter(|k| is_codegen_key(k)) {
        p.push(Problem::new(
            format!("{at}.{k}"),
            "is codegen metadata (a candidate field), not a runtime input: do not put it in parameters",
        ));
    }
}

/// A field that must be the string `want`.
fn exactly(raw: &Map<String, Value>, f: &str, want: &str, p: &mut Vec<Problem>) {
    match raw.get(f) {
        Some(Value::String(v)) if v == want => {}
        Some(_) => p.push(Problem::new(f, format!("must be \"{want}\""))),
        None => p.push(Problem::new(f, format!("is required: \"{want}\""))),
    }
}

fn parse_allowlist(v: Option<&Value>, p: &mut Vec<Problem>) -> Option<Vec<String>> {
    let names: Vec<&str> = HELPERS.iter().map(|h| h.name).collect();
    let Some(items) = v.map(|v| v.as_array()) else {
        p.push(Problem::new("helper_allowlist", "is required: the helpers the source calls"));
        return None;
    };
    let Some(items) = items else {
        p.push(Problem::new("helper_allowlist", "must be an array of helper names"));
        return None;
    };
    let before = p.len();
    if items.is_empty() {
        p.push(Problem::new("helper_allowlist", "must list the helpers the source calls"));
    }
    let mut out: Vec<String> = Vec::new();
    for (i, item) in items.iter().enumerate() {
        let field = format!("helper_allowlist[{i}]");
        match item.as_str() {
            None => p.push(Problem::new(field, "must be a string")),
            Some(n) if out.iter().any(|o| o == n) => p.push(Problem::new(field, format!("{n} is listed twice"))),
            Some(n) if names.contains(&n) => out.push(n.to_owned()),
            Some(n) => {
                p.push(Problem::new(field, format!("{n} is not a helper of {API} (helpers: {})", names.join(", "))))
            }
        }
    }
    (p.len() == before).then_some(out)
}

/// The checklist and bans on what the syntax tree showed.
fn check_facts(
    facts: &compile::Facts,
    allowlist: Option<&[String]>,
    input_schema: Option<&Value>,
    p: &mut Vec<Problem>,
    warnings: &mut Vec<String>,
) {
    for b in &facts.bans {
        p.push(Problem::new("source", format!("{}: `{}` is banned ({})", b.at, b.rule, b.why)));
    }
    match &facts.run {
        None => p.push(Problem::new("source", "must define `export async function run(ctx, params)`")),
        Some(r) if !r.is_async => p.push(Problem::new(
            "source",
            format!("{}: `run` must be async: `export async function run(ctx, params)`", r.at),
        )),
        Some(_) => {}
    }
    let names: Vec<&str> = HELPERS.iter().map(|h| h.name).collect();
    let mut seen: Vec<&str> = Vec::new();
    for u in &facts.ctx_uses {
        if seen.contains(&u.name.as_str()) {
            continue;
        }
        seen.push(&u.name);
        if u.name == "[computed]" {
            p.push(Problem::new(
                "source",
                format!("{}: ctx[…] with a computed name: call helpers as ctx.<name>(…)", u.at),
            ));
        } else if helper(&u.name).is_none() {
            if !matches!(u.name.as_str(), "bot" | "helpers" | "sharedStorage") {
                p.push(Problem::new(
                    "source",
                    format!("{}: ctx.{} is not a helper of {API} (helpers: {})", u.at, u.name, names.join(", ")),
                ));
            }
        } else if let Some(list) = allowlist
            && !list.contains(&u.name)
        {
            p.push(Problem::new(
                "source",
                format!("{}: calls ctx.{}, which is not in helper_allowlist (refused before the run)", u.at, u.name),
            ));
        }
    }
    if !facts.ctx_uses.iter().any(|u| u.called && helper(&u.name).is_some()) {
        p.push(Problem::new("source", "calls no helper: a candidate acts through its ctx helpers"));
    }
    for (m, at) in &facts.bridge_methods {
        if !BRIDGE_METHODS.contains(&m.as_str()) {
            p.push(Problem::new(
                "source",
                format!(
                    "{at}: ctx.mineflayer('{m}', …) is not a bridge method (methods: {})",
                    BRIDGE_METHODS.join(", ")
                ),
            ));
        }
    }
    for at in &facts.bridge_dynamic {
        warnings
            .push(format!("{at}: ctx.mineflayer's method is not a string literal; it is checked only when it runs"));
    }
    let (declared, required) = input_schema.map(schema::property_names).unwrap_or_default();
    let mut read: Vec<&str> = Vec::new();
    for r in &facts.param_reads {
        if read.contains(&r.key.as_str()) {
            continue;
        }
        read.push(&r.key);
        if !declared.contains(&r.key) {
            p.push(Problem::new(
                "input_schema.required",
                format!("the source reads params.{} ({}), which input_schema.properties does not declare", r.key, r.at),
            ));
        } else if !required.contains(&r.key) {
            p.push(Problem::new(
                "input_schema.required",
                format!("the source reads params.{} ({}), which input_schema.required does not list", r.key, r.at),
            ));
        }
    }
    if facts.params_whole.is_none() {
        for d in &declared {
            if !read.contains(&d.as_str()) {
                warnings.push(format!("input_schema declares {d}, which the source never reads"));
            }
        }
    }
}

/// The seed's verifier kinds.
pub const KINDS: &[&str] = &[
    "helper_event_progress",
    "helper_result_status",
    "helper_event",
    "inventory_delta",
    "inventory_contains",
    "inventory_count",
    "world_scan",
    "container_snapshot",
    "block_or_inventory_delta",
];

/// Fields a seed verifier may carry besides its kind's own: prose, kept but not evaluated.
const PROSE: &[&str] = &["description", "note", "reason", "evidence"];

/// Parses a seed verifier into a check (kinds evaluated on the runtime's own evidence).
pub fn parse_verifier(v: &Value, field: &str, problems: &mut Vec<Problem>) -> Option<Check> {
    let Some(obj) = v.as_object() else {
        problems.push(Problem::new(field, "must be an object with a `kind`"));
        return None;
    };
    let kind = match obj.get("kind").and_then(Value::as_str) {
        Some(k) if KINDS.contains(&k) => k,
        Some(k) => {
            problems.push(Problem::new(
                format!("{field}.kind"),
                format!("unknown verifier kind {k} (kinds: {})", KINDS.join(", ")),
            ));
            return None;
        }
        None => {
            problems.push(Problem::new(format!("{field}.kind"), format!("is required: one of {}", KINDS.join(", "))));
            return None;
        }
    };
    let before = problems.len();
    let mut used: Vec<&str> = vec!["kind"];
    let mut pick = |names: &[&'static str]| -> Option<&Value> {
        let found = names.iter().find(|n| obj.contains_key(**n))?;
        used.extend_from_slice(names);
        obj.get(*found)
    };
    let item = pick(&["item", "itemName", "item_name"]).cloned();
    let block = pick(&["block", "blockName", "block_name"]).cloned();
    let count = pick(&["count", "targetCount", "minimum", "min_count"]).cloned();
    let helper_v = pick(&["helper"]).cloned();
    let status = pick(&["status"]).cloned();
    let radius = pick(&["radius"]).cloned();
    let pos = pick(&["pos", "position"]).cloned();
    used.extend_from_slice(PROSE);
    let text = |v: &Option<Value>, name: &str, problems: &mut Vec<Problem>| -> Option<String> {
        match v {
            None => None,
            Some(Value::String(s)) if !s.trim().is_empty() => Some(s.trim().to_owned()),
            Some(_) => {
                problems.push(Problem::new(format!("{field}.{name}"), "must be a non-empty string"));
                None
            }
        }
    };
    let item = text(&item, "item", problems);
    let block = text(&block, "block", problems);
    let status = text(&status, "status", problems);
    let helper_name = text(&helper_v, "helper", problems);
    if let Some(h) = &helper_name
        && helper(h).is_none()
    {
        problems.push(Problem::new(format!("{field}.helper"), format!("{h} is not a helper of {API}")));
    }
    let count = match &count {
        None => None,
        Some(v) => match v.as_f64().filter(|n| n.is_finite() && n.fract() == 0.0 && n.abs() <= 10_000.0) {
            Some(n) => Some(n),
            None => {
                problems.push(Problem::new(format!("{field}.count"), "must be an integer"));
                None
            }
        },
    };
    let radius = match &radius {
        None => 8,
        Some(v) => match v.as_i64().filter(|r| (1..=MAX_COUNT_RADIUS).contains(r)) {
            Some(r) => r,
            None => {
                problems.push(Problem::new(
                    format!("{field}.radius"),
                    format!("must be an integer 1..={MAX_COUNT_RADIUS}"),
                ));
                8
            }
        },
    };
    let pos = match &pos {
        None => None,
        Some(v) => {
            let c = |a: &str| v.get(a).and_then(Value::as_f64).filter(|f| f.is_finite() && f.abs() < 3.0e7);
            match (c("x"), c("y"), c("z")) {
                (Some(x), Some(y), Some(z)) => {
                    Some(crate::verifier::Cell { x: x.floor() as i64, y: y.floor() as i64, z: z.floor() as i64 })
                }
                _ => {
                    problems.push(Problem::new(format!("{field}.pos"), "must be {x,y,z} with finite numbers"));
                    None
                }
            }
        }
    };
    for k in obj.keys() {
        if !used.contains(&k.as_str()) {
            problems.push(Problem::new(
                format!("{field}.{k}"),
                "unknown field (verifier fields: kind, helper, status, item, block, count, radius, pos, description)",
            ));
        }
    }
    let need = |v: &Option<String>, name: &str, problems: &mut Vec<Problem>| {
        if v.is_none() && !problems.iter().any(|p| p.field == format!("{field}.{name}")) {
            problems.push(Problem::new(format!("{field}.{name}"), format!("is required for {kind}")));
        }
    };
    let named = |c: Check| Check::Named(kind.to_owned(), Box::new(c));
    let check = match kind {
        "helper_event_progress" => Some(Check::HelperProgress { helper: helper_name }),
        "helper_result_status" => {
            need(&helper_name, "helper", problems);
            need(&status, "status", problems);
            helper_name.map(|h| Check::HelperCompleted { helper: h, status })
        }
        "helper_event" => {
            need(&helper_name, "helper", problems);
            helper_name.map(|h| Check::HelperCompleted { helper: h, status: None })
        }
        "inventory_delta" => {
            need(&item, "item", problems);
            let n = count.unwrap_or(1.0);
            let (min, max) = if n < 0.0 { (None, Some(n)) } else { (Some(n), None) };
            item.map(|item| named(Check::InventoryDelta { item, min, max }))
        }
        "inventory_contains" => {
            need(&item, "item", problems);
            item.map(|item| named(Check::InventoryAtLeast { item, count: count.unwrap_or(1.0).max(1.0) }))
        }
        "inventory_count" => {
            need(&item, "item", problems);
            if count.is_none() && !problems.iter().any(|p| p.field == format!("{field}.count")) {
                problems.push(Problem::new(format!("{field}.count"), "is required for inventory_count"));
            }
            item.zip(count).map(|(item, count)| named(Check::InventoryAtLeast { item, count }))
        }
        "world_scan" => Some(Check::WorldScan { block, radius, min: count.unwrap_or(1.0).max(1.0) as u64 }),
        "container_snapshot" => {
            Some(Check::ContainerSnapshot { block, pos, item, min: count.unwrap_or(1.0).max(1.0) as u64 })
        }
        _ => Some(Check::BlockOrInventoryDelta { item, block, radius, count: count.unwrap_or(1.0).abs().max(1.0) }),
    };
    if problems.len() > before { None } else { check }
}

/// Lower-case words of a text, a trailing plural `s` dropped (`logs` → `log`).
fn words(s: &str) -> Vec<String> {
    s.split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(|w| {
            let w = w.to_ascii_lowercase();
            match w.strip_suffix('s') {
                Some(stem) if stem.len() >= 3 && !stem.ends_with('s') => stem.to_owned(),
                _ => w,
            }
        })
        .collect()
}

/// The seed's free-text failure modes that match what happened: a mode matches when it names
/// one of the run's codes (every word of the code is in the mode: "no logs found nearby" names
/// `no_logs_found`) or when every word of the mode is in a blocker's text.
pub fn matched_modes(known: &[String], codes: &[String], texts: &[String]) -> Vec<String> {
    let codes: Vec<Vec<String>> = codes.iter().map(|c| words(c)).filter(|w| !w.is_empty()).collect();
    let texts: Vec<Vec<String>> = texts.iter().map(|t| words(t)).collect();
    known
        .iter()
        .filter(|mode| {
            let m = words(mode);
            !m.is_empty()
                && (codes.iter().any(|c| c.iter().all(|w| m.contains(w)))
                    || texts.iter().any(|t| m.iter().all(|w| t.contains(w))))
        })
        .cloned()
        .collect()
}

#[cfg(test)]
mod tests;
