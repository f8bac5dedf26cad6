//! Property test: over a million random and mutated inputs through the sub-chunk, LevelChunk
//! payload and SubChunk packet decoders (the packet through the codec's typed view). They must
//! return `Ok` or `Err`, never panic, and whatever they accept must be safe to read everywhere.
//! Seeded xorshift, so failures reproduce.

use clawcraft_protocol::codec::Protocol;
use clawcraft_protocol::io::Reader;
use clawcraft_protocol::packets::{ByteBuf, SubChunkEntryView, SubChunkPacket, Vec3Li};
use clawcraft_world::chunk::wire::{
    SubChunkOutcome, decode_level_chunk_payload, decode_sub_chunk, encode_biome, encode_block_entity, encode_sub_chunk,
    sub_chunk_outcome,
};
use clawcraft_world::chunk::{PalettedStorage, WireSubChunk};

struct XorShift(u64);

impl XorShift {
    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.0 = x;
        x
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

fn packed(bits: u8, n: u32) -> PalettedStorage {
    // Spread ids over the whole u32 range so half are negative on the wire.
    let id = |k: u32| k.wrapping_mul(0x9E37_79B9);
    let mut s = PalettedStorage::Single(id(0));
    for i in 0..4096u32 {
        s.set(i as usize, id((i * 31 + i / 7) % n));
    }
    assert_eq!(s.bits(), bits);
    s
}

/// Small valid encodings to mutate: what matters is that every field boundary is hit.
fn sub_chunk_corpus() -> Vec<Vec<u8>> {
    let layers: Vec<Vec<PalettedStorage>> = vec![
        vec![PalettedStorage::Single(1)],
        vec![PalettedStorage::Single(u32::MAX), PalettedStorage::Single(0xDBF4_4120)],
        vec![packed(1, 2)],
        vec![packed(2, 4), PalettedStorage::Single(5)],
        vec![],
    ];
    let mut out = Vec::new();
    for (i, l) in layers.iter().enumerate() {
        for version in [1u8, 8, 9] {
            if version == 1 && l.is_empty() {
                continue;
            }
            let mut b = Vec::new();
            encode_sub_chunk(&mut b, version, -(i as i8), l);
            out.push(b);
        }
    }
    out
}

fn payload_corpus(subs: &[Vec<u8>]) -> Vec<(Vec<u8>, usize, bool)> {
    let mut out = Vec::new();
    let mut tail = Vec::new();
    encode_biome(&mut tail, 1);
    tail.extend([0xFF, 0xFF, 0xFF]);
    tail.push(0);
    encode_block_entity(&mut tail, "Chest", [1, 2, 3]);
    out.push((tail.clone(), 0, true));
    for s in subs.iter().filter(|s| s.len() < 64) {
        let mut p = s.clone();
        p.extend(&tail);
        out.push((p, 1, false));
    }
    out
}

/// SubChunk packet bodies (success with payload; all-air with a heightmap; an error), encoded
/// by the codec in the default version.
fn response_corpus(protocol: &Protocol, subs: &[Vec<u8>]) -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    for s in subs.iter().filter(|s| s.len() < 64) {
        let mut p = s.clone();
        encode_block_entity(&mut p, "Sign", [0, 0, 0]);
        let entry =
            |dy: i8, result: &str| SubChunkEntryView { dy, result: result.into(), ..SubChunkEntryView::default() };
        let packet = SubChunkPacket {
            origin: Vec3Li { x: 1, y: 0, z: -1 },
            entries: vec![
                SubChunkEntryView { payload: Some(ByteBuf(p)), ..entry(-4, "success") },
                SubChunkEntryView {
                    heightmap_type: "has_data".into(),
                    heightmap: Some(ByteBuf(vec![16; 256])),
                    blob_id: Some(42),
                    ..entry(-3, "success_all_air")
                },
                entry(1, "chunk_not_found"),
            ],
            ..SubChunkPacket::default()
        };
        out.push(protocol.encode(&packet).expect("encodes"));
    }
    out
}

/// The outcomes of every entry of a decoded SubChunk packet.
fn outcomes(resp: &SubChunkPacket) -> Vec<Result<SubChunkOutcome, clawcraft_protocol::io::ReadError>> {
    resp.entries.iter().map(|e| sub_chunk_outcome(&e.result, e.payload.as_ref().map(|p| p.0.as_slice()))).collect()
}

