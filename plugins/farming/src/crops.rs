//! The Bedrock farming rules the actions check before they click: which blocks a hoe tills,
//! what each seed grows into and on what, and when a crop is mature (its growth state).
//!
//! From the Bedrock block states (minecraft-data's `blockStates`): wheat, carrots, potatoes and
//! beetroot grow through `growth` 0–7 and are mature at 7; nether wart through `age` 0–3.

use clawcraft_world::block::{BlockState, StateValue};

/// A crop: its block, the state that counts its growth, the mature value and its seed item.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Crop {
    pub block: &'static str,
    pub state: &'static str,
    pub mature: i64,
    pub seed: &'static str,
}

/// The crops `harvest` knows.
pub const CROPS: [Crop; 5] = [
    Crop { block: "wheat", state: "growth", mature: 7, seed: "wheat_seeds" },
    Crop { block: "carrots", state: "growth", mature: 7, seed: "carrot" },
    Crop { block: "potatoes", state: "growth", mature: 7, seed: "potato" },
    Crop { block: "beetroot", state: "growth", mature: 7, seed: "beetroot_seeds" },
    Crop { block: "nether_wart", state: "age", mature: 3, seed: "nether_wart" },
];

use clawcraft_core::bare_name;

/// The crop a block is, if it is one.
pub fn crop(block: &str) -> Option<&'static Crop> {
    let b = bare_name(block);
    CROPS.iter().find(|c| c.block == b)
}

/// A state's integer value of `key`.
pub fn int_state(state: &BlockState<'_>, key: &str) -> Option<i64> {
    match state.property(key)? {
        StateValue::Int(i) => Some(i64::from(*i)),
        StateValue::Byte(b) => Some(i64::from(*b)),
        StateValue::Str(_) => None,
    }
}

/// Blocks a hoe turns into farmland (with air above): grass, dirt, a dirt path; coarse dirt
/// becomes dirt first.
pub fn tillable(block: &str) -> bool {
    matches!(bare_name(block), "grass_block" | "dirt" | "grass_path" | "dirt_path" | "coarse_dirt")
}

/// What a planted item grows into, and the soils it takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Plant {
    pub item: &'static str,
    pub block: &'static str,
    pub soils: &'static [&'static str],
}

const FARMLAND: &[&str] = &["farmland"];
const EARTH: &[&str] = &["grass_block", "dirt", "podzol", "coarse_dirt", "farmland", "rooted_dirt", "moss_block"];

/// Seeds and saplings `plant` knows.
pub const PLANTS: [Plant; 16] = [
    Plant { item: "wheat_seeds", block: "wheat", soils: FARMLAND },
    Plant { item: "carrot", block: "carrots", soils: FARMLAND },
    Plant { item: "potato", block: "potatoes", soils: FARMLAND },
    Plant { item: "beetroot_seeds", block: "beetroot", soils: FARMLAND },
    Plant { item: "pumpkin_seeds", block: "pumpkin_stem", soils: FARMLAND },
    Plant { item: "melon_seeds", block: "melon_stem", soils: FARMLAND },
    Plant { item: "nether_wart", block: "nether_wart", soils: &["soul_sand"] },
    Plant { item: "sweet_berries", block: "sweet_berry_bush", soils: EARTH },
    Plant { item: "oak_sapling", block: "oak_sapling", soils: EARTH },
    Plant { item: "spruce_sapling", block: "spruce_sapling", soils: EARTH },
    Plant { item: "birch_sapling", block: "birch_sapling", soils: EARTH },
    Plant { item: "jungle_sapling", block: "jungle_sapling", soils: EARTH },
    Plant { item: "acacia_sapling", block: "acacia_sapling", soils: EARTH },
    Plant { item: "dark_oak_sapling", block: "dark_oak_sapling", soils: EARTH },
    Plant { item: "cherry_sapling", block: "cherry_sapling", soils: EARTH },
    Plant { item: "mangrove_propagule", block: "mangrove_propagule", soils: EARTH },
];

/// The plant an item grows, if it is a seed or sapling.
pub fn plant(item: &str) -> Option<&'static Plant> {
    let i = bare_name(item);
    PLANTS.iter().find(|p| p.item == i)
}

/// Whether bone meal works on a block: a crop not yet mature, a sapling, a stem, a berry bush,
/// grass.
pub fn bone_mealable(block: &str, state: Option<&BlockState<'_>>) -> Result<(), String> {
    let b = bare_name(block);
    if let Some(c) = crop(b) {
        let growth = state.and_then(|s| int_state(s, c.state)).unwrap_or(0);
        return if growth < c.mature {
            Ok(())
        } else {
            Err(format!("{b} is mature ({} {growth} of {}): harvest it", c.state, c.mature))
        };
    }
    if b.ends_with("_sapling") || b.ends_with("_stem") || b == "sweet_berry_bush" || b == "grass_block" {
        return Ok(());
    }
    Err(format!("bone meal does nothing to {b}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rules() {
        assert_eq!(crop("minecraft:wheat").map(|c| (c.mature, c.seed)), Some((7, "wheat_seeds")));
        assert!(crop("minecraft:farmland").is_none());
        assert!(tillable("minecraft:grass_block") && tillable("dirt") && !tillable("stone"));
        assert_eq!(plant("minecraft:wheat_seeds").map(|p| p.block), Some("wheat"));
        assert!(plant("oak_sapling").is_some_and(|p| p.soils.contains(&"dirt")));
        assert!(plant("dirt").is_none());
        assert!(bone_mealable("minecraft:oak_sapling", None).is_ok());
        assert!(bone_mealable("stone", None).is_err());
    }
}
