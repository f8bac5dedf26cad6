//! The RakNet client connection state machine.

use std::collections::VecDeque;
use std::net::SocketAddr;
use std::time::{Duration, Instant};

use tracing::debug;

use super::frame::{Datagram, FLAG_ACK, FLAG_NACK, Reliability, coalesce, encode_ack_datagrams, parse_datagram};
use super::message::{self, id};
use super::receive::Receiver;
use super::send::Sender;
use super::{DisconnectReason, MAX_MTU, MIN_MTU, RakConfig, RakError, RakEvent, UDP_OVERHEAD};

/// Where the connection is in its life.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    /// Sending padded OpenConnectionRequest1s, stepping down the MTU list.
    OpenRequest1,
    /// Got a usable Reply1; sending OpenConnectionRequest2.
    OpenRequest2,
    /// Got Reply2; ConnectionRequest sent inside a frame, waiting for it to be accepted.
    Connecting,
    /// Handshake done.
    Connected,
    /// Over; nothing more happens.
    Closed,
}

/// A sans-IO RakNet client connection.
///
/// Feed it with [`handle_datagram`](Self::handle_datagram) and [`tick`](Self::tick); drain
/// [`poll_transmit`](Self::poll_transmit) and [`poll_event`](Self::poll_event) after each call.
#[derive(Debug)]
pub struct RakClient {
    config: RakConfig,
    server: SocketAddr,
    /// Origin of the millisecond clock sent in pings and handshake messages.
    epoch: Instant,
    /// Latest time we were given; used when packing in `poll_transmit`, which takes no clock.
    last_now: Instant,
    phase: Phase,
    connect_deadline: Instant,
    // Handshake state.
    mtu_index: usize,
    attempts: u32,
    next_retry: Instant,
    sent_request2: bool,
    cookie: Option<u32>,
    mtu: u16,
    // Connected state.
    last_receive: Instant,
    ack_deadline: Option<Instant>,
    next_ping: Option<Instant>,
    receiver: Receiver,
    sender: Sender,
    out: VecDeque<Vec<u8>>,
    events: VecDeque<RakEvent>,
}

impl RakClient {
    /// Starts connecting to `server`: the first OpenConnectionRequest1 is ready in
    /// [`poll_transmit`](Self::poll_transmit) right away.
    pub fn new(config: RakConfig, server: SocketAddr, now: Instant) -> Self {
        let mtu = config.mtu_candidates.first().copied().unwrap_or(1492);
        let connect_deadline = now + config.connect_timeout;
        let mut client = Self {
            config,
            server,
            epoch: now,
            last_now: now,
            phase: Phase::OpenRequest1,
            connect_deadline,
            mtu_index: 0,
            attempts: 0,
            next_retry: now,
            sent_request2: false,
            cookie: None,
            mtu,
            last_receive: now,
            ack_deadline: None,
            next_ping: None,
            receiver: Receiver::default(),
            sender: Sender::default(),
            out: VecDeque::new(),
            events: VecDeque::new(),
        };
        if client.config.mtu_candidates.is_empty() {
            client.close(DisconnectReason::ConnectFailed("no MTU candidates configured".into()));
        } else {
            client.send_request1(now);
        }
        client
    }

    /// Whether the handshake completed and the connection is up.
    pub fn is_connected(&self) -> bool {
        self.phase == Phase::Connected
    }

    /// Whether the connection is over (after which only leftover datagrams/events are returned).
    pub fn is_closed(&self) -> bool {
        self.phase == Phase::Closed
    }

    /// The MTU in use (the current candidate while discovering).
    pub fn mtu(&self) -> u16 {
        self.mtu
    }

    /// Changes when ACKs and NACKs go out (see [`RakConfig::ack_interval`] and
    /// [`RakConfig::nack_delay`]); an ACK already due keeps its deadline or gets an earlier one.
    pub fn set_ack_timing(&mut self, ack_interval: Duration, nack_delay: Duration) {
        self.config.ack_interval = ack_interval;
        self.config.nack_delay = nack_delay;
        if let Some(due) = self.ack_deadline {
            self.ack_deadline = Some(due.min(self.last_now + ack_interval));
        }
    }

