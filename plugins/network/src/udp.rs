//! The real transport: a UDP socket, the sans-IO RakNet client of `clawcraft-protocol` and the
//! login session, driven by a network thread (`clawcraft-net`) until the bot spawned, then by the
//! game loop itself.
//!
//! The thread first asks the server which version it runs (RakNet unconnected ping → pong,
//! `MCPE;motd;protocol;version;…`), picks the supported version to speak
//! ([`clawcraft_protocol::version::choose`]) and reports it to the app
//! ([`TransportEvent::Version`]); a server outside the supported list ends the connection with
//! a reason naming both. Then it connects and logs in.
//!
//! Until spawn the game loop never touches the socket and never waits for the network thread: a
//! tick's batch goes over a channel (waking the thread through its event loop), arrivals come
//! back over another. Decryption and decompression of the big batches of the join (the world)
//! happen on the network thread, so they never hold up a tick.
//!
//! Once the bot spawned, [`Transport::settle`] asks the thread to hand the connection over: it
//! finishes its turn, sends its state (socket, RakNet client, session) back over the inbound
//! channel, behind every packet it delivered, and ends. From then on [`Transport::poll`] drains
//! the socket without blocking and runs RakNet's timers (resends, pings, the timeout, ACKs: the
//! ACK interval becomes 0, so ACKs leave once per tick), and [`Transport::flush`] sends the tick's
//! batch with the pending ACKs in one pass. An idle bot's traffic is one batch a tick each way, so
//! a thread of its own would only add a sleep and a wake-up (~50 µs of CPU each) per datagram.

use std::io::ErrorKind;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

use clawcraft_protocol::codec::Protocol;
use clawcraft_protocol::login::{LoginKeys, OfflineLogin, OfflineShape, OnlineLogin};
use clawcraft_protocol::raknet::{
    DisconnectReason, RakClient, RakConfig, RakEvent, encode_unconnected_ping, parse_unconnected_pong,
};
use clawcraft_protocol::session::{ClientSession, LoginOutcome, SessionConfig};
use clawcraft_protocol::version::{Advertised, VersionChoice, choose};
use crossbeam_channel::{Receiver, Sender, TryRecvError};
use mio::net::UdpSocket;
use mio::{Events, Interest, Poll, Token, Waker};

use crate::{LoginReport, Transport, TransportEvent};

/// Longest the thread sleeps when no timer is due (it also wakes for every datagram and every
/// batch).
const MAX_WAIT: Duration = Duration::from_secs(1);
/// Unconnected pings sent before giving up on a pong.
const PINGS: u32 = 4;
/// Time between pings.
const PING_EVERY: Duration = Duration::from_millis(500);
const SOCKET: Token = Token(0);
const WAKER: Token = Token(1);
/// Inline, a gap in the server's datagrams is NACKed at the first tick this long after it was
/// seen (the next one at 20 Hz), so a datagram that was merely reordered is not asked for again.
const INLINE_NACK_DELAY: Duration = Duration::from_millis(40);
/// How long closing waits for a connection the network thread is handing over, so the
/// DisconnectionNotification still leaves (the thread hands over within its turn).
const HANDOVER_WAIT: Duration = Duration::from_millis(500);

/// Network threads still running (so a process can let the last DisconnectionNotification
/// leave before it exits; see [`wait_for_network_threads`]).
static LIVE_THREADS: AtomicUsize = AtomicUsize::new(0);

/// Who connects, and to what.
#[derive(Debug, Clone)]
pub struct ConnectParams {
    /// Player name.
    pub username: String,
    /// `"host:port"` as dialled (goes into the login).
    pub server_address: String,
    /// A version forced by the user (`--game-version`); `None` or `"auto"`: the server's.
    pub forced_version: Option<String>,
    /// The connection's key pair (an online sign-in is bound to it); `None`: a fresh one.
    pub keys: Option<LoginKeys>,
    /// The online (Xbox Live) login for `keys`; `None`: offline.
    pub online: Option<OnlineLogin>,
    /// The offline login's shape (`--offline-login`); unused online.
    pub offline_login: OfflineLogin,
    /// Set on the retry of an `auto` offline login: the shape the server refused first and why.
    pub refused_first: Option<(OfflineShape, String)>,
}

impl ConnectParams {
    /// An offline connection with a fresh key.
    pub fn offline(username: &str, server_address: &str, forced_version: Option<&str>) -> Self {
        Self {
            username: username.to_owned(),
            server_address: server_address.to_owned(),
            forced_version: forced_version.map(str::to_owned),
            keys: None,
            online: None,
            offline_login: OfflineLogin::Auto,
            refused_first: None,
        }
    }
}

/// The offline login shape each server accepted, for the process's life (see
/// [`accepted_offline_shape`]).
static ACCEPTED_SHAPES: std::sync::Mutex<Vec<(SocketAddr, OfflineShape)>> = std::sync::Mutex::new(Vec::new());

