//! Acting on the world in simulation: every action's packets as the server would read them, and
//! receipts built only from what the (simulated) server answers.

mod actions;
mod bow;
mod bucket;
mod clutch;
mod mine;
pub mod world;
mod writing;

pub use world::*;
