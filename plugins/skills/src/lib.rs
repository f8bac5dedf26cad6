//! Agent-authored action skills.
//!
//! When no command fits, the agent authors a small behaviour — a JavaScript `run(ctx, params)`
//! with an input schema, a helper allowlist, a timeout, a verifier and its known failure
//! modes — with `skill_define`. `skill_trial` runs it in the live world: the script runs in a
//! QuickJS sandbox ([`sandbox`]) whose only reach is `ctx`, the allowlisted helpers, and every
//! helper *is* a harness command (queries synchronous, actions Promises resolved by their
//! completion events). The run is judged in Rust ([`verifier`]) from before/after snapshots and
//! the helper events, never by the script; a pass promotes the version ([`store`]); promoted
//! skills are run again with `skill_run`, and ones that keep failing become `suspect`, then
//! retired. Every run's evidence (helper calls, results, snapshots, verdict) is kept, in
//! `CLAWCRAFT_SKILLS_DIR` when set, and replays offline ([`replay`]).
//!
//! - [`definition`]: the candidate's fields and static checks; [`schema`]: the `input_schema`
//!   subset.
//! - [`run`]: runs as async actions (slot `skill`, `abort_skill`, `skill_finished`), the helper
//!   bridge, judging and recording.
//! - [`commands`]: `skill_define`, `skill_get`, `skill_list`, `skill_trial`, `skill_run`,
//!   `skill_retire`, `author_mineflayer_action`.
//! - [`seed`]: candidates in the seed's shape (`mineflayer-action-skill-helper/v1`) beside the
//!   project's dialect: its checklist, its helpers (a prelude in the sandbox built on the
//!   commands), its verifier kinds, its free-text failure modes; [`compile`]: TypeScript and
//!   JavaScript parsed by oxc, checked on the syntax tree, TypeScript stripped of its types.

pub mod commands;
pub mod compile;
pub mod definition;
pub mod fields;
pub mod replay;
pub mod run;
pub mod sandbox;
pub mod schema;
pub mod seed;
pub mod snapshot;
pub mod store;
pub mod verifier;

use std::path::PathBuf;
use std::time::Duration;

use bevy_app::{App, Plugin};
use bevy_ecs::prelude::*;
use clawcraft_core::{ActionSet, AppActionExt, AppCommandExt, AppEventExt, AppWorkExt, TickSet};
use schemars::JsonSchema;
use serde::Serialize;
use serde_json::Value;

pub use run::{SkillFinished, SkillHost, SkillRun};
pub use store::{SkillState, SkillStore};

/// Settings of the skill runtime.
#[derive(Resource, Debug, Clone, PartialEq)]
pub struct SkillSettings {
    /// Where versions, lifecycles and evidence are kept (`CLAWCRAFT_SKILLS_DIR`); `None` keeps
    /// them in memory only.
    pub dir: Option<PathBuf>,
    /// Longest the game thread waits for a script's slice per tick; a script that has not
    /// yielded by then is served again next tick (the 20 Hz loop never waits longer).
    pub slice_deadline: Duration,
    /// Consecutive overdue ticks after which a run is ended `unresponsive`.
    pub max_overdue_ticks: u32,
}

impl Default for SkillSettings {
    fn default() -> Self {
        Self { dir: None, slice_deadline: run::default_deadline(), max_overdue_ticks: 200 }
    }
}

/// `skill_trial_started`: a trial began.
#[derive(Message, Clone, Serialize, JsonSchema)]
pub struct SkillTrialStarted {
    #[serde(skip)]
    pub bot: Entity,
    /// The `skill_trial` request id (its `skill_finished` carries it too).
    pub id: Value,
    pub skill: String,
    pub version: u32,
    pub hash: String,
    pub run: String,
    pub parameters: Value,
}
clawcraft_core::event_kind!(
    SkillTrialStarted,
    "skill_trial_started",
    "A skill trial began in the live world (its skill_finished follows with the same id)"
);

/// `skill_promoted`: a passed trial promoted a version.
#[derive(Message, Clone, Serialize, JsonSchema)]
pub struct SkillPromoted {
    #[serde(skip)]
    pub bot: Entity,
    /// The request id of the trial (or run) that promoted it.
    pub id: Value,
    pub skill: String,
    pub version: u32,
    pub hash: String,
    pub run: String,
    pub evidence: Option<String>,
    /// Versions of the same skill this one replaced.
    pub superseded: Vec<u32>,
}
clawcraft_core::event_kind!(
    SkillPromoted,
    "skill_promoted",
    "A skill version passed its trial and can be run with skill_run"
);

/// `skill_retired`: a version was retired.
#[derive(Message, Clone, Serialize, JsonSchema)]
pub struct SkillRetired {
    #[serde(skip)]
    pub bot: Entity,
    /// The request that retired it (skill_retire, or the run that failed once too often).
    pub id: Value,
    pub skill: String,
    pub version: u32,
    pub reason: String,
    /// `agent` (skill_retire) or `health` (failed too often).
    pub by: String,
}
clawcraft_core::event_kind!(
    SkillRetired,
    "skill_retired",
    "A skill version was retired (by skill_retire, or after failing too many runs in a row)"
);

/// The skill runtime: commands, events, the run systems and the library.
pub struct SkillsPlugin;

impl Plugin for SkillsPlugin {
    fn build(&self, app: &mut App) {
        app.init_resource::<SkillSettings>();
        app.add_agent_command::<commands::SkillDefine>()
            .add_agent_command::<commands::AuthorMineflayerAction>()
            .add_agent_command::<commands::SkillGet>()
            .add_agent_command::<commands::SkillList>()
            .add_agent_command::<commands::SkillTrial>()
            .add_agent_command::<commands::SkillRunCmd>()
            .add_agent_command::<commands::SkillRetire>()
            .add_async_action::<SkillRun>()
            .add_agent_event::<SkillTrialStarted>()
            .add_agent_event::<SkillPromoted>()
            .add_agent_event::<SkillRetired>()
            .add_systems(
                clawcraft_core::TickWork,
                (run::finish_ended_runs, run::step_runs)
                    .chain()
                    .in_set(TickSet::Actions)
                    .after(ActionSet::Watchdog)
                    .run_if(any_with_component::<run::SkillHost>),
            )
            .add_pending_work("skill running", clawcraft_core::gate::any_with::<run::SkillHost>());
    }

    /// Opens the library once every setting is in (the CLI inserts [`SkillSettings`] after the
    /// plugins are added).
    fn finish(&self, app: &mut App) {
        if app.world().contains_resource::<SkillStore>() {
            return;
        }
        let dir = app.world().resource::<SkillSettings>().dir.clone();
        let store = match dir {
            Some(dir) => {
                let (store, problems) = SkillStore::open(dir);
                for p in problems {
                    tracing::warn!(problem = %p, "skills directory");
                }
                store
            }
            None => SkillStore::in_memory(),
        };
        app.insert_resource(store);
    }
}
