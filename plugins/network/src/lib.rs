//! `NetworkPlugin`: the bridge between a bot's connection and the ECS.
//!
//! A [`Connection`] component holds a [`Transport`] (the UDP transport of [`udp`], RakNet and the
//! login session, or an in-memory [`test_transport`] in tests). Once per tick [`receive_packets`]
//! drains it into [`ClientboundPacket`] messages, and [`flush_outbox`] sends everything the tick
//! queued with [`Connection::send`] as **one** batch. Once the bot spawned, [`settle_spawned`]
//! lets the transport settle into its steady state (the UDP transport then runs its I/O inline,
//! in those two systems).
//!
//! # Reading packets: `packet.view::<P>()`
//!
//! A handler reads the tick's packets and asks each for the typed view it cares about; the view
//! types are the version-independent structs of [`clawcraft_protocol::packets`]:
//!
//! ```
//! use bevy_ecs::prelude::*;
//! use clawcraft_network::ClientboundPacket;
//! use clawcraft_protocol::packets::SetTime;
//!
//! fn on_set_time(mut packets: MessageReader<ClientboundPacket>) {
//!     for packet in packets.read() {
//!         let Some(set) = packet.view::<SetTime>() else { continue };
//!         println!("bot {:?}: time {}", packet.bot, set.time);
//!     }
//! }
//! # bevy_ecs::system::assert_is_system(on_set_time);
//! ```
//!
//! - **Decoded once, shared.** Each received packet is decoded at most once, on the first
//!   `view` of any system, and every system asking for the same view type gets the same
//!   `Arc<P>` (the cache lives in the packet, a [`SharedPacket`]). So several plugins reading
//!   StartGame or AddPlayer cost one decode; there is no reason to decode by hand or to pass
//!   decoded packets around.
//! - `view` returns `None` for other packets and for a packet that does not decode (logged once
//!   at warn level; the bot keeps running). Use [`ClientboundPacket::try_view`] to see the error.
//! - Views are read-only (`Arc`); clone the fields you keep.
//! - Versions: views are the same for every supported Bedrock version; the codec maps each
//!   version's layout to them. Game code never checks versions.
//! - Sending: [`Connection::send`] takes a view (`conn.send(&RequestChunkRadius { .. })`) and
//!   encodes it for the connection's version.
//! - Codec variables (the shield's item id, which item decoding needs) are set here, from
//!   `item_registry`, before any later packet is decoded.

pub mod test_transport;
pub mod udp;

use std::sync::Arc;
use std::time::Instant;

use bevy_app::{App, Plugin, PostUpdate, PreUpdate};
use bevy_ecs::prelude::*;
use bevy_ecs::schedule::common_conditions::on_message;
use clawcraft_core::gate::{Arrivals, QuietAware, Settled, SettledBot};
use clawcraft_core::{AgentEvent, CorePlugin, InterruptActions, Interruption, Lifecycle, LocalBot, TickSet};
use clawcraft_protocol::codec::{CodecError, Packet, Protocol, SharedPacket};
use clawcraft_protocol::packets::ItemRegistry;
use clawcraft_protocol::version::{Advertised, VersionChoice};

/// What a transport reports to the app.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TransportEvent {
    /// The version the connection speaks, chosen from the server's pong (or forced), before
    /// any game packet: the connection's protocol switches to it.
    Version {
        /// The compiled protocol of that version.
        protocol: Arc<Protocol>,
        /// Which version and why.
        choice: VersionChoice,
        /// What the server's pong said, if it answered.
        advertised: Option<Advertised>,
    },
    /// Game packet bodies (varu32 header + fields), in arrival order.
    Packets(Vec<Vec<u8>>),
    /// The server accepted the login (PlayStatus `login_success`), and with what.
    Login(LoginReport),
    /// The connection is gone. `reason` is for humans; `error` tells a failure from a clean close.
    Closed { reason: String, error: bool },
}

