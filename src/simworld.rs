//! Synthetic worlds for simulations: a flat terrain (bedrock −64, dirt −63..−62, grass −61, air
//! above) with blocks set by name, sent to a [`Simulation`] as real encoded LevelChunks (full
//! mode, hashed block ids) before the bot spawns.

use std::collections::BTreeMap;

use clawcraft_protocol::packets::{ByteBuf, LevelChunk, StartGame, UpdateBlock, Vec3 as WireVec3};
use clawcraft_world::block::StateValue;
use clawcraft_world::chunk::PalettedStorage;
use clawcraft_world::chunk::storage::block_index;
use clawcraft_world::chunk::wire::{encode_biome, encode_sub_chunk};
use clawcraft_world::ids::IdTable;

use crate::sim::{Simulation, start_game};

/// Lowest block of the overworld.
const MIN_Y: i32 = -64;

/// A block world to spawn a simulated bot in.
pub struct SimWorld {
    pub ids: IdTable,
    /// Blocks that differ from the flat terrain, by position.
    blocks: BTreeMap<(i32, i32, i32), u32>,
    /// Columns `-radius..=radius` in x and z are sent.
    pub radius: i32,
}

impl SimWorld {
    /// Flat terrain, columns −`radius`..=`radius` (chunk coordinates).
    pub fn flat(radius: i32) -> Self {
        let ids = IdTable::new(crate::sim::sim_version(), true).expect("embedded block data");
        Self { ids, blocks: BTreeMap::new(), radius }
    }

    /// The network id of the first state of `name` with `props`.
    pub fn id(&self, name: &str, props: &[(&str, StateValue)]) -> u32 {
        let state = self.ids.registry.state_with(name, props).unwrap_or_else(|| panic!("no state of {name} {props:?}"));
        self.ids.map.network_id(state).expect("network id")
    }

    /// The terrain's own block at `y`.
    fn base(&self, y: i32) -> u32 {
        match y {
            -64 => self.id("bedrock", &[]),
            -63 | -62 => self.id("dirt", &[]),
            -61 => self.id("grass_block", &[]),
            _ => self.id("air", &[]),
        }
    }

    /// Places `name` (with `props`) at `pos`.
    pub fn set(&mut self, pos: [i32; 3], name: &str, props: &[(&str, StateValue)]) -> &mut Self {
        let id = self.id(name, props);
        self.blocks.insert((pos[0], pos[1], pos[2]), id);
        self
    }

    /// Fills the inclusive box `from..=to` with `name`.
    pub fn fill(&mut self, from: [i32; 3], to: [i32; 3], name: &str, props: &[(&str, StateValue)]) -> &mut Self {
        let id = self.id(name, props);
        for x in from[0].min(to[0])..=from[0].max(to[0]) {
            for y in from[1].min(to[1])..=from[1].max(to[1]) {
                for z in from[2].min(to[2])..=from[2].max(to[2]) {
                    self.blocks.insert((x, y, z), id);
                }
            }
        }
        self
    }

    /// The network id at `pos`.
    pub fn get(&self, pos: [i32; 3]) -> u32 {
        self.blocks.get(&(pos[0], pos[1], pos[2])).copied().unwrap_or_else(|| self.base(pos[1]))
    }

    /// The LevelChunk of column (`cx`, `cz`): every sub-chunk from the bottom up to the highest
    /// one holding a block, version 9.
    pub fn level_chunk(&self, cx: i32, cz: i32) -> LevelChunk {
        let top = self
            .blocks
            .iter()
            .filter(|((x, _, z), _)| x >> 4 == cx && z >> 4 == cz)
            .map(|((_, y, _), _)| *y)
            .max()
            .unwrap_or(-61)
            .max(-61);
        let count = ((top - MIN_Y) >> 4) + 1;
        let air = self.id("air", &[]);
        let mut payload = Vec::new();
        for sub in 0..count {
            let mut s = PalettedStorage::Single(air);
            for lx in 0..16 {
                for lz in 0..16 {
                    for ly in 0..16 {
                        let (x, y, z) = (cx * 16 + lx, MIN_Y + sub * 16 + ly, cz * 16 + lz);
                        let id = self.get([x, y, z]);
                        if id != air {
                            s.set(block_index(lx as usize, ly as usize, lz as usize), id);
                        }
                    }
                }
            }
            encode_sub_chunk(&mut payload, 9, (MIN_Y / 16 + sub) as i8, &[s]);
        }
        encode_biome(&mut payload, 1);
        payload.extend(std::iter::repeat_n(0xFF, 23));
        payload.push(0);
        LevelChunk { x: cx, z: cz, sub_chunk_count: count as u32, payload: ByteBuf(payload), ..LevelChunk::default() }
    }

