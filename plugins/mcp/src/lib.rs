//! `McpPlugin`: the bot as a [Model Context Protocol](https://modelcontextprotocol.io) server, a
//! third agent channel beside stdin/stdout and TCP, built on the official Rust SDK (`rmcp`).
//!
//! - **Tools**: every command of the [`CommandRegistry`] is a tool — name, description, input
//!   schema (its parameters) and output schema (its response) come from the registry, so a newly
//!   registered command is a new tool with no code here. `tools/call` turns the call into a
//!   [`CommandRequest`] and runs it through the same command path as a stdin or TCP line
//!   ([`PendingCommands`] → `execute_commands`/`execute_queries` → [`CommandResponse`]). The
//!   response comes back as structured content; an error as a tool error carrying its stable
//!   `code`. An async action (`move`, walk, mine, …) answers at once; its completion event
//!   (matched by request `id`) is in the events resource, reaches subscribers as a notification,
//!   and, when the call carries a `progressToken`, the call waits for it, reporting MCP progress
//!   once a second.
//! - **Resources**: `clawcraft://events?since=SEQ` reads the event log after a `seq` (recent
//!   events from memory, older ones from the events file); subscribing to `clawcraft://events`
//!   streams `notifications/resources/updated` carrying the new events (`?types=a,b`: only those); `clawcraft://status` and
//!   `clawcraft://vitals` are the `status` and `vitals` commands' answers.
//! - **Prompt** `play`: the observe → decide → act loop of `skill/SKILL.md`.
//!
//! Transports: stdio (what desktop MCP clients launch; stdout then carries only MCP messages, so
//! the I/O plugin's stdin and stdout channels must be off) and Streamable HTTP on a loopback
//! address (a bearer token is required when one is configured, and to bind anywhere else).
//!
//! Threads: the MCP server runs on its own thread (`clawcraft-mcp`) with a current-thread tokio
//! runtime; tokio never reaches the game loop, which stays a plain Bevy runner. The two sides
//! talk through channels only: requests go to the game loop (waking it, so queries are answered
//! between ticks), and each output pass hands this channel's responses and every stamped event
//! to the MCP thread.

mod bridge;
mod http;
mod hub;
mod prompt;
mod server;
pub mod tools;

use std::net::{SocketAddr, TcpListener};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use bevy_app::{App, Last, Plugin};
use bevy_ecs::prelude::*;
use clawcraft_core::{CommandRegistry, CommandWaker, Interim, InterimSet, Origin, PendingCommands};
use clawcraft_io::{IoSet, Outbox};
use clawcraft_network::ShutdownRequest;
use crossbeam_channel::Receiver;

use crate::bridge::{FromMcp, GameSide, ToMcp};

pub use crate::tools::{output_schema, tool_for};

/// MCP origins: `[MCP_ORIGINS_START, MCP_ORIGINS_START << 1)`, one per tool call or resource
/// read, far from stdin (0) and TCP (from `1 << 32`).
pub const MCP_ORIGINS_START: Origin = 1 << 48;

/// Whether a response goes back to the MCP server.
pub fn is_mcp_origin(origin: Origin) -> bool {
    (MCP_ORIGINS_START..MCP_ORIGINS_START << 1).contains(&origin)
}

/// What the MCP front end serves.
#[derive(Debug, Clone, PartialEq)]
pub struct McpSettings {
    /// Serve MCP on stdin/stdout. The I/O plugin must then run with `stdin: false` and
    /// `stdout: false`; the end of stdin shuts the bot down.
    pub stdio: bool,
    /// Serve the Streamable HTTP transport.
    pub http: Option<HttpSettings>,
    /// The events file, for `clawcraft://events?since=SEQ` older than the in-memory ring.
    pub events_file: Option<PathBuf>,
    /// Recent events kept in memory for the events resource and subscriptions.
    pub ring: usize,
}

impl Default for McpSettings {
    fn default() -> Self {
        Self { stdio: false, http: None, events_file: None, ring: 10_000 }
    }
}

/// The Streamable HTTP endpoint (`http://ADDR/mcp`).
#[derive(Debug, Clone, PartialEq)]
pub struct HttpSettings {
    /// Where to listen: loopback unless a token is set. Port 0 picks a free port.
    pub addr: SocketAddr,
    /// When set, every HTTP request must carry `Authorization: Bearer <token>`.
    pub token: Option<String>,
}

