//! The `goal` object of `walk`, `path` and `reachable`: goal forms that combine. Every key given
//! must hold at once (all-of); `near` is met by any one of its targets (any-of), `awayFrom` by
//! being far enough from each of its threats, `anyOf` by any one of its goals. Entities and players
//! are resolved to where they are when the command runs (`follow` and `flee` track moving ones);
//! a `block` target to the matching blocks of the loaded chunks then (as `find` finds them).
//! The result is a [`Goal`] for the search plus each part's label, so `walk_done` can say which
//! parts held where the walk ended.

use std::sync::Arc;

use clawcraft_core::{CommandCtx, CommandError, Position};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;

use crate::search::Goal;

/// Most targets in one `near` or `awayFrom` list.
pub const MAX_TARGETS: usize = 16;
/// Most goals in `anyOf`.
pub const MAX_ANY_OF: usize = 8;
/// Largest `range` of a `near` target and `distance` of an `awayFrom` one (blocks).
pub const MAX_DISTANCE: f64 = 64.0;
/// Default `distance` of an `awayFrom` target.
pub const DEFAULT_AWAY: f64 = 16.0;
/// Default `range` of a `near` target.
pub const DEFAULT_NEAR: f64 = 1.0;

/// One target or a list of them.
#[derive(Deserialize, JsonSchema, Clone, Debug, PartialEq)]
#[serde(untagged)]
pub enum OneOrMany<T> {
    One(T),
    Many(Vec<T>),
}

impl<T> OneOrMany<T> {
    fn into_vec(self) -> Vec<T> {
        match self {
            Self::One(t) => vec![t],
            Self::Many(v) => v,
        }
    }
}

/// A place or a thing: a point (`x`, `y`, `z`), a `player` by name, an `entity` (a runtime id,
/// or a mob type/name: the nearest one), or a `block` by name (the matching blocks in the loaded
/// chunks, nearest first).
#[derive(Deserialize, JsonSchema, Clone, Debug, Default, PartialEq)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Spot {
    pub x: Option<f64>,
    pub y: Option<f64>,
    pub z: Option<f64>,
    pub player: Option<String>,
    pub entity: Option<Value>,
    /// A block name as `find` matches it (a part of the name, case-insensitive, `minecraft:`
    /// optional; the whole name with `exact`): `near` any of the nearest matching blocks,
    /// `awayFrom` every one within `radius` (up to 16 targets in the list either way).
    pub block: Option<String>,
    /// `block`: only blocks named exactly so (`oak_log` is then not `dark_oak_log`).
    pub exact: Option<bool>,
    /// `block`: search this many blocks from the feet (default 32, at most 256), loaded chunks
    /// only.
    pub radius: Option<f64>,
    /// `near`: within this many blocks (feet to the point; default 1, 0..64).
    pub range: Option<f64>,
    /// `awayFrom`: at least this many blocks (default 16, 1..64).
    pub distance: Option<f64>,
}

/// A box of blocks, both corners included.
#[derive(Deserialize, JsonSchema, Clone, Copy, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Region {
    /// `[x, y, z]` of one corner block.
    pub min: [f64; 3],
    /// `[x, y, z]` of the opposite corner block.
    pub max: [f64; 3],
}

/// A goal object: every key given must hold at once.
#[derive(Deserialize, JsonSchema, Clone, Debug, Default, PartialEq)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct GoalSpec {
    /// Near any one of these (up to 16), each within its `range`.
    pub near: Option<OneOrMany<Spot>>,
    /// At least `distance` blocks from each of these (up to 16).
    pub away_from: Option<OneOrMany<Spot>>,
    /// The feet inside this box.
    pub within: Option<Region>,
    /// The feet at this block height.
    pub y: Option<f64>,
    /// Any one of these goals (up to 8; each without an `anyOf` of its own).
    pub any_of: Option<Vec<GoalSpec>>,
}

/// A goal object resolved: the search's goal and its labelled parts.
#[derive(Debug, Clone, PartialEq)]
pub struct Resolved {
    pub goal: Goal,
    /// Each target and constraint with its label (`near[1]`, `awayFrom[0]`, `within`, `y`,
    /// `anyOf[2].near[0]`).
    pub parts: Vec<(String, Goal)>,
}

impl Resolved {
    /// The labels of the parts that hold for feet at `feet`.
    pub fn met(&self, feet: clawcraft_core::Vec3) -> Vec<String> {
        let cell = [feet.x.floor() as i32, (feet.y + 1e-3).floor() as i32, feet.z.floor() as i32];
        self.parts.iter().filter(|(_, g)| g.reached(cell, feet.y as f32)).map(|(l, _)| l.clone()).collect()
    }
}

