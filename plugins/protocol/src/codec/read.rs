//! The decoding half of the interpreter.

use super::nbt::{self, Flavour};
use std::borrow::Cow;

use super::schema::{CaseKey, Compare, Count, Endian, Field, FieldPath, Prim, Schema, Ty};
use super::value::Value;
use crate::io::{ReadError, Reader};

/// Deepest type nesting followed before giving up (hostile recursive data).
pub(crate) const MAX_DEPTH: usize = 96;
/// Hard cap on any element count, matching ProtoDef's "abnormally large" check.
const MAX_COUNT: u64 = 0xff_ffff;

/// One step of the field path reported in errors.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Seg<'s> {
    Field(&'s str),
    Index(usize),
}

/// Renders a path like `transaction.actions[2].slot`.
pub(crate) fn render_path(path: &[Seg<'_>]) -> String {
    let mut s = String::new();
    for seg in path {
        match seg {
            Seg::Field(f) => {
                if !s.is_empty() {
                    s.push('.');
                }
                s.push_str(f);
            }
            Seg::Index(i) => s.push_str(&format!("[{i}]")),
        }
    }
    s
}

/// Decoder state for one packet.
pub(crate) struct Decoder<'s, 'b> {
    pub schema: &'s Schema,
    pub vars: &'s [(String, i64)],
    pub r: Reader<'b>,
    /// One field list per open (non-inlined) container, innermost last.
    scopes: Vec<Vec<(String, Value)>>,
    /// Where we are, for error messages; kept as the failing path when an error unwinds.
    pub path: Vec<Seg<'s>>,
    depth: usize,
}

type R<T> = Result<T, ReadError>;

impl<'s, 'b> Decoder<'s, 'b> {
    /// A decoder over `bytes`.
    pub fn new(schema: &'s Schema, vars: &'s [(String, i64)], bytes: &'b [u8]) -> Self {
        Decoder { schema, vars, r: Reader::new(bytes), scopes: Vec::new(), path: Vec::new(), depth: 0 }
    }

    /// Decodes one value of `ty`.
    pub fn read(&mut self, ty: &'s Ty) -> R<Value> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(ReadError::Invalid(format!("types nested deeper than {MAX_DEPTH}")));
        }
        let v = self.read_inner(ty)?;
        self.depth -= 1;
        Ok(v)
    }

    fn read_inner(&mut self, ty: &'s Ty) -> R<Value> {
        Ok(match ty {
            Ty::Void => Value::Void,
            Ty::Prim(p) => read_prim(&mut self.r, *p)?,
            Ty::Ref(i) => {
                let t = self.schema.types.get(*i).ok_or_else(|| ReadError::Invalid("bad type index".into()))?;
                return self.read(t);
            }
            Ty::Container(fields) => self.container(fields)?,
            Ty::Switch { compare, cases, default } => {
                let t = self.pick_case(compare.as_ref(), cases, default)?;
                return self.read(t);
            }
            Ty::Option(inner) => {
                if self.r.bool()? {
                    self.read(inner)?
                } else {
                    Value::Void
                }
            }
            Ty::Array { count, elem } => {
                let n = self.count(count)?;
                self.array(n, elem)?
            }
            Ty::Buffer(count) => {
                let n = self.count(count)?;
                Value::Bytes(self.r.bytes(n)?.to_vec())
            }
            Ty::PString { count, latin1 } => {
                let at = self.r.position();
                let n = self.count(count)?;
                let b = self.r.bytes(n)?;
                if *latin1 {
                    Value::Str(b.iter().map(|&c| char::from(c)).collect())
                } else {
                    Value::Str(String::from_utf8(b.to_vec()).map_err(|_| ReadError::Utf8(at))?)
                }
            }
            Ty::Mapper { repr, entries, .. } => {
                let raw = self.read(repr)?;
                match raw.as_i64().and_then(|k| entries.binary_search_by_key(&k, |e| e.0).ok()) {
                    Some(i) => Value::Str(entries[i].1.clone()),
                    // Like ProtoDef, an unknown value passes through as the number.
                    None => raw,
                }
            }
            Ty::Bitflags { repr, flags } => {
                let raw = self.read(repr)?;
                let bits = raw.as_i64().map(|v| v as u64).or_else(|| raw.as_u64()).unwrap_or(0);
                let mut obj: Vec<(String, Value)> =
                    flags.iter().map(|(n, m)| (n.clone(), Value::Bool(*m != 0 && bits & m == *m))).collect();
                obj.push(("_value".to_owned(), raw));
                Value::Object(obj)
            }
            Ty::Bitfield(parts) => self.bitfield(parts)?,
            Ty::CountFor { repr, .. } => return self.read(repr),
            Ty::Encapsulated { len, inner } => self.encapsulated(len, inner)?,
            Ty::RestBuffer => Value::Bytes(self.r.rest().to_vec()),
            Ty::StackIdVariant(inner) => {
                let v = self.read(inner)?;
                match (v.get("type"), v.get("id")) {
                    (Some(Value::Str(t)), Some(id)) if t == super::schema::NET_STACK_ID => id.clone(),
                    _ => v,
                }
            }
            Ty::MaybeIncompleteArray { count, elem } => self.maybe_incomplete(count, elem)?,
            Ty::OptionalOnRemaining(inner) => {
                if self.r.is_empty() {
                    Value::Void
                } else {
                    return self.read(inner);
                }
            }
            Ty::EndOfArray(elem) => {
                let mut items = Vec::new();
                while !self.r.is_empty() {
                    items.push(self.read(elem)?);
                }
                Value::Array(items)
            }
            Ty::EntityMetadataLoop { elem, end } => {
                let mut items = Vec::new();
                while self.r.peek_u8()? != *end {
                    items.push(self.read(elem)?);
                }
                self.r.u8()?;
                Value::Array(items)
            }
            Ty::Nbt => Value::Nbt(nbt::read_root(&mut self.r, Flavour::Network)?),
            Ty::LNbt => Value::Nbt(nbt::read_root(&mut self.r, Flavour::Little)?),
            Ty::NbtLoop => {
                let mut items = Vec::new();
                while self.r.peek_u8()? != 0 {
                    items.push(Value::Nbt(nbt::read_root(&mut self.r, Flavour::Network)?));
                }
                self.r.u8()?;
                Value::Array(items)
            }
            Ty::Uuid => Value::Str(read_uuid(&mut self.r)?),
            Ty::ByteRot => Value::Float(f64::from(self.r.u8()?) * (360.0 / 256.0)),
            Ty::EnumSizeBasedOnValuesLen => {
                let n = self.lookup(&FieldPath { ups: 0, segs: vec!["values_len".into()] }).and_then(Value::as_u64);
                Value::Str(enum_size(n.unwrap_or(0)).to_owned())
            }
            Ty::Unsupported(name) => {
                return Err(ReadError::Invalid(format!("unsupported native type {name}")));
            }
        })
    }

    fn container(&mut self, fields: &'s [Field]) -> R<Value> {
        self.scopes.push(Vec::with_capacity(fields.len()));
        self.fields(fields)?;
        let fields = self.scopes.pop().unwrap_or_default();
        Ok(Value::Object(fields))
    }

    /// Reads `fields` into the innermost scope.
    fn fields(&mut self, fields: &'s [Field]) -> R<()> {
        for f in fields {
            let Some(name) = &f.name else {
                // ProtoDef inlines anonymous fields: a switch branch that is a container reads
                // its fields into this scope, where later fields (and its own switches, e.g. an
                // item's `extra` on `network_id`) see them.
                match self.inlined(&f.ty)? {
                    Some(inner) => {
                        self.depth += 1;
                        if self.depth > MAX_DEPTH {
                            return Err(ReadError::Invalid(format!("types nested deeper than {MAX_DEPTH}")));
                        }
                        self.fields(inner)?;
                        self.depth -= 1;
                    }
                    None => {
                        // An anonymous bitfield (or other object): spread it into this scope.
                        if let Value::Object(inner) = self.read(&f.ty)? {
                            self.scope()?.extend(inner);
                        }
                    }
                }
                continue;
            };
            self.path.push(Seg::Field(name));
            let v = self.read(&f.ty)?;
            self.path.pop();
            self.scope()?.push((name.clone(), v));
        }
        Ok(())
    }

    fn scope(&mut self) -> R<&mut Vec<(String, Value)>> {
        self.scopes.last_mut().ok_or_else(|| ReadError::Invalid("scope underflow".into()))
    }

    /// The fields an anonymous field contributes when its type (after references and the
    /// switch case chosen now) is a container; `None` for other types.
    fn inlined(&self, mut ty: &'s Ty) -> R<Option<&'s [Field]>> {
        for _ in 0..MAX_DEPTH {
            ty = match ty {
                Ty::Ref(i) => self.schema.types.get(*i).ok_or_else(|| ReadError::Invalid("bad type index".into()))?,
                Ty::Switch { compare, cases, default } => self.pick_case(compare.as_ref(), cases, default)?,
                Ty::Container(fields) => return Ok(Some(fields)),
                _ => return Ok(None),
            };
        }
        Ok(None)
    }

    /// Chooses the switch branch for the current scope. Comparing against a field that was not
    /// decoded is an error: it means the definition was misread, and guessing a branch would
    /// misread everything after it.
    fn pick_case(&self, compare: Option<&Compare>, cases: &'s [(CaseKey, Ty)], default: &'s Ty) -> R<&'s Ty> {
        let Some(c) = compare else { return Ok(default) };
        let v = compare_value(c, |p| self.lookup(p))
            .ok_or_else(|| ReadError::Invalid(format!("switch compares `{c}`, which is not decoded")))?;
        Ok(cases.iter().find(|(k, _)| case_matches(k, &v, self.vars)).map_or(default, |(_, t)| t))
    }

    /// Resolves a compareTo/count path against the already decoded fields.
    fn lookup(&self, p: &FieldPath) -> Option<&Value> {
        let scope = self.scopes.get(self.scopes.len().checked_sub(1 + p.ups)?)?;
        let (first, rest) = p.segs.split_first()?;
        let mut v = scope.iter().rev().find(|(k, _)| k == first).map(|(_, v)| v)?;
        for s in rest {
            v = v.get(s)?;
        }
        Some(v)
    }

    fn count(&mut self, c: &'s Count) -> R<usize> {
        let n = match c {
            Count::Fixed(n) => return Ok(*n),
            Count::Prefixed(t) => {
                let v = self.read(t)?;
                v.as_u64().ok_or_else(|| ReadError::Invalid(format!("bad length {v:?}")))?
            }
            Count::Field(p) => self
                .lookup(p)
                .and_then(Value::as_u64)
                .ok_or_else(|| ReadError::Invalid(format!("count field `{p}` is not decoded")))?,
        };
        if n > MAX_COUNT {
            return Err(ReadError::TooLong { offset: self.r.position(), len: n, limit: MAX_COUNT });
        }
        // Every element takes at least one byte in practice, so a count above the remaining
        // input is garbage; checking here stops huge allocations.
        self.r.checked_len(n, 1)
    }

    fn array(&mut self, n: usize, elem: &'s Ty) -> R<Value> {
        let mut items = Vec::with_capacity(n.min(4096));
        for i in 0..n {
            self.path.push(Seg::Index(i));
            items.push(self.read(elem)?);
            self.path.pop();
        }
        Ok(Value::Array(items))
    }

    fn maybe_incomplete(&mut self, count: &'s Ty, elem: &'s Ty) -> R<Value> {
        let n = self.read(count)?.as_u64().unwrap_or(0).min(MAX_COUNT);
        let mut items = Vec::new();
        let mut i = 0;
        // The declared count is only an upper bound: stop at the end of input or a short element.
        while i < n && !self.r.is_empty() {
            let save = self.r.clone();
            let depth = self.depth;
            let path_len = self.path.len();
            let scopes_len = self.scopes.len();
            match self.read(elem) {
                Ok(v) => items.push(v),
                // Like bedrock-protocol, only a short read ends the list early.
                Err(ReadError::Eof { .. } | ReadError::TooLong { .. }) => {
                    self.r = save;
                    self.depth = depth;
                    self.path.truncate(path_len);
                    self.scopes.truncate(scopes_len);
                    break;
                }
                Err(e) => return Err(e),
            }
            i += 1;
        }
        Ok(Value::Array(items))
    }

    fn encapsulated(&mut self, len: &'s Ty, inner: &'s Ty) -> R<Value> {
        let n = self.read(len)?.as_u64().unwrap_or(0);
        if n == 0 {
            return Ok(Value::Void);
        }
        let n = self.r.checked_len(n, 1)?;
        let bytes = self.r.bytes(n)?;
        // Decode the payload from its own slice so it cannot run past the declared length.
        let outer = std::mem::replace(&mut self.r, Reader::new(bytes));
        let v = self.read(inner);
        let left = self.r.remaining();
        self.r = outer;
        // Bytes the definition did not account for mean it was read wrongly (e.g. an item whose
        // layout depends on a codec variable): an error, not a silently wrong value.
        if v.is_ok() && left > 0 {
            return Err(ReadError::Invalid(format!("{left} of {n} bytes left unread in a length-prefixed field")));
        }
        v
    }

    fn bitfield(&mut self, parts: &[(String, u32, bool)]) -> R<Value> {
        let total: u32 = parts.iter().map(|p| p.1).sum();
        let nbytes = total.div_ceil(8) as usize;
        if nbytes > 16 {
            return Err(ReadError::Invalid("bitfield wider than 128 bits".into()));
        }
        let bytes = self.r.bytes(nbytes)?;
        let mut acc: u128 = 0;
        for &b in bytes {
            acc = (acc << 8) | u128::from(b);
        }
        let mut left = (nbytes * 8) as u32;
        let mut obj = Vec::with_capacity(parts.len());
        for (name, size, signed) in parts {
            left -= size;
            let mask = (1u128 << size) - 1;
            let raw = ((acc >> left) & mask) as u64;
            let v = if *signed && raw >> (size - 1) & 1 == 1 {
                Value::Int((raw as i64).wrapping_sub(1i64.wrapping_shl(*size)))
            } else if *signed {
                Value::Int(raw as i64)
            } else {
                Value::UInt(raw)
            };
            obj.push((name.clone(), v));
        }
        Ok(Value::Object(obj))
    }
}

