//! Components on a bot's entity. Every piece of per-bot state lives here rather than in a global
//! resource, so several bots can share one `App`.

use std::collections::HashMap;
use std::sync::Arc;

use bevy_ecs::lifecycle::HookContext;
use bevy_ecs::prelude::*;
use bevy_ecs::world::DeferredWorld;

use crate::command::CommandError;
use crate::math::Vec3;

/// Player eye height above the feet. The wire carries eye positions for the own player; the agent
/// always sees feet positions.
pub const EYE_HEIGHT: f64 = 1.62;

/// Marks the entity of a bot controlled by this process: one per bot name at a time (a
/// reconnect replaces the old session's entity). Inserting it records the name in [`BotNames`].
#[derive(Component, Debug, Clone)]
#[component(on_insert = remember_bot_name)]
#[require(crate::gate::SettledBot)]
pub struct LocalBot {
    /// The player name the server sees; requests address the bot by it (`"bot": "<name>"`).
    pub username: String,
}

fn remember_bot_name(mut world: DeferredWorld, ctx: HookContext) {
    let Some(name) = world.get::<LocalBot>(ctx.entity).map(|b| Arc::<str>::from(b.username.as_str())) else {
        return;
    };
    if let Some(mut names) = world.get_resource_mut::<BotNames>() {
        names.0.insert(ctx.entity, name);
    }
}

/// The Xbox user id of a bot signed in to Xbox Live (absent on an offline login): a signed
/// book names its author by it.
#[derive(Component, Debug, Clone, PartialEq, Eq)]
pub struct Xuid(pub String);

/// On a bot whose connection is gone and that will connect again (its swarm entry or
/// `CLAWCRAFT_RECONNECT` says so): the process keeps running for it.
#[derive(Component, Debug, Clone, Copy, PartialEq, Eq)]
pub struct AwaitingReconnect {
    /// 1 for the first attempt after a loss.
    pub attempt: u32,
    /// The tick the attempt starts.
    pub due_tick: u64,
}

/// The name of every bot entity this process has had, kept after the entity is gone so an event
/// of an ended session is still written with its bot's name.
#[derive(Resource, Debug, Default, Clone)]
pub struct BotNames(pub HashMap<Entity, Arc<str>>);

impl BotNames {
    /// The name of `bot`, if it is (or was) a bot of this process.
    pub fn get(&self, bot: Entity) -> Option<&Arc<str>> {
        self.0.get(&bot)
    }
}

/// Whether events name their bot (`"bot": "<name>"`). Always when the process was started for
/// a swarm (`always`); otherwise once more than one bot runs, so a single-bot run keeps
/// ClawCraft's event shape exactly.
#[derive(Resource, Debug, Default, Clone, Copy)]
pub struct NameBots {
    pub always: bool,
}

/// Where the bot's connection is in its life.
#[derive(Component, Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Lifecycle {
    /// Connecting and logging in.
    #[default]
    Connecting,
    /// Logged in, receiving the world, not spawned yet.
    Joining,
    /// Spawned: input flows every tick.
    Spawned,
    /// Connection closed; the entity stays so its last state can be read.
    Disconnected,
}

/// The bot's feet position in world space.
#[derive(Component, Debug, Clone, Copy, PartialEq, Default)]
pub struct Position(pub Vec3);

/// Head rotation in degrees (Bedrock's wire unit).
#[derive(Component, Debug, Clone, Copy, PartialEq, Default)]
pub struct Rotation {
    pub yaw: f32,
    pub pitch: f32,
}

/// Identifiers the server gave the bot in StartGame.
#[derive(Component, Debug, Clone, Copy, PartialEq, Eq)]
pub struct EntityIds {
    pub runtime_id: u64,
    pub unique_id: i64,
}

/// Facts from StartGame that other plugins read.
#[derive(Component, Debug, Clone, PartialEq, Default)]
pub struct WorldInfo {
    /// `overworld`, `nether`, `the_end`.
    pub dimension: String,
    /// The player's game mode name, e.g. `survival`.
    pub gamemode: String,
    pub world_name: String,
    pub block_network_ids_are_hashes: bool,
    pub server_authoritative_block_breaking: bool,
    pub spawn_time_ms: Option<u64>,
}

/// Counters a bot keeps for self-diagnosis (sent inputs, corrections, …).
#[derive(Component, Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct BotStats {
    pub inputs_sent: u64,
    pub corrections: u64,
    pub teleports: u64,
    pub packets_received: u64,
    pub decode_errors: u64,
}

