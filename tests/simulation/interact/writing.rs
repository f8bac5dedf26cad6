//! write_sign and write_book: the exact packets a server reads (the click, the sign's block
//! entity one side at a time, the book edits) and receipts built only from the server's answer.

use clawcraft::protocol::codec::{Nbt, NbtTag};
use clawcraft::protocol::packets::{
    Animate, BlockActorData, BlockPos, BookEdit, InventorySlot, InventoryTransaction, ItemExtra, ItemInstance, ItemNbt,
    OpenSign, SignNbt,
};
use clawcraft::world::block::StateValue::Int;
use serde_json::json;

use super::world::*;

const SIGN: [i32; 3] = [1, -60, -2];

fn at(p: [i32; 3]) -> BlockPos {
    BlockPos { x: p[0], y: p[1], z: p[2] }
}

fn sign_nbt(front: &str, back: &str, waxed: bool) -> Nbt {
    let side = |t: &str| NbtTag::Compound(vec![("Text".into(), NbtTag::String(t.into()))]);
    Nbt {
        name: String::new(),
        tag: NbtTag::Compound(vec![
            ("id".into(), NbtTag::String("Sign".into())),
            ("IsWaxed".into(), NbtTag::Byte(i8::from(waxed))),
            ("FrontText".into(), side(front)),
            ("BackText".into(), side(back)),
        ]),
    }
}

/// A standing sign at [`SIGN`] whose back says "Welcome" (as the server sent it), a stone east of
/// it; a book and quill held, another in slot 9.
fn desk() -> Sim {
    let mut w = world(
        &[("standing_sign", vec![("ground_sign_direction", Int(0))], SIGN), ("stone", vec![], [3, -60, -2])],
        &[(0, stack(WRITABLE_BOOK, 1, 1)), (9, stack(WRITABLE_BOOK, 1, 2))],
    );
    w.sim.receive(&BlockActorData { position: at(SIGN), nbt: sign_nbt("", "Welcome", false) });
    w.sim.tick();
    w.sim.sent();
    w
}

fn last(w: &Sim, kind: &str) -> serde_json::Map<String, serde_json::Value> {
    w.events_of(kind).pop().unwrap_or_else(|| panic!("no {kind}"))
}

