//! Game batches: the `0xFE` RakNet messages that carry Bedrock game packets.
//!
//! Outgoing layering:
//! `0xFE ‖ encrypt( [algorithm byte] ‖ compress( (varu32 len ‖ packet)+ ) [‖ checksum] )`.
//! The algorithm byte only exists once compression has been negotiated (NetworkSettings), and
//! encryption only once the ECDH handshake is done. Packet bodies are opaque at this layer.

use std::io::Read;

use thiserror::Error;

use crate::encryption::{CHECKSUM_LEN, Encryption};
use crate::io::{ReadError, Reader, WriteExt};

/// First byte of every RakNet message that carries game packets.
pub const GAME_PACKET_ID: u8 = 0xFE;
/// Largest batch we accept after decompression. Real batches (chunks) stay far below this; the
/// cap stops a "zip bomb" from exhausting memory.
pub const MAX_DECOMPRESSED_SIZE: usize = 16 * 1024 * 1024;
/// Most packets we accept in one batch (gophertunnel's server refuses more than 812).
pub const MAX_PACKETS_PER_BATCH: usize = 4096;

/// Per-batch algorithm byte for raw DEFLATE.
const ALGO_DEFLATE: u8 = 0x00;
/// Per-batch algorithm byte for raw-block snappy.
const ALGO_SNAPPY: u8 = 0x01;
/// Per-batch algorithm byte for an uncompressed batch.
const ALGO_NONE: u8 = 0xFF;

/// Why a game batch could not be encoded or decoded. Every variant is fatal for the connection.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum FrameError {
    /// The message was empty.
    #[error("empty message: expected a game batch starting with 0xfe")]
    EmptyMessage,
    /// The message did not start with `0xFE`.
    #[error("not a game batch: first byte {0:#04x}, expected 0xfe")]
    NotGameBatch(u8),
    /// The decrypted checksum did not match: tampering, corruption, or disagreeing keys.
    #[error(
        "encrypted batch #{counter} failed its checksum: the data was corrupted or tampered with, or the keys disagree"
    )]
    BadChecksum {
        /// Receive counter of the rejected batch.
        counter: u64,
    },
    /// An encrypted batch too short to even hold its 8-byte checksum.
    #[error("encrypted batch of {0} bytes is too short to hold an 8-byte checksum")]
    TooShortForChecksum(usize),
    /// The batch had no algorithm byte although compression is enabled.
    #[error("batch is missing its compression algorithm byte")]
    MissingAlgorithm,
    /// The per-batch algorithm byte is not 0x00, 0x01 or 0xFF.
    #[error("unknown compression algorithm byte {0:#04x}")]
    UnknownAlgorithm(u8),
    /// The compressed payload was invalid.
    #[error("decompression failed: {0}")]
    Decompress(String),
    /// The batch decompresses to more than [`MAX_DECOMPRESSED_SIZE`].
    #[error("batch decompresses to more than {limit} bytes")]
    TooLarge {
        /// The cap that was exceeded.
        limit: usize,
    },
    /// The batch holds more than [`MAX_PACKETS_PER_BATCH`] packets.
    #[error("batch holds more than {limit} packets")]
    TooManyPackets {
        /// The cap that was exceeded.
        limit: usize,
    },
    /// A packet inside the batch had length zero (it could not even hold a header).
    #[error("packet #{index} in the batch is empty")]
    EmptyPacket {
        /// Position of the packet in the batch.
        index: usize,
    },
    /// A packet length prefix was malformed or ran past the end of the batch.
    #[error("malformed packet length in batch: {0}")]
    Read(#[from] ReadError),
    /// Compressing an outgoing batch failed.
    #[error("compression failed: {0}")]
    Compress(String),
    /// An outgoing packet is larger than a varu32 length can describe.
    #[error("outgoing packet of {0} bytes is too large")]
    PacketTooLarge(usize),
}

/// Compression algorithm negotiated by NetworkSettings.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Compression {
    /// Raw DEFLATE (RFC 1951, no zlib header), called "zlib" by BDS.
    Deflate,
    /// Snappy raw block format (not the framed stream format).
    Snappy,
    /// No compression; batches still carry the `0xFF` algorithm byte.
    None,
}

