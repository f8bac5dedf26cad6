//! Server-authoritative inventory moves: **jobs** of item-stack requests (or, for the offhand, a
//! legacy inventory transaction), with everything the server expects around them.
//!
//! - [`InventoryJobs::submit`] queues a job: one or more [`Move`]s sent as one request. The
//!   request id is negative and odd (−1, −3, …), one counter per bot for every kind of request
//!   (crafting and containers reuse it), and the stack ids are read from the view when the
//!   request leaves, so they are the server's current ones.
//! - Moves that touch the main inventory (slots 9–35), armour, offhand or cursor need the
//!   inventory screen open (BDS refuses them otherwise): the job first sends Interact
//!   `open_inventory` and waits for ContainerOpen (at most [`SCREEN_WAIT_TICKS`], then it sends
//!   anyway and lets the server decide); the screen is closed again when the queue is empty.
//! - The view is never changed before the server answers. An `ok` ItemStackResponse is applied by
//!   replaying the moves on the view and then taking every count and stack id the response lists
//!   as truth; an `error` (or no answer within [`RESPONSE_WAIT_TICKS`]) changes nothing, emits
//!   `item_request_rejected`, and the view stays what the server last said (servers resend the
//!   slots after a refusal; those packets are applied like any other).
//! - A legacy move (offhand) has no answer packet: it is confirmed when the server's slot
//!   updates show the item moved, else it fails `unconfirmed`.
//!
//! Each finished job writes an [`InventoryJobDone`] message and stays readable through
//! [`InventoryJobs::result`] for a while, so commands (deferred responses) and actions (polling)
//! both learn the outcome.

use std::collections::VecDeque;

use bevy_ecs::prelude::*;
use clawcraft_core::{AgentEvent, EntityIds, EventBatch, TickCount};
use clawcraft_network::{ClientboundPacket, Connection};
use clawcraft_protocol::packets::{
    ContainerClose, ContainerOpen, FullContainerName, Interact, InventoryTransaction, ItemInstance, ItemStackRequest,
    ItemStackResponse, ResponseSlot, StackAction, StackRequest, StackResponse, StackSlot, TransactionAction,
};

use crate::events::ItemRequestRejected;
use crate::inventory::{HOTBAR_SLOTS, Inventory, RecentPickups, SlotRef, slot_events};

/// Ticks to wait for ContainerOpen before sending a request that needs the screen anyway.
pub const SCREEN_WAIT_TICKS: u64 = 20;
/// Ticks to wait for an ItemStackResponse (or for a legacy move to show) before failing.
pub const RESPONSE_WAIT_TICKS: u64 = 40;
/// Finished jobs remembered for [`InventoryJobs::result`].
const FINISHED_KEPT: usize = 32;

/// One inventory move.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Move {
    /// Move `count` items from `from` into `to` (empty, or holding the same item).
    Place { from: SlotRef, to: SlotRef, count: u8 },
    /// Like `Place`, the client's wording for picking items up into the cursor (`to` is usually
    /// [`SlotRef::Cursor`]).
    Take { from: SlotRef, to: SlotRef, count: u8 },
    /// Exchange two slots.
    Swap { a: SlotRef, b: SlotRef },
    /// Throw `count` items of `from` on the ground.
    Drop { from: SlotRef, count: u8 },
    /// Destroy `count` items of `from` (creative).
    Destroy { from: SlotRef, count: u8 },
    /// Move a whole stack with a legacy inventory transaction (the offhand, which item-stack
    /// requests cannot reach).
    Legacy { from: SlotRef, to: SlotRef },
}

impl Move {
    fn slots(&self) -> [Option<SlotRef>; 2] {
        match *self {
            Move::Place { from, to, .. } | Move::Take { from, to, .. } | Move::Legacy { from, to } => {
                [Some(from), Some(to)]
            }
            Move::Swap { a, b } => [Some(a), Some(b)],
            Move::Drop { from, .. } | Move::Destroy { from, .. } => [Some(from), None],
        }
    }

    /// Whether the move needs the inventory screen open (anything beyond the hotbar).
    pub fn needs_screen(&self) -> bool {
        !matches!(self, Move::Legacy { .. }) && self.slots().iter().flatten().any(|s| !s.is_hotbar())
    }

