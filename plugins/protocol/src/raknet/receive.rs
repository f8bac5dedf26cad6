//! Inbound reliability: which datagrams arrived (for ACK/NACK), dedupe of reliable frames, split
//! reassembly, sequencing and per-channel ordering. Every buffer here has a hard limit so a
//! hostile server cannot make us allocate without bound.

use std::collections::{HashMap, HashSet};
use std::time::{Duration, Instant};

use tracing::debug;

use super::frame::{Frame, Reliability};
use super::{ORDER_CHANNELS, u24_add, u24_diff};

/// How far ahead of the next expected datagram we accept one (RakNet's window size).
const DATAGRAM_WINDOW: i32 = 2048;
/// Most datagram numbers we hold for the next ACK before dropping new ones unacknowledged.
const MAX_PENDING_ACKS: usize = 8192;
/// How far ahead of the lowest missing reliable message index we accept frames. Splits use one
/// index per part, so this is generous.
const RELIABLE_WINDOW: i32 = 16384;
/// Most fragments one split message may have (go-raknet's limit).
pub(crate) const MAX_SPLIT_PARTS: u32 = 512;
/// Most split messages being reassembled at once.
const MAX_CONCURRENT_SPLITS: usize = 16;
/// Most bytes held across all split messages being reassembled.
const MAX_SPLIT_BYTES: usize = 16 * 1024 * 1024;
/// How far ahead of the expected order index an ordered frame may be.
const ORDER_WINDOW: i32 = 4096;
/// Most out-of-order messages buffered per channel.
const MAX_ORDERED_PER_CHANNEL: usize = 2048;
/// Most bytes buffered across all ordering channels.
const MAX_ORDERED_BYTES: usize = 32 * 1024 * 1024;

/// A datagram number we have not received although a later one arrived.
#[derive(Debug, Clone, Copy)]
struct Missing {
    since: Instant,
    nacked: bool,
}

/// Tracks received datagram numbers: what to ACK, what to NACK, and duplicates.
#[derive(Debug, Default)]
struct DatagramWindow {
    /// Next sequence number we expect (everything before it arrived or is in `missing`).
    expected: u32,
    missing: HashMap<u32, Missing>,
    to_ack: Vec<u32>,
}

impl DatagramWindow {
    /// Records datagram `seq`; returns whether its frames should be processed (false for
    /// duplicates and for datagrams too far ahead, which are not ACKed either).
    fn receive(&mut self, seq: u32, now: Instant) -> bool {
        let d = u24_diff(seq, self.expected);
        if d >= DATAGRAM_WINDOW {
            debug!(seq, expected = self.expected, "datagram far outside the window, dropped");
            return false;
        }
        if self.to_ack.len() >= MAX_PENDING_ACKS {
            debug!(seq, "too many unflushed ACKs, dropping datagram");
            return false;
        }
        self.to_ack.push(seq);
        if d >= 0 {
            let mut s = self.expected;
            while s != seq {
                self.missing.insert(s, Missing { since: now, nacked: false });
                s = u24_add(s, 1);
            }
            self.expected = u24_add(seq, 1);
            self.forget_old_missing();
            true
        } else {
            // Older than expected: only new if we were waiting for it.
            self.missing.remove(&seq).is_some()
        }
    }

    /// Gaps older than the window will never be filled usefully; forget them to bound memory.
    fn forget_old_missing(&mut self) {
        if self.missing.len() > DATAGRAM_WINDOW as usize {
            let expected = self.expected;
            self.missing.retain(|&s, _| u24_diff(expected, s) <= DATAGRAM_WINDOW);
        }
    }

    fn take_acks(&mut self) -> Vec<u32> {
        std::mem::take(&mut self.to_ack)
    }

