//! Fuzz-style robustness, for every supported version: random and mutated packet bodies must
//! never panic the decoder, and whatever decodes must re-encode (also through the rewrites
//! between the version's layout and the views' layout) without panicking.

use clawcraft_protocol::codec::Protocol;

/// xorshift64*: deterministic, dependency-free.
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

fn unhex(s: &str) -> Vec<u8> {
    (0..s.len()).step_by(2).map(|i| u8::from_str_radix(&s[i..i + 2], 16).expect("hex")).collect()
}

fn seeds(version: &str) -> Vec<Vec<u8>> {
    let path = format!("{}/../../tests/vectors/{version}.json", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(path).expect("vectors");
    let list: Vec<serde_json::Value> = serde_json::from_str(&text).expect("json");
    list.iter().filter_map(|v| v["hex"].as_str()).map(unhex).collect()
}

fn put_varint(out: &mut Vec<u8>, mut v: u32) {
    loop {
        let b = (v & 0x7f) as u8;
        v >>= 7;
        if v == 0 {
            out.push(b);
            return;
        }
        out.push(b | 0x80);
    }
}

fn mutate(rng: &mut Rng, seed: &[u8]) -> Vec<u8> {
    let mut b = seed.to_vec();
    for _ in 0..1 + rng.below(4) {
        match rng.below(6) {
            0 if !b.is_empty() => {
                let i = rng.below(b.len());
                b[i] ^= 1 << rng.below(8);
            }
            1 if !b.is_empty() => {
                let i = rng.below(b.len());
                b[i] = rng.next() as u8;
            }
            2 => b.truncate(rng.below(b.len() + 1)),
            3 => {
                let i = rng.below(b.len() + 1);
                b.insert(i, [0x00, 0xff, 0x7f, 0x80, 0x01][rng.below(5)]);
            }
            4 if b.len() > 1 => {
                // Keep the header, so the packet layout is exercised, and randomise a run.
                let i = 1 + rng.below(b.len() - 1);
                let n = rng.below(8).min(b.len() - i);
                for x in &mut b[i..i + n] {
                    *x = 0xff;
                }
            }
            _ => b.extend((0..rng.below(16)).map(|_| rng.next() as u8)),
        }
    }
    b
}

#[test]
fn codec_fuzz_decode_never_panics() {
    for info in Protocol::versions() {
        let proto = Protocol::load(info.game_version).expect("load");
        let ids: Vec<u32> = (0..1024).filter(|id| proto.packet_name(*id).is_some()).collect();
        // Golden vectors plus the all-neutral encoding of every packet, so mutations reach
        // every definition.
        let mut seeds = seeds(info.game_version);
        for id in &ids {
            let name = proto.packet_name(*id).expect("listed");
            let empty = clawcraft_protocol::codec::Value::Object(Vec::new());
            seeds.push(proto.encode_value(name, &empty).expect("neutral packet encodes"));
        }
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
        let mut decoded = 0usize;
        // CLAWCRAFT_FUZZ_INPUTS: packets per version (the long run of tests/fuzz/long-run.sh).
        let total = std::env::var("CLAWCRAFT_FUZZ_INPUTS").ok().and_then(|v| v.parse().ok()).unwrap_or(220_000);
        for i in 0..total {
            let body = if i % 2 == 0 {
                let k = rng.below(seeds.len());
                mutate(&mut rng, &seeds[k])
            } else {
                // A real packet id followed by random bytes.
                let mut b = Vec::new();
                put_varint(&mut b, ids[rng.below(ids.len())]);
                let n = rng.below(64);
                b.extend((0..n).map(|_| rng.next() as u8));
                b
            };
            if let Ok((name, value)) = proto.decode(&body) {
                decoded += 1;
                let _ = proto.encode_value(&name, &value);
                // The version-layout rewrites must survive whatever decodes, both ways.
                let mut canonical = value;
                if proto.to_canonical(&name, &mut canonical).is_ok() && proto.to_wire(&name, &mut canonical).is_ok() {
                    let _ = proto.encode_value(&name, &canonical);
                }
            }
        }
        assert!(decoded > 0, "nothing decoded at all");
    }
}

#[test]
fn codec_hostile_lengths_are_rejected_cheaply() {
    let proto = Protocol::load("1.26.45").expect("load");
    // item_registry with an absurd array count must fail fast, not allocate.
    let id = proto.packet_id("item_registry").expect("id");
    let mut b = Vec::new();
    put_varint(&mut b, id);
    b.extend([0xff, 0xff, 0xff, 0xff, 0x0f]);
    let err = proto.decode(&b).expect_err("must fail");
    let msg = err.to_string();
    assert!(msg.contains("item_registry") && msg.contains("itemstates"), "{msg}");
}
