//! Skill runs in the ECS.
//!
//! A run is an async action like any other ([`SkillRun`], slot `skill`, `abort_skill`, one
//! `skill_finished` completion event): `timeout_ms` is its watchdog deadline — the one tick
//! authority — and death, disconnects and shutdowns end it through the action model. Next to
//! it, [`SkillHost`] holds the script thread and the helper bridge.
//!
//! Each tick, after every action has stepped ([`step_runs`], after `ActionSet::Watchdog`):
//! completion events and deferred responses of the run's helper calls are matched by request
//! id, the script gets its slice with them, and each helper call is answered by running the
//! command through the registry. When `run` settles, the after-snapshot is taken, the verifier
//! evaluated, the lifecycle moved, the evidence written, and the action ended. A run ended from
//! outside ([`finish_ended_runs`]) is judged failed the same way.

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;
use std::time::Duration;

use bevy_ecs::message::{MessageCursor, Messages};
use bevy_ecs::prelude::*;
use bevy_ecs::world::EntityRef;
use clawcraft_core::{
    ActionSlot, ActionStatus, ActiveActions, AgentEvent, AsyncAction, CommandRegistry, CommandResponse, DoneOf,
    Outcome, TickCount, end_action, event::now_ms,
};
use schemars::JsonSchema;
use serde::Serialize;
use serde_json::{Map, Value, json};

use crate::definition::{Definition, ExpectedOutcome, FailureMode, PromotionPolicy};
use crate::sandbox::{
    Call, HelperKind, Limits, MAX_JSON_BYTES, NOTE_HELPER, Reply, RunStatus, SWING_HELPER, ScriptEnd, ScriptError,
    ScriptHandle, SliceEnd, Usage, WAIT_HELPER,
};
use crate::snapshot::{SKILL_ORIGIN, capture};
use crate::store::{Judgement, Life, Mode, RunNote, SkillState, SkillStore};
use crate::verifier::{
    self, CHAT_HELPERS, Check, CheckResult, HelperEvent, SeedEvent, Snapshot, SnapshotPlan, Verdict,
};
use crate::{SkillPromoted, SkillRetired, SkillSettings};

/// The action slot of skill runs.
pub const SLOT: ActionSlot = ActionSlot::new("skill", "abort_skill", "No skill running");
/// Largest helper result passed to a script.
pub const MAX_RESULT_BYTES: usize = 512 * 1024;
/// Longest `waitTicks`.
pub const MAX_WAIT_TICKS: u64 = 1200;

/// Why a run failed, and whether the skill said it might.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct FailureReport {
    pub code: FailureMode,
    pub message: String,
    /// Failure codes of the run's helper results.
    pub helper_codes: Vec<FailureMode>,
    /// What the seed's helpers reported blocked or threw (`collectLogs: no_logs_found — …`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub blockers: Vec<String>,
    /// `known_failure_modes` that match `code` or a helper code (for the seed's free-text modes:
    /// those naming one of the run's codes, or whose words are all in a blocker).
    pub matched_known_failure_modes: Vec<String>,
    /// Nothing among `known_failure_modes` matched `code` (the seed's: nothing matched at all).
    pub unexpected: bool,
}

/// The expected outcome class against what the snapshots and events showed.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct OutcomeReport {
    /// `null` for a seed-shaped skill (its verifier alone decides).
    pub expected: Option<ExpectedOutcome>,
    pub observed: Vec<ExpectedOutcome>,
    pub satisfied: bool,
}

/// A version's state before and after the run.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, JsonSchema)]
pub struct LifecycleChange {
    pub before: SkillState,
    pub after: SkillState,
}

/// `skill_finished`: a skill trial or run ended (the completion event of `skill_trial`/`skill_run`).
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SkillFinished {
    pub skill: String,
    pub version: u32,
    pub hash: String,
    /// The run id (names the evidence).
    pub run: String,
    pub mode: Mode,
    /// How the script ended: `returned`, `threw`, `forbidden`, `op_budget`, `tick_budget`, …
    pub run_status: RunStatus,
    /// `passed`, `failed` or `inconclusive` (a run that did not return is `failed`, unevaluated).
    pub verdict: Verdict,
    /// The evaluated verifier, check by check.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub checks: Option<CheckResult>,
    /// What `run` returned.
    pub result: Option<Value>,
    /// What `run` threw.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<ScriptError>,
    pub failure: Option<FailureReport>,
    pub expected_outcome: OutcomeReport,
    pub lifecycle: LifecycleChange,
    /// Path of the evidence file (`null` without `CLAWCRAFT_SKILLS_DIR`; `skill_get` with `run`
    /// returns it either way).
    pub evidence: Option<String>,
    /// Ticks the run lasted.
    pub ticks: u64,
    pub ops: u64,
    pub helper_calls: u32,
}

clawcraft_core::evidence!(
    SkillFinished,
    "skill_finished",
    "A skill trial or run ended: run status, verdict with every check, failure (matched against known_failure_modes), lifecycle change, evidence"
);

/// A skill's declared failure modes: the closed codes of the project's dialect, or the seed's
/// free text.
#[derive(Debug, Clone, PartialEq)]
pub enum Known {
    Codes(Vec<FailureMode>),
    Text(Vec<String>),
}

impl Known {
    pub fn of(def: &Definition) -> Self {
        match &def.seed {
            Some(s) => Known::Text(s.known_failure_modes.clone()),
            None => Known::Codes(def.known_failure_modes.clone()),
        }
    }
}

