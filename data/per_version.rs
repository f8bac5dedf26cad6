//! Shared by the build scripts that embed one file per Bedrock version: the versions listed in
//! `data/versions.txt` (the first word of each line) that have `data/bedrock/<ver>/<file>` become
//! a generated table in `OUT_DIR`, so adding a version stays a data drop.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// Writes `OUT_DIR/<table>` as `&[ (version, <entry>), … ]` with one row per listed version that
/// has `data/bedrock/<ver>/<file>`; `entry` turns that file into the row's expression (an
/// `include_bytes!`/`include_str!`). A version without the file is left out: it still works for
/// the protocol, without this table.
pub fn write_table(file: &str, table: &str, entry: impl Fn(&Path, &str) -> String) {
    let (data, text) = versions_txt();
    let mut out = String::from("&[\n");
    for line in text.lines().map(str::trim).filter(|l| !l.is_empty() && !l.starts_with('#')) {
        let Some(ver) = line.split_whitespace().next() else { continue };
        let json = data.join("bedrock").join(ver).join(file);
        println!("cargo:rerun-if-changed={}", json.display());
        if json.exists() {
            writeln!(out, "    ({ver:?}, {}),", entry(&json, ver)).expect("write to string");
        }
    }
    out.push(']');
    let dest = PathBuf::from(std::env::var("OUT_DIR").expect("OUT_DIR")).join(table);
    std::fs::write(&dest, out).unwrap_or_else(|e| panic!("write {}: {e}", dest.display()));
}

/// The `data` folder and the text of its `versions.txt` (the build script reruns when it changes).
pub fn versions_txt() -> (PathBuf, String) {
    let manifest = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("CARGO_MANIFEST_DIR"));
    let data = manifest.join("../../data");
    let list = data.join("versions.txt");
    println!("cargo:rerun-if-changed={}", list.display());
    let text = std::fs::read_to_string(&list).expect("read data/versions.txt");
    (data, text)
}
