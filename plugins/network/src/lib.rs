//! `NetworkPlugin`: the bridge between a bot's connection and the ECS.
//!
//! A [`Connection`] component holds a [`Transport`] (a UDP thread running RakNet and the login
//! session, or an in-memory [`test_transport`] in tests). Once per tick [`receive_packets`] drains
//! it into [`ClientboundPacket`] messages, and [`flush_outbox`] sends everything the tick queued
//! with [`Connection::send`] as **one** batch.

pub mod test_transport;
pub mod udp;

use std::sync::Arc;

use bevy_app::{App, Plugin, PostUpdate, PreUpdate};
use bevy_ecs::prelude::*;
use clawcraft_core::{AgentEvent, CorePlugin, InterruptActions, Interruption, Lifecycle, LocalBot, TickSet};
use clawcraft_protocol::codec::{Packet, Protocol, peek_packet_id};

/// What a transport reports to the app.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TransportEvent {
    /// Game packet bodies (varu32 header + fields), in arrival order.
    Packets(Vec<Vec<u8>>),
    /// The connection is gone. `reason` is for humans; `error` tells a failure from a clean close.
    Closed { reason: String, error: bool },
}

/// A bot's link to a server, below the game-packet level.
pub trait Transport: Send + Sync + 'static {
    /// Everything that arrived since the last call. Never blocks.
    fn poll(&mut self) -> Vec<TransportEvent>;
    /// Sends one batch of packet bodies.
    fn send_batch(&mut self, packets: Vec<Vec<u8>>);
    /// Closes the connection politely (RakNet DisconnectionNotification).
    fn close(&mut self);
}

/// A bot's connection: the transport, the protocol version it speaks and this tick's outbox.
#[derive(Component)]
pub struct Connection {
    transport: Box<dyn Transport>,
    protocol: Arc<Protocol>,
    outbox: Vec<Vec<u8>>,
    open: bool,
}

impl Connection {
    pub fn new(transport: Box<dyn Transport>, protocol: Arc<Protocol>) -> Self {
        Self { transport, protocol, outbox: Vec::new(), open: true }
    }

    /// The protocol version this connection speaks.
    pub fn protocol(&self) -> &Arc<Protocol> {
        &self.protocol
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

    /// Queues an already encoded packet body.
    pub fn send_raw(&mut self, body: Vec<u8>) {
        if self.open {
            self.outbox.push(body);
        }
    }

    pub fn is_open(&self) -> bool {
        self.open
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
        if !self.outbox.is_empty() {
            self.transport.send_batch(std::mem::take(&mut self.outbox));
        }
    }
}

/// One game packet received by a bot, decoded lazily by whoever handles it.
#[derive(Message, Debug, Clone)]
pub struct ClientboundPacket {
    pub bot: Entity,
    pub id: u32,
    pub body: Arc<[u8]>,
    pub protocol: Arc<Protocol>,
}

impl ClientboundPacket {
    /// The packet's name in the bot's protocol version.
    pub fn name(&self) -> &str {
        self.protocol.packet_name(self.id).unwrap_or("unknown")
    }

    /// Whether this is a `P`.
    pub fn is<P: Packet>(&self) -> bool {
        self.protocol.packet_id(P::NAME) == Some(self.id)
    }

    /// Decodes as `P` if this is one. A packet we can't decode is logged and skipped: a server
    /// sending garbage must not take the bot down.
    pub fn decode<P: Packet>(&self) -> Option<P> {
        if !self.is::<P>() {
            return None;
        }
        match self.protocol.decode_as::<P>(&self.body) {
            Ok(p) => Some(p),
            Err(e) => {
                tracing::warn!(packet = P::NAME, error = %e, "dropping undecodable packet");
                None
            }
        }
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
            .add_systems(PreUpdate, receive_packets.in_set(TickSet::Receive))
            .add_systems(bevy_app::Update, interrupt_on_shutdown.in_set(TickSet::HandlePackets))
            .add_systems(PostUpdate, (close_on_shutdown, flush_outbox).chain().in_set(TickSet::Send));
    }
}

/// Drains each transport into messages. A bot whose transport closed gets a `disconnected` event
/// (with the server's reason when it sent one) and moves to [`Lifecycle::Disconnected`].
pub fn receive_packets(
    mut bots: Query<(Entity, &mut Connection, &mut Lifecycle, Option<&ServerDisconnectReason>)>,
    mut packets: MessageWriter<'_, ClientboundPacket>,
    mut closed: MessageWriter<'_, ConnectionClosed>,
    mut events: MessageWriter<'_, AgentEvent>,
    mut interrupts: MessageWriter<'_, InterruptActions>,
) {
    for (bot, mut conn, mut lifecycle, server_reason) in &mut bots {
        if !conn.open {
            continue;
        }
        for event in conn.transport.poll() {
            match event {
                TransportEvent::Packets(bodies) => {
                    for body in bodies {
                        match peek_packet_id(&body) {
                            Ok(id) => packets.write(ClientboundPacket {
                                bot,
                                id,
                                body: body.into(),
                                protocol: conn.protocol.clone(),
                            }),
                            Err(e) => {
                                tracing::warn!(error = %e, "packet without a readable header");
                                continue;
                            }
                        };
                    }
                }
                TransportEvent::Closed { reason, error } => {
                    let reason = server_reason.map(|r| r.0.clone()).unwrap_or(reason);
                    tracing::info!(%reason, "connection closed");
                    conn.open = false;
                    *lifecycle = Lifecycle::Disconnected;
                    events.write(AgentEvent::of(&clawcraft_core::builtin::Disconnected { reason: reason.clone() }));
                    closed.write(ConnectionClosed { bot, reason, error });
                    interrupts.write(InterruptActions { bot, cause: Interruption::Disconnect });
                    break;
                }
            }
        }
    }
}

/// Sends each bot's queued packets as one batch.
pub fn flush_outbox(mut conns: Query<'_, '_, &mut Connection>) {
    for mut conn in &mut conns {
        if conn.open {
            conn.flush();
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
