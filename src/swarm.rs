//! Many bots in one process. Each bot is an entity with its own connection, world view,
//! actions, subscriptions and reconnect policy ([`BotSpec`]); they share the app, the tick, the
//! block data and the channels.
//!
//! - `--swarm FILE` (`CLAWCRAFT_SWARM`, a JSON file or the JSON itself, [`SwarmFile`]) starts the
//!   bots it lists (a list of names, or a count and a prefix), with per-bot overrides of the
//!   server, chunk radius, respawn, reconnect and online account. They connect a few per tick
//!   ([`SwarmFile::join_per_tick`]) so a hundred do not hit the server in one instant.
//! - `bots` lists them with their state; `bot_add` starts one more at run time; `bot_remove`
//!   makes one leave.
//! - A request names its bot with `"bot": "<name>"`; every event of a swarm names its bot.

use std::net::SocketAddr;
use std::sync::Arc;

use bevy_app::{App, AppExit, Plugin, PostUpdate};
use bevy_ecs::prelude::*;
use clawcraft_auth::Authenticator;
use clawcraft_core::{
    AgentCommand, AppCommandExt, AwaitingReconnect, BotStats, CommandCtx, CommandError, Lifecycle, LocalBot, NameBots,
    Position, TickSet,
};
use clawcraft_network::udp::{ConnectParams, UdpTransport};
use clawcraft_network::{Connection, Transport};
use clawcraft_player::{ChunkRadius, JoinProgress};
use clawcraft_protocol::codec::Protocol;
use clawcraft_vitals::AutoRespawn;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Most bots one process runs (a swarm file or `bot_add` beyond it is refused): past this, run
/// more processes (`examples/kubernetes/` runs a fleet of them).
pub const MAX_BOTS: usize = 1_000;

/// Bots that connect per tick at start, unless the swarm file says otherwise: 100 bots in 1 s.
pub const DEFAULT_JOIN_PER_TICK: u32 = 5;

/// How to connect one bot. Kept on its entity, and carried to the next session by a reconnect.
#[derive(Component, Clone)]
pub struct BotSpec {
    /// The name it logs in with (and that requests address it by).
    pub username: String,
    /// The server's host as given (it goes into the login).
    pub host: String,
    pub server: SocketAddr,
    /// `--game-version`, when forced; otherwise the server's, from its pong.
    pub forced_version: Option<String>,
    /// Reconnect after a lost connection (backoff 1, 2, 4, 8, 16, 30 s).
    pub reconnect: bool,
    /// Respawn by itself after death; `None`: the process's `CLAWCRAFT_RESPAWN`.
    pub respawn: Option<bool>,
    /// Chunk radius to ask for; `None`: the process's `CLAWCRAFT_CHUNK_RADIUS`.
    pub chunk_radius: Option<i32>,
    /// Online mode: the Xbox Live sign-in of this bot's account; `None`: offline.
    pub auth: Option<Arc<Authenticator>>,
}

impl BotSpec {
    /// An offline bot named `username` for `server`, without overrides.
    pub fn new(username: &str, host: &str, server: SocketAddr) -> Self {
        Self {
            username: username.to_owned(),
            host: host.to_owned(),
            server,
            forced_version: None,
            reconnect: false,
            respawn: None,
            chunk_radius: None,
            auth: None,
        }
    }
}

impl std::fmt::Debug for BotSpec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BotSpec")
            .field("username", &self.username)
            .field("server", &self.server)
            .field("reconnect", &self.reconnect)
            .field("online", &self.auth.is_some())
            .finish()
    }
}

/// Opens a bot's transport to its server: UDP (RakNet) by default; simulations install one that
/// hands out in-memory transports, so reconnects and `bot_add` work without sockets.
#[derive(Resource, Clone)]
pub struct Connector(pub Arc<OpenTransport>);

/// Opens a transport for a bot (see [`Connector`]).
pub type OpenTransport = dyn Fn(&BotSpec, ConnectParams) -> std::io::Result<Box<dyn Transport>> + Send + Sync;

/// Makes the sign-in of an account name (see [`SwarmDefaults::auth`]).
pub type MakeAuth = dyn Fn(&str) -> Authenticator + Send + Sync;

