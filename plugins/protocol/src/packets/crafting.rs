//! Crafting and container packets: the server's recipes (`crafting_data`: shaped and shapeless
//! recipes with their ingredient descriptors — item names, tags, old numeric ids), a container's
//! progress bars (`container_set_data`: furnace cook/burn progress), and builders for the
//! item-stack request actions a craft sends (`craft_recipe_auto`, `results_deprecated`,
//! `consume`).
//!
//! Layouts: the views follow 1.26.40+ (one array per recipe kind, flat shaped inputs, the
//! `valid`/descriptor ingredient form); `codec/dialect.rs` maps the ≤ 1.26.30 forms (one
//! tagged recipe list, width×height nested inputs, the one-byte ingredient kinds). Furnace
//! recipes, which only ≤ 1.26.30 lists carry, are not in the view: smelting needs none (the
//! server smelts).

use super::{ItemExtra, Rest, StackAction, StackSlot};
use crate::codec::Packet;
use serde::{Deserialize, Serialize};

/// A recipe ingredient (`RecipeIngredient`): `type` `"valid"` with a `descriptor_type` —
/// `"name"` (`name` + `metadata`, 32767 = any variant), `"item_tag"` (`tag`), `"molang"`,
/// `"empty"` — or `"invalid"` (an empty grid cell). Before 1.26.40 servers also name items by
/// network id: those read as descriptor `"int_id_meta"` with `name` `"#<id>"`, and aliases as
/// `"complex_alias"`.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct RecipeIngredient {
    /// `"valid"` or `"invalid"`.
    #[serde(rename = "type")]
    pub kind: String,
    /// `"name"`, `"item_tag"`, `"molang"`, `"empty"` (and the older kinds, see above).
    pub descriptor_type: Option<String>,
    /// Item name (`minecraft:oak_planks`) for `"name"`; `#<network id>` for `"int_id_meta"`.
    pub name: Option<String>,
    /// Variant (32767 / −1: any).
    pub metadata: Option<i32>,
    /// Item tag (`minecraft:planks`) for `"item_tag"`.
    pub tag: Option<String>,
    /// Molang expression.
    pub expression: Option<String>,
    /// Molang version.
    pub version: Option<i16>,
    /// Items of this kind the cell needs.
    pub count: i32,
}

impl RecipeIngredient {
    /// An empty grid cell.
    pub fn empty() -> Self {
        Self { kind: "invalid".into(), metadata: Some(0), ..Self::default() }
    }

    /// `count` items called `name` (any variant).
    pub fn named(name: &str, count: i32) -> Self {
        Self {
            kind: "valid".into(),
            descriptor_type: Some("name".into()),
            name: Some(name.into()),
            metadata: Some(32767),
            count,
            ..Self::default()
        }
    }

    /// `count` items of tag `tag`.
    pub fn tagged(tag: &str, count: i32) -> Self {
        Self {
            kind: "valid".into(),
            descriptor_type: Some("item_tag".into()),
            tag: Some(tag.into()),
            metadata: Some(0),
            count,
            ..Self::default()
        }
    }

    /// Whether the cell is empty (invalid, the `empty` descriptor, or no items).
    pub fn is_empty(&self) -> bool {
        self.kind != "valid" || self.descriptor_type.as_deref() == Some("empty") || self.count <= 0
    }
}

/// An item a recipe makes (`ItemLegacy`).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct RecipeItem {
    /// Network id (the server's item registry).
    pub network_id: i32,
    /// Items made per craft.
    pub count: u16,
    /// Variant.
    pub metadata: u32,
    /// Block state of a block item.
    pub block_runtime_id: i32,
    /// NBT and restrictions.
    pub extra: ItemExtra,
}

/// `ShapedRecipe`: a width×height pattern (cells in row order, `"invalid"` for empty cells).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct ShapedRecipe {
    /// Recipe identifier, e.g. `minecraft:wooden_pickaxe`.
    pub recipe_id: String,
    /// Pattern width (1–3).
    pub width: i32,
    /// Pattern height (1–3).
    pub height: i32,
    /// width × height cells.
    pub input: Vec<RecipeIngredient>,
    /// What one craft makes.
    pub output: Vec<RecipeItem>,
    /// Recipe UUID.
    pub uuid: String,
    /// Where it is crafted: `"crafting_table"` (also the 2×2 grid when it fits), `"stonecutter"`, …
    pub block: String,
    /// Priority among recipes with the same input.
    pub priority: i32,
    /// Whether mirrored patterns match too.
    pub assume_symmetry: bool,
    /// The id item-stack requests name the recipe by.
    pub network_id: u32,
    /// Unlocking requirement (kept as sent).
    #[serde(flatten)]
    pub rest: Rest,
}

