//! `skill_define`, `skill_get`, `skill_list`, `skill_trial`, `skill_run`, `skill_retire`.

use std::sync::Arc;

use bevy_ecs::prelude::*;
use clawcraft_core::event::now_ms;
use clawcraft_core::{
    ActiveActions, AgentCommand, AgentEvent, AsyncInfo, CommandCtx, CommandError, CommandRegistry, TickCount,
};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

use crate::definition::{self, Analysis, Budget};
use crate::run::{Known, RunContext, SLOT, SkillHost, SkillRun, seed_of};
use crate::sandbox::{HelperKind, Limits, Prelude, ScriptHandle, ScriptSpec};
use crate::schema::{self, Problem};
use crate::seed;
use crate::snapshot::{capture, position};
use crate::store::{Life, Mode, SkillState, SkillStore, summary};
use crate::verifier::{self, SnapshotPlan};
use crate::{SkillRetired, SkillTrialStarted};

/// Commands a skill may not call: the skill machinery itself, channel and schema plumbing.
const NOT_HELPERS: &[&str] = &["schema", "help", "watch", "subscribe", "unsubscribe", "subscriptions"];

/// The kind of a command as a helper, or `None` when skills may not call it.
pub fn helper_kind(registry: &CommandRegistry, name: &str) -> Option<HelperKind> {
    let entry = registry.get(name)?;
    if name.starts_with("skill_") || entry.aborts.is_some() || NOT_HELPERS.contains(&name) {
        return None;
    }
    command_kind(registry, name)
}

/// The kind of any command, `abort_*` included (the seed's prelude may stop what it started).
fn command_kind(registry: &CommandRegistry, name: &str) -> Option<HelperKind> {
    let entry = registry.get(name)?;
    Some(if entry.query {
        HelperKind::Query
    } else if entry.async_info.is_some() {
        HelperKind::Action
    } else {
        HelperKind::Instant
    })
}

/// `raw` with each field that was given (a `Some`) added under its name.
fn with_given<const N: usize>(mut raw: Map<String, Value>, fields: [(&str, Option<Value>); N]) -> Map<String, Value> {
    for (k, v) in fields {
        if let Some(v) = v {
            raw.insert(k.into(), v);
        }
    }
    raw
}

fn problems_error(problems: &[Problem]) -> CommandError {
    let list: Vec<String> = problems.iter().map(|p| format!("{}: {}", p.field, p.message)).collect();
    let n = list.len();
    CommandError::new("SKILL_INVALID", format!("{n} problem{}: {}", if n == 1 { "" } else { "s" }, list.join("; ")))
}

fn unknown_skill(skill: &str, version: Option<u32>) -> CommandError {
    match version {
        Some(v) => CommandError::new("UNKNOWN_SKILL", format!("no skill {skill} version {v}")),
        None => CommandError::new("UNKNOWN_SKILL", format!("no skill {skill} (skill_list shows them)")),
    }
}

/// `{"action":"skill_define", …}`: author a skill candidate — in the project's dialect (`skill`,
/// helpers are commands), or in the seed's shape (`proposed_action_skill_id`, `source_language`,
/// helper API `mineflayer-action-skill-helper/v1`; see [`crate::seed`]).
#[derive(Deserialize, JsonSchema)]
pub struct SkillDefine {
    /// The seed's shape: stable lower-camel id (instead of `skill`).
    #[schemars(with = "Option<String>")]
    pub proposed_action_skill_id: Option<Value>,
    /// The seed's shape: `typescript` (compiled by a TypeScript parser) or `javascript`.
    #[schemars(with = "Option<String>")]
    pub source_language: Option<Value>,
    /// Stable lower-camel id, e.g. `greetNearestPlayer` (the request's `id` stays the request id).
    #[schemars(with = "String")]
    pub skill: Option<Value>,
    /// The one behaviour this skill owns.
    #[schemars(with = "String")]
    pub purpose: Option<Value>,
    /// JSON Schema of the parameters: `type:"object"`, `additionalProperties:false`,
    /// `required` ⊆ `properties` (keywords: type, properties, required, items, enum, const,
    /// minimum, maximum, exclusiveMinimum, exclusiveMaximum, minLength, maxLength, minItems,
    /// maxItems, description, title, default, examples).
    #[schemars(with = "Map<String, Value>")]
    pub input_schema: Option<Value>,
    /// The trial's parameters (validated against `input_schema`).
    #[schemars(with = "Map<String, Value>")]
    pub parameters: Option<Value>,
    /// JavaScript defining `export async function run(ctx, params)`.
    #[schemars(with = "String")]
    pub source: Option<Value>,
    /// `clawcraft-helpers/v1`.
    #[schemars(with = "String")]
    pub helper_api_version: Option<Value>,
    /// Commands the script may call as `ctx.<name>(params)`.
    #[schemars(with = "Vec<String>")]
    pub helper_allowlist: Option<Value>,
    /// How long a run may last (ms, 50–600000; one tick is 50 ms).
    #[schemars(with = "u64")]
    pub timeout_ms: Option<Value>,
    /// The verifier (data: see the skill's verifier vocabulary).
    #[schemars(with = "Map<String, Value>")]
    pub verifier: Option<Value>,
    /// The class of change the skill makes: world_block_delta, inventory_delta, equipment_delta,
    /// position_delta, social_delta, vitals_delta, entity_delta, diagnostic.
    #[schemars(with = "String")]
    pub expected_outcome: Option<Value>,
    /// Failure codes this skill may end with (from the closed list).
    #[schemars(with = "Vec<String>")]
    pub known_failure_modes: Option<Value>,
    /// `promote_after_passed_trial`, or an object with `kind` and thresholds.
    #[schemars(with = "Value")]
    pub promotion_policy: Option<Value>,
    /// Optional: `{max_ops, max_helper_calls, max_memory_kib}`.
    #[schemars(with = "Option<Map<String, Value>>")]
    pub budget: Option<Value>,
    /// Anything else is reported as an unknown field.
    #[serde(flatten)]
    #[schemars(skip)]
    pub extra: Map<String, Value>,
}

