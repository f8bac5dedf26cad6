//! The TCP I/O thread: one `mio` event loop for the listener and every connection.

use std::collections::{HashMap, VecDeque};
use std::io::{ErrorKind, IoSlice, Read, Write};
use std::net::Shutdown;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use clawcraft_core::command::{error_body, next_request_id, take_token};
use clawcraft_core::{CommandError, CommandRequest, CommandResponse, CommandWaker, Origin, parse_request};
use crossbeam_channel::{Receiver, Sender, TryRecvError};
use mio::net::{TcpListener, TcpStream};
use mio::{Events, Interest, Poll, Token, Waker};
use serde_json::{Map, Value};

use super::replay::{self, ReplayMsg};
use super::{EventFilter, TCP_ORIGINS_START, TcpSettings};
use crate::StampedEvent;

/// Requests of one connection waiting for answers before it stops being read.
pub(super) const MAX_IN_FLIGHT: usize = 64;
/// A connection whose output makes no progress for this long is closed.
const WRITE_STALL: Duration = Duration::from_secs(10);
/// How often stalls are checked while some output is pending.
const STALL_CHECK: Duration = Duration::from_millis(250);

const LISTENER: Token = Token(0);
const WAKER: Token = Token(1);
const FIRST_CONN: usize = 2;

/// What the game loop hands the I/O thread.
pub(super) enum ToIo {
    /// The answer to a request of `origin`; `watch` when it starts streaming events.
    Response { origin: Origin, line: Arc<str>, watch: Option<WatchStart> },
    /// Events of one output pass, in `seq` order.
    Events(Arc<[StampedEvent]>),
    /// The app is gone: close everything.
    Stop,
}

/// A `watch` answer: events after `since` follow, older ones from `file` when needed.
pub(super) struct WatchStart {
    pub since: u64,
    pub file: Option<PathBuf>,
    /// Only the events it admits.
    pub filter: EventFilter,
}

/// The game loop's handle: a channel plus the waker of the event loop.
pub(super) struct IoHandle {
    tx: Sender<ToIo>,
    waker: Arc<Waker>,
}

impl IoHandle {
    pub(super) fn send(&self, msg: ToIo) {
        let _ = self.tx.send(msg);
    }

    pub(super) fn wake(&self) {
        let _ = self.waker.wake();
    }
}

impl Drop for IoHandle {
    fn drop(&mut self) {
        self.send(ToIo::Stop);
        self.wake();
    }
}

/// Starts the I/O thread on `listener`.
pub(super) fn start(
    listener: std::net::TcpListener,
    settings: TcpSettings,
    to_game: Sender<CommandRequest>,
    game_waker: CommandWaker,
) -> std::io::Result<IoHandle> {
    listener.set_nonblocking(true)?;
    let mut listener = TcpListener::from_std(listener);
    let poll = Poll::new()?;
    poll.registry().register(&mut listener, LISTENER, Interest::READABLE)?;
    let waker = Arc::new(Waker::new(poll.registry(), WAKER)?);
    let (tx, rx) = crossbeam_channel::unbounded();
    let mut server = Server {
        poll,
        listener,
        waker: waker.clone(),
        settings,
        rx,
        to_game,
        game_waker,
        wake_game: false,
        conns: Vec::new(),
        free: Vec::new(),
        by_origin: HashMap::new(),
        active: 0,
        ring: VecDeque::new(),
    };
    std::thread::Builder::new().name("clawcraft-tcp".into()).spawn(move || server.run())?;
    Ok(IoHandle { tx, waker })
}

static NEXT_ORIGIN: AtomicU64 = AtomicU64::new(TCP_ORIGINS_START);

/// What a connection is for, decided by its first request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    /// No complete line yet.
    Fresh,
    /// ClawCraft's one-shot: answer the first line, then close.
    OneShot,
    /// `session` or `watch`: many requests.
    Persistent,
}

/// Whether (and how far) events stream to a connection.
enum Watching {
    No,
    /// Reading the backlog from the events file; live events wait in the ring meanwhile.
    Replaying {
        since: u64,
        rx: Receiver<ReplayMsg>,
        file: PathBuf,
    },
    /// Events with a greater seq than `after` go out as they come.
    Live {
        after: u64,
    },
}

