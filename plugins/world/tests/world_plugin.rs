//! Simulation tests of `WorldPlugin`: real encoded packets go through the network plugin's
//! in-memory transport, one `App::update` per tick, and the packets the bot sent are read back.

use std::sync::Arc;

use bevy_app::App;
use bevy_ecs::prelude::*;
use clawcraft_core::{AgentEvent, CorePlugin, Lifecycle, LocalBot, Position, Vec3};
use clawcraft_network::test_transport::{TestHandle, TestTransport};
use clawcraft_network::{Connection, NetworkPlugin};
use clawcraft_protocol::codec::{Packet, Protocol, peek_packet_id};
use clawcraft_protocol::io::WriteExt;
use clawcraft_protocol::packets::{BlockPos, ByteBuf, LevelChunk};
use clawcraft_world::chunk::packets::{
    BlockUpdateEntry, ChangeDimension, DimensionData, DimensionDefinition, SubChunkEntryView, SubChunkPacket,
    SubChunkRequest, UpdateBlock, UpdateSubChunkBlocks, Vec3Li,
};
use clawcraft_world::chunk::wire::{encode_biome, encode_sub_chunk};
use clawcraft_world::chunk::world::AIR_HASH;
use clawcraft_world::chunk::{BlockLookup, PalettedStorage, World};
use clawcraft_world::{BlockChanged, WorldPlugin, WorldSettings};

const STONE: u32 = 0xA1B2_C3D4;
const DIRT: u32 = 77;
const WATER: u32 = 0x8000_0001;

struct Sim {
    app: App,
    bot: Entity,
    handle: TestHandle,
    protocol: Arc<Protocol>,
}

impl Sim {
    fn new() -> Self {
        let protocol = Arc::new(Protocol::load("1.26.45").expect("bundled"));
        let mut app = App::new();
        app.add_plugins((CorePlugin, NetworkPlugin, WorldPlugin));
        let (transport, handle) = TestTransport::new();
        let bot = app
            .world_mut()
            .spawn((
                LocalBot { username: "ClawBot".into() },
                Lifecycle::Connecting,
                Connection::new(Box::new(transport), protocol.clone()),
            ))
            .id();
        app.finish();
        app.cleanup();
        Sim { app, bot, handle, protocol }
    }

    fn receive<P: Packet>(&mut self, p: &P) {
        let body = self.protocol.encode(p).expect("encodable");
        self.handle.inject(vec![body]);
    }

    fn tick(&mut self) {
        self.app.update();
    }

    fn sent_as<P: Packet>(&mut self) -> Vec<P> {
        let id = self.protocol.packet_id(P::NAME);
        self.handle
            .take_sent()
            .into_iter()
            .flatten()
            .filter(|b| peek_packet_id(b).ok() == id)
            .map(|b| self.protocol.decode_as::<P>(&b).expect("decodable"))
            .collect()
    }

    fn world(&self) -> &World {
        self.app.world().get::<World>(self.bot).expect("bot has a world")
    }

    fn block(&self, x: i32, y: i32, z: i32) -> BlockLookup {
        self.world().get_block(x, y, z)
    }

    fn block_changes(&mut self) -> Vec<BlockChanged> {
        let msgs = self.app.world().resource::<Messages<BlockChanged>>();
        msgs.iter_current_update_messages().copied().collect()
    }

    fn agent_events(&self) -> Vec<AgentEvent> {
        let msgs = self.app.world().resource::<Messages<AgentEvent>>();
        msgs.iter_current_update_messages().cloned().collect()
    }
}

fn biomes_and_border(n: usize) -> Vec<u8> {
    let mut out = Vec::new();
    encode_biome(&mut out, 1);
    out.extend(std::iter::repeat_n(0xFF, n - 1));
    out.push(0);
    out
}

fn request_chunk(x: i32, z: i32, limit: i32) -> LevelChunk {
    LevelChunk {
        x,
        z,
        highest_subchunk_count: Some(limit),
        payload: ByteBuf(biomes_and_border(24)),
        ..LevelChunk::default()
    }
}

fn stone_layer_payload(y_index: i8) -> Vec<u8> {
    let mut s = PalettedStorage::Single(AIR_HASH);
    for x in 0..16 {
        for z in 0..16 {
            s.set((x << 8) | (z << 4), STONE);
        }
    }
    let mut out = Vec::new();
    encode_sub_chunk(&mut out, 9, y_index, &[s]);
    out
}

fn entry(dy: i8, result: &str, payload: Option<Vec<u8>>) -> SubChunkEntryView {
    SubChunkEntryView {
        dy,
        result: result.into(),
        payload: payload.map(ByteBuf),
        heightmap_type: "no_data".into(),
        render_heightmap_type: "no_data".into(),
        ..SubChunkEntryView::default()
    }
}

