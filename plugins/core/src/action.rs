//! Long-running ("async") actions — walk, mine, eat, … — and the rules every one of them obeys.
//!
//! - An action is a **component on the bot, present only while it runs** (azalea's way), advanced
//!   by the action's own per-tick systems in [`ActionSet::Step`](crate::ActionSet).
//! - Starting one ([`CommandCtx::start`]) claims its **slot** (`walk`, `mine`, `eat`, …): a second
//!   action in a busy slot is refused with `BUSY`, naming the `abort_<slot>` that frees it. The
//!   command answers at once. The command path refuses it before the command's code runs (the
//!   command declares its slot in [`AgentCommand::ASYNC`]), so a `BUSY` command sent nothing and
//!   changed nothing ([`refuse_if_busy`]).
//! - Every action ends in **exactly one completion event** (`walk_done`, `mine_done`, …) carrying
//!   the request `id`, a `status` (`done`/`aborted`/`failed`/`timeout`), a `reason` when not done,
//!   and the action's evidence. Ending always goes through one function ([`end_action`]), which
//!   builds the event from the component, removes the component and frees the slot — whoever
//!   ends it: the action itself ([`EndActionExt::end_action`]), its `abort_<slot>` command, the
//!   watchdog (`timeout`, after ClawCraft's `command_timeout`), or an [`InterruptActions`]
//!   message (death, a teleport the action cannot survive, disconnect, shutdown).
//! - [`AppActionExt::add_async_action`] registers an action type: its completion event, its
//!   `abort_<slot>` command, and nothing else to remember.

use std::collections::BTreeMap;
use std::marker::PhantomData;

use bevy_app::App;
use bevy_ecs::prelude::*;
use bevy_ecs::world::EntityRef;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::command::{AgentCommand, AppCommandExt, CommandCtx, CommandError};
use crate::event::{AgentEvent, AppEventExt, EventKind};

/// Ticks since start (one per `App::update`).
#[derive(Resource, Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct TickCount(pub u64);

pub fn count_ticks(mut ticks: ResMut<TickCount>) {
    ticks.0 += 1;
}

/// Inserted (before [`crate::CorePlugin`] is built) by a runner that advances [`TickCount`]
/// itself at the start of every tick, before `PreUpdate` — clawcraft's lean main does: then no
/// `count_ticks` system runs, one system less in every tick. Without it `CorePlugin` adds
/// `count_ticks` to `PreUpdate` (for bevy's own `Main`).
#[derive(Resource, Debug, Default, Clone, Copy)]
pub struct RunnerCountsTicks;

/// What `count_ticks` does, for a runner that has [`RunnerCountsTicks`].
pub fn advance_tick_count(world: &mut World) {
    if let Some(mut ticks) = world.get_resource_mut::<TickCount>() {
        ticks.0 += 1;
    }
}

/// How an action ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum ActionStatus {
    /// It did what it was asked.
    Done,
    /// An `abort_*` command (or a shutdown) stopped it.
    Aborted,
    /// It could not finish; `reason` says why.
    Failed,
    /// The watchdog stopped it.
    Timeout,
}

/// The fields every completion event starts with. Embed it with `#[serde(flatten)]`.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct Outcome {
    /// The request id of the command that started the action.
    pub id: Value,
    pub status: ActionStatus,
    /// Why it did not end `done` (absent when it did).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

impl Outcome {
    pub fn is_done(&self) -> bool {
        self.status == ActionStatus::Done
    }
}

/// What can end actions from outside.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Interruption {
    /// The bot died.
    Death,
    /// The server moved the bot (teleport or a correction large enough to void a plan).
    Teleport,
    /// The connection ended (also before a reconnect, which starts a fresh bot).
    Disconnect,
    /// The harness is leaving.
    Shutdown,
}

/// Ask every running action of `bot` what `cause` means to it (see [`AsyncAction::interrupted`]).
#[derive(Message, Debug, Clone, Copy, PartialEq, Eq)]
pub struct InterruptActions {
    pub bot: Entity,
    pub cause: Interruption,
}

