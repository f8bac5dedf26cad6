//! What the game thread hands the map a few times a second while a page is open: the bots, the
//! entities they see, and the chunk columns that changed since the last hand-over (shared
//! sub-chunk handles, no block is read here).

use std::sync::Arc;

use bevy_ecs::prelude::*;
use clawcraft_core::{ActiveActions, EntityIds, LocalBot, Position, Rotation};
use clawcraft_entity::{
    EntityCategory, EntityKind, EntityPosition, EntityRotation, ItemEntity, NameTag, PlayerInfo, SeenBy, WorldEntity,
};
use clawcraft_pathfind::{FollowAction, WalkAction};
use clawcraft_world::chunk::{SubChunk, World as ChunkWorld};
use clawcraft_world::ids::{BlockIds, IdTable};
use rustc_hash::{FxHashMap, FxHashSet};

use crate::MapLink;

/// A column: dimension, chunk x, chunk z.
pub type ColumnKey = (i32, i32, i32);

/// Entities handed over at most (nearest to a bot first is not needed: a page shows them all).
pub const MAX_ENTITIES: usize = 2000;
/// Path points of a walk handed over at most.
pub const MAX_PATH: usize = 512;

/// A bot as the map draws it.
#[derive(Debug, Clone, PartialEq)]
pub struct BotView {
    pub name: String,
    /// Feet; `None` before spawn.
    pub pos: Option<[f64; 3]>,
    /// Degrees, Bedrock's way (0 faces +z, 90 faces −x).
    pub yaw: f32,
    pub dimension: Option<i32>,
    /// The steps of the walk still ahead (cell centres at feet height).
    pub path: Vec<[f64; 3]>,
    /// Where the running walk or follow is going.
    pub target: Option<[f64; 3]>,
    /// The running actions' commands.
    pub actions: Vec<&'static str>,
}

/// What an entity is, for its mark.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mark {
    Player,
    Hostile,
    Mob,
    Item,
}

impl Mark {
    pub fn as_str(self) -> &'static str {
        match self {
            Mark::Player => "player",
            Mark::Hostile => "hostile",
            Mark::Mob => "mob",
            Mark::Item => "item",
        }
    }
}

/// An entity some bot sees.
#[derive(Debug, Clone, PartialEq)]
pub struct EntityView {
    pub runtime_id: u64,
    pub mark: Mark,
    /// Its type (`minecraft:zombie`), empty when unknown.
    pub kind: String,
    /// A player's or name-tagged entity's name, an item's `name ×count`.
    pub name: String,
    pub pos: [f64; 3],
    pub yaw: f32,
    /// The bot that sees it (its name).
    pub seen_by: String,
}

/// A column that changed, as the map thread reads it.
pub struct ColumnShot {
    pub key: ColumnKey,
    /// Sub-chunk y of `sub_chunks[0]`.
    pub min_sub: i32,
    pub sub_chunks: Vec<Option<Arc<SubChunk>>>,
    pub ids: Arc<IdTable>,
}

/// One hand-over.
pub struct Snapshot {
    pub bots: Vec<BotView>,
    pub entities: Vec<EntityView>,
    pub columns: Vec<ColumnShot>,
    /// Columns no bot holds any more.
    pub removed: Vec<ColumnKey>,
    /// Every column is in `columns` (the first hand-over after the map had no page open).
    pub full: bool,
}

/// The columns the map was last handed: holding their sub-chunks makes any later change to
/// one a copy (the world changes a sub-chunk in place only while it is its sole holder), so a
/// changed column is one whose handles differ.
#[derive(Resource, Default)]
pub struct Handed {
    columns: FxHashMap<ColumnKey, Vec<Option<Arc<SubChunk>>>>,
    seen: FxHashSet<ColumnKey>,
}

impl Handed {
    /// Forgets every column (and lets their sub-chunks go).
    pub fn clear(&mut self) {
        self.columns = FxHashMap::default();
        self.seen = FxHashSet::default();
    }
}

