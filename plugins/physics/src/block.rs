//! What physics needs to know about a block, by block name and state: one table
//! ([`BlockPhysics::of`]) for friction, liquids, climbables, slowdown blocks, bounce and the rest.
//! Collision boxes come separately, from the world ([`crate::World`]) or [`crate::ShapeTable`].

use crate::Aabb;

/// Which liquid a cell holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Liquid {
    /// None.
    #[default]
    None,
    /// Water (also bubble columns and waterlogged blocks).
    Water,
    /// Lava.
    Lava,
}

/// What a player can climb.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Climb {
    /// Not climbable.
    #[default]
    None,
    /// Ladders (0.2 blocks/tick).
    Ladder,
    /// Vines, cave vines, twisting and weeping vines (0.2 blocks/tick).
    Vine,
    /// Scaffolding (0.15 blocks/tick, descends while sneaking, stood on from above).
    Scaffolding,
}

/// Blocks that slow the move while the player is inside them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Slowdown {
    /// None.
    #[default]
    None,
    /// Cobweb: the move × (0.25, 0.05, 0.25).
    Cobweb,
    /// Powder snow: × (0.9, 1.5, 0.9).
    PowderSnow,
    /// Sweet berry bush: × (0.8, 0.75, 0.8).
    SweetBerryBush,
}

/// Bubble column direction.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Bubbles {
    /// Not a bubble column.
    #[default]
    None,
    /// Pushes up (over soul sand).
    Up,
    /// Drags down (over magma).
    Down,
}

/// The physical properties of one block state (everything but its collision boxes).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BlockPhysics {
    /// Air: no block at all (a few checks ask for exactly air).
    pub air: bool,
    /// Ground slipperiness (0.6 for most blocks; ice 0.98, blue ice 0.989, slime and honey 0.8).
    pub friction: f32,
    /// The liquid in the cell, the block's own or its water layer (waterlogged).
    pub liquid: Liquid,
    /// Liquid depth: 0 source, 1..7 flowing, 8 and up falling.
    pub liquid_depth: u8,
    /// Climbable.
    pub climb: Climb,
    /// Slowdown block.
    pub slowdown: Slowdown,
    /// Bubble column.
    pub bubbles: Bubbles,
    /// A jump from it (or with it at the feet) reaches 0.6 of the height: honey, ladders, vines.
    pub reduces_jump: bool,
    /// How a landing bounces: slime 1, beds 0.75, honey −1 (takes a bounce away), else 0.
    pub restitution: f32,
    /// Standing on it scales the horizontal velocity by 0.4 + 0.2·|vy|: slime and honey.
    pub sticky: bool,
    /// Soul sand: the ground speed is computed with 1.225 × its slipperiness.
    pub soul_sand: bool,
    /// A honey block (slides a player hanging on its side).
    pub honey: bool,
    /// A fence: connects arms to neighbouring fences and full cubes.
    pub fence: bool,
    /// A glass pane or iron bars: connects arms to panes, walls and full cubes.
    pub pane: bool,
    /// A wall (panes connect to it).
    pub wall: bool,
    /// Stairs: `Some` with the facing (the side of the tall half) and whether upside down. The
    /// engine then builds the shape from the neighbouring stairs (straight, inner or outer corner)
    /// instead of the block's own boxes.
    pub stairs: Option<Stairs>,
}

/// The orientation of a stairs block.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Stairs {
    /// Toward which side the tall half stands, as a unit step `(dx, dz)`.
    pub facing: (i8, i8),
    /// Upside down (the slab part on top).
    pub upside_down: bool,
}

impl Stairs {
    /// The orientation from Bedrock's `weirdo_direction` (0 east, 1 west, 2 south, 3 north) and
    /// `upside_down_bit`.
    pub fn from_state(weirdo_direction: i32, upside_down: bool) -> Self {
        let facing = match weirdo_direction & 3 {
            0 => (1, 0),
            1 => (-1, 0),
            2 => (0, 1),
            _ => (0, -1),
        };
        Self { facing, upside_down }
    }
}

/// The default slipperiness of a block.
pub const DEFAULT_FRICTION: f32 = 0.6;

impl BlockPhysics {
    /// Air.
    pub const AIR: Self = Self {
        air: true,
        friction: DEFAULT_FRICTION,
        liquid: Liquid::None,
        liquid_depth: 0,
        climb: Climb::None,
        slowdown: Slowdown::None,
        bubbles: Bubbles::None,
        reduces_jump: false,
        restitution: 0.0,
        sticky: false,
        soul_sand: false,
        honey: false,
        fence: false,
        pane: false,
        wall: false,
        stairs: None,
    };

    /// An ordinary block: default friction, nothing special (its boxes decide the rest).
    pub const PLAIN: Self = Self { air: false, ..Self::AIR };

