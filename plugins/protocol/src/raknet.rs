//! TEMPORARY STUB (replaced on merge).
#![allow(missing_docs, clippy::all)]
use std::net::SocketAddr;
use std::time::{Duration, Instant};
#[derive(Default)]
pub struct RakConfig {
    pub client_guid: u64,
}
pub struct RakClient;
pub enum RakEvent {
    Connected,
    Message(Vec<u8>),
    Disconnected(DisconnectReason),
}
#[derive(Debug)]
pub enum DisconnectReason {
    ServerClosed,
    Timeout,
}
impl std::fmt::Display for DisconnectReason {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{self:?}")
    }
}
#[derive(Debug, thiserror::Error)]
#[error("rak error")]
pub struct RakError;
impl RakClient {
    pub fn new(_c: RakConfig, _s: SocketAddr, _now: Instant) -> Self {
        RakClient
    }
    pub fn handle_datagram(&mut self, _d: &[u8], _now: Instant) {}
    pub fn tick(&mut self, _now: Instant) {}
    pub fn send(&mut self, _p: &[u8], _now: Instant) -> Result<(), RakError> {
        Ok(())
    }
    pub fn disconnect(&mut self, _now: Instant) {}
    pub fn poll_transmit(&mut self) -> Option<Vec<u8>> {
        None
    }
    pub fn poll_event(&mut self) -> Option<RakEvent> {
        None
    }
    pub fn next_timeout(&self) -> Option<Instant> {
        None
    }
    pub fn is_connected(&self) -> bool {
        false
    }
    pub fn is_closed(&self) -> bool {
        false
    }
    pub fn rtt(&self) -> Duration {
        Duration::ZERO
    }
}
