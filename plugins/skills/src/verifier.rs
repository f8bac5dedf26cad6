//! Verifiers: data, evaluated in Rust against the before/after snapshots and the run's helper
//! events — never script code. Each check is `passed`, `failed` or `inconclusive` (missing
//! data: unloaded chunks, no inventory plugin, an entity never seen); inconclusive is never a
//! pass.
//!
//! A value anywhere in a verifier may be `{"$param":"name"}`: it is replaced by the run's
//! parameter before the verifier is parsed, so one skill checks `count` logs for any `count`.

use std::collections::BTreeMap;

use clawcraft_core::{Vec3, same_item};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

use crate::sandbox::HelperKind;
use crate::schema::Problem;

/// The verifier kinds, for docs and error messages.
pub const KINDS: &[&str] = &[
    "inventory_delta",
    "inventory_at_least",
    "equipped",
    "block_at",
    "block_count_delta",
    "position_delta",
    "near",
    "vitals_delta",
    "entity_gone",
    "helper_result",
    "chat_sent",
    "all",
    "any",
    "not",
];
/// Largest `block_count_delta` radius (the box must fit the `blocks` query).
pub const MAX_COUNT_RADIUS: i64 = 16;
const VITALS: &[&str] = &["health", "hunger", "saturation", "absorption", "level", "experience"];
const EQUIP_SLOTS: &[&str] = &["hand", "offhand", "head", "chest", "legs", "feet"];
/// Helpers whose successful calls count for `chat_sent`.
pub const CHAT_HELPERS: &[&str] = &["chat", "whisper", "say"];

/// A block cell.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize, JsonSchema)]
pub struct Cell {
    pub x: i64,
    pub y: i64,
    pub z: i64,
}

impl Cell {
    pub fn containing(p: Vec3) -> Self {
        Self { x: p.x.floor() as i64, y: p.y.floor() as i64, z: p.z.floor() as i64 }
    }
    pub fn key(&self) -> String {
        format!("{},{},{}", self.x, self.y, self.z)
    }
    fn plus(self, o: Cell) -> Cell {
        Cell { x: self.x + o.x, y: self.y + o.y, z: self.z + o.z }
    }
}

/// Where `block_at` looks.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum At {
    Pos(Cell),
    /// Relative to the cell of the bot's feet when the run started.
    Offset(Cell),
}

/// What `near` measures against.
#[derive(Debug, Clone, PartialEq)]
pub enum NearTarget {
    Pos(Vec3),
    Player(String),
    NearestPlayer,
}

/// A parsed check.
#[derive(Debug, Clone, PartialEq)]
pub enum Check {
    InventoryDelta {
        item: String,
        min: Option<f64>,
        max: Option<f64>,
    },
    InventoryAtLeast {
        item: String,
        count: f64,
    },
    Equipped {
        item: String,
        slot: String,
    },
    BlockAt {
        at: At,
        block: String,
        present: bool,
    },
    BlockCountDelta {
        block: String,
        radius: i64,
        min: Option<f64>,
        max: Option<f64>,
    },
    PositionDelta {
        min: Option<f64>,
        max: Option<f64>,
    },
    Near {
        target: NearTarget,
        radius: f64,
    },
    VitalsDelta {
        field: String,
        min: Option<f64>,
        max: Option<f64>,
    },
    EntityGone {
        entity: u64,
    },
    HelperResult {
        helper: String,
        status: String,
        code: Option<String>,
        min_count: u64,
    },
    ChatSent {
        contains: Option<String>,
        to: Option<String>,
    },
    All(Vec<Check>),
    Any(Vec<Check>),
    Not(Box<Check>),
    // The seed's kinds (`crate::seed::parse_verifier`), on the runtime's own evidence.
    /// A check reported under the seed's kind name (`inventory_count` is an `inventory_at_least`).
    Named(String, Box<Check>),
    /// `helper_event_progress`: a helper completed with a progress status (of `helper`, if given).
    HelperProgress {
        helper: Option<String>,
    },
    /// `helper_event` (any completed event) and `helper_result_status` (with that result status).
    HelperCompleted {
        helper: String,
        status: Option<String>,
    },
    /// `world_scan`: the runtime's count of `block` in the box around the start cell afterwards
    /// (at least `min`); without a block, an `observe` that returned a loaded world scan.
    WorldScan {
        block: Option<String>,
        radius: i64,
        min: u64,
    },
    /// `container_snapshot`: a container's contents as the server sent them (an `observe` of a
    /// container, or the window open at the end), of that block/position, holding `min` of `item`.
    ContainerSnapshot {
        block: Option<String>,
        pos: Option<Cell>,
        item: Option<String>,
        min: u64,
    },
    /// `block_or_inventory_delta`: the inventory count of `item`, or the count of `block` around
    /// the start cell, changed by at least `count`; with neither, any inventory change or a block
    /// change the server confirmed to a helper.
    BlockOrInventoryDelta {
        item: Option<String>,
        block: Option<String>,
        radius: i64,
        count: f64,
    },
}

