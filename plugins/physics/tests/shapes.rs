//! The vendored collision shapes line up with the world crate's block registry (same palette
//! order, same names) for every version that has both, and read back the boxes minecraft-data
//! gives the states physics relies on; and a world built from them moves a player as the client
//! does (step onto a slab, not onto a full block).

use clawcraft_physics::{
    Aabb, Block, BlockPhysics, Config, Input, Keys, Physics, PlayerState, ShapeTable, Vec3, World,
};
use clawcraft_world::block::{BlockRegistry, StateValue};

fn boxes(table: &ShapeTable, reg: &BlockRegistry, name: &str, props: &[(&str, StateValue)]) -> Vec<Aabb> {
    let s = reg.state_with(name, props).unwrap_or_else(|| panic!("{name} {props:?}"));
    table.shapes(s.0).to_vec()
}

#[test]
fn every_version_with_blocks_has_shapes() {
    for v in BlockRegistry::versions() {
        assert!(ShapeTable::for_version(v).is_ok(), "no shapes.json for {v}: run data/refresh.sh (data/gen-shapes.js)");
    }
}

#[test]
fn shapes_follow_the_registry_palette() {
    let mut versions = 0;
    for v in ShapeTable::versions() {
        let Ok(reg) = BlockRegistry::for_version(v) else { continue };
        let table = ShapeTable::for_version(v).expect("embedded");
        versions += 1;
        assert_eq!(table.state_count(), reg.states().len(), "{v}: state counts");
        for block in reg.blocks() {
            assert_eq!(table.first_state(&block.name), Some(block.first_state.0), "{v}: {}", block.name);
        }
        let cube = vec![Aabb::new(0.0, 0.0, 0.0, 1.0, 1.0, 1.0)];
        assert_eq!(boxes(&table, &reg, "minecraft:stone", &[]), cube);
        assert!(boxes(&table, &reg, "minecraft:air", &[]).is_empty());
        assert!(boxes(&table, &reg, "minecraft:water", &[("liquid_depth", StateValue::Int(0))]).is_empty());
        let slab = boxes(
            &table,
            &reg,
            "minecraft:smooth_stone_slab",
            &[("minecraft:vertical_half", StateValue::Str("bottom".into()))],
        );
        assert_eq!(slab, vec![Aabb::new(0.0, 0.0, 0.0, 1.0, 0.5, 1.0)]);
        assert_eq!(boxes(&table, &reg, "minecraft:soul_sand", &[]), vec![Aabb::new(0.0, 0.0, 0.0, 1.0, 0.875, 1.0)]);
        let stairs = boxes(
            &table,
            &reg,
            "minecraft:stone_stairs",
            &[("weirdo_direction", StateValue::Int(0)), ("upside_down_bit", StateValue::Byte(0))],
        );
        assert_eq!(stairs.len(), 2, "{stairs:?}");
        assert_eq!(table.shapes(u32::MAX), &[] as &[Aabb]);
    }
    assert!(versions > 0, "no version has both block and shape data");
}

/// A world of registry states: stone floor, a row of bottom slabs at z = 3, a stone wall at z = 6.
struct RegistryWorld {
    table: std::sync::Arc<ShapeTable>,
    stone: u32,
    slab: u32,
    physics: BlockPhysics,
}

impl World for RegistryWorld {
    fn block(&self, _x: i32, y: i32, z: i32) -> Block<'_> {
        let state = match (y, z) {
            (..0, _) => self.stone,
            (0, 3) => self.slab,
            (0 | 1, 6) => self.stone,
            _ => return Block::AIR,
        };
        Block { physics: self.physics, shapes: self.table.shapes(state) }
    }
}

#[test]
fn walks_up_a_slab_and_stops_at_a_wall() {
    let v = ShapeTable::versions().find(|v| BlockRegistry::for_version(v).is_ok()).expect("a version");
    let reg = BlockRegistry::for_version(v).expect("registry");
    let world = RegistryWorld {
        table: ShapeTable::for_version(v).expect("shapes"),
        stone: reg.state_with("minecraft:stone", &[]).expect("stone").0,
        slab: reg
            .state_with("minecraft:smooth_stone_slab", &[("minecraft:vertical_half", StateValue::Str("bottom".into()))])
            .expect("slab")
            .0,
        physics: BlockPhysics::PLAIN,
    };
    let mut physics = Physics::new(Config::for_version(v));
    let mut p = PlayerState::new(Vec3::new(0.5, 0.0, 0.5));
    p.on_ground = true;
    let walk = Input { keys: Keys { up: true, ..Keys::default() }, ..Input::default() };
    let mut max_y = 0.0_f32;
    let mut hit_wall = false;
    for _ in 0..60 {
        let out = physics.tick(&mut p, &walk, &world);
        max_y = max_y.max(p.position.y);
        hit_wall |= out.flags.names().any(|f| f == "horizontal_collision");
    }
    assert_eq!(max_y, 0.5, "stepped onto the slab (0.5 ≤ 0.5625), not higher");
    assert!(hit_wall, "the two-high wall stopped the walk");
    assert!((p.position.z - 5.7).abs() < 1e-4, "stands against the wall at z = 6 − 0.3: {}", p.position.z);
    assert_eq!(p.position.y, 0.0, "back down after the slab");
}

