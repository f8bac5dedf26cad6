//! Game batches (`0xFE` messages: algorithm byte, deflate/snappy, AES-CTR and its checksum, the
//! length-prefixed packets) from a hostile or broken server: decoding never panics and never
//! allocates beyond its caps. `CLAWCRAFT_FUZZ_INPUTS` sets the number of inputs (the long run
//! in `tests/fuzz/long-run.sh` uses ten million).

use clawcraft_protocol::framing::{Compression, GameFramer};

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

fn inputs(default: u64) -> u64 {
    std::env::var("CLAWCRAFT_FUZZ_INPUTS").ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

/// A sender and a receiver framer configured alike.
fn pair(rng: &mut Rng) -> (GameFramer, GameFramer) {
    let mut tx = GameFramer::new();
    let mut rx = GameFramer::new();
    let algo = [Compression::Deflate, Compression::Snappy, Compression::None][rng.below(3)];
    let threshold = [0u16, 1, 256][rng.below(3)];
    if rng.below(5) > 0 {
        tx.enable_compression(algo, threshold);
        rx.enable_compression(algo, threshold);
    }
    if rng.below(3) == 0 {
        let key = [rng.next() as u8; 32];
        tx.enable_encryption(key);
        rx.enable_encryption(key);
    }
    (tx, rx)
}

#[test]
fn mutated_batches_never_panic() {
    let mut rng = Rng(0xba7c_4f00_d15e_a5e5);
    let total = inputs(150_000);
    let (mut tx, mut rx) = pair(&mut rng);
    let mut decoded = 0u64;
    for i in 0..total {
        if i % 500 == 0 {
            (tx, rx) = pair(&mut rng);
        }
        let packets: Vec<Vec<u8>> =
            (0..1 + rng.below(6)).map(|_| (0..1 + rng.below(300)).map(|_| (rng.next() % 7) as u8).collect()).collect();
        let Ok(mut msg) = tx.encode_batch(&packets) else { continue };
        match rng.below(6) {
            0 => {}
            1 if msg.len() > 1 => {
                let i = 1 + rng.below(msg.len() - 1);
                msg[i] ^= 1 << rng.below(8);
            }
            2 => msg.truncate(rng.below(msg.len() + 1)),
            3 => msg.extend((0..rng.below(64)).map(|_| rng.next() as u8)),
            4 => {
                // Random bytes behind the 0xFE marker.
                msg.truncate(1);
                msg.extend((0..rng.below(512)).map(|_| rng.next() as u8));
            }
            _ if msg.len() > 2 => {
                // The algorithm byte (or the first ciphertext byte).
                msg[1] = [0x00, 0x01, 0xff, 0x02, 0x7f][rng.below(5)];
            }
            _ => {}
        }
        // An encrypted stream's counter moves on even for a bad batch; resynchronise both ends.
        match rx.decode_batch(&msg) {
            Ok(_) => decoded += 1,
            Err(_) => (tx, rx) = pair(&mut rng),
        }
    }
    assert!(decoded > total / 10, "the fuzzer reached the packet split ({decoded} of {total} decoded)");
}
