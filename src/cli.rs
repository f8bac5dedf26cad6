//! The command-line entry point shared by the binary and the `local` example.

use std::io::Write;
use std::net::{Ipv4Addr, SocketAddr};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use bevy_app::{App, AppExit};
use clawcraft_io::client::{self, ClientError};
use clawcraft_io::events_file::{Cursor, EventsFilePlugin, EventsFileSettings, Follower, read_events};
use clawcraft_io::tcp::{TcpPlugin, TcpSettings};
use serde_json::{Value, json};

use crate::config::{AgentSettings, Config, SkillAction, Tool};
use crate::player::PlayerSettings;
use crate::protocol::codec::Protocol;
use crate::{ClawcraftPlugins, IoPlugin, connect_bot, resolve, run_ticks};

/// Connects one bot as configured and runs until shutdown (or runs the requested tool). Exit
/// codes: 0 after a polite shutdown, 2 for a lost or refused connection or bad configuration.
pub fn run(config: Config) -> ExitCode {
    if let Some(tool) = config.tool.clone() {
        return run_tool(&config, tool);
    }
    run_with(config, |_| {})
}

/// Like [`run`], letting the caller add its own plugins (see `examples/spin.rs`).
pub fn run_with(config: Config, customize: impl FnOnce(&mut App)) -> ExitCode {
    if !config.offline {
        fail("CONFIG", "online (Xbox Live) authentication is not supported yet; run with OFFLINE=true");
        return ExitCode::from(2);
    }
    let protocol = match Protocol::load(&config.game_version) {
        Ok(p) => Arc::new(p),
        Err(e) => {
            let known: Vec<&str> = Protocol::versions().iter().map(|v| v.game_version).collect();
            fail(
                "CONFIG",
                &format!("unsupported game version {}: {e} (known: {})", config.game_version, known.join(", ")),
            );
            return ExitCode::from(2);
        }
    };
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

    let mut app = App::new();
    app.add_plugins(ClawcraftPlugins)
        .add_plugins(IoPlugin { stdin: !config.no_stdin, exit_on_disconnect: !config.reconnect, ..IoPlugin::default() })
        .insert_resource(PlayerSettings { chunk_radius: config.chunk_radius });
    apply_agent_settings(&mut app, config.agent_settings());
    if !config.events.as_os_str().is_empty() {
        app.add_plugins(EventsFilePlugin {
            settings: EventsFileSettings::new(config.events.clone(), config.max_events_mb),
        });
    }
    if let Some(tcp) = tcp {
        app.add_plugins(tcp);
    }
    customize(&mut app);
    tracing::info!(host = %config.host, %server, username = %config.username, version = %config.game_version, "connecting");
    if config.reconnect {
        let policy = crate::reconnect::Reconnect::new(server, &config.host, &config.username, protocol.clone());
        app.add_plugins(crate::reconnect::ReconnectPlugin(policy));
    }
    if let Err(e) = connect_bot(&mut app, &config.username, &config.host, server, protocol) {
        fail("CONNECT", &format!("cannot open a socket to {server}: {e}"));
        return ExitCode::from(2);
    }
    app.set_runner(run_ticks);
    match app.run() {
        AppExit::Success => ExitCode::SUCCESS,
        AppExit::Error(code) => ExitCode::from(code.get()),
    }
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
    app.insert_resource(chat)
        .insert_resource(vitals)
        .insert_resource(entity)
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
    tracing::error!(code, message);
    println!("{}", json!({"type": "error", "code": code, "error": message, "timestamp": crate::core::event::now_ms()}));
}

/// Runs a tool subcommand.
pub fn run_tool(config: &Config, tool: Tool) -> ExitCode {
    match tool {
        Tool::Cmd { json } => cmd(config, &json),
        Tool::Events { since, since_ms, last, follow, via_tcp } => {
            let cursor = match (since, since_ms) {
                (Some(s), _) => Cursor::AfterSeq(s),
                (None, Some(ms)) => Cursor::AfterMs(ms),
                (None, None) => Cursor::All,
            };
            if via_tcp { events_tcp(config, since) } else { events(&config.events, cursor, last, follow) }
        }
        Tool::Skill { action: SkillAction::Install { dir, source } } => skill_install(dir, source),
    }
}

/// The bot's TCP address for tools (always loopback unless bound elsewhere).
fn tool_addr(config: &Config) -> SocketAddr {
    let ip = if config.bind.is_unspecified() { Ipv4Addr::LOCALHOST.into() } else { config.bind };
    SocketAddr::new(ip, config.tcp_port)
}

/// `clawcraft cmd '<json>'`: prints the response line; errors as `cmd.js` reports them.
fn cmd(config: &Config, request: &str) -> ExitCode {
    let result = client::with_token(request, config.token())
        .and_then(|line| client::round_trip(tool_addr(config), &line, Duration::from_millis(config.timeout)));
    match result {
        Ok(line) => {
            println!("{line}");
            ExitCode::SUCCESS
        }
        Err(e) => tool_error(&e),
    }
}

fn tool_error(e: &ClientError) -> ExitCode {
    eprintln!("{}", json!({"ok": false, "error": e.code(), "message": e.message()}));
    ExitCode::from(1)
}

/// `clawcraft events`: a JSON array of the matching events, or JSON lines while following.
fn events(path: &Path, cursor: Cursor, last: Option<usize>, follow: bool) -> ExitCode {
    if !follow {
        let mut all = read_events(path, cursor);
        if let Some(n) = last {
            all.drain(..all.len().saturating_sub(n));
        }
        println!("{}", Value::Array(all));
        return ExitCode::SUCCESS;
    }
    let mut follower = Follower::new(path, cursor);
    let mut first = follower.poll();
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

/// `clawcraft events --tcp`: the bot's `watch` stream as JSON lines.
fn events_tcp(config: &Config, since: Option<u64>) -> ExitCode {
    let timeout = Duration::from_millis(config.timeout);
    let mut req = json!({"action": "watch"});
    if let Some(s) = since {
        req["since"] = json!(s);
    }
    let session = client::with_token(&req.to_string(), config.token())
        .and_then(|line| client::Session::open(tool_addr(config), timeout).map(|s| (s, line)));
    let (mut session, line) = match session {
        Ok(s) => s,
        Err(e) => return tool_error(&e),
    };
    match session.request(&line) {
        Ok(resp) if resp.get("watching") == Some(&Value::Bool(true)) => {}
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