/// `{"$param":"name"}` references in a verifier: (field, parameter name).
pub fn param_refs(v: &Value, field: &str, out: &mut Vec<(String, String)>) {
    match v {
        Value::Object(o) => {
            if o.len() == 1
                && let Some(Value::String(name)) = o.get("$param")
            {
                out.push((field.to_owned(), name.clone()));
                return;
            }
            for (k, sub) in o {
                param_refs(sub, &format!("{field}.{k}"), out);
            }
        }
        Value::Array(a) => {
            for (i, sub) in a.iter().enumerate() {
                param_refs(sub, &format!("{field}[{i}]"), out);
            }
        }
        _ => {}
    }
}

/// Replaces every `{"$param":"name"}` with the parameter (missing ones become `null`).
pub fn substitute(v: &Value, params: &Map<String, Value>) -> Value {
    match v {
        Value::Object(o) => {
            if o.len() == 1
                && let Some(Value::String(name)) = o.get("$param")
            {
                return params.get(name).cloned().unwrap_or(Value::Null);
            }
            Value::Object(o.iter().map(|(k, sub)| (k.clone(), substitute(sub, params))).collect())
        }
        Value::Array(a) => Value::Array(a.iter().map(|sub| substitute(sub, params)).collect()),
        other => other.clone(),
    }
}

struct Fields<'a> {
    obj: &'a Map<String, Value>,
    field: &'a str,
    problems: &'a mut Vec<Problem>,
    allowed: Vec<&'static str>,
}

impl Fields<'_> {
    fn at(&self, k: &str) -> String {
        format!("{}.{k}", self.field)
    }
    fn string(&mut self, k: &'static str, required: bool) -> Option<String> {
        self.allowed.push(k);
        match self.obj.get(k) {
            Some(Value::String(s)) if !s.trim().is_empty() => Some(s.trim().to_owned()),
            None if !required => None,
            None => {
                self.problems.push(Problem::new(self.at(k), "is required"));
                None
            }
            Some(_) => {
                self.problems.push(Problem::new(self.at(k), "must be a non-empty string"));
                None
            }
        }
    }
    fn number(&mut self, k: &'static str, required: bool) -> Option<f64> {
        self.allowed.push(k);
        match self.obj.get(k) {
            Some(v) if v.as_f64().is_some_and(f64::is_finite) => v.as_f64(),
            None if !required => None,
            None => {
                self.problems.push(Problem::new(self.at(k), "is required"));
                None
            }
            Some(_) => {
                self.problems.push(Problem::new(self.at(k), "must be a number"));
                None
            }
        }
    }
    fn bool(&mut self, k: &'static str) -> Option<bool> {
        self.allowed.push(k);
        match self.obj.get(k) {
            Some(Value::Bool(b)) => Some(*b),
            None => None,
            Some(_) => {
                self.problems.push(Problem::new(self.at(k), "must be true or false"));
                None
            }
        }
    }
    fn cell(&mut self, k: &'static str) -> Option<Cell> {
        self.allowed.push(k);
        let v = self.obj.get(k)?;
        let c = |a: &str| v.get(a).and_then(Value::as_f64).filter(|f| f.is_finite() && f.abs() < 3.0e7);
        match (c("x"), c("y"), c("z")) {
            (Some(x), Some(y), Some(z)) => Some(Cell { x: x.floor() as i64, y: y.floor() as i64, z: z.floor() as i64 }),
            _ => {
                self.problems.push(Problem::new(self.at(k), "must be {x,y,z} with finite numbers"));
                None
            }
        }
    }
    fn range(&mut self) -> (Option<f64>, Option<f64>) {
        let min = self.number("min_delta", false);
        let max = self.number("max_delta", false);
        if min.is_none() && max.is_none() {
            self.problems.push(Problem::new(self.at("min_delta"), "give min_delta, max_delta or both"));
        }
        if let (Some(a), Some(b)) = (min, max)
            && a > b
        {
            self.problems.push(Problem::new(self.at("max_delta"), "must be ≥ min_delta"));
        }
        (min, max)
    }
    fn finish(self) {
        for k in self.obj.keys() {
            if k != "kind" && !self.allowed.contains(&k.as_str()) {
                self.problems.push(Problem::new(
                    format!("{}.{k}", self.field),
                    format!("unknown field (this kind takes: {})", self.allowed.join(", ")),
                ));
            }
        }
    }
}

/// Parses a verifier (after [`substitute`]), collecting every problem with its field.
/// `helper_known` says whether a helper name exists (for `helper_result`).
pub fn parse(
    v: &Value,
    field: &str,
    helper_known: &dyn Fn(&str) -> bool,
    problems: &mut Vec<Problem>,
) -> Option<Check> {
    parse_at(v, field, 0, helper_known, problems)
}

