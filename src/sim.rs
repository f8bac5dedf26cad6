//! Deterministic simulation of a bot: no sockets, one `tick()` = one `App::update`, packets
//! injected as encoded bytes, and exactly the packets each tick sent read back. Any warning or
//! error log during a simulation fails the test (unless explicitly allowed).

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use bevy_app::App;
use bevy_ecs::prelude::*;
use clawcraft_core::{CommandResponse, PendingCommands, parse_request};
use clawcraft_io::{EventLog, IoPlugin};
use clawcraft_network::test_transport::{TestHandle, TestTransport};
use clawcraft_protocol::codec::{Packet, Protocol, Value};
use serde_json::{Map, Value as Json};
use tracing_subscriber::layer::SubscriberExt;

use crate::{ClawcraftPlugins, bot_bundle};

/// The version simulations speak: `CLAWCRAFT_TEST_VERSION` if it names a supported version,
/// else the default (`data/versions.txt`).
pub fn sim_version() -> &'static str {
    let version = std::env::var("CLAWCRAFT_TEST_VERSION").ok();
    let known = version.as_deref().and_then(|v| Protocol::versions().iter().find(|i| i.game_version == v));
    known.copied().unwrap_or_else(Protocol::default_version).game_version
}

/// Runtime id of the bot in [`start_game`].
pub const SIM_RUNTIME_ID: u64 = 7;
/// The name of the bot every simulation starts with.
pub const FIRST_BOT: &str = "ClawBot";

/// A chat line from `player`, as the server relays it.
pub fn chat_from(player: &str, message: &str) -> clawcraft_protocol::packets::Text {
    clawcraft_protocol::packets::Text {
        category: "authored".into(),
        kind: "chat".into(),
        source_name: Some(player.into()),
        message: message.into(),
        ..Default::default()
    }
}

/// The StartGame of most simulations: survival in the overworld, feet at (0.5, -60, 0.5) (the
/// wire carries the eye, y -58.38), pitch 10, yaw 90, hashed block ids.
pub fn start_game() -> clawcraft_protocol::packets::StartGame {
    use clawcraft_protocol::packets::{StartGame, Vec2, Vec3};
    StartGame {
        entity_id: -3,
        runtime_entity_id: SIM_RUNTIME_ID,
        player_gamemode: "survival".into(),
        player_position: Vec3 { x: 0.5, y: -58.38, z: 0.5 },
        rotation: Vec2 { x: 10.0, z: 90.0 },
        dimension: "overworld".into(),
        world_name: "Sim World".into(),
        block_network_ids_are_hashes: true,
        server_authoritative_block_breaking: true,
        ..StartGame::default()
    }
}

/// Origin used for commands sent by [`Simulation::command`].
const SIM_ORIGIN: u64 = 9_999;

/// Counts warnings and errors logged on this thread.
struct WarnCounter(Arc<AtomicUsize>);

impl<S: tracing::Subscriber> tracing_subscriber::Layer<S> for WarnCounter {
    fn on_event(&self, event: &tracing::Event<'_>, _ctx: tracing_subscriber::layer::Context<'_, S>) {
        if *event.metadata().level() <= tracing::Level::WARN {
            self.0.fetch_add(1, Ordering::SeqCst);
            eprintln!("simulation log: {:?} {}", event.metadata().level(), event.metadata().name());
        }
    }
}

/// Connections the simulation's [`Connector`](crate::swarm::Connector) opened (bots added with
/// [`Simulation::add_bot`], `bot_add`, reconnects), by bot name, newest last.
#[derive(Clone, Default)]
pub struct SimConnections(Arc<std::sync::Mutex<Vec<(String, TestHandle)>>>);

impl SimConnections {
    /// The newest connection of bot `name`.
    pub fn latest(&self, name: &str) -> Option<TestHandle> {
        let list = self.0.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        list.iter().rev().find(|(n, _)| n.eq_ignore_ascii_case(name)).map(|(_, h)| h.clone())
    }

