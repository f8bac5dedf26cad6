//! A loopback fake of every service of the sign-in chain (feature `fake`, tests only): the
//! Microsoft account device-code OAuth, Xbox device/title/user/XSTS tokens, Minecraft's
//! certificate chain, PlayFab, the Minecraft services session and OIDC multiplayer token, plus
//! the discovery document, OpenID configuration and JWKS a server verifies that token with.
//!
//! It speaks plain HTTP/1.1 on 127.0.0.1 with the services' request and response shapes and
//! checks what a real service checks: request signatures against the proof key the device
//! token is bound to, that each token is one it issued, unexpired and for the right relying
//! party, that a refresh token was not revoked. Tests drive the human side ([`FakeServices::approve`],
//! [`FakeServices::decline`]), revoke tokens, take the services down, and count requests.
//!
//! Every opaque token it issues contains [`SECRET_MARKER`], so a test can assert that no token
//! ever reaches a log line, an event or an error message.

use std::collections::HashMap;
use std::io::{BufRead as _, BufReader, Read as _, Write as _};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};
use std::thread::JoinHandle;
use std::time::Duration;

use base64::Engine as _;
use base64::engine::general_purpose::{STANDARD, URL_SAFE_NO_PAD};
use p256::ecdsa::signature::Verifier as _;
use rand::Rng as _;
use rsa::pkcs1v15;
use rsa::signature::{SignatureEncoding as _, Signer as _};
use rsa::traits::PublicKeyParts as _;
use serde_json::{Value, json};
use sha2::{Digest as _, Sha256};

use crate::endpoints::{
    ANDROID_CLIENT_ID, MULTIPLAYER_AUDIENCE, PLAYFAB_TITLE_ID, RP_MINECRAFT, RP_PLAYFAB, XBOX_SCOPE,
};
use crate::http::form_urldecode;
use crate::time::{format_iso8601, now_unix};
use crate::xbox::signed_payload;

/// Part of every opaque token the fake issues.
pub const SECRET_MARKER: &str = "FAKESECRET";
/// The issuer of the fake's multiplayer tokens (the real service's name: the peer's verifier
/// reaches the fake through a fetch that maps this origin to the fake's base URL).
pub const ISSUER: &str = "https://authorization.franchise.minecraft-services.net/";
/// The `kid` of the fake's RS256 signing key.
pub const KEY_ID: &str = "clawcraft-fake-1";
/// Where the device code is entered (what the real service says).
pub const VERIFICATION_URI: &str = "https://www.microsoft.com/link";
/// RSA key size: what `jsonwebtoken` accepts for RS256.
const RSA_BITS: usize = 2048;

/// The account the fake signs in and how its services behave.
#[derive(Debug, Clone)]
pub struct FakeConfig {
    pub gamertag: String,
    pub xuid: String,
    /// Device code lifetime and poll interval (seconds).
    pub code_expires_in: u64,
    pub interval: u64,
    /// Lifetimes (seconds) of the MSA access token, the Xbox tokens and XSTS tokens.
    pub access_token_lifetime: i64,
    pub xbox_token_lifetime: i64,
    pub xsts_lifetime: i64,
    /// false: XSTS answers XErr 2148916233 (no Xbox profile).
    pub has_xbox_profile: bool,
    /// false: multiplayer.minecraft.net answers 401 (no Minecraft).
    pub has_minecraft: bool,
}