struct Conn {
    stream: TcpStream,
    origin: Origin,
    mode: Mode,
    watching: Watching,
    /// The events a watcher asked for.
    filter: EventFilter,
    /// Bytes of an incomplete line.
    inbuf: Vec<u8>,
    /// Output not yet written, from `out_pos`.
    out: Vec<u8>,
    out_pos: usize,
    /// When output last made progress (or became pending).
    progress_at: Instant,
    /// Requests handed to the game loop and not yet answered.
    in_flight: usize,
    /// The peer sent EOF.
    read_closed: bool,
    /// Reading stopped with unread input (answers pending): read again once they are out.
    read_paused: bool,
    /// Close once the output is written (after `LINE_TOO_LONG`, one-shot answers, slow readers).
    close_when_flushed: bool,
    /// Dropped as a slow reader: only its last line is still being written.
    abandoned: bool,
}

impl Conn {
    /// Whether `event` goes to this watcher.
    fn wants(&self, event: &StampedEvent) -> bool {
        self.filter.admits(&event.kind, event.bot.as_deref())
    }

    fn pending(&self) -> usize {
        self.out.len() - self.out_pos
    }

    /// Writes a line straight to the socket when nothing is queued (no copy of a big answer),
    /// queueing what the socket does not take. `false` when the socket failed.
    fn send_line(&mut self, line: &[u8]) -> bool {
        if self.abandoned || self.pending() > 0 {
            self.push_line(line);
            return true;
        }
        let written = loop {
            match self.stream.write_vectored(&[IoSlice::new(line), IoSlice::new(b"\n")]) {
                Ok(n) => break n,
                Err(e) if e.kind() == ErrorKind::Interrupted => {}
                Err(e) if e.kind() == ErrorKind::WouldBlock => break 0,
                Err(_) => return false,
            }
        };
        if written < line.len() {
            self.push_line(&line[written..]);
        } else if written == line.len() {
            self.push_line(b"\n");
        }
        true
    }

    fn push_line(&mut self, line: &[u8]) {
        if self.abandoned {
            return;
        }
        if self.pending() == 0 {
            self.progress_at = Instant::now();
        }
        self.out.extend_from_slice(line);
        if line.last() != Some(&b'\n') {
            self.out.push(b'\n');
        }
    }

    fn push_json(&mut self, body: &Map<String, Value>) {
        if self.abandoned {
            return;
        }
        if self.pending() == 0 {
            self.progress_at = Instant::now();
        }
        if serde_json::to_writer(&mut self.out, body).is_ok() {
            self.out.push(b'\n');
        }
    }

    /// Whether the connection has done all it will do.
    fn finished(&self) -> bool {
        if self.pending() > 0 || self.in_flight > 0 {
            return false;
        }
        match self.mode {
            _ if self.close_when_flushed => true,
            Mode::OneShot => true,
            Mode::Fresh => self.read_closed,
            Mode::Persistent => self.read_closed && matches!(self.watching, Watching::No),
        }
    }
}

struct Server {
    poll: Poll,
    listener: TcpListener,
    waker: Arc<Waker>,
    settings: TcpSettings,
    rx: Receiver<ToIo>,
    to_game: Sender<CommandRequest>,
    game_waker: CommandWaker,
    /// A request went to the game loop in this round: wake it once.
    wake_game: bool,
    conns: Vec<Option<Conn>>,
    free: Vec<usize>,
    by_origin: HashMap<Origin, usize>,
    /// Open connections (refused ones never count).
    active: usize,
    /// The most recent events, for `watch` replays.
    ring: VecDeque<StampedEvent>,
}

/// Outcome of trying to write a connection's output.
enum Flush {
    Open,
    Failed,
}

impl Server {
    fn run(&mut self) {
        let mut events = Events::with_capacity(256);
        loop {
            let pending_output = self.conns.iter().flatten().any(|c| c.pending() > 0);
            let timeout = pending_output.then_some(STALL_CHECK);
            if let Err(e) = self.poll.poll(&mut events, timeout) {
                if e.kind() == ErrorKind::Interrupted {
                    continue;
                }
                tracing::error!(error = %e, "TCP event loop failed; TCP is off");
                return;
            }
            for event in &events {
                match event.token() {
                    LISTENER => self.accept_all(),
                    WAKER => {}
                    Token(t) => {
                        let idx = t - FIRST_CONN;
                        if event.is_writable() {
                            self.flush(idx);
                        }
                        if event.is_readable() || event.is_read_closed() || event.is_error() {
                            self.read(idx);
                        }
                        self.settle(idx);
                    }
                }
            }
            if !self.drain_game() {
                return;
            }
            self.pump_replays();
            self.check_stalls();
            if std::mem::take(&mut self.wake_game) {
                self.game_waker.wake();
            }
        }
    }

