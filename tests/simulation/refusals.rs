//! A command refused with an error changes nothing: no packet leaves, no inventory job is
//! queued, no slot, position, rotation, window, action or subscription changes — for every
//! command's refusals, whether invalid (`NO_ITEM`, `INVALID_TARGET`, …) or `BUSY` (its action
//! slot taken; the command path refuses before the command's code runs).
//!
//! Each check runs two identical bots in lockstep on the same world (a *twin*): the first gets
//! the refused command, the second nothing. Every tick, from the refused one on, both must send
//! exactly the same packet bytes and hold the same state; so a refused command that turned the
//! bot, selected a hotbar slot, queued an item swap or an item-stack request, or left anything
//! to send later, fails.

#[allow(dead_code)]
use crate::interact::world;

use clawcraft::containers::Window;
use clawcraft::core::{ActiveActions, Position, Rotation, Subscriptions};
use clawcraft::inventory::{Inventory, InventoryJobs};
use clawcraft::protocol::packets::{ContainerOpen, FullContainerName, InventoryContent, ItemInstance};
use clawcraft::world::block::StateValue::{Byte, Int, Str};
use serde_json::{Map, Value};
use world::*;

/// What a refusal must leave as it was.
#[derive(Debug, PartialEq)]
struct State {
    pos: Option<Position>,
    rot: Option<Rotation>,
    inventory: Option<Inventory>,
    window: Option<Window>,
    /// Running actions: (slot, command, request id).
    actions: Vec<(String, String, Value)>,
    /// Inventory jobs queued or waiting for the server.
    jobs: usize,
    subscriptions: Option<Subscriptions>,
    /// The types of every event so far.
    events: Vec<String>,
}

fn state(w: &Sim) -> State {
    let world = w.sim.app.world();
    let bot = w.sim.bot;
    State {
        pos: world.get::<Position>(bot).copied(),
        rot: world.get::<Rotation>(bot).copied(),
        inventory: world.get::<Inventory>(bot).cloned(),
        window: world.get::<Window>(bot).cloned(),
        actions: world
            .get::<ActiveActions>(bot)
            .map(|a| a.slots.iter().map(|(s, r)| ((*s).to_owned(), r.command.to_owned(), r.id.clone())).collect())
            .unwrap_or_default(),
        jobs: world.get::<InventoryJobs>(bot).map_or(0, InventoryJobs::pending),
        subscriptions: world.get::<Subscriptions>(bot).cloned(),
        events: w.sim.event_types(),
    }
}

/// A door east at x 3, a bed south at z 2–3, stone west at x −2 and −3; dirt held, bread, a
/// snowball and a wooden pickaxe in the hotbar, a diamond pickaxe in main inventory slot 20.
fn home() -> Sim {
    let door = |upper: u8| {
        vec![
            ("door_hinge_bit", Byte(0)),
            ("minecraft:cardinal_direction", Str("east".into())),
            ("open_bit", Byte(0)),
            ("upper_block_bit", Byte(upper)),
        ]
    };
    let bed = |head: u8| vec![("direction", Int(0)), ("head_piece_bit", Byte(head)), ("occupied_bit", Byte(0))];
    world(
        &[
            ("wooden_door", door(0), [3, -60, 0]),
            ("wooden_door", door(1), [3, -59, 0]),
            ("bed", bed(0), [0, -60, 2]),
            ("bed", bed(1), [0, -60, 3]),
            ("stone", vec![], [-2, -60, 0]),
            ("stone", vec![], [-2, -60, 1]),
        ],
        &[
            (0, stack(DIRT, 5, 1)),
            (1, stack(BREAD, 5, 2)),
            (2, stack(SNOWBALL, 4, 3)),
            (3, stack(WOOD_PICK, 1, 4)),
            (20, stack(DIAMOND_PICK, 1, 5)),
        ],
    )
}

/// Two identical bots in lockstep: `a` gets the refused commands, `b` is the control.
struct Twin {
    a: Sim,
    b: Sim,
}

impl Twin {
    fn new() -> Self {
        let mut t = Twin { a: home(), b: home() };
        t.tick();
        t
    }

    /// One tick of both; they must have sent the same bytes and hold the same state.
    fn tick(&mut self) {
        self.a.sim.tick();
        self.b.sim.tick();
        self.same("a tick");
    }

