//! Records shared by the entities of every bot: what kind of thing an entity is, and who a
//! player is.
//!
//! Each bot keeps its own ECS entity for every entity its server told it about (the crate docs
//! say why), but the descriptive part that reads the same for every bot — a zombie's
//! identifier, names and category; a player's name, UUID and platform — is one `Arc` per
//! distinct record in the process, handed out by [`EntityRecords`]. Records are looked up by
//! their whole content and never change once made, so sharing one cannot carry anything of one
//! bot's view into another's: a bot told something different gets a different record.

use std::collections::HashSet;
use std::hash::Hash;
use std::sync::Arc;

use bevy_ecs::prelude::Resource;

use crate::table::EntityCategory;

/// Records held before the first prune of unused ones.
const MIN_PRUNE: usize = 256;

/// What kind of thing an entity is (see [`EntityKind`](crate::EntityKind)).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct KindRecord {
    /// Identifier, e.g. `minecraft:zombie` (`minecraft:player`, `minecraft:item` for those).
    pub identifier: String,
    /// Short name, e.g. `zombie`.
    pub name: String,
    /// Human name, e.g. `Zombie` (a player's name for players).
    pub display_name: String,
    /// Hostile, passive, neutral, player, item or other.
    pub category: EntityCategory,
}

/// Who another player is (see [`PlayerInfo`](crate::PlayerInfo)).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct PlayerIdentity {
    /// Player name.
    pub name: String,
    /// UUID (matches the roster).
    pub uuid: String,
    /// Lower-case platform (`windows`, `android`, …), `unknown` when not told.
    pub platform: String,
}

/// Distinct records of one type, each held once. A record no entity uses any more stays until
/// the next prune, which runs when the set has doubled since the last one.
#[derive(Debug)]
pub struct SharedRecords<T> {
    held: HashSet<Arc<T>>,
    prune_at: usize,
}

impl<T> Default for SharedRecords<T> {
    fn default() -> Self {
        Self { held: HashSet::new(), prune_at: MIN_PRUNE }
    }
}

impl<T: Eq + Hash> SharedRecords<T> {
    /// The held record equal to `record`, or `record`, now held.
    pub fn share(&mut self, record: T) -> Arc<T> {
        if let Some(held) = self.held.get(&record) {
            return Arc::clone(held);
        }
        if self.held.len() >= self.prune_at {
            // Only the set holds these: no entity of any bot uses them.
            self.held.retain(|r| Arc::strong_count(r) > 1);
            self.prune_at = (self.held.len() * 2).max(MIN_PRUNE);
        }
        let record = Arc::new(record);
        self.held.insert(Arc::clone(&record));
        record
    }

    /// Records some entity of some bot uses.
    pub fn live(&self) -> usize {
        self.held.iter().filter(|r| Arc::strong_count(r) > 1).count()
    }

    /// Records held, unused ones not yet pruned included.
    pub fn held(&self) -> usize {
        self.held.len()
    }
}

/// The shared records of every bot's entities. A resource of the entity plugin, one per process.
#[derive(Resource, Debug, Default)]
pub struct EntityRecords {
    /// Kinds of entities (one per identifier and version's naming; one per player name).
    pub kinds: SharedRecords<KindRecord>,
    /// Identities of players.
    pub players: SharedRecords<PlayerIdentity>,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn zombie() -> KindRecord {
        KindRecord {
            identifier: "minecraft:zombie".into(),
            name: "zombie".into(),
            display_name: "Zombie".into(),
            category: EntityCategory::Hostile,
        }
    }

    #[test]
    fn equal_records_are_one_and_different_ones_are_not() {
        let mut records = SharedRecords::default();
        let a = records.share(zombie());
        let b = records.share(zombie());
        assert!(Arc::ptr_eq(&a, &b));
        let husk = records.share(KindRecord { identifier: "minecraft:husk".into(), ..zombie() });
        assert!(!Arc::ptr_eq(&a, &husk));
        // A single field different (a category another version's table gives) is another record.
        let neutral = records.share(KindRecord { category: EntityCategory::Neutral, ..zombie() });
        assert!(!Arc::ptr_eq(&a, &neutral));
        assert_eq!((records.held(), records.live()), (3, 3));
    }

    #[test]
    fn unused_records_are_pruned_as_the_set_grows() {
        let mut records = SharedRecords::default();
        let kept: Vec<_> = (0..10).map(|i| records.share(format!("kept {i}"))).collect();
        for i in 0..10 * MIN_PRUNE {
            drop(records.share(format!("passing {i}")));
        }
        assert!(records.held() <= MIN_PRUNE, "{} held", records.held());
        assert_eq!(records.live(), kept.len());
        for (i, k) in kept.iter().enumerate() {
            assert!(Arc::ptr_eq(k, &records.share(format!("kept {i}"))), "kept records survive the prunes");
        }
    }
}
