//! Try clawcraft with no Bedrock server around: starts the local test peer of `tests/peer`
//! (installing its npm packages on first use) on a free loopback port and runs the harness
//! against it. Type commands such as `{"action":"pos"}` or `{"action":"status"}`; Ctrl-D leaves.
//!
//! ```text
//! cargo run --release --example local
//! ```

use std::io::{BufRead, BufReader};
use std::net::UdpSocket;
use std::path::PathBuf;
use std::process::{Command, ExitCode, Stdio};

use clap::Parser;
use clawcraft::config::Config;

fn main() -> ExitCode {
    clawcraft::cli::init_logging();
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    // stdin stays ours: the agent types into it.
    let install = Command::new("bash")
        .arg(root.join("tests/peer/install.sh"))
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .status();
    if !matches!(install, Ok(s) if s.success()) {
        eprintln!("could not install the test peer (tests/peer/install.sh); is Node.js 20 with npm installed?");
        return ExitCode::from(2);
    }
    let port = match UdpSocket::bind("127.0.0.1:0").and_then(|s| s.local_addr()) {
        Ok(a) => a.port(),
        Err(e) => {
            eprintln!("no free loopback port: {e}");
            return ExitCode::from(2);
        }
    };
    let mut peer = match Command::new("node")
        .arg(root.join("tests/peer/server.js"))
        .args(["--port", &port.to_string(), "--scenario", "flat"])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
    {
        Ok(c) => c,
        Err(e) => {
            eprintln!("cannot start node: {e}");
            return ExitCode::from(2);
        }
    };
    // Wait for the peer to listen; its lifecycle lines then go to stderr so stdout stays JSON-only.
    let mut lines = BufReader::new(peer.stdout.take().expect("piped stdout")).lines();
    let listening = lines.by_ref().map_while(Result::ok).any(|l| l.contains("\"listening\""));
    if !listening {
        eprintln!("the test peer did not start");
        let _ = peer.kill();
        return ExitCode::from(2);
    }
    std::thread::spawn(move || lines.map_while(Result::ok).for_each(|l| eprintln!("peer: {l}")));
    eprintln!("local peer on 127.0.0.1:{port}; type JSON commands, e.g. {{\"action\":\"pos\"}}");

    let mut config = Config::parse_from(["clawcraft"]);
    config.host = "127.0.0.1".into();
    config.port = port;
    let code = clawcraft::cli::run(config);
    let _ = peer.kill();
    let _ = peer.wait();
    code
}