/// The offline login shape `server` accepted last in this process, if any: an `auto` login
/// sends it first.
pub fn accepted_offline_shape(server: SocketAddr) -> Option<OfflineShape> {
    let shapes = ACCEPTED_SHAPES.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    shapes.iter().find(|(s, _)| *s == server).map(|(_, shape)| *shape)
}

fn remember_offline_shape(server: SocketAddr, shape: OfflineShape) {
    let mut shapes = ACCEPTED_SHAPES.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    match shapes.iter_mut().find(|(s, _)| *s == server) {
        Some(entry) => entry.1 = shape,
        None => shapes.push((server, shape)),
    }
}

/// The offline shape to send first, and the one to retry with when the server refuses the
/// identity (`auto` only; never online).
fn offline_plan(params: &ConnectParams, server: SocketAddr, protocol: i32) -> (OfflineShape, Option<OfflineShape>) {
    match params.offline_login {
        OfflineLogin::Only(shape) => (shape, None),
        OfflineLogin::Auto => {
            let first = accepted_offline_shape(server).unwrap_or_else(|| OfflineShape::vanilla(protocol));
            let retry = (params.online.is_none() && params.refused_first.is_none()).then(|| first.other());
            (first, retry)
        }
    }
}

/// What the game loop asks of the network thread.
enum ToNet {
    Batch(Vec<Vec<u8>>),
    /// Hand the connection over to the game loop (see the module docs).
    Settle,
    Close,
}

/// What the network thread tells the game loop.
enum FromNet {
    Event(TransportEvent),
    /// The connection, for the game loop to drive from now on; the thread has ended.
    Inline(Box<Inline>),
    /// The server refused the offline login's identity: connect again with the other shape (the
    /// thread has ended, its connection closed).
    RetryLogin {
        refused: OfflineShape,
        reason: String,
    },
}

/// A UDP connection to one server.
pub struct UdpTransport {
    link: Link,
    closed: bool,
    server: SocketAddr,
    /// What the connection was opened with (an `auto` offline login's retry reuses it).
    params: ConnectParams,
}

/// Who drives the connection.
enum Link {
    /// The network thread (connecting, logging in, joining).
    Thread(Threaded),
    /// The game loop, in [`Transport::poll`] and [`Transport::flush`] (after spawn).
    Inline(Box<Inline>),
}

/// The game loop's end of the network thread.
struct Threaded {
    tx: Sender<ToNet>,
    rx: Receiver<FromNet>,
    /// The thread's own command queue: after a handover, the batches queued behind the
    /// [`ToNet::Settle`] the thread stopped at are taken from here, in order.
    commands: Receiver<ToNet>,
    /// Set by the network thread once its event loop exists (before that, it reads the channel
    /// on its first turn anyway).
    waker: Arc<OnceLock<Waker>>,
    /// A handover was asked for.
    settling: bool,
}

impl Threaded {
    fn ask(&self, msg: ToNet) {
        if self.tx.send(msg).is_ok()
            && let Some(w) = self.waker.get()
        {
            let _ = w.wake();
        }
    }
}

impl UdpTransport {
    /// Starts (pinging, then) connecting in the background: the network thread opens the socket
    /// (a loopback socket for a loopback server, so tests never bind a public interface), so the
    /// caller (a reconnect runs inside a system) does no socket work. A socket that cannot be
    /// opened ends the connection with an error event.
    pub fn connect(server: SocketAddr, params: ConnectParams) -> std::io::Result<Self> {
        let link = Self::start_thread(server, params.clone())?;
        Ok(Self { link, closed: false, server, params })
    }

    /// The network thread of one connection attempt.
    fn start_thread(server: SocketAddr, params: ConnectParams) -> std::io::Result<Link> {
        let (tx, commands) = crossbeam_channel::unbounded();
        let (inbound, rx) = crossbeam_channel::unbounded();
        let waker: Arc<OnceLock<Waker>> = Arc::default();
        let slot = waker.clone();
        let queue = commands.clone();
        LIVE_THREADS.fetch_add(1, Ordering::SeqCst);
        let spawned = std::thread::Builder::new().name("clawcraft-net".into()).spawn(move || {
            match Net::open(server, params, inbound.clone(), &slot) {
                Ok((net, poll)) => net.run(poll, &queue),
                Err(e) => {
                    let reason = format!("cannot open a socket to {server}: {e}");
                    let _ = inbound.send(FromNet::Event(TransportEvent::Closed { reason, error: true }));
                }
            }
            LIVE_THREADS.fetch_sub(1, Ordering::SeqCst);
        });
        if let Err(e) = spawned {
            LIVE_THREADS.fetch_sub(1, Ordering::SeqCst);
            return Err(e);
        }
        Ok(Link::Thread(Threaded { tx, rx, commands, waker, settling: false }))
    }

