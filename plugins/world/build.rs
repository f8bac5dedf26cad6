//! Generates the table of embedded block data from `data/versions.txt`: every listed version that
//! has a `data/bedrock/<ver>/blocks.json` (written by `data/gen-blocks.js`) is embedded, so adding
//! a Bedrock version stays a data drop.

#[path = "../../data/embed.rs"]
mod embed;
#[path = "../../data/per_version.rs"]
mod per_version;

fn main() {
    per_version::write_table("blocks.json", "block_data.rs", |json, ver| {
        format!("include_bytes!({:?})", embed::deflate_to_out_dir(json, ver).display().to_string())
    });
}