/// The collision boxes the real-client recordings show for each of their blocks
/// (`tests/vectors/physics/world.txt`) are among the boxes the vendored minecraft-data shapes give
/// that block's states: the recording and the data agree, so no override is needed.
#[test]
fn recorded_shapes_agree_with_the_vendored_shapes() {
    let v = ShapeTable::versions().find(|v| BlockRegistry::for_version(v).is_ok()).expect("a version");
    let reg = BlockRegistry::for_version(v).expect("registry");
    let table = ShapeTable::for_version(v).expect("shapes");
    let world = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/vectors/physics/world.txt"))
        .expect("world.txt");
    let mut checked = 0;
    for line in world.lines().filter(|l| l.starts_with("block ")) {
        let parts: Vec<&str> = line.split_whitespace().collect();
        let name = format!("minecraft:{}", parts[2]);
        let recorded: Vec<Aabb> = if parts[3] == "-" {
            Vec::new()
        } else {
            parts[3]
                .split(';')
                .map(|b| {
                    let n: Vec<f32> = b.split(',').map(|v| v.parse::<f64>().expect("number") as f32).collect();
                    Aabb::new(n[0], n[1], n[2], n[3], n[4], n[5])
                })
                .collect()
        };
        let states: Vec<Vec<Aabb>> = reg.states_named(&name).map(|s| table.shapes(s.0).to_vec()).collect();
        assert!(!states.is_empty(), "{name} is not in {v}");
        assert!(states.contains(&recorded), "{name}: recorded {recorded:?}, minecraft-data has {states:?}");
        checked += 1;
    }
    assert!(checked >= 20, "{checked} blocks checked");
}

/// Doors take the side their state says (minecraft-data gives every state the first one's box;
/// `data/gen-shapes.js` overrides it): closed facing south (the plate on the west side), and open,
/// on the side a quarter turn away by the hinge.
#[test]
fn doors_follow_their_state() {
    let v = ShapeTable::versions().find(|v| BlockRegistry::for_version(v).is_ok()).expect("a version");
    let reg = BlockRegistry::for_version(v).expect("registry");
    let table = ShapeTable::for_version(v).expect("shapes");
    let door = |dir: &str, open: bool, hinge: bool| {
        boxes(
            &table,
            &reg,
            "minecraft:wooden_door",
            &[
                ("minecraft:cardinal_direction", StateValue::Str(dir.into())),
                ("open_bit", StateValue::Byte(u8::from(open))),
                ("door_hinge_bit", StateValue::Byte(u8::from(hinge))),
                ("upper_block_bit", StateValue::Byte(0)),
            ],
        )
    };
    let t = 0.1825_f32;
    assert_eq!(door("south", false, false), vec![Aabb::new(0.0, 0.0, 0.0, t, 1.0, 1.0)]);
    assert_eq!(door("north", false, false), vec![Aabb::new(1.0 - t, 0.0, 0.0, 1.0, 1.0, 1.0)]);
    assert_eq!(door("west", false, false), vec![Aabb::new(0.0, 0.0, 0.0, 1.0, 1.0, t)]);
    assert_eq!(door("east", false, false), vec![Aabb::new(0.0, 0.0, 1.0 - t, 1.0, 1.0, 1.0)]);
    // Open, the plate turns a quarter: to one side or the other by the hinge.
    let open_left = door("south", true, false);
    let open_right = door("south", true, true);
    assert_ne!(open_left, open_right);
    for open in [&open_left, &open_right] {
        let b = open[0];
        assert!(b.max_x - b.min_x == 1.0 && (b.max_z - b.min_z - t).abs() < 1e-6, "a plate across x: {b:?}");
    }
}