    /// Missing numbers first seen at least `min_age` ago and not yet NACKed. Waiting a little
    /// avoids NACKing datagrams that were merely reordered.
    fn take_nacks(&mut self, now: Instant, min_age: Duration) -> Vec<u32> {
        let mut out = Vec::new();
        for (&s, m) in self.missing.iter_mut() {
            if !m.nacked && now.saturating_duration_since(m.since) >= min_age {
                m.nacked = true;
                out.push(s);
            }
        }
        out
    }

    /// When the oldest gap not NACKed yet will be `min_age` old.
    fn next_nack_at(&self, min_age: Duration) -> Option<Instant> {
        self.missing.values().filter(|m| !m.nacked).map(|m| m.since + min_age).min()
    }
}

/// Dedupe of reliable frames by message index.
#[derive(Debug, Default)]
struct ReliableWindow {
    /// Lowest message index not received yet.
    start: u32,
    /// Indices received above `start`.
    above: HashSet<u32>,
}

impl ReliableWindow {
    /// Returns whether `index` is new (and records it).
    fn accept(&mut self, index: u32) -> bool {
        let d = u24_diff(index, self.start);
        if d < 0 || self.above.contains(&index) {
            return false;
        }
        if d >= RELIABLE_WINDOW {
            debug!(index, start = self.start, "reliable message index outside the window");
            return false;
        }
        self.above.insert(index);
        while self.above.remove(&self.start) {
            self.start = u24_add(self.start, 1);
        }
        true
    }
}

/// A split message being reassembled.
#[derive(Debug)]
struct PartialSplit {
    /// Frame header fields of the whole message (taken from the first fragment seen).
    template: Frame,
    parts: Vec<Option<Vec<u8>>>,
    received: u32,
    bytes: usize,
    /// Arrival order, used to evict the oldest when too many are in flight.
    serial: u64,
}

/// Reassembles split messages.
#[derive(Debug, Default)]
struct SplitAssembler {
    pending: HashMap<u16, PartialSplit>,
    bytes: usize,
    serial: u64,
}

impl SplitAssembler {
    /// Adds a fragment; returns the whole message once complete.
    fn add(&mut self, mut frame: Frame) -> Option<Frame> {
        let info = frame.split?;
        if info.count == 0 || info.count > MAX_SPLIT_PARTS || info.index >= info.count {
            debug!(?info, "invalid split header, fragment dropped");
            return None;
        }
        if !self.pending.contains_key(&info.id) {
            if self.pending.len() >= MAX_CONCURRENT_SPLITS {
                self.evict_oldest();
            }
            self.serial += 1;
            let mut template = frame.clone();
            template.payload = Vec::new();
            template.split = None;
            let parts = vec![None; info.count as usize];
            self.pending.insert(info.id, PartialSplit { template, parts, received: 0, bytes: 0, serial: self.serial });
        }
        let entry = self.pending.get_mut(&info.id)?;
        if entry.parts.len() != info.count as usize {
            debug!(?info, "split count changed mid-message, fragment dropped");
            return None;
        }
        let slot = entry.parts.get_mut(info.index as usize)?;
        if slot.is_some() {
            return None;
        }
        if self.bytes + frame.payload.len() > MAX_SPLIT_BYTES {
            debug!(?info, "split reassembly memory limit reached, message dropped");
            self.remove(info.id);
            return None;
        }
        self.bytes += frame.payload.len();
        entry.bytes += frame.payload.len();
        entry.received += 1;
        *slot = Some(std::mem::take(&mut frame.payload));
        if entry.received as usize != entry.parts.len() {
            return None;
        }
        let done = self.remove(info.id)?;
        let mut whole = done.template;
        whole.payload = done.parts.into_iter().flatten().flatten().collect();
        Some(whole)
    }

    fn remove(&mut self, id: u16) -> Option<PartialSplit> {
        let p = self.pending.remove(&id)?;
        self.bytes -= p.bytes;
        Some(p)
    }

    /// Fragments of unreliable splits can be lost forever; the oldest partial message goes first.
    fn evict_oldest(&mut self) {
        if let Some(id) = self.pending.iter().min_by_key(|(_, p)| p.serial).map(|(&id, _)| id) {
            debug!(split_id = id, "too many concurrent splits, evicting the oldest");
            self.remove(id);
        }
    }
}

