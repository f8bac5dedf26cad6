//! Writing: `write_sign` (a sign's front and/or back text) and `write_book` (the pages of a book
//! and quill, and signing it), each ending in a receipt built from what the server stored, and
//! `read_book` (a book's pages as the server last sent its slot).
//!
//! A sign is edited the way a Bedrock client edits one: click it (the server answers with
//! `open_sign`, naming the side it opened), then send the sign's whole block entity
//! (`block_entity_data`: `FrontText.Text` / `BackText.Text`, lines joined by `\n`) with one side
//! changed per packet — dragonfly applies the front when it changed, else the back, so both sides
//! take two packets, the opened side first. The server sends the stored block entity back; that
//! echo is the evidence (`sign_done.stored`). A server that opens no editor within
//! [`OPEN_TICKS`] still gets the edit (UNCERTAIN: whether vanilla accepts an edit it did not
//! open; the peer requires the open).
//!
//! A book is written page by page with `book_edit` on its inventory slot (`add_page` for a page
//! the book does not have yet, then `replace_page` with the text; `delete_page` for pages past
//! the new end), then `sign` with the title, the bot's name as author and its XUID (empty
//! offline, [`Xuid`] when signed in to Xbox Live). The server's `inventory_slot` for that slot is the evidence: a written book with the
//! title and pages when signed, the book and quill with the pages otherwise.
//!
//! Limits (refused with `TEXT_TOO_LONG` before anything is sent): a sign side holds
//! [`SIGN_MAX_LINES`] lines and [`SIGN_MAX_BYTES`] bytes (dragonfly's check; vanilla wraps lines
//! by width — UNCERTAIN beyond that); a book [`BOOK_MAX_PAGES`] pages of [`PAGE_MAX_BYTES`]
//! bytes (dragonfly's `book_edit` checks); a title [`TITLE_MAX_CHARS`] characters (the book
//! screen's limit — UNCERTAIN whether a server refuses a longer one).

use bevy_ecs::prelude::*;
use bevy_ecs::world::EntityRef;
use clawcraft_core::{
    ActionSlot, ActionStatus, AgentCommand, AsyncAction, AsyncInfo, CommandCtx, CommandError, EYE_HEIGHT, EndActionExt,
    EntityIds, LocalBot, Outcome, Position, TickCount, Xuid,
};
use clawcraft_inventory::{Inventory, ItemIds, SlotRef};
use clawcraft_network::{ClientboundPacket, Connection};
use clawcraft_protocol::codec::{Nbt, NbtTag};
use clawcraft_protocol::packets::{
    BlockActorData, BlockPos, BookEdit, InventoryContent, InventorySlot, ItemInstance, OpenSign, SignNbt,
};
use clawcraft_world::signs::{SignReport, SignTexts, is_sign, sign_at};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::common::{Aim, BlockXyz, Senses, aim_at, cell_of, click_block, hand_free, inventory, swing, turn_to};
use crate::use_slot::USE_SLOT;

/// Lines on one side of a sign.
pub const SIGN_MAX_LINES: usize = 4;
/// UTF-8 bytes of one side's text (lines and the `\n` between them).
pub const SIGN_MAX_BYTES: usize = 256;
/// Pages of a book.
pub const BOOK_MAX_PAGES: usize = 50;
/// UTF-8 bytes of one page.
pub const PAGE_MAX_BYTES: usize = 256;
/// Characters of a book's title.
pub const TITLE_MAX_CHARS: usize = 16;
/// Ticks to wait for the server to open the sign editor after the click.
pub const OPEN_TICKS: u64 = 10;
/// Ticks to wait for the server's word on an edit.
const CONFIRM_TICKS: u64 = 20;
/// Black, the colour of a fresh sign's text (ARGB as a signed int).
const BLACK: i32 = -16_777_216;

/// `TEXT_TOO_LONG`.
fn too_long(message: String) -> CommandError {
    CommandError::new("TEXT_TOO_LONG", message)
}

// ---------------------------------------------------------------------------------------------
// write_sign
// ---------------------------------------------------------------------------------------------

/// A side's text: one string (lines split at `\n`) or a list of lines.
#[derive(Deserialize, JsonSchema, Debug, Clone)]
#[serde(untagged)]
pub enum SignLines {
    Text(String),
    Lines(Vec<String>),
}

