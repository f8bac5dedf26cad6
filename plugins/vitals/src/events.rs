//! The vitals events, in ClawCraft's shapes (ClawCraft's README).

use bevy_ecs::prelude::{Entity, Message};
use clawcraft_core::Vec3;
use schemars::JsonSchema;
use serde::Serialize;
use serde_json::Value;

/// Old and new value of a bar, with its maximum.
#[derive(Serialize, JsonSchema, Debug, Clone, Copy, PartialEq)]
pub struct Bar {
    pub old: f64,
    pub new: f64,
    pub max: f64,
}

/// `damage_taken`: health (or absorption) went down; changes within the grouping window
/// (3 ticks) are one event.
#[derive(Message, Serialize, JsonSchema, Debug, Clone, PartialEq)]
pub struct DamageTaken {
    #[serde(skip)]
    pub bot: Entity,
    /// `attack` (a hurt event was seen), `fall`, `drown`, `fire`, `lava`, `starvation`, `poison`,
    /// `wither`, `magic`, … or `unknown`.
    pub cause: String,
    pub health: Bar,
    /// Absorption hearts lost in the same window.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub absorption: Option<Bar>,
    /// Hunger change in the same window.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hunger: Option<Bar>,
}
clawcraft_core::event_kind!(
    DamageTaken,
    "damage_taken",
    "Health went down (changes within 3 ticks grouped into one event, with a cause)"
);

/// `health_restored`: health went up.
#[derive(Message, Serialize, JsonSchema, Debug, Clone, PartialEq)]
pub struct HealthRestored {
    #[serde(skip)]
    pub bot: Entity,
    /// `regeneration` (effect), `instant_health`, `natural_regeneration` (saturation spent) or
    /// `unknown`.
    pub cause: String,
    pub health: Bar,
}
clawcraft_core::event_kind!(HealthRestored, "health_restored", "Health went up");

/// `hunger_changed`: hunger changed (up or down) without a health change.
#[derive(Message, Serialize, JsonSchema, Debug, Clone, PartialEq)]
pub struct HungerChanged {
    #[serde(skip)]
    pub bot: Entity,
    pub hunger: Bar,
}
clawcraft_core::event_kind!(HungerChanged, "hunger_changed", "Hunger changed without a health change");

macro_rules! effect_event {
    ($ty:ident, $name:literal, $desc:literal) => {
        #[doc = $desc]
        #[derive(Message, Serialize, JsonSchema, Debug, Clone, PartialEq)]
        #[serde(rename_all = "camelCase")]
        pub struct $ty {
            #[serde(skip)]
            pub bot: Entity,
            /// Effect name, e.g. `speed` (`unknown_<id>` for ids not in the table).
            pub effect: String,
            pub effect_id: i32,
            /// 0 = level I.
            pub amplifier: i32,
            /// Ticks.
            pub duration: i32,
        }
        clawcraft_core::event_kind!($ty, $name, $desc);
    };
}
effect_event!(EffectAdded, "effect_added", "A status effect was applied to the bot");
effect_event!(EffectUpdated, "effect_updated", "A status effect's amplifier or duration changed");

/// `effect_removed`: a status effect ended.
#[derive(Message, Serialize, JsonSchema, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct EffectRemoved {
    #[serde(skip)]
    pub bot: Entity,
    pub effect: String,
    pub effect_id: i32,
}
clawcraft_core::event_kind!(EffectRemoved, "effect_removed", "A status effect expired or was removed");

/// `death`: the bot died.
#[derive(Message, Serialize, JsonSchema, Debug, Clone, PartialEq)]
pub struct Death {
    #[serde(skip)]
    pub bot: Entity,
    /// DeathInfo's cause (a death message key such as `death.attack.mob`), or `unknown`.
    pub cause: String,
    /// DeathInfo's message parameters.
    pub messages: Vec<String>,
}
clawcraft_core::event_kind!(Death, "death", "The bot died");

/// `death_details`: where the bot died and what it carried.
#[derive(Message, Serialize, JsonSchema, Debug, Clone, PartialEq)]
pub struct DeathDetails {
    #[serde(skip)]
    pub bot: Entity,
    /// Feet position at death.
    pub pos: Option<Vec3>,
    /// Carried items when death showed: item objects with `slot` and `windowId`.
    pub items: Vec<Value>,
    pub cause: String,
    pub messages: Vec<String>,
}
clawcraft_core::event_kind!(
    DeathDetails,
    "death_details",
    "Snapshot at death: position, the inventory carried (items with slot and windowId), cause"
);

/// `respawn`: the bot respawned.
#[derive(Message, Serialize, JsonSchema, Debug, Clone, PartialEq)]
pub struct Respawned {
    #[serde(skip)]
    pub bot: Entity,
    /// Feet position the server respawns us at, when it said.
    pub pos: Option<Vec3>,
    /// Whether CLAWCRAFT_RESPAWN did it (else the `respawn` command).
    pub auto: bool,
}
clawcraft_core::event_kind!(Respawned, "respawn", "The bot respawned after death");

/// `danger`: low health or hunger (hostile mobs are reported by the entity plugin).
#[derive(Message, Serialize, JsonSchema, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct Danger {
    #[serde(skip)]
    pub bot: Entity,
    /// `low_health` or `low_hunger`.
    pub threat: String,
    /// The value that crossed the threshold.
    pub value: f64,
    /// CLAWCRAFT_DANGER_HEALTH or CLAWCRAFT_DANGER_HUNGER.
    pub threshold: f64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub health: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_health: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hunger: Option<f64>,
    /// `new` (crossed the threshold), `gone` (recovered above it) or `repeat`.
    pub change: String,
}
clawcraft_core::event_kind!(
    Danger,
    "danger",
    "Danger alert: low health/hunger, change new (crossed the threshold), gone (recovered) or repeat; hostile mobs come from the entity plugin"
);