impl SkillDefine {
    fn into_raw(self) -> Map<String, Value> {
        with_given(
            self.extra,
            [
                ("proposed_action_skill_id", self.proposed_action_skill_id),
                ("source_language", self.source_language),
                ("skill", self.skill),
                ("purpose", self.purpose),
                ("input_schema", self.input_schema),
                ("parameters", self.parameters),
                ("source", self.source),
                ("helper_api_version", self.helper_api_version),
                ("helper_allowlist", self.helper_allowlist),
                ("timeout_ms", self.timeout_ms),
                ("verifier", self.verifier),
                ("expected_outcome", self.expected_outcome),
                ("known_failure_modes", self.known_failure_modes),
                ("promotion_policy", self.promotion_policy),
                ("budget", self.budget),
            ],
        )
    }
}

/// Response of `skill_define`.
#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct DefineResponse {
    pub skill: String,
    pub version: u32,
    /// `sha256:` of the definition; the same content gives the same version.
    pub hash: String,
    pub state: SkillState,
    /// False when an identical version already existed (nothing new was stored).
    pub created: bool,
    /// Ticks a run may last (`timeout_ms` / 50).
    pub ticks: u64,
    pub budget: Budget,
    #[serde(flatten)]
    pub analysis: Analysis,
}

impl AgentCommand for SkillDefine {
    const NAME: &'static str = "skill_define";
    const SUMMARY: &'static str = "Author a skill candidate (schema-bound JavaScript, helper allowlist, timeout, verifier, failure modes); every malformed field is named and nothing is stored";
    const EXAMPLE: &'static str = r#"{"action":"skill_define","skill":"greetNearestPlayer","purpose":"Say hello to the nearest player","input_schema":{"type":"object","additionalProperties":false,"required":["greeting"],"properties":{"greeting":{"type":"string"}}},"parameters":{"greeting":"Hello"},"source":"export async function run(ctx, params) { … }","helper_api_version":"clawcraft-helpers/v1","helper_allowlist":["nearby","chat"],"timeout_ms":5000,"verifier":{"kind":"chat_sent","contains":{"$param":"greeting"}},"expected_outcome":"social_delta","known_failure_modes":["not_found"],"promotion_policy":"promote_after_passed_trial"}"#;
    const NEEDS_SPAWN: bool = false;
    /// The skill store is the process's, shared by its bots.
    const PER_BOT: bool = false;
    type Response = DefineResponse;

    fn run(self, ctx: &mut CommandCtx<'_>) -> Result<DefineResponse, CommandError> {
        define(ctx, &self.into_raw())
    }
}

/// Validates and stores a candidate of either shape.
fn define(ctx: &mut CommandCtx<'_>, raw: &Map<String, Value>) -> Result<DefineResponse, CommandError> {
    let (def, analysis) = validate(ctx, raw)?;
    store_definition(ctx, def, analysis)
}

