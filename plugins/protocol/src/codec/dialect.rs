//! Where supported versions lay the same packet out differently, in one place.
//!
//! Typed views ([`crate::packets`]) are version-independent: they follow the newest layout.
//! For each packet whose layout changed between supported versions, this module recognises the
//! version's layout **from its definition** when the protocol is compiled (not from version
//! numbers) and rewrites value trees between that layout and the views' ("canonical") one:
//! [`Dialect::to_canonical`] after decoding, [`Dialect::to_wire`] before encoding. A layout the
//! recognisers do not know is a load error, so a new version cannot be misread silently.
//!
//! | packet | layouts |
//! |---|---|
//! | `player_auth_input` | input flags as a bitset with blocks switched on flags (≤ 1.26.30); a flag list, presence bools + options (1.26.40–45); a flag list + options (1.26.60) |
//! | transaction actions, use-item data | per-source switch (≤ 1.26.30); presence bools (1.26.45); options (1.26.60); `hand` (1.26.60) |
//! | `move_entity_delta` | a flags bitset with switched axes (≤ 1.26.30); options and bools (1.26.40+) |
//! | `level_chunk` | request mode in `sub_chunk_count` (−1/−2, `lu16` limit) and blob hashes in a container (≤ 1.26.30); an optional limit and a flat hash list (1.26.40+) |
//! | `subchunk_request` | `{dx,dy,dz}` offsets (1.26.20); `{x,y,z}` (1.26.30+) |
//! | `subchunk` | heightmaps as 256 bytes (≤ 1.26.45); as 16 rows (1.26.60) |
//! | `player_list` | one record type per packet (≤ 1.26.30); a type per record (1.26.40+) |
//! | entity metadata | no `legacy_type` (≤ 1.26.30) |
//! | `resource_pack_client_response` | no status name, ids always present (≤ 1.26.30) |
//! | `dimension_data` | `min_height`/`max_height` (≤ 1.26.45); `min_y`/`height_range` (1.26.60) |
//! | `item_stack_request` actions | no `legacy_type_id` (≤ 1.26.30) |
//! | `item_stack_response` | containers switched on the status, plain slot stack ids (≤ 1.26.30); presence bools + options (1.26.40–45); options (1.26.60) |
//! | `crafting_data` | one list of `{type, recipe}` with width×height nested shaped inputs and one-byte ingredient kinds (≤ 1.26.30); an array per recipe kind, flat inputs, `valid` + descriptor ingredients (1.26.40+) |
//! | `item_stack_request` craft actions | `craft_recipe_auto` with `times_crafted_2` and old ingredients, `results_deprecated` items as `ItemLegacy` (≤ 1.26.30); ingredients and results by name (1.26.40+) |
//!
//! Item stacks need no rewrite here: the codec reads `has_stack_id` as a bool or a byte alike,
//! the air item's short form follows from the definition, and the `{type, id}` stack id of
//! `ItemV4` before 1.26.40 is read and written as the plain id later versions carry by the
//! schema itself (`Ty::StackIdVariant`).

use super::CodecError;
use super::schema::{Field, Schema, Ty};
use super::value::Value;

/// How PlayerAuthInput carries its input flags.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum InputFlags {
    /// A `varint128` bitset; the optional blocks are switched on flags.
    Bits,
    /// An optional list of flag numbers.
    OptionalList,
    /// A list of flag numbers.
    List,
}

/// How transaction actions name their window and flags.
#[derive(Debug, Clone, PartialEq, Eq)]
enum ActionLayout {
    /// An anonymous switch on `source_type`: `inventory_id` (a `WindowID` name), `flags`,
    /// `action`. Holds the window names' numbers.
    SourceSwitch(Vec<(i64, String)>),
    /// `container_presence` + optional `window_id`, `flag_presence` + optional `flags`.
    Presence,
    /// Optional `window_id` and `flags`.
    Options,
}

/// The layouts of one version (see the module docs).
#[derive(Debug, Clone)]
pub(crate) struct Dialect {
    input_flags: InputFlags,
    /// `<block>_presence` bools before the optional blocks of PlayerAuthInput (1.26.40–45).
    auth_input_presence: bool,
    /// Actions inside PlayerAuthInput's transaction (1.26.30 kept the older form there).
    auth_actions: ActionLayout,
    /// Actions of `inventory_transaction`.
    inventory_actions: ActionLayout,
    /// Use-item data has `hand`.
    use_item_hand: bool,
    /// MoveActorDelta carries a flags bitset.
    move_delta_flags: bool,
    /// LevelChunk encodes request mode in `sub_chunk_count` and wraps blob hashes.
    level_chunk_in_count: bool,
    /// SubChunkRequest offsets are `{dx,dy,dz}`.
    subchunk_request_deltas: bool,
    /// SubChunk heightmaps are 16 rows.
    heightmap_rows: bool,
    /// PlayerList groups records under one type.
    player_list_grouped: bool,
    /// Metadata entries have `legacy_type`.
    metadata_legacy_type: bool,
    /// ResourcePackClientResponse has `response_status_name` (and ids only for send_packs).
    pack_response_named: bool,
    /// Dimension definitions give `min_y`/`height_range`.
    dimension_min_y: bool,
    /// ItemStackResponse has `containers_presence`/`item_stack_id_presence` (1.26.40–45).
    stack_response_presence: bool,
    /// ItemStackRequest actions carry `legacy_type_id` (1.26.40+).
    stack_request_legacy_type: bool,
    /// CraftingData is one tagged recipe list (≤ 1.26.30).
    crafting_list: bool,
    /// Craft request actions name items by network id and count crafts twice (≤ 1.26.30).
    craft_actions_old: bool,
}

fn unknown(what: &str) -> CodecError {
    CodecError::Schema(format!("unrecognised layout of {what}: teach codec/dialect.rs the new shape"))
}

