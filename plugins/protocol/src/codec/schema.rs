//! Compiles minecraft-data's ProtoDef JSON into a compact type tree, once per version.

use std::collections::HashMap;

use serde_json::Value as Json;

use super::CodecError;

/// Fixed-size and variable-length scalar wire types.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Prim {
    Bool,
    U8,
    I8,
    U16(Endian),
    I16(Endian),
    U32(Endian),
    I32(Endian),
    U64(Endian),
    I64(Endian),
    F32(Endian),
    F64(Endian),
    /// Unsigned LEB128, 32-bit (`varint`).
    VarU32,
    /// Unsigned LEB128, 64-bit (`varint64`).
    VarU64,
    /// Unsigned LEB128, 128-bit (`varint128`); values above u64 decode as decimal text.
    VarU128,
    /// ZigZag LEB128 (`zigzag32`).
    VarI32,
    /// ZigZag LEB128 (`zigzag64`).
    VarI64,
}

/// Byte order of a fixed-size number.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Endian {
    Little,
    Big,
}

/// A reference to an earlier field: `..` steps up one container, the rest descends objects.
#[derive(Debug, Clone)]
pub(crate) struct FieldPath {
    pub ups: usize,
    pub segs: Vec<String>,
}

/// What a switch compares against.
#[derive(Debug, Clone)]
pub(crate) enum Compare {
    /// An earlier field (`type`, `../action`, `flags.has_x`).
    Field(FieldPath),
    /// `a || b || c`: whether any of the fields is truthy (a boolean).
    Any(Vec<FieldPath>),
}

impl std::fmt::Display for Compare {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Compare::Field(p) => write!(f, "{p}"),
            Compare::Any(ps) => {
                let parts: Vec<String> = ps.iter().map(ToString::to_string).collect();
                f.write_str(&parts.join(" || "))
            }
        }
    }
}

impl std::fmt::Display for FieldPath {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut parts: Vec<&str> = vec![".."; self.ups];
        parts.extend(self.segs.iter().map(String::as_str));
        f.write_str(&parts.join("/"))
    }
}

/// How many elements an array, buffer or string has.
#[derive(Debug, Clone)]
pub(crate) enum Count {
    /// A length prefix of this type.
    Prefixed(Box<Ty>),
    /// A constant.
    Fixed(usize),
    /// The value of an earlier field.
    Field(FieldPath),
}

/// One switch case label.
#[derive(Debug, Clone)]
pub(crate) struct CaseKey {
    pub text: String,
    pub num: Option<i64>,
    /// `/Name`: compare against a protocol variable (e.g. `ShieldItemID`).
    pub var: Option<String>,
}

/// One container field; anonymous containers are inlined at compile time like ProtoDef does.
#[derive(Debug, Clone)]
pub(crate) struct Field {
    /// `None` for an anonymous switch or bitfield whose object is spread into the parent.
    pub name: Option<String>,
    pub ty: Ty,
}

/// A compiled ProtoDef type.
#[derive(Debug, Clone)]
pub(crate) enum Ty {
    Void,
    Prim(Prim),
    /// Index into [`Schema::types`]; resolved lazily so recursive types work.
    Ref(usize),
    Container(Vec<Field>),
    Switch {
        compare: Option<Compare>,
        cases: Vec<(CaseKey, Ty)>,
        default: Box<Ty>,
    },
    Option(Box<Ty>),
    Array {
        count: Count,
        elem: Box<Ty>,
    },
    Buffer(Count),
    PString {
        count: Count,
        latin1: bool,
    },
    /// `entries` is sorted by wire value; `neutral` is the value mapped from 0 (or the smallest).
    Mapper {
        repr: Box<Ty>,
        entries: Vec<(i64, String)>,
        neutral: usize,
    },
    Bitflags {
        repr: Box<Ty>,
        flags: Vec<(String, u64)>,
    },
    Bitfield(Vec<(String, u32, bool)>),
    /// A length written for the sibling field `count_for`.
    CountFor {
        repr: Box<Ty>,
        count_for: String,
    },
    Encapsulated {
        len: Box<Ty>,
        inner: Box<Ty>,
    },
    RestBuffer,
    MaybeIncompleteArray {
        count: Box<Ty>,
        elem: Box<Ty>,
    },
    OptionalOnRemaining(Box<Ty>),
    EndOfArray(Box<Ty>),
    EntityMetadataLoop {
        elem: Box<Ty>,
        end: u8,
    },
    Nbt,
    LNbt,
    NbtLoop,
    Uuid,
    ByteRot,
    EnumSizeBasedOnValuesLen,
    /// A native type this interpreter does not implement; fails only if a packet uses it.
    Unsupported(String),
    /// An item's stack id as a `{type, id}` container (`ItemV4` before 1.26.40): a network
    /// stack id reads and writes as the plain number later versions carry, so the item views
    /// stay one shape; other kinds stay objects.
    StackIdVariant(Box<Ty>),
}

