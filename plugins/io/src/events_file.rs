//! The events file (`CLAWCRAFT_EVENTS`, default `./events.jsonl`): every event as one JSON line,
//! rotated to `<path>.1` when it grows over `CLAWCRAFT_MAX_EVENTS_MB`.
//!
//! Writing happens on a dedicated thread fed through a channel, so a slow disk never stalls the
//! tick. Rotation happens between two batches, so each event is in exactly one of the two files.
//! Readers ([`read_events`], [`Follower`]) read `.1` then the current file and filter by `seq`,
//! which (unlike a ms timestamp) is unique and increasing, so resuming never skips or repeats.
//! `seq` also continues across restarts: the plugin starts after the last `seq` in the file.

use std::fs::{File, OpenOptions};
use std::io::{BufRead, BufReader, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::thread::JoinHandle;

use bevy_app::{App, Last, Plugin};
use bevy_ecs::prelude::*;
use clawcraft_core::Interim;
use crossbeam_channel::Sender;
use serde_json::Value;

use crate::{EventSeq, IoSet, Outbox};

/// Where events go and when the file rotates.
#[derive(Debug, Clone, PartialEq)]
pub struct EventsFileSettings {
    pub path: PathBuf,
    /// Rotate to `.1` when the file would grow over this many bytes.
    pub max_bytes: u64,
}

impl EventsFileSettings {
    /// `max_mb` is a float like `CLAWCRAFT_MAX_EVENTS_MB` (5 → 5 MiB).
    pub fn new(path: impl Into<PathBuf>, max_mb: f64) -> Self {
        Self { path: path.into(), max_bytes: (max_mb.max(0.0) * 1024.0 * 1024.0) as u64 }
    }
}

/// The rotated file of `path`: `events.jsonl` → `events.jsonl.1`.
pub fn rotated_path(path: &Path) -> PathBuf {
    let mut s = path.as_os_str().to_owned();
    s.push(".1");
    PathBuf::from(s)
}

/// Batches (output passes) that may wait for the disk before new ones are dropped and counted.
/// Counted rather than a bounded channel's capacity: a bounded channel allocates (and touches)
/// all its slots up front, 256 KiB resident in every bot for a queue that is almost always empty.
const QUEUE_BATCHES: usize = 8192;

/// Appends events to the file on a dedicated thread and rotates it.
pub struct EventsFileWriter {
    tx: Option<Sender<Vec<u8>>>,
    /// Batches sent and not yet taken by the writer thread (at most [`QUEUE_BATCHES`]).
    queued: Arc<AtomicUsize>,
    thread: Option<JoinHandle<()>>,
    /// Batches refused because the disk did not keep up.
    dropped: u64,
}

impl EventsFileWriter {
    /// Opens (creating) the file, rotating it first if it is already over the limit.
    pub fn start(settings: EventsFileSettings) -> std::io::Result<Self> {
        let mut file = RotatingFile::open(settings)?;
        let (tx, rx) = crossbeam_channel::unbounded::<Vec<u8>>();
        let queued = Arc::new(AtomicUsize::new(0));
        let taken = Arc::clone(&queued);
        let thread = std::thread::Builder::new().name("clawcraft-events".into()).spawn(move || {
            while let Ok(mut batch) = rx.recv() {
                taken.fetch_sub(1, Ordering::AcqRel);
                // Take whatever else is queued: one write and flush per burst.
                while let Ok(more) = rx.try_recv() {
                    taken.fetch_sub(1, Ordering::AcqRel);
                    batch.extend_from_slice(&more);
                }
                if let Err(e) = file.append(&batch) {
                    tracing::warn!(error = %e, path = %file.settings.path.display(), "cannot write the events file");
                }
            }
        })?;
        Ok(Self { tx: Some(tx), queued, thread: Some(thread), dropped: 0 })
    }

    /// Queues complete lines (each ending in `\n`); never blocks. When the disk has fallen
    /// [`QUEUE_BATCHES`] passes behind, the batch is dropped and counted (logged).
    pub fn write(&mut self, lines: Vec<u8>) {
        let Some(tx) = &self.tx else { return };
        if self.queued.load(Ordering::Acquire) < QUEUE_BATCHES {
            self.queued.fetch_add(1, Ordering::AcqRel);
            if tx.send(lines).is_err() {
                // The writer thread is gone (it only ends when the sender is dropped).
                self.queued.fetch_sub(1, Ordering::AcqRel);
            }
        } else {
            self.dropped += 1;
            if self.dropped.is_power_of_two() {
                tracing::warn!(
                    dropped = self.dropped,
                    "the events file is not keeping up; events were dropped from it"
                );
            }
        }
    }

    /// Writes everything queued and stops the thread.
    pub fn close(&mut self) {
        self.tx = None;
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

impl Drop for EventsFileWriter {
    /// The app is dropped when the runner returns: the last events (`shutdown`) reach the disk.
    fn drop(&mut self) {
        self.close();
    }
}

/// The file being appended to, with its size for rotation.
struct RotatingFile {
    settings: EventsFileSettings,
    file: File,
    size: u64,
}

impl RotatingFile {
    fn open(settings: EventsFileSettings) -> std::io::Result<Self> {
        if let Some(dir) = settings.path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir)?;
        }
        let file = OpenOptions::new().create(true).append(true).open(&settings.path)?;
        let size = file.metadata()?.len();
        let mut f = Self { settings, file, size };
        if f.size > f.settings.max_bytes {
            f.rotate()?;
        }
        Ok(f)
    }

    /// Appends whole lines; rotates first when they would take the file over the limit (a file
    /// is never left empty by rotation, so one huge batch still lands somewhere).
    fn append(&mut self, batch: &[u8]) -> std::io::Result<()> {
        if self.size > 0 && self.size + batch.len() as u64 > self.settings.max_bytes {
            self.rotate()?;
        }
        self.file.write_all(batch)?;
        self.file.flush()?;
        self.size += batch.len() as u64;
        Ok(())
    }

    fn rotate(&mut self) -> std::io::Result<()> {
        std::fs::rename(&self.settings.path, rotated_path(&self.settings.path))?;
        self.file = OpenOptions::new().create(true).append(true).open(&self.settings.path)?;
        self.size = 0;
        Ok(())
    }
}

/// Writes every event to the events file.
pub struct EventsFilePlugin {
    pub settings: EventsFileSettings,
}

/// The running writer, as a resource (dropped with the app, which flushes it).
#[derive(Resource)]
pub struct EventsFile {
    pub settings: EventsFileSettings,
    writer: EventsFileWriter,
}

impl Plugin for EventsFilePlugin {
    fn build(&self, app: &mut App) {
        // Continue numbering after the file's last event so readers resuming by seq across a
        // restart neither skip nor repeat.
        let last = last_seq(&self.settings.path);
        let current = app.world().get_resource::<EventSeq>().map_or(0, |s| s.0);
        app.insert_resource(EventSeq(current.max(last)));
        match EventsFileWriter::start(self.settings.clone()) {
            Ok(writer) => {
                app.insert_resource(EventsFile { settings: self.settings.clone(), writer });
                app.add_systems(Last, write_events_file.in_set(IoSet::Route).in_set(clawcraft_core::gate::QuietAware))
                    .add_systems(Interim, write_events_file.in_set(IoSet::Route));
            }
            Err(e) => {
                tracing::error!(error = %e, path = %self.settings.path.display(), "cannot open the events file; events go to stdout only")
            }
        }
    }
}

fn write_events_file(outbox: Res<Outbox>, mut file: ResMut<EventsFile>) {
    if outbox.events.is_empty() {
        return;
    }
    let mut buf = Vec::with_capacity(outbox.events.iter().map(|e| e.line.len() + 1).sum());
    for e in &outbox.events {
        buf.extend_from_slice(e.line.as_bytes());
        buf.push(b'\n');
    }
    file.writer.write(buf);
}

/// The `seq` of the last event in the file (or its rotated file), 0 if none.
pub fn last_seq(path: &Path) -> u64 {
    [path.to_path_buf(), rotated_path(path)].iter().find_map(|p| last_seq_of(p)).unwrap_or(0)
}

/// Reads the tail of one file for its last `seq`.
fn last_seq_of(path: &Path) -> Option<u64> {
    let mut f = File::open(path).ok()?;
    let len = f.metadata().ok()?.len();
    let start = len.saturating_sub(64 * 1024);
    f.seek(SeekFrom::Start(start)).ok()?;
    let mut tail = Vec::new();
    f.read_to_end(&mut tail).ok()?;
    tail.split(|b| *b == b'\n')
        .rev()
        .filter_map(|l| serde_json::from_slice::<Value>(l).ok())
        .find_map(|v| v["seq"].as_u64())
}

/// Which events a reader wants.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Cursor {
    /// Everything in the files.
    #[default]
    All,
    /// Events with `seq` greater than this.
    AfterSeq(u64),
    /// Events with `timestamp` greater than this (ClawCraft's cursor; equal stamps may be lost).
    AfterMs(u64),
}