/// What the runtime decided when it ended a run itself.
#[derive(Debug, Clone)]
pub struct Finished {
    pub run_status: RunStatus,
    pub verdict: Verdict,
    pub checks: Option<CheckResult>,
    pub result: Option<Value>,
    pub error: Option<ScriptError>,
    pub failure: Option<FailureReport>,
    pub outcome: OutcomeReport,
    pub lifecycle: LifecycleChange,
}

/// The running skill on a bot: the action component (slot `skill`).
#[derive(Component, Debug, Clone)]
pub struct SkillRun {
    pub run: String,
    pub skill: String,
    pub version: u32,
    pub hash: String,
    pub mode: Mode,
    pub evidence: Option<String>,
    pub expected: Option<ExpectedOutcome>,
    pub known: Known,
    /// The version's lifecycle when the run started, and its policy (to announce the change
    /// when the run is ended from outside).
    pub life_before: Life,
    pub policy: PromotionPolicy,
    pub start_tick: u64,
    /// Latest progress (updated every tick).
    pub ticks: u64,
    pub usage: Usage,
    pub finished: Option<Finished>,
}

impl AsyncAction for SkillRun {
    const SLOT: ActionSlot = SLOT;
    type Evidence = SkillFinished;

    fn evidence(&self, outcome: &Outcome, _bot: EntityRef<'_>) -> SkillFinished {
        let f = self.finished.clone().unwrap_or_else(|| {
            let status = external_status(outcome);
            let failure = failure_report(
                status_failure(status),
                format!("the run ended: {}", outcome.reason.clone().unwrap_or_default()),
                Vec::new(),
                Vec::new(),
                &self.known,
            );
            let after = self.life_before.judged(&self.policy, self.mode, Judgement::Failed).state;
            Finished {
                run_status: status,
                verdict: Verdict::Failed,
                checks: None,
                result: None,
                error: None,
                failure: Some(failure),
                outcome: OutcomeReport { expected: self.expected, observed: Vec::new(), satisfied: false },
                lifecycle: LifecycleChange { before: self.life_before.state, after },
            }
        });
        SkillFinished {
            skill: self.skill.clone(),
            version: self.version,
            hash: self.hash.clone(),
            run: self.run.clone(),
            mode: self.mode,
            run_status: f.run_status,
            verdict: f.verdict,
            checks: f.checks,
            result: f.result,
            error: f.error,
            failure: f.failure,
            expected_outcome: f.outcome,
            lifecycle: f.lifecycle,
            evidence: self.evidence.clone(),
            ticks: self.ticks,
            ops: self.usage.ops,
            helper_calls: self.usage.helper_calls,
        }
    }
}

/// The run status of a run ended through the action model.
fn external_status(outcome: &Outcome) -> RunStatus {
    let reason = outcome.reason.as_deref().unwrap_or_default();
    match outcome.status {
        ActionStatus::Timeout => RunStatus::TickBudget,
        ActionStatus::Aborted if reason == "shutdown" => RunStatus::Shutdown,
        ActionStatus::Failed if reason == "died" => RunStatus::Died,
        ActionStatus::Failed if reason == "disconnected" => RunStatus::Disconnected,
        _ => RunStatus::Cancelled,
    }
}

/// The failure code of a run status.
pub fn status_failure(s: RunStatus) -> FailureMode {
    match s {
        RunStatus::Returned => FailureMode::Failed,
        RunStatus::Threw => FailureMode::Threw,
        RunStatus::Forbidden => FailureMode::Forbidden,
        RunStatus::OpBudget => FailureMode::OpBudget,
        RunStatus::TickBudget => FailureMode::TickBudget,
        RunStatus::HelperBudget => FailureMode::HelperBudget,
        RunStatus::MemoryLimit => FailureMode::MemoryLimit,
        RunStatus::StackOverflow => FailureMode::StackOverflow,
        RunStatus::Cancelled => FailureMode::Cancelled,
        RunStatus::Died => FailureMode::Died,
        RunStatus::Disconnected => FailureMode::Disconnected,
        RunStatus::Shutdown => FailureMode::Shutdown,
        RunStatus::Unresponsive => FailureMode::Unresponsive,
        RunStatus::Internal => FailureMode::Internal,
    }
}

/// Other words a run's own codes go by, so a seed author's "timeout" names `tick_budget`.
fn aliases(code: FailureMode) -> &'static [&'static str] {
    match code {
        FailureMode::TickBudget | FailureMode::Timeout => &["timeout", "timed_out"],
        FailureMode::Threw => &["exception", "threw"],
        FailureMode::VerifierFailed => &["verifier_failed", "verification_failed"],
        FailureMode::Busy => &["busy"],
        _ => &[],
    }
}

/// `blockers` are (code, text) pairs the seed's helpers reported.
fn failure_report(
    code: FailureMode,
    message: String,
    helper_codes: Vec<FailureMode>,
    blockers: Vec<(String, String)>,
    known: &Known,
) -> FailureReport {
    let (matched, unexpected) = match known {
        Known::Codes(known) => {
            let mut matched: Vec<String> =
                known.iter().filter(|k| **k == code || helper_codes.contains(k)).map(|k| k.name()).collect();
            matched.dedup();
            (matched, !known.contains(&code))
        }
        Known::Text(known) => {
            let mut codes: Vec<String> = vec![code.name()];
            codes.extend(aliases(code).iter().map(|a| (*a).to_owned()));
            for c in &helper_codes {
                codes.push(c.name());
                codes.extend(aliases(*c).iter().map(|a| (*a).to_owned()));
            }
            codes.extend(blockers.iter().map(|(c, _)| c.clone()));
            let mut texts: Vec<String> = blockers.iter().map(|(_, t)| t.clone()).collect();
            texts.push(message.clone());
            let matched = crate::seed::matched_modes(known, &codes, &texts);
            let unexpected = matched.is_empty();
            (matched, unexpected)
        }
    };
    FailureReport {
        code,
        message,
        unexpected,
        helper_codes,
        blockers: blockers.into_iter().map(|(_, t)| t).collect(),
        matched_known_failure_modes: matched,
    }
}

