//! `IoPlugin`: the agent's channels. JSON lines in on stdin, responses and events out on stdout
//! (stdout carries nothing else; logs go to stderr through `tracing`).
//!
//! Every channel feeds the same [`PendingCommands`] queue via [`parse_request`], so a command
//! behaves identically wherever it came from.
//!
//! Output happens in two steps, in `Last` and in the [`Interim`] schedule alike:
//! [`IoSet::Collect`] reads this pass's responses and events once (through shared cursors, so a
//! message is never seen twice by the two schedules), stamps every event with `seq` and puts both
//! in the [`Outbox`]; then every channel routes from the outbox in [`IoSet::Route`]: stdout here,
//! TCP connections in [`tcp`], the events file in [`events_file`].
//!
//! stdout gets the stdin channel's responses and every event; a TCP connection gets its own
//! responses (and events once it sent `watch`, which this plugin registers so `schema` lists it);
//! the events file gets every event. Every event carries `type`, ms `timestamp` and `seq`.

pub mod client;
pub mod events_file;
pub mod tcp;

use std::collections::VecDeque;
use std::io::{BufRead, Write};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use bevy_app::{App, AppExit, Last, Plugin, PostUpdate, PreUpdate, Startup};
use bevy_ecs::message::{MessageCursor, Messages};
use bevy_ecs::prelude::*;
use clawcraft_core::builtin::{Shutdown, Startup as StartupEvent};
use clawcraft_core::{
    AgentEvent, AppCommandExt, CommandResponse, CommandWaker, CorePlugin, Interim, InterimSet, PendingCommands,
    TickSet, event::now_ms, parse_request,
};
use clawcraft_network::{ConnectionClosed, ShutdownRequest};
use crossbeam_channel::{Receiver, TryRecvError};
use serde_json::Value;

/// Origin of stdin requests; responses with this origin go to stdout.
pub const STDIN_ORIGIN: u64 = 0;

/// What the I/O plugin reads and how it ends the process.
#[derive(Debug, Clone)]
pub struct IoPlugin {
    /// Read commands from stdin (and shut down at its EOF). Off for daemons and tests.
    pub stdin: bool,
    /// Handle SIGINT/SIGTERM by leaving politely.
    pub signals: bool,
    /// Print responses and events to stdout.
    pub stdout: bool,
    /// Exit (non-zero) once every bot's connection is gone.
    pub exit_on_disconnect: bool,
}

impl Default for IoPlugin {
    fn default() -> Self {
        Self { stdin: true, signals: true, stdout: true, exit_on_disconnect: true }
    }
}

/// Lines from the stdin thread.
enum StdinLine {
    Line(String),
    Eof,
}

#[derive(Resource)]
struct StdinChannel(Receiver<StdinLine>);

/// Set by the signal handler, read once per tick.
#[derive(Resource, Clone, Default)]
pub struct SignalFlag(pub Arc<AtomicBool>);

/// Numbers every event the agent sees, so a reader can resume without gaps or repeats.
#[derive(Resource, Debug, Default, Clone, Copy)]
pub struct EventSeq(pub u64);

/// Events written this process, for tests and in-process front ends.
#[derive(Resource, Debug, Default, Clone)]
pub struct EventLog {
    pub lines: Vec<serde_json::Map<String, Value>>,
    /// Keep at most this many (0 = keep none).
    pub capacity: usize,
}

/// The two output steps; channels add their routing systems to [`IoSet::Route`].
#[derive(SystemSet, Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum IoSet {
    /// Responses and events of this pass are read once and events are stamped.
    Collect,
    /// Channels write what is in the [`Outbox`].
    Route,
}

/// One event as written to every channel: its `seq` and its JSON text (no newline).
#[derive(Debug, Clone, PartialEq)]
pub struct StampedEvent {
    pub seq: u64,
    pub line: Arc<str>,
}

/// What this output pass writes: filled in [`IoSet::Collect`], read in [`IoSet::Route`].
#[derive(Resource, Debug, Default)]
pub struct Outbox {
    pub responses: Vec<CommandResponse>,
    pub events: Vec<StampedEvent>,
}

