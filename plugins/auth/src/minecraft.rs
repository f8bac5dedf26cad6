//! Minecraft's side of the sign-in: the Xbox-signed certificate chain (multiplayer.minecraft.net),
//! the PlayFab login of title 20CA2, the Minecraft services session and the OIDC multiplayer
//! token a ≥ 1.26.10 (protocol 944) server verifies.

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use crate::endpoints::{Endpoints, PLAYFAB_TITLE_ID};
use crate::http::{Body, Http, Reply};
use crate::time::{now_unix, parse_iso8601};
use crate::xbox::XboxToken;
use crate::{AuthError, Secret};

/// The chain of JWTs (Mojang-signed, carrying the Xbox identity) for `public_key_b64`.
pub(crate) fn certificate_chain(
    http: &Http,
    ep: &Endpoints,
    xsts: &XboxToken,
    public_key_b64: &str,
    game_version: &str,
) -> Result<Vec<String>, AuthError> {
    const SERVICE: &str = "multiplayer.minecraft.net";
    let auth = xsts.xbl3_header();
    let headers = [("Authorization", auth.as_str()), ("User-Agent", "MCPE/Android"), ("Client-Version", game_version)];
    let body = json!({"identityPublicKey": public_key_b64});
    let reply = http.post(SERVICE, &format!("{}/authentication", ep.minecraft), &headers, Body::Json(&body))?;
    match reply.status {
        200 => {}
        401 | 403 => {
            return Err(AuthError::NoMinecraft(format!(
                "{SERVICE} refused it (HTTP {}): does the account own Minecraft (Bedrock Edition)?",
                reply.status
            )));
        }
        status => return Err(AuthError::Service { service: SERVICE, detail: format!("HTTP {status}") }),
    }
    let chain: Vec<String> = reply
        .body
        .get("chain")
        .and_then(Value::as_array)
        .map(|a| a.iter().filter_map(Value::as_str).map(str::to_owned).collect())
        .unwrap_or_default();
    if chain.is_empty() {
        return Err(AuthError::Service { service: SERVICE, detail: "response has no chain".into() });
    }
    Ok(chain)
}

/// A PlayFab session of title 20CA2.
#[derive(Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct PlayFabSession {
    pub session_ticket: Secret,
    pub playfab_id: String,
    /// Unix time the session ends (the entity token's expiry).
    pub expires_at: i64,
}

impl std::fmt::Debug for PlayFabSession {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PlayFabSession").field("expires_at", &self.expires_at).finish_non_exhaustive()
    }
}

/// Logs in to PlayFab with the XSTS token of PlayFab's relying party (creating the PlayFab
/// account on first use, as the game does).
pub(crate) fn playfab_login(http: &Http, ep: &Endpoints, xsts: &XboxToken) -> Result<PlayFabSession, AuthError> {
    const SERVICE: &str = "playfabapi.com";
    let body = json!({
        "CreateAccount": true,
        "TitleId": PLAYFAB_TITLE_ID,
        "XboxToken": xsts.xbl3_header(),
        "InfoRequestParameters": {"GetPlayerProfile": true, "GetUserAccountInfo": true},
    });
    let reply = http.post(SERVICE, &format!("{}/Client/LoginWithXbox", ep.playfab), &[], Body::Json(&body))?;
    if !reply.ok() {
        let code = reply.str("error").map(|e| format!(" ({e})")).unwrap_or_default();
        return Err(AuthError::Service { service: SERVICE, detail: format!("HTTP {}{code}", reply.status) });
    }
    let data = reply.body.get("data").unwrap_or(&Value::Null);
    let ticket = data.get("SessionTicket").and_then(Value::as_str);
    let Some(ticket) = ticket else {
        return Err(AuthError::Service { service: SERVICE, detail: "response has no SessionTicket".into() });
    };
    let expires_at = data
        .pointer("/EntityToken/TokenExpiration")
        .and_then(Value::as_str)
        .and_then(parse_iso8601)
        // A session ticket lives a day when the entity token says nothing.
        .unwrap_or_else(|| now_unix() + 24 * 3600);
    Ok(PlayFabSession {
        session_ticket: Secret(ticket.to_owned()),
        playfab_id: data.get("PlayFabId").and_then(Value::as_str).unwrap_or_default().to_owned(),
        expires_at,
    })
}

