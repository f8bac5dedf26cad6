//! Walks that change the world on their way, in simulation: a closed door opened (the server's
//! block update shows it open) and walked through, a 3-block pillar to a ledge, a 3-block gap
//! bridged, a 2-block wall dug through, two levels dug down, a step dug up onto under a low
//! ceiling, a pillar through a ceiling (and a plan back over its own hole re-planned) — each
//! through the interaction layer's own mine, place and interact code, inside the one `walk`
//! action with one `walk_done` listing what changed.
//! Refusals and interruptions: no block to place (at once, and when the blocks run out on the
//! way), abort mid-pillar, death mid-dig. A small server here answers the bot's packets the way a
//! survival server does (block updates for breaks, placements and doors; the stack shrinking).

use clawcraft::core::{Position, Vec3};
use clawcraft::protocol::packets::{
    FullContainerName, InventoryContent, InventorySlot, InventoryTransaction, ItemInstance, ItemRegistry, ItemState,
    PlayerAction, PlayerAuthInput,
};
use clawcraft::sim::Simulation;
use clawcraft::simworld::{SimWorld, assert_plausible};
use clawcraft::world::block::StateValue;
use clawcraft_vitals::packets::{DeathInfo, SetHealth};
use serde_json::{Map, Value, json};

const DIRT: i32 = 3;
const BREAD: i32 = 261;

fn stack(id: i32, count: u16, stack_id: i32) -> ItemInstance {
    ItemInstance { network_id: id, count, has_stack_id: true, stack_id: Some(stack_id), ..ItemInstance::default() }
}

/// A door whose closed panel lies across the x axis (data/gen-shapes.js).
fn door(open: u8, upper: u8) -> Vec<(&'static str, StateValue)> {
    vec![
        ("door_hinge_bit", StateValue::Byte(0)),
        ("minecraft:cardinal_direction", StateValue::Str("south".into())),
        ("open_bit", StateValue::Byte(open)),
        ("upper_block_bit", StateValue::Byte(upper)),
    ]
}

/// The server side of the world: answers breaks, clicks on doors and placements.
struct Server {
    world: SimWorld,
    /// Dirt in hotbar slot 0.
    dirt: u16,
    /// Door clicks, placements and breaks the server carried out, in order.
    log: Vec<(&'static str, [i32; 3])>,
    /// The PlayerAction packets the bot sent (action names), in order.
    player_actions: Vec<String>,
}

impl Server {
    fn new(world: SimWorld) -> Self {
        Self { world, dirt: 0, log: Vec::new(), player_actions: Vec::new() }
    }

    /// Spawns the bot at `feet` holding `slots` (hotbar slot 0 held).
    fn spawn(&mut self, feet: [f64; 3], slots: &[(usize, ItemInstance)]) -> Simulation {
        let mut sim = self.world.spawn(feet);
        let st = |name: &str, id: i32| ItemState { name: name.into(), runtime_id: id as i16, ..ItemState::default() };
        sim.receive(&ItemRegistry { itemstates: vec![st("minecraft:dirt", DIRT), st("minecraft:bread", BREAD)] });
        let mut inv = vec![ItemInstance::air(); 36];
        for (i, s) in slots {
            inv[*i] = s.clone();
            if s.network_id == DIRT && *i == 0 {
                self.dirt = s.count;
            }
        }
        sim.receive(&InventoryContent {
            window_id: "inventory".into(),
            input: inv,
            container: FullContainerName::of("anvil_input"),
            storage_item: ItemInstance::air(),
        });
        sim.tick();
        sim.sent();
        sim
    }

