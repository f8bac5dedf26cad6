//! The command-line entry point shared by the binary and the `local` example.

use std::io::Write;
use std::net::{Ipv4Addr, SocketAddr};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use bevy_app::{App, AppExit};
use clawcraft_io::client::{self, ClientError};
use clawcraft_io::events_file::{Cursor, EventsFilePlugin, EventsFileSettings, Follower, check_readable, read_events};
use clawcraft_io::tcp::{TcpPlugin, TcpSettings};
use clawcraft_mcp::{HttpSettings, McpPlugin, McpSettings};
use serde_json::{Value, json};

use crate::core::EventRegistry;

use clawcraft_auth::{AuthConfig, AuthProgress, Authenticator, Endpoints, store};

use crate::config::{AgentSettings, AuthAction, Config, SkillAction, Tool};
use crate::player::PlayerSettings;
use crate::swarm::{BotSettings, SwarmDefaults, SwarmFile};
use crate::{ClawcraftPlugins, IoPlugin, connect_bot, resolve, run_ticks};

/// Connects one bot as configured and runs until shutdown (or runs the requested tool). Exit
/// codes: 0 after a polite shutdown, 2 for a lost or refused connection or bad configuration.
pub fn run(config: Config) -> ExitCode {
    match config.tool.clone() {
        None | Some(Tool::Mcp) => run_with(config, |_| {}),
        Some(tool) => run_tool(&config, tool),
    }
}

