//! The server's crafting recipes ([`Recipes`], per bot, from CraftingData) and what the inventory
//! can make of them: ingredient matching (names, old numeric ids, item tags), consumption plans
//! split across stacks, and whether a recipe fits the inventory's 2×2 grid.

use std::collections::HashMap;
use std::sync::Arc;

use bevy_ecs::prelude::*;
use clawcraft_inventory::{Inventory, ItemIds};
use clawcraft_protocol::packets::{CraftingData, RecipeIngredient, RecipeItem};
use schemars::JsonSchema;
use serde::Serialize;

/// Which inventory slots give how many items: `(slot, count)`.
pub type Plan = Vec<(u8, u16)>;
/// What is short: `(ingredient label, items missing)`.
pub type Missing = Vec<(String, u32)>;

/// What an ingredient cell accepts.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Matcher {
    /// One item, by name.
    Name(Arc<str>),
    /// One item, by this server's network id (servers before 1.26.40).
    Id(i32),
    /// Any item of a tag (`minecraft:planks`).
    Tag(Arc<str>),
}

/// The items of the vanilla item tags crafting recipes use, by the rule their members follow
/// (Bedrock's vanilla behaviour pack tags: planks, logs, wool, coals, stone tool materials, …).
/// `None` for a tag this table does not know.
pub fn tag_has(tag: &str, name: &str) -> Option<bool> {
    let n = name.strip_prefix("minecraft:").unwrap_or(name);
    let t = tag.strip_prefix("minecraft:").unwrap_or(tag);
    let burns = |n: &str| !n.starts_with("crimson") && !n.starts_with("warped");
    let log = |n: &str| {
        n.ends_with("_log") || n.ends_with("_wood") || n.ends_with("_stem") || n.ends_with("_hyphae") || n == "log"
    };
    Some(match t {
        "planks" => n.ends_with("_planks") || n == "planks",
        "logs" => log(n),
        "logs_that_burn" => log(n) && burns(n),
        "wooden_slabs" => {
            n.ends_with("_slab")
                && [
                    "oak", "spruce", "birch", "jungle", "acacia", "dark_oak", "mangrove", "cherry", "bamboo",
                    "crimson", "warped", "pale_oak",
                ]
                .iter()
                .any(|w| n.starts_with(w))
        }
        "wool" => n.ends_with("_wool") || n == "wool",
        "coals" => n == "coal" || n == "charcoal",
        "stone_tool_materials" | "stone_crafting_materials" => {
            matches!(n, "cobblestone" | "blackstone" | "cobbled_deepslate")
        }
        "soul_fire_base_blocks" => matches!(n, "soul_sand" | "soul_soil"),
        _ => return None,
    })
}

/// One ingredient of a recipe: what it accepts and how many per craft (equal cells merged).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ingredient {
    pub matcher: Matcher,
    pub count: u32,
}

impl Ingredient {
    /// Whether an item called `name` (network id `id`) is accepted.
    pub fn accepts(&self, name: &str, id: i32) -> bool {
        match &self.matcher {
            Matcher::Name(n) => same_name(n, name),
            Matcher::Id(i) => *i == id,
            Matcher::Tag(t) => tag_has(t, name).unwrap_or(false),
        }
    }

    /// How the agent sees it: an item name or `tag:<tag>`.
    pub fn label(&self, ids: &ItemIds) -> String {
        match &self.matcher {
            Matcher::Name(n) => n.to_string(),
            Matcher::Id(i) => ids.name(*i).to_string(),
            Matcher::Tag(t) => format!("tag:{t}"),
        }
    }
}

fn same_name(a: &str, b: &str) -> bool {
    a.strip_prefix("minecraft:").unwrap_or(a) == b.strip_prefix("minecraft:").unwrap_or(b)
}

