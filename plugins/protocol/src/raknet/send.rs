//! Outbound reliability: index assignment, splitting, packing frames into datagrams, keeping
//! unacknowledged datagrams for resending, and RTT estimation from ACKs.
//!
//! The datagrams awaiting ACK sit in a `Window` indexed by sequence number, so the steady state
//! of a connection (a datagram out, its ACK in, nothing due for resend) hashes nothing and
//! allocates nothing beyond the payload it was given.

use std::borrow::Cow;
use std::collections::VecDeque;
use std::ops::Range;
use std::time::{Duration, Instant};

use tracing::{debug, trace};

use super::frame::{DATAGRAM_HEADER_LEN, Frame, Reliability, SeqRange, SplitInfo, encode_data_datagram_into};
use super::receive::MAX_SPLIT_PARTS;
use super::{ORDER_CHANNELS, RakError, U24_MASK, UDP_OVERHEAD, u24_add, u24_diff};

/// Most datagrams awaiting ACK before we stop packing new frames (congestion/memory bound).
const MAX_IN_FLIGHT: usize = 1024;
/// Most sequence numbers from the oldest datagram awaiting ACK to the next one before we stop
/// packing new frames: bounds the window's memory when one old datagram stays unacknowledged
/// while many later ones are acknowledged (it is resent, under a new number, once overdue).
const MAX_WINDOW_SPAN: usize = 64 * MAX_IN_FLIGHT;
/// The window's slots never reach this far (beyond it 24-bit distances would become ambiguous):
/// `pack` stops at [`MAX_WINDOW_SPAN`] and even a close, which packs everything queued, adds far
/// fewer datagrams.
const MAX_INDEX: usize = 1 << 22;
/// Most payload bytes queued but not yet packed; beyond this `send` reports backpressure.
const MAX_QUEUED_BYTES: usize = 64 * 1024 * 1024;
/// Resend timeout floor: below this, ordinary ACK delay would trigger spurious resends.
const MIN_RTO: Duration = Duration::from_millis(100);
/// Resend timeout ceiling after backoff.
const MAX_RTO: Duration = Duration::from_secs(3);
/// RTT assumed before the first measurement.
const INITIAL_RTT: Duration = Duration::from_millis(300);
/// Emptied frame lists kept for the next datagrams (so packing does not allocate one each time).
const SPARE_FRAME_LISTS: usize = 8;
/// Payload buffers of acknowledged frames kept for the next messages ([`Sender::spare_payload`]).
const SPARE_PAYLOADS: usize = 4;
/// A payload buffer larger than this is freed rather than kept (a login's big batch).
const SPARE_PAYLOAD_MAX: usize = 4096;

/// A datagram waiting for its ACK.
#[derive(Debug)]
struct InFlight {
    /// Only the reliable frames; unreliable ones are never resent.
    frames: Vec<Frame>,
    sent_at: Instant,
    resend_at: Instant,
    /// How many times these frames were resent (drives the backoff).
    resends: u32,
}

/// Datagrams awaiting ACK, by sequence number: slot `i` holds datagram `base + i` (24-bit), or
/// `None` once it was acknowledged or resent, or when it carried no reliable frame. Sequence
/// numbers are handed out consecutively, so a slot is found without hashing; the slots before the
/// oldest datagram still waiting are dropped, so the window spans only what is in flight.
#[derive(Debug, Default)]
struct Window {
    /// Sequence number of `slots[0]`.
    base: u32,
    slots: VecDeque<Option<InFlight>>,
    /// Slots that hold a datagram.
    len: usize,
    /// The earliest `resend_at` of the datagrams held; when `stale`, only a lower bound.
    earliest: Option<Instant>,
    /// A datagram whose `resend_at` was `earliest` left since it was computed.
    stale: bool,
}

impl Window {
    /// Remembers datagram `seq`, which must be newer than every one held.
    fn insert(&mut self, seq: u32, d: InFlight) {
        if self.slots.is_empty() {
            self.base = seq;
        }
        let index = (seq.wrapping_sub(self.base) & U24_MASK) as usize;
        if index < self.slots.len() || index >= MAX_INDEX {
            // Cannot happen: `pack` keeps the span far below the 24-bit range (and resends take
            // fresh numbers). Never resending it beats corrupting the window.
            debug!(seq, base = self.base, "datagram outside the in-flight window, not kept");
            return;
        }
        self.slots.resize_with(index, || None);
        self.earliest = Some(self.earliest.map_or(d.resend_at, |e| e.min(d.resend_at)));
        self.slots.push_back(Some(d));
        self.len += 1;
    }