    /// Connects again, with the other offline shape than the one the server refused.
    fn retry_login(&mut self, refused: OfflineShape, reason: String, events: &mut Vec<TransportEvent>) {
        tracing::info!(refused = refused.as_str(), %reason, "the server refused the offline login; once more as {}", refused.other().as_str());
        let mut params = self.params.clone();
        params.offline_login = OfflineLogin::Only(refused.other());
        params.refused_first = Some((refused, reason.clone()));
        match Self::start_thread(self.server, params) {
            Ok(link) => self.link = link,
            Err(e) => {
                let reason = format!("{reason} (and the retry could not open a socket: {e})");
                events.push(TransportEvent::Closed { reason, error: true });
            }
        }
    }

    /// Takes over the connection the network thread handed over, with the batches queued
    /// behind the handover request.
    fn take_over(&mut self, mut inline: Box<Inline>) {
        let Link::Thread(thread) = &self.link else { return };
        let now = Instant::now();
        for command in thread.commands.try_iter() {
            if let ToNet::Batch(packets) = command {
                inline.send_batch(&packets, now);
            }
        }
        tracing::debug!("network I/O now runs on the game thread");
        self.link = Link::Inline(inline);
    }
}

/// Waits (up to `timeout`) until every network thread has ended, so the DisconnectionNotification
/// of a polite shutdown leaves before the process exits. Call it after the app stopped. (A
/// connection the game loop drives sends it at once when closed or dropped.)
pub fn wait_for_network_threads(timeout: Duration) {
    let deadline = Instant::now() + timeout;
    while LIVE_THREADS.load(Ordering::SeqCst) > 0 && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(2));
    }
}

impl Transport for UdpTransport {
    fn poll(&mut self) -> Vec<TransportEvent> {
        let mut events = Vec::new();
        if let Link::Thread(thread) = &self.link {
            let mut handed = None;
            let mut retry = None;
            for msg in thread.rx.try_iter() {
                match msg {
                    FromNet::Event(event) => events.push(event),
                    // The thread's last message: it sends nothing after it.
                    FromNet::Inline(inline) => {
                        handed = Some(inline);
                        break;
                    }
                    FromNet::RetryLogin { refused, reason } => {
                        retry = Some((refused, reason));
                        break;
                    }
                }
            }
            if let Some(inline) = handed {
                self.take_over(inline);
            }
            if let Some((refused, reason)) = retry
                && !self.closed
            {
                self.retry_login(refused, reason, &mut events);
            }
        }
        if let Link::Inline(inline) = &mut self.link {
            inline.poll(Instant::now(), &mut events);
        }
        events
    }

    fn send_batch(&mut self, packets: &mut Vec<Vec<u8>>) {
        if self.closed {
            packets.clear();
            return;
        }
        match &mut self.link {
            Link::Thread(thread) => thread.ask(ToNet::Batch(std::mem::take(packets))),
            // The sent bodies stay in the list: the connection reuses their buffers.
            Link::Inline(inline) => inline.send_batch(packets, Instant::now()),
        }
    }

    fn flush(&mut self) {
        if let Link::Inline(inline) = &mut self.link {
            inline.transmit();
        }
    }

    fn settle(&mut self) {
        if let Link::Thread(thread) = &mut self.link
            && !thread.settling
            && !self.closed
        {
            thread.settling = true;
            thread.ask(ToNet::Settle);
        }
    }

    fn close(&mut self) {
        if self.closed {
            return;
        }
        self.closed = true;
        if let Link::Thread(thread) = &self.link {
            if !thread.settling {
                thread.ask(ToNet::Close);
                return;
            }
            // The thread stops reading commands at the handover request, so the connection it
            // is handing over is closed here (unless the thread ended on its own meanwhile).
            let deadline = Instant::now() + HANDOVER_WAIT;
            let mut handed = None;
            while let Ok(msg) = thread.rx.recv_deadline(deadline) {
                if let FromNet::Inline(inline) = msg {
                    handed = Some(inline);
                    break;
                }
            }
            match handed {
                Some(inline) => self.take_over(inline),
                None => return,
            }
        }
        if let Link::Inline(inline) = &mut self.link {
            inline.close(Instant::now());
        }
    }
}

impl Drop for UdpTransport {
    /// Leaves politely: tells the thread (never waiting for it), or sends the
    /// DisconnectionNotification itself once inline.
    fn drop(&mut self) {
        self.close();
    }
}

/// The RakNet connection and login session of the chosen version.
struct Live {
    rak: RakClient,
    session: ClientSession,
    /// The datagram being sent (reused, so sending allocates nothing).
    datagram: Vec<u8>,
    /// The offline shape the login carries (`None` online).
    shape: Option<OfflineShape>,
    /// Whether a refused identity is retried with the other shape (an `auto` first attempt).
    may_retry: bool,
    /// What the login's answer asks of the network thread, once.
    answer: Option<LoginAnswer>,
}

