//! Command-line flags and their environment variables (ClawCraft's names and defaults, except
//! `HOST`, which defaults to loopback).

use clap::Parser;

/// clawcraft — an AI agent harness for Minecraft Bedrock.
///
/// Reads JSON commands on stdin (one per line) and writes JSON responses and events on stdout.
/// Logs go to stderr (set RUST_LOG, e.g. RUST_LOG=debug).
#[derive(Parser, Debug, Clone)]
#[command(name = "clawcraft", version, about, long_about = None)]
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
    /// Offline mode (no Xbox Live authentication). Online mode is not supported yet.
    #[arg(long, env = "OFFLINE", default_value_t = true, action = clap::ArgAction::Set)]
    pub offline: bool,
    /// Bedrock version to speak (one of the versions under data/bedrock).
    #[arg(long = "game-version", env = "CLAWCRAFT_GAME_VERSION", default_value = "1.26.45")]
    pub game_version: String,
    /// Chunk radius to request from the server.
    #[arg(long, env = "CLAWCRAFT_CHUNK_RADIUS", default_value_t = 8)]
    pub chunk_radius: i32,
    /// Do not read commands from stdin (for running as a daemon; stop it with SIGTERM).
    #[arg(long, env = "CLAWCRAFT_NO_STDIN", default_value_t = false, action = clap::ArgAction::Set, num_args = 0..=1, default_missing_value = "true")]
    pub no_stdin: bool,
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
}