/// How a login was accepted.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct LoginReport {
    /// The offline login shape the server accepted (`None`: an online login).
    pub offline: Option<clawcraft_protocol::login::OfflineShape>,
    /// The shape the server refused first (an `auto` login's retry), with its reason.
    pub refused_first: Option<(clawcraft_protocol::login::OfflineShape, String)>,
}

/// A bot's link to a server, below the game-packet level.
pub trait Transport: Send + Sync + 'static {
    /// Everything that arrived since the last call. Never blocks.
    fn poll(&mut self) -> Vec<TransportEvent>;
    /// Sends one batch of packet bodies. The list (and any bodies the transport leaves in it,
    /// already sent) stays with the caller, which empties it and reuses the buffers, so a tick's
    /// batch allocates neither again.
    fn send_batch(&mut self, packets: &mut Vec<Vec<u8>>);
    /// The tick's send pass: called once per tick after [`Transport::send_batch`] (also in
    /// ticks with nothing to send). A transport that does its I/O inline transmits here.
    fn flush(&mut self) {}
    /// The bot spawned: the join's heavy traffic is over. Called once; a transport may move to
    /// a cheaper steady state (see [`udp`]).
    fn settle(&mut self) {}
    /// Closes the connection politely (RakNet DisconnectionNotification).
    fn close(&mut self);
}

/// Sent bodies' buffers a connection keeps for the next ones.
const SPARE_BODIES: usize = 4;
/// A body buffer larger than this is freed rather than kept.
const SPARE_BODY_MAX: usize = 4096;

/// A bot's connection: the transport, the protocol version it speaks and this tick's outbox.
#[derive(Component)]
pub struct Connection {
    transport: Box<dyn Transport>,
    protocol: Arc<Protocol>,
    version: Option<(VersionChoice, Option<Advertised>)>,
    login: Option<LoginReport>,
    outbox: Vec<Vec<u8>>,
    /// Emptied buffers of sent bodies, for the next ones ([`Connection::spare_buffer`]).
    spare_bodies: Vec<Vec<u8>>,
    open: bool,
    /// A close reported in the same poll as packets, handled the next tick.
    pending_close: Option<TransportEvent>,
    /// What [`Connection::receive_ahead`] polled, for [`receive_packets`] in the same tick.
    received_ahead: Vec<TransportEvent>,
    /// [`Transport::settle`] was called.
    settled: bool,
    /// The spacing of this connection's sends: one per tick, so the bot's own view of its 20 Hz
    /// steadiness.
    intervals: TickIntervals,
}

/// How steadily a connection's ticks ran: the time between consecutive ticks' sends, counted in
/// buckets (a 20 Hz tick is 50 ms apart), so a reader can diff two snapshots over a window.
#[derive(Debug, Clone, Copy, Default)]
pub struct TickIntervals {
    last: Option<Instant>,
    /// Intervals ≤ 55 ms, ≤ 75 ms, ≤ 100 ms, and longer.
    pub counts: [u64; 4],
    /// The longest interval, in milliseconds.
    pub max_ms: f64,
}

/// Upper bounds (ms) of the first three buckets of [`TickIntervals`].
const TICK_BUCKETS_MS: [f64; 3] = [55.0, 75.0, 100.0];

impl TickIntervals {
    fn record(&mut self, now: Instant) {
        if let Some(last) = self.last {
            let ms = now.saturating_duration_since(last).as_secs_f64() * 1e3;
            let bucket = TICK_BUCKETS_MS.iter().position(|&b| ms <= b).unwrap_or(3);
            self.counts[bucket] = self.counts[bucket].saturating_add(1);
            self.max_ms = self.max_ms.max(ms);
        }
        self.last = Some(now);
    }
}