fn parse_at(
    v: &Value,
    field: &str,
    depth: usize,
    helper_known: &dyn Fn(&str) -> bool,
    problems: &mut Vec<Problem>,
) -> Option<Check> {
    let Some(obj) = v.as_object() else {
        problems.push(Problem::new(field, "must be an object with a `kind`"));
        return None;
    };
    if depth > 8 {
        problems.push(Problem::new(field, "nests deeper than 8 levels"));
        return None;
    }
    let kind = match obj.get("kind") {
        Some(Value::String(k)) => k.as_str(),
        _ => {
            problems.push(Problem::new(format!("{field}.kind"), format!("is required: one of {}", KINDS.join(", "))));
            return None;
        }
    };
    let before = problems.len();
    let mut f = Fields { obj, field, problems, allowed: Vec::new() };
    let check = match kind {
        "inventory_delta" => {
            let item = f.string("item", true);
            let (min, max) = f.range();
            item.map(|item| Check::InventoryDelta { item, min, max })
        }
        "inventory_at_least" => {
            let item = f.string("item", true);
            let count = f.number("count", true);
            item.zip(count).map(|(item, count)| Check::InventoryAtLeast { item, count })
        }
        "equipped" => {
            let item = f.string("item", true);
            let slot = f.string("slot", false).unwrap_or_else(|| "hand".into());
            if !EQUIP_SLOTS.contains(&slot.as_str()) {
                f.problems.push(Problem::new(f.at("slot"), format!("must be one of {}", EQUIP_SLOTS.join(", "))));
            }
            item.map(|item| Check::Equipped { item, slot })
        }
        "block_at" => {
            let block = f.string("block", true);
            let pos = f.cell("pos");
            let offset = f.cell("offset");
            let present = f.bool("present").unwrap_or(true);
            let at = match (pos, offset) {
                (Some(p), None) => Some(At::Pos(p)),
                (None, Some(o)) => Some(At::Offset(o)),
                _ => {
                    f.problems.push(Problem::new(
                        f.at("pos"),
                        "give exactly one of pos (absolute) or offset (from the start cell)",
                    ));
                    None
                }
            };
            block.zip(at).map(|(block, at)| Check::BlockAt { at, block, present })
        }
        "block_count_delta" => {
            let block = f.string("block", true);
            let radius = f.number("radius", true);
            let (min, max) = f.range();
            let radius = radius.and_then(|r| {
                let ok = r.fract() == 0.0 && (1.0..=MAX_COUNT_RADIUS as f64).contains(&r);
                if !ok {
                    f.problems.push(Problem::new(f.at("radius"), format!("must be an integer 1..={MAX_COUNT_RADIUS}")));
                }
                ok.then_some(r as i64)
            });
            block.zip(radius).map(|(block, radius)| Check::BlockCountDelta { block, radius, min, max })
        }
        "position_delta" => {
            let min = f.number("min_distance", false);
            let max = f.number("max_distance", false);
            if min.is_none() && max.is_none() {
                f.problems.push(Problem::new(f.at("min_distance"), "give min_distance, max_distance or both"));
            }
            Some(Check::PositionDelta { min, max })
        }
        "near" => {
            let radius = f.number("radius", true);
            let player = f.string("player", false);
            let nearest = f.bool("nearest_player").unwrap_or(false);
            f.allowed.push("pos");
            let pos = obj.get("pos").map(|p| {
                let c = |a: &str| p.get(a).and_then(Value::as_f64).filter(|v| v.is_finite());
                match (c("x"), c("y"), c("z")) {
                    (Some(x), Some(y), Some(z)) => Some(Vec3::new(x, y, z)),
                    _ => {
                        f.problems.push(Problem::new(f.at("pos"), "must be {x,y,z} with finite numbers"));
                        None
                    }
                }
            });
            let target = match (pos, player, nearest) {
                (Some(Some(p)), None, false) => Some(NearTarget::Pos(p)),
                (None, Some(name), false) => Some(NearTarget::Player(name)),
                (None, None, true) => Some(NearTarget::NearestPlayer),
                (Some(None), _, _) => None,
                _ => {
                    f.problems
                        .push(Problem::new(f.at("pos"), "give exactly one of pos, player or nearest_player:true"));
                    None
                }
            };
            if radius.is_some_and(|r| r <= 0.0) {
                f.problems.push(Problem::new(f.at("radius"), "must be > 0"));
            }
            target.zip(radius).map(|(target, radius)| Check::Near { target, radius })
        }
        "vitals_delta" => {
            let field_name = f.string("field", true);
            let (min, max) = f.range();
            if let Some(n) = &field_name
                && !VITALS.contains(&n.as_str())
            {
                f.problems.push(Problem::new(f.at("field"), format!("must be one of {}", VITALS.join(", "))));
            }
            field_name.map(|field| Check::VitalsDelta { field, min, max })
        }
        "entity_gone" => {
            f.allowed.push("entity");
            match obj.get("entity").and_then(Value::as_u64) {
                Some(entity) => Some(Check::EntityGone { entity }),
                None => {
                    f.problems.push(Problem::new(f.at("entity"), "must be an entity id (the `id` nearby reports)"));
                    None
                }
            }
        }
        "helper_result" => {
            let helper = f.string("helper", true);
            let status = f.string("status", false).unwrap_or_else(|| "done".into());
            let code = f.string("code", false);
            let min_count = f.number("min_count", false).unwrap_or(1.0);
            if let Some(h) = &helper
                && !helper_known(h)
            {
                f.problems.push(Problem::new(f.at("helper"), format!("no helper named {h}")));
            }
            if !(1.0..=10_000.0).contains(&min_count) || min_count.fract() != 0.0 {
                f.problems.push(Problem::new(f.at("min_count"), "must be an integer 1..=10000"));
            }
            helper.map(|helper| Check::HelperResult { helper, status, code, min_count: min_count as u64 })
        }
        "chat_sent" => {
            let contains = f.string("contains", false);
            let to = f.string("to", false);
            Some(Check::ChatSent { contains, to })
        }
        "all" | "any" => {
            f.allowed.push("checks");
            let checks = match obj.get("checks") {
                Some(Value::Array(items)) if !items.is_empty() => {
                    let mut out = Vec::new();
                    for (i, item) in items.iter().enumerate() {
                        let sub = parse_at(item, &format!("{field}.checks[{i}]"), depth + 1, helper_known, f.problems);
                        out.extend(sub);
                    }
                    (out.len() == items.len()).then_some(out)
                }
                _ => {
                    f.problems.push(Problem::new(f.at("checks"), "must be a non-empty array of checks"));
                    None
                }
            };
            checks.map(|c| if kind == "all" { Check::All(c) } else { Check::Any(c) })
        }
        "not" => {
            f.allowed.push("check");
            match obj.get("check") {
                Some(sub) => parse_at(sub, &format!("{field}.check"), depth + 1, helper_known, f.problems)
                    .map(|c| Check::Not(Box::new(c))),
                None => {
                    f.problems.push(Problem::new(f.at("check"), "is required (the check to negate)"));
                    None
                }
            }
        }
        other => {
            f.problems.push(Problem::new(
                format!("{field}.kind"),
                format!("unknown verifier kind {other} (one of {})", KINDS.join(", ")),
            ));
            return None;
        }
    };
    f.finish();
    if problems.len() > before { None } else { check }
}