    /// Replays the move on `inv` (what the server does when it accepts it).
    fn apply(&self, inv: &mut Inventory) {
        match *self {
            Move::Place { from, to, count } | Move::Take { from, to, count } => {
                let Some(src) = inv.get(from).cloned() else { return };
                let n = u16::from(count).min(src.count);
                let moved = match inv.get(to) {
                    Some(dst) if dst.name == src.name => dst.with_count(dst.count.saturating_add(n)),
                    _ => src.with_count(n),
                };
                inv.set(to, Some(moved));
                inv.set(from, (src.count > n).then(|| src.with_count(src.count - n)));
            }
            Move::Swap { a, b } | Move::Legacy { from: a, to: b } => {
                let x = inv.set(a, None);
                let y = inv.set(b, x);
                inv.set(a, y);
            }
            Move::Drop { from, count } | Move::Destroy { from, count } => {
                if let Some(src) = inv.get(from).cloned() {
                    let left = src.count.saturating_sub(u16::from(count));
                    inv.set(from, (left > 0).then(|| src.with_count(left)));
                }
            }
        }
    }
}

/// How a job ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum JobResult {
    /// The server accepted it; the view shows the result.
    Confirmed,
    /// The server refused it (`error` or another status), never answered (`timeout`), or a legacy
    /// move never showed up (`unconfirmed`).
    Rejected(String),
}

impl JobResult {
    pub fn is_confirmed(&self) -> bool {
        *self == JobResult::Confirmed
    }
}

#[derive(Debug, Clone, PartialEq)]
enum JobState {
    Queued,
    Sent {
        request_id: i32,
        at: u64,
    },
    /// Legacy move sent; `expect` = the item name and count that must arrive in `to`.
    Legacy {
        at: u64,
        to: SlotRef,
        from: SlotRef,
        expect: (String, u16),
    },
}

/// A queued or running job.
#[derive(Debug, Clone, PartialEq)]
pub struct Job {
    pub id: u64,
    /// What it is for (`equip`, `unequip`, `drop`, …), for events and logs.
    pub purpose: &'static str,
    pub moves: Vec<Move>,
    /// A request built by its owner (crafting, containers) instead of from `moves`.
    pub custom: Option<CustomRequest>,
    state: JobState,
}

/// A request whose actions its owner built (crafts, container moves): sent as given, and on
/// acceptance the view takes `expected` (what each of our slots holds after it) before the
/// server's counts and stack ids.
#[derive(Debug, Clone, PartialEq)]
pub struct CustomRequest {
    pub actions: Vec<StackAction>,
    pub expected: Vec<(SlotRef, Option<crate::item::Item>)>,
    /// Whether it needs the inventory screen (a container window counts as one while open).
    pub needs_screen: bool,
}

/// The inventory screen, as far as our requests are concerned.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Screen {
    #[default]
    Closed,
    /// Interact open_inventory sent at this tick.
    Opening(u64),
    /// ContainerOpen arrived (or we stopped waiting); the window id to close it with.
    Open { window_id: &'static str, by_us: bool },
}

/// A bot's inventory jobs and request ids.
#[derive(Component, Debug, Clone, Default)]
pub struct InventoryJobs {
    next_job: u64,
    last_request_id: i32,
    queue: VecDeque<Job>,
    finished: VecDeque<(u64, JobResult)>,
    pub screen: Screen,
}

impl InventoryJobs {
    /// Queues a job; returns its id.
    pub fn submit(&mut self, purpose: &'static str, moves: Vec<Move>) -> u64 {
        self.next_job += 1;
        self.queue.push_back(Job { id: self.next_job, purpose, moves, custom: None, state: JobState::Queued });
        self.next_job
    }

    /// Queues a request built by the caller (see [`CustomRequest`]); returns the job id.
    pub fn submit_custom(&mut self, purpose: &'static str, request: CustomRequest) -> u64 {
        self.next_job += 1;
        self.queue.push_back(Job {
            id: self.next_job,
            purpose,
            moves: Vec::new(),
            custom: Some(request),
            state: JobState::Queued,
        });
        self.next_job
    }

    /// The request id job `id` was sent with, while it waits for the answer.
    pub fn request_id_of(&self, id: u64) -> Option<i32> {
        self.queue.iter().find(|j| j.id == id).and_then(Job::state_request_id)
    }

    /// The next item-stack request id: −1, −3, −5, … (shared by every request kind).
    pub fn next_request_id(&mut self) -> i32 {
        self.last_request_id = if self.last_request_id == 0 { -1 } else { self.last_request_id.wrapping_sub(2) };
        if self.last_request_id > 0 {
            self.last_request_id = -1;
        }
        self.last_request_id
    }

