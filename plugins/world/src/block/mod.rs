//! Block registry (being written).