impl Default for Connector {
    fn default() -> Self {
        Self(Arc::new(|spec, params| Ok(Box::new(UdpTransport::connect(spec.server, params)?) as Box<dyn Transport>)))
    }
}

/// On a bot entity that waits for its turn to connect (see [`SwarmFile::join_per_tick`]).
#[derive(Component, Debug, Clone, Copy)]
pub struct QueuedJoin;

/// How many queued bots connect per tick.
#[derive(Resource, Debug, Clone, Copy)]
pub struct JoinPace(pub u32);

impl Default for JoinPace {
    fn default() -> Self {
        Self(DEFAULT_JOIN_PER_TICK)
    }
}

/// The bot entity of `spec`, not connected yet: its name, lifecycle, join progress and
/// per-bot settings. [`connect`] opens its connection.
pub fn spawn_bot_entity(world: &mut World, spec: BotSpec) -> Entity {
    let mut bot = world.spawn((
        LocalBot { username: spec.username.clone() },
        Lifecycle::Connecting,
        JoinProgress::default(),
        BotStats::default(),
    ));
    if let Some(radius) = spec.chunk_radius {
        bot.insert(ChunkRadius(radius));
    }
    if let Some(respawn) = spec.respawn {
        bot.insert(AutoRespawn(respawn));
    }
    bot.insert(spec);
    bot.id()
}

/// Opens the connection of `bot` (an entity from [`spawn_bot_entity`]): offline at once, online
/// after its sign-in (on a thread). The version spoken is the server's (from its pong), or the
/// forced one.
pub fn connect(world: &mut World, bot: Entity) -> std::io::Result<()> {
    let spec =
        world.get::<BotSpec>(bot).cloned().ok_or_else(|| std::io::Error::other("not a bot entity (no BotSpec)"))?;
    let forced = spec.forced_version.as_deref().map(str::trim).filter(|v| !v.is_empty() && *v != "auto");
    let mut params = ConnectParams::offline(&spec.username, &format!("{}:{}", spec.host, spec.server.port()), forced);
    params.offline_login = world.get_resource::<crate::OfflineLoginSetting>().copied().unwrap_or_default().0;
    // Until the transport reports the version it chose (before any game packet), the connection
    // holds the forced or default one.
    let initial = forced.unwrap_or(Protocol::default_version().game_version);
    let protocol = Arc::new(
        Protocol::load(initial)
            .or_else(|_| Protocol::load(Protocol::default_version().game_version))
            .map_err(std::io::Error::other)?,
    );
    world.entity_mut(bot).remove::<QueuedJoin>();
    if let Some(auth) = spec.auth.clone() {
        return crate::online::start_signing_in(world, bot, &auth, spec.server, params, protocol);
    }
    let connector = world.get_resource_or_init::<Connector>().clone();
    let transport = (connector.0)(&spec, params)?;
    world.entity_mut(bot).insert(Connection::new(transport, protocol));
    Ok(())
}

/// Spawns and connects a bot at once (a single bot, a reconnect, `bot_add` in a simulation).
pub fn spawn_bot(world: &mut World, spec: BotSpec) -> std::io::Result<Entity> {
    let bot = spawn_bot_entity(world, spec);
    match connect(world, bot) {
        Ok(()) => Ok(bot),
        Err(e) => {
            world.despawn(bot);
            Err(e)
        }
    }
}

/// A swarm file: which bots to start, where, and with what settings.
///
/// ```json
/// {"server": {"host": "127.0.0.1", "port": 19132},
///  "count": 20, "prefix": "Miner",
///  "defaults": {"chunkRadius": 4, "respawn": true, "reconnect": true},
///  "bots": ["Scout", {"username": "Builder", "chunkRadius": 8}]}
/// ```
#[derive(Deserialize, JsonSchema, Debug, Clone, Default)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SwarmFile {
    /// The server every bot joins unless its entry names another (default: HOST and PORT).
    pub server: Option<ServerAddr>,
    /// Several servers: bots made from `count` are spread over them in turn.
    #[serde(default)]
    pub servers: Vec<ServerAddr>,
    /// Bots by name, or as objects with their own settings.
    #[serde(default)]
    pub bots: Vec<BotEntry>,
    /// This many more bots, named `prefix` followed by 1, 2, …
    pub count: Option<u32>,
    /// The name of the counted bots (default `Bot`).
    pub prefix: Option<String>,
    /// Settings of every bot, which each entry may override.
    #[serde(default)]
    pub defaults: BotSettings,
    /// Bots that connect per tick at start (default 5); 0 connects them all at once.
    pub join_per_tick: Option<u32>,
}

