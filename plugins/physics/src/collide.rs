//! The collision sweep: the box moves one axis at a time (Y, then X, then Z) through the block
//! boxes around its path, and steps up onto what the horizontal move ran into.
//!
//! Each shape clips the axis motion in turn (walked backwards): a shape clips only when it
//! overlaps the box on the two other axes and is closer on the moving axis than the motion; a
//! shape the box already overlaps on all three axes pushes it out along its shallowest axis when
//! that depth is within the depenetration limit. Gaps within 1e-6 count as touching.

use crate::block::{Climb, Slowdown};
use crate::math::cell_off;
use crate::{Aabb, Vec3, World};

/// Gaps this small count as touching.
const OVERLAP_EPSILON: f32 = 9.999_999_7e-7;
/// The collision query pads the searched cells by this much.
const QUERY_PADDING: f64 = 1e-7;
/// A scaffolding top counts as under the feet within this much.
const SCAFFOLDING_TOP_TOLERANCE: f32 = -1e-6;
/// Powder snow's top counts as under the feet within this much.
const POWDER_SNOW_TOP_TOLERANCE: f32 = -1.192_092_9e-7;
/// A fall longer than this lands on powder snow's 0.9-high box.
const POWDER_SNOW_FALL: f32 = 2.5;
const UNIT: Aabb = Aabb::new(0.0, 0.0, 0.0, 1.0, 1.0, 1.0);
const POWDER_SNOW_LANDING: Aabb = Aabb::new(0.0, 0.0, 0.0, 1.0, 0.9, 1.0);
/// A fence's arm toward each side (−x, +x, −z, +z), 1.5 high like its post.
const FENCE_ARMS: [(i32, i32, Aabb); 4] = [
    (-1, 0, Aabb::new(0.0, 0.0, 0.375, 0.375, 1.5, 0.625)),
    (1, 0, Aabb::new(0.625, 0.0, 0.375, 1.0, 1.5, 0.625)),
    (0, -1, Aabb::new(0.375, 0.0, 0.0, 0.625, 1.5, 0.375)),
    (0, 1, Aabb::new(0.375, 0.0, 0.625, 0.625, 1.5, 1.0)),
];

/// A pane's (or iron bars') arm toward each side (−x, +x, −z, +z), from its 0.125-wide post.
const PANE_ARMS: [(i32, i32, Aabb); 4] = [
    (-1, 0, Aabb::new(0.0, 0.0, 0.4375, 0.5625, 1.0, 0.5625)),
    (1, 0, Aabb::new(0.4375, 0.0, 0.4375, 1.0, 1.0, 0.5625)),
    (0, -1, Aabb::new(0.4375, 0.0, 0.0, 0.5625, 1.0, 0.5625)),
    (0, 1, Aabb::new(0.4375, 0.0, 0.4375, 0.5625, 1.0, 1.0)),
];

/// The stairs at (x, y, z) if that block is stairs with the same half (upside down or not).
fn stairs_at<W: World + ?Sized>(world: &W, x: i32, y: i32, z: i32, upside_down: bool) -> Option<crate::Stairs> {
    world.block(x, y, z).physics.stairs.filter(|s| s.upside_down == upside_down)
}

/// The quarter of the upper (or, upside down, lower) layer toward both `a` and `b` (perpendicular
/// unit steps), or the half toward `a` when `b` is zero.
fn stairs_part(a: (i8, i8), b: (i8, i8), upside_down: bool) -> Aabb {
    let (y0, y1) = if upside_down { (0.0, 0.5) } else { (0.5, 1.0) };
    let span = |d: i8| match d {
        1 => (0.5, 1.0),
        -1 => (0.0, 0.5),
        _ => (0.0, 1.0),
    };
    let (dx, dz) = (a.0 + b.0, a.1 + b.1);
    let (x0, x1) = span(dx);
    let (z0, z1) = span(dz);
    Aabb::new(x0, y0, z0, x1, y1, z1)
}

