//! Command-line flags and their environment variables (ClawCraft's names and defaults, except
//! `HOST`, which defaults to loopback), and the tool subcommands.

use std::net::IpAddr;
use std::path::PathBuf;

use bevy_ecs::prelude::Resource;
use clap::{Parser, Subcommand};

/// Environment variables, listed after the flags in `--help`.
const ENV_HELP: &str = "\
Every flag can be set by its environment variable (shown as [env: …]); the flag wins.
ClawCraft's variables keep their names and defaults, except HOST (127.0.0.1 here).

Channels:
  stdin/stdout   JSON lines: requests in, responses and every event out (logs go to stderr).
                 stdin EOF ends the bot; stdin on /dev/null (nohup, services) means no stdin.
  TCP            127.0.0.1:CLAWCRAFT_PORT, same requests and responses; one line, one answer,
                 then the server closes (as ClawCraft), unless the first line is
                 {\"action\":\"session\"} (persistent) or {\"action\":\"watch\",\"since\":SEQ}
                 (streams events). Binding CLAWCRAFT_BIND to a non-loopback address requires
                 CLAWCRAFT_TOKEN.
  events file    CLAWCRAFT_EVENTS gets every event, rotated to <file>.1 above
                 CLAWCRAFT_MAX_EVENTS_MB; read it with `clawcraft events`.
  MCP            `clawcraft mcp`: an MCP server on stdin/stdout (no JSON lines there);
                 --mcp-http ADDR: Streamable HTTP on http://ADDR/mcp (loopback, or any
                 address with CLAWCRAFT_TOKEN as a bearer token). Every command is a tool.

Tools:
  clawcraft doctor                        read-only check of the server: one JSON report
  clawcraft cmd '{\"action\":\"pos\"}'      one TCP round trip, prints the response
  clawcraft events --since SEQ --follow   events from the file (rotation-safe)
  clawcraft skill install                 links skill/ into ~/.kiro/skills/clawcraft
  clawcraft auth status|login|logout      online-mode token cache (CLAWCRAFT_AUTH_DIR, per USERNAME)
  clawcraft mcp                           the bot as an MCP server on stdio (for MCP clients)";

/// `clawcraft --version`: the crate version and every Bedrock version spoken.
pub fn version_text() -> &'static str {
    static TEXT: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    TEXT.get_or_init(|| {
        let default = clawcraft_protocol::codec::Protocol::default_version();
        let list: Vec<String> = clawcraft_protocol::codec::Protocol::versions()
            .iter()
            .map(|v| {
                let mark = if *v == default { ", default" } else { "" };
                format!("{} (protocol {}{mark})", v.game_version, v.protocol)
            })
            .collect();
        format!("{}\nBedrock: {}", env!("CARGO_PKG_VERSION"), list.join(", "))
    })
}

/// clawcraft — an AI agent harness for Minecraft Bedrock.
///
/// Reads JSON commands on stdin (one per line) and on TCP, and writes JSON responses and events
/// on stdout (and events to the events file). Logs go to stderr (set RUST_LOG, e.g. RUST_LOG=debug).
#[derive(Parser, Debug, Clone)]
#[command(name = "clawcraft", version = version_text(), about, long_about = None, after_help = ENV_HELP)]
pub struct Config {
    /// Server address.
    #[arg(long, env = "HOST", default_value = "127.0.0.1")]
    pub host: String,
    /// Server UDP port.
    #[arg(long, env = "PORT", default_value_t = 19132)]
    pub port: u16,
    /// Player name the server sees (BOT_USERNAME overrides USERNAME, as in ClawCraft).
    #[arg(long, env = "USERNAME", default_value = "ClawBot")]
    pub username: String,
    /// Offline mode (no Xbox Live sign-in). false: sign in with the bot's Microsoft account
    /// (a device code on first use, `auth_required`), cached per USERNAME in CLAWCRAFT_AUTH_DIR;
    /// the in-game name is then the account's gamertag.
    #[arg(long, env = "OFFLINE", default_value_t = true, action = clap::ArgAction::Set)]
    pub offline: bool,
    /// Offline login shape: `auto` (what vanilla sends for the version — the self-signed
    /// multiplayer token from 1.26.10 — and, when the server refuses the login for its identity,
    /// once more with the other shape, remembered for that server), `token` or `chain` (the
    /// self-signed certificate chain with `extraData` that servers before 1.26.10 read). Never
    /// sent in online mode.
    #[arg(long = "offline-login", env = "CLAWCRAFT_OFFLINE_LOGIN", default_value = "auto", value_parser = ["auto", "token", "chain"])]
    pub offline_login: String,
    /// Bedrock version to speak: `auto` (the server's, from its pong) or one of the supported
    /// versions (`clawcraft --version` lists them).
    #[arg(long = "game-version", env = "CLAWCRAFT_GAME_VERSION", default_value = "auto")]
    pub game_version: String,
    /// Chunk radius to request from the server.
    #[arg(long, env = "CLAWCRAFT_CHUNK_RADIUS", default_value_t = 8)]
    pub chunk_radius: i32,
    /// Do not read commands from stdin even when it is a pipe or terminal (stdin on /dev/null or
    /// closed is never read: the bot then runs on TCP until SIGTERM).
    #[arg(long, env = "CLAWCRAFT_NO_STDIN", default_value_t = false, action = clap::ArgAction::Set, num_args = 0..=1, default_missing_value = "true")]
    pub no_stdin: bool,