    fn conn(&mut self, idx: usize) -> Option<&mut Conn> {
        self.conns.get_mut(idx).and_then(Option::as_mut)
    }

    fn accept_all(&mut self) {
        loop {
            let (mut stream, _) = match self.listener.accept() {
                Ok(s) => s,
                Err(e) if e.kind() == ErrorKind::WouldBlock => return,
                Err(e) if e.kind() == ErrorKind::Interrupted => continue,
                Err(e) => {
                    // Out of descriptors and the like: the waiting connection stays queued.
                    tracing::warn!(error = %e, "TCP accept failed");
                    return;
                }
            };
            // Small request/response lines: send each at once rather than waiting for more.
            let _ = stream.set_nodelay(true);
            if self.active >= self.settings.max_connections {
                tracing::warn!(max = self.settings.max_connections, "refusing a TCP connection: too many open");
                let e = CommandError::new("TOO_MANY_CONNECTIONS", "Too many connections; close one and retry");
                let mut line = Value::Object(error_body(Value::Null, &e)).to_string();
                line.push('\n');
                // A fresh socket's send buffer is empty: the short line fits.
                let _ = stream.write_all(line.as_bytes());
                close_quietly(&mut stream);
                continue;
            }
            let idx = self.free.pop().unwrap_or_else(|| {
                self.conns.push(None);
                self.conns.len() - 1
            });
            if let Err(e) = self.poll.registry().register(
                &mut stream,
                Token(idx + FIRST_CONN),
                Interest::READABLE | Interest::WRITABLE,
            ) {
                tracing::warn!(error = %e, "cannot watch a TCP connection");
                self.free.push(idx);
                continue;
            }
            let origin = NEXT_ORIGIN.fetch_add(1, Ordering::Relaxed);
            self.conns[idx] = Some(Conn {
                stream,
                origin,
                mode: Mode::Fresh,
                watching: Watching::No,
                filter: EventFilter::default(),
                inbuf: Vec::new(),
                out: Vec::new(),
                out_pos: 0,
                progress_at: Instant::now(),
                in_flight: 0,
                read_closed: false,
                read_paused: false,
                close_when_flushed: false,
                abandoned: false,
            });
            self.by_origin.insert(origin, idx);
            self.active += 1;
            // The request usually arrived with the handshake: read it now.
            self.read(idx);
            self.settle(idx);
        }
    }

    /// Reads until the socket is empty, the connection has enough waiting, or it closes.
    fn read(&mut self, idx: usize) {
        let mut buf = [0u8; 16 * 1024];
        loop {
            let max_queued = self.settings.max_queued_bytes;
            let Some(c) = self.conn(idx) else { return };
            if c.read_closed {
                return;
            }
            // One-shot and closing connections read only to discard (their answer is decided).
            let discard = c.mode == Mode::OneShot || c.close_when_flushed;
            if !discard && (c.in_flight >= MAX_IN_FLIGHT || c.pending() > max_queued / 2) {
                c.read_paused = true;
                return;
            }
            c.read_paused = false;
            match c.stream.read(&mut buf) {
                Ok(0) => {
                    c.read_closed = true;
                    // A last line without its newline still counts.
                    if !discard && !c.inbuf.is_empty() {
                        c.inbuf.push(b'\n');
                        self.take_lines(idx);
                    }
                    return;
                }
                Ok(n) if discard => {
                    let _ = n;
                }
                Ok(n) => {
                    c.inbuf.extend_from_slice(&buf[..n]);
                    self.take_lines(idx);
                }
                Err(e) if e.kind() == ErrorKind::WouldBlock => return,
                Err(e) if e.kind() == ErrorKind::Interrupted => {}
                Err(_) => {
                    self.drop_conn(idx);
                    return;
                }
            }
        }
    }