impl Connection {
    /// A connection speaking `protocol` until the transport reports the version it chose (see
    /// [`TransportEvent::Version`]).
    pub fn new(transport: Box<dyn Transport>, protocol: Arc<Protocol>) -> Self {
        Self {
            transport,
            protocol,
            version: None,
            login: None,
            outbox: Vec::new(),
            spare_bodies: Vec::new(),
            open: true,
            pending_close: None,
            received_ahead: Vec::new(),
            settled: false,
            intervals: TickIntervals::default(),
        }
    }

    /// The protocol version this connection speaks.
    pub fn protocol(&self) -> &Arc<Protocol> {
        &self.protocol
    }

    /// How the version was chosen and what the server's pong advertised (`None` until the
    /// transport chose, and for transports that do not choose, e.g. in tests).
    pub fn version_choice(&self) -> Option<&(VersionChoice, Option<Advertised>)> {
        self.version.as_ref()
    }

    /// How the server accepted the login (`None` until it did, and for transports that do not
    /// log in, e.g. in tests).
    pub fn login_report(&self) -> Option<&LoginReport> {
        self.login.as_ref()
    }

    /// Queues a packet for this tick's batch. Encoding errors are bugs in our packet views, so
    /// they are logged loudly rather than sent half-built.
    pub fn send<P: Packet>(&mut self, packet: &P) {
        if !self.open {
            return;
        }
        match self.protocol.encode(packet) {
            Ok(body) => self.outbox.push(body),
            Err(e) => tracing::error!(packet = P::NAME, error = %e, "failed to encode packet"),
        }
    }

    /// An empty buffer to encode a packet body into (for [`Connection::send_raw`]): the buffer of
    /// a body already sent when there is one, so a packet per tick allocates nothing.
    pub fn spare_buffer(&mut self) -> Vec<u8> {
        self.spare_bodies.pop().unwrap_or_default()
    }

    /// Queues an already encoded packet body.
    pub fn send_raw(&mut self, body: Vec<u8>) {
        if self.open {
            self.outbox.push(body);
        }
    }

    /// Polls the transport ahead of [`receive_packets`] (a settled tick, see
    /// [`Settled`](clawcraft_core::gate::Settled)): what arrived waits here for it, and
    /// [`receive_packets`] in the same tick takes it first. False when nothing arrived and
    /// nothing waits: the tick has nothing to receive (an open connection's transport was polled,
    /// its RakNet timers ran).
    pub fn receive_ahead(&mut self) -> bool {
        if !self.open || self.pending_close.is_some() || !self.received_ahead.is_empty() {
            return true;
        }
        let events = self.transport.poll();
        let arrived = !events.is_empty();
        self.received_ahead.extend(events);
        arrived
    }

    /// What [`flush_outbox`] does for this connection: sends the tick's batch and records the
    /// tick's spacing at `now`.
    pub fn send_tick(&mut self, now: Instant) {
        self.prepare_tick();
        self.transmit_tick(now);
    }

    /// The first half of [`Connection::send_tick`]: the tick's batch built, encrypted and handed
    /// to the transport, not sent yet. Many bots' ticks prepare first and then transmit one after
    /// the other, so their datagrams leave in one short burst (see `src/settled.rs`).
    pub fn prepare_tick(&mut self) {
        if self.open {
            self.hand_over_outbox();
        }
    }

    /// The second half of [`Connection::send_tick`]: sends what the transport holds (the tick's
    /// batch, ACKs, resends) and records the tick's spacing at `now`.
    pub fn transmit_tick(&mut self, now: Instant) {
        if self.open {
            self.transport.flush();
            self.intervals.record(now);
        }
    }

    pub fn is_open(&self) -> bool {
        self.open
    }

    /// The spacing of this connection's ticks (recorded as each tick's batch leaves).
    pub fn tick_intervals(&self) -> &TickIntervals {
        &self.intervals
    }

    /// Flushes what is queued and closes the transport politely.
    pub fn close(&mut self) {
        if self.open {
            self.flush();
            self.transport.close();
            self.open = false;
        }
    }

