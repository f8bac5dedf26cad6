//! The real transport: a UDP socket driven by one network thread, with the sans-IO RakNet client
//! and login session of `clawcraft-protocol` behind a mutex.
//!
//! Sends happen on the caller's thread (lock, encode, hand datagrams to the socket), so a batch
//! leaves the moment a tick flushes it; the thread only waits for datagrams and RakNet timers.
//! That keeps an idle bot near 0 % CPU without adding a tick of latency.

use std::io::ErrorKind;
use std::net::{SocketAddr, UdpSocket};
use std::sync::{Arc, Mutex, MutexGuard};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use clawcraft_protocol::raknet::{RakClient, RakConfig, RakEvent};
use clawcraft_protocol::session::{ClientSession, SessionConfig};

use crate::{Transport, TransportEvent};

/// Longest the thread sleeps in `recv` before checking timers and the stop flag.
const MAX_WAIT: Duration = Duration::from_millis(50);

struct Inner {
    socket: UdpSocket,
    rak: RakClient,
    session: ClientSession,
    inbound: Vec<TransportEvent>,
    /// Set once: the first reason the connection ended wins.
    closed: bool,
    stop: bool,
}

impl Inner {
    fn transmit(&mut self) {
        while let Some(datagram) = self.rak.poll_transmit() {
            if let Err(e) = self.socket.send(&datagram) {
                // ICMP port unreachable surfaces here on Linux; RakNet's timeout reports it.
                tracing::debug!(error = %e, "udp send failed");
            }
        }
    }

    fn close_with(&mut self, reason: String, error: bool) {
        if !self.closed {
            self.closed = true;
            self.inbound.push(TransportEvent::Closed { reason, error });
        }
    }

    /// Moves RakNet events through the login session to the app's inbox.
    fn pump(&mut self, now: Instant) {
        while let Some(event) = self.rak.poll_event() {
            match event {
                RakEvent::Connected => {
                    tracing::debug!("raknet connected, starting login");
                    match self.session.start() {
                        Ok(first) => self.send_message(&first, now),
                        Err(e) => {
                            tracing::error!(error = %e, "cannot start the login");
                            self.rak.disconnect(now);
                            self.close_with(format!("protocol error: {e}"), true);
                        }
                    }
                }
                // After refusing the stream, whatever else arrived is dropped unread.
                RakEvent::Message(_) if self.closed => {}
                RakEvent::Message(msg) => match self.session.handle_message(&msg) {
                    Ok(out) => {
                        for m in out.to_send {
                            self.send_message(&m, now);
                        }
                        if !out.packets.is_empty() {
                            self.inbound.push(TransportEvent::Packets(out.packets));
                        }
                    }
                    Err(e) => {
                        tracing::error!(error = %e, "refusing server stream");
                        self.rak.disconnect(now);
                        self.close_with(format!("protocol error: {e}"), true);
                    }
                },
                RakEvent::Disconnected(reason) => {
                    let error = !matches!(reason, clawcraft_protocol::raknet::DisconnectReason::ServerClosed);
                    self.close_with(reason.to_string(), error);
                }
            }
        }
        self.transmit();
    }

    fn send_message(&mut self, msg: &[u8], now: Instant) {
        if let Err(e) = self.rak.send(msg, now) {
            tracing::warn!(error = %e, "raknet refused a message");
        }
    }
}

/// A UDP connection to one server.
pub struct UdpTransport {
    inner: Arc<Mutex<Inner>>,
    thread: Option<JoinHandle<()>>,
}

fn lock(inner: &Mutex<Inner>) -> MutexGuard<'_, Inner> {
    inner.lock().unwrap_or_else(|p| p.into_inner())
}

impl UdpTransport {
    /// Opens a socket and starts connecting in the background. Loopback targets get a loopback
    /// socket, so tests never bind a public interface.
    pub fn connect(server: SocketAddr, session: SessionConfig) -> std::io::Result<Self> {
        Self::connect_session(server, ClientSession::new(session))
    }

    /// Like [`connect`](Self::connect) with a prepared login session (its key pair and login
    /// parameters, e.g. an online sign-in bound to that key).
    pub fn connect_session(server: SocketAddr, mut session: ClientSession) -> std::io::Result<Self> {
        let bind: SocketAddr = match (server.ip().is_loopback(), server.is_ipv4()) {
            (true, true) => "127.0.0.1:0".parse().map_err(std::io::Error::other)?,
            (true, false) => "[::1]:0".parse().map_err(std::io::Error::other)?,
            (false, true) => "0.0.0.0:0".parse().map_err(std::io::Error::other)?,
            (false, false) => "[::]:0".parse().map_err(std::io::Error::other)?,
        };
        let socket = UdpSocket::bind(bind)?;
        socket.connect(server)?;
        let now = Instant::now();
        let config = RakConfig { client_guid: rand::random(), ..RakConfig::default() };
        // The login's input mode must match the PlayerAuthInput we send (mouse).
        session.login_params_mut().input_mode = 1;
        let mut inner = Inner {
            socket: socket.try_clone()?,
            rak: RakClient::new(config, server, now),
            session,
            inbound: Vec::new(),
            closed: false,
            stop: false,
        };
        inner.transmit();
        let inner = Arc::new(Mutex::new(inner));
        let thread_inner = inner.clone();
        let thread = std::thread::Builder::new()
            .name("clawcraft-net".into())
            .spawn(move || network_thread(socket, thread_inner))?;
        Ok(Self { inner, thread: Some(thread) })
    }
}

fn network_thread(socket: UdpSocket, inner: Arc<Mutex<Inner>>) {
    let mut buf = vec![0u8; 2048];
    loop {
        let wait = {
            let g = lock(&inner);
            if g.stop || g.rak.is_closed() {
                break;
            }
            g.rak
                .next_timeout()
                .map(|t| t.saturating_duration_since(Instant::now()))
                .unwrap_or(MAX_WAIT)
                .clamp(Duration::from_millis(1), MAX_WAIT)
        };
        if let Err(e) = socket.set_read_timeout(Some(wait)) {
            tracing::error!(error = %e, "cannot set socket timeout");
            break;
        }
        let received = match socket.recv(&mut buf) {
            Ok(n) => Some(n),
            Err(e)
                if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut | ErrorKind::ConnectionRefused) =>
            {
                None
            }
            Err(e) => {
                tracing::debug!(error = %e, "udp recv failed");
                None
            }
        };
        let now = Instant::now();
        let mut g = lock(&inner);
        if let Some(n) = received {
            g.rak.handle_datagram(&buf[..n], now);
        }
        g.rak.tick(now);
        g.pump(now);
    }
    let mut g = lock(&inner);
    g.close_with("connection closed".into(), false);
}

impl Transport for UdpTransport {
    fn poll(&mut self) -> Vec<TransportEvent> {
        std::mem::take(&mut lock(&self.inner).inbound)
    }

    fn send_batch(&mut self, packets: Vec<Vec<u8>>) {
        let now = Instant::now();
        let mut g = lock(&self.inner);
        if g.closed {
            return;
        }
        match g.session.encode_batch(&packets) {
            Ok(msg) => g.send_message(&msg, now),
            Err(e) => tracing::error!(error = %e, "failed to encode batch"),
        }
        g.transmit();
    }

    fn close(&mut self) {
        let now = Instant::now();
        {
            let mut g = lock(&self.inner);
            g.rak.disconnect(now);
            g.transmit();
            g.stop = true;
            g.close_with("client disconnected".into(), false);
        }
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

impl Drop for UdpTransport {
    fn drop(&mut self) {
        lock(&self.inner).stop = true;
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}
