//! `EntityPlugin`: the entities and players a bot sees, as ECS entities.
//!
//! Every mob, item or other player a server announces to a bot becomes one ECS entity tagged
//! [`SeenBy`]`(bot)`, so several bots can share an app without mixing up their views. The bot's
//! [`EntityIndex`] maps the server's runtime ids (used by most packets) and unique ids (used by
//! RemoveEntity) to those entities. Positions are always feet positions: the eye offset of
//! players (1.62) is taken off on arrival.
//!
//! What is shared between bots and what is not: what an entity is ([`EntityKind`]) and who a
//! player is ([`PlayerInfo`]) are shared records ([`EntityRecords`]), one per distinct content
//! in the process, however many bots see that zombie or that player. The rest — ids, position,
//! motion, rotation, flags, name tag, item stack — is kept per bot, for two reasons:
//!
//! - Nothing in the protocol says that two bots see the same entity. Runtime (and unique) ids
//!   may be numbered per connection: dragonfly gives each session's entities ids from that
//!   session's own counter, the player itself always 1 (`server/session`:
//!   `selfEntityRuntimeID`, `currentEntityRuntimeID`), so one runtime id names different mobs
//!   for two bots, and one mob has different ids; a table keyed by server and runtime id would
//!   mix them up.
//! - Each bot's view is what its own connection told it, at the time it arrived: a mob moved in
//!   one bot's stream has not moved for a bot whose packet is still in flight, and entities come
//!   and go with each bot's own view distance. A merged entity would let one bot's packets
//!   change what another sees, which `danger`, `nearby` and the motion tracks must not do.
//!
//! The per-tick proximity work ([`EntitySet::Proximity`]) groups the entities by bot in one pass,
//! so its cost follows the entities tracked, not bots × entities.
//!
//! Packets: AddPlayer, AddEntity (string identifier → name and category from
//! the vendored entity table), AddItemEntity, RemoveEntity (by **unique** id), TakeItemEntity,
//! MoveEntity, MoveEntityDelta (absolute values for the axes present), MovePlayer of others,
//! SetEntityMotion, SetEntityData (name tag, flags), PlayerList (the server roster),
//! ChangeDimension and disconnects (everything is forgotten).
//!
//! Agent surface: `nearby` and `players` commands, the first player or mob on a line of sight
//! for `look`/`raycast` ([`entity_on_ray`]); `player_join`, `player_leave`,
//! `player_appear`, `player_disappear`, `player_nearby`, `player_left_nearby` and `danger` events.

pub mod commands;
mod events;
mod motion;
pub mod packets;
mod proximity;
pub mod records;
mod roster;
mod sight;
pub mod table;
mod tracking;

use std::collections::HashMap;
use std::ops::Deref;
use std::sync::Arc;

use bevy_app::{App, Plugin};
use bevy_ecs::prelude::*;
use bevy_ecs::schedule::common_conditions::on_message;
use clawcraft_core::{AppCommandExt, AppEventExt, CorePlugin, TickSet, Vec3};
use clawcraft_network::ConnectionClosed;

pub use commands::{DEFAULT_NEARBY_RADIUS, MAX_NEARBY_RADIUS};
pub use commands::{
    Nearby, NearbyItem, NearbyLists, NearbyMob, NearbyPlayer, NearbyResponse, Players, PlayersResponse, RosterPlayer,
    Sighting,
};
pub use events::{Danger, PlayerAppear, PlayerDisappear, PlayerJoin, PlayerLeave, PlayerLeftNearby, PlayerNearby};
pub use motion::{MOTION_WINDOW, MotionTrack, STILL_SPEED, heading};
pub use proximity::{
    ByBot, CLOSE_ENTER, CLOSE_LEAVE, DANGER_CLOSE, DANGER_LEAVE_MARGIN, DANGER_MELEE, DangerZone, NEAR_ENTER,
    NEAR_LEAVE, Proximity, Threat, Zone, next_danger_zone, next_zone,
};
pub use records::{EntityRecords, KindRecord, PlayerIdentity, SharedRecords};
pub use roster::{Roster, RosterEntry, platform_name};
pub use sight::entity_on_ray;
pub use table::{EntityCategory, EntityInfo, EntityTable, classify, classify_for};

/// Marks an entity as part of what bot `.0` sees.
#[derive(Component, Debug, Clone, Copy, PartialEq, Eq)]
pub struct SeenBy(pub Entity);

/// The server's ids of an entity.
#[derive(Component, Debug, Clone, Copy, PartialEq, Eq)]
pub struct WorldEntity {
    /// Runtime id: what movement and data packets name.
    pub runtime_id: u64,
    /// Unique id: what RemoveEntity names.
    pub unique_id: i64,
}

/// What an entity is: a record shared by every entity of that kind that any bot sees (see
/// [`EntityRecords`]); its fields read through `Deref` (`kind.name`, `kind.category`).
#[derive(Component, Debug, Clone, PartialEq, Eq)]
pub struct EntityKind(pub Arc<KindRecord>);

