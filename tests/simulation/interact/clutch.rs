//! auto_clutch: a falling bot pours water on the landing block's top face the tick that face comes
//! within reach, before the feet reach it, and fills the bucket again after the landing; the
//! receipt reports what the (simulated) server answered: the block, the bucket, the health.

use clawcraft::protocol::packets::{
    Attribute, ContainerOpen, InventorySlot, InventoryTransaction, ItemInstance, ItemStackRequest, ItemStackResponse,
    MovePlayer, PlayerAuthInput, ResponseSlot, UpdateAttributes, Vec3,
};
use clawcraft::sim::SIM_RUNTIME_ID;
use clawcraft::world::block::StateValue::Int;
use serde_json::{Map, Value, json};

use super::world::*;

/// Survival reach, eye to the point clicked.
const REACH: f32 = 5.0;
/// The top of the flat terrain: the feet stand at −60 on grass at −61.
const GROUND: f32 = -60.0;

fn slot(w: &mut Sim, slot: u32, item: ItemInstance) {
    w.sim.receive(&InventorySlot { window_id: "inventory".into(), slot, item, ..InventorySlot::default() });
}

fn health(current: f32) -> UpdateAttributes {
    UpdateAttributes {
        runtime_entity_id: SIM_RUNTIME_ID,
        attributes: vec![Attribute {
            min: 0.0,
            max: 20.0,
            current,
            default_min: 0.0,
            default_max: 20.0,
            default: 20.0,
            name: "minecraft:health".into(),
            modifiers: Vec::new(),
        }],
        tick: 0,
    }
}

/// The server moves the bot's feet to (0.5, `feet`, 0.5), at rest.
fn teleport(w: &mut Sim, feet: f32) {
    w.sim.receive(&MovePlayer {
        runtime_id: SIM_RUNTIME_ID as _,
        position: Vec3 { x: 0.5, y: feet + 1.62, z: 0.5 },
        mode: "teleport".into(),
        ..MovePlayer::default()
    });
}

/// One tick's packets: the eye of its PlayerAuthInput (and its delta), and its `click_block` uses
/// (sent before that input in the tick).
struct Tick {
    eye: f32,
    pitch: f32,
    delta: f32,
    clicks: Vec<clawcraft::protocol::packets::UseItem>,
    click_before_input: bool,
}

fn tick(w: &mut Sim) -> Tick {
    w.sim.tick();
    let bodies = w.sim.sent_bodies();
    let inputs = w.sim.decode_all::<PlayerAuthInput>(&bodies);
    let clicks: Vec<_> = w
        .sim
        .decode_all::<InventoryTransaction>(&bodies)
        .iter()
        .filter_map(InventoryTransaction::use_item_data)
        .filter(|u| u.action_type == "click_block")
        .collect();
    // Transactions and inputs in the order they left.
    let order: Vec<bool> = bodies
        .iter()
        .filter_map(|b| {
            let one = std::slice::from_ref(b);
            if !w.sim.decode_all::<PlayerAuthInput>(one).is_empty() {
                Some(true)
            } else if !w.sim.decode_all::<InventoryTransaction>(one).is_empty() {
                Some(false)
            } else {
                None
            }
        })
        .collect();
    let first_input = order.iter().position(|i| *i);
    let first_tx = order.iter().position(|i| !*i);
    let input = inputs.last().expect("an input every tick");
    Tick {
        eye: input.position.y,
        pitch: input.pitch,
        delta: input.delta.y,
        clicks,
        click_before_input: matches!((first_tx, first_input), (Some(t), Some(i)) if t < i),
    }
}

fn last(w: &Sim, kind: &str) -> Option<Map<String, Value>> {
    w.events_of(kind).pop()
}

/// Ticks until a `click_block` goes out; returns the eyes and deltas of the inputs before it,
/// and the tick.
fn fall_until_click(w: &mut Sim, max: usize) -> (Vec<f32>, Vec<f32>, Tick) {
    let (mut eyes, mut deltas) = (Vec::new(), Vec::new());
    for _ in 0..max {
        let t = tick(w);
        if !t.clicks.is_empty() {
            return (eyes, deltas, t);
        }
        assert!(last(w, "clutch_done").is_none(), "the clutch ended without a click: {:?}", last(w, "clutch_done"));
        eyes.push(t.eye);
        deltas.push(t.delta);
    }
    panic!("no click within {max} ticks; eyes {eyes:?}");
}

