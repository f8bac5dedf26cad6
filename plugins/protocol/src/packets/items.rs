//! Item and inventory packets: typed views with minecraft-data's field names (checked against
//! `data/bedrock/1.26.45/protocol.json`): the item instance (`ItemV4`), inventory contents and
//! slots, held-item selection, item-stack requests and responses, inventory transactions (use an
//! item on a block, in the air, on an entity; release it), completed item uses, arm swings,
//! interactions and container windows.

use super::{BlockPos, InventoryTransaction, ItemStack, Rest, Transaction, TransactionAction, UseItem, Vec3};
use crate::codec::{Nbt, NbtTag, Packet};
use serde::{Deserialize, Serialize};

/// The NBT blob of an item (`has_nbt` = `"true"`): format version (1) and a little-endian compound.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct ItemNbt {
    /// Format version, 1.
    pub version: u8,
    /// The item's tag compound (`Damage`, `ench`, `display`, …).
    pub nbt: Nbt,
}

/// The user data of an item (`ItemExtraDataWith[out]BlockingTick`, length-prefixed on the wire).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct ItemExtra {
    /// `"true"` when `nbt` follows, else `"false"`.
    pub has_nbt: String,
    /// The tag compound, when `has_nbt`.
    pub nbt: Option<ItemNbt>,
    /// Adventure-mode placement restrictions.
    pub can_place_on: Vec<String>,
    /// Adventure-mode breaking restrictions.
    pub can_destroy: Vec<String>,
    /// Only for the shield (its network id is the codec's `ShieldItemID`).
    pub blocking_tick: Option<i64>,
}

impl Default for ItemExtra {
    /// No NBT and no restrictions: what an air item and a plain stack carry.
    fn default() -> Self {
        Self {
            has_nbt: "false".into(),
            nbt: None,
            can_place_on: Vec::new(),
            can_destroy: Vec::new(),
            blocking_tick: None,
        }
    }
}

/// `ItemV4`: an item stack as 1.26.40+ writes it (air in full). Network ids come from the
/// server's `item_registry`; never hard-code them.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct ItemInstance {
    /// Network id (0 = air).
    pub network_id: i32,
    /// Stack size.
    pub count: u16,
    /// Aux value (damage of old items, variants).
    pub metadata: u32,
    /// Whether `stack_id` follows.
    pub has_stack_id: bool,
    /// The server's stack network id (item-stack requests name stacks by it).
    pub stack_id: Option<i32>,
    /// Block state id of a block item (0 for other items; a hash on hashed servers). Older
    /// item encodings carry it signed; read as the same 32 bits.
    #[serde(deserialize_with = "wrapping_u32")]
    pub block_runtime_id: u32,
    /// NBT and restrictions.
    pub extra: ItemExtra,
}

/// A `u32` that older layouts carry in a signed field (two's complement).
fn wrapping_u32<'de, D: serde::Deserializer<'de>>(d: D) -> Result<u32, D::Error> {
    let v = i64::deserialize(d)?;
    match i32::try_from(v) {
        Ok(signed) if signed < 0 => Ok(signed as u32),
        _ => u32::try_from(v).map_err(serde::de::Error::custom),
    }
}

impl ItemInstance {
    /// The empty slot.
    pub fn air() -> Self {
        Self::default()
    }

    /// The same item as the [`ItemStack`] view other packets carry (transaction actions, the
    /// use-item data): both are the wire's `Item`, this one typed through to its NBT.
    pub fn to_stack(&self) -> ItemStack {
        crate::codec::to_value(self).and_then(|v| crate::codec::from_value(&v)).unwrap_or_default()
    }

    /// An [`ItemStack`] read through to its stack id and NBT.
    pub fn of_stack(stack: &ItemStack) -> Self {
        crate::codec::to_value(stack).and_then(|v| crate::codec::from_value(&v)).unwrap_or_default()
    }

    /// Whether this is an empty slot.
    pub fn is_air(&self) -> bool {
        self.network_id == 0 || self.count == 0
    }

    /// The item's tag compound, if it has one.
    pub fn tag(&self) -> Option<&[(String, NbtTag)]> {
        match &self.extra.nbt.as_ref()?.nbt.tag {
            NbtTag::Compound(entries) => Some(entries),
            _ => None,
        }
    }

    /// An integer entry of the tag compound (`Damage`, `RepairCost`, …).
    pub fn tag_int(&self, key: &str) -> Option<i64> {
        self.tag()?.iter().find(|(k, _)| k == key).and_then(|(_, v)| nbt_int(v))
    }