impl Default for FakeConfig {
    fn default() -> Self {
        Self {
            gamertag: "Claw Fake".into(),
            xuid: "2535400000000001".into(),
            code_expires_in: 900,
            interval: 1,
            access_token_lifetime: 86_400,
            xbox_token_lifetime: 14 * 86_400,
            xsts_lifetime: 16 * 3600,
            has_xbox_profile: true,
            has_minecraft: true,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum CodeStatus {
    Pending,
    Approved,
    Declined,
    Redeemed,
}

struct Code {
    user_code: String,
    device_code: String,
    expires_at: i64,
    status: CodeStatus,
}

/// A token the fake issued: what it is for and until when.
#[derive(Clone)]
struct Issued {
    kind: &'static str,
    expires_at: i64,
    /// Relying party (XSTS) or proof key thumbprint (device token).
    scope: String,
}

#[derive(Default)]
struct State {
    codes: Vec<Code>,
    tokens: HashMap<String, Issued>,
    revoked: Vec<String>,
    requests: Vec<String>,
    down: bool,
}

struct Keys {
    rsa: rsa::RsaPrivateKey,
    mojang: p384::ecdsa::SigningKey,
    intermediate: p384::ecdsa::SigningKey,
}

/// The fake's signing keys, made once per process (RSA key generation is slow).
fn keys() -> &'static Keys {
    static KEYS: OnceLock<Keys> = OnceLock::new();
    KEYS.get_or_init(|| {
        let mut rng = rand::rngs::OsRng;
        let rsa = rsa::RsaPrivateKey::new(&mut rng, RSA_BITS).unwrap_or_else(|e| panic!("fake RSA key: {e}"));
        Keys {
            rsa,
            mojang: p384::ecdsa::SigningKey::random(&mut rng),
            intermediate: p384::ecdsa::SigningKey::random(&mut rng),
        }
    })
}

/// The running fake. Dropping it stops it.
pub struct FakeServices {
    addr: SocketAddr,
    config: Arc<FakeConfig>,
    state: Arc<Mutex<State>>,
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

fn lock(m: &Mutex<State>) -> MutexGuard<'_, State> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

impl FakeServices {
    /// Starts the fake on a free loopback port.
    pub fn start(config: FakeConfig) -> Self {
        keys();
        let listener = TcpListener::bind("127.0.0.1:0").unwrap_or_else(|e| panic!("fake bind: {e}"));
        let addr = listener.local_addr().unwrap_or_else(|e| panic!("fake addr: {e}"));
        let config = Arc::new(config);
        let state = Arc::new(Mutex::new(State::default()));
        let stop = Arc::new(AtomicBool::new(false));
        let (c, s, st) = (config.clone(), state.clone(), stop.clone());
        let base = format!("http://{addr}");
        let thread = std::thread::spawn(move || {
            for stream in listener.incoming() {
                if st.load(Ordering::Relaxed) {
                    break;
                }
                let Ok(stream) = stream else { continue };
                let (c, s, base) = (c.clone(), s.clone(), base.clone());
                std::thread::spawn(move || serve(stream, &c, &s, &base));
            }
        });
        Self { addr, config, state, stop, thread: Some(thread) }
    }

    /// `http://127.0.0.1:PORT`: every service's base URL.
    pub fn base_url(&self) -> String {
        format!("http://{}", self.addr)
    }

    pub fn config(&self) -> &FakeConfig {
        &self.config
    }

    /// The human entered `user_code` and accepted; false if no such pending code.
    pub fn approve(&self, user_code: &str) -> bool {
        self.set_code(user_code, CodeStatus::Approved)
    }

    /// The human declined `user_code`.
    pub fn decline(&self, user_code: &str) -> bool {
        self.set_code(user_code, CodeStatus::Declined)
    }

    /// `user_code` runs out now (as if the human waited past its lifetime), without the test
    /// racing a real clock against the poll interval.
    pub fn expire(&self, user_code: &str) -> bool {
        let mut st = lock(&self.state);
        match st.codes.iter_mut().find(|c| c.user_code == user_code && c.status == CodeStatus::Pending) {
            Some(c) => {
                c.expires_at = now_unix() - 1;
                true
            }
            None => false,
        }
    }

    fn set_code(&self, user_code: &str, status: CodeStatus) -> bool {
        let mut st = lock(&self.state);
        match st.codes.iter_mut().find(|c| c.user_code == user_code && c.status == CodeStatus::Pending) {
            Some(c) => {
                c.status = status;
                true
            }
            None => false,
        }
    }

    /// Every refresh token issued so far stops working (password change, "sign out everywhere").
    pub fn revoke_refresh_tokens(&self) {
        let mut st = lock(&self.state);
        let refresh: Vec<String> =
            st.tokens.iter().filter(|(_, t)| t.kind == "refresh").map(|(k, _)| k.clone()).collect();
        st.revoked.extend(refresh);
    }

    /// While down, every connection is closed without an answer (a network failure).
    pub fn set_down(&self, down: bool) {
        lock(&self.state).down = down;
    }

    /// How many requests reached `path` (e.g. `/oauth20_connect.srf`).
    pub fn count(&self, path: &str) -> usize {
        lock(&self.state).requests.iter().filter(|p| *p == path).count()
    }

    /// Every path requested, in order.
    pub fn requests(&self) -> Vec<String> {
        lock(&self.state).requests.clone()
    }

    /// Every opaque token issued so far (to check none leaked).
    pub fn issued_tokens(&self) -> Vec<String> {
        lock(&self.state).tokens.keys().cloned().collect()
    }

    /// The RS256 public key set the multiplayer tokens verify with.
    pub fn jwks() -> Value {
        let key = keys().rsa.to_public_key();
        let n = URL_SAFE_NO_PAD.encode(key.n().to_bytes_be());
        let e = URL_SAFE_NO_PAD.encode(key.e().to_bytes_be());
        // Microsoft publishes x5t as 40 hex characters.
        let x5t: String = Sha256::digest(n.as_bytes()).iter().take(20).map(|b| format!("{b:02x}")).collect();
        json!({"keys": [{"kty": "RSA", "use": "sig", "alg": "RS256", "kid": KEY_ID, "n": n, "e": e, "x5t": x5t}]})
    }
}

impl Drop for FakeServices {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        let _ = TcpStream::connect(self.addr);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// One HTTP request as the handlers see it.
struct Request {
    method: String,
    path: String,
    headers: HashMap<String, String>,
    body: String,
}

impl Request {
    fn header(&self, name: &str) -> &str {
        self.headers.get(&name.to_ascii_lowercase()).map_or("", String::as_str)
    }

    fn json(&self) -> Value {
        serde_json::from_str(&self.body).unwrap_or(Value::Null)
    }

    fn form(&self) -> HashMap<String, String> {
        form_urldecode(&self.body).into_iter().collect()
    }
}

/// A response: status, JSON body, extra headers.
struct Response {
    status: u16,
    body: Value,
    headers: Vec<(&'static str, String)>,
}

fn reply(status: u16, body: Value) -> Response {
    Response { status, body, headers: Vec::new() }
}

fn read_request(stream: &mut TcpStream) -> Option<Request> {
    stream.set_read_timeout(Some(Duration::from_secs(10))).ok()?;
    let mut reader = BufReader::new(stream.try_clone().ok()?);
    let mut line = String::new();
    reader.read_line(&mut line).ok()?;
    let mut parts = line.split_whitespace();
    let (method, target) = (parts.next()?.to_owned(), parts.next()?.to_owned());
    let mut headers = HashMap::new();
    loop {
        let mut h = String::new();
        reader.read_line(&mut h).ok()?;
        let h = h.trim_end();
        if h.is_empty() {
            break;
        }
        if let Some((k, v)) = h.split_once(':') {
            headers.insert(k.trim().to_ascii_lowercase(), v.trim().to_owned());
        }
    }
    let len: usize = headers.get("content-length").and_then(|v| v.parse().ok()).unwrap_or(0);
    let mut body = vec![0u8; len.min(1 << 20)];
    reader.read_exact(&mut body).ok()?;
    let path = target.split('?').next().unwrap_or_default().to_owned();
    Some(Request { method, path, headers, body: String::from_utf8_lossy(&body).into_owned() })
}

fn serve(mut stream: TcpStream, config: &FakeConfig, state: &Mutex<State>, base: &str) {
    let Some(req) = read_request(&mut stream) else { return };
    {
        let mut st = lock(state);
        st.requests.push(req.path.clone());
        if st.down {
            return; // dropping the stream: the client sees the connection closed
        }
    }
    let resp = route(&req, config, state, base);
    let text = if resp.body.is_null() { String::new() } else { resp.body.to_string() };
    let mut head = format!(
        "HTTP/1.1 {} {}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n",
        resp.status,
        if resp.status < 300 { "OK" } else { "Error" },
        text.len()
    );
    for (k, v) in &resp.headers {
        head.push_str(&format!("{k}: {v}\r\n"));
    }
    head.push_str("\r\n");
    let _ = stream.write_all(head.as_bytes()).and_then(|_| stream.write_all(text.as_bytes()));
}

fn route(req: &Request, config: &FakeConfig, state: &Mutex<State>, base: &str) -> Response {
    let mut st = lock(state);
    match (req.method.as_str(), req.path.as_str()) {
        ("POST", "/oauth20_connect.srf") => device_code(req, config, &mut st),
        ("POST", "/oauth20_token.srf") => oauth_token(req, config, &mut st),
        ("POST", "/device/authenticate") => device_token(req, config, &mut st),
        ("POST", "/title/authenticate") => title_token(req, config, &mut st),
        ("POST", "/user/authenticate") => user_token(req, config, &mut st),
        ("POST", "/xsts/authorize") => xsts(req, config, &mut st),
        ("POST", "/authentication") => chain(req, config, &st),
        ("POST", "/Client/LoginWithXbox") => playfab(req, &mut st),
        ("POST", "/api/v1.0/session/start") => session_start(req, &mut st),
        ("POST", "/api/v1.0/multiplayer/session/start") => multiplayer(req, config, &st),
        ("GET", p) if p.starts_with("/api/v1.0/discovery/MinecraftPE/builds/") => discovery(p, base),
        ("GET", "/.well-known/openid-configuration") => reply(
            200,
            json!({
                "issuer": ISSUER,
                "jwks_uri": format!("{ISSUER}.well-known/keys"),
                "id_token_signing_alg_values_supported": ["RS256"],
                "response_types_supported": ["id_token"],
                "subject_types_supported": ["public"],
            }),
        ),
        ("GET", "/.well-known/keys") => reply(200, FakeServices::jwks()),
        _ => reply(404, json!({"error": "not_found"})),
    }
}

/// A new opaque token of `kind` valid for `lifetime` seconds.
fn mint(st: &mut State, kind: &'static str, lifetime: i64, scope: &str) -> String {
    let random: [u8; 18] = rand::thread_rng().r#gen();
    let token = format!("{kind}.{SECRET_MARKER}.{}", URL_SAFE_NO_PAD.encode(random));
    st.tokens.insert(token.clone(), Issued { kind, expires_at: now_unix() + lifetime, scope: scope.to_owned() });
    token
}

/// The token's record if it is a live token of `kind`.
fn valid<'a>(st: &'a State, token: &str, kind: &str) -> Option<&'a Issued> {
    st.tokens
        .get(token)
        .filter(|t| t.kind == kind && t.expires_at > now_unix() && !st.revoked.iter().any(|r| r == token))
}

fn oauth_error(error: &str, description: &str) -> Response {
    reply(400, json!({"error": error, "error_description": description}))
}

fn device_code(req: &Request, config: &FakeConfig, st: &mut State) -> Response {
    let form = req.form();
    if form.get("client_id").map(String::as_str) != Some(ANDROID_CLIENT_ID)
        || form.get("scope").map(String::as_str) != Some(XBOX_SCOPE)
        || form.get("response_type").map(String::as_str) != Some("device_code")
    {
        return oauth_error("invalid_request", "client_id, scope and response_type=device_code are required");
    }
    let mut rng = rand::thread_rng();
    let user_code: String = (0..8).map(|_| char::from(b'A' + rng.gen_range(0..26u8))).collect();
    let device_code = format!("device.{SECRET_MARKER}.{}", URL_SAFE_NO_PAD.encode(rng.r#gen::<[u8; 18]>()));
    let expires_at = now_unix() + i64::try_from(config.code_expires_in).unwrap_or(900);
    st.codes.push(Code {
        user_code: user_code.clone(),
        device_code: device_code.clone(),
        expires_at,
        status: CodeStatus::Pending,
    });
    reply(
        200,
        json!({
            "user_code": user_code,
            "device_code": device_code,
            "verification_uri": VERIFICATION_URI,
            "interval": config.interval,
            "expires_in": config.code_expires_in,
        }),
    )
}

fn msa_tokens(config: &FakeConfig, st: &mut State) -> Response {
    let access = mint(st, "access", config.access_token_lifetime, "");
    let refresh = mint(st, "refresh", 90 * 86_400, "");
    reply(
        200,
        json!({
            "token_type": "bearer",
            "expires_in": config.access_token_lifetime,
            "scope": XBOX_SCOPE,
            "access_token": access,
            "refresh_token": refresh,
            "user_id": "fake0user0id",
        }),
    )
}

fn oauth_token(req: &Request, config: &FakeConfig, st: &mut State) -> Response {
    let form = req.form();
    if form.get("client_id").map(String::as_str) != Some(ANDROID_CLIENT_ID) {
        return oauth_error("invalid_client", "unknown client");
    }
    match form.get("grant_type").map(String::as_str) {
        Some("urn:ietf:params:oauth:grant-type:device_code") => {
            let device_code = form.get("device_code").cloned().unwrap_or_default();
            let Some(code) = st.codes.iter_mut().find(|c| c.device_code == device_code) else {
                return oauth_error("bad_verification_code", "unknown device code");
            };
            if code.expires_at <= now_unix() {
                return oauth_error("expired_token", "the device code expired");
            }
            match code.status {
                CodeStatus::Pending => oauth_error("authorization_pending", "waiting for the user"),
                CodeStatus::Declined => oauth_error("authorization_declined", "the user declined"),
                CodeStatus::Redeemed => oauth_error("invalid_grant", "code already used"),
                CodeStatus::Approved => {
                    code.status = CodeStatus::Redeemed;
                    msa_tokens(config, st)
                }
            }
        }
        Some("refresh_token") => {
            let token = form.get("refresh_token").cloned().unwrap_or_default();
            if form.get("scope").map(String::as_str) != Some(XBOX_SCOPE) {
                return oauth_error("invalid_scope", "scope required");
            }
            if valid(st, &token, "refresh").is_none() {
                return oauth_error("invalid_grant", "The refresh token is not valid.");
            }
            msa_tokens(config, st)
        }
        _ => oauth_error("unsupported_grant_type", "unsupported grant_type"),
    }
}

/// Checks the `Signature` header against `key` (a JWK) for a POST to `path`.
fn signature_ok(req: &Request, key: &Value) -> bool {
    let Ok(header) = STANDARD.decode(req.header("Signature")) else { return false };
    if header.len() != 76 || header[..4] != [0, 0, 0, 1] {
        return false;
    }
    let filetime = u64::from_be_bytes(header[4..12].try_into().unwrap_or_default());
    let signed_at = i64::try_from(filetime / 10_000_000).unwrap_or(0) - 11_644_473_600;
    if (signed_at - now_unix()).abs() > 300 {
        return false;
    }
    let coord = |k: &str| key.get(k).and_then(Value::as_str).and_then(|s| URL_SAFE_NO_PAD.decode(s).ok());
    let (Some(x), Some(y)) = (coord("x"), coord("y")) else { return false };
    let mut sec1 = vec![4u8];
    sec1.extend_from_slice(&x);
    sec1.extend_from_slice(&y);
    let Ok(vk) = p256::ecdsa::VerifyingKey::from_sec1_bytes(&sec1) else { return false };
    let Ok(sig) = p256::ecdsa::Signature::from_slice(&header[12..]) else { return false };
    vk.verify(&signed_payload(filetime, &req.path, req.header("Authorization"), &req.body), &sig).is_ok()
}

/// An Xbox token response.
fn xbox_reply(token: &str, lifetime: i64, claims: Value) -> Response {
    let now = now_unix();
    reply(
        200,
        json!({
            "IssueInstant": format_iso8601(now),
            "NotAfter": format!("{}", format_iso8601(now + lifetime).replace('Z', ".1234567Z")),
            "Token": token,
            "DisplayClaims": claims,
        }),
    )
}

fn xbox_error(status: u16, xerr: u64) -> Response {
    let mut r = reply(
        status,
        json!({"Identity": "0", "XErr": xerr, "Message": "", "Redirect": "https://start.ui.xboxlive.com/CreateAccount"}),
    );
    r.headers.push(("x-err", xerr.to_string()));
    r
}

/// A stable fingerprint of a proof key JWK (what a device token is bound to).
fn thumbprint(key: &Value) -> String {
    format!("{}.{}", key["x"].as_str().unwrap_or_default(), key["y"].as_str().unwrap_or_default())
}

fn rps_ok(st: &State, ticket: &str) -> bool {
    ticket.strip_prefix("t=").is_some_and(|access| valid(st, access, "access").is_some())
}

fn device_token(req: &Request, config: &FakeConfig, st: &mut State) -> Response {
    let body = req.json();
    let key = &body["Properties"]["ProofKey"];
    if body["Properties"]["AuthMethod"] != "ProofOfPossession" || !signature_ok(req, key) {
        return reply(400, Value::Null);
    }
    let token = mint(st, "device", config.xbox_token_lifetime, &thumbprint(key));
    xbox_reply(&token, config.xbox_token_lifetime, json!({"xdi": {"did": "F00D", "dcs": "0"}}))
}

fn title_token(req: &Request, config: &FakeConfig, st: &mut State) -> Response {
    let body = req.json();
    let p = &body["Properties"];
    let key = &p["ProofKey"];
    let device_bound =
        valid(st, p["DeviceToken"].as_str().unwrap_or_default(), "device").is_some_and(|d| d.scope == thumbprint(key));
    if !signature_ok(req, key) || !device_bound {
        return reply(400, Value::Null);
    }
    if !rps_ok(st, p["RpsTicket"].as_str().unwrap_or_default()) {
        return reply(401, Value::Null);
    }
    let token = mint(st, "title", config.xbox_token_lifetime, "");
    xbox_reply(&token, config.xbox_token_lifetime, json!({"xti": {"tid": "1739947436"}}))
}

fn user_token(req: &Request, config: &FakeConfig, st: &mut State) -> Response {
    let body = req.json();
    if body["RelyingParty"] != "http://auth.xboxlive.com" || req.header("x-xbl-contract-version") != "2" {
        return reply(400, Value::Null);
    }
    if !rps_ok(st, body["Properties"]["RpsTicket"].as_str().unwrap_or_default()) {
        return reply(401, Value::Null);
    }
    let token = mint(st, "user", config.xbox_token_lifetime, "");
    xbox_reply(&token, config.xbox_token_lifetime, json!({"xui": [{"uhs": "fakeuhs1"}]}))
}

fn xsts(req: &Request, config: &FakeConfig, st: &mut State) -> Response {
    let body = req.json();
    let p = &body["Properties"];
    let key = &p["ProofKey"];
    let device = p["DeviceToken"].as_str().unwrap_or_default();
    let device_bound = valid(st, device, "device").is_some_and(|d| d.scope == thumbprint(key));
    let user_ok = p["UserTokens"][0].as_str().is_some_and(|u| valid(st, u, "user").is_some());
    let title_ok = p["TitleToken"].as_str().is_some_and(|t| valid(st, t, "title").is_some());
    if !signature_ok(req, key) || !device_bound {
        return reply(400, Value::Null);
    }
    if !user_ok || !title_ok {
        return reply(401, Value::Null);
    }
    if !config.has_xbox_profile {
        return xbox_error(401, 2_148_916_233);
    }
    let rp = body["RelyingParty"].as_str().unwrap_or_default();
    let xui = match rp {
        RP_MINECRAFT | RP_PLAYFAB => json!({"uhs": "fakeuhs1"}),
        "http://xboxlive.com" => json!({"uhs": "fakeuhs1", "xid": config.xuid, "gtg": config.gamertag}),
        _ => return xbox_error(400, 2_148_916_230),
    };
    let token = mint(st, "xsts", config.xsts_lifetime, rp);
    xbox_reply(&token, config.xsts_lifetime, json!({"xui": [xui]}))
}

/// `XBL3.0 x=<uhs>;<token>` naming a live XSTS token of `rp`.
fn xbl3_ok(st: &State, header: &str, rp: &str) -> bool {
    let Some(rest) = header.strip_prefix("XBL3.0 x=") else { return false };
    let Some((uhs, token)) = rest.split_once(';') else { return false };
    uhs == "fakeuhs1" && valid(st, token, "xsts").is_some_and(|t| t.scope == rp)
}

fn spki(key: &p384::ecdsa::SigningKey) -> String {
    use p384::pkcs8::EncodePublicKey as _;
    let public = p384::PublicKey::from(key.verifying_key());
    public.to_public_key_der().map(|d| STANDARD.encode(d.as_bytes())).unwrap_or_default()
}

fn es384_jwt(key: &p384::ecdsa::SigningKey, claims: &Value) -> String {
    let header = json!({"alg": "ES384", "x5u": spki(key)});
    let input =
        format!("{}.{}", URL_SAFE_NO_PAD.encode(header.to_string()), URL_SAFE_NO_PAD.encode(claims.to_string()));
    let sig: p384::ecdsa::Signature = p384::ecdsa::signature::Signer::sign(key, input.as_bytes());
    format!("{input}.{}", URL_SAFE_NO_PAD.encode(sig.to_bytes()))
}

fn p384_spki_ok(b64: &str) -> bool {
    use p384::pkcs8::DecodePublicKey as _;
    STANDARD.decode(b64).ok().is_some_and(|der| p384::PublicKey::from_public_key_der(&der).is_ok())
}

fn chain(req: &Request, config: &FakeConfig, st: &State) -> Response {
    if !xbl3_ok(st, req.header("Authorization"), RP_MINECRAFT) {
        return reply(401, Value::Null);
    }
    if !config.has_minecraft {
        return reply(401, Value::Null);
    }
    let client_key = req.json()["identityPublicKey"].as_str().unwrap_or_default().to_owned();
    if !p384_spki_ok(&client_key) {
        return reply(400, Value::Null);
    }
    let k = keys();
    let now = now_unix();
    let first = es384_jwt(
        &k.mojang,
        &json!({"certificateAuthority": true, "identityPublicKey": spki(&k.intermediate), "nbf": now - 60, "exp": now + 2 * 86_400, "iss": "RealmsAuthorization"}),
    );
    let identity = uuid::Uuid::new_v3(&uuid::Uuid::NAMESPACE_URL, config.xuid.as_bytes()).to_string();
    let second = es384_jwt(
        &k.intermediate,
        &json!({
            "extraData": {"XUID": config.xuid, "identity": identity, "displayName": config.gamertag, "titleId": "1739947436", "sandboxId": "RETAIL"},
            "identityPublicKey": client_key,
            "iat": now, "nbf": now - 60, "exp": now + 2 * 86_400, "iss": "Mojang", "randomNonce": rand::random::<i64>(),
        }),
    );
    reply(200, json!({"chain": [first, second]}))
}

fn playfab(req: &Request, st: &mut State) -> Response {
    let body = req.json();
    if body["TitleId"] != PLAYFAB_TITLE_ID || !xbl3_ok(st, body["XboxToken"].as_str().unwrap_or_default(), RP_PLAYFAB) {
        return reply(
            400,
            json!({"code": 400, "status": "BadRequest", "error": "InvalidXboxLiveToken", "errorCode": 1_140, "errorMessage": "Invalid Xbox Live token"}),
        );
    }
    let ticket = mint(st, "ticket", 24 * 3600, "");
    let entity = mint(st, "entity", 24 * 3600, "");
    reply(
        200,
        json!({"code": 200, "status": "OK", "data": {
            "SessionTicket": ticket,
            "PlayFabId": "F4KE0000PLAYFAB1",
            "NewlyCreated": false,
            "EntityToken": {"EntityToken": entity, "TokenExpiration": format_iso8601(now_unix() + 24 * 3600), "Entity": {"Id": "F4KE1", "Type": "title_player_account"}},
        }}),
    )
}

fn session_start(req: &Request, st: &mut State) -> Response {
    let body = req.json();
    let user = &body["user"];
    let device_ok = body["device"]["applicationType"] == "MinecraftPE"
        && body["device"]["id"].as_str().is_some_and(|s| !s.is_empty());
    if user["tokenType"] != "PlayFab" || !device_ok {
        return reply(400, json!({"code": "BadRequest", "message": "bad session request"}));
    }
    if valid(st, user["token"].as_str().unwrap_or_default(), "ticket").is_none() {
        return reply(401, json!({"code": "Unauthorized", "message": "invalid PlayFab session ticket"}));
    }
    let token = mint(st, "mctoken", 4 * 3600, "");
    reply(
        200,
        json!({"result": {
            "authorizationHeader": format!("MCToken {token}"),
            "validUntil": format_iso8601(now_unix() + 4 * 3600),
            "treatments": [],
            "configurations": {},
            "treatmentContext": "",
        }}),
    )
}

fn multiplayer(req: &Request, config: &FakeConfig, st: &State) -> Response {
    let auth = req.header("Authorization");
    let live = auth.strip_prefix("MCToken ").is_some_and(|t| valid(st, t, "mctoken").is_some());
    if !live {
        return reply(401, json!({"code": "Unauthorized", "message": "invalid MCToken"}));
    }
    let public_key = req.json()["publicKey"].as_str().unwrap_or_default().to_owned();
    if !p384_spki_ok(&public_key) {
        return reply(400, json!({"code": "BadRequest", "message": "publicKey must be a P-384 SPKI"}));
    }
    let now = now_unix();
    let claims = json!({
        "ipt": "PlayFab",
        "pfcd": now - 86_400,
        "tid": PLAYFAB_TITLE_ID,
        "mid": "F4KE0000PLAYFAB1",
        "xid": config.xuid,
        "xname": config.gamertag,
        "cpk": public_key,
        "ap": 0,
        "pid": "",
        "pname": "",
        "aud": MULTIPLAYER_AUDIENCE,
        "iss": ISSUER,
        "iat": now,
        "nbf": now - 60,
        "exp": now + 3600,
    });
    reply(
        200,
        json!({"result": {"issuedAt": format_iso8601(now), "signedToken": rs256_jwt(&claims), "validUntil": format_iso8601(now + 3600)}}),
    )
}

/// A compact RS256 JWS with the fake's key (`kid` = [`KEY_ID`]).
pub fn rs256_jwt(claims: &Value) -> String {
    let header = json!({"alg": "RS256", "typ": "JWT", "kid": KEY_ID});
    let input =
        format!("{}.{}", URL_SAFE_NO_PAD.encode(header.to_string()), URL_SAFE_NO_PAD.encode(claims.to_string()));
    let signer = pkcs1v15::SigningKey::<Sha256>::new(keys().rsa.clone());
    let sig = signer.sign(input.as_bytes());
    format!("{input}.{}", URL_SAFE_NO_PAD.encode(sig.to_bytes()))
}

/// Verifies an RS256 token from the fake (tests of the fake itself).
pub fn verify_rs256(token: &str) -> Option<Value> {
    let (input, sig) = token.rsplit_once('.')?;
    let sig = pkcs1v15::Signature::try_from(URL_SAFE_NO_PAD.decode(sig).ok()?.as_slice()).ok()?;
    let verifier = pkcs1v15::VerifyingKey::<Sha256>::new(keys().rsa.to_public_key());
    rsa::signature::Verifier::verify(&verifier, input.as_bytes(), &sig).ok()?;
    let payload = input.split('.').nth(1)?;
    serde_json::from_slice(&URL_SAFE_NO_PAD.decode(payload).ok()?).ok()
}

fn discovery(path: &str, base: &str) -> Response {
    let version = path.rsplit('/').next().unwrap_or_default();
    reply(
        200,
        json!({"result": {
            "serviceEnvironments": {"auth": {"prod": {
                "serviceUri": base,
                "issuer": ISSUER,
                "playFabTitleId": PLAYFAB_TITLE_ID,
                "eduPlayFabTitleId": "6955F",
            }}},
            "supportedEnvironments": {version: ["prod"]},
        }}),
    )
}