impl Cursor {
    /// Whether `event` is after the cursor.
    pub fn admits(&self, event: &Value) -> bool {
        match *self {
            Cursor::All => true,
            Cursor::AfterSeq(s) => event["seq"].as_u64().is_none_or(|q| q > s),
            Cursor::AfterMs(ms) => event["timestamp"].as_u64().is_none_or(|t| t > ms),
        }
    }
}

/// Every event in `.1` then the current file that `cursor` admits, in order. Unparsable lines
/// (a partly written last line) are skipped.
/// Whether the events file (or its rotated predecessor) can be read: an error naming the path
/// when neither exists or the one that exists cannot be opened. A reader tells "no file" from
/// "nothing happened yet" by it.
pub fn check_readable(path: &Path) -> Result<(), String> {
    let rotated = rotated_path(path);
    if !path.exists() && !rotated.exists() {
        return Err(format!(
            "no events file at {} (the bot writes it where CLAWCRAFT_EVENTS says; is it running from this directory?)",
            path.display()
        ));
    }
    for p in [rotated, path.to_path_buf()] {
        if p.exists()
            && let Err(e) = File::open(&p)
        {
            return Err(format!("cannot read the events file {}: {e}", p.display()));
        }
    }
    Ok(())
}

pub fn read_events(path: &Path, cursor: Cursor) -> Vec<Value> {
    let mut out = Vec::new();
    let mut last = 0;
    for p in [rotated_path(path), path.to_path_buf()] {
        let Ok(f) = File::open(&p) else { continue };
        for line in BufReader::new(f).split(b'\n').map_while(Result::ok) {
            let Ok(v) = serde_json::from_slice::<Value>(&line) else { continue };
            // A rename between the two opens can show an event twice; seq drops those.
            let seq = v["seq"].as_u64().unwrap_or(0);
            if seq != 0 && seq <= last {
                continue;
            }
            last = last.max(seq);
            if cursor.admits(&v) {
                out.push(v);
            }
        }
    }
    out
}