    /// Handles the complete lines in a connection's input buffer.
    fn take_lines(&mut self, idx: usize) {
        let max_line = self.settings.max_line;
        let mut start = 0;
        loop {
            let Some(c) = self.conn(idx) else { return };
            if c.mode == Mode::OneShot || c.close_when_flushed {
                c.inbuf.clear();
                return;
            }
            let Some(nl) = c.inbuf[start..].iter().position(|&b| b == b'\n') else { break };
            let mut line: Vec<u8> = c.inbuf[start..start + nl].to_vec();
            start += nl + 1;
            if line.last() == Some(&b'\r') {
                line.pop();
            }
            if line.len() > max_line {
                self.line_too_long(idx);
                return;
            }
            self.handle_line(idx, &line);
        }
        let Some(c) = self.conn(idx) else { return };
        c.inbuf.drain(..start);
        // An incomplete line over the limit (plus room for "\r") will not become a request.
        if c.inbuf.len() > max_line.saturating_add(1) {
            self.line_too_long(idx);
        }
    }

    fn line_too_long(&mut self, idx: usize) {
        let max_line = self.settings.max_line;
        let Some(c) = self.conn(idx) else { return };
        let e = CommandError::new(
            "LINE_TOO_LONG",
            format!("Request line over {max_line} bytes; the connection will close"),
        );
        c.push_json(&error_body(next_request_id(), &e));
        c.inbuf = Vec::new();
        c.close_when_flushed = true;
    }

    fn handle_line(&mut self, idx: usize, line: &[u8]) {
        if line.iter().all(u8::is_ascii_whitespace) {
            return;
        }
        let token = self.settings.token.clone();
        let Some(c) = self.conn(idx) else { return };
        let parsed = line_to_request(c.origin, line, token.as_deref());
        if c.mode == Mode::Fresh {
            let persistent = matches!(&parsed, Ok(r) if r.action == "session" || r.action == "watch");
            c.mode = if persistent { Mode::Persistent } else { Mode::OneShot };
        }
        match parsed {
            Ok(req) => {
                c.in_flight += 1;
                if self.to_game.send(req).is_ok() {
                    self.wake_game = true;
                }
            }
            Err(line) => c.push_line(line.as_bytes()),
        }
    }

    /// Writes pending output until the socket is full.
    fn flush(&mut self, idx: usize) -> Flush {
        let Some(c) = self.conn(idx) else { return Flush::Failed };
        while c.pending() > 0 {
            match c.stream.write(&c.out[c.out_pos..]) {
                Ok(0) => {
                    self.drop_conn(idx);
                    return Flush::Failed;
                }
                Ok(n) => {
                    c.out_pos += n;
                    c.progress_at = Instant::now();
                }
                Err(e) if e.kind() == ErrorKind::WouldBlock => break,
                Err(e) if e.kind() == ErrorKind::Interrupted => {}
                Err(_) => {
                    self.drop_conn(idx);
                    return Flush::Failed;
                }
            }
        }
        if c.pending() == 0 {
            c.out.clear();
            c.out_pos = 0;
        } else if c.out_pos > 1 << 20 {
            c.out.drain(..c.out_pos);
            c.out_pos = 0;
        }
        Flush::Open
    }

    /// After anything happened to a connection: write, resume reading, or close it when done.
    fn settle(&mut self, idx: usize) {
        if let Flush::Failed = self.flush(idx) {
            return;
        }
        let max_queued = self.settings.max_queued_bytes;
        let Some(c) = self.conn(idx) else { return };
        if c.read_paused && c.in_flight < MAX_IN_FLIGHT && c.pending() <= max_queued / 2 {
            self.read(idx);
            if let Flush::Failed = self.flush(idx) {
                return;
            }
        }
        if self.conn(idx).is_some_and(|c| c.finished()) {
            self.close(idx);
        }
    }

    /// Closes our side after the output is out; unread input is drained first so the close
    /// is a FIN, not a reset that could destroy the answer in flight.
    fn close(&mut self, idx: usize) {
        let Some(mut c) = self.remove(idx) else { return };
        close_quietly(&mut c.stream);
    }

    /// Forgets a connection whose socket failed.
    fn drop_conn(&mut self, idx: usize) {
        if let Some(c) = self.remove(idx) {
            let _ = c.stream.shutdown(Shutdown::Both);
        }
    }

    fn remove(&mut self, idx: usize) -> Option<Conn> {
        let mut c = self.conns.get_mut(idx)?.take()?;
        let _ = self.poll.registry().deregister(&mut c.stream);
        self.by_origin.remove(&c.origin);
        self.free.push(idx);
        self.active -= 1;
        Some(c)
    }

