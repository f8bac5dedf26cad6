//! The place book: named positions shared by the bots of one process — `remember`, `places`,
//! `forget`, and [`PlaceBook`] for plugins.
//!
//! On disk it is one JSON file (`{"version":1,"places":[…]}`), written to a temporary file and
//! renamed into place on every change, so a crash leaves the old book or the new one. A file that
//! does not parse is moved aside to `<file>.bak` with a warning and the book starts empty; an
//! entry that breaks the rules is skipped with a warning. A change that cannot be written is
//! refused (`INTERNAL`) and the book stays as it was, so memory and disk agree.

use std::io::Write;
use std::path::{Path, PathBuf};

use bevy_ecs::prelude::*;
use clawcraft_core::event::now_ms;
use clawcraft_core::{
    AgentCommand, CommandCtx, CommandError, Lifecycle, LocalBot, Position, Vec3, WorldInfo, bot_list, resolve_bot,
};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The place book's file name, next to the skills store.
pub const FILE_NAME: &str = "places.json";
/// Most places the book holds.
pub const MAX_PLACES: usize = 100;
/// Longest place name, in characters.
pub const MAX_NAME_CHARS: usize = 32;
/// Farthest x or z a place may be at (the world border).
const MAX_XZ: f64 = 30_000_000.0;
/// Highest (and, negated, lowest) y a place may be at.
const MAX_Y: f64 = 2_048.0;

/// One named position.
#[derive(Serialize, Deserialize, JsonSchema, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct Place {
    /// As given when remembered (looked up ignoring case).
    pub name: String,
    pub pos: Vec3,
    /// The dimension of the bot that remembered it (`overworld`, `nether`, `the_end`), when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dimension: Option<String>,
    /// The bot that remembered it; null when the agent gave it without a bot.
    #[serde(default)]
    pub by: Option<String>,
    /// When it was remembered (Unix ms).
    pub at_ms: u64,
}

/// The file's shape.
#[derive(Serialize, Deserialize)]
struct BookFile {
    version: u32,
    places: Vec<Place>,
}

/// The process's place book (a resource): read it from any system; change it with
/// [`PlaceBook::remember`] and [`PlaceBook::forget`], which persist before they return.
#[derive(Resource, Debug, Default, Clone, PartialEq)]
pub struct PlaceBook {
    /// In name order (ignoring case).
    places: Vec<Place>,
    path: Option<PathBuf>,
}

/// `name` as stored: trimmed, 1..=[`MAX_NAME_CHARS`] letters, digits, spaces, `_`, `-` or `.`.
pub fn check_name(name: &str) -> Result<String, CommandError> {
    let name = name.trim();
    let ok = |c: char| c.is_ascii_alphanumeric() || matches!(c, ' ' | '_' | '-' | '.');
    if name.is_empty() || name.chars().count() > MAX_NAME_CHARS || !name.chars().all(ok) {
        return Err(CommandError::invalid_params_text(format!(
            "Invalid place name {name:?}: 1–{MAX_NAME_CHARS} letters, digits, spaces, `_`, `-` or `.`"
        )));
    }
    Ok(name.to_owned())
}

/// A position a place may have: finite, inside the world border and the build limits.
pub fn check_pos(pos: Vec3) -> Result<Vec3, CommandError> {
    let finite = pos.x.is_finite() && pos.y.is_finite() && pos.z.is_finite();
    if !finite || pos.x.abs() > MAX_XZ || pos.z.abs() > MAX_XZ || pos.y.abs() > MAX_Y {
        return Err(CommandError::out_of_range(format!("x and z must be within ±{MAX_XZ}, y within ±{MAX_Y}")));
    }
    Ok(pos.rounded())
}

impl PlaceBook {
    /// An empty book that lives in memory only.
    pub fn in_memory() -> Self {
        Self::default()
    }

