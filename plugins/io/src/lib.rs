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
pub mod line_writer;
pub mod stdin;
pub mod tcp;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use bevy_app::{App, AppExit, Last, Plugin, Startup};
use bevy_ecs::message::{MessageCursor, Messages};
use bevy_ecs::prelude::*;
use bevy_ecs::schedule::common_conditions::on_message;
use clawcraft_core::builtin::{Shutdown, Startup as StartupEvent};
use clawcraft_core::command::next_request_id;
use clawcraft_core::gate::{Gate, QuietAware};
use clawcraft_core::{
    AgentEvent, AppCommandExt, AppEventExt, AppWorkExt, AwaitingReconnect, BotNames, CommandError, CommandResponse,
    CommandWaker, CorePlugin, Interim, InterimSet, Lifecycle, LocalBot, NameBots, PLUGIN_ORIGIN, PendingCommands,
    TickWork, event::now_ms, parse_request,
};
use clawcraft_network::{ConnectionClosed, ShutdownRequest};
use crossbeam_channel::{Receiver, TryRecvError};
use schemars::JsonSchema;
use serde::Serialize;
use serde_json::Value;

use crate::line_writer::LineWriter;
use crate::stdin::StdinLine;

/// Origin of stdin requests; responses with this origin go to stdout.
pub const STDIN_ORIGIN: u64 = 0;

/// Longest request line (bytes, without the line ending) on stdin and TCP.
pub const MAX_LINE: usize = 64 * 1024;
/// Lines the stdin thread may hold before it waits for the game loop to take them.
const STDIN_QUEUE_LINES: usize = 1024;

/// What the I/O plugin reads and how it ends the process.
#[derive(Debug, Clone)]
pub struct IoPlugin {
    /// Read commands from stdin (and shut down at its EOF) when stdin is a pipe, terminal or file
    /// (see [`stdin::detect`]); `/dev/null` or a closed stdin never opens the channel. Off for
    /// daemons (`CLAWCRAFT_NO_STDIN`) and tests.
    pub stdin: bool,
    /// Handle SIGINT/SIGTERM by leaving politely.
    pub signals: bool,
    /// Print responses and events to stdout.
    pub stdout: bool,
    /// Exit (code 2) once the last bot's connection is lost and no bot will connect again (a
    /// bot waiting to reconnect keeps the process running). Off: run on without bots
    /// (`--keep-running`).
    pub exit_on_disconnect: bool,
    /// Bytes of stdout output that may wait for a reader; beyond it lines are dropped, counted and
    /// reported with `stdout_overflow`.
    pub stdout_queue_bytes: usize,
}

impl Default for IoPlugin {
    fn default() -> Self {
        Self { stdin: true, signals: true, stdout: true, exit_on_disconnect: true, stdout_queue_bytes: 4 << 20 }
    }
}

impl IoPlugin {
    /// No channel of the process's own (stdin, signals, stdout) and no exit when the bots are
    /// gone: for an app that code drives (tests, tools).
    pub fn detached() -> Self {
        Self { stdin: false, signals: false, stdout: false, exit_on_disconnect: false, ..Self::default() }
    }
}

#[derive(Resource)]
struct StdinChannel(Receiver<StdinLine>);

/// The stdout writer thread and what it could not take.
#[derive(Resource)]
struct Stdout {
    writer: LineWriter,
    overflow: Option<Overflow>,
}

/// Lines dropped since stdout stopped keeping up.
#[derive(Debug, Clone, Copy, Default)]
struct Overflow {
    events: u64,
    responses: u64,
    first_seq: Option<u64>,
    last_seq: Option<u64>,
}

/// `stdout_overflow`: stdout was not read fast enough and lines were dropped from it.
#[derive(Message, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct StdoutOverflow {
    /// Events dropped from stdout (every one is still in the events file and on TCP `watch`).
    pub dropped: u64,
    /// `seq` of the first dropped event (`null` when only responses were dropped).
    pub first_seq: Option<u64>,
    /// `seq` of the last dropped event.
    pub last_seq: Option<u64>,
    /// Responses to stdin requests dropped (they cannot be read back).
    pub responses: u64,
}
clawcraft_core::event_kind!(
    StdoutOverflow,
    "stdout_overflow",
    "stdout was not read in time and lines were dropped; read events firstSeq..=lastSeq back with `clawcraft events --since` or TCP `watch`",
    None
);

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
    /// The event's `type`, for filters.
    pub kind: Arc<str>,
    /// The name of the bot it is about (`None` for the process's own events), for filters.
    pub bot: Option<Arc<str>>,
    pub line: Arc<str>,
}

