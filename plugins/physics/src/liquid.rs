//! Water and lava: which cells hold them, whether a box or a point is in them, and the push of
//! flowing liquid.

use crate::block::Liquid;
use crate::math::{add_f64, cell};
use crate::{Aabb, Vec3, World};

/// One axis of a box shrunk by `by` on both faces; an axis too short collapses to its midpoint.
#[inline]
pub(crate) fn shrink_axis(min: f32, max: f32, by: f64) -> (f32, f32) {
    let lo = add_f64(min, by);
    let hi = add_f64(max, -by);
    if hi < lo {
        let mid = (min + max) * 0.5;
        return (mid, mid);
    }
    (lo, hi)
}

/// Whether any cell of the box shrunk by (`h`, `v`, `h`) holds `liquid`.
pub(crate) fn liquid_in_inner_box<W: World + ?Sized>(world: &W, b: &Aabb, liquid: Liquid, h: f64, v: f64) -> bool {
    let (xa, xb) = shrink_axis(b.min_x, b.max_x, h);
    let (ya, yb) = shrink_axis(b.min_y, b.max_y, v);
    let (za, zb) = shrink_axis(b.min_z, b.max_z, h);
    for x in cell(xa)..=cell(xb) {
        for y in cell(ya)..=cell(yb) {
            for z in cell(za)..=cell(zb) {
                if world.block(x, y, z).physics.liquid == liquid {
                    return true;
                }
            }
        }
    }
    false
}

/// In water, else in lava, on the box (water wins).
pub(crate) fn sense<W: World + ?Sized>(world: &W, b: &Aabb) -> (bool, bool) {
    let water = liquid_in_inner_box(world, b, Liquid::Water, 0.001, 0.401);
    (water, !water && liquid_in_inner_box(world, b, Liquid::Lava, 0.001, 0.401))
}

/// The height of a liquid cell's surface: a source fills it (to within rounding), a flowing cell
/// of depth d < 8 stops (d + 1) / 9 short, a falling one counts as a source.
fn surface_height(depth: u8, cell_y: i32) -> f32 {
    let scaled = if depth < 8 { f64::from(depth) + 1.0 } else { 1.0 };
    (cell_y + 1) as f32 - ((scaled / 9.0) as f32 + -0.111_111_11)
}

/// Whether a point is under water: its cell holds water and the point is below the surface.
pub(crate) fn point_in_water<W: World + ?Sized>(world: &W, x: f32, y: f32, z: f32) -> bool {
    let cy = cell(y);
    let b = world.block(cell(x), cy, cell(z));
    b.physics.is_water() && surface_height(b.physics.liquid_depth, cy) > y
}

/// Whether any cell the box reaches into holds water or lava (`[floor(min), ceil(max))`).
pub(crate) fn contains_liquid<W: World + ?Sized>(world: &W, b: &Aabb) -> bool {
    for x in cell(b.min_x)..(b.max_x.ceil() as i32) {
        for z in cell(b.min_z)..(b.max_z.ceil() as i32) {
            for y in cell(b.min_y)..(b.max_y.ceil() as i32) {
                if world.block(x, y, z).physics.liquid != Liquid::None {
                    return true;
                }
            }
        }
    }
    false
}

// ---- flowing liquid ------------------------------------------------------------------------------
// Each liquid cell of the box flows from its depth toward shallower neighbours (and toward a drop
// into liquid below an open neighbour); a falling cell beside a wall also flows down. The cells'
// directions are summed and the sum's direction, × 0.014 in water or 0.0035 in lava, is added to
// the velocity. Nothing flows unless one of the cells, or a liquid cell just outside, is flowing.

const FLOW_EPSILON: f32 = 0.000_099_999_997;
/// North, east, south, west.
const FACES: [(i32, i32); 4] = [(0, -1), (1, 0), (0, 1), (-1, 0)];

fn depth_at<W: World + ?Sized>(world: &W, x: i32, y: i32, z: i32, liquid: Liquid) -> i32 {
    let b = world.block(x, y, z);
    if b.physics.liquid == liquid { i32::from(b.physics.liquid_depth) } else { -1 }
}

fn blocks_motion<W: World + ?Sized>(world: &W, x: i32, y: i32, z: i32) -> bool {
    !world.block(x, y, z).shapes.is_empty()
}