/// The mapper name of a network stack id in a [`Ty::StackIdVariant`].
pub(crate) const NET_STACK_ID: &str = "item_stack_net_id";

/// Whether `ty` is the `{type: mapper(item_stack_net_id, …), id}` stack id container.
fn is_stack_id_variant(ty: &Ty) -> bool {
    let Ty::Container(fields) = ty else { return false };
    let named = |n: &str| fields.iter().find(|f| f.name.as_deref() == Some(n)).map(|f| &f.ty);
    fields.len() == 2
        && matches!(named("type"), Some(Ty::Mapper { entries, .. }) if entries.iter().any(|e| e.1 == NET_STACK_ID))
        && matches!(named("id"), Some(Ty::Prim(_)))
}

/// All named types of one protocol version plus the packet table.
#[derive(Debug)]
pub(crate) struct Schema {
    pub types: Vec<Ty>,
    /// Packet id → (name, index of `packet_<name>` type).
    pub packets: HashMap<u32, (String, usize)>,
    pub packet_ids: HashMap<String, u32>,
    /// The version's layouts of packets that changed between versions (set by [`compile`]).
    pub dialect: Option<super::dialect::Dialect>,
}

/// Compiles a whole `protocol.json`.
pub(crate) fn compile(json: &Json) -> Result<Schema, CodecError> {
    let types =
        json.get("types").and_then(Json::as_object).ok_or_else(|| schema_err("protocol.json has no `types` object"))?;
    let mut index = HashMap::new();
    let mut names = Vec::new();
    for (name, def) in types {
        if def.as_str() != Some("native") {
            index.insert(name.clone(), names.len());
            names.push(name.clone());
        }
    }
    let c = Compiler { index: &index };
    let mut compiled = Vec::with_capacity(names.len());
    for name in &names {
        let def = &types[name.as_str()];
        let ty = c.ty(def).map_err(|e| schema_err(&format!("type {name}: {e}")))?;
        compiled.push(if is_stack_id_variant(&ty) { Ty::StackIdVariant(Box::new(ty)) } else { ty });
    }
    let (packets, packet_ids) = packet_table(types, &index)?;
    let mut schema = Schema { types: compiled, packets, packet_ids, dialect: None };
    schema.dialect = Some(super::dialect::Dialect::detect(&schema)?);
    Ok(schema)
}

fn schema_err(msg: &str) -> CodecError {
    CodecError::Schema(msg.to_owned())
}

/// Packet id → (name, type index), and name → id.
type PacketTables = (HashMap<u32, (String, usize)>, HashMap<String, u32>);

/// Reads the id → name mapper of `mcpe_packet` and pairs each name with its `packet_*` type.
fn packet_table(
    types: &serde_json::Map<String, Json>,
    index: &HashMap<String, usize>,
) -> Result<PacketTables, CodecError> {
    let mappings = types
        .get("mcpe_packet")
        .and_then(|p| p.get(1))
        .and_then(|fields| fields.get(0))
        .and_then(|name_field| name_field.get("type"))
        .and_then(|t| t.get(1))
        .and_then(|m| m.get("mappings"))
        .and_then(Json::as_object)
        .ok_or_else(|| schema_err("mcpe_packet has no name mapper"))?;
    let mut by_id = HashMap::new();
    let mut by_name = HashMap::new();
    for (id, name) in mappings {
        let id = parse_int(id).and_then(|i| u32::try_from(i).ok()).ok_or_else(|| schema_err("bad packet id"))?;
        let name = name.as_str().ok_or_else(|| schema_err("bad packet name"))?;
        let Some(&ty) = index.get(&format!("packet_{name}")) else {
            tracing::debug!(name, "packet without a packet_ type; skipped");
            continue;
        };
        by_id.insert(id, (name.to_owned(), ty));
        by_name.insert(name.to_owned(), id);
    }
    Ok((by_id, by_name))
}

/// Parses a decimal or `0x` hexadecimal mapping key.
fn parse_int(s: &str) -> Option<i64> {
    let s = s.trim();
    if let Some(hex) = s.strip_prefix("0x") {
        return i64::from_str_radix(hex, 16).ok();
    }
    if let Some(hex) = s.strip_prefix("-0x") {
        return i64::from_str_radix(hex, 16).ok().map(|v| -v);
    }
    s.parse().ok()
}

struct Compiler<'a> {
    index: &'a HashMap<String, usize>,
}

type R<T> = Result<T, String>;