/// What the login's answer asks of the network thread.
enum LoginAnswer {
    /// Accepted: report the shape (and remember it).
    Accepted,
    /// The identity was refused and may be retried: the connection is closing.
    Retry(String),
}

impl Live {
    fn new(rak: RakClient, session: ClientSession, shape: Option<OfflineShape>, may_retry: bool) -> Self {
        Self { rak, session, datagram: Vec::with_capacity(2048), shape, may_retry, answer: None }
    }

    /// Encodes a tick's batch into one RakNet message.
    fn send_batch(&mut self, packets: &[Vec<u8>], now: Instant) {
        let buf = self.rak.spare_buffer();
        match self.session.encode_batch_into(packets, buf) {
            Ok(msg) => send_message(&mut self.rak, msg, now),
            Err(e) => tracing::error!(error = %e, "failed to encode batch"),
        }
    }

    /// Moves RakNet events through the login session: game packets go to `deliver`. Returns why
    /// the connection ended, if it did. After `refusing` (an earlier refused stream), messages
    /// are dropped unread.
    fn pump(&mut self, now: Instant, refusing: bool, mut deliver: impl FnMut(Vec<Vec<u8>>)) -> Option<(String, bool)> {
        let mut closing: Option<(String, bool)> = None;
        let Live { rak, session, may_retry, answer, .. } = self;
        while let Some(event) = rak.poll_event() {
            match event {
                RakEvent::Connected => {
                    tracing::debug!("raknet connected, starting login");
                    match session.start() {
                        Ok(first) => send_message(rak, first, now),
                        Err(e) => {
                            tracing::error!(error = %e, "cannot start the login");
                            rak.disconnect(now);
                            closing.get_or_insert((format!("protocol error: {e}"), true));
                        }
                    }
                }
                // After refusing the stream, whatever else arrived is dropped unread.
                RakEvent::Message(_) if refusing || closing.is_some() => {}
                RakEvent::Message(msg) => match session.handle_message(&msg) {
                    Ok(out) => {
                        match out.login {
                            Some(LoginOutcome::Refused { identity: true, reason }) if *may_retry => {
                                // Not the app's business: the transport connects again.
                                rak.disconnect(now);
                                *answer = Some(LoginAnswer::Retry(reason.clone()));
                                closing.get_or_insert((reason, true));
                                continue;
                            }
                            Some(LoginOutcome::Accepted) => *answer = Some(LoginAnswer::Accepted),
                            _ => {}
                        }
                        for m in out.to_send {
                            send_message(rak, m, now);
                        }
                        if !out.packets.is_empty() {
                            deliver(out.packets);
                        }
                    }
                    Err(e) => {
                        tracing::error!(error = %e, "refusing server stream");
                        rak.disconnect(now);
                        closing.get_or_insert((format!("protocol error: {e}"), true));
                    }
                },
                RakEvent::Disconnected(reason) => {
                    let error = !matches!(reason, DisconnectReason::ServerClosed);
                    closing.get_or_insert((reason.to_string(), error));
                }
            }
        }
        closing
    }

    /// Sends every datagram RakNet has ready.
    fn transmit(&mut self, socket: &UdpSocket) {
        while self.rak.poll_transmit_into(&mut self.datagram) {
            if let Err(e) = socket.send(&self.datagram) {
                // A full socket buffer or ICMP error: RakNet resends what was reliable.
                tracing::debug!(error = %e, "udp send failed");
            }
        }
    }
}

/// The length of the next datagram waiting on the socket, read into `buf`; `None` when none
/// waits (never blocks).
fn recv_next(socket: &UdpSocket, buf: &mut [u8]) -> Option<usize> {
    loop {
        match socket.recv(buf) {
            Ok(n) => return Some(n),
            Err(e) if e.kind() == ErrorKind::WouldBlock => return None,
            // ICMP port unreachable surfaces here on Linux; RakNet's timeout reports it.
            Err(e) if matches!(e.kind(), ErrorKind::Interrupted | ErrorKind::ConnectionRefused) => {}
            Err(e) => {
                tracing::debug!(error = %e, "udp recv failed");
                return None;
            }
        }
    }
}

/// Datagrams one receive call of the inline transport may return (see [`drain`]).
const RECV_BATCH: usize = 8;
/// Bytes of one receive buffer (above any RakNet MTU).
const DATAGRAM_BUF: usize = 2048;

/// The inline transport's receive buffers.
struct RecvBuffers(Box<[[u8; DATAGRAM_BUF]; RECV_BATCH]>);

impl RecvBuffers {
    fn new() -> Self {
        Self(Box::new([[0; DATAGRAM_BUF]; RECV_BATCH]))
    }
}

