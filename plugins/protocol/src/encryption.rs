//! Batch encryption after the ECDH handshake: AES-256-CTR plus an 8-byte SHA-256 checksum.
//!
//! (As gophertunnel's packet encryption and bedrock-protocol's `src/transforms/encryption.js` do it.)
//! The initial counter block is `key[0..12] ‖ 00 00 00 02`, which is exactly the
//! keystream Node's AES-GCM produces for a 12-byte IV (bedrock-protocol uses that; no GCM tag is
//! sent). Each direction keeps one continuous keystream for the whole connection; it is never
//! reset per batch. Every batch is `AES(plain ‖ SHA-256(u64 LE counter ‖ plain ‖ key)[0..8])`
//! with separate send and receive counters starting at 0.

use aes::Aes256;
use aes::cipher::{KeyIvInit, StreamCipher};
use sha2::{Digest, Sha256};

use crate::framing::FrameError;

/// Go's `cipher.NewCTR` carries across all 128 bits and GCM only the low 32; the outputs are
/// identical below 2^32 blocks (64 GiB), so the 128-bit counter is the safe choice: it can never
/// run out of keystream and panic.
type Aes256Ctr = ctr::Ctr128BE<Aes256>;

/// Length of the truncated SHA-256 checksum appended to every encrypted batch.
pub const CHECKSUM_LEN: usize = 8;

/// Cipher state for both directions of one connection.
#[derive(Clone)]
pub struct Encryption {
    key: [u8; 32],
    send: Aes256Ctr,
    recv: Aes256Ctr,
    send_counter: u64,
    recv_counter: u64,
}

impl std::fmt::Debug for Encryption {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Never print the key.
        f.debug_struct("Encryption")
            .field("send_counter", &self.send_counter)
            .field("recv_counter", &self.recv_counter)
            .finish_non_exhaustive()
    }
}

impl Encryption {
    /// Both directions start from the same key and counter block.
    pub fn new(key: [u8; 32]) -> Self {
        let iv = initial_counter_block(&key);
        Self {
            key,
            send: Aes256Ctr::new(&key.into(), &iv.into()),
            recv: Aes256Ctr::new(&key.into(), &iv.into()),
            send_counter: 0,
            recv_counter: 0,
        }
    }

    /// Encrypts one batch payload (everything after `0xFE`) and appends its checksum.
    pub fn encrypt(&mut self, plain: &[u8]) -> Vec<u8> {
        let mut out = Vec::with_capacity(plain.len() + CHECKSUM_LEN);
        out.extend_from_slice(plain);
        self.encrypt_in_place(&mut out, 0);
        out
    }

    /// Like [`Encryption::encrypt`] for the payload `buf[from..]`, in place: appends its
    /// checksum to `buf` and encrypts both (the bytes before `from` stay as they are).
    pub fn encrypt_in_place(&mut self, buf: &mut Vec<u8>, from: usize) {
        let from = from.min(buf.len());
        let sum = checksum(self.send_counter, &buf[from..], &self.key);
        buf.extend_from_slice(&sum);
        self.send_counter = self.send_counter.wrapping_add(1);
        self.send.apply_keystream(&mut buf[from..]);
    }

    /// Decrypts one batch payload and verifies its checksum, returning the plaintext without it.
    pub fn decrypt(&mut self, data: &[u8]) -> Result<Vec<u8>, FrameError> {
        let mut buf = data.to_vec();
        // Advance the keystream even for a short batch so the stream position always matches the
        // bytes received; the connection is dropped on any error anyway.
        self.recv.apply_keystream(&mut buf);
        let counter = self.recv_counter;
        self.recv_counter = self.recv_counter.wrapping_add(1);
        if buf.len() < CHECKSUM_LEN {
            return Err(FrameError::TooShortForChecksum(buf.len()));
        }
        let split = buf.len() - CHECKSUM_LEN;
        let expected = checksum(counter, &buf[..split], &self.key);
        if buf[split..] != expected {
            return Err(FrameError::BadChecksum { counter });
        }
        buf.truncate(split);
        Ok(buf)
    }
}

/// `key[0..12] ‖ 00 00 00 02`: GCM's first data counter for a 96-bit IV.
fn initial_counter_block(key: &[u8; 32]) -> [u8; 16] {
    let mut iv = [0u8; 16];
    iv[..12].copy_from_slice(&key[..12]);
    iv[15] = 2;
    iv
}

