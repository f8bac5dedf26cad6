//! The `use` slot: every use of the hand other than mining and eating — place, interact, sleep,
//! wake, use, throw, attack, drop, give, write_sign, write_book — runs here, one at a time, stopped by `abort_use`.

use clawcraft_core::ActionSlot;
use schemars::JsonSchema;
use serde::Serialize;

/// The slot.
pub const USE_SLOT: ActionSlot = ActionSlot::new("use", "abort_use", "Not using anything");

/// A stack's count before and after an action (the inventory change the server sent).
#[derive(Serialize, JsonSchema, Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ItemCount {
    pub before: u16,
    pub after: u16,
}