/// Hands every datagram waiting on `socket` to `handle`, in order, never blocking. One
/// `recvmmsg` takes up to [`RECV_BATCH`] at once, and a call that returns fewer has emptied the
/// queue: an idle tick's drain (the server's ACK of our last batch) is one system call, not a
/// `recv` and then the failing `recv` that says the socket is empty.
#[cfg(any(target_os = "linux", target_os = "android"))]
fn drain(socket: &UdpSocket, bufs: &mut RecvBuffers, mut handle: impl FnMut(&[u8])) {
    use std::io::IoSliceMut;
    use std::os::fd::AsRawFd;

    use nix::errno::Errno;
    use nix::sys::socket::{MsgFlags, MultiHeaders, recvmmsg};

    thread_local! {
        // The headers point into themselves, so they are not `Send` and cannot live in the
        // transport; kept per thread (the game thread) instead of allocated per drain.
        static HEADERS: std::cell::RefCell<Option<MultiHeaders<()>>> = const { std::cell::RefCell::new(None) };
    }
    loop {
        let mut lens = [0usize; RECV_BATCH];
        let received = HEADERS.with_borrow_mut(|headers| {
            let headers = headers.get_or_insert_with(|| MultiHeaders::<()>::preallocate(RECV_BATCH, None));
            let mut slices = bufs.0.each_mut().map(|b| [IoSliceMut::new(&mut b[..])]);
            recvmmsg(socket.as_raw_fd(), headers, slices.iter_mut(), MsgFlags::MSG_DONTWAIT, None)
                .map(|results| lens.iter_mut().zip(results).map(|(len, msg)| *len = msg.bytes).count())
        });
        let got = match received {
            Ok(got) => got,
            Err(Errno::EAGAIN) => return,
            // ICMP port unreachable surfaces here on Linux; RakNet's timeout reports it.
            Err(Errno::EINTR | Errno::ECONNREFUSED) => continue,
            Err(e) => {
                tracing::debug!(error = %e, "udp recvmmsg failed");
                return;
            }
        };
        for (buf, &len) in bufs.0.iter().zip(&lens).take(got) {
            handle(&buf[..len.min(DATAGRAM_BUF)]);
        }
        if got < RECV_BATCH {
            return;
        }
    }
}

/// Hands every datagram waiting on `socket` to `handle`, in order, never blocking.
#[cfg(not(any(target_os = "linux", target_os = "android")))]
fn drain(socket: &UdpSocket, bufs: &mut RecvBuffers, mut handle: impl FnMut(&[u8])) {
    let buf = &mut bufs.0[0];
    while let Some(n) = recv_next(socket, buf) {
        handle(&buf[..n]);
    }
}

/// The connection once the game loop drives it: [`Inline::poll`] at the start of a tick,
/// [`Inline::send_batch`] and [`Inline::transmit`] at its end.
struct Inline {
    socket: UdpSocket,
    live: Box<Live>,
    bufs: RecvBuffers,
    /// The end of the connection was reported (or the app closed it): nothing more to do.
    done: bool,
}

impl Inline {
    /// Drains the socket, runs RakNet's timers and delivers what arrived (and, once, why the
    /// connection ended).
    fn poll(&mut self, now: Instant, events: &mut Vec<TransportEvent>) {
        if self.done {
            return;
        }
        let rak = &mut self.live.rak;
        drain(&self.socket, &mut self.bufs, |datagram| rak.handle_datagram(datagram, now));
        self.live.rak.tick(now);
        let closing = self.live.pump(now, false, |packets| events.push(TransportEvent::Packets(packets)));
        if let Some((reason, error)) = closing {
            self.done = true;
            events.push(TransportEvent::Closed { reason, error });
            // What closing queued (the DisconnectionNotification of a refused stream, ACKs).
            self.transmit();
        }
    }

    /// Queues a tick's batch; [`Inline::transmit`] sends it.
    fn send_batch(&mut self, packets: &[Vec<u8>], now: Instant) {
        if !self.done {
            self.live.send_batch(packets, now);
        }
    }

    /// The tick's one send pass: its batch, pending ACKs, pongs and resends.
    fn transmit(&mut self) {
        self.live.transmit(&self.socket);
    }

    /// Leaves politely: DisconnectionNotification now.
    fn close(&mut self, now: Instant) {
        self.done = true;
        self.live.rak.disconnect(now);
        self.transmit();
    }
}

impl Drop for Inline {
    /// A connection dropped without closing (e.g. handed over to a transport already gone)
    /// still says goodbye.
    fn drop(&mut self) {
        if !self.live.rak.is_closed() {
            self.close(Instant::now());
        }
    }
}

/// Where the connection is.
enum Stage {
    /// Asking the server which version it runs.
    Pinging { guid: u64, sent: u32, next_at: Instant },
    /// RakNet connection and login (then game packets) in the chosen version.
    Connected(Box<Live>),
    /// Refused before connecting (an unsupported version): nothing left to do.
    Done,
}

