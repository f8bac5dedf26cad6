//! `render` and `map_image` in a simulated world: the pictures are decoded and their pixels
//! checked against the colour table (a stone wall ahead, grass underfoot, the sky behind, the
//! bot seen from elsewhere, the block under the bot on the map, a pillar brighter, a pond
//! between water and its floor), and the limits answer with their stable codes.

use base64::Engine;
use clawcraft::simworld::SimWorld;
use clawcraft::view::colors::{ColorTable, Rgb};
use clawcraft::view::map::height_light;
use clawcraft::view::render::{Face, SKY, lit};
use serde_json::{Map, Value};

type Answer = Map<String, Value>;

/// Sends a query, lets the picture be drawn on the pool and returns the answer.
fn ask(sim: &mut clawcraft::sim::Simulation, line: &str) -> Answer {
    sim.queue_command(line);
    sim.interim();
    let mut out = sim.take_responses();
    if out.is_empty() {
        clawcraft::view::finish_renders(sim.app.world_mut());
        sim.interim();
        out = sim.take_responses();
    }
    assert_eq!(out.len(), 1, "one answer to {line}: {out:?}");
    out.remove(0)
}

struct Picture {
    width: u32,
    height: u32,
    rgb: Vec<u8>,
}

impl Picture {
    fn at(&self, x: u32, y: u32) -> Rgb {
        let i = ((y * self.width + x) * 3) as usize;
        [self.rgb[i], self.rgb[i + 1], self.rgb[i + 2]]
    }
}

fn decode(r: &Answer) -> Picture {
    let data = r["png_base64"].as_str().unwrap_or_else(|| panic!("png_base64 in {r:?}"));
    let bytes = base64::engine::general_purpose::STANDARD.decode(data).expect("base64");
    assert_eq!(&bytes[..8], b"\x89PNG\r\n\x1a\n", "a PNG signature");
    let decoder = png::Decoder::new(std::io::Cursor::new(bytes));
    let mut reader = decoder.read_info().expect("PNG header");
    let mut rgb = vec![0; reader.output_buffer_size().expect("size")];
    let info = reader.next_frame(&mut rgb).expect("PNG data");
    assert_eq!((info.color_type, info.bit_depth), (png::ColorType::Rgb, png::BitDepth::Eight));
    rgb.truncate(info.buffer_size());
    assert_eq!(
        (Some(u64::from(info.width)), Some(u64::from(info.height))),
        (r["width"].as_u64(), r["height"].as_u64()),
        "the answer names the picture's size"
    );
    assert!(r["legend"].as_str().is_some_and(|l| !l.is_empty() && !l.contains('\n')), "{:?}", r["legend"]);
    Picture { width: info.width, height: info.height, rgb }
}

fn color(name: &str) -> clawcraft::view::colors::BlockColor {
    assert!(ColorTable::get().contains(name), "{name} is in the table");
    ColorTable::get().color(name)
}

/// Flat grass, a stone wall 4 blocks south of the spawn (z = 5), stone under the bot.
fn world() -> SimWorld {
    let mut w = SimWorld::flat(2);
    w.fill([-12, -60, 5], [12, -50, 5], "stone", &[]);
    w.set([0, -61, 0], "stone", &[]);
    w
}

