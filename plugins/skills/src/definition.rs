//! A skill candidate as the agent defines it: parsing and every static check, each problem
//! naming its field. A definition that passes is immutable; its hash identifies it.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use sha2::{Digest, Sha256};

use crate::fields;
use crate::sandbox::{self, BUILTINS, HelperKind, Limits};
use crate::schema::{self, Problem};
use crate::seed::SeedParts;
use crate::verifier;

/// The helper API every skill is written against.
pub const HELPER_API_VERSION: &str = "clawcraft-helpers/v1";
/// The one promotion policy (the seed's): promote after a passed trial.
pub const PROMOTE_AFTER_PASSED_TRIAL: &str = "promote_after_passed_trial";
pub const MAX_SOURCE_BYTES: usize = 64 * 1024;
pub const MIN_TIMEOUT_MS: u64 = 50;
pub const MAX_TIMEOUT_MS: u64 = 600_000;
/// Milliseconds per game tick.
pub const TICK_MS: u64 = 50;

/// Every failure a run can be put down to — helper codes, run endings, a script's own verdict,
/// the verifier's. `known_failure_modes` are drawn from it so the runtime can match them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum FailureMode {
    // A helper's result code.
    /// Another physical action is in flight, or its slot is busy.
    Busy,
    /// The bot had not spawned.
    NotSpawned,
    /// The command refused its parameters (`INVALID_PARAMS`, `OUT_OF_RANGE`).
    InvalidParams,
    /// The command refused to start for another reason (its `error.code` says which).
    Rejected,
    /// The action ended `failed`.
    Failed,
    /// The action was aborted (an `abort_*`, a shutdown).
    Aborted,
    /// The action's own watchdog stopped it.
    Timeout,
    /// The bot died.
    Died,
    /// The connection ended.
    Disconnected,
    /// The run was cancelled (`abort_skill`, retirement).
    Cancelled,
    /// The helper-call budget is spent.
    HelperBudget,
    // How the run ended.
    /// `run` threw.
    Threw,
    /// `eval`, `Function`, a function constructor, `Math.random` or `import`.
    Forbidden,
    OpBudget,
    /// `timeout_ms` ran out.
    TickBudget,
    MemoryLimit,
    StackOverflow,
    Shutdown,
    Unresponsive,
    Internal,
    // What the script itself reported (`return {status:"failed", code:…}`).
    /// What it looked for is not there.
    NotFound,
    /// It cannot get there.
    Unreachable,
    /// A precondition does not hold (missing item, wrong place, …).
    Precondition,
    /// It tried and nothing changed.
    NoProgress,
    // The verdict.
    /// The verifier failed.
    VerifierFailed,
    /// The verifier could not decide (missing data).
    Inconclusive,
    /// The verifier passed but the expected outcome class was not observed.
    OutcomeUnsatisfied,
}

impl FailureMode {
    pub const ALL: &[FailureMode] = &[
        Self::Busy,
        Self::NotSpawned,
        Self::InvalidParams,
        Self::Rejected,
        Self::Failed,
        Self::Aborted,
        Self::Timeout,
        Self::Died,
        Self::Disconnected,
        Self::Cancelled,
        Self::HelperBudget,
        Self::Threw,
        Self::Forbidden,
        Self::OpBudget,
        Self::TickBudget,
        Self::MemoryLimit,
        Self::StackOverflow,
        Self::Shutdown,
        Self::Unresponsive,
        Self::Internal,
        Self::NotFound,
        Self::Unreachable,
        Self::Precondition,
        Self::NoProgress,
        Self::VerifierFailed,
        Self::Inconclusive,
        Self::OutcomeUnsatisfied,
    ];

    pub fn name(self) -> String {
        serde_json::to_value(self).ok().and_then(|v| v.as_str().map(String::from)).unwrap_or_default()
    }

    pub fn parse(s: &str) -> Option<Self> {
        serde_json::from_value(Value::String(s.to_owned())).ok()
    }
}

