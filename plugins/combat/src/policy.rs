//! Policies an agent turns on once instead of polling: `auto_eat`, `auto_armour`, `auto_defend`,
//! `auto_clutch`.
//!
//! A policy watches the bot's state in busy ticks (its triggers — a health or hunger change, a
//! pickup, a hurt — all arrive as packets) and, when its rule fires, runs the very command an
//! agent would (`eat`, `wear`, `fight`) through [`BotCommands`]: the same checks, slots and
//! completion event (`eat_done`, `wear_done`, `fight_done`). Each start is announced by a
//! `policy_action` event naming the policy, the command and its request `id`, which the
//! completion event carries — that `id` marks the policy as the action's origin.
//!
//! - **auto_eat**: eats the food with the most saturation (not rotten flesh, spider eyes, raw
//!   chicken, pufferfish, poisonous potatoes, golden apples or chorus fruit) when hunger ≤ `hunger`
//!   (default 14), or when health < `health` (default 14) and hunger < 18 — Bedrock regenerates
//!   only from hunger 18. Never mid-fight: a fight retreats and ends below its `minHealth` itself,
//!   and the policy eats then.
//! - **auto_armour**: puts on any armour piece in the inventory that beats what is worn in its
//!   slot, e.g. one just picked up.
//! - **auto_defend**: when the bot is hurt (or a hostile mob stands within 3 blocks), fights the
//!   nearest hostile mob within `range` (default 8) — not when health is already below
//!   `minHealth` (default 6), which is also the fight's retreat threshold; each fight lasts at most
//!   30 s.
//! - **auto_clutch**: while falling with a water bucket anywhere in the inventory, when the
//!   landing the physics predicts ends a fall longer than `minFall` blocks (default 3: only a
//!   landing that would hurt), pours water on the landing block's top face the tick it comes in
//!   reach, and fills the bucket again after the landing: its own action `clutch` in the `use`
//!   slot, ending in `clutch_done` (see [`crate::clutch`]). There is no one-shot command: the
//!   tick to act comes during the fall, nearer the ground than an agent's round trip, and an agent
//!   about to jump arms the very same thing by turning this policy on.
//!
//! A policy whose command is refused (`BUSY`: the agent's own action holds the slot) tries again
//! a second later.

use bevy_ecs::prelude::*;
use clawcraft_core::{
    ActiveActions, AgentCommand, AgentEvent, Answer, BotCommands, CommandCtx, CommandError, CommandId, EntityIds,
    Position, TickCount,
};
use clawcraft_entity::{EntityCategory, EntityKind, EntityPosition, SeenBy, WorldEntity};
use clawcraft_interact::eat::Eat;
use clawcraft_inventory::{Inventory, ItemIds};
use clawcraft_network::ClientboundPacket;
use clawcraft_protocol::packets::EntityEvent;
use clawcraft_vitals::Vitals;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::fight::{FIGHT_SLOT, Fight};
use crate::wear::{WEAR_SLOT, Wear, best_upgrade};

/// A refused policy action is tried again after this many ticks.
const RETRY_TICKS: u64 = 20;
/// A hurt is a reason to fight back for this many ticks.
const HURT_MEMORY_TICKS: u64 = 100;
/// A hostile mob this close is fought even before it hurts.
const CLOSE_HOSTILE: f64 = 3.0;
/// An auto_defend fight lasts at most this long.
const DEFEND_SECONDS: f64 = 30.0;
/// Hunger from which Bedrock regenerates health.
const REGEN_HUNGER: f64 = 18.0;
/// Foods a policy never picks: they hurt, poison, teleport, or are worth keeping.
const NOT_FOOD: &[&str] = &[
    "rotten_flesh",
    "spider_eye",
    "poisonous_potato",
    "pufferfish",
    "chicken",
    "golden_apple",
    "enchanted_golden_apple",
    "chorus_fruit",
    "suspicious_stew",
];

