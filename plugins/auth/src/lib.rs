//! Online (Xbox Live) sign-in for a Bedrock client, with no Bevy dependency.
//!
//! [`Authenticator::sign_in`] runs the chain a current Bedrock client runs, blocking (call it off
//! the game thread):
//!
//! ```text
//! login.live.com        device code → (human enters it) → MSA access + refresh token
//! device/title/user     Xbox device token (proof key), title token, user token   ─┐ signed with
//! xsts.auth.xboxlive    XSTS for multiplayer.minecraft.net and for PlayFab        ─┘ the proof key
//! multiplayer.minecraft certificate chain for the connection's key  (Login `Certificate`)
//! playfabapi.com        LoginWithXbox → session ticket
//! franchise services    session/start → MCToken; multiplayer/session/start → OIDC token (Login `Token`)
//! ```
//!
//! Everything but the two per-connection steps (chain, multiplayer token: both bind the
//! connection's key) is cached in one file per `USERNAME` ([`store`]) and renewed before it
//! expires; the device code is needed again only when the refresh token stops working.
//! [`Endpoints`] makes every service URL configurable; the `fake` feature has a loopback fake
//! of all of them for tests.

mod error;
mod flow;
mod http;

pub mod endpoints;
#[cfg(feature = "fake")]
pub mod fake;
pub mod minecraft;
pub mod msa;
pub mod store;
pub mod time;
pub mod xbox;

pub use endpoints::Endpoints;
pub use error::AuthError;
pub use flow::{AuthConfig, AuthProgress, Authenticator, OnlineIdentity};

use serde::{Deserialize, Serialize};

/// A token or other credential. Serialized as its string (the cache file holds it), shown as
/// `<redacted>` by `Debug`, so it never reaches a log line by accident.
#[derive(Clone, Serialize, Deserialize, PartialEq, Eq, Default)]
#[serde(transparent)]
pub struct Secret(pub String);

impl std::fmt::Debug for Secret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("<redacted>")
    }
}
