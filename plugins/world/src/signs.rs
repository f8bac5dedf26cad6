//! Sign texts as the server states them: every `block_entity_data` the server sends for a sign
//! (after anyone edited it, or to show it) is kept per bot in [`SignTexts`], so the `block` query
//! can show a sign's two sides and `write_sign` can send back the side it does not change.
//!
//! Signs that arrive only inside chunk data are not read here (the chunk decoder keeps a block
//! entity's id and position, not its fields); such a sign shows its text once the server sends
//! its block entity.

use std::collections::HashMap;

use bevy_ecs::prelude::*;
use clawcraft_network::{ClientboundPacket, Connection};
use clawcraft_protocol::codec::Nbt;
use clawcraft_protocol::packets::{BlockActorData, SignNbt};
use schemars::JsonSchema;
use serde::Serialize;

use crate::chunk::World;

/// Most signs kept per bot; past it, signs whose column is no longer loaded are forgotten.
pub const MAX_SIGNS: usize = 4096;

/// One sign as the server last sent it.
#[derive(Debug, Clone, PartialEq)]
pub struct KnownSign {
    /// The text and waxing.
    pub text: SignNbt,
    /// The whole block entity, to send back with one side changed.
    pub nbt: Nbt,
}

/// The signs the server sent block entities for, by block position.
#[derive(Component, Debug, Clone, Default)]
pub struct SignTexts(pub HashMap<[i32; 3], KnownSign>);

impl SignTexts {
    /// The sign at `pos`, if the server sent it.
    pub fn get(&self, pos: [i32; 3]) -> Option<&KnownSign> {
        self.0.get(&pos)
    }

    /// Keeps what a server `block_entity_data` says of a sign; anything else is ignored.
    pub fn observe(&mut self, packet: &BlockActorData) -> bool {
        let Some(text) = SignNbt::read(&packet.nbt) else { return false };
        let p = packet.position;
        self.0.insert([p.x, p.y, p.z], KnownSign { text, nbt: packet.nbt.clone() });
        true
    }

    /// Forgets signs in columns `world` no longer holds, once there are more than [`MAX_SIGNS`].
    pub fn trim(&mut self, world: &World) {
        if self.0.len() > MAX_SIGNS {
            self.0.retain(|p, _| world.column(p[0].div_euclid(16), p[2].div_euclid(16)).is_some());
        }
    }
}

/// Whether a block name is a sign (standing, wall or hanging, any wood).
pub fn is_sign(name: &str) -> bool {
    name.strip_prefix("minecraft:").unwrap_or(name).ends_with("sign")
}

/// A sign's text in the `block` answer.
#[derive(Serialize, JsonSchema, Debug, Clone, PartialEq, Eq)]
pub struct SignReport {
    /// The front side's lines.
    pub front: Vec<String>,
    /// The back side's lines.
    pub back: Vec<String>,
    /// Waxed: nobody can edit it.
    pub waxed: bool,
}

impl SignReport {
    pub fn of(text: &SignNbt) -> SignReport {
        SignReport { front: lines(&text.front), back: lines(&text.back), waxed: text.waxed }
    }
}

/// A side's text as lines (none for an empty side).
pub fn lines(text: &str) -> Vec<String> {
    if text.is_empty() { Vec::new() } else { text.split('\n').map(str::to_owned).collect() }
}

/// Gives every bot its [`SignTexts`] and keeps them from the server's sign block entities.
pub fn track_signs(
    mut commands: Commands<'_, '_>,
    mut packets: MessageReader<'_, '_, ClientboundPacket>,
    mut bots: Query<'_, '_, (&mut SignTexts, &World)>,
    new: Query<'_, '_, Entity, (With<Connection>, Without<SignTexts>)>,
) {
    for bot in &new {
        commands.entity(bot).insert(SignTexts::default());
    }
    for pkt in packets.read() {
        let Some(data) = pkt.view::<BlockActorData>() else { continue };
        if let Ok((mut signs, world)) = bots.get_mut(pkt.bot)
            && signs.observe(&data)
        {
            signs.trim(world);
        }
    }
}
