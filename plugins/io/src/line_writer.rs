//! A writer thread behind a bounded queue, for an output stream the game loop must never wait on
//! (stdout; a stdio front end can reuse it). The ECS side hands it whole lines; what does not
//! fit in the queue is refused at once, so the caller can count it and tell the agent.

use std::io::Write;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Duration;

use crossbeam_channel::{Receiver, Sender};

/// The ECS side of a writer thread.
pub struct LineWriter {
    tx: Option<Sender<Vec<u8>>>,
    /// Bytes handed over and not yet written (or discarded after the stream closed).
    queued: Arc<AtomicUsize>,
    /// The stream failed (reader gone): later lines are discarded.
    closed: Arc<AtomicBool>,
    capacity: usize,
    done: Option<Receiver<()>>,
}

impl LineWriter {
    /// Starts a thread named `name` writing to `out`; at most `capacity` bytes wait in the queue.
    pub fn spawn<W: Write + Send + 'static>(name: &str, out: W, capacity: usize) -> std::io::Result<Self> {
        let (tx, rx) = crossbeam_channel::unbounded::<Vec<u8>>();
        let (done_tx, done_rx) = crossbeam_channel::bounded::<()>(1);
        let queued = Arc::new(AtomicUsize::new(0));
        let closed = Arc::new(AtomicBool::new(false));
        let (q, c) = (queued.clone(), closed.clone());
        std::thread::Builder::new().name(name.into()).spawn(move || {
            write_loop(out, &rx, &q, &c);
            let _ = done_tx.send(());
        })?;
        Ok(Self { tx: Some(tx), queued, closed, capacity, done: Some(done_rx) })
    }

    /// Bytes waiting to be written.
    pub fn queued(&self) -> usize {
        self.queued.load(Ordering::Acquire)
    }

    /// Bytes that still fit in the queue.
    pub fn room(&self) -> usize {
        self.capacity.saturating_sub(self.queued())
    }

    /// The queue limit in bytes.
    pub fn capacity(&self) -> usize {
        self.capacity
    }

    /// Whether the stream failed (its reader is gone); lines are then discarded.
    pub fn is_closed(&self) -> bool {
        self.closed.load(Ordering::Acquire)
    }

    /// Queues `bytes` (whole lines) unless they do not fit; never blocks.
    pub fn try_write(&self, bytes: Vec<u8>) -> bool {
        let Some(tx) = &self.tx else { return false };
        if bytes.is_empty() {
            return true;
        }
        if bytes.len() > self.room() {
            return false;
        }
        self.queued.fetch_add(bytes.len(), Ordering::AcqRel);
        if tx.send(bytes).is_err() {
            return false;
        }
        true
    }

    /// Stops accepting lines and waits up to `timeout` for the queue to be written (the last
    /// events at exit); a reader that does not read is not waited for longer.
    pub fn finish(&mut self, timeout: Duration) {
        self.tx = None;
        if let Some(done) = self.done.take() {
            let _ = done.recv_timeout(timeout);
        }
    }
}

impl Drop for LineWriter {
    fn drop(&mut self) {
        self.finish(Duration::from_secs(2));
    }
}

fn write_loop<W: Write>(mut out: W, rx: &Receiver<Vec<u8>>, queued: &AtomicUsize, closed: &AtomicBool) {
    while let Ok(mut batch) = rx.recv() {
        let mut n = batch.len();
        // One write per burst.
        while let Ok(more) = rx.try_recv() {
            n += more.len();
            batch.extend_from_slice(&more);
        }
        if !closed.load(Ordering::Acquire) && out.write_all(&batch).and_then(|()| out.flush()).is_err() {
            // The reader is gone (EPIPE): the bot keeps running; the events file has every event.
            closed.store(true, Ordering::Release);
        }
        queued.fetch_sub(n, Ordering::AcqRel);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Mutex;

    /// A sink that blocks until released, then records what it got.
    struct Gate {
        open: Arc<Mutex<bool>>,
        got: Arc<Mutex<Vec<u8>>>,
    }

    impl Write for Gate {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            while !*self.open.lock().unwrap_or_else(|p| p.into_inner()) {
                std::thread::sleep(Duration::from_millis(1));
            }
            self.got.lock().unwrap_or_else(|p| p.into_inner()).extend_from_slice(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn a_blocked_stream_refuses_beyond_capacity_and_drains_later() {
        let open = Arc::new(Mutex::new(false));
        let got = Arc::new(Mutex::new(Vec::new()));
        let mut w =
            LineWriter::spawn("test-writer", Gate { open: open.clone(), got: got.clone() }, 100).expect("spawn");
        assert!(w.try_write(vec![b'a'; 60]));
        assert!(!w.try_write(vec![b'b'; 60]), "over capacity while the stream is blocked");
        assert!(w.try_write(vec![b'c'; 40]), "what still fits is taken");
        assert_eq!(w.room(), 0);
        *open.lock().unwrap_or_else(|p| p.into_inner()) = true;
        w.finish(Duration::from_secs(5));
        let got = got.lock().unwrap_or_else(|p| p.into_inner()).clone();
        assert_eq!(got.len(), 100);
        assert!(got[..60].iter().all(|&b| b == b'a') && got[60..].iter().all(|&b| b == b'c'));
    }

    struct Broken;
    impl Write for Broken {
        fn write(&mut self, _: &[u8]) -> std::io::Result<usize> {
            Err(std::io::ErrorKind::BrokenPipe.into())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn a_closed_stream_discards_without_blocking() {
        let w = LineWriter::spawn("test-broken", Broken, 1000).expect("spawn");
        assert!(w.try_write(b"x\n".to_vec()));
        let deadline = std::time::Instant::now() + Duration::from_secs(5);
        while !w.is_closed() || w.queued() > 0 {
            assert!(std::time::Instant::now() < deadline, "the writer notices the broken pipe");
            std::thread::sleep(Duration::from_millis(1));
        }
        for _ in 0..100 {
            assert!(w.try_write(vec![b'y'; 500]), "discarded lines never fill the queue");
            while w.queued() > 0 {
                std::thread::yield_now();
            }
        }
    }
}