    /// How job `id` ended, once it has (remembered for the last few jobs).
    pub fn result(&self, id: u64) -> Option<&JobResult> {
        self.finished.iter().find(|(j, _)| *j == id).map(|(_, r)| r)
    }

    /// Whether job `id` is still queued or waiting for the server.
    pub fn is_pending(&self, id: u64) -> bool {
        self.queue.iter().any(|j| j.id == id)
    }

    /// Jobs not finished yet.
    pub fn pending(&self) -> usize {
        self.queue.len()
    }

    fn finish(&mut self, id: u64, result: JobResult) {
        self.queue.retain(|j| j.id != id);
        self.finished.push_back((id, result));
        while self.finished.len() > FINISHED_KEPT {
            self.finished.pop_front();
        }
    }
}

/// Written when a job ends.
#[derive(Message, Debug, Clone, PartialEq, Eq)]
pub struct InventoryJobDone {
    pub bot: Entity,
    pub job: u64,
    pub purpose: &'static str,
    pub result: JobResult,
    /// The server's answer (absent for time-outs and legacy moves).
    pub response: Option<StackResponse>,
}

/// The item-stack request slot for a slot of ours: hotbar and inventory use absolute numbers.
pub fn stack_slot(slot: SlotRef, inv: &Inventory) -> StackSlot {
    let (container, index) = match slot {
        SlotRef::Inv(s) if s < HOTBAR_SLOTS => ("hotbar", s),
        SlotRef::Inv(s) => ("inventory", s),
        SlotRef::Armor(s) => ("armor", s),
        SlotRef::Offhand => ("offhand", 1),
        SlotRef::Cursor => ("cursor", 0),
    };
    let stack_id = inv.get(slot).and_then(|i| i.stack_id).unwrap_or(0);
    StackSlot { slot_type: FullContainerName::of(container), slot: index, stack_id }
}

/// Our slot for a slot an ItemStackResponse reports.
pub fn slot_of(container: &str, slot: u8) -> Option<SlotRef> {
    match container {
        "hotbar" | "inventory" | "hotbar_and_inventory" | "combined_hotbar_and_inventory" => Some(SlotRef::Inv(slot)),
        "armor" => Some(SlotRef::Armor(slot)),
        "offhand" => Some(SlotRef::Offhand),
        "cursor" => Some(SlotRef::Cursor),
        _ => None,
    }
}

/// The request actions for `moves`, with the view's current stack ids.
pub fn stack_actions(moves: &[Move], inv: &Inventory) -> Vec<StackAction> {
    moves
        .iter()
        .filter_map(|m| match *m {
            Move::Place { from, to, count } => Some(StackAction {
                type_id: "place".into(),
                legacy_type_id: 1,
                count: Some(count),
                source: Some(stack_slot(from, inv)),
                destination: Some(stack_slot(to, inv)),
                ..StackAction::default()
            }),
            Move::Take { from, to, count } => Some(StackAction {
                type_id: "take".into(),
                legacy_type_id: 0,
                count: Some(count),
                source: Some(stack_slot(from, inv)),
                destination: Some(stack_slot(to, inv)),
                ..StackAction::default()
            }),
            Move::Swap { a, b } => Some(StackAction {
                type_id: "swap".into(),
                legacy_type_id: 2,
                source: Some(stack_slot(a, inv)),
                destination: Some(stack_slot(b, inv)),
                ..StackAction::default()
            }),
            Move::Drop { from, count } => Some(StackAction {
                type_id: "drop".into(),
                legacy_type_id: 3,
                count: Some(count),
                source: Some(stack_slot(from, inv)),
                randomly: Some(false),
                ..StackAction::default()
            }),
            Move::Destroy { from, count } => Some(StackAction {
                type_id: "destroy".into(),
                legacy_type_id: 4,
                count: Some(count),
                source: Some(stack_slot(from, inv)),
                ..StackAction::default()
            }),
            Move::Legacy { .. } => None,
        })
        .collect()
}

/// Window ids of legacy transactions.
fn legacy_window(slot: SlotRef) -> (i8, u32) {
    match slot {
        SlotRef::Inv(s) => (0, u32::from(s)),
        SlotRef::Offhand => (119, 0),
        SlotRef::Armor(s) => (120, u32::from(s)),
        SlotRef::Cursor => (124, 0),
    }
}

