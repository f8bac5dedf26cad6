//! World events for the agent: `block_changed` (opt-in, radius), `weather` and `time` (opt-in),
//! and `chunks_evicted` (always).

use bevy_ecs::prelude::*;
use clawcraft_core::{AgentEvent, EventKind, Position, Subscriptions};
use clawcraft_network::ClientboundPacket;
use clawcraft_protocol::packets::{LevelEvent, SetTime, StartGame};
use schemars::JsonSchema;
use serde::Serialize;
use serde_json::{Map, Value};

use crate::ids::BlockIds;
use crate::plugin::BlockChanged;
use crate::query::{BlockReport, Cell, round2};

/// `block_changed`: a loaded block changed (UpdateBlock / UpdateSubChunkBlocks).
#[derive(Message, Clone, Serialize, JsonSchema)]
pub struct BlockChangedEvent {
    #[serde(skip)]
    pub bot: Entity,
    pub pos: Cell,
    /// The new block's name.
    pub block: String,
    /// The new block's state values.
    pub properties: Map<String, Value>,
    /// The previous block's name.
    pub previous: String,
    /// From the bot's feet to the block's centre.
    pub distance: f64,
    /// 0 the block itself, 1 the liquid inside it.
    pub layer: u8,
}

clawcraft_core::event_kind!(
    BlockChangedEvent,
    "block_changed",
    "Opt-in (radius, default 16, max 128): a loaded block changed — new block, properties, previous, distance"
);

/// `weather`: rain or thunder began or ended.
#[derive(Message, Clone, Serialize, JsonSchema)]
pub struct WeatherEvent {
    #[serde(skip)]
    pub bot: Entity,
    /// The weather now: `clear`, `rain` or `thunder`.
    pub weather: String,
    /// Whether rain or thunder began (false: it ended).
    pub started: bool,
}

clawcraft_core::event_kind!(
    WeatherEvent,
    "weather",
    "Opt-in: rain or thunder began or ended (weather = clear/rain/thunder now, started); also the weather at join"
);

/// `time`: the world clock, at most once per 60 s of game time or when the phase changes.
#[derive(Message, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct TimeEvent {
    #[serde(skip)]
    pub bot: Entity,
    /// World time in ticks (SetTime).
    pub game_time: i64,
    /// Ticks into the current day, 0..24000.
    pub day_time: i64,
    /// `dawn`, `day`, `dusk` or `night`.
    pub phase: String,
}

clawcraft_core::event_kind!(
    TimeEvent,
    "time",
    "Opt-in: world time and day phase (dawn/day/dusk/night), at most every 60 s of game time or on a phase change"
);

/// `chunks_evicted`: columns were dropped to bound memory (far away or least recently used).
#[derive(Message, Clone, Serialize, JsonSchema)]
pub struct ChunksEvicted {
    #[serde(skip)]
    pub bot: Entity,
    /// Columns dropped.
    pub count: usize,
    /// Columns still held.
    pub remaining: usize,
}

clawcraft_core::event_kind!(
    ChunksEvicted,
    "chunks_evicted",
    "Chunk columns were dropped (beyond CLAWCRAFT_CHUNK_EVICT_DIST blocks, or least recently used beyond CLAWCRAFT_CHUNK_CACHE_MAX)"
);

/// Ticks of game time between two `time` events of the same phase (60 s).
const TIME_EVENT_INTERVAL: i64 = 1200;

/// Emits `block_changed` for subscribed bots within the subscription's radius.
pub fn emit_block_changed(
    mut changes: MessageReader<'_, '_, BlockChanged>,
    bots: Query<'_, '_, (&Subscriptions, &Position, Option<&BlockIds>)>,
    mut events: MessageWriter<'_, AgentEvent>,
) {
    for ch in changes.read() {
        let Ok((subs, pos, ids)) = bots.get(ch.bot) else { continue };
        if subs.get(BlockChangedEvent::NAME).is_none() {
            continue;
        }
        let cell = Cell { x: ch.pos[0], y: ch.pos[1], z: ch.pos[2] };
        let distance = cell.distance_to([pos.0.x, pos.0.y, pos.0.z]);
        if !subs.wants(BlockChangedEvent::NAME, distance) {
            continue;
        }
        let Some(ids) = ids.map(|i| i.0.clone()).or_else(BlockIds::fallback) else { continue };
        let new = BlockReport::of(&ids, ch.new);
        events.write(AgentEvent::new(BlockChangedEvent {
            bot: ch.bot,
            pos: cell,
            block: new.name,
            properties: new.properties,
            previous: ids.name(ch.old).to_owned(),
            distance: round2(distance),
            layer: ch.layer,
        }));
    }
}