    /// Takes the datagram in slot `index` out (the slots stay in place until [`Window::settle`]).
    fn take(&mut self, index: usize) -> Option<InFlight> {
        let d = self.slots.get_mut(index)?.take()?;
        self.len -= 1;
        if self.earliest.is_some_and(|e| d.resend_at <= e) {
            self.stale = true;
        }
        Some(d)
    }

    /// Drops the empty slots before the oldest datagram held.
    fn settle(&mut self) {
        while let Some(None) = self.slots.front() {
            self.slots.pop_front();
            self.base = u24_add(self.base, 1);
        }
        if self.slots.is_empty() {
            self.earliest = None;
            self.stale = false;
        }
    }

    /// The exact earliest `resend_at` (a walk over the window only after the earliest left).
    fn earliest(&self) -> Option<Instant> {
        if self.stale { self.slots.iter().flatten().map(|d| d.resend_at).min() } else { self.earliest }
    }

    /// Makes `earliest` exact again.
    fn refresh(&mut self) {
        if self.stale {
            self.earliest = self.earliest();
            self.stale = false;
        }
    }

    /// Sequence numbers from the oldest datagram held to `next_seq` (0 when none is held).
    fn span(&self, next_seq: u32) -> usize {
        if self.slots.is_empty() { 0 } else { (next_seq.wrapping_sub(self.base) & U24_MASK) as usize }
    }

    /// The slots of the sequence numbers `first..=last` (24-bit, at most 2^23 apart; a range
    /// whose end is before its start names nothing) that lie in the window.
    fn slots_of(&self, (first, last): SeqRange) -> Range<usize> {
        let span = u24_diff(last, first);
        if span < 0 || self.slots.is_empty() {
            return 0..0;
        }
        let len = self.slots.len();
        // Where the range starts, counted from `base` forwards; the range may also wrap around
        // the 24-bit circle into the window's start.
        let start = (first.wrapping_sub(self.base) & U24_MASK) as usize;
        let end = start + span as usize; // inclusive, < 2^24 + 2^23
        if start < len {
            start..(end + 1).min(len)
        } else if end > U24_MASK as usize {
            0..(end - U24_MASK as usize).min(len)
        } else {
            0..0
        }
    }
}

/// All outbound reliability state of a connection.
#[derive(Debug)]
pub(crate) struct Sender {
    next_seq: u32,
    next_message_index: u32,
    order_index: [u32; ORDER_CHANNELS],
    sequence_index: [u32; ORDER_CHANNELS],
    /// Payload bytes waiting in `queue`, to refuse unbounded buffering.
    queued_bytes: usize,
    next_split_id: u16,
    queue: VecDeque<Frame>,
    in_flight: Window,
    /// Emptied frame lists of acknowledged datagrams, reused by `pack`.
    spare: Vec<Vec<Frame>>,
    /// Emptied payload buffers of acknowledged frames (see [`Sender::spare_payload`]).
    spare_payloads: Vec<Vec<u8>>,
    srtt: Duration,
    measured: bool,
}

impl Default for Sender {
    fn default() -> Self {
        Self {
            next_seq: 0,
            next_message_index: 0,
            order_index: [0; ORDER_CHANNELS],
            sequence_index: [0; ORDER_CHANNELS],
            queued_bytes: 0,
            next_split_id: 0,
            queue: VecDeque::new(),
            in_flight: Window::default(),
            spare: Vec::new(),
            spare_payloads: Vec::new(),
            srtt: INITIAL_RTT,
            measured: false,
        }
    }
}

/// Bytes available for frames in one datagram at this MTU.
pub(crate) fn datagram_budget(mtu: u16) -> usize {
    usize::from(mtu.saturating_sub(UDP_OVERHEAD)).saturating_sub(DATAGRAM_HEADER_LEN)
}

impl Sender {
    /// Smoothed round-trip time.
    pub(crate) fn rtt(&self) -> Duration {
        self.srtt
    }