/// A policy's name.
#[derive(Deserialize, Serialize, JsonSchema, Debug, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum PolicyName {
    AutoEat,
    AutoArmour,
    AutoDefend,
    AutoClutch,
}

impl PolicyName {
    pub const ALL: [PolicyName; 4] =
        [PolicyName::AutoEat, PolicyName::AutoArmour, PolicyName::AutoDefend, PolicyName::AutoClutch];

    pub fn as_str(self) -> &'static str {
        match self {
            Self::AutoEat => "auto_eat",
            Self::AutoArmour => "auto_armour",
            Self::AutoDefend => "auto_defend",
            Self::AutoClutch => "auto_clutch",
        }
    }
}

/// One policy's state on a bot.
#[derive(Debug, Clone, PartialEq)]
pub struct Rule {
    pub enabled: bool,
    /// auto_eat: eat at or below this hunger.
    pub hunger: f64,
    /// auto_eat: eat below this health when hunger does not allow regeneration.
    pub health: f64,
    /// auto_defend: fight mobs within this many blocks.
    pub range: f64,
    /// auto_defend: do not start a fight below this health; the fight retreats below it.
    pub min_health: f64,
    /// auto_clutch: act only on falls longer than this many blocks.
    pub min_fall: f64,
    /// Actions started.
    pub acted: u32,
    /// The request of the action started last, while its answer is due or it runs.
    pending: Option<CommandId>,
    /// Not before this tick (after a refusal).
    pub(crate) retry_at: u64,
}

impl Rule {
    fn new() -> Self {
        Self {
            enabled: false,
            hunger: 14.0,
            health: 14.0,
            range: 8.0,
            min_health: crate::fight::DEFAULT_MIN_HEALTH,
            min_fall: crate::clutch::DEFAULT_MIN_FALL,
            acted: 0,
            pending: None,
            retry_at: 0,
        }
    }
}

/// The bot's policies.
#[derive(Component, Debug, Clone, PartialEq)]
pub struct Policies {
    pub eat: Rule,
    pub armour: Rule,
    pub defend: Rule,
    pub clutch: Rule,
    /// The tick the bot was last hurt.
    last_hurt: Option<u64>,
    /// Mobs the server showed dying (their removal follows): never a target again.
    dead: Vec<u64>,
}

impl Default for Policies {
    fn default() -> Self {
        Self {
            eat: Rule::new(),
            armour: Rule::new(),
            defend: Rule::new(),
            clutch: Rule::new(),
            last_hurt: None,
            dead: Vec::new(),
        }
    }
}

impl Policies {
    pub fn rule(&self, name: PolicyName) -> &Rule {
        match name {
            PolicyName::AutoEat => &self.eat,
            PolicyName::AutoArmour => &self.armour,
            PolicyName::AutoDefend => &self.defend,
            PolicyName::AutoClutch => &self.clutch,
        }
    }

    pub(crate) fn rule_mut(&mut self, name: PolicyName) -> &mut Rule {
        match name {
            PolicyName::AutoEat => &mut self.eat,
            PolicyName::AutoArmour => &mut self.armour,
            PolicyName::AutoDefend => &mut self.defend,
            PolicyName::AutoClutch => &mut self.clutch,
        }
    }

    fn any_enabled(&self) -> bool {
        self.eat.enabled || self.armour.enabled || self.defend.enabled || self.clutch.enabled
    }

    /// A policy's state as the answers show it.
    pub fn state(&self, name: PolicyName) -> PolicyState {
        let r = self.rule(name);
        let (hunger, health, range, min_health) = match name {
            PolicyName::AutoEat => (Some(r.hunger), Some(r.health), None, None),
            PolicyName::AutoArmour | PolicyName::AutoClutch => (None, None, None, None),
            PolicyName::AutoDefend => (None, None, Some(r.range), Some(r.min_health)),
        };
        let min_fall = (name == PolicyName::AutoClutch).then_some(r.min_fall);
        PolicyState { name, enabled: r.enabled, hunger, health, range, min_health, min_fall, acted: r.acted }
    }
}

