//! The dynamic, version-independent value tree produced by the interpreter.

use serde::{Deserialize, Serialize};

/// A decoded ProtoDef value.
///
/// Signed wire types decode to [`Value::Int`], unsigned ones to [`Value::UInt`]; the encoder
/// accepts either for any integer type (range-checked) so callers need not care.
#[derive(Debug, Clone, PartialEq, Default)]
pub enum Value {
    /// Absent: `void`, an unset `option`, a switch without a matching case, or an empty `encapsulated`.
    #[default]
    Void,
    /// `bool`, and the members of decoded `bitflags` objects.
    Bool(bool),
    /// Any signed integer type (exact for 64-bit types).
    Int(i64),
    /// Any unsigned integer type (exact for 64-bit types).
    UInt(u64),
    /// `f32`/`f64` and `byterot`.
    Float(f64),
    /// Strings, mapper names and UUIDs (canonical hyphenated lower case).
    Str(String),
    /// `buffer` and `restBuffer`.
    Bytes(Vec<u8>),
    /// Arrays.
    Array(Vec<Value>),
    /// Containers, bitflags and bitfields; fields keep their wire order.
    Object(Vec<(String, Value)>),
    /// Network or little-endian NBT.
    Nbt(Nbt),
}

impl Value {
    /// The field called `name` of an object (the last one, like JavaScript object spreading).
    pub fn get(&self, name: &str) -> Option<&Value> {
        match self {
            Value::Object(fields) => fields.iter().rev().find(|(k, _)| k == name).map(|(_, v)| v),
            _ => None,
        }
    }

    /// The value as a signed integer, if it is numeric (booleans count as 0/1).
    pub fn as_i64(&self) -> Option<i64> {
        match *self {
            Value::Int(v) => Some(v),
            Value::UInt(v) => i64::try_from(v).ok(),
            Value::Bool(b) => Some(i64::from(b)),
            Value::Float(f) if f.fract() == 0.0 && f.abs() < 9.0e18 => Some(f as i64),
            _ => None,
        }
    }

    /// The value as an unsigned integer, if it is numeric and not negative.
    pub fn as_u64(&self) -> Option<u64> {
        match *self {
            Value::Int(v) => u64::try_from(v).ok(),
            Value::UInt(v) => Some(v),
            Value::Bool(b) => Some(u64::from(b)),
            Value::Float(f) if f.fract() == 0.0 && (0.0..1.8e19).contains(&f) => Some(f as u64),
            _ => None,
        }
    }

    /// The value as a float, if it is numeric.
    pub fn as_f64(&self) -> Option<f64> {
        match *self {
            Value::Int(v) => Some(v as f64),
            Value::UInt(v) => Some(v as f64),
            Value::Float(f) => Some(f),
            _ => None,
        }
    }

    /// The value as a string slice, if it is a string.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Value::Str(s) => Some(s),
            _ => None,
        }
    }
}

/// A named root NBT tag, as found on the wire.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Nbt {
    /// Root tag name (usually empty on the network).
    pub name: String,
    /// Root payload; [`NbtTag::End`] for an empty root.
    pub tag: NbtTag,
}

impl Default for Nbt {
    /// An unnamed empty compound: the neutral value for an `nbt` field.
    fn default() -> Self {
        Nbt { name: String::new(), tag: NbtTag::Compound(Vec::new()) }
    }
}

/// One NBT payload. Compounds keep their entry order so re-encoding is byte-identical.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum NbtTag {
    /// TAG_End (only valid as an empty root).
    End,
    /// TAG_Byte.
    Byte(i8),
    /// TAG_Short.
    Short(i16),
    /// TAG_Int.
    Int(i32),
    /// TAG_Long.
    Long(i64),
    /// TAG_Float.
    Float(f32),
    /// TAG_Double.
    Double(f64),
    /// TAG_Byte_Array.
    ByteArray(Vec<u8>),
    /// TAG_String.
    String(String),
    /// TAG_List: element tag id plus elements (the id matters for empty lists).
    List(u8, Vec<NbtTag>),
    /// TAG_Compound.
    Compound(Vec<(String, NbtTag)>),
    /// TAG_Int_Array.
    IntArray(Vec<i32>),
    /// TAG_Long_Array.
    LongArray(Vec<i64>),
}

impl NbtTag {
    /// Bytes this tag holds on the heap (strings, arrays, the entries of lists and compounds).
    pub fn heap_bytes(&self) -> usize {
        match self {
            NbtTag::ByteArray(v) => v.capacity(),
            NbtTag::String(s) => s.capacity(),
            NbtTag::List(_, v) => v.iter().map(|t| size_of::<NbtTag>() + t.heap_bytes()).sum(),
            NbtTag::Compound(v) => {
                v.iter().map(|(k, t)| size_of::<(String, NbtTag)>() + k.capacity() + t.heap_bytes()).sum()
            }
            NbtTag::IntArray(v) => v.capacity() * 4,
            NbtTag::LongArray(v) => v.capacity() * 8,
            _ => 0,
        }
    }

    /// The wire tag id.
    pub fn id(&self) -> u8 {
        match self {
            NbtTag::End => 0,
            NbtTag::Byte(_) => 1,
            NbtTag::Short(_) => 2,
            NbtTag::Int(_) => 3,
            NbtTag::Long(_) => 4,
            NbtTag::Float(_) => 5,
            NbtTag::Double(_) => 6,
            NbtTag::ByteArray(_) => 7,
            NbtTag::String(_) => 8,
            NbtTag::List(..) => 9,
            NbtTag::Compound(_) => 10,
            NbtTag::IntArray(_) => 11,
            NbtTag::LongArray(_) => 12,
        }
    }
}
