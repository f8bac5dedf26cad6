//! Datagrams (frame sets), frames (encapsulated packets) and ACK/NACK records.

use super::{RakError, U24_MASK, u24_add};
use crate::io::{Reader, WriteExt};

/// Datagram flag: this is a connected datagram (not an offline message).
pub const FLAG_VALID: u8 = 0x80;
/// Datagram flag: ACK.
pub const FLAG_ACK: u8 = 0x40;
/// Datagram flag: NACK.
pub const FLAG_NACK: u8 = 0x20;
/// Datagram flag: needs B and AS (what go-raknet and vanilla set on data datagrams).
pub const FLAG_NEEDS_B_AND_AS: u8 = 0x04;

/// Bytes before the first frame of a data datagram (flags + u24 sequence number).
pub const DATAGRAM_HEADER_LEN: usize = 4;

/// Delivery guarantee of a frame. The "with ACK receipt" variants (5–7) are folded into their base
/// type when parsing: they only ask the *sending* RakNet to report acknowledgement locally.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Reliability {
    /// May be lost, duplicated or reordered.
    Unreliable,
    /// May be lost; older ones are dropped.
    UnreliableSequenced,
    /// Retransmitted until acknowledged; may be reordered.
    Reliable,
    /// Retransmitted and delivered in order per channel.
    ReliableOrdered,
    /// Retransmitted; older ones are dropped.
    ReliableSequenced,
}

impl Reliability {
    /// Decodes the 3-bit reliability field.
    pub fn from_bits(bits: u8) -> Self {
        match bits & 7 {
            0 | 5 => Self::Unreliable,
            1 => Self::UnreliableSequenced,
            2 | 6 => Self::Reliable,
            3 | 7 => Self::ReliableOrdered,
            _ => Self::ReliableSequenced,
        }
    }

    /// The 3-bit wire value.
    pub fn bits(self) -> u8 {
        match self {
            Self::Unreliable => 0,
            Self::UnreliableSequenced => 1,
            Self::Reliable => 2,
            Self::ReliableOrdered => 3,
            Self::ReliableSequenced => 4,
        }
    }

    /// Carries a message index and is retransmitted.
    pub fn is_reliable(self) -> bool {
        matches!(self, Self::Reliable | Self::ReliableOrdered | Self::ReliableSequenced)
    }

    /// Carries a sequence index.
    pub fn is_sequenced(self) -> bool {
        matches!(self, Self::UnreliableSequenced | Self::ReliableSequenced)
    }

    /// Carries an order index and channel (sequenced frames do too).
    pub fn has_order(self) -> bool {
        self.is_sequenced() || self == Self::ReliableOrdered
    }
}

/// Split (fragment) header of a frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SplitInfo {
    /// Number of fragments of the whole message.
    pub count: u32,
    /// Identifies the message the fragment belongs to.
    pub id: u16,
    /// Position of this fragment.
    pub index: u32,
}

/// One encapsulated packet inside a datagram.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Frame {
    /// Delivery guarantee.
    pub reliability: Reliability,
    /// Reliable message index (dedupe), meaningful when reliable.
    pub message_index: u32,
    /// Sequence index, meaningful when sequenced.
    pub sequence_index: u32,
    /// Order index, meaningful when ordered or sequenced.
    pub order_index: u32,
    /// Ordering channel (0..32), meaningful when ordered or sequenced.
    pub order_channel: u8,
    /// Present when this frame is a fragment of a larger message.
    pub split: Option<SplitInfo>,
    /// Payload bytes.
    pub payload: Vec<u8>,
}

impl Frame {
    /// A frame with zeroed indices; the sender fills them in.
    pub fn new(reliability: Reliability, payload: Vec<u8>) -> Self {
        Self {
            reliability,
            message_index: 0,
            sequence_index: 0,
            order_index: 0,
            order_channel: 0,
            split: None,
            payload,
        }
    }

    /// Header bytes of a frame with this reliability, with or without a split header.
    pub fn header_len(reliability: Reliability, split: bool) -> usize {
        let mut n = 3; // flags + u16 bit length
        if reliability.is_reliable() {
            n += 3;
        }
        if reliability.is_sequenced() {
            n += 3;
        }
        if reliability.has_order() {
            n += 4;
        }
        if split {
            n += 10;
        }
        n
    }

    /// Bytes this frame takes on the wire.
    pub fn encoded_len(&self) -> usize {
        Self::header_len(self.reliability, self.split.is_some()) + self.payload.len()
    }