impl StampedEvent {
    /// Whether a filter on `bot` (a bot's name, case-insensitive) lets it through: events of
    /// that bot and the process's own.
    pub fn is_for(&self, bot: Option<&str>) -> bool {
        match (bot, &self.bot) {
            (None, _) | (Some(_), None) => true,
            (Some(want), Some(name)) => name.eq_ignore_ascii_case(want),
        }
    }
}

/// What this output pass writes: filled in [`IoSet::Collect`], read in [`IoSet::Route`].
#[derive(Resource, Debug, Default)]
pub struct Outbox {
    pub responses: Vec<CommandResponse>,
    pub events: Vec<StampedEvent>,
}

/// Shared read positions: `Last` and `Interim` are separate systems, but a message must be
/// collected exactly once.
#[derive(Resource, Default)]
struct OutputCursors {
    responses: MessageCursor<CommandResponse>,
    events: MessageCursor<AgentEvent>,
}

/// When the process ends by itself (see [`IoPlugin::exit_on_disconnect`]).
#[derive(Resource, Debug, Clone, Copy)]
pub struct ExitPolicy {
    /// Exit when no bot is left.
    pub when_no_bots: bool,
}

impl Plugin for IoPlugin {
    fn build(&self, app: &mut App) {
        if !app.is_plugin_added::<CorePlugin>() {
            app.add_plugins(CorePlugin);
        }
        app.insert_resource(ExitPolicy { when_no_bots: self.exit_on_disconnect })
            .init_resource::<EventSeq>()
            .init_resource::<EventLog>()
            .init_resource::<SignalFlag>()
            .init_resource::<Outbox>()
            .init_resource::<OutputCursors>()
            .add_agent_command::<tcp::Watch>()
            .add_agent_command::<tcp::Session>()
            .add_agent_event::<StdoutOverflow>()
            .configure_sets(Last, (IoSet::Collect, IoSet::Route.run_if(output_waiting)).chain())
            .configure_sets(Interim, (IoSet::Collect, IoSet::Route).chain().in_set(InterimSet::Write))
            .add_systems(Startup, emit_startup)
            .add_systems(TickWork, (read_stdin, watch_signals).in_set(Gate::Channels))
            .add_pending_work("stdout overflow", |w| w.get_resource::<Stdout>().is_some_and(|s| s.overflow.is_some()))
            .add_systems(
                Last,
                finish_on_shutdown
                    .after(clawcraft_network::close_on_shutdown)
                    .before(IoSet::Collect)
                    .run_if(on_message::<ShutdownRequest>)
                    .in_set(QuietAware),
            )
            .add_systems(
                Last,
                (collect_output.in_set(IoSet::Collect), write_stdout.in_set(IoSet::Route)).in_set(QuietAware),
            )
            .add_systems(
                Last,
                exit_when_disconnected.after(IoSet::Route).run_if(on_message::<ConnectionClosed>).in_set(QuietAware),
            )
            .add_systems(
                Interim,
                (
                    read_stdin.in_set(InterimSet::Read),
                    collect_output.in_set(IoSet::Collect),
                    write_stdout.in_set(IoSet::Route),
                ),
            );
        if self.stdout {
            match LineWriter::spawn("clawcraft-stdout", std::io::stdout(), self.stdout_queue_bytes) {
                Ok(writer) => {
                    app.insert_resource(Stdout { writer, overflow: None });
                }
                Err(e) => tracing::error!(error = %e, "cannot start the stdout thread; nothing goes to stdout"),
            }
        }
        if self.stdin {
            match stdin::detect() {
                stdin::StdinSource::Stream => self.start_stdin(app),
                other => tracing::info!(stdin = ?other, "stdin is not a stream: no stdin channel (stop with SIGTERM)"),
            }
        }
        if self.signals {
            let flag = app.world().resource::<SignalFlag>().0.clone();
            let waker = app.world().resource::<CommandWaker>().clone();
            // The waker lets the tick's channel readers (`watch_signals` among them) run.
            if let Err(e) = ctrlc::set_handler(move || {
                flag.store(true, Ordering::SeqCst);
                waker.wake();
            }) {
                tracing::warn!(error = %e, "cannot install the signal handler");
            }
        }
    }
}

