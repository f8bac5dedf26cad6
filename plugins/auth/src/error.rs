//! Why a sign-in failed, in words a human can act on. No variant ever carries a token: messages
//! are built from status codes and the services' error *codes*, never from response bodies.

use thiserror::Error;

/// A failed sign-in. `code()` is stable for programs; `Display` is for people.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum AuthError {
    /// The person at microsoft.com/link declined the sign-in.
    #[error("the Microsoft sign-in was declined")]
    Declined,
    /// Nobody entered the code before it expired.
    #[error("the Microsoft sign-in code expired before it was entered")]
    CodeExpired,
    /// A code was declined or expired recently; no new code is requested before the cool-down.
    #[error(
        "the last sign-in code was declined or expired; a new code is requested in {0} s (or sign in now with `clawcraft auth login`)"
    )]
    CodeCooldown(u64),
    /// The cached refresh token no longer works (revoked, password changed, unused for too long).
    #[error(
        "the saved Microsoft sign-in was revoked or has expired ({0}); the next attempt asks for a new sign-in code"
    )]
    Revoked(String),
    /// A service could not be reached (DNS, TCP, TLS, timeout).
    #[error("cannot reach {service}: {detail}")]
    Network {
        /// Which service, e.g. `login.live.com`.
        service: &'static str,
        /// What went wrong, without URLs' query strings or bodies.
        detail: String,
    },
    /// Xbox Live refused the account (no Xbox profile, child account, banned, region…).
    #[error("Xbox Live refused the account: {0}")]
    Xbox(String),
    /// The account has no access to Minecraft: Bedrock Edition multiplayer.
    #[error("this Microsoft account cannot play Minecraft: {0}")]
    NoMinecraft(String),
    /// A service answered with an unexpected status or shape.
    #[error("{service} answered unexpectedly: {detail}")]
    Service {
        /// Which service.
        service: &'static str,
        /// Status code and the service's error code, never the body.
        detail: String,
    },
    /// The token cache could not be read or written.
    #[error("token cache {path}: {detail}")]
    Cache {
        /// The file.
        path: String,
        /// The I/O error.
        detail: String,
    },
    /// The sign-in was abandoned (shutdown).
    #[error("sign-in cancelled")]
    Cancelled,
}

impl AuthError {
    /// A stable machine-readable code.
    pub fn code(&self) -> &'static str {
        match self {
            Self::Declined => "AUTH_DECLINED",
            Self::CodeExpired => "AUTH_CODE_EXPIRED",
            Self::CodeCooldown(_) => "AUTH_CODE_COOLDOWN",
            Self::Revoked(_) => "AUTH_REVOKED",
            Self::Network { .. } => "AUTH_NETWORK",
            Self::Xbox(_) => "AUTH_XBOX",
            Self::NoMinecraft(_) => "AUTH_NO_MINECRAFT",
            Self::Service { .. } => "AUTH_SERVICE",
            Self::Cache { .. } => "AUTH_CACHE",
            Self::Cancelled => "AUTH_CANCELLED",
        }
    }
}
