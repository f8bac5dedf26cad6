//! Float32 trigonometry as the client computes it.
//!
//! The client keeps a 65 536-entry sine table for view vectors and the sprint-jump push, and calls
//! the C runtime's `sinf`/`cosf` to rotate the move input. Both are reproduced here with a double
//! precision sine of the float32 argument, rounded to float32: the correctly rounded value, which
//! differs from the runtime's own routine by one float32 step on a small share of angles (the
//! replay tally in the crate docs counts what that costs).

use crate::Vec3;

/// Degrees to radians, as the float32 constant the client uses.
pub const DEG_TO_RAD: f32 = 0.017_453_292;
/// Table steps per radian (65536 / 2π) as a float32.
const TABLE_STEPS_PER_RADIAN: f32 = 10_430.378;
/// A quarter turn in table steps.
const QUARTER_TURN: f32 = 16_384.0;
/// π as a float32.
const PI_F32: f32 = std::f32::consts::PI;

/// Entry `index` (0..65 536) of the client's sine table: the sine of the float32
/// `index / 10430.378`. Computed per call (a few per tick) instead of keeping the 256 KiB table
/// resident; the value is the same the table would hold.
#[inline]
fn table_entry(index: u16) -> f32 {
    // The index divided in double precision and rounded once, as the table is defined.
    let angle = (f64::from(index) / f64::from(TABLE_STEPS_PER_RADIAN)) as f32;
    f64::from(angle).sin() as f32
}

/// The table entry of a scaled angle: truncated toward zero to an index, wrapped to the table.
#[inline]
fn table_at(scaled: f32) -> f32 {
    // `as i32` truncates toward zero like the client's conversion; angles stay far below 2^31.
    table_entry((scaled as i32 & 0xFFFF) as u16)
}

/// Table sine of an angle in radians.
#[inline]
pub fn table_sin_rad(radians: f32) -> f32 {
    table_at(radians * TABLE_STEPS_PER_RADIAN)
}

/// Table cosine of an angle in radians (the quarter turn is added before the truncation).
#[inline]
pub fn table_cos_rad(radians: f32) -> f32 {
    table_at(radians * TABLE_STEPS_PER_RADIAN + QUARTER_TURN)
}

/// The runtime sine and cosine of an angle in degrees (the move input's rotation).
#[inline]
pub fn sin_cos_deg(degrees: f32) -> (f32, f32) {
    let radians = f64::from(degrees * DEG_TO_RAD);
    (radians.sin() as f32, radians.cos() as f32)
}

/// The unit look direction of a pitch and yaw in degrees (pitch > 0 looks down; yaw 0 faces +z).
pub fn view_vector(pitch: f32, yaw: f32) -> Vec3 {
    let yaw_rad = yaw * -DEG_TO_RAD + -PI_F32;
    let pitch_rad = -DEG_TO_RAD * pitch;
    let cos_yaw = table_cos_rad(yaw_rad);
    let sin_yaw = table_sin_rad(yaw_rad);
    let neg_cos_pitch = -table_cos_rad(pitch_rad);
    let sin_pitch = table_sin_rad(pitch_rad);
    Vec3::new(neg_cos_pitch * sin_yaw, sin_pitch, cos_yaw * neg_cos_pitch)
}

/// `value` rounded to float32 after adding a double-precision constant, as the client does where
/// it adds a literal to a float32 without rounding the literal first.
#[inline]
pub(crate) fn add_f64(value: f32, constant: f64) -> f32 {
    (f64::from(value) + constant) as f32
}

/// The cell index (floor) of a float32 coordinate.
#[inline]
pub(crate) fn cell(v: f32) -> i32 {
    v.floor() as i32
}

/// The cell index of a coordinate offset by a double-precision constant.
#[inline]
pub(crate) fn cell_off(v: f32, offset: f64) -> i32 {
    (f64::from(v) + offset).floor() as i32
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_quadrants() {
        assert_eq!(table_sin_rad(0.0), 0.0);
        // sin of float32 π/2 rounds to 1, of float32 π to −8.74e-8 (π rounds up in float32).
        assert_eq!(table_cos_rad(0.0), 1.0);
        assert!((table_sin_rad(std::f32::consts::PI) + 8.742_278e-8).abs() < 1e-12);
        assert_eq!(table_sin_rad(-std::f32::consts::FRAC_PI_2), -1.0);
    }

    #[test]
    fn table_entries_follow_the_sine_over_the_whole_turn() {
        for i in (0..=u16::MAX).step_by(97) {
            let exact = (f64::from(i) * std::f64::consts::TAU / 65_536.0).sin();
            assert!((f64::from(table_entry(i)) - exact).abs() < 2e-4, "entry {i}");
        }
        // Index wrap-around: a full turn later (and a negative angle) reads the same entry.
        assert_eq!(table_at(100.0), table_at(100.0 + 65_536.0));
        assert_eq!(table_at(-16_384.0), -1.0);
    }

    #[test]
    fn view_vector_axes() {
        let ahead = view_vector(0.0, 0.0);
        assert!(ahead.x.abs() < 1e-6 && ahead.y == 0.0 && (ahead.z - 1.0).abs() < 1e-6, "{ahead:?}");
        let down = view_vector(90.0, 0.0);
        assert!((down.y + 1.0).abs() < 1e-6, "{down:?}");
        // Yaw 90 faces −x.
        let west = view_vector(0.0, 90.0);
        assert!((west.x + 1.0).abs() < 1e-6, "{west:?}");
    }

    #[test]
    fn runtime_sin_cos_of_tiny_yaw() {
        let (s, c) = sin_cos_deg(-0.000_030_517_578);
        assert_eq!(c, 1.0);
        assert!(s < 0.0 && s > -1e-6);
    }
}
