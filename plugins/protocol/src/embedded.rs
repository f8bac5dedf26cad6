//! The per-version data files (`data/bedrock/<ver>/*.json`) are embedded raw-DEFLATE-compressed
//! by the build scripts (`data/embed.rs`); [`inflate`] turns one back into its text, which
//! is parsed and dropped, so an idle bot keeps only the parsed tables, never the text.

use std::io::Read as _;

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
    }
}
