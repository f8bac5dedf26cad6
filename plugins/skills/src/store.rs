//! The skill library: immutable versions, their lifecycle, and run evidence — in memory, and in
//! `CLAWCRAFT_SKILLS_DIR` when set, so it survives restarts.
//!
//! Layout: `library/<skill>/v<N>.json` (the definition, written once), `library/<skill>/v<N>.life.json`
//! (its lifecycle, rewritten after each run), `evidence/<run>.json` (one per run). Every write goes
//! to a temporary file first and is renamed into place.

use std::collections::{BTreeMap, VecDeque};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use bevy_ecs::prelude::*;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use crate::definition::{Definition, FailureMode, PromotionPolicy};

/// Where a version is in its life.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum SkillState {
    /// Defined, not yet proven: `skill_trial` it.
    #[default]
    Candidate,
    /// A trial passed: `skill_run` runs it.
    Promoted,
    /// Promoted, but its recent runs failed; one more pass makes it promoted again.
    Suspect,
    /// Its trials failed (the policy's `reject_after_failures`).
    Rejected,
    /// Retired by `skill_retire`, or after failing too often.
    Retired,
    /// Another version of the same skill was promoted.
    Superseded,
}

impl SkillState {
    /// Whether `skill_run` may run it.
    pub fn runnable(self) -> bool {
        matches!(self, Self::Promoted | Self::Suspect)
    }
    /// Whether `skill_trial` may trial it.
    pub fn trialable(self) -> bool {
        matches!(self, Self::Candidate | Self::Promoted | Self::Suspect)
    }
}

/// Trial or run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Mode {
    Trial,
    Run,
}

/// How a run was judged.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Judgement {
    /// Returned, the verifier passed and the expected outcome was observed.
    Passed,
    /// Anything else that decided something.
    Failed,
    /// Returned, but the verifier could not decide (missing data): counts for nothing.
    Inconclusive,
}

/// A short record of one run, kept with its version.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct RunNote {
    pub run: String,
    pub mode: Mode,
    pub judgement: Judgement,
    pub run_status: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failure: Option<FailureMode>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub evidence: Option<String>,
    pub at_ms: u64,
}

/// The mutable side of a version.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Life {
    pub state: SkillState,
    pub trials_passed: u32,
    pub trials_failed: u32,
    pub trials_inconclusive: u32,
    pub runs_passed: u32,
    pub runs_failed: u32,
    pub runs_inconclusive: u32,
    /// Failed trials or runs in a row since the last pass (while promoted or suspect).
    pub consecutive_failures: u32,
    /// Runs started so far (names the next run id).
    pub started: u32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retired_reason: Option<String>,
    /// The last few runs, newest last.
    #[serde(default)]
    pub recent: Vec<RunNote>,
}

/// Runs kept in [`Life::recent`].
const RECENT_RUNS: usize = 20;

impl Life {
    /// The lifecycle after a judged run (pure: the same inputs give the same state, so a
    /// completion event can announce it before the store applies it).
    pub fn judged(&self, policy: &PromotionPolicy, mode: Mode, judgement: Judgement) -> Life {
        let mut next = self.clone();
        let counters = match (mode, judgement) {
            (Mode::Trial, Judgement::Passed) => &mut next.trials_passed,
            (Mode::Trial, Judgement::Failed) => &mut next.trials_failed,
            (Mode::Trial, Judgement::Inconclusive) => &mut next.trials_inconclusive,
            (Mode::Run, Judgement::Passed) => &mut next.runs_passed,
            (Mode::Run, Judgement::Failed) => &mut next.runs_failed,
            (Mode::Run, Judgement::Inconclusive) => &mut next.runs_inconclusive,
        };
        *counters += 1;
        match (self.state, judgement) {
            (SkillState::Candidate, Judgement::Passed) if next.trials_passed >= policy.passes_required => {
                next.state = SkillState::Promoted;
                next.consecutive_failures = 0;
            }
            (SkillState::Candidate, Judgement::Failed) if next.trials_failed >= policy.reject_after_failures => {
                next.state = SkillState::Rejected;
            }
            (SkillState::Promoted | SkillState::Suspect, Judgement::Passed) => {
                next.state = SkillState::Promoted;
                next.consecutive_failures = 0;
            }
            (SkillState::Promoted | SkillState::Suspect, Judgement::Failed) => {
                next.consecutive_failures += 1;
                if next.consecutive_failures >= policy.retire_after_failures {
                    next.state = SkillState::Retired;
                    next.retired_reason = Some(format!("failed {} times in a row", next.consecutive_failures));
                } else if next.consecutive_failures >= policy.suspect_after_failures {
                    next.state = SkillState::Suspect;
                }
            }
            _ => {}
        }
        next
    }

