//! Sign texts as the server states them: every `block_entity_data` the server sends for a sign
//! (after anyone edited it, or to show it) is kept per bot in [`SignTexts`]; a sign known only
//! from chunk data reads from the column's block entities ([`sign_at`]). The `block` query shows
//! a sign's two sides from them, and `write_sign` sends back the side it does not change.

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

/// The sign at `pos`: the server's last block entity for it, else the one the chunk data carried
/// (a block entity sent after the chunk is the newer word).
pub fn sign_at<'a>(texts: Option<&'a SignTexts>, world: &'a World, pos: [i32; 3]) -> Option<&'a KnownSign> {
    if let Some(k) = texts.and_then(|t| t.get(pos)) {
        return Some(k);
    }
    let column = world.column(pos[0].div_euclid(16), pos[2].div_euclid(16))?;
    column.block_entities.iter().find(|b| b.pos == Some(pos))?.sign.as_deref()
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chunk::ColumnMode;
    use crate::chunk::wire::BlockEntity;
    use clawcraft_protocol::codec::NbtTag;
    use clawcraft_protocol::packets::BlockPos;

    #[test]
    fn a_sign_reads_from_the_servers_block_entity_else_from_the_chunk() {
        let mut world = World::default();
        let chunk_sign = KnownSign {
            text: SignNbt { front: "From".into(), back: "chunk".into(), waxed: false },
            nbt: Nbt { name: String::new(), tag: NbtTag::Compound(vec![("id".into(), NbtTag::String("Sign".into()))]) },
        };
        let entities =
            vec![BlockEntity { pos: Some([1, -60, -2]), id: "Sign".into(), sign: Some(Box::new(chunk_sign)) }];
        world.store_level_chunk(0, -1, ColumnMode::Full(0), Vec::new(), entities);
        let read =
            |t: Option<&SignTexts>, p| sign_at(t, &world, p).map(|k| (k.text.front.clone(), k.text.back.clone()));
        assert_eq!(read(None, [1, -60, -2]), Some(("From".into(), "chunk".into())));
        assert_eq!(read(None, [1, -60, -3]), None);
        assert_eq!(read(None, [17, -60, -2]), None, "another column");

        let side = |t: &str| NbtTag::Compound(vec![("Text".into(), NbtTag::String(t.into()))]);
        let nbt = Nbt {
            name: String::new(),
            tag: NbtTag::Compound(vec![
                ("id".into(), NbtTag::String("Sign".into())),
                ("FrontText".into(), side("Newer")),
                ("BackText".into(), side("")),
            ]),
        };
        let mut texts = SignTexts::default();
        assert!(texts.observe(&BlockActorData { position: BlockPos { x: 1, y: -60, z: -2 }, nbt }));
        assert_eq!(read(Some(&texts), [1, -60, -2]), Some(("Newer".into(), String::new())));
        let chest =
            Nbt { name: String::new(), tag: NbtTag::Compound(vec![("id".into(), NbtTag::String("Chest".into()))]) };
        assert!(!texts.observe(&BlockActorData { position: BlockPos::default(), nbt: chest }));
        assert_eq!(lines("a\nb"), vec!["a", "b"]);
        assert!(lines("").is_empty());
        assert!(is_sign("minecraft:oak_hanging_sign") && !is_sign("minecraft:stone"));
    }
}
