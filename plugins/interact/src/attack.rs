//! `attack`: hit an entity (a player by name, a mob by name or custom name, or any entity by
//! runtime id) within reach — an arm swing and an `item_use_on_entity` attack transaction, as a
//! real client sends them — and report what the server showed: its hurt animation, the health it
//! sent, its death animation (`killed`). No sign within half a second → `failed`, `no_hit`.

use bevy_ecs::prelude::*;
use bevy_ecs::world::EntityRef;
use clawcraft_core::{
    ActionSlot, ActionStatus, AgentCommand, AsyncAction, AsyncInfo, CommandCtx, CommandError, EYE_HEIGHT, EndActionExt,
    EntityIds, Outcome, Position, TickCount, Vec3,
};
use clawcraft_entity::{EntityCategory, EntityKind, EntityPosition, NameTag, PlayerInfo, SeenBy, WorldEntity};
use clawcraft_inventory::Inventory;
use clawcraft_network::{ClientboundPacket, Connection};
use clawcraft_protocol::packets::{EntityEvent, RemoveEntity, UpdateAttributes};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::common::{ATTACK_REACH, EntityClick, click_entity, hand_free, turn_to};
use crate::use_slot::USE_SLOT;

/// Ticks to wait for a sign of the hit.
const HIT_TICKS: u64 = 10;
/// Ticks after the hurt animation to wait for a death or a health update.
const AFTER_HURT_TICKS: u64 = 4;

/// Who was attacked.
#[derive(Serialize, JsonSchema, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct Target {
    pub name: String,
    pub runtime_id: u64,
}

/// The running `attack` action.
#[derive(Component, Debug, Clone)]
pub struct Attacking {
    pub target: Target,
    unique_id: i64,
    point: Vec3,
    pub distance: f64,
    pub hurt: bool,
    pub killed: bool,
    pub health: Option<f64>,
    hurt_at: Option<u64>,
    sent: Option<u64>,
}

/// `attack_done`.
#[derive(Serialize, JsonSchema, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct AttackDone {
    pub entity: Target,
    /// True when the server showed the hit (hurt animation, health or death).
    pub confirmed: bool,
    /// The server's hurt animation for the target.
    pub hurt: bool,
    /// The target's health the server sent after the hit.
    pub health: Option<f64>,
    /// The server's death animation (or removal after it) for the target.
    pub killed: bool,
}
clawcraft_core::evidence!(
    AttackDone,
    "attack_done",
    "An attack ended: confirmed by the server's hurt animation or health change, killed when it died; failed no_hit otherwise"
);

impl AsyncAction for Attacking {
    const SLOT: ActionSlot = USE_SLOT;
    type Evidence = AttackDone;

    fn evidence(&self, _outcome: &Outcome, _bot: EntityRef<'_>) -> AttackDone {
        AttackDone {
            entity: self.target.clone(),
            confirmed: self.hurt || self.killed || self.health.is_some(),
            hurt: self.hurt,
            health: self.health,
            killed: self.killed,
        }
    }
}

/// `attack`.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Attack {
    /// A player name, a mob name (`zombie`, `minecraft:zombie`) or custom name, or a runtime id.
    pub entity: Value,
}

/// Response of `attack`.
#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct AttackResponse {
    /// True: the hit was sent (the verdict is `attack_done`).
    pub attacked: bool,
    pub entity: Target,
    /// From your feet to the target's.
    pub distance: f64,
    pub confirmed: bool,
}

/// A candidate target.
struct Candidate {
    runtime_id: u64,
    unique_id: i64,
    name: String,
    pos: Vec3,
    height: f64,
}

fn candidates(world: &mut World, bot: Entity) -> Vec<(Candidate, Vec<String>)> {
    let mut q =
        world.query::<(&SeenBy, &WorldEntity, &EntityPosition, &EntityKind, Option<&PlayerInfo>, Option<&NameTag>)>();
    q.iter(world)
        .filter(|(seen, _, _, kind, ..)| seen.0 == bot && kind.category != EntityCategory::Item)
        .map(|(_, w, p, kind, player, tag)| {
            let name = player.map_or_else(|| kind.name.clone(), |pl| pl.name.clone());
            let mut keys = vec![kind.name.to_ascii_lowercase(), kind.identifier.to_ascii_lowercase()];
            if let Some(pl) = player {
                keys.push(pl.name.to_ascii_lowercase());
            }
            if let Some(t) = tag {
                keys.push(t.0.to_ascii_lowercase());
            }
            let height = if kind.category == EntityCategory::Player { 1.8 } else { 1.0 };
            (Candidate { runtime_id: w.runtime_id, unique_id: w.unique_id, name, pos: p.0, height }, keys)
        })
        .collect()
}

impl AgentCommand for Attack {
    const NAME: &'static str = "attack";
    const SUMMARY: &'static str = "Hit an entity (player or mob name, or runtime id) within 5 blocks; async, ends in attack_done with the server's hurt/health/death evidence";
    const EXAMPLE: &'static str = r#"{"action":"attack","entity":"zombie"}"#;
    const ASYNC: Option<AsyncInfo> = Some(AsyncInfo::of::<Attacking>());
    type Response = AttackResponse;

