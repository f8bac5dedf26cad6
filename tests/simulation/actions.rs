//! The action model in simulation: an async action is a component while it runs, claims a slot
//! (`BUSY` names the abort), and ends in exactly one completion event with the request id, a
//! status and a reason — whether it finishes, is aborted, times out, or is interrupted by death,
//! a teleport, a disconnect or a shutdown.

use bevy_ecs::prelude::*;
use bevy_ecs::world::EntityRef;
use clawcraft::core::{
    ActionSet, ActionStatus, ActiveActions, AgentCommand, AppActionExt, AppCommandExt, AsyncAction, AsyncInfo,
    CommandCtx, CommandError, EndActionExt, Evidence, Interruption, Outcome, Position, default_interruption,
};
use clawcraft::protocol::packets::{MovePlayer, Vec3};
use clawcraft::sim::{SIM_RUNTIME_ID, Simulation, start_game};
use clawcraft_vitals::packets::{DeathInfo, SetHealth};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

/// A test action: waits `ticks` ticks, then is done. `fragile` actions end on a teleport.
#[derive(Component)]
struct Waiting {
    left: u32,
    waited: u32,
    fragile: bool,
}

/// `wait_done`: the test action's completion event; `waited` and `pos` are its evidence.
#[derive(Clone, Serialize, JsonSchema)]
struct WaitDone {
    waited: u32,
    pos: Option<clawcraft::core::Vec3>,
}

impl Evidence for WaitDone {
    const EVENT: &'static str = "wait_done";
    const DESCRIPTION: &'static str = "test";
}

impl AsyncAction for Waiting {
    const SLOT: clawcraft::core::ActionSlot = clawcraft::core::ActionSlot::new("wait", "abort_wait", "Not waiting");
    type Evidence = WaitDone;

    fn evidence(&self, _outcome: &Outcome, bot: EntityRef<'_>) -> WaitDone {
        WaitDone { waited: self.waited, pos: bot.get::<Position>().map(|p| p.0.rounded()) }
    }

    fn interrupted(&self, cause: Interruption) -> Option<(ActionStatus, String)> {
        match cause {
            Interruption::Teleport if self.fragile => Some((ActionStatus::Failed, "teleported".into())),
            other => default_interruption(other),
        }
    }
}

#[derive(Deserialize, JsonSchema)]
struct Wait {
    ticks: u32,
    timeout: Option<u32>,
    #[serde(default)]
    fragile: bool,
}

#[derive(Serialize, JsonSchema)]
struct WaitStarted {
    waiting: bool,
}

impl AgentCommand for Wait {
    const NAME: &'static str = "wait";
    const SUMMARY: &'static str = "test";
    const EXAMPLE: &'static str = r#"{"action":"wait","ticks":3}"#;
    const ASYNC: Option<AsyncInfo> = Some(AsyncInfo::of::<Waiting>());
    type Response = WaitStarted;

    fn run(self, ctx: &mut CommandCtx<'_>) -> Result<WaitStarted, CommandError> {
        let waiting = Waiting { left: self.ticks, waited: 0, fragile: self.fragile };
        ctx.start(Self::NAME, waiting, u64::from(self.timeout.unwrap_or(100)))?;
        Ok(WaitStarted { waiting: true })
    }
}

fn step_waits(mut commands: Commands, mut bots: Query<(Entity, &mut Waiting)>) {
    for (bot, mut w) in &mut bots {
        if w.left == 0 {
            commands.end_action(bot, Waiting::SLOT.name, ActionStatus::Done, None);
        } else {
            w.left -= 1;
            w.waited += 1;
        }
    }
}

fn sim() -> Simulation {
    let mut sim = Simulation::spawned_with(&start_game());
    sim.app
        .add_agent_command::<Wait>()
        .add_async_action::<Waiting>()
        .add_systems(bevy_app::Update, step_waits.in_set(ActionSet::Step));
    sim
}

fn done_events(sim: &Simulation) -> Vec<Map<String, Value>> {
    sim.events().into_iter().filter(|e| e["type"] == "wait_done").collect()
}

