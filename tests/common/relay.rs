//! A UDP relay on loopback that a test controls: it sits between the bot and the peer and can
//! drop, delay (with jitter, which also reorders), duplicate or cut datagrams in either direction.

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

struct Shared {
    faults: Mutex<Faults>,
    stats: Mutex<RelayStats>,
    stop: AtomicBool,
    /// The bot's address (learnt from its first datagram).
    client: Mutex<Option<SocketAddr>>,
}

/// A running relay; dropping it stops its threads.
pub struct Relay {
    pub port: u16,
    shared: Arc<Shared>,
}

/// A datagram waiting for its time.
struct Due {
    at: Instant,
    seq: u64,
    to_server: bool,
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
        let front = UdpSocket::bind("127.0.0.1:0").expect("bind relay front");
        let back = UdpSocket::bind("127.0.0.1:0").expect("bind relay back");
        back.connect(server).expect("connect relay back");
        let port = front.local_addr().expect("addr").port();
        let shared = Arc::new(Shared {
            faults: Mutex::new(Faults::default()),
            stats: Mutex::new(RelayStats::default()),
            stop: AtomicBool::new(false),
            client: Mutex::new(None),
        });
        let queue = Arc::new(Mutex::new(BinaryHeap::<Due>::new()));
        for to_server in [true, false] {
            let (rx, shared, queue) = (
                if to_server { front.try_clone() } else { back.try_clone() }.expect("clone"),
                shared.clone(),
                queue.clone(),
            );
            std::thread::spawn(move || receive(rx, to_server, &shared, &queue));
        }
        let (front_tx, back_tx, s) = (front, back, shared.clone());
        std::thread::spawn(move || deliver(&front_tx, &back_tx, &s, &queue));
        Relay { port, shared }
    }

    /// Changes the faults from now on.
    pub fn set(&self, faults: Faults) {
        *self.shared.faults.lock().unwrap_or_else(|p| p.into_inner()) = faults;
    }

    pub fn stats(&self) -> RelayStats {
        *self.shared.stats.lock().unwrap_or_else(|p| p.into_inner())
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

fn receive(socket: UdpSocket, to_server: bool, shared: &Shared, queue: &Mutex<BinaryHeap<Due>>) {
    let _ = socket.set_read_timeout(Some(Duration::from_millis(50)));
    let mut rng = Rng(if to_server { 0x1234_5678_9abc_def1 } else { 0x0fed_cba9_8765_4321 });
    let mut buf = vec![0u8; 2048];
    let mut seq = 0u64;
    while !shared.stop.load(Ordering::SeqCst) {
        let (n, from) = match socket.recv_from(&mut buf) {
            Ok(x) => x,
            Err(_) => continue,
        };
        if to_server {
            *lock(&shared.client) = Some(from);
        }
        let f = *lock(&shared.faults);
        if f.cut || rng.unit() < f.loss {
            lock(&shared.stats).dropped += 1;
            continue;
        }
        let copies = if rng.unit() < f.duplicate { 2 } else { 1 };
        if copies == 2 {
            lock(&shared.stats).duplicated += 1;
        }
        for _ in 0..copies {
            let at = Instant::now() + f.delay + f.jitter.mul_f64(rng.unit());
            seq += 1;
            lock(queue).push(Due { at, seq: seq * 2 + u64::from(to_server), to_server, data: buf[..n].to_vec() });
        }
    }
}

fn deliver(front: &UdpSocket, back: &UdpSocket, shared: &Shared, queue: &Mutex<BinaryHeap<Due>>) {
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
                back.send(&d.data).is_ok()
            } else {
                lock(&shared.client).is_some_and(|c| front.send_to(&d.data, c).is_ok())
            };
            if sent {
                lock(&shared.stats).forwarded += 1;
            }
        }
        std::thread::sleep(Duration::from_millis(1));
    }
}
