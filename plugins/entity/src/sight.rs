//! The first player or mob on a line of sight: `look` and `raycast` (world plugin) ask through
//! [`clawcraft_core::EntitySight`], which this plugin provides.

use bevy_ecs::prelude::*;
use clawcraft_core::{EntityIds, SightRay, SightedEntity, Vec3};
use clawcraft_network::Connection;

use crate::table::{EntityCategory, EntityTable};
use crate::{EntityIndex, EntityKind, EntityPosition, NameTag, PlayerInfo};

/// Hit box of an entity the table has no size for (a player's).
const DEFAULT_SIZE: (f64, f64) = (0.6, 1.8);

/// Where a ray from `origin` along `dir` enters the box `min..max` (slab method), as a distance
/// along `dir` (a unit vector); 0 when it starts inside; `None` when it misses.
fn ray_enters(origin: Vec3, dir: Vec3, min: Vec3, max: Vec3) -> Option<f64> {
    let (mut near, mut far) = (0.0_f64, f64::INFINITY);
    for (o, d, lo, hi) in
        [(origin.x, dir.x, min.x, max.x), (origin.y, dir.y, min.y, max.y), (origin.z, dir.z, min.z, max.z)]
    {
        if d == 0.0 {
            if o < lo || o > hi {
                return None;
            }
            continue;
        }
        let (a, b) = ((lo - o) / d, (hi - o) / d);
        near = near.max(a.min(b));
        far = far.min(a.max(b));
        if near > far {
            return None;
        }
    }
    Some(near)
}

/// Width and height of an entity's hit box: the entity table's, else a player's.
fn hit_box(table: &EntityTable, kind: &EntityKind) -> (f64, f64) {
    table.lookup(&kind.identifier).and_then(|info| Some((info.width?, info.height?))).unwrap_or(DEFAULT_SIZE)
}

/// The nearest player or mob `bot` sees whose hit box `ray` enters within its length (items,
/// projectiles and identifiers the table does not know are left out; so is the bot itself).
pub fn entity_on_ray(world: &World, bot: Entity, ray: SightRay) -> Option<SightedEntity> {
    let index = world.get::<EntityIndex>(bot)?;
    let own = world.get::<EntityIds>(bot).map(|i| i.runtime_id);
    let table = world
        .get::<Connection>(bot)
        .map_or_else(EntityTable::get, |c| EntityTable::for_version(c.protocol().info().game_version));
    let mut best: Option<(f64, Entity, u64, Vec3)> = None;
    for entry in index.entries() {
        let living = matches!(
            entry.category,
            EntityCategory::Player | EntityCategory::Hostile | EntityCategory::Neutral | EntityCategory::Passive
        );
        if !living || Some(entry.runtime_id) == own {
            continue;
        }
        let (Some(pos), Some(kind)) =
            (world.get::<EntityPosition>(entry.entity), world.get::<EntityKind>(entry.entity))
        else {
            continue;
        };
        let (width, height) = hit_box(table, kind);
        let feet = pos.0;
        let min = Vec3::new(feet.x - width / 2.0, feet.y, feet.z - width / 2.0);
        let max = Vec3::new(feet.x + width / 2.0, feet.y + height, feet.z + width / 2.0);
        let Some(t) = ray_enters(ray.origin, ray.direction, min, max) else { continue };
        if t <= ray.length && best.is_none_or(|(nearest, ..)| t < nearest) {
            best = Some((t, entry.entity, entry.runtime_id, feet));
        }
    }
    let (distance, entity, runtime_id, feet) = best?;
    let kind = world.get::<EntityKind>(entity)?;
    let name = match (world.get::<PlayerInfo>(entity), world.get::<NameTag>(entity)) {
        (Some(player), _) => player.name.clone(),
        (None, Some(tag)) => tag.0.clone(),
        (None, None) => kind.name.clone(),
    };
    Some(SightedEntity {
        runtime_id,
        name,
        kind: kind.identifier.clone(),
        category: kind.category.as_str().to_owned(),
        distance: (distance * 100.0).round() / 100.0,
        pos: feet.rounded(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_ray_enters_a_box_at_its_near_face_or_misses_it() {
        let (min, max) = (Vec3::new(2.0, 0.0, -0.5), Vec3::new(3.0, 2.0, 0.5));
        let east = Vec3::new(1.0, 0.0, 0.0);
        assert_eq!(ray_enters(Vec3::new(0.0, 1.0, 0.0), east, min, max), Some(2.0));
        assert_eq!(ray_enters(Vec3::new(0.0, 2.5, 0.0), east, min, max), None, "above it");
        assert_eq!(ray_enters(Vec3::new(4.0, 1.0, 0.0), east, min, max), None, "behind the origin");
        assert_eq!(ray_enters(Vec3::new(2.5, 1.0, 0.0), east, min, max), Some(0.0), "from inside");
        let diagonal = Vec3::new(std::f64::consts::FRAC_1_SQRT_2, 0.0, std::f64::consts::FRAC_1_SQRT_2);
        let t = ray_enters(Vec3::new(0.0, 1.0, -2.0), diagonal, min, max).expect("hits the corner side");
        assert!((t - 2.0 * std::f64::consts::SQRT_2).abs() < 1e-9, "{t}");
    }
}
