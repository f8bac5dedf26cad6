//! Items as the bot sees them: [`ItemIds`] (the server's name ↔ network id table, per bot) and
//! [`Item`] (one stack: name, count, durability, stack id, and the exact wire record the server
//! expects back in transactions).

use std::collections::HashMap;
use std::sync::Arc;

use bevy_ecs::prelude::*;
use clawcraft_protocol::packets::{ItemInstance, ItemState};
use schemars::JsonSchema;
use serde::Serialize;

use crate::data::ItemData;

/// Bedrock's enchantment id of Efficiency.
pub const EFFICIENCY: i16 = 15;
/// Bedrock's enchantment id of Aqua Affinity.
pub const AQUA_AFFINITY: i16 = 8;

/// The server's item names and network ids (ItemRegistry), plus the static item data of the
/// connection's game version. One per bot.
#[derive(Component, Debug, Clone)]
pub struct ItemIds {
    by_id: HashMap<i32, Arc<str>>,
    by_name: HashMap<Arc<str>, i32>,
    /// Static facts by name.
    pub data: Option<Arc<ItemData>>,
}

impl ItemIds {
    /// An empty table with the item data of `game_version`.
    pub fn new(game_version: &str) -> Self {
        Self { by_id: HashMap::new(), by_name: HashMap::new(), data: ItemData::for_version_or_newest(game_version) }
    }

    /// Adds the server's entries (ItemRegistry).
    pub fn extend(&mut self, states: &[ItemState]) {
        for s in states {
            let name: Arc<str> = s.name.as_str().into();
            let id = i32::from(s.runtime_id);
            self.by_id.insert(id, Arc::clone(&name));
            self.by_name.insert(name, id);
        }
    }

    /// The name of network id `id`; `item#<id>` when the server never named it.
    pub fn name(&self, id: i32) -> Arc<str> {
        self.by_id.get(&id).cloned().unwrap_or_else(|| format!("item#{id}").into())
    }

    /// The network id of `name` (`minecraft:` optional).
    pub fn id(&self, name: &str) -> Option<i32> {
        self.by_name.get(name).copied().or_else(|| {
            (!name.contains(':')).then(|| self.by_name.get(format!("minecraft:{name}").as_str()).copied()).flatten()
        })
    }

    /// How many items the server named.
    pub fn len(&self) -> usize {
        self.by_id.len()
    }

    /// Whether the server named none yet.
    pub fn is_empty(&self) -> bool {
        self.by_id.is_empty()
    }

    /// Builds the bot's view of a wire item (`None` for air).
    pub fn item(&self, wire: &ItemInstance) -> Option<Item> {
        if wire.is_air() {
            return None;
        }
        let name = self.name(wire.network_id);
        let max = self.data.as_ref().and_then(|d| d.info(&name)).map_or(0, |i| i.durability);
        let damage = wire.tag_int("Damage").unwrap_or(0).max(0);
        Some(Item {
            network_id: wire.network_id,
            name,
            count: wire.count,
            metadata: wire.metadata,
            max_durability: (max > 0).then_some(max),
            durability: (max > 0).then(|| u32::try_from((i64::from(max) - damage).max(0)).unwrap_or(0)),
            stack_id: wire.stack_id,
            enchantments: wire.enchantments(),
            wire: wire.clone(),
        })
    }
}

/// One stack in the bot's inventory.
#[derive(Debug, Clone, PartialEq)]
pub struct Item {
    /// Network id (this server's numbering).
    pub network_id: i32,
    /// Namespaced name, e.g. `minecraft:diamond_pickaxe`.
    pub name: Arc<str>,
    /// Stack size.
    pub count: u16,
    /// Aux value.
    pub metadata: u32,
    /// Uses left, for damageable items.
    pub durability: Option<u32>,
    /// Uses when new, for damageable items.
    pub max_durability: Option<u32>,
    /// The server's stack network id.
    pub stack_id: Option<i32>,
    /// `(enchantment id, level)` pairs.
    pub enchantments: Vec<(i16, i16)>,
    /// The stack exactly as the server sent it (transactions must echo it).
    pub wire: ItemInstance,
}

impl Item {
    /// The name without `minecraft:`.
    pub fn short_name(&self) -> &str {
        self.name.strip_prefix("minecraft:").unwrap_or(&self.name)
    }

    /// Level of enchantment `id` (0 without it).
    pub fn enchantment_level(&self, id: i16) -> u8 {
        self.enchantments.iter().find(|(e, _)| *e == id).map_or(0, |(_, l)| u8::try_from(*l).unwrap_or(0))
    }

