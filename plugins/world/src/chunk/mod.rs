//! Chunk storage and decoding (being written).