    /// `(enchantment id, level)` pairs of the tag's `ench` list.
    pub fn enchantments(&self) -> Vec<(i16, i16)> {
        let Some(NbtTag::List(_, list)) = self.tag().and_then(|t| t.iter().find(|(k, _)| k == "ench").map(|(_, v)| v))
        else {
            return Vec::new();
        };
        list.iter()
            .filter_map(|e| match e {
                NbtTag::Compound(fields) => {
                    let get = |k: &str| fields.iter().find(|(n, _)| n == k).and_then(|(_, v)| nbt_int(v));
                    Some((i16::try_from(get("id")?).ok()?, i16::try_from(get("lvl")?).ok()?))
                }
                _ => None,
            })
            .collect()
    }
}

fn nbt_int(tag: &NbtTag) -> Option<i64> {
    match *tag {
        NbtTag::Byte(v) => Some(i64::from(v)),
        NbtTag::Short(v) => Some(i64::from(v)),
        NbtTag::Int(v) => Some(i64::from(v)),
        NbtTag::Long(v) => Some(v),
        _ => None,
    }
}

/// `FullContainerName`: a container kind (`ContainerSlotType` name, e.g. `"hotbar"`,
/// `"inventory"`, `"armor"`, `"offhand"`, `"cursor"`) and its dynamic id.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct FullContainerName {
    /// `ContainerSlotType` name.
    pub container_id: String,
    /// Only for dynamic containers (bundles).
    pub dynamic_container_id: Option<u32>,
}

impl FullContainerName {
    /// A plain (non-dynamic) container.
    pub fn of(container_id: &str) -> Self {
        Self { container_id: container_id.to_owned(), dynamic_container_id: None }
    }
}

/// `inventory_content`: every slot of a window (`WindowIDVarint` name: `"inventory"` = 36 slots,
/// `"armor"` = 4, `"offhand"` = 1, `"ui"` = cursor and crafting slots).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct InventoryContent {
    /// Window name (or a number as text).
    pub window_id: String,
    /// The slots, in order.
    pub input: Vec<ItemInstance>,
    /// The container the window shows.
    pub container: FullContainerName,
    /// Storage item (bundles).
    pub storage_item: ItemInstance,
}
packet!(InventoryContent, "inventory_content");

/// `inventory_slot`: one slot of a window changed.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct InventorySlot {
    /// Window name (or a number as text).
    pub window_id: String,
    /// Slot index in the window.
    pub slot: u32,
    /// The container, when the server names it.
    pub container: Option<FullContainerName>,
    /// Storage item (bundles).
    pub storage_item: Option<ItemInstance>,
    /// The slot's new content.
    pub item: ItemInstance,
}
packet!(InventorySlot, "inventory_slot");

/// `mob_equipment`: the item an entity holds; for our own runtime id, the hotbar slot selected.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct MobEquipment {
    /// The entity.
    pub runtime_entity_id: u64,
    /// The item now held.
    pub item: ItemInstance,
    /// Inventory slot of the item (0–8 for the hotbar).
    pub slot: u8,
    /// Hotbar slot selected.
    pub selected_slot: u8,
    /// `WindowID` name (`"inventory"`).
    pub window_id: String,
}
packet!(MobEquipment, "mob_equipment");

/// `player_hotbar` (server → client): the server selects a hotbar slot.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct PlayerHotbar {
    /// Hotbar slot 0–8.
    pub selected_slot: u32,
    /// `WindowID` name.
    pub window_id: String,
    /// Whether the client must switch to it.
    pub select_slot: bool,
}
packet!(PlayerHotbar, "player_hotbar");

/// `StackRequestSlotInfo`: a slot named by container, index and the stack id the client believes
/// is there (0 for an empty slot).
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct StackSlot {
    /// The container.
    pub slot_type: FullContainerName,
    /// Slot index (absolute: hotbar 0–8 and inventory 9–35 both use inventory numbering).
    pub slot: u8,
    /// The stack network id.
    pub stack_id: i32,
}

