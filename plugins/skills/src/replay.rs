//! Replaying a recorded run offline: the same source, parameters and seed in a fresh sandbox,
//! every helper call answered from the evidence at the tick it was answered then. The script
//! must make the same calls (helper, parameters, tick) and end the same way, and the verifier —
//! evaluated again over the recorded snapshots — must reach the same verdict. So a skill's
//! behaviour is testable in CI without a server, and engine upgrades that change it show up.

use std::collections::BTreeMap;
use std::time::Duration;

use serde::Deserialize;
use serde_json::{Value, json};

use crate::run::note_event;
use crate::sandbox::{Call, HelperKind, Limits, Reply, RunStatus, ScriptHandle, ScriptSpec, SliceEnd};
use crate::sandbox::{NOTE_HELPER, Prelude};
use crate::verifier::{self, HelperEvent, SeedEvent, Snapshot, Verdict};

/// What a replay found.
#[derive(Debug, Clone, PartialEq)]
pub struct ReplayReport {
    /// Helper calls the replay made.
    pub calls: usize,
    /// The first difference from the recording, if any.
    pub divergence: Option<String>,
    pub run_status: RunStatus,
    pub recorded_run_status: RunStatus,
    pub verdict: Verdict,
    pub recorded_verdict: Verdict,
    /// What `run` returned in the replay.
    pub result: Option<Value>,
}

impl ReplayReport {
    /// Same calls, same ending, same verdict.
    pub fn matches(&self) -> bool {
        self.divergence.is_none()
            && self.run_status == self.recorded_run_status
            && self.verdict == self.recorded_verdict
    }
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Recorded {
    source: String,
    params: Value,
    helpers: Vec<(String, HelperKind)>,
    /// `seed` for a candidate in the seed's shape (its helpers built by the prelude).
    #[serde(default)]
    dialect: Option<String>,
    /// The seed helpers' events of the run.
    #[serde(default)]
    helper_events: Vec<SeedEvent>,
    limits: Limits,
    seed: u64,
    start_tick: u64,
    end_tick: u64,
    helper_calls: Vec<HelperEvent>,
    run_status: RunStatus,
    result: Option<Value>,
    verifier: Value,
    verdict: Verdict,
    snapshots: Snapshots,
}

#[derive(Deserialize)]
struct Snapshots {
    before: Snapshot,
    after: Snapshot,
}

/// Replays a run from its evidence (the JSON `skill_get` with `run` returns, or the evidence file).
pub fn replay(evidence: &Value) -> Result<ReplayReport, String> {
    let rec: Recorded = serde_json::from_value(evidence.clone()).map_err(|e| format!("not skill evidence: {e}"))?;
    let spec = ScriptSpec {
        source: rec.source.clone(),
        params: rec.params.clone(),
        helpers: rec.helpers.clone(),
        limits: rec.limits,
        seed: rec.seed,
        prelude: (rec.dialect.as_deref() == Some("seed")).then(|| Prelude {
            code: crate::seed::PRELUDE,
            allow: evidence["allowlist"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|v| v.as_str().map(String::from))
                .collect(),
        }),
    };
    let mut notes: Vec<SeedEvent> = Vec::new();
    let mut script = ScriptHandle::spawn(spec, "replay").map_err(|e| e.to_string())?;
    let mut divergence: Option<String> = None;
    let mut due: BTreeMap<u64, Vec<(u32, Value)>> = BTreeMap::new();
    let mut replayed: Vec<HelperEvent> = Vec::new();
    let mut ended = None;
    // A run ended from outside stopped at its end tick; one that finished by itself gets a little slack.
    let last = rec.end_tick + 2;
    for tick in rec.start_tick..=last {
        let mut deliveries = due.remove(&tick).unwrap_or_default();
        let mut serve = |call: Call| -> Reply {
            let rel = call.tick.saturating_sub(rec.start_tick);
            if call.helper == NOTE_HELPER {
                return Reply::Value(note_event(&mut notes, &call.params, rel));
            }
            let Some(r) = rec.helper_calls.get(call.seq as usize - 1) else {
                divergence.get_or_insert_with(|| {
                    format!("call {} ({}) was never made in the recording", call.seq, call.helper)
                });
                return Reply::Error { code: "replay".into(), message: "not in the recording".into() };
            };
            if r.helper != call.helper || r.params != call.params || r.tick != rel {
                divergence.get_or_insert_with(|| {
                    format!(
                        "call {}: recorded {}({}) at tick {}, replayed {}({}) at tick {rel}",
                        call.seq, r.helper, r.params, r.tick, call.helper, call.params
                    )
                });
            }
            replayed.push(r.clone());
            if let Some(e) = &r.error {
                let field = |k: &str| e.get(k).and_then(Value::as_str).unwrap_or_default().to_owned();
                return Reply::Error { code: field("code"), message: field("message") };
            }
            match (r.kind, &r.result, r.resolved_tick) {
                (HelperKind::Query, Some(v), _) => Reply::Value(v.clone()),
                (_, Some(v), Some(t)) if t == rel => Reply::Resolved(v.clone()),
                (_, Some(v), Some(t)) => {
                    due.entry(rec.start_tick + t).or_default().push((call.seq, v.clone()));
                    Reply::Pending
                }
                _ => Reply::Pending,
            }
        };
        match script.run_slice(tick, &mut deliveries, Duration::from_secs(30), &mut serve) {
            SliceEnd::Finished(end) => {
                ended = Some(end);
                break;
            }
            SliceEnd::Idle | SliceEnd::Yielded | SliceEnd::Overdue => {}
        }
    }
    let (run_status, result) = match &ended {
        Some(end) => (end.status, end.value.clone()),
        None => (rec.run_status, None),
    };
    if divergence.is_none() && replayed.len() != rec.helper_calls.len() {
        divergence =
            Some(format!("the recording has {} calls, the replay made {}", rec.helper_calls.len(), replayed.len()));
    }
    if divergence.is_none() && notes != rec.helper_events {
        divergence = Some(format!(
            "the recording has {} helper events, the replay {} (or they differ)",
            rec.helper_events.len(),
            notes.len()
        ));
    }
    if divergence.is_none() && ended.is_some() && result != rec.result {
        divergence =
            Some(format!("run returned {} in the recording, {} in the replay", json!(rec.result), json!(result)));
    }
    let verdict = if run_status == RunStatus::Returned {
        let mut problems = Vec::new();
        let check = if rec.dialect.as_deref() == Some("seed") {
            crate::seed::parse_verifier(&rec.verifier, "verifier", &mut problems)
        } else {
            verifier::parse(&rec.verifier, "verifier", &|_| true, &mut problems)
        };
        match check {
            Some(check) => {
                verifier::evaluate_with(&check, &rec.snapshots.before, &rec.snapshots.after, &replayed, &notes).status
            }
            None => return Err(format!("the recorded verifier does not parse: {problems:?}")),
        }
    } else {
        Verdict::Failed
    };
    Ok(ReplayReport {
        calls: replayed.len(),
        divergence,
        run_status,
        recorded_run_status: rec.run_status,
        verdict,
        recorded_verdict: rec.verdict,
        result,
    })
}
