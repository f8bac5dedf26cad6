//! End-to-end pictures: the real `clawcraft` binary against the bedrock-protocol peer's mixed
//! world (`tests/peer/maps/mixed.json`: a stone wall at x = 3, y −60..−58, z −2..2 with a door,
//! grass underfoot). `render` looking at the wall shows stone lit as an east/west face;
//! `map_image` shows grass under the bot, its ring, and the wall's top brighter than the ground.

use crate::common;

use std::time::{Duration, Instant};

use base64::Engine;
use clawcraft::view::colors::{ColorTable, Rgb};
use clawcraft::view::map::height_light;
use clawcraft::view::render::{Face, lit};
use common::{Bot, Peer};
use serde_json::{Value, json};

const SPAWN_TIMEOUT: Duration = Duration::from_secs(40);
const ANSWER: Duration = Duration::from_secs(20);

struct Picture {
    width: u32,
    rgb: Vec<u8>,
}

impl Picture {
    fn at(&self, x: u32, y: u32) -> Rgb {
        let i = ((y * self.width + x) * 3) as usize;
        [self.rgb[i], self.rgb[i + 1], self.rgb[i + 2]]
    }
}

fn picture(r: &Value) -> Picture {
    let data = r["png_base64"].as_str().unwrap_or_else(|| panic!("a picture: {r}"));
    let bytes = base64::engine::general_purpose::STANDARD.decode(data).expect("base64");
    let mut reader = png::Decoder::new(std::io::Cursor::new(bytes)).read_info().expect("PNG header");
    let mut rgb = vec![0; reader.output_buffer_size().expect("size")];
    let info = reader.next_frame(&mut rgb).expect("PNG data");
    assert_eq!(
        (Some(u64::from(info.width)), Some(u64::from(info.height))),
        (r["width"].as_u64(), r["height"].as_u64())
    );
    rgb.truncate(info.buffer_size());
    Picture { width: info.width, rgb }
}

/// Waits until the wall's chunk is in (full chunks come with the spawn; asked, not slept on).
fn wait_wall(bot: &mut Bot) {
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let r = bot.request(json!({"action":"block","x":3,"y":-59,"z":1}), ANSWER).expect("block answer");
        if r["block"]["name"] == "minecraft:stone" {
            return;
        }
        assert!(Instant::now() < deadline, "the wall never arrived: {r}");
    }
}

#[test]
fn render_and_map_image_of_the_peer_world() {
    let peer = Peer::start_args("flat", &["--world", "mixed"]);
    let mut bot = Bot::start(peer.port, "Painter");
    bot.wait_event("spawn", SPAWN_TIMEOUT).expect("spawn event");
    wait_wall(&mut bot);
    let table = ColorTable::get();
    let (stone, grass) = (table.color("stone"), table.color("grass_block"));

    // From beside the spawn, eye at wall height, looking east (+x, yaw −90) at the wall at x = 3.
    let r = bot
        .request(
            json!({"action":"render","x":0.5,"y":-58.5,"z":1.5,"yaw":-90,"pitch":0,"width":33,"height":33}),
            ANSWER,
        )
        .expect("render answer");
    let p = picture(&r);
    assert_eq!(p.at(16, 16), lit(stone.side, Face::EastWest), "the stone wall, lit as an east/west face: {r}");
    assert!(r["legend"].as_str().is_some_and(|l| l.contains("33×33")), "{r}");

    // The bot's own view (no position given) answers too, at the default size.
    let r = bot.request(json!({"action":"render"}), ANSWER).expect("render answer");
    assert_eq!((r["width"].as_u64(), r["height"].as_u64()), (Some(256), Some(256)), "{r}");
    assert_eq!(picture(&r).rgb.len(), 256 * 256 * 3);

    // The map: 17 blocks a side at 8 px per block; the bot at the centre cell (0, 0).
    let r = bot.request(json!({"action":"map_image","radius":8}), ANSWER).expect("map answer");
    let p = picture(&r);
    assert_eq!(p.width, 136, "{r}");
    let px = |x: i32, z: i32| p.at(((8 + x) * 8 + 4) as u32, ((8 + z) * 8 + 4) as u32);
    assert_eq!(px(0, 0), grass.top, "under the bot: the grass it stands on");
    assert_eq!(p.at(8 * 8 - 1, 8 * 8 + 4), [255, 255, 255], "the bot's white ring");
    // The wall's north end (3, −2): its top at y −58 is 3 above the ground, and rises above its
    // northern neighbour (grass at −61).
    let light = height_light(3) * 1.08;
    let wall = stone.top.map(|c| (f32::from(c) * light).round() as u8);
    assert_eq!(px(3, -2), wall, "the wall's top, brighter than the ground");

    // Limits hold over the wire too.
    let r = bot.request(json!({"action":"render","width":1000}), ANSWER).expect("answer");
    assert_eq!(r["code"], "OUT_OF_RANGE", "{r}");
}