/// The Minecraft services session token (`MCToken …`).
#[derive(Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct ServicesToken {
    pub authorization_header: Secret,
    /// Unix time it stops working.
    pub valid_until: i64,
}

impl std::fmt::Debug for ServicesToken {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ServicesToken").field("valid_until", &self.valid_until).finish_non_exhaustive()
    }
}

const FRANCHISE: &str = "authorization.franchise.minecraft-services.net";

/// Starts a Minecraft services session from the PlayFab session ticket.
pub(crate) fn services_session(
    http: &Http,
    ep: &Endpoints,
    playfab: &PlayFabSession,
    game_version: &str,
    device_id: &str,
) -> Result<ServicesToken, AuthError> {
    let body = json!({
        "device": {
            "applicationType": "MinecraftPE",
            "capabilities": [],
            "gameVersion": game_version,
            "id": device_id,
            "memory": (8u64 << 30).to_string(),
            "platform": "Windows10",
            "playFabTitleId": PLAYFAB_TITLE_ID,
            "storePlatform": "uwp.store",
            "type": "Windows10",
        },
        "user": {
            "language": "en",
            "languageCode": "en-US",
            "regionCode": "US",
            "token": playfab.session_ticket.0,
            "tokenType": "PlayFab",
        },
    });
    let url = format!("{}/api/v1.0/session/start", ep.franchise);
    let reply = http.post(FRANCHISE, &url, &[], Body::Json(&body))?;
    check_franchise(&reply)?;
    let result = reply.body.get("result").unwrap_or(&Value::Null);
    let header = result.get("authorizationHeader").and_then(Value::as_str);
    let valid_until = result.get("validUntil").and_then(Value::as_str).and_then(parse_iso8601);
    match (header, valid_until) {
        (Some(h), Some(v)) => Ok(ServicesToken { authorization_header: Secret(h.to_owned()), valid_until: v }),
        _ => Err(AuthError::Service {
            service: FRANCHISE,
            detail: "session has no authorizationHeader/validUntil".into(),
        }),
    }
}

/// The OIDC multiplayer token binding the services session to `public_key_b64` (its `cpk`).
pub(crate) fn multiplayer_token(
    http: &Http,
    ep: &Endpoints,
    services: &ServicesToken,
    public_key_b64: &str,
) -> Result<String, AuthError> {
    let url = format!("{}/api/v1.0/multiplayer/session/start", ep.franchise);
    let headers = [("Authorization", services.authorization_header.0.as_str())];
    let reply = http.post(FRANCHISE, &url, &headers, Body::Json(&json!({"publicKey": public_key_b64})))?;
    check_franchise(&reply)?;
    reply
        .body
        .pointer("/result/signedToken")
        .and_then(Value::as_str)
        .filter(|t| !t.is_empty())
        .map(str::to_owned)
        .ok_or_else(|| AuthError::Service { service: FRANCHISE, detail: "response has no signedToken".into() })
}

/// Minecraft services errors: `{code, message}`; 401/403 mean this account may not play.
fn check_franchise(reply: &Reply) -> Result<(), AuthError> {
    if reply.ok() {
        return Ok(());
    }
    let code = reply.str("code").map(|c| format!(" ({c})")).unwrap_or_default();
    Err(AuthError::Service { service: FRANCHISE, detail: format!("HTTP {}{code}", reply.status) })
}

/// Decodes a JWT's claims without checking its signature (the client only reads its own
/// identity back; the server verifies).
pub fn unverified_claims(jwt: &str) -> Option<Value> {
    use base64::Engine as _;
    let payload = jwt.trim().strip_prefix("MCToken ").unwrap_or(jwt.trim()).split('.').nth(1)?;
    let bytes = base64::engine::general_purpose::URL_SAFE_NO_PAD.decode(payload.trim_end_matches('=')).ok()?;
    serde_json::from_slice(&bytes).ok()
}
