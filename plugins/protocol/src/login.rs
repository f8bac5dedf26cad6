//! The Login identity — offline ("self-signed") or online (Xbox Live: the certificate chain and
//! the OIDC multiplayer token) — and the ECDH key exchange.
//!
//! Offline logins come in two shapes ([`OfflineShape`]): the self-signed multiplayer token with an
//! empty chain (what vanilla sends from 1.26.10, protocol 944) and the self-signed certificate
//! chain carrying `extraData` (what every offline client sent before; servers such as SerenityJS
//! still read only that). [`OfflineLogin`] is the user's choice between them.
//!
//! One fresh P-384 key pair per connection signs both login JWTs and is
//! the client half of the ECDH that derives the encryption key. Online, the sign-in services
//! bind the chain and the multiplayer token to that same key (see `clawcraft-auth`).

use std::time::{SystemTime, UNIX_EPOCH};

use base64::Engine as _;
use base64::engine::general_purpose::{STANDARD, STANDARD_NO_PAD, URL_SAFE_NO_PAD};
use p384::ecdsa::signature::{Signer as _, Verifier as _};
use p384::ecdsa::{Signature, SigningKey, VerifyingKey};
use p384::pkcs8::DecodePublicKey as _;
use rand::Rng as _;
use rand::rngs::OsRng;
use serde_json::{Value, json};
use sha2::{Digest, Sha256};
use thiserror::Error;
use uuid::Uuid;

use crate::io::WriteExt;

/// Login (0x01) packet id.
pub const LOGIN_PACKET_ID: u32 = 0x01;
/// `aud` claim of the self-signed multiplayer token (required since mid-2026 servers).
const MULTIPLAYER_AUDIENCE: &str = "api://auth-minecraft-services/multiplayer";
/// DER prefix of a P-384 SubjectPublicKeyInfo: SEQUENCE { SEQUENCE { id-ecPublicKey, secp384r1 },
/// BIT STRING (0 unused bits) }, followed by the 97-byte uncompressed point. Writing it by hand
/// keeps key generation infallible.
const P384_SPKI_PREFIX: [u8; 23] = [
    0x30, 0x76, 0x30, 0x10, 0x06, 0x07, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x02, 0x01, 0x06, 0x05, 0x2b, 0x81, 0x04, 0x00,
    0x22, 0x03, 0x62, 0x00,
];
/// First protocol whose vanilla offline login is the self-signed multiplayer token (1.26.10).
pub const OIDC_OFFLINE_PROTOCOL: i32 = 944;
/// Width and height of the classic skin we send.
const SKIN_WIDTH: u32 = 64;
const SKIN_HEIGHT: u32 = 32;

/// Why building the login or processing the server handshake failed.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum LoginError {
    /// The token is not three dot-separated base64url parts.
    #[error("malformed JWT: {0}")]
    MalformedJwt(String),
    /// A JWT part or field was not valid base64.
    #[error("invalid base64 in {0}")]
    Base64(&'static str),
    /// A JWT part was not valid JSON.
    #[error("invalid JSON in {what}: {reason}")]
    Json {
        /// Which part.
        what: &'static str,
        /// serde_json's message.
        reason: String,
    },
    /// A required JWT field was missing or of the wrong type.
    #[error("JWT is missing the string field {0:?}")]
    MissingField(&'static str),
    /// The `x5u` key is not a P-384 SubjectPublicKeyInfo.
    #[error("invalid P-384 public key in x5u")]
    BadPublicKey,
    /// The signature is not a valid ES384 signature for the x5u key.
    #[error("JWT signature does not verify against its x5u key")]
    BadSignature,
    /// Signing failed (should not happen with a valid key).
    #[error("signing failed")]
    Signing,
}

/// The shape of an offline (self-signed) login identity.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum OfflineShape {
    /// `Token`: a self-signed ES384 multiplayer token; `Certificate` holds a chain with one empty
    /// entry (vanilla from 1.26.10).
    Token,
    /// `Certificate`: a one-link self-signed chain whose JWT carries `extraData` (displayName,
    /// identity, XUID) and `identityPublicKey`; `Token` empty (vanilla before 1.26.10).
    Chain,
}

impl OfflineShape {
    /// What vanilla sends offline at `protocol`.
    pub fn vanilla(protocol: i32) -> Self {
        if protocol >= OIDC_OFFLINE_PROTOCOL { Self::Token } else { Self::Chain }
    }

    /// The other shape.
    pub fn other(self) -> Self {
        match self {
            Self::Token => Self::Chain,
            Self::Chain => Self::Token,
        }
    }

    /// `"token"` or `"chain"`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Token => "token",
            Self::Chain => "chain",
        }
    }
}

/// Which offline login shape to send (`--offline-login`, `CLAWCRAFT_OFFLINE_LOGIN`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum OfflineLogin {
    /// What vanilla sends for the version; when the server refuses the login for its identity,
    /// once more with the other shape (and that server's accepted shape is remembered).
    #[default]
    Auto,
    /// Only this shape, never retried.
    Only(OfflineShape),
}

impl OfflineLogin {
    /// Every accepted spelling, for help texts.
    pub const NAMES: [&'static str; 3] = ["auto", "token", "chain"];

    /// `"auto"`, `"token"` or `"chain"`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Auto => "auto",
            Self::Only(shape) => shape.as_str(),
        }
    }
}