    /// Folds in an RTT sample (RFC 6298-style smoothing, 1/8 gain).
    pub(crate) fn rtt_sample(&mut self, sample: Duration) {
        if sample > Duration::from_secs(60) {
            return; // clock confusion, not a real sample
        }
        if self.measured {
            self.srtt = (self.srtt * 7 + sample) / 8;
        } else {
            self.srtt = sample;
            self.measured = true;
        }
    }

    /// Resend timeout after `resends` previous resends: max(2×RTT, 100 ms), doubled per resend.
    fn rto(&self, resends: u32) -> Duration {
        let base = (self.srtt * 2).max(MIN_RTO);
        (base * (1u32 << resends.min(5))).min(MAX_RTO)
    }

    /// Queues a message, splitting it when it does not fit one datagram at `mtu`.
    pub(crate) fn queue(
        &mut self,
        payload: &[u8],
        reliability: Reliability,
        channel: u8,
        mtu: u16,
    ) -> Result<(), RakError> {
        self.queue_payload(Cow::Borrowed(payload), reliability, channel, mtu)
    }

    /// [`queue`](Self::queue) taking the payload over: a message that fits one datagram is sent
    /// (and kept for resending) without a copy.
    pub(crate) fn queue_owned(
        &mut self,
        payload: Vec<u8>,
        reliability: Reliability,
        channel: u8,
        mtu: u16,
    ) -> Result<(), RakError> {
        self.queue_payload(Cow::Owned(payload), reliability, channel, mtu)
    }

    fn queue_payload(
        &mut self,
        payload: Cow<'_, [u8]>,
        reliability: Reliability,
        channel: u8,
        mtu: u16,
    ) -> Result<(), RakError> {
        if payload.is_empty() {
            return Err(RakError::EmptyPayload);
        }
        let budget = datagram_budget(mtu);
        let whole_max = budget.saturating_sub(Frame::header_len(reliability, false));
        let part_max = budget.saturating_sub(Frame::header_len(reliability, true)).max(1);
        let max = part_max * MAX_SPLIT_PARTS as usize;
        if payload.len() > max {
            return Err(RakError::TooLarge { len: payload.len(), max });
        }
        if self.queued_bytes + payload.len() > MAX_QUEUED_BYTES {
            return Err(RakError::QueueFull);
        }
        let channel = channel % ORDER_CHANNELS as u8;
        let ch = usize::from(channel);
        let (order_index, sequence_index) = match reliability {
            // Sequenced frames carry the current order index and their own sequence counter.
            Reliability::UnreliableSequenced | Reliability::ReliableSequenced => {
                let seq = self.sequence_index[ch];
                self.sequence_index[ch] = u24_add(seq, 1);
                (self.order_index[ch], seq)
            }
            // An ordered message advances the order index and restarts sequencing, as RakNet does.
            Reliability::ReliableOrdered => {
                let idx = self.order_index[ch];
                self.order_index[ch] = u24_add(idx, 1);
                self.sequence_index[ch] = 0;
                (idx, 0)
            }
            _ => (0, 0),
        };
        self.queued_bytes += payload.len();
        let template = |payload: Vec<u8>| {
            let mut f = Frame::new(reliability, payload);
            f.order_index = order_index;
            f.sequence_index = sequence_index;
            f.order_channel = channel;
            f
        };
        if payload.len() <= whole_max {
            let mut f = template(payload.into_owned());
            self.assign_message_index(&mut f);
            self.queue.push_back(f);
            return Ok(());
        }
        // Splitting an unreliable message would lose the whole on any fragment loss, so fragments
        // are always sent reliably (what RakNet itself does).
        let reliability = match reliability {
            Reliability::Unreliable => Reliability::Reliable,
            Reliability::UnreliableSequenced => Reliability::ReliableSequenced,
            r => r,
        };
        let id = self.next_split_id;
        self.next_split_id = self.next_split_id.wrapping_add(1);
        let count = payload.len().div_ceil(part_max) as u32;
        for (index, chunk) in payload.chunks(part_max).enumerate() {
            let mut f = template(chunk.to_vec());
            f.reliability = reliability;
            f.split = Some(SplitInfo { count, id, index: index as u32 });
            self.assign_message_index(&mut f);
            self.queue.push_back(f);
        }
        Ok(())
    }

    fn assign_message_index(&mut self, f: &mut Frame) {
        if f.reliability.is_reliable() {
            f.message_index = self.next_message_index;
            self.next_message_index = u24_add(self.next_message_index, 1);
        }
    }