    /// Directory for cached Xbox Live tokens, one owner-only file per USERNAME (online mode;
    /// default: the platform cache directory, e.g. ~/.cache/clawcraft/auth).
    #[arg(long, env = "CLAWCRAFT_AUTH_DIR")]
    pub auth_dir: Option<PathBuf>,
    /// Send every sign-in request (Microsoft, Xbox, PlayFab, Minecraft services) to this base
    /// URL instead of the public services: for tests against a local fake.
    #[arg(long = "auth-base-url", env = "CLAWCRAFT_AUTH_BASE_URL")]
    pub auth_base_url: Option<String>,
    /// External admin tool run (without a shell, 10 s limit) by `{"action":"cmd","external":true}`.
    #[arg(long, env = "SEND_CMD")]
    pub send_cmd: Option<String>,
    /// Comma-separated player names whose chat reaches the agent (empty: everyone).
    #[arg(long, env = "CHAT_WHITELIST", default_value = "")]
    pub chat_whitelist: String,
    /// Only chat starting with this prefix reaches the agent (empty: all).
    #[arg(long, env = "CHAT_PREFIX", default_value = "")]
    pub chat_prefix: String,

    /// Serve the TCP command channel.
    #[arg(long, env = "CLAWCRAFT_TCP", default_value_t = true, action = clap::ArgAction::Set)]
    pub tcp: bool,
    /// TCP command port (`clawcraft cmd` and `events --tcp` connect to it too).
    #[arg(long = "tcp-port", env = "CLAWCRAFT_PORT", default_value_t = 4099)]
    pub tcp_port: u16,
    /// Address the TCP server binds; anything but loopback requires CLAWCRAFT_TOKEN.
    #[arg(long, env = "CLAWCRAFT_BIND", default_value = "127.0.0.1")]
    pub bind: IpAddr,
    /// When set, every TCP request must carry `"token": "<this>"` (`clawcraft cmd` adds it).
    #[arg(long, env = "CLAWCRAFT_TOKEN", hide_env_values = true)]
    pub token: Option<String>,
    /// Serve MCP's Streamable HTTP transport on http://ADDR/mcp (e.g. 127.0.0.1:4100). Anything
    /// but loopback requires CLAWCRAFT_TOKEN, sent as `Authorization: Bearer <token>`.
    #[arg(long = "mcp-http", env = "CLAWCRAFT_MCP_HTTP", global = true)]
    pub mcp_http: Option<std::net::SocketAddr>,
    /// Serve the live map page on http://ADDR/ (e.g. 127.0.0.1:4200). Anything but loopback
    /// requires CLAWCRAFT_TOKEN (the page's URL then carries `?token=<token>`).
    #[arg(long = "map", env = "CLAWCRAFT_MAP", global = true)]
    pub map: Option<std::net::SocketAddr>,
    /// `clawcraft cmd`: milliseconds to wait for the response; `clawcraft events --wait-*`: for
    /// the event.
    #[arg(long, env = "CLAWCRAFT_TIMEOUT", default_value_t = 10_000, global = true)]
    pub timeout: u64,

