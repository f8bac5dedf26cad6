//! `clawcraft events --follow` across rotations of a busy events file: every seq exactly once.

use crate::common;

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

#[test]
fn events_type_filters_before_last_and_warns_about_unknown_names() {
    let dir = TempDir::new("types");
    let path = dir.path().join("events.jsonl");
    let path_s = path.to_string_lossy().into_owned();
    let kinds = ["danger", "msg", "time", "danger", "block_changed", "danger", "msg", "time"];
    let lines: String = kinds
        .iter()
        .enumerate()
        .map(|(i, kind)| format!("{}\n", json!({"type": kind, "timestamp": 1000 + i, "seq": i + 1})))
        .collect();
    std::fs::write(&path, lines).expect("events file");

    let out = common::run_tool(&["events", "--type", "danger,msgg", "--last", "2"], &[("CLAWCRAFT_EVENTS", &path_s)]);
    assert!(out.status.success(), "{out:?}");
    let got: Value = serde_json::from_slice(&out.stdout).expect("a JSON array on stdout");
    let seqs: Vec<u64> = got.as_array().expect("array").iter().filter_map(|e| e["seq"].as_u64()).collect();
    assert_eq!(seqs, [4, 6], "the last two dangers, not the last two events");
    let stderr = String::from_utf8_lossy(&out.stderr);
    let warning = stderr
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .find(|v| v["type"] == "warning")
        .unwrap_or_else(|| panic!("a warning on stderr: {stderr}"));
    assert_eq!(warning["warning"], "unknown event type \"msgg\" (did you mean: msg)");

    // Known names only: no warning; several types keep their order.
    let out = common::run_tool(&["events", "--type", "msg,time", "--since", "2"], &[("CLAWCRAFT_EVENTS", &path_s)]);
    let got: Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let seqs: Vec<u64> = got.as_array().expect("array").iter().filter_map(|e| e["seq"].as_u64()).collect();
    assert_eq!(seqs, [3, 7, 8]);
    assert!(!String::from_utf8_lossy(&out.stderr).contains("warning"), "{out:?}");
}

#[test]
fn events_on_a_missing_file_is_an_error_naming_the_path() {
    let dir = TempDir::new("missing");
    let path = dir.path().join("nowhere.jsonl");
    let path_s = path.to_string_lossy().into_owned();
    let out = common::run_tool(&["events"], &[("CLAWCRAFT_EVENTS", &path_s)]);
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    assert!(out.stdout.is_empty(), "no `[]` that reads as \"nothing happened\"");
    let err: Value = serde_json::from_slice(&out.stderr).expect("a JSON error on stderr");
    assert_eq!(err["code"], "NO_EVENTS_FILE");
    assert!(err["error"].as_str().is_some_and(|e| e.contains(&path_s)), "{err}");

    // An empty file that exists is "nothing happened yet".
    std::fs::write(&path, "").expect("empty events file");
    let out = common::run_tool(&["events"], &[("CLAWCRAFT_EVENTS", &path_s)]);
    assert!(out.status.success(), "{out:?}");
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "[]");
}