    /// The book kept in `path`: its places when the file exists (problems are logged as
    /// warnings and the readable part is kept; a file that does not parse is moved to
    /// `<path>.bak`), otherwise empty. Never fails: the process plays on without its places.
    pub fn open(path: PathBuf) -> Self {
        let mut book = Self { places: Vec::new(), path: Some(path.clone()) };
        let text = match std::fs::read_to_string(&path) {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return book,
            Err(e) => {
                tracing::warn!(file = %path.display(), error = %e, "place book unreadable; starting empty");
                return book;
            }
        };
        let file: BookFile = match serde_json::from_str(&text) {
            Ok(file) => file,
            Err(e) => {
                let bak = backup_path(&path);
                let kept = std::fs::rename(&path, &bak).map(|()| bak.display().to_string());
                tracing::warn!(
                    file = %path.display(),
                    error = %e,
                    kept_as = %kept.unwrap_or_else(|e| format!("(not kept: {e})")),
                    "place book does not parse; starting empty"
                );
                return book;
            }
        };
        for place in file.places {
            let checked = check_name(&place.name).and_then(|name| Ok((name, check_pos(place.pos)?)));
            match checked {
                Ok((name, _)) if book.index(&name).is_ok() => {
                    tracing::warn!(file = %path.display(), place = %name, "place named twice; the first is kept");
                }
                Ok((name, _)) if book.places.len() >= MAX_PLACES => {
                    tracing::warn!(file = %path.display(), place = %name, "place book over {MAX_PLACES} places; skipped");
                }
                Ok((name, pos)) => {
                    let at = book.index(&name).unwrap_or_else(|i| i);
                    book.places.insert(at, Place { name, pos, ..place });
                }
                Err(e) => {
                    tracing::warn!(file = %path.display(), place = %place.name, error = %e.message, "place skipped")
                }
            }
        }
        book
    }

    /// The file the book is kept in (`None`: memory only).
    pub fn path(&self) -> Option<&Path> {
        self.path.as_deref()
    }

    /// The place called `name` (ignoring case).
    pub fn get(&self, name: &str) -> Option<&Place> {
        self.index(name.trim()).ok().map(|i| &self.places[i])
    }

    /// Every place, in name order.
    pub fn iter(&self) -> impl Iterator<Item = &Place> {
        self.places.iter()
    }

    pub fn len(&self) -> usize {
        self.places.len()
    }

    pub fn is_empty(&self) -> bool {
        self.places.is_empty()
    }

    /// Where `name` is in the list, or where it would go.
    fn index(&self, name: &str) -> Result<usize, usize> {
        let key = name.to_ascii_lowercase();
        self.places.binary_search_by(|p| p.name.to_ascii_lowercase().cmp(&key))
    }

    /// Stores `place` (its name and position checked), replacing one of the same name; whether
    /// it replaced one. Written to disk before it returns (`INTERNAL` when that fails, and the
    /// book is unchanged); `OUT_OF_RANGE` when the book is full.
    pub fn remember(&mut self, place: Place) -> Result<bool, CommandError> {
        let name = check_name(&place.name)?;
        let pos = check_pos(place.pos)?;
        let mut next = self.places.clone();
        let replaced = match self.index(&name) {
            Ok(i) => {
                next[i] = Place { name, pos, ..place };
                true
            }
            Err(_) if next.len() >= MAX_PLACES => {
                return Err(CommandError::out_of_range(format!(
                    "the place book is full ({MAX_PLACES} places): forget one first"
                )));
            }
            Err(i) => {
                next.insert(i, Place { name, pos, ..place });
                false
            }
        };
        self.commit(next)?;
        Ok(replaced)
    }

    /// Removes the place called `name` (ignoring case) and returns it; `UNKNOWN_PLACE` naming
    /// the closest names when there is none. Written to disk before it returns.
    pub fn forget(&mut self, name: &str) -> Result<Place, CommandError> {
        let i = self.index(name.trim()).map_err(|_| self.unknown(name.trim()))?;
        let mut next = self.places.clone();
        let gone = next.remove(i);
        self.commit(next)?;
        Ok(gone)
    }

