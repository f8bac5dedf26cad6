//! Sans-IO RakNet client, as used by Minecraft Bedrock Edition.
//!
//! [`RakClient`] owns no socket, thread or clock. The caller feeds it received UDP payloads with
//! [`RakClient::handle_datagram`], calls [`RakClient::tick`] no later than
//! [`RakClient::next_timeout`], sends whatever [`RakClient::poll_transmit`] returns and reacts to
//! [`RakClient::poll_event`]. That keeps every protocol decision unit-testable with hand-built
//! server datagrams.
//!
//! Layout of the submodules:
//! - [`message`]: offline (unconnected) messages and the connected control messages.
//! - [`frame`]: datagram headers, frames (encapsulated packets) and ACK/NACK records.
//! - `receive`: inbound reliability (datagram window, dedupe, split reassembly, ordering).
//! - `send`: outbound reliability (indices, splitting, packing, resends, RTT).
//! - `client`: the connection state machine tying it all together.
//!
//! Numbers are big-endian except the 24-bit sequence/message/order indices, which are little-endian.

mod client;
pub mod frame;
pub mod message;
mod receive;
mod send;
#[cfg(test)]
mod tests;

use std::fmt;
use std::time::Duration;

use thiserror::Error;

use crate::io::ReadError;

pub use client::RakClient;
pub use message::{Pong, encode_unconnected_ping, parse_unconnected_pong};

/// RakNet protocol version spoken by Bedrock since 1.19.30 (10 before that).
pub const RAKNET_PROTOCOL_VERSION: u8 = 11;

/// Bytes of IPv4 (20) + UDP (8) headers that an MTU includes but a UDP payload does not.
pub const UDP_OVERHEAD: u16 = 28;

/// Smallest MTU we accept from a server; smaller values are a sign of a broken or hostile reply.
pub const MIN_MTU: u16 = 400;

/// Largest MTU we accept; Ethernet minus PPPoE is the RakNet default ceiling.
pub const MAX_MTU: u16 = 1500;

/// Number of ordering channels RakNet allows.
pub const ORDER_CHANNELS: usize = 32;

/// Tunables of a [`RakClient`]. The defaults match what vanilla clients and go-raknet do.
#[derive(Debug, Clone)]
pub struct RakConfig {
    /// Our RakNet GUID, sent in the handshake. Random by default.
    pub client_guid: u64,
    /// MTUs tried in order during discovery (OpenConnectionRequest1 padding).
    pub mtu_candidates: Vec<u16>,
    /// Give up on an established connection after this long without any datagram from the server.
    pub timeout: Duration,
    /// Give up connecting when the handshake has not completed after this long.
    pub connect_timeout: Duration,
    /// OpenConnectionRequest1 attempts per MTU candidate before stepping down.
    pub attempts_per_mtu: u32,
    /// Delay between handshake retries (OpenConnectionRequest1/2).
    pub retry_interval: Duration,
    /// Interval between our ConnectedPings once connected (keeps NATs open and measures RTT).
    pub ping_interval: Duration,
    /// Longest we hold received datagram numbers before ACKing them (0: at the next
    /// [`RakClient::tick`], for a caller that ticks once per send pass).
    pub ack_interval: Duration,
    /// How long a missing datagram number waits before it is NACKed, so a datagram that was
    /// merely reordered is not asked for again.
    pub nack_delay: Duration,
}

impl Default for RakConfig {
    fn default() -> Self {
        Self {
            client_guid: rand::random::<u64>(),
            mtu_candidates: vec![1492, 1200, 576],
            timeout: Duration::from_secs(10),
            connect_timeout: Duration::from_secs(10),
            attempts_per_mtu: 3,
            retry_interval: Duration::from_millis(500),
            ping_interval: Duration::from_secs(2),
            ack_interval: Duration::from_millis(50),
            nack_delay: Duration::from_millis(50),
        }
    }
}

/// Something the caller should react to, returned by [`RakClient::poll_event`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RakEvent {
    /// The handshake completed; [`RakClient::send`] may now be used.
    Connected,
    /// A complete, reassembled and (for ordered frames) in-order message that is not a RakNet
    /// control message, e.g. a `0xFE` game batch.
    Message(Vec<u8>),
    /// The connection is over; no further events follow.
    Disconnected(DisconnectReason),
}

/// Why a connection ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DisconnectReason {
    /// The server sent DisconnectionNotification (0x15).
    ServerClosed,
    /// Nothing was received from the server for [`RakConfig::timeout`].
    Timeout,
    /// The handshake failed (no reply, rejected, or timed out); the text says why.
    ConnectFailed(String),
    /// The server speaks another RakNet protocol version (the one it sent is included).
    IncompatibleProtocol(u8),
    /// We called [`RakClient::disconnect`].
    LocalClose,
}

impl fmt::Display for DisconnectReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::ServerClosed => write!(f, "server closed the connection"),
            Self::Timeout => write!(f, "connection timed out"),
            Self::ConnectFailed(why) => write!(f, "connection failed: {why}"),
            Self::IncompatibleProtocol(v) => {
                write!(f, "incompatible RakNet protocol: server speaks {v}, we speak {RAKNET_PROTOCOL_VERSION}")
            }
            Self::LocalClose => write!(f, "connection closed locally"),
        }
    }
}

/// Errors from decoding RakNet messages or from misusing [`RakClient`].
#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum RakError {
    /// The input ended early or a length was absurd.
    #[error("malformed RakNet message: {0}")]
    Read(#[from] ReadError),
    /// The message id was not the one expected here.
    #[error("unexpected message id {0:#04x}")]
    UnexpectedId(u8),
    /// An offline message did not carry the offline magic.
    #[error("offline message magic mismatch")]
    BadMagic,
    /// A field had an impossible value.
    #[error("invalid RakNet message: {0}")]
    Invalid(String),
    /// [`RakClient::send`] before the handshake completed.
    #[error("not connected")]
    NotConnected,
    /// [`RakClient::send`] after the connection ended.
    #[error("connection closed")]
    Closed,
    /// The payload would need more split parts than a peer accepts.
    #[error("payload of {len} bytes is too large (max {max})")]
    TooLarge {
        /// Payload length.
        len: usize,
        /// Largest payload that can be sent at the current MTU.
        max: usize,
    },
    /// Too much data is queued behind a congested connection; retry after transmitting.
    #[error("send queue full")]
    QueueFull,
    /// RakNet cannot carry an empty message.
    #[error("empty payload")]
    EmptyPayload,
}

/// Mask for RakNet's 24-bit counters.
pub(crate) const U24_MASK: u32 = 0x00ff_ffff;

/// `a + n` in 24-bit arithmetic.
pub(crate) fn u24_add(a: u32, n: u32) -> u32 {
    a.wrapping_add(n) & U24_MASK
}

/// Signed distance `a − b` between two 24-bit counters, assuming they are less than 2^23 apart
/// (so counters keep working after they wrap).
pub(crate) fn u24_diff(a: u32, b: u32) -> i32 {
    let d = a.wrapping_sub(b) & U24_MASK;
    if d & 0x0080_0000 != 0 { d as i32 - 0x0100_0000 } else { d as i32 }
}