/// The value a switch compares: the field, or for `a || b` whether any field is truthy.
/// `None` when a field is missing.
pub(crate) fn compare_value<'v>(
    c: &Compare,
    lookup: impl Fn(&FieldPath) -> Option<&'v Value>,
) -> Option<Cow<'v, Value>> {
    match c {
        Compare::Field(p) => lookup(p).map(Cow::Borrowed),
        Compare::Any(paths) => {
            let mut any = false;
            for p in paths {
                any |= truthy(lookup(p)?);
            }
            Some(Cow::Owned(Value::Bool(any)))
        }
    }
}

/// JavaScript truthiness, as ProtoDef's compiled `||` sees it.
fn truthy(v: &Value) -> bool {
    match v {
        Value::Void => false,
        Value::Bool(b) => *b,
        Value::Int(i) => *i != 0,
        Value::UInt(u) => *u != 0,
        Value::Float(f) => *f != 0.0,
        Value::Str(s) => !s.is_empty(),
        _ => true,
    }
}

/// Whether a switch label matches a decoded value, with ProtoDef's loose JavaScript semantics:
/// booleans match `true`/`false` and `1`/`0`, and a negative label matches the unsigned 32-bit
/// value with the same bits (ProtoDef reads `varint` as a signed 32-bit number, e.g. `-2`).
pub(crate) fn case_matches(k: &CaseKey, v: &Value, vars: &[(String, i64)]) -> bool {
    if let Some(var) = &k.var {
        let target = vars.iter().find(|(n, _)| n == var).map(|(_, x)| *x);
        return target.is_some() && v.as_i64() == target;
    }
    match v {
        Value::Str(s) => *s == k.text,
        Value::Bool(b) => k.text == if *b { "true" } else { "false" } || k.num == Some(i64::from(*b)),
        Value::Int(_) | Value::UInt(_) | Value::Float(_) => match (k.num, k.text.as_str()) {
            (Some(n), _) => {
                v.as_i64() == Some(n)
                    || (n < 0 && v.as_u64().and_then(|u| u32::try_from(u).ok()).map(|u| i64::from(u as i32)) == Some(n))
            }
            (None, "true") => truthy(v),
            (None, "false") => !truthy(v),
            _ => false,
        },
        _ => false,
    }
}

