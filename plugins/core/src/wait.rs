//! `"wait"` on a request: the answer of a command that starts an async action comes when the
//! action ends, carrying its completion event.
//!
//! Every channel goes through the same command path, so this is done once here: the request's
//! first answer (given at once, or later through a [`DeferredReply`](crate::DeferredReply)) is
//! held, and [`answer_waiting_requests`] writes it out when the completion event of that bot and
//! request id is published — the answer's fields plus `completion` (the event as the agent reads
//! it; the event itself is still emitted), each field the event repeats said once, there. When the wait runs out first, the answer says the
//! action is still `running` and names its abort command. An action that never started (a walk
//! already at its goal) or a refused command is answered at once, as without `wait`.

use bevy_ecs::message::{MessageCursor, Messages};
use bevy_ecs::prelude::*;
use serde_json::{Map, Value};

use crate::action::{ActiveActions, TickCount};
use crate::command::{AsyncInfo, CommandError, CommandRequest, CommandResponse, Origin};
use crate::event::{AgentEvent, now_ms};

/// `"wait": true` waits this long at most (an action's own watchdog usually ends it first).
pub const DEFAULT_WAIT_MS: u64 = 600_000;
/// The longest wait a request may ask for.
pub const MAX_WAIT_MS: u64 = 3_600_000;
/// Milliseconds per game tick.
const TICK_MS: u64 = 50;

/// How long a request waits for its action's end, from its `wait` field.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WaitFor {
    pub ms: u64,
}

impl WaitFor {
    /// Takes `wait` out of a request's fields: `true` waits up to [`DEFAULT_WAIT_MS`], a number
    /// that many milliseconds; `false`, `null` or no field do not wait.
    pub fn take(params: &mut Map<String, Value>) -> Result<Option<Self>, CommandError> {
        match params.remove("wait") {
            None | Some(Value::Null) | Some(Value::Bool(false)) => Ok(None),
            Some(Value::Bool(true)) => Ok(Some(Self { ms: DEFAULT_WAIT_MS })),
            Some(Value::Number(n)) => match n.as_u64() {
                Some(ms @ 1..=MAX_WAIT_MS) => Ok(Some(Self { ms })),
                _ => Err(CommandError::out_of_range(format!(
                    "wait must be true or a number of milliseconds from 1 to {MAX_WAIT_MS}, got {n}"
                ))),
            },
            Some(other) => {
                Err(CommandError::invalid_params(format!("wait must be true or a number of milliseconds, got {other}")))
            }
        }
    }
}

/// Requests waiting for their action's end.
#[derive(Resource, Default)]
pub struct WaitingRequests {
    waiting: Vec<Waiting>,
    events: MessageCursor<AgentEvent>,
    responses: MessageCursor<CommandResponse>,
}

impl WaitingRequests {
    /// Whether any request waits (the ticks stay busy until it is answered).
    pub fn any(&self) -> bool {
        !self.waiting.is_empty()
    }

    /// Registers a request whose first answer is `first` (its line), or comes later held
    /// (`None`).
    pub fn hold(
        &mut self,
        req: &CommandRequest,
        bot: Entity,
        info: AsyncInfo,
        wait: WaitFor,
        now: u64,
        first: Option<std::sync::Arc<str>>,
    ) {
        let deadline = now + wait.ms.div_ceil(TICK_MS).max(1);
        self.waiting.push(Waiting {
            origin: req.origin,
            id: req.id.clone(),
            bot,
            info,
            deadline,
            ms: wait.ms,
            first,
            completion: None,
            released: false,
        });
    }
}

struct Waiting {
    origin: Origin,
    id: Value,
    bot: Entity,
    info: AsyncInfo,
    /// The tick at which the wait runs out.
    deadline: u64,
    ms: u64,
    /// The request's first answer (a response line), once given.
    first: Option<std::sync::Arc<str>>,
    /// The completion event, as the agent reads it, once published.
    completion: Option<Map<String, Value>>,
    /// The wait ran out before the first answer came: that answer goes out as it is.
    released: bool,
}