    /// Events file (every event as a JSON line); empty disables it.
    #[arg(long, env = "CLAWCRAFT_EVENTS", default_value = "./events.jsonl")]
    pub events: PathBuf,
    /// Rotate the events file to `<file>.1` above this many MiB.
    #[arg(long = "max-events-mb", env = "CLAWCRAFT_MAX_EVENTS_MB", default_value_t = 5.0)]
    pub max_events_mb: f64,

    /// Respawn automatically after death.
    #[arg(long, env = "CLAWCRAFT_RESPAWN", default_value_t = false, action = clap::ArgAction::Set, num_args = 0..=1, default_missing_value = "true")]
    pub respawn: bool,
    /// Reconnect after a lost connection (backoff 1, 2, 4, 8, 16, 30 s); without it a lost connection exits with code 2.
    #[arg(long, env = "CLAWCRAFT_RECONNECT", default_value_t = false, action = clap::ArgAction::Set, num_args = 0..=1, default_missing_value = "true")]
    pub reconnect: bool,
    /// Start the bots of a swarm file instead of one bot: a path to a JSON file, or the JSON
    /// itself (`{"count":20,"prefix":"Miner"}`; README, "Many bots" in its channels). USERNAME is then unused;
    /// HOST, PORT and the flags are every bot's defaults.
    #[arg(long, env = "CLAWCRAFT_SWARM")]
    pub swarm: Option<String>,
    /// Keep running when no bot is left (the last one removed, or its connection lost without a
    /// reconnect); `bot_add` can start new ones. Without it the process then exits.
    #[arg(long = "keep-running", env = "CLAWCRAFT_KEEP_RUNNING", default_value_t = false, action = clap::ArgAction::Set, num_args = 0..=1, default_missing_value = "true")]
    pub keep_running: bool,
    /// Most chunks kept in memory.
    #[arg(long = "chunk-cache-max", env = "CLAWCRAFT_CHUNK_CACHE_MAX", default_value_t = 512)]
    pub chunk_cache_max: usize,
    /// Chunks farther than this many blocks are evicted.
    #[arg(long = "chunk-evict-dist", env = "CLAWCRAFT_CHUNK_EVICT_DIST", default_value_t = 256.0)]
    pub chunk_evict_dist: f64,
    /// `danger` when a hostile mob is within this many blocks.
    #[arg(long = "danger-mob-dist", env = "CLAWCRAFT_DANGER_MOB_DIST", default_value_t = 8.0)]
    pub danger_mob_dist: f64,
    /// `danger` when health is at or below this.
    #[arg(long = "danger-health", env = "CLAWCRAFT_DANGER_HEALTH", default_value_t = 6.0)]
    pub danger_health: f64,
    /// `danger` when hunger is at or below this.
    #[arg(long = "danger-hunger", env = "CLAWCRAFT_DANGER_HUNGER", default_value_t = 4.0)]
    pub danger_hunger: f64,
    /// When `danger` fires: `change` (a threat appears, comes into a nearer zone, is gone, and
    /// repeats every CLAWCRAFT_DANGER_REPEAT_MS while unchanged) or `interval` (ClawCraft's:
    /// every 5 s per threat while present).
    #[arg(long = "danger-mode", env = "CLAWCRAFT_DANGER_MODE", default_value = "change", value_parser = ["change", "interval"])]
    pub danger_mode: String,
    /// `change` mode: milliseconds before an unchanged threat is reported again (0: never).
    #[arg(long = "danger-repeat-ms", env = "CLAWCRAFT_DANGER_REPEAT_MS", default_value_t = clawcraft_core::danger::DEFAULT_REPEAT_MS)]
    pub danger_repeat_ms: u64,

    /// A response longer than this many characters carries a warning naming a cheaper request
    /// (0: never).
    #[arg(long = "response-budget", env = "CLAWCRAFT_RESPONSE_BUDGET", default_value_t = clawcraft_core::DEFAULT_RESPONSE_BUDGET)]
    pub response_budget: usize,

