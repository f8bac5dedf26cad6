//! The command path in simulation: ids, errors, coercion, query latency, busy rules, watchdog,
//! subscriptions, schema — through the same queue every channel uses.

use bevy_ecs::prelude::*;
use bevy_ecs::world::EntityRef;
use clawcraft::core::{
    ActionSet, ActionStatus, ActiveActions, AgentCommand, AppActionExt, AppCommandExt, AsyncAction, CommandCtx,
    CommandError, EndActionExt, Evidence, OptIn, Outcome, Subscriptions,
    event::{AppEventExt, EventKind},
};
use clawcraft::protocol::packets::{
    ChunkRadiusUpdate, PlayStatus, ResourcePackStack, ResourcePacksInfo, StartGame, Vec3,
};
use clawcraft::sim::Simulation;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::json;

/// A test-only async action: answers at once, finishes after `ticks` with `wait_done`.
#[derive(Deserialize, JsonSchema)]
struct Wait {
    ticks: u32,
    timeout: Option<u32>,
    /// Only here to test numeric coercion of optional integers.
    x: Option<f64>,
}

#[derive(Serialize, JsonSchema)]
struct Waiting {
    waiting: bool,
    x: Option<f64>,
}

#[derive(Component)]
struct WaitLeft(u32);

#[derive(Clone, Serialize, JsonSchema)]
struct WaitDone {}

impl AsyncAction for WaitLeft {
    const SLOT: clawcraft::core::ActionSlot = clawcraft::core::ActionSlot::new("wait", "abort_wait", "Not waiting");
    type Evidence = WaitDone;
    fn evidence(&self, _outcome: &Outcome, _bot: EntityRef<'_>) -> WaitDone {
        WaitDone {}
    }
}
impl Evidence for WaitDone {
    const EVENT: &'static str = "wait_done";
    const DESCRIPTION: &'static str = "test";
}

#[derive(Message, Clone, Serialize, JsonSchema)]
struct Ping {
    #[serde(skip)]
    pub bot: Entity,
    n: u32,
}
impl EventKind for Ping {
    const NAME: &'static str = "ping_test";
    const DESCRIPTION: &'static str = "test opt-in event";
    fn bot(&self) -> Option<Entity> {
        Some(self.bot)
    }
}

impl AgentCommand for Wait {
    const NAME: &'static str = "wait";
    const SUMMARY: &'static str = "test";
    const EXAMPLE: &'static str = r#"{"action":"wait","ticks":3}"#;
    type Response = Waiting;

    fn run(self, ctx: &mut CommandCtx<'_>) -> Result<Waiting, CommandError> {
        if self.ticks > 1000 {
            return Err(CommandError::out_of_range("ticks must be ≤ 1000"));
        }
        ctx.start(Self::NAME, WaitLeft(self.ticks), u64::from(self.timeout.unwrap_or(100)))?;
        Ok(Waiting { waiting: true, x: self.x })
    }
}

fn advance_waits(mut commands: Commands, mut bots: Query<(Entity, &mut WaitLeft)>) {
    for (bot, mut left) in &mut bots {
        if left.0 == 0 {
            commands.end_action(bot, WaitLeft::SLOT.name, ActionStatus::Done, None);
        } else {
            left.0 -= 1;
        }
    }
}

fn with_test_plugin() -> Simulation {
    let mut sim = Simulation::new();
    sim.app
        .add_agent_command::<Wait>()
        .add_async_action::<WaitLeft>()
        .add_opt_in_event::<Ping>(OptIn::radius(16.0, 64.0))
        .add_systems(bevy_app::Update, advance_waits.in_set(ActionSet::Step));
    sim
}

fn spawn(sim: &mut Simulation) {
    sim.receive(&PlayStatus { status: "login_success".into() });
    sim.receive(&ResourcePacksInfo::default());
    sim.receive(&ResourcePackStack::default());
    sim.receive(&StartGame {
        runtime_entity_id: 1,
        player_position: Vec3 { x: 0.5, y: -58.38, z: 0.5 },
        ..StartGame::default()
    });
    sim.receive(&ChunkRadiusUpdate { chunk_radius: 8 });
    sim.receive(&PlayStatus { status: "player_spawn".into() });
    sim.tick();
}