// ---------------------------------------------------------------------------------------------
// Recognising layouts
// ---------------------------------------------------------------------------------------------

/// Follows references.
fn resolve<'s>(schema: &'s Schema, mut ty: &'s Ty) -> &'s Ty {
    for _ in 0..64 {
        match ty {
            Ty::Ref(i) => match schema.types.get(*i) {
                Some(t) => ty = t,
                None => return ty,
            },
            _ => return ty,
        }
    }
    ty
}

/// The fields of a container type (after references), or of an option / array element of one.
fn fields_of<'s>(schema: &'s Schema, ty: &'s Ty) -> Option<&'s [Field]> {
    match resolve(schema, ty) {
        Ty::Container(f) => Some(f),
        Ty::Option(inner) | Ty::Encapsulated { inner, .. } => fields_of(schema, inner),
        Ty::Array { elem, .. } | Ty::MaybeIncompleteArray { elem, .. } => fields_of(schema, elem),
        _ => None,
    }
}

/// The type of the named field (references followed).
fn field<'s>(schema: &'s Schema, fields: &'s [Field], name: &str) -> Option<&'s Ty> {
    fields.iter().find(|f| f.name.as_deref() == Some(name)).map(|f| resolve(schema, &f.ty))
}

/// Whether any branch of an anonymous switch (or the fields themselves) names `name`.
fn declares(schema: &Schema, fields: &[Field], name: &str) -> bool {
    fields.iter().any(|f| match &f.name {
        Some(n) => n == name,
        None => match resolve(schema, &f.ty) {
            Ty::Switch { cases, default, .. } => cases
                .iter()
                .map(|(_, t)| t)
                .chain(std::iter::once(default.as_ref()))
                .any(|t| fields_of(schema, t).is_some_and(|inner| declares(schema, inner, name))),
            _ => false,
        },
    })
}

fn packet_fields<'s>(schema: &'s Schema, name: &str) -> Result<&'s [Field], CodecError> {
    let id = schema.packet_ids.get(name).ok_or_else(|| CodecError::UnknownPacket(name.to_owned()))?;
    let ty = schema.packets.get(id).map(|(_, t)| *t).ok_or_else(|| CodecError::UnknownPacket(name.to_owned()))?;
    schema.types.get(ty).and_then(|t| fields_of(schema, t)).ok_or_else(|| unknown(name))
}

/// The element fields of a named array/option field of `fields`.
fn elem_fields<'s>(schema: &'s Schema, fields: &'s [Field], name: &str) -> Option<&'s [Field]> {
    let ty = field(schema, fields, name)?;
    match ty {
        Ty::Switch { cases, default, .. } => {
            cases.iter().map(|(_, t)| t).chain(std::iter::once(default.as_ref())).find_map(|t| fields_of(schema, t))
        }
        other => fields_of(schema, other),
    }
}

/// The mapper entries of an action's `inventory_id` (found in any branch of its source switch).
fn window_names(schema: &Schema, action: &[Field]) -> Vec<(i64, String)> {
    for f in action {
        if f.name.is_some() {
            continue;
        }
        if let Ty::Switch { cases, .. } = resolve(schema, &f.ty) {
            for (_, t) in cases {
                if let Some(inner) = fields_of(schema, t)
                    && let Some(Ty::Mapper { entries, .. }) = field(schema, inner, "inventory_id")
                {
                    return entries.clone();
                }
            }
        }
    }
    Vec::new()
}

/// The action layout of a transaction container's `actions`.
fn action_layout(schema: &Schema, transaction: &[Field]) -> Result<ActionLayout, CodecError> {
    let action = elem_fields(schema, transaction, "actions").ok_or_else(|| unknown("transaction actions"))?;
    if declares(schema, action, "container_presence") {
        Ok(ActionLayout::Presence)
    } else if field(schema, action, "window_id").is_some() {
        Ok(ActionLayout::Options)
    } else if declares(schema, action, "inventory_id") {
        Ok(ActionLayout::SourceSwitch(window_names(schema, action)))
    } else {
        Err(unknown("transaction actions"))
    }
}