/// Like [`run`], letting the caller add its own plugins (see `examples/spin.rs`).
pub fn run_with(config: Config, customize: impl FnOnce(&mut App)) -> ExitCode {
    // `clawcraft mcp`: stdin and stdout carry MCP messages only, so the JSON-lines channel is off
    // and start-up failures go to stderr alone.
    let mcp_stdio = matches!(config.tool, Some(Tool::Mcp));
    let fail = |code: &str, message: &str| report_failure(code, message, !mcp_stdio);
    // Before anything opens a file or socket: a closed stdin's descriptor would be reused.
    let source = clawcraft_io::stdin::detect();
    let stdin = !config.no_stdin && !mcp_stdio && source.is_stream();
    if !config.no_stdin && !mcp_stdio && !stdin {
        tracing::info!(stdin = ?source, "stdin is not a stream: no stdin channel; TCP serves until SIGTERM");
    }
    let forced = config.forced_version();
    if let Err(e) = clawcraft_protocol::version::choose(None, forced) {
        fail("CONFIG", &e.to_string());
        return ExitCode::from(2);
    }
    // The block table of the version most likely spoken (the forced one, else the default) is
    // parsed now, not in the system that reads StartGame; another version a server's pong picks
    // is parsed at its StartGame.
    if let Ok(likely) = clawcraft_protocol::version::choose(None, forced) {
        let _ = clawcraft_world::block::BlockRegistry::for_version(likely.info.game_version);
    }
    let server = match resolve(&config.host, config.port) {
        Ok(a) => a,
        Err(e) => {
            fail("RESOLVE", &format!("cannot resolve {}:{}: {e}", config.host, config.port));
            return ExitCode::from(2);
        }
    };

    if config.tcp && !config.bind.is_loopback() && config.token().is_none() {
        fail("CONFIG", &format!("CLAWCRAFT_BIND={} is not loopback: set CLAWCRAFT_TOKEN too", config.bind));
        return ExitCode::from(2);
    }
    let tcp = if config.tcp {
        let settings = TcpSettings {
            bind: config.bind,
            token: config.token().map(String::from),
            ..TcpSettings::loopback(config.tcp_port)
        };
        match TcpPlugin::bind(settings) {
            Ok(p) => Some(p),
            // Another bot may own the port (several bots on one machine): stdin and the events
            // file still work, so report it and carry on rather than refuse to play.
            Err(e) => {
                fail("BIND", &format!("cannot listen on {}:{} ({e}); TCP is off", config.bind, config.tcp_port));
                None
            }
        }
    } else {
        None
    };

    let mcp = if mcp_stdio || config.mcp_http.is_some() {
        let settings = McpSettings {
            stdio: mcp_stdio,
            http: config.mcp_http.map(|addr| HttpSettings { addr, token: config.token().map(String::from) }),
            events_file: Some(config.events.clone()).filter(|p| !p.as_os_str().is_empty()),
            ..McpSettings::default()
        };
        match McpPlugin::new(settings) {
            Ok(p) => Some(p),
            Err(e) => {
                let addr = config.mcp_http.map_or_else(String::new, |a| a.to_string());
                fail("CONFIG", &format!("cannot serve MCP over HTTP on {addr}: {e}"));
                return ExitCode::from(2);
            }
        }
    } else {
        None
    };

    let map = match config.map_settings().map(clawcraft_map::MapPlugin::new) {
        None => None,
        Some(Ok(p)) => Some(p),
        Some(Err(e)) => {
            let addr = config.map.map_or_else(String::new, |a| a.to_string());
            fail("CONFIG", &format!("cannot serve the map on {addr}: {e}"));
            return ExitCode::from(2);
        }
    };

    let defaults = swarm_defaults(&config);
    // The bots: a swarm file's, or the one of USERNAME.
    let swarm = match config.swarm.as_deref().map(str::trim).filter(|s| !s.is_empty()) {
        Some(source) => match SwarmFile::load(source).and_then(|f| Ok((f.specs(&defaults)?, f.join_per_tick))) {
            Ok(s) => Some(s),
            Err(e) => {
                fail("CONFIG", &e);
                return ExitCode::from(2);
            }
        },
        None => None,
    };
    let single = match swarm {
        Some(_) => None,
        None => match defaults.spec(&config.username, &BotSettings::default()) {
            Ok(spec) => Some(spec),
            Err(e) => {
                fail("CONFIG", &e);
                return ExitCode::from(2);
            }
        },
    };

    let mut app = App::new();
    let io = IoPlugin { stdin, stdout: !mcp_stdio, exit_on_disconnect: !config.keep_running, ..IoPlugin::default() };
    app.add_plugins(ClawcraftPlugins)
        .add_plugins(io)
        .insert_resource(PlayerSettings { chunk_radius: config.chunk_radius })
        .insert_resource(defaults)
        .insert_resource(crate::OfflineLoginSetting(config.offline_login()));
    apply_agent_settings(&mut app, config.agent_settings());
    if !config.offline {
        tracing::info!(dir = ?config.auth_dir, "online mode: signing in with Xbox Live");
    }
    if !config.events.as_os_str().is_empty() {
        app.add_plugins(EventsFilePlugin {
            settings: EventsFileSettings::new(config.events.clone(), config.max_events_mb),
        });
    }
    if let Some(tcp) = tcp {
        app.add_plugins(tcp);
    }
    if let Some(mcp) = mcp {
        app.add_plugins(mcp);
    }
    if let Some(map) = map {
        app.add_plugins(map);
    }
    customize(&mut app);
    match (single, swarm) {
        (Some(spec), _) => {
            tracing::info!(host = %config.host, %server, username = %config.username, version = forced.unwrap_or("the server's"), "connecting");
            if let Err(e) = connect_bot(&mut app, spec) {
                fail("CONNECT", &format!("cannot open a socket to {server}: {e}"));
                return ExitCode::from(2);
            }
        }
        (None, Some((specs, pace))) => {
            tracing::info!(bots = specs.len(), "starting a swarm");
            crate::swarm::start_swarm(app.world_mut(), specs, pace.unwrap_or(crate::swarm::DEFAULT_JOIN_PER_TICK));
        }
        (None, None) => {}
    }
    run_to_exit(app)
}

/// Runs the app tick by tick until it exits; its exit is the process's.
fn run_to_exit(mut app: App) -> ExitCode {
    app.set_runner(run_ticks);
    let exit = app.run();
    // The app is gone; let a polite DisconnectionNotification leave before the process does.
    clawcraft_network::udp::wait_for_network_threads(Duration::from_millis(500));
    match exit {
        AppExit::Success => ExitCode::SUCCESS,
        AppExit::Error(code) => ExitCode::from(code.get()),
    }
}