/// One action of an item-stack request. `type_id` selects which of the optional fields are on
/// the wire (take/place: count, source, destination; swap: source, destination; drop: count,
/// source, randomly; destroy/consume: count, source; mine_block: hotbar_slot,
/// predicted_durability, network_id); the crafting actions keep their fields in `rest`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct StackAction {
    /// `"take"`, `"place"`, `"swap"`, `"drop"`, `"destroy"`, `"consume"`, `"mine_block"`,
    /// `"craft_recipe"`, … (minecraft-data names).
    pub type_id: String,
    /// The legacy action id (take 0, place 1, swap 2, drop 3, destroy 4, consume 5, create 6,
    /// mine_block 11, craft_recipe 12, …).
    pub legacy_type_id: u8,
    /// Items moved.
    pub count: Option<u8>,
    /// Where from.
    pub source: Option<StackSlot>,
    /// Where to.
    pub destination: Option<StackSlot>,
    /// Drop: scatter randomly.
    pub randomly: Option<bool>,
    /// mine_block: the hotbar slot of the tool.
    pub hotbar_slot: Option<i32>,
    /// mine_block: the tool's damage after the break.
    pub predicted_durability: Option<i32>,
    /// mine_block: the tool's stack network id.
    pub network_id: Option<i32>,
    /// craft_recipe / craft_recipe_auto: the recipe's network id (CraftingData).
    pub recipe_network_id: Option<u32>,
    /// craft_recipe / craft_recipe_auto / results_deprecated: how many crafts.
    pub times_crafted: Option<u8>,
    /// Fields of the other action kinds (crafting), kept as they are.
    #[serde(flatten)]
    pub rest: Rest,
}

/// One request of `item_stack_request`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct StackRequest {
    /// Negative odd ids (−1, −3, …); the response carries it back.
    pub request_id: i32,
    /// Applied in order.
    pub actions: Vec<StackAction>,
    /// Text filtering (anvil names); usually empty.
    pub custom_names: Vec<String>,
    /// Filter cause (`"chat_public"` = 0 when unused).
    pub cause: String,
}

/// `item_stack_request` (client → server): server-authoritative inventory moves.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct ItemStackRequest {
    /// The requests.
    pub requests: Vec<StackRequest>,
}
packet!(ItemStackRequest, "item_stack_request");

/// A slot as the server reports it after a request.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct ResponseSlot {
    /// Slot index.
    pub slot: u8,
    /// Hotbar slot (same numbering).
    pub hotbar_slot: u8,
    /// Items now in the slot (0 = empty).
    pub count: u8,
    /// The slot's stack network id now.
    pub item_stack_id: Option<i32>,
    /// Custom name.
    pub custom_name: String,
    /// Filtered custom name.
    pub filtered_custom_name: String,
    /// Durability the server corrects to.
    pub durability_correction: i32,
}

/// The slots of one container a response reports.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct ResponseContainer {
    /// The container.
    pub slot_type: FullContainerName,
    /// Its changed slots.
    pub slots: Vec<ResponseSlot>,
}

/// The answer to one request.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct StackResponse {
    /// `"ok"`, `"error"`, or another status number as text.
    pub status: String,
    /// The request's id.
    pub request_id: i32,
    /// The slots as the server has them now (only with `"ok"`).
    pub containers: Option<Vec<ResponseContainer>>,
}

/// `item_stack_response` (server → client).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct ItemStackResponse {
    /// One per answered request.
    pub responses: Vec<StackResponse>,
}
packet!(ItemStackResponse, "item_stack_response");

impl ResponseSlot {
    /// Slot `slot` now holding `count` items of stack `stack_id` (0 items: empty).
    pub fn stack(slot: u8, count: u8, stack_id: i32) -> Self {
        Self { slot, hotbar_slot: slot, count, item_stack_id: Some(stack_id), ..Self::default() }
    }
}

impl ItemStackResponse {
    /// The server accepting request `request_id`, with the slots it changed per container.
    pub fn ok(request_id: i32, containers: Vec<(&str, Vec<ResponseSlot>)>) -> Self {
        let containers = containers
            .into_iter()
            .map(|(name, slots)| ResponseContainer { slot_type: FullContainerName::of(name), slots })
            .collect();
        Self { responses: vec![StackResponse { status: "ok".into(), request_id, containers: Some(containers) }] }
    }

    /// The server refusing request `request_id` (`status` e.g. `"error"`).
    pub fn refused(request_id: i32, status: &str) -> Self {
        Self { responses: vec![StackResponse { status: status.into(), request_id, ..StackResponse::default() }] }
    }
}

/// The data of an `item_use_on_entity` transaction (attack or interact with an entity).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct UseOnEntityData {
    /// The target.
    pub entity_runtime_id: u64,
    /// `"interact"` or `"attack"`.
    pub action_type: String,
    /// The selected hotbar slot.
    pub hotbar_slot: i32,
    /// The held item, exactly as the server has it.
    pub held_item: ItemInstance,
    /// Eye position.
    pub player_pos: Vec3,
    /// Hit point on the entity.
    pub click_pos: Vec3,
}

