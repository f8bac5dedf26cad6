//! The entity table: identifier → short name, display name and category, vendored in
//! `data/bedrock/1.26.45/entities.json` (derived from minecraft-data by `data/make-entities.js`,
//! which documents the hostile/neutral/passive rule).

use std::collections::HashMap;
use std::sync::OnceLock;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The embedded table text.
const TABLE_JSON: &str = include_str!("../../../data/bedrock/1.26.45/entities.json");

/// What kind of thing an entity is, for the agent and for `danger`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema, Default)]
#[serde(rename_all = "lowercase")]
pub enum EntityCategory {
    /// Attacks on sight (zombie, skeleton, creeper, …): `danger` fires for these.
    Hostile,
    /// Never attacks (cow, sheep, villager, …).
    Passive,
    /// Attacks only when provoked (wolf, enderman, iron golem, …).
    Neutral,
    /// Another player.
    Player,
    /// A dropped item stack.
    Item,
    /// Projectiles, vehicles, decorations and identifiers the table doesn't know.
    #[default]
    Other,
}

impl EntityCategory {
    /// The lower-case name used in JSON.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Hostile => "hostile",
            Self::Passive => "passive",
            Self::Neutral => "neutral",
            Self::Player => "player",
            Self::Item => "item",
            Self::Other => "other",
        }
    }
}

/// One record of the table.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct EntityInfo {
    /// Identifier, e.g. `minecraft:zombie`.
    pub id: String,
    /// Short name, e.g. `zombie`.
    pub name: String,
    /// Human name, e.g. `Zombie`.
    pub display_name: String,
    /// Category.
    pub category: EntityCategory,
    /// Hit-box height in blocks, when known.
    pub height: Option<f64>,
    /// Hit-box width in blocks, when known.
    pub width: Option<f64>,
}

/// The parsed table, by identifier.
pub struct EntityTable {
    by_id: HashMap<String, EntityInfo>,
}

impl EntityTable {
    /// The embedded table, parsed once per process.
    pub fn get() -> &'static EntityTable {
        static TABLE: OnceLock<EntityTable> = OnceLock::new();
        TABLE.get_or_init(|| {
            // The file is vendored and checked by unit tests, so a parse failure is a build bug;
            // an empty table still leaves every entity tracked (as `other`).
            let list: Vec<EntityInfo> = serde_json::from_str(TABLE_JSON).unwrap_or_else(|e| {
                tracing::error!(error = %e, "entity table does not parse");
                Vec::new()
            });
            EntityTable { by_id: list.into_iter().map(|e| (e.id.clone(), e)).collect() }
        })
    }

    /// The record of `identifier` (`minecraft:zombie` or just `zombie`).
    pub fn lookup(&self, identifier: &str) -> Option<&EntityInfo> {
        if identifier.contains(':') {
            self.by_id.get(identifier)
        } else {
            self.by_id.get(&format!("minecraft:{identifier}"))
        }
    }

    /// Number of records.
    pub fn len(&self) -> usize {
        self.by_id.len()
    }

    /// Whether the table is empty (only if the embedded file failed to parse).
    pub fn is_empty(&self) -> bool {
        self.by_id.is_empty()
    }
}

/// Name, display name and category of an identifier; unknown identifiers (add-on mobs, newer
/// versions) keep their path as name and count as `other`.
pub fn classify(identifier: &str) -> (String, String, EntityCategory) {
    match EntityTable::get().lookup(identifier) {
        Some(info) => (info.name.clone(), info.display_name.clone(), info.category),
        None => {
            let name = identifier.rsplit(':').next().unwrap_or(identifier).to_owned();
            (name.clone(), name, EntityCategory::Other)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_parses_and_is_complete_enough() {
        let t = EntityTable::get();
        assert!(t.len() > 100, "{} records", t.len());
    }

    #[test]
    fn hostile_passive_neutral_classification() {
        let cat = |id: &str| classify(id).2;
        assert_eq!(cat("minecraft:zombie"), EntityCategory::Hostile);
        assert_eq!(cat("minecraft:creeper"), EntityCategory::Hostile);
        assert_eq!(cat("minecraft:skeleton"), EntityCategory::Hostile);
        assert_eq!(cat("minecraft:warden"), EntityCategory::Hostile);
        assert_eq!(cat("minecraft:cow"), EntityCategory::Passive);
        assert_eq!(cat("minecraft:sheep"), EntityCategory::Passive);
        assert_eq!(cat("minecraft:villager_v2"), EntityCategory::Passive);
        assert_eq!(cat("minecraft:skeleton_horse"), EntityCategory::Passive);
        assert_eq!(cat("minecraft:wolf"), EntityCategory::Neutral);
        assert_eq!(cat("minecraft:enderman"), EntityCategory::Neutral);
        assert_eq!(cat("minecraft:iron_golem"), EntityCategory::Neutral);
        assert_eq!(cat("minecraft:zombie_pigman"), EntityCategory::Neutral);
        assert_eq!(cat("minecraft:player"), EntityCategory::Player);
        assert_eq!(cat("minecraft:item"), EntityCategory::Item);
        assert_eq!(cat("minecraft:arrow"), EntityCategory::Other);
        assert_eq!(cat("minecraft:evocation_fang"), EntityCategory::Other);
    }

    #[test]
    fn names_resolve_from_string_identifiers() {
        assert_eq!(classify("minecraft:zombie"), ("zombie".into(), "Zombie".into(), EntityCategory::Hostile));
        assert_eq!(classify("cow").1, "Cow");
        let (name, display, cat) = classify("addon:goblin");
        assert_eq!((name.as_str(), display.as_str(), cat), ("goblin", "goblin", EntityCategory::Other));
    }
}