/// The boxes of a stairs block in its neighbourhood, as the client shapes stairs: the slab half,
/// and the tall half toward its facing, cut to a quarter (outer corner) when the stairs in front
/// turns across it, or grown by a quarter (inner corner) when the stairs behind does. Returns how
/// many boxes it wrote to `out`.
fn stairs_shape<W: World + ?Sized>(world: &W, s: crate::Stairs, x: i32, y: i32, z: i32, out: &mut [Aabb; 3]) -> usize {
    let f = s.facing;
    let (fx, fz) = (i32::from(f.0), i32::from(f.1));
    out[0] =
        if s.upside_down { Aabb::new(0.0, 0.5, 0.0, 1.0, 1.0, 1.0) } else { Aabb::new(0.0, 0.0, 0.0, 1.0, 0.5, 1.0) };
    let perpendicular = |o: crate::Stairs| o.facing.0 != 0 && f.0 == 0 || o.facing.1 != 0 && f.1 == 0;
    // A neighbour stairs with the same facing and half stops the corner toward it.
    let can_turn = |dx: i32, dz: i32| stairs_at(world, x + dx, y, z + dz, s.upside_down).is_none_or(|o| o.facing != f);
    if let Some(front) = stairs_at(world, x + fx, y, z + fz, s.upside_down)
        && perpendicular(front)
        && can_turn(-i32::from(front.facing.0), -i32::from(front.facing.1))
    {
        out[1] = stairs_part(f, front.facing, s.upside_down);
        return 2;
    }
    out[1] = stairs_part(f, (0, 0), s.upside_down);
    if let Some(back) = stairs_at(world, x - fx, y, z - fz, s.upside_down)
        && perpendicular(back)
        && can_turn(i32::from(back.facing.0), i32::from(back.facing.1))
    {
        out[2] = stairs_part((-f.0, -f.1), back.facing, s.upside_down);
        return 3;
    }
    2
}

/// The whole-block depenetration limit (nothing holds the player).
pub(crate) const FULL_DEPENETRATION: Vec3 = Vec3::new(1.0, 1.0, 1.0);

/// Who a collision query is made for: scaffolding and powder snow collide depending on it.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Mover {
    /// The box before the move.
    pub aabb: Aabb,
    /// Descending (the sneak key): falls through scaffolding and powder snow.
    pub descend: bool,
    /// Wearing leather boots: stands on powder snow.
    pub leather_boots: bool,
    /// The fall so far (powder snow catches falls over 2.5).
    pub fall_distance: f32,
}

/// Pushes the collision boxes of the blocks that intersect `query` into `out` (block-local boxes
/// moved to their cells; fences get their arms). Cells are searched from half a block below the
/// query, since fences rise above their cell.
pub(crate) fn collision_boxes<W: World + ?Sized>(world: &W, query: &Aabb, mover: Option<&Mover>, out: &mut Vec<Aabb>) {
    out.clear();
    let min_x = cell_off(query.min_x, -QUERY_PADDING);
    let min_y = cell_off(query.min_y, -0.5 - QUERY_PADDING);
    let min_z = cell_off(query.min_z, -QUERY_PADDING);
    let max_x = cell_off(query.max_x, QUERY_PADDING);
    let max_y = cell_off(query.max_y, QUERY_PADDING);
    let max_z = cell_off(query.max_z, QUERY_PADDING);
    for y in min_y..=max_y {
        for z in min_z..=max_z {
            for x in min_x..=max_x {
                cell_boxes(world, x, y, z, mover, |b| {
                    if b.intersects(query) {
                        out.push(b);
                    }
                });
            }
        }
    }
}

