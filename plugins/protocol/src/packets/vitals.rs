//! Vitals packets: typed views (minecraft-data field names). `update_attributes` and `respawn`
//! are in the parent module.

use super::{BlockPos, Vec3};
use crate::codec::Packet;
use serde::{Deserialize, Serialize};

/// `mob_effect`: a status effect added, updated or removed.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct MobEffect {
    pub runtime_entity_id: u64,
    /// `"add"`, `"update"` or `"remove"`.
    pub event_id: String,
    /// Effect id (1 speed … 30 darkness …).
    pub effect_id: i32,
    /// 0 = level I.
    pub amplifier: i32,
    pub particles: bool,
    /// Duration in ticks.
    pub duration: i32,
    pub tick: u64,
    pub ambient: bool,
}
impl Packet for MobEffect {
    const NAME: &'static str = "mob_effect";
}

/// `entity_event` (ActorEvent): hurt, death and other entity animations.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct EntityEvent {
    pub runtime_entity_id: u64,
    /// `"hurt_animation"`, `"death_animation"`, `"respawn"`, … (or a raw number as text).
    pub event_id: String,
    pub data: i32,
    pub fire_at_position: Option<Vec3>,
}
impl Packet for EntityEvent {
    const NAME: &'static str = "entity_event";
}

/// `death_info`: why the player died.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct DeathInfo {
    /// Death message key, e.g. `death.attack.mob`.
    pub cause: String,
    /// Its parameters (the player's and killer's names).
    pub messages: Vec<String>,
}
impl Packet for DeathInfo {
    const NAME: &'static str = "death_info";
}

/// `set_health`: the player's health (rarely used by BDS).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct SetHealth {
    pub health: i32,
}
impl Packet for SetHealth {
    const NAME: &'static str = "set_health";
}

/// `player_action` (client → server).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct PlayerAction {
    pub runtime_entity_id: u64,
    /// `"respawn"`, `"jump"`, `"start_break"`, … (minecraft-data names).
    pub action: String,
    pub position: BlockPos,
    pub result_position: BlockPos,
    pub face: i32,
}
impl Packet for PlayerAction {
    const NAME: &'static str = "player_action";
}
