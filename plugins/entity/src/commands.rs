//! `nearby` and `players`.

use clawcraft_core::{AgentCommand, CommandCtx, CommandError, EntityIds, LocalBot, Position, TickCount, Vec3};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::motion::{MotionTrack, heading, round_velocity};
use crate::roster::{Roster, RosterEntry};
use crate::table::EntityCategory;
use crate::{EntityIndex, EntityKind, EntityPosition, EntityVelocity, ItemEntity, NameTag, PlayerInfo};

/// Largest `nearby` radius: beyond it the answer would be the whole entity list, which the agent
/// should not pay for by accident.
pub const MAX_NEARBY_RADIUS: f64 = 256.0;
/// `nearby` radius when none is given.
pub const DEFAULT_NEARBY_RADIUS: f64 = 32.0;

fn round2(v: f64) -> f64 {
    (v * 100.0).round() / 100.0
}

/// `{"action":"nearby","radius":32}`: players, mobs and items around the bot (or `position`).
#[derive(Deserialize, JsonSchema)]
pub struct Nearby {
    /// Radius in blocks (default 32, at most 256).
    pub radius: Option<f64>,
    /// Centre (default: the bot's feet).
    pub position: Option<Vec3>,
}

/// Where an entity in `nearby` is and how it moves: the same for players, mobs and items.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct Sighting {
    /// Feet position.
    pub position: Vec3,
    /// Runtime id.
    pub id: u64,
    /// Blocks from the centre.
    pub distance: f64,
    /// Blocks per second, only while it moves (see SKILL.md for the sources).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub velocity: Option<Vec3>,
    /// Compass direction of its horizontal movement (`N` = -Z, `E` = +X, `NE`, …), only while it
    /// moves horizontally.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub heading: Option<&'static str>,
}

impl Sighting {
    /// Nearer first by the exact distance; ties by id, so the order is stable.
    fn nearer(&self, other: &Self) -> std::cmp::Ordering {
        self.distance.total_cmp(&other.distance).then(self.id.cmp(&other.id))
    }
}

/// A player in `nearby`.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct NearbyPlayer {
    pub name: String,
    pub uuid: String,
    #[serde(flatten)]
    pub seen: Sighting,
}

/// A mob (or other non-player, non-item entity) in `nearby`.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct NearbyMob {
    /// Identifier, e.g. `minecraft:zombie`.
    #[serde(rename = "type")]
    pub kind: String,
    /// Short name, e.g. `zombie`.
    pub name: String,
    /// Human name, e.g. `Zombie`.
    pub display_name: String,
    /// `hostile`, `neutral`, `passive` or `other`.
    pub category: EntityCategory,
    /// Custom name, when it has one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name_tag: Option<String>,
    #[serde(flatten)]
    pub seen: Sighting,
}

/// A dropped item in `nearby`.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct NearbyItem {
    /// Item identifier, e.g. `minecraft:diamond`.
    pub item: String,
    pub count: u16,
    #[serde(flatten)]
    pub seen: Sighting,
}

/// The lists of `nearby`, each sorted by distance.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema, Default)]
pub struct NearbyLists {
    pub players: Vec<NearbyPlayer>,
    pub mobs: Vec<NearbyMob>,
    pub items: Vec<NearbyItem>,
}

/// Response of `nearby`.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct NearbyResponse {
    pub nearby: NearbyLists,
    /// The radius used.
    pub radius: f64,
}

impl AgentCommand for Nearby {
    const NAME: &'static str = "nearby";
    const SUMMARY: &'static str = "Players, mobs and dropped items within a radius (default 32, max 256) of the bot or of position, nearest first";
    const EXAMPLE: &'static str = r#"{"action":"nearby","radius":32}"#;
    const SIZE_HINT: Option<&'static str> = Some("use a smaller radius");
    const QUERY: bool = true;
    type Response = NearbyResponse;

