//! Block and area queries: `block`, `blocks`, `chunks`, `find`, `scan`, `compact_scan`.

use clawcraft_core::{AgentCommand, CommandCtx, CommandError};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{
    DEFAULT_FIND_RADIUS, MAX_BOX_CELLS, MAX_CHUNKS_RADIUS, MAX_FIND_COUNT, MAX_FIND_RADIUS, MAX_SCAN_RADIUS,
    MAX_SCAN_RADIUS_Y, coord, int_in, positive_up_to, view,
};
use crate::chunk::BlockLookup;
use crate::query::{self, BlockList, BlockReport, Bounds, Cell, ChunkEntry, CompactScan, Found, Scan};

/// `{"action":"block","x":0,"y":-61,"z":0}`: the block at a position.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BlockCmd {
    pub x: f64,
    pub y: f64,
    pub z: f64,
}

/// Response of `block`.
#[derive(Serialize, JsonSchema)]
pub struct BlockResponse {
    /// The block position (coordinates floored).
    pub pos: Cell,
    /// Whether the bot has data for this position.
    pub loaded: bool,
    /// The block (air included); `null` when not loaded.
    pub block: Option<BlockReport>,
    /// The liquid inside the block (water-logging layer), when there is one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub liquid: Option<BlockReport>,
    /// A sign's text, when the block is a sign whose block entity the server sent.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sign: Option<crate::signs::SignReport>,
}

impl AgentCommand for BlockCmd {
    const NAME: &'static str = "block";
    const SUMMARY: &'static str = "The block at x,y,z with its state properties (and a sign's text); block is null when that position has no data";
    const EXAMPLE: &'static str = r#"{"action":"block","x":0,"y":-61,"z":0}"#;
    const QUERY: bool = true;
    const MISSING_PARAMS: &'static [(&'static str, &'static str)] =
        &[("x", "Need x, y, z"), ("y", "Need x, y, z"), ("z", "Need x, y, z")];
    type Response = BlockResponse;

    fn run(self, ctx: &mut CommandCtx<'_>) -> Result<BlockResponse, CommandError> {
        let v = view(ctx)?;
        let pos = Cell::containing(coord("x", self.x)?, coord("y", self.y)?, coord("z", self.z)?);
        Ok(match v.world.get_block(pos.x, pos.y, pos.z) {
            BlockLookup::Unloaded => BlockResponse { pos, loaded: false, block: None, liquid: None, sign: None },
            BlockLookup::Loaded(id, extra) => {
                let block = BlockReport::of(&v.ids, id);
                let texts = ctx.world.get::<crate::signs::SignTexts>(ctx.bot);
                let sign = (crate::signs::is_sign(&block.name))
                    .then(|| crate::signs::sign_at(texts, v.world, [pos.x, pos.y, pos.z]))
                    .flatten()
                    .map(|k| crate::signs::SignReport::of(&k.text));
                BlockResponse {
                    pos,
                    loaded: true,
                    block: Some(block),
                    liquid: extra
                        .filter(|&e| e != v.world.air_id() && !v.ids.is_air(e))
                        .map(|e| BlockReport::of(&v.ids, e)),
                    sign,
                }
            }
        })
    }
}

/// `{"action":"blocks","x1":-2,"y1":-61,"z1":-2,"x2":2,"y2":-60,"z2":2,"filter":"grass"}`.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Blocks {
    pub x1: f64,
    pub y1: f64,
    pub z1: f64,
    pub x2: f64,
    pub y2: f64,
    pub z2: f64,
    /// Case-insensitive name substring (`minecraft:` optional); without it every non-air block.
    pub filter: Option<String>,
    /// Only count (no list): `count` is the total, `blocks` empty.
    #[serde(rename = "countOnly")]
    pub count_only: Option<bool>,
}

/// Response of `blocks`.
#[derive(Serialize, JsonSchema)]
pub struct BlocksResponse {
    pub bounds: Bounds,
    #[serde(flatten)]
    pub list: BlockList,
}