    /// Smoothed round-trip time estimate (300 ms until the first ACK, pong or accepted request
    /// has been measured).
    pub fn rtt(&self) -> Duration {
        self.sender.rtt()
    }

    /// The server address given to [`new`](Self::new).
    pub fn server(&self) -> SocketAddr {
        self.server
    }

    /// Milliseconds since this client was created, the clock RakNet timestamps use.
    fn time_ms(&self, now: Instant) -> i64 {
        now.saturating_duration_since(self.epoch).as_millis() as i64
    }

    /// Handles one received UDP payload from the server. Malformed input is dropped (logged at
    /// debug level); this never panics.
    pub fn handle_datagram(&mut self, data: &[u8], now: Instant) {
        if self.is_closed() {
            return;
        }
        self.last_now = self.last_now.max(now);
        let Some(&first) = data.first() else {
            debug!("empty datagram dropped");
            return;
        };
        let result = if first & 0x80 != 0 {
            self.handle_connected_datagram(data, now)
        } else {
            self.handle_offline(first, data, now)
        };
        if let Err(e) = result {
            debug!(error = %e, len = data.len(), "dropping malformed RakNet datagram");
        }
    }

    /// Offline messages: handshake replies and rejections.
    fn handle_offline(&mut self, msg_id: u8, data: &[u8], now: Instant) -> Result<(), RakError> {
        let handshaking = matches!(self.phase, Phase::OpenRequest1 | Phase::OpenRequest2);
        match msg_id {
            id::OPEN_CONNECTION_REPLY_1 if handshaking => {
                let reply = message::parse_open_connection_reply1(data)?;
                self.on_reply1(reply, now);
            }
            id::OPEN_CONNECTION_REPLY_2 if self.phase == Phase::OpenRequest2 || (handshaking && self.sent_request2) => {
                let reply = message::parse_open_connection_reply2(data)?;
                self.on_reply2(reply, now);
            }
            id::INCOMPATIBLE_PROTOCOL_VERSION if !self.is_connected() => {
                let version = message::parse_incompatible_protocol(data)?;
                self.close(DisconnectReason::IncompatibleProtocol(version));
            }
            id::ALREADY_CONNECTED
            | id::NO_FREE_INCOMING_CONNECTIONS
            | id::CONNECTION_BANNED
            | id::IP_RECENTLY_CONNECTED
                if !self.is_connected() =>
            {
                self.close(DisconnectReason::ConnectFailed(message::id_name(msg_id).into()));
            }
            other => debug!(id = other, phase = ?self.phase, "ignoring offline message"),
        }
        Ok(())
    }

    fn on_reply1(&mut self, reply: message::Reply1, now: Instant) {
        let candidate = self.mtu;
        if reply.server_guid == 0 || !(MIN_MTU..=MAX_MTU).contains(&reply.mtu) {
            // Some DDoS-protection front ends answer first with a bogus Reply1 and only answer
            // properly after seeing a Request2 (go-raknet does the same dance).
            debug!(?reply, "suspicious OpenConnectionReply1, probing with a Request2");
            if self.phase == Phase::OpenRequest1 {
                self.cookie = reply.cookie;
                self.sent_request2 = true;
                self.push_request2();
            }
            return;
        }
        // A fresh Reply1 while in OpenRequest2 carries a new cookie: refresh and resend.
        self.cookie = reply.cookie;
        if self.phase == Phase::OpenRequest1 {
            self.mtu = reply.mtu.min(candidate).clamp(MIN_MTU, MAX_MTU);
        }
        self.phase = Phase::OpenRequest2;
        self.sent_request2 = true;
        self.push_request2();
        self.next_retry = now + self.config.retry_interval;
    }

    fn push_request2(&mut self) {
        let pkt =
            message::encode_open_connection_request2(self.cookie, &self.server, self.mtu, self.config.client_guid);
        self.out.push_back(pkt);
    }

    fn on_reply2(&mut self, reply: message::Reply2, now: Instant) {
        if (MIN_MTU..=MAX_MTU).contains(&reply.mtu) {
            // Never exceed what we asked for: only that size is known to pass the path.
            self.mtu = reply.mtu.min(self.mtu);
        } else {
            debug!(mtu = reply.mtu, "ignoring silly MTU in OpenConnectionReply2");
        }
        self.phase = Phase::Connecting;
        self.last_receive = now;
        let request = message::encode_connection_request(self.config.client_guid, self.time_ms(now));
        self.queue_frame(request, Reliability::Reliable);
    }

