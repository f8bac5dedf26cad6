//! The whole sign-in against the loopback fake: first login with a device code, cached login,
//! refresh, revoked refresh token, expired and declined codes, network failure, accounts that
//! cannot play, and that no token ever reaches a log line, an error or a `Debug` print.

use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::sync::mpsc::{Receiver, channel};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

use base64::Engine as _;
use clawcraft_auth::fake::{FakeConfig, FakeServices, ISSUER, SECRET_MARKER, verify_rs256};
use clawcraft_auth::store::{self, TokenCache};
use clawcraft_auth::{AuthConfig, AuthError, AuthProgress, Authenticator, Endpoints, OnlineIdentity};

/// Everything the sign-in threads logged (TRACE and up).
#[derive(Clone, Default)]
struct Logs(Arc<Mutex<Vec<u8>>>);

impl std::io::Write for Logs {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap_or_else(|p| p.into_inner()).extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl Logs {
    fn text(&self) -> String {
        String::from_utf8_lossy(&self.0.lock().unwrap_or_else(|p| p.into_inner())).into_owned()
    }
}

struct Harness {
    fake: FakeServices,
    auth: Arc<Authenticator>,
    dir: PathBuf,
    logs: Logs,
}

impl Harness {
    fn new(name: &str, fake: FakeConfig) -> Self {
        let fake = FakeServices::start(fake);
        let dir = std::env::temp_dir().join(format!("clawcraft-auth-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let mut config = AuthConfig::new("ClawBot", Some(dir.clone()), "1.26.45");
        config.endpoints = Endpoints::with_base(&fake.base_url());
        config.timeout = Duration::from_secs(5);
        Self { fake, auth: Arc::new(Authenticator::new(config)), dir, logs: Logs::default() }
    }

    fn with_auth(mut self, edit: impl FnOnce(&mut AuthConfig)) -> Self {
        let mut config = self.auth.config().clone();
        edit(&mut config);
        self.auth = Arc::new(Authenticator::new(config));
        self
    }

    /// Starts a sign-in on its own thread (as the bot does), logging into `self.logs`.
    fn start(&self, key: &str) -> (Receiver<AuthProgress>, JoinHandle<Result<OnlineIdentity, AuthError>>) {
        let (tx, rx) = channel();
        let (auth, key, logs) = (self.auth.clone(), key.to_owned(), self.logs.clone());
        let handle = std::thread::spawn(move || {
            let subscriber = tracing_subscriber::fmt()
                .with_max_level(tracing::Level::TRACE)
                .with_writer(move || logs.clone())
                .with_ansi(false)
                .finish();
            tracing::subscriber::with_default(subscriber, || {
                auth.sign_in(&key, true, &mut |p| drop(tx.send(p.clone())), &AtomicBool::new(false))
            })
        });
        (rx, handle)
    }

    /// A sign-in that must not need a human.
    fn silent(&self, key: &str) -> Result<OnlineIdentity, AuthError> {
        let (rx, handle) = self.start(key);
        let result = handle.join().expect("sign-in thread");
        assert!(rx.try_recv().is_err(), "no device code expected");
        result
    }

    /// A sign-in where the human approves the code.
    fn approved(&self, key: &str) -> OnlineIdentity {
        let (rx, handle) = self.start(key);
        let code = code_of(&rx);
        assert!(self.fake.approve(&code), "fake knows the code {code}");
        handle.join().expect("sign-in thread").expect("signed in")
    }

    fn cache(&self) -> TokenCache {
        store::load(&self.auth.config().cache_path()).expect("readable").expect("cache file exists")
    }

    /// Moves every cached expiry into the past (as if the bot slept for weeks).
    fn age_cache(&self) {
        let mut c = self.cache();
        let past = clawcraft_auth::time::now_unix() - 10;
        if let Some(m) = c.msa.as_mut() {
            m.expires_at = past;
        }
        for t in [c.device.as_mut(), c.title.as_mut(), c.user.as_mut()].into_iter().flatten() {
            t.not_after = past;
        }
        for t in c.xsts.values_mut() {
            t.not_after = past;
        }
        if let Some(p) = c.playfab.as_mut() {
            p.expires_at = past;
        }
        if let Some(s) = c.services.as_mut() {
            s.valid_until = past;
        }
        store::save(&self.auth.config().cache_path(), &c).expect("save aged cache");
    }

    /// No issued token in the logs so far or in `texts`.
    fn assert_no_token_leaked(&self, texts: &[String]) {
        let logs = self.logs.text();
        assert!(!logs.contains(SECRET_MARKER), "a token reached the logs:\n{logs}");
        for t in texts {
            assert!(!t.contains(SECRET_MARKER), "a token reached {t}");
        }
        for token in self.fake.issued_tokens() {
            assert!(!logs.contains(&token));
        }
    }
}

impl Drop for Harness {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

fn code_of(rx: &Receiver<AuthProgress>) -> String {
    match rx.recv_timeout(Duration::from_secs(10)).expect("a device code is shown") {
        AuthProgress::DeviceCode { url, code, expires_in } => {
            assert_eq!(url, "https://www.microsoft.com/link");
            assert!(expires_in > 0);
            code
        }
    }
}

/// A fresh connection key, as standard base64 DER SPKI.
fn login_key() -> String {
    use p384::pkcs8::EncodePublicKey as _;
    let key = p384::ecdsa::SigningKey::random(&mut rand_core());
    let der = p384::PublicKey::from(key.verifying_key()).to_public_key_der().expect("der");
    base64::engine::general_purpose::STANDARD.encode(der.as_bytes())
}

fn rand_core() -> p384::elliptic_curve::rand_core::OsRng {
    p384::elliptic_curve::rand_core::OsRng
}

fn assert_identity_for(identity: &OnlineIdentity, key: &str) {
    assert_eq!(identity.gamertag, "Claw Fake");
    assert_eq!(identity.xuid, "2535400000000001");
    assert_eq!(identity.chain.len(), 2, "Mojang chain of two");
    let claims = verify_rs256(&identity.multiplayer_token).expect("the multiplayer token verifies with the fake's key");
    assert_eq!(claims["cpk"], key, "bound to this connection's key");
    assert_eq!(claims["aud"], "api://auth-minecraft-services/multiplayer");
    assert_eq!(claims["iss"], ISSUER);
    assert_eq!(claims["xname"], "Claw Fake");
}

#[test]
fn first_login_then_cached_login_reuses_everything_but_the_per_connection_tokens() {
    let h = Harness::new("first", FakeConfig::default());
    let key = login_key();
    let identity = h.approved(&key);
    assert_identity_for(&identity, &key);
    let path = h.auth.config().cache_path();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        assert_eq!(std::fs::metadata(&path).expect("cache").permissions().mode() & 0o777, 0o600);
    }
    let cache = h.cache();
    assert_eq!((cache.username.as_str(), cache.gamertag.as_str()), ("ClawBot", "Claw Fake"));
    assert!(cache.msa.is_some() && cache.services.is_some() && cache.xsts.len() == 2);

    // Second connection, new key: no human, no Xbox round trips, new chain and token.
    let key2 = login_key();
    let again = h.silent(&key2).expect("cached sign-in");
    assert_identity_for(&again, &key2);
    for (path, n) in [
        ("/oauth20_connect.srf", 1),
        ("/device/authenticate", 1),
        ("/user/authenticate", 1),
        ("/title/authenticate", 1),
        ("/xsts/authorize", 2),
        ("/Client/LoginWithXbox", 1),
        ("/api/v1.0/session/start", 1),
        ("/authentication", 2),
        ("/api/v1.0/multiplayer/session/start", 2),
    ] {
        assert_eq!(h.fake.count(path), n, "{path}: {:?}", h.fake.requests());
    }
    h.assert_no_token_leaked(&[format!("{identity:?}"), format!("{:?}", h.cache())]);
}

#[test]
fn expired_tokens_are_refreshed_without_a_new_code() {
    let h = Harness::new("refresh", FakeConfig::default());
    h.approved(&login_key());
    h.age_cache();
    let polls_before = h.fake.count("/oauth20_token.srf");
    let key = login_key();
    let identity = h.silent(&key).expect("refreshed sign-in");
    assert_identity_for(&identity, &key);
    assert_eq!(h.fake.count("/oauth20_connect.srf"), 1, "no new device code");
    assert_eq!(h.fake.count("/oauth20_token.srf"), polls_before + 1, "one refresh_token grant");
    assert_eq!(h.fake.count("/xsts/authorize"), 4, "both XSTS tokens renewed");
    assert!(h.cache().msa.is_some_and(|m| m.expires_at > clawcraft_auth::time::now_unix()));
    h.assert_no_token_leaked(&[]);
}

#[test]
fn a_revoked_refresh_token_fails_clearly_then_the_next_attempt_asks_for_a_code() {
    let h = Harness::new("revoked", FakeConfig::default());
    h.approved(&login_key());
    h.age_cache();
    h.fake.revoke_refresh_tokens();
    let err = h.silent(&login_key()).expect_err("revoked");
    assert!(matches!(err, AuthError::Revoked(ref e) if e == "invalid_grant"), "{err:?}");
    assert!(err.to_string().contains("new sign-in code"), "{err}");
    let cache = h.cache();
    assert!(cache.msa.is_none() && cache.user.is_none() && cache.xsts.is_empty(), "signed out: {cache:?}");
    assert!(cache.proof_key.is_some(), "the device keeps its key");
    let identity = h.approved(&login_key());
    assert_eq!(identity.gamertag, "Claw Fake");
    assert_eq!(h.fake.count("/oauth20_connect.srf"), 2);
    h.assert_no_token_leaked(&[err.to_string()]);
}

#[test]
fn an_expired_code_fails_and_a_retry_does_not_request_another_code_at_once() {
    let h = Harness::new("expired", FakeConfig::default());
    let (rx, handle) = h.start(&login_key());
    assert!(h.fake.expire(&code_of(&rx)));
    let err = handle.join().expect("thread").expect_err("expired");
    assert_eq!(err, AuthError::CodeExpired);
    let again = h.silent(&login_key()).expect_err("cool-down");
    assert!(matches!(again, AuthError::CodeCooldown(s) if s > 200), "{again:?}");
    assert_eq!(h.fake.count("/oauth20_connect.srf"), 1, "one code, not one per retry");
    // After the cool-down (zero here) a new code is requested.
    let h = h.with_auth(|c| c.code_cooldown = Duration::ZERO);
    let identity = h.approved(&login_key());
    assert_eq!(identity.gamertag, "Claw Fake");
    assert_eq!(h.fake.count("/oauth20_connect.srf"), 2);
}

#[test]
fn a_declined_code_fails_clearly() {
    let h = Harness::new("declined", FakeConfig::default());
    let (rx, handle) = h.start(&login_key());
    let code = code_of(&rx);
    assert!(h.fake.decline(&code));
    let err = handle.join().expect("thread").expect_err("declined");
    assert_eq!(err, AuthError::Declined);
    assert_eq!(err.code(), "AUTH_DECLINED");
    assert!(matches!(h.silent(&login_key()), Err(AuthError::CodeCooldown(_))));
}

#[test]
fn a_network_failure_keeps_the_pending_code_for_the_retry() {
    let h = Harness::new("network", FakeConfig::default());
    let (rx, handle) = h.start(&login_key());
    let code = code_of(&rx);
    h.fake.set_down(true);
    let err = handle.join().expect("thread").expect_err("network failure");
    assert!(matches!(err, AuthError::Network { service: "login.live.com", .. }), "{err:?}");
    h.fake.set_down(false);
    // The retry shows the same code again instead of asking for a new one.
    let (rx, handle) = h.start(&login_key());
    assert_eq!(code_of(&rx), code);
    assert!(h.fake.approve(&code));
    assert_eq!(handle.join().expect("thread").expect("signed in").gamertag, "Claw Fake");
    assert_eq!(h.fake.count("/oauth20_connect.srf"), 1);
}

#[test]
fn unreachable_services_are_a_network_error() {
    let h = Harness::new("unreachable", FakeConfig::default());
    let closed = std::net::TcpListener::bind("127.0.0.1:0").expect("bind").local_addr().expect("addr");
    let h = h.with_auth(|c| c.endpoints = Endpoints::with_base(&format!("http://{closed}")));
    let err = h.silent(&login_key()).expect_err("nothing listens");
    assert!(matches!(err, AuthError::Network { .. }), "{err:?}");
    // The device token is the first request of a fresh sign-in.
    assert_eq!(err.to_string(), "cannot reach device.auth.xboxlive.com: connection refused");
}

#[test]
fn accounts_that_cannot_play_fail_with_the_reason() {
    let h = Harness::new("nominecraft", FakeConfig { has_minecraft: false, ..FakeConfig::default() });
    let (rx, handle) = h.start(&login_key());
    h.fake.approve(&code_of(&rx));
    let err = handle.join().expect("thread").expect_err("no Minecraft");
    assert!(matches!(err, AuthError::NoMinecraft(_)), "{err:?}");
    assert!(err.to_string().contains("own Minecraft"), "{err}");
    // The Microsoft sign-in itself is kept: fixing the account needs no new code.
    assert!(h.cache().msa.is_some());

    let h = Harness::new("noxbox", FakeConfig { has_xbox_profile: false, ..FakeConfig::default() });
    let (rx, handle) = h.start(&login_key());
    h.fake.approve(&code_of(&rx));
    let err = handle.join().expect("thread").expect_err("no Xbox profile");
    assert!(
        matches!(err, AuthError::Xbox(ref m) if m.contains("no Xbox profile") && m.contains("2148916233")),
        "{err:?}"
    );
}

#[test]
fn a_cancelled_wait_ends_promptly() {
    let h = Harness::new("cancel", FakeConfig::default());
    let cancel = Arc::new(AtomicBool::new(false));
    let (auth, c, key) = (h.auth.clone(), cancel.clone(), login_key());
    let (tx, rx) = channel();
    let handle = std::thread::spawn(move || auth.sign_in(&key, true, &mut |p| drop(tx.send(p.clone())), &c));
    code_of(&rx);
    cancel.store(true, std::sync::atomic::Ordering::Relaxed);
    assert_eq!(handle.join().expect("thread").expect_err("cancelled"), AuthError::Cancelled);
}

#[test]
fn a_corrupt_cache_means_signing_in_again() {
    let h = Harness::new("corrupt", FakeConfig::default());
    std::fs::create_dir_all(&h.dir).expect("dir");
    std::fs::write(h.auth.config().cache_path(), b"{\"version\": 1, \"msa\": 7").expect("write");
    let identity = h.approved(&login_key());
    assert_eq!(identity.gamertag, "Claw Fake");
    assert_eq!(h.cache().gamertag, "Claw Fake", "rewritten whole");
}