#[test]
fn request_mode_sends_one_request_per_column() {
    let mut sim = Sim::new();
    sim.receive(&request_chunk(3, -2, -1));
    sim.receive(&request_chunk(4, -2, 5));
    sim.tick();
    let reqs = sim.sent_as::<SubChunkRequest>();
    assert_eq!(reqs.len(), 2, "one request per column: {reqs:?}");
    assert_eq!(reqs[0].origin, Vec3Li { x: 3, y: 0, z: -2 });
    assert_eq!(
        reqs[0].requests.iter().map(|r| (r.x, r.y, r.z)).collect::<Vec<_>>(),
        (-4..20).map(|y| (0, y, 0)).collect::<Vec<_>>()
    );
    assert_eq!(reqs[1].origin, Vec3Li { x: 4, y: 0, z: -2 });
    assert_eq!(reqs[1].requests.iter().map(|r| r.y).collect::<Vec<_>>(), (-4..=1).collect::<Vec<_>>());
    assert_eq!(sim.block(48, -64, -32), BlockLookup::Unloaded);
    assert_eq!(sim.block(64, 100, -32), BlockLookup::Loaded(AIR_HASH, None), "above the limit");

    // Responses fill the column; errors leave it unloaded.
    sim.receive(&SubChunkPacket {
        origin: Vec3Li { x: 3, y: 0, z: -2 },
        entries: vec![
            entry(-4, "success", Some(stone_layer_payload(-4))),
            entry(-3, "success_all_air", None),
            entry(-2, "chunk_not_found", None),
        ],
        ..SubChunkPacket::default()
    });
    sim.tick();
    assert_eq!(sim.block(48, -64, -32), BlockLookup::Loaded(STONE, None));
    assert_eq!(sim.block(48, -63, -32), BlockLookup::Loaded(AIR_HASH, None));
    assert_eq!(sim.block(48, -40, -32), BlockLookup::Loaded(AIR_HASH, None));
    assert_eq!(sim.block(48, -30, -32), BlockLookup::Unloaded);
    assert!(sim.sent_as::<SubChunkRequest>().is_empty(), "nothing re-requested");
}

#[test]
fn full_mode_updates_and_block_changed() {
    let mut sim = Sim::new();
    let mut payload = stone_layer_payload(-4);
    payload.extend(biomes_and_border(24));
    sim.receive(&LevelChunk { x: 0, z: 0, sub_chunk_count: 1, payload: ByteBuf(payload), ..LevelChunk::default() });
    sim.tick();
    assert!(sim.sent_as::<SubChunkRequest>().is_empty());
    assert_eq!(sim.block(5, -64, 5), BlockLookup::Loaded(STONE, None));
    assert_eq!(sim.block(5, 64, 5), BlockLookup::Loaded(AIR_HASH, None));

    sim.receive(&UpdateBlock { position: BlockPos { x: 5, y: -64, z: 5 }, block_runtime_id: DIRT, layer: 0 });
    sim.receive(&UpdateBlock { position: BlockPos { x: 50, y: -64, z: 5 }, block_runtime_id: DIRT, layer: 0 });
    let e = |x, y, z, id| BlockUpdateEntry {
        position: BlockPos { x, y, z },
        runtime_id: id,
        transition_type: "entity".into(),
        ..BlockUpdateEntry::default()
    };
    sim.receive(&UpdateSubChunkBlocks {
        x: 0,
        y: 64,
        z: 0,
        blocks: vec![e(1, 64, 1, DIRT), e(2, 64, 1, STONE)],
        extra: vec![e(1, 64, 1, WATER)],
    });
    sim.tick();
    assert_eq!(sim.block(5, -64, 5), BlockLookup::Loaded(DIRT, None));
    assert_eq!(sim.block(1, 64, 1), BlockLookup::Loaded(DIRT, Some(WATER)));
    assert_eq!(sim.block(2, 64, 1), BlockLookup::Loaded(STONE, Some(AIR_HASH)));
    let changes = sim.block_changes();
    let bot = sim.bot;
    assert_eq!(
        changes,
        vec![
            BlockChanged { bot, pos: [5, -64, 5], old: STONE, new: DIRT, layer: 0 },
            BlockChanged { bot, pos: [1, 64, 1], old: AIR_HASH, new: DIRT, layer: 0 },
            BlockChanged { bot, pos: [2, 64, 1], old: AIR_HASH, new: STONE, layer: 0 },
            BlockChanged { bot, pos: [1, 64, 1], old: AIR_HASH, new: WATER, layer: 1 },
        ]
    );
}