    fn same(&mut self, what: &str) {
        let (a, b) = (self.a.sim.sent(), self.b.sim.sent());
        let names = |s: &Vec<Vec<(String, clawcraft::protocol::codec::Value)>>| -> Vec<Vec<String>> {
            s.iter().map(|batch| batch.iter().map(|(n, _)| n.clone()).collect()).collect()
        };
        assert_eq!(names(&a), names(&b), "{what}: the packets sent differ");
        assert_eq!(a, b, "{what}: the packets sent differ");
        assert_eq!(state(&self.a), state(&self.b), "{what}: the state differs");
    }

    /// Both bots get `line` (setting the scene; a command both run may send different bytes,
    /// such as a fresh uuid, so what it sent is dropped).
    fn both(&mut self, line: &str) -> Map<String, Value> {
        let r = self.a.ok(line);
        let rb = self.b.ok(line);
        assert_eq!(r.get("code"), rb.get("code"));
        self.a.sim.sent();
        self.b.sim.sent();
        r
    }

    /// Both bots receive `packet` before the next tick.
    fn receive<P: clawcraft::protocol::codec::Packet>(&mut self, packet: &P) {
        self.a.sim.receive(packet);
        self.b.sim.receive(packet);
    }

    /// `a` sends `line`, refused with `code`: in its tick and the next five, both bots send the
    /// same packets and keep the same state.
    fn refused(&mut self, line: &str, code: &str) {
        let r = self.a.cmd(line);
        self.b.sim.tick();
        assert_eq!(r.get("code").and_then(Value::as_str), Some(code), "{line}: {r:?}");
        self.same(line);
        for _ in 0..5 {
            self.a.sim.tick();
            self.b.sim.tick();
            self.same(line);
        }
    }
}