impl std::str::FromStr for OfflineLogin {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.trim().to_ascii_lowercase().as_str() {
            "auto" | "" => Ok(Self::Auto),
            "token" => Ok(Self::Only(OfflineShape::Token)),
            "chain" => Ok(Self::Only(OfflineShape::Chain)),
            other => Err(format!("unknown offline login {other:?} (expected auto, token or chain)")),
        }
    }
}

/// The per-connection P-384 key pair.
#[derive(Clone)]
pub struct LoginKeys {
    signing: SigningKey,
    /// Standard base64 (padded) of the DER SPKI: the `x5u` header and `cpk` claim.
    spki_b64: String,
}

impl std::fmt::Debug for LoginKeys {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Never print the private key.
        f.debug_struct("LoginKeys").field("public", &self.spki_b64).finish_non_exhaustive()
    }
}

impl LoginKeys {
    /// A fresh random key pair from the OS RNG.
    pub fn generate() -> Self {
        Self::from_signing_key(SigningKey::random(&mut OsRng))
    }

    /// Wraps an existing key (tests, or a fixed identity).
    pub fn from_signing_key(signing: SigningKey) -> Self {
        let point = VerifyingKey::from(&signing).to_encoded_point(false);
        let mut der = Vec::with_capacity(P384_SPKI_PREFIX.len() + point.len());
        der.extend_from_slice(&P384_SPKI_PREFIX);
        der.extend_from_slice(point.as_bytes());
        Self { signing, spki_b64: STANDARD.encode(der) }
    }

    /// Standard base64 (padded) DER SubjectPublicKeyInfo of the public key.
    pub fn public_key_b64(&self) -> &str {
        &self.spki_b64
    }

    /// The public half, for verifying our own signatures.
    pub fn verifying_key(&self) -> VerifyingKey {
        VerifyingKey::from(&self.signing)
    }
}

/// What the login tokens say about the player and the client.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoginParams {
    /// Player name (`xname`, `ThirdPartyName`).
    pub username: String,
    /// Network protocol version, e.g. 2169.
    pub protocol_version: i32,
    /// Must equal the server's version exactly, e.g. `"1.26.45"`.
    pub game_version: String,
    /// `"host:port"` as dialled.
    pub server_address: String,
    /// DeviceOS enum: 1 Android, 7 Win10, 8 Win32, … (1..=15).
    pub device_os: i32,
    /// Free text device model.
    pub device_model: String,
    /// Input mode (1 mouse, 2 touch, 3 gamepad); keep equal to PlayerAuthInput's `input_mode`.
    pub input_mode: i32,
    /// Locale, e.g. `"en_US"`.
    pub language_code: String,
    /// Online (Xbox Live) sign-in material for this connection's key; `None` logs in offline.
    pub online: Option<OnlineLogin>,
    /// The offline identity's shape (ignored online: an online login carries no offline shape).
    pub offline_shape: OfflineShape,
}

/// What an online login carries: the Mojang-signed certificate chain for the connection's key
/// and (protocol ≥ 944) the OIDC multiplayer token. `username` must then be the gamertag.
#[derive(Clone, PartialEq, Eq)]
pub struct OnlineLogin {
    /// The chain the Minecraft auth service returned (our own first link is added in front).
    pub chain: Vec<String>,
    /// The multiplayer token (`Token`); empty before protocol 944.
    pub token: String,
}

impl std::fmt::Debug for OnlineLogin {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Credentials never reach a log line.
        f.debug_struct("OnlineLogin").field("chain_len", &self.chain.len()).finish_non_exhaustive()
    }
}

impl LoginParams {
    /// Parameters with bot-friendly defaults (Android, touch input, en_US).
    pub fn new(
        username: impl Into<String>,
        protocol_version: i32,
        game_version: impl Into<String>,
        server_address: impl Into<String>,
    ) -> Self {
        Self {
            username: username.into(),
            protocol_version,
            game_version: game_version.into(),
            server_address: server_address.into(),
            device_os: 1,
            device_model: "clawcraft".to_owned(),
            input_mode: 2,
            language_code: "en_US".to_owned(),
            online: None,
            offline_shape: OfflineShape::vanilla(protocol_version),
        }
    }
}

/// The stable offline UUID of a player name: UUID v3 in the URL namespace, as bedrock-protocol
/// derives it, so the same bot keeps the same identity across tools and reconnects.
pub fn offline_uuid(username: &str) -> Uuid {
    Uuid::new_v3(&Uuid::NAMESPACE_URL, username.as_bytes())
}

/// Builds the login the params ask for (online when [`LoginParams::online`] is set): the
/// identity JSON and the client-data JWT.
pub fn login_tokens(params: &LoginParams, keys: &LoginKeys) -> Result<(String, String), LoginError> {
    match &params.online {
        Some(online) => online_login_tokens(params, online, keys),
        None => offline_login_tokens(params, keys),
    }
}

/// The online login (bedrock-protocol's and gophertunnel's shape): `AuthenticationType` 0, the
/// certificate chain headed by our own link — signed by the connection key, delegating to the
/// key that signed the service's first link — and the multiplayer token.
pub fn online_login_tokens(
    params: &LoginParams,
    online: &OnlineLogin,
    keys: &LoginKeys,
) -> Result<(String, String), LoginError> {
    let authority = match online.chain.first() {
        Some(first) => decode_jwt(first)?
            .header
            .get("x5u")
            .and_then(Value::as_str)
            .ok_or(LoginError::MissingField("x5u"))?
            .to_owned(),
        None => return Err(LoginError::MalformedJwt("empty certificate chain".to_owned())),
    };
    let now = unix_now();
    let own_link = sign_jwt(
        keys,
        &json!({
            "certificateAuthority": true,
            "identityPublicKey": authority,
            "nbf": now - 6 * 3600,
            "exp": now + 6 * 3600,
        }),
    )?;
    let chain: Vec<&str> = std::iter::once(own_link.as_str()).chain(online.chain.iter().map(String::as_str)).collect();
    let identity = json!({
        "AuthenticationType": 0,
        "Certificate": json!({"chain": chain}).to_string(),
        "Token": online.token,
    })
    .to_string();
    let client_data = sign_jwt(keys, &client_data_claims(params))?;
    Ok((identity, client_data))
}

