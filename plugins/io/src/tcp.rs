//! The TCP channel on `CLAWCRAFT_BIND:CLAWCRAFT_PORT` (default `127.0.0.1:4099`).
//!
//! Protocol: JSON lines both ways, the same requests and responses as stdin.
//! - One-shot (ClawCraft's `cmd.js`): send one line, read one response line, close. A client that
//!   half-closes after its line(s) still gets every response, then the server closes.
//! - Persistent: keep the connection open and send many lines; responses come back in order.
//! - Watch: `{"action":"watch","since":SEQ}` (a registered command, so `schema` lists it) answers
//!   `{"type":"response","id":…,"watching":true,"since":SEQ}`, then streams every event with
//!   `seq > SEQ` as lines, live, until the connection closes: first the backlog (from an
//!   in-memory ring of recent events, or the events file when `SEQ` is older than the ring), then
//!   new events. Without `since`, only events after the response. Commands keep working on a
//!   watching connection; their responses interleave with events.
//!
//! Limits, none of which stalls the tick loop (threads do the blocking I/O; the ECS side only
//! queues bytes): lines over [`TcpSettings::max_line`] get `LINE_TOO_LONG` and the connection
//! closes; connections over [`TcpSettings::max_connections`] get `TOO_MANY_CONNECTIONS` and
//! close; a reader that lets more than [`TcpSettings::max_queued_bytes`] pile up is dropped: the
//! rest of its backlog is discarded, it gets a last `SLOW_READER` error line (if it reads again
//! within 10 s; a write that makes no progress for 10 s closes the connection) and is closed.
//! Bytes that are not UTF-8 or not JSON get `INVALID_JSON`. When a token is configured every
//! request must carry it as `token`, else `UNAUTHORIZED`.

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{IpAddr, Ipv4Addr, Shutdown, SocketAddr, TcpListener, TcpStream};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use bevy_app::{App, Last, Plugin, PreUpdate};
use bevy_ecs::prelude::*;
use clawcraft_core::command::{error_body, next_request_id, take_token};
use clawcraft_core::{
    AgentCommand, CommandCtx, CommandError, CommandRequest, CommandResponse, CommandWaker, Interim, InterimSet, Origin,
    PendingCommands, TickSet, parse_request,
};
use crossbeam_channel::{Receiver, Sender, TrySendError};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::events_file::{Cursor, EventsFile, read_events};
use crate::{EventRing, EventSeq, IoSet, Outbox};

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
    /// A connection whose unsent output exceeds this is dropped as a slow reader.
    pub max_queued_bytes: usize,
}

