//! The open container window ([`OpenContainer`]): which block, its slots as the server sent them
//! (InventoryContent / InventorySlot for the window, and the answers to our own take/put
//! requests), furnace progress (ContainerSetData), and the events `container_opened`,
//! `container_changed`, `container_closed` (ours or the server's) and `furnace_output_ready`.

use bevy_ecs::prelude::*;
use clawcraft_core::{AgentEvent, EventBatch, LocalBot};
use clawcraft_interact::common::BlockXyz;
use clawcraft_inventory::{
    InventoryJobDone, InventoryJobs, Item, ItemIds, ItemJson, JobResult, Screen, confirmed_slot, listed_slots,
};
use clawcraft_network::ClientboundPacket;
use clawcraft_protocol::packets::{
    ContainerClose, ContainerOpen, ContainerSetData, InventoryContent, InventorySlot, StackResponse,
};
use clawcraft_world::chunk::{BlockLookup, World as BlockWorld};
use clawcraft_world::ids::BlockIds;
use schemars::JsonSchema;
use serde::Serialize;

/// Furnace-like windows: slot 0 input, 1 fuel, 2 output.
pub const FURNACE_INPUT: u8 = 0;
pub const FURNACE_FUEL: u8 = 1;
pub const FURNACE_OUTPUT: u8 = 2;

/// Cook/burn progress of a furnace, smoker or blast furnace (ContainerSetData properties 0–2).
#[derive(Serialize, JsonSchema, Debug, Clone, Copy, Default, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub struct FurnaceProgress {
    /// Ticks the current item has cooked.
    pub cook_ticks: i32,
    /// Ticks of fuel left.
    pub burn_ticks: i32,
    /// Ticks the current fuel lasts in all.
    pub burn_duration: i32,
}

/// The bot's container window: the one the server opened, if any.
#[derive(Component, Debug, Clone, Default, PartialEq)]
pub struct Window(pub Option<OpenContainer>);

/// A container window the server opened for the bot.
#[derive(Debug, Clone, PartialEq)]
pub struct OpenContainer {
    /// The server's window id (a WindowID name such as `first`, or its number as text).
    pub window_id: String,
    /// `container`, `furnace`, `blast_furnace`, `smoker`, `workbench`, …
    pub window_type: String,
    /// The block's position.
    pub pos: [i32; 3],
    /// The block's name (`minecraft:chest`, …), from the world at `pos`.
    pub block: String,
    /// The window's slots (empty for a crafting table).
    pub slots: Vec<Option<Item>>,
    /// Whether the server sent the contents yet.
    pub contents_known: bool,
    pub furnace: Option<FurnaceProgress>,
}

impl OpenContainer {
    /// Whether it is a furnace, smoker or blast furnace window.
    pub fn is_furnace(&self) -> bool {
        matches!(self.window_type.as_str(), "furnace" | "blast_furnace" | "smoker")
    }