#[test]
fn dimension_changes_and_data() {
    let mut sim = Sim::new();
    sim.receive(&request_chunk(0, 0, -1));
    sim.tick();
    assert_eq!(sim.world().column_count(), 1);
    assert_eq!(sim.sent_as::<SubChunkRequest>().len(), 1);
    sim.receive(&ChangeDimension { dimension: 1, ..ChangeDimension::default() });
    sim.tick();
    assert_eq!((sim.world().column_count(), sim.world().dimension()), (0, 1));
    sim.receive(&DimensionData {
        definitions: vec![DimensionDefinition {
            id: "minecraft:nether".into(),
            min_height: -32,
            max_height: 128,
            generator: "nether".into(),
            dimension_type: 1,
            ..DimensionDefinition::default()
        }],
    });
    let mut nether_chunk = request_chunk(1, 1, -1);
    nether_chunk.dimension = 1;
    nether_chunk.payload = ByteBuf(biomes_and_border(10));
    sim.receive(&nether_chunk);
    // A late overworld chunk is ignored.
    sim.receive(&request_chunk(9, 9, -1));
    sim.tick();
    let reqs = sim.sent_as::<SubChunkRequest>();
    assert_eq!(reqs.len(), 1);
    assert_eq!(reqs[0].dimension, 1);
    assert_eq!(reqs[0].requests.iter().map(|r| r.y).collect::<Vec<_>>(), (-2..8).collect::<Vec<_>>());
    assert_eq!(sim.world().column_count(), 1);
}

/// A hostile server's extreme heights and sub-chunk coordinates are data, not a panic (this runs
/// as a debug build, where an overflow would panic).
#[test]
fn extreme_heights_and_sub_chunk_coordinates_do_not_overflow() {
    let mut sim = Sim::new();
    for (min_height, max_height) in [(i32::MIN, i32::MAX), (i32::MAX, i32::MIN), (0, 0), (i32::MAX - 1, i32::MAX)] {
        sim.receive(&DimensionData {
            definitions: vec![DimensionDefinition {
                id: "minecraft:overworld".into(),
                min_height,
                max_height,
                generator: "overworld".into(),
                dimension_type: 0,
                ..DimensionDefinition::default()
            }],
        });
        sim.receive(&request_chunk(0, 0, -1));
        for y in [i32::MIN, i32::MAX, 0] {
            sim.receive(&SubChunkPacket {
                origin: Vec3Li { x: 0, y, z: 0 },
                entries: vec![
                    entry(i8::MIN, "success", Some(stone_layer_payload(-4))),
                    entry(i8::MAX, "success_all_air", None),
                ],
                ..SubChunkPacket::default()
            });
        }
        sim.receive(&UpdateBlock {
            position: BlockPos { x: i32::MAX, y: i32::MIN, z: i32::MIN },
            block_runtime_id: STONE,
            layer: 0,
        });
        sim.tick();
        let h = sim.world().heights();
        assert!((1..=64).contains(&h.sub_chunk_count()), "{min_height}..{max_height}: {h:?}");
        // Sound heights: sub-chunk aligned, a non-empty range a column can hold, far inside i32.
        assert!(
            h.min_y % 16 == 0 && h.max_y % 16 == 0 && (16..=1024).contains(&(h.max_y - h.min_y)),
            "{min_height}..{max_height}: {h:?}"
        );
        assert!(h.min_y.unsigned_abs() <= 1 << 24, "{h:?}");
        assert_eq!(sim.block(i32::MAX, i32::MIN, i32::MAX), BlockLookup::Unloaded);
    }
}

#[test]
fn eviction_emits_an_agent_event() {
    let mut sim = Sim::new();
    sim.app.world_mut().insert_resource(WorldSettings { chunk_cache_max: 4, evict_dist: 64.0 });
    let bot = sim.bot;
    sim.app.world_mut().entity_mut(bot).insert(Position(Vec3 { x: 0.0, y: 0.0, z: 0.0 }));
    for cx in 0..3 {
        for cz in 0..3 {
            sim.receive(&request_chunk(cx, cz, 0));
        }
    }
    sim.receive(&request_chunk(30, 0, 0));
    sim.tick();
    let evicted: Vec<_> = sim.agent_events().into_iter().filter(|e| e.kind() == "chunks_evicted").collect();
    assert_eq!(evicted.len(), 1);
    assert_eq!(evicted[0].fields().get("count").and_then(|v| v.as_u64()), Some(6));
    assert_eq!(evicted[0].fields().get("remaining").and_then(|v| v.as_u64()), Some(4));
    assert!(sim.world().column(30, 0).is_none(), "far column dropped");
    let mut bad = Vec::new();
    bad.put_u8(9);
    // A malformed payload is dropped with a warning, without disturbing the rest.
    sim.receive(&LevelChunk { x: 0, z: 0, sub_chunk_count: 1, payload: ByteBuf(bad), ..LevelChunk::default() });
    sim.tick();
    assert_eq!(sim.world().column_count(), 4);
}