/// `SHA-256(u64 LE counter ‖ plain ‖ key)[0..8]`.
fn checksum(counter: u64, plain: &[u8], key: &[u8; 32]) -> [u8; CHECKSUM_LEN] {
    let digest = Sha256::new().chain_update(counter.to_le_bytes()).chain_update(plain).chain_update(key).finalize();
    let mut out = [0u8; CHECKSUM_LEN];
    out.copy_from_slice(&digest[..CHECKSUM_LEN]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key() -> [u8; 32] {
        std::array::from_fn(|i| i as u8)
    }

    fn hex(s: &str) -> Vec<u8> {
        (0..s.len()).step_by(2).map(|i| u8::from_str_radix(&s[i..i + 2], 16).expect("hex")).collect()
    }

    /// Expected bytes computed independently with Node (what bedrock-protocol does):
    /// `crypto.createCipheriv('aes-256-gcm', key, key.slice(0, 12))` fed `plain ‖ checksum`
    /// for two consecutive batches on one cipher, key = 00 01 02 … 1f.
    const PLAIN_1: &str = "ff0104";
    const CIPHER_1: &str = "b803d26225034abc3fb1cd";
    const PLAIN_2: &str =
        "ff68656c6c6f20626564726f636b2c2074686973207370616e73206d6f7265207468616e206f6e652061657320626c6f636b2121";
    const CIPHER_2: &str = "74d98c1401ecf6e5519409301f534bc5f1750073927260cf92dce17ff706c15f99e0e64618813705ad3bb3d0fa5dfb457a73c2d4d5de853b114d1db7";

    #[test]
    fn matches_node_aes_gcm_keystream_vector() {
        let mut enc = Encryption::new(key());
        assert_eq!(enc.encrypt(&hex(PLAIN_1)), hex(CIPHER_1));
        assert_eq!(enc.encrypt(&hex(PLAIN_2)), hex(CIPHER_2));
        let mut dec = Encryption::new(key());
        assert_eq!(dec.decrypt(&hex(CIPHER_1)).expect("first"), hex(PLAIN_1));
        assert_eq!(dec.decrypt(&hex(CIPHER_2)).expect("second"), hex(PLAIN_2));
    }

    #[test]
    fn in_place_encryption_keeps_the_prefix_and_matches_the_vector() {
        let mut enc = Encryption::new(key());
        let mut msg = vec![0xFE];
        msg.extend_from_slice(&hex(PLAIN_1));
        enc.encrypt_in_place(&mut msg, 1);
        assert_eq!(msg[0], 0xFE, "the byte before the payload is left alone");
        assert_eq!(msg[1..], hex(CIPHER_1)[..]);
        // The stream continues where the in-place call left it.
        assert_eq!(enc.encrypt(&hex(PLAIN_2)), hex(CIPHER_2));
    }

    #[test]
    fn continuous_stream_round_trip() {
        let mut a = Encryption::new([9u8; 32]);
        let mut b = Encryption::new([9u8; 32]);
        let mut seen = Vec::new();
        for n in 0..20usize {
            // Odd lengths so batches straddle AES block boundaries.
            let plain: Vec<u8> = (0..n * 7 + 1).map(|i| (i * 31 + n) as u8).collect();
            let wire = a.encrypt(&plain);
            assert_eq!(wire.len(), plain.len() + CHECKSUM_LEN);
            seen.push(wire.clone());
            assert_eq!(b.decrypt(&wire).expect("decrypt"), plain);
        }
        // The same plaintext encrypts differently later in the stream (keystream never resets).
        let mut c = Encryption::new([9u8; 32]);
        assert_ne!(c.encrypt(&[1, 2, 3]), c.encrypt(&[1, 2, 3]));
    }

    #[test]
    fn tampered_checksum_is_rejected() {
        let mut a = Encryption::new(key());
        let mut b = Encryption::new(key());
        let mut wire = a.encrypt(b"\xff\x01\x04");
        let last = wire.len() - 1;
        wire[last] ^= 0x01;
        let err = b.decrypt(&wire).expect_err("tampered");
        assert_eq!(err, FrameError::BadChecksum { counter: 0 });
        assert!(err.to_string().contains("checksum"));
    }

    #[test]
    fn wrong_counter_is_rejected() {
        // A replayed/skipped batch: correct bytes but the receiver's counter disagrees.
        let mut a = Encryption::new(key());
        let _skipped = a.encrypt(b"one");
        let second = a.encrypt(b"two");
        let mut b = Encryption::new(key());
        assert!(b.decrypt(&second).is_err());
    }

    #[test]
    fn short_input_is_an_error() {
        let mut b = Encryption::new(key());
        assert_eq!(b.decrypt(&[1, 2, 3]), Err(FrameError::TooShortForChecksum(3)));
    }
}
