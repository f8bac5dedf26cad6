//! The TCP channel on `CLAWCRAFT_BIND:CLAWCRAFT_PORT` (default `127.0.0.1:4099`).
//!
//! Protocol: JSON lines both ways, the same requests and responses as stdin.
//! - One-shot (ClawCraft's way, what `scripts/cmd.js` and `clawcraft cmd` rely on): the server
//!   reads the first line, answers it and closes the connection. Anything else the client sent
//!   is discarded. Clients need not close their end.
//! - Persistent: a first line `{"action":"session"}` keeps the connection open; then send any
//!   number of lines; responses come back in request order (a `cmd` waiting for the server's
//!   output answers when it arrives; a line that is not a request is answered at once).
//! - Watch: `{"action":"watch","since":SEQ}` (as the first line or within a session) answers
//!   `{"type":"response","id":…,"watching":true,"since":SEQ}`, then streams every event with
//!   `seq > SEQ` as lines, live, until the connection closes: first the backlog (from the
//!   in-memory ring of recent events, or, read on a thread of its own, the events file when `SEQ`
//!   is older than the ring), then new events. Without `since`, only events after the response.
//!   With `"types":["danger","msg"]` only events of those types go out, backlog included; names
//!   that are no event type are kept but answered with `warnings` naming the closest ones.
//!   Commands keep working on a watching connection; their responses interleave with events.
//!
//! All socket work happens on one I/O thread (`clawcraft-tcp`, non-blocking sockets through
//! `mio`): it accepts, reads and parses lines, checks the token, hands requests to the game loop
//! (waking it), and writes what the game loop hands back. The game loop never touches a socket or
//! a file for TCP. Limits: lines over [`TcpSettings::max_line`] get `LINE_TOO_LONG` and the
//! connection closes; connections beyond [`TcpSettings::max_connections`] get
//! `TOO_MANY_CONNECTIONS` and close (one-shot connections free their slot when they close); a
//! connection stops being read while its answers wait to be written (so a client flooding
//! requests is slowed to the pace it reads, never dropped); a watcher whose unread output exceeds
//! [`TcpSettings::max_queued_bytes`] and that has read nothing for
//! [`TcpSettings::slow_reader_grace`] (or whose output exceeds four times the limit) is dropped
//! with a last `SLOW_READER` line. Bytes that are not UTF-8 or not JSON get `INVALID_JSON`. When a
//! token is configured every request must carry it as `token`, else `UNAUTHORIZED`.

mod replay;
mod server;

use std::net::{IpAddr, Ipv4Addr, SocketAddr, TcpListener};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use bevy_app::{App, Last, Plugin};
use bevy_ecs::prelude::*;
use clawcraft_core::{
    AgentCommand, CommandCtx, CommandError, CommandRequest, CommandWaker, EventRegistry, Interim, InterimSet, Origin,
    PendingCommands,
};
use crossbeam_channel::Receiver;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::events_file::EventsFile;
use crate::{EventSeq, IoSet, MAX_LINE, Outbox};

/// Where the server listens and its limits.
#[derive(Debug, Clone, PartialEq)]
pub struct TcpSettings {
    /// Loopback unless configured otherwise; anything else should require a token.
    pub bind: IpAddr,
    /// 0 picks a free port (tests).
    pub port: u16,
    /// When set, every request must carry `"token": <this>`.
    pub token: Option<String>,
    /// Longest accepted request line in bytes (without the newline).
    pub max_line: usize,
    /// Open connections at most; more are refused with `TOO_MANY_CONNECTIONS`.
    pub max_connections: usize,
    /// Unsent output a connection may have before it stops being read (requests) or, for a
    /// watcher that does not read, before it is dropped as a slow reader.
    pub max_queued_bytes: usize,
    /// How long a watcher over [`max_queued_bytes`](Self::max_queued_bytes) may read nothing
    /// before it is dropped.
    pub slow_reader_grace: Duration,
    /// Recent events kept for `watch` replays without the events file.
    pub replay_ring: usize,
}

impl TcpSettings {
    /// Loopback on `port` with the default limits.
    pub fn loopback(port: u16) -> Self {
        Self {
            bind: IpAddr::V4(Ipv4Addr::LOCALHOST),
            port,
            token: None,
            max_line: MAX_LINE,
            max_connections: 32,
            max_queued_bytes: 16 * 1024 * 1024,
            slow_reader_grace: Duration::from_secs(5),
            replay_ring: 10_000,
        }
    }
}