/// The network thread's state: it alone touches the socket and the protocol state (until it
/// hands them over).
struct Net {
    socket: UdpSocket,
    server: SocketAddr,
    params: ConnectParams,
    stage: Stage,
    inbound: Sender<FromNet>,
    /// Set once: the first reason the connection ended wins.
    closed: bool,
    stop: bool,
    /// The game loop asked for the connection.
    settle: bool,
}

impl Net {
    /// Opens the socket and the event loop, and sends the first version ping.
    fn open(
        server: SocketAddr,
        params: ConnectParams,
        inbound: Sender<FromNet>,
        waker: &OnceLock<Waker>,
    ) -> std::io::Result<(Self, Poll)> {
        let bind: SocketAddr = match (server.ip().is_loopback(), server.is_ipv4()) {
            (true, true) => "127.0.0.1:0".parse().map_err(std::io::Error::other)?,
            (true, false) => "[::1]:0".parse().map_err(std::io::Error::other)?,
            (false, true) => "0.0.0.0:0".parse().map_err(std::io::Error::other)?,
            (false, false) => "[::]:0".parse().map_err(std::io::Error::other)?,
        };
        let mut socket = UdpSocket::bind(bind)?;
        socket.connect(server)?;
        let poll = Poll::new()?;
        poll.registry().register(&mut socket, SOCKET, Interest::READABLE)?;
        let _ = waker.set(Waker::new(poll.registry(), WAKER)?);
        let now = Instant::now();
        let mut net = Net {
            socket,
            server,
            params,
            stage: Stage::Pinging { guid: rand::random(), sent: 0, next_at: now },
            inbound,
            closed: false,
            stop: false,
            settle: false,
        };
        net.ping_timers(now);
        Ok((net, poll))
    }

    fn run(mut self, mut poll: Poll, commands: &Receiver<ToNet>) {
        let mut events = Events::with_capacity(16);
        let mut buf = vec![0u8; DATAGRAM_BUF];
        loop {
            let wait = self.wait(Instant::now());
            if let Err(e) = poll.poll(&mut events, Some(wait))
                && e.kind() != ErrorKind::Interrupted
            {
                tracing::error!(error = %e, "network event loop failed");
                self.close_with(format!("network error: {e}"), true);
                return;
            }
            let now = Instant::now();
            self.receive(&mut buf, now);
            self.take_commands(commands, now);
            self.ping_timers(now);
            if let Stage::Connected(live) = &mut self.stage {
                live.rak.tick(now);
            }
            self.pump(now);
            if self.finished() {
                break;
            }
            if self.settle {
                self.settle = false;
                if !self.closed && matches!(self.stage, Stage::Connected(_)) {
                    self.hand_over(&poll);
                    return;
                }
                tracing::debug!("asked to hand over a connection that is not live; keeping it");
            }
        }
        self.close_with("connection closed".into(), false);
    }

    /// Sends the live connection to the game loop, behind everything delivered so far; the
    /// thread ends after this.
    fn hand_over(mut self, poll: &Poll) {
        let _ = poll.registry().deregister(&mut self.socket);
        let Net { socket, stage, inbound, .. } = self;
        let Stage::Connected(mut live) = stage else { return };
        live.rak.set_ack_timing(Duration::ZERO, INLINE_NACK_DELAY);
        let inline = Box::new(Inline { socket, live, bufs: RecvBuffers::new(), done: false });
        // If the transport is gone meanwhile, the dropped connection still says goodbye.
        let _ = inbound.send(FromNet::Inline(inline));
    }

    /// When the network thread must wake up next (at the latest).
    fn wait(&self, now: Instant) -> Duration {
        let at = match &self.stage {
            Stage::Pinging { next_at, .. } => Some(*next_at),
            Stage::Connected(live) => live.rak.next_timeout(),
            Stage::Done => None,
        };
        at.map_or(MAX_WAIT, |t| t.saturating_duration_since(now)).min(MAX_WAIT)
    }

    fn finished(&self) -> bool {
        self.stop
            || match &self.stage {
                Stage::Connected(live) => live.rak.is_closed(),
                Stage::Done => true,
                Stage::Pinging { .. } => false,
            }
    }

    /// Every datagram waiting on the socket.
    fn receive(&mut self, buf: &mut [u8], now: Instant) {
        while let Some(n) = recv_next(&self.socket, buf) {
            match &mut self.stage {
                Stage::Pinging { .. } => self.on_ping_reply(&buf[..n], now),
                Stage::Connected(live) => live.rak.handle_datagram(&buf[..n], now),
                Stage::Done => {}
            }
        }
    }

