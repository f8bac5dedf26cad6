//! `VitalsPlugin`: the bot's health, hunger, effects, death and respawn.
//!
//! Packets for our runtime id: UpdateAttributes (health, hunger, saturation, absorption,
//! experience, level; other attributes kept by name), SetHealth, MobEffect, EntityEvent (hurt and
//! death animations, for cause inference), DeathInfo and Respawn. Bar changes are grouped over
//! [`VitalsSettings::group_ticks`] ticks so one hit is one `damage_taken`; the first value of each
//! attribute is a baseline, not a change. Death is reported when DeathInfo arrives (or 20 ticks
//! after health 0 / the death animation without one). On Respawn state 1 the bot answers with
//! PlayerAction(respawn) + Respawn(state 2, client_ready) when `CLAWCRAFT_RESPAWN` is on, else
//! the agent sends `{"action":"respawn"}`.

pub mod commands;
pub mod events;
pub mod packets;
pub mod state;

use bevy_app::{App, Plugin};
use bevy_ecs::prelude::*;
use clawcraft_core::{
    AgentEvent, AppCommandExt, AppEventExt, AppWorkExt, CorePlugin, DangerChange, DangerMode, DangerPolicy, EYE_HEIGHT,
    EntityIds, InterruptActions, Interruption, LocalBot, Position, TickCount, TickSet, Vec3,
};
use clawcraft_network::{ClientboundPacket, Connection};
use clawcraft_protocol::packets::{BlockPos, Respawn, UpdateAttributes, Vec3 as WireVec3};
use schemars::JsonSchema;
use serde::Serialize;

use clawcraft_core::gate::any_bot;

use crate::events::*;
use crate::packets::{DeathInfo, EntityEvent, MobEffect, PlayerAction, SetHealth};
pub use crate::state::{ActiveEffect, Bars, DamageWindow, DangerDebounce, DeathState, LastDeath, Vitals, effect_name};
use crate::state::{WindowOutcome, cause_from_key, close_window, num};

/// Ticks without DeathInfo after health 0 before `death` is reported with cause `unknown`.
const DEATH_INFO_WAIT_TICKS: u64 = 20;

/// Vitals settings shared by every bot of the process.
#[derive(Resource, Debug, Clone, PartialEq)]
pub struct VitalsSettings {
    /// Respawn by itself after death (`CLAWCRAFT_RESPAWN`, default false).
    pub auto_respawn: bool,
    /// `danger{threat:"low_health"}` at or below this (`CLAWCRAFT_DANGER_HEALTH`, default 6).
    pub danger_health: f64,
    /// `danger{threat:"low_hunger"}` at or below this (`CLAWCRAFT_DANGER_HUNGER`, default 4).
    pub danger_hunger: f64,
    /// `CLAWCRAFT_DANGER_MODE=interval`: minimum ticks between two alerts of one threat
    /// (ClawCraft's 5 s).
    pub danger_debounce_ticks: u64,
    /// Ticks over which bar changes are grouped into one event.
    pub group_ticks: u64,
}

impl Default for VitalsSettings {
    fn default() -> Self {
        Self {
            auto_respawn: false,
            danger_health: 6.0,
            danger_hunger: 4.0,
            danger_debounce_ticks: clawcraft_core::danger::INTERVAL_TICKS,
            group_ticks: 3,
        }
    }
}

impl VitalsSettings {
    /// Reads `CLAWCRAFT_RESPAWN`, `CLAWCRAFT_DANGER_HEALTH`, `CLAWCRAFT_DANGER_HUNGER`.
    pub fn from_env() -> Self {
        let var = |k: &str| std::env::var(k).ok().map(|v| v.trim().to_owned()).filter(|v| !v.is_empty());
        let d = Self::default();
        Self {
            auto_respawn: var("CLAWCRAFT_RESPAWN")
                .is_some_and(|v| matches!(v.to_lowercase().as_str(), "1" | "true" | "yes" | "on")),
            danger_health: var("CLAWCRAFT_DANGER_HEALTH").and_then(|v| v.parse().ok()).unwrap_or(d.danger_health),
            danger_hunger: var("CLAWCRAFT_DANGER_HUNGER").and_then(|v| v.parse().ok()).unwrap_or(d.danger_hunger),
            ..d
        }
    }
}

/// Health, hunger, effects, death and respawn.
pub struct VitalsPlugin;