    /// Queues a control message (taken over, not copied); it cannot fail for our small
    /// fixed-size messages.
    fn queue_frame(&mut self, payload: Vec<u8>, reliability: Reliability) {
        if let Err(e) = self.sender.queue_owned(payload, reliability, 0, self.mtu) {
            debug!(error = %e, "could not queue control message");
        }
    }

    /// Connected datagrams: ACK, NACK or frames.
    fn handle_connected_datagram(&mut self, data: &[u8], now: Instant) -> Result<(), RakError> {
        if !matches!(self.phase, Phase::Connecting | Phase::Connected) {
            debug!(phase = ?self.phase, "connected datagram before the handshake, dropped");
            return Ok(());
        }
        match parse_datagram(data)? {
            Datagram::Ack(ranges) => self.sender.on_ack(ranges, now),
            Datagram::Nack(ranges) => self.sender.on_nack(ranges, now, &mut self.out),
            Datagram::Data { seq, frames } => {
                if self.receiver.receive_datagram(seq, now) {
                    let mut delivered = Vec::new();
                    for f in frames {
                        self.receiver.receive_frame(f, &mut delivered);
                    }
                    for payload in delivered {
                        self.handle_message(payload, now);
                        if self.is_closed() {
                            break;
                        }
                    }
                }
                if !self.is_closed() {
                    let due = now + self.config.ack_interval;
                    self.ack_deadline = Some(self.ack_deadline.map_or(due, |d| d.min(due)));
                }
            }
        }
        self.last_receive = now;
        Ok(())
    }

    /// A complete message from a frame: RakNet control messages are handled here, everything
    /// else goes to the application once connected.
    fn handle_message(&mut self, payload: Vec<u8>, now: Instant) {
        let Some(&msg_id) = payload.first() else {
            return;
        };
        let result = match msg_id {
            id::CONNECTED_PING => message::parse_ping_time(&payload).map(|t| {
                let pong = message::encode_connected_pong(t, self.time_ms(now));
                self.queue_frame(pong, Reliability::Unreliable);
            }),
            id::CONNECTED_PONG => message::parse_ping_time(&payload).map(|t| {
                let elapsed = self.time_ms(now) - t;
                if elapsed >= 0 {
                    self.sender.rtt_sample(Duration::from_millis(elapsed as u64));
                }
            }),
            id::DETECT_LOST_CONNECTIONS => {
                self.queue_ping(now);
                Ok(())
            }
            id::CONNECTION_REQUEST_ACCEPTED => self.on_accepted(&payload, now),
            id::DISCONNECTION_NOTIFICATION => {
                self.close(DisconnectReason::ServerClosed);
                Ok(())
            }
            id::ALREADY_CONNECTED
            | id::NO_FREE_INCOMING_CONNECTIONS
            | id::CONNECTION_BANNED
            | id::IP_RECENTLY_CONNECTED
            | id::CONNECTION_ATTEMPT_FAILED
                if !self.is_connected() =>
            {
                self.close(DisconnectReason::ConnectFailed(message::id_name(msg_id).into()));
                Ok(())
            }
            b if message::is_raknet_control(b) => {
                debug!(id = b, "ignoring RakNet control message");
                Ok(())
            }
            _ if self.is_connected() => {
                self.events.push_back(RakEvent::Message(payload));
                Ok(())
            }
            b => {
                debug!(id = b, "application message before the handshake completed, dropped");
                Ok(())
            }
        };
        if let Err(e) = result {
            debug!(error = %e, id = msg_id, "malformed control message dropped");
        }
    }

    fn on_accepted(&mut self, payload: &[u8], now: Instant) -> Result<(), RakError> {
        if self.phase != Phase::Connecting {
            return Ok(()); // a resent duplicate after we are connected
        }
        let accepted = message::parse_connection_request_accepted(payload)?;
        let elapsed = self.time_ms(now) - accepted.request_time;
        if elapsed >= 0 {
            self.sender.rtt_sample(Duration::from_millis(elapsed as u64));
        }
        let nic = message::encode_new_incoming_connection(&self.server, accepted.accepted_time, self.time_ms(now));
        self.queue_frame(nic, Reliability::ReliableOrdered);
        self.phase = Phase::Connected;
        self.next_ping = Some(now + self.config.ping_interval);
        self.events.push_back(RakEvent::Connected);
        Ok(())
    }

