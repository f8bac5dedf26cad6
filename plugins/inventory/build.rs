//! Generates the table of embedded item data from `data/versions.txt`: every listed version that
//! has a `data/bedrock/<ver>/items.json` (written by `data/gen-items.js`) is embedded, so adding
//! a Bedrock version stays a data drop.

#[path = "../../data/embed.rs"]
mod embed;
#[path = "../../data/per_version.rs"]
mod per_version;

fn main() {
    per_version::write_table("items.json", "item_data.rs", |json, ver| {
        format!("include_bytes!({:?})", embed::deflate_to_out_dir(json, ver).display().to_string())
    });
}
