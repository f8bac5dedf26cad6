//! Agent-authored action skills.

pub mod sandbox;
