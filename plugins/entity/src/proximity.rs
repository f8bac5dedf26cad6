//! Proximity events, evaluated each tick after packet handling: `player_nearby` /
//! `player_left_nearby` with hysteresis, and `danger` with a per-mob debounce.

use std::collections::{HashMap, HashSet};

use bevy_ecs::prelude::*;
use clawcraft_core::{AgentEvent, Lifecycle, Position, TickCount};

use crate::events::{Danger, PlayerLeftNearby, PlayerNearby};
use crate::table::{EntityCategory, EntityTable};
use crate::{EntityKind, EntityPosition, EntitySettings, PlayerInfo, SeenBy, WorldEntity};

/// A player enters `close` at this distance or less…
pub const CLOSE_ENTER: f64 = 8.0;
/// …and leaves it only beyond this, so a player on the border does not flap.
pub const CLOSE_LEAVE: f64 = 9.0;
/// A player enters `near` at this distance or less…
pub const NEAR_ENTER: f64 = 16.0;
/// …and leaves it beyond this.
pub const NEAR_LEAVE: f64 = 17.0;

/// A proximity zone around the bot.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Zone {
    /// ≤ 16 blocks.
    Near,
    /// ≤ 8 blocks.
    Close,
}

impl Zone {
    /// The JSON name.
    pub fn as_str(self) -> &'static str {
        match self {
            Zone::Near => "near",
            Zone::Close => "close",
        }
    }
}

/// The zone a player at `distance` is in, given the zone it was in (hysteresis: entering uses
/// the `*_ENTER` bounds, leaving the `*_LEAVE` ones).
pub fn next_zone(current: Option<Zone>, distance: f64) -> Option<Zone> {
    match current {
        None if distance <= CLOSE_ENTER => Some(Zone::Close),
        None if distance <= NEAR_ENTER => Some(Zone::Near),
        None => None,
        Some(Zone::Near) if distance <= CLOSE_ENTER => Some(Zone::Close),
        Some(Zone::Near) if distance > NEAR_LEAVE => None,
        Some(Zone::Near) => Some(Zone::Near),
        Some(Zone::Close) if distance > NEAR_LEAVE => None,
        Some(Zone::Close) if distance > CLOSE_LEAVE => Some(Zone::Near),
        Some(Zone::Close) => Some(Zone::Close),
    }
}

/// A bot's proximity state: the zone of each player in one, and when each mob last raised
/// `danger`. Lives on the bot's entity.
#[derive(Component, Debug, Clone, Default, PartialEq)]
pub struct Proximity {
    pub zones: HashMap<Entity, Zone>,
    /// Tick of the last `danger` per mob.
    pub danger_at: HashMap<Entity, u64>,
}

impl Proximity {
    /// Drops the state of a removed entity (no event: `player_disappear` says it).
    pub fn forget(&mut self, entity: Entity) {
        self.zones.remove(&entity);
        self.danger_at.remove(&entity);
    }
}

fn round2(v: f64) -> f64 {
    (v * 100.0).round() / 100.0
}

/// Emits zone changes of the players each spawned bot sees.
pub fn player_zones(
    mut bots: Query<(Entity, &Lifecycle, &Position, &mut Proximity)>,
    players: Query<(Entity, &SeenBy, &EntityPosition, &PlayerInfo)>,
    mut events: MessageWriter<AgentEvent>,
) {
    for (bot, lifecycle, bot_pos, mut proximity) in &mut bots {
        if *lifecycle != Lifecycle::Spawned {
            continue;
        }
        let mut seen = HashSet::new();
        for (entity, seen_by, pos, info) in &players {
            if seen_by.0 != bot {
                continue;
            }
            seen.insert(entity);
            let distance = bot_pos.0.distance(pos.0);
            let old = proximity.zones.get(&entity).copied();
            let new = next_zone(old, distance);
            if new == old {
                continue;
            }
            match new {
                Some(z) => proximity.zones.insert(entity, z),
                None => proximity.zones.remove(&entity),
            };
            let (name, uuid, distance) = (info.name.clone(), info.uuid.clone(), round2(distance));
            if new > old {
                let zone = new.map_or("near", Zone::as_str).to_owned();
                events.write(AgentEvent::of(&PlayerNearby { name, uuid, zone, distance }));
            } else {
                // Leaving `close` for `near` reports `close`; leaving both reports `near`.
                let zone = if new.is_some() { "close" } else { "near" }.to_owned();
                events.write(AgentEvent::of(&PlayerLeftNearby { name, uuid, zone, distance }));
            }
        }
        proximity.zones.retain(|e, _| seen.contains(e));
    }
}

/// Emits `danger` for hostile mobs within `danger_mob_dist`, at most once per debounce window
/// per mob.
pub fn danger(
    mut bots: Query<(Entity, &Lifecycle, &Position, &mut Proximity)>,
    mobs: Query<(Entity, &SeenBy, &EntityKind, &EntityPosition, &WorldEntity)>,
    settings: Res<EntitySettings>,
    tick: Res<TickCount>,
    mut events: MessageWriter<AgentEvent>,
) {
    for (bot, lifecycle, bot_pos, mut proximity) in &mut bots {
        if *lifecycle != Lifecycle::Spawned {
            continue;
        }
        let mut seen = HashSet::new();
        for (entity, seen_by, kind, pos, ids) in &mobs {
            if seen_by.0 != bot || kind.category != EntityCategory::Hostile {
                continue;
            }
            seen.insert(entity);
            let distance = bot_pos.0.distance(pos.0);
            if distance > settings.danger_mob_dist {
                continue;
            }
            let due = proximity.danger_at.get(&entity).is_none_or(|t| tick.0 >= t + settings.danger_debounce_ticks);
            if !due {
                continue;
            }
            proximity.danger_at.insert(entity, tick.0);
            events.write(AgentEvent::of(&Danger {
                threat: kind.name.clone(),
                distance: round2(distance),
                entity_type: EntityTable::get().lookup(&kind.identifier).and_then(|i| i.internal_id),
                identifier: kind.identifier.clone(),
                runtime_id: ids.runtime_id,
                pos: pos.0.rounded(),
            }));
        }
        proximity.danger_at.retain(|e, _| seen.contains(e));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zones_have_hysteresis() {
        assert_eq!(next_zone(None, 20.0), None);
        assert_eq!(next_zone(None, 16.0), Some(Zone::Near));
        assert_eq!(next_zone(None, 8.0), Some(Zone::Close));
        assert_eq!(next_zone(Some(Zone::Close), 8.9), Some(Zone::Close));
        assert_eq!(next_zone(Some(Zone::Close), 9.1), Some(Zone::Near));
        assert_eq!(next_zone(Some(Zone::Close), 17.5), None);
        assert_eq!(next_zone(Some(Zone::Near), 16.9), Some(Zone::Near));
        assert_eq!(next_zone(Some(Zone::Near), 8.5), Some(Zone::Near));
        assert_eq!(next_zone(Some(Zone::Near), 7.9), Some(Zone::Close));
        assert_eq!(next_zone(Some(Zone::Near), 17.1), None);
    }
}