    /// Batches, the handover request and the close request from the game loop (a dropped
    /// transport closes). Nothing after a handover request is read here: the game loop takes
    /// it from the queue.
    fn take_commands(&mut self, commands: &Receiver<ToNet>, now: Instant) {
        loop {
            match commands.try_recv() {
                Ok(ToNet::Batch(packets)) if !self.closed => {
                    let Stage::Connected(live) = &mut self.stage else {
                        tracing::debug!("dropping a batch sent before the connection started");
                        continue;
                    };
                    live.send_batch(&packets, now);
                }
                Ok(ToNet::Batch(_)) => {}
                Ok(ToNet::Settle) => {
                    self.settle = true;
                    return;
                }
                Ok(ToNet::Close) | Err(TryRecvError::Disconnected) => {
                    if let Stage::Connected(live) = &mut self.stage {
                        live.rak.disconnect(now);
                    }
                    self.transmit();
                    self.stop = true;
                    self.close_with("client disconnected".into(), false);
                    return;
                }
                Err(TryRecvError::Empty) => return,
            }
        }
    }

    fn transmit(&mut self) {
        if let Stage::Connected(live) = &mut self.stage {
            live.transmit(&self.socket);
        }
    }

    fn close_with(&mut self, reason: String, error: bool) {
        if !self.closed {
            self.closed = true;
            let _ = self.inbound.send(FromNet::Event(TransportEvent::Closed { reason, error }));
        }
    }

    /// Sends the next unconnected ping when due; after the last one, goes on without a pong.
    fn ping_timers(&mut self, now: Instant) {
        let Stage::Pinging { guid, sent, next_at } = &mut self.stage else { return };
        if now < *next_at {
            return;
        }
        if *sent >= PINGS {
            tracing::warn!(server = %self.server, "no pong from the server; trying the default version");
            self.start(None, now);
            return;
        }
        let ping = encode_unconnected_ping(i64::from(*sent), *guid);
        *sent += 1;
        *next_at = now + PING_EVERY;
        if let Err(e) = self.socket.send(&ping) {
            tracing::debug!(error = %e, "ping send failed");
        }
    }

    /// Picks the version from what the server advertised, then starts RakNet and the login.
    fn start(&mut self, advertised: Option<Advertised>, now: Instant) {
        let choice = match choose(advertised.as_ref(), self.params.forced_version.as_deref()) {
            Ok(c) => c,
            Err(e) => {
                tracing::error!(error = %e, "no version to speak");
                self.stage = Stage::Done;
                self.close_with(e.to_string(), true);
                return;
            }
        };
        let protocol = match Protocol::load(choice.info.game_version) {
            Ok(p) => Arc::new(p),
            Err(e) => {
                self.stage = Stage::Done;
                self.close_with(format!("protocol error: {e}"), true);
                return;
            }
        };
        report_choice(&choice, advertised.as_ref());
        let (shape, retry) = offline_plan(&self.params, self.server, choice.info.protocol);
        let config = SessionConfig {
            username: self.params.username.clone(),
            protocol: protocol.clone(),
            server_address: self.params.server_address.clone(),
        };
        let mut session = match self.params.keys.clone() {
            Some(keys) => ClientSession::with_keys(config, keys),
            None => ClientSession::new(config),
        };
        let login = session.login_params_mut();
        login.online = self.params.online.clone();
        login.offline_shape = shape;
        // The login's input mode must match the PlayerAuthInput we send (mouse).
        login.input_mode = 1;
        let online = self.params.online.is_some();
        if !online {
            tracing::info!(shape = shape.as_str(), setting = self.params.offline_login.as_str(), "offline login");
        }
        let config = RakConfig { client_guid: rand::random(), ..RakConfig::default() };
        let rak = RakClient::new(config, self.server, now);
        let live = Live::new(rak, session, (!online).then_some(shape), retry.is_some() && !online);
        self.stage = Stage::Connected(Box::new(live));
        let _ = self.inbound.send(FromNet::Event(TransportEvent::Version { protocol, choice, advertised }));
        self.transmit();
    }

    /// A datagram while pinging: the pong, or something to ignore.
    fn on_ping_reply(&mut self, data: &[u8], now: Instant) {
        match parse_unconnected_pong(data) {
            Ok(pong) => {
                tracing::debug!(advertisement = %pong.raw, "pong");
                let advertised = Advertised { protocol: pong.protocol, game_version: pong.game_version };
                self.start(Some(advertised), now);
            }
            Err(e) => tracing::debug!(error = %e, "not a pong while pinging"),
        }
    }

    /// Moves RakNet events through the login session to the app's channel.
    fn pump(&mut self, now: Instant) {
        let mut closing = None;
        if let Stage::Connected(live) = &mut self.stage {
            let inbound = &self.inbound;
            let server = self.server;
            let refused_first = &self.params.refused_first;
            closing = live.pump(now, self.closed, |packets| {
                let _ = inbound.send(FromNet::Event(TransportEvent::Packets(packets)));
            });
            match live.answer.take() {
                Some(LoginAnswer::Accepted) => {
                    if let Some(shape) = live.shape {
                        remember_offline_shape(server, shape);
                    }
                    let report = LoginReport { offline: live.shape, refused_first: refused_first.clone() };
                    // Right behind the packets of the message that carried the acceptance.
                    let _ = inbound.send(FromNet::Event(TransportEvent::Login(report)));
                }
                Some(LoginAnswer::Retry(reason)) if !self.closed => {
                    if let Some(refused) = live.shape {
                        self.closed = true;
                        self.stop = true;
                        let _ = self.inbound.send(FromNet::RetryLogin { refused, reason });
                        closing = None;
                    }
                }
                _ => {}
            }
        }
        if let Some((reason, error)) = closing {
            self.close_with(reason, error);
        }
        self.transmit();
    }
}