/// The legacy (`normal`) transaction moving the whole stack of `from` into `to`.
pub fn legacy_move(from: SlotRef, to: SlotRef, inv: &Inventory) -> InventoryTransaction {
    let wire = |s: SlotRef| inv.get(s).map_or_else(ItemInstance::air, |i| i.wire.clone());
    let action = |slot: SlotRef, old: ItemInstance, new: ItemInstance| {
        let (window, index) = legacy_window(slot);
        TransactionAction {
            source_type: "container".into(),
            window_id: Some(i32::from(window)),
            slot: index,
            old_item: old.to_stack(),
            new_item: new.to_stack(),
            ..TransactionAction::default()
        }
    };
    InventoryTransaction::normal(vec![action(from, wire(from), wire(to)), action(to, wire(to), wire(from))])
}

/// Applies an accepted response: replays the job's moves, then takes the listed slots' counts
/// and stack ids from the server. Returns the events of every slot that changed.
pub fn apply_response(
    bot: Entity,
    inv: &mut Inventory,
    moves: &[Move],
    response: &StackResponse,
    source: &str,
    pickups: &mut RecentPickups,
) -> EventBatch {
    apply_response_expecting(bot, inv, moves, &[], response, source, pickups)
}

/// [`apply_response`] for a job that also says what some slots hold afterwards (`expected`,
/// applied after the moves and before the server's counts and stack ids).
pub fn apply_response_expecting(
    bot: Entity,
    inv: &mut Inventory,
    moves: &[Move],
    expected: &[(SlotRef, Option<crate::item::Item>)],
    response: &StackResponse,
    source: &str,
    pickups: &mut RecentPickups,
) -> EventBatch {
    let before = inv.clone();
    for m in moves {
        m.apply(inv);
    }
    for (slot, item) in expected {
        inv.set(*slot, item.clone());
    }
    for (container, listed) in listed_slots(response) {
        let Some(slot) = slot_of(container, listed.slot) else { continue };
        inv.set(slot, confirmed_slot(listed, inv.get(slot).cloned()));
    }
    let mut events = EventBatch::new(bot);
    let mut all: Vec<SlotRef> = (0..crate::inventory::INVENTORY_SLOTS as u8).map(SlotRef::Inv).collect();
    all.extend((0..4).map(SlotRef::Armor));
    all.extend([SlotRef::Offhand, SlotRef::Cursor]);
    for slot in all {
        let (old, new) = (before.get(slot), inv.get(slot));
        if old != new {
            slot_events(slot, old, new, Some(source), pickups, &mut events);
        }
    }
    events
}

/// The slots an accepted response lists, with the name of their container.
pub fn listed_slots(response: &StackResponse) -> impl Iterator<Item = (&str, &ResponseSlot)> {
    response
        .containers
        .iter()
        .flatten()
        .flat_map(|c| c.slots.iter().map(move |s| (c.slot_type.container_id.as_str(), s)))
}

/// What a slot the response lists holds now: the item we had there with the server's count (0:
/// empty) and stack id. The inventory and the open window both take the server's word this way.
pub fn confirmed_slot(listed: &ResponseSlot, here: Option<crate::item::Item>) -> Option<crate::item::Item> {
    match (listed.count, here) {
        (0, _) | (_, None) => None,
        (n, Some(it)) => {
            let mut it = it.with_count(u16::from(n));
            it.stack_id = listed.item_stack_id.or(it.stack_id);
            it.wire.stack_id = it.stack_id;
            it.wire.has_stack_id = it.stack_id.is_some();
            Some(it)
        }
    }
}

/// Run condition of [`drive_jobs`]: some bot has a job queued or in flight, or the inventory
/// screen it opened still open.
pub fn jobs_waiting(bots: Query<&InventoryJobs>) -> bool {
    bots.iter().any(has_jobs)
}

/// This bot's jobs need driving: some are queued, or the screen we opened is still open.
pub fn has_jobs(jobs: &InventoryJobs) -> bool {
    !jobs.queue.is_empty() || matches!(jobs.screen, Screen::Open { by_us: true, .. })
}