/// Checks a candidate (either shape) without storing it: `SKILL_INVALID` names every problem.
fn validate(
    ctx: &CommandCtx<'_>,
    raw: &Map<String, Value>,
) -> Result<(definition::Definition, Analysis), CommandError> {
    if seed::is_seed(raw) {
        seed::validate(raw).map_err(|p| problems_error(&p))
    } else {
        let registry = ctx.world.resource::<CommandRegistry>().clone();
        let lookup = |name: &str| helper_kind(&registry, name);
        definition::validate(raw, &lookup).map_err(|p| problems_error(&p))
    }
}

/// Stores a checked candidate (an identical one is not stored again; the answer says so).
fn store_definition(
    ctx: &mut CommandCtx<'_>,
    def: definition::Definition,
    mut analysis: Analysis,
) -> Result<DefineResponse, CommandError> {
    let (skill, ticks, budget) = (def.skill.clone(), def.ticks(), def.budget);
    let mut store = ctx.world.resource_mut::<SkillStore>();
    let (version, created) = store.define(def, now_ms()).map_err(CommandError::internal)?;
    let v = store.get(&skill, Some(version)).ok_or_else(|| CommandError::internal("stored version vanished"))?;
    if !created {
        let state = serde_json::to_value(v.life.state).unwrap_or_default();
        analysis.warnings.push(format!(
            "identical to v{version}, which is {}: nothing new was stored",
            state.as_str().unwrap_or("?")
        ));
    }
    Ok(DefineResponse { skill, version, hash: v.hash.clone(), state: v.life.state, created, ticks, budget, analysis })
}

/// `{"action":"author_mineflayer_action", …}`: the seed's authoring path — a candidate in the
/// seed's shape is defined (as `skill_define` would) and trialled at once in the live world.
#[derive(Deserialize, JsonSchema)]
pub struct AuthorMineflayerAction {
    /// The candidate when wrapped as the codegen output carries it; otherwise the candidate's
    /// fields are given flat (`proposed_action_skill_id`, `purpose`, …, `promotion_policy`).
    #[schemars(with = "Option<Map<String, Value>>")]
    pub candidate: Option<Value>,
    /// The parameters to trial with (default: the candidate's `parameters`).
    #[schemars(with = "Option<Map<String, Value>>")]
    pub runtime_parameters: Option<Value>,
    /// The author's rationale: echoed in the response, not stored.
    #[schemars(with = "Option<String>")]
    pub codegen_rationale: Option<Value>,
    /// Stable lower-camel id.
    #[schemars(with = "Option<String>")]
    pub proposed_action_skill_id: Option<Value>,
    /// One concrete behaviour the candidate owns.
    #[schemars(with = "Option<String>")]
    pub purpose: Option<Value>,
    /// JSON Schema of the parameters (`type:"object"`, `additionalProperties:false`).
    #[schemars(with = "Option<Map<String, Value>>")]
    pub input_schema: Option<Value>,
    /// The exact current runtime inputs.
    #[schemars(with = "Option<Map<String, Value>>")]
    pub parameters: Option<Value>,
    /// `typescript` (or `javascript`).
    #[schemars(with = "Option<String>")]
    pub source_language: Option<Value>,
    /// `export async function run(ctx, params)`.
    #[schemars(with = "Option<String>")]
    pub source: Option<Value>,
    /// `mineflayer-action-skill-helper/v1`.
    #[schemars(with = "Option<String>")]
    pub helper_api_version: Option<Value>,
    /// The helpers the source calls.
    #[schemars(with = "Option<Vec<String>>")]
    pub helper_allowlist: Option<Value>,
    /// Bounded trial timeout (500–120000 ms).
    #[schemars(with = "Option<u64>")]
    pub timeout_ms: Option<Value>,
    /// The evidence to check after the trial (the seed's verifier kinds).
    #[schemars(with = "Option<Map<String, Value>>")]
    pub verifier: Option<Value>,
    /// Blocker strings to match against a failed trial.
    #[schemars(with = "Option<Vec<String>>")]
    pub known_failure_modes: Option<Value>,
    /// `promote_after_passed_trial`.
    #[schemars(with = "Option<String>")]
    pub promotion_policy: Option<Value>,
    /// Anything else is reported as an unknown field.
    #[serde(flatten)]
    #[schemars(skip)]
    pub extra: Map<String, Value>,
}