/// A server's address.
#[derive(Deserialize, Serialize, JsonSchema, Debug, Clone, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct ServerAddr {
    pub host: String,
    pub port: u16,
}

/// One bot of a swarm file: a name, or an object with `username` and its own settings.
#[derive(Deserialize, JsonSchema, Debug, Clone)]
#[serde(untagged)]
pub enum BotEntry {
    Name(String),
    Full(BotSettings),
}

/// What a bot may set for itself (each unset field comes from the swarm's `defaults`, then the
/// process's flags).
#[derive(Deserialize, Serialize, JsonSchema, Debug, Clone, Default, PartialEq)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct BotSettings {
    /// Its name (in a swarm file's `bots` entry; not in `defaults`).
    pub username: Option<String>,
    /// Its server (default: the swarm's).
    pub server: Option<ServerAddr>,
    /// Chunk radius to ask for (1..=32).
    pub chunk_radius: Option<i32>,
    /// Respawn by itself after death.
    pub respawn: Option<bool>,
    /// Reconnect after a lost connection.
    pub reconnect: Option<bool>,
    /// Online mode (Xbox Live sign-in) for this bot.
    pub online: Option<bool>,
    /// The cached account to sign in with (default: the bot's name); online mode only.
    pub account: Option<String>,
    /// A Bedrock version to speak instead of the server's.
    pub game_version: Option<String>,
}

impl BotSettings {
    /// `self` over `base`: each field this one leaves unset comes from `base`.
    fn over(&self, base: &BotSettings) -> BotSettings {
        BotSettings {
            username: self.username.clone(),
            server: self.server.clone().or_else(|| base.server.clone()),
            chunk_radius: self.chunk_radius.or(base.chunk_radius),
            respawn: self.respawn.or(base.respawn),
            reconnect: self.reconnect.or(base.reconnect),
            online: self.online.or(base.online),
            account: self.account.clone().or_else(|| base.account.clone()),
            game_version: self.game_version.clone().or_else(|| base.game_version.clone()),
        }
    }
}

/// What the process's flags give every bot that does not say otherwise.
#[derive(Resource, Clone)]
pub struct SwarmDefaults {
    pub host: String,
    pub port: u16,
    pub forced_version: Option<String>,
    pub reconnect: bool,
    /// Online mode by default (OFFLINE=false).
    pub online: bool,
    /// Makes the sign-in of an account name (online mode).
    pub auth: Option<Arc<MakeAuth>>,
}

impl SwarmDefaults {
    /// The [`BotSpec`] of `username` with `settings` over these defaults; errors name the bot
    /// and what is wrong with it.
    pub fn spec(&self, username: &str, settings: &BotSettings) -> Result<BotSpec, String> {
        let (host, port) = match &settings.server {
            Some(s) => (s.host.clone(), s.port),
            None => (self.host.clone(), self.port),
        };
        let server =
            crate::resolve(&host, port).map_err(|e| format!("{username}: cannot resolve {host}:{port}: {e}"))?;
        if let Some(radius) = settings.chunk_radius
            && !(1..=32).contains(&radius)
        {
            return Err(format!("{username}: chunkRadius must be 1..=32 (got {radius})"));
        }
        let forced_version = settings.game_version.clone().or_else(|| self.forced_version.clone());
        if let Some(v) = forced_version.as_deref() {
            clawcraft_protocol::version::choose(None, Some(v)).map_err(|e| format!("{username}: {e}"))?;
        }
        let online = settings.online.unwrap_or(self.online);
        let auth = if online {
            let make = self.auth.as_ref().ok_or_else(|| format!("{username}: online mode is not available here"))?;
            Some(Arc::new(make(settings.account.as_deref().unwrap_or(username))))
        } else {
            None
        };
        Ok(BotSpec {
            username: username.to_owned(),
            host,
            server,
            forced_version,
            reconnect: settings.reconnect.unwrap_or(self.reconnect),
            respawn: settings.respawn,
            chunk_radius: settings.chunk_radius,
            auth,
        })
    }
}