/// Follows the events file across rotations, yielding each event once, in `seq` order.
///
/// It holds the current file open: when the path is renamed to `.1` the open handle still reads
/// the rest of the old file; then `.1` is read again (in case two rotations happened between
/// polls), then the new file from its start, all filtered by the last `seq` seen.
pub struct Follower {
    path: PathBuf,
    cursor: Cursor,
    last_seq: u64,
    file: Option<(BufReader<File>, FileId)>,
    partial: Vec<u8>,
}

/// Identity of an open file, to notice rotation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct FileId {
    #[cfg(unix)]
    ino: u64,
    #[cfg(unix)]
    dev: u64,
}

fn file_id(meta: &std::fs::Metadata) -> FileId {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        FileId { ino: meta.ino(), dev: meta.dev() }
    }
    #[cfg(not(unix))]
    {
        let _ = meta;
        FileId {}
    }
}

impl Follower {
    /// Starts before everything the cursor admits; call [`poll`](Self::poll) repeatedly.
    pub fn new(path: impl Into<PathBuf>, cursor: Cursor) -> Self {
        let last_seq = if let Cursor::AfterSeq(s) = cursor { s } else { 0 };
        Self { path: path.into(), cursor, last_seq, file: None, partial: Vec::new() }
    }

    /// The last `seq` yielded (or the starting cursor).
    pub fn last_seq(&self) -> u64 {
        self.last_seq
    }

    /// New events since the last poll (empty when there are none yet).
    pub fn poll(&mut self) -> Vec<Value> {
        let mut out = Vec::new();
        if self.file.is_none() {
            // First poll: the rotated file, then open the current one.
            self.read_rotated(&mut out);
            self.open_current();
        }
        self.drain_open(&mut out);
        let on_disk = std::fs::metadata(&self.path).ok().map(|m| (file_id(&m), m.len()));
        let rotated = match (&self.file, on_disk) {
            (Some((r, id)), Some((disk_id, disk_len))) => {
                *id != disk_id || r.get_ref().metadata().map(|m| m.len()).unwrap_or(0) > disk_len
            }
            (None, Some(_)) => true,
            (_, None) => false,
        };
        if rotated {
            self.drain_open(&mut out);
            self.partial.clear();
            self.read_rotated(&mut out);
            self.open_current();
            self.drain_open(&mut out);
        }
        out
    }

    fn open_current(&mut self) {
        self.partial.clear();
        self.file =
            File::open(&self.path).ok().and_then(|f| f.metadata().ok().map(|m| (BufReader::new(f), file_id(&m))));
    }

    fn read_rotated(&mut self, out: &mut Vec<Value>) {
        let Ok(f) = File::open(rotated_path(&self.path)) else { return };
        for line in BufReader::new(f).split(b'\n').map_while(Result::ok) {
            self.accept(&line, out);
        }
    }

    /// Reads complete lines from the open file; a partial last line waits for its newline.
    fn drain_open(&mut self, out: &mut Vec<Value>) {
        let Some((reader, _)) = self.file.as_mut() else { return };
        let mut lines = Vec::new();
        loop {
            let mut buf = Vec::new();
            match reader.read_until(b'\n', &mut buf) {
                Ok(0) | Err(_) => break,
                Ok(_) => {
                    self.partial.extend_from_slice(&buf);
                    if self.partial.ends_with(b"\n") {
                        lines.push(std::mem::take(&mut self.partial));
                    }
                }
            }
        }
        for line in lines {
            self.accept(&line, out);
        }
    }

    fn accept(&mut self, line: &[u8], out: &mut Vec<Value>) {
        let Ok(v) = serde_json::from_slice::<Value>(line) else { return };
        let seq = v["seq"].as_u64().unwrap_or(0);
        if seq != 0 {
            if seq <= self.last_seq {
                return;
            }
            self.last_seq = seq;
        }
        if self.cursor.admits(&v) {
            out.push(v);
        }
    }
}