/// The class of change a skill is meant to cause; a trial promotes only when it is observed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ExpectedOutcome {
    /// A checked block changed (block_at / block_count_delta cells).
    WorldBlockDelta,
    InventoryDelta,
    EquipmentDelta,
    /// The bot moved at least half a block.
    PositionDelta,
    /// A chat, whisper, say or emote helper succeeded.
    SocialDelta,
    VitalsDelta,
    /// An entity in view at the start is gone.
    EntityDelta,
    /// Information only: a query helper answered.
    Diagnostic,
}

impl ExpectedOutcome {
    pub const ALL: &[ExpectedOutcome] = &[
        Self::WorldBlockDelta,
        Self::InventoryDelta,
        Self::EquipmentDelta,
        Self::PositionDelta,
        Self::SocialDelta,
        Self::VitalsDelta,
        Self::EntityDelta,
        Self::Diagnostic,
    ];
    pub fn name(self) -> String {
        serde_json::to_value(self).ok().and_then(|v| v.as_str().map(String::from)).unwrap_or_default()
    }
}

/// When a version moves between states.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct PromotionPolicy {
    /// Always `promote_after_passed_trial`.
    pub kind: PolicyKind,
    /// Passed trials to promote a candidate.
    pub passes_required: u32,
    /// Failed trials to reject a candidate (default 1: one failed trial rejects it).
    pub reject_after_failures: u32,
    /// Consecutive failed runs to make a promoted version `suspect`.
    pub suspect_after_failures: u32,
    /// Consecutive failed runs to retire it.
    pub retire_after_failures: u32,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum PolicyKind {
    PromoteAfterPassedTrial,
}

impl Default for PromotionPolicy {
    fn default() -> Self {
        Self {
            kind: PolicyKind::PromoteAfterPassedTrial,
            passes_required: 1,
            reject_after_failures: 1,
            suspect_after_failures: 2,
            retire_after_failures: 4,
        }
    }
}

/// The run budget besides `timeout_ms`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Budget {
    pub max_ops: u64,
    pub max_helper_calls: u32,
    pub max_memory_kib: u64,
}

impl Default for Budget {
    fn default() -> Self {
        Self { max_ops: 20_000_000, max_helper_calls: 200, max_memory_kib: 8 * 1024 }
    }
}

/// Operations a script may use per tick before it is paused until the next one.
pub const SLICE_OPS: u64 = 200_000;
/// JavaScript stack per run.
pub const STACK_BYTES: u64 = 256 * 1024;

impl Budget {
    pub fn limits(&self) -> Limits {
        Limits {
            max_ops: self.max_ops,
            slice_ops: SLICE_OPS,
            max_helper_calls: self.max_helper_calls,
            memory_bytes: self.max_memory_kib * 1024,
            stack_bytes: STACK_BYTES,
        }
    }
}

/// A validated, immutable skill definition.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Definition {
    pub skill: String,
    pub purpose: String,
    pub input_schema: Value,
    pub parameters: Value,
    pub source: String,
    pub helper_api_version: String,
    pub helper_allowlist: Vec<String>,
    pub timeout_ms: u64,
    pub verifier: Value,
    /// Always given in the project's dialect; the seed's shape has none (its verifier decides).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expected_outcome: Option<ExpectedOutcome>,
    pub known_failure_modes: Vec<FailureMode>,
    pub promotion_policy: PromotionPolicy,
    pub budget: Budget,
    /// A candidate in the seed's shape (`mineflayer-action-skill-helper/v1`): what only it has.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seed: Option<SeedParts>,
}

impl Definition {
    /// `sha256:<hex>` of the canonical JSON (object keys sorted).
    pub fn hash(&self) -> String {
        let json = serde_json::to_string(&serde_json::to_value(self).unwrap_or(Value::Null)).unwrap_or_default();
        let digest = Sha256::digest(json.as_bytes());
        let hex: String = digest.iter().map(|b| format!("{b:02x}")).collect();
        format!("sha256:{hex}")
    }