/// The most recent events, so a TCP watcher can resume from a `seq` without the file.
#[derive(Resource, Debug, Clone)]
pub struct EventRing {
    pub events: VecDeque<StampedEvent>,
    pub capacity: usize,
}

impl Default for EventRing {
    fn default() -> Self {
        Self { events: VecDeque::new(), capacity: 10_000 }
    }
}

impl EventRing {
    fn push(&mut self, e: StampedEvent) {
        if self.capacity == 0 {
            return;
        }
        if self.events.len() >= self.capacity {
            self.events.pop_front();
        }
        self.events.push_back(e);
    }

    /// Oldest `seq` still held.
    pub fn first_seq(&self) -> Option<u64> {
        self.events.front().map(|e| e.seq)
    }
}

/// Shared read positions: `Last` and `Interim` are separate systems, but a message must be
/// collected exactly once.
#[derive(Resource, Default)]
struct OutputCursors {
    responses: MessageCursor<CommandResponse>,
    events: MessageCursor<AgentEvent>,
}

#[derive(Resource, Debug, Clone, Copy)]
struct IoSettings {
    stdout: bool,
    exit_on_disconnect: bool,
}

impl Plugin for IoPlugin {
    fn build(&self, app: &mut App) {
        if !app.is_plugin_added::<CorePlugin>() {
            app.add_plugins(CorePlugin);
        }
        app.insert_resource(IoSettings { stdout: self.stdout, exit_on_disconnect: self.exit_on_disconnect })
            .init_resource::<EventSeq>()
            .init_resource::<EventLog>()
            .init_resource::<SignalFlag>()
            .init_resource::<Outbox>()
            .init_resource::<EventRing>()
            .init_resource::<OutputCursors>()
            .add_agent_command::<tcp::Watch>()
            .configure_sets(Last, (IoSet::Collect, IoSet::Route).chain())
            .configure_sets(Interim, (IoSet::Collect, IoSet::Route).chain().in_set(InterimSet::Write))
            .add_systems(Startup, emit_startup)
            .add_systems(PreUpdate, (read_stdin, watch_signals).after(TickSet::Receive))
            .add_systems(PostUpdate, finish_on_shutdown.after(TickSet::Send))
            .add_systems(Last, (collect_output.in_set(IoSet::Collect), write_stdout.in_set(IoSet::Route)))
            .add_systems(Last, exit_when_disconnected.after(IoSet::Route))
            .add_systems(
                Interim,
                (
                    read_stdin.in_set(InterimSet::Read),
                    collect_output.in_set(IoSet::Collect),
                    write_stdout.in_set(IoSet::Route),
                ),
            );
        if self.stdin {
            let waker = app.world().resource::<CommandWaker>().clone();
            let (tx, rx) = crossbeam_channel::unbounded();
            std::thread::Builder::new()
                .name("clawcraft-stdin".into())
                .spawn(move || {
                    let stdin = std::io::stdin();
                    for line in stdin.lock().lines() {
                        match line {
                            Ok(l) => {
                                if tx.send(StdinLine::Line(l)).is_err() {
                                    return;
                                }
                                waker.wake();
                            }
                            // Invalid UTF-8 still deserves an error response rather than silence.
                            Err(e) if e.kind() == std::io::ErrorKind::InvalidData => {
                                if tx.send(StdinLine::Line(String::from("\u{FFFD}"))).is_err() {
                                    return;
                                }
                            }
                            Err(_) => break,
                        }
                    }
                    let _ = tx.send(StdinLine::Eof);
                    waker.wake();
                })
                .expect("spawning the stdin thread");
            app.insert_resource(StdinChannel(rx));
        }
        if self.signals {
            let flag = app.world().resource::<SignalFlag>().0.clone();
            if let Err(e) = ctrlc::set_handler(move || flag.store(true, Ordering::SeqCst)) {
                tracing::warn!(error = %e, "cannot install the signal handler");
            }
        }
    }
}

fn emit_startup(mut events: MessageWriter<AgentEvent>) {
    events.write(AgentEvent::of(&StartupEvent { version: env!("CARGO_PKG_VERSION").into() }));
}

