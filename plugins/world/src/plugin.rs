//! `WorldPlugin`: keeps each bot's [`World`] current from the world packets — LevelChunk (stored,
//! or answered with one SubChunkRequest per column in request mode), SubChunk, UpdateBlock,
//! UpdateSubChunkBlocks, DimensionData, ChangeDimension — and evicts far or stale columns. The
//! sub-chunks come from the process's [`BlockStore`], so bots told the same blocks hold one copy
//! (a block update makes the bot its own copy first). It also wires the bot's block ids from
//! StartGame, registers the world commands and emits the world events.

use bevy_app::{App, Plugin};
use bevy_ecs::prelude::*;
use bevy_ecs::schedule::common_conditions::on_message;
use clawcraft_core::{
    AgentEvent, AppCommandExt, AppEventExt, AppWorkExt, CorePlugin, OptIn, Position, TickCount, TickSet,
};
use clawcraft_network::{ClientboundPacket, Connection};
use clawcraft_protocol::packets::{ChunkDelivery, LevelChunk};

use crate::chunk::packets::{
    ChangeDimension, DimensionData, StartGame, SubChunkPacket, SubChunkRequest, UpdateBlock, UpdateSubChunkBlocks,
    Vec3I8, Vec3Li, dimension_id,
};
use crate::chunk::wire::read_level_chunk_payload;
use crate::chunk::{BlockStore, ColumnMode, DimensionHeights, SharedOutcome, World};
use crate::commands::{BlockCmd, Blocks, Chunks, CompactScanCmd, Find, Look, Raycast, ScanCmd};
use crate::events::{
    BlockChangedEvent, ChunksEvicted, TimeEvent, WeatherEvent, emit_block_changed, track_time, track_weather,
};
use crate::ids::wire_block_ids;

/// Chunk cache limits.
#[derive(Resource, Debug, Clone, PartialEq)]
pub struct WorldSettings {
    /// Most columns kept per bot; the least recently used go first.
    pub chunk_cache_max: usize,
    /// Columns whose centre is farther than this many blocks (horizontally) are dropped.
    pub evict_dist: f64,
}

impl Default for WorldSettings {
    fn default() -> Self {
        WorldSettings { chunk_cache_max: 512, evict_dist: 256.0 }
    }
}

/// Written for every block update that changed a loaded block.
#[derive(Message, Debug, Clone, Copy, PartialEq, Eq)]
pub struct BlockChanged {
    /// The bot whose world changed.
    pub bot: Entity,
    /// Block position.
    pub pos: [i32; 3],
    /// Previous network id.
    pub old: u32,
    /// New network id.
    pub new: u32,
    /// 0 main layer, 1 liquid layer.
    pub layer: u8,
}

/// Registers the world systems in [`TickSet::HandlePackets`].
pub struct WorldPlugin;

impl Plugin for WorldPlugin {
    fn build(&self, app: &mut App) {
        if !app.is_plugin_added::<CorePlugin>() {
            app.add_plugins(CorePlugin);
        }
        app.init_resource::<WorldSettings>()
            .init_resource::<BlockStore>()
            .add_message::<BlockChanged>()
            .add_message::<ClientboundPacket>()
            .add_systems(
                clawcraft_core::TickWork,
                (
                    (attach_world, wire_block_ids, handle_world_packets)
                        .chain()
                        .in_set(clawcraft_core::gate::Gate::Packets),
                    (
                        emit_block_changed.run_if(on_message::<BlockChanged>),
                        (track_weather, track_time, crate::signs::track_signs)
                            .in_set(clawcraft_core::gate::Gate::Packets),
                    ),
                    evict_columns.run_if(packets_or_sweep_due),
                )
                    .chain()
                    .in_set(TickSet::HandlePackets),
            )
            .add_pending_work(
                "column sweep owed",
                clawcraft_core::gate::any_bot::<(&ColumnSweep, &World, Option<&Position>)>(|(sweep, columns, pos)| {
                    sweep.owed(columns, pos)
                }),
            )
            .add_agent_command::<BlockCmd>()
            .add_agent_command::<Blocks>()
            .add_agent_command::<Chunks>()
            .add_agent_command::<Find>()
            .add_agent_command::<ScanCmd>()
            .add_agent_command::<CompactScanCmd>()
            .add_agent_command::<Look>()
            .add_agent_command::<Raycast>()
            .add_opt_in_event::<BlockChangedEvent>(OptIn::radius(16.0, 128.0))
            .add_opt_in_event::<WeatherEvent>(OptIn::PLAIN)
            .add_opt_in_event::<TimeEvent>(OptIn::PLAIN)
            .add_agent_event::<ChunksEvicted>();
    }
}

/// Gives every connected bot a [`World`], and its weather and clock from the start (so two
/// updates in one tick never race two deferred inserts).
pub fn attach_world(mut commands: Commands<'_, '_>, bots: Query<'_, '_, Entity, (With<Connection>, Without<World>)>) {
    for bot in &bots {
        commands.entity(bot).insert((
            World::default(),
            crate::events::Weather::default(),
            crate::events::Clock::default(),
            ColumnSweep::default(),
        ));
    }
}

