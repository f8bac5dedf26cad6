//! `collect` in simulation (plugins/gather): one action that finds the nearest matching block,
//! walks within reach, breaks it the way `mine` does, picks up the drop (walking onto it when the
//! server does not hand it over), and ends in `collect_done` with what the simulated server showed:
//! the blocks its updates broke and the items its inventory updates added.

use crate::interact::world;

use clawcraft::protocol::packets::{
    AddItemEntity, InventorySlot, ItemStack, PlayerAuthInput, RemoveEntity, TakeItemEntity, Vec3,
};
use clawcraft::sim::SIM_RUNTIME_ID;
use serde_json::{Map, Value, json};
use world::*;

/// Where the server puts a block's drop, relative to the block's corner.
type DropAt = fn([i32; 3]) -> [f32; 3];

/// The server side of breaking and picking up, played tick by tick: a `predict_break` is
/// answered with air and a cobblestone item entity (at `drop_at`), and an item is given — taken
/// (TakeItemEntity, RemoveEntity) into inventory slot 5 (InventorySlot) — once it has lain two
/// ticks and the bot's feet are within `pickup` blocks of it.
struct Server {
    drop_at: DropAt,
    pickup: f64,
    next: i64,
    /// Lying items: (runtime id, position, tick spawned).
    lying: Vec<(i64, [f32; 3], usize)>,
    cobblestone: u16,
    broken: Vec<[i32; 3]>,
    tick: usize,
    /// The bot's feet, from its last PlayerAuthInput.
    feet: [f32; 3],
    /// Blocks whose break the server refuses (it sends the block back).
    refuse: Vec<[i32; 3]>,
}

impl Server {
    fn new(drop_at: DropAt, pickup: f64) -> Self {
        Self {
            drop_at,
            pickup,
            next: 900,
            lying: Vec::new(),
            cobblestone: 0,
            broken: Vec::new(),
            tick: 0,
            feet: [0.0; 3],
            refuse: Vec::new(),
        }
    }

    /// Runs `n` ticks, answering what the bot sent; stops early once `until` holds.
    fn run(&mut self, w: &mut Sim, n: usize, until: impl Fn(&Sim) -> bool) {
        for _ in 0..n {
            w.sim.tick();
            self.tick += 1;
            for input in w.sim.sent_as::<PlayerAuthInput>() {
                self.feet = [input.position.x, input.position.y - 1.62, input.position.z];
                for a in input.block_action.unwrap_or_default() {
                    if a.action == "predict_break" {
                        self.break_block(w, [a.position.x, a.position.y, a.position.z]);
                    }
                }
            }
            self.give(w);
            if until(w) {
                return;
            }
        }
    }

    fn break_block(&mut self, w: &mut Sim, pos: [i32; 3]) {
        if self.refuse.contains(&pos) {
            let stone = w.id("stone", &[]);
            w.set_block(pos, stone);
            return;
        }
        let air = w.id("air", &[]);
        w.set_block(pos, air);
        self.broken.push(pos);
        let at = (self.drop_at)(pos);
        self.next += 1;
        w.sim.receive(&AddItemEntity {
            entity_id_self: self.next,
            runtime_entity_id: self.next as u64,
            item: ItemStack { network_id: COBBLESTONE, count: 1, metadata: 0, ..ItemStack::default() },
            position: Vec3 { x: at[0], y: at[1], z: at[2] },
            ..AddItemEntity::default()
        });
        self.lying.push((self.next, at, self.tick));
    }

    fn give(&mut self, w: &mut Sim) {
        let feet = self.feet;
        let near = |p: &[f32; 3]| {
            let d: f64 = (0..3).map(|i| f64::from(p[i] - feet[i]).powi(2)).sum();
            d.sqrt() <= self.pickup
        };
        let (ready, rest): (Vec<_>, Vec<_>) =
            self.lying.drain(..).partition(|(_, p, at)| self.tick >= at + 2 && near(p));
        self.lying = rest;
        for (rid, ..) in ready {
            w.sim.receive(&TakeItemEntity { runtime_entity_id: rid as u64, target: SIM_RUNTIME_ID as u32 });
            w.sim.receive(&RemoveEntity { entity_id_self: rid });
            self.cobblestone += 1;
            w.sim.receive(&InventorySlot {
                window_id: "inventory".into(),
                slot: 5,
                item: stack(COBBLESTONE, self.cobblestone, 50),
                ..InventorySlot::default()
            });
        }
    }
}

