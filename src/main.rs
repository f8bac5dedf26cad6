//! The `clawcraft` binary: connects one bot and speaks JSON lines on stdin/stdout.

use std::process::ExitCode;

fn main() -> ExitCode {
    clawcraft::cli::init_logging();
    clawcraft::cli::run(clawcraft::config::Config::load())
}