    /// Appends the wire form. Payloads are limited to 8191 bytes by the 16-bit bit length, far
    /// above any MTU, so callers never hit that.
    pub fn encode(&self, out: &mut Vec<u8>) {
        let mut flags = self.reliability.bits() << 5;
        if self.split.is_some() {
            flags |= 0x10;
        }
        out.put_u8(flags);
        out.put_u16_be((self.payload.len() * 8) as u16);
        if self.reliability.is_reliable() {
            out.put_u24_le(self.message_index);
        }
        if self.reliability.is_sequenced() {
            out.put_u24_le(self.sequence_index);
        }
        if self.reliability.has_order() {
            out.put_u24_le(self.order_index);
            out.put_u8(self.order_channel);
        }
        if let Some(s) = self.split {
            out.put_u32_be(s.count);
            out.put_u16_be(s.id);
            out.put_u32_be(s.index);
        }
        out.put_bytes(&self.payload);
    }

    /// Reads one frame.
    pub fn decode(r: &mut Reader<'_>) -> Result<Self, RakError> {
        let flags = r.u8()?;
        let reliability = Reliability::from_bits(flags >> 5);
        let bits = usize::from(r.u16_be()?);
        let len = bits.div_ceil(8);
        if len == 0 {
            return Err(RakError::Invalid("empty frame".into()));
        }
        let mut f = Frame::new(reliability, Vec::new());
        if reliability.is_reliable() {
            f.message_index = r.u24_le()?;
        }
        if reliability.is_sequenced() {
            f.sequence_index = r.u24_le()?;
        }
        if reliability.has_order() {
            f.order_index = r.u24_le()?;
            f.order_channel = r.u8()?;
        }
        if flags & 0x10 != 0 {
            f.split = Some(SplitInfo { count: r.u32_be()?, id: r.u16_be()?, index: r.u32_be()? });
        }
        f.payload = r.bytes(len)?.to_vec();
        Ok(f)
    }
}

/// An inclusive range of datagram sequence numbers from an ACK or NACK.
pub type SeqRange = (u32, u32);

/// The records of an ACK or NACK datagram: checked whole when parsed, decoded while iterated,
/// so reading them allocates nothing.
#[derive(Debug, Clone, Copy)]
pub struct AckRecords<'a> {
    /// The records not iterated yet (all of them checked to be complete).
    bytes: &'a [u8],
    /// Records left in `bytes`.
    count: usize,
}

impl<'a> AckRecords<'a> {
    /// Reads `u16 count` records, checking every one; `r` is left after the last record (bytes
    /// after it are not looked at, as every RakNet implementation does).
    pub fn parse(r: &mut Reader<'a>) -> Result<Self, RakError> {
        let count = u64::from(r.u16_be()?);
        // Every record is at least 4 bytes, so a count that cannot fit is rejected before walking.
        let count = r.checked_len(count, 4)?;
        let all = r.clone().rest();
        let start = r.position();
        for _ in 0..count {
            let single = r.bool()?;
            r.u24_le()?;
            if !single {
                r.u24_le()?;
            }
        }
        let bytes = all.get(..r.position() - start).unwrap_or_default();
        Ok(Self { bytes, count })
    }

    /// Records not iterated yet.
    pub fn len(&self) -> usize {
        self.count
    }

    /// Whether no record is left.
    pub fn is_empty(&self) -> bool {
        self.count == 0
    }
}

/// A little-endian u24 at the start of `b`.
fn u24_at(b: &[u8]) -> Option<u32> {
    match *b {
        [x, y, z, ..] => Some(u32::from_le_bytes([x, y, z, 0])),
        _ => None,
    }
}

impl Iterator for AckRecords<'_> {
    type Item = SeqRange;

    fn next(&mut self) -> Option<SeqRange> {
        if self.count == 0 {
            return None;
        }
        // `parse` checked every record, so none of these fail; if one did, iteration just ends.
        let (&single, rest) = self.bytes.split_first()?;
        let first = u24_at(rest)?;
        let (last, len) = if single != 0 { (first, 4) } else { (u24_at(rest.get(3..)?)?, 7) };
        self.bytes = self.bytes.get(len..)?;
        self.count -= 1;
        Some((first, last))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.count, Some(self.count))
    }
}

impl ExactSizeIterator for AckRecords<'_> {}

/// Records are equal when they name the same ranges in the same order (however encoded).
impl PartialEq for AckRecords<'_> {
    fn eq(&self, other: &Self) -> bool {
        self.count == other.count && Iterator::eq(*self, *other)
    }
}

impl Eq for AckRecords<'_> {}