    /// Takes everything the game loop sent; false once the app is gone.
    fn drain_game(&mut self) -> bool {
        let mut touched = Vec::new();
        loop {
            match self.rx.try_recv() {
                Ok(ToIo::Response { origin, line, watch }) => {
                    let Some(&idx) = self.by_origin.get(&origin) else { continue };
                    let Some(c) = self.conn(idx) else { continue };
                    c.in_flight = c.in_flight.saturating_sub(1);
                    if !c.send_line(line.as_bytes()) {
                        self.drop_conn(idx);
                        continue;
                    }
                    let Some(c) = self.conn(idx) else { continue };
                    if let Some(w) = watch
                        && matches!(c.watching, Watching::No)
                    {
                        c.mode = Mode::Persistent;
                        self.start_watch(idx, w);
                    }
                    touched.push(idx);
                }
                Ok(ToIo::Events(batch)) => {
                    self.fan_out(&batch);
                    for e in batch.iter() {
                        self.remember(e.clone());
                    }
                }
                Ok(ToIo::Stop) | Err(TryRecvError::Disconnected) => return false,
                Err(TryRecvError::Empty) => break,
            }
        }
        for idx in self.live_watchers() {
            touched.push(idx);
        }
        touched.sort_unstable();
        touched.dedup();
        for idx in touched {
            self.settle(idx);
        }
        true
    }

    fn live_watchers(&self) -> Vec<usize> {
        (0..self.conns.len())
            .filter(|&i| self.conns[i].as_ref().is_some_and(|c| matches!(c.watching, Watching::Live { .. })))
            .collect()
    }

    fn remember(&mut self, e: StampedEvent) {
        if self.settings.replay_ring == 0 {
            return;
        }
        if self.ring.len() >= self.settings.replay_ring {
            self.ring.pop_front();
        }
        self.ring.push_back(e);
    }

    /// Live events to every live watcher.
    fn fan_out(&mut self, batch: &[StampedEvent]) {
        for c in self.conns.iter_mut().flatten() {
            let Watching::Live { after } = c.watching else { continue };
            let mut last = after;
            for e in batch.iter().filter(|e| e.seq > after) {
                if c.wants(e) {
                    c.push_line(e.line.as_bytes());
                }
                last = e.seq;
            }
            c.watching = Watching::Live { after: last };
        }
        for idx in self.live_watchers() {
            self.check_queue(idx);
        }
    }

    /// Starts streaming to a connection: the backlog from the ring, or first from the file.
    fn start_watch(&mut self, idx: usize, w: WatchStart) {
        if let Some(c) = self.conn(idx) {
            c.filter = w.filter.clone();
        }
        let ring_first = self.ring.front().map(|e| e.seq);
        let older_than_ring = ring_first.is_some_and(|first| w.since.saturating_add(1) < first);
        if let (true, Some(file), Some(until)) = (older_than_ring, w.file, ring_first) {
            let rx = replay::start(file.clone(), w.since, until, w.filter, self.waker.clone());
            if let Some(c) = self.conn(idx) {
                c.watching = Watching::Replaying { since: w.since, rx, file };
            }
            return;
        }
        self.catch_up_from_ring(idx, w.since);
    }

    /// Ring events after `after`, then live.
    fn catch_up_from_ring(&mut self, idx: usize, after: u64) {
        let Some(c) = self.conns.get_mut(idx).and_then(Option::as_mut) else { return };
        let mut last = after;
        for e in self.ring.iter().filter(|e| e.seq > after) {
            if c.wants(e) {
                c.push_line(e.line.as_bytes());
            }
            last = e.seq;
        }
        c.watching = Watching::Live { after: last };
        self.check_queue(idx);
    }

    /// Moves file backlog to replaying watchers while their output has room.
    fn pump_replays(&mut self) {
        let limit = self.settings.max_queued_bytes / 2;
        for idx in 0..self.conns.len() {
            let mut done = None;
            let mut moved = false;
            let file;
            {
                let Some(c) = self.conns[idx].as_mut() else { continue };
                let Watching::Replaying { since, rx, file: f } = &c.watching else { continue };
                let since = *since;
                file = f.clone();
                while c.pending() <= limit {
                    match rx.try_recv() {
                        Ok(ReplayMsg::Chunk(bytes)) => {
                            if c.pending() == 0 {
                                c.progress_at = Instant::now();
                            }
                            c.out.extend_from_slice(&bytes);
                            moved = true;
                        }
                        Ok(ReplayMsg::Done { last }) => {
                            done = Some(last.max(since));
                            break;
                        }
                        Err(TryRecvError::Empty) => break,
                        Err(TryRecvError::Disconnected) => {
                            done = Some(since);
                            break;
                        }
                    }
                }
            }
            if let Some(last) = done {
                let ring_first = self.ring.front().map(|e| e.seq);
                // The ring moved on while the file was read: read the gap from the file again.
                let gap = ring_first.is_some_and(|first| last.saturating_add(1) < first);
                match ring_first {
                    Some(until) if gap => {
                        let filter = self.conns[idx].as_ref().map(|c| c.filter.clone()).unwrap_or_default();
                        let rx = replay::start(file.clone(), last, until, filter, self.waker.clone());
                        if let Some(c) = self.conn(idx) {
                            c.watching = Watching::Replaying { since: last, rx, file };
                        }
                    }
                    _ => self.catch_up_from_ring(idx, last),
                }
            }
            if moved || done.is_some() {
                self.settle(idx);
            }
        }
    }

