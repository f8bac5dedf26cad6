//! The world as the engine reads it.

use crate::Block;

/// Blocks by cell. Implement it over chunk storage (the movement plugin does, over
/// `clawcraft-world`) or over a test's blocks. Called for every cell near the player each tick,
/// so keep it cheap: no allocation, return references into a per-state table.
pub trait World {
    /// The block in cell (`x`, `y`, `z`); [`Block::AIR`] for air and for unloaded cells.
    fn block(&self, x: i32, y: i32, z: i32) -> Block<'_>;
}

impl<W: World + ?Sized> World for &W {
    #[inline]
    fn block(&self, x: i32, y: i32, z: i32) -> Block<'_> {
        (**self).block(x, y, z)
    }
}
