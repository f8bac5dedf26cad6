//! Microsoft account sign-in with an OAuth device code (RFC 8628 as login.live.com speaks it),
//! and refreshing the resulting tokens.

use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::endpoints::{Endpoints, XBOX_SCOPE};
use crate::http::{Body, Http, Reply};
use crate::time::now_unix;
use crate::{AuthError, Secret};

const SERVICE: &str = "login.live.com";
/// Grant type of the device-code poll.
const DEVICE_CODE_GRANT: &str = "urn:ietf:params:oauth:grant-type:device_code";

/// A device code to show a human.
#[derive(Debug, Clone)]
pub struct DeviceCode {
    /// What the human types, e.g. `ABCD1234`.
    pub user_code: String,
    /// Where they type it, e.g. `https://www.microsoft.com/link`.
    pub verification_uri: String,
    /// The poller's handle for this code (not shown to anyone).
    pub device_code: Secret,
    /// Seconds between polls the service asks for.
    pub interval: Duration,
    /// Unix time the code stops working.
    pub expires_at: i64,
}

/// The Microsoft account tokens the Xbox tokens are made from.
#[derive(Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct MsaTokens {
    pub access_token: Secret,
    pub refresh_token: Secret,
    /// Unix time the access token expires.
    pub expires_at: i64,
}

impl std::fmt::Debug for MsaTokens {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MsaTokens").field("expires_at", &self.expires_at).finish_non_exhaustive()
    }
}

/// One answer to a device-code poll.
pub(crate) enum Poll {
    /// Nobody has entered the code yet.
    Pending,
    /// Poll less often (the interval grows by 5 s, RFC 8628 §3.5).
    SlowDown,
    /// Signed in.
    Done(MsaTokens),
}

/// Asks for a device code.
pub(crate) fn request_device_code(http: &Http, ep: &Endpoints, client_id: &str) -> Result<DeviceCode, AuthError> {
    let url = format!("{}/oauth20_connect.srf", ep.live);
    let form = [("scope", XBOX_SCOPE), ("client_id", client_id), ("response_type", "device_code")];
    let reply = http.post(SERVICE, &url, &[], Body::Form(&form))?;
    if !reply.ok() {
        return Err(service_error(&reply));
    }
    let field = |k: &str| reply.str(k).map(str::to_owned).ok_or_else(|| missing(k));
    let num = |k: &str| reply.body.get(k).and_then(serde_json::Value::as_u64);
    Ok(DeviceCode {
        user_code: field("user_code")?,
        verification_uri: field("verification_uri")?,
        device_code: Secret(field("device_code")?),
        // Never poll faster than once a second, whatever the service says.
        interval: Duration::from_secs(num("interval").unwrap_or(5).max(1)),
        expires_at: now_unix() + i64::try_from(num("expires_in").unwrap_or(900)).unwrap_or(900),
    })
}

/// Polls once for the device code's tokens.
pub(crate) fn poll_device_code(
    http: &Http,
    ep: &Endpoints,
    client_id: &str,
    code: &DeviceCode,
) -> Result<Poll, AuthError> {
    let url = format!("{}/oauth20_token.srf", ep.live);
    let form =
        [("client_id", client_id), ("device_code", code.device_code.0.as_str()), ("grant_type", DEVICE_CODE_GRANT)];
    let reply = http.post(SERVICE, &url, &[], Body::Form(&form))?;
    if reply.ok() {
        return tokens(&reply).map(Poll::Done);
    }
    match reply.str("error") {
        Some("authorization_pending") => Ok(Poll::Pending),
        Some("slow_down") => Ok(Poll::SlowDown),
        Some("authorization_declined" | "access_denied") => Err(AuthError::Declined),
        Some("expired_token" | "bad_verification_code") => Err(AuthError::CodeExpired),
        _ => Err(service_error(&reply)),
    }
}

/// Trades the refresh token for fresh tokens. A refused refresh token is [`AuthError::Revoked`].
pub(crate) fn refresh(
    http: &Http,
    ep: &Endpoints,
    client_id: &str,
    refresh_token: &Secret,
) -> Result<MsaTokens, AuthError> {
    let url = format!("{}/oauth20_token.srf", ep.live);
    let form = [
        ("scope", XBOX_SCOPE),
        ("client_id", client_id),
        ("grant_type", "refresh_token"),
        ("refresh_token", refresh_token.0.as_str()),
    ];
    let reply = http.post(SERVICE, &url, &[], Body::Form(&form))?;
    if reply.ok() {
        return tokens(&reply);
    }
    match reply.str("error") {
        Some(e @ ("invalid_grant" | "unauthorized_client" | "interaction_required")) => {
            Err(AuthError::Revoked(e.to_owned()))
        }
        _ => Err(service_error(&reply)),
    }
}

fn tokens(reply: &Reply) -> Result<MsaTokens, AuthError> {
    let field = |k: &str| reply.str(k).map(|s| Secret(s.to_owned())).ok_or_else(|| missing(k));
    let expires_in = reply.body.get("expires_in").and_then(serde_json::Value::as_i64).unwrap_or(3600);
    Ok(MsaTokens {
        access_token: field("access_token")?,
        refresh_token: field("refresh_token")?,
        expires_at: now_unix() + expires_in,
    })
}

fn missing(field: &str) -> AuthError {
    AuthError::Service { service: SERVICE, detail: format!("response has no {field}") }
}

/// Status plus the OAuth `error` code (never the description, which may echo input).
fn service_error(reply: &Reply) -> AuthError {
    let code = reply.str("error").map(|e| format!(" ({e})")).unwrap_or_default();
    AuthError::Service { service: SERVICE, detail: format!("HTTP {}{code}", reply.status) }
}