    /// Whether frames are waiting to be packed.
    pub(crate) fn has_queued(&self) -> bool {
        !self.queue.is_empty()
    }

    /// Packs queued frames into one datagram, unless the in-flight window is full (and
    /// `ignore_window` is false).
    pub(crate) fn pack(&mut self, mtu: u16, now: Instant, ignore_window: bool) -> Option<Vec<u8>> {
        let mut out = Vec::new();
        self.pack_into(mtu, now, ignore_window, &mut out).then_some(out)
    }

    /// [`pack`](Self::pack) appending the datagram to `out` (a buffer reused between datagrams);
    /// returns whether there was one.
    pub(crate) fn pack_into(&mut self, mtu: u16, now: Instant, ignore_window: bool, out: &mut Vec<u8>) -> bool {
        let window_full = self.in_flight.len >= MAX_IN_FLIGHT || self.in_flight.span(self.next_seq) >= MAX_WINDOW_SPAN;
        if self.queue.is_empty() || (!ignore_window && window_full) {
            return false;
        }
        let budget = datagram_budget(mtu);
        let mut used = 0;
        let mut frames = self.spare.pop().unwrap_or_default();
        while let Some(f) = self.queue.front() {
            let len = f.encoded_len();
            // Always take at least one frame so an oversized one (MTU shrank) cannot wedge us.
            if !frames.is_empty() && used + len > budget {
                break;
            }
            used += len;
            if let Some(f) = self.queue.pop_front() {
                self.queued_bytes -= f.payload.len();
                frames.push(f);
            }
        }
        self.transmit(frames, now, 0, out);
        true
    }

    /// Encodes `frames` under a fresh sequence number (appended to `out`) and remembers the
    /// reliable ones.
    fn transmit(&mut self, mut frames: Vec<Frame>, now: Instant, resends: u32, out: &mut Vec<u8>) {
        let seq = self.next_seq;
        self.next_seq = u24_add(seq, 1);
        let start = out.len();
        encode_data_datagram_into(seq, &frames, out);
        frames.retain(|f| f.reliability.is_reliable());
        if frames.is_empty() {
            self.recycle(frames);
        } else {
            let resend_at = now + self.rto(resends);
            self.in_flight.insert(seq, InFlight { frames, sent_at: now, resend_at, resends });
        }
        trace!(seq, len = out.len() - start, "datagram sent");
    }

    /// Keeps an emptied frame list for the next datagram, and its frames' payload buffers for
    /// the next messages.
    fn recycle(&mut self, mut frames: Vec<Frame>) {
        for frame in frames.drain(..) {
            let mut payload = frame.payload;
            if self.spare_payloads.len() < SPARE_PAYLOADS && payload.capacity() <= SPARE_PAYLOAD_MAX {
                payload.clear();
                self.spare_payloads.push(payload);
            }
        }
        if self.spare.len() < SPARE_FRAME_LISTS {
            self.spare.push(frames);
        }
    }

    /// An empty buffer for the next message (one an acknowledged frame carried, when there is
    /// one): a connection sending a small message per tick allocates none.
    pub(crate) fn spare_payload(&mut self) -> Vec<u8> {
        self.spare_payloads.pop().unwrap_or_default()
    }

    /// Handles an ACK: forget the datagrams and take RTT samples.
    pub(crate) fn on_ack(&mut self, ranges: impl IntoIterator<Item = SeqRange>, now: Instant) {
        for range in ranges {
            for index in self.in_flight.slots_of(range) {
                if let Some(d) = self.in_flight.take(index) {
                    // Every resend has its own sequence number, so the sample is never ambiguous.
                    self.rtt_sample(now.saturating_duration_since(d.sent_at));
                    self.recycle(d.frames);
                }
            }
        }
        self.in_flight.settle();
    }

    /// Handles a NACK: resend the named datagrams right away under new numbers.
    pub(crate) fn on_nack(
        &mut self,
        ranges: impl IntoIterator<Item = SeqRange>,
        now: Instant,
        out: &mut VecDeque<Vec<u8>>,
    ) {
        // Only the datagrams in flight before this NACK: not the resends it causes.
        let held = self.in_flight.slots.len();
        for range in ranges {
            let slots = self.in_flight.slots_of(range);
            for index in slots.start..slots.end.min(held) {
                if let Some(d) = self.in_flight.take(index) {
                    debug!(seq = u24_add(self.in_flight.base, index as u32), "resending NACKed datagram");
                    let mut bytes = Vec::new();
                    self.transmit(d.frames, now, d.resends, &mut bytes);
                    out.push_back(bytes);
                }
            }
        }
        self.in_flight.settle();
    }