/// Calls `each` with every collision box of the block in cell (`x`, `y`, `z`), moved to the cell:
/// its state's boxes, or those built from its neighbours (stairs corners, fence and pane arms),
/// scaffolding and powder snow as they hold `mover` (nothing without one).
#[inline]
fn cell_boxes<W: World + ?Sized>(world: &W, x: i32, y: i32, z: i32, mover: Option<&Mover>, mut each: impl FnMut(Aabb)) {
    let block = world.block(x, y, z);
    let (fx, fy, fz) = (x as f32, y as f32, z as f32);
    let mut push = |shape: &Aabb| each(shape.offset(fx, fy, fz));
    if block.physics.climb == Climb::Scaffolding {
        if let Some(m) = mover
            && scaffolding_supports(m, x, y, z)
        {
            push(&UNIT);
        }
        return;
    }
    if block.physics.slowdown == Slowdown::PowderSnow {
        if let Some(m) = mover
            && let Some(shape) = powder_snow_shape(m, y)
        {
            push(&shape);
        }
        return;
    }
    if let Some(stairs) = block.physics.stairs {
        let mut parts = [Aabb::default(); 3];
        let n = stairs_shape(world, stairs, x, y, z, &mut parts);
        for part in &parts[..n] {
            push(part);
        }
        return;
    }
    for shape in block.shapes {
        push(shape);
    }
    if block.physics.fence {
        for (dx, dz, arm) in &FENCE_ARMS {
            let other = world.block(x + dx, y, z + dz);
            if other.physics.fence || other.is_full_cube() {
                push(arm);
            }
        }
    }
    if block.physics.pane {
        for (dx, dz, arm) in &PANE_ARMS {
            let other = world.block(x + dx, y, z + dz);
            if other.physics.pane || other.physics.wall || other.is_full_cube() {
                push(arm);
            }
        }
    }
}

/// A box top counts as the floor of the player's box within this much (float32 noise).
const SUPPORT_TOLERANCE: f32 = 1e-3;

/// The cell whose collision box holds `player` up: of the boxes whose top is the floor of the
/// player's box and that overlap it horizontally, the one nearest the box's centre (standing on
/// an edge, the cell under the centre may be air while a neighbour carries the player). `None`
/// when the player is rising (a jump), is in a liquid, or no box is under its floor. A player
/// placed on a block (a spawn, a teleport) stands on it before its first tick sets the ground
/// flag, so the flag itself is not required.
pub fn supporting_cell<W: World + ?Sized>(world: &W, player: &crate::PlayerState) -> Option<[i32; 3]> {
    let rising = !player.on_ground && player.velocity.y > 0.0;
    if rising || player.in_water {
        return None;
    }
    let a = player.aabb;
    let mover = Mover {
        aabb: a,
        descend: player.previous_keys().sneak,
        leather_boots: player.leather_boots,
        fall_distance: player.fall_distance,
    };
    let centre = a.centre();
    let mut best: Option<(f32, [i32; 3])> = None;
    // Fences rise half a block above their cell, so the search starts half a block lower.
    for y in cell_off(a.min_y, -0.5 - QUERY_PADDING)..=cell_off(a.min_y, -QUERY_PADDING) {
        for z in cell_off(a.min_z, -QUERY_PADDING)..=cell_off(a.max_z, QUERY_PADDING) {
            for x in cell_off(a.min_x, -QUERY_PADDING)..=cell_off(a.max_x, QUERY_PADDING) {
                cell_boxes(world, x, y, z, Some(&mover), |b| {
                    let carries = (b.max_y - a.min_y).abs() <= SUPPORT_TOLERANCE
                        && b.min_x < a.max_x
                        && b.max_x > a.min_x
                        && b.min_z < a.max_z
                        && b.max_z > a.min_z;
                    if !carries {
                        return;
                    }
                    let dx = (b.min_x - centre.x).max(centre.x - b.max_x).max(0.0);
                    let dz = (b.min_z - centre.z).max(centre.z - b.max_z).max(0.0);
                    let d = dx * dx + dz * dz;
                    if best.is_none_or(|(bd, _)| d < bd) {
                        best = Some((d, [x, y, z]));
                    }
                });
            }
        }
    }
    best.map(|(_, cell)| cell)
}