    /// `UNKNOWN_PLACE` for `name`, with the closest known names.
    fn unknown(&self, name: &str) -> CommandError {
        let lower = name.to_ascii_lowercase();
        let mut close: Vec<(usize, &str)> = self
            .places
            .iter()
            .map(|p| (clawcraft_core::command::edit_distance(&lower, &p.name.to_ascii_lowercase()), p.name.as_str()))
            .filter(|(d, n)| *d <= 2.max(n.len() / 3) || n.to_ascii_lowercase().contains(&lower))
            .collect();
        close.sort();
        let hint = match close.as_slice() {
            [] if self.places.is_empty() => String::from(" (the place book is empty)"),
            [] if self.places.len() <= 8 => {
                format!(" (places: {})", self.places.iter().map(|p| p.name.as_str()).collect::<Vec<_>>().join(", "))
            }
            [] => format!(" ({} places; see places)", self.places.len()),
            close => {
                format!(" (did you mean: {})", close.iter().take(3).map(|(_, n)| *n).collect::<Vec<_>>().join(", "))
            }
        };
        CommandError::new("UNKNOWN_PLACE", format!("No place named {name}{hint}"))
    }

    /// Writes `next` to disk (when the book has a file), then makes it the book.
    fn commit(&mut self, next: Vec<Place>) -> Result<(), CommandError> {
        if let Some(path) = &self.path {
            let file = BookFile { version: 1, places: next };
            write_atomically(path, &file)
                .map_err(|e| CommandError::internal(format!("cannot save the place book {}: {e}", path.display())))?;
            self.places = file.places;
        } else {
            self.places = next;
        }
        Ok(())
    }
}

/// `places.json` → `places.json.bak`.
fn backup_path(path: &Path) -> PathBuf {
    let mut name = path.file_name().map(|n| n.to_os_string()).unwrap_or_default();
    name.push(".bak");
    path.with_file_name(name)
}

/// Writes `value` to a temporary file beside `path`, flushes it to disk and renames it over `path`.
fn write_atomically<T: Serialize>(path: &Path, value: &T) -> std::io::Result<()> {
    if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent)?;
    }
    let text = serde_json::to_string_pretty(value).map_err(std::io::Error::other)?;
    let mut tmp_name = path.file_name().map(|n| n.to_os_string()).unwrap_or_default();
    tmp_name.push(".tmp");
    let tmp = path.with_file_name(tmp_name);
    let mut file = std::fs::File::create(&tmp)?;
    file.write_all(text.as_bytes())?;
    file.write_all(b"\n")?;
    file.sync_all()?;
    drop(file);
    std::fs::rename(&tmp, path)
}

/// The bot addressed by a process-wide request (`None` when the request named none while several
/// bots run), with its name.
fn addressed(ctx: &CommandCtx<'_>) -> Option<(Entity, String)> {
    let name = ctx.world.get::<LocalBot>(ctx.bot)?.username.clone();
    Some((ctx.bot, name))
}

/// The spawned feet position of `bot`.
fn feet(world: &World, bot: Entity) -> Result<Vec3, CommandError> {
    if world.get::<Lifecycle>(bot) != Some(&Lifecycle::Spawned) {
        return Err(CommandError::not_spawned());
    }
    world.get::<Position>(bot).map(|p| p.0).ok_or_else(CommandError::not_spawned)
}

/// `{"action":"remember","name":"base","bot":"Ann"}`: the addressed bot's position (or `x`,
/// `y`, `z`) under `name`, in the process's place book.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Remember {
    /// 1–32 letters, digits, spaces, `_`, `-` or `.`; an existing name (any case) is replaced.
    pub name: String,
    /// With `y` and `z`: this position instead of the addressed bot's.
    pub x: Option<f64>,
    pub y: Option<f64>,
    pub z: Option<f64>,
}