    /// The JavaScript that runs: the seed's compiled source, or the source itself.
    pub fn runnable_source(&self) -> &str {
        self.seed.as_ref().map_or(self.source.as_str(), |s| s.compiled.as_str())
    }

    /// The definition as the agent authored it: the seed's fields for a seed-shaped candidate.
    pub fn authored(&self) -> Value {
        match &self.seed {
            Some(parts) => crate::seed::authored(self, parts),
            None => serde_json::to_value(self).unwrap_or(Value::Null),
        }
    }

    /// Ticks the run may last.
    pub fn ticks(&self) -> u64 {
        self.timeout_ms.div_ceil(TICK_MS)
    }
}

/// What the static checks learnt besides the definition.
#[derive(Debug, Clone, Default, PartialEq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Analysis {
    /// Helpers the source calls as `ctx.<name>`.
    pub helpers_referenced: Vec<String>,
    /// Non-fatal remarks (an allowlisted helper the source never mentions, …).
    pub warnings: Vec<String>,
    /// Allowlisted helpers the source never calls (the seed's checklist).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub unused_allowlist: Vec<String>,
}

/// Looks a helper name up: its kind when it is a command a skill may call.
pub type HelperLookup<'a> = &'a dyn Fn(&str) -> Option<HelperKind>;

/// The request fields of `skill_define`, in order.
pub const FIELDS: &[&str] = &[
    "skill",
    "purpose",
    "input_schema",
    "parameters",
    "source",
    "helper_api_version",
    "helper_allowlist",
    "timeout_ms",
    "verifier",
    "expected_outcome",
    "known_failure_modes",
    "promotion_policy",
    "budget",
];

