//! Simulation tests of what the bots of one app share: the block store (bots told the same
//! columns hold one copy of each sub-chunk, yet each bot's world shows only what its own server
//! stream told it — a block update, an eviction, a dimension change or the removal of one bot
//! leaves the others' worlds as they were) and the entity records (what a mob is and who a
//! player is, shared; where each bot sees it, not). Real encoded packets through the whole app;
//! any warning fails.

use std::collections::HashSet;
use std::sync::{Arc, Weak};

use bevy_ecs::entity::Entity;
use clawcraft::entity::packets::{AddEntity, AddPlayer, MoveEntity, RemoveEntity};
use clawcraft::entity::{EntityIndex, EntityKind, EntityPosition, EntityRecords, PlayerInfo};
use clawcraft::protocol::packets::{BlockPos, MovePlayer, Vec3 as WireVec3};
use clawcraft::sim::{SIM_RUNTIME_ID, Simulation};
use clawcraft::simworld::SimWorld;
use clawcraft::world::chunk::packets::{BlockUpdateEntry, ChangeDimension, UpdateBlock, UpdateSubChunkBlocks};
use clawcraft::world::chunk::{BlockLookup, BlockStore, SubChunk, World};
use serde_json::{Map, Value as Json};

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

/// The distinct sub-chunks (by address) in `bot`'s world.
fn distinct(sim: &Simulation, bot: Entity) -> HashSet<*const SubChunk> {
    let world = world_of(sim, bot);
    let columns: Vec<_> = world.loaded_columns().collect();
    columns
        .into_iter()
        .flat_map(|(cx, cz)| world.column(cx, cz).expect("loaded").sub_chunks.iter().flatten().map(Arc::as_ptr))
        .collect()
}

fn update(pos: [i32; 3], id: u32) -> UpdateBlock {
    UpdateBlock { position: BlockPos { x: pos[0], y: pos[1], z: pos[2] }, block_runtime_id: id, layer: 0 }
}

fn teleport(runtime: u64, x: f32) -> MovePlayer {
    MovePlayer {
        runtime_id: runtime as u32,
        position: WireVec3 { x, y: -58.38, z: 0.5 },
        mode: "teleport".into(),
        ..MovePlayer::default()
    }
}

fn events_of(sim: &Simulation, kind: &str) -> Vec<Map<String, Json>> {
    sim.events().into_iter().filter(|e| e["type"] == kind).collect()
}