    /// The item-stack request container name of slot `slot` (`container`, `barrel`, `shulker`,
    /// `furnace_ingredient`, `furnace_fuel`, `furnace_output`, …).
    pub fn slot_container(&self, slot: u8) -> &'static str {
        let block = self.block.strip_prefix("minecraft:").unwrap_or(&self.block);
        if self.is_furnace() {
            return match (slot, self.window_type.as_str()) {
                (FURNACE_FUEL, _) => "furnace_fuel",
                (FURNACE_OUTPUT, _) => "furnace_output",
                (_, "blast_furnace") => "blast_furnace_ingredient",
                (_, "smoker") => "smoker_ingredient",
                _ => "furnace_ingredient",
            };
        }
        if block == "barrel" {
            "barrel"
        } else if block.ends_with("shulker_box") {
            "shulker"
        } else {
            "container"
        }
    }

    /// Whether the item-stack response container `name` is one of this window's.
    pub fn owns(&self, name: &str) -> bool {
        (0..u8::try_from(self.slots.len()).unwrap_or(u8::MAX)).any(|s| self.slot_container(s) == name)
    }

    /// The slots as the agent sees them (occupied ones, with their index).
    pub fn items_json(&self) -> Vec<SlotItem> {
        self.slots
            .iter()
            .enumerate()
            .filter_map(|(i, s)| Some(SlotItem { slot: u8::try_from(i).ok()?, item: s.as_ref()?.json() }))
            .collect()
    }

    /// Takes what an accepted response says about this window's slots (counts and stack ids)
    /// after `expected` (what the request was to leave there). Returns the changed slots.
    pub fn apply_response(&mut self, expected: &[(u8, Option<Item>)], response: &StackResponse) -> Vec<u8> {
        let before = self.slots.clone();
        for (slot, item) in expected {
            if let Some(s) = self.slots.get_mut(usize::from(*slot)) {
                *s = item.clone();
            }
        }
        for (container, listed) in listed_slots(response) {
            if !self.owns(container) {
                continue;
            }
            let Some(s) = self.slots.get_mut(usize::from(listed.slot)) else { continue };
            *s = confirmed_slot(listed, s.take());
        }
        (0..self.slots.len())
            .filter(|i| before.get(*i) != self.slots.get(*i))
            .filter_map(|i| u8::try_from(i).ok())
            .collect()
    }
}

/// Our item-stack requests touching the open window's slots, by inventory job: what each was to
/// leave in the window's slots. When the server answers one, [`apply_stack_responses`] applies
/// the answer to the window, whether or not the action that sent it still runs (aborted, timed
/// out), so `container` always shows what the server's last answer said.
#[derive(Component, Debug, Clone, Default, PartialEq)]
pub struct WindowRequests(pub Vec<WindowRequest>);

/// One request of [`WindowRequests`].
#[derive(Debug, Clone, PartialEq)]
pub struct WindowRequest {
    /// The inventory job that carries it.
    pub job: u64,
    /// The window it was made for (an answer after the window closed changes nothing).
    pub window_id: String,
    /// What the window's slots hold after it (the server's answer gives only counts and ids).
    pub expected: Vec<(u8, Option<Item>)>,
    /// `take` / `put`: the `source` of the `container_changed` events.
    pub source: &'static str,
}

/// Applies the server's accepted item-stack responses to the open window, as
/// [`clawcraft_inventory`] applies them to the inventory: the slots a request of ours was to
/// leave ([`WindowRequests`]), then every count and stack id the response lists for the window's
/// containers; `container_changed` for each slot that changed.
pub fn apply_stack_responses(
    mut done: MessageReader<InventoryJobDone>,
    mut bots: Query<(&mut Window, Option<&mut WindowRequests>)>,
    mut events: MessageWriter<AgentEvent>,
) {
    for d in done.read() {
        let Ok((mut window, requests)) = bots.get_mut(d.bot) else { continue };
        let request = requests.and_then(|mut r| {
            let i = r.0.iter().position(|w| w.job == d.job)?;
            Some(r.0.remove(i))
        });
        let (JobResult::Confirmed, Some(response)) = (&d.result, &d.response) else { continue };
        let Some(c) = window.0.as_mut() else { continue };
        let (expected, source) = match &request {
            Some(r) if r.window_id == c.window_id => (&r.expected[..], r.source),
            Some(_) => continue,
            None => (&[][..], "server"),
        };
        let before = c.slots.clone();
        let changed = c.apply_response(expected, response);
        let mut out = EventBatch::new(d.bot);
        changed_events(c, &before, &changed, source, &mut out);
        events.write_batch(out.drain());
    }
}

/// An occupied slot of a window.
#[derive(Serialize, JsonSchema, Debug, Clone, PartialEq)]
pub struct SlotItem {
    pub slot: u8,
    pub item: ItemJson,
}

/// `container_opened`.
#[derive(Message, Serialize, JsonSchema, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct ContainerOpened {
    #[serde(skip)]
    pub bot: Entity,
    pub window_id: String,
    pub window_type: String,
    pub block: String,
    pub pos: BlockXyz,
}
clawcraft_core::event_kind!(
    ContainerOpened,
    "container_opened",
    "The server opened a container window (chest, barrel, furnace, crafting table, …) at pos; its items follow in container_changed / the container command"
);

