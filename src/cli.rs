//! The command-line entry point shared by the binary and the `local` example.

use std::process::ExitCode;
use std::sync::Arc;

use bevy_app::{App, AppExit};
use serde_json::json;

use crate::config::Config;
use crate::player::PlayerSettings;
use crate::protocol::codec::Protocol;
use crate::{ClawcraftPlugins, IoPlugin, connect_bot, resolve, run_ticks};

/// Connects one bot as configured and runs until shutdown. Exit codes: 0 after a polite
/// shutdown, 2 for a lost or refused connection or bad configuration.
pub fn run(config: Config) -> ExitCode {
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

    let mut app = App::new();
    app.add_plugins(ClawcraftPlugins)
        .add_plugins(IoPlugin { stdin: !config.no_stdin, ..IoPlugin::default() })
        .insert_resource(PlayerSettings { chunk_radius: config.chunk_radius });
    customize(&mut app);
    tracing::info!(host = %config.host, %server, username = %config.username, version = %config.game_version, "connecting");
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