fn coordinate(v: f64, what: &str) -> Result<f64, CommandError> {
    if v.is_finite() && v.abs() <= 30_000_000.0 {
        Ok(v)
    } else {
        Err(CommandError::out_of_range(format!("goal: {what} must be finite and within ±30 000 000")))
    }
}

/// Where a spot is: its point, the player's or entity's position now, or the points of up to
/// `most` matching blocks, nearest first (a block's point is the centre of its bottom face, so
/// range 1 is a cell beside it at its level, or on top of it).
fn locate(ctx: &mut CommandCtx<'_>, spot: &Spot, label: &str, most: usize) -> Result<Vec<[f64; 3]>, CommandError> {
    if spot.block.is_none() && (spot.exact.is_some() || spot.radius.is_some()) {
        return Err(CommandError::invalid_params(format!("goal {label}: `exact` and `radius` are for a block target")));
    }
    match (spot.x, spot.y, spot.z, &spot.player, &spot.entity, &spot.block) {
        (Some(x), Some(y), Some(z), None, None, None) => Ok(vec![[
            coordinate(x, &format!("{label}.x"))?,
            coordinate(y, &format!("{label}.y"))?,
            coordinate(z, &format!("{label}.z"))?,
        ]]),
        (None, None, None, Some(_), None, None) | (None, None, None, None, Some(_), None) => {
            let feet = ctx.world.get::<Position>(ctx.bot).ok_or_else(CommandError::not_spawned)?.0;
            let (_, _, at) = crate::commands::find_entity(ctx, spot.player.as_deref(), spot.entity.as_ref(), feet)
                .map_err(|e| CommandError::new(e.code, format!("goal {label}: {}", e.message)))?;
            Ok(vec![[at.x, at.y, at.z]])
        }
        (None, None, None, None, None, Some(block)) => {
            let found =
                clawcraft_world::commands::find_nearest(ctx, block, spot.exact == Some(true), spot.radius, most)
                    .map_err(|e| CommandError::new(e.code, format!("goal {label}: {}", e.message)))?;
            if found.blocks.is_empty() {
                let radius = clawcraft_world::commands::find_radius(spot.radius)?;
                let unloaded = match found.unloaded_columns {
                    0 => String::new(),
                    n => format!(" ({n} columns there have no data yet)"),
                };
                return Err(CommandError::new(
                    "NOT_FOUND",
                    format!("goal {label}: no block matching \"{block}\" within {radius} blocks{unloaded}"),
                ));
            }
            Ok(found.blocks.iter().map(|b| [f64::from(b.x) + 0.5, f64::from(b.y), f64::from(b.z) + 0.5]).collect())
        }
        _ => {
            Err(CommandError::invalid_params(format!("goal {label}: need x, y and z, or player, or entity, or block")))
        }
    }
}

/// How many targets each spot of a list may become: one each, and the list's spare room (up to
/// [`MAX_TARGETS`] in all) to the block spots, in order.
fn shares(list: &[Spot]) -> impl Iterator<Item = usize> + '_ {
    let mut spare = MAX_TARGETS.saturating_sub(list.len());
    list.iter().map(move |spot| {
        if spot.block.is_none() {
            return 1;
        }
        let share = 1 + spare;
        spare = 0;
        share
    })
}

fn bounded(v: Option<f64>, default: f64, lo: f64, what: &str) -> Result<f64, CommandError> {
    let v = v.unwrap_or(default);
    if v.is_finite() && (lo..=MAX_DISTANCE).contains(&v) {
        Ok(v)
    } else {
        Err(CommandError::out_of_range(format!("goal {what} must be {lo}..{MAX_DISTANCE}")))
    }
}

fn targets(list: OneOrMany<Spot>, key: &str) -> Result<Vec<Spot>, CommandError> {
    let list = list.into_vec();
    if list.is_empty() {
        return Err(CommandError::invalid_params(format!("goal {key} is empty")));
    }
    if list.len() > MAX_TARGETS {
        return Err(CommandError::out_of_range(format!("goal {key}: at most {MAX_TARGETS} targets")));
    }
    Ok(list)
}

