//! Strict typed views: every field a view names must exist in the version's definition.
//!
//! A typed view decodes by field name, so a field the definition lacks would silently keep its
//! default (and encode into nothing). [`Protocol::check_view`](super::Protocol::check_view)
//! catches that at load time instead: it builds a *probe* of the view — every option present,
//! every list holding one element, every field set — serializes it, brings it to the version's
//! layout (as encoding would) and walks it against the packet's type. Any field name the type
//! does not declare (in any switch branch) and any shape mismatch (a list where the definition
//! has a container, …) is reported with its path.

use serde::de::{self, DeserializeOwned, DeserializeSeed, IntoDeserializer, Visitor};
use serde::forward_to_deserialize_any;

use super::read::MAX_DEPTH;
use super::schema::{Field, Schema, Ty};
use super::serde_value::{SerdeError, to_value};
use super::value::Value;

/// Nesting at which probes stop adding optional or repeated content (recursive views).
const PROBE_DEPTH: usize = 24;

/// A fully populated instance of `T`, as a value tree (see the module docs).
pub(crate) fn probe<T: DeserializeOwned + serde::Serialize>() -> Result<Value, SerdeError> {
    // Flattened fields are only reachable through map keys, which the probe learns from the
    // previous round's serialization; a few rounds reach a fixed point.
    let mut template = Value::Void;
    for _ in 0..6 {
        let t = T::deserialize(Probe { template: &template, depth: 0 })?;
        let v = to_value(&t)?;
        if v == template {
            break;
        }
        template = v;
    }
    Ok(template)
}

/// Deserializer that answers every request with a populated default.
#[derive(Clone, Copy)]
struct Probe<'t> {
    /// What the previous round produced here: the keys to offer a flattening `deserialize_map`.
    template: &'t Value,
    depth: usize,
}

static VOID: Value = Value::Void;
/// What a bitfield member is, for the walk: a number.
static BITFIELD_PART: Ty = Ty::Prim(super::schema::Prim::U64(super::schema::Endian::Little));

impl<'t> Probe<'t> {
    fn child(self, template: Option<&'t Value>) -> Self {
        Probe { template: template.unwrap_or(&VOID), depth: self.depth + 1 }
    }

    fn deep(self) -> bool {
        self.depth > PROBE_DEPTH
    }
}

impl<'de, 't> de::Deserializer<'de> for Probe<'t> {
    type Error = SerdeError;

