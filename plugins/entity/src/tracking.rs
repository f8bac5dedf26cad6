//! Packet handlers that keep each bot's entities current.

use bevy_ecs::prelude::*;
use clawcraft_core::{AgentEvent, EYE_HEIGHT, EntityIds, LocalBot, TickCount, Vec3};
use clawcraft_network::{ClientboundPacket, ConnectionClosed};
use clawcraft_protocol::codec::Value;
use clawcraft_protocol::packets::{MovePlayer, Vec3 as WireVec3};

use crate::events::{PlayerAppear, PlayerDisappear};
use crate::motion::MotionTrack;
use crate::packets::{
    AddEntity, AddItemEntity, AddPlayer, ChangeDimension, ItemRegistry, MetadataEntry, MoveEntity, MoveEntityDelta,
    RemoveEntity, SetEntityData, SetEntityMotion, TakeItemEntity,
};
use crate::proximity::Proximity;
use crate::records::{EntityRecords, KindRecord, PlayerIdentity};
use crate::roster::{Roster, platform_name};
use crate::table::{EntityCategory, classify_for};
use crate::{
    EntityFlags, EntityIndex, EntityKind, EntityPosition, EntityRotation, EntityVelocity, IndexEntry, ItemEntity,
    ItemNames, ItemPickedUp, NameTag, PlayerInfo, SeenBy, WorldEntity,
};

/// How far above the feet the wire position of an entity of `category` is: players are sent
/// with eye positions; items and everything else as they are.
fn wire_offset(category: EntityCategory) -> f64 {
    if category == EntityCategory::Player { EYE_HEIGHT } else { 0.0 }
}

fn feet(wire: WireVec3, category: EntityCategory) -> Vec3 {
    Vec3::new(f64::from(wire.x), f64::from(wire.y) - wire_offset(category), f64::from(wire.z))
}

fn vec(wire: WireVec3) -> Vec3 {
    Vec3::new(f64::from(wire.x), f64::from(wire.y), f64::from(wire.z))
}

/// A byte angle in degrees.
fn byte_angle(b: u8) -> f32 {
    f32::from(b) * (360.0 / 256.0)
}

/// The name tag and flags among metadata entries, when present. An empty name tag clears it.
pub(crate) fn metadata_values(entries: &[MetadataEntry]) -> (Option<String>, Option<u64>) {
    let mut tag = None;
    let mut flags = None;
    for e in entries {
        match e.key.as_str() {
            "nametag" => {
                if let Some(s) = e.value.as_str() {
                    tag = Some(s.to_owned());
                }
            }
            "flags" => {
                // Bitflags decode to an object whose `_value` holds the raw bits (a zigzag64,
                // so negative when bit 63 is set: keep the bits, not the sign).
                let raw = match &e.value {
                    Value::Object(_) => e.value.get("_value"),
                    other => Some(other),
                };
                flags = raw.and_then(|v| v.as_u64().or_else(|| v.as_i64().map(|i| i as u64)));
            }
            _ => {}
        }
    }
    (tag, flags)
}

/// Gives every new bot its (empty) entity state.
pub fn init_bot_state(bots: Query<Entity, (With<LocalBot>, Without<EntityIndex>)>, mut commands: Commands) {
    for bot in &bots {
        commands.entity(bot).insert((
            EntityIndex::default(),
            Roster::default(),
            Proximity::default(),
            ItemNames::default(),
        ));
    }
}

/// Despawns every entity of a bot. Its threats stay, so `danger` reports them `gone`.
fn despawn_all(index: &mut EntityIndex, proximity: &mut Proximity, commands: &mut Commands) {
    for entry in index.drain() {
        commands.entity(entry.entity).try_despawn();
    }
    proximity.zones.clear();
}

/// A closed connection forgets everything the bot saw, roster included.
pub fn forget_on_disconnect(
    mut closed: MessageReader<ConnectionClosed>,
    mut bots: Query<(&mut EntityIndex, &mut Roster, &mut Proximity)>,
    mut commands: Commands,
) {
    for c in closed.read() {
        if let Ok((mut index, mut roster, mut proximity)) = bots.get_mut(c.bot) {
            despawn_all(&mut index, &mut proximity, &mut commands);
            // Nothing is reported to a bot that is not connected; a new connection starts afresh.
            *proximity = Proximity::default();
            roster.players.clear();
        }
    }
}