/// Checks every field of a candidate; all problems at once, nothing half-accepted.
pub fn validate(raw: &Map<String, Value>, helpers: HelperLookup<'_>) -> Result<(Definition, Analysis), Vec<Problem>> {
    let mut p = Vec::new();
    fields::unknown(raw, FIELDS, "fields", &mut p);

    let skill = fields::string_where(
        raw,
        "skill",
        &mut p,
        is_lower_camel,
        "must be a lower-camel id of 2–64 letters and digits, e.g. collectLogs",
    );
    let purpose = fields::string_where(
        raw,
        "purpose",
        &mut p,
        fields::is_purpose,
        "must be 1–500 characters saying the one behaviour this skill owns",
    );

    let (input_schema, schema_ok) = fields::input_schema(raw, &mut p);
    let parameters = fields::parameters(
        raw,
        &mut p,
        input_schema.as_ref().filter(|_| schema_ok),
        "must be an object (the trial's parameters)",
    );

    match raw.get("helper_api_version") {
        Some(Value::String(v)) if v == HELPER_API_VERSION => {}
        Some(_) => p.push(Problem::new("helper_api_version", format!("must be \"{HELPER_API_VERSION}\""))),
        None => p.push(Problem::new("helper_api_version", "is required")),
    }

    let mut warnings = Vec::new();
    let allowlist = parse_allowlist(raw.get("helper_allowlist"), helpers, &mut p, &mut warnings);

    let source = fields::string(raw, "source", &mut p);
    let mut referenced = Vec::new();
    if let Some(src) = &source {
        if src.len() > MAX_SOURCE_BYTES {
            p.push(Problem::new("source", format!("is over {MAX_SOURCE_BYTES} bytes")));
        } else if let Err(e) = sandbox::check_source(src) {
            p.push(Problem::new("source", e.message));
        } else {
            referenced = ctx_references(src);
            if let Some(list) = &allowlist {
                for name in &referenced {
                    if BUILTINS.contains(&name.as_str()) || list.contains(name) {
                        continue;
                    }
                    let why = if helpers(name).is_some() {
                        format!("calls ctx.{name}, which is not in helper_allowlist")
                    } else {
                        format!("calls ctx.{name}, which is no helper (see schema for the commands)")
                    };
                    p.push(Problem::new("source", why));
                }
                for name in list {
                    if !referenced.contains(name) {
                        warnings.push(format!(
                            "helper_allowlist has {name}, which the source never mentions as ctx.{name}"
                        ));
                    }
                }
            }
        }
    }

    let timeout_ms = fields::timeout_ms(raw, &mut p, MIN_TIMEOUT_MS..=MAX_TIMEOUT_MS, "ms; 50 per tick");

    let verifier = fields::required(raw, "verifier", &mut p).cloned();
    if let Some(v) = &verifier {
        let mut refs = Vec::new();
        verifier::param_refs(v, "verifier", &mut refs);
        let (declared, required) = input_schema.as_ref().map(schema::property_names).unwrap_or_default();
        for (field, name) in &refs {
            if !declared.contains(name) {
                p.push(Problem::new(
                    field.clone(),
                    format!("refers to parameter {name}, which input_schema does not declare"),
                ));
            } else if !required.contains(name) {
                p.push(Problem::new(
                    field.clone(),
                    format!("refers to parameter {name}, which input_schema must list in required"),
                ));
            }
        }
        let params = parameters.as_ref().and_then(Value::as_object).cloned().unwrap_or_default();
        let known = |h: &str| helpers(h).is_some() || h == sandbox::WAIT_HELPER;
        verifier::parse(&verifier::substitute(v, &params), "verifier", &known, &mut p);
    }

    let expected_outcome = fields::required(raw, "expected_outcome", &mut p).and_then(|v| {
        let o = serde_json::from_value::<ExpectedOutcome>(v.clone()).ok();
        if o.is_none() {
            let names: Vec<String> = ExpectedOutcome::ALL.iter().map(|o| o.name()).collect();
            p.push(Problem::new("expected_outcome", format!("must be one of {}", names.join(", "))));
        }
        o
    });

    let known_failure_modes = fields::array(raw, "known_failure_modes", &mut p, "must be an array of failure codes")
        .map(|items| {
            let mut out = Vec::new();
            for (i, item) in items.iter().enumerate() {
                match item.as_str().and_then(FailureMode::parse) {
                    Some(m) if !out.contains(&m) => out.push(m),
                    Some(_) => p.push(Problem::new(format!("known_failure_modes[{i}]"), "is listed twice")),
                    None => {
                        let names: Vec<String> = FailureMode::ALL.iter().map(|m| m.name()).collect();
                        p.push(Problem::new(
                            format!("known_failure_modes[{i}]"),
                            format!("must be one of {}", names.join(", ")),
                        ));
                    }
                }
            }
            out
        });

    let promotion_policy = parse_policy(raw.get("promotion_policy"), &mut p);
    let budget = parse_budget(raw.get("budget"), &mut p);

    if !p.is_empty() {
        return Err(p);
    }
    let (Some(skill), Some(purpose), Some(input_schema), Some(parameters), Some(source)) =
        (skill, purpose, input_schema, parameters, source)
    else {
        return Err(vec![Problem::new("skill", "incomplete")]);
    };
    let (
        Some(helper_allowlist),
        Some(timeout_ms),
        Some(verifier),
        Some(expected_outcome),
        Some(known_failure_modes),
        Some(promotion_policy),
        Some(budget),
    ) = (allowlist, timeout_ms, verifier, expected_outcome, known_failure_modes, promotion_policy, budget)
    else {
        return Err(vec![Problem::new("skill", "incomplete")]);
    };
    let def = Definition {
        skill,
        purpose: purpose.trim().to_owned(),
        input_schema,
        parameters,
        source,
        helper_api_version: HELPER_API_VERSION.into(),
        helper_allowlist,
        timeout_ms,
        verifier,
        expected_outcome: Some(expected_outcome),
        known_failure_modes,
        promotion_policy,
        budget,
        seed: None,
    };
    Ok((def, Analysis { helpers_referenced: referenced, warnings, unused_allowlist: Vec::new() }))
}

pub fn is_lower_camel(s: &str) -> bool {
    let mut chars = s.chars();
    chars.next().is_some_and(|c| c.is_ascii_lowercase())
        && s.chars().all(|c| c.is_ascii_alphanumeric())
        && (2..=64).contains(&s.len())
}

