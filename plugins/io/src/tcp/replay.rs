//! Reading a `watch` backlog from the events file, on a thread of its own so neither the game
//! loop nor the TCP I/O thread ever waits for the disk.

use std::fs::File;
use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::sync::Arc;

use crossbeam_channel::Receiver;
use serde::Deserialize;

use super::EventFilter;
use crate::events_file::rotated_path;

/// What a replay thread hands back.
pub(super) enum ReplayMsg {
    /// Whole event lines (each ending in `\n`), in `seq` order.
    Chunk(Vec<u8>),
    /// The file is read; `last` is the greatest `seq` sent (or the starting `since`).
    Done { last: u64 },
}

/// Bytes per chunk handed over.
const CHUNK: usize = 64 * 1024;

/// What the replay reads of each line.
#[derive(Deserialize)]
struct SeqAndType<'a> {
    seq: Option<u64>,
    #[serde(borrow, rename = "type")]
    kind: Option<std::borrow::Cow<'a, str>>,
    #[serde(borrow)]
    bot: Option<std::borrow::Cow<'a, str>>,
}

/// Starts reading events with `since < seq < until` (that `filter` admits) from `path`
/// (`.1` first) and returns the channel their lines come through. The channel is small: the thread waits while the I/O thread
/// has not taken what it read (a slow client slows its own replay), and ends when the receiver
/// is dropped (the client left).
pub(super) fn start(
    path: PathBuf,
    since: u64,
    until: u64,
    filter: EventFilter,
    waker: Arc<mio::Waker>,
) -> Receiver<ReplayMsg> {
    let (tx, rx) = crossbeam_channel::bounded(4);
    let spawned = std::thread::Builder::new().name("clawcraft-replay".into()).spawn(move || {
        let mut last = since;
        let mut chunk = Vec::with_capacity(CHUNK);
        for p in [rotated_path(&path), path] {
            let Ok(f) = File::open(&p) else { continue };
            for line in BufReader::new(f).split(b'\n').map_while(Result::ok) {
                let Ok(SeqAndType { seq: Some(seq), kind, bot }) = serde_json::from_slice(&line) else { continue };
                // A rename between the two opens can show an event twice; seq drops those.
                if seq <= last || seq >= until {
                    continue;
                }
                last = seq;
                if !filter.admits(kind.as_deref().unwrap_or(""), bot.as_deref()) {
                    continue;
                }
                chunk.extend_from_slice(&line);
                chunk.push(b'\n');
                if chunk.len() >= CHUNK {
                    if tx.send(ReplayMsg::Chunk(std::mem::take(&mut chunk))).is_err() {
                        return;
                    }
                    let _ = waker.wake();
                }
            }
        }
        if !chunk.is_empty() && tx.send(ReplayMsg::Chunk(chunk)).is_err() {
            return;
        }
        let _ = tx.send(ReplayMsg::Done { last });
        let _ = waker.wake();
    });
    if let Err(e) = spawned {
        tracing::warn!(error = %e, "cannot start a replay thread; the watcher gets the in-memory backlog only");
    }
    rx
}
