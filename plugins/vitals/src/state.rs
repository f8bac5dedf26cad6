//! Per-bot vitals state and the pure rules that turn changes into events.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use bevy_ecs::prelude::*;
use clawcraft_core::Vec3;
use schemars::JsonSchema;
use serde::Serialize;
use serde_json::Value;

use crate::events::Bar;

/// Effect id → name (28+ from ClawCraft's `vitals.js`).
pub const EFFECT_NAMES: &[(i32, &str)] = &[
    (1, "speed"),
    (2, "slowness"),
    (3, "haste"),
    (4, "mining_fatigue"),
    (5, "strength"),
    (6, "instant_health"),
    (7, "instant_damage"),
    (8, "jump_boost"),
    (9, "nausea"),
    (10, "regeneration"),
    (11, "resistance"),
    (12, "fire_resistance"),
    (13, "water_breathing"),
    (14, "invisibility"),
    (15, "blindness"),
    (16, "night_vision"),
    (17, "hunger"),
    (18, "weakness"),
    (19, "poison"),
    (20, "wither"),
    (21, "health_boost"),
    (22, "absorption"),
    (23, "saturation"),
    (24, "levitation"),
    (25, "fatal_poison"),
    (26, "conduit_power"),
    (27, "slow_falling"),
    (28, "bad_omen"),
    (29, "village_hero"),
    (30, "darkness"),
    (31, "trial_omen"),
    (32, "wind_charged"),
    (33, "weaving"),
    (34, "oozing"),
    (35, "infested"),
];

/// The name of effect `id` (`unknown_<id>` when not in the table).
pub fn effect_name(id: i32) -> String {
    EFFECT_NAMES.iter().find(|(i, _)| *i == id).map_or_else(|| format!("unknown_{id}"), |(_, n)| (*n).to_owned())
}

/// f32 wire values without float noise (0.1f32 is 0.10000000149…).
pub fn num(v: f32) -> f64 {
    (f64::from(v) * 1000.0).round() / 1000.0
}

/// One active status effect.
#[derive(Debug, Clone, PartialEq)]
pub struct ActiveEffect {
    pub id: i32,
    pub name: String,
    pub amplifier: i32,
    /// Ticks, as the server said when it was added or last updated.
    pub duration: i32,
    /// [`clawcraft_core::TickCount`] at that moment, for `remaining`.
    pub since_tick: u64,
}

/// What the bot knew at its last death (for `status.lastDeath`).
#[derive(Serialize, JsonSchema, Debug, Clone, PartialEq)]
pub struct LastDeath {
    pub pos: Option<Vec3>,
    /// The inventory when the bot died (item objects with `slot` and `windowId`).
    pub items: Vec<Value>,
    pub cause: String,
    pub messages: Vec<String>,
}

/// The bot's vitals.
#[derive(Component, Debug, Clone, PartialEq)]
pub struct Vitals {
    pub health: f64,
    pub max_health: f64,
    pub hunger: f64,
    pub max_hunger: f64,
    pub saturation: f64,
    pub absorption: f64,
    /// Air supply; not carried by attributes (it is entity metadata), so null until known.
    pub breath: Option<f64>,
    pub level: f64,
    pub experience: f64,
    pub exhaustion: f64,
    pub alive: bool,
    /// Active effects by id.
    pub effects: BTreeMap<i32, ActiveEffect>,
    /// Every other attribute by name (`minecraft:movement`, …).
    pub attributes: BTreeMap<String, f64>,
    pub last_death: Option<LastDeath>,
    /// Attributes seen at least once: the first value is the baseline, not a change.
    pub(crate) seen: BTreeSet<String>,
}

impl Default for Vitals {
    fn default() -> Self {
        Self {
            health: 20.0,
            max_health: 20.0,
            hunger: 20.0,
            max_hunger: 20.0,
            saturation: 5.0,
            absorption: 0.0,
            breath: None,
            level: 0.0,
            experience: 0.0,
            exhaustion: 0.0,
            alive: true,
            effects: BTreeMap::new(),
            attributes: BTreeMap::new(),
            last_death: None,
            seen: BTreeSet::new(),
        }
    }
}