/// A parsed connected datagram.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Datagram<'a> {
    /// The peer received these datagrams.
    Ack(AckRecords<'a>),
    /// The peer is missing these datagrams.
    Nack(AckRecords<'a>),
    /// A frame set.
    Data {
        /// Datagram sequence number.
        seq: u32,
        /// Frames in the datagram.
        frames: Vec<Frame>,
    },
}

/// Parses a connected datagram (first byte has 0x80 set). ACK is checked before NACK before data,
/// like every RakNet implementation does. ACK and NACK records are read in place.
pub fn parse_datagram(data: &[u8]) -> Result<Datagram<'_>, RakError> {
    let mut r = Reader::new(data);
    let flags = r.u8()?;
    if flags & FLAG_VALID == 0 {
        return Err(RakError::Invalid("not a connected datagram".into()));
    }
    if flags & FLAG_ACK != 0 {
        return Ok(Datagram::Ack(AckRecords::parse(&mut r)?));
    }
    if flags & FLAG_NACK != 0 {
        return Ok(Datagram::Nack(AckRecords::parse(&mut r)?));
    }
    let seq = r.u24_le()?;
    let mut frames = Vec::new();
    while !r.is_empty() {
        frames.push(Frame::decode(&mut r)?);
    }
    Ok(Datagram::Data { seq, frames })
}

/// Encodes a data datagram holding `frames`.
pub fn encode_data_datagram(seq: u32, frames: &[Frame]) -> Vec<u8> {
    let mut out = Vec::new();
    encode_data_datagram_into(seq, frames, &mut out);
    out
}

/// Appends a data datagram holding `frames` to `out` (a buffer reused between datagrams).
pub fn encode_data_datagram_into(seq: u32, frames: &[Frame], out: &mut Vec<u8>) {
    let len = DATAGRAM_HEADER_LEN + frames.iter().map(Frame::encoded_len).sum::<usize>();
    out.reserve(len);
    out.put_u8(FLAG_VALID | FLAG_NEEDS_B_AND_AS);
    out.put_u24_le(seq & U24_MASK);
    for f in frames {
        f.encode(out);
    }
}

/// Coalesces sequence numbers (any order, duplicates allowed) into inclusive runs.
pub fn coalesce(seqs: &mut Vec<u32>) -> Vec<SeqRange> {
    seqs.sort_unstable();
    seqs.dedup();
    let mut out: Vec<SeqRange> = Vec::new();
    for &s in seqs.iter() {
        match out.last_mut() {
            Some((_, last)) if u24_add(*last, 1) == s => *last = s,
            _ => out.push((s, s)),
        }
    }
    out
}