    fn run(self, ctx: &mut CommandCtx<'_>) -> Result<NearbyResponse, CommandError> {
        let radius = self.radius.unwrap_or(DEFAULT_NEARBY_RADIUS);
        if !radius.is_finite() || radius <= 0.0 || radius > MAX_NEARBY_RADIUS {
            return Err(CommandError::out_of_range(format!("radius must be in (0, {MAX_NEARBY_RADIUS}]")));
        }
        let world = &*ctx.world;
        let center = match self.position {
            Some(p) => p,
            None => world.get::<Position>(ctx.bot).map(|p| p.0).ok_or_else(CommandError::not_spawned)?,
        };
        let own_runtime = world.get::<EntityIds>(ctx.bot).map(|i| i.runtime_id);
        let now = world.get_resource::<TickCount>().map_or(0, |t| t.0);
        let mut out = NearbyLists::default();
        let Some(index) = world.get::<EntityIndex>(ctx.bot) else {
            return Ok(NearbyResponse { nearby: out, radius });
        };
        for entry in index.entries() {
            if Some(entry.runtime_id) == own_runtime {
                continue;
            }
            let Some(pos) = world.get::<EntityPosition>(entry.entity) else { continue };
            let distance = center.distance(pos.0);
            if distance > radius {
                continue;
            }
            let sent = world.get::<EntityVelocity>(entry.entity).map_or(Vec3::ZERO, |v| v.0);
            let velocity = world.get::<MotionTrack>(entry.entity).and_then(|t| t.velocity(sent, now));
            let seen = Sighting {
                position: pos.0.rounded(),
                id: entry.runtime_id,
                distance,
                velocity: velocity.map(round_velocity),
                heading: velocity.and_then(heading),
            };
            match entry.category {
                EntityCategory::Player => {
                    let Some(info) = world.get::<PlayerInfo>(entry.entity) else { continue };
                    out.players.push(NearbyPlayer { name: info.name.clone(), uuid: info.uuid.clone(), seen });
                }
                EntityCategory::Item => {
                    let Some(item) = world.get::<ItemEntity>(entry.entity) else { continue };
                    out.items.push(NearbyItem { item: item.name.clone(), count: item.count, seen });
                }
                category => {
                    let Some(kind) = world.get::<EntityKind>(entry.entity) else { continue };
                    out.mobs.push(NearbyMob {
                        kind: kind.identifier.clone(),
                        name: kind.name.clone(),
                        display_name: kind.display_name.clone(),
                        category,
                        name_tag: world.get::<NameTag>(entry.entity).map(|t| t.0.clone()),
                        seen,
                    });
                }
            }
        }
        // Sort on the exact distance (ties by id, so the order is stable), then round for output.
        out.players.sort_by(|a, b| a.seen.nearer(&b.seen));
        out.mobs.sort_by(|a, b| a.seen.nearer(&b.seen));
        out.items.sort_by(|a, b| a.seen.nearer(&b.seen));
        let players = out.players.iter_mut().map(|p| &mut p.seen);
        let mobs = out.mobs.iter_mut().map(|m| &mut m.seen);
        for seen in players.chain(mobs).chain(out.items.iter_mut().map(|i| &mut i.seen)) {
            seen.distance = round2(seen.distance);
        }
        Ok(NearbyResponse { nearby: out, radius })
    }
}

/// `{"action":"players"}`: the server roster (everyone else online, seen or not).
#[derive(Deserialize, JsonSchema)]
pub struct Players {}

/// One online player.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct RosterPlayer {
    pub name: String,
    pub uuid: String,
    /// Lower-case platform, e.g. `windows`.
    pub platform: String,
    /// Unix ms when the bot learnt the player was online.
    pub joined_at: u64,
}

/// Response of `players`.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct PlayersResponse {
    /// Sorted by join time, then name.
    pub players: Vec<RosterPlayer>,
    pub count: usize,
}

impl AgentCommand for Players {
    const NAME: &'static str = "players";
    const SUMMARY: &'static str = "Everyone else online on the server (the roster), with platform and join time";
    const EXAMPLE: &'static str = r#"{"action":"players"}"#;
    const SIZE_HINT: Option<&'static str> = Some("use nearby with a radius for the players around you");
    const QUERY: bool = true;
    type Response = PlayersResponse;

    fn run(self, ctx: &mut CommandCtx<'_>) -> Result<PlayersResponse, CommandError> {
        // As ClawCraft: the bot itself is not in its own list.
        let own_name = ctx.world.get::<LocalBot>(ctx.bot).map(|b| b.username.to_lowercase());
        let own_id = ctx.world.get::<EntityIds>(ctx.bot).map(|i| i.unique_id);
        let is_self = |e: &RosterEntry| Some(e.unique_id) == own_id || Some(e.name.to_lowercase()) == own_name;
        let mut players: Vec<RosterPlayer> = ctx
            .world
            .get::<Roster>(ctx.bot)
            .map(|r| {
                r.players
                    .values()
                    .filter(|e| !is_self(e))
                    .map(|e| RosterPlayer {
                        name: e.name.clone(),
                        uuid: e.uuid.clone(),
                        platform: e.platform.clone(),
                        joined_at: e.joined_at,
                    })
                    .collect()
            })
            .unwrap_or_default();
        players.sort_by(|a, b| a.joined_at.cmp(&b.joined_at).then_with(|| a.name.cmp(&b.name)));
        Ok(PlayersResponse { count: players.len(), players })
    }
}