/// `container_closed`.
#[derive(Message, Serialize, JsonSchema, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct ContainerClosed {
    #[serde(skip)]
    pub bot: Entity,
    pub window_id: String,
    pub window_type: String,
    pub block: String,
    pub pos: BlockXyz,
    /// True when the server closed it on its own (not an answer to our close).
    pub by_server: bool,
}
clawcraft_core::event_kind!(
    ContainerClosed,
    "container_closed",
    "The open container window closed (after close, or by the server: byServer true)"
);

/// `container_changed`.
#[derive(Message, Serialize, JsonSchema, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct ContainerChanged {
    #[serde(skip)]
    pub bot: Entity,
    pub window_id: String,
    pub pos: BlockXyz,
    pub slot: u8,
    /// The slot now (null: empty).
    pub item: Option<ItemJson>,
    /// The slot before (null: empty).
    pub previous: Option<ItemJson>,
    /// `server` (the server's slot update), `take` / `put` (our confirmed request).
    pub source: String,
}
clawcraft_core::event_kind!(
    ContainerChanged,
    "container_changed",
    "A slot of the open container changed (the server's update or our confirmed take/put); item/previous per slot"
);

/// `furnace_output_ready`.
#[derive(Message, Serialize, JsonSchema, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct FurnaceOutputReady {
    #[serde(skip)]
    pub bot: Entity,
    pub pos: BlockXyz,
    pub window_type: String,
    /// The output slot now.
    pub item: ItemJson,
}
clawcraft_core::event_kind!(
    FurnaceOutputReady,
    "furnace_output_ready",
    "The open furnace/smoker/blast furnace put a smelted item in its output slot (take it with take slot:\"output\")"
);

/// The block name at `pos`, if loaded.
pub fn block_name(world: Option<&BlockWorld>, ids: Option<&BlockIds>, pos: [i32; 3]) -> Option<String> {
    let BlockLookup::Loaded(id, _) = world?.get_block(pos[0], pos[1], pos[2]) else { return None };
    let table = match ids {
        Some(t) => t.0.clone(),
        None => BlockIds::fallback()?,
    };
    Some(table.name(id).to_owned())
}

/// Emits `container_changed` for `slots` of `c` going from `before`.
pub fn changed_events(c: &OpenContainer, before: &[Option<Item>], slots: &[u8], source: &str, out: &mut EventBatch) {
    for &s in slots {
        let i = usize::from(s);
        let now = c.slots.get(i).cloned().flatten();
        let was = before.get(i).cloned().flatten();
        if now == was {
            continue;
        }
        if c.is_furnace()
            && s == FURNACE_OUTPUT
            && source == "server"
            && let Some(it) = &now
            && was.as_ref().is_none_or(|w| w.count < it.count)
        {
            out.push(FurnaceOutputReady {
                bot: out.bot(),
                pos: c.pos.into(),
                window_type: c.window_type.clone(),
                item: it.json(),
            });
        }
        out.push(ContainerChanged {
            bot: out.bot(),
            window_id: c.window_id.clone(),
            pos: c.pos.into(),
            slot: s,
            item: now.as_ref().map(Item::json),
            previous: was.as_ref().map(Item::json),
            source: source.into(),
        });
    }
}

/// Whether a window id names a block container (not the own inventory, armour, … windows).
fn is_block_window(open: &ContainerOpen) -> bool {
    // A `trading` window is the villager's ([`crate::trade`]), opened by its UpdateTrade.
    open.window_type != "inventory"
        && open.window_id != "inventory"
        && open.window_type != "none"
        && open.window_type != "trading"
}