impl Deref for EntityKind {
    type Target = KindRecord;
    fn deref(&self) -> &KindRecord {
        &self.0
    }
}

/// Feet position (players' eye offset removed; items and others as sent).
#[derive(Component, Debug, Clone, Copy, PartialEq, Default)]
pub struct EntityPosition(pub Vec3);

/// Last velocity the server sent (blocks per tick).
#[derive(Component, Debug, Clone, Copy, PartialEq, Default)]
pub struct EntityVelocity(pub Vec3);

/// Rotation in degrees.
#[derive(Component, Debug, Clone, Copy, PartialEq, Default)]
pub struct EntityRotation {
    /// Body yaw.
    pub yaw: f32,
    /// Pitch (positive looks down).
    pub pitch: f32,
    /// Head yaw.
    pub head_yaw: f32,
}

/// A custom name (metadata key 4), present only when the server set one.
#[derive(Component, Debug, Clone, PartialEq, Eq)]
pub struct NameTag(pub String);

/// Metadata key 0 bits (bit 0 on fire, 1 sneaking, 2 riding, 3 sprinting, 5 invisible, …).
#[derive(Component, Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct EntityFlags(pub u64);

impl EntityFlags {
    /// Whether flag bit `bit` is set.
    pub fn has(self, bit: u32) -> bool {
        bit < 64 && self.0 & (1 << bit) != 0
    }
}

/// Who another player is: a record shared by every bot that sees that player (see
/// [`EntityRecords`]); its fields read through `Deref` (`info.name`, `info.uuid`).
#[derive(Component, Debug, Clone, PartialEq, Eq)]
pub struct PlayerInfo(pub Arc<PlayerIdentity>);

impl Deref for PlayerInfo {
    type Target = PlayerIdentity;
    fn deref(&self) -> &PlayerIdentity {
        &self.0
    }
}

/// A dropped item stack.
#[derive(Component, Debug, Clone, PartialEq, Eq)]
pub struct ItemEntity {
    /// Item network id.
    pub network_id: i32,
    /// Identifier from the server's item registry, or `item#<network id>` before it arrived.
    pub name: String,
    /// Stack size.
    pub count: u16,
}

/// One indexed entity of a bot.
#[derive(Debug, Clone, PartialEq)]
pub struct IndexEntry {
    /// The ECS entity.
    pub entity: Entity,
    /// Server runtime id.
    pub runtime_id: u64,
    /// Server unique id.
    pub unique_id: i64,
    /// What it is (counts without touching the entity).
    pub category: EntityCategory,
    /// Who a player is, kept here so events can name a player removed in the tick it was added
    /// (before its components exist).
    pub player: Option<Arc<PlayerIdentity>>,
}

/// A bot's entities by runtime id and by unique id. Lives on the bot's entity.
#[derive(Component, Debug, Clone, Default, PartialEq)]
pub struct EntityIndex {
    by_runtime: HashMap<u64, i64>,
    by_unique: HashMap<i64, IndexEntry>,
}

impl EntityIndex {
    /// The entity with runtime id `id`.
    pub fn by_runtime(&self, id: u64) -> Option<&IndexEntry> {
        self.by_runtime.get(&id).and_then(|u| self.by_unique.get(u))
    }
    /// The entity with unique id `id`.
    pub fn by_unique(&self, id: i64) -> Option<&IndexEntry> {
        self.by_unique.get(&id)
    }
    /// Every indexed entity.
    pub fn entries(&self) -> impl Iterator<Item = &IndexEntry> {
        self.by_unique.values()
    }
    /// Number of indexed entities.
    pub fn len(&self) -> usize {
        self.by_unique.len()
    }
    /// Whether nothing is indexed.
    pub fn is_empty(&self) -> bool {
        self.by_unique.is_empty()
    }
    /// Adds `entry`, returning the entries it displaced (same unique id or same runtime id), whose
    /// entities the caller despawns.
    pub fn insert(&mut self, entry: IndexEntry) -> Vec<IndexEntry> {
        let mut old = Vec::new();
        if let Some(e) = self.remove_unique(entry.unique_id) {
            old.push(e);
        }
        if let Some(e) = self.by_runtime.get(&entry.runtime_id).copied().and_then(|u| self.remove_unique(u)) {
            old.push(e);
        }
        self.by_runtime.insert(entry.runtime_id, entry.unique_id);
        self.by_unique.insert(entry.unique_id, entry);
        old
    }
    /// Removes the entity with unique id `id`.
    pub fn remove_unique(&mut self, id: i64) -> Option<IndexEntry> {
        let entry = self.by_unique.remove(&id)?;
        if self.by_runtime.get(&entry.runtime_id) == Some(&id) {
            self.by_runtime.remove(&entry.runtime_id);
        }
        Some(entry)
    }
    /// Removes everything, returning what was indexed.
    pub fn drain(&mut self) -> Vec<IndexEntry> {
        self.by_runtime.clear();
        self.by_unique.drain().map(|(_, e)| e).collect()
    }
}