    pub fn note(&mut self, note: RunNote) {
        self.recent.push(note);
        let excess = self.recent.len().saturating_sub(RECENT_RUNS);
        self.recent.drain(..excess);
    }
}

/// One immutable version and its lifecycle.
#[derive(Debug, Clone)]
pub struct Version {
    pub version: u32,
    pub hash: String,
    pub created_ms: u64,
    pub def: Arc<Definition>,
    pub life: Life,
}

/// The file a version's definition is stored in.
#[derive(Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct VersionFile {
    version: u32,
    hash: String,
    created_ms: u64,
    definition: Definition,
}

/// Evidence of runs kept in memory (the latest; all of them on disk when a directory is set).
const EVIDENCE_IN_MEMORY: usize = 8;

/// Every skill version, by skill id.
#[derive(Resource, Default)]
pub struct SkillStore {
    dir: Option<PathBuf>,
    skills: BTreeMap<String, Vec<Version>>,
    evidence: VecDeque<(String, Value)>,
}

impl SkillStore {
    /// A store kept in memory only.
    pub fn in_memory() -> Self {
        Self::default()
    }

    /// Loads every version under `dir` (created on first write). Unreadable files are skipped
    /// and reported.
    pub fn open(dir: PathBuf) -> (Self, Vec<String>) {
        let mut store = Self { dir: Some(dir.clone()), ..Self::default() };
        let mut problems = Vec::new();
        let library = dir.join("library");
        let Ok(entries) = std::fs::read_dir(&library) else { return (store, problems) };
        let mut skill_dirs: Vec<PathBuf> =
            entries.filter_map(|e| e.ok().map(|e| e.path())).filter(|p| p.is_dir()).collect();
        skill_dirs.sort();
        for skill_dir in skill_dirs {
            let Ok(files) = std::fs::read_dir(&skill_dir) else { continue };
            let mut versions: Vec<Version> = Vec::new();
            for f in files.filter_map(|e| e.ok().map(|e| e.path())) {
                let name = f.file_name().and_then(|n| n.to_str()).unwrap_or_default().to_owned();
                if !(name.starts_with('v') && name.ends_with(".json") && !name.ends_with(".life.json")) {
                    continue;
                }
                match read_json::<VersionFile>(&f) {
                    Ok(vf) => {
                        let life_path = f.with_file_name(format!("v{}.life.json", vf.version));
                        let life = read_json::<Life>(&life_path).unwrap_or_default();
                        let hash = vf.definition.hash();
                        if hash != vf.hash {
                            problems.push(format!("{}: its hash does not match its definition; skipped", f.display()));
                            continue;
                        }
                        versions.push(Version {
                            version: vf.version,
                            hash,
                            created_ms: vf.created_ms,
                            def: Arc::new(vf.definition),
                            life,
                        });
                    }
                    Err(e) => problems.push(format!("{}: {e}; skipped", f.display())),
                }
            }
            versions.sort_by_key(|v| v.version);
            if let Some(first) = versions.first() {
                store.skills.insert(first.def.skill.clone(), versions);
            }
        }
        (store, problems)
    }

    pub fn dir(&self) -> Option<&Path> {
        self.dir.as_deref()
    }