impl SignLines {
    /// The side's text as the block entity holds it (lines joined by `\n`, trailing empty lines
    /// dropped), or `TEXT_TOO_LONG` / `INVALID_PARAMS`.
    pub fn text(&self, side: &str) -> Result<String, CommandError> {
        let mut lines: Vec<&str> = match self {
            SignLines::Text(t) => t.split('\n').collect(),
            SignLines::Lines(l) => {
                if l.iter().any(|s| s.contains('\n')) {
                    return Err(CommandError::invalid_params_text(format!(
                        "{side}: a line holds a newline (give one string per line, or one string with \\n)"
                    )));
                }
                l.iter().map(String::as_str).collect()
            }
        };
        while lines.last().is_some_and(|l| l.is_empty()) {
            lines.pop();
        }
        if lines.len() > SIGN_MAX_LINES {
            return Err(too_long(format!("{side}: {} lines; a sign side holds {SIGN_MAX_LINES}", lines.len())));
        }
        let text = lines.join("\n");
        if text.len() > SIGN_MAX_BYTES {
            return Err(too_long(format!("{side}: {} bytes; a sign side holds {SIGN_MAX_BYTES}", text.len())));
        }
        Ok(text)
    }
}

/// `write_sign`.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WriteSign {
    /// The sign.
    pub x: f64,
    pub y: f64,
    pub z: f64,
    /// Front text: a string (`\n` between lines) or a list of up to 4 lines.
    pub front: Option<SignLines>,
    /// Back text, the same way.
    pub back: Option<SignLines>,
}

/// Response of `write_sign`.
#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct WriteSignResponse {
    /// True: the sign was clicked (the server's verdict is `sign_done`).
    pub writing: bool,
    pub block: String,
    pub pos: BlockXyz,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum SignPhase {
    Click,
    Opening(u64),
    Sent(u64),
}

/// The running `write_sign` action.
#[derive(Component, Debug, Clone)]
pub struct WritingSign {
    pub pos: [i32; 3],
    aim: Aim,
    id: u32,
    pub block: String,
    pub front: Option<String>,
    pub back: Option<String>,
    /// The block entity the edit starts from: the server's, or a fresh one.
    base: Nbt,
    phase: SignPhase,
    /// The side the server opened the editor on (true = front).
    pub opened: Option<bool>,
    /// The sign as the server stored it after the edit (its echo).
    pub stored: Option<SignNbt>,
    /// Block-entity packets sent.
    pub sent: u32,
}

impl WritingSign {
    fn matches(&self) -> bool {
        let Some(s) = &self.stored else { return false };
        self.front.as_ref().is_none_or(|f| *f == s.front) && self.back.as_ref().is_none_or(|b| *b == s.back)
    }
}

/// `sign_done`.
#[derive(Serialize, JsonSchema, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct SignDone {
    pub block: String,
    pub pos: BlockXyz,
    /// True only when the server's block entity holds the text asked for.
    pub confirmed: bool,
    /// The side the server opened the editor on (`front`/`back`); null when it opened none.
    pub opened: Option<String>,
    /// The sign as the server stored it (its block-entity echo); null when it sent none.
    pub stored: Option<SignReport>,
    /// Block-entity packets sent (one per side changed).
    pub sent: u32,
}
clawcraft_core::evidence!(
    SignDone,
    "sign_done",
    "A write_sign ended: confirmed when the server's block-entity echo holds the text (stored = the sign as the server keeps it); failed rejected (stored differs) / unconfirmed (no echo)"
);

impl AsyncAction for WritingSign {
    const SLOT: ActionSlot = USE_SLOT;
    type Evidence = SignDone;

    fn evidence(&self, _outcome: &Outcome, _bot: EntityRef<'_>) -> SignDone {
        SignDone {
            block: self.block.clone(),
            pos: self.pos.into(),
            confirmed: self.matches(),
            opened: self.opened.map(|f| if f { "front" } else { "back" }.to_owned()),
            stored: self.stored.as_ref().map(SignReport::of),
            sent: self.sent,
        }
    }
}