/// A bot's name: what Bedrock allows a player (1–16 characters; letters, digits, `_`, space).
pub fn check_username(name: &str) -> Result<(), String> {
    let ok_chars = name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == ' ');
    if name.trim().is_empty() || name.chars().count() > 16 || !ok_chars || name.trim() != name {
        return Err(format!(
            "invalid bot name {name:?}: 1–16 letters, digits, `_` or inner spaces (a Bedrock player name)"
        ));
    }
    Ok(())
}

impl SwarmFile {
    /// Reads `source`: a path to a JSON file, or the JSON itself (it starts with `{`).
    pub fn load(source: &str) -> Result<Self, String> {
        let text = if source.trim_start().starts_with('{') {
            source.to_owned()
        } else {
            std::fs::read_to_string(source).map_err(|e| format!("cannot read the swarm file {source}: {e}"))?
        };
        serde_json::from_str(&text).map_err(|e| format!("swarm file: {e}"))
    }

    /// Every bot it describes, as specs over `defaults`, in order: the listed bots, then the
    /// counted ones. Names must be unique (case-insensitively); at most [`MAX_BOTS`].
    pub fn specs(&self, defaults: &SwarmDefaults) -> Result<Vec<BotSpec>, String> {
        if self.defaults.username.is_some() {
            return Err("`defaults` cannot name a bot (give names in `bots`)".into());
        }
        let mut named: Vec<(String, BotSettings)> = self
            .bots
            .iter()
            .map(|b| match b {
                BotEntry::Name(n) => Ok((n.clone(), BotSettings::default())),
                BotEntry::Full(b) => {
                    let name = b.username.clone().ok_or("a `bots` entry object needs its `username`")?;
                    Ok((name, b.clone()))
                }
            })
            .collect::<Result<_, String>>()?;
        let count = self.count.unwrap_or(0) as usize;
        if named.len() + count > MAX_BOTS {
            return Err(format!("{} bots asked for; one process runs at most {MAX_BOTS}", named.len() + count));
        }
        let prefix = self.prefix.as_deref().unwrap_or("Bot");
        let width = count.to_string().len();
        for i in 1..=count {
            let server = (!self.servers.is_empty()).then(|| self.servers[(i - 1) % self.servers.len()].clone());
            named.push((format!("{prefix}{i:0width$}"), BotSettings { server, ..BotSettings::default() }));
        }
        if named.is_empty() {
            return Err("the swarm file names no bot (give `bots` or `count`)".into());
        }
        let mut seen = std::collections::HashSet::new();
        let base = BotSettings { server: self.server.clone(), ..BotSettings::default() }.over(&BotSettings::default());
        let base = self.defaults.over(&base);
        named
            .into_iter()
            .map(|(name, own)| {
                check_username(&name)?;
                if !seen.insert(name.to_lowercase()) {
                    return Err(format!("the bot name {name} is given twice"));
                }
                defaults.spec(&name, &own.over(&base))
            })
            .collect()
    }
}

/// The swarm's bots and commands (part of [`ClawcraftPlugins`](crate::ClawcraftPlugins)): joins
/// queued bots a few per tick, and registers `bots`, `bot_add` and `bot_remove`.
pub struct SwarmPlugin;

impl Plugin for SwarmPlugin {
    fn build(&self, app: &mut App) {
        app.init_resource::<JoinPace>()
            .add_agent_command::<Bots>()
            .add_agent_command::<BotAdd>()
            .add_agent_command::<BotRemove>()
            .add_systems(
                PostUpdate,
                join_queued
                    .after(TickSet::Send)
                    .in_set(clawcraft_core::gate::QuietAware)
                    // Nothing to do once every bot has connected.
                    .in_set(clawcraft_core::gate::Settled),
            );
    }
}

/// Starts the bots of a swarm: each entity at once (so `bots` lists it and requests find it),
/// their connections a few per tick.
pub fn start_swarm(world: &mut World, specs: Vec<BotSpec>, join_per_tick: u32) {
    world.insert_resource(JoinPace(join_per_tick));
    world.insert_resource(NameBots { always: true });
    for spec in specs {
        let bot = spawn_bot_entity(world, spec);
        world.entity_mut(bot).insert(QueuedJoin);
    }
}

