//! Which supported Bedrock version to speak with a server.
//!
//! A vanilla server accepts only its own protocol number, so the version comes from the
//! server's unconnected pong (`MCPE;motd;protocol;version;…`), unless the user forces one
//! (`--game-version` / `CLAWCRAFT_GAME_VERSION`). A server outside the supported list is refused
//! with a message naming what it runs and what clawcraft speaks, instead of being misread.

use thiserror::Error;

use crate::codec::{Protocol, VersionInfo};

/// How the version was chosen.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum VersionSource {
    /// The server's pong named its protocol number (or, lacking one, its game version).
    Pong,
    /// The user forced it.
    Forced,
    /// No pong answered and nothing was forced: the default version, on the chance it fits.
    Default,
}

impl VersionSource {
    /// Lower-case name for reports (`pong`, `forced`, `default`).
    pub fn as_str(self) -> &'static str {
        match self {
            VersionSource::Pong => "pong",
            VersionSource::Forced => "forced",
            VersionSource::Default => "default",
        }
    }
}

/// The version to speak and why.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct VersionChoice {
    /// The version.
    pub info: VersionInfo,
    /// How it was chosen.
    pub source: VersionSource,
}

/// What the server advertised in its pong (the fields that matter here).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Advertised {
    /// Network protocol number.
    pub protocol: Option<u32>,
    /// Game version text, e.g. `1.26.30`.
    pub game_version: Option<String>,
}

/// Why no supported version fits.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum VersionError {
    /// The server runs a version clawcraft does not speak.
    #[error(
        "the server runs Bedrock {} (protocol {}); clawcraft speaks {} — ask for a supported version or force one with --game-version / CLAWCRAFT_GAME_VERSION",
        .game_version.as_deref().unwrap_or("?"),
        .protocol.map_or_else(|| "?".to_owned(), |p| p.to_string()),
        Protocol::supported_list()
    )]
    Unsupported {
        /// The advertised protocol number.
        protocol: Option<u32>,
        /// The advertised game version.
        game_version: Option<String>,
    },
    /// The forced version is not one clawcraft speaks.
    #[error("--game-version / CLAWCRAFT_GAME_VERSION {forced} is not supported; clawcraft speaks {list}", list = Protocol::supported_list())]
    UnknownForced {
        /// What was asked for.
        forced: String,
    },
}

/// Picks the version: the forced one (if supported), else the pong's protocol number, else the
/// pong's game version, else (no pong) the default version.
pub fn choose(advertised: Option<&Advertised>, forced: Option<&str>) -> Result<VersionChoice, VersionError> {
    let supported = Protocol::versions();
    if let Some(forced) = forced.map(str::trim).filter(|f| !f.is_empty() && *f != "auto") {
        let info = supported
            .iter()
            .find(|v| v.game_version == forced)
            .ok_or_else(|| VersionError::UnknownForced { forced: forced.to_owned() })?;
        return Ok(VersionChoice { info: *info, source: VersionSource::Forced });
    }
    let Some(ad) = advertised else {
        return Ok(VersionChoice { info: Protocol::default_version(), source: VersionSource::Default });
    };
    let by_protocol = ad.protocol.and_then(|p| supported.iter().find(|v| i64::from(v.protocol) == i64::from(p)));
    let by_version = || {
        let g = ad.game_version.as_deref()?;
        supported.iter().find(|v| v.game_version == g)
    };
    let info = match (ad.protocol, by_protocol) {
        (_, Some(info)) => Some(info),
        // A protocol number is what a server checks: an unknown one is final.
        (Some(_), None) => None,
        (None, None) => by_version(),
    };
    match info {
        Some(info) => Ok(VersionChoice { info: *info, source: VersionSource::Pong }),
        None if ad.protocol.is_none() && ad.game_version.is_none() => {
            Ok(VersionChoice { info: Protocol::default_version(), source: VersionSource::Default })
        }
        None => Err(VersionError::Unsupported { protocol: ad.protocol, game_version: ad.game_version.clone() }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ad(protocol: Option<u32>, version: Option<&str>) -> Advertised {
        Advertised { protocol, game_version: version.map(str::to_owned) }
    }

    #[test]
    fn every_supported_version_is_picked_from_its_pong() {
        for v in Protocol::versions() {
            let c = choose(Some(&ad(u32::try_from(v.protocol).ok(), Some(v.game_version))), None).expect("supported");
            assert_eq!((c.info, c.source), (*v, VersionSource::Pong));
            // Third-party servers may advertise only the game version.
            let c = choose(Some(&ad(None, Some(v.game_version))), None).expect("by game version");
            assert_eq!(c.info, *v);
        }
    }

    #[test]
    fn an_unsupported_server_is_refused_by_name() {
        let err = choose(Some(&ad(Some(766), Some("1.21.50"))), None).expect_err("unsupported");
        let msg = err.to_string();
        assert!(msg.contains("1.21.50") && msg.contains("766"), "{msg}");
        for v in Protocol::versions() {
            assert!(msg.contains(v.game_version), "{msg} lists {}", v.game_version);
        }
        // The protocol number decides, even if the game version text looks familiar.
        let first = Protocol::versions()[0];
        assert!(choose(Some(&ad(Some(12345), Some(first.game_version))), None).is_err());
    }

    #[test]
    fn forcing_wins_and_must_be_supported() {
        let first = Protocol::versions()[0];
        let c = choose(Some(&ad(Some(766), Some("1.21.50"))), Some(first.game_version)).expect("forced");
        assert_eq!((c.info, c.source), (first, VersionSource::Forced));
        assert!(matches!(choose(None, Some("9.9.9")), Err(VersionError::UnknownForced { .. })));
        // "auto" and "" mean not forced.
        let c = choose(None, Some("auto")).expect("auto");
        assert_eq!((c.info, c.source), (Protocol::default_version(), VersionSource::Default));
        assert_eq!(choose(Some(&ad(None, None)), Some("")).expect("empty").source, VersionSource::Default);
    }
}