/// Serves the agent protocol over TCP. Build it with [`TcpPlugin::bind`] so a taken port is a
/// start-up error rather than a silent log line.
pub struct TcpPlugin {
    settings: TcpSettings,
    listener: Mutex<Option<TcpListener>>,
    addr: SocketAddr,
}

impl TcpPlugin {
    /// Binds the listener now.
    pub fn bind(settings: TcpSettings) -> std::io::Result<Self> {
        let listener = TcpListener::bind((settings.bind, settings.port))?;
        let addr = listener.local_addr()?;
        Ok(Self { settings, listener: Mutex::new(Some(listener)), addr })
    }

    /// The bound address (useful with port 0).
    pub fn local_addr(&self) -> SocketAddr {
        self.addr
    }
}

/// TCP origins: `[TCP_ORIGINS_START, TCP_ORIGINS_START + 2^32)`, away from stdin (0) and from
/// other channels.
pub const TCP_ORIGINS_START: Origin = 1 << 32;

/// Whether a response goes back over TCP.
pub fn is_tcp_origin(origin: Origin) -> bool {
    (TCP_ORIGINS_START..TCP_ORIGINS_START << 1).contains(&origin)
}

/// `{"action":"watch","since":SEQ,"types":["danger","msg"]}`: stream events on this connection.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Watch {
    /// Replay events with a greater `seq` first (from memory or the events file). Omit for live
    /// events only.
    pub since: Option<u64>,
    /// Only events of these types (replay included). Omit for every event.
    pub types: Option<Vec<String>>,
}

// `bot` (a request's envelope field) narrows `watch` to that bot's events and the process's own.

/// Response of `watch`; events follow as lines.
#[derive(Serialize, JsonSchema)]
pub struct WatchResponse {
    pub watching: bool,
    /// Events with a greater `seq` follow.
    pub since: u64,
    /// The event types streamed, when filtered.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub types: Option<Vec<String>>,
    /// Names in `types` that are no event type, with the closest ones (they stream nothing).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
    /// The bot whose events are streamed (with the process's own), when the request named one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bot: Option<String>,
}

impl AgentCommand for Watch {
    const NAME: &'static str = "watch";
    const PER_BOT: bool = false;
    const SUMMARY: &'static str = "TCP only: stream every event (or only `types`, or one `bot`'s) after `since` (seq) on this connection, live, until it closes (stdout already carries every event)";
    const EXAMPLE: &'static str = r#"{"action":"watch","since":0,"types":["danger","msg"]}"#;
    const NEEDS_SPAWN: bool = false;
    const QUERY: bool = true;
    type Response = WatchResponse;

    fn run(self, ctx: &mut CommandCtx<'_>) -> Result<WatchResponse, CommandError> {
        // Events not yet stamped get greater seqs, so nothing between now and the replay is lost.
        let now = ctx.world.get_resource::<EventSeq>().map_or(0, |s| s.0);
        let types = self.types.map(|t| t.into_iter().map(|n| n.trim().to_owned()).collect::<Vec<_>>());
        if types.as_ref().is_some_and(|t| t.is_empty() || t.iter().any(String::is_empty)) {
            return Err(CommandError::invalid_params_text(
                "types must list event type names, e.g. [\"danger\",\"msg\"]",
            ));
        }
        let warnings = match (&types, ctx.world.get_resource::<EventRegistry>()) {
            (Some(t), Some(registry)) => registry.unknown_type_warnings(t),
            _ => Vec::new(),
        };
        // A request that named its bot resolved it: stream that bot's events.
        let bot = ctx.world.get::<clawcraft_core::LocalBot>(ctx.bot).map(|b| b.username.clone());
        Ok(WatchResponse { watching: true, since: self.since.unwrap_or(now), types, warnings, bot })
    }
}

/// The events a watcher asked for: of these types (`None`: all), of this bot and the process
/// (`None`: every bot's).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) struct EventFilter {
    pub(crate) types: Option<Arc<[Box<str>]>>,
    pub(crate) bot: Option<Arc<str>>,
}

