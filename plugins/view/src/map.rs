//! The top-down map: each column's highest block in its top colour, brighter the higher it is
//! (relative to the ground under the bot) with a relief step against its northern neighbour;
//! water and lava drawn translucent over the ground below them (deeper is more opaque); the bot,
//! players, mobs and items ringed in their colours. North (−z) is up, east (+x) right.

use crate::colors::{Kind, Rgb};
use crate::scene::{Figure, Scene, UNLOADED};

/// A column with no block data (not loaded, or nothing but air).
pub const VOID: Rgb = [16, 16, 16];

/// What to draw.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MapView {
    /// The block column at the centre.
    pub centre: [i32; 2],
    /// Blocks from the centre to an edge.
    pub radius: i32,
    /// Pixels per block.
    pub scale: u32,
    /// Height that is drawn unshaded (the top of the block the bot stands on).
    pub ref_y: i32,
}

impl MapView {
    /// Side of the image in pixels.
    pub fn size(&self) -> u32 {
        (2 * self.radius as u32 + 1) * self.scale
    }

    /// The sub-chunk columns the map needs.
    pub fn columns(&self) -> [i32; 4] {
        let [x, z] = self.centre;
        [(x - self.radius) >> 4, (x + self.radius) >> 4, (z - self.radius) >> 4, (z + self.radius) >> 4]
    }
}

/// Brightness of a column whose top is `dy` above the reference height.
pub fn height_light(dy: i32) -> f32 {
    (1.0 + dy as f32 * 0.02).clamp(0.6, 1.4)
}

/// One column: its top height and colour before shading.
#[derive(Clone, Copy)]
struct Column {
    top: Option<i32>,
    rgb: [f32; 3],
}

/// Block column `x, z` of the scene: the height of its top block and that block's top colour
/// (a liquid mixed with what shows through it), before any shading; `None` when the column has
/// no block data or nothing but air.
pub fn column_top(scene: &mut Scene, x: i32, z: i32) -> (Option<i32>, Rgb) {
    let c = column(scene, x, z);
    (c.top, c.rgb.map(|v| v.round().clamp(0.0, 255.0) as u8))
}

fn column(scene: &mut Scene, x: i32, z: i32) -> Column {
    let (y_min, y_max) = scene.y_range();
    let mut y = y_max;
    while y >= y_min {
        if let Some(c) = scene.uniform_at(x, y, z)
            && (c == 0 || c == UNLOADED)
        {
            y = (y & !15) - 1;
            continue;
        }
        let c = scene.at(x, y, z);
        if c == 0 || c == UNLOADED {
            y -= 1;
            continue;
        }
        let color = *scene.color(c);
        let rgb = color.top.map(f32::from);
        if !matches!(color.kind, Kind::Water | Kind::Lava) {
            return Column { top: Some(y), rgb };
        }
        // A liquid: what lies below shows through, less the deeper it is.
        let mut depth = 1;
        let mut below = None;
        while depth < 32 && y - depth >= y_min {
            let b = scene.at(x, y - depth, z);
            if b == UNLOADED {
                break;
            }
            let bc = *scene.color(b);
            if bc.kind != color.kind && b != 0 {
                below = Some(bc.top.map(f32::from));
                break;
            }
            depth += 1;
        }
        let base = f32::from(color.alpha) / 255.0;
        let a = match below {
            Some(_) => (base + 0.06 * (depth - 1) as f32).min(0.95),
            None => 1.0,
        };
        let under = below.unwrap_or(rgb);
        let mixed = [0, 1, 2].map(|i| rgb[i] * a + under[i] * (1.0 - a));
        return Column { top: Some(y), rgb: mixed };
    }
    Column { top: None, rgb: VOID.map(f32::from) }
}

/// Draws the map: RGB rows, north row first.
pub fn map(scene: &mut Scene, view: &MapView) -> Vec<u8> {
    let n = (2 * view.radius + 1) as usize;
    let [cx, cz] = view.centre;
    let (x0, z0) = (cx - view.radius, cz - view.radius);
    // One row more to the north, for the relief of the top row.
    let mut cols = Vec::with_capacity(n * (n + 1));
    for dz in -1..n as i32 {
        for dx in 0..n as i32 {
            cols.push(column(scene, x0 + dx, z0 + dz));
        }
    }
    let s = view.scale as usize;
    let side = n * s;
    let mut out = vec![0u8; side * side * 3];
    for row in 0..n {
        for col in 0..n {
            let c = cols[(row + 1) * n + col];
            let rgb = match c.top {
                None => VOID,
                Some(top) => {
                    let mut light = height_light(top - view.ref_y);
                    match cols[row * n + col].top {
                        Some(north) if north < top => light *= 1.08,
                        Some(north) if north > top => light *= 0.92,
                        _ => {}
                    }
                    c.rgb.map(|v| (v * light).round().clamp(0.0, 255.0) as u8)
                }
            };
            for py in row * s..(row + 1) * s {
                for px in col * s..(col + 1) * s {
                    out[(py * side + px) * 3..][..3].copy_from_slice(&rgb);
                }
            }
        }
    }
    let mut figures: Vec<Figure> = scene.figures.clone();
    // Items under mobs under players under the bot.
    figures.sort_by_key(|f| std::cmp::Reverse(f.mark as u8));
    for f in &figures {
        ring(&mut out, side, view, x0, z0, f);
    }
    out
}

/// A square ring around the figure's cell (its own pixels stay visible).
fn ring(out: &mut [u8], side: usize, view: &MapView, x0: i32, z0: i32, f: &Figure) {
    let s = view.scale as i32;
    let (col, row) = (f.at[0].floor() as i32 - x0, f.at[2].floor() as i32 - z0);
    let n = 2 * view.radius + 1;
    if col < 0 || row < 0 || col >= n || row >= n {
        return;
    }
    let m = (s / 2).max(1);
    let (left, top) = (col * s - m, row * s - m);
    let (right, bottom) = (col * s + s - 1 + m, row * s + s - 1 + m);
    let rgb = f.mark.color();
    let mut put = |x: i32, y: i32| {
        if x >= 0 && y >= 0 && (x as usize) < side && (y as usize) < side {
            out[(y as usize * side + x as usize) * 3..][..3].copy_from_slice(&rgb);
        }
    };
    for k in 0..m {
        for x in left..=right {
            put(x, top + k);
            put(x, bottom - k);
        }
        for y in top..=bottom {
            put(left + k, y);
            put(right - k, y);
        }
    }
}
