//! Replays scenarios recorded from a real Bedrock client (`tests/vectors/physics/`, derived by
//! `make-physics-vectors.js`; see SOURCE.md there) tick by tick: from the recorded keys, rotation
//! and blocks, the engine must reproduce the recorded eye positions, deltas and input flags.
//!
//! `cargo test -p clawcraft-physics --test replay -- --nocapture` prints the tally by category and
//! the first divergence of every scenario that does not match.

use std::collections::{BTreeMap, HashMap};

use clawcraft_physics::{
    Aabb, Block, BlockPhysics, Config, EYE_HEIGHT, Input, InputFlags, Keys, Physics, PlayerState, Vec3, World,
};

const VECTORS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/vectors/physics/");

/// The recorded world: palette entries and the cell → entry map.
struct RecordedWorld {
    palette: Vec<(BlockPhysics, Vec<Aabb>)>,
    cells: HashMap<(i32, i32, i32), u16>,
}

impl World for RecordedWorld {
    fn block(&self, x: i32, y: i32, z: i32) -> Block<'_> {
        match self.cells.get(&(x, y, z)) {
            Some(&i) => {
                let (physics, shapes) = &self.palette[i as usize];
                Block { physics: *physics, shapes }
            }
            None => Block::AIR,
        }
    }
}

fn load_world() -> RecordedWorld {
    let text = std::fs::read_to_string(format!("{VECTORS}world.txt")).expect("world.txt");
    let mut palette = Vec::new();
    let mut cells = HashMap::new();
    for line in text.lines().filter(|l| !l.starts_with('#')) {
        let parts: Vec<&str> = line.split_whitespace().collect();
        match parts[0] {
            "block" => {
                let name = parts[2];
                let drag_down = parts.get(4) == Some(&"drag_down");
                let physics = BlockPhysics::of(name, |k| (k == "drag_down").then_some(i32::from(drag_down)));
                let shapes = if parts[3] == "-" {
                    Vec::new()
                } else {
                    parts[3]
                        .split(';')
                        .map(|s| {
                            let v: Vec<f32> = s.split(',').map(|n| n.parse::<f64>().expect("number") as f32).collect();
                            Aabb::new(v[0], v[1], v[2], v[3], v[4], v[5])
                        })
                        .collect()
                };
                palette.push((physics, shapes));
            }
            "fill" => {
                let n: Vec<i32> = parts[1..8].iter().map(|s| s.parse().expect("int")).collect();
                for x in n[0]..=n[3] {
                    for y in n[1]..=n[4] {
                        for z in n[2]..=n[5] {
                            cells.insert((x, y, z), n[6] as u16);
                        }
                    }
                }
            }
            other => panic!("unknown world line {other}"),
        }
    }
    RecordedWorld { palette, cells }
}

/// One recorded tick, fully merged.
#[derive(Clone, Debug, Default)]
struct Rec {
    t: i64,
    pos: [f32; 3],
    delta: [f32; 3],
    rot: [f32; 3],
    mv: [f32; 2],
    flags: Vec<String>,
}

impl Rec {
    fn has(&self, flag: &str) -> bool {
        self.flags.iter().any(|f| f == flag)
    }

    fn keys(&self) -> Keys {
        Keys {
            up: self.has("up"),
            down: self.has("down"),
            left: self.has("left"),
            right: self.has("right"),
            jump: self.has("jumpDown") || self.has("jumping"),
            sneak: self.has("sneakDown"),
            sprint: self.has("sprintDown"),
        }
    }
}

struct Scenario {
    name: String,
    category: String,
    effects: Vec<(String, u8)>,
    ticks: Vec<Rec>,
}

fn floats<const N: usize>(s: &str) -> [f32; N] {
    let v: Vec<f32> = s.split(',').map(|n| n.parse::<f64>().expect("number") as f32).collect();
    v.try_into().expect("arity")
}

fn load_scenarios() -> Vec<Scenario> {
    let text = std::fs::read_to_string(format!("{VECTORS}scenarios.txt")).expect("scenarios.txt");
    let mut out = Vec::new();
    let mut cur: Option<Scenario> = None;
    let mut rec = Rec::default();
    for line in text.lines().filter(|l| !l.starts_with('#')) {
        let mut parts = line.split_whitespace();
        let first = parts.next().expect("line");
        match first {
            "scenario" => {
                let name = parts.next().expect("name").to_owned();
                let category = parts.next().expect("category").to_owned();
                let effects = match parts.next().expect("effects") {
                    "-" => Vec::new(),
                    e => e
                        .split(',')
                        .map(|kv| {
                            let (k, v) = kv.split_once(':').expect("effect");
                            (k.to_owned(), v.parse().expect("level"))
                        })
                        .collect(),
                };
                cur = Some(Scenario { name, category, effects, ticks: Vec::new() });
                rec = Rec::default();
            }
            "end" => out.push(cur.take().expect("scenario")),
            t => {
                rec.t = t.parse().expect("tick");
                for p in parts {
                    if let Some(v) = p.strip_prefix("p=") {
                        rec.pos = floats(v);
                    } else if let Some(v) = p.strip_prefix("d=") {
                        rec.delta = floats(v);
                    } else if let Some(v) = p.strip_prefix("r=") {
                        rec.rot = floats(v);
                    } else if let Some(v) = p.strip_prefix("m=") {
                        rec.mv = floats(v);
                    } else if let Some(f) = p.strip_prefix('+') {
                        rec.flags.push(f.to_owned());
                    } else if let Some(f) = p.strip_prefix('-') {
                        rec.flags.retain(|x| x != f);
                    } else {
                        panic!("bad field {p}");
                    }
                }
                cur.as_mut().expect("scenario").ticks.push(rec.clone());
            }
        }
    }
    out
}