/// Sends queued jobs, opening and closing the inventory screen around those that need it, and
/// fails jobs the server never answered.
pub fn drive_jobs(
    mut bots: Query<(Entity, &mut InventoryJobs, &Inventory, &mut Connection, &EntityIds)>,
    ticks: Res<TickCount>,
    mut done: MessageWriter<InventoryJobDone>,
    mut events: MessageWriter<AgentEvent>,
) {
    let now = ticks.0;
    for (bot, mut jobs, inv, mut conn, ids) in &mut bots {
        let mut ended = Vec::new();
        // Time-outs and legacy confirmations.
        for job in &jobs.queue {
            match &job.state {
                JobState::Sent { request_id, at } if now >= at + RESPONSE_WAIT_TICKS => {
                    ended.push((job.id, job.purpose, *request_id, JobResult::Rejected("timeout".into())));
                }
                JobState::Legacy { at, to, from, expect } => {
                    let arrived = inv.get(*to).is_some_and(|i| *i.name == *expect.0 && i.count == expect.1);
                    let left = inv.get(*from).is_none_or(|i| *i.name != *expect.0);
                    if arrived && left {
                        ended.push((job.id, job.purpose, 0, JobResult::Confirmed));
                    } else if now >= at + RESPONSE_WAIT_TICKS {
                        ended.push((job.id, job.purpose, 0, JobResult::Rejected("unconfirmed".into())));
                    }
                }
                _ => {}
            }
        }
        for (id, purpose, request_id, result) in ended {
            if let JobResult::Rejected(status) = &result {
                events.write(AgentEvent::new(ItemRequestRejected {
                    bot,
                    request_id,
                    purpose: purpose.into(),
                    status: status.clone(),
                }));
            }
            jobs.finish(id, result.clone());
            done.write(InventoryJobDone { bot, job: id, purpose, result, response: None });
        }
        // Send the first queued job (one request in flight at a time keeps stack ids exact).
        let Some(front) = jobs.queue.front().cloned() else {
            if let Screen::Open { window_id, by_us: true } = jobs.screen {
                conn.send(&ContainerClose {
                    window_id: window_id.into(),
                    window_type: "inventory".into(),
                    server: false,
                });
                jobs.screen = Screen::Closed;
            }
            continue;
        };
        if front.state != JobState::Queued {
            continue;
        }
        let needs_screen =
            front.custom.as_ref().map_or_else(|| front.moves.iter().any(Move::needs_screen), |c| c.needs_screen);
        if needs_screen {
            match jobs.screen {
                Screen::Closed => {
                    conn.send(&Interact {
                        action_id: "open_inventory".into(),
                        target_entity_id: ids.runtime_id,
                        has_position: false,
                        position: None,
                    });
                    jobs.screen = Screen::Opening(now);
                    continue;
                }
                Screen::Opening(since) if now < since + SCREEN_WAIT_TICKS => continue,
                Screen::Opening(_) => {
                    tracing::debug!("no ContainerOpen for the inventory screen; sending the request anyway");
                    jobs.screen = Screen::Open { window_id: "inventory", by_us: true };
                }
                Screen::Open { .. } => {}
            }
        }
        let state = if let Some(custom) = &front.custom {
            let request_id = jobs.next_request_id();
            let actions = custom.actions.iter().cloned().map(|a| with_request_id(a, request_id)).collect();
            conn.send(&ItemStackRequest {
                requests: vec![StackRequest { request_id, actions, custom_names: vec![], cause: String::new() }],
            });
            JobState::Sent { request_id, at: now }
        } else if let Some(Move::Legacy { from, to }) = front.moves.first().copied() {
            conn.send(&legacy_move(from, to, inv));
            let expect = inv.get(from).map(|i| (i.name.to_string(), i.count)).unwrap_or_default();
            JobState::Legacy { at: now, to, from, expect }
        } else {
            let request_id = jobs.next_request_id();
            let actions = stack_actions(&front.moves, inv);
            conn.send(&ItemStackRequest {
                requests: vec![StackRequest { request_id, actions, custom_names: vec![], cause: String::new() }],
            });
            JobState::Sent { request_id, at: now }
        };
        if let Some(j) = jobs.queue.front_mut() {
            j.state = state;
        }
    }
}

