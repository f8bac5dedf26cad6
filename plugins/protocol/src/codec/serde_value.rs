//! serde bridge between [`Value`] and typed packet structs.
//!
//! [`ValueDeserializer`] reads a typed struct out of a decoded `&Value` (unknown fields are
//! skipped, integers coerce to any width, `Void` is `None`/unit). [`ValueSerializer`] turns a
//! typed struct back into a `Value` for the encoder, which fills in whatever the struct omits.

use std::fmt;

use serde::de::{self, DeserializeSeed, Deserializer as _, IntoDeserializer, Visitor};
use serde::ser::{self, Serialize};

use super::value::Value;

/// Error raised by the serde bridge.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SerdeError(pub String);

impl fmt::Display for SerdeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for SerdeError {}

impl de::Error for SerdeError {
    fn custom<T: fmt::Display>(msg: T) -> Self {
        SerdeError(msg.to_string())
    }
}

impl ser::Error for SerdeError {
    fn custom<T: fmt::Display>(msg: T) -> Self {
        SerdeError(msg.to_string())
    }
}

type R<T> = Result<T, SerdeError>;

// ---------------------------------------------------------------------------------------------
// Deserializer
// ---------------------------------------------------------------------------------------------

/// A serde `Deserializer` over a borrowed [`Value`].
#[derive(Debug, Clone, Copy)]
pub struct ValueDeserializer<'de> {
    v: &'de Value,
}

impl<'de> ValueDeserializer<'de> {
    /// Wraps a value.
    pub fn new(v: &'de Value) -> Self {
        ValueDeserializer { v }
    }

    fn int<V: Visitor<'de>>(self, visitor: V) -> R<V::Value> {
        match self.v {
            Value::Int(i) => visitor.visit_i64(*i),
            Value::UInt(u) => visitor.visit_u64(*u),
            Value::Bool(b) => visitor.visit_u64(u64::from(*b)),
            // 64-bit values may arrive as decimal text (e.g. from JSON); parse them exactly.
            Value::Str(s) => match (s.parse::<i64>(), s.parse::<u64>()) {
                (Ok(i), _) => visitor.visit_i64(i),
                (_, Ok(u)) => visitor.visit_u64(u),
                _ => self.deserialize_any_inner(visitor),
            },
            _ => self.deserialize_any_inner(visitor),
        }
    }

    fn deserialize_any_inner<V: Visitor<'de>>(self, visitor: V) -> R<V::Value> {
        match self.v {
            Value::Void => visitor.visit_unit(),
            Value::Bool(b) => visitor.visit_bool(*b),
            Value::Int(i) => visitor.visit_i64(*i),
            Value::UInt(u) => visitor.visit_u64(*u),
            Value::Float(f) => visitor.visit_f64(*f),
            Value::Str(s) => visitor.visit_borrowed_str(s),
            Value::Bytes(b) => visitor.visit_borrowed_bytes(b),
            Value::Array(items) => visitor.visit_seq(Seq { it: items.iter() }),
            Value::Object(fields) => visitor.visit_map(Map { it: fields.iter(), pending: None }),
            // NBT travels through serde in its derived (externally tagged) form.
            Value::Nbt(n) => nbt_json(n)?.deserialize_any(visitor).map_err(de::Error::custom),
        }
    }
}

/// NBT as an owned serde tree (the value outlives no borrow, unlike a temporary `Value`).
fn nbt_json(n: &super::value::Nbt) -> R<serde_json::Value> {
    serde_json::to_value(n).map_err(|e| SerdeError(e.to_string()))
}

struct Seq<'de, I: Iterator<Item = &'de Value>> {
    it: I,
}

impl<'de, I: Iterator<Item = &'de Value>> de::SeqAccess<'de> for Seq<'de, I> {
    type Error = SerdeError;
    fn next_element_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> R<Option<T::Value>> {
        match self.it.next() {
            Some(v) => seed.deserialize(ValueDeserializer::new(v)).map(Some),
            None => Ok(None),
        }
    }
}

struct ByteSeq<'de> {
    it: std::slice::Iter<'de, u8>,
}

impl<'de> de::SeqAccess<'de> for ByteSeq<'de> {
    type Error = SerdeError;
    fn next_element_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> R<Option<T::Value>> {
        match self.it.next() {
            Some(b) => seed.deserialize((*b).into_deserializer()).map(Some),
            None => Ok(None),
        }
    }
}

struct Map<'de> {
    it: std::slice::Iter<'de, (String, Value)>,
    pending: Option<&'de Value>,
}