    /// How many connections bot `name` opened.
    pub fn count(&self, name: &str) -> usize {
        let list = self.0.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        list.iter().filter(|(n, _)| n.eq_ignore_ascii_case(name)).count()
    }
}

/// A bot in a headless app with an in-memory transport; more bots join with
/// [`Simulation::add_bot`], each with its own in-memory connection.
pub struct Simulation {
    pub app: App,
    pub bot: Entity,
    pub handle: TestHandle,
    /// Every connection opened through the app's connector (bots after the first).
    pub connections: SimConnections,
    pub protocol: Arc<Protocol>,
    warnings: Arc<AtomicUsize>,
    /// Set to allow warnings (tests of bad input that is logged on purpose).
    pub allow_warnings: bool,
    _log_guard: tracing::subscriber::DefaultGuard,
    responses: Vec<Map<String, Json>>,
    response_cursor: bevy_ecs::message::MessageCursor<CommandResponse>,
}

impl Simulation {
    /// A bot speaking the default version (`data/versions.txt`), or `CLAWCRAFT_TEST_VERSION`
    /// when set (to run the simulations at another version), named `ClawBot`.
    pub fn new() -> Self {
        Self::with_version(sim_version())
    }

    pub fn with_version(game_version: &str) -> Self {
        let warnings = Arc::new(AtomicUsize::new(0));
        let subscriber = tracing_subscriber::registry().with(WarnCounter(warnings.clone()));
        let guard = tracing::subscriber::set_default(subscriber);
        let protocol = Arc::new(Protocol::load(game_version).expect("bundled protocol version"));
        let mut app = App::new();
        // Defaults, not the test process's environment (CHAT_PREFIX, CLAWCRAFT_RESPAWN, …).
        app.insert_resource(clawcraft_chat::ChatSettings::default())
            .insert_resource(clawcraft_vitals::VitalsSettings::default())
            .insert_resource(clawcraft_core::DangerPolicy::default());
        app.add_plugins(ClawcraftPlugins).add_plugins(IoPlugin::detached());
        app.world_mut().resource_mut::<EventLog>().capacity = 10_000;
        let (transport, handle) = TestTransport::new();
        let bot = app.world_mut().spawn(bot_bundle(FIRST_BOT, Box::new(transport), protocol.clone())).id();
        // Bots added later (and reconnects) get in-memory connections too, recorded by name.
        let connections = SimConnections::default();
        let opened = connections.clone();
        app.insert_resource(crate::swarm::Connector(Arc::new(move |spec, _params| {
            let (transport, handle) = TestTransport::new();
            opened.0.lock().unwrap_or_else(std::sync::PoisonError::into_inner).push((spec.username.clone(), handle));
            Ok(Box::new(transport) as Box<dyn clawcraft_network::Transport>)
        })));
        app.insert_resource(crate::swarm::SwarmDefaults {
            host: "127.0.0.1".into(),
            port: 19132,
            forced_version: Some(game_version.to_owned()),
            reconnect: false,
            online: false,
            auth: None,
        });
        app.finish();
        app.cleanup();
        Self {
            app,
            bot,
            handle,
            connections,
            protocol,
            warnings,
            allow_warnings: false,
            _log_guard: guard,
            responses: Vec::new(),
            response_cursor: Default::default(),
        }
    }

    /// A bot that went through the whole join sequence with `start_game` and has just spawned
    /// (the join's packets are already taken, so [`sent`](Self::sent) starts empty).
    pub fn spawned_with(start_game: &clawcraft_protocol::packets::StartGame) -> Self {
        let mut sim = Self::new();
        sim.join(FIRST_BOT, start_game, &[]);
        sim
    }