fn mutate(rng: &mut XorShift, seed: &[u8]) -> Vec<u8> {
    let mut b = seed.to_vec();
    for _ in 0..1 + rng.below(3) {
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
                b.insert(i, rng.next() as u8);
            }
            4 if !b.is_empty() => {
                let i = rng.below(b.len());
                b.remove(i);
            }
            // Interesting values at field starts: counts, headers, lengths.
            _ if !b.is_empty() => {
                let i = rng.below(b.len().min(16));
                b[i] = [0x00, 0x01, 0x7F, 0x80, 0xFF, 0x13, 0x21][rng.below(7)];
            }
            _ => {}
        }
    }
    b
}

fn random_bytes(rng: &mut XorShift, max: usize) -> Vec<u8> {
    let n = rng.below(max + 1);
    let mut b: Vec<u8> = (0..n).map(|_| rng.next() as u8).collect();
    // Start like a sub-chunk often enough to get past the version byte.
    if !b.is_empty() && rng.below(2) == 0 {
        b[0] = [1, 8, 9][rng.below(3)];
    }
    b
}

/// Reads every block of an accepted sub-chunk; panics here would be decoder bugs.
fn exercise(sc: &WireSubChunk) -> u64 {
    let mut acc = 0u64;
    for l in &sc.layers {
        for i in (0..4096).step_by(97) {
            acc = acc.wrapping_add(u64::from(l.get(i)));
        }
    }
    acc
}

#[test]
fn decoders_survive_a_million_inputs() {
    let mut rng = XorShift(0x5EED_CAFE_F00D_1234);
    let subs = sub_chunk_corpus();
    let payloads = payload_corpus(&subs);
    let protocol = Protocol::load(Protocol::default_version().game_version).expect("default version");
    let responses = response_corpus(&protocol, &subs);
    for s in &subs {
        assert!(decode_sub_chunk(&mut Reader::new(s)).is_ok(), "corpus decodes");
    }
    for (p, n, req) in &payloads {
        assert!(decode_level_chunk_payload(p, *n, 4, *req).is_ok(), "payload corpus decodes");
    }
    for r in &responses {
        let resp: SubChunkPacket = protocol.decode_as(r).expect("response corpus decodes");
        assert!(matches!(outcomes(&resp)[0], Ok(SubChunkOutcome::Loaded(..))));
    }

    // CLAWCRAFT_FUZZ_INPUTS: inputs in all (the long run of tests/fuzz/long-run.sh).
    let total = std::env::var("CLAWCRAFT_FUZZ_INPUTS").ok().and_then(|v| v.parse().ok()).unwrap_or(1_050_000u64);
    let (mut runs, mut accepted, mut acc) = (0u64, 0u64, 0u64);
    while runs < total {
        runs += 1;
        match rng.below(10) {
            0..=2 => {
                let seed = &subs[rng.below(subs.len())];
                let input = mutate(&mut rng, seed);
                if let Ok(sc) = decode_sub_chunk(&mut Reader::new(&input)) {
                    accepted += 1;
                    acc = acc.wrapping_add(exercise(&sc));
                }
            }
            3 | 4 => {
                let input = random_bytes(&mut rng, 48);
                if let Ok(sc) = decode_sub_chunk(&mut Reader::new(&input)) {
                    accepted += 1;
                    acc = acc.wrapping_add(exercise(&sc));
                }
            }
            5 | 6 => {
                let (seed, n, req) = &payloads[rng.below(payloads.len())];
                let input = if rng.below(4) == 0 { random_bytes(&mut rng, 48) } else { mutate(&mut rng, seed) };
                let n = if rng.below(8) == 0 { rng.below(6) } else { *n };
                if let Ok(p) = decode_level_chunk_payload(&input, n, 4, *req) {
                    accepted += 1;
                    acc = acc.wrapping_add(p.sub_chunks.iter().map(exercise).sum::<u64>());
                }
            }
            _ => {
                let seed = &responses[rng.below(responses.len())];
                let input = if rng.below(4) == 0 { random_bytes(&mut rng, 64) } else { mutate(&mut rng, seed) };
                if let Ok(resp) = protocol.decode_as::<SubChunkPacket>(&input) {
                    accepted += 1;
                    for o in outcomes(&resp) {
                        if let Ok(SubChunkOutcome::Loaded(sc, _)) = o {
                            acc = acc.wrapping_add(exercise(&sc));
                        }
                    }
                }
            }
        }
    }
    // Mutations must keep a fair share valid, or the test only exercises the first bytes.
    assert!(accepted > runs / 20, "{accepted} of {runs} accepted");
    std::hint::black_box(acc);
}