impl Dialect {
    /// Recognises every layout of this module in a compiled definition.
    pub(crate) fn detect(schema: &Schema) -> Result<Dialect, CodecError> {
        let input = packet_fields(schema, "player_auth_input")?;
        let input_flags = match field(schema, input, "input_data") {
            Some(Ty::Bitflags { .. }) => InputFlags::Bits,
            Some(Ty::Option(inner)) if matches!(resolve(schema, inner), Ty::Array { .. }) => InputFlags::OptionalList,
            Some(Ty::Array { .. }) => InputFlags::List,
            _ => return Err(unknown("player_auth_input.input_data")),
        };
        let auth_input_presence = declares(schema, input, "transaction_presence");
        let transaction =
            elem_fields(schema, input, "transaction").ok_or_else(|| unknown("player_auth_input.transaction"))?;
        let auth_actions = action_layout(schema, transaction)?;
        let use_item = elem_fields(schema, transaction, "data").ok_or_else(|| unknown("use-item data"))?;
        let use_item_hand = field(schema, use_item, "hand").is_some();
        let inventory = packet_fields(schema, "inventory_transaction")?;
        let inventory =
            elem_fields(schema, inventory, "transaction").ok_or_else(|| unknown("inventory_transaction"))?;
        let inventory_actions = action_layout(schema, inventory)?;

        let delta = packet_fields(schema, "move_entity_delta")?;
        let move_delta_flags = match (field(schema, delta, "flags"), field(schema, delta, "on_ground")) {
            (Some(Ty::Bitflags { .. }), None) => true,
            (None, Some(_)) => false,
            _ => return Err(unknown("move_entity_delta")),
        };

        let chunk = packet_fields(schema, "level_chunk")?;
        let level_chunk_in_count = match (field(schema, chunk, "highest_subchunk_count"), field(schema, chunk, "blobs"))
        {
            (Some(Ty::Switch { .. }), Some(Ty::Switch { .. })) => true,
            (Some(Ty::Option(_)), Some(Ty::Array { .. })) => false,
            _ => return Err(unknown("level_chunk")),
        };

        let request = packet_fields(schema, "subchunk_request")?;
        let offsets = elem_fields(schema, request, "requests").ok_or_else(|| unknown("subchunk_request"))?;
        let subchunk_request_deltas = match (field(schema, offsets, "dx"), field(schema, offsets, "x")) {
            (Some(_), None) => true,
            (None, Some(_)) => false,
            _ => return Err(unknown("subchunk_request.requests")),
        };

        let sub = packet_fields(schema, "subchunk")?;
        let entry = elem_fields(schema, sub, "entries").ok_or_else(|| unknown("subchunk.entries"))?;
        let heightmap_rows = match field(schema, entry, "heightmap") {
            Some(Ty::Option(inner)) => match resolve(schema, inner) {
                Ty::Buffer(_) => false,
                Ty::Array { .. } => true,
                _ => return Err(unknown("subchunk heightmap")),
            },
            Some(Ty::Switch { .. }) => false,
            _ => return Err(unknown("subchunk heightmap")),
        };

        let list = packet_fields(schema, "player_list")?;
        let player_list_grouped = match field(schema, list, "records") {
            Some(Ty::Container(f)) if field(schema, f, "records_count").is_some() => true,
            Some(Ty::Array { .. } | Ty::MaybeIncompleteArray { .. }) => false,
            _ => return Err(unknown("player_list.records")),
        };

        let add = packet_fields(schema, "add_entity")?;
        let meta = elem_fields(schema, add, "metadata").ok_or_else(|| unknown("entity metadata"))?;
        let metadata_legacy_type = field(schema, meta, "legacy_type").is_some();

        let response = packet_fields(schema, "resource_pack_client_response")?;
        let pack_response_named = field(schema, response, "response_status_name").is_some();

        let dims = packet_fields(schema, "dimension_data")?;
        let def = elem_fields(schema, dims, "definitions").ok_or_else(|| unknown("dimension_data"))?;
        let dimension_min_y = match (field(schema, def, "min_y"), field(schema, def, "min_height")) {
            (Some(_), None) => true,
            (None, Some(_)) => false,
            _ => return Err(unknown("dimension_data.definitions")),
        };

        let responses = packet_fields(schema, "item_stack_response")?;
        let response = elem_fields(schema, responses, "responses").ok_or_else(|| unknown("item_stack_response"))?;
        let stack_response_presence = declares(schema, response, "containers_presence");
        let requests = packet_fields(schema, "item_stack_request")?;
        let request = elem_fields(schema, requests, "requests").ok_or_else(|| unknown("item_stack_request"))?;
        let action = elem_fields(schema, request, "actions").ok_or_else(|| unknown("item_stack_request actions"))?;
        let stack_request_legacy_type = declares(schema, action, "legacy_type_id");
        let craft_actions_old = declares(schema, action, "times_crafted_2");
        let crafting = packet_fields(schema, "crafting_data")?;
        let crafting_list = match (field(schema, crafting, "recipes"), field(schema, crafting, "shaped_recipes")) {
            (Some(_), None) => true,
            (None, Some(_)) => false,
            _ => return Err(unknown("crafting_data")),
        };

        Ok(Dialect {
            input_flags,
            auth_input_presence,
            auth_actions,
            inventory_actions,
            use_item_hand,
            move_delta_flags,
            level_chunk_in_count,
            subchunk_request_deltas,
            heightmap_rows,
            player_list_grouped,
            metadata_legacy_type,
            pack_response_named,
            dimension_min_y,
            stack_response_presence,
            stack_request_legacy_type,
            crafting_list,
            craft_actions_old,
        })
    }

    /// Rewrites a decoded tree of `packet` from this version's layout to the views' layout.
    pub(crate) fn to_canonical(&self, packet: &str, v: &mut Value) -> Result<(), String> {
        match packet {
            "player_auth_input" => self.auth_input_in(v),
            "inventory_transaction" => {
                if let Some(t) = get_mut(v, "transaction") {
                    transaction_in(t, &self.inventory_actions);
                }
            }
            "move_entity_delta" if self.move_delta_flags => move_delta_in(v),
            "level_chunk" if self.level_chunk_in_count => level_chunk_in(v),
            "subchunk_request" if self.subchunk_request_deltas => subchunk_request_rename(v, DELTAS, OFFSETS),
            "subchunk" if self.heightmap_rows => subchunk_heightmaps(v, rows_to_bytes),
            "player_list" if self.player_list_grouped => player_list_in(v),
            "resource_pack_client_response" if !self.pack_response_named => pack_response_in(v),
            "dimension_data" if self.dimension_min_y => dimensions_in(v),
            "item_stack_response" if self.stack_response_presence => stack_response_presence(v, false),
            "crafting_data" if self.crafting_list => crafting_list_in(v),
            _ => {}
        }
        Ok(())
    }