impl AuthorMineflayerAction {
    /// The candidate's fields given flat (with anything unknown, for the checks to name).
    fn flat_fields(&mut self) -> Map<String, Value> {
        with_given(
            std::mem::take(&mut self.extra),
            [
                ("proposed_action_skill_id", self.proposed_action_skill_id.take()),
                ("purpose", self.purpose.take()),
                ("input_schema", self.input_schema.take()),
                ("parameters", self.parameters.take()),
                ("source_language", self.source_language.take()),
                ("source", self.source.take()),
                ("helper_api_version", self.helper_api_version.take()),
                ("helper_allowlist", self.helper_allowlist.take()),
                ("timeout_ms", self.timeout_ms.take()),
                ("verifier", self.verifier.take()),
                ("known_failure_modes", self.known_failure_modes.take()),
                ("promotion_policy", self.promotion_policy.take()),
            ],
        )
    }
}

/// Response of `author_mineflayer_action`: the definition, and the trial that started.
#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct AuthorResponse {
    pub defined: DefineResponse,
    pub trial: RunStarted,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub codegen_rationale: Option<Value>,
}

impl AgentCommand for AuthorMineflayerAction {
    const NAME: &'static str = "author_mineflayer_action";
    const SUMMARY: &'static str = "The seed's authoring path: define a candidate in the seed's shape (TypeScript, helper API mineflayer-action-skill-helper/v1) and trial it at once (async: skill_trial_started, skill_finished; a pass promotes it)";
    const EXAMPLE: &'static str = r#"{"action":"author_mineflayer_action","proposed_action_skill_id":"gatherOakLogs","purpose":"Collect oak logs","input_schema":{"type":"object","properties":{"targetCount":{"type":"integer","minimum":1}},"required":["targetCount"],"additionalProperties":false},"parameters":{"targetCount":2},"source_language":"typescript","source":"export async function run(ctx: any, params: { targetCount: number }) { return await ctx.collectLogs(params.targetCount); }","helper_api_version":"mineflayer-action-skill-helper/v1","helper_allowlist":["collectLogs"],"timeout_ms":60000,"verifier":{"kind":"inventory_delta","item":"oak_log","count":2},"known_failure_modes":["no logs found"],"promotion_policy":"promote_after_passed_trial"}"#;
    const ASYNC: Option<AsyncInfo> = Some(AsyncInfo::of::<SkillRun>());
    type Response = AuthorResponse;

    fn run(mut self, ctx: &mut CommandCtx<'_>) -> Result<AuthorResponse, CommandError> {
        let flat = self.flat_fields();
        let raw = match self.candidate {
            Some(Value::Object(c)) if flat.is_empty() => c,
            Some(Value::Object(_)) => {
                return Err(CommandError::invalid_params(
                    "give the candidate's fields inside candidate or flat, not both",
                ));
            }
            Some(_) => return Err(CommandError::invalid_params("candidate must be an object")),
            None => flat,
        };
        if !seed::is_seed(&raw) {
            return Err(CommandError::new(
                "SKILL_INVALID",
                format!(
                    "1 problem: proposed_action_skill_id: is required (author_mineflayer_action takes a candidate in the seed's shape: {})",
                    seed::FIELDS.join(", ")
                ),
            ));
        }
        let parameters = match self.runtime_parameters {
            None => None,
            Some(Value::Object(p)) => Some(p),
            Some(_) => return Err(CommandError::invalid_params("runtime_parameters must be an object")),
        };
        // The trial is checked before the candidate is stored: a refused author_mineflayer_action
        // stores nothing (BUSY was refused before this ran; a trial that cannot start — its
        // parameters against the schema, its verifier, the state of an identical stored version —
        // is refused here).
        let (def, analysis) = validate(ctx, &raw)?;
        let hash = def.hash();
        let stored = ctx.world.resource::<SkillStore>().versions(&def.skill).map(|vs| {
            vs.iter()
                .find(|v| v.hash == hash)
                .map(|v| (v.version, v.life.clone()))
                .ok_or(vs.last().map_or(0, |v| v.version))
        });
        let (number, life) = match stored {
            Some(Ok(same)) => same,
            Some(Err(newest)) => (newest + 1, Life::default()),
            None => (1, Life::default()),
        };
        let skill = def.skill.clone();
        let prepared = prepare_run(ctx, &skill, (Arc::new(def.clone()), number, hash, life), parameters, Mode::Trial)?;
        let script = prepared.spawn()?;
        let defined = store_definition(ctx, def, analysis)?;
        let trial = commit_run(ctx, prepared, script)?;
        Ok(AuthorResponse { defined, trial, codegen_rationale: self.codegen_rationale })
    }
}

