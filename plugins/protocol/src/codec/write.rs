//! The encoding half of the interpreter, including neutral defaults for omitted fields.

use std::borrow::Cow;

use serde::Deserialize;

use super::nbt::{self, Flavour};
use super::read::{MAX_DEPTH, Seg, case_matches, compare_value, enum_size};
use super::schema::{CaseKey, Compare, Count, Endian, Field, FieldPath, Prim, Schema, Ty};
use super::serde_value::ValueDeserializer;
use super::value::{Nbt, Value};
use crate::io::WriteExt;

/// Encoder state for one packet.
pub(crate) struct Encoder<'s, 'v> {
    pub schema: &'s Schema,
    pub vars: &'s [(String, i64)],
    pub out: Vec<u8>,
    /// The values actually written per open container (given or defaulted), for switches.
    scopes: Vec<Vec<(&'s str, Cow<'v, Value>)>>,
    /// Where we are, for error messages; left at the failing field on error.
    pub path: Vec<Seg<'s>>,
    depth: usize,
}

type R<T> = Result<T, String>;

static VOID: Value = Value::Void;

impl<'s, 'v> Encoder<'s, 'v> {
    /// An encoder writing into a fresh buffer.
    pub fn new(schema: &'s Schema, vars: &'s [(String, i64)]) -> Self {
        Encoder { schema, vars, out: Vec::with_capacity(64), scopes: Vec::new(), path: Vec::new(), depth: 0 }
    }