    /// Resends datagrams whose ACK is overdue, oldest first, with exponential backoff.
    pub(crate) fn resend_due(&mut self, now: Instant, out: &mut VecDeque<Vec<u8>>) {
        self.in_flight.refresh();
        if self.in_flight.earliest.is_none_or(|e| e > now) {
            return;
        }
        // Only the datagrams in flight before this pass: not the resends it makes.
        for index in 0..self.in_flight.slots.len() {
            let due = self.in_flight.slots.get(index).is_some_and(|s| s.as_ref().is_some_and(|d| d.resend_at <= now));
            if !due {
                continue;
            }
            if let Some(d) = self.in_flight.take(index) {
                debug!(
                    seq = u24_add(self.in_flight.base, index as u32),
                    resends = d.resends + 1,
                    "resending unacknowledged datagram"
                );
                let mut bytes = Vec::new();
                self.transmit(d.frames, now, d.resends + 1, &mut bytes);
                out.push_back(bytes);
            }
        }
        self.in_flight.settle();
        self.in_flight.refresh();
    }

    /// Earliest pending resend.
    pub(crate) fn next_resend(&self) -> Option<Instant> {
        self.in_flight.earliest()
    }

    /// Datagrams waiting for an ACK.
    #[cfg(test)]
    pub(crate) fn in_flight_len(&self) -> usize {
        self.in_flight.len
    }
}

#[cfg(test)]
mod tests {
    use super::super::frame::{Datagram, parse_datagram};
    use super::*;

    fn frames_of(d: &[u8]) -> (u32, Vec<Frame>) {
        match parse_datagram(d) {
            Ok(Datagram::Data { seq, frames }) => (seq, frames),
            other => panic!("not data: {other:?}"),
        }
    }

    /// An acknowledged message's buffer comes back for the next one; big or unreliable ones
    /// are not kept, and the pool is bounded.
    #[test]
    fn acknowledged_payload_buffers_are_reused() {
        let t = Instant::now();
        let mut s = Sender::default();
        assert_eq!(s.spare_payload().capacity(), 0, "nothing acknowledged yet");
        let mut msg = Vec::with_capacity(300);
        msg.extend_from_slice(&[0xfe; 120]);
        let at = msg.as_ptr();
        s.queue_owned(msg, Reliability::ReliableOrdered, 0, 1400).expect("fits");
        s.pack(1400, t, false).expect("datagram");
        assert_eq!(s.spare_payload().capacity(), 0, "still in flight");
        s.on_ack([(0, 0)], t);
        let spare = s.spare_payload();
        assert_eq!((spare.as_ptr(), spare.len(), spare.capacity()), (at, 0, 300), "the same buffer, emptied");
        for seq in 1..=10u32 {
            s.queue_owned(vec![1; 50], Reliability::ReliableOrdered, 0, 1400).expect("fits");
            s.pack(1400, t, false).expect("datagram");
            s.on_ack([(seq, seq)], t);
        }
        assert_eq!(s.spare_payloads.len(), SPARE_PAYLOADS, "bounded");
        s.spare_payloads.clear();
        s.queue_owned(vec![1; SPARE_PAYLOAD_MAX + 1], Reliability::Reliable, 0, 1400 * 8).expect("fits");
        while s.pack(1400 * 8, t, false).is_some() {}
        s.on_ack([(11, 20)], t);
        assert!(s.spare_payloads.iter().all(|p| p.capacity() <= SPARE_PAYLOAD_MAX), "big buffers are freed");
    }

    #[test]
    fn small_messages_are_packed_together() {
        let t = Instant::now();
        let mut s = Sender::default();
        s.queue(b"one", Reliability::ReliableOrdered, 0, 1400).expect("fits");
        s.queue(b"two", Reliability::ReliableOrdered, 0, 1400).expect("fits");
        let d = s.pack(1400, t, false).expect("datagram");
        let (seq, frames) = frames_of(&d);
        assert_eq!(seq, 0);
        assert_eq!(frames.len(), 2);
        assert_eq!((frames[0].message_index, frames[0].order_index), (0, 0));
        assert_eq!((frames[1].message_index, frames[1].order_index), (1, 1));
        assert!(s.pack(1400, t, false).is_none());
    }