/// Connects up to [`JoinPace`] queued bots (all of them when it is 0).
fn join_queued(world: &mut World) {
    let pace = world.resource::<JoinPace>().0;
    let mut queued = world.query_filtered::<Entity, With<QueuedJoin>>();
    let mut due: Vec<Entity> = queued.iter(world).collect();
    if due.is_empty() {
        return;
    }
    // Oldest first: entity indices grow with spawn order.
    due.sort_by_key(|e| e.index());
    if pace > 0 {
        due.truncate(pace as usize);
    }
    for bot in due {
        if let Err(e) = connect(world, bot) {
            let name = world.get::<LocalBot>(bot).map(|b| b.username.clone()).unwrap_or_default();
            tracing::warn!(bot = %name, error = %e, "cannot open a connection");
            world.entity_mut(bot).remove::<QueuedJoin>();
            *world.entity_mut(bot).get_mut::<Lifecycle>().expect("every bot has a lifecycle") = Lifecycle::Disconnected;
            world.write_message(clawcraft_network::ConnectionClosed { bot, reason: e.to_string(), error: true });
        }
    }
}

/// `bots`: every bot of this process with its state.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Bots {}

/// One bot in `bots`.
#[derive(Serialize, JsonSchema, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct BotInfo {
    pub name: String,
    /// `queued`, `connecting`, `joining`, `spawned`, `reconnecting` or `disconnected`.
    pub state: String,
    /// `host:port` it plays on.
    pub server: Option<String>,
    /// Feet position, once spawned.
    pub pos: Option<clawcraft_core::Vec3>,
    /// The reconnect attempt under way (`reconnecting` only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub attempt: Option<u32>,
    /// Whether it reconnects after a lost connection.
    pub reconnect: bool,
    /// Online (Xbox Live) or offline.
    pub online: bool,
}

/// Response of `bots`.
#[derive(Serialize, JsonSchema)]
pub struct BotsResponse {
    pub bots: Vec<BotInfo>,
    /// How many bots there are.
    pub count: usize,
    /// How many of them are spawned.
    pub spawned: usize,
}

/// The state of every bot, in name order.
pub fn bot_infos(world: &mut World) -> Vec<BotInfo> {
    let mut q = world.query::<(
        &LocalBot,
        &Lifecycle,
        Option<&BotSpec>,
        Option<&Position>,
        Has<QueuedJoin>,
        Option<&AwaitingReconnect>,
    )>();
    let mut infos: Vec<BotInfo> = q
        .iter(world)
        .map(|(bot, lifecycle, spec, pos, queued, returning)| {
            let state = match (lifecycle, queued, returning) {
                (_, true, _) => "queued",
                (_, _, Some(_)) => "reconnecting",
                (Lifecycle::Connecting, ..) => "connecting",
                (Lifecycle::Joining, ..) => "joining",
                (Lifecycle::Spawned, ..) => "spawned",
                (Lifecycle::Disconnected, ..) => "disconnected",
            };
            BotInfo {
                name: bot.username.clone(),
                state: state.into(),
                server: spec.map(|s| format!("{}:{}", s.host, s.server.port())),
                pos: (*lifecycle == Lifecycle::Spawned).then(|| pos.map(|p| p.0.rounded())).flatten(),
                attempt: returning.map(|r| r.attempt),
                reconnect: spec.is_some_and(|s| s.reconnect),
                online: spec.is_some_and(|s| s.auth.is_some()),
            }
        })
        .collect();
    infos.sort_by(|a, b| a.name.cmp(&b.name));
    infos
}

impl AgentCommand for Bots {
    const NAME: &'static str = "bots";
    const SUMMARY: &'static str = "Every bot of this process with its state (queued, connecting, joining, spawned, reconnecting, disconnected) and position";
    const EXAMPLE: &'static str = r#"{"action":"bots"}"#;
    const NEEDS_SPAWN: bool = false;
    const PER_BOT: bool = false;
    const QUERY: bool = true;
    const SIZE_HINT: Option<&'static str> = Some("address one bot with `bot` and ask `status`");
    type Response = BotsResponse;