impl AgentCommand for Blocks {
    const NAME: &'static str = "blocks";
    const SUMMARY: &'static str = "Non-air blocks in a box (at most 65536 cells), optionally filtered by name; unloaded cells are counted, not listed";
    const EXAMPLE: &'static str =
        r#"{"action":"blocks","x1":-2,"y1":-61,"z1":-2,"x2":2,"y2":-60,"z2":2,"filter":"grass"}"#;
    const SIZE_HINT: Option<&'static str> = Some("send countOnly:true, a name filter, or a smaller box");
    const QUERY: bool = true;
    const MISSING_PARAMS: &'static [(&'static str, &'static str)] = &[
        ("x1", "Need x1, y1, z1, x2, y2, z2"),
        ("y1", "Need x1, y1, z1, x2, y2, z2"),
        ("z1", "Need x1, y1, z1, x2, y2, z2"),
        ("x2", "Need x1, y1, z1, x2, y2, z2"),
        ("y2", "Need x1, y1, z1, x2, y2, z2"),
        ("z2", "Need x1, y1, z1, x2, y2, z2"),
    ];
    type Response = BlocksResponse;

    fn run(self, ctx: &mut CommandCtx<'_>) -> Result<BlocksResponse, CommandError> {
        let v = view(ctx)?;
        let a = Cell::containing(coord("x1", self.x1)?, coord("y1", self.y1)?, coord("z1", self.z1)?);
        let b = Cell::containing(coord("x2", self.x2)?, coord("y2", self.y2)?, coord("z2", self.z2)?);
        let bounds = Bounds::spanning(a, b);
        if bounds.volume() > MAX_BOX_CELLS {
            return Err(CommandError::out_of_range(format!(
                "the box holds {} cells; at most {MAX_BOX_CELLS}",
                bounds.volume()
            )));
        }
        let filter = match self.filter.as_deref().map(str::trim).filter(|f| !f.is_empty()) {
            Some(f) => Some(matching(&v.ids, f)?),
            None => None,
        };
        let mut list = query::blocks_in(v.world, &v.ids, bounds, filter.as_ref());
        if self.count_only == Some(true) {
            list.blocks = Vec::new();
            list.truncated = false;
        }
        Ok(BlocksResponse { bounds, list })
    }
}

/// The network ids matching a block name query; an error when no block matches.
fn matching(ids: &crate::ids::IdTable, q: &str) -> Result<std::collections::HashSet<u32>, CommandError> {
    let set = ids.ids_matching(q);
    if set.is_empty() {
        return Err(CommandError::invalid_params(format!("no block name contains \"{q}\"")));
    }
    Ok(set)
}

/// `{"action":"chunks","radius":4}`: loaded and missing columns around the bot.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Chunks {
    /// In chunks (default 4, at most 16).
    pub radius: Option<i32>,
}

/// Response of `chunks`.
#[derive(Serialize, JsonSchema)]
pub struct ChunksResponse {
    /// The bot's chunk.
    pub cx: i32,
    pub cz: i32,
    pub radius: i32,
    /// Columns with data in the square.
    pub loaded: u64,
    /// Columns without data in the square.
    pub unloaded: u64,
    /// Every column of the square, nearest first.
    pub chunks: Vec<ChunkEntry>,
}

impl AgentCommand for Chunks {
    const NAME: &'static str = "chunks";
    const SUMMARY: &'static str = "Loaded and unloaded chunk columns within a radius (in chunks) of the bot";
    const EXAMPLE: &'static str = r#"{"action":"chunks","radius":4}"#;
    const SIZE_HINT: Option<&'static str> = Some("use a smaller radius");
    const QUERY: bool = true;
    type Response = ChunksResponse;

    fn run(self, ctx: &mut CommandCtx<'_>) -> Result<ChunksResponse, CommandError> {
        let v = view(ctx)?;
        let radius = int_in("radius", self.radius.unwrap_or(4), 0, MAX_CHUNKS_RADIUS)?;
        let (cx, cz) = ((v.feet.x.floor() as i32) >> 4, (v.feet.z.floor() as i32) >> 4);
        let chunks = query::chunks_around(v.world, cx, cz, radius);
        let loaded = chunks.iter().filter(|c| c.loaded).count() as u64;
        Ok(ChunksResponse { cx, cz, radius, loaded, unloaded: chunks.len() as u64 - loaded, chunks })
    }
}

/// `{"action":"find","block":"diamond_ore","radius":32,"count":5}`.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Find {
    /// Case-insensitive name substring (`minecraft:` optional); the whole name with `exact`.
    pub block: String,
    /// Only the block named exactly `block` (`bed` is then not `bedrock`).
    pub exact: Option<bool>,
    /// Blocks from the bot's feet (default 32, at most 256).
    pub radius: Option<f64>,
    /// Most results (default 5, at most 256).
    pub count: Option<u32>,
    /// Only count every match in the sphere (`count` is then the total; no list).
    #[serde(rename = "countOnly")]
    pub count_only: Option<bool>,
}

