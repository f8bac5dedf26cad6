//! The input of a tick: the keys (and an optional analogue stick) with the rotation, cooked into
//! the move vector the way the client does.

/// The raw key levels of a tick (held or not).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Keys {
    /// Forward (W).
    pub up: bool,
    /// Back (S).
    pub down: bool,
    /// Strafe left (A).
    pub left: bool,
    /// Strafe right (D).
    pub right: bool,
    /// Jump (space).
    pub jump: bool,
    /// Sneak (shift).
    pub sneak: bool,
    /// Sprint (ctrl).
    pub sprint: bool,
}

/// One tick of input.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Input {
    /// Key levels.
    pub keys: Keys,
    /// An analogue stick instead of the direction keys, `[x, z]` with **+x = left** and +z =
    /// forward (clamped to unit length). `None` (or a centred stick) uses the keys.
    pub analog: Option<[f32; 2]>,
    /// Yaw in degrees (0 faces +z, 90 faces −x).
    pub yaw: f32,
    /// Pitch in degrees (positive looks down).
    pub pitch: f32,
    /// Head yaw in degrees (reported, not simulated).
    pub head_yaw: f32,
    /// The jump key was pressed and released within the tick: reported as both raw edges, moves
    /// nothing.
    pub jump_tapped: bool,
    /// The sneak key was pressed and released within the tick (reported only).
    pub sneak_tapped: bool,
    /// Using an item (eating, drinking, drawing a bow): the move vector is scaled by 0.1225 and
    /// no sprint starts (a running one stops, the move being too slow).
    pub using_item: bool,
    /// The client's auto-jump setting: walking on the ground into a step one block high (too
    /// high to step up, with room above) jumps on the next tick as if the jump key were held.
    pub auto_jump: bool,
}

/// The move scale while sneaking.
pub(crate) const SNEAK_INPUT_SCALE: f32 = 0.300_000_01;
/// Using an item scales the move by 0.35² (in float32).
pub(crate) const USING_ITEM_SCALE: f32 = 0.122_499_995;
/// The move the travel uses is the cooked move damped by this.
pub(crate) const TRAVEL_INPUT_DAMP: f32 = 0.98;

/// The move direction, x = left, z = forward: the stick when off centre (clamped to unit length),
/// else the direction keys, normalised.
pub(crate) fn direction(keys: &Keys, analog: Option<[f32; 2]>) -> [f32; 2] {
    if let Some([x, z]) = analog
        && (x != 0.0 || z != 0.0)
    {
        let length_sq = z * z + x * x;
        if length_sq > 1.0 {
            let length = length_sq.sqrt();
            return [x / length, z / length];
        }
        return [x, z];
    }
    let mut x = 0.0_f32;
    let mut z = 0.0_f32;
    if keys.up {
        z += 1.0;
    }
    if keys.down {
        z -= 1.0;
    }
    if keys.left {
        x += 1.0;
    }
    if keys.right {
        x -= 1.0;
    }
    if x == 0.0 && z == 0.0 {
        return [0.0, 0.0];
    }
    let length = (z * z + x * x).sqrt();
    [x / length, z / length]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn diagonal_is_normalised() {
        let keys = Keys { up: true, left: true, ..Keys::default() };
        assert_eq!(direction(&keys, None), [0.707_106_77, 0.707_106_77]);
        let right = Keys { right: true, ..Keys::default() };
        assert_eq!(direction(&right, None), [-1.0, 0.0]);
        assert_eq!(direction(&Keys { up: true, down: true, ..Keys::default() }, None), [0.0, 0.0]);
        assert_eq!(direction(&Keys::default(), Some([3.0, 4.0])), [0.6, 0.8]);
    }
}
