//! Online mode (`OFFLINE=false`): before each connection the bot signs in with Xbox Live on a
//! thread of its own (the bot stays [`Lifecycle::Connecting`], the game loop keeps ticking), then
//! connects with the certificate chain and multiplayer token bound to that connection's key.
//!
//! A human may be needed once: `auth_required{url,code,expiresIn}` (also printed on stderr)
//! until the code is entered, `auth_succeeded{gamertag,xuid}` after. A failed sign-in ends like a
//! refused connection: `disconnected{reason}`, then a reconnect if `CLAWCRAFT_RECONNECT` is on
//! (the [`Authenticator`] outlives attempts, so a retry reuses a pending code and never asks for
//! a new one right after a declined or expired one).

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use bevy_app::{App, Plugin};
use bevy_ecs::prelude::*;
use clawcraft_auth::{AuthError, AuthProgress, Authenticator, OnlineIdentity};
use clawcraft_core::{
    AgentEvent, AppEventExt, AppWorkExt, CommandWaker, Lifecycle, LocalBot, TickSet, TickWork, Xuid, gate::any_bot,
};
use clawcraft_network::udp::{ConnectParams, UdpTransport};
use clawcraft_network::{Connection, ConnectionClosed};
use clawcraft_protocol::codec::Protocol;
use clawcraft_protocol::login::{LoginKeys, OnlineLogin};
use crossbeam_channel::{Receiver, Sender};
use schemars::JsonSchema;
use serde::Serialize;

/// First protocol whose Login carries the OIDC multiplayer token (1.26.10).
const MULTIPLAYER_TOKEN_PROTOCOL: i32 = 944;

/// `auth_required`: a human must enter a Microsoft device code.
#[derive(Message, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct AuthRequired {
    #[serde(skip)]
    pub bot: Entity,
    /// Where to enter the code (`https://www.microsoft.com/link`).
    pub url: String,
    /// The code, e.g. `ABCD1234`.
    pub code: String,
    /// Seconds left to enter it.
    pub expires_in: u64,
}
clawcraft_core::event_kind!(
    AuthRequired,
    "auth_required",
    "Online mode: a human must open `url` and enter `code` (Microsoft device code) within `expiresIn` seconds"
);

/// `auth_succeeded`: signed in; the bot connects as this gamertag.
#[derive(Message, Clone, Serialize, JsonSchema)]
pub struct AuthSucceeded {
    #[serde(skip)]
    pub bot: Entity,
    /// The in-game name.
    pub gamertag: String,
    /// The Xbox user id (for allowlists).
    pub xuid: String,
}
clawcraft_core::event_kind!(
    AuthSucceeded,
    "auth_succeeded",
    "Online mode: signed in to Xbox Live; the bot joins as `gamertag`"
);

/// What the sign-in thread reports.
enum SignInMessage {
    Progress(AuthProgress),
    Done(Result<OnlineIdentity, AuthError>),
}

/// On a bot whose sign-in is running; replaced by its [`Connection`] when it succeeds. Dropping
/// it (despawn, shutdown) stops a wait for the device code.
#[derive(Component)]
pub struct SigningIn {
    rx: Receiver<SignInMessage>,
    cancel: Arc<AtomicBool>,
    keys: LoginKeys,
    params: ConnectParams,
    server: SocketAddr,
    protocol: Arc<Protocol>,
}

impl Drop for SigningIn {
    fn drop(&mut self) {
        self.cancel.store(true, Ordering::Relaxed);
    }
}

/// Registers the events and polls running sign-ins (a no-op while no bot signs in).
pub struct OnlineAuthPlugin;

impl Plugin for OnlineAuthPlugin {
    fn build(&self, app: &mut App) {
        app.add_agent_event::<AuthRequired>()
            .add_agent_event::<AuthSucceeded>()
            .add_systems(TickWork, poll_sign_in.in_set(TickSet::HandlePackets))
            // Sign-ins run on a thread, which wakes the runner with each message (so its tick
            // is busy); a tick reads one message per bot, so more waiting keep the ticks busy.
            .add_pending_work("sign-in messages waiting", any_bot::<&SigningIn>(|s| !s.rx.is_empty()));
    }
}