fn read_stdin(
    channel: Option<Res<StdinChannel>>,
    mut pending: ResMut<PendingCommands>,
    mut responses: MessageWriter<CommandResponse>,
    mut shutdown: MessageWriter<ShutdownRequest>,
) {
    let Some(channel) = channel else { return };
    loop {
        match channel.0.try_recv() {
            Ok(StdinLine::Line(line)) => {
                if line.trim().is_empty() {
                    continue;
                }
                match parse_request(STDIN_ORIGIN, &line) {
                    Ok(req) => pending.0.push_back(req),
                    Err(resp) => {
                        responses.write(resp);
                    }
                }
            }
            Ok(StdinLine::Eof) | Err(TryRecvError::Disconnected) => {
                tracing::info!("stdin closed, shutting down");
                shutdown.write(ShutdownRequest);
                break;
            }
            Err(TryRecvError::Empty) => break,
        }
    }
}

fn watch_signals(flag: Res<SignalFlag>, mut shutdown: MessageWriter<ShutdownRequest>) {
    if flag.0.swap(false, Ordering::SeqCst) {
        tracing::info!("signal received, shutting down");
        shutdown.write(ShutdownRequest);
    }
}

/// After the connections were closed politely (in `TickSet::Send`): `shutdown` and exit 0.
fn finish_on_shutdown(
    mut requests: MessageReader<ShutdownRequest>,
    mut events: MessageWriter<AgentEvent>,
    mut exit: MessageWriter<AppExit>,
) {
    if requests.read().count() > 0 {
        events.write(AgentEvent::of(&Shutdown {}));
        exit.write(AppExit::Success);
    }
}

/// Reads this pass's responses and events once, stamping each event with the next `seq`.
fn collect_output(
    response_msgs: Res<Messages<CommandResponse>>,
    event_msgs: Res<Messages<AgentEvent>>,
    mut cursors: ResMut<OutputCursors>,
    mut outbox: ResMut<Outbox>,
    mut seq: ResMut<EventSeq>,
    mut log: ResMut<EventLog>,
    mut ring: ResMut<EventRing>,
) {
    let cursors = &mut *cursors;
    outbox.responses.clear();
    outbox.events.clear();
    outbox.responses.extend(cursors.responses.read(&response_msgs).cloned());
    for event in cursors.events.read(&event_msgs) {
        seq.0 += 1;
        let mut obj = event.to_json(now_ms());
        obj.insert("seq".into(), Value::from(seq.0));
        let line: Arc<str> = Value::Object(obj.clone()).to_string().into();
        let stamped = StampedEvent { seq: seq.0, line };
        ring.push(stamped.clone());
        outbox.events.push(stamped);
        if log.capacity > 0 {
            if log.lines.len() >= log.capacity {
                log.lines.remove(0);
            }
            log.lines.push(obj);
        }
    }
}

/// stdout gets the stdin channel's responses and every event.
fn write_stdout(outbox: Res<Outbox>, settings: Res<IoSettings>) {
    if !settings.stdout || (outbox.events.is_empty() && outbox.responses.is_empty()) {
        return;
    }
    let mut out = Vec::new();
    for resp in outbox.responses.iter().filter(|r| r.origin == STDIN_ORIGIN) {
        push_line(&mut out, &Value::Object(resp.body.clone()));
    }
    for event in &outbox.events {
        out.extend_from_slice(event.line.as_bytes());
        out.push(b'\n');
    }
    if !out.is_empty() {
        let mut stdout = std::io::stdout().lock();
        // A closed stdout (agent gone) must not crash the bot; the events file still has them.
        let _ = stdout.write_all(&out).and_then(|_| stdout.flush());
    }
}

/// Appends `v` as one JSON line.
pub fn push_line(out: &mut Vec<u8>, v: &Value) {
    if serde_json::to_writer(&mut *out, v).is_ok() {
        out.push(b'\n');
    }
}

/// A lost or refused connection ends the process with a non-zero code, after its event.
fn exit_when_disconnected(
    mut closed: MessageReader<ConnectionClosed>,
    settings: Res<IoSettings>,
    mut exit: MessageWriter<AppExit>,
) {
    // Every close we see here was not ours (a polite shutdown closes without this message).
    if closed.read().count() > 0 && settings.exit_on_disconnect {
        exit.write(AppExit::from_code(2));
    }
}