    fn queue_ping(&mut self, now: Instant) {
        let ping = message::encode_connected_ping(self.time_ms(now));
        self.queue_frame(ping, Reliability::Unreliable);
    }

    /// Drives timers: handshake retries and give-up, ACK/NACK flush, resends, pings, timeout.
    pub fn tick(&mut self, now: Instant) {
        if self.is_closed() {
            return;
        }
        self.last_now = self.last_now.max(now);
        match self.phase {
            Phase::OpenRequest1 | Phase::OpenRequest2 | Phase::Connecting if now >= self.connect_deadline => {
                let why = format!("handshake timed out ({:?})", self.phase);
                self.close(DisconnectReason::ConnectFailed(why));
            }
            Phase::OpenRequest1 if now >= self.next_retry => self.retry_request1(now),
            Phase::OpenRequest2 if now >= self.next_retry => {
                self.push_request2();
                self.next_retry = now + self.config.retry_interval;
            }
            Phase::Connecting | Phase::Connected => self.tick_connected(now),
            _ => {}
        }
    }

    /// Sends the next Request1, stepping down the MTU list when attempts run out.
    fn retry_request1(&mut self, now: Instant) {
        if self.attempts >= self.config.attempts_per_mtu.max(1) {
            self.mtu_index += 1;
            self.attempts = 0;
            match self.config.mtu_candidates.get(self.mtu_index) {
                Some(&mtu) => self.mtu = mtu,
                None => {
                    let why = "no OpenConnectionReply1 at any MTU".to_string();
                    self.close(DisconnectReason::ConnectFailed(why));
                    return;
                }
            }
        }
        self.send_request1(now);
    }

    fn send_request1(&mut self, now: Instant) {
        self.out.push_back(message::encode_open_connection_request1(self.mtu));
        self.attempts += 1;
        self.next_retry = now + self.config.retry_interval;
    }

    fn tick_connected(&mut self, now: Instant) {
        if now.saturating_duration_since(self.last_receive) >= self.config.timeout {
            self.close(DisconnectReason::Timeout);
            return;
        }
        if self.ack_deadline.is_some_and(|d| now >= d) {
            self.flush_acks(now);
        }
        self.sender.resend_due(now, &mut self.out);
        if let Some(at) = self.next_ping.filter(|&at| now >= at) {
            self.queue_ping(now);
            // Schedule from the planned time so a late tick does not drift the cadence forever.
            let mut next = at + self.config.ping_interval;
            if next <= now {
                next = now + self.config.ping_interval;
            }
            self.next_ping = Some(next);
        }
    }

    /// Sends pending ACKs and NACKs, each datagram within the MTU.
    fn flush_acks(&mut self, now: Instant) {
        let max = usize::from(self.mtu.saturating_sub(UDP_OVERHEAD));
        let mut acks = self.receiver.take_acks();
        if !acks.is_empty() {
            let ranges = coalesce(&mut acks);
            self.out.extend(encode_ack_datagrams(FLAG_ACK, &ranges, max));
        }
        let mut nacks = self.receiver.take_nacks(now, self.config.nack_delay);
        if !nacks.is_empty() {
            let ranges = coalesce(&mut nacks);
            self.out.extend(encode_ack_datagrams(FLAG_NACK, &ranges, max));
        }
        // Gaps too young to NACK yet need another flush even if nothing else arrives.
        self.ack_deadline = self.receiver.next_nack_at(self.config.nack_delay);
    }

    /// Queues `payload` (e.g. a `0xFE` game batch) reliable-ordered on channel 0, splitting it
    /// when it exceeds what one datagram can carry at the current MTU.
    pub fn send(&mut self, payload: &[u8], now: Instant) -> Result<(), RakError> {
        self.check_send(now)?;
        self.sender.queue(payload, Reliability::ReliableOrdered, 0, self.mtu)
    }

