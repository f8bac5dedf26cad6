//! Static item facts per game version, by name: stack size, durability, food, use time, mining
//! speed per block material, and the Bedrock enchantment ids. Read from
//! `data/bedrock/<version>/items.json` (generated from minecraft-data by `data/gen-items.js`)
//! embedded at build time. Network ids are never here: they come from the server's ItemRegistry
//! (see [`crate::ItemIds`]).

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use serde::Deserialize;

/// The only format version this code reads.
const FORMAT: u32 = 1;

/// Game version used when the connection's version has no embedded item data.
const FALLBACK_VERSION: &str = "1.26.45";

/// `(game version, items.json DEFLATE-compressed)` for every version in `data/versions.txt` that
/// has one (see `clawcraft_protocol::embedded`).
static EMBEDDED: &[(&str, &[u8])] = include!(concat!(env!("OUT_DIR"), "/item_data.rs"));

/// Nutrition of a food (`minecraft:food`).
#[derive(Debug, Clone, Copy, PartialEq, Deserialize)]
pub struct Food {
    /// Hunger points restored.
    pub nutrition: u32,
    /// Saturation modifier (saturation gained = nutrition × modifier × 2).
    pub saturation: f32,
    /// Edible when not hungry (golden apples, chorus fruit, …).
    #[serde(default)]
    pub always: bool,
}

/// Facts about one item.
#[derive(Debug, Clone, PartialEq)]
pub struct ItemInfo {
    /// Namespaced name, e.g. `minecraft:bread`.
    pub name: Arc<str>,
    /// Largest stack.
    pub stack: u32,
    /// Uses before it breaks (0 = not damageable).
    pub durability: u32,
    /// Food values, for edible items.
    pub food: Option<Food>,
    /// Ticks an item use (eating, drinking) takes.
    pub use_ticks: Option<u32>,
    /// Mining speed per block material (`mineable/pickaxe`, `wool`, …); empty for non-tools.
    pub speeds: Vec<(String, f32)>,
}

impl ItemInfo {
    /// The item's mining speed on a block of `material`, if it speeds that material up.
    pub fn speed_on(&self, material: &str) -> Option<f32> {
        self.speeds.iter().find(|(m, _)| m == material).map(|(_, s)| *s)
    }

    /// Whether eating or drinking it is an item use that ends in CompletedUsingItem.
    pub fn is_consumable(&self) -> bool {
        self.food.is_some() || self.use_ticks.is_some()
    }
}

#[derive(Deserialize)]
struct RawItem {
    name: String,
    stack: u32,
    durability: u32,
    food: Option<Food>,
    use_ticks: Option<u32>,
    #[serde(default)]
    speeds: HashMap<String, f32>,
}

#[derive(Deserialize)]
struct ItemFile {
    format: u32,
    game_version: String,
    items: Vec<RawItem>,
    block_materials: HashMap<String, Box<str>>,
    enchantments: HashMap<String, i16>,
}

/// Why item data could not be read.
#[derive(Debug, thiserror::Error)]
pub enum ItemDataError {
    /// No item data is embedded for this game version.
    #[error("no item data embedded for game version {0}")]
    UnknownVersion(String),
    /// Not JSON of the expected shape.
    #[error("item data is malformed: {0}")]
    Parse(#[from] serde_json::Error),
    /// A format this code does not read.
    #[error("item data has format {0}, expected {FORMAT}")]
    Format(u32),
    /// The embedded compressed file is damaged.
    #[error("item data: {0}")]
    Embedded(String),
}

/// Every item of one game version. The tables are vectors sorted by name, searched by binary
/// search: about half the memory of hash maps of owned strings, for a few lookups per action.
#[derive(Debug)]
pub struct ItemData {
    game_version: String,
    /// Sorted by name.
    items: Vec<ItemInfo>,
    /// `(block name, mining material)`, sorted by block name.
    block_materials: Vec<(Box<str>, Box<str>)>,
    /// `(enchantment name, Bedrock id)`, sorted by name.
    enchantments: Vec<(Box<str>, i16)>,
}

/// The value of `key` in a vector of pairs sorted by key.
fn lookup<'a, V>(sorted: &'a [(Box<str>, V)], key: &str) -> Option<&'a V> {
    sorted.binary_search_by(|(k, _)| (**k).cmp(key)).ok().and_then(|i| sorted.get(i)).map(|(_, v)| v)
}