/// `enum_size_based_on_values_len`: the width of command enum indices.
pub(crate) fn enum_size(values_len: u64) -> &'static str {
    if values_len <= 0x100 {
        "byte"
    } else if values_len <= 0x10000 {
        "short"
    } else {
        "int"
    }
}

/// Reads a scalar.
pub(crate) fn read_prim(r: &mut Reader<'_>, p: Prim) -> R<Value> {
    use Endian::{Big, Little};
    Ok(match p {
        Prim::Bool => Value::Bool(r.bool()?),
        Prim::U8 => Value::UInt(u64::from(r.u8()?)),
        Prim::I8 => Value::Int(i64::from(r.i8()?)),
        Prim::U16(Little) => Value::UInt(u64::from(r.u16_le()?)),
        Prim::U16(Big) => Value::UInt(u64::from(r.u16_be()?)),
        Prim::I16(Little) => Value::Int(i64::from(r.i16_le()?)),
        Prim::I16(Big) => Value::Int(i64::from(r.i16_be()?)),
        Prim::U32(Little) => Value::UInt(u64::from(r.u32_le()?)),
        Prim::U32(Big) => Value::UInt(u64::from(r.u32_be()?)),
        Prim::I32(Little) => Value::Int(i64::from(r.i32_le()?)),
        Prim::I32(Big) => Value::Int(i64::from(r.i32_be()?)),
        Prim::U64(Little) => Value::UInt(r.u64_le()?),
        Prim::U64(Big) => Value::UInt(r.u64_be()?),
        Prim::I64(Little) => Value::Int(r.i64_le()?),
        Prim::I64(Big) => Value::Int(r.i64_be()?),
        Prim::F32(Little) => Value::Float(f64::from(r.f32_le()?)),
        Prim::F32(Big) => Value::Float(f64::from(r.f32_be()?)),
        Prim::F64(Little) => Value::Float(r.f64_le()?),
        Prim::F64(Big) => Value::Float(r.f64_be()?),
        Prim::VarU32 => Value::UInt(u64::from(r.var_u32()?)),
        Prim::VarU64 => Value::UInt(r.var_u64()?),
        Prim::VarU128 => match read_var_u128(r)? {
            v if v <= u128::from(u64::MAX) => Value::UInt(v as u64),
            v => Value::Str(v.to_string()),
        },
        Prim::VarI32 => Value::Int(i64::from(r.var_i32()?)),
        Prim::VarI64 => Value::Int(r.var_i64()?),
    })
}

/// Unsigned LEB128 of up to 128 bits.
fn read_var_u128(r: &mut Reader<'_>) -> R<u128> {
    let at = r.position();
    let mut v: u128 = 0;
    for shift in (0..128).step_by(7) {
        let b = r.u8()?;
        v |= u128::from(b & 0x7f) << shift;
        if b & 0x80 == 0 {
            return Ok(v);
        }
    }
    Err(ReadError::VarIntTooLong(at))
}

/// Reads a UUID stored as two little-endian u64 halves (vanilla order) into canonical text.
fn read_uuid(r: &mut Reader<'_>) -> R<String> {
    let hi = r.u64_le()?;
    let lo = r.u64_le()?;
    Ok(format_uuid((u128::from(hi) << 64) | u128::from(lo)))
}

/// Canonical `8-4-4-4-12` lower-case text of a 128-bit UUID.
pub(crate) fn format_uuid(v: u128) -> String {
    let h = format!("{v:032x}");
    format!("{}-{}-{}-{}-{}", &h[0..8], &h[8..12], &h[12..16], &h[16..20], &h[20..32])
}