impl Remember {
    /// The addressed bot's position, as `name`.
    pub fn here(name: impl Into<String>) -> Self {
        Self { name: name.into(), x: None, y: None, z: None }
    }

    /// `at`, as `name`.
    pub fn at(name: impl Into<String>, at: Vec3) -> Self {
        Self { name: name.into(), x: Some(at.x), y: Some(at.y), z: Some(at.z) }
    }
}

/// Response of `remember`.
#[derive(Serialize, JsonSchema, Debug, Clone, PartialEq)]
pub struct RememberResponse {
    #[serde(flatten)]
    pub place: Place,
    /// A place of the same name was replaced.
    pub replaced: bool,
    /// Places in the book now.
    pub count: usize,
    /// Written to the place book's file (false: the book lives in memory only).
    pub persisted: bool,
}

impl AgentCommand for Remember {
    const NAME: &'static str = "remember";
    const SUMMARY: &'static str = "Remember a named position in the process's place book (shared by its bots, kept on disk): the addressed bot's, or x,y,z";
    const EXAMPLE: &'static str = r#"{"action":"remember","name":"base","x":10.5,"y":-60,"z":4.5}"#;
    const NEEDS_SPAWN: bool = false;
    const PER_BOT: bool = false;
    const MISSING_PARAMS: &'static [(&'static str, &'static str)] = &[("name", "Need name")];
    type Response = RememberResponse;

    fn run(self, ctx: &mut CommandCtx<'_>) -> Result<RememberResponse, CommandError> {
        let name = check_name(&self.name)?;
        let bot = addressed(ctx);
        let pos = match (self.x, self.y, self.z) {
            (Some(x), Some(y), Some(z)) => Vec3::new(x, y, z),
            (None, None, None) => {
                let Some((bot, _)) = &bot else {
                    let names: Vec<String> = bot_list(ctx.world).into_iter().map(|(_, n)| n).collect();
                    return Err(CommandError::new(
                        "BOT_REQUIRED",
                        format!(
                            "remember without x, y, z stores a bot's position: name one with \"bot\" ({}), or give x, y, z",
                            if names.is_empty() { "no bot runs".to_owned() } else { names.join(", ") }
                        ),
                    ));
                };
                feet(ctx.world, *bot)?
            }
            _ => {
                return Err(CommandError::invalid_params_text(
                    "Need x, y, z (all three), or none for the bot's position",
                ));
            }
        };
        let dimension = bot
            .as_ref()
            .and_then(|(e, _)| ctx.world.get::<WorldInfo>(*e))
            .map(|w| w.dimension.clone())
            .filter(|d| !d.is_empty());
        let place = Place { name, pos, dimension, by: bot.map(|(_, n)| n), at_ms: now_ms() };
        let mut book = ctx.world.resource_mut::<PlaceBook>();
        let replaced = book.remember(place.clone())?;
        let place = book.get(&place.name).cloned().unwrap_or(place);
        Ok(RememberResponse { place, replaced, count: book.len(), persisted: book.path().is_some() })
    }
}

/// `{"action":"places","near":"Ann"}`: the place book, nearest first from a bot when `near`
/// names one.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Places {
    /// A bot of this process: sort by distance from its feet (each place gets a `distance`).
    pub near: Option<String>,
    /// At most this many places (1–100; default all).
    pub limit: Option<u32>,
}

/// One place in `places`.
#[derive(Serialize, JsonSchema, Debug, Clone, PartialEq)]
pub struct PlaceEntry {
    #[serde(flatten)]
    pub place: Place,
    /// Blocks from the `near` bot's feet (only with `near`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub distance: Option<f64>,
}

/// Response of `places`.
#[derive(Serialize, JsonSchema, Debug, Clone, PartialEq)]
pub struct PlacesResponse {
    /// In name order, or nearest first with `near`.
    pub places: Vec<PlaceEntry>,
    /// Places in the book (more than listed when `limit` cut the list).
    pub count: usize,
    /// The bot the distances are from.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub near: Option<String>,
}