/// A map read from the file as a vector sorted by key.
fn sorted_pairs<V>(map: HashMap<String, V>) -> Vec<(Box<str>, V)> {
    let mut pairs: Vec<(Box<str>, V)> = map.into_iter().map(|(k, v)| (k.into_boxed_str(), v)).collect();
    pairs.sort_unstable_by(|a, b| a.0.cmp(&b.0));
    pairs
}

impl ItemData {
    /// The data of `game_version`, parsed on first use and shared.
    pub fn for_version(game_version: &str) -> Result<Arc<Self>, ItemDataError> {
        static CACHE: OnceLock<Mutex<HashMap<String, Arc<ItemData>>>> = OnceLock::new();
        let cache = CACHE.get_or_init(Default::default);
        // A poisoned lock only means another parser panicked; the map is still valid.
        let mut cache = cache.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(d) = cache.get(game_version) {
            return Ok(Arc::clone(d));
        }
        let packed = EMBEDDED
            .iter()
            .find(|(v, _)| *v == game_version)
            .map(|(_, packed)| *packed)
            .ok_or_else(|| ItemDataError::UnknownVersion(game_version.to_owned()))?;
        let file: ItemFile = serde_json::from_reader(clawcraft_protocol::embedded::reader(packed))?;
        let data = Arc::new(Self::from_file(file)?);
        cache.insert(game_version.to_owned(), Arc::clone(&data));
        Ok(data)
    }

    /// The data of `game_version`, or of the newest embedded version when it has none. `None`
    /// only if the embedded data is unreadable (the tests catch that).
    pub fn for_version_or_newest(game_version: &str) -> Option<Arc<Self>> {
        Self::for_version(game_version).or_else(|_| Self::for_version(FALLBACK_VERSION)).ok()
    }

    /// Parses an `items.json` (see `data/gen-items.js`).
    pub fn from_json(text: &str) -> Result<Self, ItemDataError> {
        Self::from_file(serde_json::from_str(text)?)
    }

    fn from_file(file: ItemFile) -> Result<Self, ItemDataError> {
        if file.format != FORMAT {
            return Err(ItemDataError::Format(file.format));
        }
        let mut items: Vec<ItemInfo> = file
            .items
            .into_iter()
            .map(|r| {
                let mut speeds: Vec<(String, f32)> = r.speeds.into_iter().collect();
                speeds.sort_by(|a, b| a.0.cmp(&b.0));
                ItemInfo {
                    name: r.name.into(),
                    stack: r.stack,
                    durability: r.durability,
                    food: r.food,
                    use_ticks: r.use_ticks,
                    speeds,
                }
            })
            .collect();
        items.sort_by(|a, b| a.name.cmp(&b.name));
        // A name listed twice: the later entry wins, as it did in a map.
        items.reverse();
        items.dedup_by(|later, earlier| later.name == earlier.name);
        items.reverse();
        // Collected in place into the file's (larger) records: give the rest back.
        items.shrink_to_fit();
        Ok(Self {
            game_version: file.game_version,
            items,
            block_materials: sorted_pairs(file.block_materials),
            enchantments: sorted_pairs(file.enchantments),
        })
    }

    /// Which game version this is.
    pub fn game_version(&self) -> &str {
        &self.game_version
    }

    /// Facts about item `name` (`minecraft:` optional).
    pub fn info(&self, name: &str) -> Option<&ItemInfo> {
        match self.item(name) {
            Some(i) => Some(i),
            None if !name.contains(':') => self.item(&format!("minecraft:{name}")),
            None => None,
        }
    }

    /// The item named exactly `name`.
    fn item(&self, name: &str) -> Option<&ItemInfo> {
        self.items.binary_search_by(|i| (*i.name).cmp(name)).ok().and_then(|i| self.items.get(i))
    }

    /// The mining material of block `name` (`"default"` for blocks no tool speeds up).
    pub fn block_material(&self, name: &str) -> &str {
        lookup(&self.block_materials, name).map_or("default", |m| &**m)
    }

    /// The Bedrock id of enchantment `name` (`efficiency` → 15).
    pub fn enchantment_id(&self, name: &str) -> Option<i16> {
        lookup(&self.enchantments, name).copied()
    }

    /// Number of items known.
    pub fn len(&self) -> usize {
        self.items.len()
    }

    /// Whether no item is known.
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn data() -> Arc<ItemData> {
        ItemData::for_version("1.26.45").expect("embedded item data")
    }