/// Ordering state of one channel.
#[derive(Debug, Default)]
struct OrderChannel {
    /// Next order index to deliver.
    expected: u32,
    /// Ordered messages that arrived early, by order index.
    buffer: HashMap<u32, Vec<u8>>,
    /// Lowest sequence index still deliverable for sequenced frames.
    sequence_next: u32,
}

/// All inbound reliability state of a connection.
#[derive(Debug)]
pub(crate) struct Receiver {
    datagrams: DatagramWindow,
    reliable: ReliableWindow,
    splits: SplitAssembler,
    channels: Vec<OrderChannel>,
    ordered_bytes: usize,
}

impl Default for Receiver {
    fn default() -> Self {
        Self {
            datagrams: DatagramWindow::default(),
            reliable: ReliableWindow::default(),
            splits: SplitAssembler::default(),
            channels: (0..ORDER_CHANNELS).map(|_| OrderChannel::default()).collect(),
            ordered_bytes: 0,
        }
    }
}

impl Receiver {
    /// Records a data datagram; returns whether its frames are new and should be processed.
    pub(crate) fn receive_datagram(&mut self, seq: u32, now: Instant) -> bool {
        self.datagrams.receive(seq, now)
    }

    /// Datagram numbers to ACK (drains them).
    pub(crate) fn take_acks(&mut self) -> Vec<u32> {
        self.datagrams.take_acks()
    }

    /// Datagram numbers to NACK (each is NACKed once, after `min_age`).
    pub(crate) fn take_nacks(&mut self, now: Instant, min_age: Duration) -> Vec<u32> {
        self.datagrams.take_nacks(now, min_age)
    }

    /// When a gap not NACKed yet will be `min_age` old (the next flush that has a NACK to send).
    pub(crate) fn next_nack_at(&self, min_age: Duration) -> Option<Instant> {
        self.datagrams.next_nack_at(min_age)
    }

    /// Processes one frame of a new datagram, appending deliverable payloads to `out` in order.
    pub(crate) fn receive_frame(&mut self, frame: Frame, out: &mut Vec<Vec<u8>>) {
        if frame.reliability.has_order() && usize::from(frame.order_channel) >= ORDER_CHANNELS {
            debug!(channel = frame.order_channel, "frame on invalid order channel dropped");
            return;
        }
        if frame.reliability.is_reliable() && !self.reliable.accept(frame.message_index) {
            return;
        }
        let frame = if frame.split.is_some() {
            match self.splits.add(frame) {
                Some(whole) => whole,
                None => return,
            }
        } else {
            frame
        };
        self.deliver(frame, out);
    }

    /// Applies sequencing/ordering to a complete message.
    fn deliver(&mut self, frame: Frame, out: &mut Vec<Vec<u8>>) {
        match frame.reliability {
            Reliability::Unreliable | Reliability::Reliable => out.push(frame.payload),
            Reliability::UnreliableSequenced | Reliability::ReliableSequenced => self.deliver_sequenced(frame, out),
            Reliability::ReliableOrdered => self.deliver_ordered(frame, out),
        }
    }

    /// Sequenced frames: deliver only if newer than anything delivered on the channel.
    fn deliver_sequenced(&mut self, frame: Frame, out: &mut Vec<Vec<u8>>) {
        let Some(ch) = self.channels.get_mut(usize::from(frame.order_channel)) else {
            return;
        };
        if u24_diff(frame.order_index, ch.expected) < 0 || u24_diff(frame.sequence_index, ch.sequence_next) < 0 {
            return;
        }
        ch.sequence_next = u24_add(frame.sequence_index, 1);
        out.push(frame.payload);
    }

