//! What the game thread hands the map a few times a second while a page is open, and only what
//! changed since the last hand-over: the bots, the entities they see, each bot's side panel
//! (status summary, vitals, inventory) and the chunk columns that changed (shared sub-chunk
//! handles, no block is read here). When nothing changed nothing is handed over.
//!
//! Change is found in two steps: bevy's change detection on the components a part is made of
//! (a cheap tick comparison, no copy), then, for a part whose components were touched, a
//! comparison of the rebuilt part with the one last handed over (a component can be written
//! with the value it had).

use std::sync::Arc;

use bevy_ecs::prelude::*;
use clawcraft_core::{ActiveActions, EntityIds, Lifecycle, LocalBot, Position, Rotation};
use clawcraft_entity::{
    EntityCategory, EntityIndex, EntityKind, EntityPosition, EntityRotation, ItemEntity, NameTag, PlayerInfo, SeenBy,
    WorldEntity,
};
use clawcraft_inventory::Inventory;
use clawcraft_pathfind::{FollowAction, WalkAction};
use clawcraft_vitals::{Bars, Vitals};
use clawcraft_world::chunk::{SubChunk, World as ChunkWorld};
use clawcraft_world::ids::{BlockIds, IdTable};
use rustc_hash::{FxHashMap, FxHashSet};
use serde::Serialize;

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

/// A bot's side panel: what `status` sums up (without its ever-changing counters), its vitals
/// and its inventory.
#[derive(Debug, Clone, PartialEq)]
pub struct Panel {
    pub state: Lifecycle,
    /// Loaded chunk columns.
    pub chunks: usize,
    /// Entities the bot knows: players, mobs, dropped items.
    pub players: u32,
    pub mobs: u32,
    pub items: u32,
    /// `None` before the bot has vitals.
    pub vitals: Option<VitalsView>,
    /// `None` before the server sent the inventory.
    pub inventory: Option<InventoryView>,
}

/// The panel's vitals, as the `vitals` answer names them (effects as announced, without the
/// ticks left, so the panel changes when the server says something, not every tick).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct VitalsView {
    #[serde(flatten)]
    pub bars: Bars,
    pub effects: Vec<EffectView>,
}

/// An active effect on the panel: duration in ticks as announced.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct EffectView {
    pub name: String,
    pub amplifier: i32,
    pub duration: i32,
}