/// The app of `clawcraft doctor`: the bot with the configured settings, no channels (stdout
/// carries only the report), and the doctor's plugin deciding when to stop.
pub(crate) fn run_doctor_app(config: &Config, doctor: crate::doctor::DoctorPlugin) -> ExitCode {
    let forced = config.forced_version();
    if let Err(e) = clawcraft_protocol::version::choose(None, forced) {
        fail("CONFIG", &e.to_string());
        return ExitCode::from(2);
    }
    let server = match resolve(&config.host, config.port) {
        Ok(a) => a,
        Err(e) => {
            fail("RESOLVE", &format!("cannot resolve {}:{}: {e}", config.host, config.port));
            return ExitCode::from(2);
        }
    };
    let mut app = App::new();
    app.add_plugins(ClawcraftPlugins)
        .add_plugins(IoPlugin { stdin: false, stdout: false, exit_on_disconnect: false, ..IoPlugin::default() })
        .insert_resource(PlayerSettings { chunk_radius: config.chunk_radius })
        .insert_resource(crate::OfflineLoginSetting(config.offline_login()))
        .add_plugins(doctor);
    apply_agent_settings(&mut app, config.agent_settings());
    let mut spec = crate::swarm::BotSpec::new(&config.username, &config.host, server);
    spec.forced_version = forced.map(str::to_owned);
    if !config.offline {
        spec.auth = Some(Arc::new(Authenticator::new(auth_config(config))));
    }
    if let Err(e) = connect_bot(&mut app, spec) {
        fail("CONNECT", &format!("cannot open a socket to {server}: {e}"));
        return ExitCode::from(2);
    }
    run_to_exit(app)
}

/// Hands the flags/environment to the plugins that use them (they default to the environment
/// alone when run without the CLI).
fn apply_agent_settings(app: &mut App, settings: AgentSettings) {
    let chat = clawcraft_chat::ChatSettings {
        whitelist: settings.chat_whitelist.iter().map(|n| n.to_lowercase()).collect(),
        prefix: Some(settings.chat_prefix.clone()).filter(|p| !p.is_empty()),
        send_cmd: settings.send_cmd.clone().filter(|c| !c.trim().is_empty()),
        ..clawcraft_chat::ChatSettings::default()
    };
    let vitals = clawcraft_vitals::VitalsSettings {
        auto_respawn: settings.respawn,
        danger_health: settings.danger_health,
        danger_hunger: settings.danger_hunger,
        ..clawcraft_vitals::VitalsSettings::default()
    };
    let entity = clawcraft_entity::EntitySettings { danger_mob_dist: settings.danger_mob_dist, ..Default::default() };
    let world = clawcraft_world::WorldSettings {
        chunk_cache_max: settings.chunk_cache_max,
        evict_dist: settings.chunk_evict_dist,
    };
    let skills = clawcraft_skills::SkillSettings { dir: settings.skills_dir.clone(), ..Default::default() };
    // The place book lives next to the skills store.
    let team = clawcraft_team::TeamSettings::next_to_skills(settings.skills_dir.as_deref());
    let budget = clawcraft_core::ResponseBudget { chars: settings.response_budget };
    app.insert_resource(chat)
        .insert_resource(budget)
        .insert_resource(skills)
        .insert_resource(team)
        .insert_resource(vitals)
        .insert_resource(entity)
        .insert_resource(settings.danger)
        .insert_resource(world)
        .insert_resource(settings);
}

/// Logs to stderr only: stdout is reserved for JSON lines.
pub fn init_logging() {
    use tracing_subscriber::EnvFilter;
    let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("info"));
    tracing_subscriber::fmt().with_writer(std::io::stderr).with_env_filter(filter).with_target(false).init();
}

/// Reports a start-up failure as a JSON `error` event on stdout (the agent reads stdout) and on stderr.
fn fail(code: &str, message: &str) {
    report_failure(code, message, true);
}

/// [`fail`], with stdout left alone when it is not the agent's JSON-lines channel.
fn report_failure(code: &str, message: &str, to_stdout: bool) {
    tracing::error!(code, message);
    if !to_stdout {
        return;
    }
    println!("{}", json!({"type": "error", "code": code, "error": message, "timestamp": crate::core::event::now_ms()}));
}

