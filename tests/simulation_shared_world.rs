//! Simulation tests of the block store shared by the bots of one app: bots told the same
//! columns hold one copy of each sub-chunk, yet each bot's world shows only what its own server
//! stream told it — a block update, an eviction or a dimension change of one bot leaves the
//! others' worlds as they were. Real encoded packets through the whole app; any warning fails.

use std::sync::{Arc, Weak};

use bevy_ecs::entity::Entity;
use clawcraft::protocol::packets::{BlockPos, MovePlayer, Vec3 as WireVec3};
use clawcraft::sim::{SIM_RUNTIME_ID, Simulation};
use clawcraft::simworld::SimWorld;
use clawcraft::world::chunk::packets::{ChangeDimension, UpdateBlock};
use clawcraft::world::chunk::{BlockLookup, BlockStore, SubChunk, World};

/// Three bots (ClawBot, Scout, Miner) that joined the same 5×5-column world, a few blocks on it.
fn three_bots() -> (SimWorld, Simulation, [Entity; 3]) {
    let mut world = SimWorld::flat(2);
    world.set([3, -60, 3], "stone", &[]).set([-17, -40, 9], "glass", &[]).fill([5, -60, -5], [7, -58, -3], "dirt", &[]);
    let mut sim = world.spawn([0.5, -60.0, 0.5]);
    let scout = world.join_bot(&mut sim, "Scout", [2.5, -60.0, 0.5], SIM_RUNTIME_ID + 1);
    let miner = world.join_bot(&mut sim, "Miner", [4.5, -60.0, 0.5], SIM_RUNTIME_ID + 2);
    let bots = [sim.bot, scout, miner];
    (world, sim, bots)
}

fn world_of(sim: &Simulation, bot: Entity) -> &World {
    sim.app.world().get::<World>(bot).expect("the bot has a world")
}

fn slot(sim: &Simulation, bot: Entity, pos: [i32; 3]) -> Arc<SubChunk> {
    world_of(sim, bot).shared_sub_chunk_at(pos[0], pos[1], pos[2]).cloned().expect("loaded")
}

fn block(sim: &Simulation, bot: Entity, pos: [i32; 3]) -> BlockLookup {
    world_of(sim, bot).get_block(pos[0], pos[1], pos[2])
}

fn store(sim: &Simulation) -> &BlockStore {
    sim.app.world().resource::<BlockStore>()
}

fn update(pos: [i32; 3], id: u32) -> UpdateBlock {
    UpdateBlock { position: BlockPos { x: pos[0], y: pos[1], z: pos[2] }, block_runtime_id: id, layer: 0 }
}

#[test]
fn bots_told_the_same_columns_hold_one_copy_of_each_sub_chunk() {
    let mut world = SimWorld::flat(2);
    world.set([3, -60, 3], "stone", &[]).set([-17, -40, 9], "glass", &[]);
    let mut sim = world.spawn([0.5, -60.0, 0.5]);
    let (decoded, live) = (store(&sim).stats().decoded, store(&sim).live());
    let scout = world.join_bot(&mut sim, "Scout", [2.5, -60.0, 0.5], SIM_RUNTIME_ID + 1);
    let miner = world.join_bot(&mut sim, "Miner", [4.5, -60.0, 0.5], SIM_RUNTIME_ID + 2);
    // The later bots decoded nothing: every sub-chunk they were sent was already held.
    let stats = store(&sim).stats();
    assert_eq!(stats.decoded, decoded, "{stats:?}");
    assert_eq!(store(&sim).live(), live);
    assert!(stats.reused >= 2 * 25, "{stats:?}");
    let mut slots = 0;
    for (cx, cz) in world_of(&sim, sim.bot).loaded_columns().collect::<Vec<_>>() {
        let mine = world_of(&sim, sim.bot).column(cx, cz).expect("loaded");
        for other in [scout, miner] {
            let theirs = world_of(&sim, other).column(cx, cz).expect("the same columns");
            assert_eq!(mine.sub_chunks.len(), theirs.sub_chunks.len());
            for (a, b) in mine.sub_chunks.iter().zip(&theirs.sub_chunks) {
                let (a, b) = (a.as_ref().expect("full mode fills every slot"), b.as_ref().expect("filled"));
                assert!(Arc::ptr_eq(a, b), "column {cx},{cz}");
                slots += 1;
            }
        }
    }
    assert_eq!(slots, 2 * 25 * 24);
    // Identical sub-chunks at other positions share too: the flat columns' ground layer is one.
    assert!(Arc::ptr_eq(&slot(&sim, sim.bot, [40, -64, 40]), &slot(&sim, miner, [-20, -64, 20])));
    // Each bot still reads its blocks.
    let stone = world.get([3, -60, 3]);
    for bot in [sim.bot, scout, miner] {
        assert_eq!(block(&sim, bot, [3, -60, 3]), BlockLookup::Loaded(stone, None));
        assert_eq!(block(&sim, bot, [-17, -40, 9]), BlockLookup::Loaded(world.get([-17, -40, 9]), None));
    }
}