    fn flush(&mut self) {
        self.hand_over_outbox();
        self.transport.flush();
    }

    /// Hands the outbox to the transport as one batch (not sent until [`Transport::flush`]).
    fn hand_over_outbox(&mut self) {
        if !self.outbox.is_empty() {
            self.transport.send_batch(&mut self.outbox);
            // What the transport left was sent: keep a few buffers for the next bodies.
            for mut body in self.outbox.drain(..) {
                if self.spare_bodies.len() < SPARE_BODIES && body.capacity() <= SPARE_BODY_MAX {
                    body.clear();
                    self.spare_bodies.push(body);
                }
            }
        }
    }
}

/// One game packet received by a bot. Decoded lazily, once, by the first system that asks for a
/// view; every reader of the tick shares the result (see the crate docs).
#[derive(Message, Debug, Clone)]
pub struct ClientboundPacket {
    /// The bot that received it.
    pub bot: Entity,
    /// The body and its shared view cache.
    pub packet: SharedPacket,
}

impl ClientboundPacket {
    /// The typed view `P` if this packet is one (`None` for other packets, or if it does not
    /// decode: logged once). Decoded on first use and shared: every caller gets the same `Arc`.
    pub fn view<P: Packet>(&self) -> Option<Arc<P>> {
        self.packet.view::<P>()
    }

    /// Like [`ClientboundPacket::view`], with the decode error.
    pub fn try_view<P: Packet>(&self) -> Result<Option<Arc<P>>, CodecError> {
        self.packet.try_view::<P>()
    }

    /// Whether this is a `P` (no decoding).
    pub fn is<P: Packet>(&self) -> bool {
        self.packet.is::<P>()
    }

    /// The packet's name in the bot's protocol version.
    pub fn name(&self) -> &str {
        self.packet.name()
    }

    /// The raw body (header included).
    pub fn body(&self) -> &[u8] {
        self.packet.body()
    }

    /// The protocol version it was received with.
    pub fn protocol(&self) -> &Arc<Protocol> {
        self.packet.protocol()
    }
}

/// Written when a bot's connection ends, after its `disconnected` event.
#[derive(Message, Debug, Clone, PartialEq, Eq)]
pub struct ConnectionClosed {
    pub bot: Entity,
    pub reason: String,
    pub error: bool,
}

/// The server's own reason from a Disconnect packet, kept so the `disconnected` event carries it
/// even though the transport closes afterwards with a generic reason.
#[derive(Component, Debug, Clone, PartialEq, Eq)]
pub struct ServerDisconnectReason(pub String);

/// Ask every bot to leave politely (SIGINT, SIGTERM, stdin EOF).
#[derive(Message, Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ShutdownRequest;

/// Registers the packet messages and the receive/flush systems.
pub struct NetworkPlugin;

impl Plugin for NetworkPlugin {
    fn build(&self, app: &mut App) {
        if !app.is_plugin_added::<CorePlugin>() {
            app.add_plugins(CorePlugin);
        }
        app.add_message::<ClientboundPacket>()
            .add_message::<ConnectionClosed>()
            .add_message::<ShutdownRequest>()
            .add_systems(PreUpdate, receive_packets.in_set(TickSet::Receive).in_set(QuietAware).in_set(Settled))
            .add_systems(
                bevy_app::Last,
                count_decode_errors.in_set(clawcraft_core::gate::Gate::Packets).in_set(QuietAware),
            )
            .add_systems(
                clawcraft_core::TickWork,
                interrupt_on_shutdown.in_set(TickSet::HandlePackets).run_if(on_message::<ShutdownRequest>),
            )
            .add_systems(PostUpdate, flush_outbox.in_set(TickSet::Send).in_set(QuietAware).in_set(Settled))
            // After the tick's batch left; in `Last`, which quiet ticks skip (a shutdown and a
            // spawn come only in busy ones).
            .add_systems(
                bevy_app::Last,
                (close_on_shutdown.run_if(on_message::<ShutdownRequest>), settle_spawned).chain().in_set(QuietAware),
            );
    }
}

