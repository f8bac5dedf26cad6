//! The MCP thread's shared state: calls waiting for their response, actions waiting for their
//! completion event, and the ring of recent events behind `clawcraft://events`.

use std::collections::{HashMap, VecDeque};
use std::path::PathBuf;
use std::sync::{Arc, Mutex, MutexGuard};

use clawcraft_core::command::next_request_id;
use clawcraft_core::{CommandRequest, CommandWaker, Origin};
use clawcraft_io::StampedEvent;
use clawcraft_io::events_file::{Cursor, read_events};
use crossbeam_channel::Sender;
use serde_json::{Map, Value};
use tokio::sync::{Semaphore, oneshot, watch};

use crate::MCP_ORIGINS_START;
use crate::bridge::{FromMcp, ToMcp};
use crate::tools::Catalog;

/// Tool calls and resource reads that may wait for the game loop at once; more wait their turn
/// here, so an HTTP client firing requests cannot grow the command queue without bound.
const MAX_IN_FLIGHT: usize = 256;

/// The game loop is gone (the bot is shutting down).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GameGone;

/// Shared by every MCP session of the process.
pub struct Hub {
    pub catalog: Arc<Catalog>,
    requests: Sender<FromMcp>,
    waker: CommandWaker,
    in_flight: Semaphore,
    state: Mutex<State>,
    /// The last `seq` seen: subscriptions wake on its changes.
    last_seq: watch::Sender<u64>,
    events_file: Option<PathBuf>,
}

struct State {
    next_origin: Origin,
    /// Calls waiting for their response, by origin (one origin per call).
    calls: HashMap<Origin, oneshot::Sender<Arc<str>>>,
    /// Calls waiting for an action's completion event, by request id (as JSON text).
    completions: HashMap<String, Vec<oneshot::Sender<Value>>>,
    ring: VecDeque<StampedEvent>,
    ring_capacity: usize,
}

/// One page of the event log.
#[derive(Debug, Clone, PartialEq)]
pub struct EventsPage {
    /// The events as JSON texts, in `seq` order.
    pub events: Vec<Arc<str>>,
    /// Resume after this `seq` (the last event returned, or the cursor when none were).
    pub last_seq: u64,
    /// More events follow `last_seq` already.
    pub more: bool,
    /// Events after the cursor that are gone (older than the ring, no events file).
    pub missed: u64,
    /// Names of a type filter that are no event type, with the closest ones.
    pub warnings: Vec<String>,
}

/// Whether an event of type `kind` passes a type filter (`None`: every event does).
fn admits(types: Option<&[String]>, kind: &str) -> bool {
    types.is_none_or(|t| t.iter().any(|w| w == kind))
}

/// Which events a read or a subscription wants.
#[derive(Debug, Clone, Copy, Default)]
pub struct Filter<'a> {
    /// Only events of these types (`None`: of every type).
    pub types: Option<&'a [String]>,
    /// Only this bot's events and the process's own (`None`: every bot's).
    pub bot: Option<&'a str>,
}

impl Filter<'_> {
    fn admits(&self, event: &StampedEvent) -> bool {
        admits(self.types, &event.kind) && event.is_for(self.bot)
    }

    /// The same test on an event read back from the events file.
    fn admits_value(&self, event: &Value) -> bool {
        let bot_ok = match (self.bot, event["bot"].as_str()) {
            (Some(want), Some(name)) => name.eq_ignore_ascii_case(want),
            _ => true,
        };
        bot_ok && admits(self.types, event["type"].as_str().unwrap_or(""))
    }
}

impl EventsPage {
    /// `{"events":[…],"lastSeq":N,"more":bool}` (and `missed` when some are gone).
    pub fn to_json(&self) -> String {
        let mut out = String::from("{\"events\":[");
        for (i, e) in self.events.iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            out.push_str(e);
        }
        out.push_str(&format!("],\"lastSeq\":{},\"more\":{}", self.last_seq, self.more));
        if self.missed > 0 {
            out.push_str(&format!(",\"missed\":{}", self.missed));
        }
        if !self.warnings.is_empty() {
            out.push_str(&format!(",\"warnings\":{}", serde_json::Value::from(self.warnings.clone())));
        }
        out.push('}');
        out
    }
}

impl Hub {
    pub fn new(
        catalog: Arc<Catalog>,
        requests: Sender<FromMcp>,
        waker: CommandWaker,
        events_file: Option<PathBuf>,
        ring_capacity: usize,
    ) -> Self {
        let state = State {
            next_origin: MCP_ORIGINS_START,
            calls: HashMap::new(),
            completions: HashMap::new(),
            ring: VecDeque::new(),
            ring_capacity,
        };
        Self {
            catalog,
            requests,
            waker,
            in_flight: Semaphore::new(MAX_IN_FLIGHT),
            state: Mutex::new(state),
            last_seq: watch::Sender::new(0),
            events_file,
        }
    }