/// At the block's centre, a quarter above its floor (where servers drop it).
fn at_block(p: [i32; 3]) -> [f32; 3] {
    [p[0] as f32 + 0.5, p[1] as f32 + 0.25, p[2] as f32 + 0.5]
}

fn done(w: &Sim) -> Option<Map<String, Value>> {
    w.events_of("collect_done").pop()
}

/// A wooden pickaxe held; stone next to the feet and four blocks east.
fn quarry() -> Sim {
    world(
        &[("stone", vec![], [1, -60, 0]), ("stone", vec![], [4, -60, 0])],
        &[(0, stack(WOOD_PICK, 1, 1)), (1, stack(DIRT, 5, 3))],
    )
}

#[test]
fn collects_count_items_across_two_blocks_walking_to_the_second() {
    let mut w = quarry();
    let r = w.ok(r#"{"action":"collect","block":"stone","exact":true,"count":2,"id":"c1"}"#);
    assert_eq!(r["collecting"], true);
    assert_eq!(r["matched"], json!(["minecraft:stone"]));
    assert_eq!(r["nearest"]["x"], 1, "the stone beside the feet: {r:?}");
    assert_eq!((r["count"].clone(), r["radius"].clone(), r["maxMined"].clone()), (json!(2), json!(32.0), json!(8)));
    let mut server = Server::new(at_block, 2.5);
    server.run(&mut w, 400, |w| done(w).is_some());
    let d = done(&w).expect("collect_done");
    assert_eq!((d["id"].clone(), d["status"].clone()), (json!("c1"), json!("done")), "{d:?}");
    assert!(d.get("reason").is_none());
    assert_eq!(d["collected"], json!({"minecraft:cobblestone": 2}), "stone drops cobblestone");
    assert_eq!(d["mined"], 2);
    assert_eq!(
        d["blocks"],
        json!([
            {"x": 1, "y": -60, "z": 0, "block": "minecraft:stone", "tool": "minecraft:wooden_pickaxe"},
            {"x": 4, "y": -60, "z": 0, "block": "minecraft:stone", "tool": "minecraft:wooden_pickaxe"},
        ])
    );
    assert_eq!((d["skipped"].clone(), d["dropsLeft"].clone()), (json!([]), json!(0)));
    assert_eq!(server.broken, vec![[1, -60, 0], [4, -60, 0]], "the nearest first");
    let ticks = d["ticks"].as_u64().expect("ticks");
    assert!(ticks > 46, "two breaks of 23 ticks and a walk: {ticks}");
    // The bot walked east to reach the second block (its reach is 5 blocks, its approach 2).
    let pos = w.sim.component::<clawcraft::core::Position>().expect("position").0;
    assert!(pos.x > 2.0, "walked toward the second block: {pos:?}");
    // The walk and the breaks are its own sub-steps: no walk_done or mine_done of their own.
    assert!(w.events_of("walk_done").is_empty() && w.events_of("mine_done").is_empty());
    // The hand is free again.
    let r = w.cmd(r#"{"action":"abort_collect"}"#);
    assert_eq!(r["code"], "NOT_ACTIVE");
    assert!(w.sim.component::<clawcraft::interact::common::HandBorrowed>().is_none());
}

#[test]
fn a_drop_out_of_pickup_range_is_walked_onto() {
    let mut w = world(&[("stone", vec![], [1, -60, 0])], &[(0, stack(WOOD_PICK, 1, 1))]);
    w.ok(r#"{"action":"collect","block":"stone","exact":true,"id":"c2"}"#);
    // The drop rolls 1.8 blocks east of the block; the server hands it over only within a block.
    let mut server = Server::new(|p| [p[0] as f32 + 2.3, p[1] as f32, p[2] as f32 + 0.5], 1.0);
    server.run(&mut w, 300, |w| done(w).is_some());
    let d = done(&w).expect("collect_done");
    assert_eq!(d["status"], "done", "{d:?}");
    assert_eq!(d["collected"], json!({"minecraft:cobblestone": 1}));
    assert_eq!((d["mined"].clone(), d["dropsLeft"].clone()), (json!(1), json!(0)));
    let feet = server.feet;
    let off = ((f64::from(feet[0]) - 3.3).powi(2) + (f64::from(feet[2]) - 0.5).powi(2)).sqrt();
    assert!(off <= 1.0, "the bot walked onto the drop at (3.3, 0.5): feet {feet:?}");
}

#[test]
fn a_drop_the_server_never_hands_over_is_left_and_reported() {
    let mut w = world(&[("stone", vec![], [1, -60, 0])], &[(0, stack(WOOD_PICK, 1, 1))]);
    w.ok(r#"{"action":"collect","block":"stone","exact":true,"id":"c3"}"#);
    let mut server = Server::new(at_block, 0.0);
    server.run(&mut w, 300, |w| done(w).is_some());
    let d = done(&w).expect("collect_done");
    assert_eq!((d["status"].clone(), d["reason"].clone()), (json!("failed"), json!("no_block")), "{d:?}");
    assert_eq!((d["mined"].clone(), d["dropsLeft"].clone()), (json!(1), json!(1)));
    assert_eq!(d["collected"], json!({}), "nothing reached the inventory");
}

#[test]
fn no_matching_block_in_range_fails_with_a_reason() {
    let mut w = quarry();
    let r = w.ok(r#"{"action":"collect","block":"diamond_ore","count":3,"id":"c4"}"#);
    assert_eq!(r["nearest"], Value::Null);
    w.sim.ticks(2);
    let d = done(&w).expect("collect_done");
    assert_eq!(
        (d["id"].clone(), d["status"].clone(), d["reason"].clone(), d["mined"].clone()),
        (json!("c4"), json!("failed"), json!("no_block"), json!(0))
    );
    assert!(w.block_actions().iter().all(Vec::is_empty), "nothing was broken");
    // Out of the radius counts as none.
    w.ok(r#"{"action":"collect","block":"stone","exact":true,"radius":0.5,"id":"c5"}"#);
    w.sim.ticks(2);
    assert_eq!(done(&w).expect("collect_done")["reason"], "no_block");
}

#[test]
fn a_whole_block_name_means_that_block_and_a_part_every_block_containing_it() {
    let cobbled = || {
        world(&[("cobblestone", vec![], [1, -60, 0]), ("stone", vec![], [4, -60, 0])], &[(0, stack(WOOD_PICK, 1, 1))])
    };
    let mut w = cobbled();
    let r = w.ok(r#"{"action":"collect","block":"stone"}"#);
    assert_eq!(r["matched"], json!(["minecraft:stone"]), "{r:?}");
    assert_eq!(r["nearest"]["x"], 4, "the stone, not the nearer cobblestone: {r:?}");

    let mut w = cobbled();
    let r = w.ok(r#"{"action":"collect","block":"minecraft:STONE","exact":false}"#);
    let matched = r["matched"].as_array().expect("matched");
    assert!(matched.len() > 2 && matched.contains(&json!("minecraft:redstone_lamp")), "{r:?}");
    assert_eq!(r["nearest"]["x"], 1, "a part of the name: the cobblestone is nearest: {r:?}");

    let mut w = cobbled();
    let r = w.ok(r#"{"action":"collect","block":"log"}"#);
    let matched = r["matched"].as_array().expect("matched");
    assert!(matched.contains(&json!("minecraft:oak_log")) && matched.contains(&json!("minecraft:spruce_log")), "{r:?}");
    assert_eq!(r["nearest"], Value::Null, "no log here");
}

#[test]
fn bad_parameters_are_refused_with_codes_and_start_nothing() {
    let mut w = quarry();
    for (line, code) in [
        (r#"{"action":"collect"}"#, "INVALID_PARAMS"),
        (r#"{"action":"collect","block":"no_such_block_anywhere"}"#, "INVALID_PARAMS"),
        (r#"{"action":"collect","block":"ston","exact":true}"#, "INVALID_PARAMS"),
        (r#"{"action":"collect","block":"stone","count":0}"#, "OUT_OF_RANGE"),
        (r#"{"action":"collect","block":"stone","count":257}"#, "OUT_OF_RANGE"),
        (r#"{"action":"collect","block":"stone","radius":0}"#, "OUT_OF_RANGE"),
        (r#"{"action":"collect","block":"stone","radius":300}"#, "OUT_OF_RANGE"),
        (r#"{"action":"collect","block":"stone","maxMined":0}"#, "OUT_OF_RANGE"),
        (r#"{"action":"collect","block":"stone","seconds":0}"#, "OUT_OF_RANGE"),
    ] {
        assert_eq!(w.code(line), code, "{line}");
    }
    w.sim.ticks(3);
    assert!(done(&w).is_none(), "nothing started");
    assert!(w.block_actions().iter().all(Vec::is_empty));
}

#[test]
fn busy_while_collecting_and_abort_calls_the_break_off() {
    let mut w = quarry();
    w.ok(r#"{"action":"collect","block":"stone","exact":true,"count":2,"id":"c6"}"#);
    w.sim.ticks(5);
    let busy = w.cmd(r#"{"action":"collect","block":"stone"}"#);
    assert_eq!(busy["code"], "BUSY", "{busy:?}");
    assert!(busy["error"].as_str().is_some_and(|e| e.contains("abort_collect")), "{busy:?}");
    // The hand is lent to it: mining by hand is refused, naming abort_collect.
    let mine = w.cmd(r#"{"action":"mine","x":4,"y":-60,"z":0}"#);
    assert_eq!(mine["code"], "BUSY", "{mine:?}");
    w.sim.sent();
    let r = w.ok(r#"{"action":"abort_collect"}"#);
    assert_eq!(
        (r["aborted"].clone(), r["action"].clone(), r["actionId"].clone()),
        (json!(true), json!("collect"), json!("c6"))
    );
    w.sim.tick();
    let d = done(&w).expect("collect_done");
    assert_eq!((d["status"].clone(), d["mined"].clone()), (json!("aborted"), json!(0)));
    let actions: Vec<String> = w
        .sim
        .sent_as::<PlayerAuthInput>()
        .into_iter()
        .flat_map(|p| p.block_action.unwrap_or_default().into_iter().map(|a| a.action))
        .collect();
    assert!(actions.contains(&"abort_break".to_owned()), "the break in progress is called off: {actions:?}");
    // Free again: another collect starts.
    w.ok(r#"{"action":"collect","block":"stone","exact":true,"id":"c7"}"#);
}

#[test]
fn a_waiting_collect_is_answered_with_its_completion() {
    let mut w = world(&[("stone", vec![], [1, -60, 0])], &[(0, stack(WOOD_PICK, 1, 1))]);
    w.sim.queue_command(r#"{"action":"collect","block":"stone","exact":true,"id":"cw","wait":true}"#);
    let mut server = Server::new(at_block, 2.5);
    let mut answer = None;
    for _ in 0..200 {
        server.run(&mut w, 1, |_| false);
        if let Some(a) = w.sim.take_responses().pop() {
            answer = Some(a);
            break;
        }
    }
    let a = answer.expect("answered when the collect ended");
    assert_eq!(a["collecting"], true);
    assert_eq!(a["completion"]["type"], "collect_done", "{a:?}");
    assert_eq!(a["completion"]["collected"], json!({"minecraft:cobblestone": 1}));
}

#[test]
fn blocks_it_must_not_break_or_cannot_see_are_passed_over() {
    use clawcraft::world::block::StateValue::Int;
    let mut w = world(
        &[
            // Water above: breaking it would let the water in.
            ("stone", vec![], [1, -60, 0]),
            ("water", vec![("liquid_depth", Int(0))], [1, -59, 0]),
            // Buried under the grass: no open face.
            ("stone", vec![], [0, -62, 1]),
            // The one to take.
            ("stone", vec![], [-3, -60, 0]),
        ],
        &[(0, stack(WOOD_PICK, 1, 1))],
    );
    let r = w.ok(r#"{"action":"collect","block":"stone","exact":true,"id":"c8"}"#);
    assert_eq!(r["nearest"]["x"], 1, "find's nearest is the one under water: {r:?}");
    let mut server = Server::new(at_block, 2.5);
    server.run(&mut w, 300, |w| done(w).is_some());
    let d = done(&w).expect("collect_done");
    assert_eq!(d["status"], "done", "{d:?}");
    assert_eq!(server.broken, vec![[-3, -60, 0]], "only the safe, open block");
    assert_eq!(d["skipped"], json!([]), "passed over, not tried");
}

#[test]
fn a_refused_break_is_given_up_on_and_the_next_block_taken() {
    let mut w = quarry();
    w.ok(r#"{"action":"collect","block":"stone","exact":true,"id":"c9"}"#);
    let mut server = Server::new(at_block, 2.5);
    server.refuse.push([1, -60, 0]);
    server.run(&mut w, 400, |w| done(w).is_some());
    let d = done(&w).expect("collect_done");
    assert_eq!(d["status"], "done", "{d:?}");
    assert_eq!(d["collected"], json!({"minecraft:cobblestone": 1}));
    assert_eq!(d["blocks"][0]["x"], 4, "the second block: {d:?}");
    assert_eq!(d["mined"], 1);
    let skipped = d["skipped"].as_array().expect("skipped");
    assert_eq!(skipped.len(), 1, "{d:?}");
    assert_eq!(
        (skipped[0]["x"].clone(), skipped[0]["reason"].clone(), skipped[0]["detail"].clone()),
        (json!(1), json!("dig_refused"), json!("break: rejected"))
    );
}

#[test]
fn a_walk_started_meanwhile_ends_it() {
    let mut w = world(&[("stone", vec![], [6, -60, 0])], &[(0, stack(WOOD_PICK, 1, 1))]);
    w.ok(r#"{"action":"collect","block":"stone","exact":true,"id":"c10"}"#);
    w.sim.ticks(5);
    assert!(done(&w).is_none(), "walking to the block");
    w.ok(r#"{"action":"move","x":-3.5,"y":-60,"z":0.5}"#);
    w.sim.tick();
    let d = done(&w).expect("collect_done");
    assert_eq!((d["status"].clone(), d["reason"].clone()), (json!("failed"), json!("walk_started")));
}

#[test]
fn a_full_inventory_fails_before_anything_is_broken() {
    let full: Vec<(usize, clawcraft::protocol::packets::ItemInstance)> =
        (0..36).map(|i| (i, stack(DIRT, 64, 100 + i as i32))).collect();
    let mut w = world(&[("stone", vec![], [1, -60, 0])], &full);
    w.ok(r#"{"action":"collect","block":"stone","exact":true,"id":"c11"}"#);
    w.sim.ticks(2);
    let d = done(&w).expect("collect_done");
    assert_eq!(
        (d["status"].clone(), d["reason"].clone(), d["mined"].clone()),
        (json!("failed"), json!("inventory_full"), json!(0))
    );
    assert!(w.block_actions().iter().all(Vec::is_empty), "nothing was broken");
}

#[test]
fn each_bot_of_a_swarm_collects_in_its_own_slot() {
    use clawcraft::protocol::packets::{FullContainerName, InventoryContent, ItemInstance};
    let mut world = clawcraft::simworld::SimWorld::flat(2);
    world.set([10, -60, 0], "stone", &[]).set([-8, -60, 0], "stone", &[]);
    let mut sim = world.spawn([0.5, -60.0, 0.5]);
    world.join_bot(&mut sim, "Ann", [4.5, -60.0, 0.5], SIM_RUNTIME_ID + 1);
    for name in ["ClawBot", "Ann"] {
        sim.receive_for(
            name,
            &InventoryContent {
                window_id: "inventory".into(),
                input: vec![ItemInstance::air(); 36],
                container: FullContainerName::of("anvil_input"),
                storage_item: ItemInstance::air(),
            },
        );
    }
    sim.ticks(2);
    let r = sim.command(r#"{"action":"collect","bot":"Ann","block":"stone","exact":true,"id":"ann"}"#);
    assert_eq!(r["nearest"]["x"], 10, "Ann's nearest, from Ann's feet: {r:?}");
    // Ann's slot is hers: ClawBot collects meanwhile, Ann cannot start a second one.
    let r = sim.command(r#"{"action":"collect","bot":"ClawBot","block":"stone","exact":true,"id":"claw"}"#);
    assert_eq!(r["collecting"], true, "{r:?}");
    let r = sim.command(r#"{"action":"collect","bot":"Ann","block":"stone"}"#);
    assert_eq!(r["code"], "BUSY", "{r:?}");
    sim.ticks(10);
    let r = sim.command(r#"{"action":"abort_collect","bot":"Ann"}"#);
    assert_eq!(r["actionId"], "ann", "{r:?}");
    sim.tick();
    let done: Vec<_> = sim.events().into_iter().filter(|e| e["type"] == "collect_done").collect();
    assert_eq!(done.len(), 1, "only Ann's ended: {done:?}");
    assert_eq!((done[0]["bot"].as_str(), done[0]["status"].as_str()), (Some("Ann"), Some("aborted")));
    // Each walked toward its own nearest block: Ann east, ClawBot west.
    let ann = sim.bot_named("Ann").expect("Ann");
    let claw = sim.bot_named("ClawBot").expect("ClawBot");
    let x = |b| sim.app.world().get::<clawcraft::core::Position>(b).expect("position").0.x;
    assert!(x(ann) > 4.6, "Ann walked east: {}", x(ann));
    assert!(x(claw) < 0.4, "ClawBot walked west: {}", x(claw));
    let r = sim.command(r#"{"action":"abort_collect","bot":"ClawBot"}"#);
    assert_eq!(r["actionId"], "claw", "{r:?}");
}