/// What the seed helpers reported blocked or threw: (code, `helper: code — reason`).
pub fn seed_blockers(events: &[SeedEvent]) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for e in events {
        let (code, reason) = match e.status.as_str() {
            "completed" => {
                let Some(r) = &e.result else { continue };
                let status = r.get("status").and_then(Value::as_str).unwrap_or_default();
                if e.progress() || matches!(status, "ok" | "") {
                    continue;
                }
                let code = r.get("code").and_then(Value::as_str).unwrap_or(status).to_owned();
                (code, r.get("reason").and_then(Value::as_str).unwrap_or(status).to_owned())
            }
            "failed" => {
                let err = e.error.as_ref();
                let code = err.and_then(|x| x.get("code")).and_then(Value::as_str).unwrap_or("threw").to_owned();
                (code, err.and_then(|x| x.get("error")).and_then(Value::as_str).unwrap_or("threw").to_owned())
            }
            _ => continue,
        };
        out.push((code.clone(), format!("{}: {code} — {reason}", e.helper)));
    }
    out
}

/// What resolves a pending helper call.
#[derive(Debug, Clone)]
enum Pending {
    /// An async action: its completion event with this request id.
    Action {
        request_id: String,
        completion_event: &'static str,
        slot: &'static str,
        abort: &'static str,
        response: Map<String, Value>,
    },
    /// A command whose response was deferred (e.g. `cmd`).
    Deferred { request_id: String },
    /// `waitTicks`.
    Timer { due_tick: u64, ticks: u64 },
}

/// The game side of helper calls: runs them as commands and tracks what they wait for.
#[derive(Debug)]
pub struct Bridge {
    run: String,
    start_tick: u64,
    kinds: BTreeMap<String, HelperKind>,
    /// Every call, in order (the evidence).
    pub events: Vec<HelperEvent>,
    /// The seed helpers' events (a prelude's `note`s), in order.
    pub seed_events: Vec<SeedEvent>,
    pending: BTreeMap<u32, Pending>,
    /// The physical action in flight (one per bot).
    inflight: Option<u32>,
    /// Results ready for the next slice.
    due: Vec<(u32, Value)>,
}

/// Everything fixed about a run once it started.
#[derive(Debug, Clone)]
pub struct RunContext {
    pub request_id: Value,
    pub run: String,
    pub mode: Mode,
    pub def: Arc<Definition>,
    pub version: u32,
    pub hash: String,
    pub params: Value,
    /// The verifier with parameters substituted.
    pub verifier: Value,
    pub check: Check,
    pub plan: SnapshotPlan,
    pub before: Snapshot,
    pub seed: u64,
    pub limits: Limits,
    pub helpers: Vec<(String, HelperKind)>,
    pub start_tick: u64,
}

/// The runtime side of a run: its script thread and helper bridge.
#[derive(Component)]
pub struct SkillHost {
    pub script: ScriptHandle,
    pub bridge: Bridge,
    pub ctx: RunContext,
}

impl SkillHost {
    pub fn new(script: ScriptHandle, ctx: RunContext) -> Self {
        let bridge = Bridge {
            run: ctx.run.clone(),
            start_tick: ctx.start_tick,
            kinds: ctx.helpers.iter().cloned().collect(),
            events: Vec::new(),
            seed_events: Vec::new(),
            pending: BTreeMap::new(),
            inflight: None,
            due: Vec::new(),
        };
        Self { script, bridge, ctx }
    }
}

/// The failure code of a command error, for helper results.
fn error_code(code: &str) -> &'static str {
    match code {
        "BUSY" => "busy",
        "NOT_SPAWNED" => "not_spawned",
        "INVALID_PARAMS" | "OUT_OF_RANGE" => "invalid_params",
        _ => "rejected",
    }
}

fn rejected(code: &str, message: &str) -> Value {
    json!({"status": "rejected", "code": error_code(code), "error": {"code": code, "message": message}})
}

/// A completion event as a helper result: `{status, code, …evidence, response}`.
fn completion_result(fields: &Map<String, Value>, response: &Map<String, Value>) -> Value {
    let status = fields.get("status").and_then(Value::as_str).unwrap_or("failed");
    let reason = fields.get("reason").and_then(Value::as_str).unwrap_or_default();
    let code = match status {
        "done" => "ok",
        "timeout" => "timeout",
        "aborted" if reason.contains("skill run") => "cancelled",
        "aborted" => "aborted",
        _ if reason == "died" => "died",
        _ if reason == "disconnected" => "disconnected",
        _ => "failed",
    };
    let mut out = fields.clone();
    out.insert("status".into(), json!(status));
    out.insert("code".into(), json!(code));
    out.insert("response".into(), Value::Object(response.clone()));
    Value::Object(out)
}

impl Bridge {
    fn rel(&self, tick: u64) -> u64 {
        tick.saturating_sub(self.start_tick)
    }

