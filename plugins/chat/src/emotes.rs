//! Emote UUID ↔ title, from the vendored Marketplace list `data/emotes/emotes.tsv` (see its
//! SOURCE.md), as ClawCraft's `emotes.js`.

use std::sync::OnceLock;

const TSV: &str = include_str!("../../../data/emotes/emotes.tsv");

/// Short names agents use for the default emotes whose titles differ.
const ALIASES: &[(&str, &str)] = &[("wave", "4c8ae710-df2e-47cd-814d-cc7bf21a3d67")];

/// One emote.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EmoteInfo {
    /// Lower-case UUID.
    pub uuid: &'static str,
    /// Display title.
    pub title: &'static str,
}

/// Every known emote, in file order.
pub fn all() -> &'static [EmoteInfo] {
    static TABLE: OnceLock<Vec<EmoteInfo>> = OnceLock::new();
    TABLE.get_or_init(|| {
        TSV.lines()
            .filter(|l| !l.starts_with('#'))
            .filter_map(|l| l.split_once('\t'))
            .map(|(uuid, title)| EmoteInfo { uuid: uuid.trim(), title: title.trim() })
            .collect()
    })
}

/// The title of an emote UUID, if it is in the list.
pub fn title_for(uuid: &str) -> Option<&'static str> {
    let uuid = uuid.trim().to_ascii_lowercase();
    all().iter().find(|e| e.uuid == uuid).map(|e| e.title)
}

/// The emote an agent means by `name`: an alias, then an exact title (case-insensitive), then the
/// shortest title that starts with it, then the shortest that contains it. Ties go to the first
/// listed.
pub fn find(name: &str) -> Option<EmoteInfo> {
    let key = name.trim().to_lowercase();
    if key.is_empty() {
        return None;
    }
    if let Some((_, uuid)) = ALIASES.iter().find(|(a, _)| *a == key) {
        return all().iter().find(|e| e.uuid == *uuid).copied();
    }
    let table = all();
    let lower = |e: &EmoteInfo| e.title.to_lowercase();
    if let Some(e) = table.iter().find(|e| lower(e) == key) {
        return Some(*e);
    }
    let shortest = |pred: &dyn Fn(&str) -> bool| {
        table.iter().filter(|e| pred(&lower(e))).min_by_key(|e| e.title.chars().count()).copied()
    };
    shortest(&|t| t.starts_with(&key)).or_else(|| shortest(&|t| t.contains(&key)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_loads_and_resolves() {
        assert!(all().len() > 2000);
        assert_eq!(title_for("4C8AE710-DF2E-47CD-814D-CC7BF21A3D67"), Some("Waving"));
        assert_eq!(find("wave").map(|e| e.title), Some("Waving"));
        assert_eq!(find("victory cheer").map(|e| e.uuid), Some("d0c60245-538e-4ea2-bdd4-33477db5aa89"));
        assert_eq!(find("facepalm").map(|e| e.title), Some("Facepalm"));
        assert!(find("zzzz-no-such-emote").is_none());
    }
}