impl Compiler<'_> {
    fn ty(&self, j: &Json) -> R<Ty> {
        match j {
            Json::String(name) => self.named(name, &Json::Null),
            Json::Array(a) if a.len() == 2 => {
                let name = a[0].as_str().ok_or("type name is not a string")?;
                self.named(name, &a[1])
            }
            other => Err(format!("unexpected type form {other}")),
        }
    }

    fn boxed(&self, j: Option<&Json>) -> R<Box<Ty>> {
        Ok(Box::new(self.ty(j.ok_or("missing type argument")?)?))
    }

    fn named(&self, name: &str, args: &Json) -> R<Ty> {
        if let Some(p) = prim(name) {
            return Ok(Ty::Prim(p));
        }
        Ok(match name {
            "void" => Ty::Void,
            "container" => Ty::Container(self.container(args)?),
            "switch" => self.switch(args)?,
            "option" => Ty::Option(Box::new(self.ty(args)?)),
            "array" => Ty::Array { count: self.count(args)?, elem: self.boxed(args.get("type"))? },
            "buffer" => Ty::Buffer(self.count(args)?),
            "pstring" => Ty::PString {
                count: self.count(args)?,
                latin1: matches!(args.get("encoding").and_then(Json::as_str), Some("latin1" | "ascii")),
            },
            "mapper" => self.mapper(args)?,
            "bitflags" => self.bitflags(args)?,
            "bitfield" => Ty::Bitfield(bitfield(args)?),
            "count" => Ty::CountFor {
                repr: self.boxed(args.get("type"))?,
                count_for: args.get("countFor").and_then(Json::as_str).ok_or("count without countFor")?.to_owned(),
            },
            "encapsulated" => {
                Ty::Encapsulated { len: self.boxed(args.get("lengthType"))?, inner: self.boxed(args.get("type"))? }
            }
            "restBuffer" => Ty::RestBuffer,
            "maybeIncompleteArray" => Ty::MaybeIncompleteArray {
                count: self.boxed(args.get("countType"))?,
                elem: self.boxed(args.get("type"))?,
            },
            "optionalOnRemaining" => Ty::OptionalOnRemaining(self.boxed(args.get("type"))?),
            "endOfArray" => Ty::EndOfArray(self.boxed(args.get("type"))?),
            "entityMetadataLoop" => Ty::EntityMetadataLoop {
                elem: self.boxed(args.get("type"))?,
                end: args.get("endVal").and_then(Json::as_u64).and_then(|v| u8::try_from(v).ok()).unwrap_or(127),
            },
            "nbt" => Ty::Nbt,
            "lnbt" => Ty::LNbt,
            "nbtLoop" => Ty::NbtLoop,
            "uuid" => Ty::Uuid,
            "byterot" => Ty::ByteRot,
            "enum_size_based_on_values_len" => Ty::EnumSizeBasedOnValuesLen,
            "MapInfo" | "ipAddress" => Ty::Unsupported(name.to_owned()),
            other => match self.index.get(other) {
                Some(&i) => Ty::Ref(i),
                None => return Err(format!("unknown type {other}")),
            },
        })
    }

    fn container(&self, args: &Json) -> R<Vec<Field>> {
        let list = args.as_array().ok_or("container fields are not a list")?;
        let mut out = Vec::with_capacity(list.len());
        for f in list {
            let ty = self.ty(f.get("type").ok_or("field without type")?)?;
            let anon = f.get("anon").and_then(Json::as_bool).unwrap_or(false);
            let name = f.get("name").and_then(Json::as_str);
            match (anon, ty, name) {
                // ProtoDef inlines anonymous containers: their fields live in the parent's scope.
                (true, Ty::Container(inner), _) => out.extend(inner),
                (true, ty, _) => out.push(Field { name: None, ty }),
                (false, ty, Some(n)) => out.push(Field { name: Some(n.to_owned()), ty }),
                (false, _, None) => return Err("named field without a name".into()),
            }
        }
        Ok(out)
    }

    fn switch(&self, args: &Json) -> R<Ty> {
        let compare = args.get("compareTo").and_then(Json::as_str).map(compare_expr);
        let fields = args.get("fields").and_then(Json::as_object).ok_or("switch without fields")?;
        let mut cases = Vec::with_capacity(fields.len());
        for (k, t) in fields {
            let key = CaseKey { text: k.clone(), num: parse_int(k), var: k.strip_prefix('/').map(str::to_owned) };
            cases.push((key, self.ty(t)?));
        }
        let default = match args.get("default") {
            Some(d) => self.ty(d)?,
            None => Ty::Void,
        };
        Ok(Ty::Switch { compare, cases, default: Box::new(default) })
    }

    fn count(&self, args: &Json) -> R<Count> {
        if let Some(t) = args.get("countType") {
            return Ok(Count::Prefixed(Box::new(self.ty(t)?)));
        }
        match args.get("count") {
            Some(Json::Number(n)) => Ok(Count::Fixed(n.as_u64().ok_or("bad count")? as usize)),
            Some(Json::String(s)) => Ok(Count::Field(field_path(s))),
            _ => Err("array/buffer/pstring without count".into()),
        }
    }

    fn mapper(&self, args: &Json) -> R<Ty> {
        let repr = self.boxed(args.get("type"))?;
        let m = args.get("mappings").and_then(Json::as_object).ok_or("mapper without mappings")?;
        let mut entries = Vec::with_capacity(m.len());
        for (k, v) in m {
            let k = parse_int(k).ok_or_else(|| format!("bad mapper key {k}"))?;
            entries.push((k, v.as_str().ok_or("mapper value is not a string")?.to_owned()));
        }
        entries.sort_by_key(|e| e.0);
        let neutral = entries.iter().position(|e| e.0 == 0).unwrap_or(0);
        if entries.is_empty() {
            return Err("empty mapper".into());
        }
        Ok(Ty::Mapper { repr, entries, neutral })
    }

    fn bitflags(&self, args: &Json) -> R<Ty> {
        let repr = self.boxed(args.get("type"))?;
        let shift = args.get("shift").and_then(Json::as_bool).unwrap_or(false);
        let mut flags = Vec::new();
        match args.get("flags") {
            // A list names bits 0, 1, 2...
            Some(Json::Array(list)) => {
                for (i, f) in list.iter().enumerate() {
                    let name = f.as_str().ok_or("flag name is not a string")?;
                    flags.push((name.to_owned(), if i < 64 { 1u64 << i } else { 0 }));
                }
            }
            // An object maps names to masks, or to bit numbers with `shift`.
            Some(Json::Object(map)) => {
                for (name, v) in map {
                    let v = v.as_u64().ok_or("flag value is not a number")?;
                    let mask = if shift { 1u64.checked_shl(v as u32).unwrap_or(0) } else { v };
                    flags.push((name.clone(), mask));
                }
                flags.sort_by_key(|f| f.1);
            }
            _ => return Err("bitflags without flags".into()),
        }
        Ok(Ty::Bitflags { repr, flags })
    }
}