impl EventFilter {
    /// Whether an event of type `kind` about bot `bot` (`None`: the process's own) goes out.
    pub(crate) fn admits(&self, kind: &str, bot: Option<&str>) -> bool {
        self.types.as_ref().is_none_or(|t| t.iter().any(|t| &**t == kind))
            && match (&self.bot, bot) {
                (Some(want), Some(bot)) => want.eq_ignore_ascii_case(bot),
                _ => true,
            }
    }
}

/// `{"action":"session"}`: keep this TCP connection open for many requests.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Session {}

/// Response of `session`.
#[derive(Serialize, JsonSchema)]
pub struct SessionResponse {
    /// The connection stays open: send more lines; responses come back in order.
    pub session: bool,
}

impl AgentCommand for Session {
    const NAME: &'static str = "session";
    const PER_BOT: bool = false;
    const SUMMARY: &'static str = "TCP: as the first line, keeps the connection open for many requests (without it the server answers one line and closes, as ClawCraft does)";
    const EXAMPLE: &'static str = r#"{"action":"session"}"#;
    const NEEDS_SPAWN: bool = false;
    const QUERY: bool = true;
    type Response = SessionResponse;

    fn run(self, _ctx: &mut CommandCtx<'_>) -> Result<SessionResponse, CommandError> {
        Ok(SessionResponse { session: true })
    }
}

/// The game loop's side of the I/O thread.
#[derive(Resource)]
struct TcpIo {
    io: server::IoHandle,
    requests: Receiver<CommandRequest>,
}

impl Plugin for TcpPlugin {
    fn build(&self, app: &mut App) {
        let Some(listener) = self.listener.lock().unwrap_or_else(|p| p.into_inner()).take() else {
            tracing::error!("TcpPlugin built twice; the listener is already in use");
            return;
        };
        let waker = app.world().resource::<CommandWaker>().clone();
        // Unbounded, but bounded in fact: a connection stops being read at
        // `server::MAX_IN_FLIGHT` requests waiting for answers, so at most
        // max_connections × MAX_IN_FLIGHT requests are ever queued.
        let (tx, rx) = crossbeam_channel::unbounded();
        let io = match server::start(listener, self.settings.clone(), tx, waker) {
            Ok(io) => io,
            Err(e) => {
                tracing::error!(error = %e, "cannot start the TCP I/O thread");
                return;
            }
        };
        tracing::info!(addr = %self.addr, token = self.settings.token.is_some(), "TCP command server listening");
        app.insert_resource(TcpIo { io, requests: rx })
            .add_systems(clawcraft_core::TickWork, read_tcp.in_set(clawcraft_core::gate::Gate::Channels))
            .add_systems(Interim, read_tcp.in_set(InterimSet::Read))
            .add_systems(Last, route_tcp.in_set(IoSet::Route).in_set(clawcraft_core::gate::QuietAware))
            .add_systems(Interim, route_tcp.in_set(IoSet::Route));
    }
}

/// Moves requests the I/O thread parsed into the shared queue.
fn read_tcp(io: Res<TcpIo>, mut pending: ResMut<PendingCommands>) {
    pending.0.extend(io.requests.try_iter());
}

/// Hands this pass's TCP responses and events (shared text, no copies) to the I/O thread.
fn route_tcp(outbox: Res<Outbox>, io: Res<TcpIo>, events_file: Option<Res<EventsFile>>) {
    let mut sent = false;
    for resp in outbox.responses.iter().filter(|r| is_tcp_origin(r.origin)) {
        // Only `watch` answers say `"watching":true`; parse just those.
        let watch = resp.line.contains("\"watching\":true").then(|| resp.body()).and_then(|body| {
            (body.get("watching") == Some(&Value::Bool(true))).then(|| server::WatchStart {
                since: body.get("since").and_then(Value::as_u64).unwrap_or(0),
                file: events_file.as_deref().map(|f| f.settings.path.clone()),
                filter: EventFilter {
                    types: body
                        .get("types")
                        .and_then(Value::as_array)
                        .map(|t| t.iter().filter_map(Value::as_str).map(Box::from).collect::<Vec<_>>().into()),
                    bot: body.get("bot").and_then(Value::as_str).map(Arc::from),
                },
            })
        });
        io.io.send(server::ToIo::Response { origin: resp.origin, line: resp.line.clone(), watch });
        sent = true;
    }
    if !outbox.events.is_empty() {
        io.io.send(server::ToIo::Events(outbox.events.as_slice().into()));
        sent = true;
    }
    if sent {
        io.io.wake();
    }
}
