//! Once spawned and settled, a bot gives back the code pages start-up used (issue #14's idle
//! footprint, `src/footprint.rs`): its file-backed resident memory falls about `SETTLE_TICKS`
//! after spawn, it keeps answering, and a bot told to keep the pages keeps them.

mod common;

use std::time::{Duration, Instant};

use common::{Bot, Peer};
use serde_json::json;

const SPAWN: Duration = Duration::from_secs(30);
/// The release is due 10 s after spawn; a slow machine may take longer to get there.
const RELEASE: Duration = Duration::from_secs(40);
const STEP: Duration = Duration::from_secs(10);

/// File-backed resident memory of `pid`, in KiB.
fn rss_file_kib(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).expect("bot's /proc status");
    status
        .lines()
        .find_map(|l| l.strip_prefix("RssFile:"))
        .and_then(|v| v.split_whitespace().next()?.parse().ok())
        .expect("RssFile in /proc status")
}

#[test]
fn a_settled_bot_releases_its_start_up_code_pages() {
    let peer = Peer::start("flat");
    // The control first: it keeps its pages, and it is settled before the other bot releases.
    let mut keeper = Bot::start_with(peer.port, "Keeper", &[("CLAWCRAFT_KEEP_STARTUP_PAGES", "1")]);
    keeper.wait_event("spawn", SPAWN).expect("control bot spawned");
    let keeper_after_spawn = rss_file_kib(keeper.pid());

    let mut bot = Bot::start(peer.port, "Lean");
    bot.wait_event("spawn", SPAWN).expect("bot spawned");
    let after_spawn = rss_file_kib(bot.pid());
    let start = Instant::now();
    let mut now = after_spawn;
    while now * 10 > after_spawn * 7 && start.elapsed() < RELEASE {
        std::thread::sleep(Duration::from_millis(100));
        now = rss_file_kib(bot.pid());
    }
    eprintln!(
        "file-backed RSS: released {after_spawn} -> {now} KiB after {:?}; kept {keeper_after_spawn} -> {} KiB",
        start.elapsed(),
        rss_file_kib(keeper.pid())
    );
    assert!(now * 10 <= after_spawn * 7, "file-backed RSS fell by 30 %: {after_spawn} -> {now} KiB");
    assert!(start.elapsed() >= Duration::from_secs(5), "not before the bot settled ({:?})", start.elapsed());
    let kept = rss_file_kib(keeper.pid());
    assert!(kept * 10 >= keeper_after_spawn * 9, "the control kept its pages: {keeper_after_spawn} -> {kept} KiB");

    // Code that runs after the release maps back: both bots still answer.
    for b in [&mut bot, &mut keeper] {
        let status = b.request(json!({"action": "status"}), STEP).expect("status after the release");
        assert_eq!(status["state"], "spawned", "{status}");
        let pos = b.request(json!({"action": "pos"}), STEP).expect("pos after the release");
        assert!(pos["pos"]["y"].is_number(), "{pos}");
    }
}