/// Runs a tool subcommand.
pub fn run_tool(config: &Config, tool: Tool) -> ExitCode {
    match tool {
        Tool::Cmd { json, wait } => cmd(config, &json, wait),
        Tool::Events { since, since_ms, last, follow, via_tcp, types, bot, wait_id, wait_type } => {
            let cursor = match (since, since_ms) {
                (Some(s), _) => Cursor::AfterSeq(s),
                (None, Some(ms)) => Cursor::AfterMs(ms),
                (None, None) => Cursor::All,
            };
            let types: Vec<String> = types.iter().map(|t| t.trim().to_owned()).filter(|t| !t.is_empty()).collect();
            let filter = EventsFilter {
                types: Some(types).filter(|t| !t.is_empty()),
                bot: bot.map(|b| b.trim().to_owned()).filter(|b| !b.is_empty()),
            };
            let wait_type: Vec<String> =
                wait_type.iter().map(|t| t.trim().to_owned()).filter(|t| !t.is_empty()).collect();
            if wait_id.is_some() || !wait_type.is_empty() {
                let wait = EventWait { id: wait_id, types: wait_type, filter };
                // An id's completion may already be in the file; a type waits for the next one.
                let cursor = match (since, since_ms, &wait.id) {
                    (None, None, None) => Cursor::AfterSeq(last_seq(&config.events)),
                    _ => cursor,
                };
                events_wait(&config.events, cursor, &wait, Duration::from_millis(config.timeout))
            } else if via_tcp {
                events_tcp(config, since, filter)
            } else {
                if let Some(t) = &filter.types {
                    warn_unknown_types(&event_registry().unknown_type_warnings(t));
                }
                events(&config.events, cursor, last, follow, &filter)
            }
        }
        Tool::Skill { action: SkillAction::Install { dir, source } } => skill_install(dir, source),
        Tool::Auth { action } => auth_tool(config, action),
        Tool::Doctor { duration, spawn_timeout } => {
            crate::doctor::run(config, Duration::from_secs(duration), Duration::from_secs(spawn_timeout))
        }
        Tool::Mcp => run_with(config.clone(), |_| {}),
    }
}

/// The sign-in settings of `config` (USERNAME is the cache key).
pub fn auth_config(config: &Config) -> AuthConfig {
    account_auth_config(config, &config.username)
}

/// The sign-in settings of `account` (the cache key) with `config`'s directory and services.
fn account_auth_config(config: &Config, account: &str) -> AuthConfig {
    // The sign-in happens before the server's pong is known: a forced version, else the default
    // (`auto` is not a version the Minecraft services know).
    let version = config.forced_version().unwrap_or(crate::protocol::codec::Protocol::default_version().game_version);
    let mut auth = AuthConfig::new(account, config.auth_dir.clone(), version);
    if let Some(base) = config.auth_base_url.as_deref().filter(|b| !b.is_empty()) {
        auth.endpoints = Endpoints::with_base(base);
    }
    auth
}

/// `clawcraft auth status|login|logout`: JSON on stdout, errors as JSON on stderr (exit 1).
fn auth_tool(config: &Config, action: AuthAction) -> ExitCode {
    let auth = auth_config(config);
    match action {
        AuthAction::Status => {
            let now = clawcraft_auth::time::now_unix();
            let accounts: Vec<Value> = store::list(&auth.dir)
                .into_iter()
                .map(|(file, c)| {
                    let until = |t: Option<i64>| t.filter(|t| *t > now).map(clawcraft_auth::time::format_iso8601);
                    json!({
                        "username": c.username,
                        "gamertag": c.gamertag,
                        "xuid": c.xuid,
                        "file": file,
                        "signedIn": c.msa.is_some(),
                        "xboxValidUntil": until(c.user.as_ref().map(|u| u.not_after)),
                        "updatedAt": clawcraft_auth::time::format_iso8601(c.updated_at),
                        "current": c.username == config.username,
                    })
                })
                .collect();
            println!("{}", json!({"ok": true, "dir": auth.dir, "accounts": accounts}));
            ExitCode::SUCCESS
        }
        AuthAction::Login => {
            let authenticator = Authenticator::new(auth);
            // A throwaway login key: the sign-in is checked end to end, down to a multiplayer token.
            let key = crate::protocol::login::LoginKeys::generate();
            let mut progress = |p: &AuthProgress| {
                let AuthProgress::DeviceCode { url, code, expires_in } = p;
                eprintln!(
                    "clawcraft: open {url} and enter the code {code} (expires in {} min)",
                    expires_in.div_ceil(60)
                );
                let event = json!({"type": "auth_required", "url": url, "code": code, "expiresIn": expires_in,
                    "timestamp": crate::core::event::now_ms()});
                println!("{event}");
            };
            let cancel = std::sync::atomic::AtomicBool::new(false);
            match authenticator.sign_in(key.public_key_b64(), true, &mut progress, &cancel) {
                Ok(identity) => {
                    println!(
                        "{}",
                        json!({"ok": true, "username": config.username, "gamertag": identity.gamertag,
                            "xuid": identity.xuid, "file": authenticator.config().cache_path()})
                    );
                    ExitCode::SUCCESS
                }
                Err(e) => {
                    eprintln!("{}", json!({"ok": false, "error": e.code(), "message": e.to_string()}));
                    ExitCode::from(1)
                }
            }
        }
        AuthAction::Logout { all } => {
            let files: Vec<PathBuf> = if all {
                store::list(&auth.dir).into_iter().map(|(f, _)| f).collect()
            } else {
                vec![auth.cache_path()]
            };
            let mut removed = Vec::new();
            for file in files {
                match store::remove(&file) {
                    Ok(true) => removed.push(file),
                    Ok(false) => {}
                    Err(e) => {
                        eprintln!("{}", json!({"ok": false, "error": e.code(), "message": e.to_string()}));
                        return ExitCode::from(1);
                    }
                }
            }
            println!("{}", json!({"ok": true, "removed": removed}));
            ExitCode::SUCCESS
        }
    }
}

