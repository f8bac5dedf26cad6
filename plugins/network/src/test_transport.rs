//! An in-memory [`Transport`] for deterministic tests: inject packet bodies, step ticks, read
//! back exactly what each tick sent.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex, MutexGuard};

use crate::{Transport, TransportEvent};

#[derive(Default, Debug)]
struct Shared {
    inbound: VecDeque<TransportEvent>,
    sent: Vec<Vec<Vec<u8>>>,
    flushes: usize,
    settles: usize,
    closed_by_client: bool,
}

/// The transport half that goes into the app.
#[derive(Default, Debug, Clone)]
pub struct TestTransport(Arc<Mutex<Shared>>);

/// The half the test keeps.
#[derive(Debug, Clone)]
pub struct TestHandle(Arc<Mutex<Shared>>);

impl TestTransport {
    pub fn new() -> (Self, TestHandle) {
        let shared = Arc::new(Mutex::new(Shared::default()));
        (Self(shared.clone()), TestHandle(shared))
    }
}

fn lock(m: &Mutex<Shared>) -> MutexGuard<'_, Shared> {
    // A panicking test thread poisons the lock; the data is still fine to read.
    m.lock().unwrap_or_else(|p| p.into_inner())
}

impl Transport for TestTransport {
    fn poll(&mut self) -> Vec<TransportEvent> {
        lock(&self.0).inbound.drain(..).collect()
    }
    fn send_batch(&mut self, packets: &mut Vec<Vec<u8>>) {
        lock(&self.0).sent.push(std::mem::take(packets));
    }
    fn flush(&mut self) {
        lock(&self.0).flushes += 1;
    }
    fn settle(&mut self) {
        lock(&self.0).settles += 1;
    }
    fn close(&mut self) {
        lock(&self.0).closed_by_client = true;
    }
}

impl TestHandle {
    /// Delivers packet bodies before the next tick.
    pub fn inject(&self, bodies: Vec<Vec<u8>>) {
        lock(&self.0).inbound.push_back(TransportEvent::Packets(bodies));
    }
    /// Simulates the connection dropping.
    pub fn drop_connection(&self, reason: &str) {
        lock(&self.0).inbound.push_back(TransportEvent::Closed { reason: reason.into(), error: true });
    }
    /// Batches sent since the last call, oldest first.
    pub fn take_sent(&self) -> Vec<Vec<Vec<u8>>> {
        std::mem::take(&mut lock(&self.0).sent)
    }
    /// How many send passes ([`Transport::flush`]) the app ran.
    pub fn flushes(&self) -> usize {
        lock(&self.0).flushes
    }
    /// How many times the app let the transport settle ([`Transport::settle`]).
    pub fn settles(&self) -> usize {
        lock(&self.0).settles
    }
    /// Whether the client closed the connection politely.
    pub fn closed_by_client(&self) -> bool {
        lock(&self.0).closed_by_client
    }
}