    #[test]
    fn sequenced_indices_follow_raknet() {
        let t = Instant::now();
        let mut s = Sender::default();
        s.queue(b"s0", Reliability::UnreliableSequenced, 1, 1400).expect("fits");
        s.queue(b"s1", Reliability::UnreliableSequenced, 1, 1400).expect("fits");
        s.queue(b"o0", Reliability::ReliableOrdered, 1, 1400).expect("fits");
        s.queue(b"s2", Reliability::ReliableSequenced, 1, 1400).expect("fits");
        let (_, f) = frames_of(&s.pack(1400, t, false).expect("datagram"));
        let idx: Vec<(u32, u32, u8)> = f.iter().map(|f| (f.order_index, f.sequence_index, f.order_channel)).collect();
        assert_eq!(idx, [(0, 0, 1), (0, 1, 1), (0, 0, 1), (1, 0, 1)]);
        assert_eq!(f[3].message_index, 1, "only reliable frames take message indices");
    }

    #[test]
    fn large_message_is_split_within_mtu() {
        let t = Instant::now();
        let mut s = Sender::default();
        let mtu = 576;
        let max_whole = datagram_budget(mtu) - Frame::header_len(Reliability::ReliableOrdered, false);
        s.queue(&vec![1; max_whole], Reliability::ReliableOrdered, 0, mtu).expect("fits");
        let d = s.pack(mtu, t, false).expect("datagram");
        assert_eq!(d.len(), usize::from(mtu - UDP_OVERHEAD));
        assert!(frames_of(&d).1[0].split.is_none());

        let payload: Vec<u8> = (0..3000u32).map(|i| i as u8).collect();
        s.queue(&payload, Reliability::ReliableOrdered, 0, mtu).expect("fits");
        let mut parts = Vec::new();
        while let Some(d) = s.pack(mtu, t, false) {
            assert!(d.len() <= usize::from(mtu - UDP_OVERHEAD));
            parts.extend(frames_of(&d).1);
        }
        let count = parts.len() as u32;
        assert!(count > 1);
        let mut joined = Vec::new();
        for (i, f) in parts.iter().enumerate() {
            let sp = f.split.expect("split");
            assert_eq!((sp.count, sp.index, sp.id), (count, i as u32, 0));
            assert_eq!(f.order_index, 1, "all parts share the order index");
            assert_eq!(f.message_index, 1 + i as u32, "each part has its own message index");
            joined.extend_from_slice(&f.payload);
        }
        assert_eq!(joined, payload);
        assert!(matches!(
            s.queue(&vec![0; 600 * 512], Reliability::ReliableOrdered, 0, mtu),
            Err(RakError::TooLarge { .. })
        ));
        assert_eq!(s.queue(&[], Reliability::Reliable, 0, mtu), Err(RakError::EmptyPayload));
    }

    #[test]
    fn ack_clears_and_measures_rtt_nack_and_timeout_resend() {
        let t = Instant::now();
        let mut s = Sender::default();
        let mut out = VecDeque::new();
        s.queue(b"a", Reliability::Reliable, 0, 1400).expect("fits");
        s.pack(1400, t, false).expect("datagram");
        s.queue(b"b", Reliability::Reliable, 0, 1400).expect("fits");
        s.pack(1400, t, false).expect("datagram");
        s.queue(b"u", Reliability::Unreliable, 0, 1400).expect("fits");
        s.pack(1400, t, false).expect("datagram");
        assert_eq!(s.in_flight_len(), 2, "unreliable datagrams are not kept");
        s.on_ack([(0, 0)], t + Duration::from_millis(40));
        assert_eq!(s.rtt(), Duration::from_millis(40));
        s.on_nack([(1, 1)], t, &mut out);
        let (seq, frames) = frames_of(&out.pop_front().expect("resend"));
        assert_eq!(seq, 3, "resends take a fresh sequence number");
        assert_eq!(frames[0].payload, b"b");
        // Timeout resend after max(2×RTT, 100 ms), then backoff.
        let due = s.next_resend().expect("in flight");
        assert_eq!(due, t + Duration::from_millis(100));
        s.resend_due(due - Duration::from_millis(1), &mut out);
        assert!(out.is_empty());
        s.resend_due(due, &mut out);
        assert_eq!(frames_of(&out.pop_front().expect("resend")).0, 4);
        assert_eq!(s.next_resend(), Some(due + Duration::from_millis(200)));
        // A bogus huge ACK range does not loop over 16M numbers and still clears what it covers.
        s.on_ack([(0, 0x7f_ffff)], due);
        assert_eq!(s.in_flight_len(), 0);
    }

