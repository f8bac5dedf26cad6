//! The token cache: one JSON file per `USERNAME` in the auth directory, written atomically
//! (temporary file + rename) and readable by the owner only.

use std::collections::BTreeMap;
use std::io::Write as _;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::minecraft::{PlayFabSession, ServicesToken};
use crate::msa::MsaTokens;
use crate::xbox::XboxToken;
use crate::{AuthError, Secret};

/// Format version of the cache file.
const VERSION: u32 = 1;

/// Everything cached for one account. Every secret is a [`Secret`] (redacted in `Debug`).
#[derive(Clone, Serialize, Deserialize, PartialEq, Eq, Default)]
#[serde(default)]
pub struct TokenCache {
    pub version: u32,
    /// The `USERNAME` this file belongs to (the cache key).
    pub username: String,
    /// The account's gamertag and XUID, from the last sign-in.
    pub gamertag: String,
    pub xuid: String,
    /// The device's proof key (Xbox tokens are bound to it).
    pub proof_key: Option<Secret>,
    /// A stable device id for the Minecraft services session.
    pub device_id: String,
    pub msa: Option<MsaTokens>,
    pub device: Option<XboxToken>,
    pub title: Option<XboxToken>,
    pub user: Option<XboxToken>,
    /// XSTS tokens by relying party.
    pub xsts: BTreeMap<String, XboxToken>,
    pub playfab: Option<PlayFabSession>,
    pub services: Option<ServicesToken>,
    /// Unix time of the last write.
    pub updated_at: i64,
}

impl std::fmt::Debug for TokenCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TokenCache")
            .field("username", &self.username)
            .field("gamertag", &self.gamertag)
            .field("xuid", &self.xuid)
            .field("signed_in", &self.msa.is_some())
            .finish_non_exhaustive()
    }
}

impl TokenCache {
    pub fn new(username: &str) -> Self {
        Self { version: VERSION, username: username.to_owned(), ..Self::default() }
    }

    /// Forgets every token of the account (keeping the device identity).
    pub fn sign_out(&mut self) {
        let keep = Self {
            version: VERSION,
            username: std::mem::take(&mut self.username),
            proof_key: self.proof_key.take(),
            device_id: std::mem::take(&mut self.device_id),
            ..Self::default()
        };
        *self = keep;
    }
}

/// The platform's cache directory for clawcraft's tokens: `$XDG_CACHE_HOME` or `~/.cache` on
/// Linux, `~/Library/Caches` on macOS, `%LOCALAPPDATA%` on Windows; `./.clawcraft-auth` if none.
pub fn default_dir() -> PathBuf {
    let env = |k: &str| std::env::var_os(k).filter(|v| !v.is_empty()).map(PathBuf::from);
    let base = if cfg!(windows) {
        env("LOCALAPPDATA")
    } else if cfg!(target_os = "macos") {
        env("HOME").map(|h| h.join("Library/Caches"))
    } else {
        env("XDG_CACHE_HOME").or_else(|| env("HOME").map(|h| h.join(".cache")))
    };
    base.map_or_else(|| PathBuf::from(".clawcraft-auth"), |b| b.join("clawcraft").join("auth"))
}

/// The cache file of `username`: a readable, file-name-safe form of the name plus a short hash
/// of the exact name (so `Bot A` and `Bot_A` never share a file).
pub fn cache_path(dir: &Path, username: &str) -> PathBuf {
    let safe: String = username
        .chars()
        .take(32)
        .map(|c| if c.is_ascii_alphanumeric() || c == '-' || c == '_' { c } else { '_' })
        .collect();
    let hash = Sha256::digest(username.as_bytes());
    let short: String = hash.iter().take(4).map(|b| format!("{b:02x}")).collect();
    dir.join(format!("xbox-{safe}-{short}.json"))
}

fn cache_error(path: &Path, e: impl std::fmt::Display) -> AuthError {
    AuthError::Cache { path: path.display().to_string(), detail: e.to_string() }
}