/// camelCase recording name → minecraft-data snake_case name.
fn snake(name: &str) -> String {
    let mut s = String::new();
    for c in name.chars() {
        if c.is_ascii_uppercase() {
            s.push('_');
            s.push(c.to_ascii_lowercase());
        } else {
            s.push(c);
        }
    }
    s
}

/// Distance in float32 steps.
fn ulps(a: f32, b: f32) -> u32 {
    if a == b {
        return 0;
    }
    let key = |v: f32| {
        let i = v.to_bits() as i32;
        if i < 0 { i32::MIN.wrapping_sub(i) } else { i }
    };
    key(a).abs_diff(key(b))
}

#[derive(Debug, Default, Clone)]
struct Outcome {
    ticks: usize,
    /// Largest position error in blocks and in float32 steps.
    max_pos_err: f32,
    max_pos_ulps: u32,
    max_delta_ulps: u32,
    /// First tick whose position, delta or flags are not bit-identical, with what differed.
    first_diff: Option<String>,
    flag_mismatches: usize,
    /// Ticks replayed bit for bit before the first difference.
    first_index: usize,
}

impl Outcome {
    fn exact(&self) -> bool {
        self.first_diff.is_none()
    }

    /// Within float32 tolerance: every position within 1e-4 blocks and 64 float32 steps, every
    /// flag right.
    fn matches(&self) -> bool {
        self.flag_mismatches == 0 && self.max_pos_err <= 1e-4 && self.max_pos_ulps <= 64
    }
}

/// A pose flag's state before tick `start`: the last start / stop the recording shows before it (a
/// start and a stop on one tick leave it off), `None` when it shows neither.
fn pose_before(ticks: &[Rec], start: usize, on: &str, off: &str) -> Option<bool> {
    ticks[..start].iter().rev().find_map(|r| {
        if r.has(off) {
            Some(false)
        } else if r.has(on) {
            Some(true)
        } else {
            None
        }
    })
}

/// Replays a scenario, trying both sprint states when the recording does not show the sprint
/// state the player starts in (it started before the recorded window), and keeping the better.
fn replay(s: &Scenario, world: &RecordedWorld) -> Outcome {
    let start = s.ticks.iter().position(|r| r.has("handledTeleport")).unwrap_or(0);
    match pose_before(&s.ticks, start, "startSprinting", "stopSprinting") {
        Some(sprinting) => replay_from(s, world, start, sprinting),
        None => {
            let a = replay_from(s, world, start, false);
            if a.exact() {
                return a;
            }
            let b = replay_from(s, world, start, true);
            if (b.exact(), b.matches(), b.first_index) > (a.exact(), a.matches(), a.first_index) { b } else { a }
        }
    }
}