/// The bots of this process, by name, in name order.
pub fn bot_list(world: &mut World) -> Vec<(Entity, String)> {
    let mut q = world.query::<(Entity, &LocalBot)>();
    let mut bots: Vec<(Entity, String)> = q.iter(world).map(|(e, b)| (e, b.username.clone())).collect();
    bots.sort_by(|a, b| a.1.cmp(&b.1));
    bots
}

/// The bot a request is for. `name` (the request's `bot`) picks it, case-insensitively, or is
/// `UNKNOWN_BOT` naming the closest names. Without a name the only bot answers; with several,
/// a request for one bot (`per_bot`) is `BOT_REQUIRED` naming them, and a process-wide one gets
/// `None`. `None` too when no bot exists.
pub fn resolve_bot(world: &mut World, name: Option<&str>, per_bot: bool) -> Result<Option<Entity>, CommandError> {
    let bots = bot_list(world);
    match name {
        Some(name) => {
            if let Some((bot, _)) = bots.iter().find(|(_, n)| n.eq_ignore_ascii_case(name)) {
                return Ok(Some(*bot));
            }
            Err(unknown_bot(name, &bots))
        }
        None => match bots.as_slice() {
            [] => Ok(None),
            [(only, _)] => Ok(Some(*only)),
            _ if !per_bot => Ok(None),
            several => Err(CommandError::new(
                "BOT_REQUIRED",
                format!("{} bots run here: name one with \"bot\" ({})", several.len(), name_list(several)),
            )),
        },
    }
}

/// Up to 20 names, then how many more.
fn name_list(bots: &[(Entity, String)]) -> String {
    let mut names: Vec<&str> = bots.iter().take(20).map(|(_, n)| n.as_str()).collect();
    let more = bots.len().saturating_sub(20);
    let more = if more > 0 { format!(", … {more} more") } else { String::new() };
    names.dedup();
    format!("{}{more}", names.join(", "))
}

/// `UNKNOWN_BOT` for `name`, naming the closest of `bots` (or all of them when none is close).
pub fn unknown_bot(name: &str, bots: &[(Entity, String)]) -> CommandError {
    let lower = name.to_lowercase();
    let mut close: Vec<(usize, &str)> = bots
        .iter()
        .map(|(_, n)| (crate::command::edit_distance(&lower, &n.to_lowercase()), n.as_str()))
        .filter(|(d, n)| *d <= 1.max(n.len() / 3) || n.to_lowercase().contains(&lower))
        .collect();
    close.sort();
    let hint = match close.as_slice() {
        [] if bots.is_empty() => String::from(" (no bot runs)"),
        [] => format!(" (bots: {})", name_list(bots)),
        close => format!(" (did you mean: {})", close.iter().take(3).map(|(_, n)| *n).collect::<Vec<_>>().join(", ")),
    };
    CommandError::new("UNKNOWN_BOT", format!("Unknown bot: {name}{hint}"))
}

/// What the bot carries, as an inventory plugin last knew it — the interface through which
/// other plugins (skill verifiers: `inventory_delta`, `inventory_at_least`, `equipped`) read the
/// inventory without depending on the plugin that tracks it. Absent until such a plugin inserts
/// it on the bot; readers treat "absent" as "unknown", never as "empty".
#[derive(Component, Debug, Clone, Default, PartialEq)]
pub struct InventoryView {
    /// Every stack in the bot's own inventory (hotbar, main, armor, offhand), in slot order.
    pub stacks: Vec<ItemStackView>,
    /// What is equipped, by slot name: `hand` (the selected hotbar stack), `offhand`, `head`,
    /// `chest`, `legs`, `feet`. Empty slots are left out.
    pub equipped: std::collections::BTreeMap<String, ItemStackView>,
}

/// One stack in an [`InventoryView`].
#[derive(Debug, Clone, PartialEq)]
pub struct ItemStackView {
    /// Item name with namespace, e.g. `minecraft:oak_log`.
    pub name: String,
    pub count: u32,
    /// Slot index in the bot's inventory window.
    pub slot: u32,
}

impl InventoryView {
    /// Total count of an item across stacks (`minecraft:` optional, case-insensitive).
    pub fn count(&self, item: &str) -> u64 {
        self.stacks.iter().filter(|s| same_item(&s.name, item)).map(|s| u64::from(s.count)).sum()
    }
}

/// Whether two item or block names are the same, ignoring case and a `minecraft:` prefix.
pub fn same_item(a: &str, b: &str) -> bool {
    let strip = |s: &str| {
        let s = s.trim();
        s.strip_prefix("minecraft:").unwrap_or(s).to_ascii_lowercase()
    };
    strip(a) == strip(b)
}
