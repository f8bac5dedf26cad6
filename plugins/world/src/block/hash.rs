//! Block network-id hashes: FNV-1a-32 over the little-endian NBT of a block state,
//! used when StartGame says `block_network_ids_are_hashes`.

use super::StateValue;

const FNV_OFFSET: u32 = 0x811C_9DC5;
const FNV_PRIME: u32 = 0x0100_0193;

// NBT tag ids of the value types a block state can hold.
const TAG_END: u8 = 0;
const TAG_BYTE: u8 = 1;
const TAG_INT: u8 = 3;
const TAG_STRING: u8 = 8;
const TAG_COMPOUND: u8 = 10;

/// Streaming FNV-1a-32, so hashing needs no byte buffer.
struct Fnv1a(u32);

impl Fnv1a {
    fn bytes(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 ^ u32::from(b)).wrapping_mul(FNV_PRIME);
        }
    }

    /// An NBT string payload: u16 LE length, then the UTF-8 bytes. Lengths beyond u16 cannot
    /// occur in block data; they are truncated like a writer would refuse them.
    fn nbt_string(&mut self, s: &str) {
        let len = u16::try_from(s.len()).unwrap_or(u16::MAX);
        self.bytes(&len.to_le_bytes());
        self.bytes(&s.as_bytes()[..usize::from(len)]);
    }

    /// A named tag header: tag id, then the name as an NBT string.
    fn tag(&mut self, tag: u8, name: &str) {
        self.bytes(&[tag]);
        self.nbt_string(name);
    }
}

/// The network id of a block state when the server hashes ids: FNV-1a-32 over
/// `{"": {name: <name>, states: {<sorted keys>: <values>}}}` written as little-endian NBT.
///
/// `name` is hashed exactly as given (include the `minecraft:` namespace). State keys are sorted
/// bytewise here, so `states` may come in any order. No `version` tag is hashed.
pub fn network_hash<K: AsRef<str>>(name: &str, states: &[(K, StateValue)]) -> u32 {
    let mut sorted: Vec<(&str, &StateValue)> = states.iter().map(|(k, v)| (k.as_ref(), v)).collect();
    sorted.sort_unstable_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));

    let mut h = Fnv1a(FNV_OFFSET);
    h.tag(TAG_COMPOUND, "");
    h.tag(TAG_STRING, "name");
    h.nbt_string(name);
    h.tag(TAG_COMPOUND, "states");
    for (key, value) in sorted {
        match value {
            StateValue::Str(s) => {
                h.tag(TAG_STRING, key);
                h.nbt_string(s);
            }
            StateValue::Byte(b) => {
                h.tag(TAG_BYTE, key);
                h.bytes(&[*b]);
            }
            StateValue::Int(i) => {
                h.tag(TAG_INT, key);
                h.bytes(&i.to_le_bytes());
            }
        }
    }
    h.bytes(&[TAG_END, TAG_END]);
    h.0
}
