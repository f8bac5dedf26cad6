//! Bedrock Edition client protocol stack, with no Bevy dependency.
//!
//! Layers, outermost first:
//! - [`raknet`]: sans-IO RakNet client (handshake, reliability, ordering, splits, ACK/NACK).
//! - [`framing`]: `0xFE` game batches, per-batch compression byte, and [`encryption`] (AES-256-CTR + checksum).
//! - [`login`]: login tokens (offline self-signed, or online chain + multiplayer token; ES384 JWTs) and the ECDH key exchange.
//! - [`codec`]: a data-driven packet codec interpreting minecraft-data's protocol definitions,
//!   and [`packets`]: version-independent typed views of the packets the bot uses.
//! - [`session`]: the sans-IO client connection that glues those together up to "logged in".
//! - [`version`]: which supported version to speak, from the server's pong or the user's choice.

pub mod codec;
pub mod embedded;
pub mod encryption;
pub mod framing;
pub mod io;
pub mod login;
pub mod packets;
pub mod raknet;
pub mod session;
pub mod version;