/// Signs bot `bot` in first, on a thread, with a fresh login key; it connects when signed in.
pub fn start_signing_in(
    world: &mut World,
    bot: Entity,
    auth: &Arc<Authenticator>,
    server: SocketAddr,
    params: ConnectParams,
    protocol: Arc<Protocol>,
) -> std::io::Result<()> {
    let keys = LoginKeys::generate();
    let (tx, rx) = crossbeam_channel::unbounded();
    let cancel = Arc::new(AtomicBool::new(false));
    // The version is picked from the server's pong once connecting; every supported version
    // (and the forced or default one `protocol` holds) carries the multiplayer token.
    let want_token = protocol.info().protocol >= MULTIPLAYER_TOKEN_PROTOCOL;
    let (authenticator, public_key, thread_cancel) = (auth.clone(), keys.public_key_b64().to_owned(), cancel.clone());
    let waker = world.get_resource::<CommandWaker>().cloned();
    std::thread::Builder::new().name("clawcraft-auth".into()).spawn(move || {
        sign_in_thread(&authenticator, &public_key, want_token, &tx, waker.as_ref(), &thread_cancel);
    })?;
    world.entity_mut(bot).insert(SigningIn { rx, cancel, keys, params, server, protocol });
    Ok(())
}

fn sign_in_thread(
    auth: &Authenticator,
    public_key: &str,
    want_token: bool,
    tx: &Sender<SignInMessage>,
    waker: Option<&CommandWaker>,
    cancel: &AtomicBool,
) {
    let send = |message| {
        let _ = tx.send(message);
        if let Some(waker) = waker {
            waker.wake();
        }
    };
    let mut progress = |p: &AuthProgress| send(SignInMessage::Progress(p.clone()));
    let result = auth.sign_in(public_key, want_token, &mut progress, cancel);
    send(SignInMessage::Done(result));
}

/// Relays sign-in progress as events; connects a signed-in bot; ends a failed one like a
/// refused connection.
fn poll_sign_in(
    mut commands: Commands,
    mut bots: Query<(Entity, &SigningIn, &mut Lifecycle)>,
    mut events: MessageWriter<AgentEvent>,
    mut closed: MessageWriter<ConnectionClosed>,
) {
    for (bot, signing, mut lifecycle) in &mut bots {
        let Ok(message) = signing.rx.try_recv() else { continue };
        let failure = match message {
            SignInMessage::Progress(AuthProgress::DeviceCode { url, code, expires_in }) => {
                // For a human watching stderr; the agent gets the event.
                eprintln!(
                    "clawcraft: sign in the bot's Microsoft account: open {url} and enter the code {code} (expires in {} min)",
                    expires_in.div_ceil(60)
                );
                events.write(AgentEvent::new(AuthRequired { bot, url, code, expires_in }));
                None
            }
            SignInMessage::Done(Ok(identity)) => {
                tracing::info!(gamertag = %identity.gamertag, xuid = %identity.xuid, "signed in to Xbox Live");
                events.write(AgentEvent::new(AuthSucceeded {
                    bot,
                    gamertag: identity.gamertag.clone(),
                    xuid: identity.xuid.clone(),
                }));
                let params = ConnectParams {
                    username: identity.gamertag.clone(),
                    keys: Some(signing.keys.clone()),
                    online: Some(OnlineLogin { chain: identity.chain, token: identity.multiplayer_token }),
                    ..signing.params.clone()
                };
                match UdpTransport::connect(signing.server, params) {
                    Ok(transport) => {
                        // Re-inserted (not edited) so the bot's name is recorded anew.
                        commands.entity(bot).remove::<SigningIn>().insert((
                            LocalBot { username: identity.gamertag },
                            Xuid(identity.xuid),
                            Connection::new(Box::new(transport), signing.protocol.clone()),
                        ));
                        None
                    }
                    Err(e) => Some(format!("cannot open a socket to {}: {e}", signing.server)),
                }
            }
            SignInMessage::Done(Err(e)) => Some(format!("Xbox Live sign-in failed: {e}")),
        };
        if let Some(reason) = failure {
            tracing::info!(%reason, "not connecting");
            *lifecycle = Lifecycle::Disconnected;
            events.write(AgentEvent::new(clawcraft_core::builtin::Disconnected { bot, reason: reason.clone() }));
            closed.write(ConnectionClosed { bot, reason, error: true });
            commands.entity(bot).remove::<SigningIn>();
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::sim::Simulation;

    #[test]
    fn auth_events_are_in_the_schema_with_clawcrafts_fields() {
        let mut sim = Simulation::new();
        let schema = sim.command(r#"{"action":"schema"}"#);
        let events = schema["events"].as_array().expect("events");
        let fields = |name: &str| {
            let e = events.iter().find(|e| e["name"] == name).unwrap_or_else(|| panic!("{name} registered"));
            let props = e["fields"]["properties"].as_object().expect("properties").clone();
            let mut keys: Vec<String> = props.keys().cloned().collect();
            keys.sort();
            (keys, props)
        };
        let (keys, props) = fields("auth_required");
        assert_eq!(keys, ["code", "expiresIn", "url"]);
        assert_eq!(props["url"]["type"], "string");
        assert_eq!(props["code"]["type"], "string");
        assert_eq!(fields("auth_succeeded").0, ["gamertag", "xuid"]);
    }
}