impl AgentCommand for WriteSign {
    const NAME: &'static str = "write_sign";
    const SUMMARY: &'static str = "Write the front and/or back text (up to 4 lines a side) of the sign at x,y,z in reach; async, ends in sign_done with the text the server stored";
    const EXAMPLE: &'static str = r#"{"action":"write_sign","x":2,"y":-60,"z":-3,"front":["Home","of ClawBot"]}"#;
    const ASYNC: Option<AsyncInfo> = Some(AsyncInfo::of::<WritingSign>());
    type Response = WriteSignResponse;

    fn run(self, ctx: &mut CommandCtx<'_>) -> Result<WriteSignResponse, CommandError> {
        if self.front.is_none() && self.back.is_none() {
            return Err(CommandError::invalid_params_text("Give front and/or back text"));
        }
        let front = self.front.as_ref().map(|l| l.text("front")).transpose()?;
        let back = self.back.as_ref().map(|l| l.text("back")).transpose()?;
        hand_free(ctx)?;
        if let Some(held) = inventory(ctx)?.held().filter(|i| marks_signs(&i.name)) {
            return Err(CommandError::new(
                "HELD_ITEM_ACTS",
                format!(
                    "Holding {}: clicking the sign would apply it instead of opening the editor; hold something else first",
                    held.name
                ),
            ));
        }
        let cell = cell_of(self.x, self.y, self.z)?;
        let s = Senses::of(ctx)?;
        let id = s.id_at(cell)?;
        let block = s.name(id);
        if !is_sign(&block) {
            return Err(CommandError::new("INVALID_TARGET", format!("{block} is not a sign")));
        }
        let aim = aim_at(&s, cell, None)?;
        let known = sign_at(ctx.world.get::<SignTexts>(ctx.bot), s.world, cell);
        if known.is_some_and(|k| k.text.waxed) {
            return Err(CommandError::new("WAXED", "The sign is waxed: nobody can edit it"));
        }
        // The block entity as the server last sent it (in a packet or in the chunk), so that its
        // colour, glow and owner go back unchanged; a fresh one when the server sent none.
        let base = known.map_or_else(|| fresh_sign(cell, &block), |k| k.nbt.clone());
        turn_to(ctx.world, ctx.bot, aim.point);
        let action = WritingSign {
            pos: cell,
            aim,
            id,
            block: block.clone(),
            front,
            back,
            base,
            phase: SignPhase::Click,
            opened: None,
            stored: None,
            sent: 0,
        };
        ctx.start(Self::NAME, action, OPEN_TICKS + CONFIRM_TICKS + 40)?;
        Ok(WriteSignResponse { writing: true, block, pos: cell.into() })
    }
}

/// Whether a click on a sign with this item in hand changes the sign instead of opening its
/// editor: a dye colours the text, a glow ink sac lights it, an ink sac darkens it again, a
/// honeycomb waxes the sign (minecraft.wiki "Sign", Bedrock).
fn marks_signs(item: &str) -> bool {
    let name = item.strip_prefix("minecraft:").unwrap_or(item);
    name.ends_with("_dye") || matches!(name, "ink_sac" | "glow_ink_sac" | "honeycomb")
}

/// A side compound as a fresh sign has it.
fn fresh_side() -> NbtTag {
    NbtTag::Compound(vec![
        ("Text".into(), NbtTag::String(String::new())),
        ("TextOwner".into(), NbtTag::String(String::new())),
        ("SignTextColor".into(), NbtTag::Int(BLACK)),
        ("IgnoreLighting".into(), NbtTag::Byte(0)),
        ("HideGlowOutline".into(), NbtTag::Byte(0)),
        ("PersistFormatting".into(), NbtTag::Byte(1)),
    ])
}

/// The block entity of a sign nobody wrote on yet (`HangingSign` for a hanging one).
pub fn fresh_sign(pos: [i32; 3], block: &str) -> Nbt {
    let id = if block.contains("hanging") { "HangingSign" } else { "Sign" };
    Nbt {
        name: String::new(),
        tag: NbtTag::Compound(vec![
            ("id".into(), NbtTag::String(id.into())),
            ("x".into(), NbtTag::Int(pos[0])),
            ("y".into(), NbtTag::Int(pos[1])),
            ("z".into(), NbtTag::Int(pos[2])),
            ("IsWaxed".into(), NbtTag::Byte(0)),
            ("FrontText".into(), fresh_side()),
            ("BackText".into(), fresh_side()),
        ]),
    }
}