    /// Rewrites a view's tree of `packet` to this version's layout before encoding.
    pub(crate) fn to_wire(&self, packet: &str, v: &mut Value) -> Result<(), String> {
        match packet {
            "player_auth_input" => self.auth_input_out(v),
            "inventory_transaction" => {
                if let Some(t) = get_mut(v, "transaction") {
                    self.transaction_out(t, &self.inventory_actions, "transaction_data");
                }
            }
            "move_entity_delta" if self.move_delta_flags => move_delta_out(v),
            "level_chunk" if self.level_chunk_in_count => level_chunk_out(v),
            "subchunk_request" if self.subchunk_request_deltas => subchunk_request_rename(v, OFFSETS, DELTAS),
            "subchunk" if self.heightmap_rows => subchunk_heightmaps(v, bytes_to_rows),
            "player_list" if self.player_list_grouped => player_list_out(v)?,
            "resource_pack_client_response" if !self.pack_response_named => {
                remove(v, "response_status_name");
            }
            "dimension_data" if self.dimension_min_y => dimensions_out(v),
            "item_stack_response" if self.stack_response_presence => stack_response_presence(v, true),
            "item_stack_request" => {
                if !self.stack_request_legacy_type {
                    stack_request_legacy_types(v);
                }
                if self.craft_actions_old {
                    craft_actions_out(v);
                }
            }
            "crafting_data" if self.crafting_list => crafting_list_out(v),
            _ => {}
        }
        if !self.metadata_legacy_type
            && let Some(Value::Array(entries)) = get_mut(v, "metadata")
        {
            for e in entries {
                remove(e, "legacy_type");
            }
        }
        Ok(())
    }

    // --- player_auth_input ---------------------------------------------------------------------

    fn auth_input_in(&self, v: &mut Value) {
        match self.input_flags {
            InputFlags::Bits => {
                if let Some(flags) = get_mut(v, "input_data") {
                    *flags = Value::Array(set_flag_names(flags));
                }
            }
            InputFlags::OptionalList => {
                if matches!(v.get("input_data"), None | Some(Value::Void)) {
                    set(v, "input_data", Value::Array(Vec::new()));
                }
            }
            InputFlags::List => {}
        }
        for block in AUTH_INPUT_BLOCKS {
            remove(v, &format!("{block}_presence"));
        }
        if let Some(t) = get_mut(v, "transaction") {
            transaction_in(t, &self.auth_actions);
        }
    }

    fn auth_input_out(&self, v: &mut Value) {
        // A flag says its block follows; set it from the block, so game code only fills blocks.
        let implied: Vec<&str> = AUTH_INPUT_FLAG_OF
            .iter()
            .filter(|(block, _)| !matches!(v.get(block), None | Some(Value::Void)))
            .map(|(_, flag)| *flag)
            .collect();
        if !implied.is_empty() {
            let flags = match get_mut(v, "input_data") {
                Some(f) => f,
                None => {
                    set(v, "input_data", Value::Array(Vec::new()));
                    match get_mut(v, "input_data") {
                        Some(f) => f,
                        None => return,
                    }
                }
            };
            if matches!(flags, Value::Void) {
                *flags = Value::Array(Vec::new());
            }
            if let Value::Array(names) = flags {
                for flag in implied {
                    if !names.iter().any(|n| n.as_str() == Some(flag)) {
                        names.push(Value::Str(flag.to_owned()));
                    }
                }
            }
        }
        if self.auth_input_presence {
            // 1.26.40–45 "double optionals": vanilla writes the presence byte 1 even for an
            // absent block (`01 00`).
            for block in AUTH_INPUT_BLOCKS {
                set(v, &format!("{block}_presence"), Value::Bool(true));
            }
        }
        if let Some(t) = get_mut(v, "transaction") {
            if self.auth_input_presence {
                set(t, "actions_presence", Value::Bool(true));
            }
            self.transaction_out(t, &self.auth_actions, "data");
        }
    }

    // --- transactions ------------------------------------------------------------------------

    /// `t` is a transaction container; `data` names its use-item field.
    fn transaction_out(&self, t: &mut Value, layout: &ActionLayout, data: &str) {
        if let Some(Value::Array(actions)) = get_mut(t, "actions") {
            for a in actions {
                match layout {
                    // The mapper takes the window's number as is.
                    ActionLayout::SourceSwitch(_) => rename(a, "window_id", "inventory_id"),
                    // Double optionals (1.26.30–45): writers always write the presence byte 1.
                    ActionLayout::Presence => {
                        set(a, "container_presence", Value::Bool(true));
                        set(a, "flag_presence", Value::Bool(true));
                    }
                    ActionLayout::Options => {}
                }
            }
        }
        if !self.use_item_hand
            && let Some(d) = get_mut(t, data)
        {
            remove(d, "hand");
        }
    }
}

/// Transaction actions to the views' layout.
fn transaction_in(t: &mut Value, layout: &ActionLayout) {
    remove(t, "actions_presence");
    if let Some(Value::Array(actions)) = get_mut(t, "actions") {
        for a in actions {
            match layout {
                ActionLayout::SourceSwitch(windows) => {
                    // Window names (`"inventory"`) back to the numbers later versions carry.
                    if let Some(w) = remove(a, "inventory_id") {
                        let n = match &w {
                            Value::Str(name) => windows.iter().find(|(_, n)| n == name).map(|(k, _)| Value::Int(*k)),
                            _ => None,
                        };
                        set(a, "window_id", n.unwrap_or(w));
                    }
                }
                ActionLayout::Presence => {
                    remove(a, "container_presence");
                    remove(a, "flag_presence");
                }
                ActionLayout::Options => {}
            }
        }
    }
}

/// PlayerAuthInput's optional blocks, in wire order.
const AUTH_INPUT_BLOCKS: [&str; 5] =
    ["transaction", "item_stack_request", "block_action", "vehicle_rotation", "predicted_vehicle"];
/// Which input flag announces which block.
const AUTH_INPUT_FLAG_OF: [(&str, &str); 5] = [
    ("transaction", "item_interact"),
    ("item_stack_request", "item_stack_request"),
    ("block_action", "block_action"),
    ("vehicle_rotation", "client_predicted_vehicle"),
    ("predicted_vehicle", "client_predicted_vehicle"),
];