fn send_message(rak: &mut RakClient, msg: Vec<u8>, now: Instant) {
    if let Err(e) = rak.send_owned(msg, now) {
        tracing::warn!(error = %e, "raknet refused a message");
    }
}

fn report_choice(choice: &VersionChoice, advertised: Option<&Advertised>) {
    let info = choice.info;
    let server = advertised.map(|a| {
        format!(
            "{} (protocol {})",
            a.game_version.as_deref().unwrap_or("?"),
            a.protocol.map_or_else(|| "?".to_owned(), |p| p.to_string())
        )
    });
    tracing::info!(
        version = info.game_version,
        protocol = info.protocol,
        source = choice.source.as_str(),
        server = server.as_deref().unwrap_or("no pong"),
        "speaking Bedrock {}",
        info.game_version
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A connected socket pair on loopback (mio's sockets are non-blocking, like the transport's).
    fn pair() -> (UdpSocket, UdpSocket) {
        let any: SocketAddr = "127.0.0.1:0".parse().expect("address");
        let (from, to) = (UdpSocket::bind(any).expect("bind"), UdpSocket::bind(any).expect("bind"));
        to.connect(from.local_addr().expect("addr")).expect("connect");
        from.connect(to.local_addr().expect("addr")).expect("connect");
        (from, to)
    }

    #[test]
    fn offline_login_plan_by_setting_memory_and_mode() {
        let server: SocketAddr = "127.0.0.1:1".parse().expect("address");
        let other: SocketAddr = "127.0.0.1:2".parse().expect("address");
        let mut params = ConnectParams::offline("Bot", "127.0.0.1:1", None);
        // auto: vanilla's shape for the version first, the other one on an identity refusal.
        assert_eq!(offline_plan(&params, server, 975), (OfflineShape::Token, Some(OfflineShape::Chain)));
        assert_eq!(offline_plan(&params, server, 943), (OfflineShape::Chain, Some(OfflineShape::Token)));
        // What this server accepted goes first, for this server only.
        remember_offline_shape(server, OfflineShape::Chain);
        assert_eq!(accepted_offline_shape(server), Some(OfflineShape::Chain));
        assert_eq!(offline_plan(&params, server, 975), (OfflineShape::Chain, Some(OfflineShape::Token)));
        assert_eq!(offline_plan(&params, other, 975).0, OfflineShape::Token);
        // The retry itself is not retried.
        params.refused_first = Some((OfflineShape::Token, "no".into()));
        assert_eq!(offline_plan(&params, other, 975).1, None);
        params.refused_first = None;
        // An explicit shape is sent as it is, never retried.
        params.offline_login = OfflineLogin::Only(OfflineShape::Chain);
        assert_eq!(offline_plan(&params, other, 2169), (OfflineShape::Chain, None));
        // Online: no retry (and the session sends the online login, not this shape).
        params.offline_login = OfflineLogin::Auto;
        params.online = Some(OnlineLogin { chain: vec!["a.b.c".into()], token: "t".into() });
        assert_eq!(offline_plan(&params, other, 2169).1, None);
    }

    #[test]
    fn drain_hands_over_every_waiting_datagram_in_order_then_nothing() {
        let (from, to) = pair();
        let mut bufs = RecvBuffers::new();
        let mut got = Vec::new();
        drain(&to, &mut bufs, |d| got.push(d.to_vec()));
        assert!(got.is_empty(), "an empty socket gives nothing");
        // More than one batch's worth, of different sizes (the largest a RakNet MTU allows).
        let sent: Vec<Vec<u8>> = (0..(RECV_BATCH * 2 + 3)).map(|i| vec![i as u8; 1 + i * 71 % 1500]).collect();
        for d in &sent {
            from.send(d).expect("send");
        }
        // Loopback delivers within the send call, so all of them wait now.
        drain(&to, &mut bufs, |d| got.push(d.to_vec()));
        assert_eq!(got, sent);
        got.clear();
        drain(&to, &mut bufs, |d| got.push(d.to_vec()));
        assert!(got.is_empty(), "drained");
        // Exactly one batch: the call that returns a full batch is followed by one more.
        for d in &sent[..RECV_BATCH] {
            from.send(d).expect("send");
        }
        drain(&to, &mut bufs, |d| got.push(d.to_vec()));
        assert_eq!(got, sent[..RECV_BATCH]);
    }
}