/// `nbt` with the `Text` of side `key` (`FrontText`/`BackText`) set to `text` (the side made
/// fresh first when missing or malformed, and a sign's top-level `Text` of the old format left
/// alone).
pub fn with_side_text(nbt: &Nbt, key: &str, text: &str) -> Nbt {
    let mut out = nbt.clone();
    let NbtTag::Compound(root) = &mut out.tag else { return out };
    let side = match root.iter_mut().find(|(k, _)| k == key) {
        Some((_, v)) => v,
        None => {
            root.push((key.to_owned(), fresh_side()));
            &mut root.last_mut().expect("just pushed").1
        }
    };
    if !matches!(side, NbtTag::Compound(_)) {
        *side = fresh_side();
    }
    if let NbtTag::Compound(fields) = side {
        match fields.iter_mut().find(|(k, _)| k == "Text") {
            Some((_, v)) => *v = NbtTag::String(text.to_owned()),
            None => fields.push(("Text".into(), NbtTag::String(text.to_owned()))),
        }
    }
    out
}

/// The block-entity packets of an edit: one per side whose text changes, the opened side first
/// (at least one, so the server always hears the edit), each carrying the sides before it.
pub fn sign_edits(
    pos: [i32; 3],
    base: &Nbt,
    front: Option<&str>,
    back: Option<&str>,
    back_first: bool,
) -> Vec<BlockActorData> {
    let current = SignNbt::read(base).unwrap_or_default();
    let mut sides = vec![("FrontText", front, current.front.as_str()), ("BackText", back, current.back.as_str())];
    if back_first {
        sides.reverse();
    }
    let mut nbt = base.clone();
    let mut out = Vec::new();
    for (key, want, now) in &sides {
        if let Some(text) = want
            && text != now
        {
            nbt = with_side_text(&nbt, key, text);
            out.push(BlockActorData { position: BlockPos { x: pos[0], y: pos[1], z: pos[2] }, nbt: nbt.clone() });
        }
    }
    if out.is_empty() {
        let (key, want, _) = sides.iter().find(|s| s.1.is_some()).copied().unwrap_or(sides[0]);
        nbt = with_side_text(&nbt, key, want.unwrap_or_default());
        out.push(BlockActorData { position: BlockPos { x: pos[0], y: pos[1], z: pos[2] }, nbt });
    }
    out
}

/// Clicks the sign, waits for the editor, sends the edit, waits for the stored text.
#[allow(clippy::type_complexity)]
pub fn step_writing_sign(
    mut commands: Commands,
    mut packets: MessageReader<ClientboundPacket>,
    mut bots: Query<(Entity, &mut WritingSign, &Inventory, &mut Connection, &EntityIds, &Position)>,
    ticks: Res<TickCount>,
) {
    for pkt in packets.read() {
        let Ok((_, mut w, ..)) = bots.get_mut(pkt.bot) else { continue };
        let at = |p: BlockPos| [p.x, p.y, p.z] == w.pos;
        match w.phase {
            SignPhase::Opening(_) => {
                if let Some(o) = pkt.view::<OpenSign>()
                    && at(o.position)
                {
                    w.opened = Some(o.is_front);
                }
            }
            SignPhase::Sent(_) => {
                if let Some(d) = pkt.view::<BlockActorData>()
                    && at(d.position)
                    && let Some(text) = SignNbt::read(&d.nbt)
                {
                    w.stored = Some(text);
                }
            }
            SignPhase::Click => {}
        }
    }
    for (bot, mut w, inv, mut conn, ids, pos) in &mut bots {
        let now = ticks.0;
        match w.phase {
            SignPhase::Click => {
                conn.send(&click_block(inv, pos.0.offset_y(EYE_HEIGHT), w.pos, &w.aim, w.id));
                conn.send(&swing(ids.runtime_id, "useitem"));
                w.phase = SignPhase::Opening(now);
            }
            SignPhase::Opening(at) if w.opened.is_some() || now >= at + OPEN_TICKS => {
                let back_first = w.opened == Some(false);
                for p in sign_edits(w.pos, &w.base, w.front.as_deref(), w.back.as_deref(), back_first) {
                    conn.send(&p);
                    w.sent += 1;
                }
                w.phase = SignPhase::Sent(now);
            }
            SignPhase::Opening(_) => {}
            SignPhase::Sent(_) if w.matches() => commands.end_action(bot, USE_SLOT.name, ActionStatus::Done, None),
            SignPhase::Sent(at) if now >= at + CONFIRM_TICKS => {
                let reason = if w.stored.is_some() { "rejected" } else { "unconfirmed" };
                commands.end_action(bot, USE_SLOT.name, ActionStatus::Failed, Some(reason.into()));
            }
            SignPhase::Sent(_) => {}
        }
    }
}

