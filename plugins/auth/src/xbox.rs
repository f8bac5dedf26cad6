//! Xbox Live tokens: device, title and user tokens, then XSTS tokens per relying party. Every
//! request is signed with the proof key (P-256) the device token is bound to, as the Xbox
//! Authentication Library does.

use base64::Engine as _;
use base64::engine::general_purpose::{STANDARD, URL_SAFE_NO_PAD};
use p256::ecdsa::signature::Signer as _;
use p256::ecdsa::{Signature, SigningKey};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use crate::endpoints::{Endpoints, RP_XBOX_AUTH};
use crate::http::{Body, Http, Reply};
use crate::time::{now_unix, parse_iso8601};
use crate::{AuthError, Secret};

/// Seconds between 1601-01-01 (Windows FILETIME epoch) and 1970-01-01.
const FILETIME_EPOCH_OFFSET: u64 = 11_644_473_600;

/// The device's P-256 key: its public half is the `ProofKey` of every request and it signs them.
#[derive(Clone)]
pub struct ProofKey(SigningKey);

impl std::fmt::Debug for ProofKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ProofKey(..)")
    }
}

impl ProofKey {
    pub fn generate() -> Self {
        Self(SigningKey::random(&mut rand::rngs::OsRng))
    }

    /// The private scalar as stored in the token cache.
    pub fn to_secret(&self) -> Secret {
        Secret(STANDARD.encode(self.0.to_bytes()))
    }

    pub fn from_secret(s: &Secret) -> Option<Self> {
        let bytes = STANDARD.decode(&s.0).ok()?;
        SigningKey::from_slice(&bytes).ok().map(Self)
    }

    /// The public key as a JWK (`ProofKey` field).
    pub fn jwk(&self) -> Value {
        let point = self.0.verifying_key().to_encoded_point(false);
        let (x, y) = (point.x().map(|x| x.to_vec()), point.y().map(|y| y.to_vec()));
        json!({
            "kty": "EC",
            "crv": "P-256",
            "alg": "ES256",
            "use": "sig",
            "x": URL_SAFE_NO_PAD.encode(x.unwrap_or_default()),
            "y": URL_SAFE_NO_PAD.encode(y.unwrap_or_default()),
        })
    }

    /// The `Signature` header of a POST to `path` with `body` at Unix time `now`.
    pub fn sign_request(&self, path: &str, authorization: &str, body: &str, now: i64) -> String {
        let filetime = (u64::try_from(now).unwrap_or(0) + FILETIME_EPOCH_OFFSET) * 10_000_000;
        let signed = signed_payload(filetime, path, authorization, body);
        let signature: Signature = self.0.sign(&signed);
        let mut header = Vec::with_capacity(12 + 64);
        header.extend_from_slice(&1u32.to_be_bytes());
        header.extend_from_slice(&filetime.to_be_bytes());
        header.extend_from_slice(&signature.to_bytes());
        STANDARD.encode(header)
    }
}

/// What the signature covers: policy version 1, the FILETIME, method, path, the Authorization
/// header and the body, each NUL-terminated.
pub fn signed_payload(filetime: u64, path: &str, authorization: &str, body: &str) -> Vec<u8> {
    let mut out = Vec::with_capacity(32 + path.len() + authorization.len() + body.len());
    out.extend_from_slice(&1u32.to_be_bytes());
    out.push(0);
    out.extend_from_slice(&filetime.to_be_bytes());
    out.push(0);
    for part in ["POST", path, authorization, body] {
        out.extend_from_slice(part.as_bytes());
        out.push(0);
    }
    out
}

/// An Xbox token with the claims we keep.
#[derive(Clone, Serialize, Deserialize, PartialEq, Eq, Default)]
pub struct XboxToken {
    pub token: Secret,
    /// Unix time it expires.
    pub not_after: i64,
    /// User hash (`uhs`), for the `XBL3.0 x=<uhs>;<token>` header.
    #[serde(default)]
    pub uhs: String,
    /// XUID, when the relying party reveals it.
    #[serde(default)]
    pub xuid: String,
    /// Gamertag, when the relying party reveals it.
    #[serde(default)]
    pub gamertag: String,
}

impl std::fmt::Debug for XboxToken {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("XboxToken")
            .field("not_after", &self.not_after)
            .field("xuid", &self.xuid)
            .finish_non_exhaustive()
    }
}