/// The bot's TCP address for tools (always loopback unless bound elsewhere).
fn tool_addr(config: &Config) -> SocketAddr {
    let ip = if config.bind.is_unspecified() { Ipv4Addr::LOCALHOST.into() } else { config.bind };
    SocketAddr::new(ip, config.tcp_port)
}

/// Exit status of `clawcraft cmd` when the bot answered with an error (`code` in the response).
pub const CMD_EXIT_BOT_ERROR: u8 = 1;
/// Exit status of `clawcraft cmd` when there is no answer from the bot (not running, the
/// client's own timeout, a broken connection, a request or response that is not JSON).
pub const CMD_EXIT_NO_ANSWER: u8 = 2;

/// `clawcraft cmd '<json>'`: prints one response line on stdout, always in the bot's shape
/// (`{"type":"response","id":…,"error":…,"code":…}` for failures, the client's own included);
/// exits 0 only when the response carries no error.
fn cmd(config: &Config, request: &str, wait: bool) -> ExitCode {
    let (request, timeout) = with_wait(request, wait, config.timeout);
    let result = client::with_token(&request, config.token())
        .and_then(|line| client::round_trip(tool_addr(config), &line, Duration::from_millis(timeout)));
    match result {
        Ok(line) => {
            println!("{line}");
            let failed =
                serde_json::from_str::<Value>(&line).is_ok_and(|v| v.get("code").is_some_and(|c| !c.is_null()));
            if failed { ExitCode::from(CMD_EXIT_BOT_ERROR) } else { ExitCode::SUCCESS }
        }
        Err(e) => {
            let id =
                serde_json::from_str::<Value>(&request).ok().and_then(|v| v.get("id").cloned()).unwrap_or(Value::Null);
            println!("{}", json!({"type": "response", "id": id, "error": e.message(), "code": e.code()}));
            ExitCode::from(CMD_EXIT_NO_ANSWER)
        }
    }
}

/// The request with `"wait": true` added (`--wait`) and how long to wait for its answer: a
/// request that waits is answered when its action ends, so the client waits as long as the bot
/// does, and a little more.
fn with_wait(request: &str, wait: bool, timeout_ms: u64) -> (String, u64) {
    const MARGIN_MS: u64 = 5_000;
    let Ok(Value::Object(mut req)) = serde_json::from_str::<Value>(request) else {
        return (request.to_owned(), timeout_ms);
    };
    if wait && !req.contains_key("wait") {
        req.insert("wait".into(), Value::Bool(true));
    }
    let waits = match req.get("wait") {
        Some(Value::Bool(true)) => clawcraft_core::wait::DEFAULT_WAIT_MS,
        Some(Value::Number(n)) => n.as_u64().unwrap_or(0),
        _ => return (request.to_owned(), timeout_ms),
    };
    (Value::Object(req).to_string(), timeout_ms.max(waits.saturating_add(MARGIN_MS)))
}

