//! The MCP server: the `rmcp` handler (tools, resources, prompt) and the thread it runs on.

use std::borrow::Cow;
use std::collections::HashMap;
use std::net::TcpListener;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, ContentBlock, GetPromptRequestParams, GetPromptResponse, GetPromptResult,
    Implementation, ListPromptsResult, ListResourceTemplatesResult, ListResourcesResult, ListToolsResult, MetaObject,
    PaginatedRequestParams, ProgressNotificationParam, ProgressToken, Prompt, PromptArgument, PromptMessage,
    ProtocolVersion, ReadResourceRequestParams, ReadResourceResponse, ReadResourceResult, Resource, ResourceContents,
    ResourceTemplate, ResourceUpdatedNotificationParam, Role, ServerCapabilities, ServerConfig, SubscribeRequestParams,
    UnsubscribeRequestParams,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData as McpError, Peer, RoleServer, ServerHandler, ServiceExt};
use serde_json::{Map, Value, json};
use tokio::task::AbortHandle;

use crate::HttpSettings;
use crate::bridge::{FromMcp, GameSide};
use crate::hub::{EventsPage, Filter, GameGone, Hub};
use crate::prompt;
use crate::tools::{Catalog, call_result};

pub const EVENTS_URI: &str = "clawcraft://events";
pub const STATUS_URI: &str = "clawcraft://status";
pub const VITALS_URI: &str = "clawcraft://vitals";
pub const BOTS_URI: &str = "clawcraft://bots";

/// Events a read returns without `limit`: everything after `since` up to this many, or this many
/// recent ones.
const DEFAULT_SINCE_LIMIT: usize = 1000;
const DEFAULT_RECENT_LIMIT: usize = 100;
/// Events carried in one `notifications/resources/updated` (more follow in the next one).
const EVENTS_PER_NOTIFICATION: usize = 200;
/// How often a call waiting for an action's completion reports progress.
const PROGRESS_EVERY: Duration = Duration::from_secs(1);

const INSTRUCTIONS: &str = "clawcraft: a Minecraft Bedrock bot. Every clawcraft command is a tool; an error result carries \
     a stable `code`. Wait for the `spawn` event before acting in the world. Read what happened from \
     clawcraft://events?since=SEQ (resume with the `lastSeq` of the previous read) or subscribe to \
     clawcraft://events. Async tools (move, walk, mine, …) answer at once and end with a completion event \
     carrying the call's id. With several bots, name one with the `bot` argument (and `?bot=NAME` on \
     resources). The `play` prompt gives the observe → decide → act loop.";

/// What the MCP thread starts with.
pub struct Launch {
    pub registry: Arc<Catalog>,
    pub game: GameSide,
    pub stdio: bool,
    pub http: Option<(HttpSettings, TcpListener)>,
    pub events_file: Option<PathBuf>,
    pub ring: usize,
}

/// Starts the MCP thread (its own current-thread tokio runtime).
pub fn spawn(launch: Launch) -> std::io::Result<()> {
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
    std::thread::Builder::new().name("clawcraft-mcp".into()).spawn(move || runtime.block_on(run(launch)))?;
    Ok(())
}

async fn run(launch: Launch) {
    let Launch { registry, game, stdio, http, events_file, ring } = launch;
    let GameSide { requests, waker, mut output } = game;
    let hub = Arc::new(Hub::new(registry, requests, waker, events_file, ring));
    if let Some((settings, listener)) = http {
        let hub = hub.clone();
        tokio::spawn(async move {
            if let Err(e) = crate::http::serve(hub, settings, listener).await {
                tracing::error!(error = %e, "the MCP HTTP server stopped");
            }
        });
    }
    if stdio {
        let hub = hub.clone();
        tokio::spawn(async move {
            serve_stdio(hub.clone()).await;
            let _ = hub.to_game(FromMcp::StdioClosed);
        });
    }
    // Runs until the game loop is gone (the process is ending).
    while let Some(out) = output.recv().await {
        hub.deliver(out);
    }
}