impl TcpSettings {
    /// Loopback on `port` with the default limits.
    pub fn loopback(port: u16) -> Self {
        Self {
            bind: IpAddr::V4(Ipv4Addr::LOCALHOST),
            port,
            token: None,
            max_line: 64 * 1024,
            max_connections: 32,
            max_queued_bytes: 16 * 1024 * 1024,
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

/// `{"action":"watch","since":SEQ}`: stream events on this connection.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Watch {
    /// Replay events with a greater `seq` first (from memory or the events file). Omit for live
    /// events only.
    pub since: Option<u64>,
}

/// Response of `watch`; events follow as lines.
#[derive(Serialize, JsonSchema)]
pub struct WatchResponse {
    pub watching: bool,
    /// Events with a greater `seq` follow.
    pub since: u64,
}

impl AgentCommand for Watch {
    const NAME: &'static str = "watch";
    const SUMMARY: &'static str = "TCP only: stream every event after `since` (seq) on this connection, live, until it closes (stdout already carries every event)";
    const EXAMPLE: &'static str = r#"{"action":"watch","since":0}"#;
    const NEEDS_SPAWN: bool = false;
    const QUERY: bool = true;
    type Response = WatchResponse;

    fn run(self, ctx: &mut CommandCtx<'_>) -> Result<WatchResponse, CommandError> {
        // Events not yet stamped get greater seqs, so nothing between now and the replay is lost.
        let now = ctx.world.get_resource::<EventSeq>().map_or(0, |s| s.0);
        Ok(WatchResponse { watching: true, since: self.since.unwrap_or(now) })
    }
}

/// What connection threads tell the ECS side, in order per connection.
enum Inbound {
    Opened(Origin, ConnHandle),
    Request(CommandRequest),
    /// A response made by the reader itself (a line that could not become a request).
    Reply(CommandResponse),
    /// The peer will send nothing more (EOF).
    ReadClosed(Origin),
    /// Close once every response is sent (after `LINE_TOO_LONG`).
    CloseAfterReplies(Origin),
    /// The socket failed; forget the connection.
    Gone(Origin),
}

/// What the writer thread of a connection is asked to do.
enum Out {
    Data(Vec<u8>),
    Close,
    /// The client fell too far behind: skip the queued output, send this last line, close.
    Abandon(Vec<u8>),
}

/// The ECS side's handle on one connection.
struct ConnHandle {
    tx: Sender<Out>,
    /// Bytes queued and not yet written, to spot slow readers.
    queued: Arc<AtomicUsize>,
    /// Set when the connection is abandoned: the writer skips what is still queued.
    abandoned: Arc<AtomicBool>,
}

/// One connection's state on the ECS side.
struct Conn {
    handle: ConnHandle,
    /// Requests read but not yet answered, so a half-closed one-shot client gets its answer.
    in_flight: usize,
    read_closed: bool,
    close_after_replies: bool,
    /// `Some(since)` once watching: events with a greater seq are forwarded.
    watching: Option<u64>,
}

#[derive(Resource)]
struct TcpInbox(Receiver<Inbound>);

#[derive(Resource)]
struct TcpConnections {
    conns: HashMap<Origin, Conn>,
    max_queued_bytes: usize,
}

impl Plugin for TcpPlugin {
    fn build(&self, app: &mut App) {
        let Some(listener) = self.listener.lock().unwrap_or_else(|p| p.into_inner()).take() else {
            tracing::error!("TcpPlugin built twice; the listener is already in use");
            return;
        };
        let waker = app.world().resource::<CommandWaker>().clone();
        // Bounded: a client flooding requests blocks its own reader thread, not the tick.
        let (tx, rx) = crossbeam_channel::bounded(4096);
        let settings = Arc::new(self.settings.clone());
        let s = settings.clone();
        if let Err(e) =
            std::thread::Builder::new().name("clawcraft-tcp".into()).spawn(move || accept_loop(listener, s, tx, waker))
        {
            tracing::error!(error = %e, "cannot start the TCP accept thread");
            return;
        }
        tracing::info!(addr = %self.addr, token = settings.token.is_some(), "TCP command server listening");
        app.insert_resource(TcpInbox(rx))
            .insert_resource(TcpConnections { conns: HashMap::new(), max_queued_bytes: settings.max_queued_bytes })
            .add_systems(PreUpdate, read_tcp.after(TickSet::Receive))
            .add_systems(Interim, read_tcp.in_set(InterimSet::Read))
            .add_systems(Last, route_tcp.in_set(IoSet::Route))
            .add_systems(Interim, route_tcp.in_set(IoSet::Route));
    }
}

/// Origins of TCP connections live above 2^32, away from stdin (0) and other channels.
static NEXT_ORIGIN: AtomicU64 = AtomicU64::new(1 << 32);

fn accept_loop(listener: TcpListener, settings: Arc<TcpSettings>, inbox: Sender<Inbound>, waker: CommandWaker) {
    let live = Arc::new(AtomicUsize::new(0));
    for stream in listener.incoming() {
        let stream = match stream {
            Ok(s) => s,
            Err(e) => {
                tracing::warn!(error = %e, "TCP accept failed");
                continue;
            }
        };
        // Small request/response lines: send each at once rather than waiting for more.
        let _ = stream.set_nodelay(true);
        if live.load(Ordering::SeqCst) >= settings.max_connections {
            tracing::warn!(max = settings.max_connections, "refusing a TCP connection: too many open");
            refuse(stream);
            continue;
        }
        if let Err(e) = open_connection(stream, &settings, &inbox, &waker, &live) {
            tracing::warn!(error = %e, "cannot serve a TCP connection");
        }
    }
}

/// Answers `TOO_MANY_CONNECTIONS` and closes, off the accept thread.
fn refuse(mut stream: TcpStream) {
    let _ = std::thread::Builder::new().name("clawcraft-tcp-refuse".into()).spawn(move || {
        let e = CommandError::new("TOO_MANY_CONNECTIONS", "Too many connections; close one and retry");
        let mut line = Value::Object(error_body(Value::Null, &e)).to_string();
        line.push('\n');
        let _ = stream.set_write_timeout(Some(Duration::from_secs(1)));
        let _ = stream.write_all(line.as_bytes());
        linger_close(stream);
    });
}

/// Closes our side, then reads (briefly) what the peer still sends: closing with unread input
/// would reset the connection and could destroy the line we just wrote.
fn linger_close(mut stream: TcpStream) {
    let _ = stream.shutdown(Shutdown::Write);
    let _ = stream.set_read_timeout(Some(Duration::from_secs(1)));
    let mut sink = [0u8; 8192];
    let mut total = 0usize;
    while total < 1 << 20 {
        match stream.read(&mut sink) {
            Ok(0) | Err(_) => break,
            Ok(n) => total += n,
        }
    }
}

fn open_connection(
    stream: TcpStream,
    settings: &Arc<TcpSettings>,
    inbox: &Sender<Inbound>,
    waker: &CommandWaker,
    live: &Arc<AtomicUsize>,
) -> std::io::Result<()> {
    let origin = NEXT_ORIGIN.fetch_add(1, Ordering::Relaxed);
    let (out_tx, out_rx) = crossbeam_channel::unbounded();
    let queued = Arc::new(AtomicUsize::new(0));
    let abandoned = Arc::new(AtomicBool::new(false));
    let handle = ConnHandle { tx: out_tx, queued: queued.clone(), abandoned: abandoned.clone() };
    // A client that stops reading entirely is cut after this long, freeing its threads.
    stream.set_write_timeout(Some(WRITE_STALL))?;
    let reader_stream = stream.try_clone()?;
    live.fetch_add(1, Ordering::SeqCst);
    // Registered before the reader starts, so its lines never arrive for an unknown origin.
    let _ = inbox.send(Inbound::Opened(origin, handle));
    let (inbox_w, waker_w, live_w) = (inbox.clone(), waker.clone(), live.clone());
    std::thread::Builder::new().name(format!("clawcraft-tcp-w{origin:x}")).spawn(move || {
        write_loop(stream, out_rx, &queued, &abandoned, origin, &inbox_w, &waker_w);
        live_w.fetch_sub(1, Ordering::SeqCst);
    })?;
    let (inbox_r, waker_r, settings_r) = (inbox.clone(), waker.clone(), settings.clone());
    std::thread::Builder::new()
        .name(format!("clawcraft-tcp-r{origin:x}"))
        .spawn(move || read_loop(reader_stream, origin, &settings_r, &inbox_r, &waker_r))?;
    Ok(())
}

/// How long a write may make no progress before the client is considered gone.
const WRITE_STALL: Duration = Duration::from_secs(10);

fn write_loop(
    mut stream: TcpStream,
    rx: Receiver<Out>,
    queued: &AtomicUsize,
    abandoned: &AtomicBool,
    origin: Origin,
    inbox: &Sender<Inbound>,
    waker: &CommandWaker,
) {
    while let Ok(out) = rx.recv() {
        match out {
            Out::Data(bytes) => {
                let ok = abandoned.load(Ordering::SeqCst) || stream.write_all(&bytes).is_ok();
                queued.fetch_sub(bytes.len(), Ordering::SeqCst);
                if !ok {
                    let _ = stream.shutdown(Shutdown::Both);
                    let _ = inbox.send(Inbound::Gone(origin));
                    waker.wake();
                    return;
                }
            }
            Out::Close => {
                let _ = stream.shutdown(Shutdown::Write);
                return;
            }
            Out::Abandon(last) => {
                let _ = stream.write_all(&last);
                let _ = stream.shutdown(Shutdown::Both);
                return;
            }
        }
    }
    // The ECS side dropped us (slow reader, shutdown).
    let _ = stream.shutdown(Shutdown::Both);
}

fn read_loop(stream: TcpStream, origin: Origin, settings: &TcpSettings, inbox: &Sender<Inbound>, waker: &CommandWaker) {
    let mut reader = BufReader::new(stream);
    let send = |m: Inbound| {
        let ok = inbox.send(m).is_ok();
        waker.wake();
        ok
    };
    loop {
        let mut buf = Vec::new();
        let limit = settings.max_line as u64 + 2; // room for "\r\n"
        match reader.by_ref().take(limit).read_until(b'\n', &mut buf) {
            Ok(0) | Err(_) => {
                send(Inbound::ReadClosed(origin));
                return;
            }
            Ok(_) => {}
        }
        let complete = buf.ends_with(b"\n");
        while matches!(buf.last(), Some(b'\n' | b'\r')) {
            buf.pop();
        }
        if buf.len() > settings.max_line {
            let e = CommandError::new(
                "LINE_TOO_LONG",
                format!("Request line over {} bytes; the connection will close", settings.max_line),
            );
            send(Inbound::Reply(CommandResponse { origin, body: error_body(next_request_id(), &e) }));
            send(Inbound::CloseAfterReplies(origin));
            // Keep reading what the peer still sends until the writer closes, so the close is clean.
            let mut sink = [0u8; 8192];
            let _ = reader.get_ref().set_read_timeout(Some(Duration::from_secs(2)));
            while matches!(reader.read(&mut sink), Ok(n) if n > 0) {}
            return;
        }
        if buf.iter().all(u8::is_ascii_whitespace) {
            if !complete {
                send(Inbound::ReadClosed(origin));
                return;
            }
            continue;
        }
        let message = match line_to_request(origin, &buf, settings.token.as_deref()) {
            Ok(req) => Inbound::Request(req),
            Err(resp) => Inbound::Reply(resp),
        };
        if !send(message) {
            return;
        }
    }
}

/// A request from raw bytes: UTF-8, JSON, then the token check.
fn line_to_request(origin: Origin, bytes: &[u8], token: Option<&str>) -> Result<CommandRequest, CommandResponse> {
    let Ok(line) = std::str::from_utf8(bytes) else {
        let e = CommandError::invalid_json("the line is not UTF-8");
        return Err(CommandResponse { origin, body: error_body(next_request_id(), &e) });
    };
    let req = parse_request(origin, line)?;
    if let Some(expected) = token
        && take_token(line).as_deref() != Some(expected)
    {
        let e = CommandError::new("UNAUTHORIZED", "Missing or wrong token (CLAWCRAFT_TOKEN is set on the bot)");
        return Err(CommandResponse { origin, body: error_body(req.id, &e) });
    }
    Ok(req)
}

/// Moves arrived requests into the shared queue and keeps the connection table current.
fn read_tcp(
    inbox: Res<TcpInbox>,
    mut conns: ResMut<TcpConnections>,
    mut pending: ResMut<PendingCommands>,
    mut responses: MessageWriter<CommandResponse>,
) {
    while let Ok(msg) = inbox.0.try_recv() {
        match msg {
            Inbound::Opened(origin, handle) => {
                let conn =
                    Conn { handle, in_flight: 0, read_closed: false, close_after_replies: false, watching: None };
                conns.conns.insert(origin, conn);
            }
            Inbound::Request(req) => {
                if let Some(c) = conns.conns.get_mut(&req.origin) {
                    c.in_flight += 1;
                    pending.0.push_back(req);
                }
            }
            Inbound::Reply(resp) => {
                if let Some(c) = conns.conns.get_mut(&resp.origin) {
                    c.in_flight += 1;
                    responses.write(resp);
                }
            }
            Inbound::ReadClosed(origin) => {
                if let Some(c) = conns.conns.get_mut(&origin) {
                    c.read_closed = true;
                }
            }
            Inbound::CloseAfterReplies(origin) => {
                if let Some(c) = conns.conns.get_mut(&origin) {
                    c.close_after_replies = true;
                }
            }
            Inbound::Gone(origin) => {
                conns.conns.remove(&origin);
            }
        }
    }
}

/// Writes responses to their connections and events to watchers; closes finished connections.
fn route_tcp(
    outbox: Res<Outbox>,
    mut conns: ResMut<TcpConnections>,
    ring: Res<EventRing>,
    events_file: Option<Res<EventsFile>>,
) {
    let conns = &mut *conns;
    if conns.conns.is_empty() {
        return;
    }
    let mut bufs: HashMap<Origin, Vec<u8>> = HashMap::new();
    // Live events go to connections that were already watching before this pass; new watchers
    // get this pass's events from the ring replay instead.
    for (origin, conn) in conns.conns.iter() {
        let Some(since) = conn.watching else { continue };
        let buf = bufs.entry(*origin).or_default();
        for e in outbox.events.iter().filter(|e| e.seq > since) {
            push_text(buf, &e.line);
        }
    }
    for resp in &outbox.responses {
        let Some(conn) = conns.conns.get_mut(&resp.origin) else { continue };
        conn.in_flight = conn.in_flight.saturating_sub(1);
        let buf = bufs.entry(resp.origin).or_default();
        push_text(buf, &Value::Object(resp.body.clone()).to_string());
        if resp.body.get("watching") == Some(&Value::Bool(true)) && conn.watching.is_none() {
            let since = resp.body.get("since").and_then(Value::as_u64).unwrap_or(0);
            replay(buf, since, &ring, events_file.as_deref().map(|f| f.settings.path.clone()));
            // Later events continue after whatever the replay ended with.
            conn.watching = Some(ring.events.back().map_or(since, |e| e.seq.max(since)));
        }
    }
    let max = conns.max_queued_bytes;
    let mut drop_list = Vec::new();
    for (origin, buf) in bufs {
        if buf.is_empty() {
            continue;
        }
        let Some(conn) = conns.conns.get(&origin) else { continue };
        let queued = conn.handle.queued.fetch_add(buf.len(), Ordering::SeqCst) + buf.len();
        if queued > max {
            tracing::warn!(origin, queued, "dropping a TCP client that does not read its output");
            conn.handle.abandoned.store(true, Ordering::SeqCst);
            let e = CommandError::new("SLOW_READER", format!("More than {max} bytes of output unread; closing"));
            let mut last = Value::Object(error_body(Value::Null, &e)).to_string().into_bytes();
            last.push(b'\n');
            let _ = conn.handle.tx.send(Out::Abandon(last));
            drop_list.push(origin);
            continue;
        }
        if let Err(TrySendError::Disconnected(_) | TrySendError::Full(_)) = conn.handle.tx.try_send(Out::Data(buf)) {
            drop_list.push(origin);
        }
    }
    // Their writers skip the backlog, send the last line if the client reads again within
    // WRITE_STALL, and close; the tick never waits for them.
    for origin in drop_list {
        conns.conns.remove(&origin);
    }
    conns.conns.retain(|_, c| {
        let done = c.in_flight == 0 && (c.close_after_replies || (c.read_closed && c.watching.is_none()));
        if done {
            let _ = c.handle.tx.send(Out::Close);
        }
        !done
    });
}

/// Events after `since`: from the file for what is older than the ring, then from the ring.
fn replay(buf: &mut Vec<u8>, since: u64, ring: &EventRing, file: Option<PathBuf>) {
    let ring_first = ring.first_seq();
    if ring_first.is_none_or(|first| since + 1 < first)
        && let Some(path) = file
    {
        for v in read_events(&path, Cursor::AfterSeq(since)) {
            let seq = v["seq"].as_u64().unwrap_or(0);
            if ring_first.is_some_and(|first| seq >= first) {
                break;
            }
            push_text(buf, &v.to_string());
        }
    }
    for e in ring.events.iter().filter(|e| e.seq > since) {
        push_text(buf, &e.line);
    }
}

fn push_text(buf: &mut Vec<u8>, line: &str) {
    buf.extend_from_slice(line.as_bytes());
    buf.push(b'\n');
}