impl Compression {
    /// Maps the NetworkSettings `u16` algorithm field (0 flate, 1 snappy, 0xFFFF none).
    pub fn from_network_settings(value: u16) -> Option<Self> {
        match value {
            0 => Some(Self::Deflate),
            1 => Some(Self::Snappy),
            0xFFFF => Some(Self::None),
            _ => None,
        }
    }
}

/// Encodes and decodes game batches for one connection (both directions).
#[derive(Clone, Default)]
pub struct GameFramer {
    /// `Some` once NetworkSettings arrived: every batch then carries an algorithm byte.
    compression: Option<(Compression, u16)>,
    /// `Some` once the ECDH handshake is done.
    encryption: Option<Encryption>,
}

/// Batches smaller than this are sent as DEFLATE "stored" blocks: valid DEFLATE for any
/// inflater, 5 bytes of overhead, and no compressor at all, which dominated the CPU time of an
/// idle bot's one small batch per tick.
const STORED_BELOW: usize = 1024;

/// Appends the raw-DEFLATE stream of `input` to `out`. Larger batches get a compressor of
/// their own, dropped afterwards: it holds a few hundred KiB of tables, which a bot kept resident
/// for the rare large batch (login, big commands) when it was kept between batches.
fn deflate(input: &[u8], out: &mut Vec<u8>) -> Result<(), FrameError> {
    if input.len() < STORED_BELOW {
        store(input, out);
        return Ok(());
    }
    let mut d = flate2::Compress::new(flate2::Compression::default(), false);
    let mut rest = input;
    loop {
        if out.capacity() - out.len() < 64 {
            out.reserve(rest.len() / 2 + 64);
        }
        let before = d.total_in();
        let status = d
            .compress_vec(rest, out, flate2::FlushCompress::Finish)
            .map_err(|e| FrameError::Compress(e.to_string()))?;
        let used = usize::try_from(d.total_in() - before).unwrap_or(rest.len()).min(rest.len());
        rest = &rest[used..];
        if status == flate2::Status::StreamEnd {
            return Ok(());
        }
    }
}

impl std::fmt::Debug for GameFramer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Never print key material.
        f.debug_struct("GameFramer")
            .field("compression", &self.compression)
            .field("encrypted", &self.encryption.is_some())
            .finish()
    }
}

impl GameFramer {
    /// A framer with neither compression nor encryption (the state before NetworkSettings).
    pub fn new() -> Self {
        Self::default()
    }

    /// Turns on the per-batch algorithm byte; batches of at least `threshold` bytes are compressed.
    pub fn enable_compression(&mut self, algorithm: Compression, threshold: u16) {
        self.compression = Some((algorithm, threshold));
    }

    /// Turns on AES-256-CTR with checksums for both directions from the next batch on.
    pub fn enable_encryption(&mut self, key: [u8; 32]) {
        self.encryption = Some(Encryption::new(key));
    }

    /// Whether compression (and so the algorithm byte) is on.
    pub fn compression_enabled(&self) -> bool {
        self.compression.is_some()
    }

    /// Whether encryption is on.
    pub fn encryption_enabled(&self) -> bool {
        self.encryption.is_some()
    }

    /// Packs `packets` into one RakNet message starting with `0xFE`.
    pub fn encode_batch(&mut self, packets: &[Vec<u8>]) -> Result<Vec<u8>, FrameError> {
        self.encode_batch_into(packets, Vec::new())
    }