    /// Encodes `v` as `ty`.
    pub fn write(&mut self, ty: &'s Ty, v: &'v Value) -> R<()> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(format!("types nested deeper than {MAX_DEPTH}"));
        }
        self.write_inner(ty, v)?;
        self.depth -= 1;
        Ok(())
    }

    fn write_inner(&mut self, ty: &'s Ty, v: &'v Value) -> R<()> {
        match ty {
            Ty::Void => {}
            Ty::Prim(p) => write_prim(&mut self.out, *p, v)?,
            Ty::Ref(i) => {
                let t = self.schema.types.get(*i).ok_or("bad type index")?;
                self.write(t, v)?;
            }
            Ty::Container(fields) => self.container(fields, v)?,
            Ty::Switch { compare, cases, default } => {
                let t = self.pick_case(compare.as_ref(), cases, default)?;
                self.write(t, v)?;
            }
            Ty::Option(inner) => {
                if matches!(v, Value::Void) {
                    self.out.put_u8(0);
                } else {
                    self.out.put_u8(1);
                    self.write(inner, v)?;
                }
            }
            Ty::Array { count, elem } => {
                let items = items_of(v)?;
                self.count(count, items.len())?;
                for (i, it) in items.iter().enumerate() {
                    self.path.push(Seg::Index(i));
                    self.write(elem, it)?;
                    self.path.pop();
                }
                if let Count::Fixed(n) = count {
                    if items.len() > *n {
                        return Err(format!("{} elements for a fixed {n}-element array", items.len()));
                    }
                    // Pad a short fixed-size array with neutral elements.
                    for _ in items.len()..*n {
                        let d = neutral(self.schema, elem, 0);
                        self.write_temp(elem, &d)?;
                    }
                }
            }
            Ty::Buffer(count) => {
                let b = bytes_of(v)?;
                if let Count::Fixed(n) = count {
                    if b.len() > *n {
                        return Err(format!("{} bytes for a fixed {n}-byte buffer", b.len()));
                    }
                    // Pad a short fixed-size buffer with zeros.
                    self.out.put_bytes(&b);
                    self.out.extend(std::iter::repeat_n(0, n - b.len()));
                } else {
                    self.count(count, b.len())?;
                    self.out.put_bytes(&b);
                }
            }
            Ty::PString { count, latin1 } => {
                let s = match v {
                    Value::Str(s) => s.as_str(),
                    Value::Void => "",
                    other => return Err(format!("expected a string, got {}", kind(other))),
                };
                if *latin1 {
                    let b: Vec<u8> = s.chars().map(|c| u8::try_from(u32::from(c)).unwrap_or(b'?')).collect();
                    self.count(count, b.len())?;
                    self.out.put_bytes(&b);
                } else {
                    self.count(count, s.len())?;
                    self.out.put_bytes(s.as_bytes());
                }
            }
            Ty::Mapper { repr, entries, neutral: n } => {
                let raw = match v {
                    // "" is what a `Default` typed struct holds: treat it as "not set".
                    Value::Str(s) if s.is_empty() => entries.get(*n).map_or(0, |e| e.0),
                    Value::Str(s) => match entries.iter().find(|e| e.1 == *s) {
                        Some(e) => e.0,
                        None => s.parse().map_err(|_| format!("unknown mapper value {s:?}"))?,
                    },
                    Value::Void => entries.get(*n).map_or(0, |e| e.0),
                    other => other.as_i64().ok_or_else(|| format!("expected a mapper name, got {}", kind(other)))?,
                };
                self.write_temp(repr, &Value::Int(raw))?;
            }
            Ty::Bitflags { repr, flags } => {
                let bits = flag_bits(flags, v)?;
                let val = if bits > i64::MAX as u64 { Value::UInt(bits) } else { Value::Int(bits as i64) };
                // Negative signed representations (zigzag64 flags) wrap like BigInt would.
                let val = match (repr.as_ref(), val) {
                    (Ty::Prim(Prim::VarI64 | Prim::I64(_)), Value::UInt(b)) => Value::Int(b as i64),
                    (_, val) => val,
                };
                self.write_temp(repr, &val)?;
            }
            Ty::Bitfield(parts) => self.bitfield(parts, v)?,
            Ty::CountFor { repr, .. } => {
                // Reached only outside a container; containers handle `count` themselves.
                self.write(repr, v)?;
            }
            Ty::Encapsulated { len, inner } => {
                if matches!(v, Value::Void) {
                    self.write_temp(len, &Value::UInt(0))?;
                } else {
                    let outer = std::mem::take(&mut self.out);
                    let r = self.write(inner, v);
                    let payload = std::mem::replace(&mut self.out, outer);
                    r?;
                    self.write_temp(len, &Value::UInt(payload.len() as u64))?;
                    self.out.put_bytes(&payload);
                }
            }
            Ty::RestBuffer => {
                let b = bytes_of(v)?;
                self.out.put_bytes(&b);
            }
            Ty::StackIdVariant(inner) => match v {
                Value::Int(_) | Value::UInt(_) => {
                    let id = Value::Object(vec![
                        ("type".to_owned(), Value::Str(super::schema::NET_STACK_ID.to_owned())),
                        ("id".to_owned(), v.clone()),
                    ]);
                    self.write_temp(inner, &id)?;
                }
                _ => self.write(inner, v)?,
            },
            Ty::MaybeIncompleteArray { count, elem } => {
                let items = items_of(v)?;
                self.write_temp(count, &Value::UInt(items.len() as u64))?;
                for it in items {
                    self.write(elem, it)?;
                }
            }
            Ty::EndOfArray(elem) => {
                for it in items_of(v)? {
                    self.write(elem, it)?;
                }
            }
            Ty::OptionalOnRemaining(inner) => {
                if !matches!(v, Value::Void) {
                    self.write(inner, v)?;
                }
            }
            Ty::EntityMetadataLoop { elem, end } => {
                if let Value::Array(items) = v {
                    for it in items {
                        self.write(elem, it)?;
                    }
                }
                self.out.put_u8(*end);
            }
            Ty::Nbt => nbt::write_root(&mut self.out, Flavour::Network, nbt_of(v)?.as_ref()),
            Ty::LNbt => nbt::write_root(&mut self.out, Flavour::Little, nbt_of(v)?.as_ref()),
            Ty::NbtLoop => {
                if let Value::Array(items) = v {
                    for it in items {
                        nbt::write_root(&mut self.out, Flavour::Network, nbt_of(it)?.as_ref());
                    }
                }
                self.out.put_u8(0);
            }
            Ty::Uuid => write_uuid(&mut self.out, v)?,
            Ty::ByteRot => {
                let f = v.as_f64().unwrap_or(0.0);
                self.out.put_u8((f / (360.0 / 256.0)) as i64 as u8);
            }
            Ty::EnumSizeBasedOnValuesLen => {}
            Ty::Unsupported(name) => return Err(format!("unsupported native type {name}")),
        }
        Ok(())
    }

    /// Encodes a value created here (a default or a computed length), which cannot live in
    /// `'v`. Switches at the top of `ty` must already be resolved by the caller, because the
    /// temporary encoder does not see the enclosing containers.
    fn write_temp(&mut self, ty: &'s Ty, v: &Value) -> R<()> {
        let mut sub = Encoder::<'s, '_> {
            schema: self.schema,
            vars: self.vars,
            out: std::mem::take(&mut self.out),
            scopes: Vec::new(),
            path: std::mem::take(&mut self.path),
            depth: self.depth,
        };
        let r = sub.write(ty, v);
        self.out = sub.out;
        self.path = sub.path;
        r
    }

    fn container(&mut self, fields: &'s [Field], v: &'v Value) -> R<()> {
        let obj: &'v Value = match v {
            Value::Object(_) => v,
            // A missing container is written as all-neutral fields.
            Value::Void => &VOID,
            other => return Err(format!("expected an object, got {}", kind(other))),
        };
        self.scopes.push(Vec::with_capacity(fields.len()));
        self.fields(fields, obj)?;
        self.scopes.pop();
        Ok(())
    }

    /// Writes `fields` from `obj` into the innermost scope.
    fn fields(&mut self, fields: &'s [Field], obj: &'v Value) -> R<()> {
        for f in fields {
            match &f.name {
                Some(name) => {
                    self.path.push(Seg::Field(name));
                    let val: Cow<'v, Value> = match (&f.ty, obj.get(name)) {
                        (Ty::CountFor { repr, count_for }, _) => {
                            let n = Value::UInt(len_of(obj.get(count_for)) as u64);
                            self.write_temp(repr, &n)?;
                            Cow::Owned(n)
                        }
                        (_, Some(given)) => {
                            self.write(&f.ty, given)?;
                            self.effective(&f.ty, given)?
                        }
                        (ty, None) => {
                            let ty = self.resolve(ty)?;
                            let d = neutral(self.schema, ty, 0);
                            self.write_temp(ty, &d)?;
                            Cow::Owned(self.effective(ty, &d)?.into_owned())
                        }
                    };
                    self.path.pop();
                    if let Some(scope) = self.scopes.last_mut() {
                        scope.push((name.as_str(), val));
                    }
                }
                // Anonymous switch/bitfield: reads its fields from this same object; a container
                // branch is inlined into this scope (as ProtoDef does), so its switches see the
                // fields before it.
                None => match self.resolve(&f.ty)? {
                    Ty::Container(inner) => {
                        self.depth += 1;
                        if self.depth > MAX_DEPTH {
                            return Err(format!("types nested deeper than {MAX_DEPTH}"));
                        }
                        self.fields(inner, obj)?;
                        self.depth -= 1;
                    }
                    _ => self.write(&f.ty, obj)?,
                },
            }
        }
        Ok(())
    }

    /// What a switch later in this container must compare against: the value as written. Differs
    /// from `given` for an empty mapper name (written as the neutral name) and for bitflags
    /// (given as a list of names or a partial object; compared as an object of every flag).
    fn effective<'a>(&self, ty: &'s Ty, given: &'a Value) -> R<Cow<'a, Value>> {
        match self.resolve(ty)? {
            Ty::Mapper { entries, neutral, .. } if matches!(given, Value::Str(s) if s.is_empty()) => {
                Ok(entries.get(*neutral).map_or(Cow::Borrowed(given), |e| Cow::Owned(Value::Str(e.1.clone()))))
            }
            Ty::Bitflags { flags, .. } => {
                let bits = flag_bits(flags, given)?;
                let mut obj: Vec<(String, Value)> =
                    flags.iter().map(|(n, m)| (n.clone(), Value::Bool(*m != 0 && bits & m == *m))).collect();
                obj.push(("_value".to_owned(), Value::UInt(bits)));
                Ok(Cow::Owned(Value::Object(obj)))
            }
            _ => Ok(Cow::Borrowed(given)),
        }
    }

    /// Follows references and switches (against the current scope) to a concrete type.
    fn resolve(&self, mut ty: &'s Ty) -> R<&'s Ty> {
        for _ in 0..MAX_DEPTH {
            ty = match ty {
                Ty::Ref(i) => match self.schema.types.get(*i) {
                    Some(t) => t,
                    None => return Ok(ty),
                },
                Ty::Switch { compare, cases, default } => self.pick_case(compare.as_ref(), cases, default)?,
                _ => return Ok(ty),
            };
        }
        Ok(ty)
    }

    fn pick_case(&self, compare: Option<&Compare>, cases: &'s [(CaseKey, Ty)], default: &'s Ty) -> R<&'s Ty> {
        let Some(c) = compare else { return Ok(default) };
        let v =
            compare_value(c, |p| self.lookup(p)).ok_or_else(|| format!("switch compares `{c}`, which is not set"))?;
        Ok(cases.iter().find(|(k, _)| case_matches(k, &v, self.vars)).map_or(default, |(_, t)| t))
    }

    fn lookup(&self, p: &FieldPath) -> Option<&Value> {
        let scope = self.scopes.get(self.scopes.len().checked_sub(1 + p.ups)?)?;
        let (first, rest) = p.segs.split_first()?;
        let mut v: &Value = scope.iter().rev().find(|(k, _)| k == first).map(|(_, v)| v.as_ref())?;
        for s in rest {
            v = v.get(s)?;
        }
        Some(v)
    }

    fn count(&mut self, c: &'s Count, n: usize) -> R<()> {
        match c {
            Count::Prefixed(t) => self.write_temp(t, &Value::UInt(n as u64)),
            Count::Fixed(_) | Count::Field(_) => Ok(()),
        }
    }

    fn bitfield(&mut self, parts: &[(String, u32, bool)], v: &Value) -> R<()> {
        let total: u32 = parts.iter().map(|p| p.1).sum();
        let nbytes = total.div_ceil(8);
        if nbytes > 16 {
            return Err("bitfield wider than 128 bits".into());
        }
        let mut acc: u128 = 0;
        for (name, size, _) in parts {
            let x = v.get(name).and_then(Value::as_i64).unwrap_or(0) as u128;
            acc = (acc << size) | (x & ((1u128 << size) - 1));
        }
        acc <<= nbytes * 8 - total;
        let bytes = acc.to_be_bytes();
        self.out.put_bytes(&bytes[16 - nbytes as usize..]);
        Ok(())
    }
}