    /// Drops a watcher that lets too much pile up; see the module docs.
    fn check_queue(&mut self, idx: usize) {
        let max = self.settings.max_queued_bytes;
        let grace = self.settings.slow_reader_grace;
        let Some(c) = self.conn(idx) else { return };
        if c.abandoned || c.pending() <= max {
            return;
        }
        // Answers are held back by not reading requests, so only events can pile up without
        // bound: the hard cap is for watchers.
        let watcher = !matches!(c.watching, Watching::No);
        if (watcher && c.pending() > max.saturating_mul(4)) || c.progress_at.elapsed() >= grace {
            tracing::warn!(
                origin = c.origin,
                queued = c.pending(),
                "dropping a TCP client that does not read its output"
            );
            abandon(c, max);
        }
    }

    /// Closes connections whose output has not moved for too long; drops slow watchers.
    fn check_stalls(&mut self) {
        for idx in 0..self.conns.len() {
            let Some(c) = self.conns[idx].as_ref() else { continue };
            if c.pending() == 0 {
                continue;
            }
            if c.progress_at.elapsed() >= WRITE_STALL {
                tracing::warn!(origin = c.origin, "closing a TCP connection whose output made no progress");
                self.drop_conn(idx);
                continue;
            }
            self.check_queue(idx);
            self.settle(idx);
        }
    }
}

/// Keeps the rest of the line being written (so the client never sees half a line), then one
/// `SLOW_READER` line, then closes.
fn abandon(c: &mut Conn, max: usize) {
    let rest = &c.out[c.out_pos..];
    let keep = rest.iter().position(|&b| b == b'\n').map_or(0, |i| i + 1);
    let keep = if c.out_pos > 0 && c.out[c.out_pos - 1] != b'\n' { keep } else { 0 };
    let mut out = rest[..keep].to_vec();
    let e = CommandError::new("SLOW_READER", format!("More than {max} bytes of output unread; closing"));
    if serde_json::to_writer(&mut out, &Value::Object(error_body(Value::Null, &e))).is_ok() {
        out.push(b'\n');
    }
    c.out = out;
    c.out_pos = 0;
    c.abandoned = true;
    c.close_when_flushed = true;
    c.watching = Watching::No;
    c.progress_at = Instant::now();
}

/// Ends our side politely: FIN after the output, unread input drained so closing does not
/// reset the connection.
fn close_quietly(stream: &mut TcpStream) {
    let _ = stream.shutdown(Shutdown::Write);
    let mut sink = [0u8; 4096];
    let mut total = 0usize;
    while total < 1 << 20 {
        match stream.read(&mut sink) {
            Ok(0) => break,
            Ok(n) => total += n,
            Err(e) if e.kind() == ErrorKind::Interrupted => {}
            Err(_) => break,
        }
    }
}

/// A request from raw bytes: UTF-8, JSON, then the token check. On failure, the error line.
fn line_to_request(origin: Origin, bytes: &[u8], token: Option<&str>) -> Result<CommandRequest, Arc<str>> {
    let Ok(line) = std::str::from_utf8(bytes) else {
        let e = CommandError::invalid_json("the line is not UTF-8");
        return Err(CommandResponse::error(origin, next_request_id(), &e).line);
    };
    let req = parse_request(origin, line).map_err(|r| r.line)?;
    if let Some(expected) = token
        && take_token(line).as_deref() != Some(expected)
    {
        let e = CommandError::new("UNAUTHORIZED", "Missing or wrong token (CLAWCRAFT_TOKEN is set on the bot)");
        return Err(CommandResponse::error(origin, req.id, &e).line);
    }
    Ok(req)
}
