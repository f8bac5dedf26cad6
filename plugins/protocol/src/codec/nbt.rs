//! NBT in the two little-endian flavours Bedrock uses.
//!
//! `Network` is what minecraft-data calls `nbt`: varint string lengths, zigzag varint TAG_Int and
//! array/list lengths, zigzag varint64 TAG_Long. `Little` (`lnbt`) is plain little-endian NBT.

use super::value::{Nbt, NbtTag};
use crate::io::{ReadError, Reader, WriteExt};

/// Deepest nesting of lists/compounds accepted; stops stack exhaustion on hostile input.
const MAX_DEPTH: usize = 256;

/// Which NBT encoding to use.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Flavour {
    /// Network little-endian with varints (`nbt`).
    Network,
    /// Plain little-endian (`lnbt`).
    Little,
}

/// Reads one named root tag.
pub(crate) fn read_root(r: &mut Reader<'_>, f: Flavour) -> Result<Nbt, ReadError> {
    let id = r.u8()?;
    // prismarine-nbt writes a bare 0 byte for an empty `lnbt` root but a name after it for `nbt`.
    if id == 0 && f == Flavour::Little {
        return Ok(Nbt { name: String::new(), tag: NbtTag::End });
    }
    let name = read_string(r, f)?;
    let tag = read_payload(r, f, id, 0)?;
    Ok(Nbt { name, tag })
}

/// Writes one named root tag.
pub(crate) fn write_root(out: &mut Vec<u8>, f: Flavour, nbt: &Nbt) {
    out.put_u8(nbt.tag.id());
    if nbt.tag.id() == 0 && f == Flavour::Little {
        return;
    }
    write_string(out, f, &nbt.name);
    write_payload(out, f, &nbt.tag);
}

fn read_string(r: &mut Reader<'_>, f: Flavour) -> Result<String, ReadError> {
    match f {
        Flavour::Network => r.var_string(),
        Flavour::Little => {
            let at = r.position();
            let len = r.u16_le()? as usize;
            let b = r.bytes(len)?;
            String::from_utf8(b.to_vec()).map_err(|_| ReadError::Utf8(at))
        }
    }
}

fn write_string(out: &mut Vec<u8>, f: Flavour, s: &str) {
    match f {
        Flavour::Network => out.put_var_string(s),
        Flavour::Little => {
            out.put_u16_le(s.len() as u16);
            out.put_bytes(s.as_bytes());
        }
    }
}

fn read_len(r: &mut Reader<'_>, f: Flavour, min_elem: usize) -> Result<usize, ReadError> {
    let at = r.position();
    let n = match f {
        Flavour::Network => r.var_i32()?,
        Flavour::Little => r.i32_le()?,
    };
    let n = u64::try_from(n).map_err(|_| ReadError::Invalid(format!("negative NBT length at offset {at}")))?;
    r.checked_len(n, min_elem)
}

fn write_len(out: &mut Vec<u8>, f: Flavour, n: usize) {
    match f {
        Flavour::Network => out.put_var_i32(n as i32),
        Flavour::Little => out.put_i32_le(n as i32),
    }
}

fn read_payload(r: &mut Reader<'_>, f: Flavour, id: u8, depth: usize) -> Result<NbtTag, ReadError> {
    if depth > MAX_DEPTH {
        return Err(ReadError::Invalid(format!("NBT nested deeper than {MAX_DEPTH}")));
    }
    Ok(match id {
        0 => NbtTag::End,
        1 => NbtTag::Byte(r.i8()?),
        2 => NbtTag::Short(r.i16_le()?),
        3 => NbtTag::Int(match f {
            Flavour::Network => r.var_i32()?,
            Flavour::Little => r.i32_le()?,
        }),
        4 => NbtTag::Long(match f {
            Flavour::Network => r.var_i64()?,
            Flavour::Little => r.i64_le()?,
        }),
        5 => NbtTag::Float(r.f32_le()?),
        6 => NbtTag::Double(r.f64_le()?),
        7 => {
            let n = read_len(r, f, 1)?;
            NbtTag::ByteArray(r.bytes(n)?.to_vec())
        }
        8 => NbtTag::String(read_string(r, f)?),
        9 => {
            let elem = r.u8()?;
            let n = read_len(r, f, 1)?;
            let mut items = Vec::with_capacity(n.min(1024));
            for _ in 0..n {
                items.push(read_payload(r, f, elem, depth + 1)?);
            }
            NbtTag::List(elem, items)
        }
        10 => {
            let mut entries = Vec::new();
            loop {
                let id = r.u8()?;
                if id == 0 {
                    break;
                }
                let name = read_string(r, f)?;
                entries.push((name, read_payload(r, f, id, depth + 1)?));
            }
            NbtTag::Compound(entries)
        }
        11 => {
            let n = read_len(r, f, 4)?;
            let mut v = Vec::with_capacity(n);
            for _ in 0..n {
                v.push(r.i32_le()?);
            }
            NbtTag::IntArray(v)
        }
        12 => {
            let n = read_len(r, f, 8)?;
            let mut v = Vec::with_capacity(n);
            for _ in 0..n {
                v.push(r.i64_le()?);
            }
            NbtTag::LongArray(v)
        }
        other => return Err(ReadError::Invalid(format!("unknown NBT tag id {other}"))),
    })
}

fn write_payload(out: &mut Vec<u8>, f: Flavour, tag: &NbtTag) {
    match tag {
        NbtTag::End => {}
        NbtTag::Byte(v) => out.put_u8(*v as u8),
        NbtTag::Short(v) => out.put_u16_le(*v as u16),
        NbtTag::Int(v) => match f {
            Flavour::Network => out.put_var_i32(*v),
            Flavour::Little => out.put_i32_le(*v),
        },
        NbtTag::Long(v) => match f {
            Flavour::Network => out.put_var_i64(*v),
            Flavour::Little => out.put_i64_le(*v),
        },
        NbtTag::Float(v) => out.put_f32_le(*v),
        NbtTag::Double(v) => out.put_bytes(&v.to_le_bytes()),
        NbtTag::ByteArray(v) => {
            write_len(out, f, v.len());
            out.put_bytes(v);
        }
        NbtTag::String(s) => write_string(out, f, s),
        NbtTag::List(elem, items) => {
            out.put_u8(*elem);
            write_len(out, f, items.len());
            for it in items {
                write_payload(out, f, it);
            }
        }
        NbtTag::Compound(entries) => {
            for (name, t) in entries {
                out.put_u8(t.id());
                write_string(out, f, name);
                write_payload(out, f, t);
            }
            out.put_u8(0);
        }
        NbtTag::IntArray(v) => {
            write_len(out, f, v.len());
            for x in v {
                out.put_i32_le(*x);
            }
        }
        NbtTag::LongArray(v) => {
            write_len(out, f, v.len());
            for x in v {
                out.put_i64_le(*x);
            }
        }
    }
}