    #[test]
    fn embedded_data_has_tools_food_and_materials() {
        let d = data();
        assert!(d.len() > 1500, "{}", d.len());
        let pick = d.info("minecraft:wooden_pickaxe").expect("wooden pickaxe");
        assert_eq!((pick.stack, pick.durability), (1, 59));
        assert_eq!(pick.speed_on("mineable/pickaxe"), Some(2.0));
        assert_eq!(pick.speed_on("mineable/axe"), None);
        assert_eq!(d.info("diamond_pickaxe").and_then(|i| i.speed_on("mineable/pickaxe")), Some(8.0));
        let bread = d.info("minecraft:bread").expect("bread");
        assert_eq!(bread.food, Some(Food { nutrition: 5, saturation: 0.6, always: false }));
        assert!(d.info("minecraft:golden_apple").and_then(|i| i.food).is_some_and(|f| f.always));
        assert_eq!(bread.use_ticks, Some(32));
        assert!(bread.is_consumable());
        assert_eq!(d.info("minecraft:dried_kelp").and_then(|i| i.use_ticks), Some(16));
        assert!(d.info("minecraft:potion").is_some_and(ItemInfo::is_consumable));
        assert!(!d.info("minecraft:dirt").is_some_and(ItemInfo::is_consumable));
        assert_eq!(d.block_material("minecraft:stone"), "mineable/pickaxe");
        assert_eq!(d.block_material("minecraft:grass_block"), "mineable/shovel");
        assert_eq!(d.block_material("minecraft:bed"), "default");
        assert_eq!(d.enchantment_id("efficiency"), Some(15));
        assert_eq!(d.enchantment_id("aqua_affinity"), Some(8));
        let shears = d.info("minecraft:shears").expect("shears");
        assert_eq!(shears.speed_on("wool"), Some(5.0));
        assert_eq!(shears.speed_on("leaves;mineable/hoe"), Some(15.0));
    }

    #[test]
    fn sorted_tables_answer_as_the_json_says() {
        let text = clawcraft_protocol::embedded::inflate(
            EMBEDDED.iter().find(|(v, _)| *v == "1.26.45").map(|(_, p)| *p).expect("embedded 1.26.45"),
        )
        .expect("inflates");
        let json: serde_json::Value = serde_json::from_str(&text).expect("json");
        let d = data();
        let items = json["items"].as_array().expect("items");
        assert_eq!(d.len(), items.len());
        for item in items {
            let name = item["name"].as_str().expect("name");
            let info = d.info(name).unwrap_or_else(|| panic!("{name} missing"));
            assert_eq!(&*info.name, name);
            assert_eq!(Some(u64::from(info.stack)), item["stack"].as_u64(), "{name}");
            assert_eq!(Some(u64::from(info.durability)), item["durability"].as_u64(), "{name}");
            let speeds = item.get("speeds").and_then(|s| s.as_object()).map_or(0, |s| s.len());
            assert_eq!(info.speeds.len(), speeds, "{name}");
            for (material, speed) in item.get("speeds").and_then(|s| s.as_object()).into_iter().flatten() {
                let (ours, theirs) = (info.speed_on(material).map(f64::from), speed.as_f64());
                assert!(ours.zip(theirs).is_some_and(|(a, b)| (a - b).abs() < 1e-6), "{name} on {material}");
            }
        }
        for (block, material) in json["block_materials"].as_object().expect("materials") {
            assert_eq!(Some(d.block_material(block)), material.as_str(), "{block}");
        }
        for (name, id) in json["enchantments"].as_object().expect("enchantments") {
            assert_eq!(d.enchantment_id(name).map(i64::from), id.as_i64(), "{name}");
        }
        assert_eq!(d.info("minecraft:no_such_item"), None);
        assert_eq!(d.block_material("minecraft:no_such_block"), "default");
        assert_eq!(d.enchantment_id("no_such_enchantment"), None);
    }

    #[test]
    fn unknown_versions_fall_back_and_bad_files_are_errors() {
        assert!(ItemData::for_version("0.0.1").is_err());
        assert!(ItemData::for_version_or_newest("0.0.1").is_some());
        assert!(matches!(ItemData::from_json("{}"), Err(ItemDataError::Parse(_))));
        let wrong = r#"{"format":9,"game_version":"x","items":[],"block_materials":{},"enchantments":{}}"#;
        assert!(matches!(ItemData::from_json(wrong), Err(ItemDataError::Format(9))));
    }
}
