//! In-memory paletted block storage: a palette of raw network ids plus indices packed with the
//! smallest valid bit width. A uniform storage is just its value, so an all-air sub-chunk costs no
//! heap at all.

/// Blocks in one sub-chunk storage (16 × 16 × 16).
pub const BLOCKS: usize = 4096;

/// Bit widths the network format (and this storage) packs indices with.
pub const VALID_BITS: [u8; 9] = [0, 1, 2, 3, 4, 5, 6, 8, 16];

/// Index of block `(x, y, z)` (each 0..15) inside a storage: x-major, then z, then y.
pub fn block_index(x: usize, y: usize, z: usize) -> usize {
    ((x & 15) << 8) | ((z & 15) << 4) | (y & 15)
}

/// Indices that fit in one 32-bit word at `bits` per index (indices never straddle words).
pub fn indices_per_word(bits: u8) -> usize {
    32 / bits as usize
}

/// Words needed to hold 4096 indices at `bits` (0 for a single-value storage). Widths that do not
/// divide 32 (3, 5, 6) leave padding bits in every word, hence the rounding up.
pub fn word_count(bits: u8) -> usize {
    if bits == 0 {
        return 0;
    }
    BLOCKS.div_ceil(indices_per_word(bits))
}

/// The smallest valid width able to index a palette of `len` entries.
pub fn min_bits(len: usize) -> u8 {
    VALID_BITS.iter().copied().find(|&b| (1usize << b) >= len).unwrap_or(16)
}

/// One layer of a sub-chunk: 4096 network ids, paletted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PalettedStorage {
    /// Every block has this network id.
    Single(u32),
    /// A palette and the packed indices into it.
    Packed(Packed),
}

/// A palette with more than one entry and its packed indices.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Packed {
    bits: u8,
    palette: Vec<u32>,
    words: Box<[u32]>,
}

impl Packed {
    /// Builds from parts, checking that the word count matches `bits` and every index is inside
    /// the palette, so later reads can never go out of bounds.
    pub fn new(bits: u8, palette: Vec<u32>, words: Box<[u32]>) -> Result<Self, String> {
        if bits == 0 || !VALID_BITS.contains(&bits) {
            return Err(format!("invalid bits per block {bits}"));
        }
        if words.len() != word_count(bits) {
            return Err(format!("{} words for {bits} bits, want {}", words.len(), word_count(bits)));
        }
        if palette.is_empty() {
            return Err("empty palette".into());
        }
        let p = Packed { bits, palette, words };
        // A palette covering every value `bits` can hold needs no scan.
        if p.palette.len() < 1 << bits {
            let max = p.max_index();
            if max >= p.palette.len() {
                return Err(format!("index {max} outside a palette of {}", p.palette.len()));
            }
        }
        Ok(p)
    }

    /// Bits per index.
    pub fn bits(&self) -> u8 {
        self.bits
    }

    /// The palette (network ids).
    pub fn palette(&self) -> &[u32] {
        &self.palette
    }

    /// Largest index stored, walking words rather than dividing per block (decode hot path).
    fn max_index(&self) -> usize {
        let per = indices_per_word(self.bits);
        let mask = (1u32 << self.bits) - 1;
        let (mut max, mut left) = (0u32, BLOCKS);
        for &word in self.words.iter() {
            let mut w = word;
            for _ in 0..per.min(left) {
                max = max.max(w & mask);
                w >>= self.bits;
            }
            left = left.saturating_sub(per);
        }
        max as usize
    }

    fn index(&self, i: usize) -> usize {
        let per = indices_per_word(self.bits);
        let shift = (i % per) * self.bits as usize;
        let mask = (1u32 << self.bits) - 1;
        ((self.words[i / per] >> shift) & mask) as usize
    }

    fn set_index(&mut self, i: usize, v: usize) {
        let per = indices_per_word(self.bits);
        let shift = (i % per) * self.bits as usize;
        let mask = (1u32 << self.bits) - 1;
        let w = &mut self.words[i / per];
        *w = (*w & !(mask << shift)) | ((v as u32 & mask) << shift);
    }

    /// Re-packs every index with `bits` (wider or narrower, as long as the palette fits).
    fn repack(&mut self, bits: u8) {
        let mut next = Packed { bits, palette: Vec::new(), words: vec![0; word_count(bits)].into_boxed_slice() };
        for i in 0..BLOCKS {
            next.set_index(i, self.index(i));
        }
        self.bits = bits;
        self.words = next.words;
    }
}

