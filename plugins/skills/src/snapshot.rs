//! Taking snapshots from the world through the harness's own query commands (`pos`, `vitals`,
//! `block`, `blocks`, `nearby`) — the same answers the agent gets — plus the
//! [`InventoryView`] an inventory plugin keeps on the bot.

use bevy_ecs::prelude::*;
use clawcraft_core::{CommandRegistry, InventoryView, Origin, Vec3};
use serde_json::{Map, Value, json};

use crate::verifier::{BlockCount, Cell, EntitySeen, InventorySeen, Snapshot, SnapshotPlan, count_key};

/// Origin of the requests skills make (helper calls, snapshots); deferred responses for it are
/// picked up by the skill runtime, never sent to a channel.
pub const SKILL_ORIGIN: Origin = u64::MAX - 0x5C11;

/// Runs a query command for `bot`; `None` when it is missing or fails.
pub fn query(world: &mut World, bot: Entity, name: &str, params: Value) -> Option<Map<String, Value>> {
    let entry = world.get_resource::<CommandRegistry>()?.get(name)?.clone();
    let params = params.as_object().cloned().unwrap_or_default();
    entry.invoke(world, bot, json!("skill:snapshot"), SKILL_ORIGIN, params).ok().flatten()
}

fn vec3(v: Option<&Value>) -> Option<Vec3> {
    let v = v?;
    Some(Vec3::new(v.get("x")?.as_f64()?, v.get("y")?.as_f64()?, v.get("z")?.as_f64()?))
}

/// The bot's feet position (through `pos`).
pub fn position(world: &mut World, bot: Entity) -> Option<Vec3> {
    vec3(query(world, bot, "pos", json!({}))?.get("pos"))
}

/// Takes what `plan` asks for.
pub fn capture(world: &mut World, bot: Entity, plan: &SnapshotPlan, tick: u64) -> Snapshot {
    let mut s = Snapshot { tick, position: position(world, bot), ..Snapshot::default() };
    if plan.vitals {
        s.vitals = query(world, bot, "vitals", json!({})).map(|v| {
            ["health", "hunger", "saturation", "absorption", "level", "experience"]
                .iter()
                .filter_map(|k| v.get(*k).and_then(Value::as_f64).map(|n| ((*k).to_owned(), n)))
                .collect()
        });
    }
    for cell in &plan.cells {
        let answer = query(world, bot, "block", json!({"x": cell.x, "y": cell.y, "z": cell.z}));
        let name =
            answer.and_then(|a| a.get("block").and_then(|b| b.get("name")).and_then(Value::as_str).map(String::from));
        s.cells.insert(cell.key(), name);
    }
    if let Some(Cell { x, y, z }) = plan.origin {
        for (block, r) in &plan.counts {
            let box_ =
                json!({"x1": x - r, "y1": y - r, "z1": z - r, "x2": x + r, "y2": y + r, "z2": z + r, "filter": block});
            if let Some(a) = query(world, bot, "blocks", box_) {
                let n = |k: &str| a.get(k).and_then(Value::as_u64).unwrap_or(0);
                s.counts.insert(count_key(block, *r), BlockCount { count: n("count"), unloaded: n("unloaded") });
            }
        }
    }
    if plan.container {
        s.container = query(world, bot, "container", json!({})).map(Value::Object);
    }
    if plan.entities {
        s.entities = query(world, bot, "nearby", json!({"radius": 256})).map(|a| entities(&a));
    }
    s.inventory = world.get::<InventoryView>(bot).map(|inv| InventorySeen {
        items: inv.stacks.iter().fold(Default::default(), |mut m, st| {
            *m.entry(st.name.clone()).or_insert(0) += u64::from(st.count);
            m
        }),
        equipped: inv.equipped.iter().map(|(slot, st)| (slot.clone(), st.name.clone())).collect(),
    });
    s
}

fn entities(answer: &Map<String, Value>) -> Vec<EntitySeen> {
    let lists = answer.get("nearby");
    let mut out = Vec::new();
    for (list, kind, name_key) in [("players", "player", "name"), ("mobs", "mob", "type"), ("items", "item", "item")] {
        for e in lists.and_then(|l| l.get(list)).and_then(Value::as_array).into_iter().flatten() {
            let (Some(id), Some(position)) = (e.get("id").and_then(Value::as_u64), vec3(e.get("position"))) else {
                continue;
            };
            let name = e.get(name_key).and_then(Value::as_str).unwrap_or_default().to_owned();
            out.push(EntitySeen { id, kind: kind.into(), name, position });
        }
    }
    out
}
