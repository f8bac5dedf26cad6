//! End to end against the peer's writing scenario (`tests/peer/writing.js`): a sign in reach with
//! text on its back, a waxed sign, a sign out of reach, and two books and quill. The real binary
//! writes the sign's front (the back the server holds survives), then both sides, reads the text
//! back with `block`, writes and signs a book, and is refused what it cannot do — every receipt
//! checked against the peer's own account.

use crate::common;

use std::time::{Duration, Instant};

use common::{Bot, Peer};
use serde_json::{Value, json};

const SPAWN: Duration = Duration::from_secs(40);
const ANSWER: Duration = Duration::from_secs(10);
const DONE: Duration = Duration::from_secs(15);

fn ok(bot: &mut Bot, cmd: Value) -> Value {
    bot.ok(cmd)
}

fn done(bot: &mut Bot, kind: &str, id: &Value) -> Value {
    let d = bot.wait(|v| v["type"] == kind && v["id"] == *id, DONE).unwrap_or_else(|| panic!("no {kind} for {id}"));
    assert_eq!((d["status"].clone(), d["confirmed"].clone()), (json!("done"), json!(true)), "{d}");
    d
}

fn peer_event(peer: &mut Peer, event: &str, pred: impl Fn(&Value) -> bool) -> Value {
    peer.wait_line(|v| v["event"] == event && pred(v), DONE).unwrap_or_else(|| panic!("peer never said {event}"))
}

fn code(bot: &mut Bot, cmd: Value) -> String {
    let r = bot.request(cmd.clone(), ANSWER).unwrap_or_else(|| panic!("no answer to {cmd}"));
    r["code"].as_str().unwrap_or_else(|| panic!("{cmd} should fail: {r}")).to_owned()
}

/// Starts the writing peer and a bot, and waits until the signs and the inventory have arrived.
fn writing() -> (Peer, Bot) {
    let mut peer = Peer::start("writing");
    let mut bot = Bot::start(peer.port, "Scribe");
    bot.wait_event("spawn", SPAWN).expect("spawn");
    peer.wait_line(|v| v["event"] == "writing_ready", SPAWN).expect("writing ready");
    let deadline = Instant::now() + DONE;
    loop {
        let b = bot.request(json!({"action":"block","x":1,"y":-60,"z":-2}), ANSWER).expect("block");
        let inv = bot.request(json!({"action":"inventory","view":"summary"}), ANSWER).expect("inventory");
        if b["sign"]["back"] == json!(["Welcome"]) && inv.get("code").is_none() {
            break;
        }
        assert!(Instant::now() < deadline, "the signs or the inventory never arrived: {b} {inv}");
        std::thread::sleep(Duration::from_millis(100));
    }
    (peer, bot)
}

#[test]
fn a_sign_is_written_on_both_sides_and_read_back_from_the_server() {
    let (mut peer, mut bot) = writing();

    // The front only: the server opens the front (the bot stands south of the sign) and stores
    // the text; the back it already held is kept.
    let r = ok(&mut bot, json!({"action":"write_sign","x":1,"y":-60,"z":-2,"front":["Home","of Scribe"]}));
    assert_eq!((r["writing"].clone(), r["block"].clone()), (json!(true), json!("minecraft:standing_sign")), "{r}");
    let d = done(&mut bot, "sign_done", &r["id"]);
    assert_eq!(d["opened"], "front", "{d}");
    assert_eq!(d["stored"]["front"], json!(["Home", "of Scribe"]), "{d}");
    assert_eq!(d["stored"]["back"], json!(["Welcome"]), "{d}");
    assert_eq!(d["sent"], 1, "{d}");
    let p = peer_event(&mut peer, "sign_written", |_| true);
    assert_eq!(
        (p["side"].clone(), p["front"].clone(), p["back"].clone()),
        (json!("front"), json!("Home\nof Scribe"), json!("Welcome")),
        "{p}"
    );

    // Both sides in one request: two edits, each accepted by the peer, the echo holds both.
    let r = ok(&mut bot, json!({"action":"write_sign","x":1,"y":-60,"z":-2,"front":"North\nfarm","back":["Keep out"]}));
    let d = done(&mut bot, "sign_done", &r["id"]);
    assert_eq!(
        (d["stored"]["front"].clone(), d["stored"]["back"].clone()),
        (json!(["North", "farm"]), json!(["Keep out"])),
        "{d}"
    );
    assert_eq!(d["sent"], 2, "{d}");
    let sides: Vec<Value> = (0..2).map(|_| peer_event(&mut peer, "sign_written", |_| true)["side"].clone()).collect();
    assert_eq!(sides, vec![json!("front"), json!("back")]);

    // The block query shows what the server stored.
    let b = ok(&mut bot, json!({"action":"block","x":1,"y":-60,"z":-2}));
    assert_eq!(b["sign"], json!({"front":["North","farm"],"back":["Keep out"],"waxed":false}), "{b}");

    // Refusals, before anything is sent: the waxed sign, a sign out of reach, not a sign, too long.
    assert_eq!(code(&mut bot, json!({"action":"write_sign","x":-1,"y":-60,"z":-2,"front":"x"})), "WAXED");
    assert_eq!(code(&mut bot, json!({"action":"write_sign","x":-6,"y":-60,"z":-6,"front":"x"})), "OUT_OF_REACH");
    assert_eq!(code(&mut bot, json!({"action":"write_sign","x":0,"y":-60,"z":-2,"front":"x"})), "INVALID_TARGET");
    assert_eq!(
        code(&mut bot, json!({"action":"write_sign","x":1,"y":-60,"z":-2,"front":["1","2","3","4","5"]})),
        "TEXT_TOO_LONG"
    );
    assert_eq!(code(&mut bot, json!({"action":"write_sign","x":1,"y":-60,"z":-2})), "INVALID_PARAMS");
    let b = ok(&mut bot, json!({"action":"block","x":-1,"y":-60,"z":-2}));
    assert_eq!(b["sign"], json!({"front":["Sealed"],"back":[],"waxed":true}), "{b}");

    // A sign placed from the inventory, then written: it faces south, the bot stands north of
    // it, so the server opens its back; the front is written all the same.
    let r = ok(&mut bot, json!({"action":"place","item":"oak_sign","x":-1,"y":-60,"z":1}));
    let d = done(&mut bot, "place_done", &r["id"]);
    assert_eq!(d["block"], "minecraft:standing_sign", "{d}");
    let r = ok(&mut bot, json!({"action":"write_sign","x":-1,"y":-60,"z":1,"front":"New sign"}));
    let d = done(&mut bot, "sign_done", &r["id"]);
    assert_eq!((d["opened"].clone(), d["stored"]["front"].clone()), (json!("back"), json!(["New sign"])), "{d}");
}