    /// Skills directory: skill versions, their lifecycle and every run's evidence (empty: in memory only).
    #[arg(long = "skills-dir", env = "CLAWCRAFT_SKILLS_DIR", default_value = "./skills")]
    pub skills_dir: String,

    /// A tool instead of running the bot.
    #[command(subcommand)]
    pub tool: Option<Tool>,
}

/// Tools that talk to a running bot or its files.
#[derive(Subcommand, Debug, Clone)]
pub enum Tool {
    /// Send one JSON command over TCP and print the response line. Exit 0: answered without
    /// error; 1: the bot answered with an error (`code`); 2: no answer (`code` BOT_NOT_RUNNING,
    /// CLIENT_TIMEOUT, INVALID_JSON, INVALID_RESPONSE, CONNECTION_ERROR, printed on stdout in the
    /// same response shape).
    Cmd {
        /// The request, e.g. '{"action":"pos"}'.
        json: String,
        /// Answer when the action ends, with its completion event (adds `"wait": true`; a
        /// request's own `wait` in ms is kept). The client then waits as long as the bot does.
        #[arg(long)]
        wait: bool,
    },
    /// Print events from the events file (`.1` then current) as a JSON array, or follow them as
    /// JSON lines.
    Events {
        /// Only events with a greater `seq` (lossless cursor).
        #[arg(long, conflicts_with = "since_ms")]
        since: Option<u64>,
        /// Only events with a greater ms `timestamp` (ClawCraft's cursor).
        #[arg(long = "since-ms")]
        since_ms: Option<u64>,
        /// Only the last N (of those after the cursor).
        #[arg(long)]
        last: Option<usize>,
        /// Keep printing new events as JSON lines until interrupted.
        #[arg(long)]
        follow: bool,
        /// Read from the running bot's TCP `watch` instead of the file (implies --follow).
        #[arg(long = "tcp")]
        via_tcp: bool,
        /// Only events of these types, comma-separated (e.g. `danger,msg`); `--last` counts
        /// only those. Unknown names are warned about on stderr with the closest ones.
        #[arg(long = "type", value_delimiter = ',')]
        types: Vec<String>,
        /// Only this bot's events (and the process's own, such as `startup`), in a swarm.
        #[arg(long)]
        bot: Option<String>,
        /// Block until the completion event of the request with this id (already in the file, or
        /// to come) and print it; `--timeout MS` bounds the wait (exit 2 when it runs out).
        #[arg(long = "wait-id", conflicts_with_all = ["follow", "via_tcp", "last"])]
        wait_id: Option<String>,
        /// Block until the next event of one of these types (after `--since`, or from now) and
        /// print it; with `--wait-id`, the completion must also be of these types.
        #[arg(long = "wait-type", value_delimiter = ',', conflicts_with_all = ["follow", "via_tcp", "last"])]
        wait_type: Vec<String>,
    },
    /// The online-mode token cache (CLAWCRAFT_AUTH_DIR): `status` lists the cached accounts,
    /// `login` signs USERNAME in now (device code), `logout` deletes its tokens.
    Auth {
        #[command(subcommand)]
        action: AuthAction,
    },
    /// Check your server, read-only: connect as configured (HOST, PORT, USERNAME,
    /// --game-version), spawn, stand still and ask `/list`; print one JSON report (version
    /// picked, login mode, connect → spawn time, chunks decoded, block ids named, corrections
    /// per minute, whether commands answer, decode errors) and a summary on stderr. Exit 0 when
    /// all is well, 1 when something is wrong.
    Doctor {
        /// Seconds to stand still (after the chunks around the spawn arrived).
        #[arg(long, default_value_t = 20)]
        duration: u64,
        /// Seconds to wait for the spawn.
        #[arg(long = "spawn-timeout", default_value_t = 60)]
        spawn_timeout: u64,
    },
    /// Run the bot as an MCP server on stdin/stdout (how MCP clients launch servers): every
    /// command is a tool, events are resources and notifications. stdout carries MCP messages only.
    Mcp,
    /// The agent skill (skill/SKILL.md).
    Skill {
        #[command(subcommand)]
        action: SkillAction,
    },
}