/// `{"action":"skill_get","skill":"greetNearestPlayer"}`: a version in full.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SkillGet {
    pub skill: String,
    /// Default: the promoted (or suspect) version, else the newest.
    pub version: Option<u32>,
    /// A run id: its evidence is included.
    pub run: Option<String>,
}

/// Response of `skill_get`.
#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct GetResponse {
    pub skill: String,
    pub version: u32,
    pub hash: String,
    pub state: SkillState,
    pub created_ms: u64,
    /// The definition as stored (source included); a seed-shaped candidate in the seed's fields.
    pub definition: Value,
    /// The JavaScript a TypeScript source was compiled to (what runs; run-time errors point into it).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub compiled_source: Option<String>,
    /// Counters, the last runs (with failure codes and evidence paths).
    pub lifecycle: Life,
    /// Every version of the skill, in short.
    pub versions: Vec<Value>,
    /// The evidence of `run`, when asked for.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub evidence: Option<Value>,
}

impl AgentCommand for SkillGet {
    const NAME: &'static str = "skill_get";
    const SUMMARY: &'static str =
        "A skill version in full: definition, lifecycle, recent runs; with run, that run's evidence";
    const EXAMPLE: &'static str = r#"{"action":"skill_get","skill":"greetNearestPlayer","version":1}"#;
    const SIZE_HINT: Option<&'static str> = Some("leave out run, or name a version");
    const NEEDS_SPAWN: bool = false;
    /// The skill store is the process's, shared by its bots.
    const PER_BOT: bool = false;
    const QUERY: bool = true;
    type Response = GetResponse;

    fn run(self, ctx: &mut CommandCtx<'_>) -> Result<GetResponse, CommandError> {
        let store = ctx.world.resource::<SkillStore>();
        let v = store.get(&self.skill, self.version).ok_or_else(|| unknown_skill(&self.skill, self.version))?;
        let evidence = match &self.run {
            Some(run) => Some(
                store
                    .evidence(run)
                    .ok_or_else(|| CommandError::new("UNKNOWN_SKILL", format!("no evidence for run {run}")))?,
            ),
            None => None,
        };
        let versions = store.versions(&self.skill).map(|vs| vs.iter().map(summary).collect()).unwrap_or_default();
        Ok(GetResponse {
            skill: self.skill.clone(),
            version: v.version,
            hash: v.hash.clone(),
            state: v.life.state,
            created_ms: v.created_ms,
            definition: v.def.authored(),
            compiled_source: v
                .def
                .seed
                .as_ref()
                .filter(|s| s.source_language == "typescript")
                .map(|s| s.compiled.clone()),
            lifecycle: v.life.clone(),
            versions,
            evidence,
        })
    }
}

/// `{"action":"skill_list"}`: the skill library.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SkillList {
    /// Only versions in this state (candidate, promoted, suspect, rejected, retired, superseded).
    pub state: Option<SkillState>,
    /// Every version, not only each skill's current one.
    #[serde(default)]
    pub all: bool,
}

/// Response of `skill_list`.
#[derive(Serialize, JsonSchema)]
pub struct ListResponse {
    pub count: usize,
    /// Each: skill, version, hash, state, purpose, inputSchema, helperAllowlist, expectedOutcome, stats.
    pub skills: Vec<Value>,
}

impl AgentCommand for SkillList {
    const NAME: &'static str = "skill_list";
    const SUMMARY: &'static str =
        "The skill library: each skill's current version (or all), with state, input schema and run stats";
    const EXAMPLE: &'static str = r#"{"action":"skill_list","state":"promoted"}"#;
    const SIZE_HINT: Option<&'static str> = Some("filter by state, or leave out all:true");
    const NEEDS_SPAWN: bool = false;
    /// The skill store is the process's, shared by its bots.
    const PER_BOT: bool = false;
    const QUERY: bool = true;
    type Response = ListResponse;

    fn run(self, ctx: &mut CommandCtx<'_>) -> Result<ListResponse, CommandError> {
        let store = ctx.world.resource::<SkillStore>();
        let mut skills = Vec::new();
        for (id, versions) in store.skills() {
            let chosen: Vec<_> =
                if self.all { versions.iter().collect() } else { store.get(id, None).into_iter().collect() };
            skills.extend(chosen.into_iter().filter(|v| self.state.is_none_or(|s| v.life.state == s)).map(summary));
        }
        Ok(ListResponse { count: skills.len(), skills })
    }
}

/// `{"action":"skill_trial","skill":"greetNearestPlayer"}`: trial a version in the live world.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SkillTrial {
    pub skill: String,
    /// Default: the newest version.
    pub version: Option<u32>,
    /// Default: the definition's trial `parameters`.
    pub parameters: Option<Map<String, Value>>,
}