/// The neutral value of a type: zero, false, empty, absent, or the mapper's zero name.
pub(crate) fn neutral(schema: &Schema, ty: &Ty, depth: usize) -> Value {
    if depth > MAX_DEPTH {
        return Value::Void;
    }
    match ty {
        Ty::Prim(Prim::Bool) => Value::Bool(false),
        Ty::Prim(Prim::F32(_) | Prim::F64(_)) | Ty::ByteRot => Value::Float(0.0),
        Ty::Prim(p) if is_signed(*p) => Value::Int(0),
        Ty::Prim(_) => Value::UInt(0),
        Ty::Ref(i) => schema.types.get(*i).map_or(Value::Void, |t| neutral(schema, t, depth + 1)),
        Ty::Mapper { entries, neutral: n, .. } => entries.get(*n).map_or(Value::Int(0), |e| Value::Str(e.1.clone())),
        Ty::PString { .. } => Value::Str(String::new()),
        Ty::Buffer(_) | Ty::RestBuffer => Value::Bytes(Vec::new()),
        Ty::Array { .. } | Ty::MaybeIncompleteArray { .. } | Ty::EndOfArray(_) => Value::Array(Vec::new()),
        Ty::NbtLoop | Ty::EntityMetadataLoop { .. } => Value::Array(Vec::new()),
        Ty::Container(_) | Ty::Bitflags { .. } | Ty::Bitfield(_) => Value::Object(Vec::new()),
        Ty::Nbt | Ty::LNbt => Value::Nbt(Nbt::default()),
        Ty::Uuid => Value::Str("00000000-0000-0000-0000-000000000000".into()),
        Ty::EnumSizeBasedOnValuesLen => Value::Str(enum_size(0).into()),
        Ty::CountFor { .. } => Value::UInt(0),
        Ty::StackIdVariant(_) => Value::Int(0),
        _ => Value::Void,
    }
}