/// Which inventory slots give `times` × `inputs` (a recipe's ingredients, a trade's payment):
/// `(slot, count)` in the order they are taken, split across stacks. `Err` lists what is missing
/// `(label, short by)`.
pub fn plan_inputs(inputs: &[Ingredient], inv: &Inventory, ids: &ItemIds, times: u32) -> Result<Plan, Missing> {
    let mut left: Vec<u32> = inv.slots.iter().map(|s| s.as_ref().map_or(0, |i| u32::from(i.count))).collect();
    let mut plan: Vec<(u8, u16)> = Vec::new();
    let mut missing = Vec::new();
    for ing in inputs {
        let mut need = ing.count.saturating_mul(times);
        for (slot, item) in inv.indexed() {
            if need == 0 {
                break;
            }
            let have = &mut left[usize::from(slot)];
            if *have == 0 || !ing.accepts(&item.name, item.network_id) {
                continue;
            }
            let take = need.min(*have);
            *have -= take;
            need -= take;
            let take = u16::try_from(take).unwrap_or(u16::MAX);
            match plan.iter_mut().find(|(s, _)| *s == slot) {
                Some((_, n)) => *n = n.saturating_add(take),
                None => plan.push((slot, take)),
            }
        }
        if need > 0 {
            missing.push((ing.label(ids), need));
        }
    }
    if missing.is_empty() { Ok(plan) } else { Err(missing) }
}

/// A crafting recipe as the bot uses it.
#[derive(Debug, Clone, PartialEq)]
pub struct Recipe {
    /// The id item-stack requests name it by.
    pub network_id: u32,
    /// `minecraft:wooden_pickaxe`, …
    pub id: String,
    pub shaped: bool,
    pub width: u8,
    pub height: u8,
    /// Distinct ingredients with their counts per craft.
    pub inputs: Vec<Ingredient>,
    /// What one craft makes: `(name, network id, count)` (the first is the result).
    pub output: Vec<(Arc<str>, i32, u16)>,
}

impl Recipe {
    /// Whether it fits the inventory's 2×2 grid (else it needs a crafting table).
    pub fn fits_small_grid(&self) -> bool {
        if self.shaped {
            self.width <= 2 && self.height <= 2
        } else {
            self.inputs.iter().map(|i| i.count).sum::<u32>() <= 4
        }
    }

    /// The result's name and count per craft.
    pub fn result(&self) -> Option<(&str, u16)> {
        self.output.first().map(|(n, _, c)| (&**n, *c))
    }

    /// Which inventory slots give the ingredients of `times` crafts: `(slot, count)` in the
    /// order they are taken, split across stacks. `Err` lists what is missing `(label, short by)`.
    pub fn plan(&self, inv: &Inventory, ids: &ItemIds, times: u32) -> Result<Plan, Missing> {
        plan_inputs(&self.inputs, inv, ids, times)
    }

    /// How many times it can be crafted from `inv` right now (up to `cap`).
    pub fn max_times(&self, inv: &Inventory, ids: &ItemIds, cap: u32) -> u32 {
        let (mut lo, mut hi) = (0, cap);
        while lo < hi {
            let mid = (lo + hi).div_ceil(2);
            if self.plan(inv, ids, mid).is_ok() {
                lo = mid;
            } else {
                hi = mid - 1;
            }
        }
        lo
    }
}

/// The bot's crafting recipes (crafting-table ones: the 2×2 grid uses the small ones), by result.
#[derive(Component, Debug, Clone, Default)]
pub struct Recipes {
    pub list: Vec<Recipe>,
    /// Indices into `list` by result name (without `minecraft:`).
    by_result: HashMap<String, Vec<usize>>,
    /// Whether the server sent CraftingData yet.
    pub received: bool,
    /// Recipes left out (molang or alias ingredients, other blocks).
    pub skipped: usize,
}

fn short(name: &str) -> &str {
    name.strip_prefix("minecraft:").unwrap_or(name)
}

fn ingredient(i: &RecipeIngredient) -> Option<Option<Matcher>> {
    if i.is_empty() {
        return Some(None);
    }
    let m = match i.descriptor_type.as_deref()? {
        "name" => Matcher::Name(i.name.as_deref()?.into()),
        "item_tag" => Matcher::Tag(i.tag.as_deref()?.into()),
        "int_id_meta" => Matcher::Id(i.name.as_deref()?.strip_prefix('#')?.parse().ok()?),
        _ => return None,
    };
    Some(Some(m))
}

