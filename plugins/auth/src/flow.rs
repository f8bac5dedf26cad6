//! The sign-in flow: which cached token is still good, what to renew, when a human is needed.

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, Instant};

use crate::endpoints::{ANDROID_CLIENT_ID, Endpoints, RP_MINECRAFT, RP_PLAYFAB};
use crate::http::Http;
use crate::minecraft::{self, PlayFabSession, ServicesToken};
use crate::msa::{self, DeviceCode, MsaTokens, Poll};
use crate::store::{self, TokenCache};
use crate::time::now_unix;
use crate::xbox::{self, ProofKey, XboxToken};
use crate::{AuthError, Secret};

/// A cached token is renewed when it has less than this left.
const RENEW_MARGIN_SECS: i64 = 5 * 60;

/// What the sign-in needs to know.
#[derive(Debug, Clone)]
pub struct AuthConfig {
    /// The cache key (`USERNAME`); the in-game name is the account's gamertag.
    pub username: String,
    /// Where the token cache lives.
    pub dir: PathBuf,
    pub endpoints: Endpoints,
    /// Game version for the Minecraft services (`1.26.45`).
    pub game_version: String,
    /// Microsoft account client id (Minecraft for Android by default).
    pub client_id: String,
    /// Xbox device type and OS version of the device token (match the Login's DeviceOS).
    pub device_type: String,
    pub device_version: String,
    /// Per-request timeout.
    pub timeout: Duration,
    /// After a declined or expired code, no new code is requested for this long (a reconnect
    /// loop must not flood the human with codes).
    pub code_cooldown: Duration,
}

impl AuthConfig {
    /// Defaults for `username`: the platform cache directory (unless `dir` is given), the public
    /// services, Minecraft for Android.
    pub fn new(username: &str, dir: Option<PathBuf>, game_version: &str) -> Self {
        Self {
            username: username.to_owned(),
            dir: dir.unwrap_or_else(store::default_dir),
            endpoints: Endpoints::default(),
            game_version: game_version.to_owned(),
            client_id: ANDROID_CLIENT_ID.to_owned(),
            device_type: "Android".to_owned(),
            device_version: "13".to_owned(),
            timeout: Duration::from_secs(20),
            code_cooldown: Duration::from_secs(5 * 60),
        }
    }

    /// This account's cache file.
    pub fn cache_path(&self) -> PathBuf {
        store::cache_path(&self.dir, &self.username)
    }
}

/// Progress a human may need to act on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AuthProgress {
    /// Open `url` and enter `code` within `expires_in` seconds.
    DeviceCode { url: String, code: String, expires_in: u64 },
}

/// What the Login packet needs from an online sign-in.
#[derive(Clone, PartialEq, Eq)]
pub struct OnlineIdentity {
    /// The Mojang-signed chain for the connection's key (goes after our own first link).
    pub chain: Vec<String>,
    /// The OIDC multiplayer token (empty if not requested).
    pub multiplayer_token: String,
    /// In-game name.
    pub gamertag: String,
    pub xuid: String,
}

impl std::fmt::Debug for OnlineIdentity {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OnlineIdentity")
            .field("gamertag", &self.gamertag)
            .field("xuid", &self.xuid)
            .field("chain_len", &self.chain.len())
            .finish_non_exhaustive()
    }
}

/// Device-code state shared by every sign-in attempt of one account: a pending code is reused
/// by the next attempt (a reconnect after a network failure does not ask for a new one).
#[derive(Default)]
struct CodeState {
    pending: Option<DeviceCode>,
    cooldown_until: Option<i64>,
}

/// Signs one account in, again and again (one per connection), sharing its cache and its
/// pending device code between attempts.
pub struct Authenticator {
    config: AuthConfig,
    http: Http,
    codes: Mutex<CodeState>,
}

impl Authenticator {
    pub fn new(config: AuthConfig) -> Self {
        let http = Http::new(config.timeout);
        Self { config, http, codes: Mutex::new(CodeState::default()) }
    }

    pub fn config(&self) -> &AuthConfig {
        &self.config
    }

