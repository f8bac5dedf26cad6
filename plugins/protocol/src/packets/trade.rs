//! Villager trading: `update_trade` (server → client), which opens a villager's trade screen and
//! carries its offers as NBT, the typed offers read from that NBT ([`TradeOffer`]), and the
//! `craft_recipe` item-stack request action a trade is performed with.
//!
//! The packet's layout is the same in every supported version (minecraft-data 1.26.20–1.26.60).
//! The offers compound (`offers`) holds `Recipes`, a list of compounds with — as the game writes
//! them and gophertunnel / PrismarineJS read them — `buyA` / `buyB` / `sell` (item compounds:
//! `Name`, `Count`, `Damage`), `buyCountA` / `buyCountB`, `uses`, `maxUses`, `priceMultiplierA` /
//! `priceMultiplierB`, `demand`, `traderExp`, `rewardExp`, `tier` and `netId` (the id a trade's
//! `craft_recipe` names), and `TierExpRequirements`.

use super::StackAction;
use crate::codec::{Nbt, NbtTag, Packet};
use serde::{Deserialize, Serialize};

/// `update_trade` (server → client): a villager's trade screen and its offers.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct UpdateTrade {
    /// `WindowID` name (or its number as text): the window a `container_close` closes.
    pub window_id: String,
    /// `WindowType` name, `"trading"`.
    pub window_type: String,
    /// Slots of the window (unused by the game).
    pub size: i32,
    /// The villager's level: offers with a higher `tier` are locked (0 novice … 4 master).
    pub trade_tier: i32,
    /// Unique id of the villager, as minecraft-data reads it (an unsigned varint64). UNCERTAIN:
    /// gophertunnel reads this field as a zigzag (signed) varint64; [`UpdateTrade::villager_ids`]
    /// gives both readings.
    pub villager_unique_id: u64,
    /// Unique id of the player (the same two readings).
    pub entity_unique_id: u64,
    /// The screen's title (the villager's profession or name tag).
    pub display_name: String,
    /// The trade screen of 1.11+ (trade2_* slots).
    pub new_trading_ui: bool,
    /// Whether prices follow demand and reputation.
    pub economic_trades: bool,
    /// `{Recipes: [...], TierExpRequirements: [...]}`.
    pub offers: Nbt,
}
packet!(UpdateTrade, "update_trade");

/// An item of an offer (`buyA`, `buyB`, `sell`).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct TradeItem {
    /// Item name, `minecraft:emerald`.
    pub name: String,
    /// Items per trade.
    pub count: u16,
    /// Variant (`Damage`).
    pub damage: i16,
}

/// One offer of an [`UpdateTrade`], read from its `Recipes` entry.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct TradeOffer {
    /// What the villager wants (its `Count` is the price this player pays now).
    pub buy_a: TradeItem,
    /// A second item it wants, if any.
    pub buy_b: Option<TradeItem>,
    /// What it gives per trade.
    pub sell: TradeItem,
    /// The base price of `buy_a` (before demand and discounts); `buy_a.count` when absent.
    pub buy_count_a: i32,
    /// The base price of `buy_b`.
    pub buy_count_b: i32,
    /// Trades done since the last restock.
    pub uses: i32,
    /// Trades possible between restocks.
    pub max_uses: i32,
    /// How much demand raises the price of `buy_a` (per unit of demand, times the base price).
    pub price_multiplier_a: f32,
    /// The same for `buy_b`.
    pub price_multiplier_b: f32,
    /// Demand: grows when the offer is used up, shrinks otherwise (at restock).
    pub demand: i32,
    /// Experience the villager gains per trade.
    pub trader_exp: i32,
    /// Whether the player gains experience.
    pub reward_exp: bool,
    /// Level the offer unlocks at (0 novice … 4 master).
    pub tier: i32,
    /// The id a trade's `craft_recipe` names.
    pub net_id: u32,
}

fn field<'a>(entries: &'a [(String, NbtTag)], key: &str) -> Option<&'a NbtTag> {
    entries.iter().find(|(k, _)| k == key).map(|(_, v)| v)
}

fn int(tag: Option<&NbtTag>) -> Option<i64> {
    match *tag? {
        NbtTag::Byte(v) => Some(i64::from(v)),
        NbtTag::Short(v) => Some(i64::from(v)),
        NbtTag::Int(v) => Some(i64::from(v)),
        NbtTag::Long(v) => Some(v),
        _ => None,
    }
}

fn float(tag: Option<&NbtTag>) -> Option<f32> {
    match *tag? {
        NbtTag::Float(v) => Some(v),
        NbtTag::Double(v) => Some(v as f32),
        _ => None,
    }
}

