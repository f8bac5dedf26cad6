//! The packet views this plugin reads and sends live in `clawcraft_protocol::packets` (one place
//! per packet); re-exported here for short paths.

pub use clawcraft_protocol::packets::*;