fn is_signed(p: Prim) -> bool {
    matches!(p, Prim::I8 | Prim::I16(_) | Prim::I32(_) | Prim::I64(_) | Prim::VarI32 | Prim::VarI64)
}

/// What kind of value `v` is, for messages (`a string`, `an array`, …).
pub(super) fn kind(v: &Value) -> &'static str {
    match v {
        Value::Void => "nothing",
        Value::Bool(_) => "a bool",
        Value::Int(_) | Value::UInt(_) => "an integer",
        Value::Float(_) => "a float",
        Value::Str(_) => "a string",
        Value::Bytes(_) => "bytes",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
        Value::Nbt(_) => "NBT",
    }
}

fn items_of(v: &Value) -> R<&[Value]> {
    match v {
        Value::Array(a) => Ok(a),
        Value::Void => Ok(&[]),
        other => Err(format!("expected an array, got {}", kind(other))),
    }
}

fn len_of(v: Option<&Value>) -> usize {
    match v {
        Some(Value::Array(a)) => a.len(),
        Some(Value::Bytes(b)) => b.len(),
        Some(Value::Str(s)) => s.len(),
        _ => 0,
    }
}

/// Bytes from `Bytes`, a string, or an array of small integers (what serde makes of `Vec<u8>`).
fn bytes_of(v: &Value) -> R<Cow<'_, [u8]>> {
    match v {
        Value::Bytes(b) => Ok(Cow::Borrowed(b)),
        Value::Str(s) => Ok(Cow::Borrowed(s.as_bytes())),
        Value::Void => Ok(Cow::Borrowed(&[])),
        Value::Array(items) => items
            .iter()
            .map(|i| i.as_u64().and_then(|x| u8::try_from(x).ok()).ok_or_else(|| "byte out of range".to_owned()))
            .collect::<R<Vec<u8>>>()
            .map(Cow::Owned),
        other => Err(format!("expected bytes, got {}", kind(other))),
    }
}