    /// Like [`GameFramer::encode_batch`], building the message in `msg` (cleared first; a spare
    /// buffer, so a tick's batch allocates nothing).
    ///
    /// A batch sent plain, or as a DEFLATE "stored" block (below [`STORED_BELOW`], as every
    /// tick's input is), is written straight into the message and encrypted in place.
    pub fn encode_batch_into(&mut self, packets: &[Vec<u8>], mut msg: Vec<u8>) -> Result<Vec<u8>, FrameError> {
        let batch_len = batch_len(packets)?;
        msg.clear();
        // The id, the algorithm byte, a stored block's header, the batch, the checksum.
        msg.reserve(2 + STORED_HEADER_LEN + batch_len + CHECKSUM_LEN);
        msg.push(GAME_PACKET_ID);
        match self.compression {
            Some((algorithm, threshold)) if compresses(algorithm) && batch_len >= usize::from(threshold) => {
                if algorithm == Compression::Deflate && batch_len < STORED_BELOW {
                    msg.push(ALGO_DEFLATE);
                    store_header(batch_len, &mut msg);
                    append_batch(packets, &mut msg)?;
                } else {
                    compress_into(&write_batch(packets)?, algorithm, threshold, &mut msg)?;
                }
            }
            Some(_) => {
                msg.push(ALGO_NONE);
                append_batch(packets, &mut msg)?;
            }
            None => append_batch(packets, &mut msg)?,
        }
        if let Some(enc) = self.encryption.as_mut() {
            enc.encrypt_in_place(&mut msg, 1);
        }
        Ok(msg)
    }

    /// Unpacks one RakNet message (starting with `0xFE`) into packet bodies.
    pub fn decode_batch(&mut self, msg: &[u8]) -> Result<Vec<Vec<u8>>, FrameError> {
        let (&first, payload) = msg.split_first().ok_or(FrameError::EmptyMessage)?;
        if first != GAME_PACKET_ID {
            return Err(FrameError::NotGameBatch(first));
        }
        let decrypted;
        let payload = match self.encryption.as_mut() {
            Some(enc) => {
                decrypted = enc.decrypt(payload)?;
                decrypted.as_slice()
            }
            None => payload,
        };
        if self.compression.is_some() {
            return split_batch(&decompress_with_prefix(payload)?);
        }
        // Before NetworkSettings nothing is compressed on vanilla servers, but bedrock-protocol's
        // server deflates its NetworkSettings batch (without a prefix byte) when its threshold
        // is low. Accept that too: plain first, then raw DEFLATE.
        match split_batch(payload) {
            Ok(packets) => Ok(packets),
            Err(plain_err) => match inflate_capped(payload) {
                Ok(inflated) => split_batch(&inflated).map_err(|_| plain_err),
                Err(_) => Err(plain_err),
            },
        }
    }
}

/// One final stored DEFLATE block (RFC 1951 §3.2.4): `BFINAL=1, BTYPE=00`, then LEN and its
/// complement, then the bytes. `input` must be shorter than 64 KiB.
fn store(input: &[u8], out: &mut Vec<u8>) {
    let len = input.len().min(usize::from(u16::MAX));
    store_header(len, out);
    out.extend_from_slice(&input[..len]);
}

/// The length of a stored block's header ([`store_header`]).
const STORED_HEADER_LEN: usize = 5;

/// The header of a stored block of `len` bytes (at most 64 KiB − 1; the bytes follow).
fn store_header(len: usize, out: &mut Vec<u8>) {
    let len = u16::try_from(len).unwrap_or(u16::MAX);
    out.push(0x01);
    out.extend_from_slice(&len.to_le_bytes());
    out.extend_from_slice(&(!len).to_le_bytes());
}

/// The exact length of `packets` as a batch: each body after its varu32 length.
fn batch_len(packets: &[Vec<u8>]) -> Result<usize, FrameError> {
    packets.iter().try_fold(0usize, |total, p| {
        let len = u32::try_from(p.len()).map_err(|_| FrameError::PacketTooLarge(p.len()))?;
        Ok(total.saturating_add(var_u32_len(len) + p.len()))
    })
}

/// How many bytes `v` takes as a varu32.
fn var_u32_len(v: u32) -> usize {
    match v {
        0..0x80 => 1,
        0x80..0x4000 => 2,
        0x4000..0x20_0000 => 3,
        0x20_0000..0x1000_0000 => 4,
        _ => 5,
    }
}

/// Concatenates packets, each prefixed by its varu32 length.
pub(crate) fn write_batch(packets: &[Vec<u8>]) -> Result<Vec<u8>, FrameError> {
    let mut out = Vec::with_capacity(batch_len(packets)?);
    append_batch(packets, &mut out)?;
    Ok(out)
}