impl PalettedStorage {
    /// Builds a storage from a palette and packed words as they came off the wire, narrowing the
    /// width when the sender used more bits than the palette needs.
    pub fn from_parts(bits: u8, palette: Vec<u32>, words: Box<[u32]>) -> Result<Self, String> {
        if bits == 0 {
            return match palette.as_slice() {
                [v] => Ok(PalettedStorage::Single(*v)),
                _ => Err(format!("single-value storage with {} palette entries", palette.len())),
            };
        }
        let mut p = Packed::new(bits, palette, words)?;
        if p.palette.len() == 1 {
            return Ok(PalettedStorage::Single(p.palette[0]));
        }
        let want = min_bits(p.palette.len());
        if want < p.bits {
            p.repack(want);
        }
        Ok(PalettedStorage::Packed(p))
    }

    /// Network id at block index `i` (see [`block_index`]).
    pub fn get(&self, i: usize) -> u32 {
        match self {
            PalettedStorage::Single(v) => *v,
            PalettedStorage::Packed(p) => p.palette[p.index(i % BLOCKS)],
        }
    }

    /// Sets block index `i` to `id`, growing the palette (and the index width) when `id` is new.
    pub fn set(&mut self, i: usize, id: u32) {
        let i = i % BLOCKS;
        if let PalettedStorage::Single(v) = *self {
            if v == id {
                return;
            }
            // Going from one value to two needs 1-bit indices; all zeros already mean `v`.
            *self = PalettedStorage::Packed(Packed {
                bits: 1,
                palette: vec![v],
                words: vec![0; word_count(1)].into_boxed_slice(),
            });
        }
        let PalettedStorage::Packed(p) = self else { return };
        let slot = match p.palette.iter().position(|&e| e == id) {
            Some(s) => s,
            None => {
                p.palette.push(id);
                let want = min_bits(p.palette.len());
                if want > p.bits {
                    p.repack(want);
                }
                p.palette.len() - 1
            }
        };
        p.set_index(i, slot);
    }

    /// Whether `id` appears in the palette: a cheap pre-check before scanning blocks. May report
    /// an id that was once present but has since been overwritten everywhere.
    pub fn palette_contains(&self, id: u32) -> bool {
        match self {
            PalettedStorage::Single(v) => *v == id,
            PalettedStorage::Packed(p) => p.palette.contains(&id),
        }
    }

    /// The distinct ids the palette lists.
    pub fn palette(&self) -> &[u32] {
        match self {
            PalettedStorage::Single(v) => std::slice::from_ref(v),
            PalettedStorage::Packed(p) => &p.palette,
        }
    }

    /// Bits per index (0 for a single value).
    pub fn bits(&self) -> u8 {
        match self {
            PalettedStorage::Single(_) => 0,
            PalettedStorage::Packed(p) => p.bits,
        }
    }

    /// Heap bytes owned by this storage.
    pub fn heap_bytes(&self) -> usize {
        match self {
            PalettedStorage::Single(_) => 0,
            PalettedStorage::Packed(p) => p.palette.capacity() * 4 + p.words.len() * 4,
        }
    }

    /// The packed words (empty for a single value); the network layout, used by encoders.
    pub fn words(&self) -> &[u32] {
        match self {
            PalettedStorage::Single(_) => &[],
            PalettedStorage::Packed(p) => &p.words,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn word_counts_pad_odd_widths() {
        let want = [(1, 128), (2, 256), (3, 410), (4, 512), (5, 683), (6, 820), (8, 1024), (16, 2048)];
        for (bits, words) in want {
            assert_eq!(word_count(bits), words, "bits {bits}");
        }
        assert_eq!(word_count(0), 0);
        assert_eq!(
            (min_bits(1), min_bits(2), min_bits(3), min_bits(9), min_bits(65), min_bits(257)),
            (0, 1, 2, 4, 8, 16)
        );
    }

    #[test]
    fn set_grows_palette_and_width() {
        let mut s = PalettedStorage::Single(7);
        s.set(5, 7);
        assert_eq!(s, PalettedStorage::Single(7));
        for n in 0..300u32 {
            s.set(n as usize * 13 % BLOCKS, 1000 + n);
        }
        assert_eq!(s.bits(), 16);
        for n in 0..300u32 {
            assert_eq!(s.get(n as usize * 13 % BLOCKS), 1000 + n);
        }
        assert_eq!(s.get(1), 7);
        assert!(s.palette_contains(1299) && !s.palette_contains(5));
    }

    #[test]
    fn from_parts_narrows_and_validates() {
        // 8-bit words holding indices 0/1 only: narrowed to 1 bit.
        let mut words = vec![0u32; word_count(8)];
        words[0] = 0x0100; // block 1 -> index 1
        let s = PalettedStorage::from_parts(8, vec![10, 20], words.into_boxed_slice()).expect("valid");
        assert_eq!((s.bits(), s.get(0), s.get(1), s.get(2)), (1, 10, 20, 10));
        let bad = vec![0x0300u32; word_count(8)].into_boxed_slice();
        assert!(PalettedStorage::from_parts(8, vec![10, 20], bad).is_err());
        assert!(PalettedStorage::from_parts(4, vec![1], vec![0; 3].into_boxed_slice()).is_err());
    }
}