/// The bot's weather, from StartGame and level events 3001–3004.
#[derive(Component, Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Weather {
    pub raining: bool,
    pub thundering: bool,
}

impl Weather {
    /// `clear`, `rain` or `thunder`.
    pub fn name(self) -> &'static str {
        if self.thundering {
            "thunder"
        } else if self.raining {
            "rain"
        } else {
            "clear"
        }
    }
}

/// Tracks weather and emits `weather` to subscribed bots.
pub fn track_weather(
    mut commands: Commands<'_, '_>,
    mut packets: MessageReader<'_, '_, ClientboundPacket>,
    mut bots: Query<'_, '_, (Option<&mut Weather>, Option<&Subscriptions>)>,
    mut events: MessageWriter<'_, AgentEvent>,
) {
    for pkt in packets.read() {
        let Ok((weather, subs)) = bots.get_mut(pkt.bot) else { continue };
        let before = weather.as_deref().copied().unwrap_or_default();
        let (now, started) = if let Some(start) = pkt.view::<StartGame>() {
            let now = Weather { raining: start.rain_level > 0.0, thundering: start.lightning_level > 0.0 };
            (now, now != Weather::default())
        } else if let Some(ev) = pkt.view::<LevelEvent>() {
            let mut now = before;
            let started = match ev.code() {
                Some(3001) => {
                    now.raining = true;
                    true
                }
                Some(3002) => {
                    now.thundering = true;
                    true
                }
                Some(3003) => {
                    now.raining = false;
                    false
                }
                Some(3004) => {
                    now.thundering = false;
                    false
                }
                _ => continue,
            };
            // A repeated "start" changes nothing and is not news.
            if now == before {
                continue;
            }
            (now, started)
        } else {
            continue;
        };
        match weather {
            Some(mut w) => *w = now,
            None => {
                commands.entity(pkt.bot).insert(now);
            }
        }
        if subs.is_some_and(|s| s.get(WeatherEvent::NAME).is_some()) {
            events.write(AgentEvent::new(WeatherEvent { bot: pkt.bot, weather: now.name().to_owned(), started }));
        }
    }
}

/// Day phase of a time of day (ticks 0..24000): dawn 23000–1000, day 1000–12000, dusk
/// 12000–13000, night 13000–23000.
pub fn phase(day_time: i64) -> &'static str {
    match day_time {
        1000..12000 => "day",
        12000..13000 => "dusk",
        13000..23000 => "night",
        _ => "dawn",
    }
}

/// The bot's world clock and what the agent was last told.
#[derive(Component, Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Clock {
    /// Last SetTime value.
    pub game_time: i64,
    /// Game time and phase of the last `time` event sent.
    last_sent: Option<(i64, &'static str)>,
}

/// Tracks SetTime and emits throttled `time` events to subscribed bots.
pub fn track_time(
    mut commands: Commands<'_, '_>,
    mut packets: MessageReader<'_, '_, ClientboundPacket>,
    mut bots: Query<'_, '_, (Option<&mut Clock>, Option<&Subscriptions>)>,
    mut events: MessageWriter<'_, AgentEvent>,
) {
    for pkt in packets.read() {
        let Some(set) = pkt.view::<SetTime>() else { continue };
        let Ok((clock, subs)) = bots.get_mut(pkt.bot) else { continue };
        let mut c = clock.as_deref().copied().unwrap_or_default();
        c.game_time = i64::from(set.time);
        let day_time = c.game_time.rem_euclid(24_000);
        let ph = phase(day_time);
        let due = match c.last_sent {
            None => true,
            // A clock set backwards (the /time command) is news too.
            Some((t, p)) => p != ph || c.game_time - t >= TIME_EVENT_INTERVAL || c.game_time < t,
        };
        if due && subs.is_some_and(|s| s.get(TimeEvent::NAME).is_some()) {
            c.last_sent = Some((c.game_time, ph));
            events.write(AgentEvent::new(TimeEvent {
                bot: pkt.bot,
                game_time: c.game_time,
                day_time,
                phase: ph.to_owned(),
            }));
        }
        match clock {
            Some(mut old) => *old = c,
            None => {
                commands.entity(pkt.bot).insert(c);
            }
        }
    }
}
