//! The first-person picture: one ray per pixel from the eye through a [`Scene`], walked cell by
//! cell (DDA) to [`MAX_DISTANCE`]. A block is a full cube in its table colour, lit by the face
//! the ray enters (top brightest, sides dimmer, bottom darkest); a translucent block (glass,
//! leaves, water …) lets what is behind show through by its alpha; an entity is a box in its
//! [`Mark`](crate::scene::Mark) colour; where nothing is hit the sky colour shows.

use crate::colors::Rgb;
use clawcraft_world::chunk::storage::block_index;

use crate::scene::{Figure, Scene, SubView, UNLOADED};

/// How far a ray looks, in blocks.
pub const MAX_DISTANCE: f64 = 64.0;
/// Where nothing is hit.
pub const SKY: Rgb = [135, 190, 245];

/// The face of a block or box a ray enters by.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Face {
    Top,
    Bottom,
    /// A face across the z axis (north or south).
    NorthSouth,
    /// A face across the x axis (east or west).
    EastWest,
}

impl Face {
    /// Light on this face: 1 on top, 0.8 north/south, 0.65 east/west, 0.5 underneath.
    pub fn light(self) -> f32 {
        match self {
            Face::Top => 1.0,
            Face::NorthSouth => 0.8,
            Face::EastWest => 0.65,
            Face::Bottom => 0.5,
        }
    }
}

/// A colour lit by a face, as a pixel shows it when nothing translucent is in front.
pub fn lit(rgb: Rgb, face: Face) -> Rgb {
    let l = face.light();
    rgb.map(|c| (f32::from(c) * l).round().clamp(0.0, 255.0) as u8)
}

/// Where the picture is taken from and how.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Camera {
    pub eye: [f64; 3],
    /// Bedrock degrees: yaw 0 faces +z (south), 90 faces −x; positive pitch looks down.
    pub yaw: f64,
    pub pitch: f64,
    /// Vertical field of view in degrees.
    pub fov: f64,
    pub width: u32,
    pub height: u32,
}

impl Camera {
    /// The sub-chunk box a picture from here needs: [`MAX_DISTANCE`] around the eye.
    pub fn reach(&self) -> ([i32; 4], [i32; 2]) {
        let r = MAX_DISTANCE;
        let lo = |v: f64| ((v - r).floor() as i32) >> 4;
        let hi = |v: f64| ((v + r).floor() as i32) >> 4;
        ([lo(self.eye[0]), hi(self.eye[0]), lo(self.eye[2]), hi(self.eye[2])], [lo(self.eye[1]), hi(self.eye[1])])
    }
}

/// Front-to-back colour accumulation of one ray.
struct Accum {
    rgb: [f32; 3],
    alpha: f32,
}

impl Accum {
    #[inline]
    fn add(&mut self, rgb: Rgb, light: f32, alpha: f32) {
        let w = (1.0 - self.alpha) * alpha;
        for (acc, c) in self.rgb.iter_mut().zip(rgb) {
            *acc += w * f32::from(c) * light;
        }
        self.alpha += w;
    }

    #[inline]
    fn done(&self) -> bool {
        self.alpha >= 0.995
    }

    fn finish(mut self) -> Rgb {
        self.add(SKY, 1.0, 1.0);
        self.rgb.map(|c| c.round().clamp(0.0, 255.0) as u8)
    }
}

/// Where a ray meets the box of `f` (distance and face), if it does within `MAX_DISTANCE`.
fn hit_figure(f: &Figure, o: [f64; 3], d: [f64; 3]) -> Option<(f64, Face)> {
    let (w, h) = f.mark.size();
    let lo = [f.at[0] - w / 2.0, f.at[1], f.at[2] - w / 2.0];
    let hi = [f.at[0] + w / 2.0, f.at[1] + h, f.at[2] + w / 2.0];
    let (mut t0, mut t1, mut axis) = (0.0_f64, MAX_DISTANCE, 1usize);
    for a in 0..3 {
        if d[a].abs() < 1e-12 {
            if o[a] < lo[a] || o[a] > hi[a] {
                return None;
            }
            continue;
        }
        let inv = 1.0 / d[a];
        let (mut n, mut x) = ((lo[a] - o[a]) * inv, (hi[a] - o[a]) * inv);
        if n > x {
            std::mem::swap(&mut n, &mut x);
        }
        if n > t0 {
            t0 = n;
            axis = a;
        }
        t1 = t1.min(x);
        if t0 > t1 {
            return None;
        }
    }
    if t0 <= 0.0 {
        // The eye is inside the box (or it is behind): not drawn.
        return None;
    }
    let face = match axis {
        0 => Face::EastWest,
        2 => Face::NorthSouth,
        _ if d[1] < 0.0 => Face::Top,
        _ => Face::Bottom,
    };
    Some((t0, face))
}