/// Scaffolding collides as a full cube for a mover standing on or above its top and over its
/// footprint, unless it descends.
fn scaffolding_supports(m: &Mover, x: i32, y: i32, z: i32) -> bool {
    let a = &m.aabb;
    !m.descend
        && a.min_y >= (y + 1) as f32 + SCAFFOLDING_TOP_TOLERANCE
        && a.max_x > x as f32
        && (x + 1) as f32 > a.min_x
        && a.max_z > z as f32
        && (z + 1) as f32 > a.min_z
}

/// Powder snow's box for a mover whose feet are at or above the cell's top and that does not
/// descend: a 0.9-high landing box after a fall of more than 2.5, the whole cube in leather boots.
fn powder_snow_shape(m: &Mover, y: i32) -> Option<Aabb> {
    if (y + 1) as f32 + POWDER_SNOW_TOP_TOLERANCE > m.aabb.min_y || m.descend {
        return None;
    }
    if m.fall_distance > POWDER_SNOW_FALL {
        return Some(POWDER_SNOW_LANDING);
    }
    m.leather_boots.then_some(UNIT)
}

#[inline]
fn snap_gap(v: f32) -> f32 {
    if v.abs() > OVERLAP_EPSILON { v } else { 0.0 }
}

/// The result of clipping one axis of a motion against one shape.
struct Clip {
    /// The penetration resolved (0 when the shape did not overlap on all axes).
    depth: f32,
    /// The motion without, and with, the push out of an overlapping shape.
    unpushed: [f32; 3],
    pushed: [f32; 3],
    /// The axis pushed along.
    axis: usize,
}

/// Clips `motion` (one non-zero component) of `bx` against `shape`.
fn clip_axis(shape: &Aabb, bx: &Aabb, motion: [f32; 3]) -> Clip {
    let mut result = Clip { depth: 0.0, unpushed: motion, pushed: motion, axis: 0 };
    if !shape.is_solid() {
        return result;
    }
    let push = [snap_gap(shape.max_x - bx.min_x), snap_gap(shape.max_y - bx.min_y), snap_gap(shape.max_z - bx.min_z)];
    let push_back =
        [snap_gap(bx.max_x - shape.min_x), snap_gap(bx.max_y - shape.min_y), snap_gap(bx.max_z - shape.min_z)];
    let mut depth = [0.0_f32; 3];
    let mut sign = [0.0_f32; 3];
    let mut separation = [0.0_f32; 3];
    let mut overlaps = [false; 3];
    for k in 0..3 {
        let positive = push[k].max(0.0);
        let negative = push_back[k].max(0.0);
        // The negative side is tested first.
        if negative == 0.0 {
            separation[k] = push_back[k];
            sign[k] = -1.0;
            continue;
        }
        if positive == 0.0 {
            separation[k] = push[k];
            sign[k] = 1.0;
            continue;
        }
        overlaps[k] = true;
        depth[k] = if positive < negative { positive } else { negative };
        sign[k] = if positive > negative { -1.0 } else { 1.0 };
    }
    // At most one axis may separate; a second one means the shape is clear of the box.
    let mut separated = None;
    for (k, &overlap) in overlaps.iter().enumerate() {
        if overlap {
            continue;
        }
        if separated.is_some() {
            return result;
        }
        separated = Some(k);
    }
    if let Some(k) = separated {
        let gap = separation[k];
        if gap - motion[k] * sign[k] > 0.0 {
            let clipped = gap * sign[k];
            result.unpushed[k] = clipped;
            result.pushed[k] = clipped;
        }
        return result;
    }
    // All three overlap: push out along the shallowest axis.
    result.depth = depth[2].min(depth[1].min(depth[0]));
    let nearer_of_xy = if depth[0] > depth[1] { 1 } else { 0 };
    let axis = if depth[nearer_of_xy] <= depth[2] { nearer_of_xy } else { 2 };
    let push_out = depth[axis] * sign[axis];
    let wanted = motion[axis];
    let take_push = if push_out <= 0.0 { push_out <= wanted } else { wanted <= push_out };
    result.pushed[axis] = if take_push { push_out } else { wanted };
    result.axis = axis;
    result
}