/// The names of the flags set in a decoded bitflags object.
fn set_flag_names(flags: &Value) -> Vec<Value> {
    match flags {
        Value::Object(fields) => fields
            .iter()
            .filter(|(k, v)| k != "_value" && matches!(v, Value::Bool(true)))
            .map(|(k, _)| Value::Str(k.clone()))
            .collect(),
        Value::Array(names) => names.clone(),
        _ => Vec::new(),
    }
}

// --- move_entity_delta -------------------------------------------------------------------------

/// Axis fields and the flag announcing each.
const DELTA_AXES: [(&str, &str); 6] = [
    ("x", "has_x"),
    ("y", "has_y"),
    ("z", "has_z"),
    ("rot_x", "has_rot_x"),
    ("rot_y", "has_rot_y"),
    ("rot_z", "has_rot_z"),
];
/// Flags that are plain booleans of the newer layout (`teleport` only exists here; it stays in
/// the view's other fields so a decoded packet re-encodes as it was).
const DELTA_BOOLS: [&str; 3] = ["on_ground", "force_move", "teleport"];

fn move_delta_in(v: &mut Value) {
    let Some(flags) = remove(v, "flags") else { return };
    for name in DELTA_BOOLS {
        let on = matches!(flags.get(name), Some(Value::Bool(true)));
        set(v, name, Value::Bool(on));
    }
}

fn move_delta_out(v: &mut Value) {
    let mut flags = Vec::new();
    for (axis, flag) in DELTA_AXES {
        let present = !matches!(v.get(axis), None | Some(Value::Void));
        flags.push((flag.to_owned(), Value::Bool(present)));
    }
    for name in DELTA_BOOLS {
        let on = matches!(remove(v, name), Some(Value::Bool(true)));
        flags.push((name.to_owned(), Value::Bool(on)));
    }
    for gone in ["force_move_local_entity", "force_completion", "ticks"] {
        remove(v, gone);
    }
    set(v, "flags", Value::Object(flags));
}

// --- level_chunk -------------------------------------------------------------------------------

/// `sub_chunk_count` of a request-mode chunk with a limit in the older layout (−2 as u32).
const REQUEST_WITH_LIMIT: u64 = u32::MAX as u64 - 1;

fn level_chunk_in(v: &mut Value) {
    let hashes = match remove(v, "blobs") {
        Some(b) => match b.get("hashes") {
            Some(h) => h.clone(),
            None => Value::Array(Vec::new()),
        },
        None => Value::Array(Vec::new()),
    };
    set(v, "blobs", hashes);
}

fn level_chunk_out(v: &mut Value) {
    if !matches!(v.get("highest_subchunk_count"), None | Some(Value::Void)) {
        set(v, "sub_chunk_count", Value::UInt(REQUEST_WITH_LIMIT));
    }
    let hashes = remove(v, "blobs").unwrap_or(Value::Array(Vec::new()));
    set(v, "blobs", Value::Object(vec![("hashes".to_owned(), hashes)]));
}

// --- subchunk_request / subchunk ------------------------------------------------------------------

const DELTAS: [&str; 3] = ["dx", "dy", "dz"];
const OFFSETS: [&str; 3] = ["x", "y", "z"];

fn subchunk_request_rename(v: &mut Value, from: [&str; 3], to: [&str; 3]) {
    if let Some(Value::Array(requests)) = get_mut(v, "requests") {
        for r in requests {
            for (a, b) in from.iter().zip(to) {
                rename(r, a, b);
            }
        }
    }
}

fn subchunk_heightmaps(v: &mut Value, convert: fn(&Value) -> Value) {
    if let Some(Value::Array(entries)) = get_mut(v, "entries") {
        for e in entries {
            for name in ["heightmap", "render_heightmap"] {
                if let Some(h) = get_mut(e, name)
                    && !matches!(h, Value::Void)
                {
                    *h = convert(h);
                }
            }
        }
    }
}

/// 16 rows of signed heights → 256 bytes.
fn rows_to_bytes(rows: &Value) -> Value {
    let mut out = Vec::with_capacity(256);
    if let Value::Array(rows) = rows {
        for row in rows {
            if let Value::Array(cells) = row {
                out.extend(cells.iter().map(|c| c.as_i64().unwrap_or(0) as i8 as u8));
            }
        }
    }
    Value::Bytes(out)
}

/// 256 bytes → 16 rows of 16 signed heights.
fn bytes_to_rows(bytes: &Value) -> Value {
    let b: Vec<u8> = match bytes {
        Value::Bytes(b) => b.clone(),
        Value::Array(items) => items.iter().map(|i| i.as_i64().unwrap_or(0) as u8).collect(),
        other => return other.clone(),
    };
    Value::Array(
        b.chunks(16).map(|row| Value::Array(row.iter().map(|&c| Value::Int(i64::from(c as i8))).collect())).collect(),
    )
}

// --- player_list -------------------------------------------------------------------------------

fn player_list_in(v: &mut Value) {
    let Some(group) = remove(v, "records") else { return };
    let kind = group.get("type").cloned().unwrap_or(Value::Void);
    let mut records = match group.get("records") {
        Some(Value::Array(r)) => r.clone(),
        _ => Vec::new(),
    };
    for r in &mut records {
        if let Value::Object(fields) = r {
            fields.insert(0, ("type".to_owned(), kind.clone()));
        }
    }
    set(v, "records", Value::Array(records));
}

fn player_list_out(v: &mut Value) -> Result<(), String> {
    let records = match remove(v, "records") {
        Some(Value::Array(r)) => r,
        _ => Vec::new(),
    };
    let kind = records.first().and_then(|r| r.get("type")).cloned().unwrap_or(Value::Str("add".into()));
    let mut inner = Vec::with_capacity(records.len());
    for mut r in records {
        if r.get("type") != Some(&kind) {
            return Err("this version's player_list carries one record type per packet".into());
        }
        remove(&mut r, "type");
        remove(&mut r, "legacy_type");
        inner.push(r);
    }
    let n = inner.len();
    let mut group = vec![
        ("type".to_owned(), kind.clone()),
        ("records_count".to_owned(), Value::UInt(n as u64)),
        ("records".to_owned(), Value::Array(inner)),
    ];
    if kind.as_str() == Some("add") {
        group.push(("verified".to_owned(), Value::Array(vec![Value::Bool(true); n])));
    }
    set(v, "records", Value::Object(group));
    Ok(())
}