/// One ray's colour.
fn trace(scene: &mut Scene, o: [f64; 3], d: [f64; 3], figures: &[(f64, Face, Rgb)]) -> Rgb {
    let mut acc = Accum { rgb: [0.0; 3], alpha: 0.0 };
    // The nearest entity box on this ray.
    let figure = figures.iter().min_by(|a, b| a.0.total_cmp(&b.0)).copied();
    let mut w = Walk::new(o, d);
    // The sub-chunk the walk is in (most steps stay in it).
    let mut sub_key = w.sub_key();
    let mut sub = scene.sub(sub_key[0], sub_key[1], sub_key[2]);
    // The eye's own cell is never drawn (an eye inside a block sees out of it).
    let (lx, ly, lz) = w.local();
    let mut prev = scene.in_sub(sub, block_index(lx, ly, lz));
    // A ray crosses at most ~3 cells per block of distance; the cap only guards against a walk
    // that stops advancing.
    for _ in 0..(MAX_DISTANCE as usize + 2) * 4 {
        let (a, t) = w.step();
        if t > MAX_DISTANCE {
            break;
        }
        if let Some((ft, face, rgb)) = figure
            && ft <= t
        {
            acc.add(rgb, face.light(), 1.0);
            return acc.finish();
        }
        let k = w.sub_key();
        if k != sub_key {
            sub_key = k;
            sub = scene.sub(k[0], k[1], k[2]);
        }
        let (lx, ly, lz) = w.local();
        // An empty brick is known from its bit, without reading the cells.
        let empty_brick = matches!(sub, SubView::Dense(i) if scene.brick_empty(i, lx, ly, lz));
        let c = if empty_brick { 0 } else { scene.in_sub(sub, block_index(lx, ly, lz)) };
        if c != prev && c != 0 && c != UNLOADED {
            let face = match a {
                0 => Face::EastWest,
                2 => Face::NorthSouth,
                _ if w.step[1] < 0 => Face::Top,
                _ => Face::Bottom,
            };
            let color = scene.color(c);
            let rgb = if face == Face::Top { color.top } else { color.side };
            acc.add(rgb, face.light(), f32::from(color.alpha) / 255.0);
            if acc.done() {
                return acc.finish();
            }
        }
        prev = c;
        // Through a sub-chunk of nothing but air (or without data), or an empty 4×4×4 brick of
        // one, in one step: on to the cell where the ray leaves it.
        match sub {
            SubView::Uniform(0 | UNLOADED) => w.skip_box(16),
            SubView::Dense(_) if empty_brick => w.skip_box(4),
            _ => {}
        }
    }
    if let Some((_, face, rgb)) = figure {
        acc.add(rgb, face.light(), 1.0);
    }
    acc.finish()
}

/// A walk along a ray cell by cell (Amanatides–Woo), each axis in its own variables.
struct Walk {
    o: [f64; 3],
    d: [f64; 3],
    inv: [f64; 3],
    step: [i32; 3],
    x: i32,
    y: i32,
    z: i32,
    /// Distance at which the ray crosses the next boundary on each axis.
    tx: f64,
    ty: f64,
    tz: f64,
    /// Distance between two boundaries on each axis.
    dx: f64,
    dy: f64,
    dz: f64,
}

impl Walk {
    fn new(o: [f64; 3], d: [f64; 3]) -> Self {
        let inv = d.map(|c| if c == 0.0 { f64::INFINITY } else { 1.0 / c });
        let step = d.map(|c| {
            if c > 0.0 {
                1
            } else if c < 0.0 {
                -1
            } else {
                0
            }
        });
        let cell = o.map(|c| c.floor() as i32);
        let mut w = Walk {
            o,
            d,
            inv,
            step,
            x: cell[0],
            y: cell[1],
            z: cell[2],
            tx: 0.0,
            ty: 0.0,
            tz: 0.0,
            dx: inv[0].abs(),
            dy: inv[1].abs(),
            dz: inv[2].abs(),
        };
        w.boundaries();
        w
    }

    /// The crossing distances of the current cell.
    fn boundaries(&mut self) {
        let next = |c: i32, a: usize| -> f64 {
            match self.step[a] {
                1 => (f64::from(c) + 1.0 - self.o[a]) * self.inv[a],
                -1 => (f64::from(c) - self.o[a]) * self.inv[a],
                _ => f64::INFINITY,
            }
        };
        (self.tx, self.ty, self.tz) = (next(self.x, 0), next(self.y, 1), next(self.z, 2));
    }