/// Response of `find`.
#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct FindResponse {
    /// Blocks listed; with `countOnly`, every match in the sphere.
    pub count: u64,
    /// The list stopped at `count` and more matches exist (or may, farther out): ask with a
    /// bigger `count`, or `countOnly` for the total.
    pub truncated: bool,
    /// Nearest first.
    pub blocks: Vec<Found>,
    /// Block names the query matched: those found first (most found first), then the rest by
    /// name; at most 16 listed.
    pub matched: Vec<String>,
    pub radius: f64,
    /// Columns in range that were searched.
    pub columns_searched: u64,
    /// Columns in range without data: blocks there cannot be found.
    pub unloaded_columns: u64,
}

impl AgentCommand for Find {
    const NAME: &'static str = "find";
    const SUMMARY: &'static str =
        "Nearest blocks whose name contains a text, within a radius of the bot, nearest first (loaded chunks only)";
    const EXAMPLE: &'static str = r#"{"action":"find","block":"diamond_ore","radius":32,"count":5}"#;
    const SIZE_HINT: Option<&'static str> = Some("send countOnly:true, or a smaller count");
    const QUERY: bool = true;
    const MISSING_PARAMS: &'static [(&'static str, &'static str)] = &[("block", "Need \"block\" name pattern")];
    type Response = FindResponse;

    fn run(self, ctx: &mut CommandCtx<'_>) -> Result<FindResponse, CommandError> {
        let v = view(ctx)?;
        let radius = find_radius(self.radius)?;
        let count = self.count.unwrap_or(5);
        if !(1..=MAX_FIND_COUNT).contains(&count) {
            return Err(CommandError::out_of_range(format!("count must be between 1 and {MAX_FIND_COUNT}")));
        }
        let BlockQuery { wanted, names } = block_query(&v.ids, &self.block, self.exact == Some(true))?;
        let feet = [v.feet.x, v.feet.y, v.feet.z];
        let count_only = self.count_only.unwrap_or(false);
        let r = query::find_or_count(v.world, &v.ids, &wanted, feet, radius, count as usize, count_only);
        Ok(FindResponse {
            count: r.count,
            truncated: r.truncated,
            matched: matched_by_hits(names, &r.blocks),
            blocks: r.blocks,
            radius,
            columns_searched: r.columns_searched,
            unloaded_columns: r.unloaded_columns,
        })
    }
}

/// The blocks a name query matches, as `find` matches them.
#[derive(Debug, Clone, PartialEq)]
pub struct BlockQuery {
    /// The network ids of every state of every matched block.
    pub wanted: std::collections::HashSet<u32>,
    /// The matched block names, the exact match first.
    pub names: Vec<String>,
}

/// `find`'s matcher: the blocks whose name contains `query` (case-insensitive, `minecraft:`
/// optional), or with `exact` only the block named exactly that (`bed` is then not `bedrock`).
/// `INVALID_PARAMS` when no block matches.
pub fn block_query(ids: &crate::ids::IdTable, query: &str, exact: bool) -> Result<BlockQuery, CommandError> {
    let registry = &ids.registry;
    let mut blocks = registry.search(query);
    if exact {
        let bare = |n: &str| n.trim().to_ascii_lowercase().trim_start_matches("minecraft:").to_owned();
        let want = bare(query);
        blocks.retain(|b| registry.block(*b).is_some_and(|i| bare(&i.name) == want));
        if blocks.is_empty() {
            return Err(CommandError::invalid_params(format!(
                "no block is named \"{query}\" (leave out exact to match a part of a name)"
            )));
        }
    }
    let wanted = ids.ids_of(blocks.iter().copied());
    if wanted.is_empty() {
        return Err(CommandError::invalid_params(format!("no block name contains \"{query}\"")));
    }
    let names = blocks.iter().filter_map(|b| registry.block(*b).map(|i| i.name.to_string())).collect();
    Ok(BlockQuery { wanted, names })
}

/// `find`'s `radius`: default 32, `OUT_OF_RANGE` unless > 0 and ≤ 256.
pub fn find_radius(radius: Option<f64>) -> Result<f64, CommandError> {
    positive_up_to("radius", radius.unwrap_or(DEFAULT_FIND_RADIUS), MAX_FIND_RADIUS)
}

/// `find` for another command: up to `count` blocks matching `block` (as [`block_query`])
/// within `radius` ([`find_radius`]) of the bot's feet, in loaded chunks, nearest first.
pub fn find_nearest(
    ctx: &CommandCtx<'_>,
    block: &str,
    exact: bool,
    radius: Option<f64>,
    count: usize,
) -> Result<query::FindResult, CommandError> {
    let v = view(ctx)?;
    let radius = find_radius(radius)?;
    let BlockQuery { wanted, .. } = block_query(&v.ids, block, exact)?;
    Ok(query::find_or_count(v.world, &v.ids, &wanted, [v.feet.x, v.feet.y, v.feet.z], radius, count, false))
}