/// A tool's own failure on stderr: the same `code` and `error` fields as every response.
fn tool_error(e: &ClientError) -> ExitCode {
    eprintln!("{}", json!({"type": "error", "code": e.code(), "error": e.message()}));
    ExitCode::from(CMD_EXIT_NO_ANSWER)
}

/// What `clawcraft events --wait-id/--wait-type` waits for.
struct EventWait {
    /// The request id whose completion event ends the wait.
    id: Option<String>,
    /// Event types that end it (with `id`: the completion must be of these).
    types: Vec<String>,
    filter: EventsFilter,
}

impl EventWait {
    fn matches(&self, event: &Value, completions: &[&str]) -> bool {
        let kind = event["type"].as_str().unwrap_or("");
        let type_ok = self.types.is_empty() || self.types.iter().any(|t| t == kind);
        let id_ok = match &self.id {
            None => true,
            Some(want) => {
                let id = match &event["id"] {
                    Value::String(s) => s.clone(),
                    Value::Null => return false,
                    other => other.to_string(),
                };
                id == *want && (!self.types.is_empty() || completions.contains(&kind))
            }
        };
        type_ok && id_ok && self.filter.admits(event)
    }
}

/// The last `seq` in the events file (0 when there is none).
fn last_seq(path: &Path) -> u64 {
    read_events(path, Cursor::All).last().and_then(|e| e["seq"].as_u64()).unwrap_or(0)
}