    /// The properties of block `name` (with or without `minecraft:`) in a state whose integer and
    /// boolean properties `prop` returns (booleans as 0/1; `None` when the state lacks one). Reads
    /// `liquid_depth` (water, lava), `drag_down` (bubble columns), `weirdo_direction` and
    /// `upside_down_bit` (stairs).
    pub fn of(name: &str, prop: impl Fn(&str) -> Option<i32>) -> Self {
        let name = name.strip_prefix("minecraft:").unwrap_or(name);
        let mut b = Self::PLAIN;
        match name {
            "air" | "cave_air" | "void_air" => return Self::AIR,
            "ice" | "packed_ice" | "frosted_ice" => b.friction = 0.98,
            "blue_ice" => b.friction = 0.989,
            "slime" | "slime_block" => {
                b.friction = 0.8;
                b.restitution = 1.0;
                b.sticky = true;
            }
            "honey_block" => {
                b.friction = 0.8;
                b.restitution = -1.0;
                b.sticky = true;
                b.honey = true;
                b.reduces_jump = true;
            }
            "soul_sand" => b.soul_sand = true,
            "water" | "flowing_water" => b.liquid = Liquid::Water,
            "lava" | "flowing_lava" => b.liquid = Liquid::Lava,
            "bubble_column" => {
                b.liquid = Liquid::Water;
                b.bubbles = if prop("drag_down").unwrap_or(0) != 0 { Bubbles::Down } else { Bubbles::Up };
            }
            "web" | "cobweb" => b.slowdown = Slowdown::Cobweb,
            "powder_snow" => b.slowdown = Slowdown::PowderSnow,
            "sweet_berry_bush" => b.slowdown = Slowdown::SweetBerryBush,
            "scaffolding" => b.climb = Climb::Scaffolding,
            _ => {}
        }
        if name.contains("ladder") {
            b.climb = Climb::Ladder;
        } else if name.contains("vine") {
            b.climb = Climb::Vine;
        }
        if matches!(name, "ladder" | "vine" | "cave_vines" | "twisting_vines" | "weeping_vines") {
            b.reduces_jump = true;
        }
        if name == "bed" || name.ends_with("_bed") {
            b.restitution = 0.75;
        }
        b.fence = name.ends_with("_fence");
        b.pane = name.ends_with("glass_pane") || name.ends_with("_bars");
        b.wall = name.ends_with("_wall") && !name.contains("_wall_");
        if name.ends_with("_stairs") {
            b.stairs = Some(Stairs::from_state(
                prop("weirdo_direction").unwrap_or(0),
                prop("upside_down_bit").unwrap_or(0) != 0,
            ));
        }
        if b.liquid != Liquid::None {
            b.liquid_depth = prop("liquid_depth").unwrap_or(0).clamp(0, 15) as u8;
        }
        b
    }

    /// The same block with water in its liquid layer (a waterlogged block).
    pub fn waterlogged(mut self, depth: u8) -> Self {
        if self.liquid == Liquid::None {
            self.liquid = Liquid::Water;
            self.liquid_depth = depth;
        }
        self
    }

    /// Whether the cell holds water.
    #[inline]
    pub fn is_water(&self) -> bool {
        self.liquid == Liquid::Water
    }

    /// Whether the cell holds lava.
    #[inline]
    pub fn is_lava(&self) -> bool {
        self.liquid == Liquid::Lava
    }
}

/// A block as the engine reads it: its properties and its collision boxes in block-local
/// coordinates (empty for no collision).
#[derive(Debug, Clone, Copy)]
pub struct Block<'a> {
    /// Properties.
    pub physics: BlockPhysics,
    /// Collision boxes relative to the cell's lower corner.
    pub shapes: &'a [Aabb],
}

impl Block<'static> {
    /// No block.
    pub const AIR: Self = Self { physics: BlockPhysics::AIR, shapes: &[] };
}

impl Block<'_> {
    /// Whether the block is exactly one unit cube.
    pub fn is_full_cube(&self) -> bool {
        self.shapes.len() == 1 && self.shapes[0] == Aabb::new(0.0, 0.0, 0.0, 1.0, 1.0, 1.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn none(_: &str) -> Option<i32> {
        None
    }

    #[test]
    fn table() {
        assert_eq!(BlockPhysics::of("minecraft:ice", none).friction, 0.98);
        assert_eq!(BlockPhysics::of("blue_ice", none).friction, 0.989);
        assert_eq!(BlockPhysics::of("stone", none).friction, 0.6);
        assert!(BlockPhysics::of("air", none).air);
        assert_eq!(BlockPhysics::of("ladder", none).climb, Climb::Ladder);
        assert_eq!(BlockPhysics::of("twisting_vines", none).climb, Climb::Vine);
        assert_eq!(BlockPhysics::of("scaffolding", none).climb, Climb::Scaffolding);
        assert_eq!(BlockPhysics::of("web", none).slowdown, Slowdown::Cobweb);
        let flowing = BlockPhysics::of("flowing_water", |k| (k == "liquid_depth").then_some(3));
        assert!(flowing.is_water() && flowing.liquid_depth == 3);
        let down = BlockPhysics::of("bubble_column", |k| (k == "drag_down").then_some(1));
        assert_eq!(down.bubbles, Bubbles::Down);
        assert!(BlockPhysics::of("oak_fence", none).fence);
        assert!(!BlockPhysics::of("oak_fence_gate", none).fence);
        assert!(BlockPhysics::of("honey_block", none).reduces_jump);
        assert!(BlockPhysics::of("soul_sand", none).soul_sand);
        assert!(BlockPhysics::of("stone", none).waterlogged(0).is_water());
        assert!(BlockPhysics::of("red_stained_glass_pane", none).pane && BlockPhysics::of("iron_bars", none).pane);
        assert!(BlockPhysics::of("cobblestone_wall", none).wall);
        let st = BlockPhysics::of("oak_stairs", |k| match k {
            "weirdo_direction" => Some(3),
            "upside_down_bit" => Some(1),
            _ => None,
        });
        assert_eq!(st.stairs, Some(Stairs { facing: (0, -1), upside_down: true }));
    }
}
