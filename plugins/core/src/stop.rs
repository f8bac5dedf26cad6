//! `stop`: ends every action running on the bot, whatever its slot, as each slot's `abort_*`
//! would (Mindcraft's `!stop`).
//!
//! It reads the bot's [`ActiveActions`] — the bookkeeping every action registered with
//! [`add_async_action`](crate::AppActionExt::add_async_action) goes through — so an action added
//! by any plugin, now or later, is stopped without `stop` knowing it. Policies (auto_eat,
//! auto_defend, …) live in the plugins that own them; each registers a [`PolicySwitch`] with
//! [`AppPolicyExt::add_policy_switch`] so `stop` can name the policies still on and, with
//! `policies:true`, turn them off.

use bevy_app::App;
use bevy_ecs::prelude::*;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::action::{ActiveActions, abort_slot};
use crate::command::{AgentCommand, CommandCtx, CommandError};

/// A plugin's policies on `bot`: the names of those that are on, every one turned off first
/// when the flag is set (the names are then those it turned off).
pub type PolicySwitch = fn(&mut World, Entity, bool) -> Vec<&'static str>;

/// Every plugin's [`PolicySwitch`].
#[derive(Resource, Default, Clone)]
pub struct PolicySwitches(Vec<PolicySwitch>);

impl PolicySwitches {
    /// The policies on for `bot`, in registration order; turned off when `off`.
    pub fn apply(&self, world: &mut World, bot: Entity, off: bool) -> Vec<String> {
        self.0.iter().flat_map(|switch| switch(world, bot, off)).map(str::to_owned).collect()
    }
}

/// Registering a plugin's policies with `stop`.
pub trait AppPolicyExt {
    /// `stop` asks `switch` which of the plugin's policies are on, and with `policies:true` has
    /// it turn them off.
    fn add_policy_switch(&mut self, switch: PolicySwitch) -> &mut Self;
}

impl AppPolicyExt for App {
    fn add_policy_switch(&mut self, switch: PolicySwitch) -> &mut Self {
        self.world_mut().get_resource_or_init::<PolicySwitches>().0.push(switch);
        self
    }
}

/// `stop`.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Stop {
    /// Also turn off every policy of the bot (auto_eat, auto_armour, auto_defend, auto_clutch),
    /// so none starts an action again (default false: they stay on).
    #[serde(default)]
    pub policies: bool,
}

/// One action `stop` ended.
#[derive(Serialize, JsonSchema, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct Stopped {
    /// The slot it ran in (`walk`, `mine`, `eat`, `use`, `fight`, `container`, `skill`, …).
    pub slot: String,
    /// The command that started it (`walk`, `follow`, `eat`, …).
    pub action: String,
    /// Its request id; its completion event (status `aborted`) carries it too.
    pub action_id: Value,
    /// Its completion event's evidence fields (as `abort_<slot>` answers them, e.g. `walked`,
    /// `pos`).
    pub evidence: Map<String, Value>,
}

/// Response of `stop`.
#[derive(Serialize, JsonSchema, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct StopResponse {
    /// Every action it ended, by slot name; empty when nothing ran.
    pub stopped: Vec<Stopped>,
    /// With `policies:true`, the policies that were on and are off now (else empty).
    pub policies_off: Vec<String>,
    /// The policies still on (without `policies:true`): one may start an action again.
    pub policies_on: Vec<String>,
}

impl AgentCommand for Stop {
    const NAME: &'static str = "stop";
    const SUMMARY: &'static str = "Stop every action running on the bot (walk, mine, eat, use, fight, containers, skill runs, …): each ends with status aborted as its abort_* would end it; policies:true also turns every policy off";
    const EXAMPLE: &'static str = r#"{"action":"stop"}"#;
    /// Nothing to stop before the bot spawns: an empty list, as when nothing runs.
    const NEEDS_SPAWN: bool = false;
    type Response = StopResponse;

    fn run(self, ctx: &mut CommandCtx<'_>) -> Result<StopResponse, CommandError> {
        let switches = ctx.world.get_resource::<PolicySwitches>().cloned().unwrap_or_default();
        let policies = switches.apply(ctx.world, ctx.bot, self.policies);
        let (policies_off, policies_on) = if self.policies { (policies, Vec::new()) } else { (Vec::new(), policies) };
        let slots: Vec<&'static str> =
            ctx.world.get::<ActiveActions>(ctx.bot).map(|a| a.slots.keys().copied().collect()).unwrap_or_default();
        let stopped = slots
            .into_iter()
            .filter_map(|slot| {
                let a = abort_slot(ctx.world, ctx.bot, slot)?;
                Some(Stopped {
                    slot: slot.into(),
                    action: a.command.into(),
                    action_id: a.action_id,
                    evidence: a.evidence,
                })
            })
            .collect();
        Ok(StopResponse { stopped, policies_off, policies_on })
    }
}