// ---------------------------------------------------------------------------------------------
// Snapshots and helper events: what verifiers read.

/// A block count in the box around the start cell.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct BlockCount {
    pub count: u64,
    /// Cells of the box without data.
    pub unloaded: u64,
}

/// An entity seen in a snapshot.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct EntitySeen {
    pub id: u64,
    /// `player`, `mob` or `item`.
    pub kind: String,
    pub name: String,
    pub position: Vec3,
}

/// The inventory as seen through [`clawcraft_core::InventoryView`].
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct InventorySeen {
    /// Total count per item name.
    pub items: BTreeMap<String, u64>,
    /// Item name per equipment slot.
    pub equipped: BTreeMap<String, String>,
}

/// The world facts a verifier needs, taken before and after a run. `None` means "no data".
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Snapshot {
    pub tick: u64,
    pub position: Option<Vec3>,
    pub vitals: Option<BTreeMap<String, f64>>,
    /// Block name per cell (`"x,y,z"`); `null` when the cell had no data.
    pub cells: BTreeMap<String, Option<String>>,
    /// Counts per `"<block>@<radius>"` in the box around the start cell.
    pub counts: BTreeMap<String, BlockCount>,
    pub entities: Option<Vec<EntitySeen>>,
    pub inventory: Option<InventorySeen>,
    /// The `container` answer (the open window as the server sent it), when the plan asks.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub container: Option<Value>,
}

/// One call of a seed helper (`mineflayer-action-skill-helper/v1`), as its evidence records it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SeedEvent {
    pub seq: u32,
    pub helper: String,
    pub args: Value,
    /// `started`, `completed` or `failed` (threw).
    pub status: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<Value>,
    /// Ticks since the run started.
    pub tick: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resolved_tick: Option<u64>,
}

impl SeedEvent {
    /// The result's `status` of a completed call.
    pub fn result_status(&self) -> Option<&str> {
        (self.status == "completed").then(|| self.result.as_ref()?.get("status")?.as_str()).flatten()
    }
    /// Whether it completed with one of its helper's progress statuses.
    pub fn progress(&self) -> bool {
        let Some(st) = self.result_status() else { return false };
        crate::seed::helper(&self.helper).is_some_and(|h| h.progress.contains(&st))
    }
}

/// What a snapshot must contain for a check tree (computed from the start position).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct SnapshotPlan {
    /// Cell of the bot's feet at the start.
    pub origin: Option<Cell>,
    pub cells: Vec<Cell>,
    /// (block, radius) boxes around `origin`.
    pub counts: Vec<(String, i64)>,
    pub vitals: bool,
    pub entities: bool,
    /// The open container window (`container`).
    #[serde(default)]
    pub container: bool,
}

impl SnapshotPlan {
    pub fn for_check(check: &Check, start: Option<Vec3>) -> Self {
        let mut plan = SnapshotPlan { origin: start.map(Cell::containing), ..Default::default() };
        plan.add(check);
        plan
    }