impl Plugin for VitalsPlugin {
    fn build(&self, app: &mut App) {
        if !app.is_plugin_added::<CorePlugin>() {
            app.add_plugins(CorePlugin);
        }
        if !app.world().contains_resource::<VitalsSettings>() {
            app.insert_resource(VitalsSettings::from_env());
        }
        app.add_systems(
            clawcraft_core::TickWork,
            (
                (attach_vitals, handle_vitals_packets).chain().in_set(clawcraft_core::gate::Gate::Packets),
                (close_windows, danger_on_change, report_death, auto_respawn).chain().run_if(packets_or_vitals_pending),
            )
                .chain()
                .in_set(TickSet::HandlePackets),
        )
        // The inventory at death is read before this tick's inventory packets empty it.
        .add_systems(
            clawcraft_core::TickWork,
            capture_inventory_at_death
                .run_if(packets_or_vitals_pending)
                .after(handle_vitals_packets)
                .before(clawcraft_inventory::InventorySet::Apply)
                .in_set(TickSet::HandlePackets),
        )
        .add_pending_work("vitals pending", any_bot::<(&DamageWindow, &DeathState, &DangerDebounce)>(vitals_pending))
        .add_agent_command::<commands::VitalsCmd>()
        .add_agent_command::<commands::RespawnCmd>()
        .add_agent_event::<DamageTaken>()
        .add_agent_event::<HealthRestored>()
        .add_agent_event::<HungerChanged>()
        .add_agent_event::<EffectAdded>()
        .add_agent_event::<EffectUpdated>()
        .add_agent_event::<EffectRemoved>()
        .add_agent_event::<Death>()
        .add_agent_event::<DeathDetails>()
        .add_agent_event::<Respawned>()
        .add_agent_event::<Danger>();
    }
}

/// Gives every bot its vitals components.
pub fn attach_vitals(bots: Query<Entity, (With<LocalBot>, Without<Vitals>)>, mut commands: Commands) {
    for bot in &bots {
        commands.entity(bot).insert((
            Vitals::default(),
            DamageWindow::default(),
            DeathState::default(),
            DangerDebounce::default(),
        ));
    }
}

/// Applies vitals packets for our runtime id.
#[allow(clippy::type_complexity)]
pub fn handle_vitals_packets(
    mut packets: MessageReader<ClientboundPacket>,
    mut bots: Query<(&EntityIds, &mut Vitals, &mut DamageWindow, &mut DeathState)>,
    ticks: Res<TickCount>,
    mut events: MessageWriter<AgentEvent>,
) {
    let tick = ticks.0;
    for packet in packets.read() {
        let Ok((ids, mut v, mut window, mut death)) = bots.get_mut(packet.bot) else { continue };
        let ours = |rid: u64| rid == ids.runtime_id;
        if let Some(p) = packet.view::<UpdateAttributes>() {
            if !ours(p.runtime_entity_id) {
                continue;
            }
            for a in &p.attributes {
                apply_attribute(&mut v, &mut window, &a.name, num(a.current), num(a.max), tick);
            }
        } else if let Some(p) = packet.view::<SetHealth>() {
            let max = v.max_health;
            apply_attribute(&mut v, &mut window, "minecraft:health", f64::from(p.health), max, tick);
        } else if let Some(p) = packet.view::<MobEffect>() {
            if ours(p.runtime_entity_id) {
                apply_effect(packet.bot, &mut v, &p, tick, &mut events);
            }
        } else if let Some(p) = packet.view::<EntityEvent>() {
            if !ours(p.runtime_entity_id) {
                continue;
            }
            match p.event_id.as_str() {
                "hurt_animation" => window.hurt(tick),
                "death_animation" if v.alive => {
                    death.pending_since.get_or_insert(tick);
                }
                _ => {}
            }
        } else if let Some(p) = packet.view::<DeathInfo>() {
            let cause = p.cause.trim().trim_start_matches('%').to_owned();
            if window.start.is_some() {
                window.cause = Some(cause_from_key(&cause));
            }
            death.info = Some((cause, p.messages.clone()));
            death.pending_since.get_or_insert(tick);
        } else if let Some(p) = packet.view::<Respawn>() {
            // State 1 (server ready) matters only while dead; state 0 (searching) and the echo of
            // our own state 2 need nothing.
            let for_us = p.runtime_entity_id == 0 || ours(p.runtime_entity_id);
            if for_us && p.state == 1 && (!v.alive || death.pending_since.is_some()) {
                death.respawn_ready = Some(p.position);
            }
        }
    }
}

