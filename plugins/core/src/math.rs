//! Small math types. Positions are `f64` internally and `f32` on the wire.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// A point or vector in world space.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize, JsonSchema)]
pub struct Vec3 {
    pub x: f64,
    pub y: f64,
    pub z: f64,
}

impl Vec3 {
    pub const ZERO: Vec3 = Vec3 { x: 0.0, y: 0.0, z: 0.0 };

    pub const fn new(x: f64, y: f64, z: f64) -> Self {
        Self { x, y, z }
    }

    /// The centre of the block at `cell`.
    pub fn block_centre(cell: [i32; 3]) -> Self {
        Self::new(f64::from(cell[0]) + 0.5, f64::from(cell[1]) + 0.5, f64::from(cell[2]) + 0.5)
    }

    pub fn distance(self, other: Vec3) -> f64 {
        ((self.x - other.x).powi(2) + (self.y - other.y).powi(2) + (self.z - other.z).powi(2)).sqrt()
    }

    pub fn offset_y(self, dy: f64) -> Self {
        Self { y: self.y + dy, ..self }
    }

    /// Rounded to 1/1000 block for JSON output, so `0.1 + 0.2` doesn't leak float noise to agents.
    pub fn rounded(self) -> Self {
        let r = |v: f64| (v * 1000.0).round() / 1000.0;
        Self { x: r(self.x), y: r(self.y), z: r(self.z) }
    }
}