    fn record_result(&mut self, seq: u32, tick: u64, result: Value) {
        let rel = self.rel(tick);
        if let Some(e) = self.events.iter_mut().find(|e| e.seq == seq) {
            e.resolved_tick = Some(rel);
            e.result = Some(result);
        }
    }

    /// Moves results that arrived (completion events, deferred responses, timers) to `due`.
    fn collect(
        &mut self,
        events: &HashMap<String, (String, Map<String, Value>)>,
        responses: &HashMap<String, Map<String, Value>>,
        tick: u64,
    ) {
        let mut done = Vec::new();
        for (seq, p) in &self.pending {
            let result = match p {
                Pending::Action { request_id, completion_event, response, .. } => events
                    .get(request_id)
                    .filter(|(kind, _)| kind == completion_event)
                    .map(|(_, fields)| completion_result(fields, response)),
                Pending::Deferred { request_id } => responses.get(request_id).map(|body| {
                    let mut fields = body.clone();
                    fields.remove("type");
                    fields.remove("id");
                    match (fields.get("code").and_then(Value::as_str), fields.get("error").and_then(Value::as_str)) {
                        (Some(code), Some(message)) => rejected(code, message),
                        _ => {
                            fields.insert("status".into(), json!("done"));
                            fields.insert("code".into(), json!("ok"));
                            Value::Object(fields)
                        }
                    }
                }),
                Pending::Timer { due_tick, ticks } => {
                    (tick >= *due_tick).then(|| json!({"status": "done", "code": "ok", "ticks": ticks}))
                }
            };
            if let Some(r) = result {
                done.push((*seq, r));
            }
        }
        for (seq, result) in done {
            if self.pending.remove(&seq).is_some_and(|p| matches!(p, Pending::Action { .. }))
                && self.inflight == Some(seq)
            {
                self.inflight = None;
            }
            self.record_result(seq, tick, result.clone());
            self.due.push((seq, result));
        }
    }

    fn request_id(&self, seq: u32) -> String {
        format!("skill:{}:{seq}", self.run)
    }

    /// Records a seed helper event; a started one gets its number.
    pub fn note(&mut self, event: &Value, tick: u64) -> Value {
        let rel = self.rel(tick);
        note_event(&mut self.seed_events, event, rel)
    }

    /// Answers one helper call by running its command.
    fn serve(&mut self, world: &mut World, bot: Entity, call: Call) -> Reply {
        if call.helper == NOTE_HELPER {
            return Reply::Value(self.note(&call.params, call.tick));
        }
        let kind =
            if call.helper == WAIT_HELPER { Some(HelperKind::Action) } else { self.kinds.get(&call.helper).copied() };
        self.events.push(HelperEvent {
            seq: call.seq,
            helper: call.helper.clone(),
            kind: kind.unwrap_or(HelperKind::Query),
            params: call.params.clone(),
            tick: self.rel(call.tick),
            resolved_tick: None,
            result: None,
            error: None,
            request_id: None,
        });
        let now = world.resource::<TickCount>().0;
        let reply = self.answer(world, bot, &call, kind, now);
        let rel = self.rel(now);
        let request_id = self.request_id(call.seq);
        if let Some(e) = self.events.iter_mut().find(|e| e.seq == call.seq) {
            match &reply {
                Reply::Value(v) | Reply::Resolved(v) => {
                    e.result = Some(v.clone());
                    e.resolved_tick = Some(rel);
                }
                Reply::Error { code, message } => {
                    e.error = Some(json!({"code": code, "message": message}));
                    e.resolved_tick = Some(rel);
                }
                Reply::Pending => {}
            }
            if matches!(kind, Some(HelperKind::Action | HelperKind::Instant)) && call.helper != WAIT_HELPER {
                e.request_id = Some(request_id);
            }
        }
        reply
    }