/// The panel's inventory.
#[derive(Debug, Clone, PartialEq)]
pub struct InventoryView {
    pub held_slot: u8,
    /// Occupied main-inventory slots: slot, item name, count.
    pub slots: Vec<(u8, Arc<str>, u16)>,
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

/// One hand-over: the parts that changed.
pub struct Snapshot {
    /// Every bot (by name), when any of them changed.
    pub bots: Option<Vec<BotView>>,
    /// Every entity, when any of them changed.
    pub entities: Option<Vec<EntityView>>,
    /// The panels that changed, by bot name.
    pub panels: Vec<(String, Panel)>,
    pub columns: Vec<ColumnShot>,
    /// Columns no bot holds any more.
    pub removed: Vec<ColumnKey>,
    /// Every part is here, every column in `columns` (the first hand-over after the map had no
    /// page open).
    pub full: bool,
}

impl Snapshot {
    /// Whether it carries nothing new.
    pub fn is_empty(&self) -> bool {
        !self.full
            && self.bots.is_none()
            && self.entities.is_none()
            && self.panels.is_empty()
            && self.columns.is_empty()
            && self.removed.is_empty()
    }
}

/// What was last handed over to the map. Holding the columns' sub-chunks makes any later change
/// to one a copy (the world changes a sub-chunk in place only while it is its sole holder), so a
/// changed column is one whose handles differ.
#[derive(Resource, Default)]
pub struct Handed {
    columns: FxHashMap<ColumnKey, Vec<Option<Arc<SubChunk>>>>,
    seen: FxHashSet<ColumnKey>,
    bots: FxHashMap<Entity, BotMemo>,
    entities: Vec<EntityView>,
    /// Entities (of every kind, seen or not) when `entities` was made: a despawn changes it.
    entity_count: usize,
}

/// A bot as last handed over.
struct BotMemo {
    /// Which of the components its view and panel are made of it had.
    parts: u16,
    view: BotView,
    panel: Panel,
}

impl Handed {
    /// Forgets everything handed over (and lets the columns' sub-chunks go).
    pub fn clear(&mut self) {
        *self = Self::default();
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
    Option<Ref<'a, Position>>,
    Option<Ref<'a, Rotation>>,
    Option<Ref<'a, ChunkWorld>>,
    Option<&'a BlockIds>,
    Option<Ref<'a, WalkAction>>,
    Option<Ref<'a, FollowAction>>,
    Option<Ref<'a, ActiveActions>>,
);

type PanelItem<'a> = (
    Option<Ref<'a, Lifecycle>>,
    Option<Ref<'a, Vitals>>,
    Option<Ref<'a, Inventory>>,
    Option<Ref<'a, EntityIndex>>,
    Option<Ref<'a, EntityIds>>,
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

/// Entities whose drawn parts were written since the snapshot system last ran.
type EntityTouched = (
    With<WorldEntity>,
    Or<(
        Changed<EntityPosition>,
        Changed<EntityRotation>,
        Changed<SeenBy>,
        Changed<EntityKind>,
        Changed<NameTag>,
        Changed<PlayerInfo>,
        Changed<ItemEntity>,
    )>,
);

/// Run condition of [`take_snapshot`]: the map asked for one.
pub fn snapshot_wanted(link: Option<Res<MapLink>>) -> bool {
    link.is_some_and(|l| l.wants_snapshot())
}

/// Whether an optional component is there, and whether it was written since the system last ran.
fn touched<T: Component>(c: &Option<Ref<T>>) -> (bool, bool) {
    (c.is_some(), c.as_ref().is_some_and(Ref::is_changed))
}

/// A bit per present component, and whether any of them was written.
fn parts(items: &[(bool, bool)]) -> (u16, bool) {
    items
        .iter()
        .enumerate()
        .fold((0, false), |(mask, any), (i, (present, changed))| (mask | (u16::from(*present) << i), any || *changed))
}

fn bot_view(item: &BotItem) -> BotView {
    let (bot, pos, rot, world, _, walk, follow, actions) = item;
    let nav = walk.as_ref().map(|w| (&w.nav, w.target)).or_else(|| follow.as_ref().map(|f| (&f.nav, f.last_seen)));
    let path =
        nav.map(|(n, _)| n.path.iter().skip(n.next).take(MAX_PATH).map(|s| s.target()).collect()).unwrap_or_default();
    BotView {
        name: bot.username.clone(),
        pos: pos.as_ref().map(|p| [p.0.x, p.0.y, p.0.z]),
        yaw: rot.as_ref().map_or(0.0, |r| r.yaw),
        dimension: world.as_ref().map(|w| w.dimension()),
        path,
        target: nav.map(|(_, t)| [t.x, t.y, t.z]),
        actions: actions.as_ref().map(|a| a.slots.values().map(|s| s.command).collect()).unwrap_or_default(),
    }
}

fn panel(world: Option<&ChunkWorld>, item: &PanelItem) -> Panel {
    let (life, vitals, inventory, index, _) = item;
    let (mut players, mut mobs, mut items) = (0, 0, 0);
    for e in index.iter().flat_map(|i| i.entries()) {
        match e.category {
            EntityCategory::Player => players += 1,
            EntityCategory::Item => items += 1,
            _ => mobs += 1,
        }
    }
    Panel {
        state: life.as_deref().copied().unwrap_or_default(),
        chunks: world.map_or(0, ChunkWorld::column_count),
        players,
        mobs,
        items,
        vitals: vitals.as_ref().map(|v| VitalsView {
            bars: v.bars(),
            effects: v
                .effects
                .values()
                .map(|e| EffectView { name: e.name.clone(), amplifier: e.amplifier, duration: e.duration })
                .collect(),
        }),
        inventory: inventory.as_ref().filter(|i| i.synced).map(|i| InventoryView {
            held_slot: i.held_slot,
            slots: i.indexed().map(|(s, it)| (s, it.name.clone(), it.count)).collect(),
        }),
    }
}

/// Hands the map what changed among the bots, their panels, the entities and the columns;
/// nothing when nothing did.
pub fn take_snapshot(
    link: Res<MapLink>,
    mut handed: ResMut<Handed>,
    bots: Query<(Entity, BotItem)>,
    panels: Query<PanelItem, With<LocalBot>>,
    entities: Query<EntityItem>,
    entities_touched: Query<(), EntityTouched>,
) {
    let full = link.take_reset();
    if full {
        handed.clear();
    }
    let mut shot =
        Snapshot { bots: None, entities: None, panels: Vec::new(), columns: Vec::new(), removed: Vec::new(), full };
    let handed = &mut *handed;
    // A bot came or went: the bot list, the columns and the entities (seen by whom) follow.
    let mut roster_changed = full || bots.iter().len() != handed.bots.len();
    let mut bots_changed = roster_changed;
    let mut worlds_changed = roster_changed;
    let mut own_changed = false;
    for (entity, item) in &bots {
        let extra = panels.get(entity).ok();
        let (_, pos, rot, world, _, walk, follow, actions) = &item;
        let (life, vitals, inventory, index, ids) = match &extra {
            Some((l, v, i, x, d)) => (touched(l), touched(v), touched(i), touched(x), touched(d)),
            None => Default::default(),
        };
        let world_t = touched(world);
        let (mask, any) = parts(&[
            touched(pos),
            touched(rot),
            world_t,
            touched(walk),
            touched(follow),
            touched(actions),
            life,
            vitals,
            inventory,
            index,
            ids,
        ]);
        let memo = handed.bots.get(&entity);
        if memo.is_some_and(|m| m.parts == mask) && !any {
            continue;
        }
        own_changed |= ids.1 || memo.is_none_or(|m| m.parts != mask);
        worlds_changed |= world_t.1 || memo.is_none_or(|m| m.parts != mask);
        let view = bot_view(&item);
        let panel = extra
            .as_ref()
            .map_or_else(|| panel(world.as_deref(), &(None, None, None, None, None)), |p| panel(world.as_deref(), p));
        match handed.bots.get_mut(&entity) {
            Some(m) => {
                m.parts = mask;
                if m.view != view {
                    m.view = view;
                    bots_changed = true;
                }
                if m.panel != panel {
                    shot.panels.push((m.view.name.clone(), panel.clone()));
                    m.panel = panel;
                }
            }
            None => {
                roster_changed = true;
                bots_changed = true;
                shot.panels.push((view.name.clone(), panel.clone()));
                handed.bots.insert(entity, BotMemo { parts: mask, view, panel });
            }
        }
    }
    if handed.bots.len() > bots.iter().len() {
        handed.bots.retain(|e, _| bots.contains(*e));
    }
    if bots_changed {
        let mut views: Vec<BotView> = handed.bots.values().map(|m| m.view.clone()).collect();
        views.sort_by(|a, b| a.name.cmp(&b.name));
        shot.bots = Some(views);
    }
    if worlds_changed {
        hand_columns(handed, &bots, &mut shot);
    }
    let count = entities.iter().len();
    if roster_changed || own_changed || count != handed.entity_count || !entities_touched.is_empty() {
        handed.entity_count = count;
        let list = entity_views(&bots, &panels, &entities);
        if full || list != handed.entities {
            shot.entities = Some(list.clone());
            handed.entities = list;
        }
    }
    link.hand_over((!shot.is_empty()).then_some(shot));
}

/// The columns that changed since the last hand-over, and those no bot holds any more.
fn hand_columns(handed: &mut Handed, bots: &Query<(Entity, BotItem)>, shot: &mut Snapshot) {
    let Handed { columns, seen, .. } = handed;
    seen.clear();
    for (_, (_, _, _, world, ids, ..)) in bots {
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
}

/// Every entity some bot sees (not the bots themselves), at most [`MAX_ENTITIES`].
fn entity_views(
    bots: &Query<(Entity, BotItem)>,
    panels: &Query<PanelItem, With<LocalBot>>,
    entities: &Query<EntityItem>,
) -> Vec<EntityView> {
    let names: FxHashMap<Entity, &str> = bots.iter().map(|(e, item)| (e, item.0.username.as_str())).collect();
    let own: FxHashSet<u64> = panels.iter().filter_map(|p| p.4.map(|i| i.runtime_id)).collect();
    let mut listed: FxHashSet<u64> = FxHashSet::default();
    let mut out = Vec::new();
    for (seen_by, we, pos, kind, tag, player, item, rot) in entities {
        if out.len() >= MAX_ENTITIES {
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
        out.push(EntityView {
            runtime_id: we.runtime_id,
            mark,
            kind: kind.map(|k| k.0.identifier.clone()).unwrap_or_default(),
            name,
            pos: [pos.0.x, pos.0.y, pos.0.z],
            yaw: rot.map_or(0.0, |r| r.yaw),
            seen_by: names.get(&seen_by.0).map(|s| (*s).to_owned()).unwrap_or_default(),
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use bevy_app::App;
    use clawcraft_core::{CommandWaker, CorePlugin, Vec3};
    use clawcraft_world::chunk::ChunkColumn;

    fn column(n: usize) -> ChunkColumn {
        let mut c = ChunkColumn::empty(n);
        c.sub_chunks[4] = Some(Arc::new(SubChunk::uniform(7)));
        c
    }

    fn keys(s: &Snapshot) -> Vec<ColumnKey> {
        let mut k: Vec<ColumnKey> = s.columns.iter().map(|c| c.key).collect();
        k.sort_unstable();
        k
    }

    /// Only what changed is handed over, and nothing when nothing changed: columns, the bot, its
    /// panel, the entities.
    #[test]
    fn only_what_changed_is_handed_over() {
        let mut app = App::new();
        app.add_plugins(CorePlugin);
        let waker = app.world().resource::<CommandWaker>().clone();
        let (link, snapshots, _events) = MapLink::new(waker);
        let shared = link.shared().clone();
        app.insert_resource(link).init_resource::<Handed>();
        // Registered once, so its change detection sees what was written between two runs.
        let system = app.world_mut().register_system(take_snapshot);
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
            shared.want_snapshot(false);
            app.world_mut().run_system(system).expect("runs");
            snapshots.try_recv().ok()
        };
        shared.want_snapshot(true);
        let first = take(&mut app).expect("a first snapshot");
        assert!(first.full);
        assert_eq!(keys(&first), [(0, 0, 0), (0, 1, 0)]);
        let bots = first.bots.as_deref().expect("the bots");
        assert_eq!((bots.len(), bots[0].name.as_str(), bots[0].pos), (1, "Ann", Some([1.5, -60.0, 2.5])));
        assert_eq!(first.panels.len(), 1, "the panel comes with the first one");
        let (name, panel) = &first.panels[0];
        assert_eq!((name.as_str(), panel.chunks, panel.vitals.as_ref()), ("Ann", 2, None));
        assert_eq!(first.entities.as_deref(), Some(&[][..]));
        drop(first);
        assert!(take(&mut app).is_none(), "nothing changed: nothing handed over");
        assert!(!shared.wanted.load(std::sync::atomic::Ordering::Acquire), "the request is answered all the same");

        // Written with the value it had: touched, not changed.
        let same_pos = *app.world().get::<Position>(bot).expect("pos");
        *app.world_mut().get_mut::<Position>(bot).expect("pos") = same_pos;
        assert!(take(&mut app).is_none(), "a component rewritten unchanged is no change");
        app.world_mut().get_mut::<Position>(bot).expect("pos").0.x += 1.0;
        let moved = take(&mut app).expect("the bot moved");
        assert_eq!(moved.bots.as_deref().and_then(|b| b[0].pos), Some([2.5, -60.0, 2.5]));
        assert!(moved.panels.is_empty() && moved.columns.is_empty() && moved.entities.is_none(), "only the bot");

        // Vitals arrive: the panel alone.
        let mut v = Vitals::default();
        v.health = 14.0;
        app.world_mut().entity_mut(bot).insert(v);
        let hurt = take(&mut app).expect("the panel changed");
        assert!(hurt.bots.is_none() && hurt.columns.is_empty() && hurt.entities.is_none(), "only the panel");
        assert_eq!(hurt.panels.len(), 1);
        assert_eq!(hurt.panels[0].1.vitals.as_ref().map(|v| v.bars.health), Some(14.0));
        assert!(take(&mut app).is_none());

        // A block changes in column (1, 0): the sub-chunk the map holds is copied, so it differs.
        let y = 4 * 16 + world_min_y(&app, bot);
        app.world_mut().get_mut::<ChunkWorld>(bot).expect("world").set_block(17, y, 3, 0, 9).expect("loaded");
        let third = take(&mut app).expect("a column changed");
        assert_eq!(keys(&third), [(0, 1, 0)], "only the changed column");
        assert!(third.bots.is_none() && third.panels.is_empty());
        app.world_mut().get_mut::<ChunkWorld>(bot).expect("world").remove_column(0, 0);
        let fourth = take(&mut app).expect("a column went");
        assert!(fourth.columns.is_empty());
        assert_eq!(fourth.removed, [(0, 0, 0)]);
        assert_eq!(fourth.panels.first().map(|(_, p)| p.chunks), Some(1), "the panel counts the columns");

        // An entity the bot sees comes, moves, goes.
        let zombie = app
            .world_mut()
            .spawn((
                SeenBy(bot),
                WorldEntity { runtime_id: 9, unique_id: 9 },
                EntityPosition(Vec3::new(5.0, -60.0, 5.0)),
            ))
            .id();
        let came = take(&mut app).expect("an entity came");
        assert_eq!(
            came.entities.as_ref().map(|e| (e.len(), e[0].runtime_id, e[0].seen_by.as_str())),
            Some((1, 9, "Ann"))
        );
        assert!(came.bots.is_none() && came.columns.is_empty());
        assert!(take(&mut app).is_none());
        app.world_mut().get_mut::<EntityPosition>(zombie).expect("pos").0.z += 2.0;
        let walked = take(&mut app).expect("it moved");
        assert_eq!(walked.entities.as_ref().map(|e| e[0].pos), Some([5.0, -60.0, 7.0]));
        app.world_mut().despawn(zombie);
        assert_eq!(take(&mut app).expect("it went").entities.as_deref(), Some(&[][..]));

        // Asked for a full one again (a page opened after none was): everything.
        shared.want_snapshot(true);
        app.world_mut().run_system(system).expect("runs");
        let again = snapshots.try_recv().expect("a full one");
        assert!(again.full && again.bots.is_some() && again.entities.is_some() && again.panels.len() == 1);
        assert_eq!(keys(&again), [(0, 1, 0)]);
    }

    fn world_min_y(app: &App, bot: Entity) -> i32 {
        app.world().get::<ChunkWorld>(bot).expect("world").heights().min_y
    }
}