    /// Adds bot `name` to the app (connected in memory, not joined yet; see
    /// [`Simulation::join`]), with `reconnect` as its policy. Returns its entity.
    pub fn add_bot(&mut self, name: &str, reconnect: bool) -> Entity {
        let addr = "127.0.0.1:19132".parse().expect("loopback address");
        let mut spec = crate::swarm::BotSpec::new(name, "127.0.0.1", addr);
        spec.reconnect = reconnect;
        spec.forced_version = Some(self.protocol.info().game_version.to_owned());
        crate::swarm::spawn_bot(self.app.world_mut(), spec).expect("in-memory connection")
    }

    /// The newest entity of bot `name` (a reconnect replaces it).
    pub fn bot_named(&mut self, name: &str) -> Option<Entity> {
        clawcraft_core::bot_list(self.app.world_mut()).into_iter().find(|(_, n)| n == name).map(|(e, _)| e)
    }

    /// The newest in-memory connection of bot `name` (the first bot's is [`Simulation::handle`]).
    pub fn handle_of(&self, name: &str) -> TestHandle {
        if name == FIRST_BOT {
            return self.handle.clone();
        }
        self.connections.latest(name).unwrap_or_else(|| panic!("no connection of {name}"))
    }

    /// Delivers `packet` to bot `name` before the next tick.
    pub fn receive_for<P: Packet>(&mut self, name: &str, packet: &P) {
        let body = self.protocol.encode(packet).expect("encodable test packet");
        self.handle_of(name).inject(vec![body]);
    }

    /// The batches bot `name` sent since the last look, each as (name, decoded value).
    pub fn sent_by(&mut self, name: &str) -> Vec<Vec<(String, Value)>> {
        let handle = self.handle_of(name);
        handle
            .take_sent()
            .into_iter()
            .map(|batch| batch.iter().map(|b| self.protocol.decode(b).expect("we sent a decodable packet")).collect())
            .collect()
    }

    /// Takes bot `name` through the join sequence with `start` and `chunks`, until it spawned
    /// (its join packets are taken).
    pub fn join(&mut self, name: &str, start: &clawcraft_protocol::packets::StartGame, chunks: &[Vec<u8>]) {
        use clawcraft_protocol::packets::{ChunkRadiusUpdate, PlayStatus, ResourcePackStack, ResourcePacksInfo};
        self.receive_for(name, &PlayStatus { status: "login_success".into() });
        self.tick();
        self.receive_for(name, &ResourcePacksInfo::default());
        self.tick();
        self.receive_for(name, &ResourcePackStack::default());
        self.tick();
        self.receive_for(name, start);
        self.tick();
        if !chunks.is_empty() {
            self.handle_of(name).inject(chunks.to_vec());
        }
        self.receive_for(name, &ChunkRadiusUpdate { chunk_radius: 8 });
        self.receive_for(name, &PlayStatus { status: "player_spawn".into() });
        self.tick();
        self.sent_by(name);
    }

    /// Encodes `packet` with the bot's protocol and delivers it before the next tick.
    pub fn receive<P: Packet>(&mut self, packet: &P) {
        let body = self.protocol.encode(packet).expect("encodable test packet");
        self.handle.inject(vec![body]);
    }

    /// Delivers raw packet bodies before the next tick.
    pub fn receive_raw(&mut self, bodies: Vec<Vec<u8>>) {
        self.handle.inject(bodies);
    }

    /// Runs one game tick.
    pub fn tick(&mut self) {
        self.app.update();
        self.collect_responses();
    }

    /// Runs `n` ticks.
    pub fn ticks(&mut self, n: usize) {
        for _ in 0..n {
            self.tick();
        }
    }

    /// The batches sent since the last call, each as the packets' (name, decoded value).
    pub fn sent(&mut self) -> Vec<Vec<(String, Value)>> {
        self.handle
            .take_sent()
            .into_iter()
            .map(|batch| {
                batch.iter().map(|body| self.protocol.decode(body).expect("we sent a decodable packet")).collect()
            })
            .collect()
    }

    /// Like [`sent`](Self::sent) but only names.
    pub fn sent_names(&mut self) -> Vec<Vec<String>> {
        self.sent().into_iter().map(|b| b.into_iter().map(|(n, _)| n).collect()).collect()
    }

