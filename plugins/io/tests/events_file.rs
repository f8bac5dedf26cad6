//! The events file under load: rotation loses and repeats nothing, for a reader following by seq.

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use clawcraft_io::events_file::{
    Cursor, EventsFileSettings, EventsFileWriter, Follower, last_seq, read_events, rotated_path,
};
use serde_json::json;

fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("clawcraft-io-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir
}

fn event_line(seq: u64) -> String {
    format!(
        "{}\n",
        json!({"type": "tick_test", "timestamp": 1_700_000_000_000u64 + seq / 7, "seq": seq, "pad": "x".repeat(40)})
    )
}

#[test]
fn rotation_under_load_keeps_every_event_exactly_once_for_a_follower() {
    let dir = temp_dir("rotation");
    let path = dir.join("events.jsonl");
    const TOTAL: u64 = 6_000;
    // 0.01 MiB ≈ 10 KiB ≈ 100 events per file: dozens of rotations during the run.
    let mut writer = EventsFileWriter::start(EventsFileSettings::new(&path, 0.01)).expect("writer");

    let done = Arc::new(AtomicBool::new(false));
    // The last seq the follower has read. Two files are kept, so a follower more than two
    // rotations behind has lost events for good (that is the file's size limit, not a bug);
    // the writer waits for it to stay within ~1.2 files, however the machine schedules it.
    let seen = Arc::new(AtomicU64::new(0));
    let follower = {
        let (path, done, seen) = (path.clone(), done.clone(), seen.clone());
        std::thread::spawn(move || {
            let mut f = Follower::new(&path, Cursor::All);
            let mut seqs = Vec::new();
            let deadline = Instant::now() + Duration::from_secs(60);
            loop {
                let batch = f.poll();
                let finished = done.load(Ordering::SeqCst);
                seqs.extend(batch.iter().map(|v| v["seq"].as_u64().expect("seq")));
                seen.store(seqs.last().copied().unwrap_or(0), Ordering::SeqCst);
                if seqs.last() == Some(&TOTAL) || Instant::now() > deadline {
                    return seqs;
                }
                if batch.is_empty() && !finished {
                    std::thread::sleep(Duration::from_millis(1));
                }
            }
        })
    };

    // Batches of varying size, as ticks produce them.
    let mut seq = 0;
    let deadline = Instant::now() + Duration::from_secs(60);
    while seq < TOTAL {
        while seq > seen.load(Ordering::SeqCst) + 120 && Instant::now() < deadline {
            std::thread::sleep(Duration::from_micros(200));
        }
        let n = 1 + (seq % 13);
        let mut batch = String::new();
        for _ in 0..n {
            if seq == TOTAL {
                break;
            }
            seq += 1;
            batch.push_str(&event_line(seq));
        }
        writer.write(batch.into_bytes());
        // Up to 10 000 events/s, 100 rotations/s: far above a bot's rate; a follower polling
        // every few ms sees rotations between its polls (it copes with two).
        std::thread::sleep(Duration::from_micros(700));
    }
    writer.close();
    done.store(true, Ordering::SeqCst);

    let seqs = follower.join().expect("follower thread");
    let expected: Vec<u64> = (1..=TOTAL).collect();
    assert_eq!(
        seqs.len(),
        expected.len(),
        "every event once (first missing: {:?})",
        expected.iter().find(|s| !seqs.contains(s))
    );
    assert_eq!(seqs, expected, "in order, no gaps, no repeats");

    // Each event lives in exactly one of the two files; they are contiguous and under the limit.
    let all = read_events(&path, Cursor::All);
    let on_disk: Vec<u64> = all.iter().map(|v| v["seq"].as_u64().expect("seq")).collect();
    assert_eq!(on_disk.last(), Some(&TOTAL));
    assert!(on_disk.windows(2).all(|w| w[1] == w[0] + 1), "the two files hold a contiguous run");
    let limit = (0.01 * 1024.0 * 1024.0) as u64;
    assert!(std::fs::metadata(rotated_path(&path)).expect(".1 exists").len() <= limit + 1024);
    assert_eq!(last_seq(&path), TOTAL, "a restart continues after the last seq");

    // Cursors: by seq (lossless) and by ms (ClawCraft's).
    let after = read_events(&path, Cursor::AfterSeq(TOTAL - 5));
    assert_eq!(
        after.iter().map(|v| v["seq"].as_u64().unwrap_or(0)).collect::<Vec<_>>(),
        (TOTAL - 4..=TOTAL).collect::<Vec<_>>()
    );
    let ms = read_events(&path, Cursor::AfterMs(1_700_000_000_000 + (TOTAL - 20) / 7));
    assert!(!ms.is_empty() && ms.len() < 30);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_follower_resuming_by_seq_skips_what_it_saw() {
    let dir = temp_dir("resume");
    let path = dir.join("events.jsonl");
    let mut writer = EventsFileWriter::start(EventsFileSettings::new(&path, 5.0)).expect("writer");
    writer.write((1..=10).map(event_line).collect::<String>().into_bytes());
    writer.close();
    let mut f = Follower::new(&path, Cursor::AfterSeq(7));
    let got: Vec<u64> = f.poll().iter().map(|v| v["seq"].as_u64().unwrap_or(0)).collect();
    assert_eq!(got, vec![8, 9, 10]);
    assert!(f.poll().is_empty(), "nothing twice");
    assert_eq!(f.last_seq(), 10);
    let _ = std::fs::remove_dir_all(&dir);
}