/// Sweeps `bx` (moved in place) by the motion through `shapes`; returns the motion applied and
/// the summed penetration depth.
pub(crate) fn sweep(bx: &mut Aabb, m: Vec3, shapes: &[Aabb], limit: Vec3) -> (Vec3, f32) {
    let limits = [limit.x, limit.y, limit.z];
    let mut total_clip = 0.0_f32;
    let mut moved = [0.0_f32; 3];
    for requested in [[0.0, m.y, 0.0], [m.x, 0.0, 0.0], [0.0, 0.0, m.z]] {
        let mut motion = requested;
        for shape in shapes.iter().rev() {
            let clip = clip_axis(shape, bx, motion);
            motion = if limits[clip.axis] < clip.depth { clip.unpushed } else { clip.pushed };
            total_clip += clip.depth;
        }
        for k in 0..3 {
            moved[k] += motion[k];
        }
        *bx = bx.offset(motion[0], motion[1], motion[2]);
    }
    (Vec3::new(moved[0], moved[1], moved[2]), total_clip)
}

/// Scratch buffers for the collision queries of a tick (kept to avoid allocating per tick).
#[derive(Debug, Default, Clone)]
pub(crate) struct Scratch {
    /// The boxes of the plain move (the landing reads them).
    pub move_shapes: Vec<Aabb>,
    /// The boxes of any other query.
    pub shapes: Vec<Aabb>,
}

/// Sweeps `bx` against the blocks around the path; returns the motion applied and the penetration.
pub(crate) fn collide<W: World + ?Sized>(
    world: &W,
    bx: &mut Aabb,
    m: Vec3,
    mover: &Mover,
    limit: Vec3,
    shapes: &mut Vec<Aabb>,
) -> (Vec3, f32) {
    collision_boxes(world, &bx.stretch(m.x, m.y, m.z), Some(mover), shapes);
    sweep(bx, m, shapes, limit)
}

/// The squared horizontal length, in double precision as the step choice compares it.
#[inline]
fn hlen(v: Vec3) -> f64 {
    let (x, z) = (f64::from(v.x), f64::from(v.z));
    x * x + z * z
}

/// The move the box can make of `requested`, stepping up (by at most `step_height`) where that
/// gets further horizontally. Returns the applied move and the plain move's penetration; the plain
/// move's collision boxes are left in `scratch.move_shapes`.
#[allow(clippy::too_many_arguments)]
pub(crate) fn move_with_collisions<W: World + ?Sized>(
    world: &W,
    bx: Aabb,
    requested: Vec3,
    on_ground: bool,
    step_height: f32,
    mover: &Mover,
    limit: Vec3,
    scratch: &mut Scratch,
) -> (Vec3, f32) {
    let mut plain_box = bx;
    let (applied, clip) = collide(world, &mut plain_box, requested, mover, limit, &mut scratch.move_shapes);
    let vertical = applied.y != requested.y;
    let horizontal = applied.x != requested.x || applied.z != requested.z;
    if !((on_ground || (vertical && requested.y < 0.0)) && horizontal) {
        return (applied, clip);
    }
    let stepped = try_step(world, bx, requested, applied, step_height, mover, limit, &mut scratch.shapes);
    (if hlen(stepped) > hlen(applied) { stepped } else { applied }, clip)
}

