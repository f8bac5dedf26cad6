//! The frame builder: its own thread turns the game loop's snapshots into what pages draw —
//! each changed column's 16×16 top colours and heights, the bots, entities and side panels as
//! JSON — and sends it to every open event stream. A snapshot carries only what changed, so a
//! frame does too (and there is no frame when nothing changed). It keeps every column's tile,
//! the bots, entities and panels last sent and the latest events, so a page that opens gets the
//! whole map at once.

use std::collections::VecDeque;
use std::fmt::Write as _;
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use base64::Engine;
use clawcraft_io::StampedEvent;
use clawcraft_view::map::column_top;
use clawcraft_view::scene::Scene;
use crossbeam_channel::{Receiver, Sender, TrySendError};
use rustc_hash::FxHashMap;
use serde_json::{Value, json};

use crate::Shared;
use crate::snapshot::{BotView, ColumnKey, ColumnShot, EntityView, Panel, Snapshot};

/// How often a page is updated.
pub const FRAME_EVERY: Duration = Duration::from_millis(250);
/// Latest events kept for a page that opens.
pub const RECENT_EVENTS: usize = 50;
/// Messages queued for one page at most; a page that falls this far behind is dropped (it
/// reconnects and starts over with the whole map).
pub const QUEUE: usize = 64;
/// Height of a cell with no block.
pub const NO_TOP: i16 = i16::MIN;

/// One column as a page draws it: `x z` cells (row z, then x) of `r g b` and the top's height
/// (little-endian i16, [`NO_TOP`] for none), base64; plus how many of its sub-chunks are loaded.
#[derive(Debug, Clone)]
pub struct Tile {
    pub key: ColumnKey,
    pub loaded: u16,
    pub total: u16,
    pub cells: String,
}

impl Tile {
    fn json(&self) -> Value {
        let (d, x, z) = self.key;
        json!({"d": d, "x": x, "z": z, "loaded": self.loaded, "total": self.total, "cells": self.cells})
    }
}

/// Draws a column: each cell's top block colour (a liquid mixed with what shows through) and
/// height.
pub fn tile(shot: ColumnShot) -> Tile {
    let ColumnShot { key, min_sub, sub_chunks, ids } = shot;
    let total = sub_chunks.len() as u16;
    let loaded = sub_chunks.iter().filter(|s| s.is_some()).count() as u16;
    let (_, cx, cz) = key;
    let mut scene = Scene::column(cx, cz, min_sub, sub_chunks, ids);
    let mut bytes = Vec::with_capacity(256 * 5);
    for lz in 0..16 {
        for lx in 0..16 {
            let (top, rgb) = column_top(&mut scene, cx * 16 + lx, cz * 16 + lz);
            let h = top.map_or(NO_TOP, |y| y.clamp(-i16::MAX as i32, i16::MAX as i32) as i16);
            bytes.extend_from_slice(&rgb);
            bytes.extend_from_slice(&h.to_le_bytes());
        }
    }
    Tile { key, loaded, total, cells: base64::engine::general_purpose::STANDARD.encode(&bytes) }
}

fn bot_json(b: &BotView) -> Value {
    json!({
        "name": b.name,
        "pos": b.pos,
        "yaw": b.yaw,
        "dimension": b.dimension,
        "path": b.path,
        "target": b.target,
        "actions": b.actions,
    })
}

/// A bot's side panel: `status` (a summary), `vitals` and `inventory`, named as those commands
/// answer (null before the bot has them).
fn panel_json(p: &Panel) -> Value {
    let state = match p.state {
        clawcraft_core::Lifecycle::Connecting => "connecting",
        clawcraft_core::Lifecycle::Joining => "joining",
        clawcraft_core::Lifecycle::Spawned => "spawned",
        clawcraft_core::Lifecycle::Disconnected => "disconnected",
    };
    let inventory = p.inventory.as_ref().map(|i| {
        json!({
            "heldSlot": i.held_slot,
            "items": i.slots.iter().map(|(slot, name, count)| {
                json!({"slot": slot, "name": &**name, "count": count})
            }).collect::<Vec<_>>(),
        })
    });
    json!({
        "status": {
            "state": state,
            "chunks": p.chunks,
            "entities": {"players": p.players, "mobs": p.mobs, "items": p.items},
        },
        "vitals": p.vitals,
        "inventory": inventory,
    })
}