    fn run(self, ctx: &mut CommandCtx<'_>) -> Result<BotsResponse, CommandError> {
        let bots = bot_infos(ctx.world);
        let spawned = bots.iter().filter(|b| b.state == "spawned").count();
        Ok(BotsResponse { count: bots.len(), spawned, bots })
    }
}

/// `bot_add`: starts one more bot (it connects in the next tick).
#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct BotAdd {
    /// Its name (a Bedrock player name).
    pub username: String,
    /// Its server (default: the harness's HOST and PORT).
    pub server: Option<ServerAddr>,
    /// Chunk radius to ask for (1..=32).
    pub chunk_radius: Option<i32>,
    /// Respawn by itself after death.
    pub respawn: Option<bool>,
    /// Reconnect after a lost connection.
    pub reconnect: Option<bool>,
    /// Online mode (Xbox Live sign-in) for this bot.
    pub online: Option<bool>,
    /// The cached account to sign in with (default: the bot's name); online mode only.
    pub account: Option<String>,
    /// A Bedrock version to speak instead of the server's.
    pub game_version: Option<String>,
}

/// Response of `bot_add`.
#[derive(Serialize, JsonSchema)]
pub struct BotAddResponse {
    pub added: String,
    /// `queued`: it connects in the next tick (a `spawn` event with its name follows).
    pub state: String,
    /// How many bots there are now.
    pub count: usize,
}

impl AgentCommand for BotAdd {
    const NAME: &'static str = "bot_add";
    const SUMMARY: &'static str =
        "Start one more bot in this process (username, optional server/chunkRadius/respawn/reconnect/online)";
    const EXAMPLE: &'static str = r#"{"action":"bot_add","username":"Scout"}"#;
    const NEEDS_SPAWN: bool = false;
    const PER_BOT: bool = false;
    const MISSING_PARAMS: &'static [(&'static str, &'static str)] = &[("username", "Need username")];
    type Response = BotAddResponse;

    fn run(self, ctx: &mut CommandCtx<'_>) -> Result<BotAddResponse, CommandError> {
        check_username(&self.username).map_err(CommandError::invalid_params_text)?;
        let infos = bot_infos(ctx.world);
        if infos.iter().any(|b| b.name.eq_ignore_ascii_case(&self.username)) {
            return Err(CommandError::new("BOT_EXISTS", format!("A bot named {} already runs here", self.username)));
        }
        if infos.len() >= MAX_BOTS {
            return Err(CommandError::out_of_range(format!("one process runs at most {MAX_BOTS} bots")));
        }
        let defaults = ctx
            .world
            .get_resource::<SwarmDefaults>()
            .cloned()
            .ok_or_else(|| CommandError::new("NOT_CONFIGURED", "bot_add needs the harness's server settings"))?;
        let settings = BotSettings {
            username: None,
            server: self.server,
            chunk_radius: self.chunk_radius,
            respawn: self.respawn,
            reconnect: self.reconnect,
            online: self.online,
            account: self.account,
            game_version: self.game_version,
        };
        let spec = defaults.spec(&self.username, &settings).map_err(CommandError::invalid_params_text)?;
        let bot = spawn_bot_entity(ctx.world, spec);
        ctx.world.entity_mut(bot).insert(QueuedJoin);
        // From now on every event names its bot.
        ctx.world.resource_mut::<NameBots>().always = true;
        Ok(BotAddResponse { added: self.username, state: "queued".into(), count: infos.len() + 1 })
    }
}

/// `bot_remove`: the addressed bot leaves the server and this process.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BotRemove {}

/// Response of `bot_remove`.
#[derive(Serialize, JsonSchema)]
pub struct BotRemoveResponse {
    pub removed: String,
    /// Bots left in this process.
    pub remaining: usize,
}

impl AgentCommand for BotRemove {
    const NAME: &'static str = "bot_remove";
    const SUMMARY: &'static str = "The addressed bot (`bot`) disconnects politely and leaves this process; the process ends with its last bot unless --keep-running";
    const EXAMPLE: &'static str = r#"{"action":"bot_remove","bot":"Scout"}"#;
    const NEEDS_SPAWN: bool = false;
    type Response = BotRemoveResponse;