fn parse_allowlist(
    v: Option<&Value>,
    helpers: HelperLookup<'_>,
    p: &mut Vec<Problem>,
    warnings: &mut Vec<String>,
) -> Option<Vec<String>> {
    let Some(v) = v else {
        p.push(Problem::new("helper_allowlist", "is required"));
        return None;
    };
    let Some(items) = v.as_array() else {
        p.push(Problem::new("helper_allowlist", "must be an array of helper names"));
        return None;
    };
    let mut out: Vec<String> = Vec::new();
    let before = p.len();
    for (i, item) in items.iter().enumerate() {
        let field = format!("helper_allowlist[{i}]");
        let Some(name) = item.as_str() else {
            p.push(Problem::new(field, "must be a string"));
            continue;
        };
        if BUILTINS.contains(&name) {
            warnings.push(format!("{name} is built in; it needs no allowlisting"));
            continue;
        }
        if out.iter().any(|n| n == name) {
            p.push(Problem::new(field, format!("{name} is listed twice")));
            continue;
        }
        if helpers(name).is_none() {
            p.push(Problem::new(field, format!("{name} is not a helper (helpers are the harness's commands, minus skill_*, abort_*, schema, help, watch and subscriptions)")));
            continue;
        }
        out.push(name.to_owned());
    }
    if items.len() > 64 {
        p.push(Problem::new("helper_allowlist", "lists more than 64 helpers"));
    }
    (p.len() == before).then_some(out)
}

fn parse_policy(v: Option<&Value>, p: &mut Vec<Problem>) -> Option<PromotionPolicy> {
    let mut policy = PromotionPolicy::default();
    match v {
        None => p.push(Problem::new("promotion_policy", format!("is required (\"{PROMOTE_AFTER_PASSED_TRIAL}\")"))),
        Some(Value::String(s)) if s == PROMOTE_AFTER_PASSED_TRIAL => return Some(policy),
        Some(Value::Object(o)) => {
            let before = p.len();
            for (k, v) in o {
                let field = format!("promotion_policy.{k}");
                let n = || v.as_u64().filter(|n| (1..=100).contains(n)).map(|n| n as u32);
                match k.as_str() {
                    "kind" if v.as_str() == Some(PROMOTE_AFTER_PASSED_TRIAL) => {}
                    "kind" => p.push(Problem::new(field, format!("must be \"{PROMOTE_AFTER_PASSED_TRIAL}\""))),
                    "passes_required" | "reject_after_failures" | "suspect_after_failures" | "retire_after_failures" => match n() {
                        Some(n) => match k.as_str() {
                            "passes_required" => policy.passes_required = n,
                            "reject_after_failures" => policy.reject_after_failures = n,
                            "suspect_after_failures" => policy.suspect_after_failures = n,
                            _ => policy.retire_after_failures = n,
                        },
                        None => p.push(Problem::new(field, "must be an integer 1..=100")),
                    },
                    _ => p.push(Problem::new(field, "unknown field (kind, passes_required, reject_after_failures, suspect_after_failures, retire_after_failures)")),
                }
            }
            if policy.retire_after_failures < policy.suspect_after_failures {
                p.push(Problem::new("promotion_policy.retire_after_failures", "must be ≥ suspect_after_failures"));
            }
            if p.len() == before {
                return Some(policy);
            }
        }
        Some(_) => p.push(Problem::new(
            "promotion_policy",
            format!("must be \"{PROMOTE_AFTER_PASSED_TRIAL}\" or an object with kind \"{PROMOTE_AFTER_PASSED_TRIAL}\""),
        )),
    }
    None
}

