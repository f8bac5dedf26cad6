//! TEMPORARY STUB (replaced by the real codec on merge).
#![allow(missing_docs, clippy::all)]
use serde::{Serialize, de::DeserializeOwned};
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    Void,
}
#[derive(Debug, thiserror::Error)]
#[error("codec error: {0}")]
pub struct CodecError(pub String);
pub trait Packet: Serialize + DeserializeOwned {
    const NAME: &'static str;
}
#[derive(Debug, Clone, Copy)]
pub struct VersionInfo {
    pub game_version: &'static str,
    pub protocol: i32,
}
#[derive(Debug)]
pub struct Protocol;
impl Protocol {
    pub fn versions() -> &'static [VersionInfo] {
        &[VersionInfo { game_version: "1.26.45", protocol: 2169 }]
    }
    pub fn load(_v: &str) -> Result<Protocol, CodecError> {
        Ok(Protocol)
    }
    pub fn for_protocol(_p: i32) -> Result<Protocol, CodecError> {
        Ok(Protocol)
    }
    pub fn info(&self) -> VersionInfo {
        Self::versions()[0]
    }
    pub fn packet_id(&self, _n: &str) -> Option<u32> {
        None
    }
    pub fn packet_name(&self, _id: u32) -> Option<&str> {
        None
    }
    pub fn decode(&self, _b: &[u8]) -> Result<(String, Value), CodecError> {
        Err(CodecError("stub".into()))
    }
    pub fn decode_as<P: Packet>(&self, _b: &[u8]) -> Result<P, CodecError> {
        Err(CodecError("stub".into()))
    }
    pub fn encode<P: Packet>(&self, _p: &P) -> Result<Vec<u8>, CodecError> {
        Err(CodecError("stub".into()))
    }
}
pub fn peek_packet_id(_b: &[u8]) -> Result<u32, CodecError> {
    Err(CodecError("stub".into()))
}