impl<'de> de::MapAccess<'de> for Map<'de> {
    type Error = SerdeError;
    fn next_key_seed<K: DeserializeSeed<'de>>(&mut self, seed: K) -> R<Option<K::Value>> {
        match self.it.next() {
            Some((k, v)) => {
                self.pending = Some(v);
                seed.deserialize(de::value::BorrowedStrDeserializer::new(k)).map(Some)
            }
            None => Ok(None),
        }
    }
    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> R<V::Value> {
        let v = self.pending.take().ok_or_else(|| SerdeError("value without key".into()))?;
        seed.deserialize(ValueDeserializer::new(v))
    }
}

struct Enum<'de> {
    variant: &'de str,
    value: Option<&'de Value>,
}

impl<'de> de::EnumAccess<'de> for Enum<'de> {
    type Error = SerdeError;
    type Variant = Self;
    fn variant_seed<V: DeserializeSeed<'de>>(self, seed: V) -> R<(V::Value, Self)> {
        let v = seed.deserialize(de::value::BorrowedStrDeserializer::<SerdeError>::new(self.variant))?;
        Ok((v, self))
    }
}

impl<'de> de::VariantAccess<'de> for Enum<'de> {
    type Error = SerdeError;
    fn unit_variant(self) -> R<()> {
        Ok(())
    }
    fn newtype_variant_seed<T: DeserializeSeed<'de>>(self, seed: T) -> R<T::Value> {
        seed.deserialize(ValueDeserializer::new(self.value.unwrap_or(&Value::Void)))
    }
    fn tuple_variant<V: Visitor<'de>>(self, _len: usize, visitor: V) -> R<V::Value> {
        de::Deserializer::deserialize_seq(ValueDeserializer::new(self.value.unwrap_or(&Value::Void)), visitor)
    }
    fn struct_variant<V: Visitor<'de>>(self, _fields: &'static [&'static str], visitor: V) -> R<V::Value> {
        de::Deserializer::deserialize_map(ValueDeserializer::new(self.value.unwrap_or(&Value::Void)), visitor)
    }
}

macro_rules! forward_int {
    ($($m:ident)*) => {$(
        fn $m<V: Visitor<'de>>(self, visitor: V) -> R<V::Value> {
            self.int(visitor)
        }
    )*};
}