/// A bot leaving the process (`bot_remove`, the old entity of a reconnect) takes the entities it
/// saw with it: nothing else would despawn them ([`forget_on_disconnect`] works on a bot that
/// is still there), and they would keep their shared records held.
pub fn forget_with_bot(despawned: On<Despawn<EntityIndex>>, bots: Query<&EntityIndex>, mut commands: Commands) {
    let Ok(index) = bots.get(despawned.entity) else { return };
    for entry in index.entries() {
        commands.entity(entry.entity).try_despawn();
    }
}

/// Remembers item identifiers so dropped items can be named.
pub fn handle_item_registry(mut packets: MessageReader<ClientboundPacket>, mut bots: Query<&mut ItemNames>) {
    for packet in packets.read() {
        let Some(registry) = packet.view::<ItemRegistry>() else { continue };
        if let Ok(mut names) = bots.get_mut(packet.bot) {
            names.0 = registry.itemstates.iter().map(|i| (i32::from(i.runtime_id), i.name.clone())).collect();
        }
    }
}

/// Spawns, replaces and despawns entities: AddPlayer, AddEntity, AddItemEntity, RemoveEntity
/// (unique id), TakeItemEntity, ChangeDimension. Kept in packet order in one system so a remove
/// and a re-add of the same id in one tick end with the entity present.
#[allow(clippy::too_many_arguments)]
pub fn handle_lifecycle(
    mut packets: MessageReader<ClientboundPacket>,
    mut bots: Query<(&mut EntityIndex, &mut Proximity, &Roster, &ItemNames, Option<&EntityIds>)>,
    known: Query<(Option<&EntityPosition>, Option<&ItemEntity>)>,
    mut commands: Commands,
    mut events: MessageWriter<AgentEvent>,
    mut pickups: MessageWriter<ItemPickedUp>,
    mut records: ResMut<EntityRecords>,
    tick: Res<TickCount>,
) {
    for packet in packets.read() {
        let bot = packet.bot;
        let Ok((mut index, mut proximity, roster, item_names, ids)) = bots.get_mut(bot) else { continue };
        let own_runtime = ids.map(|i| i.runtime_id);
        let add = |index: &mut EntityIndex, entry: IndexEntry, commands: &mut Commands| {
            for old in index.insert(entry) {
                commands.entity(old.entity).try_despawn();
            }
        };
        if let Some(p) = packet.view::<AddPlayer>() {
            if Some(p.runtime_id) == own_runtime {
                continue;
            }
            // Absent (1.26.40+ may omit it) or `Undefined` (what older layouts carry when the
            // server does not say): the roster knows the platform.
            let platform = match p.device_os.as_deref() {
                Some(os) if !os.is_empty() && os != "Undefined" => device_os_name(os),
                _ => roster.players.get(&p.uuid).map_or_else(|| "unknown".to_owned(), |r| r.platform.clone()),
            };
            let (tag, flags) = metadata_values(&p.metadata);
            let position = feet(p.position, EntityCategory::Player);
            let kind = records.kinds.share(KindRecord {
                identifier: "minecraft:player".into(),
                name: "player".into(),
                display_name: p.username.clone(),
                category: EntityCategory::Player,
            });
            let player =
                records.players.share(PlayerIdentity { name: p.username.clone(), uuid: p.uuid.clone(), platform });
            let mut e = commands.spawn((
                SeenBy(bot),
                WorldEntity { runtime_id: p.runtime_id, unique_id: p.unique_id },
                EntityKind(kind),
                EntityPosition(position),
                MotionTrack::at(tick.0, position),
                EntityVelocity(vec(p.velocity)),
                EntityRotation { yaw: p.yaw, pitch: p.pitch, head_yaw: p.head_yaw },
                EntityFlags(flags.unwrap_or(0)),
                PlayerInfo(player.clone()),
            ));
            if let Some(tag) = tag.filter(|t| !t.is_empty()) {
                e.insert(NameTag(tag));
            }
            let entity = e.id();
            add(
                &mut index,
                IndexEntry {
                    entity,
                    runtime_id: p.runtime_id,
                    unique_id: p.unique_id,
                    category: EntityCategory::Player,
                    player: Some(player),
                },
                &mut commands,
            );
            events.write(AgentEvent::new(PlayerAppear {
                bot: packet.bot,
                name: p.username.clone(),
                uuid: p.uuid.clone(),
                position: position.rounded(),
            }));
        } else if let Some(a) = packet.view::<AddEntity>() {
            let (name, display_name, category) = classify_for(packet.protocol().info().game_version, &a.entity_type);
            let (tag, flags) = metadata_values(&a.metadata);
            let mut e = commands.spawn((
                SeenBy(bot),
                WorldEntity { runtime_id: a.runtime_id, unique_id: a.unique_id },
                EntityKind(records.kinds.share(KindRecord {
                    identifier: a.entity_type.clone(),
                    name,
                    display_name,
                    category,
                })),
                EntityPosition(feet(a.position, category)),
                MotionTrack::at(tick.0, feet(a.position, category)),
                EntityVelocity(vec(a.velocity)),
                EntityRotation { yaw: a.yaw, pitch: a.pitch, head_yaw: a.head_yaw },
                EntityFlags(flags.unwrap_or(0)),
            ));
            if let Some(tag) = tag.filter(|t| !t.is_empty()) {
                e.insert(NameTag(tag));
            }
            let entity = e.id();
            add(
                &mut index,
                IndexEntry { entity, runtime_id: a.runtime_id, unique_id: a.unique_id, category, player: None },
                &mut commands,
            );
        } else if let Some(a) = packet.view::<AddItemEntity>() {
            let name =
                item_names.0.get(&a.item.network_id).cloned().unwrap_or_else(|| format!("item#{}", a.item.network_id));
            let (_, flags) = metadata_values(&a.metadata);
            let entity = commands
                .spawn((
                    SeenBy(bot),
                    WorldEntity { runtime_id: a.runtime_entity_id, unique_id: a.entity_id_self },
                    EntityKind(records.kinds.share(KindRecord {
                        identifier: "minecraft:item".into(),
                        name: "item".into(),
                        display_name: "Item".into(),
                        category: EntityCategory::Item,
                    })),
                    EntityPosition(feet(a.position, EntityCategory::Item)),
                    MotionTrack::at(tick.0, feet(a.position, EntityCategory::Item)),
                    EntityVelocity(vec(a.velocity)),
                    EntityRotation::default(),
                    EntityFlags(flags.unwrap_or(0)),
                    ItemEntity { network_id: a.item.network_id, name, count: a.item.count },
                ))
                .id();
            add(
                &mut index,
                IndexEntry {
                    entity,
                    runtime_id: a.runtime_entity_id,
                    unique_id: a.entity_id_self,
                    category: EntityCategory::Item,
                    player: None,
                },
                &mut commands,
            );
        } else if let Some(r) = packet.view::<RemoveEntity>() {
            // RemoveEntity names the *unique* id (ClawCraft looked it up as a runtime id).
            let Some(entry) = index.remove_unique(r.entity_id_self) else {
                tracing::debug!(unique_id = r.entity_id_self, "RemoveEntity of an unknown entity");
                continue;
            };
            commands.entity(entry.entity).try_despawn();
            proximity.forget(entry.entity);
            if let Some(player) = entry.player {
                let (name, uuid) = (player.name.clone(), player.uuid.clone());
                events.write(AgentEvent::new(PlayerDisappear { bot: packet.bot, name, uuid }));
            }
        } else if let Some(t) = packet.view::<TakeItemEntity>() {
            // The RemoveEntity that follows finds nothing; forgetting the item now keeps
            // `nearby` honest even if a server skips it.
            let Some(entry) = index.by_runtime(t.runtime_entity_id).cloned() else {
                tracing::debug!(runtime_id = t.runtime_entity_id, "TakeItemEntity of an unknown entity");
                continue;
            };
            let (position, item) =
                known.get(entry.entity).map(|(p, i)| (p.map(|p| p.0), i.cloned())).unwrap_or((None, None));
            index.remove_unique(entry.unique_id);
            commands.entity(entry.entity).try_despawn();
            proximity.forget(entry.entity);
            pickups.write(ItemPickedUp {
                bot,
                item_runtime_id: t.runtime_entity_id,
                taker_runtime_id: u64::from(t.target),
                by_self: own_runtime == Some(u64::from(t.target)),
                item,
                position,
            });
        } else if packet.is::<ChangeDimension>() {
            // Nothing of the old dimension stays visible; the server re-adds what is around.
            despawn_all(&mut index, &mut proximity, &mut commands);
        }
    }
}