/// Applies the tick's world packets to each bot's [`World`], its sub-chunks from the shared
/// [`BlockStore`].
pub fn handle_world_packets(
    mut packets: MessageReader<'_, '_, ClientboundPacket>,
    mut bots: Query<'_, '_, (&mut World, &mut Connection)>,
    mut store: ResMut<'_, BlockStore>,
    mut changed: MessageWriter<'_, BlockChanged>,
) {
    for pkt in packets.read() {
        let Ok((mut world, mut conn)) = bots.get_mut(pkt.bot) else { continue };
        if pkt.is::<LevelChunk>() {
            if let Some(lc) = pkt.view::<LevelChunk>() {
                on_level_chunk(&mut world, &mut store, &mut conn, &lc);
            }
        } else if let Some(sub) = pkt.view::<SubChunkPacket>() {
            on_sub_chunk(&mut world, &mut store, &sub);
        } else if let Some(u) = pkt.view::<UpdateBlock>() {
            let pos = [u.position.x, u.position.y, u.position.z];
            if apply_update(&mut world, pkt.bot, pos, u.layer, u.block_runtime_id, &mut changed) {
                world.share_sub_chunk_at(&mut store, pos[0], pos[1], pos[2]);
            }
        } else if let Some(u) = pkt.view::<UpdateSubChunkBlocks>() {
            // Each changed sub-chunk goes back to the store once, after all of the packet's
            // updates (the entries name absolute positions, possibly in several sub-chunks).
            let mut touched: Vec<[i32; 3]> = Vec::new();
            for (layer, list) in [(0, &u.blocks), (1, &u.extra)] {
                for e in list {
                    let pos = [e.position.x, e.position.y, e.position.z];
                    if apply_update(&mut world, pkt.bot, pos, layer, e.runtime_id, &mut changed)
                        && !touched.iter().any(|t| t.map(|c| c >> 4) == pos.map(|c| c >> 4))
                    {
                        touched.push(pos);
                    }
                }
            }
            for pos in touched {
                world.share_sub_chunk_at(&mut store, pos[0], pos[1], pos[2]);
            }
        } else if let Some(d) = pkt.view::<DimensionData>() {
            for def in &d.definitions {
                if let Some(id) = dimension_id(&def.id) {
                    world.set_heights(id, DimensionHeights::from_server(def.min_height, def.max_height));
                }
            }
        } else if let Some(c) = pkt.view::<ChangeDimension>() {
            world.change_dimension(c.dimension);
        } else if let Some(s) = pkt.view::<StartGame>()
            && let Some(id) = dimension_id(&s.dimension)
        {
            world.change_dimension(id);
        }
    }
}

/// The column mode a LevelChunk announces (the same for every version: the codec maps each
/// version's encoding of it).
fn column_mode(lc: &LevelChunk) -> ColumnMode {
    match lc.delivery() {
        ChunkDelivery::Request(limit) => ColumnMode::Request(limit),
        ChunkDelivery::Full(n) => ColumnMode::Full(n),
    }
}

fn on_level_chunk(world: &mut World, store: &mut BlockStore, conn: &mut Connection, lc: &LevelChunk) {
    if lc.dimension != world.dimension() {
        tracing::debug!(x = lc.x, z = lc.z, dimension = lc.dimension, "level chunk of another dimension");
        return;
    }
    let h = world.heights();
    let mode = column_mode(lc);
    let (count, request) = match mode {
        ColumnMode::Full(n) => (n, false),
        ColumnMode::Request(_) => (0, true),
    };
    let air = world.air_id();
    let read =
        |r: &mut clawcraft_protocol::io::Reader<'_>| store.read_sub_chunk(r, air).map(|s| (s.y_index, s.sub_chunk));
    let (sub_chunks, block_entities) =
        match read_level_chunk_payload(&lc.payload.0, count, h.sub_chunk_count(), request, read) {
            Ok(p) => p,
            Err(e) => {
                tracing::warn!(x = lc.x, z = lc.z, error = %e, "undecodable level chunk");
                return;
            }
        };
    let air = store.uniform(air);
    let wanted = world.store_column(lc.x, lc.z, mode, sub_chunks, block_entities, &air);
    if !wanted.is_empty() {
        conn.send(&sub_chunk_request(lc.dimension, lc.x, lc.z, h, &wanted));
    }
}

/// One request for a column's sub-chunks. Offsets are i8, so the origin sits at sub-chunk Y 0 and
/// each dy is the absolute sub-chunk Y; a dimension reaching beyond i8 uses its lowest sub-chunk
/// as origin instead.
pub fn sub_chunk_request(dimension: i32, cx: i32, cz: i32, h: DimensionHeights, indices: &[usize]) -> SubChunkRequest {
    let lowest = h.min_sub_y();
    let highest = lowest + h.sub_chunk_count() as i32 - 1;
    let fits = i8::try_from(lowest).is_ok() && i8::try_from(highest).is_ok();
    let base = if fits { 0 } else { lowest };
    let requests = indices.iter().map(|&i| Vec3I8 { x: 0, y: (lowest + i as i32 - base) as i8, z: 0 }).collect();
    SubChunkRequest { dimension, requests, origin: Vec3Li { x: cx, y: base, z: cz } }
}