fn i32_of(tag: Option<&NbtTag>) -> Option<i32> {
    int(tag).map(|v| i32::try_from(v.clamp(i64::from(i32::MIN), i64::from(i32::MAX))).unwrap_or_default())
}

impl TradeItem {
    /// Reads an item compound (`Name`, `Count`, `Damage`); `None` for anything else or no name.
    fn read(tag: Option<&NbtTag>) -> Option<Self> {
        let NbtTag::Compound(entries) = tag? else { return None };
        let NbtTag::String(name) = field(entries, "Name")? else { return None };
        if name.is_empty() || name == "minecraft:air" {
            return None;
        }
        let count = int(field(entries, "Count")).unwrap_or(1).clamp(0, i64::from(u16::MAX));
        let damage = int(field(entries, "Damage")).unwrap_or(0).clamp(i64::from(i16::MIN), i64::from(i16::MAX));
        Some(Self {
            name: name.clone(),
            count: u16::try_from(count).unwrap_or_default(),
            damage: i16::try_from(damage).unwrap_or_default(),
        })
    }

    /// The item compound (`Count` a byte, `Damage` a short, `WasPickedUp` false), as the game
    /// writes it.
    pub fn to_nbt(&self) -> NbtTag {
        NbtTag::Compound(vec![
            ("Count".into(), NbtTag::Byte(i8::try_from(self.count).unwrap_or(i8::MAX))),
            ("Damage".into(), NbtTag::Short(self.damage)),
            ("Name".into(), NbtTag::String(self.name.clone())),
            ("WasPickedUp".into(), NbtTag::Byte(0)),
        ])
    }
}

impl TradeOffer {
    /// Reads one `Recipes` entry; `None` when it is not a compound or lacks `buyA` / `sell`.
    pub fn read(tag: &NbtTag) -> Option<Self> {
        let NbtTag::Compound(e) = tag else { return None };
        let buy_a = TradeItem::read(field(e, "buyA"))?;
        let sell = TradeItem::read(field(e, "sell"))?;
        let buy_b = TradeItem::read(field(e, "buyB")).filter(|b| b.count > 0);
        Some(Self {
            buy_count_a: i32_of(field(e, "buyCountA")).unwrap_or(i32::from(buy_a.count)),
            buy_count_b: i32_of(field(e, "buyCountB"))
                .unwrap_or_else(|| buy_b.as_ref().map_or(0, |b| i32::from(b.count))),
            buy_a,
            buy_b,
            sell,
            uses: i32_of(field(e, "uses")).unwrap_or(0),
            max_uses: i32_of(field(e, "maxUses")).unwrap_or(0),
            price_multiplier_a: float(field(e, "priceMultiplierA")).unwrap_or(0.0),
            price_multiplier_b: float(field(e, "priceMultiplierB")).unwrap_or(0.0),
            demand: i32_of(field(e, "demand")).unwrap_or(0),
            trader_exp: i32_of(field(e, "traderExp")).unwrap_or(0),
            reward_exp: int(field(e, "rewardExp")).is_some_and(|v| v != 0),
            tier: i32_of(field(e, "tier")).unwrap_or(0),
            net_id: int(field(e, "netId")).and_then(|v| u32::try_from(v).ok()).unwrap_or(0),
        })
    }

    /// The `Recipes` entry, with the field kinds the game uses.
    pub fn to_nbt(&self) -> NbtTag {
        let mut e = vec![("buyA".into(), self.buy_a.to_nbt())];
        if let Some(b) = &self.buy_b {
            e.push(("buyB".into(), b.to_nbt()));
        }
        e.extend([
            ("buyCountA".into(), NbtTag::Int(self.buy_count_a)),
            ("buyCountB".into(), NbtTag::Int(self.buy_count_b)),
            ("demand".into(), NbtTag::Int(self.demand)),
            ("maxUses".into(), NbtTag::Int(self.max_uses)),
            ("netId".into(), NbtTag::Int(i32::try_from(self.net_id).unwrap_or(i32::MAX))),
            ("priceMultiplierA".into(), NbtTag::Float(self.price_multiplier_a)),
            ("priceMultiplierB".into(), NbtTag::Float(self.price_multiplier_b)),
            ("rewardExp".into(), NbtTag::Byte(i8::from(self.reward_exp))),
            ("sell".into(), self.sell.to_nbt()),
            ("tier".into(), NbtTag::Int(self.tier)),
            ("traderExp".into(), NbtTag::Int(self.trader_exp)),
            ("uses".into(), NbtTag::Int(self.uses)),
        ]);
        NbtTag::Compound(e)
    }
}

