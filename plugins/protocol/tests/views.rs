//! Strict typed views: every field each view names exists in every supported version's
//! definition (a missing one would silently read as its default), and the list of views the
//! checks run over is complete.

use clawcraft_protocol::codec::{CodecError, Protocol};
use clawcraft_protocol::packets::ALL_VIEWS;

#[test]
fn every_view_fits_every_supported_version() {
    let mut failures = Vec::new();
    for info in Protocol::versions() {
        let p = Protocol::load(info.game_version).expect("load");
        for view in ALL_VIEWS {
            if let Err(e) = (view.check)(&p) {
                failures.push(format!("{} ({}) @ {}: {e}", view.type_name, view.name, info.game_version));
            }
        }
    }
    assert!(failures.is_empty(), "{} views do not fit:\n{}", failures.len(), failures.join("\n"));
}

#[test]
fn the_view_list_names_every_view_in_the_source() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/src/packets");
    let mut declared = Vec::new();
    for entry in std::fs::read_dir(dir).expect("packets dir") {
        let path = entry.expect("entry").path();
        let text = std::fs::read_to_string(&path).expect("read");
        for line in text.lines() {
            let line = line.trim();
            let name = line
                .strip_prefix("packet!(")
                .and_then(|r| r.split(',').next())
                .or_else(|| line.strip_prefix("impl Packet for ").and_then(|r| r.split_whitespace().next()));
            if let Some(n) = name.filter(|n| !n.starts_with('$')) {
                declared.push(n.to_owned());
            }
        }
    }
    assert!(declared.len() > 50, "found only {} views", declared.len());
    let listed: Vec<&str> = ALL_VIEWS.iter().map(|v| v.type_name).collect();
    let missing: Vec<&String> = declared.iter().filter(|d| !listed.contains(&d.as_str())).collect();
    assert!(missing.is_empty(), "views missing from ALL_VIEWS: {missing:?}");
    assert_eq!(listed.len(), declared.len(), "ALL_VIEWS lists a view twice or one that no longer exists");
}

/// The check itself must fail on a view naming a field the definition lacks, and on a shape
/// mismatch, or the test above proves nothing.
#[test]
fn a_field_the_definition_lacks_is_an_error() {
    use serde::{Deserialize, Serialize};

    #[derive(Debug, Default, Serialize, Deserialize)]
    #[serde(default)]
    struct Misnamed {
        status: String,
        statsu: i32,
    }
    impl clawcraft_protocol::codec::Packet for Misnamed {
        const NAME: &'static str = "play_status";
    }
    #[derive(Debug, Default, Serialize, Deserialize)]
    #[serde(default)]
    struct Inner {
        x: i32,
        nope: Option<bool>,
    }
    #[derive(Debug, Default, Serialize, Deserialize)]
    #[serde(default)]
    struct Nested {
        coordinates: Inner,
        saved_chunks: Vec<Inner>,
        radius: Vec<u32>,
    }
    impl clawcraft_protocol::codec::Packet for Nested {
        const NAME: &'static str = "network_chunk_publisher_update";
    }
    for info in Protocol::versions() {
        let p = Protocol::load(info.game_version).expect("load");
        let Err(CodecError::View { problems, .. }) = p.check_view::<Misnamed>() else {
            panic!("misnamed field passed")
        };
        assert_eq!(problems.len(), 1, "{problems:?}");
        assert!(problems[0].contains("statsu"), "{problems:?}");
        let Err(CodecError::View { problems, .. }) = p.check_view::<Nested>() else { panic!("nested passed") };
        let all = problems.join("\n");
        assert!(all.contains("`coordinates.nope`"), "{all}");
        assert!(all.contains("`saved_chunks[0].nope`"), "{all}");
        assert!(all.contains("`radius`") && all.contains("a list"), "{all}");
    }
}