#[test]
fn bots_told_the_same_columns_hold_one_copy_of_each_sub_chunk() {
    let mut world = SimWorld::flat(2);
    world.set([3, -60, 3], "stone", &[]).set([-17, -40, 9], "glass", &[]);
    let mut sim = world.spawn([0.5, -60.0, 0.5]);
    let (decoded, live) = (store(&sim).stats().decoded, store(&sim).live());
    assert!(decoded > 0 && live > 0);
    let scout = world.join_bot(&mut sim, "Scout", [2.5, -60.0, 0.5], SIM_RUNTIME_ID + 1);
    let miner = world.join_bot(&mut sim, "Miner", [4.5, -60.0, 0.5], SIM_RUNTIME_ID + 2);
    // The later bots decoded nothing: every sub-chunk they were sent was already held.
    let stats = store(&sim).stats();
    assert_eq!(stats.decoded, decoded, "{stats:?}");
    assert_eq!(store(&sim).live(), live);
    assert!(stats.reused >= 2 * 25, "{stats:?}");
    let mut slots = 0;
    let columns: Vec<_> = world_of(&sim, sim.bot).loaded_columns().collect();
    assert_eq!(columns.len(), 25);
    for (cx, cz) in columns {
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
    // The store holds exactly the distinct sub-chunks of one bot's world, which are the others'.
    let held = distinct(&sim, sim.bot);
    assert_eq!(store(&sim).live(), held.len());
    assert_eq!(distinct(&sim, scout), held);
    assert_eq!(distinct(&sim, miner), held);
    // Identical sub-chunks at other positions share too: the flat columns' ground layer is one.
    assert!(Arc::ptr_eq(&slot(&sim, sim.bot, [40, -64, 40]), &slot(&sim, miner, [-20, -64, 20])));
    // Each bot still reads its blocks.
    let stone = world.get([3, -60, 3]);
    for bot in [sim.bot, scout, miner] {
        assert_eq!(block(&sim, bot, [3, -60, 3]), BlockLookup::Loaded(stone, None));
        assert_eq!(block(&sim, bot, [-17, -40, 9]), BlockLookup::Loaded(world.get([-17, -40, 9]), None));
        assert_eq!(block(&sim, bot, [-17, -39, 9]), BlockLookup::Loaded(world.id("air", &[]), None));
    }
}

#[test]
fn a_block_update_changes_only_the_bot_it_was_sent_to_until_the_others_receive_it() {
    let (world, mut sim, [claw, scout, miner]) = three_bots();
    let pos = [3, -60, 3];
    let (stone, glass) = (world.get(pos), world.id("glass", &[]));
    let shared = slot(&sim, claw, pos);
    // Another sub-chunk of the same column (y −48..−33, air).
    let above = slot(&sim, claw, [3, -40, 3]);
    assert!(!Arc::ptr_eq(&shared, &above));

    sim.receive_for("Scout", &update(pos, glass));
    sim.tick();
    assert_eq!(block(&sim, scout, pos), BlockLookup::Loaded(glass, None));
    for bot in [claw, miner] {
        assert_eq!(block(&sim, bot, pos), BlockLookup::Loaded(stone, None), "not told");
        assert!(Arc::ptr_eq(&slot(&sim, bot, pos), &shared));
    }
    assert!(!Arc::ptr_eq(&slot(&sim, scout, pos), &shared), "Scout's own copy");
    assert!(Arc::ptr_eq(&slot(&sim, scout, [3, -40, 3]), &above), "the rest of the column stays shared");
    assert_eq!(store(&sim).stats().converged, 0);

    // Miner is told the same: it ends on Scout's copy.
    sim.receive_for("Miner", &update(pos, glass));
    sim.tick();
    assert_eq!(block(&sim, miner, pos), BlockLookup::Loaded(glass, None));
    assert!(Arc::ptr_eq(&slot(&sim, miner, pos), &slot(&sim, scout, pos)));
    assert_eq!(store(&sim).stats().converged, 1);
    assert_eq!(block(&sim, claw, pos), BlockLookup::Loaded(stone, None));

    // Scout is told it is stone again and reads stone. Its copy still lists glass in its
    // palette (a palette never shrinks), so it is not the form of ClawBot's never changed copy
    // and stays a copy of its own (memory, not correctness); Miner, told the same, shares it.
    sim.receive_for("Scout", &update(pos, stone));
    sim.tick();
    assert_eq!(block(&sim, scout, pos), BlockLookup::Loaded(stone, None));
    assert!(!Arc::ptr_eq(&slot(&sim, scout, pos), &shared));
    sim.receive_for("Miner", &update(pos, stone));
    sim.tick();
    assert!(Arc::ptr_eq(&slot(&sim, miner, pos), &slot(&sim, scout, pos)));
    assert_eq!(store(&sim).stats().converged, 2);
    // An update that changes nothing keeps the sub-chunk shared.
    sim.receive_for("ClawBot", &update(pos, stone));
    sim.tick();
    assert!(Arc::ptr_eq(&slot(&sim, claw, pos), &shared));

    // Many updates in one packet, over two sub-chunks (both layers): each bot told them makes
    // its own copies, and the second bot told the same ends on the first one's.
    let water = world.id("water", &[]);
    let entry = |p: [i32; 3], id| BlockUpdateEntry {
        position: BlockPos { x: p[0], y: p[1], z: p[2] },
        runtime_id: id,
        ..BlockUpdateEntry::default()
    };
    let (low, high) = ([1, -62, 1], [1, -40, 1]);
    let packet = UpdateSubChunkBlocks {
        x: 0,
        y: -64,
        z: 0,
        blocks: vec![entry(low, glass), entry(high, glass), entry([2, -40, 1], stone)],
        extra: vec![entry(low, water)],
    };
    let converged = store(&sim).stats().converged;
    sim.receive_for("ClawBot", &packet);
    sim.tick();
    assert_eq!(block(&sim, claw, low), BlockLookup::Loaded(glass, Some(water)));
    assert_eq!(block(&sim, claw, high), BlockLookup::Loaded(glass, None));
    for at in [low, high] {
        assert!(!Arc::ptr_eq(&slot(&sim, claw, at), &slot(&sim, scout, at)), "only ClawBot was told");
    }
    assert_eq!(block(&sim, scout, low), BlockLookup::Loaded(world.get(low), None));
    sim.receive_for("Miner", &packet);
    sim.tick();
    for at in [low, high] {
        assert!(Arc::ptr_eq(&slot(&sim, claw, at), &slot(&sim, miner, at)), "{at:?}");
    }
    assert_eq!(store(&sim).stats().converged, converged + 2, "one per changed sub-chunk");
    assert_eq!(block(&sim, scout, high), BlockLookup::Loaded(world.id("air", &[]), None));
    assert!(sim.events().iter().all(|e| e["type"] != "block_changed"), "no bot subscribed to block_changed");
}

#[test]
fn a_bot_evicting_a_column_leaves_it_to_the_others_and_the_last_one_frees_it() {
    let (world, mut sim, [claw, scout, miner]) = three_bots();
    let pos = [5, -60, -5];
    let dirt = world.get(pos);
    let held: Weak<SubChunk> = Arc::downgrade(&slot(&sim, claw, pos));
    let columns = world_of(&sim, claw).column_count();
    // Two bots are teleported far away: their once-a-second sweep drops every column.
    sim.receive_for("ClawBot", &teleport(SIM_RUNTIME_ID, 5000.5));
    sim.receive_for("Scout", &teleport(SIM_RUNTIME_ID + 1, 5000.5));
    sim.ticks(25);
    assert_eq!(world_of(&sim, claw).column_count(), 0);
    assert_eq!(world_of(&sim, scout).column_count(), 0);
    assert_eq!(block(&sim, claw, pos), BlockLookup::Unloaded);
    assert_eq!(world_of(&sim, miner).column_count(), columns, "Miner keeps all of its columns");
    assert_eq!(block(&sim, miner, pos), BlockLookup::Loaded(dirt, None));
    assert_eq!(held.strong_count(), 1, "Miner's");
    let evicted: Vec<_> = events_of(&sim, "chunks_evicted").into_iter().map(|e| e["bot"].clone()).collect();
    assert_eq!(evicted, ["ClawBot", "Scout"]);

    // Miner leaves too: nothing holds the sub-chunk any more, and the store lets it go.
    sim.receive_for("Miner", &teleport(SIM_RUNTIME_ID + 2, -5000.5));
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
    let held = slot(&sim, claw, pos);
    assert!(Arc::ptr_eq(&held, &slot(&sim, miner, pos)));
    assert_eq!(Arc::strong_count(&held), 3, "ClawBot's, Miner's and this test's: Scout let go");
}

/// The store is content-addressed, not keyed by server: a bot told another world shares the
/// sub-chunks that are equal in paletted form and nothing else, and reads its own blocks
/// throughout.
#[test]
fn a_bot_of_another_world_shares_only_equal_sub_chunks() {
    let mut world = SimWorld::flat(2);
    world.set([3, -60, 3], "stone", &[]);
    let mut other = SimWorld::flat(2);
    other.set([3, -60, 3], "stone", &[]).set([4, -60, 3], "gold_block", &[]).set([20, -40, 20], "glass", &[]);
    let mut sim = world.spawn([0.5, -60.0, 0.5]);
    let scout = world.join_bot(&mut sim, "Scout", [2.5, -60.0, 0.5], SIM_RUNTIME_ID + 1);
    let stranger = other.join_bot(&mut sim, "Stranger", [4.5, -60.0, 0.5], SIM_RUNTIME_ID + 2);
    let claw = sim.bot;
    let (air, gold) = (world.id("air", &[]), other.get([4, -60, 3]));
    for bot in [claw, scout] {
        assert_eq!(block(&sim, bot, [4, -60, 3]), BlockLookup::Loaded(air, None));
        assert_eq!(block(&sim, bot, [20, -40, 20]), BlockLookup::Loaded(air, None));
    }
    assert_eq!(block(&sim, stranger, [4, -60, 3]), BlockLookup::Loaded(gold, None));
    assert_eq!(block(&sim, stranger, [20, -40, 20]), BlockLookup::Loaded(other.get([20, -40, 20]), None));
    assert!(!Arc::ptr_eq(&slot(&sim, claw, [4, -60, 3]), &slot(&sim, stranger, [4, -60, 3])));
    assert!(!Arc::ptr_eq(&slot(&sim, claw, [20, -40, 20]), &slot(&sim, stranger, [20, -40, 20])));
    // Equal content elsewhere is one copy, whichever world it came from.
    assert!(Arc::ptr_eq(&slot(&sim, claw, [-20, -62, -20]), &slot(&sim, stranger, [-20, -62, -20])));
    // Scout is told gold at the same place: equal to the stranger's now, so it shares that copy.
    sim.receive_for("Scout", &update([4, -60, 3], gold));
    sim.tick();
    assert!(Arc::ptr_eq(&slot(&sim, scout, [4, -60, 3]), &slot(&sim, stranger, [4, -60, 3])));
    assert_eq!(block(&sim, claw, [4, -60, 3]), BlockLookup::Loaded(air, None));
}

#[test]
fn removed_bots_drop_their_sub_chunks_and_the_last_one_frees_them() {
    let (_world, mut sim, [claw, _, _]) = three_bots();
    let pos = [5, -60, -5];
    let live = store(&sim).live();
    let held = slot(&sim, claw, pos);
    assert_eq!(Arc::strong_count(&held), 4, "three bots and this test");
    let r = sim.command(r#"{"action":"bot_remove","bot":"Scout"}"#);
    assert_eq!(r["removed"], "Scout", "{r:?}");
    assert_eq!(Arc::strong_count(&held), 3);
    let r = sim.command(r#"{"action":"bot_remove","bot":"Miner"}"#);
    assert_eq!(r["remaining"], 1, "{r:?}");
    assert_eq!(Arc::strong_count(&held), 2);
    assert_eq!(store(&sim).live(), live, "ClawBot still holds every distinct sub-chunk");
    let weak = Arc::downgrade(&held);
    drop(held);
    let r = sim.command(r#"{"action":"bot_remove","bot":"ClawBot"}"#);
    assert_eq!(r["remaining"], 0, "{r:?}");
    assert!(weak.upgrade().is_none());
    assert_eq!(store(&sim).live(), 0);
}

/// The entity with runtime id `runtime` in `bot`'s view.
fn seen(sim: &Simulation, bot: Entity, runtime: u64) -> Entity {
    sim.app.world().get::<EntityIndex>(bot).and_then(|i| i.by_runtime(runtime)).expect("indexed").entity
}

fn kind(sim: &Simulation, entity: Entity) -> Arc<clawcraft::entity::KindRecord> {
    sim.app.world().get::<EntityKind>(entity).expect("a kind").0.clone()
}

fn feet_of(sim: &Simulation, entity: Entity) -> f64 {
    sim.app.world().get::<EntityPosition>(entity).expect("a position").0.x
}

/// (bot, change, zone) of every `danger` so far.
fn dangers(sim: &Simulation) -> Vec<(String, String, String)> {
    let field = |e: &Map<String, Json>, k: &str| e[k].as_str().unwrap_or_default().to_owned();
    events_of(sim, "danger").iter().map(|e| (field(e, "bot"), field(e, "change"), field(e, "zone"))).collect()
}

/// Each bot is told of the same zombie and the same player, under its own runtime ids (as a
/// server numbering entities per connection does): what they are is one shared record, where
/// each bot sees them is its own, and `danger`/`player_nearby` go to each bot by its own view.
#[test]
fn bots_seeing_the_same_mob_and_player_share_what_they_are_not_where() {
    let (_world, mut sim, bots) = three_bots();
    let names = ["ClawBot", "Scout", "Miner"];
    // Zombie 9 blocks east of ClawBot (out of danger range), 7 of Scout (near), 5 of Miner
    // (close); Steve 11 blocks east of ClawBot (near), 9 of Scout (near), 7 of Miner (close).
    for (i, name) in names.iter().enumerate() {
        let n = i as u64;
        let zombie = AddEntity {
            unique_id: 100 + n as i64,
            runtime_id: 50 + n,
            entity_type: "minecraft:zombie".into(),
            position: WireVec3 { x: 9.5, y: -60.0, z: 0.5 },
            ..AddEntity::default()
        };
        let steve = AddPlayer {
            uuid: "11111111-2222-3333-4444-555555555555".into(),
            username: "Steve".into(),
            runtime_id: 60 + n,
            unique_id: 200 + n as i64,
            position: WireVec3 { x: 11.5, y: -58.38, z: 0.5 },
            ..AddPlayer::default()
        };
        sim.receive_for(name, &zombie);
        sim.receive_for(name, &steve);
    }
    sim.tick();
    sim.tick();
    let zombies: Vec<Entity> = (0..3).map(|i| seen(&sim, bots[i], 50 + i as u64)).collect();
    let steves: Vec<Entity> = (0..3).map(|i| seen(&sim, bots[i], 60 + i as u64)).collect();
    let zombie_kind = kind(&sim, zombies[0]);
    let steve_info = sim.app.world().get::<PlayerInfo>(steves[0]).expect("player info").0.clone();
    for i in 1..3 {
        assert_ne!(zombies[i], zombies[0], "each bot has its own entity");
        assert!(Arc::ptr_eq(&kind(&sim, zombies[i]), &zombie_kind), "one zombie record");
        let info = sim.app.world().get::<PlayerInfo>(steves[i]).expect("player info").0.clone();
        assert!(Arc::ptr_eq(&info, &steve_info), "one Steve record");
        assert!(Arc::ptr_eq(&kind(&sim, steves[i]), &kind(&sim, steves[0])));
    }
    assert_eq!((zombie_kind.name.as_str(), steve_info.name.as_str()), ("zombie", "Steve"));
    // The record's holders: the store and the three entities, plus this test.
    assert_eq!(Arc::strong_count(&zombie_kind), 5);
    let mut got = dangers(&sim);
    got.sort();
    let want = [("Miner", "new", "close"), ("Scout", "new", "near")].map(|(b, c, z)| (b.into(), c.into(), z.into()));
    assert_eq!(got, want);
    let mut nearby: Vec<(String, String)> = events_of(&sim, "player_nearby")
        .iter()
        .map(|e| (e["bot"].as_str().unwrap_or_default().to_owned(), e["zone"].as_str().unwrap_or_default().to_owned()))
        .collect();
    nearby.sort();
    let want = [("ClawBot", "near"), ("Miner", "close"), ("Scout", "near")].map(|(b, z)| (b.into(), z.into()));
    assert_eq!(nearby, want);

    // ClawBot's zombie walks up to it: only ClawBot's view moves, and only ClawBot is warned.
    sim.receive_for(
        "ClawBot",
        &MoveEntity { runtime_entity_id: 50, position: WireVec3 { x: 3.5, y: -60.0, z: 0.5 }, ..MoveEntity::default() },
    );
    sim.tick();
    assert_eq!(feet_of(&sim, zombies[0]), 3.5);
    assert_eq!(feet_of(&sim, zombies[1]), 9.5);
    assert_eq!(feet_of(&sim, zombies[2]), 9.5);
    assert_eq!(dangers(&sim).last(), Some(&("ClawBot".into(), "new".into(), "melee".into())));
    assert_eq!(dangers(&sim).len(), 3);

    // Scout's server removes it: gone for Scout, still there for the others.
    sim.receive_for("Scout", &RemoveEntity { entity_id_self: 101 });
    sim.tick();
    assert_eq!(dangers(&sim).last(), Some(&("Scout".into(), "gone".into(), "near".into())));
    assert!(sim.app.world().get_entity(zombies[1]).is_err());
    assert_eq!(Arc::strong_count(&zombie_kind), 4);
    // Miner leaves the process: the entities it saw go with it.
    let r = sim.command(r#"{"action":"bot_remove","bot":"Miner"}"#);
    assert_eq!(r["removed"], "Miner", "{r:?}");
    sim.tick();
    assert!(sim.app.world().get_entity(zombies[2]).is_err());
    assert!(sim.app.world().get_entity(steves[2]).is_err());
    assert_eq!(Arc::strong_count(&zombie_kind), 3);
    assert_eq!(feet_of(&sim, zombies[0]), 3.5, "ClawBot's view is untouched");
    // Nobody else sees a zombie any more: no entity holds the record.
    sim.receive_for("ClawBot", &RemoveEntity { entity_id_self: 100 });
    sim.tick();
    assert_eq!(Arc::strong_count(&zombie_kind), 2, "the store's and this test's");
    let records = sim.app.world().resource::<EntityRecords>();
    assert_eq!(records.players.live(), 1, "Steve, seen by ClawBot and Scout");
}