/// `clawcraft events --wait-id/--wait-type`: follows the file until the event comes, prints it
/// (exit 0), or gives up after `timeout` (`CLIENT_TIMEOUT` on stderr, exit 2).
fn events_wait(path: &Path, cursor: Cursor, wait: &EventWait, timeout: Duration) -> ExitCode {
    let registry = command_registry();
    let completions: Vec<&str> = registry.entries().filter_map(|e| e.async_info.map(|a| a.completion_event)).collect();
    let deadline = std::time::Instant::now() + timeout;
    let mut follower = Follower::new(path, cursor);
    loop {
        if let Some(event) = follower.poll().into_iter().find(|e| wait.matches(e, &completions)) {
            println!("{event}");
            return ExitCode::SUCCESS;
        }
        if std::time::Instant::now() >= deadline {
            let what = match (&wait.id, wait.types.is_empty()) {
                (Some(id), _) => format!("the completion of request {id}"),
                (None, _) => format!("an event of type {}", wait.types.join(", ")),
            };
            let message = format!("no {what} in {} within {} ms", path.display(), timeout.as_millis());
            eprintln!("{}", json!({"type": "error", "code": "CLIENT_TIMEOUT", "error": message}));
            return ExitCode::from(CMD_EXIT_NO_ANSWER);
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Every command the bot registers (nothing runs).
fn command_registry() -> clawcraft_core::CommandRegistry {
    tool_app().world().resource::<clawcraft_core::CommandRegistry>().clone()
}

/// The app of every plugin, built but never run: the registries of commands and events.
fn tool_app() -> App {
    let mut app = App::new();
    app.add_plugins(ClawcraftPlugins).add_plugins(IoPlugin::detached());
    app
}

/// Every event type the bot can emit, from the plugins' registrations (nothing runs).
fn event_registry() -> EventRegistry {
    tool_app().world().resource::<EventRegistry>().clone()
}

/// Each warning as a JSON line on stderr (stdout carries only the events).
fn warn_unknown_types(warnings: &[impl AsRef<str>]) {
    for w in warnings {
        eprintln!("{}", json!({"type": "warning", "warning": w.as_ref()}));
    }
}

/// Which events `clawcraft events` prints: of these types (`None`: all), of this bot and the
/// process (`None`: every bot's).
struct EventsFilter {
    types: Option<Vec<String>>,
    bot: Option<String>,
}

impl EventsFilter {
    /// Keeps the events it admits. An event without `bot` is the process's own (or the only
    /// bot's), and passes a bot filter.
    fn keep(&self, events: &mut Vec<Value>) {
        if self.types.is_some() || self.bot.is_some() {
            events.retain(|e| self.admits(e));
        }
    }

    /// Whether it lets `event` through.
    fn admits(&self, event: &Value) -> bool {
        let type_ok = self
            .types
            .as_ref()
            .is_none_or(|types| event["type"].as_str().is_some_and(|t| types.iter().any(|w| w == t)));
        let bot_ok = self
            .bot
            .as_ref()
            .is_none_or(|bot| event.get("bot").and_then(Value::as_str).is_none_or(|b| b.eq_ignore_ascii_case(bot)));
        type_ok && bot_ok
    }
}

/// `clawcraft events`: a JSON array of the matching events, or JSON lines while following.
fn events(path: &Path, cursor: Cursor, last: Option<usize>, follow: bool, filter: &EventsFilter) -> ExitCode {
    if !follow {
        // `[]` must mean "nothing happened", never "no file" (a follower waits for the file).
        if let Err(e) = check_readable(path) {
            eprintln!("{}", json!({"type": "error", "code": "NO_EVENTS_FILE", "error": e}));
            return ExitCode::from(2);
        }
        let mut all = read_events(path, cursor);
        filter.keep(&mut all);
        if let Some(n) = last {
            all.drain(..all.len().saturating_sub(n));
        }
        println!("{}", Value::Array(all));
        return ExitCode::SUCCESS;
    }
    let mut follower = Follower::new(path, cursor);
    let mut first = follower.poll();
    filter.keep(&mut first);
    if let Some(n) = last {
        first.drain(..first.len().saturating_sub(n));
    }
    let mut batch = first;
    loop {
        if !print_lines(&batch) {
            return ExitCode::SUCCESS;
        }
        // Polling often keeps the follower within the two rotations it can bridge between polls.
        if batch.is_empty() {
            std::thread::sleep(Duration::from_millis(20));
        }
        batch = follower.poll();
        filter.keep(&mut batch);
    }
}

/// Prints events as lines; false once stdout is gone (the reader quit).
fn print_lines(events: &[Value]) -> bool {
    if events.is_empty() {
        return true;
    }
    let mut out = std::io::stdout().lock();
    for e in events {
        if writeln!(out, "{e}").is_err() {
            return false;
        }
    }
    out.flush().is_ok()
}

/// `clawcraft events --tcp`: the bot's `watch` stream as JSON lines (the bot filters `types`
/// and warns about unknown ones; the warnings go to stderr).
fn events_tcp(config: &Config, since: Option<u64>, filter: EventsFilter) -> ExitCode {
    let timeout = Duration::from_millis(config.timeout);
    let mut req = json!({"action": "watch"});
    if let Some(s) = since {
        req["since"] = json!(s);
    }
    if let Some(t) = filter.types {
        req["types"] = json!(t);
    }
    if let Some(b) = filter.bot {
        req["bot"] = json!(b);
    }
    let session = client::with_token(&req.to_string(), config.token())
        .and_then(|line| client::Session::connect(tool_addr(config), timeout).map(|s| (s, line)));
    let (mut session, line) = match session {
        Ok(s) => s,
        Err(e) => return tool_error(&e),
    };
    match session.request(&line) {
        Ok(resp) if resp.get("watching") == Some(&Value::Bool(true)) => {
            let warnings = resp.get("warnings").and_then(Value::as_array).cloned().unwrap_or_default();
            warn_unknown_types(&warnings.iter().filter_map(Value::as_str).collect::<Vec<_>>());
        }
        Ok(resp) => {
            eprintln!("{resp}");
            return ExitCode::from(1);
        }
        Err(e) => return tool_error(&e),
    }
    session.set_timeout(None);
    loop {
        match session.recv() {
            Ok(Some(v)) => {
                if !print_lines(&[v]) {
                    return ExitCode::SUCCESS;
                }
            }
            Ok(None) => return ExitCode::SUCCESS,
            Err(e) => return tool_error(&e),
        }
    }
}

/// `clawcraft skill install`: symlinks the skill directory into the agent's skill folder.
fn skill_install(dir: Option<PathBuf>, source: Option<PathBuf>) -> ExitCode {
    let source = source.unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("skill"));
    let Some(dir) = dir.or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".kiro/skills/clawcraft")))
    else {
        return skill_error("HOME is not set; pass --dir");
    };
    if !source.join("SKILL.md").is_file() {
        return skill_error(&format!("{} has no SKILL.md; pass --source", source.display()));
    }
    match link_skill(&source, &dir) {
        Ok(()) => {
            println!("{}", json!({"ok": true, "linked": dir, "target": source}));
            ExitCode::SUCCESS
        }
        Err(e) => skill_error(&format!("cannot link {} -> {}: {e}", dir.display(), source.display())),
    }
}