    fn state(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Hands a message to the game loop and wakes it.
    pub fn to_game(&self, msg: FromMcp) -> Result<(), GameGone> {
        let sent = self.requests.send(msg).map_err(|_| GameGone);
        self.waker.wake();
        sent
    }

    /// Runs `action` (for `bot`, when named) through the command path and returns its response
    /// line. The request id is `id` (`null` picks the next process-wide one). Dropping the future
    /// forgets the call (its response is then discarded).
    pub async fn run(
        &self,
        action: &str,
        bot: Option<String>,
        id: Value,
        params: Map<String, Value>,
    ) -> Result<Arc<str>, GameGone> {
        let _permit = self.in_flight.acquire().await.map_err(|_| GameGone)?;
        let id = if id.is_null() { next_request_id() } else { id };
        let (tx, rx) = oneshot::channel();
        let origin = {
            let mut state = self.state();
            let origin = state.next_origin;
            state.next_origin = if origin + 1 >= MCP_ORIGINS_START << 1 { MCP_ORIGINS_START } else { origin + 1 };
            state.calls.insert(origin, tx);
            origin
        };
        let _forget = Forget { hub: self, origin };
        self.to_game(FromMcp::Request(CommandRequest { origin, id, action: action.to_owned(), bot, params }))?;
        rx.await.map_err(|_| GameGone)
    }

    /// Waits for the completion event carrying request id `id` (register before the command
    /// runs: the action may end in the tick that starts it).
    pub fn expect_completion(&self, id: &Value) -> oneshot::Receiver<Value> {
        let (tx, rx) = oneshot::channel();
        let mut state = self.state();
        // Callers that went away (cancelled calls) leave closed senders behind.
        state.completions.retain(|_, waiting| {
            waiting.retain(|w| !w.is_closed());
            !waiting.is_empty()
        });
        state.completions.entry(id.to_string()).or_default().push(tx);
        rx
    }

    /// One output pass of the game loop: answers waiting calls, records the events, wakes
    /// subscriptions.
    pub fn deliver(&self, out: ToMcp) {
        let mut state = self.state();
        for (origin, line) in out.responses {
            if let Some(call) = state.calls.remove(&origin) {
                let _ = call.send(line);
            }
        }
        let Some(last) = out.events.last().map(|e| e.seq) else { return };
        for event in out.events.iter() {
            if !state.completions.is_empty() {
                self.complete(&mut state, event);
            }
            if state.ring.len() >= state.ring_capacity {
                state.ring.pop_front();
            }
            if state.ring_capacity > 0 {
                state.ring.push_back(event.clone());
            }
        }
        drop(state);
        self.last_seq.send_replace(last);
    }

    /// Hands a completion event to the call waiting for it.
    fn complete(&self, state: &mut State, event: &StampedEvent) {
        let is_completion =
            self.catalog.completion_events().any(|name| event.line.contains(&format!("\"type\":\"{name}\"")));
        if !is_completion {
            return;
        }
        let Ok(value) = serde_json::from_str::<Value>(&event.line) else { return };
        let key = value.get("id").map(Value::to_string).unwrap_or_default();
        let Some(waiting) = state.completions.get_mut(&key) else { return };
        if !waiting.is_empty() {
            let call = waiting.remove(0);
            let _ = call.send(value);
        }
        if waiting.is_empty() {
            state.completions.remove(&key);
        }
    }

    /// Subscriptions watch this for new events.
    pub fn watch_seq(&self) -> watch::Receiver<u64> {
        self.last_seq.subscribe()
    }

    /// The last `seq` the MCP thread has seen.
    pub fn last_seq(&self) -> u64 {
        *self.last_seq.borrow()
    }

    /// Events after `since` from memory, at most `limit`, only those `filter` admits. `lastSeq`
    /// passes the events the filter skipped, so resuming from it never scans them again.
    pub fn ring_page(&self, since: u64, limit: usize, filter: Filter<'_>) -> EventsPage {
        let state = self.state();
        let first = state.ring.front().map_or(u64::MAX, |e| e.seq);
        let start = state.ring.partition_point(|e| e.seq <= since);
        let (mut events, mut last_seq, mut more) = (Vec::new(), since, false);
        for e in state.ring.iter().skip(start) {
            let wanted = filter.admits(e);
            if wanted && events.len() >= limit {
                more = true;
                break;
            }
            last_seq = e.seq;
            if wanted {
                events.push(e.line.clone());
            }
        }
        let missed = if first != u64::MAX && first > since + 1 { first - since - 1 } else { 0 };
        EventsPage { events, last_seq, more, missed, warnings: Vec::new() }
    }

    /// The last `limit` events in memory that `filter` admits.
    pub fn recent(&self, limit: usize, filter: Filter<'_>) -> EventsPage {
        let since = {
            let state = self.state();
            let mut matching = state.ring.iter().rev().filter(|e| filter.admits(e));
            match matching.nth(limit) {
                Some(e) => e.seq,
                None => state.ring.front().map_or(self.last_seq(), |e| e.seq.saturating_sub(1)),
            }
        };
        let mut page = self.ring_page(since, limit, filter);
        page.missed = 0;
        page
    }

    /// Events after `since`, at most `limit`, that `filter` admits: from memory, or from the
    /// events file (on a blocking thread) when the ring no longer reaches back that far.
    pub async fn events_page(self: &Arc<Self>, since: u64, limit: usize, filter: Filter<'_>) -> EventsPage {
        let page = self.ring_page(since, limit, filter);
        let Some(path) = self.events_file.clone().filter(|_| page.missed > 0) else { return page };
        let read = tokio::task::spawn_blocking(move || read_events(&path, Cursor::AfterSeq(since))).await;
        let from_file = read.unwrap_or_default();
        let file_last = from_file.last().and_then(|v| v["seq"].as_u64()).unwrap_or(since);
        let wanted: Vec<&serde_json::Value> = from_file.iter().filter(|v| filter.admits_value(v)).collect();
        let mut events: Vec<Arc<str>> = wanted.iter().take(limit).map(|v| Arc::from(v.to_string())).collect();
        let mut more = wanted.len() > events.len();
        let mut last_seq = if more {
            events.len().checked_sub(1).and_then(|i| wanted.get(i)).and_then(|v| v["seq"].as_u64()).unwrap_or(since)
        } else {
            file_last
        };
        // The file may lag the ring (it is written on its own thread): the rest from memory.
        if !more && events.len() < limit {
            let rest = self.ring_page(file_last.max(since), limit - events.len(), filter);
            last_seq = last_seq.max(rest.last_seq);
            more = rest.more;
            events.extend(rest.events);
        }
        let missed = if events.is_empty() && last_seq == since { page.missed } else { 0 };
        EventsPage { events, last_seq, more, missed, warnings: Vec::new() }
    }
}

/// Forgets a call whose future was dropped before its answer came.
struct Forget<'a> {
    hub: &'a Hub,
    origin: Origin,
}