/// A policy's settings and what it did.
#[derive(Serialize, JsonSchema, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct PolicyState {
    pub name: PolicyName,
    pub enabled: bool,
    /// auto_eat: eats at or below this hunger.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hunger: Option<f64>,
    /// auto_eat: eats below this health while hunger is under 18.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub health: Option<f64>,
    /// auto_defend: fights hostile mobs within this many blocks.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub range: Option<f64>,
    /// auto_defend: the fight's retreat threshold; no fight starts below it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub min_health: Option<f64>,
    /// auto_clutch: acts only on falls longer than this many blocks.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub min_fall: Option<f64>,
    /// Actions it started since the bot joined.
    pub acted: u32,
}

/// `policy`.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct PolicyCmd {
    /// `auto_eat`, `auto_armour`, `auto_defend` or `auto_clutch`.
    pub name: PolicyName,
    /// On (default) or off.
    pub enabled: Option<bool>,
    /// auto_eat: eat at or below this hunger (0-20, default 14).
    pub hunger: Option<f64>,
    /// auto_eat: eat below this health while hunger is under 18 (0-20, default 14).
    pub health: Option<f64>,
    /// auto_defend: fight hostile mobs within this many blocks (1-32, default 8).
    pub range: Option<f64>,
    /// auto_defend: the fight's retreat threshold; no fight starts below it (0-20, default 6).
    pub min_health: Option<f64>,
    /// auto_clutch: act only on falls longer than this many blocks (0-400, default 3: Bedrock's
    /// safe fall, so only a landing that would hurt).
    pub min_fall: Option<f64>,
}

fn check(v: Option<f64>, name: &str, lo: f64, hi: f64) -> Result<Option<f64>, CommandError> {
    match v {
        Some(x) if !(lo..=hi).contains(&x) => {
            Err(CommandError::out_of_range(format!("{name} must be within {lo}-{hi}")))
        }
        _ => Ok(v),
    }
}

impl AgentCommand for PolicyCmd {
    const NAME: &'static str = "policy";
    const SUMMARY: &'static str = "Turn a policy on or off: auto_eat (hunger, health), auto_armour, auto_defend (range, minHealth), auto_clutch (minFall: water bucket under a fall); its actions end in *_done receipts (clutch_done), announced by policy_action";
    const EXAMPLE: &'static str = r#"{"action":"policy","name":"auto_eat","hunger":14}"#;
    type Response = PolicyState;

    fn run(self, ctx: &mut CommandCtx<'_>) -> Result<PolicyState, CommandError> {
        let applies = |field: &str, on: &[PolicyName]| -> Result<(), CommandError> {
            if on.contains(&self.name) {
                Ok(())
            } else {
                Err(CommandError::invalid_params(format!("{field} is not a setting of {}", self.name.as_str())))
            }
        };
        if self.hunger.is_some() {
            applies("hunger", &[PolicyName::AutoEat])?;
        }
        if self.health.is_some() {
            applies("health", &[PolicyName::AutoEat])?;
        }
        if self.range.is_some() {
            applies("range", &[PolicyName::AutoDefend])?;
        }
        if self.min_health.is_some() {
            applies("minHealth", &[PolicyName::AutoDefend])?;
        }
        if self.min_fall.is_some() {
            applies("minFall", &[PolicyName::AutoClutch])?;
        }
        let hunger = check(self.hunger, "hunger", 0.0, 20.0)?;
        let health = check(self.health, "health", 0.0, 20.0)?;
        let range = check(self.range, "range", 1.0, 32.0)?;
        let min_health = check(self.min_health, "minHealth", 0.0, 20.0)?;
        let min_fall = check(self.min_fall, "minFall", 0.0, 400.0)?;
        let mut entity = ctx.world.get_entity_mut(ctx.bot).map_err(|_| CommandError::not_spawned())?;
        if !entity.contains::<Policies>() {
            entity.insert(Policies::default());
        }
        let mut policies = entity.get_mut::<Policies>().ok_or_else(CommandError::not_spawned)?;
        let rule = policies.rule_mut(self.name);
        rule.enabled = self.enabled.unwrap_or(true);
        rule.retry_at = 0;
        if let Some(v) = hunger {
            rule.hunger = v;
        }
        if let Some(v) = health {
            rule.health = v;
        }
        if let Some(v) = range {
            rule.range = v;
        }
        if let Some(v) = min_health {
            rule.min_health = v;
        }
        if let Some(v) = min_fall {
            rule.min_fall = v;
        }
        Ok(policies.state(self.name))
    }
}