/// Encodes ranges as ACK (`flag` = [`FLAG_ACK`]) or NACK ([`FLAG_NACK`]) datagrams, each at most
/// `max_len` bytes.
pub fn encode_ack_datagrams(flag: u8, ranges: &[SeqRange], max_len: usize) -> Vec<Vec<u8>> {
    // 3 header bytes; a record is at most 7 bytes. Always fit at least one record.
    let per_packet = (max_len.saturating_sub(3) / 7).clamp(1, usize::from(u16::MAX));
    ranges
        .chunks(per_packet)
        .map(|chunk| {
            let mut out = Vec::with_capacity(3 + chunk.len() * 7);
            out.put_u8(FLAG_VALID | flag);
            out.put_u16_be(chunk.len() as u16);
            for &(first, last) in chunk {
                if first == last {
                    out.put_u8(1);
                    out.put_u24_le(first);
                } else {
                    out.put_u8(0);
                    out.put_u24_le(first);
                    out.put_u24_le(last);
                }
            }
            out
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reliability_bits_5_to_7_map_to_base() {
        assert_eq!(Reliability::from_bits(5), Reliability::Unreliable);
        assert_eq!(Reliability::from_bits(6), Reliability::Reliable);
        assert_eq!(Reliability::from_bits(7), Reliability::ReliableOrdered);
        for b in 0..5 {
            assert_eq!(Reliability::from_bits(b).bits(), b);
        }
    }

    #[test]
    fn frame_layout_reliable_ordered_split() {
        let mut f = Frame::new(Reliability::ReliableOrdered, vec![0xfe, 1, 2]);
        f.message_index = 0x010203;
        f.order_index = 0x040506;
        f.order_channel = 2;
        f.split = Some(SplitInfo { count: 3, id: 7, index: 1 });
        let mut b = Vec::new();
        f.encode(&mut b);
        assert_eq!(b, [0x70, 0, 24, 3, 2, 1, 6, 5, 4, 2, 0, 0, 0, 3, 0, 7, 0, 0, 0, 1, 0xfe, 1, 2]);
        assert_eq!(b.len(), f.encoded_len());
        assert_eq!(Frame::decode(&mut Reader::new(&b)), Ok(f));
    }

    #[test]
    fn every_reliability_round_trips_and_7_has_order_fields() {
        for bits in 0..8u8 {
            let rel = Reliability::from_bits(bits);
            let mut f = Frame::new(rel, vec![9; 5]);
            f.message_index = if rel.is_reliable() { 11 } else { 0 };
            f.sequence_index = if rel.is_sequenced() { 12 } else { 0 };
            if rel.has_order() {
                f.order_index = 13;
                f.order_channel = 4;
            }
            let mut b = Vec::new();
            f.encode(&mut b);
            b[0] = (bits << 5) | (b[0] & 0x1f); // write the raw 5..7 variant on the wire
            assert_eq!(Frame::decode(&mut Reader::new(&b)), Ok(f), "bits {bits}");
        }
    }

    #[test]
    fn bit_length_rounds_up() {
        let b = [0x00, 0x00, 9, 0xaa, 0xbb];
        let f = Frame::decode(&mut Reader::new(&b)).expect("valid");
        assert_eq!(f.payload, [0xaa, 0xbb]);
        assert!(Frame::decode(&mut Reader::new(&[0, 0, 0])).is_err());
    }

    #[test]
    fn ack_round_trip_and_size_limit() {
        let mut seqs = vec![5, 1, 2, 3, 9, 3, 10, 20];
        let ranges = coalesce(&mut seqs);
        assert_eq!(ranges, [(1, 3), (5, 5), (9, 10), (20, 20)]);
        let pkts = encode_ack_datagrams(FLAG_ACK, &ranges, 1464);
        assert_eq!(pkts.len(), 1);
        assert_eq!(pkts[0][..3], [0xc0, 0, 4]);
        let Ok(Datagram::Ack(records)) = parse_datagram(&pkts[0]) else { panic!("not an ACK") };
        assert_eq!(records.len(), 4);
        assert_eq!(records.collect::<Vec<_>>(), ranges);
        let pkts = encode_ack_datagrams(FLAG_NACK, &ranges, 20);
        assert!(pkts.iter().all(|p| p.len() <= 20));
        assert_eq!(pkts.len(), 2);
        assert!(matches!(parse_datagram(&pkts[1]), Ok(Datagram::Nack(_))));
    }

    #[test]
    fn absurd_ack_count_is_rejected() {
        assert!(parse_datagram(&[0xc0, 0xff, 0xff, 1, 0, 0, 0]).is_err());
    }

    #[test]
    fn ack_records_are_checked_whole_before_use() {
        // A range record then a single one: 0x010203..=0x0a0b0c, 0xffffff.
        let ack = [0xc0, 0, 2, 0, 3, 2, 1, 0x0c, 0x0b, 0x0a, 1, 0xff, 0xff, 0xff];
        let Ok(Datagram::Ack(records)) = parse_datagram(&ack) else { panic!("not an ACK") };
        assert_eq!(records.size_hint(), (2, Some(2)));
        assert_eq!(records.collect::<Vec<_>>(), [(0x010203, 0x0a0b0c), (0xff_ffff, 0xff_ffff)]);
        // Every truncation is an error, not fewer records.
        for cut in 1..ack.len() {
            assert!(parse_datagram(&ack[..cut]).is_err(), "cut at {cut}");
        }
        // Bytes after the counted records are ignored; the same ranges compare equal however
        // they are encoded.
        let mut longer = ack.to_vec();
        longer.extend_from_slice(&[0xde, 0xad]);
        assert_eq!(parse_datagram(&longer), parse_datagram(&ack));
        let ranged = [0xa0, 0, 1, 0, 5, 0, 0, 5, 0, 0];
        let single = [0xa0, 0, 1, 1, 5, 0, 0];
        assert_eq!(parse_datagram(&ranged), parse_datagram(&single));
        assert!(matches!(parse_datagram(&single), Ok(Datagram::Nack(r)) if r.collect::<Vec<_>>() == [(5, 5)]));
        assert_ne!(parse_datagram(&single), parse_datagram(&[0xa0, 0, 1, 1, 6, 0, 0]));
        // A count of 3 with room for only 2 short records is rejected up front.
        assert!(parse_datagram(&[0xc0, 0, 3, 1, 0, 0, 0, 1, 1, 0, 0, 9]).is_err());
        // No records at all is a valid (empty) ACK.
        assert!(matches!(parse_datagram(&[0xc0, 0, 0]), Ok(Datagram::Ack(r)) if r.is_empty()));
    }
}