#[test]
fn write_sign_clicks_waits_for_the_editor_and_sends_one_side_per_packet() {
    let mut w = desk();
    let r = w.ok(r#"{"action":"write_sign","x":1,"y":-60,"z":-2,"front":["Hi","there"],"back":"Bye","id":"s1"}"#);
    assert_eq!((r["writing"].clone(), r["block"].clone()), (json!(true), json!("minecraft:standing_sign")));
    w.sim.tick();
    let bodies = w.sim.sent_bodies();
    let tx = w.sim.decode_all::<InventoryTransaction>(&bodies);
    let click = tx[0].use_item_data().expect("item use");
    assert_eq!((click.action_type.as_str(), click.block_position), ("click_block", at(SIGN)));
    assert_eq!(w.sim.decode_all::<Animate>(&bodies).len(), 1, "a swing with the click");
    assert!(w.sim.decode_all::<BlockActorData>(&bodies).is_empty(), "nothing written before the editor opens");

    // The server opens the back side: the back goes first, then the front on top of it.
    w.sim.receive(&OpenSign { position: at(SIGN), is_front: false });
    w.sim.tick();
    let edits = w.sim.sent_as::<BlockActorData>();
    assert_eq!(edits.len(), 2);
    let read = |p: &BlockActorData| SignNbt::read(&p.nbt).expect("a sign block entity");
    assert_eq!(edits[0].position, at(SIGN));
    assert_eq!((read(&edits[0]).front, read(&edits[0]).back), (String::new(), "Bye".into()));
    assert_eq!((read(&edits[1]).front, read(&edits[1]).back), ("Hi\nthere".into(), "Bye".into()));
    assert!(w.events_of("sign_done").is_empty(), "no verdict before the server's echo");

    // The server's echo holds the text: done, with the stored sign as evidence.
    w.sim.receive(&BlockActorData { position: at(SIGN), nbt: sign_nbt("Hi\nthere", "Bye", false) });
    w.sim.tick();
    let d = last(&w, "sign_done");
    assert_eq!(
        (d["status"].clone(), d["confirmed"].clone(), d["opened"].clone()),
        (json!("done"), json!(true), json!("back"))
    );
    assert_eq!(d["stored"], json!({"front":["Hi","there"],"back":["Bye"],"waxed":false}));
    assert_eq!(d["sent"], 2);
    let b = w.ok(r#"{"action":"block","x":1,"y":-60,"z":-2}"#);
    assert_eq!(b["sign"]["front"], json!(["Hi", "there"]), "the block query reads the server's sign");
}

#[test]
fn a_held_honeycomb_is_refused_before_it_could_wax_the_sign() {
    let mut w =
        world(&[("standing_sign", vec![("ground_sign_direction", Int(0))], SIGN)], &[(0, stack(HONEYCOMB, 1, 1))]);
    w.sim.tick();
    w.sim.sent();
    assert_eq!(w.code(r#"{"action":"write_sign","x":1,"y":-60,"z":-2,"front":"Hi"}"#), "HELD_ITEM_ACTS");
    w.sim.ticks(2);
    assert!(w.sim.sent_as::<InventoryTransaction>().is_empty(), "no click on the sign");
    // With the hand empty the same command clicks.
    w.ok(r#"{"action":"equip","slot":1}"#);
    w.ok(r#"{"action":"write_sign","x":1,"y":-60,"z":-2,"front":"Hi"}"#);
    w.sim.tick();
    let tx = w.sim.sent_as::<InventoryTransaction>();
    assert_eq!(
        tx.iter().filter_map(|t| t.use_item_data()).map(|u| u.action_type.clone()).collect::<Vec<_>>(),
        ["click_block"]
    );
}

#[test]
fn a_sign_edit_the_server_does_not_store_fails_with_its_text_or_unconfirmed() {
    let mut w = desk();
    // No editor opens: the edit goes out anyway after the wait; the server keeps its own text.
    w.ok(r#"{"action":"write_sign","x":1,"y":-60,"z":-2,"front":"Hi","id":"s2"}"#);
    w.sim.ticks(11);
    let edits = w.sim.sent_as::<BlockActorData>();
    assert_eq!(edits.len(), 1, "the edit is sent once the editor wait is over");
    assert_eq!(SignNbt::read(&edits[0].nbt).map(|s| (s.front, s.back)), Some(("Hi".into(), "Welcome".into())));
    w.sim.receive(&BlockActorData { position: at(SIGN), nbt: sign_nbt("", "Welcome", false) });
    w.sim.ticks(21);
    let d = last(&w, "sign_done");
    assert_eq!(
        (d["status"].clone(), d["reason"].clone(), d["opened"].clone()),
        (json!("failed"), json!("rejected"), json!(null))
    );
    assert_eq!(d["stored"]["front"], json!([]));

    // Silence: unconfirmed.
    w.ok(r#"{"action":"write_sign","x":1,"y":-60,"z":-2,"front":"Hi","id":"s3"}"#);
    w.sim.receive(&OpenSign { position: at(SIGN), is_front: true });
    w.sim.ticks(35);
    let d = last(&w, "sign_done");
    assert_eq!(
        (d["status"].clone(), d["reason"].clone(), d["stored"].clone()),
        (json!("failed"), json!("unconfirmed"), json!(null))
    );

    // Refusals before anything is sent.
    w.sim.sent();
    assert_eq!(w.code(r#"{"action":"write_sign","x":3,"y":-60,"z":-2,"front":"x"}"#), "INVALID_TARGET");
    assert_eq!(w.code(r#"{"action":"write_sign","x":1,"y":-60,"z":-2,"back":"x\ny\nz\nw\nv"}"#), "TEXT_TOO_LONG");
    w.sim.receive(&BlockActorData { position: at(SIGN), nbt: sign_nbt("Sealed", "", true) });
    w.sim.tick();
    assert_eq!(w.code(r#"{"action":"write_sign","x":1,"y":-60,"z":-2,"front":"x"}"#), "WAXED");
    assert!(w.sim.sent_as::<BlockActorData>().is_empty());
}

fn book(id: i32, title: Option<&str>, pages: &[&str]) -> ItemInstance {
    let mut tag = vec![(
        "pages".to_owned(),
        NbtTag::List(
            10,
            pages.iter().map(|p| NbtTag::Compound(vec![("text".into(), NbtTag::String((*p).into()))])).collect(),
        ),
    )];
    if let Some(t) = title {
        tag.push(("title".into(), NbtTag::String(t.into())));
        tag.push(("author".into(), NbtTag::String("ClawBot".into())));
    }
    ItemInstance {
        extra: ItemExtra {
            has_nbt: "true".into(),
            nbt: Some(ItemNbt { version: 1, nbt: Nbt { name: String::new(), tag: NbtTag::Compound(tag) } }),
            ..ItemExtra::default()
        },
        ..stack(id, 1, 1)
    }
}

#[test]
fn write_book_sends_the_page_edits_and_the_signature_and_reads_the_slot_back() {
    let mut w = desk();
    let r = w.ok(r#"{"action":"write_book","pages":["One","Two"],"title":"Log","id":"b1"}"#);
    assert_eq!((r["slot"].clone(), r["edits"].clone()), (json!(0), json!(5)));
    w.sim.tick();
    let edits = w.sim.sent_as::<BookEdit>();
    let kinds: Vec<(&str, i32, &str)> =
        edits.iter().map(|e| (e.kind.as_str(), e.page_number, e.text.as_str())).collect();
    assert_eq!(
        kinds,
        vec![
            ("add_page", 0, ""),
            ("replace_page", 0, "One"),
            ("add_page", 1, ""),
            ("replace_page", 1, "Two"),
            ("sign", 0, "")
        ]
    );
    assert!(edits.iter().all(|e| e.inventory_slot == 0));
    assert_eq!((edits[4].title.as_str(), edits[4].author.as_str()), ("Log", "ClawBot"));

    // The slot as a book and quill still: not yet.
    w.sim.receive(&InventorySlot {
        window_id: "inventory".into(),
        slot: 0,
        item: book(WRITABLE_BOOK, None, &["One", "Two"]),
        ..InventorySlot::default()
    });
    w.sim.tick();
    assert!(w.events_of("book_done").is_empty());
    w.sim.receive(&InventorySlot {
        window_id: "inventory".into(),
        slot: 0,
        item: book(WRITTEN_BOOK, Some("Log"), &["One", "Two"]),
        ..InventorySlot::default()
    });
    w.sim.tick();
    let d = last(&w, "book_done");
    assert_eq!((d["status"].clone(), d["confirmed"].clone()), (json!("done"), json!(true)));
    assert_eq!(
        d["stored"],
        json!({"item":"minecraft:written_book","title":"Log","author":"ClawBot","pages":["One","Two"]})
    );

    // The other book: the server puts something else in the slot → rejected.
    let r = w.ok(r#"{"action":"write_book","pages":["x"],"id":"b2"}"#);
    assert_eq!(r["slot"], 9);
    w.sim.tick();
    w.sim.receive(&InventorySlot {
        window_id: "inventory".into(),
        slot: 9,
        item: book(WRITABLE_BOOK, None, &[]),
        ..InventorySlot::default()
    });
    w.sim.ticks(22);
    let d = last(&w, "book_done");
    assert_eq!((d["status"].clone(), d["reason"].clone()), (json!("failed"), json!("rejected")));
    assert_eq!(d["stored"]["pages"], json!([]));

    w.sim.sent();
    assert_eq!(w.code(r#"{"action":"write_book","slot":0,"pages":["x"]}"#), "NO_ITEM", "a written book");
    assert_eq!(w.code(r#"{"action":"write_book","slot":40,"pages":["x"]}"#), "OUT_OF_RANGE");
    assert_eq!(w.code(r#"{"action":"write_book","pages":["x"],"title":"Seventeen chars!!"}"#), "TEXT_TOO_LONG");
    let long_page = format!(r#"{{"action":"write_book","pages":["{}"]}}"#, "x".repeat(257));
    assert_eq!(w.code(&long_page), "TEXT_TOO_LONG");
    assert_eq!(w.code(r#"{"action":"write_book"}"#), "INVALID_PARAMS");
    assert!(w.sim.sent_as::<BookEdit>().is_empty(), "no refusal sent anything");
    assert_eq!(w.code(r#"{"action":"read_book","slot":5}"#), "NO_ITEM");
}