/// `policies`.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PoliciesCmd {}

/// Response of `policies`.
#[derive(Serialize, JsonSchema)]
pub struct PoliciesResponse {
    /// Every policy, on or off, with its settings.
    pub policies: Vec<PolicyState>,
}

impl AgentCommand for PoliciesCmd {
    const NAME: &'static str = "policies";
    const SUMMARY: &'static str = "Every policy (auto_eat, auto_armour, auto_defend, auto_clutch): on or off, its settings, the actions it started";
    const EXAMPLE: &'static str = r#"{"action":"policies"}"#;
    const QUERY: bool = true;
    type Response = PoliciesResponse;

    fn run(self, ctx: &mut CommandCtx<'_>) -> Result<PoliciesResponse, CommandError> {
        let p = ctx.world.get::<Policies>(ctx.bot).cloned().unwrap_or_default();
        Ok(PoliciesResponse { policies: PolicyName::ALL.iter().map(|n| p.state(*n)).collect() })
    }
}

/// `policy_action`: a policy started an action (or its command was refused).
#[derive(Message, Serialize, JsonSchema, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct PolicyAction {
    #[serde(skip)]
    pub bot: Entity,
    pub policy: PolicyName,
    /// The command it ran (`eat`, `wear`, `fight`), or `clutch` (auto_clutch's own action).
    pub command: String,
    /// The request id: the action's completion event carries it.
    pub action_id: Value,
    /// What fired the rule.
    pub why: String,
    /// The command's parameters.
    pub params: Value,
}
clawcraft_core::event_kind!(
    PolicyAction,
    "policy_action",
    "A policy (auto_eat, auto_armour, auto_defend, auto_clutch) ran a command; the action's completion event carries actionId as its id"
);

/// The food in the inventory that restores the most saturation.
fn best_food(inv: &Inventory, ids: &ItemIds) -> Option<String> {
    let data = ids.data.as_ref()?;
    inv.slots
        .iter()
        .flatten()
        .filter(|i| !NOT_FOOD.contains(&clawcraft_core::bare_name(&i.name)))
        .filter_map(|i| {
            let food = data.info(&i.name)?.food?;
            Some((i.name.to_string(), f64::from(food.nutrition) * f64::from(food.saturation) * 2.0))
        })
        .max_by(|a, b| a.1.total_cmp(&b.1))
        .map(|(n, _)| n)
}

/// Dead mobs remembered per bot (a death's removal comes within a second).
const DEAD_KEPT: usize = 16;

/// Remembers when each bot was hurt (its own hurt animation) and which mobs died.
pub fn track_hurts(
    mut packets: MessageReader<ClientboundPacket>,
    mut bots: Query<(&mut Policies, &EntityIds)>,
    ticks: Res<TickCount>,
) {
    for pkt in packets.read() {
        let Ok((mut p, ids)) = bots.get_mut(pkt.bot) else { continue };
        let Some(e) = pkt.view::<EntityEvent>() else { continue };
        if e.runtime_entity_id == ids.runtime_id && e.event_id == "hurt_animation" {
            p.last_hurt = Some(ticks.0);
        } else if e.event_id == "death_animation" && !p.dead.contains(&e.runtime_entity_id) {
            if p.dead.len() >= DEAD_KEPT {
                p.dead.remove(0);
            }
            p.dead.push(e.runtime_entity_id);
        }
    }
}