/// An action slot: its name, the command that frees it, and that command's answer when it is
/// free. Actions that share a slot share one constant (e.g. `clawcraft_pathfind::WALK_SLOT`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ActionSlot {
    /// The slot's name (`walk`).
    pub name: &'static str,
    /// The `abort_*` command that ends whatever runs in the slot.
    pub abort: &'static str,
    /// The error message of `abort_*` when the slot is free (ClawCraft's wording, e.g. `Not walking`).
    pub idle: &'static str,
}

impl ActionSlot {
    pub const fn new(name: &'static str, abort: &'static str, idle: &'static str) -> Self {
        Self { name, abort, idle }
    }
}

/// A long-running action: the component present on the bot while it runs.
///
/// # How to add an action
///
/// An action is its state machine plus its parameters; everything else comes from here.
///
/// 1. **The component** — the action's state, present on the bot only while it runs.
/// 2. **Its evidence** — the fields its completion event carries besides `id`/`status`/`reason`:
///    a `Serialize + JsonSchema` struct implementing [`Evidence`] (the event's `type` and
///    description; [`evidence!`](crate::evidence) in one line). The event itself is [`ActionDone<E>`]: bot, [`Outcome`] and evidence, its
///    kind, JSON shape and schema generic. Actions may share one evidence type (`walk`, `move`
///    and `follow` all end in `walk_done`).
/// 3. **This trait** — the slot, the evidence type, and [`AsyncAction::evidence`], read from the
///    component and the bot at the moment the action ends (whoever ends it).
/// 4. **The command** — an [`AgentCommand`] whose `ASYNC` is `Some(AsyncInfo::of::<A>())` (its
///    slot is checked for `BUSY` before `run`), whose `run` validates the parameters and calls
///    [`CommandCtx::start`] with the component and a watchdog timeout.
/// 5. **Its systems** in [`ActionSet::Step`](crate::ActionSet), which advance the component
///    and end it with [`EndActionExt::end_action`] (`commands.end_action(bot, A::SLOT.name, …)`).
/// 6. **Registration**: `app.add_async_action::<A>()` (completion event and `abort_<slot>`) and
///    `app.add_agent_command::<TheCommand>()`.
///
/// ```
/// use bevy_ecs::prelude::*;
/// use bevy_ecs::world::EntityRef;
/// use clawcraft_core::{ActionSlot, AsyncAction, Outcome};
///
/// #[derive(Component)]
/// pub struct Waving {
///     pub waves: u32,
/// }
///
/// /// `wave_done`.
/// #[derive(serde::Serialize, schemars::JsonSchema, Clone, Debug, PartialEq)]
/// pub struct WaveEvidence {
///     /// Waves made.
///     pub waves: u32,
/// }
/// clawcraft_core::evidence!(WaveEvidence, "wave_done", "A wave ended");
///
/// impl AsyncAction for Waving {
///     const SLOT: ActionSlot = ActionSlot::new("wave", "abort_wave", "Not waving");
///     type Evidence = WaveEvidence;
///     fn evidence(&self, _outcome: &Outcome, _bot: EntityRef<'_>) -> WaveEvidence {
///         WaveEvidence { waves: self.waves }
///     }
/// }
/// ```
pub trait AsyncAction: Component + Sized {
    /// The slot it occupies (`walk`) and its `abort_*` command. Actions may share a slot (`walk`,
    /// `move` and `follow` all move the bot), and then exclude each other.
    const SLOT: ActionSlot;
    /// The completion event's evidence; the event is `ActionDone<Self::Evidence>`.
    type Evidence: Evidence;
    /// The evidence at the moment the action ends, from the component, how it ended and the bot
    /// (position, inventory, …).
    fn evidence(&self, _outcome: &Outcome, _bot: EntityRef<'_>) -> Self::Evidence;
    /// What an interruption does to this action: `Some((status, reason))` ends it, `None` lets it
    /// go on (e.g. a walk re-plans after a teleport).
    fn interrupted(&self, cause: Interruption) -> Option<(ActionStatus, String)> {
        default_interruption(cause)
    }
}

/// The completion event of action `A`.
pub type DoneOf<A> = ActionDone<<A as AsyncAction>::Evidence>;

/// What an action's completion event carries besides [`Outcome`]: its own fields, and the
/// event's `type` and description.
pub trait Evidence: Serialize + JsonSchema + Clone + Send + Sync + 'static {
    /// The completion event's `type` (`eat_done`).
    const EVENT: &'static str;
    /// One line for the schema and the skill.
    const DESCRIPTION: &'static str;
}

