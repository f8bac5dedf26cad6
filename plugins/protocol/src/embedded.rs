//! The per-version data files (`data/bedrock/<ver>/*.json`) are embedded raw-DEFLATE-compressed
//! by the build scripts (`data/embed.rs`). [`reader`] streams one back out for a streaming
//! parse (`serde_json::from_reader`), so neither the whole text nor a tree of it is ever in
//! memory at once and an idle bot keeps only the parsed tables; [`inflate`] gives the whole text.

use std::io::{BufReader, Read as _};

/// The inflated bytes of one embedded, DEFLATE-compressed data file, as a buffered reader (JSON
/// parsers read it a byte at a time). Inflate errors surface as read errors.
pub fn reader(packed: &[u8]) -> BufReader<flate2::read::DeflateDecoder<&[u8]>> {
    BufReader::new(flate2::read::DeflateDecoder::new(packed))
}

/// The text of one embedded, DEFLATE-compressed data file.
pub fn inflate(packed: &[u8]) -> Result<String, String> {
    let mut text = String::new();
    flate2::read::DeflateDecoder::new(packed)
        .read_to_string(&mut text)
        .map_err(|e| format!("embedded data does not inflate: {e}"))?;
    Ok(text)
}

#[cfg(test)]
mod tests {
    use std::io::Write as _;

    #[test]
    fn inflates_what_build_scripts_deflate() {
        let mut z = flate2::write::DeflateEncoder::new(Vec::new(), flate2::Compression::default());
        z.write_all(b"{\"format\":1}").expect("deflate");
        let packed = z.finish().expect("deflate");
        assert_eq!(super::inflate(&packed).as_deref(), Ok("{\"format\":1}"));
        assert!(super::inflate(b"\xff\xff not deflate").is_err());
        let streamed: serde_json::Value = serde_json::from_reader(super::reader(&packed)).expect("streamed");
        assert_eq!(streamed, serde_json::json!({"format": 1}));
        assert!(serde_json::from_reader::<_, serde_json::Value>(super::reader(b"\xff\xff not deflate")).is_err());
    }
}