    /// Decodes every sent packet called `P::NAME` as `P`.
    pub fn sent_as<P: Packet>(&mut self) -> Vec<P> {
        let proto = self.protocol.clone();
        self.handle
            .take_sent()
            .into_iter()
            .flatten()
            .filter(|b| proto.packet_id(P::NAME) == clawcraft_protocol::codec::peek_packet_id(b).ok())
            .map(|b| proto.decode_as::<P>(&b).expect("decodable"))
            .collect()
    }

    /// Every packet body sent since the last look, in order (read them with [`Self::decode_all`]).
    pub fn sent_bodies(&mut self) -> Vec<Vec<u8>> {
        self.handle.take_sent().into_iter().flatten().collect()
    }

    /// The bodies among `bodies` that are `P`, decoded.
    pub fn decode_all<P: Packet>(&self, bodies: &[Vec<u8>]) -> Vec<P> {
        let id = self.protocol.packet_id(P::NAME);
        bodies
            .iter()
            .filter(|b| id == clawcraft_protocol::codec::peek_packet_id(b).ok())
            .map(|b| self.protocol.decode_as::<P>(b).expect("decodable"))
            .collect()
    }

    /// Queues a JSON command line without running anything (see [`interim`](Self::interim)).
    pub fn queue_command(&mut self, line: &str) {
        match parse_request(SIM_ORIGIN, line) {
            Ok(req) => self.app.world_mut().resource_mut::<PendingCommands>().0.push_back(req),
            Err(resp) => self.responses.push(resp.body()),
        }
    }

    /// Runs the between-ticks schedule (queries only), as the runner does when a command arrives.
    pub fn interim(&mut self) {
        self.app.world_mut().run_schedule(clawcraft_core::Interim);
        self.collect_responses();
    }

    /// Responses collected so far (oldest first), removing them.
    pub fn take_responses(&mut self) -> Vec<Map<String, Json>> {
        std::mem::take(&mut self.responses)
    }

    /// Sends a JSON command line, runs one tick and returns its response.
    pub fn command(&mut self, line: &str) -> Map<String, Json> {
        match parse_request(SIM_ORIGIN, line) {
            Ok(req) => self.app.world_mut().resource_mut::<PendingCommands>().0.push_back(req),
            Err(resp) => return resp.body(),
        }
        self.tick();
        self.responses.pop().expect("a response to the command")
    }

    fn collect_responses(&mut self) {
        let msgs = self.app.world().resource::<bevy_ecs::message::Messages<CommandResponse>>();
        // A held answer (a request waiting for its action's end) is not out yet.
        let fresh: Vec<_> =
            self.response_cursor.read(msgs).filter(|r| r.origin == SIM_ORIGIN && !r.held).cloned().collect();
        self.responses.extend(fresh.into_iter().map(|r| r.body()));
    }

    /// Every event written so far, in order.
    pub fn events(&self) -> Vec<Map<String, Json>> {
        self.app.world().resource::<EventLog>().lines.clone()
    }

    /// Event types so far.
    pub fn event_types(&self) -> Vec<String> {
        self.events().iter().filter_map(|e| e.get("type").and_then(|t| t.as_str()).map(String::from)).collect()
    }

    /// A component of the bot.
    pub fn component<C: Component + Clone>(&self) -> Option<C> {
        self.app.world().get::<C>(self.bot).cloned()
    }

    /// Number of warnings/errors logged so far.
    pub fn warnings(&self) -> usize {
        self.warnings.load(Ordering::SeqCst)
    }
}

impl Default for Simulation {
    fn default() -> Self {
        Self::new()
    }
}

impl Drop for Simulation {
    fn drop(&mut self) {
        if !self.allow_warnings && !std::thread::panicking() {
            assert_eq!(self.warnings(), 0, "the simulation logged warnings or errors");
        }
    }
}
