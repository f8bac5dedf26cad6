//! How fast and where an entity is moving, for `nearby`.
//!
//! Two sources: the velocity of the server's last SetEntityMotion when it came within the last
//! [`MOTION_WINDOW`] ticks (servers send it for knockback, jumps, falls and projectiles), else
//! the entity's displacement over the [`MOTION_WINDOW`] ticks up to its latest position update
//! (MoveEntity, MoveEntityDelta, MovePlayer: a walking mob is usually only moved). An entity
//! whose position has not changed for [`MOTION_WINDOW`] ticks is still.

use std::collections::VecDeque;

use bevy_ecs::prelude::*;
use clawcraft_core::Vec3;

/// Ticks (0.5 s) over which a velocity is measured, and for which a SetEntityMotion counts.
pub const MOTION_WINDOW: u64 = 10;
/// Below this speed (blocks/s) an entity counts as still, and below this horizontal speed it has
/// no heading.
pub const STILL_SPEED: f64 = 0.1;
/// Samples kept at most (one per tick suffices; a flood of packets cannot grow it).
const MAX_SAMPLES: usize = MOTION_WINDOW as usize + 2;

/// Recent positions of an entity and when the server last sent its motion.
#[derive(Component, Debug, Clone, Default, PartialEq)]
pub struct MotionTrack {
    /// `(tick, feet position)` per tick with a position update, oldest first: every one of the
    /// last [`MOTION_WINDOW`] ticks plus the last one before them (where it was at the window's
    /// start).
    samples: VecDeque<(u64, Vec3)>,
    /// Tick of the last SetEntityMotion.
    motion_at: Option<u64>,
}

impl MotionTrack {
    /// Starts with the position the entity was added at.
    pub fn at(tick: u64, pos: Vec3) -> Self {
        let mut t = Self::default();
        t.moved(tick, pos);
        t
    }

    /// Records the position after an update at `tick` (the last update of a tick wins).
    pub fn moved(&mut self, tick: u64, pos: Vec3) {
        match self.samples.back_mut() {
            Some(last) if last.0 == tick => last.1 = pos,
            _ => self.samples.push_back((tick, pos)),
        }
        let window_start = tick.saturating_sub(MOTION_WINDOW);
        while self.samples.len() > MAX_SAMPLES || self.samples.get(1).is_some_and(|s| s.0 <= window_start) {
            self.samples.pop_front();
        }
    }

    /// Records that a SetEntityMotion arrived at `tick`.
    pub fn motion_sent(&mut self, tick: u64) {
        self.motion_at = Some(tick);
    }

    /// Velocity in blocks/s at `now`: `sent` (blocks/tick, the last SetEntityMotion) when it is
    /// recent, else the average over the [`MOTION_WINDOW`] ticks up to the latest position
    /// update (so a query between two updates of a walking mob does not halve its speed).
    /// `None` when still.
    pub fn velocity(&self, sent: Vec3, now: u64) -> Option<Vec3> {
        let per_second = if self.motion_at.is_some_and(|t| now < t + MOTION_WINDOW) {
            scale(sent, 20.0)
        } else {
            self.displacement_velocity(now)?
        };
        (per_second.distance(Vec3::ZERO) >= STILL_SPEED).then_some(per_second)
    }

    /// Displacement over the window ending at the latest update (or since the first known
    /// position, if later) over the time it took; `None` when the latest update is a window old.
    fn displacement_velocity(&self, now: u64) -> Option<Vec3> {
        let &(latest, current) = self.samples.back()?;
        if now >= latest + MOTION_WINDOW {
            return None;
        }
        let window_start = latest.saturating_sub(MOTION_WINDOW);
        // Positions only change with updates, so where it was at `window_start` is the last
        // sample at or before it.
        let (from_tick, from) = match self.samples.iter().rev().find(|s| s.0 <= window_start) {
            Some(&(_, p)) => (window_start, p),
            None => *self.samples.front()?,
        };
        let ticks = latest.checked_sub(from_tick).filter(|t| *t > 0)?;
        let moved = Vec3::new(current.x - from.x, current.y - from.y, current.z - from.z);
        Some(scale(moved, 20.0 / ticks as f64))
    }
}

fn scale(v: Vec3, k: f64) -> Vec3 {
    Vec3::new(v.x * k, v.y * k, v.z * k)
}

/// The 8-point compass direction of a horizontal movement (north is -Z, east is +X, as on
/// Minecraft's F3 screen); `None` when it barely moves horizontally.
pub fn heading(velocity: Vec3) -> Option<&'static str> {
    const POINTS: [&str; 8] = ["N", "NE", "E", "SE", "S", "SW", "W", "NW"];
    if velocity.x.hypot(velocity.z) < STILL_SPEED {
        return None;
    }
    let degrees = velocity.x.atan2(-velocity.z).to_degrees().rem_euclid(360.0);
    Some(POINTS[((degrees / 45.0).round() as usize) % 8])
}

/// Rounds a velocity for output (0.01 blocks/s).
pub fn round_velocity(v: Vec3) -> Vec3 {
    let r = |c: f64| (c * 100.0).round() / 100.0 + 0.0;
    Vec3::new(r(v.x), r(v.y), r(v.z))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headings_follow_the_compass() {
        let h = |x, z| heading(Vec3::new(x, 0.0, z));
        assert_eq!(
            (h(0.0, -1.0), h(1.0, 0.0), h(0.0, 1.0), h(-1.0, 0.0)),
            (Some("N"), Some("E"), Some("S"), Some("W"))
        );
        assert_eq!((h(1.0, -1.0), h(-1.0, 1.0)), (Some("NE"), Some("SW")));
        assert_eq!(heading(Vec3::new(0.0, -3.0, 0.05)), None, "falling straight down has no heading");
    }

    #[test]
    fn velocity_averages_the_window_and_prefers_a_recent_motion_packet() {
        let mut t = MotionTrack::at(0, Vec3::new(0.0, 0.0, 0.0));
        assert_eq!(t.velocity(Vec3::default(), 0), None, "one position: still");
        for tick in 1..=20 {
            t.moved(tick, Vec3::new(0.2 * tick as f64, 0.0, 0.0));
        }
        let v = t.velocity(Vec3::default(), 20).expect("moving");
        assert!((v.x - 4.0).abs() < 1e-9 && v.z == 0.0, "{v:?}");
        assert!(t.samples.len() <= MAX_SAMPLES);
        // It stopped at tick 20: the last movement counts for a window, then it is still.
        assert!((t.velocity(Vec3::default(), 29).expect("just stopped").x - 4.0).abs() < 1e-9);
        assert_eq!(t.velocity(Vec3::default(), 30), None);
        // A step after a pause: the pause counts (where it was at the window's start).
        t.moved(40, Vec3::new(5.0, 0.0, 0.0));
        assert!((t.velocity(Vec3::default(), 41).expect("stepped").x - 2.0).abs() < 1e-9);
        t.motion_sent(60);
        let v = t.velocity(Vec3::new(0.0, 0.5, 0.0), 61).expect("knocked up");
        assert!((v.y - 10.0).abs() < 1e-9, "{v:?}");
        assert_eq!(t.velocity(Vec3::new(0.0, 0.5, 0.0), 70), None, "the motion packet is stale");
    }
}
