//! The server-wide roster from PlayerList: who is online, whether or not the bot can see them.

use std::collections::BTreeMap;

use bevy_ecs::prelude::*;
use clawcraft_core::event::now_ms;
use clawcraft_core::{AgentEvent, EntityIds, LocalBot};
use clawcraft_network::ClientboundPacket;

use crate::events::{PlayerJoin, PlayerLeave};
use crate::packets::PlayerList;

/// One online player.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RosterEntry {
    pub name: String,
    pub uuid: String,
    pub unique_id: i64,
    pub xuid: String,
    /// Lower-case platform name.
    pub platform: String,
    /// Unix ms when the bot learnt of the player.
    pub joined_at: u64,
}

/// A bot's view of the server roster, by UUID. Lives on the bot's entity.
#[derive(Component, Debug, Clone, Default, PartialEq)]
pub struct Roster {
    pub players: BTreeMap<String, RosterEntry>,
}

/// Lower-case name of a `DeviceOS`/build platform number (or mapper name).
pub fn platform_name(build_platform: i32) -> &'static str {
    match build_platform {
        1 => "android",
        2 => "ios",
        3 => "osx",
        4 => "fireos",
        5 => "gearvr",
        6 => "hololens",
        7 | 8 => "windows",
        9 => "dedicated",
        10 => "tvos",
        11 => "playstation",
        12 => "switch",
        13 => "xbox",
        14 => "windows_phone",
        15 => "linux",
        _ => "unknown",
    }
}

/// Applies PlayerList adds and removes; announces others' joins and leaves (the bot's own entry
/// is kept in the roster but not announced).
pub fn handle_player_list(
    mut packets: MessageReader<ClientboundPacket>,
    mut bots: Query<(&mut Roster, &LocalBot, Option<&EntityIds>)>,
    mut events: MessageWriter<AgentEvent>,
) {
    for packet in packets.read() {
        let Some(list) = packet.view::<PlayerList>() else { continue };
        let Ok((mut roster, local, ids)) = bots.get_mut(packet.bot) else { continue };
        for record in &list.records {
            match record.kind.as_str() {
                "add" => {
                    let is_self = ids.is_some_and(|i| i.unique_id == record.entity_unique_id)
                        || record.username == local.username;
                    let platform = platform_name(record.build_platform).to_owned();
                    // Servers resend the whole list (e.g. after a skin change): an update is no join.
                    let known = roster.players.contains_key(&record.uuid);
                    let joined_at = roster.players.get(&record.uuid).map_or_else(now_ms, |e| e.joined_at);
                    roster.players.insert(
                        record.uuid.clone(),
                        RosterEntry {
                            name: record.username.clone(),
                            uuid: record.uuid.clone(),
                            unique_id: record.entity_unique_id,
                            xuid: record.xbox_user_id.clone(),
                            platform: platform.clone(),
                            joined_at,
                        },
                    );
                    if !known && !is_self {
                        events.write(AgentEvent::new(PlayerJoin {
                            bot: packet.bot,
                            name: record.username.clone(),
                            uuid: record.uuid.clone(),
                            platform,
                        }));
                    }
                }
                "remove" => {
                    if let Some(entry) = roster.players.remove(&record.uuid) {
                        if entry.name != local.username {
                            events.write(AgentEvent::new(PlayerLeave {
                                bot: packet.bot,
                                name: entry.name,
                                uuid: entry.uuid,
                            }));
                        }
                    } else {
                        tracing::debug!(uuid = %record.uuid, "PlayerList remove of an unknown player");
                    }
                }
                other => tracing::debug!(kind = other, "PlayerList record of unknown type"),
            }
        }
    }
}