impl Drop for Forget<'_> {
    fn drop(&mut self) {
        self.hub.state().calls.remove(&self.origin);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clawcraft_core::CommandRegistry;

    fn hub(ring: usize) -> (Arc<Hub>, crossbeam_channel::Receiver<FromMcp>) {
        let (tx, rx) = crossbeam_channel::unbounded();
        let mut app = bevy_app::App::new();
        app.add_plugins(clawcraft_core::CorePlugin);
        let waker = app.world().resource::<CommandWaker>().clone();
        let catalog = Arc::new(Catalog::new(&CommandRegistry::default()));
        (Arc::new(Hub::new(catalog, tx, waker, None, ring)), rx)
    }

    fn events(seqs: std::ops::RangeInclusive<u64>) -> Arc<[StampedEvent]> {
        seqs.map(|seq| StampedEvent {
            seq,
            kind: "tick".into(),
            bot: None,
            line: format!("{{\"type\":\"tick\",\"seq\":{seq}}}").into(),
        })
        .collect()
    }

    #[test]
    fn pages_of_the_ring_resume_by_seq_and_report_what_is_gone() {
        let (hub, _rx) = hub(5);
        hub.deliver(ToMcp { responses: vec![], events: events(1..=8) });
        assert_eq!(hub.last_seq(), 8);
        let p = hub.ring_page(5, 2, Filter::default());
        assert_eq!(p.events.len(), 2);
        assert_eq!((p.last_seq, p.more, p.missed), (7, true, 0));
        let p = hub.ring_page(7, 10, Filter::default());
        assert_eq!((p.events.len(), p.last_seq, p.more), (1, 8, false));
        let p = hub.ring_page(8, 10, Filter::default());
        assert!(p.events.is_empty());
        assert_eq!(p.last_seq, 8, "nothing new: the cursor stays");
        let p = hub.ring_page(0, 10, Filter::default());
        assert_eq!(p.missed, 3, "seq 1..=3 fell out of the ring of 5");
        assert_eq!(p.events.first().map(|e| e.contains("\"seq\":4")), Some(true));
        let r = hub.recent(2, Filter::default());
        assert_eq!(
            r.to_json(),
            r#"{"events":[{"type":"tick","seq":7},{"type":"tick","seq":8}],"lastSeq":8,"more":false}"#
        );
    }

    fn only(types: &[String]) -> Filter<'_> {
        Filter { types: Some(types), bot: None }
    }

    #[test]
    fn a_bot_filter_pages_that_bots_events_and_the_process_own() {
        let (hub, _rx) = hub(10);
        // seq 1..=6: the process's own at 1, then Ann, Bob, Ann, Bob, Ann.
        let batch: Arc<[StampedEvent]> = (1..=6u64)
            .map(|seq| {
                let bot: Option<Arc<str>> = match seq {
                    1 => None,
                    s if s % 2 == 0 => Some("Ann".into()),
                    _ => Some("Bob".into()),
                };
                let field = bot.as_ref().map(|b| format!(",\"bot\":\"{b}\"")).unwrap_or_default();
                StampedEvent {
                    seq,
                    kind: "tick".into(),
                    bot,
                    line: format!("{{\"type\":\"tick\"{field},\"seq\":{seq}}}").into(),
                }
            })
            .collect();
        hub.deliver(ToMcp { responses: vec![], events: batch });
        let ann = Filter { types: None, bot: Some("ann") };
        let p = hub.ring_page(0, 10, ann);
        let seqs: Vec<bool> = p.events.iter().map(|e| e.contains("Bob")).collect();
        assert_eq!(p.events.len(), 4, "the process's own event and Ann's three: {:?}", p.events);
        assert!(!seqs.contains(&true), "no event of Bob's");
        assert_eq!(p.last_seq, 6);
        let r = hub.recent(1, Filter { types: None, bot: Some("Bob") });
        assert_eq!(r.events.len(), 1);
        assert!(r.events[0].contains("\"seq\":5"), "Bob's last event: {:?}", r.events);
        let from_file = serde_json::json!({"type": "tick", "bot": "Bob", "seq": 9});
        assert!(!ann.admits_value(&from_file) && Filter::default().admits_value(&from_file));
    }

    #[test]
    fn a_type_filter_pages_only_those_events_and_its_cursor_skips_the_rest() {
        let (hub, _rx) = hub(10);
        // seq 1..=8: `danger` at 2, 5 and 6, `tick` otherwise.
        let batch: Arc<[StampedEvent]> = (1..=8u64)
            .map(|seq| {
                let kind = if [2, 5, 6].contains(&seq) { "danger" } else { "tick" };
                StampedEvent {
                    seq,
                    kind: kind.into(),
                    bot: None,
                    line: format!("{{\"type\":\"{kind}\",\"seq\":{seq}}}").into(),
                }
            })
            .collect();
        hub.deliver(ToMcp { responses: vec![], events: batch });
        let dangers = ["danger".to_owned()];
        let p = hub.ring_page(0, 2, only(&dangers));
        assert_eq!(p.events.len(), 2);
        assert_eq!((p.last_seq, p.more), (5, true), "stops before the third danger");
        let p = hub.ring_page(5, 10, only(&dangers));
        assert_eq!((p.events.len(), p.last_seq, p.more), (1, 8, false), "the cursor passes the ticks after it");
        let p = hub.ring_page(8, 10, only(&dangers));
        assert!(p.events.is_empty() && p.last_seq == 8);
        assert_eq!(
            hub.recent(2, only(&dangers)).to_json(),
            r#"{"events":[{"type":"danger","seq":5},{"type":"danger","seq":6}],"lastSeq":8,"more":false}"#,
            "the last two dangers, not the dangers among the last two events"
        );
    }

    #[tokio::test(flavor = "current_thread")]
    async fn a_call_gets_the_response_of_its_origin_and_a_dropped_call_is_forgotten() {
        let (hub, rx) = hub(10);
        let h = hub.clone();
        let call =
            tokio::spawn(async move { h.run("pos", Some("Miner02".into()), Value::from("x"), Map::new()).await });
        tokio::task::yield_now().await;
        let Ok(FromMcp::Request(req)) = rx.try_recv() else { panic!("no request reached the game loop") };
        assert_eq!((req.action.as_str(), &req.id), ("pos", &Value::from("x")));
        assert_eq!(req.bot.as_deref(), Some("Miner02"), "the tool's bot names the request's bot");
        assert!(crate::is_mcp_origin(req.origin));
        let other = (req.origin + 1, Arc::from("{\"other\":true}"));
        hub.deliver(ToMcp { responses: vec![other, (req.origin, "{\"mine\":true}".into())], events: events(1..=1) });
        assert_eq!(call.await.expect("joined").expect("answered").as_ref(), "{\"mine\":true}");

        let h = hub.clone();
        let dropped = tokio::spawn(async move { h.run("pos", None, Value::Null, Map::new()).await });
        tokio::task::yield_now().await;
        let Ok(FromMcp::Request(req)) = rx.try_recv() else { panic!("no request") };
        assert!(req.id.is_u64(), "a null id gets the next process-wide id");
        dropped.abort();
        let _ = dropped.await;
        assert!(hub.state().calls.is_empty(), "the aborted call left nothing behind");
    }
}
