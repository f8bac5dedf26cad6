//! Collision boxes of every block state of a vendored game version
//! (`data/bedrock/<ver>/shapes.json`, generated from minecraft-data by `data/gen-shapes.js`),
//! indexed by palette position — the same order as `clawcraft-world`'s block registry.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use serde::Deserialize;
use serde::de::{Deserializer, SeqAccess, Visitor};

use crate::Aabb;

/// Shape data of every version in `data/versions.txt` that has a `shapes.json`, DEFLATE-compressed
/// by `build.rs` (inflated while it is parsed on first use, so only the table stays in memory).
static EMBEDDED: &[(&str, &[u8])] = include!(concat!(env!("OUT_DIR"), "/shape_data.rs"));

/// The only format this code reads.
const FORMAT: u32 = 1;

/// Why a shape table could not be built.
#[derive(Debug, thiserror::Error)]
pub enum ShapeError {
    /// No shape data is embedded for the version.
    #[error("no collision shapes embedded for game version {0}")]
    UnknownVersion(String),
    /// The file is not what `data/gen-shapes.js` writes.
    #[error("collision shape data is malformed: {0}")]
    Malformed(String),
}

#[derive(Deserialize)]
struct File {
    format: u32,
    game_version: String,
    shapes: Vec<Vec<[f64; 6]>>,
    blocks: Vec<(String, u32, ShapeIds)>,
}

/// A block's shape indices: one for all its states, or one per state.
enum ShapeIds {
    All(u64),
    PerState(Vec<u16>),
}

impl<'de> Deserialize<'de> for ShapeIds {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = ShapeIds;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a shape index or a list of them")
            }
            fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<ShapeIds, E> {
                Ok(ShapeIds::All(v))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<ShapeIds, A::Error> {
                let mut ids = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(4096));
                while let Some(id) = seq.next_element::<u16>()? {
                    ids.push(id);
                }
                Ok(ShapeIds::PerState(ids))
            }
        }
        d.deserialize_any(V)
    }
}

/// The collision boxes of every block state of one game version.
#[derive(Debug)]
pub struct ShapeTable {
    game_version: String,
    /// All boxes; shape `i` is `boxes[ranges[i].0 .. ranges[i].0 + ranges[i].1]`.
    boxes: Vec<Aabb>,
    ranges: Vec<(u32, u32)>,
    /// Shape index of each state, in palette order (versions have a few hundred shapes).
    states: Vec<u16>,
    /// Block name and first state, in palette order.
    blocks: Vec<(Arc<str>, u32)>,
}

impl ShapeTable {
    /// The table of `game_version` (e.g. `"1.26.45"`), built on first use and shared afterwards.
    pub fn for_version(game_version: &str) -> Result<Arc<Self>, ShapeError> {
        static CACHE: OnceLock<Mutex<HashMap<String, Arc<ShapeTable>>>> = OnceLock::new();
        let cache = CACHE.get_or_init(Default::default);
        // A poisoned lock only means another builder panicked; the map is still valid.
        let mut cache = cache.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(t) = cache.get(game_version) {
            return Ok(Arc::clone(t));
        }
        let packed = EMBEDDED
            .iter()
            .find(|(v, _)| *v == game_version)
            .map(|(_, packed)| *packed)
            .ok_or_else(|| ShapeError::UnknownVersion(game_version.to_owned()))?;
        let reader = std::io::BufReader::new(flate2::read::DeflateDecoder::new(packed));
        let file: File = serde_json::from_reader(reader).map_err(|e| ShapeError::Malformed(e.to_string()))?;
        let table = Arc::new(Self::from_file(file)?);
        cache.insert(game_version.to_owned(), Arc::clone(&table));
        Ok(table)
    }

    /// Game versions with embedded shapes.
    pub fn versions() -> impl Iterator<Item = &'static str> {
        EMBEDDED.iter().map(|(v, _)| *v)
    }

    /// Builds a table from the text of a `shapes.json`.
    pub fn from_json(text: &str) -> Result<Self, ShapeError> {
        Self::from_file(serde_json::from_str(text).map_err(|e| ShapeError::Malformed(e.to_string()))?)
    }

    fn from_file(file: File) -> Result<Self, ShapeError> {
        let bad = |m: String| ShapeError::Malformed(m);
        if file.format != FORMAT {
            return Err(bad(format!("format {} (expected {FORMAT})", file.format)));
        }
        let mut boxes = Vec::new();
        let mut ranges = Vec::with_capacity(file.shapes.len());
        for shape in &file.shapes {
            ranges.push((boxes.len() as u32, shape.len() as u32));
            boxes.extend(shape.iter().map(|b| Aabb::from_array(b.map(|v| v as f32))));
        }
        let shape_id = |id: u64| -> Result<u16, ShapeError> {
            u16::try_from(id)
                .ok()
                .filter(|&i| usize::from(i) < ranges.len())
                .ok_or_else(|| bad(format!("shape index {id} out of range")))
        };
        let total: usize = file.blocks.iter().map(|(_, count, _)| *count as usize).sum();
        let mut states = Vec::with_capacity(total.min(1 << 20));
        let mut blocks = Vec::with_capacity(file.blocks.len());
        for (name, count, ids) in &file.blocks {
            blocks.push((Arc::from(name.as_str()), states.len() as u32));
            match ids {
                ShapeIds::PerState(per_state) => {
                    if per_state.len() != *count as usize {
                        return Err(bad(format!("{name}: {} shapes for {count} states", per_state.len())));
                    }
                    for &id in per_state {
                        states.push(shape_id(u64::from(id))?);
                    }
                }
                &ShapeIds::All(id) => {
                    let id = shape_id(id)?;
                    states.extend(std::iter::repeat_n(id, *count as usize));
                }
            }
        }
        states.shrink_to_fit();
        Ok(Self { game_version: file.game_version, boxes, ranges, states, blocks })
    }

    /// The game version.
    pub fn game_version(&self) -> &str {
        &self.game_version
    }

    /// Number of block states.
    pub fn state_count(&self) -> usize {
        self.states.len()
    }

    /// The collision boxes of the state at palette index `state` (block-local; the index of
    /// `clawcraft-world`'s `StateIndex`); empty for none or an index out of range.
    pub fn shapes(&self, state: u32) -> &[Aabb] {
        match self.states.get(state as usize) {
            Some(&id) => self.shape(id),
            None => &[],
        }
    }

    /// The boxes of shape `id`.
    fn shape(&self, id: u16) -> &[Aabb] {
        let (start, len) = self.ranges[id as usize];
        &self.boxes[start as usize..(start + len) as usize]
    }

    /// The boxes of the `offset`-th state of block `name` (`minecraft:` included), when known.
    pub fn shapes_of_block_state(&self, name: &str, offset: u32) -> Option<&[Aabb]> {
        let i = self.blocks.iter().position(|(n, _)| &**n == name)?;
        let first = self.blocks[i].1;
        let end = self.blocks.get(i + 1).map_or(self.states.len() as u32, |b| b.1);
        (first + offset < end).then(|| self.shapes(first + offset))
    }

    /// The first palette index of block `name`, when known.
    pub fn first_state(&self, name: &str) -> Option<u32> {
        self.blocks.iter().find(|(n, _)| &**n == name).map(|b| b.1)
    }
}