/// Applies ItemStackResponses to the jobs that asked, and tracks the inventory screen.
#[allow(clippy::type_complexity)]
pub fn handle_responses(
    mut packets: MessageReader<ClientboundPacket>,
    mut bots: Query<(&mut InventoryJobs, &mut Inventory, &mut RecentPickups)>,
    mut done: MessageWriter<InventoryJobDone>,
    mut events: MessageWriter<AgentEvent>,
) {
    for pkt in packets.read() {
        let Ok((mut jobs, mut inv, mut pickups)) = bots.get_mut(pkt.bot) else { continue };
        if let Some(r) = pkt.view::<ItemStackResponse>() {
            for resp in &r.responses {
                let job = jobs.queue.iter().find(|j| j.state_request_id() == Some(resp.request_id)).cloned();
                let Some(job) = job else {
                    tracing::debug!(request_id = resp.request_id, "response to a request we are not waiting for");
                    continue;
                };
                let result = if resp.status == "ok" {
                    let source = match job.purpose {
                        "drop" | "give" => "drop",
                        "craft" => "craft",
                        _ => "move",
                    };
                    let expected = job.custom.as_ref().map_or(&[][..], |c| &c.expected[..]);
                    let mut changed =
                        apply_response_expecting(pkt.bot, &mut inv, &job.moves, expected, resp, source, &mut pickups);
                    events.write_batch(changed.drain());
                    JobResult::Confirmed
                } else {
                    events.write(AgentEvent::new(ItemRequestRejected {
                        bot: pkt.bot,
                        request_id: resp.request_id,
                        purpose: job.purpose.into(),
                        status: resp.status.clone(),
                    }));
                    JobResult::Rejected(resp.status.clone())
                };
                jobs.finish(job.id, result.clone());
                done.write(InventoryJobDone {
                    bot: pkt.bot,
                    job: job.id,
                    purpose: job.purpose,
                    result,
                    response: Some(resp.clone()),
                });
            }
        } else if let Some(open) = pkt.view::<ContainerOpen>() {
            if open.window_type == "inventory" || open.window_id == "inventory" {
                let by_us = matches!(jobs.screen, Screen::Opening(_));
                jobs.screen = Screen::Open { window_id: static_window(&open.window_id), by_us };
            }
        } else if let Some(close) = pkt.view::<ContainerClose>()
            && matches!(jobs.screen, Screen::Open { window_id, .. } if window_id == static_window(&close.window_id))
        {
            jobs.screen = Screen::Closed;
        }
    }
}

/// Slots a custom request names with stack id [`CREATED_BY_REQUEST`] (what an earlier action of
/// the same request made, e.g. a craft's output) take the request's id, as the protocol wants.
fn with_request_id(mut a: StackAction, request_id: i32) -> StackAction {
    for slot in [a.source.as_mut(), a.destination.as_mut()].into_iter().flatten() {
        if slot.stack_id == CREATED_BY_REQUEST {
            slot.stack_id = request_id;
        }
    }
    a
}

/// Placeholder stack id in a [`CustomRequest`]: "the request's own id" (filled in when it leaves).
pub const CREATED_BY_REQUEST: i32 = i32::MIN;

/// Window names we may need to echo, as `'static` (others close as `inventory`).
fn static_window(name: &str) -> &'static str {
    match name {
        "first" => "first",
        "ui" => "ui",
        "none" => "none",
        _ => "inventory",
    }
}