// --- resource_pack_client_response, dimension_data ----------------------------------------------

fn pack_response_in(v: &mut Value) {
    if v.get("response_status").and_then(Value::as_str) != Some("send_packs") {
        remove(v, "resourcepackids");
    }
}

fn dimensions_in(v: &mut Value) {
    if let Some(Value::Array(defs)) = get_mut(v, "definitions") {
        for d in defs {
            let min = d.get("min_y").and_then(Value::as_i64).unwrap_or(0);
            let range = d.get("height_range").and_then(Value::as_i64).unwrap_or(0);
            remove(d, "min_y");
            remove(d, "height_range");
            set(d, "min_height", Value::Int(min));
            set(d, "max_height", Value::Int(min + range));
        }
    }
}

fn dimensions_out(v: &mut Value) {
    if let Some(Value::Array(defs)) = get_mut(v, "definitions") {
        for d in defs {
            let min = remove(d, "min_height").and_then(|x| x.as_i64()).unwrap_or(0);
            let max = remove(d, "max_height").and_then(|x| x.as_i64()).unwrap_or(0);
            set(d, "min_y", Value::Int(min));
            set(d, "height_range", Value::Int(max - min));
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Value tree helpers
// ---------------------------------------------------------------------------------------------

// --- item stacks ------------------------------------------------------------------------------

/// Item-stack request actions before 1.26.40 have no `legacy_type_id`.
fn stack_request_legacy_types(v: &mut Value) {
    let Some(Value::Array(requests)) = get_mut(v, "requests") else { return };
    for r in requests {
        if let Some(Value::Array(actions)) = get_mut(r, "actions") {
            for a in actions {
                remove(a, "legacy_type_id");
            }
        }
    }
}

// --- crafting ---------------------------------------------------------------------------------

/// Recipe kinds of the ≤ 1.26.30 list, in the order the list is rebuilt, with the array each
/// goes to in the views' layout. Furnace recipes have no array there and are left out.
const RECIPE_KINDS: [(&str, &str); 8] = [
    ("shaped", "shaped_recipes"),
    ("shapeless", "shapeless_recipes"),
    ("multi", "multi_recipes"),
    ("shulker_box", "shulker_box_recipes"),
    ("shapeless_chemistry", "shapeless_chemistry_recipes"),
    ("shaped_chemistry", "shaped_chemistry_recipes"),
    ("smithing_transform", "smithing_transform_recipes"),
    ("smithing_trim", "smithing_trim_recipes"),
];

/// Whether recipes of this kind have a pattern / an ingredient list to rewrite.
fn is_shaped(kind: &str) -> bool {
    kind == "shaped" || kind == "shaped_chemistry"
}
fn has_input_list(kind: &str) -> bool {
    matches!(kind, "shaped" | "shapeless" | "shulker_box" | "shapeless_chemistry" | "shaped_chemistry")
}

fn ingredient_in(old: &Value) -> Value {
    let s = |k: &str| old.get(k).cloned().unwrap_or_default();
    let count = ("count".to_owned(), s("count"));
    let valid = |descriptor: &str, mut fields: Vec<(String, Value)>| {
        let mut out = vec![
            ("type".to_owned(), Value::Str("valid".into())),
            ("descriptor_type".to_owned(), Value::Str(descriptor.into())),
        ];
        out.append(&mut fields);
        out.push(count.clone());
        Value::Object(out)
    };
    match old.get("type").and_then(Value::as_str).unwrap_or("") {
        "int_id_meta" => match old.get("network_id").and_then(Value::as_i64) {
            Some(id) if id != 0 => valid(
                "int_id_meta",
                vec![("name".into(), Value::Str(format!("#{id}"))), ("metadata".into(), s("metadata"))],
            ),
            _ => valid("empty", vec![("metadata".into(), Value::Int(0))]),
        },
        "string_id_meta" => valid("name", vec![("name".into(), s("name")), ("metadata".into(), s("metadata"))]),
        "item_tag" => valid("item_tag", vec![("tag".into(), s("tag")), ("metadata".into(), Value::Int(0))]),
        "molang" => valid("molang", vec![("expression".into(), s("expression")), ("version".into(), s("version"))]),
        "complex_alias" => valid("complex_alias", vec![("name".into(), s("name"))]),
        _ => Value::Object(vec![
            ("type".into(), Value::Str("invalid".into())),
            ("metadata".into(), Value::Int(0)),
            count.clone(),
        ]),
    }
}

fn ingredient_out(new: &Value) -> Value {
    let s = |k: &str| new.get(k).cloned().unwrap_or_default();
    let kind = |k: &str, mut fields: Vec<(String, Value)>| {
        let mut out = vec![("type".to_owned(), Value::Str(k.into()))];
        out.append(&mut fields);
        out.push(("count".into(), s("count")));
        Value::Object(out)
    };
    if new.get("type").and_then(Value::as_str) != Some("valid") {
        return kind("invalid", vec![]);
    }
    match new.get("descriptor_type").and_then(Value::as_str).unwrap_or("") {
        "int_id_meta" => {
            let id = new.get("name").and_then(Value::as_str).and_then(|n| n.strip_prefix('#')?.parse::<i64>().ok());
            kind(
                "int_id_meta",
                vec![("network_id".into(), Value::Int(id.unwrap_or(0))), ("metadata".into(), s("metadata"))],
            )
        }
        "empty" => kind("int_id_meta", vec![("network_id".into(), Value::Int(0))]),
        "name" => kind("string_id_meta", vec![("name".into(), s("name")), ("metadata".into(), s("metadata"))]),
        "item_tag" => kind("item_tag", vec![("tag".into(), s("tag"))]),
        "molang" => kind("molang", vec![("expression".into(), s("expression")), ("version".into(), s("version"))]),
        "complex_alias" => kind("complex_alias", vec![("name".into(), s("name"))]),
        _ => kind("invalid", vec![]),
    }
}

/// ≤ 1.26.30 CraftingData → one array per kind, flat shaped inputs, new ingredient forms.
fn crafting_list_in(v: &mut Value) {
    let Some(Value::Array(list)) = remove(v, "recipes") else { return };
    let mut groups: Vec<Vec<Value>> = vec![Vec::new(); RECIPE_KINDS.len()];
    for mut entry in list {
        let kind = entry.get("type").and_then(Value::as_str).unwrap_or("").to_owned();
        let Some(i) = RECIPE_KINDS.iter().position(|(k, _)| *k == kind) else { continue };
        let mut recipe = remove(&mut entry, "recipe").unwrap_or_default();
        if has_input_list(&kind)
            && let Some(Value::Array(input)) = get_mut(&mut recipe, "input")
        {
            let cells = std::mem::take(input);
            let flat: Vec<Value> = if is_shaped(&kind) {
                cells
                    .into_iter()
                    .flat_map(|col| match col {
                        Value::Array(c) => c,
                        other => vec![other],
                    })
                    .collect()
            } else {
                cells
            };
            *input = flat.iter().map(ingredient_in).collect();
        }
        groups[i].push(recipe);
    }
    if let Value::Object(fields) = v {
        for (i, (_, key)) in RECIPE_KINDS.iter().enumerate().rev() {
            fields.insert(0, ((*key).to_owned(), Value::Array(std::mem::take(&mut groups[i]))));
        }
    }
}

/// The views' CraftingData → the ≤ 1.26.30 tagged list (a tree already in that form is left).
fn crafting_list_out(v: &mut Value) {
    if v.get("recipes").is_some() {
        return;
    }
    let mut list = Vec::new();
    for (kind, key) in RECIPE_KINDS {
        let Some(Value::Array(recipes)) = remove(v, key) else { continue };
        for mut recipe in recipes {
            let height = recipe_height(&recipe);
            if has_input_list(kind)
                && let Some(Value::Array(input)) = get_mut(&mut recipe, "input")
            {
                let cells: Vec<Value> = input.iter().map(ingredient_out).collect();
                *input = if is_shaped(kind) {
                    cells.chunks(height).map(|c| Value::Array(c.to_vec())).collect()
                } else {
                    cells
                };
            }
            list.push(Value::Object(vec![("type".into(), Value::Str(kind.into())), ("recipe".into(), recipe)]));
        }
    }
    if let Value::Object(fields) = v {
        fields.insert(0, ("recipes".into(), Value::Array(list)));
    }
}

/// A shaped recipe's height (at least 1, so a bad recipe cannot stop the rewrite).
fn recipe_height(recipe: &Value) -> usize {
    recipe.get("height").and_then(Value::as_i64).and_then(|h| usize::try_from(h).ok()).unwrap_or(1).max(1)
}

/// ≤ 1.26.30 craft actions: `craft_recipe_auto` counts crafts twice and names ingredients the old
/// way; `results_deprecated` lists `ItemLegacy` items (by network id). Trees already in that
/// form are left as they are.
fn craft_actions_out(v: &mut Value) {
    let Some(Value::Array(requests)) = get_mut(v, "requests") else { return };
    for r in requests {
        let Some(Value::Array(actions)) = get_mut(r, "actions") else { continue };
        for a in actions {
            match a.get("type_id").and_then(Value::as_str) {
                Some("craft_recipe_auto") => {
                    if a.get("times_crafted_2").is_none() {
                        let times = a.get("times_crafted").cloned().unwrap_or_default();
                        set(a, "times_crafted_2", times);
                    }
                    if let Some(Value::Array(list)) = get_mut(a, "ingredients") {
                        for i in list.iter_mut() {
                            if i.get("legacy_type").is_some() {
                                *i = auto_ingredient_out(i);
                            }
                        }
                    }
                }
                Some("results_deprecated") => {
                    if let Some(Value::Array(items)) = get_mut(a, "result_items") {
                        for it in items.iter_mut() {
                            for k in ["type", "legacy_type", "name"] {
                                remove(it, k);
                            }
                        }
                    }
                }
                _ => {}
            }
        }
    }
}

/// A `RecipeIngredient2` as the older `RecipeIngredient`.
fn auto_ingredient_out(i: &Value) -> Value {
    let s = |k: &str| i.get(k).cloned().unwrap_or_default();
    let (kind, mut fields) = match i.get("type").and_then(Value::as_str).unwrap_or("") {
        "name" => ("string_id_meta", vec![("name".to_owned(), s("name")), ("metadata".to_owned(), s("metadata"))]),
        "item_tag" => ("item_tag", vec![("tag".to_owned(), s("tag"))]),
        "molang" => ("molang", vec![("expression".to_owned(), s("expression")), ("version".to_owned(), s("version"))]),
        _ => ("invalid", vec![]),
    };
    let mut out = vec![("type".to_owned(), Value::Str(kind.into()))];
    out.append(&mut fields);
    out.push(("count".into(), s("count")));
    Value::Object(out)
}

/// 1.26.40–45 item-stack responses: presence bools before the options. Removed when reading,
/// set from the options when `writing`.
fn stack_response_presence(v: &mut Value, writing: bool) {
    let Some(Value::Array(responses)) = get_mut(v, "responses") else { return };
    for r in responses {
        presence(r, "containers", writing);
        if let Some(Value::Array(containers)) = get_mut(r, "containers") {
            for c in containers {
                if let Some(Value::Array(slots)) = get_mut(c, "slots") {
                    for s in slots {
                        presence(s, "item_stack_id", writing);
                    }
                }
            }
        }
    }
}

/// Removes `<field>_presence`, or (`writing`) sets it to whether `field` is present.
fn presence(v: &mut Value, field: &str, writing: bool) {
    let key = format!("{field}_presence");
    if writing {
        let present = !matches!(v.get(field), None | Some(Value::Void));
        set(v, &key, Value::Bool(present));
    } else {
        remove(v, &key);
    }
}

fn get_mut<'v>(v: &'v mut Value, key: &str) -> Option<&'v mut Value> {
    match v {
        Value::Object(fields) => fields.iter_mut().rev().find(|(k, _)| k == key).map(|(_, x)| x),
        _ => None,
    }
}

fn remove(v: &mut Value, key: &str) -> Option<Value> {
    match v {
        Value::Object(fields) => {
            let i = fields.iter().position(|(k, _)| k == key)?;
            Some(fields.remove(i).1)
        }
        _ => None,
    }
}

/// Sets `key` (in place if present, else appended).
fn set(v: &mut Value, key: &str, x: Value) {
    if let Value::Object(fields) = v {
        match fields.iter_mut().find(|(k, _)| k == key) {
            Some(slot) => slot.1 = x,
            None => fields.push((key.to_owned(), x)),
        }
    }
}

fn rename(v: &mut Value, from: &str, to: &str) {
    if let Value::Object(fields) = v
        && let Some(slot) = fields.iter_mut().find(|(k, _)| k == from)
    {
        slot.0 = to.to_owned();
    }
}

#[cfg(test)]
mod tests {
    use crate::codec::{Protocol, Value};
    use crate::packets::{BlockAction, BlockPos, LevelChunk, MoveEntityDelta, PlayerAuthInput};

    fn wire(p: &Protocol, body: &[u8]) -> Value {
        p.decode(body).expect("decodes").1
    }

    fn flag_set(v: &Value, flag: &str) -> bool {
        match v.get("input_data") {
            Some(Value::Object(bits)) => bits.iter().any(|(k, b)| k == flag && *b == Value::Bool(true)),
            Some(Value::Array(names)) => names.iter().any(|n| n.as_str() == Some(flag)),
            _ => false,
        }
    }

    /// Game code fills blocks and names flags; each version gets its own encoding of both, and
    /// decoding gives the same view back.
    #[test]
    fn auth_input_flags_and_optional_blocks_per_version() {
        for info in Protocol::versions() {
            let p = Protocol::load(info.game_version).expect("load");
            let mut input = PlayerAuthInput::idle([0.5, -58.38, 0.5], 90.0, 10.0, 7, &["up", "sprinting"]);
            input.block_action = Some(vec![BlockAction {
                action: "start_break".into(),
                position: BlockPos { x: 1, y: -61, z: 0 },
                face: 1,
            }]);
            let body = p.encode(&input).expect("encode");
            let v = wire(&p, &body);
            for flag in ["up", "sprinting", "block_action"] {
                assert!(flag_set(&v, flag), "{}: {flag} in {:?}", info.game_version, v.get("input_data"));
            }
            assert!(!flag_set(&v, "item_interact"), "{}", info.game_version);
            if v.get("transaction_presence").is_some() {
                // 1.26.40–45 double optionals: presence 1 even for the absent transaction.
                assert_eq!(v.get("transaction_presence"), Some(&Value::Bool(true)));
                assert_eq!(v.get("transaction"), Some(&Value::Void));
            }
            let back: PlayerAuthInput = p.decode_as(&body).expect("decode");
            assert_eq!(back.block_action, input.block_action, "{}", info.game_version);
            let mut want = input.input_data.clone();
            want.push("block_action".into());
            let mut got = back.input_data.clone();
            got.sort();
            want.sort();
            assert_eq!(got, want, "{}", info.game_version);
            assert_eq!(p.encode(&back).expect("re-encode"), body, "{}", info.game_version);
        }
    }

    /// Request mode with a limit reads the same in every version, whatever the encoding.
    #[test]
    fn level_chunk_request_mode_per_version() {
        use crate::packets::ChunkDelivery;
        for info in Protocol::versions() {
            let p = Protocol::load(info.game_version).expect("load");
            let chunk = LevelChunk { x: 1, z: 2, highest_subchunk_count: Some(6), ..LevelChunk::default() };
            let back: LevelChunk = p.decode_as(&p.encode(&chunk).expect("encode")).expect("decode");
            assert_eq!(back.delivery(), ChunkDelivery::Request(Some(6)), "{}", info.game_version);
            let full = LevelChunk { sub_chunk_count: 4, ..LevelChunk::default() };
            let back: LevelChunk = p.decode_as(&p.encode(&full).expect("encode")).expect("decode");
            assert_eq!(back.delivery(), ChunkDelivery::Full(4), "{}", info.game_version);
        }
    }

    #[test]
    fn move_entity_delta_axes_per_version() {
        for info in Protocol::versions() {
            let p = Protocol::load(info.game_version).expect("load");
            let d = MoveEntityDelta {
                runtime_entity_id: 5,
                y: Some(64.5),
                rot_y: Some(32),
                on_ground: true,
                ..MoveEntityDelta::default()
            };
            let back: MoveEntityDelta = p.decode_as(&p.encode(&d).expect("encode")).expect("decode");
            assert_eq!((back.x, back.y, back.z, back.rot_y, back.on_ground), (None, Some(64.5), None, Some(32), true));
        }
    }
}