    /// Untyped sub-trees (`Value` fields) stay absent.
    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, SerdeError> {
        visitor.visit_unit()
    }
    fn deserialize_bool<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, SerdeError> {
        visitor.visit_bool(false)
    }
    fn deserialize_i8<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, SerdeError> {
        visitor.visit_i8(0)
    }
    fn deserialize_i16<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, SerdeError> {
        visitor.visit_i16(0)
    }
    fn deserialize_i32<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, SerdeError> {
        visitor.visit_i32(0)
    }
    fn deserialize_i64<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, SerdeError> {
        visitor.visit_i64(0)
    }
    fn deserialize_u8<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, SerdeError> {
        visitor.visit_u8(0)
    }
    fn deserialize_u16<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, SerdeError> {
        visitor.visit_u16(0)
    }
    fn deserialize_u32<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, SerdeError> {
        visitor.visit_u32(0)
    }
    fn deserialize_u64<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, SerdeError> {
        visitor.visit_u64(0)
    }
    fn deserialize_f32<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, SerdeError> {
        visitor.visit_f32(0.0)
    }
    fn deserialize_f64<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, SerdeError> {
        visitor.visit_f64(0.0)
    }
    fn deserialize_char<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, SerdeError> {
        visitor.visit_char('a')
    }
    fn deserialize_str<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, SerdeError> {
        visitor.visit_str("")
    }
    fn deserialize_string<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, SerdeError> {
        visitor.visit_string(String::new())
    }
    fn deserialize_bytes<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, SerdeError> {
        visitor.visit_bytes(&[])
    }
    fn deserialize_byte_buf<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, SerdeError> {
        visitor.visit_byte_buf(Vec::new())
    }
    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, SerdeError> {
        if self.deep() { visitor.visit_none() } else { visitor.visit_some(self.child(Some(self.template))) }
    }
    fn deserialize_unit<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, SerdeError> {
        visitor.visit_unit()
    }
    fn deserialize_unit_struct<V: Visitor<'de>>(self, _: &'static str, visitor: V) -> Result<V::Value, SerdeError> {
        visitor.visit_unit()
    }
    fn deserialize_newtype_struct<V: Visitor<'de>>(self, _: &'static str, visitor: V) -> Result<V::Value, SerdeError> {
        visitor.visit_newtype_struct(self)
    }
    fn deserialize_seq<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, SerdeError> {
        let n = usize::from(!self.deep());
        let first = match self.template {
            Value::Array(items) => items.first(),
            _ => None,
        };
        visitor.visit_seq(ProbeSeq { probe: self.child(first), left: n })
    }
    fn deserialize_tuple<V: Visitor<'de>>(self, len: usize, visitor: V) -> Result<V::Value, SerdeError> {
        visitor.visit_seq(ProbeSeq { probe: self.child(None), left: len })
    }
    fn deserialize_tuple_struct<V: Visitor<'de>>(
        self,
        _: &'static str,
        len: usize,
        visitor: V,
    ) -> Result<V::Value, SerdeError> {
        self.deserialize_tuple(len, visitor)
    }
    /// Real maps stay empty; a flattening struct gets the keys its last serialization had.
    fn deserialize_map<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, SerdeError> {
        let fields: &[(String, Value)] = match self.template {
            Value::Object(f) => f,
            _ => &[],
        };
        visitor.visit_map(ProbeMap { probe: self, keys: fields.iter().map(|(k, v)| (k.as_str(), Some(v))).collect() })
    }
    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _: &'static str,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, SerdeError> {
        let keys = fields.iter().map(|f| (*f, self.template.get(f))).collect();
        visitor.visit_map(ProbeMap { probe: self, keys })
    }
    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _: &'static str,
        variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, SerdeError> {
        let first = variants.first().copied().ok_or_else(|| SerdeError("enum without variants".into()))?;
        visitor.visit_enum(ProbeEnum { probe: self, variant: first })
    }
    fn deserialize_identifier<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, SerdeError> {
        visitor.visit_str("")
    }
    fn deserialize_ignored_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, SerdeError> {
        visitor.visit_unit()
    }
    forward_to_deserialize_any! { i128 u128 }
}

struct ProbeSeq<'t> {
    probe: Probe<'t>,
    left: usize,
}

impl<'de, 't> de::SeqAccess<'de> for ProbeSeq<'t> {
    type Error = SerdeError;
    fn next_element_seed<S: DeserializeSeed<'de>>(&mut self, seed: S) -> Result<Option<S::Value>, SerdeError> {
        if self.left == 0 {
            return Ok(None);
        }
        self.left -= 1;
        seed.deserialize(self.probe).map(Some)
    }
}

struct ProbeMap<'t> {
    probe: Probe<'t>,
    /// Keys still to offer, each with its template.
    keys: std::collections::VecDeque<(&'t str, Option<&'t Value>)>,
}

impl<'de, 't> de::MapAccess<'de> for ProbeMap<'t> {
    type Error = SerdeError;
    fn next_key_seed<K: DeserializeSeed<'de>>(&mut self, seed: K) -> Result<Option<K::Value>, SerdeError> {
        match self.keys.front() {
            Some((k, _)) => seed.deserialize(IntoDeserializer::<SerdeError>::into_deserializer(*k)).map(Some),
            None => Ok(None),
        }
    }
    fn next_value_seed<S: DeserializeSeed<'de>>(&mut self, seed: S) -> Result<S::Value, SerdeError> {
        let (_, template) = self.keys.pop_front().ok_or_else(|| SerdeError("value without key".into()))?;
        seed.deserialize(self.probe.child(template))
    }
}

struct ProbeEnum<'t> {
    probe: Probe<'t>,
    variant: &'static str,
}

impl<'de, 't> de::EnumAccess<'de> for ProbeEnum<'t> {
    type Error = SerdeError;
    type Variant = Probe<'t>;
    fn variant_seed<S: DeserializeSeed<'de>>(self, seed: S) -> Result<(S::Value, Probe<'t>), SerdeError> {
        let v = seed.deserialize(IntoDeserializer::<SerdeError>::into_deserializer(self.variant))?;
        Ok((v, self.probe.child(None)))
    }
}

