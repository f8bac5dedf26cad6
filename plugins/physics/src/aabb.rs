//! Float32 vectors and boxes.

/// A float32 vector (blocks, or blocks per tick).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Vec3 {
    /// East (+x).
    pub x: f32,
    /// Up (+y).
    pub y: f32,
    /// South (+z).
    pub z: f32,
}

impl Vec3 {
    /// The zero vector.
    pub const ZERO: Self = Self { x: 0.0, y: 0.0, z: 0.0 };

    /// A vector from its components.
    pub const fn new(x: f32, y: f32, z: f32) -> Self {
        Self { x, y, z }
    }

    /// The squared horizontal length.
    #[inline]
    pub fn horizontal_length_sq(self) -> f32 {
        self.x * self.x + self.z * self.z
    }
}

/// An axis-aligned float32 box.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Aabb {
    /// Lower x.
    pub min_x: f32,
    /// Lower y.
    pub min_y: f32,
    /// Lower z.
    pub min_z: f32,
    /// Upper x.
    pub max_x: f32,
    /// Upper y.
    pub max_y: f32,
    /// Upper z.
    pub max_z: f32,
}

impl Aabb {
    /// A box from its corners.
    pub const fn new(min_x: f32, min_y: f32, min_z: f32, max_x: f32, max_y: f32, max_z: f32) -> Self {
        Self { min_x, min_y, min_z, max_x, max_y, max_z }
    }

    /// A box from an array `[min_x, min_y, min_z, max_x, max_y, max_z]`.
    pub const fn from_array(a: [f32; 6]) -> Self {
        Self::new(a[0], a[1], a[2], a[3], a[4], a[5])
    }

    /// The box moved by a vector.
    #[inline]
    pub fn offset(self, dx: f32, dy: f32, dz: f32) -> Self {
        Self::new(self.min_x + dx, self.min_y + dy, self.min_z + dz, self.max_x + dx, self.max_y + dy, self.max_z + dz)
    }

    /// The box stretched toward a motion (each axis grows on the side the motion goes).
    #[inline]
    pub fn stretch(self, dx: f32, dy: f32, dz: f32) -> Self {
        let mut b = self;
        if dx < 0.0 {
            b.min_x += dx
        } else {
            b.max_x += dx
        }
        if dy < 0.0 {
            b.min_y += dy
        } else {
            b.max_y += dy
        }
        if dz < 0.0 {
            b.min_z += dz
        } else {
            b.max_z += dz
        }
        b
    }

    /// Whether the two boxes overlap with positive volume.
    #[inline]
    pub fn intersects(&self, o: &Self) -> bool {
        self.min_x < o.max_x
            && self.max_x > o.min_x
            && self.min_y < o.max_y
            && self.max_y > o.min_y
            && self.min_z < o.max_z
            && self.max_z > o.min_z
    }

    /// Whether the box has positive extent on every axis.
    #[inline]
    pub fn is_solid(&self) -> bool {
        self.min_x < self.max_x && self.min_y < self.max_y && self.min_z < self.max_z
    }

    /// The centre, computed as the client does (`min + (max − min) / 2` per axis).
    #[inline]
    pub fn centre(&self) -> Vec3 {
        Vec3::new(
            self.min_x + (self.max_x - self.min_x) * 0.5,
            self.min_y + (self.max_y - self.min_y) * 0.5,
            self.min_z + (self.max_z - self.min_z) * 0.5,
        )
    }
}