/// Builds the offline login in [`LoginParams::offline_shape`]: the identity JSON and the
/// client-data JWT.
pub fn offline_login_tokens(params: &LoginParams, keys: &LoginKeys) -> Result<(String, String), LoginError> {
    let now = unix_now();
    // `Certificate` is a JSON *string* holding the chain.
    let identity = match params.offline_shape {
        OfflineShape::Token => json!({
            "AuthenticationType": 2,
            "Certificate": "{\"chain\":[\"\"]}",
            "Token": sign_jwt(keys, &identity_claims(params, keys, now))?,
        }),
        OfflineShape::Chain => json!({
            "AuthenticationType": 2,
            "Certificate": json!({"chain": [sign_jwt(keys, &chain_claims(params, keys, now))?]}).to_string(),
            "Token": "",
        }),
    }
    .to_string();
    let client_data = sign_jwt(keys, &client_data_claims(params))?;
    Ok((identity, client_data))
}

/// Claims of the one self-signed link of the legacy offline chain: the identity in `extraData`,
/// delegating to our own key (`identityPublicKey`), which signs the client data.
fn chain_claims(params: &LoginParams, keys: &LoginKeys, now: i64) -> Value {
    json!({
        "extraData": {
            "displayName": params.username,
            "identity": offline_uuid(&params.username).to_string(),
            "XUID": "",
            "titleId": "89692877",
        },
        "identityPublicKey": keys.public_key_b64(),
        "certificateAuthority": true,
        "iss": "self",
        "iat": now,
        "nbf": now - 60,
        "exp": now + 60 * 60,
    })
}

/// Claims of the self-signed ES384 multiplayer token (what gophertunnel sends).
fn identity_claims(params: &LoginParams, keys: &LoginKeys, now: i64) -> Value {
    json!({
        "cpk": keys.public_key_b64(),
        "xname": params.username,
        "xid": "",
        "leguuid": offline_uuid(&params.username).to_string(),
        "mid": "",
        "ap": 0,
        "nid": "",
        "nname": "",
        "pid": "",
        "pname": "",
        "aud": MULTIPLAYER_AUDIENCE,
        "iss": "self",
        "iat": now,
        // Allow for clock skew between us and the server.
        "nbf": now - 60,
        "exp": now + 60 * 60,
    })
}