    /// Adds a version, or returns the existing one with the same content. `(version, created)`.
    pub fn define(&mut self, def: Definition, now_ms: u64) -> Result<(u32, bool), String> {
        let hash = def.hash();
        let versions = self.skills.entry(def.skill.clone()).or_default();
        if let Some(v) = versions.iter().find(|v| v.hash == hash) {
            return Ok((v.version, false));
        }
        let version = versions.last().map_or(1, |v| v.version + 1);
        let record = Version { version, hash, created_ms: now_ms, def: Arc::new(def), life: Life::default() };
        let skill = record.def.skill.clone();
        let write = self.dir.as_ref().map(|dir| {
            let file = VersionFile {
                version,
                hash: record.hash.clone(),
                created_ms: now_ms,
                definition: (*record.def).clone(),
            };
            let base = dir.join("library").join(&skill);
            write_json(&base.join(format!("v{version}.json")), &file)
                .and_then(|()| write_json(&base.join(format!("v{version}.life.json")), &record.life))
        });
        if let Some(Err(e)) = write {
            if versions.is_empty() {
                self.skills.remove(&skill);
            }
            return Err(format!("cannot store the skill: {e}"));
        }
        versions.push(record);
        Ok((version, true))
    }

    /// Every skill id.
    pub fn skills(&self) -> impl Iterator<Item = (&String, &Vec<Version>)> {
        self.skills.iter()
    }

    pub fn versions(&self, skill: &str) -> Option<&Vec<Version>> {
        self.skills.get(skill)
    }

    /// A version; without a number, the promoted (or suspect) one, else the newest.
    pub fn get(&self, skill: &str, version: Option<u32>) -> Option<&Version> {
        let versions = self.skills.get(skill)?;
        match version {
            Some(n) => versions.iter().find(|v| v.version == n),
            None => versions.iter().rev().find(|v| v.life.state.runnable()).or_else(|| versions.last()),
        }
    }

    pub fn get_mut(&mut self, skill: &str, version: u32) -> Option<&mut Version> {
        self.skills.get_mut(skill)?.iter_mut().find(|v| v.version == version)
    }

    /// Writes a version's lifecycle.
    pub fn save_life(&self, skill: &str, version: u32) {
        let (Some(dir), Some(v)) =
            (&self.dir, self.skills.get(skill).and_then(|vs| vs.iter().find(|v| v.version == version)))
        else {
            return;
        };
        let path = dir.join("library").join(skill).join(format!("v{version}.life.json"));
        if let Err(e) = write_json(&path, &v.life) {
            tracing::error!(skill, version, error = %e, "cannot write the skill's lifecycle");
        }
    }

    /// Marks every other promoted or suspect version of `skill` superseded; returns them.
    pub fn supersede_others(&mut self, skill: &str, version: u32) -> Vec<u32> {
        let mut changed = Vec::new();
        if let Some(versions) = self.skills.get_mut(skill) {
            for v in versions.iter_mut().filter(|v| v.version != version && v.life.state.runnable()) {
                v.life.state = SkillState::Superseded;
                changed.push(v.version);
            }
        }
        for n in &changed {
            self.save_life(skill, *n);
        }
        changed
    }

    /// The path a run's evidence is written to, when there is a directory.
    pub fn evidence_path(&self, run: &str) -> Option<PathBuf> {
        self.dir.as_ref().map(|d| d.join("evidence").join(format!("{run}.json")))
    }

    /// Keeps a run's evidence (and writes it when there is a directory).
    pub fn put_evidence(&mut self, run: &str, evidence: Value) {
        if let Some(path) = self.evidence_path(run)
            && let Err(e) = write_json(&path, &evidence)
        {
            tracing::error!(run, error = %e, "cannot write the run's evidence");
        }
        self.evidence.push_back((run.to_owned(), evidence));
        while self.evidence.len() > EVIDENCE_IN_MEMORY {
            self.evidence.pop_front();
        }
    }