impl<'de, 't> de::VariantAccess<'de> for Probe<'t> {
    type Error = SerdeError;
    fn unit_variant(self) -> Result<(), SerdeError> {
        Ok(())
    }
    fn newtype_variant_seed<S: DeserializeSeed<'de>>(self, seed: S) -> Result<S::Value, SerdeError> {
        seed.deserialize(self)
    }
    fn tuple_variant<V: Visitor<'de>>(self, len: usize, visitor: V) -> Result<V::Value, SerdeError> {
        de::Deserializer::deserialize_tuple(self, len, visitor)
    }
    fn struct_variant<V: Visitor<'de>>(
        self,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, SerdeError> {
        de::Deserializer::deserialize_struct(self, "", fields, visitor)
    }
}

// ---------------------------------------------------------------------------------------------
// Walking a value against a type
// ---------------------------------------------------------------------------------------------

/// Every place where `v` does not fit `ty`: unknown field names and shape mismatches.
pub(crate) fn mismatches(schema: &Schema, ty: &Ty, v: &Value) -> Vec<String> {
    let mut out = Vec::new();
    fits(schema, ty, v, "", 0, &mut out);
    out
}

fn join(path: &str, field: &str) -> String {
    if path.is_empty() { field.to_owned() } else { format!("{path}.{field}") }
}

/// What `v` is, in the checks' words (an array is a list, as the definitions call it).
fn shape(v: &Value) -> &'static str {
    match v {
        Value::Array(_) => "a list",
        other => super::write::kind(other),
    }
}

/// Appends to `out` why `v` does not fit `ty`; returns whether it fits.
fn fits(schema: &Schema, ty: &Ty, v: &Value, path: &str, depth: usize, out: &mut Vec<String>) -> bool {
    if depth > MAX_DEPTH || matches!(v, Value::Void) {
        return true;
    }
    let mut wrong = |what: &str| {
        out.push(format!("`{path}`: the definition has {what}, the view has {}", shape(v)));
        false
    };
    let number = matches!(v, Value::Int(_) | Value::UInt(_) | Value::Float(_) | Value::Bool(_));
    match ty {
        Ty::Void => wrong("nothing"),
        Ty::Ref(i) => match schema.types.get(*i) {
            Some(t) => fits(schema, t, v, path, depth + 1, out),
            None => true,
        },
        Ty::Prim(_) | Ty::CountFor { .. } | Ty::ByteRot => {
            number || matches!(v, Value::Str(s) if s.parse::<i128>().is_ok()) || wrong("a number")
        }
        Ty::Mapper { .. } => number || matches!(v, Value::Str(_)) || wrong("a mapped name"),
        Ty::PString { .. } | Ty::Uuid | Ty::EnumSizeBasedOnValuesLen => matches!(v, Value::Str(_)) || wrong("a string"),
        Ty::Buffer(_) | Ty::RestBuffer => {
            matches!(v, Value::Bytes(_) | Value::Str(_))
                || matches!(v, Value::Array(a) if a.iter().all(|x| x.as_u64().is_some()))
                || wrong("bytes")
        }
        Ty::Nbt | Ty::LNbt => true,
        Ty::NbtLoop => matches!(v, Value::Array(_)) || wrong("a list of NBT"),
        Ty::Option(inner) | Ty::OptionalOnRemaining(inner) => fits(schema, inner, v, path, depth + 1, out),
        Ty::Encapsulated { inner, .. } => fits(schema, inner, v, path, depth + 1, out),
        Ty::Array { elem, .. }
        | Ty::MaybeIncompleteArray { elem, .. }
        | Ty::EndOfArray(elem)
        | Ty::EntityMetadataLoop { elem, .. } => match v {
            Value::Array(items) => {
                let mut ok = true;
                for (i, it) in items.iter().enumerate() {
                    ok &= fits(schema, elem, it, &format!("{path}[{i}]"), depth + 1, out);
                }
                ok
            }
            // `Vec<u8>` views of byte arrays.
            Value::Bytes(_) => true,
            _ => wrong("a list"),
        },
        Ty::Bitflags { flags, .. } => match v {
            Value::Object(fields) => {
                let mut ok = true;
                for (k, _) in fields {
                    if k != "_value" && !flags.iter().any(|f| f.0 == *k) {
                        out.push(format!("`{}`: no such flag in the definition", join(path, k)));
                        ok = false;
                    }
                }
                ok
            }
            Value::Array(names) => {
                let mut ok = true;
                for n in names {
                    match n.as_str() {
                        Some(n) if n.is_empty() || flags.iter().any(|f| f.0 == n) => {}
                        _ => {
                            out.push(format!("`{path}`: {n:?} is not a flag of the definition"));
                            ok = false;
                        }
                    }
                }
                ok
            }
            _ => number || wrong("flags"),
        },
        Ty::Bitfield(parts) => match v {
            Value::Object(fields) => {
                let mut ok = true;
                for (k, _) in fields {
                    if !parts.iter().any(|p| p.0 == *k) {
                        out.push(format!("`{}`: no such field in the definition", join(path, k)));
                        ok = false;
                    }
                }
                ok
            }
            _ => wrong("a bitfield object"),
        },
        Ty::Container(fields) => match v {
            Value::Object(given) => {
                let mut ok = true;
                for (k, x) in given {
                    let candidates = field_types(schema, fields, k, 0);
                    if candidates.is_empty() {
                        out.push(format!("`{}`: no such field in the definition", join(path, k)));
                        ok = false;
                        continue;
                    }
                    ok &= fits_any(schema, &candidates, x, &join(path, k), depth, out);
                }
                ok
            }
            _ => wrong("a container"),
        },
        Ty::Switch { cases, default, .. } => {
            let mut candidates: Vec<&Ty> = cases.iter().map(|(_, t)| t).collect();
            candidates.push(default);
            // An absent branch (void) accepts nothing but absence; a value must fit a real one.
            candidates.retain(|t| !matches!(t, Ty::Void));
            if candidates.is_empty() {
                return wrong("nothing");
            }
            fits_any(schema, &candidates, v, path, depth, out)
        }
        Ty::Unsupported(name) => wrong(&format!("the unsupported type {name}")),
        Ty::StackIdVariant(inner) => number || fits(schema, inner, v, path, depth + 1, out),
    }
}