#[test]
fn invalid_requests_send_nothing_and_change_nothing() {
    let mut t = Twin::new();
    for (line, code) in [
        // hand actions
        (r#"{"action":"mine","x":0,"y":-59,"z":0}"#, "INVALID_TARGET"),
        (r#"{"action":"mine","x":0,"y":-64,"z":0,"autoTool":true}"#, "INVALID_TARGET"),
        (r#"{"action":"mine","x":0,"y":-61,"z":9,"autoTool":true}"#, "OUT_OF_REACH"),
        (r#"{"action":"place","x":-2,"y":-60,"z":0}"#, "OCCUPIED"),
        (r#"{"action":"place","item":"cobblestone","x":1,"y":-60,"z":0}"#, "NO_ITEM"),
        (r#"{"action":"eat","item":"diamond_pickaxe"}"#, "INVALID_TARGET"),
        (r#"{"action":"eat","item":"snowball"}"#, "INVALID_TARGET"),
        (r#"{"action":"throw","x":1,"y":-60,"z":1}"#, "INVALID_TARGET"),
        (r#"{"action":"drop","slot":7}"#, "NO_ITEM"),
        (r#"{"action":"give","to":"Nobody","item":"bread"}"#, "NO_TARGET"),
        (r#"{"action":"attack","entity":"zombie"}"#, "NOT_FOUND"),
        (r#"{"action":"use","x":1,"y":-61}"#, "INVALID_PARAMS"),
        (r#"{"action":"interact","x":-2,"y":-60,"z":0}"#, "INVALID_TARGET"),
        (r#"{"action":"sleep","x":-2,"y":-60,"z":0}"#, "INVALID_TARGET"),
        (r#"{"action":"wake"}"#, "INVALID_TARGET"),
        (r#"{"action":"abort_mine"}"#, "NOT_ACTIVE"),
        // inventory
        (r#"{"action":"equip","item":"cobblestone"}"#, "NO_ITEM"),
        (r#"{"action":"equip","slot":12}"#, "OUT_OF_RANGE"),
        (r#"{"action":"unequip","target":"helmet"}"#, "NO_ITEM"),
        // containers (no window open)
        (r#"{"action":"open","x":-2,"y":-60,"z":0}"#, "INVALID_TARGET"),
        (r#"{"action":"take","item":"dirt"}"#, "NO_CONTAINER"),
        (r#"{"action":"put","item":"dirt"}"#, "NO_CONTAINER"),
        (r#"{"action":"close"}"#, "NO_CONTAINER"),
        (r#"{"action":"craft","item":"stick"}"#, "NO_RECIPE"),
        // movement
        (r#"{"action":"setpos","x":1e9,"y":-60,"z":0}"#, "OUT_OF_RANGE"),
        (r#"{"action":"face","x":1e9,"y":-60,"z":0}"#, "OUT_OF_RANGE"),
        (r#"{"action":"move","x":1e9,"z":0}"#, "OUT_OF_RANGE"),
        (r#"{"action":"tp","x":0,"y":5000,"z":0}"#, "OUT_OF_RANGE"),
        (r#"{"action":"follow","player":"Nobody"}"#, "NOT_FOUND"),
        (r#"{"action":"abort_walk"}"#, "NOT_ACTIVE"),
        // talk
        (r#"{"action":"chat","message":"  "}"#, "INVALID_PARAMS"),
        (r#"{"action":"whisper","to":"a\"b","message":"hi"}"#, "INVALID_PARAMS"),
        (r#"{"action":"emote","name":"no such emote at all"}"#, "UNKNOWN_EMOTE"),
        (r#"{"action":"cmd","cmd":"/"}"#, "INVALID_PARAMS"),
        (r#"{"action":"cmd","cmd":"list","external":true}"#, "NOT_CONFIGURED"),
        // the channel
        (r#"{"action":"subscribe","event":"no_such_event"}"#, "UNKNOWN_EVENT"),
        (r#"{"action":"unsubscribe","event":"block_changed"}"#, "NOT_SUBSCRIBED"),
        (r#"{"action":"respawn"}"#, "NOT_DEAD"),
        (r#"{"action":"skill_run","skill":"noSuchSkill"}"#, "UNKNOWN_SKILL"),
    ] {
        t.refused(line, code);
    }
}

/// A candidate in seed 003's shape whose trial parameters do not fit its input schema.
const AUTHOR_BAD_PARAMETERS: &str = r#"{"action":"author_mineflayer_action","proposed_action_skill_id":"craftWoodenPickaxe","purpose":"Craft a wooden pickaxe at a placed crafting table in reach","input_schema":{"type":"object","properties":{"tool":{"type":"string"}},"required":["tool"],"additionalProperties":false},"parameters":{"tool":"wooden_pickaxe"},"runtime_parameters":{"tool":5},"source_language":"typescript","source":"export async function run(ctx: any, params: { tool: string }) { const r = await ctx.craftWithTable(params.tool); return r.status === 'crafted' ? { status: 'ok' } : { status: 'failed', code: r.code }; }","helper_api_version":"mineflayer-action-skill-helper/v1","helper_allowlist":["craftWithTable"],"timeout_ms":20000,"verifier":{"kind":"inventory_delta","item":"wooden_pickaxe","count":1},"known_failure_modes":["no crafting table within reach","missing ingredients"],"promotion_policy":"promote_after_passed_trial"}"#;

#[test]
fn a_refused_author_mineflayer_action_stores_no_candidate() {
    let mut t = Twin::new();
    t.refused(AUTHOR_BAD_PARAMETERS, "INVALID_PARAMS");
    let (a, b) = (t.a.ok(r#"{"action":"skill_list"}"#), t.b.ok(r#"{"action":"skill_list"}"#));
    assert_eq!(a["skills"], b["skills"], "the refused candidate was not stored");
    assert_eq!(a["skills"].as_array().map(Vec::len), Some(0), "{a:?}");
    // The same candidate with parameters that fit is defined and trialled.
    let ok = AUTHOR_BAD_PARAMETERS.replace(r#""runtime_parameters":{"tool":5},"#, "");
    let r = t.a.ok(&ok);
    assert_eq!((r["defined"]["version"].clone(), r["trial"]["started"].clone()), (Value::from(1), Value::from(true)));
}

#[test]
fn busy_hand_actions_send_nothing_not_even_a_tool_switch_or_an_item_swap() {
    let mut t = Twin::new();
    // Mining stone by hand takes long: the mine slot (and with it the hand) stays taken.
    let r = t.both(r#"{"action":"mine","x":-2,"y":-60,"z":0,"id":"m"}"#);
    assert_eq!(r["mining"], true);
    t.tick();
    for line in [
        // autoTool would select the wooden pickaxe (hotbar 3) or swap the diamond one in.
        r#"{"action":"mine","x":-2,"y":-60,"z":1,"autoTool":true}"#,
        r#"{"action":"place","item":"bread","x":1,"y":-60,"z":0}"#,
        r#"{"action":"place","item":"diamond_pickaxe","x":1,"y":-60,"z":0}"#,
        r#"{"action":"eat","item":"bread"}"#,
        r#"{"action":"use","x":3,"y":-60,"z":0}"#,
        r#"{"action":"interact","x":3,"y":-60,"z":0}"#,
        r#"{"action":"throw","x":1,"y":-60,"z":1}"#,
        r#"{"action":"drop","slot":1}"#,
        r#"{"action":"sleep","x":0,"y":-60,"z":2}"#,
    ] {
        t.refused(line, "BUSY");
    }
    let r = t.a.ok(r#"{"action":"abort_mine"}"#);
    assert_eq!(r["actionId"], "m");
}

#[test]
fn busy_walks_and_teleports_send_nothing() {
    let mut t = Twin::new();
    t.both(r#"{"action":"move","x":0.5,"y":-60,"z":-6.5,"id":"w"}"#);
    t.tick();
    for line in [
        r#"{"action":"move","x":1.5,"y":-60,"z":0.5}"#,
        r#"{"action":"walk","x":1.5,"y":-60,"z":0.5}"#,
        r#"{"action":"walk","x":0.5,"y":-60,"z":-6.5}"#,
        r#"{"action":"follow","player":"Nobody"}"#,
    ] {
        t.refused(line, "BUSY");
    }
    // A tp waits for the server's teleport (its answer comes then); a second one is refused
    // without a second /tp.
    for w in [&mut t.a, &mut t.b] {
        w.sim.queue_command(r#"{"action":"tp","x":0.5,"y":-60,"z":0.5}"#);
        w.sim.tick();
        assert!(w.sim.take_responses().is_empty(), "answered when the server teleports");
        w.sim.sent();
    }
    t.refused(r#"{"action":"tp","x":1.5,"y":-60,"z":1.5}"#, "BUSY");
}

#[test]
fn busy_container_actions_send_nothing() {
    let mut t = Twin::new();
    t.receive(&ContainerOpen {
        window_id: "first".into(),
        window_type: "container".into(),
        coordinates: clawcraft::protocol::packets::BlockPos { x: 1, y: -60, z: 1 },
        runtime_entity_id: -1,
    });
    let mut items = vec![ItemInstance::air(); 27];
    items[0] = stack(COBBLESTONE, 3, 30);
    items[1] = stack(BREAD, 2, 31);
    t.receive(&InventoryContent {
        window_id: "first".into(),
        input: items,
        container: FullContainerName::of("anvil_input"),
        storage_item: ItemInstance::air(),
    });
    t.tick();
    // The first take's request leaves; the server has not answered yet.
    let r = t.both(r#"{"action":"take","item":"cobblestone","id":"t1"}"#);
    assert_eq!(r["sent"], true);
    for line in [
        r#"{"action":"take","item":"bread"}"#,
        r#"{"action":"take","item":"cobblestone"}"#,
        r#"{"action":"put","item":"dirt","count":1}"#,
        r#"{"action":"craft","item":"stick"}"#,
        r#"{"action":"open","x":-2,"y":-60,"z":0}"#,
    ] {
        t.refused(line, "BUSY");
    }
    // Invalid requests in an open window: nothing leaves either.
    let r = t.a.ok(r#"{"action":"abort_container"}"#);
    assert_eq!(r["actionId"], "t1");
    t.b.ok(r#"{"action":"abort_container"}"#);
    t.tick();
    t.refused(r#"{"action":"take","item":"diamond"}"#, "NO_ITEM");
    t.refused(r#"{"action":"take","slot":40}"#, "NO_ITEM");
    t.refused(r#"{"action":"put","item":"cobblestone"}"#, "NO_ITEM");
    t.refused(r#"{"action":"put","item":"dirt","slot":30}"#, "OUT_OF_RANGE");
    t.refused(r#"{"action":"take","item":"bread","count":0}"#, "OUT_OF_RANGE");
}

#[test]
fn a_plugins_request_in_a_busy_slot_is_refused_before_it_runs_too() {
    use bevy_ecs::message::Messages;
    use bevy_ecs::system::RunSystemOnce;
    use clawcraft::core::{Answer, BotCommands};
    use clawcraft::pathfind::commands::MoveCmd;

    let mut t = Twin::new();
    t.both(r#"{"action":"move","x":0.5,"y":-60,"z":-6.5,"id":"w"}"#);
    t.tick();
    // A behaviour plugin asks the moving bot to move elsewhere (typed, through BotCommands).
    let bot = t.a.sim.bot;
    t.a.sim
        .app
        .world_mut()
        .run_system_once(move |mut commands: BotCommands| {
            commands.run(bot, MoveCmd { x: 4.5, y: Some(-60.0), z: 0.5, sprint: false });
        })
        .expect("the request was queued");
    t.tick();
    let codes: Vec<Option<&str>> =
        t.a.sim
            .app
            .world()
            .resource::<Messages<Answer<MoveCmd>>>()
            .iter_current_update_messages()
            .map(|a| a.result.as_ref().err().map(|e| e.code))
            .collect();
    assert_eq!(codes, [Some("BUSY")], "answered BUSY, and the twin check above saw nothing sent");
    for _ in 0..5 {
        t.tick();
    }
}
