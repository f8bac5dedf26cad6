//! Sign and book packets: typed views (minecraft-data field names), for the codec.
//!
//! Bedrock edits a sign by block-entity data: the server opens the editor (`open_sign`, after
//! the player placed a sign or clicked one), the client answers with the sign's whole block
//! entity (`block_entity_data`: `id` `"Sign"`, `FrontText`/`BackText` compounds whose `Text` holds
//! the side's lines joined by `\n`, `IsWaxed`), and the server sends the stored block entity back
//! to everyone who sees it. A book and quill is edited page by page (`book_edit`) and signed by
//! the same packet, after which the server puts a written book in the slot.

use super::BlockPos;
use crate::codec::{Nbt, NbtTag, Packet};
use serde::{Deserialize, Serialize};

/// `block_entity_data` (gophertunnel's BlockActorData; both ways): a block entity's NBT, in the
/// network little-endian varint flavour.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct BlockActorData {
    /// The block entity's block.
    pub position: BlockPos,
    /// Its whole NBT compound (`id`, `x`/`y`/`z`, and the entity's own fields).
    pub nbt: Nbt,
}
packet!(BlockActorData, "block_entity_data");

/// `open_sign` (server → client): open the sign editor for one side of the sign at `position`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct OpenSign {
    /// The sign.
    pub position: BlockPos,
    /// True for the front side, false for the back.
    pub is_front: bool,
}
packet!(OpenSign, "open_sign");

/// `book_edit` (client → server): one edit of the book and quill in an inventory slot. Which
/// fields count depends on `kind`: `replace_page`/`add_page` use `page_number`, `text` and
/// `photo_name`; `delete_page` `page_number`; `swap_pages` `page1`/`page2`; `sign` `title`,
/// `author` and `xuid`. The others take their neutral values.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct BookEdit {
    /// Inventory slot of the book (hotbar 0–8, then the main inventory 9–35).
    pub inventory_slot: i32,
    /// `replace_page`, `add_page`, `delete_page`, `swap_pages` or `sign`.
    #[serde(rename = "type")]
    pub kind: String,
    /// The page (0-based) of `replace_page`, `add_page`, `delete_page`.
    pub page_number: i32,
    /// The page's text.
    pub text: String,
    /// A photo's name (Education Edition); empty.
    pub photo_name: String,
    /// First page of `swap_pages`.
    pub page1: i32,
    /// Second page of `swap_pages`.
    pub page2: i32,
    /// Title of `sign`.
    pub title: String,
    /// Author of `sign` (the player's name).
    pub author: String,
    /// XUID of `sign` (empty offline).
    pub xuid: String,
}
packet!(BookEdit, "book_edit");

/// The text of one side of a sign, and whether the sign is waxed, from a sign block entity.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct SignNbt {
    /// `FrontText.Text` (lines joined by `\n`).
    pub front: String,
    /// `BackText.Text`.
    pub back: String,
    /// `IsWaxed`.
    pub waxed: bool,
}

impl SignNbt {
    /// Reads a sign block entity (`id` `"Sign"` or `"HangingSign"`); `None` for anything else.
    /// A sign written before the two-sided format (a top-level `Text`) reads as its front.
    pub fn read(nbt: &Nbt) -> Option<SignNbt> {
        let NbtTag::Compound(root) = &nbt.tag else { return None };
        let id = compound_str(root, "id")?;
        if id != "Sign" && id != "HangingSign" {
            return None;
        }
        let side = |key: &str| match root.iter().find(|(k, _)| k == key).map(|(_, v)| v) {
            Some(NbtTag::Compound(side)) => compound_str(side, "Text").unwrap_or_default().to_owned(),
            _ => String::new(),
        };
        let front = match compound_str(root, "Text") {
            Some(old) if !root.iter().any(|(k, _)| k == "FrontText") => old.to_owned(),
            _ => side("FrontText"),
        };
        let waxed =
            matches!(root.iter().find(|(k, _)| k == "IsWaxed").map(|(_, v)| v), Some(NbtTag::Byte(b)) if *b != 0);
        Some(SignNbt { front, back: side("BackText"), waxed })
    }
}

/// A string entry of a compound.
fn compound_str<'a>(entries: &'a [(String, NbtTag)], key: &str) -> Option<&'a str> {
    match entries.iter().find(|(k, _)| k == key).map(|(_, v)| v) {
        Some(NbtTag::String(s)) => Some(s),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(v: &str) -> NbtTag {
        NbtTag::String(v.into())
    }

    fn sign(entries: Vec<(&str, NbtTag)>) -> Nbt {
        Nbt {
            name: String::new(),
            tag: NbtTag::Compound(entries.into_iter().map(|(k, v)| (k.to_owned(), v)).collect()),
        }
    }

    #[test]
    fn sign_text_reads_both_sides_the_old_format_and_nothing_else() {
        let two_sided = sign(vec![
            ("id", s("Sign")),
            ("IsWaxed", NbtTag::Byte(1)),
            ("FrontText", NbtTag::Compound(vec![("Text".into(), s("a\nb"))])),
            ("BackText", NbtTag::Compound(vec![("Text".into(), s("c"))])),
        ]);
        assert_eq!(SignNbt::read(&two_sided), Some(SignNbt { front: "a\nb".into(), back: "c".into(), waxed: true }));
        let old = sign(vec![("id", s("Sign")), ("Text", s("old"))]);
        assert_eq!(SignNbt::read(&old), Some(SignNbt { front: "old".into(), back: String::new(), waxed: false }));
        assert_eq!(SignNbt::read(&sign(vec![("id", s("Chest"))])), None);
        assert_eq!(SignNbt::read(&sign(vec![("FrontText", NbtTag::Compound(vec![]))])), None);
        assert_eq!(SignNbt::read(&Nbt { name: String::new(), tag: NbtTag::Int(3) }), None);
        // A side that is not a compound reads as empty, not as an error.
        let odd = sign(vec![("id", s("HangingSign")), ("FrontText", s("x"))]);
        assert_eq!(SignNbt::read(&odd).map(|t| t.front), Some(String::new()));
    }
}