/// Drains each transport into messages. A bot whose transport closed gets a `disconnected` event
/// (with the server's reason when it sent one) and moves to [`Lifecycle::Disconnected`].
#[allow(clippy::type_complexity)]
pub fn receive_packets(
    mut bots: Query<(Entity, &mut Connection, &mut Lifecycle, Option<&ServerDisconnectReason>, Option<&SettledBot>)>,
    mut packets: MessageWriter<'_, ClientboundPacket>,
    mut closed: MessageWriter<'_, ConnectionClosed>,
    mut events: MessageWriter<'_, AgentEvent>,
    mut interrupts: MessageWriter<'_, InterruptActions>,
    mut arrivals: ResMut<'_, Arrivals>,
) {
    // What gates the tick's packet handlers (see `clawcraft_core::gate`).
    *arrivals = Arrivals::default();
    for (bot, mut conn, mut lifecycle, server_reason, settled) in &mut bots {
        // A settled bot was polled ahead this tick and nothing had arrived.
        if !conn.open || SettledBot::this_tick(settled) {
            continue;
        }
        // A close that arrived with packets waited a tick, so the app read them first (a
        // refused login's PlayStatus names a better reason than the transport's).
        let mut incoming = conn.pending_close.take().into_iter().collect::<Vec<_>>();
        let ahead = std::mem::take(&mut conn.received_ahead);
        incoming.extend(ahead);
        incoming.extend(conn.transport.poll());
        let mut delivered = false;
        for event in incoming {
            match event {
                TransportEvent::Closed { reason, error } if delivered => {
                    conn.pending_close = Some(TransportEvent::Closed { reason, error });
                    break;
                }
                TransportEvent::Packets(bodies) => {
                    delivered |= !bodies.is_empty();
                    for body in bodies {
                        match SharedPacket::new(body, conn.protocol.clone()) {
                            Ok(packet) => {
                                let packet = set_codec_variables(&mut conn, packet);
                                packets.write(ClientboundPacket { bot, packet });
                                arrivals.packets += 1;
                            }
                            Err(e) => tracing::warn!(error = %e, "packet without a readable header"),
                        }
                    }
                }
                TransportEvent::Version { protocol, choice, advertised } => {
                    conn.protocol = protocol;
                    conn.version = Some((choice, advertised));
                }
                TransportEvent::Login(report) => conn.login = Some(report),
                TransportEvent::Closed { reason, error } => {
                    let reason = server_reason.map(|r| r.0.clone()).unwrap_or(reason);
                    tracing::info!(%reason, "connection closed");
                    conn.open = false;
                    *lifecycle = Lifecycle::Disconnected;
                    events
                        .write(AgentEvent::new(clawcraft_core::builtin::Disconnected { bot, reason: reason.clone() }));
                    closed.write(ConnectionClosed { bot, reason, error });
                    arrivals.closed += 1;
                    interrupts.write(InterruptActions { bot, cause: Interruption::Disconnect });
                    break;
                }
            }
        }
    }
}

/// Item stacks decode differently for the shield (it carries a blocking tick), so the codec
/// needs the shield's network id, which only the server's `item_registry` tells. It is set on
/// the connection's protocol before the packets after the registry are wrapped, so even an
/// AddPlayer in the same batch decodes right. The registry view decoded here is kept in the
/// packet for the app's readers.
fn set_codec_variables(conn: &mut Connection, packet: SharedPacket) -> SharedPacket {
    let Some(registry) = packet.view::<ItemRegistry>() else { return packet };
    match registry.itemstates.iter().find(|i| i.name == "minecraft:shield") {
        Some(shield) => {
            let mut protocol = (*conn.protocol).clone();
            protocol.set_variable("ShieldItemID", i64::from(shield.runtime_id));
            conn.protocol = Arc::new(protocol);
            tracing::debug!(id = shield.runtime_id, "shield item id set");
        }
        None => tracing::debug!("item registry without a shield"),
    }
    packet
}