    /// Signs in for a connection whose login key is `public_key_b64` (standard base64 DER SPKI)
    /// and returns the chain and (if `multiplayer_token`) the OIDC token bound to that key.
    ///
    /// Blocks on HTTP and, if no cached sign-in works, until a human enters the device code
    /// shown through `progress`. `cancel` stops the wait.
    pub fn sign_in(
        &self,
        public_key_b64: &str,
        multiplayer_token: bool,
        progress: &mut dyn FnMut(&AuthProgress),
        cancel: &AtomicBool,
    ) -> Result<OnlineIdentity, AuthError> {
        let path = self.config.cache_path();
        let cache = match store::load(&path) {
            Ok(Some(c)) if c.username == self.config.username => c,
            Ok(_) => TokenCache::new(&self.config.username),
            Err(e) => {
                tracing::info!(error = %e, "ignoring the unreadable token cache; signing in again");
                TokenCache::new(&self.config.username)
            }
        };
        let mut run = Run { auth: self, cache, path, progress, cancel, msa_access: None, dirty: false };
        let result = run.identity(public_key_b64, multiplayer_token);
        // Whatever was obtained before a failure is kept (a new device-code sign-in must not
        // be lost because a later step failed).
        let saved = if run.dirty { run.save() } else { Ok(()) };
        let identity = result?;
        saved?;
        Ok(identity)
    }

    /// Waits for the human to enter a device code (a pending one is reused).
    fn device_code(
        &self,
        progress: &mut dyn FnMut(&AuthProgress),
        cancel: &AtomicBool,
    ) -> Result<MsaTokens, AuthError> {
        let code = {
            let mut st = lock(&self.codes);
            let now = now_unix();
            match st.pending.clone().filter(|c| c.expires_at > now + 5) {
                Some(code) => code,
                None => {
                    if let Some(until) = st.cooldown_until.filter(|u| *u > now) {
                        return Err(AuthError::CodeCooldown(u64::try_from(until - now).unwrap_or(0)));
                    }
                    let code = msa::request_device_code(&self.http, &self.config.endpoints, &self.config.client_id)?;
                    tracing::info!(expires_in = code.expires_at - now, "Microsoft sign-in code issued");
                    st.pending = Some(code.clone());
                    code
                }
            }
        };
        progress(&AuthProgress::DeviceCode {
            url: code.verification_uri.clone(),
            code: code.user_code.clone(),
            expires_in: u64::try_from(code.expires_at - now_unix()).unwrap_or(0),
        });
        let mut interval = code.interval;
        loop {
            if sleep_unless_cancelled(interval, cancel) {
                return Err(AuthError::Cancelled);
            }
            if now_unix() >= code.expires_at {
                self.code_failed();
                return Err(AuthError::CodeExpired);
            }
            match msa::poll_device_code(&self.http, &self.config.endpoints, &self.config.client_id, &code) {
                Ok(Poll::Pending) => {}
                Ok(Poll::SlowDown) => interval += Duration::from_secs(5),
                Ok(Poll::Done(tokens)) => {
                    lock(&self.codes).pending = None;
                    return Ok(tokens);
                }
                Err(e @ (AuthError::Declined | AuthError::CodeExpired)) => {
                    self.code_failed();
                    return Err(e);
                }
                // Network trouble: the code stays pending for the next attempt.
                Err(e) => return Err(e),
            }
        }
    }

    fn code_failed(&self) {
        let mut st = lock(&self.codes);
        st.pending = None;
        st.cooldown_until = Some(now_unix() + i64::try_from(self.config.code_cooldown.as_secs()).unwrap_or(0));
    }
}

fn lock(m: &Mutex<CodeState>) -> MutexGuard<'_, CodeState> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// Sleeps `d` in small steps; true if cancelled meanwhile.
fn sleep_unless_cancelled(d: Duration, cancel: &AtomicBool) -> bool {
    let end = Instant::now() + d;
    loop {
        if cancel.load(Ordering::Relaxed) {
            return true;
        }
        let now = Instant::now();
        if now >= end {
            return false;
        }
        std::thread::sleep((end - now).min(Duration::from_millis(100)));
    }
}