/// Reads a cache file; `None` if it does not exist.
pub fn load(path: &Path) -> Result<Option<TokenCache>, AuthError> {
    match std::fs::read(path) {
        Ok(bytes) => {
            serde_json::from_slice(&bytes).map(Some).map_err(|e| cache_error(path, format!("unreadable ({e})")))
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(cache_error(path, e)),
    }
}

/// Writes `cache` atomically with owner-only permissions (directory 0700, file 0600 on Unix).
pub fn save(path: &Path, cache: &TokenCache) -> Result<(), AuthError> {
    let dir = path.parent().ok_or_else(|| cache_error(path, "no parent directory"))?;
    create_private_dir(dir).map_err(|e| cache_error(dir, e))?;
    let bytes = serde_json::to_vec_pretty(cache).map_err(|e| cache_error(path, e))?;
    let tmp = path.with_extension(format!("tmp-{}", std::process::id()));
    let written = (|| {
        let mut file = private_file(&tmp)?;
        file.write_all(&bytes)?;
        file.sync_all()?;
        std::fs::rename(&tmp, path)
    })();
    if let Err(e) = written {
        let _ = std::fs::remove_file(&tmp);
        return Err(cache_error(path, e));
    }
    Ok(())
}

/// Deletes `username`'s cache file; false if there was none.
pub fn remove(path: &Path) -> Result<bool, AuthError> {
    match std::fs::remove_file(path) {
        Ok(()) => Ok(true),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(false),
        Err(e) => Err(cache_error(path, e)),
    }
}

/// Every readable cache file in `dir`, sorted by path.
pub fn list(dir: &Path) -> Vec<(PathBuf, TokenCache)> {
    let Ok(entries) = std::fs::read_dir(dir) else { return Vec::new() };
    let mut out: Vec<(PathBuf, TokenCache)> = entries
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| {
            let name = p.file_name().and_then(|n| n.to_str()).unwrap_or_default();
            name.starts_with("xbox-") && name.ends_with(".json")
        })
        .filter_map(|p| load(&p).ok().flatten().map(|c| (p, c)))
        .collect();
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out
}

#[cfg(unix)]
fn create_private_dir(dir: &Path) -> std::io::Result<()> {
    use std::os::unix::fs::DirBuilderExt as _;
    if dir.is_dir() {
        return Ok(());
    }
    std::fs::DirBuilder::new().recursive(true).mode(0o700).create(dir)
}

#[cfg(not(unix))]
fn create_private_dir(dir: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)
}

#[cfg(unix)]
fn private_file(path: &Path) -> std::io::Result<std::fs::File> {
    use std::os::unix::fs::OpenOptionsExt as _;
    std::fs::OpenOptions::new().write(true).create(true).truncate(true).mode(0o600).open(path)
}

#[cfg(not(unix))]
fn private_file(path: &Path) -> std::io::Result<std::fs::File> {
    std::fs::OpenOptions::new().write(true).create(true).truncate(true).open(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn temp_dir(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("clawcraft-store-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        d
    }

    #[test]
    fn names_are_safe_distinct_and_stable() {
        let dir = Path::new("/x");
        let a = cache_path(dir, "Bot A");
        assert_eq!(a, cache_path(dir, "Bot A"));
        assert_ne!(a, cache_path(dir, "Bot_A"));
        let name = cache_path(dir, "../../etc/passwd").file_name().map(|n| n.to_string_lossy().into_owned());
        assert!(name.is_some_and(|n| n.starts_with("xbox-______etc_passwd-") && !n.contains('/')));
    }

    #[test]
    fn save_is_atomic_private_and_round_trips() {
        let dir = temp_dir("save").join("nested");
        let path = cache_path(&dir, "ClawBot");
        assert_eq!(load(&path).expect("missing is fine"), None);
        let mut cache = TokenCache::new("ClawBot");
        cache.gamertag = "Claw Bot".into();
        cache.xsts.insert("rp".into(), XboxToken { token: Secret("t0k".into()), not_after: 5, ..Default::default() });
        save(&path, &cache).expect("save");
        assert_eq!(load(&path).expect("load"), Some(cache.clone()));
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt as _;
            let mode = |p: &Path| std::fs::metadata(p).expect("meta").permissions().mode() & 0o777;
            assert_eq!(mode(&path), 0o600);
            assert_eq!(mode(&dir), 0o700);
        }
        // No temporary file left behind; the listing finds the account.
        let names: Vec<_> =
            std::fs::read_dir(&dir).expect("dir").filter_map(Result::ok).map(|e| e.file_name()).collect();
        assert_eq!(names.len(), 1, "{names:?}");
        assert_eq!(list(&dir).len(), 1);
        assert!(!format!("{cache:?}").contains("t0k"), "Debug never shows tokens");
        std::fs::write(&path, b"{not json").expect("corrupt");
        assert!(matches!(load(&path), Err(AuthError::Cache { .. })));
        assert!(remove(&path).expect("remove"));
        assert!(!remove(&path).expect("remove again"));
        let _ = std::fs::remove_dir_all(dir.parent().expect("parent"));
    }
}