/// The last packets a bot could not decode (with [`BotStats::decode_errors`] counting all).
#[derive(Component, Debug, Clone, Default, PartialEq, Eq)]
pub struct DecodeErrors(pub Vec<String>);

/// How many decode errors [`DecodeErrors`] keeps.
const KEEP_DECODE_ERRORS: usize = 8;

/// After every reader had its turn: counts the tick's packets whose view failed to decode.
pub fn count_decode_errors(
    mut packets: MessageReader<'_, '_, ClientboundPacket>,
    mut bots: Query<'_, '_, (&mut clawcraft_core::BotStats, Option<&mut DecodeErrors>)>,
    mut commands: Commands<'_, '_>,
) {
    for packet in packets.read() {
        let errors = packet.packet.errors();
        if errors.is_empty() {
            continue;
        }
        let Ok((mut stats, kept)) = bots.get_mut(packet.bot) else { continue };
        stats.decode_errors += 1;
        let text = errors.iter().map(ToString::to_string).collect::<Vec<_>>().join("; ");
        match kept {
            Some(mut kept) => {
                if kept.0.len() == KEEP_DECODE_ERRORS {
                    kept.0.remove(0);
                }
                kept.0.push(text);
            }
            None => {
                commands.entity(packet.bot).insert(DecodeErrors(vec![text]));
            }
        }
    }
}

/// Sends each bot's queued packets as one batch, and records when (the tick's spacing).
pub fn flush_outbox(mut conns: Query<'_, '_, (&mut Connection, Option<&SettledBot>)>) {
    let mut now = None;
    for (mut conn, settled) in &mut conns {
        if !conn.open {
            continue;
        }
        if SettledBot::this_tick(settled) {
            // Its tick's batch left already; what the tick's work queued since goes now.
            if !conn.outbox.is_empty() {
                conn.flush();
            }
            continue;
        }
        let now = *now.get_or_insert_with(Instant::now);
        conn.send_tick(now);
    }
}

/// Once a bot spawned (after its tick's batch left), its transport settles (see
/// [`Transport::settle`]).
pub fn settle_spawned(mut bots: Query<'_, '_, (&mut Connection, &Lifecycle), Changed<Lifecycle>>) {
    for (mut conn, lifecycle) in &mut bots {
        if *lifecycle == Lifecycle::Spawned && conn.open && !conn.settled {
            conn.settled = true;
            conn.transport.settle();
        }
    }
}

/// A shutdown ends every bot's running actions (status `aborted`) before the connections close,
/// so each completion event still reaches the agent.
pub fn interrupt_on_shutdown(
    mut requests: MessageReader<'_, '_, ShutdownRequest>,
    bots: Query<'_, '_, Entity, With<LocalBot>>,
    mut interrupts: MessageWriter<'_, InterruptActions>,
) {
    if requests.read().count() == 0 {
        return;
    }
    for bot in &bots {
        interrupts.write(InterruptActions { bot, cause: Interruption::Shutdown });
    }
}