#[test]
fn a_book_is_written_and_signed_and_the_slot_becomes_a_written_book() {
    let (mut peer, mut bot) = writing();

    // Pages into the held book (slot 0), not signed: the book and quill holds them.
    let r = ok(&mut bot, json!({"action":"write_book","pages":["Day 1","Found iron"]}));
    assert_eq!((r["slot"].clone(), r["edits"].clone()), (json!(0), json!(4)), "{r}");
    let d = done(&mut bot, "book_done", &r["id"]);
    assert_eq!(d["stored"]["item"], "minecraft:writable_book", "{d}");
    assert_eq!(d["stored"]["pages"], json!(["Day 1", "Found iron"]), "{d}");
    let p = peer_event(&mut peer, "book_edited", |v| {
        v["pages"].as_array().is_some_and(|a| a.len() == 2 && a[1] == "Found iron")
    });
    assert_eq!(p["slot"], 0, "{p}");

    // Rewrite the second page and sign: a written book with the title, the bot as author.
    let r = ok(&mut bot, json!({"action":"write_book","pages":["Day 1","Found gold"],"title":"Diary"}));
    let d = done(&mut bot, "book_done", &r["id"]);
    assert_eq!(d["stored"]["item"], "minecraft:written_book", "{d}");
    assert_eq!((d["stored"]["title"].clone(), d["stored"]["author"].clone()), (json!("Diary"), json!("Scribe")), "{d}");
    assert_eq!(d["stored"]["pages"], json!(["Day 1", "Found gold"]), "{d}");
    let p = peer_event(&mut peer, "book_signed", |_| true);
    assert_eq!(
        (p["slot"].clone(), p["title"].clone(), p["author"].clone()),
        (json!(0), json!("Diary"), json!("Scribe")),
        "{p}"
    );
    let b = ok(&mut bot, json!({"action":"read_book","slot":0}));
    assert_eq!(
        (b["item"].clone(), b["title"].clone(), b["author"].clone(), b["pages"].clone()),
        (json!("minecraft:written_book"), json!("Diary"), json!("Scribe"), json!(["Day 1", "Found gold"])),
        "{b}"
    );

    // Refusals: a signed book is no book and quill; too many pages, a long title; an empty slot.
    assert_eq!(code(&mut bot, json!({"action":"write_book","slot":0,"pages":["x"]})), "NO_ITEM");
    let fifty_one: Vec<String> = (0..51).map(|i| i.to_string()).collect();
    assert_eq!(code(&mut bot, json!({"action":"write_book","pages":fifty_one})), "TEXT_TOO_LONG");
    assert_eq!(
        code(&mut bot, json!({"action":"write_book","pages":["a"],"title":"A title far too long"})),
        "TEXT_TOO_LONG"
    );
    assert_eq!(code(&mut bot, json!({"action":"write_book","slot":5,"pages":["x"]})), "NO_ITEM");

    // The other book (slot 9) is found without a slot, and signed with its pages as they are.
    let r = ok(&mut bot, json!({"action":"write_book","title":"Blank"}));
    assert_eq!(r["slot"], 9, "{r}");
    let d = done(&mut bot, "book_done", &r["id"]);
    assert_eq!(
        (d["stored"]["item"].clone(), d["stored"]["title"].clone()),
        (json!("minecraft:written_book"), json!("Blank")),
        "{d}"
    );
    assert_eq!(code(&mut bot, json!({"action":"write_book","pages":["x"]})), "NO_ITEM");
}