// ---------------------------------------------------------------------------------------------
// write_book
// ---------------------------------------------------------------------------------------------

/// `write_book`.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WriteBook {
    /// The book's pages (up to 50, replacing what it holds); omit to keep its pages.
    pub pages: Option<Vec<String>>,
    /// Sign the book with this title (up to 16 characters; you are the author): it becomes a
    /// written book and can no longer be edited.
    pub title: Option<String>,
    /// The inventory slot of the book and quill (0–35); default: the held one, else the first.
    pub slot: Option<u8>,
}

/// Response of `write_book`.
#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct WriteBookResponse {
    /// True: the edits were sent (the server's verdict is `book_done`).
    pub writing: bool,
    pub slot: u8,
    /// `book_edit` packets sent.
    pub edits: u32,
}

/// What a book's item says of it.
#[derive(Serialize, JsonSchema, Debug, Clone, PartialEq, Eq, Default)]
pub struct BookReport {
    /// The item (`minecraft:written_book` once signed).
    pub item: String,
    pub title: Option<String>,
    pub author: Option<String>,
    pub pages: Vec<String>,
}

/// A book item's pages, title and author (from its `pages` list of `{text}` compounds).
pub fn book_of(item: &str, wire: &ItemInstance) -> BookReport {
    let tag = wire.tag().unwrap_or_default();
    let get = |k: &str| tag.iter().find(|(n, _)| n == k).map(|(_, v)| v);
    let string = |k: &str| match get(k) {
        Some(NbtTag::String(s)) => Some(s.clone()),
        _ => None,
    };
    let pages = match get("pages") {
        Some(NbtTag::List(_, list)) => list
            .iter()
            .map(|p| match p {
                NbtTag::Compound(f) => match f.iter().find(|(k, _)| k == "text").map(|(_, v)| v) {
                    Some(NbtTag::String(s)) => s.clone(),
                    _ => String::new(),
                },
                _ => String::new(),
            })
            .collect(),
        _ => Vec::new(),
    };
    BookReport { item: item.to_owned(), title: string("title"), author: string("author"), pages }
}

/// The running `write_book` action.
#[derive(Component, Debug, Clone)]
pub struct WritingBook {
    pub slot: u8,
    /// The edits, sent on the first tick.
    edits: Vec<BookEdit>,
    pub pages: Vec<String>,
    pub title: Option<String>,
    sent_at: Option<u64>,
    /// The slot as the server sent it after the edits.
    pub stored: Option<BookReport>,
}

impl WritingBook {
    fn matches(&self) -> bool {
        let Some(s) = &self.stored else { return false };
        let item = if self.title.is_some() { "minecraft:written_book" } else { "minecraft:writable_book" };
        s.item == item && s.pages == self.pages && (self.title.is_none() || s.title == self.title)
    }
}

/// `book_done`.
#[derive(Serialize, JsonSchema, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct BookDone {
    pub slot: u8,
    /// True only when the server's slot holds the pages (and, signing, a written book titled so).
    pub confirmed: bool,
    /// The slot's book as the server sent it after the edits; null when it sent nothing.
    pub stored: Option<BookReport>,
    /// `book_edit` packets sent.
    pub edits: u32,
}
clawcraft_core::evidence!(
    BookDone,
    "book_done",
    "A write_book ended: confirmed when the server's slot holds the pages (signing: a written_book with the title); stored = the book as the server sent it; failed rejected / unconfirmed"
);

impl AsyncAction for WritingBook {
    const SLOT: ActionSlot = USE_SLOT;
    type Evidence = BookDone;

    fn evidence(&self, _outcome: &Outcome, _bot: EntityRef<'_>) -> BookDone {
        BookDone {
            slot: self.slot,
            confirmed: self.matches(),
            stored: self.stored.clone(),
            edits: u32::try_from(self.edits.len()).unwrap_or(u32::MAX),
        }
    }
}