    fn add(&mut self, check: &Check) {
        match check {
            Check::BlockAt { at: At::Pos(c), .. } => self.cells.push(*c),
            Check::BlockAt { at: At::Offset(o), .. } => {
                if let Some(origin) = self.origin {
                    self.cells.push(origin.plus(*o));
                }
            }
            Check::BlockCountDelta { block, radius, .. } => self.counts.push((block.clone(), *radius)),
            Check::VitalsDelta { .. } => self.vitals = true,
            Check::EntityGone { .. }
            | Check::Near { target: NearTarget::Player(_) | NearTarget::NearestPlayer, .. } => self.entities = true,
            Check::All(cs) | Check::Any(cs) => cs.iter().for_each(|c| self.add(c)),
            Check::Not(c) | Check::Named(_, c) => self.add(c),
            Check::WorldScan { block: Some(block), radius, .. }
            | Check::BlockOrInventoryDelta { block: Some(block), radius, .. } => {
                self.counts.push((block.clone(), *radius))
            }
            Check::ContainerSnapshot { .. } => self.container = true,
            _ => {}
        }
    }
}

/// The key of a block count in [`Snapshot::counts`].
pub fn count_key(block: &str, radius: i64) -> String {
    format!("{block}@{radius}")
}

/// One helper call of a run, as recorded in its evidence.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct HelperEvent {
    pub seq: u32,
    pub helper: String,
    pub kind: HelperKind,
    pub params: Value,
    /// Tick (since the run started) of the call.
    pub tick: u64,
    /// Tick (since the run started) when the result was delivered; for queries the call's tick.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resolved_tick: Option<u64>,
    /// The query's response, or the action's `{status, code, …}`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result: Option<Value>,
    /// A query's error (`{code, message}`): the script saw a thrown `HelperError`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<Value>,
    /// The request id the command ran under (actions).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request_id: Option<String>,
}

impl HelperEvent {
    /// `done` for a query that answered, `error` for one that threw, the action's status, or
    /// `pending` when it never resolved.
    pub fn status(&self) -> &str {
        if self.error.is_some() {
            return "error";
        }
        match (&self.kind, &self.result) {
            (HelperKind::Query, Some(_)) => "done",
            (_, Some(r)) => r.get("status").and_then(Value::as_str).unwrap_or("done"),
            (_, None) => "pending",
        }
    }
    /// The failure code: an action's `code`, or a query error's code.
    pub fn code(&self) -> Option<&str> {
        if let Some(e) = &self.error {
            return e.get("code").and_then(Value::as_str);
        }
        self.result.as_ref().and_then(|r| r.get("code")).and_then(Value::as_str)
    }
}

// ---------------------------------------------------------------------------------------------
// Evaluation.

/// The three outcomes of a check.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    Passed,
    Failed,
    Inconclusive,
}

/// One evaluated check (combinators carry their children).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct CheckResult {
    pub kind: String,
    pub status: Verdict,
    /// What the check wanted.
    pub expected: Value,
    /// What the snapshots and events showed.
    pub observed: Value,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub checks: Vec<CheckResult>,
}

fn result(kind: &str, status: Verdict, expected: Value, observed: Value, reason: Option<String>) -> CheckResult {
    CheckResult { kind: kind.into(), status, expected, observed, reason, checks: Vec::new() }
}

fn inconclusive(kind: &str, expected: Value, reason: &str) -> CheckResult {
    result(kind, Verdict::Inconclusive, expected, Value::Null, Some(reason.into()))
}

fn within(v: f64, min: Option<f64>, max: Option<f64>) -> bool {
    min.is_none_or(|m| v >= m - 1e-9) && max.is_none_or(|m| v <= m + 1e-9)
}

fn verdict(ok: bool) -> Verdict {
    if ok { Verdict::Passed } else { Verdict::Failed }
}

fn range_json(min: Option<f64>, max: Option<f64>) -> Value {
    let mut m = Map::new();
    if let Some(v) = min {
        m.insert("min_delta".into(), json!(v));
    }
    if let Some(v) = max {
        m.insert("max_delta".into(), json!(v));
    }
    Value::Object(m)
}

/// Evaluates a check.
pub fn evaluate(check: &Check, before: &Snapshot, after: &Snapshot, events: &[HelperEvent]) -> CheckResult {
    evaluate_with(check, before, after, events, &[])
}

