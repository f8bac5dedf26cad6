//! Break times, the Bedrock way, from the vendored data: the block's hardness and harvest tools
//! (`blocks.json`), its mining material and the held item's speed on it (`items.json`, from
//! minecraft-data's `materials.json`), and the player's state.
//!
//! Per tick the block takes `damage = speed / hardness / (30 if the held item harvests it else
//! 100)` where `speed` is the item's speed on the block's material (1 when it has none) plus
//! `level² + 1` for Efficiency on an effective tool. Haste (or Conduit Power) multiplies the
//! damage by `(1 + 0.2·level)·1.2^level`, Mining Fatigue by `0.21^level` (Bedrock applies both
//! factors, unlike Java's single one: PocketMine-MP's `SurvivalBlockBreakHandler` and the
//! TM-Dragonfly fork agree), the head under water without Aqua Affinity divides it by 5, feet
//! off the ground by 5. The block breaks after `ceil(1 / damage)` ticks; hardness 0 breaks in
//! the tick it is hit; hardness −1 never.

use clawcraft_inventory::{ItemData, ItemInfo};
use clawcraft_world::block::{BlockInfo, ToolKind, ToolTier};

/// What besides the item changes a break time.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct BreakConditions {
    /// Efficiency level of the held item.
    pub efficiency: u8,
    /// Haste level (amplifier + 1; 0 without the effect).
    pub haste: u8,
    /// Conduit Power level (acts like Haste; the larger of the two counts).
    pub conduit_power: u8,
    /// Mining Fatigue level (amplifier + 1).
    pub mining_fatigue: u8,
    /// The eye is in water.
    pub in_water: bool,
    /// The helmet has Aqua Affinity.
    pub aqua_affinity: bool,
    /// The feet are on the ground.
    pub on_ground: bool,
}

impl BreakConditions {
    /// Standing on the ground, dry, no effects, no enchantments.
    pub fn standing() -> Self {
        Self { on_ground: true, ..Self::default() }
    }
}

/// The tool kind and tier of an item, by name (`diamond_pickaxe` → pickaxe, diamond). Golden
/// tools harvest like wooden ones, copper like stone (Bedrock's harvest levels).
pub fn tool_of(name: &str) -> Option<(ToolKind, Option<ToolTier>)> {
    let short = name.strip_prefix("minecraft:").unwrap_or(name);
    if short == "shears" {
        return Some((ToolKind::Shears, None));
    }
    let (tier, kind) = short.rsplit_once('_')?;
    let kind = match kind {
        "pickaxe" => ToolKind::Pickaxe,
        "axe" => ToolKind::Axe,
        "shovel" => ToolKind::Shovel,
        "hoe" => ToolKind::Hoe,
        "sword" => ToolKind::Sword,
        _ => return None,
    };
    let tier = match tier {
        "wooden" | "golden" => ToolTier::Wooden,
        "stone" | "copper" => ToolTier::Stone,
        "iron" => ToolTier::Iron,
        "diamond" => ToolTier::Diamond,
        "netherite" => ToolTier::Netherite,
        _ => return None,
    };
    Some((kind, Some(tier)))
}

/// Whether `item` (`None` = bare hand) makes `block` drop.
pub fn can_harvest(block: &BlockInfo, item: Option<&str>) -> bool {
    block.harvest_tools.can_harvest(item.and_then(tool_of))
}

/// Hardness as the data means it: blocks.json stores f32, so 0.6 arrives as 0.6000000238;
/// rounding to 1/10000 gives back the decimal the game data states.
fn hardness(block: &BlockInfo) -> f64 {
    (f64::from(block.hardness) * 10_000.0).round() / 10_000.0
}