    fn answer(&mut self, world: &mut World, bot: Entity, call: &Call, kind: Option<HelperKind>, now: u64) -> Reply {
        let Some(kind) = kind else {
            return Reply::Error {
                code: "unknown_helper".into(),
                message: format!("{} is not in this skill's helper_allowlist", call.helper),
            };
        };
        let Value::Object(params) = call.params.clone() else {
            return Reply::Error { code: "invalid_params".into(), message: "parameters must be an object".into() };
        };
        if call.helper == SWING_HELPER {
            return Reply::Resolved(swing_arm(world, bot));
        }
        if call.helper == WAIT_HELPER {
            return match params.get("ticks").and_then(Value::as_u64).filter(|t| *t <= MAX_WAIT_TICKS) {
                Some(ticks) => {
                    self.pending.insert(call.seq, Pending::Timer { due_tick: now + ticks.max(1), ticks });
                    Reply::Pending
                }
                None => Reply::Error {
                    code: "invalid_params".into(),
                    message: format!("waitTicks takes an integer 0..={MAX_WAIT_TICKS}"),
                },
            };
        }
        let Some(entry) = world.resource::<CommandRegistry>().get(&call.helper).cloned() else {
            return Reply::Error { code: "unknown_helper".into(), message: format!("no command {}", call.helper) };
        };
        let request_id = self.request_id(call.seq);
        if kind == HelperKind::Action
            && let Some(busy) = self.inflight
        {
            let message = format!("one physical action at a time: call {busy} is still in flight (await it first)");
            return Reply::Resolved(rejected("BUSY", &message));
        }
        let answer = entry.invoke(world, bot, json!(request_id), SKILL_ORIGIN, params);
        let too_big = |v: &Map<String, Value>| {
            serde_json::to_string(v).map_or(true, |s| s.len() > MAX_RESULT_BYTES.max(MAX_JSON_BYTES))
        };
        match (kind, answer) {
            (HelperKind::Query, Ok(Some(fields))) if too_big(&fields) => Reply::Error {
                code: "too_large".into(),
                message: format!("the answer of {} is over {MAX_RESULT_BYTES} bytes; ask for less", call.helper),
            },
            (HelperKind::Query, Ok(Some(fields))) => Reply::Value(Value::Object(fields)),
            (HelperKind::Query, Ok(None)) => Reply::Error {
                code: "rejected".into(),
                message: format!("{} answers later; it cannot be a query", call.helper),
            },
            (HelperKind::Query, Err(e)) => Reply::Error { code: e.code.into(), message: e.message },
            (_, Err(e)) => Reply::Resolved(rejected(e.code, &e.message)),
            // An async command that answered without starting its action (a walk already there).
            (HelperKind::Action, Ok(Some(mut fields)))
                if entry.async_info.is_some_and(|info| {
                    world
                        .get::<ActiveActions>(bot)
                        .and_then(|a| a.slots.get(info.slot))
                        .is_none_or(|a| a.id.as_str() != Some(request_id.as_str()))
                }) =>
            {
                fields.insert("status".into(), json!("done"));
                fields.insert("code".into(), json!("ok"));
                fields.insert("started".into(), json!(false));
                Reply::Resolved(Value::Object(fields))
            }
            (HelperKind::Action, Ok(response)) => {
                let info = entry.async_info;
                let pending = match info {
                    Some(info) => Pending::Action {
                        request_id,
                        completion_event: info.completion_event,
                        slot: info.slot,
                        abort: info.abort,
                        response: response.unwrap_or_default(),
                    },
                    None => Pending::Deferred { request_id },
                };
                self.pending.insert(call.seq, pending);
                self.inflight = Some(call.seq);
                Reply::Pending
            }
            (_, Ok(Some(mut fields))) => {
                fields.insert("status".into(), json!("done"));
                fields.insert("code".into(), json!("ok"));
                Reply::Resolved(Value::Object(fields))
            }
            (_, Ok(None)) => {
                self.pending.insert(call.seq, Pending::Deferred { request_id });
                Reply::Pending
            }
        }
    }

    /// Aborts the physical action still in flight (through its slot's `abort_*` command), if
    /// it is still this run's.
    fn cancel_inflight(&mut self, world: &mut World, bot: Entity) {
        let Some(seq) = self.inflight.take() else { return };
        let Some(Pending::Action { request_id, slot, abort, .. }) = self.pending.remove(&seq) else { return };
        let ours = world
            .get::<ActiveActions>(bot)
            .and_then(|a| a.slots.get(slot))
            .is_some_and(|a| a.id.as_str() == Some(request_id.as_str()));
        if ours && let Some(entry) = world.resource::<CommandRegistry>().get(abort).cloned() {
            let id = json!(format!("skill:{}:cancel", self.run));
            if let Err(e) = entry.invoke(world, bot, id, SKILL_ORIGIN, Map::new()) {
                tracing::debug!(run = %self.run, error = %e.message, "cancelling the in-flight action");
            }
        }
        let now = world.resource::<TickCount>().0;
        self.record_result(
            seq,
            now,
            json!({"status": "aborted", "code": "cancelled", "reason": "the skill run ended"}),
        );
    }
}

/// Sends an arm swing (Animate `swing_arm`) as the bot, the way a client shows a swing.
fn swing_arm(world: &mut World, bot: Entity) -> Value {
    let Some(runtime_id) = world.get::<clawcraft_core::EntityIds>(bot).map(|i| i.runtime_id) else {
        return rejected("NOT_SPAWNED", "the bot has not spawned");
    };
    let Some(mut conn) = world.get_mut::<clawcraft_network::Connection>(bot) else {
        return rejected("NOT_SPAWNED", "no connection");
    };
    conn.send(&clawcraft_protocol::packets::Animate {
        action_id: "swing_arm".into(),
        runtime_entity_id: runtime_id,
        data: 0.0,
        has_swing_source: true,
        swing_source: Some("none".into()),
    });
    json!({"status": "done", "code": "ok", "swung": true})
}

/// Records a prelude's `note(event)` in `events` (`tick`: since the run started): `started`
/// appends an event and answers its number; `completed`/`failed` settle the numbered one.
pub fn note_event(events: &mut Vec<SeedEvent>, event: &Value, tick: u64) -> Value {
    let field = |k: &str| event.get(k).cloned();
    match event.get("phase").and_then(Value::as_str) {
        Some("started") => {
            let seq = events.len() as u32 + 1;
            events.push(SeedEvent {
                seq,
                helper: event.get("helper").and_then(Value::as_str).unwrap_or_default().to_owned(),
                args: field("args").unwrap_or(Value::Null),
                status: "started".into(),
                result: None,
                error: None,
                tick,
                resolved_tick: None,
            });
            json!(seq)
        }
        Some(phase @ ("completed" | "failed")) => {
            let seq = event.get("seq").and_then(Value::as_u64).unwrap_or(0);
            if let Some(e) = events.iter_mut().find(|e| u64::from(e.seq) == seq && e.status == "started") {
                e.status = phase.to_owned();
                e.resolved_tick = Some(tick);
                if phase == "completed" {
                    e.result = field("result");
                } else {
                    e.error = Some(json!({"error": field("error"), "code": field("code")}));
                }
            }
            Value::Null
        }
        _ => Value::Null,
    }
}

