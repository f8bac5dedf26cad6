//! Agent-authored action skills.

pub mod sandbox;
pub mod schema;
pub mod verifier;