fn apply_attribute(v: &mut Vitals, window: &mut DamageWindow, name: &str, value: f64, max: f64, tick: u64) {
    let first = v.seen.insert(name.to_owned());
    let (slot, bar): (&mut f64, Option<&str>) = match name {
        "minecraft:health" => {
            v.max_health = max;
            (&mut v.health, Some("health"))
        }
        "minecraft:player.hunger" => {
            v.max_hunger = max;
            (&mut v.hunger, Some("hunger"))
        }
        "minecraft:player.saturation" => (&mut v.saturation, Some("saturation")),
        "minecraft:absorption" => (&mut v.absorption, Some("absorption")),
        "minecraft:player.level" => (&mut v.level, None),
        "minecraft:player.experience" => (&mut v.experience, None),
        "minecraft:player.exhaustion" => (&mut v.exhaustion, None),
        other => {
            v.attributes.insert(other.to_owned(), value);
            return;
        }
    };
    let old = *slot;
    *slot = value;
    if let Some(bar) = bar
        && !first
        && old != value
    {
        window.record(bar, old, value, max, tick);
    }
}

fn apply_effect(bot: Entity, v: &mut Vitals, p: &MobEffect, tick: u64, events: &mut MessageWriter<AgentEvent>) {
    let name = effect_name(p.effect_id);
    match p.event_id.as_str() {
        "add" | "update" => {
            // An "add" for an effect we already have is an update to the agent.
            let existed = v.effects.contains_key(&p.effect_id);
            v.effects.insert(
                p.effect_id,
                ActiveEffect {
                    id: p.effect_id,
                    name: name.clone(),
                    amplifier: p.amplifier,
                    duration: p.duration,
                    since_tick: tick,
                },
            );
            let (effect, effect_id, amplifier, duration) = (name, p.effect_id, p.amplifier, p.duration);
            if p.event_id == "add" && !existed {
                events.write(AgentEvent::new(EffectAdded { bot, effect, effect_id, amplifier, duration }));
            } else {
                events.write(AgentEvent::new(EffectUpdated { bot, effect, effect_id, amplifier, duration }));
            }
        }
        "remove" => {
            v.effects.remove(&p.effect_id);
            events.write(AgentEvent::new(EffectRemoved { bot, effect: name, effect_id: p.effect_id }));
        }
        other => tracing::debug!(event = other, "unknown mob_effect event"),
    }
}

/// Run condition of the vitals: packets arrived (vitals change only through packets), or some
/// bot has a damage window open, a death not yet reported or answered, or a danger still active
/// (repeats are due on time). One system, not an `or_else` combinator, which runs as three, and
/// conditions run in every tick.
pub fn packets_or_vitals_pending(
    arrivals: Res<clawcraft_core::gate::Arrivals>,
    bots: Query<(&DamageWindow, &DeathState, &DangerDebounce)>,
) -> bool {
    arrivals.packets > 0 || bots.iter().any(vitals_pending)
}

/// A bot's vitals have work without a packet: a damage window open, a death or respawn pending,
/// a danger notice debouncing.
fn vitals_pending((window, death, debounce): (&DamageWindow, &DeathState, &DangerDebounce)) -> bool {
    window.start.is_some()
        || death.pending_since.is_some()
        || death.respawn_ready.is_some()
        || !debounce.active.is_empty()
}

/// Closes grouping windows that are old enough, emits their event and, in `interval` mode,
/// checks the danger thresholds.
pub fn close_windows(
    mut bots: Query<(Entity, &mut Vitals, &mut DamageWindow, &mut DeathState, &mut DangerDebounce)>,
    ticks: Res<TickCount>,
    settings: Res<VitalsSettings>,
    policy: Res<DangerPolicy>,
    mut events: MessageWriter<AgentEvent>,
) {
    for (bot, v, mut window, mut death, mut debounce) in &mut bots {
        let Some(start) = window.start else { continue };
        if ticks.0 + 1 < start + settings.group_ticks.max(1) {
            continue;
        }
        match close_window(&window, &v) {
            WindowOutcome::Damage { cause, health, absorption, hunger } => {
                events.write(AgentEvent::new(DamageTaken { bot, cause, health, absorption, hunger }));
            }
            WindowOutcome::Restored { cause, health } => {
                events.write(AgentEvent::new(HealthRestored { bot, cause, health }));
            }
            WindowOutcome::Hunger(hunger) => {
                events.write(AgentEvent::new(HungerChanged { bot, hunger }));
            }
            WindowOutcome::Nothing => {}
        }
        *window = DamageWindow::default();
        if v.alive && v.health <= 0.0 {
            death.pending_since.get_or_insert(ticks.0);
        }
        if policy.mode == DangerMode::Interval {
            check_danger_interval(bot, &v, &settings, ticks.0, &mut debounce, &mut events);
        }
    }
}