impl<'de> de::Deserializer<'de> for ValueDeserializer<'de> {
    type Error = SerdeError;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> R<V::Value> {
        self.deserialize_any_inner(visitor)
    }

    forward_int! { deserialize_i8 deserialize_i16 deserialize_i32 deserialize_i64 deserialize_u8
    deserialize_u16 deserialize_u32 deserialize_u64 deserialize_i128 deserialize_u128 }

    fn deserialize_f32<V: Visitor<'de>>(self, visitor: V) -> R<V::Value> {
        self.deserialize_f64(visitor)
    }
    fn deserialize_f64<V: Visitor<'de>>(self, visitor: V) -> R<V::Value> {
        match self.v.as_f64() {
            Some(f) => visitor.visit_f64(f),
            None => self.deserialize_any_inner(visitor),
        }
    }
    fn deserialize_bool<V: Visitor<'de>>(self, visitor: V) -> R<V::Value> {
        match self.v {
            Value::Int(_) | Value::UInt(_) => visitor.visit_bool(self.v.as_i64() != Some(0)),
            _ => self.deserialize_any_inner(visitor),
        }
    }
    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> R<V::Value> {
        match self.v {
            Value::Void => visitor.visit_none(),
            _ => visitor.visit_some(self),
        }
    }
    fn deserialize_seq<V: Visitor<'de>>(self, visitor: V) -> R<V::Value> {
        match self.v {
            Value::Bytes(b) => visitor.visit_seq(ByteSeq { it: b.iter() }),
            Value::Void => visitor.visit_seq(Seq { it: [].iter() }),
            _ => self.deserialize_any_inner(visitor),
        }
    }
    fn deserialize_tuple<V: Visitor<'de>>(self, _len: usize, visitor: V) -> R<V::Value> {
        self.deserialize_seq(visitor)
    }
    fn deserialize_tuple_struct<V: Visitor<'de>>(self, _n: &'static str, _len: usize, visitor: V) -> R<V::Value> {
        self.deserialize_seq(visitor)
    }
    fn deserialize_map<V: Visitor<'de>>(self, visitor: V) -> R<V::Value> {
        match self.v {
            // An absent container (e.g. an untaken switch) reads as an empty one.
            Value::Void => visitor.visit_map(Map { it: [].iter(), pending: None }),
            _ => self.deserialize_any_inner(visitor),
        }
    }
    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _fields: &'static [&'static str],
        visitor: V,
    ) -> R<V::Value> {
        self.deserialize_map(visitor)
    }
    fn deserialize_newtype_struct<V: Visitor<'de>>(self, _name: &'static str, visitor: V) -> R<V::Value> {
        visitor.visit_newtype_struct(self)
    }
    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _variants: &'static [&'static str],
        visitor: V,
    ) -> R<V::Value> {
        match self.v {
            Value::Str(s) => visitor.visit_enum(Enum { variant: s, value: None }),
            Value::Object(f) if f.len() == 1 => visitor.visit_enum(Enum { variant: &f[0].0, value: Some(&f[0].1) }),
            Value::Nbt(n) => nbt_json(n)?.deserialize_enum(_name, _variants, visitor).map_err(de::Error::custom),
            _ => Err(SerdeError(format!("expected an enum, got {:?}", self.v))),
        }
    }
    fn deserialize_str<V: Visitor<'de>>(self, visitor: V) -> R<V::Value> {
        match self.v {
            Value::Int(i) => visitor.visit_string(i.to_string()),
            Value::UInt(u) => visitor.visit_string(u.to_string()),
            _ => self.deserialize_any_inner(visitor),
        }
    }
    fn deserialize_string<V: Visitor<'de>>(self, visitor: V) -> R<V::Value> {
        self.deserialize_str(visitor)
    }
    fn deserialize_bytes<V: Visitor<'de>>(self, visitor: V) -> R<V::Value> {
        self.deserialize_any_inner(visitor)
    }
    fn deserialize_byte_buf<V: Visitor<'de>>(self, visitor: V) -> R<V::Value> {
        self.deserialize_any_inner(visitor)
    }
    fn deserialize_char<V: Visitor<'de>>(self, visitor: V) -> R<V::Value> {
        self.deserialize_any_inner(visitor)
    }
    fn deserialize_unit<V: Visitor<'de>>(self, visitor: V) -> R<V::Value> {
        visitor.visit_unit()
    }
    fn deserialize_unit_struct<V: Visitor<'de>>(self, _name: &'static str, visitor: V) -> R<V::Value> {
        visitor.visit_unit()
    }
    fn deserialize_identifier<V: Visitor<'de>>(self, visitor: V) -> R<V::Value> {
        self.deserialize_any_inner(visitor)
    }
    fn deserialize_ignored_any<V: Visitor<'de>>(self, visitor: V) -> R<V::Value> {
        visitor.visit_unit()
    }
}

// ---------------------------------------------------------------------------------------------
// Serializer
// ---------------------------------------------------------------------------------------------

/// Serializes any `Serialize` type into a [`Value`].
pub fn to_value<T: Serialize + ?Sized>(v: &T) -> R<Value> {
    v.serialize(ValueSerializer)
}

/// A serde `Serializer` producing a [`Value`]. `None` and unit become [`Value::Void`], maps and
/// structs become ordered objects, unit enum variants become strings (mapper names).
#[derive(Debug, Clone, Copy)]
pub struct ValueSerializer;

/// Collects sequence elements.
pub struct SeqSer(Vec<Value>, Option<String>);
/// Collects struct/map fields.
pub struct MapSer(Vec<(String, Value)>, Option<String>, Option<String>);

impl ser::Serializer for ValueSerializer {
    type Ok = Value;
    type Error = SerdeError;
    type SerializeSeq = SeqSer;
    type SerializeTuple = SeqSer;
    type SerializeTupleStruct = SeqSer;
    type SerializeTupleVariant = SeqSer;
    type SerializeMap = MapSer;
    type SerializeStruct = MapSer;
    type SerializeStructVariant = MapSer;