fn is_running(sim: &Simulation) -> bool {
    sim.app.world().get::<Waiting>(sim.bot).is_some()
        || sim.component::<ActiveActions>().is_some_and(|a| a.is_busy("wait"))
}

#[test]
fn an_action_is_a_component_while_it_runs_and_ends_once_with_its_id() {
    let mut sim = sim();
    let r = sim.command(r#"{"action":"wait","ticks":3,"id":"w1"}"#);
    assert_eq!(r["waiting"], true);
    assert!(is_running(&sim));
    let busy = sim.command(r#"{"action":"wait","ticks":1,"id":"w2"}"#);
    assert_eq!(busy["code"], "BUSY");
    assert!(busy["error"].as_str().is_some_and(|e| e.contains("abort_wait") && e.contains("w1")), "{busy:?}");
    sim.ticks(6);
    let done = done_events(&sim);
    assert_eq!(done.len(), 1, "exactly one completion event: {done:?}");
    assert_eq!(done[0]["id"], "w1");
    assert_eq!(done[0]["status"], "done");
    assert!(done[0].get("reason").is_none(), "no reason when done");
    assert_eq!(done[0]["waited"], 3);
    assert_eq!(done[0]["pos"], json!({"x": 0.5, "y": -60.0, "z": 0.5}));
    assert!(!is_running(&sim), "component removed and slot freed");
    assert_eq!(sim.command(r#"{"action":"wait","ticks":1,"id":"w3"}"#)["waiting"], true);
}

#[test]
fn abort_ends_the_action_with_its_evidence_and_an_idle_abort_is_an_error() {
    let mut sim = sim();
    sim.command(r#"{"action":"wait","ticks":50,"id":"w1"}"#);
    sim.ticks(4);
    let r = sim.command(r#"{"action":"abort_wait","id":"a1"}"#);
    assert_eq!(r["aborted"], true, "{r:?}");
    assert_eq!(r["id"], "a1");
    assert_eq!(r["action"], "wait");
    assert_eq!(r["actionId"], "w1");
    assert!(r["waited"].as_u64().is_some_and(|w| w >= 3), "evidence in the response: {r:?}");
    assert!(!is_running(&sim));
    sim.ticks(3);
    let done = done_events(&sim);
    assert_eq!(done.len(), 1);
    assert_eq!((done[0]["id"].clone(), done[0]["status"].clone()), (json!("w1"), json!("aborted")));
    assert!(done[0]["reason"].as_str().is_some());
    let idle = sim.command(r#"{"action":"abort_wait","id":"a2"}"#);
    assert_eq!(idle["code"], "NOT_ACTIVE");
    assert_eq!(idle["error"], "Not waiting");
}

#[test]
fn the_watchdog_times_out_with_command_timeout_then_the_completion_event() {
    let mut sim = sim();
    sim.command(r#"{"action":"wait","ticks":500,"timeout":5,"id":7}"#);
    sim.ticks(4);
    assert!(done_events(&sim).is_empty(), "not before the deadline");
    sim.ticks(2);
    let types: Vec<String> =
        sim.event_types().into_iter().filter(|t| t == "command_timeout" || t == "wait_done").collect();
    assert_eq!(types, vec!["command_timeout", "wait_done"]);
    let done = done_events(&sim);
    assert_eq!((done[0]["id"].clone(), done[0]["status"].clone()), (json!(7), json!("timeout")));
    assert!(done[0]["reason"].as_str().is_some_and(|r| r.contains("no completion")));
    assert!(!is_running(&sim));
}

#[test]
fn death_ends_actions_as_failed() {
    let mut sim = sim();
    sim.command(r#"{"action":"wait","ticks":500,"id":"d"}"#);
    sim.receive(&SetHealth { health: 0 });
    sim.receive(&DeathInfo { cause: "death.attack.mob".into(), messages: vec![] });
    sim.ticks(3);
    let done = done_events(&sim);
    assert_eq!(done.len(), 1, "{:?}", sim.event_types());
    assert_eq!((done[0]["status"].clone(), done[0]["reason"].clone()), (json!("failed"), json!("died")));
    assert!(!is_running(&sim));
}

#[test]
fn a_teleport_ends_only_the_actions_it_invalidates() {
    let mut sim = sim();
    let teleport = MovePlayer {
        runtime_id: SIM_RUNTIME_ID as _,
        position: Vec3 { x: 10.5, y: -58.38, z: 3.5 },
        mode: "teleport".into(),
        ..MovePlayer::default()
    };
    sim.command(r#"{"action":"wait","ticks":500,"id":"sturdy"}"#);
    sim.receive(&teleport);
    sim.ticks(2);
    assert!(done_events(&sim).is_empty(), "a sturdy action survives a teleport");
    sim.command(r#"{"action":"abort_wait"}"#);
    sim.command(r#"{"action":"wait","ticks":500,"fragile":true,"id":"fragile"}"#);
    sim.receive(&teleport);
    sim.ticks(2);
    let done = done_events(&sim);
    let last = done.last().expect("ended");
    assert_eq!((last["id"].clone(), last["status"].clone()), (json!("fragile"), json!("failed")));
    assert_eq!(last["reason"], "teleported");
    assert_eq!(last["pos"], json!({"x": 10.5, "y": -60.0, "z": 3.5}), "evidence read when it ended");
}

#[test]
fn a_disconnect_ends_running_actions_in_the_same_tick() {
    let mut sim = sim();
    sim.allow_warnings = true;
    sim.command(r#"{"action":"wait","ticks":500,"id":"x"}"#);
    sim.handle.drop_connection("gone");
    sim.tick();
    let done = done_events(&sim);
    assert_eq!(done.len(), 1);
    assert_eq!((done[0]["status"].clone(), done[0]["reason"].clone()), (json!("failed"), json!("disconnected")));
    let order: Vec<String> =
        sim.event_types().into_iter().filter(|t| t == "disconnected" || t == "wait_done").collect();
    assert_eq!(order, vec!["disconnected", "wait_done"]);
}

#[test]
fn a_shutdown_aborts_running_actions_before_leaving() {
    let mut sim = sim();
    sim.command(r#"{"action":"wait","ticks":500,"id":"s"}"#);
    sim.app.world_mut().write_message(clawcraft::network::ShutdownRequest);
    sim.tick();
    let done = done_events(&sim);
    assert_eq!((done[0]["status"].clone(), done[0]["reason"].clone()), (json!("aborted"), json!("shutdown")));
    let order: Vec<String> = sim.event_types().into_iter().filter(|t| t == "shutdown" || t == "wait_done").collect();
    assert_eq!(order, vec!["wait_done", "shutdown"], "the completion event comes before shutdown");
}

#[test]
fn schema_and_help_say_which_commands_are_async_and_what_ends_them() {
    let mut sim = sim();
    let schema = sim.command(r#"{"action":"schema"}"#);
    let commands = schema["commands"].as_array().expect("commands");
    let wait = commands.iter().find(|c| c["name"] == "wait").expect("wait");
    assert_eq!(wait["async"], json!({"slot": "wait", "completionEvent": "wait_done", "abort": "abort_wait"}));
    let abort = commands.iter().find(|c| c["name"] == "abort_wait").expect("abort_wait registered");
    assert_eq!(abort["aborts"], "wait");
    assert_eq!(abort["example"], r#"{"action":"abort_wait"}"#);
    let events = schema["events"].as_array().expect("events");
    let done = events.iter().find(|e| e["name"] == "wait_done").expect("completion event documented");
    let props = &done["fields"]["properties"];
    assert!(props["id"].is_object() && props["status"].is_object() && props["waited"].is_object(), "{done:?}");
    let help = sim.command(r#"{"action":"help","topic":"wait"}"#);
    assert!(help["text"].as_str().is_some_and(|t| t.contains("wait_done") && t.contains("abort_wait")), "{help:?}");
}