    /// Into the next cell: the axis crossed and the distance at which it was entered.
    #[inline]
    fn step(&mut self) -> (usize, f64) {
        if self.tx < self.ty {
            if self.tx < self.tz {
                let t = self.tx;
                self.x += self.step[0];
                self.tx += self.dx;
                return (0, t);
            }
        } else if self.ty < self.tz {
            let t = self.ty;
            self.y += self.step[1];
            self.ty += self.dy;
            return (1, t);
        }
        let t = self.tz;
        self.z += self.step[2];
        self.tz += self.dz;
        (2, t)
    }

    #[inline]
    fn sub_key(&self) -> [i32; 3] {
        [self.x >> 4, self.y >> 4, self.z >> 4]
    }

    #[inline]
    fn local(&self) -> (usize, usize, usize) {
        ((self.x & 15) as usize, (self.y & 15) as usize, (self.z & 15) as usize)
    }

    /// Moves to the last cell on the ray of the aligned box of `size` (16: the sub-chunk, 4: a
    /// brick) holding the current cell, where the ray leaves the box.
    fn skip_box(&mut self, size: i32) {
        let cell = [self.x, self.y, self.z];
        let lo = cell.map(|c| c & !(size - 1));
        let (mut t_exit, mut axis) = (f64::INFINITY, 0);
        for a in 0..3 {
            let boundary = match self.step[a] {
                1 => lo[a] + size,
                -1 => lo[a],
                _ => continue,
            };
            let t = (f64::from(boundary) - self.o[a]) * self.inv[a];
            if t < t_exit {
                (t_exit, axis) = (t, a);
            }
        }
        if !t_exit.is_finite() {
            return;
        }
        let mut to = [0; 3];
        for a in 0..3 {
            to[a] = if a == axis {
                if self.step[a] > 0 { lo[a] + size - 1 } else { lo[a] }
            } else {
                let at = ((self.o[a] + self.d[a] * t_exit).floor() as i32).clamp(lo[a], lo[a] + size - 1);
                // Never back along the ray (rounding at an edge or corner of the box): every skip
                // then makes progress.
                match self.step[a] {
                    1 => at.max(cell[a]),
                    -1 => at.min(cell[a]),
                    _ => cell[a],
                }
            };
        }
        [self.x, self.y, self.z] = to;
        self.boundaries();
    }
}

/// Unit direction of a Bedrock rotation in degrees.
pub fn direction(yaw: f64, pitch: f64) -> [f64; 3] {
    let (y, p) = (yaw.to_radians(), pitch.to_radians());
    [-y.sin() * p.cos(), -p.sin(), y.cos() * p.cos()]
}

/// Draws the picture: RGB rows, top row first.
pub fn render(scene: &mut Scene, cam: &Camera) -> Vec<u8> {
    let (w, h) = (cam.width.max(1), cam.height.max(1));
    let fwd = direction(cam.yaw, cam.pitch);
    let yaw = cam.yaw.to_radians();
    // Right-hand side of the view (yaw 0 faces +z, so right is −x) and up = right × forward.
    let right = [-yaw.cos(), 0.0, -yaw.sin()];
    let up = [
        right[1] * fwd[2] - right[2] * fwd[1],
        right[2] * fwd[0] - right[0] * fwd[2],
        right[0] * fwd[1] - right[1] * fwd[0],
    ];
    let half_v = (cam.fov.to_radians() / 2.0).tan();
    let half_u = half_v * f64::from(w) / f64::from(h);
    let figures = std::mem::take(&mut scene.figures);
    let mut out = Vec::with_capacity((w * h * 3) as usize);
    let mut hits = Vec::with_capacity(figures.len());
    for j in 0..h {
        let v = (1.0 - 2.0 * (f64::from(j) + 0.5) / f64::from(h)) * half_v;
        for i in 0..w {
            let u = (2.0 * (f64::from(i) + 0.5) / f64::from(w) - 1.0) * half_u;
            let mut d = [0.0; 3];
            for a in 0..3 {
                d[a] = fwd[a] + right[a] * u + up[a] * v;
            }
            let n = (d[0] * d[0] + d[1] * d[1] + d[2] * d[2]).sqrt();
            let d = d.map(|c| c / n);
            hits.clear();
            hits.extend(
                figures.iter().filter_map(|f| hit_figure(f, cam.eye, d).map(|(t, face)| (t, face, f.mark.color()))),
            );
            out.extend_from_slice(&trace(scene, cam.eye, d, &hits));
        }
    }
    scene.figures = figures;
    out
}
