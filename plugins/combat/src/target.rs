//! Naming what to fight or flee from: a player name, a mob name (`zombie`, `minecraft:zombie`) or
//! custom name, or a runtime id, resolved to the nearest matching entity the bot sees.

use bevy_ecs::prelude::*;
use clawcraft_core::{CommandError, Vec3};
use clawcraft_entity::{
    EntityCategory, EntityKind, EntityPosition, EntityTable, NameTag, PlayerInfo, SeenBy, WorldEntity,
};
use schemars::JsonSchema;
use serde::Serialize;
use serde_json::Value;

/// Height used when the entity table does not know the kind.
const DEFAULT_HEIGHT: f64 = 1.8;

/// An entity named in a command or a receipt.
#[derive(Serialize, JsonSchema, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct Target {
    pub name: String,
    pub runtime_id: u64,
}

/// A resolved target.
#[derive(Debug, Clone)]
pub struct Found {
    /// The entity plugin's entity.
    pub entity: Entity,
    pub target: Target,
    pub unique_id: i64,
    pub pos: Vec3,
    /// Hit-box height (the aim point is half way up).
    pub height: f64,
    pub category: EntityCategory,
}

/// Height of an entity kind from the entity table.
pub fn height_of(identifier: &str) -> f64 {
    EntityTable::get().lookup(identifier).and_then(|i| i.height).unwrap_or(DEFAULT_HEIGHT)
}

/// How a command names an entity: a runtime id (number or digits) or a name.
pub enum Query {
    Id(u64),
    Name(String),
}

impl Query {
    pub fn parse(v: &Value) -> Result<Self, CommandError> {
        match v {
            Value::Number(n) => {
                n.as_u64().map(Query::Id).ok_or_else(|| CommandError::invalid_params("entity id must be a runtime id"))
            }
            Value::String(s) if s.trim().is_empty() => Err(CommandError::invalid_params("entity must not be empty")),
            Value::String(s) => {
                Ok(s.trim().parse::<u64>().map_or_else(|_| Query::Name(s.trim().to_ascii_lowercase()), Query::Id))
            }
            _ => Err(CommandError::invalid_params("entity must be a name or a runtime id")),
        }
    }
}

/// The nearest entity `bot` sees that `query` names (items are never targets).
pub fn find(world: &mut World, bot: Entity, query: &Query, from: Vec3) -> Option<Found> {
    let mut q = world.query::<(
        Entity,
        &SeenBy,
        &WorldEntity,
        &EntityPosition,
        &EntityKind,
        Option<&PlayerInfo>,
        Option<&NameTag>,
    )>();
    let full = match query {
        Query::Name(n) if !n.contains(':') => format!("minecraft:{n}"),
        Query::Name(n) => n.clone(),
        Query::Id(_) => String::new(),
    };
    q.iter(world)
        .filter(|(_, seen, _, _, kind, ..)| seen.0 == bot && kind.category != EntityCategory::Item)
        .filter(|(_, _, w, _, kind, player, tag)| match query {
            Query::Id(id) => w.runtime_id == *id,
            Query::Name(n) => {
                kind.name.eq_ignore_ascii_case(n)
                    || kind.identifier.eq_ignore_ascii_case(n)
                    || kind.identifier.eq_ignore_ascii_case(&full)
                    || player.is_some_and(|p| p.name.eq_ignore_ascii_case(n))
                    || tag.is_some_and(|t| t.0.eq_ignore_ascii_case(n))
            }
        })
        .map(|(entity, _, w, p, kind, player, _)| Found {
            entity,
            target: Target {
                name: player.map_or_else(|| kind.name.clone(), |pl| pl.name.clone()),
                runtime_id: w.runtime_id,
            },
            unique_id: w.unique_id,
            pos: p.0,
            height: if kind.category == EntityCategory::Player { 1.8 } else { height_of(&kind.identifier) },
            category: kind.category,
        })
        .min_by(|a, b| a.pos.distance(from).total_cmp(&b.pos.distance(from)))
}

/// [`find`], or `NOT_FOUND` in ClawCraft's words.
pub fn find_or_err(world: &mut World, bot: Entity, entity: &Value, from: Vec3) -> Result<Found, CommandError> {
    let query = Query::parse(entity)?;
    find(world, bot, &query, from).ok_or_else(|| CommandError::new("NOT_FOUND", "Entity not found"))
}