fn parse_budget(v: Option<&Value>, p: &mut Vec<Problem>) -> Option<Budget> {
    let mut b = Budget::default();
    let Some(v) = v else { return Some(b) };
    let Some(o) = v.as_object() else {
        p.push(Problem::new("budget", "must be an object {max_ops, max_helper_calls, max_memory_kib}"));
        return None;
    };
    let before = p.len();
    for (k, v) in o {
        let field = format!("budget.{k}");
        let n = v.as_u64();
        match k.as_str() {
            "max_ops" => match n.filter(|n| (10_000..=200_000_000).contains(n)) {
                Some(n) => b.max_ops = n,
                None => p.push(Problem::new(field, "must be an integer 10000..=200000000")),
            },
            "max_helper_calls" => match n.filter(|n| (1..=10_000).contains(n)) {
                Some(n) => b.max_helper_calls = n as u32,
                None => p.push(Problem::new(field, "must be an integer 1..=10000")),
            },
            "max_memory_kib" => match n.filter(|n| (512..=65_536).contains(n)) {
                Some(n) => b.max_memory_kib = n,
                None => p.push(Problem::new(field, "must be an integer 512..=65536")),
            },
            _ => p.push(Problem::new(field, "unknown field (max_ops, max_helper_calls, max_memory_kib)")),
        }
    }
    (p.len() == before).then_some(b)
}

