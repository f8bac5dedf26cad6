//! Outbound reliability: index assignment, splitting, packing frames into datagrams, keeping
//! unacknowledged datagrams for resending, and RTT estimation from ACKs.

use std::collections::{HashMap, VecDeque};
use std::time::{Duration, Instant};

use tracing::{debug, trace};

use super::frame::{DATAGRAM_HEADER_LEN, Frame, Reliability, SeqRange, SplitInfo, encode_data_datagram};
use super::receive::MAX_SPLIT_PARTS;
use super::{ORDER_CHANNELS, RakError, UDP_OVERHEAD, u24_add, u24_diff};

/// Most datagrams awaiting ACK before we stop packing new frames (congestion/memory bound).
const MAX_IN_FLIGHT: usize = 1024;
/// Most payload bytes queued but not yet packed; beyond this `send` reports backpressure.
const MAX_QUEUED_BYTES: usize = 64 * 1024 * 1024;
/// Resend timeout floor: below this, ordinary ACK delay would trigger spurious resends.
const MIN_RTO: Duration = Duration::from_millis(100);
/// Resend timeout ceiling after backoff.
const MAX_RTO: Duration = Duration::from_secs(3);
/// RTT assumed before the first measurement.
const INITIAL_RTT: Duration = Duration::from_millis(300);

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
    in_flight: HashMap<u32, InFlight>,
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
            in_flight: HashMap::new(),
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
        let template = |payload: &[u8]| {
            let mut f = Frame::new(reliability, payload.to_vec());
            f.order_index = order_index;
            f.sequence_index = sequence_index;
            f.order_channel = channel;
            f
        };
        if payload.len() <= whole_max {
            let mut f = template(payload);
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
        let chunks: Vec<&[u8]> = payload.chunks(part_max).collect();
        let count = chunks.len() as u32;
        for (index, chunk) in chunks.into_iter().enumerate() {
            let mut f = template(chunk);
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
        if self.queue.is_empty() || (!ignore_window && self.in_flight.len() >= MAX_IN_FLIGHT) {
            return None;
        }
        let budget = datagram_budget(mtu);
        let mut used = 0;
        let mut frames = Vec::new();
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
        Some(self.transmit(frames, now, 0))
    }

    /// Encodes `frames` under a fresh sequence number and remembers the reliable ones.
    fn transmit(&mut self, frames: Vec<Frame>, now: Instant, resends: u32) -> Vec<u8> {
        let seq = self.next_seq;
        self.next_seq = u24_add(seq, 1);
        let bytes = encode_data_datagram(seq, &frames);
        let reliable: Vec<Frame> = frames.into_iter().filter(|f| f.reliability.is_reliable()).collect();
        if !reliable.is_empty() {
            let resend_at = now + self.rto(resends);
            self.in_flight.insert(seq, InFlight { frames: reliable, sent_at: now, resend_at, resends });
        }
        trace!(seq, len = bytes.len(), "datagram sent");
        bytes
    }

    /// Sequence numbers of `ranges` that are in flight (without walking huge bogus ranges).
    fn in_flight_in(&self, ranges: &[SeqRange]) -> Vec<u32> {
        let mut out = Vec::new();
        for &(first, last) in ranges {
            let span = u24_diff(last, first);
            if span < 0 {
                continue;
            }
            if span as usize >= self.in_flight.len() {
                out.extend(self.in_flight.keys().copied().filter(|&s| {
                    let d = u24_diff(s, first);
                    d >= 0 && d <= span
                }));
            } else {
                let mut s = first;
                for _ in 0..=span {
                    if self.in_flight.contains_key(&s) {
                        out.push(s);
                    }
                    s = u24_add(s, 1);
                }
            }
        }
        out
    }

    /// Handles an ACK: forget the datagrams and take RTT samples.
    pub(crate) fn on_ack(&mut self, ranges: &[SeqRange], now: Instant) {
        for seq in self.in_flight_in(ranges) {
            if let Some(d) = self.in_flight.remove(&seq) {
                // Every resend has its own sequence number, so the sample is never ambiguous.
                self.rtt_sample(now.saturating_duration_since(d.sent_at));
            }
        }
    }

    /// Handles a NACK: resend the named datagrams right away under new numbers.
    pub(crate) fn on_nack(&mut self, ranges: &[SeqRange], now: Instant, out: &mut VecDeque<Vec<u8>>) {
        for seq in self.in_flight_in(ranges) {
            if let Some(d) = self.in_flight.remove(&seq) {
                debug!(seq, "resending NACKed datagram");
                out.push_back(self.transmit(d.frames, now, d.resends));
            }
        }
    }

    /// Resends datagrams whose ACK is overdue, with exponential backoff.
    pub(crate) fn resend_due(&mut self, now: Instant, out: &mut VecDeque<Vec<u8>>) {
        let mut due: Vec<u32> = self.in_flight.iter().filter(|(_, d)| d.resend_at <= now).map(|(&s, _)| s).collect();
        due.sort_unstable_by_key(|&s| u24_diff(s, self.next_seq));
        for seq in due {
            if let Some(d) = self.in_flight.remove(&seq) {
                debug!(seq, resends = d.resends + 1, "resending unacknowledged datagram");
                out.push_back(self.transmit(d.frames, now, d.resends + 1));
            }
        }
    }

    /// Earliest pending resend.
    pub(crate) fn next_resend(&self) -> Option<Instant> {
        self.in_flight.values().map(|d| d.resend_at).min()
    }

    /// Datagrams waiting for an ACK.
    #[cfg(test)]
    pub(crate) fn in_flight_len(&self) -> usize {
        self.in_flight.len()
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
        s.on_ack(&[(0, 0)], t + Duration::from_millis(40));
        assert_eq!(s.rtt(), Duration::from_millis(40));
        s.on_nack(&[(1, 1)], t, &mut out);
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
        s.on_ack(&[(0, 0x7f_ffff)], due);
        assert_eq!(s.in_flight_len(), 0);
    }
}