async fn serve_stdio(hub: Arc<Hub>) {
    let (stdin, stdout) = rmcp::transport::stdio_pipes();
    match ClawcraftMcp::new(hub).serve((stdin, stdout)).await {
        Ok(running) => {
            let reason = running.waiting().await;
            tracing::info!(?reason, "MCP stdio session ended");
        }
        Err(e) => tracing::warn!(error = %e, "MCP stdio session failed to start"),
    }
}

/// One MCP session (the stdio client, or one HTTP session).
pub struct ClawcraftMcp {
    hub: Arc<Hub>,
    /// This session's event subscriptions, by URI.
    subscriptions: Mutex<HashMap<String, AbortHandle>>,
}

impl ClawcraftMcp {
    pub fn new(hub: Arc<Hub>) -> Self {
        Self { hub, subscriptions: Mutex::new(HashMap::new()) }
    }

    fn subscriptions(&self) -> std::sync::MutexGuard<'_, HashMap<String, AbortHandle>> {
        self.subscriptions.lock().unwrap_or_else(|p| p.into_inner())
    }
}

impl Drop for ClawcraftMcp {
    /// The session is over: its subscriptions stop.
    fn drop(&mut self) {
        for (_, task) in self.subscriptions().drain() {
            task.abort();
        }
    }
}

fn gone(_: GameGone) -> McpError {
    McpError::internal_error("the bot is shutting down", Some(json!({"code": "INTERNAL"})))
}

impl ServerHandler for ClawcraftMcp {
    fn get_info(&self) -> ServerConfig {
        let capabilities = ServerCapabilities::builder()
            .enable_tools()
            .enable_resources()
            .enable_resources_subscribe()
            .enable_prompts()
            .build();
        let mut info = ServerConfig::new(capabilities);
        info.protocol_version = ProtocolVersion::V_2025_11_25;
        info.server_info = Implementation::new("clawcraft", env!("CARGO_PKG_VERSION")).with_title("clawcraft");
        info.instructions = Some(INSTRUCTIONS.into());
        info
    }