impl IoPlugin {
    fn start_stdin(&self, app: &mut App) {
        let waker = app.world().resource::<CommandWaker>().clone();
        let (tx, rx) = crossbeam_channel::bounded(STDIN_QUEUE_LINES);
        let spawned = std::thread::Builder::new().name("clawcraft-stdin".into()).spawn(move || {
            let input = std::io::stdin();
            stdin::read_lines(input.lock(), MAX_LINE, &tx, &waker);
        });
        match spawned {
            Ok(_) => {
                app.insert_resource(StdinChannel(rx));
            }
            Err(e) => tracing::error!(error = %e, "cannot start the stdin thread; no stdin channel"),
        }
    }
}

fn emit_startup(mut events: MessageWriter<AgentEvent>) {
    events.write(AgentEvent::new(StartupEvent { version: env!("CARGO_PKG_VERSION").into() }));
}

fn read_stdin(
    channel: Option<Res<StdinChannel>>,
    mut pending: ResMut<PendingCommands>,
    mut responses: MessageWriter<CommandResponse>,
    mut shutdown: MessageWriter<ShutdownRequest>,
    mut commands: Commands,
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
            Ok(StdinLine::TooLong) => {
                let e = CommandError::new("LINE_TOO_LONG", format!("Request line over {MAX_LINE} bytes; skipped"));
                responses.write(CommandResponse::error(STDIN_ORIGIN, next_request_id(), &e));
            }
            Ok(StdinLine::Eof) => {
                tracing::info!("stdin closed, shutting down");
                shutdown.write(ShutdownRequest);
                commands.remove_resource::<StdinChannel>();
                break;
            }
            // The reader stopped without EOF (stdin unusable): no more stdin, the bot goes on.
            Err(TryRecvError::Disconnected) => {
                commands.remove_resource::<StdinChannel>();
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

/// After the connections were closed politely (`close_on_shutdown`, in `Last`): `shutdown` and exit 0.
fn finish_on_shutdown(
    mut requests: MessageReader<ShutdownRequest>,
    mut events: MessageWriter<AgentEvent>,
    mut exit: MessageWriter<AppExit>,
) {
    if requests.read().count() > 0 {
        events.write(AgentEvent::new(Shutdown {}));
        exit.write(AppExit::Success);
    }
}

/// Run condition of the tick's [`IoSet::Route`]: this pass has responses or events to route, or
/// stdout owes the agent a `stdout_overflow` (an idle tick routes nothing).
fn output_waiting(outbox: Res<Outbox>, stdout: Option<Res<Stdout>>) -> bool {
    !outbox.responses.is_empty() || !outbox.events.is_empty() || stdout.is_some_and(|s| s.overflow.is_some())
}

/// Reads this pass's responses and events once, stamping each event with the next `seq`: the one
/// place where a typed event becomes the JSON line every channel writes. With more than one bot
/// (or a swarm) each bot's event names it (`"bot": "<name>"`).
#[allow(clippy::too_many_arguments)]
fn collect_output(
    response_msgs: Res<Messages<CommandResponse>>,
    event_msgs: Res<Messages<AgentEvent>>,
    mut cursors: ResMut<OutputCursors>,
    mut outbox: ResMut<Outbox>,
    mut seq: ResMut<EventSeq>,
    mut log: ResMut<EventLog>,
    names: Res<BotNames>,
    naming: Res<NameBots>,
    bots: Query<(), With<LocalBot>>,
) {
    let cursors = &mut *cursors;
    outbox.responses.clear();
    outbox.events.clear();
    // A plugin's requests are answered with typed messages, not lines; a held answer (a request
    // that waits for its action's end) goes out later, with the completion.
    outbox
        .responses
        .extend(cursors.responses.read(&response_msgs).filter(|r| r.origin != PLUGIN_ORIGIN && !r.held).cloned());
    let mut name_bots = None;
    for event in cursors.events.read(&event_msgs) {
        seq.0 += 1;
        let mut obj = event.to_json(now_ms());
        let bot = event.bot().and_then(|b| names.get(b).cloned());
        if let Some(name) = &bot
            && *name_bots.get_or_insert_with(|| naming.always || bots.iter().nth(1).is_some())
        {
            obj.insert("bot".into(), Value::from(&**name));
        }
        obj.insert("seq".into(), Value::from(seq.0));
        let line: Arc<str> = Value::Object(obj.clone()).to_string().into();
        outbox.events.push(StampedEvent { seq: seq.0, kind: event.kind().into(), bot, line });
        if log.capacity > 0 {
            if log.lines.len() >= log.capacity {
                log.lines.remove(0);
            }
            log.lines.push(obj);
        }
    }
}

/// stdout gets the stdin channel's responses and every event, through the stdout thread. Lines
/// that do not fit in its queue (nobody reads stdout) are dropped and counted; once the queue has
/// room again a `stdout_overflow` event names the dropped `seq` range.
fn write_stdout(outbox: Res<Outbox>, stdout: Option<ResMut<Stdout>>, mut events: MessageWriter<AgentEvent>) {
    let Some(mut stdout) = stdout else { return };
    let stdout = &mut *stdout;
    if let Some(o) = stdout.overflow
        && stdout.writer.queued() <= stdout.writer.capacity() / 2
    {
        stdout.overflow = None;
        tracing::warn!(events = o.events, responses = o.responses, "stdout was not read in time; lines were dropped");
        events.write(AgentEvent::new(StdoutOverflow {
            dropped: o.events,
            first_seq: o.first_seq,
            last_seq: o.last_seq,
            responses: o.responses,
        }));
    }
    if outbox.events.is_empty() && outbox.responses.is_empty() {
        return;
    }
    // Only this system adds to the queue, so the room can only grow while the batch is built.
    let room = stdout.writer.room();
    let mut out = Vec::new();
    let mut dropped = Overflow::default();
    for resp in outbox.responses.iter().filter(|r| r.origin == STDIN_ORIGIN) {
        if out.len() + resp.line.len() < room {
            out.extend_from_slice(resp.line.as_bytes());
            out.push(b'\n');
        } else {
            dropped.responses += 1;
        }
    }
    for event in &outbox.events {
        if out.len() + event.line.len() < room {
            out.extend_from_slice(event.line.as_bytes());
            out.push(b'\n');
        } else {
            dropped.events += 1;
            dropped.first_seq.get_or_insert(event.seq);
            dropped.last_seq = Some(event.seq);
        }
    }
    if !out.is_empty() {
        let _ = stdout.writer.try_write(out);
    }
    if dropped.events + dropped.responses > 0 {
        let o = stdout.overflow.get_or_insert_with(Overflow::default);
        o.events += dropped.events;
        o.responses += dropped.responses;
        if o.first_seq.is_none() {
            o.first_seq = dropped.first_seq;
        }
        if dropped.last_seq.is_some() {
            o.last_seq = dropped.last_seq;
        }
    }
}

/// Appends `v` as one JSON line.
pub fn push_line(out: &mut Vec<u8>, v: &impl Serialize) {
    if serde_json::to_writer(&mut *out, v).is_ok() {
        out.push(b'\n');
    }
}

/// A lost or refused connection ends the process with code 2, after its event, once no bot is
/// left: every bot's connection is gone and none waits to reconnect. In a swarm one bot's loss
/// is an event, never an exit.
fn exit_when_disconnected(
    mut closed: MessageReader<ConnectionClosed>,
    policy: Res<ExitPolicy>,
    bots: Query<(&Lifecycle, Has<AwaitingReconnect>), With<LocalBot>>,
    mut exit: MessageWriter<AppExit>,
) {
    // Every close we see here was not ours (a polite shutdown closes without this message).
    if closed.read().count() == 0 || !policy.when_no_bots {
        return;
    }
    if bots.iter().all(|(lifecycle, returning)| *lifecycle == Lifecycle::Disconnected && !returning) {
        exit.write(AppExit::from_code(2));
    }
}
