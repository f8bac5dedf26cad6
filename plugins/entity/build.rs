//! Embeds `data/bedrock/<ver>/entities.json` (written by `data/make-entities.js`) for every version
//! listed in `data/versions.txt` that has one, so adding a Bedrock version stays a data drop.

#[path = "../../data/per_version.rs"]
mod per_version;

fn main() {
    per_version::write_table("entities.json", "entity_tables.rs", |json, _| {
        let path = json.canonicalize().expect("canonical path");
        format!("include_str!({:?})", path.display().to_string())
    });
}