    fn run(self, ctx: &mut CommandCtx<'_>) -> Result<BotRemoveResponse, CommandError> {
        let bot = ctx.bot;
        let Some(name) = ctx.world.get::<LocalBot>(bot).map(|b| b.username.clone()) else {
            return Err(CommandError::new("UNKNOWN_BOT", "No bot runs here"));
        };
        interrupt_and_close(ctx.world, bot);
        ctx.world.despawn(bot);
        let remaining = ctx.world.query_filtered::<(), With<LocalBot>>().iter(ctx.world).count();
        let exits = ctx.world.get_resource::<clawcraft_io::ExitPolicy>().is_some_and(|p| p.when_no_bots);
        if remaining == 0 && exits {
            tracing::info!("the last bot was removed; leaving");
            ctx.world.write_message(AppExit::Success);
        }
        Ok(BotRemoveResponse { removed: name, remaining })
    }
}

/// Ends the bot's actions (their completion events say `shutdown`) and closes its connection
/// politely.
fn interrupt_and_close(world: &mut World, bot: Entity) {
    world.write_message(clawcraft_core::InterruptActions { bot, cause: clawcraft_core::Interruption::Shutdown });
    clawcraft_core::action::apply_interruptions(world);
    if let Some(mut conn) = world.get_mut::<Connection>(bot) {
        conn.close();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn defaults() -> SwarmDefaults {
        SwarmDefaults {
            host: "127.0.0.1".into(),
            port: 19132,
            forced_version: None,
            reconnect: false,
            online: false,
            auth: None,
        }
    }

    #[test]
    fn a_swarm_file_lists_named_and_counted_bots_with_their_settings() {
        let file = SwarmFile::load(
            r#"{"count": 12, "prefix": "Miner", "servers": [{"host":"127.0.0.1","port":1000},{"host":"127.0.0.1","port":1001}],
                "defaults": {"chunkRadius": 4, "reconnect": true},
                "bots": ["Scout", {"username": "Builder", "chunkRadius": 8, "respawn": true}]}"#,
        )
        .expect("parses");
        let specs = file.specs(&defaults()).expect("valid");
        let names: Vec<&str> = specs.iter().map(|s| s.username.as_str()).collect();
        assert_eq!(names[..4], ["Scout", "Builder", "Miner01", "Miner02"]);
        assert_eq!(names.len(), 14);
        assert_eq!(names[13], "Miner12");
        assert_eq!(specs[0].server.port(), 19132, "named bots use the default server");
        assert_eq!((specs[2].server.port(), specs[3].server.port(), specs[4].server.port()), (1000, 1001, 1000));
        assert_eq!((specs[0].chunk_radius, specs[1].chunk_radius), (Some(4), Some(8)), "an entry overrides defaults");
        assert!(specs.iter().all(|s| s.reconnect));
        assert_eq!((specs[0].respawn, specs[1].respawn), (None, Some(true)));
    }

    #[test]
    fn bad_swarm_files_are_refused_with_the_reason() {
        let refused = |json: &str| SwarmFile::load(json).and_then(|f| f.specs(&defaults())).expect_err(json);
        assert!(refused(r#"{"bots": ["a", "A"]}"#).contains("given twice"));
        assert!(refused(r#"{"bots": []}"#).contains("names no bot"));
        assert!(refused(r#"{"count": 1001}"#).contains("at most 1000"));
        assert!(refused(r#"{"bots": ["no/slash"]}"#).contains("invalid bot name"));
        assert!(refused(r#"{"bots": ["seventeen_letters"]}"#).contains("invalid bot name"));
        assert!(refused(r#"{"bots": [{"username": "a", "chunkRadius": 99}]}"#).contains("chunkRadius"));
        assert!(refused(r#"{"bots": ["a"], "colour": 1}"#).contains("unknown field"));
        assert!(refused(r#"{"bots": [{"username": "a", "online": true}]}"#).contains("online mode"));
        assert!(refused("[1,2]").contains("swarm file"));
        assert!(SwarmFile::load("/nonexistent/swarm.json").expect_err("no file").contains("cannot read"));
    }
}