    /// [`send`](Self::send) taking the payload over: a message that fits one datagram is kept
    /// (for resending) without a copy.
    pub fn send_owned(&mut self, payload: Vec<u8>, now: Instant) -> Result<(), RakError> {
        self.check_send(now)?;
        self.sender.queue_owned(payload, Reliability::ReliableOrdered, 0, self.mtu)
    }

    /// An empty buffer to build the next message in, for [`send_owned`](Self::send_owned): the
    /// payload buffer of an acknowledged frame when there is one, so a message per tick
    /// allocates nothing.
    pub fn spare_buffer(&mut self) -> Vec<u8> {
        self.sender.spare_payload()
    }

    fn check_send(&mut self, now: Instant) -> Result<(), RakError> {
        match self.phase {
            Phase::Closed => return Err(RakError::Closed),
            Phase::Connected => {}
            _ => return Err(RakError::NotConnected),
        }
        self.last_now = self.last_now.max(now);
        Ok(())
    }

    /// Sends DisconnectionNotification (after anything already queued) and closes the connection.
    pub fn disconnect(&mut self, now: Instant) {
        if self.is_closed() {
            return;
        }
        self.last_now = self.last_now.max(now);
        if matches!(self.phase, Phase::Connecting | Phase::Connected) {
            self.queue_frame(vec![id::DISCONNECTION_NOTIFICATION], Reliability::ReliableOrdered);
        }
        self.close(DisconnectReason::LocalClose);
    }

    /// Moves to `Closed`, flushing what the peer should still see (ACKs and queued frames).
    fn close(&mut self, reason: DisconnectReason) {
        if self.is_closed() {
            return;
        }
        debug!(%reason, "RakNet connection closed");
        if matches!(self.phase, Phase::Connecting | Phase::Connected) {
            let now = self.last_now;
            self.flush_acks(now);
            while let Some(d) = self.sender.pack(self.mtu, now, true) {
                self.out.push_back(d);
            }
        }
        self.phase = Phase::Closed;
        self.ack_deadline = None;
        self.next_ping = None;
        self.events.push_back(RakEvent::Disconnected(reason));
    }

    /// The next UDP payload to send to the server, if any.
    pub fn poll_transmit(&mut self) -> Option<Vec<u8>> {
        if let Some(d) = self.out.pop_front() {
            return Some(d);
        }
        if matches!(self.phase, Phase::Connecting | Phase::Connected) {
            return self.sender.pack(self.mtu, self.last_now, false);
        }
        None
    }

    /// [`poll_transmit`](Self::poll_transmit) into `buf` (cleared first, its capacity reused):
    /// returns whether there was a datagram to send. Packing the next datagram straight into
    /// `buf` allocates nothing once `buf` has grown to a datagram's size.
    pub fn poll_transmit_into(&mut self, buf: &mut Vec<u8>) -> bool {
        buf.clear();
        if let Some(d) = self.out.pop_front() {
            buf.extend_from_slice(&d);
            return true;
        }
        matches!(self.phase, Phase::Connecting | Phase::Connected)
            && self.sender.pack_into(self.mtu, self.last_now, false, buf)
    }

    /// The next event, if any.
    pub fn poll_event(&mut self) -> Option<RakEvent> {
        self.events.pop_front()
    }

    /// When [`tick`](Self::tick) must next be called; `None` once closed.
    pub fn next_timeout(&self) -> Option<Instant> {
        match self.phase {
            Phase::Closed => None,
            Phase::OpenRequest1 | Phase::OpenRequest2 => Some(self.next_retry.min(self.connect_deadline)),
            Phase::Connecting | Phase::Connected => {
                let mut t = self.last_receive + self.config.timeout;
                if self.phase == Phase::Connecting {
                    t = t.min(self.connect_deadline);
                }
                let timers = [self.ack_deadline, self.sender.next_resend(), self.next_ping];
                for c in timers.into_iter().flatten() {
                    t = t.min(c);
                }
                Some(t)
            }
        }
    }

    /// Whether frames are queued that [`poll_transmit`](Self::poll_transmit) would send.
    pub fn has_pending_transmit(&self) -> bool {
        !self.out.is_empty() || (matches!(self.phase, Phase::Connecting | Phase::Connected) && self.sender.has_queued())
    }
}
