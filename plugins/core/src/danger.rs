//! How `danger` events are paced, shared by the plugins that raise them (hostile mobs in the
//! entity plugin, low health and hunger in the vitals plugin).
//!
//! - `change` (the default): a threat is reported when it appears (`new`), when it comes into a
//!   nearer zone (`closer`, mobs only), when it is over (`gone`), and, while it stays unchanged,
//!   again every [`DangerPolicy::repeat_ticks`] (`repeat`; 0 = never).
//! - `interval` (ClawCraft's behaviour): every threat present is reported every 5 s; no `closer`
//!   and no `gone`.

use bevy_ecs::prelude::*;

/// Ticks between two reports of one threat in `interval` mode (ClawCraft's 5 s).
pub const INTERVAL_TICKS: u64 = 100;

/// Default repeat of an unchanged threat in `change` mode: 30 s. Long enough that a mob pacing
/// next to the bot costs two or three lines a minute instead of twelve, short enough that an
/// agent reading only the last few events still learns the threat is there.
pub const DEFAULT_REPEAT_MS: u64 = 30_000;

/// Milliseconds per game tick.
const TICK_MS: u64 = 50;

/// When `danger` fires.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum DangerMode {
    /// On change: new, closer, gone, and a slow repeat.
    #[default]
    Change,
    /// Every 5 s per threat while present (ClawCraft).
    Interval,
}

impl DangerMode {
    /// `change` or `interval` (case-insensitive); anything else is `None`.
    pub fn parse(text: &str) -> Option<Self> {
        match text.trim().to_ascii_lowercase().as_str() {
            "change" => Some(Self::Change),
            "interval" => Some(Self::Interval),
            _ => None,
        }
    }
}

/// What a `danger` event reports, its `change` field.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DangerChange {
    /// The threat appeared (a mob came within range, a value crossed its threshold).
    New,
    /// A mob came into a nearer zone.
    Closer,
    /// The threat is over (the mob left the range or despawned, the value recovered).
    Gone,
    /// Unchanged, reported again.
    Repeat,
}

impl DangerChange {
    /// The JSON value.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::New => "new",
            Self::Closer => "closer",
            Self::Gone => "gone",
            Self::Repeat => "repeat",
        }
    }
}

/// The pacing of `danger`, for every bot of the process.
#[derive(Resource, Debug, Clone, Copy, PartialEq, Eq)]
pub struct DangerPolicy {
    pub mode: DangerMode,
    /// `change` mode: ticks before an unchanged threat is reported again; 0 = never.
    pub repeat_ticks: u64,
}

impl Default for DangerPolicy {
    fn default() -> Self {
        Self::new(DangerMode::Change, DEFAULT_REPEAT_MS)
    }
}

impl DangerPolicy {
    /// A policy repeating every `repeat_ms` (rounded up to whole ticks; 0 = never).
    pub fn new(mode: DangerMode, repeat_ms: u64) -> Self {
        Self { mode, repeat_ticks: repeat_ms.div_ceil(TICK_MS) }
    }

    /// `CLAWCRAFT_DANGER_MODE` and `CLAWCRAFT_DANGER_REPEAT_MS`; unset or unreadable values keep
    /// the defaults (the binary's flag parser rejects bad values before this is used).
    pub fn from_env() -> Self {
        let var = |k: &str| std::env::var(k).ok();
        let mode = var("CLAWCRAFT_DANGER_MODE").and_then(|m| DangerMode::parse(&m)).unwrap_or_default();
        let repeat = var("CLAWCRAFT_DANGER_REPEAT_MS").and_then(|m| m.trim().parse().ok()).unwrap_or(DEFAULT_REPEAT_MS);
        Self::new(mode, repeat)
    }

    /// Whether a threat last reported at `last_at` is due for a `repeat` at `tick`.
    pub fn repeat_due(&self, last_at: u64, tick: u64) -> bool {
        self.repeat_ticks > 0 && tick >= last_at.saturating_add(self.repeat_ticks)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn modes_parse_and_repeats_round_up_to_ticks() {
        assert_eq!(DangerMode::parse(" Interval "), Some(DangerMode::Interval));
        assert_eq!(DangerMode::parse("change"), Some(DangerMode::Change));
        assert_eq!(DangerMode::parse("often"), None);
        assert_eq!(DangerPolicy::default().repeat_ticks, 600);
        assert_eq!(DangerPolicy::new(DangerMode::Change, 1).repeat_ticks, 1);
        let never = DangerPolicy::new(DangerMode::Change, 0);
        assert!(!never.repeat_due(0, u64::MAX));
        let p = DangerPolicy::new(DangerMode::Change, 1000);
        assert!(!p.repeat_due(10, 29) && p.repeat_due(10, 30));
    }
}
