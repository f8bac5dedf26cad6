//! A UDP relay on loopback that a test controls: it sits between the bot and the peer and can
//! drop, delay (with jitter, which also reorders), duplicate or cut datagrams in either direction,
//! and record when each datagram came in (to look at the shape of the traffic).

use std::collections::BinaryHeap;
use std::net::{SocketAddr, UdpSocket};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// What happens to datagrams now (both directions).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Faults {
    /// Probability of dropping a datagram.
    pub loss: f64,
    /// Fixed delay added to every datagram.
    pub delay: Duration,
    /// Extra delay drawn uniformly from `0..jitter` (datagrams overtake each other).
    pub jitter: Duration,
    /// Probability of sending a datagram twice.
    pub duplicate: f64,
    /// Drop everything (the path is cut).
    pub cut: bool,
}

/// Counters, for assertions that the faults really happened.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RelayStats {
    pub forwarded: u64,
    pub dropped: u64,
    pub duplicated: u64,
}

/// A datagram as the relay received it from either side (before any fault).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Seen {
    pub at: Instant,
    /// Sent by the client (towards the server).
    pub to_server: bool,
    /// The first byte: RakNet's datagram flags (0x80 valid, 0x40 ACK, 0x20 NACK) or an
    /// offline message id.
    pub first: u8,
    pub len: usize,
}

impl Seen {
    /// A connected datagram carrying frames (not an ACK/NACK, not offline).
    pub fn is_data(&self) -> bool {
        self.first & 0xe0 == 0x80
    }
    /// A connected ACK datagram.
    pub fn is_ack(&self) -> bool {
        self.first & 0xc0 == 0xc0
    }
}

struct Shared {
    faults: Mutex<Faults>,
    stats: Mutex<RelayStats>,
    /// What came in, while recording.
    seen: Mutex<Option<Vec<Seen>>>,
    stop: AtomicBool,
    /// One socket towards the server per client address, so every connection of the bot (a
    /// reconnect uses a new port) is a new address to the server, as on a real network.
    backs: Mutex<Vec<(SocketAddr, Arc<UdpSocket>)>>,
}

/// A running relay; dropping it stops its threads.
pub struct Relay {
    pub port: u16,
    shared: Arc<Shared>,
}

/// A datagram waiting for its time, and where it goes.
struct Due {
    at: Instant,
    seq: u64,
    /// Towards the server through this client's back socket, or towards this client.
    to_server: bool,
    client: SocketAddr,
    data: Vec<u8>,
}

impl PartialEq for Due {
    fn eq(&self, o: &Self) -> bool {
        (self.at, self.seq) == (o.at, o.seq)
    }
}
impl Eq for Due {}
impl PartialOrd for Due {
    fn partial_cmp(&self, o: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for Due {
    /// Earliest first in a max-heap.
    fn cmp(&self, o: &Self) -> std::cmp::Ordering {
        (o.at, o.seq).cmp(&(self.at, self.seq))
    }
}

/// xorshift64*, deterministic.
struct Rng(u64);
impl Rng {
    fn unit(&mut self) -> f64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        (self.0.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 11) as f64 / (1u64 << 53) as f64
    }
}

impl Relay {
    /// Listens on a free loopback port and forwards to `server`.
    pub fn start(server: SocketAddr) -> Relay {
        let front = Arc::new(UdpSocket::bind("127.0.0.1:0").expect("bind relay front"));
        let port = front.local_addr().expect("addr").port();
        let shared = Arc::new(Shared {
            faults: Mutex::new(Faults::default()),
            stats: Mutex::new(RelayStats::default()),
            seen: Mutex::new(None),
            stop: AtomicBool::new(false),
            backs: Mutex::new(Vec::new()),
        });
        let queue = Arc::new(Mutex::new(BinaryHeap::<Due>::new()));
        let (f, s, q) = (front.clone(), shared.clone(), queue.clone());
        std::thread::spawn(move || receive_front(&f, server, &s, &q));
        let (f, s) = (front, shared.clone());
        std::thread::spawn(move || deliver(&f, &s, &queue));
        Relay { port, shared }
    }

    /// Changes the faults from now on.
    pub fn set(&self, faults: Faults) {
        *lock(&self.shared.faults) = faults;
    }

    pub fn stats(&self) -> RelayStats {
        *lock(&self.shared.stats)
    }