/// The data of an `item_release` transaction (stop eating, fire a bow).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct ReleaseData {
    /// `"release"` or `"consume"`.
    pub action_type: String,
    /// The selected hotbar slot.
    pub hotbar_slot: i32,
    /// The held item, exactly as the server has it.
    pub held_item: ItemInstance,
    /// Eye position.
    pub head_pos: Vec3,
}

/// Building and reading the kinds of [`InventoryTransaction`] whose data the transaction view
/// keeps untyped (`transaction_data` depends on `transaction_type`), so each kind stays typed.
impl InventoryTransaction {
    fn of<D: Serialize>(kind: &str, data: &D) -> Self {
        Self {
            transaction: Transaction {
                transaction_type: kind.into(),
                transaction_data: crate::codec::to_value(data).unwrap_or_default(),
                ..Transaction::default()
            },
        }
    }

    fn data<D: serde::de::DeserializeOwned>(&self, kind: &str) -> Option<D> {
        if self.transaction.transaction_type != kind {
            return None;
        }
        crate::codec::from_value(&self.transaction.transaction_data).ok()
    }

    /// An `item_use` transaction (click a block, use in the air).
    pub fn item_use(data: &UseItem) -> Self {
        Self::of("item_use", data)
    }

    /// An `item_use_on_entity` transaction.
    pub fn use_on_entity(data: &UseOnEntityData) -> Self {
        Self::of("item_use_on_entity", data)
    }

    /// An `item_release` transaction.
    pub fn release(data: &ReleaseData) -> Self {
        Self::of("item_release", data)
    }

    /// A `normal` (legacy slot move) transaction.
    pub fn normal(actions: Vec<TransactionAction>) -> Self {
        Self { transaction: Transaction { transaction_type: "normal".into(), actions, ..Transaction::default() } }
    }

    /// The data of an `item_use` transaction.
    pub fn use_item_data(&self) -> Option<UseItem> {
        self.data("item_use")
    }

    /// The data of an `item_use_on_entity` transaction.
    pub fn use_on_entity_data(&self) -> Option<UseOnEntityData> {
        self.data("item_use_on_entity")
    }

    /// The data of an `item_release` transaction.
    pub fn release_data(&self) -> Option<ReleaseData> {
        self.data("item_release")
    }
}

/// `completed_using_item` (server → client): an item use finished (food eaten, potion drunk, …).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct CompletedUsingItem {
    /// Network id of the used item.
    pub used_item_id: i16,
    /// `"eat"`, `"consume"`, `"throw"`, `"place"`, … (minecraft-data names).
    pub use_method: String,
}
packet!(CompletedUsingItem, "completed_using_item");

/// `animate`: an arm swing (client → server with an attack or a use), a wake-up, critical hits.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct Animate {
    /// `"swing_arm"`, `"wake_up"`, `"critical_hit"`, …
    pub action_id: String,
    /// The entity.
    pub runtime_entity_id: u64,
    /// Rowing time (boats).
    pub data: f32,
    /// Whether `swing_source` follows.
    pub has_swing_source: bool,
    /// `"attack"`, `"mine"`, `"useitem"`, … when `has_swing_source`.
    pub swing_source: Option<String>,
}
packet!(Animate, "animate");

/// `interact` (client → server): open the own inventory, mouse-over an entity, leave a vehicle.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct Interact {
    /// `"open_inventory"`, `"mouse_over_entity"`, `"leave_vehicle"`, `"npc_open"`.
    pub action_id: String,
    /// Own runtime id for `open_inventory`.
    pub target_entity_id: u64,
    /// Whether `position` follows.
    pub has_position: bool,
    /// Mouse-over position.
    pub position: Option<Vec3>,
}
packet!(Interact, "interact");

/// `container_open` (server → client).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct ContainerOpen {
    /// `WindowID` name (`"inventory"` for the own inventory screen).
    pub window_id: String,
    /// `WindowType` name (`"inventory"`, `"container"`, `"furnace"`, …).
    pub window_type: String,
    /// Block position of the container.
    pub coordinates: BlockPos,
    /// Entity of the container (−1 when none).
    pub runtime_entity_id: i64,
}
packet!(ContainerOpen, "container_open");

/// `container_close` (both ways).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct ContainerClose {
    /// `WindowID` name.
    pub window_id: String,
    /// `WindowType` name.
    pub window_type: String,
    /// Whether the server initiated it.
    pub server: bool,
}
packet!(ContainerClose, "container_close");