/// `{"action":"skill_run","skill":"greetNearestPlayer","parameters":{…}}`: run a promoted skill.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SkillRunCmd {
    pub skill: String,
    /// Default: the promoted (or suspect) version.
    pub version: Option<u32>,
    /// Checked against the skill's `input_schema` (default `{}`).
    pub parameters: Option<Map<String, Value>>,
}

/// Response of `skill_trial` and `skill_run` (the result comes as `skill_finished`).
#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct RunStarted {
    pub started: bool,
    pub skill: String,
    pub version: u32,
    pub hash: String,
    /// The run id (`<skill>-v<N>-t<k>` for trials, `-r<k>` for runs).
    pub run: String,
    pub mode: Mode,
    /// The tick budget (the action's deadline).
    pub ticks: u64,
    pub limits: Limits,
}

impl AgentCommand for SkillTrial {
    const NAME: &'static str = "skill_trial";
    const SUMMARY: &'static str = "Trial a skill version in the live world (async: skill_trial_started, then skill_finished with the verdict; a pass promotes a candidate)";
    const EXAMPLE: &'static str = r#"{"action":"skill_trial","skill":"greetNearestPlayer","version":1}"#;
    const ASYNC: Option<AsyncInfo> = Some(AsyncInfo::of::<SkillRun>());
    type Response = RunStarted;

    fn run(self, ctx: &mut CommandCtx<'_>) -> Result<RunStarted, CommandError> {
        start_run(ctx, &self.skill, self.version, self.parameters, Mode::Trial)
    }
}

impl AgentCommand for SkillRunCmd {
    const NAME: &'static str = "skill_run";
    const SUMMARY: &'static str =
        "Run a promoted skill with parameters (async: skill_finished; repeated failures make it suspect, then retired)";
    const EXAMPLE: &'static str =
        r#"{"action":"skill_run","skill":"greetNearestPlayer","parameters":{"greeting":"Hi"}}"#;
    const ASYNC: Option<AsyncInfo> = Some(AsyncInfo::of::<SkillRun>());
    type Response = RunStarted;

    fn run(self, ctx: &mut CommandCtx<'_>) -> Result<RunStarted, CommandError> {
        start_run(ctx, &self.skill, self.version, self.parameters, Mode::Run)
    }
}

fn start_run(
    ctx: &mut CommandCtx<'_>,
    skill: &str,
    version: Option<u32>,
    parameters: Option<Map<String, Value>>,
    mode: Mode,
) -> Result<RunStarted, CommandError> {
    if let Some(running) = ctx.world.get::<ActiveActions>(ctx.bot).and_then(|a| a.slots.get(SLOT.name)) {
        return Err(CommandError::busy(&format!("running {} (id {})", running.command, running.id), SLOT.abort));
    }
    let store = ctx.world.resource::<SkillStore>();
    let chosen = match (mode, version) {
        (Mode::Trial, None) => store.versions(skill).and_then(|vs| vs.last()),
        _ => store.get(skill, version),
    };
    let v = chosen.ok_or_else(|| unknown_skill(skill, version))?;
    let version = (Arc::clone(&v.def), v.version, v.hash.clone(), v.life.clone());
    let prepared = prepare_run(ctx, skill, version, parameters, mode)?;
    let script = prepared.spawn()?;
    commit_run(ctx, prepared, script)
}

/// A trial or run whose every check passed; nothing has changed yet.
struct PreparedRun {
    skill: String,
    def: Arc<definition::Definition>,
    number: u32,
    hash: String,
    life: Life,
    mode: Mode,
    params: Value,
    resolved: Value,
    check: verifier::Check,
    helpers: Vec<(String, HelperKind)>,
    prelude: Option<Prelude>,
    /// The run id (`<skill>-v<N>-t<k>` / `-r<k>`).
    run: String,
}

impl PreparedRun {
    /// Starts the script's thread (it waits for its first slice). `INTERNAL` when the thread
    /// cannot start; nothing has changed then.
    fn spawn(&self) -> Result<ScriptHandle, CommandError> {
        let spec = ScriptSpec {
            source: self.def.runnable_source().to_owned(),
            params: self.params.clone(),
            helpers: self.helpers.clone(),
            limits: self.def.budget.limits(),
            seed: seed_of(&self.run),
            prelude: self.prelude.clone(),
        };
        ScriptHandle::spawn(spec, &self.run)
            .map_err(|e| CommandError::internal(format!("cannot start the script thread: {e}")))
    }
}