    /// Whether `query` names this item: exactly (with or without `minecraft:`).
    pub fn is_named(&self, query: &str) -> bool {
        let q = query.trim().to_ascii_lowercase();
        *self.name == *q || self.short_name() == q
    }

    /// Whether the name contains `query` (case-insensitive).
    pub fn name_contains(&self, query: &str) -> bool {
        let q = query.trim().to_ascii_lowercase();
        !q.is_empty() && self.name.to_ascii_lowercase().contains(&q)
    }

    /// The same stack with another count (a slot after a partial move). The wire record keeps
    /// up with it so transactions echo what the server has.
    pub fn with_count(&self, count: u16) -> Item {
        let mut it = self.clone();
        it.count = count;
        it.wire.count = count;
        it
    }

    /// The agent's view (ClawCraft's item shape).
    pub fn json(&self) -> ItemJson {
        ItemJson {
            network_id: self.network_id,
            name: self.name.to_string(),
            count: self.count,
            metadata: self.metadata,
            durability: self.durability,
            max_durability: self.max_durability,
            stack_id: self.stack_id,
            enchantments: self.enchantments.iter().map(|(id, lvl)| EnchantmentJson { id: *id, level: *lvl }).collect(),
        }
    }
}

/// An item as the agent sees it: `{networkId,name,count,metadata,durability,maxDurability,stackId}`.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ItemJson {
    /// This server's network id.
    pub network_id: i32,
    /// e.g. `minecraft:diamond_pickaxe`.
    pub name: String,
    pub count: u16,
    pub metadata: u32,
    /// Uses left (null for items that do not wear).
    pub durability: Option<u32>,
    /// Uses when new (null for items that do not wear).
    pub max_durability: Option<u32>,
    /// The server's stack network id.
    pub stack_id: Option<i32>,
    /// Enchantments `{id, level}` (Bedrock ids: 15 efficiency, 8 aqua affinity, …).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub enchantments: Vec<EnchantmentJson>,
}

/// One enchantment of an item.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct EnchantmentJson {
    pub id: i16,
    pub level: i16,
}

#[cfg(test)]
mod tests {
    use super::*;
    use clawcraft_protocol::codec::{Nbt, NbtTag};
    use clawcraft_protocol::packets::{ItemExtra, ItemNbt};

    fn ids() -> ItemIds {
        let mut ids = ItemIds::new("1.26.45");
        let st = |name: &str, id: i16| ItemState { name: name.into(), runtime_id: id, ..ItemState::default() };
        ids.extend(&[st("minecraft:diamond_pickaxe", 320), st("minecraft:dirt", 3)]);
        ids
    }

    #[test]
    fn items_get_names_durability_and_enchantments() {
        let ids = ids();
        let wire = ItemInstance {
            network_id: 320,
            count: 1,
            stack_id: Some(9),
            has_stack_id: true,
            extra: ItemExtra {
                has_nbt: "true".into(),
                nbt: Some(ItemNbt {
                    version: 1,
                    nbt: Nbt {
                        name: String::new(),
                        tag: NbtTag::Compound(vec![
                            ("Damage".into(), NbtTag::Int(61)),
                            (
                                "ench".into(),
                                NbtTag::List(
                                    10,
                                    vec![NbtTag::Compound(vec![
                                        ("id".into(), NbtTag::Short(15)),
                                        ("lvl".into(), NbtTag::Short(5)),
                                    ])],
                                ),
                            ),
                        ]),
                    },
                }),
                ..ItemExtra::default()
            },
            ..ItemInstance::default()
        };
        let it = ids.item(&wire).expect("not air");
        assert_eq!(&*it.name, "minecraft:diamond_pickaxe");
        assert_eq!((it.durability, it.max_durability), (Some(1500), Some(1561)));
        assert_eq!(it.enchantment_level(EFFICIENCY), 5);
        assert_eq!(it.stack_id, Some(9));
        assert!(it.is_named("diamond_pickaxe") && it.is_named("minecraft:diamond_pickaxe") && !it.is_named("pickaxe"));
        assert!(it.name_contains("PICK"));
        let dirt = ids.item(&ItemInstance { network_id: 3, count: 5, ..ItemInstance::default() }).expect("dirt");
        assert_eq!((dirt.durability, dirt.max_durability), (None, None));
        let json = serde_json::to_value(dirt.json()).expect("json");
        assert_eq!(json["name"], "minecraft:dirt");
        assert_eq!(json["count"], 5);
        assert!(json["durability"].is_null() && json.get("enchantments").is_none());
        assert!(ids.item(&ItemInstance::air()).is_none());
        assert_eq!(&*ids.name(999), "item#999");
        assert_eq!(ids.id("dirt"), Some(3));
    }
}