/// The full client-data claim set (gophertunnel's fields ∪ PMMP's required).
fn client_data_claims(params: &LoginParams) -> Value {
    let mut rng = OsRng;
    let skin = [0u8, 0, 0, 0xff].repeat((SKIN_WIDTH * SKIN_HEIGHT) as usize);
    // Two halves because one `json!` this large exceeds the macro recursion limit.
    let mut claims = json!({
        "ClientEditorConnectionIntent": 0,
        "ClientIsEditorCapable": false,
        "ClientRandomId": rng.r#gen::<i64>(),
        "CompatibleWithClientSideChunkGen": false,
        "CurrentInputMode": params.input_mode,
        "DefaultInputMode": params.input_mode,
        "DeviceId": device_id(params.device_os, &mut rng),
        "DeviceModel": params.device_model,
        "DeviceOS": params.device_os,
        "FilterProfanity": false,
        "GameVersion": params.game_version,
        "GraphicsMode": 1,
        "GuiScale": 0,
        "IsPartyLeader": false,
        "LanguageCode": params.language_code,
        "MaxViewDistance": 16,
        "MemoryTier": 0,
        "PartyId": "",
        "PlatformOfflineId": "",
        "PlatformOnlineId": "",
        "PlatformType": 0,
        "PlayFabId": random_hex(8, &mut rng),
        "ProfileHash": "",
        "SelfSignedId": Uuid::from_bytes(rng.r#gen()).to_string(),
        "ServerAddress": params.server_address,
        "ThirdPartyName": params.username,
        "UIProfile": 0,
    });
    let skin_claims = json!({
        "AnimatedImageData": [],
        "ArmSize": "wide",
        "CapeData": "",
        "CapeId": "",
        "CapeImageHeight": 0,
        "CapeImageWidth": 0,
        "CapeOnClassicSkin": false,
        "PersonaPieces": [],
        "PersonaSkin": false,
        "PieceTintColors": [],
        "PremiumSkin": false,
        "SkinAnimationData": "",
        "SkinColor": "#0",
        "SkinData": STANDARD.encode(skin),
        "SkinGeometryData": STANDARD.encode(skin_geometry().to_string()),
        "SkinGeometryDataEngineVersion": STANDARD.encode("0.0.0"),
        "SkinId": format!("{}.Custom", offline_uuid(&params.username)),
        "SkinImageHeight": SKIN_HEIGHT,
        "SkinImageWidth": SKIN_WIDTH,
        "SkinResourcePatch": STANDARD.encode(r#"{"geometry":{"default":"geometry.humanoid.custom"}}"#),
        "OverrideSkin": false,
        "TrustedSkin": false,
    });
    if let (Some(all), Value::Object(skin)) = (claims.as_object_mut(), skin_claims) {
        all.extend(skin);
    }
    claims
}

/// A classic 64×32 humanoid model named `geometry.humanoid.custom` (the resource patch points at
/// it). Servers mostly pass it through to other clients; it only has to be well-formed.
fn skin_geometry() -> Value {
    let cube = |origin: [f32; 3], size: [u32; 3], uv: [u32; 2], inflate: f32| json!({"origin": origin, "size": size, "uv": uv, "inflate": inflate});
    let bone = |name: &str, parent: Option<&str>, pivot: [f32; 3], cubes: Vec<Value>, mirror: bool| {
        let mut b = json!({"name": name, "pivot": pivot, "cubes": cubes, "mirror": mirror});
        if let (Some(p), Some(obj)) = (parent, b.as_object_mut()) {
            obj.insert("parent".to_owned(), json!(p));
        }
        b
    };
    let bones = vec![
        bone("root", None, [0.0, 0.0, 0.0], vec![], false),
        bone("body", Some("root"), [0.0, 24.0, 0.0], vec![cube([-4.0, 12.0, -2.0], [8, 12, 4], [16, 16], 0.0)], false),
        bone("head", Some("body"), [0.0, 24.0, 0.0], vec![cube([-4.0, 24.0, -4.0], [8, 8, 8], [0, 0], 0.0)], false),
        bone("hat", Some("head"), [0.0, 24.0, 0.0], vec![cube([-4.0, 24.0, -4.0], [8, 8, 8], [32, 0], 0.5)], false),
        bone(
            "rightArm",
            Some("body"),
            [-5.0, 22.0, 0.0],
            vec![cube([-8.0, 12.0, -2.0], [4, 12, 4], [40, 16], 0.0)],
            false,
        ),
        bone("leftArm", Some("body"), [5.0, 22.0, 0.0], vec![cube([4.0, 12.0, -2.0], [4, 12, 4], [40, 16], 0.0)], true),
        bone(
            "rightLeg",
            Some("root"),
            [-1.9, 12.0, 0.0],
            vec![cube([-3.9, 0.0, -2.0], [4, 12, 4], [0, 16], 0.0)],
            false,
        ),
        bone("leftLeg", Some("root"), [1.9, 12.0, 0.0], vec![cube([-0.1, 0.0, -2.0], [4, 12, 4], [0, 16], 0.0)], true),
    ];
    json!({
        "format_version": "1.12.0",
        "minecraft:geometry": [{
            "description": {
                "identifier": "geometry.humanoid.custom",
                "texture_width": SKIN_WIDTH,
                "texture_height": SKIN_HEIGHT,
                "visible_bounds_width": 1,
                "visible_bounds_height": 2,
                "visible_bounds_offset": [0, 1, 0],
            },
            "bones": bones,
        }],
    })
}

/// DeviceId in the format the given DeviceOS uses (gophertunnel validates it per platform).
fn device_id(device_os: i32, rng: &mut OsRng) -> String {
    match device_os {
        // iOS: upper-case hex.
        2 => random_hex(16, rng).to_uppercase(),
        // PlayStation: a UUID.
        11 => Uuid::from_bytes(rng.r#gen()).to_string(),
        // Xbox: base64 of 32 bytes.
        13 => STANDARD.encode(rng.r#gen::<[u8; 32]>()),
        // Android, Windows and the rest: lower-case hex.
        _ => random_hex(16, rng),
    }
}

/// `bytes` random bytes as lower-case hex.
fn random_hex(bytes: usize, rng: &mut OsRng) -> String {
    (0..bytes).map(|_| format!("{:02x}", rng.r#gen::<u8>())).collect()
}

/// Seconds since the Unix epoch (0 if the clock is before 1970).
fn unix_now() -> i64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| i64::try_from(d.as_secs()).unwrap_or(i64::MAX))
}

/// Signs `claims` as a compact ES384 JWS with header `{"alg":"ES384","x5u":<our SPKI>}`.
/// The signature is raw `r ‖ s` (96 bytes) as JWS requires, not DER.
pub fn sign_jwt(keys: &LoginKeys, claims: &Value) -> Result<String, LoginError> {
    let header = json!({"alg": "ES384", "x5u": keys.public_key_b64()});
    let signing_input =
        format!("{}.{}", URL_SAFE_NO_PAD.encode(header.to_string()), URL_SAFE_NO_PAD.encode(claims.to_string()));
    let signature: Signature = keys.signing.try_sign(signing_input.as_bytes()).map_err(|_| LoginError::Signing)?;
    Ok(format!("{signing_input}.{}", URL_SAFE_NO_PAD.encode(signature.to_bytes())))
}

/// A compact JWS split into its parts (signature not yet checked).
#[derive(Debug, Clone, PartialEq)]
pub struct DecodedJwt {
    /// Decoded header JSON.
    pub header: Value,
    /// Decoded payload JSON.
    pub claims: Value,
    /// `header.payload` exactly as received: what the signature covers.
    pub signing_input: String,
    /// Raw signature bytes.
    pub signature: Vec<u8>,
}

impl DecodedJwt {
    /// The public key named by the header's `x5u`.
    pub fn x5u_key(&self) -> Result<p384::PublicKey, LoginError> {
        let x5u = self.header.get("x5u").and_then(Value::as_str).ok_or(LoginError::MissingField("x5u"))?;
        let der = decode_b64_lenient(x5u).ok_or(LoginError::Base64("x5u"))?;
        p384::PublicKey::from_public_key_der(&der).map_err(|_| LoginError::BadPublicKey)
    }

    /// Checks the ES384 signature against `key`.
    pub fn verify(&self, key: &p384::PublicKey) -> Result<(), LoginError> {
        let sig = Signature::from_slice(&self.signature).map_err(|_| LoginError::BadSignature)?;
        VerifyingKey::from(key).verify(self.signing_input.as_bytes(), &sig).map_err(|_| LoginError::BadSignature)
    }
}

/// Splits and decodes a compact JWS without verifying it.
pub fn decode_jwt(token: &str) -> Result<DecodedJwt, LoginError> {
    let mut parts = token.trim().split('.');
    let (Some(h), Some(p), Some(s), None) = (parts.next(), parts.next(), parts.next(), parts.next()) else {
        return Err(LoginError::MalformedJwt("expected three dot-separated parts".to_owned()));
    };
    let header = decode_json_part(h, "JWT header")?;
    let claims = decode_json_part(p, "JWT payload")?;
    let signature = decode_b64url(s).ok_or(LoginError::Base64("JWT signature"))?;
    Ok(DecodedJwt { header, claims, signing_input: format!("{h}.{p}"), signature })
}

/// base64url (padding tolerated) → JSON.
fn decode_json_part(part: &str, what: &'static str) -> Result<Value, LoginError> {
    let bytes = decode_b64url(part).ok_or(LoginError::Base64(what))?;
    serde_json::from_slice(&bytes).map_err(|e| LoginError::Json { what, reason: e.to_string() })
}

/// base64url without padding; trailing `=` tolerated.
fn decode_b64url(s: &str) -> Option<Vec<u8>> {
    URL_SAFE_NO_PAD.decode(s.trim_end_matches('=')).ok()
}

/// Standard base64 with or without padding (BDS pads, others may not), falling back to base64url.
fn decode_b64_lenient(s: &str) -> Option<Vec<u8>> {
    let trimmed = s.trim().trim_end_matches('=');
    STANDARD_NO_PAD.decode(trimmed).ok().or_else(|| URL_SAFE_NO_PAD.decode(trimmed).ok())
}

/// Encodes the Login (0x01) packet body: header, i32 BE protocol, then the varu32-length-prefixed
/// request made of `i32 LE len ‖ identity JSON ‖ i32 LE len ‖ client-data JWT`.
pub fn encode_login_packet(protocol_version: i32, identity: &str, client_data: &str) -> Vec<u8> {
    let mut request = Vec::with_capacity(identity.len() + client_data.len() + 8);
    put_i32le_string(&mut request, identity);
    put_i32le_string(&mut request, client_data);
    let mut body = Vec::with_capacity(request.len() + 10);
    body.put_var_u32(LOGIN_PACKET_ID);
    body.put_i32_be(protocol_version);
    // Login tokens are a few KiB; saturate rather than wrap on absurd sizes.
    body.put_var_u32(u32::try_from(request.len()).unwrap_or(u32::MAX));
    body.put_bytes(&request);
    body
}

/// `i32 LE length ‖ bytes`.
fn put_i32le_string(out: &mut Vec<u8>, s: &str) {
    out.put_i32_le(i32::try_from(s.len()).unwrap_or(i32::MAX));
    out.put_bytes(s.as_bytes());
}

/// Derives the 32-byte AES key from the ServerToClientHandshake JWT:
/// `SHA-256(salt ‖ ECDH(our private key, x5u key).x)`.
///
/// The server's signature is checked but a mismatch is only logged: the key exchange does not
/// depend on it, and a bot has no trusted server key to compare against anyway.
pub fn derive_shared_key(keys: &LoginKeys, server_handshake_jwt: &str) -> Result<[u8; 32], LoginError> {
    let jwt = decode_jwt(server_handshake_jwt)?;
    let server_key = jwt.x5u_key()?;
    if jwt.verify(&server_key).is_err() {
        tracing::warn!("ServerToClientHandshake JWT signature does not verify against its x5u key");
    }
    let salt_b64 = jwt.claims.get("salt").and_then(Value::as_str).ok_or(LoginError::MissingField("salt"))?;
    let salt = decode_b64_lenient(salt_b64).ok_or(LoginError::Base64("salt"))?;
    let shared = p384::ecdh::diffie_hellman(keys.signing.as_nonzero_scalar(), server_key.as_affine());
    let digest = Sha256::new().chain_update(&salt).chain_update(shared.raw_secret_bytes()).finalize();
    Ok(digest.into())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::io::Reader;
    use p384::pkcs8::EncodePublicKey as _;

    fn params() -> LoginParams {
        LoginParams::new("ClawBot", 2169, "1.26.45", "127.0.0.1:19132")
    }

    #[test]
    fn spki_matches_pkcs8_encoder() {
        let keys = LoginKeys::generate();
        let der = p384::PublicKey::from(keys.verifying_key()).to_public_key_der().expect("der");
        assert_eq!(keys.public_key_b64(), STANDARD.encode(der.as_bytes()));
        assert!(keys.public_key_b64().starts_with("MHYwEAYHKoZIzj0CAQYFK4EEACIDYgAE"));
        assert_eq!(STANDARD.decode(keys.public_key_b64()).expect("b64").len(), 120);
    }

    fn decode_and_verify(token: &str, keys: &LoginKeys) -> DecodedJwt {
        // Signature part must be base64url without padding and 96 raw bytes.
        let sig_part = token.rsplit('.').next().expect("sig");
        assert!(!sig_part.contains('=') && !sig_part.contains('+') && !sig_part.contains('/'));
        let jwt = decode_jwt(token).expect("decode");
        assert_eq!(jwt.signature.len(), 96);
        assert_eq!(jwt.header, json!({"alg": "ES384", "x5u": keys.public_key_b64()}));
        let key = jwt.x5u_key().expect("x5u");
        jwt.verify(&key).expect("signature verifies");
        // And with p384's verifier directly against our own public key.
        let sig = Signature::from_slice(&jwt.signature).expect("sig");
        keys.verifying_key().verify(jwt.signing_input.as_bytes(), &sig).expect("verify");
        jwt
    }

    #[test]
    fn identity_token_parses_back_and_verifies() {
        let keys = LoginKeys::generate();
        let (identity, _) = offline_login_tokens(&params(), &keys).expect("tokens");
        let identity: Value = serde_json::from_str(&identity).expect("identity json");
        assert_eq!(identity["AuthenticationType"], 2);
        assert_eq!(identity["Certificate"], "{\"chain\":[\"\"]}");
        let jwt = decode_and_verify(identity["Token"].as_str().expect("token"), &keys);
        let c = &jwt.claims;
        assert_eq!(c["cpk"], keys.public_key_b64());
        assert_eq!(c["xname"], "ClawBot");
        assert_eq!(c["xid"], "");
        assert_eq!(c["leguuid"], offline_uuid("ClawBot").to_string());
        assert_eq!(c["aud"], MULTIPLAYER_AUDIENCE);
        assert_eq!(c["ap"], 0);
        for k in ["mid", "nid", "nname", "pid", "pname"] {
            assert_eq!(c[k], "", "{k}");
        }
        let (iat, nbf, exp) = (c["iat"].as_i64(), c["nbf"].as_i64(), c["exp"].as_i64());
        assert!(nbf <= iat && iat < exp, "{c}");
    }

    #[test]
    fn chain_identity_carries_extra_data_signed_by_our_key() {
        let keys = LoginKeys::generate();
        let mut p = params();
        p.offline_shape = OfflineShape::Chain;
        let (identity, client) = offline_login_tokens(&p, &keys).expect("tokens");
        let identity: Value = serde_json::from_str(&identity).expect("identity json");
        assert_eq!(identity["AuthenticationType"], 2);
        assert_eq!(identity["Token"], "");
        let cert: Value = serde_json::from_str(identity["Certificate"].as_str().expect("string")).expect("chain json");
        let chain = cert["chain"].as_array().expect("chain");
        assert_eq!(chain.len(), 1);
        let link = decode_and_verify(chain[0].as_str().expect("jwt"), &keys);
        let c = &link.claims;
        assert_eq!(c["extraData"]["displayName"], "ClawBot");
        assert_eq!(c["extraData"]["identity"], offline_uuid("ClawBot").to_string());
        assert_eq!(c["identityPublicKey"], keys.public_key_b64(), "the client data is signed by this key");
        assert_eq!(c["certificateAuthority"], true);
        let (nbf, exp) = (c["nbf"].as_i64().expect("nbf"), c["exp"].as_i64().expect("exp"));
        assert!(nbf < exp);
        decode_and_verify(&client, &keys);
    }

    #[test]
    fn offline_shapes_by_version_and_by_name() {
        assert_eq!(OfflineShape::vanilla(944), OfflineShape::Token);
        assert_eq!(OfflineShape::vanilla(975), OfflineShape::Token);
        assert_eq!(OfflineShape::vanilla(943), OfflineShape::Chain);
        assert_eq!(LoginParams::new("a", 2169, "1.26.45", "x").offline_shape, OfflineShape::Token);
        assert_eq!(OfflineShape::Token.other(), OfflineShape::Chain);
        assert_eq!(OfflineShape::Chain.other(), OfflineShape::Token);
        for name in OfflineLogin::NAMES {
            let parsed: OfflineLogin = name.parse().expect("name");
            assert_eq!(parsed.as_str(), name);
        }
        assert_eq!("Chain".parse(), Ok(OfflineLogin::Only(OfflineShape::Chain)));
        assert!("legacy".parse::<OfflineLogin>().is_err());
        assert_eq!(OfflineLogin::default(), OfflineLogin::Auto);
    }

    #[test]
    fn online_identity_heads_the_services_chain_with_our_link() {
        let keys = LoginKeys::generate();
        let service = LoginKeys::generate();
        let first = sign_jwt(&service, &json!({"certificateAuthority": true})).expect("sign");
        let mut p = params();
        p.username = "Claw Gamertag".to_owned();
        p.online = Some(OnlineLogin { chain: vec![first.clone(), "b.c.d".to_owned()], token: "mp.token.x".to_owned() });
        assert!(!format!("{p:?}").contains("mp.token"), "Debug hides the token");
        let (identity, client) = login_tokens(&p, &keys).expect("tokens");
        let identity: Value = serde_json::from_str(&identity).expect("json");
        assert_eq!(identity["AuthenticationType"], 0);
        assert_eq!(identity["Token"], "mp.token.x");
        let cert: Value = serde_json::from_str(identity["Certificate"].as_str().expect("string")).expect("chain json");
        let chain = cert["chain"].as_array().expect("chain");
        assert_eq!(chain.len(), 3);
        assert_eq!((chain[1].as_str(), chain[2].as_str()), (Some(first.as_str()), Some("b.c.d")));
        let own = decode_and_verify(chain[0].as_str().expect("jwt"), &keys);
        assert_eq!(own.claims["identityPublicKey"], service.public_key_b64(), "delegates to the service's key");
        assert_eq!(own.claims["certificateAuthority"], true);
        let client = decode_and_verify(&client, &keys);
        assert_eq!(client.claims["ThirdPartyName"], "Claw Gamertag");
        p.online = Some(OnlineLogin { chain: vec![], token: String::new() });
        assert!(login_tokens(&p, &keys).is_err(), "an empty chain is refused");
    }

    #[test]
    fn offline_uuid_is_stable_v3() {
        let a = offline_uuid("ClawBot");
        assert_eq!(a, offline_uuid("ClawBot"));
        assert_ne!(a, offline_uuid("Other"));
        assert_eq!(a.get_version_num(), 3);
    }

    #[test]
    fn client_data_has_every_field() {
        let keys = LoginKeys::generate();
        let (_, client) = offline_login_tokens(&params(), &keys).expect("tokens");
        let jwt = decode_and_verify(&client, &keys);
        let c = jwt.claims.as_object().expect("object");
        let required = [
            "AnimatedImageData",
            "ArmSize",
            "CapeData",
            "CapeId",
            "CapeImageHeight",
            "CapeImageWidth",
            "CapeOnClassicSkin",
            "ClientEditorConnectionIntent",
            "ClientIsEditorCapable",
            "ClientRandomId",
            "CompatibleWithClientSideChunkGen",
            "CurrentInputMode",
            "DefaultInputMode",
            "DeviceId",
            "DeviceModel",
            "DeviceOS",
            "FilterProfanity",
            "GameVersion",
            "GraphicsMode",
            "GuiScale",
            "IsPartyLeader",
            "LanguageCode",
            "MaxViewDistance",
            "MemoryTier",
            "PartyId",
            "PersonaPieces",
            "PersonaSkin",
            "PieceTintColors",
            "PlatformOfflineId",
            "PlatformOnlineId",
            "PlatformType",
            "PlayFabId",
            "PremiumSkin",
            "ProfileHash",
            "SelfSignedId",
            "ServerAddress",
            "SkinAnimationData",
            "SkinColor",
            "SkinData",
            "SkinGeometryData",
            "SkinGeometryDataEngineVersion",
            "SkinId",
            "SkinImageHeight",
            "SkinImageWidth",
            "SkinResourcePatch",
            "OverrideSkin",
            "ThirdPartyName",
            "TrustedSkin",
            "UIProfile",
        ];
        for k in required {
            assert!(c.contains_key(k), "missing {k}");
        }
        assert!(!c.contains_key("ThirdPartyNameOnly") && !c.contains_key("IsEditorMode"));
        assert_eq!(c["GameVersion"], "1.26.45");
        assert_eq!(c["ServerAddress"], "127.0.0.1:19132");
        assert_eq!(c["ThirdPartyName"], "ClawBot");
        let skin = STANDARD.decode(c["SkinData"].as_str().expect("skin")).expect("b64");
        assert_eq!(skin.len(), 64 * 32 * 4);
        assert!(skin.chunks(4).all(|px| px == [0, 0, 0, 0xff]));
        let patch = STANDARD.decode(c["SkinResourcePatch"].as_str().expect("patch")).expect("b64");
        let patch: Value = serde_json::from_slice(&patch).expect("json");
        assert_eq!(patch["geometry"]["default"], "geometry.humanoid.custom");
        let geo = STANDARD.decode(c["SkinGeometryData"].as_str().expect("geo")).expect("b64");
        let geo: Value = serde_json::from_slice(&geo).expect("json");
        assert_eq!(geo["minecraft:geometry"][0]["description"]["identifier"], "geometry.humanoid.custom");
        let device_id = c["DeviceId"].as_str().expect("id");
        assert!(
            device_id.len() == 32 && device_id.chars().all(|ch| ch.is_ascii_hexdigit() && !ch.is_ascii_uppercase())
        );
        let playfab = c["PlayFabId"].as_str().expect("playfab");
        assert_eq!(playfab.len(), 16);
        // No timestamps in client data (PocketMine compatibility).
        assert!(!c.contains_key("exp") && !c.contains_key("iat"));
    }

    #[test]
    fn login_packet_layout() {
        let body = encode_login_packet(2169, "{\"a\":1}", "x.y.z");
        let mut r = Reader::new(&body);
        assert_eq!(r.var_u32(), Ok(0x01));
        assert_eq!(r.i32_be(), Ok(2169));
        let request = r.var_bytes().expect("request");
        assert!(r.is_empty());
        let mut r = Reader::new(request);
        let n = r.i32_le().expect("len") as usize;
        assert_eq!(r.bytes(n), Ok(&b"{\"a\":1}"[..]));
        let n = r.i32_le().expect("len") as usize;
        assert_eq!(r.bytes(n), Ok(&b"x.y.z"[..]));
        assert!(r.is_empty());
    }

    fn server_handshake(server: &LoginKeys, salt: &[u8], padded: bool) -> String {
        let salt = if padded { STANDARD.encode(salt) } else { STANDARD_NO_PAD.encode(salt) };
        sign_jwt(server, &json!({"salt": salt})).expect("sign")
    }

    #[test]
    fn both_sides_derive_the_same_key() {
        let client = LoginKeys::generate();
        let server = LoginKeys::generate();
        let salt = [0x5au8; 16];
        // Server side, computed independently from the client's SPKI.
        let client_pub = p384::PublicKey::from(client.verifying_key());
        let shared = p384::ecdh::diffie_hellman(server.signing.as_nonzero_scalar(), client_pub.as_affine());
        let expected: [u8; 32] =
            Sha256::new().chain_update(salt).chain_update(shared.raw_secret_bytes()).finalize().into();
        for padded in [true, false] {
            let key = derive_shared_key(&client, &server_handshake(&server, &salt, padded)).expect("derive");
            assert_eq!(key, expected);
        }
        // A different client key gives a different key.
        let other = derive_shared_key(&LoginKeys::generate(), &server_handshake(&server, &salt, true)).expect("derive");
        assert_ne!(other, expected);
    }

    /// Cross-implementation vector from Node (what bedrock-protocol's server does): a
    /// `jsonwebtoken` ES384 handshake JWT (padded base64 salt, extra `typ`/`signedToken` fields)
    /// and the key Node derived as `sha256(salt ‖ crypto.diffieHellman(server, client))`.
    #[test]
    fn derives_the_same_key_as_node() {
        const CLIENT_D: &str =
            "c7a077ec968c890a56555913a274d0a273a98ddd5f12da5a183899010d206fe374db4726a338dcbc69cd7b41e74adf2c";
        const TOKEN: &str = "eyJhbGciOiJFUzM4NCIsInR5cCI6IkpXVCIsIng1dSI6Ik1IWXdFQVlIS29aSXpqMENBUVlGSzRFRUFDSURZZ0FFRnNSVUtDc3daK1JQQmxqWWdHcmlzbVpNdUxUc1NZNStEbUlzK2E3UEU0VXYwVnlMVXd1VEFNZm1HeVFFbUZDclE4YThKeERVdXh6ZEs3ZmJSR1RzT3VTSms5d09sWmZDUEVxN1I1azRkdGM2RjZobnhvb1I0M1lpdFkvTW5hS00ifQ.eyJzYWx0IjoibXJ0dHhFY2M2WkpISEYyS0lXR21Zdz09Iiwic2lnbmVkVG9rZW4iOiJNSFl3RUFZSEtvWkl6ajBDQVFZRks0RUVBQ0lEWWdBRVlCUjFiV2JGT1I5RU5CWE1iVDZDdW16QUdqQ29pSURPTUo5MkMySXZRV1dEZ2UyblJmakg2WEp5V3Q5MjY3V1o5anI4ZFpEdm1TL0Q4ekRvU2FLaDJmTmZCN3RFaVFEaWxGK1M1MnpWT2kvVFZtZ3NMSlBibS9hZ1B0Y0d6UUMrIiwiaWF0IjoxNzk2MDA1MDcyfQ.X-j4_e1Tmo2sGa2jbmaSJWrwXoWQ2M4i6ONZr4XlnZYwHcd6X8Pl0xs-u1yKNLltqaXtwnyTRjIeoq-GHZNauaFF8tKyQ8B8B3zB9X0SvhkEi03ZTk32jfLrJDySRbHJ";
        const KEY: &str = "7a12c9058d0c7dc0939845305e5fede68efd592ac88554c922d45297dc4eab2a";
        let hex = |s: &str| -> Vec<u8> {
            (0..s.len()).step_by(2).map(|i| u8::from_str_radix(&s[i..i + 2], 16).expect("hex")).collect()
        };
        let client = LoginKeys::from_signing_key(SigningKey::from_slice(&hex(CLIENT_D)).expect("scalar"));
        // Node's signature (raw r‖s via jsonwebtoken) verifies with p384.
        let jwt = decode_jwt(TOKEN).expect("decode");
        jwt.verify(&jwt.x5u_key().expect("x5u")).expect("node signature verifies");
        assert_eq!(derive_shared_key(&client, TOKEN).expect("derive").to_vec(), hex(KEY));
    }

    #[test]
    fn bad_handshakes_are_errors() {
        let client = LoginKeys::generate();
        assert!(matches!(derive_shared_key(&client, "abc"), Err(LoginError::MalformedJwt(_))));
        assert!(derive_shared_key(&client, "a.b.c").is_err());
        let server = LoginKeys::generate();
        let no_salt = sign_jwt(&server, &json!({"x": 1})).expect("sign");
        assert_eq!(derive_shared_key(&client, &no_salt), Err(LoginError::MissingField("salt")));
        let bad_key = format!(
            "{}.{}.AA",
            URL_SAFE_NO_PAD.encode(r#"{"alg":"ES384","x5u":"AAAA"}"#),
            URL_SAFE_NO_PAD.encode(r#"{"salt":"AAAA"}"#)
        );
        assert_eq!(derive_shared_key(&client, &bad_key), Err(LoginError::BadPublicKey));
    }

    #[test]
    fn bad_signature_is_only_a_warning() {
        let client = LoginKeys::generate();
        let server = LoginKeys::generate();
        let token = server_handshake(&server, b"salty", true);
        let (input, _) = token.rsplit_once('.').expect("parts");
        let forged = format!("{input}.{}", URL_SAFE_NO_PAD.encode([1u8; 96]));
        assert_eq!(decode_jwt(&forged).and_then(|j| j.verify(&j.x5u_key()?)), Err(LoginError::BadSignature));
        assert_eq!(derive_shared_key(&client, &forged), derive_shared_key(&client, &token));
    }
}