/// The step candidate: up by the step height then across; when the box stretched along the move
/// cannot rise that high, up only as far as it can then across; the longer horizontal path wins
/// and settles back down. Returns `plain` when stepping gets no further.
#[allow(clippy::too_many_arguments)]
fn try_step<W: World + ?Sized>(
    world: &W,
    bx: Aabb,
    requested: Vec3,
    plain: Vec3,
    step_height: f32,
    mover: &Mover,
    limit: Vec3,
    shapes: &mut Vec<Aabb>,
) -> Vec3 {
    let mut step =
        collide(world, &mut bx.clone(), Vec3::new(requested.x, step_height, requested.z), mover, limit, shapes).0;
    let mut stretched = bx.stretch(requested.x, 0.0, requested.z);
    let max_step_up = collide(world, &mut stretched, Vec3::new(0.0, step_height, 0.0), mover, limit, shapes).0.y;
    if max_step_up < step_height {
        let mut raised = bx.offset(0.0, max_step_up, 0.0);
        let across = collide(world, &mut raised, Vec3::new(requested.x, 0.0, requested.z), mover, limit, shapes).0;
        if hlen(across) > hlen(step) {
            step = Vec3::new(across.x, across.y + max_step_up, across.z);
        }
    }
    if hlen(step) <= hlen(plain) {
        return plain;
    }
    let mut stepped = bx.offset(step.x, step.y, step.z);
    let down = collide(world, &mut stepped, Vec3::new(0.0, requested.y - step.y, 0.0), mover, limit, shapes).0.y;
    Vec3::new(step.x, step.y + down, step.z)
}

