//! TEMPORARY STUB (replaced on merge).
#![allow(missing_docs, clippy::all)]
pub struct SessionConfig {
    pub username: String,
    pub protocol_version: i32,
    pub game_version: String,
    pub server_address: String,
}
pub struct ClientSession;
pub struct SessionOutput {
    pub to_send: Vec<Vec<u8>>,
    pub packets: Vec<Vec<u8>>,
}
#[derive(Debug, thiserror::Error)]
#[error("session error")]
pub struct SessionError;
impl ClientSession {
    pub fn new(_c: SessionConfig) -> Self {
        ClientSession
    }
    pub fn start(&mut self) -> Vec<u8> {
        vec![]
    }
    pub fn handle_message(&mut self, _m: &[u8]) -> Result<SessionOutput, SessionError> {
        Err(SessionError)
    }
    pub fn encode_batch(&mut self, _p: &[Vec<u8>]) -> Result<Vec<u8>, SessionError> {
        Err(SessionError)
    }
}
