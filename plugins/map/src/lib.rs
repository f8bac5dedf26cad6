//! `MapPlugin`: a live top-down map of the bots' world in a browser (`--map ADDR`).
//!
//! One page (plain HTML, CSS and JavaScript embedded in the binary, [`page`]) draws the loaded
//! columns (each column's top block in the colour table's colour, shaded by height, water and
//! lava see-through), the bots with heading and name, players, mobs and dropped items, each
//! bot's path and action target and the chunks' load state, updated over Server-Sent Events a
//! few times a second. Clicking a cell asks the `block` command; the side panel shows the
//! selected bot's status, vitals and inventory (carried by the stream when they change) and the
//! latest events; the command box sends a command line exactly as an agent's (the same parser,
//! command path, answers and errors).
//!
//! Threads: the HTTP server ([`http`]) and the frame builder ([`frames`]) run off the game
//! thread. While a page is open the frame builder asks for a [`snapshot`] a few times a second;
//! the runner takes it in an [`Interim`] pass right after its next tick ([`MapSet::Snapshot`]):
//! what changed since the last one among the bots, their side panels, the entities they see and
//! the columns (their shared handles); nothing when nothing changed, and then no frame is sent.
//! Colours, heights and JSON are made on the frame builder's thread. With no page open the game
//! loop does nothing for the map but route the command answers of the page and hand over events.

pub mod frames;
pub mod http;
pub mod page;
pub mod snapshot;

use std::collections::HashMap;
use std::net::{SocketAddr, TcpListener};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use bevy_app::{App, Last, Plugin};
use bevy_ecs::prelude::*;
use clawcraft_core::{CommandRequest, CommandWaker, Interim, InterimSet, Origin, PendingCommands};
use clawcraft_io::{IoSet, Outbox, StampedEvent};
use crossbeam_channel::{Receiver, Sender};

use crate::snapshot::Snapshot;

/// Origins of the page's commands: `[MAP_ORIGINS_START, MAP_ORIGINS_START << 1)`, apart from
/// stdin (0), TCP (from `1 << 32`) and MCP (from `1 << 48`).
pub const MAP_ORIGINS_START: Origin = 1 << 52;

/// Whether a response goes back to the map's HTTP server.
pub fn is_map_origin(origin: Origin) -> bool {
    (MAP_ORIGINS_START..MAP_ORIGINS_START << 1).contains(&origin)
}

/// Where the map is served.
#[derive(Debug, Clone, PartialEq)]
pub struct MapSettings {
    /// Loopback unless a token is set. Port 0 picks a free port.
    pub addr: SocketAddr,
    /// When set, every request must carry it (`Authorization: Bearer <token>` or `?token=`).
    pub token: Option<String>,
}

impl MapSettings {
    /// Refuses an address off loopback without a token.
    pub fn check(&self) -> Result<(), String> {
        if !self.addr.ip().is_loopback() && self.token.as_deref().is_none_or(str::is_empty) {
            return Err(format!("the map on {} (not loopback) needs CLAWCRAFT_TOKEN", self.addr));
        }
        Ok(())
    }
}

/// The game loop's work for the map, in [`Interim`] and `Last`.
#[derive(SystemSet, Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum MapSet {
    /// The page's command lines join the shared queue.
    Read,
    /// The snapshot the frame builder asked for is handed over.
    Snapshot,
    /// The page's answers and every event go to the map's threads.
    Route,
}

/// What the game loop and the map's threads share.
pub struct Shared {
    /// Open event streams (pages).
    pub clients: AtomicUsize,
    /// The frame builder asked for a snapshot.
    wanted: AtomicBool,
    /// The next snapshot carries every column (the frame builder forgot them).
    reset: AtomicBool,
    next_origin: AtomicU64,
    /// Commands waiting for their answer, by origin.
    waiting: Mutex<HashMap<Origin, Sender<Arc<str>>>>,
    requests: Sender<CommandRequest>,
    waker: CommandWaker,
    snapshots: Sender<Snapshot>,
    events: Sender<Arc<[StampedEvent]>>,
}

impl Shared {
    /// A fresh origin for one command of the page.
    pub fn origin(&self) -> Origin {
        MAP_ORIGINS_START + self.next_origin.fetch_add(1, Ordering::Relaxed) % MAP_ORIGINS_START
    }

    /// Queues a command; its answer arrives on the returned channel.
    pub fn send(&self, request: CommandRequest) -> Receiver<Arc<str>> {
        let (tx, rx) = crossbeam_channel::bounded(1);
        self.waiting.lock().unwrap_or_else(PoisonError::into_inner).insert(request.origin, tx);
        if self.requests.send(request).is_ok() {
            self.waker.wake();
        }
        rx
    }

    /// Forgets a command whose answer nobody waits for any more.
    pub fn forget(&self, origin: Origin) {
        self.waiting.lock().unwrap_or_else(PoisonError::into_inner).remove(&origin);
    }

    /// Asks the game loop for a snapshot: an `Interim` pass right after its next tick (not a
    /// busy tick, no wake-up of its own).
    pub fn want_snapshot(&self, full: bool) {
        if full {
            self.reset.store(true, Ordering::Release);
        }
        self.wanted.store(true, Ordering::Release);
        self.waker.after_tick();
    }
}