fn bitfield(args: &Json) -> R<Vec<(String, u32, bool)>> {
    let list = args.as_array().ok_or("bitfield is not a list")?;
    let mut out = Vec::new();
    for f in list {
        let name = f.get("name").and_then(Json::as_str).ok_or("bitfield without name")?;
        let size = f.get("size").and_then(Json::as_u64).ok_or("bitfield without size")?;
        if size == 0 || size > 64 {
            return Err("bitfield size out of range".into());
        }
        let signed = f.get("signed").and_then(Json::as_bool).unwrap_or(false);
        out.push((name.to_owned(), size as u32, signed));
    }
    Ok(out)
}

/// A `compareTo` expression: a field path, or ProtoDef's `a || b` (any truthy).
fn compare_expr(s: &str) -> Compare {
    if s.contains("||") {
        Compare::Any(s.split("||").map(|p| field_path(p.trim())).collect())
    } else {
        Compare::Field(field_path(s))
    }
}

/// `../a/b.c`: `..` steps up a container; `/` and `.` descend (ProtoDef compiles `.` to a
/// JavaScript property access, e.g. `flags.has_x` or `input_data.item_interact`).
fn field_path(s: &str) -> FieldPath {
    let mut ups = 0;
    let mut segs = Vec::new();
    for part in s.split('/') {
        match part {
            ".." => ups += 1,
            "" => {}
            p => segs.extend(p.split('.').filter(|x| !x.is_empty()).map(str::to_owned)),
        }
    }
    FieldPath { ups, segs }
}

/// Scalar types by their ProtoDef names.
fn prim(name: &str) -> Option<Prim> {
    use Endian::{Big as B, Little as L};
    Some(match name {
        "bool" => Prim::Bool,
        "u8" => Prim::U8,
        "i8" => Prim::I8,
        "u16" => Prim::U16(B),
        "i16" => Prim::I16(B),
        "u32" => Prim::U32(B),
        "i32" => Prim::I32(B),
        "u64" => Prim::U64(B),
        "i64" => Prim::I64(B),
        "f32" => Prim::F32(B),
        "f64" => Prim::F64(B),
        "lu16" => Prim::U16(L),
        "li16" => Prim::I16(L),
        "lu32" => Prim::U32(L),
        "li32" => Prim::I32(L),
        "lu64" => Prim::U64(L),
        "li64" => Prim::I64(L),
        "lf32" => Prim::F32(L),
        "lf64" => Prim::F64(L),
        "varint" => Prim::VarU32,
        "varint64" => Prim::VarU64,
        "varint128" => Prim::VarU128,
        "zigzag32" => Prim::VarI32,
        "zigzag64" => Prim::VarI64,
        _ => return None,
    })
}
