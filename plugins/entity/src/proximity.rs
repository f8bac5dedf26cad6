//! Proximity events, evaluated each tick after packet handling: `player_nearby` /
//! `player_left_nearby` with hysteresis, and `danger` paced by the [`DangerPolicy`].

use std::collections::{HashMap, HashSet};

use bevy_ecs::entity::EntityHashMap;
use bevy_ecs::prelude::*;
use clawcraft_core::{AgentEvent, DangerChange, DangerMode, DangerPolicy, Lifecycle, Position, TickCount, Vec3};

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

/// A bot's proximity state: the zone of each player in one, and the hostile mobs it reported
/// as `danger`. Lives on the bot's entity.
#[derive(Component, Debug, Clone, Default, PartialEq)]
pub struct Proximity {
    pub zones: HashMap<Entity, Zone>,
    /// Mobs reported as `danger` and not yet `gone`.
    pub threats: HashMap<Entity, Threat>,
}

impl Proximity {
    /// Drops the player-zone state of a removed entity (no event: `player_disappear` says it).
    /// A removed threat stays until [`danger`] reports it `gone`.
    pub fn forget(&mut self, entity: Entity) {
        self.zones.remove(&entity);
    }
}

/// How close a hostile mob is, for `danger` (nearer zones compare greater).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum DangerZone {
    /// Within `danger_mob_dist` (default 8 blocks).
    Near,
    /// ≤ [`DANGER_CLOSE`] blocks.
    Close,
    /// ≤ [`DANGER_MELEE`] blocks: within a zombie's reach or a creeper's fuse range.
    Melee,
}

/// A hostile mob this close is in the `melee` zone.
pub const DANGER_MELEE: f64 = 3.0;
/// A hostile mob this close is in the `close` zone.
pub const DANGER_CLOSE: f64 = 5.0;
/// A mob falls back to a farther zone (or out of range: `gone`) only this many blocks beyond
/// its zone's bound, so a mob pacing on a border does not flap.
pub const DANGER_LEAVE_MARGIN: f64 = 2.0;

impl DangerZone {
    /// The JSON name.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Near => "near",
            Self::Close => "close",
            Self::Melee => "melee",
        }
    }

    /// The zone's outer bound in blocks (`near`'s is the danger range).
    fn bound(self, range: f64) -> f64 {
        match self {
            Self::Near => range,
            Self::Close => DANGER_CLOSE,
            Self::Melee => DANGER_MELEE,
        }
    }

    /// The next zone out (`None`: out of range).
    fn outer(self) -> Option<Self> {
        match self {
            Self::Melee => Some(Self::Close),
            Self::Close => Some(Self::Near),
            Self::Near => None,
        }
    }
}

/// The danger zone of a mob at `distance` given the zone it was in, for a danger range of
/// `range` blocks: entering a zone takes being within its bound (and the range), leaving it
/// takes [`DANGER_LEAVE_MARGIN`] more.
pub fn next_danger_zone(current: Option<DangerZone>, distance: f64, range: f64) -> Option<DangerZone> {
    let entered = if distance > range {
        None
    } else if distance <= DANGER_MELEE {
        Some(DangerZone::Melee)
    } else if distance <= DANGER_CLOSE {
        Some(DangerZone::Close)
    } else {
        Some(DangerZone::Near)
    };
    let mut held = current;
    while let Some(z) = held
        && distance > z.bound(range) + DANGER_LEAVE_MARGIN
    {
        held = z.outer();
    }
    held.max(entered)
}

/// A mob reported as `danger`: its zone, when it was last reported, and the last report (so
/// `gone` can name a mob that has already despawned).
#[derive(Debug, Clone, PartialEq)]
pub struct Threat {
    pub zone: DangerZone,
    /// Tick of the last `danger` for it.
    pub reported_at: u64,
    pub last: Danger,
}

fn round2(v: f64) -> f64 {
    (v * 100.0).round() / 100.0
}

/// Run condition of [`player_zones`] and [`danger`]: an entity is tracked, or some bot still
/// holds zone or threat state to clear (an idle bot alone in the world skips both).
pub fn anyone_around(tracked: Query<(), With<SeenBy>>, bots: Query<&Proximity>) -> bool {
    !tracked.is_empty() || bots.iter().any(|p| !p.zones.is_empty() || !p.threats.is_empty())
}