    fn run(self, ctx: &mut CommandCtx<'_>) -> Result<AttackResponse, CommandError> {
        hand_free(ctx)?;
        crate::common::inventory(ctx)?;
        let feet = ctx.world.get::<Position>(ctx.bot).ok_or_else(CommandError::not_spawned)?.0;
        let all = candidates(ctx.world, ctx.bot);
        let by_id = match &self.entity {
            Value::Number(n) => {
                Some(n.as_u64().ok_or_else(|| CommandError::invalid_params("entity id must be a runtime id"))?)
            }
            Value::String(s) => s.trim().parse::<u64>().ok(),
            _ => return Err(CommandError::invalid_params("entity must be a name or a runtime id")),
        };
        let query = self.entity.as_str().map(|s| s.trim().to_ascii_lowercase()).unwrap_or_default();
        let full = if query.contains(':') { query.clone() } else { format!("minecraft:{query}") };
        let found = all
            .into_iter()
            .filter(|(c, keys)| match by_id {
                Some(id) => c.runtime_id == id,
                None => keys.iter().any(|k| *k == query || *k == full),
            })
            .map(|(c, _)| c)
            .min_by(|a, b| a.pos.distance(feet).total_cmp(&b.pos.distance(feet)));
        let Some(t) = found else {
            // ClawCraft's text and code: clients match on both.
            return Err(CommandError::new("NOT_FOUND", "Entity not found"));
        };
        let distance = (t.pos.distance(feet) * 100.0).round() / 100.0;
        if distance > ATTACK_REACH {
            return Err(CommandError::new(
                "OUT_OF_REACH",
                format!("{} is {distance} blocks away; attack reach is {ATTACK_REACH} (walk closer first)", t.name),
            ));
        }
        let point = t.pos.offset_y(t.height * 0.5);
        turn_to(ctx.world, ctx.bot, point);
        let target = Target { name: t.name, runtime_id: t.runtime_id };
        let action = Attacking {
            target: target.clone(),
            unique_id: t.unique_id,
            point,
            distance,
            hurt: false,
            killed: false,
            health: None,
            hurt_at: None,
            sent: None,
        };
        ctx.start(Self::NAME, action, HIT_TICKS + 40)?;
        Ok(AttackResponse { attacked: true, entity: target, distance, confirmed: false })
    }
}

/// Swings and hits, then records the server's signs of the hit.
#[allow(clippy::type_complexity)]
pub fn step_attacking(
    mut commands: Commands,
    mut packets: MessageReader<ClientboundPacket>,
    mut bots: Query<(Entity, &mut Attacking, &Inventory, &mut Connection, &EntityIds, &Position)>,
    ticks: Res<TickCount>,
) {
    let now = ticks.0;
    for pkt in packets.read() {
        let Ok((_, mut a, ..)) = bots.get_mut(pkt.bot) else { continue };
        if a.sent.is_none() {
            continue;
        }
        let rid = a.target.runtime_id;
        if let Some(e) = pkt.view::<EntityEvent>() {
            if e.runtime_entity_id == rid {
                match e.event_id.as_str() {
                    "hurt_animation" => {
                        a.hurt = true;
                        a.hurt_at.get_or_insert(now);
                    }
                    "death_animation" => a.killed = true,
                    _ => {}
                }
            }
        } else if let Some(u) = pkt.view::<UpdateAttributes>() {
            if u.runtime_entity_id == rid
                && let Some(h) = u.attributes.iter().find(|x| x.name == "minecraft:health")
            {
                a.health = Some(f64::from(h.current));
                a.hurt_at.get_or_insert(now);
                if h.current <= 0.0 {
                    a.killed = true;
                }
            }
        } else if let Some(r) = pkt.view::<RemoveEntity>()
            && r.entity_id_self == a.unique_id
            && a.hurt
        {
            a.killed = true;
        }
    }
    for (bot, mut a, inv, mut conn, ids, pos) in &mut bots {
        match a.sent {
            None => {
                let eye = pos.0.offset_y(EYE_HEIGHT);
                click_entity(
                    &mut conn,
                    ids.runtime_id,
                    Some(inv),
                    eye,
                    a.target.runtime_id,
                    a.point,
                    EntityClick::Attack,
                );
                a.sent = Some(now);
            }
            Some(_) if a.killed => commands.end_action(bot, USE_SLOT.name, ActionStatus::Done, None),
            Some(_) if a.hurt_at.is_some_and(|h| now >= h + AFTER_HURT_TICKS) => {
                commands.end_action(bot, USE_SLOT.name, ActionStatus::Done, None);
            }
            Some(at) if now >= at + HIT_TICKS && a.hurt_at.is_none() => {
                commands.end_action(bot, USE_SLOT.name, ActionStatus::Failed, Some("no_hit".into()));
            }
            Some(_) => {}
        }
    }
}