#[test]
fn queries_are_answered_between_ticks_and_actions_wait_for_the_tick() {
    let mut sim = with_test_plugin();
    spawn(&mut sim);
    sim.take_responses();
    let tick_before = sim.app.world().resource::<clawcraft::core::TickCount>().0;
    sim.queue_command(r#"{"action":"pos","id":"q1"}"#);
    sim.queue_command(r#"{"action":"wait","ticks":1,"id":"a1"}"#);
    sim.queue_command(r#"{"action":"status","id":"q2"}"#);
    sim.interim();
    let got = sim.take_responses();
    // pos runs at once; the action and the query queued behind it keep their order.
    assert_eq!(got.iter().map(|r| r["id"].clone()).collect::<Vec<_>>(), vec![json!("q1")]);
    assert_eq!(sim.app.world().resource::<clawcraft::core::TickCount>().0, tick_before, "no tick ran");
    sim.tick();
    let got = sim.take_responses();
    assert_eq!(got.iter().map(|r| r["id"].clone()).collect::<Vec<_>>(), vec![json!("a1"), json!("q2")]);
}

#[test]
fn async_actions_answer_at_once_then_complete_with_the_same_id() {
    let mut sim = with_test_plugin();
    spawn(&mut sim);
    let r = sim.command(r#"{"action":"wait","ticks":"3","id":"w1"}"#);
    assert_eq!(r["waiting"], true, "numeric string coerced: {r:?}");
    let busy = sim.command(r#"{"action":"wait","ticks":1,"id":"w2"}"#);
    assert_eq!(busy["code"], "BUSY");
    assert!(busy["error"].as_str().unwrap_or_default().contains("abort_wait"), "{busy:?}");
    sim.ticks(5);
    let done: Vec<_> = sim.events().into_iter().filter(|e| e["type"] == "wait_done").collect();
    assert_eq!(done.len(), 1);
    assert_eq!(done[0]["id"], "w1");
    // The slot is free again.
    let r = sim.command(r#"{"action":"wait","ticks":1,"id":"w3"}"#);
    assert_eq!(r["waiting"], true);
}

#[test]
fn the_watchdog_ends_overdue_actions_with_command_timeout() {
    let mut sim = with_test_plugin();
    spawn(&mut sim);
    let r = sim.command(r#"{"action":"wait","ticks":500,"timeout":5,"id":7}"#);
    assert_eq!(r["waiting"], true);
    sim.ticks(4);
    assert!(!sim.event_types().contains(&"command_timeout".to_string()), "not before the deadline");
    sim.ticks(2);
    let t: Vec<_> = sim.events().into_iter().filter(|e| e["type"] == "command_timeout").collect();
    assert_eq!(t.len(), 1);
    assert_eq!(t[0]["command"], "wait");
    assert_eq!(t[0]["id"], 7);
    assert!(sim.component::<ActiveActions>().is_some_and(|a| a.slots.is_empty()));
}

#[test]
fn bad_requests_get_stable_codes_and_echoed_ids() {
    let mut sim = with_test_plugin();
    spawn(&mut sim);
    let cases = [
        (r#"{"action":"wait","ticks":"soon","id":1}"#, "INVALID_PARAMS", json!(1)),
        (r#"{"action":"wait","ticks":-1,"id":2}"#, "INVALID_PARAMS", json!(2)),
        (r#"{"action":"wait","ticks":5000,"id":3}"#, "OUT_OF_RANGE", json!(3)),
        (r#"{"action":"wait","id":4}"#, "INVALID_PARAMS", json!(4)),
        (r#"{"action":"wiat","id":"u"}"#, "UNKNOWN_ACTION", json!("u")),
        (r#"{"action":["pos"],"id":5}"#, "INVALID_COMMAND", json!(5)),
        (r#"{"id":6}"#, "MISSING_ACTION", json!(6)),
    ];
    for (line, code, id) in cases {
        let r = sim.command(line);
        assert_eq!(r["code"], code, "{line} → {r:?}");
        assert_eq!(r["id"], id, "{line}");
        assert_eq!(r["type"], "response");
        assert!(r["error"].as_str().is_some_and(|e| !e.is_empty()));
    }
    let r = sim.command(r#"{"action":"wiat"}"#);
    assert!(r["error"].as_str().unwrap_or_default().contains("wait"), "suggests the nearest name: {r:?}");
    let r = sim.command("{\"action\":\"pos\"");
    assert_eq!(r["code"], "INVALID_JSON");
    assert!(r["id"].as_u64().is_some(), "a process-wide id when none could be read");
}

#[test]
fn subscriptions_take_options_and_validate_them() {
    let mut sim = with_test_plugin();
    let r = sim.command(r#"{"action":"subscribe","event":"ping_test"}"#);
    assert_eq!(r["radius"], 16.0, "default radius: {r:?}");
    let r = sim.command(r#"{"action":"subscribe","event":"ping_test","radius":"32"}"#);
    assert_eq!(r["radius"], 32.0);
    let subs = sim.component::<Subscriptions>().expect("on the bot entity");
    assert!(subs.wants("ping_test", 31.0) && !subs.wants("ping_test", 33.0));
    let r = sim.command(r#"{"action":"subscribe","event":"ping_test","radius":1e9}"#);
    assert_eq!(r["code"], "OUT_OF_RANGE");
    let r = sim.command(r#"{"action":"subscribe","event":"spawn"}"#);
    assert_eq!(r["code"], "UNKNOWN_EVENT", "always-on events can't be subscribed");
    let r = sim.command(r#"{"action":"subscribe","event":"nope"}"#);
    assert_eq!(r["code"], "UNKNOWN_EVENT");
    let r = sim.command(r#"{"action":"subscriptions"}"#);
    assert_eq!(r["active"], json!([{"event": "ping_test", "enabled": true, "radius": 32.0}]));
    assert!(
        r["available"]
            .as_array()
            .is_some_and(|a| a.iter().any(|e| e["event"] == "ping_test" && e["subscribed"] == true))
    );
    let r = sim.command(r#"{"action":"unsubscribe","event":"ping_test"}"#);
    assert_eq!(r["unsubscribed"], "ping_test", "ClawCraft's shape: the event name");
    let r = sim.command(r#"{"action":"unsubscribe","event":"ping_test"}"#);
    assert_eq!(
        (r["code"].as_str(), r["error"].as_str()),
        (Some("NOT_SUBSCRIBED"), Some("Not subscribed to ping_test"))
    );
    let r = sim.command(r#"{"action":"subscribe","event":"nope"}"#);
    assert!(r["error"].as_str().is_some_and(|e| e.starts_with("Unknown event type: nope. Available: ")), "{r:?}");
}

#[test]
fn schema_lists_every_command_and_event_from_the_rust_types() {
    let mut sim = with_test_plugin();
    let r = sim.command(r#"{"action":"schema"}"#);
    let commands = r["commands"].as_array().expect("commands");
    let registry = sim.app.world().resource::<clawcraft::core::CommandRegistry>();
    let names: Vec<&str> = commands.iter().filter_map(|c| c["name"].as_str()).collect();
    for name in registry.names() {
        assert!(names.contains(&name), "{name} in schema");
    }
    let wait = commands.iter().find(|c| c["name"] == "wait").expect("wait");
    assert_eq!(wait["params"]["required"], json!(["ticks"]));
    assert_eq!(wait["params"]["properties"]["ticks"]["type"], "integer");
    assert!(wait["response"]["properties"]["waiting"].is_object());
    let events = r["events"].as_array().expect("events");
    assert!(events.iter().any(|e| e["name"] == "spawn" && e["fields"]["properties"]["pos"].is_object()));
    assert!(events.iter().any(|e| e["name"] == "ping_test" && e["optIn"]["hasRadius"] == true));
    assert!(r["errors"].as_array().is_some_and(|e| e.iter().any(|x| x["code"] == "BUSY")));

    let h = sim.command(r#"{"action":"help","topic":"wait"}"#);
    assert!(h["text"].as_str().unwrap_or_default().contains("ticks (integer, required)"), "{h:?}");
    let h = sim.command(r#"{"action":"help"}"#);
    assert!(h["text"].as_str().unwrap_or_default().contains("wait: test"));
    let h = sim.command(r#"{"action":"help","topic":"nothing_like_this"}"#);
    assert_eq!(h["code"], "INVALID_PARAMS");
}