impl AgentCommand for Places {
    const NAME: &'static str = "places";
    const SUMMARY: &'static str =
        "The process's place book: every remembered place, or the nearest first from a bot (`near`)";
    const EXAMPLE: &'static str = r#"{"action":"places","near":"Ann","limit":5}"#;
    const NEEDS_SPAWN: bool = false;
    const PER_BOT: bool = false;
    const QUERY: bool = true;
    const SIZE_HINT: Option<&'static str> = Some("pass near and a small limit");
    type Response = PlacesResponse;

    fn run(self, ctx: &mut CommandCtx<'_>) -> Result<PlacesResponse, CommandError> {
        let limit = match self.limit {
            Some(l) if !(1..=MAX_PLACES as u32).contains(&l) => {
                return Err(CommandError::out_of_range(format!("limit must be between 1 and {MAX_PLACES}")));
            }
            Some(l) => l as usize,
            None => MAX_PLACES,
        };
        let near = match self.near.as_deref().map(str::trim) {
            Some(name) => {
                let bot = resolve_bot(ctx.world, Some(name), true)?.ok_or_else(CommandError::not_spawned)?;
                let name = ctx.world.get::<LocalBot>(bot).map(|b| b.username.clone()).unwrap_or_default();
                Some((name, feet(ctx.world, bot)?))
            }
            None => None,
        };
        let book = ctx.world.resource::<PlaceBook>();
        let mut places: Vec<PlaceEntry> = book
            .iter()
            .map(|p| PlaceEntry {
                place: p.clone(),
                distance: near.as_ref().map(|(_, at)| (p.pos.distance(*at) * 100.0).round() / 100.0),
            })
            .collect();
        if near.is_some() {
            places.sort_by(|a, b| a.distance.unwrap_or(0.0).total_cmp(&b.distance.unwrap_or(0.0)));
        }
        places.truncate(limit);
        Ok(PlacesResponse { places, count: book.len(), near: near.map(|(n, _)| n) })
    }
}

/// `{"action":"forget","name":"base"}`: removes a place from the book.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Forget {
    /// The place's name (any case).
    pub name: String,
}

/// Response of `forget`.
#[derive(Serialize, JsonSchema, Debug, Clone, PartialEq)]
pub struct ForgetResponse {
    /// The place that was removed.
    pub forgot: Place,
    /// Places left in the book.
    pub count: usize,
}

impl AgentCommand for Forget {
    const NAME: &'static str = "forget";
    const SUMMARY: &'static str = "Remove a named place from the process's place book";
    const EXAMPLE: &'static str = r#"{"action":"forget","name":"base"}"#;
    const NEEDS_SPAWN: bool = false;
    const PER_BOT: bool = false;
    const MISSING_PARAMS: &'static [(&'static str, &'static str)] = &[("name", "Need name")];
    type Response = ForgetResponse;