/// The entities of every bot, grouped by bot in one pass over the entities, so a per-tick system
/// visits each entity once rather than once per bot (each entity is [`SeenBy`] exactly one bot).
/// Within a bot the entities keep the query's order, the order of their events.
#[derive(Debug, Default)]
pub struct ByBot {
    groups: EntityHashMap<Vec<Entity>>,
}

impl ByBot {
    /// Regroups `(bot, entity)` pairs, keeping the groups' allocations. A bot with nothing
    /// in the previous pass loses its group (a bot that left does not stay).
    pub fn regroup(&mut self, pairs: impl IntoIterator<Item = (Entity, Entity)>) {
        self.groups.retain(|_, group| {
            let used = !group.is_empty();
            group.clear();
            used
        });
        for (bot, entity) in pairs {
            self.groups.entry(bot).or_default().push(entity);
        }
    }

    /// The entities of `bot`, in the order they were given.
    pub fn of(&self, bot: Entity) -> &[Entity] {
        self.groups.get(&bot).map_or(&[], Vec::as_slice)
    }
}

/// Emits zone changes of the players each spawned bot sees.
pub fn player_zones(
    mut bots: Query<(Entity, &Lifecycle, &Position, &mut Proximity)>,
    players: Query<(Entity, &SeenBy, &EntityPosition, &PlayerInfo)>,
    mut by_bot: Local<ByBot>,
    mut events: MessageWriter<AgentEvent>,
) {
    by_bot.regroup(players.iter().map(|(entity, seen_by, ..)| (seen_by.0, entity)));
    for (bot, lifecycle, bot_pos, mut proximity) in &mut bots {
        if *lifecycle != Lifecycle::Spawned {
            continue;
        }
        let mine = by_bot.of(bot);
        for &entity in mine {
            let Ok((_, _, pos, info)) = players.get(entity) else { continue };
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
                events.write(AgentEvent::new(PlayerNearby { bot, name, uuid, zone, distance }));
            } else {
                // Leaving `close` for `near` reports `close`; leaving both reports `near`.
                let zone = if new.is_some() { "close" } else { "near" }.to_owned();
                events.write(AgentEvent::new(PlayerLeftNearby { bot, name, uuid, zone, distance }));
            }
        }
        if !proximity.zones.is_empty() {
            let seen: HashSet<Entity> = mine.iter().copied().collect();
            proximity.zones.retain(|e, _| seen.contains(e));
        }
    }
}

/// Emits `danger` for hostile mobs within `danger_mob_dist`, paced by the [`DangerPolicy`].
#[allow(clippy::too_many_arguments)]
pub fn danger(
    mut bots: Query<(Entity, &Lifecycle, &Position, &mut Proximity)>,
    mobs: Query<(Entity, &SeenBy, &EntityKind, &EntityPosition, &WorldEntity)>,
    mut by_bot: Local<ByBot>,
    settings: Res<EntitySettings>,
    policy: Res<DangerPolicy>,
    tick: Res<TickCount>,
    mut events: MessageWriter<AgentEvent>,
) {
    by_bot.regroup(
        mobs.iter()
            .filter(|(_, _, kind, ..)| kind.category == EntityCategory::Hostile)
            .map(|(entity, seen_by, ..)| (seen_by.0, entity)),
    );
    for (bot, lifecycle, bot_pos, mut proximity) in &mut bots {
        if *lifecycle != Lifecycle::Spawned {
            continue;
        }
        let mine = by_bot.of(bot);
        for &entity in mine {
            let Ok((_, _, kind, pos, ids)) = mobs.get(entity) else { continue };
            // Rounded as reported, so a mob reported at 5.0 blocks is in the zone of 5 (the
            // f32 positions of the wire would put it a hair outside).
            let distance = round2(bot_pos.0.distance(pos.0));
            let report = || Danger {
                bot,
                threat: kind.name.clone(),
                distance,
                entity_type: EntityTable::get().lookup(&kind.identifier).and_then(|i| i.internal_id),
                identifier: kind.identifier.clone(),
                runtime_id: ids.runtime_id,
                pos: pos.0.rounded(),
                change: String::new(),
                zone: String::new(),
            };
            let step = ThreatStep { distance, pos: pos.0.rounded(), range: settings.danger_mob_dist, tick: tick.0 };
            let event = match policy.mode {
                DangerMode::Change => step.on_change(&mut proximity.threats, entity, &policy, report),
                DangerMode::Interval => {
                    step.on_interval(&mut proximity.threats, entity, settings.danger_debounce_ticks, report)
                }
            };
            if let Some(e) = event {
                events.write(AgentEvent::new(e));
            }
        }
        if proximity.threats.is_empty() {
            continue;
        }
        // Despawned (or no longer hostile): gone, with what was last known.
        let seen: HashSet<Entity> = mine.iter().copied().collect();
        let mode = policy.mode;
        proximity.threats.retain(|entity, threat| {
            if seen.contains(entity) {
                return true;
            }
            if mode == DangerMode::Change {
                threat.last.change = DangerChange::Gone.as_str().to_owned();
                events.write(AgentEvent::new(threat.last.clone()));
            }
            false
        });
    }
}

