//! Once a bot spawned, give back the memory start-up needed and an idle bot never touches again.
//!
//! Why: the kernel maps an executable's code 64 KiB around each first touch and keeps it mapped,
//! so the code that ran once — argument parsing, login, StartGame, the item registry, the first
//! chunks — stays in the process's resident set: about half of an idle bot's, of which an idle tick runs
//! a small fraction. Unmapping the executable's code once the bot spawned drops it from
//! the resident set; the page cache keeps it, so code that runs later (a command's first use,
//! a chunk decode) maps back with a minor fault, no disk read. glibc's `malloc_trim` hands the
//! heap's free pages (what start-up's decoding peaks left) back the same way.
//!
//! [`FootprintPlugin`] schedules it [`SETTLE_TICKS`] after a bot becomes `Spawned` (again after
//! a reconnect), when the spawn's burst of chunks and entities has been handled; the runner
//! ([`crate::run_ticks`]) does it between two ticks, so no system reads a file.
//! `CLAWCRAFT_KEEP_STARTUP_PAGES=1` turns it off (to measure the difference).

use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};

use bevy_app::{App, Plugin};
use bevy_ecs::prelude::*;
use clawcraft_core::{Lifecycle, TickWork};

/// Ticks from a spawn to the release (10 s).
pub const SETTLE_TICKS: u32 = 200;

/// Schedules the release of start-up pages after a spawn (see the [module](self) docs).
pub struct FootprintPlugin;

impl Plugin for FootprintPlugin {
    fn build(&self, app: &mut App) {
        if std::env::var_os("CLAWCRAFT_KEEP_STARTUP_PAGES").is_some_and(|v| !v.is_empty() && v != "0") {
            return;
        }
        app.init_resource::<StartupPages>().add_systems(TickWork, schedule_release);
    }
}

/// Ticks left until the runner releases start-up pages (0: nothing scheduled). Shared with the
/// runner, which reads it once per tick without a world look-up.
#[derive(Resource, Clone, Default)]
pub struct StartupPages(Arc<AtomicU32>);

impl StartupPages {
    /// Counts one tick down; `true` in the tick the release is due.
    pub fn tick(&self) -> bool {
        self.0.load(Ordering::Relaxed) != 0 && self.0.fetch_sub(1, Ordering::Relaxed) == 1
    }

    fn schedule(&self, ticks: u32) {
        self.0.store(ticks, Ordering::Relaxed);
    }
}

fn schedule_release(bots: Query<'_, '_, &Lifecycle, Changed<Lifecycle>>, pages: Res<'_, StartupPages>) {
    if bots.iter().any(|l| *l == Lifecycle::Spawned) {
        pages.schedule(SETTLE_TICKS);
    }
}

/// What [`release_startup_pages`] did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Released {
    /// Bytes of the executable's code mappings unmapped (resident or not).
    pub code_bytes: usize,
    /// Whether `malloc_trim` returned memory to the system.
    pub heap_trimmed: bool,
}

/// Unmaps the executable's code from this process (it maps back on use) and trims the heap.
/// Linux only; elsewhere it does nothing.
pub fn release_startup_pages() -> Released {
    let mut released = Released::default();
    #[cfg(target_os = "linux")]
    {
        if let Some(ranges) = exe_code_ranges() {
            for (start, end) in ranges {
                if unmap_code(start, end - start) {
                    released.code_bytes += end - start;
                }
            }
        }
        released.heap_trimmed = trim_heap();
    }
    released
}

/// The executable's code mappings (`r-xp`, backed by the file `/proc/self/exe` names), from
/// `/proc/self/maps`. `None` when either cannot be read, or the file was replaced since start
/// (its mappings then name a deleted file, and their pages could no longer be read back).
#[cfg(target_os = "linux")]
fn exe_code_ranges() -> Option<Vec<(usize, usize)>> {
    let exe = std::fs::read_link("/proc/self/exe").ok()?;
    let exe = exe.to_str().filter(|path| !path.ends_with(" (deleted)"))?;
    let maps = std::fs::read_to_string("/proc/self/maps").ok()?;
    Some(code_ranges(&maps, exe))
}

/// The `r-xp` mappings of `path` in `maps` (the format of `/proc/PID/maps`).
fn code_ranges(maps: &str, path: &str) -> Vec<(usize, usize)> {
    maps.lines()
        .filter_map(|line| {
            // "start-end perms offset dev inode    path"
            let mut fields = line.splitn(6, ' ');
            let (range, perms) = (fields.next()?, fields.next()?);
            let name = fields.nth(3)?.trim_start();
            (perms == "r-xp" && name == path).then_some(())?;
            let (start, end) = range.split_once('-')?;
            let (start, end) = (usize::from_str_radix(start, 16).ok()?, usize::from_str_radix(end, 16).ok()?);
            (end > start).then_some((start, end))
        })
        .collect()
}