fn recipe(
    network_id: u32,
    id: &str,
    shape: Option<(i32, i32)>,
    cells: &[RecipeIngredient],
    output: &[RecipeItem],
    ids: &ItemIds,
) -> Option<Recipe> {
    let mut inputs: Vec<Ingredient> = Vec::new();
    for cell in cells {
        let Some(m) = ingredient(cell)? else { continue };
        let count = u32::try_from(cell.count.max(1)).unwrap_or(1);
        match inputs.iter_mut().find(|i| i.matcher == m) {
            Some(i) => i.count += count,
            None => inputs.push(Ingredient { matcher: m, count }),
        }
    }
    let output: Vec<(Arc<str>, i32, u16)> =
        output.iter().map(|o| (ids.name(o.network_id), o.network_id, o.count)).collect();
    if inputs.is_empty() || output.is_empty() {
        return None;
    }
    let (w, h) = shape.unwrap_or((0, 0));
    Some(Recipe {
        network_id,
        id: id.to_owned(),
        shaped: shape.is_some(),
        width: u8::try_from(w).unwrap_or(u8::MAX),
        height: u8::try_from(h).unwrap_or(u8::MAX),
        inputs,
        output,
    })
}

impl Recipes {
    /// Reads CraftingData's crafting-table recipes (names resolved with the server's registry).
    pub fn apply(&mut self, data: &CraftingData, ids: &ItemIds) {
        if data.clear_recipes {
            self.list.clear();
            self.skipped = 0;
        }
        let table = |b: &str| b == "crafting_table" || b.is_empty();
        for r in data.shaped_recipes.iter().filter(|r| table(&r.block)) {
            match recipe(r.network_id, &r.recipe_id, Some((r.width, r.height)), &r.input, &r.output, ids) {
                Some(x) => self.list.push(x),
                None => self.skipped += 1,
            }
        }
        for r in data.shapeless_recipes.iter().filter(|r| table(&r.block)) {
            match recipe(r.network_id, &r.recipe_id, None, &r.input, &r.output, ids) {
                Some(x) => self.list.push(x),
                None => self.skipped += 1,
            }
        }
        self.by_result.clear();
        for (i, r) in self.list.iter().enumerate() {
            if let Some((name, _)) = r.result() {
                self.by_result.entry(short(name).to_owned()).or_default().push(i);
            }
        }
        self.received = true;
    }

    /// Recipes whose result is `name` (`minecraft:` optional).
    pub fn making(&self, name: &str) -> impl Iterator<Item = &Recipe> {
        self.by_result.get(short(name.trim())).into_iter().flatten().filter_map(|i| self.list.get(*i))
    }
}

/// An ingredient as the agent sees it.
#[derive(Serialize, JsonSchema, Debug, Clone, PartialEq)]
pub struct IngredientJson {
    /// Item name, or `tag:<tag>` for any item of a tag.
    pub item: String,
    /// Per craft.
    pub count: u32,
}

/// Name + count.
#[derive(Serialize, JsonSchema, Debug, Clone, PartialEq, Eq)]
pub struct ItemCount {
    pub name: String,
    pub count: u32,
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use clawcraft_inventory::{Item, SlotRef};
    use clawcraft_protocol::packets::{ItemInstance, ItemState, ShapedRecipe, ShapelessRecipe};

    pub(crate) fn ids() -> ItemIds {
        let mut ids = ItemIds::new("1.26.45");
        let names =
            ["oak_log", "oak_planks", "birch_planks", "stick", "wooden_pickaxe", "crafting_table", "cobblestone"];
        let states: Vec<ItemState> = names
            .iter()
            .enumerate()
            .map(|(i, n)| ItemState {
                name: format!("minecraft:{n}"),
                runtime_id: i16::try_from(i + 1).unwrap_or(0),
                ..ItemState::default()
            })
            .collect();
        ids.extend(&states);
        ids
    }

    pub(crate) fn inv_with(ids: &ItemIds, items: &[(u8, &str, u16)]) -> Inventory {
        let mut inv = Inventory { synced: true, ..Inventory::default() };
        for (n, (slot, name, count)) in items.iter().enumerate() {
            let id = ids.id(name).unwrap_or(0);
            let stack = i32::try_from(n + 10).unwrap_or(0);
            let wire = ItemInstance {
                network_id: id,
                count: *count,
                stack_id: Some(stack),
                has_stack_id: true,
                ..ItemInstance::default()
            };
            let item: Option<Item> = ids.item(&wire);
            inv.set(SlotRef::Inv(*slot), item);
        }
        inv
    }