/// The `book_edit` packets that turn `current` into `pages` (then sign with `title` as `author`,
/// whose XUID is empty offline).
pub fn book_edits(
    slot: u8,
    current: &[String],
    pages: &[String],
    title: Option<&str>,
    author: &str,
    xuid: &str,
) -> Vec<BookEdit> {
    let edit = |kind: &str, page: usize, text: &str| BookEdit {
        inventory_slot: i32::from(slot),
        kind: kind.into(),
        page_number: i32::try_from(page).unwrap_or(i32::MAX),
        text: text.into(),
        ..BookEdit::default()
    };
    let mut out = Vec::new();
    for (i, text) in pages.iter().enumerate() {
        match current.get(i) {
            Some(old) if old == text => {}
            Some(_) => out.push(edit("replace_page", i, text)),
            None => {
                out.push(edit("add_page", i, ""));
                out.push(edit("replace_page", i, text));
            }
        }
    }
    for i in (pages.len()..current.len()).rev() {
        out.push(edit("delete_page", i, ""));
    }
    if let Some(title) = title {
        out.push(BookEdit {
            inventory_slot: i32::from(slot),
            kind: "sign".into(),
            title: title.into(),
            author: author.into(),
            xuid: xuid.into(),
            ..BookEdit::default()
        });
    }
    out
}

impl AgentCommand for WriteBook {
    const NAME: &'static str = "write_book";
    const SUMMARY: &'static str = "Write pages into a book and quill (held, or at slot), and sign it with a title; async, ends in book_done with the book as the server stored it";
    const EXAMPLE: &'static str = r#"{"action":"write_book","pages":["Day 1: found iron"],"title":"Diary"}"#;
    const ASYNC: Option<AsyncInfo> = Some(AsyncInfo::of::<WritingBook>());
    type Response = WriteBookResponse;

    fn run(self, ctx: &mut CommandCtx<'_>) -> Result<WriteBookResponse, CommandError> {
        if self.pages.is_none() && self.title.is_none() {
            return Err(CommandError::invalid_params_text("Give pages and/or a title"));
        }
        if let Some(pages) = &self.pages {
            if pages.len() > BOOK_MAX_PAGES {
                return Err(too_long(format!("{} pages; a book holds {BOOK_MAX_PAGES}", pages.len())));
            }
            if let Some((i, p)) = pages.iter().enumerate().find(|(_, p)| p.len() > PAGE_MAX_BYTES) {
                return Err(too_long(format!("page {i}: {} bytes; a page holds {PAGE_MAX_BYTES}", p.len())));
            }
        }
        if let Some(t) = &self.title {
            if t.trim().is_empty() {
                return Err(CommandError::invalid_params_text("The title is empty"));
            }
            if t.chars().count() > TITLE_MAX_CHARS {
                return Err(too_long(format!(
                    "title: {} characters; a title holds {TITLE_MAX_CHARS}",
                    t.chars().count()
                )));
            }
        }
        hand_free(ctx)?;
        let inv = inventory(ctx)?;
        let is_book = |s: u8| inv.get(SlotRef::Inv(s)).is_some_and(|i| i.is_named("writable_book"));
        let slot = match self.slot {
            Some(s) if usize::from(s) >= clawcraft_inventory::INVENTORY_SLOTS => {
                return Err(CommandError::out_of_range("slot must be 0-35"));
            }
            Some(s) if is_book(s) => s,
            Some(s) => {
                let what = inv.get(SlotRef::Inv(s)).map_or_else(|| "nothing".to_owned(), |i| i.name.to_string());
                return Err(CommandError::new("NO_ITEM", format!("Slot {s} holds {what}, not a writable_book")));
            }
            None if is_book(inv.held_slot) => inv.held_slot,
            None => *inv
                .find("writable_book")
                .iter()
                .find(|s| is_book(**s))
                .ok_or_else(|| CommandError::new("NO_ITEM", "No writable_book in the inventory"))?,
        };
        let item = inv.get(SlotRef::Inv(slot)).ok_or_else(|| CommandError::internal("book vanished"))?;
        let current = book_of(&item.name, &item.wire).pages;
        let pages = self.pages.unwrap_or_else(|| current.clone());
        let author = ctx.world.get::<LocalBot>(ctx.bot).map(|b| b.username.clone()).unwrap_or_default();
        let xuid = ctx.world.get::<Xuid>(ctx.bot).map(|x| x.0.as_str()).unwrap_or_default();
        let edits = book_edits(slot, &current, &pages, self.title.as_deref(), &author, xuid);
        if edits.is_empty() {
            return Err(CommandError::invalid_params_text("The book already holds these pages (nothing to write)"));
        }
        let n = u32::try_from(edits.len()).unwrap_or(u32::MAX);
        let action = WritingBook { slot, edits, pages, title: self.title, sent_at: None, stored: None };
        ctx.start(Self::NAME, action, CONFIRM_TICKS + 40)?;
        Ok(WriteBookResponse { writing: true, slot, edits: n })
    }
}