/// NBT from a `Value::Nbt` or from the serde form of [`Nbt`] (what typed structs produce).
fn nbt_of(v: &Value) -> R<Cow<'_, Nbt>> {
    match v {
        Value::Nbt(n) => Ok(Cow::Borrowed(n)),
        Value::Void => Ok(Cow::Owned(Nbt::default())),
        other => Nbt::deserialize(ValueDeserializer::new(other)).map(Cow::Owned).map_err(|e| format!("bad NBT: {e}")),
    }
}

/// Bits of a bitflags value: `_value` (raw bits, kept for round trips) OR every flag set true.
/// A list of flag names is accepted too.
fn flag_bits(flags: &[(String, u64)], v: &Value) -> R<u64> {
    let mut bits = 0u64;
    match v {
        Value::Object(fields) => {
            for (k, x) in fields {
                if k == "_value" {
                    bits |= x.as_u64().or_else(|| x.as_i64().map(|i| i as u64)).unwrap_or(0);
                } else if matches!(x, Value::Bool(true)) {
                    bits |= flags.iter().find(|f| f.0 == *k).ok_or_else(|| format!("unknown flag {k}"))?.1;
                }
            }
        }
        Value::Array(names) => {
            for n in names {
                let n = n.as_str().ok_or("flag list entries must be names")?;
                bits |= flags.iter().find(|f| f.0 == n).ok_or_else(|| format!("unknown flag {n}"))?.1;
            }
        }
        Value::Void => {}
        other => bits = other.as_u64().or_else(|| other.as_i64().map(|i| i as u64)).ok_or("bad bitflags value")?,
    }
    Ok(bits)
}

fn int(v: &Value) -> R<i128> {
    match v {
        Value::Int(i) => Ok(i128::from(*i)),
        Value::UInt(u) => Ok(i128::from(*u)),
        Value::Bool(b) => Ok(i128::from(*b)),
        Value::Void => Ok(0),
        Value::Float(f) if f.fract() == 0.0 => Ok(*f as i128),
        Value::Str(s) => s.parse().map_err(|_| format!("expected an integer, got {s:?}")),
        other => Err(format!("expected an integer, got {}", kind(other))),
    }
}

fn ranged<T: TryFrom<i128>>(v: &Value) -> R<T> {
    let i = int(v)?;
    T::try_from(i).map_err(|_| format!("integer {i} out of range"))
}

fn float(v: &Value) -> R<f64> {
    match v {
        Value::Void => Ok(0.0),
        other => other.as_f64().ok_or_else(|| format!("expected a number, got {}", kind(other))),
    }
}

