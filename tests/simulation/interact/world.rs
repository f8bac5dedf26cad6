//! A spawned bot on a small flat world with a few blocks placed, a stocked inventory and the
//! item names of the server.

use clawcraft::protocol::packets::{
    Attribute, ByteBuf, ChunkRadiusUpdate, FullContainerName, InventoryContent, ItemInstance, ItemRegistry, ItemState,
    LevelChunk, PlayStatus, PlayerAuthInput, ResourcePackStack, ResourcePacksInfo, UpdateAttributes,
};
use clawcraft::sim::{Simulation, start_game};
use clawcraft::world::block::StateValue;
use clawcraft::world::chunk::PalettedStorage;
use clawcraft::world::chunk::packets::UpdateBlock;
use clawcraft::world::chunk::storage::block_index;
use clawcraft::world::chunk::wire::{encode_biome, encode_sub_chunk};
use clawcraft::world::ids::IdTable;
use serde_json::{Map, Value};

/// Item network ids of the simulated server.
pub const DIRT: i32 = 3;
pub const COBBLESTONE: i32 = 4;
pub const WOOD_PICK: i32 = 312;
pub const DIAMOND_PICK: i32 = 320;
pub const BREAD: i32 = 261;
pub const SNOWBALL: i32 = 377;
pub const OAK_DOOR: i32 = 324;
pub const IRON_SWORD: i32 = 309;
pub const WOODEN_HOE: i32 = 1290;
pub const WHEAT_SEEDS: i32 = 1291;
pub const BONE_MEAL: i32 = 1292;
pub const WHEAT: i32 = 1293;
pub const WRITABLE_BOOK: i32 = 1300;
pub const WRITTEN_BOOK: i32 = 1301;
pub const HONEYCOMB: i32 = 1302;
pub const BUCKET: i32 = 363;
pub const WATER_BUCKET: i32 = 365;
pub const LAVA_BUCKET: i32 = 366;
pub const BOW: i32 = 302;
pub const ARROW: i32 = 303;

/// A block placed on the flat terrain (bedrock −64, dirt −63..−62, grass −61).
pub type Placed = (&'static str, Vec<(&'static str, StateValue)>, [i32; 3]);

pub struct Sim {
    pub sim: Simulation,
    pub ids: IdTable,
}

impl Sim {
    pub fn id(&self, name: &str, props: &[(&str, StateValue)]) -> u32 {
        let s = self.ids.registry.state_with(name, props).unwrap_or_else(|| panic!("state of {name}"));
        self.ids.map.network_id(s).expect("network id")
    }

    pub fn cmd(&mut self, line: &str) -> Map<String, Value> {
        self.sim.command(line)
    }

    pub fn ok(&mut self, line: &str) -> Map<String, Value> {
        let r = self.cmd(line);
        assert!(r.get("error").is_none(), "{line} failed: {r:?}");
        r
    }

    pub fn code(&mut self, line: &str) -> String {
        let r = self.cmd(line);
        r.get("code").and_then(Value::as_str).unwrap_or_else(|| panic!("{line} should fail: {r:?}")).to_owned()
    }

    pub fn events_of(&self, kind: &str) -> Vec<Map<String, Value>> {
        self.sim.events().into_iter().filter(|e| e["type"] == kind).collect()
    }

    /// The block actions of every PlayerAuthInput sent since the last look, one entry per tick.
    pub fn block_actions(&mut self) -> Vec<Vec<String>> {
        self.sim
            .sent_as::<PlayerAuthInput>()
            .into_iter()
            .map(|p| p.block_action.unwrap_or_default().into_iter().map(|a| a.action).collect())
            .collect()
    }

    /// The server sets a block.
    pub fn set_block(&mut self, pos: [i32; 3], id: u32) {
        self.sim.receive(&UpdateBlock {
            position: clawcraft::protocol::packets::BlockPos { x: pos[0], y: pos[1], z: pos[2] },
            block_runtime_id: id,
            layer: 0,
        });
    }
}

