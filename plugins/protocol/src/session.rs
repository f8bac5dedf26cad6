//! The sans-IO Bedrock connection handshake above RakNet, up to "logged in".
//!
//! The session only deals in RakNet *messages* (payloads starting with
//! `0xFE`): the caller feeds it what RakNet delivered and sends what it returns.
//!
//! ```text
//! C→S RequestNetworkSettings          uncompressed, no algorithm byte
//! S→C NetworkSettings                 → enable compression
//! C→S Login                           compressed
//! S→C ServerToClientHandshake         → derive key, enable encryption
//! C→S ClientToServerHandshake         first encrypted batch
//! S→C PlayStatus …                    forwarded to the app
//! ```
//! The login-layer packets go through the same data-driven codec (and typed views) as every
//! other packet, with the ids and layouts of the connection's protocol version; everything else
//! is opaque here and goes to the app.

use std::sync::Arc;

use thiserror::Error;

use crate::codec::{CodecError, Packet, Protocol, peek_packet_id};
use crate::framing::{Compression, FrameError, GAME_PACKET_ID, GameFramer};
use crate::io::WriteExt;
use crate::login::{LoginError, LoginKeys, LoginParams, derive_shared_key, login_tokens};
use crate::packets::{
    ClientToServerHandshake, Disconnect, Login, LoginTokens, NetworkSettings, PlayStatus, RequestNetworkSettings,
    ServerToClientHandshake,
};

/// What the caller configures for one connection.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionConfig {
    /// Player name.
    pub username: String,
    /// The protocol version to speak (its number and game version go into the login).
    pub protocol: Arc<Protocol>,
    /// `"host:port"` as dialled.
    pub server_address: String,
}

/// Where the handshake is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SessionState {
    /// RequestNetworkSettings sent (or about to be); waiting for NetworkSettings.
    AwaitingNetworkSettings,
    /// Login sent; waiting for ServerToClientHandshake (or a PlayStatus if the server skips encryption).
    AwaitingHandshake,
    /// Encryption is on, or the server skipped it: app packets flow.
    LoggedIn,
}

/// Result of feeding one message to the session.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SessionOutput {
    /// RakNet messages (each starting with `0xFE`) to send, in order.
    pub to_send: Vec<Vec<u8>>,
    /// Game packet bodies (varu32 header first) for the app, in arrival order.
    pub packets: Vec<Vec<u8>>,
    /// How the server answered the login, in the message that told (the packet that told is
    /// among `packets` too).
    pub login: Option<LoginOutcome>,
}

/// The server's answer to the login.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LoginOutcome {
    /// PlayStatus `login_success`.
    Accepted,
    /// A Disconnect (or a failing PlayStatus) before `login_success`.
    Refused {
        /// The server refused the login's identity (not its version or a full server): another
        /// login shape may be accepted. See [`refuses_identity`].
        identity: bool,
        /// The server's reason (its message, else the reason's name).
        reason: String,
    },
}

/// Whether a Disconnect before `login_success` refuses the login's identity (its certificate,
/// token or signature) rather than the client's version, a full server or a ban: by the reason's
/// name, else by the words of the message.
pub fn refuses_identity(reason: &str, message: &str) -> bool {
    const IDENTITY_REASONS: [&str; 7] = [
        "not_authenticated",
        "invalid_player",
        "login_packet_no_request",
        "login_packet_no_cert",
        "missing_client",
        "empty_auth_from_discovery",
        "expired_auth_from_discovery",
    ];
    const NOT_IDENTITY: [&str; 6] = ["outdated", "version", "server_full", "server is full", "banned", "deny_listed"];
    const IDENTITY_WORDS: [&str; 10] = [
        "certificate",
        "extradata",
        "chain",
        "token",
        "identity",
        "authenticat",
        "signature",
        "jwt",
        "offline",
        "login",
    ];
    if IDENTITY_REASONS.contains(&reason) {
        return true;
    }
    let text = format!("{reason} {message}").to_lowercase();
    !NOT_IDENTITY.iter().any(|w| text.contains(w)) && IDENTITY_WORDS.iter().any(|w| text.contains(w))
}