    fn serialize_bool(self, v: bool) -> R<Value> {
        Ok(Value::Bool(v))
    }
    fn serialize_i8(self, v: i8) -> R<Value> {
        Ok(Value::Int(v.into()))
    }
    fn serialize_i16(self, v: i16) -> R<Value> {
        Ok(Value::Int(v.into()))
    }
    fn serialize_i32(self, v: i32) -> R<Value> {
        Ok(Value::Int(v.into()))
    }
    fn serialize_i64(self, v: i64) -> R<Value> {
        Ok(Value::Int(v))
    }
    fn serialize_u8(self, v: u8) -> R<Value> {
        Ok(Value::UInt(v.into()))
    }
    fn serialize_u16(self, v: u16) -> R<Value> {
        Ok(Value::UInt(v.into()))
    }
    fn serialize_u32(self, v: u32) -> R<Value> {
        Ok(Value::UInt(v.into()))
    }
    fn serialize_u64(self, v: u64) -> R<Value> {
        Ok(Value::UInt(v))
    }
    fn serialize_f32(self, v: f32) -> R<Value> {
        Ok(Value::Float(v.into()))
    }
    fn serialize_f64(self, v: f64) -> R<Value> {
        Ok(Value::Float(v))
    }
    fn serialize_char(self, v: char) -> R<Value> {
        Ok(Value::Str(v.to_string()))
    }
    fn serialize_str(self, v: &str) -> R<Value> {
        Ok(Value::Str(v.to_owned()))
    }
    fn serialize_bytes(self, v: &[u8]) -> R<Value> {
        Ok(Value::Bytes(v.to_vec()))
    }
    fn serialize_none(self) -> R<Value> {
        Ok(Value::Void)
    }
    fn serialize_some<T: Serialize + ?Sized>(self, v: &T) -> R<Value> {
        v.serialize(self)
    }
    fn serialize_unit(self) -> R<Value> {
        Ok(Value::Void)
    }
    fn serialize_unit_struct(self, _name: &'static str) -> R<Value> {
        Ok(Value::Void)
    }
    fn serialize_unit_variant(self, _name: &'static str, _i: u32, variant: &'static str) -> R<Value> {
        Ok(Value::Str(variant.to_owned()))
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(self, _name: &'static str, v: &T) -> R<Value> {
        v.serialize(self)
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        _i: u32,
        variant: &'static str,
        v: &T,
    ) -> R<Value> {
        Ok(Value::Object(vec![(variant.to_owned(), v.serialize(self)?)]))
    }
    fn serialize_seq(self, len: Option<usize>) -> R<SeqSer> {
        Ok(SeqSer(Vec::with_capacity(len.unwrap_or(0)), None))
    }
    fn serialize_tuple(self, len: usize) -> R<SeqSer> {
        self.serialize_seq(Some(len))
    }
    fn serialize_tuple_struct(self, _name: &'static str, len: usize) -> R<SeqSer> {
        self.serialize_seq(Some(len))
    }
    fn serialize_tuple_variant(self, _n: &'static str, _i: u32, variant: &'static str, len: usize) -> R<SeqSer> {
        Ok(SeqSer(Vec::with_capacity(len), Some(variant.to_owned())))
    }
    fn serialize_map(self, len: Option<usize>) -> R<MapSer> {
        Ok(MapSer(Vec::with_capacity(len.unwrap_or(0)), None, None))
    }
    fn serialize_struct(self, _name: &'static str, len: usize) -> R<MapSer> {
        Ok(MapSer(Vec::with_capacity(len), None, None))
    }
    fn serialize_struct_variant(self, _n: &'static str, _i: u32, variant: &'static str, len: usize) -> R<MapSer> {
        Ok(MapSer(Vec::with_capacity(len), None, Some(variant.to_owned())))
    }
}

fn wrap_variant(variant: Option<String>, v: Value) -> Value {
    match variant {
        Some(name) => Value::Object(vec![(name, v)]),
        None => v,
    }
}

impl ser::SerializeSeq for SeqSer {
    type Ok = Value;
    type Error = SerdeError;
    fn serialize_element<T: Serialize + ?Sized>(&mut self, v: &T) -> R<()> {
        self.0.push(to_value(v)?);
        Ok(())
    }
    fn end(self) -> R<Value> {
        Ok(wrap_variant(self.1, Value::Array(self.0)))
    }
}

/// Tuples, tuple structs and tuple variants serialize as sequences.
macro_rules! seq_like {
    ($($trait:ident::$method:ident),*) => {$(
        impl ser::$trait for SeqSer {
            type Ok = Value;
            type Error = SerdeError;
            fn $method<T: Serialize + ?Sized>(&mut self, v: &T) -> R<()> {
                ser::SerializeSeq::serialize_element(self, v)
            }
            fn end(self) -> R<Value> {
                ser::SerializeSeq::end(self)
            }
        }
    )*};
}
seq_like!(
    SerializeTuple::serialize_element,
    SerializeTupleStruct::serialize_field,
    SerializeTupleVariant::serialize_field
);

impl ser::SerializeMap for MapSer {
    type Ok = Value;
    type Error = SerdeError;
    fn serialize_key<T: Serialize + ?Sized>(&mut self, key: &T) -> R<()> {
        self.1 = Some(match to_value(key)? {
            Value::Str(s) => s,
            Value::Int(i) => i.to_string(),
            Value::UInt(u) => u.to_string(),
            other => {
                return Err(SerdeError(format!("map key must be a string, got {other:?}")));
            }
        });
        Ok(())
    }
    fn serialize_value<T: Serialize + ?Sized>(&mut self, v: &T) -> R<()> {
        let k = self.1.take().ok_or_else(|| SerdeError("value without key".into()))?;
        self.0.push((k, to_value(v)?));
        Ok(())
    }
    fn end(self) -> R<Value> {
        Ok(wrap_variant(self.2, Value::Object(self.0)))
    }
}

impl ser::SerializeStruct for MapSer {
    type Ok = Value;
    type Error = SerdeError;
    fn serialize_field<T: Serialize + ?Sized>(&mut self, key: &'static str, v: &T) -> R<()> {
        self.0.push((key.to_owned(), to_value(v)?));
        Ok(())
    }
    fn end(self) -> R<Value> {
        Ok(wrap_variant(self.2, Value::Object(self.0)))
    }
}

impl ser::SerializeStructVariant for MapSer {
    type Ok = Value;
    type Error = SerdeError;
    fn serialize_field<T: Serialize + ?Sized>(&mut self, key: &'static str, v: &T) -> R<()> {
        ser::SerializeStruct::serialize_field(self, key, v)
    }
    fn end(self) -> R<Value> {
        ser::SerializeStruct::end(self)
    }
}

// ---------------------------------------------------------------------------------------------
// Value itself is (de)serializable, so typed structs can keep an untyped sub-tree.
// ---------------------------------------------------------------------------------------------

impl Serialize for Value {
    fn serialize<S: ser::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use ser::{SerializeMap, SerializeSeq};
        match self {
            Value::Void => s.serialize_unit(),
            Value::Bool(b) => s.serialize_bool(*b),
            Value::Int(i) => s.serialize_i64(*i),
            Value::UInt(u) => s.serialize_u64(*u),
            Value::Float(f) => s.serialize_f64(*f),
            Value::Str(x) => s.serialize_str(x),
            Value::Bytes(b) => s.serialize_bytes(b),
            Value::Array(items) => {
                let mut seq = s.serialize_seq(Some(items.len()))?;
                for it in items {
                    seq.serialize_element(it)?;
                }
                seq.end()
            }
            Value::Object(fields) => {
                let mut m = s.serialize_map(Some(fields.len()))?;
                for (k, v) in fields {
                    m.serialize_entry(k, v)?;
                }
                m.end()
            }
            Value::Nbt(n) => n.serialize(s),
        }
    }
}