fn column_payload(w: &Sim, cx: i32, cz: i32, placed: &[Placed]) -> Vec<u8> {
    let air = w.id("air", &[]);
    let layers = [
        (-64, w.id("bedrock", &[])),
        (-63, w.id("dirt", &[])),
        (-62, w.id("dirt", &[])),
        (-61, w.id("grass_block", &[])),
    ];
    let mut s = PalettedStorage::Single(air);
    for x in 0..16 {
        for z in 0..16 {
            for (y, id) in layers {
                s.set(block_index(x, (y + 64) as usize, z), id);
            }
        }
    }
    for (name, props, [x, y, z]) in placed {
        if x >> 4 == cx && z >> 4 == cz && (-64..-48).contains(y) {
            s.set(block_index((x & 15) as usize, (y + 64) as usize, (z & 15) as usize), w.id(name, props));
        }
    }
    let mut out = Vec::new();
    encode_sub_chunk(&mut out, 9, -4, &[s]);
    encode_biome(&mut out, 1);
    out.extend(std::iter::repeat_n(0xFF, 23));
    out.push(0);
    out
}

fn registry() -> ItemRegistry {
    let st = |name: &str, id: i32| ItemState { name: name.into(), runtime_id: id as i16, ..ItemState::default() };
    ItemRegistry {
        itemstates: vec![
            st("minecraft:dirt", DIRT),
            st("minecraft:cobblestone", COBBLESTONE),
            st("minecraft:wooden_pickaxe", WOOD_PICK),
            st("minecraft:diamond_pickaxe", DIAMOND_PICK),
            st("minecraft:bread", BREAD),
            st("minecraft:snowball", SNOWBALL),
            st("minecraft:wooden_door", OAK_DOOR),
            st("minecraft:iron_sword", IRON_SWORD),
            st("minecraft:wooden_hoe", WOODEN_HOE),
            st("minecraft:wheat_seeds", WHEAT_SEEDS),
            st("minecraft:bone_meal", BONE_MEAL),
            st("minecraft:wheat", WHEAT),
            st("minecraft:writable_book", WRITABLE_BOOK),
            st("minecraft:written_book", WRITTEN_BOOK),
            st("minecraft:honeycomb", HONEYCOMB),
            st("minecraft:bucket", BUCKET),
            st("minecraft:water_bucket", WATER_BUCKET),
            st("minecraft:lava_bucket", LAVA_BUCKET),
            st("minecraft:bow", BOW),
            st("minecraft:arrow", ARROW),
        ],
    }
}

/// A stack with a stack id.
/// The server sets the bot's hunger to `value` (and a tick passes).
pub fn hunger(w: &mut Sim, value: f32) {
    w.sim.receive(&UpdateAttributes {
        runtime_entity_id: clawcraft::sim::SIM_RUNTIME_ID,
        attributes: vec![Attribute {
            name: "minecraft:player.hunger".into(),
            current: value,
            max: 20.0,
            ..Attribute::default()
        }],
        tick: 0,
    });
    w.sim.tick();
}

pub fn stack(id: i32, count: u16, stack_id: i32) -> ItemInstance {
    ItemInstance { network_id: id, count, has_stack_id: true, stack_id: Some(stack_id), ..ItemInstance::default() }
}

/// A bot at feet (0.5, −60, 0.5) on hashed ids, columns −1..=1 × −1..=1 loaded with `placed`,
/// holding hotbar slot 0 of `slots` (index → stack).
pub fn world(placed: &[Placed], slots: &[(usize, ItemInstance)]) -> Sim {
    let mut sim = Simulation::new();
    sim.receive(&PlayStatus { status: "login_success".into() });
    sim.tick();
    sim.receive(&ResourcePacksInfo::default());
    sim.receive(&ResourcePackStack::default());
    sim.tick();
    sim.receive(&start_game());
    sim.receive(&registry());
    sim.tick();
    let ids = IdTable::new("1.26.45", true).expect("block data");
    let mut w = Sim { sim, ids };
    for cx in -1..=1 {
        for cz in -1..=1 {
            let payload = column_payload(&w, cx, cz, placed);
            w.sim.receive(&LevelChunk {
                x: cx,
                z: cz,
                sub_chunk_count: 1,
                payload: ByteBuf(payload),
                ..LevelChunk::default()
            });
        }
    }
    let mut inv = vec![ItemInstance::air(); 36];
    for (i, s) in slots {
        inv[*i] = s.clone();
    }
    w.sim.receive(&InventoryContent {
        window_id: "inventory".into(),
        input: inv,
        container: FullContainerName::of("anvil_input"),
        storage_item: ItemInstance::air(),
    });
    w.sim.receive(&ChunkRadiusUpdate { chunk_radius: 8 });
    w.sim.receive(&PlayStatus { status: "player_spawn".into() });
    w.sim.tick();
    w.sim.tick();
    w.sim.sent();
    w
}