    fn run(self, ctx: &mut CommandCtx<'_>) -> Result<ForgetResponse, CommandError> {
        let mut book = ctx.world.resource_mut::<PlaceBook>();
        let forgot = book.forget(&self.name)?;
        Ok(ForgetResponse { forgot, count: book.len() })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn place(name: &str, x: f64) -> Place {
        Place { name: name.into(), pos: Vec3::new(x, -60.0, 0.5), dimension: None, by: None, at_ms: 1 }
    }

    fn temp_file(tag: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("clawcraft-places-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        dir.join(FILE_NAME)
    }

    #[test]
    fn names_and_positions_are_checked() {
        assert_eq!(check_name("  Base camp-2.0 ").expect("valid"), "Base camp-2.0");
        for bad in ["", "   ", "a/b", "x\ny", &"n".repeat(MAX_NAME_CHARS + 1)] {
            assert_eq!(check_name(bad).expect_err(bad).code, "INVALID_PARAMS", "{bad:?}");
        }
        assert_eq!(check_pos(Vec3::new(f64::NAN, 0.0, 0.0)).expect_err("nan").code, "OUT_OF_RANGE");
        assert_eq!(check_pos(Vec3::new(0.0, 5000.0, 0.0)).expect_err("high").code, "OUT_OF_RANGE");
        assert_eq!(check_pos(Vec3::new(0.12345, 1.0, 2.0)).expect("ok").x, 0.123, "rounded like every position");
    }

    #[test]
    fn the_book_replaces_by_name_ignoring_case_is_bounded_and_names_close_places() {
        let mut book = PlaceBook::in_memory();
        assert!(!book.remember(place("Base", 1.0)).expect("stored"));
        assert!(book.remember(place("base", 2.0)).expect("stored"), "same name, any case: replaced");
        assert_eq!((book.len(), book.get("BASE").map(|p| p.pos.x)), (1, Some(2.0)));
        let e = book.forget("bsae").expect_err("no such place");
        assert_eq!((e.code, e.message.as_str()), ("UNKNOWN_PLACE", "No place named bsae (did you mean: base)"));
        for i in 1..MAX_PLACES {
            book.remember(place(&format!("p{i}"), 0.0)).expect("room");
        }
        assert_eq!(book.remember(place("one too many", 0.0)).expect_err("full").code, "OUT_OF_RANGE");
        assert!(book.remember(place("p1", 5.0)).expect("a replacement fits"), "replacing needs no room");
        let names: Vec<&str> = book.iter().take(3).map(|p| p.name.as_str()).collect();
        assert_eq!(names, ["base", "p1", "p10"], "name order");
    }

    #[test]
    fn the_book_survives_a_reopen_and_a_corrupt_file_is_kept_aside() {
        let path = temp_file("reopen");
        let mut book = PlaceBook::open(path.clone());
        assert!(book.is_empty(), "no file yet: empty");
        book.remember(place("mine", 3.0)).expect("stored");
        book.remember(place("camp", 4.0)).expect("stored");
        book.forget("MINE").expect("forgotten");
        let again = PlaceBook::open(path.clone());
        assert_eq!(again.iter().map(|p| p.name.as_str()).collect::<Vec<_>>(), ["camp"]);
        assert!(!path.with_file_name("places.json.tmp").exists(), "the temporary file was renamed");

        std::fs::write(&path, "{not json").expect("written");
        let empty = PlaceBook::open(path.clone());
        assert!(empty.is_empty());
        let bak = path.with_file_name("places.json.bak");
        assert_eq!(std::fs::read_to_string(&bak).expect("kept aside"), "{not json");
        assert!(!path.exists(), "the corrupt file is no longer in the way");

        // Entries that break the rules are skipped; the rest is kept.
        let text = r#"{"version":1,"places":[{"name":"ok","pos":{"x":1,"y":2,"z":3},"atMs":5},
            {"name":"bad/name","pos":{"x":1,"y":2,"z":3},"atMs":5},{"name":"OK","pos":{"x":9,"y":2,"z":3},"atMs":5}]}"#;
        std::fs::write(&path, text).expect("written");
        let partial = PlaceBook::open(path.clone());
        assert_eq!(partial.iter().map(|p| (p.name.as_str(), p.pos.x)).collect::<Vec<_>>(), [("ok", 1.0)]);
        let _ = std::fs::remove_dir_all(path.parent().expect("dir"));
    }

    #[test]
    fn a_change_that_cannot_be_saved_is_refused_and_changes_nothing() {
        let path = temp_file("readonly");
        let dir = path.parent().expect("dir").to_path_buf();
        // A directory where the file should be: every rename onto it fails.
        std::fs::create_dir_all(&path).expect("dir in the way");
        let mut book = PlaceBook { places: Vec::new(), path: Some(path.clone()) };
        let e = book.remember(place("x", 1.0)).expect_err("cannot save");
        assert_eq!(e.code, "INTERNAL");
        assert!(book.is_empty(), "memory and disk still agree");
        let _ = std::fs::remove_dir_all(dir);
    }
}