/// Names used as `ctx.<name>` in the source (a lexical scan, for allowlist hints).
pub fn ctx_references(source: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let bytes = source.as_bytes();
    let mut i = 0;
    while let Some(at) = source[i..].find("ctx.") {
        let start = i + at;
        let prev_ok = start == 0
            || !(bytes[start - 1].is_ascii_alphanumeric() || bytes[start - 1] == b'_' || bytes[start - 1] == b'.');
        let name: String = source[start + 4..].chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect();
        if prev_ok && !name.is_empty() && !out.contains(&name) {
            out.push(name.clone());
        }
        i = start + 4;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn lookup(name: &str) -> Option<HelperKind> {
        match name {
            "pos" | "nearby" => Some(HelperKind::Query),
            "chat" | "face" => Some(HelperKind::Instant),
            "walk" => Some(HelperKind::Action),
            _ => None,
        }
    }

    pub fn good() -> Map<String, Value> {
        json!({
            "skill": "greetNearestPlayer",
            "purpose": "Say hello to the nearest player",
            "input_schema": {"type":"object","additionalProperties":false,"required":["greeting"],
                             "properties":{"greeting":{"type":"string","maxLength":100}}},
            "parameters": {"greeting": "Hello"},
            "source": "export async function run(ctx, params) { const n = ctx.nearby({radius: 32}); return await ctx.chat({message: params.greeting}); }",
            "helper_api_version": "clawcraft-helpers/v1",
            "helper_allowlist": ["nearby", "chat"],
            "timeout_ms": 5000,
            "verifier": {"kind":"chat_sent","contains":{"$param":"greeting"}},
            "expected_outcome": "social_delta",
            "known_failure_modes": ["not_found"],
            "promotion_policy": "promote_after_passed_trial"
        })
        .as_object()
        .cloned()
        .unwrap_or_default()
    }

    fn problems(raw: Map<String, Value>) -> String {
        let e = validate(&raw, &lookup).expect_err("invalid");
        e.iter().map(|p| format!("{}: {}", p.field, p.message)).collect::<Vec<_>>().join("\n")
    }

    #[test]
    fn a_good_candidate_validates_and_hashes_stably() {
        let (def, analysis) = validate(&good(), &lookup).expect("valid");
        assert_eq!(def.ticks(), 100);
        assert_eq!(analysis.helpers_referenced, vec!["nearby", "chat"]);
        assert!(analysis.warnings.is_empty());
        assert_eq!(def.hash(), validate(&good(), &lookup).expect("valid").0.hash());
        let mut other = good();
        other.insert("purpose".into(), json!("Say hi to the nearest player"));
        assert_ne!(def.hash(), validate(&other, &lookup).expect("valid").0.hash());
        assert!(def.hash().starts_with("sha256:") && def.hash().len() == 71);
    }

    #[test]
    fn every_malformed_field_is_named() {
        let mut raw = good();
        for (k, v) in [
            ("skill", json!("Greet_Player")),
            ("purpose", json!("")),
            ("parameters", json!({"greeting": 5, "extra": true})),
            ("helper_api_version", json!("mineflayer-action-skill-helper/v1")),
            ("helper_allowlist", json!(["nearby", "fly", "nearby"])),
            ("timeout_ms", json!(999_999_999)),
            ("verifier", json!({"kind":"inventory_delta","item":"x"})),
            ("expected_outcome", json!("vibes")),
            ("known_failure_modes", json!(["not_found", "it broke"])),
            ("promotion_policy", json!("draft_only")),
            ("budget", json!({"max_ops": 1})),
            ("colour", json!("red")),
        ] {
            raw.insert(k.into(), v);
        }
        let p = problems(raw);
        for want in [
            "skill: must be a lower-camel id",
            "purpose: must be 1–500 characters",
            "parameters.greeting: must be string, got integer",
            "parameters.extra: is not declared",
            "helper_api_version: must be \"clawcraft-helpers/v1\"",
            "helper_allowlist[1]: fly is not a helper",
            "helper_allowlist[2]: nearby is listed twice",
            "timeout_ms: must be an integer 50..=600000",
            "verifier.min_delta: give min_delta, max_delta or both",
            "expected_outcome: must be one of world_block_delta",
            "known_failure_modes[1]: must be one of busy",
            "promotion_policy: must be \"promote_after_passed_trial\"",
            "budget.max_ops: must be an integer",
            "colour: unknown field",
        ] {
            assert!(p.contains(want), "{want}\nin\n{p}");
        }
    }

    #[test]
    fn source_problems_and_allowlist_mismatches_are_errors() {
        let mut raw = good();
        raw.insert("source".into(), json!("export async function run(ctx) { return ; ) }"));
        assert!(problems(raw).contains("source: SyntaxError"));
        let mut raw = good();
        raw.insert("source".into(), json!("export async function run(ctx, p) { await ctx.walk({x:1,z:1}); return ctx.chat({message: p.greeting}); }"));
        let p = problems(raw);
        assert!(p.contains("source: calls ctx.walk, which is not in helper_allowlist"), "{p}");
        let mut raw = good();
        raw.insert(
            "source".into(),
            json!("export async function run(ctx, p) { ctx.teleport({}); return ctx.chat({message: p.greeting}); }"),
        );
        assert!(problems(raw).contains("ctx.teleport, which is no helper"));
        let mut raw = good();
        raw.insert("verifier".into(), json!({"kind":"chat_sent","contains":{"$param":"name"}}));
        assert!(
            problems(raw).contains("verifier.contains: refers to parameter name, which input_schema does not declare")
        );
        let mut raw = good();
        raw.insert(
            "input_schema".into(),
            json!({"type":"object","additionalProperties":false,"properties":{"greeting":{"type":"string"}}}),
        );
        assert!(problems(raw).contains("must list in required"));
    }

    #[test]
    fn warnings_do_not_reject() {
        let mut raw = good();
        raw.insert("helper_allowlist".into(), json!(["nearby", "chat", "pos", "tick"]));
        let (_, a) = validate(&raw, &lookup).expect("valid");
        assert_eq!(a.warnings.len(), 2, "{:?}", a.warnings);
    }

    #[test]
    fn policies_take_the_seed_string_or_an_object() {
        let mut raw = good();
        raw.insert("promotion_policy".into(), json!({"kind":"promote_after_passed_trial","reject_after_failures":3}));
        let (d, _) = validate(&raw, &lookup).expect("valid");
        assert_eq!(d.promotion_policy.reject_after_failures, 3);
        raw.insert("promotion_policy".into(), json!({"suspect_after_failures":5,"retire_after_failures":2}));
        assert!(problems(raw).contains("promotion_policy.retire_after_failures: must be ≥ suspect_after_failures"));
    }

    #[test]
    fn ctx_references_are_scanned() {
        assert_eq!(ctx_references("ctx.pos(); myctx.x; a.ctx.y; ctx.find_x({}); ctx.pos()"), vec!["pos", "find_x"]);
    }
}