/// The names a query matched, those among `found` first (most found first), then the rest by
/// name, at most [`MATCHED_LISTED`].
fn matched_by_hits(names: Vec<String>, found: &[query::Found]) -> Vec<String> {
    let hits = |name: &str| found.iter().filter(|f| f.name == name).count();
    let mut ranked: Vec<(usize, String)> = names.into_iter().map(|n| (hits(&n), n)).collect();
    ranked.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
    ranked.dedup_by(|a, b| a.1 == b.1);
    ranked.into_iter().take(MATCHED_LISTED).map(|(_, n)| n).collect()
}

/// Names `find` lists in `matched`.
const MATCHED_LISTED: usize = 16;

/// `{"action":"scan","radius":4,"radiusY":2}`: the box around a point (default: the bot's feet).
#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ScanCmd {
    pub x: Option<f64>,
    pub y: Option<f64>,
    pub z: Option<f64>,
    /// Horizontal radius (default 4, at most 32).
    pub radius: Option<i32>,
    /// Vertical radius (default 2, at most 32).
    pub radius_y: Option<i32>,
}

impl ScanCmd {
    /// The origin cell and radii, validated.
    fn resolve(&self, ctx: &CommandCtx<'_>) -> Result<(Cell, i32, i32), CommandError> {
        let v = view(ctx)?;
        let feet = v.feet_cell();
        let at = |name: &str, given: Option<f64>, own: i32| match given {
            Some(g) => coord(name, g).map(f64::floor).map(|f| f as i32),
            None => Ok(own),
        };
        let origin = Cell { x: at("x", self.x, feet.x)?, y: at("y", self.y, feet.y)?, z: at("z", self.z, feet.z)? };
        let radius = int_in("radius", self.radius.unwrap_or(4), 0, MAX_SCAN_RADIUS)?;
        let radius_y = int_in("radiusY", self.radius_y.unwrap_or(2), 0, MAX_SCAN_RADIUS_Y)?;
        Ok((origin, radius, radius_y))
    }
}

impl AgentCommand for ScanCmd {
    const NAME: &'static str = "scan";
    const SUMMARY: &'static str = "Every non-air block in a box around the bot (or x,y,z) by layer, plus notable blocks, floor, ceiling and walls";
    const EXAMPLE: &'static str = r#"{"action":"scan","radius":4,"radiusY":2}"#;
    const SIZE_HINT: Option<&'static str> = Some("use compact_scan, or a smaller radius/radiusY");
    const QUERY: bool = true;
    type Response = Scan;

    fn run(self, ctx: &mut CommandCtx<'_>) -> Result<Scan, CommandError> {
        let (origin, radius, radius_y) = self.resolve(ctx)?;
        let v = view(ctx)?;
        Ok(query::scan(v.world, &v.ids, origin, radius, radius_y))
    }
}

/// `{"action":"compact_scan","radius":8,"radiusY":4}`: like `scan`, counts and notable only.
#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct CompactScanCmd {
    pub x: Option<f64>,
    pub y: Option<f64>,
    pub z: Option<f64>,
    /// Horizontal radius (default 4, at most 32).
    pub radius: Option<i32>,
    /// Vertical radius (default 2, at most 32).
    pub radius_y: Option<i32>,
}

impl AgentCommand for CompactScanCmd {
    const NAME: &'static str = "compact_scan";
    const SUMMARY: &'static str =
        "A short scan: cell tallies, counts per block name and the notable (non-terrain) blocks, nearest first";
    const EXAMPLE: &'static str = r#"{"action":"compact_scan","radius":8,"radiusY":4}"#;
    const SIZE_HINT: Option<&'static str> = Some("use a smaller radius/radiusY");
    const QUERY: bool = true;
    type Response = CompactScan;

    fn run(self, ctx: &mut CommandCtx<'_>) -> Result<CompactScan, CommandError> {
        let as_scan = ScanCmd { x: self.x, y: self.y, z: self.z, radius: self.radius, radius_y: self.radius_y };
        let (origin, radius, radius_y) = as_scan.resolve(ctx)?;
        let v = view(ctx)?;
        Ok(query::compact_scan(v.world, &v.ids, origin, radius, radius_y))
    }
}