/// Sends the edits, then reads the server's word on the slot.
#[allow(clippy::type_complexity)]
pub fn step_writing_book(
    mut commands: Commands,
    mut packets: MessageReader<ClientboundPacket>,
    mut bots: Query<(Entity, &mut WritingBook, &mut Connection, Option<&ItemIds>)>,
    ticks: Res<TickCount>,
) {
    for pkt in packets.read() {
        let Ok((_, mut w, _, names)) = bots.get_mut(pkt.bot) else { continue };
        if w.sent_at.is_none() {
            continue;
        }
        let slot = if let Some(s) = pkt.view::<InventorySlot>() {
            (s.window_id == "inventory" && s.slot == u32::from(w.slot)).then(|| s.item.clone())
        } else if let Some(c) = pkt.view::<InventoryContent>() {
            (c.window_id == "inventory").then(|| c.input.get(usize::from(w.slot)).cloned()).flatten()
        } else {
            None
        };
        if let Some(item) = slot {
            let name =
                names.map_or_else(|| format!("item#{}", item.network_id), |n| n.name(item.network_id).to_string());
            w.stored = Some(if item.is_air() { BookReport::default() } else { book_of(&name, &item) });
        }
    }
    for (bot, mut w, mut conn, _) in &mut bots {
        let now = ticks.0;
        match w.sent_at {
            None => {
                for e in &w.edits {
                    conn.send(e);
                }
                w.sent_at = Some(now);
            }
            Some(_) if w.matches() => commands.end_action(bot, USE_SLOT.name, ActionStatus::Done, None),
            Some(at) if now >= at + CONFIRM_TICKS => {
                let reason = if w.stored.is_some() { "rejected" } else { "unconfirmed" };
                commands.end_action(bot, USE_SLOT.name, ActionStatus::Failed, Some(reason.into()));
            }
            Some(_) => {}
        }
    }
}

// ---------------------------------------------------------------------------------------------
// read_book
// ---------------------------------------------------------------------------------------------

/// `read_book`.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ReadBook {
    /// The inventory slot of the book (0–35); default: the held book, else the first book.
    pub slot: Option<u8>,
}

/// Response of `read_book`.
#[derive(Serialize, JsonSchema)]
pub struct ReadBookResponse {
    pub slot: u8,
    /// The book as the server last sent the slot.
    #[serde(flatten)]
    pub book: BookReport,
}

/// Whether an item is a book with pages (a book and quill, or a written book).
fn is_written_on(name: &str) -> bool {
    matches!(name.strip_prefix("minecraft:").unwrap_or(name), "writable_book" | "written_book")
}

impl AgentCommand for ReadBook {
    const NAME: &'static str = "read_book";
    const SUMMARY: &'static str =
        "The title, author and pages of a book (book and quill or written book) in the inventory, held or at slot";
    const EXAMPLE: &'static str = r#"{"action":"read_book","slot":0}"#;
    const QUERY: bool = true;
    type Response = ReadBookResponse;