    /// Reads what the bot sent this tick and answers it; returns the tick's PlayerAuthInputs.
    fn serve(&mut self, sim: &mut Simulation) -> Vec<PlayerAuthInput> {
        let bodies = sim.sent_bodies();
        let inputs = sim.decode_all::<PlayerAuthInput>(&bodies);
        self.player_actions.extend(sim.decode_all::<PlayerAction>(&bodies).into_iter().map(|a| a.action));
        for tx in sim.decode_all::<InventoryTransaction>(&bodies) {
            let Some(u) = tx.use_item_data() else { continue };
            if u.action_type != "click_block" {
                continue;
            }
            let b = [u.block_position.x, u.block_position.y, u.block_position.z];
            let name = self.world.ids.name(self.world.get(b)).to_owned();
            if name.ends_with("door") {
                let low = if self.world.ids.name(self.world.get([b[0], b[1] - 1, b[2]])).ends_with("door") {
                    [b[0], b[1] - 1, b[2]]
                } else {
                    b
                };
                self.world.update(sim, low, "wooden_door", &door(1, 0));
                self.world.update(sim, [low[0], low[1] + 1, low[2]], "wooden_door", &door(1, 1));
                self.log.push(("opened", low));
                continue;
            }
            let n = [[0, -1, 0], [0, 1, 0], [0, 0, -1], [0, 0, 1], [-1, 0, 0], [1, 0, 0]][u.face as usize];
            let target = [b[0] + n[0], b[1] + n[1], b[2] + n[2]];
            if self.dirt == 0 {
                continue;
            }
            self.dirt -= 1;
            self.world.update(sim, target, "dirt", &[]);
            let item = if self.dirt == 0 { ItemInstance::air() } else { stack(DIRT, self.dirt, 1) };
            sim.receive(&InventorySlot { window_id: "inventory".into(), slot: 0, item, ..InventorySlot::default() });
            self.log.push(("placed", target));
        }
        for input in &inputs {
            for a in input.block_action.iter().flatten() {
                if a.action == "predict_break" {
                    let p = [a.position.x, a.position.y, a.position.z];
                    self.world.update(sim, p, "air", &[]);
                    self.log.push(("mined", p));
                }
            }
        }
        inputs
    }
}

fn walk_done(sim: &Simulation) -> Vec<Map<String, Value>> {
    sim.events().into_iter().filter(|e| e["type"] == "walk_done").collect()
}

/// Sends `line` and ticks (serving) until `walk_done` or `limit` ticks.
fn walk(
    server: &mut Server,
    sim: &mut Simulation,
    line: &str,
    limit: usize,
) -> (Map<String, Value>, Vec<PlayerAuthInput>) {
    sim.queue_command(line);
    let mut response = None;
    let mut stream = Vec::new();
    for _ in 0..limit {
        sim.tick();
        stream.extend(server.serve(sim));
        if response.is_none() {
            response = sim.take_responses().pop();
        }
        if !walk_done(sim).is_empty() {
            break;
        }
    }
    (response.expect("a response"), stream)
}

fn feet(sim: &Simulation) -> Vec3 {
    sim.component::<Position>().expect("position").0
}

fn assert_at(sim: &Simulation, x: f64, y: f64, z: f64) {
    let p = feet(sim);
    let d = ((p.x - x).powi(2) + (p.z - z).powi(2)).sqrt();
    assert!(d < 0.5 && (p.y - y).abs() < 0.05, "expected ({x}, {y}, {z}), at {p:?}");
}

fn moves(r: &Map<String, Value>, kind: &str) -> usize {
    r["path"].as_array().map_or(0, |p| p.iter().filter(|s| s["move"] == kind).count())
}

fn changed(done: &Map<String, Value>) -> Vec<(String, [i64; 3])> {
    done["changed"]
        .as_array()
        .map(|c| {
            c.iter()
                .map(|e| {
                    let n = |k: &str| e[k].as_i64().expect("coordinate");
                    (e["change"].as_str().expect("change").to_owned(), [n("x"), n("y"), n("z")])
                })
                .collect()
        })
        .unwrap_or_default()
}

#[test]
fn walks_through_a_closed_door_opening_it_on_the_way() {
    let mut world = SimWorld::flat(2);
    world.fill([3, -60, -32], [3, -58, 47], "stone", &[]);
    world.set([3, -60, 0], "wooden_door", &door(0, 0));
    world.set([3, -59, 0], "wooden_door", &door(0, 1));
    let mut server = Server::new(world);
    let mut sim = server.spawn([0.5, -60.0, 0.5], &[(0, stack(BREAD, 3, 1))]);
    let (r, stream) = walk(&mut server, &mut sim, r#"{"action":"walk","x":6.5,"y":-60,"z":0.5,"id":"d"}"#, 300);
    assert_eq!((r["complete"].clone(), moves(&r, "door")), (json!(true), 1), "{r:?}");
    let done = walk_done(&sim);
    assert_eq!((done.len(), done[0]["id"].clone(), done[0]["status"].clone()), (1, json!("d"), json!("done")));
    assert_eq!(changed(&done[0]), vec![("opened".to_owned(), [3, -60, 0])], "{done:?}");
    assert_eq!(done[0]["changed"][0]["block"], "minecraft:wooden_door");
    assert_eq!(server.log, vec![("opened", [3, -60, 0])], "one click on the door");
    assert_at(&sim, 6.5, -60.0, 0.5);
    assert_plausible(&stream);
    // Nothing went through the closed panel: the body stayed west of the frame until it opened.
    let opened_at = stream.iter().position(|i| i.position.x > 3.9).expect("went through");
    assert!(stream[..opened_at].iter().all(|i| i.position.x < 4.0), "through the door only once open");
    assert!(!sim.events().iter().any(|e| e["type"] == "interact_done"), "the walk's own receipt, no other");
}

#[test]
fn a_door_already_open_along_the_way_is_walked_through_without_a_click() {
    let mut world = SimWorld::flat(2);
    world.fill([3, -60, -32], [3, -58, 47], "stone", &[]);
    world.set([3, -60, 0], "wooden_door", &door(1, 0));
    world.set([3, -59, 0], "wooden_door", &door(1, 1));
    let mut server = Server::new(world);
    let mut sim = server.spawn([0.5, -60.0, 0.5], &[]);
    let (r, _) = walk(&mut server, &mut sim, r#"{"action":"walk","x":6.5,"y":-60,"z":0.5}"#, 200);
    assert_eq!((r["complete"].clone(), moves(&r, "door")), (json!(true), 0), "{r:?}");
    assert_eq!(walk_done(&sim)[0]["status"], "done");
    assert!(server.log.is_empty() && walk_done(&sim)[0].get("changed").is_none());
    // With doors off a closed one is a wall.
    let mut world = SimWorld::flat(2);
    world.fill([3, -60, -32], [3, -58, 47], "stone", &[]);
    world.set([3, -60, 0], "wooden_door", &door(0, 0));
    world.set([3, -59, 0], "wooden_door", &door(0, 1));
    let mut sim = world.spawn([0.5, -60.0, 0.5]);
    let r = sim.command(r#"{"action":"path","x":6.5,"y":-60,"z":0.5,"maxNodes":2000,"openDoors":false}"#);
    assert_eq!(r["complete"], false, "{r:?}");
}

#[test]
fn pillars_up_three_blocks_to_reach_a_ledge() {
    let mut world = SimWorld::flat(2);
    // A ledge four blocks high: three blocks of pillar, then a jump onto it.
    world.fill([3, -60, -20], [12, -57, 20], "stone", &[]);
    let mut server = Server::new(world);
    let mut sim = server.spawn([0.5, -60.0, 0.5], &[(0, stack(DIRT, 8, 1)), (1, stack(BREAD, 3, 2))]);
    let line = r#"{"action":"path","x":5.5,"y":-56,"z":0.5,"maxNodes":3000}"#;
    assert_eq!(sim.command(line)["complete"], false, "out of reach without placing");
    let (r, stream) =
        walk(&mut server, &mut sim, r#"{"action":"walk","x":5.5,"y":-56,"z":0.5,"allowPlace":true,"id":"p"}"#, 400);
    assert_eq!((r["complete"].clone(), moves(&r, "pillar")), (json!(true), 3), "{r:?}");
    let done = walk_done(&sim);
    assert_eq!(done[0]["status"], "done", "{done:?}");
    let placed = changed(&done[0]);
    assert_eq!(placed.len(), 3, "{placed:?}");
    let column = [placed[0].1[0], placed[0].1[2]];
    for (i, (kind, at)) in placed.iter().enumerate() {
        assert_eq!((kind.as_str(), [at[0], at[2]], at[1]), ("placed", column, -60 + i as i64), "{placed:?}");
    }
    assert_eq!(done[0]["changed"][0]["item"], "minecraft:dirt");
    assert_eq!(done[0]["changed"][0]["block"], "minecraft:dirt");
    assert_eq!(server.dirt, 5, "three blocks used");
    assert_at(&sim, 5.5, -56.0, 0.5);
    assert_plausible(&stream);
    // Each block went under the feet: the bot was above the cell when it clicked.
    let jumps = stream.iter().filter(|i| i.input_data.iter().any(|f| f == "start_jumping")).count();
    assert!(jumps >= 3, "jumped for each block: {jumps}");
}

#[test]
fn bridges_a_three_block_gap() {
    let mut world = SimWorld::flat(2);
    // A trench through to the void, three wide.
    world.fill([2, -64, -32], [4, -61, 47], "air", &[]);
    let mut server = Server::new(world);
    let mut sim = server.spawn([0.5, -60.0, 0.5], &[(0, stack(DIRT, 8, 1))]);
    let (r, stream) =
        walk(&mut server, &mut sim, r#"{"action":"walk","x":6.5,"y":-60,"z":0.5,"allowPlace":true,"id":"b"}"#, 500);
    assert_eq!((r["complete"].clone(), moves(&r, "bridge")), (json!(true), 3), "{r:?}");
    let done = walk_done(&sim);
    assert_eq!(done[0]["status"], "done", "{done:?}");
    let placed: Vec<[i64; 3]> = changed(&done[0])
        .into_iter()
        .map(|(k, at)| {
            assert_eq!(k, "placed");
            at
        })
        .collect();
    assert_eq!(placed, vec![[2, -61, 0], [3, -61, 0], [4, -61, 0]]);
    assert_at(&sim, 6.5, -60.0, 0.5);
    assert_plausible(&stream);
    assert!(
        stream.iter().all(|i| i.position.y > -58.5),
        "never fell: {:?}",
        stream.iter().map(|i| i.position.y).fold(0.0, f32::min)
    );
    assert!(stream.iter().any(|i| i.input_data.iter().any(|f| f == "sneaking")), "sneaked to the edge");
}

#[test]
fn digs_through_a_two_block_wall() {
    let mut world = SimWorld::flat(2);
    // Under stone: the body's two cells are dug through (over a bare two-high wall, mining its
    // top block and stepping up onto the lower one is cheaper).
    world.fill([3, -60, -32], [3, -59, 47], "dirt", &[]);
    world.fill([3, -58, -32], [3, -58, 47], "stone", &[]);
    let mut server = Server::new(world);
    let mut sim = server.spawn([0.5, -60.0, 0.5], &[(0, stack(BREAD, 3, 1))]);
    let (r, stream) =
        walk(&mut server, &mut sim, r#"{"action":"walk","x":6.5,"y":-60,"z":0.5,"allowDig":true,"id":"g"}"#, 400);
    assert_eq!((r["complete"].clone(), moves(&r, "dig")), (json!(true), 1), "{r:?}");
    let done = walk_done(&sim);
    assert_eq!(done[0]["status"], "done", "{done:?}");
    assert_eq!(changed(&done[0]), vec![("mined".to_owned(), [3, -59, 0]), ("mined".to_owned(), [3, -60, 0])]);
    assert_eq!(done[0]["changed"][0]["block"], "minecraft:dirt");
    assert_at(&sim, 6.5, -60.0, 0.5);
    assert_plausible(&stream);
    // The break as mine does it: start, continue every tick, predict at the end, for each block.
    let actions: Vec<String> =
        stream.iter().flat_map(|i| i.block_action.iter().flatten().map(|a| a.action.clone())).collect();
    assert_eq!(actions.iter().filter(|a| *a == "start_break").count(), 2, "{actions:?}");
    assert_eq!(actions.iter().filter(|a| *a == "predict_break").count(), 2);
    assert!(actions.iter().filter(|a| *a == "continue_break").count() >= 10, "{actions:?}");
    assert!(!actions.contains(&"abort_break".to_owned()));
}

/// The break actions the bot sent, in order, with the cell each names.
fn breaks(stream: &[PlayerAuthInput], kind: &str) -> Vec<[i32; 3]> {
    stream
        .iter()
        .flat_map(|i| i.block_action.iter().flatten())
        .filter(|a| a.action == kind)
        .map(|a| [a.position.x, a.position.y, a.position.z])
        .collect()
}

#[test]
fn digs_down_two_levels_mining_the_floor_under_the_feet() {
    let mut server = Server::new(SimWorld::flat(2));
    // Off the goal's column: walks over, centres on it, then mines grass, drops, mines dirt, drops.
    let mut sim = server.spawn([2.5, -60.0, 0.5], &[(0, stack(BREAD, 3, 1))]);
    let line = r#"{"action":"path","x":0.5,"y":-62,"z":0.5,"maxNodes":3000}"#;
    assert_eq!(sim.command(line)["complete"], false, "below ground without digging");
    let (r, stream) =
        walk(&mut server, &mut sim, r#"{"action":"walk","x":0.5,"y":-62,"z":0.5,"allowDig":true,"id":"v"}"#, 600);
    assert_eq!((r["complete"].clone(), moves(&r, "dig")), (json!(true), 2), "{r:?}");
    let done = walk_done(&sim);
    assert_eq!(done[0]["status"], "done", "{done:?}");
    assert_eq!(changed(&done[0]), vec![("mined".to_owned(), [0, -61, 0]), ("mined".to_owned(), [0, -62, 0])]);
    assert_eq!(done[0]["changed"][0]["block"], "minecraft:grass_block");
    assert_eq!(done[0]["changed"][1]["block"], "minecraft:dirt");
    assert_eq!(server.log, vec![("mined", [0, -61, 0]), ("mined", [0, -62, 0])]);
    assert_at(&sim, 0.5, -62.0, 0.5);
    assert_plausible(&stream);
    // One start and one predicted break per cell, the floor under the feet each time.
    assert_eq!(breaks(&stream, "start_break"), vec![[0, -61, 0], [0, -62, 0]]);
    assert_eq!(breaks(&stream, "predict_break"), vec![[0, -61, 0], [0, -62, 0]]);
    assert!(breaks(&stream, "abort_break").is_empty());
    // The first block was mined with the whole body over it (centred), and the body stayed up
    // until it broke.
    let first = stream
        .iter()
        .position(|i| i.block_action.iter().flatten().any(|a| a.action == "start_break"))
        .expect("a break");
    let at = stream[first].position;
    assert!((at.x - 0.5).abs() <= 0.16 && (at.z - 0.5).abs() <= 0.16, "centred: {at:?}");
    let broke = stream
        .iter()
        .position(|i| i.block_action.iter().flatten().any(|a| a.action == "predict_break"))
        .expect("broken");
    assert!(stream[..=broke].iter().all(|i| i.position.y > -58.5), "no fall before the floor broke");
}

#[test]
fn max_drop_bounds_the_drops_a_path_takes() {
    let mut server = Server::new(SimWorld::flat(2));
    let mut sim = server.spawn([0.5, -60.0, 0.5], &[]);
    // Digging down lands one block lower: a drop of 1.
    let line = |max_drop: &str| {
        format!(r#"{{"action":"path","x":0.5,"y":-62,"z":0.5,"allowDig":true,"maxNodes":3000{max_drop}}}"#)
    };
    assert_eq!(sim.command(&line(""))["complete"], true, "the default allows a 3-block drop");
    assert_eq!(sim.command(&line(r#","maxDrop":1"#))["complete"], true);
    let r = sim.command(&line(r#","maxDrop":0"#));
    assert_eq!(r["complete"], false, "no drop allowed: no way down: {r:?}");
    for (bad, code) in [(r#","maxDrop":21"#, "OUT_OF_RANGE"), (r#","maxDrop":-1"#, "INVALID_PARAMS")] {
        let r = sim.command(&line(bad));
        assert_eq!(r["code"], code, "{bad}: {r:?}");
    }
}

#[test]
fn digs_up_onto_a_step_under_a_low_ceiling() {
    let mut world = SimWorld::flat(2);
    // A corridor along x at z = 0, closed at x = -4, two blocks high under a dirt ceiling up to
    // x = 1; from x = 1 on its floor is a block higher (stone), so the step up needs the ceiling
    // over the head and over the step mined.
    world.fill([-4, -60, -1], [6, -56, -1], "stone", &[]);
    world.fill([-4, -60, 1], [6, -56, 1], "stone", &[]);
    world.fill([-4, -60, 0], [-4, -56, 0], "stone", &[]);
    world.fill([-3, -58, 0], [1, -58, 0], "dirt", &[]);
    world.fill([1, -60, 0], [6, -60, 0], "stone", &[]);
    let mut server = Server::new(world);
    let mut sim = server.spawn([0.5, -60.0, 0.5], &[(0, stack(BREAD, 3, 1))]);
    let line = r#"{"action":"path","x":3.5,"y":-59,"z":0.5,"maxNodes":3000}"#;
    assert_eq!(sim.command(line)["complete"], false, "walled in without digging");
    let (r, stream) =
        walk(&mut server, &mut sim, r#"{"action":"walk","x":3.5,"y":-59,"z":0.5,"allowDig":true,"id":"u"}"#, 600);
    assert_eq!((r["complete"].clone(), moves(&r, "dig")), (json!(true), 1), "{r:?}");
    assert_eq!(r["path"][1]["y"], -59, "the dig step is the step up: {r:?}");
    let done = walk_done(&sim);
    assert_eq!(done[0]["status"], "done", "{done:?}");
    // Above the head first, then over the step; the step's feet cell was air already.
    let mined = vec![("mined".to_owned(), [0, -58, 0]), ("mined".to_owned(), [1, -58, 0])];
    assert_eq!(changed(&done[0]), mined);
    assert_eq!(breaks(&stream, "start_break"), vec![[0, -58, 0], [1, -58, 0]]);
    assert_eq!(breaks(&stream, "predict_break"), vec![[0, -58, 0], [1, -58, 0]]);
    assert_at(&sim, 3.5, -59.0, 0.5);
    assert_plausible(&stream);
    let jumps = stream.iter().filter(|i| i.input_data.iter().any(|f| f == "start_jumping")).count();
    assert!(jumps >= 1, "jumped onto the step");
}

#[test]
fn pillars_up_through_a_ceiling_mining_it_first() {
    let mut world = SimWorld::flat(2);
    // A one-block shaft three high (stone walls) under a dirt lid at y = -58.
    world.fill([-1, -60, -1], [1, -58, 1], "stone", &[]);
    world.fill([0, -60, 0], [0, -59, 0], "air", &[]);
    world.set([0, -58, 0], "dirt", &[]);
    let mut server = Server::new(world);
    let mut sim = server.spawn([0.5, -60.0, 0.5], &[(0, stack(DIRT, 8, 1)), (1, stack(BREAD, 3, 2))]);
    let line = r#"{"action":"path","x":0.5,"y":-59,"z":0.5,"allowPlace":true,"maxNodes":3000}"#;
    assert_eq!(sim.command(line)["complete"], false, "the lid stops a pillar without digging");
    // Up to the level of the lid.
    let line = r#"{"action":"walk","y":-58,"allowPlace":true,"allowDig":true,"id":"c"}"#;
    let (r, stream) = walk(&mut server, &mut sim, line, 600);
    assert_eq!((r["complete"].clone(), moves(&r, "pillar")), (json!(true), 2), "{r:?}");
    let done = walk_done(&sim);
    assert_eq!(done[0]["status"], "done", "{done:?}");
    let expected =
        vec![("mined".to_owned(), [0, -58, 0]), ("placed".to_owned(), [0, -60, 0]), ("placed".to_owned(), [0, -59, 0])];
    assert_eq!(changed(&done[0]), expected);
    assert_eq!(breaks(&stream, "start_break"), vec![[0, -58, 0]]);
    assert_eq!(breaks(&stream, "predict_break"), vec![[0, -58, 0]]);
    // The lid was gone before the first jump.
    let broke = stream
        .iter()
        .position(|i| i.block_action.iter().flatten().any(|a| a.action == "predict_break"))
        .expect("broken");
    let jumped = stream.iter().position(|i| i.input_data.iter().any(|f| f == "start_jumping")).expect("jumped");
    assert!(broke < jumped, "mined at {broke}, jumped at {jumped}");
    assert_at(&sim, 0.5, -58.0, 0.5);
    assert_plausible(&stream);
}

#[test]
fn a_path_back_over_its_own_hole_is_replanned() {
    let mut world = SimWorld::flat(2);
    world.fill([-1, -60, -1], [1, -58, 1], "stone", &[]);
    world.fill([0, -60, 0], [0, -59, 0], "air", &[]);
    world.set([0, -58, 0], "dirt", &[]);
    let mut server = Server::new(world);
    let mut sim = server.spawn([0.5, -60.0, 0.5], &[(0, stack(DIRT, 8, 1)), (1, stack(BREAD, 3, 2))]);
    // On top of the lid's cell: the plan (made on the map with the lid) climbs out onto the
    // wall and steps back onto the lid it mined; once it is mined the walk re-plans and
    // places a block there instead.
    let line = r#"{"action":"walk","x":0.5,"y":-57,"z":0.5,"allowPlace":true,"allowDig":true,"id":"h"}"#;
    let (r, stream) = walk(&mut server, &mut sim, line, 800);
    assert_eq!(r["complete"], true, "{r:?}");
    let done = walk_done(&sim);
    assert_eq!(done[0]["status"], "done", "{done:?}");
    let changes = changed(&done[0]);
    assert_eq!(changes.first(), Some(&("mined".to_owned(), [0, -58, 0])), "{changes:?}");
    assert_eq!(changes.last(), Some(&("placed".to_owned(), [0, -58, 0])), "{changes:?}");
    assert_at(&sim, 0.5, -57.0, 0.5);
    assert_plausible(&stream);
}

#[test]
fn no_block_to_place_is_a_clear_refusal_and_running_out_fails_the_walk() {
    let mut world = SimWorld::flat(2);
    world.fill([2, -64, -32], [4, -61, 47], "air", &[]);
    let mut server = Server::new(world);
    let mut sim = server.spawn([0.5, -60.0, 0.5], &[(0, stack(BREAD, 3, 1))]);
    let r = sim.command(r#"{"action":"walk","x":6.5,"y":-60,"z":0.5,"allowPlace":true}"#);
    assert_eq!(r["code"], "NO_ITEM", "{r:?}");
    assert!(r["error"].as_str().is_some_and(|e| e.contains("no block to place") && e.contains("dirt")), "{r:?}");
    assert!(walk_done(&sim).is_empty(), "nothing started");
    // One dirt for a three-block gap: the first is placed, then the walk fails saying why.
    let mut server = Server::new(SimWorld::flat(2));
    server.world.fill([2, -64, -32], [4, -61, 47], "air", &[]);
    let mut sim = server.spawn([0.5, -60.0, 0.5], &[(0, stack(DIRT, 1, 1))]);
    let (r, _) =
        walk(&mut server, &mut sim, r#"{"action":"walk","x":6.5,"y":-60,"z":0.5,"allowPlace":true,"id":"o"}"#, 400);
    assert_eq!(r["walking"], true, "{r:?}");
    let done = walk_done(&sim);
    assert_eq!((done[0]["id"].clone(), done[0]["status"].clone()), (json!("o"), json!("failed")), "{done:?}");
    let reason = done[0]["reason"].as_str().expect("reason");
    assert!(reason.contains("no block to place"), "{reason}");
    assert_eq!(changed(&done[0]), vec![("placed".to_owned(), [2, -61, 0])]);
    assert!(feet(&sim).y > -60.5, "still up: {:?}", feet(&sim));
}

#[test]
fn abort_mid_pillar_ends_the_walk_with_what_was_placed() {
    let mut world = SimWorld::flat(2);
    world.fill([3, -60, -20], [12, -58, 20], "stone", &[]);
    let mut server = Server::new(world);
    let mut sim = server.spawn([0.5, -60.0, 0.5], &[(0, stack(DIRT, 8, 1))]);
    sim.queue_command(r#"{"action":"walk","x":5.5,"y":-57,"z":0.5,"allowPlace":true,"id":"a"}"#);
    let mut stream = Vec::new();
    for _ in 0..300 {
        sim.tick();
        stream.extend(server.serve(&mut sim));
        if server.log.len() == 1 && feet(&sim).y > -58.9 {
            break;
        }
    }
    assert_eq!(server.log.len(), 1, "one block placed");
    // A place command meanwhile: the hand is lent to the walk.
    let busy = sim.command(r#"{"action":"place","x":0,"y":-60,"z":3}"#);
    assert_eq!(busy["code"], "BUSY", "{busy:?}");
    let r = sim.command(r#"{"action":"abort_walk"}"#);
    assert_eq!((r["aborted"].clone(), r["actionId"].clone()), (json!(true), json!("a")));
    let done = walk_done(&sim);
    assert_eq!((done.len(), done[0]["status"].clone()), (1, json!("aborted")));
    assert_eq!(changed(&done[0]).len(), 1, "{done:?}");
    for _ in 0..30 {
        sim.tick();
        stream.extend(server.serve(&mut sim));
    }
    assert_eq!(server.log.len(), 1, "nothing placed after the abort");
    let a = feet(&sim);
    sim.ticks(5);
    assert!(a.distance(feet(&sim)) < 1e-3, "stands still after the abort");
    assert!((a.y + 59.0).abs() < 0.05, "on the one block placed: {a:?}");
    assert_plausible(&stream);
    // The hand is free again.
    let r = sim.command(r#"{"action":"place","item":"dirt","x":0,"y":-59,"z":3}"#);
    assert!(r.get("code").is_none_or(|c| c != "BUSY"), "{r:?}");
}

#[test]
fn abort_right_after_a_pillar_click_closes_the_use_as_a_client_does() {
    let mut world = SimWorld::flat(2);
    world.fill([3, -60, -20], [12, -58, 20], "stone", &[]);
    let mut server = Server::new(world);
    let mut sim = server.spawn([0.5, -60.0, 0.5], &[(0, stack(DIRT, 8, 1))]);
    sim.queue_command(r#"{"action":"walk","x":5.5,"y":-57,"z":0.5,"allowPlace":true,"id":"c"}"#);
    for _ in 0..300 {
        sim.tick();
        server.serve(&mut sim);
        if !server.log.is_empty() {
            break;
        }
    }
    // The click went out this tick; its stop is due three ticks later.
    assert_eq!(server.log.len(), 1, "one block placed");
    let uses = |s: &Server, a: &str| s.player_actions.iter().filter(|x| *x == a).count();
    assert_eq!((uses(&server, "start_item_use_on"), uses(&server, "stop_item_use_on")), (1, 0));
    sim.queue_command(r#"{"action":"abort_walk"}"#);
    sim.tick();
    server.serve(&mut sim);
    assert_eq!(walk_done(&sim)[0]["status"], "aborted");
    assert_eq!(uses(&server, "stop_item_use_on"), 1, "the abort closes the open use: {:?}", server.player_actions);
    for _ in 0..10 {
        sim.tick();
        server.serve(&mut sim);
    }
    assert_eq!(uses(&server, "stop_item_use_on"), 1, "and only once: {:?}", server.player_actions);
}

#[test]
fn death_mid_dig_ends_the_walk_and_calls_the_break_off() {
    let mut world = SimWorld::flat(2);
    world.fill([3, -60, -32], [3, -59, 47], "stone", &[]);
    let mut server = Server::new(world);
    let mut sim = server.spawn([0.5, -60.0, 0.5], &[(0, stack(BREAD, 3, 1))]);
    sim.queue_command(r#"{"action":"walk","x":6.5,"y":-60,"z":0.5,"allowDig":true,"id":"k"}"#);
    let mut actions: Vec<String> = Vec::new();
    for _ in 0..200 {
        sim.tick();
        let inputs = server.serve(&mut sim);
        actions.extend(inputs.iter().flat_map(|i| i.block_action.iter().flatten().map(|a| a.action.clone())));
        if actions.iter().filter(|a| *a == "continue_break").count() >= 5 {
            break;
        }
    }
    assert_eq!(actions.iter().filter(|a| *a == "start_break").count(), 1, "{actions:?}");
    sim.receive(&SetHealth { health: 0 });
    sim.receive(&DeathInfo { cause: "death.attack.mob".into(), messages: vec![] });
    let mut after: Vec<String> = Vec::new();
    for _ in 0..4 {
        sim.tick();
        let inputs = server.serve(&mut sim);
        after.extend(inputs.iter().flat_map(|i| i.block_action.iter().flatten().map(|a| a.action.clone())));
    }
    let done = walk_done(&sim);
    assert_eq!(
        (done.len(), done[0]["id"].clone(), done[0]["status"].clone(), done[0]["reason"].clone()),
        (1, json!("k"), json!("failed"), json!("died"))
    );
    assert!(done[0].get("changed").is_none(), "nothing was mined: {done:?}");
    assert_eq!(after.iter().filter(|a| *a == "abort_break").count(), 1, "{after:?}");
    assert_eq!(after.last().map(String::as_str), Some("abort_break"), "no break after the abort: {after:?}");
    assert!(server.log.is_empty());
    let _ = sim.decode_all::<PlayerAction>(&[]);
}