/// Every check of a trial or run of `version` (its definition, number, hash and lifecycle):
/// the state allows it, the parameters fit the input schema, the verifier parses, the helpers
/// exist. Changes nothing.
fn prepare_run(
    ctx: &CommandCtx<'_>,
    skill: &str,
    version: (Arc<definition::Definition>, u32, String, Life),
    parameters: Option<Map<String, Value>>,
    mode: Mode,
) -> Result<PreparedRun, CommandError> {
    let (def, number, hash, life) = version;
    let allowed = match mode {
        Mode::Trial => life.state.trialable(),
        Mode::Run => life.state.runnable(),
    };
    if !allowed {
        let hint = match (mode, life.state) {
            (Mode::Run, SkillState::Candidate) => ": trial it first (skill_trial)",
            (_, SkillState::Rejected) => ": define a new version",
            (_, SkillState::Retired | SkillState::Superseded) => ": run the current version",
            _ => "",
        };
        let verb = if mode == Mode::Trial { "trialled" } else { "run" };
        let state = serde_json::to_value(life.state).unwrap_or_default();
        let state = state.as_str().unwrap_or("?").to_owned();
        return Err(CommandError::new(
            "SKILL_STATE",
            format!("{skill} v{number} is {state} and cannot be {verb}{hint}"),
        ));
    }
    let params = match (mode, parameters) {
        (_, Some(p)) => Value::Object(p),
        (Mode::Trial, None) => def.parameters.clone(),
        (Mode::Run, None) => json!({}),
    };
    let mut problems = Vec::new();
    schema::check_value(&def.input_schema, &params, "parameters", &mut problems);
    let resolved = verifier::substitute(&def.verifier, params.as_object().unwrap_or(&Map::new()));
    let registry = ctx.world.resource::<CommandRegistry>().clone();
    let known = |h: &str| helper_kind(&registry, h).is_some() || h == crate::sandbox::WAIT_HELPER;
    let check = match def.seed {
        Some(_) => seed::parse_verifier(&resolved, "verifier", &mut problems),
        None => verifier::parse(&resolved, "verifier", &known, &mut problems),
    };
    if !problems.is_empty() {
        let list: Vec<String> = problems.iter().map(|p| format!("{}: {}", p.field, p.message)).collect();
        return Err(CommandError::invalid_params(list.join("; ")));
    }
    let check = check.ok_or_else(|| CommandError::internal("verifier did not parse"))?;
    let mut helpers = Vec::new();
    let prelude = match def.seed {
        // The seed's helpers are made of these commands; the skill sees only the helpers.
        Some(_) => {
            for name in seed::COMMANDS {
                if let Some(kind) = command_kind(&registry, name) {
                    helpers.push(((*name).to_owned(), kind));
                }
            }
            helpers.push((crate::sandbox::SWING_HELPER.to_owned(), HelperKind::Instant));
            Some(Prelude { code: seed::PRELUDE, allow: def.helper_allowlist.clone() })
        }
        None => {
            for name in &def.helper_allowlist {
                let kind = helper_kind(&registry, name).ok_or_else(|| {
                    CommandError::new("SKILL_STATE", format!("helper {name} no longer exists in this harness"))
                })?;
                helpers.push((name.clone(), kind));
            }
            None
        }
    };

    let run = format!("{skill}-v{number}-{}{}", if mode == Mode::Trial { 't' } else { 'r' }, life.started + 1);
    Ok(PreparedRun {
        skill: skill.to_owned(),
        def,
        number,
        hash,
        life,
        mode,
        params,
        resolved,
        check,
        helpers,
        prelude,
        run,
    })
}