/// `clawcraft skill …`.
#[derive(Subcommand, Debug, Clone)]
pub enum SkillAction {
    /// Symlink the skill directory into an agent's skill folder.
    Install {
        /// Where the link goes (default ~/.kiro/skills/clawcraft).
        #[arg(long)]
        dir: Option<PathBuf>,
        /// The skill directory to link (default: this build's skill/).
        #[arg(long)]
        source: Option<PathBuf>,
    },
}

/// `clawcraft auth …`.
#[derive(Subcommand, Debug, Clone)]
pub enum AuthAction {
    /// Cached accounts and how long their sign-in lasts (never the tokens).
    Status,
    /// Sign USERNAME in now: prints `auth_required` and waits for the code to be entered.
    Login,
    /// Delete USERNAME's cached tokens (`--all`: every account's).
    Logout {
        #[arg(long)]
        all: bool,
    },
}

/// Settings for plugins other than I/O (chat, respawn, reconnect, chunk cache, danger), as one
/// plain value the binary hands to them.
#[derive(Resource, Debug, Clone, PartialEq)]
pub struct AgentSettings {
    pub auth_dir: Option<PathBuf>,
    pub send_cmd: Option<String>,
    /// Names from CHAT_WHITELIST, trimmed; empty means everyone.
    pub chat_whitelist: Vec<String>,
    pub chat_prefix: String,
    pub respawn: bool,
    pub reconnect: bool,
    pub chunk_cache_max: usize,
    pub chunk_evict_dist: f64,
    pub danger_mob_dist: f64,
    pub danger_health: f64,
    pub danger_hunger: f64,
    /// `CLAWCRAFT_RESPONSE_BUDGET`: characters of a response before it warns.
    pub response_budget: usize,
    /// `CLAWCRAFT_DANGER_MODE` and `CLAWCRAFT_DANGER_REPEAT_MS`.
    pub danger: clawcraft_core::DangerPolicy,
    /// `CLAWCRAFT_SKILLS_DIR`, `None` when empty.
    pub skills_dir: Option<PathBuf>,
}

impl Config {
    /// Parses flags and environment; `BOT_USERNAME` wins over `USERNAME` as in ClawCraft.
    pub fn load() -> Self {
        let mut c = Config::parse();
        if let Ok(name) = std::env::var("BOT_USERNAME")
            && !name.is_empty()
        {
            c.username = name;
        }
        c
    }

    /// The settings other plugins read.
    pub fn agent_settings(&self) -> AgentSettings {
        AgentSettings {
            auth_dir: self.auth_dir.clone(),
            send_cmd: self.send_cmd.clone().filter(|s| !s.is_empty()),
            chat_whitelist: self
                .chat_whitelist
                .split(',')
                .map(str::trim)
                .filter(|s| !s.is_empty())
                .map(String::from)
                .collect(),
            chat_prefix: self.chat_prefix.clone(),
            respawn: self.respawn,
            reconnect: self.reconnect,
            chunk_cache_max: self.chunk_cache_max,
            chunk_evict_dist: self.chunk_evict_dist,
            danger_mob_dist: self.danger_mob_dist,
            danger_health: self.danger_health,
            danger_hunger: self.danger_hunger,
            response_budget: self.response_budget,
            danger: clawcraft_core::DangerPolicy::new(
                clawcraft_core::DangerMode::parse(&self.danger_mode).unwrap_or_default(),
                self.danger_repeat_ms,
            ),
            skills_dir: Some(self.skills_dir.trim()).filter(|d| !d.is_empty()).map(PathBuf::from),
        }
    }

    /// The forced version, `None` for `auto` (or empty).
    pub fn forced_version(&self) -> Option<&str> {
        Some(self.game_version.trim()).filter(|v| !v.is_empty() && *v != "auto")
    }

    /// `--offline-login` (clap admits only the three names; anything else reads as `auto`).
    pub fn offline_login(&self) -> clawcraft_protocol::login::OfflineLogin {
        self.offline_login.parse().unwrap_or_default()
    }

    /// The token, treating an empty variable as unset.
    pub fn token(&self) -> Option<&str> {
        self.token.as_deref().filter(|t| !t.is_empty())
    }