fn same(a: &[Option<Arc<SubChunk>>], b: &[Option<Arc<SubChunk>>]) -> bool {
    a.len() == b.len()
        && a.iter().zip(b).all(|(x, y)| match (x, y) {
            (Some(x), Some(y)) => Arc::ptr_eq(x, y),
            (None, None) => true,
            _ => false,
        })
}

type BotItem<'a> = (
    &'a LocalBot,
    Option<&'a Position>,
    Option<&'a Rotation>,
    Option<&'a ChunkWorld>,
    Option<&'a BlockIds>,
    Option<&'a WalkAction>,
    Option<&'a FollowAction>,
    Option<&'a ActiveActions>,
);

type EntityItem<'a> = (
    &'a SeenBy,
    &'a WorldEntity,
    &'a EntityPosition,
    Option<&'a EntityKind>,
    Option<&'a NameTag>,
    Option<&'a PlayerInfo>,
    Option<&'a ItemEntity>,
    Option<&'a EntityRotation>,
);

/// Run condition of [`take_snapshot`]: the map asked for one.
pub fn snapshot_wanted(link: Option<Res<MapLink>>) -> bool {
    link.is_some_and(|l| l.wants_snapshot())
}

/// Hands the map the bots, entities and changed columns.
pub fn take_snapshot(
    link: Res<MapLink>,
    mut handed: ResMut<Handed>,
    bots: Query<(Entity, BotItem)>,
    own_ids: Query<&EntityIds>,
    entities: Query<EntityItem>,
) {
    let full = link.take_reset();
    if full {
        handed.clear();
    }
    let mut shot = Snapshot { bots: Vec::new(), entities: Vec::new(), columns: Vec::new(), removed: Vec::new(), full };
    let Handed { columns, seen } = &mut *handed;
    seen.clear();
    let mut names: FxHashMap<Entity, &str> = FxHashMap::default();
    for (entity, (bot, pos, rot, world, ids, walk, follow, actions)) in &bots {
        names.insert(entity, &bot.username);
        let nav = walk.map(|w| (&w.nav, w.target)).or_else(|| follow.map(|f| (&f.nav, f.last_seen)));
        let path = nav
            .map(|(n, _)| n.path.iter().skip(n.next).take(MAX_PATH).map(|s| s.target()).collect())
            .unwrap_or_default();
        shot.bots.push(BotView {
            name: bot.username.clone(),
            pos: pos.map(|p| [p.0.x, p.0.y, p.0.z]),
            yaw: rot.map_or(0.0, |r| r.yaw),
            dimension: world.map(ChunkWorld::dimension),
            path,
            target: nav.map(|(_, t)| [t.x, t.y, t.z]),
            actions: actions.map(|a| a.slots.values().map(|s| s.command).collect()).unwrap_or_default(),
        });
        let (Some(world), Some(ids)) = (world, ids) else { continue };
        let dim = world.dimension();
        let min_sub = world.heights().min_sub_y();
        for ((cx, cz), column) in world.peek_columns() {
            let key = (dim, cx, cz);
            if !seen.insert(key) {
                continue;
            }
            if columns.get(&key).is_some_and(|old| same(old, &column.sub_chunks)) {
                continue;
            }
            columns.insert(key, column.sub_chunks.clone());
            shot.columns.push(ColumnShot { key, min_sub, sub_chunks: column.sub_chunks.clone(), ids: ids.0.clone() });
        }
    }
    if columns.len() > seen.len() {
        columns.retain(|k, _| {
            let keep = seen.contains(k);
            if !keep {
                shot.removed.push(*k);
            }
            keep
        });
    }
    let own: FxHashSet<u64> = bots.iter().filter_map(|(e, _)| own_ids.get(e).ok().map(|i| i.runtime_id)).collect();
    let mut listed: FxHashSet<u64> = FxHashSet::default();
    for (seen_by, we, pos, kind, tag, player, item, rot) in &entities {
        if shot.entities.len() >= MAX_ENTITIES {
            break;
        }
        if own.contains(&we.runtime_id) || !listed.insert(we.runtime_id) {
            continue;
        }
        let category = kind.map_or(EntityCategory::Other, |k| k.0.category);
        let mark = match (player.is_some(), item.is_some(), category) {
            (true, _, _) | (_, _, EntityCategory::Player) => Mark::Player,
            (_, true, _) | (_, _, EntityCategory::Item) => Mark::Item,
            (_, _, EntityCategory::Hostile) => Mark::Hostile,
            _ => Mark::Mob,
        };
        let name = match (player, item, tag) {
            (Some(p), _, _) => p.0.name.clone(),
            (_, Some(i), _) => format!("{} ×{}", i.name, i.count),
            (_, _, Some(t)) => t.0.clone(),
            _ => String::new(),
        };
        shot.entities.push(EntityView {
            runtime_id: we.runtime_id,
            mark,
            kind: kind.map(|k| k.0.identifier.clone()).unwrap_or_default(),
            name,
            pos: [pos.0.x, pos.0.y, pos.0.z],
            yaw: rot.map_or(0.0, |r| r.yaw),
            seen_by: names.get(&seen_by.0).map(|s| (*s).to_owned()).unwrap_or_default(),
        });
    }
    link.hand_over(shot);
}