/// One mob's part in one [`danger`] pass.
struct ThreatStep {
    distance: f64,
    pos: Vec3,
    range: f64,
    tick: u64,
}

impl ThreatStep {
    /// `change` mode: `new`, `closer`, `gone` (out of range) or a due `repeat`.
    fn on_change(
        &self,
        threats: &mut HashMap<Entity, Threat>,
        entity: Entity,
        policy: &DangerPolicy,
        report: impl FnOnce() -> Danger,
    ) -> Option<Danger> {
        let old = threats.get(&entity).map(|t| t.zone);
        let new = next_danger_zone(old, self.distance, self.range);
        let change = match (old, new) {
            (None, None) => return None,
            (None, Some(_)) => DangerChange::New,
            (Some(_), None) => {
                let mut last = threats.remove(&entity)?.last;
                (last.distance, last.pos) = (self.distance, self.pos);
                last.change = DangerChange::Gone.as_str().to_owned();
                return Some(last);
            }
            (Some(o), Some(n)) if n > o => DangerChange::Closer,
            (Some(_), Some(n)) => {
                let threat = threats.get_mut(&entity)?;
                if threat.zone != n {
                    // Farther out: no event, but `gone` names the zone it was last in.
                    threat.zone = n;
                    threat.last.zone = n.as_str().to_owned();
                }
                (threat.last.distance, threat.last.pos) = (self.distance, self.pos);
                if !policy.repeat_due(threat.reported_at, self.tick) {
                    return None;
                }
                DangerChange::Repeat
            }
        };
        let zone = new?;
        let mut event = report();
        event.change = change.as_str().to_owned();
        event.zone = zone.as_str().to_owned();
        threats.insert(entity, Threat { zone, reported_at: self.tick, last: event.clone() });
        Some(event)
    }

    /// `interval` mode (ClawCraft): every `period` ticks while within range.
    fn on_interval(
        &self,
        threats: &mut HashMap<Entity, Threat>,
        entity: Entity,
        period: u64,
        report: impl FnOnce() -> Danger,
    ) -> Option<Danger> {
        // Out of range: nothing (ClawCraft), and its last report still counts when it is back.
        let zone = next_danger_zone(None, self.distance, self.range)?;
        let previous = threats.get(&entity).map(|t| t.reported_at);
        if previous.is_some_and(|t| self.tick < t + period) {
            return None;
        }
        let mut event = report();
        event.change = if previous.is_some() { DangerChange::Repeat } else { DangerChange::New }.as_str().to_owned();
        event.zone = zone.as_str().to_owned();
        threats.insert(entity, Threat { zone, reported_at: self.tick, last: event.clone() });
        Some(event)
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

    #[test]
    fn danger_zones_are_entered_at_their_bound_and_left_two_blocks_beyond() {
        use DangerZone::*;
        assert_eq!(next_danger_zone(None, 8.5, 8.0), None);
        assert_eq!(next_danger_zone(None, 8.0, 8.0), Some(Near));
        assert_eq!(next_danger_zone(None, 4.0, 8.0), Some(Close));
        assert_eq!(next_danger_zone(None, 3.0, 8.0), Some(Melee));
        assert_eq!(next_danger_zone(None, 3.0, 2.0), None, "nothing beyond the range");
        assert_eq!(next_danger_zone(Some(Close), 6.9, 8.0), Some(Close), "pacing within the margin");
        assert_eq!(next_danger_zone(Some(Close), 7.1, 8.0), Some(Near));
        assert_eq!(next_danger_zone(Some(Melee), 7.1, 8.0), Some(Near), "several zones out at once");
        assert_eq!(next_danger_zone(Some(Near), 9.9, 8.0), Some(Near));
        assert_eq!(next_danger_zone(Some(Close), 10.1, 8.0), None);
        assert_eq!(next_danger_zone(Some(Near), 2.0, 8.0), Some(Melee));
    }
}