/// Implements [`Evidence`] in one line, as [`event_kind!`](crate::event_kind) does for events:
/// `evidence!(EatDone, "eat_done", "An eat/drink ended: …");`.
#[macro_export]
macro_rules! evidence {
    ($ty:ty, $event:expr, $description:expr $(,)?) => {
        impl $crate::Evidence for $ty {
            const EVENT: &'static str = $event;
            const DESCRIPTION: &'static str = $description;
        }
    };
}

/// A completion event: `{"type": E::EVENT, "id", "status", "reason"?, …evidence}`. Reads as its
/// evidence (`done.item`) through `Deref`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ActionDone<E> {
    #[serde(skip)]
    pub bot: Entity,
    #[serde(flatten)]
    pub outcome: Outcome,
    #[serde(flatten)]
    pub evidence: E,
}

impl<E: Evidence> Message for ActionDone<E> {}

impl<E: Evidence> EventKind for ActionDone<E> {
    const NAME: &'static str = E::EVENT;
    const DESCRIPTION: &'static str = E::DESCRIPTION;
    fn bot(&self) -> Option<Entity> {
        Some(self.bot)
    }
}

impl<E> std::ops::Deref for ActionDone<E> {
    type Target = E;
    fn deref(&self) -> &E {
        &self.evidence
    }
}

/// The schema's shape: the outcome's fields, then the evidence's.
#[derive(JsonSchema)]
#[allow(dead_code)]
struct DoneShape<E> {
    #[serde(flatten)]
    outcome: Outcome,
    #[serde(flatten)]
    evidence: E,
}

impl<E: Evidence> JsonSchema for ActionDone<E> {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        pascal_case(E::EVENT).into()
    }
    fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        let mut schema = DoneShape::<E>::json_schema(generator);
        // Named and described as the event (`EatDone`), the evidence's doc as its description.
        let evidence = E::json_schema(generator);
        schema.insert("title".into(), pascal_case(E::EVENT).into());
        match evidence.get("description") {
            Some(d) => schema.insert("description".into(), d.clone()),
            None => schema.remove("description"),
        };
        schema
    }
}

/// `eat_done` → `EatDone`.
fn pascal_case(snake: &str) -> String {
    snake
        .split('_')
        .map(|w| {
            let mut c = w.chars();
            c.next().map(|f| f.to_uppercase().chain(c).collect::<String>()).unwrap_or_default()
        })
        .collect()
}

/// Death, disconnect and shutdown end an action; a teleport does not unless the action says so.
pub fn default_interruption(cause: Interruption) -> Option<(ActionStatus, String)> {
    match cause {
        Interruption::Death => Some((ActionStatus::Failed, "died".into())),
        Interruption::Disconnect => Some((ActionStatus::Failed, "disconnected".into())),
        Interruption::Shutdown => Some((ActionStatus::Aborted, "shutdown".into())),
        Interruption::Teleport => None,
    }
}

/// Ends the action in a slot: builds and emits its completion event, removes its component.
/// Returns the event's fields, or `None` when the action was already gone.
type EndFn = fn(&mut World, Entity, Outcome) -> Option<Map<String, Value>>;
/// Asks the action in a slot what an interruption means to it.
type InterruptFn = fn(&World, Entity, Interruption) -> Option<(ActionStatus, String)>;