/// Replaces an existing link (re-install), refuses to replace a real directory or file.
fn link_skill(source: &Path, dir: &Path) -> std::io::Result<()> {
    let source = source.canonicalize()?;
    if let Some(parent) = dir.parent() {
        std::fs::create_dir_all(parent)?;
    }
    if let Ok(meta) = std::fs::symlink_metadata(dir) {
        if !meta.file_type().is_symlink() {
            return Err(std::io::Error::new(std::io::ErrorKind::AlreadyExists, "exists and is not a symlink"));
        }
        std::fs::remove_file(dir)?;
    }
    #[cfg(unix)]
    {
        std::os::unix::fs::symlink(&source, dir)
    }
    #[cfg(not(unix))]
    {
        Err(std::io::Error::new(std::io::ErrorKind::Unsupported, "symlinks are only supported on Unix"))
    }
}

fn skill_error(message: &str) -> ExitCode {
    eprintln!("{}", json!({"ok": false, "error": "SKILL_INSTALL", "message": message}));
    ExitCode::from(1)
}

/// What every bot gets from the flags unless its swarm entry (or `bot_add`) says otherwise.
fn swarm_defaults(config: &Config) -> SwarmDefaults {
    let online_config = config.clone();
    SwarmDefaults {
        host: config.host.clone(),
        port: config.port,
        forced_version: config.forced_version().map(str::to_owned),
        reconnect: config.reconnect,
        online: !config.offline,
        auth: Some(Arc::new(move |account: &str| Authenticator::new(account_auth_config(&online_config, account)))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cmd_wait_adds_wait_and_waits_as_long_as_the_bot() {
        let (line, timeout) = with_wait(r#"{"action":"walk","x":1}"#, true, 10_000);
        let v: Value = serde_json::from_str(&line).expect("json");
        assert_eq!(v["wait"], true);
        assert_eq!(timeout, clawcraft_core::wait::DEFAULT_WAIT_MS + 5_000);
        let (line, timeout) = with_wait(r#"{"action":"walk","x":1,"wait":2000}"#, true, 10_000);
        assert!(line.contains("\"wait\":2000"), "the request's own wait stays: {line}");
        assert_eq!(timeout, 10_000, "the client's own timeout is longer already");
        let (line, timeout) = with_wait(r#"{"action":"pos"}"#, false, 10_000);
        assert_eq!((line.as_str(), timeout), (r#"{"action":"pos"}"#, 10_000), "no wait: unchanged");
        let (line, _) = with_wait("not json", true, 10_000);
        assert_eq!(line, "not json", "the bot answers INVALID_JSON as before");
    }

    #[test]
    fn the_events_filter_keeps_one_bots_events_and_the_process_own() {
        let all = || {
            vec![
                json!({"type": "startup", "seq": 1}),
                json!({"type": "spawn", "bot": "Ann", "seq": 2}),
                json!({"type": "spawn", "bot": "Ben", "seq": 3}),
                json!({"type": "msg", "bot": "ann", "seq": 4}),
            ]
        };
        let seqs = |events: &[Value]| events.iter().filter_map(|e| e["seq"].as_u64()).collect::<Vec<_>>();
        let mut events = all();
        EventsFilter { types: None, bot: Some("Ann".into()) }.keep(&mut events);
        assert_eq!(seqs(&events), [1, 2, 4], "Ann's (case-insensitive) and the process's own");
        let mut events = all();
        EventsFilter { types: Some(vec!["spawn".into()]), bot: Some("Ben".into()) }.keep(&mut events);
        assert_eq!(seqs(&events), [3]);
        let mut events = all();
        EventsFilter { types: None, bot: None }.keep(&mut events);
        assert_eq!(seqs(&events), [1, 2, 3, 4]);
    }
}