/// `v` must fit one of `candidates`; if none fits, the first candidate's complaints are kept.
fn fits_any(schema: &Schema, candidates: &[&Ty], v: &Value, path: &str, depth: usize, out: &mut Vec<String>) -> bool {
    let mut first = None;
    for t in candidates {
        let mut errs = Vec::new();
        if fits(schema, t, v, path, depth + 1, &mut errs) {
            return true;
        }
        first.get_or_insert(errs);
    }
    out.extend(first.unwrap_or_default());
    false
}

/// The types a container field called `name` may have: a named field, or a field of any branch
/// of an anonymous switch or bitfield spread into the container.
fn field_types<'s>(schema: &'s Schema, fields: &'s [Field], name: &str, depth: usize) -> Vec<&'s Ty> {
    let mut out = Vec::new();
    if depth > MAX_DEPTH {
        return out;
    }
    for f in fields {
        match &f.name {
            Some(n) if n == name => out.push(&f.ty),
            Some(_) => {}
            None => spread_types(schema, &f.ty, name, depth + 1, &mut out),
        }
    }
    out
}

fn spread_types<'s>(schema: &'s Schema, ty: &'s Ty, name: &str, depth: usize, out: &mut Vec<&'s Ty>) {
    if depth > MAX_DEPTH {
        return;
    }
    match ty {
        Ty::Ref(i) => {
            if let Some(t) = schema.types.get(*i) {
                spread_types(schema, t, name, depth + 1, out);
            }
        }
        Ty::Container(fields) => out.extend(field_types(schema, fields, name, depth + 1)),
        Ty::Switch { cases, default, .. } => {
            for (_, t) in cases {
                spread_types(schema, t, name, depth + 1, out);
            }
            spread_types(schema, default, name, depth + 1, out);
        }
        Ty::Bitfield(parts) if parts.iter().any(|p| p.0 == name) => out.push(&BITFIELD_PART),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::packets::{PlayerAuthInput, StartGame};

    #[test]
    fn probes_populate_options_lists_and_flattened_views() {
        let v = probe::<PlayerAuthInput>().expect("probe");
        let first = v.get("block_action").and_then(|b| match b {
            Value::Array(items) => items.first(),
            _ => None,
        });
        assert!(first.and_then(|a| a.get("position")).and_then(|p| p.get("x")).is_some(), "{v:?}");
        assert!(matches!(v.get("input_data"), Some(Value::Array(a)) if a.len() == 1), "{v:?}");
        // StartGame flattens its other fields into `rest`: its named fields are still probed.
        let v = probe::<StartGame>().expect("probe");
        let rule = v.get("gamerules").and_then(|g| match g {
            Value::Array(items) => items.first(),
            _ => None,
        });
        assert!(rule.and_then(|r| r.get("editable")).is_some(), "{v:?}");
        assert!(v.get("player_position").and_then(|p| p.get("z")).is_some());
    }
}