/// Tracks the open container from the server's packets.
#[allow(clippy::type_complexity)]
pub fn track_window(
    mut packets: MessageReader<ClientboundPacket>,
    mut bots: Query<
        (&mut Window, &ItemIds, Option<&BlockWorld>, Option<&BlockIds>, Option<&mut InventoryJobs>),
        With<LocalBot>,
    >,
    mut events: MessageWriter<AgentEvent>,
) {
    for pkt in packets.read() {
        let Ok((mut window, ids, world, blocks, jobs)) = bots.get_mut(pkt.bot) else { continue };
        let open = window.0.as_mut();
        let mut out = EventBatch::new(pkt.bot);
        if let Some(o) = pkt.view::<ContainerOpen>()
            && is_block_window(&o)
        {
            let pos = [o.coordinates.x, o.coordinates.y, o.coordinates.z];
            let block = block_name(world, blocks, pos).unwrap_or_else(|| o.window_type.clone());
            let slots = match o.window_type.as_str() {
                "furnace" | "blast_furnace" | "smoker" => 3,
                "workbench" => 0,
                _ if block.ends_with("chest") || block.ends_with("barrel") || block.ends_with("shulker_box") => 27,
                _ => 27,
            };
            let c = OpenContainer {
                window_id: o.window_id.clone(),
                window_type: o.window_type.clone(),
                pos,
                block: block.clone(),
                slots: vec![None; slots],
                contents_known: slots == 0,
                furnace: matches!(o.window_type.as_str(), "furnace" | "blast_furnace" | "smoker")
                    .then(FurnaceProgress::default),
            };
            out.push(ContainerOpened {
                bot: out.bot(),
                window_id: c.window_id.clone(),
                window_type: c.window_type.clone(),
                block,
                pos: pos.into(),
            });
            // A container window gives access to the inventory too: requests need no other screen.
            if let Some(mut jobs) = jobs {
                jobs.screen = Screen::Open { window_id: "first", by_us: false };
            }
            window.0 = Some(c);
        } else if let Some(close) = pkt.view::<ContainerClose>() {
            let Some(c) = open else { continue };
            if close.window_id != c.window_id {
                continue;
            }
            out.push(ContainerClosed {
                bot: out.bot(),
                window_id: c.window_id.clone(),
                window_type: c.window_type.clone(),
                block: c.block.clone(),
                pos: c.pos.into(),
                by_server: close.server,
            });
            if let Some(mut jobs) = jobs
                && matches!(jobs.screen, Screen::Open { by_us: false, .. })
            {
                jobs.screen = Screen::Closed;
            }
            window.0 = None;
        } else if let Some(content) = pkt.view::<InventoryContent>() {
            let Some(c) = open else { continue };
            if content.window_id != c.window_id {
                continue;
            }
            let before = c.slots.clone();
            c.slots = content.input.iter().map(|w| ids.item(w)).collect();
            let baseline = !c.contents_known;
            c.contents_known = true;
            if !baseline {
                let all: Vec<u8> = (0..c.slots.len().max(before.len())).filter_map(|i| u8::try_from(i).ok()).collect();
                changed_events(c, &before, &all, "server", &mut out);
            }
        } else if let Some(slot) = pkt.view::<InventorySlot>() {
            let Some(c) = open else { continue };
            if slot.window_id != c.window_id {
                continue;
            }
            let Ok(i) = u8::try_from(slot.slot) else { continue };
            let before = c.slots.clone();
            if usize::from(i) >= c.slots.len() {
                c.slots.resize(usize::from(i) + 1, None);
            }
            c.slots[usize::from(i)] = ids.item(&slot.item);
            changed_events(c, &before, &[i], "server", &mut out);
        } else if let Some(d) = pkt.view::<ContainerSetData>() {
            let Some(c) = open else { continue };
            if d.window_id != c.window_id {
                continue;
            }
            if let Some(f) = c.furnace.as_mut() {
                match d.property {
                    0 => f.cook_ticks = d.value,
                    1 => f.burn_ticks = d.value,
                    2 => f.burn_duration = d.value,
                    _ => {}
                }
            }
        }
        events.write_batch(out.drain());
    }
}