impl XboxToken {
    /// `Authorization` header value for Xbox-authenticated Minecraft services.
    pub fn xbl3_header(&self) -> String {
        format!("XBL3.0 x={};{}", self.uhs, self.token.0)
    }
}

/// Headers every Xbox auth request carries.
const CONTRACT: (&str, &str) = ("x-xbl-contract-version", "1");

fn signed_post(
    http: &Http,
    service: &'static str,
    base: &str,
    path: &str,
    key: &ProofKey,
    body: &Value,
    extra: &[(&str, &str)],
) -> Result<Reply, AuthError> {
    let text = body.to_string();
    let signature = key.sign_request(path, "", &text, now_unix());
    let mut headers = vec![("Signature", signature.as_str()), ("Cache-Control", "no-store, must-revalidate, no-cache")];
    headers.extend_from_slice(extra);
    if !extra.iter().any(|(k, _)| k.eq_ignore_ascii_case(CONTRACT.0)) {
        headers.push(CONTRACT);
    }
    // The signature covers the exact bytes, so send the text we signed.
    http.post(service, &format!("{base}{path}"), &headers, Body::RawJson(&text))
}

/// A device token for a device of `device_type` (e.g. `Android`) bound to `key`.
pub(crate) fn device_token(
    http: &Http,
    ep: &Endpoints,
    key: &ProofKey,
    device_type: &str,
    device_version: &str,
) -> Result<XboxToken, AuthError> {
    const SERVICE: &str = "device.auth.xboxlive.com";
    let body = json!({
        "RelyingParty": RP_XBOX_AUTH,
        "TokenType": "JWT",
        "Properties": {
            "AuthMethod": "ProofOfPossession",
            "Id": format!("{{{}}}", uuid::Uuid::new_v4()),
            "DeviceType": device_type,
            "SerialNumber": format!("{{{}}}", uuid::Uuid::new_v4()),
            "Version": device_version,
            "ProofKey": key.jwk(),
        },
    });
    let reply = signed_post(http, SERVICE, &ep.xbox_device, "/device/authenticate", key, &body, &[])?;
    parse_token(SERVICE, &reply)
}

/// A title token for Minecraft (the Microsoft account's client id) on this device.
pub(crate) fn title_token(
    http: &Http,
    ep: &Endpoints,
    key: &ProofKey,
    msa_access: &Secret,
    device: &XboxToken,
) -> Result<XboxToken, AuthError> {
    const SERVICE: &str = "title.auth.xboxlive.com";
    let body = json!({
        "RelyingParty": RP_XBOX_AUTH,
        "TokenType": "JWT",
        "Properties": {
            "AuthMethod": "RPS",
            "DeviceToken": device.token.0,
            "RpsTicket": format!("t={}", msa_access.0),
            "SiteName": "user.auth.xboxlive.com",
            "ProofKey": key.jwk(),
        },
    });
    let reply = signed_post(http, SERVICE, &ep.xbox_title, "/title/authenticate", key, &body, &[])?;
    parse_token(SERVICE, &reply)
}

/// The Xbox user token of the signed-in Microsoft account.
pub(crate) fn user_token(
    http: &Http,
    ep: &Endpoints,
    key: &ProofKey,
    msa_access: &Secret,
) -> Result<XboxToken, AuthError> {
    const SERVICE: &str = "user.auth.xboxlive.com";
    let body = json!({
        "RelyingParty": RP_XBOX_AUTH,
        "TokenType": "JWT",
        "Properties": {
            "AuthMethod": "RPS",
            "SiteName": "user.auth.xboxlive.com",
            "RpsTicket": format!("t={}", msa_access.0),
        },
    });
    let reply = signed_post(
        http,
        SERVICE,
        &ep.xbox_user,
        "/user/authenticate",
        key,
        &body,
        &[("x-xbl-contract-version", "2")],
    )?;
    parse_token(SERVICE, &reply)
}