/// Lower-case platform of an AddPlayer `device_os` mapper name (or number as text).
fn device_os_name(os: &str) -> String {
    let n = match os {
        "Android" => 1,
        "IOS" => 2,
        "OSX" => 3,
        "FireOS" => 4,
        "GearVR" => 5,
        "Hololens" => 6,
        "Win10" => 7,
        "Win32" => 8,
        "Dedicated" => 9,
        "TVOS" => 10,
        "Orbis" => 11,
        "NintendoSwitch" => 12,
        "Xbox" => 13,
        "WindowsPhone" => 14,
        "Linux" => 15,
        other => other.parse().unwrap_or(0),
    };
    platform_name(n).to_owned()
}

type Moving<'a> =
    (&'a EntityKind, &'a mut EntityPosition, &'a mut EntityVelocity, &'a mut EntityRotation, &'a mut MotionTrack);

/// Keeps positions, rotations, velocities, name tags and flags current: MoveEntity,
/// MoveEntityDelta, MovePlayer (of others), SetEntityMotion, SetEntityData. Packets for ids the
/// bot doesn't know are dropped quietly (servers send them around spawns and removals).
pub fn handle_updates(
    mut packets: MessageReader<ClientboundPacket>,
    bots: Query<&EntityIndex>,
    mut entities: Query<Moving<'_>>,
    mut flags_q: Query<&mut EntityFlags>,
    mut commands: Commands,
    tick: Res<TickCount>,
) {
    for packet in packets.read() {
        let Ok(index) = bots.get(packet.bot) else { continue };
        let lookup = |id: u64| index.by_runtime(id).map(|e| e.entity);
        if let Some(m) = packet.view::<MoveEntity>() {
            let Some(Ok((kind, mut pos, _, mut rot, mut track))) =
                lookup(m.runtime_entity_id).map(|e| entities.get_mut(e))
            else {
                continue;
            };
            pos.0 = feet(m.position, kind.category);
            track.moved(tick.0, pos.0);
            *rot = EntityRotation { yaw: m.rotation.yaw, pitch: m.rotation.pitch, head_yaw: m.rotation.head_yaw };
        } else if let Some(d) = packet.view::<MoveEntityDelta>() {
            let Some(Ok((kind, mut pos, _, mut rot, mut track))) =
                lookup(d.runtime_entity_id).map(|e| entities.get_mut(e))
            else {
                continue;
            };
            // 1.26.40+: the present axes are absolute values; absent axes keep theirs.
            if let Some(x) = d.x {
                pos.0.x = f64::from(x);
            }
            if let Some(y) = d.y {
                pos.0.y = f64::from(y) - wire_offset(kind.category);
            }
            if let Some(z) = d.z {
                pos.0.z = f64::from(z);
            }
            if d.x.is_some() || d.y.is_some() || d.z.is_some() {
                track.moved(tick.0, pos.0);
            }
            if let Some(p) = d.rot_x {
                rot.pitch = byte_angle(p);
            }
            if let Some(y) = d.rot_y {
                rot.yaw = byte_angle(y);
            }
            if let Some(h) = d.rot_z {
                rot.head_yaw = byte_angle(h);
            }
        } else if let Some(m) = packet.view::<MovePlayer>() {
            // Our own MovePlayer is the player plugin's; our runtime id is never in the index.
            let Some(Ok((kind, mut pos, _, mut rot, mut track))) =
                lookup(u64::from(m.runtime_id)).map(|e| entities.get_mut(e))
            else {
                continue;
            };
            pos.0 = feet(m.position, kind.category);
            track.moved(tick.0, pos.0);
            *rot = EntityRotation { yaw: m.yaw, pitch: m.pitch, head_yaw: m.head_yaw };
        } else if let Some(m) = packet.view::<SetEntityMotion>() {
            let Some(Ok((_, _, mut vel, _, mut track))) = lookup(m.runtime_entity_id).map(|e| entities.get_mut(e))
            else {
                continue;
            };
            vel.0 = vec(m.velocity);
            track.motion_sent(tick.0);
        } else if let Some(d) = packet.view::<SetEntityData>() {
            let Some(entity) = lookup(d.runtime_entity_id) else { continue };
            let (tag, flags) = metadata_values(&d.metadata);
            if let (Some(bits), Ok(mut f)) = (flags, flags_q.get_mut(entity)) {
                f.0 = bits;
            }
            match tag {
                Some(t) if t.is_empty() => {
                    commands.entity(entity).try_remove::<NameTag>();
                }
                Some(t) => {
                    commands.entity(entity).try_insert(NameTag(t));
                }
                None => {}
            }
        }
    }
}
