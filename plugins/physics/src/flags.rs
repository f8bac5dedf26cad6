//! PlayerAuthInput's input flags, by bit number and minecraft-data name.

/// The input flag names in bit order, as minecraft-data's `InputData` mapper names them.
pub const INPUT_FLAG_NAMES: [&str; 66] = [
    "ascend",
    "descend",
    "north_jump",
    "jump_down",
    "sprint_down",
    "change_height",
    "jumping",
    "auto_jumping_in_water",
    "sneaking",
    "sneak_down",
    "up",
    "down",
    "left",
    "right",
    "up_left",
    "up_right",
    "want_up",
    "want_down",
    "want_down_slow",
    "want_up_slow",
    "sprinting",
    "ascend_block",
    "descend_block",
    "sneak_toggle_down",
    "persist_sneak",
    "start_sprinting",
    "stop_sprinting",
    "start_sneaking",
    "stop_sneaking",
    "start_swimming",
    "stop_swimming",
    "start_jumping",
    "start_gliding",
    "stop_gliding",
    "item_interact",
    "block_action",
    "item_stack_request",
    "handled_teleport",
    "emoting",
    "missed_swing",
    "start_crawling",
    "stop_crawling",
    "start_flying",
    "stop_flying",
    "received_server_data",
    "client_predicted_vehicle",
    "paddling_left",
    "paddling_right",
    "block_breaking_delay_enabled",
    "horizontal_collision",
    "vertical_collision",
    "down_left",
    "down_right",
    "start_using_item",
    "camera_relative_movement_enabled",
    "rot_controlled_by_move_direction",
    "start_spin_attack",
    "stop_spin_attack",
    "hotbar_only_touch",
    "jump_released_raw",
    "jump_pressed_raw",
    "jump_current_raw",
    "sneak_released_raw",
    "sneak_pressed_raw",
    "sneak_current_raw",
    "internal_update",
];

/// One input flag; the discriminant is its bit number.
#[allow(missing_docs)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum InputFlag {
    Ascend = 0,
    Descend = 1,
    JumpDown = 3,
    SprintDown = 4,
    Jumping = 6,
    Sneaking = 8,
    SneakDown = 9,
    Up = 10,
    Down = 11,
    Left = 12,
    Right = 13,
    WantUp = 16,
    WantDown = 17,
    Sprinting = 20,
    StartSprinting = 25,
    StopSprinting = 26,
    StartSneaking = 27,
    StopSneaking = 28,
    StartSwimming = 29,
    StopSwimming = 30,
    StartJumping = 31,
    HandledTeleport = 37,
    BlockBreakingDelayEnabled = 48,
    HorizontalCollision = 49,
    VerticalCollision = 50,
    JumpReleasedRaw = 59,
    JumpPressedRaw = 60,
    JumpCurrentRaw = 61,
    SneakReleasedRaw = 62,
    SneakPressedRaw = 63,
    SneakCurrentRaw = 64,
}

impl InputFlag {
    /// The flag's bit number.
    pub const fn bit(self) -> u32 {
        self as u32
    }

    /// The flag's minecraft-data name.
    pub const fn name(self) -> &'static str {
        INPUT_FLAG_NAMES[self as usize]
    }
}

/// A set of input flags (bit `n` = flag number `n`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Hash)]
pub struct InputFlags(pub u128);

impl InputFlags {
    /// No flag.
    pub const EMPTY: Self = Self(0);

    /// Whether `flag` is set.
    #[inline]
    pub fn has(self, flag: InputFlag) -> bool {
        self.0 & (1 << flag.bit()) != 0
    }

    /// Sets or clears `flag`.
    #[inline]
    pub fn set(&mut self, flag: InputFlag, on: bool) {
        if on {
            self.0 |= 1 << flag.bit();
        } else {
            self.0 &= !(1 << flag.bit());
        }
    }

    /// Whether bit `bit` is set.
    #[inline]
    pub fn has_bit(self, bit: u32) -> bool {
        bit < 128 && self.0 & (1 << bit) != 0
    }

    /// The bit number of a minecraft-data flag name.
    pub fn bit_of(name: &str) -> Option<u32> {
        INPUT_FLAG_NAMES.iter().position(|n| *n == name).map(|i| i as u32)
    }

    /// The names of the set flags, in bit order.
    pub fn names(self) -> impl Iterator<Item = &'static str> {
        INPUT_FLAG_NAMES.iter().enumerate().filter(move |(i, _)| self.has_bit(*i as u32)).map(|(_, n)| *n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_match_bits() {
        assert_eq!(InputFlag::VerticalCollision.name(), "vertical_collision");
        assert_eq!(InputFlag::SneakCurrentRaw.name(), "sneak_current_raw");
        assert_eq!(InputFlag::StartJumping.name(), "start_jumping");
        assert_eq!(InputFlags::bit_of("handled_teleport"), Some(37));
        let mut f = InputFlags::EMPTY;
        f.set(InputFlag::Up, true);
        f.set(InputFlag::VerticalCollision, true);
        assert_eq!(f.names().collect::<Vec<_>>(), ["up", "vertical_collision"]);
    }
}