    /// A bot that joined this world with its feet at `feet` and has just spawned (the join's
    /// packets are taken, so `sent` starts empty).
    pub fn spawn(&self, feet: [f64; 3]) -> Simulation {
        let start = StartGame {
            player_position: WireVec3 { x: feet[0] as f32, y: (feet[1] + 1.62) as f32, z: feet[2] as f32 },
            rotation: clawcraft_protocol::packets::Vec2 { x: 0.0, z: 0.0 },
            rewind_history_size: 40,
            ..start_game()
        };
        let mut sim = Simulation::new();
        let chunks = self.chunk_bodies(&sim);
        sim.join(crate::sim::FIRST_BOT, &start, &chunks);
        sim
    }

    /// Every column of this world as encoded LevelChunk bodies for `sim`'s protocol.
    pub fn chunk_bodies(&self, sim: &Simulation) -> Vec<Vec<u8>> {
        let mut out = Vec::new();
        for cx in -self.radius..=self.radius {
            for cz in -self.radius..=self.radius {
                out.push(sim.protocol.encode(&self.level_chunk(cx, cz)).expect("encodable chunk"));
            }
        }
        out
    }

    /// Adds bot `name` to `sim` and joins it into this world with its feet at `feet` and runtime
    /// id `runtime_id` (each bot's own; the first bot's is [`SIM_RUNTIME_ID`](crate::sim::SIM_RUNTIME_ID)).
    pub fn join_bot(
        &self,
        sim: &mut Simulation,
        name: &str,
        feet: [f64; 3],
        runtime_id: u64,
    ) -> bevy_ecs::entity::Entity {
        let bot = sim.add_bot(name, false);
        let start = StartGame {
            entity_id: -(runtime_id as i64),
            runtime_entity_id: runtime_id,
            player_position: WireVec3 { x: feet[0] as f32, y: (feet[1] + 1.62) as f32, z: feet[2] as f32 },
            rotation: clawcraft_protocol::packets::Vec2 { x: 0.0, z: 0.0 },
            rewind_history_size: 40,
            ..start_game()
        };
        let chunks = self.chunk_bodies(sim);
        sim.join(name, &start, &chunks);
        bot
    }

    /// Sets a block in this world and tells the simulated bot (UpdateBlock).
    pub fn update(&mut self, sim: &mut Simulation, pos: [i32; 3], name: &str, props: &[(&str, StateValue)]) {
        self.set(pos, name, props);
        let id = self.get(pos);
        sim.receive(&UpdateBlock {
            position: clawcraft_protocol::packets::BlockPos { x: pos[0], y: pos[1], z: pos[2] },
            block_runtime_id: id,
            layer: 0,
        });
    }
}

/// Vanilla's sprinting speed in blocks per tick (5.612 blocks/s), the most any tick may move.
pub const SPRINT_PER_TICK: f32 = 0.2806;

/// Checks an input stream the way a movement-checking server would: ticks +1, no tick moves
/// faster than sprinting horizontally, no teleport, the direction keys held exactly when the
/// move vector is non-zero, sprinting only forward.
pub fn assert_plausible(stream: &[clawcraft_protocol::packets::PlayerAuthInput]) {
    for w in stream.windows(2) {
        let (a, b) = (&w[0], &w[1]);
        assert_eq!(b.tick, a.tick + 1, "ticks rise by one");
        let dx = b.position.x - a.position.x;
        let dz = b.position.z - a.position.z;
        let flat = (dx * dx + dz * dz).sqrt();
        assert!(flat <= SPRINT_PER_TICK + 1e-3, "tick {} moved {flat} blocks", b.tick);
        assert!((b.position.y - a.position.y).abs() < 1.0, "no vertical teleport at tick {}", b.tick);
        let flags = b.input_data.clone();
        let moving_keys = ["up", "down", "left", "right"].iter().any(|k| flags.iter().any(|f| f == k));
        let mv = b.move_vector;
        assert_eq!(moving_keys, mv.x != 0.0 || mv.z != 0.0, "keys and move vector agree at tick {}", b.tick);
        if flags.iter().any(|f| f == "sprinting") {
            assert!(flags.iter().any(|f| f == "up"), "sprinting needs forward");
        }
    }
}