fn on_sub_chunk(world: &mut World, store: &mut BlockStore, resp: &SubChunkPacket) {
    if resp.dimension != world.dimension() {
        return;
    }
    let Vec3Li { x: ox, y: oy, z: oz } = resp.origin;
    let air = world.air_id();
    for entry in &resp.entries {
        let at = (ox.wrapping_add(entry.dx.into()), oy.wrapping_add(entry.dy.into()), oz.wrapping_add(entry.dz.into()));
        match store.sub_chunk_outcome(&entry.result, entry.payload.as_ref().map(|p| p.0.as_slice()), air) {
            Ok(SharedOutcome::Loaded(sub_chunk, entities)) => {
                world.fill_sub_chunk(at, sub_chunk, entities);
            }
            Ok(SharedOutcome::AllAir) => {
                world.fill_sub_chunk(at, store.uniform(air), Vec::new());
            }
            Ok(SharedOutcome::Unavailable(_)) => {}
            Err(e) => tracing::warn!(x = at.0, y = at.1, z = at.2, error = %e, "undecodable sub-chunk"),
        }
    }
}

/// Applies one block update; true when a loaded block changed.
fn apply_update(
    world: &mut World,
    bot: Entity,
    pos: [i32; 3],
    layer: u32,
    id: u32,
    changed: &mut MessageWriter<'_, BlockChanged>,
) -> bool {
    let Ok(layer) = u8::try_from(layer) else { return false };
    match world.set_block(pos[0], pos[1], pos[2], usize::from(layer), id) {
        Some(old) if old != id => {
            changed.write(BlockChanged { bot, pos, old, new: id, layer });
            true
        }
        _ => false,
    }
}

/// What the last distance sweep of a bot's columns saw: a sweep is owed when columns were added
/// since or the bot left the column it was in (so a bot at rest owes none, and its ticks can stay
/// quiet).
#[derive(Component, Debug, Default, Clone, Copy, PartialEq)]
pub struct ColumnSweep {
    /// How many columns the bot held after the last sweep.
    pub columns: usize,
    /// The column the bot stood in at the last sweep.
    pub column: Option<(i32, i32)>,
}

impl ColumnSweep {
    fn owed(&self, world: &World, pos: Option<&Position>) -> bool {
        world.column_count() > self.columns || self.column != pos.map(column_of)
    }
}

fn column_of(pos: &Position) -> (i32, i32) {
    ((pos.0.x.floor() as i32) >> 4, (pos.0.z.floor() as i32) >> 4)
}

/// Whether tick `tick` runs [`evict_columns`]'s once-a-second distance sweep.
fn sweep_due(tick: u64) -> bool {
    tick.is_multiple_of(20)
}

/// Run condition of [`evict_columns`]: packets arrived (columns arrive only with packets), or its
/// sweep is due. One system, not an `or_else` combinator, which runs as three, and conditions
/// run in every tick.
pub fn packets_or_sweep_due(arrivals: Res<'_, clawcraft_core::gate::Arrivals>, ticks: Res<'_, TickCount>) -> bool {
    arrivals.packets > 0 || sweep_due(ticks.0)
}

/// Drops far and least recently used columns, telling the agent when any went. Over the count
/// limit it acts at once; the distance sweep (which walks every column) runs once a second.
pub fn evict_columns(
    settings: Res<'_, WorldSettings>,
    ticks: Res<'_, TickCount>,
    mut bots: Query<'_, '_, (Entity, &mut World, Option<&Position>, Option<&mut ColumnSweep>)>,
    mut events: MessageWriter<'_, AgentEvent>,
) {
    let sweep = sweep_due(ticks.0);
    for (bot, mut world, pos, record) in &mut bots {
        let over = world.column_count() > settings.chunk_cache_max;
        // Without a position only the count limit applies.
        if over || (sweep && pos.is_some()) {
            let (centre, dist) = pos.map_or(((0.0, 0.0), f64::INFINITY), |p| ((p.0.x, p.0.z), settings.evict_dist));
            // A sweep that drops nothing leaves the world unchanged, for change detection too
            // (the live map's snapshot walks the columns only of a changed world).
            let count = world.bypass_change_detection().evict(centre, settings.chunk_cache_max, dist);
            if count > 0 {
                world.set_changed();
                events.write(AgentEvent::new(ChunksEvicted { bot, count, remaining: world.column_count() }));
            }
        }
        if sweep && let Some(mut record) = record {
            *record = ColumnSweep { columns: world.column_count(), column: pos.map(column_of) };
        }
    }
}