#[test]
fn a_fast_fall_gets_water_on_the_landing_block_the_tick_it_is_in_reach_and_the_bucket_back() {
    let mut w = world(&[], &[(0, stack(DIRT, 5, 1)), (1, stack(WATER_BUCKET, 1, 2))]);
    w.sim.receive(&health(20.0));
    let r = w.ok(r#"{"action":"policy","name":"auto_clutch"}"#);
    assert_eq!((r["enabled"].clone(), r["minFall"].clone()), (json!(true), json!(3.0)));
    teleport(&mut w, 280.0);
    let (eyes, deltas, click_tick) = fall_until_click(&mut w, 400);
    let announced = last(&w, "policy_action").expect("policy_action");
    assert_eq!((announced["policy"].clone(), announced["command"].clone()), (json!("auto_clutch"), json!("clutch")));

    // Fast: near terminal speed (3.92 blocks a tick).
    let speed = -deltas.last().expect("inputs before");
    assert!(speed > 3.5, "a fast fall: {speed} blocks a tick");
    // The click: the grass under the feet, its top face, the water bucket from hotbar slot 1,
    // looking straight down, before the tick's input.
    let c = &click_tick.clicks[0];
    assert_eq!((c.block_position.x, c.block_position.y, c.block_position.z, c.face), (0, -61, 0, 1));
    assert_eq!((c.hotbar_slot, ItemInstance::of_stack(&c.held_item).network_id), (1, WATER_BUCKET));
    assert_eq!(c.block_runtime_id, w.id("grass_block", &[]));
    assert!(click_tick.click_before_input, "the click leaves before the tick's input");
    // The server judges it from the last input's eye: in reach then, and not a tick earlier.
    let server_eye = *eyes.last().expect("inputs before");
    assert!((c.player_pos.y - server_eye).abs() < 1e-3, "the click's eye is the last input's: {}", c.player_pos.y);
    assert!(server_eye - GROUND <= REACH, "in reach: eye {server_eye}");
    let before = eyes[eyes.len() - 2];
    assert!(before - GROUND > REACH, "the tick before was out of reach: eye {before}");
    // The feet have not reached the water cell (−60..−59) by then.
    assert!(eyes.iter().all(|e| e - 1.62 > -59.0), "no input in the water cell before the click");
    assert!(click_tick.pitch > 89.9, "looking straight down: pitch {}", click_tick.pitch);

    // The server puts the water there and gives an empty bucket back.
    let water = w.id("water", &[("liquid_depth", Int(0))]);
    w.set_block([0, -60, 0], water);
    slot(&mut w, 1, stack(BUCKET, 1, 3));
    // The landing, then the refill: a click on the water itself with the empty bucket.
    let mut fill = None;
    for _ in 0..20 {
        let t = tick(&mut w);
        if let Some(c) = t.clicks.first() {
            fill = Some((c.clone(), t.eye));
            break;
        }
    }
    let (f, eye) = fill.expect("a refill click");
    assert!((eye - (GROUND + 1.62)).abs() < 0.01, "on the ground in the water: eye {eye}");
    assert_eq!((f.block_position.x, f.block_position.y, f.block_position.z), (0, -60, 0), "the water cell");
    assert_eq!(f.block_runtime_id, water);
    assert_eq!((f.hotbar_slot, ItemInstance::of_stack(&f.held_item).network_id), (1, BUCKET));
    let air = w.id("air", &[]);
    w.set_block([0, -60, 0], air);
    slot(&mut w, 1, stack(WATER_BUCKET, 1, 4));
    for _ in 0..15 {
        tick(&mut w);
    }
    let d = last(&w, "clutch_done").expect("clutch_done");
    assert_eq!((d["status"].clone(), d["id"].clone()), (json!("done"), announced["actionId"].clone()), "{d:?}");
    assert_eq!(
        (d["water"].clone(), d["clicked"].clone(), d["face"].clone()),
        (json!({"x": 0, "y": -60, "z": 0}), json!({"x": 0, "y": -61, "z": 0}), json!(1))
    );
    assert_eq!(
        (d["placed"].clone(), d["pickedUp"].clone(), d["landed"].clone()),
        (json!(true), json!(true), json!(true))
    );
    assert_eq!((d["hurt"].clone(), d["damage"].clone()), (json!(false), json!(0.0)));
    assert_eq!(d["waterBuckets"], json!({"before": 1, "after": 1}));
    assert_eq!(d["leadTicks"], json!(1), "at this speed the last tick before the landing is the only one in reach");
    let fall = d["fallDistance"].as_f64().expect("fall");
    assert!((fall - 340.0).abs() < 0.01, "fell from 280 to −60: {fall}");
    let reach = d["reach"].as_f64().expect("reach");
    assert!(reach <= 5.0 && (reach - f64::from(server_eye - GROUND)).abs() < 0.01, "straight down: {reach}");
    // The hand is free again, and a new fall may be clutched.
    assert!(w.sim.events().iter().filter(|e| e["type"] == "clutch_done").count() == 1);
}

#[test]
fn out_of_reach_at_the_last_tick_no_water_and_the_servers_damage_in_the_receipt() {
    let mut w = world(&[], &[(0, stack(DIRT, 5, 1)), (1, stack(WATER_BUCKET, 1, 2))]);
    w.sim.receive(&health(20.0));
    w.ok(r#"{"action":"policy","name":"auto_clutch"}"#);
    // A height whose last airborne input is more than 3.38 blocks above the ground.
    teleport(&mut w, FAR_FALL);
    let mut eyes = Vec::new();
    for _ in 0..400 {
        let t = tick(&mut w);
        assert!(t.clicks.is_empty(), "no click out of reach");
        eyes.push(t.eye);
        if (t.eye - (GROUND + 1.62)).abs() < 1e-3 {
            break;
        }
    }
    let last_air = eyes[eyes.len() - 2];
    assert!(last_air - GROUND > REACH, "the last input before the landing was out of reach: {last_air}");
    // The server's fall damage.
    w.sim.receive(&health(3.0));
    for _ in 0..12 {
        tick(&mut w);
    }
    let d = last(&w, "clutch_done").expect("clutch_done");
    assert_eq!(d["status"], "failed", "{d:?}");
    assert!(d["reason"].as_str().is_some_and(|r| r.contains("never in reach")), "{d:?}");
    assert_eq!(
        (d["placed"].clone(), d["water"].clone(), d["pickedUp"].clone()),
        (json!(false), Value::Null, json!(false))
    );
    assert_eq!(
        (d["hurt"].clone(), d["damage"].clone(), d["healthAfter"].clone()),
        (json!(true), json!(17.0), json!(3.0))
    );
}

/// A fall whose last airborne tick is out of reach.
const FAR_FALL: f32 = 282.25;

#[test]
fn a_bucket_in_the_main_inventory_is_swapped_in_during_the_fall_and_short_falls_are_left_alone() {
    let mut w = world(&[], &[(0, stack(DIRT, 5, 1)), (12, stack(WATER_BUCKET, 1, 2))]);
    w.ok(r#"{"action":"policy","name":"auto_clutch","minFall":4}"#);
    // A 3-block drop: no action (within minFall).
    teleport(&mut w, -57.0);
    for _ in 0..20 {
        assert!(tick(&mut w).clicks.is_empty());
    }
    assert!(last(&w, "policy_action").is_none(), "a short fall is left alone");
    // A long one: the swap is requested at once.
    teleport(&mut w, -30.0);
    let mut request = None;
    for _ in 0..8 {
        w.sim.tick();
        w.sim.receive(&ContainerOpen {
            window_id: "inventory".into(),
            window_type: "inventory".into(),
            ..ContainerOpen::default()
        });
        if let Some(r) = w.sim.sent_as::<ItemStackRequest>().into_iter().next() {
            request = Some(r);
            break;
        }
    }
    let req = request.expect("the water bucket is swapped into the hand");
    assert_eq!(req.requests[0].actions[0].type_id, "swap");
    w.sim.receive(&ItemStackResponse::ok(
        req.requests[0].request_id,
        vec![("hotbar", vec![ResponseSlot::stack(0, 1, 2)]), ("inventory", vec![ResponseSlot::stack(12, 5, 1)])],
    ));
    let (_, _, t) = fall_until_click(&mut w, 60);
    let c = &t.clicks[0];
    assert_eq!((c.hotbar_slot, ItemInstance::of_stack(&c.held_item).network_id), (0, WATER_BUCKET));
    assert_eq!((c.block_position.y, c.face), (-61, 1));
    // The agent's hand commands are BUSY while it runs.
    assert_eq!(w.code(r#"{"action":"place","x":1,"y":-60,"z":0}"#), "BUSY");
    let off = w.ok(r#"{"action":"policy","name":"auto_clutch","enabled":false}"#);
    assert_eq!(off["acted"], json!(1));
    assert_eq!(w.code(r#"{"action":"policy","name":"auto_eat","minFall":3}"#), "INVALID_PARAMS");
    assert_eq!(w.code(r#"{"action":"policy","name":"auto_clutch","minFall":-1}"#), "OUT_OF_RANGE");
}