/// Writes a scalar, range-checking integers.
pub(crate) fn write_prim(out: &mut Vec<u8>, p: Prim, v: &Value) -> R<()> {
    use Endian::{Big, Little};
    match p {
        Prim::Bool => out.put_bool(match v {
            Value::Bool(b) => *b,
            other => int(other)? != 0,
        }),
        Prim::U8 => out.put_u8(ranged(v)?),
        Prim::I8 => out.put_u8(ranged::<i8>(v)? as u8),
        Prim::U16(Little) => out.put_u16_le(ranged(v)?),
        Prim::U16(Big) => out.put_u16_be(ranged(v)?),
        Prim::I16(Little) => out.put_u16_le(ranged::<i16>(v)? as u16),
        Prim::I16(Big) => out.put_u16_be(ranged::<i16>(v)? as u16),
        Prim::U32(Little) => out.put_u32_le(ranged(v)?),
        Prim::U32(Big) => out.put_u32_be(ranged(v)?),
        Prim::I32(Little) => out.put_i32_le(ranged(v)?),
        Prim::I32(Big) => out.put_i32_be(ranged(v)?),
        Prim::U64(Little) => out.put_u64_le(ranged(v)?),
        Prim::U64(Big) => out.put_u64_be(ranged(v)?),
        Prim::I64(Little) => out.put_i64_le(ranged(v)?),
        Prim::I64(Big) => out.put_i64_be(ranged(v)?),
        Prim::F32(Little) => out.put_f32_le(float(v)? as f32),
        Prim::F32(Big) => out.put_bytes(&(float(v)? as f32).to_be_bytes()),
        Prim::F64(Little) => out.put_bytes(&float(v)?.to_le_bytes()),
        Prim::F64(Big) => out.put_bytes(&float(v)?.to_be_bytes()),
        // ProtoDef's `varint` also carries negative i32s (two's complement) in a few fields.
        Prim::VarU32 => out.put_var_u32(match int(v)? {
            i @ -2147483648..0 => i as i32 as u32,
            i => u32::try_from(i).map_err(|_| format!("integer {i} out of range"))?,
        }),
        Prim::VarU64 => out.put_var_u64(match int(v)? {
            i @ i128::MIN..0 => i64::try_from(i).map_err(|_| format!("integer {i} out of range"))? as u64,
            i => u64::try_from(i).map_err(|_| format!("integer {i} out of range"))?,
        }),
        Prim::VarU128 => {
            let mut x: u128 = match v {
                Value::Str(s) => s.parse().map_err(|_| format!("expected an integer, got {s:?}"))?,
                other => u128::try_from(int(other)?).map_err(|_| "negative varint128".to_owned())?,
            };
            loop {
                let b = (x & 0x7f) as u8;
                x >>= 7;
                if x == 0 {
                    out.put_u8(b);
                    break;
                }
                out.put_u8(b | 0x80);
            }
        }
        // Older item stacks carry block state hashes (u32) in a `zigzag32`: two's complement.
        Prim::VarI32 => out.put_var_i32(match int(v)? {
            i @ 0x8000_0000..=0xFFFF_FFFF => i as u32 as i32,
            i => i32::try_from(i).map_err(|_| format!("integer {i} out of range"))?,
        }),
        Prim::VarI64 => out.put_var_i64(ranged(v)?),
    }
    Ok(())
}

/// Writes a canonical UUID string as two little-endian u64 halves (vanilla order).
fn write_uuid(out: &mut Vec<u8>, v: &Value) -> R<()> {
    let n = match v {
        // "" is what a `Default` typed struct holds: the nil UUID.
        Value::Void => 0,
        Value::Str(s) if s.is_empty() => 0,
        Value::Str(s) => parse_uuid(s).ok_or_else(|| format!("bad UUID {s:?}"))?,
        other => return Err(format!("expected a UUID string, got {}", kind(other))),
    };
    out.put_u64_le((n >> 64) as u64);
    out.put_u64_le(n as u64);
    Ok(())
}

/// Parses `8-4-4-4-12` (or bare 32-digit) hex text.
pub(crate) fn parse_uuid(s: &str) -> Option<u128> {
    let hex: String = s.chars().filter(|c| *c != '-').collect();
    if hex.len() != 32 {
        return None;
    }
    u128::from_str_radix(&hex, 16).ok()
}