/// The game loop's end of the map.
#[derive(Resource, Clone)]
pub struct MapLink {
    shared: Arc<Shared>,
    requests: Receiver<CommandRequest>,
}

impl MapLink {
    /// Both ends: the link, and the frame builder's receivers of snapshots and events.
    pub fn new(waker: CommandWaker) -> (Self, Receiver<Snapshot>, Receiver<Arc<[StampedEvent]>>) {
        let (requests, requests_rx) = crossbeam_channel::unbounded();
        let (snapshots, snapshots_rx) = crossbeam_channel::unbounded();
        let (events, events_rx) = crossbeam_channel::unbounded();
        let shared = Arc::new(Shared {
            clients: AtomicUsize::new(0),
            wanted: AtomicBool::new(false),
            reset: AtomicBool::new(false),
            next_origin: AtomicU64::new(0),
            waiting: Mutex::new(HashMap::new()),
            requests,
            waker,
            snapshots,
            events,
        });
        (Self { shared, requests: requests_rx }, snapshots_rx, events_rx)
    }

    /// The state shared with the map's threads.
    pub fn shared(&self) -> &Arc<Shared> {
        &self.shared
    }

    fn wants_snapshot(&self) -> bool {
        self.shared.wanted.load(Ordering::Acquire)
    }

    fn take_reset(&self) -> bool {
        self.shared.reset.swap(false, Ordering::AcqRel)
    }

    /// Answers the frame builder's request: what changed, or nothing (no frame then).
    fn hand_over(&self, shot: Option<Snapshot>) {
        self.shared.wanted.store(false, Ordering::Release);
        if let Some(shot) = shot {
            // The frame builder is gone only when the process is ending.
            let _ = self.shared.snapshots.send(shot);
        }
    }
}

/// Serves the map. [`MapPlugin::new`] binds at once, so a taken port or a refused address is a
/// start-up error.
pub struct MapPlugin {
    settings: MapSettings,
    listener: Mutex<Option<TcpListener>>,
    addr: SocketAddr,
}

impl MapPlugin {
    pub fn new(settings: MapSettings) -> std::io::Result<Self> {
        settings.check().map_err(|e| std::io::Error::new(std::io::ErrorKind::PermissionDenied, e))?;
        let listener = TcpListener::bind(settings.addr)?;
        let addr = listener.local_addr()?;
        Ok(Self { settings, listener: Mutex::new(Some(listener)), addr })
    }

    /// The bound address (useful with port 0).
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }
}

impl Plugin for MapPlugin {
    fn build(&self, app: &mut App) {
        let waker = app.world().resource::<CommandWaker>().clone();
        let (link, snapshots_rx, events_rx) = MapLink::new(waker);
        let shared = link.shared.clone();
        app.insert_resource(link)
            .init_resource::<snapshot::Handed>()
            .configure_sets(Interim, (MapSet::Read.in_set(InterimSet::Read), MapSet::Route.in_set(IoSet::Route)))
            .add_systems(clawcraft_core::TickWork, read_map.in_set(clawcraft_core::gate::Gate::Channels))
            .add_systems(Interim, read_map.in_set(MapSet::Read))
            .add_systems(
                Interim,
                snapshot::take_snapshot
                    .in_set(MapSet::Snapshot)
                    .after(InterimSet::Read)
                    .run_if(snapshot::snapshot_wanted),
            )
            .add_systems(Interim, route_map.in_set(MapSet::Route))
            .add_systems(
                Last,
                route_map.in_set(MapSet::Route).in_set(IoSet::Route).in_set(clawcraft_core::gate::QuietAware),
            );
        let Some(listener) = self.listener.lock().unwrap_or_else(PoisonError::into_inner).take() else { return };
        let hub = Arc::new(frames::Hub::new(shared.clone()));
        if let Err(e) = frames::spawn(hub.clone(), snapshots_rx, events_rx) {
            tracing::error!(error = %e, "cannot start the map's frame thread; no map");
            return;
        }
        if let Err(e) = http::spawn(listener, self.settings.clone(), shared, hub) {
            tracing::error!(error = %e, "cannot start the map's HTTP thread; no map");
            return;
        }
        tracing::info!(url = %format!("http://{}/", self.addr), token = self.settings.token.is_some(), "live map serving");
    }
}

/// Moves the page's command lines into the shared queue.
fn read_map(link: Res<MapLink>, mut pending: ResMut<PendingCommands>) {
    pending.0.extend(link.requests.try_iter());
}

/// Hands the page's answers to the HTTP threads waiting for them, and every event to the frame
/// builder (the side panel's latest events).
fn route_map(outbox: Res<Outbox>, link: Res<MapLink>) {
    let mut answers = outbox.responses.iter().filter(|r| is_map_origin(r.origin) && !r.held).peekable();
    if answers.peek().is_some() {
        let mut waiting = link.shared.waiting.lock().unwrap_or_else(PoisonError::into_inner);
        for r in answers {
            if let Some(tx) = waiting.remove(&r.origin) {
                let _ = tx.try_send(r.line.clone());
            }
        }
    }
    if !outbox.events.is_empty() {
        let _ = link.shared.events.send(outbox.events.as_slice().into());
    }
}