/// Evaluates a check, with the seed helper events of the run.
pub fn evaluate_with(
    check: &Check,
    before: &Snapshot,
    after: &Snapshot,
    events: &[HelperEvent],
    seed: &[SeedEvent],
) -> CheckResult {
    let evaluate = |c: &Check, before: &Snapshot, after: &Snapshot, events: &[HelperEvent]| {
        evaluate_with(c, before, after, events, seed)
    };
    match check {
        Check::Named(kind, c) => {
            let mut r = evaluate(c, before, after, events);
            r.kind = kind.clone();
            r
        }
        Check::HelperProgress { helper } => {
            let hits: Vec<&SeedEvent> =
                seed.iter().filter(|e| e.progress() && helper.as_ref().is_none_or(|h| *h == e.helper)).collect();
            let observed = json!({
                "progress": hits.iter().map(|e| json!({"seq": e.seq, "helper": e.helper, "status": e.result_status()})).collect::<Vec<_>>(),
                "calls": seed.len(),
            });
            result("helper_event_progress", verdict(!hits.is_empty()), json!({"helper": helper}), observed, None)
        }
        Check::HelperCompleted { helper, status } => {
            let kind = if status.is_some() { "helper_result_status" } else { "helper_event" };
            let mine: Vec<&SeedEvent> = seed.iter().filter(|e| e.helper == *helper).collect();
            let hit = mine
                .iter()
                .find(|e| e.status == "completed" && status.as_ref().is_none_or(|s| e.result_status() == Some(s)));
            let observed = json!({
                "calls": mine.iter().map(|e| json!({"seq": e.seq, "status": e.status, "resultStatus": e.result_status()})).collect::<Vec<_>>(),
            });
            result(kind, verdict(hit.is_some()), json!({"helper": helper, "status": status}), observed, None)
        }
        Check::WorldScan { block, radius, min } => {
            let expected = json!({"block": block, "radius": radius, "min_count": min});
            match block {
                Some(block) => match after.counts.get(&count_key(block, *radius)) {
                    Some(c) if c.unloaded == 0 => result(
                        "world_scan",
                        verdict(c.count >= *min),
                        expected,
                        json!({"count": c.count, "radius": radius, "around": "start"}),
                        None,
                    ),
                    Some(_) => inconclusive("world_scan", expected, "part of the box has no data (chunks not loaded)"),
                    None => inconclusive("world_scan", expected, "the blocks could not be counted"),
                },
                None => {
                    let scans: Vec<&SeedEvent> = seed
                        .iter()
                        .filter(|e| e.helper == "observe" && e.status == "completed")
                        .filter(|e| {
                            e.result.as_ref().and_then(|r| r.get("worldStateSummary")).is_some_and(Value::is_object)
                        })
                        .collect();
                    let loaded = scans.iter().any(|e| {
                        e.result.as_ref().and_then(|r| r["worldStateSummary"]["loaded"].as_bool()) == Some(true)
                    });
                    let observed = json!({"observations": scans.len(), "loaded": loaded});
                    result("world_scan", verdict(loaded), expected, observed, None)
                }
            }
        }
        Check::ContainerSnapshot { block, pos, item, min } => {
            let expected = json!({"block": block, "pos": pos, "item": item, "min_count": min});
            let mut seen: Vec<Value> = seed
                .iter()
                .filter(|e| e.helper == "observe" && e.status == "completed")
                .filter_map(|e| e.result.as_ref()?.get("container").filter(|c| c.get("items").is_some()).cloned())
                .collect();
            if let Some(w) = after.container.as_ref().filter(|w| w.get("open") == Some(&Value::Bool(true))) {
                let items: Vec<Value> = w["items"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .map(|s| json!({"slot": s["slot"], "name": s["item"]["name"], "count": s["item"]["count"]}))
                    .collect();
                seen.push(json!({"block": w["block"], "pos": w["pos"], "windowType": w["windowType"], "items": items}));
            }
            let fits = |c: &Value| {
                let block_ok = block.as_ref().is_none_or(|b| c["block"].as_str().is_some_and(|n| same_item(n, b)));
                let pos_ok = pos.is_none_or(|p| {
                    c["pos"]["x"].as_i64() == Some(p.x)
                        && c["pos"]["y"].as_i64() == Some(p.y)
                        && c["pos"]["z"].as_i64() == Some(p.z)
                });
                let held: u64 = item.as_ref().map_or(*min, |it| {
                    c["items"]
                        .as_array()
                        .into_iter()
                        .flatten()
                        .filter(|s| s["name"].as_str().is_some_and(|n| same_item(n, it)))
                        .filter_map(|s| s["count"].as_u64())
                        .sum()
                });
                block_ok && pos_ok && held >= *min
            };
            let hit = seen.iter().find(|c| fits(c)).cloned();
            let observed = json!({"snapshots": seen.len(), "matched": hit});
            if seen.is_empty() {
                return result(
                    "container_snapshot",
                    Verdict::Failed,
                    expected,
                    observed,
                    Some(
                        "no container was observed (observe({container:{x,y,z}}), or a window open at the end)".into(),
                    ),
                );
            }
            result("container_snapshot", verdict(hit.is_some()), expected, observed, None)
        }
        Check::BlockOrInventoryDelta { item, block, radius, count } => {
            let expected = json!({"item": item, "block": block, "radius": radius, "count": count});
            let inv = match (&before.inventory, &after.inventory) {
                (Some(b), Some(a)) => Some((b, a)),
                _ => None,
            };
            let inv_delta =
                item.as_ref().and_then(|it| inv.map(|(b, a)| count_of(a, it) as f64 - count_of(b, it) as f64));
            let block_delta = block.as_ref().and_then(|bl| {
                let key = count_key(bl, *radius);
                match (before.counts.get(&key), after.counts.get(&key)) {
                    (Some(b), Some(a)) if b.unloaded == 0 && a.unloaded == 0 => Some(a.count as f64 - b.count as f64),
                    _ => None,
                }
            });
            let any_inventory = inv.is_some_and(|(b, a)| b.items != a.items);
            let confirmed: Vec<Value> = events
                .iter()
                .filter(|e| matches!(e.helper.as_str(), "place" | "mine") && e.status() == "done")
                .filter(|e| e.result.as_ref().and_then(|r| r.get("confirmed")) == Some(&Value::Bool(true)))
                .map(|e| json!({"helper": e.helper, "block": e.result.as_ref().map(|r| r["block"].clone()), "pos": e.result.as_ref().map(|r| r["pos"].clone())}))
                .collect();
            let enough = |d: Option<f64>| d.is_some_and(|d| d.abs() >= *count - 1e-9);
            let passed = if item.is_none() && block.is_none() {
                any_inventory || !confirmed.is_empty()
            } else {
                enough(inv_delta) || enough(block_delta)
            };
            let observed = json!({"inventoryDelta": inv_delta, "blockDelta": block_delta, "inventoryChanged": any_inventory, "confirmedBlockChanges": confirmed});
            if !passed && inv.is_none() && item.is_some() && block_delta.is_none() {
                return inconclusive("block_or_inventory_delta", expected, "no inventory data and no block count");
            }
            result("block_or_inventory_delta", verdict(passed), expected, observed, None)
        }
        Check::InventoryDelta { item, min, max } => {
            let expected = json!({"item": item, "range": range_json(*min, *max)});
            let (Some(b), Some(a)) = (&before.inventory, &after.inventory) else {
                return inconclusive(
                    "inventory_delta",
                    expected,
                    "no inventory data (no inventory plugin has filled it)",
                );
            };
            let (nb, na) = (count_of(b, item), count_of(a, item));
            let delta = na as f64 - nb as f64;
            result(
                "inventory_delta",
                verdict(within(delta, *min, *max)),
                expected,
                json!({"before": nb, "after": na, "delta": delta}),
                None,
            )
        }
        Check::InventoryAtLeast { item, count } => {
            let expected = json!({"item": item, "count": count});
            let Some(a) = &after.inventory else {
                return inconclusive(
                    "inventory_at_least",
                    expected,
                    "no inventory data (no inventory plugin has filled it)",
                );
            };
            let n = count_of(a, item);
            result("inventory_at_least", verdict(n as f64 >= *count), expected, json!({"count": n}), None)
        }
        Check::Equipped { item, slot } => {
            let expected = json!({"item": item, "slot": slot});
            let Some(a) = &after.inventory else {
                return inconclusive("equipped", expected, "no inventory data (no inventory plugin has filled it)");
            };
            let held = a.equipped.get(slot).cloned();
            let ok = held.as_deref().is_some_and(|h| same_item(h, item));
            result("equipped", verdict(ok), expected, json!({"slot": slot, "item": held}), None)
        }
        Check::BlockAt { at, block, present } => {
            let expected = json!({"block": block, "present": present});
            let cell = match at {
                At::Pos(c) => Some(*c),
                At::Offset(o) => before.position.map(|p| Cell::containing(p).plus(*o)),
            };
            let Some(cell) = cell else { return inconclusive("block_at", expected, "the start position is unknown") };
            match after.cells.get(&cell.key()) {
                Some(Some(name)) => {
                    let here = same_item(name, block);
                    result("block_at", verdict(here == *present), expected, json!({"pos": cell, "block": name}), None)
                }
                _ => inconclusive("block_at", expected, "the cell has no data (chunk not loaded)"),
            }
        }
        Check::BlockCountDelta { block, radius, min, max } => {
            let expected = json!({"block": block, "radius": radius, "range": range_json(*min, *max)});
            let key = count_key(block, *radius);
            match (before.counts.get(&key), after.counts.get(&key)) {
                (Some(b), Some(a)) if b.unloaded == 0 && a.unloaded == 0 => {
                    let delta = a.count as f64 - b.count as f64;
                    let observed = json!({"before": b.count, "after": a.count, "delta": delta});
                    result("block_count_delta", verdict(within(delta, *min, *max)), expected, observed, None)
                }
                (Some(_), Some(_)) => {
                    inconclusive("block_count_delta", expected, "part of the box has no data (chunks not loaded)")
                }
                _ => inconclusive("block_count_delta", expected, "the blocks could not be counted"),
            }
        }
        Check::PositionDelta { min, max } => {
            let expected = json!({"min_distance": min, "max_distance": max});
            let (Some(b), Some(a)) = (before.position, after.position) else {
                return inconclusive("position_delta", expected, "no position");
            };
            let d = b.distance(a);
            result(
                "position_delta",
                verdict(within(d, *min, *max)),
                expected,
                json!({"from": b, "to": a, "distance": round3(d)}),
                None,
            )
        }
        Check::Near { target, radius } => {
            let expected = json!({"radius": radius});
            let Some(me) = after.position else { return inconclusive("near", expected, "no position") };
            let target_pos = match target {
                NearTarget::Pos(p) => Some(*p),
                NearTarget::Player(name) => after
                    .entities
                    .as_ref()
                    .and_then(|es| es.iter().find(|e| e.kind == "player" && e.name.eq_ignore_ascii_case(name)))
                    .map(|e| e.position),
                NearTarget::NearestPlayer => after.entities.as_ref().and_then(|es| {
                    es.iter()
                        .filter(|e| e.kind == "player")
                        .min_by(|a, b| me.distance(a.position).total_cmp(&me.distance(b.position)))
                        .map(|e| e.position)
                }),
            };
            let Some(t) = target_pos else { return inconclusive("near", expected, "the target is not in view") };
            let d = me.distance(t);
            result("near", verdict(d <= *radius), expected, json!({"target": t, "distance": round3(d)}), None)
        }
        Check::VitalsDelta { field, min, max } => {
            let expected = json!({"field": field, "range": range_json(*min, *max)});
            let get = |s: &Snapshot| s.vitals.as_ref().and_then(|v| v.get(field)).copied();
            let (Some(b), Some(a)) = (get(before), get(after)) else {
                return inconclusive("vitals_delta", expected, "no vitals");
            };
            let delta = a - b;
            result(
                "vitals_delta",
                verdict(within(delta, *min, *max)),
                expected,
                json!({"before": b, "after": a, "delta": delta}),
                None,
            )
        }
        Check::EntityGone { entity } => {
            let expected = json!({"entity": entity});
            let seen = |s: &Snapshot| s.entities.as_ref().map(|es| es.iter().any(|e| e.id == *entity));
            match (seen(before), seen(after)) {
                (Some(true), Some(present)) => {
                    result("entity_gone", verdict(!present), expected, json!({"before": true, "after": present}), None)
                }
                (Some(false), _) => inconclusive("entity_gone", expected, "the entity was not in view at the start"),
                _ => inconclusive("entity_gone", expected, "no entity data"),
            }
        }
        Check::HelperResult { helper, status, code, min_count } => {
            let n = events
                .iter()
                .filter(|e| {
                    &e.helper == helper && e.status() == status && code.as_ref().is_none_or(|c| e.code() == Some(c))
                })
                .count() as u64;
            let expected = json!({"helper": helper, "status": status, "code": code, "min_count": min_count});
            result("helper_result", verdict(n >= *min_count), expected, json!({"count": n}), None)
        }
        Check::ChatSent { contains, to } => {
            let hit = events.iter().find(|e| {
                CHAT_HELPERS.contains(&e.helper.as_str())
                    && e.status() == "done"
                    && contains.as_ref().is_none_or(|c| {
                        e.params
                            .get("message")
                            .and_then(Value::as_str)
                            .is_some_and(|m| m.to_lowercase().contains(&c.to_lowercase()))
                    })
                    && to.as_ref().is_none_or(|t| {
                        e.params.get("to").and_then(Value::as_str).is_some_and(|x| x.eq_ignore_ascii_case(t))
                    })
            });
            let expected = json!({"contains": contains, "to": to});
            let observed = hit
                .map(|e| json!({"seq": e.seq, "helper": e.helper, "message": e.params.get("message")}))
                .unwrap_or(Value::Null);
            result("chat_sent", verdict(hit.is_some()), expected, observed, None)
        }
        Check::All(cs) | Check::Any(cs) => {
            let all = matches!(check, Check::All(_));
            let children: Vec<CheckResult> = cs.iter().map(|c| evaluate(c, before, after, events)).collect();
            let any_is = |v: Verdict| children.iter().any(|c| c.status == v);
            let status = if all {
                if any_is(Verdict::Failed) {
                    Verdict::Failed
                } else if any_is(Verdict::Inconclusive) {
                    Verdict::Inconclusive
                } else {
                    Verdict::Passed
                }
            } else if any_is(Verdict::Passed) {
                Verdict::Passed
            } else if any_is(Verdict::Inconclusive) {
                Verdict::Inconclusive
            } else {
                Verdict::Failed
            };
            let kind = if all { "all" } else { "any" };
            CheckResult {
                kind: kind.into(),
                status,
                expected: Value::Null,
                observed: Value::Null,
                reason: None,
                checks: children,
            }
        }
        Check::Not(c) => {
            let child = evaluate(c, before, after, events);
            let status = match child.status {
                Verdict::Passed => Verdict::Failed,
                Verdict::Failed => Verdict::Passed,
                Verdict::Inconclusive => Verdict::Inconclusive,
            };
            CheckResult {
                kind: "not".into(),
                status,
                expected: Value::Null,
                observed: Value::Null,
                reason: None,
                checks: vec![child],
            }
        }
    }
}

fn count_of(inv: &InventorySeen, item: &str) -> u64 {
    inv.items.iter().filter(|(name, _)| same_item(name, item)).map(|(_, n)| *n).sum()
}

fn round3(v: f64) -> f64 {
    (v * 1000.0).round() / 1000.0
}

#[cfg(test)]
mod tests;