impl Vitals {
    pub fn has_effect(&self, name: &str) -> bool {
        self.effects.values().any(|e| e.name == name)
    }

    /// The bars as the `vitals` answer and the map's panel show them.
    pub fn bars(&self) -> Bars {
        Bars {
            health: self.health,
            max_health: self.max_health,
            hunger: self.hunger,
            max_hunger: self.max_hunger,
            saturation: self.saturation,
            absorption: self.absorption,
            breath: self.breath,
            level: self.level,
            experience: self.experience,
            alive: self.alive,
        }
    }
}

/// The bot's bars and whether it is alive: the head of the `vitals` answer and of the map's
/// vitals panel (both flatten it, so these are their field names and order).
#[derive(Serialize, JsonSchema, Debug, Clone, Copy, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct Bars {
    pub health: f64,
    pub max_health: f64,
    pub hunger: f64,
    pub max_hunger: f64,
    pub saturation: f64,
    pub absorption: f64,
    /// Air supply; null (not tracked yet: it is entity metadata, not an attribute).
    pub breath: Option<f64>,
    pub level: f64,
    pub experience: f64,
    pub alive: bool,
}

/// A bar's change within the grouping window: `old` from the first change, `new` from the last.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Change {
    pub old: f64,
    pub new: f64,
    pub max: f64,
}

impl Change {
    fn bar(self) -> Bar {
        Bar { old: self.old, new: self.new, max: self.max }
    }
}

/// Changes gathered over a few ticks so one hit (health, absorption and hunger updates, hurt
/// event, in any order and possibly in different ticks) is one event.
#[derive(Component, Debug, Clone, Default, PartialEq)]
pub struct DamageWindow {
    /// Tick the window opened.
    pub start: Option<u64>,
    pub health: Option<Change>,
    pub hunger: Option<Change>,
    pub absorption: Option<Change>,
    pub saturation: Option<Change>,
    /// A hurt EntityEvent for us arrived.
    pub hurt: bool,
    /// A cause learned from DeathInfo.
    pub cause: Option<String>,
}

impl DamageWindow {
    /// Records a bar change, opening the window.
    pub fn record(&mut self, which: &str, old: f64, new: f64, max: f64, tick: u64) {
        self.start.get_or_insert(tick);
        let slot = match which {
            "health" => &mut self.health,
            "hunger" => &mut self.hunger,
            "absorption" => &mut self.absorption,
            _ => &mut self.saturation,
        };
        *slot = Some(match *slot {
            Some(c) => Change { old: c.old, new, max },
            None => Change { old, new, max },
        });
    }

    /// Opens the window for a hurt event.
    pub fn hurt(&mut self, tick: u64) {
        self.start.get_or_insert(tick);
        self.hurt = true;
    }
}

/// What a closed window amounts to.
#[derive(Debug, Clone, PartialEq)]
pub enum WindowOutcome {
    Damage { cause: String, health: Bar, absorption: Option<Bar>, hunger: Option<Bar> },
    Restored { cause: String, health: Bar },
    Hunger(Bar),
    Nothing,
}

/// The short cause of a death message key (`death.attack.fall` → `fall`).
pub fn cause_from_key(key: &str) -> String {
    let key = key.trim().trim_start_matches('%');
    let rest = key.strip_prefix("death.attack.").or_else(|| key.strip_prefix("death.")).unwrap_or(key);
    let head = rest.split('.').next().unwrap_or(rest);
    match head {
        "fall" | "fell" => "fall",
        "drown" => "drown",
        "starve" => "starvation",
        "inFire" | "onFire" => "fire",
        "lava" => "lava",
        "mob" | "player" | "arrow" | "thrown" | "trident" | "fireball" | "sting" | "thorns" => "attack",
        "explosion" => "explosion",
        "magic" | "indirectMagic" => "magic",
        "wither" => "wither",
        "inWall" => "suffocation",
        "outOfWorld" => "void",
        "" => "unknown",
        other => other,
    }
    .to_owned()
}