/// One running action.
#[derive(Debug, Clone)]
pub struct ActiveAction {
    /// The command that started it.
    pub command: &'static str,
    /// Its request id.
    pub id: Value,
    pub started_tick: u64,
    /// The watchdog ends it at this tick.
    pub deadline_tick: u64,
    /// The abort command of its slot.
    pub abort: &'static str,
    end: EndFn,
    interrupt: InterruptFn,
}

/// The bot's running actions, by slot. The action's own component carries its state; this is
/// the bookkeeping the generic rules (busy, watchdog, interruptions, abort) need.
#[derive(Component, Debug, Clone, Default)]
pub struct ActiveActions {
    pub slots: BTreeMap<&'static str, ActiveAction>,
}

impl ActiveActions {
    pub fn is_busy(&self, slot: &str) -> bool {
        self.slots.contains_key(slot)
    }
}

impl ActiveAction {
    /// The `BUSY` refusal of another action in this one's slot, naming it and its abort.
    pub fn busy(&self) -> CommandError {
        CommandError::busy(&format!("running {} (id {})", self.command, self.id), self.abort)
    }
}

/// `BUSY` when an action runs in `slot` on `bot`. The command path asks this before a command
/// that starts an action in `slot` ([`AgentCommand::ASYNC`]) runs at all, so a refused command
/// has done nothing: no packet queued, no inventory job, no turn (a command's own code cannot
/// forget to check first).
pub fn refuse_if_busy(world: &World, bot: Entity, slot: &str) -> Result<(), CommandError> {
    match world.get::<ActiveActions>(bot).and_then(|a| a.slots.get(slot)) {
        Some(running) => Err(running.busy()),
        None => Ok(()),
    }
}

fn end_fn<A: AsyncAction>(world: &mut World, bot: Entity, outcome: Outcome) -> Option<Map<String, Value>> {
    let mut entity = world.get_entity_mut(bot).ok()?;
    let component = entity.take::<A>()?;
    let evidence = component.evidence(&outcome, world.entity(bot));
    let event = AgentEvent::new(ActionDone { bot, outcome, evidence });
    let fields = event.fields();
    world.write_message(event);
    Some(fields)
}

fn interrupt_fn<A: AsyncAction>(world: &World, bot: Entity, cause: Interruption) -> Option<(ActionStatus, String)> {
    world.get::<A>(bot)?.interrupted(cause)
}

/// Ends the action running in `slot` on `bot` with `status` and `reason`: its completion event is
/// emitted (exactly once: the slot is freed first), its component removed. Returns the event's
/// fields, or `None` when nothing ran there.
pub fn end_action(
    world: &mut World,
    bot: Entity,
    slot: &str,
    status: ActionStatus,
    reason: Option<String>,
) -> Option<Map<String, Value>> {
    let running = world.get_mut::<ActiveActions>(bot)?.slots.remove(slot)?;
    let tick = world.get_resource::<TickCount>().map_or(0, |t| t.0);
    world.get_resource_or_init::<crate::gate::LastActionEnd>().0 = Some(tick);
    let outcome = Outcome { id: running.id.clone(), status, reason };
    let fields = (running.end)(world, bot, outcome);
    if fields.is_none() {
        tracing::debug!(slot, command = running.command, "action component was already gone");
    }
    fields
}

/// Ending an action from a system that has `Commands` (applied at the next sync point).
pub trait EndActionExt {
    /// Ends the action in `slot` (see [`end_action`]).
    fn end_action(&mut self, bot: Entity, slot: &'static str, status: ActionStatus, reason: Option<String>);
}

impl EndActionExt for Commands<'_, '_> {
    fn end_action(&mut self, bot: Entity, slot: &'static str, status: ActionStatus, reason: Option<String>) {
        self.queue(move |world: &mut World| {
            end_action(world, bot, slot, status, reason);
        });
    }
}

impl CommandCtx<'_> {
    /// Starts action `A` on the bot with `component` as its state: claims `A::SLOT.name` (or fails
    /// with `BUSY`), arms the watchdog for `timeout_ticks`, inserts the component.
    pub fn start<A: AsyncAction>(
        &mut self,
        command: &'static str,
        component: A,
        timeout_ticks: u64,
    ) -> Result<(), CommandError> {
        start_action(self.world, self.bot, command, self.id.clone(), component, timeout_ticks)
    }
}