/// Ticks to break `block` holding `item` (`None` = bare hand, or an item without facts) under
/// `c`; `None` when it cannot be broken. `material` is the block's mining material
/// ([`ItemData::block_material`]).
pub fn break_ticks(block: &BlockInfo, material: &str, item: Option<&ItemInfo>, c: &BreakConditions) -> Option<u32> {
    let h = hardness(block);
    if h < 0.0 {
        return None;
    }
    if h == 0.0 {
        return Some(0);
    }
    let harvest = can_harvest(block, item.map(|i| &*i.name));
    let mut speed = 1.0;
    if let Some(s) = item.and_then(|i| i.speed_on(material)) {
        speed = f64::from(s);
        if c.efficiency > 0 {
            speed += f64::from(c.efficiency).powi(2) + 1.0;
        }
    }
    let mut damage = speed / h / if harvest { 30.0 } else { 100.0 };
    let haste = c.haste.max(c.conduit_power);
    if haste > 0 {
        let l = f64::from(haste);
        damage *= (1.0 + 0.2 * l) * 1.2f64.powf(l);
    }
    if c.mining_fatigue > 0 {
        damage *= 0.21f64.powf(f64::from(c.mining_fatigue));
    }
    if c.in_water && !c.aqua_affinity {
        damage /= 5.0;
    }
    if !c.on_ground {
        damage /= 5.0;
    }
    // 1e-9 absorbs float noise (22.5 stays 23, 18.000000000000004 becomes 18).
    let ticks = (1.0 / damage - 1e-9).ceil().max(1.0);
    Some(if ticks > f64::from(u32::MAX) { u32::MAX } else { ticks as u32 })
}

/// The best item for `block` among `(slot, item name)` candidates: the fewest ticks, harvesting
/// items before others; `None` when none beats the bare hand.
pub fn best_tool<'a>(
    block: &BlockInfo,
    data: &ItemData,
    candidates: impl IntoIterator<Item = (u8, &'a str, u8)>,
    c: &BreakConditions,
) -> Option<u8> {
    let material = data.block_material(&block.name);
    let hand = break_ticks(block, material, None, c)?;
    let hand_harvests = can_harvest(block, None);
    let mut best: Option<(bool, u32, u8)> = None;
    for (slot, name, efficiency) in candidates {
        let Some(info) = data.info(name) else { continue };
        let cond = BreakConditions { efficiency, ..*c };
        let Some(t) = break_ticks(block, material, Some(info), &cond) else { continue };
        let harvests = can_harvest(block, Some(name));
        let better_than_hand = (harvests && !hand_harvests) || (harvests == hand_harvests && t < hand);
        if !better_than_hand {
            continue;
        }
        let key = (harvests, t, slot);
        best = match best {
            Some(b) if (b.0, std::cmp::Reverse(b.1)) >= (key.0, std::cmp::Reverse(key.1)) => Some(b),
            _ => Some(key),
        };
    }
    best.map(|b| b.2)
}

#[cfg(test)]
mod tests {
    use super::*;
    use clawcraft_world::block::BlockRegistry;
    use std::sync::Arc;

    fn data() -> Arc<ItemData> {
        ItemData::for_version("1.26.45").expect("item data")
    }

    fn ticks(block: &str, item: Option<&str>, c: BreakConditions) -> Option<u32> {
        let reg = BlockRegistry::for_version("1.26.45").expect("blocks");
        let d = data();
        let b = reg.block_named(block).expect(block);
        break_ticks(b, d.block_material(block), item.map(|i| d.info(i).expect(i)), &c)
    }