    /// A run's evidence, from memory or disk.
    pub fn evidence(&self, run: &str) -> Option<Value> {
        if let Some((_, e)) = self.evidence.iter().rev().find(|(r, _)| r == run) {
            return Some(e.clone());
        }
        let path = self.evidence_path(run)?;
        read_json(&path).ok()
    }
}

fn read_json<T: for<'de> Deserialize<'de>>(path: &Path) -> Result<T, String> {
    let text = std::fs::read_to_string(path).map_err(|e| e.to_string())?;
    serde_json::from_str(&text).map_err(|e| e.to_string())
}

fn write_json<T: Serialize>(path: &Path, value: &T) -> std::io::Result<()> {
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent)?;
    }
    let text = serde_json::to_string_pretty(value).map_err(std::io::Error::other)?;
    let tmp = path.with_extension("json.tmp");
    std::fs::write(&tmp, text)?;
    std::fs::rename(&tmp, path)
}

/// A summary line of a version for `skill_list`.
pub fn summary(v: &Version) -> Value {
    json!({
        "skill": v.def.skill,
        "version": v.version,
        "hash": v.hash,
        "state": v.life.state,
        "purpose": v.def.purpose,
        "inputSchema": v.def.input_schema,
        "helperAllowlist": v.def.helper_allowlist,
        "expectedOutcome": v.def.expected_outcome,
        "stats": {
            "trials": {"passed": v.life.trials_passed, "failed": v.life.trials_failed, "inconclusive": v.life.trials_inconclusive},
            "runs": {"passed": v.life.runs_passed, "failed": v.life.runs_failed, "inconclusive": v.life.runs_inconclusive},
            "consecutiveFailures": v.life.consecutive_failures,
            "lastFailure": v.life.recent.iter().rev().find(|n| n.failure.is_some()),
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn policy() -> PromotionPolicy {
        PromotionPolicy::default()
    }

    #[test]
    fn a_passed_trial_promotes_a_failed_one_rejects() {
        let c = Life::default();
        assert_eq!(c.judged(&policy(), Mode::Trial, Judgement::Passed).state, SkillState::Promoted);
        assert_eq!(c.judged(&policy(), Mode::Trial, Judgement::Failed).state, SkillState::Rejected);
        let i = c.judged(&policy(), Mode::Trial, Judgement::Inconclusive);
        assert_eq!((i.state, i.trials_inconclusive), (SkillState::Candidate, 1), "inconclusive is never a pass");
        let lenient = PromotionPolicy { reject_after_failures: 2, passes_required: 2, ..policy() };
        let once = c.judged(&lenient, Mode::Trial, Judgement::Failed);
        assert_eq!(once.state, SkillState::Candidate);
        assert_eq!(once.judged(&lenient, Mode::Trial, Judgement::Failed).state, SkillState::Rejected);
        let p1 = c.judged(&lenient, Mode::Trial, Judgement::Passed);
        assert_eq!(p1.state, SkillState::Candidate);
        assert_eq!(p1.judged(&lenient, Mode::Trial, Judgement::Passed).state, SkillState::Promoted);
    }

    #[test]
    fn repeated_run_failures_make_it_suspect_then_retired_and_a_pass_heals() {
        let mut l = Life { state: SkillState::Promoted, ..Life::default() };
        let p = policy();
        l = l.judged(&p, Mode::Run, Judgement::Failed);
        assert_eq!(l.state, SkillState::Promoted);
        l = l.judged(&p, Mode::Run, Judgement::Failed);
        assert_eq!(l.state, SkillState::Suspect);
        let healed = l.judged(&p, Mode::Run, Judgement::Passed);
        assert_eq!((healed.state, healed.consecutive_failures), (SkillState::Promoted, 0));
        l = l.judged(&p, Mode::Run, Judgement::Failed).judged(&p, Mode::Run, Judgement::Failed);
        assert_eq!(l.state, SkillState::Retired);
        assert_eq!(l.retired_reason.as_deref(), Some("failed 4 times in a row"));
        assert_eq!(l.runs_failed, 4);
    }
}