/// Starts action `A` on `bot` outside a command (a policy acting on its own): as
/// [`CommandCtx::start`], under `command`'s name and request `id`.
pub fn start_action<A: AsyncAction>(
    world: &mut World,
    bot: Entity,
    command: &'static str,
    id: Value,
    component: A,
    timeout_ticks: u64,
) -> Result<(), CommandError> {
    let now = world.get_resource::<TickCount>().map_or(0, |t| t.0);
    let mut entity = world.get_entity_mut(bot).map_err(|_| CommandError::not_spawned())?;
    if !entity.contains::<ActiveActions>() {
        entity.insert(ActiveActions::default());
    }
    let mut actions = entity.get_mut::<ActiveActions>().ok_or_else(CommandError::not_spawned)?;
    if let Some(running) = actions.slots.get(A::SLOT.name) {
        return Err(running.busy());
    }
    actions.slots.insert(
        A::SLOT.name,
        ActiveAction {
            command,
            id,
            started_tick: now,
            deadline_tick: now.saturating_add(timeout_ticks),
            abort: A::SLOT.abort,
            end: end_fn::<A>,
            interrupt: interrupt_fn::<A>,
        },
    );
    entity.insert(component);
    Ok(())
}

/// `command_timeout`: an async action overran its watchdog and was stopped.
#[derive(Message, Clone, Serialize, JsonSchema)]
pub struct CommandTimeout {
    #[serde(skip)]
    pub bot: Entity,
    /// The command that started the action.
    pub command: String,
    /// Its request id.
    pub id: Value,
}

crate::event_kind!(
    CommandTimeout,
    "command_timeout",
    "An async action (walk, mine, eat, …) overran its watchdog and was stopped (its completion event follows with status timeout)"
);

/// Ends overdue actions: ClawCraft's `command_timeout`, then the completion event with
/// `status:"timeout"`.
pub fn watchdog(world: &mut World) {
    let now = world.resource::<TickCount>().0;
    let mut overdue = Vec::new();
    let mut q = world.query::<(Entity, &ActiveActions)>();
    for (bot, actions) in q.iter(world) {
        for (slot, a) in &actions.slots {
            if now >= a.deadline_tick {
                overdue.push((bot, *slot, a.command, a.id.clone(), a.deadline_tick - a.started_tick));
            }
        }
    }
    for (bot, slot, command, id, ticks) in overdue {
        tracing::info!(command, %id, "action timed out");
        world.write_message(AgentEvent::new(CommandTimeout { bot, command: command.into(), id }));
        let reason = format!("no completion within {} s", ticks.div_ceil(20));
        end_action(world, bot, slot, ActionStatus::Timeout, Some(reason));
    }
}

/// Applies [`InterruptActions`]: each running action decides whether the cause ends it.
pub fn apply_interruptions(world: &mut World) {
    let interruptions: Vec<InterruptActions> =
        world.get_resource_mut::<Messages<InterruptActions>>().map(|mut m| m.drain().collect()).unwrap_or_default();
    for InterruptActions { bot, cause } in interruptions {
        let Some(actions) = world.get::<ActiveActions>(bot) else { continue };
        let running: Vec<(&'static str, InterruptFn)> = actions.slots.iter().map(|(s, a)| (*s, a.interrupt)).collect();
        for (slot, ask) in running {
            if let Some((status, reason)) = ask(world, bot, cause) {
                end_action(world, bot, slot, status, Some(reason));
            }
        }
    }
}

/// `abort_<slot>`: ends whatever runs in the slot with `status:"aborted"`. The response carries
/// `aborted:true`, the action's command and id, and the evidence its completion event carries.
pub struct AbortAction<A>(PhantomData<fn() -> A>);

impl<'de, A> Deserialize<'de> for AbortAction<A> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        serde::de::IgnoredAny::deserialize(d)?;
        Ok(Self(PhantomData))
    }
}