    /// The tested table: (block, item, conditions) → ticks. Hand on dirt, grass by hand (vanilla
    /// 0.9 s; ClawCraft used 60 ticks), wooden pickaxe on stone, diamond pickaxe with and without
    /// Efficiency V on obsidian (hardness 35 on Bedrock), wrong tools, tiers too low, shears on
    /// wool and leaves, effects, water, air.
    #[test]
    fn the_break_time_table() {
        let s = BreakConditions::standing();
        let eff = |e: u8| BreakConditions { efficiency: e, ..s };
        let table: &[(&str, Option<&str>, BreakConditions, Option<u32>)] = &[
            ("minecraft:dirt", None, s, Some(15)),
            ("minecraft:grass_block", None, s, Some(18)),
            ("minecraft:grass_block", Some("minecraft:wooden_shovel"), s, Some(9)),
            ("minecraft:stone", None, s, Some(150)),
            ("minecraft:stone", Some("minecraft:wooden_pickaxe"), s, Some(23)),
            ("minecraft:stone", Some("minecraft:stone_pickaxe"), s, Some(12)),
            ("minecraft:stone", Some("minecraft:diamond_pickaxe"), s, Some(6)),
            ("minecraft:stone", Some("minecraft:golden_pickaxe"), s, Some(4)),
            ("minecraft:stone", Some("minecraft:wooden_axe"), s, Some(150)),
            ("minecraft:obsidian", Some("minecraft:diamond_pickaxe"), s, Some(132)),
            ("minecraft:obsidian", Some("minecraft:diamond_pickaxe"), eff(5), Some(31)),
            ("minecraft:obsidian", Some("minecraft:iron_pickaxe"), s, Some(584)),
            ("minecraft:obsidian", None, s, Some(3500)),
            ("minecraft:oak_log", Some("minecraft:stone_axe"), s, Some(15)),
            ("minecraft:white_wool", Some("minecraft:shears"), s, Some(5)),
            ("minecraft:oak_leaves", Some("minecraft:shears"), s, Some(1)),
            ("minecraft:oak_leaves", None, s, Some(6)),
            ("minecraft:torch", None, s, Some(0)),
            ("minecraft:bedrock", Some("minecraft:diamond_pickaxe"), s, None),
            ("minecraft:stone", Some("minecraft:wooden_pickaxe"), BreakConditions { haste: 2, ..s }, Some(12)),
            ("minecraft:stone", Some("minecraft:wooden_pickaxe"), BreakConditions { conduit_power: 1, ..s }, Some(16)),
            (
                "minecraft:stone",
                Some("minecraft:wooden_pickaxe"),
                BreakConditions { mining_fatigue: 1, ..s },
                Some(108),
            ),
            ("minecraft:stone", Some("minecraft:wooden_pickaxe"), BreakConditions { in_water: true, ..s }, Some(113)),
            (
                "minecraft:stone",
                Some("minecraft:wooden_pickaxe"),
                BreakConditions { in_water: true, aqua_affinity: true, ..s },
                Some(23),
            ),
            ("minecraft:stone", Some("minecraft:wooden_pickaxe"), BreakConditions::default(), Some(113)),
            (
                "minecraft:stone",
                Some("minecraft:wooden_pickaxe"),
                BreakConditions { in_water: true, on_ground: false, ..BreakConditions::default() },
                Some(563),
            ),
        ];
        for (block, item, c, want) in table {
            assert_eq!(ticks(block, *item, *c), *want, "{block} with {item:?} under {c:?}");
        }
    }

    #[test]
    fn tools_by_name_and_harvesting() {
        assert_eq!(tool_of("minecraft:golden_pickaxe"), Some((ToolKind::Pickaxe, Some(ToolTier::Wooden))));
        assert_eq!(tool_of("copper_axe"), Some((ToolKind::Axe, Some(ToolTier::Stone))));
        assert_eq!(tool_of("minecraft:shears"), Some((ToolKind::Shears, None)));
        assert_eq!(tool_of("minecraft:dirt"), None);
        assert_eq!(tool_of("minecraft:pickaxe"), None);
        let reg = BlockRegistry::for_version("1.26.45").expect("blocks");
        let obsidian = reg.block_named("minecraft:obsidian").expect("obsidian");
        assert!(!can_harvest(obsidian, Some("minecraft:iron_pickaxe")));
        assert!(can_harvest(obsidian, Some("minecraft:diamond_pickaxe")));
        assert!(can_harvest(reg.block_named("minecraft:dirt").expect("dirt"), None));
    }

    #[test]
    fn the_best_tool_harvests_first_then_is_fastest() {
        let reg = BlockRegistry::for_version("1.26.45").expect("blocks");
        let d = data();
        let s = BreakConditions::standing();
        let stone = reg.block_named("minecraft:stone").expect("stone");
        let inv = [(0, "minecraft:dirt", 0), (3, "minecraft:wooden_pickaxe", 0), (20, "minecraft:diamond_pickaxe", 0)];
        assert_eq!(best_tool(stone, &d, inv, &s), Some(20));
        let dirt = reg.block_named("minecraft:dirt").expect("dirt");
        assert_eq!(best_tool(dirt, &d, inv, &s), None, "no pickaxe beats the hand on dirt");
        let obsidian = reg.block_named("minecraft:obsidian").expect("obsidian");
        let only_iron = [(1, "minecraft:iron_pickaxe", 0)];
        assert_eq!(best_tool(obsidian, &d, only_iron, &s), Some(1), "faster, though it drops nothing");
        let two = [(1, "minecraft:diamond_pickaxe", 0), (2, "minecraft:diamond_pickaxe", 5)];
        assert_eq!(best_tool(obsidian, &d, two, &s), Some(2), "Efficiency counts");
    }
}