#[cfg(test)]
mod tests {
    use super::*;
    use bevy_app::App;
    use bevy_ecs::system::RunSystemOnce;
    use clawcraft_core::{CommandWaker, CorePlugin, Vec3};
    use clawcraft_world::chunk::ChunkColumn;

    fn column(n: usize) -> ChunkColumn {
        let mut c = ChunkColumn::empty(n);
        c.sub_chunks[4] = Some(Arc::new(SubChunk::uniform(7)));
        c
    }

    #[test]
    fn only_changed_columns_are_handed_over_again() {
        let mut app = App::new();
        app.add_plugins(CorePlugin);
        let waker = app.world().resource::<CommandWaker>().clone();
        let (link, snapshots, _events) = MapLink::new(waker);
        let shared = link.shared().clone();
        app.insert_resource(link).init_resource::<Handed>();
        let mut world = ChunkWorld::new(0);
        let n = world.heights().sub_chunk_count();
        world.insert_column(0, 0, column(n));
        world.insert_column(1, 0, column(n));
        let ids = BlockIds::fallback().expect("block data");
        let bot = app
            .world_mut()
            .spawn((LocalBot { username: "Ann".into() }, Position(Vec3::new(1.5, -60.0, 2.5)), world, BlockIds(ids)))
            .id();
        let take = |app: &mut App| {
            app.world_mut().run_system_once(take_snapshot).expect("runs");
            snapshots.try_recv().expect("a snapshot")
        };
        let keys = |s: &Snapshot| {
            let mut k: Vec<ColumnKey> = s.columns.iter().map(|c| c.key).collect();
            k.sort_unstable();
            k
        };
        shared.want_snapshot(true);
        let first = take(&mut app);
        assert!(first.full);
        assert_eq!(keys(&first), [(0, 0, 0), (0, 1, 0)]);
        assert_eq!(first.bots.len(), 1);
        assert_eq!((first.bots[0].name.as_str(), first.bots[0].pos), ("Ann", Some([1.5, -60.0, 2.5])));
        drop(first);
        let second = take(&mut app);
        assert!(!second.full && second.columns.is_empty() && second.removed.is_empty(), "nothing changed");
        // A block changes in column (1, 0): the sub-chunk the map holds is copied, so it differs.
        let y = 4 * 16 + world_min_y(&app, bot);
        app.world_mut().get_mut::<ChunkWorld>(bot).expect("world").set_block(17, y, 3, 0, 9).expect("loaded");
        let third = take(&mut app);
        assert_eq!(keys(&third), [(0, 1, 0)], "only the changed column");
        app.world_mut().get_mut::<ChunkWorld>(bot).expect("world").remove_column(0, 0);
        let fourth = take(&mut app);
        assert!(fourth.columns.is_empty());
        assert_eq!(fourth.removed, [(0, 0, 0)]);
        // Asked for a full one again (a page opened after none was): every column.
        shared.want_snapshot(true);
        assert_eq!(keys(&take(&mut app)), [(0, 1, 0)]);
    }

    fn world_min_y(app: &App, bot: Entity) -> i32 {
        app.world().get::<ChunkWorld>(bot).expect("world").heights().min_y
    }
}