    /// Starts recording every datagram that comes in (dropping an earlier recording).
    pub fn record(&self) {
        *lock(&self.shared.seen) = Some(Vec::new());
    }

    /// Stops recording and returns what came in, in arrival order.
    pub fn recorded(&self) -> Vec<Seen> {
        lock(&self.shared.seen).take().unwrap_or_default()
    }
}

impl Drop for Relay {
    fn drop(&mut self) {
        self.shared.stop.store(true, Ordering::SeqCst);
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// Applies the faults to one datagram: queues zero, one or two copies.
fn admit(
    rng: &mut Rng,
    seq: &mut u64,
    to_server: bool,
    client: SocketAddr,
    data: &[u8],
    shared: &Shared,
    queue: &Mutex<BinaryHeap<Due>>,
) {
    if let Some(seen) = lock(&shared.seen).as_mut() {
        let first = data.first().copied().unwrap_or(0);
        seen.push(Seen { at: Instant::now(), to_server, first, len: data.len() });
    }
    let f = *lock(&shared.faults);
    if f.cut || rng.unit() < f.loss {
        lock(&shared.stats).dropped += 1;
        return;
    }
    let copies = if rng.unit() < f.duplicate { 2 } else { 1 };
    if copies == 2 {
        lock(&shared.stats).duplicated += 1;
    }
    for _ in 0..copies {
        let at = Instant::now() + f.delay + f.jitter.mul_f64(rng.unit());
        *seq += 1;
        lock(queue).push(Due { at, seq: *seq, to_server, client, data: data.to_vec() });
    }
}

/// Datagrams from bots; a new client address gets its own socket towards the server.
fn receive_front(front: &UdpSocket, server: SocketAddr, shared: &Arc<Shared>, queue: &Arc<Mutex<BinaryHeap<Due>>>) {
    let _ = front.set_read_timeout(Some(Duration::from_millis(50)));
    let mut rng = Rng(0x1234_5678_9abc_def1);
    let mut seq = 0u64;
    let mut buf = vec![0u8; 2048];
    while !shared.stop.load(Ordering::SeqCst) {
        let Ok((n, client)) = front.recv_from(&mut buf) else { continue };
        let known = lock(&shared.backs).iter().any(|(c, _)| *c == client);
        if !known {
            let back = UdpSocket::bind("127.0.0.1:0").expect("bind relay back");
            back.connect(server).expect("connect relay back");
            let back = Arc::new(back);
            lock(&shared.backs).push((client, back.clone()));
            let (s, q) = (shared.clone(), queue.clone());
            std::thread::spawn(move || receive_back(&back, client, &s, &q));
        }
        admit(&mut rng, &mut seq, true, client, &buf[..n], shared, queue);
    }
}

/// Datagrams from the server for one client.
fn receive_back(back: &UdpSocket, client: SocketAddr, shared: &Shared, queue: &Mutex<BinaryHeap<Due>>) {
    let _ = back.set_read_timeout(Some(Duration::from_millis(50)));
    let mut rng = Rng(0x0fed_cba9_8765_4321 ^ u64::from(client.port()));
    let mut seq = 1u64 << 62;
    let mut buf = vec![0u8; 2048];
    while !shared.stop.load(Ordering::SeqCst) {
        let Ok(n) = back.recv(&mut buf) else { continue };
        admit(&mut rng, &mut seq, false, client, &buf[..n], shared, queue);
    }
}

fn deliver(front: &UdpSocket, shared: &Shared, queue: &Mutex<BinaryHeap<Due>>) {
    while !shared.stop.load(Ordering::SeqCst) {
        let now = Instant::now();
        let ready: Vec<Due> = {
            let mut q = lock(queue);
            let mut out = Vec::new();
            while q.peek().is_some_and(|d| d.at <= now) {
                if let Some(d) = q.pop() {
                    out.push(d);
                }
            }
            out
        };
        for d in ready {
            // A cut also holds what was already in flight.
            if lock(&shared.faults).cut {
                lock(&shared.stats).dropped += 1;
                continue;
            }
            let sent = if d.to_server {
                let back = lock(&shared.backs).iter().find(|(c, _)| *c == d.client).map(|(_, b)| b.clone());
                back.is_some_and(|b| b.send(&d.data).is_ok())
            } else {
                front.send_to(&d.data, d.client).is_ok()
            };
            if sent {
                lock(&shared.stats).forwarded += 1;
            }
        }
        std::thread::sleep(Duration::from_millis(1));
    }
}