fn unit_or_zero(x: f32, y: f32, z: f32) -> Vec3 {
    let length = (z * z + (y * y + x * x)).sqrt();
    if !(length >= FLOW_EPSILON) {
        return Vec3::ZERO;
    }
    Vec3::new(x / length, y / length, z / length)
}

fn settled(depth: i32) -> i32 {
    if depth >= 8 { 0 } else { depth }
}

fn cell_flow<W: World + ?Sized>(world: &W, x: i32, y: i32, z: i32, liquid: Liquid) -> Vec3 {
    let depth = settled(depth_at(world, x, y, z, liquid));
    let (mut fx, mut fz) = (0.0_f32, 0.0_f32);
    for (dx, dz) in FACES {
        let (nx, nz) = (x + dx, z + dz);
        let neighbour = settled(depth_at(world, nx, y, nz, liquid));
        if neighbour >= 0 && !blocks_motion(world, nx, y, nz) && !blocks_motion(world, x, y, z) {
            fx += ((neighbour - depth) * dx) as f32;
            fz += ((neighbour - depth) * dz) as f32;
            continue;
        }
        if blocks_motion(world, nx, y, nz) {
            continue;
        }
        let under = settled(depth_at(world, nx, y - 1, nz, liquid));
        if under < 0 {
            continue;
        }
        fx += ((under - depth + 8) * dx) as f32;
        fz += ((under - depth + 8) * dz) as f32;
    }
    let mut fy = 0.0_f32;
    if depth_at(world, x, y, z, liquid) >= 8 {
        for (dx, dz) in FACES {
            if !blocks_motion(world, x + dx, y, z + dz) && !blocks_motion(world, x + dx, y + 1, z + dz) {
                continue;
            }
            let unit = unit_or_zero(fx, fy, fz);
            fx = unit.x;
            fz = unit.z;
            fy = unit.y + -6.0;
            break;
        }
    }
    unit_or_zero(fx, fy, fz)
}

/// The push of flowing water or lava on the velocity (lava when the box is in lava, else water).
pub(crate) fn apply_flow<W: World + ?Sized>(world: &W, b: &Aabb, vel: &mut Vec3) {
    let (liquid, h, v) = if liquid_in_inner_box(world, b, Liquid::Lava, 0.1, 0.4) {
        (Liquid::Lava, 0.1, 0.4)
    } else if liquid_in_inner_box(world, b, Liquid::Water, 0.001, 0.401) {
        (Liquid::Water, 0.001, 0.401)
    } else {
        return;
    };
    let (x0, x1) = shrink_axis(b.min_x, b.max_x, h);
    let (y0, y1) = shrink_axis(b.min_y, b.max_y, v);
    let (z0, z1) = shrink_axis(b.min_z, b.max_z, h);
    let lo = (cell(x0), cell(y0), cell(z0));
    let hi = (cell(x1 + 1.0), cell(y1 + 1.0), cell(z1 + 1.0));
    // Anything flowing: a cell of the range, or a liquid cell just outside one on the range's edge.
    let mut flowing = false;
    for y in lo.1..hi.1 {
        for z in lo.2..hi.2 {
            for x in lo.0..hi.0 {
                let d = depth_at(world, x, y, z, liquid);
                if d < 0 {
                    continue;
                }
                flowing |= d > 0
                    || (z == lo.2 && depth_at(world, x, y, z - 1, liquid) > 0)
                    || (x == hi.0 - 1 && depth_at(world, x + 1, y, z, liquid) > 0)
                    || (z == hi.2 - 1 && depth_at(world, x, y, z + 1, liquid) > 0)
                    || (x == lo.0 && depth_at(world, x - 1, y, z, liquid) > 0);
            }
        }
    }
    if !flowing {
        return;
    }
    let mut sum = Vec3::ZERO;
    for y in lo.1..hi.1 {
        for z in lo.2..hi.2 {
            for x in lo.0..hi.0 {
                if depth_at(world, x, y, z, liquid) < 0 {
                    continue;
                }
                let f = cell_flow(world, x, y, z, liquid);
                sum.x += f.x;
                sum.y += f.y;
                sum.z += f.z;
            }
        }
    }
    if !(sum.z * sum.z + (sum.y * sum.y + sum.x * sum.x) > 0.0) {
        return;
    }
    let unit = unit_or_zero(sum.x, sum.y, sum.z);
    let scale = if liquid == Liquid::Lava { 0.003_500_000_1 } else { 0.014 };
    vel.x += unit.x * scale;
    vel.y += unit.y * scale;
    vel.z += unit.z * scale;
}