    /// The live map's settings (`--map`), with the token.
    pub fn map_settings(&self) -> Option<clawcraft_map::MapSettings> {
        self.map.map(|addr| clawcraft_map::MapSettings { addr, token: self.token().map(String::from) })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_match_clawcraft() {
        let c = Config::parse_from(["clawcraft"]);
        assert_eq!(c.tcp_port, 4099);
        assert_eq!(c.events, PathBuf::from("./events.jsonl"));
        assert_eq!(c.max_events_mb, 5.0);
        assert_eq!(c.timeout, 10_000);
        assert!(c.tcp && !c.respawn && !c.reconnect);
        assert_eq!(c.bind.to_string(), "127.0.0.1");
        let s = c.agent_settings();
        assert_eq!((s.chunk_cache_max, s.chunk_evict_dist), (512, 256.0));
        assert_eq!((s.danger_mob_dist, s.danger_health, s.danger_hunger), (8.0, 6.0, 4.0));
        assert_eq!(s.danger, clawcraft_core::DangerPolicy::new(clawcraft_core::DangerMode::Change, 30_000));
        let c = Config::parse_from(["clawcraft", "--danger-mode", "interval", "--danger-repeat-ms", "0"]);
        assert_eq!(c.agent_settings().danger.mode, clawcraft_core::DangerMode::Interval);
        assert_eq!(c.agent_settings().danger.repeat_ticks, 0);
        assert!(Config::try_parse_from(["clawcraft", "--danger-mode", "sometimes"]).is_err());
        assert_eq!(s.skills_dir, Some(PathBuf::from("./skills")));
        assert_eq!(s.response_budget, 8000);
        let c = Config::parse_from(["clawcraft", "--skills-dir", ""]);
        assert_eq!(c.agent_settings().skills_dir, None, "empty keeps skills in memory");
    }

    #[test]
    fn subcommands_parse() {
        let c = Config::parse_from(["clawcraft", "--tcp-port", "5000", "events", "--since", "7", "--last", "3"]);
        assert_eq!(c.tcp_port, 5000);
        assert!(matches!(c.tool, Some(Tool::Events { since: Some(7), last: Some(3), follow: false, .. })));
        let c = Config::parse_from(["clawcraft", "events", "--type", "danger,msg", "--type", "death"]);
        assert!(matches!(c.tool, Some(Tool::Events { types, .. }) if types == ["danger", "msg", "death"]));
        let c =
            Config::parse_from(["clawcraft", "--offline", "false", "--auth-dir", "/tmp/a", "auth", "logout", "--all"]);
        assert!(!c.offline && c.auth_dir == Some(PathBuf::from("/tmp/a")));
        assert!(matches!(c.tool, Some(Tool::Auth { action: AuthAction::Logout { all: true } })));
        let c = Config::parse_from(["clawcraft", "mcp", "--mcp-http", "127.0.0.1:4100"]);
        assert!(matches!(c.tool, Some(Tool::Mcp)));
        assert_eq!(c.mcp_http.map(|a| a.to_string()).as_deref(), Some("127.0.0.1:4100"));
        let c = Config::parse_from(["clawcraft", "--map", "127.0.0.1:4200"]);
        assert_eq!(c.map_settings().map(|m| m.addr.to_string()).as_deref(), Some("127.0.0.1:4200"));
        assert!(c.map_settings().is_some_and(|m| m.check().is_ok()), "loopback needs no token");
        let c = Config::parse_from(["clawcraft", "--map", "0.0.0.0:4200"]);
        let refused = c.map_settings().map(|m| m.check());
        assert!(matches!(&refused, Some(Err(e)) if e.contains("CLAWCRAFT_TOKEN")), "{refused:?}");
        let c = Config::parse_from(["clawcraft", "--map", "0.0.0.0:4200", "--token", "t0k"]);
        assert!(c.map_settings().is_some_and(|m| m.check().is_ok() && m.token.as_deref() == Some("t0k")));
        assert!(Config::parse_from(["clawcraft"]).map_settings().is_none());
        let c = Config::parse_from(["clawcraft", "--chat-whitelist", " a, b ,", "cmd", "{}"]);
        assert_eq!(c.agent_settings().chat_whitelist, vec!["a", "b"]);
    }
}