fn fresh(expires_at: i64) -> bool {
    expires_at - now_unix() > RENEW_MARGIN_SECS
}

fn usable(token: Option<&XboxToken>) -> Option<XboxToken> {
    token.filter(|t| fresh(t.not_after)).cloned()
}

/// One sign-in: the cache as it evolves, and whether it must be written back.
struct Run<'a> {
    auth: &'a Authenticator,
    cache: TokenCache,
    path: PathBuf,
    progress: &'a mut dyn FnMut(&AuthProgress),
    cancel: &'a AtomicBool,
    /// The MSA access token once obtained in this run.
    msa_access: Option<Secret>,
    dirty: bool,
}

impl Run<'_> {
    fn http(&self) -> &Http {
        &self.auth.http
    }

    fn endpoints(&self) -> &Endpoints {
        &self.auth.config.endpoints
    }

    fn save(&mut self) -> Result<(), AuthError> {
        self.cache.updated_at = now_unix();
        store::save(&self.path, &self.cache)?;
        self.dirty = false;
        Ok(())
    }

    fn identity(&mut self, public_key_b64: &str, want_token: bool) -> Result<OnlineIdentity, AuthError> {
        let xsts = self.xsts(RP_MINECRAFT)?;
        let game_version = self.auth.config.game_version.clone();
        let chain = minecraft::certificate_chain(self.http(), self.endpoints(), &xsts, public_key_b64, &game_version)?;
        let extra =
            chain.last().and_then(|jwt| minecraft::unverified_claims(jwt)).and_then(|c| c.get("extraData").cloned());
        let from_chain = |k: &str| extra.as_ref().and_then(|e| e.get(k)).and_then(|v| v.as_str()).map(str::to_owned);
        let mut gamertag = from_chain("displayName").unwrap_or_default();
        let mut xuid = from_chain("XUID").unwrap_or_default();
        let token = if want_token { self.multiplayer_token(public_key_b64)? } else { String::new() };
        if let Some(claims) = minecraft::unverified_claims(&token) {
            let claim = |k: &str| claims.get(k).and_then(|v| v.as_str()).map(str::to_owned);
            gamertag = claim("xname").unwrap_or(gamertag);
            xuid = claim("xid").unwrap_or(xuid);
        }
        if gamertag.is_empty() {
            return Err(AuthError::Service {
                service: "multiplayer.minecraft.net",
                detail: "no gamertag in the sign-in".into(),
            });
        }
        if (self.cache.gamertag.as_str(), self.cache.xuid.as_str()) != (gamertag.as_str(), xuid.as_str()) {
            self.cache.gamertag = gamertag.clone();
            self.cache.xuid = xuid.clone();
            self.dirty = true;
        }
        Ok(OnlineIdentity { chain, multiplayer_token: token, gamertag, xuid })
    }

    /// The OIDC token; a cached services session the service no longer accepts is renewed once.
    fn multiplayer_token(&mut self, public_key_b64: &str) -> Result<String, AuthError> {
        let services = self.services()?;
        match minecraft::multiplayer_token(self.http(), self.endpoints(), &services, public_key_b64) {
            Err(AuthError::Service { detail, .. }) if detail.starts_with("HTTP 401") => {
                tracing::info!("Minecraft services session refused; starting a new one");
                self.cache.services = None;
                self.cache.playfab = None;
                let services = self.services()?;
                minecraft::multiplayer_token(self.http(), self.endpoints(), &services, public_key_b64)
            }
            other => other,
        }
    }

    fn services(&mut self) -> Result<ServicesToken, AuthError> {
        if let Some(s) = self.cache.services.clone().filter(|s| fresh(s.valid_until)) {
            return Ok(s);
        }
        let playfab = self.playfab()?;
        if self.cache.device_id.is_empty() {
            self.cache.device_id = uuid::Uuid::new_v4().to_string();
        }
        let version = self.auth.config.game_version.clone();
        let s = minecraft::services_session(self.http(), self.endpoints(), &playfab, &version, &self.cache.device_id)?;
        self.cache.services = Some(s.clone());
        self.dirty = true;
        Ok(s)
    }

    fn playfab(&mut self) -> Result<PlayFabSession, AuthError> {
        if let Some(p) = self.cache.playfab.clone().filter(|p| fresh(p.expires_at)) {
            return Ok(p);
        }
        let xsts = self.xsts(RP_PLAYFAB)?;
        let p = minecraft::playfab_login(self.http(), self.endpoints(), &xsts)?;
        self.cache.playfab = Some(p.clone());
        self.dirty = true;
        Ok(p)
    }

    fn xsts(&mut self, relying_party: &str) -> Result<XboxToken, AuthError> {
        if let Some(t) = usable(self.cache.xsts.get(relying_party)) {
            return Ok(t);
        }
        let (key, device) = self.device()?;
        let title = self.title(&key, &device)?;
        let user = self.user(&key)?;
        let t = xbox::xsts_token(self.http(), self.endpoints(), &key, relying_party, &user, &device, &title)?;
        self.cache.xsts.insert(relying_party.to_owned(), t.clone());
        self.dirty = true;
        Ok(t)
    }

    fn proof_key(&mut self) -> ProofKey {
        if let Some(key) = self.cache.proof_key.as_ref().and_then(ProofKey::from_secret) {
            return key;
        }
        let key = ProofKey::generate();
        self.cache.proof_key = Some(key.to_secret());
        // Tokens bound to another key are useless now.
        self.cache.device = None;
        self.cache.title = None;
        self.cache.xsts.clear();
        self.dirty = true;
        key
    }

    fn device(&mut self) -> Result<(ProofKey, XboxToken), AuthError> {
        let key = self.proof_key();
        if let Some(t) = usable(self.cache.device.as_ref()) {
            return Ok((key, t));
        }
        let cfg = &self.auth.config;
        let t = xbox::device_token(self.http(), self.endpoints(), &key, &cfg.device_type, &cfg.device_version)?;
        self.cache.device = Some(t.clone());
        self.dirty = true;
        Ok((key, t))
    }

    fn title(&mut self, key: &ProofKey, device: &XboxToken) -> Result<XboxToken, AuthError> {
        if let Some(t) = usable(self.cache.title.as_ref()) {
            return Ok(t);
        }
        let access = self.msa_access()?;
        let t = xbox::title_token(self.http(), self.endpoints(), key, &access, device)?;
        self.cache.title = Some(t.clone());
        self.dirty = true;
        Ok(t)
    }

    fn user(&mut self, key: &ProofKey) -> Result<XboxToken, AuthError> {
        if let Some(t) = usable(self.cache.user.as_ref()) {
            return Ok(t);
        }
        let access = self.msa_access()?;
        let t = xbox::user_token(self.http(), self.endpoints(), key, &access)?;
        self.cache.user = Some(t.clone());
        self.dirty = true;
        Ok(t)
    }

    /// A usable MSA access token: cached, refreshed, or from a new device-code sign-in.
    fn msa_access(&mut self) -> Result<Secret, AuthError> {
        if let Some(a) = &self.msa_access {
            return Ok(a.clone());
        }
        let tokens = match self.cache.msa.clone() {
            Some(t) if fresh(t.expires_at) => t,
            Some(t) => {
                let cfg = &self.auth.config;
                match msa::refresh(self.http(), &cfg.endpoints, &cfg.client_id, &t.refresh_token) {
                    Ok(new) => {
                        tracing::info!("Microsoft sign-in refreshed");
                        new
                    }
                    Err(e @ AuthError::Revoked(_)) => {
                        // Every token of this sign-in is suspect: forget them all.
                        self.cache.sign_out();
                        self.dirty = true;
                        return Err(e);
                    }
                    Err(e) => return Err(e),
                }
            }
            None => self.auth.device_code(&mut *self.progress, self.cancel)?,
        };
        self.cache.msa = Some(tokens.clone());
        self.dirty = true;
        self.msa_access = Some(tokens.access_token.clone());
        Ok(tokens.access_token)
    }
}
