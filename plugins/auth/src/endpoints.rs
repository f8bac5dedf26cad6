//! Where each service lives. Every URL is configurable so tests can point the whole flow at a
//! loopback fake ([`Endpoints::with_base`]); the defaults are the public services a Bedrock
//! client talks to.

/// Base URLs (scheme + host, no trailing slash) of the services in the sign-in chain. Paths are
/// fixed by the services and appended by the flow.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Endpoints {
    /// Microsoft account (Live) OAuth: `/oauth20_connect.srf`, `/oauth20_token.srf`.
    pub live: String,
    /// Xbox device tokens: `/device/authenticate`.
    pub xbox_device: String,
    /// Xbox title tokens: `/title/authenticate`.
    pub xbox_title: String,
    /// Xbox user tokens: `/user/authenticate`.
    pub xbox_user: String,
    /// XSTS: `/xsts/authorize`.
    pub xsts: String,
    /// PlayFab title 20CA2: `/Client/LoginWithXbox`.
    pub playfab: String,
    /// Minecraft's certificate chain service: `/authentication`.
    pub minecraft: String,
    /// Minecraft services authorization (session and OIDC multiplayer token): `/api/v1.0/…`.
    pub franchise: String,
}

impl Default for Endpoints {
    fn default() -> Self {
        Self {
            live: "https://login.live.com".into(),
            xbox_device: "https://device.auth.xboxlive.com".into(),
            xbox_title: "https://title.auth.xboxlive.com".into(),
            xbox_user: "https://user.auth.xboxlive.com".into(),
            xsts: "https://xsts.auth.xboxlive.com".into(),
            playfab: "https://20ca2.playfabapi.com".into(),
            minecraft: "https://multiplayer.minecraft.net".into(),
            franchise: "https://authorization.franchise.minecraft-services.net".into(),
        }
    }
}

impl Endpoints {
    /// Every service at one base URL (their paths do not collide), e.g. a loopback fake.
    pub fn with_base(base: &str) -> Self {
        let base = base.trim_end_matches('/').to_owned();
        Self {
            live: base.clone(),
            xbox_device: base.clone(),
            xbox_title: base.clone(),
            xbox_user: base.clone(),
            xsts: base.clone(),
            playfab: base.clone(),
            minecraft: base.clone(),
            franchise: base,
        }
    }
}

/// XSTS relying party of Minecraft's certificate chain service.
pub const RP_MINECRAFT: &str = "https://multiplayer.minecraft.net/";
/// XSTS relying party of Minecraft's PlayFab title (20CA2).
pub const RP_PLAYFAB: &str = "https://b980a380.minecraft.playfabapi.com/";
/// Relying party of user, device and title tokens.
pub const RP_XBOX_AUTH: &str = "http://auth.xboxlive.com";
/// Minecraft for Android's Microsoft account client (title) id; its device type is `Android`,
/// matching the Login's DeviceOS 1.
pub const ANDROID_CLIENT_ID: &str = "0000000048183522";
/// The scope a Live device code asks for: an RPS ticket for Xbox user authentication.
pub const XBOX_SCOPE: &str = "service::user.auth.xboxlive.com::MBI_SSL";
/// Minecraft's PlayFab title.
pub const PLAYFAB_TITLE_ID: &str = "20CA2";
/// `aud` of the OIDC multiplayer token.
pub const MULTIPLAYER_AUDIENCE: &str = "api://auth-minecraft-services/multiplayer";
