//! Generates the table of embedded item data from `data/versions.txt`: every listed version that
//! has a `data/bedrock/<ver>/items.json` (written by `data/gen-items.js`) is embedded, so adding
//! a Bedrock version stays a data drop.

#[path = "../../data/embed.rs"]
mod embed;

use std::fmt::Write as _;
use std::path::PathBuf;

fn main() {
    let manifest = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("CARGO_MANIFEST_DIR"));
    let data = manifest.join("../../data");
    let list = data.join("versions.txt");
    println!("cargo:rerun-if-changed={}", list.display());
    let text = std::fs::read_to_string(&list).expect("read data/versions.txt");
    let mut out = String::from("&[\n");
    for line in text.lines() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let Some(ver) = line.split_whitespace().next() else { continue };
        let json = data.join("bedrock").join(ver).join("items.json");
        println!("cargo:rerun-if-changed={}", json.display());
        // A version without block data still works for the protocol; it just has no item table.
        if !json.exists() {
            continue;
        }
        let packed = embed::deflate_to_out_dir(&json, ver);
        writeln!(out, "    ({ver:?}, include_bytes!({:?})),", packed.display().to_string()).expect("write to string");
    }
    out.push(']');
    let dest = PathBuf::from(std::env::var("OUT_DIR").expect("OUT_DIR")).join("item_data.rs");
    std::fs::write(dest, out).expect("write item_data.rs");
}