/// On a shutdown request, flush and close every connection politely.
pub fn close_on_shutdown(
    mut requests: MessageReader<'_, '_, ShutdownRequest>,
    mut conns: Query<'_, '_, &mut Connection>,
) {
    if requests.read().count() == 0 {
        return;
    }
    for mut conn in &mut conns {
        conn.close();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_transport::{TestHandle, TestTransport};

    fn app() -> (App, Entity, TestHandle) {
        let protocol = Arc::new(Protocol::load(Protocol::default_version().game_version).expect("bundled"));
        let mut app = App::new();
        app.add_plugins(NetworkPlugin);
        let (transport, handle) = TestTransport::new();
        let bot = app.world_mut().spawn((Lifecycle::Connecting, Connection::new(Box::new(transport), protocol))).id();
        app.finish();
        app.cleanup();
        (app, bot, handle)
    }

    #[test]
    fn every_tick_has_one_send_pass_and_the_transport_settles_once_after_spawn() {
        let (mut app, bot, handle) = app();
        for _ in 0..3 {
            app.update();
        }
        assert_eq!(handle.flushes(), 3, "a send pass in every tick, even with nothing queued");
        assert_eq!(handle.settles(), 0, "not before spawn");
        *app.world_mut().get_mut::<Lifecycle>(bot).expect("bot") = Lifecycle::Joining;
        app.update();
        assert_eq!(handle.settles(), 0, "not while joining");
        *app.world_mut().get_mut::<Lifecycle>(bot).expect("bot") = Lifecycle::Spawned;
        app.world_mut().get_mut::<Connection>(bot).expect("bot").send_raw(vec![0x90, 0x01]);
        app.update();
        assert_eq!(handle.settles(), 1, "settled in the tick the bot spawned");
        assert_eq!(handle.take_sent().len(), 1, "the tick's batch left too");
        // A respawn (or any later change) does not settle again.
        *app.world_mut().get_mut::<Lifecycle>(bot).expect("bot") = Lifecycle::Spawned;
        for _ in 0..3 {
            app.update();
        }
        assert_eq!(handle.settles(), 1);
        assert_eq!(handle.flushes(), 8);
    }

    #[test]
    fn a_closed_connection_is_not_settled_nor_flushed() {
        let (mut app, bot, handle) = app();
        app.update();
        handle.drop_connection("gone");
        app.update();
        assert!(!app.world().get::<Connection>(bot).expect("bot").is_open());
        let flushes = handle.flushes();
        *app.world_mut().get_mut::<Lifecycle>(bot).expect("bot") = Lifecycle::Spawned;
        app.update();
        assert_eq!(handle.settles(), 0);
        assert_eq!(handle.flushes(), flushes);
    }

    /// Copies what it sends and leaves the bodies in the list, as the UDP transport does.
    struct CopyingTransport(Arc<std::sync::Mutex<Vec<Vec<Vec<u8>>>>>);

    impl Transport for CopyingTransport {
        fn poll(&mut self) -> Vec<TransportEvent> {
            Vec::new()
        }
        fn send_batch(&mut self, packets: &mut Vec<Vec<u8>>) {
            self.0.lock().expect("sent").push(packets.clone());
        }
        fn close(&mut self) {}
    }

    #[test]
    fn sent_body_buffers_come_back_for_the_next_bodies_and_are_sent_once() {
        let protocol = Arc::new(Protocol::load(Protocol::default_version().game_version).expect("bundled"));
        let sent = Arc::new(std::sync::Mutex::new(Vec::new()));
        let mut conn = Connection::new(Box::new(CopyingTransport(sent.clone())), protocol);
        assert_eq!(conn.spare_buffer().capacity(), 0, "nothing sent yet");
        let mut body = Vec::with_capacity(200);
        body.extend_from_slice(&[0x90, 0x01, 7]);
        let at = body.as_ptr();
        conn.send_raw(body);
        conn.flush();
        conn.flush();
        assert_eq!(*sent.lock().expect("sent"), vec![vec![vec![0x90, 0x01, 7]]], "sent once");
        let spare = conn.spare_buffer();
        assert_eq!((spare.as_ptr(), spare.len(), spare.capacity()), (at, 0, 200), "the sent body's buffer, emptied");
        for _ in 0..10 {
            conn.send_raw(vec![1; 10]);
        }
        conn.send_raw(vec![2; SPARE_BODY_MAX + 1]);
        conn.flush();
        assert_eq!(conn.spare_bodies.len(), SPARE_BODIES, "bounded");
        assert!(conn.spare_bodies.iter().all(|b| b.is_empty() && b.capacity() <= SPARE_BODY_MAX));
    }
}