/// The shared store hands out exactly what the decoders decode — the same blocks, the same
/// claimed Y, the same block entities, the same error, the same bytes consumed — whether it
/// decodes or finds the blocks already held, for lone sub-chunks, LevelChunk payloads and
/// SubChunk entries alike (one store across all inputs, so mutations that come back to a
/// stored input hit).
#[test]
fn the_block_store_reads_what_the_decoder_reads() {
    use clawcraft_world::chunk::wire::read_level_chunk_payload;
    use clawcraft_world::chunk::{BlockStore, SharedOutcome, SubChunk};
    let mut rng = XorShift(0xB10C_5708_E5EE_D001);
    let subs = sub_chunk_corpus();
    let payloads = payload_corpus(&subs);
    let mut store = BlockStore::default();
    let air = 0xDBF4_4120;
    let mut held = Vec::new();
    let results = ["success", "success_all_air", "chunk_not_found", "invalid_dimension"];
    for _ in 0..300_000 {
        match rng.below(3) {
            0 => {
                let seed = &subs[rng.below(subs.len())];
                let input = if rng.below(3) == 0 { seed.clone() } else { mutate(&mut rng, seed) };
                let (mut a, mut b) = (Reader::new(&input), Reader::new(&input));
                let want = decode_sub_chunk(&mut a).map(|w| (w.y_index, SubChunk::from_wire(w, air)));
                let got = store.read_sub_chunk(&mut b, air);
                match (want, got) {
                    (Ok((y, sc)), Ok(shared)) => {
                        assert_eq!((shared.y_index, &*shared.sub_chunk), (y, &sc), "input {input:?}");
                        assert_eq!(a.position(), b.position(), "bytes consumed");
                        // Keep some alive so later reads can find them.
                        if rng.below(16) == 0 {
                            held.push(shared.sub_chunk);
                        }
                    }
                    (Err(e), Err(f)) => assert_eq!(e, f, "input {input:?}"),
                    (want, got) => panic!("decoder {want:?}, store {got:?}, input {input:?}"),
                }
            }
            1 => {
                let (seed, n, req) = &payloads[rng.below(payloads.len())];
                let input = if rng.below(3) == 0 { seed.clone() } else { mutate(&mut rng, seed) };
                let n = if rng.below(8) == 0 { rng.below(6) } else { *n };
                let want = decode_level_chunk_payload(&input, n, 4, *req).map(|p| {
                    let subs: Vec<_> =
                        p.sub_chunks.into_iter().map(|w| (w.y_index, SubChunk::from_wire(w, air))).collect();
                    (subs, p.block_entities)
                });
                let read = |r: &mut Reader<'_>| store.read_sub_chunk(r, air).map(|s| (s.y_index, s.sub_chunk));
                let got = read_level_chunk_payload(&input, n, 4, *req, read).map(|(subs, entities)| {
                    (subs.into_iter().map(|(y, s)| (y, SubChunk::clone(&s))).collect::<Vec<_>>(), entities)
                });
                assert_eq!(want, got, "input {input:?}");
            }
            _ => {
                let seed = &subs[rng.below(subs.len())];
                let mut payload = if rng.below(3) == 0 { seed.clone() } else { mutate(&mut rng, seed) };
                if rng.below(2) == 0 {
                    encode_block_entity(&mut payload, "Sign", [0, 0, 0]);
                }
                let result = results[rng.below(results.len())];
                let payload = (rng.below(8) != 0).then_some(payload.as_slice());
                let want = sub_chunk_outcome(result, payload).map(|o| match o {
                    SubChunkOutcome::Loaded(w, entities) => Some((Some(SubChunk::from_wire(w, air)), entities)),
                    SubChunkOutcome::AllAir => Some((None, Vec::new())),
                    SubChunkOutcome::Unavailable(_) => None,
                });
                let got = store.sub_chunk_outcome(result, payload, air).map(|o| match o {
                    SharedOutcome::Loaded(s, entities) => Some((Some(SubChunk::clone(&s)), entities)),
                    SharedOutcome::AllAir => Some((None, Vec::new())),
                    SharedOutcome::Unavailable(_) => None,
                });
                assert_eq!(want, got, "{result} {payload:?}");
            }
        }
    }
    let stats = store.stats();
    assert!(stats.reused > 10_000 && stats.decoded > 10_000, "{stats:?}");
}