/// A policy's command this tick.
enum Act {
    Eat(String, String),
    Wear(String),
    Fight(u64, String),
}

/// Runs the enabled policies of every bot.
#[allow(clippy::too_many_arguments, clippy::type_complexity)]
pub fn run_policies(
    mut bots: Query<(
        Entity,
        &mut Policies,
        Option<&Vitals>,
        Option<&Inventory>,
        Option<&ItemIds>,
        Option<&ActiveActions>,
        &Position,
    )>,
    mobs: Query<(&SeenBy, &WorldEntity, &EntityPosition, &EntityKind)>,
    ticks: Res<TickCount>,
    mut run: BotCommands,
    mut eat_answers: MessageReader<Answer<Eat>>,
    mut wear_answers: MessageReader<Answer<Wear>>,
    mut fight_answers: MessageReader<Answer<Fight>>,
    mut events: MessageWriter<AgentEvent>,
    hands: Query<Option<&clawcraft_interact::common::HandBorrowed>>,
) {
    let now = ticks.0;
    // Refusals: try again later.
    let refused: Vec<(Entity, CommandId)> = eat_answers
        .read()
        .filter(|a| a.result.is_err())
        .map(|a| (a.bot, a.id))
        .chain(wear_answers.read().filter(|a| a.result.is_err()).map(|a| (a.bot, a.id)))
        .chain(fight_answers.read().filter(|a| a.result.is_err()).map(|a| (a.bot, a.id)))
        .collect();
    for (bot, id) in refused {
        if let Ok((_, mut p, ..)) = bots.get_mut(bot) {
            for name in PolicyName::ALL {
                let rule = p.rule_mut(name);
                if rule.pending == Some(id) {
                    rule.pending = None;
                    rule.retry_at = now + RETRY_TICKS;
                }
            }
        }
    }
    for (bot, mut p, vitals, inv, ids, actions, pos) in &mut bots {
        if !p.any_enabled() || vitals.is_some_and(|v| !v.alive) {
            continue;
        }
        let busy = |slot: &str| actions.is_some_and(|a| a.is_busy(slot));
        // A pending action is over once its slot is free again (its answer came, or it ended).
        let slots = [
            (PolicyName::AutoEat, "eat"),
            (PolicyName::AutoArmour, WEAR_SLOT.name),
            (PolicyName::AutoDefend, FIGHT_SLOT.name),
        ];
        for (name, slot) in slots {
            let rule = p.rule_mut(name);
            if rule.pending.is_some() && !busy(slot) && rule.retry_at <= now && rule.acted > 0 {
                rule.pending = None;
            }
        }
        let fighting = busy(FIGHT_SLOT.name);
        let hand_busy = busy("eat") || busy("mine") || busy("use") || hands.get(bot).ok().flatten().is_some();
        let mut acts = Vec::new();
        // auto_defend first: a mob at the bot matters more than a meal.
        let r = &p.defend;
        if r.enabled && r.pending.is_none() && now >= r.retry_at && !fighting && !hand_busy && !busy("walk") {
            let health = vitals.map_or(20.0, |v| v.health);
            let hurt = p.last_hurt.is_some_and(|t| now <= t + HURT_MEMORY_TICKS);
            let nearest = mobs
                .iter()
                .filter(|(seen, w, _, kind)| {
                    seen.0 == bot && kind.category == EntityCategory::Hostile && !p.dead.contains(&w.runtime_id)
                })
                .map(|(_, w, at, kind)| (w.runtime_id, at.0.distance(pos.0), kind.name.clone()))
                .filter(|(_, d, _)| *d <= r.range)
                .min_by(|a, b| a.1.total_cmp(&b.1));
            if let Some((rid, d, name)) = nearest
                && health >= r.min_health
                && (hurt || d <= CLOSE_HOSTILE)
            {
                let why = if hurt {
                    format!("hurt; {name} {d:.1} blocks away")
                } else {
                    format!("{name} {d:.1} blocks away")
                };
                acts.push(Act::Fight(rid, why));
            }
        }
        let r = &p.eat;
        if r.enabled
            && r.pending.is_none()
            && now >= r.retry_at
            && !fighting
            && !hand_busy
            && acts.is_empty()
            && let (Some(v), Some(inv), Some(ids)) = (vitals, inv, ids)
        {
            let why = if v.hunger <= r.hunger {
                Some(format!("hunger {} ≤ {}", v.hunger, r.hunger))
            } else if v.health < r.health && v.hunger < REGEN_HUNGER {
                Some(format!("health {} < {} and hunger {} < 18", v.health, r.health, v.hunger))
            } else {
                None
            };
            if let (Some(why), Some(food)) = (why, best_food(inv, ids)) {
                acts.push(Act::Eat(food, why));
            }
        }
        let r = &p.armour;
        if r.enabled
            && r.pending.is_none()
            && now >= r.retry_at
            && !busy(WEAR_SLOT.name)
            && let Some(inv) = inv.filter(|i| i.synced)
            && let Some((from, _)) = best_upgrade(inv)
            && let Some(item) = inv.slots.get(usize::from(from)).cloned().flatten()
        {
            acts.push(Act::Wear(item.name.to_string()));
        }
        for act in acts {
            let (policy, command, params, why, id) = match act {
                Act::Eat(food, why) => {
                    let id = run.run(bot, Eat { item: Some(food.clone()) });
                    (PolicyName::AutoEat, "eat", serde_json::json!({"item": food}), why, id)
                }
                Act::Wear(item) => {
                    let id = run.run(bot, Wear { item: Some(item.clone()) });
                    (
                        PolicyName::AutoArmour,
                        "wear",
                        serde_json::json!({"item": item}),
                        format!("{item} beats what is worn"),
                        id,
                    )
                }
                Act::Fight(rid, why) => {
                    let min_health = p.defend.min_health;
                    let id = run.run(
                        bot,
                        Fight {
                            entity: Value::from(rid),
                            min_health: Some(min_health),
                            seconds: Some(DEFEND_SECONDS),
                            crits: None,
                        },
                    );
                    let params = serde_json::json!({"entity": rid, "minHealth": min_health, "seconds": DEFEND_SECONDS});
                    (PolicyName::AutoDefend, "fight", params, why, id)
                }
            };
            let rule = p.rule_mut(policy);
            rule.pending = Some(id);
            rule.acted += 1;
            // The slot frees when the action ends; wait a tick for it to be taken first.
            rule.retry_at = now + 2;
            events.write(AgentEvent::new(PolicyAction {
                bot,
                policy,
                command: command.into(),
                action_id: Value::from(id),
                why,
                params,
            }));
        }
    }
}

/// `stop`'s [`PolicySwitch`](clawcraft_core::PolicySwitch): the policies on for `bot`, each
/// turned off first when `off` (as `policy` with `enabled:false` would).
pub fn switch_off(world: &mut World, bot: Entity, off: bool) -> Vec<&'static str> {
    let on: Vec<PolicyName> = match world.get::<Policies>(bot) {
        Some(p) => PolicyName::ALL.into_iter().filter(|n| p.rule(*n).enabled).collect(),
        None => return Vec::new(),
    };
    if off && let Some(mut p) = world.get_mut::<Policies>(bot) {
        for name in &on {
            p.rule_mut(*name).enabled = false;
        }
    }
    on.into_iter().map(PolicyName::as_str).collect()
}

/// Whether any bot has a policy on.
pub fn any_policy(bots: Query<&Policies>) -> bool {
    bots.iter().any(Policies::any_enabled)
}