    /// Queues and packs one reliable datagram carrying `payload`; returns its sequence number.
    fn send_one(s: &mut Sender, payload: &[u8], now: Instant) -> u32 {
        s.queue(payload, Reliability::ReliableOrdered, 0, 1400).expect("fits");
        frames_of(&s.pack(1400, now, false).expect("datagram")).0
    }

    fn payloads(out: &mut VecDeque<Vec<u8>>) -> Vec<(u32, Vec<u8>)> {
        out.drain(..)
            .map(|d| {
                let (seq, mut frames) = frames_of(&d);
                (seq, frames.remove(0).payload)
            })
            .collect()
    }

    #[test]
    fn in_flight_window_wraps_around_24_bits() {
        let t = Instant::now();
        let mut s = Sender { next_seq: U24_MASK - 1, ..Sender::default() };
        let seqs: Vec<u32> = (0..6u8).map(|i| send_one(&mut s, &[i], t)).collect();
        assert_eq!(seqs, [0xff_fffe, 0xff_ffff, 0, 1, 2, 3]);
        // A range across the wrap.
        s.on_ack([(0xff_ffff, 0)], t);
        assert_eq!(s.in_flight_len(), 4);
        // A range starting well before the window that wraps into it: acks 0xfffffe and 1.
        s.on_ack([(0xff_fff0, 0xff_fffe), (0xff_fff0, 1)], t);
        assert_eq!(s.in_flight_len(), 2);
        // What is left is resent in order, and the window goes on past the wrap.
        let mut out = VecDeque::new();
        s.on_nack([(0xff_0000, 0x10)], t, &mut out);
        assert_eq!(payloads(&mut out), [(4, vec![4]), (5, vec![5])]);
        s.on_ack([(4, 5)], t);
        assert_eq!(s.in_flight_len(), 0);
        assert_eq!(s.next_resend(), None);
        assert_eq!(send_one(&mut s, b"x", t), 6);
        assert_eq!(s.in_flight_len(), 1);
    }

    #[test]
    fn acks_of_unknown_duplicate_and_backwards_ranges_change_nothing() {
        let t = Instant::now();
        let mut s = Sender::default();
        for p in [b"a", b"b", b"c"] {
            send_one(&mut s, p, t);
        }
        let due = s.next_resend();
        // Not sent yet, far behind, backwards (end before start), and empty.
        s.on_ack([(3, 10), (0xf0_0000, 0xf0_0010), (2, 0)], t + Duration::from_millis(10));
        s.on_ack([], t + Duration::from_millis(10));
        assert_eq!(s.in_flight_len(), 3);
        assert_eq!(s.rtt(), INITIAL_RTT, "no sample without a datagram acknowledged");
        assert_eq!(s.next_resend(), due);
        // The same datagram twice in one ACK and again later: one sample.
        s.on_ack([(1, 1), (0, 2)], t + Duration::from_millis(20));
        assert_eq!(s.in_flight_len(), 0);
        assert_eq!(s.rtt(), Duration::from_millis(20));
        s.on_ack([(1, 1)], t + Duration::from_millis(500));
        assert_eq!(s.rtt(), Duration::from_millis(20));
        // A NACK of what was acknowledged resends nothing.
        let mut out = VecDeque::new();
        s.on_nack([(0, 2)], t, &mut out);
        assert!(out.is_empty());
    }

    #[test]
    fn nack_of_a_range_resends_each_once_in_order() {
        let t = Instant::now();
        let mut s = Sender::default();
        send_one(&mut s, b"0", t);
        s.queue(b"unreliable", Reliability::Unreliable, 0, 1400).expect("fits");
        s.pack(1400, t, false).expect("datagram 1");
        send_one(&mut s, b"2", t);
        send_one(&mut s, b"3", t);
        s.on_ack([(2, 2)], t);
        let mut out = VecDeque::new();
        // The range covers the numbers the resends take (4, 5): those are not resent again.
        s.on_nack([(0, 100)], t + Duration::from_millis(5), &mut out);
        assert_eq!(payloads(&mut out), [(4, b"0".to_vec()), (5, b"3".to_vec())]);
        assert_eq!(s.in_flight_len(), 2);
        // Resends keep their backoff count: the NACKed ones are due after the base timeout.
        assert_eq!(s.next_resend(), Some(t + Duration::from_millis(5) + s.rto(0)));
        s.on_nack([(5, 5), (4, 4)], t + Duration::from_millis(6), &mut out);
        assert_eq!(payloads(&mut out), [(6, b"3".to_vec()), (7, b"0".to_vec())], "in the NACK's order");
    }