fn entity_json(e: &EntityView) -> Value {
    json!({
        "id": e.runtime_id,
        "mark": e.mark.as_str(),
        "kind": e.kind,
        "name": e.name,
        "pos": e.pos,
        "yaw": e.yaw,
        "seenBy": e.seen_by,
    })
}

/// An SSE message: `event: NAME` and one `data:` line.
pub fn sse(event: &str, data: &str) -> Arc<str> {
    let mut s = String::with_capacity(data.len() + event.len() + 16);
    let _ = write!(s, "event: {event}\ndata: {data}\n\n");
    s.into()
}

#[derive(Default)]
struct State {
    tiles: FxHashMap<ColumnKey, Tile>,
    bots: Value,
    entities: Value,
    /// Each bot's panel, by name.
    panels: serde_json::Map<String, Value>,
    events: VecDeque<Arc<str>>,
    pages: Vec<Sender<Arc<str>>>,
    frames: u64,
}

/// The map's state and its open pages.
pub struct Hub {
    shared: Arc<Shared>,
    state: Mutex<State>,
}

impl Hub {
    pub fn new(shared: Arc<Shared>) -> Self {
        let state = State { bots: json!([]), entities: json!([]), ..State::default() };
        Self { shared, state: Mutex::new(state) }
    }

    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// A page opens: the whole map now, then every update.
    pub fn subscribe(&self) -> Receiver<Arc<str>> {
        let (tx, rx) = crossbeam_channel::bounded(QUEUE);
        let mut state = self.state();
        let tiles: Vec<Value> = state.tiles.values().map(Tile::json).collect();
        let events: Vec<&str> = state.events.iter().map(|e| &**e).collect();
        let init = json!({
            "frame": state.frames,
            "bots": state.bots,
            "entities": state.entities,
            "panels": state.panels,
            "tiles": tiles,
        });
        let _ = tx.try_send(sse("init", &init.to_string()));
        let _ = tx.try_send(sse("events", &format!("[{}]", events.join(","))));
        let first = state.pages.is_empty();
        state.pages.push(tx);
        self.shared.clients.store(state.pages.len(), Ordering::Release);
        drop(state);
        if first {
            // Nothing was handed over while no page was open: start over from every column.
            self.shared.want_snapshot(true);
        }
        rx
    }

    /// Sends to every page, dropping those gone or too far behind.
    fn broadcast(&self, state: &mut State, message: Arc<str>) {
        state.pages.retain(|p| match p.try_send(message.clone()) {
            Ok(()) => true,
            Err(TrySendError::Full(_)) => {
                tracing::debug!("a map page fell behind; dropped");
                false
            }
            Err(TrySendError::Disconnected(_)) => false,
        });
        self.shared.clients.store(state.pages.len(), Ordering::Release);
    }

    /// Turns a snapshot into a frame and sends it: the changed columns, the removed ones and,
    /// when they changed, the bots, the entities and the panels.
    pub fn frame(&self, shot: Snapshot) {
        let Snapshot { bots, entities, panels, columns, removed, full } = shot;
        // Off the lock: the drawing is the work.
        let tiles: Vec<Tile> = columns.into_iter().map(tile).collect();
        let bots = bots.map(|b| Value::Array(b.iter().map(bot_json).collect()));
        let entities = entities.map(|e| Value::Array(e.iter().map(entity_json).collect()));
        let panels: serde_json::Map<String, Value> = panels.iter().map(|(n, p)| (n.clone(), panel_json(p))).collect();
        let mut state = self.state();
        if full {
            state.tiles.clear();
            state.panels.clear();
        }
        for k in &removed {
            state.tiles.remove(k);
        }
        let tile_json: Vec<Value> = tiles.iter().map(Tile::json).collect();
        for t in tiles {
            state.tiles.insert(t.key, t);
        }
        state.frames += 1;
        let mut frame = serde_json::Map::new();
        frame.insert("frame".into(), json!(state.frames));
        frame.insert("full".into(), json!(full));
        frame.insert("tiles".into(), Value::Array(tile_json));
        frame.insert("removed".into(), removed.iter().map(|(d, x, z)| json!([d, x, z])).collect());
        if let Some(bots) = bots {
            // The panels of bots that are gone go with them.
            let names: Vec<&str> = bots.as_array().into_iter().flatten().filter_map(|b| b["name"].as_str()).collect();
            state.panels.retain(|n, _| names.contains(&n.as_str()));
            frame.insert("bots".into(), bots.clone());
            state.bots = bots;
        }
        if let Some(entities) = entities {
            frame.insert("entities".into(), entities.clone());
            state.entities = entities;
        }
        if !panels.is_empty() {
            for (n, p) in &panels {
                state.panels.insert(n.clone(), p.clone());
            }
            frame.insert("panels".into(), Value::Object(panels));
        }
        self.broadcast(&mut state, sse("frame", &Value::Object(frame).to_string()));
    }

