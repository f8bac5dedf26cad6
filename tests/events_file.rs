//! `clawcraft events --follow` across rotations of a busy events file: every seq exactly once.

mod common;

use std::time::Duration;

use clawcraft_io::events_file::{EventsFileSettings, EventsFileWriter, rotated_path};
use common::{TempDir, spawn_tool, wait_value};
use serde_json::{Value, json};

#[test]
fn follow_survives_rotation_under_load() {
    let dir = TempDir::new("follow");
    let path = dir.path().join("events.jsonl");
    let path_s = path.to_string_lossy().into_owned();
    const TOTAL: u64 = 3_000;
    // 0.03 MiB holds ~300 of these events: ten rotations, one every ~0.3 s at 1 000 events/s
    // (the follower bridges up to two rotations between its polls).
    let mut writer = EventsFileWriter::start(EventsFileSettings::new(&path, 0.03)).expect("writer");
    writer.write(format!("{}\n", json!({"type": "startup", "timestamp": 1, "seq": 1})).into_bytes());
    let (mut child, lines) = spawn_tool(&["events", "--follow", "--since", "0"], &[("CLAWCRAFT_EVENTS", &path_s)]);
    wait_value(&lines, |v| v["seq"] == 1, Duration::from_secs(10)).expect("the follower started");

    for seq in 2..=TOTAL {
        let line = json!({"type": "load", "timestamp": 1_700_000_000_000u64 + seq, "seq": seq, "pad": "y".repeat(40)});
        writer.write(format!("{line}\n").into_bytes());
        if seq % 5 == 0 {
            std::thread::sleep(Duration::from_millis(5));
        }
    }
    writer.close();
    assert!(rotated_path(&path).exists(), "the file rotated");

    let mut seqs = vec![1];
    while seqs.last() != Some(&TOTAL) {
        let v: Value = wait_value(&lines, |_| true, Duration::from_secs(10)).expect("a line per event");
        seqs.push(v["seq"].as_u64().expect("seq"));
    }
    let _ = child.kill();
    let _ = child.wait();
    assert_eq!(seqs, (1..=TOTAL).collect::<Vec<_>>(), "every seq once, in order");
}