#[test]
fn a_block_update_changes_only_the_bot_it_was_sent_to_until_the_others_receive_it() {
    let (world, mut sim, [claw, scout, miner]) = three_bots();
    let pos = [3, -60, 3];
    let (stone, glass) = (world.get(pos), world.id("glass", &[]));
    let shared = slot(&sim, claw, pos);
    let neighbour = slot(&sim, claw, [3, -50, 3]);

    sim.receive_for("Scout", &update(pos, glass));
    sim.tick();
    assert_eq!(block(&sim, scout, pos), BlockLookup::Loaded(glass, None));
    for bot in [claw, miner] {
        assert_eq!(block(&sim, bot, pos), BlockLookup::Loaded(stone, None), "not told");
        assert!(Arc::ptr_eq(&slot(&sim, bot, pos), &shared));
    }
    assert!(!Arc::ptr_eq(&slot(&sim, scout, pos), &shared), "Scout's own copy");
    assert!(Arc::ptr_eq(&slot(&sim, scout, [3, -50, 3]), &neighbour), "the rest of the column stays shared");
    assert_eq!(store(&sim).stats().converged, 0);

    // Miner is told the same: it ends on Scout's copy.
    sim.receive_for("Miner", &update(pos, glass));
    sim.tick();
    assert_eq!(block(&sim, miner, pos), BlockLookup::Loaded(glass, None));
    assert!(Arc::ptr_eq(&slot(&sim, miner, pos), &slot(&sim, scout, pos)));
    assert_eq!(store(&sim).stats().converged, 1);
    assert_eq!(block(&sim, claw, pos), BlockLookup::Loaded(stone, None));

    // Scout is told it is stone again: back on ClawBot's (never changed) copy.
    sim.receive_for("Scout", &update(pos, stone));
    sim.tick();
    assert!(Arc::ptr_eq(&slot(&sim, scout, pos), &shared));
    // An update that changes nothing keeps the sub-chunk shared.
    sim.receive_for("ClawBot", &update(pos, stone));
    sim.tick();
    assert!(Arc::ptr_eq(&slot(&sim, claw, pos), &shared));
    let changed: Vec<_> = sim.events().into_iter().filter(|e| e["type"] == "block_changed").collect();
    assert!(changed.is_empty(), "no bot subscribed to block_changed: {changed:?}");
}

#[test]
fn a_bot_evicting_a_column_leaves_it_to_the_others_and_the_last_one_frees_it() {
    let (world, mut sim, [claw, scout, miner]) = three_bots();
    let pos = [5, -60, -5];
    let dirt = world.get(pos);
    let held: Weak<SubChunk> = Arc::downgrade(&slot(&sim, claw, pos));
    let columns = world_of(&sim, claw).column_count();
    // Two bots are teleported far away: their once-a-second sweep drops every column.
    for (name, runtime) in [("ClawBot", SIM_RUNTIME_ID), ("Scout", SIM_RUNTIME_ID + 1)] {
        sim.receive_for(
            name,
            &MovePlayer {
                runtime_id: runtime as u32,
                position: WireVec3 { x: 5000.5, y: -58.38, z: 0.5 },
                mode: "teleport".into(),
                ..MovePlayer::default()
            },
        );
    }
    sim.ticks(25);
    assert_eq!(world_of(&sim, claw).column_count(), 0);
    assert_eq!(world_of(&sim, scout).column_count(), 0);
    assert_eq!(block(&sim, claw, pos), BlockLookup::Unloaded);
    assert_eq!(world_of(&sim, miner).column_count(), columns, "Miner keeps all of its columns");
    assert_eq!(block(&sim, miner, pos), BlockLookup::Loaded(dirt, None));
    assert!(held.upgrade().is_some());
    let evicted: Vec<_> =
        sim.events().into_iter().filter(|e| e["type"] == "chunks_evicted").map(|e| e["bot"].clone()).collect();
    assert_eq!(evicted, ["ClawBot", "Scout"]);

    // Miner leaves too: nothing holds the sub-chunk any more, and the store lets it go.
    sim.receive_for(
        "Miner",
        &MovePlayer {
            runtime_id: (SIM_RUNTIME_ID + 2) as u32,
            position: WireVec3 { x: -5000.5, y: -58.38, z: 0.5 },
            mode: "teleport".into(),
            ..MovePlayer::default()
        },
    );
    sim.ticks(25);
    assert_eq!(world_of(&sim, miner).column_count(), 0);
    assert!(held.upgrade().is_none(), "freed with its last holder");
    assert_eq!(store(&sim).live(), 0);
}

#[test]
fn a_dimension_change_of_one_bot_leaves_the_others_world_intact() {
    let (world, mut sim, [claw, scout, miner]) = three_bots();
    let pos = [3, -60, 3];
    let columns = world_of(&sim, claw).column_count();
    sim.receive_for(
        "Scout",
        &ChangeDimension { dimension: 1, position: WireVec3 { x: 0.5, y: 70.0, z: 0.5 }, ..ChangeDimension::default() },
    );
    sim.tick();
    assert_eq!((world_of(&sim, scout).dimension(), world_of(&sim, scout).column_count()), (1, 0));
    assert_eq!(block(&sim, scout, pos), BlockLookup::Unloaded);
    for bot in [claw, miner] {
        assert_eq!((world_of(&sim, bot).dimension(), world_of(&sim, bot).column_count()), (0, columns));
        assert_eq!(block(&sim, bot, pos), BlockLookup::Loaded(world.get(pos), None));
    }
    assert!(Arc::ptr_eq(&slot(&sim, claw, pos), &slot(&sim, miner, pos)));
}
