//! Generates the table of embedded protocol definitions from `data/versions.txt`, so adding a
//! Bedrock version is a data drop: a line in that file plus `data/bedrock/<ver>/protocol.json`.

#[path = "../../data/embed.rs"]
mod embed;
#[path = "../../data/per_version.rs"]
#[allow(dead_code)]
mod per_version;

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

fn main() {
    let (data, text) = per_version::versions_txt();
    let mut out = String::from("&[\n");
    let mut defaults = 0;
    for line in text.lines() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let mut parts = line.split_whitespace();
        let (Some(ver), Some(proto)) = (parts.next(), parts.next()) else {
            panic!("bad line in data/versions.txt: {line:?}");
        };
        let proto: i32 = proto.parse().expect("protocol number");
        let is_default = match parts.next() {
            None => false,
            Some("default") => true,
            Some(other) => panic!("bad marker {other:?} in data/versions.txt (only `default`)"),
        };
        defaults += usize::from(is_default);
        let json = data.join("bedrock").join(ver).join("protocol.json");
        assert!(Path::new(&json).exists(), "missing {}", json.display());
        println!("cargo:rerun-if-changed={}", json.display());
        let packed = embed::deflate_to_out_dir(&json, ver);
        writeln!(
            out,
            "    (VersionInfo {{ game_version: {ver:?}, protocol: {proto} }}, {is_default}, include_bytes!({:?})),",
            packed.display().to_string()
        )
        .expect("write to string");
    }
    assert_eq!(defaults, 1, "data/versions.txt must mark exactly one version `default`");
    out.push(']');
    let dest = PathBuf::from(std::env::var("OUT_DIR").expect("OUT_DIR")).join("versions.rs");
    std::fs::write(dest, out).expect("write versions.rs");
}