    /// Ordered frames: deliver strictly by order index, buffering (bounded) gaps.
    fn deliver_ordered(&mut self, frame: Frame, out: &mut Vec<Vec<u8>>) {
        let Some(ch) = self.channels.get_mut(usize::from(frame.order_channel)) else {
            return;
        };
        let d = u24_diff(frame.order_index, ch.expected);
        if d < 0 {
            return;
        }
        if d > 0 {
            let len = frame.payload.len();
            if d >= ORDER_WINDOW
                || ch.buffer.len() >= MAX_ORDERED_PER_CHANNEL
                || self.ordered_bytes + len > MAX_ORDERED_BYTES
            {
                debug!(order_index = frame.order_index, "ordering buffer full, message dropped");
                return;
            }
            // Keep the first copy of an order index; a second one is a duplicate (or hostile).
            if let std::collections::hash_map::Entry::Vacant(slot) = ch.buffer.entry(frame.order_index) {
                slot.insert(frame.payload);
                self.ordered_bytes += len;
            }
            return;
        }
        out.push(frame.payload);
        ch.expected = u24_add(ch.expected, 1);
        while let Some(next) = ch.buffer.remove(&ch.expected) {
            self.ordered_bytes -= next.len();
            out.push(next);
            ch.expected = u24_add(ch.expected, 1);
        }
        // A newer ordered message makes older sequenced ones on the channel stale.
        ch.sequence_next = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::super::frame::SplitInfo;
    use super::*;

    fn ordered(msg: u32, order: u32, payload: &[u8]) -> Frame {
        let mut f = Frame::new(Reliability::ReliableOrdered, payload.to_vec());
        f.message_index = msg;
        f.order_index = order;
        f
    }

    #[test]
    fn datagram_window_acks_nacks_and_dupes() {
        let t = Instant::now();
        let mut w = DatagramWindow::default();
        assert!(w.receive(0, t));
        assert!(w.receive(3, t));
        assert!(!w.receive(3, t), "duplicate");
        assert!(w.receive(1, t), "late but missing");
        assert!(!w.receive(5000, t), "too far ahead");
        let mut acks = w.take_acks();
        acks.sort_unstable();
        assert_eq!(acks, [0, 1, 3, 3]);
        assert!(w.take_nacks(t, Duration::from_millis(10)).is_empty(), "too young");
        assert_eq!(w.take_nacks(t + Duration::from_millis(10), Duration::from_millis(10)), [2]);
        assert!(w.take_nacks(t + Duration::from_secs(1), Duration::ZERO).is_empty(), "once");
    }

    #[test]
    fn datagram_window_wraps() {
        let t = Instant::now();
        let mut w = DatagramWindow { expected: 0xff_fffe, ..Default::default() };
        assert!(w.receive(0xff_fffe, t));
        assert!(w.receive(0, t));
        assert!(w.receive(0xff_ffff, t));
        assert_eq!(w.expected, 1);
        assert!(w.missing.is_empty());
    }

    #[test]
    fn reliable_window_dedupes() {
        let mut r = ReliableWindow::default();
        assert!(r.accept(1));
        assert!(!r.accept(1));
        assert!(r.accept(0));
        assert!(!r.accept(0));
        assert_eq!(r.start, 2);
        assert!(r.above.is_empty());
        assert!(!r.accept(2 + RELIABLE_WINDOW as u32));
    }

    #[test]
    fn ordered_delivery_buffers_gaps() {
        let mut rx = Receiver::default();
        let mut out = Vec::new();
        rx.receive_frame(ordered(0, 1, b"b"), &mut out);
        rx.receive_frame(ordered(1, 2, b"c"), &mut out);
        assert!(out.is_empty());
        rx.receive_frame(ordered(2, 0, b"a"), &mut out);
        assert_eq!(out, [b"a".to_vec(), b"b".to_vec(), b"c".to_vec()]);
        assert_eq!(rx.ordered_bytes, 0);
        // Duplicate message index and stale order index are both dropped.
        rx.receive_frame(ordered(2, 0, b"a"), &mut out);
        rx.receive_frame(ordered(3, 0, b"a"), &mut out);
        assert_eq!(out.len(), 3);
    }

    #[test]
    fn duplicate_order_index_keeps_first_and_accounting_stays_exact() {
        let mut rx = Receiver::default();
        let mut out = Vec::new();
        rx.receive_frame(ordered(0, 1, b"short"), &mut out);
        rx.receive_frame(ordered(1, 1, b"a much longer payload"), &mut out);
        assert_eq!(rx.ordered_bytes, 5);
        rx.receive_frame(ordered(2, 0, b"z"), &mut out);
        assert_eq!(out, [b"z".to_vec(), b"short".to_vec()]);
        assert_eq!(rx.ordered_bytes, 0);
    }

    #[test]
    fn channels_are_independent() {
        let mut rx = Receiver::default();
        let mut out = Vec::new();
        let mut f = ordered(0, 1, b"x");
        f.order_channel = 3;
        rx.receive_frame(f, &mut out);
        rx.receive_frame(ordered(1, 0, b"y"), &mut out);
        assert_eq!(out, [b"y".to_vec()]);
        let mut f = ordered(2, 0, b"z");
        f.order_channel = 3;
        rx.receive_frame(f, &mut out);
        assert_eq!(out, [b"y".to_vec(), b"z".to_vec(), b"x".to_vec()]);
        let mut f = ordered(3, 0, b"bad");
        f.order_channel = 32;
        rx.receive_frame(f, &mut out);
        assert_eq!(out.len(), 3);
    }

    #[test]
    fn sequenced_drops_older() {
        let mut rx = Receiver::default();
        let mut out = Vec::new();
        for (seq, p) in [(1u32, b"1"), (0, b"0"), (2, b"2"), (2, b"x")] {
            let mut f = Frame::new(Reliability::UnreliableSequenced, p.to_vec());
            f.sequence_index = seq;
            rx.receive_frame(f, &mut out);
        }
        assert_eq!(out, [b"1".to_vec(), b"2".to_vec()]);
    }

    fn fragment(msg: u32, id: u16, count: u32, index: u32, payload: &[u8]) -> Frame {
        let mut f = ordered(msg, 0, payload);
        f.split = Some(SplitInfo { count, id, index });
        f
    }

    #[test]
    fn split_reassembly_out_of_order() {
        let mut rx = Receiver::default();
        let mut out = Vec::new();
        rx.receive_frame(fragment(2, 9, 3, 2, b"ef"), &mut out);
        rx.receive_frame(fragment(0, 9, 3, 0, b"ab"), &mut out);
        rx.receive_frame(fragment(0, 9, 3, 0, b"ab"), &mut out); // duplicate
        assert!(out.is_empty());
        rx.receive_frame(fragment(1, 9, 3, 1, b"cd"), &mut out);
        assert_eq!(out, [b"abcdef".to_vec()]);
        assert_eq!(rx.splits.bytes, 0);
        assert!(rx.splits.pending.is_empty());
    }

    #[test]
    fn split_limits() {
        let mut rx = Receiver::default();
        let mut out = Vec::new();
        rx.receive_frame(fragment(0, 1, 0, 0, b"x"), &mut out);
        rx.receive_frame(fragment(1, 1, MAX_SPLIT_PARTS + 1, 0, b"x"), &mut out);
        rx.receive_frame(fragment(2, 1, 2, 2, b"x"), &mut out);
        rx.receive_frame(fragment(3, 1, u32::MAX, 7, b"x"), &mut out);
        assert!(rx.splits.pending.is_empty());
        for id in 0..40u16 {
            rx.receive_frame(fragment(10 + u32::from(id), id, 2, 0, b"x"), &mut out);
        }
        assert_eq!(rx.splits.pending.len(), MAX_CONCURRENT_SPLITS);
        assert!(rx.splits.pending.contains_key(&39));
        rx.receive_frame(fragment(100, 39, 3, 1, b"x"), &mut out); // count mismatch
        assert!(out.is_empty());
    }
}