/// `ShapelessRecipe`: ingredients in any arrangement.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct ShapelessRecipe {
    /// Recipe identifier.
    pub recipe_id: String,
    /// The ingredients (one entry per cell).
    pub input: Vec<RecipeIngredient>,
    /// What one craft makes.
    pub output: Vec<RecipeItem>,
    /// Recipe UUID.
    pub uuid: String,
    /// Where it is crafted.
    pub block: String,
    /// Priority.
    pub priority: i32,
    /// The id item-stack requests name the recipe by.
    pub network_id: u32,
    /// Unlocking requirement (kept as sent).
    #[serde(flatten)]
    pub rest: Rest,
}

/// `crafting_data` (server → client): the recipes. Shaped and shapeless recipes are typed; the
/// other kinds (multi, shulker box, chemistry, smithing, potions, material reducers) stay in
/// `rest` as sent.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct CraftingData {
    /// Shaped crafting recipes.
    pub shaped_recipes: Vec<ShapedRecipe>,
    /// Shapeless crafting recipes.
    pub shapeless_recipes: Vec<ShapelessRecipe>,
    /// Whether earlier recipes are dropped first.
    pub clear_recipes: bool,
    /// The other recipe kinds.
    #[serde(flatten)]
    pub rest: Rest,
}
packet!(CraftingData, "crafting_data");

/// `container_set_data` (server → client): a progress property of an open window. Furnaces,
/// smokers and blast furnaces: 0 cook time (0–200, ticks of 10 s), 1 burn time left, 2 burn
/// duration of the current fuel (minecraft-data / gophertunnel's `ContainerDataFurnace*`).
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct ContainerSetData {
    /// `WindowID` name (or its number as text).
    pub window_id: String,
    /// Which property.
    pub property: i32,
    /// Its value.
    pub value: i32,
}
packet!(ContainerSetData, "container_set_data");

/// An item a craft expects to make, as `results_deprecated` lists it (1.26.40+: by name;
/// before: by network id — both are given and the dialect keeps what the version has).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct ResultItem {
    /// `"name"`.
    #[serde(rename = "type")]
    pub kind: String,
    /// Legacy kind (0).
    pub legacy_type: u8,
    /// Item name.
    pub name: String,
    /// Variant.
    pub metadata: i32,
    /// Network id (for the ≤ 1.26.30 `ItemLegacy` form).
    pub network_id: i32,
    /// Items made in total.
    pub count: i32,
    /// Block state of a block item.
    pub block_runtime_id: i32,
    /// NBT and restrictions.
    pub extra: ItemExtra,
}

/// An ingredient as `craft_recipe_auto` names it (`RecipeIngredient2`: `"name"` or `"item_tag"`).
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct AutoIngredient {
    /// `"name"`, `"item_tag"` or `"invalid"`.
    #[serde(rename = "type")]
    pub kind: String,
    /// Legacy kind (0).
    pub legacy_type: u8,
    /// Item name, for `"name"`.
    pub name: Option<String>,
    /// Variant, for `"name"`.
    pub metadata: Option<i32>,
    /// Tag, for `"item_tag"`.
    pub tag: Option<String>,
    /// Items.
    pub count: i32,
}

fn value_of<T: Serialize>(v: &T) -> crate::codec::Value {
    crate::codec::to_value(v).unwrap_or_default()
}

impl StackAction {
    /// `craft_recipe_auto`: craft recipe `recipe_network_id` `times` times straight from the
    /// inventory (the recipe book's way; one action for several crafts).
    pub fn craft_auto(recipe_network_id: u32, times: u8, ingredients: &[AutoIngredient]) -> Self {
        let mut rest = Rest::new();
        rest.insert("ingredients".into(), crate::codec::Value::Array(ingredients.iter().map(value_of).collect()));
        Self {
            type_id: "craft_recipe_auto".into(),
            legacy_type_id: 13,
            recipe_network_id: Some(recipe_network_id),
            times_crafted: Some(times),
            rest,
            ..Self::default()
        }
    }

    /// `results_deprecated`: the items the craft makes (servers expect it after a craft).
    pub fn results(items: &[ResultItem], times: u8) -> Self {
        let mut rest = Rest::new();
        rest.insert("result_items".into(), crate::codec::Value::Array(items.iter().map(value_of).collect()));
        Self {
            type_id: "results_deprecated".into(),
            legacy_type_id: 19,
            times_crafted: Some(times),
            rest,
            ..Self::default()
        }
    }

    /// `consume`: `count` items of `source` go into the craft.
    pub fn consume(count: u8, source: StackSlot) -> Self {
        Self {
            type_id: "consume".into(),
            legacy_type_id: 5,
            count: Some(count),
            source: Some(source),
            ..Self::default()
        }
    }
}