/// Closes a window: ClawCraft's causal grouping (`vitals.js flushBuffer`), with causes inferred
/// from DeathInfo, the hurt event, starvation and active effects.
pub fn close_window(w: &DamageWindow, v: &Vitals) -> WindowOutcome {
    let health = w.health.filter(|c| c.new != c.old);
    let absorbed = w.absorption.filter(|c| c.new < c.old);
    let damage_cause = || {
        if let Some(c) = &w.cause {
            c.clone()
        } else if w.hurt {
            "attack".into()
        } else if w.hunger.map_or(v.hunger, |h| h.new) <= 0.0 {
            "starvation".into()
        } else if v.has_effect("poison") || v.has_effect("fatal_poison") {
            "poison".into()
        } else if v.has_effect("wither") {
            "wither".into()
        } else if v.has_effect("instant_damage") {
            "magic".into()
        } else {
            "unknown".into()
        }
    };
    match health {
        Some(h) if h.new < h.old => WindowOutcome::Damage {
            cause: damage_cause(),
            health: h.bar(),
            absorption: w.absorption.map(Change::bar),
            hunger: w.hunger.map(Change::bar),
        },
        Some(h) => {
            let cause = if v.has_effect("regeneration") {
                "regeneration"
            } else if v.has_effect("instant_health") {
                "instant_health"
            } else if w.saturation.is_some_and(|s| s.new < s.old) || w.hunger.is_some_and(|s| s.new < s.old) {
                "natural_regeneration"
            } else {
                "unknown"
            };
            WindowOutcome::Restored { cause: cause.into(), health: h.bar() }
        }
        // A hit fully soaked up by absorption hearts is still damage.
        None if absorbed.is_some() => WindowOutcome::Damage {
            cause: damage_cause(),
            health: Bar { old: v.health, new: v.health, max: v.max_health },
            absorption: absorbed.map(Change::bar),
            hunger: w.hunger.map(Change::bar),
        },
        None => match w.hunger.filter(|c| c.new != c.old) {
            Some(h) => WindowOutcome::Hunger(h.bar()),
            None => WindowOutcome::Nothing,
        },
    }
}

/// Death bookkeeping between the first sign (health 0, death animation, DeathInfo) and the
/// respawn.
#[derive(Component, Debug, Clone, Default, PartialEq)]
pub struct DeathState {
    /// Tick of the first sign of death not yet reported.
    pub pending_since: Option<u64>,
    /// DeathInfo cause and messages.
    pub info: Option<(String, Vec<String>)>,
    /// The server said it is ready to respawn us (Respawn state 1), with the eye position.
    pub respawn_ready: Option<clawcraft_protocol::packets::Vec3>,
    /// The inventory when death showed (health 0), before the server empties it.
    pub items: Option<Vec<Value>>,
}

/// The bot's `danger` threats (`low_health`, `low_hunger`): the last tick each was reported, and
/// which are on (reported and not yet recovered).
#[derive(Component, Debug, Clone, Default, PartialEq)]
pub struct DangerDebounce {
    pub last: HashMap<&'static str, u64>,
    pub active: BTreeSet<&'static str>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn causes_from_death_keys() {
        assert_eq!(cause_from_key("death.attack.mob"), "attack");
        assert_eq!(cause_from_key("%death.fell.accident.water"), "fall");
        assert_eq!(cause_from_key("death.attack.starve"), "starvation");
        assert_eq!(cause_from_key("death.attack.sonic_boom"), "sonic_boom");
    }

    #[test]
    fn windows_group_like_clawcraft() {
        let v = Vitals::default();
        let mut w = DamageWindow::default();
        w.record("hunger", 1.0, 0.0, 20.0, 5);
        w.record("health", 10.0, 9.0, 20.0, 5);
        w.record("health", 9.0, 8.0, 20.0, 6);
        let WindowOutcome::Damage { cause, health, .. } = close_window(&w, &v) else { panic!("damage") };
        assert_eq!(cause, "starvation");
        assert_eq!((health.old, health.new), (10.0, 8.0));
        let mut w = DamageWindow::default();
        w.record("health", 10.0, 12.0, 20.0, 5);
        w.record("saturation", 3.0, 2.0, 20.0, 5);
        assert!(
            matches!(close_window(&w, &v), WindowOutcome::Restored { cause, .. } if cause == "natural_regeneration")
        );
        assert_eq!(close_window(&DamageWindow::default(), &v), WindowOutcome::Nothing);
    }
}