/// Answers the waiting requests whose action ended (or never started, or whose wait ran out).
/// Runs after the tick's events are published and before the output reads the responses.
pub fn answer_waiting_requests(world: &mut World) {
    world.resource_scope(|world, mut state: Mut<WaitingRequests>| {
        let WaitingRequests { waiting, events, responses } = &mut *state;
        // The cursors move on even with nothing waiting, so a later wait never sees old messages.
        let mut out: Vec<(Origin, String)> = Vec::new();
        if let Some(msgs) = world.get_resource::<Messages<CommandResponse>>() {
            for r in responses.read(msgs) {
                if !r.held {
                    continue;
                }
                let id = response_id(&r.line);
                let Some(at) = waiting.iter().position(|w| w.origin == r.origin && Some(&w.id) == id.as_ref()) else {
                    // Nobody waits for it (cannot happen): it goes out as it is.
                    out.push((r.origin, r.line.to_string()));
                    continue;
                };
                if waiting[at].released {
                    // Its wait ran out before it came: it goes out as it is.
                    out.push((r.origin, r.line.to_string()));
                    waiting.swap_remove(at);
                } else {
                    waiting[at].first = Some(r.line.clone());
                }
            }
        }
        if let Some(msgs) = world.get_resource::<Messages<AgentEvent>>() {
            for e in events.read(msgs) {
                let ends = |w: &Waiting| {
                    w.completion.is_none() && w.info.completion_event == e.kind() && e.bot() == Some(w.bot)
                };
                if !waiting.iter().any(ends) {
                    continue;
                }
                let event = e.to_json(now_ms());
                if let Some(w) = waiting.iter_mut().find(|w| ends(w) && event.get("id") == Some(&w.id)) {
                    w.completion = Some(event);
                }
            }
        }
        let now = world.get_resource::<TickCount>().map_or(0, |t| t.0);
        waiting.retain_mut(|w| {
            let Some(first) = w.first.clone() else {
                // The first answer has not come yet: past the deadline it will go out as it is.
                if now >= w.deadline {
                    w.released = true;
                }
                return true;
            };
            let running =
                world.get::<ActiveActions>(w.bot).and_then(|a| a.slots.get(w.info.slot)).is_some_and(|a| a.id == w.id);
            let answer = match w.completion.take() {
                Some(done) => with_completion(&first, done),
                // It never started, or it ended without its event (the bot left).
                None if !running => first.to_string(),
                None if now >= w.deadline => with_fields(
                    &first,
                    [
                        ("running", Value::Bool(true)),
                        ("waitedMs", Value::from(w.ms)),
                        ("abort", Value::from(w.info.abort)),
                    ],
                ),
                None => return true,
            };
            out.push((w.origin, answer));
            false
        });
        for (origin, line) in out {
            world.write_message(CommandResponse { origin, line: line.into(), typed: None, held: false });
        }
    });
}

/// The `id` of a response line.
fn response_id(line: &str) -> Option<Value> {
    serde_json::from_str::<Map<String, Value>>(line).ok()?.remove("id")
}

/// `line` (a JSON object) with `fields` set.
fn with_fields<const N: usize>(line: &str, fields: [(&str, Value); N]) -> String {
    match serde_json::from_str::<Map<String, Value>>(line) {
        Ok(mut m) => {
            m.extend(fields.into_iter().map(|(k, v)| (k.to_owned(), v)));
            Value::Object(m).to_string()
        }
        Err(_) => line.to_owned(),
    }
}

/// The waited answer: `first` (a JSON object) with the completion event under `completion`. A
/// field of `first` the event repeats with the same value (`block`, `pos`, `item`, …) is said
/// once, in `completion`: the agent pays for each character it reads.
fn with_completion(first: &str, done: Map<String, Value>) -> String {
    match serde_json::from_str::<Map<String, Value>>(first) {
        Ok(mut m) => {
            m.retain(|k, v| k == "type" || k == "id" || done.get(k) != Some(v));
            m.insert("completion".to_owned(), Value::Object(done));
            Value::Object(m).to_string()
        }
        Err(_) => first.to_owned(),
    }
}

/// Whether a request waits (keeps the ticks busy).
pub fn requests_waiting(world: &World) -> bool {
    world.get_resource::<WaitingRequests>().is_some_and(WaitingRequests::any)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_waited_answer_says_each_field_once() {
        let first = r#"{"type":"response","id":7,"mining":true,"block":"minecraft:stone","pos":{"x":1,"y":2,"z":3},"tool":null}"#;
        let done = json!({"type":"mine_done","id":7,"status":"done","block":"minecraft:stone","pos":{"x":1,"y":2,"z":3},"tool":"minecraft:wooden_pickaxe"});
        let Value::Object(done) = done else { unreachable!() };
        let answer: Value = serde_json::from_str(&with_completion(first, done.clone())).expect("JSON");
        assert_eq!(
            answer,
            json!({"type":"response","id":7,"mining":true,"tool":null,"completion":Value::Object(done)}),
            "block and pos only in the completion; tool differs, so both keep theirs"
        );
    }
}