/// Why the session cannot continue. Every variant is fatal: the caller should disconnect.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum SessionError {
    /// The batch could not be decrypted, verified, decompressed or split (includes bad checksums).
    #[error("bad game batch: {0}")]
    Frame(#[from] FrameError),
    /// Building the login or processing the server's handshake JWT failed.
    #[error("login failed: {0}")]
    Login(#[from] LoginError),
    /// A login-layer packet did not decode (or ours did not encode) with the protocol version.
    #[error("malformed login-layer packet: {0}")]
    Codec(#[from] CodecError),
    /// NetworkSettings named a compression algorithm we do not know.
    #[error("NetworkSettings asks for unknown compression algorithm {0:?}")]
    UnknownCompression(String),
    /// An earlier error already ended the session.
    #[error("session already failed; disconnect")]
    Failed,
    /// The app tried to send before the handshake finished.
    #[error("cannot send game packets before login completes (state {0:?})")]
    NotLoggedIn(SessionState),
}

/// Client side of one Bedrock connection above RakNet.
#[derive(Debug, Clone)]
pub struct ClientSession {
    /// Everything the Login needs; built from [`SessionConfig`] with bot defaults.
    params: LoginParams,
    protocol: Arc<Protocol>,
    keys: LoginKeys,
    framer: GameFramer,
    state: SessionState,
    /// Set by the first error: the stream state (ciphers, counters) can no longer be trusted.
    failed: bool,
    /// The server answered the login (accepted or refused): later packets are the app's alone.
    answered: bool,
}

impl ClientSession {
    /// A new session with a fresh P-384 key pair.
    pub fn new(config: SessionConfig) -> Self {
        Self::with_keys(config, LoginKeys::generate())
    }

    /// A new session using the given key pair (tests, or reusing a key).
    pub fn with_keys(config: SessionConfig, keys: LoginKeys) -> Self {
        let info = config.protocol.info();
        let params = LoginParams::new(config.username, info.protocol, info.game_version, config.server_address);
        Self {
            params,
            protocol: config.protocol,
            keys,
            framer: GameFramer::new(),
            state: SessionState::AwaitingNetworkSettings,
            failed: false,
            answered: false,
        }
    }

    /// The RequestNetworkSettings message: the first thing to send once RakNet is connected.
    /// It is uncompressed and has no algorithm byte (compression is not negotiated yet).
    pub fn start(&mut self) -> Result<Vec<u8>, SessionError> {
        let body = self.protocol.encode(&RequestNetworkSettings { client_protocol: self.params.protocol_version })?;
        let mut msg = vec![GAME_PACKET_ID];
        msg.put_var_bytes(&body);
        Ok(msg)
    }

    /// Feeds one RakNet message received from the server.
    ///
    /// Any error is fatal: the session refuses further messages ([`SessionError::Failed`]) and
    /// the caller should disconnect.
    pub fn handle_message(&mut self, msg: &[u8]) -> Result<SessionOutput, SessionError> {
        if self.failed {
            return Err(SessionError::Failed);
        }
        let result = self.process_message(msg);
        if let Err(err) = &result {
            tracing::warn!(%err, "session failed");
            self.failed = true;
        }
        result
    }

    /// Packs app packets (bodies with their varu32 header) into one message to send.
    pub fn encode_batch(&mut self, packets: &[Vec<u8>]) -> Result<Vec<u8>, SessionError> {
        self.encode_batch_into(packets, Vec::new())
    }

    /// Like [`ClientSession::encode_batch`], building the message in `buf` (a spare buffer).
    pub fn encode_batch_into(&mut self, packets: &[Vec<u8>], buf: Vec<u8>) -> Result<Vec<u8>, SessionError> {
        if self.failed {
            return Err(SessionError::Failed);
        }
        if self.state != SessionState::LoggedIn {
            return Err(SessionError::NotLoggedIn(self.state));
        }
        Ok(self.framer.encode_batch_into(packets, buf)?)
    }

    /// Login fields beyond [`SessionConfig`] (DeviceOS, input mode, language, …). Changes take
    /// effect only if made before NetworkSettings arrives, when the Login is built.
    pub fn login_params_mut(&mut self) -> &mut LoginParams {
        &mut self.params
    }

    /// Where the handshake is.
    pub fn state(&self) -> SessionState {
        self.state
    }

    /// The per-connection key pair (its public half is the `cpk` the server knows us by).
    pub fn keys(&self) -> &LoginKeys {
        &self.keys
    }

    /// Decodes one message and dispatches its packets in order.
    fn process_message(&mut self, msg: &[u8]) -> Result<SessionOutput, SessionError> {
        let mut out = SessionOutput::default();
        for packet in self.framer.decode_batch(msg)? {
            self.handle_packet(packet, &mut out)?;
        }
        Ok(out)
    }

    /// Whether `id` is packet `P` in this session's protocol version.
    fn is<P: Packet>(&self, id: u32) -> bool {
        self.protocol.packet_id(P::NAME) == Some(id)
    }

    /// Notes the server's answer to the login (the first PlayStatus, or a Disconnect before it).
    fn note_login_answer(&mut self, id: u32, packet: &[u8], out: &mut SessionOutput) {
        if self.answered || self.state == SessionState::AwaitingNetworkSettings {
            return;
        }
        let outcome = if self.is::<PlayStatus>(id) {
            match self.protocol.decode_as::<PlayStatus>(packet) {
                Ok(status) if status.status == "login_success" => LoginOutcome::Accepted,
                Ok(status) => LoginOutcome::Refused { identity: false, reason: status.status },
                Err(_) => return,
            }
        } else if self.is::<Disconnect>(id) {
            match self.protocol.decode_as::<Disconnect>(packet) {
                Ok(d) => LoginOutcome::Refused {
                    identity: refuses_identity(&d.reason, &d.message),
                    reason: if d.message.is_empty() { d.reason } else { d.message },
                },
                Err(_) => LoginOutcome::Refused { identity: false, reason: "disconnected by the server".to_owned() },
            }
        } else {
            return;
        };
        self.answered = true;
        out.login = Some(outcome);
    }

    /// Consumes login-layer packets and forwards the rest to the app.
    fn handle_packet(&mut self, packet: Vec<u8>, out: &mut SessionOutput) -> Result<(), SessionError> {
        let id = peek_packet_id(&packet)?;
        self.note_login_answer(id, &packet, out);
        match self.state {
            SessionState::AwaitingNetworkSettings if self.is::<NetworkSettings>(id) => {
                self.on_network_settings(&packet, out)?;
            }
            SessionState::AwaitingHandshake if self.is::<ServerToClientHandshake>(id) => {
                self.on_server_handshake(&packet, out)?;
            }
            SessionState::AwaitingHandshake if self.is::<PlayStatus>(id) => {
                // bedrock-protocol's rule: a PlayStatus before the handshake means the server
                // skipped encryption. The app still gets it (login_success or a failure code).
                tracing::info!("server skipped encryption; logged in without it");
                self.state = SessionState::LoggedIn;
                out.packets.push(packet);
            }
            _ => out.packets.push(packet),
        }
        Ok(())
    }

    /// NetworkSettings → compression on, send Login.
    fn on_network_settings(&mut self, packet: &[u8], out: &mut SessionOutput) -> Result<(), SessionError> {
        let settings: NetworkSettings = self.protocol.decode_as(packet)?;
        let algorithm = &settings.compression_algorithm;
        // The mapper names deflate and snappy; "none" (0xffff) arrives as its number.
        let code = match algorithm.as_str() {
            "deflate" => Some(0),
            "snappy" => Some(1),
            raw => raw.parse::<u16>().ok(),
        };
        let compression = code
            .and_then(Compression::from_network_settings)
            .ok_or_else(|| SessionError::UnknownCompression(algorithm.clone()))?;
        let threshold = settings.compression_threshold;
        tracing::debug!(?compression, threshold, "network settings received");
        self.framer.enable_compression(compression, threshold);

        let (identity, client) = login_tokens(&self.params, &self.keys)?;
        let login = Login { protocol_version: self.params.protocol_version, tokens: LoginTokens { identity, client } };
        let body = self.protocol.encode(&login)?;
        out.to_send.push(self.framer.encode_batch(&[body])?);
        self.state = SessionState::AwaitingHandshake;
        Ok(())
    }

    /// ServerToClientHandshake: derive the key, turn encryption on, answer ClientToServerHandshake.
    fn on_server_handshake(&mut self, packet: &[u8], out: &mut SessionOutput) -> Result<(), SessionError> {
        let handshake: ServerToClientHandshake = self.protocol.decode_as(packet)?;
        let key = derive_shared_key(&self.keys, &handshake.token)?;
        let reply = self.protocol.encode(&ClientToServerHandshake {})?;
        self.framer.enable_encryption(key);
        // Encoded after enabling encryption: it must be the first encrypted batch (send counter 0).
        out.to_send.push(self.framer.encode_batch(&[reply])?);
        self.state = SessionState::LoggedIn;
        tracing::debug!("encryption enabled");
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::framing::write_batch;
    use crate::io::Reader;
    use crate::login::{decode_jwt, sign_jwt};
    use base64::Engine as _;
    use base64::engine::general_purpose::STANDARD;
    use p384::ecdsa::SigningKey;
    use rand::{Rng, SeedableRng, rngs::StdRng};
    use serde_json::{Value, json};
    use sha2::{Digest, Sha256};

    // The test server encodes its packets by hand, independently of the codec.
    const PLAY_STATUS: u32 = 0x02;
    const SERVER_TO_CLIENT_HANDSHAKE: u32 = 0x03;
    const NETWORK_SETTINGS: u32 = 0x8F;

    fn config() -> SessionConfig {
        SessionConfig {
            username: "ClawBot".to_owned(),
            protocol: Arc::new(Protocol::load("1.26.45").expect("bundled")),
            server_address: "127.0.0.1:19132".to_owned(),
        }
    }

    /// An uncompressed, unencrypted batch (what the server sends before NetworkSettings).
    fn plain_message(packets: &[Vec<u8>]) -> Vec<u8> {
        let mut msg = vec![GAME_PACKET_ID];
        msg.extend(write_batch(packets).expect("batch"));
        msg
    }

    fn network_settings(threshold: u16, algorithm: u16) -> Vec<u8> {
        let mut p = Vec::new();
        p.put_var_u32(NETWORK_SETTINGS);
        p.put_u16_le(threshold);
        p.put_u16_le(algorithm);
        p.put_bool(false);
        p.put_u8(0);
        p.put_f32_le(0.0);
        p
    }

    fn play_status(status: i32) -> Vec<u8> {
        let mut p = Vec::new();
        p.put_var_u32(PLAY_STATUS);
        p.put_i32_be(status);
        p
    }

    /// A tiny server built from the same framer/encryption pieces, with its own P-384 key.
    struct TestServer {
        signing: SigningKey,
        keys: LoginKeys,
        framer: GameFramer,
        salt: [u8; 16],
    }

    impl TestServer {
        fn new() -> Self {
            let signing = SigningKey::random(&mut rand::rngs::OsRng);
            let keys = LoginKeys::from_signing_key(signing.clone());
            Self { signing, keys, framer: GameFramer::new(), salt: [0x42; 16] }
        }

        /// Checks RequestNetworkSettings and answers NetworkSettings (uncompressed), then turns compression on.
        fn on_request(&mut self, msg: &[u8], algorithm: u16) -> Vec<u8> {
            let packets = self.framer.decode_batch(msg).expect("request batch");
            assert_eq!(packets, vec![vec![0xc1, 0x01, 0x00, 0x00, 0x08, 0x79]]);
            let reply = plain_message(&[network_settings(1, algorithm)]);
            let compression = Compression::from_network_settings(algorithm).expect("algo");
            self.framer.enable_compression(compression, 1);
            reply
        }

        /// Decodes and checks Login; returns the client's `cpk` public key.
        fn on_login(&mut self, msg: &[u8]) -> p384::PublicKey {
            let packets = self.framer.decode_batch(msg).expect("login batch");
            assert_eq!(packets.len(), 1);
            let mut r = Reader::new(&packets[0]);
            assert_eq!(r.var_u32(), Ok(0x01));
            assert_eq!(r.i32_be(), Ok(2169));
            let mut req = Reader::new(r.var_bytes().expect("request"));
            assert!(r.is_empty());
            let n = req.i32_le().expect("len") as usize;
            let identity: Value = serde_json::from_slice(req.bytes(n).expect("identity")).expect("json");
            let n = req.i32_le().expect("len") as usize;
            let client = std::str::from_utf8(req.bytes(n).expect("client")).expect("utf8").to_owned();
            assert!(req.is_empty());
            assert_eq!(identity["AuthenticationType"], 2);
            let token = decode_jwt(identity["Token"].as_str().expect("token")).expect("token jwt");
            let key = token.x5u_key().expect("x5u");
            token.verify(&key).expect("token signature");
            assert_eq!(token.claims["xname"], "ClawBot");
            let cpk = token.claims["cpk"].as_str().expect("cpk");
            let client = decode_jwt(&client).expect("client jwt");
            client.verify(&key).expect("client data signature");
            assert_eq!(client.claims["GameVersion"], "1.26.45");
            assert_eq!(client.claims["ServerAddress"], "127.0.0.1:19132");
            let der = STANDARD.decode(cpk).expect("cpk b64");
            p384::pkcs8::DecodePublicKey::from_public_key_der(&der).expect("cpk key")
        }

        /// Sends the handshake (compressed, unencrypted), plus `extra` packets in the same batch,
        /// then turns encryption on with the key it derived itself.
        fn handshake(&mut self, client_key: &p384::PublicKey, extra: &[Vec<u8>]) -> Vec<u8> {
            let jwt = sign_jwt(&self.keys, &json!({"salt": STANDARD.encode(self.salt)})).expect("sign");
            let mut hs = Vec::new();
            hs.put_var_u32(SERVER_TO_CLIENT_HANDSHAKE);
            hs.put_var_string(&jwt);
            let mut packets = vec![hs];
            packets.extend_from_slice(extra);
            let msg = self.framer.encode_batch(&packets).expect("handshake batch");
            let shared = p384::ecdh::diffie_hellman(self.signing.as_nonzero_scalar(), client_key.as_affine());
            let secret = shared.raw_secret_bytes();
            let key: [u8; 32] = Sha256::new().chain_update(self.salt).chain_update(secret).finalize().into();
            self.framer.enable_encryption(key);
            msg
        }
    }

    /// Drives a session through NetworkSettings, Login and the encrypted handshake.
    fn logged_in_pair(algorithm: u16) -> (ClientSession, TestServer) {
        let mut client = ClientSession::new(config());
        let mut server = TestServer::new();
        let request = client.start().expect("start");
        assert_eq!(request, [0xfe, 0x06, 0xc1, 0x01, 0x00, 0x00, 0x08, 0x79]);
        let settings = server.on_request(&request, algorithm);
        let out = client.handle_message(&settings).expect("settings");
        assert!(out.packets.is_empty());
        assert_eq!(out.to_send.len(), 1);
        assert_eq!(client.state(), SessionState::AwaitingHandshake);
        let client_key = server.on_login(&out.to_send[0]);
        let hs = server.handshake(&client_key, &[play_status(0)]);
        let out = client.handle_message(&hs).expect("handshake");
        assert_eq!(client.state(), SessionState::LoggedIn);
        // PlayStatus from the same batch as the handshake reaches the app, and says "accepted".
        assert_eq!(out.packets, vec![play_status(0)]);
        assert_eq!(out.login, Some(LoginOutcome::Accepted));
        assert_eq!(out.to_send.len(), 1);
        let reply = server.framer.decode_batch(&out.to_send[0]).expect("encrypted reply decrypts");
        assert_eq!(reply, vec![vec![0x04]]);
        (client, server)
    }

    #[test]
    fn full_handshake_against_test_server() {
        for algorithm in [0u16, 1, 0xFFFF] {
            let (mut client, mut server) = logged_in_pair(algorithm);
            // Server → client, encrypted.
            let msg = server.framer.encode_batch(&[play_status(3), vec![0x0b, 1, 2, 3]]).expect("encode");
            let out = client.handle_message(&msg).expect("encrypted batch");
            assert_eq!(out.packets, vec![play_status(3), vec![0x0b, 1, 2, 3]]);
            assert!(out.to_send.is_empty());
            // Client → server, encrypted, continuing the same stream.
            let msg = client.encode_batch(&[vec![0x81, 0x01, 0x00]]).expect("app batch");
            assert_eq!(server.framer.decode_batch(&msg).expect("decode"), vec![vec![0x81, 0x01, 0x00]]);
        }
    }

    fn disconnect(reason: u32, message: &str) -> Vec<u8> {
        let mut p = Vec::new();
        p.put_var_u32(0x05);
        p.put_var_i32(reason as i32);
        p.put_bool(false);
        p.put_var_string(message);
        p.put_var_string("");
        p
    }

    #[test]
    fn a_disconnect_before_login_success_is_a_refusal_once() {
        let mut client = ClientSession::new(config());
        let mut server = TestServer::new();
        let settings = server.on_request(&client.start().expect("start"), 0);
        let out = client.handle_message(&settings).expect("settings");
        assert_eq!(out.login, None);
        server.on_login(&out.to_send[0]);
        // SerenityJS's answer to a token-shaped offline login (reason 46 = not_authenticated).
        let message = "Your client is not authenticated. Error: Invalid offline certificate: missing extraData";
        let msg = server.framer.encode_batch(&[disconnect(46, message), disconnect(46, "again")]).expect("encode");
        let out = client.handle_message(&msg).expect("disconnect");
        assert_eq!(out.login, Some(LoginOutcome::Refused { identity: true, reason: message.to_owned() }));
        assert_eq!(out.packets.len(), 2, "the app still gets the packets");
        // A refused version is no identity refusal.
        let mut client = ClientSession::new(config());
        let settings = TestServer::new().on_request(&client.start().expect("start"), 0xFFFF);
        client.handle_message(&settings).expect("settings");
        let mut tx = GameFramer::new();
        tx.enable_compression(Compression::None, 0);
        let out = client.handle_message(&tx.encode_batch(&[play_status(1)]).expect("encode")).expect("status");
        assert!(matches!(out.login, Some(LoginOutcome::Refused { identity: false, .. })), "{:?}", out.login);
    }

    #[test]
    fn identity_refusals_by_reason_and_words() {
        assert!(refuses_identity("not_authenticated", ""));
        assert!(refuses_identity("unknown", "Server authentication error"));
        assert!(refuses_identity("unknown", "Invalid offline certificate: missing extraData"));
        assert!(!refuses_identity("outdated_client", "Outdated client! Please use the latest version"));
        assert!(!refuses_identity("server_full", ""));
        assert!(!refuses_identity("kicked", "Kicked by test peer"));
        assert!(!refuses_identity("unknown", "the server is full, login later"));
    }

    #[test]
    fn server_may_skip_encryption() {
        let mut client = ClientSession::new(config());
        let mut server = TestServer::new();
        let settings = server.on_request(&client.start().expect("start"), 0);
        let out = client.handle_message(&settings).expect("settings");
        server.on_login(&out.to_send[0]);
        let msg = server.framer.encode_batch(&[play_status(0), vec![0x06, 0]]).expect("encode");
        let out = client.handle_message(&msg).expect("play status");
        assert_eq!(client.state(), SessionState::LoggedIn);
        assert_eq!(out.packets, vec![play_status(0), vec![0x06, 0]]);
        assert!(out.to_send.is_empty());
        let msg = client.encode_batch(&[vec![0x81, 0x01, 0x00]]).expect("app batch");
        assert_eq!(server.framer.decode_batch(&msg).expect("plain"), vec![vec![0x81, 0x01, 0x00]]);
    }

    #[test]
    fn early_packets_are_forwarded_and_sending_early_is_refused() {
        let mut client = ClientSession::new(config());
        // A Disconnect (0x05) before NetworkSettings, e.g. "outdated client".
        let out = client.handle_message(&plain_message(&[vec![0x05, 0x00, 0x01]])).expect("disconnect");
        assert_eq!(out.packets, vec![vec![0x05, 0x00, 0x01]]);
        assert_eq!(client.state(), SessionState::AwaitingNetworkSettings);
        assert_eq!(
            client.encode_batch(&[vec![0x81, 0x01, 0x00]]),
            Err(SessionError::NotLoggedIn(SessionState::AwaitingNetworkSettings))
        );
    }

    #[test]
    fn header_with_subclient_bits_still_matches() {
        // Header 0x8F | (1 << 10): NetworkSettings addressed with sub-client bits set.
        let mut settings = network_settings(1, 0);
        let mut header = Vec::new();
        header.put_var_u32(NETWORK_SETTINGS | (1 << 10));
        settings.splice(0..2, header);
        let mut client = ClientSession::new(config());
        let out = client.handle_message(&plain_message(&[settings])).expect("settings");
        assert_eq!(out.to_send.len(), 1);
        assert_eq!(client.state(), SessionState::AwaitingHandshake);
    }

    #[test]
    fn login_params_can_be_adjusted_before_login() {
        let mut client = ClientSession::new(config());
        client.login_params_mut().device_os = 7;
        client.login_params_mut().input_mode = 1;
        let mut server = TestServer::new();
        let settings = server.on_request(&client.start().expect("start"), 0);
        let out = client.handle_message(&settings).expect("settings");
        let login = server.framer.decode_batch(&out.to_send[0]).expect("login");
        let mut r = Reader::new(&login[0]);
        r.var_u32().expect("header");
        r.i32_be().expect("protocol");
        let mut req = Reader::new(r.var_bytes().expect("request"));
        let n = req.i32_le().expect("len") as usize;
        req.bytes(n).expect("identity");
        let n = req.i32_le().expect("len") as usize;
        let jwt = std::str::from_utf8(req.bytes(n).expect("client")).expect("utf8");
        let claims = decode_jwt(jwt).expect("jwt").claims;
        assert_eq!(claims["DeviceOS"], 7);
        assert_eq!(claims["CurrentInputMode"], 1);
        assert_eq!(claims["DefaultInputMode"], 1);
    }

    #[test]
    fn tampered_batch_is_an_error() {
        let (mut client, mut server) = logged_in_pair(0);
        let mut msg = server.framer.encode_batch(&[play_status(3)]).expect("encode");
        let last = msg.len() - 1;
        msg[last] ^= 0x80;
        let err = client.handle_message(&msg).expect_err("tampered");
        assert!(matches!(err, SessionError::Frame(FrameError::BadChecksum { counter: 0 })), "{err}");
        assert!(err.to_string().contains("checksum"), "{err}");
    }

    #[test]
    fn malformed_login_packets_are_errors() {
        let mut client = ClientSession::new(config());
        let short = plain_message(&[vec![0x8f, 0x01, 0x01]]);
        assert!(matches!(client.handle_message(&short), Err(SessionError::Codec(_))));
        // The session refuses to continue after an error.
        assert_eq!(client.handle_message(&short), Err(SessionError::Failed));
        assert_eq!(client.encode_batch(&[vec![0x01]]), Err(SessionError::Failed));
        let mut client = ClientSession::new(config());
        let unknown = plain_message(&[network_settings(1, 7)]);
        assert_eq!(client.handle_message(&unknown), Err(SessionError::UnknownCompression("7".into())));
        // Handshake with a garbage JWT.
        let mut client = ClientSession::new(config());
        client.handle_message(&plain_message(&[network_settings(1, 0xFFFF)])).expect("settings");
        let mut hs = Vec::new();
        hs.put_var_u32(SERVER_TO_CLIENT_HANDSHAKE);
        hs.put_var_string("not.a.jwt");
        let mut tx = GameFramer::new();
        tx.enable_compression(Compression::None, 0);
        let msg = tx.encode_batch(&[hs]).expect("encode");
        assert!(matches!(client.handle_message(&msg), Err(SessionError::Login(_))));
    }

    fn mutate(rng: &mut StdRng, seed: &[u8]) -> Vec<u8> {
        let mut v = seed.to_vec();
        for _ in 0..rng.gen_range(1..4) {
            if v.is_empty() {
                v.push(0xfe);
            }
            let at = rng.gen_range(0..v.len());
            match rng.gen_range(0..4) {
                0 => v[at] = rng.r#gen(),
                1 => v.truncate(at),
                2 => v.insert(at, rng.r#gen()),
                _ => v[at] ^= 1 << rng.gen_range(0..8),
            }
        }
        v
    }

    /// ≥100k random and mutated messages through handle_message in every state: errors, no panics.
    #[test]
    fn handle_message_survives_garbage() {
        let mut rng = StdRng::seed_from_u64(0xc1a3_c4af);
        let fresh = ClientSession::new(config());
        let mut awaiting = fresh.clone();
        awaiting.handle_message(&plain_message(&[network_settings(1, 0)])).expect("settings");
        let (logged_in, mut server) = logged_in_pair(0);

        let mut tx = GameFramer::new();
        tx.enable_compression(Compression::Deflate, 0);
        let mut hs = Vec::new();
        hs.put_var_u32(SERVER_TO_CLIENT_HANDSHAKE);
        hs.put_var_string("eyJhbGciOiJFUzM4NCJ9.e30.AA");
        let seeds = [
            plain_message(&[network_settings(1, 0)]),
            plain_message(&[play_status(0), vec![0x05, 0, 1]]),
            tx.encode_batch(&[hs, play_status(0)]).expect("hs"),
            tx.encode_batch(&[play_status(0)]).expect("ps"),
            server.framer.encode_batch(&[play_status(3)]).expect("enc"),
        ];
        let valid_hs = {
            let mut hs = Vec::new();
            hs.put_var_u32(SERVER_TO_CLIENT_HANDSHAKE);
            hs.put_var_string(&sign_jwt(&server.keys, &json!({"salt": "AAAA"})).expect("sign"));
            tx.encode_batch(&[hs]).expect("valid hs")
        };
        let seeds = [seeds.as_slice(), &[valid_hs]].concat();
        let templates = [fresh, awaiting, logged_in];
        let mut sessions = templates.clone();
        for i in 0..102_000u32 {
            let input = if i % 3 == 0 {
                let len = rng.gen_range(0..48);
                let mut v: Vec<u8> = (0..len).map(|_| rng.r#gen()).collect();
                if !v.is_empty() && rng.gen_bool(0.8) {
                    v[0] = 0xfe;
                }
                v
            } else {
                {
                    let seed = rng.gen_range(0..seeds.len());
                    mutate(&mut rng, &seeds[seed])
                }
            };
            let slot = (i % 3) as usize;
            let s = &mut sessions[slot];
            let ok = s.handle_message(&input).is_ok();
            if !ok || s.state() != templates[slot].state() {
                // Errors poison a session and a mutation that still parsed may advance it: start
                // that slot over so every state keeps being exercised.
                *s = templates[slot].clone();
            }
        }
    }
}