    #[test]
    fn timeout_resends_go_oldest_first_and_the_next_deadline_stays_exact() {
        let t = Instant::now();
        let ms = Duration::from_millis;
        let mut s = Sender::default();
        send_one(&mut s, b"a", t); // seq 0, due at t + 600 (2 × the initial 300 ms RTT)
        send_one(&mut s, b"b", t); // seq 1
        assert_eq!(s.next_resend(), Some(t + ms(600)));
        s.on_ack([(1, 1)], t + ms(40)); // RTT 40 ms: the timeout drops to the 100 ms floor
        send_one(&mut s, b"c", t + ms(50)); // seq 2, due at t + 150, before seq 0
        assert_eq!(s.next_resend(), Some(t + ms(150)));
        let mut out = VecDeque::new();
        s.resend_due(t + ms(149), &mut out);
        assert!(out.is_empty());
        s.resend_due(t + ms(150), &mut out);
        assert_eq!(payloads(&mut out), [(3, b"c".to_vec())]);
        // Seq 3 is due 200 ms later (one backoff), seq 0 still at t + 600.
        assert_eq!(s.next_resend(), Some(t + ms(350)));
        s.on_ack([(3, 3)], t + ms(200));
        assert_eq!(s.next_resend(), Some(t + ms(600)), "acking the earliest uncovers the next");
        send_one(&mut s, b"d", t + ms(300)); // seq 4
        let d_due = t + ms(300) + s.rto(0);
        assert_eq!(s.next_resend(), Some(d_due.min(t + ms(600))));
        // Both due: the older datagram (seq 0) goes first.
        s.resend_due(t + ms(700), &mut out);
        assert_eq!(payloads(&mut out), [(5, b"a".to_vec()), (6, b"d".to_vec())]);
        assert_eq!(s.in_flight_len(), 2);
    }

    #[test]
    fn one_old_unacknowledged_datagram_bounds_the_window() {
        let t = Instant::now();
        let mut s = Sender::default();
        send_one(&mut s, b"old", t);
        let mut sent = 1;
        loop {
            s.queue(b"x", Reliability::ReliableOrdered, 0, 1400).expect("fits");
            let Some(d) = s.pack(1400, t, false) else { break };
            let seq = frames_of(&d).0;
            s.on_ack([(seq, seq)], t);
            sent += 1;
            assert!(sent <= MAX_WINDOW_SPAN, "the window never fills");
        }
        assert_eq!(sent, MAX_WINDOW_SPAN);
        assert_eq!(s.in_flight_len(), 1);
        // Once the old one is acknowledged, packing goes on.
        s.on_ack([(0, 0)], t);
        assert!(s.pack(1400, t, false).is_some());
    }

    #[test]
    fn owned_payloads_are_sent_as_given_and_split_when_large() {
        let t = Instant::now();
        let mut s = Sender::default();
        s.queue_owned(b"whole".to_vec(), Reliability::ReliableOrdered, 0, 576).expect("fits");
        let mut buf = Vec::new();
        assert!(s.pack_into(576, t, false, &mut buf));
        assert_eq!(frames_of(&buf).1[0].payload, b"whole");
        let payload: Vec<u8> = (0..2000u32).map(|i| i as u8).collect();
        s.queue_owned(payload.clone(), Reliability::ReliableOrdered, 0, 576).expect("fits");
        let mut joined = Vec::new();
        buf.clear();
        while s.pack_into(576, t, false, &mut buf) {
            joined.extend(frames_of(&buf).1.into_iter().flat_map(|f| f.payload));
            buf.clear();
        }
        assert_eq!(joined, payload);
        assert_eq!(s.queue_owned(Vec::new(), Reliability::Reliable, 0, 576), Err(RakError::EmptyPayload));
    }
}