/// Starts a prepared run with its `script`: counts it in the lifecycle, takes the world's
/// snapshot for the verifier, claims the skill slot (refused before the command ran when busy).
fn commit_run(ctx: &mut CommandCtx<'_>, p: PreparedRun, script: ScriptHandle) -> Result<RunStarted, CommandError> {
    let PreparedRun { skill, def, number, hash, life, mode, params, resolved, check, helpers, prelude: _, run } = p;
    let skill = skill.as_str();
    let started = life.started + 1;
    let tick = ctx.world.resource::<TickCount>().0;
    let start = position(ctx.world, ctx.bot);
    let plan = SnapshotPlan::for_check(&check, start);
    let before = capture(ctx.world, ctx.bot, &plan, tick);
    let limits = def.budget.limits();
    let seed = seed_of(&run);
    let evidence = ctx.world.resource::<SkillStore>().evidence_path(&run).map(|p| p.display().to_string());
    let component = SkillRun {
        run: run.clone(),
        skill: skill.to_owned(),
        version: number,
        hash: hash.clone(),
        mode,
        evidence,
        expected: def.expected_outcome,
        known: Known::of(&def),
        life_before: life.clone(),
        policy: def.promotion_policy,
        start_tick: tick,
        ticks: 0,
        usage: Default::default(),
        finished: None,
    };
    let command = if mode == Mode::Trial { SkillTrial::NAME } else { SkillRunCmd::NAME };
    ctx.start::<SkillRun>(command, component, def.ticks())?;
    {
        let mut store = ctx.world.resource_mut::<SkillStore>();
        if let Some(v) = store.get_mut(skill, number) {
            v.life.started = started;
        }
        store.save_life(skill, number);
    }
    let run_ctx = RunContext {
        request_id: ctx.id.clone(),
        run: run.clone(),
        mode,
        def: def.clone(),
        version: number,
        hash: hash.clone(),
        params: params.clone(),
        verifier: resolved,
        check,
        plan,
        before,
        seed,
        limits,
        helpers,
        start_tick: tick,
    };
    ctx.world.entity_mut(ctx.bot).insert(SkillHost::new(script, run_ctx));
    if mode == Mode::Trial {
        ctx.world.write_message(AgentEvent::new(SkillTrialStarted {
            bot: ctx.bot,
            id: ctx.id.clone(),
            skill: skill.to_owned(),
            version: number,
            hash: hash.clone(),
            run: run.clone(),
            parameters: params,
        }));
    }
    Ok(RunStarted {
        started: true,
        skill: skill.to_owned(),
        version: number,
        hash,
        run,
        mode,
        ticks: def.ticks(),
        limits,
    })
}

/// `{"action":"skill_retire","skill":"greetNearestPlayer","reason":"…"}`: retire versions.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SkillRetire {
    pub skill: String,
    /// Default: every version that is not retired yet.
    pub version: Option<u32>,
    pub reason: Option<String>,
}

/// Response of `skill_retire`.
#[derive(Serialize, JsonSchema)]
pub struct RetireResponse {
    pub skill: String,
    /// The versions this retired.
    pub retired: Vec<u32>,
    pub reason: String,
}

impl AgentCommand for SkillRetire {
    const NAME: &'static str = "skill_retire";
    const SUMMARY: &'static str = "Retire a skill version (or all of a skill's versions); skill_run no longer runs it";
    const EXAMPLE: &'static str =
        r#"{"action":"skill_retire","skill":"greetNearestPlayer","reason":"replaced by a better greeting"}"#;
    const NEEDS_SPAWN: bool = false;
    /// The skill store is the process's, shared by its bots.
    const PER_BOT: bool = false;
    type Response = RetireResponse;

    fn run(self, ctx: &mut CommandCtx<'_>) -> Result<RetireResponse, CommandError> {
        let reason =
            self.reason.clone().filter(|r| !r.trim().is_empty()).unwrap_or_else(|| "retired by the agent".into());
        let mut store = ctx.world.resource_mut::<SkillStore>();
        let numbers: Vec<u32> = match self.version {
            Some(n) => {
                vec![store.get(&self.skill, Some(n)).ok_or_else(|| unknown_skill(&self.skill, Some(n)))?.version]
            }
            None => store
                .versions(&self.skill)
                .ok_or_else(|| unknown_skill(&self.skill, None))?
                .iter()
                .filter(|v| v.life.state != SkillState::Retired)
                .map(|v| v.version)
                .collect(),
        };
        let mut retired = Vec::new();
        for n in numbers {
            if let Some(v) = store.get_mut(&self.skill, n)
                && v.life.state != SkillState::Retired
            {
                v.life.state = SkillState::Retired;
                v.life.retired_reason = Some(reason.clone());
                retired.push(n);
            }
            store.save_life(&self.skill, n);
        }
        if retired.is_empty() && self.version.is_some() {
            return Err(CommandError::new(
                "SKILL_STATE",
                format!("{} v{} is already retired", self.skill, self.version.unwrap_or(0)),
            ));
        }
        for n in &retired {
            ctx.world.write_message(AgentEvent::new(SkillRetired {
                bot: ctx.bot,
                id: ctx.id.clone(),
                skill: self.skill.clone(),
                version: *n,
                reason: reason.clone(),
                by: "agent".into(),
            }));
        }
        Ok(RetireResponse { skill: self.skill, retired, reason })
    }
}