    fn run(self, ctx: &mut CommandCtx<'_>) -> Result<ReadBookResponse, CommandError> {
        let inv = inventory(ctx)?;
        let book_at = |s: u8| inv.get(SlotRef::Inv(s)).filter(|i| is_written_on(&i.name));
        let slot = match self.slot {
            Some(s) if usize::from(s) >= clawcraft_inventory::INVENTORY_SLOTS => {
                return Err(CommandError::out_of_range("slot must be 0-35"));
            }
            Some(s) => s,
            None if book_at(inv.held_slot).is_some() => inv.held_slot,
            None => inv.indexed().find(|(_, i)| is_written_on(&i.name)).map(|(s, _)| s).unwrap_or(inv.held_slot),
        };
        let item = book_at(slot).ok_or_else(|| CommandError::new("NO_ITEM", format!("No book in slot {slot}")))?;
        Ok(ReadBookResponse { slot, book: book_of(&item.name, &item.wire) })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sign_text_limits_and_shapes() {
        let t = |l: SignLines| l.text("front");
        assert_eq!(t(SignLines::Text("a\nb\n\n".into())).ok().as_deref(), Some("a\nb"));
        assert_eq!(t(SignLines::Lines(vec!["a".into(), "".into(), "c".into()])).ok().as_deref(), Some("a\n\nc"));
        let five = SignLines::Lines((0..5).map(|i| i.to_string()).collect());
        assert_eq!(t(five).map_err(|e| e.code), Err("TEXT_TOO_LONG"));
        assert_eq!(t(SignLines::Text("x".repeat(SIGN_MAX_BYTES))).map(|s| s.len()), Ok(SIGN_MAX_BYTES));
        assert_eq!(t(SignLines::Text("x".repeat(SIGN_MAX_BYTES + 1))).map_err(|e| e.code), Err("TEXT_TOO_LONG"));
        assert_eq!(t(SignLines::Lines(vec!["a\nb".into()])).map_err(|e| e.code), Err("INVALID_PARAMS"));
    }

    #[test]
    fn sign_edits_change_one_side_per_packet_and_keep_the_rest() {
        let base = with_side_text(&fresh_sign([1, 2, 3], "minecraft:standing_sign"), "BackText", "keep");
        let both = sign_edits([1, 2, 3], &base, Some("F"), Some("B"), false);
        let read = |p: &BlockActorData| SignNbt::read(&p.nbt).expect("sign");
        assert_eq!(both.len(), 2);
        assert_eq!((read(&both[0]).front, read(&both[0]).back), ("F".into(), "keep".into()));
        assert_eq!((read(&both[1]).front, read(&both[1]).back), ("F".into(), "B".into()));
        let back_first = sign_edits([1, 2, 3], &base, Some("F"), Some("B"), true);
        assert_eq!((read(&back_first[0]).front, read(&back_first[0]).back), (String::new(), "B".into()));
        // Only the front asked: the back the server holds goes back unchanged.
        let front = sign_edits([1, 2, 3], &base, Some("F"), None, false);
        assert_eq!(front.len(), 1);
        assert_eq!(read(&front[0]), SignNbt { front: "F".into(), back: "keep".into(), waxed: false });
        assert_eq!(front[0].position, BlockPos { x: 1, y: 2, z: 3 });
        // Nothing changes: one packet all the same, so the server hears the edit.
        assert_eq!(sign_edits([1, 2, 3], &base, None, Some("keep"), false).len(), 1);
        let hanging = fresh_sign([0, 0, 0], "minecraft:oak_hanging_sign");
        assert!(SignNbt::read(&hanging).is_some());
    }

    #[test]
    fn book_edits_add_replace_delete_and_sign() {
        let s = |v: &[&str]| v.iter().map(|x| (*x).to_owned()).collect::<Vec<_>>();
        let kinds = |e: &[BookEdit]| e.iter().map(|e| (e.kind.clone(), e.page_number)).collect::<Vec<_>>();
        let e = book_edits(4, &s(&["a", "b", "c"]), &s(&["a", "B", "c", "d"]), Some("T"), "Bot", "2535400000000001");
        assert_eq!(
            kinds(&e),
            vec![("replace_page".into(), 1), ("add_page".into(), 3), ("replace_page".into(), 3), ("sign".into(), 0)]
        );
        assert!(e.iter().all(|e| e.inventory_slot == 4));
        assert_eq!((e[3].title.as_str(), e[3].author.as_str(), e[3].xuid.as_str()), ("T", "Bot", "2535400000000001"));
        assert_eq!(e[2].text, "d");
        let shorter = book_edits(0, &s(&["a", "b", "c"]), &s(&["a"]), None, "Bot", "");
        assert_eq!(kinds(&shorter), vec![("delete_page".into(), 2), ("delete_page".into(), 1)]);
        assert!(book_edits(0, &s(&["a"]), &s(&["a"]), None, "Bot", "").is_empty());
    }
}