/// Outcome classes the snapshots and events show.
pub fn observed_outcomes(before: &Snapshot, after: &Snapshot, events: &[HelperEvent]) -> Vec<ExpectedOutcome> {
    let mut out = Vec::new();
    if let (Some(a), Some(b)) = (before.position, after.position)
        && a.distance(b) >= 0.5
    {
        out.push(ExpectedOutcome::PositionDelta);
    }
    let cells_changed =
        after.cells.iter().any(|(k, v)| before.cells.get(k).is_some_and(|b| b.is_some() && v.is_some() && b != v));
    let counts_changed = after.counts.iter().any(|(k, v)| before.counts.get(k).is_some_and(|b| b.count != v.count));
    if cells_changed || counts_changed {
        out.push(ExpectedOutcome::WorldBlockDelta);
    }
    if let (Some(b), Some(a)) = (&before.inventory, &after.inventory) {
        if b.items != a.items {
            out.push(ExpectedOutcome::InventoryDelta);
        }
        if b.equipped != a.equipped {
            out.push(ExpectedOutcome::EquipmentDelta);
        }
    }
    if let (Some(b), Some(a)) = (&before.vitals, &after.vitals)
        && b != a
    {
        out.push(ExpectedOutcome::VitalsDelta);
    }
    if let (Some(b), Some(a)) = (&before.entities, &after.entities)
        && b.iter().any(|e| !a.iter().any(|x| x.id == e.id))
    {
        out.push(ExpectedOutcome::EntityDelta);
    }
    let social = events
        .iter()
        .any(|e| (CHAT_HELPERS.contains(&e.helper.as_str()) || e.helper == "emote") && e.status() == "done");
    if social {
        out.push(ExpectedOutcome::SocialDelta);
    }
    if events.iter().any(|e| e.kind == HelperKind::Query && e.status() == "done") {
        out.push(ExpectedOutcome::Diagnostic);
    }
    out
}

/// The failure a script declared by returning `{status:"failed"|"blocked", code}` or `{ok:false}`.
pub fn declared_failure(value: &Value) -> Option<(FailureMode, String)> {
    let status = value.get("status").and_then(Value::as_str);
    let failed = matches!(status, Some("failed" | "blocked" | "error")) || value.get("ok") == Some(&Value::Bool(false));
    if !failed {
        return None;
    }
    let code = value.get("code").and_then(Value::as_str).and_then(FailureMode::parse).unwrap_or(FailureMode::Failed);
    let message = value
        .get("message")
        .or_else(|| value.get("reason"))
        .and_then(Value::as_str)
        .unwrap_or("the script reported a failure");
    Some((code, message.to_owned()))
}

/// Judges a finished script: verdict, outcome classes, failure, judgement.
pub struct Judged {
    pub verdict: Verdict,
    pub checks: Option<CheckResult>,
    pub outcome: OutcomeReport,
    pub failure: Option<FailureReport>,
    pub judgement: Judgement,
}

pub fn judge(
    status: RunStatus,
    value: Option<&Value>,
    ctx: &RunContext,
    after: &Snapshot,
    events: &[HelperEvent],
    seed_events: &[SeedEvent],
) -> Judged {
    let (check, expected, before) = (&ctx.check, ctx.def.expected_outcome, &ctx.before);
    let known = Known::of(&ctx.def);
    let known = &known;
    let blockers = seed_blockers(seed_events);
    let helper_codes: Vec<FailureMode> = {
        let mut codes: Vec<FailureMode> =
            events.iter().filter_map(|e| e.code()).filter(|c| *c != "ok").filter_map(FailureMode::parse).collect();
        codes.sort();
        codes.dedup();
        codes
    };
    let observed = observed_outcomes(before, after, events);
    let satisfied = expected.is_none_or(|e| observed.contains(&e));
    let outcome = OutcomeReport { expected, observed, satisfied };
    if status != RunStatus::Returned {
        let failure = failure_report(
            status_failure(status),
            format!("the script ended: {}", status.name()),
            helper_codes,
            blockers,
            known,
        );
        return Judged {
            verdict: Verdict::Failed,
            checks: None,
            outcome,
            failure: Some(failure),
            judgement: Judgement::Failed,
        };
    }
    let checks = verifier::evaluate_with(check, before, after, events, seed_events);
    let verdict = checks.status;
    let (judgement, failure) = if let Some((code, message)) = value.and_then(declared_failure) {
        (Judgement::Failed, Some((code, message)))
    } else {
        match verdict {
            Verdict::Failed => {
                (Judgement::Failed, Some((FailureMode::VerifierFailed, "the verifier failed".to_owned())))
            }
            Verdict::Inconclusive => (
                Judgement::Inconclusive,
                Some((FailureMode::Inconclusive, "the verifier could not decide (missing data)".to_owned())),
            ),
            Verdict::Passed if !satisfied => (
                Judgement::Failed,
                Some((
                    FailureMode::OutcomeUnsatisfied,
                    format!(
                        "the verifier passed but no {} was observed",
                        expected.map(|e| e.name()).unwrap_or_default()
                    ),
                )),
            ),
            Verdict::Passed => (Judgement::Passed, None),
        }
    };
    let failure = failure.map(|(code, message)| failure_report(code, message, helper_codes, blockers, known));
    Judged { verdict, checks: Some(checks), outcome, failure, judgement }
}