impl<A: AsyncAction> JsonSchema for AbortAction<A> {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        A::SLOT.abort.into()
    }
    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({ "type": "object", "title": A::SLOT.abort, "properties": {} })
    }
}

/// Response of `abort_*`: `aborted`, the stopped action, and its completion event's fields.
#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct AbortResponse {
    /// Always true (an idle slot is an error, ClawCraft's `Not walking` etc.).
    pub aborted: bool,
    /// The command that started the stopped action.
    pub action: String,
    /// The stopped action's request id (its completion event carries it too).
    pub action_id: Value,
    /// The completion event's evidence fields (e.g. `walked`, `pos`).
    #[serde(flatten)]
    pub evidence: Map<String, Value>,
}

impl<A: AsyncAction> AgentCommand for AbortAction<A> {
    const NAME: &'static str = A::SLOT.abort;
    const SUMMARY: &'static str =
        "Stop the running action of this slot; its completion event follows with status aborted";
    /// Replaced by the real name when registered through [`AppActionExt::add_async_action`].
    const EXAMPLE: &'static str = "{\"action\":\"abort_…\"}";
    const ABORTS: Option<&'static str> = Some(A::SLOT.name);
    type Response = AbortResponse;

    fn run(self, ctx: &mut CommandCtx<'_>) -> Result<AbortResponse, CommandError> {
        let Some(a) = abort_slot(ctx.world, ctx.bot, A::SLOT.name) else {
            return Err(CommandError::new("NOT_ACTIVE", A::SLOT.idle));
        };
        Ok(AbortResponse { aborted: true, action: a.command.into(), action_id: a.action_id, evidence: a.evidence })
    }
}

/// An action ended by request ([`abort_slot`]).
#[derive(Debug, Clone, PartialEq)]
pub struct Aborted {
    /// The command that started it.
    pub command: &'static str,
    /// Its request id.
    pub action_id: Value,
    /// Its completion event's fields besides `id`, `status` and `reason`.
    pub evidence: Map<String, Value>,
}

/// Ends the action running in `slot` on `bot` as its `abort_<slot>` command does (`aborted`,
/// reason `aborted by request`; its completion event is emitted). `None` when nothing ran there.
pub fn abort_slot(world: &mut World, bot: Entity, slot: &str) -> Option<Aborted> {
    let (command, action_id) =
        world.get::<ActiveActions>(bot).and_then(|a| a.slots.get(slot)).map(|a| (a.command, a.id.clone()))?;
    let mut evidence =
        end_action(world, bot, slot, ActionStatus::Aborted, Some("aborted by request".into())).unwrap_or_default();
    for k in ["id", "status", "reason"] {
        evidence.remove(k);
    }
    Some(Aborted { command, action_id, evidence })
}

/// Registering action types on the `App`.
pub trait AppActionExt {
    /// Registers action `A`: its completion event and its `abort_<slot>` command.
    fn add_async_action<A: AsyncAction>(&mut self) -> &mut Self;
}

impl AppActionExt for App {
    fn add_async_action<A: AsyncAction>(&mut self) -> &mut Self {
        self.add_agent_event::<DoneOf<A>>().add_agent_command::<AbortAction<A>>();
        // Once per action type: the example names the real abort command.
        let example: &'static str = Box::leak(format!("{{\"action\":\"{}\"}}", A::SLOT.abort).into_boxed_str());
        self.world_mut().resource_mut::<crate::command::CommandRegistry>().set_example(A::SLOT.abort, example);
        self
    }
}
