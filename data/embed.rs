//! Shared by the build scripts that embed `data/bedrock/<ver>/*.json`: each file is embedded
//! DEFLATE-compressed (about a tenth of the text) and inflated once, when its version is first
//! used. The text then lives on the heap only while it is parsed, instead of staying mapped as
//! pages of the executable, and the versions never used cost a tenth of the binary they did.

use std::io::Write as _;
use std::path::{Path, PathBuf};

/// Writes `json` raw-DEFLATE-compressed into `OUT_DIR` as `<ver>-<file name>.deflate` and
/// returns that path, for an `include_bytes!` in the generated table.
pub fn deflate_to_out_dir(json: &Path, ver: &str) -> PathBuf {
    let text = std::fs::read(json).unwrap_or_else(|e| panic!("read {}: {e}", json.display()));
    let name = json.file_name().and_then(|n| n.to_str()).expect("file name");
    let dest = PathBuf::from(std::env::var("OUT_DIR").expect("OUT_DIR")).join(format!("{ver}-{name}.deflate"));
    let mut z = flate2::write::DeflateEncoder::new(Vec::new(), flate2::Compression::default());
    z.write_all(&text).expect("deflate");
    std::fs::write(&dest, z.finish().expect("deflate")).expect("write deflated data");
    dest
}