/// Moves the version's lifecycle after a judged run, emits `skill_promoted`/`skill_retired`.
fn apply_judgement(
    world: &mut World,
    bot: Entity,
    ctx: &RunContext,
    judgement: Judgement,
    note: RunNote,
) -> LifecycleChange {
    let mut store = world.resource_mut::<SkillStore>();
    let skill = ctx.def.skill.clone();
    let Some(v) = store.get_mut(&skill, ctx.version) else {
        return LifecycleChange { before: SkillState::Retired, after: SkillState::Retired };
    };
    let before = v.life.state;
    let mut life = v.life.judged(&ctx.def.promotion_policy, ctx.mode, judgement);
    life.note(note.clone());
    let after = life.state;
    v.life = life;
    let reason = v.life.retired_reason.clone();
    let hash = v.hash.clone();
    let superseded = if after == SkillState::Promoted && !before.runnable() {
        store.supersede_others(&skill, ctx.version)
    } else {
        Vec::new()
    };
    store.save_life(&skill, ctx.version);
    if after == SkillState::Promoted && !before.runnable() {
        world.write_message(AgentEvent::new(SkillPromoted {
            bot,
            id: ctx.request_id.clone(),
            skill: skill.clone(),
            version: ctx.version,
            hash,
            run: ctx.run.clone(),
            evidence: note.evidence.clone(),
            superseded,
        }));
    }
    if after == SkillState::Retired && before != SkillState::Retired {
        world.write_message(AgentEvent::new(SkillRetired {
            bot,
            id: ctx.request_id.clone(),
            skill,
            version: ctx.version,
            reason: reason.unwrap_or_else(|| "failed too often".into()),
            by: "health".into(),
        }));
    }
    LifecycleChange { before, after }
}

/// The evidence of a run: everything needed to judge it again, or to replay it offline.
#[allow(clippy::too_many_arguments)]
fn evidence(
    ctx: &RunContext,
    bridge: &Bridge,
    end_tick: u64,
    status: RunStatus,
    end: Option<&ScriptEnd>,
    usage: &Usage,
    after: &Snapshot,
    judged: &Judged,
    lifecycle: LifecycleChange,
) -> Value {
    json!({
        "schema": "clawcraft-skill-evidence/v1",
        "run": ctx.run,
        "mode": ctx.mode,
        "requestId": ctx.request_id,
        "skill": ctx.def.skill,
        "version": ctx.version,
        "hash": ctx.hash,
        "source": ctx.def.runnable_source(),
        "dialect": if ctx.def.seed.is_some() { "seed" } else { "clawcraft" },
        "authoredSource": ctx.def.seed.as_ref().map(|_| ctx.def.source.clone()),
        "helpers": ctx.helpers,
        "allowlist": ctx.def.helper_allowlist,
        "params": ctx.params,
        "seed": ctx.seed,
        "limits": ctx.limits,
        "startTick": ctx.start_tick,
        "endTick": end_tick,
        "ticks": end_tick.saturating_sub(ctx.start_tick),
        "helperCalls": bridge.events,
        "helperEvents": bridge.seed_events,
        "logs": end.map(|e| e.logs.clone()).unwrap_or_default(),
        "runStatus": status,
        "result": end.and_then(|e| e.value.clone()),
        "error": end.and_then(|e| e.error.clone()),
        "usage": usage,
        "verifier": ctx.verifier,
        "expectedOutcome": judged.outcome,
        "knownFailureModes": match Known::of(&ctx.def) {
            Known::Codes(c) => json!(c),
            Known::Text(t) => json!(t),
        },
        "snapshots": {"plan": ctx.plan, "before": ctx.before, "after": after},
        "verdict": judged.verdict,
        "checks": judged.checks,
        "judgement": judged.judgement,
        "failure": judged.failure,
        "lifecycle": lifecycle,
        "recordedAtMs": now_ms(),
    })
}

/// Ends a run whose script finished (or stopped answering): judge, record, end the action.
fn finalize(world: &mut World, bot: Entity, mut host: SkillHost, end: ScriptEnd, tick: u64) {
    host.bridge.cancel_inflight(world, bot);
    let ctx = host.ctx.clone();
    let after = capture(world, bot, &ctx.plan, tick);
    let judged = judge(end.status, end.value.as_ref(), &ctx, &after, &host.bridge.events, &host.bridge.seed_events);
    let evidence_path = world.resource::<SkillStore>().evidence_path(&ctx.run).map(|p| p.display().to_string());
    let note = RunNote {
        run: ctx.run.clone(),
        mode: ctx.mode,
        judgement: judged.judgement,
        run_status: end.status.name().into(),
        failure: judged.failure.as_ref().map(|f| f.code),
        evidence: evidence_path,
        at_ms: now_ms(),
    };
    let lifecycle = apply_judgement(world, bot, &ctx, judged.judgement, note);
    let record = evidence(&ctx, &host.bridge, tick, end.status, Some(&end), &end.usage, &after, &judged, lifecycle);
    world.resource_mut::<SkillStore>().put_evidence(&ctx.run, record);
    let (status, reason) = match (&judged.judgement, &judged.failure) {
        (Judgement::Passed, _) => (ActionStatus::Done, None),
        (_, Some(f)) => (ActionStatus::Failed, Some(format!("{}: {}", f.code.name(), f.message))),
        (_, None) => (ActionStatus::Failed, Some("failed".into())),
    };
    if let Some(mut run) = world.get_mut::<SkillRun>(bot) {
        run.ticks = tick.saturating_sub(ctx.start_tick);
        run.usage = end.usage.clone();
        run.finished = Some(Finished {
            run_status: end.status,
            verdict: judged.verdict,
            checks: judged.checks,
            result: end.value.clone(),
            error: end.error.clone(),
            failure: judged.failure,
            outcome: judged.outcome,
            lifecycle,
        });
    }
    end_action(world, bot, SLOT.name, status, reason);
}

