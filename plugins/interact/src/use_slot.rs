//! The `use` slot: every use of the hand other than mining and eating — place, interact, sleep,
//! wake, use, throw, attack, drop, give — runs here, one at a time, stopped by `abort_use`.

use schemars::JsonSchema;
use serde::Serialize;

/// The slot's names.
pub struct UseSlot;

impl UseSlot {
    pub const SLOT: &'static str = "use";
    pub const ABORT: &'static str = "abort_use";
    pub const IDLE: &'static str = "Not using anything";
}

/// A stack's count before and after an action (the inventory change the server sent).
#[derive(Serialize, JsonSchema, Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ItemCount {
    pub before: u16,
    pub after: u16,
}