struct ValueVisitor;

impl<'de> Visitor<'de> for ValueVisitor {
    type Value = Value;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any value")
    }
    fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }
    fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
        Ok(Value::Int(v))
    }
    fn visit_u64<E>(self, v: u64) -> Result<Value, E> {
        Ok(Value::UInt(v))
    }
    fn visit_f64<E>(self, v: f64) -> Result<Value, E> {
        Ok(Value::Float(v))
    }
    fn visit_str<E>(self, v: &str) -> Result<Value, E> {
        Ok(Value::Str(v.to_owned()))
    }
    fn visit_string<E>(self, v: String) -> Result<Value, E> {
        Ok(Value::Str(v))
    }
    fn visit_bytes<E>(self, v: &[u8]) -> Result<Value, E> {
        Ok(Value::Bytes(v.to_vec()))
    }
    fn visit_byte_buf<E>(self, v: Vec<u8>) -> Result<Value, E> {
        Ok(Value::Bytes(v))
    }
    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Void)
    }
    fn visit_none<E>(self) -> Result<Value, E> {
        Ok(Value::Void)
    }
    fn visit_some<D: de::Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        d.deserialize_any(self)
    }
    fn visit_seq<A: de::SeqAccess<'de>>(self, mut a: A) -> Result<Value, A::Error> {
        let mut items = Vec::new();
        while let Some(v) = a.next_element()? {
            items.push(v);
        }
        Ok(Value::Array(items))
    }
    fn visit_map<A: de::MapAccess<'de>>(self, mut a: A) -> Result<Value, A::Error> {
        let mut fields = Vec::new();
        while let Some((k, v)) = a.next_entry::<String, Value>()? {
            fields.push((k, v));
        }
        Ok(Value::Object(fields))
    }
}

impl<'de> de::Deserialize<'de> for Value {
    fn deserialize<D: de::Deserializer<'de>>(d: D) -> Result<Value, D::Error> {
        d.deserialize_any(ValueVisitor)
    }
}