/// Appends packets to `out`, each prefixed by its varu32 length.
fn append_batch(packets: &[Vec<u8>], out: &mut Vec<u8>) -> Result<(), FrameError> {
    for p in packets {
        let len = u32::try_from(p.len()).map_err(|_| FrameError::PacketTooLarge(p.len()))?;
        out.put_var_u32(len);
        out.put_bytes(p);
    }
    Ok(())
}

/// Splits a decompressed batch into packet bodies, checking every length.
fn split_batch(batch: &[u8]) -> Result<Vec<Vec<u8>>, FrameError> {
    let mut r = Reader::new(batch);
    let mut packets = Vec::new();
    while !r.is_empty() {
        if packets.len() >= MAX_PACKETS_PER_BATCH {
            return Err(FrameError::TooManyPackets { limit: MAX_PACKETS_PER_BATCH });
        }
        let body = r.var_bytes()?;
        if body.is_empty() {
            return Err(FrameError::EmptyPacket { index: packets.len() });
        }
        packets.push(body.to_vec());
    }
    Ok(packets)
}

/// Whether `algorithm` ever compresses (`None` only adds the algorithm byte).
fn compresses(algorithm: Compression) -> bool {
    !matches!(algorithm, Compression::None)
}

/// Adds the algorithm byte and the batch to `out`, compressing only batches of at least
/// `threshold` bytes (as gophertunnel does); smaller ones are sent as `0xFF` + plain bytes
/// because compressing them wastes CPU.
fn compress_into(batch: &[u8], algorithm: Compression, threshold: u16, out: &mut Vec<u8>) -> Result<(), FrameError> {
    let worth_it = batch.len() >= usize::from(threshold);
    match algorithm {
        Compression::Deflate if worth_it => {
            out.reserve(batch.len() / 2 + 64);
            out.push(ALGO_DEFLATE);
            deflate(batch, out)?;
        }
        Compression::Snappy if worth_it => {
            out.push(ALGO_SNAPPY);
            let compressed =
                snap::raw::Encoder::new().compress_vec(batch).map_err(|e| FrameError::Compress(e.to_string()))?;
            out.extend_from_slice(&compressed);
        }
        _ => {
            out.push(ALGO_NONE);
            out.extend_from_slice(batch);
        }
    }
    Ok(())
}

/// Reads the algorithm byte and decompresses accordingly. The byte is honoured per batch even if
/// it differs from the negotiated algorithm, because servers send small batches as `0xFF`.
fn decompress_with_prefix(payload: &[u8]) -> Result<Vec<u8>, FrameError> {
    let (&algo, data) = payload.split_first().ok_or(FrameError::MissingAlgorithm)?;
    match algo {
        ALGO_DEFLATE => inflate_capped(data),
        ALGO_SNAPPY => unsnappy_capped(data),
        ALGO_NONE => Ok(data.to_vec()),
        other => Err(FrameError::UnknownAlgorithm(other)),
    }
}

/// Raw-DEFLATE decompression that stops reading one byte past the cap.
fn inflate_capped(data: &[u8]) -> Result<Vec<u8>, FrameError> {
    let limit = MAX_DECOMPRESSED_SIZE as u64 + 1;
    let mut out = Vec::new();
    flate2::read::DeflateDecoder::new(data)
        .take(limit)
        .read_to_end(&mut out)
        .map_err(|e| FrameError::Decompress(e.to_string()))?;
    if out.len() > MAX_DECOMPRESSED_SIZE {
        return Err(FrameError::TooLarge { limit: MAX_DECOMPRESSED_SIZE });
    }
    Ok(out)
}