/// Item identifiers by network id, from the server's `item_registry` (per bot).
#[derive(Component, Debug, Clone, Default, PartialEq)]
pub struct ItemNames(pub HashMap<i32, String>);

/// Tunables shared by every bot.
#[derive(Resource, Debug, Clone, PartialEq)]
pub struct EntitySettings {
    /// A hostile mob this close (blocks) raises `danger` (ClawCraft's `CLAWCRAFT_DANGER_MOB_DIST`).
    pub danger_mob_dist: f64,
    /// `CLAWCRAFT_DANGER_MODE=interval`: ticks before the same mob raises `danger` again (100 = 5 s).
    pub danger_debounce_ticks: u64,
}

impl Default for EntitySettings {
    fn default() -> Self {
        Self { danger_mob_dist: 8.0, danger_debounce_ticks: clawcraft_core::danger::INTERVAL_TICKS }
    }
}

/// Written when an entity picks up an item entity (TakeItemEntity), before the item is
/// forgotten, so the inventory can tell a pickup from other gains.
#[derive(Message, Debug, Clone, PartialEq)]
pub struct ItemPickedUp {
    /// The bot that saw it.
    pub bot: Entity,
    /// Runtime id of the item entity.
    pub item_runtime_id: u64,
    /// Runtime id of whoever took it.
    pub taker_runtime_id: u64,
    /// Whether the bot itself took it.
    pub by_self: bool,
    /// The stack, when the item was known.
    pub item: Option<ItemEntity>,
    /// Where it lay.
    pub position: Option<Vec3>,
}

/// Counts of what bot `bot` sees: `(players, mobs, items)`; mobs are every non-player,
/// non-item entity. For `status`.
pub fn entity_counts(world: &World, bot: Entity) -> (u64, u64, u64) {
    let Some(index) = world.get::<EntityIndex>(bot) else { return (0, 0, 0) };
    index.entries().fold((0, 0, 0), |(p, m, i), e| match e.category {
        EntityCategory::Player => (p + 1, m, i),
        EntityCategory::Item => (p, m, i + 1),
        _ => (p, m + 1, i),
    })
}

/// Order of this plugin's systems. Inside [`TickSet::HandlePackets`] entities are added/removed
/// first (their commands are applied before updates run, so an AddEntity and a MoveEntity in one
/// tick both land), then updated. Proximity runs after *every* plugin's packet handling (the
/// bot's own position included) and before commands.
#[derive(SystemSet, Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum EntitySet {
    /// Add/remove/take, roster, item names, forgetting on disconnect.
    Lifecycle,
    /// Movement, velocity and metadata of known entities.
    Update,
    /// Zone and danger events.
    Proximity,
}

/// Entities, the roster, proximity and danger events, `nearby` and `players`.
pub struct EntityPlugin;

impl Plugin for EntityPlugin {
    fn build(&self, app: &mut App) {
        if !app.is_plugin_added::<CorePlugin>() {
            app.add_plugins(CorePlugin);
        }
        app.init_resource::<EntitySettings>()
            .init_resource::<EntityRecords>()
            .add_message::<ItemPickedUp>()
            .configure_sets(
                clawcraft_core::TickWork,
                (EntitySet::Lifecycle, EntitySet::Update).chain().in_set(TickSet::HandlePackets),
            )
            .configure_sets(
                clawcraft_core::TickWork,
                EntitySet::Proximity.after(TickSet::HandlePackets).before(TickSet::Commands),
            )
            .add_systems(
                clawcraft_core::TickWork,
                (
                    tracking::init_bot_state.in_set(clawcraft_core::gate::Gate::Packets),
                    (
                        tracking::forget_on_disconnect.run_if(on_message::<ConnectionClosed>),
                        (roster::handle_player_list, tracking::handle_item_registry)
                            .in_set(clawcraft_core::gate::Gate::Packets),
                    ),
                    tracking::handle_lifecycle.in_set(clawcraft_core::gate::Gate::Packets),
                )
                    .chain()
                    .in_set(EntitySet::Lifecycle),
            )
            .add_systems(
                clawcraft_core::TickWork,
                tracking::handle_updates.in_set(EntitySet::Update).in_set(clawcraft_core::gate::Gate::Packets),
            )
            .add_systems(
                clawcraft_core::TickWork,
                (proximity::player_zones, proximity::danger)
                    .in_set(EntitySet::Proximity)
                    .run_if(proximity::anyone_around),
            )
            .add_observer(tracking::forget_with_bot)
            .insert_resource(clawcraft_core::EntitySight(sight::entity_on_ray))
            .add_agent_command::<Nearby>()
            .add_agent_command::<Players>()
            .add_agent_event::<PlayerJoin>()
            .add_agent_event::<PlayerLeave>()
            .add_agent_event::<PlayerAppear>()
            .add_agent_event::<PlayerDisappear>()
            .add_agent_event::<PlayerNearby>()
            .add_agent_event::<PlayerLeftNearby>()
            .add_agent_event::<Danger>();
    }
}
