//! Embeds `data/bedrock/<ver>/shapes.json` (written by `data/gen-shapes.js`) for every version
//! listed in `data/versions.txt` that has one, so adding a Bedrock version stays a data drop.

#[path = "../../data/embed.rs"]
mod embed;
#[path = "../../data/per_version.rs"]
mod per_version;

fn main() {
    per_version::write_table("shapes.json", "shape_data.rs", |json, ver| {
        format!("include_bytes!({:?})", embed::deflate_to_out_dir(json, ver).display().to_string())
    });
}