/// Snappy raw-block decompression; the declared length is checked before allocating.
fn unsnappy_capped(data: &[u8]) -> Result<Vec<u8>, FrameError> {
    let len = snap::raw::decompress_len(data).map_err(|e| FrameError::Decompress(e.to_string()))?;
    if len > MAX_DECOMPRESSED_SIZE {
        return Err(FrameError::TooLarge { limit: MAX_DECOMPRESSED_SIZE });
    }
    snap::raw::Decoder::new().decompress_vec(data).map_err(|e| FrameError::Decompress(e.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng, rngs::StdRng};

    fn packets() -> Vec<Vec<u8>> {
        vec![vec![0x04], vec![0x90, 0x01, 1, 2, 3], vec![0x0B; 300]]
    }

    #[test]
    fn plain_batch_has_no_prefix() {
        let mut f = GameFramer::new();
        let msg = f.encode_batch(&[vec![0xc1, 0x01, 0, 0, 0x08, 0x79]]).expect("encode");
        assert_eq!(msg, [0xfe, 0x06, 0xc1, 0x01, 0x00, 0x00, 0x08, 0x79]);
        assert_eq!(f.decode_batch(&msg).expect("decode"), vec![vec![0xc1, 0x01, 0, 0, 0x08, 0x79]]);
    }

    #[test]
    fn round_trips_every_algorithm_and_threshold() {
        for algo in [Compression::Deflate, Compression::Snappy, Compression::None] {
            for threshold in [0u16, 1, 256, 60000] {
                let mut tx = GameFramer::new();
                let mut rx = GameFramer::new();
                tx.enable_compression(algo, threshold);
                rx.enable_compression(algo, threshold);
                let msg = tx.encode_batch(&packets()).expect("encode");
                let expected_byte = match algo {
                    _ if threshold == 60000 => ALGO_NONE,
                    Compression::Deflate => ALGO_DEFLATE,
                    Compression::Snappy => ALGO_SNAPPY,
                    Compression::None => ALGO_NONE,
                };
                assert_eq!(msg[1], expected_byte, "{algo:?} threshold {threshold}");
                assert_eq!(rx.decode_batch(&msg).expect("decode"), packets());
            }
        }
    }

    #[test]
    fn deflate_is_raw_without_zlib_header() {
        let mut tx = GameFramer::new();
        tx.enable_compression(Compression::Deflate, 0);
        let msg = tx.encode_batch(&packets()).expect("encode");
        let mut out = Vec::new();
        flate2::read::DeflateDecoder::new(&msg[2..]).read_to_end(&mut out).expect("raw inflate");
        assert_eq!(out, write_batch(&packets()).expect("batch"));
    }

    #[test]
    fn small_batches_are_stored_blocks_any_inflater_reads() {
        let mut tx = GameFramer::new();
        tx.enable_compression(Compression::Deflate, 1);
        let body = vec![0x90, 0x01, 7, 7, 7];
        let msg = tx.encode_batch(std::slice::from_ref(&body)).expect("encode");
        assert_eq!(msg[1], ALGO_DEFLATE);
        assert_eq!(msg[2], 0x01, "one final stored block");
        let mut out = Vec::new();
        flate2::read::DeflateDecoder::new(&msg[2..]).read_to_end(&mut out).expect("standard inflate");
        assert_eq!(out, write_batch(&[body]).expect("batch"));
    }

    /// A tick's batch built in a spare buffer: the same bytes as the copy through a separate
    /// batch, and the buffer is filled without growing it.
    #[test]
    fn a_batch_fills_a_spare_buffer_in_place_with_the_same_bytes() {
        let key = [9u8; 32];
        for (algo, threshold) in [(Compression::Deflate, 1), (Compression::Deflate, 256), (Compression::None, 0)] {
            for len in [1usize, 100, 127, 128, 1000, 1017, 1018, 1024, 5000] {
                let body: Vec<u8> = (0..len).map(|i| (i % 251) as u8).collect();
                let packets = vec![body.clone(), vec![0x90, 1, 2]];
                let mut reference = vec![GAME_PACKET_ID];
                compress_into(&write_batch(&packets).expect("batch"), algo, threshold, &mut reference)
                    .expect("compress");
                if algo == Compression::None {
                    // `None` sends the algorithm byte and the plain batch.
                    assert_eq!(reference[1], ALGO_NONE);
                }
                let (mut tx, mut reference_tx) = (GameFramer::new(), GameFramer::new());
                for f in [&mut tx, &mut reference_tx] {
                    f.enable_compression(algo, threshold);
                    f.enable_encryption(key);
                }
                Encryption::new(key).encrypt_in_place(&mut reference, 1);
                let spare = Vec::with_capacity(16 * 1024);
                let at = spare.as_ptr();
                let msg = tx.encode_batch_into(&packets, spare).expect("encode");
                assert_eq!(msg, reference, "{algo:?} threshold {threshold} len {len}");
                assert_eq!(msg.as_ptr(), at, "{algo:?} len {len}: the spare buffer was used, not grown");
                assert_eq!(reference_tx.encode_batch(&packets).expect("encode"), msg, "encode_batch agrees");
            }
        }
    }

    /// The message's capacity is exact for a stored batch: encrypting it never reallocates.
    #[test]
    fn a_stored_batch_is_built_in_one_allocation() {
        let mut tx = GameFramer::new();
        tx.enable_compression(Compression::Deflate, 1);
        tx.enable_encryption([3u8; 32]);
        for len in [1usize, 60, 100, 500, 1000] {
            let msg = tx.encode_batch(&[vec![7u8; len]]).expect("encode");
            let needed = 2 + STORED_HEADER_LEN + var_u32_len(len as u32) + len + CHECKSUM_LEN;
            assert_eq!(msg.len(), needed, "len {len}");
            assert!(
                msg.capacity() <= needed + STORED_HEADER_LEN,
                "len {len}: capacity {} for {needed}",
                msg.capacity()
            );
        }
    }

    #[test]
    fn var_u32_lengths_match_the_writer() {
        for v in [0u32, 1, 0x7f, 0x80, 0x3fff, 0x4000, 0x1f_ffff, 0x20_0000, 0x0fff_ffff, 0x1000_0000, u32::MAX] {
            let mut out = Vec::new();
            out.put_var_u32(v);
            assert_eq!(var_u32_len(v), out.len(), "{v:#x}");
        }
    }

    #[test]
    fn one_compressor_serves_many_batches_of_any_size() {
        let mut tx = GameFramer::new();
        let mut rx = GameFramer::new();
        tx.enable_compression(Compression::Deflate, 1);
        rx.enable_compression(Compression::Deflate, 1);
        let mut rng = StdRng::seed_from_u64(7);
        for i in 0..200usize {
            // Small per-tick batches, and now and then one bigger than any buffer guess.
            let len = if i % 50 == 49 { 300_000 } else { 1 + i * 7 };
            let body: Vec<u8> = (0..len).map(|_| rng.gen_range(0..8u8)).collect();
            let msg = tx.encode_batch(std::slice::from_ref(&body)).expect("encode");
            assert_eq!(rx.decode_batch(&msg).expect("decode"), vec![body], "batch {i}");
        }
    }

    #[test]
    fn decoder_honours_per_batch_byte() {
        // Negotiated deflate, but the server sends a small batch uncompressed and one as snappy.
        let mut rx = GameFramer::new();
        rx.enable_compression(Compression::Deflate, 1);
        assert_eq!(rx.decode_batch(&[0xfe, 0xff, 0x01, 0x02]).expect("none"), vec![vec![0x02]]);
        let mut msg = vec![0xfe, 0x01];
        msg.extend(snap::raw::Encoder::new().compress_vec(&[0x01, 0x02]).expect("snappy"));
        assert_eq!(rx.decode_batch(&msg).expect("snappy"), vec![vec![0x02]]);
    }

    #[test]
    fn encrypted_round_trip() {
        let key = [7u8; 32];
        let mut tx = GameFramer::new();
        let mut rx = GameFramer::new();
        for f in [&mut tx, &mut rx] {
            f.enable_compression(Compression::Deflate, 1);
            f.enable_encryption(key);
        }
        for _ in 0..5 {
            let msg = tx.encode_batch(&packets()).expect("encode");
            assert_eq!(rx.decode_batch(&msg).expect("decode"), packets());
        }
    }

    #[test]
    fn rejects_bad_input() {
        let mut rx = GameFramer::new();
        assert_eq!(rx.decode_batch(&[]), Err(FrameError::EmptyMessage));
        assert_eq!(rx.decode_batch(&[0x84, 1]), Err(FrameError::NotGameBatch(0x84)));
        assert!(matches!(rx.decode_batch(&[0xfe, 0x05, 0x01]), Err(FrameError::Read(_))));
        assert_eq!(rx.decode_batch(&[0xfe, 0x00]), Err(FrameError::EmptyPacket { index: 0 }));
        rx.enable_compression(Compression::Deflate, 1);
        assert_eq!(rx.decode_batch(&[0xfe]), Err(FrameError::MissingAlgorithm));
        assert_eq!(rx.decode_batch(&[0xfe, 0x07]), Err(FrameError::UnknownAlgorithm(7)));
        assert!(matches!(rx.decode_batch(&[0xfe, 0x00, 0xff, 0xff]), Err(FrameError::Decompress(_))));
    }

    #[test]
    fn caps_decompressed_size_and_packet_count() {
        use std::io::Write;
        let mut rx = GameFramer::new();
        rx.enable_compression(Compression::Deflate, 0);
        // 17 MiB of zeros deflates to a few KiB: a bomb.
        let mut enc = flate2::write::DeflateEncoder::new(vec![0x00], flate2::Compression::best());
        enc.write_all(&vec![0u8; 17 * 1024 * 1024]).expect("write");
        let mut msg = vec![0xfe];
        msg.extend(enc.finish().expect("finish"));
        assert_eq!(rx.decode_batch(&msg), Err(FrameError::TooLarge { limit: MAX_DECOMPRESSED_SIZE }));

        let many = vec![vec![0x01]; MAX_PACKETS_PER_BATCH + 1];
        let mut tx = GameFramer::new();
        tx.enable_compression(Compression::None, 0);
        let msg = tx.encode_batch(&many).expect("encode");
        assert_eq!(rx.decode_batch(&msg), Err(FrameError::TooManyPackets { limit: MAX_PACKETS_PER_BATCH }));
    }

    /// Random and mutated inputs must produce errors, never panics.
    #[test]
    fn decode_batch_survives_garbage() {
        let mut rng = StdRng::seed_from_u64(0x5eed_f4a3);
        let mut seeds = Vec::new();
        for algo in [Compression::Deflate, Compression::Snappy, Compression::None] {
            let mut tx = GameFramer::new();
            tx.enable_compression(algo, 0);
            seeds.push(tx.encode_batch(&packets()).expect("encode"));
        }
        let mut plain = GameFramer::new();
        let mut compressed = GameFramer::new();
        compressed.enable_compression(Compression::Deflate, 0);
        let mut encrypted = GameFramer::new();
        encrypted.enable_compression(Compression::Deflate, 0);
        encrypted.enable_encryption([3u8; 32]);
        for i in 0..120_000u32 {
            let input = if i % 2 == 0 {
                let len = rng.gen_range(0..64);
                let mut v: Vec<u8> = (0..len).map(|_| rng.r#gen()).collect();
                if rng.gen_bool(0.7) && !v.is_empty() {
                    v[0] = 0xfe;
                }
                v
            } else {
                let mut v = seeds[rng.gen_range(0..seeds.len())].clone();
                for _ in 0..rng.gen_range(1..4) {
                    let at = rng.gen_range(0..v.len());
                    match rng.gen_range(0..3) {
                        0 => v[at] = rng.r#gen(),
                        1 => v.truncate(at.max(1)),
                        _ => v.insert(at, rng.r#gen()),
                    }
                }
                v
            };
            let _ = plain.decode_batch(&input);
            let _ = compressed.decode_batch(&input);
            let _ = encrypted.decode_batch(&input);
        }
    }
}

#[cfg(test)]
mod pre_compression_tests {
    use super::*;
    use flate2::{Compression as Level, write::DeflateEncoder};
    use std::io::Write;

    /// bedrock-protocol's server deflates the NetworkSettings batch without an algorithm byte.
    #[test]
    fn accepts_a_deflated_batch_before_compression_is_negotiated() {
        let network_settings = vec![0x8f, 0x01, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00];
        let mut batch = Vec::new();
        batch.push(network_settings.len() as u8);
        batch.extend_from_slice(&network_settings);
        let mut enc = DeflateEncoder::new(Vec::new(), Level::default());
        enc.write_all(&batch).expect("deflate");
        let mut msg = vec![GAME_PACKET_ID];
        msg.extend(enc.finish().expect("deflate"));
        let packets = GameFramer::new().decode_batch(&msg).expect("inflated fallback");
        assert_eq!(packets, vec![network_settings]);
    }
}