    /// Up to 2025-11-25: the legacy lifecycle, with `resources/subscribe` (2026-07-28 replaces it
    /// with `subscriptions/listen`, which this server does not implement yet).
    fn supported_protocol_versions(&self) -> Cow<'static, [ProtocolVersion]> {
        Cow::Borrowed(ProtocolVersion::known_up_to(&ProtocolVersion::V_2025_11_25))
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, McpError> {
        Ok(ListToolsResult::with_all_items(self.hub.catalog.tools.clone()))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        let name = request.name.to_string();
        if self.hub.catalog.get(&name).is_none() {
            return Err(McpError::invalid_params(
                format!("Unknown tool: {name}"),
                Some(json!({"code": "UNKNOWN_ACTION"})),
            ));
        }
        // As on a request line: `id` is the request id (echoed in completion events), `token`
        // is never a parameter.
        let mut params = request.arguments.unwrap_or_default();
        let bot = match params.remove("bot") {
            None | Some(Value::Null) => None,
            Some(Value::String(name)) => Some(name),
            Some(other) => {
                return Err(McpError::invalid_params(
                    format!("bot must be a bot's name (a string), got {other}"),
                    Some(json!({"code": "INVALID_PARAMS"})),
                ));
            }
        };
        let id = params.remove("id").unwrap_or(Value::Null);
        let id = if id.is_null() { clawcraft_core::command::next_request_id() } else { id };
        params.remove("token");
        let wait = self.hub.catalog.completion_event(&name).zip(context.meta.get_progress_token());
        let completion = wait.as_ref().map(|_| self.hub.expect_completion(&id));
        let line = tokio::select! {
            line = self.hub.run(&name, bot, id, params) => line.map_err(gone)?,
            () = context.ct.cancelled() => return Err(McpError::internal_error("cancelled", None)),
        };
        let mut result = call_result(&line);
        let (Some((event, token)), Some(completion), Some(false)) = (wait, completion, result.is_error) else {
            return Ok(result.into());
        };
        let done = wait_for_completion(&name, event, completion, token, &context).await?;
        if let Some(done) = done {
            result.content.push(ContentBlock::text(done.to_string()));
            let meta = result.meta.get_or_insert_with(|| MetaObject(Map::new()));
            meta.0.insert("clawcraft/completion".into(), done);
        }
        Ok(result.into())
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, McpError> {
        let json = |r: Resource| r.with_mime_type("application/json");
        let mut resources = vec![
            json(Resource::new(STATUS_URI, "status").with_description("The `status` command's answer: connection, spawn, position, health")),
            json(Resource::new(VITALS_URI, "vitals").with_description("The `vitals` command's answer: health, hunger, saturation, effects")),
            json(Resource::new(EVENTS_URI, "events").with_description(
                "The most recent events ({\"events\":[…],\"lastSeq\":N,\"more\":bool}); subscribe to receive new events as notifications",
            )),
            json(Resource::new(BOTS_URI, "bots").with_description("The `bots` command's answer: every bot of the process and its state")),
        ];
        // With several bots, each has its own status, vitals and events.
        let names = self.bot_names().await?;
        if names.len() > 1 {
            for name in names {
                resources.push(json(
                    Resource::new(format!("{STATUS_URI}?bot={name}"), format!("{name} status"))
                        .with_description(format!("{name}'s `status`")),
                ));
                resources.push(json(
                    Resource::new(format!("{VITALS_URI}?bot={name}"), format!("{name} vitals"))
                        .with_description(format!("{name}'s `vitals`")),
                ));
                resources.push(json(
                    Resource::new(format!("{EVENTS_URI}?bot={name}"), format!("{name} events"))
                        .with_description(format!("{name}'s recent events and the process's own; subscribable")),
                ));
            }
        }
        Ok(ListResourcesResult::with_all_items(resources))
    }

    async fn list_resource_templates(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, McpError> {
        let template = ResourceTemplate::new("clawcraft://events{?since,limit,types,bot}", "events-since")
            .with_description(
                "Every event with a seq greater than `since`, oldest first, at most `limit` (default 1000), only \
                 of `types` (comma-separated, e.g. danger,msg; unknown names come back in `warnings`) when given, \
                 only one bot's (and the process's own) with `bot`; resume with the returned lastSeq (older \
                 events come from the events file)",
            )
            .with_mime_type("application/json");
        let of_bot = |uri: &str, name: &str, what: &str| {
            ResourceTemplate::new(format!("{uri}{{?bot}}"), name)
                .with_description(format!("The `{what}` command's answer for the bot named by `bot`"))
                .with_mime_type("application/json")
        };
        Ok(ListResourceTemplatesResult::with_all_items(vec![
            template,
            of_bot(STATUS_URI, "status-of-bot", "status"),
            of_bot(VITALS_URI, "vitals-of-bot", "vitals"),
        ]))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, McpError> {
        let uri = request.uri;
        let invalid = |e: String| McpError::invalid_params(e, Some(json!({"code": "INVALID_PARAMS"})));
        let of_bot = |base: &str| parse_bot_uri(&uri, base);
        let text = match (of_bot(STATUS_URI), of_bot(VITALS_URI)) {
            (Some(bot), _) => self.command_fields("status", bot.map_err(invalid)?).await?,
            (_, Some(bot)) => self.command_fields("vitals", bot.map_err(invalid)?).await?,
            _ if uri == BOTS_URI => self.command_fields("bots", None).await?,
            _ => match parse_events_uri(&uri) {
                Some(Ok(query)) => self.events(query).await.to_json(),
                Some(Err(e)) => return Err(McpError::invalid_params(e, Some(json!({"code": "INVALID_PARAMS"})))),
                None => {
                    return Err(McpError::resource_not_found(
                        format!(
                            "No resource {uri} (have {STATUS_URI}, {VITALS_URI}, {BOTS_URI}, {EVENTS_URI}?since=SEQ, ?bot=NAME on each)"
                        ),
                        None,
                    ));
                }
            },
        };
        let contents = ResourceContents::text(text, uri).with_mime_type("application/json");
        Ok(ReadResourceResult::new(vec![contents]).into())
    }

    async fn subscribe(
        &self,
        request: SubscribeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), McpError> {
        let (since, types, bot) = match parse_events_uri(&request.uri) {
            Some(Ok(q)) => (q.since.unwrap_or_else(|| self.hub.last_seq()), q.types, q.bot),
            Some(Err(e)) => return Err(McpError::invalid_params(e, None)),
            None => {
                return Err(McpError::invalid_params(
                    format!("Only {EVENTS_URI} can be subscribed to (read {} for the rest)", request.uri),
                    None,
                ));
            }
        };
        // A subscription to a type no event has would stay silent: refused, with the close names.
        if let Some(types) = &types {
            let unknown =
                clawcraft_core::event::unknown_type_warnings(types, self.hub.catalog.event_names.iter().copied());
            if !unknown.is_empty() {
                return Err(McpError::invalid_params(unknown.join("; "), Some(json!({"code": "INVALID_PARAMS"}))));
            }
        }
        let task = tokio::spawn(stream_events(self.hub.clone(), context.peer.clone(), since, types, bot));
        if let Some(old) = self.subscriptions().insert(request.uri, task.abort_handle()) {
            old.abort();
        }
        Ok(())
    }

    async fn unsubscribe(
        &self,
        request: UnsubscribeRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), McpError> {
        if let Some(task) = self.subscriptions().remove(&request.uri) {
            task.abort();
        }
        Ok(())
    }

    async fn list_prompts(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, McpError> {
        let goal = PromptArgument::new("goal").with_description("What to achieve (optional)").with_required(false);
        Ok(ListPromptsResult::with_all_items(vec![Prompt::new(
            prompt::NAME,
            Some(prompt::DESCRIPTION),
            Some(vec![goal]),
        )]))
    }

    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, McpError> {
        if request.name != prompt::NAME {
            return Err(McpError::invalid_params(format!("No prompt {} (have {})", request.name, prompt::NAME), None));
        }
        let goal = request.arguments.as_ref().and_then(|a| a.get("goal")).and_then(Value::as_str);
        let message = PromptMessage::new(Role::User, ContentBlock::text(prompt::text(goal)));
        Ok(GetPromptResult::new(vec![message]).with_description(prompt::DESCRIPTION).into())
    }
}

impl ClawcraftMcp {
    /// A command's answer as a JSON object text (without `type` and `id`; an error keeps its
    /// `error` and `code`).
    async fn command_fields(&self, action: &str, bot: Option<String>) -> Result<String, McpError> {
        let line = self.hub.run(action, bot, Value::Null, Map::new()).await.map_err(gone)?;
        let mut fields: Map<String, Value> = serde_json::from_str(&line).unwrap_or_default();
        fields.remove("type");
        fields.remove("id");
        Ok(Value::Object(fields).to_string())
    }

    /// The names of the process's bots (from `bots`).
    async fn bot_names(&self) -> Result<Vec<String>, McpError> {
        let line = self.hub.run("bots", None, Value::Null, Map::new()).await.map_err(gone)?;
        let answer: Value = serde_json::from_str(&line).unwrap_or_default();
        let bots = answer["bots"].as_array().map(Vec::as_slice).unwrap_or_default();
        Ok(bots.iter().filter_map(|b| b["name"].as_str().map(String::from)).collect())
    }

    async fn events(&self, query: EventsQuery) -> EventsPage {
        let types = query.types.as_deref();
        let filter = Filter { types, bot: query.bot.as_deref() };
        let mut page = match query.since {
            Some(since) => self.hub.events_page(since, query.limit.unwrap_or(DEFAULT_SINCE_LIMIT), filter).await,
            None => self.hub.recent(query.limit.unwrap_or(DEFAULT_RECENT_LIMIT), filter),
        };
        if let Some(t) = types {
            page.warnings =
                clawcraft_core::event::unknown_type_warnings(t, self.hub.catalog.event_names.iter().copied());
        }
        page
    }
}

/// Waits for an action's completion event, reporting progress once a second. `None` when the
/// game loop went away first.
async fn wait_for_completion(
    name: &str,
    event: &str,
    mut completion: tokio::sync::oneshot::Receiver<Value>,
    token: ProgressToken,
    context: &RequestContext<RoleServer>,
) -> Result<Option<Value>, McpError> {
    let mut ticker = tokio::time::interval(PROGRESS_EVERY);
    let mut seconds = 0u32;
    loop {
        tokio::select! {
            done = &mut completion => return Ok(done.ok()),
            () = context.ct.cancelled() => return Err(McpError::internal_error("cancelled", None)),
            _ = ticker.tick() => {
                let mut progress = ProgressNotificationParam::new(token.clone(), f64::from(seconds));
                progress.message = Some(format!("{name} running for {seconds} s; waiting for {event}"));
                // A client that stopped listening still gets its result.
                let _ = context.peer.notify_progress(progress).await;
                seconds += 1;
            }
        }
    }
}

/// Streams new events to one subscriber: each notification carries the events after the last
/// one it delivered (in `_meta`, and as the URI to read them back), so a slow client gets them
/// in larger batches rather than falling behind. With `types`, only events of those types: a
/// stretch of other events sends nothing.
async fn stream_events(
    hub: Arc<Hub>,
    peer: Peer<RoleServer>,
    mut delivered: u64,
    types: Option<Vec<String>>,
    bot: Option<String>,
) {
    let mut seq = hub.watch_seq();
    let mut query = types.as_ref().map(|t| format!("&types={}", t.join(","))).unwrap_or_default();
    if let Some(bot) = &bot {
        query.push_str(&format!("&bot={bot}"));
    }
    let filter = Filter { types: types.as_deref(), bot: bot.as_deref() };
    loop {
        let latest = *seq.borrow_and_update();
        while delivered < latest {
            let page = hub.ring_page(delivered, EVENTS_PER_NOTIFICATION, filter);
            if page.events.is_empty() && page.missed == 0 {
                // Only events of other types: nothing to tell.
                delivered = latest.max(page.last_seq);
                continue;
            }
            let events: Vec<Value> = page.events.iter().filter_map(|e| serde_json::from_str(e).ok()).collect();
            let mut meta = Map::new();
            meta.insert("clawcraft/events".into(), Value::Array(events));
            meta.insert("clawcraft/lastSeq".into(), Value::from(page.last_seq));
            if page.missed > 0 {
                meta.insert("clawcraft/missed".into(), Value::from(page.missed));
            }
            let mut note = ResourceUpdatedNotificationParam::new(format!("{EVENTS_URI}?since={delivered}{query}"));
            note.meta = Some(meta.into());
            if peer.notify_resource_updated(note).await.is_err() {
                return;
            }
            delivered = if page.events.is_empty() { latest } else { page.last_seq };
        }
        if seq.changed().await.is_err() {
            return;
        }
    }
}

/// `clawcraft://events?since=SEQ&limit=N&types=danger,msg&bot=NAME`.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct EventsQuery {
    pub since: Option<u64>,
    pub limit: Option<usize>,
    /// Only events of these types.
    pub types: Option<Vec<String>>,
    /// Only this bot's events (and the process's own).
    pub bot: Option<String>,
}

/// `None` when `uri` is not `base` (optionally with `?bot=NAME`); the bot's name otherwise, or
/// an error text for a bad query.
pub fn parse_bot_uri(uri: &str, base: &str) -> Option<Result<Option<String>, String>> {
    let rest = uri.strip_prefix(base)?;
    let query = match rest.strip_prefix('?') {
        Some(q) => q,
        None if rest.is_empty() => return Some(Ok(None)),
        None => return None,
    };
    let mut bot = None;
    for pair in query.split('&').filter(|p| !p.is_empty()) {
        match pair.split_once('=') {
            Some(("bot", name)) if !name.is_empty() => bot = Some(name.to_owned()),
            Some(("bot", _)) | None if pair.starts_with("bot") => return Some(Err("bot must name a bot".into())),
            _ => return Some(Err(format!("unknown parameter {pair} (have bot)"))),
        }
    }
    Some(Ok(bot))
}

/// `None` when `uri` is not the events resource; an error text for a bad query.
pub fn parse_events_uri(uri: &str) -> Option<Result<EventsQuery, String>> {
    let rest = uri.strip_prefix(EVENTS_URI)?;
    let query = match rest.strip_prefix('?') {
        Some(q) => q,
        None if rest.is_empty() => return Some(Ok(EventsQuery::default())),
        None => return None,
    };
    let mut out = EventsQuery::default();
    for pair in query.split('&').filter(|p| !p.is_empty()) {
        let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
        let number =
            || value.parse::<u64>().map_err(|_| format!("{key} must be a non-negative integer, got {value:?}"));
        match key {
            "since" => {
                out.since = Some(match number() {
                    Ok(n) => n,
                    Err(e) => return Some(Err(e)),
                })
            }
            "limit" => match number() {
                Ok(n) if n > 0 => out.limit = Some(usize::try_from(n).unwrap_or(usize::MAX)),
                Ok(_) => return Some(Err("limit must be at least 1".into())),
                Err(e) => return Some(Err(e)),
            },
            "types" => {
                // Commas may arrive percent-encoded.
                let names: Vec<String> = value
                    .replace("%2C", ",")
                    .replace("%2c", ",")
                    .split(',')
                    .map(str::trim)
                    .filter(|t| !t.is_empty())
                    .map(String::from)
                    .collect();
                if names.is_empty() {
                    return Some(Err("types must list event type names, e.g. types=danger,msg".into()));
                }
                out.types = Some(names);
            }
            "bot" if !value.is_empty() => out.bot = Some(value.to_owned()),
            "bot" => return Some(Err("bot must name a bot".into())),
            other => return Some(Err(format!("unknown parameter {other} (have since, limit, types, bot)"))),
        }
    }
    Some(Ok(out))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_uris_parse() {
        assert_eq!(parse_events_uri("clawcraft://events"), Some(Ok(EventsQuery::default())));
        assert_eq!(
            parse_events_uri("clawcraft://events?since=12&limit=5"),
            Some(Ok(EventsQuery { since: Some(12), limit: Some(5), types: None, bot: None }))
        );
        assert_eq!(
            parse_events_uri("clawcraft://events?since=0"),
            Some(Ok(EventsQuery { since: Some(0), limit: None, types: None, bot: None }))
        );
        assert_eq!(
            parse_events_uri("clawcraft://events?types=danger%2Cmsg,&since=3"),
            Some(Ok(EventsQuery {
                since: Some(3),
                limit: None,
                types: Some(vec!["danger".into(), "msg".into()]),
                bot: None
            }))
        );
        assert!(matches!(parse_events_uri("clawcraft://events?types="), Some(Err(_))));
        assert!(matches!(parse_events_uri("clawcraft://events?since=-1"), Some(Err(_))));
        assert!(matches!(parse_events_uri("clawcraft://events?since=x"), Some(Err(_))));
        assert!(matches!(parse_events_uri("clawcraft://events?limit=0"), Some(Err(_))));
        assert!(matches!(parse_events_uri("clawcraft://events?what=1"), Some(Err(_))));
        assert_eq!(parse_events_uri("clawcraft://eventsx"), None);
        assert_eq!(parse_events_uri("clawcraft://status"), None);
        assert_eq!(
            parse_events_uri("clawcraft://events?bot=Miner02&since=4"),
            Some(Ok(EventsQuery { since: Some(4), bot: Some("Miner02".into()), ..EventsQuery::default() }))
        );
        assert!(matches!(parse_events_uri("clawcraft://events?bot="), Some(Err(_))));
    }

    #[test]
    fn status_and_vitals_uris_name_their_bot() {
        assert_eq!(parse_bot_uri("clawcraft://status", STATUS_URI), Some(Ok(None)));
        assert_eq!(parse_bot_uri("clawcraft://status?bot=Ann", STATUS_URI), Some(Ok(Some("Ann".into()))));
        assert_eq!(parse_bot_uri("clawcraft://vitals?bot=Ann", STATUS_URI), None);
        assert_eq!(parse_bot_uri("clawcraft://statusx", STATUS_URI), None);
        assert!(matches!(parse_bot_uri("clawcraft://status?bot=", STATUS_URI), Some(Err(_))));
        assert!(matches!(parse_bot_uri("clawcraft://status?who=Ann", STATUS_URI), Some(Err(_))));
    }
}