    /// New events: kept for pages that open later, sent to the open ones.
    pub fn events(&self, events: &[StampedEvent]) {
        let mut state = self.state();
        for e in events {
            if state.events.len() == RECENT_EVENTS {
                state.events.pop_front();
            }
            state.events.push_back(e.line.clone());
        }
        if state.pages.is_empty() {
            return;
        }
        let lines: Vec<&str> = events.iter().map(|e| &*e.line).collect();
        self.broadcast(&mut state, sse("events", &format!("[{}]", lines.join(","))));
    }

    /// Open pages.
    pub fn pages(&self) -> usize {
        self.state().pages.len()
    }
}

/// Starts the frame builder: it asks for a snapshot every [`FRAME_EVERY`] while a page is open.
pub fn spawn(
    hub: Arc<Hub>,
    snapshots: Receiver<Snapshot>,
    events: Receiver<Arc<[StampedEvent]>>,
) -> std::io::Result<()> {
    std::thread::Builder::new().name("map-frames".into()).spawn(move || run(&hub, &snapshots, &events))?;
    Ok(())
}

fn run(hub: &Hub, snapshots: &Receiver<Snapshot>, events: &Receiver<Arc<[StampedEvent]>>) {
    let mut next = Instant::now() + FRAME_EVERY;
    loop {
        let wait = next.saturating_duration_since(Instant::now());
        crossbeam_channel::select! {
            recv(snapshots) -> shot => match shot {
                Ok(shot) => hub.frame(shot),
                Err(_) => return,
            },
            recv(events) -> batch => match batch {
                Ok(batch) => hub.events(&batch),
                Err(_) => return,
            },
            default(wait) => {
                next = Instant::now() + FRAME_EVERY;
                if hub.pages() > 0 {
                    hub.shared.want_snapshot(false);
                }
            }
        }
        if Instant::now() >= next {
            next = Instant::now() + FRAME_EVERY;
            if hub.pages() > 0 {
                hub.shared.want_snapshot(false);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::snapshot::{EffectView, VitalsView};
    use clawcraft_vitals::Vitals;
    use clawcraft_vitals::commands::VitalsResponse;

    /// The panel's vitals carry the `vitals` answer's names and values (all but the ticks
    /// left of an effect, its id and the other attributes).
    #[test]
    fn panel_vitals_are_named_as_the_vitals_answer() {
        let mut v = Vitals::default();
        (v.health, v.hunger, v.breath, v.level) = (13.5, 7.0, Some(300.0), 2.0);
        v.effects.insert(
            1,
            clawcraft_vitals::ActiveEffect { id: 1, name: "speed".into(), amplifier: 1, duration: 600, since_tick: 0 },
        );
        let panel = Panel {
            state: clawcraft_core::Lifecycle::Spawned,
            chunks: 0,
            players: 0,
            mobs: 0,
            items: 0,
            vitals: Some(VitalsView {
                bars: v.bars(),
                effects: vec![EffectView { name: "speed".into(), amplifier: 1, duration: 600 }],
            }),
            inventory: None,
        };
        let shown = panel_json(&panel)["vitals"].clone();
        let mut answer = json!(VitalsResponse { bars: v.bars(), effects: Vec::new(), attributes: Default::default() });
        let answer = answer.as_object_mut().expect("object");
        answer.remove("attributes");
        answer.insert("effects".into(), json!([{"name": "speed", "amplifier": 1, "duration": 600}]));
        assert_eq!(shown, Value::Object(answer.clone()));
        assert_eq!(shown["breath"], 300.0);
        assert_eq!(shown["maxHealth"], 20.0);
    }
}