/// The two vitals threats for `v`: key, whether it is on, and its event (without `change`).
fn vitals_threats(bot: Entity, v: &Vitals, settings: &VitalsSettings) -> [(&'static str, bool, Danger); 2] {
    [
        (
            "low_health",
            v.health <= settings.danger_health,
            Danger {
                bot,
                threat: "low_health".into(),
                value: v.health,
                threshold: settings.danger_health,
                health: Some(v.health),
                max_health: Some(v.max_health),
                hunger: None,
                change: String::new(),
            },
        ),
        (
            "low_hunger",
            v.hunger <= settings.danger_hunger,
            Danger {
                bot,
                threat: "low_hunger".into(),
                value: v.hunger,
                threshold: settings.danger_hunger,
                health: None,
                max_health: None,
                hunger: Some(v.hunger),
                change: String::new(),
            },
        ),
    ]
}

/// `interval` mode (ClawCraft): after a change, each threat that is on, at most every
/// `danger_debounce_ticks`.
fn check_danger_interval(
    bot: Entity,
    v: &Vitals,
    settings: &VitalsSettings,
    tick: u64,
    debounce: &mut DangerDebounce,
    events: &mut MessageWriter<AgentEvent>,
) {
    if !v.alive || v.health <= 0.0 {
        return;
    }
    for (key, on, mut danger) in vitals_threats(bot, v, settings) {
        if !on {
            debounce.active.remove(key);
            continue;
        }
        let due = debounce.last.get(key).is_none_or(|last| tick >= last + settings.danger_debounce_ticks);
        if due {
            let change = if debounce.active.insert(key) { DangerChange::New } else { DangerChange::Repeat };
            danger.change = change.as_str().to_owned();
            debounce.last.insert(key, tick);
            events.write(AgentEvent::new(danger));
        }
    }
}

/// `change` mode: `new` when a value crosses its threshold, `gone` when it recovers (a respawn
/// included), `repeat` while it stays low. Waits while a grouping window is open, so the
/// `damage_taken` that caused a threat comes first; silent while the bot is dead.
pub fn danger_on_change(
    mut bots: Query<(Entity, &Vitals, &DamageWindow, &mut DangerDebounce)>,
    ticks: Res<TickCount>,
    settings: Res<VitalsSettings>,
    policy: Res<DangerPolicy>,
    mut events: MessageWriter<AgentEvent>,
) {
    if policy.mode != DangerMode::Change {
        return;
    }
    let tick = ticks.0;
    for (bot, v, window, mut debounce) in &mut bots {
        if window.start.is_some() || !v.alive || v.health <= 0.0 {
            continue;
        }
        for (key, on, mut danger) in vitals_threats(bot, v, &settings) {
            let was = debounce.active.contains(key);
            let change = match (was, on) {
                (false, true) => DangerChange::New,
                (true, false) => DangerChange::Gone,
                (true, true) if debounce.last.get(key).is_none_or(|&last| policy.repeat_due(last, tick)) => {
                    DangerChange::Repeat
                }
                _ => continue,
            };
            if on {
                debounce.active.insert(key);
            } else {
                debounce.active.remove(key);
            }
            debounce.last.insert(key, tick);
            danger.change = change.as_str().to_owned();
            events.write(AgentEvent::new(danger));
        }
    }
}

/// Keeps the inventory as it was when death first showed (health 0, a death animation or
/// DeathInfo), because servers empty it right after.
pub fn capture_inventory_at_death(mut bots: Query<(&Vitals, &mut DeathState, &clawcraft_inventory::Inventory)>) {
    for (v, mut death, inv) in &mut bots {
        let dying =
            v.alive && (v.health <= 0.0 && v.seen.contains("minecraft:health") || death.pending_since.is_some());
        if dying && death.items.is_none() {
            death.items = Some(inv.items_json());
        }
    }
}

/// Reports a death once DeathInfo is known (or after waiting for it in vain).
#[allow(clippy::type_complexity)]
pub fn report_death(
    mut bots: Query<(
        Entity,
        &mut Vitals,
        &mut DeathState,
        &DamageWindow,
        Option<&Position>,
        Option<&clawcraft_inventory::Inventory>,
    )>,
    ticks: Res<TickCount>,
    mut events: MessageWriter<AgentEvent>,
    mut interrupts: MessageWriter<InterruptActions>,
) {
    for (bot, mut v, mut death, window, pos, inv) in &mut bots {
        let Some(since) = death.pending_since else { continue };
        // The fatal hit's damage_taken comes first.
        if window.start.is_some() {
            continue;
        }
        if !v.alive {
            death.pending_since = None;
            continue;
        }
        if death.info.is_none() && ticks.0 < since + DEATH_INFO_WAIT_TICKS {
            continue;
        }
        let (cause, messages) = death.info.take().unwrap_or_else(|| ("unknown".into(), Vec::new()));
        let items = death.items.take().or_else(|| inv.map(|i| i.items_json())).unwrap_or_default();
        death.pending_since = None;
        v.alive = false;
        v.health = 0.0;
        let pos = pos.map(|p| p.0.rounded());
        events.write(AgentEvent::new(Death { bot, cause: cause.clone(), messages: messages.clone() }));
        events.write(AgentEvent::new(DeathDetails {
            bot,
            pos,
            items: items.clone(),
            cause: cause.clone(),
            messages: messages.clone(),
        }));
        v.last_death = Some(LastDeath { pos, items, cause, messages });
        interrupts.write(InterruptActions { bot, cause: Interruption::Death });
    }
}

/// A bot's own respawn setting, over [`VitalsSettings::auto_respawn`] (a swarm's per-bot
/// `respawn`).
#[derive(Component, Debug, Clone, Copy, PartialEq, Eq)]
pub struct AutoRespawn(pub bool);

/// With CLAWCRAFT_RESPAWN (or the bot's own [`AutoRespawn`]), answers the server's Respawn
/// (state 1) after a death.
#[allow(clippy::type_complexity)]
pub fn auto_respawn(
    mut bots: Query<(Entity, &EntityIds, &mut Vitals, &mut DeathState, &mut Connection, Option<&AutoRespawn>)>,
    settings: Res<VitalsSettings>,
    mut events: MessageWriter<AgentEvent>,
) {
    for (bot, ids, mut v, mut death, mut conn, own) in &mut bots {
        if v.alive || death.respawn_ready.is_none() || !own.map_or(settings.auto_respawn, |a| a.0) {
            continue;
        }
        let pos = respawn(ids.runtime_id, &mut v, &mut death, &mut conn);
        events.write(AgentEvent::new(Respawned { bot, pos, auto: true }));
    }
}

/// Sends PlayerAction(respawn) and Respawn(state 2 client_ready) and resets the vitals to a fresh
/// life; returns the feet position the server announced, if any. Shared by [`auto_respawn`] and
/// the `respawn` command.
pub fn respawn(runtime_id: u64, v: &mut Vitals, death: &mut DeathState, conn: &mut Connection) -> Option<Vec3> {
    conn.send(&PlayerAction {
        runtime_entity_id: runtime_id,
        action: "respawn".into(),
        position: BlockPos::default(),
        result_position: BlockPos::default(),
        face: -1,
    });
    conn.send(&Respawn { position: WireVec3::default(), state: 2, runtime_entity_id: runtime_id });
    let pos = death
        .respawn_ready
        .take()
        .map(|p| Vec3::new(f64::from(p.x), f64::from(p.y) - EYE_HEIGHT, f64::from(p.z)).rounded());
    *death = DeathState::default();
    let last_death = v.last_death.take();
    let seen = std::mem::take(&mut v.seen);
    *v = Vitals { max_health: v.max_health, max_hunger: v.max_hunger, last_death, seen, ..Vitals::default() };
    v.health = v.max_health;
    v.hunger = v.max_hunger;
    pos
}

/// `status.vitals`: the short summary.
#[derive(Serialize, JsonSchema, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct VitalsSummary {
    pub health: f64,
    pub max_health: f64,
    pub hunger: f64,
    pub alive: bool,
    pub effect_count: usize,
}

/// The `vitals` part of `status`, or `None` before the bot has vitals.
pub fn vitals_summary(world: &World, bot: Entity) -> Option<VitalsSummary> {
    let v = world.get::<Vitals>(bot)?;
    Some(VitalsSummary {
        health: v.health,
        max_health: v.max_health,
        hunger: v.hunger,
        alive: v.alive,
        effect_count: v.effects.len(),
    })
}

/// `status.lastDeath`: where and why the bot last died.
pub fn last_death(world: &World, bot: Entity) -> Option<LastDeath> {
    world.get::<Vitals>(bot)?.last_death.clone()
}
