//! Exact voxel ray casting (Amanatides & Woo DDA): the ray visits every cell it passes through,
//! in order, and the face it entered the stopping cell by is known.

use schemars::JsonSchema;
use serde::Serialize;

use crate::chunk::{BlockLookup, World};
use crate::query::Cell;

/// A block face, named by the direction it faces.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Face {
    /// −Y (Bedrock face 0).
    Down,
    /// +Y (1).
    Up,
    /// −Z (2).
    North,
    /// +Z (3).
    South,
    /// −X (4).
    West,
    /// +X (5).
    East,
}

impl Face {
    /// Bedrock's face number, as block interaction packets use it.
    pub fn id(self) -> u8 {
        self as u8
    }

    /// The face a ray stepping along `axis` (0 x, 1 y, 2 z) in direction `step` enters through.
    fn entered(axis: usize, step: i32) -> Face {
        match (axis, step > 0) {
            (0, true) => Face::West,
            (0, false) => Face::East,
            (1, true) => Face::Down,
            (1, false) => Face::Up,
            (_, true) => Face::North,
            (_, false) => Face::South,
        }
    }
}

/// A cell the ray passed through (not the one it stopped at).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Passed {
    pub cell: Cell,
    /// Layer-0 network id.
    pub id: u32,
    /// Distance from the origin to where the ray entered the cell.
    pub distance: f64,
}

/// Where a ray stopped.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum RayEnd {
    /// It reached its length through loaded, non-obstacle cells.
    Clear,
    /// It entered an obstacle.
    Hit {
        cell: Cell,
        id: u32,
        /// The face entered by; `None` when the ray starts inside the obstacle.
        face: Option<Face>,
        /// The entry point.
        point: [f64; 3],
        distance: f64,
    },
    /// It entered a cell without data, so whether the way is clear is unknown.
    Unloaded { cell: Cell, distance: f64 },
}

/// The result of [`cast`].
#[derive(Debug, Clone, PartialEq)]
pub struct Ray {
    pub end: RayEnd,
    /// Loaded cells passed before the end, in order (air included).
    pub passed: Vec<Passed>,
}

/// Casts from `origin` along `dir` (need not be normalised; zero means "no direction") for
/// `length` blocks. `is_obstacle(id)` decides which layer-0 ids stop the ray. Cells above or below
/// the dimension are empty space.
pub fn cast(world: &World, origin: [f64; 3], dir: [f64; 3], length: f64, is_obstacle: impl Fn(u32) -> bool) -> Ray {
    let norm = (dir[0] * dir[0] + dir[1] * dir[1] + dir[2] * dir[2]).sqrt();
    let d = if norm > 0.0 { dir.map(|v| v / norm) } else { [0.0; 3] };
    let h = world.heights();
    let mut cell = origin.map(|v| v.floor() as i32);
    let step = d.map(|v| {
        if v > 0.0 {
            1
        } else if v < 0.0 {
            -1
        } else {
            0
        }
    });
    // Ray distance to the first boundary on each axis, and between boundaries.
    let mut t_max = [0usize, 1, 2].map(|a| {
        if step[a] == 0 {
            f64::INFINITY
        } else {
            let next = if step[a] > 0 { f64::from(cell[a]) + 1.0 } else { f64::from(cell[a]) };
            (next - origin[a]) / d[a]
        }
    });
    let t_delta = d.map(|v| if v == 0.0 { f64::INFINITY } else { 1.0 / v.abs() });
    let mut passed = Vec::new();
    let mut t = 0.0;
    let mut face = None;
    loop {
        let c = Cell { x: cell[0], y: cell[1], z: cell[2] };
        let outside = c.y < h.min_y || c.y >= h.max_y;
        if !outside {
            match world.get_block(c.x, c.y, c.z) {
                BlockLookup::Unloaded => return Ray { end: RayEnd::Unloaded { cell: c, distance: t }, passed },
                BlockLookup::Loaded(id, _) if is_obstacle(id) => {
                    let point = [0, 1, 2].map(|a| origin[a] + d[a] * t);
                    return Ray { end: RayEnd::Hit { cell: c, id, face, point, distance: t }, passed };
                }
                BlockLookup::Loaded(id, _) => passed.push(Passed { cell: c, id, distance: t }),
            }
        }
        let axis = if t_max[0] <= t_max[1] && t_max[0] <= t_max[2] {
            0
        } else if t_max[1] <= t_max[2] {
            1
        } else {
            2
        };
        if t_max[axis] > length || !t_max[axis].is_finite() {
            return Ray { end: RayEnd::Clear, passed };
        }
        t = t_max[axis];
        cell[axis] += step[axis];
        t_max[axis] += t_delta[axis];
        face = Some(Face::entered(axis, step[axis]));
    }
}

/// Unit direction of a Bedrock head rotation in degrees: yaw 0 faces +Z, yaw 90 faces −X, pitch
/// positive looks down.
pub fn direction(yaw_deg: f64, pitch_deg: f64) -> [f64; 3] {
    let (yaw, pitch) = (yaw_deg.to_radians(), pitch_deg.to_radians());
    [-yaw.sin() * pitch.cos(), -pitch.sin(), yaw.cos() * pitch.cos()]
}