impl Job {
    fn state_request_id(&self) -> Option<i32> {
        match self.state {
            JobState::Sent { request_id, .. } => Some(request_id),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::item::Item;
    use clawcraft_protocol::packets::{ResponseContainer, ResponseSlot};

    fn item(name: &str, count: u16, stack_id: i32) -> Item {
        Item {
            network_id: 1,
            name: name.into(),
            count,
            metadata: 0,
            durability: None,
            max_durability: None,
            stack_id: Some(stack_id),
            enchantments: vec![],
            wire: ItemInstance {
                network_id: 1,
                count,
                stack_id: Some(stack_id),
                has_stack_id: true,
                ..ItemInstance::default()
            },
        }
    }

    #[test]
    fn request_ids_are_negative_and_odd() {
        let mut jobs = InventoryJobs::default();
        let ids: Vec<i32> = (0..4).map(|_| jobs.next_request_id()).collect();
        assert_eq!(ids, vec![-1, -3, -5, -7]);
    }

    #[test]
    fn moves_name_hotbar_and_inventory_slots_absolutely_and_carry_stack_ids() {
        let mut inv = Inventory::default();
        inv.set(SlotRef::Inv(12), Some(item("minecraft:stone_pickaxe", 1, 40)));
        inv.set(SlotRef::Inv(0), Some(item("minecraft:dirt", 5, 41)));
        let moves =
            [Move::Swap { a: SlotRef::Inv(12), b: SlotRef::Inv(0) }, Move::Drop { from: SlotRef::Inv(0), count: 2 }];
        let actions = stack_actions(&moves, &inv);
        let src = actions[0].source.clone().expect("source");
        assert_eq!((src.slot_type.container_id.as_str(), src.slot, src.stack_id), ("inventory", 12, 40));
        let dst = actions[0].destination.clone().expect("destination");
        assert_eq!((dst.slot_type.container_id.as_str(), dst.slot, dst.stack_id), ("hotbar", 0, 41));
        assert_eq!(
            (actions[1].type_id.as_str(), actions[1].count, actions[1].randomly),
            ("drop", Some(2), Some(false))
        );
        assert!(moves[0].needs_screen() && !moves[1].needs_screen());
        assert!(!Move::Legacy { from: SlotRef::Offhand, to: SlotRef::Inv(20) }.needs_screen());
    }

    #[test]
    fn an_accepted_response_replays_the_moves_and_takes_the_servers_counts() {
        let mut inv = Inventory::default();
        inv.set(SlotRef::Inv(12), Some(item("minecraft:stone_pickaxe", 1, 40)));
        inv.set(SlotRef::Inv(0), Some(item("minecraft:dirt", 5, 41)));
        let moves = [Move::Swap { a: SlotRef::Inv(12), b: SlotRef::Inv(0) }];
        let slot = |s: u8, count: u8, id: i32| ResponseSlot {
            slot: s,
            hotbar_slot: s,
            count,
            item_stack_id: Some(id),
            ..ResponseSlot::default()
        };
        let resp = StackResponse {
            status: "ok".into(),
            request_id: -1,
            containers: Some(vec![
                ResponseContainer { slot_type: FullContainerName::of("hotbar"), slots: vec![slot(0, 1, 40)] },
                ResponseContainer { slot_type: FullContainerName::of("inventory"), slots: vec![slot(12, 5, 77)] },
            ]),
        };
        let events =
            apply_response(Entity::PLACEHOLDER, &mut inv, &moves, &resp, "move", &mut RecentPickups::default());
        assert_eq!(inv.get(SlotRef::Inv(0)).map(|i| &*i.name), Some("minecraft:stone_pickaxe"));
        let dirt = inv.get(SlotRef::Inv(12)).expect("dirt moved");
        assert_eq!((dirt.count, dirt.stack_id, dirt.wire.stack_id), (5, Some(77), Some(77)), "server's stack id");
        let kinds: Vec<&str> = events.events().iter().map(|e| e.kind()).collect();
        assert_eq!(kinds, ["item_removed", "item_added", "item_removed", "item_added"]);
        assert!(events.events().iter().all(|e| e.fields()["source"] == "move"));
    }

    #[test]
    fn partial_places_and_drops_keep_the_rest() {
        let mut inv = Inventory::default();
        inv.set(SlotRef::Inv(9), Some(item("minecraft:dirt", 10, 5)));
        inv.set(SlotRef::Inv(1), Some(item("minecraft:dirt", 60, 6)));
        Move::Place { from: SlotRef::Inv(9), to: SlotRef::Inv(1), count: 4 }.apply(&mut inv);
        assert_eq!(inv.get(SlotRef::Inv(9)).map(|i| i.count), Some(6));
        assert_eq!(inv.get(SlotRef::Inv(1)).map(|i| i.count), Some(64));
        Move::Drop { from: SlotRef::Inv(9), count: 6 }.apply(&mut inv);
        assert!(inv.get(SlotRef::Inv(9)).is_none());
    }

    #[test]
    fn legacy_moves_use_window_ids_and_echo_the_wire_items() {
        let mut inv = Inventory::default();
        inv.set(SlotRef::Offhand, Some(item("minecraft:totem_of_undying", 1, 9)));
        let tx = legacy_move(SlotRef::Offhand, SlotRef::Inv(20), &inv);
        let actions = &tx.transaction.actions;
        assert_eq!((actions[0].window_id, actions[0].slot), (Some(119), 0));
        assert_eq!((actions[1].window_id, actions[1].slot), (Some(0), 20));
        let totem = inv.get(SlotRef::Offhand).map(|i| i.wire.to_stack()).expect("totem");
        assert_eq!(actions[0].old_item, totem, "the server's record of the item, stack id included");
        assert_eq!((actions[0].new_item.network_id, actions[1].old_item.network_id), (0, 0));
        assert_eq!(tx.transaction.transaction_type, "normal");
    }
}