impl UpdateTrade {
    /// The villager's unique id read both ways: as the unsigned varint64 minecraft-data declares
    /// and as the zigzag varint64 gophertunnel reads.
    pub fn villager_ids(&self) -> [i64; 2] {
        let raw = self.villager_unique_id;
        let zigzag = ((raw >> 1) as i64) ^ -((raw & 1) as i64);
        [raw as i64, zigzag]
    }

    /// The offers of `offers.Recipes`, in the server's order (entries that do not read are
    /// skipped; their index is not kept).
    pub fn recipes(&self) -> Vec<TradeOffer> {
        let NbtTag::Compound(root) = &self.offers.tag else { return Vec::new() };
        match field(root, "Recipes") {
            Some(NbtTag::List(_, list)) => list.iter().filter_map(TradeOffer::read).collect(),
            _ => Vec::new(),
        }
    }

    /// The `offers` compound for `offers` (tests and the peer's counterpart).
    pub fn offers_nbt(offers: &[TradeOffer]) -> Nbt {
        const COMPOUND: u8 = 10;
        Nbt {
            name: String::new(),
            tag: NbtTag::Compound(vec![
                ("Recipes".into(), NbtTag::List(COMPOUND, offers.iter().map(TradeOffer::to_nbt).collect())),
                ("TierExpRequirements".into(), NbtTag::List(COMPOUND, Vec::new())),
            ]),
        }
    }
}

impl StackAction {
    /// `craft_recipe`: run recipe (or trade offer) `recipe_network_id` `times` times, from what
    /// the request put in the screen's input slots (a trade: the `netId` of its offer).
    pub fn craft_recipe(recipe_network_id: u32, times: u8) -> Self {
        Self {
            type_id: "craft_recipe".into(),
            legacy_type_id: 12,
            recipe_network_id: Some(recipe_network_id),
            times_crafted: Some(times),
            ..Self::default()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn offer() -> TradeOffer {
        TradeOffer {
            buy_a: TradeItem { name: "minecraft:wheat".into(), count: 22, damage: 0 },
            buy_b: None,
            sell: TradeItem { name: "minecraft:emerald".into(), count: 1, damage: 0 },
            buy_count_a: 20,
            uses: 3,
            max_uses: 16,
            price_multiplier_a: 0.05,
            demand: 2,
            trader_exp: 2,
            reward_exp: true,
            net_id: 7,
            ..TradeOffer::default()
        }
    }

    #[test]
    fn offers_read_back_from_their_nbt() {
        let mut second = offer();
        second.buy_b = Some(TradeItem { name: "minecraft:book".into(), count: 1, damage: 0 });
        second.buy_count_b = 1;
        second.net_id = 8;
        let p = UpdateTrade { offers: UpdateTrade::offers_nbt(&[offer(), second.clone()]), ..UpdateTrade::default() };
        assert_eq!(p.recipes(), vec![offer(), second]);
    }

    #[test]
    fn the_villager_id_reads_both_ways() {
        let p = UpdateTrade { villager_unique_id: 153, ..UpdateTrade::default() };
        assert_eq!(p.villager_ids(), [153, -77]);
        let p = UpdateTrade { villager_unique_id: 8, ..UpdateTrade::default() };
        assert_eq!(p.villager_ids(), [8, 4]);
    }

    #[test]
    fn malformed_offers_are_skipped_not_fatal() {
        let junk = Nbt {
            name: String::new(),
            tag: NbtTag::Compound(vec![(
                "Recipes".into(),
                NbtTag::List(
                    10,
                    vec![
                        NbtTag::Int(3),
                        NbtTag::Compound(vec![("buyA".into(), NbtTag::String("x".into()))]),
                        NbtTag::Compound(vec![
                            (
                                "buyA".into(),
                                TradeItem { name: "minecraft:emerald".into(), count: 1, damage: 0 }.to_nbt(),
                            ),
                            ("sell".into(), TradeItem { name: "minecraft:bread".into(), count: 6, damage: 0 }.to_nbt()),
                            ("netId".into(), NbtTag::Long(-4)),
                            ("uses".into(), NbtTag::String("many".into())),
                        ]),
                    ],
                ),
            )]),
        };
        let p = UpdateTrade { offers: junk, ..UpdateTrade::default() };
        let got = p.recipes();
        assert_eq!(got.len(), 1, "only the entry with buyA and sell reads");
        assert_eq!((got[0].buy_count_a, got[0].uses, got[0].net_id), (1, 0, 0), "defaults for what does not read");
        assert!(UpdateTrade::default().recipes().is_empty());
    }
}