/// Whether a box (already shrunk as the caller wants) overlaps any collision box.
pub(crate) fn any_collision<W: World + ?Sized>(world: &W, query: &Aabb, shapes: &mut Vec<Aabb>) -> bool {
    collision_boxes(world, query, None, shapes);
    !shapes.is_empty()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Block, BlockPhysics, Stairs};

    const CUBE: [Aabb; 1] = [UNIT];
    const POST: [Aabb; 1] = [Aabb::new(0.4375, 0.0, 0.4375, 0.5625, 1.0, 0.5625)];

    /// Cells by (x, z) at y = 0: stairs with a facing, a pane, a full cube; air elsewhere.
    struct Grid(Vec<((i32, i32), BlockPhysics, &'static [Aabb])>);

    impl World for Grid {
        fn block(&self, x: i32, y: i32, z: i32) -> Block<'_> {
            if y != 0 {
                return Block::AIR;
            }
            match self.0.iter().find(|(c, _, _)| *c == (x, z)) {
                Some((_, physics, shapes)) => Block { physics: *physics, shapes },
                None => Block::AIR,
            }
        }
    }

    fn stairs(facing: (i8, i8)) -> BlockPhysics {
        BlockPhysics { stairs: Some(Stairs { facing, upside_down: false }), ..BlockPhysics::PLAIN }
    }

    fn shape_at(world: &Grid, x: i32, z: i32) -> Vec<Aabb> {
        let mut out = Vec::new();
        let q = Aabb::new(x as f32 + 0.01, 0.01, z as f32 + 0.01, x as f32 + 0.99, 0.99, z as f32 + 0.99);
        collision_boxes(world, &q, None, &mut out);
        out.into_iter().map(|b| b.offset(-x as f32, 0.0, -z as f32)).collect()
    }

    const EAST: (i8, i8) = (1, 0);
    const NORTH: (i8, i8) = (0, -1);
    const SOUTH: (i8, i8) = (0, 1);
    const SLAB: Aabb = Aabb::new(0.0, 0.0, 0.0, 1.0, 0.5, 1.0);

    #[test]
    fn straight_stairs() {
        let w = Grid(vec![((0, 0), stairs(EAST), &[])]);
        assert_eq!(shape_at(&w, 0, 0), vec![SLAB, Aabb::new(0.5, 0.5, 0.0, 1.0, 1.0, 1.0)]);
    }

    #[test]
    fn outer_corner_keeps_a_quarter() {
        // Stairs facing east with stairs facing north in front of it (east): only the north-east
        // quarter stays tall.
        let w = Grid(vec![((0, 0), stairs(EAST), &[]), ((1, 0), stairs(NORTH), &[])]);
        assert_eq!(shape_at(&w, 0, 0), vec![SLAB, Aabb::new(0.5, 0.5, 0.0, 1.0, 1.0, 0.5)]);
        // A stairs beside it facing east too (to the south, where the corner would open) keeps it straight.
        let w = Grid(vec![((0, 0), stairs(EAST), &[]), ((1, 0), stairs(NORTH), &[]), ((0, 1), stairs(EAST), &[])]);
        assert_eq!(shape_at(&w, 0, 0), vec![SLAB, Aabb::new(0.5, 0.5, 0.0, 1.0, 1.0, 1.0)]);
    }

    #[test]
    fn inner_corner_adds_a_quarter() {
        // Stairs facing east with stairs facing south behind it (west): the east half plus the
        // south-west quarter.
        let w = Grid(vec![((0, 0), stairs(EAST), &[]), ((-1, 0), stairs(SOUTH), &[])]);
        assert_eq!(
            shape_at(&w, 0, 0),
            vec![SLAB, Aabb::new(0.5, 0.5, 0.0, 1.0, 1.0, 1.0), Aabb::new(0.0, 0.5, 0.5, 0.5, 1.0, 1.0)]
        );
    }

    #[test]
    fn panes_connect_to_panes_and_full_cubes() {
        let pane = BlockPhysics { pane: true, ..BlockPhysics::PLAIN };
        let w = Grid(vec![((0, 0), pane, &POST), ((1, 0), pane, &POST), ((0, -1), BlockPhysics::PLAIN, &CUBE)]);
        let boxes = shape_at(&w, 0, 0);
        assert!(boxes.contains(&POST[0]));
        assert!(boxes.contains(&Aabb::new(0.4375, 0.0, 0.4375, 1.0, 1.0, 0.5625)), "arm east: {boxes:?}");
        assert!(boxes.contains(&Aabb::new(0.4375, 0.0, 0.0, 0.5625, 1.0, 0.5625)), "arm north: {boxes:?}");
        assert_eq!(boxes.len(), 3, "no arm toward air: {boxes:?}");
    }

    fn standing(x: f32, y: f32, z: f32) -> crate::PlayerState {
        let mut p = crate::PlayerState::new(crate::Vec3::new(x, y, z));
        p.on_ground = true;
        p
    }

    #[test]
    fn the_supporting_cell_is_the_one_carrying_the_box_nearest_its_centre() {
        // Cubes at y = 0 in cells (0, 0) and (1, 0); stairs facing east at (3, 0).
        let w = Grid(vec![
            ((0, 0), BlockPhysics::PLAIN, &CUBE),
            ((1, 0), BlockPhysics::PLAIN, &CUBE),
            ((3, 0), stairs(EAST), &[]),
        ]);
        assert_eq!(supporting_cell(&w, &standing(0.5, 1.0, 0.5)), Some([0, 0, 0]));
        // Over the seam, nearer the second cube.
        assert_eq!(supporting_cell(&w, &standing(1.1, 1.0, 0.5)), Some([1, 0, 0]));
        // Centre over air at x 2.2: only the edge of cube (1, 0) is under the box.
        assert_eq!(supporting_cell(&w, &standing(2.2, 1.0, 0.5)), Some([1, 0, 0]));
        // On the low step of the stairs (its slab half), and on its high step.
        assert_eq!(supporting_cell(&w, &standing(3.25, 0.5, 0.5)), Some([3, 0, 0]));
        assert_eq!(supporting_cell(&w, &standing(3.75, 1.0, 0.5)), Some([3, 0, 0]));
        // Rising from a jump through the floor's height, or a floor a little below the feet: nothing.
        let mut jumping = standing(0.5, 1.0, 0.5);
        jumping.on_ground = false;
        jumping.velocity.y = 0.42;
        assert_eq!(supporting_cell(&w, &jumping), None);
        let mut falling = standing(0.5, 1.2, 0.5);
        falling.on_ground = false;
        falling.velocity.y = -0.08;
        assert_eq!(supporting_cell(&w, &falling), None);
        // Placed on the floor (a spawn) before any tick set the ground flag: it stands there.
        let mut placed = standing(0.5, 1.0, 0.5);
        placed.on_ground = false;
        assert_eq!(supporting_cell(&w, &placed), Some([0, 0, 0]));
        let mut swimming = standing(0.5, 1.0, 0.5);
        swimming.in_water = true;
        assert_eq!(supporting_cell(&w, &swimming), None);
    }
}