/// An XSTS token for `relying_party` from the user, device and title tokens.
pub(crate) fn xsts_token(
    http: &Http,
    ep: &Endpoints,
    key: &ProofKey,
    relying_party: &str,
    user: &XboxToken,
    device: &XboxToken,
    title: &XboxToken,
) -> Result<XboxToken, AuthError> {
    const SERVICE: &str = "xsts.auth.xboxlive.com";
    let body = json!({
        "RelyingParty": relying_party,
        "TokenType": "JWT",
        "Properties": {
            "UserTokens": [user.token.0],
            "DeviceToken": device.token.0,
            "TitleToken": title.token.0,
            "ProofKey": key.jwk(),
            "SandboxId": "RETAIL",
        },
    });
    let reply = signed_post(http, SERVICE, &ep.xsts, "/xsts/authorize", key, &body, &[])?;
    parse_token(SERVICE, &reply)
}

/// `{Token, NotAfter, DisplayClaims:{xui:[{uhs, xid?, gtg?}]}}`, or an Xbox error.
fn parse_token(service: &'static str, reply: &Reply) -> Result<XboxToken, AuthError> {
    if !reply.ok() {
        return Err(xbox_error(service, reply));
    }
    let token =
        reply.str("Token").ok_or_else(|| AuthError::Service { service, detail: "response has no Token".into() })?;
    let not_after = reply
        .str("NotAfter")
        .and_then(parse_iso8601)
        .ok_or_else(|| AuthError::Service { service, detail: "response has no valid NotAfter".into() })?;
    let xui = reply.body.pointer("/DisplayClaims/xui/0");
    let claim = |k: &str| xui.and_then(|x| x.get(k)).and_then(Value::as_str).unwrap_or_default().to_owned();
    Ok(XboxToken {
        token: Secret(token.to_owned()),
        not_after,
        uhs: claim("uhs"),
        xuid: claim("xid"),
        gamertag: claim("gtg"),
    })
}

/// Xbox's `XErr` codes in words (the ones an account owner can fix).
fn xbox_error(service: &'static str, reply: &Reply) -> AuthError {
    let xerr = reply
        .body
        .get("XErr")
        .and_then(|v| v.as_u64().or_else(|| v.as_str().and_then(|s| s.parse().ok())))
        .or_else(|| reply.x_err.as_deref().and_then(|s| s.parse().ok()));
    let Some(xerr) = xerr else {
        return AuthError::Service { service, detail: format!("HTTP {}", reply.status) };
    };
    let why = match xerr {
        2_148_916_227 => "the account is banned from Xbox Live",
        2_148_916_229 => "the account is restricted and a guardian has not allowed online play",
        2_148_916_233 => "the account has no Xbox profile (create one at xbox.com, then sign in again)",
        2_148_916_234 => "the account has not accepted the Xbox terms of service",
        2_148_916_235 => "Xbox Live is not available in the account's region",
        2_148_916_236 | 2_148_916_237 => "the account needs age verification",
        2_148_916_238 => "the account belongs to a child and must be added to a family by an adult",
        _ => "",
    };
    if why.is_empty() {
        AuthError::Xbox(format!("{service} error XErr {xerr} (HTTP {})", reply.status))
    } else {
        AuthError::Xbox(format!("{why} (XErr {xerr})"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use p256::ecdsa::VerifyingKey;
    use p256::ecdsa::signature::Verifier as _;

    #[test]
    fn signature_header_verifies_and_key_round_trips() {
        let key = ProofKey::generate();
        let header = STANDARD.decode(key.sign_request("/xsts/authorize", "", "{\"a\":1}", 1_796_055_776)).expect("b64");
        assert_eq!(header.len(), 4 + 8 + 64);
        assert_eq!(&header[..4], &[0, 0, 0, 1]);
        let filetime = u64::from_be_bytes(header[4..12].try_into().expect("8"));
        assert_eq!(filetime, (1_796_055_776 + FILETIME_EPOCH_OFFSET) * 10_000_000);
        let sig = Signature::from_slice(&header[12..]).expect("sig");
        let payload = signed_payload(filetime, "/xsts/authorize", "", "{\"a\":1}");
        VerifyingKey::from(&key.0).verify(&payload, &sig).expect("verifies");
        let again = ProofKey::from_secret(&key.to_secret()).expect("restore");
        assert_eq!(again.jwk(), key.jwk());
        assert_eq!(key.jwk()["crv"], "P-256");
        assert!(ProofKey::from_secret(&Secret("bm90IGEga2V5".into())).is_none());
    }
}
