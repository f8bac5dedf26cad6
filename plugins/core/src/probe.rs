//! Views one plugin lends another's commands without a crate dependency between them.
//!
//! `pos` (player plugin) reports the block under the feet, which only the movement plugin can
//! tell (it owns the physics and its collision boxes); `look`/`raycast` (world plugin) report the
//! first entity on the line of sight, which only the entity plugin tracks. Each owner registers a
//! plain function as a resource; a command asks through [`standing_on`] / [`entity_on_ray`] and
//! gets `None` when the owner is not in the app.

use bevy_ecs::prelude::*;
use schemars::JsonSchema;
use serde::Serialize;

use crate::Vec3;

/// A block cell and its name, e.g. what the bot stands on.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct NamedCell {
    pub x: i32,
    pub y: i32,
    pub z: i32,
    /// Namespaced block name, e.g. `minecraft:oak_slab`.
    pub name: String,
}

/// Tells what bot `Entity` stands on (set by the movement plugin).
#[derive(Resource, Clone, Copy)]
pub struct GroundProbe(pub fn(&World, Entity) -> Option<NamedCell>);

/// The block supporting `bot`'s collision box; `None` when airborne, in water, or when no plugin
/// knows.
pub fn standing_on(world: &World, bot: Entity) -> Option<NamedCell> {
    world.get_resource::<GroundProbe>().and_then(|probe| (probe.0)(world, bot))
}

/// A ray from `origin` along the unit vector `direction`, up to `length` blocks.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SightRay {
    pub origin: Vec3,
    pub direction: Vec3,
    pub length: f64,
}

/// An entity a line of sight meets.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SightedEntity {
    /// Runtime id (what `attack` and `nearby`'s `id` use).
    pub runtime_id: u64,
    /// A player's name, a mob's name tag, else its short name (`zombie`).
    pub name: String,
    /// Identifier, e.g. `minecraft:zombie` (`nearby`'s `type`).
    #[serde(rename = "type")]
    pub kind: String,
    /// `player`, `hostile`, `neutral` or `passive`.
    pub category: String,
    /// From the eye to where the ray enters the entity's box.
    pub distance: f64,
    /// Feet position.
    pub pos: Vec3,
}

/// Finds the nearest entity of what bot `Entity` sees on a ray (set by the entity plugin).
#[derive(Resource, Clone, Copy)]
pub struct EntitySight(pub fn(&World, Entity, SightRay) -> Option<SightedEntity>);

/// The nearest player or mob `bot` sees whose box `ray` enters; `None` when none does or no
/// plugin tracks entities.
pub fn entity_on_ray(world: &World, bot: Entity, ray: SightRay) -> Option<SightedEntity> {
    world.get_resource::<EntitySight>().and_then(|sight| (sight.0)(world, bot, ray))
}