fn replay_from(s: &Scenario, world: &RecordedWorld, start: usize, sprinting: bool) -> Outcome {
    let mut physics = Physics::new(Config::for_version("1.26.10"));
    let ticks = &s.ticks;
    let feet = |r: &Rec| Vec3::new(r.pos[0], r.pos[1] - EYE_HEIGHT, r.pos[2]);
    // The state the recorded window starts in: where the player is, its velocity and collision
    // flags, and the poses the recording shows before the start (the sneak held since before).
    let first = &ticks[start];
    let mut state = PlayerState::new(feet(first));
    for (name, level) in &s.effects {
        state.effects.set_by_name(name, *level);
    }
    state.velocity = Vec3::new(first.delta[0], first.delta[1], first.delta[2]);
    state.on_ground = first.has("verticalCollision");
    state.vertical_collision = first.has("verticalCollision");
    state.horizontal_collision = first.has("horizontalCollision");
    state.sprinting = sprinting;
    let prev_keys = if start > 0 { ticks[start - 1].keys() } else { first.keys() };
    state.set_previous_keys(prev_keys);
    state.set_swimming(pose_before(ticks, start, "startSwimming", "stopSwimming").unwrap_or(false));
    state.set_sneaking(pose_before(ticks, start, "startSneaking", "stopSneaking").unwrap_or(prev_keys.sneak));
    let mut out = Outcome::default();
    let from = if first.has("handledTeleport") { start } else { start + 1 };
    for i in from..ticks.len() {
        let r = &ticks[i];
        let was_teleport = i > 0 && ticks[i - 1].has("handledTeleport");
        if r.has("handledTeleport") && (i == start || !was_teleport) {
            // The server's teleport: the player at the recorded spot, at rest.
            state.teleport(feet(r), Vec3::ZERO, true);
        }
        let tapped = |p: &str, l: &str, level: bool| r.has(p) && r.has(l) && !level;
        let keys = r.keys();
        let input = Input {
            keys,
            analog: None,
            yaw: r.rot[0],
            pitch: r.rot[1],
            head_yaw: r.rot[2],
            jump_tapped: tapped("jumpPressedRaw", "jumpReleasedRaw", keys.jump),
            sneak_tapped: tapped("sneakPressedRaw", "sneakReleasedRaw", keys.sneak),
        };
        let o = physics.tick(&mut state, &input, world);
        out.ticks += 1;
        let got_pos = [o.position.x, o.position.y, o.position.z];
        let got_delta = [o.delta.x, o.delta.y, o.delta.z];
        let mut diffs = Vec::new();
        for k in 0..3 {
            let err = (got_pos[k] - r.pos[k]).abs();
            out.max_pos_err = out.max_pos_err.max(err);
            out.max_pos_ulps = out.max_pos_ulps.max(ulps(got_pos[k], r.pos[k]));
            out.max_delta_ulps = out.max_delta_ulps.max(ulps(got_delta[k], r.delta[k]));
        }
        if got_pos != r.pos {
            diffs.push(format!("pos {got_pos:?} want {:?}", r.pos));
        }
        if got_delta != r.delta {
            diffs.push(format!("delta {got_delta:?} want {:?}", r.delta));
        }
        let want: Vec<String> = r.flags.iter().map(|f| snake(f)).collect();
        let mut flag_diff = Vec::new();
        for w in &want {
            let bit = InputFlags::bit_of(w).unwrap_or_else(|| panic!("unknown flag {w}"));
            if !o.flags.has_bit(bit) {
                flag_diff.push(format!("-{w}"));
            }
        }
        for g in o.flags.names() {
            if !want.iter().any(|w| w == g) {
                flag_diff.push(format!("+{g}"));
            }
        }
        if !flag_diff.is_empty() {
            out.flag_mismatches += 1;
            diffs.push(format!("flags {}", flag_diff.join(" ")));
        }
        if out.first_diff.is_none() && !diffs.is_empty() {
            out.first_diff = Some(format!("tick {} (#{}): {}", r.t, i - from, diffs.join("; ")));
            out.first_index = i - from;
        } else if out.first_diff.is_none() {
            out.first_index = i - from + 1;
        }
    }
    out
}

#[test]
fn replay_recorded_scenarios() {
    let world = load_world();
    let scenarios = load_scenarios();
    assert!(scenarios.len() >= 170, "{} scenarios", scenarios.len());
    let mut by_cat: BTreeMap<&str, (usize, usize, usize)> = BTreeMap::new();
    let mut matching = Vec::new();
    let mut report = String::new();
    for s in &scenarios {
        let o = replay(s, &world);
        let e = by_cat.entry(&s.category).or_default();
        e.0 += 1;
        if o.exact() {
            e.1 += 1;
        }
        if o.matches() {
            e.2 += 1;
            matching.push(s.name.as_str());
        } else {
            report.push_str(&format!(
                "  {:<12} {:<40} max {:.2e} ({} ulp, delta {} ulp), {} flag ticks; first: {}\n",
                s.category,
                s.name,
                o.max_pos_err,
                o.max_pos_ulps,
                o.max_delta_ulps,
                o.flag_mismatches,
                o.first_diff.clone().unwrap_or_default()
            ));
        }
    }
    let total: usize = by_cat.values().map(|v| v.0).sum();
    let exact: usize = by_cat.values().map(|v| v.1).sum();
    let within: usize = by_cat.values().map(|v| v.2).sum();
    println!("{within} of {total} scenarios match ({exact} bit for bit)");
    for (cat, (n, e, m)) in &by_cat {
        println!("  {cat:<14} {m:>3} of {n:<3} match ({e} bit for bit)");
    }
    println!("not matching:\n{report}");
    let missing: Vec<&&str> = MUST_MATCH.iter().filter(|n| !matching.contains(n)).collect();
    assert!(missing.is_empty(), "scenarios that must match do not: {missing:?}");
}

/// Scenarios that match today; a regression in any fails the test.
const MUST_MATCH: &[&str] = &[];