/// Gives every run its slice of the tick (after all actions stepped and the watchdog ran).
pub fn step_runs(
    world: &mut World,
    mut event_cursor: Local<MessageCursor<AgentEvent>>,
    mut response_cursor: Local<MessageCursor<CommandResponse>>,
) {
    let tick = world.resource::<TickCount>().0;
    let events: HashMap<String, (String, Map<String, Value>)> = event_cursor
        .read(world.resource::<Messages<AgentEvent>>())
        .filter_map(|e| {
            let fields = e.fields();
            let id = fields.get("id")?.as_str()?.to_owned();
            id.starts_with("skill:").then(|| (id, (e.kind().to_owned(), fields)))
        })
        .collect();
    let responses: HashMap<String, Map<String, Value>> = response_cursor
        .read(world.resource::<Messages<CommandResponse>>())
        .filter(|r| r.origin == SKILL_ORIGIN)
        .filter_map(|r| {
            let body = r.body();
            Some((body.get("id")?.as_str()?.to_owned(), body))
        })
        .collect();
    let settings = world.get_resource::<SkillSettings>().cloned().unwrap_or_default();
    let bots: Vec<Entity> = world.query_filtered::<Entity, (With<SkillHost>, With<SkillRun>)>().iter(world).collect();
    for bot in bots {
        let Some(mut host) = world.entity_mut(bot).take::<SkillHost>() else { continue };
        host.bridge.collect(&events, &responses, tick);
        let SkillHost { script, bridge, ctx } = &mut host;
        let mut due = std::mem::take(&mut bridge.due);
        let slice =
            script.run_slice(tick, &mut due, settings.slice_deadline, &mut |call| bridge.serve(world, bot, call));
        // Results the script could not take yet (it is still running) wait for its next Resume.
        due.append(&mut bridge.due);
        bridge.due = due;
        let usage = script.usage.clone();
        if let Some(mut run) = world.get_mut::<SkillRun>(bot) {
            run.ticks = tick.saturating_sub(ctx.start_tick);
            run.usage = usage.clone();
        }
        match slice {
            SliceEnd::Finished(end) => finalize(world, bot, host, end, tick),
            SliceEnd::Overdue if host.script.overdue_ticks > settings.max_overdue_ticks => {
                tracing::error!(run = %host.ctx.run, "the skill's script thread stopped answering; ending the run");
                let end =
                    ScriptEnd { status: RunStatus::Unresponsive, value: None, error: None, usage, logs: Vec::new() };
                finalize(world, bot, host, end, tick);
            }
            SliceEnd::Overdue | SliceEnd::Idle | SliceEnd::Yielded => {
                world.entity_mut(bot).insert(host);
            }
        }
    }
}

/// Records runs that the action model ended (abort_skill, watchdog, death, disconnect, shutdown):
/// cancels their in-flight action, stops the script, judges them failed, writes the evidence.
pub fn finish_ended_runs(world: &mut World, mut cursor: Local<MessageCursor<AgentEvent>>) {
    let finished: HashMap<String, Map<String, Value>> = cursor
        .read(world.resource::<Messages<AgentEvent>>())
        .filter_map(|e| e.get::<DoneOf<SkillRun>>())
        .filter_map(|e| {
            let fields = AgentEvent::new(e.clone()).fields();
            Some((fields.get("run")?.as_str()?.to_owned(), fields))
        })
        .collect();
    let ended: Vec<Entity> =
        world.query_filtered::<Entity, (With<SkillHost>, Without<SkillRun>)>().iter(world).collect();
    let tick = world.resource::<TickCount>().0;
    for bot in ended {
        let Some(mut host) = world.entity_mut(bot).take::<SkillHost>() else { continue };
        host.bridge.cancel_inflight(world, bot);
        let ctx = host.ctx.clone();
        let status = finished
            .get(&ctx.run)
            .and_then(|f| f.get("runStatus"))
            .and_then(|s| serde_json::from_value::<RunStatus>(s.clone()).ok())
            .unwrap_or(RunStatus::Cancelled);
        let after = capture(world, bot, &ctx.plan, tick);
        let judged = judge(status, None, &ctx, &after, &host.bridge.events, &host.bridge.seed_events);
        let evidence_path = world.resource::<SkillStore>().evidence_path(&ctx.run).map(|p| p.display().to_string());
        let note = RunNote {
            run: ctx.run.clone(),
            mode: ctx.mode,
            judgement: Judgement::Failed,
            run_status: status.name().into(),
            failure: judged.failure.as_ref().map(|f| f.code),
            evidence: evidence_path,
            at_ms: now_ms(),
        };
        let lifecycle = apply_judgement(world, bot, &ctx, Judgement::Failed, note);
        let usage = host.script.usage.clone();
        let record = evidence(&ctx, &host.bridge, tick, status, None, &usage, &after, &judged, lifecycle);
        world.resource_mut::<SkillStore>().put_evidence(&ctx.run, record);
        // Dropping the host stops the script thread.
        drop(host);
    }
}

/// A deterministic seed from a run id (FNV-1a).
pub fn seed_of(run: &str) -> u64 {
    run.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3))
}

/// How long the game thread waits on a script per tick (see [`SkillSettings`]).
pub fn default_deadline() -> Duration {
    Duration::from_millis(20)
}