/// Resolves a goal object (labels prefixed with `prefix`), `depth` 0 at the top.
fn resolve_in(ctx: &mut CommandCtx<'_>, spec: &GoalSpec, prefix: &str, depth: u8) -> Result<Resolved, CommandError> {
    let mut all = Vec::new();
    let mut parts = Vec::new();
    if let Some(list) = spec.near.clone() {
        let mut any = Vec::new();
        let list = targets(list, "near")?;
        for ((i, spot), most) in list.iter().enumerate().zip(shares(&list)) {
            let label = format!("{prefix}near[{i}]");
            if spot.distance.is_some() {
                return Err(CommandError::invalid_params(format!(
                    "goal {label}: `distance` is for awayFrom (near takes range)"
                )));
            }
            let range = bounded(spot.range, DEFAULT_NEAR, 0.0, &format!("{label}.range"))?;
            let near: Vec<Goal> =
                locate(ctx, spot, &label, most)?.into_iter().map(|[x, y, z]| Goal::Near { x, y, z, range }).collect();
            // One part per spot: near any of a block spot's blocks.
            let g = if near.len() == 1 { near[0].clone() } else { Goal::Any(near.clone().into()) };
            parts.push((label, g));
            any.extend(near);
        }
        all.push(if any.len() == 1 { any.remove(0) } else { Goal::Any(any.into()) });
    }
    if let Some(list) = spec.away_from.clone() {
        let list = targets(list, "awayFrom")?;
        for ((i, spot), most) in list.iter().enumerate().zip(shares(&list)) {
            let label = format!("{prefix}awayFrom[{i}]");
            if spot.range.is_some() {
                return Err(CommandError::invalid_params(format!(
                    "goal {label}: `range` is for near (awayFrom takes distance)"
                )));
            }
            let distance = bounded(spot.distance, DEFAULT_AWAY, 1.0, &format!("{label}.distance"))?;
            let away: Vec<Goal> = locate(ctx, spot, &label, most)?
                .into_iter()
                .map(|[x, y, z]| Goal::Away { x, y, z, distance })
                .collect();
            // One part per spot: away from every one of a block spot's blocks.
            let g = if away.len() == 1 { away[0].clone() } else { Goal::All(away.clone().into()) };
            parts.push((label, g));
            all.extend(away);
        }
    }
    if let Some(Region { min, max }) = spec.within {
        let label = format!("{prefix}within");
        let mut lo = [0; 3];
        let mut hi = [0; 3];
        for a in 0..3 {
            let (l, h) = (coordinate(min[a], &format!("{label}.min"))?, coordinate(max[a], &format!("{label}.max"))?);
            if l > h {
                return Err(CommandError::invalid_params(format!("goal {label}: min must not exceed max")));
            }
            (lo[a], hi[a]) = (l.floor() as i32, h.floor() as i32);
        }
        let g = Goal::Within { min: lo, max: hi };
        parts.push((label, g.clone()));
        all.push(g);
    }
    if let Some(y) = spec.y {
        let g = Goal::Y { y: coordinate(y, "y")?.floor() as i32 };
        parts.push((format!("{prefix}y"), g.clone()));
        all.push(g);
    }
    if let Some(goals) = &spec.any_of {
        if depth > 0 {
            return Err(CommandError::invalid_params("goal: anyOf inside anyOf is not supported"));
        }
        if goals.is_empty() || goals.len() > MAX_ANY_OF {
            return Err(CommandError::out_of_range(format!("goal anyOf: 1..{MAX_ANY_OF} goals")));
        }
        let mut any = Vec::new();
        for (i, g) in goals.iter().enumerate() {
            let r = resolve_in(ctx, g, &format!("{prefix}anyOf[{i}]."), depth + 1)?;
            parts.extend(r.parts);
            any.push(r.goal);
        }
        all.push(if any.len() == 1 { any.remove(0) } else { Goal::Any(any.into()) });
    }
    let goal = match all.len() {
        0 => return Err(CommandError::invalid_params("goal needs near, awayFrom, within, y or anyOf")),
        1 => all.remove(0),
        _ => Goal::All(Arc::from(all)),
    };
    Ok(Resolved { goal, parts })
}

/// Resolves a `goal` object into the search's goal and its labelled parts.
pub fn resolve(ctx: &mut CommandCtx<'_>, spec: &GoalSpec) -> Result<Resolved, CommandError> {
    resolve_in(ctx, spec, "", 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn block_spots_share_the_lists_spare_room_in_order() {
        let point = Spot { x: Some(0.0), y: Some(0.0), z: Some(0.0), ..Spot::default() };
        let block = Spot { block: Some("lava".into()), ..Spot::default() };
        // Three spots: one target each, and the 13 left over to the first block spot.
        let list = [point.clone(), block.clone(), block.clone()];
        assert_eq!(shares(&list).collect::<Vec<_>>(), [1, 14, 1]);
        assert_eq!(shares(&list).sum::<usize>(), MAX_TARGETS);
        assert_eq!(shares(std::slice::from_ref(&block)).collect::<Vec<_>>(), [MAX_TARGETS]);
        assert_eq!(shares(&[point.clone(), point]).collect::<Vec<_>>(), [1, 1]);
    }
}
