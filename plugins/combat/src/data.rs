//! Bedrock's combat numbers the actions choose by: a weapon's attack damage and an armour
//! piece's defence points. The item data the bot carries (minecraft-data's `items.json`) has
//! neither, so they are tabled here from the Bedrock columns of minecraft.wiki's "Damage" and
//! "Armor" pages (Bedrock's values differ from Java's: a sword does one more, an axe has no
//! cooldown trade-off). Names are bare (`iron_sword`); a namespaced name is looked up bare.

use clawcraft_core::bare_name;

/// Attack damage of the bare hand.
pub const FIST_DAMAGE: f64 = 1.0;

/// Tiers in the order of the tables below.
const TIERS: [&str; 6] = ["wooden", "golden", "stone", "iron", "diamond", "netherite"];
/// Bedrock attack damage by tier: swords, axes, pickaxes, shovels, hoes.
const SWORD: [f64; 6] = [5.0, 5.0, 6.0, 7.0, 8.0, 9.0];
const AXE: [f64; 6] = [4.0, 4.0, 5.0, 6.0, 7.0, 8.0];
const PICKAXE: [f64; 6] = [2.0, 2.0, 3.0, 4.0, 5.0, 6.0];
const SHOVEL: [f64; 6] = [2.0, 2.0, 3.0, 4.0, 5.0, 6.0];
const HOE: [f64; 6] = [2.0, 2.0, 3.0, 4.0, 5.0, 6.0];

/// The attack damage of a hit with `item` held (`None`: the hand), on Bedrock.
pub fn attack_damage(item: Option<&str>) -> f64 {
    let Some(name) = item.map(bare_name) else { return FIST_DAMAGE };
    match name {
        "trident" => return 9.0,
        "mace" => return 6.0,
        _ => {}
    }
    let Some((tier, kind)) = name.split_once('_') else { return FIST_DAMAGE };
    let Some(t) = TIERS.iter().position(|x| *x == tier) else { return FIST_DAMAGE };
    match kind {
        "sword" => SWORD[t],
        "axe" => AXE[t],
        "pickaxe" => PICKAXE[t],
        "shovel" => SHOVEL[t],
        "hoe" => HOE[t],
        _ => FIST_DAMAGE,
    }
}

/// Armour slots in the armour window's order.
pub const ARMOUR_SLOTS: [&str; 4] = ["helmet", "chestplate", "leggings", "boots"];
/// Materials in the order of [`DEFENCE`].
const MATERIALS: [&str; 6] = ["leather", "golden", "chainmail", "iron", "diamond", "netherite"];
/// Defence points by material (rows) and slot (columns, [`ARMOUR_SLOTS`] order), Bedrock.
const DEFENCE: [[u32; 4]; 6] = [[1, 3, 2, 1], [2, 5, 3, 1], [2, 5, 4, 1], [2, 6, 5, 2], [3, 8, 6, 3], [3, 8, 6, 3]];

/// An armour piece: which armour slot it goes to and its defence points.
pub fn armour(item: &str) -> Option<(usize, u32)> {
    let name = bare_name(item);
    if name == "turtle_helmet" {
        return Some((0, 2));
    }
    let (material, kind) = name.rsplit_once('_')?;
    let slot = ARMOUR_SLOTS.iter().position(|s| *s == kind)?;
    let m = MATERIALS.iter().position(|x| *x == material)?;
    Some((slot, DEFENCE[m][slot]))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn weapons_and_armour_are_bedrock_values() {
        assert_eq!(attack_damage(Some("minecraft:iron_sword")), 7.0);
        assert_eq!(attack_damage(Some("wooden_axe")), 4.0);
        assert_eq!(attack_damage(Some("diamond_pickaxe")), 5.0);
        assert_eq!(attack_damage(Some("bread")), FIST_DAMAGE);
        assert_eq!(attack_damage(None), FIST_DAMAGE);
        assert_eq!(armour("minecraft:iron_chestplate"), Some((1, 6)));
        assert_eq!(armour("diamond_boots"), Some((3, 3)));
        assert_eq!(armour("turtle_helmet"), Some((0, 2)));
        assert_eq!(armour("iron_sword"), None);
    }
}