#[test]
fn render_sees_the_wall_the_ground_the_sky_and_the_bot_from_elsewhere() {
    let mut sim = world().spawn([0.5, -60.0, 0.5]);
    let stone = color("stone");
    let grass = color("grass_block");

    // Facing south (+z) level: the wall fills the middle, lit as a north/south face.
    let r = ask(&mut sim, r#"{"action":"render","width":64,"height":48,"yaw":0,"pitch":0}"#);
    let p = decode(&r);
    assert_eq!((p.width, p.height), (64, 48));
    assert_eq!(p.at(32, 24), lit(stone.side, Face::NorthSouth), "centre pixel: the stone wall");
    assert_ne!(lit(stone.side, Face::NorthSouth), lit(grass.top, Face::Top));

    // Looking down: the grass top at full light.
    let p = decode(&ask(&mut sim, r#"{"action":"render","width":32,"height":32,"yaw":90,"pitch":45}"#));
    assert_eq!(p.at(16, 16), lit(grass.top, Face::Top), "grass underfoot");
    assert_eq!(p.at(16, 16), grass.top, "a top face is unshaded");

    // Facing north, looking up: sky in the top corner.
    let p = decode(&ask(&mut sim, r#"{"action":"render","width":32,"height":32,"yaw":180,"pitch":-45}"#));
    assert_eq!(p.at(0, 0), SKY);
    assert_eq!(p.at(31, 0), SKY);

    // From three blocks south of the bot, eye high, looking back north at it: the bot is a
    // white box in the middle (its south face), the wall never in view.
    let p = decode(&ask(
        &mut sim,
        r#"{"action":"render","width":33,"height":33,"x":0.5,"y":-58.6,"z":3.5,"yaw":180,"pitch":0}"#,
    ));
    assert_eq!(p.at(16, 16), lit([255, 255, 255], Face::NorthSouth), "the bot, seen from elsewhere");
    assert_ne!(p.at(0, 16), p.at(16, 16), "the box is narrower than the picture");
}

#[test]
fn map_image_shows_the_block_underfoot_heights_and_water() {
    let mut w = world();
    // A pillar two blocks east of the bot (one block above the ground), a pond two blocks west.
    w.set([2, -60, 0], "stone", &[]);
    w.set([-2, -61, 0], "water", &[]);
    w.set([-2, -62, 0], "sand", &[]);
    let mut sim = w.spawn([0.5, -60.0, 0.5]);
    let r = ask(&mut sim, r#"{"action":"map_image","radius":8}"#);
    let p = decode(&r);
    // 17 blocks, 256/17 = 15 px per block capped at 8.
    assert_eq!((p.width, p.height), (136, 136));
    let px = |dx: i32, dz: i32| p.at(((8 + dx) * 8 + 4) as u32, ((8 + dz) * 8 + 4) as u32);
    let stone = color("stone");
    let grass = color("grass_block");
    assert_eq!(px(0, 0), stone.top, "under the bot: the stone it stands on, at its own height unshaded");
    assert_eq!(px(-5, -5), grass.top, "flat grass elsewhere");
    // The bot's ring (white) lies around its cell, in the neighbouring cells' pixels.
    assert_eq!(p.at(8 * 8 - 1, 8 * 8 + 4), [255, 255, 255], "the bot's ring");
    // One block higher: brighter than the flat stone, and lit as a rise against its north.
    let pillar = px(2, 0);
    let light = height_light(1) * 1.08;
    let expected = stone.top.map(|c| (f32::from(c) * light).round() as u8);
    assert_eq!(pillar, expected, "a pillar one block up");
    assert!(pillar.iter().zip(stone.top).all(|(a, b)| *a >= b) && pillar != stone.top);
    // Water over sand: between the two colours, nearer the water.
    let (water, sand) = (color("water").top, color("sand").top);
    let pond = px(-2, 0);
    for i in 0..3 {
        let (lo, hi) = (water[i].min(sand[i]), water[i].max(sand[i]));
        assert!((lo..=hi).contains(&pond[i]), "pond {pond:?} between water {water:?} and sand {sand:?}");
    }
    assert_ne!(pond, water, "the floor shows through");
    assert_ne!(pond, sand);
}

#[test]
fn limits_answer_with_stable_codes() {
    let mut sim = world().spawn([0.5, -60.0, 0.5]);
    for (line, code) in [
        (r#"{"action":"render","width":513}"#, "OUT_OF_RANGE"),
        (r#"{"action":"render","height":0}"#, "OUT_OF_RANGE"),
        (r#"{"action":"render","fov":200}"#, "OUT_OF_RANGE"),
        (r#"{"action":"render","x":1,"z":2}"#, "INVALID_PARAMS"),
        (r#"{"action":"map_image","radius":129}"#, "OUT_OF_RANGE"),
        (r#"{"action":"map_image","radius":0}"#, "OUT_OF_RANGE"),
        (r#"{"action":"map_image","radius":64,"scale":8}"#, "OUT_OF_RANGE"),
    ] {
        let r = ask(&mut sim, line);
        assert_eq!(r["code"], code, "{line}: {r:?}");
    }
    // Largest allowed sizes work.
    let p = decode(&ask(&mut sim, r#"{"action":"map_image","radius":128}"#));
    assert_eq!((p.width, p.height), (257, 257), "radius 128 at 1 px per block");

    // Four pictures at once are drawn; the fifth is BUSY until one has answered.
    for i in 0..5 {
        sim.queue_command(&format!(r#"{{"action":"render","width":16,"height":16,"id":{i}}}"#));
    }
    sim.interim();
    // The fifth is refused at once; the others answer when drawn (some may already be).
    let mut all = sim.take_responses();
    clawcraft::view::finish_renders(sim.app.world_mut());
    sim.interim();
    all.extend(sim.take_responses());
    let (busy, mut done): (Vec<_>, Vec<_>) = all.into_iter().partition(|r| r.contains_key("code"));
    assert_eq!(busy.len(), 1, "{busy:?}");
    assert_eq!((busy[0]["code"].as_str(), busy[0]["id"].as_i64()), (Some("BUSY"), Some(4)), "{busy:?}");
    done.sort_by_key(|r| r["id"].as_i64());
    assert_eq!(done.iter().map(|r| r["id"].as_i64().unwrap_or(-1)).collect::<Vec<_>>(), vec![0, 1, 2, 3]);
    for r in &done {
        assert_eq!(decode(r).width, 16);
    }
    // Room again.
    assert_eq!(decode(&ask(&mut sim, r#"{"action":"render","width":8,"height":8}"#)).width, 8);
}