    pub(crate) fn book(ids: &ItemIds) -> Recipes {
        let out =
            |name: &str, count| RecipeItem { network_id: ids.id(name).unwrap_or(0), count, ..RecipeItem::default() };
        let planks = || RecipeIngredient::tagged("minecraft:planks", 1);
        let stick = || RecipeIngredient::named("minecraft:stick", 1);
        let data = CraftingData {
            shaped_recipes: vec![
                ShapedRecipe {
                    recipe_id: "minecraft:wooden_pickaxe".into(),
                    width: 3,
                    height: 3,
                    input: vec![
                        planks(),
                        planks(),
                        planks(),
                        RecipeIngredient::empty(),
                        stick(),
                        RecipeIngredient::empty(),
                        RecipeIngredient::empty(),
                        stick(),
                        RecipeIngredient::empty(),
                    ],
                    output: vec![out("wooden_pickaxe", 1)],
                    block: "crafting_table".into(),
                    network_id: 3,
                    ..ShapedRecipe::default()
                },
                ShapedRecipe {
                    recipe_id: "minecraft:stick".into(),
                    width: 1,
                    height: 2,
                    input: vec![planks(), planks()],
                    output: vec![out("stick", 4)],
                    block: "crafting_table".into(),
                    network_id: 2,
                    ..ShapedRecipe::default()
                },
                ShapedRecipe {
                    recipe_id: "minecraft:stonecutter_thing".into(),
                    width: 1,
                    height: 1,
                    input: vec![RecipeIngredient::named("minecraft:cobblestone", 1)],
                    output: vec![out("stick", 1)],
                    block: "stonecutter".into(),
                    network_id: 9,
                    ..ShapedRecipe::default()
                },
            ],
            shapeless_recipes: vec![ShapelessRecipe {
                recipe_id: "minecraft:oak_planks".into(),
                input: vec![RecipeIngredient {
                    kind: "valid".into(),
                    descriptor_type: Some("int_id_meta".into()),
                    name: Some(format!("#{}", ids.id("oak_log").unwrap_or(0))),
                    metadata: Some(0),
                    count: 1,
                    ..RecipeIngredient::default()
                }],
                output: vec![out("oak_planks", 4)],
                block: "crafting_table".into(),
                network_id: 1,
                ..ShapelessRecipe::default()
            }],
            clear_recipes: true,
            ..CraftingData::default()
        };
        let mut r = Recipes::default();
        r.apply(&data, ids);
        r
    }

    #[test]
    fn recipes_read_tags_ids_and_names_and_skip_other_blocks() {
        let ids = ids();
        let r = book(&ids);
        assert!(r.received);
        assert_eq!(r.list.len(), 3, "the stonecutter recipe is not a crafting one");
        let pick = r.making("wooden_pickaxe").next().expect("pickaxe");
        assert_eq!(pick.inputs.len(), 2, "equal cells merge");
        assert_eq!(pick.inputs[0], Ingredient { matcher: Matcher::Tag("minecraft:planks".into()), count: 3 });
        assert!(!pick.fits_small_grid());
        let planks = r.making("minecraft:oak_planks").next().expect("planks by the old numeric id");
        assert!(planks.fits_small_grid());
        assert_eq!(planks.inputs[0].label(&ids), "minecraft:oak_log");
        assert_eq!(tag_has("minecraft:planks", "minecraft:birch_planks"), Some(true));
        assert_eq!(tag_has("minecraft:logs_that_burn", "minecraft:crimson_stem"), Some(false));
        assert_eq!(tag_has("minecraft:unknown", "minecraft:dirt"), None);
    }

    #[test]
    fn plans_split_across_stacks_and_any_planks_count() {
        let ids = ids();
        let r = book(&ids);
        let inv = inv_with(&ids, &[(0, "oak_planks", 2), (4, "birch_planks", 5), (9, "stick", 1)]);
        let pick = r.making("wooden_pickaxe").next().expect("pickaxe");
        let missing = pick.plan(&inv, &ids, 1).expect_err("one stick short");
        assert_eq!(missing, vec![("minecraft:stick".to_owned(), 1)]);
        let stick = r.making("stick").next().expect("stick");
        assert_eq!(stick.plan(&inv, &ids, 2), Ok(vec![(0, 2), (4, 2)]), "oak first, then birch");
        assert_eq!(stick.max_times(&inv, &ids, 64), 3, "7 planks make 3 crafts");
    }
}