/// Serves MCP. Build it with [`McpPlugin::new`], which binds the HTTP listener at once so a taken
/// port is a start-up error.
pub struct McpPlugin {
    settings: McpSettings,
    listener: Mutex<Option<TcpListener>>,
    http_addr: Option<SocketAddr>,
}

impl McpPlugin {
    /// Checks the settings and binds the HTTP listener (if any).
    pub fn new(settings: McpSettings) -> std::io::Result<Self> {
        let mut listener = None;
        let mut http_addr = None;
        if let Some(http) = &settings.http {
            if !http.addr.ip().is_loopback() && http.token.is_none() {
                return Err(std::io::Error::new(
                    std::io::ErrorKind::PermissionDenied,
                    format!("MCP over HTTP on {} (not loopback) needs CLAWCRAFT_TOKEN", http.addr),
                ));
            }
            let l = TcpListener::bind(http.addr)?;
            http_addr = Some(l.local_addr()?);
            listener = Some(l);
        }
        Ok(Self { settings, listener: Mutex::new(listener), http_addr })
    }

    /// The bound HTTP address (useful with port 0).
    pub fn http_addr(&self) -> Option<SocketAddr> {
        self.http_addr
    }
}

/// The game loop's end of the MCP thread.
#[derive(Resource)]
struct McpChannel {
    from_mcp: Receiver<FromMcp>,
    to_mcp: bridge::ToMcpSender,
}

/// Everything the MCP thread needs, held from `build` until `finish` (when every plugin has
/// registered its commands).
#[derive(Resource)]
struct McpLaunch(GameSide);

impl Plugin for McpPlugin {
    fn build(&self, app: &mut App) {
        let waker = app.world().resource::<CommandWaker>().clone();
        let (game, from_mcp, to_mcp) = bridge::channels(waker);
        app.insert_resource(McpChannel { from_mcp, to_mcp })
            .insert_resource(McpLaunch(game))
            .add_systems(clawcraft_core::TickWork, read_mcp.in_set(clawcraft_core::gate::Gate::Channels))
            .add_systems(Interim, read_mcp.in_set(InterimSet::Read))
            .add_systems(Last, route_mcp.in_set(IoSet::Route).in_set(clawcraft_core::gate::QuietAware))
            .add_systems(Interim, route_mcp.in_set(IoSet::Route));
    }

    fn finish(&self, app: &mut App) {
        let Some(McpLaunch(game)) = app.world_mut().remove_resource::<McpLaunch>() else { return };
        let registry = app.world().resource::<CommandRegistry>().clone();
        let events = app.world().get_resource::<clawcraft_core::EventRegistry>().cloned().unwrap_or_default();
        let listener = self.listener.lock().unwrap_or_else(|p| p.into_inner()).take();
        let http = match (&self.settings.http, listener) {
            (Some(h), Some(l)) => Some((h.clone(), l)),
            _ => None,
        };
        let launch = server::Launch {
            registry: Arc::new(tools::Catalog::new(&registry).with_events(&events)),
            game,
            stdio: self.settings.stdio,
            http,
            events_file: self.settings.events_file.clone(),
            ring: self.settings.ring,
        };
        if let Err(e) = server::spawn(launch) {
            tracing::error!(error = %e, "cannot start the MCP thread; no MCP channel");
        }
    }
}

/// Moves tool calls into the shared command queue; the end of MCP stdio ends the bot, as the end
/// of stdin does.
fn read_mcp(
    channel: Res<McpChannel>,
    mut pending: ResMut<PendingCommands>,
    mut shutdown: MessageWriter<ShutdownRequest>,
) {
    for msg in channel.from_mcp.try_iter() {
        match msg {
            FromMcp::Request(req) => pending.0.push_back(req),
            FromMcp::StdioClosed => {
                tracing::info!("the MCP client closed stdio, shutting down");
                shutdown.write(ShutdownRequest);
            }
        }
    }
}

/// Hands this pass's MCP responses and every event to the MCP thread.
fn route_mcp(outbox: Res<Outbox>, channel: Res<McpChannel>) {
    let responses: Vec<(Origin, Arc<str>)> =
        outbox.responses.iter().filter(|r| is_mcp_origin(r.origin)).map(|r| (r.origin, r.line.clone())).collect();
    if responses.is_empty() && outbox.events.is_empty() {
        return;
    }
    channel.to_mcp.send(ToMcp { responses, events: outbox.events.as_slice().into() });
}