/// `madvise(MADV_DONTNEED)` on a private, read-only, executable file mapping.
#[cfg(target_os = "linux")]
#[allow(unsafe_code)]
fn unmap_code(start: usize, len: usize) -> bool {
    // SAFETY: `start..start + len` is one of this process's `r-xp` mappings of its own
    // executable, read from /proc/self/maps: a private file mapping nothing writes (code is not
    // relocated, and it is not writable). MADV_DONTNEED on a private file mapping drops the
    // pages from the page tables; the next access maps the same bytes back from the file (only
    // private modifications would be lost, and there are none). No Rust reference points into
    // code, and threads running it just fault it back in.
    unsafe { libc::madvise(start as *mut libc::c_void, len, libc::MADV_DONTNEED) == 0 }
}

/// glibc's `malloc_trim(0)`: free heap pages back to the system.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
#[allow(unsafe_code)]
fn trim_heap() -> bool {
    // SAFETY: malloc_trim takes no pointers; it only releases free memory of glibc's heap,
    // which is the global allocator here (Rust's default `System` on linux-gnu).
    unsafe { libc::malloc_trim(0) == 1 }
}

#[cfg(all(target_os = "linux", not(target_env = "gnu")))]
fn trim_heap() -> bool {
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A spawn schedules the release SETTLE_TICKS later, once; nothing before it.
    #[test]
    fn a_spawn_schedules_one_release_after_the_settling_ticks() {
        let mut app = App::new();
        app.add_schedule(bevy_ecs::schedule::Schedule::new(TickWork)).add_plugins(FootprintPlugin);
        let pages = app.world().resource::<StartupPages>().clone();
        let bot = app.world_mut().spawn(Lifecycle::Connecting).id();
        app.world_mut().run_schedule(TickWork);
        assert!(!pages.tick(), "nothing scheduled while connecting");
        *app.world_mut().get_mut::<Lifecycle>(bot).expect("bot") = Lifecycle::Spawned;
        app.world_mut().run_schedule(TickWork);
        let due: Vec<u32> = (1..=SETTLE_TICKS + 50).filter(|_| pages.tick()).collect();
        assert_eq!(due, vec![SETTLE_TICKS], "released once, {SETTLE_TICKS} ticks after the spawn");
        app.world_mut().run_schedule(TickWork);
        assert!(!pages.tick(), "an unchanged bot schedules nothing again");
    }

    const MAPS: &str = "\
55d0c0a00000-55d0c0a73000 r--p 00000000 fd:01 1234                       /opt/clawcraft
55d0c0a73000-55d0c15cf000 r-xp 00073000 fd:01 1234                       /opt/clawcraft
55d0c15cf000-55d0c1620000 r--p 00bcf000 fd:01 1234                       /opt/clawcraft
7f0000000000-7f0000100000 r-xp 00028000 fd:01 99                         /usr/lib/x86_64-linux-gnu/libc.so.6
7f0000200000-7f0000300000 r-xp 00000000 fd:01 1235                       /opt/clawcraft (deleted)
7ffd00000000-7ffd00021000 rw-p 00000000 00:00 0                          [stack]
garbage line
";

    #[test]
    fn finds_only_the_executables_code() {
        assert_eq!(code_ranges(MAPS, "/opt/clawcraft"), vec![(0x55d0c0a73000, 0x55d0c15cf000)]);
        assert!(code_ranges(MAPS, "/opt/other").is_empty());
        assert!(code_ranges("", "/opt/clawcraft").is_empty());
    }

    #[cfg(target_os = "linux")]
    fn rss_file_kib() -> u64 {
        let status = std::fs::read_to_string("/proc/self/status").expect("status");
        let line = status.lines().find(|l| l.starts_with("RssFile:")).expect("RssFile line");
        line.split_whitespace().nth(1).and_then(|v| v.parse().ok()).expect("RssFile value")
    }

    /// The code pages leave the resident set, and the code still runs afterwards.
    #[cfg(target_os = "linux")]
    #[test]
    fn releases_code_pages_and_keeps_running() {
        let before = rss_file_kib();
        let released = release_startup_pages();
        let after = rss_file_kib();
        assert!(released.code_bytes > 0, "{released:?}");
        assert!(after < before, "file-backed RSS {before} KiB -> {after} KiB");
        // Code runs again after its pages went (this test's own, the parser's, std's).
        assert_eq!(code_ranges(MAPS, "/opt/clawcraft").len(), 1);
        assert_eq!(format!("{:?}", (1..4).collect::<Vec<_>>()), "[1, 2, 3]");
    }
}
